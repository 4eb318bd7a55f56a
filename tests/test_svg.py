"""The report's SVG charts: well-formed, escaped, deterministic, and faithful to the input."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_retrieval.report import svg
from pytest_retrieval.report.svg import Bar, BarGroup, DotSeries, ForestRow, TrendPoint

NS = "{http://www.w3.org/2000/svg}"
NASTY = "<b>&amp;\"x'</b> & <script>alert(1)</script>"
CONFIGS = ["bm25", "dense", "fused"]


def parse(markup: str) -> ET.Element:
    """The chart as XML (fails the test when it is not well-formed)."""
    return ET.fromstring(markup)


def find(root: ET.Element, tag: str, cls: str | None = None) -> list[ET.Element]:
    found = root.iter(NS + tag)
    return [e for e in found if cls is None or cls in (e.get("class") or "").split()]


def texts(root: ET.Element) -> list[str]:
    return ["".join(e.itertext()) for e in find(root, "text")]


def titles(root: ET.Element) -> list[str]:
    return [e.text or "" for e in find(root, "title")]


def groups(categories: int = 5, configs: list[str] = CONFIGS) -> list[BarGroup]:
    out = []
    for c in range(categories):
        bars = [
            Bar(name, (c * 7 + i * 3) % 10 / 10, max(0.0, (c + i) % 10 / 10 - 0.1), 1.0, 12)
            for i, name in enumerate(configs)
        ]
        out.append(BarGroup(f"category-{c}", bars))
    return out


def forest(n: int = 4) -> list[ForestRow]:
    return [
        ForestRow(
            f"cat-{i} \u00b7 dense", 0.1 * i - 0.15, 0.1 * i - 0.3, 0.1 * i, i % 2 == 0, "dense"
        )
        for i in range(n)
    ]


def dots(n: int = 20) -> list[DotSeries]:
    return [DotSeries(c, [(f"q-{i}", (i * 37 % 100) / 100) for i in range(n)]) for c in CONFIGS]


def runs(n: int = 6) -> list[TrendPoint]:
    return [TrendPoint(f"#{i}", f"2025-11-{i + 1:02d}", 0.7 + i / 100, 0.65, 0.8) for i in range(n)]


CHARTS: dict[str, Callable[[], str]] = {
    "bars": lambda: svg.category_bars(groups(), "ndcg@10"),
    "forest": lambda: svg.forest_plot(forest(), "ndcg@10", "bm25"),
    "dots": lambda: svg.query_dots(dots(), "mrr"),
    "trend": lambda: svg.trend(runs(), "recall@20"),
}

# --------------------------------------------------------------------------- every chart


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_chart_is_a_scalable_accessible_image(name: str) -> None:
    root = parse(CHARTS[name]())
    assert root.tag == NS + "svg"
    assert root.get("role") == "img"
    assert root.get("aria-label")
    assert root.get("width") == "100%"
    x, y, w, h = (float(v) for v in (root.get("viewBox") or "").split())
    assert (x, y) == (0, 0) and w > 0 and h > 0
    first = root[0]
    assert first.tag == NS + "title" and first.text == root.get("aria-label")


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_chart_is_byte_identical_for_the_same_input(name: str) -> None:
    assert CHARTS[name]() == CHARTS[name]()


def test_output_does_not_depend_on_the_hash_seed() -> None:
    """Jitter and ids come from a stable hash, never from Python's salted ``hash()``."""
    code = (
        "from pytest_retrieval.report import svg\n"
        "s = [svg.DotSeries('a', [(f'q{i}', i / 50) for i in range(50)])]\n"
        "print(svg.query_dots(s, 'mrr') + svg.category_bars("
        "[svg.BarGroup('c', [svg.Bar('a', 0.5)])], 'mrr'))\n"
    )
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(Path(__file__).parents[1])}
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize(
    ("chart", "label"),
    [
        (lambda: svg.category_bars([], "ndcg@10"), "ndcg@10 by category: no data"),
        (lambda: svg.category_bars([BarGroup("c", [])], "m"), "m by category: no data"),
        (lambda: svg.forest_plot([], "mrr", "bm25"), "mrr: difference from bm25: no comparison"),
        (lambda: svg.query_dots([], "mrr"), "mrr per query: no data"),
        (lambda: svg.query_dots([DotSeries("a", [])], "mrr"), "mrr per query: no data"),
        (lambda: svg.trend([], "mrr"), "mrr over runs: no data"),
    ],
)
def test_empty_input_gives_a_small_no_data_chart(chart: Callable[[], str], label: str) -> None:
    root = parse(chart())
    assert root.get("aria-label") == label
    assert texts(root) == [label]
    assert "no-data" in (root.get("class") or "")


