"""One query's document ids held as one string, for the files that hold millions.

Pure. A recording or a TREC run of a large evaluation holds tens of millions of
results. Held one string per id, each id costs its own object (about 55 bytes for a
short id) and a pointer; held through a table of every id met (each id once), the
look-up misses the CPU's caches (0.9 us an id). Joined with a separator no id holds,
a query's ids are one string, built and split again at C speed when they are used.
An id that holds the separator is kept in a tuple of its own ids instead.
"""

from __future__ import annotations

from collections.abc import Sequence

SEPARATOR = "\0"  # between the ids of one query held as one string

Held = str | tuple[str, ...]


def joined(docs: Sequence[str]) -> Held:
    """The ids as held: one string, or a tuple when an id holds the separator (or none)."""
    text = SEPARATOR.join(docs)
    if docs and text.count(SEPARATOR) == len(docs) - 1:
        return text
    return tuple(docs)


def split(held: Held) -> list[str]:
    """The ids, best first, as a new list."""
    return held.split(SEPARATOR) if isinstance(held, str) else list(held)


__all__ = ["SEPARATOR", "Held", "joined", "split"]
