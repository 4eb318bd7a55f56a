"""bpref (trec_eval's definition) and judged@k (a coverage measure, like ir_measures' Judged@k).

bpref is checked by hand, and against pytrec_eval (trec_eval's own code) on generated
data at thresholds 1..3. judged@k is checked against ir_measures on generated data
with all-zero-grade queries and thresholds 1..3: it ignores the threshold and the
empty convention. For a run that returned nothing it is 0.0, which is what
ir_measures gives a query missing from the run (ir_measures 0.4.3 divides by zero on
a query present in the run with no documents).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_retrieval.metrics import (
    EMPTY_CONVENTIONS,
    Conventions,
    MetricNameError,
    bpref,
    evaluate,
    parse_metric,
    parse_metrics,
)

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

PLACEHOLDER = "__never_retrieved__"

# --------------------------------------------------------------------------- bpref

# r1 (grade 2) and r2 (grade 1) relevant at threshold 1; n1..n3 judged 0; u unjudged
JUDGED = {"r1": 2, "r2": 1, "n1": 0, "n2": 0, "n3": 0}


@pytest.mark.parametrize(
    ("ranking", "threshold", "expected"),
    [
        # R = 2, N = 3, min(N, R) = 2: r1 has n1 above (1 - 1/2), r2 has n1, n2 (1 - 2/2)
        (["n1", "r1", "u", "n2", "r2"], 1, (0.5 + 0.0) / 2),
        # r1 first (1), r2 after n1 (1 - 1/2)
        (["r1", "n1", "r2"], 1, (1.0 + 0.5) / 2),
        # the unjudged u is skipped, not taken as nonrelevant
        (["u", "u2", "r1", "r2"], 1, 1.0),
        # a relevant document that is not retrieved adds nothing
        (["r1"], 1, 0.5),
        # threshold 2: R = 1 (r1), N = 4 (r2 is judged below it), min = 1; n1 above r1
        (["n1", "r1", "r2"], 2, 0.0),
        (["r2", "r1"], 2, 0.0),
        (["r1", "r2"], 2, 1.0),
        # more nonrelevant above than R: min(n, R) caps the penalty
        (["n1", "n2", "n3", "r1", "r2"], 1, 0.0),
    ],
)
def test_bpref_by_hand(ranking, threshold, expected):
    assert bpref(ranking, JUDGED, threshold) == pytest.approx(expected)


def test_bpref_without_nonrelevant_judgments_never_divides_by_zero():
    assert bpref(["x", "a", "b"], {"a": 1, "b": 3}, 1) == 1.0
    assert bpref([], {"a": 1}, 1) == 0.0


def test_bpref_name_and_conventions():
    assert parse_metric("Bpref").name == "bpref"  # the ir_measures spelling
    assert parse_metric("BPREF").name == "bpref"
    with pytest.raises(MetricNameError, match="takes no cut"):
        parse_metric("bpref@10")
    # nothing to find at the threshold: the empty convention, like every binary metric
    metrics = parse_metrics(["bpref"])
    assert evaluate(["a"], {"a": 1}, metrics, Conventions(relevance_threshold=2)) == {"bpref": 0.0}
    assert evaluate([], {"a": 1}, metrics, Conventions(relevance_threshold=2)) == {"bpref": 1.0}
    skip = Conventions(relevance_threshold=2, empty="skip")
    assert evaluate([], {"a": 1}, metrics, skip) == {"bpref": None}
    # and the threshold reaches bpref: at 2, grade 1 is nonrelevant
    at_two = Conventions(relevance_threshold=2)
    assert evaluate(["n1", "r1"], JUDGED, metrics, at_two) == {"bpref": 0.0}
    assert evaluate(["n1", "r1"], JUDGED, metrics, Conventions()) == {"bpref": 0.25}


def _trec_bpref(judgments: dict[str, int], ranking: list[str], threshold: int) -> float:
    qrels = {"q": dict(judgments) or {PLACEHOLDER: 0}}
    run = {"q": {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}, relevance_level=threshold)
    return float(evaluator.evaluate(run)["q"]["bpref"])


docs = st.sampled_from([f"d{i}" for i in range(25)])
grades = st.dictionaries(docs, st.integers(0, 3), max_size=15)


@settings(max_examples=300, deadline=None)
@given(
    judgments=grades,
    ranking=st.lists(docs, unique=True, max_size=25),
    threshold=st.integers(1, 3),
)
def test_bpref_equals_trec_eval(judgments, ranking, threshold):
    ours = evaluate(
        ranking,
        judgments,
        parse_metrics(["bpref"]),
        Conventions(gain="linear", relevance_threshold=threshold, empty="zero"),
    )["bpref"]
    assert ours == pytest.approx(_trec_bpref(judgments, ranking, threshold), abs=1e-12)


# --------------------------------------------------------------------------- judged@k

CUTS = (1, 3, 5, 10, 20)


def generated() -> dict[str, tuple[dict[str, int], list[str]]]:
    """qid -> (judgments, ranking): graded, all-zero-grade and sparse queries; no empty run."""
    rnd = random.Random(99)
    pool = [f"doc-{i:03d}" for i in range(200)]
    cases = {}
    for n in range(240):
        judged = rnd.sample(pool, rnd.randint(1, 25))
        if n % 4 == 0:
            judgments = dict.fromkeys(judged, 0)  # all zero: nothing to find at any threshold
        else:
            judgments = {d: rnd.choice((0, 0, 1, 2, 3)) for d in judged}
        ranking = rnd.sample(pool, rnd.randint(1, 30))
        if rnd.random() < 0.3:
            ranking.sort(key=lambda d: (d not in judgments, rnd.random()))
        cases[f"q{n:03d}"] = (judgments, ranking)
    return cases


def _ir_measures_judged(cases: dict[str, tuple[dict[str, int], list[str]]]):
    qrels = {qid: judgments for qid, (judgments, _) in cases.items()}
    run = {qid: {d: float(len(r) - i) for i, d in enumerate(r)} for qid, (_, r) in cases.items()}
    measures = [ir_measures.Judged @ k for k in CUTS]
    out: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        out.setdefault(metric.query_id, {})[f"judged@{metric.measure['cutoff']}"] = metric.value
    return out


@pytest.mark.parametrize("threshold", [1, 2, 3])
@pytest.mark.parametrize("empty", EMPTY_CONVENTIONS)
def test_judged_equals_ir_measures_whatever_the_threshold_and_convention(threshold, empty):
    cases = generated()
    theirs = _ir_measures_judged(cases)
    metrics = parse_metrics([f"judged@{k}" for k in CUTS])
    conventions = Conventions(relevance_threshold=threshold, empty=empty)
    compared = 0
    for qid, (judgments, ranking) in cases.items():
        ours = evaluate(ranking, judgments, metrics, conventions)
        assert ours == pytest.approx(theirs[qid], abs=1e-12), qid
        compared += len(ours)
    assert compared == len(cases) * len(CUTS)
    # not vacuous: all-zero-grade queries are there, and shares vary
    zero_only = [q for q, (j, _) in cases.items() if not any(j.values())]
    assert len(zero_only) >= 50
    assert any(0 < theirs[q]["judged@10"] < 1 for q in zero_only)
    assert len({round(v["judged@10"], 6) for v in theirs.values()}) > 10


@pytest.mark.parametrize("threshold", [1, 2, 3])
@pytest.mark.parametrize("empty", EMPTY_CONVENTIONS)
def test_judged_of_an_empty_run_is_zero(threshold, empty):
    metrics = parse_metrics(["judged@5", "judged@1"])
    conventions = Conventions(relevance_threshold=threshold, empty=empty)
    for judgments in ({"a": 3}, {"a": 0}, {}):
        assert evaluate([], judgments, metrics, conventions) == {"judged@5": 0.0, "judged@1": 0.0}


def test_ir_measures_on_empty_runs():
    """What ir_measures gives when a query returned nothing (pins the behaviour we match)."""
    qrels = {"q1": {"a": 1}, "q2": {"a": 0}}
    missing = list(ir_measures.iter_calc([ir_measures.Judged @ 5], qrels, {"q2": {"a": 1.0}}))
    assert {m.query_id: m.value for m in missing} == {"q1": 0.0, "q2": 1.0}
    try:
        present = list(ir_measures.iter_calc([ir_measures.Judged @ 5], qrels, {"q1": {}}))
    except ZeroDivisionError:
        return  # ir_measures 0.4.3: 0 / min(k, 0)
    assert {m.query_id: m.value for m in present}["q1"] == 0.0


def test_judged_known_answer_ignores_threshold_and_convention():
    judgments = {"a": 0, "b": 0, "c": 0}  # nothing relevant at any threshold
    metrics = parse_metrics(["judged@2", "judged@10", "ndcg@10"])
    for empty in EMPTY_CONVENTIONS:
        values = evaluate(["a", "x", "b"], judgments, metrics, Conventions(empty=empty))
        assert values["judged@2"] == 0.5
        assert values["judged@10"] == pytest.approx(2 / 3)  # of the 3 that came back
    assert evaluate(["x"], {}, metrics, Conventions(empty="one"))["judged@10"] == 0.0
