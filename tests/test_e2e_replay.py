"""End to end: ``--retrieval-record`` and ``--retrieval-replay`` (issue 11, item 7).

A replay evaluates a recording without calling any retriever and without building
the fixture: the configurations are the recording's, a query it lacks is an error
naming it, a query recorded for another text is stale. TREC run files replay the
same way, one configuration per run tag.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    E2E_RANKINGS,
    E2E_RETRIEVER_CONFTEST,
    e2e_load_json,
    e2e_run,
    e2e_unwrapped,
    e2e_without_latency,
    e2e_write_project,
)

UNBUILDABLE = """

import os

if os.environ.get("NO_SERVICE"):
    @pytest.fixture(params=["bm25", "dense"])
    def retriever(request):
        raise RuntimeError("the live service is not reachable from CI")
"""


@pytest.fixture
def recorded(pytester: pytest.Pytester) -> Any:
    """The standard project, run once with --retrieval-record: its report."""
    e2e_write_project(pytester, conftest=E2E_RETRIEVER_CONFTEST + UNBUILDABLE)
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "--retrieval-report=a.json"
    )
    result.assert_outcomes(passed=14)
    # 7 queries x 2 configurations: 14 answers, each holding a ranking (it said "14 results",
    # which reads as 14 ranked ids in all)
    assert "retrieval recording written: " in " ".join(result.stdout.str().split())
    assert "rec.jsonl (14 entries: a query's answer from one configuration each)" in (
        " ".join(result.stdout.str().split())
    )
    return e2e_without_latency(e2e_load_json(pytester.path / "a.json"))


def _two_queries(pytester: pytest.Pytester, first: str, second: str) -> None:
    """golden/g.jsonl: two queries, each judging d1 relevant."""
    golden = pytester.path / "golden"
    golden.mkdir()
    lines = [
        json.dumps({"id": q, "query": t, "relevant": {"d1": 3}})
        for q, t in ((first, "a"), (second, "b"))
    ]
    (golden / "g.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _replay(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, Any]:
    result = e2e_run(
        pytester,
        "--retrieval-eval",
        "--retrieval-replay=rec.jsonl",
        "--retrieval-report=b.json",
        *args,
    )
    report = pytester.path / "b.json"
    return result, e2e_without_latency(e2e_load_json(report)) if report.exists() else None


def test_a_recording_holds_every_result_with_scores_settings_and_the_golden_digest(
    pytester: pytest.Pytester, recorded: Any
) -> None:
    lines = [json.loads(x) for x in (pytester.path / "rec.jsonl").read_text().splitlines()]
    header, entries, footer = lines[0], lines[1:-1], lines[-1]
    assert header["format"] == "pytest-retrieval recording" and header["version"] == 1
    assert header["settings"] == recorded["settings"]
    assert footer == {
        "complete": True,
        "entries": 14,
        "golden": recorded["golden"]["sha256"],
        "retrievers": {},
    }
    entry = next(e for e in entries if (e["configuration"], e["id"]) == ("bm25", "share-price"))
    assert [doc for doc, _ in entry["results"]] == E2E_RANKINGS["bm25"]["share-price"]  # all 25
    assert entry["results"][0][1] == 10.0  # the score as returned
    assert entry["text"] == "live share price for a ticker symbol" and entry["error"] is None
    assert entry["latency_ms"] >= 0
    euros = next(e for e in entries if e["id"] == "convert-euros")
    assert euros["filters"] == {"network": "base"}


DESCRIBED = E2E_RETRIEVER_CONFTEST.replace(
    "    return search\n",
    "    search.metadata = {'index_version': os.environ.get('INDEX', 'v1')}\n    return search\n",
).replace("import pytest\n", "import os\nimport pytest\n", 1)


def test_a_replay_carries_what_the_recorded_retrievers_said_about_themselves(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index version recorded with the results reaches the reports and the gate, so
    a CI that only replays still sees an index change against the baseline."""
    e2e_write_project(pytester, conftest=DESCRIBED + UNBUILDABLE)
    e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline")
    monkeypatch.setenv("INDEX", "v2")
    e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl")
    footer = json.loads((pytester.path / "rec.jsonl").read_text().splitlines()[-1])
    assert footer["retrievers"] == {c: {"index_version": "v2"} for c in ("bm25", "dense")}
    monkeypatch.setenv("NO_SERVICE", "1")
    result, report = _replay(pytester)
    assert report["configurations"]["dense"]["retriever"] == {"index_version": "v2"}
    text = " ".join(result.stdout.str().split())
    assert "dense: index_version v1 → v2" in text, text


def test_a_replay_gives_the_recorded_numbers_without_building_the_fixture(
    pytester: pytest.Pytester, recorded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_SERVICE", "1")
    result, replayed = _replay(pytester)
    result.assert_outcomes(passed=14)
    assert replayed["configurations"] == recorded["configurations"]
    assert replayed["comparisons"] == recorded["comparisons"]
    ids = [line for line in e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=rec.jsonl",
                                    "--collect-only", "-q").outlines if "::" in line]  # fmt: skip
    assert "golden/catalog.yaml::rain-tomorrow[bm25]" in ids and len(ids) == 14


