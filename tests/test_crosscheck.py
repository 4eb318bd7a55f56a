"""Cross-checks of every metric against trec_eval (pytrec_eval) and ranx on generated data.

The data: 300 seeded random queries with grades 0..3, some with no judgment at all,
some judged only with grade 0, some whose best grade is 1 (nothing to find at
threshold 2), some empty runs, and rankings of 0..50 distinct ids drawn from judged
and unjudged ids. Runs are handed to the reference tools with strictly decreasing
scores, so their own sorting (trec_eval breaks ties by docid) reproduces our order.

What the reference tools do, found empirically (and pinned by tests below):

* pytrec_eval keeps a query whose run is empty (``run[qid] = {}``): it is scored 0.0.
  It drops a query that is missing from the run, and it drops a query whose qrels are
  empty (``qrels[qid] = {}``). A query judged only with grade 0 is kept and scores 0.0
  on every measure. So trec_eval is our ``empty = zero``. To compare every query, a
  query with no judgment at all is given one placeholder judgment with grade 0 on an
  id that is never retrieved: it keeps the query and changes no measure.
* trec_eval's ``ndcg`` / ``ndcg_cut`` ignore ``relevance_level``: every grade > 0 is a
  gain. Ours does the same (the threshold is for the binary metrics only).
* ranx scores a query with no relevant judgment 0.0 on every metric, and an empty
  run 0.0: that is ``empty = zero`` as well. ranx needs ``Qrels``/``Run`` objects for
  empty runs (``evaluate`` with plain dicts fails inside numba on an empty ranking).
  ranx's ``-lN`` relevance level also filters nDCG's gains (grades below N count 0),
  unlike trec_eval: nDCG is compared with ranx at level 1 whatever our threshold.
"""

from __future__ import annotations

import json
import math
import warnings
from functools import cache

import pytest
from generated_runs import (  # beside this file
    N_QUERIES,
    Case,
    decreasing_scores,
    generated_cases,
    write_plugin_project,
)
from ranx_input import ranx_pair  # beside this file

from pytest_retrieval.metrics import Conventions, Metric, dcg, evaluate, parse_metrics

pytrec_eval = pytest.importorskip("pytrec_eval")
ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.filterwarnings("ignore::Warning:numba")

TOL = 1e-9
PLACEHOLDER = "__never_retrieved__"

# metric names with a trec_eval equivalent
TREC_METRICS = [
    "ndcg",
    "ndcg@1",
    "ndcg@5",
    "ndcg@10",
    "ndcg@20",
    "ndcg@100",
    "mrr",
    "recall@1",
    "recall@5",
    "recall@20",
    "recall@100",
    "precision@1",
    "precision@5",
    "precision@20",
    "precision@100",
    "map",
    "map@5",
    "map@10",
    "map@100",
    "r_precision",
    "hit_rate@1",
    "hit_rate@5",
    "hit_rate@10",
]
# and the ones without: cut MRR (ranx) and judged@k (a plain reference below)
EXTRA_METRICS = ["mrr@1", "mrr@3", "mrr@10", "judged@1", "judged@10", "judged@100"]
ALL_METRICS = TREC_METRICS + EXTRA_METRICS


# --------------------------------------------------------------------------- the data


def test_generated_data_covers_the_edge_cases():
    cases = generated_cases()
    assert len(cases) == N_QUERIES
    kinds = {c.kind for c in cases}
    assert kinds == {"no-judgments", "only-grade-0", "best-grade-1", "graded"}
    assert sum(1 for c in cases if not c.ranking) >= 10
    assert sum(1 for c in cases if not c.ranking and not _has_relevant(c, 1)) >= 1
    assert sum(1 for c in cases if c.duplicates) >= 10
    assert all(len(set(c.ranking)) == len(c.ranking) <= 50 for c in cases)
    assert max(len(c.ranking) for c in cases) >= 45
    assert all(0 <= g <= 3 for c in cases for g in c.judgments.values())
    # enough signal: many first relevant results inside the top 10
    assert sum(1 for c in cases if set(c.ranking[:10]) & _relevant(c, 1)) >= 60


def _relevant(case: Case, threshold: int) -> set[str]:
    return {d for d, g in case.judgments.items() if g >= threshold}


