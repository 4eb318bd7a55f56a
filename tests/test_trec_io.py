"""TREC qrels, topics and runs: known answers, errors, round trips, and trec_eval's order.

The ranking order is cross-checked with pytrec_eval (trec_eval's own code): on runs
full of tied scores, precision at every rank computed on our order must equal
trec_eval's, which sorts the raw scores itself.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_retrieval.golden import GoldenQuery
from pytest_retrieval.io.common import FormatError
from pytest_retrieval.io.trec import (
    Qrels,
    ScoredDoc,
    Topic,
    qrels_text,
    qrels_to_golden,
    read_qrels,
    read_run,
    read_topics,
    run_text,
    trec_order,
    write_qrels,
    write_run,
)
from pytest_retrieval.metrics import precision

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(FormatError) as info:
        call(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- qrels


QRELS = """\
# judged by the assessors in May
00123 0 doc-b 2
00123 0 doc#a 0

00123\t0\t  FR-1  \t-1
7 Q0 x 3
   # an indented comment
7 0 y 1
"""


def test_qrels_known_answer(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS), max_grade=3)
    assert list(qrels.queries) == ["00123", "7"]  # ids stay text, file order kept
    first = qrels.queries["00123"]
    assert dict(first.grades) == {"doc-b": 2, "doc#a": 0}  # '#' inside an id is the id
    assert list(first.grades) == ["doc-b", "doc#a"]
    assert (first.line, first.unjudged) == (2, 1)  # FR-1 had -1: dropped and counted
    assert qrels.queries["7"].line == 6
    assert qrels.unjudged == 1
    assert qrels.judgments() == {"00123": {"doc-b": 2, "doc#a": 0}, "7": {"x": 3, "y": 1}}
    assert qrels.path == str(tmp_path / "q.txt")


def test_qrels_a_query_judged_only_with_minus_one_is_kept_empty(tmp_path):
    qrels = read_qrels(write(tmp_path, "q", "1 0 a -1\n1 0 b -1\n2 0 c 1\n"))
    assert qrels.judgments() == {"1": {}, "2": {"c": 1}}
    assert qrels.queries["1"].unjudged == 2 and qrels.unjudged == 2


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("1 0 a", "q:2: expected 4 fields 'qid iter docno rel', got 3"),
        (
            "1 0 a 1 extra",
            "q:2: expected 4 fields 'qid iter docno rel', got 5: '1 0 a 1 extra'; "
            "ids cannot hold spaces",
        ),
        (  # Cranfield's cranqrel: 'qid docno rel', said to lack a grade or ids with spaces
            "1 184 2",
            "q:2: expected 4 fields 'qid iter docno rel', got 3: '1 184 2'; if it is 'qid "
            "docno rel', add the iteration column trec_eval ignores: 'qid 0 docno rel'",
        ),
        ("1 0 a 4", "q:2: query '1': grade 4 of document 'a' is above 3 (retrieval_max_grade)"),
        ("1 0 a 1.5", "q:2: query '1': grade '1.5' of document 'a' is not an integer"),
        ("1 0 a x", "q:2: query '1': grade 'x' of document 'a' is not an integer"),
        ("1 0 a -2", "q:2: query '1': grade -2 of document 'a' is below -1; write -1"),
        ("1 0 z 1", "q:2: query '1': document 'z' is judged twice (first on line 1)"),
        (  # int() refuses past 4,300 digits: a traceback
            "1 0 a 1" + "0" * 5000,
            "q:2: query '1': grade 100000000000000000... of document 'a' has 5001 characters, "
            "far outside 0..3; write an integer 0..3, or -1",
        ),
    ],
)
def test_qrels_errors_name_file_line_query_and_fix(tmp_path, line, expected):
    path = write(tmp_path, "q", f"1 0 z 0\n{line}\n")
    message = error_of(read_qrels, path, max_grade=3, shown="q")
    assert message.startswith(expected), message


def test_grades_above_the_maximum_past_the_first_three_are_one_line(tmp_path):
    """A qrels file on a wider scale had printed a line per judgment (50, then a count)."""
    lines = [f"{q} 0 d{d} {4 + (q + d) % 3}" for q in range(10) for d in range(5)]
    path = write(tmp_path, "q", "\n".join(["9 0 x 1", *lines]) + "\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path, max_grade=3, shown="q")
    assert [p.line for p in info.value.problems] == [2, 3, 4, 0]
    assert str(info.value.problems[-1]) == (
        "q: 47 more grades above 3 (50 in all, the highest 6): set retrieval_max_grade = 6 "
        "in the ini file (the plugin reads the same key) or map the grades down"
    )


def test_lines_without_four_fields_past_the_first_three_are_one_line(tmp_path):
    """Cranfield's cranqrel as shipped ('qid docno rel' on each of 1,837 lines) printed
    the same message for 50 lines, then '... and 1787 more problems'."""
    lines = [f"{q} {d} {1 + d % 4}" for q in range(1, 11) for d in range(5)]
    path = write(tmp_path, "q", "\n".join(lines) + "\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path, shown="q")
    assert [p.line for p in info.value.problems] == [1, 2, 3, 0]
    assert str(info.value.problems[-1]) == (
        "q: 47 more lines without 4 fields (50 in all), each 'qid docno rel': add the "
        "iteration column trec_eval ignores to every line (awk '{print $1, 0, $2, $3}' FILE)"
    )
    mixed = write(tmp_path, "m", "1 0 a b 1\n1 0 c 1\n1 x 0\n1 y 1\n1 z 2\n")
    with pytest.raises(FormatError) as info:
        read_qrels(mixed, shown="m")
    assert str(info.value.problems[-1]) == (
        "m: 1 more line without 4 fields (4 in all): fields are separated by white space, "
        "so ids cannot hold spaces"
    )


def test_run_lines_without_q0_past_the_first_three_are_one_line_with_the_fix(tmp_path):
    """A run written without the Q0 column ('qid docno rank score tag') printed the same
    problem for 50 lines, each saying 'ids and tags cannot hold spaces', then a count."""
    lines = [f"{q} d{d} {d + 1} {10 - d} t" for q in range(1, 11) for d in range(5)]
    path = write(tmp_path, "r", "\n".join(lines) + "\n")
    with pytest.raises(FormatError) as info:
        read_run(path, shown="r")
    assert [p.line for p in info.value.problems] == [1, 2, 3, 0]
    assert str(info.value.problems[0]) == (
        "r:1: expected 6 fields 'qid Q0 docno rank score tag', got 5: '1 d0 1 10 t'; if it is "
        "'qid docno rank score tag', add the Q0 column trec_eval ignores: 'qid Q0 docno rank "
        "score tag'"
    )
    assert str(info.value.problems[-1]) == (
        "r: 47 more lines with fewer than 6 fields (50 in all), each 'qid docno rank score "
        "tag': add the Q0 column trec_eval ignores to every line (awk '{print $1, \"Q0\", $2, "
        "$3, $4, $5}' FILE)"
    )
    mixed = write(tmp_path, "m", "1 a 1 2 t\n1 b 2 1 t\n1 c\n1 d 4 0 t\n1 e 5 0 t\n")
    with pytest.raises(FormatError) as info:
        read_run(mixed, shown="m")
    assert "m:3: expected 6 fields 'qid Q0 docno rank score tag', got 2: '1 c'; a field is " in (
        str(info.value)
    )
    assert str(info.value.problems[-1]) == (
        "m: 2 more lines with fewer than 6 fields (5 in all): a run line is 'qid Q0 docno "
        "rank score tag'"
    )


def test_qrels_reports_every_problem_at_once(tmp_path):
    path = write(tmp_path, "q", "1 0 a 9\n1 0 b 1\nbroken\n2 0 c x\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path, shown="q")
    assert [(p.line, p.query_id) for p in info.value.problems] == [(1, "1"), (3, None), (4, "2")]
    assert "raise retrieval_max_grade" in str(info.value)


def test_qrels_max_grade_is_the_callers(tmp_path):
    path = write(tmp_path, "q", "1 0 a 4\n")
    assert read_qrels(path, max_grade=4).judgments() == {"1": {"a": 4}}
    assert "above 1 (retrieval_max_grade)" in error_of(read_qrels, path, max_grade=1)


def test_qrels_empty_unreadable_and_not_utf8(tmp_path):
    assert "holds no judgments" in error_of(read_qrels, write(tmp_path, "e", "# nothing\n\n"))
    assert "cannot read the file" in error_of(read_qrels, tmp_path / "missing")
    bad = tmp_path / "latin1"
    bad.write_bytes(b"1 0 a 1\n1 0 caf\xe9 1\n")
    assert error_of(read_qrels, bad, shown="latin1").startswith("latin1:2: not UTF-8")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_a_utf16_run_or_qrels_is_named_as_such(tmp_path, codec):
    """As the golden loader names it (it was 'not UTF-8 (byte 1 of the line)')."""
    says = "u:1: the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8"
    for reader, text in ((read_run, "q1 Q0 d 1 1.0 t\n"), (read_qrels, "q1 0 d 1\n")):
        path = tmp_path / "u"
        data = text.encode(codec)
        path.write_bytes(data if codec == "utf-16" else b"\xfe\xff" + data)
        assert error_of(reader, path, shown="u") == says


@pytest.mark.parametrize(
    ("compress", "says"),
    [
        ("gzip", "the file is gzip-compressed: decompress it first (gunzip -k r.gz)"),
        # unxz and bunzip2 -k refuse a name without their suffix: decompressed to r
        ("bz2", "the file is bzip2-compressed: decompress it first (bzip2 -dc r.gz > r)"),
        ("lzma", "the file is xz-compressed: decompress it first (xz -dc r.gz > r)"),
    ],
)
def test_a_compressed_run_or_qrels_is_named_as_such(tmp_path, compress, says):
    """TREC's own runs come gzipped: a .run.gz was 'not UTF-8 (byte 2 of the line); save
    the file as UTF-8'."""
    import importlib

    module = importlib.import_module(compress)
    for reader, text in ((read_run, "q1 Q0 d 1 1.0 t\n"), (read_qrels, "q1 0 d 1\n")):
        path = tmp_path / "r.gz"
        path.write_bytes(module.compress(text.encode()))
        assert error_of(reader, path, shown="r.gz") == f"r.gz:1: {says} and give the plain file"


