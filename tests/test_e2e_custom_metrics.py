"""End to end: a custom metric through the ``pytest_retrieval_metrics`` hook.

The metric is rank-biased precision (RBP, Moffat and Zobel 2008), exactly as the
README defines it: its ``retrieval_metrics.py`` block is written into the test
projects as is, and their ``conftest.py`` imports the hook from it. It is used
wherever a built-in is (``retrieval_metrics``, ``expect``, a per-metric tolerance,
the gate and the baseline, the JSON, Markdown, HTML and JUnit reports, ``-n 2``, the
command line's ``--metrics-module``) and checked against ranx's ``rbp`` on the
cross-checks' 300 generated queries (tests/generated_runs.py).

ranx's ``rbp`` weighs a hit by its grade (its docstring says r_i is 0 or 1; pinned
below), so it is handed binary judgments: grade >= the threshold -> 1. It has no
cut: ``rbp.80@k`` is compared with ranx on runs cut at k.
"""

from __future__ import annotations

import math
import sys
import types
import warnings
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from cli_project import cli  # beside this file
from generated_runs import N_QUERIES, decreasing_scores, generated_cases, write_plugin_project
from ranx_input import ranx_pair  # beside this file

from conftest import (
    E2E_CATALOG_YAML,
    E2E_CONFIGS,
    E2E_INI,
    E2E_JUDGMENTS,
    E2E_QUERY_IDS,
    E2E_RANKINGS,
    E2E_RETRIEVER_CONFTEST,
    e2e_dedupe,
    e2e_expected_metrics,
    e2e_junit_properties,
    e2e_load_json,
    e2e_readme_code,
    e2e_run,
    e2e_unwrapped,
    e2e_write,
    e2e_write_project,
)
from pytest_retrieval.metric_registry import Registered
from pytest_retrieval.metrics import (
    REGISTRY,
    Conventions,
    evaluate,
    install_metrics,
    parse_metrics,
)
from pytest_retrieval.metrics import restore_metrics as restore

pytestmark = pytest.mark.filterwarnings("ignore::Warning:numba")


METRICS_MODULE = e2e_readme_code("custom metrics example: retrieval_metrics.py")
IMPORT_HOOK = "from retrieval_metrics import pytest_retrieval_metrics  # noqa: F401\n"
HOOK_LINE = next(
    n
    for n, line in enumerate(METRICS_MODULE.splitlines(), start=1)
    if line.startswith("def pytest_retrieval_metrics")
)
SOURCE = f"retrieval_metrics.py:{HOOK_LINE}"  # where messages say the metrics come from

# the metric names the projects use (aliases and case on purpose), and how reports name them
GIVEN = "ndcg@10 rbp@10 RBP.95 mrr"
CANONICAL = ["ndcg@10", "rbp.80@10", "rbp.95", "mrr"]


def rbp_reference(ranked: list[str], judgments: dict[str, int], p: float, k: int | None) -> float:
    """Plain RBP, abstain convention: Moffat and Zobel's sum, binary relevance at grade 1."""
    ranking = e2e_dedupe(ranked)
    if not any(g >= 1 for g in judgments.values()):
        return 0.0 if ranking else 1.0
    top = ranking if k is None else ranking[:k]
    return (1 - p) * sum(p**i for i, doc in enumerate(top) if judgments.get(doc, 0) >= 1)


def expected(configuration: str, qid: str) -> dict[str, float | None]:
    ranked = E2E_RANKINGS[configuration][qid]
    builtins = e2e_expected_metrics(configuration, qid, ["ndcg@10", "mrr"])
    return {
        "ndcg@10": builtins["ndcg@10"],
        "rbp.80@10": rbp_reference(ranked, E2E_JUDGMENTS[qid], 0.8, 10),
        "rbp.95": rbp_reference(ranked, E2E_JUDGMENTS[qid], 0.95, None),
        "mrr": builtins["mrr"],
    }


