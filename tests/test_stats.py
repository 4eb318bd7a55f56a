"""Unit tests of the statistics (issue: intervals, paired comparisons, Holm, warnings, slices).

Pure modules only: stats, comparisons, slices, advice and the cell format of tables.
Every reference value here is computed independently of the plugin: brute-force
enumeration, an exact dynamic programme, scipy, numpy or a hand calculation.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from references import holm_reference  # beside this file
from scipy import stats as sps

from pytest_retrieval.advice import (
    RetrievalNoiseWarning,
    RetrievalSaturationWarning,
    errored_categories,
    merged_advice,
    noise_warnings,
    overlap_warnings,
    saturation_warnings,
)
from pytest_retrieval.aggregate import Row, summaries
from pytest_retrieval.comparisons import ComparisonRow, Comparisons, record_intervals
from pytest_retrieval.evaluation import Evaluation, analyse
from pytest_retrieval.metrics import parse_metrics
from pytest_retrieval.model import ALL, NO_TAG, WEIGHTED, Outcome, QueryRecord, Results
from pytest_retrieval.report.summary import significant_lines
from pytest_retrieval.report.tables import cell, p_text
from pytest_retrieval.settings import (
    GateSettings,
    GroupBy,
    Settings,
    SettingsError,
    StatsSettings,
    parse_group_by,
    parse_run_settings,
)
from pytest_retrieval.slices import Slice, group_records, weighted_interval, weighted_row
from pytest_retrieval.stats import (
    EXACT_SIGN_FLIP_MAX,
    RESAMPLE_MAX_N,
    Draws,
    Interval,
    bootstrap_means,
    holm,
    mean_interval,
    paired_test,
    quantile,
    rng_for,
    sign_flip_p,
)

Z = 1.959964  # as written in the issue: the 97.5% normal quantile


# --------------------------------------------------------------------------- references


def brute_sign_flip(differences: Sequence[float]) -> float:
    """Share of all 2^n sign patterns (zeros included) with |sum| >= |observed sum|."""
    observed = abs(math.fsum(differences))
    tol = 1e-9 * max(1.0, observed)
    hits = 0
    patterns = 0
    for signs in itertools.product((1, -1), repeat=len(differences)):
        patterns += 1
        if abs(math.fsum(s * d for s, d in zip(signs, differences, strict=True))) >= observed - tol:
            hits += 1
    return hits / patterns


def exact_integer_sign_flip(steps: Sequence[int]) -> float:
    """Exact two-sided sign-flip p for integer differences: the law of sum(+-k) by convolution."""
    span = sum(abs(k) for k in steps)
    law = np.zeros(2 * span + 1)
    law[span] = 1.0  # index = total + span
    for k in (abs(k) for k in steps):
        law = 0.5 * (np.roll(law, k) + np.roll(law, -k))  # no wrap: |total| <= span
    observed = abs(sum(steps))
    totals = np.arange(-span, span + 1)
    return float(law[np.abs(totals) >= observed].sum())


def evaluate(results: Results, metrics: Sequence[str], stats: StatsSettings) -> Evaluation:
    """Everything the tables, reports and gate read, through the one public entry point."""
    return analyse(results, Settings(metrics=parse_metrics(list(metrics))), stats)


def record(
    qid: str,
    category: str,
    metrics: dict[str, float | None],
    configuration: str = "default",
    tags: Sequence[str] = (),
    position: int = 0,
    outcome: Outcome = "passed",
) -> QueryRecord:
    return QueryRecord(
        id=qid,
        configuration=configuration,
        category=category,
        tags=list(tags),
        position=position,
        outcome=outcome,
        metrics=dict(metrics),
    )


# --------------------------------------------------------------------------- sign-flip test

small_differences = st.lists(
    st.sampled_from([0.0, 0.0, 0.25, -0.25, 0.5, -0.5, 1.0, -1.0, 1 / 3, -1 / 3, 0.7, -0.2]),
    min_size=0,
    max_size=10,
)


@settings(max_examples=150, deadline=None)
@given(small_differences)
def test_sign_flip_p_equals_brute_force_enumeration(differences: list[float]) -> None:
    p, method = sign_flip_p(differences, 1000, rng_for(1, "unit"))
    assert method == "exact"
    assert p == pytest.approx(brute_sign_flip(differences), abs=1e-12)


@pytest.mark.parametrize(
    ("differences", "expected"),
    [
        ([1.0, 1.0, 1.0], 2 / 8),  # only +++ and --- reach |3|
        ([1.0, -1.0], 1.0),  # observed 0: every pattern is as extreme
        ([0.5, 0.0, 0.0, 0.5], 2 / 4),  # zeros change nothing
        ([2.0, 1.0, 1.0], 2 / 8),  # sums 4, 2, 2, 0, 0, -2, -2, -4: |s| >= 4 twice
        ([2.0, 1.0, -1.0], 6 / 8),  # sums 2, 4, 0, 2, -2, 0, -4, -2: ties with 2 count
        ([0.0, 0.0], 1.0),  # nothing differs: p = 1
        ([], 1.0),
    ],
)
def test_sign_flip_p_hand_cases(differences: list[float], expected: float) -> None:
    p, method = sign_flip_p(differences, 100, rng_for(1, "hand"))
    assert (p, method) == (pytest.approx(expected), "exact")


def test_sign_flip_p_counts_ties_with_the_observed_value() -> None:
    # [1, 1, -2]: |sum| = 0, every pattern is as extreme -> p = 1
    assert sign_flip_p([1.0, 1.0, -2.0], 10, rng_for(1, "t"))[0] == 1.0
    # [0.1, 0.2, -0.3] sums to ~0 in floating point: must still be p = 1 (tolerance)
    assert sign_flip_p([0.1, 0.2, -0.3], 10, rng_for(1, "t"))[0] == 1.0
    # floating-point ties: 0.1+0.2 vs 0.3 under other signs
    diffs = [0.1, 0.2, 0.3]
    assert sign_flip_p(diffs, 10, rng_for(1, "t"))[0] == pytest.approx(brute_sign_flip(diffs))


@pytest.mark.parametrize("seed", range(4))
def test_exact_p_equals_scipy_permutation_test_exact(seed: int) -> None:
    gen = np.random.default_rng(seed)
    n = EXACT_SIGN_FLIP_MAX  # 14 non-zero differences: 16384 patterns, still exact
    current = gen.uniform(0, 1, n)
    reference = np.clip(current - gen.normal(0.08, 0.2, n), 0, 1)
    diffs = current - reference
    assert np.count_nonzero(diffs) == n
    p, method = sign_flip_p(list(diffs), 1000, rng_for(1, "scipy"))
    assert method == "exact"
    res = sps.permutation_test(
        (current, reference),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=np.inf,
        vectorized=True,
    )
    assert len(res.null_distribution) == 2**n  # scipy enumerated too
    assert p == pytest.approx(res.pvalue, abs=1e-12)


def test_exact_enumeration_counts_only_non_zero_differences() -> None:
    # 600 queries, 10 of them differ: exact, whatever the number of ties
    diffs = [0.0] * 590 + [0.3, 0.2, 0.1, 0.4, -0.1, 0.25, 0.5, 0.05, 0.15, -0.2]
    p, method = sign_flip_p(diffs, 100, rng_for(1, "z"))
    assert method == "exact"
    assert p == pytest.approx(brute_sign_flip(diffs[590:]), abs=1e-12)
    # 15 non-zero among 20: no longer exact
    assert sign_flip_p([0.1] * 15 + [0.0] * 5, 100, rng_for(1, "z"))[1] == "sampled"


SAMPLED_CASES = [(seed, shift) for seed, shift in itertools.product(range(3), (0.0, 0.04, 0.08))]


@pytest.mark.parametrize(("seed", "shift"), SAMPLED_CASES)
def test_sampled_p_within_monte_carlo_error_of_scipy_and_of_the_exact_p(
    seed: int, shift: float
) -> None:
    """n = 40: sampled sign flips against scipy's permutation test and an exact count."""
    gen = np.random.default_rng(100 + seed)
    n = 40
    steps = [int(k) for k in np.rint(gen.normal(shift, 0.25, n) * 20)]  # multiples of 1/20
    steps = [k if k != 0 else 1 for k in steps]
    diffs = [k / 20 for k in steps]
    reference = gen.uniform(0.3, 0.7, n)
    current = reference + np.array(diffs)
    resamples = 20_000
    p, method = sign_flip_p(diffs, resamples, rng_for(3, "sampled", str(seed), str(shift)))
    assert method == "sampled"
    res = sps.permutation_test(
        (current, reference),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=resamples,
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    exact = exact_integer_sign_flip(steps)
    assert 0.0 < exact < 1.0
    se_scipy = math.sqrt(max(exact * (1 - exact), 1e-4) * 2 / resamples)
    assert abs(p - res.pvalue) <= 4 * se_scipy + 2 / resamples, (p, res.pvalue, exact)
    se_exact = math.sqrt(max(exact * (1 - exact), 1e-4) / resamples)
    assert abs(p - exact) <= 4 * se_exact + 2 / resamples, (p, exact)


def test_sampled_p_is_never_zero_and_is_reproducible() -> None:
    diffs = [0.5 + 0.01 * i for i in range(40)]  # all positive: nothing as extreme is drawn
    resamples = 999
    p, method = sign_flip_p(diffs, resamples, rng_for(1, "never-zero"))
    assert method == "sampled"
    assert p == pytest.approx(1 / (resamples + 1))
    mixed = [(-1) ** i * (0.1 + 0.01 * i) + 0.02 for i in range(40)]
    first = sign_flip_p(mixed, 500, rng_for(1, "again"))
    assert first == sign_flip_p(mixed, 500, rng_for(1, "again"))
    # p = (hits + 1) / (resamples + 1): a multiple of 1/501
    assert abs(first[0] * 501 - round(first[0] * 501)) < 1e-9


def test_sign_flip_boundary_between_sampled_and_normal() -> None:
    gen = np.random.default_rng(5)
    at = [float(v) for v in gen.normal(0.01, 0.2, RESAMPLE_MAX_N)]
    above = [float(v) for v in gen.normal(0.01, 0.2, RESAMPLE_MAX_N + 1)]
    assert sign_flip_p(at, 200, rng_for(1, "b"))[1] == "sampled"
    p, method = sign_flip_p(above, 200, rng_for(1, "b"))
    assert method == "normal"
    z = abs(math.fsum(above)) / math.sqrt(math.fsum(d * d for d in above))
    assert p == pytest.approx(2 * sps.norm.sf(z), rel=1e-9)
    # no resamples asked: the normal limit even for a small cell with many non-zero values
    assert sign_flip_p(at[:20], 0, rng_for(1, "b"))[1] == "normal"


def test_normal_p_is_close_to_the_exact_p_for_many_queries() -> None:
    gen = np.random.default_rng(11)
    steps = [int(k) or 1 for k in gen.integers(-10, 12, 800)]
    p, method = sign_flip_p([k / 10 for k in steps], 1000, rng_for(1, "n"))
    assert method == "normal"
    assert p == pytest.approx(exact_integer_sign_flip(steps), abs=0.01)


# --------------------------------------------------------------------------- Holm


def test_holm_hand_computed_case() -> None:
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> max(0.06, 0.04)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_handles_edges() -> None:
    assert holm([0.4, 0.3, 0.9]) == pytest.approx([0.9, 0.9, 0.9])
    assert holm([0.6, 0.2]) == pytest.approx([0.6, 0.4])
    assert holm([0.5, 0.5]) == pytest.approx([1.0, 1.0])
    assert holm([0.03]) == [0.03]
    assert holm([]) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=12))
