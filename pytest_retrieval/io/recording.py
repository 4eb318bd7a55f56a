"""Recordings (``--retrieval-record``): every configuration's results, one JSON line each.

Pure apart from the file. A recording is JSON lines: a header, one line per (query,
configuration), and a footer written when the run ends::

    {"format": "pytest-retrieval recording", "version": 1, "settings": {...}}
    {"configuration": "bm25", "id": "rain", "text": "...", "results": [["doc", 12.5], ...],
     "latency_ms": 3.1, "shared": false, "error": null}
    {"complete": true, "entries": 71, "golden": "<sha256 of the golden set>",
     "retrievers": {"dense": {"index_version": "2024-09"}}}

``results`` are ``[id, score]`` pairs as the retriever returned them (score null when
it gave none), or ``[id, score, key]`` for a result the ``pytest_retrieval_result_key``
hook gave a key (id null when the result had none of its own); ``filters`` appears
when the query had some. A query recorded again in one run (a rerun plugin) starts
``{"attempt": 2, ...`` (3, ...): the reader keeps the last attempt and refuses any
other entry given twice (a line copied over another). The file is written to a
temporary file beside the path as the run goes and renamed over the path at the end,
so the path holds a whole recording or the one before.
"""

from __future__ import annotations

import array
import codecs
import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, overload

from ..bulk import paused_gc
from ..golden import GoldenQuery, Problem
from ..quoting import encodable
from ..retriever_metadata import Metadata, parse_metadata
from ..shapes import KeyedResult
from .atomic import SURROGATES, mode_for, sync_folder, temporary_beside, write_target
from .common import (
    FormatError,
    ProblemLog,
    cut_short,
    decode_json,
    did_you_mean,
    is_version,
    read_lines,
)
from .joined_ids import Held, joined, split
from .repeated_keys import RepeatedKeys

FORMAT = "pytest-retrieval recording"
VERSION = 1


# [id, score], or [id, score, key] for a result the result-key hook gave a key (its
# id null when it had none of its own: only the hook could read it)
RecordedResult = tuple[str, float | None] | tuple[str | None, float | None, str]


