"""Warnings that help read the numbers: noisy slices, saturated metrics, suspicious recall.

Pure: takes summaries and intervals, returns sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .aggregate import ConfigurationSummary
from .metrics import parse_metric
from .model import ALL, QueryRecord, by_category
from .stats import Interval

OVERLAP_RECALL = 0.95


def noise_warnings(
    summaries: Mapping[str, ConfigurationSummary],
    intervals: Mapping[str, Mapping[str, Mapping[str, Interval]]],
    min_queries: int,
) -> list[str]:
    """Categories with fewer than ``min_queries`` queries, and how wide their intervals are."""
    widest: dict[str, tuple[int, float]] = {}
    for configuration, summary in summaries.items():
        for category, row in summary.categories.items():
            if row.n >= min_queries or row.n == 0:  # n = 0: every item skipped, no numbers
                continue
            half = max(
                (
                    iv.half_width
                    for iv in intervals.get(configuration, {}).get(category, {}).values()
                ),
                default=0.0,
            )
            n, before = widest.get(category, (row.n, 0.0))
            widest[category] = (max(n, row.n), max(before, half))
    out = []
    for category, (n, half) in sorted(widest.items()):
        if n < 2:
            text = f"{category}: n={n}: a single query gives no interval and no evidence"
        elif half > 0:
            text = f"{category}: n={n}: differences under ±{half:.2f} are noise here"
        else:  # every query scores alike: the interval has no width
            text = (
                f"{category}: n={n}: its interval has no width, yet one query moves its mean "
                f"by up to {1 / n:.2f}"
            )
        out.append(f"{text} (fewer than retrieval_min_queries = {min_queries} queries)")
    return out


def settings_warnings(
    configurations: Sequence[str],
    categories: Sequence[str],
    reference: str | None,
    weights: Mapping[str, float],
) -> list[str]:
    """Settings that name a configuration or category this run does not have."""
    out = []
    if reference is not None and configurations and reference not in configurations:
        out.append(
            f"retrieval_reference names '{reference}', which is not among the configurations "
            f"run ({', '.join(configurations)}): compared with '{configurations[0]}' instead"
        )
    unknown = sorted(c for c in weights if c not in categories)
    if unknown:
        out.append(
            f"retrieval_weights names {', '.join(unknown)}, which no evaluated query has "
            f"(categories: {', '.join(categories)}); check the spelling"
        )
    return out


def saturation_warnings(
    records: Mapping[str, Sequence[QueryRecord]], metrics: Sequence[str]
) -> list[str]:
    """A category where every query scores 1.0 on a metric can never show an improvement.

    One sentence per configuration, naming each saturated category and its metrics.
    """
    out = []
    for configuration, recs in records.items():
        found = []
        for category, group in sorted(by_category([r for r in recs if r.evaluated]).items()):
            saturated = [m for m in metrics if all(r.metrics.get(m) == 1.0 for r in group)]
            if saturated:
                found.append(f"{category} ({', '.join(saturated)})")
        if found:
            out.append(
                f"{configuration}: every query scores 1.0 on {'; '.join(found)}: saturated, "
                "these can catch a drop but never show an improvement; add harder queries"
            )
    return out


def overlap_warnings(summaries: Mapping[str, ConfigurationSummary]) -> list[str]:
    """A mean recall above 0.95 often means the golden set leaks into the index."""
    out = []
    for configuration, summary in summaries.items():
        for metric, value in summary.all.values.items():
            if parse_metric(metric).base != "recall" or value is None:
                continue
            if value > OVERLAP_RECALL:
                out.append(
                    f"{configuration}: {metric} = {value:.3f} ({ALL}) is suspiciously high: check "
                    "that golden queries do not overlap the index (text copied from documents, "
                    "queries generated from them)"
                )
    return out