def test_holm_properties(p: list[float]) -> None:
    adjusted = holm(p)
    m = len(p)
    assert adjusted == pytest.approx(holm_reference(p), abs=1e-12)
    for raw, adj in zip(p, adjusted, strict=True):
        assert raw - 1e-15 <= adj <= 1.0
        assert adj <= min(1.0, m * raw) + 1e-12  # never worse than Bonferroni
    for i, j in itertools.product(range(m), repeat=2):
        if p[i] <= p[j]:
            assert adjusted[i] <= adjusted[j] + 1e-15  # order preserved


# --------------------------------------------------------------------------- quantile


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(min_value=-5, max_value=5, allow_nan=False), min_size=1, max_size=40),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_quantile_equals_numpy_percentile_linear(values: list[float], q: float) -> None:
    ordered = sorted(values)
    expected = float(np.percentile(ordered, q * 100, method="linear"))
    assert quantile(ordered, q) == pytest.approx(expected, abs=1e-9)


def test_quantile_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no values"):
        quantile([], 0.5)
    assert quantile([0.0, 1.0, 2.0, 10.0], 0.025) == pytest.approx(0.075)
    assert quantile([0.0, 1.0, 2.0, 10.0], 0.975) == pytest.approx(9.4)


# --------------------------------------------------------------------------- bootstrap


VALUES = [0.0, 1.0, 0.5, 0.333, 1.0, 0.25, 0.0, 1.0, 0.2, 0.5, 1.0, 0.0, 0.125, 1.0, 0.5]


def test_bootstrap_interval_is_reproducible_for_a_seed_and_changes_with_it() -> None:
    first = mean_interval(VALUES, 2000, rng_for(1, "ci", "x"))
    again = mean_interval(VALUES, 2000, rng_for(1, "ci", "x"))
    other_seed = mean_interval(VALUES, 2000, rng_for(2, "ci", "x"))
    other_cell = mean_interval(VALUES, 2000, rng_for(1, "ci", "y"))
    assert first == again
    assert first.method == "bootstrap"
    assert first != other_seed
    assert first != other_cell
    m = statistics.fmean(VALUES)
    for iv in (first, other_seed, other_cell):
        assert iv.lo < m < iv.hi
        assert iv.lo >= 0.0 and iv.hi <= 1.0  # a percentile interval stays within the data


def test_rng_for_does_not_depend_on_pythonhashseed() -> None:
    code = (
        "from pytest_retrieval.stats import rng_for; "
        "print(rng_for(7, 'ci', 'bm25', 'all').random())"
    )
    outputs = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        outputs.add(done.stdout.strip())
    assert outputs == {str(rng_for(7, "ci", "bm25", "all").random())}


def test_bootstrap_interval_agrees_with_the_normal_interval_for_symmetric_data() -> None:
    gen = np.random.default_rng(3)
    values = [float(v) for v in gen.normal(0.6, 0.15, 250)]
    boot = mean_interval(values, 2000, rng_for(1, "sym"))
    assert boot.method == "bootstrap"
    m = statistics.fmean(values)
    half = Z * statistics.stdev(values) / math.sqrt(len(values))
    # a 90% or an sd-instead-of-se interval would be far off these bounds
    assert boot.lo == pytest.approx(m - half, abs=0.1 * half)
    assert boot.hi == pytest.approx(m + half, abs=0.1 * half)


def test_mean_interval_normal_branch_above_resample_max_n() -> None:
    gen = np.random.default_rng(8)
    values = [float(v) for v in gen.uniform(0, 1, RESAMPLE_MAX_N + 1)]
    iv = mean_interval(values, 10_000, rng_for(1, "n"))
    lo, hi = edgeworth_reference(values)
    assert iv.method == "normal"
    assert iv.lo == pytest.approx(lo, rel=1e-6)
    assert iv.hi == pytest.approx(hi, rel=1e-6)
    # the normal branch draws nothing: any rng gives the same interval
    assert mean_interval(values, 10_000, rng_for(99, "other")) == iv
    at_limit = mean_interval(values[:RESAMPLE_MAX_N], 200, rng_for(1, "n"))
    assert at_limit.method == "bootstrap"
    assert mean_interval(values[:50], 0, rng_for(1, "n")).method == "normal"


