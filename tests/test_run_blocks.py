"""The run reader's whole-block path (``io/run_columns.py``) reads exactly what the
line-by-line path reads.

A large run file is read a block of lines at a time; a block of plain lines is
taken apart with whole-list operations, any other block line by line. Whatever the
file holds (tabs, runs of spaces, CRLF, comments, blank lines, signed ranks,
infinite scores, extra fields, too few fields, repeats, ties, non-ASCII ids) and
wherever the block boundaries fall, the result (or the error message) must equal a
plain line-by-line reading written here from trec_eval's rules.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_retrieval.io import common
from pytest_retrieval.io.common import FormatError, data_fields
from pytest_retrieval.io.run_columns import plain_columns
from pytest_retrieval.io.trec import read_run

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def line_by_line(path: Path) -> dict[str, dict[str, list[tuple[str, float]]]] | str:
    """trec_eval's reading, one line at a time: tag -> qid -> (doc, score) in its order,
    or the set of problem lines (as 'line: kind') when the file has any."""
    docs: dict[str, dict[str, dict[str, float]]] = {}
    problems: list[str] = []
    for number, fields in data_fields(path, "r"):
        if len(fields) < 6:
            problems.append(f"{number}: fields")
            continue
        qid, _, doc, rank, score_text, tag = fields[:6]
        try:  # float() also reads "1_0", which trec_eval's atof reads as 1: refused
            score = float(score_text) if "_" not in score_text else math.nan
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            problems.append(f"{number}: score")
            continue
        if not re.fullmatch(r"[+-]?[0-9]+", rank):
            problems.append(f"{number}: rank")
            continue
        ranking = docs.setdefault(tag, {}).setdefault(qid, {})
        if doc in ranking:
            problems.append(f"{number}: twice")
            continue
        ranking[doc] = score
    if problems:  # lines of too few fields past the third: one line at the end
        ordered = sorted(problems, key=lambda p: int(p.split(":")[0]))
        short = [p for p in ordered if p.endswith(": fields")]
        kept = [p for p in ordered if not p.endswith(": fields") or p in short[:3]]
        return "\n".join(kept + (["0: fields"] if len(short) > 3 else []))
    if not docs:
        return "0: empty"
    return {
        tag: {
            qid: sorted(ranking.items(), key=lambda ds: (ds[1], ds[0]), reverse=True)
            for qid, ranking in queries.items()
        }
        for tag, queries in docs.items()
    }


KINDS = {"holds no results": "empty", "expected 6 fields": "fields", "twice": "twice"}
KINDS |= {"with fewer than 6 fields": "fields"}
KINDS |= {"is not a finite number": "score", "is not an integer": "rank"}


def ours(path: Path, block: int) -> dict[str, dict[str, list[tuple[str, float]]]] | str:
    with mock.patch.object(common, "BLOCK_BYTES", block):
        try:
            runs = read_run(path, shown="r")
        except FormatError as exc:
            found = []
            for problem in exc.problems:
                kind = next(k for text, k in KINDS.items() if text in problem.message)
                found.append(f"{problem.line}: {kind}")
            return "\n".join(found)
    return {
        tag: {qid: [(d.doc, d.score) for d in ranking] for qid, ranking in run.rankings.items()}
        for tag, run in runs.items()
    }


ids = st.sampled_from(["q1", "q2", "d1", "d2", "d3", "Q0", "7", "a#b", "d\u00e9", "x\x1cy"])
ranks = st.sampled_from(["1", "2", "10", "-3", "+4", "first", "0"])
scores = st.sampled_from(["1", "2.5", "2.50", "-1e3", "0", "1_0", "inf", "nan", "high", "3"])
gaps = st.sampled_from([" ", " ", " ", " ", "\t", "  ", " \t"])
ends = st.sampled_from(["\n", "\n", "\n", "\r\n", " \n", "\n\n"])


@st.composite
def run_lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["line"] * 8 + ["comment", "blank", "short", "long"]))
    if kind == "comment":
        return "# a comment" + draw(ends)
    if kind == "blank":
        return draw(st.sampled_from(["\n", "  \n", "\t\n"]))
    second = draw(st.sampled_from(["Q0", "Q0", "Q0", "0", "1", "d1", "t"]))
    fields = [draw(ids), second, draw(ids), draw(ranks), draw(scores), draw(st.sampled_from("tu"))]
    if kind == "short":
        fields = fields[: draw(st.integers(1, 5))]
    if kind == "long":
        fields.append("extra")
    text = fields[0]
    for value in fields[1:]:
        text += draw(gaps) + value
    return text + draw(ends)


@SETTINGS
@given(lines=st.lists(run_lines(), min_size=1, max_size=30), block=st.integers(8, 200))
def test_blocks_read_what_lines_read(tmp_path: Path, lines: list[str], block: int) -> None:
    path = tmp_path / "run"
    path.write_bytes("".join(lines).encode("utf-8"))
    assert ours(path, block) == line_by_line(path)


@SETTINGS
@given(
    queries=st.lists(
        st.lists(
            st.tuples(st.sampled_from("abcdefgh"), st.sampled_from([1.0, 2.0, 0.5])), min_size=1
        ),
        min_size=1,
        max_size=8,
    ),
    block=st.integers(30, 400),
)
def test_plain_files_in_any_blocks_keep_trec_evals_order(
    tmp_path: Path, queries: list[list[tuple[str, float]]], block: int
) -> None:
    """Plain files (the fast path): ties by docno descending, queries split over blocks,
    a query's lines in two places of the file, repeats named on their lines."""
    lines = [
        f"q{i % 3} Q0 {doc} {rank} {score} t\n"
        for i, ranking in enumerate(queries)
        for rank, (doc, score) in enumerate(ranking, start=1)
    ]
    path = tmp_path / "run"
    path.write_text("".join(lines))
    assert ours(path, block) == line_by_line(path)


