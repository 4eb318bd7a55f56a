"""``pool`` -> fill in -> ``merge``: the golden files keep their comments, order and layout."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from cli_project import cli, write_project, write_run

from pytest_retrieval.io.common import FormatError
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.io.golden_merge import merge_judgments

GOLDEN = """\
# Weather and money: the queries people ask most.
defaults:
  category: paraphrase   # most of them

queries:
  # block mapping, with a comment after a judgment
  - id: rain-tomorrow
    query: is it going to rain tomorrow
    relevant:
      weather-forecast: 3   # the obvious answer
      "00123": 1
    expect: {mrr: 0.5}

  - id: convert-euros     # flow mapping
    query: convert euros to dollars
    relevant: {fx-rates: 2, tide-tables: 0}  # reviewed
  - id: fx-exact
    query: FX Rates API
    relevant: [fx-rates]
  - id: fx-block
    query: exchange rates
    relevant:
      - fx-rates   # grade 1
      - fx-history
  - id: lottery
    query: predict the lottery numbers
    category: no-result
    relevant: {}
"""
RUNS = {
    "bm25": {
        "rain-tomorrow": ["weather-forecast", "umbrella", "00123", "tide-tables"],
        "convert-euros": ["tide-tables", "fx-rates", "bank"],
        "fx-exact": ["fx-rates", "fx-history"],
        "fx-block": ["fx-history", "fx-rates", "bank"],
        "lottery": ["lotto-stats"],
    },
    "dense": {
        "rain-tomorrow": ["umbrella", "weather-forecast", "sky"],
        "convert-euros": ["bank", "fx-rates"],
        "lottery": ["lotto-stats", "casino"],
        "unknown-query": ["x"],
    },
}
INI = "[pytest]\nretrieval_golden = golden\nretrieval_metrics = ndcg@3 mrr\n"


def _pooled(tmp_path: Path) -> Path:
    project = write_project(tmp_path, {"golden/weather.yaml": GOLDEN}, ini=INI)
    for tag, queries in RUNS.items():
        write_run(project / f"{tag}.run", {tag: queries})
        ran = cli("evaluate", f"{tag}.run", "--report", f"{tag}.json", cwd=project)
        unknown = "'dense': 1 query of dense.run is not in the golden set, ignored: unknown-query"
        assert (unknown in ran.err) == (tag == "dense")
    ran = cli("pool", "bm25.json", "dense.json", "--depth", "3", "-o", "worklist.yaml", cwd=project)
    assert ran.code == 0, ran.err
    return project


WORKLIST = """\
# Unjudged results of the top 3: replace each 'grade: null' with a grade 0..3
# (0 = judged not relevant), then fold them into the golden files:
#   pytest-retrieval merge THIS-FILE
format: pytest-retrieval-worklist
version: 1
depth: 3
max_grade: 3
queries:
  - id: rain-tomorrow
    query: is it going to rain tomorrow
    category: paraphrase
    file: golden/weather.yaml
    judged: 2
    documents:
      - {id: umbrella, grade: null, found: {dense: 1, bm25: 2}}
      - {id: sky, grade: null, found: {dense: 3}}
  - id: convert-euros
    query: convert euros to dollars
    category: paraphrase
    file: golden/weather.yaml
    judged: 2
    documents:
      - {id: bank, grade: null, found: {dense: 1, bm25: 3}}
  - id: fx-exact
    query: FX Rates API
    category: paraphrase
    file: golden/weather.yaml
    judged: 1
    documents:
      - {id: fx-history, grade: null, found: {bm25: 2}}
  - id: fx-block
    query: exchange rates
    category: paraphrase
    file: golden/weather.yaml
    judged: 2
    documents:
      - {id: bank, grade: null, found: {bm25: 3}}
  - id: lottery
    query: predict the lottery numbers
    category: no-result
    file: golden/weather.yaml
    judged: 0
    documents:
      - {id: lotto-stats, grade: null, found: {bm25: 1, dense: 1}}
      - {id: casino, grade: null, found: {dense: 2}}
