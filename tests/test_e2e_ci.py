"""End-to-end: retriever metadata, the history log, GitHub Actions output, the report mode
and the HTML/Markdown reports, on the gate tests' project (tests/test_e2e_gate.py).

The project's retriever describes itself from ``metadata.json`` (configuration ->
mapping) when that file exists, so a test changes what a retriever says between runs.
"""

from __future__ import annotations

import json
import re

import pytest
from test_e2e_gate import (  # beside this file
    BASELINE,
    CONFTEST,
    DEGRADED,
    N_ITEMS,
    QUERY_IDS,
    Run,
    baseline_path,
    baselined,
    gate_lines,
    run,
    set_plan,
    update,
    write_golden,
    write_ini,
)

LOG = "history.jsonl"
DESCRIBED = CONFTEST.replace(
    "    return search\n",
    '    described = Path(__file__).parent / "metadata.json"\n'
    "    if described.exists():\n"
    "        search.metadata = json.loads(described.read_text()).get(request.param)\n"
    "    return search\n",
) + (
    "\n# A real crash while the history log is written: half the line, then SIGKILL.\n"
    'if os.environ.get("E2E_KILL_ON_LOG"):\n'
    "    _write = os.write\n"
    "\n"
    "    def _half(fd, data):\n"
    f'        if os.readlink(f"/proc/self/fd/{{fd}}").endswith("{LOG}"):\n'
    "            _write(fd, data[: len(data) // 2])\n"
    "            os.kill(os.getpid(), signal.SIGKILL)\n"
    "        return _write(fd, data)\n"
    "\n"
    "    os.write = _half\n"
)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("COLUMNS", "200")
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)  # this suite may itself run under Actions
    write_ini(pytester)
    pytester.makeconftest(DESCRIBED)
    write_golden(pytester)
    return pytester


def describe(project: pytest.Pytester, metadata: object) -> None:
    (project.path / "metadata.json").write_text(json.dumps(metadata), encoding="utf-8")


def line_of(project: pytest.Pytester, qid: str) -> tuple[str, int]:
    """The golden file and line of a query (its ``- id:`` line)."""
    for path in sorted((project.path / "golden").glob("*.yaml")):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if text.strip() == f"- id: {qid}":
                return str(path.relative_to(project.path)), number
    raise AssertionError(qid)


def commands(done: Run) -> list[str]:
    return [line for line in done.lines if line.startswith("::")]


# --------------------------------------------------------------------------- metadata


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_retriever_metadata_in_the_baseline_and_its_change_beside_the_verdict(
    project: pytest.Pytester, workers: list[str]
) -> None:
    describe(project, {"fused": {"index_version": "2024-06", "model": "m1"}, "bm25": {"k1": 1.2}})
    update(project, *workers)
    stored = json.loads(baseline_path(project).read_text(encoding="utf-8"))["configurations"]
    assert stored["fused"]["retriever"] == {"index_version": "2024-06", "model": "m1"}
    assert stored["bm25"]["retriever"] == {"k1": 1.2}

    describe(project, {"fused": {"index_version": "2024-09", "model": "m1"}, "bm25": {"k1": 1.2}})
    done = run(project, *workers)
    assert done.ret == 0, done.text  # a new index is compared, not refused
    lines = gate_lines(done)
    assert lines[0].startswith("retrieval gate: PASSED (baseline golden/baseline.json")
    assert lines[3:5] == [
        "  retriever changed since the baseline (still compared):",
        "    fused: index_version 2024-06 → 2024-09",
    ]
    assert done.gate["retriever_changes"] == [
        {"configuration": "fused", "key": "index_version", "baseline": "2024-06",
         "current": "2024-09"}
    ]  # fmt: skip
    assert done.report is not None
    assert done.report["configurations"]["fused"]["retriever"] == {
        "index_version": "2024-09",
        "model": "m1",
    }
    props = {p.get("name"): p.get("value") for p in done.gate_case().iter("property")}
    assert props["fused.retriever_changed"] == "index_version 2024-06 → 2024-09"
    assert "bm25.retriever_changed" not in props


def test_metadata_that_is_not_a_mapping_is_a_note_and_nothing_else(project: pytest.Pytester):
    baselined(project)
    describe(project, {"fused": "v2"})
    done = run(project)
    assert done.ret == 0, done.text
    assert (
        "retriever 'fused': .metadata must be a mapping of names to text or numbers (e.g. "
        "{'model': 'all-MiniLM-L6-v2', 'index_version': '2024-09'}), got str: ignored"
    ) in done.lines
    assert done.gate["retriever_changes"] == []


