"""Inline SVG charts for the HTML report, drawn by the package without a plotting library.

Each chart function takes typed rows and returns one self-contained ``<svg>`` string that
is scalable (a ``viewBox`` and ``width="100%"``), accessible (``role="img"``, an
``aria-label``, a ``<title>`` on every mark), printable (patterns, markers and printed
numbers carry the meaning as well as colour) and deterministic: the same input gives
byte-identical markup, so a report diffs cleanly between runs. Pure Python, no imports
from the rest of the package.
"""

from __future__ import annotations

import hashlib
import html
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Okabe-Ito, reordered so that the first configurations get the most distinct colours;
# the yellow, weakest on white, comes last but one.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")
PATTERNS = ("solid", "stripes", "dots", "crosshatch", "lines", "backstripes")
FONT = "system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif"
INK, MUTED, GRID = "#1f2328", "#57606a", "#e1e4e8"
Attrs = dict[str, "str | float | None"]
CHAR_W = 0.58  # mean glyph advance of the sans-serif fonts above, in ems: for fitting labels
# Advance widths of printable ASCII (space to ~) in DejaVu Sans, in 1/1000 em. It is the
# sans-serif a Linux browser falls back to, and the widest of FONT's: a label column
# sized by it is not cut in the others ('medium' is 4.1 em there, 7 average glyphs).
_ASCII_EM = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
    636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
    1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
    603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
    500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
)  # fmt: skip
BOLD_W = 1.13  # bold glyphs are about 10% wider (DejaVu Sans Bold: 1.10 on ASCII)
LABEL_ROOM = 28 * 12 * CHAR_W  # the widest label column, in viewBox units

# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Bar:
    """One configuration's mean in one category, with its interval (None: not computed)."""

    label: str
    value: float | None
    lo: float | None = None
    hi: float | None = None
    n: int | None = None


@dataclass(frozen=True)
class BarGroup:
    """The bars of one category; ``overall`` marks the ``all`` row (drawn bold, set apart)."""

    category: str
    bars: Sequence[Bar]
    overall: bool = False


@dataclass(frozen=True)
class ForestRow:
    """One paired difference (configuration minus reference) with its interval.

    ``configuration`` picks the colour; ``note`` (e.g. the p-value) goes in the tooltip;
    consecutive rows of one ``group`` (e.g. a category) share a background band.
    """

    label: str
    delta: float | None
    lo: float | None
    hi: float | None
    significant: bool
    configuration: str = ""
    note: str = ""
    group: str = ""


@dataclass(frozen=True)
class DotSeries:
    """One configuration's per-query values: ``(query_id, value)``, None for n/a."""

    configuration: str
    points: Sequence[tuple[str, float | None]]


@dataclass(frozen=True)
class TrendPoint:
    """A metric's value in one logged run; ``time`` is a display string (e.g. ISO date)."""

    run_label: str
    time: str | None
    value: float | None
    lo: float | None = None
    hi: float | None = None


@dataclass(frozen=True)
class TrendLine:
    """One configuration's values over the same runs as the other lines of its chart."""

    configuration: str
    points: Sequence[TrendPoint]


# --------------------------------------------------------------------------- markup


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def esc(text: object) -> str:
    """Text or attribute value made safe for XML and HTML (quotes too; no control chars)."""
    return html.escape(_NOT_XML.sub("\ufffd", str(text)), quote=True)


