"""One query's ids held as one string (recordings and TREC runs read back): the ids
come back as they were given, whatever they hold."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_retrieval.io.joined_ids import SEPARATOR, joined, split
from pytest_retrieval.io.trec import read_run


@given(st.lists(st.text(alphabet=st.sampled_from(["a", "b", SEPARATOR, "é", " "]), max_size=4)))
def test_ids_come_back_as_given(ids: list[str]) -> None:
    held = joined(ids)
    assert split(held) == ids
    assert isinstance(held, str) == (bool(ids) and not any(SEPARATOR in i for i in ids))


def test_a_run_holds_each_query_joined_and_reads_back_its_ranking(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    lines = ["q1 Q0 a 1 3 t", "q1 Q0 b 2 2 t", "q2 Q0 a 1 1 t", "q1 Q0 c 3 9 t"]
    run.write_text("\n".join(lines) + "\n")
    read = read_run(run)["t"]
    assert read.columns["q2"].held == "a"
    assert read.columns["q1"].docs == ["c", "a", "b"]  # two pieces, then by score
    assert list(read.columns["q1"].scores) == [9.0, 3.0, 2.0]
    assert read.reordered == ("q1",)


def test_a_run_id_holding_the_separator_is_kept_whole(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_bytes(b"q1 Q0 a\x00b 1 2 t\nq1 Q0 c 2 1 t\n")
    assert read_run(run)["t"].columns["q1"].docs == ["a\x00b", "c"]