# --------------------------------------------------------------------------- history


def test_three_runs_with_two_labels_compare_by_label_and_draw_trends(project: pytest.Pytester):
    baselined(project)
    first = run(project, f"--retrieval-log={LOG}", "--retrieval-label", "nightly")
    assert "retrieval log: the first run labelled 'nightly'; the next one compares with it" in (
        first.lines
    )
    assert f"retrieval log appended: {LOG}" in first.lines
    second = run(project, f"--retrieval-log={LOG}", "--retrieval-label", "pr")
    assert "retrieval log: the first run labelled 'pr'; the next one compares with it" in (
        second.lines
    )
    set_plan(project, DEGRADED)
    third = run(
        project, f"--retrieval-log={LOG}", "--retrieval-label=nightly", "--retrieval-report=r.html"
    )
    assert third.ret == 1  # the gate failed: logged all the same

    entries = [json.loads(line) for line in (project.path / LOG).read_text().splitlines()]
    assert [e["label"] for e in entries] == ["nightly", "pr", "nightly"]
    assert [e["gate"]["verdict"] for e in entries] == ["passed", "passed", "failed"]
    assert entries[2]["gate"]["counts"]["fused"] == {"improved": 0, "degraded": 2, "unchanged": 10}
    fused = entries[2]["configurations"]["fused"]["all"]
    assert fused["n"] == len(QUERY_IDS) and fused["ndcg@10"] == pytest.approx(10 / 12)
    assert fused["ci"]["ndcg@10"][0] < fused["ndcg@10"] <= fused["ci"]["ndcg@10"][1]
    assert entries[0]["git"] == {"commit": None, "dirty": None}  # not a git checkout

    start = next(i for i, t in enumerate(third.lines) if t.startswith("since the previous run"))
    assert re.fullmatch(
        r"since the previous run labelled 'nightly' \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\): "
        r"all, now \(change\)",
        third.lines[start],
    )
    table = {line.split()[0]: line.split()[1:] for line in third.lines[start + 3 : start + 5]}
    assert table["bm25"] == ["1.000", "(+0.000)"] * 3
    assert table["fused"] == ["0.833", "(-0.167)"] * 3

    page = (project.path / "r.html").read_text(encoding="utf-8")
    assert page.count('class="chart trend"') == 2 * 3  # two labels, three metrics
    assert "all over the logged runs labelled &#x27;nightly&#x27; (2 runs)" in page
    assert "all over the logged runs labelled &#x27;pr&#x27; (1 run)" in page
    assert page.count('<g class="series" data-configuration="fused">') == 6
    assert page.count('class="point"') == 3 * 2 * (2 + 1)  # metrics x configurations x runs


def test_a_run_of_part_of_the_set_is_logged_only_under_a_label_of_its_own(
    project: pytest.Pytester,
):
    """A -k run appended like a whole one: the next whole run read a changed golden set
    (12 -> 2 queries) and the trends mixed a subset's means with the whole set's."""
    baselined(project)
    run(project, f"--retrieval-log={LOG}")
    part = run(project, f"--retrieval-log={LOG}", "-k", "fused")
    assert (
        f"retrieval log {LOG}: not appended: it ran 1 of 2 configurations (-k, -m or the "
        "paths given); the log compares whole runs: run them all, or log this selection "
        "under a --retrieval-label of its own"
    ) in " ".join(part.text.split())
    assert len((project.path / LOG).read_text().splitlines()) == 1
    category = run(project, f"--retrieval-log={LOG}", "-k", "lexical")
    said = rf"not appended: it ran \d+ of {len(QUERY_IDS)} golden queries \(-k"
    assert re.search(said, " ".join(category.text.split())), category.text
    named = run(project, f"--retrieval-log={LOG}", "-k", "fused", "--retrieval-label=fused")
    assert "not appended" not in named.text
    assert len((project.path / LOG).read_text().splitlines()) == 2


