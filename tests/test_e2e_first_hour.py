"""What a new team hits in its first hour: each case reproduces a bug a user met.

The project is the shared e2e project (tests/conftest.py): two golden files, four
categories, configurations bm25 and dense, 7 queries each.
"""

from __future__ import annotations

import re
import shlex
import sys

import pytest

from conftest import (
    E2E_INI,
    E2E_RETRIEVER_CONFTEST,
    e2e_load_json,
    e2e_run,
    e2e_unwrapped,
    e2e_write,
    e2e_write_project,
)

UPDATE = ("--retrieval-eval", "--retrieval-update-baseline")


def plain_test(pytester: pytest.Pytester) -> None:
    e2e_write(pytester, "tests/test_x.py", "def test_x():\n    assert True\n")


# ----------------------------------------------------------- 1. paths with no golden file


def test_the_gate_skips_when_the_paths_given_hold_no_golden_file(
    pytester: pytest.Pytester,
) -> None:
    """--retrieval-eval in addopts, a committed baseline, and an IDE runs one test."""
    e2e_write_project(pytester, ini=E2E_INI + "addopts = --retrieval-eval\n")
    assert e2e_run(pytester, "--retrieval-update-baseline").ret == 0
    plain_test(pytester)
    result = e2e_run(pytester, "tests/test_x.py", "--junitxml=j.xml")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)  # the test, and the gate's testcase
    text = " ".join(result.stdout.str().split())
    assert "retrieval_gate_configurations" not in text
    assert "retrieval gate: SKIPPED" in text
    assert "no golden query was collected in this run (the paths given hold no golden file)" in (
        text
    )
    junit = (pytester.path / "j.xml").read_text(encoding="utf-8")
    assert 'name="retrieval-gate"' in junit and "<skipped" in junit


def test_a_misspelled_gated_configuration_still_stops_the_run_when_golden_files_ran(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, ini=E2E_INI + "retrieval_gate_configurations = bm52\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "retrieval_gate_configurations names 'bm52', which this run does not have" in (
        " ".join(result.stderr.str().split())
    )


# ----------------------------------------------------------- 2. path options, space form


@pytest.mark.parametrize("option", ["--retrieval-report", "--retrieval-baseline"])
def test_a_path_option_outside_the_rootdir_works_on_every_run_with_equals(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, option: str
) -> None:
    e2e_write_project(pytester)
    outside = tmp_path_factory.mktemp("outside") / ("out.json" if "report" in option else "b.json")
    extra = ("--retrieval-update-baseline",) if "baseline" in option else ()
    for _ in range(2):
        result = e2e_run(pytester, "--retrieval-eval", f"{option}={outside}", *extra)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
        assert outside.exists()


@pytest.mark.parametrize("option", ["--retrieval-report", "--retrieval-baseline"])
def test_a_path_option_outside_the_rootdir_in_the_space_form_says_what_happened(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, option: str
) -> None:
    """pytest reads an existing path given after a plugin's option as a test path when it
    chooses the rootdir and the ini file, before any plugin loads: the second run would
    lose the project's ini file. The plugin names that, and the form that works."""
    e2e_write_project(pytester)
    outside = tmp_path_factory.mktemp("outside") / ("out.json" if "report" in option else "b.json")
    extra = ("--retrieval-update-baseline",) if "baseline" in option else ()
    first = e2e_run(pytester, "--retrieval-eval", option, str(outside), *extra)
    assert first.ret == pytest.ExitCode.OK, first.stdout.str() + first.stderr.str()
    assert outside.exists()
    second = e2e_run(pytester, "--retrieval-eval", option, str(outside), *extra)
    assert second.ret == pytest.ExitCode.USAGE_ERROR
    error = " ".join(second.stderr.str().split())
    assert f"{option} {outside}: pytest took the existing file {outside} for a test path" in error
    assert f"write the option with '=': {option}={outside}" in error
    assert "no golden files" not in error


def test_a_path_option_inside_the_project_works_in_the_space_form(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    for _ in range(2):
        result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "reports/out.json")
        assert result.ret == pytest.ExitCode.OK, result.stderr.str()


# ----------------------------------------------------------- 6. integer ids

INTEGER_CONFTEST = """\
import numpy as np
import pytest


@pytest.fixture(params=["plain", "numpy"])
def retriever(request):
    def search(query):
        if request.param == "plain":
            return [42, 7]
        return [np.int64(42), np.int32(7)]

    return search
"""

