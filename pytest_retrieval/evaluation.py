"""Everything derived from a run's records, computed once: the cores put together.

Pure. :func:`analyse` turns :class:`~pytest_retrieval.aggregate.Results` into an
:class:`Evaluation` that the terminal tables, the reports and the gate all read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .advice import noise_warnings, overlap_warnings, saturation_warnings, settings_warnings
from .aggregate import ALL, ConfigurationSummary, Results, Row, summarize_rows
from .comparisons import (
    Comparisons,
    StatsSettings,
    compare_configurations,
    record_intervals,
    shared_bootstrap,
    summary_intervals,
)
from .settings import Settings
from .slices import WEIGHTED, GroupBy, group_records, weighted_interval, weighted_row
from .stats import Interval


@dataclass
class Slice:
    """A row with its intervals (metric -> interval)."""

    row: Row
    intervals: dict[str, Interval]

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.row.as_dict(),
            "ci": {m: iv.as_list() for m, iv in self.intervals.items()},
        }


@dataclass
class Evaluation:
    metrics: list[str]
    summaries: dict[str, ConfigurationSummary]
    intervals: dict[str, dict[str, dict[str, Interval]]]
    comparisons: Comparisons | None
    weighted: dict[str, Slice] = field(default_factory=dict)
    weighted_left_out: list[str] = field(default_factory=list)
    groups: dict[str, dict[str, dict[str, Slice]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def rows(self, configuration: str) -> list[tuple[str, Slice]]:
        """A configuration's rows: categories, ``all``, then ``all (weighted)`` if any."""
        summary = self.summaries[configuration]
        intervals = self.intervals.get(configuration, {})
        out = [(name, Slice(row, intervals.get(name, {}))) for name, row in summary.rows()]
        if configuration in self.weighted:
            out.append((WEIGHTED, self.weighted[configuration]))
        return out

    def summary_dict(self, configuration: str) -> dict[str, Any]:
        rows = dict(self.rows(configuration))
        out: dict[str, Any] = {
            ALL: rows[ALL].as_dict(),
            "categories": {
                name: s.as_dict() for name, s in sorted(rows.items()) if name not in (ALL, WEIGHTED)
            },
        }
        if WEIGHTED in rows:
            out["weighted"] = rows[WEIGHTED].as_dict()
        return out


def analyse(
    results: Results,
    settings: Settings,
    stats: StatsSettings,
    group_bys: Sequence[GroupBy] = (),
) -> Evaluation:
    metrics = settings.metric_names
    summaries = results.summaries(metrics)
    shared = shared_bootstrap(results, metrics, stats)
    intervals = summary_intervals(results, metrics, stats, shared)
    evaluation = Evaluation(
        metrics=metrics,
        summaries=summaries,
        intervals=intervals,
        comparisons=compare_configurations(results, metrics, stats, shared),
    )
    for configuration in results.configurations():
        records = results.records(configuration)
        if stats.weights:
            found = weighted_row(records, stats.weights, metrics)
            if found is not None:
                row, left_out = found
                evaluation.weighted[configuration] = Slice(
                    row,
                    {
                        m: weighted_interval(
                            records, stats.weights, m, stats.resamples, stats.seed, configuration
                        )
                        for m in metrics
                    },
                )
                evaluation.weighted_left_out = sorted(
                    set(evaluation.weighted_left_out) | set(left_out)
                )
        for group in group_bys:
            table = evaluation.groups.setdefault(group.title, {})
            table[configuration] = {
                name: Slice(
                    summarize_rows(recs, metrics),
                    record_intervals(recs, metrics, stats, configuration, "group", name),
                )
                for name, recs in group_records(records, group).items()
            }
    categories = sorted({c for summary in summaries.values() for c in summary.categories})
    evaluation.warnings = (
        settings_warnings(results.configurations(), categories, stats.reference, stats.weights)
        + noise_warnings(summaries, intervals, stats.min_queries)
        + saturation_warnings({c: results.records(c) for c in results.configurations()}, metrics)
        + overlap_warnings(summaries)
    )
    if evaluation.weighted_left_out:
        evaluation.warnings.append(
            "retrieval_weights gives no weight to "
            + ", ".join(evaluation.weighted_left_out)
            + ": left out of 'all (weighted)'"
        )
    return evaluation
