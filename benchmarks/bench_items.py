"""Per-query items against pytest's own trivial parametrized tests, same number of items.

Ours: N generated queries (YAML, ``benchmarks/_projects.py``) x C configurations of a
precomputed retriever (each query's ranking computed from its id: it costs a few
microseconds and holds nothing), ``retrieval_items = query`` (the default), so N x C
items, run as ``pytest --retrieval-eval -q`` (statistics and the terminal tables
included, no report file). The reference: one test function parametrized over N
values x a session-scoped fixture with C params, its body ``pass``, run as
``pytest -q -p no:retrieval``. A third process runs the same trivial tests with the
plugin installed but not enabled (no ``--retrieval-eval``): it should cost nothing.
So should it for a suite of one test, where the plugin's import is all there is to
see: ``pytest -q`` against ``pytest -q -p no:retrieval`` on one trivial test.

Each process is timed whole (wall, user+sys CPU), the variants alternately, and
compared on medians; then ``--collect-only -q`` for both (collection cost per item).
Target (issue 11): ours <= 1.2x the trivial tests' CPU.

    python benchmarks/bench_items.py                  # 10,000 queries x 3 configurations
    python benchmarks/bench_items.py 1000 3 --pairs 5
    python benchmarks/bench_items.py --quick          # 500 x 3, a check that it runs
    python benchmarks/bench_items.py --profile /tmp/prof   # and a cProfile of ours
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

TARGET = 1.2


def variants(ours: Path, trivial: Path, collect: bool) -> dict:
    extra = ["--collect-only"] if collect else []
    plain = [*extra, "-q", "-p", "no:retrieval"]
    found = {
        "ours": lambda: run_process(pytest_cmd("--retrieval-eval", "-q", *extra), ours),
        "trivial": lambda: run_process(pytest_cmd(*plain), trivial),
    }
    if not collect:
        one = trivial.parent / "one"
        found["trivial, plugin on"] = lambda: run_process(pytest_cmd("-q"), trivial)
        found["one test, plugin on"] = lambda: run_process(pytest_cmd("-q"), one)
        found["one test"] = lambda: run_process(pytest_cmd("-q", "-p", "no:retrieval"), one)
    return found


def report(runs: dict, collected: dict, items: int) -> None:
    header(f"{items} items: per-query items against trivial parametrized tests (medians)")
    ours, ref = runs["ours"], runs["trivial"]
    for what in ("cpu", "wall"):
        a, b = median(ours, what), median(ref, what)
        met = verdict(a / b, TARGET, False) if what == "cpu" else "(no target)"
        target = f"<= {TARGET}x" if what == "cpu" else ""
        print(row(f"whole run, {what} s", f"{a:.2f}", f"{b:.2f}", a / b, target, met))
    plugged = median(runs["trivial, plugin on"], "cpu")
    b = median(ref, "cpu")
    print(
        row(
            "trivial tests, plugin not enabled",
            f"{plugged:.2f}",
            f"{b:.2f}",
            plugged / b,
            "1.0x",
            "(cpu s)",
        )
    )
    one, one_ref = median(runs["one test, plugin on"], "cpu"), median(runs["one test"], "cpu")
    print(
        row(
            "one test, plugin not enabled",
            f"{one:.2f}",
            f"{one_ref:.2f}",
            one / one_ref,
            "1.0x",
            "(cpu s)",
        )
    )
    for what in ("cpu", "wall"):
        a = median(collected["ours"], what) / items * 1000
        b = median(collected["trivial"], what) / items * 1000
        print(row(f"collect-only, {what} ms/item", f"{a:.3f}", f"{b:.3f}", a / b, "", ""))
    print(f"  ours: {ours[0].last_line}\n  trivial: {ref[0].last_line}")


def main(argv: list[str]) -> int:
    ap = parser(__doc__)
    ap.add_argument("queries", nargs="?", type=int, default=10_000)
    ap.add_argument("configurations", nargs="?", type=int, default=3)
    args = ap.parse_args(argv)
    n = 500 if args.quick else args.queries
    c = args.configurations
    print(f"bench_items: {n} queries x {c} configurations; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        ours, trivial = Path(tmp) / "ours", Path(tmp) / "trivial"
        write_project(ours, n, precomputed_conftest(CONFIGURATIONS[:c]))
        write_trivial(trivial, n, c)
        write_trivial(Path(tmp) / "one", 1, 1)
        runs = alternate(variants(ours, trivial, collect=False), args.pairs)
        collected = alternate(variants(ours, trivial, collect=True), args.pairs)
        report(runs, collected, n * c)
        if args.profile:
            out = Path(args.profile)
            out.mkdir(parents=True, exist_ok=True)
            profile_pytest(["--retrieval-eval", "-q"], ours, out / "bench_items.prof")
    print(f"bench_items: done; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