def test_mean_interval_of_fewer_than_two_values() -> None:
    assert mean_interval([0.4], 100, rng_for(1)) == Interval(0.4, 0.4, "none")
    assert mean_interval([], 100, rng_for(1)) == Interval(0.0, 0.0, "empty")
    assert mean_interval([], 100, rng_for(1)).as_list() is None  # null in the JSON
    constant = mean_interval([0.5] * 10, 100, rng_for(1))
    assert (constant.lo, constant.hi) == pytest.approx((0.5, 0.5))


def test_bootstrap_means_share_indices_across_series() -> None:
    a = [0.1, 0.9, 0.4, 0.7, 0.0, 1.0]
    b = [v + 0.25 for v in a]
    means_a, means_b, means_a2 = bootstrap_means([a, b, a], 300, rng_for(1, "share"))
    assert means_a == means_a2
    assert [y - x for x, y in zip(means_a, means_b, strict=True)] == pytest.approx([0.25] * 300)
    assert len(set(means_a)) > 10  # the resamples do vary


@pytest.mark.parametrize("count", [1, 3])
def test_shared_draws_are_the_draws_of_the_seeded_generator(count: int) -> None:
    gen = np.random.default_rng(9)
    series = [[float(v) for v in gen.uniform(0, 1, 37)] for _ in range(count)]
    expected = bootstrap_means(series, 400, rng_for(5, "shared", "paraphrase"))
    draws = Draws(5, 400)
    assert draws.means("paraphrase", series) == expected
    assert draws.means("paraphrase", series) == expected  # kept, the same again
    assert draws.means("lexical", series) != expected  # another key, other draws
    assert Draws(5, 400, budget=0).means("paraphrase", series) == expected  # drawn again


def test_shared_draws_keep_indices_within_their_budget() -> None:
    draws = Draws(1, 100, budget=100 * 50)  # room for one key's 100 draws of 50 (a byte each)
    first = draws.indices("a", 50)
    assert len(first) == 100 * 50 and max(first) < 50
    assert draws.indices("a", 50) is first  # kept
    again = draws.indices("b", 50)
    assert draws.indices("b", 50) is not again  # over budget: drawn each time
    assert draws.indices("b", 50) == again  # with the same result


def test_a_constant_cell_has_its_value_as_interval_without_drawing() -> None:
    rng = rng_for(3)
    state = rng.getstate()
    assert mean_interval([0.25] * 40, 1000, rng) == Interval(0.25, 0.25, "bootstrap")
    assert rng.getstate() == state


def test_paired_interval_uses_shared_indices() -> None:
    gen = np.random.default_rng(4)
    reference = [float(v) for v in gen.uniform(0, 1, 60)]
    same = paired_test(reference, reference, 2000, rng_for(1, "p"))
    assert (same.ci.lo, same.ci.hi) == (0.0, 0.0)
    assert (same.delta, same.p, same.ties, same.wins, same.losses) == (0.0, 1.0, 60, 0, 0)
    # a constant improvement on very different values: a paired interval has no width,
    # an unpaired one would be as wide as the spread of the values
    shifted = [v + 0.1 for v in reference]
    test = paired_test(shifted, reference, 2000, rng_for(1, "p"))
    assert test.delta == pytest.approx(0.1)
    assert (test.ci.lo, test.ci.hi) == pytest.approx((0.1, 0.1), abs=1e-9)
    assert (test.wins, test.ties, test.losses) == (60, 0, 0)
    assert test.method == "sampled"
    assert test.p == pytest.approx(1 / 2001)


def test_paired_test_counts_and_delta() -> None:
    current = [1.0, 0.5, 0.5, 0.0, 0.25]
    reference = [0.5, 0.5, 1.0, 0.0, 0.0]
    test = paired_test(current, reference, 2000, rng_for(1, "c"))
    assert test.n == 5
    assert test.delta == pytest.approx((0.5 + 0 - 0.5 + 0 + 0.25) / 5)
    assert (test.wins, test.ties, test.losses) == (2, 2, 1)
    assert test.method == "exact"
    assert test.p == pytest.approx(brute_sign_flip([0.5, 0.0, -0.5, 0.0, 0.25]))
    assert test.ci.lo <= test.delta <= test.ci.hi


def test_paired_test_normal_branch_above_resample_max_n() -> None:
    gen = np.random.default_rng(9)
    reference = [float(v) for v in gen.uniform(0, 1, RESAMPLE_MAX_N + 1)]
    noise = gen.normal(0.02, 0.1, len(reference))
    current = [min(1.0, r + float(e)) for r, e in zip(reference, noise, strict=True)]
    test = paired_test(current, reference, 2000, rng_for(1, "big"))
    diffs = [c - r for c, r in zip(current, reference, strict=True)]
    assert test.method == "normal"
    assert test.ci.method == "normal"
    assert (test.ci.lo, test.ci.hi) == pytest.approx(edgeworth_reference(diffs), rel=1e-6)


def edgeworth_reference(values: Sequence[float]) -> tuple[float, float]:
    """The normal limits of a mean with the skewness term, from scipy's skewness."""
    n = len(values)
    m, se = statistics.fmean(values), statistics.stdev(values) / math.sqrt(n)
    shift = float(sps.skew(values, bias=True)) / math.sqrt(n) / 6 * (Z * Z - 1)
    return m + se * (shift - Z), m + se * (shift + Z)


@pytest.mark.parametrize(
    ("name", "levels", "weights"),
    [
        ("recall, mostly 1", [0.0, 1 / 3, 2 / 3, 1.0], [0.05, 0.05, 0.1, 0.8]),
        ("mrr", [1.0, 0.5, 1 / 3, 0.25, 0.0], [0.55, 0.15, 0.07, 0.03, 0.2]),
        ("rare hits", [0.0, 1.0], [0.85, 0.15]),
    ],
)
def test_above_the_resampling_limit_the_interval_is_the_bootstrap_s(
    name: str, levels: list[float], weights: list[float]
) -> None:
    """Just above RESAMPLE_MAX_N, skewed metric values: the limits are within a few
    percent of the half-width of numpy's percentile bootstrap (40,000 resamples)."""
    gen = np.random.default_rng(11)
    values = [float(v) for v in gen.choice(levels, size=RESAMPLE_MAX_N + 44, p=weights)]
    means = gen.choice(values, size=(40_000, len(values))).mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    ours = mean_interval(values, 10_000, rng_for(1))
    half = (hi - lo) / 2
    assert ours.method == "normal"
    assert abs(ours.lo - lo) < 0.06 * half and abs(ours.hi - hi) < 0.06 * half, (ours, lo, hi)


def test_drawn_positions_are_uniform_and_follow_the_seed() -> None:
    from pytest_retrieval.stats import draw_positions

    drawn = draw_positions(rng_for(1, "u"), 3, 30_000)  # 256 % 3 = 1: byte 255 is dropped
    assert len(drawn) == 90_000 and set(drawn) == {0, 1, 2}
    counts = [drawn.count(i) for i in range(3)]
    assert sps.chisquare(counts).pvalue > 0.001, counts
    assert draw_positions(rng_for(1, "u"), 3, 30_000) == drawn
    assert draw_positions(rng_for(2, "u"), 3, 30_000) != drawn
    wide = draw_positions(rng_for(1, "w"), 256, 100)
    assert len(wide) == 25_600 and len(set(wide)) == 256
    with pytest.raises(ValueError, match=r"1\.\.256"):
        draw_positions(rng_for(1), 257, 1)