@pytest.mark.parametrize("items", ["query", "category"])
def test_a_replay_under_retrieval_repeat_calls_nothing_again(
    pytester: pytest.Pytester, recorded: Any, monkeypatch: pytest.MonkeyPatch, items: str
) -> None:
    """A recording holds one answer per query and the fixture is not built: the repeat
    called the placeholder, and every item failed with the plugin's ProtocolError."""
    monkeypatch.setenv("NO_SERVICE", "1")
    result, replayed = _replay(pytester, "-o", "retrieval_repeat=3", f"--retrieval-items={items}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "ProtocolError" not in result.stdout.str()
    assert replayed["configurations"].keys() == recorded["configurations"].keys()
    for name, configuration in recorded["configurations"].items():
        assert replayed["configurations"][name]["queries"] == configuration["queries"]


def test_a_replay_gates_like_the_live_run(pytester: pytest.Pytester, recorded: Any) -> None:
    assert e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline").ret == 0
    result, replayed = _replay(pytester)
    assert "retrieval gate: PASSED" in result.stdout.str()
    assert replayed["gate"]["verdict"] == "passed"


def test_a_query_recorded_for_another_text_is_stale(
    pytester: pytest.Pytester, recorded: Any
) -> None:
    catalog = pytester.path / "golden" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("convert euros to dollars", "euros in dollars"))
    result, replayed = _replay(pytester)
    result.assert_outcomes(passed=12, failed=2)
    error = replayed["configurations"]["dense"]["queries"]["convert-euros"]["error"]
    assert error == (
        "the recording rec.jsonl holds this query with another text ('convert euros to dollars'): "
        "its results are not this query's; record again (--retrieval-record)"
    )
    text = " ".join(result.stdout.str().split())  # and one line in the summary says why
    assert (
        "replay: 2 items are queries the recording rec.jsonl holds for another text or other "
        "filters (the golden set changed since it was recorded), scored as errors"
    ) in text
    assert "does not hold" not in text
    one, _ = _replay(pytester, "-k", "dense")  # one item: its note speaks of one error
    assert (
        "replay: 1 item is a query the recording rec.jsonl holds for another text or other "
        "filters (the golden set changed since it was recorded), scored as an error;"
    ) in " ".join(one.stdout.str().split())


def test_with_coarse_items_the_replay_notes_count_queries_not_items(
    pytester: pytest.Pytester, recorded: Any
) -> None:
    catalog = pytester.path / "golden" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("convert euros to dollars", "euros in dollars"))
    result, _ = _replay(pytester, "--retrieval-items=category")
    text = " ".join(result.stdout.str().split())
    assert (  # one query of two configurations: one query, not two
        "replay: 1 query, in 2 configurations, is one the recording rec.jsonl holds for "
        "another text or other filters (the golden set changed since it was recorded), "
        "scored as errors"
    ) in text
    assert "items are queries" not in text  # each item holds a category of queries


def test_a_partial_recording_names_the_queries_it_lacks(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "-k", "not share")
    result, replayed = _replay(pytester)
    result.assert_outcomes(passed=12, failed=2)
    assert replayed["configurations"]["bm25"]["queries"]["share-price"]["error"] == (
        "not in the recording rec.jsonl; record again (--retrieval-record)"
    )
    text = " ".join(result.stdout.str().split())
    assert (
        "query 'share-price' [bm25] (golden/holdout.yml:2): not in the recording rec.jsonl; "
        "record again (--retrieval-record)"
    ) in text  # the id and the configuration once each
    assert "replay: 2 items are queries the recording rec.jsonl does not hold" in text
    only_bm25 = pytester.path / "bm25.jsonl"
    e2e_run(pytester, "--retrieval-eval", f"--retrieval-record={only_bm25}", "-k", "bm25")
    result = e2e_run(pytester, "--retrieval-eval", f"--retrieval-replay={only_bm25}")
    result.assert_outcomes(passed=7)  # the configurations are the recording's


def test_with_coarse_items_a_partial_replay_counts_queries_and_advises_what_works(
    pytester: pytest.Pytester,
) -> None:
    """With category items the lines said '1 item errored: its query scores 0.0' and
    '2 items are queries ... replay with -k to leave them out': the items hold many
    queries, and -k cannot select a query id in them."""
    e2e_write_project(pytester)
    e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "-k", "not share")
    result, _ = _replay(pytester, "--retrieval-items=category")
    text = " ".join(result.stdout.str().split())
    assert "1 query, in 2 configurations, errored in 2 items: it scores 0.0 on every" in text
    assert (
        "replay: 1 query, in 2 configurations, is one the recording rec.jsonl does not hold, "
        "scored as errors; "
        "record again (--retrieval-record), or replay with --retrieval-items=query and -k "
        "to leave them out"
    ) in text
    assert "items are queries" not in text


def test_a_recording_of_a_stopped_run_says_it_is_incomplete(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    catalog = pytester.path / "golden" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("{mrr: 0.5}", "{mrr: 1.0}"))
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "-x")
    assert "from one configuration each, incomplete)" in " ".join(result.stdout.str().split())
    footer = json.loads((pytester.path / "rec.jsonl").read_text().splitlines()[-1])
    assert footer["complete"] is False
    replayed = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=rec.jsonl")
    assert "the recording rec.jsonl is incomplete" in " ".join(replayed.stdout.str().split())


def _trec(path: Path, runs: dict[str, dict[str, list[str]]]) -> None:
    lines = []
    for tag, queries in runs.items():
        for qid, docs in queries.items():
            seen: list[str] = []
            for doc in docs:
                if doc not in seen:
                    seen.append(doc)
            lines += [f"{qid} Q0 {d} {r} {100 - r} {tag}" for r, d in enumerate(seen, 1)]
    path.write_text("\n".join(lines) + "\n")


def test_trec_run_files_replay_one_configuration_per_tag(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    live = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=a.json")
    expected = e2e_without_latency(e2e_load_json(pytester.path / "a.json"))["configurations"]
    _trec(pytester.path / "one.run", {"bm25": E2E_RANKINGS["bm25"]})
    _trec(pytester.path / "two.run", {"dense": E2E_RANKINGS["dense"]})
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-replay=one.run", "--retrieval-replay=two.run",
        "--retrieval-report=t.json",
    )  # fmt: skip
    assert result.ret == live.ret
    replayed = e2e_without_latency(e2e_load_json(pytester.path / "t.json"))["configurations"]
    for configuration in ("bm25", "dense"):
        for qid, entry in expected[configuration]["queries"].items():
            mine = replayed[configuration]["queries"][qid]
            assert mine["metrics"] == entry["metrics"], (configuration, qid)
            assert mine["retrieved"] == entry["retrieved"]


