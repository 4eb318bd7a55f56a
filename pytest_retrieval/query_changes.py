"""How each query changed since the baseline: counts per configuration, judged rank moves.

Pure. The gate pairs this run's queries with the baseline's (same text and judgments);
:func:`count_changes` sorts each pair into improved, degraded or unchanged over the
gated metrics, and :func:`judged_moves` says where each judged result went.

A query is **degraded** when it dropped on at least one gated metric, **improved** when
it rose on at least one and dropped on none, and **unchanged** otherwise (equal within
1e-9 on every gated metric it has a value for on both sides).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import MetricColumns, QueryRecord

EPSILON = 1e-9


@dataclass(frozen=True)
class QueryCounts:
    """Queries of one configuration, compared with the baseline."""

    improved: int = 0
    degraded: int = 0
    unchanged: int = 0
    # the degraded queries' ids (not in as_dict: the JSON and JUnit carry the counts)
    degraded_ids: tuple[str, ...] = field(default=(), compare=False)

    @property
    def compared(self) -> int:
        return self.improved + self.degraded + self.unchanged

    def as_dict(self) -> dict[str, int]:
        return {"improved": self.improved, "degraded": self.degraded, "unchanged": self.unchanged}

    def text(self) -> str:
        return (
            f"{self.improved:,} {'query' if self.improved == 1 else 'queries'} improved, "
            f"{self.degraded:,} degraded, "
            f"{self.unchanged:,} unchanged"
        )


def count_changes(before: MetricColumns, after: MetricColumns) -> QueryCounts:
    """Improved, degraded and unchanged among one configuration's (baseline, this run)
    pairs, given as aligned columns of the gated metrics."""
    dropped = [False] * len(before.ids)
    rose = [False] * len(before.ids)
    for metric, olds in before.values.items():
        pairs = enumerate(zip(olds, after.values[metric], strict=True))
        for i, (old, new) in pairs:
            if old is None or new is None:
                continue
            if new < old - EPSILON:
                dropped[i] = True
            elif new > old + EPSILON:
                rose[i] = True
    degraded = sum(dropped)
    improved = sum(r and not d for r, d in zip(rose, dropped, strict=True))
    ids = tuple(qid for qid, d in zip(before.ids, dropped, strict=True) if d)
    return QueryCounts(improved, degraded, len(dropped) - degraded - improved, ids)


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