# --------------------------------------------------------------------------- settings


def parse_stats_settings(ini: dict[str, str | list[str]]) -> StatsSettings:
    return parse_run_settings(ini).stats


def parse_gate_mode(ini: dict[str, str | list[str]]) -> str:
    return parse_run_settings(ini).gate.mode


def test_parse_stats_settings_defaults() -> None:
    assert parse_stats_settings({}) == StatsSettings(
        seed=1,
        resamples=10_000,
        reference=None,
        alpha=0.05,
        min_queries=30,
        weights={},
    )
    assert parse_gate_mode({}) == "absolute"
    assert GateSettings().mode == "absolute"
    empty = {
        "retrieval_seed": "",
        "retrieval_bootstrap": "",
        "retrieval_reference": "",
        "retrieval_alpha": "",
        "retrieval_gate_mode": "",
        "retrieval_min_queries": "",
        "retrieval_weights": [],
    }
    assert parse_stats_settings(empty) == StatsSettings()
    assert parse_gate_mode(empty) == "absolute"


def test_parse_stats_settings_values() -> None:
    parsed = parse_stats_settings(
        {
            "retrieval_seed": "7",
            "retrieval_bootstrap": "2000",
            "retrieval_reference": " dense ",
            "retrieval_alpha": "0.01",
            "retrieval_gate_mode": "Significant",
            "retrieval_min_queries": "12",
            "retrieval_weights": ["exact-name=0.4", "paraphrase=0.3,typo=0.3"],
        }
    )
    assert parsed.seed == 7
    assert parsed.resamples == 2000
    assert parsed.reference == "dense"
    assert parsed.alpha == 0.01
    assert parse_gate_mode({"retrieval_gate_mode": "Significant"}) == "significant"
    assert parsed.min_queries == 12
    assert dict(parsed.weights) == {"exact-name": 0.4, "paraphrase": 0.3, "typo": 0.3}
    assert parse_stats_settings({"retrieval_weights": "a=3 b=1"}).weights == {"a": 3.0, "b": 1.0}


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("retrieval_alpha", "1.5", ["retrieval_alpha", "1.5"]),
        ("retrieval_alpha", "0", ["retrieval_alpha"]),
        ("retrieval_alpha", "five percent", ["retrieval_alpha", "five percent"]),
        ("retrieval_gate_mode", "fuzzy", ["retrieval_gate_mode", "fuzzy", "significant"]),
        ("retrieval_weights", "exact-name:0.4", ["retrieval_weights", "exact-name:0.4"]),
        ("retrieval_weights", "a=-1", ["retrieval_weights", "a=-1"]),
        ("retrieval_weights", "a=0 b=0", ["retrieval_weights"]),
        ("retrieval_seed", "abc", ["retrieval_seed", "abc"]),
        ("retrieval_bootstrap", "-5", ["retrieval_bootstrap"]),
        ("retrieval_min_queries", "0", ["retrieval_min_queries"]),
    ],
)
def test_parse_stats_settings_errors_name_the_key(key: str, value: str, words: list[str]) -> None:
    with pytest.raises(SettingsError) as info:
        parse_stats_settings({key: value})
    for word in words:
        assert word in str(info.value)


# --------------------------------------------------------------------------- intervals of rows


def test_record_intervals_share_indices_and_skip_missing_values() -> None:
    recs = [
        record(f"q{i:02d}", "a", {"mrr": v, "ndcg@10": v, "recall@20": None if i < 3 else v})
        for i, v in enumerate([0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.5, 1.0, 0.2, 0.1])
    ]
    recs.append(record("skipped", "a", {"mrr": None}, outcome="skipped"))
    stats = StatsSettings(resamples=2000, seed=3)
    ivs = record_intervals(recs, ["mrr", "ndcg@10", "recall@20"], stats)
    assert ivs["mrr"] == ivs["ndcg@10"]  # same values, same indices
    assert ivs["mrr"].method == "bootstrap"
    recall_values = [r.metrics["recall@20"] for r in recs[3:10]]
    assert ivs["recall@20"].lo <= statistics.fmean(recall_values) <= ivs["recall@20"].hi  # type: ignore[arg-type]
    # reproducible, and independent of the order the records came in
    again = record_intervals(list(reversed(recs)), ["mrr", "ndcg@10", "recall@20"], stats)
    assert again == ivs


def _results() -> Results:
    """bm25 (first parameter), dense and fused on categories a (6 queries) and b (4 queries)."""
    results = Results()
    mrr_bm25 = [0.5, 0.25, 1.0, 0.333, 0.5, 0.2, 1.0, 0.0, 0.5, 1.0]
    mrr_dense = [1.0, 0.5, 1.0, 1.0, 1.0, 0.5, 0.5, 0.0, 1.0, 1.0]
    for position, (name, values) in enumerate(
        [("bm25", mrr_bm25), ("dense", mrr_dense), ("fused", mrr_bm25)]
    ):
        for i, v in enumerate(values):
            category = "a" if i < 6 else "b"
            recall = 1.0 if v > 0 else 0.0
            results.add(
                record(f"q{i}", category, {"mrr": v, "recall@20": recall}, name, [], position)
            )
    # a query only dense has, and one skipped by fused: neither enters a comparison
    results.add(record("only-dense", "a", {"mrr": 0.0, "recall@20": 0.0}, "dense", [], 1))
    results.add(record("q9", "b", {"mrr": None, "recall@20": None}, "fused", [], 2, "skipped"))
    return results


def test_summary_intervals_cover_every_row_and_contain_the_mean() -> None:
    results = _results()
    stats = StatsSettings(resamples=2000)
    intervals = evaluate(results, ["mrr", "recall@20"], stats).intervals
    assert list(intervals) == ["bm25", "dense", "fused"]
    for configuration, rows in intervals.items():
        assert set(rows) == {"a", "b", ALL}
        summary = summaries(results, ["mrr", "recall@20"])[configuration]
        for name, row in summary.rows():
            for metric in ("mrr", "recall@20"):
                iv = rows[name][metric]
                assert iv.lo <= row.values[metric] <= iv.hi  # type: ignore[operator]
    assert evaluate(results, ["mrr", "recall@20"], stats).intervals == intervals
    other_seed = evaluate(results, ["mrr", "recall@20"], StatsSettings(resamples=2000, seed=9))
    assert other_seed.intervals != intervals


def test_compare_configurations_rows() -> None:
    results = _results()
    stats = StatsSettings(resamples=2000, alpha=0.05)
    comparisons = evaluate(results, ["mrr", "recall@20"], stats).comparisons
    assert comparisons is not None
    assert comparisons.reference == "bm25"
    keys = [(r["configuration"], r["category"], r["metric"]) for r in comparisons.as_dict()["rows"]]
    expected_keys = [
        (c, cat, m)
        for c in ("dense", "fused")
        for cat in (ALL, "a", "b")
        for m in ("mrr", "recall@20")
    ]
    assert sorted(keys) == sorted(expected_keys)
    assert len(keys) == len(set(keys))
    by_id = {
        c: {r.id: r for r in results.records(c) if r.evaluated} for c in ("bm25", "dense", "fused")
    }
    for row in comparisons.as_dict()["rows"]:
        cur, ref = by_id[row["configuration"]], by_id["bm25"]
        common = sorted(q for q in set(cur) & set(ref) if row["category"] in (ALL, cur[q].category))
        diffs = [cur[q].metrics[row["metric"]] - ref[q].metrics[row["metric"]] for q in common]  # type: ignore[operator]
        assert row["n"] == len(diffs)
        assert row["delta"] == pytest.approx(statistics.fmean(diffs))
        assert row["wins"] == sum(d > 0 for d in diffs)
        assert row["losses"] == sum(d < 0 for d in diffs)
        assert row["wins"] + row["ties"] + row["losses"] == row["n"]
        assert row["p"] == pytest.approx(brute_sign_flip(diffs))
        assert row["ci"][0] <= row["ci"][1]
        assert row["p_holm"] >= row["p"]
        assert row["significant"] == (row["p_holm"] < stats.alpha)
    # fused is bm25 on the queries it ran: every difference is 0
    fused = [r for r in comparisons.as_dict()["rows"] if r["configuration"] == "fused"]
    assert all(r["delta"] == 0 and r["ci"] == [0.0, 0.0] and r["p"] == 1.0 for r in fused)
    assert [r["n"] for r in fused if r["category"] == ALL] == [9, 9]
    # Holm across the whole table
    assert [r["p_holm"] for r in comparisons.as_dict()["rows"]] == pytest.approx(
        holm_reference([r["p"] for r in comparisons.as_dict()["rows"]])
    )


