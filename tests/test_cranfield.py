"""Every metric on a real test collection (Cranfield 1400) against trec_eval and ranx.

A deterministic TF-IDF ranker written here retrieves the top 100 of cran.all.1400
for each of the 225 queries; our metrics must equal pytrec_eval's (linear gain,
``empty = zero``, grades 0..4) and ranx's (exponential gain: ``ndcg_burges``) on
every query to 1e-9, and the plugin's JSON report must hold the same numbers.
The collection is read in place (see tests/cranfield.py); absent, the tests skip.
"""

from __future__ import annotations

import json
import math
import re
import sys
import warnings
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
import yaml

from pytest_retrieval.metrics import Conventions, evaluate, parse_metrics

sys.path.insert(0, str(Path(__file__).parent))
import cranfield  # the SMART reader beside this file
from ranx_input import ranx_pair  # beside this file

pytrec_eval = pytest.importorskip("pytrec_eval")
ranx = pytest.importorskip("ranx")

TOL = 1e-9
DEPTH = 100
FOLDER = cranfield.locate()

pytestmark = pytest.mark.filterwarnings("ignore::Warning:numba")
needs_cranfield = pytest.mark.skipif(
    FOLDER is None, reason=f"Cranfield not found beside the repository nor in ${cranfield.ENV}"
)

TREC_NAMES = {
    "ndcg": "ndcg",
    "ndcg@5": "ndcg_cut_5",
    "ndcg@10": "ndcg_cut_10",
    "ndcg@100": "ndcg_cut_100",
    "mrr": "recip_rank",
    "recall@10": "recall_10",
    "recall@100": "recall_100",
    "precision@5": "P_5",
    "precision@10": "P_10",
    "precision@200": "P_200",  # more than came back: still divided by 200
    "map": "map",
    "map@10": "map_cut_10",
    "r_precision": "Rprec",
    "hit_rate@1": "success_1",
    "hit_rate@10": "success_10",
}
TREC_MEASURES = {
    "ndcg",
    "ndcg_cut.5,10,100",
    "recip_rank",
    "recall.10,100",
    "P.5,10,200",
    "map",
    "map_cut.10",
    "Rprec",
    "success.1,10",
}
RANX_NAMES = {
    "ndcg": "ndcg_burges",
    "ndcg@5": "ndcg_burges@5",
    "ndcg@10": "ndcg_burges@10",
    "mrr": "mrr",
    "mrr@10": "mrr@10",
    "recall@10": "recall@10",
    "recall@100": "recall@100",
    "precision@10": "precision@10",
    "precision@200": "precision@200",
    "hit_rate@1": "hit_rate@1",
    "hit_rate@10": "hit_rate@10",
    "map": "map",
    "map@10": "map@10",
    "r_precision": "r-precision",
}


# --------------------------------------------------------------------------- the run

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP_WORDS = """
a about above after also an and any are as at be been being between by can could do
does for from has have how in into is it its may of on or over should some such than
that the their there these this those through to under use used using was were what
when where which while who why will with within would
"""
_STOP = frozenset(_STOP_WORDS.split())


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP and len(t) > 1]


class TfIdfRanker:
    """Cosine similarity of log-tf x idf vectors; ties broken by document number."""

    def __init__(self, documents: dict[str, str]):
        counts = {doc: Counter(_tokens(text)) for doc, text in documents.items()}
        df = Counter(term for terms in counts.values() for term in terms)
        n = len(documents)
        self.idf = {term: math.log(n / freq) for term, freq in df.items()}
        self.postings: dict[str, list[tuple[str, float]]] = {}
        for doc, terms in counts.items():
            weights = {t: (1 + math.log(tf)) * self.idf[t] for t, tf in terms.items()}
            norm = math.sqrt(math.fsum(w * w for w in weights.values())) or 1.0
            for term, weight in weights.items():
                self.postings.setdefault(term, []).append((doc, weight / norm))

    def search(self, text: str, k: int = DEPTH) -> list[tuple[str, float]]:
        scores: dict[str, float] = {}
        for term, qtf in sorted(Counter(_tokens(text)).items()):
            q_weight = (1 + math.log(qtf)) * self.idf.get(term, 0.0)
            for doc, weight in self.postings.get(term, ()):
                scores[doc] = scores.get(doc, 0.0) + q_weight * weight
        ranked = sorted(
            ((doc, s) for doc, s in scores.items() if s > 0),
            key=lambda ds: (-round(ds[1], 12), int(ds[0])),
        )
        return ranked[:k]


