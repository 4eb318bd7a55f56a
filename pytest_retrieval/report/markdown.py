"""The Markdown report: the terminal's tables for a CI job summary."""

from __future__ import annotations

from ..scoring import why
from .run_report import RunReport
from .tables import render


def _not_passed(report: RunReport) -> str:
    """Every item that failed or errored, with why."""
    rows = [
        f"| {r.configuration} | {r.id} | {r.outcome} | {why(r).replace('|', '/')} |"
        for r in report.results.all_records()
        if r.outcome in ("failed", "error")
    ]
    if not rows:
        return ""
    head = "### failed and errored queries\n\n| configuration | query | outcome | why |\n"
    return head + "|---|---|---|---|\n" + "\n".join(rows) + "\n"


def markdown_report(report: RunReport) -> str:
    """The same tables as the terminal, in Markdown, then why items failed and the verdict."""
    text = "## Retrieval evaluation\n\n"
    if report.incomplete:
        text += f"**{report.incomplete_line()}**\n\n"
    text += report.settings_line() + "\n\n"
    text += render(report.evaluation, style="markdown")
    failed = _not_passed(report)
    if failed:
        text += "\n" + failed
    if report.gate_text:
        text += f"\n```\n{report.gate_text}\n```\n"
    return text