def test_a_category_holding_every_query_is_the_all_row_s_test_counted_once() -> None:
    """A golden set of one category (every import): its rows and the "all" rows test the
    same queries. They used to get two p-values (two seeds) and Holm counted each test
    twice, so p (Holm) was twice what it is."""
    gen = np.random.default_rng(5)
    base = [float(v) for v in gen.uniform(0.0, 1.0, 40)]
    moved = [v + float(d) for v, d in zip(base, gen.normal(0.08, 0.2, 40), strict=True)]
    results = Results()
    for position, (name, values) in enumerate([("ref", base), ("new", moved)]):
        for i, v in enumerate(values):
            metrics: dict[str, float | None] = {"mrr": v, "recall@20": 1.0 - v}
            results.add(record(f"q{i:02d}", "only", metrics, name, [], position))
    comparisons = evaluate(results, ["mrr", "recall@20"], StatsSettings(resamples=2000)).comparisons
    assert comparisons is not None
    rows = {(r.category, r.metric): r for r in comparisons.rows}
    for metric in ("mrr", "recall@20"):
        whole, twin = rows[(ALL, metric)], rows[("only", metric)]
        assert (twin.p, twin.ci, twin.p_holm) == (whole.p, whole.ci, whole.p_holm)
    own = [rows[(ALL, m)].p for m in ("mrr", "recall@20")]
    assert [rows[(ALL, m)].p_holm for m in ("mrr", "recall@20")] == pytest.approx(
        holm_reference(own)
    )


def test_paired_intervals_share_indices_across_configurations() -> None:
    """Same queries everywhere: a copy of the reference differs by exactly nothing, a constant
    shift by exactly the shift, although the values themselves vary a lot."""
    gen = np.random.default_rng(12)
    base = [float(v) for v in gen.uniform(0.0, 0.8, 30)]
    results = Results()
    for position, (name, shift) in enumerate([("ref", 0.0), ("copy", 0.0), ("up", 0.2)]):
        for i, v in enumerate(base):
            category = "a" if i < 20 else "b"
            results.add(record(f"q{i:02d}", category, {"mrr": v + shift}, name, [], position))
    evaluation = evaluate(results, ["mrr"], StatsSettings(resamples=2000))
    assert evaluation.comparisons is not None
    rows = {
        (r["configuration"], r["category"]): r for r in evaluation.comparisons.as_dict()["rows"]
    }
    assert set(rows) == {(c, k) for c in ("copy", "up") for k in (ALL, "a", "b")}
    for category in (ALL, "a", "b"):
        assert rows[("copy", category)]["ci"] == pytest.approx([0.0, 0.0], abs=1e-12)
        assert rows[("copy", category)]["p"] == 1.0
        assert rows[("up", category)]["ci"] == pytest.approx([0.2, 0.2], abs=1e-9)
        assert rows[("up", category)]["significant"] is True
        # the summary interval of the values themselves is wide
        iv = evaluation.intervals["up"][category]["mrr"]
        assert iv.hi - iv.lo > 0.1


def test_compare_configurations_reference_setting_and_single_configuration() -> None:
    results = _results()
    stats = StatsSettings(resamples=500, reference="dense")
    comparisons = evaluate(results, ["mrr"], stats).comparisons
    assert comparisons is not None
    assert comparisons.reference == "dense"
    assert {r["configuration"] for r in comparisons.as_dict()["rows"]} == {"bm25", "fused"}
    default = evaluate(results, ["mrr"], StatsSettings(resamples=500)).comparisons
    assert default is not None
    flipped = {
        (r["configuration"], r["category"]): r["delta"] for r in comparisons.as_dict()["rows"]
    }
    for row in default.as_dict()["rows"]:
        if row["configuration"] == "dense":
            assert flipped[("bm25", row["category"])] == pytest.approx(-row["delta"])
    single = Results()
    single.add(record("q1", "a", {"mrr": 1.0}))
    assert evaluate(single, ["mrr"], StatsSettings(resamples=100)).comparisons is None


# --------------------------------------------------------------------------- slices


def test_group_records_two_tags_and_none() -> None:
    recs = [
        record("both", "a", {}, tags=["rolling", "core"]),
        record("core-only", "a", {}, tags=["core"]),
        record("untagged", "b", {}),
        record("other-tag", "b", {}, tags=["dev/holdout"]),
        record("rolling-only", "b", {}, tags=["rolling", "dev/holdout"]),
    ]
    groups = group_records(recs, parse_group_by("tag:core,rolling"))
    assert list(groups) == ["core", "rolling", NO_TAG]
    assert [r.id for r in groups["core"]] == ["both", "core-only"]
    assert [r.id for r in groups["rolling"]] == ["both", "rolling-only"]
    assert [r.id for r in groups[NO_TAG]] == ["untagged", "other-tag"]
    every = group_records(recs, parse_group_by("tags"))
    assert list(every) == ["core", "dev/holdout", "rolling"]
    assert [r.id for r in every["dev/holdout"]] == ["other-tag", "rolling-only"]


def test_parse_group_by() -> None:
    assert parse_group_by("tag:core,rolling") == GroupBy(("core", "rolling"))
    assert parse_group_by(" tag:core ") == GroupBy(("core",))
    assert parse_group_by("tags") == GroupBy()
    assert parse_group_by("tag:core,rolling").title == "tag core/rolling"
    for bad in ("tag:", "core", "category:a"):
        with pytest.raises(SettingsError, match="--retrieval-group-by"):
            parse_group_by(bad)


def _weighted_records() -> list[QueryRecord]:
    return [
        record("a1", "a", {"mrr": 1.0, "recall@20": 1.0}),
        record("a2", "a", {"mrr": 0.5, "recall@20": None}),
        record("b1", "b", {"mrr": 0.0, "recall@20": 0.0}),
        record("b2", "b", {"mrr": 0.0, "recall@20": 1.0}),
        record("b3", "b", {"mrr": 1.0, "recall@20": 1.0}),
        record("b4", "b", {"mrr": None, "recall@20": None}, outcome="skipped"),
        record("c1", "c", {"mrr": 0.2, "recall@20": 0.2}),
    ]


def test_weighted_row_hand_computed() -> None:
    found = weighted_row(_weighted_records(), {"a": 3, "b": 1, "missing": 5}, ["mrr", "recall@20"])
    assert found is not None
    row, left_out = found
    # mrr: a = 0.75, b = 1/3 -> (3 * 0.75 + 1 / 3) / 4
    assert row.values["mrr"] == pytest.approx((2.25 + 1 / 3) / 4)
    # recall@20: a = 1.0 (a2 has no value), b = 2/3
    assert row.values["recall@20"] == pytest.approx((3 * 1.0 + 2 / 3) / 4)
    assert row.n == 5  # a1 a2 b1 b2 b3; the skipped b4 and unweighted c1 are not counted
    assert left_out == ["c"]
    assert weighted_row(_weighted_records(), {"zzz": 1}, ["mrr"]) is None
    zero = weighted_row(_weighted_records(), {"a": 1, "b": 0}, ["mrr"])
    assert zero is not None
    assert zero[0].values["mrr"] == pytest.approx(0.75)
    assert zero[1] == ["b", "c"]


