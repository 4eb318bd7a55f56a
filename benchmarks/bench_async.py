"""An async retriever that waits 20 ms per query: 32 calls in flight against one at a time.

The project: N generated queries (YAML, ``benchmarks/_projects.py``), one
configuration, per-query items (the default), and a retriever ``async def
search(query)`` that does ``await asyncio.sleep(0.02)`` and returns the query's
generated ranking. Whole processes, alternately:

- concurrent: ``pytest --retrieval-eval -q -o retrieval_concurrency=32``;
- sequential: the same with ``-o retrieval_concurrency=1``;
- pytest's own floor: N trivial parametrized tests (no plugin at work), the least
  any run of N items costs here;
- with ``--with-sync``, also a plain ``def`` retriever doing ``time.sleep(0.02)``
  (what a per-query retriever costs).

``--items shard:500`` runs both with coarse items instead (and no floor).

Target (issue 11): concurrent >= 15x faster than sequential (wall time). The waiting
alone is N x 20 ms sequentially and N x 20 ms / 32 at best concurrently; the script
prints that beside the runs. With per-query items the concurrent run cannot beat
pytest's floor, so 15x needs that floor under 1/15 of the sequential run.

    python benchmarks/bench_async.py                 # 2,000 queries
    python benchmarks/bench_async.py 500 --concurrency 16 --with-sync
    python benchmarks/bench_async.py --quick
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _projects import (
    alternate,
    conftest_text,
    header,
    load,
    median,
    parser,
    profile_pytest,
    pytest_cmd,
    row,
    run_process,
    verdict,
    write_project,
    write_trivial,
)

SLEEP = 0.02
TARGET = 15.0

ASYNC = """
async def search(query):
    await asyncio.sleep(SLEEP)
    return ranking(int(query.id[1:]), 20, shift)
return search
"""

SYNC = """
def search(query):
    time.sleep(SLEEP)
    return ranking(int(query.id[1:]), 20, shift)
return search
"""


def main(argv: list[str]) -> int:
    ap = parser(__doc__)
    ap.add_argument("queries", nargs="?", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=32, help="calls in flight (32)")
    ap.add_argument("--with-sync", action="store_true", help="also a time.sleep retriever")
    ap.add_argument("--items", default="query", help="retrieval_items (query)")
    args = ap.parse_args(argv)
    n = 200 if args.quick else args.queries
    c = args.concurrency
    head = f"import asyncio, time\nSLEEP = {SLEEP}\n"
    print(f"bench_async: {n} queries, {SLEEP * 1000:.0f} ms each, concurrency {c}; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        root, sync = Path(tmp) / "async", Path(tmp) / "sync"
        write_project(root, n, conftest_text(["remote"], ASYNC, head))
        items = ["-o", f"retrieval_items={args.items}"]
        ours = ["--retrieval-eval", "-q", *items, "-o", f"retrieval_concurrency={c}"]
        sequential = ["--retrieval-eval", "-q", *items, "-o", "retrieval_concurrency=1"]
        variants = {
            f"concurrency {c}": lambda: run_process(pytest_cmd(*ours), root),
            "concurrency 1": lambda: run_process(pytest_cmd(*sequential), root),
        }
        if args.items == "query":
            write_trivial(Path(tmp) / "trivial", n, 1)
            variants["pytest's floor"] = lambda: run_process(
                pytest_cmd("-q"), Path(tmp) / "trivial"
            )
        if args.with_sync:
            write_project(sync, n, conftest_text(["remote"], SYNC, head))
            variants["sync, time.sleep"] = lambda: run_process(
                pytest_cmd("--retrieval-eval", "-q"), sync
            )
        runs = alternate(variants, args.pairs)
        header(f"{n} queries x {SLEEP * 1000:.0f} ms: median wall s (ratio = sequential / ours)")
        fast = median(runs[f"concurrency {c}"], "wall")
        for name in [v for v in list(variants)[1:] if v != "pytest's floor"]:
            slow = median(runs[name], "wall")
            print(
                row(
                    f"concurrency {c} vs {name}",
                    f"{fast:.2f}",
                    f"{slow:.2f}",
                    slow / fast,
                    f">= {TARGET:g}x",
                    verdict(slow / fast, TARGET, True),
                )
            )
        print(
            f"  waiting alone: {n * SLEEP:.1f} s sequential, {n * SLEEP / c:.2f} s at "
            f"concurrency {c}; cpu of ours {median(runs[f'concurrency {c}'], 'cpu'):.2f} s"
        )
        if "pytest's floor" in runs:
            floor = median(runs["pytest's floor"], "wall")
            best = median(runs["concurrency 1"], "wall") / floor
            print(
                f"  pytest's floor, {n} trivial tests: {floor:.2f} s wall (ours {fast / floor:.2f}x"
                f" of it); the best ratio any per-query run could reach here: {best:.1f}x"
            )
        if args.profile:
            out = Path(args.profile)
            out.mkdir(parents=True, exist_ok=True)
            profile_pytest(ours, root, out / "bench_async.prof")
    print(f"bench_async: done; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
