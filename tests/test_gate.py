"""Unit tests of the regression gate and its text, on records built in memory.

The end-to-end tests (test_e2e_gate.py) run the same rules through pytest; these
pin the pure logic row by row, fast: tolerances, scopes, which configurations are
compared, changed/added/removed queries, the significant mode and the worst queries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest

from pytest_retrieval.baseline import Baseline, RunFacts
from pytest_retrieval.comparisons import holm_tests
from pytest_retrieval.evaluation import analyse
from pytest_retrieval.gate import GateResult, GateRow, run_gate
from pytest_retrieval.latency import LatencyBreach
from pytest_retrieval.model import QueryRecord, Results
from pytest_retrieval.report.gate_text import explain, headline, verdict_line
from pytest_retrieval.settings import (
    GateSettings,
    LatencyLimit,
    Settings,
    SettingsError,
    StatsSettings,
    parse_tolerance,
)
from pytest_retrieval.stats import bootstrap_means, quantile, queries_key, rng_for

METRICS = ("ndcg@10", "mrr")
SETTINGS = Settings(metrics=Settings().metrics[:2])  # ndcg@10, mrr
STATS = StatsSettings(resamples=200)
CATEGORIES = {"lexical": ["lex-1", "lex-2", "lex-3", "lex-4"], "para": ["para-1", "para-2"]}
QUERY_IDS = sorted(q for ids in CATEGORIES.values() for q in ids)
CATEGORY_OF = {q: c for c, ids in CATEGORIES.items() for q in ids}


def record(
    qid: str,
    value: float = 1.0,
    configuration: str = "fused",
    *,
    mrr: float | None = None,
    outcome: str = "passed",
    fingerprint: str | None = None,
    retrieved: Sequence[str] | None = None,
    error: str | None = None,
    skip_reason: str | None = None,
) -> QueryRecord:
    top = list(retrieved) if retrieved is not None else [f"{qid}-main", f"{qid}-alt"]
    metrics: dict[str, float | None] = {"ndcg@10": value, "mrr": value if mrr is None else mrr}
    if outcome == "skipped":
        metrics = dict.fromkeys(METRICS)
    return QueryRecord(
        id=qid,
        configuration=configuration,
        category=CATEGORY_OF.get(qid, "lexical"),
        path="golden/core.yaml",
        outcome=outcome,  # type: ignore[arg-type]
        metrics=metrics,
        retrieved=top,
        grades={d: 3 if d.endswith("main") else 2 for d in top if d.startswith(qid)},
        fingerprint=fingerprint or f"fp-{qid}",
        error=error,
        skip_reason=skip_reason,
    )


def results_of(*groups: Sequence[QueryRecord]) -> Results:
    results = Results()
    for group in groups:
        for r in group:
            results.add(r)
    return results


def perfect(configuration: str = "fused", ids: Sequence[str] = QUERY_IDS) -> list[QueryRecord]:
    return [record(q, 1.0, configuration) for q in ids]


def baseline_of(*groups: Sequence[QueryRecord]) -> Baseline:
    configurations: dict[str, dict[str, QueryRecord]] = {}
    for group in groups:
        for r in group:
            configurations.setdefault(r.configuration, {})[r.id] = r
    return Baseline(settings=SETTINGS.as_dict(), configurations=configurations)


def facts(**extra: object) -> RunFacts:
    return RunFacts(
        golden_ids=dict.fromkeys(QUERY_IDS, "golden/core.yaml"),
        existing_files=frozenset({"golden/core.yaml"}),
        **extra,  # type: ignore[arg-type]
    )


def gate(
    baseline: Baseline,
    results: Results,
    settings: GateSettings | None = None,
    run_facts: RunFacts | None = None,
    stats: StatsSettings = STATS,
) -> GateResult:
    return run_gate(
        baseline,
        "golden/baseline.json",
        results,
        SETTINGS,
        settings or GateSettings(),
        stats,
        run_facts or facts(),
    )


def rows(result: GateResult) -> dict[tuple[str, str, str], dict[str, object]]:
    return {(r.configuration, r.category, r.metric): r.as_dict() for r in result.rows}


# --------------------------------------------------------------------------- rows


def test_no_change_passes_with_every_row_at_zero() -> None:
    result = gate(baseline_of(perfect()), results_of(perfect()))
    assert result.verdict == "passed"
    assert set(rows(result)) == {
        ("fused", c, m) for c in ("all", "lexical", "para") for m in METRICS
    }
    assert all(r.delta == 0.0 and r.worst_queries == [] and not r.breached for r in result.rows)
    assert (result.added, result.removed, result.changed) == ([], [], [])
    assert explain(result, GateSettings().tolerance).splitlines() == [
        "retrieval gate: PASSED (baseline golden/baseline.json, tolerance 0.02, mode absolute)",
        "  fused: 0 queries improved, 0 degraded, 6 unchanged",
    ]


def test_a_category_drop_fails_and_the_rows_hold_exact_means() -> None:
    now = [record(q, 0.0 if q in ("lex-2", "lex-3") else 1.0) for q in QUERY_IDS]
    result = gate(baseline_of(perfect()), results_of(now))
    assert result.verdict == "failed"
    found = rows(result)
    assert found["fused", "lexical", "ndcg@10"]["current"] == 0.5
    assert found["fused", "all", "mrr"]["delta"] == pytest.approx(-2 / 6)
    assert found["fused", "para", "mrr"]["breached"] is False
    assert {k for k, r in found.items() if r["breached"]} == {
        ("fused", c, m) for c in ("all", "lexical") for m in METRICS
    }
    row = found["fused", "lexical", "ndcg@10"]
    assert row["n"] == 4 and row["allowed"] == 0.02 and row["method"] == "exact"
    assert [q["id"] for q in row["worst_queries"]] == ["lex-2", "lex-3"]  # ties: by id


def test_tolerance_absolute_relative_and_per_metric() -> None:
    base = [record(q, 0.8) for q in QUERY_IDS]
    now = [record(q, 0.7) for q in QUERY_IDS]  # -0.1 everywhere
    assert gate(baseline_of(base), results_of(now)).verdict == "failed"
    loose = GateSettings(tolerance=parse_tolerance("0.1"))
    assert gate(baseline_of(base), results_of(now), loose).verdict == "passed"
    relative = GateSettings(tolerance=parse_tolerance("12.5%"))  # 12.5% of 0.8 = 0.1
    result = gate(baseline_of(base), results_of(now), relative)
    assert result.verdict == "passed"
    assert all(r.allowed == pytest.approx(0.1) for r in result.rows)
    tight = GateSettings(tolerance=parse_tolerance("12%"))
    assert gate(baseline_of(base), results_of(now), tight).verdict == "failed"
    per_metric = GateSettings(tolerance=parse_tolerance("0.02 mrr=0.2"))
    result = gate(baseline_of(base), results_of(now), per_metric)
    assert {r.metric for r in result.breached} == {"ndcg@10"}


def test_a_percent_sign_written_apart_belongs_to_its_number() -> None:
    """'2 %' was refused as two default tolerances, '2' and '%'."""
    assert str(parse_tolerance("2 %")) == "2%"
    assert str(parse_tolerance("0.02 mrr=5 %")) == "0.02 mrr=5%"
    assert parse_tolerance("12.5 %") == parse_tolerance("12.5%")
    with pytest.raises(SettingsError, match="2 default tolerances"):
        parse_tolerance("2% %")


def test_scope_all_compares_only_the_overall_row() -> None:
    now = [record(q, 0.94 if q == "para-1" else 1.0) for q in QUERY_IDS]  # para -0.03, all -0.01
    assert gate(baseline_of(perfect()), results_of(now)).verdict == "failed"
    result = gate(baseline_of(perfect()), results_of(now), GateSettings(scope="all"))
    assert result.verdict == "passed"
    assert {r.category for r in result.rows} == {"all"}


def test_gate_metrics_and_configurations_limit_the_rows() -> None:
    base = baseline_of(perfect("bm25"), perfect("fused"))
    now = results_of([record(q, 1.0, "bm25", mrr=0.0) for q in QUERY_IDS], perfect("fused"))
    assert gate(base, now).verdict == "failed"
    ndcg_only = gate(base, now, GateSettings(metrics=("ndcg@10",)))
    assert ndcg_only.verdict == "passed" and {r.metric for r in ndcg_only.rows} == {"ndcg@10"}
    fused_only = gate(base, now, GateSettings(configurations=("fused",)))
    assert fused_only.verdict == "passed"
    assert {r.configuration for r in fused_only.rows} == {"fused"}


def test_an_improvement_passes_and_is_named_with_the_hint() -> None:
    base = [record(q, 0.5) for q in QUERY_IDS]
    result = gate(baseline_of(base), results_of(perfect()))
    assert result.verdict == "passed"
    assert result.breached == [] and len(result.improved) == 6
    text = explain(result, GateSettings().tolerance)
    assert (
        "improved beyond the tolerance (run `pytest --retrieval-eval --retrieval-update-baseline`"
        " to record it):"
    ) in text
    assert "  fused / lexical / ndcg@10: 0.500 -> 1.000 (+0.500)" in text


# --------------------------------------------------------------------------- what is compared


def test_changed_added_and_removed_queries() -> None:
    base = baseline_of(perfect(ids=[*QUERY_IDS, "gone-1"]))
    now = [record("lex-1", 0.0, fingerprint="new")]
    now = [*now, *(record(q) for q in QUERY_IDS if q != "lex-1"), record("lex-9")]
    result = gate(base, results_of(now))
    assert result.verdict == "passed"  # lex-1 dropped, but its judgments changed
    assert result.changed == ["lex-1"]
    assert result.added == ["lex-9"]
    assert result.removed == ["gone-1"]  # its file was collected without it
    assert rows(result)["fused", "lexical", "mrr"]["n"] == 3
    text = explain(result)
    assert (
        "not in the baseline (added since, or errored when it was written), not compared: lex-9"
        in text
    )
    assert "no longer in the golden set: gone-1" in text
    assert "text or judgments changed since the baseline" in text


def test_a_query_new_in_some_configurations_only_names_them() -> None:
    """A query that errored in one configuration when the baseline was written (so it is
    not there) was listed 'not compared' by its id alone, though the others compared it."""
    base = baseline_of(
        [*perfect("remote", [q for q in QUERY_IDS if q != "lex-2"]), *perfect("tfidf")]
    )
    ids = [*QUERY_IDS, "lex-9"]  # lex-9: new in both
    result = gate(base, results_of(perfect("remote", ids), perfect("tfidf", ids)))
    assert result.added == ["lex-2", "lex-9"]
    text = " ".join(explain(result).split())
    assert (
        "not in the baseline (added since, or errored when it was written), not compared: "
        "lex-2 (remote), lex-9"
    ) in text


def test_a_query_of_a_file_not_collected_is_not_removed() -> None:
    other = record("far-1")
    other.path = "golden/other.yaml"
    base = baseline_of([*perfect(), other])
    run_facts = RunFacts(
        golden_ids=dict.fromkeys(QUERY_IDS, "golden/core.yaml"),
        existing_files=frozenset({"golden/core.yaml", "golden/other.yaml"}),
    )
    assert gate(base, results_of(perfect()), run_facts=run_facts).removed == []
    gone = RunFacts(run_facts.golden_ids, existing_files=frozenset({"golden/core.yaml"}))
    assert gate(base, results_of(perfect()), run_facts=gone).removed == ["far-1"]


@pytest.mark.parametrize(
    ("records", "run_facts", "verdict", "message"),
    [
        (
            [record(q, outcome="skipped", skip_reason="needs the model") for q in QUERY_IDS],
            facts(),
            "skipped",
            "gated configuration 'fused' was skipped in this run (needs the model): not compared",
        ),
        (
            [],
            facts(selected=frozenset({"bm25"}), collected=frozenset({"bm25", "fused"})),
            "skipped",
            "gated configuration 'fused' was deselected in this run (-k, -m or the paths "
            "given): not compared",
        ),
        (
            [],
            facts(selected=frozenset({"bm25"}), collected=frozenset({"bm25"})),
            "failed",
            "the baseline holds configuration 'fused', which this run does not have "
            "(configurations: bm25): run it too, name the ones to gate in "
            "retrieval_gate_configurations, or drop it from the baseline (`pytest "
            "--retrieval-eval --retrieval-update-baseline` does)",
        ),
        (
            [],
            facts(selected=frozenset({"fused"}), collected=frozenset({"fused"})),
            "failed",
            "the gate had no data for configuration 'fused'",
        ),
    ],
    ids=["all-skipped", "deselected", "not-in-the-run", "selected-but-nothing-came"],
)
def test_which_gated_configurations_are_compared(
    records: list[QueryRecord], run_facts: RunFacts, verdict: str, message: str
) -> None:
    result = gate(baseline_of(perfect()), results_of(records), run_facts=run_facts)
    assert result.verdict == verdict
    assert result.rows == []
    assert any(m.startswith(message) for m in result.messages), result.messages
    assert headline(result).startswith(f"retrieval gate: {verdict.upper()}: {message}")


NEW_IDS = ["new-a", "new-b", "new-c"]


def _new_file_facts(path: str) -> RunFacts:
    """This run collected only NEW_IDS, from ``path``; the baseline's file still exists."""
    return RunFacts(
        golden_ids=dict.fromkeys(NEW_IDS, path), existing_files=frozenset({"golden/core.yaml"})
    )