def num(x: float) -> str:
    """A coordinate with at most two decimals, no trailing zeros, never ``-0``."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def tag(name: str, attrs: Mapping[str, str | float | None], *children: str) -> str:
    """An element; ``attrs`` in order, None left out, numbers through :func:`num`."""
    parts = [name]
    for key, value in attrs.items():
        if value is None:
            continue
        shown = num(value) if isinstance(value, (int, float)) else esc(value)
        parts.append(f'{key}="{shown}"')
    head = " ".join(parts)
    return f"<{head}>{''.join(children)}</{name}>" if children else f"<{head}/>"


def title(text: str) -> str:
    return tag("title", {}, esc(text))


def text_el(x: float, y: float, text: str, **style: str | float | None) -> str:
    """A ``<text>``; keyword styles use ``_`` for ``-`` (``text_anchor="end"``)."""
    attrs: Attrs = {"x": x, "y": y}
    attrs.update({k.replace("_", "-"): v for k, v in style.items()})
    return tag("text", attrs, esc(text))


def fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def fmt_signed(value: float) -> str:
    return f"{value:+.3f}".replace("-0.000", "+0.000")


def interval_text(lo: float | None, hi: float | None, signed: bool = False) -> str:
    if lo is None or hi is None:
        return ""
    show = fmt_signed if signed else fmt
    return f" [{show(lo)}, {show(hi)}]"


def finite(value: float | None) -> float | None:
    """None for a missing or non-finite number: NaN and infinities are shown as n/a."""
    return value if value is not None and math.isfinite(value) else None


def truncate(text: str, chars: int) -> str:
    """``text`` in at most ``chars`` characters, cut in the middle: names that share a
    long start (``hybrid-reranker-…-minilm-k1``, ``…-k2``) keep the end that tells them
    apart. A ``category · configuration`` label keeps its category whole when there is
    room, and cuts the configuration."""
    if len(text) <= chars:
        return text
    first, sep, rest = text.rpartition(" \u00b7 ")
    if sep and len(first) + len(sep) + 8 <= chars:
        return first + sep + truncate(rest, chars - len(first) - len(sep))
    if chars < 8:
        return text[: max(1, chars - 1)] + "\u2026"
    tail = (chars - 1) // 2
    return text[: chars - 1 - tail] + "\u2026" + text[len(text) - tail :]


def text_width(text: str, size: float = 12, bold: bool = False) -> float:
    """How wide ``text`` is drawn at font size ``size``, estimated from DejaVu Sans'
    advances: other letters below U+2000 (accented, Greek, Cyrillic) 0.7 em, an accent
    that combines none, and any other character (an arrow, an ellipsis, a wide East
    Asian glyph) a whole em."""
    total = 0
    for char in text:
        code = ord(char)
        if 32 <= code < 127:
            total += _ASCII_EM[code - 32]
        elif not unicodedata.combining(char):
            letter = code < 0x2000 and unicodedata.category(char).startswith("L")
            total += 700 if letter else 1000
    return total / 1000 * size * (BOLD_W if bold else 1.0)


def fit(text: str, chars: int, room: float, size: float = 12, bold: bool = False) -> int:
    """The most characters (at most ``chars``) that :func:`truncate` may keep of ``text``
    for it to fit in ``room``."""
    while chars > 1 and text_width(truncate(text, chars), size, bold) > room:
        chars -= 1
    return chars


def label_room(labels: Sequence[tuple[str, bool]], chars: int) -> float:
    """The width of a column of 12-pixel labels (text, bold), each cut to ``chars``
    characters, at most :data:`LABEL_ROOM` (a longer one is cut further by :func:`fit`)."""
    widths = [text_width(truncate(text, chars), bold=bold) for text, bold in labels]
    return min(LABEL_ROOM, max(widths, default=0.0))


def label_el(x: float, y: float, text: str, chars: int, **style: str | float | None) -> str:
    """A label cut to ``chars`` characters; a cut label carries the full text as <title>."""
    shown = truncate(text, chars)
    if shown == text:
        return text_el(x, y, text, **style)
    return tag("g", {"class": "truncated"}, title(text), text_el(x, y, shown, **style))


def uid(kind: str, payload: object) -> str:
    """An id prefix that differs between charts of one page and is stable across runs."""
    return kind + hashlib.blake2b(repr(payload).encode(), digest_size=4).hexdigest()


def unit(key: str) -> float:
    """A stable number in [0, 1) from a text: the jitter of a query's dot."""
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def order(names: Sequence[str], configurations: Sequence[str] | None) -> list[str]:
    """Configurations in colour order: the given order, then new names as they appear."""
    out = list(dict.fromkeys(configurations or ()))
    out.extend(n for n in dict.fromkeys(names) if n not in out)
    return out


def document(
    width: float, height: float, label: str, body: Sequence[str], cls: str = "chart"
) -> str:
    """The ``<svg>`` root: scalable, an image to assistive technology, titled."""
    attrs: Attrs = {
        "xmlns": "http://www.w3.org/2000/svg",
        "class": cls,
        "viewBox": f"0 0 {num(width)} {num(height)}",
        "width": "100%",
        "preserveAspectRatio": "xMinYMin meet",
        "role": "img",
        "aria-label": label,
        "font-family": FONT,
        "font-size": 12,
        "fill": INK,
    }
    return tag("svg", attrs, title(label), *body) + "\n"


def no_data(label: str, message: str = "no data", width: float = 640) -> str:
    """A small placeholder chart, so an empty section still says why it is empty."""
    box = tag(
        "rect",
        {"x": 0.5, "y": 0.5, "width": width - 1, "height": 47, "rx": 4, "fill": "#f6f8fa"},
    )
    frame = tag(
        "rect",
        {
            "x": 0.5,
            "y": 0.5,
            "width": width - 1,
            "height": 47,
            "rx": 4,
            "fill": "none",
            "stroke": "#d0d7de",
            "stroke-dasharray": "4 3",
        },
    )
    words = text_el(width / 2, 28, f"{label}: {message}", text_anchor="middle", fill=MUTED)
    return document(width, 48, f"{label}: {message}", [box, frame, words], cls="chart no-data")


# --------------------------------------------------------------------------- fills


def _pattern_marks(kind: str) -> str:
    white: Attrs = {"stroke": "#ffffff", "stroke-width": 1.6, "stroke-opacity": 0.75}
    if kind == "dots":
        return tag("circle", {"cx": 3, "cy": 3, "r": 1.3, "fill": "#ffffff", "fill-opacity": 0.8})
    if kind == "crosshatch":
        return tag("path", {"d": "M0 3H6M3 0V6", **white})
    return tag("path", {"d": "M0 3H6" if kind in ("lines", "backstripes") else "M3 0V6", **white})


