"""Extra slices: rows grouped by tag (``--retrieval-group-by``) and a traffic-weighted row.

Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .aggregate import Row
from .model import NO_TAG, QueryRecord, by_category
from .settings import GroupBy
from .stats import Z975, Interval, mean, quantile, rng_for, use_resampling


@dataclass
class Slice:
    """A row with its intervals (metric -> interval)."""

    row: Row
    intervals: dict[str, Interval]

    def as_dict(self) -> dict[str, object]:
        return {
            **self.row.as_dict(),
            "ci": {m: iv.as_list() for m, iv in self.intervals.items()},
        }


def group_records(records: Sequence[QueryRecord], group: GroupBy) -> dict[str, list[QueryRecord]]:
    """Records by group name; a query with several of the tags counts in each."""
    out: dict[str, list[QueryRecord]] = {}
    for record in records:
        tags = [t for t in record.tags if not group.tags or t in group.tags]
        if not tags and group.tags:
            tags = [NO_TAG]
        for tag in tags:
            out.setdefault(tag, []).append(record)
    order = [*list(group.tags), NO_TAG] if group.tags else sorted(out)
    return {name: out[name] for name in order if name in out}


# --------------------------------------------------------------------------- weighting


def weighted_row(
    records: Sequence[QueryRecord], weights: Mapping[str, float], metrics: Sequence[str]
) -> tuple[Row, list[str]] | None:
    """Σ w_c · mean_c / Σ w_c over weighted categories present; and categories left out."""
    groups = by_category([r for r in records if r.evaluated])
    used = {c: w for c, w in weights.items() if c in groups and w > 0}
    if not used:
        return None
    values: dict[str, float | None] = {}
    for metric in metrics:
        parts = []
        for category, weight in sorted(used.items()):
            m = mean(r.metrics.get(metric) for r in groups[category])
            if m is not None:
                parts.append((weight, m))
        weight_sum = math.fsum(w for w, _ in parts)
        values[metric] = math.fsum(w * m for w, m in parts) / weight_sum if parts else None
    n = sum(len(groups[c]) for c in used)
    left_out = sorted(c for c in groups if c not in used)
    return Row(n=n, values=values), left_out


def weighted_interval(
    records: Sequence[QueryRecord],
    weights: Mapping[str, float],
    metric: str,
    resamples: int,
    seed: int,
    *parts: str,
) -> Interval:
    """Stratified bootstrap of the weighted mean (each category resampled on its own).

    Normal limit (per-category variances) when any category is too large to resample.
    """
    strata: list[tuple[float, list[float]]] = []
    for category, weight in sorted(weights.items()):
        values = [
            float(v)
            for r in records
            if r.evaluated and r.category == category and (v := r.metrics.get(metric)) is not None
        ]
        if values and weight > 0:
            strata.append((weight, values))
    if not strata:
        return Interval(0.0, 0.0, "empty")
    total = math.fsum(w for w, _ in strata)
    point = math.fsum(w * math.fsum(v) / len(v) for w, v in strata) / total
    if all(use_resampling(len(v), resamples) for _, v in strata):
        rng = rng_for(seed, "weighted", *parts, metric)
        draws = []
        for _ in range(resamples):
            acc = 0.0
            for weight, values in strata:
                sample = rng.choices(values, k=len(values))
                acc += weight * math.fsum(sample) / len(values)
            draws.append(acc / total)
        draws.sort()
        return Interval(quantile(draws, 0.025), quantile(draws, 0.975), "bootstrap")
    variance = 0.0
    for weight, values in strata:
        n = len(values)
        if n > 1:
            m = math.fsum(values) / n
            variance += (
                (weight / total) ** 2 * math.fsum((v - m) ** 2 for v in values) / (n - 1) / n
            )
    half = Z975 * math.sqrt(variance)
    return Interval(point - half, point + half, "normal")