def test_a_new_golden_file_run_on_its_own_skips_the_gate_and_says_why() -> None:
    """Nothing of the baseline's was given: a selection, as -k is, not a fault."""
    result = gate(baseline_of(perfect()), results_of(perfect(ids=NEW_IDS)),
                  run_facts=_new_file_facts("extra/new.yaml"))  # fmt: skip
    assert result.verdict == "skipped", result.messages
    assert result.rows == []
    assert result.messages == [
        "gated configuration 'fused': none of this run's 3 queries is in the baseline (new "
        "since it: new-a, new-b, new-c): not compared; run `pytest --retrieval-eval "
        "--retrieval-update-baseline extra/new.yaml` to gate them"
    ]


def test_a_golden_set_replaced_or_changed_under_the_baseline_fails_and_says_how() -> None:
    replaced = gate(baseline_of(perfect()), results_of(perfect(ids=NEW_IDS)),
                    run_facts=_new_file_facts("golden/core.yaml"))  # fmt: skip
    assert replaced.verdict == "failed"
    assert replaced.messages[0].startswith(
        "the gate had no data for configuration 'fused': of this run's queries, 3 new since "
        f"the baseline; {len(QUERY_IDS)} of the baseline's are gone from the golden set"
        ": the golden set changed (new or edited: new-a, new-b, new-c); run `pytest "
        "--retrieval-eval"
    )
    edited = [record(q, fingerprint="edited") for q in QUERY_IDS]
    changed = gate(baseline_of(perfect()), results_of(edited))
    assert changed.verdict == "failed"
    assert (
        f"of this run's queries, {len(QUERY_IDS)} with other text or judgments there: the "
        in (changed.messages[0])
    )