def test_another_systems_run_replayed_against_the_baseline_fails_in_one_message(
    pytester: pytest.Pytester,
) -> None:
    """Each of the baseline's configurations, then each of the run's, had a message of its
    own, saying the same thing; the gate's message names them all, once."""
    e2e_write_project(pytester)
    e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline")
    rankings = E2E_RANKINGS["dense"]
    _trec(pytester.path / "their.run", {"sysA": rankings, "sysB": rankings, "sysC": rankings})
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=their.run")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    text = " ".join(out.split())
    message = (
        "none of the replayed configurations (sysA, sysB, sysC, from their.run) is in the "
        "baseline, which holds bm25, dense: nothing compared. Give the replayed run a baseline "
        "of its own, written once with `pytest --retrieval-eval --retrieval-update-baseline "
        "--retrieval-baseline=golden/their-baseline.json --retrieval-replay=their.run`, or "
        "score it without a gate: `pytest-retrieval evaluate their.run`"
    )
    assert f"retrieval gate: FAILED: {message}" in text
    assert "which this run does not have" not in text
    assert "is not in the baseline" not in text
    assert out.count("none of the replayed configurations") == 2  # the headline, the verdict


def test_a_trec_run_holds_no_latency_and_a_budget_says_it_is_not_checked(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    _trec(pytester.path / "dense.run", {"dense": E2E_RANKINGS["dense"]})
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-replay=dense.run", "--retrieval-report=t.json",
        "--retrieval-latency-budget=p95=1ms",
    )  # fmt: skip
    report = e2e_load_json(pytester.path / "t.json")
    dense = report["configurations"]["dense"]
    assert "latency" not in dense  # nothing was timed: no made-up zeros
    assert all(q.get("latency_ms") is None for q in dense["queries"].values())
    text = " ".join(result.stdout.str().split())
    assert "no latency was measured for 'dense': its latency budget is not checked" in text
    assert "latency p50/p95/max" not in text


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_query_a_trec_run_lacks_returned_nothing(
    pytester: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    e2e_write_project(pytester)
    rankings = {q: d for q, d in E2E_RANKINGS["dense"].items() if q != "share-price"}
    _trec(pytester.path / "dense.run", {"dense": rankings})
    result = e2e_run(
        pytester,
        "--retrieval-eval",
        "--retrieval-replay=dense.run",
        "--retrieval-report=t.json",
        *xdist,
    )
    result.assert_outcomes(passed=7)
    share = e2e_load_json(pytester.path / "t.json")["configurations"]["dense"]["queries"][
        "share-price"
    ]
    assert share["retrieved"] == [] and share["outcome"] == "passed"
    text = " ".join(result.stdout.str().split())
    assert (
        "replay 'dense': 1 golden query has no ranking in dense.run, scored as returning "
        "nothing (a TREC run has no line for a query that returned nothing; if it did return "
        "results, check the run's query ids): share-price"
    ) in text
    # a query with nothing to find, which a run that found nothing leaves out: no alarm
    assert (
        "replay 'dense': 1 of the queries with nothing to find is not in dense.run: scored "
        "as returning nothing, which retrieval_empty = abstain scores 1.0 (a run that found "
        "nothing leaves them out; trec_eval leaves such a query out of its means, or scores "
        "it 0 with -c, as retrieval_empty = zero does): teleport-ticket"
    ) in text


def test_a_trec_run_whose_order_its_scores_do_not_keep_is_named(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run with one score for all (or distances, rising): trec_eval ranks by score, then
    docno; the replay does so too and says which queries it reordered (a note that fits
    the terminal)."""
    monkeypatch.setenv("COLUMNS", "80")
    e2e_write_project(pytester)
    _trec(pytester.path / "dense.run", {"dense": E2E_RANKINGS["dense"]})
    text = " ".join(e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=dense.run")
                    .stdout.str().split())  # fmt: skip
    assert "listed in another order than the scores give" not in text  # falling: kept
    lines = (pytester.path / "dense.run").read_text().splitlines()
    flat = [" ".join([*line.split()[:4], "1.0", line.split()[5]]) for line in lines]
    (pytester.path / "dense.run").write_text("\n".join(flat) + "\n")
    text = " ".join(e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=dense.run")
                    .stdout.str().split())  # fmt: skip
    assert "of dense.run are listed in another order than the scores give (tied or rising " in (
        text
    )
    assert "by score descending, then docno descending (the rank column is not used)" in text
    out = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=dense.run").stdout.lines
    section = out[next(i for i, x in enumerate(out) if "retrieval evaluation" in x) :]
    assert max(len(x) for x in section if " " in x.strip()) <= 80
    quiet = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=dense.run", "-q")
    text = " ".join(quiet.stdout.str().split())
    assert "of dense.run are ranked by their scores, not in the file's order (tied or " in text
    assert "by score descending" not in text  # -q: the why is left to a run without it
    notes = [x for x in quiet.stdout.lines if "dense.run are ranked" in x]
    assert len(notes) == 1


def test_every_bad_run_file_is_named_not_only_the_first(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    (pytester.path / "one.run").write_text("q1 Q0 a 1 high t\n")
    (pytester.path / "two.run").write_text("q1 Q0 a 1 0.5\n")
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-replay=one.run", "--retrieval-replay=two.run"
    )
    text = e2e_unwrapped(result.stderr.str()) + result.stdout.str()
    assert "one.run:1: query 'q1': score 'high' of 'a' is not a finite number" in text
    assert "two.run:1: expected 6 fields" in text
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_a_run_without_the_q0_column_is_three_lines_and_the_fix(
    pytester: pytest.Pytester,
) -> None:
    """A run written 'qid docno rank score tag' printed a problem for each of its first 50
    lines, each saying 'ids and tags cannot hold spaces', then a count."""
    e2e_write_project(pytester)
    lines = [f"q{q} d{d} {d} {10 - d} bm25" for q in range(1, 5) for d in range(1, 6)]
    (pytester.path / "five.run").write_text("\n".join(lines) + "\n")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=five.run")
    text = e2e_unwrapped(result.stderr.str()) + result.stdout.str()
    assert "five.run:3: expected 6 fields" in text
    assert "five.run:4:" not in text
    assert "add the Q0 column trec_eval ignores to every line" in text
    assert "cannot hold spaces" not in text
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_a_qrels_file_given_to_replay_is_named_with_the_import(
    pytester: pytest.Pytester,
) -> None:
    """qrels.txt given as a run printed an 'expected 6 fields, got 4' problem for each of
    its first 50 lines, each saying 'ids and tags cannot hold spaces'."""
    e2e_write_project(pytester)
    (pytester.path / "qrels.txt").write_text("# judged\nq1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=qrels.txt")
    text = e2e_unwrapped(result.stderr.str())
    assert (
        "--retrieval-replay: qrels.txt is a TREC qrels file ('qid iter docno rel' lines), not "
        "a run; replay the runs it judges, and import the judgments as golden queries: "
        "`pytest-retrieval import trec qrels.txt -o golden/qrels.jsonl`"
    ) in text
    assert "expected 6 fields" not in text
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_a_trec_run_whose_ids_match_no_golden_query_says_so(pytester: pytest.Pytester) -> None:
    """A run written with other query ids replays as all-empty rankings: the summary says
    which golden queries it lacks and which of its queries are not golden."""
    e2e_write_project(pytester)
    renamed = {f"q-{q}": d for q, d in E2E_RANKINGS["dense"].items()}
    _trec(pytester.path / "dense.run", {"dense": renamed})
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=dense.run")
    text = " ".join(result.stdout.str().split())
    assert "replay 'dense': 6 golden queries have no ranking in dense.run" in text
    assert "replay 'dense': 6 queries of dense.run are not among the golden queries" in text
    assert "collected, ignored: q-" in text


def test_run_files_named_alike_in_two_folders_are_refused_not_one_lost(
    pytester: pytest.Pytester,
) -> None:
    """The same tag in a.run and b/a.run would make two configurations named 'a-dense':
    one file's results replaced the other's without a word."""
    e2e_write_project(pytester)
    (pytester.path / "b").mkdir()
    _trec(pytester.path / "a.run", {"dense": E2E_RANKINGS["dense"]})
    _trec(pytester.path / "b" / "a.run", {"dense": {"rain-tomorrow": ["nothing"]}})
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=a.run",
                     "--retrieval-replay=b/a.run")  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "--retrieval-replay: a.run and b/a.run would both give the configuration 'a-dense' "
        "(run tag 'dense'); rename one of the files"
    ) in e2e_unwrapped(result.stderr.str())


def test_each_run_files_notes_name_that_file_and_only_selected_configurations(
    pytester: pytest.Pytester,
) -> None:
    """The same tag in two files: two configurations (file stem, tag), each note naming its
    own file; a configuration deselected with -k gets no note."""
    e2e_write_project(pytester)
    queries = sorted(E2E_RANKINGS["dense"])
    first = {q: E2E_RANKINGS["dense"][q] for q in queries[:3]}
    second = {q: E2E_RANKINGS["dense"][q] for q in queries[3:]}
    _trec(pytester.path / "s1.run", {"dense": {**first, "extra-1": ["d1"]}})
    _trec(pytester.path / "s2.run", {"dense": second})
    both = ("--retrieval-eval", "--retrieval-replay=s1.run", "--retrieval-replay=s2.run")
    text = " ".join(e2e_run(pytester, *both).stdout.str().split())
    for name, ranked in (("s1", second), ("s2", first)):  # and queries neither file ranks
        lacks = [q for q in ranked if q != "teleport-ticket"]  # nothing to find: a note apart
        said = text.split(f"replay '{name}-dense': ", 1)[1].split(" golden queries have no", 1)
        assert said[1].startswith(f" ranking in {name}.run, scored as returning nothing")
        assert int(said[0]) >= len(lacks)
        assert all(q in said[1].split(" replay ", 1)[0] for q in sorted(lacks)[:3])
    assert "replay 's1-dense': 1 query of s1.run is not among the golden queries" in text
    assert "s1.run, s2.run" not in text
    text = " ".join(e2e_run(pytester, *both, "-k", "s2").stdout.str().split())
    assert "replay 's2-dense'" in text and "replay 's1-dense'" not in text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--retrieval-replay=nope.jsonl",), "--retrieval-replay: no such file: nope.jsonl"),
        (  # a CI job's typo: the file it meant is beside it
            ("--retrieval-replay=rec.json",),
            "--retrieval-replay: no such file: rec.json (did you mean 'rec.jsonl'?)",
        ),
        (
            ("--retrieval-replay=rec.jsonl", "--retrieval-record=rec.jsonl"),
            "--retrieval-record rec.jsonl is the file being replayed: write it to another file",
        ),
        (("--retrieval-replay=garbage.run",), "--retrieval-replay: cannot read it:"),
        (("--retrieval-replay=runs",), "--retrieval-replay: runs is a folder; give the run files"),
        (  # what <(zcat run.gz) gives: it exists, so "no such file" would mislead
            ("--retrieval-replay=piped.run",),
            "--retrieval-replay: piped.run is a pipe or a device, not a file; save what it gives "
            "to a file and replay that",
        ),
        (
            ("--retrieval-replay=rec.jsonl", "--retrieval-replay=./rec.jsonl"),
            "--retrieval-replay: ./rec.jsonl is given twice (also as rec.jsonl); give each file",
        ),
        (
            ("--retrieval-replay=a.json",),
            "--retrieval-replay: a.json is a pytest-retrieval JSON report (written by "
            "--retrieval-report), not a recording or a TREC run; record a run with "
            "--retrieval-record=PATH and replay that file",
        ),
        (
            ("--retrieval-replay=headless.jsonl",),
            "--retrieval-replay: headless.jsonl is a recording without its first (header) line, "
            "not a recording or a TREC run",
        ),
        (  # said it held no results, and no more (not how it came to, nor the fix)
            ("--retrieval-replay=header-only.jsonl",),
            "--retrieval-replay: the recording header-only.jsonl holds no results (a run "
            "writes a recording only once it has evaluated a query: this one was cut short "
            "or edited); record again (--retrieval-record)",
        ),
        (  # was read as a TREC run: "the file holds no results; a run line is 'qid Q0 ..."
            ("--retrieval-replay=emptied.jsonl",),
            "--retrieval-replay: emptied.jsonl is a blank file (a recording's first line is "
            "its header: was it emptied?), not a recording or a TREC run; record a run with "
            "--retrieval-record=PATH and replay that file",
        ),
        (  # was read as a TREC run: an 'expected 6 fields' problem for every line
            ("--retrieval-replay=notes.jsonl",),
            "--retrieval-replay: notes.jsonl is a plain text file (its lines are not JSON, nor "
            "a run's six fields), not a recording or a TREC run; record a run with "
            "--retrieval-record=PATH and replay that file",
        ),
        (  # a recording gzipped under its own name (an artifact store that compresses):
            # was "a plain text file (its lines are not JSON ...)", and gunzip -k refuses a
            # name without .gz
            ("--retrieval-replay=zipped.jsonl",),
            "zipped.jsonl:1: the file is gzip-compressed: decompress it first (gzip -dc "
            "zipped.jsonl > zipped.plain.jsonl) and give the plain file",
        ),
        (
            ("--retrieval-replay=other.json",),
            "--retrieval-replay: other.json is a JSON file, not a recording or a TREC run",
        ),
        (  # was read as a TREC run: a 'expected 6 fields' problem for every line
            ("--retrieval-replay=golden/catalog.yaml",),
            "--retrieval-replay: golden/catalog.yaml is a golden file, not a recording or a "
            "TREC run",
        ),
        (
            ("--retrieval-replay=worklist.yaml",),
            "--retrieval-replay: worklist.yaml is a pytest-retrieval worklist (written by "
            "pytest-retrieval pool), not a recording or a TREC run",
        ),
    ],
)
def test_replay_refuses_what_it_cannot_use(
    pytester: pytest.Pytester, recorded: Any, args: tuple[str, ...], says: str
) -> None:
    lines = (pytester.path / "rec.jsonl").read_text().splitlines(keepends=True)
    (pytester.path / "headless.jsonl").write_text("".join(lines[1:]))
    (pytester.path / "header-only.jsonl").write_text(lines[0])
    (pytester.path / "other.json").write_text('{"results": {"q1": ["d1"]}}\n')
    (pytester.path / "emptied.jsonl").write_text("\n")
    (pytester.path / "notes.jsonl").write_text("hello world\nthis is text\n")
    (pytester.path / "zipped.jsonl").write_bytes(gzip.compress("".join(lines).encode()))
    (pytester.path / "garbage.run").write_text("this is not a run\n")
    (pytester.path / "worklist.yaml").write_text(
        "format: pytest-retrieval-worklist\nversion: 1\nqueries: []\n"
    )
    (pytester.path / "runs").mkdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(pytester.path / "piped.run")
    result = e2e_run(pytester, "--retrieval-eval", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in e2e_unwrapped(result.stderr.str())


WORKERS_SAY = """

def pytest_configure(config):
    import os
    shared = getattr(config, "workerinput", {}).get("retrieval_replay_shared")
    if hasattr(config, "workerinput"):
        there = shared and os.path.exists(shared)
        Path(f"worker-{os.getpid()}.txt").write_text(f"{shared} {there}")
"""

NOT_SHARED = """

@pytest.hookimpl(trylast=True)
def pytest_configure_node(node):
    node.workerinput["retrieval_replay_shared"] = "/nonexistent/replay.pickle"
"""


NOT_WRITTEN = """

import pytest_retrieval.plugin.replaying as replaying


def _no_room(replay, path):
    raise OSError(28, "No space left on device")


replaying.write_shared = _no_room
"""


@pytest.mark.parametrize("handed", ["shared", "not reachable", "not written"])
def test_replay_under_xdist(
    pytester: pytest.Pytester, recorded: Any, monkeypatch: pytest.MonkeyPatch, handed: str
) -> None:
    """Workers get what the controller read (or read the files when they cannot open it);
    the numbers are the recording's either way."""
    pytest.importorskip("xdist")
    conftest = pytester.path / "conftest.py"
    extra = WORKERS_SAY + {"not reachable": NOT_SHARED, "not written": NOT_WRITTEN}.get(handed, "")
    conftest.write_text("from pathlib import Path\n" + conftest.read_text() + extra)
    monkeypatch.setenv("NO_SERVICE", "1")  # the fixture cannot be built: nothing is called
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "--retrieval-replay=rec.jsonl", "-n", "2", "--retrieval-report=x.json",
        "-p", "no:randomly", timeout=120,
    )  # fmt: skip
    result.assert_outcomes(passed=14)
    replayed = e2e_without_latency(e2e_load_json(pytester.path / "x.json"))
    assert replayed["configurations"] == recorded["configurations"]
    said = sorted(p.read_text() for p in pytester.path.glob("worker-*.txt"))
    assert len(said) == 2
    for line in said:
        path, existed = line.split()
        if handed == "shared":
            assert existed == "True" and path.endswith("replay.pickle")
            assert not Path(path).exists(), "the controller's folder outlived the run"
        elif handed == "not reachable":
            assert (path, existed) == ("/nonexistent/replay.pickle", "False")
        else:  # no worker is told: each reads the files
            assert (path, existed) == ("None", "None")


ODD_FILTERS_GOLDEN = """\
queries:
  - id: dated
    query: rain
    relevant: {d1: 2}
    filters: {when: 2024-01-01, blob: !!binary aGk=, kinds: !!set {a, b}, above: -.inf, x: .nan}
  - {id: plain, query: sun, relevant: {d2: 1}, filters: {network: base}}
"""


def test_filters_json_has_no_value_for_are_recorded_and_replayed(
    pytester: pytest.Pytester,
) -> None:
    """A date, binary data, a set, NaN or infinity in filters (handed to the retriever as
    YAML reads them): recording raised a traceback through the plugin (NaN), and the replay
    called every other such query stale ('other filters')."""
    pytester.makeini("[pytest]\n")
    pytester.mkdir("golden")
    (pytester.path / "golden" / "g.yaml").write_text(ODD_FILTERS_GOLDEN, encoding="utf-8")
    pytester.makeconftest(
        "import pytest\n\n"
        "@pytest.fixture(scope='session', params=['bm25'])\n"
        "def retriever(request):\n"
        "    return lambda query: ['d1', 'd2']\n"
    )
    recorded = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl")
    assert recorded.ret == pytest.ExitCode.OK, recorded.stdout.str()
    replayed = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=rec.jsonl")
    assert replayed.ret == pytest.ExitCode.OK, replayed.stdout.str()


SLOW_SHARE_PRICE = """
import time
import pytest

@pytest.fixture
def retriever():
    def search(query):
        if query.id == "share-price":
            time.sleep(0.4)  # past retrieval_timeout: an error whose latency is real
        return ["x"]
    return search
"""


def test_a_replayed_timeout_counts_in_the_latency_and_its_budget_as_it_did_live(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester, conftest=SLOW_SHARE_PRICE)
    budget = "--retrieval-latency-budget=max=50ms"
    live = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-timeout=0.1", budget,
        "--retrieval-record=rec.jsonl", "--retrieval-report=a.json",
    )  # fmt: skip
    replayed = e2e_run(
        pytester, "--retrieval-eval", budget, "--retrieval-replay=rec.jsonl",
        "--retrieval-report=b.json",
    )  # fmt: skip
    a, b = (e2e_load_json(pytester.path / name) for name in ("a.json", "b.json"))
    assert a["configurations"]["default"]["latency"]["max_ms"] >= 100
    assert b["configurations"]["default"]["latency"] == a["configurations"]["default"]["latency"]
    for result, report in ((live, a), (replayed, b)):
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert report["gate"]["verdict"] == "failed"
        (breach,) = report["gate"]["latency_budget"]
        assert "share-price" in json.dumps(breach)


