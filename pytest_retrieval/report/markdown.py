"""The Markdown report: the terminal's tables for a CI job summary."""

from __future__ import annotations

from .run_report import RunReport
from .tables import render


def markdown_report(report: RunReport) -> str:
    """The same tables as the terminal, in Markdown, then the gate's verdict."""
    text = "## Retrieval evaluation\n\n" + report.settings_line() + "\n\n"
    text += render(report.evaluation, style="markdown")
    if report.gate_text:
        text += f"\n```\n{report.gate_text}\n```\n"
    return text