# --------------------------------------------------------------------------- escaping


def test_every_text_is_escaped_and_round_trips() -> None:
    charts = [
        svg.category_bars([BarGroup(NASTY, [Bar(NASTY, 0.5, 0.4, 0.6)])], NASTY),
        svg.forest_plot([ForestRow(NASTY, 0.1, 0.0, 0.2, True, NASTY, NASTY)], NASTY, NASTY),
        svg.query_dots([DotSeries(NASTY, [(NASTY, 0.5)])], NASTY),
        svg.trend([TrendPoint(NASTY, NASTY, 0.5, 0.4, 0.6)], NASTY),
    ]
    for markup in charts:
        assert "<script" not in markup and "<b>" not in markup
        root = parse(markup)
        assert not find(root, "script") and not find(root, "b")
        shown = " ".join(texts(root) + titles(root))
        assert NASTY in shown or NASTY[:10] in shown


def test_control_characters_in_ids_still_give_well_formed_xml() -> None:
    markup = svg.query_dots([DotSeries("a\x00b", [("q\x01\x1f", 0.5)])], "m\x0b")
    root = parse(markup)
    assert "q\ufffd\ufffd: 0.500" in titles(root)


@settings(max_examples=60, deadline=None)
@given(
    label=st.text(max_size=60),
    value=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
)
def test_any_label_and_value_give_well_formed_charts(label: str, value: float | None) -> None:
    parse(svg.category_bars([BarGroup(label, [Bar(label, value, value, value)])], label))
    parse(svg.forest_plot([ForestRow(label, value, value, value, True, label)], label, label))
    parse(svg.query_dots([DotSeries(label, [(label, value)])], label))
    parse(svg.trend([TrendPoint(label, label, value, value, value)], label))


# --------------------------------------------------------------------------- category bars


def test_bars_one_rect_per_value_with_whiskers_and_printed_means() -> None:
    data = groups(5)
    root = parse(svg.category_bars(data, "ndcg@10"))
    assert len(find(root, "rect", "bar")) == 15
    assert len(find(root, "path", "whisker")) == 15
    assert len(find(root, "g", "bar-group")) == 5
    printed = texts(root)
    for g in data:
        assert g.category in printed
        for b in g.bars:
            assert svg.fmt(b.value) in printed


def test_bars_legend_names_each_configuration_with_its_own_fill() -> None:
    root = parse(svg.category_bars(groups(2), "m"))
    items = find(root, "g", "legend-item")
    assert [texts(i) for i in items] == [["bm25"], ["dense"], ["fused"]]
    fills = [str(find(i, "rect")[0].get("fill")) for i in items]
    assert fills[0] == svg.PALETTE[0]
    assert len(set(fills)) == 3 and all(f.startswith("url(#") for f in fills[1:])
    pattern_ids = {p.get("id") for p in find(root, "pattern")}
    assert {f[5:-1] for f in fills[1:]} <= pattern_ids


def test_bar_colour_follows_the_configuration_order_not_the_chart() -> None:
    """A chart without bm25 still draws dense in dense's colour."""
    only_dense = [BarGroup("c", [Bar("dense", 0.5)])]
    root = parse(svg.category_bars(only_dense, "m", configurations=CONFIGS))
    assert find(root, "rect", "bar")[0].get("stroke") == svg.PALETTE[1]


def test_bars_none_value_is_na_and_none_interval_has_no_whisker() -> None:
    data = [BarGroup("c", [Bar("a", None), Bar("b", 0.4), Bar("c", 0.6, None, 0.7)])]
    root = parse(svg.category_bars(data, "m"))
    assert len(find(root, "rect", "bar")) == 2
    assert not find(root, "path", "whisker")
    na = find(root, "g", "na")
    assert len(na) == 1 and texts(na[0]) == ["n/a"]
    assert "a \u00b7 c: n/a" in titles(root)


def test_bars_at_zero_and_one_stay_inside_the_plot() -> None:
    data = [BarGroup("c", [Bar("a", 0.0, 0.0, 0.0), Bar("b", 1.0, 1.0, 1.0), Bar("c", 1.7)])]
    root = parse(svg.category_bars(data, "m"))
    zero, one, over = find(root, "rect", "bar")
    assert float(zero.get("width") or -1) == 0
    assert float(one.get("width") or 0) > 0
    assert one.get("width") == over.get("width")  # clamped to the axis
    width = float((root.get("viewBox") or "").split()[2])
    assert float(one.get("x") or 0) + float(one.get("width") or 0) < width


