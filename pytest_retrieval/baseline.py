"""The baseline: what it holds, how an update merges into it, when it is comparable. Pure.

A baseline holds, per configuration, every query's record (metric values, top
ranked ids with their grades, a fingerprint of its text and judgments); the
settings that make numbers comparable; and provenance. Reading and writing the
file is :mod:`pytest_retrieval.io.baseline_file`.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .bulk import with_paused_gc
from .model import QueryRecord, Results
from .retriever_metadata import Metadata
from .settings import BASELINE, Settings

UPDATE_HINT = "pytest --retrieval-eval --retrieval-update-baseline"


def update_hint(
    shown: str,
    replay: Sequence[str] = (),
    overrides: Sequence[str] = (),
    selection: Sequence[tuple[str, str]] = (),
) -> str:
    """The command that rewrites the baseline shown as ``shown``: with its path when that
    is not the default one (what ``--retrieval-baseline`` or the ini key gave), the
    files a replayed run came from (``--retrieval-replay``: without them the command
    would call the live retrievers, or find none to call), and the run's ``-o
    retrieval_...=value`` overrides (without them it would write the ini's settings,
    which the run that follows, given them again, refuses). ``selection``: the run's
    ``-k``/``-m`` expressions as (option, expression), repeated so that the update
    writes the part the run gated and no other (an update over a subset keeps the
    rest as it was)."""
    command = UPDATE_HINT
    if shown not in ("", BASELINE.default):
        command += f" --retrieval-baseline={shlex.quote(shown)}"
    command += "".join(f" {option} {shlex.quote(given)}" for option, given in selection)
    command += "".join(f" -o {shlex.quote(given)}" for given in overrides)
    return command + "".join(f" --retrieval-replay={shlex.quote(path)}" for path in replay)


class BaselineError(Exception):
    """A baseline that is missing, unreadable, corrupt or of another format."""


class BaselineMissing(BaselineError):
    """No baseline file at the path."""


@dataclass
class Baseline:
    """A baseline: settings, per configuration the records by query id, provenance."""

    settings: dict[str, object]
    configurations: dict[str, dict[str, QueryRecord]]
    provenance: dict[str, object] = field(default_factory=dict)
    retrievers: dict[str, Metadata] = field(default_factory=dict)  # what each retriever said

    def files(self) -> set[str]:
        """The golden files its queries came from."""
        return {q.path for qs in self.configurations.values() for q in qs.values() if q.path}


@dataclass(frozen=True)
class RunFacts:
    """What the run saw beyond its records: which golden queries and files exist, which
    configurations were collected and which selected."""

    golden_ids: Mapping[str, str] = field(default_factory=dict)  # every query collected -> file
    existing_files: frozenset[str] = frozenset()  # baseline files that still exist
    selected: frozenset[str] | None = None  # configurations with items after selection
    collected: frozenset[str] | None = None  # configurations with items before selection
    retrievers: Mapping[str, Metadata] = field(default_factory=dict)  # this run's metadata
    replayed: tuple[str, ...] = ()  # --retrieval-replay: the files this run's answers came from
    replayed_trec: bool = (
        False  # ... and they are TREC runs (which `evaluate` reads), not a recording
    )
    # what may have left golden queries out of this run, as the gate's notes name it
    selection: str = "-k, -m or the paths given"
    report: str = ""  # compare: this side is a report (B.json), which the notes name

    @property
    def collected_files(self) -> set[str]:
        return set(self.golden_ids.values())

    def is_gone(self, query: QueryRecord) -> bool:
        """A baseline query no longer in the golden set: its file was collected without
        it, or its file is gone. A query of a file this run did not collect is not gone."""
        return query.id not in self.golden_ids and (
            query.path in self.collected_files
            or bool(query.path and query.path not in self.existing_files)
        )


def settings_differences(
    stored: Mapping[str, object],
    current: Mapping[str, object],
    then: str = "baseline",
    now: str = "this run",
) -> list[str]:
    """Each setting that differs, as ``name: baseline X, this run Y`` (``then`` names
    where ``stored`` comes from: ``previous run`` for the history log's; ``now`` where
    ``current`` does: ``compare``'s second report).

    The order of the metrics does not matter: values are stored by metric name.
    """

    def same(key: str) -> bool:
        a, b = stored.get(key), current.get(key)
        if key == "metrics" and isinstance(a, list) and isinstance(b, list):
            return sorted(map(str, a)) == sorted(map(str, b))
        return a == b

    return [
        f"{key}: {then} {stored.get(key)!r}, {now} {current.get(key)!r}"
        + (_metrics_apart(stored.get(key), current.get(key), now) if key == "metrics" else "")
        for key in sorted(set(stored) | set(current))
        if not same(key)
    ]


def baseline_metrics(baseline: Baseline) -> list[str]:
    """The metrics the baseline holds (its settings' ``metrics``)."""
    stored = baseline.settings.get("metrics")
    return [str(m) for m in stored] if isinstance(stored, list) else []


def conventions_differences(
    stored: Mapping[str, object], current: Mapping[str, object], then: str = "baseline"
) -> list[str]:
    """:func:`settings_differences` but for the metrics: the conventions (gain, relevance
    threshold, max grade, empty) under which two sets of numbers compare, or do not."""
    return settings_differences(
        {k: v for k, v in stored.items() if k != "metrics"},
        {k: v for k, v in current.items() if k != "metrics"},
        then,
    )


def _metrics_apart(stored: object, current: object, now: str = "this run") -> str:
    """`` (this run adds 'map'; lacks 'ndcg@10')``: which names differ, for two lists
    in different orders where the eye cannot find them."""
    if not isinstance(stored, list) or not isinstance(current, list):
        return ""
    added = [repr(m) for m in current if m not in stored]
    lacking = [repr(m) for m in stored if m not in current]
    parts = [f"adds {', '.join(added)}"] if added else []
    parts += [f"lacks {', '.join(lacking)}"] if lacking else []
    return f" ({now} {'; '.join(parts)})" if parts else ""


# --------------------------------------------------------------------------- updating


@dataclass
class UpdateOutcome:
    """What an update did, for the terminal."""

    baseline: Baseline
    updated: dict[str, int]  # configuration -> queries written from this run
    kept: dict[str, int]  # configuration -> queries kept from the previous baseline
    dropped: list[str]  # "configuration/query" no longer in any golden file
    reset: list[str]  # settings that differed: the previous baseline was discarded
    errored: list[str]  # "configuration/query" that errored: not written, previous entry kept
    moved: list[MeanMove] = field(default_factory=list)  # means the update changes, drops first
    # configuration -> queries: the previous baseline's configurations this run did not
    # collect (removed or renamed in the fixture's params), dropped as the gate fails on them
    gone: dict[str, int] = field(default_factory=dict)
    gone_from: str = "the retriever fixture's params"  # what no longer holds them
    unchanged: bool = False  # nothing but the provenance would change: the file was left as is
    # after a reset: the metrics this run adds and those it drops, and the names of the
    # conventions (gain, ...) that differ, which make the previous means not comparable
    metrics_added: list[str] = field(default_factory=list)
    metrics_dropped: list[str] = field(default_factory=list)
    incomparable: list[str] = field(default_factory=list)
    # after a reset: the previous baseline's configurations this run has no query of,
    # dropped with it (configuration -> queries)
    replaced_away: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class MeanMove:
    """A configuration's mean over every baselined query, before and after an update."""

    configuration: str
    metric: str
    before: float
    after: float

    def text(self) -> str:
        delta = self.after - self.before
        before, after = f"{self.before:.3f}", f"{self.after:.3f}"
        return f"{self.configuration} {self.metric} {before} -> {after} ({delta:+.3f})"


def _mean(records: Iterable[QueryRecord], metric: str) -> float | None:
    values = [v for r in records if (v := r.metrics.get(metric)) is not None]
    return math.fsum(values) / len(values) if values else None


def mean_moves(before: Baseline, after: Baseline, metrics: Sequence[str]) -> list[MeanMove]:
    """The means (every baselined query) an update moves by 0.0005 or more, the largest
    drops first: what a reviewer of the new baseline wants to see before accepting it."""
    moves = []
    for name, queries in after.configurations.items():
        old = before.configurations.get(name)
        if not old:
            continue
        for metric in metrics:
            was, now = _mean(old.values(), metric), _mean(queries.values(), metric)
            if was is not None and now is not None and abs(now - was) >= 0.0005:
                moves.append(MeanMove(name, metric, was, now))
    return sorted(moves, key=lambda m: (m.after - m.before, m.configuration, m.metric))


def gone_configurations(
    previous: Baseline, results: Results, facts: RunFacts, keep_absent: bool
) -> dict[str, int]:
    """The previous baseline's configurations that this run did not collect (the fixture's
    params no longer have them: removed, or renamed), with their query counts: the gate
    fails on each of them, so an update drops them. None is gone when the run's collected
    configurations are unknown, or when ``keep_absent`` (retrieval_gate_configurations
    is set: the gate compares only those, and a configuration another run evaluates, a
    CI job per configuration, keeps its entries)."""
    if keep_absent or not facts.collected:
        return {}
    have = facts.collected | set(results.configurations())
    return {n: len(q) for n, q in sorted(previous.configurations.items()) if n not in have}


def _kept_from(
    previous: Baseline, facts: RunFacts, gone: Collection[str] = ()
) -> tuple[dict[str, dict[str, QueryRecord]], dict[str, int], list[str]]:
    """The previous baseline's queries that are not gone, their counts, and the dropped
    (``gone``: configurations dropped whole, not listed query by query)."""
    configurations: dict[str, dict[str, QueryRecord]] = {}
    kept: dict[str, int] = {}
    dropped: list[str] = []
    for name, queries in previous.configurations.items():
        if name in gone:
            continue
        for qid, query in queries.items():
            if facts.is_gone(query):
                dropped.append(f"{name}/{qid}")
                continue
            configurations.setdefault(name, {})[qid] = query
            kept[name] = kept.get(name, 0) + 1
    return configurations, kept, sorted(dropped)


@with_paused_gc
def merge_update(
    previous: Baseline | None,
    results: Results,
    settings: Settings,
    facts: RunFacts,
    provenance: Mapping[str, object],
    keep_absent: bool = False,
) -> UpdateOutcome:
    """The new baseline: this run's queries replace theirs, the rest is kept or dropped.

    A previous query is dropped when its file was collected and no longer holds
    it, or when its file no longer exists; otherwise it is kept (a ``-k`` update or
    a run over some files replaces only what it ran). Skipped and errored items
    are not written; such a query keeps its previous entry. A previous configuration
    this run did not collect is dropped (see :func:`gone_configurations`).
    """
    current = settings.as_dict()
    reset = settings_differences(previous.settings, current) if previous is not None else []
    configurations: dict[str, dict[str, QueryRecord]] = {}
    kept: dict[str, int] = {}
    dropped: list[str] = []
    retrievers: dict[str, Metadata] = {}
    gone: dict[str, int] = {}
    if previous is not None and not reset:
        gone = gone_configurations(previous, results, facts, keep_absent)
        configurations, kept, dropped = _kept_from(previous, facts, gone)
        retrievers = dict(previous.retrievers)
    updated: dict[str, int] = {}
    errored: list[str] = []
    for name in results.configurations():
        block = configurations.setdefault(name, {})
        for record in results.view(name).evaluated:
            if record.outcome == "error":
                # A flaky retriever must not bake zeros into the baseline: keep what was there.
                errored.append(f"{name}/{record.id}")
                continue
            if record.id in block:
                kept[name] -= 1
            block[record.id] = record
            updated[name] = updated.get(name, 0) + 1
    retrievers.update({n: dict(m) for n, m in facts.retrievers.items() if n in updated})
    baseline = Baseline(
        settings=current,
        configurations={n: dict(sorted(q.items())) for n, q in configurations.items() if q},
        provenance=dict(provenance),
        retrievers={n: m for n, m in sorted(retrievers.items()) if n in configurations},
    )
    kept = {k: v for k, v in kept.items() if v}
    outcome = UpdateOutcome(baseline, updated, kept, dropped, reset, errored, gone=gone)
    if facts.replayed_trec:
        outcome.gone_from = "the TREC runs replayed"
    if previous is not None:
        _compare_means(outcome, previous, settings)
    if previous is not None and reset:
        run = set(baseline.configurations)
        outcome.replaced_away = {
            n: len(q) for n, q in sorted(previous.configurations.items()) if n not in run
        }
    return outcome


def _compare_means(outcome: UpdateOutcome, previous: Baseline, settings: Settings) -> None:
    """The means the update moves, on the metrics both baselines have; after a reset, the
    metrics it adds and drops, and, when the conventions differ, those instead of moves
    (numbers under another gain or threshold are not comparable)."""
    held = baseline_metrics(previous)
    if outcome.reset:
        outcome.metrics_added = [m for m in settings.metric_names if m not in held]
        outcome.metrics_dropped = [m for m in held if m not in settings.metric_names]
        stored, current = previous.settings, settings.as_dict()
        outcome.incomparable = [
            key
            for key in sorted(set(stored) | set(current))
            if key != "metrics" and stored.get(key) != current.get(key)
        ]
    if not outcome.incomparable:
        shared = [m for m in settings.metric_names if m in held]
        outcome.moved = mean_moves(previous, outcome.baseline, shared)
