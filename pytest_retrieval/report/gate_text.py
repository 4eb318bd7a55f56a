"""The gate's verdict as text: a one-line headline and the full explanation.

Pure: takes a :class:`~pytest_retrieval.gate.GateResult`, returns text that the
terminal (fitted to its width), the JUnit testcase and the Markdown/HTML reports
(unwrapped, every column) show. The worst queries are grouped by query: each names
every metric it dropped on, then its judged results that moved, what left and what
entered its top k.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tabulate import tabulate

from ..comparisons import clear_of_zero, holm_scope, holm_tests
from ..gate import GateResult, GateRow, WorstQuery
from ..io.common import counted
from ..quoting import quoted, result_ids, short
from ..retriever_metadata import change_lines
from ..settings import BOOTSTRAP, Tolerances
from .summary import fit
from .tables import drop_texts, p_text

HEADERS = (
    "configuration", "category", "metric", "n", "baseline", "current", "delta", "allowed",
    "95% interval", "p (Holm)",
)  # fmt: skip


def _num(value: float) -> str:
    return f"{value:.3f}"


def drop_and_allowed(row: GateRow) -> str:
    """``-0.102, allowed 0.020``: see :func:`drop_texts`."""
    delta, allowed = drop_texts(row.delta, row.allowed)
    return f"{delta}, allowed {allowed}"


UNJUDGED_NAMED = 5  # past this many unjudged results lost (or gained), they are counted


def _ids(ids: Sequence[str], grades: Mapping[str, int]) -> str:
    """Results lost or gained, each with its grade; the unjudged ones counted when there
    are many (metrics cut at 100 over sparse judgments lose dozens that move nothing)."""
    if not ids:
        return "-"
    shown = result_ids(ids)
    unjudged = sum(1 for d in ids if d not in grades)
    if unjudged <= UNJUDGED_NAMED:
        return ", ".join(f"{shown[d]} ({grades.get(d, '-')})" for d in ids)
    named = [f"{shown[d]} ({grades[d]})" for d in ids if d in grades]
    return ", ".join([*named, f"{unjudged:,} unjudged"])


def _where(row: GateRow) -> str:
    return f"{row.configuration} / {row.category} / {row.metric}"


def headline(result: GateResult, limit: int = 3) -> str:
    """One short line for CI's first glance (JUnit's message, pytest's short summary).

    The worst breaches first, each with its worst queries, then the latency budgets
    exceeded, ``limit`` in all, and a count of those left out; the messages otherwise.
    A configuration whose every query errored is named first: its breaches follow.
    """
    text = f"retrieval gate: {result.verdict.upper()}"
    breached = sorted(
        result.listed(result.breached), key=lambda r: (r.delta + r.allowed, r.category)
    )
    parts = [_breach_part(r) for r in breached] + [b.message() for b in result.latency]
    lead = ""
    if result.all_errored:  # the cause before its effects
        names, whose = (
            ", ".join(result.all_errored),
            "its" if len(result.all_errored) == 1 else "their",
        )
        lead = f"every query of {names} errored (each item says why), so {whose} rows fall to 0; "
    if parts:
        more_rows = max(0, len(breached) - limit)
        more_budgets = len(result.latency) - max(0, min(len(result.latency), limit - len(breached)))
        left_out = [counted(more_rows, "more breached row")] if more_rows else []
        if more_budgets:
            left_out.append(counted(more_budgets, "more latency budget exceeded",
                                    "more latency budgets exceeded"))  # fmt: skip
        text += ": " + lead + "; ".join(parts[:limit])
        text += f"; and {' and '.join(left_out)}" if left_out else ""
    elif result.messages:
        text += ": " + result.messages[0]
    return text


def _breach_part(r: GateRow) -> str:
    worst = ", ".join(q.id for q in r.worst_queries[:3])
    return f"{_where(r)} {r.baseline:.3f} -> {r.current:.3f} ({drop_and_allowed(r)})" + (
        f", worst: {worst}" if worst else ""
    )


def _interval(row: GateRow) -> str:
    return "n/a" if row.ci is None else f"[{row.ci[0]:+.3f}, {row.ci[1]:+.3f}]"


def row_cells(r: GateRow, label: Callable[[str], str] = str) -> list[str]:
    """A gate row's cells under :data:`HEADERS`."""
    return _cells(r, label)


def _cells(r: GateRow, label: Callable[[str], str] = str) -> list[str]:
    delta, allowed = drop_texts(r.delta, r.allowed)
    return [
        r.configuration, label(r.category), r.metric, str(r.n), _num(r.baseline), _num(r.current),
        delta, allowed, _interval(r), p_text(r.p_holm),
    ]  # fmt: skip


