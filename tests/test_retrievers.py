"""Unit tests of how a retriever fixture's value is read: which protocol, and refusals."""

from __future__ import annotations

import functools

import pytest

import pytest_retrieval
from pytest_retrieval.retrievers import ProtocolError, protocol_of


def search(query: object, k: int = 10, *, index: object = None) -> list[str]:
    return ["d1"]


def needs_k(query: object, k: int) -> list[str]:
    return ["d1"]


def needs_k_batch(queries: object, k: int) -> list[list[str]]:
    return [["d1"]]


class Engine:
    def __call__(self, query: object) -> list[str]:
        return ["d1"]


class NoArgumentBatch:
    def retrieve_batch(self) -> list[list[str]]:
        return [["d1"]]


@pytest.mark.parametrize(
    "value",
    [search, functools.partial(needs_k, k=5), Engine(), print, lambda *queries: []],
    ids=["defaults", "partial", "instance", "builtin", "star-args"],
)
def test_a_callable_that_takes_one_argument_is_a_per_query_retriever(value: object) -> None:
    assert protocol_of(value, "retriever").style == "call"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (lambda: ["d1"], "callable <lambda>() cannot be called with the query alone"),
        (needs_k, "callable needs_k(query: 'object', k: 'int') cannot be called with the query"),
        (NoArgumentBatch(), "fixture's retrieve_batch() cannot be called with the list of queries"),
        (
            pytest_retrieval.batch(needs_k_batch),  # (marking sets an attribute on it)
            "callable needs_k_batch(queries: 'object', k: 'int') cannot be called with the list",
        ),
    ],
    ids=["no-parameter", "two-required", "batch-method", "marked-batch"],
)
def test_a_callable_that_cannot_take_the_query_is_refused_before_any_call(
    value: object, shown: str
) -> None:
    # called, its TypeError would point into the plugin's frames
    with pytest.raises(ProtocolError) as info:
        protocol_of(value, "retriever")
    text = str(info.value)
    assert text.startswith("the 'retriever' fixture's ") and shown in text, text
    assert "functools.partial(search, k=10)" in text


class Document:  # a RAG framework's result: its document id in metadata, no .id
    def __init__(self, source: str) -> None:
        self.page_content = "text"
        self.metadata = {"source": source}


@pytest.mark.parametrize(
    "returned", [[Document("a")], [(Document("a"), 0.5)]], ids=["object", "object-score-pair"]
)
def test_a_result_object_without_an_id_points_to_the_result_key_hook(returned: object) -> None:
    from pytest_retrieval.shapes import ResultShapeError, rank_results

    with pytest.raises(ResultShapeError) as info:
        rank_results(returned)
    assert "map each result to its judged id with the pytest_retrieval_result_key hook" in str(
        info.value
    )


def test_a_plain_value_that_is_no_result_gets_no_hook_advice() -> None:
    from pytest_retrieval.shapes import ResultShapeError, rank_results

    with pytest.raises(ResultShapeError) as info:
        rank_results([1.5])
    assert "pytest_retrieval_result_key" not in str(info.value)


def test_a_configuration_name_k_cannot_take_in_one_word_is_advice_with_a_fix() -> None:
    from pytest_retrieval.advice import unselectable_names

    found = [str(a) for a in unselectable_names(["bm25", "dense/mini-lm", "bm25 v2", "a,b"])]
    assert found == [
        "configuration 'bm25 v2' holds a space, which -k cannot take in one word "
        '(-k "bm25 and v2" selects it, and whatever else holds those parts): give the '
        "fixture's param an id without it, ids=['bm25-v2', ...]",
        "configuration 'a,b' holds ',', which -k cannot take in one word (-k \"a and b\" "
        "selects it, and whatever else holds those parts): give the fixture's param an id "
        "without it, ids=['a-b', ...]",
    ]


def test_a_configuration_named_by_pytests_escaped_id_is_advice_with_an_ascii_id() -> None:
    """``params=["café"]``: pytest escapes the id, so the configuration was named
    ``caf\\xe9`` in every table, report and baseline, without a word (a backslash is a
    character -k takes)."""
    from pytest_retrieval.advice import unselectable_names

    assert [str(a) for a in unselectable_names(["caf\\xe9", "bm25"])] == [
        "configuration 'caf\\xe9' is the param id 'café' as pytest writes it (it escapes "
        "every character outside ASCII), so the tables, reports, baseline and -k all name "
        "it caf\\xe9: give the fixture's param an ASCII id, ids=['cafe', ...]"
    ]


def test_an_empty_configuration_name_is_advice_that_says_it_is_empty() -> None:
    """``params=[""]`` gives the configuration an empty name: the advice said it "holds ,"
    (an empty list of characters) and proposed ``ids=['name', ...]``."""
    from pytest_retrieval.advice import unselectable_names

    assert [str(a) for a in unselectable_names([""])] == [
        "configuration '' has an empty name (the retriever fixture's param id is an empty "
        "string): no -k selects it, and its rows are labelled with nothing; give the "
        "fixture's param a name, ids=['bm25', ...]"
    ]
