"""The Markdown report: the terminal's tables for a CI job summary or a pull-request comment.

Verdict and breached rows first, the rest collapsed, under the comment limit
(:mod:`pytest_retrieval.report.pr_comment`).
"""

from __future__ import annotations

from ..scoring import why
from .marks import MARKDOWN_MARK
from .pr_comment import COMMENT_LIMIT, code_fence, pull_request_comment, retrievers_section
from .run_report import RunReport
from .tables import markdown_text, render


def _not_passed(report: RunReport) -> str:
    """Every item that failed or errored, with why."""
    rows = [
        f"| {markdown_text(r.configuration)} | {markdown_text(r.id)} | {r.outcome} | "
        f"{markdown_text(why(r))} |"
        for r in report.results.all_records()
        if r.outcome in ("failed", "error")
    ]
    if not rows:
        return ""
    head = "### failed and errored queries\n\n| configuration | query | outcome | why |\n"
    return head + "|---|---|---|---|\n" + "\n".join(rows) + "\n"


def markdown_report(report: RunReport) -> str:
    """The verdict first, then the same tables as the terminal, why items failed and the
    gate's whole explanation, collapsed; the first line is the report's mark (an HTML
    comment GitHub does not show: :mod:`~pytest_retrieval.report.marks`)."""
    text = f"**{markdown_text(report.incomplete_line())}**\n\n" if report.incomplete else ""
    text += report.settings_line() + "\n\n"
    text += render(report.evaluation, style="markdown")
    for section in (_not_passed(report), retrievers_section(report)):
        text += "\n" + section if section else ""
    if report.gate_text:
        fence = code_fence(report.gate_text)
        text += f"\n### the gate's explanation\n\n{fence}\n{report.gate_text}\n{fence}\n"
    mark = MARKDOWN_MARK + "\n"
    return mark + pull_request_comment(report, text, COMMENT_LIMIT - len(mark))
