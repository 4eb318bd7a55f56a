"""The summary tables, rendered with tabulate: terminal (``simple``) or Markdown (``github``).

Pure: takes summaries, returns text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabulate import tabulate

from .aggregate import ALL, ConfigurationSummary


def fmt(value: float | None) -> str:
    """Three decimals, ``n/a`` for a mean with nothing in it."""
    return "n/a" if value is None else f"{value:.3f}"


def configuration_table(
    summary: ConfigurationSummary, metrics: Sequence[str], tablefmt: str = "simple"
) -> str:
    """Rows: each category, then ``all``; columns: n and each metric."""
    rows = [
        [name, row.n, *(fmt(row.values.get(m)) for m in metrics)] for name, row in summary.rows()
    ]
    return tabulate(
        rows,
        headers=["category", "n", *metrics],
        tablefmt=tablefmt,
        disable_numparse=True,
        colalign=("left", "right", *("right",) * len(metrics)),
    )


def side_by_side_table(
    summaries: Mapping[str, ConfigurationSummary], metrics: Sequence[str], tablefmt: str = "simple"
) -> str:
    """The configurations' ``all`` rows, one row per configuration."""
    rows = [
        [name, summary.all.n, *(fmt(summary.all.values.get(m)) for m in metrics)]
        for name, summary in summaries.items()
    ]
    return tabulate(
        rows,
        headers=["configuration", "n", *metrics],
        tablefmt=tablefmt,
        disable_numparse=True,
        colalign=("left", "right", *("right",) * len(metrics)),
    )


def render(
    summaries: Mapping[str, ConfigurationSummary],
    metrics: Sequence[str],
    *,
    markdown: bool = False,
) -> str:
    """Every table of the run, one per configuration and the side-by-side one."""
    tablefmt = "github" if markdown else "simple"
    parts: list[str] = []
    for name, summary in summaries.items():
        title = f"### {name}" if markdown else f"configuration: {name}"
        parts += [title, "", configuration_table(summary, metrics, tablefmt), ""]
    if len(summaries) > 1:
        title = (
            f"### configurations side by side ({ALL})"
            if markdown
            else (f"configurations side by side ({ALL})")
        )
        parts += [title, "", side_by_side_table(summaries, metrics, tablefmt), ""]
    return "\n".join(parts).rstrip() + "\n"
