"""The HTML report page: an escape-by-default element builder and one self-contained page.

:func:`el` escapes every text and attribute value it is given; only a :class:`Raw` (the
SVG this package draws, the page's constant script and style) goes in as is. The page
(:func:`render_page`) takes a typed :class:`PageData` and returns one file that needs no
network, no external asset and no font download, works from ``file://``, prints cleanly
and is fully readable without JavaScript; the inline script only adds sorting, filters
and the metric selector on top.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from . import svg
from .marks import HTML_GENERATOR
from .tables import drop_texts, p_text

# --------------------------------------------------------------------------- the builder


@dataclass(frozen=True)
class Raw:
    """Markup inserted as is: only for what the package itself produced (charts, script)."""

    markup: str

    def __str__(self) -> str:
        return self.markup


Child: TypeAlias = "str | int | float | Raw | Iterable[Child] | None"
AttrValue: TypeAlias = "str | int | float | bool | None"

VOID = frozenset({"area", "br", "col", "hr", "img", "input", "link", "meta", "source", "wbr"})
RAW_TEXT = frozenset({"script", "style"})
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*\Z")
_ATTR = re.compile(r"[A-Za-z_:][A-Za-z0-9_:.-]*\Z")


def _flatten(children: Iterable[Child]) -> Iterable[str | Raw]:
    for child in children:
        if child is None or child is False:
            continue
        if isinstance(child, (str, Raw)):
            yield child
        elif isinstance(child, (int, float)):
            yield str(child)
        else:
            yield from _flatten(child)


def _attribute(name: str, value: AttrValue) -> str:
    name = name.strip("_").replace("_", "-")
    if not _ATTR.match(name):
        raise ValueError(f"not an attribute name: {name!r}")
    if value is True:
        return f" {name}"
    return f' {name}="{svg.esc(value)}"'


def el(
    tag: str,
    *children: Child,
    cls: str | None = None,
    attrs: Mapping[str, AttrValue] | None = None,
    **named: AttrValue,
) -> Raw:
    """An element: text children and attribute values escaped, ``Raw`` children kept.

    ``cls`` is ``class``; in keyword names ``_`` stands for ``-`` (``data_metric``,
    ``aria_label``; ``for_`` is ``for``); ``attrs`` takes names that are no identifier.
    ``True`` writes a bare attribute, ``None`` and ``False`` leave it out. In ``script``
    and ``style`` only ``Raw`` is accepted, and never one that would close the element.
    """
    if not _NAME.match(tag):
        raise ValueError(f"not an element name: {tag!r}")
    pairs = {"class": cls, **(attrs or {}), **named}.items()
    head = "".join(_attribute(k, v) for k, v in pairs if v is not None and v is not False)
    if tag in VOID:
        if children:
            raise ValueError(f"<{tag}> cannot have children")
        return Raw(f"<{tag}{head}>")
    parts = list(_flatten(children))
    if tag in RAW_TEXT:
        body = "".join(_raw_text(tag, p) for p in parts)
    else:
        body = "".join(p.markup if isinstance(p, Raw) else svg.esc(p) for p in parts)
    return Raw(f"<{tag}{head}>{body}</{tag}>")


def _raw_text(tag: str, part: str | Raw) -> str:
    if not isinstance(part, Raw):
        raise TypeError(f"<{tag}> takes Raw content only, not text")
    if f"</{tag}" in part.markup.lower():
        raise ValueError(f"Raw content would close <{tag}> early")
    return part.markup


def join(*parts: Child) -> Raw:
    """Siblings without a wrapping element."""
    return Raw("".join(p.markup if isinstance(p, Raw) else svg.esc(p) for p in _flatten(parts)))


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class MetricCell:
    """A mean with its 95% interval (None: not computed, or nothing to average), and
    ``n`` when it is over fewer queries than its row's n (``retrieval_empty = skip``)."""

    value: float | None
    lo: float | None = None
    hi: float | None = None
    n: int | None = None


@dataclass(frozen=True)
class CategoryMeans:
    """One summary row: a configuration's means in one category (or the overall row)."""

    configuration: str
    category: str
    n: int
    means: Mapping[str, MetricCell]


@dataclass(frozen=True)
class GroupTable:
    """The rows of one ``--retrieval-group-by`` table: each configuration's means per
    value of the tag (``category`` of each row holds the value)."""

    title: str
    rows: Sequence[CategoryMeans]


@dataclass(frozen=True)
class ComparisonRow:
    """A paired comparison with the reference (CONTRACT section 6), one metric."""

    configuration: str
    category: str
    metric: str
    delta: float | None
    lo: float | None
    hi: float | None
    p_holm: float | None
    significant: bool
    wins: int = 0
    ties: int = 0
    losses: int = 0


