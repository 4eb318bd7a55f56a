"""End to end: what is collected, the item ids, selection, skip and xfail (CONTRACT §1, §2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_project import cli

from conftest import (
    E2E_CATALOG_YAML,
    E2E_CONFIGS,
    E2E_FILES,
    E2E_INI,
    E2E_QUERY_IDS,
    e2e_collected_ids,
    e2e_junit_properties,
    e2e_load_json,
    e2e_metric,
    e2e_run,
    e2e_unwrapped,
    e2e_write,
    e2e_write_project,
)

ALL_IDS = [f"{E2E_FILES[q]}::{q}[{c}]" for q in E2E_QUERY_IDS for c in E2E_CONFIGS]


def _ids(*pairs: str) -> list[str]:
    """``"rain-tomorrow[bm25]"`` -> ``"golden/catalog.yaml::rain-tomorrow[bm25]"``."""
    return [f"{E2E_FILES[p.split('[')[0]]}::{p}" for p in pairs]


# --------------------------------------------------------------------------- off by default


def test_without_the_flag_nothing_is_collected_and_the_run_exits_5(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(pytester)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["collected 0 items"])
    assert "rain-tomorrow" not in result.stdout.str()
    assert "retrieval evaluation" not in result.stdout.str()


def test_without_the_flag_a_golden_file_on_the_command_line_is_not_collected(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(pytester, "golden/catalog.yaml")
    # a usage error saying to add the flag (pytest alone says "not found")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "only with --retrieval-eval" in " ".join(result.stderr.str().split())
    assert "rain-tomorrow" not in result.stdout.str()
    folder = e2e_run(pytester, "golden", "--collect-only", "-q")
    assert folder.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert e2e_collected_ids(folder) == []


PER_TEST_HOOKS = """
import pytest

HOOKS = ("pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown",
         "pytest_runtest_makereport", "pytest_runtest_logreport")


def ours(impl):
    module = getattr(impl.plugin, "__name__", None) or type(impl.plugin).__module__
    return module.startswith("pytest_retrieval")


def test_hooks(pytestconfig):
    found = [name for name in HOOKS
             for impl in getattr(pytestconfig.pluginmanager.hook, name).get_hookimpls()
             if ours(impl)]
    print("RETRIEVAL HOOKS:", sorted(set(found)))
"""


@pytest.mark.parametrize("flag", [False, True])
def test_without_the_flag_no_hook_of_the_plugin_runs_around_a_test(
    pytester: pytest.Pytester, e2e_project: Path, flag: bool
) -> None:
    """A plain suite pays nothing per test for the plugin being installed."""
    e2e_write(pytester, "test_plain.py", PER_TEST_HOOKS)
    args = ["test_plain.py", "-s", "-p", "no:randomly"]
    result = e2e_run(pytester, *args, *(["--retrieval-eval"] if flag else []))
    expected = (
        "['pytest_runtest_logreport', 'pytest_runtest_makereport', 'pytest_runtest_setup', "
        "'pytest_runtest_teardown']"
        if flag
        else "[]"
    )
    assert f"RETRIEVAL HOOKS: {expected}\n" in result.stdout.str()


MODULES_LOADED = """
import sys


def test_modules():
    ours = sorted(m for m in sys.modules if m.split(".")[0] == "pytest_retrieval")
    print("RETRIEVAL MODULES:", " ".join(ours))
