"""Peak memory per query: shard items at 100,000 queries, and per item beside pytest's own.

Peak resident set size of whole processes (``os.wait4``'s ``ru_maxrss``, what
``/usr/bin/time -v`` calls "Maximum resident set size"), each above the floor of the
same invocation on a one-query golden set (the interpreter, pytest, the plugin and
their imports), divided by what the big run evaluates:

1. shard mode: N generated queries (JSONL, ``benchmarks/_projects.py``) x C
   configurations of a precomputed retriever that holds nothing (each ranking
   computed from the query's id), ``pytest --retrieval-eval -q --retrieval-items
   shard:1000 --retrieval-report=r.json``. Target (issue 11): <= 4 KB per (query,
   configuration).
2. query mode (per-query items): Q queries x C configurations, the same command with
   ``retrieval_items = query``, against pytest's own cost per item: one test
   parametrized over Q values x a session fixture with C params, body ``pass``
   (``pytest -q -p no:retrieval``), above its own one-value floor. No target beyond
   showing both (issue 11: 15.3 KB against 6.1 KB).

Every process runs ``--pairs`` times, alternately; medians.

    python benchmarks/bench_memory.py                     # 100,000 shard, 10,000 query, x 3
    python benchmarks/bench_memory.py --shard-queries 20000 --configurations 1
    python benchmarks/bench_memory.py --quick
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _projects import (
    CONFIGURATIONS,
    alternate,
    header,
    load,
    median,
    parser,
    precomputed_conftest,
    profile_pytest,
    pytest_cmd,
    row,
    run_process,
    verdict,
    write_project,
    write_trivial,
)

TARGET_KB = 4.0
JSONL = "golden/generated.jsonl"


def projects(tmp: Path, shard_n: int, query_n: int, c: int) -> dict[str, Path]:
    conftest = precomputed_conftest(CONFIGURATIONS[:c])
    roots = {name: tmp / name.replace(" ", "-") for name in ("shard", "shard floor", "query")}
    write_project(roots["shard"], shard_n, conftest, golden=JSONL)
    write_project(roots["shard floor"], 1, conftest, golden=JSONL)
    write_project(roots["query"], query_n, conftest, golden=JSONL)
    roots["trivial"], roots["trivial floor"] = tmp / "trivial", tmp / "trivial-floor"
    write_trivial(roots["trivial"], query_n, c)
    write_trivial(roots["trivial floor"], 1, c)
    return roots


def variants(roots: dict[str, Path], shard: int) -> dict:
    shard_cmd = pytest_cmd(
        "--retrieval-eval", "-q", f"--retrieval-items=shard:{shard}", "--retrieval-report=r.json"
    )
    query_cmd = pytest_cmd("--retrieval-eval", "-q", "--retrieval-report=r.json")
    query_floor = roots["shard floor"]
    trivial_cmd = pytest_cmd("-q", "-p", "no:retrieval")
    return {
        "shard": lambda: run_process(shard_cmd, roots["shard"]),
        "shard floor": lambda: run_process(shard_cmd, roots["shard floor"]),
        "query": lambda: run_process(query_cmd, roots["query"]),
        "query floor": lambda: run_process(query_cmd, query_floor),
        "trivial": lambda: run_process(trivial_cmd, roots["trivial"]),
        "trivial floor": lambda: run_process(trivial_cmd, roots["trivial floor"]),
    }


def per_unit(runs: dict, name: str, units: int) -> tuple[float, float, float]:
    """KiB per unit above the floor, the peak and the floor (MiB)."""
    peak, floor = median(runs[name], "maxrss_kb"), median(runs[f"{name} floor"], "maxrss_kb")
    return (peak - floor) / units, peak / 1024, floor / 1024


def report(runs: dict, shard_n: int, query_n: int, c: int) -> None:
    header("peak RSS above the one-query floor (median KiB per unit; ratio = ours / reference)")
    kb, peak, floor = per_unit(runs, "shard", shard_n * c)
    print(
        row(
            "shard mode, per (query, config)",
            f"{kb:.2f}",
            f"{TARGET_KB:.2f}",
            kb / TARGET_KB,
            f"<= {TARGET_KB:g} KB",
            verdict(kb, TARGET_KB, False),
        )
    )
    print(f"  shard: {shard_n} x {c}: peak {peak:.0f} MiB, floor {floor:.0f} MiB")
    ours, peak, floor = per_unit(runs, "query", query_n * c)
    print(f"  query: {query_n} x {c}: peak {peak:.0f} MiB, floor {floor:.0f} MiB")
    theirs, peak, floor = per_unit(runs, "trivial", query_n * c)
    print(f"  trivial: {query_n} x {c}: peak {peak:.0f} MiB, floor {floor:.0f} MiB")
    print(
        row(
            "query mode, per item vs trivial",
            f"{ours:.2f}",
            f"{theirs:.2f}",
            ours / theirs,
            "(none)",
            "",
        )
    )
    print(f"  shard: {runs['shard'][-1].last_line}\n  query: {runs['query'][-1].last_line}")


def main(argv: list[str]) -> int:
    ap = parser(__doc__)
    ap.add_argument("--shard-queries", type=int, default=100_000)
    ap.add_argument("--query-queries", type=int, default=10_000)
    ap.add_argument("--configurations", type=int, default=3)
    ap.add_argument("--shard", type=int, default=1000, help="queries per shard item (1000)")
    args = ap.parse_args(argv)
    shard_n, query_n = (3000, 1000) if args.quick else (args.shard_queries, args.query_queries)
    c = args.configurations
    print(f"bench_memory: shard {shard_n} x {c}, query {query_n} x {c}; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        roots = projects(Path(tmp), shard_n, query_n, c)
        runs = alternate(variants(roots, args.shard), args.pairs)
        report(runs, shard_n, query_n, c)
        if args.profile:
            out = Path(args.profile)
            out.mkdir(parents=True, exist_ok=True)
            shard = ["--retrieval-eval", "-q", f"--retrieval-items=shard:{args.shard}"]
            profile_pytest([*shard, "--retrieval-report=r.json"], roots["shard"], out / "mem.prof")
    print(f"bench_memory: done; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