def test_qrels_crlf_and_byte_order_mark(tmp_path):
    path = tmp_path / "q"
    path.write_bytes("\ufeff1 0 a 1\r\n1 0 b 0\r\n".encode())
    assert read_qrels(path).judgments() == {"1": {"a": 1, "b": 0}}


def test_a_no_break_space_is_part_of_an_id(tmp_path):
    # trec_eval splits on ASCII whitespace only (C isspace): U+00A0 stays in the id
    path = write(tmp_path, "q", "1 0 a\u00a0b 1\n")
    assert read_qrels(path).judgments() == {"1": {"a\u00a0b": 1}}


# --------------------------------------------------------------------------- runs


RUN = """\
q1 Q0 low 1 0.5 bm25
q1 Q0 apple 2 2.0 bm25
q1 Q0 zebra 3 2.0 bm25
# a comment
q1 Q0 mango 9 2.00 bm25
q2 Q0 only 1 -1e3 bm25
q1 Q0 apple 1 1 dense fields after the tag are ignored
"""


def test_run_order_is_trec_evals_and_tags_are_configurations(tmp_path):
    runs = read_run(write(tmp_path, "run", RUN))
    assert list(runs) == ["bm25", "dense"]
    bm25 = runs["bm25"]
    # score descending; ties (2.0 == 2.00) by docno descending; the rank column ignored
    assert bm25.ids() == {"q1": ["zebra", "mango", "apple", "low"], "q2": ["only"]}
    assert [d.score for d in bm25.rankings["q1"]] == [2.0, 2.0, 2.0, 0.5]
    assert bm25.rankings["q2"] == (ScoredDoc("only", -1000.0),)
    assert runs["dense"].ids() == {"q1": ["apple"]}  # the same doc in another run is fine


