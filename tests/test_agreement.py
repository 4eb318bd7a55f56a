"""Judge agreement: a hand-computed case, scikit-learn on generated data, and the edge cases."""

from __future__ import annotations

import math
import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_retrieval.agreement import AgreementError, AgreementRow, agreement, cohen_kappa

sklearn_metrics = pytest.importorskip("sklearn.metrics")

# (first judge, second judge) for 10 pairs, grades 0..2:
# agreements (0,0)x3 (1,1)x2 (2,2)x1; disagreements (0,1) (1,2) (2,0) (1,0)
HAND = [(0, 0)] * 3 + [(1, 1)] * 2 + [(2, 2), (0, 1), (1, 2), (2, 0), (1, 0)]


def test_hand_computed_kappas():
    # first judge's grades 0,1,2: 4, 4, 2; second's: 5, 3, 2; n = 10, 6 agree
    # unweighted: sum a_i b_i = 20 + 12 + 4 = 36; (10*6 - 36) / (100 - 36) = 24/64
    assert cohen_kappa(HAND, max_grade=2) == 24 / 64
    # linear: sum |i-j| O_ij = 1 + 1 + 2 + 1 = 5; sum |i-j| a_i b_j = 28 + 28 + 26 = 82
    # 1 - 10*5/82 = 32/82
    assert cohen_kappa(HAND, max_grade=2, weighting="linear") == pytest.approx(32 / 82, abs=1e-15)
    # an unused top grade changes nothing
    assert cohen_kappa(HAND, max_grade=3) == 24 / 64
    assert cohen_kappa(HAND, max_grade=3, weighting="linear") == pytest.approx(32 / 82, abs=1e-15)


def judgment_sets(pairs, qid="q"):
    first = {qid: {f"d{i}": a for i, (a, _) in enumerate(pairs)}}
    second = {qid: {f"d{i}": b for i, (_, b) in enumerate(pairs)}}
    return first, second


def test_agreement_rows_for_the_hand_case():
    first, second = judgment_sets(HAND)
    (row,) = [r for r in agreement(first, second, max_grade=2) if r.category == "all"]
    assert row == AgreementRow("all", 10, 1, 0, 0, 0.6, 24 / 64, row.linear_kappa)
    assert row.linear_kappa == pytest.approx(32 / 82, abs=1e-15)


def _sklearn(pairs, max_grade, weights):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sklearn_metrics.cohen_kappa_score(
            a, b, labels=list(range(max_grade + 1)), weights=weights
        )


pairs_st = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(pairs=pairs_st, max_grade=st.sampled_from([3, 4]))
def test_equals_sklearn(pairs, max_grade):
    for ours_weighting, weights in (("unweighted", None), ("linear", "linear")):
        ours = cohen_kappa(pairs, max_grade=max_grade, weighting=ours_weighting)
        theirs = _sklearn(pairs, max_grade, weights)
        if ours is None:
            assert math.isnan(theirs), (pairs, weights)
        else:
            assert ours == pytest.approx(theirs, abs=1e-12), (pairs, weights)


def test_sklearn_needs_the_grade_labels_for_linear_weights():
    # grades 0, 1 and 3 used, 2 never: without labels sklearn puts 3 one step from 1
    pairs = [(0, 0), (1, 3), (3, 3), (0, 1), (3, 0), (1, 1), (3, 1)]
    ours = cohen_kappa(pairs, max_grade=3, weighting="linear")
    assert ours == pytest.approx(_sklearn(pairs, 3, "linear"), abs=1e-12)
    unlabelled = sklearn_metrics.cohen_kappa_score(
        [p[0] for p in pairs], [p[1] for p in pairs], weights="linear"
    )
    assert abs(ours - unlabelled) > 0.01


