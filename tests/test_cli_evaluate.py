"""``evaluate`` (the plugin's numbers without pytest) and ``compare`` (the gate's rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_project import cli, load_json, write_project, write_run, write_run_conftest

from conftest import e2e_without_latency
from pytest_retrieval.baseline import RunFacts, merge_update
from pytest_retrieval.io.baseline_file import write_baseline
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.io.report_json import ReportError, parse_report
from pytest_retrieval.offline import Recorded, score_runs
from pytest_retrieval.settings import parse_settings

GOLDEN = """\
queries:
  - id: rain-tomorrow
    query: is it going to rain tomorrow
    category: paraphrase
    relevant: {weather-forecast: 3, weather-stuffed: 1}
    expect: {ndcg@10: 0.9}
  - id: convert-euros
    query: convert euros to dollars
    category: lexical
    relevant: {fx-rates: 2, tide-tables: 0}
  - id: fx-exact
    query: FX Rates API
    category: lexical
    relevant: [fx-rates]
  - id: lottery
    query: predict the lottery numbers
    category: no-result
    relevant: {}
  - id: skipped-one
    query: not today
    relevant: {a: 1}
    skip: not ready
"""
RUNS = {
    "bm25": {
        "rain-tomorrow": ["weather-stuffed", "x", "weather-forecast"],
        "convert-euros": ["tide-tables", "fx-rates"],
        "fx-exact": ["fx-rates"],
        "lottery": ["weather-forecast"],
    },
    "dense": {
        "rain-tomorrow": ["weather-forecast", "weather-stuffed"],
        "convert-euros": ["fx-rates"],
    },
}
INI = """\
[pytest]
retrieval_golden = golden
retrieval_metrics = ndcg@10 mrr recall@10 judged@5
retrieval_bootstrap = 500
"""


def _project(root: Path) -> Path:
    write_project(root, {"golden/g.yaml": GOLDEN}, ini=INI)
    (root / "runs").mkdir()
    for tag, queries in RUNS.items():
        write_run(root / "runs" / f"{tag}.run", {tag: queries})
    return root


def test_evaluate_equals_the_plugin_on_the_same_rankings(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    project = _project(pytester.path)
    ran = cli("evaluate", "runs/bm25.run", "runs/dense.run", "--report", "cli.json", cwd=project)
    assert ran.code == 1, ran.err  # rain-tomorrow misses its expect on bm25
    assert (  # at the query's line, as the plugin's failures and validate name it
        "golden/g.yaml:2: query 'rain-tomorrow' [bm25]: failed: expected ndcg@10 >= 0.9, got "
        "0.5897" in ran.out
    )
    assert "'dense': 1 golden query has no ranking in runs/dense.run" in ran.err
    # as the plugin's replay says it: the no-result query a run may leave out, apart
    assert "'dense': 1 of the queries with nothing to find is not in runs/dense.run" in ran.err
    write_run_conftest(project)
    result = pytester.runpytest(
        "--retrieval-eval", "--retrieval-report", "plugin.json", "-p", "no:cacheprovider",
        "-W", "ignore::pytest.PytestAssertRewriteWarning",
    )  # fmt: skip
    ours = e2e_without_latency(load_json(project / "cli.json"))
    theirs = e2e_without_latency(load_json(project / "plugin.json"))
    assert ours["configurations"] == theirs["configurations"]
    assert ours["comparisons"] == theirs["comparisons"]
    assert ours["settings"] == theirs["settings"] and ours["golden"] == theirs["golden"]
    assert ours["warnings"] == theirs["warnings"]
    printed = result.stdout.str()
    for line in ran.out.splitlines():
        if "[bm25]" not in line and "[dense]" not in line:
            assert line in printed, line
    assert result.ret == 1


def test_evaluate_a_json_report_as_the_recording(tmp_path):
    project = _project(tmp_path)
    cli("evaluate", "runs/bm25.run", "runs/dense.run", "--report", "a.json", cwd=project)
    again = cli("evaluate", "a.json", "--report", "b.json", "-q", cwd=project)
    assert again.code == 1
    a, b = load_json(project / "a.json"), load_json(project / "b.json")
    assert a["configurations"] == b["configurations"]


def test_evaluating_a_report_after_a_golden_text_changed_says_its_ranking_is_of_then(tmp_path):
    project = _project(tmp_path)
    cli("evaluate", "runs/bm25.run", "runs/dense.run", "--report", "a.json", cwd=project)
    note = "a.json: the golden queries it ranked have changed since"
    assert note not in cli("evaluate", "a.json", "-q", cwd=project).err
    golden = project / "golden/g.yaml"
    golden.write_text(GOLDEN.replace("convert euros to dollars", "convert pounds to yen"))
    again = cli("evaluate", "a.json", "-q", cwd=project)
    assert f"note: {note} (texts or judgments" in " ".join(again.err.split())
    assert "run pytest --retrieval-eval to rank it anew" in " ".join(again.err.split())


def test_evaluate_refuses_a_report_over_a_file_that_is_no_report(tmp_path):
    project = _project(tmp_path)
    (project / "README.md").write_text("# My project\n", encoding="utf-8")
    ran = cli("evaluate", "runs/dense.run", "--report", "README.md", cwd=project)
    assert ran.code == 2
    assert "--report README.md: the file exists and is not a pytest-retrieval report" in ran.err
    assert (project / "README.md").read_text(encoding="utf-8") == "# My project\n"
    for _ in range(2):  # its own reports it writes again
        ran = cli(
            "evaluate", "runs/dense.run", "--report", "r.md", "--report", "r.html", cwd=project
        )
        assert ran.code == 0, ran.err


def test_evaluate_names_a_recording_and_how_to_score_it(tmp_path):
    project = _project(tmp_path)
    header = '{"format": "pytest-retrieval recording", "version": 1, "settings": {}}'
    (project / "rec.jsonl").write_text(header + "\n", encoding="utf-8")
    ran = cli("evaluate", "rec.jsonl", cwd=project)
    assert ran.code == 2
    assert ran.err.startswith("pytest-retrieval: error: rec.jsonl is a pytest-retrieval recording")
    assert "pytest --retrieval-eval --retrieval-replay rec.jsonl" in ran.err


@pytest.mark.parametrize(
    "command",
    [
        ("compare", "{file}", "r.json"),
        ("compare", "r.json", "{file}"),
        ("pool", "{file}", "--depth", "5"),
        ("export", "run", "{file}", "-o", "out"),
    ],
    ids=["compare-a", "compare-b", "pool", "export-run"],
)
def test_a_recording_or_a_baseline_where_a_report_belongs_is_named_with_what_to_give(
    pytester, command
):
    """Each said "rec.jsonl:2: not valid JSON" of a recording (JSON Lines)."""
    project = _project(pytester.path)
    write_run_conftest(project)
    result = pytester.runpytest(
        "--retrieval-eval", "--retrieval-record=rec.jsonl", "--retrieval-report=r.json",
        "--retrieval-update-baseline", "-p", "no:cacheprovider",
        "-W", "ignore::pytest.PytestAssertRewriteWarning",
    )  # fmt: skip
    assert (project / "rec.jsonl").is_file() and (project / "golden/baseline.json").is_file()
    name = command[0] + (" run" if command[0] == "export" else "")
    recording = cli(*(a.format(file="rec.jsonl") for a in command), cwd=project)
    assert recording.code == 2, result.stdout.str()
    assert recording.err == (
        "pytest-retrieval: error: rec.jsonl is a pytest-retrieval recording (written by "
        f"--retrieval-record), not a JSON report; {name} takes JSON reports written by "
        "--retrieval-report: to evaluate a recording, run `pytest --retrieval-eval "
        "--retrieval-replay rec.jsonl --retrieval-report=report.json` and give report.json\n"
    )
    baseline = cli(*(a.format(file="golden/baseline.json") for a in command), cwd=project)
    assert baseline.code == 2
    assert baseline.err.startswith(
        "pytest-retrieval: error: golden/baseline.json is a pytest-retrieval baseline (written "
        f"by --retrieval-update-baseline), not a JSON report; {name} takes JSON reports"
    )
    assert "`pytest-retrieval evaluate REPORT.json --baseline golden/baseline.json`" in baseline.err
    assert not (project / "out").exists()


def test_evaluate_writes_markdown_and_html_and_gates_on_a_baseline(tmp_path):
    project = _project(tmp_path)
    plain = cli("evaluate", "runs/dense.run", "--report", "r.md", "--report", "r.html", cwd=project)
    assert plain.code == 0, plain.err
    assert (project / "r.md").read_text("utf-8").startswith("<!-- pytest-retrieval report -->\n#")
    assert "<html" in (project / "r.html").read_text("utf-8")
    # a baseline written by the plugin's own writer, from the same scoring
    queries = load_golden_file(project / "golden/g.yaml", shown="golden/g.yaml")
    settings = parse_settings({"retrieval_metrics": "ndcg@10 mrr recall@10 judged@5"})
    scored = score_runs(queries, [Recorded("dense", RUNS["dense"])], settings)
    update = merge_update(None, scored.results, settings, RunFacts(), {})
    write_baseline(project / "baseline.json", update.baseline)
    same = cli("evaluate", "runs/dense.run", "--baseline", "baseline.json", cwd=project)
    assert same.code == 0, same.out
    assert "retrieval gate: PASSED" in same.out
    worse = dict(RUNS["dense"], **{"convert-euros": ["tide-tables", "fx-rates"]})
    write_run(project / "worse.run", {"dense": worse})
    failed = cli("evaluate", "worse.run", "--baseline", "baseline.json", cwd=project)
    assert failed.code == 1
    assert "retrieval gate: FAILED" in failed.out and "convert-euros" in failed.out
    loose = cli(
        "evaluate", "worse.run", "--baseline", "baseline.json", "--tolerance", "0.99", cwd=project
    )
    assert loose.code == 0, loose.out
    # the gate's hint replays the runs given: the plugin's plain update would call the live
    # retrievers (or find no fixture) instead of writing the baseline these runs earn
    update = (
        "`pytest --retrieval-eval --retrieval-update-baseline --retrieval-baseline=baseline.json "
        "--retrieval-replay=worse.run`"
    )
    assert update in " ".join(failed.out.split()), failed.out


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "not json",
            "pytest-retrieval: error: b.json is not valid JSON (line 1, column 1: Expecting "
            "value); fix the file, or delete it and write a new one with `pytest "
            "--retrieval-eval --retrieval-update-baseline --retrieval-baseline=b.json "
            "--retrieval-replay=runs/dense.run`",
        ),
        (
            '{"format": "ranx-run"}',
            'pytest-retrieval: error: b.json is not a pytest-retrieval baseline (no "format": '
            '"pytest-retrieval-baseline"); fix the file, or delete it and write a new one',
        ),
        (
            None,  # no file
            "pytest-retrieval: error: --baseline b.json: no such file; write one with `pytest "
            "--retrieval-eval --retrieval-update-baseline --retrieval-baseline=b.json "
            "--retrieval-replay=runs/dense.run`",
        ),
        (
            "REPORT",
            "pytest-retrieval: error: --baseline b.json is a pytest-retrieval JSON report "
            "(written by --retrieval-report), not a baseline; compare two reports with "
            "`pytest-retrieval compare b.json NEW.json`, or gate against a baseline written by "
            "`pytest --retrieval-eval --retrieval-update-baseline "
            "--retrieval-replay=runs/dense.run`",
        ),
        (
            GOLDEN,
            "pytest-retrieval: error: --baseline b.yaml is a golden file, not a baseline; give "
            "the baseline file",
        ),
    ],
)
def test_a_baseline_that_cannot_be_used_is_one_line_with_the_fix_before_any_scoring(
    tmp_path, text, says
):
    """Each was scored in full, its tables printed, then 'retrieval gate: REFUSED' (exit
    1) with no word of how to make a baseline; a missing one said only 'no such file'."""
    project = _project(tmp_path)
    name = "b.yaml" if text == GOLDEN else "b.json"
    if text == "REPORT":
        cli("evaluate", "runs/dense.run", "--report", name, cwd=project)
    elif text is not None:
        (project / name).write_text(text, encoding="utf-8")
    ran = cli("evaluate", "runs/dense.run", "--baseline", name, cwd=project)
    assert ran.code == 2, ran.out + ran.err
    assert ran.out == ""
    assert len(ran.err.splitlines()) == 1 and ran.err.startswith(says), ran.err


def test_compare_exits_1_when_b_regresses(tmp_path):
    project = _project(tmp_path)
    cli("evaluate", "runs/bm25.run", "runs/dense.run", "--report", "a.json", cwd=project)
    worse = dict(RUNS["dense"], **{"rain-tomorrow": ["x", "y", "weather-stuffed"]})
    write_run(project / "worse.run", {"dense": worse})
    cli("evaluate", "runs/bm25.run", "worse.run", "--report", "b.json", cwd=project)
    same = cli("compare", "a.json", "a.json", cwd=project)
    assert same.code == 0, same.out
    assert "compare: PASSED" in same.out
    assert same.out.startswith("a.json against a.json (baseline = A, current = B)")
    ran = cli("compare", "a.json", "b.json", cwd=project)
    assert ran.code == 1, ran.out
    assert "compare: FAILED" in ran.out
    rows = [line.split() for line in ran.lines if line.startswith("dense ")]
    assert rows[0][:3] == ["dense", "all", "ndcg@10"]
    # the reports keep the judged ids' grades: what was lost is named with its grade
    assert "lost weather-forecast (3)" in ran.out, ran.out
    only_bm25 = cli("compare", "a.json", "b.json", "--configuration", "bm25", cwd=project)
    assert only_bm25.code == 0, only_bm25.out
    typo = cli("compare", "a.json", "b.json", "--configuration", "bm52", cwd=project)
    assert typo.code == 2, typo.out + typo.err
    assert typo.err.strip().endswith(
        "--configuration bm52: a.json has no configuration of that name (did you mean "
        "'bm25'?); its configurations: bm25, dense"
    )
    assert (
        "(did you mean"
        not in cli("compare", "a.json", "b.json", "--configuration", "nope", cwd=project).err
    )
    assert cli("compare", "a.json", "b.json", "--tolerance", "99%", cwd=project).code == 0
    improved = cli("compare", "b.json", "a.json", cwd=project)
    assert improved.code == 0
    # the breached rows are in the table above (in two halves, to fit the width): not
    # printed a second time under the verdict
    assert sum(line.split()[:3] == ["dense", "all", "ndcg@10"] for line in ran.lines) == 2
    # but named under it: among 36 rows (a TREC set's six metrics) nothing told which
    verdict = " ".join(ran.out.split("compare: FAILED", 1)[1].split())
    assert "breached: dense / all / ndcg@10 -0." in verdict and "(allowed 0.020)" in verdict
    # A is a report: no hint to rewrite it with the plugin (that command refuses a report)
    for said in (ran.out, improved.out, only_bm25.out):
        assert "--retrieval-update-baseline" not in said, said
    assert "improved beyond the tolerance:" in improved.out, improved.out
    # B without one of A's configurations: named as such, not as a gate setting
    cli("evaluate", "runs/bm25.run", "--report", "c.json", cwd=project)
    lacking = cli("compare", "a.json", "c.json", cwd=project)
    assert lacking.code == 2, lacking.out
    assert lacking.err.strip().endswith(
        "a.json holds configuration 'dense': c.json has no configuration of that name; its "
        "configurations: bm25; name the ones to compare with --configuration"
    )
    assert cli("compare", "a.json", "c.json", "--configuration", "bm25", cwd=project).code == 0


def test_compare_refuses_reports_made_with_other_settings(tmp_path):
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    cli(
        "evaluate",
        "runs/dense.run",
        "--report",
        "b.json",
        "--override-ini",
        "retrieval_gain=linear",
        cwd=project,
    )
    ran = cli("compare", "a.json", "b.json", cwd=project)
    assert ran.code == 1
    said = " ".join(ran.out.split())
    # the two reports by name: neither is "the baseline" nor "this run"
    assert "compare: REFUSED" in said
    refusal = (
        "a.json and b.json were made with other settings: gain: a.json 'exponential', "
        "b.json 'linear'. Numbers made under other settings are not comparable"
    )
    assert refusal in said, said


def test_compare_notes_name_the_two_reports_not_the_baseline_and_this_run(tmp_path):
    """compare's notes said "metric 'map' of this run is not in the baseline" and "in the
    baseline but skipped in this run" of two reports given by name."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    more = ("--override-ini", "retrieval_metrics=ndcg@10 mrr map")
    cli("evaluate", "runs/dense.run", "--report", "b.json", *more, cwd=project)
    ran = cli("compare", "a.json", "b.json", cwd=project)
    said = " ".join(ran.out.split())
    assert "metric 'map' of b.json is not in a.json: not compared" in said, said
    gone = "metrics 'recall@10' and 'judged@5' of a.json are not in b.json: not compared"
    assert gone in said
    assert "1 query of a.json skipped in b.json, not compared" in said
    assert "in a.json but skipped in b.json (skip: or a skip mark), so not compared" in said
    for wording in ("this run", "the baseline", "baselined"):
        assert wording not in said, said


