"""Judged ids that look mistyped (judged_typos.near_misses, advice.typo_warnings)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_retrieval.advice import TYPO_QUERIES_SHOWN, RetrievalGoldenWarning, typo_warnings
from pytest_retrieval.judged_typos import near_misses
from pytest_retrieval.model import QueryRecord


@pytest.mark.parametrize(
    ("judged", "found"),
    [
        ("weather-forcast", "weather-forecast"),  # a letter left out
        ("weather-forecast", "weather-forcast"),  # one too many
        ("wetaher-forecast", "weather-forecast"),  # two neighbours swapped
        ("weather-forecazt", "weather-forecast"),  # one letter for another
        ("Weather Forecast", "weather-forecast"),  # case and separators
        ("weather_forecast", "weather.forecast"),
        ("doc 12", "DOC-12"),  # short, but only case and separators differ
        (unicodedata.normalize("NFD", "café-menu"), "café-menu"),  # composed otherwise
    ],
)
def test_ids_one_typo_apart_are_paired(judged: str, found: str) -> None:
    assert near_misses({judged: 2, "other": 0}, ["unrelated-thing", found]) == ((judged, found),)


@pytest.mark.parametrize(
    ("judged", "found"),
    [
        ("doc-101", "doc-102"),  # digits differ: two documents
        ("doc-12", "doc-21"),
        ("abcd", "abce"),  # too short to tell a typo from another id
        ("weather-forecast", "weather-fore"),  # more than one letter
        ("weather-forecast", "waether-forecsat"),
    ],
)
def test_ids_further_apart_are_not(judged: str, found: str) -> None:
    assert near_misses({judged: 1}, [found]) == ()


def test_only_relevant_ids_not_retrieved_are_looked_at_and_only_unjudged_results() -> None:
    relevant = {"weather-forcast": 0, "weather-forecasts": 1, "tide-tables": 2}
    # grade 0 is no relevant document; a judged result is no typo of another judged id
    assert near_misses(relevant, ["weather-forecast", "weather-forecasts"]) == ()
    assert near_misses({"tide-table": 1}, ["tide-tables", "tide-tablez"]) == (
        ("tide-table", "tide-tables"),  # the first near result
    )
    assert near_misses({"tide-table": 1}, []) == ()


@given(st.text(min_size=1, max_size=12), st.lists(st.text(max_size=12), max_size=8))
def test_a_pair_is_a_judged_id_not_retrieved_and_an_unjudged_result(
    judged: str, results: list[str]
) -> None:
    for j, found in near_misses({judged: 1}, results):
        assert j == judged and judged not in results
        assert found in results and found != judged


def record(qid: str, configuration: str, **fields: object) -> QueryRecord:
    return QueryRecord(qid, configuration, "c", path="golden/q.yaml", **fields)  # type: ignore[arg-type]


def test_a_judged_id_another_configuration_retrieved_is_no_typo() -> None:
    pair = (("fx-rate", "fx-rates"),)
    lone = {"bm25": [record("fx", "bm25", near_misses=pair)]}
    (advice,) = typo_warnings(lone)
    assert advice.kind is RetrievalGoldenWarning and advice.query == ("golden/q.yaml", "fx")
    assert advice.text.startswith(
        "query 'fx' judges 'fx-rate', which no configuration retrieved, while 'fx-rates' came "
        "back: a typo in the golden file?"
    )
    both = {**lone, "dense": [record("fx", "dense", grades={"fx-rate": 1})]}
    assert typo_warnings(both) == []


def test_past_a_few_queries_the_rest_are_one_warning() -> None:
    n = TYPO_QUERIES_SHOWN + 3
    records = {
        "bm25": [record(f"q{i}", "bm25", near_misses=(("abcdef", "abcdeg"),)) for i in range(n)]
    }
    advice = typo_warnings(records)
    assert [a.query for a in advice[:-1]] == [("golden/q.yaml", f"q{i}") for i in range(5)]
    assert advice[-1].query is None
    assert advice[-1].text.startswith("3 more queries judge ids that look mistyped")
    assert "q5, q6, q7" in advice[-1].text


def test_a_configuration_that_finds_nothing_judged_is_no_id_mismatch() -> None:
    """`-k paraphrase` with BM25: none of its results is judged for its own query, yet
    another configuration, whose ids match, returns the same ids; the warning said its ids
    did not match the golden files' (it returned 'p27', which another query judges)."""
    from pytest_retrieval.advice import unmatched_ids_warnings

    bm25 = [
        record("dry", "bm25", judged=True, retrieved=["towel", "lights"]),
        record("dark", "bm25", judged=True, retrieved=["shoes"]),
    ]
    dense = [
        record("dry", "dense", judged=True, retrieved=["jacket", "towel"], grades={"jacket": 3}),
        record("dark", "dense", judged=True, retrieved=["boots"]),
    ]
    assert unmatched_ids_warnings({"bm25": bm25, "dense": dense}) == []
    prefixed = [record("dry", "prefixed", judged=True, retrieved=["doc-towel"])]
    (advice,) = unmatched_ids_warnings({"prefixed": prefixed, "dense": dense})
    assert advice.text.startswith("prefixed: none of the results of its 1 answered query")
    assert advice.text.endswith("if it does, it found nothing judged for any of these queries")