def pattern_defs(prefix: str, count: int) -> str:
    """One fill per configuration: its colour, and from the second on a white texture."""
    patterns = []
    for i in range(count):
        kind = PATTERNS[i % len(PATTERNS)]
        if kind == "solid":
            continue
        rotate = {"stripes": 45, "backstripes": -45}.get(kind, 0)
        attrs: Attrs = {
            "id": f"{prefix}-f{i}",
            "patternUnits": "userSpaceOnUse",
            "width": 6,
            "height": 6,
            "patternTransform": f"rotate({rotate})" if rotate else None,
        }
        square = tag("rect", {"width": 6, "height": 6, "fill": colour(i)})
        patterns.append(tag("pattern", attrs, square, _pattern_marks(kind)))
    return tag("defs", {}, *patterns) if patterns else ""


def fill(prefix: str, index: int) -> str:
    if PATTERNS[index % len(PATTERNS)] == "solid":
        return colour(index)
    return f"url(#{prefix}-f{index})"


def legend(prefix: str, names: Sequence[str], x: float, y: float, width: float) -> str:
    """Swatches with the configuration names, wrapping onto more rows when needed."""
    items, cx, cy = [], x, y
    for i, name in enumerate(names):
        step = 22 + text_width(truncate(name, 24)) + 16
        if cx > x and cx + step > width:
            cx, cy = x, cy + 18
        swatch: Attrs = {"x": cx, "y": cy - 10, "width": 14, "height": 12, "rx": 2}
        mark = tag("rect", {**swatch, "fill": fill(prefix, i), "stroke": colour(i)})
        items.append(tag("g", {"class": "legend-item"}, mark, label_el(cx + 20, cy, name, 24)))
        cx += step
    return tag("g", {"class": "legend"}, *items)


def legend_height(names: Sequence[str], x: float, width: float) -> float:
    rows, cx = 1, x
    for name in names:
        step = 22 + text_width(truncate(name, 24)) + 16
        if cx > x and cx + step > width:
            rows, cx = rows + 1, x
        cx += step
    return rows * 18.0


# --------------------------------------------------------------------------- axes


def nice_step(span: float, ticks: int = 4) -> float:
    """A 1-2-2.5-5 step that cuts ``span`` into about ``ticks`` pieces."""
    raw = max(span, 1e-9) / ticks
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if factor * magnitude >= raw - 1e-12:
            return factor * magnitude
    return 10.0 * magnitude


MAX_LIMIT = 1e6


def symmetric_limit(values: Sequence[float]) -> tuple[float, float]:
    """(limit, step): the smallest tick-aligned ``limit`` with every ``|value| <= limit``.

    Values beyond ``MAX_LIMIT`` (never a difference of metrics in 0..1) are cut to it, so
    the arithmetic stays finite; their markers sit at the end of the axis.
    """
    biggest = min(MAX_LIMIT, max((abs(v) for v in values), default=0.0)) or 0.05
    step = nice_step(biggest)
    limit = math.ceil(biggest / step - 1e-9) * step
    while limit < biggest:
        limit += step
    return limit, step


