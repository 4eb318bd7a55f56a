"""What every report is made from: one :class:`RunReport` per run.

Pure. The JSON, Markdown and HTML writers all take a :class:`RunReport`, so they
cannot disagree on what the run was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..baseline import Baseline
from ..evaluation import Evaluation
from ..gate import GateResult
from ..golden import golden_digest
from ..history import LogEntry
from ..io.common import counted
from ..model import Results
from ..retriever_metadata import Metadata
from ..retrievers import RetrieverKind
from ..settings import CallSettings, LatencyLimit, Settings, Tolerances


@dataclass(frozen=True)
class GoldenInfo:
    """What was evaluated: the golden files, distinct queries and a digest of their judgments."""

    files: list[str]
    queries: int
    sha256: str

    @classmethod
    def of(cls, results: Results) -> GoldenInfo:
        fingerprints: dict[str, str] = {}
        files: set[str] = set()
        for record in results.all_records():
            fingerprints.setdefault(record.id, record.fingerprint)
            if record.path:
                files.add(record.path)
        return cls(sorted(files), len(fingerprints), golden_digest(fingerprints))

    def as_dict(self) -> dict[str, object]:
        return {"files": self.files, "queries": self.queries, "sha256": self.sha256}


@dataclass(frozen=True)
class RunReport:
    """A finished run: its settings, records, derived numbers and the gate's verdict."""

    settings: Settings
    results: Results
    evaluation: Evaluation
    golden: GoldenInfo
    gate: GateResult | None = None
    gate_text: str | None = None  # the gate's explanation, wrapped at REPORT_WIDTH
    incomplete: str | None = None  # why the run did not run every item (then not gated)
    tolerance: Tolerances | None = None  # the gate's, for its verdict line
    retrievers: Mapping[str, Metadata] = field(default_factory=dict)  # what each one said
    kinds: Mapping[str, RetrieverKind] = field(default_factory=dict)  # how each was called
    baseline: Baseline | None = None  # the baseline the gate read (rank moves per query)
    places: Mapping[str, tuple[int, str]] = field(default_factory=dict)  # id -> (line, text)
    history: Sequence[LogEntry] = ()  # the history log's runs, this one last
    label: str = ""  # this run's --retrieval-label
    calls: CallSettings | None = None  # how the retrievers were called (None: not by pytest)
    latency_budget: Sequence[LatencyLimit] = ()  # the gate's retrieval_latency_budget
    generated: str = ""  # when the run finished (UTC)

    def described(self) -> list[tuple[str, Metadata]]:
        """What each retriever said, in the order of the configurations (the fixture's
        params), whatever order they were noted in: under xdist, that of the workers'
        arrival, which varies from run to run."""
        place = {name: i for i, name in enumerate(self.evaluation.summaries)}
        return sorted(self.retrievers.items(), key=lambda item: place.get(item[0], len(place)))

    def incomplete_line(self) -> str:
        """A sentence that says the numbers are partial, or ""."""
        if self.incomplete is None:
            return ""
        return (
            f"INCOMPLETE RUN ({self.incomplete}): these numbers cover only what ran, and the "
            "gate did not run."
        )

    def settings_line(self) -> str:
        """One sentence that says what the numbers mean (Markdown and HTML headers)."""
        conventions = self.settings.conventions
        return (
            f"{counted(self.golden.queries, 'golden query', 'golden queries')} from "
            f"{counted(len(self.golden.files), 'file')}; "
            f"gain {conventions.gain}, relevance threshold {conventions.relevance_threshold}, "
            f"no-result queries scored by '{conventions.empty}'. Cells: mean [95% interval]."
        )