"""


def test_pool_lists_the_unjudged_top_n_with_where_each_came_from(tmp_path):
    project = _pooled(tmp_path)
    assert (project / "worklist.yaml").read_text(encoding="utf-8") == WORKLIST
    ran = cli("pool", "bm25.json", "dense.json", "--depth", "3", cwd=project)
    assert ran.out == WORKLIST
    assert "pooled 7 unjudged documents for 5 queries (1 with no judgment yet)" in ran.err
    assert "'dense': judged@3 is 0.417 on the 2 judged queries" in ran.err  # the pooling warning


GRADES = {"umbrella": 2, "sky": 0, "bank": 0, "fx-history": 1, "lotto-stats": 0, "casino": 0}


def _fill(path: Path, grades: dict[str, int]) -> None:
    def grade(match: re.Match[str]) -> str:
        value = grades.get(match.group(1))
        return match.group(0) if value is None else f"{{id: {match.group(1)}, grade: {value},"

    text = re.sub(r"\{id: ([^,]+), grade: null,", grade, path.read_text(encoding="utf-8"))
    path.write_text(text, encoding="utf-8")


def test_pool_fill_merge_keeps_comments_order_and_layout(tmp_path):
    project = _pooled(tmp_path)
    before = load_golden_file(project / "golden/weather.yaml")
    _fill(project / "worklist.yaml", GRADES)
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 0, ran.out + ran.err
    assert "merged 7 judgments into 1 golden file" in ran.err
    text = (project / "golden/weather.yaml").read_text(encoding="utf-8")
    expected = GOLDEN.replace(
        '      "00123": 1\n', '      "00123": 1\n      umbrella: 2\n      sky: 0\n'
    )
    expected = expected.replace("tide-tables: 0}", "tide-tables: 0, bank: 0}")
    expected = expected.replace("[fx-rates]", "{fx-rates: 1, fx-history: 1}")
    expected = expected.replace(
        "      - fx-rates   # grade 1\n      - fx-history\n",
        "        fx-rates: 1   # grade 1\n        fx-history: 1\n        bank: 0\n",
    )
    expected = expected.replace("relevant: {}", "relevant: {lotto-stats: 0, casino: 0}")
    assert text == expected
    after = {q.id: q for q in load_golden_file(project / "golden/weather.yaml")}
    for query in before:
        added = {d: g for d, g in GRADES.items() if d in _pool_of(query.id)}
        assert dict(after[query.id].relevant) == {**query.relevant, **added}
    again = cli("pool", "bm25.json", "dense.json", "--depth", "3", cwd=project)
    assert "pooled 0 unjudged documents for 0 queries" in again.err
    again = cli("merge", "worklist.yaml", cwd=project)  # equal grades: no change
    assert again.code == 0
    # it said 'merged 7 judgments into 1 golden file', having merged none
    assert again.err == "merged 0 judgments into 0 golden files (7 already there)\n"
    assert (project / "golden/weather.yaml").read_text(encoding="utf-8") == expected
    # the no-result query's results, judged 0, are what a no-result category holds: the
    # pre-commit check passes (its all-zero check is for a category with answers)
    checked = cli("validate", cwd=project)
    assert checked.code == 0, checked.out + checked.err


def _pool_of(qid: str) -> set[str]:
    block = WORKLIST.split(f"  - id: {qid}\n", 1)[1].split("  - id:", 1)[0]
    return set(re.findall(r"\{id: ([^,]+),", block))


def test_merge_refuses_ungraded_and_out_of_range_entries_and_writes_nothing(tmp_path):
    project = _pooled(tmp_path)
    golden = (project / "golden/weather.yaml").read_text(encoding="utf-8")
    _fill(project / "worklist.yaml", {**GRADES, "sky": 5, "casino": -1, "umbrella": None})  # type: ignore[dict-item]
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines == [
        "worklist.yaml:15: query 'rain-tomorrow': 'umbrella' has no grade yet; grade it 0..3",
        "worklist.yaml:16: query 'rain-tomorrow': grade of 'sky' is 5, outside 0..3 "
        "(retrieval_max_grade); use a grade in range or raise retrieval_max_grade",
        "worklist.yaml:45: query 'lottery': grade of 'casino' is -1, outside 0..3 "
        "(retrieval_max_grade); use a grade in range or raise retrieval_max_grade",
        "3 problems: nothing merged",
    ]
    assert (project / "golden/weather.yaml").read_text(encoding="utf-8") == golden


def test_merge_names_a_grade_yaml_reads_as_octal_as_written(tmp_path):
    project = _pooled(tmp_path)
    _fill(project / "worklist.yaml", {**GRADES, "sky": "010"})  # type: ignore[dict-item]
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines == [
        "worklist.yaml:16: query 'rain-tomorrow': grade of 'sky' is written 010, which YAML "
        "reads as the octal number 8; write 10 (or 8, if that is meant)",
        "1 problem: nothing merged",
    ]


def test_merge_refuses_a_grade_the_golden_file_contradicts(tmp_path):
    project = _pooled(tmp_path)
    _fill(project / "worklist.yaml", GRADES)
    path = project / "golden/weather.yaml"
    path.write_text(path.read_text("utf-8").replace("tide-tables: 0}", "tide-tables: 0, bank: 2}"))
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines[0] == (
        "golden/weather.yaml:16: query 'convert-euros': 'bank' is already judged 2 here, the "
        "worklist says 0: settle it in one of the two files, then merge again"
    )


def test_merge_dry_run_prints_a_diff(tmp_path):
    project = _pooled(tmp_path)
    _fill(project / "worklist.yaml", GRADES)
    ran = cli("merge", "worklist.yaml", "--dry-run", cwd=project)
    assert ran.code == 0
    assert ran.lines[:2] == ["--- a/golden/weather.yaml", "+++ b/golden/weather.yaml"]
    assert "+      umbrella: 2" in ran.lines
    assert (project / "golden/weather.yaml").read_text(encoding="utf-8") == GOLDEN


@pytest.mark.parametrize(
    ("relevant", "message"),
    [
        ("relevant: {a: 1,\n      b: 2}", "written over several lines inside braces"),
        ("relevant: &shared {a: 1}", "uses an anchor, an alias or a tag"),
        ("relevant: {a: 1}", None),
        ("'relevant': {a: 1}", None),  # was refused as 'written over several lines'
        # new lines went between 'a:' and its grade: a: null, c: '0 1'
        (  # indented for the dedent below: 'a:' under 'relevant:', '1' under 'a:'
            "relevant:\n              a:\n                1",
            "writes the grade of 'a' on a line of its own",
        ),
    ],
)
def test_what_cannot_be_edited_in_place_is_named(relevant, message):
    text = textwrap.dedent(
        f"""\
        queries:
          - id: q
            query: text
            {relevant}
        """
    )
    if message is None:
        merged = merge_judgments(text, "g.yaml", {"q": {"c": 0}})
        assert "{a: 1, c: 0}" in merged
        return
    with pytest.raises(FormatError, match=message):
        merge_judgments(text, "g.yaml", {"q": {"c": 0}})


def test_merge_after_a_line_separator_in_a_comment_edits_the_right_lines():
    """YAML counts U+2028 as a line break: the lines the loader named were off by one
    after it, and merge refused the query as if it used an anchor."""
    text = (
        "queries:\n  # a note\u2028# pasted\n  - id: q\n    query: text\n    relevant:\n"
        "      a: 1\n"
    )
    merged = merge_judgments(text, "g.yaml", {"q": {"c": 0}})
    assert merged == text + "      c: 0\n"


def test_pool_and_merge_usage_errors(tmp_path):
    project = _pooled(tmp_path)
    assert cli("pool", "bm25.json", "--depth", "0", cwd=project).code == 2
    assert cli("pool", "missing.json", "--depth", "3", cwd=project).code == 2
    assert cli("merge", "missing.yaml", cwd=project).code == 2
    ran = cli("merge", "golden/weather.yaml", cwd=project)
    assert ran.code == 1 and "not a worklist" in ran.out


def test_merge_refuses_two_grades_of_one_document_naming_both_lines(tmp_path):
    project = _pooled(tmp_path)
    golden = (project / "golden/weather.yaml").read_text(encoding="utf-8")
    _fill(project / "worklist.yaml", GRADES)
    path = project / "worklist.yaml"
    text = path.read_text(encoding="utf-8")
    sky = "      - {id: sky, grade: 0, found: {dense: 3}}\n"
    text = text.replace(sky, sky + sky.replace("grade: 0", "grade: 3"))  # line 17
    text += (  # the same query again, further down: one grade agrees, one contradicts
        "  - id: rain-tomorrow\n    file: golden/weather.yaml\n    documents:\n"
        "      - {id: umbrella, grade: 2}\n      - {id: sky, grade: 1}\n"
    )
    path.write_text(text, encoding="utf-8")
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines == [
        "worklist.yaml:17: query 'rain-tomorrow': 'sky' is graded 3 here and 0 on line 16: "
        "keep one of the two grades (delete the other line), then merge again",
        "worklist.yaml:51: query 'rain-tomorrow': 'sky' is graded 1 here and 0 on line 16: "
        "keep one of the two grades (delete the other line), then merge again",
        "2 problems: nothing merged",
    ]
    assert (project / "golden/weather.yaml").read_text(encoding="utf-8") == golden


def test_merge_refuses_a_hand_written_id_yaml_reads_as_another_value(tmp_path):
    """A document added by hand as ``{id: 00123, grade: 2}`` is YAML 1.1's 83: merged, it
    judged a document '83'. Ids are refused as in a golden file; the pool's own (quoted
    '00123', judged in the golden file above) reads back as written."""
    project = _pooled(tmp_path)
    golden = (project / "golden/weather.yaml").read_text(encoding="utf-8")
    _fill(project / "worklist.yaml", GRADES)
    path = project / "worklist.yaml"
    text = path.read_text(encoding="utf-8")
    added = "      - {id: 00123, grade: 2}\n      - {id: yes, grade: 1}\n"
    path.write_text(text.replace("      - {id: sky,", added + "      - {id: sky,"), "utf-8")
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines == [
        "worklist.yaml:16: query 'rain-tomorrow': document id 00123 is read by YAML as the "
        "number 83; quote it ('00123') to keep it as text",
        "worklist.yaml:17: query 'rain-tomorrow': document id true is read by YAML as a "
        "boolean (yes, no, on, off, true, false): quote it to keep it as text",
        "2 problems: nothing merged",
    ]
    assert (project / "golden/weather.yaml").read_text(encoding="utf-8") == golden
    path.write_text(text.replace("      - {id: sky,", "      - {id: '00124', grade: 2}\n"
                                 "      - {id: sky,"), "utf-8")  # fmt: skip
    assert cli("merge", "worklist.yaml", cwd=project).code == 0
    assert '"00124": 2' in (project / "golden/weather.yaml").read_text(encoding="utf-8")


def test_a_worklist_is_not_written_among_the_golden_files(tmp_path):
    """The next pytest --retrieval-eval would collect it as a golden file and stop."""
    project = _pooled(tmp_path)
    for output in ("golden/worklist.yaml", "golden/sub/w.YML"):
        (project / "golden/sub").mkdir(exist_ok=True)
        ran = cli("pool", "bm25.json", "--depth", "3", "-o", output, cwd=project)
        assert ran.code != 0 and not (project / output).exists()
        assert ran.err.strip() == (
            f"pytest-retrieval: error: -o {output} is inside the golden folder golden: the "
            "plugin would collect "
            "the worklist as a golden file and stop there; write it outside the golden "
            f"folders (-o {Path(output).name} in the project's folder)"
        ), ran.err
    named = cli(
        "pool", "bm25.json", "--depth=3", "--golden=golden/weather.yaml", "-o=w.yaml", cwd=project
    )
    assert named.code == 0, named.err
    beside = cli(
        "pool", "bm25.json", "--depth=3", "-o=golden/notes.txt", cwd=project
    )  # not collected
    assert beside.code == 0, beside.err


@pytest.mark.parametrize(
    ("newline", "last"),
    [("\r\n", "\r\n"), ("\n", ""), ("\r\n", "")],
    ids=["crlf", "no-eol", "both"],
)
def test_merge_keeps_the_line_endings_and_a_missing_last_line_break(tmp_path, newline, last):
    """A golden file saved on Windows (CRLF) came back with every line LF, and one without a
    line break at its end gained one: merge is to change nothing but the judgments."""
    (tmp_path / "lf").mkdir()
    (tmp_path / "other").mkdir()
    lf = _pooled(tmp_path / "lf")
    _fill(lf / "worklist.yaml", GRADES)
    assert cli("merge", "worklist.yaml", cwd=lf).code == 0
    expected = (lf / "golden/weather.yaml").read_bytes().decode("utf-8")
    project = _pooled(tmp_path / "other")
    path = project / "golden/weather.yaml"
    path.write_bytes((GOLDEN[:-1].replace("\n", newline) + last).encode("utf-8"))
    _fill(project / "worklist.yaml", GRADES)
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 0, ran.out + ran.err
    assert path.read_bytes().decode("utf-8") == expected[:-1].replace("\n", newline) + last


GOLDEN_JSONL = """\
{"defaults": {"category": "paraphrase"}}
{"id": "rain-tomorrow", "query": "will it rain tomorrow", "relevant": {"weather-forecast": 3}}

