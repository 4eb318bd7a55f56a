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
        return f"{quote}{_escaped(text)}{quote}"
    return f"{quote}{_escaped(text[: width - 20])}...{quote} ({len(text):,} characters)"


def _escaped(text: str) -> str:
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
