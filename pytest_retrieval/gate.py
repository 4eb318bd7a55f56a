"""The regression gate: compare this run with the baseline and explain every breach.

Pure. :func:`run_gate` compares, on the queries both have, each gated
configuration's ``all`` row and (scope ``category``) every category row, for
each gated metric; a row is breached when ``delta < -allowed``. One-sided: an
improvement never fails, one beyond the tolerance is reported with the hint to
update the baseline.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from .aggregate import ALL, Results
from .baseline import Baseline, BaselineQuery, is_gone, settings_differences
from .comparisons import StatsSettings, apply_holm, test_row
from .metrics import MetricNameError, parse_metric
from .scoring import QueryRecord
from .settings import Settings, SettingsError, words

VERDICTS = ("passed", "failed", "no-baseline", "refused", "skipped")
SCOPES = ("category", "all")
UPDATE_HINT = "pytest --retrieval-eval --retrieval-update-baseline"


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Tolerance:
    """How far a metric may drop: absolute, or relative to the baseline value (``2%``)."""

    value: float = 0.02
    relative: bool = False

    def allowed(self, baseline: float) -> float:
        return self.value * abs(baseline) if self.relative else self.value

    def __str__(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"{self.value:g}"


@dataclass(frozen=True)
class Tolerances:
    """A default tolerance and per-metric overrides (``0.02 mrr=0.05``)."""

    default: Tolerance = field(default_factory=Tolerance)
    per_metric: Mapping[str, Tolerance] = field(default_factory=dict)

    def for_metric(self, metric: str) -> Tolerance:
        return self.per_metric.get(metric, self.default)

    def __str__(self) -> str:
        parts = [str(self.default)] + [f"{m}={t}" for m, t in sorted(self.per_metric.items())]
        return " ".join(parts)


_NUMBER = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)(%?)$")


def _one_tolerance(text: str, where: str) -> Tolerance:
    match = _NUMBER.match(text.strip())
    if not match:
        raise SettingsError(
            f"{where}: '{text}' is not a tolerance; write an absolute drop (0.02) or a "
            "relative one (2%)"
        )
    value = float(match.group(1))
    if match.group(2):
        return Tolerance(value / 100.0, relative=True)
    return Tolerance(value)


def parse_tolerance(
    raw: str | Sequence[str] | None, where: str = "retrieval_tolerance"
) -> Tolerances:
    """Parse ``0.02``, ``2%``, ``0.02 mrr=0.05 ndcg@10=1%``."""
    if raw is None:
        return Tolerances()
    default = Tolerance()
    per_metric: dict[str, Tolerance] = {}
    for word in words(raw):
        if "=" in word:
            name, _, value = word.partition("=")
            try:
                metric = parse_metric(name).name
            except MetricNameError as exc:
                raise SettingsError(f"{where}: {exc}") from None
            per_metric[metric] = _one_tolerance(value, where)
        else:
            default = _one_tolerance(word, where)
    return Tolerances(default, per_metric)


@dataclass(frozen=True)
class GateSettings:
    tolerance: Tolerances = field(default_factory=Tolerances)
    configurations: tuple[str, ...] = ()  # empty: every configuration in the baseline
    metrics: tuple[str, ...] = ()  # empty: every metric
    scope: str = "category"
    diff: int = 5


def parse_gate_settings(
    tolerance: Any, configurations: Any, metrics: Any, scope: Any, diff: Any
) -> GateSettings:
    """Build :class:`GateSettings` from raw ini/option values."""

    gated_metrics = []
    for name in words(metrics):
        try:
            gated_metrics.append(parse_metric(name).name)
        except MetricNameError as exc:
            raise SettingsError(f"retrieval_gate_metrics: {exc}") from None
    scope_text = str(scope or "category").strip().lower()
    if scope_text not in SCOPES:
        raise SettingsError(
            f"retrieval_gate_scope must be one of {', '.join(SCOPES)}, got '{scope}'"
        )
    try:
        diff_n = int(diff) if diff not in (None, "") else 5
    except (TypeError, ValueError):
        raise SettingsError(f"--retrieval-diff must be an integer >= 0, got '{diff}'") from None
    if diff_n < 0:
        raise SettingsError(f"--retrieval-diff must be an integer >= 0, got {diff_n}")
    return GateSettings(
        tolerance=parse_tolerance(tolerance if tolerance not in (None, "") else None),
        configurations=tuple(words(configurations)),
        metrics=tuple(gated_metrics),
        scope=scope_text,
        diff=diff_n,
    )


# --------------------------------------------------------------------------- result


@dataclass
class GateResult:
    verdict: str
    baseline: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    @property
    def breached(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["breached"]]

    @property
    def improved(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if not r["breached"] and r["delta"] > r["allowed"] + 1e-12]

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "baseline": self.baseline,
            "rows": self.rows,
            "added": self.added,
            "removed": self.removed,
            "changed": self.changed,
            "messages": self.messages,
        }

    @property
    def failed(self) -> bool:
        return self.verdict in ("failed", "refused")


# --------------------------------------------------------------------------- comparison


def _cut_of(metric: str, depth: int | None) -> int | None:
    k = parse_metric(metric).k
    return k if k is not None else depth


def _worst(
    pairs: Sequence[tuple[BaselineQuery, QueryRecord]], metric: str, limit: int, depth: int | None
) -> list[dict[str, Any]]:
    drops = []
    for old, new in pairs:
        before, after = old.metrics.get(metric), new.metrics.get(metric)
        if before is None or after is None or after >= before:
            continue
        drops.append((after - before, old.id, old, new, before, after))
    drops.sort(key=lambda d: (d[0], d[1]))
    k = _cut_of(metric, depth)
    out = []
    for _, qid, old, new, before, after in drops[:limit]:
        old_top = old.retrieved[:k] if k is not None else old.retrieved
        new_top = new.retrieved[:k] if k is not None else new.retrieved
        old_set, new_set = set(old_top), set(new_top)
        lost = [d for d in old_top if d not in new_set]
        gained = [d for d in new_top if d not in old_set]
        grades = {d: old.grades[d] for d in lost if d in old.grades}
        grades.update({d: new.grades[d] for d in gained if d in new.grades})
        entry: dict[str, Any] = {
            "id": qid,
            "baseline": before,
            "current": after,
            "lost": lost,
            "gained": gained,
            "grades": grades,
        }
        if new.error:
            entry["error"] = new.error
        out.append(entry)
    return out


def run_gate(
    baseline: Baseline,
    shown: str,
    results: Results,
    settings: Settings,
    gate: GateSettings,
    golden_ids: Mapping[str, str],
    collected_files: Iterable[str],
    existing_files: Iterable[str],
    stats: StatsSettings | None = None,
    selected_configurations: set[str] | None = None,
    collected_configurations: set[str] | None = None,
) -> GateResult:
    """Compare this run with the baseline; see the module docstring.

    Every row also gets a paired test of this run against the baseline's
    per-query values (interval of the difference, sign-flip p, Holm across the
    gate's rows). With ``stats.gate_mode == "significant"`` a row is breached
    only when the drop exceeds the tolerance *and* that test is significant.

    ``selected_configurations`` and ``collected_configurations``: the configurations
    that had items after and before selection. A gated configuration deselected as
    a whole (``-k bm25``) is not compared; one this run does not have at all (a
    typo, a renamed parameter) or one that was selected yet sent nothing (a crashed
    worker) fails the gate.
    """
    stats = stats or StatsSettings()
    result = GateResult(verdict="passed", baseline=shown)
    differences = settings_differences(baseline.settings, settings.as_dict())
    if differences:
        result.verdict = "refused"
        result.messages.append(
            "the baseline was made with other settings: "
            + "; ".join(differences)
            + f". Numbers made under other settings are not comparable: run `{UPDATE_HINT}` "
            "to rewrite the baseline with the current settings, and review that change"
        )
        return result
    metrics = list(gate.metrics) or settings.metric_names
    unknown = [m for m in metrics if m not in settings.metric_names]
    if unknown:
        result.verdict = "refused"
        result.messages.append(
            f"retrieval_gate_metrics names {', '.join(unknown)}, which this run does not "
            f"compute (retrieval_metrics: {' '.join(settings.metric_names)})"
        )
        return result
    configurations = list(gate.configurations) or sorted(baseline.configurations)
    collected = set(collected_files)
    existing = set(existing_files)
    added: set[str] = set()
    removed: set[str] = set()
    changed: set[str] = set()
    skipped: list[str] = []
    for name in configurations:
        stored = baseline.configurations.get(name)
        records = results.records(name)
        current = {r.id: r for r in records if r.evaluated}
        if records and not current:
            # Every item of this configuration was skipped (a missing extra, a skip
            # mark): nothing to compare, and nothing crashed.
            reason = next((v for r in records for v in r.violations if v), "")
            skipped.append(name)
            result.messages.append(
                f"gated configuration '{name}' was skipped in this run"
                + (f" ({reason})" if reason else "")
                + ": not compared"
            )
            continue
        if (
            collected_configurations is not None
            and not records
            and name not in collected_configurations
        ):
            result.verdict = "failed"
            result.messages.append(
                f"retrieval_gate_configurations names '{name}', which this run does not have "
                f"(configurations: {', '.join(sorted(collected_configurations)) or 'none'})"
            )
            continue
        if (
            selected_configurations is not None
            and not records
            and name not in selected_configurations
        ):
            skipped.append(name)
            result.messages.append(
                f"gated configuration '{name}' was deselected in this run (-k, -m or the "
                "paths given): not compared"
            )
            continue
        if stored is None:
            result.verdict = "failed"
            result.messages.append(
                f"gated configuration '{name}' is not in the baseline; run `{UPDATE_HINT}` to "
                "add it, or fix retrieval_gate_configurations"
            )
            continue
        removed.update(
            qid for qid, query in stored.items() if is_gone(query, golden_ids, collected, existing)
        )
        added.update(qid for qid in current if qid not in stored)
        pairs: list[tuple[BaselineQuery, QueryRecord]] = []
        for qid in sorted(current):
            old = stored.get(qid)
            if old is None:
                continue
            if old.fingerprint != current[qid].fingerprint:
                changed.add(qid)
                continue
            pairs.append((old, current[qid]))
        if not pairs:
            result.verdict = "failed"
            result.messages.append(
                f"the gate had no data for configuration '{name}': no query of this run is in "
                "the baseline with the same text and judgments (not run? deselected by -k? a "
                "crashed worker?)"
            )
            continue
        groups: dict[str, list[tuple[BaselineQuery, QueryRecord]]] = {ALL: pairs}
        if gate.scope == "category":
            for old, new in pairs:
                groups.setdefault(new.category, []).append((old, new))
        for category in [ALL, *sorted(c for c in groups if c != ALL)]:
            group = groups[category]
            for metric in metrics:
                both: list[tuple[float, float, BaselineQuery, QueryRecord]] = []
                for o, n in group:
                    b, a = o.metrics.get(metric), n.metrics.get(metric)
                    if b is not None and a is not None:
                        both.append((b, a, o, n))
                if not both:
                    continue
                before = math.fsum(b for b, _, _, _ in both) / len(both)
                after = math.fsum(a for _, a, _, _ in both) / len(both)
                delta = after - before
                allowed = gate.tolerance.for_metric(metric).allowed(before)
                row: dict[str, Any] = {
                    "configuration": name,
                    "category": category,
                    "metric": metric,
                    "n": len(both),
                    "baseline": before,
                    "current": after,
                    "delta": delta,
                    "allowed": allowed,
                    "breached": delta < -allowed - 1e-12,
                    "worst_queries": [],
                }
                test = test_row(
                    [a for _, a, _, _ in both],
                    [b for b, _, _, _ in both],
                    stats,
                    "gate",
                    name,
                    category,
                    metric,
                )
                row["ci"], row["p"], row["method"] = test["ci"], test["p"], test["method"]
                row["_pairs"] = [(o, n) for _, _, o, n in both]
                result.rows.append(row)
    apply_holm(result.rows, stats.alpha)
    for row in result.rows:
        pairs = row.pop("_pairs")
        if stats.gate_mode == "significant":
            row["breached"] = row["breached"] and row["significant"]
        if row["breached"]:
            row["worst_queries"] = _worst(pairs, row["metric"], gate.diff, settings.depth)
    result.added = sorted(added)
    result.removed = sorted(removed)
    result.changed = sorted(changed)
    if result.breached:
        result.verdict = "failed"
    elif skipped and not result.rows and result.verdict == "passed":
        result.verdict = "skipped"
    return result


# --------------------------------------------------------------------------- text


def _num(value: float) -> str:
    return f"{value:.3f}"


def _ids(ids: Sequence[str], grades: Mapping[str, int]) -> str:
    if not ids:
        return "-"
    return ", ".join(f"{d} ({grades.get(d, '-')})" for d in ids)


def headline(result: GateResult, limit: int = 3) -> str:
    """One short line for CI's first glance (JUnit's message, pytest's short summary).

    The worst breaches first, each with its worst queries; the messages otherwise.
    """
    text = f"retrieval gate: {result.verdict.upper()}"
    breached = sorted(result.breached, key=lambda r: (r["delta"] + r["allowed"], r["category"]))
    if breached:
        parts = []
        for r in breached[:limit]:
            worst = ", ".join(q["id"] for q in r["worst_queries"][:3])
            parts.append(
                f"{r['configuration']} / {r['category']} / {r['metric']} "
                f"{r['baseline']:.3f} -> {r['current']:.3f} ({r['delta']:+.3f}, allowed "
                f"{r['allowed']:.3f})" + (f", worst: {worst}" if worst else "")
            )
        more = len(breached) - limit
        text += ": " + "; ".join(parts) + (f"; and {more} more breached rows" if more > 0 else "")
    elif result.messages:
        text += ": " + result.messages[0]
    return text


def explain(result: GateResult, tolerance: Tolerances | None = None) -> str:
    """The gate's verdict as text: breaches, worst queries, comparability notes."""
    head = f"retrieval gate: {result.verdict.upper()}"
    if tolerance is not None and result.verdict in ("passed", "failed"):
        head += f" (baseline {result.baseline}, tolerance {tolerance})"
    lines = [head]
    lines += [f"  {m}" for m in result.messages]
    breached = result.breached
    if breached:
        table = [
            [
                r["configuration"],
                r["category"],
                r["metric"],
                r["n"],
                _num(r["baseline"]),
                _num(r["current"]),
                f"{r['delta']:+.3f}",
                f"[{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]",
                f"{r['p_holm']:.3g}",
                _num(r["allowed"]),
            ]
            for r in breached
        ]
        lines.append("")
        lines.append(
            tabulate(
                table,
                headers=[
                    "configuration",
                    "category",
                    "metric",
                    "n",
                    "baseline",
                    "current",
                    "delta",
                    "95% interval",
                    "p (Holm)",
                    "allowed",
                ],
                disable_numparse=True,
            )
        )
        for r in breached:
            if not r["worst_queries"]:
                continue
            lines.append("")
            lines.append(
                f"queries that dropped most on {r['configuration']} / {r['category']} / "
                f"{r['metric']} (id: baseline -> current; lost / gained in the top k, grade):"
            )
            for q in r["worst_queries"]:
                lines.append(
                    f"  {q['id']}: {_num(q['baseline'])} -> {_num(q['current'])}; "
                    f"lost {_ids(q['lost'], q['grades'])}; gained {_ids(q['gained'], q['grades'])}"
                    + (f"; error: {q['error']}" if q.get("error") else "")
                )
    improved = result.improved
    if improved:
        lines.append("")
        lines.append("improved beyond the tolerance (run `" + UPDATE_HINT + "` to record it):")
        for r in improved:
            lines.append(
                f"  {r['configuration']} / {r['category']} / {r['metric']}: "
                f"{_num(r['baseline'])} -> {_num(r['current'])} ({r['delta']:+.3f})"
            )
    notes = [
        ("added since the baseline (not compared)", result.added),
        ("no longer in the golden set", result.removed),
        (
            "text or judgments changed since the baseline (left out of the comparison; "
            f"re-run `{UPDATE_HINT}` to re-baseline them)",
            result.changed,
        ),
    ]
    for title, ids in notes:
        if ids:
            shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
            lines.append(f"{title}: {shown}")
    return "\n".join(lines)