@pytest.mark.parametrize(
    ("lines", "reordered"),
    [
        (["q1 Q0 a 1 2.0 r", "q1 Q0 b 2 1.0 r"], ()),  # falling scores: the file's order
        (["q1 Q0 b 1 2.0 r", "q1 Q0 a 2 2.0 r"], ()),  # tied, listed as trec_eval ranks them
        (["q1 Q0 a 1 2.0 r", "q1 Q0 b 2 2.0 r"], ("q1",)),  # tied, listed otherwise
        (["q1 Q0 a 1 0.1 r", "q1 Q0 b 2 0.9 r", "q2 Q0 c 1 1 r"], ("q1",)),  # distances
        # trec_eval holds a score in a C float: alike to 7 digits, these two tie
        (["q1 Q0 a 1 0.1234567891 r", "q1 Q0 b 2 0.1234567890 r"], ("q1",)),
    ],
    ids=["falling", "ties-in-order", "ties-out-of-order", "rising", "tied-in-single-precision"],
)
def test_a_run_names_the_queries_its_order_does_not_keep(
    tmp_path: Path, lines: list[str], reordered: tuple[str, ...]
) -> None:
    path = tmp_path / "r.run"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert read_run(path)["r"].reordered == reordered


def test_trec_order_breaks_ties_by_bytes_like_strcmp():
    docs = [ScoredDoc(d, 1.0) for d in ("B", "a", "é", "Z", "aa")]
    assert [d.doc for d in trec_order(docs)] == ["é", "aa", "a", "Z", "B"]