def test_generated_judgment_sets_per_category_equal_sklearn():
    rnd = random.Random(5)
    first, second, categories = {}, {}, {}
    for n in range(60):
        qid = f"q{n}"
        docs = [f"d{i}" for i in range(rnd.randint(0, 12))]
        first[qid] = {d: rnd.choice((0, 0, 1, 2, 3)) for d in docs if rnd.random() < 0.9}
        second[qid] = {
            d: min(3, max(0, first[qid].get(d, 1) + rnd.choice((-1, 0, 0, 0, 1))))
            for d in docs
            if rnd.random() < 0.9
        }
        categories[qid] = rnd.choice(("lexical", "paraphrase", "adversarial"))
    rows = agreement(first, second, categories)
    assert [r.category for r in rows] == ["adversarial", "lexical", "paraphrase", "all"]
    for row in rows:
        qids = [q for q in first if row.category in ("all", categories[q])]
        pairs = [(first[q][d], second[q][d]) for q in qids for d in first[q] if d in second[q]]
        assert row.pairs == len(pairs) > 20
        assert row.raw == sum(a == b for a, b in pairs) / len(pairs)
        assert row.kappa == pytest.approx(_sklearn(pairs, 3, None), abs=1e-12)
        assert row.linear_kappa == pytest.approx(_sklearn(pairs, 3, "linear"), abs=1e-12)
        assert row.first_only == sum(len(first[q]) for q in qids) - len(pairs)
        assert row.second_only == sum(len(second[q]) for q in qids) - len(pairs)
    overall = rows[-1]
    assert overall.pairs == sum(r.pairs for r in rows[:-1])
    assert 0.3 < overall.kappa < 0.95  # the judges agree, not perfectly


# --------------------------------------------------------------------------- edge cases


def test_no_common_pairs():
    rows = agreement({"q": {"a": 1}}, {"q": {"b": 1}, "r": {"c": 0}})
    assert rows == (
        AgreementRow("uncategorized", 0, 0, 1, 2, None, None, None),
        AgreementRow("all", 0, 0, 1, 2, None, None, None),
    )
    assert agreement({}, {}) == (AgreementRow("all", 0, 0, 0, 0, None, None, None),)


def test_perfect_agreement():
    first, second = judgment_sets([(0, 0), (3, 3), (1, 1), (3, 3)])
    row = agreement(first, second)[-1]
    assert (row.raw, row.kappa, row.linear_kappa) == (1.0, 1.0, 1.0)


def test_one_grade_only_leaves_kappa_undefined():
    # both judges gave grade 1 to everything: agreement 1.0, chance agreement 1.0: 0/0
    first, second = judgment_sets([(1, 1)] * 5)
    row = agreement(first, second)[-1]
    assert (row.pairs, row.raw, row.kappa, row.linear_kappa) == (5, 1.0, None, None)
    assert math.isnan(_sklearn([(1, 1)] * 5, 3, None))  # scikit-learn: nan, the same verdict


def test_one_judge_with_one_grade_is_chance_agreement():
    pairs = [(1, 1), (1, 0), (1, 1), (1, 2)]
    first, second = judgment_sets(pairs)
    row = agreement(first, second)[-1]
    assert (row.raw, row.kappa, row.linear_kappa) == (0.5, 0.0, 0.0)
    assert _sklearn(pairs, 3, None) == pytest.approx(0.0)


def test_complete_disagreement_is_negative():
    first, second = judgment_sets([(0, 3), (3, 0)])
    row = agreement(first, second)[-1]
    assert row.raw == 0.0 and row.kappa == -1.0 and row.linear_kappa == -1.0


def test_bad_grades_and_categories_are_named():
    with pytest.raises(AgreementError) as info:
        agreement(
            {"q": {"a": 4, "b": True}},
            {"q": {"a": -1}, "r": {"c": 1.5}},
            {"q": "all", "r": ""},
        )
    assert info.value.problems == [
        "query 'q', document 'a': the first judge's grade 4 is outside 0..3 "
        "(retrieval_max_grade); raise it or fix the grade",
        "query 'q', document 'b': the first judge's grade True is not an integer",
        "query 'q', document 'a': the second judge's grade -1 is outside 0..3 "
        "(retrieval_max_grade); raise it or fix the grade",
        "query 'r', document 'c': the second judge's grade 1.5 is not an integer",
        "query 'q': category 'all' is the overall row; rename it",
        "query 'r': category '' must be non-empty text",
    ]
    assert agreement({"q": {"a": 4}}, {"q": {"a": 4}}, max_grade=4)[-1].pairs == 1
