"""Time the demo end to end, in-process: where does a `pytest --retrieval-eval` run go?

Stages, each timed on its own:

1. catalog load (YAML -> listings);
2. model load (importing sentence-transformers and loading all-MiniLM-L6-v2 offline);
3. catalog encoding (all listings, batched, with the disk cache bypassed);
4. bm25 index build (three bm25s field indexes);
5. per configuration, every golden query: query encoding (dense, fused) + ranking.

Each configuration encodes its own queries (the in-memory query cache is cleared between
configurations), so its line is what it would cost alone.

    python benchmarks/demo_timing.py [--golden golden] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", default=str(ROOT / "golden"), help="golden file or folder")
    parser.add_argument("--repeat", type=int, default=1, help="passes over the golden set")
    args = parser.parse_args()

    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    stages: list[tuple[str, float]] = []
    wall = time.perf_counter()

    def timed(label: str, fn, *a, **kw):
        t0 = time.perf_counter()
        out = fn(*a, **kw)
        stages.append((label, time.perf_counter() - t0))
        return out

    from demo.catalog import load_catalog
    from demo.golden import load_golden

    listings = timed("catalog load", load_catalog)
    queries = load_golden([args.golden])

    from demo import dense as dense_mod
    from demo.hybrid import FusedRetriever
    from demo.lexical import BM25FRetriever

    model = timed("model load", dense_mod.load_model)
    passages = [x.text() for x in listings]
    matrix = timed("catalog encoding", dense_mod.catalog_embeddings, model, passages, None)
    bm25 = timed("bm25 index build", BM25FRetriever, listings)

    dense = dense_mod.DenseRetriever(listings, model=model, matrix=matrix)
    fused = FusedRetriever(bm25, dense)

    def run_all(retriever) -> int:
        dense._query_cache.clear()
        returned = 0
        for _ in range(args.repeat):
            for q in queries:
                returned += len(retriever(q))
        return returned

    n = len(queries) * args.repeat
    for name, retriever in (("bm25", bm25), ("dense", dense), ("fused", fused)):
        timed(f"queries: {name} ({n})", run_all, retriever)

    total = time.perf_counter() - wall
    print(
        f"demo timing: {len(listings)} listings, {len(queries)} golden queries, "
        f"{os.cpu_count()} cores"
    )
    other_label = "other (imports, golden parse)"
    width = max(len(other_label), *(len(label) for label, _ in stages))
    for label, seconds in stages:
        print(f"  {label:<{width}}  {seconds:8.3f} s  {100 * seconds / total:5.1f} %")
    other = total - sum(s for _, s in stages)
    print(f"  {other_label:<{width}}  {other:8.3f} s  {100 * other / total:5.1f} %")
    print(f"  {'wall time':<{width}}  {total:8.3f} s")
    for name in ("dense", "fused"):
        per_query = dict(stages)[f"queries: {name} ({n})"] / n
        print(f"  {name}: {1000 * per_query:.2f} ms per query")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