def test_many_categories_grow_the_chart_and_long_labels_are_cut_with_a_title() -> None:
    long = "a-category-name-much-longer-than-any-label-column"
    few = parse(svg.category_bars(groups(3), "m"))
    many_groups = [*groups(34), BarGroup(long, [Bar("bm25", 0.5)])]
    many = parse(svg.category_bars(many_groups, "m"))

    def height(root: ET.Element) -> float:
        return float((root.get("viewBox") or "").split()[3])

    assert height(many) > 5 * height(few)
    assert len(find(many, "g", "bar-group")) == 35
    cut = find(many, "g", "truncated")
    assert len(cut) == 1 and titles(cut[0]) == [long]
    shown = texts(cut[0])[0]
    assert "\u2026" in shown and len(shown) < len(long)
    head, tail = shown.split("\u2026")
    assert long.startswith(head) and long.endswith(tail) and tail  # cut in the middle


# 12-pixel widths in DejaVu Sans, the sans-serif a Linux browser (and headless chromium in
# CI) draws the charts with: measured with its font file, not with the package's estimate.
DEJAVU_12PX = {"medium": 49.33, "MMMMMM": 62.16, "Wwwwww": 60.92}
MEASURED = [  # (text, size, bold, width in DejaVu Sans)
    *((text, 12, False, width) for text, width in DEJAVU_12PX.items()),
    ("better than hybrid-rer\u2026-minilm-k1 \u2192", 12, False, 221.31),
    ("all \u00b7 hybrid-reranker", 12, False, 118.84),
    ("\u00dcn\u00efc\u00f8d\u00e9 na\u00efve", 12, False, 85.28),
    ("-0.333 [-0.666, -0.111] *", 11, True, 149.55),
]


@pytest.mark.parametrize(("text", "size", "bold", "measured"), MEASURED)
def test_text_width_is_at_least_the_drawn_width_and_not_far_above(
    text: str, size: float, bold: bool, measured: float
) -> None:
    """The estimate the charts fit labels with, against widths measured in the font."""
    assert measured - 0.1 <= svg.text_width(text, size, bold) <= measured * 1.15


@pytest.mark.parametrize("longest", sorted(DEJAVU_12PX))
def test_a_label_of_wide_letters_is_not_cut_at_the_charts_left_edge(longest: str) -> None:
    """Cranfield's categories short, medium, long: the column was sized for 6 average
    glyphs (45.8 pixels) and 'medium' (49.3) showed as 'nedium', its 'm' cut off."""
    data = [BarGroup(c, [Bar("bm25", 0.3, 0.2, 0.4)]) for c in ("long", longest, "short")]
    bars = parse(svg.category_bars([*data, BarGroup("all", data[0].bars, overall=True)], "m"))
    lanes = parse(svg.query_dots([DotSeries(longest, [("q1", 0.5)])], "m"))
    rows = [ForestRow(longest, 0.1, 0.0, 0.2, False, longest)]
    forest = parse(svg.forest_plot(rows, "m", "bm25"))
    for root in (bars, lanes, forest):
        (label,) = [e for e in find(root, "text") if "".join(e.itertext()) == longest]
        assert label.get("text-anchor") == "end"
        assert float(label.get("x") or 0) >= DEJAVU_12PX[longest] + 2, longest


def test_long_names_that_share_their_start_are_cut_apart() -> None:
    """Cut at the end, both legend entries, lanes and forest rows would read
    ``hybrid-reranker-cross…``; cut in the middle they keep ``k1`` and ``k2``."""
    names = ["hybrid-reranker-cross-encoder-minilm-k1", "hybrid-reranker-cross-encoder-minilm-k2"]
    legend = parse(svg.category_bars(groups(2, names), "m"))
    shown = [texts(g)[0] for g in find(legend, "g", "legend-item")]
    assert len(set(shown)) == 2 and all("\u2026" in t for t in shown), shown
    rows = [ForestRow(f"all \u00b7 {n}", 0.1, 0.0, 0.2, False, n) for n in names]
    forest = parse(svg.forest_plot(rows, "m", "bm25"))
    labels = [texts(g)[0] for g in find(forest, "g", "forest-row")]
    assert len(set(labels)) == 2 and labels[0].endswith("k1") and labels[1].endswith("k2")
    assert all(label.startswith("all \u00b7 hybrid-") for label in labels)  # category whole