def test_weighted_interval_is_stratified() -> None:
    # every stratum is constant: a stratified bootstrap has no width at all,
    # a bootstrap that pooled the categories would
    recs = [record(f"a{i}", "a", {"mrr": 1.0}) for i in range(5)]
    recs += [record(f"b{i}", "b", {"mrr": 0.0}) for i in range(15)]
    iv = weighted_interval(recs, {"a": 3, "b": 1}, "mrr", 1000, 1, "cfg")
    assert iv.method == "bootstrap"
    assert (iv.lo, iv.hi) == pytest.approx((0.75, 0.75))
    a_values = [0.1, 0.35, 0.8, 1.0, 0.55, 0.05, 0.9]
    b_values = [0.0, 0.2, 0.45, 1.0, 0.6, 0.15, 0.3, 0.7, 0.33]
    varied = [record(f"a{i}", "a", {"mrr": v}) for i, v in enumerate(a_values)]
    varied += [record(f"b{i}", "b", {"mrr": v}) for i, v in enumerate(b_values)]
    first = weighted_interval(varied, {"a": 3, "b": 1}, "mrr", 2000, 1, "cfg")
    point = (3 * statistics.fmean(a_values) + statistics.fmean(b_values)) / 4
    assert first.lo <= point <= first.hi
    assert 0.0 <= first.lo < first.hi <= 1.0
    assert first == weighted_interval(varied, {"a": 3, "b": 1}, "mrr", 2000, 1, "cfg")
    assert first != weighted_interval(varied, {"a": 3, "b": 1}, "mrr", 2000, 2, "cfg")
    assert weighted_interval(varied, {"zzz": 1}, "mrr", 100, 1).method == "empty"


def test_weighted_interval_normal_branch_hand_computed() -> None:
    a_values = [(i % 4) / 3 for i in range(RESAMPLE_MAX_N + 1)]
    b_values = [float(i % 2) for i in range(40)]
    recs = [record(f"a{i}", "a", {"mrr": v}) for i, v in enumerate(a_values)]
    recs += [record(f"b{i}", "b", {"mrr": v}) for i, v in enumerate(b_values)]
    iv = weighted_interval(recs, {"a": 3, "b": 1}, "mrr", 1000, 1)
    point = (3 * statistics.fmean(a_values) + statistics.fmean(b_values)) / 4
    var = (3 / 4) ** 2 * statistics.variance(a_values) / len(a_values) + (
        1 / 4
    ) ** 2 * statistics.variance(b_values) / len(b_values)
    assert iv.method == "normal"
    assert (iv.lo, iv.hi) == pytest.approx(
        (point - Z * math.sqrt(var), point + Z * math.sqrt(var)), rel=1e-6
    )


# --------------------------------------------------------------------------- advice


def test_noise_warnings_name_the_widest_interval_of_a_small_category() -> None:
    results = Results()
    for position, name in enumerate(("bm25", "dense")):
        for i in range(8):
            results.add(record(f"s{i}", "small", {"mrr": (i % 3) / 2}, name, [], position))
        for i in range(40):
            results.add(record(f"l{i}", "large", {"mrr": (i % 5) / 4}, name, [], position))
        results.add(record("one", "single", {"mrr": 1.0}, name, [], position))
    summaries_ = summaries(results, ["mrr"])
    evaluation = evaluate(results, ["mrr"], StatsSettings(resamples=1000))
    intervals = evaluation.intervals
    # one mean's interval (as with a single configuration)
    warnings = [str(w) for w in noise_warnings(summaries_, intervals, 30)]
    widest = max(intervals[c]["small"]["mrr"].half_width for c in ("bm25", "dense"))
    assert warnings[0] == (
        "single: n=1: a single query gives no interval and no evidence "
        "(fewer than retrieval_min_queries = 30 queries; add queries)"
    )
    assert warnings[1] == (
        f"small: n=8: differences under ±{max(widest, 1 / 8):.2f} are noise here "
        "(fewer than retrieval_min_queries = 30 queries; add queries)"
    )
    assert len(warnings) == 2  # "large" has 40 >= 30 queries
    assert len(noise_warnings(summaries_, intervals, 41)) == 3
    # with a comparison, the paired interval of the difference is what matters
    comparisons = evaluation.comparisons
    assert comparisons is not None
    found = noise_warnings(summaries_, intervals, 30, comparisons)
    assert [str(w) for w in evaluation.warnings if "n=" in str(w)] == [str(w) for w in found]
    # bm25 and dense score alike query by query: their paired difference has no width
    assert str(found[1]) == (
        "small: n=8: the configurations score its queries alike, so their differences have no "
        "interval, yet one query moves a mean by up to 0.12 (fewer than retrieval_min_queries "
        "= 30 queries; add queries)"
    )
    assert {w.category for w in found} == {"single", "small"}


def test_three_categories_advice_of_one_kind_is_one_warning_naming_each() -> None:
    """A first run over a few queries in each of four categories gave eight warnings, two
    per category, forty lines at 80 columns; by default they are one of each kind."""
    recs = {
        name: [
            record(f"{c}{i}", c, {"mrr": 1.0 if c != "hard" or name == "bm25" else 0.5}, name)
            for c in ("easy", "hard", "single", "plain")
            for i in range(1 if c == "single" else 2)
        ]
        for name in ("bm25", "dense")
    }
    saturated = saturation_warnings(recs, ["mrr"])
    assert [w.category for w in saturated] == ["easy", "hard", "plain", "single"]
    (one,) = merged_advice(saturated)
    assert one.kind is RetrievalSaturationWarning and one.category is None
    assert one.text == (
        "4 categories score 1.0 on every query (saturated: they can catch a drop but never "
        "show an improvement; add harder queries; -v gives each its own warning): easy "
        "(bm25, dense on mrr), hard (bm25 on mrr), plain (bm25, dense on mrr), single (bm25, "
        "dense on mrr)"
    )
    alike = [w for w in saturated if w.category != "hard"]
    assert merged_advice(alike)[0].text.endswith(
        "own warning): easy, plain, single (each: bm25, dense on mrr)"
    )
    assert merged_advice(saturated[:2]) == saturated[:2]  # two: each its own
    assert merged_advice(saturated, at_least=5) == saturated
    results = Results()
    for position, name in enumerate(("bm25", "dense")):
        for group in recs.values():
            for r in group:
                results.add(record(r.id, r.category, {"mrr": 0.5 * position}, name, [], position))
    evaluation = evaluate(results, ["mrr"], StatsSettings(resamples=200))
    noise = [w for w in evaluation.warnings if w.kind is RetrievalNoiseWarning]
    assert len(noise) == 4
    (merged,) = [w for w in merged_advice(evaluation.warnings) if w.kind is RetrievalNoiseWarning]
    assert merged.text.startswith(
        "4 categories have fewer than retrieval_min_queries = 30 queries: a difference under "
        "the amount beside each is noise (add queries; -v gives each its own warning): easy (n=2"
    )
    assert "single (n=1: no interval)" in merged.text


