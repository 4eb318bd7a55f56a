"""The end of a session at 1,000, 10,000 and 100,000 queries, step by step, in-process.

For each size, N generated queries (``benchmarks/_projects.py``) x 3 configurations are
scored with ``score_query`` into synthetic ``QueryRecord``s (not timed). A baseline is
made from the same records with every seventh query's metrics lowered by 0.1 (so the
gate has queries that changed), written with ``io.baseline_file.dumps``. Then, each
step timed with ``time.perf_counter`` (median of ``--pairs`` repetitions, ``gc.collect()``
before each step), with default settings (10,000 bootstrap resamples):

1. analysis: ``pytest_retrieval.evaluation.analyse``;
2. baseline read: ``io.baseline_file.parse_baseline`` of that text (what the gate reads);
3. gate: ``pytest_retrieval.gate.run_gate`` against it, sharing the analysis's bootstrap draws;
4. JSON report: ``pytest_retrieval.report.writers.write_reports`` of the whole run to a
   temporary ``report.json`` (the plugin's own path: streamed, written atomically);
5. baseline update: ``pytest_retrieval.baseline.merge_update`` + ``io.baseline_file.dumps``
   (the text the update writes, line by line, as ``write_baseline`` does).

Beside the steps, a reference that is not one: the standard library's ``json.loads``
(C) of the same baseline text, timed the same way and, like every step, with the cyclic
collector paused (the steps pause it themselves). Its growth is what this machine's
memory alone does to linear work on 10x the data (caches the larger heap no longer
fits, fresh memory from the system), with no Python code of ours in it; the table
prints each step's growth beside it.

The analysis is timed from the records as the session holds them: each repetition
starts from a fresh view of them (the columns the statistics read are built anew), as
the one analysis of a real session does.

Then the JSON writer once more under ``tracemalloc``: its peak allocation beside the
report's size. Targets (issue 11): no step grows faster than linearly (at most 10x per
10x queries; growth over 11x is flagged), the gate at 1,000 queries costs no more than
the analysis, and the JSON report is written without holding the whole encoded text
(its peak below the report's size).

    python benchmarks/bench_session_end.py                  # 1,000 10,000 100,000
    python benchmarks/bench_session_end.py 1000 5000 --pairs 5
    python benchmarks/bench_session_end.py --quick
"""

from __future__ import annotations

import dataclasses
import gc
import json
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

from _projects import CONFIGURATIONS, golden_queries, load, median, parser, ranking, timed

from pytest_retrieval.baseline import RunFacts, merge_update
from pytest_retrieval.bulk import with_paused_gc
from pytest_retrieval.evaluation import analyse
from pytest_retrieval.gate import run_gate
from pytest_retrieval.golden import GoldenQuery
from pytest_retrieval.io.baseline_file import dumps, parse_baseline
from pytest_retrieval.model import Results
from pytest_retrieval.report.run_report import GoldenInfo, RunReport
from pytest_retrieval.report.writers import write_reports
from pytest_retrieval.scoring import score_query
from pytest_retrieval.settings import GateSettings, StatsSettings, parse_settings

REPORT = Path(tempfile.mkdtemp(prefix="bench_session_end.")) / "report.json"
STEPS = ("analysis", "baseline read", "gate", "JSON report", "baseline update")
# not a step: the standard library's C parser on the same baseline text, to show how
# this machine's memory alone makes work on 10x the data grow
REFERENCE = "json.loads (C)"
PATH = "golden/generated.yaml"
SETTINGS = parse_settings({})
STATS = StatsSettings()


def records(n: int) -> tuple[Results, Results]:
    """This run's records and the baseline's (every seventh query 0.1 lower)."""
    current, previous = Results(), Results()
    for q in golden_queries(n):
        query = GoldenQuery(
            id=str(q["id"]),
            text=str(q["query"]),
            category=str(q["category"]),
            relevant=q["relevant"],
            path=PATH,  # type: ignore[arg-type]
        )
        i = int(query.id[1:])
        for position, name in enumerate(CONFIGURATIONS[:3]):
            record, _ = score_query(query, name, ranking(i, 20, position), SETTINGS, position)
            current.add(record)
            if i % 7 == 0:
                lowered = {m: max(0.0, (v or 0.0) - 0.1) for m, v in record.metrics.items()}
                record = dataclasses.replace(record, metrics=lowered)
            previous.add(record)
    return current, previous


