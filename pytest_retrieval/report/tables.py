"""The summary tables, rendered with tabulate for the terminal, Markdown or HTML.

Pure: takes an :class:`~pytest_retrieval.evaluation.Evaluation`, returns text.
Terminal cells read ``0.712 ±0.041``; Markdown and HTML cells ``0.712 [0.671, 0.753]``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

from ..evaluation import Evaluation
from ..model import ALL
from ..slices import Slice


def fmt(value: float | None) -> str:
    """Three decimals, ``n/a`` for a mean with nothing in it."""
    return "n/a" if value is None else f"{value:.3f}"


def cell(slice_: Slice, metric: str, markdown: bool) -> str:
    value = slice_.row.values.get(metric)
    if value is None:
        return "n/a"
    interval = slice_.intervals.get(metric)
    if interval is None or interval.method in ("none", "empty"):
        return fmt(value)
    if markdown:
        return f"{value:.3f} [{interval.lo:.3f}, {interval.hi:.3f}]"
    return f"{value:.3f} ±{interval.half_width:.3f}"


def _table(rows: list[list[Any]], headers: Sequence[str], style: str, metrics: int) -> str:
    return tabulate(
        rows,
        headers=list(headers),
        tablefmt=TABLEFMT[style],
        disable_numparse=True,
        colalign=("left", "right", *("right",) * metrics),
    )


def configuration_table(evaluation: Evaluation, configuration: str, style: str = "terminal") -> str:
    """Rows: each category, then ``all`` (and ``all (weighted)``); columns: n and each metric."""
    metrics = evaluation.metrics
    brackets = style != "terminal"
    rows = [
        [name, s.row.n, *(cell(s, m, brackets) for m in metrics)]
        for name, s in evaluation.rows(configuration)
    ]
    return _table(rows, ["category", "n", *metrics], style, len(metrics))


def side_by_side_table(evaluation: Evaluation, style: str = "terminal") -> str:
    """The configurations' ``all`` rows, one row per configuration."""
    metrics = evaluation.metrics
    rows = []
    for configuration in evaluation.summaries:
        s = dict(evaluation.rows(configuration))[ALL]
        rows.append([configuration, s.row.n, *(cell(s, m, style != "terminal") for m in metrics)])
    return _table(rows, ["configuration", "n", *metrics], style, len(metrics))


def comparison_table(evaluation: Evaluation, style: str = "terminal") -> str:
    """Each configuration minus the reference, per category and ``all``."""
    comparisons = evaluation.comparisons
    if comparisons is None:
        return ""
    metrics = evaluation.metrics
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for row in comparisons.rows:
        lo, hi = row.ci if row.ci is not None else (0.0, 0.0)
        mark = " *" if row.significant else ""
        text = f"{row.delta:+.3f} [{lo:+.3f}, {hi:+.3f}]{mark}"
        if style != "terminal":
            text += f" p={row.p_holm:.3g} {row.wins}/{row.ties}/{row.losses}"
        cells.setdefault((row.configuration, row.category), {})[row.metric] = text
    ordered = sorted(cells, key=lambda key: (key[0], key[1] != ALL, key[1]))
    rows = [[c, cat, *(cells[(c, cat)].get(m, "n/a") for m in metrics)] for c, cat in ordered]
    return tabulate(
        rows,
        headers=["configuration", "category", *metrics],
        tablefmt=TABLEFMT[style],
        disable_numparse=True,
        colalign=("left", "left", *("right",) * len(metrics)),
    )


def group_table(evaluation: Evaluation, title: str, configuration: str, style: str) -> str:
    metrics = evaluation.metrics
    rows = [
        [name, s.row.n, *(cell(s, m, style != "terminal") for m in metrics)]
        for name, s in evaluation.groups[title][configuration].items()
    ]
    return _table(rows, ["group", "n", *metrics], style, len(metrics))


TABLEFMT = {"terminal": "simple", "markdown": "github", "html": "html"}


def render(evaluation: Evaluation, *, style: str = "terminal") -> str:
    """Every table of the run and the warnings; style: terminal, markdown or html."""
    parts: list[str] = []

    def title(text: str) -> None:
        if style == "html":
            parts.append(f"<h3>{html.escape(text)}</h3>")
        else:
            parts.extend([f"### {text}" if style == "markdown" else text, ""])

    def table(text: str) -> None:
        parts.extend([text, ""])

    for configuration in evaluation.summaries:
        title(f"configuration: {configuration}")
        table(configuration_table(evaluation, configuration, style))
    if len(evaluation.summaries) > 1:
        title(f"configurations side by side ({ALL})")
        table(side_by_side_table(evaluation, style))
    if evaluation.comparisons is not None:
        ref = evaluation.comparisons.reference
        title(
            f"paired comparison with {ref} (delta = configuration - {ref}, 95% interval; "
            "* significant after Holm correction"
            + ("; p = Holm-corrected p-value, wins/ties/losses)" if style != "terminal" else ")")
        )
        table(comparison_table(evaluation, style))
    for group_title, group in evaluation.groups.items():
        for configuration in group:
            title(f"configuration: {configuration}, by {group_title}")
            table(group_table(evaluation, group_title, configuration, style))
    if evaluation.warnings:
        title("warnings")
        if style == "html":
            items = "".join(f"<li>{html.escape(w)}</li>" for w in evaluation.warnings)
            parts += [f"<ul>{items}</ul>", ""]
        else:
            parts += [f"- {w}" for w in evaluation.warnings] + [""]
    return "\n".join(parts).rstrip() + "\n"
