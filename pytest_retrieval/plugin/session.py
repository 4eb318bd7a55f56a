"""The controller's session: gathers records, gates or updates the baseline, prints, writes.

Registered only on the controller (never on an xdist worker), so it needs no
guards and it is the only writer of files.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import types
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from .. import __version__
from ..aggregate import Results
from ..baseline import (
    Baseline,
    BaselineError,
    BaselineMissing,
    UpdateOutcome,
    merge_update,
    read_baseline,
    write_baseline,
)
from ..comparisons import StatsSettings
from ..evaluation import Evaluation, analyse
from ..gate import UPDATE_HINT, GateResult, GateSettings, explain, headline, run_gate
from ..golden import golden_digest
from ..report.tables import render
from ..report.writers import build_report, html_report, markdown_report, write_reports
from ..scoring import QueryRecord
from ..settings import Settings
from ..slices import GroupBy
from .collect import COLLECTED_KEY, SELECTED_KEY, golden_ids

GATE_NODEID = "retrieval-gate"


def _git_commit(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


class _GateFailure:
    """The gate's failure as a pytest long representation.

    ``reprcrash.message`` is the short headline (JUnit's ``message`` attribute and
    the short test summary line); the whole explanation is the body.
    """

    def __init__(self, headline: str, text: str):
        self.reprcrash = types.SimpleNamespace(message=headline, path=GATE_NODEID, lineno=0)
        self.text = text

    def toterminal(self, tw: Any) -> None:
        for line in self.text.splitlines():
            tw.line(line)

    def __str__(self) -> str:
        return self.text


class RetrievalSession:
    """Aggregates every golden item's record; one per controller process."""

    def __init__(
        self,
        config: pytest.Config,
        settings: Settings,
        gate: GateSettings,
        stats: StatsSettings,
        group_bys: Sequence[GroupBy],
        baseline_path: Path,
    ):
        self.config = config
        self.settings = settings
        self.gate_settings = gate
        self.stats = stats
        self.group_bys = list(group_bys)
        self.baseline_path = baseline_path
        self.results = Results()
        self._evaluation: Evaluation | None = None
        self.worker_golden: dict[str, str] = {}
        self.worker_selected: set[str] = set()
        self.worker_collected: set[str] = set()
        self.gate: GateResult | None = None
        self._gate_text: str | None = None
        self.update: UpdateOutcome | None = None
        self.notes: list[str] = []
        self.failed_write = False  # a baseline or report could not be written
        self.written: list[Path] = []

    # -- gathering --------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "retrieval", None)
        if isinstance(data, dict):
            self.results.add(QueryRecord.from_plain(data))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        self.worker_golden.update(output.get("retrieval_golden") or {})
        self.worker_selected.update(output.get("retrieval_selected") or [])
        self.worker_collected.update(output.get("retrieval_collected") or [])

    def golden_ids(self) -> dict[str, str]:
        """Every golden query collected (selected or not): id -> file."""
        return {**self.worker_golden, **golden_ids(self.config)}

    def selected_configurations(self) -> set[str]:
        """Configurations that had golden items left after selection (-k, -m, paths)."""
        own: list[str] = self.config.stash.get(SELECTED_KEY, [])
        return self.worker_selected | set(own)

    def collected_configurations(self) -> set[str]:
        """Configurations that had golden items before selection."""
        own: set[str] = self.config.stash.get(COLLECTED_KEY, set())
        return self.worker_collected | own

    @property
    def baseline_shown(self) -> str:
        try:
            return str(self.baseline_path.relative_to(self.config.rootpath))
        except ValueError:
            return str(self.baseline_path)

    def gate_text(self) -> str:
        """The gate's explanation (terminal, JUnit, reports), built once."""
        if self._gate_text is None:
            assert self.gate is not None
            self._gate_text = explain(self.gate, self.gate_settings.tolerance)
        return self._gate_text

    @property
    def evaluation(self) -> Evaluation:
        """Every derived number, computed once, after the last report arrived."""
        if self._evaluation is None:
            self._evaluation = analyse(self.results, self.settings, self.stats, self.group_bys)
        return self._evaluation

    # -- gate and baseline ------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        outcome = yield
        if self.config.option.collectonly:
            return outcome
        if self.config.getoption("retrieval_update_baseline"):
            self._update_baseline()
        else:
            self._run_gate()
        return outcome

    def _existing_files(self, baseline: Baseline | None) -> set[str]:
        """The golden files named in the baseline that still exist."""
        if baseline is None:
            return set()
        paths = {q.path for qs in baseline.configurations.values() for q in qs.values()}
        return {p for p in paths if p and (self.config.rootpath / p).exists()}

    def _update_baseline(self) -> None:
        if not self.results:
            self.notes.append("retrieval baseline not written: no query was evaluated")
            return
        previous = None
        try:
            previous = read_baseline(self.baseline_path, self.baseline_shown)
        except BaselineMissing:
            pass
        except BaselineError as exc:
            self.notes.append(f"the previous baseline could not be read and is replaced: {exc}")
        golden = self.golden_ids()
        provenance = {
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "plugin": f"pytest-retrieval {__version__}",
            "git_commit": _git_commit(self.config.rootpath),
        }
        self.update = merge_update(
            previous,
            self.results,
            self.settings,
            golden,
            set(golden.values()),
            self._existing_files(previous),
            provenance,
        )
        if not self.update.updated:
            self.notes.append(
                "retrieval baseline not written: no query was evaluated without an error"
            )
            self.update = None
            return
        try:
            write_baseline(self.baseline_path, self.update.baseline)
        except OSError as exc:
            self.notes.append(
                f"retrieval baseline NOT written: {self.baseline_shown}: {exc.strerror or exc}"
            )
            self.failed_write = True
            self.update = None

    def _run_gate(self) -> None:
        try:
            baseline = read_baseline(self.baseline_path, self.baseline_shown)
        except BaselineMissing:
            self.gate = GateResult(verdict="no-baseline", baseline=self.baseline_shown)
            self.gate.messages.append(
                f"no baseline at {self.baseline_shown}: run `{UPDATE_HINT}` to create one "
                "(and commit it)"
            )
            return
        except BaselineError as exc:
            self.gate = GateResult(verdict="refused", baseline=self.baseline_shown)
            self.gate.messages.append(
                f"{exc}. Fix or delete the file, or run `{UPDATE_HINT}` to rewrite it"
            )
        else:
            golden = self.golden_ids()
            self.gate = run_gate(
                baseline,
                self.baseline_shown,
                self.results,
                self.settings,
                self.gate_settings,
                golden,
                set(golden.values()),
                self._existing_files(baseline),
                self.stats,
                self.selected_configurations(),
                self.collected_configurations(),
            )
        self._log_verdict(self.gate)

    def _log_verdict(self, gate: GateResult) -> None:
        """Report the verdict as a testcase: JUnit gets it and a failure sets exit code 1."""
        message = _GateFailure(headline(gate), self.gate_text())
        hook = self.config.hook
        location = (GATE_NODEID, None, GATE_NODEID)
        hook.pytest_runtest_logstart(nodeid=GATE_NODEID, location=location)
        # A skipped gate (every gated configuration skipped) is a skipped testcase.
        skipped = gate.verdict == "skipped"
        phases = ("setup", "teardown") if skipped else ("setup", "call", "teardown")
        for when in phases:
            outcome = "passed"
            longrepr: object = None
            if skipped and when == "setup":
                outcome, longrepr = "skipped", (GATE_NODEID, 0, f"Skipped: {headline(gate)}")
            elif gate.failed and when == "call":
                outcome, longrepr = "failed", message
            report = pytest.TestReport(
                nodeid=GATE_NODEID,
                location=location,
                keywords={GATE_NODEID: 1},
                outcome=outcome,  # type: ignore[arg-type]
                longrepr=cast(Any, longrepr),
                when=when,  # type: ignore[arg-type]
                sections=[],
                duration=0.0,
                user_properties=[("verdict", gate.verdict), ("baseline", gate.baseline)],
            )
            hook.pytest_runtest_logreport(report=report)
        hook.pytest_runtest_logfinish(nodeid=GATE_NODEID, location=location)

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

    # -- output -----------------------------------------------------------------------
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        if not self.results and self.gate is None and not self.notes:
            return
        tr.write_sep("=", "retrieval evaluation")
        if self.results:
            for line in render(self.evaluation).splitlines():
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
        for note in self.notes:
            tr.write_line(note, yellow=True)
        if self.update is not None:
            self._print_update(tr, self.update)
        if self.gate is not None:
            tr.write_line("")
            colour = {"passed": "green", "no-baseline": "yellow", "skipped": "yellow"}.get(
                self.gate.verdict, "red"
            )
            for i, line in enumerate(self.gate_text().splitlines()):
                tr.write_line(line, **({colour: True, "bold": True} if i == 0 else {}))
        for path in self.written:
            tr.write_line(f"retrieval report written: {path}")

    def _print_update(self, tr: Any, update: UpdateOutcome) -> None:
        tr.write_line("")
        written = ", ".join(f"{c}: {n}" for c, n in sorted(update.updated.items()))
        tr.write_line(f"retrieval baseline written: {self.baseline_shown} ({written} queries)")
        if update.kept:
            kept = ", ".join(f"{c}: {n}" for c, n in sorted(update.kept.items()))
            tr.write_line(f"  kept from the previous baseline (not run now, or errored): {kept}")
        if update.reset:
            tr.write_line(
                "  the previous baseline had other settings and was replaced: "
                + "; ".join(update.reset),
                yellow=True,
            )
        if update.dropped:
            tr.write_line(
                f"  dropped, no longer in any golden file: {', '.join(update.dropped)}",
                yellow=True,
            )
        if update.errored:
            tr.write_line(
                "  not written, their retriever errored (previous entries kept): "
                + ", ".join(update.errored),
                yellow=True,
            )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.failed_write and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        paths = self.config.getoption("retrieval_report")
        if not paths or self.config.option.collectonly:
            return
        golden = self.golden_info()
        verdict = self.gate_text() if self.gate else None
        extra = {"gate": self.gate.as_dict()} if self.gate is not None else None
        suffixes = {Path(p).suffix.lower() for p in paths}
        contents: dict[str, str] = {}
        if ".json" in suffixes:
            report = build_report(self.settings, self.results, self.evaluation, golden, extra)
            contents[".json"] = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
        if ".md" in suffixes:
            contents[".md"] = markdown_report(self.evaluation, self.settings, golden, verdict)
        if ".html" in suffixes:
            contents[".html"] = html_report(
                self.evaluation, self.results, self.settings, golden, verdict
            )
        base = self.config.invocation_params.dir
        self.written, failed = write_reports([str(base / p) for p in paths], contents)
        if failed:
            self.notes.extend(failed)
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