def test_a_gated_configuration_missing_from_the_baseline_fails() -> None:
    result = gate(
        baseline_of(perfect()),
        results_of(perfect("dense")),
        GateSettings(configurations=("dense",)),
    )
    assert result.verdict == "failed"
    assert result.messages == [
        "gated configuration 'dense' is not in the baseline; run `pytest --retrieval-eval "
        "--retrieval-update-baseline` to add it, or fix retrieval_gate_configurations"
    ]


def test_a_configuration_the_baseline_lacks_is_named_as_not_compared_without_failing() -> None:
    """It passed without a word: a new configuration looked gated when nothing held it."""
    run = results_of(perfect(), perfect("dense"))
    result = gate(baseline_of(perfect()), run)
    assert result.verdict == "passed"
    assert list(result.counts) == ["fused"]
    assert result.messages == [
        "configuration 'dense' is not in the baseline: not compared; run `pytest "
        "--retrieval-eval --retrieval-update-baseline` to add it"
    ]
    assert "configuration 'dense' is not in the baseline: not compared" in explain(result)
    compared = run_gate(
        baseline_of(perfect()), "a.json", run, SETTINGS, GateSettings(), STATS, facts(), update=""
    )
    assert compared.messages == ["configuration 'dense' is not in the baseline: not compared"]
    named = gate(baseline_of(perfect()), run, GateSettings(configurations=("fused",)))
    assert named.verdict == "passed" and named.messages == []  # left out on purpose


def test_configurations_the_run_and_the_baseline_do_not_share_are_named_in_one_message_each() -> (
    None
):
    """One message per configuration repeated the same advice once per name."""
    held = baseline_of(perfect("bm25"), perfect("dense"), perfect("fused"))
    run = results_of(perfect("fused"), perfect("sysA"), perfect("sysB"))
    both = frozenset({"fused", "sysA", "sysB"})
    result = gate(held, run, run_facts=facts(selected=both, collected=both))
    assert result.verdict == "failed"
    assert result.messages == [
        "the baseline holds configurations 'bm25' and 'dense', which this run does not have "
        "(configurations: fused, sysA, sysB): run them too, name the ones to gate in "
        "retrieval_gate_configurations, or drop them from the baseline (`pytest "
        "--retrieval-eval --retrieval-update-baseline` does)",
        "configurations 'sysA' and 'sysB' are not in the baseline: not compared; run `pytest "
        "--retrieval-eval --retrieval-update-baseline` to add them",
    ]
    assert list(result.counts) == ["fused"]  # the shared one is still compared


@pytest.mark.parametrize("trec", [True, False])
def test_a_replayed_run_that_shares_no_configuration_with_the_baseline_is_one_message(
    trec: bool,
) -> None:
    held = baseline_of(perfect("bm25"), perfect("dense"))
    run = results_of(perfect("sysA"), perfect("sysB"), perfect("sysC"))
    names = frozenset({"sysA", "sysB", "sysC"})
    run_facts = facts(selected=names, collected=names, replayed=("their.run",), replayed_trec=trec)
    result = gate(held, run, run_facts=run_facts)
    assert result.verdict == "failed"
    evaluate = ", or score it without a gate: `pytest-retrieval evaluate their.run`"
    assert result.messages == [
        "none of the replayed configurations (sysA, sysB, sysC, from their.run) is in the "
        "baseline, which holds bm25, dense: nothing compared. Give the replayed run a baseline "
        "of its own, written once with `pytest --retrieval-eval --retrieval-update-baseline "
        "--retrieval-baseline=golden/their-baseline.json --retrieval-replay=their.run`"
        f"{evaluate if trec else ''}"
    ]
    assert headline(result).startswith(f"retrieval gate: FAILED: {result.messages[0]}")
    live = gate(held, run, run_facts=facts(selected=names, collected=names))
    assert live.messages == [
        "none of this run's configurations (sysA, sysB, sysC) is in the baseline, which holds "
        "bm25, dense: nothing compared. Run the baseline's configurations too, or rewrite "
        "the baseline (`pytest --retrieval-eval --retrieval-update-baseline`)"
    ]
    one = frozenset({"vendor"})
    alone = gate(
        held,
        results_of(perfect("vendor")),
        run_facts=facts(selected=one, collected=one, replayed=("vendor.run",), replayed_trec=trec),
    )
    assert alone.messages[0].startswith(
        "the replayed configuration (vendor, from vendor.run) is not in the baseline, which "
        "holds bm25, dense: nothing compared."
    )
    live_one = gate(
        held, results_of(perfect("vendor")), run_facts=facts(selected=one, collected=one)
    )
    assert live_one.messages[0].startswith(
        "this run's configuration (vendor) is not in the baseline, which holds bm25, dense"
    )


def test_a_refusal_for_another_setting_names_the_metrics_that_differ_too() -> None:
    """Refused for another gain while a metric was added too, the message named the gain
    alone: the update it asks for changes the metrics as well, unannounced."""
    both = baseline_of(perfect())
    both.settings = {**both.settings, "gain": "linear", "metrics": ["mrr"]}
    said = gate(both, results_of(perfect())).messages[0]
    assert said.startswith(
        "the baseline golden/baseline.json was made with other settings: gain: baseline "
        "'linear', this run 'exponential'; metrics: baseline ['mrr'], this run ['ndcg@10', "
        "'mrr'] (this run adds 'ndcg@10'). Numbers made under other settings"
    ), said


