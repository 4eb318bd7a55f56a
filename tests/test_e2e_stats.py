"""End to end: intervals, paired comparisons, warnings, tag groups, weights, significant gate.

Self-contained (CONTRACT §6 and the statistics issue): each test writes its own small
project for ``pytester``: a golden set built here, and a retriever fixture that answers
from a ``rankings.json`` table, so a test can change the answers between two runs.

Every query has one relevant document, placed by the table at a chosen rank r, so the
values are known without any metric code: mrr = 1/r, recall@5 = [r <= 5].
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from references import holm_reference  # beside this file

from pytest_retrieval.io.report_json import read_report

QUIET = ("-W", "ignore::pytest.PytestAssertRewriteWarning")
METRICS = ["mrr", "recall@5", "ndcg@10"]

CONFTEST = """\
import json
import pathlib

import pytest

HERE = pathlib.Path(__file__).parent
CONFIGURATIONS = json.loads((HERE / "configurations.json").read_text())


@pytest.fixture(params=CONFIGURATIONS)
def retriever(request):
    table = json.loads((HERE / "rankings.json").read_text())[request.param]

    def search(query):
        return table[query.id]

    return search
"""


# --------------------------------------------------------------------------- the project


def ranking(qid: str, rank: int, length: int = 10) -> list[str]:
    """Ten ids with the query's one relevant document at ``rank`` (0: not returned)."""
    out = [f"noise-{i}" for i in range(1, length)]
    if rank:
        out.insert(rank - 1, f"doc-{qid}")
    return out[:length]


def main_queries() -> list[dict[str, Any]]:
    """a: 24 queries (sparse much worse), b: 8 mixed queries, easy: 5 saturated queries."""
    queries = []
    for i in range(24):
        tags = (["core"] if i % 2 == 0 else []) + (["rolling"] if i % 3 == 0 else [])
        queries.append({"id": f"a{i:02d}", "category": "a", "tags": tags})
    for i in range(8):
        queries.append({"id": f"b{i}", "category": "b", "tags": ["rolling" if i < 5 else "dev"]})
    for i in range(5):
        queries.append({"id": f"easy{i}", "category": "easy", "tags": []})
    return queries


MAIN_RANKS: dict[str, dict[str, int]] = {
    "sparse": {
        **{f"a{i:02d}": [2, 3, 4, 2, 5, 3][i % 6] for i in range(24)},
        **{f"b{i}": r for i, r in enumerate([1, 7, 2, 1, 3, 8, 1, 2])},
        **{f"easy{i}": 1 for i in range(5)},
    },
    "dense": {
        **{f"a{i:02d}": 4 if i in (5, 17) else 1 for i in range(24)},
        **{f"b{i}": r for i, r in enumerate([2, 1, 1, 3, 1, 2, 1, 4])},
        **{f"easy{i}": 1 for i in range(5)},
    },
}

# params order: "sparse" first although "dense" sorts first
MAIN_CONFIGURATIONS = ["sparse", "dense"]


def write_project(
    pytester: pytest.Pytester,
    queries: Sequence[Mapping[str, Any]],
    ranks: Mapping[str, Mapping[str, int]],
    ini: str = "",
    configurations: Sequence[str] | None = None,
) -> Path:
    golden = []
    for q in queries:
        entry = {
            "id": q["id"],
            "query": f"text of {q['id']}",
            "category": q["category"],
            "relevant": {f"doc-{q['id']}": 1},
        }
        if q.get("tags"):
            entry["tags"] = list(q["tags"])
        golden.append(entry)
    (pytester.path / "golden").mkdir(exist_ok=True)
    (pytester.path / "golden" / "set.yaml").write_text(
        yaml.safe_dump({"queries": golden}, sort_keys=False), encoding="utf-8"
    )
    pytester.makeconftest(CONFTEST)
    (pytester.path / "configurations.json").write_text(
        json.dumps(list(configurations or ranks)), encoding="utf-8"
    )
    set_ranks(pytester, ranks)
    pytester.makefile(
        ".ini",
        pytest=(
            "[pytest]\nretrieval_golden = golden\n"
            f"retrieval_metrics = {' '.join(METRICS)}\nretrieval_bootstrap = 2000\n" + ini
        ),
    )
    return pytester.path


