"""End to end: coarse items (``retrieval_items = category`` or ``shard:N``) and JSONL golden
files (issue 11, items 5-6).

A coarse item evaluates many queries: its failure names its misses and errors, each
query's values still reach the reports and the baseline, ``-k`` still selects
categories and configurations, and the numbers equal the per-query run's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    E2E_INI,
    E2E_QUERY_IDS,
    e2e_collected_ids,
    e2e_load_json,
    e2e_run,
    e2e_unwrapped,
    e2e_without_latency,
    e2e_write,
    e2e_write_project,
)

UPDATE = ("--retrieval-eval", "--retrieval-update-baseline")


def _report(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, Any]:
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json", *args)
    return result, e2e_without_latency(e2e_load_json(pytester.path / "r.json"))


@pytest.fixture
def per_query(pytester: pytest.Pytester, e2e_project: Path) -> Any:
    result, report = _report(pytester)
    result.assert_outcomes(passed=14)
    return report


def test_category_items_are_one_per_category_of_a_file_and_configuration(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    ids = e2e_collected_ids(
        e2e_run(
            pytester, "--retrieval-eval", "--retrieval-items", "category", "--collect-only", "-q"
        )
    )
    assert sorted(ids) == sorted(
        f"golden/{file}::{name}[{configuration}]"
        for configuration in ("bm25", "dense")
        for file, name in (
            ("catalog.yaml", "paraphrase"),
            ("catalog.yaml", "lexical"),
            ("catalog.yaml", "adversarial"),
            ("catalog.yaml", "no-result"),
            ("holdout.yml", "lexical"),
            ("holdout.yml", "adversarial"),
        )
    )


@pytest.mark.parametrize("items", ["category", "shard:1", "shard:2", "shard:1000"])
def test_coarse_items_give_the_per_query_numbers(
    pytester: pytest.Pytester, per_query: Any, items: str
) -> None:
    result, report = _report(pytester, "--retrieval-items", items)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert report["configurations"] == per_query["configurations"]
    assert report.get("comparisons") == per_query.get("comparisons")


def test_shard_names_and_sizes(pytester: pytest.Pytester, e2e_project: Path) -> None:
    collected = e2e_run(
        pytester,
        "--retrieval-eval",
        "--retrieval-items=shard:1",
        "--collect-only",
        "-q",
        "-k",
        "bm25",
    )
    ids = e2e_collected_ids(collected)
    assert "golden/catalog.yaml::paraphrase-01[bm25]" in ids
    assert "golden/catalog.yaml::paraphrase-02[bm25]" in ids
    assert len(ids) == 7  # a shard of 1 per query


FAILING = "    expect: {mrr: 0.5}\n"


def test_a_coarse_item_fails_listing_every_miss_and_error(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    catalog = e2e_project / "golden" / "catalog.yaml"
    text = catalog.read_text()
    text = text.replace(FAILING, "    expect: {mrr: 1.0}\n")  # rain-tomorrow: bm25 mrr 0.5
    text = text.replace(
        "    tags: [rolling]\n    relevant: {weather-forecast: 2, tide-tables: 0}\n",
        "    tags: [rolling]\n    relevant: {weather-forecast: 2, tide-tables: 0}\n"
        "    forbid: [tide-tables]\n",
    )
    catalog.write_text(text)
    result, report = _report(pytester, "--retrieval-items=category", "-k", "bm25")
    result.assert_outcomes(passed=5, failed=1)
    out = result.stdout.str()
    assert "'paraphrase' [bm25]: 2 of 2 queries failed:" in out
    assert "  golden/catalog.yaml:6: query 'rain-tomorrow': expected mrr >= 1, got 0.5" in out
    assert (
        "  golden/catalog.yaml:12: query 'umbrella-needed': forbidden 'tide-tables' came back "
        "at rank 1"
    ) in e2e_unwrapped(out)
    queries = report["configurations"]["bm25"]["queries"]
    assert queries["rain-tomorrow"]["outcome"] == "failed"
    assert queries["convert-euros"]["outcome"] == "passed"


def test_a_coarse_items_failure_counts_the_queries_that_ran_not_the_skipped(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    catalog = e2e_project / "golden" / "catalog.yaml"
    text = catalog.read_text().replace(FAILING, "    expect: {mrr: 1.0}\n")  # bm25 mrr 0.5
    text = text.replace(
        "    tags: [rolling]\n    relevant: {weather-forecast: 2, tide-tables: 0}\n",
        "    tags: [rolling]\n    relevant: {weather-forecast: 2, tide-tables: 0}\n"
        "    skip: not yet\n",
    )
    catalog.write_text(text)
    result, _ = _report(pytester, "--retrieval-items=category", "-k", "bm25")
    result.assert_outcomes(passed=5, failed=1)
    out = result.stdout.str()
    assert "'paraphrase' [bm25]: 1 of 1 query that ran failed (1 skipped):" in out
    assert "error(s)" not in out and "of 2 queries" not in out


def test_minus_k_selects_categories_and_configurations_of_coarse_items(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result, report = _report(pytester, "--retrieval-items=shard:1", "-k", "lexical and dense")
    result.assert_outcomes(passed=2)
    assert list(report["configurations"]) == ["dense"]
    assert sorted(report["configurations"]["dense"]["queries"]) == ["convert-euros", "share-price"]


def test_deselecting_a_query_id_with_coarse_items_says_it_still_runs(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    # pytest's --deselect matches node ids: a query's deselects no category item, silently
    deselect = "--deselect=golden/catalog.yaml::convert-euros"
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category", deselect)
    assert "deselected" not in result.parseoutcomes()  # nothing deselected
    text = " ".join(result.stdout.str().split("warnings summary", 1)[1].split())
    assert (
        "RetrievalSettingsWarning: --deselect golden/catalog.yaml::convert-euros names the "
        "query id 'convert-euros', but with retrieval_items = category an item holds a "
        "category of a file, so it deselects nothing and the query runs; to leave one query "
        "out: --retrieval-items=query --deselect golden/catalog.yaml::convert-euros"
    ) in text
    per_query = e2e_run(pytester, "--retrieval-eval", deselect)
    assert per_query.parseoutcomes()["deselected"] == 2  # its two items
    assert "RetrievalSettingsWarning" not in per_query.stdout.str()
    item = "--deselect=golden/catalog.yaml::lexical[dense]"  # an item's node id: no warning
    assert (
        "RetrievalSettingsWarning"
        not in e2e_run(
            pytester, "--retrieval-eval", "--retrieval-items=category", item
        ).stdout.str()
    )


def test_minus_k_with_a_query_id_and_coarse_items_says_why_and_how(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-items=shard:2", "-k", "convert-euros or bm25"
    )
    result.assert_outcomes(passed=6)  # the bm25 shards: the query id selected nothing
    warnings_summary = result.stdout.str().split("warnings summary", 1)[1]
    text = " ".join(warnings_summary.split())
    assert "RetrievalSettingsWarning: -k names the query id 'convert-euros', but with" in text
    assert (
        "retrieval_items = shard:2 an item holds a shard of a category of a file, and -k "
        "selects items by category, configuration or item name (paraphrase-01), not by "
        "query id; to run one query: --retrieval-items=query -k convert-euros"
    ) in text
    # wrapped to the width as the other warnings are, the option to copy kept whole
    summary_lines = warnings_summary.split("-- Docs:", 1)[0].splitlines()
    assert max(len(line) for line in summary_lines) <= 80, warnings_summary
    assert "--retrieval-items=query" in warnings_summary
    per_query = e2e_run(pytester, "--retrieval-eval", "-k", "convert-euros")
    per_query.assert_outcomes(passed=2)
    assert "RetrievalSettingsWarning" not in per_query.stdout.str()
    strict = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-items=category", "-k", "convert-euros",
        "-W", "error::pytest_retrieval.RetrievalWarning",
    )  # fmt: skip
    assert strict.ret == pytest.ExitCode.USAGE_ERROR
    assert "with retrieval_items = category an item holds a category" in e2e_unwrapped(
        strict.stderr.str()
    )


@pytest.mark.parametrize(
    ("keyword", "says"),
    [
        ("CONVERT-EUROS", "-k 'CONVERT-EUROS' matches the query id 'convert-euros', but with"),
        ("convert-eu", "-k 'convert-eu' matches the query id 'convert-euros', but with"),
        ("rain-tomorrow or umbrella", "-k names the query id 'rain-tomorrow'; 'umbrella' matches "),
    ],
    ids=["other-case", "substring", "two-words"],
)
def test_minus_k_matching_query_ids_as_pytest_matches_names_warns_with_coarse_items(
    pytester: pytest.Pytester, e2e_project: Path, keyword: str, says: str
) -> None:
    """pytest's -k matches a substring of a name, case-insensitively: a word that matches
    a query id so (and no item name) deselected every coarse item without a word."""
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category", "-k", keyword)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    text = " ".join(result.stdout.str().split("warnings summary", 1)[1].split())
    assert f"RetrievalSettingsWarning: {says}" in text
    assert "to run one query: --retrieval-items=query -k" in text


def test_the_minus_k_warning_shows_a_long_jsonl_line_cut_to_the_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warning is placed at the query's line, which pytest prints under it: a JSON
    Lines query is one long line, and it was printed whole, past an 80-column terminal."""
    monkeypatch.setenv("COLUMNS", "80")
    long = {"id": "q1", "query": "doc " * 40, "category": "exact-name", "relevant": {"d1": 3}}
    e2e_write_project(pytester)
    (pytester.path / "golden" / "big.jsonl").write_text(json.dumps(long) + "\n")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category", "-k", "q1")
    text = result.stdout.str()
    assert "RetrievalSettingsWarning: -k names the query id 'q1'" in " ".join(text.split())
    assert '{"id": "q1", "query": "doc doc' in text  # the line is shown, cut
    summary = text.split("warnings summary", 1)[1]  # (pytester's own rootdir is long)
    assert max(map(len, summary.splitlines())) <= 80, text