{"id": "fx-exact",   "query": "FX Rates API", "relevant": ["fx-rates"], "tags": ["core"]}
{"id": "lottery", "query": "predict the lottery numbers", "relevant": {}}
"""


def test_merge_folds_a_worklist_into_a_jsonl_golden_file(tmp_path):
    """A pool over a JSONL golden file named the file, and merge refused it as a 'YAML
    syntax error'. The lines of the queries that get judgments are written again, the
    others stay byte for byte."""
    project = write_project(tmp_path, {"golden/weather.jsonl": GOLDEN_JSONL}, ini=INI)
    runs = {"rain-tomorrow": ["umbrella"], "fx-exact": ["fx-history"], "lottery": ["casino"]}
    write_run(project / "bm25.run", {"bm25": runs})
    assert cli("evaluate", "bm25.run", "--report", "bm25.json", cwd=project).code == 0
    assert cli("pool", "bm25.json", "--depth", "3", "-o", "worklist.yaml", cwd=project).code == 0
    _fill(project / "worklist.yaml", {"umbrella": 2, "fx-history": 1, "casino": 0})
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 0, ran.out + ran.err
    assert "merged 3 judgments into 1 golden file" in ran.err
    lines = GOLDEN_JSONL.splitlines(keepends=True)
    lines[1] = lines[1].replace("3}", '3, "umbrella": 2}')
    lines[3] = (
        '{"id": "fx-exact", "query": "FX Rates API", "relevant": {"fx-rates": 1, '
        '"fx-history": 1}, "tags": ["core"]}\n'
    )
    lines[4] = lines[4].replace("{}", '{"casino": 0}')
    assert (project / "golden/weather.jsonl").read_text(encoding="utf-8") == "".join(lines)
    assert cli("validate", "--ignore", "all-zero", cwd=project).code == 0


def test_pool_leaves_out_documents_whose_ids_no_golden_file_can_hold(tmp_path):
    """A retriever's id with an invisible or control character inside was pooled, and merge
    then refused the graded worklist ('remove it'): the pool could never be merged, and an
    id with the character removed would never match the retriever's."""
    project = write_project(tmp_path, {"golden/weather.yaml": GOLDEN}, ini=INI)
    odd = {"rain-tomorrow": ["umbrella", "x\u200by", "x\x1cy"]}
    write_run(project / "odd.run", {"odd": odd})
    assert cli("evaluate", "odd.run", "--report", "odd.json", cwd=project).code == 1  # expect
    ran = cli("pool", "odd.json", "--depth", "3", "-o", "worklist.yaml", cwd=project)
    assert ran.code == 0, ran.err
    assert (
        "2 documents left out: a golden file cannot hold their ids (a control or invisible "
        "character, white space at an end), so no grade of them could be merged: x\\u200by, "
        "x\\x1cy" in ran.notes
    )
    text = (project / "worklist.yaml").read_text(encoding="utf-8")
    assert "umbrella" in text and "x\u200by" not in text and "x\x1cy" not in text
    _fill(project / "worklist.yaml", {"umbrella": 2})
    assert cli("merge", "worklist.yaml", cwd=project).code == 0