def tick_text(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def x_axis(
    lo: float, hi: float, step: float, box: tuple[float, float, float, float], caption: str
) -> str:
    """Vertical grid lines with tick labels under the plot, and the axis caption."""
    x0, x1, top, bottom = box
    marks, count = [], round((hi - lo) / step)
    for i in range(count + 1):
        value = lo + i * step
        x = x0 + (value - lo) / (hi - lo) * (x1 - x0)
        marks.append(tag("line", {"x1": x, "x2": x, "y1": top, "y2": bottom, "stroke": GRID}))
        marks.append(
            text_el(
                x, bottom + 14, tick_text(value), text_anchor="middle", fill=MUTED, font_size=11
            )
        )
    marks.append(
        text_el((x0 + x1) / 2, bottom + 32, caption, text_anchor="middle", fill=MUTED, font_size=11)
    )
    return tag("g", {"class": "axis"}, *marks)


def label_chars(labels: Sequence[str], least: int = 6, most: int = 28) -> int:
    return max(least, min(most, max((len(s) for s in labels), default=least)))


# --------------------------------------------------------------------------- category bars


@dataclass(frozen=True)
class _BarFrame:
    """Where the plot of :func:`category_bars` sits, in viewBox units."""

    x0: float
    x1: float
    top: float
    bar_h: float
    group_h: float
    chars: int

    def x(self, value: float) -> float:
        return self.x0 + min(1.0, max(0.0, value)) * (self.x1 - self.x0)


def _bar_frame(groups: Sequence[BarGroup], names: Sequence[str], width: float) -> _BarFrame:
    chars = label_chars([g.category for g in groups])
    x0 = 12 + label_room([(g.category, g.overall) for g in groups], chars)
    bar_h = 12.0 if len(groups) <= 12 else 8.0
    per = max((len(g.bars) for g in groups), default=1)
    top = 14 + legend_height(names, 0, width) + 6
    return _BarFrame(x0, width - 52, top, bar_h, per * (bar_h + 2) + 12, chars)


def _whisker(
    x_lo: float, x_hi: float, y: float, half: float, stroke: str = INK, weight: float = 1.3
) -> str:
    """An interval as a horizontal line with end caps ``half`` high on each side.

    A white halo under it keeps it visible where it crosses a dark bar.
    """
    d = f"M{num(x_lo)} {num(y)}H{num(x_hi)}"
    d += f"M{num(x_lo)} {num(y - half)}V{num(y + half)}M{num(x_hi)} {num(y - half)}V{num(y + half)}"
    halo: Attrs = {"class": "halo", "d": d, "stroke": "#ffffff", "stroke-width": weight + 1.4}
    line: Attrs = {"class": "whisker", "d": d, "stroke": stroke, "stroke-width": weight}
    return tag("path", {**halo, "stroke-opacity": 0.7}) + tag("path", line)


def _one_bar(bar: Bar, y: float, f: _BarFrame, prefix: str, index: int, category: str) -> str:
    value, lo, hi = finite(bar.value), finite(bar.lo), finite(bar.hi)
    n = f", n={bar.n}" if bar.n is not None else ""
    tip = f"{bar.label} \u00b7 {category}: {fmt(value)}{interval_text(lo, hi)}{n}"
    if value is None:
        na = text_el(f.x0 + 4, y + f.bar_h - 2, "n/a", fill=MUTED, font_size=10.5)
        return tag("g", {"class": "na"}, title(tip), na)
    rect: Attrs = {"class": "bar", "x": f.x0, "y": y, "width": f.x(value) - f.x0, "height": f.bar_h}
    parts = [
        tag("rect", {**rect, "fill": fill(prefix, index), "stroke": colour(index)}, title(tip))
    ]
    end = f.x(value)
    if lo is not None and hi is not None:
        parts.append(_whisker(f.x(lo), f.x(hi), y + f.bar_h / 2, f.bar_h / 2 - 1))
        end = max(end, f.x(hi))
    parts.append(text_el(end + 4, y + f.bar_h - 2, fmt(value), font_size=10.5))
    return "".join(parts)


def _bar_group(group: BarGroup, top: float, f: _BarFrame, prefix: str, names: Sequence[str]) -> str:
    middle = top + (f.group_h - 12) / 2 + 4
    weight = "700" if group.overall else None
    chars = fit(group.category, f.chars, f.x0 - 12, bold=group.overall)
    parts = [
        label_el(f.x0 - 8, middle, group.category, chars, text_anchor="end", font_weight=weight)
    ]
    if group.overall:
        rule: Attrs = {"x1": 0, "x2": f.x1, "y1": top - 6, "y2": top - 6, "stroke": "#8c959f"}
        parts.append(tag("line", rule))
    for i, bar in enumerate(group.bars):
        index = names.index(bar.label)
        parts.append(_one_bar(bar, top + i * (f.bar_h + 2), f, prefix, index, group.category))
    return tag("g", {"class": "bar-group", "data-category": group.category}, *parts)


def category_bars(
    groups: Sequence[BarGroup],
    metric: str,
    configurations: Sequence[str] | None = None,
    width: float = 640,
) -> str:
    """Per-category grouped bars, one per configuration, with 95% interval whiskers.

    Horizontal bars so that any number of categories fits: the chart grows in height and
    category labels stay horizontal (long ones cut, the full text in a <title>). The axis
    is the metric's 0..1 range; each bar prints its mean, so no reading relies on colour.
    """
    label = f"{metric} by category"
    if not any(g.bars for g in groups):
        return no_data(label, width=width)
    names = order([b.label for g in groups for b in g.bars], configurations)
    f = _bar_frame(groups, names, width)
    prefix = uid("cb", (groups, metric, names))
    body = [pattern_defs(prefix, len(names)), legend(prefix, names, 0, 14, width)]
    bottom = f.top + len(groups) * f.group_h
    caption = f"{metric}: mean per category; whisker = 95% interval"
    body.append(x_axis(0.0, 1.0, 0.2, (f.x0, f.x1, f.top - 4, bottom), caption))
    for i, group in enumerate(groups):
        body.append(_bar_group(group, f.top + i * f.group_h, f, prefix, names))
    aria = f"{label}: {len(groups)} categories, configurations {', '.join(names)}"
    return document(width, bottom + 40, aria, body)


# --------------------------------------------------------------------------- forest plot


@dataclass(frozen=True)
class _ForestFrame:
    x0: float
    x1: float
    top: float
    limit: float
    chars: int
    row_h: float = 22.0

    def x(self, value: float) -> float:
        clamped = min(self.limit, max(-self.limit, value))
        return self.x0 + (clamped + self.limit) / (2 * self.limit) * (self.x1 - self.x0)


def _forest_values(rows: Sequence[ForestRow]) -> list[float]:
    values: list[float] = []
    for row in rows:
        values.extend(
            v for v in (finite(row.delta), finite(row.lo), finite(row.hi)) if v is not None
        )
    return values


def _forest_text(row: ForestRow) -> str:
    """What a row prints on the right: ``+0.120 [+0.050, +0.190] *``."""
    delta, lo, hi = finite(row.delta), finite(row.lo), finite(row.hi)
    if delta is None:
        return "n/a"
    star = " *" if row.significant else ""
    return fmt_signed(delta) + interval_text(lo, hi, signed=True) + star


def _shaded(rows: Sequence[ForestRow]) -> list[bool]:
    """Which rows get a band: every other group (a row without a group is its own)."""
    out, shade, previous = [], False, None
    for i, row in enumerate(rows):
        key = row.group or f"\0{i}"
        if key != previous:
            shade, previous = not shade, key
        out.append(shade)
    return out


def _forest_bands(rows: Sequence[ForestRow], f: _ForestFrame, width: float) -> str:
    """The background bands, drawn first so that grid and zero line stay on top."""
    bands = []
    for i, shaded in enumerate(_shaded(rows)):
        if shaded:
            band: Attrs = {"x": 0, "y": f.top + i * f.row_h, "width": width, "height": f.row_h}
            bands.append(tag("rect", {**band, "fill": "#f6f8fa"}))
    return tag("g", {"class": "bands"}, *bands) if bands else ""


def _forest_row(row: ForestRow, i: int, f: _ForestFrame, index: int) -> str:
    y = f.top + i * f.row_h
    mid = y + f.row_h / 2
    delta, lo, hi = finite(row.delta), finite(row.lo), finite(row.hi)
    chars = fit(row.label, f.chars, f.x0 - 12)
    parts = [label_el(f.x0 - 8, mid + 4, row.label, chars, text_anchor="end")]
    star = " *" if row.significant and delta is not None else ""
    shown = _forest_text(row)
    weight = "700" if star else None
    parts.append(text_el(f.x1 + 10, mid + 4, shown, font_size=11, font_weight=weight))
    if delta is not None:
        parts.append(_forest_marks(delta, lo, hi, mid, f, colour(index), row.significant))
    note = f"; {row.note}" if row.note else ""
    tip = f"{row.label}: {shown}{' (significant)' if star else ''}{note}"
    attrs: Attrs = {"class": "forest-row", "data-significant": "true" if star else "false"}
    return tag("g", attrs, title(tip), *parts)


def _forest_marks(
    delta: float,
    lo: float | None,
    hi: float | None,
    mid: float,
    f: _ForestFrame,
    ink: str,
    significant: bool,
) -> str:
    parts = []
    if lo is not None and hi is not None:
        parts.append(_whisker(f.x(lo), f.x(hi), mid, 4, stroke=ink, weight=2))
    dot: Attrs = {"class": "marker", "cx": f.x(delta), "cy": mid, "r": 4.5, "stroke": ink}
    dot.update({"fill": ink} if significant else {"fill": "#ffffff", "stroke-width": 1.8})
    parts.append(tag("circle", dot))
    return "".join(parts)


def forest_plot(
    rows: Sequence[ForestRow],
    metric: str,
    reference: str,
    configurations: Sequence[str] | None = None,
    width: float = 640,
) -> str:
    """Paired differences from ``reference`` with 95% intervals around a zero line.

    The axis is symmetric and covers every interval; significant differences (after the
    multiple-comparison correction) get a filled marker and a printed ``*``, the others
    a hollow marker; each row prints its delta and interval.
    """
    label = f"{metric}: difference from {reference}"
    if not rows:
        return no_data(label, "no comparison", width=width)
    names = order([r.configuration for r in rows if r.configuration], configurations)
    limit, step = symmetric_limit(_forest_values(rows))
    chars = label_chars([r.label for r in rows])
    # the printed column, sized for its longest text (bold, so a little wider per glyph)
    column = 20 + max(text_width(_forest_text(r), 11, r.significant) for r in rows)
    room = label_room([(r.label, False) for r in rows], chars)
    f = _ForestFrame(12 + room, width - column, 30, limit, chars)
    bottom = f.top + len(rows) * f.row_h
    caption = f"{metric} difference, configuration minus {reference} (95% interval)"
    body = [_forest_bands(rows, f, width)]
    body.append(x_axis(-limit, limit, step, (f.x0, f.x1, f.top - 4, bottom), caption))
    body.append(_forest_header(f, reference, bottom))
    for i, row in enumerate(rows):
        index = names.index(row.configuration) if row.configuration else len(PALETTE) - 1
        body.append(_forest_row(row, i, f, index))
    aria = f"{label}: {len(rows)} rows, {sum(r.significant for r in rows)} significant"
    return document(width, bottom + 40, aria, body, cls="chart forest")


def _forest_header(f: _ForestFrame, reference: str, bottom: float) -> str:
    """The zero line and, above it, which side is better: the reference's name cut to the
    room each side has (the right one ends where the printed column starts)."""
    zero = f.x(0.0)
    line: Attrs = {"x1": zero, "x2": zero, "y1": f.top - 8, "y2": bottom, "stroke": INK}
    small: Attrs = {"fill": MUTED, "font_size": 11}
    most = len(reference)
    left = fit(reference, most, zero - 10 - text_width("\u2190  better", 11), 11)
    right = fit(reference, most, f.x1 - 2 - zero - text_width("better than  \u2192", 11), 11)
    worse, better = truncate(reference, left), truncate(reference, right)
    parts = [
        tag("line", {**line, "stroke-width": 1.2}),
        text_el(zero - 6, f.top - 12, f"\u2190 {worse} better", text_anchor="end", **small),
        text_el(zero + 6, f.top - 12, f"better than {better} \u2192", **small),
        text_el(f.x1 + 10, f.top - 12, "delta [95% interval]", **small),
    ]
    if (worse, better) != (reference, reference):
        parts.insert(0, title(f"reference: {reference}"))
    return tag("g", {"class": "zero"}, *parts)


# --------------------------------------------------------------------------- query dots


def _dot(qid: str, value: float, x: float, y: float, index: int) -> str:
    dot: Attrs = {"class": "dot", "cx": x, "cy": y, "r": 3.2, "fill": colour(index)}
    dot.update({"fill-opacity": 0.55, "stroke": colour(index), "stroke-width": 0.8})
    return tag("circle", dot, title(f"{qid}: {value:.3f}"))


def _lane(
    s: DotSeries, i: int, index: int, box: tuple[float, float, float, float], chars: int
) -> str:
    """One configuration's lane: its dots, spread by query id, and its summary."""
    x0, x1, top, lane_h = box
    y0 = top + i * lane_h
    back: Attrs = {"x": x0, "y": y0 + 2, "width": x1 - x0, "height": lane_h - 4}
    parts = [tag("rect", {**back, "fill": "#f6f8fa" if i % 2 == 0 else "#ffffff"})]
    chars = fit(s.configuration, chars, x0 - 12)
    parts.append(label_el(x0 - 8, y0 + lane_h / 2 + 4, s.configuration, chars, text_anchor="end"))
    values = [(qid, finite(v)) for qid, v in s.points]
    share = MAX_DOTS / len(values) if len(values) > MAX_DOTS else 1.0
    for qid, v in sorted(values, key=lambda p: p[0]):
        jitter = unit(qid) / share  # the sample's hashes (under share) span the lane
        if v is not None and jitter < 1.0:
            x = x0 + min(1.0, max(0.0, v)) * (x1 - x0)
            y = y0 + lane_h / 2 + (jitter - 0.5) * (lane_h - 14)
            parts.append(_dot(qid, v, x, y, index))
    kept = [v for _, v in values if v is not None]
    parts.append(_lane_summary(kept, len(values) - len(kept), box, y0))
    return tag("g", {"class": "lane", "data-configuration": s.configuration}, *parts)


def _lane_summary(
    kept: Sequence[float], missing: int, box: tuple[float, float, float, float], y0: float
) -> str:
    """The mean as a line and in words; how many are n/a, and how many sit at 0 and 1.

    The piles at exactly 0 and 1 (saturated or abstaining queries) overlap into one
    column of dots, so their sizes are printed.
    """
    x0, x1, _, lane_h = box
    mid, parts = y0 + lane_h / 2, []
    if kept:
        mean = math.fsum(kept) / len(kept)
        x = x0 + min(1.0, max(0.0, mean)) * (x1 - x0)
        line: Attrs = {"class": "mean", "x1": x, "x2": x, "y1": y0 + 4, "y2": y0 + lane_h - 4}
        parts.append(tag("line", {**line, "stroke": INK, "stroke-width": 2}))
        parts.append(text_el(x1 + 8, mid - 6, f"mean {mean:.3f}", font_size=11))
    counts = f"n={len(kept)}" + (f", n/a {missing}" if missing else "")
    parts.append(text_el(x1 + 8, mid + 8, counts, font_size=10.5, fill=MUTED))
    piles = [f"{n} at {end}" for end, n in (("0", kept.count(0.0)), ("1", kept.count(1.0))) if n]
    if piles:
        parts.append(text_el(x1 + 8, mid + 21, ", ".join(piles), font_size=10.5, fill=MUTED))
    return "".join(parts)


MAX_DOTS = 2500  # per lane: beyond, a stable share of the queries (by id hash) is drawn


def query_dots(
    series: Sequence[DotSeries],
    metric: str,
    configurations: Sequence[str] | None = None,
    width: float = 960,
) -> str:
    """Every query's value as a dot, one lane per configuration, so outliers show.

    Dots are spread vertically by a hash of the query id (deterministic, never random),
    each with a ``<title>`` "query-id: 0.734"; a black line marks the lane's mean. A lane
    of more than :data:`MAX_DOTS` queries draws a stable sample of them (the same query
    ids in every lane); its mean and counts are over all of them.
    """
    label = f"{metric} per query"
    if not any(s.points for s in series):
        return no_data(label, width=width)
    names = order([s.configuration for s in series], configurations)
    chars = label_chars([s.configuration for s in series])
    room = label_room([(s.configuration, False) for s in series], chars)
    x0, x1, top, lane_h = 12 + room, width - 128, 8.0, 56.0
    bottom = top + len(series) * lane_h
    caption = f"{metric} of each query (dot = one query, line = mean)"
    body = [x_axis(0.0, 1.0, 0.1, (x0, x1, top, bottom), caption)]
    for i, s in enumerate(series):
        body.append(_lane(s, i, names.index(s.configuration), (x0, x1, top, lane_h), chars))
    dots = sum(1 for s in series for _, v in s.points if finite(v) is not None)
    aria = f"{label}: {dots} values in {len(series)} configurations"
    return document(width, bottom + 40, aria, body, cls="chart dots")


# --------------------------------------------------------------------------- trend


@dataclass(frozen=True)
class _TrendFrame:
    x0: float
    x1: float
    top: float
    bottom: float
    lo: float
    hi: float
    count: int

    def x(self, i: int) -> float:
        return self.x0 + (i + 0.5) * (self.x1 - self.x0) / self.count

    def y(self, value: float) -> float:
        clamped = min(self.hi, max(self.lo, value))
        return self.bottom - (clamped - self.lo) / (self.hi - self.lo) * (self.bottom - self.top)


def _trend_range(points: Sequence[TrendPoint]) -> tuple[float, float, float]:
    """(low, high, step): tick-aligned, inside 0..1, at least 0.1 wide."""
    values = [v for p in points for v in (finite(p.value), finite(p.lo), finite(p.hi))]
    kept = [min(1.0, max(0.0, v)) for v in values if v is not None] or [0.0, 1.0]
    low, high = min(kept), max(kept)
    if high - low < 0.1:
        low = min(0.9, max(0.0, (high + low) / 2 - 0.05))
        high = low + 0.1
    step = nice_step(high - low, 5)
    low = math.floor(low / step + 1e-9) * step
    high = math.ceil(high / step - 1e-9) * step
    return max(0.0, low), min(1.0, high), step


def _runs(points: Sequence[TrendPoint], has: str) -> list[list[int]]:
    """Indices of consecutive points that have a value (``value``) or an interval."""
    runs: list[list[int]] = [[]]
    for i, p in enumerate(points):
        present = (
            finite(p.value) is not None
            if has == "value"
            else finite(p.lo) is not None and finite(p.hi) is not None
        )
        if present:
            runs[-1].append(i)
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if r]