"""

# What pytest loads of the plugin for a run without --retrieval-eval: the entry point
# and the settings schema its options come from. Under PYTHONDONTWRITEBYTECODE pytest
# re-reads every module of an installed plugin on each run (0.6 s of CPU for all of
# them, measured with a non-editable install), so a plain suite should load no more.
LIGHT_MODULES = {
    "pytest_retrieval",
    "pytest_retrieval._version",
    "pytest_retrieval.plugin",
    "pytest_retrieval.plugin.hooks",
    "pytest_retrieval.plugin.hookspecs",
    "pytest_retrieval.plugin.misread",
    "pytest_retrieval.plugin.option_table",
    "pytest_retrieval.plugin.options",
    "pytest_retrieval.plugin.usage",
    "pytest_retrieval.report",
    "pytest_retrieval.report.wrapping",
}


@pytest.mark.parametrize("flag", [False, True])
def test_without_the_flag_the_plugin_loads_only_its_entry_point_and_settings(
    pytester: pytest.Pytester, e2e_project: Path, flag: bool
) -> None:
    e2e_write(pytester, "test_plain.py", MODULES_LOADED)
    args = ["test_plain.py", "-s", "-p", "no:randomly", *(["--retrieval-eval"] if flag else [])]
    result = pytester.runpytest_subprocess(*args)  # a fresh interpreter: its own sys.modules
    line = next(x for x in result.outlines if "RETRIEVAL MODULES:" in x)
    loaded = set(line.split(":", 1)[1].split())
    if flag:  # the evaluation run loads the rest, and this test sees it do so
        assert "pytest_retrieval.plugin.evaluation_hooks" in loaded
        assert "pytest_retrieval.io.golden_yaml" in loaded
    else:
        assert loaded == LIGHT_MODULES


def test_the_package_gives_every_public_name_on_first_use() -> None:
    import importlib

    import pytest_retrieval

    for name in pytest_retrieval.__all__:
        value = getattr(pytest_retrieval, name)
        if name != "__version__":
            module = importlib.import_module(f"pytest_retrieval.{pytest_retrieval._EXPORTS[name]}")
            assert value is getattr(module, name)
        assert name in dir(pytest_retrieval)
    assert set(pytest_retrieval._EXPORTS) == set(pytest_retrieval.__all__) - {"__version__"}
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        pytest_retrieval.nothing_here  # noqa: B018


def test_the_flag_with_golden_files_missing_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_golden = golden\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "retrieval_golden" in result.stderr.str()


# --------------------------------------------------------------------------- items and ids


def test_one_item_per_query_per_configuration_with_exact_node_ids(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert e2e_collected_ids(result) == ALL_IDS
    assert "golden/catalog.yaml::rain-tomorrow[bm25]" in ALL_IDS
    assert len(ALL_IDS) == 14

    run = e2e_run(pytester, "--retrieval-eval", "-rA")
    run.assert_outcomes(passed=14)
    run.stdout.fnmatch_lines(
        [
            "PASSED golden/catalog.yaml::rain-tomorrow[bm25]",
            "PASSED golden/catalog.yaml::rain-tomorrow[dense]",
        ]
    )


def test_a_node_id_selects_exactly_one_item(pytester: pytest.Pytester, e2e_project: Path) -> None:
    result = e2e_run(
        pytester, "--retrieval-eval", "golden/catalog.yaml::rain-tomorrow[dense]", "-rA"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["PASSED golden/catalog.yaml::rain-tomorrow[dense]"])


UNPARAMETRIZED = """\
import pytest


@pytest.fixture
def retriever():
    return lambda query: ["weather-forecast", "fx-rates"]
"""


def test_an_unparametrized_retriever_is_configuration_default_without_brackets(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest=UNPARAMETRIZED)
    result = e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q")
    assert e2e_collected_ids(result) == [f"{E2E_FILES[q]}::{q}" for q in E2E_QUERY_IDS]

    run = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report", "r.json", "--junitxml", "j.xml"
    )
    run.assert_outcomes(passed=7)
    report = e2e_load_json(pytester.path / "r.json")
    assert list(report["configurations"]) == ["default"]
    assert sorted(report["configurations"]["default"]["queries"]) == sorted(E2E_QUERY_IDS)
    props = e2e_junit_properties(pytester.path / "j.xml")
    assert props["golden.catalog.yaml::rain-tomorrow"]["configuration"] == "default"
    run.stdout.fnmatch_lines(["category * n  default"])  # the tables' column


TWO_PARAMETRIZED = """\
import pytest


@pytest.fixture(params={sizes!r})
def index_size(request):
    return request.param


@pytest.fixture(params=["bm25", "dense"])
def retriever(request, index_size):
    ranked = {{"bm25": ["weather-forecast"], "dense": ["fx-rates", "weather-forecast"]}}
    ranked = ranked[request.param]
    return lambda query: ranked
