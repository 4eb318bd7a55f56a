"""Keys given twice in one JSON object, which ``json.loads`` reads as "the last one wins".

Pure. A merge conflict resolved by hand can leave a baseline with two configurations
(or two queries) under one name: read as JSON, the first is silently dropped.

:func:`keys_hold_once` tells at C speed (a ``str.count`` pass) that a text holds no
key twice, given how many keys its parsed value holds: every key of a JSON text has its
own colon, so a text with no more colons (or, where strings hold colons, ``": ``
pieces) than the keys read back lost none. A text it cannot vouch for (a key spaced
otherwise, ``\\": `` inside a string) goes to
:func:`first_repeat`, the exact pass: it parses again, noting repeated keys, and names
the first one with its lines. :class:`RepeatedKeys` is the hook for one JSON line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .common import loads_json

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
# a key's closing quote followed by a colon in any way but ": "
_ODD_COLON = re.compile(r'"(?!: )[ \t\n\r]*:')

Step = str | int  # a key of an object, an index of a list


class RepeatedKeys:
    """An ``object_pairs_hook`` that notes the keys an object gives twice (``keys``);
    ``decoder`` reads JSON with it."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.decoder = json.JSONDecoder(object_pairs_hook=self)

    def __call__(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        out = dict(pairs)
        if len(out) != len(pairs):
            self.keys += _twice(pairs)
        return out


def _twice(pairs: list[tuple[str, object]]) -> list[str]:
    seen: set[str] = set()
    twice = []
    for key, _ in pairs:
        if key in seen:
            twice.append(key)
        seen.add(key)
    return twice


def keys_in(value: object) -> int:
    """How many keys the objects inside a parsed JSON value hold, all told."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            total += len(item)
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return total


def keys_hold_once(text: str, keys: int, head: str = "") -> bool:
    """True when ``text`` certainly holds no key twice, given ``keys``: how many keys its
    parsed value holds (or fewer: a count that leaves some out only makes this say False).

    A key given twice is read once, so the text holds more keys than were read. Every key
    has its own colon, so the text holds no more keys than colons: when those are as many
    as the keys read, none was lost. Colons inside strings (a timestamp, an id) spoil that
    count; then every key followed by ``": `` (no quote meets a colon in another way) makes
    the ``": `` pieces an upper bound instead. ``head``: a piece of text (starting with a
    quote) before whose first occurrence colons inside strings are expected, so ``": ``
    pieces count the keys there from the start. False: not known (look with
    :func:`first_repeat`).
    """
    start = max(text.find(head), 0) if head.startswith('"') else 0
    if start and _ODD_COLON.search(text, 0, start) is not None:
        return False
    head_keys = text.count('": ', 0, start)
    if head_keys + text.count(":", start) == keys:
        return True
    pieces = text.count('": ', start)
    return head_keys + pieces == keys and _ODD_COLON.search(text, start) is None


@dataclass(frozen=True)
class Repeat:
    """A key given twice: the keys of the objects around it, and the lines of both."""

    path: tuple[Step, ...]
    key: str
    first: int
    line: int


class _Marked(dict[str, object]):
    repeated: tuple[str, ...] = ()


def _marked(pairs: list[tuple[str, object]]) -> _Marked:
    out = _Marked(pairs)
    if len(out) != len(pairs):
        out.repeated = tuple(_twice(pairs))
    return out


def first_repeat(text: str) -> Repeat | None:
    """The first key of a (valid) JSON text given twice in one object, or None."""
    hook = RepeatedKeys()
    loads_json(text, object_pairs_hook=hook)
    if not hook.keys:
        return None
    stack: list[tuple[tuple[Step, ...], object]] = [
        ((), loads_json(text, object_pairs_hook=_marked))
    ]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Marked):
            if item.repeated:
                return _located(text, path, item.repeated[0])
            stack.extend(reversed([((*path, k), v) for k, v in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(item)]))
    return None  # pragma: no cover - the hook saw one


def _skip(text: str, pos: int) -> int:
    found = _SPACE.match(text, pos)
    assert found is not None  # the pattern matches the empty string
    return found.end()


def _members(text: str, pos: int) -> list[tuple[str, int, int]]:
    """(key, where the key starts, where its value starts) of each member of the object
    at ``pos``, in the text's order."""
    members = []
    pos = _skip(text, pos + 1)
    while text[pos] != "}":
        key, after = _DECODER.raw_decode(text, pos)
        start = _skip(text, _skip(text, after) + 1)  # past the colon
        members.append((key, pos, start))
        _, end = _DECODER.raw_decode(text, start)
        pos = _skip(text, end)
        pos = _skip(text, pos + 1) if text[pos] == "," else pos
    return members


def _items(text: str, pos: int) -> list[int]:
    """Where each item of the list at ``pos`` starts."""
    items = []
    pos = _skip(text, pos + 1)
    while text[pos] != "]":
        items.append(pos)
        _, end = _DECODER.raw_decode(text, pos)
        pos = _skip(text, end)
        pos = _skip(text, pos + 1) if text[pos] == "," else pos
    return items


def _located(text: str, path: tuple[Step, ...], key: str) -> Repeat:
    pos = _skip(text, 0)
    for step in path:  # json.loads keeps a repeated key's last value: follow it
        if isinstance(step, int):
            pos = _items(text, pos)[step]
        else:
            pos = [start for name, _, start in _members(text, pos) if name == step][-1]
    found = [at for name, at, _ in _members(text, pos) if name == key]
    first, second = (text.count("\n", 0, at) + 1 for at in found[:2])
    return Repeat(path, key, first, second)


def key_line(text: str, path: tuple[Step, ...]) -> int | None:
    """The line of the key (or list item) at ``path`` in a valid JSON text (the last of a
    key given twice, as ``json.loads`` keeps); None when the text has nothing there."""
    pos = _skip(text, 0)
    at = pos
    for step in path:
        if isinstance(step, int):
            items = _items(text, pos) if text[pos] == "[" else []
            if not 0 <= step < len(items):
                return None
            at = pos = items[step]
        else:
            found = (
                [(k, v) for name, k, v in _members(text, pos) if name == step]
                if (text[pos] == "{")
                else []
            )
            if not found:
                return None
            at, pos = found[-1]
    return text.count("\n", 0, at) + 1