@cache
def collection() -> tuple[list[cranfield.Query], dict[int, dict[str, int]], dict[str, list]]:
    """(queries, qrels by query number, run: query id -> [(doc, score)] best first)."""
    assert FOLDER is not None
    documents = cranfield.read_documents(FOLDER)
    queries = cranfield.read_queries(FOLDER)
    qrels = cranfield.read_qrels(FOLDER)
    ranker = TfIdfRanker({d: f"{r.get('T')} {r.get('W')}" for d, r in documents.items()})
    run = {qid(q): ranker.search(q.text) for q in queries}
    return queries, qrels, run


def qid(query: cranfield.Query) -> str:
    return f"cran-{query.number:03d}"


def _ranking(pairs: list) -> list[str]:
    return [doc for doc, _ in pairs]


def _tool_run(run: dict[str, list]) -> dict[str, dict[str, float]]:
    """Strictly decreasing scores in our order, so no tool re-breaks ties."""
    return {q: {doc: float(DEPTH - i) for i, doc in enumerate(_ranking(p))} for q, p in run.items()}


def ours(gain: str, threshold: int, names: list[str]) -> dict[str, dict[str, float | None]]:
    queries, qrels, run = collection()
    metrics = parse_metrics(names)
    conventions = Conventions(gain=gain, relevance_threshold=threshold, empty="zero")
    return {
        qid(q): evaluate(_ranking(run[qid(q)]), qrels.get(q.number, {}), metrics, conventions)
        for q in queries
    }


@cache
def trec_eval(threshold: int) -> dict[str, dict[str, float]]:
    queries, qrels, run = collection()
    judged = {qid(q): {d: g for d, g in qrels[q.number].items()} for q in queries}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, TREC_MEASURES, relevance_level=threshold)
    raw = evaluator.evaluate(_tool_run(run))
    assert len(raw) == len(queries)
    return {
        q: {ours_: values[theirs] for ours_, theirs in TREC_NAMES.items()}
        for q, values in raw.items()
    }


# --------------------------------------------------------------------------- the reader


@needs_cranfield
def test_reader_reads_the_whole_collection():
    documents = cranfield.read_documents(FOLDER)
    queries = cranfield.read_queries(FOLDER)
    qrels = cranfield.read_qrels(FOLDER)
    assert list(documents) == [str(n) for n in range(1, 1401)]
    assert documents["1"].get("T").startswith("experimental investigation of the aerodynamics")
    assert documents["1"].get("A") == "brenckman,m."
    assert "destalling" in documents["1"].get("W")
    # document 240 holds stray .A/.B lines inside its text: the text goes on after them
    assert "application to turbulent separations" in documents["240"].get("W")
    assert documents["240"].get("W").endswith("in a laminar separated flow .")
    assert documents["240"].get("A") == "dean r. chapman"
    assert len(queries) == 225
    assert [q.number for q in queries] == list(range(1, 226))
    assert queries[2].smart_id == "004" and queries[2].text.startswith("what problems of heat")
    assert queries[-1].smart_id == "365"
    assert sorted(qrels) == list(range(1, 226))
    assert sum(len(j) for j in qrels.values()) == 1837
    grades = Counter(g for j in qrels.values() for g in j.values())
    # Cleverdon 1..4 -> 4..1 and -1 -> 0
    assert grades == {4: 128, 3: 387, 2: 734, 1: 363, 0: 225}
    assert qrels[1]["184"] == 3 and qrels[1]["13"] == 1
    assert all(doc in documents for j in qrels.values() for doc in j)
    assert all(any(g > 0 for g in j.values()) for j in qrels.values())


def test_reader_rejects_malformed_input(tmp_path):
    with pytest.raises(ValueError, match="before the first"):
        cranfield.parse_smart("stray\n.I 1\n.W\ntext\n")
    for name in cranfield.FILES:
        (tmp_path / name).write_text(".I 1\n.W\nx\n", encoding="utf-8")
    (tmp_path / "cranqrel").write_text("1 2 7\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown relevance code 7"):
        cranfield.read_qrels(tmp_path)
    (tmp_path / "cranqrel").write_text("1 2 1\n1 2 3\n", encoding="utf-8")
    with pytest.raises(ValueError, match="twice"):
        cranfield.read_qrels(tmp_path)