def test_a_long_reference_name_does_not_run_into_the_printed_column() -> None:
    """``better than REFERENCE \u2192`` ends before ``delta [95% interval]`` starts: the
    name is cut to the room between the zero line and the column (full in a title)."""
    reference = "hybrid-reranker-cross-encoder-minilm-k1"
    rows = [ForestRow("all \u00b7 tfidf", 0.1, 0.0, 0.2, False, "tfidf")]
    root = parse(svg.forest_plot(rows, "m", reference))
    (zero,) = find(root, "g", "zero")
    by_text = {"".join(e.itertext()): e for e in find(zero, "text")}
    column = float(by_text["delta [95% interval]"].get("x") or 0)
    (right,) = [t for t in by_text if t.startswith("better than")]
    start = float(by_text[right].get("x") or 0)
    assert start + svg.text_width(right, 11) < column, right
    assert titles(zero) == [f"reference: {reference}"]


def test_overall_group_is_bold() -> None:
    data = [*groups(2), BarGroup("all", [Bar("bm25", 0.5)], overall=True)]
    root = parse(svg.category_bars(data, "m"))
    bold = [e for e in find(root, "text") if e.get("font-weight") == "700"]
    assert [e.text for e in bold] == ["all"]


# --------------------------------------------------------------------------- forest plot


def test_forest_marks_significant_rows_filled_with_a_star() -> None:
    rows = forest(4)
    root = parse(svg.forest_plot(rows, "ndcg@10", "bm25"))
    drawn = find(root, "g", "forest-row")
    assert len(drawn) == 4
    for row, g in zip(rows, drawn, strict=True):
        marker = find(g, "circle", "marker")[0]
        printed = " ".join(texts(g))
        assert row.label in printed
        if row.significant:
            assert g.get("data-significant") == "true"
            assert marker.get("fill") == marker.get("stroke")
            assert printed.endswith(" *")
        else:
            assert g.get("data-significant") == "false"
            assert marker.get("fill") == "#ffffff"
            assert "*" not in printed


def tick_values(root: ET.Element) -> list[float]:
    axis = find(root, "g", "axis")[0]
    return [float(t) for t in texts(axis)[:-1]]


def test_forest_printed_column_fits_the_chart() -> None:
    """The longest printed delta (with its star) ends inside the viewBox."""
    rows = [ForestRow("a", -0.333, -0.666, -0.111, True), ForestRow("b", 0.5, 0.25, 0.75, False)]
    root = parse(svg.forest_plot(rows, "m", "ref", width=640))
    width = float((root.get("viewBox") or "").split()[2])
    for g in find(root, "g", "forest-row"):
        text = next(e for e in find(g, "text") if (e.text or "").startswith(("+", "-")))
        bold = text.get("font-weight") == "700"
        end = float(text.get("x") or 0) + svg.text_width(text.text or "", 11, bold)
        assert end <= width, (text.text, end, width)


def test_forest_axis_is_symmetric_and_covers_every_interval() -> None:
    rows = [ForestRow("a", 0.05, -0.02, 0.31, True), ForestRow("b", -0.2, -0.43, 0.01, False)]
    ticks = tick_values(parse(svg.forest_plot(rows, "m", "ref")))
    assert ticks[0] == -ticks[-1]
    assert ticks[-1] >= 0.43
    assert 0.0 in ticks


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=12))
def test_symmetric_limit_covers_values_without_wasting_the_axis(values: list[float]) -> None:
    limit, step = svg.symmetric_limit(values)
    biggest = max(abs(v) for v in values)
    assert limit >= biggest
    assert limit < max(biggest, 0.05) * 2.5 + 1e-9
    assert 1 <= round(limit / step) <= 8
    assert abs(limit / step - round(limit / step)) < 1e-6


def test_trend_axis_stays_inside_0_1_and_at_least_0_1_wide() -> None:
    for values in ([1.0, 1.0], [0.0], [0.5, 0.52], [2.0, -1.0]):
        points = [TrendPoint(f"r{i}", None, v) for i, v in enumerate(values)]
        ticks = [
            float(t)
            for t in texts(find(parse(svg.trend(points, "m")), "g", "axis")[0])[:-1]
            if not t.startswith("r")
        ]
        assert min(ticks) >= 0.0 and max(ticks) <= 1.0
        assert max(ticks) - min(ticks) >= 0.1 - 1e-9
        assert min(ticks) <= min(max(0.0, v) for v in values) + 1e-9


