"""The body of every golden item: get the answers, score, keep the records, pass or fail.

A per-query item scores one query; a coarse item (a category or a shard) scores all
of its queries and fails listing every miss and error. Also the records of items
that never reached scoring (skipped, or stopped in setup or by another plugin),
made when pytest reports them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import fnmatch
import inspect
import threading
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pytest

from ..golden import GoldenQuery
from ..io.common import counted
from ..io.recording import Recorded, RecordedResult, error_line, recorded_results
from ..metric_registry import exception_text, raised_text
from ..model import QueryRecord
from ..replay import replayed_key
from ..retrievers import ProtocolError
from ..runner import RECORDED_PREFIX, Answer, Repeats
from ..scoring import Expectation, detail_text, errored, failure_text, score_query, skipped
from ..settings import RunSettings, Settings
from ..shapes import (
    HOOK_HINT,
    KeyedResult,
    ResultKey,
    ResultShapeError,
    rank_results,
    ranked_results,
)
from .failure import ExpectationFailed, RetrieverError
from .fetch import FETCHER_KEY, Fetcher, asked
from .gathered import note_retriever
from .keys import LAST_RAN_KEY, RECORDED_KEY, RECORDS_KEY, SETTINGS_KEY, SETUP_ERRORS_KEY
from .nodes import item_configuration
from .progress import Progress
from .result_keys import result_key
from .terminal import fitted_text


def expectation(query: GoldenQuery, configuration: str, config: pytest.Config) -> Expectation:
    """How this query's ``xfail:`` counts for ``configuration`` in this run
    (``--runxfail``, ``xfail_strict``)."""
    if query.xfail_for(configuration) is None or config.getoption("runxfail", False):
        return Expectation()
    return Expectation(xfail=True, strict=bool(config.getini("xfail_strict")))


PACKAGE = str(Path(__file__).resolve().parents[1])


# what runs the user's code for the plugin: its frames come before the user's
MACHINERY = (
    PACKAGE,
    str(Path(asyncio.__file__).parent),
    str(Path(concurrent.futures.__file__).parent),
    threading.__file__,
)


def _users_frames(exc: BaseException) -> TracebackType | None:
    """The traceback from the first frame of the user's code (past the package and the
    event loop or thread that ran it), when the exception was raised there (the
    retriever, a result object's ``.id``, its ``__iter__``); else None."""
    tb = exc.__traceback__
    last = tb
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None or last.tb_frame.f_code.co_filename.startswith(PACKAGE):
        return None
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(MACHINERY):
        tb = tb.tb_next
    return tb


def _shown_frames(exc: BaseException) -> TracebackType | None:
    """The frames to show under the user's exception: the user's own; none when Python
    turned the user's ``StopIteration`` into a ``RuntimeError`` at the plugin's frame
    (PEP 479: an ``async def`` or a generator let it out), as its cause shows where;
    else all of them (the plugin's own bug stays visible)."""
    users = _users_frames(exc)
    cause = exc.__cause__
    stopped = isinstance(cause, (StopIteration, StopAsyncIteration))
    if stopped and users is None and isinstance(exc, RuntimeError):
        return None if cause is not None and _users_frames(cause) else exc.__traceback__
    return users or exc.__traceback__


def _hide_for_users_errors(excinfo: pytest.ExceptionInfo[BaseException]) -> bool:
    """Hide the plugin's frames under the user's exception; keep one for our own failures
    (shown as their message alone), or pytest says every entry was hidden."""
    return not isinstance(excinfo.value, (ExpectationFailed, RetrieverError))


# what a retriever may not decide for its query: pytest.xfail() before pytest.skip()
# (XFailed is a Failed; pytest.fail() from a retriever fails its item, as it should)
_OUTCOMES = (
    (pytest.xfail.Exception, "pytest.xfail", "mark its query expected to fail", "xfail"),
    (pytest.skip.Exception, "pytest.skip", "skip its query", "skip"),
)


def _no_outcome_from_the_retriever(answer: Answer) -> Answer:
    """A retriever that called ``pytest.skip()`` or ``pytest.xfail()`` (``importorskip``
    too) left its query unanswered: an error scoring 0 that says so, as any other raise,
    where pytest would have reported the item skipped or xfailed and the run passed."""
    for kind, call, what, key in _OUTCOMES:
        if isinstance(answer.exception, kind):
            reason = str(getattr(answer.exception, "msg", "") or "")
            who = "the batch call" if answer.shared else "the retriever"
            answer.error = (
                f"{who} called {call}({reason!r}): a retriever cannot {what}; mark the "
                f"query `{key}:` in the golden file, or return its results"
            )
            answer.exception = None
            break
    return answer


# --------------------------------------------------------------------------- scoring an answer


class _Scorer:
    """Turns one item's answers into records, for its configuration."""

    def __init__(self, item: pytest.Item, run: RunSettings, coarse: bool = False):
        self.item = item
        self.coarse = coarse
        self.run = run
        self.configuration, self.position = item_configuration(item)
        item.config.stash[LAST_RAN_KEY] = self.configuration  # its fixture was set up
        self.show = run.run.show
        self.records: list[QueryRecord] = []
        self.recorded: list[str] | None = [] if run.run.calls.record else None
        self.refused: str | None = None  # the last result-shape refusal's message

    def error(self, query: GoldenQuery, message: str, answer: Answer | None = None) -> QueryRecord:
        record = errored(query, self.configuration, self.run.settings, message, self.position)
        self.keep(query, record, [], answer)
        return record

    def score(self, query: GoldenQuery, answer: Answer) -> tuple[QueryRecord, list[str]]:
        """The record of one answer; a result object whose ``.id`` raises propagates."""
        if answer.error is not None:
            return self.error(query, answer.error, answer), []
        expect = expectation(query, self.configuration, self.item.config)
        key = self._key(query)
        kept: list[KeyedResult] | None = [] if key and self.recorded is not None else None
        try:
            record, ranking = score_query(
                query, self.configuration, answer.returned, self.run.settings, self.position,
                expect, key, kept,
            )  # fmt: skip
        except ResultShapeError as exc:
            self.refused = str(exc)
            return self.error(query, str(exc), answer), []
        self.keep(query, record, ranking, answer, kept)
        return record, ranking

    def _key(self, query: GoldenQuery) -> ResultKey | None:
        """The result-key hook for this query; in a replay of a recording holding the
        keys the hook gave, a function that gives those (the hook is not asked again)."""
        key = result_key(self.item.config, query)
        fetcher = self.item.config.stash.get(FETCHER_KEY, None)
        if fetcher is not None and fetcher.replay is not None and fetcher.replay.keyed:
            return replayed_key(key)
        return key

    def keep(
        self,
        query: GoldenQuery,
        record: QueryRecord,
        ranking: list[str],
        answer: Answer | None,
        kept: list[KeyedResult] | None = None,
    ) -> None:
        if answer is not None and answer.latency is not None:
            record.latency_ms = round(answer.latency * 1000, 4)
            record.latency_shared = answer.shared
        if any(fnmatch.fnmatchcase(query.id, p) for p in self.show):
            record.detail = detail_text(query, record, ranking)
        self.records.append(record)
        if self.recorded is not None and answer is not None:
            self.recorded.append(_recorded(query, self.configuration, record, answer, kept))

    def forget_last(self) -> None:
        """Take back the last record kept (and its recording line)."""
        self.records.pop()
        if self.recorded:
            self.recorded.pop()

    def done(self) -> None:
        """Hand the records (and recording lines) to the report."""
        self.item.stash[RECORDS_KEY] = self.records
        self.item.user_properties.extend(_properties(self.records, self.coarse))
        if self.recorded is not None:
            self.item.stash[RECORDED_KEY] = self.recorded


def _properties(records: Sequence[QueryRecord], coarse: bool) -> list[tuple[str, object]]:
    """JUnit properties: a query item's metrics; a coarse item's query count and means."""
    if not coarse:
        return [(k, "n/a" if v is None else v) for k, v in records[0].metrics.items()]
    counted = [r for r in records if r.evaluated]
    out: list[tuple[str, object]] = [("queries", len(counted))]
    for name in records[0].metrics if records else ():
        values = [v for r in counted if (v := r.metrics.get(name)) is not None]
        out.append((name, round(sum(values) / len(values), 6) if values else "n/a"))
    return out


def _recorded(
    query: GoldenQuery,
    configuration: str,
    record: QueryRecord,
    answer: Answer,
    kept: list[KeyedResult] | None = None,
) -> str:
    """The recording line of one answer; ``kept``: its results with the keys the
    result-key hook gave (a result only the hook can read is recorded by its key)."""
    results: tuple[RecordedResult, ...] = ()
    if answer.error is None and record.error is None:
        if kept is not None:
            results = recorded_results(kept)
        elif answer.scores is None:
            ids, scores = ranked_results(answer.returned)
            results = tuple(zip(ids, scores, strict=True))
        else:  # plain ids, their scores beside them (a TREC run replayed)
            results = tuple(zip(answer.returned, answer.scores, strict=True))  # type: ignore[call-overload]
    error = answer.error or record.error
    if error is not None:  # a replay recorded again keeps the error as it was recorded
        error = error.removeprefix(RECORDED_PREFIX)
    entry = Recorded(
        configuration, query.id, query.text, results, dict(query.filters), record.latency_ms,
        record.latency_shared, error,
    )  # fmt: skip
    return entry.line()


def recorded_errors(queries: Sequence[GoldenQuery], records: Sequence[QueryRecord]) -> list[str]:
    """The recording lines of an item's queries stopped before scoring (its retriever
    fixture failed in setup): the errors they scored 0 with, for a replay to score alike."""
    pairs = zip(queries, records, strict=True)
    errors = [(q, r) for q, r in pairs if r.outcome == "error"]
    return [error_line(q, r.configuration, r.error or NOT_RUN) for q, r in errors]


def _raise_users(scorer: _Scorer, query: GoldenQuery, exc: BaseException, message: str) -> None:
    """Keep the error record, then raise the user's exception with the user's frames."""
    __tracebackhide__ = _hide_for_users_errors
    note = (
        f"(pytest-retrieval) {query.named(scorer.configuration)}: {message}; the query "
        "scores 0.0 on every metric"
    )
    if hasattr(exc, "add_note"):  # Python 3.11+: shown under the traceback
        exc.add_note(fitted_text(scorer.item.config, note, taken=12))
    else:
        scorer.item.add_report_section("call", "retrieval", note)
    scorer.done()
    raise exc.with_traceback(_shown_frames(exc))


@dataclass(frozen=True)
class RepeatFailure:
    """A repeated call (``retrieval_repeat``) that raised, timed out or returned no ranking."""

    call: int  # which call, from 2
    calls: int  # retrieval_repeat
    answer: Answer
    text: str  # what went wrong, as an error record says it

    @property
    def shown(self) -> str:
        """``call 2 of 3: the retriever raised ValueError: text`` (the JSON's repeat_error)."""
        return f"call {self.call} of {self.calls}: {self.text}"

    def message(self) -> str:
        """The query's error: which call failed, how, and the fix."""
        return (
            f"repeat call {self.call} of {self.calls} (retrieval_repeat = {self.calls}): "
            f"{self.text}; the first call answered, but a query whose retriever fails when "
            "called again has no reproducible numbers: fix the retriever's error, or set "
            "retrieval_repeat = 1 to skip the check"
        )


def _repeats(
    scorer: _Scorer,
    query: GoldenQuery,
    retriever: object,
    record: QueryRecord,
    first: list[str],
    fetched: Sequence[Answer] | None = None,
) -> RepeatFailure | None:
    """``retrieval_repeat``: call again (unless ``fetched`` holds the answers already),
    and note on ``record`` how far the rankings agree; the first repeat that
    raised, timed out or returned no ranking is returned instead (an error, not a
    ranking that did not reproduce)."""
    fetcher = scorer.item.config.stash[FETCHER_KEY]
    key = result_key(scorer.item.config, query)
    rankings = [first]
    calls = scorer.run.run.calls.repeat
    for index in range(calls - 1):
        answer = fetcher.again(query, retriever) if fetched is None else fetched[index]
        _no_outcome_from_the_retriever(answer)
        try:
            if answer.error is not None:
                return RepeatFailure(index + 2, calls, answer, answer.error)
            rankings.append(rank_results(answer.returned, key).ranking)
        except ResultShapeError as exc:
            return RepeatFailure(index + 2, calls, answer, str(exc))
        except Exception as exc:  # a result object whose .id raises
            answer.exception = exc
            return RepeatFailure(index + 2, calls, answer, raised_text(exc))
    found = Repeats.of(rankings, scorer.run.settings.depth)
    record.repeat_overlap, record.repeat_same = found.overlap, found.same
    return None


def _repeating(scorer: _Scorer) -> bool:
    """``retrieval_repeat`` above 1, and a retriever to call again: a replay holds one
    answer per query (and no retriever: the fixture is not built)."""
    fetcher = scorer.item.config.stash[FETCHER_KEY]
    return scorer.run.run.calls.repeat > 1 and fetcher.replay is None


def _repeat_failed(
    scorer: _Scorer, query: GoldenQuery, failure: RepeatFailure, answer: Answer
) -> QueryRecord:
    """The query's record (and recording line) replaced by an error naming the repeat:
    0.0 on every metric, as any error, with ``repeat_error`` set."""
    scorer.forget_last()
    record = scorer.error(query, failure.message(), answer)
    record.repeat_error = failure.shown
    return record


# --------------------------------------------------------------------------- the item bodies


def run_query(query: GoldenQuery, item: pytest.Item, retriever: object) -> None:
    """The body of every per-query item: answer, score, record, then pass or fail."""
    __tracebackhide__ = _hide_for_users_errors
    run = item.config.stash[SETTINGS_KEY]
    scorer = _Scorer(item, run)
    fetcher = item.config.stash[FETCHER_KEY]
    if fetcher.replay is None:
        note_retriever(item.config, scorer.configuration, retriever)  # once per configuration
    shown: str | None = None  # the item's failure, where not the record's error
    try:
        answer = fetcher.answer(item, query, scorer.configuration, retriever)
    except ProtocolError as exc:
        answer = Answer(error=str(exc))
        shown = _protocol_error(item, scorer.configuration, str(exc))
    _no_outcome_from_the_retriever(answer)
    if answer.exception is not None and answer.origin in ("", query.id):
        scorer.error(query, answer.error or "", answer)
        _raise_users(scorer, query, answer.exception, answer.error or "")
    try:
        record, ranking = scorer.score(query, answer)
    except Exception as exc:
        if _users_frames(exc) is None:
            raise  # the plugin's own bug: its frames stay visible
        scorer.error(query, raised_text(exc), answer)
        _raise_users(scorer, query, exc, raised_text(exc))
        raise  # pragma: no cover - _raise_users raised
    if _repeating(scorer) and record.error is None:
        failure = _repeats(scorer, query, retriever, record, ranking)
        if failure is not None:
            record = _repeat_failed(scorer, query, failure, answer)
            if failure.answer.exception is not None and failure.answer.origin in ("", query.id):
                _raise_users(scorer, query, failure.answer.exception, record.error or "")
    scorer.done()
    _verdict(scorer, query, record, ranking, answer, shown)


def _verdict(
    scorer: _Scorer,
    query: GoldenQuery,
    record: QueryRecord,
    ranking: list[str],
    answer: Answer,
    shown: str | None = None,
) -> None:
    __tracebackhide__ = _hide_for_users_errors
    configuration = scorer.configuration
    if record.error is not None:
        where = ""
        if answer.origin and answer.origin != query.id and answer.exception is not None:
            where = f" (its traceback is under query '{answer.origin}' [{configuration}])"
        error = shown if shown is not None and record.error == answer.error else record.error
        if error == scorer.refused:
            error = _refusal_once(scorer.item, configuration, query.id, error)
        error = _hint_once(scorer.item, configuration, error)
        text = f"{query.named(configuration)}: {error}{where}"
        raise RetrieverError(text)
    if record.violations:
        headline = f"{query.named(configuration)}: {'; '.join(record.violations)}"
        raise ExpectationFailed(failure_text(query, record, ranking), headline)


def run_queries(queries: Sequence[GoldenQuery], item: pytest.Item, retriever: object) -> None:
    """The body of a coarse item: every query answered and scored; one failure lists all."""
    __tracebackhide__ = _hide_for_users_errors
    run = item.config.stash[SETTINGS_KEY]
    scorer = _Scorer(item, run, coarse=True)
    fetcher = item.config.stash[FETCHER_KEY]
    if fetcher.replay is None:
        note_retriever(item.config, scorer.configuration, retriever)
    wanted = asked(queries)
    progress = Progress(item.config, scorer.configuration, len(wanted))
    said: dict[str, str] = {}  # an error shown whole on another item -> where
    try:
        answers = fetcher.answers(wanted, scorer.configuration, retriever, progress.update, item)
    except ProtocolError as exc:
        answers = [Answer(error=str(exc)) for _ in wanted]
        first = _shown_before(item, (scorer.configuration, str(exc)))
        if first is not None:
            said[str(exc)] = f"the failure of {first}"
    finally:
        progress.clear()
    answers = [_no_outcome_from_the_retriever(a) for a in answers]
    by_id = dict(zip((q.id for q in wanted), answers, strict=True))
    again = _repeat_answers(fetcher, wanted, scorer.configuration, retriever, run.run.calls.repeat)
    raised: list[tuple[str, BaseException]] = []  # (query, what the user's code raised)
    for query in queries:
        found = by_id.get(query.id)
        if found is not None and found.exception is not None and found.origin in ("", query.id):
            raised.append((query.id, found.exception))
        _score_in_coarse(scorer, query, found, retriever, raised, again.get(query.id))
    scorer.done()
    if raised:
        _show_first_traceback(item, scorer.configuration, raised)
    name = getattr(item, "originalname", item.name)
    where = {query.id: f"{query.location}: " if query.location else "" for query in queries}
    if any(HOOK_HINT in (r.error or "") for r in scorer.records):
        first = _shown_before(item, (scorer.configuration, HOOK_HINT))
        if first is not None:
            said[HOOK_HINT] = f"the failure of {first}"
    _coarse_verdict(scorer.item.config, name, scorer.configuration, scorer.records, where, said)


def _repeat_answers(
    fetcher: Fetcher,
    wanted: Sequence[GoldenQuery],
    configuration: str,
    retriever: object,
    repeat: int,
) -> dict[str, list[Answer]]:
    """``retrieval_repeat`` with a coarse item: every query's further answers, fetched in
    chunks as the first were (one call per query and repeat would cost a batch retriever
    a call each); {} when not repeating, or replaying."""
    if repeat < 2 or fetcher.replay is not None:
        return {}
    again: dict[str, list[Answer]] = {q.id: [] for q in wanted}
    for _ in range(repeat - 1):
        try:
            answers = fetcher.answers(wanted, configuration, retriever)
        except ProtocolError as exc:
            answers = [Answer(error=str(exc)) for _ in wanted]
        for query, answer in zip(wanted, answers, strict=True):
            again[query.id].append(answer)
    return again


def _show_first_traceback(
    item: pytest.Item, configuration: str, raised: list[tuple[str, BaseException]]
) -> None:
    """The user's traceback of the first query whose retriever (or result) raised, under
    the coarse item's failure: its summary names every query, this shows where."""
    qid, exc = raised[0]
    frames = traceback.format_exception(type(exc), exc, _shown_frames(exc))
    others = len(raised) - 1
    more = f" ({others} more {'query' if others == 1 else 'queries'} raised)" if others else ""
    head = f"query '{qid}' [{configuration}]{more}:\n"
    item.add_report_section("call", "retrieval traceback", head + "".join(frames))


def _score_in_coarse(
    scorer: _Scorer,
    query: GoldenQuery,
    answer: Answer | None,
    retriever: object,
    raised: list[tuple[str, BaseException]],
    again: Sequence[Answer] | None = None,
) -> None:
    if answer is None:  # skip: in the golden file
        reason = f"Skipped: {query.skip}"  # as pytest words a skip mark's reason
        record = skipped(query, scorer.configuration, scorer.run.settings, reason, scorer.position)
        scorer.keep(query, record, [], None)
        return
    try:
        record, ranking = scorer.score(query, answer)
    except Exception as exc:  # a result object that raises: this query's error
        scorer.error(query, raised_text(exc), answer)
        raised.append((query.id, exc))
        return
    if _repeating(scorer) and record.error is None:
        failure = _repeats(scorer, query, retriever, record, ranking, again)
        if failure is not None:
            _repeat_failed(scorer, query, failure, answer)
            again_raised = failure.answer.exception
            if again_raised is not None and failure.answer.origin in ("", query.id):
                raised.append((query.id, again_raised))


def _coarse_verdict(
    config: pytest.Config,
    name: str,
    configuration: str,
    records: list[QueryRecord],
    where: dict[str, str],
    said: dict[str, str] | None = None,
) -> None:
    """The item's failure: a line for each query that failed or errored, at its file and
    line (``where``: query id -> location), the first :data:`SHOWN_PROBLEMS` lines and a
    count of the rest (``-vv``: every one). An error two queries share is shown whole
    once (``said``: errors shown whole on another item already, and where)."""
    __tracebackhide__ = _hide_for_users_errors
    first = dict(said or {})  # an error's text -> where it is shown whole
    runs = _problem_runs(records)
    if not runs:
        if records and all(r.outcome == "skipped" for r in records):
            pytest.skip(f"every query of '{name}' [{configuration}] is skipped")
        return
    problems = [_run_line(run, where, first) for run in runs]
    if len(problems) > SHOWN_PROBLEMS and config.get_verbosity() < 2:
        rest = sum(len(run) for run in runs[SHOWN_PROBLEMS:])
        problems[SHOWN_PROBLEMS:] = [
            f"  ... and {counted(rest, 'more query', 'more queries')} (-vv lists every one; "
            "the JSON report has each query's outcome)"
        ]
    errors = sum(1 for r in records if r.outcome == "error")
    failed = sum(len(run) for run in runs)
    head = _coarse_head(name, configuration, records, failed, errors)
    text = "\n".join([head, *problems])
    headline = f"{head} {problems[0].strip()}" + (" ..." if len(problems) > 1 else "")
    if errors:
        raise RetrieverError(text, headline)
    raise ExpectationFailed(text, headline)


SHOWN_PROBLEMS = 25  # lines of a coarse item's failure, past its head (-vv: every one)
GROUPED = 3  # consecutive queries with one error (a batch call's chunk) that share a line


def _problem_runs(records: Sequence[QueryRecord]) -> list[list[QueryRecord]]:
    """The queries that failed or errored, in order, as runs that share a line: a run of
    :data:`GROUPED` or more consecutive queries with one error (the chunk of a batch call
    that raised), each other query alone."""
    runs: list[list[QueryRecord]] = []
    previous: QueryRecord | None = None
    for r in records:
        if r.outcome not in ("error", "failed"):
            previous = None
            continue
        if previous is not None and r.error is not None and r.error == previous.error:
            runs[-1].append(r)
        else:
            runs.append([r])
        previous = r
    return [part for run in runs for part in ([run] if len(run) >= GROUPED else [[r] for r in run])]


def _run_line(run: Sequence[QueryRecord], where: dict[str, str], first: dict[str, str]) -> str:
    """A run's line: the first query's, naming how many after it share its error."""
    record = run[0]
    who = f"query '{record.id}'"
    if len(run) > 1:
        who += f" and the {len(run) - 1} after it, to '{run[-1].id}'"
    return "  " + where.get(record.id, "") + _problem_line(record, first, who)


def _coarse_head(
    name: str, configuration: str, records: list[QueryRecord], problems: int, errors: int
) -> str:
    """``'strict' [tfidf]: 1 of 5 queries that ran failed (1 skipped):``: skipped queries
    are not counted among those that could fail."""
    ran = sum(1 for r in records if r.outcome != "skipped")
    failed = problems - errors
    both = failed and errors
    verb = f"failed ({failed}) or errored ({errors})" if both else "errored" if errors else "failed"
    skipped = len(records) - ran
    that_ran = f" that ran {verb} ({skipped} skipped)" if skipped else f" {verb}"
    return (
        f"'{name}' [{configuration}]: {problems} of {counted(ran, 'query', 'queries')}{that_ran}:"
    )


def _problem_line(record: QueryRecord, first: dict[str, str], who: str = "") -> str:
    """A query's line in a coarse item's failure (``who``: what it names, the query by
    default); an error another query of the item had (a fixture's value that is no
    retriever: every query) is shown whole once."""
    who = who or f"query '{record.id}'"
    if record.error is not None:
        here = f"query '{record.id}' above"
        shown = first.setdefault(record.error, here)
        if shown != here:
            return f"{who}: error: the same as {shown}"
        error = record.error
        if HOOK_HINT in error and first.setdefault(HOOK_HINT, here) != here:
            error = error.replace(HOOK_HINT, f"; the fix is under {first[HOOK_HINT]}")
        return f"{who}: error: {error}"
    if not record.violations:  # an xfail that passed under xfail_strict
        return f"{who}: XPASS(strict): it was expected to fail (xfail) but passed"
    return f"{who}: " + "; ".join(record.violations)


# --------------------------------------------------------------------------- unscored items


def _short(call: pytest.CallInfo[None]) -> str:
    if call.excinfo is None:
        return ""
    text = f"{call.excinfo.typename}: {exception_text(call.excinfo.value)}".strip()
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 300 else first[:297] + "..."


def _shown_before(item: pytest.Item, said: tuple[str, str], name: str = "") -> str | None:
    """The item of this process that said ``said`` (a configuration and a text) whole
    first, for this one to point to (by ``name``, its node id by default); None when this
    item is the first, and under ``-vv`` (every item says it whole)."""
    seen = item.config.stash.setdefault(SETUP_ERRORS_KEY, {})
    mine = name or item.nodeid
    first = seen.setdefault(said, mine)
    if first == mine or item.config.get_verbosity() >= 2:
        return None
    return first


def _refusal_once(item: pytest.Item, configuration: str, query_id: str, error: str) -> str:
    """A result-shape refusal (``result at rank 1 is a mapping without an 'id' key: ...;
    fix``) whose fix an earlier query of its configuration in this process gave whole:
    what came back, and that query's name for the fix (``-vv``: whole on every one).
    The record keeps all of it."""
    problem, _, fix = error.rpartition("; ")
    if not problem:
        return error
    first = _shown_before(item, (configuration, f"refused: {fix}"), f"query '{query_id}'")
    return error if first is None else f"{problem}; the fix is under {first}"


def _hint_once(item: pytest.Item, configuration: str, error: str) -> str:
    """An error ending in the result-key hook's how-to (a framework's Document returned)
    says it whole on the first item of its configuration in this process; the others
    point there (``-vv``: whole on every one). The record keeps all of it."""
    if HOOK_HINT not in error:
        return error
    first = _shown_before(item, (configuration, HOOK_HINT))
    return error if first is None else error.replace(HOOK_HINT, f"; the fix is on {first}")


def _protocol_error(item: pytest.Item, configuration: str, text: str) -> str:
    """What an item's failure says is wrong with the fixture's value: all of it on the
    first item of its configuration in this process; on the others, where that is
    (``-vv``: all of it on every one), as a fixture that raises is shown once. The
    record keeps all of it (the JSON report's error)."""
    first = _shown_before(item, (configuration, text))
    if first is None:
        return text
    fixture = item.config.stash[SETTINGS_KEY].settings.fixture
    return (
        f"the '{fixture}' fixture's value is not a retriever, as on {first}, whose failure "
        "says what it is and the fix (-vv: on every item)"
    )


def shorten_repeated_setup_error(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """A retriever fixture that cannot be built fails the setup of every item of its
    configuration alike (pytest builds a function-scoped fixture again for each): its
    traceback is shown once, on the first such item of this process; the others say
    the error in one line and where its traceback is (``-vv`` shows every one)."""
    if call.when != "setup" or not report.failed or call.excinfo is None:
        return
    if _torn_down(call) is not None:
        return
    key = (item_configuration(item)[0], _short(call))
    first = _shown_before(item, key)
    if first is not None:
        text = f"{key[1]}\n(its traceback is shown on {first}; -vv: on every item)"
        report.longrepr = fitted_text(item.config, text)


FIXTURES_MODULE = inspect.getfile(pytest.FixtureRequest)  # where pytest tears fixtures down


def _torn_down(call: pytest.CallInfo[None]) -> str | None:
    """The name of the fixture whose teardown raised this setup error, or None.

    pytest tears a parametrized fixture of a wider scope down when the next item
    wants another parameter, in that item's setup: the error then passes through
    pytest's finalization of the fixture (``FixtureDef.finish``), which names it."""
    tb = call.excinfo.value.__traceback__ if call.excinfo is not None else None
    name: str | None = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == FIXTURES_MODULE and code.co_name == "finish":
            name = str(getattr(tb.tb_frame.f_locals.get("self"), "argname", None) or "?")
        tb = tb.tb_next
    return name


def _teardown_text(item: pytest.Item, fixture: str, settings: Settings, error: str) -> str:
    """Why a query was not run: a fixture of the previous configuration (or another)
    raised while being torn down, which pytest reports at this item's setup."""
    configuration = item_configuration(item)[0]
    previous = item.config.stash.get(LAST_RAN_KEY, None)
    if fixture == settings.fixture and previous not in (None, configuration):
        whose = f"the retriever fixture '{fixture}' of the previous configuration '{previous}'"
        fix = f"fix the code after the yield of '{fixture}' for '{previous}'"
    else:
        whose = f"the fixture '{fixture}'" + (
            f" (after configuration '{previous}')" if previous else ""
        )
        fix = f"fix the code after the yield of '{fixture}'"
    return (
        f"not run: {whose} raised while being torn down ({error}), which pytest reports at "
        f"the setup of the next item, this one of '{configuration}': {fix}"
    )


NOT_RUN = (
    "the item ended without running its queries (a debugger quit under --trace, or "
    "another plugin replaced the test function): nothing was retrieved"
)


def records_without_scoring(
    item: pytest.Item,
    queries: Sequence[GoldenQuery],
    report: pytest.TestReport,
    call: pytest.CallInfo[None],
    settings: Settings,
) -> list[QueryRecord]:
    """The records of an item that produced none: skipped, or stopped before scoring
    (a failing fixture, a fixture of the previous configuration that failed its
    teardown, another plugin's timeout). A stopped item's queries score 0.0."""
    configuration, position = item_configuration(item)
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else _short(call)
        return [skipped(q, configuration, settings, str(reason), position) for q in queries]
    torn = _torn_down(call) if call.when == "setup" else None
    if torn is not None:
        why = _teardown_text(item, torn, settings, _short(call))
    else:
        why = ("setup failed: " if call.when == "setup" else "") + _short(call)
    why = why or NOT_RUN
    records = [errored(q, configuration, settings, why, position) for q in queries]
    for record in records:
        if report.skipped:  # an imperative pytest.xfail() before scoring
            record.outcome = "xfailed"
    if len(records) == 1:
        item.user_properties.extend((name, 0.0) for name in records[0].metrics)
    return records
