"""The summary tables, rendered with tabulate: terminal (``simple``) or Markdown (``github``).

Pure: takes an :class:`~pytest_retrieval.evaluation.Evaluation`, returns text.
Terminal cells read ``0.712 ±0.041``; Markdown cells ``0.712 [0.671, 0.753]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

from .aggregate import ALL
from .evaluation import Evaluation, Slice


def fmt(value: float | None) -> str:
    """Three decimals, ``n/a`` for a mean with nothing in it."""
    return "n/a" if value is None else f"{value:.3f}"


def cell(slice_: Slice, metric: str, markdown: bool) -> str:
    value = slice_.row.values.get(metric)
    if value is None:
        return "n/a"
    interval = slice_.intervals.get(metric)
    if interval is None or interval.method == "none":
        return fmt(value)
    if markdown:
        return f"{value:.3f} [{interval.lo:.3f}, {interval.hi:.3f}]"
    return f"{value:.3f} ±{interval.half_width:.3f}"


def _table(rows: list[list[Any]], headers: Sequence[str], tablefmt: str, metrics: int) -> str:
    return tabulate(
        rows,
        headers=list(headers),
        tablefmt=tablefmt,
        disable_numparse=True,
        colalign=("left", "right", *("right",) * metrics),
    )


def configuration_table(evaluation: Evaluation, configuration: str, markdown: bool = False) -> str:
    """Rows: each category, then ``all`` (and ``all (weighted)``); columns: n and each metric."""
    metrics = evaluation.metrics
    rows = [
        [name, s.row.n, *(cell(s, m, markdown) for m in metrics)]
        for name, s in evaluation.rows(configuration)
    ]
    return _table(rows, ["category", "n", *metrics], _fmt(markdown), len(metrics))


def side_by_side_table(evaluation: Evaluation, markdown: bool = False) -> str:
    """The configurations' ``all`` rows, one row per configuration."""
    metrics = evaluation.metrics
    rows = []
    for configuration in evaluation.summaries:
        s = dict(evaluation.rows(configuration))[ALL]
        rows.append([configuration, s.row.n, *(cell(s, m, markdown) for m in metrics)])
    return _table(rows, ["configuration", "n", *metrics], _fmt(markdown), len(metrics))


def comparison_table(evaluation: Evaluation, markdown: bool = False) -> str:
    """Each configuration minus the reference, per category and ``all``."""
    comparisons = evaluation.comparisons
    if comparisons is None:
        return ""
    metrics = evaluation.metrics
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for row in comparisons.rows:
        lo, hi = row["ci"]
        mark = " *" if row["significant"] else ""
        text = f"{row['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}]{mark}"
        if markdown:
            text += f" p={row['p_holm']:.3g} {row['wins']}/{row['ties']}/{row['losses']}"
        cells.setdefault((row["configuration"], row["category"]), {})[row["metric"]] = text
    ordered = sorted(cells, key=lambda key: (key[0], key[1] != ALL, key[1]))
    rows = [[c, cat, *(cells[(c, cat)].get(m, "n/a") for m in metrics)] for c, cat in ordered]
    return tabulate(
        rows,
        headers=["configuration", "category", *metrics],
        tablefmt=_fmt(markdown),
        disable_numparse=True,
    )


def group_table(evaluation: Evaluation, title: str, configuration: str, markdown: bool) -> str:
    metrics = evaluation.metrics
    rows = [
        [name, s.row.n, *(cell(s, m, markdown) for m in metrics)]
        for name, s in evaluation.groups[title][configuration].items()
    ]
    return _table(rows, ["group", "n", *metrics], _fmt(markdown), len(metrics))


def _fmt(markdown: bool) -> str:
    return "github" if markdown else "simple"


def render(evaluation: Evaluation, *, markdown: bool = False) -> str:
    """Every table of the run and the warnings."""
    parts: list[str] = []

    def title(text: str) -> None:
        parts.extend([f"### {text}" if markdown else text, ""])

    for configuration in evaluation.summaries:
        title(f"configuration: {configuration}")
        parts += [configuration_table(evaluation, configuration, markdown), ""]
    if len(evaluation.summaries) > 1:
        title(f"configurations side by side ({ALL})")
        parts += [side_by_side_table(evaluation, markdown), ""]
    if evaluation.comparisons is not None:
        ref = evaluation.comparisons.reference
        title(
            f"paired comparison with {ref} (delta = configuration - {ref}, 95% interval; "
            "* significant after Holm correction"
            + ("; p = Holm-corrected p-value, wins/ties/losses)" if markdown else ")")
        )
        parts += [comparison_table(evaluation, markdown), ""]
    for group_title, table in evaluation.groups.items():
        for configuration in table:
            title(f"configuration: {configuration}, by {group_title}")
            parts += [group_table(evaluation, group_title, configuration, markdown), ""]
    if evaluation.warnings:
        title("warnings")
        parts += [f"- {w}" for w in evaluation.warnings] + [""]
    return "\n".join(parts).rstrip() + "\n"
