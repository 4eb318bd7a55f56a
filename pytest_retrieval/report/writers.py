"""Report writers: JSON (CONTRACT §4), Markdown and HTML. Pure apart from the atomic write."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..aggregate import Results
from ..evaluation import Evaluation
from ..io.atomic import write_atomic
from ..settings import Settings
from .tables import render

FORMAT = "pytest-retrieval-report"
VERSION = 1
SUFFIXES = (".json", ".md", ".html")


class ReportPathError(ValueError):
    """A report path whose suffix names no report format."""


def check_report_path(path: str) -> None:
    if Path(path).suffix.lower() not in SUFFIXES:
        raise ReportPathError(
            f"--retrieval-report {path}: the suffix must be one of {', '.join(SUFFIXES)}"
        )


def build_report(
    settings: Settings,
    results: Results,
    evaluation: Evaluation,
    golden: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report as a dict."""
    configurations: dict[str, Any] = {}
    for name in evaluation.summaries:
        configurations[name] = {
            "summary": evaluation.summary_dict(name),
            "queries": {
                r.id: {
                    "category": r.category,
                    "tags": r.tags,
                    "outcome": r.outcome,
                    "metrics": r.metrics,
                    "retrieved": r.retrieved,
                    "duplicates": r.duplicates,
                    "error": r.error,
                }
                for r in results.records(name)
            },
        }
    report: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "settings": settings.as_dict(),
        "golden": dict(golden),
        "configurations": configurations,
    }
    if evaluation.comparisons is not None:
        report["comparisons"] = evaluation.comparisons.as_dict()
    if evaluation.groups:
        report["groups"] = {
            title: {
                configuration: {name: s.as_dict() for name, s in rows.items()}
                for configuration, rows in table.items()
            }
            for title, table in evaluation.groups.items()
        }
    report["warnings"] = evaluation.warnings
    if extra:
        report.update(extra)
    return report


def _settings_line(settings: Settings, golden: Mapping[str, Any]) -> str:
    return (
        f"{golden.get('queries', 0)} golden queries from "
        f"{len(golden.get('files', []))} file(s); gain {settings.conventions.gain}, "
        f"relevance threshold {settings.conventions.relevance_threshold}, "
        f"no-result queries scored by '{settings.conventions.empty}'. "
        "Cells: mean [95% interval]."
    )


def markdown_report(
    evaluation: Evaluation,
    settings: Settings,
    golden: Mapping[str, Any],
    verdict: str | None = None,
) -> str:
    """The same tables as the terminal, in Markdown, for a CI job summary."""
    text = "## Retrieval evaluation\n\n" + _settings_line(settings, golden) + "\n\n"
    text += render(evaluation, style="markdown")
    if verdict:
        text += f"\n```\n{verdict}\n```\n"
    return text


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin:0 0 1.5em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    "pre{background:#f6f6f6;padding:1em;overflow-x:auto}"
    ".failed,.error{color:#b00020;font-weight:600}"
)


def html_report(
    evaluation: Evaluation,
    results: Results,
    settings: Settings,
    golden: Mapping[str, Any],
    verdict: str | None = None,
) -> str:
    """A self-contained HTML page: the tables, the gate's verdict and every query's row."""
    body = [
        "<h2>Retrieval evaluation</h2>",
        f"<p>{html.escape(_settings_line(settings, golden))}</p>",
    ]
    if verdict:
        body.append(f"<pre>{html.escape(verdict)}</pre>")
    body.append(render(evaluation, style="html"))
    for configuration in evaluation.summaries:
        body.append(f"<h3>queries: {html.escape(configuration)}</h3>")
        head = ["query", "category", "outcome", *evaluation.metrics, "top results", "error"]
        rows = []
        for r in results.records(configuration):
            cells = [
                html.escape(r.id),
                html.escape(r.category),
                f'<span class="{r.outcome}">{r.outcome}</span>',
                *(
                    "n/a" if r.metrics.get(m) is None else f"{r.metrics[m]:.3f}"
                    for m in evaluation.metrics
                ),
                html.escape(", ".join(r.retrieved[:5])),
                html.escape(r.error or ""),
            ]
            rows.append("".join(f"<td>{c}</td>" for c in cells))
        header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        body.append(
            f"<table><thead><tr>{header}</tr></thead><tbody>"
            + "".join(f"<tr>{row}</tr>" for row in rows)
            + "</tbody></table>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Retrieval evaluation</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def write_reports(
    paths: Sequence[str], contents: Mapping[str, str]
) -> tuple[list[Path], list[str]]:
    """Write each requested report atomically, by suffix; a failure does not stop the others.

    Returns the paths written and one message per path that could not be written.
    """
    written: list[Path] = []
    failed: list[str] = []
    for raw in paths:
        path = Path(raw)
        try:
            write_atomic(path, contents[path.suffix.lower()])
        except OSError as exc:
            failed.append(f"retrieval report NOT written: {raw}: {exc.strerror or exc}")
        else:
            written.append(path)
    return written, failed