def set_ranks(pytester: pytest.Pytester, ranks: Mapping[str, Mapping[str, int]]) -> None:
    table = {c: {q: ranking(q, r) for q, r in per.items()} for c, per in ranks.items()}
    (pytester.path / "rankings.json").write_text(json.dumps(table), encoding="utf-8")


def write_main(pytester: pytest.Pytester, ini: str = "") -> Path:
    return write_project(
        pytester, main_queries(), MAIN_RANKS, ini, configurations=MAIN_CONFIGURATIONS
    )


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each table row on one line: these tests read rows (the width has its own tests)."""
    monkeypatch.setenv("COLUMNS", "200")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*QUIET, "--retrieval-eval", *args)


def run_report(
    pytester: pytest.Pytester, *args: str, name: str = "report"
) -> tuple[pytest.RunResult, dict[str, Any], str]:
    """Run with a JSON and a Markdown report; return the result, the JSON and the Markdown."""
    result = run(
        pytester, f"--retrieval-report={name}.json", f"--retrieval-report={name}.md", *args
    )
    report = json.loads((pytester.path / f"{name}.json").read_text(encoding="utf-8"))
    markdown = (pytester.path / f"{name}.md").read_text(encoding="utf-8")
    return result, report, markdown


# --------------------------------------------------------------------------- references


def expected_value(metric: str, rank: int) -> float:
    if metric == "mrr":
        return 1 / rank if rank else 0.0
    if metric == "recall@5":
        return 1.0 if 0 < rank <= 5 else 0.0
    if metric == "ndcg@10":
        return 1 / math.log2(rank + 1) if 0 < rank <= 10 else 0.0
    raise AssertionError(metric)


def query_values(report: Mapping[str, Any], configuration: str, metric: str) -> dict[str, float]:
    queries = report["configurations"][configuration]["queries"]
    return {qid: q["metrics"][metric] for qid, q in queries.items()}


def categories(report: Mapping[str, Any], configuration: str) -> dict[str, str]:
    queries = report["configurations"][configuration]["queries"]
    return {qid: q["category"] for qid, q in queries.items()}


def fmean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def all_intervals(report: Mapping[str, Any]) -> dict[tuple[str, str, str], list[float]]:
    """(configuration, row, metric) -> [lo, hi] of every summary row."""
    out = {}
    for configuration, data in report["configurations"].items():
        summary = data["summary"]
        rows = {"all": summary["all"], **summary["categories"]}
        for name, row in rows.items():
            for metric, interval in row["ci"].items():
                out[(configuration, name, metric)] = interval
    return out


def lines_with(text: str, *fragments: str) -> list[str]:
    return [line for line in text.splitlines() if all(f in line for f in fragments)]


# --------------------------------------------------------------------------- summary intervals


def test_every_summary_row_has_an_interval_around_its_mean(pytester: pytest.Pytester) -> None:
    write_main(pytester)
    result, report, markdown = run_report(pytester)
    assert result.ret == pytest.ExitCode.OK
    terminal = result.stdout.str()
    for configuration in MAIN_CONFIGURATIONS:
        summary = report["configurations"][configuration]["summary"]
        cats = categories(report, configuration)
        rows = {"all": summary["all"], **summary["categories"]}
        assert set(rows) == {"all", "a", "b", "easy"}
        for name, row in rows.items():
            assert set(row["ci"]) == set(METRICS)
            ids = [q for q, c in cats.items() if name in ("all", c)]
            for metric in METRICS:
                ranks = MAIN_RANKS[configuration]
                mean = fmean([expected_value(metric, ranks[q]) for q in ids])
                assert row[metric] == pytest.approx(mean)
                lo, hi = row["ci"][metric]
                assert lo <= row[metric] <= hi, (configuration, name, metric)
                assert lo >= 0.0 and hi <= 1.0
        # a category with varied values has a real interval, a saturated one has none
        assert (
            summary["categories"]["b"]["ci"]["mrr"][0] < summary["categories"]["b"]["ci"]["mrr"][1]
        )
        assert summary["categories"]["easy"]["ci"]["mrr"] == [1.0, 1.0]
        # the same interval in the terminal (mean ±half-width) and in Markdown ([lo, hi])
        row = summary["all"]
        lo, hi = row["ci"]["mrr"]
        assert f"{row['mrr']:.3f} ±{(hi - lo) / 2:.3f}" in terminal
        assert f"{row['mrr']:.3f} [{lo:.3f}, {hi:.3f}]" in markdown
    assert re.search(r"\d\.\d{3} ±\d\.\d{3}", terminal)
    assert not re.search(r"\d\.\d{3} \[\d", terminal)  # no Markdown cells in the terminal
    assert "±" not in markdown.split("### paired comparison")[0]


def test_intervals_are_reproducible_and_follow_the_seed(pytester: pytest.Pytester) -> None:
    write_main(pytester)
    _, first, _ = run_report(pytester, name="first")
    _, again, _ = run_report(pytester, name="again")
    assert all_intervals(first) == all_intervals(again)
    assert first["comparisons"] == again["comparisons"]
    _, seven, _ = run_report(pytester, "-o", "retrieval_seed=7", name="seven")
    changed = [k for k, v in all_intervals(seven).items() if all_intervals(first)[k] != v]
    assert ("sparse", "all", "mrr") in changed
    assert ("dense", "b", "mrr") in changed
    assert [r["ci"] for r in seven["comparisons"]["rows"]] != [
        r["ci"] for r in first["comparisons"]["rows"]
    ]
    # the seed moves the intervals, never the means
    for configuration in MAIN_CONFIGURATIONS:
        assert (
            seven["configurations"][configuration]["summary"]["all"]["mrr"]
            == first["configurations"][configuration]["summary"]["all"]["mrr"]
        )


def test_intervals_do_not_depend_on_report_order_under_xdist(pytester: pytest.Pytester) -> None:
    write_main(pytester)
    _, serial, _ = run_report(pytester, name="serial")
    parallel_run, parallel, _ = run_report(pytester, "-n", "2", name="parallel")
    assert parallel_run.ret == pytest.ExitCode.OK
    assert all_intervals(parallel) == all_intervals(serial)
    assert parallel["comparisons"] == serial["comparisons"]


# --------------------------------------------------------------------------- comparisons


def check_comparisons(report: Mapping[str, Any], reference: str, alpha: float) -> None:
    comparisons = report["comparisons"]
    assert comparisons["reference"] == reference
    others = [c for c in MAIN_CONFIGURATIONS if c != reference]
    rows = comparisons["rows"]
    keys = [(r["configuration"], r["category"], r["metric"]) for r in rows]
    assert sorted(keys) == sorted(
        (c, cat, m) for c in others for cat in ("all", "a", "b", "easy") for m in METRICS
    )
    cats = categories(report, reference)
    for row in rows:
        cur = query_values(report, row["configuration"], row["metric"])
        ref = query_values(report, reference, row["metric"])
        common = sorted(q for q in set(cur) & set(ref) if row["category"] in ("all", cats[q]))
        diffs = [cur[q] - ref[q] for q in common]
        assert row["n"] == len(common)
        assert row["delta"] == pytest.approx(
            fmean([cur[q] for q in common]) - fmean([ref[q] for q in common])
        )
        lo, hi = row["ci"]
        assert lo <= row["delta"] <= hi
        assert 0.0 < row["p"] <= 1.0
        assert row["p_holm"] >= row["p"]
        assert row["significant"] == (row["p_holm"] < alpha)
        assert row["wins"] == sum(d > 0 for d in diffs)
        assert row["losses"] == sum(d < 0 for d in diffs)
        assert row["wins"] + row["ties"] + row["losses"] == row["n"]
    # Holm-Bonferroni across the whole table
    assert [r["p_holm"] for r in rows] == pytest.approx(holm_reference([r["p"] for r in rows]))


def test_paired_comparison_with_the_first_parameter(pytester: pytest.Pytester) -> None:
    write_main(pytester)
    result, report, markdown = run_report(pytester, "-v")  # -v: every comparison
    check_comparisons(report, "sparse", 0.05)
    rows = {(r["category"], r["metric"]): r for r in report["comparisons"]["rows"]}
    strong = rows[("a", "mrr")]
    assert strong["configuration"] == "dense"
    assert (strong["wins"], strong["ties"], strong["losses"]) == (22, 0, 2)
    assert strong["significant"] is True
    assert rows[("all", "mrr")]["significant"] is True
    easy = rows[("easy", "mrr")]
    assert (easy["delta"], easy["ci"], easy["p"], easy["ties"]) == (0.0, [0.0, 0.0], 1.0, 5)
    assert easy["significant"] is False
    assert rows[("b", "mrr")]["significant"] is False  # 8 mixed queries: no evidence
    # terminal: the comparison table, "*" on significant cells only
    terminal = result.stdout.str()
    assert "paired comparison with sparse" in terminal
    a_lines = [ln for ln in terminal.splitlines() if re.match(r"\s*dense\s+a\s", ln)]
    assert len(a_lines) == 1
    lo, hi = strong["ci"]
    assert f"{strong['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] *" in a_lines[0]
    easy_lines = [ln for ln in terminal.splitlines() if re.match(r"\s*dense\s+easy\s", ln)]
    assert len(easy_lines) == 1
    assert "*" not in easy_lines[0]
    # Markdown: the same marked cell, with the Holm p-value and wins/ties/losses beside it
    md_lines = lines_with(markdown, f"{strong['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] *")
    assert len(md_lines) == 1
    assert md_lines[0].startswith("| dense")
    assert f"{strong['p_holm']:.3g}" in md_lines[0]
    assert "22/0/2" in md_lines[0]


def test_retrieval_reference_and_alpha_from_the_ini(pytester: pytest.Pytester) -> None:
    write_main(pytester, ini="retrieval_reference = dense\nretrieval_alpha = 0.001\n")
    result, report, _ = run_report(pytester, "-v")  # -v: every comparison
    check_comparisons(report, "dense", 0.001)
    rows = {(r["category"], r["metric"]): r for r in report["comparisons"]["rows"]}
    assert {r["configuration"] for r in rows.values()} == {"sparse"}
    assert rows[("a", "mrr")]["delta"] < -0.5  # sparse minus dense
    assert (rows[("a", "mrr")]["wins"], rows[("a", "mrr")]["losses"]) == (2, 22)
    # 12 cells: Holm multiplies the smallest p by 12, above alpha = 0.001 with 2000 flips
    assert rows[("a", "mrr")]["p_holm"] > 0.001
    assert not any(r["significant"] for r in rows.values())
    terminal = result.stdout.str()
    assert "paired comparison with dense" in terminal
    assert not [ln for ln in terminal.splitlines() if re.match(r"\s*sparse\s+a\s.*\*", ln)]
    # an interval clear of 0 without its * is explained, not left to look contradictory
    clear = [r for r in rows.values() if r["ci"][0] > 0 or r["ci"][1] < 0]
    assert clear  # a's mrr, at least
    assert (
        f"{len(clear)} differences have a 95% interval clear of 0 but no *: a * needs a "
        "paired sign-flip test's p, Holm-corrected across all 12 rows, below retrieval_alpha"
    ) in " ".join(terminal.split())


def test_a_misspelled_reference_is_not_silently_ignored(pytester: pytest.Pytester) -> None:
    """``retrieval_reference = dnese`` names no configuration: say so (or refuse)."""
    write_main(pytester, ini="retrieval_reference = dnese\n")
    result = run(pytester)
    output = result.stdout.str() + result.stderr.str()
    assert "dnese" in output or result.ret == pytest.ExitCode.USAGE_ERROR


# --------------------------------------------------------------------------- warnings


def test_warnings_small_saturated_and_suspicious_recall(pytester: pytest.Pytester) -> None:
    write_main(pytester, ini="retrieval_min_queries = 20\n")
    result, report, markdown = run_report(pytester)
    warnings = report["warnings"]
    terminal = " ".join(result.stdout.str().split())
    # the width that matters for comparing configurations: the paired interval's
    widest = max(
        (row["ci"][1] - row["ci"][0]) / 2
        for row in report["comparisons"]["rows"]
        if row["category"] == "b"
    )
    one_mean = max(
        (hi - lo) / 2
        for c in MAIN_CONFIGURATIONS
        for lo, hi in report["configurations"][c]["summary"]["categories"]["b"]["ci"].values()
    )
    noise = (
        f"b: n=8: differences between configurations under ±{max(widest, 1 / 8):.2f} are noise here"
    )
    assert widest > 0.05 and widest != pytest.approx(one_mean)
    assert any(w.startswith(noise) for w in warnings), warnings
    assert noise in terminal
    assert any(w.startswith("easy: n=5: ") for w in warnings)
    assert not any(w.startswith("a: n=") for w in warnings)  # 24 >= retrieval_min_queries
    saturated = [w for w in warnings if w.startswith("easy: ") and "saturated" in w]
    assert len(saturated) == 1  # one per category, naming each configuration
    named = f"{', '.join(METRICS)})"
    assert all(f"{c} ({named}" in saturated[0] for c in MAIN_CONFIGURATIONS), saturated
    recall = [w for w in warnings if "recall@5 = " in w]
    # dense finds every relevant document in its top 5; sparse misses 2 of 37 (0.946)
    assert len(recall) == 1
    assert recall[0].startswith("dense: recall@5 = 1.000 (all)")
    assert "overlap" in recall[0]
    assert "dense: recall@5 = 1.000 (all)" in terminal
    assert "every query scores 1.0" in markdown


def test_default_min_queries_warns_below_thirty(pytester: pytest.Pytester) -> None:
    write_main(pytester)
    _, report, _ = run_report(pytester)
    noisy = sorted(w.split(":")[0] for w in report["warnings"] if ": n=" in w)
    assert noisy == ["a", "b", "easy"]
    assert any(
        "a: n=24: differences between configurations under ±" in w for w in report["warnings"]
    )
    assert all("retrieval_min_queries = 30" in w for w in report["warnings"] if ": n=" in w)


# --------------------------------------------------------------------------- slices


def test_group_by_tags_adds_tables(pytester: pytest.Pytester) -> None:
    write_main(pytester)
    result, report, _ = run_report(pytester, "--retrieval-group-by", "tag:core,rolling")
    assert result.ret == pytest.ExitCode.OK
    groups = report["groups"]["tag core/rolling"]
    queries = main_queries()
    members = {
        "core": [q["id"] for q in queries if "core" in q["tags"]],
        "rolling": [q["id"] for q in queries if "rolling" in q["tags"]],
        "(none of them)": [q["id"] for q in queries if not {"core", "rolling"} & set(q["tags"])],
    }
    both = [q["id"] for q in queries if {"core", "rolling"} <= set(q["tags"])]
    assert both  # a query with both tags counts in each group
    terminal = result.stdout.str()
    for configuration in MAIN_CONFIGURATIONS:
        table = groups[configuration]
        assert list(table) == ["core", "rolling", "(none of them)"]
        for name, ids in members.items():
            assert table[name]["n"] == len(ids)
            for metric in METRICS:
                mean = fmean([expected_value(metric, MAIN_RANKS[configuration][q]) for q in ids])
                assert table[name][metric] == pytest.approx(mean)
                lo, hi = table[name]["ci"][metric]
                assert lo <= table[name][metric] <= hi
        assert f"configuration: {configuration}, by tag core/rolling" in terminal
        section = terminal.split(f"configuration: {configuration}, by tag core/rolling")[1]
        row = table["rolling"]
        lo, hi = row["ci"]["mrr"]
        assert re.search(rf"rolling\s+{row['n']}\s+{row['mrr']:.3f} ±{(hi - lo) / 2:.3f}", section)
    # the HTML page shows the same rows, a table per grouping
    run(pytester, "--retrieval-report=page.html", "--retrieval-group-by", "tag:core,rolling")
    page = (pytester.path / "page.html").read_text(encoding="utf-8")
    caption = page.split("By tag core/rolling: mean [95% interval]")[1].split("</table>")[0]
    for configuration in MAIN_CONFIGURATIONS:
        row = groups[configuration]["rolling"]
        assert re.search(
            rf"{re.escape(configuration)}</th><td>rolling</td><td class=\"num\">{row['n']}<",
            caption,
        )
    # without the option there is no group table
    plain = run_report(pytester, name="plain")[1]
    assert "groups" not in plain
    # tables asked for by name print under -q too, after the `all` rows
    quiet = run_report(pytester, "-q", "--retrieval-group-by", "tag:core", name="quiet")[0]
    assert f"configuration: {MAIN_CONFIGURATIONS[0]}, by tag core" in quiet.stdout.str()


def test_weights_add_an_all_weighted_row(pytester: pytest.Pytester) -> None:
    write_main(pytester, ini="retrieval_weights = a=3 b=1\n")
    result, report, markdown = run_report(pytester)
    terminal = result.stdout.str()
    for configuration in MAIN_CONFIGURATIONS:
        summary = report["configurations"][configuration]["summary"]
        weighted = summary["weighted"]
        for metric in METRICS:
            mean_a = summary["categories"]["a"][metric]
            mean_b = summary["categories"]["b"][metric]
            assert weighted[metric] == pytest.approx((3 * mean_a + 1 * mean_b) / 4)
            lo, hi = weighted["ci"][metric]
            assert lo <= weighted[metric] <= hi
        assert weighted["n"] == 32  # a and b; easy has no weight
        lo, hi = weighted["ci"]["mrr"]
        assert f"{weighted['mrr']:.3f} ±{(hi - lo) / 2:.3f}" in terminal
        assert f"{weighted['mrr']:.3f} [{lo:.3f}, {hi:.3f}]" in markdown
    # a row in each metric's table (configurations side by side) ...
    assert len(lines_with(terminal, "all (weighted)", "32")) == len(METRICS)
    # ... and, with -v, in each configuration's table too
    verbose = run_report(pytester, "-v", name="verbose")[0].stdout.str()
    assert len(lines_with(verbose, "all (weighted)", "32")) == len(METRICS) + 2
    assert any("easy" in w and "all (weighted)" in w for w in report["warnings"])


def test_weights_that_name_no_category_are_not_silently_ignored(pytester: pytest.Pytester) -> None:
    """``retrieval_weights = aa=3 bb=1`` matches none of a, b, easy: say so."""
    write_main(pytester, ini="retrieval_weights = aa=3 bb=1\n")
    report = run_report(pytester)[1]
    assert "weighted" not in report["configurations"]["sparse"]["summary"]
    assert any("retrieval_weights" in w for w in report["warnings"]), report["warnings"]


# --------------------------------------------------------------------------- significant gate


def gate_queries(n: int) -> list[dict[str, Any]]:
    return [{"id": f"g{i:02d}", "category": "core", "tags": []} for i in range(n)]


def gate_run(
    pytester: pytest.Pytester, mode: str, name: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = run(
        pytester,
        "-o",
        f"retrieval_gate_mode={mode}",
        f"--retrieval-report={name}.json",
    )
    return result, json.loads((pytester.path / f"{name}.json").read_text(encoding="utf-8"))


def gate_rows(report: Mapping[str, Any], metric: str = "mrr") -> dict[str, dict[str, Any]]:
    return {r["category"]: r for r in report["gate"]["rows"] if r["metric"] == metric}


def make_baseline(pytester: pytest.Pytester, n: int) -> None:
    write_project(pytester, gate_queries(n), {"fused": {f"g{i:02d}": 1 for i in range(n)}})
    done = run(pytester, "--retrieval-update-baseline")
    assert done.ret == pytest.ExitCode.OK
    assert (pytester.path / "golden" / "baseline.json").exists()


def test_gate_significant_mode_lets_an_unproven_small_drop_pass(
    pytester: pytest.Pytester,
) -> None:
    make_baseline(pytester, 8)
    # two of eight queries drop from rank 1 to rank 2: mrr -0.125 in all, beyond 0.02,
    # but two differences give an exact sign-flip p of 2/4 = 0.5
    set_ranks(pytester, {"fused": {f"g{i:02d}": 2 if i < 2 else 1 for i in range(8)}})

    significant, report = gate_run(pytester, "significant", "significant")
    assert significant.ret == pytest.ExitCode.OK, significant.stdout.str()
    row = gate_rows(report)["all"]
    assert row["delta"] == pytest.approx(-1 / 8)
    assert row["p"] == pytest.approx(0.5)
    assert row["p_holm"] >= 0.5
    assert row["significant"] is False
    assert row["breached"] is False
    assert report["gate"]["verdict"] == "passed"
    assert "retrieval gate: PASSED" in significant.stdout.str()

    absolute, report = gate_run(pytester, "absolute", "absolute")
    assert absolute.ret == pytest.ExitCode.TESTS_FAILED
    assert report["gate"]["verdict"] == "failed"
    assert gate_rows(report)["all"]["breached"] is True
    assert gate_rows(report)["all"]["p"] == pytest.approx(0.5)  # the test is shown anyway


def test_gate_a_large_consistent_drop_fails_in_both_modes(pytester: pytest.Pytester) -> None:
    make_baseline(pytester, 24)
    set_ranks(pytester, {"fused": {f"g{i:02d}": 2 + i % 3 for i in range(24)}})
    for mode in ("significant", "absolute"):
        result, report = gate_run(pytester, mode, mode)
        assert result.ret == pytest.ExitCode.TESTS_FAILED, mode
        assert report["gate"]["verdict"] == "failed"
        rows = gate_rows(report)
        for category in ("all", "core"):
            row = rows[category]
            assert row["breached"] is True
            assert row["significant"] is True
            assert row["delta"] == pytest.approx(fmean([1 / (2 + i % 3) - 1 for i in range(24)]))
            lo, hi = row["ci"]
            assert lo <= row["delta"] <= hi < 0
            assert row["p"] <= 1 / 2001 + 1e-12  # 24 consistent losses: no flip as extreme
        # recall@5 did not move: not breached, p = 1
        assert all(
            r["p"] == 1.0 and not r["breached"] for r in gate_rows(report, "recall@5").values()
        )
        text = result.stdout.str()
        assert "95% interval" in text
        assert "p (Holm)" in text
        row = rows["all"]
        line = [
            ln
            for ln in lines_with(text, "fused", "all", "mrr", f"{row['delta']:+.3f}")
            if ln.startswith("fused")  # the table's row, not the short summary
        ]
        assert line, text
        assert f"[{row['ci'][0]:+.3f}, {row['ci'][1]:+.3f}]" in line[-1]  # the table's row
        assert f"{row['p_holm']:.3g}" in line[-1]


UNANIMOUS = """
import pytest