def test_scores_tie_as_trec_eval_holds_them_in_single_precision(tmp_path):
    # trec_eval reads a score into a C float (TEXT_RESULTS.sim): scores alike to about 7
    # significant digits, and integers past 2**24 a step apart, tie, and docno descending
    # ranks them; in double precision both pairs fall and keep the file's order
    text = (
        "q1 Q0 a 1 0.1234567891 t\nq1 Q0 b 2 0.1234567890 t\nq1 Q0 c 3 0.12345 t\n"
        "q2 Q0 a 1 16777217 t\nq2 Q0 b 2 16777216 t\n"
    )
    run = read_run(write(tmp_path, "r", text))["t"]
    assert run.ids() == {"q1": ["b", "a", "c"], "q2": ["b", "a"]}
    assert [d.score for d in run.rankings["q1"]] == [0.1234567890, 0.1234567891, 0.12345]
    assert run.reordered == ("q1", "q2")
    pairs = [ScoredDoc("a", 0.1234567891), ScoredDoc("b", 0.1234567890)]
    assert [d.doc for d in trec_order(pairs)] == ["b", "a"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("q1 Q0 a 1 0.5", "r:2: expected 6 fields 'qid Q0 docno rank score tag', got 5"),
        ("q1 Q0 a 1 high t", "r:2: query 'q1': score 'high' of 'a' is not a finite number"),
        ("q1 Q0 a 1 nan t", "r:2: query 'q1': score 'nan' of 'a' is not a finite number"),
        # float() reads these as 1000; trec_eval's atof as 1 and 0: a ranking unlike its own
        ("q1 Q0 a 1 1_000 t", "r:2: query 'q1': score '1_000' of 'a' is not a finite number"),
        ("q1 Q0 a 1 \u0661\u0660 t", "r:2: query 'q1': score '\u0661\u0660' of 'a' is not a"),
        ("q1 Q0 a first 1 t", "r:2: query 'q1': rank 'first' of 'a' is not an integer"),
        ("q1 Q0 d 7 0.1 t", "r:2: query 'q1': document 'd' is retrieved twice in run 't' (first"),
        # the tag names a configuration in every table: `evaluate` printed the escape raw
        (
            "q1 Q0 a 2 0.5 t\x1b[31m",
            "r:2: query 'q1': run tag 't\\x1b[31m' holds a control character (a binary or "
            "corrupt file?): a tag names its configuration in every table and report; fix it",
        ),
    ],
)
def test_run_errors_name_file_line_query_and_fix(tmp_path, line, expected):
    path = write(tmp_path, "r", f"q1 Q0 d 1 1.0 t\n{line}\n")
    message = error_of(read_run, path, shown="r")
    assert message.startswith(expected), message


def test_run_problems_are_named_in_line_order_with_the_first_line_of_a_repeat(tmp_path):
    text = "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 high t\nq1 Q0 b 3 0.5 t\nq1 Q0 a 4 0.2 t\nq1 Q0 b 5 0.1 t\n"
    message = error_of(read_run, write(tmp_path, "r", text), shown="r")
    assert message.splitlines() == [
        "r:2: query 'q1': score 'high' of 'b' is not a finite number; the fifth field is the "
        "score, a number such as 12.5 in digits 0-9, as trec_eval reads it (no '_' between "
        "digits; inf and nan are refused)",
        "r:4: query 'q1': document 'a' is retrieved twice in run 't' (first on line 1); keep "
        "one line (trec_eval refuses duplicates too)",
        "r:5: query 'q1': document 'b' is retrieved twice in run 't' (first on line 3); keep "
        "one line (trec_eval refuses duplicates too)",
    ]


def test_run_fields_split_on_c_whitespace_only(tmp_path):
    # tabs and runs of spaces separate fields; an information separator (which Python's
    # str.split would take for white space) and a no-break space stay inside the id
    text = "\ufeffq1\tQ0  a\x1cb 1 2.0\tt\nq1 Q0 c\u00a0d 2 1.0 t\n"  # a byte-order mark first
    runs = read_run(write(tmp_path, "r", text))
    assert runs["t"].ids() == {"q1": ["a\x1cb", "c\u00a0d"]}


