"""End to end: JSON, Markdown, terminal and JUnit reports, and -n 2 (CONTRACT §3, §4)."""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    E2E_CATEGORIES,
    E2E_CONFIGS,
    E2E_FILES,
    E2E_JUDGMENTS,
    E2E_METRICS,
    E2E_QUERY_IDS,
    E2E_RANKINGS,
    E2E_RETRIEVER_CONFTEST,
    E2E_TAGS,
    e2e_approx,
    e2e_dedupe,
    e2e_expected_metrics,
    e2e_expected_summary,
    e2e_fmt,
    e2e_junit_cases,
    e2e_junit_properties,
    e2e_load_json,
    e2e_run,
    e2e_tables,
    e2e_without_latency,
    e2e_write,
    e2e_write_project,
)

SETTINGS = {
    "metrics": ["ndcg@10", "mrr", "recall@20"],
    "gain": "exponential",
    "relevance_threshold": 1,
    "max_grade": 3,
    "empty": "abstain",
}
# the contract's keys, and why an item did not pass (its expect/forbid misses, a skip reason)
QUERY_KEYS = {
    "category",
    "tags",
    "outcome",
    "metrics",
    "retrieved",
    "grades",
    "duplicates",
    "merged",
    "error",
    "violations",
    "skip_reason",
    "repeat_overlap",
    "repeat_error",
    "latency_ms",
    "latency_shared",
}


def _row(row: dict[str, Any], metrics: list[str] = E2E_METRICS) -> dict[str, Any]:
    """A summary row reduced to n and the metrics (CONTRACT §6 adds "ci" beside them)."""
    assert set(row) - {"ci"} == {"n", *metrics}
    return {k: row[k] for k in ("n", *metrics)}


def _summary(summary: dict[str, Any], metrics: list[str] = E2E_METRICS) -> dict[str, Any]:
    assert set(summary) == {"all", "categories"}
    return {
        "all": _row(summary["all"], metrics),
        "categories": {c: _row(r, metrics) for c, r in summary["categories"].items()},
    }


def _expected_query(configuration: str, qid: str, depth: int | None = 20) -> dict[str, Any]:
    ranked = E2E_RANKINGS[configuration][qid]
    ranking = e2e_dedupe(ranked)
    return {
        "category": E2E_CATEGORIES[qid],
        "tags": E2E_TAGS[qid],
        "outcome": "passed",
        "metrics": e2e_expected_metrics(configuration, qid),
        "retrieved": ranking if depth is None else ranking[:depth],
        "grades": {
            d: g
            for d, g in sorted(E2E_JUDGMENTS[qid].items())
            if d in (ranking if depth is None else ranking[:depth])
        },
        "duplicates": len(ranked) - len(ranking),
        "merged": 0,  # no pytest_retrieval_result_key: ids are the judgment keys
        "error": None,
        "violations": [],
        "skip_reason": None,
        "repeat_overlap": None,
        "repeat_error": None,
    }


# --------------------------------------------------------------------------- JSON