def _band(points: Sequence[TrendPoint], f: _TrendFrame, ink: str) -> list[str]:
    """The intervals as a translucent polygon per run of points that have one.

    A lone interval (its neighbours have none) is drawn as a thick translucent bar.
    """
    shapes = []
    for run in _runs(points, "interval"):
        upper = [(f.x(i), f.y(points[i].hi or 0.0)) for i in run]
        lower = [(f.x(i), f.y(points[i].lo or 0.0)) for i in reversed(run)]
        if len(run) == 1:
            (x, top), (_, low) = upper[0], lower[0]
            bar: Attrs = {"class": "band", "d": f"M{num(x)} {num(top)}V{num(low)}"}
            bar.update({"stroke": ink, "stroke-width": 6, "stroke-opacity": 0.2})
            shapes.append(tag("path", bar))
            continue
        coords = " ".join(f"{num(x)},{num(y)}" for x, y in upper + lower)
        shape: Attrs = {"class": "band", "points": coords, "fill": ink}
        shapes.append(tag("polygon", {**shape, "fill-opacity": 0.16, "stroke": "none"}))
    return shapes


def _trend_line(points: Sequence[TrendPoint], f: _TrendFrame, ink: str) -> list[str]:
    d = ""
    for run in _runs(points, "value"):
        d += "".join(
            f"{'M' if j == 0 else 'L'}{num(f.x(i))} {num(f.y(points[i].value or 0.0))}"
            for j, i in enumerate(run)
        )
    line: Attrs = {"class": "line", "d": d, "fill": "none", "stroke": ink, "stroke-width": 2}
    return [tag("path", line)] if d else []


