"""The terminal summary: short by default, more with ``-v``, less with ``-q``; fits the width.

Pure: takes an :class:`~pytest_retrieval.evaluation.Evaluation` and a width, returns lines.

- default: one table per metric, categories by configurations side by side, a ``*`` on
  cells that differ significantly from the reference; then the significant differences;
- ``-v``: also each configuration's table, the ``all`` rows side by side and every
  comparison with its interval, Holm p and wins/ties/losses;
- ``-q``: the ``all`` rows only.

A table wider than the terminal is split into several, each repeating the row labels.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Literal

from tabulate import tabulate

from ..comparisons import Comparisons, clear_of_zero, holm_scope
from ..evaluation import Evaluation
from ..io.common import counted
from ..model import ALL, WEIGHTED
from ..quoting import cut_apart, short, shortened
from ..slices import Slice
from .tables import (
    LATENCY_TITLE,
    Table,
    cell,
    comparison_table,
    comparison_title,
    configuration_table,
    group_table,
    latency_cells,
    latency_table,
    side_by_side_table,
)

Verbosity = Literal["quiet", "normal", "verbose"]


def fit(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    width: int,
    keep: int = 1,
    left: int = 1,
    values: str = "right",
    narrow: bool = True,
) -> list[str]:
    """A table as lines no wider than ``width``: the value columns split into as many
    tables as it takes, each with the first ``keep`` columns (the first ``left`` of them
    left-aligned labels, the others right-aligned, the values ``values``-aligned), the
    labels and headers cut to fit unless not ``narrow`` (a file report keeps names whole)."""
    headers, cells = list(headers), [[str(c) for c in row] for row in rows]
    if narrow:
        headers, cells = _narrowed(headers, cells, width, keep, left)

    def render(columns: list[int]) -> list[str]:
        aligns = ["left" if i < left else "right" if i < keep else values for i in columns]
        table = tabulate(
            [[r[i] for i in columns] for r in cells],
            headers=[headers[i] for i in columns],
            disable_numparse=True,
            colalign=aligns,
        )
        return table.splitlines()

    groups: list[list[int]] = [[]]
    for i in range(keep, len(headers)):
        trial = [*range(keep), *groups[-1], i]
        if groups[-1] and max(len(line) for line in render(trial)) > width:
            groups.append([])
        groups[-1].append(i)
    lines: list[str] = []
    for group in groups:
        lines += [*([""] if lines else []), *render([*range(keep), *group])]
    return lines


_GAP = 2  # tabulate's space between columns, and beside a header (its minimum padding)
_LABEL_MIN = 8  # a label is cut no shorter than this (with "…")
_HEADER_WHOLE = 12  # a value column's header this short is cut only when nothing else helps


def _column_width(header: str, cells: Sequence[Sequence[str]], i: int) -> int:
    """A column's width as tabulate lays it out: its widest cell, or its header padded."""
    return max([len(header) + _GAP, *(len(row[i]) for row in cells)])


def _label_limits(widths: list[int], floor: int, width: int, keep: int, left: int) -> list[int]:
    """How wide each label column (the first ``left``) may be for the kept columns and
    a value column ``floor`` wide to fit in ``width``: the widest cut first, by one."""
    limits = widths[:left]
    excess = sum(widths[:keep]) + _GAP * keep + floor - width
    while excess > 0 and max(limits, default=0) > _LABEL_MIN:
        limits[limits.index(max(limits))] -= 1
        excess -= 1
    return limits


def _narrowed(
    headers: Sequence[str], cells: list[list[str]], width: int, keep: int, left: int
) -> tuple[list[str], list[list[str]]]:
    """The headers and cells cut with "…" so the kept columns and any one value column
    fit in ``width``: the labels (the first ``left`` columns: configurations,
    categories), the widest first, as far as a value column needs; then a value
    column's header (a configuration's name over its column) to the room left. Values
    are never cut; the file reports keep every name whole."""
    headers = list(headers)
    widths = [_column_width(h, cells, i) for i, h in enumerate(headers)]
    values = range(keep, len(headers))
    floor = max(  # the narrowest a value column gets: its cells, a short header whole
        (_column_width(headers[i][:_HEADER_WHOLE], cells, i) for i in values), default=0
    )
    for i, limit in enumerate(_label_limits(widths, floor, width, keep, left)):
        if limit < widths[i]:
            cut = cut_apart([row[i] for row in cells], limit)
            cells = [[*row[:i], cut[row[i]], *row[i + 1 :]] for row in cells]
            headers[i] = short(headers[i], max(limit - _GAP, 1))
    kept = sum(_column_width(headers[i], cells, i) for i in range(keep)) + _GAP * keep
    for i in values:
        if len(headers[i]) + _GAP > width - kept:
            headers[i] = short(headers[i], max(width - kept - _GAP, 1))
    return headers, cells