def write_rbp_project(pytester: pytest.Pytester, retriever: str = E2E_RETRIEVER_CONFTEST) -> Path:
    """The standard e2e project, with the README's RBP and an ``expect`` on it."""
    ini = E2E_INI.replace(
        "retrieval_metrics = ndcg@10 mrr recall@20", f"retrieval_metrics = {GIVEN}"
    )
    assert ini != E2E_INI
    root = e2e_write_project(pytester, ini=ini, conftest=IMPORT_HOOK + retriever)
    (root / "retrieval_metrics.py").write_text(METRICS_MODULE, encoding="utf-8")
    catalog = E2E_CATALOG_YAML.replace("expect: {mrr: 0.5}", "expect: {mrr: 0.5, rbp@10: 0.25}")
    assert catalog != E2E_CATALOG_YAML
    (root / "golden" / "catalog.yaml").write_text(catalog, encoding="utf-8")
    return root


@pytest.fixture
def forget_metrics_module() -> Iterator[None]:
    """The command line imports ``retrieval_metrics`` by name in this process: forget it."""
    yield
    sys.modules.pop("retrieval_metrics", None)


# --------------------------------------------------------------------------- everywhere


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_readme_metric_works_wherever_a_builtin_does(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    root = write_rbp_project(pytester)
    result = e2e_run(
        pytester, "--retrieval-eval", "-p", "no:randomly", *workers, "--junitxml=junit.xml",
        "--retrieval-report=r.json", "--retrieval-report=r.md", "--retrieval-report=r.html",
    )  # fmt: skip
    # rain-tomorrow expects rbp@10 >= 0.25: bm25 has 0.288 (ranks 2, 3), dense 0.2 (rank 1)
    result.assert_outcomes(passed=13, failed=1)
    assert REGISTRY.custom == ()  # the run put this process's registry back
    result.stdout.fnmatch_lines(
        [
            "*rain-tomorrow?dense?*",
            "  expected rbp.80@10 >= 0.25, got 0.2",
            "*FAILED golden/catalog.yaml::rain-tomorrow?dense?*",
        ]
    )

    report = e2e_load_json(root / "r.json")
    assert report["settings"]["metrics"] == CANONICAL
    for configuration in E2E_CONFIGS:
        block = report["configurations"][configuration]
        for qid in E2E_QUERY_IDS:
            assert block["queries"][qid]["metrics"] == pytest.approx(expected(configuration, qid))
        for name in CANONICAL:
            mean = math.fsum(expected(configuration, q)[name] or 0.0 for q in E2E_QUERY_IDS) / 7
            assert block["summary"]["all"][name] == pytest.approx(mean), name

    bm25 = report["configurations"]["bm25"]["summary"]["all"]["rbp.80@10"]
    markdown = (root / "r.md").read_text(encoding="utf-8")
    assert "rbp.80@10" in markdown and f"{bm25:.3f}" in markdown
    assert "rbp.95" in (root / "r.html").read_text(encoding="utf-8")
    props = e2e_junit_properties(root / "junit.xml")
    case = props["golden.catalog.yaml::convert-euros[bm25]"]
    assert float(case["rbp.80@10"]) == pytest.approx(expected("bm25", "convert-euros")["rbp.80@10"])
    assert "rbp.95" in case


DEGRADED = E2E_RETRIEVER_CONFTEST.replace(
    "'convert-euros': ['fx-rates', 'crypto-prices', 'fx-rates-solana']",
    "'convert-euros': ['crypto-prices', 'noise-01', 'fx-rates', 'fx-rates-solana']",
)
TOLERANCE = "--retrieval-tolerance=0.9 rbp.80@10=0.01"  # only a drop in rbp.80@10 can fail


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_gate_fails_on_a_drop_in_the_custom_metric(
    pytester: pytest.Pytester, forget_metrics_module: None, workers: list[str]
) -> None:
    assert DEGRADED != E2E_RETRIEVER_CONFTEST
    root = write_rbp_project(pytester)
    common = ("--retrieval-eval", "-p", "no:randomly", *workers, TOLERANCE)
    updated = e2e_run(pytester, *common, "--retrieval-update-baseline", "--retrieval-report=a.json")
    assert "retrieval baseline written" in updated.stdout.str()
    baseline = e2e_load_json(root / "golden" / "baseline.json")
    assert baseline["settings"]["metrics"] == CANONICAL
    stored = baseline["configurations"]["bm25"]["queries"]["convert-euros"]["metrics"]
    assert stored["rbp.80@10"] == pytest.approx(0.2 * (1 + 0.64))

    passed = e2e_run(pytester, *common, "--retrieval-report=same.json")
    assert "retrieval gate: PASSED" in passed.stdout.str()

    pytester.makeconftest(IMPORT_HOOK + DEGRADED)  # convert-euros: relevant at ranks 3, 4
    failed = e2e_run(pytester, *common, "--retrieval-report=b.json")
    assert failed.ret == 1
    gate = e2e_load_json(root / "b.json")["gate"]
    assert gate["verdict"] == "failed"
    breached = {
        (r["configuration"], r["category"], r["metric"]) for r in gate["rows"] if r["breached"]
    }
    # 0.328 -> 0.2304 on one query: lexical (2 queries) and all (7) drop beyond 0.01;
    # nDCG and MRR drop too, within their tolerance of 0.9
    assert breached == {("bm25", "lexical", "rbp.80@10"), ("bm25", "all", "rbp.80@10")}
    failed.stdout.fnmatch_lines(["retrieval gate: FAILED*", "*rbp.80@10*"])

    # the command line compares the two reports by the same rules, given the module
    ran = cli("compare", "a.json", "b.json", "--tolerance", "0.9 rbp.80@10=0.01",
              "--metrics-module", "retrieval_metrics", cwd=root)  # fmt: skip
    assert ran.code == 1, ran.err
    assert "rbp.80@10" in ran.out
    same = cli("compare", "a.json", "same.json", "--tolerance", "0.9 rbp.80@10=0.01",
               "--metrics-module", "retrieval_metrics.py", cwd=root)  # fmt: skip
    assert same.code == 0, same.out + same.err


def test_the_command_line_scores_the_custom_metric_as_the_plugin_does(
    pytester: pytest.Pytester, forget_metrics_module: None
) -> None:
    root = write_rbp_project(pytester)
    e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly", "--retrieval-report=r.json")
    plugin = e2e_load_json(root / "r.json")

    missing = cli("evaluate", "r.json", cwd=root)
    assert missing.code == 2
    assert missing.err.strip() == (
        f"pytest-retrieval: error: {root / 'pytest.ini'}:3: retrieval_metrics: unknown metric "
        "'rbp@10' "
        "(did you mean 'mrr@10'?); a custom metric? name the module that defines it with "
        "--metrics-module MODULE"
    )
    ran = cli("evaluate", "r.json", "--metrics-module", "retrieval_metrics.py",
              "--report", "cli.json", cwd=root)  # fmt: skip
    assert ran.code == 1, ran.err  # the expect on rbp@10 fails for dense, as in the plugin
    assert "query 'rain-tomorrow' [dense]: failed: expected rbp.80@10 >= 0.25, got 0.2" in ran.out
    again = e2e_load_json(root / "cli.json")
    assert again["settings"]["metrics"] == CANONICAL
    for configuration in E2E_CONFIGS:
        for qid in E2E_QUERY_IDS:
            ours = again["configurations"][configuration]["queries"][qid]["metrics"]
            theirs = plugin["configurations"][configuration]["queries"][qid]["metrics"]
            # a report keeps the top 10: the cut metrics are the plugin's number for number
            assert ours["rbp.80@10"] == pytest.approx(theirs["rbp.80@10"], abs=1e-12), qid
            assert ours["ndcg@10"] == pytest.approx(theirs["ndcg@10"], abs=1e-12), qid

    assert cli("validate", "--metrics-module", "retrieval_metrics", cwd=root).code == 0


# --------------------------------------------------------------------------- ranx


@cache
def ranx_rbp(threshold: int, k: int | None) -> dict[str, dict[str, float]]:
    """ranx's rbp.80 and rbp.95 per query, on binary judgments and runs cut at k."""
    ranx = pytest.importorskip("ranx")
    cases = generated_cases()
    binary = {c.qid: {d: 1 for d, g in c.judgments.items() if g >= threshold} for c in cases}
    qrels, run = ranx_pair(binary, {c.qid: decreasing_scores(c.ranking[:k]) for c in cases})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(qrels, run, ["rbp.80", "rbp.95"], return_mean=False)
    return {
        name: {q: float(v) for q, v in run.scores[name].items()} for name in ("rbp.80", "rbp.95")
    }


def readme_module() -> types.ModuleType:
    module = types.ModuleType("readme_retrieval_metrics")
    exec(compile(METRICS_MODULE, "retrieval_metrics.py", "exec"), module.__dict__)
    return module


@pytest.fixture
def readme_metrics() -> Iterator[None]:
    specs = readme_module().pytest_retrieval_metrics()
    previous = install_metrics([Registered(s, "README") for s in specs])
    yield
    restore(previous)


@pytest.mark.parametrize("threshold", [1, 2, 3])
def test_the_readme_rbp_equals_ranx_on_every_generated_query(
    readme_metrics: None, threshold: int
) -> None:
    metrics = parse_metrics(["rbp.80", "rbp.95", "rbp.80@10", "rbp.95@5"])
    conventions = Conventions(relevance_threshold=threshold, empty="zero")  # ranx: 0.0
    checked = 0
    for case in generated_cases():
        ours = evaluate(case.ranking, case.judgments, metrics, conventions)
        for metric in metrics:
            theirs = ranx_rbp(threshold, metric.k)[metric.base][case.qid]
            assert ours[metric.name] == pytest.approx(theirs, abs=1e-9), (case.qid, metric.name)
            checked += 1
    assert checked == 4 * N_QUERIES
    assert any(v > 0 for v in ranx_rbp(threshold, None)["rbp.80"].values())


def test_ranx_rbp_weighs_hits_by_their_grade_unlike_the_paper(readme_metrics: None) -> None:
    """Why the cross-check hands ranx binary judgments (a documented difference)."""
    ranx = pytest.importorskip("ranx")
    qrels, run = ranx_pair({"q": {"a": 3}}, {"q": {"a": 1.0}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graded = float(ranx.evaluate(qrels, run, "rbp.80"))
    assert graded == pytest.approx(0.6)  # (1 - 0.8) * 3: above 1 with grades up to 3 at p=0
    assert evaluate(["a"], {"a": 3}, parse_metrics(["rbp.80"])) == {"rbp.80": pytest.approx(0.2)}


def test_the_plugin_reports_ranx_s_rbp_for_every_generated_query(
    pytester: pytest.Pytester, readme_metrics: None
) -> None:
    ini = {"retrieval_metrics": "rbp.80 rbp.95 rbp.80@10 rbp.95@5", "retrieval_empty": "zero",
           "retrieval_relevance_threshold": "2"}  # fmt: skip
    from generated_runs import PLUGIN_CONFTEST

    write_plugin_project(pytester, ini, conftest=IMPORT_HOOK + PLUGIN_CONFTEST)
    (pytester.path / "retrieval_metrics.py").write_text(METRICS_MODULE, encoding="utf-8")
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly", "--retrieval-report=r.json")
    result.assert_outcomes(passed=N_QUERIES)
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]["default"]["queries"]
    problems = []
    for metric in parse_metrics(ini["retrieval_metrics"].split()):
        for qid, value in ranx_rbp(2, metric.k)[metric.base].items():
            ours = queries[qid]["metrics"][metric.name]
            if abs(ours - value) > 1e-9:
                problems.append(f"{qid} {metric.name}: ours {ours}, ranx {value}")
    assert not problems, "\n".join(problems[:20])


# --------------------------------------------------------------------------- mistakes


def test_a_definition_clashing_with_another_plugin_s_names_both(pytester: pytest.Pytester) -> None:
    write_rbp_project(pytester)
    e2e_write(pytester, "extra_metrics.py", """\
        from pytest_retrieval import MetricSpec

        def pytest_retrieval_metrics():
            return [MetricSpec("RBP", lambda q: 0.5)]
    """)  # fmt: skip
    pytester.syspathinsert()
    result = e2e_run(pytester, "--retrieval-eval", "-p", "extra_metrics")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in e2e_unwrapped(result.stderr.str()).splitlines() if "ERROR" in line]
    assert lines == [
        "ERROR: metric 'rbp.80' (" + SOURCE + "): its alias 'rbp' is taken by metric 'RBP' "
        "(plugin 'extra_metrics' (extra_metrics.py:3)); give one of them another name"
    ]


def test_an_alias_clashing_with_a_builtin_is_a_usage_error(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester, conftest=E2E_RETRIEVER_CONFTEST + (
        "\n\nfrom pytest_retrieval import MetricSpec\n\n"
        "def pytest_retrieval_metrics():\n"
        "    return [MetricSpec('hits', lambda q: 0.5, aliases=['Success'])]\n"
    ))  # fmt: skip
    line = E2E_RETRIEVER_CONFTEST.count("\n") + 5
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: metric 'hits' (conftest.py:{line}): its alias 'success' is taken by the "
        "built-in metric 'hit_rate' (its alias 'success'); give one of them another name"
    ) in e2e_unwrapped(result.stderr.str())