def _trend_markers(points: Sequence[TrendPoint], f: _TrendFrame, ink: str) -> list[str]:
    marks = []
    for i, p in enumerate(points):
        value = finite(p.value)
        when = f" ({p.time})" if p.time else ""
        tip = f"{p.run_label}{when}: {fmt(value)}{interval_text(finite(p.lo), finite(p.hi))}"
        if value is None:
            marks.append(
                tag(
                    "g",
                    {"class": "na"},
                    title(tip),
                    text_el(
                        f.x(i), f.bottom - 4, "n/a", text_anchor="middle", fill=MUTED, font_size=10
                    ),
                )
            )
            continue
        dot: Attrs = {
            "class": "point",
            "cx": f.x(i),
            "cy": f.y(value),
            "r": 4,
            "fill": "#ffffff",
            "stroke": ink,
            "stroke-width": 2,
        }
        marks.append(tag("circle", dot, title(tip)))
    return marks


def _run_labels(points: Sequence[TrendPoint], f: _TrendFrame) -> list[str]:
    """Run labels with their time under them, every ``every``-th so that none overlap."""
    slot = (f.x1 - f.x0) / f.count
    every = max(1, math.ceil(11 * 12 * CHAR_W / slot))
    chars = max(4, int(slot * every / (11 * CHAR_W)) - 1)
    marks = []
    for i, p in enumerate(points):
        if i % every:
            continue
        x = f.x(i)
        marks.append(
            label_el(x, f.bottom + 16, p.run_label, chars, text_anchor="middle", font_size=11)
        )
        if p.time:
            small: Attrs = {"text_anchor": "middle", "font_size": 10, "fill": MUTED}
            marks.append(label_el(x, f.bottom + 30, p.time, chars, **small))
    return marks


