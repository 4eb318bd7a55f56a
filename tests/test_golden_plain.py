"""The plain-shape shortcut of the golden check gives what the full check gives.

``golden_check.plain_query`` builds a query without the field-by-field checks when
the raw mapping has the common shape (id, query, relevant, category, nothing odd).
It must never accept what the full check refuses or warns about, and must build the
same query. Raw mappings are drawn around the shape's edges: ids with spaces,
brackets, control characters, non-ASCII or YAML's misread integers; blank texts,
reserved categories, booleans and out-of-range grades, repeated keys, other keys,
defaults. Each is put through both paths.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_retrieval.io.golden_check import Checker, Int, Lines, full_check, plain_query
from pytest_retrieval.io.golden_file import load_golden_file

SHOWN = "golden/plain.jsonl"

odd_texts = st.sampled_from(
    ["q1", "a:b", "a::b", "[x]", "x]", "a b", " ", "", "\t", "é", "d\x1b", "d\x85", "all", " All "]
)
texts = st.one_of(odd_texts, st.text(max_size=6))


def misread_int(value: int) -> Int:
    written = Int(value)
    written.source = "0" + str(value)  # as YAML 1.1 reads 012 (octal)
    return written


def plain_int(value: int) -> Int:
    written = Int(value)
    written.source = str(value)
    return written


scalars = st.one_of(
    texts,
    st.integers(-2, 12),
    st.booleans(),
    st.none(),
    st.integers(0, 9).map(misread_int),
    st.integers(0, 9).map(plain_int),
    st.floats(0, 3),
)


# the edges of the plain shape: what each part may be changed to
EDGES: dict[str, st.SearchStrategy[Any]] = {
    "id": st.one_of(odd_texts, st.integers(0, 9).map(misread_int), scalars),
    "query": st.one_of(odd_texts, scalars),
    "category": st.one_of(odd_texts, scalars),
    "doc": st.one_of(odd_texts, st.integers(0, 5), st.integers(0, 5).map(plain_int)),
    "grade": st.one_of(st.sampled_from([True, False, -1, 4, 11, 2.0, None]), scalars),
    "relevant": st.one_of(st.just(["d1", "d2"]), scalars),
    "extra": st.sampled_from(["tags", "skip", "xfail", "expect", "filters", "other"]),
    "defaults": st.sampled_from([{"category": None}, {"category": "all"}, {"tags": ["t"]}]),
}
CHANGES = [*EDGES, "drop", "repeated key", "repeated grade", "plain dict"]
EXTRA = {"tags": ["t"], "skip": True, "xfail": "why", "expect": {"mrr": 1.0}, "filters": {}}


def lines_of(mapping: dict[Any, Any], duplicated: bool) -> Lines:
    out = Lines(mapping)
    out.line = 7
    out.key_lines = dict.fromkeys(mapping, 7)
    out.duplicates = [(next(iter(mapping)), 7, 7)] if duplicated and mapping else []
    return out


@st.composite
def raw_queries(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A plain query (with a default category) with none, one or two of its parts changed."""
    changes = draw(st.lists(st.sampled_from(CHANGES), max_size=2))
    raw: dict[str, Any] = {"id": "q1", "query": "a query", "category": "paraphrase"}
    grades = {"d1": 2, "d 2": 0}
    defaults: dict[str, Any] = {"category": "filtered"}
    for change in changes:
        value = draw(EDGES[change]) if change in EDGES else None
        if change in ("id", "query", "category"):
            raw[change] = value
        elif change == "doc":
            grades[value] = 1
        elif change == "grade":
            grades["d1"] = value
        elif change == "extra":
            raw[value] = EXTRA.get(value, 1)
        elif change == "defaults":
            defaults = value
        elif change == "drop":
            raw.pop(draw(st.sampled_from(["id", "query", "category"])), None)
    relevant = lines_of(grades, "repeated grade" in changes)
    raw["relevant"] = draw(EDGES["relevant"]) if "relevant" in changes else relevant
    if "drop" in changes and draw(st.booleans()):
        del raw["relevant"]
    if "plain dict" in changes:
        return raw, defaults
    return lines_of(raw, "repeated key" in changes), defaults


@settings(max_examples=500, deadline=None)
@given(raw_queries(), st.sampled_from([1, 3, 10]))
def test_the_shortcut_builds_what_the_full_check_builds(
    drawn: tuple[Any, dict[str, Any]], max_grade: int
) -> None:
    raw, defaults = drawn
    shortcut = plain_query(raw, 3, {k: v for k, v in defaults.items()}, SHOWN, max_grade)
    checker = Checker(SHOWN, max_grade)
    full = full_check(checker, raw, 3, defaults)
    if shortcut is not None:
        assert checker.problems == []
        assert shortcut == full


def test_the_common_shape_takes_the_shortcut(tmp_path: Any, monkeypatch: Any) -> None:
    """A JSONL file of plain queries loads without one full check (the shortcut is used)."""
    path = tmp_path / "plain.jsonl"
    path.write_text(
        '{"defaults": {"category": "paraphrase"}}\n'
        '{"id": "q-1", "query": "first", "relevant": {"d1": 2, "d 2": 0}}\n'
        '{"id": "q:2", "query": "second", "relevant": {}, "category": "no-result"}\n'
    )
    import pytest_retrieval.io.golden_check as golden_check

    def refuse(*args: object) -> None:
        raise AssertionError("the full check ran on a plain query")

    monkeypatch.setattr(golden_check, "full_check", refuse)
    loaded = load_golden_file(path)
    assert [(q.id, q.category, dict(q.relevant)) for q in loaded] == [
        ("q-1", "paraphrase", {"d1": 2, "d 2": 0}),
        ("q:2", "no-result", {}),
    ]
    assert loaded[0].line == 2
