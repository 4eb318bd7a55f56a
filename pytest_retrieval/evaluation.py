"""Everything derived from a run's records, computed once: the cores put together.

Pure. :func:`analyse` turns :class:`~pytest_retrieval.model.Results` into an
:class:`Evaluation` that the terminal tables, the reports and the gate all read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .advice import (
    Advice,
    RetrievalSettingsWarning,
    errored_categories,
    gain_warnings,
    group_by_warnings,
    noise_warnings,
    overlap_warnings,
    positional_names,
    reproducibility_warnings,
    saturation_warnings,
    settings_warnings,
    typo_warnings,
    unmatched_ids_warnings,
    unselectable_names,
)
from .aggregate import ConfigurationSummary, summaries, summarize_rows
from .bulk import with_paused_gc
from .comparisons import (
    Comparisons,
    compare_configurations,
    record_intervals,
    shared_bootstrap,
    summary_intervals,
)
from .latency import LatencySummary, latencies
from .model import ALL, WEIGHTED, Results
from .settings import GroupBy, Settings, StatsSettings
from .slices import Slice, group_records, weighted_interval, weighted_row
from .stats import Draws, Interval


@dataclass
class Evaluation:
    metrics: list[str]
    summaries: dict[str, ConfigurationSummary]
    intervals: dict[str, dict[str, dict[str, Interval]]]
    comparisons: Comparisons | None
    weighted: dict[str, Slice] = field(default_factory=dict)
    weighted_left_out: list[str] = field(default_factory=list)
    groups: dict[str, dict[str, dict[str, Slice]]] = field(default_factory=dict)
    warnings: list[Advice] = field(default_factory=list)
    latency: dict[str, LatencySummary] = field(default_factory=dict)  # per configuration timed
    # the bootstrap draws, for the gate to share (see stats.Draws)
    draws: Draws | None = field(default=None, repr=False, compare=False)

    def rows(self, configuration: str) -> list[tuple[str, Slice]]:
        """A configuration's rows: categories, ``all``, then ``all (weighted)`` if any."""
        summary = self.summaries[configuration]
        intervals = self.intervals.get(configuration, {})
        out = [(name, Slice(row, intervals.get(name, {}))) for name, row in summary.rows()]
        if configuration in self.weighted:
            out.append((WEIGHTED, self.weighted[configuration]))
        return out

    def summary_dict(self, configuration: str) -> dict[str, object]:
        rows = dict(self.rows(configuration))
        out: dict[str, object] = {
            ALL: rows[ALL].as_dict(),
            "categories": {
                name: s.as_dict() for name, s in sorted(rows.items()) if name not in (ALL, WEIGHTED)
            },
        }
        if WEIGHTED in rows:
            out["weighted"] = rows[WEIGHTED].as_dict()
        return out


def _weighted(evaluation: Evaluation, results: Results, stats: StatsSettings) -> None:
    """The ``all (weighted)`` row of each configuration, when weights are set."""
    for configuration in results.configurations():
        records = results.view(configuration).records
        found = weighted_row(records, stats.weights, evaluation.metrics)
        if found is None:
            continue
        row, left_out = found
        intervals = {
            m: weighted_interval(
                records, stats.weights, m, stats.resamples, stats.seed, configuration
            )
            for m in evaluation.metrics
        }
        evaluation.weighted[configuration] = Slice(row, intervals)
        evaluation.weighted_left_out = sorted(set(evaluation.weighted_left_out) | set(left_out))


def _groups(
    evaluation: Evaluation, results: Results, stats: StatsSettings, group_bys: Sequence[GroupBy]
) -> None:
    """The tables of ``--retrieval-group-by``: a row per tag, per configuration."""
    metrics = evaluation.metrics
    for group in group_bys:
        table = evaluation.groups.setdefault(group.title, {})
        for configuration in results.configurations():
            grouped = group_records(results.view(configuration).records, group)
            table[configuration] = {
                name: Slice(
                    summarize_rows(recs, metrics),
                    record_intervals(recs, metrics, stats),
                )
                for name, recs in grouped.items()
            }


def _warnings(
    evaluation: Evaluation,
    results: Results,
    settings: Settings,
    stats: StatsSettings,
    group_bys: Sequence[GroupBy],
) -> list[Advice]:
    configurations = results.configurations()
    categories = sorted({c for s in evaluation.summaries.values() for c in s.categories})
    records = {c: results.view(c).records for c in configurations}
    tags = sorted({t for rs in records.values() for r in rs if r.evaluated for t in r.tags})
    warnings = (
        positional_names(configurations, settings.fixture)
        + unselectable_names(configurations)
        + settings_warnings(configurations, categories, stats.reference, stats.weights)
        + gain_warnings(settings.metrics, settings.conventions.gain, settings.max_grade)
        + group_by_warnings(group_bys, tags)
        + noise_warnings(
            evaluation.summaries,
            evaluation.intervals,
            stats.min_queries,
            evaluation.comparisons,
            errored_categories(records),
        )
        + saturation_warnings(records, evaluation.metrics)
        + overlap_warnings(evaluation.summaries)
        + reproducibility_warnings(records)
        + unmatched_ids_warnings(records)
        + typo_warnings(records)
    )
    if evaluation.weighted_left_out:
        text = (
            "retrieval_weights gives no weight to "
            + ", ".join(evaluation.weighted_left_out)
            + ": left out of 'all (weighted)'"
        )
        warnings.append(Advice(RetrievalSettingsWarning, text))
    return warnings


@with_paused_gc
def analyse(
    results: Results,
    settings: Settings,
    stats: StatsSettings,
    group_bys: Sequence[GroupBy] = (),
) -> Evaluation:
    """Summaries, intervals, comparisons, slices and warnings of a run, each computed once."""
    metrics = settings.metric_names
    draws = Draws(stats.seed, stats.resamples)
    shared = shared_bootstrap(results, metrics, draws)
    evaluation = Evaluation(
        metrics=metrics,
        summaries=summaries(results, metrics),
        intervals=summary_intervals(results, metrics, stats, shared),
        comparisons=compare_configurations(results, metrics, stats, shared),
        latency=latencies(results),
        draws=draws,
    )
    if stats.weights:
        _weighted(evaluation, results, stats)
    _groups(evaluation, results, stats, group_bys)
    evaluation.warnings = _warnings(evaluation, results, settings, stats, group_bys)
    return evaluation