def steps(n: int) -> dict[str, Callable[[], object]]:
    """Each step as a function; later steps read what earlier ones left in ``state``."""
    current, previous = records(n)
    ids = {r.id: PATH for r in current.view(CONFIGURATIONS[0]).records}
    names = frozenset(current.configurations())
    facts = RunFacts(ids, frozenset({PATH}), names, names)
    made = merge_update(None, previous, SETTINGS, facts, {"generated": "benchmark"})
    text = dumps(made.baseline)
    state: dict[str, object] = {}

    def gate() -> object:
        draws = state["evaluation"].draws  # type: ignore[attr-defined]
        state["gate"] = run_gate(
            state["baseline"],
            "baseline.json",
            current,
            SETTINGS,
            GateSettings(),
            STATS,
            facts,
            draws,
        )  # type: ignore[arg-type]
        return state["gate"]

    def update() -> object:
        outcome = merge_update(state["baseline"], current, SETTINGS, facts, {})  # type: ignore[arg-type]
        return dumps(outcome.baseline)

    return {
        "analysis": lambda: state.__setitem__(
            "evaluation", analyse(fresh(current), SETTINGS, STATS)
        ),
        "baseline read": lambda: state.__setitem__("baseline", parse_baseline(text)),
        "gate": gate,
        "JSON report": lambda: write_reports([REPORT], run_report(current, state)),
        "baseline update": update,
        REFERENCE: with_paused_gc(lambda: json.loads(text)),
    }


def fresh(results: Results) -> Results:
    """The same records, without the views and columns an earlier repetition built."""
    again = Results()
    for name in results.configurations():
        for record in results.view(name).records:
            again.add(record)
    return again


def run_report(results: Results, state: dict[str, object]) -> RunReport:
    return RunReport(
        SETTINGS,
        results,
        state["evaluation"],
        GoldenInfo.of(results),  # type: ignore[arg-type]
        gate=state["gate"],
        baseline=state["baseline"],  # type: ignore[arg-type]
    )


def measure(n: int, pairs: int) -> tuple[dict[str, float], tuple[int, int]]:
    """Median seconds per step, and the JSON writer's (peak bytes, report bytes)."""
    found: dict[str, list[float]] = {s: [] for s in (*STEPS, REFERENCE)}
    functions = steps(n)
    for round_ in range(pairs):
        for name in (*STEPS, REFERENCE):
            gc.collect()
            found[name].append(timed(functions[name]))
        print(
            f"  {n:>7} [{round_ + 1}/{pairs}] "
            + ", ".join(f"{s} {v[-1]:.2f} s" for s, v in found.items()),
            flush=True,
        )
    gc.collect()
    tracemalloc.start()
    functions["JSON report"]()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {s: median(v) for s, v in found.items()}, (peak, REPORT.stat().st_size)


def table(sizes: list[int], found: dict[int, dict[str, float]]) -> None:
    """Each step's medians and growth per size step: against the growth in queries
    (over 1.1x it is flagged) and against the C reference's growth on this machine."""
    print(
        f"\n{'step (median s)':<18}"
        + "".join(f"{n:>12,}" for n in sizes)
        + "   growth per step (queries; the C reference's)"
    )
    for step in (*STEPS, REFERENCE):
        times = [found[n][step] for n in sizes]
        growth = []
        for (a, ta), (b, tb) in pairwise(zip(sizes, times, strict=True)):
            factor = tb / ta if ta else float("inf")
            ref = found[b][REFERENCE] / found[a][REFERENCE] if found[a][REFERENCE] else 0.0
            flag = "" if factor <= 1.1 * b / a else " SUPERLINEAR"
            growth.append(f"{factor:.1f}x ({b / a:g}x{flag}; {ref:.1f}x)")
        print(f"{step:<18}" + "".join(f"{t:>12.3f}" for t in times) + "   " + ", ".join(growth))


def main(argv: list[str]) -> int:
    ap = parser(__doc__)
    ap.add_argument("sizes", nargs="*", type=int)
    args = ap.parse_args(argv)
    sizes = [200, 1000, 2000] if args.quick else (args.sizes or [1000, 10_000, 100_000])
    print(f"bench_session_end: {sizes} queries x 3 configurations; {load()}")
    found, memory = {}, {}
    for n in sizes:
        found[n], memory[n] = measure(n, args.pairs)
    table(sizes, found)
    first = sizes[0]
    gate, analysis = found[first]["gate"], found[first]["analysis"]
    met = "met" if gate <= analysis else "MISSED"
    print(
        f"\ngate at {first}: {gate:.3f} s, analysis {analysis:.3f} s "
        f"(ratio {gate / analysis:.2f}x; target <= 1.0x): {met}"
    )
    print("JSON writer's peak allocation (tracemalloc) against the report's size:")
    for n in sizes:
        peak, size = memory[n]
        met = "met" if peak < size else "MISSED"
        print(
            f"  {n:>7}: peak {peak / 2**20:8.1f} MiB, report {size / 2**20:8.1f} MiB, "
            f"ratio {peak / size:.2f}x (target < 1.0x, the text not held whole): {met}"
        )
    print(f"bench_session_end: done; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
