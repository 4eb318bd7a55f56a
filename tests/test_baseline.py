"""Unit tests of the baseline: how an update merges, and the file's format, in memory."""

from __future__ import annotations

import dataclasses
import json

import pytest

from pytest_retrieval.baseline import Baseline, BaselineError, RunFacts, merge_update
from pytest_retrieval.io.baseline_file import dumps, parse_baseline
from pytest_retrieval.metrics import parse_metrics
from pytest_retrieval.model import BASELINE_FIELDS, QueryRecord, Results
from pytest_retrieval.settings import Settings

SETTINGS = Settings()
PROVENANCE = {"created": "2026-12-01T00:00:00+00:00", "plugin": "pytest-retrieval 0", "git": None}


def record(
    qid: str,
    configuration: str = "fused",
    value: float = 1.0,
    *,
    path: str = "golden/a.yaml",
    outcome: str = "passed",
    category: str = "lexical",
) -> QueryRecord:
    metrics = {m: value for m in SETTINGS.metric_names}
    return QueryRecord(
        id=qid,
        configuration=configuration,
        category=category,
        path=path,
        outcome=outcome,  # type: ignore[arg-type]
        metrics=metrics,  # type: ignore[arg-type]
        retrieved=[f"{qid}-main"],
        grades={f"{qid}-main": 3},
        fingerprint=f"fp-{qid}",
        duplicates=2,
        violations=["expected mrr >= 1"] if outcome == "failed" else [],
    )


def record_with(qid: str, settings: Settings, value: float) -> QueryRecord:
    """A record of the metrics ``settings`` compute, each ``value``."""
    metrics = {m: value for m in settings.metric_names}
    return dataclasses.replace(record(qid), metrics=metrics)  # type: ignore[arg-type]


def results_of(*records: QueryRecord) -> Results:
    results = Results()
    for r in records:
        results.add(r)
    return results


def previous(*records: QueryRecord) -> Baseline:
    configurations: dict[str, dict[str, QueryRecord]] = {}
    for r in records:
        configurations.setdefault(r.configuration, {})[r.id] = r
    return Baseline(SETTINGS.as_dict(), configurations, {"created": "old"})


def facts(golden: dict[str, str], existing: set[str]) -> RunFacts:
    return RunFacts(golden_ids=golden, existing_files=frozenset(existing))


def test_a_first_update_writes_every_evaluated_query() -> None:
    run = results_of(record("a"), record("b", outcome="failed"), record("c", outcome="skipped"))
    done = merge_update(None, run, SETTINGS, facts({"a": "golden/a.yaml"}, set()), PROVENANCE)
    assert done.updated == {"fused": 2}
    assert done.kept == {} and done.dropped == [] and done.reset == [] and done.errored == []
    assert list(done.baseline.configurations["fused"]) == ["a", "b"]  # skipped: not written
    assert done.baseline.provenance == PROVENANCE
    assert done.baseline.settings == SETTINGS.as_dict()


def test_an_update_over_a_subset_replaces_those_and_keeps_the_rest() -> None:
    old = previous(record("a", value=0.5), record("b", value=0.5), record("a", "bm25"))
    golden = {"a": "golden/a.yaml", "b": "golden/a.yaml"}
    done = merge_update(old, results_of(record("a")), SETTINGS, facts(golden, set()), PROVENANCE)
    assert done.updated == {"fused": 1}
    assert done.kept == {"fused": 1, "bm25": 1}
    assert done.baseline.configurations["fused"]["a"].metrics["mrr"] == 1.0
    assert done.baseline.configurations["fused"]["b"].metrics["mrr"] == 0.5


def test_an_update_says_which_means_it_moves_the_largest_drop_first() -> None:
    # an update does not gate: its reviewer sees what it accepts
    old = previous(record("a", value=0.5), record("b", value=1.0), record("a", "bm25", 0.5))
    golden = {"a": "golden/a.yaml", "b": "golden/a.yaml"}
    run = results_of(record("a", value=0.0), record("a", "bm25", value=0.5002))
    done = merge_update(old, run, SETTINGS, facts(golden, set()), PROVENANCE)
    assert [m.text() for m in done.moved] == [
        f"fused {name} 0.750 -> 0.500 (-0.250)" for name in sorted(SETTINGS.metric_names)
    ]  # bm25 moved by 0.0002: not a move
    assert merge_update(None, run, SETTINGS, facts(golden, set()), PROVENANCE).moved == []


def test_an_errored_query_keeps_its_previous_entry_and_is_named() -> None:
    old = previous(record("a", value=0.75))
    golden = {"a": "golden/a.yaml"}
    run = results_of(record("a", value=0.0, outcome="error"))
    done = merge_update(old, run, SETTINGS, facts(golden, {"golden/a.yaml"}), PROVENANCE)
    assert done.errored == ["fused/a"]
    assert done.updated == {}
    assert done.baseline.configurations["fused"]["a"].metrics["mrr"] == 0.75