def row_table(rows: Sequence[GateRow], width: int | None, narrow: bool = True) -> list[str]:
    """The rows as a table, split in two (the row's names repeated) on a narrow terminal,
    long names cut to fit it (``narrow``; a file report keeps them whole)."""
    if width is None:
        cells = [_cells(r) for r in rows]
        return tabulate(cells, headers=HEADERS, disable_numparse=True).splitlines()
    cells = [_cells(r, short if narrow else str) for r in rows]
    return fit(HEADERS, cells, width, keep=3, left=3, narrow=narrow)


def _wrap(text: str, width: int | None, indent: str, more: str) -> list[str]:
    if width is None:
        return [indent + text]
    lines = textwrap.wrap(
        text, width, initial_indent=indent, subsequent_indent=more, break_on_hyphens=False
    )
    return lines or [indent]


@dataclass
class _Dropped:
    """One query's drops on the breached rows of one configuration."""

    configuration: str
    query: WorstQuery
    category: str
    metrics: dict[str, tuple[float, float]] = field(default_factory=dict)  # (before, after)

    @property
    def drops(self) -> list[str]:
        return [f"{m} {_num(was)} -> {_num(now)}" for m, (was, now) in self.metrics.items()]


def _dropped(breached: Sequence[GateRow]) -> list[_Dropped]:
    """Each query that dropped most on a breached row, once per configuration: the
    breached rows' metrics first (most breached first), then every other it dropped on."""
    found: dict[tuple[str, str], _Dropped] = {}
    for row in sorted(breached, key=lambda r: (r.delta, r.configuration, r.category)):
        for q in row.worst_queries:
            key = (row.configuration, q.id)
            entry = found.setdefault(key, _Dropped(row.configuration, q, q.category))
            entry.metrics.setdefault(row.metric, (q.baseline, q.current))
            if (q.k or 0) < (entry.query.k or 0):
                entry.query = q  # the narrowest top k shows what moved most plainly
    for entry in found.values():
        for metric, values in entry.query.dropped_on.items():
            entry.metrics.setdefault(metric, values)
    return list(found.values())


def _unnamed_lines(result: GateResult, dropped: Sequence[_Dropped], width: int | None) -> list[str]:
    """Per configuration, the degraded queries the list above does not name: they dropped
    on rows within the tolerance, or past the worst shown per row."""
    lines = []
    for name, counts in result.counts.items():
        if name in result.all_errored:  # its error is named above, and is why
            continue
        named = len({d.query.id for d in dropped if d.configuration == name})
        more, what = counts.degraded - named, "more degraded" if named else "degraded"
        if more > 0:
            text = (
                f"{name}: {counted(more, f'{what} query', f'{what} queries')} not "
                "named here (on rows within the tolerance, or past the worst shown per "
                "breached row, as many as --retrieval-diff N sets; the JSON report has every "
                "query's values)"
            )
            lines += _wrap(text, width, "  ", "    ")
    return lines


def _intended_lines(
    result: GateResult, dropped: Sequence[_Dropped], width: int | None
) -> list[str]:
    """What to do when the breached drops are meant: the update that records them; when
    some of the queries named errored (a stale recording, a service down), that an update
    keeps their previous entries (it writes no error), so they come first."""
    hint = result.update_command()
    if not hint or not result.blocking:
        return []
    errored = sorted({d.query.id for d in dropped if d.query.error})
    part = result.update_part if result.partial else None  # this run's -k/-m, repeated
    command = part or hint
    text = f"if these drops are intended, run `{command}` and commit the baseline"
    if part:
        text += " (it records what this selection runs and keeps the rest as it is)"
    elif result.partial:  # the command alone runs, and records, every query
        text += (
            " (with this run's selection, its -k, -m or paths, added to it, it records only "
            "the queries compared here; as it stands, it runs and records every query)"
        )
    if errored:
        text = (
            f"{counted(len(errored), 'query', 'queries')} named above errored "
            f"({', '.join(errored[:3])}{', ...' if len(errored) > 3 else ''}): an update "
            "keeps their previous entries, so the gate fails on them again until they "
            "answer; fix them first (for a stale recording: record again); then, if the "
            f"other drops are intended, run `{command}` and commit the baseline"
        )
    return ["", *_wrap(text, width, "", "  ")]


