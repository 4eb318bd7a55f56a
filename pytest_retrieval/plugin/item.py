"""The body of every golden item: call the retriever, score, keep the record, pass or fail.

Also the records of items that never reached scoring (skipped, or stopped in
setup or by another plugin), made when pytest reports them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence

import pytest

from ..golden import GoldenQuery, RetrievalQuery
from ..model import QueryRecord
from ..scoring import Expectation, detail_text, errored, failure_text, score_query, skipped
from ..settings import Settings
from ..shapes import ResultShapeError
from .gathered import note_retriever
from .keys import CONFIGURATION_KEY, RECORD_KEY, SETTINGS_KEY


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


def run_query(query: GoldenQuery, request: pytest.FixtureRequest, retriever: object) -> None:
    """The body of every golden item: run, score, record, then pass or fail."""
    __tracebackhide__ = _hide_for_users_errors
    item = request.node
    settings = request.config.stash[SETTINGS_KEY].settings
    configuration, position = item.stash[CONFIGURATION_KEY]
    note_retriever(request.config, configuration, retriever)  # once per configuration
    if not callable(retriever):
        message = (
            f"the '{settings.fixture}' fixture must return a callable that takes the golden "
            f"query; it returned {type(retriever).__name__}"
        )
        _keep(item, errored(query, configuration, settings, message, position), query)
        raise RetrieverError(f"query '{query.id}' [{configuration}]: {message}", pytrace=False)
    try:
        returned = _retrieve(query, retriever)
    except Exception as exc:
        _raised(item, query, exc, settings)
        raise
    try:
        expect = expectation(query, request.config)
        record, ranking = score_query(query, configuration, returned, settings, position, expect)
    except ResultShapeError as exc:
        record, ranking = errored(query, configuration, settings, str(exc), position), []
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