def test_the_json_report_holds_what_contract_section_4_says(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "out/report.json")
    result.assert_outcomes(passed=14)
    report = e2e_load_json(pytester.path / "out" / "report.json")

    # §5/§6 add "gate", "comparisons"...; the §4 keys are all there, as specified
    assert {"format", "version", "settings", "golden", "configurations"} <= set(report)
    assert report["format"] == "pytest-retrieval-report"
    assert report["version"] == 1
    assert report["settings"] == SETTINGS
    golden = report["golden"]
    assert set(golden) == {"files", "queries", "sha256"}
    assert golden["files"] == ["golden/catalog.yaml", "golden/holdout.yml"]
    assert golden["queries"] == 7
    assert re.fullmatch(r"[0-9a-f]{64}", golden["sha256"])

    assert list(report["configurations"]) == E2E_CONFIGS
    for configuration in E2E_CONFIGS:
        block = report["configurations"][configuration]
        assert set(block) == {"retriever", "retriever_kind", "summary", "latency", "queries"}
        assert block["latency"]["n"] == 7 and block["latency"]["batch_share"] == 0
        assert 0 <= block["latency"]["p50_ms"] <= block["latency"]["max_ms"]
        assert block["retriever"] == {}  # this project's retriever does not describe itself
        assert _summary(block["summary"]) == e2e_approx(e2e_expected_summary(configuration))
        assert sorted(block["queries"]) == sorted(E2E_QUERY_IDS)
        for qid, record in block["queries"].items():
            assert set(record) == QUERY_KEYS, qid
            assert record.pop("latency_ms") >= 0 and record.pop("latency_shared") is False
            assert record == e2e_approx(_expected_query(configuration, qid)), (configuration, qid)

    # spot checks against hand-computed values
    bm25 = report["configurations"]["bm25"]["queries"]
    dense = report["configurations"]["dense"]["queries"]
    assert bm25["rain-tomorrow"]["metrics"]["mrr"] == 0.5
    assert bm25["umbrella-needed"]["metrics"]["ndcg@10"] == pytest.approx(0.5, abs=1e-12)
    assert bm25["teleport-ticket"]["metrics"] == {"ndcg@10": 0.0, "mrr": 0.0, "recall@20": 0.0}
    assert dense["teleport-ticket"]["metrics"] == {"ndcg@10": 1.0, "mrr": 1.0, "recall@20": 1.0}
    assert bm25["share-price"]["metrics"]["mrr"] == pytest.approx(1 / 22, abs=1e-12)
    assert bm25["share-price"]["metrics"]["recall@20"] == 0.0
    assert dense["rain-tomorrow"]["duplicates"] == 1
    assert dense["rain-tomorrow"]["retrieved"] == ["weather-forecast", "tide-tables"]
    assert dense["share-price"]["duplicates"] == 2
    # retrieved: the first max(k) = 20 ids as ranked, not all 25
    assert bm25["share-price"]["retrieved"] == [f"noise-{i:02d}" for i in range(1, 21)]
    assert report["configurations"]["bm25"]["summary"]["all"]["n"] == 7
    assert report["configurations"]["bm25"]["summary"]["categories"]["lexical"]["n"] == 2


def test_summary_means_are_the_means_of_the_per_query_values(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    report = e2e_load_json(pytester.path / "r.json")
    for configuration, block in report["configurations"].items():
        queries = block["queries"]
        rows = {"all": list(queries), **{c: [] for c in block["summary"]["categories"]}}
        for qid, record in queries.items():
            rows[record["category"]].append(qid)
        for name, qids in rows.items():
            row = block["summary"]["all" if name == "all" else "categories"]
            row = row if name == "all" else row[name]
            assert row["n"] == len(qids)
            for metric in E2E_METRICS:
                values = [queries[q]["metrics"][metric] for q in qids]
                assert row[metric] == math.fsum(values) / len(values), (configuration, name)


def test_the_golden_digest_changes_with_a_judgment_and_only_then(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "a.json")
    e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "b.json")
    first = e2e_load_json(pytester.path / "a.json")["golden"]["sha256"]
    assert e2e_load_json(pytester.path / "b.json")["golden"]["sha256"] == first
    catalog = pytester.path / "golden" / "catalog.yaml"
    catalog.write_text(
        catalog.read_text().replace("weather-forecast: 2, tide-tables: 0", "weather-forecast: 3"),
        encoding="utf-8",
    )
    e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "c.json")
    assert e2e_load_json(pytester.path / "c.json")["golden"]["sha256"] != first


def test_settings_block_uses_canonical_names_and_retrieved_follows_the_largest_cut(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(
        pytester,
        ini=(
            "[pytest]\nretrieval_golden = golden\nretrieval_metrics = nDCG@5 RR P@3\n"
            "retrieval_gain = linear\nretrieval_relevance_threshold = 2\n"
            "retrieval_max_grade = 4\nretrieval_empty = zero\n"
            "retrieval_items = category\nretrieval_latency_budget = p95=2s dense:max=3s\n"
        ),
    )
    e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report", "r.json", "--retrieval-timeout=500ms"
    )
    report = e2e_load_json(pytester.path / "r.json")
    assert report["settings"] == {
        "metrics": ["ndcg@5", "mrr", "precision@3"],
        "gain": "linear",
        "relevance_threshold": 2,
        "max_grade": 4,
        "empty": "zero",
    }
    # how the retrievers were called: beside the settings, not among them (a baseline
    # compares the settings that decide the numbers)
    assert report["run"] == {
        "items": "category",
        "timeout_s": 0.5,
        "batch_size": 64,
        "concurrency": 16,
        "repeat": 1,
        "latency_budget": ["p95=2s", "dense:max=3s"],
        "record": None,
        "replay": [],
    }
    bm25 = report["configurations"]["bm25"]["queries"]
    assert bm25["share-price"]["retrieved"] == [f"noise-{i:02d}" for i in range(1, 6)]
    assert set(bm25["rain-tomorrow"]["metrics"]) == {"ndcg@5", "mrr", "precision@3"}
    # threshold 2: weather-forecast-stuffed (grade 1) is not relevant, weather-forecast (3) is
    assert bm25["rain-tomorrow"]["metrics"]["mrr"] == pytest.approx(1 / 3, abs=1e-12)
    assert bm25["rain-tomorrow"]["metrics"]["precision@3"] == pytest.approx(1 / 3, abs=1e-12)
    # linear gain: DCG = 1/log2(3) + 3/log2(4), IDCG = 3 + 1/log2(3)
    ndcg = (1 / math.log2(3) + 3 / 2) / (3 + 1 / math.log2(3))
    assert bm25["rain-tomorrow"]["metrics"]["ndcg@5"] == pytest.approx(ndcg, abs=1e-12)
    # empty = zero: a no-result query scores 0.0 even when the retriever abstains
    dense = report["configurations"]["dense"]["queries"]
    assert dense["teleport-ticket"]["metrics"] == {"ndcg@5": 0.0, "mrr": 0.0, "precision@3": 0.0}


