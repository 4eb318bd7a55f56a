"""Conformance with trec_eval 10.0's own test data: every measure we share, at its 4 decimals.

The qrels and runs of trec_eval's ``test/`` folder are read with
``pytest_retrieval.io.trec`` and scored with :func:`pytest_retrieval.metrics.evaluate`
(linear gain, ``empty = zero``, the threshold = trec_eval's relevance level); each
value is formatted with 4 decimals and compared with what trec_eval printed, per
query (the ``-q`` files) and for ``all``. How trec_eval's options map onto ours:

* ``-c``: every judged topic is averaged; a topic missing from the run is scored on
  an empty ranking (everything 0). Without ``-c``, trec_eval 10.0 averages the
  topics of the qrels, and every one of them must be in the run;
* ``-M100``: only the first 100 results of each topic, after trec_eval's ordering;
* ``-l2``: relevance level 2; grades of -1 are "in the pool but unjudged";
* ``unj_k`` is not a measure of ours; it is ``judged@k`` padded to k with judged
  documents: ``unj_k = (1 - judged@k) * min(k, returned) / k``.

The data lives beside the repository (``../shared/data/trec_eval_test``) or under
``$RETRIEVAL_SHARED/data/trec_eval_test``; without it these tests skip.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_retrieval.io.trec import read_qrels, read_run
from pytest_retrieval.metrics import Conventions, Metric, evaluate, parse_metric

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

# trec_eval's name -> our metric name
SHARED = {
    "ndcg": "ndcg",
    **{f"ndcg_cut_{k}": f"ndcg@{k}" for k in CUTS},
    "recip_rank": "mrr",
    "map": "map",
    **{f"map_cut_{k}": f"map@{k}" for k in CUTS},
    **{f"P_{k}": f"precision@{k}" for k in CUTS},
    **{f"recall_{k}": f"recall@{k}" for k in CUTS},
    "Rprec": "r_precision",
    **{f"success_{k}": f"hit_rate@{k}" for k in (1, 5, 10)},
    "bpref": "bpref",
    **{f"unj_{k}": f"judged@{k}" for k in (5, 10, 20)},
}
STANDARD = {"map", "Rprec", "bpref", "recip_rank", *(f"P_{k}" for k in CUTS)}  # no -m


def shared_folder() -> Path | None:
    """trec_eval's test folder beside the repository or under $RETRIEVAL_SHARED, or None."""
    roots = [Path(__file__).resolve().parents[2] / "shared"]
    if os.environ.get("RETRIEVAL_SHARED"):
        roots.insert(0, Path(os.environ["RETRIEVAL_SHARED"]))
    for root in roots:
        folder = root / "data" / "trec_eval_test"
        if (folder / "qrels.test").is_file():
            return folder
    return None


DATA = shared_folder()
pytestmark = pytest.mark.skipif(
    DATA is None,
    reason="trec_eval's test data is not there: put it in ../shared/data/trec_eval_test "
    "beside the repository, or set RETRIEVAL_SHARED to the folder holding data/",
)


@dataclass(frozen=True)
class Case:
    """One out.* file and the trec_eval command line that made it."""

    out: str
    qrels: str
    run: str
    measures: frozenset[str]  # the shared measures this file must hold
    level: int = 1  # -l
    complete: bool = False  # -c
    max_docs: int | None = None  # -M
    per_query: bool = True  # -q


ALL_TREC = frozenset(SHARED)
CASES = [
    Case("out.test", "qrels.test", "results.test", frozenset(STANDARD), per_query=False),
    Case("out.test.a", "qrels.test", "results.test", ALL_TREC, per_query=False),
    Case("out.test.aq", "qrels.test", "results.test", ALL_TREC),
    Case("out.test.aqc", "qrels.test", "results.trunc", ALL_TREC, complete=True),
    Case("out.test.aqcM", "qrels.test", "results.trunc", ALL_TREC, complete=True, max_docs=100),
    Case("out.test.aql", "qrels.rel_level", "results.test", ALL_TREC, level=2),
    Case(
        "out.comment.test",
        "qrels.comment.test",
        "results.comment.test",
        frozenset(STANDARD),
        per_query=False,
    ),
]


@dataclass
class Outcome:
    """What one case compared: totals and the values that differ."""

    compared: int = 0
    equal: int = 0
    differ: list[str] = field(default_factory=list)
    queries: int = 0
    returned: int = 0


def read_out(path: Path) -> dict[tuple[str, str], str]:
    """(measure, qid) -> the value as trec_eval printed it."""
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, qid, value = line.split()
        values[name, qid] = value
    return values


def rankings(case: Case, qids: list[str]) -> dict[str, list[str]]:
    assert DATA is not None
    runs = read_run(DATA / case.run)
    assert len(runs) == 1, "each test run has one tag"
    ranked = next(iter(runs.values())).ids()
    if not case.complete:
        missing = [q for q in qids if q not in ranked]
        assert not missing, f"trec_eval 10.0 stops on judged topics missing from the run: {missing}"
    return {q: ranked.get(q, [])[: case.max_docs] for q in qids}