def test_queries_no_longer_in_their_file_or_whose_file_is_gone_are_dropped() -> None:
    old = previous(
        record("kept"),
        record("removed"),  # its file was collected without it
        record("elsewhere", path="golden/b.yaml"),  # its file exists, was not collected
        record("orphan", path="golden/gone.yaml"),  # its file no longer exists
    )
    golden = {"kept": "golden/a.yaml"}
    existing = {"golden/a.yaml", "golden/b.yaml"}
    done = merge_update(old, results_of(), SETTINGS, facts(golden, existing), PROVENANCE)
    assert done.dropped == ["fused/orphan", "fused/removed"]
    assert sorted(done.baseline.configurations["fused"]) == ["elsewhere", "kept"]


def test_a_configuration_this_run_did_not_collect_is_dropped_unless_the_gate_names_its_own() -> (
    None
):
    old = previous(record("a"), record("a", "bm25"), record("b", "bm25"))
    collected = RunFacts(golden_ids={"a": "golden/a.yaml"}, collected=frozenset({"fused"}))
    done = merge_update(old, results_of(record("a")), SETTINGS, collected, PROVENANCE)
    assert done.gone == {"bm25": 2}
    assert list(done.baseline.configurations) == ["fused"]
    assert done.kept == {} and done.dropped == []
    kept = merge_update(old, results_of(record("a")), SETTINGS, collected, PROVENANCE, True)
    assert kept.gone == {} and sorted(kept.baseline.configurations) == ["bm25", "fused"]
    unknown = facts({"a": "golden/a.yaml"}, set())  # collected configurations unknown
    assert merge_update(old, results_of(record("a")), SETTINGS, unknown, PROVENANCE).gone == {}


def test_a_metric_added_or_dropped_still_shows_the_moves_of_the_metrics_both_have() -> None:
    """After a reset (a metric added to retrieval_metrics) the update said only that the
    previous baseline was replaced: what it accepted on the metrics both have went unseen."""
    old = previous(record("a", value=1.0), record("b", value=1.0))
    old.settings = {**old.settings, "metrics": ["ndcg@10", "mrr", "recall@20"]}
    settings = Settings(metrics=tuple(parse_metrics(["mrr", "map"])))
    golden = {"a": "golden/a.yaml", "b": "golden/a.yaml"}
    run = results_of(record_with("a", settings, 0.5), record_with("b", settings, 1.0))
    done = merge_update(old, run, settings, facts(golden, set()), PROVENANCE)
    assert done.reset and done.metrics_added == ["map"]
    assert done.metrics_dropped == ["ndcg@10", "recall@20"] and done.incomparable == []
    assert [m.text() for m in done.moved] == ["fused mrr 1.000 -> 0.750 (-0.250)"]
    # another gain: the numbers are not comparable, so no move, and the update says why
    old.settings = {**old.settings, "gain": "linear"}
    other = merge_update(old, run, settings, facts(golden, set()), PROVENANCE)
    assert other.moved == [] and other.incomparable == ["gain"]
    assert other.metrics_added == ["map"]


def test_other_settings_discard_the_previous_baseline_and_say_so() -> None:
    old = previous(record("a"), record("b"))
    old.settings = {**old.settings, "gain": "linear"}
    done = merge_update(old, results_of(record("a")), SETTINGS, facts({}, set()), PROVENANCE)
    assert done.reset == ["gain: baseline 'linear', this run 'exponential'"]
    assert list(done.baseline.configurations["fused"]) == ["a"]
    assert done.kept == {}
    assert done.replaced_away == {}


def test_a_reset_names_the_configurations_it_drops_with_the_previous_baseline() -> None:
    """Replaced whole, the previous baseline's configurations this run had no query of
    vanished without a word (an update without a reset names those it drops)."""
    old = previous(record("a"), record("b"), record("a", "bm25"), record("b", "bm25"))
    old.settings = {**old.settings, "gain": "linear"}
    done = merge_update(old, results_of(record("a")), SETTINGS, facts({}, set()), PROVENANCE)
    assert list(done.baseline.configurations) == ["fused"]
    assert done.replaced_away == {"bm25": 2}


# --------------------------------------------------------------------------- the file


def test_dumps_round_trips_through_parse_with_the_baseline_fields_only() -> None:
    baseline = previous(record("b", category="para"), record("a"), record("a", "bm25"))
    text = dumps(baseline)
    parsed = parse_baseline(text, "golden/baseline.json")
    assert parsed.settings == baseline.settings
    assert parsed.provenance == {"created": "old"}
    for name, queries in baseline.configurations.items():
        assert sorted(parsed.configurations[name]) == sorted(queries)
        for qid, original in queries.items():
            again = parsed.configurations[name][qid]
            assert again.to_dict(BASELINE_FIELDS) == original.to_dict(BASELINE_FIELDS)
            assert (again.id, again.configuration) == (qid, name)
            assert again.duplicates == 0  # run-only fields are not stored
    data = json.loads(text)
    assert data["configurations"]["fused"]["summary"]["all"] == {
        "n": 2,
        **dict.fromkeys(SETTINGS.metric_names, 1.0),
    }
    assert list(data["configurations"]["fused"]["summary"]["categories"]) == ["lexical", "para"]
    assert [line.strip()[:5] for line in text.splitlines() if '"fingerprint"' in line] == [
        '"a": ',
        '"a": ',
        '"b": ',
    ]


