"""The gate's verdict as a synthetic ``retrieval-gate`` testcase.

Reported through ``pytest_runtest_logreport`` from the controller's
``pytest_runtestloop`` wrapper, so the JUnit XML gets a testcase and a failure
makes the exit code 1 by itself (pinned by the end-to-end gate tests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast

import pytest

from ..gate import GateResult
from ..report.wrapping import note_lines
from ..retriever_metadata import change_lines
from .failure import Crash

if TYPE_CHECKING:
    from _pytest._io import TerminalWriter

GATE_NODEID = "retrieval-gate"


class GateFailure:
    """The gate's failure as a pytest long representation.

    ``reprcrash.message`` is the short headline (JUnit's ``message`` attribute and
    the short test summary line); the whole explanation is the body.
    """

    def __init__(self, headline: str, text: str, quiet: bool = False, whole: bool = False):
        self.reprcrash = Crash(GATE_NODEID, 0, headline)
        self.text = text
        self.quiet = quiet
        self.whole = whole  # the headline says all the explanation would

    def toterminal(self, tw: TerminalWriter) -> None:
        # The explanation is printed once, in the "retrieval evaluation" section; JUnit
        # and --junitxml readers get all of it through str().
        where = (
            "(under -q the 'retrieval evaluation' section below shows only the verdict: "
            "run without -q for the gate's explanation)"
            if self.quiet
            else "(the gate's explanation is in the 'retrieval evaluation' section below)"
        )
        said = [self.reprcrash.message]
        if not (self.quiet and self.whole):  # a refusal's one reason: nothing more below
            said.append(where)
        for text in said:
            for line in note_lines(text, tw.fullwidth):
                tw.line(line)

    def __str__(self) -> str:
        return self.text


def properties(gate: GateResult) -> list[tuple[str, object]]:
    """The testcase's JUnit properties: the verdict, its mode, each configuration's query
    counts and retriever changes; in report mode, the findings' text."""
    found: list[tuple[str, object]] = [("verdict", gate.verdict), ("baseline", gate.baseline)]
    found.append(("mode", gate.mode))
    for name, counts in gate.counts.items():
        found += [(f"{name}.{key}", value) for key, value in counts.as_dict().items()]
    for line in change_lines(gate.retriever_changes):
        name, _, changed = line.partition(": ")
        found.append((f"{name}.retriever_changed", changed))
    return found


def _report(
    gate: GateResult, when: str, headline: str, text: str, quiet: bool
) -> pytest.TestReport:
    skipped = gate.verdict == "skipped"
    outcome, longrepr = "passed", cast(object, None)
    user_properties = properties(gate)
    sections: list[tuple[str, str]] = []
    if skipped and when == "setup":
        outcome, longrepr = "skipped", (GATE_NODEID, 0, f"Skipped: {headline}")
    elif gate.failed and when == "call" and gate.blocking:
        whole = gate.verdict == "refused" and len(gate.messages) <= 1  # one reason, said
        outcome, longrepr = "failed", GateFailure(headline, text, quiet, whole)
    elif gate.failed and when == "call":  # report mode: passed, the findings in its text
        sections.append(("Captured stdout call", text))
    if gate.failed and not gate.blocking:  # JUnit reads the properties of the last phase
        user_properties.append(("findings", text))
    return pytest.TestReport(
        nodeid=GATE_NODEID,
        location=(GATE_NODEID, None, GATE_NODEID),
        keywords={GATE_NODEID: 1},
        outcome=cast("Literal['passed', 'failed', 'skipped']", outcome),
        longrepr=cast("None", longrepr),
        when=cast("Literal['setup', 'call', 'teardown']", when),
        sections=sections,
        duration=0.0,
        user_properties=user_properties,
    )


def log_verdict(session: pytest.Session, gate: GateResult, headline: str, text: str) -> None:
    """Report the verdict as a testcase; a skipped gate is a skipped testcase, but none
    where nothing at all was selected (``-k nosuchthing``): pytest then says "no tests
    ran" (exit 5), and the section's verdict line says why the gate was skipped."""
    if gate.verdict == "skipped" and not session.testscollected:
        return
    hook = session.config.hook
    location = (GATE_NODEID, None, GATE_NODEID)
    if session.testscollected:  # count the gate in pytest's progress: [100%], never [107%]
        session.testscollected += 1  # but never where nothing was selected: exit 5 stays 5
    hook.pytest_runtest_logstart(nodeid=GATE_NODEID, location=location)
    phases = ("setup", "teardown") if gate.verdict == "skipped" else ("setup", "call", "teardown")
    for when in phases:
        quiet = session.config.get_verbosity() < 0
        hook.pytest_runtest_logreport(report=_report(gate, when, headline, text, quiet))
    hook.pytest_runtest_logfinish(nodeid=GATE_NODEID, location=location)
