"""The JSON report (README: Reports): settings, golden set, per configuration the
summary and every query, comparisons, groups, warnings and the gate."""

from __future__ import annotations

from collections.abc import Iterator

from ..io.json_stream import Compact, Streamed, chunks
from ..io.report_json import FORMAT
from ..model import REPORT_FIELDS
from .run_report import RunReport

VERSION = 1


def _configuration(report: RunReport, name: str) -> Streamed:
    def members() -> Iterator[tuple[str, object]]:
        yield "retriever", dict(report.retrievers.get(name, {}))
        kind = report.kinds.get(name)  # None: not called here (replayed, or offline)
        yield "retriever_kind", kind.as_dict() if kind is not None else None
        yield "summary", report.evaluation.summary_dict(name)
        latency = report.evaluation.latency.get(name)
        if latency is not None:
            yield "latency", latency.as_dict()
        records = report.results.view(name).records
        yield (
            "queries",
            Streamed(lambda: ((r.id, Compact(r.to_dict(REPORT_FIELDS))) for r in records)),
        )

    return Streamed(members)


def _members(report: RunReport) -> Iterator[tuple[str, object]]:
    evaluation = report.evaluation
    yield "format", FORMAT
    yield "version", VERSION
    yield "complete", report.incomplete is None
    yield "settings", report.settings.as_dict()
    if report.calls is not None:
        yield "run", report.calls.as_dict(report.latency_budget)
    yield "golden", report.golden.as_dict()
    names = list(evaluation.summaries)
    yield "configurations", Streamed(lambda: ((n, _configuration(report, n)) for n in names))
    if evaluation.comparisons is not None:
        yield "comparisons", evaluation.comparisons.as_dict()
    if evaluation.groups:
        yield (
            "groups",
            {
                title: {
                    configuration: {name: s.as_dict() for name, s in rows.items()}
                    for configuration, rows in table.items()
                }
                for title, table in evaluation.groups.items()
            },
        )
    yield "warnings", [str(w) for w in evaluation.warnings]
    if report.gate is not None:
        yield "gate", report.gate.as_dict()
    if report.incomplete is not None:
        yield "incomplete", report.incomplete


def json_report(report: RunReport) -> Iterator[str]:
    """The JSON report's text, in pieces: indented, each query's record on one line."""
    yield from chunks(Streamed(lambda: _members(report)))
    yield "\n"