@st.composite
def mostly_alike_lines(draw: st.DrawFn) -> str:
    """Lines of one second field and one tag, as most runs are, and now and then one with
    a field dropped, added or changed to another value, which must not be misread."""
    fields = [draw(st.sampled_from(["q1", "q2", "Q0", "t"])), "Q0"]
    fields += [
        draw(st.sampled_from(["d1", "d2", "d3", "Q0", "t", "0"])),
        str(draw(st.integers(0, 3))),
    ]
    fields += [draw(st.sampled_from(["1", "2.5", "0", "t"])), "t"]
    change = draw(st.sampled_from(["none"] * 6 + ["drop", "add", "other"]))
    at = draw(st.integers(0, 5))
    if change == "drop":
        del fields[at]
    elif change == "add":
        fields.insert(at, draw(st.sampled_from(["Q0", "t", "x", "1"])))
    elif change == "other":
        fields[at] = draw(st.sampled_from(["Q0", "t", "x", "1", "0"]))
    return " ".join(fields) + "\n"


@SETTINGS
@given(lines=st.lists(mostly_alike_lines(), min_size=1, max_size=12), block=st.integers(30, 400))
def test_lines_that_share_a_second_field_and_tag_read_what_lines_read(
    tmp_path: Path, lines: list[str], block: int
) -> None:
    path = tmp_path / "run"
    path.write_text("".join(lines))
    assert ours(path, block) == line_by_line(path)


def test_a_plain_block_is_read_as_columns() -> None:
    columns = plain_columns(b"q1 Q0 a 1 2.5 t\nq1\tQ0\tb\t2\t1\tt\r\nq2 Q0 a 1 -3 u")
    assert columns is not None
    assert columns.qids == ["q1", "q1", "q2"]
    assert columns.docs == ["a", "b", "a"]
    assert columns.scores == [2.5, 1.0, -3.0]
    assert columns.tags == ["t", "t", "u"]


