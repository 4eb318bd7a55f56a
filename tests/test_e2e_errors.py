"""End to end: broken golden files, bad settings and misbehaving retrievers (CONTRACT §1-§3)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from golden_cases import GOLDEN_ERRORS

from conftest import (
    E2E_CONFIGS,
    E2E_QUERY_IDS,
    E2E_RETRIEVER_CONFTEST,
    e2e_junit_cases,
    e2e_junit_properties,
    e2e_load_json,
    e2e_run,
    e2e_unwrapped,
    e2e_write,
    e2e_write_project,
)

BROKEN = "golden/broken.yaml"


def _clean(result: pytest.RunResult) -> str:
    """All output; asserts no Python traceback (PyYAML's or pytest's) leaked into it."""
    text = result.stdout.str() + "\n" + result.stderr.str()
    assert "Traceback" not in text
    assert "yaml/" not in text  # a frame inside PyYAML
    assert "_pytest/" not in text  # a frame inside pytest
    assert "site-packages" not in text
    return text


def _row(row: dict[str, object]) -> dict[str, object]:
    """A summary row's n and metrics (CONTRACT §6 adds "ci" beside them)."""
    return {k: row[k] for k in ("n", "ndcg@10", "mrr", "recall@20")}


def _holds(line: str, fragment: str | re.Pattern[str]) -> bool:
    return fragment in line if isinstance(fragment, str) else bool(fragment.search(line))


def _line_with(text: str, *fragments: str | re.Pattern[str]) -> str:
    """The one output line holding every fragment (the problem is reported on one line)."""
    lines = [
        line for line in e2e_unwrapped(text).splitlines() if all(_holds(line, f) for f in fragments)
    ]
    assert lines, f"no output line holds all of {fragments!r}:\n{text}"
    return lines[0]


# --------------------------------------------------------------------------- golden files

# The cases themselves run through the loader in test_golden_validation.py; here a few
# of them go through pytest's collection, to show how a collection error reads.
E2E_GOLDEN_ERRORS = [
    "unknown-key-with-suggestion",
    "grade-high",
    "yaml-syntax-unterminated-quote",
]


@pytest.mark.parametrize("case", E2E_GOLDEN_ERRORS)
def test_a_golden_file_error_names_file_line_query_and_problem(
    pytester: pytest.Pytester, case: str
) -> None:
    text, line, qid, fragments = GOLDEN_ERRORS[case]
    e2e_write_project(pytester)
    e2e_write(pytester, BROKEN, text)
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting golden/broken.yaml*"])
    output = _clean(result)
    where = f"{BROKEN}:{line}"
    if qid is None:
        _line_with(output, where, *fragments)
    else:
        _line_with(output, where, f"'{qid}'", *fragments)
    # no item of any file ran: pytest stops on collection errors
    assert "passed" not in result.stdout.str().splitlines()[-1]


RAIN_LATER_RETRIEVER = """\
import pytest


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    return lambda query: ["weather-forecast"]
"""