def _worst_lines(result: GateResult, dropped: Sequence[_Dropped], width: int | None) -> list[str]:
    if not dropped:  # none named (--retrieval-diff 0): still counted
        unnamed = _unnamed_lines(result, dropped, width)
        return ["", *unnamed] if unnamed else []
    lines = [
        "",
        "queries that dropped most (metric baseline -> current; then, in the top k, the "
        "judged results that moved, rank before→after (grade), and what was lost and gained "
        "(grade; - = unjudged)):",
    ]
    lines = [lines[0], *_wrap(lines[1], width, "", "")]
    for d in dropped:
        head = f"{d.configuration} {d.query.id} ({d.category}): {', '.join(d.drops)}"
        lines += _wrap(head, width, "  ", "      ")
        lines += _wrap(worst_detail(d.query), width, "    ", "      ")
    return lines + _unnamed_lines(result, dropped, width)


def worst_detail(q: WorstQuery) -> str:
    """What changed in one query's top k: moved, lost, gained (and the error, if any)."""
    parts = []
    if q.moved:
        shown = result_ids(m.id for m in q.moved)
        moves = (f"{shown[m.id]} {m.before}→{m.after} ({m.grade})" for m in q.moved)
        parts.append("moved " + ", ".join(moves))
    parts += [f"lost {_ids(q.lost, q.grades)}", f"gained {_ids(q.gained, q.grades)}"]
    if q.error:
        parts.append(f"error: {q.error}")
    top = f"top {q.k}: " if q.k is not None else ""
    return top + "; ".join(parts)


def _absolute_p_lines(result: GateResult, width: int | None) -> list[str]:
    """Absolute mode: why a breached row's p (Holm) can read 1 beside an interval clear of
    0 (few queries, Holm across every gated row); the tolerance, not p, fails a row."""
    limit = result.min_significant_n
    small = [
        r
        for r in result.listed(result.breached)
        if limit is not None and r.n < limit and not r.significant
    ]
    if result.mode != "absolute" or not small:
        return []
    some = "1 breached row has" if len(small) == 1 else f"{len(small)} breached rows have"
    text = (
        f"p (Holm) is corrected across {holm_scope(result.rows, 'gated rows')}; {some} "
        f"fewer than {limit} queries, and a row of so few can never be significant after "
        "that, even with an interval clear of 0. In absolute mode the tolerance fails a row, "
        "not p; retrieval_gate_mode = significant fails only significant drops"
    )
    return ["", *_wrap(text, width, "", "")]


def _unchanged_too(result: GateResult) -> str:
    """Which gated configurations did not change at all (their rows still count in Holm's
    correction), and how to gate the others alone; "" when every one changed."""
    deltas: dict[str, list[float]] = {}
    for row in result.rows:
        deltas.setdefault(row.configuration, []).append(row.delta)
    still = [c for c, values in deltas.items() if not any(values)]
    changed = [c for c in deltas if c not in still]
    if not still or not changed:
        return ""
    return (
        f" (those of {', '.join(quoted(c) for c in still)} too, which did not change on "
        f"any row: retrieval_gate_configurations = {' '.join(changed)} gates the others alone)"
    )


def _tests(result: GateResult) -> str:
    """The tests Holm's correction counts: ``6 rows``, or ``3 tests (of 6 rows)`` when a
    category holding every query is its ``all`` row's test."""
    tests = holm_tests(result.rows)
    rows = len(result.rows)
    return f"{rows} rows" if tests == rows else f"{tests} tests (of {rows} rows)"


def _floor_lines(result: GateResult, width: int | None) -> list[str]:
    """Significant mode with too few sign-flip draws: a row whose test is sampled (15 to
    256 queries, more than 14 of them moved) can never be significant, nor fail."""
    floor = result.sampled_floor
    sampled = [r for r in result.rows if r.method == "sampled"]
    if floor is None or not sampled:
        return []
    text = (
        f"a sampled sign-flip p is never under 1/(retrieval_bootstrap + 1) = {floor:.2g}: "
        f"with {_tests(result)} corrected by Holm, no drop on the "
        f"{counted(len(sampled), 'gated row')} whose test is sampled (more than 14 of "
        "their queries moved) can ever be significant, so the significant mode cannot fail "
        f"them; raise retrieval_bootstrap (the default is {BOOTSTRAP.default})"
    )
    return ["", *_wrap(text, width, "", "")]


