"""Aggregate per-query records into per-configuration, per-category means.

Pure. Means use :func:`math.fsum` over values sorted by query id, so a serial
run and an xdist run (reports in another order) give bit-identical numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .scoring import QueryRecord

ALL = "all"


def mean(values: Iterable[float | None]) -> float | None:
    """fsum mean of the non-None values; None when there are none."""
    kept = [v for v in values if v is not None]
    return math.fsum(kept) / len(kept) if kept else None


@dataclass
class Row:
    """One summary row: n evaluated queries and each metric's mean (None = n/a)."""

    n: int
    values: dict[str, float | None]

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, **self.values}


@dataclass
class ConfigurationSummary:
    """Rows for one configuration: ``all`` and each category."""

    all: Row
    categories: dict[str, Row] = field(default_factory=dict)

    def rows(self) -> list[tuple[str, Row]]:
        """Category rows (sorted by name) then ``all``."""
        return [*sorted(self.categories.items()), (ALL, self.all)]


def summarize_rows(records: Sequence[QueryRecord], metrics: Sequence[str]) -> Row:
    evaluated = sorted((r for r in records if r.evaluated), key=lambda r: r.id)
    return Row(
        n=len(evaluated),
        values={m: mean(r.metrics.get(m) for r in evaluated) for m in metrics},
    )


def by_category(records: Iterable[QueryRecord]) -> dict[str, list[QueryRecord]]:
    """Records grouped by category, each group in the order given."""
    groups: dict[str, list[QueryRecord]] = {}
    for record in records:
        groups.setdefault(record.category, []).append(record)
    return groups


def summarize(records: Sequence[QueryRecord], metrics: Sequence[str]) -> ConfigurationSummary:
    """Summarize one configuration's records."""
    return ConfigurationSummary(
        all=summarize_rows(records, metrics),
        categories={c: summarize_rows(rs, metrics) for c, rs in by_category(records).items()},
    )


class Results:
    """Every record of a run, grouped by configuration.

    Configurations are ordered as the retriever fixture's params, whatever order
    the reports arrived in (xdist).
    """

    def __init__(self) -> None:
        self.by_configuration: dict[str, dict[str, QueryRecord]] = {}
        self._position: dict[str, int] = {}

    def add(self, record: QueryRecord) -> None:
        self.by_configuration.setdefault(record.configuration, {})[record.id] = record
        self._position.setdefault(record.configuration, record.position)

    def __bool__(self) -> bool:
        return bool(self.by_configuration)

    def configurations(self) -> list[str]:
        return sorted(self.by_configuration, key=lambda c: (self._position[c], c))

    def records(self, configuration: str) -> list[QueryRecord]:
        """One configuration's records, sorted by query id."""
        found = self.by_configuration.get(configuration, {})
        return [found[qid] for qid in sorted(found)]

    def summaries(self, metrics: Sequence[str]) -> dict[str, ConfigurationSummary]:
        return {c: summarize(self.records(c), metrics) for c in self.configurations()}