def test_judged_at_k_is_never_called_saturated() -> None:
    """trec_eval's results.test is judged to depth 10 on every topic: judged@10 = 1.0 on
    each query was warned as 'saturated ... add harder queries'. It is coverage, whose
    1.0 is the aim; a quality metric at 1.0 beside it still is."""
    recs = {"bm25": [record(f"q{i}", "c", {"judged@10": 1.0, "mrr": 1.0}) for i in range(3)]}
    (warning,) = saturation_warnings(recs, ["judged@10", "mrr"])
    assert warning.text.startswith("c: every query scores 1.0 with bm25 (mrr): saturated")
    recs = {"bm25": [record(f"q{i}", "c", {"judged@10": 1.0, "mrr": 0.5}) for i in range(3)]}
    assert saturation_warnings(recs, ["judged@10", "mrr"]) == []


def test_saturation_and_overlap_warnings() -> None:
    recs = {
        "bm25": [
            record("e1", "easy", {"mrr": 1.0, "recall@20": 1.0}),
            record("e2", "easy", {"mrr": 1.0, "recall@20": 1.0}),
            record("m1", "mixed", {"mrr": 1.0, "recall@20": 0.0}),
            record("m2", "mixed", {"mrr": 1.0, "recall@20": 1.0}),
            record("m3", "mixed", {"mrr": 0.5, "recall@20": 1.0}),
        ]
    }
    warnings = saturation_warnings(recs, ["mrr", "recall@20"])
    assert len(warnings) == 1
    warning = str(warnings[0])
    assert warning.startswith("easy: ") and "bm25" in warning
    assert "saturated" in warning
    # easy is saturated on both metrics; mixed has a 0.0 and a 0.5, so it is not named
    assert "easy" in warning and "mrr" in warning and "recall@20" in warning
    assert "mixed" not in warning
    mixed_only = {"bm25": [r for r in recs["bm25"] if r.category == "mixed"]}
    assert saturation_warnings(mixed_only, ["mrr", "recall@20"]) == []
    skipped = [
        record("e1", "easy", {"mrr": 1.0}),
        record("e2", "easy", {"mrr": None}, outcome="skipped"),
    ]
    assert len(saturation_warnings({"bm25": skipped}, ["mrr"])) == 1  # skipped: not counted
    # one warning per saturated category (placed at its file), naming each configuration
    both = {
        "bm25": [record("a1", "alpha", {"mrr": 1.0, "recall@20": 0.5})],
        "dense": [
            record("a1", "alpha", {"mrr": 1.0, "recall@20": 1.0}),
            record("b1", "beta", {"mrr": 1.0, "recall@20": 1.0}),
        ],
    }
    assert [(w.category, w.text) for w in saturation_warnings(both, ["mrr", "recall@20"])] == [
        ("alpha", "alpha: every query scores 1.0 with bm25 (mrr), dense (mrr, recall@20): "
         "saturated, these can catch a drop but never show an improvement; add harder queries"),
        ("beta", "beta: every query scores 1.0 with dense (mrr, recall@20): saturated, these "
         "can catch a drop but never show an improvement; add harder queries"),
    ]  # fmt: skip

    def results_with(recall: float, ndcg: float, n: int = 10) -> Results:
        results = Results()
        for i in range(n):
            results.add(record(f"q{i}", "a", {"ndcg@10": ndcg, "recall@20": recall}, "bm25"))
        return results

    high = overlap_warnings(summaries(results_with(0.96, 0.5), ["ndcg@10", "recall@20"]))
    assert len(high) == 1
    assert str(high[0]).startswith("bm25: recall@20 = 0.960 (all) is suspiciously high")
    assert "overlap" in str(high[0])
    assert overlap_warnings(summaries(results_with(0.95, 1.0), ["ndcg@10", "recall@20"])) == []
    # on nine queries (one selected with -k, say) a high recall says nothing about leaks
    assert overlap_warnings(summaries(results_with(1.0, 1.0, 9), ["recall@20"])) == []


def test_a_high_recall_at_a_deep_cut_is_no_overlap_warning() -> None:
    """BM25 on Cranfield (1,400 documents) has recall@1000 = 0.959: an honest run, warned
    as 'suspiciously high ... check that golden queries do not overlap the index'. A
    leaked document ranks at the top, so only cuts up to 100 are looked at."""
    for metric, warned in (("recall@100", True), ("recall@101", False), ("recall@1000", False)):
        results = Results()
        for i in range(10):
            results.add(record(f"q{i}", "a", {metric: 0.96}, "bm25"))
        assert len(overlap_warnings(summaries(results, [metric]))) == warned, metric


# --------------------------------------------------------------------------- table cells


def test_cells_terminal_and_markdown() -> None:
    s = Slice(
        Row(n=40, values={"mrr": 0.712, "x": None}), {"mrr": Interval(0.671, 0.753, "bootstrap")}
    )
    assert cell(s, "mrr", markdown=False) == "0.712 ±0.041"
    assert cell(s, "mrr", markdown=True) == "0.712 [0.671, 0.753]"
    assert cell(s, "x", markdown=False) == "n/a"
    single = Slice(Row(n=1, values={"mrr": 0.5}), {"mrr": Interval(0.5, 0.5, "none")})
    assert cell(single, "mrr", markdown=False) == "0.500"
    assert WEIGHTED == "all (weighted)"


@pytest.mark.parametrize("configurations", [["a"], ["a", "b"]])
def test_a_row_over_the_same_queries_as_all_has_the_same_interval(
    configurations: list[str],
) -> None:
    """`-k paraphrase` leaves one category: its row and `all` are the same queries and
    values, so they show the same interval (drawn from the queries, not the row's name)."""
    results = Results()
    values = [0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.5, 1.0, 0.2, 0.1, 0.9, 0.3]
    for position, name in enumerate(configurations):
        for i, v in enumerate(values):
            shifted = min(1.0, v + 0.1 * position)
            results.add(record(f"q{i:02d}", "para", {"mrr": shifted}, name, position=position))
    found = evaluate(results, ["mrr"], StatsSettings(resamples=2000, seed=5)).intervals
    for name in configurations:
        assert found[name]["para"]["mrr"] == found[name][ALL]["mrr"]
        assert found[name]["para"]["mrr"].method == "bootstrap"


def test_a_category_whose_every_query_errored_gets_no_noise_warning() -> None:
    """A service that was down: every query an error scoring 0, and the noise warning said
    the configurations 'score its queries alike'. The errors are what to fix."""
    results = Results()
    for position, name in enumerate(("bm25", "dense")):
        for i in range(4):
            results.add(record(f"d{i}", "down", {"mrr": 0.0}, name, [], position, "error"))
            up = "error" if i == 0 else "passed"  # one error in a category that answered
            results.add(record(f"u{i}", "up", {"mrr": 0.0}, name, [], position, up))
    evaluation = evaluate(results, ["mrr"], StatsSettings(resamples=100))
    noise = [w.category for w in evaluation.warnings if w.kind is RetrievalNoiseWarning]
    assert noise == ["up"]
    recs = {name: results.view(name).records for name in ("bm25", "dense")}
    assert errored_categories(recs) == ["down"]


def test_a_category_every_query_of_which_differs_alike_is_not_said_to_score_alike() -> None:
    """One configuration's batch call failed (every query an error, 0.0), the other scored
    1.0 on each: the paired differences are all 1.0, so their interval has no width, and
    the warning said the configurations 'score its queries alike'."""
    results = Results()
    for position, name in enumerate(("broken", "good")):
        for i in range(3):
            outcome = "error" if name == "broken" else "passed"
            value = 0.0 if name == "broken" else 1.0
            results.add(record(f"q{i}", "few", {"mrr": value}, name, [], position, outcome))
    evaluation = evaluate(results, ["mrr"], StatsSettings(resamples=100))
    noise = [str(w) for w in evaluation.warnings if w.kind is RetrievalNoiseWarning]
    assert noise == [
        "few: n=3: the configurations differ by the same amount on each of its queries, so "
        "their differences have no interval, yet one query moves a mean by up to 0.33 "
        "(fewer than retrieval_min_queries = 30 queries; add queries)"
    ]