def _significance_lines(result: GateResult, width: int | None, narrow: bool) -> list[str]:
    lines: list[str] = _absolute_p_lines(result, width)
    if result.mode != "significant":
        return lines
    quiet = result.listed(result.not_significant)
    if quiet:
        lines += ["", f"dropped beyond the tolerance but not significantly ({len(quiet)}):"]
        lines += row_table(quiet, width, narrow)
        clear = sum(1 for r in quiet if clear_of_zero(r.ci))
        if clear:
            text = (
                f"{clear} of these have an interval clear of 0: each interval is its row's "
                f"own, while p (Holm) is corrected across {holm_scope(result.rows, 'gated rows')}"
                f"{_unchanged_too(result)}, which asks more of each row"
            )
            lines += _wrap(text, width, "", "")
    small = result.too_small
    if small:
        text = (
            f"{counted(len(small), 'gated row')} {'has' if len(small) == 1 else 'have'} fewer "
            f"than {result.min_significant_n} queries: with "
            f"{_tests(result)} corrected by Holm, no drop on them can ever be "
            "significant, so the significant mode cannot fail them (gate fewer rows with "
            "retrieval_gate_scope = all or retrieval_gate_metrics, add queries, or use "
            "retrieval_gate_mode = absolute)"
        )
        lines += ["", *_wrap(text, width, "", "")]
    return lines + _floor_lines(result, width)


def _improved_title(result: GateResult, hint: str) -> str:
    """The title over the rows that improved beyond the tolerance. An update records
    every row: it is never offered as if nothing dropped."""
    dropped = "breached" if result.breached else "dropped" if result.not_significant else ""
    if dropped:
        return (
            "improved beyond the tolerance (record it with the baseline once the "
            f"{dropped} rows above are fixed or accepted):"
        )
    return (
        f"improved beyond the tolerance (run `{hint}` to record it):"
        if hint
        else ("improved beyond the tolerance:")
    )


def _notes(result: GateResult, width: int | None) -> list[str]:
    lines: list[str] = []
    hint = result.update_command()  # "" for compare, whose baseline is a report
    improved = result.listed(result.improved)
    if improved:
        lines += ["", *_wrap(_improved_title(result, hint), width, "", "  ")]
        for r in improved:
            text = f"{_where(r)}: {_num(r.baseline)} -> {_num(r.current)} ({r.delta:+.3f})"
            lines += _wrap(text, width, "  ", "      ")
    before = {r.before for r in result.renamed}
    after = {r.after for r in result.renamed}
    notes = [
        (
            "renamed since the baseline (same text and judgments; compared once the baseline "
            "is updated)",
            [r.text() for r in result.renamed],
        ),
        (
            "not in the baseline (added since, or errored when it was written), not compared",
            [_added(result, q) for q in result.added if q not in after],
        ),
        ("no longer in the golden set", [q for q in result.removed if q not in before]),
        (
            f"in {result.baseline} but skipped in {result.other} (skip: or a skip mark), so "
            "not compared"
            if result.other
            else "in the baseline but skipped in this run (skip: or a skip mark), so not compared",
            result.skipped,
        ),
        (
            "text or judgments changed since the baseline (left out of the comparison"
            + (
                f"; re-run `{hint}` to re-baseline them)"
                if (hint := result.update_command())
                and len(result.unanswered) < len(result.changed)
                else ")"
            ),
            result.changed,
        ),
        (
            "of those, errored in this run, so an update keeps their old entries until they "
            "answer (a recording made before the edit holds the old text: record it again)",
            result.unanswered,
        ),
    ]
    notes.append(
        (
            "moved to another category since the baseline (each compared in its new one, "
            "on both sides)",
            [r.text() for r in result.recategorized],
        )
    )
    for title, ids in notes:
        if ids:
            shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
            lines += _wrap(f"{title}: {shown}", width, "", "  ")
    return lines


def _added(result: GateResult, qid: str) -> str:
    """A query not in the baseline, with the configurations it is new in when the others
    have it (and compared it): ``bearer (remote)``."""
    names = result.added_only_in.get(qid)
    return f"{qid} ({', '.join(names)})" if names else qid


def verdict_line(result: GateResult, tolerance: Tolerances | None = None) -> str:
    """``retrieval gate: PASSED (baseline ..., tolerance 0.02, mode absolute)``."""
    head = f"retrieval gate: {result.verdict.upper()}"
    if result.budgets_only:
        return f"{head} (no baseline at {result.baseline}: only the latency budgets were held)"
    if tolerance is None or result.verdict not in ("passed", "failed"):
        return head
    head += f" (baseline {result.baseline}, tolerance {tolerance}, mode {result.mode}"
    if not result.blocking:
        head += ": findings only, the exit code is not changed"
    quiet = len(result.listed(result.not_significant))  # as the list below counts them
    if quiet:
        head += f"; {counted(quiet, 'row')} dropped beyond the tolerance but not significantly"
    if result.skipped:
        skipped = counted(len(result.skipped), "baselined query", "baselined queries")
        if result.other:
            skipped = f"{counted(len(result.skipped), 'query', 'queries')} of {result.baseline}"
        head += f"; {skipped} skipped{' in ' + result.other if result.other else ''}, not compared"
    return head + ")"


