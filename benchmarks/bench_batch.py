"""The demo's dense retriever, batched, against one query at a time.

The retriever is ``demo.build_retriever("dense", cache_dir=...)`` (all-MiniLM-L6-v2,
offline; the catalog embeddings come from a cache filled before timing). Batched, it is
called through the batch protocol: ``retrieve_batch(queries)`` (the demo's own when it
has one, else ``BATCHED`` below: the chunk's texts encoded in one ``encode`` call, then
each query ranked as the per-query call ranks it). One at a time, a plain function
``search(query) -> dense(query)`` hides ``retrieve_batch``, so the plugin calls it once
per query.

1. Through pytest, whole processes alternately: ``pytest --retrieval-eval -q
   --retrieval-report=r.json`` on a copy of the demo's ``golden/`` with a conftest whose
   only configuration is ``dense``, batched (``retrieval_batch_size`` 64, the default)
   against one query at a time; plus the retriever time the JSON report records
   (the sum of ``latency_ms``; for batch calls each query's share).
2. In-process, the same two ways over the golden queries (encoding cache cleared each
   pass), alternately. ``benchmarks/demo_timing.py`` splits the rest of a demo run
   (model load, catalog encoding, bm25) into stages.

No target in issue 11 beyond showing the difference (it measured 17.6 ms per query one
at a time against 4.5 ms batched).

    python benchmarks/bench_batch.py
    python benchmarks/bench_batch.py --pairs 5
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from _projects import (
    ROOT,
    alternate,
    header,
    load,
    median,
    parser,
    pytest_cmd,
    row,
    run_process,
    timed,
    write_ini,
)

BATCHED = '''
class Batched:
    """The dense retriever behind the batch protocol: one encode call per chunk."""

    def __init__(self, dense):
        self.dense = dense
        self.metadata = dense.metadata

    def retrieve_batch(self, queries):
        own = getattr(self.dense, "retrieve_batch", None)
        if own is not None:
            return own(queries)
        from demo.dense import encode

        cache = self.dense._query_cache
        texts = [t for t in dict.fromkeys(q.text for q in queries) if t not in cache]
        if texts:
            cache.update(zip(texts, encode(self.dense.model, texts)))
        return [self.dense(q) for q in queries]
'''

CONFTEST = """
import os, sys
import pytest
sys.path.insert(0, {root!r})
os.environ["HF_HUB_OFFLINE"] = "1"
from demo import build_retriever
{batched}

@pytest.fixture(scope="session", params=["dense"])
def retriever(request):
    dense = build_retriever("dense", cache_dir={cache!r})
    if {batch!r}:
        return Batched(dense)
    def search(query):
        return dense(query)
    search.metadata = dense.metadata
    return search
"""


def build(root: Path, batch: bool, cache: Path) -> None:
    shutil.copytree(ROOT / "golden", root / "golden", ignore=shutil.ignore_patterns("*.json"))
    text = CONFTEST.format(root=str(ROOT), batched=BATCHED, cache=str(cache), batch=batch)
    (root / "conftest.py").write_text(text)
    write_ini(root, {"retrieval_metrics": "ndcg@10 mrr recall@20"})


def retriever_ms(root: Path) -> tuple[float, dict]:
    """The retriever time the report records, and the ``all`` row."""
    block = json.loads((root / "r.json").read_text())["configurations"]["dense"]
    total = sum(q["latency_ms"] or 0.0 for q in block["queries"].values())
    return total, block["summary"]["all"]


def through_pytest(tmp: Path, pairs: int) -> None:
    cache = tmp / "cache"
    roots = {"batched": tmp / "batched", "one at a time": tmp / "single"}
    for name, root in roots.items():
        build(root, name == "batched", cache)
    cmd = pytest_cmd("--retrieval-eval", "-q", "--retrieval-report=r.json")
    run_process(cmd, roots["batched"])  # fills the catalog cache; not timed
    runs = alternate({k: (lambda r=r: run_process(cmd, r)) for k, r in roots.items()}, pairs)
    header("through pytest, the demo's 71 queries, dense only (median; ratio = single / batched)")
    a, b = median(runs["batched"], "wall"), median(runs["one at a time"], "wall")
    print(row("whole run, wall s", f"{a:.2f}", f"{b:.2f}", b / a, "(none)", ""))
    a, b = median(runs["batched"], "cpu"), median(runs["one at a time"], "cpu")
    print(row("whole run, cpu s", f"{a:.2f}", f"{b:.2f}", b / a, "", ""))
    (ms_a, all_a), (ms_b, all_b) = (
        retriever_ms(roots["batched"]),
        retriever_ms(roots["one at a time"]),
    )
    print(row("retriever time (report), ms", f"{ms_a:.0f}", f"{ms_b:.0f}", ms_b / ms_a, "", ""))
    same = all(abs(all_a[m] - all_b[m]) < 1e-6 for m in ("ndcg@10", "mrr", "recall@20"))
    print(f"  same all-row means both ways (to 1e-6): {'yes' if same else 'NO'}; {all_a}")


def in_process(pairs: int) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    from demo import build_retriever
    from demo.golden import load_golden

    namespace: dict[str, object] = {}
    exec(BATCHED, namespace)
    dense = build_retriever("dense")
    batched = namespace["Batched"](dense)  # type: ignore[operator]
    queries = load_golden([ROOT / "golden"])

    def single() -> None:
        dense._query_cache.clear()
        for q in queries:
            dense(q)

    def chunks() -> None:
        dense._query_cache.clear()
        for start in range(0, len(queries), 64):
            batched.retrieve_batch(queries[start : start + 64])

    single(), chunks()  # warm: the first encode calls pay torch's start-up
    found: dict[str, list[float]] = {"batched": [], "one at a time": []}
    for round_ in range(pairs):
        found["batched"].append(timed(chunks))
        found["one at a time"].append(timed(single))
        print(
            f"  [{round_ + 1}/{pairs}] batched {found['batched'][-1]:.3f} s, "
            f"one at a time {found['one at a time'][-1]:.3f} s"
        )
    a, b = (median(found[k]) / len(queries) * 1000 for k in found)
    header(f"in-process, {len(queries)} queries (median ms per query; ratio = single / batched)")
    print(row("dense, ms per query", f"{a:.2f}", f"{b:.2f}", b / a, "(none)", ""))


def main(argv: list[str]) -> int:
    args = parser(__doc__).parse_args(argv)
    pairs = 1 if args.quick else args.pairs
    print(f"bench_batch: the demo's dense retriever; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        through_pytest(Path(tmp), pairs)
    in_process(pairs)
    print(f"bench_batch: done; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
