"""The records read as metric columns (what the statistics and the gate read) against
the records read one by one: the same values, groups, order and pairs."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_retrieval.aggregate import summarize, summarize_rows
from pytest_retrieval.comparisons import common_columns, present_values
from pytest_retrieval.model import (
    ALL,
    FIELD_NAMES,
    ConfigurationRecords,
    QueryRecord,
    Results,
    metric_columns,
)
from pytest_retrieval.query_changes import EPSILON, QueryCounts, count_changes

METRICS = ["ndcg@10", "mrr", "recall@20"]
value = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.floats(0, 1))


@st.composite
def records(draw: st.DrawFn, configuration: str = "bm25") -> list[QueryRecord]:
    """Up to 30 records: ids in any order, three categories, some skipped, None values."""
    ids = draw(st.lists(st.integers(0, 60), max_size=30, unique=True))
    out = []
    for i in ids:
        metrics = {m: draw(value) for m in draw(st.sets(st.sampled_from(METRICS)))}
        outcome = draw(st.sampled_from(["passed", "failed", "error", "skipped", "xfailed"]))
        category = draw(st.sampled_from(["exact", "paraphrase", "no-result"]))
        out.append(QueryRecord(f"q{i}", configuration, category, outcome=outcome, metrics=metrics))
    return out


def view_of(found: list[QueryRecord]) -> ConfigurationRecords:
    results = Results()
    for record in found:
        results.add(record)
    return results.view(found[0].configuration) if found else ConfigurationRecords(())


@settings(max_examples=200, deadline=None)
@given(records(), st.lists(st.sampled_from(METRICS), min_size=1, max_size=3, unique=True))
def test_group_columns_hold_each_group_s_evaluated_values_in_id_order(
    found: list[QueryRecord], metrics: list[str]
) -> None:
    view = view_of(found)
    columns = view.group_columns(metrics)
    assert list(columns) == list(view.evaluated_groups)  # all, then categories by name
    for group, members in view.evaluated_groups.items():
        assert columns[group].ids == [r.id for r in members] == sorted(r.id for r in members)
        assert columns[group].categories == [r.category for r in members]
        assert all(columns[group].evaluated)
        for metric in metrics:
            assert columns[group].values[metric] == [r.metrics.get(metric) for r in members]
    assert view.group_columns(list(metrics)) is columns  # computed once


@settings(max_examples=200, deadline=None)
@given(records())
def test_summaries_from_columns_equal_the_records_means(found: list[QueryRecord]) -> None:
    view = view_of(found)
    summary = summarize(view, METRICS)
    for name, row in [(ALL, summary.all), *summary.categories.items()]:
        members = view.evaluated_groups[name]
        assert row.n == len(members)
        for metric in METRICS:
            present = [r.metrics[metric] for r in members if r.metrics.get(metric) is not None]
            assert row.count(metric) == len(present)
            assert row.values[metric] == (math.fsum(present) / len(present) if present else None)
        assert summarize_rows(members, METRICS) == row


@settings(max_examples=200, deadline=None)
@given(records("bm25"), records("dense"))
def test_common_columns_pair_the_queries_both_evaluated(
    mine: list[QueryRecord], theirs: list[QueryRecord]
) -> None:
    a = metric_columns(sorted((r for r in mine if r.evaluated), key=lambda r: r.id), METRICS)
    b = metric_columns(sorted((r for r in theirs if r.evaluated), key=lambda r: r.id), METRICS)
    cur, ref = common_columns(a, b)
    by_id = {r.id: r for r in theirs if r.evaluated}
    expected = sorted(r.id for r in mine if r.evaluated and r.id in by_id)
    assert cur.ids == ref.ids == expected
    for metric in METRICS:
        pairs = [
            (r.metrics.get(metric), by_id[r.id].metrics.get(metric))
            for r in sorted(mine, key=lambda r: r.id)
            if r.id in expected
        ]
        kept = [(x, y) for x, y in pairs if x is not None and y is not None]
        assert present_values(cur.values[metric], ref.values[metric]) == (
            [x for x, _ in kept],
            [y for _, y in kept],
        )


def _change(old: QueryRecord, new: QueryRecord) -> int:
    """-1 degraded, +1 improved, 0 unchanged: the definition, one pair at a time."""
    moves = [
        (new.metrics[m] > old.metrics[m] + EPSILON) - (new.metrics[m] < old.metrics[m] - EPSILON)
        for m in METRICS
        if old.metrics.get(m) is not None and new.metrics.get(m) is not None
    ]
    return -1 if -1 in moves else int(1 in moves)


@settings(max_examples=200, deadline=None)
@given(records("bm25"), st.data())
def test_count_changes_from_columns_follows_the_definition(
    olds: list[QueryRecord], data: st.DataObject
) -> None:
    news = [
        QueryRecord(
            r.id,
            r.configuration,
            r.category,
            metrics=data.draw(st.fixed_dictionaries({m: value for m in METRICS})),
        )
        for r in olds
    ]
    changes = [_change(old, new) for old, new in zip(olds, news, strict=True)]
    found = count_changes(metric_columns(olds, METRICS), metric_columns(news, METRICS))
    assert found == QueryCounts(changes.count(1), changes.count(-1), changes.count(0))


@settings(max_examples=200, deadline=None)
@given(
    records(),
    st.lists(st.sampled_from(FIELD_NAMES), unique=True),
    st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=4),
)
def test_to_dict_gives_each_named_field_with_containers_copied_and_grades_sorted(
    found: list[QueryRecord], names: list[str], grades: dict[str, int]
) -> None:
    for record in found:
        record.grades, record.retrieved, record.tags = grades, list(grades), ["t"]
        for picked in (names, None):
            out = record.to_dict(picked)
            expected = FIELD_NAMES if picked is None else names
            assert list(out) == list(expected)
            for name in expected:
                value = getattr(record, name)
                assert out[name] == value
                if isinstance(value, (list, dict)):
                    assert out[name] is not value  # a copy: the record's stays as it is
            if "grades" in out:
                assert list(out["grades"]) == sorted(grades)  # type: ignore[call-overload]


def test_a_whole_float_column_holds_equal_copies_and_others_the_values_themselves() -> None:
    """Copies made one after another lie together for the statistics' many walks; a
    column with a None or an int (a custom metric's) keeps the records' own values."""
    values = [0.25 + i / 1000 for i in range(50)]
    records = [
        QueryRecord(f"q{i:02d}", "bm25", "c", metrics={"mrr": v, "p": None if i else 1.0, "n": 1})
        for i, v in enumerate(values)
    ]
    columns = metric_columns(records, ["mrr", "p", "n"])
    mrr = columns.values["mrr"]
    assert mrr == values
    assert all(a is not r.metrics["mrr"] for a, r in zip(mrr, records, strict=True))
    assert all(a is r.metrics["p"] for a, r in zip(columns.values["p"], records, strict=True))
    assert all(type(v) is int for v in columns.values["n"])