def test_retrieved_holds_every_id_when_no_metric_has_a_cut(pytester: pytest.Pytester) -> None:
    e2e_write_project(
        pytester, ini="[pytest]\nretrieval_golden = golden\nretrieval_metrics = mrr map\n"
    )
    e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    report = e2e_load_json(pytester.path / "r.json")
    assert report["settings"]["metrics"] == ["mrr", "map"]
    for configuration in E2E_CONFIGS:
        for qid, record in report["configurations"][configuration]["queries"].items():
            assert record["retrieved"] == e2e_dedupe(E2E_RANKINGS[configuration][qid])
    assert len(report["configurations"]["bm25"]["queries"]["share-price"]["retrieved"]) == 25


def test_empty_skip_gives_null_metrics_and_means_over_the_rest(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, ini="[pytest]\nretrieval_golden = golden\nretrieval_empty = skip\n")
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report", "r.json", "--retrieval-report", "r.md"
    )
    result.assert_outcomes(passed=14)
    report = e2e_load_json(pytester.path / "r.json")
    assert report["settings"]["empty"] == "skip"
    for configuration in E2E_CONFIGS:
        block = report["configurations"][configuration]
        record = block["queries"]["teleport-ticket"]
        assert record["metrics"] == {"ndcg@10": None, "mrr": None, "recall@20": None}
        assert record["outcome"] == "passed"
        expected = e2e_expected_summary(configuration, empty="skip")
        others = [q for q in E2E_QUERY_IDS if q != "teleport-ticket"]
        for metric in E2E_METRICS:
            mean = math.fsum(block["queries"][q]["metrics"][metric] for q in others) / 6
            assert block["summary"]["all"][metric] == mean
            assert mean == pytest.approx(expected["all"][metric], abs=1e-12)
        no_result = block["summary"]["categories"]["no-result"]
        assert [no_result[m] for m in E2E_METRICS] == [None, None, None]
    # shown as n/a in the tables
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    rows = {r[0]: r for r in e2e_tables(markdown)[0]["rows"]}
    assert rows["no-result"][2:] == ["n/a", "n/a", "n/a"]
    # the terminal's first table is ndcg@10's: no value for either configuration, n = 0
    terminal = {r[0]: r for r in e2e_tables(result.stdout.str())[0]["rows"]}
    assert terminal["no-result"][1:] == ["0", "n/a", "n/a"]
    assert terminal["all"][1] == "6"  # the mean is over 6 queries, not the 7 evaluated


def test_the_html_report_says_a_mean_is_over_fewer_queries_as_the_tables_do(
    pytester: pytest.Pytester,
) -> None:
    """retrieval_empty = skip: the overview's cell and the bar's tooltip say the mean is
    over 6 queries, as the terminal's and the Markdown's ``(n=6)`` do, not the row's 7."""
    e2e_write_project(pytester, ini="[pytest]\nretrieval_golden = golden\nretrieval_empty = skip\n")
    e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report", "r.md", "--retrieval-report=r.html",
        "--junitxml=j.xml",
    )  # fmt: skip
    props = e2e_junit_properties(pytester.path / "j.xml")
    teleport = props[f"golden.catalog.yaml::teleport-ticket[{E2E_CONFIGS[0]}]"]
    assert [teleport[m] for m in E2E_METRICS] == ["n/a"] * len(E2E_METRICS)  # as documented
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    assert "(n=6)" in {r[0]: r for r in e2e_tables(markdown)[0]["rows"]}["all"][2]
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    overview = page.split('<table class="overview">')[1].split("</table>")[0]
    assert overview.count("(n=6)") == len(E2E_CONFIGS) * len(E2E_METRICS)
    tips = re.findall(r"<title>([^<]*) · all: [^<]*, n=(\d+)</title>", page)
    assert tips and {n for _, n in tips} == {"6"}