def test_other_settings_refuse_with_what_differs() -> None:
    base = baseline_of(perfect())
    base.settings = {**base.settings, "gain": "linear"}
    result = gate(base, results_of(perfect()))
    assert result.verdict == "refused" and result.failed and result.rows == []
    assert result.messages[0].startswith(
        "the baseline golden/baseline.json was made with other settings: gain: baseline "
        "'linear', this run 'exponential'. Numbers made under other settings are not comparable"
    )
    other_metrics = baseline_of(perfect())  # no metric in common: nothing to compare
    other_metrics.settings = {**other_metrics.settings, "metrics": ["ndcg@5", "map"]}
    assert (
        "metrics: baseline ['ndcg@5', 'map'], this run ['ndcg@10', 'mrr'] (this run "
        "adds 'ndcg@10', 'mrr'; lacks 'ndcg@5', 'map')"
    ) in gate(other_metrics, results_of(perfect())).messages[0]
    both = baseline_of(perfect())  # another gain refuses, a metric added or not
    both.settings = {**both.settings, "gain": "linear", "metrics": ["mrr"]}
    assert gate(both, results_of(perfect())).verdict == "refused"
    metrics_reordered = baseline_of(perfect())
    metrics_reordered.settings = {**metrics_reordered.settings, "metrics": ["mrr", "ndcg@10"]}
    assert gate(metrics_reordered, results_of(perfect())).verdict == "passed"


# --------------------------------------------------------------------------- significance


def test_significant_mode_passes_a_drop_that_is_noise() -> None:
    base = [record(q, 1.0) for q in QUERY_IDS]
    now = [record(q, 0.0 if q == "lex-1" else 1.0) for q in QUERY_IDS]  # one query moved
    absolute = gate(baseline_of(base), results_of(now))
    assert absolute.verdict == "failed"
    significant = gate(baseline_of(base), results_of(now), GateSettings(mode="significant"))
    assert significant.verdict == "passed"
    assert all(not r.significant for r in significant.rows)
    lexical = rows(significant)["fused", "lexical", "ndcg@10"]
    assert lexical["p"] == 1.0 and lexical["delta"] == -0.25  # one of four, exact test


def test_significant_mode_names_what_passed_only_for_want_of_significance() -> None:
    base = [record(q, 1.0) for q in QUERY_IDS]
    now = [record(q, 0.0 if q == "lex-1" else 1.0) for q in QUERY_IDS]
    result = gate(baseline_of(base), results_of(now), GateSettings(mode="significant"))
    beyond = {(r.category, r.metric) for r in result.not_significant}
    assert beyond == {(c, m) for c in ("all", "lexical") for m in METRICS}
    text = explain(result, GateSettings().tolerance)
    assert text.splitlines()[0] == (
        "retrieval gate: PASSED (baseline golden/baseline.json, tolerance 0.02, mode "
        "significant; 4 rows dropped beyond the tolerance but not significantly)"
    )
    assert "dropped beyond the tolerance but not significantly (4):" in text
    # 6 rows under Holm at 0.05: a sign-flip p of n queries is at least 2/2^n, so n >= 8
    assert result.min_significant_n == 8
    assert len(result.too_small) == 6
    assert "6 gated rows have fewer than 8 queries: with 6 rows corrected by Holm" in text
    assert text.count("can ever be significant") == 1
    absolute = explain(gate(baseline_of(base), results_of(now)), GateSettings().tolerance)
    assert "not significantly" not in absolute and "can ever be significant" not in absolute
    # absolute mode: the tolerance fails these rows; why their p (Holm) reads 1 is said once
    said = " ".join(absolute.split())
    assert said.count("can never be significant after that") == 1
    # the count is of the breached rows with too few queries, not of intervals clear of 0
    assert (
        "p (Holm) is corrected across all 6 gated rows; 4 breached rows have fewer than 8 "
        "queries, and a row of so few can never be significant after that, even with an "
        "interval clear of 0."
    ) in said


def test_significant_mode_never_offers_an_update_as_if_nothing_dropped() -> None:
    """An update records every row: with drops that passed only for want of
    significance, the improvements' hint says to settle those first."""
    base = [record(q, 0.5 if q.startswith("para") else 1.0) for q in QUERY_IDS]
    now = [record(q, 0.0 if q == "lex-1" else 1.0) for q in QUERY_IDS]
    result = gate(baseline_of(base), results_of(now), GateSettings(mode="significant"))
    assert result.verdict == "passed" and result.not_significant and result.improved
    text = explain(result, GateSettings().tolerance)
    assert (
        "improved beyond the tolerance (record it with the baseline once the dropped rows "
        "above are fixed or accepted):"
    ) in text
    assert "to record it):" not in text


def test_an_interval_clear_of_zero_beside_a_holm_p_that_is_not_significant_is_explained() -> None:
    base = [record(q, 1.0) for q in QUERY_IDS]
    now = [record(q, 0.5 if q.startswith("lex") else 1.0) for q in QUERY_IDS]  # all 4 drop
    result = gate(baseline_of(base), results_of(now), GateSettings(mode="significant"))
    lexical = rows(result)["fused", "lexical", "ndcg@10"]
    assert lexical["ci"] == [-0.5, -0.5] and not lexical["significant"]
    text = " ".join(explain(result, GateSettings().tolerance).split())
    assert (
        "of these have an interval clear of 0: each interval is its row's own, while p (Holm) "
        f"is corrected across all {len(result.rows)} gated rows"
    ) in text
    plain = " ".join(explain(gate(baseline_of(base), results_of(base)), None).split())
    assert "interval clear of 0" not in plain


def test_many_unjudged_results_lost_or_gained_are_counted_not_listed() -> None:
    """Metrics cut at 100 over sparse judgments: each query listed some 24 unjudged ids
    as '1333 (-)' lost and gained, 336 lines for one gate; none can move a metric."""
    from pytest_retrieval.gate import WorstQuery
    from pytest_retrieval.report.gate_text import worst_detail

    noise = [f"u{i}" for i in range(24)]
    query = WorstQuery(
        id="q", baseline=1.0, current=0.5, lost=["a", *noise[:12]], gained=[*noise[12:], "b"],
        grades={"a": 3, "b": 0}, k=100,
    )  # fmt: skip
    assert worst_detail(query) == "top 100: lost a (3), 12 unjudged; gained b (0), 12 unjudged"
    few = WorstQuery(
        id="q", baseline=1.0, current=0.5, lost=["a", "u1"], gained=[], grades={"a": 3}
    )
    assert worst_detail(few).endswith("lost a (3), u1 (-); gained -")


def test_the_holm_note_names_a_gated_configuration_that_did_not_change() -> None:
    """Said of every run, 'the unchanged configurations' too' was wrong where each one
    changed; where one did not, it names it and how to gate the others alone."""
    base = [record(q, 1.0) for q in QUERY_IDS]
    now = [record(q, 0.5 if q.startswith("lex") else 1.0) for q in QUERY_IDS]
    settings = GateSettings(mode="significant", configurations=("fused", "bm25"))
    both = gate(baseline_of(base, perfect("bm25")), results_of(now, perfect("bm25")), settings)
    text = " ".join(explain(both, GateSettings().tolerance).split())
    assert (
        f"corrected across all {len(both.rows)} gated rows (those of 'bm25' too, which did not "
        "change on any row: retrieval_gate_configurations = fused gates the others alone), "
        "which asks more of each row"
    ) in text
    alone = gate(baseline_of(base), results_of(now), GateSettings(mode="significant"))
    assert f"across all {len(alone.rows)} gated rows, which asks more" in " ".join(
        explain(alone, GateSettings().tolerance).split()
    )