@dataclass(frozen=True)
class BreachedRow:
    """A gate row that fell by more than allowed (CONTRACT section 5)."""

    configuration: str
    category: str
    metric: str
    baseline: float
    current: float
    delta: float
    allowed: float


@dataclass(frozen=True)
class Verdict:
    """The gate: ``word`` is passed, failed, refused, no-baseline or skipped.

    ``blocking`` False: report mode, a failure does not fail the run (shown as a warning).
    """

    word: str
    text: str
    breached: Sequence[BreachedRow] = ()
    blocking: bool = True


@dataclass(frozen=True)
class RankedId:
    """A returned id with its judged grade; None when the golden set does not judge it."""

    id: str
    grade: int | None


@dataclass(frozen=True)
class RankMove:
    """Where a judged id moved since the baseline; None rank: not in the kept results."""

    id: str
    before: int | None
    after: int | None
    grade: int | None = None

    def text(self) -> str:
        """``billing-faq 1→4 (grade 3)``; ``new`` / ``out`` when one side has no rank."""
        before = "new" if self.before is None else str(self.before)
        after = "out" if self.after is None else str(self.after)
        grade = "" if self.grade is None else f" (grade {self.grade})"
        return f"{self.id} {before}\u2192{after}{grade}"

    @property
    def worse(self) -> bool:
        if self.before is None:
            return False
        return self.after is None or self.after > self.before


@dataclass(frozen=True)
class QueryRow:
    """One item: a golden query under one configuration."""

    configuration: str
    id: str
    category: str
    outcome: str
    metrics: Mapping[str, float | None]
    ranked: Sequence[RankedId] = ()
    reason: str | None = None
    moves: Sequence[RankMove] = ()
    text: str = ""


@dataclass(frozen=True)
class LatencyRow:
    """One configuration's retriever time per query, as the Markdown report shows it:
    p50, p95 and max written in one unit, and how many are a batch call's share."""

    configuration: str
    n: int
    p50: str
    p95: str
    max: str
    batch_share: str = ""  # "71 of 71" when some latencies are a batch call's share


@dataclass(frozen=True)
class TrendChart:
    """A metric's ``all`` mean over the logged runs of one label, a line per configuration."""

    metric: str
    label: str  # the runs' --retrieval-label ("" for runs without one)
    lines: Sequence[svg.TrendLine]
    note: str = ""  # e.g. how many runs are shown, and of how many


@dataclass(frozen=True)
class PageData:
    """Everything the page shows, as the plugin has it after a run."""

    settings: str
    metrics: Sequence[str]
    configurations: Sequence[str]
    means: Sequence[CategoryMeans]
    queries: Sequence[QueryRow]
    verdict: Verdict | None = None
    reference: str | None = None
    comparisons: Sequence[ComparisonRow] = ()
    trends: Sequence[TrendChart] = ()
    retrievers: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    latency: Sequence[LatencyRow] = ()
    groups: Sequence[GroupTable] = ()
    queries_note: str = ""  # e.g. that the table shows a part of the rows
    # metric -> configuration -> every query's (id, value), for the dot charts when the
    # table keeps a part of the rows; empty: the dots are the table's rows
    dots: Mapping[str, Mapping[str, Sequence[tuple[str, float | None]]]] = field(
        default_factory=dict
    )
    incomplete: str = ""  # the run did not run every item: the numbers are partial
    warnings: Sequence[str] = ()
    title: str = "Retrieval evaluation"
    overall: str = "all"
    relevance_threshold: int = 1
    generated: str = ""
    outcomes: Sequence[str] = field(
        default=("passed", "failed", "error", "skipped", "xfailed", "xpassed")
    )


# --------------------------------------------------------------------------- charts


def _bar_groups(data: PageData, metric: str) -> list[svg.BarGroup]:
    by_category: dict[str, list[svg.Bar]] = {}
    for row in data.means:
        cell = row.means.get(metric, MetricCell(None))
        n = row.n if cell.n is None else cell.n
        bar = svg.Bar(row.configuration, cell.value, cell.lo, cell.hi, n)
        by_category.setdefault(row.category, []).append(bar)
    overall = by_category.pop(data.overall, None)
    groups = [svg.BarGroup(name, bars) for name, bars in by_category.items()]
    if overall is not None:
        groups.append(svg.BarGroup(data.overall, overall, overall=True))
    return groups