INTEGER_GOLDEN = """\
queries:
  - id: numbers
    query: which ids are numbers
    relevant: {42: 3, 7: 1}
    expect: {mrr: 1.0}
"""


def test_bare_integer_and_numpy_integer_ids_are_read_as_text(pytester: pytest.Pytester) -> None:
    pytest.importorskip("numpy")
    e2e_write_project(pytester, conftest=INTEGER_CONFTEST)
    for name in ("catalog.yaml", "holdout.yml"):
        (pytester.path / "golden" / name).unlink()
    e2e_write(pytester, "golden/numbers.yaml", INTEGER_GOLDEN)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    report = e2e_load_json(pytester.path / "r.json")
    for configuration in ("plain", "numpy"):
        entry = report["configurations"][configuration]["queries"]["numbers"]
        assert entry["retrieved"] == ["42", "7"]
        assert entry["metrics"]["ndcg@10"] == 1.0


# ----------------------------------------------------------- 7. no fixture


def test_a_missing_retriever_fixture_is_one_clear_error_before_anything_runs(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest="import pytest\n")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert error.count("ERROR:") == 1
    assert "no fixture named 'retriever'" in error
    assert "retrieval_fixture" in error
    assert "@pytest.fixture" in error and "def retriever(" in error
    text = result.stdout.str()
    assert "0.000" not in text
    assert "fixture 'retriever' not found" not in text
    assert not (pytester.path / "r.json").exists()


