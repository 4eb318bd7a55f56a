"""The history log file: JSON Lines, appended safely, read back despite a killed writer.

An append takes an exclusive lock on the file (``fcntl.flock``; two CI jobs sharing a
log wait for each other), starts a new line when the file does not end with one (a
writer killed mid-line leaves a torn line, which then stays on its own line), writes the
whole entry and its newline, and fsyncs before unlocking. A reader takes a shared lock
and skips any line it cannot read, naming it: a torn last line is what a killed run
leaves, and the next run's append starts after it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..history import LogEntry, LogEntryError, entry_from

try:  # POSIX; elsewhere appends are not locked (one writer at a time is the user's duty)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class LogProblem:
    """A line of the log that was skipped, and why."""

    line: int
    message: str


@dataclass
class LogRead:
    """Every readable entry, in the order appended, and the lines skipped."""

    entries: list[LogEntry] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)


@contextlib.contextmanager
def _locked(fd: int, exclusive: bool) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def append_line(path: Path, line: str) -> None:
    """Append one line (a newline is added) under an exclusive lock, then fsync."""
    if "\n" in line or "\r" in line:
        raise ValueError("a log entry must be one line")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        with _locked(fd, exclusive=True):
            size = os.fstat(fd).st_size
            torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
            data = (b"\n" if torn else b"") + line.encode("utf-8") + b"\n"
            while data:
                written = os.write(fd, data)
                data = data[written:]
            os.fsync(fd)
    finally:
        os.close(fd)


def append_entry(path: Path, entry: LogEntry) -> None:
    append_line(path, entry.line())


def _read_bytes(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        with _locked(fd, exclusive=False):
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
    finally:
        os.close(fd)


def parse_log(data: bytes) -> LogRead:
    """Every entry of a log's bytes; each line that cannot be read becomes a problem."""
    read = LogRead()
    lines = data.split(b"\n")
    last = len(lines) if not data.endswith(b"\n") else 0  # a line without its newline
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            read.entries.append(entry_from(json.loads(raw.decode("utf-8"))))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if number == last:
                message = (
                    "the last line is incomplete (a run killed while writing it?): skipped; "
                    "the next run appends after it"
                )
            else:
                message = f"line {number} is not valid JSON ({exc}): skipped"
            read.problems.append(LogProblem(number, message))
        except LogEntryError as exc:
            read.problems.append(LogProblem(number, f"line {number}: {exc}: skipped"))
    return read


def read_log(path: Path) -> LogRead:
    """The log at ``path`` (an empty one when there is no file). OSError propagates."""
    if not path.exists():
        return LogRead()
    return parse_log(_read_bytes(path))
