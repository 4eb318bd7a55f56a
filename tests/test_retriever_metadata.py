"""Unit tests of what a retriever says about itself and how the gate compares it."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from test_gate import QUERY_IDS, SETTINGS, baseline_of, facts, gate, perfect, results_of

from pytest_retrieval.baseline import RunFacts, merge_update
from pytest_retrieval.io.baseline_file import dumps, parse_baseline
from pytest_retrieval.report.gate_text import explain
from pytest_retrieval.retriever_metadata import (
    MAX_TEXT,
    MetadataChange,
    change_lines,
    describe,
    differences,
)


def search(query: object) -> list[str]:
    return []


def with_metadata(value: object) -> object:
    def retriever(query: object) -> list[str]:
        return []

    retriever.metadata = value  # type: ignore[attr-defined]
    return retriever


def test_a_mapping_on_the_callable_is_read_sorted() -> None:
    found, problems = describe("fused", with_metadata({"model": "minilm", "index_version": 3}))
    assert found == {"index_version": 3, "model": "minilm"}
    assert list(found) == ["index_version", "model"]
    assert problems == []


def test_no_metadata_is_nothing_and_no_problem() -> None:
    assert describe("bm25", search) == ({}, [])


def test_an_object_with_a_metadata_attribute_or_property() -> None:
    class Engine:
        @property
        def metadata(self) -> dict[str, object]:
            return {"corpus_sha256": "ab12", "shards": 4, "exact": True, "alpha": 0.5}

        def __call__(self, query: object) -> list[str]:
            return []

    found, _ = describe("dense", Engine())
    assert found == {"alpha": 0.5, "corpus_sha256": "ab12", "exact": True, "shards": 4}


def test_bad_metadata_says_what_is_wrong_and_keeps_the_rest() -> None:
    found, problems = describe("fused", with_metadata(["model", "minilm"]))
    assert found == {}
    assert len(problems) == 1
    assert problems[0].startswith("retriever 'fused': .metadata must be a mapping")
    assert "got list: ignored" in problems[0]

    found, problems = describe(
        "fused", with_metadata({"model": "m", "nested": {"a": 1}, 3: "x", "nan": float("nan")})
    )
    assert found == {"model": "m"}
    assert [p.split(": entry ")[1].split(" ")[0] for p in problems] == ["'nested'", "3", "'nan'"]


def test_a_property_that_raises_is_a_problem_not_a_crash() -> None:
    class Broken:
        @property
        def metadata(self) -> dict[str, str]:
            raise RuntimeError("index not loaded")

    found, problems = describe("fused", Broken())
    assert found == {}
    assert "raised RuntimeError('index not loaded'): ignored" in problems[0]


def test_a_mock_standing_in_for_a_retriever_is_a_per_query_callable_without_metadata() -> None:
    # a Mock makes up every attribute it is asked for: only what the test set counts
    from pytest_retrieval.retrievers import protocol_of

    plain = mock.Mock(return_value=["d1"])
    assert describe("m", plain) == ({}, [])
    protocol = protocol_of(mock.MagicMock(return_value=["d1"]), "retriever")
    assert (protocol.style, protocol.is_async) == ("call", False)
    configured = mock.Mock(metadata={"model": "x"})
    assert describe("m", configured) == ({"model": "x"}, [])
    batch = mock.Mock()
    batch.retrieve_batch.return_value = [["d1"]]
    assert protocol_of(batch, "retriever").style == "batch"
    specced = mock.Mock(spec=["retrieve_batch", "metadata"])  # a spec declares both
    assert protocol_of(specced, "retriever").style == "batch"
    assert describe("m", specced)[1]  # its metadata is a Mock: named, as for any value
    assert protocol_of(mock.AsyncMock(return_value=["d1"]), "retriever").is_async


def test_numpy_scalars_are_read_as_the_numbers_they_hold() -> None:
    """{'dim': np.int64(384), 'threshold': np.float32(0.33)} was left out as "not a
    finite number, got int64", as results' numpy ids and scores are read."""
    import numpy as np

    found, problems = describe(
        "dense",
        with_metadata({"dim": np.int64(384), "threshold": np.float32(0.5), "exact": np.bool_(1)}),
    )
    assert problems == []
    assert found == {"dim": 384, "exact": True, "threshold": 0.5}
    assert [type(v) for v in found.values()] == [int, bool, float]
    json.dumps(found)  # what the baseline and the reports write


def test_an_integer_too_long_to_write_is_left_out_not_an_internal_error() -> None:
    """{'n': 10**5000} reached json.dumps, past Python's limit on digits: INTERNALERROR."""
    found, problems = describe("dense", with_metadata({"n": 10**5000, "model": "m"}))
    assert found == {"model": "m"}
    assert problems == [
        "retriever 'dense': .metadata: entry 'n' is left out: keys must be text and values "
        "text, a finite number or a boolean, got an int too long to write as text"
    ]


def test_long_text_is_cut() -> None:
    found, _ = describe("fused", with_metadata({"prompt": "x" * 5000}))
    value = found["prompt"]
    assert isinstance(value, str) and len(value) == MAX_TEXT and value.endswith("…")


def test_differences_name_each_changed_added_and_removed_key() -> None:
    before = {"fused": {"index_version": "2024-06", "model": "m", "old": 1}, "bm25": {"k1": 1.2}}
    after = {"fused": {"index_version": "2024-09", "model": "m", "new": True}, "bm25": {"k1": 1.2}}
    changes = differences(before, after, ["fused", "bm25"])
    assert changes == [
        MetadataChange("fused", "index_version", "2024-06", "2024-09"),
        MetadataChange("fused", "new", None, True),
        MetadataChange("fused", "old", 1, None),
    ]
    assert change_lines(changes) == [
        "fused: index_version 2024-06 → 2024-09, new (none) → true, old 1 → (none)"
    ]
    assert differences(before, after, ["bm25"]) == []
    assert differences({"x": {"n": 1}}, {"x": {"n": 1.0}}, ["x"])  # 1 and 1.0: not the same


