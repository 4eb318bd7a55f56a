"""The Markdown report's shape: fit for a pull-request comment and a CI job summary. Pure.

What a reviewer needs first comes first: the gate's verdict, what sits beside it (queries
improved / degraded / unchanged, retriever changes), the breached rows, the gate's
messages and the latency budgets exceeded; then everything
else in a collapsed ``<details>``. The whole text stays under GitHub's 65,536-character
comment limit: what does not fit is cut at a line, with a note saying so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tabulate import tabulate

from ..gate import GateRow
from ..quoting import escaped
from ..retriever_metadata import change_lines, shown
from .gate_text import HEADERS, row_cells, verdict_line
from .run_report import RunReport
from .tables import markdown_message, markdown_text

COMMENT_LIMIT = 65_536  # GitHub's limit on a comment's body, in characters
BREACHED_SHOWN = 25  # breached rows in the open part; the details have every one
TITLE = "## Retrieval evaluation"
SUMMARY = "Every table, the failed queries and the gate's full explanation"


LABELS = 3  # the breached rows' name columns: configuration, category, metric


def breached_table(rows: Sequence[GateRow], shown: int = BREACHED_SHOWN) -> str:
    cells = [
        [markdown_text(c) if i < LABELS else c for i, c in enumerate(row_cells(r))]
        for r in rows[:shown]
    ]
    align = ["left"] * LABELS + ["right"] * (len(HEADERS) - LABELS)
    table = tabulate(
        cells, headers=HEADERS, tablefmt="github", disable_numparse=True, colalign=align
    )
    more = len(rows) - shown
    return table + (
        f"\n\n...and {more} more breached {'row' if more == 1 else 'rows'} (in the details below)"
        if more > 0
        else ""
    )


def outcomes_line(report: RunReport) -> str:
    """A line for the queries that failed or errored, which fail the run whatever the
    gate says (its verdict judges the metrics' means); empty when none did."""
    outcomes = [r.outcome for r in report.results.all_records()]
    failed, errored = outcomes.count("failed"), outcomes.count("error")
    if not failed and not errored:
        return ""
    parts = [f"{failed} {'query' if failed == 1 else 'queries'} failed"] if failed else []
    parts += [f"{errored} errored"] if errored else []
    gate = ", whatever the gate's verdict on the metrics' means" if report.gate else ""
    return (
        f"**{' and '.join(parts)}: the run fails on them{gate}** (which and why: the failed "
        "and errored queries, below)"
    )


def head(report: RunReport) -> str:
    """The open part: the verdict, the lines beside it and the breached rows."""
    gate = report.gate
    outcomes = outcomes_line(report)
    if gate is None:
        return TITLE + "\n" + (f"\n{outcomes}\n" if outcomes else "")
    blocks = [[TITLE], [f"**{markdown_text(verdict_line(gate, report.tolerance))}**"]]
    blocks += [[outcomes]] if outcomes else []
    listed = [f"- {markdown_text(f'{n}: {c.text()}')}" for n, c in gate.counts.items()]
    listed += [
        f"- retriever changed since the baseline (still compared): {markdown_text(text)}"
        for text in change_lines(gate.retriever_changes)
    ]
    blocks.append(listed)
    if gate.breached:
        blocks.append([breached_table(gate.listed(gate.breached))])
    said = [*gate.messages, *(breach.message() for breach in gate.latency)]
    if said:  # why it failed, when no row breached: above the fold too
        blocks.append([f"> {markdown_message(m)}" for m in said])
    return "\n\n".join("\n".join(block) for block in blocks if block).rstrip() + "\n"


def retrievers_section(report: RunReport) -> str:
    """What each retriever says about itself, when any says something (Markdown)."""
    rows = [
        f"| {markdown_text(name)} | "
        f"{markdown_text(', '.join(f'{escaped(k)}={shown(v)}' for k, v in meta.items()))} |"
        for name, meta in report.described()
        if meta
    ]
    if not rows:
        return ""
    head = "### retrievers\n\n| configuration | retriever metadata |\n|---|---|\n"
    return head + "\n".join(rows) + "\n"


def code_fence(text: str) -> str:
    """A fence no line of ``text`` can close: longer than any run of backticks in it (a
    configuration named with three would end a fence of three)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _open_fence(lines: Sequence[str]) -> str | None:
    """The fence still open after these lines, or None."""
    fence: str | None = None
    for line in lines:
        if fence is None and line.startswith("```"):
            fence = line[: len(line) - len(line.lstrip("`"))]
        elif fence is not None and line.rstrip() == fence:
            fence = None
    return fence


def _truncate(text: str, budget: int) -> tuple[str, int]:
    """``text`` cut at the last line that fits in ``budget`` characters (an open code
    fence closed again), and how many characters were left out."""
    if len(text) <= budget:
        return text, 0
    cut = text[:budget]
    cut = cut[: cut.rfind("\n") + 1] if "\n" in cut else ""
    fence = _open_fence(cut.splitlines())
    if fence is not None:
        cut += fence + "\n"
    return cut, len(text) - len(cut)


def note(left_out: int, limit: int) -> str:
    return (
        f"\n**Truncated:** {left_out:,} characters left out to stay under the "
        f"{limit:,}-character limit of a pull-request comment; the JSON and HTML reports "
        "(`--retrieval-report`) hold everything.\n"
    )


def pull_request_comment(report: RunReport, body: str, limit: int = COMMENT_LIMIT) -> str:
    """The head, then ``body`` collapsed (open when there is no gate, or no baseline to
    gate against: then the tables are all there is to read), within ``limit``."""
    top = head(report)
    if report.gate is None or report.gate.verdict == "no-baseline":
        opening, closing = "\n", ""
    else:
        opening, closing = f"\n<details><summary>{SUMMARY}</summary>\n\n", "\n</details>\n"
    reserve = len(top) + len(opening) + len(closing) + len(note(len(body), limit)) + 2
    text, left_out = _truncate(body, max(0, limit - reserve))
    tail = note(left_out, limit) if left_out else ""
    whole = top + opening + text + tail + closing
    return whole if len(whole) <= limit else whole[: limit - 1] + "\n"  # a head over the limit