def test_compare_names_the_queries_one_report_lacks_not_pairing_the_rest_in_silence(
    tmp_path, monkeypatch
):
    """A query of A missing from B (and one of B missing from A) was left out of every
    row with no word: the table looked like the whole set. Each way is named now, with
    the count and the first ids; the exit code is the gate's."""
    monkeypatch.setenv("COLUMNS", "200")
    project = _project(tmp_path)
    cli("evaluate", "runs/bm25.run", "runs/dense.run", "--report", "a.json", cwd=project)
    data = load_json(project / "a.json")
    configurations = data["configurations"]
    assert isinstance(configurations, dict)
    for name in ("bm25", "dense"):
        del configurations[name]["queries"]["fx-exact"]
    del configurations["dense"]["queries"]["lottery"]
    (project / "b.json").write_text(json.dumps(data), encoding="utf-8")
    ran = cli("compare", "a.json", "b.json", cwd=project)
    assert ran.code == 0, ran.out + ran.err
    assert ran.lines[:2] == [
        "1 query of a.json is not in b.json (configuration 'bm25'), not compared: fx-exact",
        "2 queries of a.json are not in b.json (configuration 'dense'), not compared: "
        "fx-exact, lottery",
    ]
    back = cli("compare", "b.json", "a.json", cwd=project)
    assert back.lines[0] == (
        "1 query of a.json is not in b.json (configuration 'bm25'), not compared: fx-exact"
    )
    assert "added since the baseline" not in back.out  # named once, above the table
    same = cli("compare", "a.json", "a.json", cwd=project)
    assert "is not in a.json" not in same.out


