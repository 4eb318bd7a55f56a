"""Intervals for summary rows and paired comparisons of configurations (CONTRACT §6).

Pure. Builds on :mod:`pytest_retrieval.stats`: every summary cell gets a 95%
interval; every configuration is compared with a reference on the same queries
(mean difference, paired bootstrap interval, sign-flip p-value, wins/ties/losses),
per category and for ``all``, with Holm-Bonferroni across the whole table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .aggregate import ALL, Results, by_category
from .scoring import QueryRecord
from .settings import SettingsError, parse_int
from .stats import (
    Interval,
    bootstrap_means,
    holm,
    mean_interval,
    paired_test,
    rng_for,
    use_resampling,
)

GATE_MODES = ("absolute", "significant")


@dataclass(frozen=True)
class StatsSettings:
    seed: int = 1
    resamples: int = 10_000
    reference: str | None = None
    alpha: float = 0.05
    min_queries: int = 30
    weights: Mapping[str, float] = field(default_factory=dict)
    gate_mode: str = "absolute"


def parse_stats_settings(ini: Mapping[str, Any]) -> StatsSettings:
    """Build :class:`StatsSettings` from raw ini values (empty values take defaults)."""

    def text(key: str) -> str:
        value = ini.get(key)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        return "" if value is None else str(value).strip()

    def integer(key: str, default: int, minimum: int) -> int:
        raw = text(key)
        return parse_int(key, raw, minimum) if raw else default

    alpha_raw = text("retrieval_alpha")
    try:
        alpha = float(alpha_raw) if alpha_raw else 0.05
    except ValueError:
        raise SettingsError(
            f"retrieval_alpha must be a number in (0, 1), got '{alpha_raw}'"
        ) from None
    if not 0 < alpha < 1:
        raise SettingsError(f"retrieval_alpha must be a number in (0, 1), got {alpha}")
    mode = text("retrieval_gate_mode").lower() or "absolute"
    if mode not in GATE_MODES:
        raise SettingsError(
            f"retrieval_gate_mode must be one of {', '.join(GATE_MODES)}, got '{mode}'"
        )
    weights: dict[str, float] = {}
    for word in text("retrieval_weights").replace(",", " ").split():
        name, sep, value = word.rpartition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not sep or not name or weight < 0:
            raise SettingsError(
                f"retrieval_weights: '{word}' is not category=weight (e.g. exact-name=0.4)"
            )
        weights[name] = weight
    if weights and sum(weights.values()) <= 0:
        raise SettingsError("retrieval_weights: the weights add up to 0")
    return StatsSettings(
        seed=integer("retrieval_seed", 1, 0),
        resamples=integer("retrieval_bootstrap", 10_000, 0),
        reference=text("retrieval_reference") or None,
        alpha=alpha,
        min_queries=integer("retrieval_min_queries", 30, 1),
        weights=weights,
        gate_mode=mode,
    )


# --------------------------------------------------------------------------- intervals


def record_intervals(
    records: Sequence[QueryRecord],
    metrics: Sequence[str],
    stats: StatsSettings,
    *parts: str,
) -> dict[str, Interval]:
    """95% interval of each metric's mean over the evaluated records.

    Metrics whose values are present on the same queries share resampled indices.
    """
    evaluated = sorted((r for r in records if r.evaluated), key=lambda r: r.id)
    groups: dict[tuple[int, ...], list[str]] = {}
    for metric in metrics:
        present = tuple(i for i, r in enumerate(evaluated) if r.metrics.get(metric) is not None)
        groups.setdefault(present, []).append(metric)
    out: dict[str, Interval] = {}
    for present, names in groups.items():
        series = [[float(evaluated[i].metrics[m] or 0.0) for i in present] for m in names]
        rng = rng_for(stats.seed, "ci", *parts, *names)
        boots: list[list[float]] | list[None] = [None] * len(names)
        if use_resampling(len(present), stats.resamples):
            boots = bootstrap_means(series, stats.resamples, rng)
        for name, values, boot in zip(names, series, boots, strict=True):
            out[name] = mean_interval(values, stats.resamples, rng, boot=boot)
    return out


SharedBoot = dict[str, dict[tuple[str, str], list[float]]]


def _with_all(records: Sequence[QueryRecord]) -> dict[str, list[QueryRecord]]:
    """``all`` and each category's records."""
    return {ALL: list(records), **by_category(records)}


def shared_bootstrap(results: Results, metrics: Sequence[str], stats: StatsSettings) -> SharedBoot:
    """Per category, bootstrap means of every (configuration, metric) from shared indices.

    Only where every configuration evaluated the same queries with a value for
    every metric (the usual case): one draw of indices then serves every
    interval of that category and, paired, every difference between
    configurations. Other categories fall back to their own draws.
    """
    per_configuration = {
        c: _with_all([r for r in results.records(c) if r.evaluated])
        for c in results.configurations()
    }
    categories = sorted({cat for groups in per_configuration.values() for cat in groups})
    out: SharedBoot = {}
    for category in categories:
        groups = [per_configuration[c].get(category, []) for c in per_configuration]
        ids = [r.id for r in groups[0]]
        if not use_resampling(len(ids), stats.resamples):
            continue
        if any([r.id for r in g] != ids for g in groups):
            continue
        if any(r.metrics.get(m) is None for g in groups for r in g for m in metrics):
            continue
        keys = [(c, m) for c in per_configuration for m in metrics]
        series = [
            [float(r.metrics[m] or 0.0) for r in per_configuration[c][category]] for c, m in keys
        ]
        boots = bootstrap_means(series, stats.resamples, rng_for(stats.seed, "shared", category))
        out[category] = dict(zip(keys, boots, strict=True))
    return out


