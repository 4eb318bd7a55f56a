"""The baseline file: parse, serialise, read and write it (atomically).

Keys are sorted and each query sits on one line, so a baseline change reads well
in a pull request. Each configuration also stores its ``all`` and per-category
means, for a person reading the file; the gate recomputes them from the queries.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Iterator
from itertools import repeat
from pathlib import Path

from ..aggregate import summarize
from ..baseline import Baseline, BaselineError, BaselineMissing, update_hint
from ..bulk import paused_gc, with_paused_gc
from ..metrics import EMPTY_CONVENTIONS, GAINS, MetricNameError, parse_metric
from ..model import (
    BASELINE_FIELDS,
    ConfigurationRecords,
    QueryRecord,
    RecordError,
    outside_0_1,
)
from ..retriever_metadata import Metadata, parse_metadata
from .atomic import write_atomic
from .common import (
    NestedTooDeeply,
    conflict_marker_line,
    cut_short,
    decode_json,
    is_version,
    loads_json,
    utf8_text,
)
from .repeated_keys import Repeat, first_repeat, key_line, keys_hold_once, keys_in

FORMAT = "pytest-retrieval-baseline"
VERSION = 1
_REQUIRED = ("category", "fingerprint", "metrics")


def _query(qid: str, configuration: str, data: object) -> QueryRecord:
    if not isinstance(data, dict):
        raise BaselineError(f"query '{qid}' is not a mapping")
    for key in _REQUIRED:
        if key not in data:
            raise BaselineError(f"query '{qid}' has no {key!r}")
    try:
        return QueryRecord.from_dict(data, id=qid, configuration=configuration)
    except RecordError as exc:
        raise BaselineError(f"query '{qid}': {exc}") from None


def _load_json(text: str, shown: str) -> dict[str, object]:
    """The whole text parsed and checked (what :func:`_read_written` declines ends here)."""
    if not text.strip(" \t\r\n\ufeff"):
        raise BaselineError(
            f"{shown} is empty (nothing in it but white space: a write that never ran, a "
            "file made to be filled?)"
        )
    try:
        data = loads_json(text)
    except NestedTooDeeply:
        raise BaselineError(f"{shown} is nested too deeply to be a baseline") from None
    except json.JSONDecodeError as exc:
        if (line := conflict_marker_line(text)) is not None:
            raise BaselineError(
                f"{shown} holds a merge conflict's markers ('<<<<<<<' or '>>>>>>>' at line "
                f"{line}): a baseline's numbers are not merged by hand; keep one side (`git "
                f"checkout --theirs -- {shown}`, or --ours) or rewrite it from this run"
            ) from None
        if cut_short(exc, text):
            raise BaselineError(
                f"{shown} ends early at line {exc.lineno}: the file is cut short (a copy or "
                "a write that stopped?); `git checkout` restores the committed one"
            ) from None
        raise BaselineError(
            f"{shown} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    return _checked(data, text, shown)


def _checked(data: object, text: str, shown: str, keys: int | None = None) -> dict[str, object]:
    """The parsed text, once its format, version and keys given once are checked; ``keys``:
    how many keys it holds, if known (else counted here)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BaselineError(f'{shown} is not a pytest-retrieval baseline (no "format": "{FORMAT}")')
    version = data.get("version")
    if not is_version(version, VERSION):
        raise BaselineError(
            f"{shown} has baseline version {json.dumps(version)}; this plugin reads version "
            f"{VERSION}"
        )
    if keys is None:
        keys = keys_read(data)
    if not keys_hold_once(text, keys, head='"configurations": {'):
        found = first_repeat(text)
        if found is not None:
            raise BaselineError(given_twice(shown, found))
    return data


def keys_read(data: dict[str, object]) -> int:
    """The keys of every mapping of a parsed baseline (or JSON report: the same shape),
    counted at C speed where the queries are (a shape the writer never writes may count
    fewer, which is safe)."""
    total = len(data)
    for key, value in data.items():
        if key != "configurations" or type(value) is not dict:
            total += keys_in(value)
            continue
        total += len(value)
        for block in value.values():
            if type(block) is not dict:
                total += keys_in(block)
                continue
            total += len(block)
            for name, part in block.items():
                total += _keys_of_queries(part) if name == "queries" else keys_in(part)
    return total