def test_compare_refuses_a_report_cut_short_or_of_an_incomplete_run(tmp_path):
    """A report of a run stopped early (-x, Ctrl-C) was compared on the queries that ran;
    a file cut short said only 'Expecting ',' delimiter'."""
    project = _project(tmp_path)
    cli("evaluate", "runs/bm25.run", "--report", "a.json", cwd=project)
    data = load_json(project / "a.json")
    data.update(complete=False, incomplete="stopped early: -x")
    (project / "b.json").write_text(json.dumps(data), encoding="utf-8")
    ran = cli("compare", "a.json", "b.json", cwd=project)
    assert ran.code == 2, ran.out
    assert ran.err == (
        "pytest-retrieval: error: b.json is the report of an incomplete run (stopped early: "
        "-x): it holds only the queries that ran; give compare the report of a run that went "
        "to the end\n"
    )
    # the other commands that read reports take only whole runs too
    for command in (
        ["export", "run", "b.json", "-o", "runs-b"],
        ["pool", "b.json", "--depth", "5"],
    ):
        other = cli(*command, cwd=project)
        assert other.code == 2, other.out
        said = f"(stopped early: -x): it holds only the queries that ran; give {command[0]}"
        assert said in other.err
        assert not (project / "runs-b").exists()
    evaluated = cli("evaluate", "b.json", cwd=project)
    assert evaluated.code == 2 and "b.json is the report of an incomplete run" in evaluated.err
    text = (project / "a.json").read_text(encoding="utf-8")
    (project / "c.json").write_text(text[: len(text) // 2], encoding="utf-8")
    cut = cli("compare", "c.json", "a.json", cwd=project)
    assert cut.code == 2 and cut.out == ""
    assert "c.json:" in cut.err and ": the JSON ends early (the file is cut short" in cut.err
    data.update(complete="no")
    (project / "b.json").write_text(json.dumps(data), encoding="utf-8")
    wrong = cli("compare", "a.json", "b.json", cwd=project)
    assert wrong.err.strip().endswith("b.json: 'complete' must be true or false, not 'no'")


def test_evaluate_input_errors_exit_2(tmp_path):
    project = _project(tmp_path)
    assert cli("evaluate", "nope.run", cwd=project).code == 2
    (project / "bad.run").write_text("q1 Q0 d1 one 1.0 tag\n", encoding="utf-8")
    ran = cli("evaluate", "bad.run", cwd=project)
    assert (
        ran.code == 2 and "bad.run:1: query 'q1': rank 'one' of 'd1' is not an integer" in ran.err
    )
    (project / "other").mkdir()
    (project / "other/dense.run").write_bytes((project / "runs/dense.run").read_bytes())
    ran = cli("evaluate", "runs/dense.run", "other/dense.run", cwd=project)
    assert ran.code == 2
    assert (
        "configuration 'dense-dense' is in runs/dense.run and in other/dense.run: one "
        "configuration per name; rename one of the run files"
    ) in ran.err
    ran = cli("evaluate", "runs/dense.run", "--max-results", "0", cwd=project)
    assert ran.code == 2 and "--max-results must be a positive integer" in ran.err
    ran = cli("evaluate", "runs/dense.run", "--report", "r.txt", cwd=project)
    assert ran.code == 2 and "the suffix must be one of .json, .md, .html" in ran.err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "not a pytest-retrieval JSON report"),
        ('{"format": "pytest-retrieval-report", "version": 2}', "report version 2"),
        ('{"format": "pytest-retrieval-report", "version": true}', "report version true"),
        ("{", "r.json:1: the JSON ends early (the file is cut short"),
        ("{]", "r.json:1: not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "r.json: nested too deeply to be a JSON report"),
        (
            json.dumps(
                {
                    "format": "pytest-retrieval-report",
                    "version": 1,
                    "settings": {"metrics": ["ndcg@10"]},
                }
            ),
            "'settings' lacks gain, relevance_threshold, max_grade, empty",
        ),
    ],
)
def test_report_reader_errors_name_the_file(text, message):
    with pytest.raises(ReportError, match=message.replace("(", r"\(")):
        parse_report(text, "r.json")