def test_holm_runs_across_every_gate_row() -> None:
    many = [f"lex-{i}" for i in range(1, 41)]
    base = baseline_of([record(q, 1.0) for q in many])
    now = results_of([record(q, 0.0 if i % 2 else 1.0) for i, q in enumerate(many)])
    result = gate(base, now, GateSettings(mode="significant"))
    ps = [r.p for r in result.rows]
    assert all(r.p_holm >= r.p for r in result.rows)
    # every query is in "lexical": its rows are the "all" rows' tests, counted once
    assert holm_tests(result.rows) == len(ps) // 2 == len(METRICS)
    assert min(r.p_holm for r in result.rows) == pytest.approx(min(1.0, len(METRICS) * min(ps)))
    assert result.verdict == "failed"  # 20 of 40 dropped to 0: significant


def test_significant_mode_says_when_too_few_draws_keep_sampled_rows_from_failing() -> None:
    """retrieval_bootstrap = 100: a sampled p is never under 1/101, so with 2 tests under
    Holm at alpha 0.01 no row of 15 to 256 queries that moved can be significant: 20 of 40
    queries dropped to 0 and the significant gate passed without a word of why."""
    many = [f"lex-{i}" for i in range(1, 41)]
    base = baseline_of([record(q, 1.0) for q in many])
    now = results_of([record(q, 0.0 if i % 2 else 1.0) for i, q in enumerate(many)])
    few = StatsSettings(resamples=100, alpha=0.01)
    result = gate(base, now, GateSettings(mode="significant"), stats=few)
    assert result.verdict == "passed" and result.sampled_floor == pytest.approx(1 / 101)
    text = " ".join(explain(result, GateSettings().tolerance).split())
    assert (
        "a sampled sign-flip p is never under 1/(retrieval_bootstrap + 1) = 0.0099: with 2 "
        "tests (of 4 rows) corrected by Holm, no drop on the 4 gated rows whose test is "
        "sampled (more than 14 of their queries moved) can ever be significant, so the "
        "significant mode cannot fail them; raise retrieval_bootstrap (the default is 10000)"
    ) in text
    enough = gate(base, now, GateSettings(mode="significant"), stats=StatsSettings(alpha=0.01))
    assert enough.verdict == "failed" and enough.sampled_floor is None
    assert "retrieval_bootstrap + 1" not in explain(enough, GateSettings().tolerance)


def test_a_category_holding_every_query_is_one_test_with_all() -> None:
    """One category (every imported TREC or BEIR set): its rows are the "all" rows again.
    They used to be tested again with other draws (another p) and counted twice by Holm."""
    many = [f"lex-{i}" for i in range(1, 41)]
    base = baseline_of([record(q, 1.0) for q in many])
    now = results_of([record(q, 0.0 if i % 3 == 0 else 1.0) for i, q in enumerate(many)])
    result = gate(base, now, GateSettings(mode="significant"))
    rows = {(r.category, r.metric): r for r in result.rows}
    assert {c for c, _ in rows} == {"all", "lexical"}
    for metric in METRICS:
        whole, twin = rows[("all", metric)], rows[("lexical", metric)]
        assert (twin.p, twin.ci, twin.p_holm, twin.significant) == (
            whole.p,
            whole.ci,
            whole.p_holm,
            whole.significant,
        )
    own = [rows[("all", m)].p for m in METRICS]
    expected = sorted(min(1.0, len(own) * p) for p in own)  # Holm over 2 tests, not 4
    assert sorted(rows[("all", m)].p_holm for m in METRICS)[0] == pytest.approx(expected[0])
    assert result.min_significant_n == 7  # 2 tests at 0.05: 2 * 2/2^n < 0.05 from n = 7


# --------------------------------------------------------------------------- worst queries


def test_worst_queries_name_what_left_and_entered_the_top_k() -> None:
    base = [record(q) for q in QUERY_IDS]
    now = [
        record("lex-1", 0.0, retrieved=["noise-1", "noise-2"]),
        record("lex-2", 0.4, retrieved=["lex-2-alt", "noise-3"], error=None),
        record("lex-3", 0.0, retrieved=[], error="the retriever raised KeyError: 'x'"),
        *(record(q) for q in QUERY_IDS if q not in ("lex-1", "lex-2", "lex-3")),
    ]
    result = gate(baseline_of(base), results_of(now), GateSettings(diff=2))
    row = rows(result)["fused", "lexical", "ndcg@10"]
    assert row["worst_queries"] == [
        {
            "id": "lex-1",
            "baseline": 1.0,
            "current": 0.0,
            "lost": ["lex-1-main", "lex-1-alt"],
            "gained": ["noise-1", "noise-2"],
            "grades": {"lex-1-main": 3, "lex-1-alt": 2},
            "moved": [],
            "k": 10,
            "category": "lexical",
            "dropped_on": {"ndcg@10": [1.0, 0.0], "mrr": [1.0, 0.0]},
        },
        {
            "id": "lex-3",
            "baseline": 1.0,
            "current": 0.0,
            "lost": ["lex-3-main", "lex-3-alt"],
            "gained": [],
            "grades": {"lex-3-main": 3, "lex-3-alt": 2},
            "moved": [],
            "error": "the retriever raised KeyError: 'x'",
            "k": 10,
            "category": "lexical",
            "dropped_on": {"ndcg@10": [1.0, 0.0], "mrr": [1.0, 0.0]},
        },
    ]
    text = explain(result)
    assert "  fused lex-1 (lexical): ndcg@10 1.000 -> 0.000, mrr 1.000 -> 0.000" in (
        text.splitlines()
    )
    assert (
        "    top 10: lost lex-1-main (3), lex-1-alt (2); gained noise-1 (-), noise-2 (-)"
    ) in text.splitlines()
    assert "and what was lost and gained (grade; - = unjudged)):" in text  # what (-) means
    assert "; error: the retriever raised KeyError: 'x'" in text
    assert headline(result).startswith(
        "retrieval gate: FAILED: fused / lexical / ndcg@10 1.000 -> 0.350 (-0.650, allowed "
        "0.020), worst: lex-1, lex-3; "
    )


def _over_budget(configuration: str, statistic: str) -> LatencyBreach:
    limit = LatencyLimit(statistic, 0.04)
    return LatencyBreach(configuration, limit, 50.0, (("slow-query", 50.0),))


