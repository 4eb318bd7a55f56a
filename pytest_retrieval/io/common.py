"""What every reader and writer of an exchange format shares.

Pure: no pytest here. Problems are :class:`pytest_retrieval.golden.Problem`, so a
broken qrels, run, topics or BEIR file is reported exactly like a broken golden
file: ``path:line: query 'id': what is wrong; how to fix it``. A reader collects
every problem of a file before it raises, so one pass names them all.
"""

from __future__ import annotations

import difflib
import itertools
import json
import re
import sys
import unicodedata
from collections.abc import Callable, Generator, Iterable, Sequence
from pathlib import Path
from typing import BinaryIO

from ..golden import DEFAULT_CATEGORY, Problem
from ..model import RESERVED_CATEGORIES
from ..quoting import escaped
from .golden_check import FORBIDDEN_ID_CHARS, category_text_problem

BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark, which some editors write first
MAX_SHOWN = 50  # problems spelled out in one message; the rest are counted
MAX_KEPT = 1000  # problems kept per file (a corrupt corpus could have millions)

# trec_eval splits fields with C's isspace() in the C locale: ASCII whitespace only,
# so a no-break space inside an id stays part of the id.
_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")


_MAX_DIGITS = getattr(sys, "get_int_max_str_digits", lambda: 0)()  # 0: no limit (< 3.11)
LONG_NUMBER = (
    f"a number has more than {_MAX_DIGITS} digits, more than Python reads; write a shorter "
    "number, or quote it to keep it as text"
)
# a JSON string (skipped), or an integer past the digit limit (no fraction, no exponent)
_STRING_OR_LONG_INT = re.compile(
    rf'"[^"\\]*(?:\\.[^"\\]*)*"|(-?[0-9]{{{_MAX_DIGITS + 1},}})(?![0-9.eE])'
)


class NestedTooDeeply(json.JSONDecodeError):
    """JSON values nested past what the parser can recurse through."""


def is_long_number(exc: BaseException) -> bool:
    """Whether ``exc`` is Python's refusal of an integer past its digit limit
    (``int()`` of more than 4,300 digits), which the JSON parser lets through."""
    return isinstance(exc, ValueError) and "integer string conversion" in str(exc)


def _long_number_at(text: str) -> int:
    """Where the first integer past the digit limit outside a string starts (0: not found)."""
    for match in _STRING_OR_LONG_INT.finditer(text):
        if match.group(1) is not None:
            return match.start(1)
    return 0


def loads_json(text: str, **options: object) -> object:
    """``json.loads``, with what it raises past JSON syntax errors reported as a
    :class:`json.JSONDecodeError` too: values nested past what the parser can recurse
    through (:class:`NestedTooDeeply`, a ``RecursionError`` otherwise) and an integer
    past Python's digit limit (:data:`LONG_NUMBER` at its place; a bare ``ValueError``
    otherwise)."""
    decoder = json.JSONDecoder(**options) if options else _DECODER  # type: ignore[arg-type]
    return decode_json(text, decoder)


_DECODER = json.JSONDecoder()


def is_version(value: object, wanted: int) -> bool:
    """Whether a file's ``"version"`` is ``wanted``: an integer, not ``true`` (which
    Python takes for 1). An int subclass counts (the line-tracking YAML reader's)."""
    return isinstance(value, int) and not isinstance(value, bool) and value == wanted


_CONFLICT_MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)", re.MULTILINE)


def conflict_marker_line(text: str) -> int | None:
    """The line of the first merge-conflict marker (``<<<<<<< HEAD``, ``>>>>>>> branch``)
    a ``git merge`` left in the text, None when there is none."""
    found = _CONFLICT_MARKER.search(text)
    return None if found is None else text.count("\n", 0, found.start()) + 1


def cut_short(exc: json.JSONDecodeError, text: str) -> bool:
    """True when the JSON text is valid up to where it ends: a file cut short (a copy or
    a write that stopped), not one with a mistake inside. A cut inside a string is one:
    the strict decoder stops at any control character, so a string it finds unterminated
    ran to the end of the text (its error points at the string's start)."""
    if not text.strip():
        return False
    return exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")


def decode_json(text: str, decoder: json.JSONDecoder = _DECODER) -> object:
    """:func:`loads_json` with a decoder made once (``json.loads`` with options makes one
    per call, which shows over a million lines)."""
    if text.startswith("\ufeff"):  # as json.loads says it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        return decoder.decode(text)
    except RecursionError:
        raise NestedTooDeeply("values nested too deeply", text, 0) from None
    except ValueError as exc:
        if not is_long_number(exc):
            raise
        raise json.JSONDecodeError(LONG_NUMBER, text, _long_number_at(text)) from None


