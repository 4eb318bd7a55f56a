"""The history log's entries: one run's numbers as one JSON line, read back and compared. Pure.

An entry holds when the run was (time, ``--retrieval-label``, git commit and dirty flag,
plugin version), what makes its numbers comparable (the settings, the golden set's size
and digest), per configuration the retriever's metadata and the ``all`` and per-category
means with their intervals (the JSON report's summary rows), and the gate's verdict with
its counts. The file (append with a lock, a torn last line skipped) is
:mod:`pytest_retrieval.io.history_file`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from .baseline import settings_differences
from .evaluation import Evaluation
from .gate import GateResult
from .io.common import is_version
from .model import ALL, WEIGHTED
from .query_changes import QueryCounts
from .retriever_metadata import Metadata, parse_metadata
from .stats import Interval

FORMAT = "pytest-retrieval-log"
VERSION = 1


class LogEntryError(ValueError):
    """A log line that is JSON but not an entry this plugin can read."""


@dataclass(frozen=True)
class Mean:
    """A mean and its 95% interval (None: nothing to average, or no interval)."""

    value: float | None
    lo: float | None = None
    hi: float | None = None


@dataclass(frozen=True)
class SliceEntry:
    """One summary row: n and each metric's mean with its interval."""

    n: int
    means: dict[str, Mean]

    def as_dict(self) -> dict[str, object]:
        """The JSON report's summary-row shape: ``{"n", each metric, "ci": {metric: [lo, hi]}}``."""
        out: dict[str, object] = {"n": self.n}
        out.update({m: mean.value for m, mean in self.means.items()})
        out["ci"] = {
            m: None if mean.lo is None or mean.hi is None else [mean.lo, mean.hi]
            for m, mean in self.means.items()
        }
        return out


@dataclass(frozen=True)
class ConfigurationEntry:
    """One configuration of a logged run."""

    all: SliceEntry
    categories: dict[str, SliceEntry] = field(default_factory=dict)
    retriever: Metadata = field(default_factory=dict)


@dataclass(frozen=True)
class GateEntry:
    """The gate's verdict in a logged run, with its query counts per configuration."""

    verdict: str
    mode: str
    counts: dict[str, QueryCounts] = field(default_factory=dict)


@dataclass(frozen=True)
class RunStamp:
    """When and from what a run was made."""

    time: str  # ISO 8601, UTC
    git_commit: str | None = None
    git_dirty: bool | None = None
    plugin: str = ""


@dataclass(frozen=True)
class LogEntry:
    """One run in the history log."""

    stamp: RunStamp
    label: str
    settings: dict[str, object]
    golden_queries: int
    golden_sha256: str
    configurations: dict[str, ConfigurationEntry]
    gate: GateEntry | None = None

    @property
    def commit_short(self) -> str | None:
        commit = self.stamp.git_commit
        if not commit:
            return None
        return commit[:7] + ("*" if self.stamp.git_dirty else "")

    def as_dict(self) -> dict[str, object]:
        stamp = self.stamp
        configurations = {
            name: {
                "retriever": dict(c.retriever),
                ALL: c.all.as_dict(),
                "categories": {k: s.as_dict() for k, s in c.categories.items()},
            }
            for name, c in self.configurations.items()
        }
        gate = self.gate
        return {
            "format": FORMAT,
            "version": VERSION,
            "time": stamp.time,
            "label": self.label,
            "git": {"commit": stamp.git_commit, "dirty": stamp.git_dirty},
            "plugin": stamp.plugin,
            "settings": self.settings,
            "golden": {"queries": self.golden_queries, "sha256": self.golden_sha256},
            "configurations": configurations,
            "gate": None
            if gate is None
            else {
                "verdict": gate.verdict,
                "mode": gate.mode,
                "counts": {k: c.as_dict() for k, c in gate.counts.items()},
            },
        }

    def line(self) -> str:
        """The entry as one line of JSON (no newline inside, none at the end)."""
        return json.dumps(self.as_dict(), ensure_ascii=False, sort_keys=False, allow_nan=False)