def our_values(case: Case) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """Per query: {trec_eval name: our value}; and how many results each query kept."""
    assert DATA is not None
    qrels = read_qrels(DATA / case.qrels, max_grade=4)
    judged = qrels.judgments()
    qids = sorted(judged)  # trec_eval's order: strcmp of the qids
    ranked = rankings(case, qids)
    metrics = [parse_metric(name) for name in SHARED.values()]
    conventions = Conventions(gain="linear", relevance_threshold=case.level, empty="zero")
    out: dict[str, dict[str, float]] = {}
    for qid in qids:
        values = evaluate(ranked[qid], judged[qid], metrics, conventions)
        out[qid] = {
            theirs: _as_trec(metric, values[metric.name], len(ranked[qid]))
            for theirs, metric in zip(SHARED, metrics, strict=True)
        }
    return out, {q: len(r) for q, r in ranked.items()}


def _as_trec(metric: Metric, value: float | None, returned: int) -> float:
    assert value is not None
    if metric.base != "judged":
        return value
    assert metric.k is not None
    return (1.0 - value) * min(metric.k, returned) / metric.k  # unj_k


def _compare(outcome: Outcome, where: str, ours: float, printed: str) -> None:
    outcome.compared += 1
    if f"{ours:.4f}" == printed:
        outcome.equal += 1
    else:
        outcome.differ.append(f"{where}: ours {ours:.6f}, trec_eval {printed}")


@functools.cache
def outcome_of(case: Case) -> Outcome:
    assert DATA is not None
    printed = read_out(DATA / case.out)
    per_query, returned = our_values(case)
    outcome = Outcome(queries=len(per_query), returned=sum(returned.values()))
    measures = sorted({name for name, _ in printed} & set(SHARED))
    assert set(measures) == case.measures, f"{case.out}: measures {sorted(measures)}"
    for name in measures:
        if case.per_query:
            for qid, values in per_query.items():
                _compare(outcome, f"{name} {qid}", values[name], printed[name, qid])
        mean = math.fsum(v[name] for v in per_query.values()) / len(per_query)
        _compare(outcome, f"{name} all", mean, printed[name, "all"])
    assert int(printed["num_q", "all"]) == outcome.queries, case.out
    assert int(printed["num_ret", "all"]) == outcome.returned, case.out
    return outcome


def totals_table() -> str:
    """Values compared and equal per out.* file, for failure messages."""
    rows = [f"{'file':<18} {'queries':>7} {'values':>7} {'equal':>7} {'differ':>7}"]
    for case in CASES:
        o = outcome_of(case)
        rows.append(
            f"{case.out:<18} {o.queries:>7} {o.compared:>7} {o.equal:>7} {len(o.differ):>7}"
        )
    return "\n".join(rows)


@pytest.mark.parametrize("case", CASES, ids=[c.out for c in CASES])
def test_every_shared_measure_equals_trec_eval(case: Case) -> None:
    outcome = outcome_of(case)
    shown = "\n".join(outcome.differ[:25])
    assert outcome.equal == outcome.compared, f"{case.out}:\n{shown}\n\n{totals_table()}"
    # not vacuous: every measure of the file, for every query and `all`
    rows = outcome.queries + 1 if case.per_query else 1
    assert outcome.compared == len(case.measures) * rows


def test_the_cases_cover_what_they_should() -> None:
    """The data exercises what each option changes (else a case would test nothing new)."""
    assert DATA is not None
    aq, aqc, aqcm = (outcome_of(c) for c in CASES[2:5])
    assert (aq.queries, aqc.queries, aqcm.queries) == (3, 3, 3)
    assert aq.returned == 1500 and aqc.returned == 584 and aqcm.returned == 184
    rel_level = read_qrels(DATA / "qrels.rel_level", max_grade=4)
    assert rel_level.unjudged == 304  # the -1 lines, dropped
    comment = read_qrels(DATA / "qrels.comment.test", max_grade=4)
    assert any("#" in doc for grades in comment.judgments().values() for doc in grades)
    assert outcome_of(CASES[-1]).queries == 31  # of the run's 301 topics, the judged ones


def test_a_wrong_convention_would_be_caught() -> None:
    """Exponential gain (our default) differs from trec_eval somewhere: the test can fail."""
    assert DATA is not None
    qrels = read_qrels(DATA / "qrels.rel_level", max_grade=4).judgments()
    ranked = next(iter(read_run(DATA / "results.test").values())).ids()
    printed = read_out(DATA / "out.test.aql")
    metric = [parse_metric("ndcg")]
    exponential = Conventions(gain="exponential", relevance_threshold=2, empty="zero")
    differ = [
        qid
        for qid in qrels
        if f"{evaluate(ranked[qid], qrels[qid], metric, exponential)['ndcg']:.4f}"
        != printed["ndcg", qid]
    ]
    assert differ