def test_control_characters_in_metadata_are_shown_escaped_not_sent_to_the_terminal() -> None:
    """A value holding an escape sequence recoloured the terminal from the gate's
    'retriever changed' line (and reached the Markdown raw), where result ids holding
    one are escaped."""
    from pytest_retrieval.retriever_metadata import shown

    before = {"fused": {"prompt\nv": "c\x1b[31mred"}}
    after = {"fused": {"prompt\nv": "c\x1b[32mgreen"}}
    (line,) = change_lines(differences(before, after, ["fused"]))
    assert line == "fused: prompt\\nv c\\x1b[31mred → c\\x1b[32mgreen"
    assert shown("a\tb") == "a\\tb"
    assert line.isprintable()


def test_the_gate_shows_the_change_beside_the_verdict_and_still_compares() -> None:
    old = baseline_of(perfect())
    old.retrievers = {"fused": {"index_version": "2024-06"}}
    result = gate(old, results_of(perfect()), run_facts=facts(retrievers={"fused": {}}))
    assert result.retriever_changes == [MetadataChange("fused", "index_version", "2024-06", None)]
    result = gate(
        old,
        results_of(perfect()),
        run_facts=facts(retrievers={"fused": {"index_version": "2024-09"}}),
    )
    assert result.verdict == "passed" and result.rows  # compared all the same
    lines = explain(result).splitlines()
    assert lines[:4] == [
        "retrieval gate: PASSED",
        f"  fused: 0 queries improved, 0 degraded, {len(QUERY_IDS)} unchanged",
        "  retriever changed since the baseline (still compared):",
        "    fused: index_version 2024-06 → 2024-09",
    ]
    assert result.as_dict()["retriever_changes"] == [
        {"configuration": "fused", "key": "index_version", "baseline": "2024-06",
         "current": "2024-09"}
    ]  # fmt: skip


def test_a_configuration_this_run_did_not_describe_is_not_compared() -> None:
    old = baseline_of(perfect())
    old.retrievers = {"fused": {"index_version": "2024-06"}}
    assert gate(old, results_of(perfect())).retriever_changes == []  # no metadata noted


def test_the_baseline_records_it_and_reads_it_back() -> None:
    run = results_of(perfect(), perfect("bm25"))
    facts_now = RunFacts(retrievers={"fused": {"index_version": "2024-09", "k": 60}})
    update = merge_update(None, run, SETTINGS, facts_now, {})
    assert update.baseline.retrievers == {"fused": {"index_version": "2024-09", "k": 60}}
    text = dumps(update.baseline)
    fused_block = json.loads(text)["configurations"]["fused"]
    assert fused_block["retriever"] == {"index_version": "2024-09", "k": 60}
    assert "retriever" not in json.loads(text)["configurations"]["bm25"]
    assert parse_baseline(text).retrievers == update.baseline.retrievers


def test_an_update_of_other_configurations_keeps_the_previous_metadata() -> None:
    def update(previous, run, retrievers):  # type: ignore[no-untyped-def]
        return merge_update(previous, run, SETTINGS, facts(retrievers=retrievers), {}).baseline

    previous = update(None, results_of(perfect()), {"fused": {"v": 1}})
    assert update(previous, results_of(perfect("bm25")), {"bm25": {}}).retrievers == {
        "fused": {"v": 1},
        "bm25": {},
    }
    assert update(previous, results_of(perfect()), {"fused": {"v": 2}}).retrievers == {
        "fused": {"v": 2}
    }
    # its queries gone from the golden set, a configuration's metadata goes with them
    gone = merge_update(previous, results_of(perfect("bm25")), SETTINGS, RunFacts(), {})
    assert gone.baseline.retrievers == {}


@pytest.mark.parametrize("block", [{}, {"retriever": "not a mapping"}, {"retriever": None}])
def test_an_older_or_odd_baseline_reads_as_no_metadata(block: dict[str, object]) -> None:
    text = dumps(baseline_of(perfect()))
    data = json.loads(text)
    data["configurations"]["fused"].pop("retriever", None)
    data["configurations"]["fused"].update(block)
    assert parse_baseline(json.dumps(data)).retrievers == {}


def test_metadata_whose_keys_or_errors_cannot_be_shown_is_ignored_with_why() -> None:
    """A key whose repr() raises, or a property raising an exception whose repr() raises:
    a traceback through the plugin, not a note."""

    class Unshowable:
        def __repr__(self) -> str:
            raise RuntimeError("a bug in __repr__")

        def __hash__(self) -> int:
            return 1

    class Broken(Exception):
        def __repr__(self) -> str:
            raise RuntimeError("a bug in __repr__")

        def __str__(self) -> str:
            raise RuntimeError("a bug in __str__")

    found, problems = describe("dense", with_metadata({Unshowable(): 1, "model": "m"}))
    assert found == {"model": "m"}
    assert problems == [
        "retriever 'dense': .metadata: entry <Unshowable> is left out: keys must be text and "
        "values text, a finite number or a boolean, got a key of type Unshowable"
    ]

    class Raising:
        def __call__(self, query: object) -> list[str]:
            return []

        @property
        def metadata(self) -> object:
            raise Broken()

    assert describe("dense", Raising()) == (
        {},
        ["retriever 'dense': reading .metadata raised <Broken>: ignored"],
    )  # fmt: skip