class FormatError(ValueError):
    """A file in an exchange format that cannot be read or written as it stands.

    ``problems`` holds the problems found (at most :data:`MAX_KEPT`; ``more`` counts
    the rest); the message lists the first :data:`MAX_SHOWN`, one per line.
    """

    def __init__(self, problems: Sequence[Problem], more: int = 0):
        self.problems = list(problems)
        self.more = more
        shown = [str(p) for p in self.problems[:MAX_SHOWN]]
        hidden = len(self.problems) - len(shown) + more
        if hidden:
            shown.append(f"... and {hidden:,} more problems")
        super().__init__("\n".join(shown))


class ProblemLog:
    """The problems of one file, collected so that a reader reports all of them at once."""

    def __init__(self, shown: str):
        self.shown = shown
        self.problems: list[Problem] = []
        self.more = 0  # problems beyond MAX_KEPT, counted only

    def add(self, line: int, message: str, query_id: str | None = None) -> None:
        """Record one problem at ``line`` (0: the file as a whole)."""
        if len(self.problems) < MAX_KEPT:
            self.problems.append(Problem(self.shown, line, message, query_id))
        else:
            self.more += 1

    def raise_if_any(self) -> None:
        """Raise :class:`FormatError` when anything was recorded."""
        if self.problems:
            raise FormatError(self.problems, self.more)


def split_fields(text: str) -> list[str]:
    """Whitespace-separated fields, as trec_eval splits them (ASCII whitespace only)."""
    return [field for field in _ASCII_SPACE.split(text) if field]


def has_space(text: str) -> bool:
    """True when ``text`` holds ASCII whitespace (which a TREC field cannot hold)."""
    return _ASCII_SPACE.search(text) is not None


_COMPRESSED = (  # (magic bytes, format, the command that decompresses it, its suffix)
    (b"\x1f\x8b", "gzip", "gunzip -k", ".gz"),
    (b"BZh", "bzip2", "bunzip2 -k", ".bz2"),
    (b"\xfd7zXZ\x00", "xz", "unxz -k", ".xz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd", ".zst"),
    (b"PK\x03\x04", "zip", "unzip", ""),
)
_UNSUFFIXED = {"gzip": "gzip -dc", "bzip2": "bzip2 -dc", "xz": "xz -dc", "zstd": "zstd -dc"}


def compressed_as(head: bytes) -> str | None:
    """The compression format a file's first bytes give (``gzip``...), else None."""
    return next((kind for magic, kind, _, _ in _COMPRESSED if head.startswith(magic)), None)


def _decompress_command(kind: str, shown: str) -> str:
    """The command that decompresses the file ``shown``: gunzip and the like refuse a
    name without their suffix (``gunzip: rec.jsonl: unknown suffix -- ignored``), so such
    a file is decompressed to another name (``rec.plain.jsonl``)."""
    command, suffix = next((c, x) for _, k, c, x in _COMPRESSED if k == kind)
    name = Path(shown)
    if not suffix or name.suffix.lower() == suffix:
        return f"{command} {shown}"
    plain = name.with_suffix("") if name.suffix.lower() in _SUFFIXES else None
    plain = plain or name.with_name(f"{name.stem}.plain{name.suffix}")
    return f"{_UNSUFFIXED[kind]} {shown} > {plain}"


_SUFFIXES = {x for _, _, _, x in _COMPRESSED if x}


