"""Statistics over per-query values: bootstrap intervals, paired randomization tests, Holm.

Pure and dependency-free. All randomness comes from :class:`random.Random`
seeded by text (``seed:configuration:category``), so a number is reproducible
for one seed whatever order the reports arrived in.

Cost control: a percentile bootstrap or a sampled randomization test costs
``resamples x n`` additions. Up to :data:`RESAMPLE_MAX_N` queries in a cell the
plugin resamples (positions drawn a byte each, at C speed); above it the bootstrap
distribution of a mean is its Edgeworth limit, the normal law with the skewness
term of the mean (what a percentile bootstrap's interval is to order 1/n), and the
sign-flip distribution of a paired mean difference, which is symmetric, is normal;
``method`` says which was used.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import mul, sub
from typing import Literal

IntervalMethod = Literal["bootstrap", "normal", "none", "empty"]
TestMethod = Literal["exact", "sampled", "normal"]

Z975 = 1.959963984540054  # the 97.5% quantile of the standard normal
RESAMPLE_MAX_N = 256  # queries in a cell up to which it is resampled (a position per byte)
EXACT_SIGN_FLIP_MAX = 14  # exact enumeration up to 2^14 sign patterns


def rng_for(seed: int, *parts: str) -> random.Random:
    """A generator seeded by text, independent of PYTHONHASHSEED and of call order."""
    return random.Random(":".join([str(seed), *parts]))


def queries_key(ids: Sequence[str]) -> str:
    """A short key for a list of query ids: the resamples of a row are drawn from it, so
    two rows over the same queries (a category and ``all`` under ``-k`` that category)
    get the same draws and, on the same values, the same interval."""
    digest = hashlib.sha256("\n".join(ids).encode("utf-8", "surrogatepass")).hexdigest()
    return f"q{len(ids)}-{digest[:20]}"


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    pos = (len(sorted_values) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    frac = pos - low
    return sorted_values[low] * (1 - frac) + sorted_values[high] * frac


def mean(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None (None when there are none).

    The package's one mean: :func:`math.fsum` makes it exact to the last bit whatever
    the order of the values, so a serial run and an xdist run agree.
    """
    kept = [v for v in values if v is not None]
    return math.fsum(kept) / len(kept) if kept else None


def _powers(values: Sequence[float], m: float, power: int) -> Iterable[float]:
    """``(v - m) ** power`` of each value, at C speed (the same floats as the expression)."""
    return map(pow, map(sub, values, repeat(m)), repeat(power))


def _mean(values: Sequence[float]) -> float:
    found = mean(values)
    assert found is not None, "a mean of no values"
    return found


