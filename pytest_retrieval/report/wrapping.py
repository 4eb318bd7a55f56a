"""A note wrapped to a terminal's width, as the plugin and the command line print them.

Pure. Notes name paths, query ids and options: they are broken at spaces only, so
each of those stays whole (and can be copied), and a line's continuation is indented
under it.
"""

from __future__ import annotations

import textwrap

NARROWEST = 40  # columns a note is wrapped to however narrow the terminal says it is


def note_lines(text: str, width: int, more: int = 2) -> list[str]:
    """``text`` wrapped to ``width`` columns (one left free: a line filling the last
    column makes some terminals wrap it again), its later lines indented ``more``
    spaces more than its first; at spaces only, so words (paths, ids, options) stay whole."""
    indent = " " * (len(text) - len(text.lstrip(" ")) + more)
    return textwrap.wrap(
        text, max(width - 1, NARROWEST), subsequent_indent=indent, break_long_words=False,
        break_on_hyphens=False,
    ) or [text]  # fmt: skip


def fitted(text: str, width: int, more: int = 4) -> str:
    """``text`` with each of its lines longer than ``width`` wrapped by :func:`note_lines`
    (continuations indented ``more``), the others as they are: an item's failure, a
    usage error."""
    return "\n".join(
        part
        for line in text.splitlines()
        for part in (note_lines(line, width, more) if len(line) >= width else [line])
    )