def _has_relevant(case: Case, threshold: int) -> bool:
    return bool(_relevant(case, threshold))


# --------------------------------------------------------------------------- references


def _trec_key(metric: Metric) -> str | None:
    base, k = metric.base, metric.k
    if base == "ndcg":
        return "ndcg" if k is None else f"ndcg_cut_{k}"
    if base == "mrr":
        return "recip_rank" if k is None else None
    if base == "map":
        return "map" if k is None else f"map_cut_{k}"
    if base == "r_precision":
        return "Rprec"
    families = {"recall": "recall", "precision": "P", "hit_rate": "success"}
    return f"{families[base]}_{k}" if base in families else None


def _trec_measures(metrics: list[Metric]) -> set[str]:
    cuts: dict[str, set[int]] = {}
    plain = set()
    families = {"ndcg": "ndcg_cut", "map": "map_cut", "recall": "recall", "precision": "P"}
    families["hit_rate"] = "success"
    for m in metrics:
        if _trec_key(m) is None:
            continue
        if m.k is None:
            plain.add(_trec_key(m))
        else:
            cuts.setdefault(families[m.base], set()).add(m.k)
    return plain | {f"{fam}.{','.join(map(str, sorted(ks)))}" for fam, ks in cuts.items()}


def trec_eval_scores(
    cases: tuple[Case, ...], metrics: list[Metric], threshold: int
) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query scores: {qid: {our metric name: value}}."""
    qrels = {c.qid: dict(c.judgments) or {PLACEHOLDER: 0} for c in cases}
    run = {c.qid: decreasing_scores(c.ranking) for c in cases}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, _trec_measures(metrics), relevance_level=threshold
    )
    raw = evaluator.evaluate(run)
    assert set(raw) == {c.qid for c in cases}, "trec_eval dropped a query"
    out = {}
    for qid, values in raw.items():
        out[qid] = {m.name: values[_trec_key(m)] for m in metrics if _trec_key(m) is not None}
    return out


def _ranx_name(metric: Metric, gain: str, threshold: int) -> str | None:
    base, k = metric.base, metric.k
    if base == "judged":
        return None
    if base == "ndcg":
        name = "ndcg_burges" if gain == "exponential" else "ndcg"
        level = 1  # ranx's level filters nDCG gains; ours (and trec_eval's) does not
    else:
        name = {"r_precision": "r-precision"}.get(base, base)
        level = threshold
    if k is not None:
        name += f"@{k}"
    return name if level == 1 else f"{name}-l{level}"


def ranx_scores(
    cases: tuple[Case, ...], metrics: list[Metric], gain: str, threshold: int
) -> dict[str, dict[str, float]]:
    """ranx's per-query scores: {qid: {our metric name: value}}."""
    qrels, run = ranx_pair(
        {c.qid: dict(c.judgments) for c in cases},
        {c.qid: decreasing_scores(c.ranking) for c in cases},
    )
    names = {m.name: _ranx_name(m, gain, threshold) for m in metrics}
    wanted = sorted({n for n in names.values() if n is not None})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(qrels, run, wanted, return_mean=False)
    out: dict[str, dict[str, float]] = {c.qid: {} for c in cases}
    for ours, theirs in names.items():
        if theirs is None:
            continue
        for qid, value in run.scores[theirs].items():
            out[qid][ours] = float(value)
    return out


def judged_reference(case: Case, k: int) -> float:
    top = case.ranking[:k]
    return sum(1 for doc in top if doc in case.judgments) / len(top) if top else 0.0


def nothing_to_find(case: Case, metric: Metric, threshold: int) -> bool:
    return not _has_relevant(case, 1 if metric.base == "ndcg" else threshold)


def convention_value(case: Case, empty: str) -> float | None:
    return {"abstain": 0.0 if case.ranking else 1.0, "one": 1.0, "zero": 0.0, "skip": None}[empty]


@cache
def _trec_cached(threshold: int) -> dict[str, dict[str, float]]:
    return trec_eval_scores(generated_cases(), list(parse_metrics(ALL_METRICS)), threshold)


@cache
def _ranx_cached(gain: str, threshold: int) -> dict[str, dict[str, float]]:
    return ranx_scores(generated_cases(), list(parse_metrics(ALL_METRICS)), gain, threshold)


