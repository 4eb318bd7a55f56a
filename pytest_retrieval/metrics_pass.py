"""The built-in metrics from one pass over a ranking: what :func:`~.metrics.evaluate` runs.

Pure. One walk over the ranking finds the judged results and their ranks; every
built-in metric is then a short sum over those few. The arithmetic is the
reference functions' of :mod:`pytest_retrieval.metrics` (same terms, same order),
so the values are the same to the last bit; tests/test_metrics_properties.py holds
the two together on generated rankings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

_LOG2 = [0.0] + [math.log2(r + 1) for r in range(1, 1025)]


def _discount(rank: int) -> float:
    return _LOG2[rank] if rank < 1025 else math.log2(rank + 1)


def _gain(grade: int, gain: str) -> float:
    if grade <= 0:
        return 0.0
    return float(2**grade - 1) if gain == "exponential" else float(grade)


def _judged_ranks(ranking: Sequence[str], judgments: Mapping[str, int]) -> list[tuple[int, int]]:
    """(rank, grade) of each judged result, in rank order (the ranking is de-duplicated).

    A query judges a handful of documents and retrieves a hundred: the judged ones
    among the results are found by a set intersection and their ranks by ``index``,
    both at C speed, instead of a walk over every result (20 ns a result, against
    80). When the judgments outnumber the results the walk is the cheaper one."""
    if len(judgments) > 2 * len(ranking):
        get = judgments.get
        return [
            (rank, grade)
            for rank, doc in enumerate(ranking, start=1)
            if (grade := get(doc)) is not None
        ]
    common = judgments.keys() & ranking
    if not common:
        return []
    index = ranking.index
    return sorted([(index(doc) + 1, judgments[doc]) for doc in common])


class Pass:
    """One ranking's judged results: ``found`` holds (rank, grade) in rank order."""

    __slots__ = ("found", "judgments", "length", "relevant", "threshold")

    def __init__(self, ranking: Sequence[str], judgments: Mapping[str, int], threshold: int):
        self.found = _judged_ranks(ranking, judgments)
        self.judgments = judgments
        self.length = len(ranking)
        self.threshold = threshold
        self.relevant = sum(1 for g in judgments.values() if g >= threshold)

    def _hits(self, k: int | None) -> int:
        limit = self.length if k is None else k
        threshold = self.threshold
        return sum(1 for r, g in self.found if r <= limit and g >= threshold)

    def ndcg(self, k: int | None, gain: str) -> float:
        limit = self.length if k is None else k
        total = 0.0
        for rank, grade in self.found:
            if rank > limit:
                break
            if grade > 0:
                total += _gain(grade, gain) / _discount(rank)
        grades = sorted((g for g in self.judgments.values() if g > 0), reverse=True)
        if k is not None:
            grades = grades[:k]
        ideal = sum(_gain(g, gain) / _discount(r) for r, g in enumerate(grades, start=1))
        return total / ideal if ideal > 0 else 0.0

    def mrr(self, k: int | None) -> float:
        limit = self.length if k is None else k
        for rank, grade in self.found:
            if rank > limit:
                break
            if grade >= self.threshold:
                return 1.0 / rank
        return 0.0

    def recall(self, k: int | None) -> float:
        return self._hits(k) / self.relevant if self.relevant else 0.0

    def precision(self, k: int | None) -> float:
        return self._hits(k) / (k or 1)

    def hit_rate(self, k: int | None) -> float:
        return 1.0 if self._hits(k) else 0.0

    def map(self, k: int | None) -> float:
        if not self.relevant:
            return 0.0
        limit = self.length if k is None else k
        hits = 0
        total = 0.0
        for rank, grade in self.found:
            if rank > limit:
                break
            if grade >= self.threshold:
                hits += 1
                total += hits / rank
        return total / self.relevant

    def r_precision(self) -> float:
        r = self.relevant
        return self._hits(r) / r if r else 0.0

    def judged(self, k: int | None) -> float:
        top = min(k or 0, self.length)
        if not top:
            return 0.0
        return sum(1 for r, _ in self.found if r <= top) / top

    def bpref(self) -> float:
        relevant, threshold = self.relevant, self.threshold
        if not relevant:
            return 0.0
        denominator = min(len(self.judgments) - relevant, relevant)
        above = 0
        total = 0.0
        for _, grade in self.found:
            if grade < threshold:
                above += 1
            else:
                total += 1.0 - min(above, relevant) / denominator if above else 1.0
        return total / relevant


Builtin = Callable[[Pass, int | None, str], float]

# base name -> the metric from a Pass, (cut, gain)
BUILTIN: dict[str, Builtin] = {
    "ndcg": lambda p, k, gain: p.ndcg(k, gain),
    "mrr": lambda p, k, gain: p.mrr(k),
    "recall": lambda p, k, gain: p.recall(k),
    "precision": lambda p, k, gain: p.precision(k),
    "hit_rate": lambda p, k, gain: p.hit_rate(k),
    "map": lambda p, k, gain: p.map(k),
    "r_precision": lambda p, k, gain: p.r_precision(),
    "judged": lambda p, k, gain: p.judged(k),
    "bpref": lambda p, k, gain: p.bpref(),
}