def test_a_misnamed_retriever_fixture_names_the_ini_key(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester, ini=E2E_INI + "retrieval_fixture = search_engine\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = " ".join(result.stderr.str().split())
    assert "no fixture named 'search_engine'" in error
    assert "(retrieval_fixture = search_engine)" in error
    assert re.search(r"fixtures? (that )?exist.*retriever", error), error


def test_a_retriever_fixture_with_empty_params_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    """params=[] (a list of backends that came out empty) made pytest skip every item
    under a configuration named NOTSET: exit 0 and a report of NOTSET with n = 0, or a
    gate failing on "this run's configuration (NOTSET)"."""
    conftest = (
        "import pytest\n\n\n@pytest.fixture(scope='session', params=[])\n"
        "def retriever(request):\n    return lambda q: []\n"
    )
    e2e_write_project(pytester, conftest=conftest)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = " ".join(result.stderr.str().split())
    assert (
        "the fixture 'retriever' (conftest.py:4) has an empty params list (params=[]), so "
        "pytest makes no configuration of it: every golden item would be skipped and nothing "
        "evaluated. Give it at least one parameter (params=['bm25']), or leave params out for "
        "a single configuration, 'default'"
    ) in error
    assert "NOTSET" not in result.stdout.str()
    assert not (pytester.path / "r.json").exists()


def test_plain_pytest_that_collects_nothing_beside_golden_files_says_to_add_the_flag(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint fits the terminal (it was one line of 105 columns)."""
    monkeypatch.setenv("COLUMNS", "80")
    e2e_write_project(pytester)
    result = e2e_run(pytester)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    hint = (
        "golden/ holds golden queries, which pytest collects only with --retrieval-eval: run "
        "`pytest --retrieval-eval` to evaluate them"
    )
    assert hint in " ".join(result.stdout.str().split())
    said = [line for line in result.stdout.lines if "retrieval-eval" in line]
    assert said and all(len(line) <= 80 for line in said), said
    (pytester.path / "test_plain.py").write_text("def test_x():\n    pass\n")
    ran = e2e_run(pytester)  # a run of tests says nothing of the golden files
    assert ran.ret == pytest.ExitCode.OK and hint not in " ".join(ran.stdout.str().split())
    # nor one that deselected its tests, or named a path (not found: under xdist that too
    # ends with nothing collected)
    for args in (["-k", "nothing"], ["tests/nowhere.py", "-n", "2"], ["test_plain.py::test_y"]):
        other = e2e_run(pytester, *args)
        said = " ".join(other.stdout.str().split())
        assert other.ret != pytest.ExitCode.OK and hint not in said, args


@pytest.mark.parametrize(
    "given", ["golden/catalog.yaml", "golden/catalog.yaml::rain-tomorrow[bm25]"]
)
def test_a_golden_file_or_node_id_named_without_the_flag_says_to_add_it(
    pytester: pytest.Pytester, given: str
) -> None:
    """pytest said only 'not found: ... (no match in any of [<Dir golden>])'."""
    e2e_write_project(pytester)
    result = e2e_run(pytester, given)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = " ".join(result.stderr.str().split())
    assert (
        f"{given} names golden queries, which pytest collects only with --retrieval-eval" in error
    )
    assert f"pytest --retrieval-eval {shlex.quote(given)}" in error
    assert "not found" not in error
    (pytester.path / "test_plain.py").write_text("def test_x():\n    pass\n")
    assert e2e_run(pytester, "test_plain.py").ret == pytest.ExitCode.OK  # a test file: as ever


@pytest.mark.parametrize("scope", ["", 'scope="session", '])
def test_a_slow_retriever_fixture_of_pytests_default_scope_gets_a_warning(
    pytester: pytest.Pytester, scope: str
) -> None:
    """Built again for every item (a model loaded per query), and nothing said."""
    slow = E2E_RETRIEVER_CONFTEST.replace(
        "@pytest.fixture(params=", f"import time\n\n\n@pytest.fixture({scope}params="
    ).replace(
        "    table = RANKINGS[request.param]\n",
        "    time.sleep(0.1)\n    table = RANKINGS[request.param]\n",
    )
    assert "time.sleep(0.1)" in slow
    e2e_write_project(pytester, conftest=slow)
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.OK
    said = " ".join(result.stdout.str().split())
    warned = (
        "conftest.py:21: RetrievalSettingsWarning: the retriever fixture 'retriever' is "
        "function-scoped (pytest's default), so pytest builds it again for every item"
    )
    assert (warned in said) == (not scope), said
    if scope:
        return
    assert '@pytest.fixture(scope="session", params=[...]), to build it once' in said
    assert said.count("is function-scoped (pytest's default)") == 1
    # advice, issued at the end: -W error fails the run, and no query's item
    strict = e2e_run(pytester, "--retrieval-eval", "-W", "error::pytest_retrieval.RetrievalWarning")
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.assert_outcomes(passed=14)


def test_a_retriever_fixture_in_a_conftest_the_golden_files_cannot_see_says_where_it_is(
    pytester: pytest.Pytester,
) -> None:
    # tests/conftest.py defines it: golden/ is not under tests/, so pytest does not use it
    e2e_write_project(pytester, conftest="import pytest\n")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "conftest.py").write_text(
        "import pytest\n@pytest.fixture\ndef retriever():\n    return lambda q: []\n"
    )
    (pytester.path / "tests" / "test_plain.py").write_text("def test_x():\n    pass\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = " ".join(result.stderr.str().split())
    assert (
        "the fixture 'retriever' is defined in tests/conftest.py, which golden/catalog.yaml "
        "cannot use: a conftest.py applies to the files in its own folder and below"
    ) in error, error
    assert "no fixture named" not in error


# ----------------------------------------------------------- 3. the user's traceback

RAISING_CONFTEST = """\
import pytest

TABLE = {"rain-tomorrow": ["weather-forecast"]}


def lookup(query):
    return TABLE[query.text.split()[-1]]  # the user's bug: a KeyError


@pytest.fixture(params=["bm25"])
def retriever(request):
    def search(query):
        return lookup(query)

    return search
"""


ASYNC_RAISING_CONFTEST = RAISING_CONFTEST.replace(
    "    def search(query):\n        return lookup(query)",
    "    async def search(query):\n        await asyncio.sleep(0)\n        return lookup(query)",
).replace("import pytest\n", "import asyncio\n\nimport pytest\n", 1)


def _raising_project(pytester: pytest.Pytester, conftest: str = RAISING_CONFTEST) -> None:
    e2e_write_project(pytester, conftest=conftest)
    (pytester.path / "golden" / "holdout.yml").unlink()


@pytest.mark.parametrize("style", ["long", "short", "auto"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_retriever_exception_shows_the_users_traceback(
    pytester: pytest.Pytester, style: str, kind: str
) -> None:
    _raising_project(pytester, ASYNC_RAISING_CONFTEST if kind == "async" else RAISING_CONFTEST)
    result = e2e_run(pytester, "--retrieval-eval", f"--tb={style}", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    assert "return TABLE[query.text.split()[-1]]" in text  # the line that raised
    assert "KeyError: 'tomorrow'" in text
    assert "pytest_retrieval" not in text  # none of the plugin's frames
    assert "asyncio" not in text.replace("import asyncio", "").replace("asyncio.sleep", "")
    assert "conftest.py" in text
    report = e2e_load_json(pytester.path / "r.json")
    entry = report["configurations"]["bm25"]["queries"]["rain-tomorrow"]
    assert entry["outcome"] == "error"
    assert entry["error"] == "the retriever raised KeyError: 'tomorrow'"
    assert set(entry["metrics"].values()) == {0.0}


@pytest.mark.parametrize("items", ["category", "shard:3"])
def test_a_coarse_item_shows_the_first_users_traceback_beside_its_summary(
    pytester: pytest.Pytester, items: str
) -> None:
    _raising_project(pytester)
    result = e2e_run(pytester, "--retrieval-eval", f"--retrieval-items={items}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    assert "retrieval traceback" in text  # the section under the item's failure
    assert "return TABLE[query.text.split()[-1]]" in text  # the line that raised
    assert "KeyError" in text
    section = text.split("retrieval traceback", 1)[1]
    assert "pytest_retrieval" not in section.split("short test summary")[0]


def test_tb_line_and_no_still_name_the_error(pytester: pytest.Pytester) -> None:
    _raising_project(pytester)
    line = e2e_run(pytester, "--retrieval-eval", "--tb=line")
    assert "KeyError: 'tomorrow'" in line.stdout.str()
    quiet = e2e_run(pytester, "--retrieval-eval", "--tb=no", "-rf")
    assert "FAILED golden/catalog.yaml::rain-tomorrow[bm25] - KeyError: 'tomorrow'" in (
        quiet.stdout.str()
    )


def test_pdb_lands_in_the_users_frame(pytester: pytest.Pytester) -> None:
    _raising_project(pytester)
    result = pytester.run(
        sys.executable, "-m", "pytest", "--retrieval-eval", "-p", "no:cacheprovider",
        "--pdb", "-x", stdin=b"p query.text\nq\n", timeout=60,
    )  # fmt: skip
    text = result.stdout.str()
    assert "-> return TABLE[query.text.split()[-1]]" in text  # pdb's current line
    assert "'is it going to rain tomorrow'" in text  # a local of the user's frame


# ----------------------------------------------------------- 8. smaller ones


def test_progress_never_goes_past_100_percent(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    assert e2e_run(pytester, *UPDATE).ret == 0
    result = e2e_run(pytester, "--retrieval-eval")
    percents = [int(p) for p in re.findall(r"\[\s*(\d+)%\]", result.stdout.str())]
    assert percents and max(percents) == 100, percents
    assert percents[-1] == 100
    result.assert_outcomes(passed=15)  # 14 items and the gate


def test_xfail_without_expect_or_forbid_is_a_collection_error(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    e2e_write(
        pytester,
        "golden/flaky.yaml",
        """\
        queries:
          - id: always-xpasses
            query: a query with nothing that could fail
            relevant: {weather-forecast: 3}
            xfail: ranks badly for now
        """,
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = " ".join(result.stdout.str().split())
    assert (
        "golden/flaky.yaml:5: query 'always-xpasses': 'xfail' expects this query's 'expect' "
        "or 'forbid' to fail, but it has neither, so it can never fail"
    ) in text


POSITIONAL_CONFTEST = """\
import pytest


class Engine:
    def __init__(self, name):
        self.name = name


@pytest.fixture(params=[Engine("bm25"), Engine("dense")])
def retriever(request):
    return lambda query: ["weather-forecast"]
"""


def test_unnamed_params_get_a_warning_that_shows_how_to_name_them(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest=POSITIONAL_CONFTEST)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.OK
    assert list(e2e_load_json(pytester.path / "r.json")["configurations"]) == [
        "retriever0",
        "retriever1",
    ]
    text = " ".join(result.stdout.str().split())
    # located where the params are written (the decorator's line), not at a golden file
    assert (
        "conftest.py:9: RetrievalSettingsWarning: configurations retriever0, retriever1 "
        "are named by"
    ) in text
    assert "ids=['bm25', 'dense']" in text
    assert '@pytest.fixture(params=[Engine("bm25"), Engine("dense")])' in text


# ----------------------------------------------------------- 11. warnings the pytest way


def test_a_categorys_advice_points_at_the_file_holding_most_of_its_queries(
    pytester: pytest.Pytester,
) -> None:
    """An imported file's one query with the smallest id ("001") had drawn every warning
    about its category, though the category's queries were elsewhere."""
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_golden = golden\n")
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef retriever():\n    return lambda q: ['d']\n"
    )
    golden = pytester.path / "golden"
    golden.mkdir()
    one = "queries:\n  - {id: '001', query: imported, category: exact, relevant: {d: 1}}\n"
    (golden / "imported.yaml").write_text(one, encoding="utf-8")
    rows = "".join(
        f"  - {{id: q{i}, query: text {i}, category: exact, relevant: {{d: 1}}}}\n"
        for i in range(4)
    )
    (golden / "main.yaml").write_text("# mine\nqueries:\n" + rows, encoding="utf-8")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.OK
    text = result.stdout.str()
    assert "golden/main.yaml:3: RetrievalNoiseWarning: exact: n=5" in text
    assert "imported.yaml:2: RetrievalNoiseWarning" not in text


def test_advice_is_a_pytest_warning_that_w_error_turns_into_a_failure(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    plain = e2e_run(pytester, "--retrieval-eval")
    assert plain.ret == pytest.ExitCode.OK
    text = plain.stdout.str()
    said = " ".join(text.split())
    assert "warnings summary" in text
    assert "RetrievalNoiseWarning: 4 categories have fewer than retrieval_min_queries" in said
    count = text.count("RetrievalNoiseWarning:")
    warned = count + text.count("RetrievalSaturationWarning:")
    assert f"{warned} retrieval warning{'s' if warned > 1 else ''} in" in text
    lines = plain.stdout.lines
    said_at = next(i for i, line in enumerate(lines) if " retrieval warning" in line)
    assert lines[said_at - 1] == ""  # apart from the last table above it
    for off in (["--disable-warnings"], ["-p", "no:warnings"]):
        hidden = e2e_run(pytester, "--retrieval-eval", *off).stdout.str()
        said = " ".join(hidden.split())
        # -p no:warnings: the advice was issued all the same, and pytest's summary showed it
        assert not re.search(r"=+ warnings summary =+", hidden), off
        assert re.search(r"\d retrieval warnings? not shown: the warnings summary is off", said)

    escalated = e2e_run(
        pytester, "--retrieval-eval", "-W", "error::pytest_retrieval.RetrievalWarning"
    )
    assert escalated.ret == pytest.ExitCode.TESTS_FAILED
    out = " ".join(escalated.stdout.str().split())
    assert "advice turned into an error by -W or filterwarnings: 4 categories have" in out

    quiet = e2e_run(
        pytester, "--retrieval-eval", "-W", "ignore::pytest_retrieval.RetrievalNoiseWarning"
    )
    assert quiet.ret == pytest.ExitCode.OK
    assert "RetrievalNoiseWarning" not in quiet.stdout.str()
    assert "RetrievalSaturationWarning" in quiet.stdout.str()


def test_filterwarnings_in_the_ini_silences_the_advice(pytester: pytest.Pytester) -> None:
    e2e_write_project(
        pytester, ini=E2E_INI + "filterwarnings = ignore::pytest_retrieval.RetrievalWarning\n"
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.OK
    text = result.stdout.str()
    assert "RetrievalNoiseWarning" not in text and "retrieval warning" not in text


# ----------------------------------------------------------- 9-10. fits the terminal

WIDE_CONFTEST = """\
import pytest

NAMES = ["bm25-baseline", "dense-minilm-l6", "hybrid-rrf-k60", "rerank-cross-encoder", "sparse"]


@pytest.fixture(params=NAMES)
def retriever(request):
    shift = NAMES.index(request.param)

    def search(query):
        ids = ["weather-forecast", "fx-rates", "stock-quotes", "weather-forecast-stuffed"]
        return ids[shift % 4 :] + ids[: shift % 4]

    return search
"""


def _wide_project(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester, conftest=WIDE_CONFTEST)
    e2e_write(
        pytester,
        "golden/long.yaml",
        """\
        defaults:
          category: a-category-name-that-is-much-longer-than-any-table-column
        queries:
          - id: a-query-whose-id-is-long-enough-to-wrap-the-explanation-line
            query: weather forecast
            relevant: {weather-forecast: 3, weather-forecast-stuffed: 1, fx-rates: 0}
        """,
    )


def _section(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    start = max(i for i, line in enumerate(lines) if "retrieval evaluation" in line)
    return lines[start:-1]


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("verbosity", ["", "-v", "-q"])
def test_every_line_fits_the_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, columns: int, verbosity: str
) -> None:
    _wide_project(pytester)
    monkeypatch.setenv("COLUMNS", str(columns))
    e2e_run(pytester, *UPDATE)  # some items fail their expect: the baseline is written anyway
    assert (pytester.path / "golden" / "baseline.json").exists()
    # every configuration ranks differently now: the gate fails and explains itself
    e2e_write(pytester, "conftest.py", WIDE_CONFTEST.replace("shift % 4 :", "(shift + 1) % 4 :"))
    result = e2e_run(pytester, "--retrieval-eval", *([verbosity] if verbosity else []))
    section = _section(result)
    assert "retrieval gate: FAILED" in "\n".join(section), "\n".join(section)
    too_long = [line for line in section if len(line) > columns]
    assert too_long == [], "\n".join(too_long)
    warnings = result.stdout.str().split("warnings summary", 1)[1].split("retrieval evaluation")[0]
    ours = [line for line in warnings.splitlines() if "Retrieval" in line or line.startswith("  ")]
    assert [line for line in ours if len(line) > columns and "- id:" not in line] == []
    if verbosity == "-q":  # the all rows of 5 configurations, the warnings line, the verdict
        assert len(section) <= 18, "\n".join(section)
    if columns == 200 and verbosity == "":
        assert max(len(line) for line in section) > 80  # the width is used, not a fixed 80


LONG_NAMES_CONFTEST = WIDE_CONFTEST.replace(
    '["bm25-baseline", "dense-minilm-l6", "hybrid-rrf-k60", "rerank-cross-encoder", "sparse"]',
    '["bm25-with-a-very-long-configuration-name-for-testing", '
    '"dense-embedding-retriever-multilingual-e5-large-v2"]',
)


@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("verbosity", ["", "-v"])
def test_long_configuration_and_category_names_are_cut_to_fit_and_kept_whole_in_files(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, columns: int, verbosity: str
) -> None:
    """A configuration named over 50 characters made every table wider than the terminal:
    the gate's rows ran to 98 columns, each per-category table's header to 87. Names are
    cut with "…" in the terminal, whole in the reports."""
    _wide_project(pytester)
    e2e_write(pytester, "conftest.py", LONG_NAMES_CONFTEST)
    monkeypatch.setenv("COLUMNS", str(columns))
    e2e_run(pytester, *UPDATE)
    e2e_write(
        pytester, "conftest.py", LONG_NAMES_CONFTEST.replace("shift % 4 :", "(shift + 1) % 4 :")
    )
    reports = ("--retrieval-report=r.md", "--retrieval-report=r.json")
    result = e2e_run(pytester, "--retrieval-eval", *reports, *([verbosity] if verbosity else []))
    section = _section(result)
    text = "\n".join(section)
    assert "retrieval gate: FAILED" in text and "bm25-with-a-very-long-c" in text, text
    assert "…" in text  # the names were cut, not dropped
    ours = text.split("short test summary info")[0].splitlines()  # then pytest's lines
    written = "retrieval report written: "  # a path, which is never cut
    too_long = [line for line in ours if len(line) > columns and not line.startswith(written)]
    assert too_long == [], "\n".join(too_long)
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    for name in (
        "bm25-with-a-very-long-configuration-name-for-testing",
        "dense-embedding-retriever-multilingual-e5-large-v2",
        "a-category-name-that-is-much-longer-than-any-table-column",
    ):
        assert f"| {name} " in markdown or f"| {name}|" in markdown, name
    assert "…" not in markdown  # the gate's table too: whole names, in two halves if need be
    data = e2e_load_json(pytester.path / "r.json")
    assert "dense-embedding-retriever-multilingual-e5-large-v2" in data["configurations"]


FAILING_CONFTEST = """\
import pytest


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    def search(query):
        if query.id == "rain-tomorrow":
            return [("weather-forecast", float("nan"))]
        if query.id == "convert-euros":
            raise ValueError("the search service answered 503 for " + query.text)
        return ["teleport-booking", "weather-forecast"]

    return search
"""


@pytest.mark.parametrize("items", ["query", "category"])
def test_item_failures_fit_the_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, items: str
) -> None:
    """The plugin's own failure text (a result shape error, the note under a user's
    exception, a coarse item's list) is wrapped to the terminal; the user's source lines
    in a traceback are shown as written."""
    e2e_write_project(pytester, conftest=FAILING_CONFTEST)
    monkeypatch.setenv("COLUMNS", "80")
    result = e2e_run(
        pytester, "--retrieval-eval", "-p", "no:randomly", f"--retrieval-items={items}"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    failures = text.split("= FAILURES =", 1)[1].split("short test summary", 1)[0]
    users = re.compile(r'^(query = |\s+File "|.*raise ValueError\(|E\s+ValueError: )')
    ours = [line for line in failures.splitlines() if not users.match(line)]
    assert [line for line in ours if len(line) > 80] == []
    whole = e2e_unwrapped(failures)
    assert (
        "'rain-tomorrow'" in whole
        and "a ranking sorted by them is arbitrary: return finite scores, or ids alone" in whole
    )
    assert "the retriever raised ValueError: the search service answered 503 for convert" in whole


# ----------------------------------------------------------- 12. see one query


def test_retrieval_show_prints_a_passing_query_for_each_configuration(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-show", "umbrella-*", "--retrieval-show=x"
    )
    assert result.ret == pytest.ExitCode.OK
    text = result.stdout.str()
    for configuration in ("bm25", "dense"):
        assert (
            f"query 'umbrella-needed' [{configuration}] (golden/catalog.yaml:12): 'do I need an "
            "umbrella this afternoon'"
        ) in e2e_unwrapped(text)
    assert re.search(r"passed: ndcg@10 \d\.\d{3}, mrr \d\.\d{3}, recall@20 \d\.\d{3}", text)
    assert re.search(r"1\. tide-tables\s+0", text)  # bm25's first result, judged 0
    assert re.search(r"1\. weather-forecast\s+2", text)  # dense's, judged 2
    assert "query 'rain-tomorrow'" not in text  # only the queries asked for
    said = " ".join(text.split())
    assert "--retrieval-show x: no query of this run has that id" in said  # a typo is named
    assert "--retrieval-show umbrella-*" not in said
    typo = e2e_run(pytester, "--retrieval-eval", "--retrieval-show=rain-tomorow")
    said = " ".join(typo.stdout.str().split())
    assert "--retrieval-show rain-tomorow: no query of this run has that id; did you mean " in said
    assert "'rain-tomorrow'" in said


def test_retrieval_show_of_the_start_of_ids_says_the_glob_for_them() -> None:
    """`--retrieval-show q0` matched nothing and said nothing more (no id is close to
    so short a pattern): it now gives the glob for the ids it is the start of."""
    from pytest_retrieval.plugin.session import unmatched_show

    ids = {"q00-rain", "q01-snow", "q10-wind"}
    assert unmatched_show(["q0"], ids) == [
        "--retrieval-show q0: no query of this run has that id; 2 ids start with it: "
        "--retrieval-show 'q0*'"
    ]
    assert unmatched_show(["q00-rian"], ids) == [
        "--retrieval-show q00-rian: no query of this run has that id; did you mean 'q00-rain', "
        "'q10-wind'?"
    ]


def test_retrieval_show_fits_the_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Cranfield-like query (a long text, 20 relevant documents, most far down) printed
    its metric line, its title and the "judged relevant, not retrieved" list as single
    lines of 100 to 300 characters; they are wrapped as an item's failure is."""
    monkeypatch.setenv("COLUMNS", "80")
    judged = ", ".join(f'"doc{i:04d}": 3' for i in range(20))
    e2e_write(
        pytester,
        "golden/long.yaml",
        f"""\
        - id: q23
          query: what progress has been made in research on unsteady aerodynamics of wings
          relevant: {{{judged}}}
        """,
    )
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def retriever():
            return lambda query: [f"other{i}" for i in range(12)] + ["doc0007"]
        """
    )
    pytester.makeini("[pytest]\nretrieval_metrics = ndcg@10 mrr recall@100 map precision@10\n")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-show=q23", "-p", "no:warnings")
    text = result.stdout.str()
    assert "judged relevant, ranked lower: doc0007 (3) at rank 13" in text
    assert "judged relevant, not retrieved: doc0000 (3)," in text
    shown = text.split("query 'q23' [default]", 1)[1].split("retrieval gate", 1)[0]
    assert "doc0019 (3)" in " ".join(shown.split())
    assert all(len(line) <= 80 for line in shown.splitlines()), shown


def test_why_an_item_failed_is_in_every_report(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    text = (pytester.path / "golden" / "catalog.yaml").read_text()
    (pytester.path / "golden" / "catalog.yaml").write_text(text.replace("{mrr: 0.5}", "{mrr: 1.0}"))
    result = e2e_run(
        pytester,
        "--retrieval-eval",
        "--retrieval-report=r.json",
        "--retrieval-report=r.md",
        "--retrieval-report=r.html",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    entry = e2e_load_json(pytester.path / "r.json")["configurations"]["bm25"]["queries"]
    assert entry["rain-tomorrow"]["outcome"] == "failed"
    assert entry["rain-tomorrow"]["violations"] == ["expected mrr >= 1, got 0.5"]
    assert "expected mrr >= 1, got 0.5" in result.stdout.str()
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    assert "| bm25 | rain-tomorrow | failed | expected mrr >= 1, got 0.5 |" in markdown
    assert "expected mrr &gt;= 1, got 0.5" in (pytester.path / "r.html").read_text()


def test_a_category_warning_points_to_its_first_query_serial_and_under_xdist(
    pytester: pytest.Pytester,
) -> None:
    """Under xdist the controller collects no golden file: the lines come from its workers."""
    e2e_write_project(pytester)
    places = []
    for extra in ([], ["-n", "2"]):  # -v: a warning per category
        text = e2e_run(pytester, "--retrieval-eval", "-v", *extra).stdout.str()
        found = re.search(r"(golden/\S+\.yaml):(\d+): RetrievalNoiseWarning: paraphrase", text)
        assert found is not None, text
        places.append((found.group(1), int(found.group(2))))
    assert places[0] == places[1]
    path, line = places[0]
    first = next(
        number
        for number, text in enumerate((pytester.path / path).read_text().splitlines(), start=1)
        if "- id:" in text
    )
    assert line == first > 1


def test_a_misspelled_ini_key_is_a_warning_at_its_line_naming_the_key_meant(
    pytester: pytest.Pytester,
) -> None:
    """The setting meant keeps its default unnoticed otherwise (pytest says only 'unknown',
    at a line of its own source: that warning is not shown beside this one)."""
    e2e_write_project(pytester, ini=E2E_INI + "retrieval_tolerence = 0.0\nretrieval_x = 1\n")
    for extra in ([], ["-n", "2"]):
        text = " ".join(e2e_run(pytester, "--retrieval-eval", *extra).stdout.str().split())
        assert (
            "pytest.ini:5: RetrievalSettingsWarning: unknown ini key retrieval_tolerence (did "
            "you mean retrieval_tolerance?): ignored; the setting it meant keeps its default"
        ) in text
        assert "Unknown config option: retrieval_tolerence" not in text, extra
        assert "PytestConfigWarning" not in text, extra
    strict = e2e_run(pytester, "--retrieval-eval", "--strict-config")
    assert "Unknown config option: retrieval_tolerence" in strict.stderr.str()
    strict = e2e_run(
        pytester, "--retrieval-eval", "-W", "error::pytest_retrieval.RetrievalSettingsWarning"
    )
    assert strict.ret != pytest.ExitCode.OK


def test_a_misspelled_key_given_with_o_is_a_warning_naming_the_key_meant(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    result = e2e_run(pytester, "--retrieval-eval", "-o", "retrieval_tolerence=0.5")
    text = " ".join(result.stdout.str().split())
    assert (
        "RetrievalSettingsWarning: -o unknown ini key retrieval_tolerence (did you mean "
        "retrieval_tolerance?): ignored; the setting it meant keeps its default"
    ) in text
    assert "Unknown config option: retrieval_tolerence" not in text


@pytest.mark.parametrize(
    ("name", "text", "key", "line"),
    [
        (
            "pytest.ini",
            "[pytest]\nretrieval_golden = golden\nretrieval_gate_mode = absolute\n"
            "retrieval_gate = on\n",
            "retrieval_gate",
            4,  # not line 3, whose key starts with it
        ),
        (
            "setup.cfg",
            "[flake8]\nretrieval_tolerence = 1\n\n[tool:pytest]\nretrieval_golden = golden\n"
            "retrieval_tolerence: 0.0\n",
            "retrieval_tolerence",
            6,  # not line 2, in another tool's section
        ),
        (
            "pyproject.toml",
            '[tool.other]\n"retrieval_tolerence" = 1\n\n[tool.pytest.ini_options]\n'
            'retrieval_golden = "golden"\n"retrieval_tolerence" = "0.0"\n',
            "retrieval_tolerence",
            6,  # a quoted TOML key, in pytest's table
        ),
    ],
    ids=["longer-key-first", "other-tools-section", "quoted-toml-key"],
)
def test_an_unknown_ini_key_is_warned_at_the_line_that_sets_it(
    pytester: pytest.Pytester, name: str, text: str, key: str, line: int
) -> None:
    e2e_write_project(pytester)
    (pytester.path / "pytest.ini").unlink()
    (pytester.path / name).write_text(text, encoding="utf-8")
    output = " ".join(e2e_run(pytester, "--retrieval-eval").stdout.str().split())
    assert f"{name}:{line}: RetrievalSettingsWarning: unknown ini key {key} " in output