# --------------------------------------------------------------------------- tables


def _expected_rows(configuration: str) -> tuple[list[list[str]], list[str]]:
    summary = e2e_expected_summary(configuration)

    def cells(label: str, row: dict[str, Any]) -> list[str]:
        return [label, str(row["n"]), *(e2e_fmt(row[m]) for m in E2E_METRICS)]

    categories = [cells(c, r) for c, r in summary["categories"].items()]
    return categories, cells("all", summary["all"])


def _check_tables(text: str) -> None:
    tables = e2e_tables(text)
    assert len(tables) >= 3, text
    for table, configuration in zip(tables[:2], E2E_CONFIGS, strict=True):
        assert configuration in table["title"], table
        assert table["header"][1:] == ["n", *E2E_METRICS]
        categories, all_row = _expected_rows(configuration)
        # a row per category, then all
        assert sorted(table["rows"][:-1]) == sorted(categories)
        assert table["rows"][-1] == all_row
    side = tables[2]
    assert side["header"][1:] == ["n", *E2E_METRICS]
    assert side["rows"] == [
        [configuration, *_expected_rows(configuration)[1][1:]] for configuration in E2E_CONFIGS
    ]


def _check_metric_tables(text: str) -> None:
    """Default view: a table per metric, categories by configurations side by side."""
    tables = e2e_tables(text)
    assert [t["title"].split(":")[0] for t in tables[: len(E2E_METRICS)]] == E2E_METRICS
    for table, metric in zip(tables, E2E_METRICS, strict=False):
        assert table["header"] == ["category", "n", *E2E_CONFIGS]
        for label, n, *cells in table["rows"]:
            for configuration, got in zip(E2E_CONFIGS, cells, strict=True):
                summary = e2e_expected_summary(configuration)
                row = summary["all"] if label == "all" else summary["categories"][label]
                assert (n, got.rstrip("*")) == (str(row["n"]), e2e_fmt(row[metric]))


@pytest.mark.parametrize("verbosity", [[], ["-q"], ["-v"]], ids=["default", "quiet", "verbose"])
def test_the_terminal_shows_tables_short_by_default_more_with_v(
    pytester: pytest.Pytester, e2e_project: Path, verbosity: list[str]
) -> None:
    result = e2e_run(pytester, "--retrieval-eval", *verbosity)
    result.assert_outcomes(passed=14)
    output = result.stdout.str()
    assert "retrieval evaluation" in output
    section = output.split("retrieval evaluation", 1)[1]
    if verbosity == ["-q"]:  # the all rows side by side, nothing else
        (side,) = e2e_tables(section)
        assert side["rows"] == [
            [configuration, *_expected_rows(configuration)[1][1:]] for configuration in E2E_CONFIGS
        ]
        return
    _check_metric_tables(section)
    if verbosity == ["-v"]:  # then each configuration's table and the all rows
        _check_tables(section.split("configuration: ", 1)[1])
    else:
        assert "configuration: bm25" not in section
    # spot check: the ndcg@10 table's all row, rounded to 3 decimals
    assert re.search(r"^all\s+7\s+0\.466\b.*0\.809\b", output, re.M), output