def summary_intervals(
    results: Results, metrics: Sequence[str], stats: StatsSettings, shared: SharedBoot
) -> dict[str, dict[str, dict[str, Interval]]]:
    """configuration -> row (each category, ``all``) -> metric -> interval."""
    out: dict[str, dict[str, dict[str, Interval]]] = {}
    for configuration in results.configurations():
        rows: dict[str, dict[str, Interval]] = {}
        for category, records in sorted(_with_all(results.records(configuration)).items()):
            boots = shared.get(category)
            if boots is None:
                rows[category] = record_intervals(records, metrics, stats, configuration, category)
                continue
            rows[category] = {}
            for metric in metrics:
                values = [float(r.metrics[metric] or 0.0) for r in records if r.evaluated]
                rows[category][metric] = mean_interval(
                    values, stats.resamples, rng_for(0), boot=boots[(configuration, metric)]
                )
        out[configuration] = rows
    return out


# --------------------------------------------------------------------------- comparisons


@dataclass
class Comparisons:
    reference: str
    rows: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {"reference": self.reference, "rows": self.rows}


def common_pairs(
    current: Mapping[str, QueryRecord], reference: Mapping[str, QueryRecord]
) -> list[tuple[QueryRecord, QueryRecord]]:
    """The records of the queries both evaluated, in id order."""
    return [
        (current[q], reference[q])
        for q in sorted(current.keys() & reference.keys())
        if current[q].evaluated and reference[q].evaluated
    ]


def paired_values(
    pairs: Sequence[tuple[QueryRecord, QueryRecord]], metric: str
) -> tuple[list[float], list[float]]:
    """Both values of one metric on the pairs where both have one."""
    cur: list[float] = []
    ref: list[float] = []
    for a, b in pairs:
        va, vb = a.metrics.get(metric), b.metrics.get(metric)
        if va is not None and vb is not None:
            cur.append(va)
            ref.append(vb)
    return cur, ref


def test_row(
    current: Sequence[float],
    reference: Sequence[float],
    stats: StatsSettings,
    *parts: str,
    boot: Sequence[float] | None = None,
) -> dict[str, Any]:
    """One paired comparison as a report row (without ``p_holm``/``significant``).

    ``boot``: bootstrap means of the differences already drawn from shared indices.
    """
    test = paired_test(
        current, reference, stats.resamples, rng_for(stats.seed, "paired", *parts), boot=boot
    )
    return {
        "n": test.n,
        "delta": test.delta,
        "ci": test.ci.as_list(),
        "p": test.p,
        "wins": test.wins,
        "ties": test.ties,
        "losses": test.losses,
        "method": test.method,
    }


def apply_holm(rows: list[dict[str, Any]], alpha: float) -> None:
    """Add ``p_holm`` and ``significant`` to every row, corrected across all of them."""
    for row, adjusted in zip(rows, holm([r["p"] for r in rows]), strict=True):
        row["p_holm"] = adjusted
        row["significant"] = adjusted < alpha


def compare_configurations(
    results: Results, metrics: Sequence[str], stats: StatsSettings, shared: SharedBoot
) -> Comparisons | None:
    """Each configuration against the reference, per category and ``all``; None if only one."""
    configurations = results.configurations()
    if len(configurations) < 2:
        return None
    reference = stats.reference if stats.reference in configurations else configurations[0]
    ref_records = {r.id: r for r in results.records(reference)}
    rows: list[dict[str, Any]] = []
    for configuration in configurations:
        if configuration == reference:
            continue
        records = {r.id: r for r in results.records(configuration)}
        categories = sorted({r.category for r in records.values()})
        for category in [ALL, *categories]:
            if category == ALL:
                cur_group, ref_group = records, ref_records
            else:
                cur_group = {q: r for q, r in records.items() if r.category == category}
                ref_group = {q: r for q, r in ref_records.items() if r.category == category}
            boots = shared.get(category)
            pairs = common_pairs(cur_group, ref_group)
            for metric in metrics:
                cur, ref = paired_values(pairs, metric)
                if not cur:
                    continue
                boot = None
                if boots is not None:
                    boot = [
                        a - b
                        for a, b in zip(
                            boots[(configuration, metric)], boots[(reference, metric)], strict=True
                        )
                    ]
                row = {"configuration": configuration, "category": category, "metric": metric}
                row.update(
                    test_row(cur, ref, stats, configuration, reference, category, metric, boot=boot)
                )
                rows.append(row)
    apply_holm(rows, stats.alpha)
    return Comparisons(reference, rows)