def _keys_of_queries(queries: object) -> int:
    """The keys of a configuration's queries: ids, fields, metric names and graded ids."""
    if type(queries) is not dict:
        return keys_in(queries)
    records = list(queries.values())
    if set(map(type, records)) - {dict}:
        return keys_in(queries)
    total = len(queries) + sum(map(len, records))
    for name in ("metrics", "grades"):
        inner = list(map(dict.get, records, repeat(name), repeat({})))
        if not set(map(type, inner)) - {dict}:
            total += sum(map(len, inner))
    return total


def given_twice(shown: str, found: Repeat) -> str:
    """A key given twice, named with where it is and its lines."""
    path, key = found.path, found.key
    lines = (
        f"twice on line {found.line}"
        if found.first == found.line
        else f"on lines {found.first} and {found.line}"
    )
    if path == ("configurations",):
        what = f"configuration '{key}'"
        fix = "a merge left two configurations under one name? rename one back, or keep one"
    elif len(path) == 3 and path[0] == "configurations" and path[2] == "queries":
        what, fix = f"configuration '{path[1]}': query '{key}'", "keep one"
    elif len(path) >= 4 and path[0] == "configurations" and path[2] == "queries":
        field = ".".join(str(step) for step in (*path[4:], key))
        what, fix = f"configuration '{path[1]}': query '{path[3]}': '{field}'", "keep one"
    else:
        what, fix = "'" + ".".join(str(step) for step in (*path, key)) + "'", "keep one"
    return (
        f"{shown}:{found.line}: {what} is given {lines}: a JSON reader keeps the last and "
        f"drops the other without a word; {fix}"
    )


def _check_settings(settings: dict[str, object], shown: str) -> list[str]:
    """The metric names the settings block promises; what is wrong with it, refused."""
    problems = []
    metrics = settings.get("metrics")
    names: list[str] = []
    if not isinstance(metrics, list) or not metrics:
        problems.append("'settings.metrics' must be a non-empty list of metric names")
    else:
        for name in metrics:
            try:
                names.append(parse_metric(str(name)).name)
            except MetricNameError as exc:
                problems.append(f"'settings.metrics': {exc}")
    choices = {"gain": GAINS, "empty": EMPTY_CONVENTIONS}
    for key, allowed in choices.items():
        if settings.get(key) not in allowed:
            problems.append(f"'settings.{key}' must be one of {', '.join(allowed)}")
    for key in ("relevance_threshold", "max_grade"):
        value = settings.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(f"'settings.{key}' must be an integer >= 1")
    if problems:
        raise BaselineError(f"{shown}: " + "; ".join(problems))
    return names


def _check_values(record: QueryRecord, names: list[str], skip: bool) -> None:
    """A query's stored values: exactly the run's metrics, each in 0..1 (or n/a under skip)."""
    if sorted(record.metrics) != sorted(names):
        raise BaselineError(
            f"query '{record.id}': its metrics are {sorted(record.metrics) or 'none'}, the "
            f"settings' are {sorted(names)}"
        )
    for name, value in record.metrics.items():
        if value is None and not skip:
            raise BaselineError(
                f"query '{record.id}': {name} is null, which only retrieval_empty = skip allows"
            )
        if (problem := outside_0_1(name, value)) is not None:
            raise BaselineError(f"query '{record.id}': {problem}")


def parse_baseline(text: str, shown: str = "baseline") -> Baseline:
    """Parse a baseline's text and check it; :class:`BaselineError` says what is wrong."""
    with paused_gc():
        written = _read_written(text)
        if written is None:
            return _parse_baseline(_load_json(text, shown), shown, text, made=False)
        data, keys = written
        return _parse_baseline(_checked(data, text, shown, keys), shown, text, made=True)


def _parse_baseline(data: dict[str, object], shown: str, text: str, made: bool) -> Baseline:
    """The baseline in ``data``, parsed from ``text``; ``made``: its queries are records
    already."""
    settings = data.get("settings")
    configurations = data.get("configurations")
    if not isinstance(settings, dict) or not isinstance(configurations, dict):
        raise BaselineError(f"{shown} lacks 'settings' or 'configurations'")
    if not configurations:  # the plugin never writes one: a gate against it compares nothing
        raise BaselineError(f"{shown} holds no configuration ('configurations' is empty)")
    names = _check_settings(settings, shown)
    parsed: dict[str, dict[str, QueryRecord]] = {}
    retrievers: dict[str, Metadata] = {}
    for name, block in configurations.items():
        queries = block.get("queries") if isinstance(block, dict) else None
        if not isinstance(queries, dict):
            raise BaselineError(f"{shown}: configuration '{name}' has no 'queries' mapping")
        if not queries:
            raise BaselineError(f"{shown}: configuration '{name}' holds no query")
        try:
            parsed[str(name)] = (
                queries
                if made
                else {str(q): _query(str(q), str(name), d) for q, d in queries.items()}
            )
            for record in parsed[str(name)].values():
                _check_values(record, names, settings.get("empty") == "skip")
            _check_summary(block, parsed[str(name)], names)
        except SummaryEdited as exc:
            raise _summary_refused(exc, text, shown, str(name)) from None
        except BaselineError as exc:
            raise BaselineError(f"{shown}: configuration '{name}': {exc}") from None
        described = parse_metadata(block.get("retriever"), "")[0]  # older baselines: none
        if described:
            retrievers[str(name)] = described
    provenance = data.get("provenance")
    return Baseline(
        settings=settings,
        configurations=parsed,
        provenance=provenance if isinstance(provenance, dict) else {},
        retrievers=retrievers,
    )