def _forest_rows(data: PageData, metric: str) -> list[svg.ForestRow]:
    rows = [r for r in data.comparisons if r.metric == metric]
    rank = {name: i for i, name in enumerate(data.configurations)}
    rows.sort(key=lambda r: (r.category != data.overall, r.category, rank.get(r.configuration, 0)))
    out = []
    for r in rows:
        p = "n/a" if r.p_holm is None else p_text(r.p_holm)
        note = f"p (Holm) = {p}; wins/ties/losses {r.wins}/{r.ties}/{r.losses}"
        label = f"{r.category} \u00b7 {r.configuration}"
        out.append(
            svg.ForestRow(
                label, r.delta, r.lo, r.hi, r.significant, r.configuration, note, r.category
            )
        )
    return out


def _dot_series(data: PageData, metric: str) -> list[svg.DotSeries]:
    """Every evaluated query's value per configuration: ``data.dots`` when given (the
    table may keep a part of the rows), else the table's rows but the skipped ones."""
    points: dict[str, list[tuple[str, float | None]]] = {c: [] for c in data.configurations}
    if data.dots:
        for name, values in data.dots.get(metric, {}).items():
            points.setdefault(name, []).extend(values)
    else:
        for q in (q for q in data.queries if q.outcome != "skipped"):  # not in n
            points.setdefault(q.configuration, []).append((q.id, q.metrics.get(metric)))
    return [svg.DotSeries(name, values) for name, values in points.items() if values]


def _figure(caption: str, chart: str, cls: str = "") -> Raw:
    return el("figure", el("figcaption", caption), Raw(chart), cls=cls or None)


WIDE = 960  # viewBox width of the full-width charts: readable both on screen and on A4


def _trend_figures(data: PageData, metric: str) -> list[Raw]:
    configs = list(data.configurations)
    out = []
    for t in data.trends:
        if t.metric != metric:
            continue
        chart = svg.trends(t.lines, metric, configs, width=WIDE)
        runs = f"runs labelled '{t.label}'" if t.label else "runs without a label"
        note = f" ({t.note})" if t.note else ""
        out.append(_figure(f"{data.overall} over the logged {runs}{note}", chart, cls="wide"))
    return out


def _metric_section(data: PageData, metric: str) -> Raw:
    """One metric's charts; the metric selector shows one such section at a time."""
    configs = list(data.configurations)
    bars = svg.category_bars(_bar_groups(data, metric), metric, configs)
    figures = [_figure("Mean per category", bars)]
    if data.reference is not None:
        forest = svg.forest_plot(_forest_rows(data, metric), metric, data.reference, configs)
        figures.append(_figure(f"Paired difference from {data.reference}", forest))
    dots = svg.query_dots(_dot_series(data, metric), metric, configs, width=WIDE)
    return el(
        "section",
        el("h3", metric),
        el("div", figures, cls="charts"),
        _figure("Every query (hover a dot for its id)", dots, cls="wide"),
        _trend_figures(data, metric),
        cls="metric",
        data_metric_section=metric,
    )


# --------------------------------------------------------------------------- header


def _breached_table(rows: Sequence[BreachedRow]) -> Raw:
    head = ["configuration", "category", "metric", "baseline", "current", "delta", "allowed"]
    body = [
        el(
            "tr",
            el("td", r.configuration),
            el("td", r.category),
            el("td", r.metric),
            [el("td", svg.fmt(v), cls="num") for v in (r.baseline, r.current)],
            [
                el("td", text, cls=c)
                for text, c in zip(drop_texts(r.delta, r.allowed), ("num drop", "num"), strict=True)
            ],
        )
        for r in rows
    ]
    header = el("tr", [el("th", h, cls="num" if i > 2 else None) for i, h in enumerate(head)])
    return _table("Breached rows", header, body, cls="breached")


def _table(caption: Child, head: Child, body: Child, cls: str, id: str | None = None) -> Raw:
    """A ``<table>`` with its caption, head row(s) and body rows."""
    parts = el("caption", caption), el("thead", head), el("tbody", body)
    return el("table", *parts, cls=cls, id=id)


VERDICT_TONE = {"passed": "tone-good", "failed": "tone-bad", "refused": "tone-bad"}


def _verdict(verdict: Verdict | None) -> Raw | None:
    if verdict is None:
        return None
    tone = VERDICT_TONE.get(verdict.word, "tone-warn") if verdict.blocking else "tone-warn"
    if verdict.word == "passed":
        tone = "tone-good"
    return el(
        "section",
        el("p", el("span", verdict.word.upper(), cls="word"), " regression gate", cls="headline"),
        el(
            "div",
            el("pre", verdict.text, tabindex="0") if verdict.text else None,
            _breached_table(verdict.breached) if verdict.breached else None,
            cls="verdict-body",
        ),
        cls=f"verdict {tone}",
        aria_label=f"regression gate: {verdict.word}",
        data_verdict=verdict.word,
    )


