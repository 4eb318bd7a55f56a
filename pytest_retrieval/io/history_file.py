"""The history log file: JSON Lines, appended safely, read back despite a killed writer.

An append takes an exclusive lock on the file (``fcntl.flock``; two CI jobs sharing a
log wait for each other), cuts off a torn last line (what a writer killed mid-line
leaves), writes the whole entry and its newline, and fsyncs before unlocking; a write
that fails (a full disk) cuts the file back to its length before it. A reader
takes a shared lock and skips any line it cannot read, naming it: a torn last line is
reported once, by the run whose append then removes it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..history import FORMAT, LogEntry, LogEntryError, entry_from
from ..quoting import escaped
from .common import BOM, exists, loads_json

try:  # POSIX; elsewhere appends are not locked (one writer at a time is the user's duty)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class LogProblem:
    """A line of the log that was skipped, why, and its start (cut to a readable length)."""

    line: int
    message: str
    excerpt: str = ""


EXCERPT = 100  # characters of a skipped line shown with its warning


def cut(text: str, width: int = EXCERPT) -> str:
    """``text`` to show: cut to ``width`` characters (``...`` after), its control
    characters escaped (a log line may be megabytes, or binary)."""
    text = escaped(text[: width + 1])
    return text if len(text) <= width else text[: width - 3] + "..."


def excerpt(raw: bytes, width: int = EXCERPT) -> str:
    """The start of a line, to show: :func:`cut` (only its first bytes are decoded)."""
    return cut(raw[: width * 4].decode("utf-8", "replace").strip(), width)


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


def _tail_start(fd: int, size: int) -> int:
    """Where the file's last line starts when it has no newline (``size``: it has one)."""
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    start = size
    while start > 0:
        chunk = os.pread(fd, min(start, 1 << 16), max(0, start - (1 << 16)))
        found = chunk.rfind(b"\n")
        if found >= 0:
            return start - len(chunk) + found + 1
        start -= len(chunk)
    return 0


def _readable(data: bytes) -> bool:
    try:
        loads_json(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return True


def append_line(path: Path, line: str) -> None:
    """Append one line (a newline is added) under an exclusive lock, then fsync.

    A last line without its newline is what a writer killed mid-line leaves (a live
    writer holds the lock until its line is whole): when it is no JSON it is cut off,
    when it is (a line written by hand without its newline) it gets its newline.
    """
    if "\n" in line or "\r" in line:
        raise ValueError("a log entry must be one line")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        with _locked(fd, exclusive=True):
            size = os.fstat(fd).st_size
            start = _tail_start(fd, size)
            prefix = b""
            if start < size:
                if _readable(os.pread(fd, size - start, start)):
                    prefix = b"\n"
                else:
                    os.ftruncate(fd, start)
            _write_whole(fd, prefix + line.encode("utf-8") + b"\n")
    finally:
        os.close(fd)


def _write_whole(fd: int, data: bytes) -> None:
    """Append ``data`` and fsync; a write that fails (a full disk) truncates the file
    back to its length before, so no torn line is left for the next run to blame on a
    killed writer, and raises."""
    before = os.fstat(fd).st_size
    try:
        while data:
            written = os.write(fd, data)
            data = data[written:]
        os.fsync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, before)
        raise


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
    """Every entry of a log's bytes (a byte-order mark first is allowed: an editor's);
    each line that cannot be read becomes a problem."""
    read = LogRead()
    lines = data.removeprefix(BOM).split(b"\n")
    last = len(lines) if not data.endswith(b"\n") else 0  # a line without its newline
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            read.entries.append(entry_from(loads_json(raw.decode("utf-8"))))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if number == last:
                message = (
                    "the last line is incomplete (a run killed while writing it?): skipped, "
                    "and removed when this run is appended"
                )
            else:
                message = f"line {number} is not valid JSON ({exc}): skipped"
            read.problems.append(LogProblem(number, message, excerpt(raw)))
        except LogEntryError as exc:
            message = f"line {number}: {cut(str(exc), 2 * EXCERPT)}: skipped"  # names values
            read.problems.append(LogProblem(number, message, excerpt(raw)))
    return read


def holds_other_data(path: Path) -> bool:
    """Whether ``path`` is a file with content whose first line is no log entry: appending
    to it would spoil a file that is not a log (a baseline, a conftest.py)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 16).removeprefix(BOM).strip()
    except OSError:
        return False  # none there (or unreadable: the append says why)
    return bool(first) and not (first.startswith(b"{") and FORMAT.encode() in first)


def read_log(path: Path) -> LogRead:
    """The log at ``path`` (an empty one when there is no file). OSError propagates."""
    if not exists(path):
        return LogRead()
    return parse_log(_read_bytes(path))
