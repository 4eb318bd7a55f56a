"""The JSON report (README: Reports): settings, golden set, per configuration the
summary and every query, comparisons, groups, warnings and the gate."""

from __future__ import annotations

import json

from ..model import REPORT_FIELDS
from .run_report import RunReport

FORMAT = "pytest-retrieval-report"
VERSION = 1


def _configurations(report: RunReport) -> dict[str, object]:
    out: dict[str, object] = {}
    for name in report.evaluation.summaries:
        records = report.results.view(name).records
        block: dict[str, object] = {"retriever": dict(report.retrievers.get(name, {}))}
        block["summary"] = report.evaluation.summary_dict(name)
        latency = report.evaluation.latency.get(name)
        if latency is not None:
            block["latency"] = latency.as_dict()
        block["queries"] = {r.id: r.to_dict(REPORT_FIELDS) for r in records}
        out[name] = block
    return out


def build_report(report: RunReport) -> dict[str, object]:
    """The JSON report as plain data."""
    evaluation = report.evaluation
    data: dict[str, object] = {
        "format": FORMAT,
        "version": VERSION,
        "complete": report.incomplete is None,
        "settings": report.settings.as_dict(),
        "golden": report.golden.as_dict(),
        "configurations": _configurations(report),
    }
    if evaluation.comparisons is not None:
        data["comparisons"] = evaluation.comparisons.as_dict()
    if evaluation.groups:
        data["groups"] = {
            title: {
                configuration: {name: s.as_dict() for name, s in rows.items()}
                for configuration, rows in table.items()
            }
            for title, table in evaluation.groups.items()
        }
    data["warnings"] = [str(w) for w in evaluation.warnings]
    if report.gate is not None:
        data["gate"] = report.gate.as_dict()
    if report.incomplete is not None:
        data["incomplete"] = report.incomplete
    return data


def json_report(report: RunReport) -> str:
    """The JSON report's text."""
    return json.dumps(build_report(report), indent=2, ensure_ascii=False) + "\n"