def test_a_report_holding_an_integer_past_the_digit_limit_is_an_input_error(tmp_path):
    """compare, pool, evaluate and export run printed a Python traceback (int() refuses
    more than 4,300 digits, which json.loads lets through as a bare ValueError)."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    text = (project / "a.json").read_text(encoding="utf-8")
    line = text[: text.index('"queries": ')].count("\n") + 1
    text = text.replace('"queries": ', '"queries": 1' + "0" * 5000 + ', "x": ', 1)
    (project / "b.json").write_text(text, encoding="utf-8")
    for args in (
        ["compare", "a.json", "b.json"],
        ["pool", "--depth", "3", "b.json"],
        ["evaluate", "b.json"],
        ["export", "run", "b.json", "-o", "out"],
    ):
        ran = cli(*args, cwd=project)
        assert ran.code == 2, (args, ran.err)
        assert f"b.json:{line}: not valid JSON (column " in ran.err, (args, ran.err)
        assert "a number has more than 4300 digits, more than Python reads; write a shorter " in (
            ran.err
        )


def test_report_reader_names_configuration_and_query(tmp_path):
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    data = load_json(project / "a.json")
    data["configurations"]["dense"]["queries"]["lottery"]["outcome"] = "great"  # type: ignore[index]
    with pytest.raises(
        ReportError, match=r"configuration 'dense': query 'lottery': 'outcome' must be one of"
    ):
        parse_report(json.dumps(data), "a.json")


def test_a_usage_error_names_the_program_once(tmp_path):
    unknown = cli("convert", cwd=tmp_path)
    assert unknown.code == 2
    assert unknown.err.startswith("pytest-retrieval: error: argument COMMAND: invalid choice")
    missing = cli("evaluate", cwd=tmp_path)
    assert missing.err.startswith(
        "pytest-retrieval: error: evaluate: the following arguments are required: RUN "
        "(see pytest-retrieval evaluate --help)"
    ), missing.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["runs/bm25.run", "runs/bm25.run"],
            "the run runs/bm25.run is given twice: give each once",
        ),
        (
            ["runs/bm25.run", "./runs/../runs/bm25.run"],
            "the run ./runs/../runs/bm25.run is given twice (as runs/bm25.run and "
            "./runs/../runs/bm25.run): give each once",
        ),
        (["runs"], "runs is a folder; give the run files in it (TREC runs or JSON reports)"),
        (
            ["runs/bm25.run", "--baseline", "golden"],
            "--baseline golden is a folder; give the baseline file in it",
        ),
        (
            ["runs/bm25.run", "--report", "out.json"],
            "--report out.json is a folder; give a file path ending .json, .md or .html",
        ),
        (
            ["runs/bm25.run", "--report", "r.json", "--report", "r.json"],
            "--report r.json is given twice: give each once",
        ),
    ],
    ids=["run-twice", "run-twice-spelled-otherwise", "folder", "baseline-folder",
         "report-folder", "report-twice"],
)  # fmt: skip
def test_evaluate_refuses_a_file_given_twice_or_a_folder_in_one_line(tmp_path, args, message):
    project = _project(tmp_path)
    (project / "out.json").mkdir()
    ran = cli("evaluate", *args, cwd=project)
    assert ran.code == 2, ran.out + ran.err
    assert ran.err == f"pytest-retrieval: error: {message}\n"
    assert ran.out == ""


def test_one_query_without_a_ranking_is_counted_in_the_singular(pytester, monkeypatch):
    """'1 golden query has no ranking', never '1 golden queries have no ranking'."""
    monkeypatch.setenv("COLUMNS", "100")
    project = _project(pytester.path)
    write_run(project / "runs" / "one.run", {"one": {**RUNS["dense"], "lottery": ["x"]}})
    ran = cli("evaluate", "runs/one.run", cwd=project)
    assert "'one': 1 golden query has no ranking in runs/one.run" in ran.err


@pytest.mark.parametrize(
    ("count", "said"),
    [(0, "0 queries"), (1, "1 query"), (2, "2 queries"), (1, "1 golden file")],
)
def test_counts_name_their_noun_in_the_right_number(count: int, said: str) -> None:
    from pytest_retrieval.io.common import counted, queries_of

    noun = said.split(" ", 1)[1]
    assert counted(count, noun.removesuffix("s"), "queries" if "quer" in noun else "") == said
    assert queries_of(1, "a.run") == "1 query of a.run is"
    assert queries_of(3, "a.run") == "3 queries of a.run are"


@pytest.mark.parametrize("value", [5, -0.5, 1.0000001, 10**400])
def test_a_report_metric_outside_0_1_is_refused_not_compared(tmp_path, value):
    """A report edited by hand (mrr: 5) was compared as a +4.000 improvement; an integer
    past a float's range raised OverflowError (now refused alike, the number cut)."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    data = load_json(project / "a.json")
    data["configurations"]["dense"]["queries"]["lottery"]["metrics"]["mrr"] = value  # type: ignore[index]
    (project / "b.json").write_text(json.dumps(data), encoding="utf-8")
    ran = cli("compare", "a.json", "b.json", cwd=project)
    assert ran.code == 2, ran.out
    shown = str(value) if value != 10**400 else "1" + "0" * 39 + "... (401 characters)"
    assert (
        f"b.json: configuration 'dense': query 'lottery': mrr is {shown}, outside 0..1; the "
        "file is not a report this plugin wrote (or was edited by hand)"
    ) in ran.err