def test_the_update_command_a_replayed_run_suggests_replays_it_again(
    pytester: pytest.Pytester, recorded: Any
) -> None:
    """Without --retrieval-replay the suggested command would call the live retrievers
    (in CI: none, or a fixture that cannot be built)."""
    result, _ = _replay(pytester, "--retrieval-baseline=golden/none.json")
    text = " ".join(result.stdout.str().split())
    assert (
        "no baseline at golden/none.json: run `pytest --retrieval-eval "
        "--retrieval-update-baseline --retrieval-baseline=golden/none.json "
        "--retrieval-replay=rec.jsonl` to create one"
    ) in text
    # the command as printed writes the baseline without any retriever
    again = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-update-baseline",
        "--retrieval-baseline=golden/none.json", "--retrieval-replay=rec.jsonl",
    )  # fmt: skip
    assert again.ret == pytest.ExitCode.OK and (pytester.path / "golden/none.json").exists()


def test_a_query_edited_since_a_recording_is_not_sent_round_an_update_that_cannot_write_it(
    pytester: pytest.Pytester, recorded: Any
) -> None:
    """The gate said to re-baseline a changed query; the update, replaying, kept its old
    entry (it errored: the recording holds the old text), and the gate said it again."""
    base = e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline")
    assert base.ret == pytest.ExitCode.OK
    catalog = pytester.path / "golden" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("convert euros to dollars", "euros in dollars"))
    result, _ = _replay(pytester)
    text = " ".join(result.stdout.str().split())
    assert (
        "text or judgments changed since the baseline (left out of the comparison): convert-euros"
    ) in text, text
    assert (
        "of those, errored in this run, so an update keeps their old entries until they answer "
        "(a recording made before the edit holds the old text: record it again): convert-euros"
    ) in text
    assert "to re-baseline them" not in text


