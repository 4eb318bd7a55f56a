"""A user's value as a message shows it: one line, of a readable length.

Pure. A value pasted by mistake (a whole file in an ini key, a list that lost its line
breaks) may be thousands of characters long; a message quotes its start and says how
long it is, so the message itself stays readable and names the key and the fix.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any, TypeVar, cast

T = TypeVar("T")

SHOWN = 60  # characters of a value shown in full; a longer one is cut
LABEL_MAX = 28  # longer category or group names are shortened in the terminal


def quoted(text: str, quote: str = "'", width: int = SHOWN) -> str:
    """``text`` in quotes, its control characters escaped; past ``width`` characters
    its first ``width - 20``, ``...`` and its length: ``'xxxx...' (3,000 characters)``."""
    if len(text) <= width:
        return f"{quote}{escaped(text)}{quote}"
    return f"{quote}{escaped(text[: width - 20])}...{quote} ({len(text):,} characters)"


def escaped(text: str) -> str:
    """Text with its control characters (and lone surrogates) escaped as Python writes
    them (a tab as ``\\t``): one line in any message, whatever the user's value holds."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def encodable(text: str) -> str:
    """``text`` with each lone surrogate (text decoded with surrogateescape: a file
    name's byte 0xff is ``\\udcff``) written as its escape, which UTF-8 can encode, as
    a file and an xdist worker's report to the controller need (either refuses a lone
    surrogate, stopping the run). In JSON text the escape is the same value to a JSON
    reader. Text without one comes back as it is."""
    if text.isascii():  # the common case, at C speed
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def encodable_data(value: T) -> T:
    """Plain data (dicts, lists, tuples, text, numbers) with every text in it as
    :func:`encodable` gives it; ``value`` itself when none holds a lone surrogate."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, TypeError, ValueError):
        return cast(T, _encodable_walk(value))
    return value


def _encodable_walk(value: object) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {_encodable_walk(k): _encodable_walk(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(map(_encodable_walk, value))
    return value


def short(label: str, limit: int = LABEL_MAX) -> str:
    """A label cut to ``limit`` characters (with "…"), for the terminal's tables."""
    return label if len(label) <= limit else label[: limit - 1] + "…"


def shortened(labels: Iterable[str], limit: int = LABEL_MAX) -> dict[str, str]:
    """Each label as :func:`short` cuts it, but for those whose cut forms would read
    alike (``hybrid-reranker-cross-encod…`` for two configurations): they stay whole,
    so no two rows of a table look the same."""
    whole = list(dict.fromkeys(labels))
    counts = Counter(short(label, limit) for label in whole)
    return {x: short(x, limit) if counts[short(x, limit)] == 1 else x for x in whole}


def cut_apart(labels: Iterable[str], limit: int) -> dict[str, str]:
    """Each label cut to ``limit`` characters to fit a narrow terminal, its end cut with
    "…"; those whose cut forms would read alike (``model-v1`` and ``model-v2``) cut in
    the middle instead, keeping both ends; whole if those still read alike."""
    whole = list(dict.fromkeys(labels))
    cut = {x: short(x, limit) for x in whole}
    for x in [x for x in whole if list(cut.values()).count(cut[x]) > 1]:
        tail = (limit - 1) // 2
        cut[x] = x if len(x) <= limit else x[: limit - 1 - tail] + "…" + x[len(x) - tail :]
    counts = Counter(cut.values())
    return {x: cut[x] if counts[cut[x]] == 1 else x for x in whole}


def result_ids(ids: Iterable[str]) -> dict[str, str]:
    """Result ids as the terminal shows them in a ranking: control characters escaped (an
    id holding an escape sequence or a line break, from a corpus, would recolour the
    terminal or break the table) and past :data:`SHOWN` characters cut, as
    :func:`shortened` cuts (two ids that would read alike stay whole)."""
    whole = list(dict.fromkeys(ids))
    cut = shortened([escaped(d) for d in whole], SHOWN)
    return {d: cut[escaped(d)] for d in whole}


QUERY_SHOWN = 200  # characters of a query's text in a failure or --retrieval-show


def query_text(text: str) -> str:
    """A query's text as its item's failure shows it: its ``repr``; past
    :data:`QUERY_SHOWN` characters its start, ``...`` and its length (a passage used as
    a query may be a megabyte, every line of which the failure would print)."""
    if len(text) <= QUERY_SHOWN:
        return repr(text)
    return f"{text[: QUERY_SHOWN - 20]!r}... ({len(text):,} characters)"


# letters whose names start with a vowel sound, said alone or in an acronym: "an F", "an NDArray"
_VOWEL_SOUND_LETTERS = frozenset("AEFHILMNORSX")
_YOU_SOUND = ("uni", "use", "usa", "uti", "uu", "uri", "one")  # "a Unicode", "a OneHot"


def with_article(name: str) -> str:
    """``name`` after "a" or "an", as it is said: a type's name in a message ("the
    retriever returned an EmbeddingFrame", "an F", "an NDArray", "a DataFrame")."""
    if not name:
        return name
    spelled = len(name) == 1 or name[:2].isupper()  # an initial read letter by letter
    if spelled:
        vowel = name[0].upper() in _VOWEL_SOUND_LETTERS
    else:
        vowel = name[0].lower() in "aeiou" and not name.lower().startswith(_YOU_SOUND)
    return f"{'an' if vowel else 'a'} {name}"