def test_a_conftest_loaded_during_collection_is_refused_saying_where_to_move_it(
    pytester: pytest.Pytester,
) -> None:
    root = write_rbp_project(pytester)
    e2e_write(pytester, "golden/deeper/conftest.py", """\
        from pytest_retrieval import MetricSpec


        def pytest_retrieval_metrics():
            return [MetricSpec("late", lambda q: 0.5)]
    """)  # fmt: skip
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([
        "*ERROR collecting golden/deeper*",
        "golden/deeper/conftest.py:4: pytest_retrieval_metrics is defined in a file pytest "
        "loaded after the metrics were read (at configuration, before collection); move it to "
        f"the conftest.py at the rootdir ({root}) or to an installed plugin",
    ])  # fmt: skip


def test_an_unknown_expect_metric_is_a_collection_error_listing_the_custom_ones(
    pytester: pytest.Pytester,
) -> None:
    write_rbp_project(pytester)
    e2e_write(pytester, "golden/more.yaml", """\
        - id: more
          query: anything
          relevant: {a: 1}
          expect: {rbp.90: 0.5}
    """)  # fmt: skip
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert REGISTRY.custom == ()  # put back after a run that stopped at collection
    result.stdout.fnmatch_lines([
        "golden/more.yaml: 1 problem in this golden file:",
        "  golden/more.yaml:4: query 'more': 'expect': unknown metric 'rbp.90' (did you mean "
        f"'rbp.95'?); custom metrics: rbp.80[@k] ({SOURCE}), rbp.95[@k] ({SOURCE})",
    ])  # fmt: skip