def _swatch(data: PageData, configuration: str) -> Raw:
    index = (
        list(data.configurations).index(configuration)
        if (configuration in data.configurations)
        else len(svg.PALETTE) - 1
    )
    return el("span", cls=f"swatch c{index % len(svg.PALETTE)}", aria_hidden="true")


def _interval_cell(cell: MetricCell, best: bool) -> Raw:
    value = svg.finite(cell.value)
    text = svg.fmt(value)
    ci = svg.interval_text(svg.finite(cell.lo), svg.finite(cell.hi)).strip()
    shown = el("strong", text) if best else text
    count = f" (n={cell.n})" if cell.n is not None and value is not None else None
    return el(
        "td",
        shown,
        " ",
        el("span", ci, cls="ci") if ci else None,
        count,
        cls="num",
        data_sort="" if value is None else f"{value:.6f}",
    )


def _best(rows: Sequence[CategoryMeans], metric: str) -> float | None:
    values = [svg.finite(r.means.get(metric, MetricCell(None)).value) for r in rows]
    return max((v for v in values if v is not None), default=None)


def _overview(data: PageData) -> Raw:
    """The overall row of each configuration side by side, the best mean in bold."""
    rows = [r for r in data.means if r.category == data.overall]
    best = {m: _best(rows, m) for m in data.metrics}
    body = []
    for r in rows:
        cells = []
        for m in data.metrics:
            cell = r.means.get(m, MetricCell(None))
            top = best[m] is not None and svg.finite(cell.value) == best[m]
            cells.append(_interval_cell(cell, top))
        name = el("th", _swatch(data, r.configuration), r.configuration, scope="row")
        body.append(el("tr", name, el("td", r.n, cls="num"), cells))
    head = [el("th", "configuration"), el("th", "n", cls="num")]
    head += [el("th", m, cls="num") for m in data.metrics]
    caption = f"{data.overall}: mean [95% interval]; best in bold"
    return _table(caption, el("tr", head), body, cls="overview")


def _group_table(data: PageData, group: GroupTable) -> Raw:
    """A ``--retrieval-group-by`` table: a row per configuration and tag value."""
    body = []
    for r in group.rows:
        cells = [_interval_cell(r.means.get(m, MetricCell(None)), False) for m in data.metrics]
        name = el("th", _swatch(data, r.configuration), r.configuration, scope="row")
        body.append(el("tr", name, el("td", r.category), el("td", r.n, cls="num"), cells))
    head = [el("th", "configuration"), el("th", group.title), el("th", "n", cls="num")]
    head += [el("th", m, cls="num") for m in data.metrics]
    caption = f"By {group.title}: mean [95% interval]"
    return _table(caption, el("tr", head), body, cls="overview groups")


def _retrievers(data: PageData) -> Raw | None:
    """What each retriever said about itself (its ``metadata``), when any did."""
    described = {c: m for c, m in data.retrievers.items() if m}
    if not described:
        return None
    body = [
        el(
            "tr",
            el("th", _swatch(data, name), name, scope="row"),
            el("td", el("ul", [el("li", el("code", k), " ", v) for k, v in meta.items()])),
        )
        for name, meta in described.items()
    ]
    head = el("tr", el("th", "configuration"), el("th", "retriever metadata"))
    return _table("What each retriever says about itself", head, body, cls="retrievers")


LATENCY_CAPTION = "Latency per query: the retriever's time, never compared with the baseline"


def _latency(data: PageData) -> Raw | None:
    """p50 / p95 / max per configuration, and the batch share where there is one."""
    if not data.latency:
        return None
    shared = any(r.batch_share for r in data.latency)
    head = [el("th", "configuration")]
    head += [el("th", h, cls="num") for h in ("n", "p50", "p95", "max")]
    head += [el("th", "batch share", cls="num")] if shared else []
    body = []
    for r in data.latency:
        cells = [el("td", v, cls="num") for v in (r.n, r.p50, r.p95, r.max)]
        cells += [el("td", r.batch_share, cls="num")] if shared else []
        name = el("th", _swatch(data, r.configuration), r.configuration, scope="row")
        body.append(el("tr", name, cells))
    return _table(LATENCY_CAPTION, el("tr", head), body, cls="latency", id="latency")


# --------------------------------------------------------------------------- the query table


def _ranked(ids: Sequence[RankedId], threshold: int) -> Raw | None:
    if not ids:
        return None
    items = []
    for r in ids:
        if r.grade is None:  # the note above the table says what dashed means
            items.append(el("li", r.id, cls="unjudged"))
            continue
        tone = "rel" if r.grade >= threshold else "nonrel"
        items.append(el("li", r.id, el("span", r.grade, cls="grade"), cls=f"{tone} g{r.grade}"))
    return el("ol", items, cls="ranked")