def test_a_merged_draft_that_would_not_load_is_merges_fault_not_the_files(tmp_path, monkeypatch):
    """When the merged text would not load, merge named problems of the user's file at
    lines that hold none (they were in its own draft)."""
    import pytest_retrieval.cli.pool as pool

    project = _pooled(tmp_path)
    _fill(project / "worklist.yaml", GRADES)
    monkeypatch.setattr(pool, "merge_judgments", lambda text, *a, **k: text + "  - {id: x}\n")
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines[0].startswith(
        "golden/weather.yaml: merge refused: the merged file would not load (query 'x': "
    ), ran.out
    assert ran.lines[0].endswith("please report this with the file")


def test_pool_does_not_write_over_a_worklist_holding_grades(tmp_path):
    """A half-graded worklist pooled again with the same -o lost every grade in it."""
    project = _pooled(tmp_path)
    _fill(project / "worklist.yaml", {"umbrella": 2})
    graded = (project / "worklist.yaml").read_text(encoding="utf-8")
    ran = cli("pool", "bm25.json", "dense.json", "--depth", "3", "-o", "worklist.yaml", cwd=project)
    assert ran.code == 2
    assert ran.err == (
        "pytest-retrieval: error: -o worklist.yaml: the worklist holds 1 grade not merged yet: "
        "writing would lose it; merge it first (pytest-retrieval merge worklist.yaml), or "
        "write the new pool to another path\n"
    )
    assert (project / "worklist.yaml").read_text(encoding="utf-8") == graded
    ungraded = cli("pool", "bm25.json", "--depth", "2", "-o", "fresh.yaml", cwd=project)
    assert ungraded.code == 0  # and an ungraded worklist is written over as before
    assert cli("pool", "bm25.json", "--depth", "3", "-o", "fresh.yaml", cwd=project).code == 0


