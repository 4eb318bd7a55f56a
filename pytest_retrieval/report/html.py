"""The HTML report: one self-contained page with the tables, the verdict and every query."""

from __future__ import annotations

import html

from ..scoring import why
from .run_report import RunReport
from .tables import render

_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin:0 0 1.5em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    "pre{background:#f6f6f6;padding:1em;overflow-x:auto}"
    ".failed,.error{color:#b00020;font-weight:600}"
)


def _query_table(report: RunReport, configuration: str) -> str:
    metrics = report.evaluation.metrics
    head = ["query", "category", "outcome", *metrics, "top results", "why"]
    rows = []
    for r in report.results.view(configuration).records:
        cells = [
            html.escape(r.id),
            html.escape(r.category),
            f'<span class="{r.outcome}">{r.outcome}</span>',
            *("n/a" if r.metrics.get(m) is None else f"{r.metrics[m]:.3f}" for m in metrics),
            html.escape(", ".join(r.retrieved[:5])),
            html.escape(why(r)),
        ]
        rows.append("".join(f"<td>{c}</td>" for c in cells))
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"


def html_report(report: RunReport) -> str:
    """A self-contained HTML page: the tables, the gate's verdict and every query's row."""
    body = ["<h2>Retrieval evaluation</h2>"]
    if report.incomplete:
        body.append(f'<p class="error">{html.escape(report.incomplete_line())}</p>')
    body.append(f"<p>{html.escape(report.settings_line())}</p>")
    if report.gate_text:
        body.append(f"<pre>{html.escape(report.gate_text)}</pre>")
    body.append(render(report.evaluation, style="html"))
    for configuration in report.evaluation.summaries:
        body.append(f"<h3>queries: {html.escape(configuration)}</h3>")
        body.append(_query_table(report, configuration))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Retrieval evaluation</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
