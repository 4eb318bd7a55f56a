"""The generated data of the cross-checks (tests/test_crosscheck.py and the custom
metric's, tests/test_e2e_custom_metrics.py): 300 seeded random queries with grades
0..3 and their runs, and a pytester project that replays them through the plugin.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache

import pytest
import yaml

SEED = 20240611
N_QUERIES = 300


@dataclass(frozen=True)
class Case:
    qid: str
    kind: str
    judgments: dict[str, int]
    ranking: list[str]  # distinct ids, best first
    returned: list[str]  # what the plugin's retriever returns: the ranking plus repeats

    @property
    def duplicates(self) -> int:
        return len(self.returned) - len(self.ranking)


@cache
def generated_cases() -> tuple[Case, ...]:
    rnd = random.Random(SEED)
    docs = [f"doc-{i:04d}" for i in range(600)]
    cases = []
    for n in range(N_QUERIES):
        draw = rnd.random()
        size = rnd.randint(1, 30)
        if draw < 0.07:
            kind, judgments = "no-judgments", {}
        elif draw < 0.14:
            kind = "only-grade-0"
            judgments = dict.fromkeys(rnd.sample(docs, rnd.randint(1, 8)), 0)
        elif draw < 0.22:
            kind = "best-grade-1"
            judgments = {d: rnd.choice((0, 1, 1)) for d in rnd.sample(docs, size)}
            judgments[rnd.choice(list(judgments))] = 1
        else:
            kind = "graded"
            judgments = {
                d: rnd.choices((0, 1, 2, 3), weights=(4, 3, 2, 1))[0]
                for d in rnd.sample(docs, size)
            }
        if rnd.random() < 0.08:
            ranking: list[str] = []
        else:
            unjudged = rnd.sample([d for d in docs if d not in judgments], 60)
            pool = list(judgments) + unjudged
            ranking = rnd.sample(pool, min(rnd.randint(0, 50), len(pool)))
            if ranking and rnd.random() < 0.3:  # pull judged ids up front now and then
                ranking.sort(key=lambda d: (d not in judgments, rnd.random()))
        returned = list(ranking)
        if ranking and rnd.random() < 0.1:
            for _ in range(rnd.randint(1, 3)):
                first = rnd.randrange(len(returned))
                returned.insert(rnd.randint(first + 1, len(returned)), returned[first])
        cases.append(Case(f"q{n:03d}", kind, judgments, ranking, returned))
    return tuple(cases)


def decreasing_scores(ranking: list[str]) -> dict[str, float]:
    """Strictly decreasing scores: the reference tools then keep our order."""
    return {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}


PLUGIN_CONFTEST = '''
import json
from pathlib import Path

import pytest

RETURNED = json.loads(Path(__file__).with_name("returned.json").read_text())


class Hit:
    def __init__(self, id):
        self.id = id


def shaped(position, ids):
    """Every result shape of CONTRACT section 2, one per query in turn."""
    form = position % 5
    if form == 0:
        return list(ids)
    if form == 1:
        return [(doc, float(len(ids) - i)) for i, doc in enumerate(ids)]
    if form == 2:
        return [{"id": doc, "score": 1.0} for doc in ids]
    if form == 3:
        return [Hit(doc) for doc in ids]
    return (doc for doc in ids)


@pytest.fixture
def retriever():
    def search(query):
        assert query.text.startswith("generated query")
        return shaped(int(query.id[1:]), RETURNED[query.id])

    return search
'''


def write_plugin_project(
    pytester: pytest.Pytester, ini: dict[str, str], conftest: str = PLUGIN_CONFTEST
) -> None:
    """The generated queries as a golden file, the runs as a retriever fixture's answers."""
    cases = generated_cases()
    queries = [
        {
            "id": c.qid,
            "query": f"generated query {c.qid}",
            "category": c.kind,
            "relevant": dict(c.judgments),
        }
        for c in cases
    ]
    golden = pytester.path / "golden"
    golden.mkdir()
    (golden / "generated.yaml").write_text(yaml.safe_dump({"queries": queries}), encoding="utf-8")
    (pytester.path / "returned.json").write_text(
        json.dumps({c.qid: c.returned for c in cases}), encoding="utf-8"
    )
    pytester.makeconftest(conftest)
    # few bootstrap resamples: the confidence intervals are not under test here
    ini = {"retrieval_bootstrap": "100", **ini}
    lines = ["[pytest]", *(f"{key} = {value}" for key, value in ini.items())]
    pytester.makefile(".ini", pytest="\n".join(lines) + "\n")
