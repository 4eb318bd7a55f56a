"""Unit tests of the Markdown report's pull-request shape and of the GitHub workflow commands."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from test_gate import QUERY_IDS, baseline_of, gate, perfect, record, results_of  # beside this file

from pytest_retrieval.evaluation import analyse
from pytest_retrieval.gate import GateResult
from pytest_retrieval.model import QueryRecord, Results
from pytest_retrieval.report.gate_text import explain, headline
from pytest_retrieval.report.github import Annotation, workflow_commands
from pytest_retrieval.report.json_report import json_report
from pytest_retrieval.report.markdown import markdown_report
from pytest_retrieval.report.marks import is_own_report
from pytest_retrieval.report.pr_comment import COMMENT_LIMIT, code_fence, pull_request_comment
from pytest_retrieval.report.run_report import GoldenInfo, RunReport
from pytest_retrieval.report.tables import markdown_message, markdown_text
from pytest_retrieval.settings import GateSettings, Settings, StatsSettings

SETTINGS = Settings(metrics=Settings().metrics[:2])
STATS = StatsSettings(resamples=200)
TOLERANCE = GateSettings().tolerance


def report_of(results: Results, verdict: GateResult | None) -> RunReport:
    evaluation = analyse(results, SETTINGS, STATS)
    text = explain(verdict, TOLERANCE) if verdict is not None else None
    return RunReport(
        SETTINGS, results, evaluation, GoldenInfo.of(results), verdict, text, tolerance=TOLERANCE
    )


def failing_run() -> RunReport:
    now = [record(q, 0.5) for q in QUERY_IDS]
    now[0] = record(QUERY_IDS[0], 0.0, outcome="failed")
    now[0].violations = ["expect mrr >= 1.0, got 0.000"]
    results = results_of(now)
    return report_of(results, gate(baseline_of(perfect()), results))


# --------------------------------------------------------------------------- Markdown


def test_the_markdown_and_json_reports_carry_the_mark_a_later_run_knows_them_by(
    tmp_path: Path,
) -> None:
    """A report path is written over only when it holds a report of the plugin's."""
    report = failing_run()
    files = {
        "r.md": markdown_report(report),
        "r.json": "".join(json_report(report)),
        "README.md": "# My project\n",
        "notes.md": "## Retrieval evaluation\n",
        "package.json": '{"name": "pytest-retrieval-report"}\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert [n for n in files if is_own_report(tmp_path / n)] == ["r.md", "r.json"]


def test_verdict_then_counts_then_breached_rows_then_the_rest_collapsed() -> None:
    text = markdown_report(failing_run())
    mark, *lines = text.splitlines()
    assert mark == "<!-- pytest-retrieval report -->"  # the report's mark, which GitHub hides
    assert lines[0] == "## Retrieval evaluation"
    assert lines[2] == (
        "**retrieval gate: FAILED (baseline golden/baseline.json, tolerance 0.02, mode absolute)**"
    )
    assert lines[4] == (
        "**1 query failed: the run fails on them, whatever the gate's verdict on the "
        "metrics' means** (which and why: the failed and errored queries, below)"
    )
    assert lines[6] == "- fused: 0 queries improved, 6 degraded, 0 unchanged"
    table = next(i for i, line in enumerate(lines) if line.startswith("| configuration "))
    assert lines[table].split("|")[1:-1] == [
        " configuration   ", " category   ", " metric   ", "   n ", "   baseline ",
        "   current ", "   delta ", "   allowed ", "     95% interval ", "   p (Holm) ",
    ]  # fmt: skip
    details = lines.index(
        "<details><summary>Every table, the failed queries and the gate's full explanation"
        "</summary>"
    )
    assert 4 < table < details
    first = lines[table + 2].split("|")[1:6]
    assert [c.strip() for c in first] == ["fused", "all", "ndcg@10", "6", "1.000"]
    rest = "\n".join(lines[details:])
    assert "### configuration: fused" in rest
    assert "### failed and errored queries" in rest
    assert "expect mrr >= 1.0, got 0.000" in rest
    assert "### the gate's explanation" in rest and "\n```\nretrieval gate: FAILED" in rest
    assert lines[-1] == "</details>"
    assert len(text) <= COMMENT_LIMIT


def test_queries_that_failed_or_errored_are_said_beside_a_passed_verdict() -> None:
    """The gate judges the means; a query failing its expect/forbid or erroring fails the
    run all the same, and a reviewer reading 'PASSED' on a red job must see why."""
    now = perfect()
    now[1] = record(QUERY_IDS[1], 1.0, outcome="failed")
    now[2] = record(QUERY_IDS[2], 1.0, outcome="failed")
    now[3] = record(QUERY_IDS[3], 1.0, outcome="error", error="RuntimeError: down")
    results = results_of(now)
    verdict = gate(baseline_of(perfect()), results)
    assert verdict.verdict == "passed"
    said = "**2 queries failed and 1 errored: the run fails on them"
    for shown in (verdict, None):  # with the gate's verdict, and with no gate
        head = markdown_report(report_of(results, shown)).split("###", 1)[0]
        assert said in head
        # a run with no gate (an update) was told "whatever the gate's verdict"
        assert ("whatever the gate's verdict" in head) is (shown is not None)
    assert "the run fails on them" not in markdown_report(report_of(results_of(perfect()), None))


def test_without_a_gate_nothing_is_collapsed() -> None:
    results = results_of(perfect())
    no_baseline = GateResult(verdict="no-baseline", baseline="golden/baseline.json")
    for verdict in (None, no_baseline):  # no baseline yet: the tables are all there is
        text = markdown_report(report_of(results, verdict))
        assert "6 golden queries from 1 file;" in text.split("###", 1)[0]
        assert "<details>" not in text and "### configuration: fused" in text


def test_a_gate_message_shows_its_command_as_code_and_one_blank_line_between_parts() -> None:
    """GitHub showed the hint's backticks literally (escaped), after two blank lines."""
    results = results_of(perfect())
    message = "no baseline at golden/my_base*.json: run `pytest --retrieval-eval -k a_b` (once)"
    hint = GateResult(verdict="no-baseline", baseline="golden/baseline.json", messages=[message])
    text = markdown_report(report_of(results, hint))
    assert (
        "> no baseline at golden/my_base\\*.json: run `pytest --retrieval-eval -k a_b` (once)"
        in text
    )
    assert "\n\n\n" not in text.split("6 golden queries", 1)[0]
    unpaired = "a ` alone"
    assert markdown_message(unpaired) == markdown_text(unpaired)


def test_a_long_report_is_cut_under_the_limit_with_a_note() -> None:
    report = failing_run()
    body = "".join(f"| row {i} | {'x' * 90} |\n" for i in range(2000))
    body = "### big\n\n```\n" + body + "```\n"
    text = pull_request_comment(report, body)
    assert len(text) <= COMMENT_LIMIT
    assert len(pull_request_comment(report, body, limit=5000)) <= 5000
    assert text.startswith("## Retrieval evaluation\n\n**retrieval gate: FAILED")
    assert "**Truncated:**" in text and "characters left out to stay under the 65,536" in text
    inside = text.split("<details>", 1)[1]
    assert inside.count("```") % 2 == 0  # the code fence cut open is closed again
    assert text.rstrip().endswith("</details>")
    short = pull_request_comment(report, "tiny\n")
    assert "Truncated" not in short


def test_many_breached_rows_show_25_then_say_how_many_more() -> None:
    report = failing_run()
    assert report.gate is not None
    rows = [dataclasses.replace(report.gate.rows[0], category=f"c{i}") for i in range(40)]
    many = dataclasses.replace(report.gate, rows=rows)
    text = markdown_report(dataclasses.replace(report, gate=many))
    head = text.split("<details>", 1)[0]
    assert head.count("| fused ") == 25
    assert "...and 15 more breached rows (in the details below)" in head


def test_report_mode_says_the_exit_code_is_not_changed() -> None:
    report = failing_run()
    assert report.gate is not None
    quiet = dataclasses.replace(report.gate, mode="report")
    text = markdown_report(dataclasses.replace(report, gate=quiet))
    assert "mode report: findings only, the exit code is not changed)**" in text


# --------------------------------------------------------------------------- GitHub


def test_a_command_escapes_its_message_and_properties() -> None:
    note = Annotation("error", "50% lost\nsecond line", "a: b, c", "golden/x,y.yaml", 14)
    assert note.command() == (
        "::error file=golden/x%2Cy.yaml,line=14,title=a%3A b%2C c::50%25 lost%0Asecond line"
    )
    assert Annotation("notice", "plain").command() == "::notice::plain"


def test_breached_rows_first_at_the_worst_query_then_failing_queries() -> None:
    report = failing_run()
    places = {q: ("golden/core.yaml", 10 + i) for i, q in enumerate(QUERY_IDS)}
    lines = workflow_commands(report.results, report.gate, places)
    assert lines[0] == (  # the worst breach first, at its worst query's line
        "::error file=golden/core.yaml,line=10,title=retrieval gate FAILED::fused / lexical / "
        "ndcg@10: 1.000 -> 0.375 (-0.625, allowed 0.020); dropped most: lex-1, lex-2, lex-3, lex-4"
    )
    assert lines[0].count("dropped most: ") == 1
    failed = [line for line in lines if "title=retrieval%3A query" in line]
    assert failed == [
        f"::error file=golden/core.yaml,line=10,title=retrieval%3A query '{QUERY_IDS[0]}' "
        "[fused] failed::expect mrr >= 1.0, got 0.000"
    ]
    assert len(lines) == 6 + 1  # six breached rows, one failed query
    capped = workflow_commands(report.results, report.gate, places, limit=3)
    assert capped[:3] == [lines[0], lines[1], lines[6]]  # the failing query keeps its share
    assert capped[3] == (
        "::notice title=retrieval::4 more retrieval findings not annotated (GitHub shows 3 per "
        "step): see the job summary or the --retrieval-report files"
    )


def test_in_report_mode_a_breach_is_a_warning() -> None:
    report = failing_run()
    assert report.gate is not None
    quiet = dataclasses.replace(report.gate, mode="report")
    lines = workflow_commands(report.results, quiet, {}, limit=50)
    assert {line.split(" ", 1)[0].split("::")[1] for line in lines if "gate" in line} == {"warning"}
    assert all("file=" not in line for line in lines)  # no place known: no file property


def test_a_markdown_cell_cannot_open_a_column_or_a_tag() -> None:
    """A category ``para|phrase`` put every number of its row under the wrong metric on
    GitHub, and ``<x>`` became a tag: cells escape both."""
    from pytest_retrieval.report.tables import Table

    table = Table(["category", "n"], [["para|phrase <x>", "3"]]).render("markdown")
    row = table.splitlines()[-1]
    assert "para\\|phrase &lt;x>" in row
    assert row.replace("\\|", "").count("|") == 3  # two cells: three bars


def test_control_characters_of_an_error_are_written_as_their_escapes() -> None:
    """An error message holding an escape sequence (a service's error body, raised by
    the retriever) went into the Markdown as it was: `cat report.md` in a CI log
    recoloured it, where the terminal's own output shows ``\\x1b``."""
    shown = markdown_text("raised \x1b[31mred\x1b[0m\x07 done")
    assert not any(ord(c) < 32 or ord(c) == 127 for c in shown)
    assert shown == "raised \\\\x1b\\[31mred\\\\x1b\\[0m\\\\x07 done"


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_hostile_names_are_escaped_everywhere_the_markdown_shows_them() -> None:
    """A configuration named ``</details>`` closed the collapsed block on GitHub, a
    category ``<none>`` vanished as a tag, a ``|`` split a row: in headings, the breached
    rows, the failed queries, the warnings and the retrievers table alike."""
    hostile = "</details>"

    def renamed(r: QueryRecord) -> QueryRecord:
        category = "<none>" if r.category == "lexical" else "a|b *c*"
        return dataclasses.replace(r, configuration=hostile, category=category)

    before = [renamed(r) for r in perfect()]
    now = [renamed(record(q, 0.5)) for q in QUERY_IDS]
    now[0] = dataclasses.replace(now[0], outcome="error", error="raised `x|y` <b>")
    results = results_of(now)
    report = report_of(results, gate(baseline_of(before), results))
    report = dataclasses.replace(report, retrievers={hostile: {"index|v": "<b>2024</b>"}})
    text = markdown_report(report)
    # the gate's explanation is in a code block, which shows its text as it is
    fence = re.search(r"^(`{3,})$", text, re.MULTILINE)
    assert fence is not None
    code = re.compile(f"^{fence.group(1)}\n.*?^{fence.group(1)}\n", re.MULTILINE | re.DOTALL)
    outside = code.sub("", text)
    assert "</details> lex-1 (<none>)" in text and "</details> lex-1" not in outside
    assert outside.count("<details>") == 1 and outside.count("</details>") == 1  # its own
    assert text.rstrip().endswith("</details>")
    text = outside
    assert "<none>" not in text and "<b>" not in text
    assert "### configuration: &lt;/details>" in text
    assert "- &lt;none>: n=4:" in text  # a warning naming the category
    assert "a\\|b \\*c\\*" in text and "a/b" not in text  # | written one way everywhere
    assert "| &lt;/details> | index\\|v=&lt;b>2024&lt;/b> |" in text
    assert "raised \\`x\\|y\\` &lt;b>" in text
    tables = [line for line in text.splitlines() if line.startswith("|")]
    for line in tables:  # no cell split in two: as many columns as the table's head
        head = next(h for h in reversed(tables[: tables.index(line) + 1]) if "---" not in h)
        assert _unescaped_pipes(line) == _unescaped_pipes(head), line


def test_a_code_fence_no_line_of_its_text_can_close_and_a_cut_closes_it() -> None:
    """A configuration named with three backticks ended the gate explanation's fence."""
    assert code_fence("plain") == "```"
    assert code_fence("dense``` / all") == "````"
    body = "````\n" + "".join(f"row {i} ```\n" for i in range(2000)) + "````\n"
    text = pull_request_comment(failing_run(), body, limit=5000)
    inside = text.split("<details>", 1)[1].splitlines()
    assert inside.count("````") == 2  # opened, and closed again where the text was cut


def test_the_retrievers_are_listed_in_the_order_of_the_configurations() -> None:
    """Under xdist the retrievers' metadata arrives in the workers' order, which varies
    from run to run: the Markdown and HTML reports listed them in that order, not in the
    order of every other table."""
    from pytest_retrieval.report.html import html_report

    results = results_of(perfect("bm25"), perfect("dense"), perfect("fused"))
    arrived = {name: {"model": f"{name}-model"} for name in ("fused", "bm25", "dense")}
    report = dataclasses.replace(report_of(results, None), retrievers=arrived)
    assert list(report.evaluation.summaries) == ["bm25", "dense", "fused"]
    section = markdown_report(report).split("### retrievers")[1]
    assert re.findall(r"^\| (\w+) \| model=", section, re.MULTILINE) == ["bm25", "dense", "fused"]
    page = html_report(report)
    retrievers = page.split('<table class="retrievers">')[1].split("</table>")[0]
    assert re.findall(r"<code>model</code> (\w+)-model", retrievers) == ["bm25", "dense", "fused"]


def test_a_name_ending_in_hashes_keeps_them_in_a_heading() -> None:
    """In a Markdown heading, '#'s after a space at its end are its closing sequence, which
    GitHub drops: a configuration 'rank v2 #' had the heading 'configuration: rank v2'."""
    results = results_of([dataclasses.replace(r, configuration="rank v2 #") for r in perfect()])
    text = markdown_report(report_of(results, None))
    assert "### configuration: rank v2 \\#\n" in text
    for name in ("rank v2 #", "a ##", "c#", "# a #"):
        heading = f"### configuration: {markdown_text(name)}"
        assert _rendered_heading(heading) == f"configuration: {name}", heading


def _rendered_heading(line: str) -> str:
    """A heading's text as CommonMark reads it: the closing #s (a run after a space at
    its end) dropped, backslash escapes undone."""
    text = re.sub(r"(^|[ \t])#+[ \t]*$", "", line.split(" ", 1)[1]).rstrip()
    return re.sub(r"\\(.)", r"\1", text)


def test_a_category_holding_every_query_is_listed_once_with_its_all_row() -> None:
    """One category (every TREC or BEIR import: 'uncategorized'): its rows are the 'all'
    rows again. The verdict line, the breached table, the Markdown and the annotations
    listed each breach twice (``fused / all / ndcg@10`` and ``fused / lexical / ndcg@10``);
    they list it once, as the 'all' row naming the category. The JSON keeps every row."""
    lexical = [q for q in QUERY_IDS if q.startswith("lex")]
    now = [record(q, 0.0 if q == "lex-1" else 1.0) for q in lexical]
    results = results_of(now)
    verdict = gate(baseline_of(perfect(ids=lexical)), results)
    assert verdict.verdict == "failed"
    assert {(r.category, r.metric) for r in verdict.breached} == {
        (c, m) for c in ("all", "lexical") for m in ("ndcg@10", "mrr")
    }
    report = report_of(results, verdict)
    line = headline(verdict)
    assert line.count("fused / all (= lexical) / ") == 2, line
    assert "fused / lexical /" not in line
    text = explain(verdict, TOLERANCE)
    table = [row for row in text.splitlines() if row.startswith("fused ")]
    assert [row.split()[1:5] for row in table] == [
        ["all", "(=", "lexical)", "ndcg@10"],
        ["all", "(=", "lexical)", "mrr"],
    ]
    markdown = markdown_report(report)
    breached = [
        row.split("|")[2].strip() for row in markdown.splitlines() if row.startswith("| fused")
    ]
    assert breached == ["all (= lexical)", "all (= lexical)"]
    places = {q: ("golden/core.yaml", 10 + i) for i, q in enumerate(QUERY_IDS)}
    rows = [c for c in workflow_commands(results, verdict, places) if "gate" in c]
    assert len(rows) == 2
    assert all("::fused / all (= lexical) / " in c for c in rows), rows
    assert len(report.gate.as_dict()["rows"]) == 4  # type: ignore[union-attr, arg-type]