def test_merge_keeps_a_byte_order_mark():
    """A JSONL golden file saved with a byte-order mark loads, but merge refused it: 'JSON
    syntax error: Expecting value (column 1)' at its first line."""
    text = '\ufeff{"id": "q", "query": "t", "relevant": {"a": 1}}\n'
    expected = '\ufeff{"id": "q", "query": "t", "relevant": {"a": 1, "c": 0}}\n'
    assert merge_judgments(text, "g", {"q": {"c": 0}}, jsonl=True) == expected


def test_merge_edits_a_query_written_as_one_line_of_flow():
    """'- {id: q, query: t, relevant: {a: 1}}': the new pairs went after the query's own
    closing brace, and merge refused its own draft (asking for a bug report)."""
    text = (
        "queries:\n  - {id: q, query: t, relevant: {a: 1}, tags: [x]}  # one {note}\n"
        "  - {id: r, query: \"it's {odd}\", relevant: [a, 'b,c']}\n"
    )
    assert merge_judgments(text, "g", {"q": {"c": 0}, "r": {"d": 2}}) == (
        "queries:\n  - {id: q, query: t, relevant: {a: 1, c: 0}, tags: [x]}  # one {note}\n"
        '  - {id: r, query: "it\'s {odd}", relevant: {a: 1, "b,c": 1, d: 2}}\n'
    )