def test_the_headline_counts_the_latency_budgets_it_leaves_out() -> None:
    """Four budgets exceeded: the headline names three and counts the fourth, as it
    counts breached rows, and budgets after breached rows are counted too."""
    over = [_over_budget(c, s) for c in ("bm25", "dense") for s in ("p95", "max")]
    budgets = GateResult(verdict="failed", baseline="b.json", latency=over)
    line = headline(budgets)
    assert line.count("is over its budget") == 3
    assert line.endswith("; and 1 more latency budget exceeded")
    now = [record(q, 0.5) for q in QUERY_IDS]
    both = gate(baseline_of(perfect()), results_of(now))
    both.latency = over
    rows = len(both.breached)
    assert rows > 3
    assert headline(both).endswith(
        f"; and {rows - 3} more breached rows and 4 more latency budgets exceeded"
    )


def test_explain_shows_the_table_of_breaches() -> None:
    now = [record(q, 0.5) for q in QUERY_IDS]
    result = gate(baseline_of(perfect()), results_of(now))
    lines = explain(result, GateSettings().tolerance).splitlines()
    assert lines[0] == (
        "retrieval gate: FAILED (baseline golden/baseline.json, tolerance 0.02, mode absolute)"
    )
    assert lines[1] == "  fused: 0 queries improved, 6 degraded, 0 unchanged"
    lines = lines[1:]
    header = lines[2].split()
    assert header[:7] == [
        "configuration",
        "category",
        "metric",
        "n",
        "baseline",
        "current",
        "delta",
    ]
    assert header[7] == "allowed"
    assert lines[4].split()[:7] == ["fused", "all", "ndcg@10", "6", "1.000", "0.500", "-0.500"]


def fsum_mean(values: Mapping[str, float]) -> float:
    return math.fsum(values.values()) / len(values)


def test_means_are_exact_whatever_the_order_records_arrived_in() -> None:
    values = {q: (i * 0.1) % 1 for i, q in enumerate(QUERY_IDS)}
    base = baseline_of(perfect())
    forward = results_of([record(q, v) for q, v in values.items()])
    backward = results_of([record(q, v) for q, v in reversed(values.items())])
    a, b = rows(gate(base, forward)), rows(gate(base, backward))
    assert a == b
    assert a["fused", "all", "ndcg@10"]["current"] == fsum_mean(values)


def test_worst_queries_show_judged_results_that_moved_before_lost_and_gained() -> None:
    """A relevant result that slipped from rank 1 to 4 is the cause, not the newcomer."""
    base = [record("lex-1", retrieved=["lex-1-main", "a", "b", "c"])]
    base[0].grades = {"lex-1-main": 3}
    now = record("lex-1", 0.43, retrieved=["new-1", "a", "b", "lex-1-main"])
    now.grades = {"lex-1-main": 3}
    result = gate(baseline_of(base), results_of([now]), GateSettings(metrics=("ndcg@10",)))
    (row,) = [r for r in result.rows if r.category == "all"]
    (worst,) = row.worst_queries
    assert worst.as_dict()["moved"] == [{"id": "lex-1-main", "from": 1, "to": 4, "grade": 3}]
    assert (worst.lost, worst.gained) == (["c"], ["new-1"])
    lines = explain(result).splitlines()
    assert "  fused lex-1 (lexical): ndcg@10 1.000 -> 0.430" in lines
    assert "    top 10: moved lex-1-main 1→4 (3); lost c (-); gained new-1 (-)" in lines


def test_gate_intervals_come_from_the_category_s_shared_draws() -> None:
    """Each row's interval is the percentile bootstrap of its differences, drawn with the
    shared generator of its queries; the analysis's draws give the same rows as fresh ones."""
    values = {"lex-1": 0.2, "lex-2": 0.9, "lex-3": 0.5, "lex-4": 0.7}
    now = [record(q, values.get(q, 1.0), mrr=values.get(q, 1.0) / 2) for q in QUERY_IDS]
    baseline, results = baseline_of(perfect()), results_of(now)
    fresh = gate(baseline, results)
    analysis = analyse(results, SETTINGS, STATS)
    shared = run_gate(
        baseline, "golden/baseline.json", results, SETTINGS, GateSettings(), STATS, facts(),
        analysis.draws,
    )  # fmt: skip
    assert rows(shared) == rows(fresh)
    for metric, scale in (("ndcg@10", 1.0), ("mrr", 0.5)):
        diffs = [values[q] * scale - 1.0 for q in CATEGORIES["lexical"]]
        key = queries_key(CATEGORIES["lexical"])  # the draws of the row's queries
        boot = bootstrap_means([diffs], STATS.resamples, rng_for(STATS.seed, "shared", key))
        means = sorted(boot[0])
        expected = [quantile(means, 0.025), quantile(means, 0.975)]
        assert rows(fresh)["fused", "lexical", metric]["ci"] == expected
    assert rows(fresh)["fused", "para", "ndcg@10"]["ci"] == [0.0, 0.0]  # unchanged: no width


def test_a_gated_configuration_named_in_the_settings_but_not_run_names_the_setting() -> None:
    result = gate(
        baseline_of(perfect()),
        results_of([]),
        GateSettings(configurations=("fused",)),
        facts(selected=frozenset({"bm25"}), collected=frozenset({"bm25"})),
    )
    assert result.verdict == "failed"
    assert result.messages == [
        "retrieval_gate_configurations names 'fused', which this run does not have "
        "(configurations: bm25)"
    ]


def test_the_update_hint_names_a_baseline_that_is_not_the_default_one() -> None:
    from pytest_retrieval.baseline import update_hint

    assert update_hint("golden/baseline.json") == (
        "pytest --retrieval-eval --retrieval-update-baseline"
    )
    assert update_hint("/tmp/b.json") == (
        "pytest --retrieval-eval --retrieval-update-baseline --retrieval-baseline=/tmp/b.json"
    )
    selection = [("-k", "bm25 and lex"), ("-m", "fast")]
    assert update_hint("golden/baseline.json", ("a.trec",), ("retrieval_k=5",), selection) == (
        "pytest --retrieval-eval --retrieval-update-baseline -k 'bm25 and lex' -m fast "
        "-o retrieval_k=5 --retrieval-replay=a.trec"
    )


def test_a_dropped_query_is_explained_with_every_metric_it_dropped_on() -> None:
    """lex-1 is the worst on mrr, lex-2 on nDCG@10 (one worst query a row): lex-1's
    line still names its small nDCG@10 drop, and the JSON holds it."""
    now = [record(q) for q in QUERY_IDS if q not in ("lex-1", "lex-2")]
    now += [record("lex-1", 0.95, mrr=0.0), record("lex-2", 0.0, mrr=1.0)]
    result = gate(baseline_of(perfect()), results_of(now), GateSettings(diff=1))
    assert result.verdict == "failed"
    text = explain(result, GateSettings().tolerance)
    lex1 = next(line for line in text.splitlines() if "fused lex-1 (lexical):" in line)
    assert lex1.endswith("mrr 1.000 -> 0.000, ndcg@10 1.000 -> 0.950"), lex1
    lex2 = next(line for line in text.splitlines() if "fused lex-2 (lexical):" in line)
    assert lex2.endswith("ndcg@10 1.000 -> 0.000"), lex2  # its mrr did not drop
    worst = rows(result)["fused", "lexical", "mrr"]["worst_queries"]
    assert worst[0]["dropped_on"] == {"ndcg@10": [1.0, 0.95], "mrr": [1.0, 0.0]}


