"""Score one query's results: metrics, duplicates, ``expect`` and ``forbid``.

Pure. :func:`score_query` turns what a retriever returned into a
:class:`QueryRecord`, a plain record that travels from xdist workers to the
controller as a dict (:meth:`QueryRecord.to_plain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .golden import GoldenQuery
from .metrics import Metric, evaluate, parse_metrics
from .settings import Settings
from .shapes import dedupe, ranked_ids

OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


@dataclass
class QueryRecord:
    """What one (query, configuration) item produced."""

    id: str
    configuration: str
    category: str
    tags: list[str]
    position: int = 0  # the configuration's index among the fixture's params
    path: str = ""  # the golden file, as shown in messages
    outcome: str = "passed"
    metrics: dict[str, float | None] = field(default_factory=dict)
    retrieved: list[str] = field(default_factory=list)
    grades: dict[str, int] = field(default_factory=dict)  # judged ids among ``retrieved``
    duplicates: int = 0
    error: str | None = None
    violations: list[str] = field(default_factory=list)  # expect/forbid misses; a skip's reason
    fingerprint: str = ""

    def to_plain(self) -> dict[str, Any]:
        """A plain dict (what xdist can carry); shallow copies of the containers."""
        data = dict(self.__dict__)
        for key, value in data.items():
            if isinstance(value, (list, dict)):
                data[key] = value.copy()
        return data

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> QueryRecord:
        return cls(**data)

    @property
    def evaluated(self) -> bool:
        """Counted in ``n``: every outcome but skipped."""
        return self.outcome != "skipped"


def base_record(query: GoldenQuery, configuration: str, position: int = 0) -> QueryRecord:
    return QueryRecord(
        id=query.id,
        configuration=configuration,
        position=position,
        path=query.path,
        category=query.category,
        tags=list(query.tags),
        fingerprint=query.fingerprint,
    )


def errored(
    query: GoldenQuery, configuration: str, settings: Settings, message: str, position: int = 0
) -> QueryRecord:
    """An item whose retriever failed: 0.0 on every metric (an error never raises a score)."""
    record = base_record(query, configuration, position)
    record.outcome = "error"
    record.error = message
    record.metrics = {name: 0.0 for name in settings.metric_names}
    return record


def skipped(
    query: GoldenQuery, configuration: str, settings: Settings, reason: str, position: int = 0
) -> QueryRecord:
    record = base_record(query, configuration, position)
    record.outcome = "skipped"
    record.error = None
    record.metrics = {name: None for name in settings.metric_names}
    record.violations = [reason] if reason else []
    return record


def _expect_metrics(query: GoldenQuery, settings: Settings) -> tuple[Metric, ...]:
    shown = set(settings.metric_names)
    return tuple(m for m in parse_metrics(list(query.expect)) if m.name not in shown)


def score_query(
    query: GoldenQuery,
    configuration: str,
    returned: Any,
    settings: Settings,
    position: int = 0,
) -> tuple[QueryRecord, list[str]]:
    """Score what the retriever returned: the record and the whole de-duplicated ranking.

    Raises :class:`~pytest_retrieval.shapes.ResultShapeError` for a non-ranking.
    """
    ids = ranked_ids(returned)
    ranking, duplicates = dedupe(ids)
    record = base_record(query, configuration, position)
    record.duplicates = duplicates
    depth = settings.depth
    record.retrieved = ranking if depth is None else ranking[:depth]
    record.grades = {d: query.relevant[d] for d in record.retrieved if d in query.relevant}
    extra = _expect_metrics(query, settings)
    values = evaluate(ranking, query.relevant, settings.metrics + extra, settings.conventions)
    record.metrics = {m.name: values[m.name] for m in settings.metrics}
    record.violations = check_expectations(query, ranking, values)
    if record.violations:
        record.outcome = "failed"
    return record, ranking


def check_expectations(
    query: GoldenQuery, ranking: Sequence[str], values: dict[str, float | None]
) -> list[str]:
    """Every ``expect`` minimum missed and every ``forbid`` id that came back."""
    problems: list[str] = []
    for name, minimum in query.expect.items():
        value = values.get(name)
        if value is None:
            continue  # empty = skip: nothing to hold the query to
        if value < minimum - 1e-12:
            problems.append(f"expected {name} >= {minimum:g}, got {value:.4g}")
    positions = {doc: rank for rank, doc in enumerate(ranking, start=1)}
    for doc in query.forbid:
        if doc in positions:
            problems.append(f"forbidden '{doc}' came back at rank {positions[doc]}")
    return problems


def explain(
    query: GoldenQuery, record: QueryRecord, ranking: Sequence[str], shown: int = 10
) -> str:
    """The failure message of a query: what was expected, the ranking with grades beside it."""
    lines = [f"query '{query.id}' [{record.configuration}]: {query.text!r}"]
    lines += [f"  {problem}" for problem in record.violations]
    forbid = set(query.forbid)
    depth = max(shown, max((ranking.index(d) + 1 for d in forbid if d in ranking), default=0))
    lines.append("ranked results (grade; - = unjudged):")
    if not ranking:
        lines.append("  (nothing came back)")
    width = max((len(d) for d in ranking[:depth]), default=0)
    for rank, doc in enumerate(ranking[:depth], start=1):
        grade = query.relevant.get(doc)
        mark = "  FORBIDDEN" if doc in forbid else ""
        lines.append(f"  {rank:>3}. {doc:<{width}}  {'-' if grade is None else grade}{mark}")
    if len(ranking) > depth:
        lines.append(f"  ... {len(ranking) - depth} more")
    top = set(ranking[:depth])
    missing = sorted(
        ((d, g) for d, g in query.relevant.items() if g > 0 and d not in top),
        key=lambda dg: (-dg[1], dg[0]),
    )
    if missing:
        lines.append(
            "judged relevant, not shown above: " + ", ".join(f"{d} ({g})" for d, g in missing)
        )
    if record.duplicates:
        lines.append(f"{record.duplicates} duplicate id(s) came back and were counted once")
    return "\n".join(lines)
