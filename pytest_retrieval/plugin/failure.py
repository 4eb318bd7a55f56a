"""A golden item's failure as pytest reports it.

The exception the item raises (:class:`ExpectationFailed`, :class:`RetrieverError`)
holds the text unwrapped and a one-line headline. The report's long representation
(:class:`ItemFailure`) wraps the text to the width of the terminal that prints it, and
gives readers of ``reprcrash`` the headline: the short test summary, ``--tb=line``
and JUnit's ``message`` attribute, which no terminal's width then breaks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from ..report.wrapping import fitted

if TYPE_CHECKING:
    from _pytest._io import TerminalWriter


class _ItemException(pytest.fail.Exception):  # type: ignore[misc, name-defined]
    """A failure the plugin words itself: no traceback, a headline for summaries."""

    __module__ = "builtins"  # the short summary then reads "ExpectationFailed: ..."

    def __init__(self, text: str, headline: str = "") -> None:
        super().__init__(text, pytrace=False)
        self.text = text
        self.headline = headline or text.partition("\n")[0]


class ExpectationFailed(_ItemException):
    """A query's ``expect`` or ``forbid`` was violated (what ``xfail:`` expects)."""


class RetrieverError(_ItemException):
    """The retriever raised or returned something that is not a ranked sequence."""


@dataclass(frozen=True)
class Crash:
    """Where an item failed (its golden file's line) and its headline."""

    path: str
    lineno: int
    message: str

    def __str__(self) -> str:  # what --tb=line prints (no line: the message alone)
        return f"{self.path}:{self.lineno}: {self.message}" if self.lineno else self.message


class ItemFailure:
    """The failure of a golden item as a pytest long representation."""

    def __init__(self, crash: Crash, text: str) -> None:
        self.reprcrash = crash
        self.text = text

    def toterminal(self, tw: TerminalWriter) -> None:
        for line in fitted(self.text, tw.fullwidth).splitlines():
            tw.line(line)

    def __str__(self) -> str:  # the JUnit failure's text, whole and unwrapped
        return self.text


FAILURE_FIELD = "retrieval_failure"  # the report's attribute an xdist worker sends


def item_failure(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """A failed golden item's report given an :class:`ItemFailure`; an xdist worker's also
    the plain data it is rebuilt from on the controller (:func:`rebuild_failure`)."""
    exc = call.excinfo.value if call.excinfo is not None else None
    if not report.failed or not isinstance(exc, _ItemException):
        return
    path, line, _ = report.location  # the golden file, relative; the query's line
    crash = Crash(path, (line or 0) + 1, f"{type(exc).__name__}: {exc.headline}")
    report.longrepr = ItemFailure(crash, exc.text)  # type: ignore[assignment]  # duck-typed
    if hasattr(item.config, "workerinput"):
        setattr(report, FAILURE_FIELD, [crash.path, crash.lineno, crash.message, exc.text])


def rebuild_failure(report: pytest.TestReport) -> None:
    """On the controller: a worker's failed golden item as :func:`item_failure` made it
    (what crossed is its text alone)."""
    sent = getattr(report, FAILURE_FIELD, None)
    if not isinstance(sent, list) or len(sent) != 4:
        return
    path, line, message, text = sent
    failure = ItemFailure(Crash(str(path), int(line), str(message)), str(text))
    report.longrepr = failure  # type: ignore[assignment]  # a long representation, duck-typed
