"""The controller's session: gathers records from reports, prints tables, writes reports.

Registered only on the controller (never on an xdist worker), so it needs no
guards and it is the only writer of files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .aggregate import Results
from .golden import golden_digest
from .report import build_report, markdown_report, write_reports
from .scoring import QueryRecord
from .settings import Settings
from .tables import render


class RetrievalSession:
    """Aggregates every golden item's record; one per controller process."""

    def __init__(self, config: pytest.Config, settings: Settings):
        self.config = config
        self.settings = settings
        self.results = Results()
        self.written: list[Path] = []

    # -- gathering --------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "retrieval", None)
        if isinstance(data, dict):
            self.results.add(QueryRecord.from_plain(data))

    # -- derived ----------------------------------------------------------------------
    def golden_info(self) -> dict[str, Any]:
        """What was evaluated: files, distinct queries and a digest of their judgments."""
        fingerprints: dict[str, str] = {}
        files: list[str] = []
        for configuration in self.results.configurations():
            for record in self.results.records(configuration):
                fingerprints.setdefault(record.id, record.fingerprint)
                if record.path and record.path not in files:
                    files.append(record.path)
        return {
            "files": sorted(files),
            "queries": len(fingerprints),
            "sha256": golden_digest(fingerprints),
        }

    def report(self) -> dict[str, Any]:
        return build_report(self.settings, self.results, self.golden_info())

    # -- output -----------------------------------------------------------------------
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        if not self.results:
            return
        metrics = self.settings.metric_names
        tr.write_sep("=", "retrieval evaluation")
        for line in render(self.results.summaries(metrics), metrics).splitlines():
            tr.write_line(line)
        errors = sum(
            1
            for c in self.results.configurations()
            for r in self.results.records(c)
            if r.outcome == "error"
        )
        if errors:
            tr.write_line(
                f"{errors} item(s) errored: their queries score 0.0 on every metric",
                yellow=True,
            )
        for path in self.written:
            tr.write_line(f"retrieval report written: {path}")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        paths = self.config.getoption("retrieval_report")
        if not paths or not self.results:
            return
        metrics = self.settings.metric_names
        golden = self.golden_info()
        report = build_report(self.settings, self.results, golden)
        markdown = markdown_report(self.results.summaries(metrics), metrics, self.settings, golden)
        base = self.config.invocation_params.dir
        self.written = write_reports([str(base / p) for p in paths], report, markdown)
