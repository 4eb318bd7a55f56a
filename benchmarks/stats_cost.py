"""What statistics add to a run: 1,000 and 100,000 queries, three configurations.

Prints, side by side in one process, the time of the evaluation's own work
(scoring every query of every configuration with ``score_query`` and
aggregating the means) and the time statistics add on top of it (intervals for
every summary cell, paired comparisons with Holm, warnings). The issue's bar:
statistics under a tenth of the evaluation at 100,000 queries.

    python benchmarks/stats_cost.py                  # 1,000 and 100,000 queries
    python benchmarks/stats_cost.py 5000             # other sizes
    python benchmarks/stats_cost.py --pytest 100000  # also time a whole pytest run

The evaluation measured in-process is the pure core only (no retriever, no
pytest). With ``--pytest`` the script also runs the same number of queries and
configurations through ``pytest --retrieval-eval`` (a retriever that costs
nothing; see ``benchmarks/plugin_scale.py``) and prints the statistics' share of
that run, which is what a user waits for.
"""

from __future__ import annotations

import random
import sys
import time

from pytest_retrieval.aggregate import summaries
from pytest_retrieval.evaluation import analyse
from pytest_retrieval.golden import GoldenQuery
from pytest_retrieval.model import Results
from pytest_retrieval.scoring import score_query
from pytest_retrieval.settings import StatsSettings, parse_settings

CATEGORIES = ("exact-name", "paraphrase", "filtered", "no-result", "adversarial")
CONFIGURATIONS = ("bm25", "dense", "fused")


def make_queries(n: int, rng: random.Random) -> list[GoldenQuery]:
    queries = []
    for i in range(n):
        category = CATEGORIES[i % len(CATEGORIES)]
        if category == "no-result":
            relevant: dict[str, int] = {}
        else:
            docs = rng.sample(range(2000), 6)
            relevant = {f"d{d}": rng.randint(0, 3) for d in docs}
        queries.append(
            GoldenQuery(id=f"q{i:06d}", text=f"query {i}", category=category, relevant=relevant)
        )
    return queries


def ranking_for(query: GoldenQuery, skill: float, rng: random.Random) -> list[str]:
    judged = [d for d, g in sorted(query.relevant.items(), key=lambda x: -x[1])]
    noise = [f"d{rng.randrange(2000)}" for _ in range(20)]
    ranking = [d for d in judged if rng.random() < skill] + noise
    rng.shuffle(ranking[: max(1, int(len(ranking) * (1 - skill)))])
    return ranking[:20]


def run(n: int, with_pytest: bool = False) -> None:
    rng = random.Random(n)
    settings = parse_settings({})
    queries = make_queries(n, rng)
    rankings = {
        c: [ranking_for(q, skill, rng) for q in queries]
        for c, skill in zip(CONFIGURATIONS, (0.5, 0.6, 0.7), strict=True)
    }
    start = time.perf_counter()
    results = Results()
    for position, configuration in enumerate(CONFIGURATIONS):
        for query, ranking in zip(queries, rankings[configuration], strict=True):
            record, _ = score_query(query, configuration, ranking, settings, position=position)
            results.add(record)
    summaries(results, settings.metric_names)
    evaluation_seconds = time.perf_counter() - start

    start = time.perf_counter()
    evaluation = analyse(results, settings, StatsSettings())
    stats_seconds = time.perf_counter() - start
    methods = sorted(
        {
            iv.method
            for rows in evaluation.intervals.values()
            for cells in rows.values()
            for iv in cells.values()
        }
    )
    tests = (
        sorted({r["method"] for r in evaluation.comparisons.rows}) if evaluation.comparisons else []
    )
    print(
        f"{n:>7} queries x {len(CONFIGURATIONS)} configurations: "
        f"core evaluation {evaluation_seconds:7.2f} s | statistics {stats_seconds:7.2f} s "
        f"({stats_seconds / evaluation_seconds:5.1%} of the core) "
        f"| intervals: {', '.join(methods)}; tests: {', '.join(tests)}"
    )
    if with_pytest:
        seconds = pytest_run(n)
        print(
            f"{'':>7} whole pytest --retrieval-eval run {seconds:8.2f} s: statistics are "
            f"{stats_seconds / seconds:5.1%} of it"
        )


def pytest_run(n: int) -> float:
    """Wall time of a whole plugin run over n generated queries x the configurations."""
    import subprocess
    import tempfile
    from pathlib import Path

    from plugin_scale import write_project

    with tempfile.TemporaryDirectory() as tmp:
        write_project(Path(tmp), n, list(CONFIGURATIONS))
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--retrieval-eval",
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:cacheprovider",
            ],
            cwd=tmp,
            capture_output=True,
            check=False,
        )
        return time.perf_counter() - start


def main(argv: list[str]) -> None:
    with_pytest = "--pytest" in argv
    sizes = [int(a) for a in argv if a != "--pytest"] or [1_000, 100_000]
    for n in sizes:
        run(n, with_pytest)


if __name__ == "__main__":
    main(sys.argv[1:])