def test_the_noise_of_a_small_category_is_never_under_one_query_s_weight() -> None:
    """Two configurations alike on all but one of 5 queries: their paired interval is
    narrow, yet one query moves a mean by 0.2; the warning says 0.20, not 0.01."""
    results = Results()
    for position, name in enumerate(("plain", "stemmed")):
        for i in range(5):
            value = 1.0 if i or name == "plain" else 0.95
            results.add(record(f"q{i}", "exact", {"mrr": value}, name, [], position))
    evaluation = evaluate(results, ["mrr"], StatsSettings(resamples=1000))
    warnings = [
        str(w)
        for w in noise_warnings(
            summaries(results, ["mrr"]), evaluation.intervals, 30, evaluation.comparisons
        )
    ]
    assert warnings == [
        "exact: n=5: differences between configurations under ±0.20 are noise here "
        "(fewer than retrieval_min_queries = 30 queries; add queries)"
    ]


def test_a_significant_difference_under_the_noise_limit_is_named_beside_it() -> None:
    """12 queries, `stemmed` 0.03 lower on each: the comparison marks -0.030 significant (*),
    while the warning called every difference under ±0.08 noise, without a word."""
    results = Results()
    for position, name in enumerate(("plain", "stemmed")):
        for i in range(12):
            value = 0.9 + (i % 3) * 0.05 - (0.03 if name == "stemmed" else 0.0)
            results.add(record(f"q{i}", "exact", {"mrr": value}, name, [], position))
    evaluation = evaluate(results, ["mrr"], StatsSettings(resamples=1000))
    comparisons = evaluation.comparisons
    assert comparisons is not None
    (row,) = [r for r in comparisons.rows if r.category == "exact"]
    assert row.significant and abs(row.delta + 0.03) < 1e-9
    (warning,) = [
        str(w)
        for w in noise_warnings(summaries(results, ["mrr"]), evaluation.intervals, 30, comparisons)
    ]
    assert warning == (
        "exact: n=12: differences between configurations under ±0.08 are noise here, unless "
        "marked *: stemmed mrr -0.030 is significant all the same (consistent across its "
        "queries) (fewer than retrieval_min_queries = 30 queries; add queries)"
    )


def test_a_p_value_that_underflowed_to_zero_is_shown_as_under_the_smallest() -> None:
    """The normal law's p for 5,000 queries that all dropped underflows to 0.0, which the
    gate's table printed as 'p (Holm) 0': no test gives a p of 0."""
    from pytest_retrieval.gate import GateRow
    from pytest_retrieval.report.gate_text import row_cells

    row = GateRow("v3", "all", "mrr", 5000, 0.8, 0.5, -0.3, 0.02, True, [-0.31, -0.29], 0.0,
                  "normal", p_holm=0.0)  # fmt: skip
    assert row_cells(row)[-1] == "<1e-300"
    assert row_cells(dataclasses.replace(row, p_holm=0.0123))[-1] == "0.0123"
    assert p_text(1.0) == "1"


def test_a_p_value_that_underflowed_is_written_as_a_bound_not_as_zero() -> None:
    """The JSON wrote "p_holm": 0.0 where the terminal printed <1e-300."""
    from pytest_retrieval.comparisons import ComparisonRow
    from pytest_retrieval.gate import GateRow

    gate_row = GateRow("v3", "all", "mrr", 5000, 0.8, 0.5, -0.3, 0.02, True, [-0.31, -0.29], 0.0,
                       "normal", p_holm=0.0)  # fmt: skip
    compared = ComparisonRow("v3", "all", "mrr", 5000, 0.3, [0.29, 0.31], 0.0, 5000, 0, 0,
                             "normal", p_holm=0.0)  # fmt: skip
    for row in (gate_row, compared):
        written = row.as_dict()
        assert (written["p"], written["p_holm"], written["p_underflow"]) == (1e-300, 1e-300, True)
        assert row.p_holm == 0.0  # the bound is the report's; the row keeps what was computed
        normal = dataclasses.replace(row, p=0.004, p_holm=0.012).as_dict()
        assert (normal["p"], normal["p_holm"], normal["p_underflow"]) == (0.004, 0.012, False)


def test_a_tag_row_over_the_same_queries_as_a_summary_row_has_its_interval() -> None:
    """Rows over the same queries draw the same resamples: a tag every query carries gives
    the interval of ``all``; a tag on one category's queries, that category's."""
    from pytest_retrieval.settings import parse_settings

    results = Results()
    for i in range(60):
        category = "a" if i % 3 else "b"
        tags = ["core", *(["only-b"] if category == "b" else [])]
        values = {"mrr": (i * 37 % 11) / 10, "ndcg@10": (i * 17 % 7) / 6}
        results.add(QueryRecord(f"q{i:02d}", "bm25", category, tags=tags, metrics=values))
    settings = parse_settings({"retrieval_metrics": "mrr ndcg@10"})
    found = analyse(results, settings, StatsSettings(), [parse_group_by("tags")])
    table = next(iter(found.groups.values()))["bm25"]
    assert found.intervals["bm25"]["all"]["mrr"].method == "bootstrap"
    assert table["core"].intervals == found.intervals["bm25"]["all"]
    assert table["only-b"].intervals == found.intervals["bm25"]["b"]


@pytest.mark.parametrize(
    ("written", "gain", "max_grade", "warned"),
    [
        ("nDCG@10 RR", "exponential", 3, True),
        ("ndcg@10 RR", "exponential", 3, False),  # our spelling: our default gain
        ("nDCG@10", "linear", 3, False),  # ir_measures' numbers
        ("nDCG@10", "exponential", 1, False),  # binary grades: 2^1 - 1 = 1, the same
    ],
)
def test_ndcg_spelled_as_ir_measures_under_exponential_gain_is_named(
    written: str, gain: str, max_grade: int, warned: bool
) -> None:
    from pytest_retrieval.advice import gain_warnings

    advice = gain_warnings(parse_metrics(written.split()), gain, max_grade)
    assert bool(advice) is warned
    if warned:
        assert advice[0].setting == "retrieval_metrics"
        assert str(advice[0]).endswith(
            "set retrieval_gain = linear for ir_measures' numbers, or write ndcg@10 to keep "
            "exponential gain"
        )


def test_the_significant_differences_title_fits_the_terminal() -> None:
    """'significant differences from REFERENCE (* above; Holm-corrected):' was one line
    whatever the width (60 characters with a reference of four letters)."""
    row = ComparisonRow("dense", ALL, "mrr", 40, 0.2, [0.1, 0.3], 0.001, 30, 5, 5, "sampled")
    row.significant = True
    evaluation = SimpleNamespace(comparisons=Comparisons("bm25-multilingual", [row]))
    lines = significant_lines(evaluation, 50)  # type: ignore[arg-type]
    assert all(len(line) <= 50 for line in lines), lines
    assert " ".join(" ".join(lines).split()).startswith(
        "significant differences from bm25-multilingual (* above; Holm-corrected): dense mrr:"
    )


def test_a_difference_of_float_noise_is_a_tie_in_every_figure() -> None:
    """wins/ties counted 0.3 against 0.1 + 0.2 as a tie, while the interval and the mean
    kept the 5.6e-17 apart: an interval 'clear of 0' beside a row of 20 ties (a custom
    metric that adds its parts in another order gives such values)."""
    import random as _random

    from pytest_retrieval.stats import paired_test

    test = paired_test([0.3] * 19 + [0.5], [0.1 + 0.2] * 19 + [0.5], 1000, _random.Random(1))
    assert (test.wins, test.ties, test.losses) == (0, 20, 0)
    assert test.delta == 0.0
    assert (test.ci.lo, test.ci.hi) == (0.0, 0.0)
    assert test.p == 1.0