@pytest.fixture(scope="session", params=["bm25", "dense"])
def retriever(request):
    def search(query):
        return [query.id.replace("q", "d")] if request.param == "dense" else ["nothing"]
    return search
"""


def test_a_p_value_too_small_for_a_float_is_a_bound_in_the_json_report(
    pytester: pytest.Pytester,
) -> None:
    """2,000 queries that all moved one way: the normal law's p underflows to 0.0, which
    the terminal prints as <1e-300 and the JSON wrote as 0.0 (a certainty no test gives)."""
    lines = [
        json.dumps({"id": f"q{i}", "query": f"text {i}", "category": "c", "relevant": [f"d{i}"]})
        for i in range(2000)
    ]
    pytester.makefile(".jsonl", **{"golden/big": "\n".join(lines)})
    pytester.makeconftest(UNANIMOUS)
    pytester.makeini("[pytest]\nretrieval_metrics = mrr\nretrieval_items = shard:1000\n")
    result = pytester.runpytest("--retrieval-eval", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.OK
    rows = json.loads((pytester.path / "r.json").read_text())["comparisons"]["rows"]
    assert [(r["p"], r["p_holm"], r["p_underflow"]) for r in rows] == [(1e-300, 1e-300, True)] * 2
    report = read_report(pytester.path / "r.json")  # compare and pool still read it
    assert len(report.configurations["dense"]) == 2000
