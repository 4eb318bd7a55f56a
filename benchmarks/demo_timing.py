"""Time the demo end to end, in-process: where does a `pytest --retrieval-eval` run go?

Stages, each timed on its own:

1. catalog load (YAML -> listings);
2. model load (importing sentence-transformers and loading all-MiniLM-L6-v2 offline);
3. catalog encoding (all listings, batched, with the disk cache bypassed);
4. bm25 index build (three bm25s field indexes);
5. per configuration, every golden query: query encoding (dense, fused) + ranking.

Each configuration encodes its own queries (the in-memory query cache is cleared between
configurations), so its line is what it would cost alone.

Then the dense and the fused retriever over the golden queries twice more each, side by
side: one query at a time (``retriever(query)``, one encode call each) and as one batch
(``retriever.retrieve_batch(queries)``, one encode call in all), each with a cold query
cache, alternating, ``--batch-repeat`` times; it prints the median per-query time of
each and their ratio.

    python benchmarks/demo_timing.py [--golden golden] [--repeat 1] [--batch-repeat 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Stages = list[tuple[str, float]]


def timed(stages: Stages, label: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Run fn(*args), append (label, seconds) to stages, return what fn returned."""
    t0 = time.perf_counter()
    out = fn(*args)
    stages.append((label, time.perf_counter() - t0))
    return out


def build(stages: Stages) -> tuple[list[Any], Any, Any, Any]:
    """Catalog, model, catalog embeddings and bm25 index, each stage timed."""
    from demo import dense as dense_mod
    from demo.catalog import load_catalog
    from demo.hybrid import FusedRetriever
    from demo.lexical import BM25FRetriever
    from demo.questions import QuestionIndex

    listings = timed(stages, "catalog load", load_catalog)
    model = timed(stages, "model load", dense_mod.load_model)
    passages = [x.text() for x in listings]
    matrix = timed(stages, "catalog encoding", dense_mod.catalog_embeddings, model, passages, None)
    bm25 = timed(stages, "bm25 index build", BM25FRetriever, listings)
    questions = timed(stages, "example questions encoding", QuestionIndex, listings, model)
    dense = dense_mod.DenseRetriever(listings, model=model, matrix=matrix)
    return listings, bm25, dense, FusedRetriever(bm25, dense, questions)


def batch_vs_single(
    retriever: Any, dense: Any, queries: Sequence[Any], repeat: int
) -> tuple[float, float]:
    """Median seconds per query of a retriever: one at a time, then batched.

    Both runs start from a cold query cache (otherwise the second would only rank) and
    alternate within each repeat, so a slow spell on the machine hits both alike.
    """
    single, batched = [], []
    for _ in range(repeat):
        dense._query_cache.clear()
        t0 = time.perf_counter()
        for q in queries:
            retriever(q)
        single.append((time.perf_counter() - t0) / len(queries))
        dense._query_cache.clear()
        t0 = time.perf_counter()
        retriever.retrieve_batch(queries)
        batched.append((time.perf_counter() - t0) / len(queries))
    return statistics.median(single), statistics.median(batched)


def print_stages(stages: Stages, total: float, n_listings: int, n_queries: int) -> None:
    """The stage table: seconds and share of the wall time."""
    print(f"demo timing: {n_listings} listings, {n_queries} golden queries, {os.cpu_count()} cores")
    other_label = "other (imports, golden parse)"
    width = max(len(other_label), *(len(label) for label, _ in stages))
    for label, seconds in stages:
        print(f"  {label:<{width}}  {seconds:8.3f} s  {100 * seconds / total:5.1f} %")
    other = total - sum(s for _, s in stages)
    print(f"  {other_label:<{width}}  {other:8.3f} s  {100 * other / total:5.1f} %")
    print(f"  {'wall time':<{width}}  {total:8.3f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--golden", default=str(ROOT / "golden"), help="golden file or folder")
    parser.add_argument("--repeat", type=int, default=1, help="passes over the golden set")
    parser.add_argument(
        "--batch-repeat", type=int, default=7, help="repeats of the batch-vs-single timing"
    )
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from demo.golden import load_golden

    stages: Stages = []
    wall = time.perf_counter()
    queries = load_golden([args.golden])
    listings, bm25, dense, fused = build(stages)

    def run_all(retriever: Callable[[Any], Sequence[Any]]) -> int:
        dense._query_cache.clear()
        return sum(len(retriever(q)) for _ in range(args.repeat) for q in queries)

    n = len(queries) * args.repeat
    for name, retriever in (("bm25", bm25), ("dense", dense), ("fused", fused)):
        timed(stages, f"queries: {name} ({n})", run_all, retriever)
    print_stages(stages, time.perf_counter() - wall, len(listings), len(queries))
    for name in ("dense", "fused"):
        per_query = dict(stages)[f"queries: {name} ({n})"] / n
        print(f"  {name}: {1000 * per_query:.2f} ms per query")

    print(
        f"\n{len(queries)} golden queries, cold query cache, "
        f"median of {args.batch_repeat} (ms per query):"
    )
    for name, retriever in (("dense", dense), ("fused", fused)):
        single, batched = batch_vs_single(retriever, dense, queries, args.batch_repeat)
        print(
            f"  {name}: one at a time {1000 * single:6.2f}  one batch {1000 * batched:6.2f}"
            f"  ratio {single / batched:4.1f}x faster batched"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