# ------------------------------------------------------------------- the writer's layout, read fast
#
# json.loads of a whole baseline builds every query's dicts before any becomes a record:
# at 100,000 queries they no longer fit the CPU's caches, and a second pass walks them
# cold (the read grew 16-18x for 10x the queries). In text as the writer lays it out, each
# configuration's queries sit between the two lines below: they are decoded a chunk of
# whole lines at a time, each query made a record at once, and the rest of the text, each
# block of queries replaced by a placeholder, is decoded whole as before.
#
# The same answer as the whole-text path: a block is read only where its placeholder
# stands for a configuration's 'queries', and only when each chunk is a complete list of
# members, so the text is valid JSON exactly when the pieces are, with the same values in
# the same order. Any other text, or a problem anywhere in the queries, goes to the
# whole-text path, so every message stays; past that, the same checks (format, keys given
# once, settings, values, summary) run on the same values in the same order.

_QUERIES_OPEN = '\n      "queries": {\n'
_QUERIES_CLOSE = "\n      }\n"
_PLACEHOLDER = '"": NaN'  # in the rest of the text, where each block of queries was
_CHUNK = 1 << 14  # characters of queries decoded at a time (their dicts stay in cache)


class _NotWritten(Exception):
    """The text is not in the writer's shape (or holds a problem): read it whole."""


class _Slot:
    """What the rest of the text's decoder makes of a placeholder: its block's index."""

    __slots__ = ("at",)

    def __init__(self, at: int) -> None:
        self.at = at


class _Slots:
    """A decoder for the rest of the text: each NaN or Infinity it reads is a new
    :class:`_Slot`, so one the file holds is told apart from a placeholder."""

    def __init__(self) -> None:
        self.made = 0
        self.decoder = json.JSONDecoder(parse_constant=self)

    def __call__(self, _constant: str) -> _Slot:
        self.made += 1
        return _Slot(self.made - 1)


_Block = tuple[dict[str, object], str, int, int]  # a configuration, its name, its queries' span


def _read_written(text: str) -> tuple[dict[str, object], int] | None:
    """The parsed text with each configuration's queries as records, and how many keys
    the text holds; None when the text is not in the writer's shape or holds a problem."""
    found = _skeleton(text)
    if found is None:
        return None
    data, blocks = found
    keys = keys_read(data) - len(blocks)  # less each placeholder's key
    try:
        for block, name, start, end in blocks:
            records, held = _block_records(text, start, end, name)
            block["queries"] = records
            keys += held
    except Exception:  # _NotWritten, BaselineError, or what a check lets out: read it whole
        return None
    return data, keys


def _skeleton(text: str) -> tuple[dict[str, object], list[_Block]] | None:
    """The text decoded with each block of queries replaced by a placeholder, and where
    each block is; None unless every placeholder is a configuration's queries. (Decoded
    as many calls deep as :func:`_load_json` decodes the whole text: values nested too
    deeply are refused alike.)"""
    spans: list[tuple[int, int]] = []
    pieces: list[str] = []
    at = 0
    while (opened := text.find(_QUERIES_OPEN, at)) != -1:
        start = opened + len(_QUERIES_OPEN)
        end = text.find(_QUERIES_CLOSE, start)
        if end == -1:
            return None
        spans.append((start, end))
        pieces += (text[at:start], _PLACEHOLDER)
        at = end
    if not spans:
        return None
    pieces.append(text[at:])
    slots = _Slots()
    try:
        data = decode_json("".join(pieces), slots.decoder)
    except ValueError:
        return None
    if not isinstance(data, dict) or slots.made != len(spans):
        return None  # a NaN or Infinity of the file's own: not a placeholder
    blocks = _blocks(data, spans)
    return None if blocks is None else (data, blocks)