def test_forest_row_without_delta_or_interval() -> None:
    rows = [
        ForestRow("no value", None, None, None, True),
        ForestRow("point", 0.1, None, None, False),
    ]
    root = parse(svg.forest_plot(rows, "m", "ref"))
    first, second = find(root, "g", "forest-row")
    assert "n/a" in texts(first) and not find(first, "circle")
    assert first.get("data-significant") == "false"  # nothing to be significant about
    assert len(find(second, "circle", "marker")) == 1 and not find(second, "path", "whisker")


def test_forest_names_the_reference_on_both_sides_of_zero() -> None:
    printed = texts(parse(svg.forest_plot(forest(), "m", "bm25")))
    assert "\u2190 bm25 better" in printed and "better than bm25 \u2192" in printed


# --------------------------------------------------------------------------- query dots


def test_dots_one_per_value_with_a_tooltip_and_na_counted() -> None:
    series = [
        DotSeries("a", [("q1", 0.734), ("q2", None), ("q3", 0.0)]),
        DotSeries("b", [("q1", 1.0)]),
    ]
    root = parse(svg.query_dots(series, "mrr"))
    circles = find(root, "circle", "dot")
    assert len(circles) == 3
    assert sorted(titles(root)[1:]) == ["q1: 0.734", "q1: 1.000", "q3: 0.000"]
    lane_a = find(root, "g", "lane")[0]
    assert "n=2, n/a 1" in texts(lane_a)
    assert "mean 0.367" in texts(lane_a)


def test_dot_jitter_depends_on_the_query_id_not_on_the_order() -> None:
    points = [(f"q-{i}", i / 30) for i in range(30)]
    forward = parse(svg.query_dots([DotSeries("a", points)], "m"))
    backward = parse(svg.query_dots([DotSeries("a", points[::-1])], "m"))

    def where(root: ET.Element) -> dict[str, tuple[str | None, str | None]]:
        return {titles(c)[0]: (c.get("cx"), c.get("cy")) for c in find(root, "circle", "dot")}

    assert where(forward) == where(backward)
    heights = {cy for _, cy in where(forward).values()}
    assert len(heights) > 20  # spread out, not on one line


def test_a_sampled_lanes_dots_spread_over_the_whole_lane() -> None:
    """A lane of more than MAX_DOTS queries draws those whose id hashes under a share;
    the same hash placed each dot's height, so at 50,000 queries (a share of 0.05) every
    dot sat in the top 5% of its lane: one line."""
    points = [(f"q{i:05d}", (i % 97) / 97) for i in range(20 * svg.MAX_DOTS)]
    root = parse(svg.query_dots([DotSeries("a", points)], "m"))
    heights = [float(c.get("cy") or 0) for c in find(root, "circle", "dot")]
    assert 0 < len(heights) <= svg.MAX_DOTS * 1.2
    lane = find(root, "g", "lane")[0]
    back = next(r for r in lane.iter() if r.tag.endswith("rect"))
    top, height = float(back.get("y") or 0), float(back.get("height") or 0)
    spread = (max(heights) - min(heights)) / height
    assert spread > 0.6, spread  # as a lane drawn whole spreads (its dots: 14 px margins)
    assert all(top <= y <= top + height for y in heights)


# --------------------------------------------------------------------------- trend


def test_trend_band_line_and_markers() -> None:
    points = runs(6)
    root = parse(svg.trend(points, "ndcg@10"))
    assert len(find(root, "polygon", "band")) == 1
    assert len(find(root, "circle", "point")) == 6
    assert len(find(root, "path", "line")) == 1
    assert "#0 (2025-11-01): 0.700 [0.650, 0.800]" in titles(root)
    assert "#0" in texts(root) and "2025-11-01" in texts(root)


def test_trend_gaps_split_line_and_band() -> None:
    points = runs(7)
    points[3] = TrendPoint("#3", None, None)
    root = parse(svg.trend(points, "m"))
    assert len(find(root, "polygon", "band")) == 2
    assert len(find(root, "circle", "point")) == 6
    assert (find(root, "path", "line")[0].get("d") or "").count("M") == 2
    assert "n/a" in texts(root)


def test_trend_single_point_and_no_intervals() -> None:
    root = parse(svg.trend([TrendPoint("only", None, 1.0)], "m"))
    assert len(find(root, "circle", "point")) == 1 and not find(root, "polygon")
    many = parse(svg.trend([TrendPoint(f"run-{i}", None, 0.5) for i in range(60)], "m"))
    labels = [t for t in texts(many) if t.startswith("run-")]
    assert 3 <= len(labels) < 60  # thinned so that they do not overlap