"""


def test_another_parametrized_fixture_does_not_enter_the_configuration_name(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest=TWO_PARAMETRIZED.format(sizes=["small"]))
    collected = e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q")
    ids = e2e_collected_ids(collected)
    assert len(ids) == 14
    assert ids[:2] == [
        "golden/catalog.yaml::rain-tomorrow[bm25-small]",
        "golden/catalog.yaml::rain-tomorrow[dense-small]",
    ]

    run = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report", "r.json", "--junitxml", "j.xml"
    )
    run.assert_outcomes(passed=14)
    report = e2e_load_json(pytester.path / "r.json")
    assert list(report["configurations"]) == ["bm25", "dense"]
    bm25 = report["configurations"]["bm25"]["queries"]["rain-tomorrow"]
    dense = report["configurations"]["dense"]["queries"]["rain-tomorrow"]
    assert bm25["retrieved"] == ["weather-forecast"]
    assert dense["retrieved"] == ["fx-rates", "weather-forecast"]
    props = e2e_junit_properties(pytester.path / "j.xml")
    assert props["golden.catalog.yaml::rain-tomorrow[bm25-small]"]["configuration"] == "bm25"
    assert props["golden.catalog.yaml::rain-tomorrow[dense-small]"]["configuration"] == "dense"
    run.stdout.fnmatch_lines(["category * n  bm25 * dense"])  # the tables' columns
    assert "bm25-small" not in run.stdout.str().split("retrieval evaluation")[1]


def test_a_second_fixture_that_multiplies_items_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    """Two items for one (query, configuration) would overwrite each other's numbers."""
    e2e_write_project(pytester, conftest=TWO_PARAMETRIZED.format(sizes=["small", "large"]))
    run = e2e_run(pytester, "--retrieval-eval")
    assert run.ret == pytest.ExitCode.INTERRUPTED
    out = run.stdout.str()
    assert (
        "query 'rain-tomorrow' would run twice for configuration 'bm25' "
        "(rain-tomorrow[bm25-small] and rain-tomorrow[bm25-large])"
    ) in out
    assert "the parametrized fixture index_size multiplies the items" in out
    assert "Traceback" not in out


CUSTOM_FIXTURE = """\
import pytest


@pytest.fixture
def retriever():
    raise AssertionError("the default fixture name must not be used")


@pytest.fixture(params=["lexical-v2"])
def my_search(request):
    return lambda query: [("weather-forecast", 1.0)]
"""


def test_retrieval_fixture_ini_names_the_retriever_fixture(pytester: pytest.Pytester) -> None:
    e2e_write_project(
        pytester,
        ini="[pytest]\nretrieval_golden = golden\nretrieval_fixture = my_search\n",
        conftest=CUSTOM_FIXTURE,
    )
    collected = e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q")
    assert e2e_collected_ids(collected) == [
        f"{E2E_FILES[q]}::{q}[lexical-v2]" for q in E2E_QUERY_IDS
    ]
    run = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    run.assert_outcomes(passed=7)
    report = e2e_load_json(pytester.path / "r.json")
    assert list(report["configurations"]) == ["lexical-v2"]
    query = report["configurations"]["lexical-v2"]["queries"]["rain-tomorrow"]
    assert query["retrieved"] == ["weather-forecast"]
    assert query["outcome"] == "passed"


SMALL_GOLDEN = """\
queries:
  - id: {qid}
    query: text of {qid}
    category: {category}
    relevant: {{weather-forecast: 2}}
"""


