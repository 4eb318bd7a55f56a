"""The body of every golden item: call the retriever, score, keep the record, pass or fail.

Also the records of items that never reached scoring (skipped, or stopped in
setup or by another plugin), made when pytest reports them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType

import pytest

from ..golden import GoldenQuery, RetrievalQuery
from ..model import QueryRecord
from ..runner import Repeats, RetrieverTimeout, call_with_timeout
from ..scoring import Expectation, detail_text, errored, failure_text, score_query, skipped
from ..settings import RunSettings, Settings
from ..shapes import ResultKey, ResultShapeError, rank_results
from .gathered import note_retriever
from .keys import CONFIGURATION_KEY, RECORD_KEY, SETTINGS_KEY
from .result_keys import result_key


class ExpectationFailed(pytest.fail.Exception):  # type: ignore[misc, name-defined]
    """A query's ``expect`` or ``forbid`` was violated (what ``xfail:`` expects)."""

    __module__ = "builtins"  # the short summary then reads "ExpectationFailed: ..."


class RetrieverError(pytest.fail.Exception):  # type: ignore[misc, name-defined]
    """The retriever raised or returned something that is not a ranked sequence."""

    __module__ = "builtins"


def expectation(query: GoldenQuery, config: pytest.Config) -> Expectation:
    """How this query's ``xfail:`` counts in this run (``--runxfail``, ``xfail_strict``)."""
    if query.xfail is None or config.getoption("runxfail", False):
        return Expectation()
    return Expectation(xfail=True, strict=bool(config.getini("xfail_strict")))


def _retrieve(query: GoldenQuery, retriever: object) -> object:
    """Call the retriever; a generator is consumed here, since it runs the retriever's code.

    Its exceptions propagate: the item shows the user's traceback (the plugin's frames
    hidden) and ``--pdb`` lands in the user's frame.
    """
    __tracebackhide__ = True
    assert callable(retriever)
    returned = retriever(RetrievalQuery.of(query))
    return list(returned) if isinstance(returned, Iterator) else returned


PACKAGE = str(Path(__file__).resolve().parents[1])


def _users_frames(exc: BaseException) -> TracebackType | None:
    """The traceback from the first frame outside the package, when the exception was
    raised in the user's code (a result object's ``.id``, its ``__iter__``); else None."""
    tb = exc.__traceback__
    last = tb
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None or last.tb_frame.f_code.co_filename.startswith(PACKAGE):
        return None
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(PACKAGE):
        tb = tb.tb_next
    return tb


def _keep(
    item: pytest.Item, record: QueryRecord, query: GoldenQuery, ranking: Sequence[str] = ()
) -> None:
    """Keep the item's record (and, for ``--retrieval-show``, how it reads)."""
    patterns = item.config.stash[SETTINGS_KEY].run.show
    if any(fnmatch.fnmatchcase(query.id, p) for p in patterns):
        record.detail = detail_text(query, record, ranking)
    item.stash[RECORD_KEY] = record
    item.user_properties.extend(
        (name, "n/a" if value is None else value) for name, value in record.metrics.items()
    )


def _raised(item: pytest.Item, query: GoldenQuery, exc: BaseException, settings: Settings) -> None:
    """Keep the record of a retriever that raised: an error, 0.0 on every metric."""
    configuration, position = item.stash[CONFIGURATION_KEY]
    message = f"the retriever raised {type(exc).__name__}: {exc}"
    note = (
        f"(pytest-retrieval) query '{query.id}' [{configuration}]: {message}; the query "
        "scores 0.0 on every metric"
    )
    if hasattr(exc, "add_note"):  # Python 3.11+: shown under the traceback
        exc.add_note(note)
    else:
        item.add_report_section("call", "retrieval", note)
    _keep(item, errored(query, configuration, settings, message, position), query)


def _hide_for_users_errors(excinfo: pytest.ExceptionInfo[BaseException]) -> bool:
    """Hide the plugin's frames under the user's exception; keep one for our own failures
    (shown as their message alone), or pytest says every entry was hidden."""
    return not isinstance(excinfo.value, (ExpectationFailed, RetrieverError))


