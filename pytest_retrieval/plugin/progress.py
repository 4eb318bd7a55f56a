"""Progress of a long fetch, in pytest's terminal style.

A coarse item (``retrieval_items = category`` or ``shard:N``) may fetch thousands of
queries; pytest shows nothing until the item ends. Once an item has fetched for
:data:`DELAY` seconds, a short status follows pytest's own progress on the current
line (`` [bm25: 640/10,000 queries, 320/s]``), updated at most every :data:`EVERY`
seconds and erased before pytest writes the item's outcome. Only on a terminal, in
the process that owns it (never in an xdist worker), and never under ``-q``.

The status goes to the terminal writer's file directly, with output capturing
suspended as pytest's live logging does it, so pytest's own reckoning of the current
line (which places its ``[ 42%]``) is left exactly as it was and nothing of it ends
up in the item's captured output.
"""

from __future__ import annotations

import contextlib
import time
from typing import IO

import pytest

DELAY = 1.0  # seconds an item fetches before its progress shows
EVERY = 0.2  # seconds between updates


class Progress:
    """A status at the end of the terminal's current line while one item fetches."""

    def __init__(self, config: pytest.Config, label: str, total: int):
        self.label, self.total = label, total
        self.start = self.last = time.perf_counter()
        self.shown = 0
        self._tw: object | None = None
        self._file: IO[str] | None = None
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or hasattr(config, "workerinput") or config.get_verbosity() < 0:
            return
        if not getattr(reporter, "isatty", False):
            return
        self._tw = getattr(reporter, "_tw", None)
        self._file = getattr(self._tw, "_file", None)
        self._capture = config.pluginmanager.get_plugin("capturemanager")

    def update(self, done: int) -> None:
        """``done`` of the item's queries are answered."""
        if self._file is None:
            return
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < DELAY or now - self.last < EVERY:
            return
        self.last = now
        rate = done / elapsed
        text = f" [{self.label}: {done:,}/{self.total:,} queries, {rate:,.0f}/s]"
        used = getattr(self._tw, "width_of_current_line", 0)
        room = int(getattr(self._tw, "fullwidth", 80)) - int(used) - 1
        self.clear()
        if len(text) <= room:
            self._write(text)
            self.shown = len(text)

    def clear(self) -> None:
        """Erase the status (before pytest writes on the line again)."""
        if self.shown:
            n, self.shown = self.shown, 0
            self._write("\b" * n + " " * n + "\b" * n)

    def _write(self, text: str) -> None:
        assert self._file is not None
        capture = getattr(self._capture, "global_and_fixture_disabled", None)
        try:
            with capture() if capture is not None else contextlib.nullcontext():
                self._file.write(text)
                self._file.flush()
        except (OSError, ValueError):  # a closed or broken terminal: no more progress
            self._file = None
