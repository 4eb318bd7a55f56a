"""The terminal's lines about the history log: the change since the previous run. Pure."""

from __future__ import annotations

import textwrap

from ..history import SincePrevious
from .summary import fit


def label_text(label: str) -> str:
    return f"labelled '{label}'" if label else "without a label"


def _when(since: SincePrevious) -> str:
    previous = since.previous
    parts = [previous.stamp.time.replace("T", " ").removesuffix("+00:00") + " UTC"]
    if previous.commit_short:
        parts.append(f"commit {previous.commit_short}")
    return ", ".join(parts)


def _cell(before: float | None, after: float | None) -> str:
    if after is None:
        return "n/a"
    if before is None:
        return f"{after:.3f} (new)"
    return f"{after:.3f} ({after - before:+.3f})"


def since_lines(since: SincePrevious | None, label: str, width: int) -> list[str]:
    """``all`` means now and their change since the previous run of the same label."""
    if since is None:
        return [f"retrieval log: the first run {label_text(label)}; the next one compares with it"]
    title = f"since the previous run {label_text(label)} ({_when(since)}): all, now (change)"
    lines = textwrap.wrap(title, width, subsequent_indent="  ", break_on_hyphens=False)
    for note in since.notes:
        lines += textwrap.wrap(
            note, width, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
        )
    if not since.changes:
        return lines
    metrics = list(dict.fromkeys(c.metric for c in since.changes))
    cells: dict[str, dict[str, str]] = {}
    for change in since.changes:
        row = cells.setdefault(change.configuration, {})
        row[change.metric] = _cell(change.before, change.after)
    rows = [[name, *(row.get(m, "n/a") for m in metrics)] for name, row in cells.items()]
    return lines + fit(["configuration", *metrics], rows, width, keep=1, left=1, values="right")