def _moves(moves: Sequence[RankMove]) -> Raw | None:
    if not moves:
        return None
    return el(
        "ul", [el("li", m.text(), cls="down" if m.worse else "up") for m in moves], cls="moves"
    )


def _metric_cell(metric: str, value: float | None) -> Raw:
    shown = svg.finite(value)
    return el(
        "td",
        svg.fmt(shown),
        cls="num" if shown is not None else "num na",
        data_metric=metric,
        data_sort="" if shown is None else f"{shown:.6f}",
    )


def _notes(q: QueryRow) -> Raw:
    """The failure reason first, then how judged ids moved since the baseline."""
    reason = el("p", q.reason, cls="reason") if q.reason else None
    return el("td", reason, _moves(q.moves), cls="notes", data_sort=q.reason or "")


def _query_row(data: PageData, q: QueryRow, position: int) -> Raw:
    text = el("div", q.text, cls="qtext") if q.text else None
    query = el("td", el("code", q.id), text, data_sort=q.id)  # sorted by id, not id + text
    return el(
        "tr",
        el("td", _swatch(data, q.configuration), q.configuration),
        query,
        el("td", q.category),
        el("td", el("span", q.outcome, cls=f"outcome {q.outcome}")),
        [_metric_cell(m, q.metrics.get(m)) for m in data.metrics],
        el("td", _ranked(q.ranked, data.relevance_threshold), cls="ids"),
        _notes(q),
        data_configuration=q.configuration,
        data_category=q.category,
        data_outcome=q.outcome,
        data_order=position,
    )


COLUMNS = (
    ("configuration", "w-config"),
    ("query", "w-query"),
    ("category", "w-category"),
    ("outcome", "w-outcome"),
)


def _query_head(data: PageData) -> Raw:
    """The header row, and column widths so the table never grows wider than the page."""
    cols: list[Child] = [el("col", cls=w) for _, w in COLUMNS]
    cols += [el("col", cls="w-metric") for _ in data.metrics]
    cols += [el("col", cls="w-ids"), el("col", cls="w-notes")]
    cells: list[Child] = [el("th", name, data_key=name) for name, _ in COLUMNS]
    cells += [
        el("th", _breakable(m), cls="num", data_key=m, data_metric=m, data_type="number")
        for m in data.metrics
    ]
    cells += [
        el("th", "ranked results (grade)", data_nosort=True),
        el("th", "reason, rank moves vs baseline", data_key="notes"),
    ]
    return join(el("colgroup", cols), el("thead", el("tr", cells)))


def _breakable(metric: str) -> Child:
    """A metric's name in a narrow header: it may wrap before its cut (``precision`` /
    ``@10``) and after an underscore or a dot (``r_`` / ``precision``), never inside a
    word."""
    name, at, cut = metric.partition("@")
    parts: list[Child] = []
    for piece in re.split(r"(?<=[_.])", name):
        parts += [piece, el("wbr")]
    parts = parts[:-1]  # no break after the last piece
    return [*parts, el("wbr"), at + cut] if at else parts


def _select(name: str, label: str, options: Sequence[str], everything: str | None) -> Raw:
    choices = [el("option", everything, value="")] if everything is not None else []
    choices += [el("option", o, value=o) for o in options]
    return el("label", label, " ", el("select", choices, id=f"f-{name}", data_filter=name))


def _filters(data: PageData) -> Raw:
    categories = sorted({q.category for q in data.queries})
    present = {q.outcome for q in data.queries}
    outcomes = [o for o in data.outcomes if o in present] + sorted(present - set(data.outcomes))
    configs = [c for c in data.configurations if any(q.configuration == c for q in data.queries)]
    return el(
        "div",
        _select("category", "Category", categories, "all categories"),
        _select("configuration", "Configuration", configs, "all configurations"),
        _select("outcome", "Outcome", outcomes, "all outcomes"),
        el("output", id="row-count", aria_live="polite"),
        cls="controls",
        id="filters",
        hidden=True,
    )


def _queries(data: PageData) -> Raw:
    rows = [_query_row(data, q, i) for i, q in enumerate(data.queries)]
    empty = el("p", "No query matches these filters.", id="no-rows", hidden=True)
    note = (
        f"{len(data.queries)} rows{'; ' + data.queries_note if data.queries_note else ''}. "
        "Ranked results in rank order with their grade; "
        f"green: relevant (grade \u2265 {data.relevance_threshold}), plain: judged not "
        "relevant, dashed: not judged."
    )
    table = el("table", _query_head(data), el("tbody", rows), id="queries", cls="queries")
    return el(
        "section",
        el("h2", "Queries"),
        el("p", note, cls="note"),
        _filters(data),
        el("div", table, cls="table-wrap"),
        empty,
        id="query-section",
    )


# --------------------------------------------------------------------------- the page