def _blocks(data: dict[str, object], spans: list[tuple[int, int]]) -> list[_Block] | None:
    """Each configuration holding a placeholder, with its block's span; None unless every
    placeholder is found there and no configuration holds queries another way."""
    configurations = data.get("configurations")
    if not isinstance(configurations, dict):
        return None
    blocks: list[_Block] = []
    for name, block in configurations.items():
        queries = block.get("queries") if isinstance(block, dict) else None
        if isinstance(queries, dict) and queries:
            slot = queries.get("")
            if len(queries) != 1 or type(slot) is not _Slot:
                return None
            blocks.append((block, str(name), *spans[slot.at]))
    return blocks if len(blocks) == len(spans) else None


def _block_records(
    text: str, start: int, end: int, configuration: str
) -> tuple[dict[str, QueryRecord], int]:
    """A block's queries as records, decoded a chunk of whole lines at a time, and how many
    keys they hold."""
    records: dict[str, QueryRecord] = {}
    keys = 0
    while True:
        cut = text.find("\n", start + _CHUNK, end)
        if cut == -1:
            keys += _records(_members(text[start:end]), configuration, records)
            return records, keys
        if text[cut - 1] != ",":
            raise _NotWritten
        keys += _records(_members(text[start : cut - 1]), configuration, records)
        start = cut + 1


def _members(chunk: str) -> dict[str, object]:
    """The queries of a chunk (one or more ``"id": {...}`` members, commas between)."""
    try:
        members = decode_json("{" + chunk + "}")
    except ValueError:
        raise _NotWritten from None
    if not isinstance(members, dict) or not members:
        raise _NotWritten
    return members


def _records(members: dict[str, object], configuration: str, into: dict[str, QueryRecord]) -> int:
    """Make each member a record in ``into``; how many keys the members hold (ids too). A value
    naming its own id or configuration (unchecked, so perhaps nested past what the whole
    text's decoder takes) or an id already read (a repeat the key count cannot see) is
    left to the whole-text path."""
    for qid, data in members.items():
        if type(data) is not dict or "id" in data or "configuration" in data or qid in into:
            raise _NotWritten
        into[qid] = _query(qid, configuration, data)
    return _keys_of_queries(members)