def test_a_grade_of_4_is_fine_with_retrieval_max_grade_4(pytester: pytest.Pytester) -> None:
    e2e_write_project(
        pytester,
        ini="[pytest]\nretrieval_golden = golden\nretrieval_max_grade = 4\n",
        conftest=RAIN_LATER_RETRIEVER,
    )
    e2e_write(
        pytester,
        "golden/graded.yaml",
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant: {weather-forecast: 4, weather-forecast-stuffed: 1}
        """,
    )
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    result.assert_outcomes(passed=16)
    report = e2e_load_json(pytester.path / "r.json")
    assert report["settings"]["max_grade"] == 4
    record = report["configurations"]["bm25"]["queries"]["rain-later"]
    assert record["outcome"] == "passed"
    # grade 4 counts with gain 2^4 - 1 = 15: DCG = 15, IDCG = 15 + 1/log2(3)
    expected = 15 / (15 + 1 / math.log2(3))
    assert record["metrics"]["ndcg@10"] == pytest.approx(expected, abs=1e-12)


def test_a_duplicate_id_across_two_files_names_both_locations(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest=RAIN_LATER_RETRIEVER)
    # rain-tomorrow is defined on line 6 of golden/catalog.yaml
    e2e_write(
        pytester,
        "golden/more.yaml",
        """\
        # more paraphrases
        queries:
          - id: drizzle
            query: drizzle this morning
            relevant: {weather-forecast: 2}
          - id: rain-tomorrow
            query: rain expected tomorrow
            relevant: {weather-forecast: 3}
        """,
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = _clean(result)
    line = _line_with(output, "'rain-tomorrow'", "duplicate")
    assert "golden/more.yaml:6" in line
    assert "golden/catalog.yaml:6" in line


def test_two_broken_files_are_both_reported_and_good_files_still_collect(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    e2e_write(
        pytester,
        "golden/broken-a.yaml",
        """\
        queries:
          - id: broken-a
            query: first broken file
            relevant: {weather-forecast: 7}
        """,
    )
    e2e_write(
        pytester,
        "golden/broken-b.yml",
        """\
        - id: broken-b
          query: second broken file
          relevent: [weather-forecast]
        """,
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = _clean(result)
    result.stdout.fnmatch_lines_random(
        [
            "*ERROR collecting golden/broken-a.yaml*",
            "*ERROR collecting golden/broken-b.yml*",
            "*Interrupted: 2 errors during collection*",
        ]
    )
    _line_with(
        output, "golden/broken-a.yaml:4", "'broken-a'", "weather-forecast", re.compile(r"\b7\b")
    )
    _line_with(output, "golden/broken-b.yml:3", "'broken-b'", "relevent", "relevant")
    assert "retrieval evaluation" not in output

    going_on = e2e_run(
        pytester,
        "--retrieval-eval",
        "--continue-on-collection-errors",
        "--retrieval-report",
        "r.json",
    )
    going_on.assert_outcomes(passed=14, errors=2)
    assert going_on.ret == pytest.ExitCode.TESTS_FAILED
    report = e2e_load_json(pytester.path / "r.json")
    assert report["golden"]["files"] == ["golden/catalog.yaml", "golden/holdout.yml"]
    assert sorted(report["configurations"]["bm25"]["queries"]) == sorted(E2E_QUERY_IDS)


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("retrieval_gain", "cubic"),
        ("retrieval_metrics", "ndgc@10 mrr"),
        ("retrieval_metrics", "recall"),
        ("retrieval_empty", "never"),
        ("retrieval_max_grade", "high"),
        ("retrieval_relevance_threshold", "0"),
    ],
)
def test_a_bad_ini_value_is_a_usage_error_naming_the_key(
    pytester: pytest.Pytester, key: str, value: str
) -> None:
    e2e_write_project(pytester, ini=f"[pytest]\nretrieval_golden = golden\n{key} = {value}\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    stderr = _clean(result)
    _line_with(stderr, key, value.split()[0])
    assert "passed" not in result.stdout.str()


def test_a_bad_metric_name_suggests_the_closest(pytester: pytest.Pytester) -> None:
    e2e_write_project(
        pytester, ini="[pytest]\nretrieval_golden = golden\nretrieval_metrics = ndgc@10\n"
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    _line_with(_clean(result), "retrieval_metrics", "ndgc@10", "ndcg@10")


# --------------------------------------------------------------------------- retrievers

ERRORS_YAML = """\
defaults:
  category: broken
queries:
  - id: raises-value-error
    query: anything at all
    relevant: {}
  - id: generator-raises
    query: anything at all
    relevant: {}
  - id: gives-nothing
    query: anything at all
    relevant: {}
  - id: gives-number
    query: anything at all
    relevant: {}
  - id: gives-text
    query: anything at all
    relevant: {}
  - id: gives-mapping
    query: anything at all
    relevant: {}
  - id: gives-nan-score
    query: anything at all
    relevant: {weather-forecast: 3}
  - id: healthy
    query: weather forecast
    category: fine
    relevant: {weather-forecast: 3}
    expect: {mrr: 1.0}
  - id: abstains
    query: nothing in the catalog answers this
    category: fine
    relevant: {}
"""

ERRORS_CONFTEST = """\
import pytest


def half_way():
    yield "weather-forecast"
    raise RuntimeError("the index went away")


@pytest.fixture
def retriever():
    def search(query):
        if query.id == "raises-value-error":
            raise ValueError("boom")
        if query.id == "generator-raises":
            return half_way()
        return {
            "gives-nothing": None,
            "gives-number": 3,
            "gives-text": "a bare string",
            "gives-mapping": {"weather-forecast": 0.9},
            "gives-nan-score": [("weather-forecast", float("nan"))],
            "healthy": ["weather-forecast"],
            "abstains": [],
        }[query.id]

    return search
"""

# query id -> what the message must name (the exception, or the type that came back)
ERROR_NAMES = {
    "raises-value-error": [r"\bValueError\b", r"\bboom\b"],
    "generator-raises": [r"\bRuntimeError\b", r"the index went away"],
    "gives-nothing": [r"\bNone\b"],
    "gives-number": [r"\bint\b"],
    "gives-text": [r"\bstr\b"],
    "gives-mapping": [r"\bdict\b"],
    "gives-nan-score": [r"\bscore nan\b", r"\bfinite scores\b"],
}


def test_a_misbehaving_retriever_fails_its_item_scores_zero_and_the_run_goes_on(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_golden = golden\n")
    pytester.makeconftest(ERRORS_CONFTEST)
    e2e_write(pytester, "golden/errors.yaml", ERRORS_YAML)
    result = e2e_run(
        pytester,
        "--retrieval-eval",
        "-rf",
        "--retrieval-report",
        "r.json",
        "--junitxml",
        "j.xml",
    )
    result.assert_outcomes(passed=2, failed=7)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    for qid, names in ERROR_NAMES.items():
        result.stdout.fnmatch_lines([f"FAILED golden/errors.yaml::{qid} - *"])
        line = _line_with(output, f"'{qid}'", "retriever")
        for name in names:
            assert re.search(name, line), (qid, name, line)

    report = e2e_load_json(pytester.path / "r.json")
    queries = report["configurations"]["default"]["queries"]
    zero = {"ndcg@10": 0.0, "mrr": 0.0, "recall@20": 0.0}
    for qid, names in ERROR_NAMES.items():
        record = queries[qid]
        assert record["outcome"] == "error", qid
        assert isinstance(record["error"], str), qid
        for name in names:
            assert re.search(name, record["error"]), (qid, name, record["error"])
        # a no-result query under abstain scores 1.0 only when nothing came back;
        # an error is not "nothing came back": 0.0 on every metric
        assert record["metrics"] == zero, qid
        assert record["retrieved"] == [], qid
    assert queries["healthy"]["outcome"] == "passed"
    assert queries["healthy"]["error"] is None
    assert queries["healthy"]["metrics"] == {"ndcg@10": 1.0, "mrr": 1.0, "recall@20": 1.0}
    assert queries["abstains"]["outcome"] == "passed"
    assert queries["abstains"]["metrics"] == {"ndcg@10": 1.0, "mrr": 1.0, "recall@20": 1.0}
    summary = report["configurations"]["default"]["summary"]
    assert _row(summary["categories"]["broken"]) == {"n": 7, **zero}
    assert _row(summary["categories"]["fine"]) == {
        "n": 2,
        "ndcg@10": 1.0,
        "mrr": 1.0,
        "recall@20": 1.0,
    }
    assert summary["all"]["n"] == 9
    assert summary["all"]["mrr"] == pytest.approx(2 / 9, abs=1e-12)

    props = e2e_junit_properties(pytester.path / "j.xml")
    assert props["golden.errors.yaml::gives-nothing"] == {
        "configuration": "default",
        "category": "broken",
        "ndcg@10": "0.0",
        "mrr": "0.0",
        "recall@20": "0.0",
    }


SETUP_FAILS_CONFTEST = """\
import pytest


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    if request.param == "dense":
        raise RuntimeError("dense index not built")
    return lambda query: ["weather-forecast"]
"""


def test_a_retriever_fixture_that_raises_in_setup_errors_its_items(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest=SETUP_FAILS_CONFTEST)
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report", "r.json", "--junitxml", "j.xml"
    )
    result.assert_outcomes(passed=7, errors=7)
    result.stdout.fnmatch_lines(["*ERROR at setup of rain-tomorrow[[]dense[]]*"])
    said = " ".join(result.stdout.str().split())  # the summary says why dense scores 0.0
    assert "every query of configuration 'dense' errored (" in said
    assert "dense index not built" in said.split("every query of configuration 'dense'")[1]
    assert "every query of configuration 'bm25'" not in said
    report = e2e_load_json(pytester.path / "r.json")
    dense = report["configurations"]["dense"]
    assert sorted(dense["queries"]) == sorted(E2E_QUERY_IDS)
    for qid, record in dense["queries"].items():
        assert record["outcome"] == "error", qid
        assert "dense index not built" in record["error"], qid
        assert record["metrics"] == {"ndcg@10": 0.0, "mrr": 0.0, "recall@20": 0.0}, qid
    assert _row(dense["summary"]["all"]) == {"n": 7, "ndcg@10": 0.0, "mrr": 0.0, "recall@20": 0.0}
    bm25 = report["configurations"]["bm25"]["queries"]
    assert {q["outcome"] for q in bm25.values()} == {"passed"}
    assert list(report["configurations"]) == E2E_CONFIGS

    cases = e2e_junit_cases(pytester.path / "j.xml")
    assert cases["golden.catalog.yaml::rain-tomorrow[dense]"] == "error"
    assert cases["golden.catalog.yaml::rain-tomorrow[bm25]"] == "passed"
    props = e2e_junit_properties(pytester.path / "j.xml")
    dense_props = props["golden.catalog.yaml::rain-tomorrow[dense]"]
    assert dense_props["configuration"] == "dense"
    assert dense_props["category"] == "paraphrase"
    assert float(dense_props["ndcg@10"]) == 0.0


@pytest.mark.parametrize("verbose", [False, True])
def test_a_fixture_that_cannot_be_built_shows_its_traceback_once(
    pytester: pytest.Pytester, verbose: bool
) -> None:
    """pytest builds a function-scoped fixture again for each item, so a broken one
    fails all 7 queries of 'dense' alike: one traceback, then a line per item naming
    the error and where its traceback is; -vv shows every one."""
    e2e_write_project(pytester, conftest=SETUP_FAILS_CONFTEST)
    args = ["--retrieval-eval", "-p", "no:randomly", "--junitxml", "j.xml"]
    result = e2e_run(pytester, *args, *(["-vv"] if verbose else []))
    result.assert_outcomes(passed=7, errors=7)
    output = result.stdout.str()
    assert output.count('raise RuntimeError("dense index not built")') == (7 if verbose else 1)
    pointer = "(its traceback is shown on golden/catalog.yaml::rain-tomorrow[dense];"
    assert output.count(pointer) == (0 if verbose else 6)
    assert output.count("E           RuntimeError: dense index not built") == (7 if verbose else 1)
    assert output.count("ERROR golden/") == 7  # the short summary, every item
    cases = e2e_junit_cases(pytester.path / "j.xml")
    errored = [name for name, outcome in cases.items() if outcome == "error"]
    assert len(errored) == 7 and all(name.endswith("[dense]") for name in errored)


@pytest.mark.parametrize("scope", ["function", "session"])
def test_a_fixture_error_shows_no_frame_of_the_plugin(
    pytester: pytest.Pytester, scope: str
) -> None:
    """The plugin times the retriever fixture's builds with a hook wrapper around every
    fixture's setup; a fixture's error (the retriever's, or one it depends on) showed
    that wrapper's frame, ``self = <RebuildWatch ...>`` and its ``value = yield``, above
    the user's own code."""
    conftest = (
        "import pytest\n\n\n@pytest.fixture(scope='session')\ndef index():\n"
        "    raise ValueError('index missing')\n\n\n"
        f"@pytest.fixture(scope={scope!r})\ndef retriever(index):\n    return lambda q: []\n"
    )
    e2e_write_project(pytester, conftest=conftest)
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    result.assert_outcomes(errors=7)
    output = result.stdout.str()
    assert "raise ValueError('index missing')" in output
    assert "rebuilds.py" not in output and "RebuildWatch" not in output


def test_the_pointer_to_a_shown_traceback_fits_the_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    e2e_write_project(pytester, conftest=SETUP_FAILS_CONFTEST)
    monkeypatch.setenv("COLUMNS", "64")
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    result.assert_outcomes(passed=7, errors=7)
    lines = result.stdout.lines
    start = [i for i, line in enumerate(lines) if line.startswith("(its traceback is shown on")]
    assert len(start) == 6
    assert all(len(line) <= 64 for i in start for line in lines[i : i + 3])
    pointer = "(its traceback is shown on golden/catalog.yaml::rain-tomorrow[dense]; -vv: on every"
    assert e2e_unwrapped(result.stdout.str()).count(pointer) == 6


def test_a_retriever_fixture_that_returns_no_callable_errors_its_items(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(
        pytester,
        conftest="import pytest\n\n\n@pytest.fixture\ndef retriever():\n    return ['a', 'b']\n",
    )
    result = e2e_run(pytester, "--retrieval-eval", "-rf", "--retrieval-report", "r.json")
    result.assert_outcomes(failed=7)
    result.stdout.fnmatch_lines(["FAILED golden/catalog.yaml::rain-tomorrow - *"])
    _line_with(result.stdout.str(), "'rain-tomorrow'", re.compile(r"\blist\b"))
    report = e2e_load_json(pytester.path / "r.json")
    record = report["configurations"]["default"]["queries"]["teleport-ticket"]
    assert record["outcome"] == "error"
    assert "list" in record["error"]
    assert record["metrics"] == {"ndcg@10": 0.0, "mrr": 0.0, "recall@20": 0.0}
    # said whole once (the first item run), then where: not 7 times the same paragraph
    text = e2e_unwrapped(result.stdout.str())
    assert text.count("it returned list") == 1, text
    assert text.count("fixture's value is not a retriever, as on golden/") == 6
    coarse = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category")
    lines = e2e_unwrapped(coarse.stdout.str())
    assert lines.count("it returned list") == 1, lines  # in the first category's item
    assert "query 'umbrella-needed': error: the same as query 'rain-tomorrow' above" in lines
    assert "query 'convert-euros': error: the same as the failure of golden/catalog.yaml::" in lines


def test_a_fixture_that_forgets_to_return_is_asked_whether_it_does(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(
        pytester,
        conftest="import pytest\n\n\n@pytest.fixture\ndef retriever():\n"
        "    def search(query):\n        return []\n",
    )
    result = e2e_run(pytester, "--retrieval-eval", "-k", "rain-tomorrow")
    text = e2e_unwrapped(result.stdout.str())
    assert "it returned NoneType (does the fixture end without `return search`?)" in text


def test_no_traceback_for_a_golden_error_under_verbose_flags(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    e2e_write(pytester, BROKEN, "queries:\n  - id: x\n    query: [unclosed\n")
    result = e2e_run(pytester, "--retrieval-eval", "-vv", "--tb=long")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    _line_with(_clean(result), f"{BROKEN}:3", "YAML")


HUGE_SCORE_CONFTEST = """\
import pytest


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    if request.param == "dense":
        return lambda query: [("weather-forecast", 10**400), ("tide-tables", 1)]
    return lambda query: [("weather-forecast", 2.0), ("tide-tables", 1.0)]
"""


@pytest.mark.parametrize("record", [False, True], ids=["plain", "recording"])
def test_an_integer_score_too_large_for_a_float_is_a_result_shape_error(
    pytester: pytest.Pytester, record: bool
) -> None:
    """10**400 as a score was accepted, and crashed the recording with the plugin's own
    OverflowError: a result-shape error naming the rank, recorded or not."""
    e2e_write_project(pytester, conftest=HUGE_SCORE_CONFTEST)
    recording = ["--retrieval-record=rec.jsonl"] if record else []
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json", *recording)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=7, failed=7)
    output = result.stdout.str() + result.stderr.str()
    assert "OverflowError" not in output and "INTERNALERROR" not in output
    said = (
        "result at rank 1 has a score too large for a float, not a finite number: tuple "
        "('weather-forecast', 1000"
    )
    assert f"query 'rain-tomorrow' [dense] (golden/catalog.yaml:6): {said}" in e2e_unwrapped(output)
    dense = e2e_load_json(pytester.path / "r.json")["configurations"]["dense"]["queries"]
    for qid, query in dense.items():
        assert query["outcome"] == "error" and query["error"].startswith(said), qid
        assert query["metrics"]["mrr"] == 0.0
    if record:
        lines = (pytester.path / "rec.jsonl").read_text(encoding="utf-8").splitlines()
        assert sum(1 for line in lines if said[:40] in line) == len(E2E_QUERY_IDS)


TEARDOWN_FAILS_CONFTEST = """\
import pytest


@pytest.fixture(scope="session", params=["bm25", "dense"])
def retriever(request):
    yield lambda query: ["weather-forecast"]
    if request.param == "bm25":
        raise RuntimeError("teardown broke")
"""


@pytest.mark.parametrize("items", ["query", "category"])
def test_a_teardown_error_of_the_previous_configuration_says_what_happened(
    pytester: pytest.Pytester, items: str
) -> None:
    """pytest reports a session fixture's teardown error (bm25's code after yield) at the
    setup of the next configuration's first item: that query of dense did not run and
    scores 0, and its record says why: not 'setup failed' as if dense's fixture broke."""
    e2e_write_project(pytester, conftest=TEARDOWN_FAILS_CONFTEST)
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report=r.json", "-p", "no:randomly",
        f"--retrieval-items={items}",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]
    assert all(r["error"] is None for r in queries["bm25"]["queries"].values())
    errors = [r["error"] for r in queries["dense"]["queries"].values() if r["error"]]
    assert errors and set(errors) == {
        "not run: the retriever fixture 'retriever' of the previous configuration 'bm25' "
        "raised while being torn down (RuntimeError: teardown broke), which pytest reports "
        "at the setup of the next item, this one of 'dense': fix the code after the yield "
        "of 'retriever' for 'bm25'"
    }


def test_an_item_whose_body_another_plugin_replaced_is_a_named_error(
    pytester: pytest.Pytester,
) -> None:
    """No record came back from a body that never ran: an error scoring 0 that says why,
    not an error with an empty message."""
    e2e_write_project(pytester)
    pytester.makeconftest(
        E2E_RETRIEVER_CONFTEST
        + "\n\n@pytest.hookimpl(wrapper=True)\ndef pytest_pyfunc_call(pyfuncitem):\n"
        "    pyfuncitem.obj = lambda *args, **kwargs: None  # as --trace's pdb does on quit\n"
        "    return (yield)\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    entry = e2e_load_json(pytester.path / "r.json")["configurations"]["bm25"]["queries"]
    error = entry["rain-tomorrow"]["error"]
    assert entry["rain-tomorrow"]["outcome"] == "error"
    assert error.startswith("the item ended without running its queries")
    assert result.ret == pytest.ExitCode.OK  # pytest saw every item pass


JSONL_MISTAKES = """\
{"id": "rain-tomorrow", "query": "will it rain", "relevant": {"weather-forecast": 3},}
{"id": "umbrella-needed", "query": "do I need an umbrella", "relevent": {"weather-forecast": 3}}
{"id": "convert-euros", "querry": "convert euros to dollars", "relevant": ["fx-rates", ]}
{"id": "fx-exact", "query": "FX Rates API", "relevant": ["fx-rates"], "tags": ["core",]}
"""
YAML_MISTAKES = """\
queries:
  - id: lottery
    query: predict the lottery numbers
    relevent: {}
"""


def test_jsonl_trailing_commas_and_misspelled_keys_name_line_query_and_fix(
    pytester: pytest.Pytester,
) -> None:
    """A trailing comma said only "Expecting property name enclosed in double quotes", with
    no query; a misspelled key was followed by "'relevant' is missing ... write
    '"relevant": {}' for a no-result query", a fix that would make it a no-result query."""
    e2e_write_project(pytester)
    e2e_write(pytester, "golden/mistakes.jsonl", JSONL_MISTAKES)
    e2e_write(pytester, "golden/mistakes.yaml", YAML_MISTAKES)
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = e2e_unwrapped(_clean(result))
    comma = "JSON allows no comma after the last item; remove it"
    assert (
        "golden/mistakes.jsonl:1: query 'rain-tomorrow': JSON syntax error: a trailing comma "
        f"(column 85) before the '}}' that closes the object (column 86): {comma}"
    ) in text
    assert (
        "golden/mistakes.jsonl:2: query 'umbrella-needed': unknown key 'relevent' (did you mean "
        "'relevant'?)"
    ) in text
    assert (
        "golden/mistakes.jsonl:3: query 'convert-euros': JSON syntax error: a trailing comma "
        f"(column 86) before the ']' that closes the list (column 88): {comma}"
    ) in text
    assert "golden/mistakes.jsonl:4: query 'fx-exact': JSON syntax error: a trailing comma" in text
    assert (
        "golden/mistakes.yaml:4: query 'lottery': unknown key 'relevent' (did you mean 'relevant'?)"
    ) in text
    assert "is missing" not in text  # the misspelling's message says the fix
    assert "golden/mistakes.jsonl: 4 problems in this golden file" in text


ODD_IDS_CONFTEST = """
import os
import pytest

ODD = ["x\\x1b[31mRED\\nnext", "L" * 300, "d1"]


@pytest.fixture(scope="session")
def retriever():
    if os.environ.get("ODD_IDS"):
        return lambda query: ODD
    return lambda query: ["d1"]
"""


def test_result_ids_with_escapes_or_hundreds_of_characters_are_shown_escaped_and_cut(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corpus id holding an escape sequence or a line break went to the terminal raw in
    an item's ranking and the gate's 'gained' (recolouring it, breaking the table), and a
    300-character id made every ranking line 300 wide."""
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_golden = golden\n")
    pytester.makeconftest(ODD_IDS_CONFTEST)
    e2e_write(
        pytester,
        "golden/a.yaml",
        "queries:\n  - {id: q1, query: one, relevant: {d1: 3}, forbid: [zz], expect: {mrr: 1.0}}\n",
    )
    assert e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline").ret == 0
    monkeypatch.setenv("ODD_IDS", "1")
    monkeypatch.setenv("COLUMNS", "100")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    assert "\x1b" not in text
    assert "  1. x\\x1b[31mRED\\nnext" in text
    assert "gained x\\x1b[31mRED\\nnext (-)" in e2e_unwrapped(text)
    assert "  2. " + "L" * 59 + "…  -" in text
    ours = [line for line in text.splitlines() if not line.startswith("rootdir:")]
    assert max(len(line) for line in ours) <= 100


def test_judged_ids_missing_from_a_ranking_are_cut_as_its_ids_are() -> None:
    """A failure's ranking cut a 300-character result id to 60, but its 'judged relevant,
    not shown above' line printed the judged ids whole (a URL as an id: wider than any
    terminal)."""
    from pytest_retrieval.golden import GoldenQuery
    from pytest_retrieval.model import QueryRecord
    from pytest_retrieval.scoring import failure_text

    long_id = "https://example.org/" + "p" * 280
    query = GoldenQuery("q1", "one", relevant={long_id: 3, "d2": 1})
    text = failure_text(query, QueryRecord("q1", "bm25", "uncategorized"), ["x"])
    assert (
        "judged relevant, not retrieved: https://example.org/" + "p" * 39 + "… (3), d2 (1)" in text
    )


def test_judged_ids_ranked_below_the_ranking_shown_are_told_apart_from_ids_not_retrieved() -> None:
    """Both were "judged relevant, not shown above": an id at rank 16 read as a miss."""
    from pytest_retrieval.golden import GoldenQuery
    from pytest_retrieval.model import QueryRecord
    from pytest_retrieval.scoring import failure_text

    query = GoldenQuery("q1", "one", relevant={"d16": 3, "d12": 1, "gone": 2, "zero": 0})
    ranking = [f"d{i}" for i in range(1, 21)]
    text = failure_text(query, QueryRecord("q1", "bm25", "uncategorized"), ranking)
    assert "judged relevant, ranked lower: d12 (1) at rank 12, d16 (3) at rank 16\n" in text
    assert "judged relevant, not retrieved: gone (2)" in text
    assert "zero" not in text


DOCUMENTS_CONFTEST = """\
import pytest


class Document:  # a RAG framework's result: its document id in metadata, no .id
    def __init__(self, source):
        self.page_content = "text"
        self.metadata = {"source": source}


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    return lambda query: [Document("weather-forecast")]
"""


@pytest.mark.parametrize("items", ["query", "category"])
def test_the_result_key_hooks_how_to_is_said_once_per_configuration(
    pytester: pytest.Pytester, items: str
) -> None:
    """A retriever returning a framework's Documents had repeated the hook's how-to in
    every item's failure (30 times for 30 queries); the JSON keeps it whole for each."""
    e2e_write_project(pytester, conftest=DOCUMENTS_CONFTEST)
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report=r.json", "-o", f"retrieval_items={items}"
    )
    text = e2e_unwrapped(result.stdout.str())
    how_to = "map each result to its judged id with the pytest_retrieval_result_key hook"
    assert " ".join(text.split()).count(how_to) == len(E2E_CONFIGS)  # once per configuration
    assert "the fix is under query '" in text
    report = e2e_load_json(pytester.path / "r.json")
    for configuration in E2E_CONFIGS:
        for entry in report["configurations"][configuration]["queries"].values():
            assert how_to in entry["error"]


DOC_ID_CONFTEST = """\
import pytest


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    return lambda query: [{"doc_id": "weather-forecast", "score": 1.0}, {"doc_id": query.id}]
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_result_shape_refusal_gives_its_fix_once_per_configuration(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    """Every query of a configuration returning {'doc_id': ...} mappings repeated the
    whole refusal and its fix (15 queries: 264 lines); later queries now say what came
    back and name the query whose failure holds the fix (under -n, once per worker).
    The JSON report keeps it whole for each."""
    e2e_write_project(pytester, conftest=DOC_ID_CONFTEST)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json", *workers)
    text = " ".join(e2e_unwrapped(result.stdout.str()).split())
    fix = "its 'doc_id' looks like the id"
    items = len(E2E_QUERY_IDS) * len(E2E_CONFIGS)
    shown = text.count(fix)
    assert len(E2E_CONFIGS) <= shown <= len(E2E_CONFIGS) * (2 if workers else 1), text
    pointers = re.findall(r"dict \{'doc_id': 'weather-forecast', 'score': 1\.0\}; the fix is "
                          r"under query '[^']+'", text)  # fmt: skip
    assert len(pointers) == items - shown
    report = e2e_load_json(pytester.path / "r.json")
    for configuration in E2E_CONFIGS:
        for entry in report["configurations"][configuration]["queries"].values():
            assert fix in entry["error"]


RAISING_CONFTEST = """\
import pytest


class ServiceError(Exception):
    pass


@pytest.fixture
def retriever():
    def search(query):
        if query.id == "rain-tomorrow":
            raise ServiceError("HTTP 503 from the search service")
        return ["weather-forecast"]

    return search
"""


def test_the_note_under_a_retrievers_exception_names_the_golden_file_and_line(
    pytester: pytest.Pytester,
) -> None:
    """The note under the user's own traceback said `query 'rain-tomorrow' [default]:`
    without the golden file and line that every other failure of an item names (a
    timeout, a shape error, a stale recording), so the query could not be found from it."""
    e2e_write_project(pytester, conftest=RAISING_CONFTEST)
    result = e2e_run(pytester, "--retrieval-eval", "-k", "rain-tomorrow")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    line = _line_with(result.stdout.str(), "(pytest-retrieval)", "ServiceError")
    assert "(pytest-retrieval) query 'rain-tomorrow' [default] (golden/catalog.yaml:" in line
    assert "the retriever raised ServiceError: HTTP 503 from the search service" in line
