"""The report page in a real browser: headless chromium, driven by ``tests/browser.py``.

One chromium serves the module. The page is the realistic sample (3 configurations x
5 categories x 72 queries); its screenshots are saved to ``$RETRIEVAL_SCREENSHOT_DIR``
(default: the system temp folder) as ``pytest-retrieval-report*.png`` for a human look.
Skips, saying how to install it, when chromium is missing.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import Browser, Page, chromium, require_chromium  # beside this file
from report_sample import NASTY_ID, sample_page_data  # beside this file

from pytest_retrieval.report import html_page as hp
from pytest_retrieval.report import svg
from pytest_retrieval.report.svg import Bar, BarGroup, DotSeries, ForestRow

ROWS = len(sample_page_data().queries)  # 3 configurations x the golden queries (+1)
SHOTS = Path(os.environ.get("RETRIEVAL_SCREENSHOT_DIR", tempfile.gettempdir()))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium(require_chromium()) as running:
        yield running


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(hp.render_page(sample_page_data()), encoding="utf-8")
    return path


@pytest.fixture
def page(browser: Browser, report: Path) -> Iterator[Page]:
    tab = browser.open(report.as_uri())
    yield tab
    tab.close()


def value(page: Page, expression: str) -> object:
    return page.evaluate(expression)


def visible_rows(page: Page, attribute: str) -> list[str]:
    found = page.evaluate(
        "Array.from(document.querySelectorAll('#queries tbody tr'))"
        f".filter(r => !r.hidden && r.offsetHeight > 0).map(r => r.getAttribute({attribute!r}))"
    )
    assert isinstance(found, list)
    return [str(v) for v in found]


def visible_values(page: Page, metric: str) -> list[float | None]:
    found = page.evaluate(
        "Array.from(document.querySelectorAll('#queries tbody tr')).filter(r => !r.hidden)"
        f".map(r => r.querySelector('td[data-metric=\"{metric}\"]').getAttribute('data-sort'))"
    )
    assert isinstance(found, list)
    return [None if v == "" else float(str(v)) for v in found]


# --------------------------------------------------------------------------- loading


def test_script_runs_without_console_errors(page: Page) -> None:
    assert page.errors == []
    assert value(page, "document.documentElement.dataset.reportReady") == "1"
    assert value(page, "document.documentElement.getAttribute('data-report-error')") is None


def test_page_has_its_charts(page: Page) -> None:
    data = sample_page_data()

    def count(selector: str) -> int:
        found = value(page, f"document.querySelectorAll({selector!r}).length")
        assert isinstance(found, int)
        return found

    metrics, configs = len(data.metrics), len(data.configurations)
    groups = len({m.category for m in data.means})
    assert count("svg.chart") == 3 * metrics + len(data.trends)
    assert count("rect.bar") == metrics * configs * groups
    assert count("g.forest-row") == len(data.comparisons) == metrics * (configs - 1) * groups
    scored = sum(1 for q in data.queries for m in data.metrics if q.metrics.get(m) is not None)
    assert count("circle.dot") == scored
    assert count("polygon.band") >= 1


def test_script_initialised_the_controls(page: Page) -> None:
    """What the page's script did, read back from the DOM after it ran."""
    dom = page.dom()
    assert 'data-report-ready="1"' in dom
    assert '<div class="controls" id="filters">' in dom  # no longer hidden
    assert '<div class="controls" id="metric-controls">' in dom
    assert dom.count('<button type="button" class="sort"') == 4 + 3 + 1
    assert f"Showing {ROWS} of {ROWS} rows" in dom
    assert value(page, "document.getElementById('f-metric').value") == "ndcg@10"
    sections = value(
        page,
        "Array.from(document.querySelectorAll('[data-metric-section]'))"
        ".map(s => s.getAttribute('data-metric-section') + ':' + !s.hidden)",
    )
    assert sections == ["ndcg@10:true", "mrr:false", "recall@20:false"]