def test_a_hook_returning_something_else_is_a_usage_error_at_its_line(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest=E2E_RETRIEVER_CONFTEST + (
        "\n\ndef pytest_retrieval_metrics():\n    return {'rbp': 0.8}\n"
    ))  # fmt: skip
    line = E2E_RETRIEVER_CONFTEST.count("\n") + 3
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: conftest.py:{line}: pytest_retrieval_metrics() must return a list of "
        "pytest_retrieval.MetricSpec, got dict"
    ) in e2e_unwrapped(result.stderr.str())


def test_a_bad_metric_spec_in_the_hook_is_named_at_the_user_s_line(
    pytester: pytest.Pytester,
) -> None:
    """MetricSpec refuses the name where the hook builds it: the message points there, not
    into the plugin's own module."""
    e2e_write_project(pytester, conftest=E2E_RETRIEVER_CONFTEST + (
        "\n\ndef pytest_retrieval_metrics():\n"
        "    from pytest_retrieval import MetricSpec\n"
        "    return [MetricSpec('9bad', lambda given: 0.5)]\n"
    ))  # fmt: skip
    line = E2E_RETRIEVER_CONFTEST.count("\n") + 3
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    said = e2e_unwrapped(result.stderr.str())
    assert "metric name '9bad' must start with a letter" in said, said
    assert f"(at conftest.py:{line + 2})" in said and "metric_registry.py" not in said, said