def references(
    case: Case, metric: Metric, gain: str, threshold: int, empty: str
) -> list[tuple[str, float | None]]:
    """Every independent expected value for one query and metric: (source, value)."""
    if metric.base == "judged":  # coverage: no threshold, no empty convention
        assert metric.k is not None
        return [("judged reference", judged_reference(case, metric.k))]
    if nothing_to_find(case, metric, threshold):
        return [(f"empty={empty}", convention_value(case, empty))]
    found: list[tuple[str, float | None]] = []
    if _trec_key(metric) is not None and (metric.base != "ndcg" or gain == "linear"):
        found.append(("pytrec_eval", _trec_cached(threshold)[case.qid][metric.name]))
    if _ranx_name(metric, gain, threshold) is not None:
        found.append(("ranx", _ranx_cached(gain, threshold)[case.qid][metric.name]))
    assert found, metric
    return found


def _close(ours: float | None, theirs: float | None) -> bool:
    if ours is None or theirs is None:
        return ours is None and theirs is None
    return abs(ours - theirs) <= TOL


def mismatches_of(
    values: dict[str, dict[str, float | None]], gain: str, threshold: int, empty: str
) -> list[str]:
    """Every (query, metric, reference) where our value differs, described."""
    problems = []
    for case in generated_cases():
        for name, ours in values[case.qid].items():
            metric = parse_metrics([name])[0]
            for source, theirs in references(case, metric, gain, threshold, empty):
                if not _close(ours, theirs):
                    problems.append(
                        f"{case.qid} ({case.kind}) {name}: ours {ours!r}, {source} {theirs!r}; "
                        f"judgments={case.judgments} ranking={case.ranking[:12]}"
                    )
    return problems


# --------------------------------------------------------------------------- direct


def _ours(gain: str, threshold: int, empty: str) -> dict[str, dict[str, float | None]]:
    conventions = Conventions(gain=gain, relevance_threshold=threshold, empty=empty)
    metrics = parse_metrics(ALL_METRICS)
    return {
        c.qid: evaluate(c.ranking, c.judgments, metrics, conventions) for c in generated_cases()
    }


@pytest.mark.parametrize("threshold", [1, 2, 3])
def test_linear_zero_equals_trec_eval_on_every_query(threshold):
    ours = _ours("linear", threshold, "zero")
    trec = _trec_cached(threshold)
    problems = []
    for qid, expected in trec.items():
        assert set(expected) == set(TREC_METRICS)
        for name, theirs in expected.items():
            if not _close(ours[qid][name], theirs):
                problems.append(f"{qid} {name}: ours {ours[qid][name]!r}, trec_eval {theirs!r}")
    assert not problems, "\n".join(problems[:20])
    # not vacuous: the measures vary across queries
    assert len({round(v["ndcg@10"], 6) for v in trec.values()}) > 30
    assert len({round(v["map"], 6) for v in trec.values()}) > 30


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("threshold", [1, 2])
def test_zero_equals_ranx_on_every_query(gain, threshold):
    ours = _ours(gain, threshold, "zero")
    ranked = _ranx_cached(gain, threshold)
    problems = []
    for qid, expected in ranked.items():
        assert len(expected) == len(ALL_METRICS) - 3  # every metric but judged@k
        for name, theirs in expected.items():
            if not _close(ours[qid][name], theirs):
                problems.append(f"{qid} {name}: ours {ours[qid][name]!r}, ranx {theirs!r}")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("threshold", [1, 2])
@pytest.mark.parametrize("empty", ["abstain", "one", "zero", "skip"])
def test_every_convention_against_all_references(gain, threshold, empty):
    problems = mismatches_of(_ours(gain, threshold, empty), gain, threshold, empty)
    assert not problems, "\n".join(problems[:20])