def test_retrieval_golden_takes_several_paths_files_and_folders(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(
        pytester,
        ini="[pytest]\nretrieval_golden = suites/core.yaml more\n",
        conftest=UNPARAMETRIZED,
    )
    e2e_write(pytester, "suites/core.yaml", SMALL_GOLDEN.format(qid="core-one", category="a"))
    # beside the listed file, not listed itself: not a golden file
    e2e_write(pytester, "suites/unlisted.yaml", SMALL_GOLDEN.format(qid="unlisted", category="a"))
    e2e_write(pytester, "more/first.yml", SMALL_GOLDEN.format(qid="more-one", category="b"))
    e2e_write(
        pytester, "more/deeper/second.yaml", SMALL_GOLDEN.format(qid="more-two", category="b")
    )
    e2e_write(pytester, "more/notes.txt", "not yaml")
    result = e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert sorted(e2e_collected_ids(result)) == [
        "more/deeper/second.yaml::more-two",
        "more/first.yml::more-one",
        "suites/core.yaml::core-one",
    ]


def test_a_golden_file_named_on_the_command_line_outside_retrieval_golden_is_collected(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    e2e_write(pytester, "adhoc/smoke.yaml", SMALL_GOLDEN.format(qid="smoke-one", category="x"))
    result = e2e_run(pytester, "--retrieval-eval", "adhoc/smoke.yaml", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert e2e_collected_ids(result) == [
        "adhoc/smoke.yaml::smoke-one[bm25]",
        "adhoc/smoke.yaml::smoke-one[dense]",
    ]
    # and it runs: the retriever answers it (an unknown id ranks nothing relevant)
    pytester.makeconftest(UNPARAMETRIZED)
    run = e2e_run(pytester, "--retrieval-eval", "adhoc/smoke.yaml", "--retrieval-report", "r.json")
    run.assert_outcomes(passed=1)
    report = e2e_load_json(pytester.path / "r.json")
    assert report["golden"]["files"] == ["adhoc/smoke.yaml"]
    assert list(report["configurations"]["default"]["queries"]) == ["smoke-one"]


# --------------------------------------------------------------------------- -k selection


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        pytest.param(
            "paraphrase",
            _ids(
                "rain-tomorrow[bm25]",
                "rain-tomorrow[dense]",
                "umbrella-needed[bm25]",
                "umbrella-needed[dense]",
            ),
            id="by-category",
        ),
        pytest.param(
            "bm25 and not adversarial",
            _ids(
                "rain-tomorrow[bm25]",
                "umbrella-needed[bm25]",
                "convert-euros[bm25]",
                "teleport-ticket[bm25]",
                "share-price[bm25]",
            ),
            id="configuration-and-not-category",
        ),
        pytest.param(
            "core",
            _ids(
                "rain-tomorrow[bm25]",
                "rain-tomorrow[dense]",
                "convert-euros[bm25]",
                "convert-euros[dense]",
                "teleport-ticket[bm25]",
                "teleport-ticket[dense]",
            ),
            id="by-tag-from-defaults",
        ),
        pytest.param(
            "rolling and dense",
            _ids("umbrella-needed[dense]", "stuffed-weather[dense]", "share-price[dense]"),
            id="by-tag-and-configuration",
        ),
        pytest.param(
            "lexical or no-result",
            _ids(
                "convert-euros[bm25]",
                "convert-euros[dense]",
                "teleport-ticket[bm25]",
                "teleport-ticket[dense]",
                "share-price[bm25]",
                "share-price[dense]",
            ),
            id="categories-or",
        ),
    ],
)
def test_dash_k_selects_by_category_tag_and_configuration(
    pytester: pytest.Pytester, e2e_project: Path, expression: str, expected: list[str]
) -> None:
    result = e2e_run(pytester, "--retrieval-eval", "-k", expression, "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert e2e_collected_ids(result) == expected


def test_dash_k_selection_runs_only_the_selected_items(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(pytester, "--retrieval-eval", "-k", "core", "--retrieval-report", "r.json")
    result.assert_outcomes(passed=6, deselected=8)
    report = e2e_load_json(pytester.path / "r.json")
    for configuration in E2E_CONFIGS:
        queries = report["configurations"][configuration]["queries"]
        assert sorted(queries) == ["convert-euros", "rain-tomorrow", "teleport-ticket"]
        assert report["configurations"][configuration]["summary"]["all"]["n"] == 3


# --------------------------------------------------------------------------- skip and xfail

FLAGS_YAML = """\
queries:
  - id: plain-weather
    query: weather for tomorrow
    category: paraphrase
    relevant: {weather-forecast: 3}
    expect: {mrr: 1.0}
  - id: parked-query
    query: tides at the harbour
    category: paraphrase
    relevant: {tide-tables: 3}
    skip: index for tides not built yet
  - id: known-miss
    query: fx settled on solana
    category: lexical
    relevant: {fx-rates-solana: 3}
    expect: {mrr: 1.0}
    xfail: solana listings rank second (issue 12)
  - id: fixed-miss
    query: fx settled on base
    category: lexical
    relevant: {fx-rates: 3}
    expect: {mrr: 1.0}
    xfail: was ranking second
  - id: crashing-xfail
    query: fx when the index is down
    category: lexical
    relevant: {fx-rates: 3}
    expect: {mrr: 1.0}
    xfail: expected to miss, not to crash
"""

FLAGS_CONFTEST = """\
import pytest

RANKED = {
    "plain-weather": ["weather-forecast"],
    "known-miss": ["fx-rates", "fx-rates-solana"],
    "fixed-miss": ["fx-rates"],
}


@pytest.fixture
def retriever():
    def search(query):
        if query.id == "parked-query":
            raise AssertionError("a skipped query must not reach the retriever")
        if query.id == "crashing-xfail":
            raise RuntimeError("index offline")
        return RANKED[query.id]

    return search
"""

FLAGS_RANKED = {
    "plain-weather": ["weather-forecast"],
    "known-miss": ["fx-rates", "fx-rates-solana"],
    "fixed-miss": ["fx-rates"],
}
FLAGS_JUDGED = {
    "plain-weather": {"weather-forecast": 3},
    "known-miss": {"fx-rates-solana": 3},
    "fixed-miss": {"fx-rates": 3},
}


def test_skip_and_xfail_in_golden_files(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_golden = golden\n")
    pytester.makeconftest(FLAGS_CONFTEST)
    e2e_write(pytester, "golden/flags.yaml", FLAGS_YAML)
    result = e2e_run(pytester, "--retrieval-eval", "-rsxXfE", "--retrieval-report", "r.json")
    result.assert_outcomes(passed=1, skipped=1, xfailed=1, xpassed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines_random(
        [
            "SKIPPED [[]1[]] golden/flags.yaml:7: index for tides not built yet",
            "XFAIL golden/flags.yaml::known-miss - solana listings rank second (issue 12)",
            "XPASS golden/flags.yaml::fixed-miss*was ranking second",
            "FAILED golden/flags.yaml::crashing-xfail*",
        ]
    )
    unwrapped = e2e_unwrapped(result.stdout.str()).splitlines()
    pytest.LineMatcher(unwrapped).fnmatch_lines(["*'crashing-xfail'*RuntimeError: index offline*"])

    report = e2e_load_json(pytester.path / "r.json")
    default = report["configurations"]["default"]
    outcomes = {qid: q["outcome"] for qid, q in default["queries"].items()}
    assert outcomes == {
        "plain-weather": "passed",
        "parked-query": "skipped",
        "known-miss": "xfailed",
        "fixed-miss": "xpassed",
        # the retriever raised: an error, not the failure xfail expects
        "crashing-xfail": "error",
    }
    assert "index offline" in default["queries"]["crashing-xfail"]["error"]
    assert default["queries"]["crashing-xfail"]["metrics"] == {
        "ndcg@10": 0.0,
        "mrr": 0.0,
        "recall@20": 0.0,
    }
    assert default["queries"]["parked-query"]["metrics"] == {
        "ndcg@10": None,
        "mrr": None,
        "recall@20": None,
    }
    # n counts the evaluated queries: the skipped one is not among them
    summary = default["summary"]
    assert summary["all"]["n"] == 4
    assert summary["categories"]["paraphrase"]["n"] == 1
    assert summary["categories"]["lexical"]["n"] == 3
    for metric in ("ndcg@10", "mrr", "recall@20"):
        values = [e2e_metric(metric, FLAGS_RANKED[q], FLAGS_JUDGED[q]) for q in FLAGS_RANKED]
        expected = sum(v for v in values if v is not None) / 4  # + crashing-xfail's 0.0
        assert summary["all"][metric] == pytest.approx(expected, abs=1e-12)
    assert summary["all"]["mrr"] == pytest.approx(0.625, abs=1e-12)


PER_CONFIGURATION_XFAIL_YAML = """\
queries:
  - id: vegan-soup
    query: vegan soup
    category: filtered
    relevant: {tomato-soup: 3}
    forbid: [chicken-soup]
    xfail:
      titles: titles ignores filters
  - id: any-soup
    query: soup
    category: filtered
    relevant: {tomato-soup: 3}
"""

PER_CONFIGURATION_XFAIL_CONFTEST = """\
import pytest


@pytest.fixture(scope="session", params=["lexical", "titles", "dense"])
def retriever(request):
    def search(query):
        if request.param == "lexical" or query.id == "any-soup":
            return ["tomato-soup"]
        return ["chicken-soup", "tomato-soup"]  # titles (expected) and dense (a regression)

    return search
"""


@pytest.mark.parametrize("items", ["query", "shard:10"])
def test_xfail_per_configuration_expects_the_failure_of_those_named_alone(
    pytester: pytest.Pytester, items: str
) -> None:
    """A query that one weaker configuration is known to fail: 'xfail: reason' made the
    good configurations XPASS, and a later regression of theirs would have hidden there."""
    pytester.makefile(".ini", pytest=f"[pytest]\nretrieval_items = {items}\n")
    pytester.makeconftest(PER_CONFIGURATION_XFAIL_CONFTEST)
    e2e_write(pytester, "golden/soup.yaml", PER_CONFIGURATION_XFAIL_YAML)
    result = e2e_run(pytester, "--retrieval-eval", "-rxXf", "--retrieval-report", "r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # dense, which no xfail names
    report = e2e_load_json(pytester.path / "r.json")["configurations"]
    outcomes = {c: report[c]["queries"]["vegan-soup"]["outcome"] for c in report}
    assert outcomes == {"lexical": "passed", "titles": "xfailed", "dense": "failed"}
    if items == "query":
        result.assert_outcomes(passed=4, xfailed=1, failed=1)
        result.stdout.fnmatch_lines_random(
            [
                "XFAIL golden/soup.yaml::vegan-soup[[]titles[]] - titles ignores filters",
                "FAILED golden/soup.yaml::vegan-soup[[]dense[]]*",
            ]
        )
        assert "XPASS" not in result.stdout.str()
    misspelled = PER_CONFIGURATION_XFAIL_YAML.replace("titles: titles", "title: titles")
    e2e_write(pytester, "golden/soup.yaml", misspelled)
    typo = e2e_run(pytester, "--retrieval-eval")  # a warning: a run may lack configurations
    assert typo.ret == pytest.ExitCode.TESTS_FAILED  # titles fails, as xfail did not name it
    said = " ".join(typo.stdout.str().split())
    assert (
        "golden/soup.yaml:2: RetrievalGoldenWarning: query 'vegan-soup': xfail names "
        "configuration 'title', which no item of this run has (did you mean 'titles'?) "
        "(configurations: dense, lexical, titles)"
    ) in said
    strict = e2e_run(pytester, "--retrieval-eval", "-W", "error::pytest_retrieval.RetrievalWarning")
    assert strict.ret == pytest.ExitCode.INTERRUPTED
    assert "xfail names configuration 'title'" in " ".join(strict.stdout.str().split())


def test_the_catalog_used_by_these_tests_matches_the_tables_in_conftest() -> None:
    import yaml

    data = yaml.safe_load(E2E_CATALOG_YAML)
    assert [q["id"] for q in data["queries"]] == E2E_QUERY_IDS[:5]


def test_a_golden_file_reached_twice_through_a_link_is_collected_once(
    pytester: pytest.Pytester,
) -> None:
    """A folder linked into the golden folder (here a loop back to it): one file, one
    warning, no duplicate-id errors for every level of the loop."""
    e2e_write_project(pytester)
    (pytester.path / "golden" / "again").symlink_to("../golden", target_is_directory=True)
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    said = " ".join(result.stdout.str().split())
    assert "golden/again/catalog.yaml is golden/catalog.yaml again, reached through a " in said
    assert said.count("reached through a symbolic link") == 2  # catalog.yaml, holdout.yml
    assert "duplicate id" not in said
    out = result.stdout.str()
    assert max(len(line) for line in out.splitlines() if "symbolic" in line) <= 80  # wrapped
    strict = e2e_run(pytester, "--retrieval-eval", "-W", "error")
    assert strict.ret == pytest.ExitCode.INTERRUPTED
    text = strict.stdout.str()
    assert (
        "reached through a symbolic link" in text and "(-W error: RetrievalSettingsWarning)" in text
    )
    assert "evaluation_hooks.py" not in text  # a message, not the plugin's traceback


def test_golden_files_linked_from_outside_the_golden_folder_are_collected(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A link inside golden/ to a folder or a file elsewhere: its queries run (they were
    left out in silence), and the command line reads the same files."""
    e2e_write_project(pytester)
    elsewhere = tmp_path_factory.mktemp("shared")
    (elsewhere / "more.yaml").write_text(
        "queries:\n  - {id: linked-q, query: tide tables, relevant: {tide-tables: 2}}\n"
    )
    (elsewhere / "one.yml").write_text(
        "queries:\n  - {id: linked-file-q, query: tide, relevant: {tide-tables: 1}}\n"
    )
    (pytester.path / "golden" / "shared").symlink_to(elsewhere, target_is_directory=True)
    (pytester.path / "golden" / "one.yml").symlink_to(elsewhere / "one.yml")
    result = e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q")
    collected = result.stdout.str()
    assert "golden/shared/more.yaml::linked-q[bm25]" in collected, collected
    assert "golden/one.yml::linked-file-q[bm25]" in collected
    assert "golden/shared/one.yml::" not in collected  # the same file: once


@pytest.mark.parametrize(
    ("golden", "says"),
    [
        ("golden goldne", "retrieval_golden: goldne does not exist under"),
        ("golden/set.json", "retrieval_golden: golden/set.json is not a golden file"),
        ("golden empty", "retrieval_golden: empty holds no golden file"),
    ],
)
def test_every_golden_path_is_checked_not_only_the_first(
    pytester: pytest.Pytester, golden: str, says: str
) -> None:
    e2e_write_project(pytester)
    (pytester.path / "golden" / "set.json").write_text("{}")
    (pytester.path / "empty").mkdir()
    result = e2e_run(pytester, "--retrieval-eval", "-o", f"retrieval_golden={golden}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert says in result.stderr.str()
    # the fix points where the value was given: -o here, not the ini file
    assert "fix the path given with -o retrieval_golden=..." in e2e_unwrapped(result.stderr.str())


@pytest.mark.parametrize(
    ("link", "target"), [("gone.yaml", "../moved.yaml"), ("shared", "../not-checked-out")]
)
def test_a_dangling_link_in_the_golden_folder_is_an_error_naming_its_target(
    pytester: pytest.Pytester, link: str, target: str
) -> None:
    """A link whose target is missing (a file moved, a folder not checked out) held
    queries the run would leave out in silence; the command line says the same."""
    e2e_write_project(pytester)
    (pytester.path / "golden" / link).symlink_to(target)
    (pytester.path / "golden" / ".#catalog.yaml").symlink_to("someone@host.123")  # Emacs' lock
    says = (
        f"golden/{link}: is a symbolic link to {target}, which does not exist: restore "
        "its target, or remove the link"
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    text = " ".join(result.stdout.str().split())
    assert says in text
    assert "1 error during collection" in text and "Traceback" not in text
    ran = cli("validate", cwd=pytester.path)
    assert ran.code != 0 and says in " ".join((ran.out + ran.err).split()), ran.out + ran.err


def test_ids_equal_but_for_letter_case_are_a_warning_naming_both(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    e2e_write(
        pytester,
        "golden/more.yaml",
        """\
        - id: Rain-Tomorrow
          query: will it rain tomorrow
          relevant: [weather-forecast]
        """,
    )
    pytester.makeconftest(
        "import pytest\n@pytest.fixture\ndef retriever():\n"
        "    return lambda q: ['weather-forecast']\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.OK
    out = " ".join(result.stdout.str().split())
    assert (
        "golden/more.yaml:1: RetrievalGoldenWarning: query 'Rain-Tomorrow': its id differs only "
        "in letter case from 'rain-tomorrow' (golden/catalog.yaml:6): -k selects both"
    ) in out
    assert "rename one of them" in out
    strict = e2e_run(
        pytester, "--retrieval-eval", "-W", "error::pytest_retrieval.RetrievalGoldenWarning"
    )
    assert strict.ret == pytest.ExitCode.INTERRUPTED
    assert "golden/more.yaml:1: query 'Rain-Tomorrow': its id differs" in strict.stdout.str()
    assert "Traceback" not in strict.stdout.str()


def test_an_id_forbidden_and_judged_relevant_is_a_warning_at_its_query(
    pytester: pytest.Pytester,
) -> None:
    """`relevant: {p06: 1}` and `forbid: [p06]`: the item could never both score and pass,
    yet only `pytest-retrieval validate` said so; the run showed a failed item alone."""
    e2e_write_project(pytester)
    e2e_write(
        pytester,
        "golden/more.yaml",
        """\
        - id: tent
          query: lightweight tent for two
          relevant: {weather-forecast: 3, fx-rates: 1}
          forbid: [fx-rates]
        """,
    )
    pytester.makeconftest(
        "import pytest\n@pytest.fixture\ndef retriever():\n"
        "    return lambda q: ['weather-forecast']\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    out = " ".join(result.stdout.str().split())
    assert (
        "golden/more.yaml:1: RetrievalGoldenWarning: query 'tent': 'fx-rates' is forbidden and "
        "judged relevant (grade 1): returning it fails the query, leaving it out lowers its "
        "scores; remove it from 'forbid', or grade it 0"
    ) in out, out


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_results_whose_ids_no_judgment_names_are_a_warning_not_silent_zeros(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    # the retriever prefixes its ids: every metric 0, every item passes
    root = e2e_write_project(pytester)
    pytester.makeconftest(
        "import pytest\n@pytest.fixture(params=['prefixed', 'plain'])\ndef retriever(request):\n"
        "    pre = 'doc-' if request.param == 'prefixed' else ''\n"
        "    return lambda q: [pre + 'weather-forecast', pre + 'fx-rates']\n"
    )
    result = e2e_run(
        pytester, "--retrieval-eval", "-p", "no:randomly", *workers, "--retrieval-report=r.json"
    )
    out = " ".join(result.stdout.str().split())  # (some items fail their expect)
    assert (
        "RetrievalGoldenWarning: prefixed: none of the results of its 6 answered queries with "
        "judgments is an id the golden files judge (it returned 'doc-weather-forecast', "
        "'doc-fx-rates', ...), so every metric is 0: check that the retriever returns the ids "
        "the golden files use"
    ) in out, out
    assert "plain: none of the results" not in out  # it returns judged ids
    entry = e2e_load_json(root / "r.json")["configurations"]["plain"]["queries"]["rain-tomorrow"]
    assert "judged" not in entry  # the flag stays out of the report


def test_a_judged_id_that_looks_mistyped_is_a_warning_at_its_query(
    pytester: pytest.Pytester,
) -> None:
    """'weather-forcast' judged, 'weather-forecast' retrieved: the query scored 0 in every
    configuration, and nothing said why. Two documents one digit apart are two documents,
    and an id one configuration retrieves is no typo."""
    pytester.makeini("[pytest]\nretrieval_golden = golden\n")
    pytester.mkdir("golden")
    (pytester.path / "golden/q.yaml").write_text(
        "queries:\n"
        "  - {id: rain, query: rain, relevant: {weather-forcast: 3}}\n"
        "  - {id: doc, query: doc, relevant: {doc-103: 1}}\n"
        "  - {id: fx, query: fx, relevant: {fx-rate: 1}}\n"
    )
    pytester.makeconftest(
        "import pytest\n@pytest.fixture(params=['bm25', 'dense'])\ndef retriever(request):\n"
        "    extra = ['fx-rate'] if request.param == 'dense' else []\n"
        "    return lambda q: ['weather-forecast', 'doc-102', 'fx-rates', *extra]\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    out = " ".join(result.stdout.str().split())
    assert (
        "golden/q.yaml:2: RetrievalGoldenWarning: query 'rain' judges 'weather-forcast', which "
        "no configuration retrieved, while 'weather-forecast' came back: a typo in the golden "
        "file? Correct the id (pytest-retrieval validate --corpus FILE checks every judged id"
    ) in out, out
    assert "'doc-103'" not in out  # doc-102 is another document
    assert "'fx-rate'," not in out  # dense retrieved it: it exists
    assert result.ret == 0


def test_the_plugins_own_files_in_a_golden_folder_are_named_not_read_as_golden_files(
    pytester: pytest.Pytester,
) -> None:
    """A recording or the log copied under golden/ (a run refuses to write it there; or a
    worklist pooled there) is collected by its suffix: one line saying what it is, not a
    problem on every line."""
    e2e_write_project(pytester)
    first = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=runs/rec.jsonl",
                    "--retrieval-log=runs/log.jsonl")  # fmt: skip
    assert first.ret == pytest.ExitCode.OK
    (pytester.path / "runs").rename(pytester.path / "golden" / "runs")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = result.stdout.str()
    for name, kind in (
        ("rec", "recording (written by --retrieval-record)"),
        ("log", "history log"),
    ):
        assert (f"golden/runs/{name}.jsonl:1: this is a pytest-retrieval {kind}") in text
    assert "unknown key" not in text and text.count("not a golden file: move it out") == 2


def test_a_missing_golden_path_set_in_the_ini_file_is_named_there_without_deprecated_calls(
    pytester: pytest.Pytester,
) -> None:
    """config.inicfg, which pytest 10 removes, was read to tell the ini file's value
    from the default: under -W error it ended the run with pytest's deprecation."""
    e2e_write_project(pytester, ini=E2E_INI.replace("= golden", "= evals"))
    result = e2e_run(pytester, "--retrieval-eval", "-W", "error::pytest.PytestRemovedIn10Warning")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "fix the path in pytest.ini (retrieval_golden)" in e2e_unwrapped(result.stderr.str())


SHARED_A = """\
queries:
  - id: shared
    query: fluffy pancakes
    relevant: {pancakes: 3}
  - id: broken
    query: x
    relevnt: {pancakes: 3}
"""
SHARED_B = """\
queries:
  - id: shared
    query: pancakes again
    relevant: {pancakes: 3}
  - id: other
    query: x
    relevant: {pancakes: 9}
"""
SHARED_DUPLICATE = (
    "golden/b.yaml:2: query 'shared': duplicate id: already used in golden/a.yaml:2; ids must "
    "be unique across the golden set"
)


def test_an_id_used_in_two_files_with_errors_of_their_own_is_named_in_the_same_run(
    pytester: pytest.Pytester,
) -> None:
    """The duplicate was named only once the other problems of the files were fixed."""
    e2e_write_project(pytester)
    (pytester.path / "golden").mkdir(exist_ok=True)
    for old in (pytester.path / "golden").iterdir():
        old.unlink()
    e2e_write(pytester, "golden/a.yaml", SHARED_A)
    e2e_write(pytester, "golden/b.yaml", SHARED_B)
    result = e2e_run(pytester, "--retrieval-eval")
    text = e2e_unwrapped(result.stdout.str())
    assert "golden/a.yaml:7: query 'broken': unknown key 'relevnt'" in text
    assert "golden/b.yaml:7: query 'other': grade of 'pancakes' is 9" in text
    assert SHARED_DUPLICATE in text
    ran = cli("validate", cwd=pytester.path)
    assert ran.code == 1
    assert SHARED_DUPLICATE in ran.out
