"""``import trec``, ``import beir``, ``export trec``, ``export run`` with real files."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import cranfield
import pytest
from cli_project import GOLDEN, cli, load_json, write_project, write_run

from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.io.trec import read_qrels

QRELS = """\
# judgments of two topics
00123 0 d1 2
00123 0 D-07 0
00123 0 pool-only -1
401 0 d1 1
401 0 x9 3
"""
TOPICS = """\
<top>
<num> Number: 00123
<title> rain tomorrow
<desc> Description:
Will it rain tomorrow?
</top>
<top>
<num> Number: 401
<title> foreign minorities, Germany
</top>
<top>
<num> Number: 402
<title> never judged
</top>
"""


def _project(tmp_path: Path, ini: str = "[pytest]\nretrieval_golden = golden\n") -> Path:
    write_project(tmp_path, {}, ini=ini)
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    (tmp_path / "topics.txt").write_text(TOPICS, encoding="utf-8")
    (tmp_path / "cats.tsv").write_text("# id category\n00123\tweather\n", encoding="utf-8")
    return tmp_path


def test_import_trec_to_yaml_keeps_ids_as_text_and_counts_the_unjudged(tmp_path):
    project = _project(tmp_path)
    ran = cli(
        "import", "trec", "qrels.txt", "--topics", "topics.txt", "--categories", "cats.tsv",
        "-o", "golden/trec.yaml", "--corpus", "corpus.txt", cwd=project,
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert (
        "1 qrels line with grade -1 (in the pool but unjudged) dropped; where -1 means judged "
        "not relevant (Cranfield's), write 0 instead"
    ) in ran.notes
    assert "1 topic without a judgment left out: 402" in ran.err
    text = (project / "golden/trec.yaml").read_text(encoding="utf-8")
    assert text == textwrap.dedent(
        """\
        queries:
          - id: "00123"
            query: rain tomorrow
            category: weather
            relevant:
              d1: 2
              D-07: 0

          - id: "401"
            query: foreign minorities, Germany
            category: uncategorized
            relevant:
              x9: 3
              d1: 1
        """
    )
    queries = load_golden_file(project / "golden/trec.yaml")
    assert [q.id for q in queries] == ["00123", "401"]
    assert (project / "corpus.txt").read_text(encoding="utf-8") == "D-07\nd1\nx9\n"
    assert cli("validate", "--corpus", "corpus.txt", cwd=project).code == 0


def test_import_trec_description_field_and_jsonl(tmp_path):
    project = _project(tmp_path)
    ran = cli(
        "import", "trec", "qrels.txt", "--topics", "topics.txt", "--topic-field", "description",
        "-o", "out.jsonl", cwd=project,
    )  # fmt: skip
    assert ran.code == 2  # topic 401 has no description
    assert "topics.txt:7: query '401': the topic has no description text" in ran.err
    (project / "qrels.txt").write_text("00123 0 d1 2\n", encoding="utf-8")
    ran = cli(
        "import", "trec", "qrels.txt", "--topics", "topics.txt", "--topic-field", "description",
        "-o", "out.jsonl", cwd=project,
    )  # fmt: skip
    assert ran.code == 0, ran.err
    [query] = load_golden_file(project / "out.jsonl")
    assert (query.id, query.text, dict(query.relevant)) == (
        "00123",
        "Will it rain tomorrow?",
        {"d1": 2},
    )


def test_a_grade_above_max_grade_is_an_error_naming_the_setting(tmp_path):
    project = _project(tmp_path)
    (project / "qrels.txt").write_text("q1 0 d1 4\n", encoding="utf-8")
    ran = cli("import", "trec", "qrels.txt", cwd=project)
    assert ran.code == 2
    assert (
        "qrels.txt:1: query 'q1': grade 4 of document 'd1' is above 3 (retrieval_max_grade)"
        in ran.err
    )
    raised = cli(
        "import", "trec", "qrels.txt", "--override-ini", "retrieval_max_grade=4", cwd=project
    )
    assert raised.code == 0 and "no --topics: each query's text is its id" in raised.err
    assert "  - id: q1\n    query: q1\n" in raised.out


def test_import_with_a_run_reports_how_much_of_it_is_judged(tmp_path):
    project = _project(tmp_path)
    write_run(project / "r.run", {"bm25": {"00123": ["d1", "new1", "new2"], "401": ["x9"]}})
    ran = cli("import", "trec", "qrels.txt", "--run", "r.run", "--corpus", "c.txt", cwd=project)
    assert ran.code == 0, ran.err
    assert (
        "run 'bm25': judged@20 is 0.667 on the 2 judged queries that returned something; its 2 "
        "unjudged results count as not relevant"
    ) in ran.notes
    assert (project / "c.txt").read_text(encoding="utf-8").split() == sorted(
        ["D-07", "d1", "new1", "new2", "x9"]
    )


def test_import_keeps_the_ids_of_a_corpus_list_already_there(tmp_path):
    """A 40-id corpus list became the 5 judged ids of the qrels, and validate --corpus
    then called every other judged id of the golden files unknown."""
    project = _project(tmp_path)
    (project / "c.txt").write_text("d1\nother-1\nother-2\n", encoding="utf-8")
    ran = cli("import", "trec", "qrels.txt", "--corpus", "c.txt", cwd=project)
    assert ran.code == 0, ran.err
    assert (project / "c.txt").read_text(encoding="utf-8").split() == sorted(
        ["D-07", "d1", "x9", "other-1", "other-2"]
    )
    assert "added 2 document ids to the 3 in c.txt (5 in all)" in ran.notes


def test_import_and_evaluate_cover_a_run_at_the_same_cut(tmp_path):
    """judged@k has the cut of evaluate: the deepest of retrieval_metrics (20 by default,
    recall@20), so the two commands print the same figure under the same label; import
    said judged@10 of the figure evaluate called judged@20."""
    project = _project(tmp_path)
    ranking = ["d1", *(f"new{i}" for i in range(14))]  # 1 judged, then 14 unjudged
    write_run(project / "r.run", {"bm25": {"00123": ranking, "401": ["x9"]}})
    imported = cli("import", "trec", "qrels.txt", "--run", "r.run", "-o", "golden/g.yaml",
                   cwd=project)  # fmt: skip
    evaluated = cli("evaluate", "r.run", cwd=project)
    said = "'bm25': judged@20 is 0.533 on the 2 judged queries that returned something; its 14"
    assert said in imported.notes and said in evaluated.notes, (imported.err, evaluated.err)
    project.joinpath("pytest.ini").write_text(
        "[pytest]\nretrieval_golden = golden\nretrieval_metrics = mrr\n", encoding="utf-8"
    )
    ten = "'bm25': judged@10 is 0.550 on the 2 judged queries that returned something; its 9"
    assert ten in cli("import", "trec", "qrels.txt", "--run", "r.run", cwd=project).notes
    assert ten in cli("evaluate", "r.run", cwd=project).notes


def test_golden_to_trec_to_golden_round_trip(tmp_path):
    project = write_project(tmp_path)
    ran = cli("export", "trec", "-o", "qrels.txt", cwd=project)
    assert ran.code == 0, ran.err
    assert "1 no-result query left out" in ran.err and "lottery" in ran.err
    assert (project / "qrels.txt").read_text(encoding="utf-8") == (
        "rain-tomorrow 0 weather-forecast 3\nrain-tomorrow 0 weather-stuffed 1\n"
        "convert-euros 0 fx-rates 2\nconvert-euros 0 tide-tables 0\n"
    )
    topics = "".join(
        f"{q.id}\t{q.text}\n" for q in load_golden_file(project / "golden/catalog.yaml")
    )
    (project / "topics.tsv").write_text(topics, encoding="utf-8")
    (project / "cats.tsv").write_text("rain-tomorrow paraphrase\nconvert-euros lexical\n", "utf-8")
    back = cli(
        "import", "trec", "qrels.txt", "--topics", "topics.tsv", "--categories", "cats.tsv",
        "-o", "back.yaml", cwd=project,
    )  # fmt: skip
    assert back.code == 0, back.err
    original = {q.id: q for q in load_golden_file(project / "golden/catalog.yaml")}
    for query in load_golden_file(project / "back.yaml"):
        before = original[query.id]
        assert (query.text, query.category, dict(query.relevant)) == (
            before.text, before.category, dict(before.relevant),
        )  # fmt: skip
    assert cli("export", "trec", cwd=project).out == (project / "qrels.txt").read_text("utf-8")


def _beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    corpus = [{"_id": "00123", "title": "Rain", "text": "forecast"}, {"_id": "7", "text": "fx"}]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus), "utf-8")
    queries = [
        {"_id": "q1", "text": "will it rain", "metadata": {"kind": "weather"}},
        {"_id": 2, "text": "euro rates", "metadata": {"kind": "money"}},
        {"_id": "q3", "text": "unjudged here", "metadata": {"kind": "money"}},
    ]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), "utf-8")
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\t00123\t2\n2\t7\t1\n2\t00123\t0\n", encoding="utf-8"
    )
    return folder


def test_import_beir_with_categories_from_a_metadata_field(tmp_path):
    project = write_project(tmp_path, {})
    _beir(project / "beir")
    ran = cli(
        "import", "beir", "beir", "--category-field", "kind", "-o", "golden/beir.yaml",
        "--corpus", "corpus.txt", cwd=project,
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert "1 query without a judgment in split 'test' left out: q3" in ran.err
    queries = load_golden_file(project / "golden/beir.yaml")
    assert [(q.id, q.text, q.category, dict(q.relevant)) for q in queries] == [
        ("q1", "will it rain", "weather", {"00123": 2}),
        ("2", "euro rates", "money", {"7": 1, "00123": 0}),
    ]
    assert (project / "corpus.txt").read_text(encoding="utf-8") == "00123\n7\n"
    assert cli("validate", "--corpus", "corpus.txt", cwd=project).code == 0
    bad = cli("import", "beir", "beir", "--split", "dev", cwd=project)
    assert bad.code == 2 and "dev.tsv" in bad.err


def test_import_beir_refuses_a_corpus_list_it_could_not_read_back(tmp_path):
    """A document id holding a space ('d 3', judged alike in the golden file) went into
    the --corpus list, which validate --corpus then refused to read; it is refused before
    anything is written."""
    project = write_project(tmp_path, {})
    folder = _beir(project / "beir")
    with (folder / "corpus.jsonl").open("a", encoding="utf-8") as corpus:
        corpus.write('{"_id": "d 3", "text": "spaced"}\n')
    ran = cli("import", "beir", "beir", "-o", "golden/beir.yaml", "--corpus", "c.txt", cwd=project)
    assert (ran.code, ran.err.strip().splitlines()[-1]) == (
        2,
        "pytest-retrieval: error: --corpus c.txt: 1 document id ('d 3') holds white space, "
        "which a corpus list (one id a line, no blanks) cannot hold; import without --corpus, "
        "or give the documents ids without white space",
    )
    assert not (project / "golden/beir.yaml").exists() and not (project / "c.txt").exists()


TREC_IMPORT = ["trec", "qrels.txt", "--topics", "topics.txt"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([*TREC_IMPORT, "--corpus", "qrels.txt"], "--corpus qrels.txt is a file this import reads"),
        ([*TREC_IMPORT, "--corpus", "topics.txt"], "--corpus topics.txt is a file this import"),
        ([*TREC_IMPORT, "-o", "x.yaml", "--corpus", "./x.yaml"], "-o x.yaml and --corpus ./x"),
        (["beir", "beir", "--corpus", "beir/corpus.jsonl"], "--corpus beir/corpus.jsonl is a"),
        # the plugin's own files, and a golden file under --corpus, were written over
        (
            [*TREC_IMPORT, "-o", "worklist.yaml"],
            "-o worklist.yaml is a pytest-retrieval worklist (written by pytest-retrieval pool): "
            "writing would destroy it; write to another path",
        ),
        ([*TREC_IMPORT, "-o", "rec.jsonl"], "-o rec.jsonl is a pytest-retrieval recording"),
        (
            [*TREC_IMPORT, "--corpus", "golden/g.yaml"],
            "--corpus golden/g.yaml is a golden file: writing would destroy it",
        ),
        (  # replaced by the document ids
            [*TREC_IMPORT, "--corpus", "conftest.py"],
            "--corpus conftest.py: the file exists and is not a corpus list (a golden file, a "
            "conftest.py, a report?): writing would destroy it",
        ),
    ],
)
def test_an_import_never_writes_over_a_file_it_reads(tmp_path, args, says):
    """--corpus qrels.txt replaced the qrels with document ids, after the import."""
    project = _project(tmp_path)
    _beir(project / "beir")
    (project / "worklist.yaml").write_text(
        "format: pytest-retrieval-worklist\nversion: 1\nqueries: []\n", encoding="utf-8"
    )
    (project / "rec.jsonl").write_text(
        '{"format": "pytest-retrieval recording", "version": 1}\n', encoding="utf-8"
    )
    (project / "golden").mkdir(exist_ok=True)
    (project / "golden" / "g.yaml").write_text("queries: []\n", encoding="utf-8")
    (project / "conftest.py").write_text("import pytest\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    ran = cli("import", *args, cwd=project)
    assert ran.code == 2 and says in ran.err, ran.err
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


CRANFIELD = cranfield.locate()


@pytest.mark.skipif(CRANFIELD is None, reason="Cranfield is not in ../shared/data/cranfield")
def test_import_of_cranfield_through_trec_files(tmp_path):
    assert CRANFIELD is not None
    queries = cranfield.read_queries(CRANFIELD)
    qrels = cranfield.read_qrels(CRANFIELD)
    project = write_project(tmp_path, {}, ini="[pytest]\nretrieval_max_grade = 4\n")
    lines = [
        f"{n} 0 {doc} {grade}\n"
        for n, judged in sorted(qrels.items())
        for doc, grade in judged.items()
    ]
    (project / "cran.qrels").write_text("".join(lines), encoding="utf-8")
    topics = "".join(f"{q.number}\t{' '.join(q.text.split())}\n" for q in queries)
    (project / "cran.topics").write_text(topics, encoding="utf-8")
    ran = cli(
        "import", "trec", "cran.qrels", "--topics", "cran.topics", "-o", "cran.yaml", cwd=project
    )
    assert ran.code == 0, ran.err
    golden = load_golden_file(project / "cran.yaml", max_grade=4)
    assert len(golden) == len(qrels) == 225
    by_number = {str(q.number): q for q in queries}
    for query in golden:
        assert dict(query.relevant) == qrels[int(query.id)]
        assert query.text == " ".join(by_number[query.id].text.split())
    refused = cli(
        "import", "trec", "cran.qrels", "--override-ini", "retrieval_max_grade=3", cwd=project
    )
    assert refused.code == 2 and "(retrieval_max_grade)" in refused.err


@pytest.mark.skipif(CRANFIELD is None, reason="Cranfield is not in ../shared/data/cranfield")
def test_import_of_cranfield_as_shipped_says_what_to_change(tmp_path):
    """The raw files, as a user first tries them: cranqrel has three columns, and the
    topics written with cran.qry's .I numbers (001, 002, 004, ...) do not match the
    qrels, which number the queries by position. Each message says what is wrong."""
    assert CRANFIELD is not None
    project = write_project(tmp_path, {}, ini="[pytest]\nretrieval_max_grade = 4\n")
    raw = cli("import", "trec", str(CRANFIELD / "cranqrel"), cwd=project)
    assert raw.code == 2
    assert "cranqrel:1: expected 4 fields 'qid iter docno rel', got 3: '1 184 2'; if it is " in (
        raw.err
    )
    assert "add the iteration column trec_eval ignores: 'qid 0 docno rel'" in raw.err
    lines = (CRANFIELD / "cranqrel").read_text(encoding="utf-8").splitlines()
    qrels = "".join(f"{q} 0 {d} {max(int(g), 0)}\n" for q, d, g in map(str.split, lines))
    (project / "cran.qrels").write_text(qrels, encoding="utf-8")
    queries = cranfield.read_queries(CRANFIELD)
    topics = "".join(f"{q.smart_id}\t{' '.join(q.text.split())}\n" for q in queries)
    (project / "cran.topics").write_text(topics, encoding="utf-8")
    ran = cli("import", "trec", "cran.qrels", "--topics", "cran.topics", cwd=project)
    assert ran.code == 2
    assert (
        "cran.qrels:1: query '1': judged in the qrels but not in the topics; add the topic; "
        "the topics have '001': ids are compared as text, so '001' is another query"
    ) in ran.err


def test_export_run_gives_pytrec_eval_our_numbers(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ini = """\
    [pytest]
    retrieval_golden = golden
    retrieval_metrics = ndcg@10 map recall@10 precision@5
    retrieval_gain = linear
    retrieval_empty = zero
    """
    project = write_project(tmp_path, ini=ini)
    rankings = {
        "bm25": {
            "rain-tomorrow": ["weather-stuffed", "x", "weather-forecast"],
            "convert-euros": ["tide-tables", "fx-rates"],
        },
        "dense": {
            "rain-tomorrow": ["weather-forecast"],
            "convert-euros": ["fx-rates", "y", "z"],
            "lottery": ["a"],
        },
    }
    write_run(project / "both.run", rankings)
    assert cli("evaluate", "both.run", "--report", "report.json", cwd=project).code == 0
    ran = cli("export", "run", "report.json", "-o", "runs", cwd=project)
    assert ran.code == 0, ran.err
    assert sorted(p.name for p in (project / "runs").iterdir()) == ["bm25.run", "dense.run"]
    assert (  # and its replay scores it alike: the note is no alarm
        "wrote run 'bm25' (2 queries) to runs/bm25.run; 1 empty ranking has no line (a run "
        "cannot hold one: replayed or evaluated, such a query returns nothing, as here)"
    ) in ran.notes
    cli("export", "trec", "-o", "qrels.txt", cwd=project)
    judged = read_qrels(project / "qrels.txt").judgments()
    report = load_json(project / "report.json")
    names = {"ndcg_cut_10": "ndcg@10", "map": "map", "recall_10": "recall@10", "P_5": "precision@5"}
    for configuration in ("bm25", "dense"):
        run: dict[str, dict[str, float]] = {}
        for line in (project / "runs" / f"{configuration}.run").read_text("utf-8").splitlines():
            qid, _, doc, _, score, tag = line.split()
            assert tag == configuration
            run.setdefault(qid, {})[doc] = float(score)
        theirs = pytrec_eval.RelevanceEvaluator(judged, set(names)).evaluate(run)
        ours = report["configurations"][configuration]["queries"]  # type: ignore[index]
        assert set(theirs) == set(run) - {"lottery"} and theirs
        for qid, values in theirs.items():
            for trec_name, our_name in names.items():
                assert math.isclose(
                    values[trec_name], ours[qid]["metrics"][our_name], abs_tol=1e-12
                )


def test_export_run_refuses_a_report_whose_queries_errored(tmp_path):
    """A run cannot hold an error; a query left out of it would score as returning nothing
    once replayed (1.0 for a no-result query under abstain): refused, unless asked."""
    project = write_project(tmp_path, {"golden/g.yaml": GOLDEN})
    write_run(project / "dense.run", {"dense": {"rain-tomorrow": ["weather-forecast"]}})
    assert cli("evaluate", "dense.run", "--report", "report.json", cwd=project).code == 0
    report = load_json(project / "report.json")
    record = report["configurations"]["dense"]["queries"]["rain-tomorrow"]  # type: ignore[index]
    record.update(outcome="error", error="the retriever raised ConnectionError: down")
    record.update(metrics=dict.fromkeys(record["metrics"], 0.0))  # as an error scores
    (project / "report.json").write_text(json.dumps(report), encoding="utf-8")
    refused = cli("export", "run", "report.json", "-o", "runs", cwd=project)
    assert refused.code == 2
    assert "report.json: queries errored ('dense': rain-tomorrow); a run file cannot hold an " in (
        refused.err
    )
    assert "--drop-errors" in refused.err and not (project / "runs").exists()
    dropped = cli("export", "run", "report.json", "-o", "runs", "--drop-errors", cwd=project)
    assert dropped.code == 0, dropped.err
    assert "rain-tomorrow" not in (project / "runs" / "dense.run").read_text("utf-8")


def test_export_and_import_errors_exit_2(tmp_path):
    project = write_project(tmp_path, {"golden/g.yaml": GOLDEN})
    assert cli("export", "run", "missing.json", "-o", "x", cwd=project).code == 2
    (project / "not-a-report.json").write_text('{"format": "other"}', encoding="utf-8")
    ran = cli("export", "run", "not-a-report.json", "-o", "x", cwd=project)
    assert ran.code == 2 and "not a pytest-retrieval JSON report" in ran.err
    assert cli("import", "trec", "nope.txt", cwd=project).code == 2
    assert cli("import", "trec", "golden/g.yaml", "-o", "x.txt", cwd=project).code == 2


@pytest.mark.parametrize(
    ("output", "says"),
    [
        ("conftest.py/trec.yaml", "conftest.py: a part of the path is a file, not a folder"),
        ("/proc/trec.yaml", "/proc/trec.yaml: No such file or directory"),
    ],
)
def test_an_output_that_cannot_be_written_is_a_message_not_a_traceback(
    tmp_path: Path, output: str, says: str
) -> None:
    project = _project(tmp_path)
    (project / "conftest.py").write_text("", encoding="utf-8")
    ran = cli("import", "trec", "qrels.txt", "-o", output, cwd=project)
    assert ran.code == 2, ran.err
    last = ran.err.splitlines()[-1]
    assert last.startswith("pytest-retrieval: error: ") and says in last, ran.err
    assert "Traceback" not in ran.err


def test_export_notes_fit_an_80_column_terminal(tmp_path, monkeypatch):
    """'1 no-result query left out (a qrels file cannot hold ...): lottery' and 'the
    report keeps each query's top 20 ...' were single lines of 90 to 200 characters."""
    monkeypatch.setenv("COLUMNS", "80")
    project = write_project(tmp_path, {"golden/g.yaml": GOLDEN})
    ran = cli("export", "trec", "-o", "qrels.txt", cwd=project)
    assert ran.code == 0 and "1 no-result query left out" in ran.err, ran.err
    write_run(project / "dense.run", {"dense": {"rain-tomorrow": ["weather-forecast"]}})
    assert cli("evaluate", "dense.run", "--report", "report.json", cwd=project).code == 0
    exported = cli("export", "run", "report.json", "-o", "runs", cwd=project)
    assert exported.code == 0 and "(the largest cut of" in exported.err, exported.err
    for text in (ran.err, exported.err):
        assert max(map(len, text.splitlines())) <= 80, text


def test_export_run_never_writes_a_hidden_file(tmp_path):
    """A configuration named '..' or '.hidden' was written to '...run' or '.hidden.run',
    which a folder listing does not show."""
    project = write_project(tmp_path)
    write_run(project / "odd.run", {"..": {"rain-tomorrow": ["x"]}, ".v2": {"fx-exact": ["y"]}})
    assert cli("evaluate", "odd.run", "--report", "report.json", cwd=project).code == 0
    ran = cli("export", "run", "report.json", "-o", "runs", cwd=project)
    assert ran.code == 0, ran.err
    assert sorted(p.name for p in (project / "runs").iterdir()) == ["_..run", "_v2.run"]


@pytest.mark.parametrize("output", [[], ["-o", "out.yaml"], ["-o", "out.jsonl"]])
def test_an_id_no_golden_file_can_hold_is_named_at_its_line_of_the_qrels(tmp_path, output):
    """A document id with a zero-width space, or a query id with a control character,
    was named at the output ('out.jsonl: query ...', 'golden YAML: query ...'): a file
    that does not exist yet and holds nothing to fix; the qrels line does."""
    project = write_project(tmp_path, {})
    qrels = "q1 0 d1 1\nq2 0 d\u200b2 1\nq\x073 0 d3 1\n"
    (project / "odd.qrels").write_text(qrels, encoding="utf-8")
    ran = cli("import", "trec", "odd.qrels", *output, cwd=project)
    assert ran.code == 2, ran.err
    assert "odd.qrels:2: query 'q2': 'relevant': id 'd\\u200b2' holds an invisible" in ran.err
    assert "odd.qrels:3: query 'q\\x073': id 'q\\x073' holds a tab, a newline" in ran.err
    assert "out." not in ran.err and "golden YAML" not in ran.err
    assert not (project / "out.yaml").exists() and not (project / "out.jsonl").exists()


def test_a_category_no_golden_file_can_hold_is_named_at_its_line_of_the_categories(tmp_path):
    """'q1 all' (the overall row's name) was named at the qrels' line of q1, a file that
    holds no category."""
    project = _project(tmp_path)
    (project / "cats.tsv").write_text("401\tmoney\n00123 all\n", encoding="utf-8")
    ran = cli("import", *TREC_IMPORT, "--categories", "cats.tsv", cwd=project)
    assert ran.code == 2, ran.err
    assert (
        "cats.tsv:2: query '00123': category 'all' is reserved for the overall row of the "
        "tables; rename it"
    ) in ran.err
    assert "qrels.txt" not in ran.err


@pytest.mark.parametrize(
    ("category", "says"),
    [
        ("all", "category 'all' is reserved for the overall row of the tables"),
        ("", "the value is empty"),
        ("a\nb", "holds a tab, a newline or another control character"),
    ],
)
def test_a_bad_category_option_is_one_usage_error_not_one_per_query(tmp_path, category, says):
    """'--category all' was refused once per judged query, each at its qrels line."""
    project = _project(tmp_path)
    ran = cli("import", *TREC_IMPORT, "--category", category, cwd=project)
    assert ran.code == 2, ran.err
    assert "argument --category: " in ran.err and says in ran.err
    assert "qrels.txt" not in ran.err and ran.err.count(says) == 1


def test_export_run_writes_every_run_or_none(tmp_path):
    """A folder refusing the second run file (here a folder of its name) left the first
    written: a half export, each file named as written before the failure."""
    project = write_project(tmp_path, {"golden/g.yaml": GOLDEN})
    rankings = {"rain-tomorrow": ["weather-forecast"]}
    write_run(project / "both.run", {"a": rankings, "b": rankings})
    assert cli("evaluate", "both.run", "--report", "report.json", cwd=project).code == 0
    (project / "runs" / "b.run").mkdir(parents=True)
    ran = cli("export", "run", "report.json", "-o", "runs", cwd=project)
    assert ran.code == 2, ran
    assert "b.run" in ran.err and "no run was written" in ran.err
    assert sorted(p.name for p in (project / "runs").iterdir()) == ["b.run"]  # a.run not written
    assert "wrote run" not in ran.out + ran.err


def test_import_trec_given_a_run_names_it_a_run_and_the_option_it_belongs_to(tmp_path):
    """A run where the qrels belong listed each of its lines as 'expected 4 fields, got
    6 ...; ids cannot hold spaces'."""
    project = _project(tmp_path)
    write_run(project / "bm25.run", {"bm25": {"00123": ["d1", "D-07"]}})
    ran = cli("import", "trec", "bm25.run", "-o", "golden/trec.yaml", cwd=project)
    assert ran.code == 2
    assert ran.err == (
        "pytest-retrieval: error: bm25.run is a TREC run ('qid Q0 docno rank score tag' "
        "lines), not qrels; import trec reads judgments ('qid iter docno rel' lines): give the "
        "qrels file, and the run with --run bm25.run\n"
    )
    assert not (project / "golden/trec.yaml").exists()


def test_import_trec_refuses_topics_of_three_columns_before_writing(tmp_path):
    """A 'qid<TAB>text<TAB>category' topics file imported each category into its query's
    text, after a tab, and said nothing."""
    project = _project(tmp_path)
    (project / "t.tsv").write_text("00123\train tomorrow\thead\n401\tsnow\ttail\n", "utf-8")
    ran = cli("import", "trec", "qrels.txt", "--topics", "t.tsv", "-o", "g.yaml", cwd=project)
    assert ran.code == 2
    assert "t.tsv:1: query '00123': 3 tab-separated columns where 'qid<TAB>text' has 2" in ran.err
    assert not (project / "g.yaml").exists()


@pytest.mark.parametrize(
    ("given", "text"),
    [
        ("topics.txt", "<top>\n<num> Number: 00123\n<title> rain tomorrow\n</top>\n"),
        ("topics.tsv", "00123\train tomorrow in the city\n401\tsnow\n"),
    ],
)
def test_import_trec_given_topics_as_qrels_names_them_and_the_option(tmp_path, given, text):
    """The topics where the qrels belong (the two files swapped) listed 50 of their lines
    as 'expected 4 fields', or as documents judged twice, then a count."""
    project = _project(tmp_path)
    (project / given).write_text(text, "utf-8")
    ran = cli("import", "trec", given, "--topics", "qrels.txt", "-o", "g.yaml", cwd=project)
    assert ran.code == 2
    assert ran.err == (
        f"pytest-retrieval: error: {given} is a topics file, not qrels; import trec reads "
        "judgments ('qid iter docno rel' lines): give the qrels file first, and the topics "
        f"with --topics {given}\n"
    )
    assert not (project / "g.yaml").exists()


@pytest.mark.parametrize("given", ["qrels.txt", "bm25.run", "tabbed.qrels"])
def test_import_trec_given_qrels_or_a_run_as_topics_names_what_it_is(tmp_path, given):
    """The qrels (or a run) given to --topics printed 'expected qid<TAB>text' for 50 of its
    lines, then '... and N more problems'; a tabbed qrels file was even read as topics."""
    project = _project(tmp_path)
    write_run(project / "bm25.run", {"bm25": {"00123": ["d1", "D-07"]}})
    (project / "tabbed.qrels").write_text("00123\t0\td1\t2\n401\t0\tx9\t3\n", "utf-8")
    ran = cli("import", "trec", "qrels.txt", "--topics", given, "-o", "g.yaml", cwd=project)
    assert ran.code == 2
    kind = (
        "a TREC run ('qid Q0 docno rank score tag' lines)"
        if given == "bm25.run"
        else ("a TREC qrels file ('qid iter docno rel' lines)")
    )
    assert ran.err == (
        f"pytest-retrieval: error: --topics {given} is {kind}, not topics; give the topics "
        "file (TREC <top> blocks, or 'qid<TAB>text' lines)\n"
    )
    # a topic line that also reads as a qrels line ('00123 what is 42') is a topic
    (project / "t.tsv").write_text("00123\twhat is 42\n401\tGermany in 1990\n", "utf-8")
    ran = cli("import", "trec", "qrels.txt", "--topics", "t.tsv", "-o", "g.yaml", cwd=project)
    assert ran.code == 0, ran.err
    assert "query: what is 42" in (project / "g.yaml").read_text("utf-8")


def test_import_beir_given_a_file_of_the_folder_names_the_folder_and_counts_read_right(
    tmp_path,
):
    """'import beir beir/corpus.jsonl' said 'no corpus.jsonl in the folder' (and no
    queries.jsonl, no qrels) of a file; one query imported was 'wrote 1 golden queries'."""
    project = write_project(tmp_path, {})
    _beir(project / "beir")
    ran = cli("import", "beir", "beir/corpus.jsonl", cwd=project)
    assert ran.code == 2
    assert ran.err == (
        "pytest-retrieval: error: beir/corpus.jsonl is a file; import beir takes the BEIR "
        "folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv): give beir\n"
    )
    (project / "beir/qrels/one.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\t00123\t2\n", encoding="utf-8"
    )
    ran = cli("import", "beir", "beir", "--split", "one", "-o", "golden/one.yaml", cwd=project)
    assert ran.code == 0, ran.err
    assert "wrote 1 golden query to golden/one.yaml" in ran.err


def test_an_import_over_a_golden_file_says_it_replaced_it(tmp_path):
    """-o replaces a golden file, as cp does; it said only 'wrote', so a golden file edited
    by hand since the last import (texts, categories) was lost without a word."""
    project = write_project(tmp_path, {})
    _beir(project / "beir")
    (project / "beir/qrels/one.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\t00123\t2\n", encoding="utf-8"
    )
    command = ("import", "beir", "beir", "--split", "one", "-o", "golden/one.yaml")
    first = cli(*command, cwd=project)
    assert first.code == 0, first.err
    assert "replacing" not in first.err
    again = cli(*command, cwd=project)
    assert again.code == 0, again.err
    assert (
        "wrote 1 golden query to golden/one.yaml, replacing the file that was there "
        "(`git diff` shows what changed)"
    ) in again.err