def _trend_axes(points: Sequence[TrendPoint], f: _TrendFrame, step: float, metric: str) -> str:
    marks = []
    for k in range(round((f.hi - f.lo) / step) + 1):
        value, y = f.lo + k * step, f.y(f.lo + k * step)
        marks.append(tag("line", {"x1": f.x0, "x2": f.x1, "y1": y, "y2": y, "stroke": GRID}))
        tick: Attrs = {"text_anchor": "end", "fill": MUTED, "font_size": 11}
        marks.append(text_el(f.x0 - 6, y + 4, tick_text(value), **tick))
    marks += _run_labels(points, f)
    caption = f"{metric} per run (band = 95% interval)"
    marks.append(text_el(f.x0, f.top - 8, caption, fill=MUTED, font_size=11))
    return tag("g", {"class": "axis"}, *marks)


def trend(
    points: Sequence[TrendPoint],
    metric: str,
    configuration_index: int = 0,
    width: float = 960,
) -> str:
    """A metric over logged runs, in the given order: a line with markers, an interval band.

    The value axis zooms to the data (tick-aligned, within 0..1, at least 0.1 wide) so a
    drift between runs is visible; x labels are the run labels, with the time under them,
    thinned when they would overlap.
    """
    label = f"{metric} over runs"
    if not points:
        return no_data(label, width=width)
    lo, hi, step = _trend_range(points)
    f = _TrendFrame(52, width - 16, 26, 206, lo, hi, len(points))
    ink = colour(configuration_index)
    body = [_trend_axes(points, f, step, metric)]
    body += _band(points, f, ink) + _trend_line(points, f, ink) + _trend_markers(points, f, ink)
    kept = [p for p in points if finite(p.value) is not None]
    aria = f"{label}: {len(points)} runs"
    if kept:
        aria += f", latest {fmt(kept[-1].value)} ({kept[-1].run_label})"
    return document(width, 250, aria, body, cls="chart trend")


