"""How a large golden set runs through pytest: wall time per item, beside the bare core.

Builds a throwaway project with N generated queries (five categories, graded
judgments; see ``benchmarks/_projects.py``) and a retriever fixture with C
configurations that returns a fixed ranking per query (so the retriever costs
nothing and only the plugin is measured), then runs, in this one job:

  1. the reference: the same scoring and aggregation in-process, no pytest;
  2. ``pytest --retrieval-eval --collect-only -q`` (collection alone);
  3. ``pytest --retrieval-eval -q --retrieval-report r.json`` (the whole run).

    python benchmarks/plugin_scale.py                 # 10,000 queries x 3 configurations
    python benchmarks/plugin_scale.py 100000 3
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _projects import precomputed_conftest, ranking
from _projects import write_project as write_generated

from pytest_retrieval.aggregate import summaries
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.model import Results
from pytest_retrieval.scoring import score_query
from pytest_retrieval.settings import parse_settings


def write_project(root: Path, n: int, configurations: list[str]) -> None:
    """N generated queries (benchmarks/_projects.py) and a retriever that costs nothing."""
    write_generated(root, n, precomputed_conftest(configurations))


def reference(root: Path, configurations: list[str]) -> float:
    start = time.perf_counter()
    settings = parse_settings({})
    queries = load_golden_file(root / "golden" / "generated.yaml")
    results = Results()
    for position, configuration in enumerate(configurations):
        for query in queries:
            shifted = ranking(int(query.id[1:]), 20, position)
            record, _ = score_query(query, configuration, shifted, settings, position=position)
            results.add(record)
    summaries(results, settings.metric_names)
    return time.perf_counter() - start


def timed(cmd: list[str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    return seconds, last


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 10_000
    c = int(argv[1]) if len(argv) > 1 else 3
    configurations = ["bm25", "dense", "fused", "rerank", "hybrid"][:c]
    items = n * c
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_project(root, n, configurations)
        core = reference(root, configurations)
        base = [
            sys.executable,
            "-m",
            "pytest",
            "--retrieval-eval",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
        ]
        collect, collect_line = timed([*base, "--collect-only"], root)
        run, run_line = timed([*base, "--retrieval-report", "r.json"], root)
    print(f"{n} queries x {c} configurations = {items} items")
    print(
        f"  core only (parse, score, aggregate; no pytest) {core:8.2f} s  "
        f"{core / items * 1000:6.3f} ms/item"
    )
    print(
        f"  pytest --collect-only                          {collect:8.2f} s  "
        f"{collect / items * 1000:6.3f} ms/item   [{collect_line}]"
    )
    print(
        f"  pytest --retrieval-eval (whole run, report)    {run:8.2f} s  "
        f"{run / items * 1000:6.3f} ms/item   [{run_line}]"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