def test_an_errored_query_carrying_a_score_is_refused_naming_it(tmp_path):
    """A report whose errored query held 1.0 (edited by hand) was compared with it: a
    fault raised the score."""
    project = _project(tmp_path)
    cli("evaluate", "runs/bm25.run", "--report", "a.json", cwd=project)
    data = load_json(project / "a.json")
    record = data["configurations"]["bm25"]["queries"]["fx-exact"]  # type: ignore[index]
    assert record["metrics"]["mrr"] == 1.0
    record.update(outcome="error", error="RuntimeError: index gone")
    (project / "b.json").write_text(json.dumps(data), encoding="utf-8")
    ran = cli("compare", "a.json", "b.json", cwd=project)
    assert ran.code == 2 and ran.out == ""
    assert ran.err == (
        "pytest-retrieval: error: b.json: configuration 'bm25': query 'fx-exact': its outcome "
        "is error and ndcg@10 is 1.0: an errored query scores 0 on every metric (an error "
        "never raises a score); the file is not a report this plugin wrote (or was edited by "
        "hand)\n"
    )


def test_a_null_metric_of_an_evaluated_query_is_refused_not_left_out(tmp_path):
    """B's 'convert-euros' edited to null on every metric was left out of B's means and
    counted 'unchanged' (compare PASSED, whatever its numbers had been); the baseline
    refuses the same null. A skipped query's nulls (in the same report) stay as written."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    data = load_json(project / "a.json")
    queries = data["configurations"]["dense"]["queries"]  # type: ignore[index]
    assert queries["skipped-one"]["metrics"]["mrr"] is None  # written so, read back
    assert cli("compare", "a.json", "a.json", cwd=project).code == 0
    queries["convert-euros"]["metrics"] = dict.fromkeys(queries["convert-euros"]["metrics"])
    (project / "b.json").write_text(json.dumps(data), encoding="utf-8")
    ran = cli("compare", "a.json", "b.json", cwd=project)
    assert ran.code == 2, ran.out
    assert (
        "b.json: configuration 'dense': query 'convert-euros': ndcg@10 is null, which only "
        "retrieval_empty = skip allows (this query was evaluated); the file is not a report "
        "this plugin wrote (or was edited by hand)"
    ) in ran.err


def test_a_report_saved_with_a_bom_is_read_as_a_report(tmp_path):
    """An editor (or PowerShell) that writes a UTF-8 byte-order mark made compare refuse
    the report and evaluate read it as a TREC run (hundreds of problems)."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    text = (project / "a.json").read_text(encoding="utf-8")
    (project / "b.json").write_text("\ufeff" + text, encoding="utf-8")
    assert cli("compare", "a.json", "b.json", cwd=project).code == 0
    ran = cli("evaluate", "b.json", cwd=project)
    assert ran.code == 0, ran.err


def test_an_output_path_that_is_a_folder_or_under_a_file_is_named_as_given(tmp_path):
    """The messages named the temporary file (.out.x1y2.tmp: is a folder) or said only
    'File exists'."""
    project = _project(tmp_path)
    (project / "out").mkdir()
    ran = cli("export", "trec", "-o", "out", cwd=project)
    assert ran.code == 2 and ".tmp" not in ran.err, ran.err
    assert ran.err == (
        "pytest-retrieval: error: -o out is a folder: give the path of a file (in it, or "
        "beside it)\n"
    )
    ran = cli("evaluate", "runs/bm25.run", "--report", "runs/bm25.run/r.json", cwd=project)
    assert "File exists" not in ran.out + ran.err
    assert (
        f"retrieval report NOT written: {project / 'runs/bm25.run/r.json'}: a part of the "
        "path is a file, not a folder"
    ) in ran.out + ran.err
    assert not list(project.rglob("*.tmp"))


def test_a_report_that_cannot_be_written_is_exit_2_and_the_ones_written_are_named(tmp_path):
    """A --report that could not be written exited 1, the code of a finding (a failed
    query, a regression), where -o of every other command exits 2; and the reports
    written beside it went unnamed."""
    project = _project(tmp_path)
    ran = cli(
        "evaluate", "runs/bm25.run", "--report", "ok.json", "--report", "runs/bm25.run/r.md",
        cwd=project,
    )  # fmt: skip
    assert ran.code == 2, ran.err
    assert "retrieval report written: ok.json" in ran.err
    assert "retrieval report NOT written: " in ran.err
    assert (project / "ok.json").is_file()


def test_o_dash_is_standard_output_where_a_command_prints_and_a_folder_is_refused_first(
    tmp_path,
):
    """`export trec -o -` and `pool -o -` wrote a file named '-' (`import -o -` said
    'write .yaml, .yml or .jsonl'); `export run -o -` made a folder named '-'; `pool -o
    FOLDER` pooled, then named the folder by its absolute path."""
    project = _project(tmp_path)
    cli("evaluate", "runs/bm25.run", "--report", "a.json", cwd=project)
    (project / "q.qrels").write_text("rain-tomorrow 0 weather-forecast 3\n", encoding="utf-8")
    for args in (
        ["export", "trec"],
        ["pool", "--depth", "2", "a.json"],
        ["import", "trec", "q.qrels"],
    ):
        plain, dashed = cli(*args, cwd=project), cli(*args, "-o", "-", cwd=project)
        assert dashed.code == plain.code == 0, dashed.err
        assert dashed.out == plain.out and dashed.out, args
        (project / "out").mkdir(exist_ok=True)
        folder = cli(*args, "-o", "out", cwd=project)
        assert folder.code == 2 and folder.out == "", args
        says = "-o out is a folder: give the path of a file (in it, or beside it)\n"
        assert folder.err.endswith(says), folder.err
    ran = cli("export", "run", "a.json", "-o", "-", cwd=project)
    assert ran.code == 2
    assert ran.err == (
        "pytest-retrieval: error: -o -: export run writes a run file per configuration into a "
        "folder, which standard output cannot hold; give a folder (-o runs)\n"
    )
    corpus = cli("import", "trec", "q.qrels", "-o", "g.yaml", "--corpus", "-", cwd=project)
    assert corpus.code == 2 and "--corpus -: the document ids are written to a file" in corpus.err
    assert not (project / "-").exists() and not (project / "g.yaml").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["export", "trec", "-o", "golden/g.yaml"],
            "-o golden/g.yaml: the file exists and is not a qrels file (a golden file, a "
            "conftest.py, a report?): writing would destroy it",
        ),
        (["export", "trec", "-o", "conftest.py"], "-o conftest.py: the file exists and is not"),
        # a Markdown report and a TREC run were replaced: only JSON and Python were known
        (["export", "trec", "-o", "a.md"], "-o a.md: the file exists and is not a qrels file"),
        (
            ["export", "trec", "-o", "runs/dense.run"],
            "-o runs/dense.run: the file exists and is not a qrels file",
        ),
        (
            ["pool", "--depth", "2", "a.json", "-o", "golden/g.yaml"],
            "-o golden/g.yaml: the file exists and is not a worklist",
        ),
        (["pool", "--depth", "2", "a.json", "-o", "a.json"], "-o a.json is a file this command"),
        (["evaluate", "a.json", "--report", "a.json"], "--report a.json is a file this command"),
        (["compare", "a.json", "a.json", "--report", "a.json"], None),
    ],
)
def test_a_command_never_writes_over_its_inputs_or_another_kind_of_file(tmp_path, args, says):
    """export trec -o golden/g.yaml replaced a golden file with qrels; pool -o and
    evaluate --report replaced the report they read."""
    project = _project(tmp_path)
    (project / "conftest.py").write_text("import pytest\n", encoding="utf-8")
    report = ("--report", "a.json", "--report", "a.md")
    assert cli("evaluate", "runs/dense.run", *report, cwd=project).code in (0, 1)
    if says is None:  # compare writes no report: argparse refuses the option
        assert cli(*args, cwd=project).code == 2
        return
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    ran = cli(*args, cwd=project)
    assert ran.code == 2 and says in ran.err, ran.err
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_a_tolerance_without_a_baseline_is_refused_not_ignored(tmp_path):
    """evaluate --tolerance nan (or any) without --baseline ran and ignored it."""
    project = _project(tmp_path)
    for tolerance in ("nan", "0.05"):
        ran = cli("evaluate", "runs/dense.run", "--tolerance", tolerance, cwd=project)
        assert ran.code == 2, ran.out
        assert "--tolerance is the gate's: give --baseline PATH to gate against" in ran.err