class ResultColumns(Sequence[RecordedResult]):
    """A query's recorded results as read back: the ids and the scores in two columns.

    A recording holds millions of results. Read as ``(id, score)`` tuples, each took a
    tuple, a float and a string of its own (about 136 bytes: 1.2 GB to replay 30,000
    queries x 2 of 100 results). Here a query's ids are one string, split again when
    the replay hands them on (:mod:`.joined_ids`), and scores without a null are 8 bytes
    each in an array. Iterating, indexing and comparing give the ``(id, score)`` pairs,
    as the tuples did.
    """

    __slots__ = ("_ids", "scores")

    def __init__(self, docs: Sequence[str], scores: Sequence[float | None]):
        self._ids: Held = joined(docs)
        self.scores = scores

    @property
    def docs(self) -> Sequence[str]:
        return split(self._ids)

    def __len__(self) -> int:
        return len(self.scores)

    def __iter__(self) -> Iterator[RecordedResult]:
        return zip(self.docs, self.scores, strict=True)

    @overload
    def __getitem__(self, index: int) -> RecordedResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[RecordedResult, ...]: ...

    def __getitem__(self, index: int | slice) -> RecordedResult | tuple[RecordedResult, ...]:
        docs = self.docs
        if isinstance(index, slice):
            return tuple(zip(docs[index], self.scores[index], strict=True))
        return docs[index], self.scores[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(other) == len(self.scores) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"ResultColumns({tuple(self)!r})"

    def __reduce__(self) -> tuple[Callable[..., ResultColumns], tuple[object, ...]]:
        return _restored, (self._ids, self.scores)  # as held: xdist's workers get a copy

    def as_given(self) -> list[object]:
        """The results as a replay hands them on: ids when the retriever gave no scores,
        else (id, score) pairs."""
        docs, scores = self.docs, self.scores
        if docs and not isinstance(scores, array.array) and all(s is None for s in scores):
            return list(docs)
        return list(zip(docs, scores, strict=True))


def _restored(ids: Held, scores: Sequence[float | None]) -> ResultColumns:
    """A :class:`ResultColumns` unpickled, from its columns as they were held."""
    columns = ResultColumns.__new__(ResultColumns)
    columns._ids, columns.scores = ids, scores
    return columns


@dataclass(frozen=True)
class Recorded:
    """One (query, configuration) as recorded."""

    configuration: str
    id: str
    text: str
    results: Sequence[RecordedResult] = ()  # read back: a ResultColumns
    filters: Mapping[str, object] = field(default_factory=dict)
    latency_ms: float | None = None
    shared: bool = False
    error: str | None = None
    keyed: bool = False  # read back: some results hold the key the result-key hook gave

    def line(self) -> str:
        data: dict[str, object] = {"configuration": self.configuration, "id": self.id}
        data["text"] = self.text
        if self.filters:
            data["filters"] = filters_as_recorded(self.filters)
        data["results"] = [list(pair) for pair in self.results]
        data.update(latency_ms=self.latency_ms, shared=self.shared, error=self.error)
        # a lone surrogate as its JSON escape: a worker's line crosses to the controller
        return encodable(json.dumps(data, ensure_ascii=False, allow_nan=False, default=str))


def error_line(query: GoldenQuery, configuration: str, error: str) -> str:
    """The line of a query that got no answer to record (its retriever fixture failed,
    its worker crashed): the error it scored 0 with, which its replay scores alike."""
    filters = dict(query.filters)
    return Recorded(configuration, query.id, query.text, filters=filters, error=error).line()


def _json_ready(value: object) -> object:
    """``value`` with what JSON has no value for as its text: NaN and infinities, sets
    (their items sorted), and keys that are not text (the rest, a date or binary data,
    goes through ``default=str``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return _set_text(value)
    return value


def _set_text(value: set[object] | frozenset[object]) -> str:
    """A set as text, its items sorted: ``str()`` lists them in the order of the
    process's string hashing, which differs from one run to the next."""
    items = sorted(_set_text(v) if isinstance(v, frozenset) else repr(v) for v in value)
    return "{" + ", ".join(items) + "}" if items else "set()"


def filters_as_recorded(filters: Mapping[str, object]) -> dict[str, object]:
    """A query's filters as a recording holds them, and as a replay compares them: JSON
    values, with a date, binary data, a set, NaN or an infinity (YAML reads them so, and
    the retriever gets them so) as its text."""
    if not filters:
        return {}
    text = json.dumps(_json_ready(filters), ensure_ascii=False, allow_nan=False, default=str)
    found = json.loads(text)
    return found if isinstance(found, dict) else {}


# what follows the configuration and the query id in an entry's line; inside a JSON
# string its quotes would be escaped, so the first one found ends the key
_AFTER_KEY = ', "text": '


class RecordingWriter:
    """Appends entries to a temporary file; :meth:`close` renames it over the path."""

    def __init__(self, path: Path, settings: Mapping[str, object]):
        self.path = write_target(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, self._tmp = temporary_beside(self.path)
        self._file: IO[str] | None = os.fdopen(
            fd, "w", encoding="utf-8", errors=SURROGATES, newline="\n"
        )
        self.entries = 0
        self._attempts: dict[str, int] = {}  # an entry's configuration and id -> lines so far
        self.failed: OSError | None = None  # a write that failed (a full disk): close raises it
        header = {"format": FORMAT, "version": VERSION, "settings": dict(settings)}
        try:
            self._file.write(json.dumps(header, ensure_ascii=False) + "\n")
        except OSError:
            self.abandon()
            raise

    def add(self, line: str) -> None:
        """One entry's line (:meth:`Recorded.line`); a (configuration, query) written
        before (a rerun plugin ran the item again) is marked as the next attempt. A write
        that fails (a full disk) ends the recording: the temporary file is removed, the
        run goes on, and :meth:`close` raises what failed."""
        if self._file is None:
            return
        key = line.partition(_AFTER_KEY)[0]  # '{"configuration": "...", "id": "..."'
        attempt = self._attempts[key] = self._attempts.get(key, 0) + 1
        if attempt > 1:
            line = f'{{"attempt": {attempt}, {line[1:]}'
        try:
            self._file.write(line + "\n")
        except OSError as exc:
            self.failed = exc
            self.abandon()
            return
        self.entries += 1

    def close(
        self, complete: bool, golden: str, retrievers: Mapping[str, Mapping[str, object]]
    ) -> None:
        """Write the footer (with what each configuration's retriever said about itself)
        and put the recording in place (atomically)."""
        if self.failed is not None:
            raise self.failed
        handle, self._file = self._file, None
        if handle is None:
            return
        try:
            footer = {"complete": complete, "entries": self.entries, "golden": golden}
            footer["retrievers"] = {name: dict(m) for name, m in retrievers.items() if m}
            handle.write(json.dumps(footer) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            os.chmod(self._tmp, mode_for(self.path))  # as any file written there (umask)
            os.replace(self._tmp, self.path)
            sync_folder(self.path.parent)
        except BaseException:
            with contextlib.suppress(OSError):
                handle.close()  # what it still buffers cannot be written either
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)
            raise

    def abandon(self) -> None:
        """Drop the temporary file (the run could not record)."""
        handle, self._file = self._file, None
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()  # a full disk fails the flush of what is buffered
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Recording:
    """A recording read back: its entries by configuration, in the order first seen."""

    entries: Mapping[str, Mapping[str, Recorded]]
    complete: bool
    settings: Mapping[str, object]
    golden: str = ""
    retrievers: Mapping[str, Metadata] = field(default_factory=dict)  # what each described

    @property
    def configurations(self) -> list[str]:
        return list(self.entries)


def is_recording(path: Path) -> bool:
    """Whether the file starts with a recording's header (else: a TREC run, perhaps)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return False
    first = first.removeprefix(codecs.BOM_UTF8)  # saved by an editor that writes one
    return first.lstrip().startswith(b"{") and FORMAT.encode() in first


def _results(data: Mapping[str, object]) -> tuple[Sequence[RecordedResult], bool]:
    """The [id, score] pairs as the writer writes them: ids as text, scores as finite
    numbers or null (what a live retriever's results must be; a hand-edited 1 or "0.5"
    is refused, not read as "1" and 0.5). Checked with whole-list operations: a
    recording holds millions of pairs. And whether some results hold a key."""
    given = data["results"]  # always written: [] for an error (a KeyError names it)
    if not given:
        if given == []:
            return (), False
        raise ValueError("'results' must be a list of [id, score] pairs")
    if type(given) is not list or set(map(type, given)) != {list}:
        raise ValueError("'results' must be a list of [id, score] pairs")
    if 3 in set(map(len, given)):
        return _keyed_results(given), True
    try:  # zip with strict and the unpacking: every pair holds two values
        docs, scores = zip(*given, strict=True)
    except ValueError:
        raise ValueError("'results' must be a list of [id, score] pairs") from None
    if not _all_text(docs):
        rank, doc = next((i, d) for i, d in enumerate(docs, 1) if type(d) is not str or not d)
        raise ValueError(_bad_id(rank, doc))
    kinds = set(map(type, scores))
    numbers = scores if type(None) not in kinds else [s for s in scores if s is not None]
    if not kinds <= _SCORE_TYPES or not _finite_sum(numbers):
        bad = [(i, s) for i, s in enumerate(scores, 1) if not _score_ok(s)]
        if bad:  # else: finite scores whose sum overflowed
            rank, score = bad[0]
            raise ValueError(
                f"result {rank}'s score {_shown_score(score)} is not a finite number or null"
            )
    if type(None) in kinds:
        return ResultColumns(docs, tuple(s if s is None else float(s) for s in scores)), False
    return ResultColumns(docs, array.array("d", scores)), False


def recorded_results(kept: Sequence[KeyedResult]) -> tuple[RecordedResult, ...]:
    """Results as :func:`~pytest_retrieval.shapes.rank_results` kept them, as recorded:
    [id, score] for one the hook gave no key."""
    return tuple((d, s) if k is None and d is not None else (d, s, k) for d, s, k in kept)  # type: ignore[misc]


def _bad_id(rank: int, value: object, what: str = "id") -> str:
    """What is wrong with a result's recorded id (or key): not text, or empty text."""
    wrong = "is empty" if value == "" else "is not text"
    return f"result {rank}'s {what} {value!r} {wrong}; {what}s are recorded as non-empty text"


def _keyed_results(given: list[list[object]]) -> tuple[RecordedResult, ...]:
    """Results some of which the result-key hook gave a key: [id, score] and [id, score,
    key] (id null for a result only the hook could read); read one by one."""
    found: list[RecordedResult] = []
    for rank, result in enumerate(given, 1):
        if len(result) not in (2, 3):
            raise ValueError("'results' must be a list of [id, score] pairs")
        doc, score, *key = result
        if key and (not isinstance(key[0], str) or not key[0]):
            raise ValueError(_bad_id(rank, key[0], "key"))
        if not (isinstance(doc, str) and doc) and not (key and doc is None):
            raise ValueError(_bad_id(rank, doc))
        if not _score_ok(score):
            raise ValueError(
                f"result {rank}'s score {_shown_score(score)} is not a finite number or null"
            )
        value = None if score is None else float(score)  # type: ignore[arg-type]
        found.append((doc, value, key[0]) if key else (doc, value))  # type: ignore[arg-type]
    return tuple(found)


def _all_text(docs: tuple[object, ...]) -> bool:
    """Whether every id is non-empty text (str.join refuses any other value, at C speed)."""
    try:
        "".join(docs)  # type: ignore[arg-type]
    except TypeError:
        return False
    return "" not in docs


_SCORE_TYPES = {float, int, type(None)}


def _score_ok(score: object) -> bool:
    if score is None:
        return True
    if isinstance(score, int) and not isinstance(score, bool):
        return abs(score) <= sys.float_info.max  # a longer one is no double (and no score)
    return isinstance(score, float) and math.isfinite(score)


def _finite_sum(numbers: Iterable[float | int]) -> bool:
    """Whether the numbers' sum is finite (false for an integer past a double's range)."""
    try:
        return math.isfinite(sum(numbers))
    except OverflowError:
        return False


def _shown_score(score: object) -> str:
    """A refused score as written, cut short when it is a number hundreds of digits long."""
    text = repr(score)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _error(data: Mapping[str, object]) -> str | None:
    """The recorded error: its text (never empty: a live error names what was raised), or None."""
    error = data.get("error")
    if error is None:
        return None
    if not isinstance(error, str) or not error.strip():
        raise ValueError(f"'error' must be the error's text or null, got {error!r}")
    return error


def _latency(data: Mapping[str, object]) -> float | None:
    latency = data.get("latency_ms")
    if latency is None:
        return None
    if not _score_ok(latency) or latency < 0:  # type: ignore[operator]
        shown = json.dumps(latency)  # as written: "5" (text), true
        raise ValueError(f"'latency_ms' must be a finite number of milliseconds >= 0, got {shown}")
    return float(latency)  # type: ignore[arg-type]


def _name(data: Mapping[str, object], key: str) -> str:
    """An entry's configuration, query id or query text: non-empty text, as the plugin
    writes them (``null`` or ``5`` would be read as a configuration 'None' or '5'; a
    text left out could not show the recording stale)."""
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{key}' must be non-empty text, got {json.dumps(value)}")
    return value


def _filters(data: Mapping[str, object]) -> dict[str, object]:
    """The query's filters as recorded: an object (left out when it had none); a list
    or text is refused, not read as no filters (a replay compares them)."""
    filters = data.get("filters")
    if filters is None:
        return {}
    if not isinstance(filters, dict):
        raise ValueError(
            f"'filters' must be an object (the query's filters), got {json.dumps(filters)}"
        )
    return filters


def _shared(data: Mapping[str, object]) -> bool:
    """Whether the latency was a batch call's share: true or false ("false", text, would
    read as true)."""
    shared = data.get("shared", False)
    if not isinstance(shared, bool):
        raise ValueError(f"'shared' must be true or false, got {json.dumps(shared)}")
    return shared


# what the writer writes in an entry: any other key is an edit's
_ENTRY_KEYS = frozenset(
    {
        "attempt",
        "configuration",
        "id",
        "text",
        "filters",
        "results",
        "latency_ms",
        "shared",
        "error",
    }
)


def _entry(data: Mapping[str, object], log: ProblemLog, number: int) -> Recorded | None:
    unknown = data.keys() - _ENTRY_KEYS
    if unknown:
        name = sorted(unknown)[0]
        log.add(
            number,
            f"unknown key {json.dumps(name)} in a recording entry"
            f"{did_you_mean(name, sorted(_ENTRY_KEYS))} (a key the writer does not write: "
            "the recording was edited, and what it says would be ignored); record again",
            qid if isinstance(qid := data.get("id"), str) else None,
        )
        return None
    try:
        results, keyed = _results(data)
        return Recorded(
            configuration=_name(data, "configuration"),
            id=_name(data, "id"),
            text=_name(data, "text"),  # what replay checks staleness against
            results=results,
            filters=_filters(data),
            latency_ms=_latency(data),
            shared=_shared(data),
            error=_error(data),
            keyed=keyed,
        )
    except (KeyError, TypeError, ValueError) as exc:
        what = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
        log.add(number, f"not a recording entry ({what}); the recording is damaged: record again")
        return None


def _header(line: str, log: ProblemLog) -> Mapping[str, object]:
    read = ProblemLog(log.shown)
    header = _json_line(line, 1, read, RepeatedKeys())
    if read.problems and FORMAT in line:  # a header, damaged
        raise FormatError(read.problems)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        log.add(1, f"not a recording: the first line is not a '{FORMAT}' header")
        log.raise_if_any()
    assert isinstance(header, dict)  # raise_if_any raised otherwise
    version = header.get("version")
    if not is_version(version, VERSION):
        log.add(1, f"recording version {json.dumps(version)}; this plugin reads {VERSION}")
        log.raise_if_any()
    settings = header.get("settings", {})
    if not isinstance(settings, dict):
        log.add(
            1,
            "the header's 'settings' must be an object (the run's settings), got "
            f"{json.dumps(settings)}: the recording was edited; record again",
        )
        log.raise_if_any()
    checked: dict[str, object] = settings
    return checked


def read_recording(path: Path, shown: str | None = None) -> Recording:
    """A recording file read back; :class:`FormatError` names the lines that are not.
    Streamed line by line: a recording of a large run is hundreds of megabytes."""
    log = ProblemLog(shown or str(path))
    try:
        # UTF-8 checked per line, a BOM dropped; closed when a problem stops the read
        with contextlib.closing(read_lines(path, log.shown)) as lines:
            settings = _header(next(lines, (1, ""))[1], log)
            with paused_gc():
                entries, footer = _entries(_marked_last(lines), log)
    except OSError as exc:
        raise FormatError([Problem(log.shown, 0, f"cannot read the recording: {exc}")]) from None
    except FormatError as exc:  # a line that is not UTF-8: with what was found before it
        later = [problem for problem in exc.problems if problem not in log.problems]
        raise FormatError([*log.problems, *later], exc.more) from None
    log.raise_if_any()
    golden = str(footer.get("golden", ""))
    described = footer.get("retrievers")
    retrievers = {
        str(name): parse_metadata(data, "")[0]
        for name, data in (described.items() if isinstance(described, Mapping) else ())
    }
    complete = bool(footer.get("complete", False))
    return Recording(entries, complete, settings, golden, retrievers)


def _marked_last(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str, bool]]:
    """The lines that are not blank, the last of them marked (a copy or a write that
    stopped leaves it cut short)."""
    held: tuple[int, str] | None = None
    for number, line in lines:
        if not line.strip():
            continue
        if held is not None:
            yield *held, False
        held = number, line
    if held is not None:
        yield *held, True


_UNREADABLE = object()  # a line that is no JSON value (its problem is logged)


def _json_line(
    line: str, number: int, log: ProblemLog, hook: RepeatedKeys, last: bool = False
) -> object:
    """A line's JSON value; :data:`_UNREADABLE` (and a problem) when it is not JSON or
    gives a key twice in one object (which JSON reads as the last, silently). ``last``:
    the file's last line, which a copy or a write that stopped leaves cut short."""
    hook.keys.clear()
    try:
        data = decode_json(line, hook.decoder)
    except json.JSONDecodeError as exc:
        if last and cut_short(exc, line):
            log.add(
                number,
                "the line ends early: the recording is cut short (a copy, or a write "
                "that stopped: a killed run, a full disk?); record again",
            )
            return _UNREADABLE
        log.add(
            number,
            f"not JSON ({exc.msg}: column {exc.colno}); the recording is damaged: record again",
        )
        return _UNREADABLE
    if hook.keys:
        log.add(
            number,
            f"'{hook.keys[0]}' is given twice on this line (a JSON reader keeps the last and "
            "drops the other without a word): the recording was edited; record again",
        )
        return _UNREADABLE
    return data


def _entries(
    lines: Iterable[tuple[int, str, bool]], log: ProblemLog
) -> tuple[dict[str, dict[str, Recorded]], Mapping[str, object]]:
    """The recorded results of each configuration, and the footer line (if any), from
    the lines after the header (:func:`_marked_last`)."""
    entries: dict[str, dict[str, Recorded]] = {}
    counted = 0  # entry lines, as the writer counted them in the footer
    footer: Mapping[str, object] = {}
    footer_line = 0
    seen: dict[tuple[str, str], tuple[int, int]] = {}  # (configuration, id) -> line, attempt
    hook = RepeatedKeys()
    for number, line, last in lines:
        data = _json_line(line, number, log, hook, last)
        if data is _UNREADABLE:
            continue
        if isinstance(data, dict) and "complete" in data:
            footer, footer_line = data, number
            continue
        counted += 1
        if not isinstance(data, dict):
            log.add(number, f"not a recording entry (a JSON {type(data).__name__}): record again")
            continue
        entry = _entry(data, log, number)
        if entry is not None and _next_attempt(entry, data, number, seen, log):
            entries.setdefault(entry.configuration, {})[entry.id] = entry
    _check_count(footer, counted, log, footer_line)
    return entries, footer


def _next_attempt(
    entry: Recorded,
    data: Mapping[str, object],
    number: int,
    seen: dict[tuple[str, str], tuple[int, int]],
    log: ProblemLog,
) -> bool:
    """Whether the entry is a (configuration, query) not seen yet, or the next attempt of
    one (a rerun plugin ran it again: the last attempt is kept); else a problem naming
    both lines, for an entry given twice is a line copied over another."""
    attempt = data.get("attempt", 1)
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        log.add(number, f"'attempt' must be a whole number >= 1, got {attempt!r}; record again")
        return False
    key = (entry.configuration, entry.id)
    before = seen.get(key)
    if before is not None and attempt <= before[1]:
        log.add(
            number,
            f"configuration '{entry.configuration}' is recorded twice, here and on line "
            f"{before[0]}, and this line is not a later attempt: a line was copied over "
            "another; record again",
            entry.id,
        )
        return False
    seen[key] = (number, attempt)
    return True


def _check_count(footer: Mapping[str, object], found: int, log: ProblemLog, last: int) -> None:
    """The footer's count of entries against the entry lines read: lines added to a
    recording, or taken out, after it was written. Its values are what the writer
    writes (a count of 1.0 would not be compared, "false" would read as true)."""
    counted, complete = footer.get("entries"), footer.get("complete", False)
    edited = "the recording was edited; record again"
    golden, retrievers = footer.get("golden", ""), footer.get("retrievers", {})
    if not isinstance(golden, str):
        log.add(
            last,
            "the last line's 'golden' must be text (the golden set's digest), got "
            f"{json.dumps(golden)}: {edited}",
        )
    if not isinstance(retrievers, dict):
        log.add(
            last,
            "the last line's 'retrievers' must be an object (configuration -> what its "
            f"retriever said), got {json.dumps(retrievers)}: {edited}",
        )
    if not isinstance(complete, bool):
        log.add(
            last,
            f"the last line's 'complete' must be true or false, got {json.dumps(complete)}: "
            + edited,
        )
    if counted is not None and (type(counted) is not int or counted < 0):
        log.add(
            last,
            "the last line's 'entries' must be the whole number of entries the recording "
            f"holds, got {json.dumps(counted)}: {edited}",
        )
    elif isinstance(counted, int) and counted != found and not log.problems:
        log.add(
            last,
            f"the last line counts {counted} entries and the file holds {found}: lines were "
            "added or taken out after it was written; record again",
        )