def test_empty_run_is_an_error(tmp_path):
    assert "holds no results" in error_of(read_run, write(tmp_path, "r", "\n# x\n"))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_our_order_is_trec_evals_on_tied_runs():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rnd = random.Random(7)
    qrels, run, ours = {}, {}, {}
    for n in range(60):
        docs = ["".join(rnd.choices("abAB_9", k=rnd.randint(1, 4))) for _ in range(40)]
        docs = list(dict.fromkeys(docs))
        scores = {d: float(rnd.choice([1, 2, 2, 3])) for d in docs}  # many ties
        qid = f"q{n}"
        qrels[qid] = {d: rnd.choice([0, 1]) for d in docs}
        run[qid] = scores
        ours[qid] = [d.doc for d in trec_order(ScoredDoc(d, s) for d, s in scores.items())]
    cuts = range(1, 41)
    measures = {"P." + ",".join(map(str, cuts))}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    compared = 0
    for qid, ranking in ours.items():
        relevant = frozenset(d for d, g in qrels[qid].items() if g)
        for k in cuts:
            assert precision(ranking, relevant, k) == pytest.approx(theirs[qid][f"P_{k}"]), (qid, k)
            compared += 1
    assert compared == 60 * 40


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_our_order_is_trec_evals_on_scores_alike_in_single_precision():
    # distinct doubles that a C float holds alike: trec_eval ties them, so ours must too
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rnd = random.Random(11)
    qrels, run, ours = {}, {}, {}
    for n in range(60):
        docs = list(dict.fromkeys(f"d{rnd.randrange(100)}" for _ in range(40)))
        bases = [rnd.uniform(0.5, 30.0) for _ in range(4)]
        scores = {d: rnd.choice(bases) + rnd.choice([0.0, 1e-9, 2e-9, -1e-9]) for d in docs}
        qid = f"q{n}"
        qrels[qid] = {d: rnd.choice([0, 1]) for d in docs}
        run[qid] = scores
        ours[qid] = [d.doc for d in trec_order(ScoredDoc(d, s) for d, s in scores.items())]
    assert sum(len(set(s.values())) > 4 for s in run.values()) > 50  # doubles do differ
    cuts = range(1, 41)
    measures = {"P." + ",".join(map(str, cuts))}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for qid, ranking in ours.items():
        relevant = frozenset(d for d, g in qrels[qid].items() if g)
        for k in cuts:
            assert precision(ranking, relevant, k) == pytest.approx(theirs[qid][f"P_{k}"]), (qid, k)


# --------------------------------------------------------------------------- topics


CLASSIC = """\
<top>
<num> Number: 401
<title> foreign minorities, Germany

<desc> Description:
What language and cultural differences
impede integration?

<narr> Narrative:
A relevant document names a cause.
</top>

<top>
<num> Number: 0402 </num>
<title> Topic: behavioral   genetics </title>
<desc> Description: What is known? </desc>
<dom> Domain: Science and Technology
</top>
"""


def test_classic_topics(tmp_path):
    topics = read_topics(write(tmp_path, "topics.401-402", CLASSIC), shown="t")
    assert list(topics) == ["401", "0402"]  # ids stay text
    first = topics["401"]
    assert first == Topic(
        "401",
        "foreign minorities, Germany",
        "What language and cultural differences impede integration?",
        "A relevant document names a cause.",
        "t",
        1,
    )
    second = topics["0402"]
    assert second.text() == "behavioral genetics"  # 'Topic:' label dropped, spaces joined
    assert second.text("description") == "What is known?"
    assert second.text("narrative") == ""  # <dom> is accepted and not used
    assert second.line == 13


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<top>\n<title> x\n</top>\n", "t:1: topic has no <num>"),
        ("<top>\n<num> Number: 1 2\n</top>\n", "t:1: topic has <num> '1 2'"),
        ("<top>\n<num> 1\n<title> x\n", "t:1: this topic is not closed; add </top>"),
        ("<top>\n<num> 1\n<top>\n<num> 2\n</top>\n", "t:3: <top> inside the topic begun on line 1"),
        ("</top>\n", "t:1: </top> without an open <top>"),
        ("<title> x\n", "t:1: <title> outside <top>"),
        ("<top>\nstray\n<num> 1\n</top>\n", "t:2: text before any field tag: 'stray'"),
        ("<top><num> 1</top>\n<top><num> 1</top>\n", "t:2: query '1': topic defined twice"),
    ],
)
def test_classic_topic_errors(tmp_path, text, expected):
    message = error_of(read_topics, write(tmp_path, "t", text), shown="t")
    assert message.startswith(expected), message