def test_the_update_command_quotes_what_a_shell_would_split() -> None:
    from pytest_retrieval.baseline import update_hint

    assert update_hint("golden/baseline.json") == (
        "pytest --retrieval-eval --retrieval-update-baseline"
    )
    assert update_hint("my runs/b.json", ("runs/a b.trec", "x.trec")) == (
        "pytest --retrieval-eval --retrieval-update-baseline "
        "--retrieval-baseline='my runs/b.json' --retrieval-replay='runs/a b.trec' "
        "--retrieval-replay=x.trec"
    )


def test_a_set_in_filters_is_recorded_alike_in_every_process() -> None:
    """A set's text followed the process's string hashing: replayed in another process
    (another PYTHONHASHSEED), a query with ``!!set`` filters was called stale about
    every other time ('other filters')."""
    import subprocess
    import sys

    code = (
        "import json; from pytest_retrieval.io.recording import filters_as_recorded; "
        "print(json.dumps(filters_as_recorded("
        "{'kinds': {'alpha', 'beta', 'gamma', 'delta'}, 'in': [frozenset({3, 1, 2})]})))"
    )
    texts = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in range(6)
    }  # fmt: skip
    assert len(texts) == 1, texts


BROKEN_FIXTURE = """\
import os

import pytest


@pytest.fixture(scope="session", params=["bm25", "dense"])
def retriever(request):
    if request.param == "dense":
        raise RuntimeError("dense index not built")
    if os.environ.get("CRASH"):
        os._exit(1)  # the worker dies without a word
    return lambda query: ["weather-forecast"]
"""