def verdict_lines(result: GateResult, tolerance: Tolerances | None, width: int | None) -> list[str]:
    """The verdict line, its details on the next lines when the terminal is narrow."""
    head = verdict_line(result, tolerance)
    if width is None or len(head) <= width or " (" not in head:
        return [head]
    word, rest = head.split(" (", 1)
    return [word, *_wrap(rest.removesuffix(")"), width, "  ", "  ")]


def _within(ids: Sequence[str], limit: int = 5) -> str:
    """The degraded queries of a configuration no row of which breached: which they are,
    since no list of worst queries names them."""
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"degraded within the tolerance: {', '.join(ids[:limit])}{more}"


def beside_verdict(result: GateResult, width: int | None = None) -> list[str]:
    """What goes right under the verdict: per compared configuration how many queries
    improved, degraded or stayed, and what each retriever says changed since the baseline."""
    lines: list[str] = []
    breached = {r.configuration for r in result.breached}
    for name, counts in result.counts.items():
        lines += _wrap(f"{name}: {counts.text()}", width, "  ", "    ")
        if counts.degraded_ids and name not in breached:  # else the worst are named below
            lines += _wrap(_within(counts.degraded_ids), width, "    ", "      ")
    changes = change_lines(result.retriever_changes)
    if changes:
        lines += _wrap("retriever changed since the baseline (still compared):", width, "  ", "  ")
        for text in changes:
            lines += _wrap(text, width, "    ", "      ")
    return lines


def errored_rows_lines(
    result: GateResult, breached: Sequence[GateRow], width: int | None
) -> list[str]:
    """The breached rows of the configurations every query of which errored, counted, not
    listed: each is 0 by that error (named above), and listing them, with every query as
    one that dropped most, buried the cause under its effects."""
    rows = [r for r in breached if r.configuration in result.all_errored]
    if not rows:
        return []
    names = ", ".join(dict.fromkeys(r.configuration for r in rows))
    text = (
        f"{counted(len(rows), 'breached row')} of {names} not listed: every query errored, "
        "so each row is 0 by that alone (the JSON report's gate.rows has them)"
    )
    return _wrap(text, width, "  ", "    ")


# the pages' explanation (HTML, Markdown) is wrapped at this many columns: a page's code
# box holds it without scrolling (the terminal's is wrapped to its width, JUnit's not)
REPORT_WIDTH = 100


def explain(
    result: GateResult,
    tolerance: Tolerances | None = None,
    width: int | None = None,
    rows_shown: bool = False,
    narrow: bool = True,
) -> str:
    """The gate's verdict as text: breaches, worst queries, comparability notes.

    ``width``: the terminal's (or :data:`REPORT_WIDTH` for the reports), to wrap and
    narrow to; None: not wrapped.
    ``rows_shown``: every row was printed just above (``compare``): the breached rows'
    table is not printed again, only their worst queries.
    ``narrow``: names in tables cut to fit ``width`` (a terminal); not for a file report.
    """
    lines = verdict_lines(result, tolerance, width) + beside_verdict(result, width)
    for message in result.messages:
        lines += _wrap(message, width, "  ", "    ")
    breached = result.listed(result.breached)
    lines += errored_rows_lines(result, breached, width)
    breached = [r for r in breached if r.configuration not in result.all_errored]
    dropped = _dropped(breached)  # the queries named, and the advice's errored ones
    if breached:
        if not rows_shown:
            lines += ["", *row_table(breached, width, narrow)]
        else:  # named, or the reader must find them among every row printed above
            named = "; ".join(
                f"{r.configuration} / {r.category} / {r.metric} "
                f"{' (allowed '.join(drop_texts(r.delta, r.allowed))})"
                for r in breached
            )
            lines += _wrap(f"breached: {named}", width, "  ", "    ")
        lines += _worst_lines(result, dropped, width)
    for breach in result.latency:
        lines += _wrap(breach.message(), width, "  ", "    ")
    lines += _significance_lines(result, width, narrow)
    lines += _notes(result, width)
    if breached:
        lines += _intended_lines(result, dropped, width)
    return "\n".join(lines)