def _opened(path: Path, shown: str) -> BinaryIO:
    """The file opened for reading bytes; a :class:`FormatError` when it cannot be, or
    when it is compressed (TREC's runs come gzipped), which names the command to use."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - the caller closes it (with ... as)
        start = handle.peek(6)[:6]  # not read: a pipe gives its bytes once
    except OSError as exc:
        raise FormatError([Problem(shown, 0, f"cannot read the file: {exc}")]) from None
    kind = compressed_as(start)
    if kind is not None:
        handle.close()
        message = (
            f"the file is {kind}-compressed: decompress it first "
            f"({_decompress_command(kind, shown)}) and give the plain file"
        )
        raise FormatError([Problem(shown, 1, message)])
    return handle


def read_lines(path: Path, shown: str) -> Generator[tuple[int, str], None, None]:
    """Every line of a UTF-8 file as (1-based number, text without the line break).

    Streams the file (a corpus may be gigabytes). A byte sequence that is not UTF-8
    is a :class:`FormatError` naming its line; a byte-order mark on line 1 is dropped.
    """
    with _opened(path, shown) as handle:
        for number, raw in enumerate(handle, start=1):
            yield number, _decoded(raw, number, shown).rstrip("\r\n")


# what str.split() takes for white space in ASCII text beyond C's isspace()
_NOT_C_SPACE = re.compile(rb"[\x1c-\x1f]")


# 64 KiB of whole lines at a time (about 2,500 run lines). Small on purpose: a block's
# tokens live at once, and 8 MiB of run lines are 2.2 million strings (120 MB) that
# overflow the CPU's caches; at 64 KiB they stay in cache and a 10-million-line run
# reads in half the time (read_run: 10.7 s at 8 MiB, 5.5 s at 64 KiB, here).
BLOCK_BYTES = 1 << 16


def read_blocks(path: Path, shown: str) -> Generator[tuple[int, bytes], None, None]:
    """The file as blocks of whole lines: (number of the block's first line, its bytes).

    Each block ends at a line break (the last may end at the end of the file); a
    line longer than a block makes a longer block. For readers that handle millions
    of lines with whole-block operations.
    """
    with _opened(path, shown) as handle:
        first, carry = 1, b""
        while True:
            chunk = handle.read(BLOCK_BYTES)
            if not chunk:
                if carry:
                    yield first, carry
                return
            chunk = carry + chunk if carry else chunk
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                carry = chunk
                continue
            block, carry = chunk[:cut], chunk[cut:]
            yield first, block
            first += block.count(b"\n")


def block_fields(
    first: int, block: bytes, shown: str
) -> Generator[tuple[int, list[str]], None, None]:
    """(line number, fields) of every line of a block (:func:`read_blocks`) that holds
    data, as :func:`data_fields` reads them."""
    lines = block.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the block ends with a line break
    for number, raw in enumerate(lines, start=first):
        fields = _line_fields(raw, number, shown)
        if fields and not fields[0].startswith("#"):
            yield number, fields


def _line_fields(raw: bytes, number: int, shown: str) -> list[str]:
    if raw.isascii() and _NOT_C_SPACE.search(raw) is None:
        return raw.decode("ascii").split()  # a plain ASCII line: str.split splits alike
    return split_fields(_decoded(raw, number, shown))


def data_fields(path: Path, shown: str) -> Generator[tuple[int, list[str]], None, None]:
    """(line number, fields) of every line of a whitespace-separated file that holds data:
    blank lines and ``#`` comments skipped, fields split as trec_eval splits them.

    As :func:`read_lines` (UTF-8 checked, a byte-order mark on line 1 dropped) with
    :func:`split_fields`; a plain ASCII line, nearly every line of a qrels or run file,
    is split by ``str.split`` (the same split there, at C speed).
    """
    for first, block in read_blocks(path, shown):
        yield from block_fields(first, block, shown)


UTF16_MESSAGE = "the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8"


def utf8_text(data: bytes) -> str | tuple[int, str]:
    """A file's bytes as text (UTF-8, a byte-order mark allowed), or the line of the
    first byte that is not UTF-8 and what to say of it (Python's own words, "'utf-8'
    codec can't decode byte 0x84 in position 2", name neither the line nor the cause)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return 1, "the file is UTF-16 (it starts with a byte-order mark), not UTF-8"
        byte = data[exc.start]
        return line, f"byte 0x{byte:02x} is not UTF-8: the file is binary, or not saved as UTF-8"


def _decoded(raw: bytes, number: int, shown: str) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"not UTF-8 (byte {exc.start + 1} of the line); save the file as UTF-8"
        if number == 1 and raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            message = UTF16_MESSAGE
        raise FormatError([Problem(shown, number, message)]) from None
    return text.removeprefix("\ufeff") if number == 1 else text


def counted(count: int, noun: str, plural: str = "") -> str:
    """``1 query``, ``2 queries``, ``20,000 queries``: a count with its noun in the right
    number (``plural`` when adding an s will not do), thousands set apart as everywhere."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def queries_over(pairs: Iterable[tuple[str, str]]) -> tuple[int, str]:
    """(configuration, query id) pairs counted as a person counts queries: the number of
    queries, and ``2 queries`` or ``1 query, in 2 configurations,`` (an item of a category
    or shard holds queries; one query of two configurations is not two queries)."""
    found = set(pairs)
    queries = len({query for _, query in found})
    configurations = len({configuration for configuration, _ in found})
    text = counted(queries, "query", "queries")
    if configurations > 1:
        text += f", in {counted(configurations, 'configuration')},"
    return queries, text


def queries_of(count: int, source: str) -> str:
    """``1 query of SOURCE is`` or ``N queries of SOURCE are``: the start of a note."""
    return f"{counted(count, 'query', 'queries')} of {source} {'is' if count == 1 else 'are'}"


def json_object_head(path: Path, size: int = 4096) -> bytes | None:
    """The first ``size`` bytes of a file that starts with a JSON object (after a BOM and
    white space): what tells the plugin's own files (reports, baselines, recordings)
    apart where another kind of file belongs; None for any other file, or one that
    cannot be read."""
    try:
        with path.open("rb") as handle:
            head = handle.read(size)
    except OSError:
        return None
    return head if head.removeprefix(BOM).lstrip().startswith(b"{") else None


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` when one of ``choices`` is close to ``word``, else ""."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def did_you_mean_file(
    path: Path, shown: str, looked_at: int = 2000, keep: Callable[[Path], bool] | None = None
) -> str:
    """`` (did you mean 'runs/nightly.jsonl'?)`` when a file beside the missing ``path``
    has a close name (the first ``looked_at`` files of its folder), written with the
    folder as ``shown`` gives it; else "". ``keep``: which files may stand for it (a
    baseline's: baselines, not the recording beside it)."""
    try:
        names = [p.name for p in itertools.islice(path.parent.iterdir(), looked_at) if p.is_file()]
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, sorted(names), n=3, cutoff=0.6)
    close = [name for name in close if keep is None or keep(path.parent / name)]
    if not close:
        return ""
    folder = shown[: len(shown) - len(path.name)] if shown.endswith(path.name) else ""
    return f" (did you mean '{folder}{close[0]}'?)"


def some_ids(ids: Sequence[str], shown: int = 5) -> str:
    """The first ``shown`` ids of a list, for a message ("a, b, c, ..." past them); their
    control characters escaped (an id from a run file may hold any)."""
    return ", ".join(map(escaped, ids[:shown])) + (", ..." if len(ids) > shown else "")


def alike_ids(unknown: Sequence[str], golden: Iterable[str], shown: int = 3) -> str:
    """A run's query ids that are golden ones in other letter case or Unicode form, as
    the end of the message naming them (``; Q3 is the golden query q3 in other letter
    case: ...``); empty text when none is."""
    forms = {unicodedata.normalize("NFC", g).casefold(): g for g in golden}
    pairs = [
        (u, forms[key])
        for u in unknown
        if (key := unicodedata.normalize("NFC", u).casefold()) in forms
    ]
    if not pairs:
        return ""
    named = ", ".join(f"{escaped(u)} is {escaped(g)}" for u, g in pairs[:shown])
    more = f" (and {len(pairs) - shown} more)" if len(pairs) > shown else ""
    return (
        f"; of these, {named}{more} in other letter case or Unicode form: query ids match "
        "exactly, so write the run's query ids as the golden files do"
    )


def golden_id_problem(qid: str) -> str | None:
    """Why ``qid`` cannot be a golden query id (it becomes part of a pytest node id), or None."""
    if not qid.strip():
        return "the query id is empty"
    if qid != qid.strip() or " " in qid or any(c in qid for c in FORBIDDEN_ID_CHARS):
        return (
            "a golden query id must not contain spaces, '[', ']' or '::' (it becomes a pytest "
            "node id); rename the query in the source files"
        )
    return None


def category_problem(category: str) -> str | None:
    """Why ``category`` cannot be a golden category, or None."""
    if not category.strip():
        return "the category is empty; give every query a non-empty category"
    if category in RESERVED_CATEGORIES:
        return f"category '{category}' is reserved for the overall row of the tables; rename it"
    return category_text_problem(category)


__all__ = [
    "BLOCK_BYTES",
    "DEFAULT_CATEGORY",
    "MAX_KEPT",
    "MAX_SHOWN",
    "FormatError",
    "ProblemLog",
    "block_fields",
    "category_problem",
    "data_fields",
    "did_you_mean_file",
    "golden_id_problem",
    "has_space",
    "read_blocks",
    "read_lines",
    "some_ids",
    "split_fields",
]


def exists(path: Path, kind: str = "any") -> bool:
    """Whether ``path`` exists (``kind``: "any", "file" or "dir"); False also where the
    system refuses to look, a name longer than the file system allows, for which
    ``Path.exists`` raises."""
    try:
        return (
            path.is_file() if kind == "file" else path.is_dir() if kind == "dir" else path.exists()
        )
    except OSError:
        return False