# --------------------------------------------------------------------------- building


def _slice_entry(
    n: int, values: Mapping[str, float | None], intervals: Mapping[str, Interval]
) -> SliceEntry:
    means: dict[str, Mean] = {}
    for metric, value in values.items():
        interval = intervals.get(metric)
        bounds = interval.as_list() if interval is not None else None
        means[metric] = Mean(value, *(bounds or (None, None)))
    return SliceEntry(n, means)


def build_entry(
    evaluation: Evaluation,
    settings: Mapping[str, object],
    golden: tuple[int, str],
    retrievers: Mapping[str, Metadata],
    gate: GateResult | None,
    stamp: RunStamp,
    label: str,
) -> LogEntry:
    """This run as a log entry. ``golden``: (number of queries, sha256 of the golden set)."""
    configurations: dict[str, ConfigurationEntry] = {}
    for name in evaluation.summaries:
        rows = dict(evaluation.rows(name))
        entries = {
            category: _slice_entry(s.row.n, s.row.values, s.intervals)
            for category, s in rows.items()
            if category != WEIGHTED
        }
        overall = entries.pop(ALL)
        configurations[name] = ConfigurationEntry(
            overall, dict(sorted(entries.items())), dict(retrievers.get(name, {}))
        )
    gate_entry = None
    if gate is not None:
        gate_entry = GateEntry(gate.verdict, gate.mode, dict(gate.counts))
    return LogEntry(stamp, label, dict(settings), golden[0], golden[1], configurations, gate_entry)


# --------------------------------------------------------------------------- reading