def test_evaluate_names_the_queries_its_tied_scores_rank_unlike_the_file(tmp_path, monkeypatch):
    """A run written from a live ranking with tied scores (BM25 gives equal scores to
    documents alike) is ranked by trec_eval's rule: score, then docno descending. The
    numbers then differ from the live run's; replay named those queries, evaluate said
    nothing and its numbers silently disagreed with the plugin's."""
    monkeypatch.setenv("COLUMNS", "80")
    project = _project(tmp_path)
    lines = [
        "rain-tomorrow Q0 weather-forecast 1 2.5 tied\n",  # the file's order: a tie
        "rain-tomorrow Q0 weather-stuffed 2 2.5 tied\n",  # trec_eval puts this first
        "convert-euros Q0 fx-rates 1 3.0 tied\n",
        "fx-exact Q0 fx-rates 1 1.0 tied\n",
    ]
    (project / "runs" / "tied.run").write_text("".join(lines), encoding="utf-8")
    ran = cli("evaluate", "runs/tied.run", "-q", cwd=project)
    said = (
        "'tied': 1 query of runs/tied.run is listed in another order than the scores give "
        "(tied or rising scores): ranked as trec_eval ranks them, by score descending, then "
        "docno descending"
    )
    assert said in ran.notes, ran.err
    assert "(negate distances): rain-tomorrow " in ran.notes, ran.err  # that query only
    assert all(len(line) <= 80 for line in ran.err.splitlines()), ran.err


def test_evaluate_notes_fit_the_terminal(tmp_path, monkeypatch):
    """The pooling warning and the notes on a run's queries were one line of 200 and
    more characters; they are wrapped at spaces, ids whole, as the plugin's are."""
    monkeypatch.setenv("COLUMNS", "80")
    project = _project(tmp_path)
    write_run(project / "runs" / "wide.run", {"wide": {"rain-tomorrow": ["n1", "n2", "n3"]}})
    ran = cli("evaluate", "runs/wide.run", "-q", cwd=project)
    assert "'wide': judged@10 is 0.000 on the 1 judged query that returned" in ran.notes
    assert "'wide': 2 golden queries have no ranking in runs/wide.run" in ran.notes
    assert "'wide': 1 of the queries with nothing to find is not in runs/wide.run" in ran.notes
    assert ran.err.count("\n  ") >= 2, ran.err  # continued lines are indented
    assert all(len(line) <= 80 for line in ran.err.splitlines()), ran.err


def test_compare_output_fits_the_terminal_with_long_report_paths(tmp_path, monkeypatch):
    """Its header names both reports: wrapped at spaces, as every note is."""
    monkeypatch.setenv("COLUMNS", "72")
    project = _project(tmp_path)
    folder = "reports/nightly-main-branch"
    cli("evaluate", "runs/bm25.run", "--report", f"{folder}/a.json", cwd=project)
    cli("evaluate", "runs/dense.run", "--report", f"{folder}/b.json", cwd=project)
    ran = cli("compare", f"{folder}/a.json", f"{folder}/a.json", cwd=project)
    assert ran.code == 0, ran.out + ran.err
    header = " ".join(line.strip() for line in ran.lines[:3])
    assert header.startswith(f"{folder}/a.json against {folder}/a.json (baseline = A, current")
    assert all(len(line) <= 72 for line in ran.out.splitlines()), ran.out


@pytest.mark.parametrize("columns", [80, 60])
def test_compare_and_evaluate_cut_long_names_to_fit_the_terminal(tmp_path, monkeypatch, columns):
    """A configuration named over 50 characters and long categories made compare's table
    98 columns wide; the names are cut with "…" now, and stay whole in the reports."""
    long = "bm25-with-a-very-long-configuration-name-for-testing"
    other = "dense-embedding-retriever-multilingual-e5-large-v2"
    category = "paraphrase-questions-about-weather-forecasts-and-climate"
    golden = GOLDEN.replace("category: paraphrase", f"category: {category}")
    golden = golden.replace("    expect: {ndcg@10: 0.9}\n", "")  # no failure lines
    project = write_project(tmp_path, {"golden/g.yaml": golden}, ini=INI)
    write_run(project / "a.run", {long: RUNS["bm25"], other: RUNS["dense"]})
    worse = {
        q: ["unjudged", *(d for d in ranking[::-1] if d != "unjudged")]
        for q, ranking in RUNS["bm25"].items()
    }
    write_run(project / "b.run", {long: worse, other: RUNS["bm25"]})
    cli("evaluate", "a.run", "--report", "a.json", "--report", "a.md", cwd=project)
    written = cli("evaluate", "b.run", "--report", "b.json", cwd=project)
    assert (project / "b.json").exists(), written.out + written.err
    monkeypatch.setenv("COLUMNS", str(columns))
    for args, code in ((["compare", "a.json", "b.json"], 1), (["evaluate", "b.run", "-v"], 0)):
        ran = cli(*args, cwd=project)
        assert ran.code == code, ran.out + ran.err
        assert "…" in ran.out and long[:12] in ran.out
        too_long = [line for line in ran.out.splitlines() if len(line) > columns]
        assert too_long == [], "\n".join(too_long)
    markdown = (project / "a.md").read_text(encoding="utf-8")
    assert f"| {long} " in markdown and f"| {category} " in markdown and "…" not in markdown


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        (
            "base.json",
            '{"format": "pytest-retrieval-baseline", "version": 1}\n',
            "a pytest-retrieval baseline (written by --retrieval-update-baseline)",
        ),
        (
            "rec.jsonl",
            '{"format": "pytest-retrieval recording", "version": 1}\n{"complete": true}\n',
            "a pytest-retrieval recording (written by --retrieval-record)",
        ),
        (
            "worklist.yaml",
            "format: pytest-retrieval-worklist\nversion: 1\nqueries: []\n",
            "a pytest-retrieval worklist (written by pytest-retrieval pool)",
        ),
        ("golden/g.yaml", None, "a golden file"),
    ],
    ids=["baseline", "recording", "worklist", "golden"],
)
def test_a_command_reading_reports_names_the_plugins_other_files(tmp_path, name, text, kind):
    """compare, pool and export run said 'rec.jsonl:2: not valid JSON (Extra data)' of a
    recording and 'not valid JSON (Expecting value)' of a worklist or a golden file: the
    file is named for what it is, with what the command reads."""
    project = _project(tmp_path)
    assert cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project).code == 0
    if text is not None:
        (project / name).write_text(text, encoding="utf-8")
    for args in (
        ("compare", "a.json", name),
        ("compare", name, "a.json"),
        ("pool", name, "--depth", "3"),
        ("export", "run", name, "-o", "out"),
    ):
        ran = cli(*args, cwd=project)
        assert ran.code == 2, (args, ran.err)
        assert ran.err.startswith(
            f"pytest-retrieval: error: {name} is {kind}, not a JSON report; "
            f"{' '.join(args[:2]) if args[0] == 'export' else args[0]} takes JSON reports "
            "written by --retrieval-report"
        ), (args, ran.err)