def _metric_picker(data: PageData) -> Raw:
    options = [el("option", m, value=m) for m in data.metrics]
    picker = el("label", "Metric", " ", el("select", options, id="f-metric"))
    hint = el("span", "charts and the query table's sort follow this metric", cls="note")
    return el("div", picker, hint, cls="controls", id="metric-controls", hidden=True)


def _warnings(data: PageData) -> Raw | None:
    if not data.warnings:
        return None
    items = el("ul", [el("li", w) for w in data.warnings])
    return el("section", el("h2", "Warnings"), items, cls="warnings", id="warnings")


def _header(data: PageData) -> Raw:
    generated = f" \u00b7 {data.generated}" if data.generated else ""
    parts = [("summary", "Summary"), ("charts", "Charts")]
    parts += [("warnings", "Warnings")] if data.warnings else []
    parts += [("query-section", "Queries")]
    nav = el("nav", [el("a", text, href=f"#{target}") for target, text in parts], cls="toc")
    return el("header", el("h1", data.title), el("p", data.settings + generated, cls="note"), nav)


def _body(data: PageData) -> Raw:
    """Verdict first (what CI decided), then the numbers, the charts and every query."""
    charts = el(
        "section",
        el("h2", "Charts"),
        _metric_picker(data),
        [_metric_section(data, m) for m in data.metrics],
        id="charts",
    )
    summary = el(
        "section",
        el("h2", "Summary"),
        _overview(data),
        [_group_table(data, g) for g in data.groups],
        _retrievers(data),
        _latency(data),
        id="summary",
    )
    return el(
        "main",
        _header(data),
        el("p", data.incomplete, cls="incomplete", id="incomplete") if data.incomplete else None,
        _verdict(data.verdict),
        el("div", summary, _warnings(data), cls="glance"),
        charts,
        _queries(data),
    )


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def render_page(data: PageData) -> str:
    """The whole report page as one HTML document (UTF-8), deterministic for its input.

    A Content-Security-Policy allows nothing but the page's own style and (by its hash)
    its own script, so the file provably loads nothing from anywhere.
    """
    head = el(
        "head",
        el("meta", charset="utf-8"),
        el("meta", name="generator", content=HTML_GENERATOR),  # the report's mark
        el("meta", attrs={"http-equiv": "Content-Security-Policy"}, content=_csp(SCRIPT)),
        el("meta", name="viewport", content="width=device-width, initial-scale=1"),
        el("title", data.title),
        el("link", rel="icon", href="data:,"),
        el("style", Raw(STYLE)),
    )
    body = el("body", _body(data), el("script", Raw(SCRIPT)))
    return "<!DOCTYPE html>\n" + el("html", head, body, lang="en").markup + "\n"


def _palette_css() -> str:
    return "".join(f".c{i}{{background:{c}}}" for i, c in enumerate(svg.PALETTE))


