"""JSON text written piece by piece, so a large report is never held whole in memory.

Pure. :func:`chunks` gives the text ``json.dumps(value, indent=2, ensure_ascii=False)``
would give, in pieces; a :class:`Streamed` object stands for a JSON object whose
members are made only as they are written (the per-query records of a report), so
neither the encoded text nor the plain data of every query exists at once; a
:class:`Compact` value is written on one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

INDENT = "  "


@dataclass(frozen=True)
class Compact:
    """A value written on one line (``json.dumps`` without indentation, which runs at C
    speed): what a report's per-query records are, one line each."""

    value: object


@dataclass(frozen=True)
class Streamed:
    """A JSON object whose (key, value) members come from ``members()`` as it is written;
    a value may itself be Streamed."""

    members: Callable[[], Iterable[tuple[str, object]]]


# json.dumps with any option makes an encoder per call, which shows at a million calls
_INDENTED = json.JSONEncoder(indent=2, ensure_ascii=False)
_COMPACT = json.JSONEncoder(ensure_ascii=False)


def _dumps(value: object) -> str:
    return _INDENTED.encode(value)


def chunks(value: object, depth: int = 0) -> Iterator[str]:
    """The indented JSON text of ``value`` (at nesting ``depth``), in pieces."""
    if isinstance(value, Compact):
        yield _COMPACT.encode(value.value)
        return
    if not isinstance(value, Streamed):
        text = _dumps(value)
        # a JSON text holds no raw newline inside a string: every newline is indentation
        yield text.replace("\n", "\n" + INDENT * depth) if depth else text
        return
    inner = "\n" + INDENT * (depth + 1)
    opening = "{" + inner
    for key, member in value.members():
        yield opening + _dumps(key) + ": "
        yield from chunks(member, depth + 1)
        opening = "," + inner
    yield "{}" if opening.startswith("{") else "\n" + INDENT * depth + "}"