DASHES = (None, "7 4", "2 3", "9 3 2 3", "4 4", "1 2")  # line styles, so print tells lines apart


def _trend_series(line: TrendLine, f: _TrendFrame, index: int) -> str:
    ink = colour(index)
    dash = DASHES[index % len(DASHES)]
    path = tag("g", {"stroke-dasharray": dash}, *_trend_line(line.points, f, ink))
    parts = [*_band(line.points, f, ink), path, *_trend_markers(line.points, f, ink)]
    return tag("g", {"class": "series", "data-configuration": line.configuration}, *parts)


def trends(
    lines: Sequence[TrendLine],
    metric: str,
    configurations: Sequence[str] | None = None,
    width: float = 960,
) -> str:
    """Several configurations' values over the same logged runs: one line (colour and dash
    per configuration), its markers and its interval band each, and a legend.

    The runs (x labels, time under them) are the longest line's; the value axis zooms to
    the data as :func:`trend` does.
    """
    label = f"{metric} over runs"
    drawn = [line for line in lines if line.points]
    if not drawn:
        return no_data(label, width=width)
    names = order([line.configuration for line in drawn], configurations)
    longest = max(drawn, key=lambda line: len(line.points))
    lo, hi, step = _trend_range([p for line in drawn for p in line.points])
    top = 34 + legend_height(names, 52, width)
    f = _TrendFrame(52, width - 16, top, top + 180, lo, hi, len(longest.points))
    prefix = uid("tr", (metric, names, len(longest.points)))
    body = [pattern_defs(prefix, len(names)), legend(prefix, names, 52, 14, width)]
    body.append(_trend_axes(longest.points, f, step, metric))
    body += [_trend_series(line, f, names.index(line.configuration)) for line in drawn]
    aria = f"{label}: {len(longest.points)} runs, configurations {', '.join(names)}"
    return document(width, f.bottom + 44, aria, body, cls="chart trend")