def test_minus_k_matching_an_item_or_file_name_does_not_warn(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    """A word that matches an item's name (its category's, its configuration's), its
    file's or its folder's selects items, as pytest's -k does: no warning, though it is
    also part of a query id ('RE' of share-price and no-result)."""
    for keyword in ("RE", "ar", "catalog", "Golden", "DENSE"):
        result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=shard:1", "-k", keyword)
        assert result.ret != pytest.ExitCode.NO_TESTS_COLLECTED, (keyword, result.stdout.str())
        assert "RetrievalSettingsWarning: -k" not in result.stdout.str(), keyword


def test_skip_and_xfail_hold_per_query_inside_a_coarse_item(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    catalog = e2e_project / "golden" / "catalog.yaml"
    text = catalog.read_text().replace(
        FAILING, "    expect: {mrr: 1.0}\n    xfail: bm25 ranks it 2nd\n"
    )
    text = text.replace("    relevant: {}\n", "    relevant: {}\n    skip: not yet\n")
    catalog.write_text(text)
    result, report = _report(pytester, "--retrieval-items=category")
    result.assert_outcomes(passed=10, skipped=2)  # no-result holds only the skipped query
    queries = report["configurations"]["bm25"]["queries"]
    assert queries["rain-tomorrow"]["outcome"] == "xfailed"
    assert queries["teleport-ticket"]["outcome"] == "skipped"
    assert queries["teleport-ticket"]["skip_reason"] == "Skipped: not yet"
    assert report["configurations"]["dense"]["queries"]["rain-tomorrow"]["outcome"] == "xpassed"
    # pytest counts the items, which pass: the plugin counts the queries inside them
    result.stdout.fnmatch_lines(
        ["inside the category items, 4 queries: 2 skipped, 1 xfailed, 1 xpassed (the JSON*"]
    )
    per_query = e2e_run(pytester, "--retrieval-eval")
    per_query.assert_outcomes(passed=10, skipped=2, xfailed=1, xpassed=1)
    assert "inside the" not in per_query.stdout.str()  # pytest's own summary says it
    # a coarse item whose queries all skip is placed where a skipped query's item is: at
    # its golden file's line (not at the plugin's code that raised the skip)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "skip: not yet" in t)
    first = max(i for i, t in enumerate(text.splitlines()[:line], 1) if t.startswith("  - id:"))
    for items in ("query", "category"):
        run = e2e_run(pytester, "--retrieval-eval", f"--retrieval-items={items}", "-rs")
        skips = [t for t in run.stdout.lines if t.startswith("SKIPPED")]
        assert skips and all(f"golden/catalog.yaml:{first}: " in t for t in skips), skips


def test_a_baseline_written_with_shards_gates_per_query_items_and_back(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    assert e2e_run(pytester, *UPDATE, "--retrieval-items=shard:3").ret == 0
    assert "retrieval gate: PASSED" in e2e_run(pytester, "--retrieval-eval").stdout.str()
    assert e2e_run(pytester, *UPDATE).ret == 0
    gated = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category")
    assert "retrieval gate: PASSED" in gated.stdout.str()


def test_junit_properties_of_a_coarse_item(pytester: pytest.Pytester, e2e_project: Path) -> None:
    e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category", "--junitxml=j.xml")
    xml = (pytester.path / "j.xml").read_text()
    assert '<property name="queries" value="2"' in xml
    assert '<property name="configuration" value="bm25"' in xml


def test_shards_under_xdist_give_the_serial_numbers(
    pytester: pytest.Pytester, per_query: Any
) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "--retrieval-items=shard:1", "-n", "2", "--dist", "worksteal",
        "--retrieval-report=x.json", "-p", "no:randomly", timeout=120,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    report = e2e_without_latency(e2e_load_json(pytester.path / "x.json"))
    assert report["configurations"] == per_query["configurations"]


CRASH = """

import os


@pytest.fixture(autouse=True)
def crash_one_shard(request):
    if os.environ.get("CRASH") and request.node.name == "lexical[dense]":
        os._exit(1)
"""


def test_a_shard_whose_worker_crashed_counts_each_query_as_an_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    from conftest import E2E_RETRIEVER_CONFTEST

    e2e_write_project(pytester, conftest=E2E_RETRIEVER_CONFTEST + CRASH)
    monkeypatch.setenv("CRASH", "1")
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "--retrieval-items=category", "-n", "2", "--retrieval-report=r.json",
        "-p", "no:randomly", timeout=120,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    dense = e2e_load_json(pytester.path / "r.json")["configurations"]["dense"]["queries"]
    lexical_in_catalog = ["convert-euros"]
    for qid in lexical_in_catalog:
        assert dense[qid]["outcome"] == "error"
        assert "its xdist worker crashed or was lost" in dense[qid]["error"]
    assert len(dense) == len(E2E_QUERY_IDS)


FAILING_DENSE = """\
import pytest


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    def search(query):
        if request.param == "dense":
            raise ConnectionError("the index is down")
        return ["weather-forecast"]

    return search
"""


@pytest.mark.parametrize(
    ("items", "line"),
    [
        ("shard:2", "7 queries errored in 6 items: they score 0.0 on every metric"),
        ("query", "7 items errored: their queries score 0.0 on every metric"),
    ],
)
def test_the_errors_line_counts_queries_and_the_items_holding_them(
    pytester: pytest.Pytester, items: str, line: str
) -> None:
    e2e_write_project(pytester, conftest=FAILING_DENSE)
    result = e2e_run(pytester, "--retrieval-eval", f"--retrieval-items={items}")
    assert line in result.stdout.str()


ONE_PER_CATEGORY_FAILS = """\
import pytest


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    def search(query):
        if request.param == "dense" and query.id in ("rain-tomorrow", "convert-euros"):
            raise ConnectionError("the index is down")
        return ["weather-forecast"]

    return search
"""


def test_coarse_items_holding_one_errored_query_each_are_not_said_to_error_whole(
    pytester: pytest.Pytester,
) -> None:
    # 2 errored queries in 2 category items of 2 queries each: the other query of each
    # item scored, so "2 items errored: their queries score 0.0" would be untrue
    e2e_write_project(pytester, conftest=ONE_PER_CATEGORY_FAILS)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category")
    text = result.stdout.str()
    assert "2 queries errored in 2 items: they score 0.0 on every metric" in text
    assert "items errored" not in text


def test_one_query_erroring_in_a_coarse_item_is_not_counted_as_the_whole_item(
    pytester: pytest.Pytester,
) -> None:
    """With one errored query per coarse item, queries equal items: the line said '1 item
    errored: its query scores 0.0', as if the item, of many queries, scored 0."""
    one = 'if request.param == "dense" and query.id == "rain-tomorrow":'
    failing = FAILING_DENSE.replace('if request.param == "dense":', one)
    e2e_write_project(pytester, conftest=failing)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category")
    text = " ".join(result.stdout.str().split())
    assert "1 query errored in 1 item: it scores 0.0 on every metric" in text
    assert "1 item errored" not in text


def test_one_errored_item_is_counted_in_the_singular(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester, conftest=FAILING_DENSE)
    result = e2e_run(pytester, "--retrieval-eval", "-k", "dense and rain-tomorrow")
    text = result.stdout.str()
    assert "1 item errored: its query scores 0.0 on every metric" in text
    assert "(s)" not in text


# --------------------------------------------------------------------------- JSONL


def test_a_jsonl_golden_file_is_collected_beside_yaml_ones(
    pytester: pytest.Pytester, per_query: Any, e2e_project: Path
) -> None:
    holdout = e2e_project / "golden" / "holdout.yml"
    import yaml

    queries = yaml.safe_load(holdout.read_text())
    holdout.unlink()
    (e2e_project / "golden" / "holdout.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in queries)
    )
    result, report = _report(pytester)
    result.assert_outcomes(passed=14)
    expected = per_query["configurations"]
    assert report["configurations"] == expected
    assert report["golden"]["files"] == ["golden/catalog.yaml", "golden/holdout.jsonl"]
    ids = e2e_collected_ids(e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q"))
    assert "golden/holdout.jsonl::share-price[dense]" in ids


def test_a_broken_jsonl_line_is_a_collection_error_naming_the_line(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    (e2e_project / "golden" / "more.jsonl").write_text(
        '{"id": "ok", "query": "fine", "relevant": {}}\n'
        '{"id": "bad", "query": "x", "relevant": {"d": 9}}\n'
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert (
        "golden/more.jsonl:2: query 'bad': grade of 'd' is 9, outside 0..3 (retrieval_max_grade)"
        in result.stdout.str()
    )


def test_items_is_checked(pytester: pytest.Pytester, e2e_project: Path) -> None:
    pytester.makefile(".ini", pytest=E2E_INI + "retrieval_items = shards\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "retrieval_items must be query, category or shard:N (e.g. shard:1000), got 'shards'"
        in e2e_unwrapped(result.stderr.str())
    )


def test_categories_written_alike_as_item_names_make_items_of_their_own() -> None:
    """'a b', 'a-b' and 'a::b' all became the item name 'a-b': each item replaced the one
    before it, and the queries of all but the last category were never evaluated (nor
    named: n counted only the last one's)."""
    from pytest_retrieval.golden import GoldenQuery
    from pytest_retrieval.settings import Items
    from pytest_retrieval.sharding import item_groups

    categories = ["a b", "a-b", "a::b", "a-b-2", "a b"]
    queries = [GoldenQuery(f"q{i}", "t", c) for i, c in enumerate(categories)]
    by_category = item_groups(queries, Items("category"))
    assert [(name, [q.id for q in qs]) for name, qs in by_category] == [
        ("a-b-3", ["q0", "q4"]),  # categories written as item names keep their own
        ("a-b", ["q1"]),
        ("a-b-4", ["q2"]),
        ("a-b-2", ["q3"]),
    ]
    shards = item_groups(queries, Items("shard", 1))
    assert [name for name, _ in shards] == [
        "a-b-3-01",
        "a-b-3-02",
        "a-b-01",
        "a-b-4-01",
        "a-b-2-01",
    ]


def test_every_query_of_categories_written_alike_is_evaluated(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.mkdir("golden")
    (pytester.path / "golden" / "g.jsonl").write_text(
        "".join(
            json.dumps({"id": f"q{i}", "query": "t", "relevant": {"d1": 1}, "category": c}) + "\n"
            for i, c in enumerate(["a b", "a-b", "a::b"])
        )
    )
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef retriever():\n"
        "    return lambda query: ['d1']\n"
    )
    for items in ("category", "shard:5"):
        result = e2e_run(
            pytester, "--retrieval-eval", f"--retrieval-items={items}", "-p", "no:randomly"
        )
        result.assert_outcomes(passed=3)


def test_dash_k_selects_a_category_with_a_space_by_its_item_name_in_every_mode(
    pytester: pytest.Pytester,
) -> None:
    """A category 'long tail' is the item 'long-tail-01' in shards, so `-k long-tail`
    selected it there; per query it selected nothing ('2 deselected'), and `-k` cannot
    take 'long tail' (a space), so the category could not be selected at all."""
    pytester.makeini("[pytest]\n")
    pytester.mkdir("golden")
    (pytester.path / "golden" / "g.jsonl").write_text(
        "".join(
            json.dumps({"id": f"q{i}", "query": "t", "relevant": {"d1": 1}, "category": c}) + "\n"
            for i, c in enumerate(["long tail", "head"])
        )
    )
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef retriever():\n"
        "    return lambda query: ['d1']\n"
    )
    for items in ("query", "shard:5"):
        result = e2e_run(
            pytester, "--retrieval-eval", f"--retrieval-items={items}", "-k", "long-tail"
        )
        result.assert_outcomes(passed=1, deselected=1)
    # a -k that selects nothing names the categories as -k takes them: `-k 'long tail'`
    # is an error ("expected end of input; got identifier")
    result = e2e_run(pytester, "--retrieval-eval", "-k", "nosuchthing")
    said = " ".join(result.stdout.str().split())
    assert "-k takes a category (head, long-tail), a tag or a query id" in said, said


@pytest.mark.parametrize(
    ("given", "fix"),
    [("api reference", "-k api-reference"), ("(api reference) and q1", "-k long-tail")],
)
@pytest.mark.parametrize("extra", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_dash_k_with_a_space_is_a_usage_error_naming_how_a_category_is_written(
    pytester: pytest.Pytester, given: str, fix: str, extra: list[str]
) -> None:
    """pytest said only 'at column 6: expected end of input; got identifier', and under
    pytest-xdist every worker crashed on it (an INTERNALERROR of xdist's)."""
    pytester.makeini("[pytest]\n")
    e2e_write(
        pytester, "golden/g.yaml", "- {id: q1, query: t, relevant: [d1], category: api reference}\n"
    )
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef retriever():\n"
        "    return lambda query: ['d1']\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", "-k", given, *extra)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = " ".join(result.stderr.str().split())
    assert (
        f"-k '{given}' is not an expression pytest can read: -k takes names joined by and, or, "
        "not and parentheses, with no space inside a name; a category with spaces is selected "
        f"with '-' in their place: {fix}"
    ) in error, error
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


NAMES_A_MODULE_USES = [
    "pytestmark",
    "pytest_generate_tests",
    "__getattr__",
    "__dict__",
    "__class__",
]


@pytest.mark.parametrize("items", ["query", "category"])
def test_query_ids_and_categories_that_a_module_uses_make_plain_items(
    pytester: pytest.Pytester, items: str
) -> None:
    """A golden file's items were attributes of a module: a query id (or a category)
    such as 'pytestmark', 'pytest_generate_tests' or '__getattr__' was read by pytest or
    Python as that, and '__dict__' could not be set; collection stopped with the
    plugin's traceback."""
    pytester.makeini("[pytest]\n")
    pytester.mkdir("golden")
    (pytester.path / "golden" / "g.jsonl").write_text(
        "".join(
            json.dumps({"id": name, "query": "t", "relevant": {"d1": 1}, "category": name}) + "\n"
            for name in [*NAMES_A_MODULE_USES, "setup_module", "plain"]
        )
    )
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef retriever():\n"
        "    return lambda query: ['d1']\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", f"--retrieval-items={items}", "-v")
    result.assert_outcomes(passed=7)
    for name in NAMES_A_MODULE_USES:
        result.stdout.fnmatch_lines([f"golden/g.jsonl::{name} PASSED*"])


LARGE_SHARD_CONFTEST = """\
import pytest


class Batched:
    def retrieve_batch(self, queries):
        if any(q.id == "q05" for q in queries):
            raise ConnectionError("the embedding service returned 503")
        return [["d0"] for _ in queries]


@pytest.fixture(scope="session")
def retriever():
    return Batched()
"""


def _large_shard_project(pytester: pytest.Pytester, queries: int) -> None:
    """One category of ``queries`` queries, each expecting mrr 1 of d1 (the retriever
    returns d0: each misses), and a batch retriever whose chunk holding q05 raises."""
    pytester.makeini("[pytest]\nretrieval_batch_size = 10\n")
    pytester.mkdir("golden")
    (pytester.path / "golden" / "g.jsonl").write_text(
        "".join(
            json.dumps({"id": f"q{i:02d}", "query": "t", "relevant": {"d1": 1},
                        "expect": {"mrr": 1.0}}) + "\n"
            for i in range(queries)
        )
    )  # fmt: skip
    pytester.makeconftest(LARGE_SHARD_CONFTEST)


def test_a_batch_calls_error_is_one_line_for_its_chunk_in_a_coarse_items_failure(
    pytester: pytest.Pytester,
) -> None:
    """A chunk whose batch call raised errs every query of it alike: the item's failure
    said so on a line per query ('the same as query ... above', 64 lines for a chunk of
    64); a run of 3 or more consecutive queries with one error is now one line."""
    _large_shard_project(pytester, 13)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=category")
    result.assert_outcomes(failed=1)
    text = e2e_unwrapped(result.stdout.str())
    assert "'uncategorized' [default]: 13 of 13 queries failed (3) or errored (10):" in text
    assert (
        "  golden/g.jsonl:1: query 'q00' and the 9 after it, to 'q09': error: the batch call "
        "raised ConnectionError: the embedding service returned 503\n"
    ) in text
    assert "the same as" not in text
    assert "  golden/g.jsonl:11: query 'q10': expected mrr >= 1, got 0\n" in text


def test_a_coarse_items_failure_lists_the_first_problems_and_counts_the_rest(
    pytester: pytest.Pytester,
) -> None:
    """A shard of 1,000 queries that all miss printed a failure of 1,000 lines (twice
    that once wrapped), per configuration: the first 25 are listed, then a count of the
    others and where they all are (-vv, the JSON report)."""
    _large_shard_project(pytester, 60)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=shard:100")
    result.assert_outcomes(failed=1)
    text = e2e_unwrapped(result.stdout.str())
    assert "'uncategorized-01' [default]: 60 of 60 queries failed (50) or errored (10):" in text
    listed = [line for line in text.splitlines() if line.startswith("  golden/g.jsonl:")]
    listed = [line for line in listed if ": query 'q" in line]
    assert len(listed) == 25  # the chunk of 10 errors as one line, then 24 misses
    assert listed[-1] == "  golden/g.jsonl:34: query 'q33': expected mrr >= 1, got 0"
    assert (
        "  ... and 26 more queries (-vv lists every one; the JSON report has each query's "
        "outcome)\n"
    ) in text
    verbose = e2e_run(pytester, "--retrieval-eval", "--retrieval-items=shard:100", "-vv")
    text = e2e_unwrapped(verbose.stdout.str())
    assert "  golden/g.jsonl:60: query 'q59': expected mrr >= 1, got 0\n" in text
    assert "  ... and" not in text