def _call(item: pytest.Item, query: GoldenQuery, retriever: object, run: RunSettings) -> object:
    """The retriever's answer to one query, within ``retrieval_timeout``.

    A timeout is this item's error; the retriever's own exception propagates with the
    user's frames (an error record is kept first).
    """
    __tracebackhide__ = _hide_for_users_errors
    configuration, position = item.stash[CONFIGURATION_KEY]
    try:
        return call_with_timeout(lambda: _retrieve(query, retriever), run.run.timeout)
    except RetrieverTimeout as exc:
        _keep(item, errored(query, configuration, run.settings, str(exc), position), query)
        raise RetrieverError(
            f"query '{query.id}' [{configuration}]: {exc}", pytrace=False
        ) from None
    except Exception as exc:
        _raised(item, query, exc, run.settings)
        raise exc.with_traceback(_users_frames(exc) or exc.__traceback__)  # noqa: B904


def _score(
    item: pytest.Item, query: GoldenQuery, returned: object, run: RunSettings
) -> tuple[QueryRecord, list[str]]:
    __tracebackhide__ = _hide_for_users_errors
    configuration, position = item.stash[CONFIGURATION_KEY]
    settings = run.settings
    try:
        expect = expectation(query, item.config)
        key = result_key(item.config, query)
        return score_query(query, configuration, returned, settings, position, expect, key)
    except ResultShapeError as exc:
        return errored(query, configuration, settings, str(exc), position), []
    except Exception as exc:
        user = _users_frames(exc)
        if user is None:
            raise  # the plugin's own bug: its frames stay visible
        _raised(item, query, exc, settings)  # a result's .id or iteration raised
        raise exc.with_traceback(user) from None


def _repeats(
    query: GoldenQuery,
    retriever: object,
    run: RunSettings,
    record: QueryRecord,
    first: list[str],
    key: ResultKey | None,
) -> None:
    """``retrieval_repeat``: call again, and note how far the rankings agree."""
    rankings = [first]
    try:
        for _ in range(run.run.repeat - 1):
            returned = call_with_timeout(lambda: _retrieve(query, retriever), run.run.timeout)
            rankings.append(rank_results(returned, key).ranking)
    except Exception:  # a repeat that fails is a ranking that did not reproduce
        rankings.append([])
    found = Repeats.of(rankings, run.settings.depth)
    record.repeat_overlap, record.repeat_same = found.overlap, found.same


def run_query(query: GoldenQuery, request: pytest.FixtureRequest, retriever: object) -> None:
    """The body of every golden item: run, score, record, then pass or fail."""
    __tracebackhide__ = _hide_for_users_errors
    item = request.node
    run = request.config.stash[SETTINGS_KEY]
    configuration, position = item.stash[CONFIGURATION_KEY]
    note_retriever(request.config, configuration, retriever)  # once per configuration
    if not callable(retriever):
        message = (
            f"the '{run.settings.fixture}' fixture must return a callable that takes the "
            f"golden query; it returned {type(retriever).__name__}"
        )
        _keep(item, errored(query, configuration, run.settings, message, position), query)
        raise RetrieverError(f"query '{query.id}' [{configuration}]: {message}", pytrace=False)
    record, ranking = _score(item, query, _call(item, query, retriever, run), run)
    if run.run.repeat > 1 and record.error is None:
        _repeats(query, retriever, run, record, ranking, result_key(request.config, query))
    _keep(item, record, query, ranking)
    if record.error is not None:
        raise RetrieverError(f"query '{query.id}' [{configuration}]: {record.error}", pytrace=False)
    if record.violations:
        raise ExpectationFailed(failure_text(query, record, ranking), pytrace=False)


def _short(call: pytest.CallInfo[None]) -> str:
    if call.excinfo is None:
        return ""
    text = f"{call.excinfo.typename}: {call.excinfo.value}".strip()
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 300 else first[:297] + "..."


def record_without_scoring(
    item: pytest.Item,
    query: GoldenQuery,
    report: pytest.TestReport,
    call: pytest.CallInfo[None],
    settings: Settings,
) -> QueryRecord:
    """The record of an item that produced none: skipped, or stopped before scoring
    (a failing fixture, another plugin's timeout). A stopped item scores 0.0."""
    configuration, position = item.stash[CONFIGURATION_KEY]
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else _short(call)
        return skipped(query, configuration, settings, str(reason), position)
    prefix = "setup failed: " if call.when == "setup" else ""
    record = errored(query, configuration, settings, prefix + _short(call), position)
    if report.skipped:  # an imperative pytest.xfail() before scoring
        record.outcome = "xfailed"
    item.user_properties.extend((name, 0.0) for name in record.metrics)
    return record