def _recorded_errors(path: Path) -> dict[tuple[str, str], str | None]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {(e["configuration"], e["id"]): e["error"] for e in lines[1:-1]}


def test_queries_whose_fixture_failed_are_recorded_as_the_errors_they_were(
    pytester: pytest.Pytester,
) -> None:
    """The recording left out every query whose item stopped before scoring (its
    retriever fixture raised in setup): the run showed a configuration of errors, and
    its replay showed no such configuration, every item passing."""
    e2e_write_project(pytester, conftest=BROKEN_FIXTURE)
    live = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl")
    live.assert_outcomes(passed=7, errors=7)
    recorded = _recorded_errors(pytester.path / "rec.jsonl")
    dense = {q: e for (c, q), e in recorded.items() if c == "dense"}
    assert len(dense) == 7
    assert set(dense.values()) == {"setup failed: RuntimeError: dense index not built"}
    replayed = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=rec.jsonl")
    replayed.assert_outcomes(passed=7, failed=7)


def test_queries_of_a_crashed_worker_are_recorded_as_errors(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard whose worker crashed counts its queries as errors, but the recording left
    them out, and said nothing: its replay called them 'not in the recording'."""
    pytest.importorskip("xdist")
    e2e_write_project(pytester, conftest=BROKEN_FIXTURE.replace('"dense"', '"never"'))
    monkeypatch.setenv("CRASH", "1")
    pytester.runpytest_subprocess(
        "--retrieval-eval", "-n", "2", "-p", "no:cacheprovider", "--retrieval-record=rec.jsonl",
        "--retrieval-items=category", timeout=120,
    )  # fmt: skip
    recorded = _recorded_errors(pytester.path / "rec.jsonl")
    assert len(recorded) == 14
    crashed = {q: e for (c, q), e in recorded.items() if c == "bm25"}
    assert len(crashed) == 7
    assert all("its xdist worker crashed or was lost" in (e or "") for e in crashed.values())


@pytest.mark.parametrize("tag", ["café", "run\\1"])
def test_a_run_tag_pytest_escapes_in_item_ids_replays_its_rankings(
    pytester: pytest.Pytester, tag: str
) -> None:
    """pytest writes a parameter id's non-ASCII characters and backslashes as escapes
    ('caf\\xe9', 'run\\\\1'), and the configuration was read from that id: it named no
    configuration of the run, so every query was replayed as returning nothing,
    scoring 0 without a word."""
    e2e_write_project(pytester)
    _trec(pytester.path / "t.run", {tag: E2E_RANKINGS["bm25"]})
    _trec(pytester.path / "b.run", {"bm25": E2E_RANKINGS["bm25"]})
    e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=b.run", "--retrieval-report=b.json")
    expected = e2e_without_latency(e2e_load_json(pytester.path / "b.json"))["configurations"]
    e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=t.run", "--retrieval-report=t.json")
    replayed = e2e_without_latency(e2e_load_json(pytester.path / "t.json"))["configurations"]
    assert list(replayed) == [tag]
    assert replayed[tag]["summary"] == expected["bm25"]["summary"]


def test_a_recorded_configuration_pytest_escapes_replays_under_its_own_name(
    pytester: pytest.Pytester,
) -> None:
    """A configuration named 'é' runs as pytest's id '\\xe9' and is recorded so; its
    replay made that id '\\\\xe9', which the recording does not hold: every query an
    error."""
    e2e_write_project(pytester)
    conftest = pytester.path / "conftest.py"
    conftest.write_text(
        conftest.read_text()
        .replace('params=["bm25", "dense"]', 'params=["bm25"], ids=["é"]')
        .replace("_shape(request.param,", '_shape("bm25",')
        .replace("RANKINGS[request.param]", 'RANKINGS["bm25"]')
    )
    live = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "--retrieval-report=a.json"
    )
    expected = e2e_without_latency(e2e_load_json(pytester.path / "a.json"))["configurations"]
    replayed = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-replay=rec.jsonl", "--retrieval-report=b.json"
    )
    assert replayed.ret == live.ret, replayed.stdout.str()
    mine = e2e_without_latency(e2e_load_json(pytester.path / "b.json"))["configurations"]
    assert mine == expected


@pytest.mark.parametrize("args", [["-k", "no-such-query"], ["-m", "no_such_mark"]])
def test_a_run_that_evaluates_nothing_leaves_the_recording_as_it_was(
    pytester: pytest.Pytester, args: list[str]
) -> None:
    """A -k that selects nothing (exit 5) replaced a good recording with one holding no
    result, marked complete, which a replay then refuses."""
    e2e_write_project(pytester)
    assert e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl").ret == 0
    before = (pytester.path / "rec.jsonl").read_bytes()
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", *args)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert (pytester.path / "rec.jsonl").read_bytes() == before
    assert "retrieval recording not written: no query was evaluated" in result.stdout.str()
    assert not list(pytester.path.glob(".rec.jsonl.*"))


def test_a_gate_breached_by_queries_the_recording_lacks_says_to_record_them_first(
    pytester: pytest.Pytester,
) -> None:
    """An update writes no errored query (it keeps the previous entry), so the gate would
    fail on it again: the advice says so, and to fix or record it first, not that an
    update would record its 0s."""
    e2e_write_project(pytester)
    assert e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline").ret == 0
    e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "-k", "not share")
    result, _ = _replay(pytester)
    text = " ".join(result.stdout.str().split())
    assert "retrieval gate: FAILED" in text, text
    assert (
        "named above errored (share-price): an update keeps their previous entries, so the "
        "gate fails on them again until they answer; fix them first (for a stale recording: "
        "record again); then, if the other drops are intended"
    ) in text
    updated, _ = _replay(pytester, "--retrieval-update-baseline")
    assert "previous entries kept): bm25/share-price" in " ".join(updated.stdout.str().split())
    again, _ = _replay(pytester)
    assert "named above errored (share-price)" in " ".join(again.stdout.str().split())


SURROGATE_CONFTEST = """
import pytest

class Index:
    metadata = {"index": "/data/v\\udcff.idx"}  # a file name os.listdir decoded (byte 0xff)

    def __call__(self, query):
        if query.id == "broken":
            raise FileNotFoundError("no such index: /data/v\\udcff.idx")
        return ["d\\udcff", "d1"]  # an id decoded with surrogateescape

@pytest.fixture(scope="session", params=["bm25"])
def retriever(request):
    return Index()
"""


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_lone_surrogates_in_ids_errors_and_metadata_record_and_replay(
    pytester: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    """Text decoded with surrogateescape (a file name's byte 0xff is \\udcff) in a result
    id, a retriever's error and its metadata was an INTERNALERROR (UTF-8 refuses a lone
    surrogate): writing the recording and the JSON report, and under xdist sending the
    item's report to the controller (the worker crashed, the query lost). Now each is
    written as its JSON escape, the same text to a JSON reader, and replays alike."""
    if xdist:
        pytest.importorskip("xdist")
    pytester.makeconftest(SURROGATE_CONFTEST)
    _two_queries(pytester, "found", "broken")
    common = ("--retrieval-eval", "-p", "no:cacheprovider", *xdist)
    live = e2e_run(pytester, *common, "--retrieval-record=rec.jsonl", "--retrieval-report=a.json")
    assert "INTERNALERROR" not in live.stdout.str() + live.stderr.str()
    live.assert_outcomes(passed=1, failed=1)
    assert "crashed" not in live.stdout.str()
    recording = (pytester.path / "rec.jsonl").read_text(encoding="utf-8")
    assert '["d\\udcff", null]' in recording and "v\\udcff.idx" in recording
    before = e2e_without_latency(e2e_load_json(pytester.path / "a.json"))
    found = before["configurations"]["bm25"]["queries"]["found"]
    assert found["retrieved"] == ["d\udcff", "d1"] and found["metrics"]["mrr"] == 0.5
    assert "v\udcff.idx" in before["configurations"]["bm25"]["queries"]["broken"]["error"]
    replayed, after = _replay(pytester, *xdist)
    assert "INTERNALERROR" not in replayed.stdout.str() + replayed.stderr.str()
    replayed.assert_outcomes(passed=1, failed=1)
    assert after["configurations"]["bm25"]["queries"]["found"] == found
    assert after["configurations"]["bm25"]["retriever"] == {"index": "/data/v\udcff.idx"}


BATCH_WITH_A_BAD_ANSWER = """
import pytest

class Batch:
    def retrieve_batch(self, queries):
        return [["d1", ""] if q.id == "bad" else ["d1"] for q in queries]

@pytest.fixture(scope="session", params=["batch"])
def retriever(request):
    return Batch()
"""


def test_a_batch_querys_error_replays_with_its_latency_marked_as_a_batch_share(
    pytester: pytest.Pytester,
) -> None:
    """A query of a batch that errored (an empty id in its answer) has its share of the
    batch's time, marked latency_shared live; replayed it was marked false (the recording
    holds "shared": true), so the replay's report told it apart from the live one."""
    pytester.makeconftest(BATCH_WITH_A_BAD_ANSWER)
    _two_queries(pytester, "good", "bad")
    e2e_run(
        pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "--retrieval-report=a.json"
    )
    live = e2e_load_json(pytester.path / "a.json")["configurations"]["batch"]["queries"]
    assert live["bad"]["outcome"] == "error" and live["bad"]["latency_shared"] is True
    _replay(pytester)  # the report it gives has no latencies: read the file whole
    replayed = e2e_load_json(pytester.path / "b.json")["configurations"]["batch"]["queries"]
    for query in ("good", "bad"):
        assert replayed[query]["latency_ms"] == live[query]["latency_ms"]
        assert replayed[query]["latency_shared"] is live[query]["latency_shared"] is True