def test_locate_falls_back_to_the_environment(tmp_path, monkeypatch):
    for name in cranfield.FILES:
        (tmp_path / name).write_text("", encoding="utf-8")
    elsewhere = tmp_path / "a" / "b" / "c.py"  # no shared/data beside this "repository"
    monkeypatch.delenv(cranfield.ENV, raising=False)
    assert cranfield.locate(elsewhere) is None
    monkeypatch.setenv(cranfield.ENV, str(tmp_path))
    assert cranfield.locate(elsewhere) == tmp_path


@needs_cranfield
def test_run_is_deterministic_and_sensible():
    _, _, run = collection()
    assert all(0 < len(pairs) <= DEPTH for pairs in run.values())
    assert all(len(set(_ranking(p))) == len(p) for p in run.values())
    scores = [s for pairs in run.values() for s in (p[1] for p in pairs)]
    assert all(s > 0 for s in scores)
    toy = {"1": "wing slipstream", "2": "wing", "3": "slipstream wing lift", "4": "boundary"}
    ranker = TfIdfRanker(toy)
    assert _ranking(ranker.search("wing slipstream")) == ["1", "3", "2"]
    assert ranker.search("boundary layer") == [("4", pytest.approx(math.log(4)))]
    assert ranker.search("wing slipstream") == ranker.search("slipstream wing")


@needs_cranfield
def test_qrels_are_numbered_by_query_position():
    # aligned by position the ranker is decent; aligned by .I number it is near chance
    queries, qrels, run = collection()
    metrics = parse_metrics(["map"])
    zero = Conventions(empty="zero")
    by_position = [
        evaluate(_ranking(run[qid(q)]), qrels[q.number], metrics, zero)["map"] for q in queries
    ]
    by_smart_id = [
        evaluate(_ranking(run[qid(q)]), qrels.get(int(q.smart_id), {}), metrics, zero)["map"]
        for q in queries
    ]
    position_map = math.fsum(by_position) / len(queries)
    smart_map = math.fsum(by_smart_id) / len(queries)
    assert 0.2 < position_map < 0.7
    assert smart_map < position_map / 3


# --------------------------------------------------------------------------- the tools


def _compare(mine: dict, theirs: dict, tool: str) -> list[str]:
    problems = []
    for q, expected in theirs.items():
        for name, value in expected.items():
            if abs(mine[q][name] - value) > TOL:
                problems.append(f"{q} {name}: ours {mine[q][name]!r}, {tool} {value!r}")
    return problems


@needs_cranfield
@pytest.mark.parametrize("threshold", [1, 2, 3, 4])
def test_matches_trec_eval_on_all_queries(threshold):
    theirs = trec_eval(threshold)
    mine = ours("linear", threshold, list(TREC_NAMES))
    assert not (problems := _compare(mine, theirs, "pytrec_eval")), "\n".join(problems[:20])
    # not vacuous
    assert len({round(v["ndcg@10"], 9) for v in theirs.values()}) > 50
    assert math.fsum(v["map"] for v in theirs.values()) > 0