def _sd(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    m = _mean(values)
    return math.sqrt(math.fsum(_powers(values, m, 2)) / (n - 1))


@dataclass(frozen=True)
class Interval:
    lo: float
    hi: float
    method: IntervalMethod  # "none": one value; "empty": no value

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def as_list(self) -> list[float] | None:
        """``[lo, hi]``; None when there was no value to make an interval from."""
        return None if self.method == "empty" else [self.lo, self.hi]


def draw_positions(rng: random.Random, n: int, resamples: int) -> bytes:
    """``resamples`` draws of n positions out of n (1 <= n <= 256), one after another.

    Each position is a random byte below the largest multiple of n that fits in a
    byte, taken modulo n: uniform exactly, and both steps (dropping the bytes above,
    the modulo) are one ``bytes.translate`` at C speed.
    """
    if not 1 <= n <= 256:
        raise ValueError(f"positions are drawn for 1..256 values, not {n}")
    limit = 256 - 256 % n
    table = bytes(b % n for b in range(256))
    dropped = bytes(range(limit, 256))
    need = resamples * n
    drawn = bytearray()
    while len(drawn) < need:
        wanted = need - len(drawn)
        drawn += rng.randbytes(wanted * 256 // limit + 16).translate(table, dropped)
    return bytes(drawn[:need])


def means_at(series: Sequence[Sequence[float]], drawn: bytes) -> list[list[float]]:
    """Bootstrap means of aligned series (one length n) at drawn positions, n at a time."""
    n = len(series[0])
    starts = range(0, len(drawn), n)
    if len(series) == 1:  # no rows to build: the sums straight from the positions
        one = series[0].__getitem__
        return [[sum(map(one, drawn[start : start + n])) / n for start in starts]]
    pick = list(zip(*series, strict=True)).__getitem__
    out: list[list[float]] = [[] for _ in series]
    for start in starts:
        sample = map(pick, drawn[start : start + n])
        for means, column in zip(out, zip(*sample, strict=True), strict=True):
            means.append(sum(column) / n)
    return out


def bootstrap_means(
    series: Sequence[Sequence[float]], resamples: int, rng: random.Random
) -> list[list[float]]:
    """Bootstrap means of several aligned series from the same resampled queries.

    Sharing the resampled queries across series is what makes a bootstrap
    *paired*: the difference of two series' bootstrap means is the bootstrap of
    their paired differences. Each resample draws n positions with replacement
    (:func:`draw_positions`); the transposition and the sums run at C speed.
    """
    return means_at(series, draw_positions(rng, len(series[0]), resamples))


class Draws:
    """Bootstrap resamples of n positions, drawn once per (key, n) and shared.

    The indices of resample r for a cell of n values depend only on the seed, the
    key (:func:`queries_key` of the cell's queries) and n, so every series over those
    queries can use them: the summary's intervals, the paired differences between
    configurations, and the gate's differences with the baseline then cost one draw
    per set of queries instead of one per row. The draws of a key come from
    ``rng_for(seed, "shared", key)`` and are the ones :func:`bootstrap_means` would take
    from that generator. Positions
    are kept (a byte each) up to ``budget`` bytes in all; beyond it a draw is made
    again when asked for, with the same result.
    """

    def __init__(self, seed: int, resamples: int, budget: int = 64 * 2**20) -> None:
        self.seed, self.resamples, self.budget = seed, resamples, budget
        self._kept: dict[tuple[str, int], bytes] = {}
        self._size = 0

    def indices(self, key: str, n: int) -> bytes:
        """The ``resamples`` draws of n positions out of n, one after another."""
        found = self._kept.get((key, n))
        if found is not None:
            return found
        drawn = draw_positions(rng_for(self.seed, "shared", key), n, self.resamples)
        if self._size + len(drawn) <= self.budget:
            self._kept[(key, n)] = drawn
            self._size += len(drawn)
        return drawn

    def means(self, key: str, series: Sequence[Sequence[float]]) -> list[list[float]]:
        """Bootstrap means of aligned series (one length n), from the key's draws."""
        return means_at(series, self.indices(key, len(series[0])))


def mean_interval(
    values: Sequence[float],
    resamples: int,
    rng: random.Random,
    boot: Sequence[float] | None = None,
) -> Interval:
    """95% interval of a mean: percentile bootstrap, or its Edgeworth (normal with the
    skewness term) limit above RESAMPLE_MAX_N.

    ``boot`` passes bootstrap means already drawn (shared indices, see
    :func:`bootstrap_means`); otherwise they are drawn here from ``rng``.
    """
    n = len(values)
    if n == 0:
        return Interval(0.0, 0.0, "empty")
    if n == 1:
        return Interval(values[0], values[0], "none")
    if use_resampling(n, resamples):
        if boot is None and min(values) == max(values):
            return Interval(values[0], values[0], "bootstrap")  # every resample's mean
        means = sorted(boot if boot is not None else bootstrap_means([values], resamples, rng)[0])
        return Interval(quantile(means, 0.025), quantile(means, 0.975), "bootstrap")
    m = _mean(values)
    spread = _sd(values) / math.sqrt(n)
    # Edgeworth: the mean's skewness (the values' over sqrt n) moves both limits alike
    shift = _skewness(values, m) / math.sqrt(n) / 6 * (Z975 * Z975 - 1)
    lo, hi = m + spread * (shift - Z975), m + spread * (shift + Z975)
    # a mean lies between the smallest and the largest value: the limits must too
    return Interval(max(lo, min(values)), min(hi, max(values)), "normal")


def _skewness(values: Sequence[float], m: float) -> float:
    """The values' (population) skewness; 0 when they do not vary."""
    second = math.fsum(_powers(values, m, 2)) / len(values)
    if second <= 0:
        return 0.0
    third = math.fsum(_powers(values, m, 3)) / len(values)
    return float(third / second**1.5)


def use_resampling(n: int, resamples: int) -> bool:
    """Whether a cell of n queries is resampled (else its normal limit is used)."""
    return 2 <= n <= RESAMPLE_MAX_N and resamples > 0


# --------------------------------------------------------------------------- paired tests


@dataclass(frozen=True)
class PairedTest:
    """A paired comparison of two systems on the same queries."""

    n: int
    delta: float
    ci: Interval
    p: float
    method: TestMethod
    wins: int
    ties: int
    losses: int


def sign_flip_p(
    differences: Sequence[float], resamples: int, rng: random.Random
) -> tuple[float, TestMethod]:
    """Two-sided p-value of a paired randomization (sign-flip) test of mean difference 0.

    Exact enumeration of all sign patterns when at most EXACT_SIGN_FLIP_MAX
    differences are non-zero; otherwise ``resamples`` seeded random patterns
    (p = (hits + 1) / (resamples + 1)) up to RESAMPLE_MAX_N queries, and the
    normal limit of the sign-flip distribution above.
    """
    nonzero = [abs(d) for d in differences if d != 0.0]
    if not nonzero:
        return 1.0, "exact"
    observed = abs(math.fsum(differences))
    eps = 1e-12 * max(1.0, observed)
    m = len(nonzero)
    total = math.fsum(nonzero)
    if m <= EXACT_SIGN_FLIP_MAX:
        # every sign pattern: T = 2 * (sum of the |d| signed +) - total
        positive_sums = [0.0]
        for d in nonzero:
            positive_sums += [p + d for p in positive_sums]
        hits = sum(1 for p in positive_sums if abs(2 * p - total) >= observed - eps)
        return hits / len(positive_sums), "exact"
    if use_resampling(len(differences), resamples):
        # A random sign pattern is a random subset of the |d| taken positive. Each
        # random byte picks the subset of 8 differences through a table of the 256
        # subset sums, so one pattern costs m/8 lookups instead of m additions.
        tables = [_subset_sums(nonzero[i : i + 8]) for i in range(0, m, 8)]
        width = len(tables)
        pool = rng.randbytes(resamples * width)  # every pattern's bytes in one draw
        pick = list.__getitem__
        limit = observed - eps
        hits = 0
        for start in range(0, resamples * width, width):
            positive = sum(map(pick, tables, pool[start : start + width]))
            if abs(2 * positive - total) >= limit:
                hits += 1
        return (hits + 1) / (resamples + 1), "sampled"
    spread = math.sqrt(math.fsum(map(mul, nonzero, nonzero)))
    z = observed / spread
    return math.erfc(z / math.sqrt(2)), "normal"


def smallest_p(n: int, resamples: int) -> float:
    """The smallest p-value :func:`sign_flip_p` can give n paired differences.

    Every difference non-zero and of one sign: 2 / 2^n when enumerated exactly, one
    hit in (draws + 1) when sampled; the normal limit has no floor.
    """
    if n <= EXACT_SIGN_FLIP_MAX:
        return 2.0 / float(2**n)
    if use_resampling(n, resamples):
        return 1.0 / (resamples + 1)
    return 0.0


def smallest_significant_n(tests: int, alpha: float, resamples: int) -> int:
    """The fewest queries a row needs to be significant after Holm over ``tests`` rows."""
    n = 1
    while tests * smallest_p(n, resamples) >= alpha:
        n += 1
        if n > RESAMPLE_MAX_N:
            return RESAMPLE_MAX_N + 1
    return n


def sampled_floor(tests: int, alpha: float, resamples: int) -> float | None:
    """The smallest sampled p, 1 / (resamples + 1), when it is too large to be significant
    after Holm over ``tests`` tests (else None): a row of EXACT_SIGN_FLIP_MAX + 1 to
    RESAMPLE_MAX_N queries is then significant only with at most EXACT_SIGN_FLIP_MAX of
    them moved (their exact test), never when more moved."""
    floor = 1.0 / (resamples + 1)
    return floor if resamples > 0 and tests * floor >= alpha else None


def _subset_sums(values: Sequence[float]) -> list[float]:
    """The sum of every subset of (at most 8) values, indexed by the subset's bit mask."""
    sums = [0.0]
    for v in values:
        sums += [p + v for p in sums]
    return sums * (256 // len(sums))  # bits beyond the values repeat the table


TIED = 1e-12  # a paired difference this small is float noise: a tie


def paired_test(
    current: Sequence[float],
    reference: Sequence[float],
    resamples: int,
    rng: random.Random,
    boot: Sequence[float] | None = None,
) -> PairedTest:
    """Compare ``current`` with ``reference`` value by value (same queries, same order)."""
    if len(current) != len(reference):
        raise ValueError(f"paired values of {len(current)} and {len(reference)} queries")
    diffs = list(map(sub, current, reference))
    n = len(diffs)
    wins = sum(map(TIED.__lt__, diffs))
    losses = sum(map((-TIED).__gt__, diffs))
    if n - wins - losses != diffs.count(0.0):  # float noise (0.1 + 0.2 - 0.3): a tie, as
        diffs = [d if abs(d) > TIED else 0.0 for d in diffs]  # counted, for every figure
    delta = _mean(diffs) if diffs else 0.0
    ci = mean_interval(diffs, resamples, rng, boot=boot) if diffs else Interval(0.0, 0.0, "empty")
    p, method = sign_flip_p(diffs, resamples, rng)
    return PairedTest(n, delta, ci, p, method, wins, n - wins - losses, losses)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