def test_tsv_topics(tmp_path):
    text = "00123\tis it going to rain\n\n7\t  spaced text  \n8\tline \r ends\rleft\r\n"
    path = write(tmp_path, "q.tsv", text)
    topics = read_topics(path, shown="q.tsv")
    assert {qid: t.title for qid, t in topics.items()} == {
        "00123": "is it going to rain",
        "7": "spaced text",
        "8": "line ends left",  # a bare CR inside a text is a space, not a line break
    }
    assert topics["7"].line == 3 and topics["7"].path == "q.tsv"
    bad = write(tmp_path, "bad.tsv", "1\tok\nno tab here\n1\tagain\n")
    with pytest.raises(FormatError) as info:
        read_topics(bad, shown="bad.tsv")
    assert [str(p) for p in info.value.problems] == [
        "bad.tsv:2: expected 'qid<TAB>text' (an id without spaces, a tab, the text)",
        "bad.tsv:3: query '1': topic defined twice (first on line 1)",
    ]


def test_tsv_topics_of_three_columns_or_commas_say_so_in_three_lines_and_a_count(tmp_path):
    """A third column (qid, text, category) was read into every query's text, a tab in
    it, without a word; a comma-separated file was 'expected qid<TAB>text' on 50 lines."""
    lines = "".join(f"{q}\ttext {q}\thead\n" for q in range(1, 11))
    with pytest.raises(FormatError) as info:
        read_topics(write(tmp_path, "t.tsv", lines), shown="t.tsv")
    assert [str(p) for p in info.value.problems] == [
        *(
            f"t.tsv:{q}: query '{q}': 3 tab-separated columns where 'qid<TAB>text' has 2 (a "
            "third would be read into the text): keep the id and the text (cut -f1,2 FILE, "
            "when the text is the second)"
            for q in (1, 2, 3)
        ),
        "t.tsv: 7 more lines (10 in all) with more than 2 tab-separated columns: keep the id "
        "and the text (cut -f1,2 FILE, when the text is the second)",
    ]
    commas = "".join(f"{q},text {q}\n" for q in range(1, 6))
    with pytest.raises(FormatError) as info:
        read_topics(write(tmp_path, "t.csv", commas), shown="t.csv")
    assert str(info.value.problems[0]) == (
        "t.csv:1: expected 'qid<TAB>text' (an id without spaces, a tab, the text); "
        "comma-separated? put a tab between the id and the text"
    )
    assert str(info.value.problems[-1]) == (
        "t.csv: 2 more lines (5 in all) not 'qid<TAB>text' (an id without spaces, a tab, the text)"
    )


def test_topics_format_can_be_forced(tmp_path):
    path = write(tmp_path, "t", "<b>\tbold is a query\n")
    assert read_topics(path, format="tsv")["<b>"].title == "bold is a query"
    assert "outside <top>" in error_of(read_topics, path)  # auto: looks like the classic one


# --------------------------------------------------------------------------- writing


def test_qrels_and_run_text_known_answer():
    assert qrels_text({"00123": {"a": 2, "b": 0}, "7": {}}) == "00123 0 a 2\n00123 0 b 0\n"
    text = run_text({"bm25": {"q1": ["b", "a", "c"]}, "dense": {"q1": [ScoredDoc("a", 0.5)]}})
    assert text == ("q1 Q0 b 1 3 bm25\nq1 Q0 a 2 2 bm25\nq1 Q0 c 3 1 bm25\nq1 Q0 a 1 0.5 dense\n")


@pytest.mark.parametrize(
    ("judgments", "expected"),
    [
        ({"a b": {"d": 1}}, "query 'a b': the query id 'a b' holds whitespace"),
        ({"#1": {"d": 1}}, "query '#1': query id '#1' starts with '#'"),
        ({"1": {"d\t2": 1}}, "query '1': the document id 'd\\t2' holds whitespace"),
        ({"1": {"d": -1}}, "query '1': grade of document 'd' must be >= 0, got -1"),
        ({"1": {"d": 1.5}}, "query '1': grade of document 'd' must be an integer >= 0"),
        ({"1": {"d": True}}, "query '1': grade of document 'd' must be an integer >= 0"),
    ],
)
def test_qrels_writer_refuses_what_cannot_be_read_back(judgments, expected):
    message = error_of(qrels_text, judgments, shown="out")
    assert message.startswith(f"out: {expected}"), message


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ({"my run": {"1": ["a"]}}, "run 'my run': the run tag 'my run' holds whitespace"),
        ({"t": {"1": ["a", "a"]}}, "query '1': run 't': a document appears twice"),
        ({"t": {"1": [ScoredDoc("a", 1.0), ScoredDoc("b", 2.0)]}}, "query '1': the ranking is not"),
        ({"t": {"1": [ScoredDoc("a", 1.0), ScoredDoc("b", 1.0)]}}, "query '1': the ranking is not"),
        (
            {"t": {"1": [ScoredDoc("a", 0.1234567891), ScoredDoc("b", 0.1234567890)]}},
            "query '1': the ranking is not",
        ),
        ({"t": {"1": [ScoredDoc("a", float("inf"))]}}, "query '1': scores must be finite"),
        ({"t": {"1": ["a", ScoredDoc("b", 1.0)]}}, "query '1': a ranking holds either ids"),
        ({"t": {"1": "abc"}}, "query '1': a ranking must be a list of ids, got the text 'abc'"),
    ],
)
def test_run_writer_refuses_what_trec_eval_would_read_otherwise(runs, expected):
    message = error_of(run_text, runs, shown="out")
    assert message.startswith(f"out: {expected}"), message