@needs_cranfield
@pytest.mark.parametrize("threshold", [1, 3])
def test_matches_ranx_on_all_queries(threshold):
    queries, qrels, run = collection()
    r_qrels, r_run = ranx_pair({qid(q): dict(qrels[q.number]) for q in queries}, _tool_run(run))

    def name(ours_name: str, theirs: str) -> str:
        # our threshold is for the binary metrics: nDCG is compared at ranx's level 1
        return (
            theirs if ours_name.startswith("ndcg") or threshold == 1 else f"{theirs}-l{threshold}"
        )

    wanted = {ours_name: name(ours_name, theirs) for ours_name, theirs in RANX_NAMES.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(r_qrels, r_run, sorted(set(wanted.values())), return_mean=False)
    theirs = {
        qid(q): {o: float(r_run.scores[t][qid(q)]) for o, t in wanted.items()} for q in queries
    }
    mine = ours("exponential", threshold, list(RANX_NAMES))
    assert not (problems := _compare(mine, theirs, "ranx")), "\n".join(problems[:20])


# --------------------------------------------------------------------------- through the plugin

SUBSET = list(range(1, 201, 5))  # 40 queries
PLUGIN_METRICS = [*TREC_NAMES, "judged@10", "judged@100"]

PLUGIN_CONFTEST = """
import json
from pathlib import Path

import pytest

RUN = json.loads(Path(__file__).with_name("run.json").read_text())


@pytest.fixture
def retriever():
    def search(query):
        return [(doc, score) for doc, score in RUN[query.id]]

    return search
"""


def write_cranfield_project(pytester: pytest.Pytester, ini: dict[str, str]) -> None:
    queries, qrels, run = collection()
    chosen = [q for q in queries if q.number in SUBSET]
    golden = {
        "defaults": {"category": "cranfield"},
        "queries": [
            {"id": qid(q), "query": q.text, "relevant": dict(qrels[q.number])} for q in chosen
        ],
    }
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "cranfield.yaml").write_text(
        yaml.safe_dump(golden, sort_keys=False), encoding="utf-8"
    )
    (pytester.path / "run.json").write_text(
        json.dumps({qid(q): run[qid(q)] for q in chosen}), encoding="utf-8"
    )
    pytester.makeconftest(PLUGIN_CONFTEST)
    ini = {"retrieval_bootstrap": "100", **ini}
    text = "[pytest]\n" + "".join(f"{key} = {value}\n" for key, value in ini.items())
    pytester.makefile(".ini", pytest=text)


@needs_cranfield
@pytest.mark.parametrize("threshold", [1, 3])
def test_plugin_report_matches_trec_eval(pytester, threshold):
    write_cranfield_project(
        pytester,
        {
            "retrieval_metrics": " ".join(PLUGIN_METRICS),
            "retrieval_gain": "linear",
            "retrieval_empty": "zero",
            "retrieval_max_grade": "4",
            "retrieval_relevance_threshold": str(threshold),
        },
    )
    result = pytester.runpytest("--retrieval-eval", "--retrieval-report", "r.json", "-q")
    result.assert_outcomes(passed=len(SUBSET))
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["settings"]["max_grade"] == 4
    assert report["settings"]["relevance_threshold"] == threshold
    assert report["settings"]["metrics"] == PLUGIN_METRICS
    entries = report["configurations"]["default"]["queries"]
    assert len(entries) == len(SUBSET)

    queries, qrels, run = collection()
    theirs = trec_eval(threshold)
    problems = []
    for q in (q for q in queries if q.number in SUBSET):
        entry = entries[qid(q)]
        ranking = _ranking(run[qid(q)])
        assert entry["outcome"] == "passed"
        assert entry["duplicates"] == 0
        assert entry["retrieved"] == ranking  # max cut 200 > the 100 retrieved
        expected = dict(theirs[qid(q)])
        # judged@k: share of the top k with a judgment, whatever the threshold and the
        # empty convention (a coverage measure, as ir_measures' Judged@k)
        for k in (10, 100):
            top = ranking[:k]
            expected[f"judged@{k}"] = sum(d in qrels[q.number] for d in top) / len(top)
        assert list(entry["metrics"]) == PLUGIN_METRICS
        for metric, value in expected.items():
            if abs(entry["metrics"][metric] - value) > TOL:
                problems.append(
                    f"{qid(q)} {metric}: report {entry['metrics'][metric]!r}, {value!r}"
                )
    assert not problems, "\n".join(problems[:20])
    summary = report["configurations"]["default"]["summary"]["all"]
    assert summary["n"] == len(SUBSET)
    subset_map = math.fsum(theirs[qid(q)]["map"] for q in queries if q.number in SUBSET)
    assert abs(summary["map"] - subset_map / len(SUBSET)) <= TOL


@needs_cranfield
def test_plugin_refuses_grade_4_under_the_default_max_grade(pytester):
    write_cranfield_project(pytester, {"retrieval_metrics": "ndcg@10"})
    result = pytester.runpytest("--retrieval-eval")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*golden/cranfield.yaml*", "*retrieval_max_grade*"])
