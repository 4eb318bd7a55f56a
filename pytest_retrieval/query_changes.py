"""How each query changed since the baseline: counts per configuration, judged rank moves.

Pure. The gate pairs this run's queries with the baseline's (same text and judgments);
:func:`count_changes` sorts each pair into improved, degraded or unchanged over the
gated metrics, and :func:`judged_moves` says where each judged result went.

A query is **degraded** when it dropped on at least one gated metric, **improved** when
it rose on at least one and dropped on none, and **unchanged** otherwise (equal within
1e-9 on every gated metric it has a value for on both sides).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import QueryRecord

EPSILON = 1e-9


@dataclass(frozen=True)
class QueryCounts:
    """Queries of one configuration, compared with the baseline."""

    improved: int = 0
    degraded: int = 0
    unchanged: int = 0

    @property
    def compared(self) -> int:
        return self.improved + self.degraded + self.unchanged

    def as_dict(self) -> dict[str, int]:
        return {"improved": self.improved, "degraded": self.degraded, "unchanged": self.unchanged}

    def text(self) -> str:
        return (
            f"{self.improved} {'query' if self.improved == 1 else 'queries'} improved, "
            f"{self.degraded} degraded, "
            f"{self.unchanged} unchanged"
        )


def change_of(old: QueryRecord, new: QueryRecord, metrics: Sequence[str]) -> int:
    """-1 degraded, +1 improved, 0 unchanged (see the module docstring)."""
    rose = False
    for metric in metrics:
        before, after = old.metrics.get(metric), new.metrics.get(metric)
        if before is None or after is None:
            continue
        if after < before - EPSILON:
            return -1
        rose = rose or after > before + EPSILON
    return 1 if rose else 0


def count_changes(
    pairs: Sequence[tuple[QueryRecord, QueryRecord]], metrics: Sequence[str]
) -> QueryCounts:
    """Improved, degraded and unchanged among (baseline, this run) pairs of one configuration."""
    changes = [change_of(old, new, metrics) for old, new in pairs]
    return QueryCounts(changes.count(1), changes.count(-1), changes.count(0))


@dataclass(frozen=True)
class JudgedMove:
    """Where a judged result went between the baseline and this run (ranks from 1).

    ``before`` None: it entered the kept results; ``after`` None: it left them.
    """

    id: str
    before: int | None
    after: int | None
    grade: int


def judged_moves(old: QueryRecord, new: QueryRecord) -> list[JudgedMove]:
    """The judged results whose rank changed, entered or left, best grade first."""
    before = {d: r for r, d in enumerate(old.retrieved, start=1)}
    after = {d: r for r, d in enumerate(new.retrieved, start=1)}
    judged = {**old.grades, **new.grades}
    moves = [
        JudgedMove(d, before.get(d), after.get(d), grade)
        for d, grade in judged.items()
        if (d in before or d in after) and before.get(d) != after.get(d)
    ]
    moves.sort(key=lambda m: (-m.grade, m.before or m.after or 0, m.id))
    return moves
