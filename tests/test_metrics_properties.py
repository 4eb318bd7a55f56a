"""Property tests for the per-query metrics (hypothesis, <= 200 examples each)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_retrieval.metrics import Conventions, dcg, evaluate, parse_metric, parse_metrics
from pytest_retrieval.shapes import dedupe

FAST = settings(max_examples=200, deadline=None)

JUDGED_POOL = [f"d{i}" for i in range(12)]
UNJUDGED_POOL = [f"u{i}" for i in range(8)]
KS = (1, 2, 3, 5, 10, 20)
ALL_METRICS = parse_metrics(
    ["ndcg", "mrr", "map", "r_precision"]
    + [
        f"{base}@{k}"
        for base in ("ndcg", "mrr", "recall", "precision", "hit_rate", "map", "judged")
        for k in KS
    ]
)

judgments_st = st.dictionaries(st.sampled_from(JUDGED_POOL), st.integers(0, 3), max_size=12)
ranking_st = st.lists(st.sampled_from(JUDGED_POOL + UNJUDGED_POOL), unique=True, max_size=20)
conventions_st = st.builds(
    Conventions,
    gain=st.sampled_from(["exponential", "linear"]),
    relevance_threshold=st.integers(1, 3),
    empty=st.sampled_from(["abstain", "one", "zero", "skip"]),
)


def _relevant(judgments, threshold=1):
    return {d for d, g in judgments.items() if g >= threshold}


ZERO = Conventions(empty="zero")


def _one(ranking, judgments, name, conventions=ZERO):
    metric = parse_metric(name)
    return evaluate(ranking, judgments, [metric], conventions)[metric.name]


@FAST
@given(judgments_st, ranking_st, conventions_st)
def test_every_metric_is_in_unit_interval(judgments, ranking, conventions):
    values = evaluate(ranking, judgments, ALL_METRICS, conventions)
    assert list(values) == [m.name for m in ALL_METRICS]
    for name, value in values.items():
        threshold = 1 if name.startswith("ndcg") else conventions.relevance_threshold
        nothing_to_find = not _relevant(judgments, threshold) and not name.startswith("judged")
        if conventions.empty == "skip":
            assert (value is None) == nothing_to_find, (name, value)
        if value is not None:
            assert 0.0 <= value <= 1.0 + 1e-12, (name, value)


@st.composite
def graded_query(draw, threshold=1):
    """Judgments with at least one grade >= threshold."""
    judgments = draw(judgments_st)
    doc = draw(st.sampled_from(JUDGED_POOL))
    judgments[doc] = draw(st.integers(threshold, 3))
    return judgments


@FAST
@given(
    st.integers(1, 3).flatmap(lambda t: st.tuples(st.just(t), graded_query(t))),
    st.sampled_from(["exponential", "linear"]),
    st.sampled_from(["abstain", "one", "zero", "skip"]),
)
def test_perfect_ranking_scores_one(threshold_judgments, gain, empty):
    threshold, judgments = threshold_judgments
    perfect = sorted(judgments, key=lambda d: (-judgments[d], d))
    relevant = _relevant(judgments, threshold)
    conventions = Conventions(gain=gain, relevance_threshold=threshold, empty=empty)
    names = ["ndcg", "mrr", "map", "r_precision"]
    names += [f"ndcg@{k}" for k in KS] + [f"hit_rate@{k}" for k in KS] + [f"mrr@{k}" for k in KS]
    names += [f"recall@{k}" for k in KS if k >= len(relevant)]
    names += [f"map@{k}" for k in KS if k >= len(relevant)]
    names += [f"precision@{k}" for k in KS if k <= len(relevant)]
    values = evaluate(perfect, judgments, parse_metrics(names), conventions)
    for name, value in values.items():
        assert abs(value - 1.0) < 1e-12, (name, value, perfect, judgments)


@FAST
@given(judgments_st, ranking_st, st.sampled_from(KS), st.randoms(use_true_random=False))
def test_recall_invariant_under_permutations_of_top_k(judgments, ranking, k, rnd):
    top = ranking[:k]
    rnd.shuffle(top)
    shuffled = top + ranking[k:]
    name = f"recall@{k}"
    for threshold in (1, 2):
        conventions = Conventions(relevance_threshold=threshold, empty="zero")
        assert _one(shuffled, judgments, name, conventions) == _one(
            ranking, judgments, name, conventions
        )
    assert _one(shuffled, judgments, f"precision@{k}") == _one(ranking, judgments, f"precision@{k}")
    assert _one(shuffled, judgments, f"hit_rate@{k}") == _one(ranking, judgments, f"hit_rate@{k}")


@FAST
@given(graded_query(), ranking_st, st.sampled_from(["exponential", "linear"]))
def test_recall_hit_rate_and_dcg_non_decreasing_in_k(judgments, ranking, gain):
    previous = {"recall": 0.0, "hit_rate": 0.0, "dcg": 0.0}
    for k in range(1, 25):
        current = {
            "recall": _one(ranking, judgments, f"recall@{k}"),
            "hit_rate": _one(ranking, judgments, f"hit_rate@{k}"),
            "dcg": dcg(ranking, judgments, k, gain),
        }
        for key, value in current.items():
            assert value >= previous[key] - 1e-12, (key, k)
        previous = current
    assert previous["recall"] == _one(ranking, judgments, "recall@1000")
    assert abs(previous["dcg"] - dcg(ranking, judgments, None, gain)) < 1e-12


@FAST
@given(graded_query(), ranking_st, st.sampled_from(KS), st.integers(1, 3))
def test_precision_times_k_is_recall_times_r(judgments, ranking, k, threshold):
    relevant = _relevant(judgments, threshold)
    conventions = Conventions(relevance_threshold=threshold, empty="zero")
    p = _one(ranking, judgments, f"precision@{k}", conventions)
    r = _one(ranking, judgments, f"recall@{k}", conventions)
    assert abs(p * k - r * len(relevant)) < 1e-9
    hits = sum(1 for doc in ranking[:k] if doc in relevant)
    assert abs(p * k - hits) < 1e-9


@FAST
@given(
    graded_query(),
    ranking_st,
    st.lists(st.sampled_from([f"new{i}" for i in range(10)]), unique=True, min_size=1),
    st.sampled_from(["exponential", "linear"]),
    st.sampled_from(["abstain", "one", "zero", "skip"]),
)
def test_unjudged_docs_appended_change_nothing_within_the_cut(
    judgments, ranking, extra, gain, empty
):
    longer = ranking + extra
    conventions = Conventions(gain=gain, empty=empty)
    names = ["ndcg", "mrr", "map", "r_precision"]
    names += [
        f"{b}@{k}" for b in ("ndcg", "mrr", "recall", "precision", "hit_rate", "map") for k in KS
    ]
    metrics = parse_metrics(names)
    assert evaluate(longer, judgments, metrics, conventions) == evaluate(
        ranking, judgments, metrics, conventions
    )
    # judged@k only looks at the top min(k, returned): unchanged when the cut holds
    for k in KS:
        if len(ranking) >= k:
            name = f"judged@{k}"
            assert _one(longer, judgments, name, conventions) == _one(
                ranking, judgments, name, conventions
            )


@FAST
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), max_size=30))
def test_dedupe_is_idempotent_and_keeps_first_occurrences(ids):
    ranking, repeats = dedupe(ids)
    assert dedupe(ranking) == (ranking, 0)
    assert len(ranking) == len(set(ids))
    assert repeats == len(ids) - len(set(ids))
    assert ranking == sorted(set(ids), key=ids.index)


@FAST
@given(judgments_st, ranking_st)
def test_abstain_rewards_only_an_empty_answer_to_nothing(judgments, ranking):
    judgments = {d: 0 for d in judgments}  # nothing relevant
    values = evaluate(ranking, judgments, ALL_METRICS, Conventions(empty="abstain"))
    expected = 0.0 if ranking else 1.0
    assert {v for name, v in values.items() if not name.startswith("judged")} == {expected}


@FAST
@given(judgments_st, ranking_st, conventions_st)
def test_the_one_pass_evaluation_equals_the_reference_functions_to_the_bit(
    judgments, ranking, conventions
):
    """evaluate() runs the built-ins from one pass (metrics_pass); each must equal its
    reference function (the MetricSpec's) exactly, not approximately."""
    import dataclasses

    from pytest_retrieval.metrics import REGISTRY, MetricInput

    every = (*ALL_METRICS, *parse_metrics(["bpref", "precision@7", "ndcg@1", "recall@1"]))
    values = evaluate(ranking, judgments, every, conventions)
    given_ = MetricInput(
        ranking, judgments, None, conventions.gain, conventions.relevance_threshold
    )
    for metric in every:
        if values[metric.name] is None or (
            metric.base not in ("judged",) and not _relevant(judgments, 1)
        ):
            continue  # scored by the empty convention, not by the function
        entry = REGISTRY.entry(metric.base)
        reference = entry.spec.function(dataclasses.replace(given_, k=metric.k))
        if entry.spec.nothing_to_find == "no-relevant" and not _relevant(
            judgments, conventions.relevance_threshold
        ):
            continue
        assert values[metric.name] == reference, metric.name


class _Text(str):
    """A str subclass, as numpy.str_ is: kept as it came, on either reading."""


RESULT = st.one_of(
    st.text(min_size=1, max_size=3),
    st.text(min_size=1, max_size=3).map(_Text),
    st.tuples(st.text(min_size=1, max_size=3), st.floats(allow_nan=False, allow_infinity=False)),
    st.tuples(st.text(min_size=1, max_size=3), st.integers(-5, 5)),
    st.integers(0, 99),
    st.fixed_dictionaries({"id": st.text(min_size=1, max_size=3)}),
)


@given(st.lists(RESULT, max_size=12))
def test_the_fast_reading_of_plain_ids_equals_reading_each_result(results: list[object]) -> None:
    """Whole-list reading of ids (all str, or all (str, float) pairs) gives what reading
    every result on its own gives, and leaves every other shape to that reading."""
    from pytest_retrieval.shapes import _result_id, ranked_ids

    try:
        expected = [_result_id(r, rank) for rank, r in enumerate(results, start=1)]
    except TypeError:  # a shape refused: the fast path must refuse it too
        with pytest.raises(TypeError):
            ranked_ids(results)
        return
    read = ranked_ids(results)
    assert read == expected
    assert [type(r) for r in read] == [type(r) for r in expected]
