"""Retriever latency: per configuration p50, p95 and max, and the budgets the gate holds.

Pure. Latency is the retriever's time per query as the plugin measured it around
the call (for a batch call, the call's time divided over its queries; for a
replayed recording, the recorded time). It is machine-dependent, so it is never
compared with the baseline: ``retrieval_latency_budget`` holds it to absolute
limits instead. Percentiles interpolate linearly between ranks (numpy's default).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .model import QueryRecord, Results
from .runner import latency_is_real
from .settings import LatencyLimit


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of sorted values, linearly interpolated."""
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class LatencySummary:
    """One configuration's latencies, in milliseconds."""

    n: int
    p50: float
    p90: float
    p95: float
    p99: float
    max: float
    mean: float
    shared: int  # latencies that are a batch call's share

    @classmethod
    def of(cls, records: Sequence[QueryRecord]) -> LatencySummary | None:
        """The summary of the records whose calls answered or ran out of time (skipped
        ones were not called; a call that failed at once would look fast)."""
        timed = [
            r
            for r in records
            if r.latency_ms is not None and r.outcome != "skipped" and latency_is_real(r.error)
        ]
        if not timed:
            return None
        values = sorted(r.latency_ms for r in timed if r.latency_ms is not None)
        return cls(
            n=len(values),
            p50=percentile(values, 50),
            p90=percentile(values, 90),
            p95=percentile(values, 95),
            p99=percentile(values, 99),
            max=values[-1],
            mean=sum(values) / len(values),
            shared=sum(1 for r in timed if r.latency_shared),
        )

    def value(self, statistic: str) -> float:
        return float(getattr(self, statistic))

    def as_dict(self) -> dict[str, object]:
        """The JSON report's ``latency`` block (milliseconds, rounded to 0.001)."""
        out: dict[str, object] = {"n": self.n}
        for name in ("p50", "p90", "p95", "p99", "max", "mean"):
            out[f"{name}_ms"] = round(self.value(name), 3)
        out["batch_share"] = self.shared
        return out


def latencies(results: Results) -> dict[str, LatencySummary]:
    """Each configuration's summary (configurations never timed are left out)."""
    found = {}
    for name in results.configurations():
        summary = LatencySummary.of(results.view(name).records)
        if summary is not None:
            found[name] = summary
    return found


Unit = Literal["µs", "ms", "s"]


def latency_unit(values: Iterable[float]) -> Unit:
    """The one unit a line (or list) of latencies is written in, chosen for all of them:
    ms for most; s when every one is long (the largest 1 s or more, none under 0.1 s);
    µs when every one is under 1 ms (27.7µs/37.3µs/396µs, not 0.0277ms/.../0.396ms)."""
    found = list(values)
    largest = max(found, default=0.0)
    if largest < 1.0:
        return "µs"
    return "s" if largest >= 1000 and min(found) >= 100 else "ms"


def milliseconds(value: float, unit: Unit | None = None) -> str:
    """A latency as a person reads it: 6.90µs, 0.420ms, 12.3ms, 250ms, 1.20s; in ``unit``
    (from :func:`latency_unit` over the values shown together), else its own."""
    unit = unit or latency_unit([value])
    if unit == "µs":
        return f"{_digits(value * 1000)}µs"
    if unit == "s":
        return f"{_digits(value / 1000)}s" if value < 1000 else f"{value / 1000:.2f}s"
    if value >= 100:
        return f"{value:.0f}ms"
    return f"{_digits(value)}ms" if value < 10 else f"{value:.1f}ms"


def _digits(value: float) -> str:
    """Three significant digits, trailing zeros kept (0.215, 0.220, 0.247 side by side),
    never in exponent form (5e-05 reads as 0.00005)."""
    text = f"{value:#.3g}"
    return f"{value:.6f}".rstrip("0").rstrip(".") if "e" in text else text.rstrip(".")


def milliseconds_row(values: Sequence[float]) -> list[str]:
    """Latencies shown together (p50, p95, max; the slowest queries), in one unit."""
    unit = latency_unit(values)
    return [milliseconds(v, unit) for v in values]


@dataclass(frozen=True)
class LatencyBreach:
    """A configuration over one of its latency budgets, with its slowest queries."""

    configuration: str
    limit: LatencyLimit
    value_ms: float
    slowest: tuple[tuple[str, float], ...]  # (query id, ms) over the budget, slowest first
    shared: bool = False  # the latencies are batch calls' times divided over their queries

    def message(self) -> str:
        times = milliseconds_row([ms for _, ms in self.slowest])  # one unit for the list
        slowest = ", ".join(f"{q} {t}" for (q, _), t in zip(self.slowest, times, strict=True))
        shares = (
            " (batch shares: a batch call's time divided over its queries; a smaller "
            "retrieval_batch_size times queries more finely)"
            if self.shared
            else ""
        )
        return f"{self.headline()} (retrieval_latency_budget); slowest over it: {slowest}{shares}"

    def headline(self) -> str:
        """``dense: latency p95 412ms is over its budget 350ms``: the value and the budget
        it is compared with in one unit (156µs over 10.0µs)."""
        value, budget = milliseconds_row([self.value_ms, self.limit.seconds * 1000])
        return (
            f"{self.configuration}: latency {self.limit.statistic} {value} "
            f"is over its budget {budget}"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "configuration": self.configuration,
            "statistic": self.limit.statistic,
            "budget_ms": round(self.limit.seconds * 1000, 3),
            "value_ms": round(self.value_ms, 3),
            "slowest": [{"id": q, "latency_ms": round(ms, 3)} for q, ms in self.slowest],
        }


def check_budgets(
    results: Results, limits_for: dict[str, list[LatencyLimit]], shown: int = 5
) -> tuple[list[LatencyBreach], list[str]]:
    """Every budget exceeded; and notes for configurations with budgets but no latency."""
    breaches: list[LatencyBreach] = []
    notes: list[str] = []
    summaries = latencies(results)
    for name, limits in limits_for.items():
        if not limits:
            continue
        summary = summaries.get(name)
        if summary is None:
            notes.append(f"no latency was measured for '{name}': its latency budget is not checked")
            continue
        timed = [r for r in results.view(name).records if r.latency_ms is not None]
        slowest = sorted(timed, key=lambda r: (-(r.latency_ms or 0.0), r.id))[:shown]
        for limit in limits:
            value = summary.value(limit.statistic)
            budget = limit.seconds * 1000
            if value > budget:  # the queries over it (a p95 over budget: maybe fewer than 5)
                over = [r for r in slowest if (r.latency_ms or 0.0) > budget]
                top = tuple((r.id, r.latency_ms or 0.0) for r in over)
                shared = any(r.latency_shared for r in over)
                breaches.append(LatencyBreach(name, limit, value, top, shared))
    return breaches, notes