STYLE = """
:root{color-scheme:light;--ink:#1f2328;--muted:#57606a;--line:#d0d7de;--panel:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--ink);
 font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1320px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:24px;margin:0 0 2px}
h2{font-size:18px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:16px 0 6px}
.note{color:var(--muted);margin:2px 0 8px}
code,pre,.ranked li{
 font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
.verdict{margin:16px 0;padding:12px 16px;border:1px solid;border-left-width:6px;border-radius:6px}
.verdict .headline{margin:0;font-size:16px}
.verdict .word{font-weight:700;letter-spacing:.04em}
.verdict-body{display:flex;flex-wrap:wrap;gap:8px 40px;align-items:flex-start}
.verdict pre{margin:8px 0 0;white-space:pre;overflow:auto;font-size:12.5px;line-height:1.4;
 flex:1 1 100%;min-width:0;max-height:min(30em,60vh)}
.glance{display:flex;flex-wrap:wrap;gap:0 48px;align-items:flex-start}
.glance>section{flex:0 1 auto;min-width:0}.glance>.warnings{flex:1 1 320px}
.toc{display:flex;gap:16px;font-size:13px;margin:4px 0 0}
.toc a{color:#0969da;text-decoration:none}.toc a:hover{text-decoration:underline}
.verdict.tone-good{background:#dafbe1;border-color:#1a7f37}.verdict.tone-good .word{color:#116329}
.verdict.tone-bad{background:#ffebe9;border-color:#cf222e}.verdict.tone-bad .word{color:#a40e26}
.verdict.tone-warn{background:#fff8c5;border-color:#bf8700}.verdict.tone-warn .word{color:#7d4e00}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--panel);border-bottom:2px solid var(--line);white-space:nowrap}
.num{text-align:right;white-space:nowrap}
.ci{color:var(--muted);font-size:12px}
.drop{color:#a40e26;font-weight:600}
.breached{margin-top:4px;background:#fff}
.overview td,.overview th{padding:6px 12px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;
 vertical-align:baseline;-webkit-print-color-adjust:exact;print-color-adjust:exact}
.controls{display:flex;flex-wrap:wrap;gap:8px 20px;align-items:center;margin:8px 0 12px;
 padding:8px 12px;background:var(--panel);border:1px solid var(--line);border-radius:6px}
.controls[hidden],[hidden]{display:none!important}
.controls label{font-weight:600}
select{font:inherit;padding:2px 4px;margin-left:4px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));
 gap:12px 28px;align-items:start}
figure{margin:0 0 12px}
figcaption{font-weight:600;font-size:13px;color:var(--muted);margin:0 0 4px}
svg.chart{display:block;width:100%;height:auto;max-width:100%}
figure.wide svg.chart{max-width:1120px}
.queries{width:100%;font-size:13px;table-layout:fixed}
.queries thead th{position:sticky;top:0;z-index:1;white-space:normal;font-size:12px;
 padding:6px 5px;vertical-align:bottom}
.queries tbody tr:hover{background:#f6f8fa}
.queries td{overflow-wrap:break-word}
.w-config{width:7.5rem}.w-query{width:16%}.w-category{width:7.5rem}.w-outcome{width:5.5rem}
.w-metric{width:4.25rem}.w-notes{width:12%}
.qtext{color:var(--muted);font-size:12px}
.queries .na{color:var(--muted)}
td.active{background:#f0f7ff}
thead th.active{background:#cfe8ff}
.outcome{font-weight:600}
.incomplete{border:2px solid #a40e26;color:#a40e26;padding:.5em;font-weight:bold}
.outcome.passed{color:#116329}.outcome.failed,.outcome.error{color:#a40e26}
.outcome.skipped{color:var(--muted)}.outcome.xfailed,.outcome.xpassed{color:#7d4e00}
.ranked{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:3px;
 counter-reset:rank}
.ranked li{font-size:11.5px;padding:0 3px;border:1px solid #d8dee4;border-radius:3px;
 background:#fff;white-space:nowrap}
.ranked li::before{counter-increment:rank;content:counter(rank) ". ";color:var(--muted)}
.ranked li.rel{background:#dafbe1;border-color:#4ac26b;font-weight:600}
.ranked li.g1{background:#f0fff4;border-color:#8ddb9f}
.ranked li.g3{background:#b4f1c3;border-color:#2da44e}
.ranked li.unjudged{border-style:dashed;color:var(--muted)}
.ranked .grade{margin-left:3px;padding:0 3px;border-radius:2px;background:rgba(0,0,0,.08)}
.moves{list-style:none;margin:0;padding:0;font-size:12px}
.moves .down{color:#a40e26}.moves .down::before{content:"\\25BC  "}
.moves .up{color:#116329}.moves .up::before{content:"\\25B2  "}
.reason{font-size:12px;margin:0 0 2px;color:#a40e26}
button.sort{font:inherit;font-weight:600;color:inherit;background:none;border:0;padding:0;
 cursor:pointer;text-align:inherit}
button.sort::after{content:"\\a0\\2195";color:var(--muted)}
th[aria-sort=ascending] button.sort::after{content:"\\a0\\25B2";color:var(--ink)}
th[aria-sort=descending] button.sort::after{content:"\\a0\\25BC";color:var(--ink)}
button.sort:focus-visible,select:focus-visible{outline:2px solid #0969da;outline-offset:2px}
.warnings li{margin:2px 0}
.retrievers,.latency{margin-top:12px}.retrievers ul{list-style:none;margin:0;padding:0}
@media (max-width:900px){main{padding:12px}.table-wrap{overflow-x:auto}
 .queries{table-layout:auto;min-width:860px}.queries col{width:auto}
 .queries thead th{position:static}}
@page{margin:12mm}
@media print{
 body{font-size:10.5pt}main{max-width:none;padding:0}
 .controls,#no-rows,.toc{display:none!important}
 .queries{table-layout:auto;font-size:8pt;min-width:0}.queries col{width:auto}
 .table-wrap{overflow:visible}
 .queries thead th{position:static;font-size:8pt}
 .queries th,.queries td{padding:2px 4px}
 .ranked li{font-size:7pt;white-space:normal;overflow-wrap:anywhere}
 .queries code{overflow-wrap:anywhere}
 .qtext,.reason,.moves{font-size:7.5pt}
 thead{display:table-header-group}
 tr,figure,.verdict,.overview{break-inside:avoid}
 .verdict pre{white-space:pre-wrap;font-size:7.5pt;max-height:none;overflow:visible}
 h2,h3{break-after:avoid}
 .charts{display:block}
 svg.chart{max-height:24cm}
 .verdict,.ranked li,thead th{-webkit-print-color-adjust:exact;print-color-adjust:exact}
 button.sort::after{content:""}
}
""" + _palette_css()

