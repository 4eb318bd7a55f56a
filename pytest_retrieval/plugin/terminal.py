"""What the controller prints after the run: the tables, notes, the update and the verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..baseline import UpdateOutcome
from ..evaluation import Evaluation
from ..gate import GateResult
from ..model import Results
from ..report.tables import render

if TYPE_CHECKING:
    from pathlib import Path

    from _pytest.terminal import TerminalReporter

VERDICT_COLOURS = {"passed": "green", "no-baseline": "yellow", "skipped": "yellow"}


class Summary(Protocol):
    """What the terminal summary reads from the session."""

    results: Results
    gate: GateResult | None
    update: UpdateOutcome | None
    notes: list[str]
    written: list[Path]

    @property
    def evaluation(self) -> Evaluation: ...

    @property
    def baseline_shown(self) -> str: ...

    def gate_text(self) -> str: ...


def _update_lines(update: UpdateOutcome, shown: str) -> list[tuple[str, bool]]:
    """(line, warn) pairs describing a baseline update."""
    written = ", ".join(f"{c}: {n}" for c, n in sorted(update.updated.items()))
    lines = [("", False), (f"retrieval baseline written: {shown} ({written} queries)", False)]
    kept = ", ".join(f"{c}: {n}" for c, n in sorted(update.kept.items()))
    notes = (
        ("kept from the previous baseline (not run now, or errored)", kept, False),
        (
            "the previous baseline had other settings and was replaced",
            "; ".join(update.reset),
            True,
        ),
        ("dropped, no longer in any golden file", ", ".join(update.dropped), True),
        (
            "not written, their retriever errored (previous entries kept)",
            ", ".join(update.errored),
            True,
        ),
    )
    lines += [(f"  {title}: {items}", warn) for title, items, warn in notes if items]
    return lines


def write_summary(tr: TerminalReporter, session: Summary) -> None:
    """The ``retrieval evaluation`` section of the terminal summary."""
    if not session.results and session.gate is None and not session.notes:
        return
    tr.write_sep("=", "retrieval evaluation")
    if session.results:
        for line in render(session.evaluation).splitlines():
            tr.write_line(line)
    errors = sum(1 for r in session.results.all_records() if r.outcome == "error")
    if errors:
        tr.write_line(
            f"{errors} item(s) errored: their queries score 0.0 on every metric", yellow=True
        )
    for note in session.notes:
        tr.write_line(note, yellow=True)
    if session.update is not None:
        for line, warn in _update_lines(session.update, session.baseline_shown):
            tr.write_line(line, **({"yellow": True} if warn else {}))
    if session.gate is not None:
        tr.write_line("")
        colour = VERDICT_COLOURS.get(session.gate.verdict, "red")
        for i, line in enumerate(session.gate_text().splitlines()):
            tr.write_line(line, **({colour: True, "bold": True} if i == 0 else {}))
    for path in session.written:
        tr.write_line(f"retrieval report written: {path}")
