"""Golden JSONL files: one query object per line, the same keys as a YAML query.

Pure. :func:`parse_jsonl` turns the text into the data a YAML golden file gives
(``{"defaults": ..., "queries": [...]}``), each query carrying its line, so the
same checks (:mod:`.golden_check`) name the same lines. The first object may be
``{"defaults": {...}}``. Strict JSON: ``NaN`` and ``Infinity`` are refused, and
a key repeated in an object is named rather than dropped. Refused too: escapes of
half a surrogate pair (``"\\ud800"``: not a character, nothing could print it),
numbers past Python's digit limit, values nested past 64 levels.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..golden import GoldenFileError, Problem
from .common import LONG_NUMBER, is_long_number
from .golden_check import MAX_DEPTH, TOO_DEEP, Lines, Seq, too_deep

_HINT = "each line of a .jsonl golden file is one JSON object"
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # a \\ud800-\\udfff escape: maybe unpaired
_SURROGATE = re.compile("[\ud800-\udfff]")


class _NotJson(ValueError):
    pass


def _constant(name: str) -> float:
    raise _NotJson(f"{name} is not a number in JSON; write a number")


class _Decoder:
    """A JSON decoder that records repeated keys of the line being read."""

    def __init__(self) -> None:
        self.repeated: list[Any] = []
        self.decoder = json.JSONDecoder(object_pairs_hook=self._object, parse_constant=_constant)

    def _object(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.repeated.append(key)
                seen.add(key)
        return out

    def line(self, text: str, number: int, shown: str) -> Any:
        """One line's value; a mapping comes back as :class:`Lines` at ``number``."""
        self.repeated = []
        try:
            value = self.decoder.decode(text)
        except RecursionError:
            raise _problem(shown, number, TOO_DEEP) from None
        except _NotJson as exc:
            raise _problem(shown, number, str(exc), _id_in(text)) from None
        except json.JSONDecodeError as exc:
            raise _problem(shown, number, _syntax(text, exc), _id_in(text)) from None
        except ValueError as exc:  # an integer past Python's digit limit
            message = LONG_NUMBER if is_long_number(exc) else f"JSON error: {exc}"
            raise _problem(shown, number, message) from None
        if text.count("[") + text.count("{") > MAX_DEPTH and too_deep(value):
            raise _problem(shown, number, TOO_DEEP)
        if _SURROGATE_ESCAPE.search(text):
            half = _lone_surrogate(value)
            if half is not None:
                raise _problem(shown, number, _surrogate_message(half))
        if not isinstance(value, dict):
            return value
        return _at(value, number, [(key, number, number) for key in self.repeated])


def _at(value: dict[str, object], number: int, duplicates: list[tuple[Any, int, int]]) -> Lines:
    """A mapping read from line ``number``: every key is on it."""
    lines = Lines(value)
    lines.line = number
    lines.key_lines = dict.fromkeys(value, number)
    lines.duplicates = duplicates
    return lines


def _lone_surrogate(value: Any) -> str | None:
    """A text (key or value) inside ``value`` holding half a surrogate pair, if any."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _surrogate_message(text: str) -> str:
    half = _SURROGATE.search(text)
    assert half is not None
    shown = text if len(text) <= 40 else text[:40] + "..."
    return (
        f"the text {shown!r} holds {repr(half.group())[1:-1]}, half of a UTF-16 surrogate pair and "
        "not a character; write the character itself, or both escapes of its pair"
    )


def _problem(shown: str, line: int, message: str, qid: str | None = None) -> GoldenFileError:
    return GoldenFileError([Problem(shown, line, message, qid)])


# the first "id" of a line that is not JSON: a string or an integer, as written
_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)')


def _id_in(text: str) -> str | None:
    """The query id a line that is not JSON seems to give (to name its query), or None."""
    found = _ID.search(text)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return str(value) or None


def _syntax(text: str, exc: json.JSONDecodeError) -> str:
    if text.strip() in ("{", "["):
        return (
            f"JSON syntax error: {_HINT}, on one line (is this a pretty-printed .json "
            "file? write one query per line)"
        )
    before = text[: exc.pos].rstrip()
    if text[exc.pos : exc.pos + 1] in ("}", "]") and before.endswith(","):
        closes = "object" if text[exc.pos] == "}" else "list"
        return (
            f"JSON syntax error: a trailing comma (column {len(before)}) before the "
            f"'{text[exc.pos]}' that closes the {closes} (column {exc.colno}): JSON allows "
            "no comma after the last item; remove it"
        )
    if exc.pos >= len(text.rstrip()):
        return (
            f"JSON syntax error: the line ends inside an object or a list ({exc.msg}, column "
            f"{exc.colno}): a closing '}}' or ']' is missing; {_HINT}"
        )
    if text[exc.pos : exc.pos + 1] == "'":
        return (
            f"JSON syntax error: text in single quotes (column {exc.colno}): JSON writes "
            "keys and text in double quotes"
        )
    return f"JSON syntax error: {exc.msg} (column {exc.colno}); {_HINT}"


def parse_jsonl(text: str, shown: str) -> tuple[Any, list[Problem]]:
    """The file as ``{"defaults": ..., "queries": [...]}`` with lines (None when it holds
    nothing), and the lines that are not JSON objects: each is named, the rest still read."""
    decoder = _Decoder()
    queries = Seq()
    queries.item_lines = []
    data = Lines()
    data.line, data.key_lines, data.duplicates = 1, {}, []
    problems: list[Problem] = []
    # split on newlines only: JSON strings may hold U+2028 and friends, which splitlines cuts
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = decoder.line(raw.rstrip("\r"), number, shown)
        except GoldenFileError as exc:
            problems += exc.problems
            continue
        if not queries and "defaults" not in data and _is_defaults(value):
            defaults = value["defaults"]
            data["defaults"] = _at(defaults, number, []) if isinstance(defaults, dict) else defaults
            data.key_lines["defaults"] = number
        elif isinstance(value, list):
            problems.append(Problem(shown, number, f"a list where a query object belongs; {_HINT}"))
        elif _is_defaults(value):
            where = f"line {data.key_lines['defaults']}" if "defaults" in data else "the queries"
            problems.append(
                Problem(
                    shown, number,
                    f"a defaults line after {where}: a file has one, and it is its first line "
                    "(its values apply to the queries below it); move it to the top",
                )
            )  # fmt: skip
        else:
            queries.line = queries.line or number
            queries.append(value)
            queries.item_lines.append(number)
    if not queries and "defaults" not in data:
        empty = Problem(shown, 1, "the file holds no queries; write one JSON object per line")
        return None, problems or [empty]
    data["queries"] = queries
    data.key_lines["queries"] = queries.line or 1
    return data, problems


def _is_defaults(value: Any) -> bool:
    return isinstance(value, dict) and list(value) == ["defaults"]