def test_with_the_project_folder_as_golden_folder_no_path_inside_it_is_suggested(tmp_path):
    project = _pooled(tmp_path)
    ran = cli("pool", "bm25.json", "--depth=3", "--golden=.", "-o", "golden/w.yaml", cwd=project)
    assert ran.code != 0
    assert ran.err.strip().endswith("write it outside the golden folders"), ran.err


@pytest.mark.parametrize(
    "relevant",
    ["relevant:\n      a: 1\n", "relevant: {a: 1}\n", "relevant: [a]\n"],
    ids=["block", "flow", "list"],
)
def test_merge_writes_a_document_id_longer_than_a_yaml_key_may_be(tmp_path, relevant):
    """A pooled id of 2,000 characters (a URL) was written 'id: 0', which YAML cannot read
    past 1,024 characters: merge refused its own draft, asking for a bug report."""
    long = "https://example.com/" + "x" * 2000
    text = f"queries:\n  - id: q\n    query: t\n    {relevant}"
    merged = merge_judgments(text, "g.yaml", {"q": {long: 2, "b": 0}})
    (tmp_path / "g.yaml").write_text(merged, encoding="utf-8")
    loaded = [(q.id, dict(q.relevant)) for q in load_golden_file(tmp_path / "g.yaml")]
    assert loaded == [("q", {"a": 1, long: 2, "b": 0})]


