"""The regression gate: compare this run with the baseline, row by row.

Pure. :func:`run_gate` compares, on the queries both have, each gated
configuration's ``all`` row and (scope ``category``) every category row, for
each gated metric; a row is breached when ``delta < -allowed``. One-sided: an
improvement never fails, one beyond the tolerance is reported with the hint to
update the baseline. Its text is :mod:`pytest_retrieval.report.gate_text`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .baseline import (
    Baseline,
    RunFacts,
    baseline_metrics,
    conventions_differences,
    settings_differences,
    update_hint,
)
from .bulk import with_paused_gc
from .comparisons import apply_holm, holm_tests, p_fields, paired, twins_of_all
from .io.common import counted, did_you_mean, some_ids
from .latency import LatencyBreach, check_budgets
from .metrics import parse_metric
from .model import ALL, MetricColumns, QueryRecord, Results, metric_columns
from .query_changes import QueryCounts, count_changes
from .retriever_metadata import MetadataChange, differences
from .settings import GateMode, GateSettings, Settings, StatsSettings
from .stats import (
    Draws,
    TestMethod,
    mean,
    queries_key,
    sampled_floor,
    smallest_significant_n,
    use_resampling,
)

Verdict = Literal["passed", "failed", "no-baseline", "refused", "skipped"]
Pair = tuple[QueryRecord, QueryRecord]  # (baseline, this run) of one query
NOTHING_COLLECTED = (
    "no golden query was collected in this run (the paths given hold no golden file): "
    "nothing compared"
)


@dataclass(frozen=True)
class RankMove:
    """A judged result that stayed in the top k at another rank (``billing-faq 1→4``)."""

    id: str
    before: int  # rank in the baseline, from 1
    after: int  # rank in this run
    grade: int

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "from": self.before, "to": self.after, "grade": self.grade}


@dataclass
class WorstQuery:
    """A query that dropped on a breached row: its judged results that moved, then what
    left and what entered its top k."""

    id: str
    baseline: float
    current: float
    lost: list[str]
    gained: list[str]
    grades: dict[str, int]
    moved: list[RankMove] = field(default_factory=list)
    error: str | None = None
    k: int | None = None  # the top k compared (the metric's cut, else the kept depth)
    category: str = ""
    # every gated metric the query dropped on, this row's too: metric -> (baseline, current)
    dropped_on: dict[str, tuple[float, float]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        out = dict(self.__dict__)
        out["moved"] = [m.as_dict() for m in self.moved]
        out["dropped_on"] = {m: list(values) for m, values in self.dropped_on.items()}
        if self.error is None:
            del out["error"]
        return out


@dataclass
class GateRow:
    """One compared (configuration, category, metric)."""

    configuration: str
    category: str
    metric: str
    n: int
    baseline: float
    current: float
    delta: float
    allowed: float
    breached: bool  # what fails the gate: beyond the tolerance (and significant, in that mode)
    ci: list[float] | None
    p: float
    method: TestMethod
    worst_queries: list[WorstQuery] = field(default_factory=list)
    p_holm: float = 1.0
    significant: bool = False
    beyond: bool = False  # delta < -allowed, whatever the test says

    @property
    def improved(self) -> bool:
        return not self.breached and self.delta > self.allowed + 1e-12

    def as_dict(self) -> dict[str, object]:
        out = {**self.__dict__, **p_fields(self.p, self.p_holm)}
        out["worst_queries"] = [q.as_dict() for q in self.worst_queries]
        return out


@dataclass(frozen=True)
class Recategorized:
    """A query whose golden file moved it to another category since the baseline: its
    rows compare it in the new one on both sides."""

    id: str
    before: str
    after: str

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "before": self.before, "after": self.after}

    def text(self) -> str:
        return f"{self.id} ({self.before} -> {self.after})"


@dataclass(frozen=True)
class Renamed:
    """A baseline query gone from the golden set whose text and judgments a new id has:
    an id renamed in the golden file (listed as such, not as one removed and one added)."""

    before: str
    after: str

    def as_dict(self) -> dict[str, str]:
        return {"before": self.before, "after": self.after}

    def text(self) -> str:
        return f"{self.before} -> {self.after}"


@dataclass
class GateResult:
    verdict: Verdict
    baseline: str
    rows: list[GateRow] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # baselined queries skipped in this run
    unanswered: list[str] = field(default_factory=list)  # changed ones that errored this run
    recategorized: list[Recategorized] = field(default_factory=list)
    renamed: list[Renamed] = field(default_factory=list)  # also in removed and added
    # an id of added -> the configurations it is new in, when not every one compared
    added_only_in: dict[str, list[str]] = field(default_factory=dict)
    partial: bool = False  # compared part of the baseline's queries (-k, -m, the paths given)
    messages: list[str] = field(default_factory=list)
    mode: GateMode = "absolute"
    min_significant_n: int | None = None  # fewer queries: never significant after Holm
    sampled_floor: float | None = None  # a sampled p this low is never significant after Holm
    counts: dict[str, QueryCounts] = field(default_factory=dict)  # per compared configuration
    retriever_changes: list[MetadataChange] = field(default_factory=list)
    latency: list[LatencyBreach] = field(default_factory=list)  # retrieval_latency_budget
    budgets_only: bool = False  # no baseline: only the latency budgets were held
    all_errored: list[str] = field(default_factory=list)  # configurations: every query errored
    # the command that rewrites the baseline, for hints; None: the plugin's for this path;
    # "": none (compare's baseline is a report)
    update: str | None = None
    update_part: str | None = None  # a partial run's update with its -k/-m: what it compared
    other: str = ""  # compare: the report compared with the baseline one (B.json), by name

    def update_command(self) -> str:
        """The command that rewrites the baseline ("" when there is none to give)."""
        return update_hint(self.baseline) if self.update is None else self.update

    @property
    def breached(self) -> list[GateRow]:
        return [r for r in self.rows if r.breached]

    def listed(self, rows: Sequence[GateRow]) -> list[GateRow]:
        """``rows`` as the verdict lists them: a category holding every query of its
        configuration (the only one: every TREC or BEIR import's ``uncategorized``) is its
        ``all`` row again, the same test on the same queries (:func:`twins_of_all`), so
        that row is left out and the ``all`` row names it: ``all (= uncategorized)``."""
        shown = {id(r) for r in rows}
        twins = {
            id(whole): self.rows[i]
            for i, whole in twins_of_all(self.rows).items()
            if id(whole) in shown
        }
        hidden = {id(row) for row in twins.values()}
        return [
            dataclasses.replace(r, category=f"{ALL} (= {twins[id(r)].category})")
            if id(r) in twins
            else r
            for r in rows
            if id(r) not in hidden
        ]

    @property
    def not_significant(self) -> list[GateRow]:
        """Rows that dropped beyond the tolerance but passed: not significant."""
        return [r for r in self.rows if r.beyond and not r.breached]

    @property
    def too_small(self) -> list[GateRow]:
        """Rows with too few queries to ever be significant (significant mode)."""
        limit = self.min_significant_n
        return [r for r in self.rows if limit is not None and r.n < limit]

    @property
    def improved(self) -> list[GateRow]:
        return [r for r in self.rows if r.improved]

    @property
    def failed(self) -> bool:
        return self.verdict in ("failed", "refused")

    @property
    def blocking(self) -> bool:
        """Whether a failure fails the run (not under ``retrieval_gate_mode = report``)."""
        return self.mode != "report"

    def as_dict(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "baseline": self.baseline,
            "rows": [r.as_dict() for r in self.rows],
            "added": self.added,
            "removed": self.removed,
            "changed": self.changed,
            "skipped": self.skipped,
            "recategorized": [r.as_dict() for r in self.recategorized],
            "renamed": [r.as_dict() for r in self.renamed],
            "messages": self.messages,
            "mode": self.mode,
            "blocking": self.blocking,
            "counts": {name: c.as_dict() for name, c in self.counts.items()},
            "retriever_changes": [c.as_dict() for c in self.retriever_changes],
            "latency_budget": [b.as_dict() for b in self.latency],
            "budgets_only": self.budgets_only,
        }


def hold_latency_budgets(
    result: GateResult, results: Results, gate: GateSettings, collected: frozenset[str] | None
) -> list[str]:
    """``retrieval_latency_budget``: every budget exceeded fails the gate, baseline or none,
    and so does a budget for a configuration the run does not have (a typo would leave it
    unchecked; one deselected by ``-k`` is fine). Returns notes for configurations with a
    budget but no measured latency."""
    limits = {name: gate.latency_limits(name) for name in results.configurations()}
    result.latency, notes = check_budgets(results, limits)
    known = set(results.configurations()) | set(collected or ())
    unknown = sorted({x.configuration for x in gate.latency if x.configuration} - known)
    if unknown:
        hint = did_you_mean(unknown[0], sorted(known))
        result.messages.insert(
            0,
            f"retrieval_latency_budget names {', '.join(repr(u) for u in unknown)}, which this "
            f"run does not have (configurations: {', '.join(sorted(known)) or 'none'}){hint}: "
            "fix the name, or the budget is never checked",
        )
    if (result.latency or unknown) and result.verdict in ("passed", "skipped", "no-baseline"):
        result.budgets_only = result.verdict == "no-baseline"
        if result.budgets_only:  # the verdict line names the missing baseline: once is enough
            missing = no_baseline_message(result.baseline, result.update)
            result.messages = [
                BUDGETS_ONLY_HINT.format(result.update_command()) if m == missing else m
                for m in result.messages
            ]
        result.verdict = "failed"
    return notes


BUDGETS_ONLY_HINT = "to gate the metrics too, run `{}` to create a baseline (and commit it)"


def no_baseline_message(shown: str, update: str | None = None, near: str = "") -> str:
    """What the gate says when there is no baseline at ``shown`` (``update``: the command
    that writes it, when not the plain one; ``near``: a file beside it with a close name,
    as " (did you mean 'x'?)")."""
    command = update_hint(shown) if update is None else update
    if near:  # a typo in a CI job's path would otherwise gate nothing, every run
        return f"no baseline at {shown}{near}: give that path, or run `{command}` to create one"
    return f"no baseline at {shown}: run `{command}` to create one (and commit it)"


# --------------------------------------------------------------------------- step 1: comparable?


def _run(update: str, purpose: str) -> str:
    """``; run `COMMAND` PURPOSE``, or nothing when there is no command to give."""
    return f"; run `{update}` {purpose}" if update else ""


@dataclass(frozen=True)
class MetricSets:
    """The metrics this run and the baseline share (gated), and those only one has."""

    shared: list[str]  # in this run's order
    new: list[str]  # this run's, not in the baseline: not gated until it is updated
    gone: list[str]  # the baseline's, not in this run's retrieval_metrics: not gated

    @classmethod
    def of(cls, baseline: Baseline, settings: Settings) -> MetricSets:
        stored, current = baseline_metrics(baseline), settings.metric_names
        return cls(
            [m for m in current if m in stored],
            [m for m in current if m not in stored],
            [m for m in stored if m not in current],
        )

    def notes(self, update: str, shown: str = "", other: str = "") -> list[str]:
        """What the verdict says of the metrics only one side has; ``other``: the report
        ``compare`` compares with the one ``shown``, both named."""
        if other:
            return self._reports_notes(shown, other)
        notes = []
        if self.new:
            them = "it" if len(self.new) == 1 else "them"
            notes.append(
                f"{_metrics_word(self.new)} {_quoted_names(self.new)} of this run "
                f"{'is' if len(self.new) == 1 else 'are'} not in the baseline: not "
                + (
                    f"gated until the baseline is updated; run `{update}` to add {them}"
                    if update
                    else "compared"
                )
            )
        if self.gone:
            them = "it" if len(self.gone) == 1 else "them"
            notes.append(
                f"the baseline's {_metrics_word(self.gone)} {_quoted_names(self.gone)} "
                f"{'is' if len(self.gone) == 1 else 'are'} not in this run's retrieval_metrics: "
                + (
                    f"not gated (an update drops {them}; put {them} back in retrieval_metrics "
                    f"to gate {them})"
                    if update
                    else "not compared"
                )
            )
        return notes

    def _reports_notes(self, a: str, b: str) -> list[str]:
        """``metric 'map' of b.json is not in a.json: not compared``, each way."""
        return [
            f"{_metrics_word(names)} {_quoted_names(names)} of {one} "
            f"{'is' if len(names) == 1 else 'are'} not in {two}: not compared"
            for names, one, two in ((self.new, b, a), (self.gone, a, b))
            if names
        ]


def _metrics_word(names: Sequence[str]) -> str:
    return "metric" if len(names) == 1 else "metrics"


def _refusal(
    baseline: Baseline, shown: str, settings: Settings, gate: GateSettings, update: str,
    other: str = "",
) -> str | None:  # fmt: skip
    """Why the baseline cannot be compared: another setting than the metrics (those
    only one side has are not gated, see :class:`MetricSets`), no metric in common, or a
    gated metric the baseline lacks; None to compare. ``other``: the report ``compare``
    compares with the one ``shown``, both named."""
    stored, current = baseline.settings, settings.as_dict()
    metrics = MetricSets.of(baseline, settings)
    differences = (
        settings_differences(stored, current, shown, other)
        if other
        else settings_differences(stored, current)
    )
    if metrics.shared and not conventions_differences(stored, current):
        differences = []  # the metrics both have are compared, the others named
    # (refused for another setting, the metrics that differ are named too: the update
    # the refusal asks for changes them as well)
    if differences:
        return (
            (f"{shown} and {other} were" if other else f"the baseline {shown} was")
            + " made with other settings: "
            + "; ".join(differences)
            + ". Numbers made under other settings are not comparable"
            + _run(
                update, "to rewrite the baseline with the current settings, and review that change"
            )
        )
    lacking = [m for m in gate.metrics if m in metrics.new]
    if not lacking:
        return None
    held, them = ", ".join(baseline_metrics(baseline)), "it" if len(lacking) == 1 else "them"
    return (
        f"retrieval_gate_metrics names {_quoted_names(lacking)}, which the baseline {shown} "
        f"does not hold (its metrics: {held}): nothing to compare {them} with"
        f"{_run(update, 'to add ' + them)}{', or' if update else ';'} take {them} out of "
        f"retrieval_gate_metrics until the baseline has {them}"
    )


# --------------------------------------------------------------------------- step 2: compare it?

# absent: a configuration of the baseline's that this run does not have (one message names
# them all, see _unmatched)
Status = Literal["compare", "skip", "fail", "absent"]


def _configuration_status(
    name: str, baseline: Baseline, records: Sequence[QueryRecord], facts: RunFacts,
    named: bool, update: str,
) -> tuple[Status, str]:  # fmt: skip
    """Whether a gated configuration is compared, skipped (with why) or fails (with why)."""
    if records and not any(r.evaluated for r in records):
        # Every item was skipped (a missing extra, a skip mark): nothing crashed.
        reason = next((r.skip_reason for r in records if r.skip_reason), None)
        why = f" ({reason})" if reason else ""
        return "skip", f"gated configuration '{name}' was skipped in this run{why}: not compared"
    if not records and facts.collected is not None and name not in facts.collected:
        have = ", ".join(sorted(facts.collected)) or "none"
        if named:
            return "fail", (
                f"retrieval_gate_configurations names '{name}', which this run does not have "
                f"(configurations: {have}){did_you_mean(name, sorted(facts.collected))}"
            )
        return "absent", ""
    if not records and facts.selected is not None and name not in facts.selected:
        return "skip", (
            f"gated configuration '{name}' was deselected in this run ({facts.selection}): "
            "not compared"
        )
    if name not in baseline.configurations:
        return "fail", (
            f"gated configuration '{name}' is not in the baseline"
            f"{_run(update, 'to add it')}{', or' if update else ':'} fix "
            "retrieval_gate_configurations"
        )
    return "compare", ""


def unknown_configuration_names(gate: GateSettings, known: Collection[str]) -> str | None:
    """The settings that name a configuration none of the collected items has (a typo,
    which the gate would otherwise find only after every query ran), with the closest
    name; None when each is known. ``known``: the configurations collected, before any
    selection (a configuration deselected by ``-k`` is known). ``retrieval_reference``
    is not here: one the run lacks is a warning (the first configuration stands in)."""
    named = [("retrieval_gate_configurations", name) for name in gate.configurations]
    budgets = [x.configuration for x in gate.latency if x.configuration]
    named += [("retrieval_latency_budget", name) for name in budgets]
    have = sorted(known)
    found = [
        f"{key} names '{name}', which this run does not have{did_you_mean(name, have)}"
        for key, name in dict.fromkeys(named)
        if name not in known
    ]
    if not found:
        return None
    return f"{'; '.join(found)} (configurations: {', '.join(have)}): fix the name"


def _quoted_names(names: Sequence[str], limit: int = 10) -> str:
    """``'a'``, ``'a' and 'b'``, ``'a', 'b' and 'c'`` (past ``limit``: ``and N more``)."""
    shown = [f"'{n}'" for n in names[:limit]]
    if len(names) > limit:
        return ", ".join(shown) + f" and {len(names) - limit} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _configurations_word(names: Sequence[str]) -> str:
    return "configuration" if len(names) == 1 else "configurations"


def _none_of(names: Sequence[str], whose: str, parenthesis: str) -> str:
    """ "the replayed configuration (x) is not", or "none of the replayed configurations
    (x, y) is", before "in the baseline"."""
    if len(names) == 1:
        return f"{whose} configuration ({parenthesis}) is not"
    return f"none of {whose} configurations ({parenthesis}) is"


def _unmatched(
    baseline: Baseline, results: Results, facts: RunFacts, update: str, absent: Sequence[str]
) -> tuple[str | None, str | None]:
    """With retrieval_gate_configurations unset, the gate compares the baseline's
    configurations: (why the gate fails for those this run does not have, a note on this
    run's that the baseline does not hold), each one message naming them all; or one
    message for both when the two share none (another system's run replayed)."""
    new = [name for name in results.configurations() if name not in baseline.configurations]
    have = sorted(facts.collected if facts.collected is not None else results.configurations())
    if absent and new and not any(name in baseline.configurations for name in have):
        return _nothing_shared(baseline, have, facts, update), None
    failing = note = None
    if absent:
        word, them = _configurations_word(absent), "it" if len(absent) == 1 else "them"
        failing = (
            f"the baseline holds {word} {_quoted_names(absent)}, which this run does not have "
            f"(configurations: {', '.join(have) or 'none'}): run {them} too, name the ones to "
            "gate in retrieval_gate_configurations, or "
            + (
                f"drop {them} from the baseline (`{update}` does)"
                if update
                else f"drop {them} from the baseline"
            )
        )
    if new:
        verb = "is" if len(new) == 1 else "are"
        note = (
            f"{_configurations_word(new)} {_quoted_names(new)} {verb} not in the baseline: not "
            f"compared{_run(update, 'to add ' + ('it' if len(new) == 1 else 'them'))}"
        )
    return failing, note


def _nothing_shared(baseline: Baseline, have: Sequence[str], facts: RunFacts, update: str) -> str:
    """The run and the baseline have no configuration in common: nothing was compared."""
    held = ", ".join(sorted(baseline.configurations))
    if facts.replayed:
        files = " ".join(facts.replayed)
        evaluate = f", or score it without a gate: `pytest-retrieval evaluate {files}`"
        own = update_hint("golden/their-baseline.json", facts.replayed)
        return (
            f"{_none_of(have, 'the replayed', ', '.join(have) + ', from ' + files)} in the "
            f"baseline, which holds {held}: nothing compared. Give the replayed run a "
            f"baseline of its own, written once with `{own}`"
            f"{evaluate if facts.replayed_trec else ''}"
        )
    rewrite = f"rewrite the baseline (`{update}`)" if update else "rewrite the baseline"
    ours = _none_of(have, "this run's", ", ".join(have))
    return (
        f"{ours} in the baseline, which holds {held}: nothing compared. Run the baseline's "
        f"configurations too, or {rewrite}"
    )


# --------------------------------------------------------------------------- step 3: pair queries


@dataclass
class _Pairing:
    pairs: list[Pair]
    added: set[str]
    changed: set[str]
    removed: set[str]
    skipped: set[str] = field(default_factory=set)  # in the baseline, skipped in this run
    unanswered: set[str] = field(default_factory=set)  # changed, and errored in this run
    recategorized: set[Recategorized] = field(default_factory=set)  # paired, other category
    partial: bool = False  # the run left out some of the baseline's queries (-k, -m, paths)
    renamed: set[Renamed] = field(default_factory=set)  # removed ids whose query came back
    added_in: dict[str, set[str]] = field(default_factory=dict)  # id -> configurations
    paired: set[str] = field(default_factory=set)  # the configurations paired into this one

    def update(self, other: _Pairing, name: str) -> None:
        """Add configuration ``name``'s pairing to this total."""
        self.paired.add(name)
        for qid in other.added:
            self.added_in.setdefault(qid, set()).add(name)
        self.added |= other.added
        self.changed |= other.changed
        self.removed |= other.removed
        self.skipped |= other.skipped
        self.unanswered |= other.unanswered
        self.recategorized |= other.recategorized
        self.renamed |= other.renamed
        self.partial = self.partial or other.partial

    def note(self, result: GateResult) -> None:
        result.added, result.changed = sorted(self.added), sorted(self.changed)
        result.removed, result.skipped = sorted(self.removed), sorted(self.skipped)
        result.unanswered = sorted(self.unanswered)
        result.recategorized = sorted(self.recategorized, key=lambda r: r.id)
        result.renamed = sorted(self.renamed, key=lambda r: r.before)
        result.partial = result.partial or self.partial
        result.added_only_in = {
            qid: sorted(names) for qid, names in self.added_in.items() if names != self.paired
        }


def _pair(
    stored: dict[str, QueryRecord], records: Sequence[QueryRecord], facts: RunFacts
) -> _Pairing:
    """This run's evaluated queries beside the baseline's, when text and judgments match."""
    current = {r.id: r for r in records if r.evaluated}
    pairing = _Pairing([], set(), set(), {q for q, old in stored.items() if facts.is_gone(old)})
    pairing.skipped = {r.id for r in records if not r.evaluated and r.id in stored}
    for qid in sorted(current):
        old = stored.get(qid)
        if old is None:
            pairing.added.add(qid)
        elif old.fingerprint != current[qid].fingerprint:
            pairing.changed.add(qid)
            if current[qid].outcome == "error":  # an update keeps its old entry
                pairing.unanswered.add(qid)
        else:
            pairing.pairs.append((old, current[qid]))
            if old.category != current[qid].category:
                pairing.recategorized.add(Recategorized(qid, old.category, current[qid].category))
    pairing.renamed = _renames(
        {q: stored[q].fingerprint for q in pairing.removed},
        {q: current[q].fingerprint for q in pairing.added},
    )
    return pairing


def _renames(removed: Mapping[str, str], added: Mapping[str, str]) -> set[Renamed]:
    """Removed and added ids (-> fingerprint) that are one query renamed: one removed and
    one added id alone share a fingerprint. A fingerprint left empty (a report written
    before it was kept) or shared by several queries names no rename."""
    before = Counter(fp for fp in removed.values() if fp)
    after = Counter(fp for fp in added.values() if fp)
    old = {fp: q for q, fp in removed.items() if before[fp] == 1}
    return {Renamed(old[fp], q) for q, fp in added.items() if after[fp] == 1 and fp in old}


def _few(ids: set[str], limit: int = 5) -> str:
    more = f" ({len(ids) - limit} more)" if len(ids) > limit else ""
    return some_ids(sorted(ids), limit) + more


def _no_data(name: str, pairing: _Pairing, update: str, facts: RunFacts) -> tuple[Status, str]:
    """A gated configuration with no query to compare: why, and whether the gate fails.

    Only new queries, and none of the baseline's gone: the run was given other golden
    files than the baseline's (a new file run on its own), which is a selection, not a
    fault. Queries changed since the baseline, or the baseline's queries gone from the
    golden set, fail: the set was changed and the baseline not updated. Nothing
    evaluated at all fails as it always did (a crashed worker)."""
    added, changed, removed = pairing.added, pairing.changed, pairing.removed
    if added and not changed and not removed:
        files = sorted({facts.golden_ids[q] for q in added if q in facts.golden_ids})
        these = " ".join([update, *files]) if update else ""  # the update covers its files
        return "skip", (
            f"gated configuration '{name}': none of this run's "
            f"{counted(len(added), 'query', 'queries')} is in the "
            f"baseline (new since it: {_few(added)}): not compared{_run(these, 'to gate them')}"
        )
    if added or changed:
        parts = [f"{len(added)} new since the baseline"] if added else []
        parts += [f"{len(changed)} with other text or judgments there"] if changed else []
        gone = f"; {len(removed)} of the baseline's are gone from the golden set" if removed else ""
        return "fail", (
            f"the gate had no data for configuration '{name}': of this run's queries, "
            f"{' and '.join(parts)}{gone}: the golden set changed (new or edited: "
            f"{_few(added | changed)})"
            f"{_run(update, 'once the change is meant')}"
        )
    return "fail", (
        f"the gate had no data for configuration '{name}': no query of this run is in "
        "the baseline with the same text and judgments (not run? deselected by -k? a "
        "crashed worker?)"
    )


# --------------------------------------------------------------------------- step 4: rows


@dataclass
class _Values:
    """One (configuration, category, metric): the pairs with both values, and those values."""

    category: str
    metric: str
    both: list[Pair]
    ids: list[str]  # the pairs' query ids
    before: list[float]
    after: list[float]

    @functools.cached_property
    def differences(self) -> list[float]:
        """after - before, query by query."""
        return [a - b for a, b in zip(self.after, self.before, strict=True)]


def _values(
    category: str, metric: str, group: Sequence[Pair], olds: MetricColumns, news: MetricColumns
) -> _Values | None:
    """The group's pairs where both have a value of ``metric`` (``olds``, ``news``: the
    group's columns)."""
    before, after, ids = olds.values[metric], news.values[metric], olds.ids
    both = list(group)
    if None in before or None in after:  # a metric without a value on some queries
        pairs = enumerate(zip(before, after, strict=True))
        keep = [i for i, (o, n) in pairs if o is not None and n is not None]
        both, ids = [both[i] for i in keep], [ids[i] for i in keep]
        before, after = [before[i] for i in keep], [after[i] for i in keep]
    if not both:
        return None
    return _Values(category, metric, both, ids, list(map(float, before)), list(map(float, after)))  # type: ignore[arg-type]


def _shared_boots(found: Sequence[_Values], draws: Draws) -> list[list[float] | None]:
    """Bootstrap means of each row's differences, one draw per category for all its rows.

    Rows whose differences are all equal need no draw (their interval is that value).
    """
    boots: list[list[float] | None] = [None] * len(found)
    wanted = [
        i
        for i, v in enumerate(found)
        if use_resampling(len(v.both), draws.resamples) and len(set(v.differences)) > 1
    ]
    by_queries: dict[str, list[int]] = {}
    for i in wanted:
        by_queries.setdefault(queries_key(found[i].ids), []).append(i)
    for key, rows in by_queries.items():
        series = [found[i].differences for i in rows]
        for i, boot in zip(rows, draws.means(key, series), strict=True):
            boots[i] = boot
    return boots


def _row(
    name: str, values: _Values, boot: list[float] | None, gate: GateSettings,
    stats: StatsSettings,
) -> tuple[GateRow, list[Pair]]:  # fmt: skip
    b, a = mean(values.before) or 0.0, mean(values.after) or 0.0
    allowed = gate.tolerance.for_metric(values.metric).allowed(b)
    parts = ("gate", name, values.category, values.metric)
    test = paired(values.after, values.before, stats, *parts, boot=boot)
    beyond = a - b < -allowed - 1e-12
    row = GateRow(
        name, values.category, values.metric, len(values.both), b, a, a - b, allowed, beyond,
        test.ci.as_list(), test.p, test.method, beyond=beyond,
    )  # fmt: skip
    return row, values.both


def _row_values(
    name: str, pairs: list[Pair], gate: GateSettings, olds: MetricColumns, news: MetricColumns
) -> list[tuple[str, _Values]]:
    """Each gated row of one configuration: ``all`` and (scope ``category``) its categories
    (``olds``, ``news``: the pairs' columns)."""
    metrics = list(olds.values)
    groups: dict[str, list[int]] = {}
    if gate.scope == "category":
        for i, category in enumerate(news.categories):
            groups.setdefault(category, []).append(i)
    found = [(name, v) for m in metrics if (v := _values(ALL, m, pairs, olds, news)) is not None]
    for category, at in sorted(groups.items()):
        group, old_columns, new_columns = [pairs[i] for i in at], olds.picked(at), news.picked(at)
        found.extend(
            (name, values)
            for metric in metrics
            if (values := _values(category, metric, group, old_columns, new_columns)) is not None
        )
    return found


def _configuration_values(
    name: str,
    pairs: list[Pair],
    gate: GateSettings,
    columns: tuple[MetricColumns, MetricColumns],
    result: GateResult,
) -> list[tuple[str, _Values]]:
    """:func:`_row_values` of one compared configuration; with none at all (every gated
    metric n/a on every pair: ``retrieval_empty = skip`` and no query with something to
    find) it had no data, and fails the gate, saying so."""
    found = _row_values(name, pairs, gate, *columns)
    if not found:
        result.messages.append(
            f"the gate had no data for configuration '{name}': every gated metric is n/a on "
            f"its {counted(len(pairs), 'query', 'queries')} in the baseline (retrieval_empty "
            "= skip leaves out a query with nothing relevant to find): nothing compared; add "
            "queries with judgments"
        )
        result.verdict = "failed"
    return found


def _rows(
    found: Sequence[tuple[str, _Values]], gate: GateSettings, stats: StatsSettings, draws: Draws
) -> list[tuple[GateRow, list[Pair]]]:
    """The rows with their paired tests; intervals from draws shared across all of them."""
    boots = _shared_boots([v for _, v in found], draws)
    return [_row(name, v, boot, gate, stats) for (name, v), boot in zip(found, boots, strict=True)]


# --------------------------------------------------------------------------- step 5: verdict


def _cut_of(metric: str, depth: int | None) -> int | None:
    k = parse_metric(metric).k
    return k if k is not None else depth


def _worst(
    pairs: Sequence[Pair], metric: str, limit: int, depth: int | None, gated: Sequence[str]
) -> list[WorstQuery]:
    drops = []
    for old, new in pairs:
        before, after = old.metrics.get(metric), new.metrics.get(metric)
        if before is not None and after is not None and after < before:
            drops.append((after - before, old.id, old, new, before, after))
    drops.sort(key=lambda d: (d[0], d[1]))
    k = _cut_of(metric, depth)
    return [
        _worst_query(old, new, (before, after), k, gated)
        for _, _, old, new, before, after in drops[:limit]
    ]


def _worst_query(
    old: QueryRecord,
    new: QueryRecord,
    values: tuple[float, float],
    k: int | None,
    gated: Sequence[str],
) -> WorstQuery:
    """What changed in one query's top k, and every gated metric it dropped on."""
    old_top, new_top = old.retrieved[:k], new.retrieved[:k]
    old_rank = {d: r for r, d in enumerate(old_top, start=1)}
    new_rank = {d: r for r, d in enumerate(new_top, start=1)}
    lost = [d for d in old_top if d not in new_rank]
    gained = [d for d in new_top if d not in old_rank]
    judged = {**old.grades, **new.grades}
    moved = [
        RankMove(d, old_rank[d], new_rank[d], judged[d])
        for d in old_top
        if d in judged and d in new_rank and old_rank[d] != new_rank[d]
    ]
    moved.sort(key=lambda m: (-m.grade, m.before))
    grades = {d: judged[d] for d in (*lost, *gained) if d in judged}
    error = new.error or None
    dropped_on = {
        metric: (was, now)
        for metric in gated
        if (was := old.metrics.get(metric)) is not None
        and (now := new.metrics.get(metric)) is not None
        and now < was
    }
    before, after = values
    return WorstQuery(
        old.id, before, after, lost, gained, grades, moved, error, k, new.category, dropped_on
    )


def _finalise(
    result: GateResult,
    found: list[tuple[GateRow, list[Pair]]],
    gate: GateSettings,
    stats: StatsSettings,
    depth: int | None,
) -> None:
    result.rows = [row for row, _ in found]
    apply_holm(result.rows, stats.alpha)
    result.mode = gate.mode
    if result.rows:  # significant mode: what no row can go under; absolute: why p reads 1
        tests = holm_tests(result.rows)
        result.min_significant_n = smallest_significant_n(tests, stats.alpha, stats.resamples)
        result.sampled_floor = sampled_floor(tests, stats.alpha, stats.resamples)
    gated = tuple(dict.fromkeys(row.metric for row in result.rows))
    for row, pairs in found:
        if gate.mode == "significant":
            row.breached = row.breached and row.significant
        if row.breached:
            row.worst_queries = _worst(pairs, row.metric, gate.diff, depth, gated)
    if result.breached:
        result.verdict = "failed"


def _pair_columns(
    results: Results, name: str, pairs: list[Pair], metrics: Sequence[str]
) -> tuple[MetricColumns, MetricColumns]:
    """The baseline's and this run's columns of the pairs (this run's as the analysis read
    them when the pairs are all its evaluated queries: both are in id order)."""
    olds = metric_columns([old for old, _ in pairs], metrics)
    news = results.view(name).group_columns(metrics)[ALL]
    if len(news.ids) != len(pairs):
        news = metric_columns([new for _, new in pairs], metrics)
    return olds, news


@with_paused_gc
def _gated_pairs(
    name: str, baseline: Baseline, records: Sequence[QueryRecord], facts: RunFacts,
    named: bool, update: str, total: _Pairing,
) -> tuple[Status, str, list[Pair]]:  # fmt: skip
    """A gated configuration's status, its message, and its (baseline, run) pairs when
    it is compared (added to ``total``)."""
    status, message = _configuration_status(name, baseline, records, facts, named, update)
    if status != "compare":
        return status, message, []
    stored = baseline.configurations[name]
    pairing = _pair(stored, records, facts)
    total.update(pairing, name)
    if not pairing.pairs:
        status, message = _no_data(name, pairing, update, facts)
        return status, message, []
    unselected = _unselected(name, stored, records, pairing, facts.selection)
    total.partial = total.partial or bool(unselected)
    return "compare", message or unselected, pairing.pairs


def _unselected(
    name: str,
    stored: Mapping[str, QueryRecord],
    records: Sequence[QueryRecord],
    pairing: _Pairing,
    selection: str,
) -> str:
    """A run of part of the golden set (``-k``, ``-m``, paths, ``--lf``: ``selection``):
    every row, ``all`` too, is the mean over the queries both sides have, which the
    numbers alone do not show."""
    ran = {r.id for r in records}
    left = sum(1 for q in stored if q not in ran and q not in pairing.removed)
    if not left:
        return ""
    both = counted(len(pairing.pairs), "query", "queries")
    return (
        f"{name}: {counted(left, 'query', 'queries')} of the baseline's not in this run "
        f"({selection}): each row, 'all' too, compares only the {both} run on both sides"
    )


def run_gate(
    baseline: Baseline,
    shown: str,
    results: Results,
    settings: Settings,
    gate: GateSettings,
    stats: StatsSettings,
    facts: RunFacts,
    draws: Draws | None = None,
    update: str | None = None,
) -> GateResult:
    """Compare this run with the baseline; see the module docstring.

    Every row also gets a paired test of this run against the baseline's per-query
    values (interval of the difference, sign-flip p, Holm across the gate's rows).
    With ``gate.mode == "significant"`` a row is breached only when the drop exceeds
    the tolerance *and* that test is significant. A gated configuration deselected
    as a whole (``-k bm25``) is not compared; one this run does not have at all (a
    typo) or one that was selected yet sent nothing (a crashed worker) fails.
    ``draws``: the analysis's bootstrap draws, shared. ``update``: the command hints give
    to rewrite the baseline (default: the plugin's; "": none, for ``compare``'s report).
    """
    update = update_hint(shown) if update is None else update
    early = _early_verdict(baseline, shown, results, settings, gate, facts, update)
    if early is not None:
        return early
    result = GateResult(verdict="passed", baseline=shown, update=update, other=facts.report)
    shared = MetricSets.of(baseline, settings)
    metrics = [m for m in (list(gate.metrics) or settings.metric_names) if m in shared.shared]
    gated = _gated(result, baseline, results, gate, facts, update, metrics)
    if not gate.configurations:  # the baseline's configurations were gated
        failing, note = _unmatched(baseline, results, facts, update, gated.absent)
        result.messages[:0] = [failing] if failing else []  # first: why the gate failed
        result.messages += [note] if note else []
    result.messages += shared.notes(update, shown, facts.report)
    gated.total.note(result)
    described = [name for name in result.counts if name in facts.retrievers]
    result.retriever_changes = differences(baseline.retrievers, facts.retrievers, described)
    draws = draws or Draws(stats.seed, stats.resamples)
    _finalise(result, _rows(gated.found, gate, stats, draws), gate, stats, settings.depth)
    if gated.skipped and not result.rows and result.verdict == "passed":
        result.verdict = "skipped"
    return result


def _all_errored_message(name: str, records: Sequence[QueryRecord]) -> str:
    """Why every row of a configuration whose every query errored falls to 0: the errors
    (a fixture that cannot be built, a service down), not what it retrieves."""
    first = (records[0].error or "").strip().splitlines()
    said = f" (the first: {first[0][:120]})" if first else ""
    return (
        f"{name}: every one of its {counted(len(records), 'query', 'queries')} errored in "
        f"this run{said}, so each scores 0 and its rows drop for that reason alone: fix "
        "the error (each item shows it), then compare again"
    )


def _early_verdict(
    baseline: Baseline, shown: str, results: Results, settings: Settings, gate: GateSettings,
    facts: RunFacts, update: str,
) -> GateResult | None:  # fmt: skip
    """A verdict before any comparison: refused (other settings), or skipped (nothing was
    collected); None to compare."""
    refusal = _refusal(baseline, shown, settings, gate, update, facts.report)
    if refusal is not None:
        return GateResult("refused", shown, messages=[refusal], update=update)
    if not results and facts.collected is not None and not facts.collected:
        return GateResult("skipped", shown, messages=[NOTHING_COLLECTED], update=update)
    return None


@dataclass
class _Gated:
    """What the gated configurations came to, before their rows are tested."""

    found: list[tuple[str, _Values]] = field(default_factory=list)
    total: _Pairing = field(default_factory=lambda: _Pairing([], set(), set(), set()))
    absent: list[str] = field(default_factory=list)  # the baseline's, not in this run
    skipped: bool = False  # one was skipped or deselected, with why


def _gated(
    result: GateResult, baseline: Baseline, results: Results, gate: GateSettings,
    facts: RunFacts, update: str, metrics: Sequence[str],
) -> _Gated:  # fmt: skip
    """Each gated configuration paired with the baseline: its counts on ``result``, its
    messages, and the values of its rows; the verdict failed when one fails."""
    gated = _Gated()
    named = bool(gate.configurations)
    for name in list(gate.configurations) or sorted(baseline.configurations):
        records = results.view(name).records
        asked = [r for r in records if r.outcome != "skipped"]
        if asked and all(r.outcome == "error" for r in asked):
            result.all_errored.append(name)
            result.messages.append(_all_errored_message(name, asked))
        status, message, pairs = _gated_pairs(
            name, baseline, records, facts, named, update, gated.total
        )
        if message:
            result.messages.append(message)
        if status == "absent":
            gated.absent.append(name)
        gated.skipped = gated.skipped or status == "skip"
        gated.total.partial |= status == "skip" and not records  # deselected as a whole
        if status in ("fail", "absent"):
            result.verdict = "failed"
        if status != "compare":
            continue
        olds, news = _pair_columns(results, name, pairs, metrics)
        result.counts[name] = count_changes(olds, news)
        gated.found += _configuration_values(name, pairs, gate, (olds, news), result)
    return gated