def _significant(evaluation: Evaluation) -> set[tuple[str, str, str]]:
    rows = evaluation.comparisons.rows if evaluation.comparisons is not None else []
    return {(r.configuration, r.category, r.metric) for r in rows if r.significant}


def _metric_cell(s: Slice | None, metric: str, n: int, marked: bool) -> str:
    if s is None or s.row.values.get(metric) is None:
        return "n/a"
    text = cell(s, metric, markdown=False, n=s.row.count(metric)) + ("*" if marked else "")
    count = s.row.count(metric)
    return text if count == n else f"{text} (n={count})"


def metric_table(evaluation: Evaluation, metric: str, width: int) -> list[str]:
    """One metric: a row per category (then ``all``), a column per configuration."""
    configurations = list(evaluation.summaries)
    rows_of = {c: dict(evaluation.rows(c)) for c in configurations}
    labels = [name for name, _ in evaluation.rows(configurations[0])]
    labels += [n for c in configurations for n in rows_of[c] if n not in labels]
    labels = sorted(labels, key=lambda n: (n in (ALL, WEIGHTED), n == WEIGHTED, n))
    significant = _significant(evaluation)
    shown = shortened(labels)
    rows = []
    for label in labels:
        found = [rows_of[c].get(label) for c in configurations]
        n = max((s.row.count(metric) for s in found if s is not None), default=0)
        cells = [
            _metric_cell(s, metric, n, (c, label, metric) in significant)
            for c, s in zip(configurations, found, strict=True)
        ]
        rows.append([shown[label], n, *cells])
    return fit(["category", "n", *configurations], rows, width, keep=2, left=1, values="left")


def _wrapped(text: str, width: int, first: str = "", later: str = "  ") -> list[str]:
    """``text`` wrapped at spaces only: a name (a configuration, a category) wider than
    the line stays whole, on a line of its own, rather than cut in two."""
    return textwrap.wrap(
        text, width, initial_indent=first, subsequent_indent=later, break_on_hyphens=False,
        break_long_words=False,
    )  # fmt: skip


def significant_lines(evaluation: Evaluation, width: int) -> list[str]:
    """The differences from the reference that are significant after Holm correction."""
    comparisons = evaluation.comparisons
    if comparisons is None:
        return []
    found: dict[tuple[str, str], list[str]] = {}
    names = cut_apart((r.configuration for r in comparisons.rows), max(width - 30, 12))
    for row in comparisons.rows:
        if row.significant:
            key = (row.configuration, row.metric)
            found.setdefault(key, []).append(f"{short(row.category)} {row.delta:+.3f}")
    ref = comparisons.reference
    if not found:
        text = f"no difference from {ref} is significant after Holm correction"
        lines = _wrapped(text, width)
    else:
        text = f"significant differences from {ref} (* above; Holm-corrected):"
        lines = _wrapped(text, width)
    for (configuration, metric), parts in found.items():
        text = f"{names[configuration]} {metric}: " + ", ".join(parts)
        lines += _wrapped(text, width, "  ", "      ")
    return lines


def _clear_but_not_significant(comparisons: Comparisons, width: int) -> list[str]:
    """Under the comparison table (-v): why a difference whose interval is clear of 0 can
    lack its ``*``: the interval is the row's own bootstrap, the star a sign-flip test's
    p corrected across every row."""
    clear = [r for r in comparisons.rows if not r.significant and clear_of_zero(r.ci)]
    if not clear:
        return []
    text = (
        f"{counted(len(clear), 'difference')} {'has' if len(clear) == 1 else 'have'} a 95% "
        "interval clear of 0 but no *: a * needs a paired sign-flip test's p, "
        f"Holm-corrected across {holm_scope(comparisons.rows, 'rows')}, below retrieval_alpha "
        "(each p is in the Markdown and JSON reports)"
    )
    return textwrap.wrap(
        text, width, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False
    )