def test_a_report_written_is_named_as_given_from_the_folder_pytest_ran_in(
    pytester: pytest.Pytester, e2e_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Every other path the plugin prints is relative; the report's was absolute."""
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "r.md"
    result = e2e_run(
        pytester,
        "--retrieval-eval",
        "--retrieval-report=out/r.json",
        f"--retrieval-report={elsewhere}",
    )
    assert "retrieval report written: out/r.json" in result.stdout.lines
    assert f"retrieval report written: {elsewhere}" in result.stdout.lines  # not below: whole


LONG_NAMES = ["hybrid-reranker-cross-encoder-minilm-k1", "hybrid-reranker-cross-encoder-minilm-k2"]


def test_long_names_that_share_their_start_are_not_cut_alike_in_the_terminal(
    pytester: pytest.Pytester,
) -> None:
    """Cut to 28 characters, both would read ``hybrid-reranker-cross-encod…``: they stay
    whole, so -q's one table (and -v's side-by-side one) tells them apart."""
    conftest = E2E_RETRIEVER_CONFTEST.replace(
        'params=["bm25", "dense"]', f"params={LONG_NAMES!r}"
    ).replace(
        "table = RANKINGS[request.param]",
        "table = RANKINGS['bm25' if request.param.endswith('k1') else 'dense']",
    )
    e2e_write_project(pytester, conftest=conftest)
    for verbosity in ("-q", "-v"):
        result = e2e_run(pytester, "--retrieval-eval", verbosity)
        result.assert_outcomes(passed=14)
        section = result.stdout.str().split("retrieval evaluation", 1)[1]
        assert "…" not in section, section
        for name in LONG_NAMES:
            assert re.search(rf"^{name}\s+7\s", section, re.M), section
    # the lines that name them fit the width too: the baseline's, -v's retriever kinds
    update = e2e_run(pytester, "--retrieval-eval", "-v", "--retrieval-update-baseline")
    section = update.stdout.str().split("retrieval evaluation", 1)[1]
    assert "retrieval baseline written: golden/baseline.json" in section
    assert "retrievers, as the plugin calls them:" in section
    assert max(len(line) for line in section.splitlines()[1:]) <= 80, section


def test_the_paired_comparison_lists_configurations_in_the_order_of_the_other_tables(
    pytester: pytest.Pytester,
) -> None:
    """params bm25, zeta, dense: -v's comparison rows are zeta's then dense's, as the
    tables above them (not sorted by name, which put dense first)."""
    conftest = E2E_RETRIEVER_CONFTEST.replace(
        'params=["bm25", "dense"]', 'params=["bm25", "zeta", "dense"]'
    ).replace(
        "table = RANKINGS[request.param]",
        "table = RANKINGS['bm25' if request.param == 'zeta' else request.param]",
    )
    e2e_write_project(pytester, conftest=conftest)
    result = e2e_run(pytester, "--retrieval-eval", "-v")
    section = result.stdout.str().split("paired comparison with bm25", 1)[1]
    names = re.findall(r"^(zeta|dense)\s+all\s", section, re.M)
    assert names[:2] == ["zeta", "dense"], section


def test_the_markdown_report_has_a_table_per_configuration_and_side_by_side(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "summary.md")
    markdown = (pytester.path / "summary.md").read_text(encoding="utf-8")
    assert "| category" in markdown
    assert re.search(r"^\|[-|: ]+\|$", markdown, re.M)  # a GitHub table separator
    _check_tables(markdown)


def test_json_and_markdown_in_one_run(pytester: pytest.Pytester, e2e_project: Path) -> None:
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report", "r.json", "--retrieval-report", "r.md"
    )
    result.assert_outcomes(passed=14)
    assert e2e_load_json(pytester.path / "r.json")["format"] == "pytest-retrieval-report"
    assert "bm25" in (pytester.path / "r.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", ["report.txt", "report", "report.jsonl"])
def test_a_report_path_with_a_bad_suffix_is_a_usage_error(
    pytester: pytest.Pytester, e2e_project: Path, path: str
) -> None:
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", path)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert path in result.stderr.str()
    assert "--retrieval-report" in result.stderr.str()
    assert not (pytester.path / path).exists()


def test_an_html_report_is_written(pytester: pytest.Pytester, e2e_project: Path) -> None:
    """CONTRACT §4: `.json`, `.md` or `.html` by suffix."""
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "report.html")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    html = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert "<table" in html.lower()
    assert "bm25" in html
    assert "dense" in html
    assert "0.466" in html