@pytest.mark.parametrize(
    ("mutate", "says"),
    [
        (lambda d: d.update(version=2), "has baseline version 2; this plugin reads version 1"),
        (lambda d: d.pop("settings"), "lacks 'settings' or 'configurations'"),
        (lambda d: d["configurations"].update(fused=[]), "configuration 'fused' has no 'queries'"),
        (lambda d: d["configurations"].clear(), "holds no configuration ('configurations' is"),
        (
            lambda d: d["configurations"]["fused"]["queries"].clear(),
            "configuration 'fused' holds no query",
        ),
        (
            lambda d: d["configurations"]["fused"]["queries"]["a"].pop("fingerprint"),
            "configuration 'fused': query 'a' has no 'fingerprint'",
        ),
        (
            lambda d: d["configurations"]["fused"]["queries"]["a"]["metrics"].update(mrr="x"),
            "query 'a': 'metrics.mrr' must be a finite number or null, got str 'x'",
        ),
        (  # an integer past a float's range (json reads it exactly): no OverflowError
            lambda d: d["configurations"]["fused"]["queries"]["a"]["metrics"].update(mrr=10**400),
            "query 'a': mrr is 1000000000000000000000000000000000000000... (401 characters), "
            "outside 0..1",
        ),
        (
            lambda d: d["configurations"]["fused"]["queries"]["a"].update(outcome="great"),
            "query 'a': 'outcome' must be one of passed, failed, error, skipped, xfailed, xpassed",
        ),
        (
            lambda d: d["configurations"]["fused"]["queries"]["a"].update(secret=1),
            "query 'a': unknown field secret",
        ),
    ],
    ids=[
        "version",
        "no-settings",
        "no-queries",
        "no-configuration",
        "no-query",
        "no-fingerprint",
        "metric-text",
        "metric-huge-integer",
        "outcome",
        "extra",
    ],
)
def test_a_corrupt_baseline_says_what_is_wrong(mutate: object, says: str) -> None:
    data = json.loads(dumps(previous(record("a"))))
    mutate(data)  # type: ignore[operator]
    with pytest.raises(BaselineError) as info:
        parse_baseline(json.dumps(data), "golden/baseline.json")
    assert says in str(info.value)
    assert str(info.value).startswith("golden/baseline.json")


def test_an_update_that_changed_a_query_is_told_from_an_unchanged_one_early(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """unchanged_by serialised both baselines whole (seconds at 100,000 queries x 3,
    before the write serialised the new one again); it stops at the first line apart."""
    from pytest_retrieval.io import baseline_file

    def baseline(first: float, provenance: str) -> Baseline:
        records = {
            f"q{i:03}": QueryRecord(f"q{i:03}", "bm25", "c", metrics={"mrr": first if i else 0.5})
            for i in range(200)
        }
        return Baseline({"metrics": ["mrr"]}, {"bm25": records}, {"time": provenance})

    made: list[str] = []
    real = baseline_file.lines

    def counted_lines(given: Baseline) -> object:
        for line in real(given):
            made.append(line)
            yield line

    monkeypatch.setattr(baseline_file, "lines", counted_lines)
    before = baseline(0.5, "then")
    assert baseline_file.unchanged_by(before, baseline(0.5, "now"))  # the provenance alone
    whole = len(made)
    made.clear()
    changed = baseline(0.5, "now")
    changed.configurations["bm25"]["q000"].metrics["mrr"] = 0.25
    assert not baseline_file.unchanged_by(before, changed)
    assert len(made) < whole / 10


def test_configurations_an_update_drops_are_said_gone_from_where_they_went() -> None:
    """Replaying TREC runs that lack a configuration, the update dropped it and said it
    was "no longer in the retriever fixture's params", which still held it."""
    from pytest_retrieval.plugin.terminal import _update_lines

    old = previous(record("a"), record("a", "dense"))
    for trec, said in ((False, "the retriever fixture's params"), (True, "the TREC runs replayed")):
        seen = RunFacts(golden_ids={"a": "golden/a.yaml"}, collected=frozenset({"fused"}))
        seen = dataclasses.replace(seen, replayed=("run.trec",) if trec else (), replayed_trec=trec)
        done = merge_update(old, results_of(record("a")), SETTINGS, seen, PROVENANCE)
        assert done.gone == {"dense": 1}
        lines = [line for line, _ in _update_lines(done, "golden/baseline.json")]
        assert f"  configurations dropped, no longer in {said}: dense (1 query)" in lines