def _titled(title: str, lines: list[str], width: int) -> list[str]:
    return [
        "",
        *textwrap.wrap(title, width, subsequent_indent="  ", break_on_hyphens=False),
        *lines,
    ]


def normal_lines(evaluation: Evaluation, width: int) -> list[str]:
    reference = evaluation.comparisons.reference if evaluation.comparisons is not None else None
    legend = "mean ±half its 95% interval"
    legend += f"; * differs from {reference} (Holm)" if reference else ""
    lines: list[str] = []
    for metric in evaluation.metrics:
        lines += _titled(f"{metric}: {legend}", metric_table(evaluation, metric, width), width)
    if evaluation.latency:
        lines += ["", *latency_lines(evaluation, width)]
    if len(evaluation.summaries) > 1:
        lines += ["", *significant_lines(evaluation, width)]
    return lines[1:]


def latency_lines(evaluation: Evaluation, width: int) -> list[str]:
    """Latency in a few lines (the whole table comes with -v), broken between the
    configurations, not between a name and its numbers, nor inside a name: one too long
    for the line is cut with "…", as the tables cut it (a part still wider than a line
    is broken at its spaces)."""
    cells = latency_cells(evaluation)  # one unit for all
    numbers = max((len("/".join(v)) for *v, _ in cells.values()), default=0)
    shared = len(" (batch share)") if any(c[-1] for c in cells.values()) else 0
    names = cut_apart(cells, max(width - numbers - shared - 4, 12))
    parts = []
    for name, (*values, batch) in cells.items():
        part = f"{names[name]} {'/'.join(values)}" + (" (batch share)" if batch else "")
        parts.append(part.replace(" ", _GLUE) if len(part) < width - 2 else part)
    text = "latency p50/p95/max per query: " + "; ".join(parts)
    lines = _wrapped(text, width)
    return [line.replace(_GLUE, " ") for line in lines]


_GLUE = "\x00"  # a space textwrap must not break at


def fitted(table: Table, width: int) -> list[str]:
    """A :class:`~pytest_retrieval.report.tables.Table` fitted to the width."""
    with_n = table.headers[table.labels : table.labels + 1] == ["n"]
    values = "right" if with_n else "left"  # comparison cells end in " *" or nothing
    return fit(table.headers, table.rows, width, table.labels + with_n, table.labels, values)


def verbose_lines(evaluation: Evaluation, width: int) -> list[str]:
    """-v: each configuration's table, the ``all`` rows side by side, every comparison."""
    lines: list[str] = []
    for configuration in evaluation.summaries:
        table = configuration_table(evaluation, configuration, "terminal")
        lines += _titled(f"configuration: {configuration}", fitted(table, width), width)
    if len(evaluation.summaries) > 1:
        title = f"configurations side by side ({ALL})"
        lines += _titled(title, fitted(side_by_side_table(evaluation, "terminal"), width), width)
    if evaluation.comparisons is not None:
        title = comparison_title(evaluation.comparisons.reference, "terminal")
        lines += _titled(title, fitted(comparison_table(evaluation, "terminal"), width), width)
        lines += _clear_but_not_significant(evaluation.comparisons, width)
    if evaluation.latency:
        lines += _titled(LATENCY_TITLE, fitted(latency_table(evaluation, "terminal"), width), width)
    return lines


def group_lines(evaluation: Evaluation, width: int) -> list[str]:
    lines: list[str] = []
    for group_title, group in evaluation.groups.items():
        for configuration in group:
            table = group_table(evaluation, group_title, configuration, "terminal")
            title = f"configuration: {configuration}, by {group_title}"
            lines += _titled(title, fitted(table, width), width)
    return lines


def summary_lines(evaluation: Evaluation, width: int, verbosity: Verbosity) -> list[str]:
    """Every line of the tables part of the terminal summary."""
    if verbosity == "quiet":  # and the tables asked for by name (--retrieval-group-by)
        return fitted(side_by_side_table(evaluation, "terminal"), width) + group_lines(
            evaluation, width
        )
    lines = normal_lines(evaluation, width) + group_lines(evaluation, width)
    if verbosity == "verbose":
        lines += verbose_lines(evaluation, width)
    return lines