def test_a_replay_recorded_again_keeps_each_error_as_it_was_recorded(
    pytester: pytest.Pytester,
) -> None:
    """A replay recorded again (--retrieval-replay A --retrieval-record B) wrote each
    error with the replay's 'recorded: ' before it, so each generation added one more
    ('recorded: recorded: the retriever raised ...')."""
    pytester.makeconftest(BATCH_WITH_A_BAD_ANSWER)
    _two_queries(pytester, "good", "bad")
    e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl")
    again = ("--retrieval-eval", "--retrieval-replay=rec.jsonl", "--retrieval-record=again.jsonl")
    e2e_run(pytester, *again).assert_outcomes(passed=1, failed=1)
    first, second = (
        (pytester.path / name).read_text(encoding="utf-8").splitlines()
        for name in ("rec.jsonl", "again.jsonl")
    )
    assert first == second  # the same lines: latencies, errors and all
    (bad,) = [json.loads(line) for line in second if '"id": "bad"' in line]
    assert bad["error"].startswith("result at rank 2 has an empty id")


def test_a_trec_run_query_id_in_other_letter_case_is_named_as_the_golden_one(
    pytester: pytest.Pytester,
) -> None:
    """Query ids written in other letter case (SHARE-PRICE for share-price) were named
    among the ignored ones, and the golden ones among those with no ranking, apart: the
    note now says which golden query each one is."""
    e2e_write_project(pytester)
    rankings = {q.upper() if q == "share-price" else q: d for q, d in E2E_RANKINGS["dense"].items()}
    _trec(pytester.path / "dense.run", {"dense": rankings})
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-replay=dense.run")
    assert (
        "replay 'dense': 1 query of dense.run is not among the golden queries collected, "
        "ignored: SHARE-PRICE; of these, SHARE-PRICE is share-price in other letter case or "
        "Unicode form: query ids match exactly, so write the run's query ids as the golden "
        "files do"
    ) in " ".join(result.stdout.str().split())


