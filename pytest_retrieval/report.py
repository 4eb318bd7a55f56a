"""Report writers: JSON (CONTRACT §4) and Markdown. Pure apart from the atomic write."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .aggregate import Results
from .atomic import write_atomic
from .evaluation import Evaluation
from .settings import Settings
from .tables import render

FORMAT = "pytest-retrieval-report"
VERSION = 1
SUFFIXES = (".json", ".md")


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


def markdown_report(evaluation: Evaluation, settings: Settings, golden: Mapping[str, Any]) -> str:
    """The same tables as the terminal, in Markdown, for a CI job summary."""
    head = [
        "## Retrieval evaluation",
        "",
        f"{golden.get('queries', 0)} golden queries from "
        f"{len(golden.get('files', []))} file(s); gain {settings.conventions.gain}, "
        f"relevance threshold {settings.conventions.relevance_threshold}, "
        f"no-result queries scored by '{settings.conventions.empty}'. "
        "Cells: mean [95% interval].",
        "",
        "",
    ]
    return "\n".join(head) + render(evaluation, markdown=True)


def write_reports(paths: Sequence[str], report: dict[str, Any], markdown: str) -> list[Path]:
    """Write each requested report atomically, by suffix."""
    written = []
    for raw in paths:
        path = Path(raw)
        if path.suffix.lower() == ".json":
            write_atomic(path, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        else:
            write_atomic(path, markdown)
        written.append(path)
    return written
