"""The body of every golden item: call the retriever, score, keep the record, pass or fail.

Also the records of items that never reached scoring (skipped, or stopped in
setup or by another plugin), made when pytest reports them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..golden import GoldenQuery, RetrievalQuery
from ..model import QueryRecord
from ..scoring import Expectation, errored, failure_text, score_query, skipped
from ..settings import Settings
from ..shapes import ResultShapeError
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


def _call(
    query: GoldenQuery,
    retriever: object,
    settings: Settings,
    where: tuple[str, int],
    expect: Expectation,
) -> tuple[QueryRecord, list[str]]:
    """Run the retriever on one query: the record, and the ranking for failure text."""
    configuration, position = where
    if not callable(retriever):
        message = (
            f"the '{settings.fixture}' fixture must return a callable that takes the golden "
            f"query; it returned {type(retriever).__name__}"
        )
        return errored(query, configuration, settings, message, position), []
    try:
        returned = retriever(RetrievalQuery.of(query))
        if isinstance(returned, Iterator):  # a generator runs the retriever's code too
            returned = list(returned)
    except Exception as exc:
        message = f"the retriever raised {type(exc).__name__}: {exc}"
        return errored(query, configuration, settings, message, position), []
    try:
        return score_query(query, configuration, returned, settings, position, expect)
    except ResultShapeError as exc:
        return errored(query, configuration, settings, str(exc), position), []


def run_query(query: GoldenQuery, request: pytest.FixtureRequest, retriever: object) -> None:
    """The body of every golden item: run, score, record, then pass or fail."""
    item = request.node
    settings = request.config.stash[SETTINGS_KEY].settings
    where = item.stash[CONFIGURATION_KEY]
    expect = expectation(query, request.config)
    record, ranking = _call(query, retriever, settings, where, expect)
    item.stash[RECORD_KEY] = record
    item.user_properties.extend(
        (name, "n/a" if value is None else value) for name, value in record.metrics.items()
    )
    if record.error is not None:
        raise RetrieverError(f"query '{query.id}' [{where[0]}]: {record.error}", pytrace=False)
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