# --------------------------------------------------------------------------- through the commands

# The same comparison, with nothing read by this test's own code: the qrels imported with
# `pytest-retrieval import trec`, the run scored with `pytest-retrieval evaluate` and, on the
# same imported golden file, by the plugin itself (a retriever replaying the run), each
# writing its JSON report; the numbers compared are the reports' (per query, and the `all`
# row of the summary).

ROUTES = ("evaluate", "plugin")


def _ini(case: Case) -> str:
    return (
        "[pytest]\nretrieval_golden = golden\n"
        f"retrieval_metrics = {' '.join(SHARED.values())}\n"
        "retrieval_gain = linear\nretrieval_empty = zero\nretrieval_max_grade = 4\n"
        f"retrieval_relevance_threshold = {case.level}\nretrieval_bootstrap = 0\n"
    )


def _project(case: Case, root: Path) -> Path:
    assert DATA is not None
    from cli_project import cli, write_project

    write_project(root, {}, ini=_ini(case))
    (root / "runs").mkdir()
    (root / "runs" / "run.run").write_bytes((DATA / case.run).read_bytes())
    imported = cli("import", "trec", str(DATA / case.qrels), "-o", "golden/trec.yaml", cwd=root)
    assert imported.code == 0, imported.err
    return root


def _report_of(case: Case, root: Path, route: str, pytester: pytest.Pytester | None) -> dict:
    from cli_project import cli, load_json, write_run_conftest

    if route == "evaluate":
        limit = ["--max-results", str(case.max_docs)] if case.max_docs else []
        ran = cli("evaluate", "runs/run.run", *limit, "--report", "out.json", "-q", cwd=root)
        assert ran.code == 0, ran.err
    else:
        assert pytester is not None
        write_run_conftest(root, case.max_docs)
        result = pytester.runpytest(
            "--retrieval-eval", "--retrieval-report", "out.json", "-p", "no:cacheprovider",
            "-q", "-W", "ignore::pytest.PytestAssertRewriteWarning",
        )  # fmt: skip
        assert result.ret == 0, result.stdout.str()[-2000:]
    report = load_json(root / "out.json")
    [configuration] = report["configurations"].values()  # type: ignore[union-attr]
    return configuration


def report_outcome(case: Case, configuration: dict) -> Outcome:
    """A JSON report's numbers against trec_eval's, as :func:`outcome_of` compares ours."""
    assert DATA is not None
    printed = read_out(DATA / case.out)
    queries = configuration["queries"]
    metrics = {theirs: parse_metric(ours) for theirs, ours in SHARED.items()}
    per_query = {
        qid: {
            theirs: _as_trec(metric, entry["metrics"][metric.name], len(entry["retrieved"]))
            for theirs, metric in metrics.items()
        }
        for qid, entry in queries.items()
    }
    outcome = Outcome(
        queries=len(per_query), returned=sum(len(e["retrieved"]) for e in queries.values())
    )
    measures = sorted({name for name, _ in printed} & set(SHARED))
    summary = configuration["summary"]["all"]
    for name in measures:
        if case.per_query:
            for qid, values in per_query.items():
                _compare(outcome, f"{name} {qid}", values[name], printed[name, qid])
        if metrics[name].base == "judged":  # unj_k: padded per query, so its mean is ours
            mean = math.fsum(v[name] for v in per_query.values()) / len(per_query)
        else:
            mean = summary[metrics[name].name]
        _compare(outcome, f"{name} all", mean, printed[name, "all"])
    assert summary["n"] == int(printed["num_q", "all"]), case.out
    assert outcome.returned == int(printed["num_ret", "all"]), case.out
    return outcome


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", CASES, ids=[c.out for c in CASES])
def test_import_then_evaluate_or_the_plugin_equal_trec_eval(case, route, tmp_path, pytester):
    root = _project(case, pytester.path if route == "plugin" else tmp_path)
    configuration = _report_of(case, root, route, pytester)
    outcome = report_outcome(case, configuration)
    shown = "\n".join(outcome.differ[:25])
    assert outcome.equal == outcome.compared, f"{route} {case.out}:\n{shown}"
    rows = outcome.queries + 1 if case.per_query else 1
    assert outcome.compared == len(case.measures) * rows
    assert (outcome.compared, outcome.queries) == (
        outcome_of(case).compared,
        outcome_of(case).queries,
    )


def test_the_readme_states_the_conformance_totals():
    """docs/metrics.md's conformance table is this suite's count (every route compares the
    same)."""
    page = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"
    readme = page.read_text(encoding="utf-8")
    for case in CASES:
        o = outcome_of(case)
        row = f"| `{case.out}` | {o.queries} | {len(case.measures)} | {o.compared} | {o.equal} |"
        assert row in readme, row
    total = sum(outcome_of(c).compared for c in CASES)
    assert f"| all | | | {total} | {total} |" in readme
