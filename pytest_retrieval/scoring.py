"""Score one query's results: metrics, repeats and merged keys, ``expect``/``forbid``, outcome.

Pure. :func:`score_query` turns what a retriever returned into a
:class:`~pytest_retrieval.model.QueryRecord`; :func:`errored` and :func:`skipped`
make the records of items that produced no ranking. The record's outcome is
decided here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .golden import GoldenQuery, Problem
from .io.common import counted
from .judged_typos import near_misses
from .metrics import CustomMetricError, Metric, evaluate, never_scored, parse_metrics
from .model import Outcome, QueryRecord
from .quoting import query_text, result_ids
from .settings import Settings
from .shapes import KeyedResult, ResultKey, other_form, rank_results


@dataclass(frozen=True)
class Expectation:
    """How an item's ``xfail:`` is read: off (no xfail, or ``--runxfail``), on, or strict."""

    xfail: bool = False
    strict: bool = False


def outcome_of(violations: Sequence[str], error: str | None, expect: Expectation) -> Outcome:
    """The outcome of an item that ran: an error beats everything; ``xfail`` expects
    violations (none under ``xfail_strict`` fails, as pytest's XPASS(strict) does)."""
    if error is not None:
        return "error"
    if expect.xfail:
        if violations:
            return "xfailed"
        return "failed" if expect.strict else "xpassed"
    return "failed" if violations else "passed"


def base_record(query: GoldenQuery, configuration: str, position: int = 0) -> QueryRecord:
    return QueryRecord(
        id=query.id,
        configuration=configuration,
        position=position,
        path=query.path,
        category=query.category,
        tags=list(query.tags),
        fingerprint=query.fingerprint,
        judged=bool(query.relevant),
    )


def errored(
    query: GoldenQuery, configuration: str, settings: Settings, message: str, position: int = 0
) -> QueryRecord:
    """An item whose retriever failed: 0.0 on every metric (an error never raises a score)."""
    record = base_record(query, configuration, position)
    record.outcome = "error"
    record.error = message
    record.metrics = dict.fromkeys(settings.metric_names, 0.0)
    return record


def skipped(
    query: GoldenQuery, configuration: str, settings: Settings, reason: str, position: int = 0
) -> QueryRecord:
    """An item that did not run: no value on any metric, and the reason."""
    record = base_record(query, configuration, position)
    record.outcome = "skipped"
    record.metrics = dict.fromkeys(settings.metric_names)
    record.skip_reason = reason or None
    return record


def _expect_metrics(query: GoldenQuery, settings: Settings) -> tuple[Metric, ...]:
    if not query.expect:
        return ()
    shown = set(settings.metric_names)
    return tuple(m for m in parse_metrics(list(query.expect)) if m.name not in shown)


def score_query(
    query: GoldenQuery,
    configuration: str,
    returned: object,
    settings: Settings,
    position: int = 0,
    expect: Expectation = Expectation(),
    key: ResultKey | None = None,
    kept: list[KeyedResult] | None = None,
) -> tuple[QueryRecord, list[str]]:
    """Score what the retriever returned: the record and the whole de-duplicated ranking.

    ``key`` maps a result to the key judgments use (None: its id); results mapping
    to a key already ranked count once, at the first rank (``record.merged``); ``kept``
    gets each result with its key, for a recording. A custom metric that fails makes
    the record an error naming the metric. Raises
    :class:`~pytest_retrieval.shapes.ResultShapeError` for a non-ranking.
    """
    ranked = rank_results(returned, key, kept)
    ranking = ranked.ranking
    mismatch = other_form(ranking, query.relevant, query.forbid)
    if mismatch is not None:
        raise mismatch
    record = base_record(query, configuration, position)
    record.duplicates, record.merged = ranked.duplicates, ranked.merged
    depth = settings.depth
    record.retrieved = ranking if depth is None else ranking[:depth]
    relevant = query.relevant
    record.grades = {d: relevant[d] for d in sorted(relevant.keys() & record.retrieved)}
    if relevant and record.retrieved and max(record.grades.values(), default=0) <= 0:
        record.near_misses = near_misses(relevant, record.retrieved)  # a typo? (rare path)
    extra = _expect_metrics(query, settings)
    metrics = settings.metrics + extra if extra else settings.metrics
    try:
        values = evaluate(ranking, relevant, metrics, settings.conventions)
    except CustomMetricError as exc:  # the item's message names the query and configuration
        return errored(query, configuration, settings, str(exc), position), ranking
    names = settings.metric_names
    record.metrics = values if not extra else {name: values[name] for name in names}
    record.violations = check_expectations(query, ranking, values, ranked.own)
    record.outcome = outcome_of(record.violations, None, expect)
    return record, ranking


def unchecked_expectations(queries: Sequence[GoldenQuery], settings: Settings) -> list[Problem]:
    """Advice on each query whose ``expect`` names a metric that is n/a on every ranking
    (``retrieval_empty = skip`` and no document judged relevant): it is never checked,
    so without this the item would pass whatever came back."""
    advice = []
    for query in queries:
        if not query.expect or settings.conventions.empty != "skip":
            continue
        never = never_scored(
            parse_metrics(list(query.expect)), query.relevant, settings.conventions
        )
        if never:
            advice.append(
                Problem(
                    query.path,
                    query.line,
                    f"'expect' ({', '.join(never)}) is never checked: the query judges no "
                    "document relevant, and retrieval_empty = skip leaves its metrics out "
                    "(n/a); remove it ('forbid' is still checked), or judge a relevant document",
                    query.id,
                )
            )
    return advice