def test_a_configuration_whose_every_query_errored_is_named_as_the_cause_first() -> None:
    """A fixture that cannot be built errors every query: each scores 0 and every row
    breaches, which read as a quality regression unless the errors are named first."""
    down = [
        record(q, 0.0, "fused", outcome="error", error="setup failed: RuntimeError: index gone")
        for q in QUERY_IDS
    ]
    other = perfect("bm25")
    result = gate(baseline_of(perfect(), other), results_of(down, other))
    assert result.verdict == "failed" and result.all_errored == ["fused"]
    assert result.messages[0] == (
        f"fused: every one of its {len(QUERY_IDS)} queries errored in this run (the first: "
        "setup failed: RuntimeError: index gone), so each scores 0 and its rows drop for "
        "that reason alone: fix the error (each item shows it), then compare again"
    )
    assert headline(result).startswith(
        "retrieval gate: FAILED: every query of fused errored (each item says why), so its "
        "rows fall to 0; fused / "
    )
    parked = [*down[:-1], record(QUERY_IDS[-1], outcome="skipped")]  # skip: in the file
    assert gate(baseline_of(perfect(), other), results_of(parked, other)).all_errored == ["fused"]
    partly = [*down[:-1], record(QUERY_IDS[-1], 1.0, "fused")]  # one answered: not named
    assert gate(baseline_of(perfect(), other), results_of(partly, other)).all_errored == []


def test_the_rows_of_a_configuration_whose_every_query_errored_are_counted_not_listed() -> None:
    """A CI job without the service (a replay forgotten): every row of each configuration
    breached, and the explanation listed them all, then every query as one that dropped
    most, each with the same error, and advised an update: some 200 lines under the one
    that named the cause. A configuration that did regress is still explained in full."""
    down = [
        record(q, 0.0, "fused", outcome="error", error="setup failed: RuntimeError: index gone")
        for q in QUERY_IDS
    ]
    worse = [record(q, 0.5 if q == QUERY_IDS[0] else 1.0, "bm25") for q in QUERY_IDS]
    result = gate(baseline_of(perfect(), perfect("bm25")), results_of(down, worse))
    fused_rows = [r for r in result.listed(result.breached) if r.configuration == "fused"]
    assert fused_rows and any(r.configuration == "bm25" for r in result.breached)
    text = " ".join(explain(result, GateSettings().tolerance).split())
    assert (
        f"{len(fused_rows)} breached rows of fused not listed: every query errored, so each "
        "row is 0 by that alone (the JSON report's gate.rows has them)"
    ) in text
    assert "fused lex-" not in text and "fused sem-" not in text  # no query listed
    assert "fused: " not in text.split("not listed", 1)[1]  # nor counted as unnamed
    assert f"bm25 {QUERY_IDS[0]} (" in text  # the real regression, in full
    assert "if these drops are intended" in text
    alone = gate(baseline_of(perfect()), results_of(down))
    text = " ".join(explain(alone, GateSettings().tolerance).split())
    assert "if these drops are intended" not in text and "configuration " not in text


@pytest.mark.parametrize("ran", [1, 2])
def test_a_run_of_part_of_the_golden_set_names_what_selected_it_and_counts_in_words(
    ran: int,
) -> None:
    """After ``--lf`` the note said "(-k, -m or the paths given)" and "compares the 2 run,
    on both sides": now it names what the plugin layer says selected the run, and the
    count has its noun."""
    ids = QUERY_IDS[:ran]
    selection = "--lf/--last-failed, -k, -m or the paths given"
    result = gate(baseline_of(perfect()), results_of(perfect(ids=ids)),
                  run_facts=facts(selection=selection))  # fmt: skip
    left = len(QUERY_IDS) - ran
    both = "1 query" if ran == 1 else f"{ran} queries"
    assert (
        f"fused: {left} {'query' if left == 1 else 'queries'} of the baseline's not in this run "
        f"({selection}): each row, 'all' too, compares only the {both} run on both sides"
    ) in result.messages, result.messages


def test_a_breach_that_rounds_to_the_tolerance_shows_the_digits_that_tell_them_apart() -> None:
    """A drop of 0.0204 against 0.02 read `-0.020, allowed 0.020` beside FAILED."""
    now = [record(q, 0.8776 if q == "lex-1" else 1.0, mrr=1.0) for q in QUERY_IDS]
    result = gate(baseline_of(perfect()), results_of(now))
    by_key = {(r.category, r.metric): r for r in result.breached}
    assert set(by_key) == {("all", "ndcg@10"), ("lexical", "ndcg@10")}
    assert "fused / all / ndcg@10 1.000 -> 0.980 (-0.0204, allowed 0.0200)" in headline(result)
    assert "(-0.031, allowed 0.020)" in headline(result)  # apart at 3 decimals: 3 shown
    text = explain(result, GateSettings().tolerance)
    row = next(line for line in text.splitlines() if line.startswith("fused  ") and " all " in line)
    assert row.split()[5:8] == ["0.980", "-0.0204", "0.0200"]


def test_a_query_moved_to_another_category_is_named_and_compared_in_its_new_one() -> None:
    """The golden file moved lex-1 to para: it was paired and compared without a word,
    though the category rows' n and means then differ from the baseline's."""
    import dataclasses

    now = [dataclasses.replace(r, category="para") if r.id == "lex-1" else r for r in perfect()]
    result = gate(baseline_of(perfect()), results_of(now))
    assert result.verdict == "passed"
    assert [r.as_dict() for r in result.recategorized] == [
        {"id": "lex-1", "before": "lexical", "after": "para"}
    ]
    assert result.as_dict()["recategorized"] == [
        {"id": "lex-1", "before": "lexical", "after": "para"}
    ]
    assert {(r.category, r.n) for r in result.rows} == {("all", 6), ("lexical", 3), ("para", 3)}
    said = " ".join(explain(result, GateSettings().tolerance).split())
    assert (
        "moved to another category since the baseline (each compared in its new one, on both "
        "sides): lex-1 (lexical -> para)"
    ) in said


def test_an_id_renamed_in_the_golden_file_is_named_as_a_rename() -> None:
    """lex-1 renamed lex-one (same text and judgments) read as one query removed and
    another added, unrelated."""
    now = [record("lex-one", fingerprint="fp-lex-1"), *perfect(ids=QUERY_IDS[1:])]
    assert QUERY_IDS[0] == "lex-1"
    golden = {**dict.fromkeys(QUERY_IDS[1:], "golden/core.yaml"), "lex-one": "golden/core.yaml"}
    run_facts = RunFacts(golden_ids=golden, existing_files=frozenset({"golden/core.yaml"}))
    result = gate(baseline_of(perfect()), results_of(now), run_facts=run_facts)
    assert result.verdict == "passed"
    assert (result.added, result.removed) == (["lex-one"], ["lex-1"])  # as before, in JSON
    assert result.as_dict()["renamed"] == [{"before": "lex-1", "after": "lex-one"}]
    said = " ".join(explain(result, GateSettings().tolerance).split())
    assert (
        "renamed since the baseline (same text and judgments; compared once the baseline is "
        "updated): lex-1 -> lex-one"
    ) in said
    assert "not in the baseline" not in said and "no longer in the golden set" not in said