def _close(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 1e-9


class SummaryEdited(BaselineError):
    """A stored summary that is not its queries' means, with where it says so: ``where``,
    the keys under the configuration's ``summary`` (``("all", "mrr")``)."""

    def __init__(self, message: str, where: tuple[str, ...]):
        super().__init__(message)
        self.where = where


def _summary_refused(exc: SummaryEdited, text: str, shown: str, name: str) -> BaselineError:
    """The refusal of a hand-edited summary, at its line, with the fix."""
    line = None
    for end in range(len(exc.where), -1, -1):  # the row's metric, else the row, else summary
        line = key_line(text, ("configurations", name, "summary", *exc.where[:end]))
        if line is not None:
            break
    at = f"{shown}:{line}" if line is not None else shown
    return BaselineError(
        f"{at}: configuration '{name}': {exc}; the summary is written from the queries' "
        f"lines, for reading: edit neither. `git checkout -- {shown}` restores the committed "
        f"file, or `{update_hint(shown)}` rewrites it from a run"
    )


def _check_summary(
    block: dict[str, object], queries: dict[str, QueryRecord], names: list[str]
) -> None:
    """The stored means must be the queries' means: a hand-edited summary is refused."""
    stored = block.get("summary")
    if stored is None:
        return
    view = ConfigurationRecords(tuple(queries[q] for q in sorted(queries)))
    summary = summarize(view, names)
    rows = {"all": summary.all, **summary.categories}
    found = stored.get("categories") if isinstance(stored, dict) else None
    given = {"all": stored.get("all") if isinstance(stored, dict) else None}
    given.update(found if isinstance(found, dict) else {})
    ghost = next((label for label in given if label not in rows), None)
    if ghost is not None:
        raise SummaryEdited(
            f"its stored summary has a row '{ghost}' that none of its queries has: the file "
            "was edited by hand",
            _row_keys(ghost),
        )
    for label, row in rows.items():
        kept = given.get(label)
        if not isinstance(kept, dict):
            raise SummaryEdited(f"its stored summary has no row '{label}'", ())
        for name in ["n", *names]:
            want = row.n if name == "n" else row.values.get(name)
            value = kept.get(name)
            if isinstance(value, float) and not math.isfinite(value):
                raise SummaryEdited(
                    f"its stored summary says {label} {name} = {value!r}, which is no number "
                    "(NaN and Infinity are not JSON): the file was edited by hand or damaged",
                    (*_row_keys(label), name),
                )
            if not _close(value, want):
                raise SummaryEdited(
                    f"its stored summary says {label} {name} = {kept.get(name)!r}, its queries "
                    f"give {want!r}: the file was edited by hand",
                    (*_row_keys(label), name),
                )


def _row_keys(label: str) -> tuple[str, ...]:
    """Where a summary row is under ``summary``: ``all``, or ``categories`` then its name."""
    return ("all",) if label == "all" else ("categories", label)


def read_baseline(path: Path, shown: str | None = None) -> Baseline:
    """Read and parse a baseline file; :class:`BaselineMissing` when there is none."""
    shown = shown or str(path)
    try:
        text = utf8_text(path.read_bytes())  # a byte-order mark from an editor is fine
    except (FileNotFoundError, NotADirectoryError):
        raise BaselineMissing(f"no baseline at {shown}") from None
    except OSError as exc:
        raise BaselineError(f"cannot read {shown}: {exc}") from None
    if isinstance(text, tuple):
        raise BaselineError(f"{shown}:{text[0]}: {text[1]}, so it is no baseline")
    return parse_baseline(text, shown)


# json.dumps with options makes an encoder per call: one for the file's every line
_ONE_LINE = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


def _one(value: object) -> str:
    return _ONE_LINE.encode(value)


def _configuration_lines(
    queries: dict[str, QueryRecord], metrics: list[str], retriever: Metadata | None
) -> Iterator[str]:
    view = ConfigurationRecords(tuple(queries[q] for q in sorted(queries)))
    summary = summarize(view, metrics)
    if retriever:
        yield f'      "retriever": {_one(retriever)},'
    yield f'      "summary": {{"all": {_one(summary.all.as_dict())}, "categories": {{'
    cats = sorted(summary.categories.items())
    for i, (cat, row) in enumerate(cats):
        yield f"        {_one(cat)}: {_one(row.as_dict())}{',' if i < len(cats) - 1 else ''}"
    yield "      }},"
    yield '      "queries": {'
    for i, record in enumerate(view.records):
        comma = "," if i < len(view.records) - 1 else ""
        yield f"        {_one(record.id)}: {_one(record.to_dict(BASELINE_FIELDS))}{comma}"
    yield "      }"


def lines(baseline: Baseline) -> Iterator[str]:
    """The baseline's text line by line (each with its newline): stable key order, one
    line per query."""
    raw_metrics = baseline.settings.get("metrics", [])
    metrics = [str(m) for m in raw_metrics] if isinstance(raw_metrics, list) else []
    head = [
        "{",
        f'  "format": {_one(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "settings": {_one(baseline.settings)},',
        f'  "provenance": {_one(baseline.provenance)},',
        '  "configurations": {',
    ]
    yield from (line + "\n" for line in head)
    names = sorted(baseline.configurations)
    for ci, name in enumerate(names):
        yield f"    {_one(name)}: {{\n"
        described = baseline.retrievers.get(name)
        for line in _configuration_lines(baseline.configurations[name], metrics, described):
            yield line + "\n"
        yield "    }" + ("," if ci < len(names) - 1 else "") + "\n"
    yield "  }\n}\n"


def looks_like_baseline(path: Path) -> bool:
    """Whether an existing file's head names this format (cheap: what an update may replace;
    a damaged baseline still does, a golden file, report or conftest.py does not)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return f'"{FORMAT}"'.encode() in head


def dumps(baseline: Baseline) -> str:
    """Serialise with stable key order and one line per query."""
    return "".join(lines(baseline))


def unchanged_by(previous: Baseline | None, new: Baseline) -> bool:
    """Whether ``new`` holds what ``previous`` holds but for its provenance: an update that
    moved nothing, which leaves the file as it is (a new time and commit alone would make
    a diff to review after every update)."""
    if previous is None:
        return False
    with paused_gc():  # compared line by line: an update that changed a query stops there,
        # not after serialising both baselines whole (seconds at 100,000 queries x 3)
        mine = lines(dataclasses.replace(new, provenance=previous.provenance))
        return all(a == b for a, b in itertools.zip_longest(mine, lines(previous)))


@with_paused_gc
def write_baseline(path: Path, baseline: Baseline) -> None:
    """Write atomically: an interrupted update leaves the old file intact."""
    write_atomic(path, lines(baseline))
