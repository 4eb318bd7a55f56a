"""Aggregate per-query records into per-configuration, per-category means.

Pure. Means come from :func:`pytest_retrieval.stats.mean` (``math.fsum`` over values
in query-id order), so a serial run and an xdist run (reports in another order)
give bit-identical numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .model import ALL, ConfigurationRecords, MetricColumns, QueryRecord, Results, metric_columns
from .stats import mean


@dataclass
class Row:
    """One summary row: n evaluated queries and each metric's mean (None = n/a).

    ``counts``: how many queries each mean is over, when that is not n (a metric left
    out of queries with nothing to find, under ``retrieval_empty = skip``).
    """

    n: int
    values: dict[str, float | None]
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, metric: str) -> int:
        return self.counts.get(metric, self.n)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"n": self.n, **self.values}
        if self.counts:
            out["n_values"] = dict(self.counts)
        return out


@dataclass
class ConfigurationSummary:
    """Rows for one configuration: ``all`` and each category."""

    all: Row
    categories: dict[str, Row] = field(default_factory=dict)

    def rows(self) -> list[tuple[str, Row]]:
        """Category rows (sorted by name) then ``all``."""
        return [*sorted(self.categories.items()), (ALL, self.all)]


def summarize_rows(records: Sequence[QueryRecord], metrics: Sequence[str]) -> Row:
    """n and the means of the evaluated records (given in id order)."""
    return summarize_columns(metric_columns([r for r in records if r.evaluated], metrics))


def summarize_columns(columns: MetricColumns) -> Row:
    """n and each metric's mean over a group's evaluated columns (in id order)."""
    n = len(columns.ids)
    values: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for metric, column in columns.values.items():
        present = column if None not in column else [v for v in column if v is not None]
        values[metric] = mean(present)
        if len(present) != n:
            counts[metric] = len(present)
    return Row(n=n, values=values, counts=counts)


def summarize(view: ConfigurationRecords, metrics: Sequence[str]) -> ConfigurationSummary:
    """Summarize one configuration's records (categories of skipped items included, n = 0)."""
    rows = {name: summarize_columns(c) for name, c in view.group_columns(metrics).items()}
    return ConfigurationSummary(all=rows.pop(ALL), categories=rows)


def summaries(results: Results, metrics: Sequence[str]) -> dict[str, ConfigurationSummary]:
    """Every configuration's summary, in the fixture's parameter order."""
    return {c: summarize(results.view(c), metrics) for c in results.configurations()}
