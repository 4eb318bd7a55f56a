"""How a large golden set runs through pytest: wall time per item, beside the bare core.

Builds a throwaway project with N generated queries (five categories, graded
judgments) and a retriever fixture with C configurations that returns a fixed
ranking per query (so the retriever costs nothing and only the plugin is
measured), then runs, in this one job:

  1. the reference: the same scoring and aggregation in-process, no pytest;
  2. ``pytest --retrieval-eval --collect-only -q`` (collection alone);
  3. ``pytest --retrieval-eval -q --retrieval-report r.json`` (the whole run).

    python benchmarks/plugin_scale.py                 # 10,000 queries x 3 configurations
    python benchmarks/plugin_scale.py 100000 3
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_retrieval.aggregate import summaries
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.model import Results
from pytest_retrieval.scoring import score_query
from pytest_retrieval.settings import parse_settings

CATEGORIES = ("exact-name", "paraphrase", "filtered", "no-result", "adversarial")

CONFTEST = """
import json, pytest
from pathlib import Path
RANKINGS = json.loads((Path(__file__).parent / "rankings.json").read_text())

@pytest.fixture(scope="session", params={params!r})
def retriever(request):
    shift = {params!r}.index(request.param)
    def search(query):
        ranking = RANKINGS[query.id]
        return ranking[shift:] + ranking[:shift]
    return search
"""


def write_project(root: Path, n: int, configurations: list[str]) -> None:
    import json

    rng = random.Random(n)
    (root / "golden").mkdir()
    lines = ["queries:"]
    rankings = {}
    for i in range(n):
        category = CATEGORIES[i % len(CATEGORIES)]
        qid = f"q{i:06d}"
        docs = rng.sample(range(5000), 8)
        rel = {} if category == "no-result" else {f"d{d}": rng.randint(0, 3) for d in docs[:4]}
        rel_text = "{" + ", ".join(f"{d}: {g}" for d, g in rel.items()) + "}"
        lines.append(
            f"  - {{id: {qid}, query: generated query {i}, category: {category}, "
            f"relevant: {rel_text}}}"
        )
        rankings[qid] = [f"d{d}" for d in docs] + [f"d{rng.randrange(5000)}" for _ in range(12)]
    (root / "golden" / "generated.yaml").write_text("\n".join(lines) + "\n")
    (root / "rankings.json").write_text(json.dumps(rankings))
    (root / "conftest.py").write_text(CONFTEST.format(params=configurations))
    (root / "pytest.ini").write_text("[pytest]\n")


def reference(root: Path, configurations: list[str]) -> float:
    import json

    start = time.perf_counter()
    settings = parse_settings({})
    queries = load_golden_file(root / "golden" / "generated.yaml")
    rankings = json.loads((root / "rankings.json").read_text())
    results = Results()
    for position, configuration in enumerate(configurations):
        for query in queries:
            ranking = rankings[query.id]
            shifted = ranking[position:] + ranking[:position]
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
