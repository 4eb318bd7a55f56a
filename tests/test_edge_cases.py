"""Edge cases a careful user hits: typos in settings, mutating retrievers, odd result shapes."""

from __future__ import annotations

import json
from collections import namedtuple
from pathlib import Path
from textwrap import dedent

import pytest

from pytest_retrieval.golden import GoldenFileError
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.quoting import result_ids
from pytest_retrieval.shapes import ranked_ids

GOLDEN = """\
queries:
  - id: a1
    query: first
    category: alpha
    filters: {network: base, max_price: 0.01}
    relevant: {d1: 3, d2: 1}
  - id: a2
    query: second
    category: alpha
    filters: {network: base}
    relevant: {d2: 2}
  - id: b1
    query: third
    category: beta
    relevant: {d3: 3}
"""

CONFTEST = """\
import json
from pathlib import Path

import pytest

SEEN = Path(__file__).parent / "seen.jsonl"


@pytest.fixture(params=["first", "second"])
def retriever(request):
    name = request.param
    broken = (Path(__file__).parent / "broken.txt")

    def search(query):
        with SEEN.open("a") as out:
            out.write(json.dumps({"configuration": name, "id": query.id,
                                  "filters": dict(query.filters),
                                  "has_judgments": hasattr(query, "relevant")}) + "\\n")
        query.filters.pop("max_price", None)  # a careless retriever edits its input
        if broken.exists() and name == "second" and query.id in broken.read_text().split():
            raise ConnectionError("index unavailable")
        return {"a1": ["d1", "d2"], "a2": ["d2"], "b1": ["d3"]}[query.id]

    return search
"""


def project(pytester: pytest.Pytester, ini: str = "") -> None:
    pytester.makefile(".ini", pytest=f"[pytest]\nretrieval_bootstrap = 200\n{ini}")
    pytester.makeconftest(CONFTEST)
    (pytester.path / "golden").mkdir(exist_ok=True)
    (pytester.path / "golden" / "set.yaml").write_text(GOLDEN)


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest(
        "--retrieval-eval", "-p", "no:cacheprovider", "--retrieval-report", "r.json", *args
    )
    report = pytester.path / "r.json"
    return result, json.loads(report.read_text()) if report.exists() else {}


def test_each_call_gets_its_own_filters_and_no_judgments(pytester: pytest.Pytester) -> None:
    project(pytester)
    result, _ = run(pytester)
    result.assert_outcomes(passed=6)
    seen = [json.loads(line) for line in (pytester.path / "seen.jsonl").read_text().splitlines()]
    a1 = [s for s in seen if s["id"] == "a1"]
    assert len(a1) == 2
    # the first configuration popped max_price; the second still sees it
    assert all(s["filters"] == {"network": "base", "max_price": 0.01} for s in a1)
    assert not any(s["has_judgments"] for s in seen)


