"""The summary tables as data (headers, rows), rendered for the terminal, Markdown or HTML.

Pure: takes an :class:`~pytest_retrieval.evaluation.Evaluation`, returns tables.
Terminal cells read ``0.712 ±0.041``; Markdown and HTML cells ``0.712 [0.671, 0.753]``.
A mean over fewer queries than the row's n (``retrieval_empty = skip``) says so: ``(n=34)``.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Literal

from tabulate import tabulate

from ..comparisons import P_FLOOR
from ..evaluation import Evaluation
from ..latency import latency_unit, milliseconds
from ..model import ALL
from ..quoting import escaped, shortened
from ..slices import Slice

Style = Literal["terminal", "markdown", "html"]
TABLEFMT: dict[Style, str] = {"terminal": "simple", "markdown": "github", "html": "html"}


@dataclass(frozen=True)
class Table:
    """A table: headers, rows of text and how many leading columns are labels."""

    headers: list[str]
    rows: list[list[str]]
    labels: int = 1

    def render(self, style: Style = "terminal") -> str:
        text = markdown_text if style == "markdown" else str  # names: the user's text
        return tabulate(
            [[text(c) if i < self.labels else c for i, c in enumerate(row)] for row in self.rows],
            headers=[text(h) for h in self.headers],
            tablefmt=TABLEFMT[style],
            disable_numparse=True,
            colalign=["left" if i < self.labels else "right" for i in range(len(self.headers))],
        )


_SPECIAL = re.compile(r"[\\`*~\[\]|]|_+")
_LEADING = re.compile(r"^(?=[#>+=-])|^\d+(?=[.)])")  # a heading, a quote, a list
_CLOSING = re.compile(r"(?<=[ \t])(?=#+[ \t]*$)")  # a heading's closing #s: "v2 #" lost its #


def markdown_text(text: str) -> str:
    """Text of the user's (a configuration, a category, a tag, a query id, retriever
    metadata, a warning naming them) as GitHub's Markdown shows it, as written: in a
    table cell, a heading or a list item alike.

    ``|`` would start a new column (a category ``para|phrase`` put every number under
    the wrong metric) and is written ``\\|``; ``<`` is ``&lt;`` (``</details>`` would
    close the collapsed block, ``<none>`` would vanish as a tag) and ``&`` is ``&amp;``;
    emphasis, code and link characters are backslash-escaped (an ``_`` inside a word,
    as in ``index_version``, cannot start emphasis and stays as it is), and so is what
    would make a line a heading, a quote or a list, and a run of ``#`` ending the text
    after a space (in a heading its closing sequence, which vanishes); a line break is
    a space, and any other control character is written as its escape (``\\x1b``, as
    the terminal shows it: a report printed with ``cat`` in a CI log would otherwise
    recolour it).
    """
    flat = escaped(" ".join(text.splitlines()))
    safe = _SPECIAL.sub(_escaped, flat.replace("&", "&amp;").replace("<", "&lt;"))
    safe = _CLOSING.sub("\\\\", safe, count=1)
    return _LEADING.sub(lambda found: found.group(0) + "\\", safe, count=1)


def markdown_message(text: str) -> str:
    """A message of the plugin's as Markdown: its `command` spans as code, the rest
    (which quotes the user's names) as :func:`markdown_text`."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no span to trust
        return markdown_text(text)
    return "".join(
        markdown_text(part) if i % 2 == 0 else _code_span(part) for i, part in enumerate(parts)
    )


def _code_span(text: str) -> str:
    """``text`` as an inline code span (a line break is a space there too)."""
    return f"`{' '.join(text.splitlines())}`" if text.strip() else markdown_text(f"`{text}`")


def _escaped(found: re.Match[str]) -> str:
    """Each character backslash-escaped, but underscores inside a word (snake_case)."""
    text, start, end = found.string, found.start(), found.end()
    inside = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return (
        found.group(0) if found.group(0)[0] == "_" and inside else "\\" + "\\".join(found.group(0))
    )


def fmt(value: float | None) -> str:
    """Three decimals, ``n/a`` for a mean with nothing in it."""
    return "n/a" if value is None else f"{value:.3f}"


def cell(slice_: Slice, metric: str, markdown: bool, n: int | None = None) -> str:
    """A mean with its interval; ``(n=k)`` when it is over k queries, not the row's ``n``."""
    value = slice_.row.values.get(metric)
    if value is None:
        return "n/a"
    interval = slice_.intervals.get(metric)
    if interval is None or interval.method in ("none", "empty"):
        text = fmt(value)
    elif markdown:
        text = f"{value:.3f} [{interval.lo:.3f}, {interval.hi:.3f}]"
    else:
        text = f"{value:.3f} ±{interval.half_width:.3f}"
    count = slice_.row.count(metric)
    return text if count == (slice_.row.n if n is None else n) else f"{text} (n={count})"


def _slice_rows(
    slices: list[tuple[str, Slice]], metrics: list[str], style: Style
) -> list[list[str]]:
    brackets = style != "terminal"
    names = [name for name, _ in slices]
    label = shortened(names) if style == "terminal" else {name: name for name in names}
    return [
        [label[name], str(s.row.n), *(cell(s, m, brackets) for m in metrics)] for name, s in slices
    ]


def configuration_table(evaluation: Evaluation, configuration: str, style: Style) -> Table:
    """Rows: each category, then ``all`` (and ``all (weighted)``); columns: n and each metric."""
    rows = _slice_rows(evaluation.rows(configuration), evaluation.metrics, style)
    return Table(["category", "n", *evaluation.metrics], rows, labels=1)


def side_by_side_table(evaluation: Evaluation, style: Style) -> Table:
    """The configurations' ``all`` rows, one row per configuration."""
    slices = [(c, dict(evaluation.rows(c))[ALL]) for c in evaluation.summaries]
    return Table(
        ["configuration", "n", *evaluation.metrics], _slice_rows(slices, evaluation.metrics, style)
    )


def drop_texts(delta: float, allowed: float) -> tuple[str, str]:
    """A row's delta (signed) and allowed drop as shown: three decimals, or as many more
    (up to 9) as it takes for a drop and the allowed drop to read apart, so that a
    breach of 0.0204 against 0.02 reads ``-0.0204, allowed 0.0200``, not ``-0.020,
    allowed 0.020`` beside FAILED. Equal at 9 decimals: at the limit, three shown."""
    for digits in range(3, 10):
        drop, limit = f"{-delta:.{digits}f}", f"{allowed:.{digits}f}"
        if delta >= 0 or drop != limit:
            return f"{delta:+.{digits}f}", limit
    return f"{delta:+.3f}", f"{allowed:.3f}"


def p_text(p: float) -> str:
    """A p-value as shown: three digits, and "<1e-300" for one that underflowed to 0.0
    (the normal law's, for thousands of queries that all moved one way): no test's p is
    0."""
    return f"<{P_FLOOR:g}" if p == 0.0 else f"{p:.3g}"


def comparison_table(evaluation: Evaluation, style: Style) -> Table:
    """Each configuration minus the reference, per category and ``all``; configurations
    in the order of the other tables (the fixture's params), not by name."""
    comparisons = evaluation.comparisons
    metrics = evaluation.metrics
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for row in comparisons.rows if comparisons is not None else ():
        lo, hi = row.ci if row.ci is not None else (0.0, 0.0)
        mark = " *" if row.significant else ""
        text = f"{row.delta:+.3f} [{lo:+.3f}, {hi:+.3f}]{mark}"
        if style != "terminal":
            text += f" p={p_text(row.p_holm)} {row.wins}/{row.ties}/{row.losses}"
        cells.setdefault((row.configuration, row.category), {})[row.metric] = text
    place = {name: i for i, name in enumerate(evaluation.summaries)}

    def order(key: tuple[str, str]) -> tuple[int, str, bool, str]:
        return place.get(key[0], len(place)), key[0], key[1] != ALL, key[1]

    ordered = sorted(cells, key=order)
    categories = [cat for _, cat in ordered]
    label = shortened(categories) if style == "terminal" else {c: c for c in categories}
    rows = [
        [c, label[cat], *(cells[(c, cat)].get(m, "n/a") for m in metrics)] for c, cat in ordered
    ]
    return Table(["configuration", "category", *metrics], rows, labels=2)


def group_table(evaluation: Evaluation, title: str, configuration: str, style: Style) -> Table:
    slices = list(evaluation.groups[title][configuration].items())
    return Table(
        ["group", "n", *evaluation.metrics], _slice_rows(slices, evaluation.metrics, style)
    )


LATENCY_TITLE = "latency per query (the retriever's time, never compared with the baseline)"


LATENCY_SHOWN = ("p50", "p95", "max")


def latency_cells(evaluation: Evaluation) -> dict[str, list[str]]:
    """Per timed configuration: p50, p95 and max, every configuration's in one unit (so
    the line, the tables and the reports compare at a glance), then the batch share ("")."""
    latency = evaluation.latency
    unit = latency_unit(s.value(x) for s in latency.values() for x in LATENCY_SHOWN)
    return {
        name: [
            *(milliseconds(s.value(x), unit) for x in LATENCY_SHOWN),
            f"{s.shared} of {s.n}" if s.shared else "",
        ]
        for name, s in latency.items()
    }


def latency_table(evaluation: Evaluation, style: Style) -> Table:
    """Per configuration: n timed, p50, p95, max; which are a batch call's shares."""
    cells = latency_cells(evaluation)
    rows = [[name, str(s.n), *cells[name]] for name, s in evaluation.latency.items()]
    headers = ["configuration", "n", "p50", "p95", "max", "batch share"]
    if not any(row[-1] for row in rows):
        headers, rows = headers[:-1], [row[:-1] for row in rows]
    return Table(headers, rows, labels=1)


def comparison_title(reference: str, style: Style) -> str:
    title = (
        f"paired comparison with {reference} (delta = configuration - {reference}, 95% "
        "interval; * significant after Holm correction"
    )
    return title + (
        "; p = Holm-corrected p-value, wins/ties/losses)" if style != "terminal" else ")"
    )


def tables(evaluation: Evaluation, style: Style) -> list[tuple[str, Table]]:
    """Every table of the run, titled: per configuration, side by side, comparison, groups."""
    out = [
        (f"configuration: {c}", configuration_table(evaluation, c, style))
        for c in evaluation.summaries
    ]
    if len(evaluation.summaries) > 1:
        out.append((f"configurations side by side ({ALL})", side_by_side_table(evaluation, style)))
    if evaluation.comparisons is not None:
        title = comparison_title(evaluation.comparisons.reference, style)
        out.append((title, comparison_table(evaluation, style)))
    for group_title, group in evaluation.groups.items():
        for c in group:
            table = group_table(evaluation, group_title, c, style)
            out.append((f"configuration: {c}, by {group_title}", table))
    if evaluation.latency:
        out.append((LATENCY_TITLE, latency_table(evaluation, style)))
    return out


def render(evaluation: Evaluation, *, style: Style = "markdown") -> str:
    """Every table of the run and the warnings, in Markdown or HTML."""
    parts: list[str] = []
    for title, table in tables(evaluation, style):
        heading = (
            f"<h3>{html.escape(title)}</h3>" if style == "html" else f"### {markdown_text(title)}\n"
        )
        parts += [heading, table.render(style), ""]
    if evaluation.warnings:
        if style == "html":
            items = "".join(f"<li>{html.escape(str(w))}</li>" for w in evaluation.warnings)
            parts += ["<h3>warnings</h3>", f"<ul>{items}</ul>", ""]
        else:
            parts += [
                "### warnings",
                "",
                *(f"- {markdown_text(str(w))}" for w in evaluation.warnings),
            ]
            parts.append("")
    return "\n".join(parts).rstrip() + "\n"
