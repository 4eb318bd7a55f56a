"""Shard items at 100,000 queries x 100 results, against pytrec_eval on the same run.

The project: N generated queries in one JSONL golden file (``benchmarks/_projects.py``),
their rankings (100 distinct ids each, scores falling with rank) in a TREC run file
``run.trec`` (tag ``run``), ini ``retrieval_metrics = ndcg@10 mrr recall@20 map`` with
trec_eval's conventions (``retrieval_gain = linear``, ``retrieval_empty = zero``) so the
two sides' means can be checked equal. Three whole processes, alternately:

- ours, replay: ``pytest --retrieval-eval -p no:randomly --retrieval-report=r.json
  --retrieval-items shard:1000 --retrieval-replay run.trec`` (loading, collection, the
  run read by the plugin's TREC reader, metrics, statistics, JSON report);
- ours, batch fixture: the same without ``--retrieval-replay``; the conftest's
  ``retriever`` is an object whose ``retrieve_batch`` answers from ``run.trec``, read
  into a dict by a plain loop when the fixture is built (as the reference reads it);
- pytrec_eval: a Python process that reads the same JSONL into qrels dicts and the
  same run into run dicts and calls ``pytrec_eval.RelevanceEvaluator(qrels,
  {"ndcg_cut.10", "recip_rank", "recall.20", "map"}).evaluate(run)``.

Target: our whole run no slower than pytrec_eval's process. Then in-process, on the
same rankings held in memory (plain id lists): the bare metric function
(``pytest_retrieval.metrics.evaluate``) and the per-query path around it
(``pytest_retrieval.scoring.score_query``), each against pytrec_eval's total
(building qrels and run dicts from those rankings, the evaluator, ``evaluate``).
Target: the metrics at least 3x faster than pytrec_eval's total.

    python benchmarks/bench_shards.py                  # 100,000 queries, shard:1000
    python benchmarks/bench_shards.py 20000 --shard 500
    python benchmarks/bench_shards.py --quick
    python benchmarks/bench_shards.py --in-process     # the in-process comparison only
"""

from __future__ import annotations

import gc
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
    ranking,
    row,
    run_process,
    timed,
    verdict,
    write_project,
    write_trec_run,
)

DEPTH = 100
METRICS = "ndcg@10 mrr recall@20 map"
TREC_MEASURES = {"ndcg_cut_10": "ndcg@10", "recip_rank": "mrr", "recall_20": "recall@20"}
TREC_MEASURES["map"] = "map"
INI = {"retrieval_metrics": METRICS, "retrieval_gain": "linear", "retrieval_empty": "zero"}

BATCH_FROM_RUN = """
class RunFile:
    def __init__(self, path):
        self.ranked = {}
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                qid, _, doc, _, score, _ = line.split()
                self.ranked.setdefault(qid, []).append((doc, float(score)))

    def retrieve_batch(self, queries):
        return [self.ranked.get(q.id, []) for q in queries]

return RunFile(Path(__file__).parent / "run.trec")
"""

REFERENCE = """
import json, sys, pytrec_eval
qrels = {}
with open("golden/generated.jsonl", encoding="utf-8") as lines:
    for line in lines:
        q = json.loads(line)
        qrels[q["id"]] = {doc: int(grade) for doc, grade in q["relevant"].items()}
run = {}
with open("run.trec", encoding="utf-8") as lines:
    for line in lines:
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
measures = {"ndcg_cut.10", "recip_rank", "recall.20", "map"}
values = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = sorted({m for v in values.values() for m in v})
means = {m: sum(v[m] for v in values.values()) / len(qrels) for m in names}
print("pytrec_eval means over", len(qrels), "queries:", json.dumps(means))
"""


def build(root: Path, n: int) -> None:
    conftest = conftest_text(["run"], BATCH_FROM_RUN, head="from pathlib import Path\n")
    write_project(root, n, conftest, INI, golden="golden/generated.jsonl")
    write_trec_run(root / "run.trec", n, DEPTH, "run")
    (root / "reference.py").write_text(REFERENCE)


def processes(root: Path, shard: int) -> dict:
    ours = ["--retrieval-eval", f"--retrieval-items=shard:{shard}"]
    return {
        "ours, replay": lambda: run_process(
            pytest_cmd(*ours, "--retrieval-report=r.json", "--retrieval-replay=run.trec"), root
        ),
        "ours, batch fixture": lambda: run_process(
            pytest_cmd(*ours, "--retrieval-report=r2.json"), root
        ),
        "pytrec_eval": lambda: run_process([sys.executable, "reference.py"], root),
    }


def same_means(root: Path, reference_output: str) -> str:
    """Our JSON report's ``all`` row beside pytrec_eval's means (equal to 1e-9?)."""
    import json

    ours = json.loads((root / "r.json").read_text())["configurations"]["run"]["summary"]["all"]
    theirs = json.loads(reference_output.split("queries:", 1)[1])
    gaps = {
        ours_name: abs(ours[ours_name] - theirs[trec]) for trec, ours_name in TREC_MEASURES.items()
    }
    worst = max(gaps.values())
    return (
        f"means equal to pytrec_eval's: {'yes' if worst < 1e-9 else 'NO'} (largest gap {worst:.2g})"
    )


