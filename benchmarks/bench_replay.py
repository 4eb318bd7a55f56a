"""A recorded run replayed, against the run that recorded it.

The project: N generated queries (YAML, ``benchmarks/_projects.py``), C configurations
(1 by default), per-query items, and a retriever that costs about 1 ms per query
(``time.sleep(0.001)``, as a fast remote service would) and returns the query's
generated ranking. Whole processes, alternately:

- record: ``pytest --retrieval-eval -q --retrieval-record=rec.jsonl
  --retrieval-report=recorded.json`` (calls the retriever, writes every result);
- replay: ``pytest --retrieval-eval -q --retrieval-replay=rec.jsonl
  --retrieval-report=replayed.json`` (reads them back; the fixture is not built).

Printed: both wall and CPU times and the peak resident memory, the ratio, the time
the retriever itself took in the recording run (the sum of its per-query latency in
the report), and whether the two reports' numbers are equal (``configurations`` with
the latency fields stripped). No target in issue 11: replay should cost the recording
run minus the retriever.

    python benchmarks/bench_replay.py                # 10,000 queries
    python benchmarks/bench_replay.py 2000 --configurations 3
    python benchmarks/bench_replay.py --quick
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from _projects import (
    CONFIGURATIONS,
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
    stripped,
    write_project,
)

SERVICE = """
def search(query):
    time.sleep(0.001)
    return ranking(int(query.id[1:]), 20, shift)
return search
"""


def retriever_seconds(path: Path) -> float:
    configurations = json.loads(path.read_text())["configurations"]
    return (
        sum(q["latency_ms"] or 0.0 for b in configurations.values() for q in b["queries"].values())
        / 1000
    )


def main(argv: list[str]) -> int:
    ap = parser(__doc__)
    ap.add_argument("queries", nargs="?", type=int, default=10_000)
    ap.add_argument("--configurations", type=int, default=1)
    args = ap.parse_args(argv)
    n = 1000 if args.quick else args.queries
    c = args.configurations
    print(f"bench_replay: {n} queries x {c} configuration(s), ~1 ms each; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_project(root, n, conftest_text(CONFIGURATIONS[:c], SERVICE, "import time\n"))
        record = ["--retrieval-eval", "-q", "--retrieval-record=rec.jsonl"]
        replay = ["--retrieval-eval", "-q", "--retrieval-replay=rec.jsonl"]
        runs = alternate(
            {
                "record": lambda: run_process(
                    pytest_cmd(*record, "--retrieval-report=recorded.json"), root
                ),
                "replay": lambda: run_process(
                    pytest_cmd(*replay, "--retrieval-report=replayed.json"), root
                ),
            },
            args.pairs,
        )
        same = stripped(root / "recorded.json") == stripped(root / "replayed.json")
        size = (root / "rec.jsonl").stat().st_size / 2**20
        header(f"{n * c} results: median s (ratio = replay / record)")
        for what in ("wall", "cpu"):
            a, b = median(runs["replay"], what), median(runs["record"], what)
            print(row(f"replay vs record, {what} s", f"{a:.2f}", f"{b:.2f}", a / b, "(none)", ""))
        a, b = (median(runs[v], "maxrss_kb") / 1024 for v in ("replay", "record"))
        print(row("replay vs record, peak MiB", f"{a:.0f}", f"{b:.0f}", a / b, "(none)", ""))
        spent = retriever_seconds(root / "recorded.json")
        print(f"  the retriever's own time in the recording run: {spent:.2f} s")
        print(f"  recording: {size:.1f} MiB; numbers equal (latency stripped): {same}")
        if args.profile:
            out = Path(args.profile)
            out.mkdir(parents=True, exist_ok=True)
            profile_pytest(replay, root, out / "bench_replay.prof")
    print(f"bench_replay: done; {load()}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