def test_merge_refuses_an_empty_document_id_at_its_worklist_line(tmp_path):
    """'{id: "", grade: 1}' got as far as the merged draft, which was refused as merge's own
    fault ('please report this with the file'): the worklist's line holds the mistake."""
    project = _pooled(tmp_path)
    golden = (project / "golden/weather.yaml").read_text(encoding="utf-8")
    _fill(project / "worklist.yaml", GRADES)
    path = project / "worklist.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("      - {id: sky,", "      - {id: '', grade: 1}\n"
                                 "      - {id: sky,"), "utf-8")  # fmt: skip
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines == [
        "worklist.yaml:16: query 'rain-tomorrow': document id is empty: fill it in, or delete "
        "the entry",
        "1 problem: nothing merged",
    ]
    assert (project / "golden/weather.yaml").read_text(encoding="utf-8") == golden


@pytest.mark.parametrize(("written", "read"), [("2", "2"), ("true", "True")])
def test_merge_refuses_a_worklist_of_another_version(tmp_path, written, read):
    """'version: 2' (a later plugin's worklist, whose fields may mean other things) was
    merged as version 1; the baseline, the reports and the log refuse another version.
    'version: true' (which Python takes for 1) is refused too."""
    project = _pooled(tmp_path)
    golden = (project / "golden/weather.yaml").read_text(encoding="utf-8")
    _fill(project / "worklist.yaml", GRADES)
    path = project / "worklist.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("version: 1", f"version: {written}"), "utf-8"
    )
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 1
    assert ran.lines == [
        f"worklist.yaml:5: worklist version {read}; this version reads 1: make the worklist again "
        "with pytest-retrieval pool",
        "1 problem: nothing merged",
    ]
    assert (project / "golden/weather.yaml").read_text(encoding="utf-8") == golden


