"""The HTML element builder and the report page's static markup (no browser needed)."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field, replace
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_sample import NASTY_ID, sample_page_data  # beside this file

from pytest_retrieval import __version__
from pytest_retrieval.report import html_page as hp
from pytest_retrieval.report.html_page import Raw, el
from pytest_retrieval.report.marks import is_own_report

# --------------------------------------------------------------------------- the builder


def test_text_and_attribute_values_are_escaped() -> None:
    markup = el("td", "<b>&'\"", title='"><script>', cls="a<b").markup
    assert markup == (
        '<td class="a&lt;b" title="&quot;&gt;&lt;script&gt;">&lt;b&gt;&amp;&#x27;&quot;</td>'
    )


def test_raw_children_are_kept_and_nested_lists_flattened() -> None:
    markup = el("p", Raw("<svg/>"), ["a", ["b", None, 3]], el("i", "x")).markup
    assert markup == "<p><svg/>ab3<i>x</i></p>"


def test_attribute_spelling_booleans_and_none() -> None:
    markup = el(
        "label", for_="x", data_metric="mrr", aria_label="l", hidden=True, disabled=False, id=None
    ).markup
    assert markup == '<label for="x" data-metric="mrr" aria-label="l" hidden></label>'
    assert el("meta", attrs={"http-equiv": "x"}).markup == '<meta http-equiv="x">'


def test_void_elements_have_no_end_tag_and_no_children() -> None:
    assert el("col", cls="w").markup == '<col class="w">'
    with pytest.raises(ValueError, match="cannot have children"):
        el("br", "text")


@pytest.mark.parametrize("tag", ["", "1p", "p onclick", "p>", "script/"])
def test_bad_element_names_are_refused(tag: str) -> None:
    with pytest.raises(ValueError, match="element name"):
        el(tag)


def test_bad_attribute_names_are_refused() -> None:
    with pytest.raises(ValueError, match="attribute name"):
        el("p", attrs={"x onload=alert(1)": "y"})


def test_script_and_style_take_only_raw_that_does_not_close_them() -> None:
    assert el("script", Raw("var a = 1 < 2;")).markup == "<script>var a = 1 < 2;</script>"
    with pytest.raises(TypeError, match="Raw content only"):
        el("style", "body{}")
    with pytest.raises(ValueError, match="close <script>"):
        el("script", Raw("x = '</SCRIPT><b>'"))


def test_rank_move_text() -> None:
    assert hp.RankMove("billing-faq", 1, 4, 3).text() == "billing-faq 1\u21924 (grade 3)"
    assert hp.RankMove("a", None, 2).text() == "a new\u21922"
    assert hp.RankMove("a", 3, None, 0).text() == "a 3\u2192out (grade 0)"
    assert hp.RankMove("a", 1, 4).worse and hp.RankMove("a", 2, None).worse
    assert not hp.RankMove("a", 4, 1).worse and not hp.RankMove("a", None, 1).worse


# --------------------------------------------------------------------------- the page


@dataclass
class Tag:
    name: str
    attrs: dict[str, str | None]


@dataclass
class Collector(HTMLParser):
    """Every start tag with its attributes, and the text inside <script> elements."""

    tags: list[Tag] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    _in_script: bool = False

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(Tag(tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)

    def all(self, name: str, **attrs: str) -> list[Tag]:
        return [
            t
            for t in self.tags
            if t.name == name
            and all(t.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


@cache
def page() -> str:
    return hp.render_page(sample_page_data())


def parsed(markup: str) -> Collector:
    collector = Collector()
    collector.feed(markup)
    return collector


@pytest.mark.parametrize(
    ("metric", "markup"),
    [
        ("r_precision", "r_<wbr>precision"),  # no break had clipped it to 'r_precisic'
        ("hit_rate@10", "hit_<wbr>rate<wbr>@10"),
        ("ndcg@10", "ndcg<wbr>@10"),
        ("mrr", "mrr"),
    ],
)
def test_a_metric_header_may_wrap_before_its_cut_and_after_an_underscore(
    metric: str, markup: str
) -> None:
    assert hp.join(hp._breakable(metric)).markup == markup


def test_page_is_deterministic() -> None:
    assert hp.render_page(sample_page_data()) == page()


def test_the_page_carries_the_mark_a_later_run_knows_it_by(tmp_path: Path) -> None:
    """A report path is written over only when it holds a report of the plugin's."""
    head = page().split("</head>", 1)[0]
    assert f'<meta name="generator" content="pytest-retrieval {__version__}">' in head
    ours, theirs = tmp_path / "r.html", tmp_path / "index.html"
    ours.write_text(page(), encoding="utf-8")
    theirs.write_text(page().replace('name="generator"', 'name="author"'), encoding="utf-8")
    assert is_own_report(ours) and not is_own_report(theirs)


def test_every_query_row_is_in_the_markup_and_visible_without_javascript() -> None:
    data = sample_page_data()
    doc = parsed(page())
    rows = [t for t in doc.all("tr") if "data-order" in t.attrs]
    assert len(rows) == len(data.queries) == 3 * len({q.id for q in data.queries}) > 200
    assert [t.attrs["data-configuration"] for t in rows] == [q.configuration for q in data.queries]
    hidden = [t for t in doc.tags if "hidden" in t.attrs]
    # only what needs the script is hidden: its controls and its "no match" message
    assert sorted(t.attrs.get("id") or "" for t in hidden) == [
        "filters",
        "metric-controls",
        "no-rows",
    ]
    assert len(doc.all("section", data_metric_section="mrr")) == 1