def test_the_html_dot_chart_holds_every_query_when_the_table_keeps_a_part(
    pytester: pytest.Pytester, e2e_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the table's row limit (5,000) the page keeps the rows that need a look; the
    'Every query' chart drew its dots, n and mean from those kept rows only, so at 50,000
    queries a lane said 'mean 0.065, n=3625' beside a summary of 0.344 over 50,000."""
    from pytest_retrieval.report import html_data

    monkeypatch.setattr(html_data, "MAX_ROWS", 4)  # 14 rows: 7 queries x bm25, dense
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report=r.html", "--retrieval-report=r.json"
    )
    result.assert_outcomes(passed=14)
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "4 rows; of 14:" in html  # the table keeps a part, and says so
    report = e2e_load_json(pytester.path / "r.json")
    section = html.split('data-metric-section="mrr"', 1)[1].split("</section>", 1)[0]
    for name in ("bm25", "dense"):
        lane = section.split(f'data-configuration="{name}"', 1)[1].split("</g>", 1)[0]
        mean = report["configurations"][name]["summary"]["all"]["mrr"]
        assert f"mean {mean:.3f}" in lane and "n=7" in lane
        assert lane.count('class="dot"') == 7


# --------------------------------------------------------------------------- atomic writes


OLD_REPORT = '{"format": "pytest-retrieval-report", "old": true}\n'  # one of its own


def test_reports_are_written_to_a_temporary_file_then_renamed_over(
    pytester: pytest.Pytester, e2e_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = pytester.path / "report.json"
    target.write_text(OLD_REPORT, encoding="utf-8")
    seen: list[tuple[str, str, str]] = []
    real_replace = os.replace

    def spying_replace(src: Any, dst: Any, **kwargs: Any) -> None:
        if Path(dst).name == "report.json":
            # at the moment of the rename: the new content is complete, the old intact
            seen.append((str(src), Path(src).read_text("utf-8"), Path(dst).read_text("utf-8")))
        real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", spying_replace)
    result = e2e_run(
        pytester, "-p", "no:cacheprovider", "--retrieval-eval", "--retrieval-report", "report.json"
    )
    result.assert_outcomes(passed=14)
    assert len(seen) == 1
    ((src, new, old),) = seen
    assert Path(src).parent == pytester.path
    assert old == OLD_REPORT
    assert new == target.read_text(encoding="utf-8")
    assert e2e_load_json(target)["format"] == "pytest-retrieval-report"
    assert sorted(p.name for p in pytester.path.iterdir() if "report" in p.name) == ["report.json"]


def test_a_failed_report_write_leaves_the_old_report_and_no_debris(
    pytester: pytest.Pytester, e2e_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = pytester.path / "report.json"
    target.write_text(OLD_REPORT, encoding="utf-8")
    real_replace = os.replace

    def failing_replace(src: Any, dst: Any, **kwargs: Any) -> None:
        if Path(dst).name == "report.json":
            raise OSError(28, "No space left on device")
        real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", failing_replace)
    result = e2e_run(
        pytester, "-p", "no:cacheprovider", "--retrieval-eval", "--retrieval-report", "report.json"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "No space left on device" in result.stdout.str()
    assert target.read_text(encoding="utf-8") == OLD_REPORT
    assert sorted(p.name for p in pytester.path.iterdir() if "report" in p.name) == ["report.json"]


def test_a_report_that_cannot_be_written_is_a_clean_error(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    """A demanding user's expectation (CONTRACT is silent): a message, not a crash."""
    (pytester.path / "blocker").write_text("a file where a folder is needed", encoding="utf-8")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "blocker/report.json")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret not in (pytest.ExitCode.OK, pytest.ExitCode.INTERNAL_ERROR)
    assert "blocker/report.json" in output
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output


# --------------------------------------------------------------------------- JUnit


