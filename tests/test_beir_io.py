"""BEIR folders: known answers, every error naming its file and line, and a round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_retrieval.golden import GoldenQuery
from pytest_retrieval.io.beir import read_beir
from pytest_retrieval.io.common import FormatError

HEADER = "query-id\tcorpus-id\tscore\n"


def make(
    folder: Path,
    corpus: list[str] | None = None,
    queries: list[str] | None = None,
    qrels: str = HEADER + "q1\t00123\t2\n",
    split: str = "test",
) -> Path:
    """A BEIR folder; each list item is one line, written as given."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels").mkdir(exist_ok=True)
    if corpus is None:
        corpus = [
            '{"_id": "00123", "title": "Weather", "text": "forecasts"}',
            '{"_id": 7, "title": "", "text": "tides", "metadata": {"url": "x"}}',
        ]
    if queries is None:
        queries = ['{"_id": "q1", "text": "will it rain", "metadata": {"kind": "paraphrase"}}']
    (folder / "corpus.jsonl").write_text("\n".join(corpus) + "\n", encoding="utf-8")
    (folder / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    (folder / "qrels" / f"{split}.tsv").write_text(qrels, encoding="utf-8")
    return folder


def problems(folder: Path, **kwargs) -> list[str]:
    with pytest.raises(FormatError) as info:
        read_beir(folder, shown="beir", **kwargs)
    return [str(p) for p in info.value.problems]


def test_known_answer(tmp_path):
    folder = make(
        tmp_path / "scifact",
        queries=[
            '{"_id": "q1", "text": "will it rain", "metadata": {"kind": "paraphrase"}}',
            '{"_id": 2, "text": "tide tables"}',
            "",
            '{"_id": "q3", "text": "never judged", "metadata": {}}',
        ],
        qrels=HEADER + "q1\t00123\t2\n2\t7\t0\n\nq1\t7\t1\n",
    )
    data = read_beir(folder, shown="scifact")
    assert data.queries == (
        GoldenQuery(
            "q1",
            "will it rain",
            relevant={"00123": 2, "7": 1},
            path="scifact/queries.jsonl",
            line=1,
        ),
        GoldenQuery("2", "tide tables", relevant={"7": 0}, path="scifact/queries.jsonl", line=2),
    )
    assert data.corpus_ids == frozenset({"00123", "7"})  # ids stay text
    assert data.left_out == ("q3",)
    assert (data.folder, data.split) == ("scifact", "test")


def test_categories_from_metadata_a_mapping_or_a_default(tmp_path):
    folder = make(tmp_path / "b")
    assert read_beir(folder).queries[0].category == "uncategorized"
    assert read_beir(folder, default_category="beir").queries[0].category == "beir"
    assert read_beir(folder, category_field="kind").queries[0].category == "paraphrase"
    chosen = read_beir(folder, category_field="kind", categories={"q1": "lexical"})
    assert chosen.queries[0].category == "lexical"
    assert problems(folder, category_field="topic") == [
        "beir/queries.jsonl:1: query 'q1': metadata has no 'topic' (the category field)"
    ]
    assert problems(folder, categories={"q1": "all", "q9": "x"}) == [
        "beir/queries.jsonl: query 'q9': --categories gives a category for a query that is "
        "not in queries.jsonl; fix its id or remove its line",
        "beir/queries.jsonl:1: query 'q1': category 'all': category 'all' is reserved for the "
        "overall row of the tables; rename it",
    ]


def test_a_category_of_a_query_judged_in_another_split_is_left_out_with_it(tmp_path):
    """One categories file for every split: a query of another split is no mistake."""
    queries = [
        '{"_id": "q1", "text": "will it rain"}',
        '{"_id": "q2", "text": "tide tables"}',  # judged in train, say
    ]
    folder = make(tmp_path / "b", queries=queries)
    data = read_beir(folder, categories={"q1": "paraphrase", "q2": "lexical"})
    assert [(q.id, q.category) for q in data.queries] == [("q1", "paraphrase")]
    assert data.left_out == ("q2",)


def test_other_splits_and_missing_files(tmp_path):
    folder = make(tmp_path / "b", split="dev")
    assert read_beir(folder, split="dev").split == "dev"
    assert problems(folder) == ["beir: no qrels/test.tsv; the splits there: dev"]
    (folder / "corpus.jsonl").unlink()
    assert problems(folder, split="dev") == [
        "beir: no corpus.jsonl in the folder; a BEIR folder holds corpus.jsonl, queries.jsonl "
        "and qrels/<split>.tsv"
    ]


def test_corpus_errors_name_file_and_line(tmp_path):
    folder = make(
        tmp_path / "b",
        corpus=[
            '{"_id": "00123", "text": "a"}',
            '{"_id": "00123", "text": "again"}',
            '{"title": "no id", "text": "x"}',
            '{"_id": 1.5, "text": "x"}',
            '{"_id": "d", "text": 3}',
            "not json",
            '["a list"]',
            '{"_id": "e", "text": "x", "_id": "f"}',
            '{"_id": " g", "text": "x"}',
            '{"_id": "h\\ni", "text": "x"}',
        ],
    )
    assert problems(folder) == [
        "beir/corpus.jsonl:2: document '00123' appears twice (first on line 1); keep one",
        "beir/corpus.jsonl:3: no '_id'; every line needs an '_id' (non-empty text)",
        "beir/corpus.jsonl:4: '_id' 1.5; every line needs an '_id' (non-empty text)",
        "beir/corpus.jsonl:5: document 'd': 'text' must be text",
        "beir/corpus.jsonl:6: not valid JSON: Expecting value: line 1 column 1 (char 0); write "
        "one JSON object per line",
        "beir/corpus.jsonl:7: expected a JSON object, got list",
        "beir/corpus.jsonl:8: key '_id' appears twice in one object; keep one",
        # no golden file holds such ids; a newline would make two ids of the corpus list
        "beir/corpus.jsonl:9: '_id' ' g' has white space at its start or end, which no "
        "golden file and no result id can hold; write 'g'",
        "beir/corpus.jsonl:10: '_id' 'h\\ni' holds a control character, which no golden "
        "file can hold (a newline would make two ids of the corpus list); remove it",
    ]


def test_query_errors_name_file_line_and_query(tmp_path):
    folder = make(
        tmp_path / "b",
        queries=[
            '{"_id": "q1", "txt": "typo"}',
            '{"_id": "q2", "text": "  "}',
            '{"_id": "q3", "text": "x", "metadata": []}',
            '{"_id": "q4", "text": "x"}',
            '{"_id": "q4", "text": "again"}',
            '{"_id": "a b", "text": "spaced id"}',
        ],
        qrels=HEADER + "a b\t7\t1\n",
    )
    assert problems(folder) == [
        "beir/queries.jsonl:1: query 'q1': unknown key 'txt' (did you mean 'text'?)",
        "beir/queries.jsonl:2: query 'q2': 'text' must be non-empty text (the query), got '  '",
        "beir/queries.jsonl:3: query 'q3': 'metadata' must be a JSON object",
        "beir/queries.jsonl:5: query 'q4': query appears twice (first on line 4)",
        "beir/queries.jsonl:6: query 'a b': a golden query id must not contain spaces, '[', ']' "
        "or '::' (it becomes a pytest node id); rename the query in the source files",
    ]


def test_qrels_errors_name_file_line_and_query(tmp_path):
    folder = make(
        tmp_path / "b",
        qrels=(
            "qid\tdocid\trel\n"
            "q1\t00123\t2\n"
            "q1\t00123\t1\n"
            "q1\t7\n"
            "q1\t7\thigh\n"
            "q1\t7\t5\n"
            "q1\t7\t-1\n"
            "q9\t7\t1\n"
            "q9\t00123\t1\n"
            "q1\tmissing\t1\n"
        ),
    )
    assert problems(folder) == [
        "beir/qrels/test.tsv:1: the first line must be the header "
        "'query-id<TAB>corpus-id<TAB>score'",
        "beir/qrels/test.tsv:3: query 'q1': document '00123' is judged twice (first on line 2)",
        "beir/qrels/test.tsv:4: expected 3 tab-separated fields 'query-id corpus-id score', got 2",
        "beir/qrels/test.tsv:5: query 'q1': score 'high' of document '7' is not an integer grade "
        "(a grade is 0..3, 0 for judged not relevant)",
        "beir/qrels/test.tsv:6: query 'q1': score 5 of document '7' is outside 0..3 "
        "(retrieval_max_grade); raise retrieval_max_grade or map the grades",
        # not 'raise retrieval_max_grade', which cannot make -1 a grade
        "beir/qrels/test.tsv:7: query 'q1': score -1 of document '7' is below 0: a grade is "
        "0..3, 0 for judged not relevant; map the scores to grades, or drop the line",
        "beir/qrels/test.tsv:8: query 'q9': judged but not in queries.jsonl; add the query or "
        "drop its lines",
        "beir/qrels/test.tsv:10: query 'q1': document 'missing' is judged but not in "
        "corpus.jsonl; add it or drop the line",
    ]
    assert read_beir(make(tmp_path / "c", qrels=HEADER + "q1\t7\t5\n"), max_grade=5).queries
    long = make(tmp_path / "d", qrels=HEADER + "q1\t7\t-" + "9" * 5000 + "\n")
    assert problems(long) == [  # int() refuses past 4,300 digits: a traceback
        "beir/qrels/test.tsv:2: query 'q1': score -99999999999999999... of document '7' has "
        "5001 characters, far outside 0..3 (retrieval_max_grade)"
    ]


def test_not_utf8_names_the_line(tmp_path):
    folder = make(tmp_path / "b")
    (folder / "queries.jsonl").write_bytes(b'{"_id": "q1", "text": "ok"}\n{"_id": "caf\xe9"}\n')
    with pytest.raises(FormatError, match=r"beir/queries.jsonl:2: not UTF-8"):
        read_beir(folder, shown="beir")


# --------------------------------------------------------------------------- round trip

# a TSV field holds no tab and no line break; a golden id no space, '[', ']' or '::'
ids = st.text(min_size=1, max_size=8).filter(
    lambda s: s == s.strip() and not any(c in s for c in (" ", "[", "]", "::", "\t", "\n", "\r"))
)
doc_ids = st.text(min_size=1, max_size=8).filter(  # as golden files and corpus lists hold them
    lambda s: s.strip() == s and s and not any(c < " " or c == "\x7f" for c in s)
)
texts = st.text(min_size=1, max_size=20).filter(str.strip)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.dictionaries(
        ids,
        st.tuples(texts, st.dictionaries(doc_ids, st.integers(0, 3), max_size=4)),
        min_size=1,
        max_size=5,
    )
)
def test_round_trip(tmp_path, data):
    corpus = sorted({doc for _, grades in data.values() for doc in grades} | {"spare"})
    queries = [json.dumps({"_id": qid, "text": text}) for qid, (text, _) in data.items()]
    qrels = HEADER + "".join(
        f"{qid}\t{doc}\t{grade}\n"
        for qid, (_, grades) in data.items()
        for doc, grade in grades.items()
    )
    folder = make(
        tmp_path / "b",
        corpus=[json.dumps({"_id": d, "text": "t"}) for d in corpus],
        queries=queries,
        qrels=qrels,
    )
    read = read_beir(folder)
    judged = {qid: value for qid, value in data.items() if value[1]}
    assert {q.id: (q.text, dict(q.relevant)) for q in read.queries} == judged
    assert [q.id for q in read.queries] == list(judged)  # queries.jsonl order
    assert read.corpus_ids == frozenset(corpus)
    assert read.left_out == tuple(qid for qid in data if qid not in judged)


def test_a_score_written_as_a_decimal_is_told_how_to_write_it() -> None:
    from pytest_retrieval.io.beir import _fix

    assert _fix("1.0", 3) == "; write 1"
    assert _fix("0.73", 3) == "; map the scores to integer grades 0..3"
    assert _fix("nan", 3) == "; map the scores to integer grades 0..3"