SCRIPT = r"""
(function () {
  "use strict";
  var root = document.documentElement;
  function fail(message) { root.setAttribute("data-report-error", String(message)); }
  window.addEventListener("error", function (event) { fail(event.message); });
  function $(id) { return document.getElementById(id); }
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
  var table = $("queries"), tbody = table.tBodies[0], heads = table.tHead.rows[0].cells;
  var filters = ["category", "configuration", "outcome"];
  var sorted = null;
  // text in a person's order: q2 before q10, as a file manager sorts names
  var words = new Intl.Collator(undefined, {numeric: true});

  function key(cell, numeric) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) raw = cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    return raw === "" ? null : parseFloat(raw);
  }
  function sortBy(index, dir) {
    var numeric = heads[index].getAttribute("data-type") === "number";
    var rows = Array.prototype.map.call(tbody.rows, function (row, i) {
      return {row: row, key: key(row.cells[index], numeric), i: i};
    });
    rows.sort(function (a, b) {
      if (a.key === b.key) return a.i - b.i;
      if (a.key === null) return 1;
      if (b.key === null) return -1;
      var order = numeric ? (a.key < b.key ? -1 : 1) : words.compare(a.key, b.key);
      return (order || a.i - b.i) * (order ? dir : 1);
    });
    rows.forEach(function (r) { tbody.appendChild(r.row); });
    each(heads, function (th) { th.removeAttribute("aria-sort"); });
    heads[index].setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    sorted = {index: index, dir: dir};
  }
  function applyFilters() {
    var shown = 0;
    each(tbody.rows, function (row) {
      var ok = filters.every(function (name) {
        var want = $("f-" + name).value;
        return !want || row.getAttribute("data-" + name) === want;
      });
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    $("row-count").textContent = "Showing " + shown + " of " + tbody.rows.length + " rows";
    $("no-rows").hidden = shown > 0;
  }
  function showMetric(metric) {
    each(document.querySelectorAll("[data-metric-section]"), function (section) {
      section.hidden = section.getAttribute("data-metric-section") !== metric;
    });
    each(table.querySelectorAll("[data-metric]"), function (cell) {
      cell.classList.toggle("active", cell.getAttribute("data-metric") === metric);
    });
  }
  function column(name) {
    for (var i = 0; i < heads.length; i += 1) {
      if (heads[i].getAttribute("data-key") === name) return i;
    }
    return -1;
  }
  function saveState() {
    var state = new URLSearchParams();
    filters.concat(["metric"]).forEach(function (name) {
      var value = $("f-" + name).value;
      if (value) state.set(name, value);
    });
    if (sorted) {
      state.set("sort", heads[sorted.index].getAttribute("data-key") +
                (sorted.dir > 0 ? ":asc" : ":desc"));
    }
    try { history.replaceState(null, "", "#" + state.toString()); } catch (e) { /* file:// */ }
  }
  function choose(select, value) {
    var ok = Array.prototype.some.call(select.options, function (o) { return o.value === value; });
    if (ok) select.value = value;
    return ok;
  }
  function loadState() {
    var state = new URLSearchParams(location.hash.replace(/^#/, ""));
    filters.concat(["metric"]).forEach(function (name) {
      if (state.has(name)) choose($("f-" + name), state.get(name));
    });
    var sort = (state.get("sort") || "").split(":");
    var index = column(sort[0]);
    if (index >= 0) sortBy(index, sort[1] === "desc" ? -1 : 1);
  }
  function sortButtons() {
    each(heads, function (th, index) {
      if (th.hasAttribute("data-nosort")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.title = "sort by " + th.textContent;
      while (th.firstChild) button.appendChild(th.firstChild);  // a <wbr> too
      th.appendChild(button);
      button.addEventListener("click", function () {
        var again = sorted && sorted.index === index;
        sortBy(index, again ? -sorted.dir : 1);
        saveState();
      });
    });
  }
  function init() {
    sortButtons();
    filters.forEach(function (name) {
      $("f-" + name).addEventListener("change", function () { applyFilters(); saveState(); });
    });
    $("f-metric").addEventListener("change", function () {
      var metric = $("f-metric").value;
      showMetric(metric);
      sortBy(column(metric), 1);
      saveState();
    });
    loadState();
    showMetric($("f-metric").value);
    applyFilters();
    $("filters").hidden = false;
    $("metric-controls").hidden = false;
    root.setAttribute("data-report-ready", "1");
  }
  try { init(); } catch (error) { fail(error && error.message || error); throw error; }
})();
"""