def test_unnormalised_dcg_equals_ranx_dcg_burges():
    cases = generated_cases()
    qrels, run = ranx_pair(
        {c.qid: dict(c.judgments) for c in cases},
        {c.qid: decreasing_scores(c.ranking) for c in cases},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(qrels, run, ["dcg_burges@10", "dcg@10"], return_mean=False)
    for c in cases:
        expo = run.scores["dcg_burges@10"][c.qid]
        lin = run.scores["dcg@10"][c.qid]
        assert abs(dcg(c.ranking, c.judgments, 10, "exponential") - expo) <= TOL, c.qid
        assert abs(dcg(c.ranking, c.judgments, 10, "linear") - lin) <= TOL, c.qid


# --------------------------------------------------------------------------- the tools' conventions


def test_trec_eval_keeps_empty_runs_and_drops_unjudged_queries():
    qrels = {"judged": {"a": 1}, "zero-only": {"b": 0}, "unjudged": {}, "not-run": {"a": 1}}
    run = {"judged": {}, "zero-only": {"b": 1.0}, "unjudged": {"a": 1.0}}
    raw = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "ndcg", "P.5"}).evaluate(run)
    assert set(raw) == {"judged", "zero-only"}
    assert raw["judged"] == {"recip_rank": 0.0, "ndcg": 0.0, "P_5": 0.0}
    assert raw["zero-only"] == {"recip_rank": 0.0, "ndcg": 0.0, "P_5": 0.0}
    # the placeholder judgment keeps an unjudged query without changing any measure
    qrels["unjudged"] = {PLACEHOLDER: 0}
    raw = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "ndcg", "P.5"}).evaluate(run)
    assert raw["unjudged"] == {"recip_rank": 0.0, "ndcg": 0.0, "P_5": 0.0}
    # ours under empty=zero, the same numbers (and abstain/one differ on purpose)
    metrics = parse_metrics(["mrr", "ndcg", "P@5"])
    for judgments, ranking in (({}, ["a"]), ({"b": 0}, ["b"]), ({"a": 1}, [])):
        values = evaluate(ranking, judgments, metrics, Conventions(empty="zero"))
        assert set(values.values()) == {0.0}
    assert evaluate([], {}, metrics, Conventions(empty="abstain"))["mrr"] == 1.0


def test_trec_eval_ndcg_ignores_relevance_level():
    cases = generated_cases()
    metrics = list(parse_metrics(["ndcg", "ndcg@10", "map"]))
    by_level = {t: trec_eval_scores(cases, metrics, t) for t in (1, 2, 3)}
    for c in cases:
        assert (
            by_level[1][c.qid]["ndcg"] == by_level[2][c.qid]["ndcg"] == by_level[3][c.qid]["ndcg"]
        )
        assert by_level[1][c.qid]["ndcg@10"] == by_level[3][c.qid]["ndcg@10"]
    # while the binary measures do move with the level
    assert any(by_level[1][c.qid]["map"] != by_level[2][c.qid]["map"] for c in cases)
    # a grade-1 result is still a gain at level 2 for trec_eval, and for us at threshold 2
    raw = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 2}}, {"ndcg"}, relevance_level=2)
    theirs = raw.evaluate({"q": {"a": 2.0, "b": 1.0}})["q"]["ndcg"]
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert theirs == pytest.approx(expected, abs=TOL)
    ours = evaluate(
        ["a", "b"], {"a": 1, "b": 2}, parse_metrics(["ndcg"]), Conventions("linear", 2, "zero")
    )
    assert ours["ndcg"] == pytest.approx(expected, abs=TOL)


def test_ranx_level_filters_ndcg_gains_unlike_ours():
    # a documented convention difference: ranx's ndcg-l2 drops grade-1 gains
    qrels, run = ranx_pair({"q": {"a": 1, "b": 2}}, {"q": {"a": 2.0, "b": 1.0}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        l1 = float(ranx.evaluate(qrels, run, "ndcg_burges"))
        l2 = float(ranx.evaluate(qrels, run, "ndcg_burges-l2"))
    ours = evaluate(
        ["a", "b"], {"a": 1, "b": 2}, parse_metrics(["ndcg"]), Conventions(relevance_threshold=2)
    )["ndcg"]
    assert ours == pytest.approx(l1, abs=TOL)
    assert ours == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)), abs=TOL)
    assert l2 == pytest.approx((3 / math.log2(3)) / 3, abs=TOL)