def test_page_loads_nothing_from_outside() -> None:
    markup = page()
    doc = parsed(markup)
    assert not [t for t in doc.tags if "src" in t.attrs]
    hrefs = [t.attrs.get("href") or "" for t in doc.tags if "href" in t.attrs]
    ids = {t.attrs.get("id") for t in doc.tags}
    assert hrefs[0] == "data:,"  # the empty icon: no favicon request
    assert hrefs[1:] and all(h.startswith("#") and h[1:] in ids for h in hrefs[1:])
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", markup)
    assert "@import" not in markup and "url(http" not in markup


def test_the_csp_admits_exactly_the_page_script() -> None:
    doc = parsed(page())
    (meta,) = doc.all("meta", http_equiv="Content-Security-Policy")
    (script,) = doc.scripts
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in (meta.attrs.get("content") or "")
    assert "default-src 'none'" in (meta.attrs.get("content") or "")


def test_markup_in_query_ids_and_texts_is_escaped() -> None:
    markup = page()
    doc = parsed(markup)
    assert len(doc.all("script")) == 1
    assert not doc.all("b")
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in markup
    assert NASTY_ID not in markup


@pytest.mark.parametrize(
    ("word", "tone"),
    [
        ("passed", "tone-good"),
        ("failed", "tone-bad"),
        ("refused", "tone-bad"),
        ("no-baseline", "tone-warn"),
        ("skipped", "tone-warn"),
    ],
)
def test_verdict_tone(word: str, tone: str) -> None:
    data = replace(sample_page_data(), verdict=hp.Verdict(word, f"retrieval gate: {word.upper()}"))
    (section,) = parsed(hp.render_page(data)).all("section", data_verdict=word)
    assert section.attrs["class"] == f"verdict {tone}"


def test_breached_rows_are_listed() -> None:
    doc = parsed(page())
    assert len(doc.all("table", **{"class": "breached"})) == 1
    assert page().count('<td class="num drop">') == 2


def test_a_minimal_run_still_renders() -> None:
    """One configuration, no comparison, no gate, no query: every chart says no data."""
    data = hp.PageData(
        settings="0 golden queries",
        metrics=["mrr"],
        configurations=["default"],
        means=[],
        queries=[],
    )
    markup = hp.render_page(data)
    doc = parsed(markup)
    assert not doc.all("section", **{"class": "verdict"})
    assert len(doc.all("svg")) == 2  # bars and dots; no forest without a reference
    assert markup.count("no data") >= 2


def test_metric_cells_carry_sort_keys_and_na() -> None:
    data = replace(
        sample_page_data(),
        queries=[hp.QueryRow("bm25", "q", "c", "skipped", {"ndcg@10": None, "mrr": 0.5})],
    )
    markup = hp.render_page(data)
    assert '<td class="num na" data-metric="ndcg@10" data-sort="">n/a</td>' in markup
    assert '<td class="num" data-metric="mrr" data-sort="0.500000">0.500</td>' in markup
    assert '<td class="num na" data-metric="recall@20" data-sort="">n/a</td>' in markup


def test_a_skipped_item_is_no_dot_and_no_n_a_in_the_query_chart() -> None:
    """A skipped item is not counted in n: its lane says n=1, not "n=1, n/a 1"."""
    rows = [
        hp.QueryRow("bm25", "q1", "c", "passed", {"mrr": 0.5}),
        hp.QueryRow("bm25", "q2", "c", "skipped", {"mrr": None}),
    ]
    data = hp.PageData(
        settings="", metrics=["mrr"], configurations=["bm25"], means=[], queries=rows
    )
    markup = hp.render_page(data)
    assert ">n=1<" in markup and "n/a 1" not in markup
    assert "<title>q2" not in markup


def test_latency_is_a_table_of_the_summary_with_the_batch_share() -> None:
    """README (Real retrievers): the latency table is in the Markdown and HTML reports."""
    doc = parsed(page())
    assert len(doc.all("table", id="latency")) == 1
    summary = page().split('id="summary"', 1)[1].split("</section>", 1)[0]
    assert 'id="latency"' in summary
    assert '<td class="num">6.80ms</td><td class="num">9.31ms</td>' in summary
    assert "batch share</th>" in summary and "72 of 72</td>" in summary


def test_latency_names_are_escaped_and_the_batch_column_only_when_needed() -> None:
    data = replace(
        sample_page_data(), latency=[hp.LatencyRow(NASTY_ID, 3, "1.00ms", "2.00ms", "2.50ms")]
    )
    markup = hp.render_page(data)
    table = markup.split('id="latency"', 1)[1].split("</table>", 1)[0]
    assert NASTY_ID not in markup and "&lt;script&gt;" in table
    assert "batch share" not in table and "2.50ms" in table
    assert 'id="latency"' not in hp.render_page(replace(data, latency=()))