def test_the_ini_key_is_relative_to_the_rootdir_the_option_to_the_current_folder(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    write_ini(project, "retrieval_log = logs/runs.jsonl")
    sub = project.mkdir("sub")
    monkeypatch.chdir(sub)
    where = (f"--rootdir={project.path}", "-c", str(project.path / "pytest.ini"))
    done = project.runpytest_inprocess("--retrieval-eval", "-p", "no:cacheprovider", *where)
    assert done.ret == 0, done.stdout.str()
    assert len((project.path / "logs" / "runs.jsonl").read_text().splitlines()) == 1
    assert not (sub / "logs").exists()
    done = project.runpytest_inprocess("--retrieval-eval", "--retrieval-log=here.jsonl", *where)
    assert done.ret == 0, done.stdout.str()
    assert (sub / "here.jsonl").exists()


def test_a_run_killed_while_logging_leaves_a_readable_log(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    baselined(project)
    run(project, f"--retrieval-log={LOG}")
    monkeypatch.setenv("E2E_KILL_ON_LOG", "1")
    killed = run(project, f"--retrieval-log={LOG}", subprocess_run=True)
    assert killed.ret == -9, killed.text
    monkeypatch.delenv("E2E_KILL_ON_LOG")
    log = project.path / LOG
    assert not log.read_bytes().endswith(b"\n")  # a torn last line

    done = run(project, f"--retrieval-log={LOG}")
    assert done.ret == 0, done.text
    assert f"{LOG}:2: RetrievalLogWarning: retrieval log {LOG}: the last line is incomplete" in (
        done.text
    )
    assert "since the previous run without a label" in done.text  # the first run, read
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(json.loads(line)["format"] for line in lines)
    again = run(project, f"--retrieval-log={LOG}")
    assert "RetrievalLogWarning" not in again.text


def test_a_long_bad_log_line_is_shown_cut_in_its_warning(project: pytest.Pytester) -> None:
    """pytest's warnings summary prints the source line of a warning's place: a log line,
    which may be megabytes, was printed whole."""
    run(project, f"--retrieval-log={LOG}")
    log = project.path / LOG
    first = log.read_text(encoding="utf-8")
    other = json.dumps({**json.loads(first), "version": 7, "label": "x" * 5000})
    log.write_text(first + other + "\n" + '{"torn": "' + "y" * 5000 + "\n", encoding="utf-8")
    done = run(project, f"--retrieval-log={LOG}")
    assert done.ret == 0, done.text
    assert "x" * 200 not in done.text and "y" * 200 not in done.text
    lines = done.text.splitlines()
    at = [n for n, line in enumerate(lines) if "RetrievalLogWarning" in line]
    assert [lines[n].split(": ", 1)[0].strip() for n in at] == [f"{LOG}:2", f"{LOG}:3"]
    shown = [lines[n + 1].strip() for n in at]  # the line's start, where pytest shows it
    assert shown[0].startswith('{"format": "pytest-retrieval-log", "version": 7,')
    assert shown[1] == '{"torn": "' + "y" * 87 + "..."
    assert all(len(line) == 100 for line in shown)


def test_a_bad_log_line_s_warning_fits_an_80_column_terminal(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warning's text was one line of 140 characters (the golden files' warnings are
    wrapped), and the log line under it 104 (its first 100 characters, indented)."""
    monkeypatch.setenv("COLUMNS", "80")
    run(project, f"--retrieval-log={LOG}")
    log = project.path / LOG
    first = log.read_text(encoding="utf-8")
    log.write_text(first + first.replace('"version": 1', '"version": 7', 1), encoding="utf-8")
    done = run(project, f"--retrieval-log={LOG}")
    assert done.ret == 0, done.text
    summary = done.text.split("warnings summary", 1)[1].split("-- Docs:", 1)[0]
    assert (
        f"{LOG}:2: RetrievalLogWarning: retrieval log {LOG}: line 2: log entry version 7; this "
        "plugin reads version 1: skipped"
    ) in " ".join(summary.split())
    assert all(len(line) <= 80 for line in summary.splitlines()), summary
    assert '{"format": "pytest-retrieval-log", "version": 7,' in summary


# --------------------------------------------------------------------------- GitHub Actions


def github_project(project: pytest.Pytester) -> None:
    write_golden(project, overrides={"para-1": {"expect": {"mrr": 1.0}}})
    baselined(project)
    set_plan(project, {**DEGRADED, "*": {"para-1": "late"}})  # para-1: mrr 0.5, fails


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_under_github_actions_a_step_summary_and_annotations_at_the_golden_lines(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
):
    github_project(project)
    summary = project.path / "summary.md"
    summary.write_text("an earlier step's summary\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project.path.parent))
    done = run(project, *workers)
    assert done.ret == 1

    text = summary.read_text(encoding="utf-8")
    assert text.startswith(
        "an earlier step's summary\n<!-- pytest-retrieval report -->\n## Retrieval evaluation\n\n"
        "**retrieval gate"
    )
    assert re.search(r"^\| fused +\| lexical +\| ndcg@10 +\| +4 \|", text, re.MULTILINE)
    assert text.index("| fused ") < text.index("<details>")

    found = commands(done)
    prefix = project.path.name + "/"  # paths from the repository root, GITHUB_WORKSPACE
    file, line = line_of(project, "lex-2")
    assert found[0] == (
        f"::error file={prefix}{file},line={line},title=retrieval gate FAILED::fused / lexical / "
        "ndcg@10: 1.000 -> 0.500 (-0.500, allowed 0.020); dropped most: lex-2, lex-3"
    )
    para_file, para_line = line_of(project, "para-1")
    failing = [c for c in found if "query 'para-1'" in c]
    assert failing == [
        f"::error file={prefix}{para_file},line={para_line},title=retrieval%3A query 'para-1' "
        f"[{c}] failed::expected mrr >= 1, got 0.5"
        for c in ("bm25", "fused")
    ]
    assert len(found) == 10 + 1 and found[-1].startswith("::notice title=retrieval::")


def test_without_a_baseline_a_ci_log_says_where_it_looked_and_actions_warn(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    """No baseline (not committed, or the job looks in another folder) passed the job
    with nothing compared: under -q the log said only 'NO-BASELINE', and on a pull
    request nothing showed at all."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(project.path / "summary.md"))
    done = run(project, "-q")
    assert done.ret == 0, done.text
    hint = (
        f"no baseline at {BASELINE}: run `pytest --retrieval-eval --retrieval-update-baseline` "
        "to create one (and commit it)"
    )
    assert gate_lines(done)[:2] == ["retrieval gate: NO-BASELINE", f"  {hint}"]
    assert commands(done) == [f"::warning title=retrieval gate NO-BASELINE::{hint}"]


def test_github_output_is_off_with_the_ini_key_and_outside_actions(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    github_project(project)
    summary = project.path / "summary.md"
    assert commands(run(project)) == []  # not under GitHub Actions
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    write_ini(project, "retrieval_github = false")
    done = run(project)
    assert commands(done) == [] and not summary.exists()
    write_ini(project, "retrieval_github = maybe")
    assert "retrieval_github must be true or false, got 'maybe'" in run(project).result.stderr.str()


# --------------------------------------------------------------------------- report mode


def test_report_mode_prints_everything_and_never_fails_the_run(project: pytest.Pytester):
    write_ini(project, "retrieval_gate_mode = report")
    baselined(project)
    set_plan(project, DEGRADED)
    done = run(project)
    assert done.ret == 0, done.text
    done.result.assert_outcomes(passed=N_ITEMS + 1)
    lines = gate_lines(done)
    assert lines[0] == (
        f"retrieval gate: FAILED (baseline {BASELINE}, tolerance 0.02, mode report: findings "
        "only, the exit code is not changed)"
    )
    assert "  fused: 0 queries improved, 2 degraded, 10 unchanged" in lines
    assert any(line.startswith("fused  ") and "lexical" in line for line in lines)  # breached
    assert done.gate["verdict"] == "failed" and done.gate["blocking"] is False
    case = done.gate_case()
    assert case.find("failure") is None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["verdict"] == "failed" and props["mode"] == "report"
    assert props["findings"].startswith("retrieval gate: FAILED")

    baseline_path(project).write_text("{not json", encoding="utf-8")
    refused = run(project)
    assert refused.ret == 0 and refused.gate["verdict"] == "refused"


# --------------------------------------------------------------------------- reports


def test_the_html_page_shows_rank_moves_and_the_markdown_the_verdict_first(
    project: pytest.Pytester,
):
    describe(project, {"fused": {"index_version": "2024-06"}})
    baselined(project)
    set_plan(project, {"fused": {"lex-1": "swap"}})
    done = run(project, "--retrieval-report=r.html", "--retrieval-report=r.md")
    assert done.ret == 1
    page = (project.path / "r.html").read_text(encoding="utf-8")
    assert 'data-verdict="failed"' in page
    assert page.count('class="chart"') >= 3 and 'class="chart forest"' in page
    assert '<li class="down">lex-1-main 1→2 (grade 3)</li>' in page
    assert '<li class="up">lex-1-alt 2→1 (grade 2)</li>' in page
    assert "lexical question number lex-1" in page  # the query's text
    assert "<code>index_version</code> 2024-06" in page
    markdown = (project.path / "r.md").read_text(encoding="utf-8")
    assert markdown.startswith(
        "<!-- pytest-retrieval report -->\n## Retrieval evaluation\n\n**retrieval gate: FAILED"
    )
    assert markdown.index("| fused ") < markdown.index("<details>")
    assert "### retrievers\n\n| configuration | retriever metadata |\n|---|---|\n" in markdown
    assert "| fused | index_version=2024-06 |" in markdown
