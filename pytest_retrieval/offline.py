"""Rankings recorded elsewhere (a TREC run, a JSON report) scored as the plugin scores them.

Pure. :func:`score_runs` gives each golden query of each configuration the record
an item of the plugin would produce from the same ranking: the same metrics,
conventions, ``expect``/``forbid``, skip and xfail. A query a run does not hold is
a query for which the retriever returned nothing (as trec_eval's ``-c``); a query
the recording marks as errored stays errored (0.0 on every metric).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .golden import GoldenQuery
from .model import Results
from .scoring import Expectation, errored, score_query, skipped
from .settings import Settings
from .shapes import ResultShapeError


@dataclass(frozen=True)
class Recorded:
    """One configuration's rankings (query id -> ids, best first) and its errored queries."""

    name: str
    rankings: Mapping[str, Sequence[str]]
    errors: Mapping[str, str] = field(default_factory=dict)  # query id -> error message
    source: str = ""  # the file it came from
    # a TREC run's queries listed in another order than their scores give: ranked by score
    reordered: Sequence[str] = ()


@dataclass(frozen=True)
class Scored:
    """A scored recording: the run's results and, per configuration, what it lacked."""

    results: Results
    missing: dict[str, list[str]]  # configuration -> golden queries the recording lacks
    unknown: dict[str, list[str]]  # configuration -> recorded queries not in the golden set


def score_runs(
    queries: Sequence[GoldenQuery],
    runs: Sequence[Recorded],
    settings: Settings,
    max_results: int | None = None,
) -> Scored:
    """Every golden query scored on every recorded configuration, in the order given.

    ``max_results`` keeps only the first N results of each ranking (trec_eval's ``-M``).
    """
    results = Results()
    missing: dict[str, list[str]] = {}
    unknown: dict[str, list[str]] = {}
    golden_ids = {q.id for q in queries}
    for position, run in enumerate(runs):
        missing[run.name] = []
        unknown[run.name] = sorted(q for q in run.rankings if q not in golden_ids)
        for query in queries:
            if query.skip is not None:
                reason = f"Skipped: {query.skip}"  # as pytest words a skip mark's reason
                results.add(skipped(query, run.name, settings, reason, position))
                continue
            if query.id in run.errors:
                results.add(errored(query, run.name, settings, run.errors[query.id], position))
                continue
            if query.id not in run.rankings:
                missing[run.name].append(query.id)
            ranking = list(run.rankings.get(query.id, ()))[:max_results]
            expect = Expectation(xfail=query.xfail_for(run.name) is not None)
            try:
                record, _ = score_query(query, run.name, ranking, settings, position, expect)
            except ResultShapeError as exc:  # an id judged in another Unicode form
                record = errored(query, run.name, settings, str(exc), position)
            results.add(record)
    return Scored(results, missing, unknown)