def test_a_merge_that_cannot_write_one_golden_file_writes_none(tmp_path, monkeypatch):
    """The second file's folder refused the write (read only, full): the first golden file
    was already merged, the run said only that the second could not be written."""
    more = "queries:\n  - id: other\n    query: other things\n    relevant: {x: 1}\n"
    project = write_project(
        tmp_path, {"golden/weather.yaml": GOLDEN, "golden/sub/more.yaml": more}, ini=INI
    )
    (project / "worklist.yaml").write_text(
        "format: pytest-retrieval-worklist\nversion: 1\nqueries:\n"
        "  - {id: rain-tomorrow, file: golden/weather.yaml, documents: [{id: sky, grade: 1}]}\n"
        "  - {id: other, file: golden/sub/more.yaml, documents: [{id: why, grade: 2}]}\n",
        encoding="utf-8",
    )
    before = {p: p.read_bytes() for p in (project / "golden").rglob("*") if p.is_file()}
    import tempfile

    real = tempfile.mkstemp

    def refused(*args, **kwargs):
        if Path(kwargs["dir"]).name == "sub":
            raise PermissionError(13, "Permission denied")
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    ran = cli("merge", "worklist.yaml", cwd=project)
    assert ran.code == 2
    assert "golden/sub/more.yaml: Permission denied" in ran.err
    after = {p: p.read_bytes() for p in (project / "golden").rglob("*") if p.is_file()}
    assert after == before  # nothing merged, no temporary file left
    monkeypatch.setattr(tempfile, "mkstemp", real)
    assert cli("merge", "worklist.yaml", cwd=project).code == 0
    assert "sky: 1" in (project / "golden/weather.yaml").read_text(encoding="utf-8")
    assert "why: 2" in (project / "golden/sub/more.yaml").read_text(encoding="utf-8")


def test_a_report_given_twice_is_refused_and_reports_alike_in_name_are_kept_apart(tmp_path):
    """``pool r.json r.json`` pooled a report with itself (labels r:bm25); two reports named
    alike in two folders gave one label, and the second replaced the first's rankings."""
    project = _pooled(tmp_path)
    for twice in (["bm25.json", "bm25.json"], ["bm25.json", "./bm25.json"]):
        ran = cli("pool", *twice, "--depth", "3", cwd=project)
        assert ran.code == 2 and "is given twice" in ran.err, ran
    (project / "a").mkdir()
    (project / "b").mkdir()
    (project / "bm25.json").rename(project / "a" / "r.json")
    (project / "dense.json").rename(project / "b" / "r.json")
    apart = cli("pool", "a/r.json", "b/r.json", "--depth", "3", cwd=project)
    assert apart.code == 0, apart.err
    assert "found: {bm25: 1, dense: 1}" in apart.out  # both runs pooled, by configuration
    (project / "b" / "r.json").write_text(
        (project / "a" / "r.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    same = cli("pool", "a/r.json", "b/r.json", "--depth", "3", cwd=project)
    assert same.code == 0, same.err
    assert 'found: {"a/r.json:bm25": 1, "b/r.json:bm25": 1}' in same.out, same.out


def test_the_pooling_note_counts_in_the_right_number_with_thousands_marked() -> None:
    """'its 1 unjudged results', '21203 unjudged results' (the docs show 8,522)."""
    from pytest_retrieval.pooling import Coverage

    one = Coverage("bm25", 10, 1, 0, 0.9, 1).note()
    assert one is not None and one.endswith(
        "on the 1 judged query that returned something; its 1 unjudged result counts as not "
        "relevant, so its scores are lower bounds until it is graded (pytest-retrieval pool "
        "lists it)"
    )
    many = Coverage("bm25", 100, 2250, 3, 0.06, 21203).note()
    assert many is not None
    assert "on the 2,250 judged queries that returned something (3 returned nothing" in many
    assert "its 21,203 unjudged results count as not relevant" in many


def test_the_pooling_note_tells_errored_queries_from_empty_ones() -> None:
    """A report's errored queries have no ranking: they were counted as 'returned nothing'."""
    from pytest_retrieval.pooling import coverage

    rankings = {"a": ["x", "u"], "b": [], "c": []}
    judgments = {"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}, "d": {"x": 1}}
    note = coverage("bm25", rankings, judgments, 10, errors={"c", "d"}).note()
    assert note is not None
    assert (
        "on the 1 judged query that returned something (1 returned nothing, 2 errored: left out)"
        in note
    )
