"""What the controller prints after the run: the tables, notes, the update and the verdict.

Fitted to pytest's terminal width; short by default, more with ``-v``, less with ``-q``
(:mod:`pytest_retrieval.report.summary`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import pytest

from ..baseline import UpdateOutcome
from ..evaluation import Evaluation
from ..gate import GateResult
from ..io.common import counted, queries_over
from ..model import Results
from ..report.gate_text import errored_rows_lines, explain, verdict_lines
from ..report.history_text import since_lines
from ..report.summary import Verbosity, summary_lines
from ..report.wrapping import fitted, note_lines
from ..settings import Tolerances

if TYPE_CHECKING:
    from pathlib import Path

    from _pytest.terminal import TerminalReporter

    from .gathered import Gathered
    from .outputs import History

VERDICT_COLOURS = {"passed": "green", "no-baseline": "yellow", "skipped": "yellow"}


class Summary(Protocol):
    """What the terminal summary reads from the session."""

    results: Results
    gate: GateResult | None
    update: UpdateOutcome | None
    notes: list[str]
    escalated: list[str]
    advice_shown: int
    errored_items: set[str]  # node ids of the items holding a query that errored
    written: list[Path]
    history: History | None
    annotations: list[str]
    gathered: Gathered

    @property
    def evaluation(self) -> Evaluation: ...

    @property
    def baseline_shown(self) -> str: ...

    @property
    def tolerance(self) -> Tolerances: ...

    @property
    def coarse_items(self) -> bool: ...  # an item holds a category or a shard of queries


def verbosity_of(tr: TerminalReporter) -> Verbosity:
    level = tr.config.getoption("verbose", 0)
    return "quiet" if level < 0 else "verbose" if level > 0 else "normal"


def _update_lines(update: UpdateOutcome, shown: str) -> list[tuple[str, bool]]:
    """(line, warn) pairs describing a baseline update."""
    written = ", ".join(f"{c}: {n}" for c, n in sorted(update.updated.items()))
    noun = "query" if list(update.updated.values()) == [1] else "queries"
    head = f"retrieval baseline written: {shown} ({written} {noun})"
    if update.unchanged:
        head = (
            f"retrieval baseline unchanged: {shown} ({written} {noun} as recorded): not "
            "rewritten, its provenance (time, commit) kept"
        )
    lines = [("", False), (head, False)]
    kept = ", ".join(f"{c}: {n}" for c, n in sorted(update.kept.items()))
    notes = (
        ("kept from the previous baseline (not run now, or errored)", kept, False),
        (
            "the previous baseline had other settings and was replaced",
            _reset_text(update) if update.reset else "",
            True,
        ),
        ("dropped, no longer in any golden file", ", ".join(update.dropped), True),
        (
            f"configurations dropped, no longer in {update.gone_from}",
            _counts(update.gone),
            True,
        ),
        (
            "configurations dropped with it, with no query in this run",
            _counts(update.replaced_away),
            True,
        ),
        (
            "not written, their retriever errored (previous entries kept)",
            _some(update.errored),
            True,
        ),
    )
    lines += [(f"  {title}: {items}", warn) for title, items, warn in notes if items]
    if update.incomparable:
        lines.append(
            (
                "  means not compared with the previous baseline's: numbers made under "
                f"another {', '.join(update.incomparable)} are not comparable",
                True,
            )
        )
    if update.moved:  # an update does not gate: what it accepts, for its reviewer
        shown = "; ".join(m.text() for m in update.moved[:MOVES_SHOWN])
        more = (
            f"; {len(update.moved) - MOVES_SHOWN} more" if len(update.moved) > MOVES_SHOWN else ""
        )
        dropped = any(m.after < m.before for m in update.moved)
        lines.append(
            (f"  means over every baselined query, before -> after: {shown}{more}", dropped)
        )
    return lines


def _reset_text(update: UpdateOutcome) -> str:
    """The settings a reset changes: the conventions that differ (gain, ...) and the
    metrics added and dropped, by name (the means of those both have are the moves)."""
    parts = [d for d in update.reset if d.split(":", 1)[0] in update.incomparable]
    if update.metrics_added:
        parts.append(f"metrics added: {_quoted(update.metrics_added)}")
    if update.metrics_dropped:
        parts.append(f"metrics dropped: {_quoted(update.metrics_dropped)}")
    return "; ".join(parts or update.reset)


def _quoted(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names)


def _counts(configurations: Mapping[str, int]) -> str:
    """``bm25 (39 queries), dense (1 query)``."""
    return ", ".join(f"{c} ({counted(n, 'query', 'queries')})" for c, n in configurations.items())


MOVES_SHOWN = 6
ERRORED_SHOWN = 10  # errored queries named by an update (a broken index errors them all)


def _some(items: list[str]) -> str:
    """The first :data:`ERRORED_SHOWN` items and how many more (each errored item is
    among the run's failures, with its error)."""
    more = len(items) - ERRORED_SHOWN
    return ", ".join(items[:ERRORED_SHOWN]) + (
        f" and {more} more (each is among the failures above)" if more > 0 else ""
    )


def _advice_lines(session: Summary, summary_shown: bool) -> list[tuple[str, str | None]]:
    count = session.advice_shown
    lines: list[tuple[str, str | None]] = [
        (f"advice turned into an error by -W or filterwarnings: {text}", "red")
        for text in session.escalated
    ]
    if count and not session.escalated:
        where = (
            "in the warnings summary above"
            if summary_shown
            else "not shown: the warnings summary is off (--disable-warnings, -p no:warnings)"
        )
        lines.append((f"{counted(count, 'retrieval warning')} {where}", None))
    errors = [
        (r.configuration, r.id) for r in session.results.all_records() if r.outcome == "error"
    ]
    if errors:
        items = len(session.errored_items)
        lines.append((_errored(errors, items, session.coarse_items), "yellow"))
        lines += [(line, "red") for line in _wholly_errored(session.results)]
    return lines + [(note, "yellow") for note in session.notes]


def _wholly_errored(results: Results) -> list[str]:
    """A line for each configuration every evaluated query of which errored (an index
    that is down, a wrong URL): its means are all 0.0, not a measure of its quality,
    and its first error says why (up to its first '; ', where a fix would follow)."""
    first: dict[str, str] = {}
    fine: set[str] = set()
    for r in results.all_records():
        if r.outcome == "error":  # what went wrong, not its fix (the failure above has it)
            error = (r.error or "an error").split("; ", 1)[0]
            first.setdefault(r.configuration, error if len(error) <= 160 else error[:150] + "...")
        elif r.evaluated:
            fine.add(r.configuration)
    return [
        f"every query of configuration '{name}' errored ({error}): its means are 0.0 by "
        "that, not by its rankings"
        for name, error in first.items()
        if name not in fine
    ]


def _errored(errors: list[tuple[str, str]], items: int, coarse: bool) -> str:
    """The errors' line: items when each is one query, else queries (one of several
    configurations once) in so many items."""
    if not coarse or not items:
        their = "its query scores" if len(errors) == 1 else "their queries score"
        return f"{counted(len(errors), 'item')} errored: {their} 0.0 on every metric"
    count, queries = queries_over(errors)
    they = "it scores" if count == 1 else "they score"
    return f"{queries} errored in {counted(items, 'item')}: {they} 0.0 on every metric"


def _shown_lines(tr: TerminalReporter, session: Summary) -> None:
    """``--retrieval-show``: each matching query, configuration by configuration."""
    shown = sorted(
        (r for r in session.results.all_records() if r.detail),
        key=lambda r: (r.id, session.results.configurations().index(r.configuration)),
    )
    for record in shown:
        tr.write_line("")
        for line in fitted_text(tr.config, record.detail or "").splitlines():  # as a failure is
            tr.write_line(line)


def _gate_lines(tr: TerminalReporter, session: Summary, width: int) -> None:
    gate = session.gate
    if gate is None:
        return
    tr.write_line("")
    colour = VERDICT_COLOURS.get(gate.verdict, "red") if gate.blocking else "yellow"
    colour = "green" if gate.verdict == "passed" else colour
    if verbosity_of(tr) == "quiet":
        for i, line in enumerate(verdict_lines(gate, session.tolerance, width)):
            tr.write_line(line, **({colour: True, "bold": True} if i == 0 else {}))
        listed = gate.listed(gate.breached)
        shown = [r for r in listed if r.configuration not in gate.all_errored]
        if shown:  # a configuration whose every query errored: its rows are counted alone
            tr.write_line(f"  {counted(len(shown), 'row')} breached: run without -q to see them")
        for line in errored_rows_lines(gate, listed, width):
            tr.write_line(line)
        for breach in gate.latency:  # why it failed, as the breached rows are counted
            for line in note_lines(f"  {breach.headline()} (retrieval_latency_budget)", width):
                tr.write_line(line)
        said = gate.messages[:1] if gate.verdict == "no-baseline" else []
        for line in (x for m in said for x in note_lines(f"  {m}", width)):
            tr.write_line(line)  # no testcase says where it looked, nor the fix
        return
    for i, line in enumerate(explain(gate, session.tolerance, width).splitlines()):
        tr.write_line(line, **({colour: True, "bold": True} if i == 0 else {}))


def _history_lines(tr: TerminalReporter, session: Summary, width: int) -> None:
    """``--retrieval-log``: the change since the previous run of the same label."""
    history = session.history
    if history is None or not history.appended or verbosity_of(tr) == "quiet":
        return
    tr.write_line("")
    for line in since_lines(history.since, history.label, width):
        tr.write_line(line)


def full_width(config: pytest.Config) -> int:
    """The terminal's width; 80 without pytest's terminal reporter (``-p no:terminal``)."""
    try:
        return config.get_terminal_writer().fullwidth
    except (AssertionError, AttributeError):
        return 80


def fitted_text(config: pytest.Config, text: str, taken: int = 0) -> str:
    """An item's failure text, each line longer than the terminal wrapped
    (:func:`~pytest_retrieval.report.wrapping.fitted`, indented 4 more). ``taken``:
    the columns pytest prints before each line (12 for a note under an exception)."""
    return fitted(text, full_width(config) - taken)


def _kind_lines(tr: TerminalReporter, session: Summary) -> None:
    """-v: how each configuration's retriever is called, a line each."""
    kinds = session.gathered.kinds
    names = [c for c in session.results.configurations() if c in kinds]
    if names:
        tr.write_line("")
        tr.write_line("retrievers, as the plugin calls them:")
    width = tr.config.get_terminal_writer().fullwidth
    for name in names:
        for line in note_lines(f"  {name}: {kinds[name].text()}", width):
            tr.write_line(line)


def write_summary(tr: TerminalReporter, session: Summary) -> None:
    """The ``retrieval evaluation`` section of the terminal summary."""
    if not (session.results or session.gate is not None or session.notes or session.written):
        return
    width = tr.config.get_terminal_writer().fullwidth
    tr.write_sep("=", "retrieval evaluation")
    if session.results:
        for line in summary_lines(session.evaluation, width, verbosity_of(tr)):
            tr.write_line(line)
        if verbosity_of(tr) == "verbose":
            _kind_lines(tr, session)
    _shown_lines(tr, session)
    summary_shown = tr.hasopt("w") and bool(tr.stats.get("warnings"))
    advice = _advice_lines(session, summary_shown)
    if advice and session.results:
        tr.write_line("")  # apart from the last table
    for text, colour in advice:
        for line in note_lines(text, width):
            tr.write_line(line, **({colour: True} if colour else {}))
    if session.update is not None:
        for text, warn in _update_lines(session.update, session.baseline_shown):
            for line in note_lines(text, width) if text else [text]:
                tr.write_line(line, **({"yellow": True} if warn else {}))
    _history_lines(tr, session, width)
    _gate_lines(tr, session, width)
    for path in session.written:  # as given, from the folder pytest was run in
        tr.write_line(f"retrieval report written: {_from_here(tr.config, path)}")
    if session.history is not None and session.history.appended:
        tr.write_line(f"retrieval log appended: {session.history.shown}")
    for command in session.annotations:  # GitHub reads these whole: never wrapped
        tr.write_line(command)


def _from_here(config: pytest.Config, path: Path) -> str:
    """``path`` from the folder pytest was run in when it is below it (as the option gave
    it, ``reports/r.json``), else whole."""
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)