def test_a_misspelled_gated_configuration_fails_the_gate(pytester: pytest.Pytester) -> None:
    """Under xdist the controller collects nothing: the gate names it at the end (a
    run in one process stops after collection, test_e2e_gate.py)."""
    pytest.importorskip("xdist")
    project(pytester)
    run(pytester, "--retrieval-update-baseline")
    project(pytester, "retrieval_gate_configurations = secnod\n")
    result, report = run(pytester, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert report["gate"]["verdict"] == "failed"
    assert (
        "retrieval_gate_configurations names 'secnod', which this run does not have "
        "(configurations: first, second) (did you mean 'second'?)"
        in " ".join(result.stdout.str().split())
    )


def test_reordering_metrics_does_not_refuse_and_another_k_gates_the_rest(
    pytester: pytest.Pytester,
) -> None:
    """Another cut is one metric taken out and one added: the metrics shared are still
    gated, each of the two is named as not gated; with none shared the gate refuses."""
    project(pytester, "retrieval_metrics = ndcg@10 mrr\n")
    run(pytester, "--retrieval-update-baseline")
    project(pytester, "retrieval_metrics = mrr ndcg@10\n")
    result, report = run(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert report["gate"]["verdict"] == "passed"
    project(pytester, "retrieval_metrics = mrr ndcg@5\n")
    result, report = run(pytester)
    assert report["gate"]["verdict"] == "passed", result.stdout.str()
    said = " ".join(report["gate"]["messages"])
    assert "metric 'ndcg@5' of this run is not in the baseline" in said
    assert "the baseline's metric 'ndcg@10' is not in this run's retrieval_metrics" in said
    project(pytester, "retrieval_metrics = ndcg@5\n")
    result, report = run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert report["gate"]["verdict"] == "refused"


def test_an_errored_query_keeps_its_baseline_entry(pytester: pytest.Pytester) -> None:
    project(pytester)
    run(pytester, "--retrieval-update-baseline")
    baseline = pytester.path / "golden" / "baseline.json"
    before = json.loads(baseline.read_text())["configurations"]["second"]["queries"]["a2"]
    assert before["metrics"]["mrr"] == 1.0
    (pytester.path / "broken.txt").write_text("a2")
    result, _ = run(pytester, "--retrieval-update-baseline")
    out = result.stdout.str()
    assert "not written, their retriever errored (previous entries kept): second/a2" in out
    after = json.loads(baseline.read_text())["configurations"]["second"]["queries"]["a2"]
    assert after == before


def test_an_update_names_the_first_errored_queries_and_counts_the_rest(
    pytester: pytest.Pytester,
) -> None:
    """A broken index errors every query: the update named all of them, one long
    paragraph even under -q; it now names ten and counts the others."""
    project(pytester)
    run(pytester, "--retrieval-update-baseline")
    ids = [f"q{i:02d}" for i in range(14)]
    queries = "".join(f"  - id: {q}\n    query: text {q}\n    relevant: [d1]\n" for q in ids)
    (pytester.path / "golden" / "set.yaml").write_text("queries:\n" + queries)
    (pytester.path / "broken.txt").write_text(" ".join(ids))
    pytester.makeconftest(CONFTEST.replace("[query.id]", '.get(query.id, ["d1"])'))
    result, _ = run(pytester, "--retrieval-update-baseline", "-q")
    out = " ".join(result.stdout.str().split())
    shown = ", ".join(f"second/{q}" for q in ids[:10])
    assert (
        f"not written, their retriever errored (previous entries kept): {shown} and 4 more "
        "(each is among the failures above)"
    ) in out
    assert "second/q10" not in out.split("retrieval baseline written")[1]


def test_a_category_with_every_item_skipped_has_no_interval(pytester: pytest.Pytester) -> None:
    project(pytester)
    golden = pytester.path / "golden" / "set.yaml"
    golden.write_text(
        GOLDEN.replace("    category: beta\n", "    category: beta\n    skip: later\n")
    )
    result, report = run(pytester)
    result.assert_outcomes(passed=4, skipped=2)
    beta = report["configurations"]["first"]["summary"]["categories"]["beta"]
    assert beta["n"] == 0
    assert beta["mrr"] is None
    assert beta["ci"]["mrr"] is None
    assert not any(w.startswith("beta:") for w in report["warnings"])


def test_a_report_is_written_even_when_nothing_was_evaluated(pytester: pytest.Pytester) -> None:
    project(pytester)
    (pytester.path / "r.json").write_text('{"format": "pytest-retrieval-report", "stale": 1}')
    result, report = run(pytester, "-k", "no-such-query")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert report["configurations"] == {}
    assert report["golden"]["queries"] == 0


def test_a_namedtuple_result_is_read_by_its_id_field() -> None:
    hit = namedtuple("Hit", "doc_id id")
    assert ranked_ids([hit("x", "a"), hit("y", "b")]) == ["a", "b"]
    scored = namedtuple("Scored", "score id")
    assert ranked_ids([scored(0.9, "a")]) == ["a"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("    expect: []\n", "'expect' must map metric names"),
        ("    tags: 0\n", "'tags' must be a list of text"),
        ("    forbid: 0\n", "'forbid' must be a list of text"),
        ("    expect: {mrr: 0.5, RR: 0.9}\n", "'expect' names mrr twice"),
    ],
)
def test_wrong_types_are_errors_not_silently_ignored(tmp_path: Path, body: str, says: str) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(
        dedent(
            """\
            queries:
              - id: q
                query: text
                relevant: {a: 1}
            """
        )
        + body
    )
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path)
    assert says in str(info.value)