def test_a_metric_function_that_raises_is_the_item_s_error(pytester: pytest.Pytester) -> None:
    conftest = E2E_RETRIEVER_CONFTEST + (
        "\n\nfrom pytest_retrieval import MetricSpec\n\n"
        "def broken(q):\n"
        "    return q.judgments['missing']\n\n"
        "def pytest_retrieval_metrics():\n"
        "    return [MetricSpec('broken', broken)]\n"
    )
    ini = E2E_INI.replace("ndcg@10 mrr recall@20", "ndcg@10 broken")
    e2e_write_project(pytester, ini=ini, conftest=conftest)
    base = E2E_RETRIEVER_CONFTEST.count("\n")
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly", "--retrieval-report=r.json")
    # teleport-ticket has nothing to find: the convention scores it, the function never runs
    result.assert_outcomes(passed=2, failed=12)
    pytest.LineMatcher(e2e_unwrapped(result.stdout.str()).splitlines()).fnmatch_lines([
        "*_ rain-tomorrow?bm25? _*",
        "query 'rain-tomorrow' [bm25] (golden/catalog.yaml:6): "
        f"metric 'broken' (conftest.py:{base + 8}) raised "
        f"KeyError: 'missing' (at conftest.py:{base + 6}); fix the metric function",
    ])  # fmt: skip
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]["bm25"]["queries"]
    assert queries["rain-tomorrow"]["outcome"] == "error"
    assert queries["teleport-ticket"]["metrics"] == {"ndcg@10": 0.0, "broken": 0.0}
    assert queries["teleport-ticket"]["outcome"] == "passed"