def _number(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LogEntryError(f"{where} must be a number or null, got {value!r:.40}")
    return float(value)


def _mapping(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise LogEntryError(f"{where} must be a mapping, got {type(value).__name__}")
    return value


def _text(entry: Mapping[str, object], key: str) -> str:
    """A text field of an entry ("" when absent); another type is named."""
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise LogEntryError(f"{key} must be text, got {type(value).__name__} {value!r}")
    return value


def _time(entry: Mapping[str, object]) -> str:
    """The entry's time, an ISO 8601 timestamp as the plugin writes it ("" when absent)."""
    time = _text(entry, "time")
    try:
        if time:
            datetime.fromisoformat(time.replace("Z", "+00:00"))
    except ValueError:
        raise LogEntryError(
            f"time {time!r} is not an ISO 8601 timestamp (2026-12-03T14:35:00+00:00)"
        ) from None
    return time


def _slice_from(data: object, where: str) -> SliceEntry:
    row = _mapping(data, where)
    n = row.get("n")
    if isinstance(n, bool) or not isinstance(n, int):
        raise LogEntryError(f"{where}.n must be an integer")
    cis = _mapping(row.get("ci") or {}, f"{where}.ci")
    means: dict[str, Mean] = {}
    for metric, value in row.items():
        if metric in ("n", "ci", "n_values"):
            continue
        bounds = cis.get(metric)
        lo = hi = None
        if isinstance(bounds, list) and len(bounds) == 2:
            lo, hi = _number(bounds[0], f"{where}.ci"), _number(bounds[1], f"{where}.ci")
        mean = _number(value, f"{where}.{metric}")
        if mean is not None and not 0.0 <= mean <= 1.0:  # every metric is in 0..1
            raise LogEntryError(f"{where}.{metric} is {mean:g}, outside 0..1")
        means[metric] = Mean(mean, lo, hi)
    return SliceEntry(n, means)


def _configuration_from(data: object, where: str) -> ConfigurationEntry:
    block = _mapping(data, where)
    categories = _mapping(block.get("categories") or {}, f"{where}.categories")
    return ConfigurationEntry(
        _slice_from(block.get(ALL), f"{where}.{ALL}"),
        {str(k): _slice_from(v, f"{where}.categories.{k}") for k, v in categories.items()},
        parse_metadata(block.get("retriever"), where)[0],
    )


def _gate_from(data: object) -> GateEntry | None:
    if data is None:
        return None
    gate = _mapping(data, "gate")
    counts: dict[str, QueryCounts] = {}
    for name, raw in _mapping(gate.get("counts") or {}, "gate.counts").items():
        c = _mapping(raw, f"gate.counts.{name}")
        values = [c.get(k) for k in ("improved", "degraded", "unchanged")]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            improved, degraded, unchanged = (int(str(v)) for v in values)
            counts[str(name)] = QueryCounts(improved, degraded, unchanged)
    return GateEntry(str(gate.get("verdict", "")), str(gate.get("mode", "")), counts)


def entry_from(data: object) -> LogEntry:
    """Read :meth:`LogEntry.as_dict`'s output back; :class:`LogEntryError` says what is wrong."""
    entry = _mapping(data, "the line")
    if entry.get("format") != FORMAT:
        raise LogEntryError(f'not a pytest-retrieval log entry (no "format": "{FORMAT}")')
    if not is_version(entry.get("version"), VERSION):
        raise LogEntryError(
            f"log entry version {json.dumps(entry.get('version'))}; "
            f"this plugin reads version {VERSION}"
        )
    git = _mapping(entry.get("git") or {}, "git")
    golden = _mapping(entry.get("golden") or {}, "golden")
    commit, dirty = git.get("commit"), git.get("dirty")
    stamp = RunStamp(
        _time(entry),
        commit if isinstance(commit, str) else None,
        dirty if isinstance(dirty, bool) else None,
        str(entry.get("plugin", "")),
    )
    configurations = _mapping(entry.get("configurations"), "configurations")
    queries = golden.get("queries")
    return LogEntry(
        stamp,
        _text(entry, "label"),
        dict(_mapping(entry.get("settings") or {}, "settings")),
        queries if isinstance(queries, int) and not isinstance(queries, bool) else 0,
        str(golden.get("sha256", "")),
        {str(k): _configuration_from(v, f"configurations.{k}") for k, v in configurations.items()},
        _gate_from(entry.get("gate")),
    )


# --------------------------------------------------------------------------- comparing


def previous_run(entries: Sequence[LogEntry], label: str) -> LogEntry | None:
    """The last logged run with this label (entries in the order they were appended)."""
    return next((e for e in reversed(entries) if e.label == label), None)


def comparable_runs(
    entries: Sequence[LogEntry], label: str, settings: Mapping[str, object]
) -> tuple[list[LogEntry], int]:
    """The runs of this label made with these settings, and how many of the label were not."""
    same = [e for e in entries if e.label == label]
    kept = [e for e in same if not settings_differences(e.settings, settings)]
    return kept, len(same) - len(kept)


@dataclass(frozen=True)
class Change:
    """One ``all`` mean of one configuration, then and now."""

    configuration: str
    metric: str
    before: float | None  # None: the previous run did not have it
    after: float | None


@dataclass(frozen=True)
class SincePrevious:
    """This run against the previous run of its label."""

    previous: LogEntry
    changes: list[Change]
    notes: list[str]


def since_previous(current: LogEntry, previous: LogEntry) -> SincePrevious:
    """The ``all`` means then and now; notes when settings or the golden set changed."""
    differences = settings_differences(previous.settings, current.settings, "previous run")
    if differences:
        note = "other settings, not compared: " + "; ".join(differences)
        return SincePrevious(previous, [], [note])
    notes = []
    if previous.golden_sha256 != current.golden_sha256:
        was, now = previous.golden_queries, current.golden_queries
        notes.append(
            f"the golden set changed since ({was} -> {now} queries): the means are over "
            "other queries"
            if was != now
            else f"the golden set changed since (as many queries, {now}, but ids, text or "
            "judgments edited): the means are not over the same golden set"
        )
    changes = []
    for name, entry in current.configurations.items():
        before = previous.configurations.get(name)
        for metric, mean in entry.all.means.items():
            then = before.all.means.get(metric) if before is not None else None
            changes.append(Change(name, metric, then.value if then else None, mean.value))
    return SincePrevious(previous, changes, notes)