def test_a_run_tag_no_trec_file_can_hold_is_named_once_not_with_every_query():
    message = error_of(run_text, {"my run": {str(q): ["a"] for q in range(50)}}, shown="out")
    assert message == (
        "out: run 'my run': the run tag 'my run' holds whitespace, which a TREC file cannot "
        "hold; rename it"
    ), message


def test_writers_write_atomically_to_the_path(tmp_path):
    assert write_qrels(tmp_path / "sub" / "qrels", {"1": {"a": 1}, "2": {}}) == ("2",)
    assert write_run(tmp_path / "run", {"t": {"1": ["a", "b"], "2": []}}) == (("t", "2"),)
    assert read_qrels(tmp_path / "sub" / "qrels").judgments() == {"1": {"a": 1}}
    assert read_run(tmp_path / "run")["t"].ids() == {"1": ["a", "b"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "sub"]  # no temporary left


# --------------------------------------------------------------------------- round trips


_FIELD_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters=" \t\n\r\f\v")
doc_ids = st.text(_FIELD_CHARS, min_size=1, max_size=8)
query_ids = doc_ids.filter(lambda s: not s.startswith(("#", "\ufeff")))
tags = st.text(string.ascii_letters + string.digits + "._-", min_size=1, max_size=6)
judgment_sets = st.dictionaries(
    query_ids, st.dictionaries(doc_ids, st.integers(0, 3), min_size=1, max_size=6), max_size=5
)


@SETTINGS
@given(judgments=judgment_sets.filter(bool))
def test_qrels_round_trip(tmp_path, judgments):
    path = tmp_path / "qrels"
    write_qrels(path, judgments)
    back = read_qrels(path, max_grade=3)
    assert back.judgments() == judgments
    assert [list(q.grades) for q in back.queries.values()] == [list(g) for g in judgments.values()]
    assert back.unjudged == 0


rankings = st.lists(doc_ids, unique=True, min_size=1, max_size=12)
runs = st.dictionaries(
    tags, st.dictionaries(query_ids, rankings, min_size=1, max_size=4), min_size=1, max_size=3
)


@SETTINGS
@given(runs=runs)
def test_run_round_trip_keeps_our_order(tmp_path, runs):
    path = tmp_path / "run"
    write_run(path, runs)
    back = read_run(path)
    assert list(back) == list(runs)
    assert {tag: run.ids() for tag, run in back.items()} == runs


scored = st.lists(
    st.tuples(doc_ids, st.floats(allow_nan=False, allow_infinity=False, width=64)),
    unique_by=lambda pair: pair[0],
    min_size=1,
    max_size=12,
)


@SETTINGS
@given(qid=query_ids, pairs=scored)
def test_scored_run_round_trip_keeps_scores_exactly(tmp_path, qid, pairs):
    ranking = trec_order(ScoredDoc(doc, score) for doc, score in pairs)
    write_run(tmp_path / "run", {"t": {qid: list(ranking)}})
    assert read_run(tmp_path / "run")["t"].rankings == {qid: ranking}


# --------------------------------------------------------------------------- to golden


def _qrels(tmp_path: Path, text: str) -> Qrels:
    return read_qrels(write(tmp_path, "qrels", text), shown="qrels")