def test_screenshots_for_a_human_look(page: Page, browser: Browser, report: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    # the verdict, summary, all charts and the first rows of the query table
    full = page.screenshot(SHOTS / "pytest-retrieval-report.png", height=5200)
    first = page.screenshot(SHOTS / "pytest-retrieval-report-1366x768.png", full_page=False)
    a4 = browser.open(report.as_uri(), width=794, height=1123)
    printed = a4.screenshot(
        SHOTS / "pytest-retrieval-report-print.png", media="print", height=3 * 1123
    )
    a4.close()
    shutil.copy(report, SHOTS / "pytest-retrieval-report.html")
    for png in (full, first, printed):
        head = png.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = (
        int.from_bytes(full.read_bytes()[16 + 4 * i : 20 + 4 * i], "big") for i in (0, 1)
    )
    assert (width, height) == (1366, 5200)


# --------------------------------------------------------------------------- interaction


def test_clicking_a_header_sorts_and_clicking_again_reverses(page: Page) -> None:
    page.click('th[data-key="mrr"] button')
    up = visible_values(page, "mrr")
    kept = [v for v in up if v is not None]
    assert kept == sorted(kept) and up[len(kept) :] == [None] * (len(up) - len(kept))
    assert value(page, "document.querySelector('th[data-key=\"mrr\"]').ariaSort") == "ascending"
    page.click('th[data-key="mrr"] button')
    down = [v for v in visible_values(page, "mrr") if v is not None]
    assert down == sorted(kept, reverse=True)
    assert value(page, "location.hash") == "#metric=ndcg%4010&sort=mrr%3Adesc"
    assert page.errors == []


def test_filters_narrow_the_rows_and_say_how_many(page: Page) -> None:
    page.choose("#f-category", "paraphrase")
    page.choose("#f-configuration", "dense")
    assert set(visible_rows(page, "data-category")) == {"paraphrase"}
    assert set(visible_rows(page, "data-configuration")) == {"dense"}
    shown = len(visible_rows(page, "data-order"))
    expected = sum(
        1
        for q in sample_page_data().queries
        if (q.category, q.configuration) == ("paraphrase", "dense")
    )
    assert shown == expected > 0
    assert value(page, "document.getElementById('row-count').textContent") == (
        f"Showing {expected} of {ROWS} rows"
    )
    page.choose("#f-outcome", "error")  # no dense paraphrase query errors
    assert visible_rows(page, "data-order") == []
    assert value(page, "document.getElementById('no-rows').hidden") is False


def test_metric_selector_switches_charts_and_sorts_by_that_column(page: Page) -> None:
    page.choose("#f-metric", "recall@20")
    shown = value(
        page,
        "Array.from(document.querySelectorAll('[data-metric-section]'))"
        ".filter(s => s.offsetHeight > 0).map(s => s.getAttribute('data-metric-section'))",
    )
    assert shown == ["recall@20"]
    kept = [v for v in visible_values(page, "recall@20") if v is not None]
    assert kept == sorted(kept)
    active = value(page, "document.querySelectorAll('td.active').length")
    assert active == ROWS


def test_state_comes_from_the_url_fragment(browser: Browser, report: Path) -> None:
    page = browser.open(report.as_uri() + "#category=filtered&metric=mrr&sort=ndcg%4010:desc")
    assert set(visible_rows(page, "data-category")) == {"filtered"}
    assert value(page, "document.getElementById('f-metric').value") == "mrr"
    kept = [v for v in visible_values(page, "ndcg@10") if v is not None]
    assert kept == sorted(kept, reverse=True)
    assert page.errors == []


# --------------------------------------------------------------------------- robustness


def test_without_javascript_everything_is_shown(browser: Browser, report: Path) -> None:
    page = browser.open(report.as_uri(), javascript=False)
    assert value(page, "document.documentElement.dataset.reportReady") is None
    assert len(visible_rows(page, "data-order")) == ROWS
    sections = value(
        page,
        "[...document.querySelectorAll('[data-metric-section]')]"
        ".filter(s => s.offsetHeight > 0).length",
    )
    assert sections == 3
    assert value(page, "document.getElementById('filters').offsetHeight") == 0


def test_fits_a_laptop_screen_and_a_narrow_one(browser: Browser, report: Path) -> None:
    laptop = browser.open(report.as_uri(), width=1366, height=768)
    assert value(laptop, "document.documentElement.scrollWidth") == 1366
    verdict_top = value(laptop, "document.querySelector('.verdict').getBoundingClientRect().top")
    assert isinstance(verdict_top, (int, float)) and verdict_top < 200
    narrow = browser.open(report.as_uri(), width=760, height=900)
    assert value(narrow, "document.documentElement.scrollWidth") == 760
    # the gate's explanation keeps its table's columns: its lines never wrap (a line wider
    # than the box scrolls inside it), one line of text per line of the box
    pre = "document.querySelector('.verdict pre')"
    for tab in (laptop, narrow):
        assert value(tab, f"getComputedStyle({pre}).whiteSpace") == "pre"
        lines = value(tab, f"{pre}.textContent.split('\\n').length")
        height = value(tab, f"{pre}.clientHeight / parseFloat(getComputedStyle({pre}).lineHeight)")
        assert isinstance(lines, int) and isinstance(height, (int, float))
        assert abs(height - lines) < 1.5, (lines, height)


def test_a_long_gate_explanation_scrolls_in_its_box_and_prints_whole(
    browser: Browser, tmp_path: Path
) -> None:
    """A gate naming hundreds of queries had pushed the summary several screens down."""
    data = sample_page_data()
    assert data.verdict is not None
    text = "\n".join(f"  query q{i:03d}: ndcg@10 0.900 -> 0.400" for i in range(300))
    long = dataclasses.replace(data, verdict=dataclasses.replace(data.verdict, text=text))
    path = tmp_path / "long.html"
    path.write_text(hp.render_page(long), encoding="utf-8")
    tab = browser.open(path.as_uri(), width=1366, height=768)
    pre = "document.querySelector('.verdict pre')"
    shown, whole = value(tab, f"{pre}.clientHeight"), value(tab, f"{pre}.scrollHeight")
    assert isinstance(shown, (int, float)) and isinstance(whole, (int, float))
    assert shown <= 0.6 * 768 < whole  # scrolls inside its box
    assert value(tab, f"{pre}.tabIndex") == 0  # and by keyboard
    tab.call("Emulation.setEmulatedMedia", {"media": "print"})
    assert value(tab, f"getComputedStyle({pre}).maxHeight") == "none"


def test_print_hides_controls_and_keeps_rows_whole(browser: Browser, report: Path) -> None:
    page = browser.open(report.as_uri(), width=794, height=1123)
    page.call("Emulation.setEmulatedMedia", {"media": "print"})
    style = "(s, p) => getComputedStyle(document.querySelector(s))[p]"
    assert value(page, f"({style})('#filters', 'display')") == "none"
    assert value(page, f"({style})('#metric-controls', 'display')") == "none"
    assert value(page, f"({style})('#queries tbody tr', 'breakInside')") == "avoid"
    assert value(page, f"({style})('.verdict pre', 'whiteSpace')") == "pre-wrap"  # paper
    assert value(page, "document.documentElement.scrollWidth") == 794
    pdf = page.call("Page.printToPDF", {"printBackground": True, "pageRanges": "1-2"})
    assert len(str(pdf.get("data", ""))) > 10_000


def test_loads_nothing_and_shows_markup_as_text(page: Page) -> None:
    assert value(page, "performance.getEntriesByType('resource').length") == 0
    assert value(page, "document.scripts.length") == 1
    ids = value(page, "[...document.querySelectorAll('#queries code')].map(c => c.textContent)")
    assert isinstance(ids, list) and NASTY_ID in ids
    dialogs = [e for e in page.pipe.events if e.get("method") == "Page.javascriptDialogOpening"]
    assert dialogs == []


def test_the_console_check_catches_errors(browser: Browser, tmp_path: Path) -> None:
    """The check above can fail: a page with a throw, console.error and a missing file."""
    broken = tmp_path / "broken.html"
    broken.write_text(
        "<!DOCTYPE html><title>t</title><img src='missing.png' alt=''>"
        "<script>console.error('logged ' + 1); throw new Error('boom');</script>",
        encoding="utf-8",
    )
    errors = browser.open(broken.as_uri()).errors
    assert any("boom" in e and e.startswith("exception") for e in errors), errors
    assert any(e == "error: logged 1" for e in errors), errors
    assert any("missing.png" in e or "ERR_FILE_NOT_FOUND" in e for e in errors), json.dumps(errors)


def _six_metrics(data: hp.PageData) -> hp.PageData:
    """The sample with six metrics, as a TREC-style project asks for (the extra ones copy
    the first's values: the layout is what is looked at)."""
    extra = {"map": "ndcg@10", "precision@10": "mrr", "bpref": "recall@20"}
    metrics = (*data.metrics, *extra)
    means = [
        dataclasses.replace(m, means={**m.means, **{k: m.means[v] for k, v in extra.items()}})
        for m in data.means
    ]
    rows = [
        dataclasses.replace(
            q,
            metrics={**q.metrics, **{k: q.metrics[v] for k, v in extra.items()}},
            category="uncategorized" if n == 0 else q.category,  # the default category
        )
        for n, q in enumerate(data.queries)
    ]
    return dataclasses.replace(data, metrics=metrics, means=means, queries=rows)


def test_the_query_table_keeps_its_headers_and_results_readable_with_six_metrics(
    browser: Browser, tmp_path: Path
) -> None:
    """With six metrics (ndcg@10 mrr recall@100 map precision@10 bpref) the fixed metric
    columns left the ranked results a sliver of 80 pixels, their header cut to "ranked /
    results / (grade", "precision@10" ran over its neighbour, and the default category
    "uncategorized" broke inside the word."""
    path = tmp_path / "six.html"
    path.write_text(hp.render_page(_six_metrics(sample_page_data())), encoding="utf-8")
    page = browser.open(path.as_uri(), width=1400, height=900)
    overflowing = page.evaluate(
        "Array.from(document.querySelectorAll('#queries thead th'))"
        ".filter(th => th.scrollWidth > th.clientWidth + 1).map(th => th.textContent)"
    )
    assert overflowing == [], overflowing
    ids = page.evaluate("document.querySelector('#queries tbody td.ids').offsetWidth")
    assert isinstance(ids, (int, float)) and ids >= 150, ids
    lines = page.evaluate(  # the default category's name on one line, not "uncategorize / d"
        "(() => { const r = document.createRange();"
        " r.selectNodeContents(document.querySelector('#queries tbody tr td:nth-child(3)'));"
        " return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size; })()"
    )
    assert lines == 1, lines
    first = "document.querySelector('#queries tbody tr td:nth-child(3)').textContent"
    assert value(page, first) == "uncategorized"
    assert value(page, "document.documentElement.scrollWidth") == 1400


def _charts(names: list[str]) -> list[str]:
    """The three charts that label rows, with ``names`` as categories and configurations."""
    bars = [Bar(c, 0.3, 0.2, 0.4) for c in ("bm25", "title")]
    groups = [*(BarGroup(n, bars) for n in names), BarGroup("all", bars, overall=True)]
    rows = [ForestRow(f"{n} \u00b7 title", -0.2, -0.3, -0.1, True, "title") for n in names]
    return [
        svg.category_bars(groups, "ndcg@10"),
        svg.forest_plot(rows, "ndcg@10", "bm25"),
        svg.query_dots([DotSeries(n, [("q1", 0.5), ("q2", 1.0)]) for n in names], "ndcg@10"),
    ]


def test_chart_labels_are_drawn_inside_their_charts(browser: Browser, tmp_path: Path) -> None:
    """Cranfield's query lengths as categories (long, medium, short): the label column
    was sized for 6 average glyphs, and chromium drew 'medium' from x = -3.6, showing
    'nedium'. Every text of every chart now lies inside its chart's viewBox."""
    charts = [
        *_charts(["long", "medium", "short"]),
        *_charts(["WWW-MMM", "mmmmmmmmmmmmmmmmmmmmmmm"]),
    ]
    path = tmp_path / "charts.html"
    path.write_text("<!DOCTYPE html><title>charts</title>" + "".join(charts), encoding="utf-8")
    outside = browser.open(path.as_uri()).evaluate(
        "[...document.querySelectorAll('svg')].flatMap(s => [...s.querySelectorAll('text')]"
        ".filter(t => { const b = t.getBBox(), w = s.viewBox.baseVal.width;"
        " return b.x < 0 || b.x + b.width > w; }).map(t => t.textContent))"
    )
    assert outside == []


def test_ids_sort_in_a_persons_order(browser: Browser, tmp_path: Path) -> None:
    """q2 before q10 (they sorted as text: q1, q10, q100, q2)."""
    data = sample_page_data()
    ids = ["q10", "q9", "Q1", "q2", "q100"]
    rows = [dataclasses.replace(row, id=i) for row, i in zip(data.queries[:5], ids, strict=True)]
    path = tmp_path / "ids.html"
    path.write_text(hp.render_page(dataclasses.replace(data, queries=rows)), encoding="utf-8")
    tab = browser.open(path.as_uri())
    try:
        tab.click('th[data-key="query"] button')
        shown = tab.evaluate(
            "Array.from(document.querySelectorAll('#queries tbody tr'))"
            ".map(r => r.cells[1].getAttribute('data-sort'))"
        )
        assert shown == ["Q1", "q2", "q9", "q10", "q100"]
        tab.click('th[data-key="query"] button')
        assert tab.evaluate(
            "Array.from(document.querySelectorAll('#queries tbody tr'))"
            ".map(r => r.cells[1].getAttribute('data-sort'))"
        ) == ["q100", "q10", "q9", "q2", "Q1"]
        assert tab.errors == []
    finally:
        tab.close()
