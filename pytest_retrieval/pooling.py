"""Pooling: the unjudged results of several configurations, gathered for grading. Pure.

A pool of depth N holds, per golden query, every document in some configuration's
top N that the golden set does not judge yet, with where it came from
(configuration and rank); queries with no judgment at all are pooled too. A
person (or a model) grades the pool; merging folds the grades back.

Coverage is the same measure as ``judged@k``: the share of a query's top
min(k, returned) that carries a judgment. A query that returned nothing has
judged@k 0.0 in the tables (as ir_measures gives a query absent from the run), but
it has nothing to judge either, so the coverage note leaves it out and counts it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from .golden import GoldenQuery
from .metrics import judged
from .stats import mean

Rankings = Mapping[str, Sequence[str]]  # query id -> ranked ids


@dataclass(frozen=True)
class Coverage:
    """How much of one configuration's top k the judgments cover."""

    configuration: str
    k: int
    queries: int  # queries with judgments that returned something (no-result ones: none)
    empty: int  # judged queries that returned nothing: nothing to judge, left out
    judged: float | None  # mean judged@k over the queries that returned something
    unjudged: int  # unjudged results in those top k
    errored: int = 0  # judged queries whose retriever raised (a report's): left out too

    def note(self) -> str | None:
        """The pooling warning, when some of the top k is unjudged."""
        if self.judged is None or self.unjudged == 0:
            return None
        left = [f"{self.empty:,} returned nothing"] if self.empty else []
        left += [f"{self.errored:,} errored"] if self.errored else []
        empty = f" ({', '.join(left)}: left out)" if left else ""
        one = self.unjudged == 1
        return (
            f"'{self.configuration}': judged@{self.k} is {self.judged:.3f} on the "
            f"{self.queries:,} judged {'query' if self.queries == 1 else 'queries'} that "
            f"returned something{empty}; its {self.unjudged:,} unjudged "
            f"{'result counts' if one else 'results count'} as not relevant, so its scores "
            f"are lower bounds until {'it is' if one else 'they are'} graded "
            f"(pytest-retrieval pool lists {'it' if one else 'them'})"
        )


def coverage(
    configuration: str,
    rankings: Rankings,
    judgments: Mapping[str, Mapping[str, int]],
    k: int,
    errors: Collection[str] = (),
) -> Coverage:
    """judged@k of each judged query's ranking (absent: returned nothing, or in
    ``errors``: its retriever raised), summarised."""
    values: list[float] = []
    empty = errored = 0
    unjudged = 0
    for qid, grades in judgments.items():
        ranking = list(rankings.get(qid, ()))
        if not ranking:
            if qid in errors:
                errored += 1
            else:
                empty += 1
            continue
        values.append(judged(ranking, grades, k))
        unjudged += sum(1 for doc in ranking[:k] if doc not in grades)
    return Coverage(configuration, k, len(values), empty, mean(values), unjudged, errored)


# --------------------------------------------------------------------------- the pool


@dataclass
class PoolDoc:
    """One document to grade: where it came from (configuration -> rank) and its grade."""

    id: str
    found: dict[str, int]
    grade: int | None = None
    line: int = 0

    @property
    def best_rank(self) -> int:
        return min(self.found.values()) if self.found else 0


@dataclass
class PoolQuery:
    """One query's documents to grade."""

    id: str
    text: str
    category: str
    path: str
    judged: int  # judgments the golden set already has
    documents: list[PoolDoc] = field(default_factory=list)
    line: int = 0


@dataclass
class Worklist:
    """A pool to grade: its depth, the grade range, every query with something to grade."""

    depth: int
    max_grade: int
    queries: list[PoolQuery] = field(default_factory=list)
    path: str = ""

    def judgments(self, graded_only: bool = True) -> dict[str, dict[str, int]]:
        """query id -> {doc id -> grade} of the graded documents."""
        out: dict[str, dict[str, int]] = {}
        for query in self.queries:
            grades = {d.id: d.grade for d in query.documents if d.grade is not None}
            if grades or not graded_only:
                out[query.id] = {doc: int(g) for doc, g in grades.items()}
        return out


def build_pool(
    queries: Sequence[GoldenQuery],
    runs: Mapping[str, Rankings],
    depth: int,
    max_grade: int,
) -> Worklist:
    """Per golden query (in golden order), the union of every run's unjudged top ``depth``.

    Documents are ordered by their best rank, then by how many runs found them, then id.
    """
    worklist = Worklist(depth, max_grade)
    for query in queries:
        found: dict[str, dict[str, int]] = {}
        for configuration, rankings in runs.items():
            for rank, doc in enumerate(list(rankings.get(query.id, ()))[:depth], start=1):
                if doc not in query.relevant:
                    found.setdefault(doc, {}).setdefault(configuration, rank)
        if not found:
            continue
        # each document's sources best rank first (ties in the runs' order)
        docs = [PoolDoc(d, dict(sorted(s.items(), key=lambda i: i[1]))) for d, s in found.items()]
        docs.sort(key=lambda d: (d.best_rank, -len(d.found), d.id))
        worklist.queries.append(
            PoolQuery(query.id, query.text, query.category, query.path, len(query.relevant), docs)
        )
    return worklist