def check_expectations(
    query: GoldenQuery,
    ranking: Sequence[str],
    values: dict[str, float | None],
    own: Mapping[str, int] | None = None,
) -> list[str]:
    """Every ``expect`` minimum missed and every ``forbid`` id that came back: as a
    judgment key, or (``own``, with the result-key hook) as a result's own id."""
    problems: list[str] = []
    for name, minimum in query.expect.items():
        value = values.get(name)
        if value is None:
            continue  # empty = skip: nothing to hold the query to
        if value < minimum - 1e-12:
            problems.append(f"expected {name} >= {minimum:g}, got {value:.4g}")
    if not query.forbid:
        return problems
    positions = {doc: rank for rank, doc in enumerate(ranking, start=1)}
    for doc in query.forbid:
        if doc in positions:
            problems.append(f"forbidden '{doc}' came back at rank {positions[doc]}")
        elif own and doc in own:  # a chunk named by its own id, judged as its document
            rank = own[doc]
            problems.append(
                f"forbidden '{doc}' came back at rank {rank} (judged as '{ranking[rank - 1]}')"
            )
    return problems


def detail_text(query: GoldenQuery, record: QueryRecord, ranking: Sequence[str]) -> str:
    """One query as ``--retrieval-show`` prints it: outcome, metrics, the ranking, grades."""
    metrics = ", ".join(
        f"{name} {'n/a' if value is None else f'{value:.3f}'}"
        for name, value in record.metrics.items()
    )
    head = f"{record.outcome}: {metrics}"
    if record.error:
        title = f"query '{query.id}' [{record.configuration}]: {query_text(query.text)}"
        return f"{title}\n  {head}\n  {record.error}"
    body = failure_text(query, record, ranking).split("\n", 1)
    return "\n".join([body[0], f"  {head}", *body[1:]])


def why(record: QueryRecord) -> str:
    """Why an item did not pass, in one line: its error, its misses, or its skip reason."""
    if record.error:
        return record.error
    if record.violations:
        return "; ".join(record.violations)
    return record.skip_reason or ""


def _relevant_below(query: GoldenQuery, ranking: Sequence[str], depth: int) -> list[str]:
    """The judged-relevant ids not in the ranking shown: those ranked further down, with
    their ranks, then those that never came back."""
    top = set(ranking[:depth])
    missing = sorted(
        ((d, g) for d, g in query.relevant.items() if g > 0 and d not in top),
        key=lambda dg: (-dg[1], dg[0]),
    )
    if not missing:
        return []
    shown_ids = result_ids(d for d, _ in missing)  # cut as the ranking's ids are
    ranks = {d: r for r, d in enumerate(ranking, start=1) if d in query.relevant}
    lower = sorted((ranks[d], d, g) for d, g in missing if d in ranks)
    lines = []
    if lower:
        ranked = ", ".join(f"{shown_ids[d]} ({g}) at rank {r}" for r, d, g in lower)
        lines.append(f"judged relevant, ranked lower: {ranked}")
    never = [(d, g) for d, g in missing if d not in ranks]
    if never:
        lines.append(
            "judged relevant, not retrieved: "
            + ", ".join(f"{shown_ids[d]} ({g})" for d, g in never)
        )
    return lines


def failure_text(
    query: GoldenQuery, record: QueryRecord, ranking: Sequence[str], shown: int = 10
) -> str:
    """The failure message of a query: what was expected, the ranking with grades beside it."""
    lines = [f"{query.named(record.configuration)}: {query_text(query.text)}"]
    lines += [f"  {problem}" for problem in record.violations]
    forbid = set(query.forbid)
    depth = max(shown, max((ranking.index(d) + 1 for d in forbid if d in ranking), default=0))
    lines.append("ranked results (grade; - = unjudged):")
    if not ranking:
        lines.append("  (nothing came back)")
    ids = result_ids(ranking[:depth])
    width = max((len(d) for d in ids.values()), default=0)
    for rank, doc in enumerate(ranking[:depth], start=1):
        grade = query.relevant.get(doc)
        mark = "  FORBIDDEN" if doc in forbid else ""
        judged = "-" if grade is None else grade
        lines.append(f"  {rank:>3}. {ids[doc]:<{width}}  {judged}{mark}")
    if len(ranking) > depth:
        lines.append(f"  ... {len(ranking) - depth} more")
    lines += _relevant_below(query, ranking, depth)
    if record.duplicates:
        came = "came back and was" if record.duplicates == 1 else "came back and were"
        lines.append(f"{counted(record.duplicates, 'duplicate id')} {came} counted once")
    if record.merged:
        lines.append(
            f"{counted(record.merged, 'result')} shared a judgment key with a result ranked "
            f"above (pytest_retrieval_result_key) and {'was' if record.merged == 1 else 'were'} "
            "counted once, at the first rank"
        )
    return "\n".join(lines)