def test_an_id_written_as_number_and_as_text_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text('queries:\n  - id: q\n    query: text\n    relevant: {42: 1, "42": 3}\n')
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path)
    assert "'relevant' names '42' twice" in str(info.value)


def test_a_category_named_like_the_overall_row_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(
        "queries:\n  - id: q\n    query: text\n    category: all\n    relevant: {a: 1}\n"
    )
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path)
    assert "g.yaml:4: query 'q': category 'all' is reserved" in str(info.value)


def test_ids_a_reader_checked_are_ranked_as_they_are_and_only_those() -> None:
    """A TREC run's ids (checked by its reader) skip the answer checks; a list of the same
    ids, or of any other list type, is still checked and de-duplicated."""
    from pytest_retrieval.shapes import CheckedIds, Ranked, rank_results

    checked = CheckedIds(["d3", "d1", "d2"])
    ranked = rank_results(checked)
    assert ranked == Ranked(["d3", "d1", "d2"]) and type(ranked.ranking) is list
    assert rank_results(["d3", "d1", "d3"]) == Ranked(["d3", "d1"], duplicates=1)

    class OtherList(list[str]):
        pass

    assert rank_results(OtherList(["d3", "d3"])) == Ranked(["d3"], duplicates=1)
    # a key function reads every result, checked or not
    assert rank_results(CheckedIds(["a#1", "a#2"]), lambda r: str(r)[0]) == Ranked(["a"], merged=1)


def test_long_result_ids_are_cut_unless_two_would_read_alike() -> None:
    """URL-like ids that differ only at their end stay whole (cut, they would look the
    same in one ranking); a lone long id is cut; control characters are escaped."""
    base = "https://example.com/" + "a" * 60
    assert result_ids([base + "/one", base + "/two"]) == {
        base + "/one": base + "/one",
        base + "/two": base + "/two",
    }
    assert result_ids([base + "/one", "d\x1b[2J"]) == {
        base + "/one": base[:59] + "…",
        "d\x1b[2J": "d\\x1b[2J",
    }


def test_a_gate_whose_every_value_is_skipped_has_no_data_and_fails(
    pytester: pytest.Pytester,
) -> None:
    """retrieval_empty = skip and only no-result queries: every gated value is n/a, the
    gate had 0 rows, and it PASSED (a gate that compared nothing does not pass)."""
    pytester.makefile(".ini", pytest="[pytest]\nretrieval_empty = skip\n")
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef retriever():\n    return lambda q: ['d1']\n"
    )
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "set.yaml").write_text(
        "queries:\n  - {id: q1, query: one, relevant: {}}\n"
        "  - {id: q2, query: two, relevant: {d1: 0}}\n"
    )
    assert run(pytester, "--retrieval-update-baseline")[0].ret == pytest.ExitCode.OK
    result, report = run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert report["gate"]["verdict"] == "failed" and report["gate"]["rows"] == []
    assert report["gate"]["messages"] == [
        "the gate had no data for configuration 'default': every gated metric is n/a on its 2 "
        "queries in the baseline (retrieval_empty = skip leaves out a query with nothing "
        "relevant to find): nothing compared; add queries with judgments"
    ]