def test_no_rename_is_named_from_an_empty_or_shared_fingerprint() -> None:
    """Every added id was named a rename of one removed id when their fingerprints were
    empty (a report written before it kept them), and two added queries alike were both
    named renames of one."""
    from pytest_retrieval.gate import _renames

    assert _renames({"a": ""}, {"b": "", "c": ""}) == set()
    assert _renames({"a": "fp"}, {"b": "fp", "c": "fp"}) == set()
    assert _renames({"a": "fp", "z": "fp"}, {"b": "fp"}) == set()
    assert {(r.before, r.after) for r in _renames({"a": "fp", "x": "q"}, {"b": "fp"})} == {
        ("a", "b")
    }


def test_a_query_that_degraded_within_the_tolerance_is_named() -> None:
    """'fused: 0 queries improved, 1 degraded, 5 unchanged' under PASSED named no query,
    and no list of worst queries does when no row breached: -v did not say which either."""
    now = [record(q, 0.99 if q == "lex-2" else 1.0, mrr=1.0) for q in QUERY_IDS]
    result = gate(baseline_of(perfect()), results_of(now))
    assert result.verdict == "passed"
    lines = explain(result, GateSettings().tolerance).splitlines()
    at = lines.index("  fused: 0 queries improved, 1 degraded, 5 unchanged")
    assert lines[at + 1] == "    degraded within the tolerance: lex-2"
    assert result.counts["fused"].as_dict() == {"improved": 0, "degraded": 1, "unchanged": 5}
    # a breached configuration's worst queries are named below: not twice
    failed = gate(baseline_of(perfect()), results_of([record(q, 0.5) for q in QUERY_IDS]))
    assert "degraded within the tolerance" not in explain(failed, GateSettings().tolerance)


def test_the_update_advice_after_a_partial_run_says_what_the_command_records() -> None:
    """After `-k lex` the advice was the bare update command, which runs and records every
    query of every configuration, drops the reader never saw included."""
    now = [record(q, 0.5) for q in CATEGORIES["lexical"]]
    result = gate(baseline_of(perfect()), results_of(now))
    assert result.verdict == "failed" and result.partial
    said = " ".join(explain(result, GateSettings().tolerance).split())
    assert (
        "if these drops are intended, run `pytest --retrieval-eval --retrieval-update-baseline` "
        "and commit the baseline (with this run's selection, its -k, -m or paths, added to it, "
        "it records only the queries compared here; as it stands, it runs and records every "
        "query)"
    ) in said
    whole = gate(baseline_of(perfect()), results_of([record(q, 0.5) for q in QUERY_IDS]))
    assert not whole.partial
    assert "this run's selection" not in explain(whole, GateSettings().tolerance)


UPDATE_HINT = "run `pytest --retrieval-eval --retrieval-update-baseline`"


def with_metrics(*names: str) -> Baseline:
    base = baseline_of(perfect())
    base.settings = {**base.settings, "metrics": list(names)}
    return base


def test_a_metric_added_to_the_run_is_named_and_the_shared_ones_still_gated() -> None:
    """A team adds a metric: the gate compares the ones the baseline has (a drop there
    still fails) and says the new one is not gated until the baseline is updated."""
    now = [record(q, 0.0 if q in ("lex-2", "lex-3") else 1.0, mrr=1.0) for q in QUERY_IDS]
    result = gate(with_metrics("ndcg@10"), results_of(now))
    assert result.verdict == "failed"
    assert {r.metric for r in result.rows} == {"ndcg@10"}
    note = (
        "metric 'mrr' of this run is not in the baseline: not gated until the baseline is "
        f"updated; {UPDATE_HINT} to add it"
    )
    assert note in result.messages
    assert note in explain(result, GateSettings().tolerance)
    assert note in result.as_dict()["messages"]  # type: ignore[operator]
    quiet = gate(with_metrics("ndcg@10"), results_of(perfect()))
    assert quiet.verdict == "passed" and note in quiet.messages


def test_a_metric_the_run_no_longer_computes_is_named_not_gated() -> None:
    result = gate(with_metrics("ndcg@10", "mrr", "map"), results_of(perfect()))
    assert result.verdict == "passed"
    assert {r.metric for r in result.rows} == {"ndcg@10", "mrr"}
    assert result.messages == [
        "the baseline's metric 'map' is not in this run's retrieval_metrics: not gated (an "
        "update drops it; put it back in retrieval_metrics to gate it)"
    ]


def test_a_cutoff_changed_is_one_metric_gone_and_one_added() -> None:
    result = gate(with_metrics("ndcg@5", "mrr"), results_of(perfect()))
    assert result.verdict == "passed"
    assert {r.metric for r in result.rows} == {"mrr"}
    assert result.messages == [
        "metric 'ndcg@10' of this run is not in the baseline: not gated until the baseline "
        f"is updated; {UPDATE_HINT} to add it",
        "the baseline's metric 'ndcg@5' is not in this run's retrieval_metrics: not gated (an "
        "update drops it; put it back in retrieval_metrics to gate it)",
    ]


def test_a_gated_metric_the_baseline_lacks_refuses_naming_it_and_the_fix() -> None:
    result = gate(with_metrics("ndcg@10"), results_of(perfect()), GateSettings(metrics=("mrr",)))
    assert result.verdict == "refused" and result.rows == []
    assert result.messages == [
        "retrieval_gate_metrics names 'mrr', which the baseline golden/baseline.json does "
        f"not hold (its metrics: ndcg@10): nothing to compare it with; {UPDATE_HINT} to add "
        "it, or take it out of retrieval_gate_metrics until the baseline has it"
    ]
    held = gate(with_metrics("ndcg@10"), results_of(perfect()), GateSettings(metrics=("ndcg@10",)))
    assert held.verdict == "passed" and {r.metric for r in held.rows} == {"ndcg@10"}


def test_the_verdict_line_counts_a_twin_of_all_once() -> None:
    """A single category's rows are its all rows again: the list of drops beyond the
    tolerance but not significant names one row, and the verdict line above it said 2."""

    def row(category: str) -> GateRow:
        return GateRow(
            "bm25", category, "mrr", 10, 0.8, 0.7, -0.1, 0.02, False, [-0.2, 0.01], 0.2,
            "exact", p_holm=0.4, beyond=True,
        )  # fmt: skip

    result = GateResult("passed", "b.json", rows=[row("all"), row("uncategorized")])
    result.mode = "significant"
    tolerance = parse_tolerance("0.02")
    assert "; 1 row dropped beyond the tolerance but not significantly)" in verdict_line(
        result, tolerance
    )
    assert "dropped beyond the tolerance but not significantly (1):" in explain(result, tolerance)
