"""``agreement A B``: Cohen's kappa of two judges, by hand and against scikit-learn."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from cli_project import cli, write_project

from pytest_retrieval.golden import GoldenQuery
from pytest_retrieval.io.golden_writer import golden_yaml

A = """\
queries:
  - {id: q1, query: rain, category: weather, relevant: {a: 3, b: 0, c: 1}}
  - {id: q2, query: euros, category: money, relevant: {d: 2, e: 0}}
"""
B_WORKLIST = """\
format: pytest-retrieval-worklist
version: 1
depth: 3
max_grade: 3
queries:
  - id: q1
    query: rain
    category: weather
    file: golden/a.yaml
    judged: 0
    documents:
      - {id: a, grade: 3, found: {x: 1}}
      - {id: b, grade: 1, found: {x: 2}}
      - {id: c, grade: 1, found: {x: 3}}
  - id: q2
    query: euros
    category: money
    file: golden/a.yaml
    judged: 0
    documents:
      - {id: d, grade: 2, found: {x: 1}}
      - {id: e, grade: 0, found: {x: 2}}
      - {id: f, grade: 1, found: {x: 3}}
      - {id: g, grade: null, found: {x: 4}}
"""


def test_a_hand_computed_case(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # the table whole, on one line a row
    project = write_project(tmp_path, {"golden/a.yaml": A, "person.yaml": B_WORKLIST})
    ran = cli("agreement", "golden/a.yaml", "person.yaml", cwd=project)
    assert ran.code == 0, ran.err
    # 5 pairs both judged, 4 equal: raw 0.8; chance 6/25: kappa (0.8 - 0.24) / 0.76;
    # linear: observed disagreement 1/15, expected 31/75: 1 - 5/31
    assert ran.lines[-1].split() == ["all", "2", "5", "0.800", "0.737", "0.839", "0", "1"]
    assert (
        pytest.approx(0.7368, abs=1e-4) == 0.56 / 0.76
        and pytest.approx(0.8387, abs=1e-4) == 26 / 31
    )
    by = cli("agreement", "golden/a.yaml", "person.yaml", "--by", "category", cwd=project)
    rows = [line.split() for line in by.lines[3:]]
    assert [r[:3] for r in rows] == [["money", "1", "2"], ["weather", "1", "3"], ["all", "2", "5"]]
    assert rows[0][3:] == ["1.000", "1.000", "1.000", "0", "1"]  # money: d and e agree
    # weather: (3,3) (0,1) (1,1): raw 2/3, chance 3/9: kappa (2/3 - 1/3) / (2/3)
    assert rows[1][3:] == ["0.667", "0.500", "0.727", "0", "0"]


def test_agreement_equals_scikit_learn_on_generated_judges(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # the table whole, on one line a row
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(12)
    first: list[GoldenQuery] = []
    second: list[GoldenQuery] = []
    pairs: list[tuple[int, int]] = []
    for q in range(30):
        a_grades, b_grades = {}, {}
        for d in range(rng.randint(1, 6)):
            a = rng.randint(0, 3)
            b = a if rng.random() < 0.6 else rng.randint(0, 3)
            a_grades[f"d{d}"], b_grades[f"d{d}"] = a, b
            pairs.append((a, b))
        first.append(GoldenQuery(f"q{q}", f"query {q}", relevant=a_grades))
        second.append(GoldenQuery(f"q{q}", f"query {q}", relevant=b_grades))
    project = write_project(tmp_path, {"a.yaml": golden_yaml(first), "b.yaml": golden_yaml(second)})
    ran = cli("agreement", "a.yaml", "b.yaml", cwd=project)
    row = ran.lines[-1].split()
    labels = [0, 1, 2, 3]
    ys = ([a for a, _ in pairs], [b for _, b in pairs])
    kappa = sklearn_metrics.cohen_kappa_score(*ys, labels=labels)
    linear = sklearn_metrics.cohen_kappa_score(*ys, labels=labels, weights="linear")
    assert row[2] == str(len(pairs))
    assert row[4] == f"{kappa:.3f}" and row[5] == f"{linear:.3f}"


def test_agreement_errors(tmp_path):
    project = write_project(tmp_path, {"golden/a.yaml": A})
    assert cli("agreement", "golden/a.yaml", "missing.yaml", cwd=project).code == 2
    Path(project / "bad.yaml").write_text("queries:\n  - {id: q1}\n", encoding="utf-8")
    ran = cli("agreement", "golden/a.yaml", "bad.yaml", cwd=project)
    assert ran.code == 2 and "bad.yaml:2: query 'q1': 'query' is missing" in ran.err

    # one judge against itself: kappa 1.0 by construction, which reads as full agreement
    for a, b in [("golden/a.yaml", "./golden/a.yaml"), ("golden", "golden/")]:
        same = cli("agreement", a, b, cwd=project)
        assert same.code == 2
        assert same.err == (
            f"pytest-retrieval: error: A ({a}) and B ({b}) are the same judgments: agreement "
            "compares two judges; give the other judge's files\n"
        )


def test_a_and_b_sharing_a_golden_file_is_refused(tmp_path):
    """A a folder, B a file in it: the file's judgments were compared with themselves
    (kappa 1.000 on every pair, exit 0), as with A and B the same files."""
    project = write_project(
        tmp_path, {"golden/a.yaml": A, "golden/b.yaml": A.replace("id: q", "id: p")}
    )
    ran = cli("agreement", "golden", "golden/a.yaml", cwd=project)
    assert ran.code == 2, ran.out
    assert ran.err == (
        "pytest-retrieval: error: A (golden) and B (golden/a.yaml) share golden/a.yaml: its "
        "judgments would agree with themselves; give each judge's own files\n"
    )


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("r.json", '{\n  "format": "pytest-retrieval-report",\n  "version": 1\n}\n', "JSON report"),
        ("b.json", '{"format": "pytest-retrieval-baseline", "version": 1}\n', "baseline"),
        ("run.jsonl", '{"format": "pytest-retrieval recording", "version": 1}\n', "recording"),
    ],
)
def test_a_plugin_file_given_for_golden_judgments_is_named_for_what_it_is(
    tmp_path, name, text, kind
):
    project = write_project(tmp_path, {"golden/a.yaml": A})
    (project / name).write_text(text, encoding="utf-8")
    ran = cli("agreement", "golden/a.yaml", name, cwd=project)
    assert ran.code == 2
    assert ran.err.count("\n") == 1, ran.err  # one line, not one per top-level key
    assert f"{name} is a pytest-retrieval {kind}" in ran.err
    assert (
        "not a golden file; agreement compares the grades of two judges: give two golden "
        in ran.err
    )
    validated = cli("validate", name, cwd=project)
    assert validated.code == 2
    assert validated.err.strip().endswith(
        "not a golden file; give golden files (.yaml, .yml, .jsonl) or folders of them"
    )


def test_the_agreement_table_fits_the_terminal(tmp_path, monkeypatch):
    """Its eight columns took 82 characters: every line wrapped in an 80-column terminal."""
    project = write_project(tmp_path, {"golden/a.yaml": A, "person.yaml": B_WORKLIST})
    for columns in (80, 50):
        monkeypatch.setenv("COLUMNS", str(columns))
        ran = cli("agreement", "golden/a.yaml", "person.yaml", "--by", "category", cwd=project)
        assert ran.code == 0, ran.err
        assert max(len(line) for line in ran.lines) <= columns, ran.out
        assert ran.out.count("money ") == 2  # the columns split over two tables


def test_no_pair_judged_by_both_is_a_finding_not_a_result(tmp_path):
    other = A.replace("q1", "r1").replace("q2", "r2")
    project = write_project(tmp_path, {"golden/a.yaml": A, "other/b.yaml": other})
    ran = cli("agreement", "golden/a.yaml", "other/b.yaml", cwd=project)
    assert ran.code == 1, ran
    assert "no (query, document) pair is judged by both" in ran.out + ran.err
    assert "the same query and document ids" in (ran.out + ran.err).replace("\n  ", " ")


@pytest.mark.parametrize(
    ("name", "text", "fix"),
    [
        (
            "judge.qrels",
            "q1 0 d1 3\nq1 0 d2 1\n",
            "TREC qrels file ('qid iter docno rel' lines), not a golden file; "
            "agreement compares the grades of two judges: give two golden files or folders, "
            "or graded worklists: import it first: `pytest-retrieval import trec judge.qrels "
            "-o judge.yaml`",
        ),
        (
            "bm25.run",
            "q1 Q0 d1 1 2.5 bm25\n",
            "TREC run ('qid Q0 docno rank score tag' lines), not a golden file; "
            "agreement compares the grades of two judges: give two golden files or folders, "
            "or graded worklists: a run holds no grades: import the qrels file that judges "
            "it (`pytest-retrieval import trec QRELS --run bm25.run -o golden/qrels.yaml`), "
            "and score the run with `pytest-retrieval evaluate bm25.run`",
        ),
    ],
)
def test_a_trec_file_given_for_judgments_is_named_with_the_import(tmp_path, name, text, fix):
    """Two judges' qrels files were read as YAML: "the file holds text 'q1 0 d1 3 q1 0
    d2 1', not a mapping with a 'queries:' list; write 'queries:' ...", no word of
    TREC or of the import that makes a golden file of them."""
    project = write_project(tmp_path, {"golden/a.yaml": A})
    (project / name).write_text(text, encoding="utf-8")
    ran = cli("agreement", "golden/a.yaml", name, cwd=project)
    assert ran.code == 2
    assert ran.err == f"pytest-retrieval: error: {name} is a {fix}\n"