def test_qrels_to_golden(tmp_path):
    qrels = _qrels(tmp_path, "2 0 b 0\n2 0 a 3\n1 0 c 1\n1 0 d -1\n9 0 e -1\n")
    topics = {
        "1": Topic("1", "first title", "first description", path="topics", line=1),
        "2": Topic("2", "second title", path="topics", line=7),
        "3": Topic("3", "never judged", path="topics", line=9),
        "9": Topic("9", "only unjudged lines", path="topics", line=11),
    }
    imported = qrels_to_golden(qrels, topics, categories={"2": "lexical"})
    assert imported.queries == (
        GoldenQuery(
            "2", "second title", "lexical", relevant={"b": 0, "a": 3}, path="qrels", line=1
        ),
        GoldenQuery("1", "first title", relevant={"c": 1}, path="qrels", line=3),
    )
    assert imported.left_out == ("3", "9")
    assert imported.unjudged == 2
    by_description = qrels_to_golden(
        _qrels(tmp_path, "1 0 c 1\n"), topics, field="description", default_category="trec"
    )
    assert [(q.text, q.category) for q in by_description.queries] == [("first description", "trec")]


def test_a_category_that_would_look_like_another_is_not_imported(tmp_path):
    """The golden file written would be refused when loaded: refused here, naming it."""
    qrels = _qrels(tmp_path, "1 0 a 1\n2 0 b 1\n")
    topics = {q: Topic(q, "fine", path="topics", line=1) for q in ("1", "2")}
    with pytest.raises(FormatError) as info:
        qrels_to_golden(qrels, topics, categories={"1": "x ", "2": "a\nb"})
    assert [str(p) for p in info.value.problems] == [
        "qrels:1: query '1': category 'x ' has white space at its start or end (its row would "
        "look like the row of 'x'); write 'x'",
        "qrels:2: query '2': category 'a\\nb' holds a tab, a newline or another control "
        "character; remove it",
    ]


def test_a_category_of_a_topic_without_judgments_is_left_out_with_it(tmp_path):
    """``export trec`` leaves no-result queries out of the qrels; a categories file that
    covers the whole golden set (them too) still imports, the topic named as left out."""
    qrels = _qrels(tmp_path, "1 0 a 1\n")
    topics = {q: Topic(q, "fine", path="topics", line=1) for q in ("1", "empty")}
    imported = qrels_to_golden(qrels, topics, categories={"1": "lexical", "empty": "no-result"})
    assert [(q.id, q.category) for q in imported.queries] == [("1", "lexical")]
    assert imported.left_out == ("empty",)


def test_a_judged_query_whose_topic_id_has_other_leading_zeros_says_so(tmp_path):
    """Topics numbered 001, 002, 004 (Cranfield's cran.qry) and qrels numbered 1, 2, 3:
    'not in the topics' alone sent the user hunting for a topic that is visibly there."""
    qrels = _qrels(tmp_path, "1 0 a 1\n4 0 b 1\n7 0 c 1\n")
    topics = {
        qid: Topic(qid, "text", path="topics", line=n)
        for n, qid in enumerate(["001", "4", "0007"], 1)
    }
    with pytest.raises(FormatError) as info:
        qrels_to_golden(qrels, topics)
    assert [str(p) for p in info.value.problems] == [
        "qrels:1: query '1': judged in the qrels but not in the topics; add the topic; the "
        "topics have '001': ids are compared as text, so '001' is another query (if both "
        "name one query, write its id alike in both)",
        "qrels:3: query '7': judged in the qrels but not in the topics; add the topic; the "
        "topics have '0007': ids are compared as text, so '0007' is another query (if both "
        "name one query, write its id alike in both)",
    ]


def test_qrels_to_golden_errors(tmp_path):
    qrels = _qrels(tmp_path, "1 0 a 1\n2 0 b 1\n3 0 c 1\nx::y 0 d 1\n")
    topics = {
        "1": Topic("1", "", "has a description", path="topics", line=4),
        "3": Topic("3", "fine", path="topics", line=9),
        "x::y": Topic("x::y", "fine", path="topics", line=12),
    }
    with pytest.raises(FormatError) as info:
        qrels_to_golden(qrels, topics, categories={"3": "all", "nope": "x"})
    assert [str(p) for p in info.value.problems] == [
        "qrels: query 'nope': --categories gives a category for a query that neither the "
        "qrels nor the topics have; fix its id or remove its line",
        "topics:4: query '1': the topic has no title text; fill it in or pick another field",
        "qrels:2: query '2': judged in the qrels but not in the topics; add the topic",
        "qrels:3: query '3': category 'all' is reserved for the overall row of the tables; "
        "rename it",
        "qrels:4: query 'x::y': a golden query id must not contain spaces, '[', ']' or '::' "
        "(it becomes a pytest node id); rename the query in the source files",
    ]