def test_a_run_query_id_with_an_escape_is_named_escaped(tmp_path):
    """A run's query id holding an escape sequence went raw into the note that it is not
    in the golden set (clearing the screen, recolouring what followed)."""
    project = _project(tmp_path)
    (project / "odd.run").write_text("z\x1b[2Jz Q0 d1 1 1.0 t\n", encoding="utf-8")
    ran = cli("evaluate", "odd.run", cwd=project)
    assert "\x1b" not in ran.out + ran.err
    assert "not in the golden set, ignored: z\\x1b[2Jz" in ran.notes


def test_evaluating_a_report_names_the_metrics_its_kept_rankings_cannot_give(tmp_path):
    """A report keeps each query's top max(k); evaluating it again gave mrr 0 where the
    report said 1/12 (the first relevant at rank 12, past the kept top 10), in silence."""
    project = _project(tmp_path)
    deep = [f"x{i}" for i in range(1, 12)] + ["weather-forecast"]
    write_run(project / "deep.run", {"deep": {"rain-tomorrow": deep}})
    cli("evaluate", "deep.run", "--report", "a.json", cwd=project)
    kept = load_json(project / "a.json")["configurations"]["deep"]["queries"]["rain-tomorrow"]
    assert len(kept["retrieved"]) == 10 and kept["metrics"]["mrr"] == pytest.approx(1 / 12)
    ran = cli("evaluate", "a.json", cwd=project)
    assert (
        "note: a.json keeps each query's top 10 (the largest cut of its metrics) and 1 "
        "query's ranking reaches it: mrr needs more, so for that query it is a lower bound "
        "here (the report's own numbers are from the whole ranking)" in ran.notes
    )
    shallow = cli("evaluate", "a.json", "--override-ini", "retrieval_metrics=ndcg@5", cwd=project)
    assert "keeps each query's top" not in shallow.notes


def test_evaluate_names_a_golden_file_or_a_worklist_given_as_a_run(tmp_path):
    """Read as a TREC run, each line of a golden file or a worklist was an 'expected 6
    fields' problem; a baseline was 'not a JSON report' as if only reports were read."""
    project = _project(tmp_path)
    (project / "worklist.yaml").write_text(
        "format: pytest-retrieval-worklist\nversion: 1\nqueries: []\n", encoding="utf-8"
    )
    (project / "base.json").write_text('{"format": "pytest-retrieval-baseline"}\n', "utf-8")
    wants = (
        "not a TREC run or a JSON report; evaluate reads runs ('qid Q0 docno rank score tag' "
        "lines) and the JSON reports of pytest --retrieval-eval --retrieval-report=PATH.json"
    )
    for name, what in [
        ("golden/g.yaml", "a golden file"),
        ("worklist.yaml", "a pytest-retrieval worklist (written by pytest-retrieval pool)"),
        ("base.json", "a pytest-retrieval baseline (written by --retrieval-update-baseline)"),
    ]:
        ran = cli("evaluate", name, cwd=project)
        assert ran.code == 2
        assert ran.err == f"pytest-retrieval: error: {name} is {what}, {wants}\n"


@pytest.mark.parametrize(
    ("tolerance", "says"),
    [
        ("", "argument --tolerance: the value is empty; give it a value, or leave it out"),
        (" ", "argument --tolerance: the value is empty"),
        (
            "0.02 ndcg@5=0.1",
            "--tolerance names ndcg@5, which is not computed here (metrics: ndcg@10 mrr "
            "recall@10 judged@5)",
        ),
    ],
)
def test_compare_refuses_an_empty_tolerance_or_one_naming_another_metric(tmp_path, tolerance, says):
    """'--tolerance=' (a CI variable left empty) compared at the ini's tolerance, and
    'ndcg@5=0.1' (the run computes ndcg@10) was shown and never applied: the plugin's
    --retrieval-tolerance refuses both."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    for command in (["compare", "a.json", "a.json"], ["evaluate", "runs/dense.run",
                                                        "--baseline", "none.json"]):  # fmt: skip
        ran = cli(*command, f"--tolerance={tolerance}", cwd=project)
        assert ran.code == 2, ran.out
        assert says in ran.err, ran.err


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["evaluate", "runs/dense.run", "--golden="], "--golden"),
        (["evaluate", "runs/dense.run", "--report="], "--report"),
        (["evaluate", "runs/dense.run", "--config="], "--config"),
        (["evaluate", "runs/dense.run", "--metrics-module= "], "--metrics-module"),
        (["evaluate", ""], "RUN"),
        (["compare", "a.json", "a.json", "--configuration="], "--configuration"),
        (["export", "run", "a.json", "-o="], "-o/--output"),
        (["import", "trec", "qrels.txt", "--topics="], "--topics"),
        (["pool", "a.json", "--depth", "3", "-o="], "-o/--output"),
    ],
)
def test_an_option_given_an_empty_value_is_named(tmp_path, args, option):
    """A CI variable left empty: '--golden=' read the whole project folder as golden files,
    'export run -o=' wrote into the current folder, '--topics=' and '--config=' were
    ignored, others said '--report : the suffix must be ...' or 'Empty module name'."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    (project / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    before = sorted(p.name for p in project.iterdir())
    ran = cli(*args, cwd=project)
    assert ran.code == 2, ran.out
    assert f"argument {option}: the value is empty; give it a value, or leave it out" in ran.err
    assert sorted(p.name for p in project.iterdir()) == before


def test_a_report_giving_a_query_twice_is_refused_naming_both_lines(tmp_path):
    """A merge conflict resolved by keeping both lines of a query: the JSON reader kept the
    last, and compare counted the query as improved (the baseline refuses the same)."""
    project = _project(tmp_path)
    cli("evaluate", "runs/dense.run", "--report", "a.json", cwd=project)
    lines = (project / "a.json").read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip().startswith('"convert-euros"'))
    lines.insert(at + 1, lines[at])
    (project / "b.json").write_text("\n".join(lines), encoding="utf-8")
    for command in (["compare", "a.json", "b.json"], ["pool", "b.json", "--depth", "2"]):
        ran = cli(*command, cwd=project)
        assert ran.code == 2, ran.out
        assert (
            f"b.json:{at + 2}: configuration 'dense': query 'convert-euros' is given on lines "
            f"{at + 1} and {at + 2}: a JSON reader keeps the last and drops the other without "
            "a word; keep one"
        ) in ran.err, ran.err


