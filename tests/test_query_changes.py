"""Unit tests of the per-query comparison with the baseline: counts and judged rank moves."""

from __future__ import annotations

from test_gate import baseline_of, gate, perfect, record, results_of  # beside this file

from pytest_retrieval.model import QueryRecord, metric_columns
from pytest_retrieval.query_changes import JudgedMove, QueryCounts, count_changes, judged_moves


def counted(pairs: list[tuple[QueryRecord, QueryRecord]], metrics: list[str]) -> QueryCounts:
    """count_changes of (baseline, run) pairs, read into the columns the gate gives it."""
    olds = metric_columns([old for old, _ in pairs], metrics)
    return count_changes(olds, metric_columns([new for _, new in pairs], metrics))


def test_degraded_on_any_metric_improved_only_without_a_drop() -> None:
    metrics = ["ndcg@10", "mrr"]
    base = record("lex-1", 0.5, mrr=0.5)
    pairs = [
        (base, record("lex-1", 0.5, mrr=0.5)),  # unchanged
        (base, record("lex-1", 0.5 + 1e-12, mrr=0.5)),  # unchanged: within 1e-9
        (base, record("lex-1", 0.6, mrr=0.5)),  # improved
        (base, record("lex-1", 0.9, mrr=0.4)),  # degraded: one metric dropped
        (base, record("lex-1", 0.4, mrr=0.9)),  # degraded
    ]
    assert counted(pairs, metrics) == QueryCounts(improved=1, degraded=2, unchanged=2)
    assert counted(pairs, ["mrr"]) == QueryCounts(improved=1, degraded=1, unchanged=3)
    assert QueryCounts(1, 2, 3).text() == "1 query improved, 2 degraded, 3 unchanged"
    assert QueryCounts(2, 0, 0).text() == "2 queries improved, 0 degraded, 0 unchanged"
    assert QueryCounts(1, 2, 3).compared == 6


def test_a_metric_without_a_value_on_one_side_is_not_counted() -> None:
    old = record("lex-1", 0.5)
    old.metrics["mrr"] = None
    new = record("lex-1", 0.5, mrr=0.0)
    assert counted([(old, new)], ["ndcg@10", "mrr"]) == QueryCounts(unchanged=1)


def test_the_gate_counts_per_compared_configuration_over_the_gated_metrics() -> None:
    now = perfect()
    now[0] = record(now[0].id, 0.5)  # dropped on both metrics
    now[1] = record(now[1].id, 1.0, mrr=0.5)  # dropped on mrr only
    before = [record(q.id, 0.9) for q in perfect()]
    result = gate(baseline_of(before), results_of(now))
    assert result.counts == {"fused": QueryCounts(improved=4, degraded=2, unchanged=0)}
    assert result.as_dict()["counts"] == {"fused": {"improved": 4, "degraded": 2, "unchanged": 0}}


def test_judged_moves_say_where_each_judged_result_went() -> None:
    old = record("q", retrieved=["q-main", "x", "q-alt", "q-low"])
    old.grades = {"q-main": 3, "q-alt": 2, "q-low": 1}
    new = record("q", retrieved=["x", "q-main", "q-new", "q-alt"])
    new.grades = {"q-main": 3, "q-new": 2, "q-alt": 2}
    assert judged_moves(old, new) == [
        JudgedMove("q-main", 1, 2, 3),
        JudgedMove("q-alt", 3, 4, 2),
        JudgedMove("q-new", None, 3, 2),  # entered
        JudgedMove("q-low", 4, None, 1),  # left
    ]
    assert judged_moves(old, old) == []


def test_counts_of_thousands_are_written_as_every_count_is() -> None:
    """'6432 degraded, 13568 unchanged' stood beside '3,989 more' in one run's output."""
    from pytest_retrieval.golden import Problem
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.common import counted as counted_noun

    assert (
        QueryCounts(1, 6432, 13568).text() == "1 query improved, 6,432 degraded, 13,568 unchanged"
    )
    assert counted_noun(20000, "golden query", "golden queries") == "20,000 golden queries"
    assert counted_noun(1, "query") == "1 query"
    error = FormatError([Problem("f", 1, "bad")], more=4211)
    assert str(error).endswith("... and 4,211 more problems")