def test_the_command_line_says_what_is_wrong_with_a_metrics_module(
    pytester: pytest.Pytester, forget_metrics_module: None
) -> None:
    root = write_rbp_project(pytester)
    e2e_write(pytester, "empty_module.py", "VALUE = 1\n")
    e2e_write(pytester, "raising_module.py", "import nothing_of_that_name\n")
    e2e_write(pytester, "broken_module.py", "VALUE = 1\nOTHER = (\n")  # it pointed at importlib
    cases: dict[str, str] = {
        "nosuch_module_here": "--metrics-module nosuch_module_here: no module named "
        f"'nosuch_module_here' (looked in {root} and the installed packages); give a dotted "
        "module name or the path to a .py file",
        "missing.py": "--metrics-module missing.py: no such file",
        "empty_module.py": f"--metrics-module empty_module.py: {root / 'empty_module.py'} "
        "defines no pytest_retrieval_metrics(); define it to return a list of "
        "pytest_retrieval.MetricSpec",
        "raising_module.py": "--metrics-module raising_module.py: importing it raised "
        "ModuleNotFoundError: No module named 'nothing_of_that_name' (at raising_module.py:1)",
        "broken_module": "--metrics-module broken_module: importing it raised SyntaxError: '(' "
        "was never closed (broken_module.py, line 2) (at broken_module.py:2)",
    }
    for given, message in cases.items():
        ran = cli("validate", "--metrics-module", given, cwd=root)
        assert (ran.code, ran.err.strip()) == (2, f"pytest-retrieval: error: {message}"), given