@pytest.mark.parametrize(
    ("block", "qids", "docs"),
    [
        (b"q Q0 a 1 2 t\nq Q0 Q0 2 1 t\n", ["q", "q"], ["a", "Q0"]),  # a document named Q0
        (b"Q0 Q0 a 1 2 t\nQ0 Q0 b 2 1 t\n", ["Q0", "Q0"], ["a", "b"]),  # a query named Q0
        (b"q 0 0 1 2 r\nq 0 a 2 0 r\n", ["q", "q"], ["0", "a"]),  # second field 0
        (b"q r a 1 2 r\nr r r 1 2 r\n", ["q", "r"], ["a", "r"]),  # tag, field, ids alike
        # a field that looks like another line's
        (b"q Q0 a 1 2 t\nq X Q0 2 1 t\n", ["q", "q"], ["a", "Q0"]),  # another second field
        (b"q 0 a 1 2 t\nq 0 b 0 1 t\n", ["q", "q"], ["a", "b"]),  # a rank like the field
        (b"q Q0 a 1 2 t\nq Q0 b 2 1 u\n", ["q", "q"], ["a", "b"]),  # another tag
    ],
)
def test_a_plain_block_with_ids_named_like_its_other_fields_reads_each_line(
    block: bytes, qids: list[str], docs: list[str]
) -> None:
    columns = plain_columns(block)
    assert columns is not None
    assert (columns.qids, columns.docs) == (qids, docs)
    assert columns.tags == [line.split()[-1].decode() for line in block.splitlines()]


@pytest.mark.parametrize(
    "block",
    [
        b"q1 Q0 a 1 2.5 t\n# a comment\n",  # a comment
        b"q1 Q0 a#b 1 2.5 t\n",  # '#' inside an id: the line reader decides
        b"q1 Q0 a 1 2.5 t\n\nq1 Q0 b 2 1 t\n",  # a blank line
        b"q1 Q0 a 1 2.5 t\n  q1 Q0 b 2 1 t\n",  # leading blanks
        b"q1 Q0 a 1 2.5 t \n",  # trailing blank
        b"q1  Q0 a 1 2.5 t\n",  # a run of spaces
        b"q1 Q0 a 1 2.5\nq1 Q0 b 2 1 t t\n",  # five fields, then seven
        b"q1 Q0 a 1 2.5 t extra\n",  # fields after the tag
        b"q1 Q0 a -1 2.5 t\n",  # a signed rank
        b"q1 Q0 a 1 inf t\n",  # an infinite score
        b"q1 Q0 a 1 nan t\n",  # not a number
        b"q1 Q0 a 1 high t\n",  # not a score
        b"q1 Q0 \xc3\xa9 1 2.5 t\n",  # non-ASCII
        b"q1 Q0 a\x1cb 1 2.5 t\n",  # a separator Python's split would take for a blank
        b"q1 Q0 a 1 2.5 t\rq1 Q0 b 2 1 t\n",  # a lone carriage return
        b"\n",
        # each of these passes every check of the whole-block path but one
        b" q Q0 1 2 3\n",  # a leading blank and five fields: only a space first shows it
        b"q Q0 a 1 2 \nq Q0 b 2 1 t\n",  # a trailing blank, five fields: two spaces show it
        b"q Q0 a 1 2.0 t extra\nx y 7 8.0 z\n",  # seven, then five: a line end out of step
        b"q Q0 a 1 2.0 t\nx Q0 b 1 2.0 t y z w v 3 4.0 u\n",  # six, then 13: the token count
        # lines that a block path cutting its constant fields from the bytes could misread
        b"q Q0 a 1 2 \n",  # five fields and a trailing blank: an empty tag cut nothing away
        b"q Q0 a 1 2 t\nq Q0 b 2 1 t u\n",  # seven fields ending in the block's tag
        b"q Q0 a 1 2 t\nq Q0 b 2 t\n",  # five fields ending in the block's tag
        b"q Q0 a 1 2 t\nq Q0 b 2 1\n",  # five fields, no tag
        b"q Q0 a 1 t t\n",  # the tag in the score's place
    ],
)
def test_any_other_block_goes_line_by_line(block: bytes) -> None:
    assert plain_columns(block) is None
