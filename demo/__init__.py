"""Demo retrievers for pytest-retrieval: a catalog of paid API services and three rankers.

``build_retriever(name)`` returns the retriever of one configuration:

- ``bm25``: stuffing-resistant BM25F over name, tags and description (demo.lexical);
- ``dense``: all-MiniLM-L6-v2 cosine similarity, loaded offline (demo.dense);
- ``fused``: the dense ranking with each listing's example questions added
  (demo.questions), fused with BM25 when BM25 covers the query, abstaining when
  nothing is close enough (demo.hybrid).

Each retriever is called with a golden query (``.id``, ``.text``, ``.category``,
``.tags``, ``.filters``) and returns up to 20 ``(listing_id, score)`` pairs, best first;
``retrieve_batch(queries)`` returns one such list per query, in order, encoding the
whole batch in one model call where there is a model. Every configuration applies the
query's hard filters (network, asset, max_price) before it ranks.
Indexes and the model are built once per process and shared between configurations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .catalog import CATALOG_PATH, Listing, load_catalog

CONFIGURATIONS = ("bm25", "dense", "fused")

_BUILT: dict[tuple[str, str | None], Any] = {}
_CATALOG: list[Listing] | None = None


def catalog() -> list[Listing]:
    """The demo catalog, loaded once per process."""
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = load_catalog(CATALOG_PATH)
    return _CATALOG


def build_retriever(name: str, cache_dir: str | Path | None = None) -> Any:
    """The retriever for configuration ``name`` (built once per process).

    ``cache_dir`` is where the dense configuration keeps its catalog embeddings (e.g.
    pytest's ``config.cache.mkdir("retrieval-demo")``); None disables the disk cache.
    """
    key = (name, str(cache_dir) if cache_dir is not None else None)
    if key in _BUILT:
        return _BUILT[key]
    if name == "bm25":
        from .lexical import BM25FRetriever

        built: Any = BM25FRetriever(catalog())
    elif name == "dense":
        from .dense import DenseRetriever

        built = DenseRetriever(catalog(), cache_dir=cache_dir)
    elif name == "fused":
        from .hybrid import FusedRetriever
        from .questions import QuestionIndex

        dense = build_retriever("dense", cache_dir)
        questions = QuestionIndex(dense.listings, dense.model, cache_dir=cache_dir)
        built = FusedRetriever(build_retriever("bm25"), dense, questions)
    else:
        raise ValueError(f"unknown demo configuration {name!r}; choose from {CONFIGURATIONS}")
    _BUILT[key] = built
    return built


__all__ = ["CONFIGURATIONS", "Listing", "build_retriever", "catalog", "load_catalog"]
