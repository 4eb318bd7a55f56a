"""The plugin's usage errors, wrapped to the terminal as its other messages are.

Small, as the entry point loads it (a usage error can come before ``--retrieval-eval``).
"""

from __future__ import annotations

import shutil

import pytest

from ..report.wrapping import fitted

ERROR_PREFIX = "ERROR: "  # what pytest prints before a usage error's text


def terminal_width() -> int:
    """The width pytest prints a usage error at (its writer on standard error: the
    terminal's columns, or $COLUMNS; 80 when narrower than 40 or not a terminal)."""
    width = shutil.get_terminal_size(fallback=(80, 24)).columns
    return width if width >= 40 else 80


def usage_error(text: str) -> pytest.UsageError:
    """A usage error of the plugin's: each line longer than the terminal (after pytest's
    ``ERROR: ``) wrapped at spaces, its continuations indented 4, like an item's failure."""
    return pytest.UsageError(fitted(text, terminal_width() - len(ERROR_PREFIX)))
