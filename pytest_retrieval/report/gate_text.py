"""The gate's verdict as text: a one-line headline and the full explanation.

Pure: takes a :class:`~pytest_retrieval.gate.GateResult`, returns text that the
terminal, the JUnit testcase and the Markdown/HTML reports show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabulate import tabulate

from ..baseline import UPDATE_HINT
from ..gate import GateResult, GateRow, WorstQuery
from ..settings import Tolerances

BREACH_HEADERS = (
    "configuration",
    "category",
    "metric",
    "n",
    "baseline",
    "current",
    "delta",
    "95% interval",
    "p (Holm)",
    "allowed",
)


def _num(value: float) -> str:
    return f"{value:.3f}"


def _ids(ids: Sequence[str], grades: Mapping[str, int]) -> str:
    if not ids:
        return "-"
    return ", ".join(f"{d} ({grades.get(d, '-')})" for d in ids)


def _where(row: GateRow) -> str:
    return f"{row.configuration} / {row.category} / {row.metric}"


def headline(result: GateResult, limit: int = 3) -> str:
    """One short line for CI's first glance (JUnit's message, pytest's short summary).

    The worst breaches first, each with its worst queries; the messages otherwise.
    """
    text = f"retrieval gate: {result.verdict.upper()}"
    breached = sorted(result.breached, key=lambda r: (r.delta + r.allowed, r.category))
    if breached:
        parts = []
        for r in breached[:limit]:
            worst = ", ".join(q.id for q in r.worst_queries[:3])
            parts.append(
                f"{_where(r)} {r.baseline:.3f} -> {r.current:.3f} ({r.delta:+.3f}, allowed "
                f"{r.allowed:.3f})" + (f", worst: {worst}" if worst else "")
            )
        more = len(breached) - limit
        text += ": " + "; ".join(parts) + (f"; and {more} more breached rows" if more > 0 else "")
    elif result.messages:
        text += ": " + result.messages[0]
    return text


def _interval(row: GateRow) -> str:
    return "n/a" if row.ci is None else f"[{row.ci[0]:+.3f}, {row.ci[1]:+.3f}]"


def _breach_table(breached: Sequence[GateRow]) -> str:
    table = [
        [
            r.configuration,
            r.category,
            r.metric,
            r.n,
            _num(r.baseline),
            _num(r.current),
            f"{r.delta:+.3f}",
            _interval(r),
            f"{r.p_holm:.3g}",
            _num(r.allowed),
        ]
        for r in breached
    ]
    return tabulate(table, headers=list(BREACH_HEADERS), disable_numparse=True)


def _worst_lines(breached: Sequence[GateRow]) -> list[str]:
    lines: list[str] = []
    for r in breached:
        if not r.worst_queries:
            continue
        lines += [
            "",
            f"queries that dropped most on {_where(r)} (id: baseline -> current; judged results "
            "that moved, rank before→after (grade); lost / gained in the top k (grade)):",
        ]
        lines += [f"  {_worst_line(q)}" for q in r.worst_queries]
    return lines


def _worst_line(q: WorstQuery) -> str:
    parts = [f"{q.id}: {_num(q.baseline)} -> {_num(q.current)}"]
    if q.moved:
        parts.append(
            "moved " + ", ".join(f"{m.id} {m.before}→{m.after} ({m.grade})" for m in q.moved)
        )
    parts += [f"lost {_ids(q.lost, q.grades)}", f"gained {_ids(q.gained, q.grades)}"]
    if q.error:
        parts.append(f"error: {q.error}")
    return "; ".join(parts)


def _notes(result: GateResult) -> list[str]:
    lines: list[str] = []
    improved = result.improved
    if improved:
        lines += ["", "improved beyond the tolerance (run `" + UPDATE_HINT + "` to record it):"]
        for r in improved:
            lines.append(f"  {_where(r)}: {_num(r.baseline)} -> {_num(r.current)} ({r.delta:+.3f})")
    notes = [
        ("added since the baseline (not compared)", result.added),
        ("no longer in the golden set", result.removed),
        (
            "text or judgments changed since the baseline (left out of the comparison; "
            f"re-run `{UPDATE_HINT}` to re-baseline them)",
            result.changed,
        ),
    ]
    for title, ids in notes:
        if ids:
            shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
            lines.append(f"{title}: {shown}")
    return lines


def explain(result: GateResult, tolerance: Tolerances | None = None) -> str:
    """The gate's verdict as text: breaches, worst queries, comparability notes."""
    head = f"retrieval gate: {result.verdict.upper()}"
    if tolerance is not None and result.verdict in ("passed", "failed"):
        head += f" (baseline {result.baseline}, tolerance {tolerance})"
    lines = [head, *(f"  {m}" for m in result.messages)]
    breached = result.breached
    if breached:
        lines += ["", _breach_table(breached), *_worst_lines(breached)]
    lines += _notes(result)
    return "\n".join(lines)