ONE_CONFIGURATION = """
import pytest

@pytest.fixture
def retriever():
    return lambda query: ["doc-1", "doc-2"]
"""


@pytest.mark.parametrize("items", ["query", "shard:3"])
def test_a_retriever_without_params_replays_under_the_node_ids_it_ran_under(
    pytester: pytest.Pytester, items: str
) -> None:
    """Replayed, its items were `catalog.yaml::q1[default]` where the live run had
    `catalog.yaml::q1`: CI's test history, --deselect and --lf did not carry over."""
    e2e_write_project(pytester, conftest=ONE_CONFIGURATION)
    option = f"--retrieval-items={items}"
    live = e2e_run(pytester, "--retrieval-eval", option, "--retrieval-record=rec.jsonl", "-v")
    replayed = e2e_run(pytester, "--retrieval-eval", option, "--retrieval-replay=rec.jsonl", "-v")
    ids = [
        sorted(
            line.split()[0] for line in run.outlines if line.startswith("golden/") and " " in line
        )
        for run in (live, replayed)
    ]
    assert ids[0] and ids[0] == ids[1]
    assert not any("[" in node for node in ids[1])
    outcomes = [
        {k: v for k, v in r.parseoutcomes().items() if "warning" not in k} for r in (live, replayed)
    ]
    assert outcomes[0] == outcomes[1] and sum(outcomes[0].values()) == len(ids[0])


@pytest.mark.parametrize(
    ("recorded", "now"),
    [({"in_stock": 1}, {"in_stock": True}), ({"n": 1}, {"n": 1.0}), ({"a": [0]}, {"a": [False]})],
)
def test_filters_equal_only_to_python_are_other_filters(
    recorded: dict[str, object], now: dict[str, object]
) -> None:
    """`in_stock: true` in the golden file replayed a recording made with `in_stock: 1`
    as if the filters were the same (Python has True == 1): a retriever may not."""
    from pytest_retrieval.golden import GoldenQuery
    from pytest_retrieval.io.recording import Recorded
    from pytest_retrieval.replay import _stale

    query = GoldenQuery(id="q", text="t", relevant={"d": 1}, filters=now)
    assert _stale(Recorded("c", "q", "t", filters=recorded), query).startswith("other filters")
    assert _stale(Recorded("c", "q", "t", filters=dict(now)), query) == ""