def test_junit_testcases_carry_configuration_category_and_metrics(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(
        pytester, "--retrieval-eval", "--junitxml", "junit.xml", "--retrieval-report", "r.json"
    )
    result.assert_outcomes(passed=14)
    props = e2e_junit_properties(pytester.path / "junit.xml")
    report = e2e_load_json(pytester.path / "r.json")
    # JUnit's classname is the path with dots: golden.catalog.yaml
    items = {
        f"{E2E_FILES[q].replace('/', '.')}::{q}[{c}]": (c, q)
        for q in E2E_QUERY_IDS
        for c in E2E_CONFIGS
    }
    assert "golden.catalog.yaml::rain-tomorrow[bm25]" in items
    assert set(items) <= set(props)
    for key, (configuration, qid) in items.items():
        got = props[key]
        assert set(got) >= {"configuration", "category", *E2E_METRICS}, key
        assert got["configuration"] == configuration
        assert got["category"] == E2E_CATEGORIES[qid]
        expected = e2e_expected_metrics(configuration, qid)
        recorded = report["configurations"][configuration]["queries"][qid]["metrics"]
        for metric in E2E_METRICS:
            assert float(got[metric]) == recorded[metric], (key, metric)
            assert float(got[metric]) == pytest.approx(expected[metric], abs=1e-12)
    assert props["golden.catalog.yaml::rain-tomorrow[bm25]"]["mrr"] in ("0.5", "0.500", "0.50")


# --------------------------------------------------------------------------- failure messages

STRICT_YAML = """\
queries:
  - id: strict-rain
    query: is it going to rain tomorrow
    category: paraphrase
    relevant:
      weather-forecast: 3
      weather-forecast-stuffed: 1
      tide-tables: 0
    expect: {mrr: 1.0, ndcg@10: 0.9}
  - id: no-archive
    query: forecast not history
    category: adversarial
    relevant: {weather-forecast: 3}
    expect: {mrr: 0.5}
    forbid: [weather-archive, fx-rates]
"""

STRICT_CONFTEST = """\
import pytest


@pytest.fixture(params=["bm25"])
def retriever(request):
    ranked = {
        "strict-rain": [
            "weather-archive", "tide-tables", "weather-forecast-stuffed", "weather-forecast",
        ],
        "no-archive": ["weather-forecast", "noise-01", "weather-archive"],
    }
    return lambda query: ranked[query.id]
"""


def test_expect_and_forbid_failures_show_the_ranking_with_grades_and_the_expectation(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_golden = golden\n")
    pytester.makeconftest(STRICT_CONFTEST)
    e2e_write(pytester, "golden/strict.yaml", STRICT_YAML)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report", "r.json")
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    strict = output.split("strict-rain[bm25]", 1)[1].split("no-archive[bm25]", 1)[0]
    # what was expected, and what came instead
    assert re.search(r"mrr\b.*\b1(\.0+)?\b.*0\.333", strict), strict
    assert re.search(r"ndcg@10\b.*0\.9\b.*0\.46", strict), strict
    # the ranking, judged grades beside the ids (unjudged shown as such, not as a grade)
    assert re.search(r"\b1\W+weather-archive\s+(-|unjudged|\?)", strict), strict
    assert re.search(r"\b2\W+tide-tables\W+0\b", strict), strict
    assert re.search(r"\b3\W+weather-forecast-stuffed\W+1\b", strict), strict
    assert re.search(r"\b4\W+weather-forecast\W+3\b", strict), strict

    archive = output.split("no-archive[bm25]", 1)[1]
    assert re.search(r"forbid.*weather-archive.*\b3\b|weather-archive.*forbid", archive, re.I)
    assert re.search(r"\b1\W+weather-forecast\W+3\b", archive), archive
    assert re.search(r"\b3\W+weather-archive\b", archive), archive

    report = e2e_load_json(pytester.path / "r.json")
    queries = report["configurations"]["bm25"]["queries"]
    assert queries["strict-rain"]["outcome"] == "failed"
    assert queries["strict-rain"]["error"] is None
    assert queries["strict-rain"]["metrics"]["mrr"] == pytest.approx(1 / 3, abs=1e-12)
    assert queries["no-archive"]["outcome"] == "failed"
    assert queries["no-archive"]["metrics"]["mrr"] == 1.0


def _junit_failures(path: Path) -> dict[str, tuple[str, str]]:
    """Each failed testcase's name -> its failure's ``message`` attribute and text."""
    found = {}
    for case in ET.parse(path).iter("testcase"):
        failure = case.find("failure")
        if failure is not None:
            found[case.get("name", "")] = (failure.get("message", ""), failure.text or "")
    return found


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "xdist"])
def test_a_failure_s_junit_message_is_one_line_whatever_the_terminal_width(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: bool
) -> None:
    """The JUnit ``message``, the short summary and ``--tb=line`` get the query, its golden
    line and what was violated on one line, not the text wrapped for a narrow terminal;
    the FAILURES section still fits that terminal."""
    if xdist:
        pytest.importorskip("xdist")
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_golden = golden\n")
    pytester.makeconftest(STRICT_CONFTEST)
    e2e_write(pytester, "golden/strict.yaml", STRICT_YAML)
    monkeypatch.setenv("COLUMNS", "50")
    args = ["--retrieval-eval", "--junitxml=out.xml", "-p", "no:randomly", "-W", "ignore"]
    run = _subprocess if xdist else e2e_run
    result = run(pytester, *args, *(["-n", "2"] if xdist else []))
    result.assert_outcomes(failed=2)
    failures = _junit_failures(pytester.path / "out.xml")
    message, text = failures["no-archive[bm25]"]
    assert message == (
        "ExpectationFailed: query 'no-archive' [bm25] (golden/strict.yaml:10): "
        "forbidden 'weather-archive' came back at rank 3"
    )
    assert text.startswith(
        "query 'no-archive' [bm25] (golden/strict.yaml:10): 'forecast not history'\n"
    )
    strict_message = failures["strict-rain[bm25]"][0]
    assert "\n" not in strict_message and "expected mrr >= 1, got 0.333" in strict_message
    output = result.stdout.str()
    section = output.split("= FAILURES =", 1)[1].split("short test summary", 1)[0]
    pytest_s_own = ("- generated xml file", "[gw")  # pytest's and xdist's lines
    too_long = [s for s in section.splitlines() if len(s) > 50 and not s.startswith(pytest_s_own)]
    assert too_long == []
    assert "forbidden 'weather-archive' came back at rank 3" in section

    line = _subprocess(pytester, *args, "--tb=line", *(["-n", "2"] if xdist else []))
    assert f"golden/strict.yaml:10: {message}" in line.stdout.lines


