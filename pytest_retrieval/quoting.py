"""A user's value as a message shows it: one line, of a readable length.

Pure. A value pasted by mistake (a whole file in an ini key, a list that lost its line
breaks) may be thousands of characters long; a message quotes its start and says how
long it is, so the message itself stays readable and names the key and the fix.
"""

from __future__ import annotations

SHOWN = 60  # characters of a value shown in full; a longer one is cut


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


def result_id(doc: str) -> str:
    """A result id as the terminal shows it in a ranking: its control characters escaped
    (an id holding an escape sequence or a line break, from a corpus, would recolour the
    terminal or break the table) and, past :data:`SHOWN` characters, cut."""
    return quoted(doc, "")


QUERY_SHOWN = 200  # characters of a query's text in a failure or --retrieval-show


def query_text(text: str) -> str:
    """A query's text as its item's failure shows it: its ``repr``; past
    :data:`QUERY_SHOWN` characters its start, ``...`` and its length (a passage used as
    a query may be a megabyte, every line of which the failure would print)."""
    if len(text) <= QUERY_SHOWN:
        return repr(text)
    return f"{text[: QUERY_SHOWN - 20]!r}... ({len(text):,} characters)"