def test_ranx_scores_no_relevant_and_empty_runs_zero():
    qrels, run = ranx_pair(
        {"unjudged": {}, "zero-only": {"b": 0}, "judged-empty-run": {"a": 2}, "ok": {"a": 1}},
        {"unjudged": {"a": 1.0}, "zero-only": {}, "judged-empty-run": {}, "ok": {"a": 1.0}},
    )
    names = ["ndcg_burges@5", "mrr", "recall@5", "precision@5", "hit_rate@5", "map", "r-precision"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(qrels, run, names, return_mean=False)
    for name in names:
        assert run.scores[name]["unjudged"] == 0.0
        assert run.scores[name]["zero-only"] == 0.0
        assert run.scores[name]["judged-empty-run"] == 0.0
        assert run.scores[name]["ok"] > 0.0
    # ours: zero matches ranx; abstain rewards the empty run of a query with nothing to find
    metrics = parse_metrics(["ndcg@5", "mrr", "recall@5", "P@5", "Success@5", "AP", "Rprec"])
    assert set(evaluate([], {"b": 0}, metrics, Conventions(empty="zero")).values()) == {0.0}
    assert set(evaluate([], {"b": 0}, metrics, Conventions(empty="abstain")).values()) == {1.0}
    assert set(evaluate([], {"a": 2}, metrics, Conventions(empty="abstain")).values()) == {0.0}


# --------------------------------------------------------------------------- through the plugin

ALIASED_METRICS = "nDCG@10 RR RR@10 R@20 P@5 Success@10 AP AP@10 Rprec Judged@10 ndcg"


@pytest.mark.parametrize(
    ("gain", "threshold", "empty", "metrics"),
    [
        ("linear", 1, "zero", " ".join(ALL_METRICS)),
        ("linear", 2, "zero", " ".join(ALL_METRICS)),
        ("exponential", 1, "zero", " ".join(ALL_METRICS)),
        ("exponential", 1, "abstain", ALIASED_METRICS),
        ("exponential", 2, "one", " ".join(ALL_METRICS)),
        ("linear", 1, "skip", " ".join(ALL_METRICS)),
        ("linear", 3, "abstain", " ".join(ALL_METRICS)),
    ],
    ids=lambda v: str(v) if len(str(v)) < 12 else ("aliases" if v == ALIASED_METRICS else "all"),
)
def test_plugin_report_matches_trec_eval_and_ranx(pytester, gain, threshold, empty, metrics):
    write_plugin_project(
        pytester,
        {
            "retrieval_metrics": metrics,
            "retrieval_gain": gain,
            "retrieval_relevance_threshold": str(threshold),
            "retrieval_empty": empty,
        },
    )
    result = pytester.runpytest(
        "--retrieval-eval", "--retrieval-report", "r.json", "-q", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=N_QUERIES)
    assert result.ret == 0
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))

    canonical = [m.name for m in parse_metrics(metrics.split())]
    assert report["format"] == "pytest-retrieval-report"
    assert report["settings"] == {
        "metrics": canonical,
        "gain": gain,
        "relevance_threshold": threshold,
        "max_grade": 3,
        "empty": empty,
    }
    assert report["golden"]["queries"] == N_QUERIES
    assert list(report["configurations"]) == ["default"]
    queries = report["configurations"]["default"]["queries"]
    cases = {c.qid: c for c in generated_cases()}
    assert set(queries) == set(cases)

    depth = max(m.k for m in parse_metrics(canonical) if m.k is not None)
    values = {}
    for qid, entry in queries.items():
        case = cases[qid]
        assert entry["outcome"] == "passed", (qid, entry)
        assert entry["error"] is None
        assert entry["category"] == case.kind
        assert entry["duplicates"] == case.duplicates, qid
        assert entry["retrieved"] == case.ranking[:depth], qid
        assert list(entry["metrics"]) == canonical
        values[qid] = entry["metrics"]

    problems = mismatches_of(values, gain, threshold, empty)
    assert not problems, "\n".join(problems[:20])

    # the summary row: n evaluated queries and the mean of each metric (skip: n/a left out)
    summary = report["configurations"]["default"]["summary"]
    assert summary["all"]["n"] == N_QUERIES
    for name in canonical:
        kept = [v[name] for v in values.values() if v[name] is not None]
        expected = math.fsum(kept) / len(kept) if kept else None
        assert _close(summary["all"][name], expected), name
    by_kind = {
        kind: sum(1 for c in cases.values() if c.kind == kind) for kind in summary["categories"]
    }
    assert {k: row["n"] for k, row in summary["categories"].items()} == by_kind
    if empty == "skip":
        assert any(v["mrr"] is None for v in values.values())