# --------------------------------------------------------------------------- xdist


def _subprocess(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:hypothesispytest", *args, timeout=120)


def test_dash_n_2_prints_the_same_tables_and_writes_the_same_reports(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    pytest.importorskip("xdist")
    common = ["--retrieval-eval"]
    serial = e2e_run(
        pytester, *common, "--retrieval-report", "serial.json", "--junitxml", "serial.xml"
    )
    serial.assert_outcomes(passed=14)
    parallel = _subprocess(
        pytester,
        *common,
        "-n",
        "2",
        "--retrieval-report",
        "xdist.json",
        "--junitxml",
        "xdist.xml",
    )
    parallel.assert_outcomes(passed=14)
    assert "2 workers" in parallel.stdout.str()

    serial_json = e2e_without_latency(e2e_load_json(pytester.path / "serial.json"))
    xdist_json = e2e_without_latency(e2e_load_json(pytester.path / "xdist.json"))
    assert xdist_json == serial_json

    serial_tables = e2e_tables(serial.stdout.str().split("retrieval evaluation", 1)[1])
    xdist_tables = e2e_tables(parallel.stdout.str().split("retrieval evaluation", 1)[1])
    assert xdist_tables == serial_tables
    _check_metric_tables(parallel.stdout.str().split("retrieval evaluation", 1)[1])

    serial_props = e2e_junit_properties(pytester.path / "serial.xml")
    xdist_props = e2e_junit_properties(pytester.path / "xdist.xml")
    assert xdist_props == serial_props
    assert len([k for k in xdist_props if "::" in k and "[" in k]) == 14
    assert e2e_junit_cases(pytester.path / "xdist.xml") == e2e_junit_cases(
        pytester.path / "serial.xml"
    )


def test_the_html_report_shows_the_latency_the_markdown_report_shows(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    """README (Latency): the latency table is in the Markdown and HTML reports, with the
    same p50 / p95 / max per configuration."""
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report=r.md", "--retrieval-report=r.html"
    )
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    rows = markdown.split("### latency per query", 1)[1].split("\n\n", 2)[1].splitlines()[2:]
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    table = html.split('id="latency"', 1)[1].split("</table>", 1)[0]
    assert len(rows) == len(E2E_CONFIGS) == table.count("<tr>") - 1
    for row in rows:
        name, n, *times = (c.strip() for c in row.strip("|").split("|"))
        assert f'{name}</th><td class="num">{n}</td>' in table
        assert "".join(f'<td class="num">{t}</td>' for t in times) in table


def test_ctrl_c_while_the_reports_are_written_names_those_left_unwritten(
    pytester: pytest.Pytester, e2e_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No traceback: the JSON report is written, the Markdown one interrupted, and the
    run says so and exits as interrupted."""
    from pytest_retrieval.report import writers

    def interrupted(report: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setitem(writers.WRITERS, ".md", interrupted)
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-report=r.json", "--retrieval-report=r.md"
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = " ".join((result.stdout.str() + result.stderr.str()).split())
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "retrieval report NOT written: " in out and "r.md: interrupted" in out
    assert (pytester.path / "r.json").exists() and not (pytester.path / "r.md").exists()
    assert [p.name for p in pytester.path.iterdir() if p.name.startswith(".r.")] == []