def whole_runs(root: Path, shard: int, pairs: int, items: int) -> None:
    runs = alternate(processes(root, shard), pairs)
    ref = median(runs["pytrec_eval"], "wall")
    header(f"{items} queries x {DEPTH} results, shard:{shard}, whole processes (median wall s)")
    for name in ("ours, replay", "ours, batch fixture"):
        ours = median(runs[name], "wall")
        print(
            row(
                name,
                f"{ours:.2f}",
                f"{ref:.2f}",
                ours / ref,
                "<= 1.0x",
                verdict(ours / ref, 1.0, False),
            )
        )
    cpu = median(runs["ours, replay"], "cpu"), median(runs["pytrec_eval"], "cpu")
    print(row("ours, replay (cpu s)", f"{cpu[0]:.2f}", f"{cpu[1]:.2f}", cpu[0] / cpu[1], "", ""))
    peak = median(runs["ours, replay"], "maxrss_kb") / 1024
    ref_peak = median(runs["pytrec_eval"], "maxrss_kb") / 1024
    print(row("ours, replay (peak MiB)", f"{peak:.0f}", f"{ref_peak:.0f}", peak / ref_peak, "", ""))
    print(f"  {same_means(root, runs['pytrec_eval'][-1].output)}")
    print(f"  ours: {runs['ours, replay'][-1].last_line}")


def in_process(root: Path, n: int, pairs: int) -> None:
    """The metric arithmetic alone and score_query, beside pytrec_eval's in-process total."""
    import pytrec_eval

    from pytest_retrieval.io.golden_file import load_golden_file
    from pytest_retrieval.metrics import evaluate
    from pytest_retrieval.scoring import score_query
    from pytest_retrieval.settings import parse_settings

    settings = parse_settings(INI)
    queries = load_golden_file(root / "golden" / "generated.jsonl")
    rankings = [[sys.intern(d) for d in ranking(int(q.id[1:]), DEPTH)] for q in queries]
    pairs_ = list(zip(queries, rankings, strict=True))
    # the inputs, built once, set apart from the collector before anything is timed (as
    # the plugin freezes its golden set after collection): neither side's collections
    # walk 100,000 rankings
    gc.collect()
    gc.freeze()

    def metrics() -> None:
        for q, r in pairs_:
            evaluate(r, q.relevant, settings.metrics, settings.conventions)

    def scored() -> None:
        for q, r in pairs_:
            score_query(q, "run", r, settings)

    def reference() -> None:
        qrels = {q.id: dict(q.relevant) for q in queries}
        run = {q.id: {d: float(DEPTH - k) for k, d in enumerate(r)} for q, r in pairs_}
        measures = {"ndcg_cut.10", "recip_rank", "recall.20", "map"}
        pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

    found: dict[str, list[float]] = {"metrics.evaluate": [], "score_query": [], "pytrec_eval": []}
    for round_ in range(pairs):
        for name, function in zip(found, (metrics, scored, reference), strict=True):
            found[name].append(timed(function))
        print(
            f"  [{round_ + 1}/{pairs}] " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in found.items())
        )
    ref = median(found["pytrec_eval"])
    header(f"in-process, {n} queries x {DEPTH} results (median s; ratio = pytrec_eval / ours)")
    for name in ("metrics.evaluate", "score_query"):
        ours = median(found[name])
        target = ">= 3x" if name == "metrics.evaluate" else "(none)"
        met = verdict(ref / ours, 3.0, True) if name == "metrics.evaluate" else ""
        print(row(name, f"{ours:.2f}", f"{ref:.2f}", ref / ours, target, met))
        print(f"  {name}: {ours / n * 1e6:.1f} us/query; pytrec_eval {ref / n * 1e6:.1f} us/query")


def main(argv: list[str]) -> int:
    ap = parser(__doc__)
    ap.add_argument("queries", nargs="?", type=int, default=100_000)
    ap.add_argument("--shard", type=int, default=1000, help="queries per item (1000)")
    ap.add_argument("--in-process", action="store_true", help="only the in-process part")
    args = ap.parse_args(argv)
    n = 2000 if args.quick else args.queries
    print(f"bench_shards: {n} queries x {DEPTH} results, shard:{args.shard}; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, n)
        if not args.in_process:
            whole_runs(root, args.shard, args.pairs, n)
        in_process(root, n, args.pairs)
        if args.profile:
            out = Path(args.profile)
            out.mkdir(parents=True, exist_ok=True)
            ours = ["--retrieval-eval", f"--retrieval-items=shard:{args.shard}"]
            replay = [*ours, "--retrieval-report=r.json", "--retrieval-replay=run.trec"]
            profile_pytest(replay, root, out / "bench_shards_replay.prof")
            profile_pytest(
                [*ours, "--retrieval-report=r2.json"], root, out / "bench_shards_batch.prof"
            )
    print(f"bench_shards: done; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