@pytest.mark.parametrize(
    ("empty", "says"),
    [
        ("abstain", "which retrieval_empty = abstain scores 1.0 (a run that found nothing leaves "
         "them out; trec_eval leaves such a query out of its means, or scores it 0 with -c, as "
         "retrieval_empty = zero does): q2"),
        ("zero", "which retrieval_empty = zero scores 0.0 (a run that found nothing leaves them "
         "out): q2"),
        ("skip", "which retrieval_empty = skip leaves out of the means (a run that found "
         "nothing leaves them out): q2"),
    ],
)  # fmt: skip
def test_a_run_lacking_a_query_with_nothing_to_find_says_what_it_scored(
    empty: str, says: str
) -> None:
    """Under the default (abstain) such a query scored 1.0, above trec_eval's numbers,
    and the note said only 'scored as returning nothing'."""
    from pytest_retrieval.replay import lacking_notes

    (note,) = lacking_notes(["q2"], {"q2"}, "run2.txt", empty)
    assert note == (
        "1 of the queries with nothing to find is not in run2.txt: scored as returning "
        "nothing, " + says
    )


def test_a_bad_setting_from_override_ini_is_named_there_not_in_the_config_file(tmp_path):
    project = _project(tmp_path)
    write_run(project / "a.run", {"a": {"rain-tomorrow": ["weather-forecast"]}})
    ran = cli("evaluate", "a.run", "--override-ini", "retrieval_metrics=recip_rank", cwd=project)
    assert ran.code == 2
    assert ran.err.startswith(
        "pytest-retrieval: error: --override-ini retrieval_metrics=recip_rank: retrieval_metrics: "
        "unknown metric 'recip_rank'"
    ), ran.err


def test_a_trec_file_of_the_other_kind_is_named_for_what_it_is_with_the_fix(tmp_path):
    """trec_eval takes QRELS RUN: 'evaluate qrels.txt run' listed every qrels line as a
    run line of 4 fields; a run as --baseline was 'not valid JSON; ... delete it and write
    a new one with --retrieval-baseline=bm25.run' (over the user's run); compare, pool
    and export run said only 'bm25.run:1: not valid JSON'."""
    project = _project(tmp_path)
    (project / "qrels.txt").write_text("rain-tomorrow 0 weather-forecast 2\n", encoding="utf-8")
    ran = cli("evaluate", "qrels.txt", "runs/bm25.run", cwd=project)
    assert (ran.code, ran.out) == (2, "")
    assert ran.err == (
        "pytest-retrieval: error: qrels.txt is a TREC qrels file ('qid iter docno rel' lines), "
        "not a run; evaluate takes the judgments from the golden set: import them with "
        "`pytest-retrieval import trec qrels.txt -o golden/qrels.yaml`, then give evaluate "
        "the runs alone\n"
    )
    before = (project / "runs/dense.run").read_bytes()
    ran = cli("evaluate", "runs/bm25.run", "--baseline", "runs/dense.run", cwd=project)
    assert ran.code == 2
    assert ran.err.startswith(
        "pytest-retrieval: error: --baseline runs/dense.run is a TREC run ('qid Q0 docno rank "
        "score tag' lines), not a baseline; give the baseline file (JSON), or write one with "
    ), ran.err
    assert "delete it" not in ran.err
    assert (project / "runs/dense.run").read_bytes() == before
    cli("evaluate", "runs/bm25.run", "--report", "a.json", cwd=project)
    for command in (["compare", "a.json"], ["pool", "--depth", "3"], ["export", "run"]):
        ran = cli(*command, "runs/dense.run", *(["-o", "out"] if command[0] == "export" else []),
                  cwd=project)  # fmt: skip
        assert ran.code == 2, ran.err
        assert ran.err.startswith(
            "pytest-retrieval: error: runs/dense.run is a TREC run ('qid Q0 docno rank score tag' "
            f"lines), not a JSON report; {' '.join(command[: 1 + (command[0] == 'export')])} takes "
            "JSON reports: score the run into one with `pytest-retrieval evaluate runs/dense.run "
            "--report report.json`"
        ), ran.err


def test_a_tag_two_runs_share_is_named_by_file_and_tag_as_the_plugins_replay_names_it(tmp_path):
    """Two runs of one tag (Anserini's, trec_eval's 'STANDARD') were refused ('rename the
    tag in one of them'), while --retrieval-replay names them FILE-TAG: the baseline the
    plugin wrote from those runs, which evaluate's own hint says to write, held
    configurations evaluate could never match."""
    project = _project(tmp_path)
    runs = {"rain-tomorrow": ["weather-forecast"]}
    write_run(project / "bm25.run", {"Anserini": runs})
    write_run(project / "dense.run", {"Anserini": runs, "other": runs})
    ran = cli("evaluate", "bm25.run", "dense.run", "--report", "r.json", cwd=project)
    assert ran.code in (0, 1), ran.err
    names = list(load_json(project / "r.json")["configurations"])
    assert names == ["bm25-Anserini", "dense-Anserini", "other"]


def test_the_note_on_kept_rankings_counts_rankings_not_queries(tmp_path):
    """A report of two configurations: the rankings that reach the kept depth were
    counted as 'queries' (60 queries' rankings, of a golden set of 30)."""
    ini = INI.replace("ndcg@10 mrr recall@10 judged@5", "mrr@2")
    golden = GOLDEN.replace("    expect: {ndcg@10: 0.9}\n", "")  # no failure: exit 0
    project = write_project(tmp_path, {"golden/g.yaml": golden}, ini=ini)
    write_run(project / "both.run", RUNS)
    made = cli("evaluate", "both.run", "--report", "r.json", cwd=project)
    assert made.code == 0, made.err
    ran = cli("evaluate", "r.json", "--override-ini", "retrieval_metrics=mrr@2 map", cwd=project)
    assert ran.code == 0, ran.err
    note = " ".join(ran.err.split())
    # bm25 ranks 2 or more for rain-tomorrow and convert-euros, dense for rain-tomorrow
    assert (
        "note: r.json keeps each query's top 2 (the largest cut of its metrics) and 3 rankings "
        "(one per query in each of its configurations) reach it: map needs more"
    ) in note, note


def test_a_run_query_id_in_other_letter_case_is_named_as_the_golden_one(tmp_path):
    """A run whose query ids are the golden ones in other letter case scored every query
    as returning nothing; the notes listed the run's ids and the golden ones apart,
    without saying they are the same queries written otherwise."""
    project = _project(tmp_path)
    (project / "upper.run").write_text(
        "RAIN-TOMORROW Q0 d1 1 1.0 t\nnot-a-query Q0 d1 1 1.0 t\n", encoding="utf-8"
    )
    ran = cli("evaluate", "upper.run", cwd=project)
    assert (
        "not in the golden set, ignored: RAIN-TOMORROW, not-a-query; of these, RAIN-TOMORROW "
        "is rain-tomorrow in other letter case or Unicode form: query ids match exactly, so "
        "write the run's query ids as the golden files do"
    ) in " ".join(ran.notes.split())
