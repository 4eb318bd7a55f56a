"""Intervals for summary rows and paired comparisons of configurations.

Pure. Builds on :mod:`pytest_retrieval.stats`: every summary cell gets a 95%
interval; every configuration is compared with a reference on the same queries
(mean difference, paired bootstrap interval, sign-flip p-value, wins/ties/losses),
per category and for ``all``, with Holm-Bonferroni across the whole table
(README: Statistics).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Protocol

from .model import ALL, MetricColumns, QueryRecord, Results, metric_columns
from .settings import StatsSettings
from .stats import (
    Draws,
    Interval,
    PairedTest,
    TestMethod,
    bootstrap_means,
    holm,
    mean_interval,
    paired_test,
    queries_key,
    rng_for,
    use_resampling,
)

# --------------------------------------------------------------------------- intervals


def record_intervals(
    records: Sequence[QueryRecord], metrics: Sequence[str], stats: StatsSettings
) -> dict[str, Interval]:
    """95% interval of each metric's mean over the evaluated records."""
    evaluated = sorted((r for r in records if r.evaluated), key=attrgetter("id"))
    return column_intervals(metric_columns(evaluated, metrics), stats)


def column_intervals(columns: MetricColumns, stats: StatsSettings) -> dict[str, Interval]:
    """95% interval of each metric's mean over a group's evaluated columns (in id order).

    Metrics whose values are present on the same queries share resampled indices.
    """
    groups: dict[tuple[int, ...] | None, list[str]] = {}  # None: a value on every query
    for metric, column in columns.values.items():
        present = (
            None if None not in column else tuple(i for i, v in enumerate(column) if v is not None)
        )
        groups.setdefault(present, []).append(metric)
    out: dict[str, Interval] = {}
    for present, names in groups.items():
        if present is None:  # the usual case: whole columns, copied at C speed
            series = [list(map(float, columns.values[m])) for m in names]  # type: ignore[arg-type]
            ids = columns.ids
        else:
            series = [[float(columns.values[m][i]) for i in present] for m in names]  # type: ignore[arg-type]
            ids = [columns.ids[i] for i in present]
        boots: list[list[float]] | list[None] = [None] * len(names)
        if use_resampling(len(ids), stats.resamples):  # drawn from the queries' key
            # the draws Draws shares for these queries: a row over the same queries (a tag on
            # every query, a category alone under -k) gets the interval its summary row has
            key = queries_key(ids)
            boots = bootstrap_means(series, stats.resamples, rng_for(stats.seed, "shared", key))
        for name, values, boot in zip(names, series, boots, strict=True):
            # with boot given, or no resampling, mean_interval draws nothing from its rng
            out[name] = mean_interval(values, stats.resamples, rng_for(0), boot=boot)
    return out


SharedBoot = dict[str, dict[tuple[str, str], list[float]]]


def shared_bootstrap(results: Results, metrics: Sequence[str], draws: Draws) -> SharedBoot:
    """Per category, bootstrap means of every (configuration, metric) from shared indices.

    Only where every configuration evaluated the same queries with a value for
    every metric (the usual case): one draw of indices then serves every
    interval of that category and, paired, every difference between
    configurations. Other categories fall back to their own draws.
    """
    groups_of = {c: results.view(c).group_columns(metrics) for c in results.configurations()}
    categories = sorted({cat for groups in groups_of.values() for cat in groups})
    out: SharedBoot = {}
    for category in categories:
        groups = [g[category] for g in groups_of.values() if category in g]
        ids = groups[0].ids
        if len(groups) < len(groups_of) or not use_resampling(len(ids), draws.resamples):
            continue  # a configuration without that category, or no resampling
        if any(g.ids != ids or _has_none(g) for g in groups):
            continue
        keys = [(c, m) for c in groups_of for m in metrics]
        series = [[float(v or 0.0) for v in groups_of[c][category].values[m]] for c, m in keys]
        boots = draws.means(queries_key(ids), series)
        out[category] = dict(zip(keys, boots, strict=True))
    return out


def _has_none(columns: MetricColumns) -> bool:
    return any(None in column for column in columns.values.values())


def summary_intervals(
    results: Results, metrics: Sequence[str], stats: StatsSettings, shared: SharedBoot
) -> dict[str, dict[str, dict[str, Interval]]]:
    """configuration -> row (each category, ``all``) -> metric -> interval."""
    out: dict[str, dict[str, dict[str, Interval]]] = {}
    for configuration in results.configurations():
        rows: dict[str, dict[str, Interval]] = {}
        for category, columns in sorted(results.view(configuration).group_columns(metrics).items()):
            boots = shared.get(category)
            if boots is None:
                rows[category] = column_intervals(columns, stats)
                continue
            rows[category] = {}
            for metric in metrics:
                values = [float(v or 0.0) for v in columns.values[metric]]
                rows[category][metric] = mean_interval(
                    values, stats.resamples, rng_for(0), boot=boots[(configuration, metric)]
                )
        out[configuration] = rows
    return out


# --------------------------------------------------------------------------- paired rows


class Corrected(Protocol):
    """A row with a p-value that Holm's correction fills in."""

    configuration: str
    category: str
    metric: str
    n: int
    ci: list[float] | None
    p: float
    method: TestMethod
    p_holm: float
    significant: bool


P_FLOOR = 1e-300  # a p-value that underflowed to 0.0, as reports give it: an upper bound


def p_fields(p: float, p_holm: float) -> dict[str, object]:
    """A row's p-values as the JSON report writes them. The normal law's p for thousands of
    queries that all moved one way underflows to 0.0, and no test's p is 0 (a reader
    taking its logarithm gets -inf): it is written as :data:`P_FLOOR`, the bound the
    terminal prints (``<1e-300``), with ``p_underflow`` true to say it is a bound."""
    return {
        "p": p or P_FLOOR,
        "p_holm": p_holm or P_FLOOR,
        "p_underflow": p == 0.0 or p_holm == 0.0,
    }


def twins_of_all(rows: Sequence[Corrected]) -> dict[int, Corrected]:
    """Position of a category row -> the ``all`` row of its configuration and metric, when
    the category holds every query of it (the only category): the two rows are one test.

    Categories part the queries of ``all``, so a category row over as many queries as its
    ``all`` row is over the very same ones."""
    whole = {(r.configuration, r.metric): r for r in rows if r.category == ALL}
    twins: dict[int, Corrected] = {}
    for i, row in enumerate(rows):
        twin = whole.get((row.configuration, row.metric))
        if row.category != ALL and twin is not None and row.n == twin.n:
            twins[i] = twin
    return twins


def holm_tests(rows: Sequence[Corrected]) -> int:
    """How many tests Holm's correction counts among the rows (a twin of ``all`` is none)."""
    return len(rows) - len(twins_of_all(rows))


def holm_scope(rows: Sequence[Corrected], what: str) -> str:
    """What Holm's correction ran across, for a message: ``all 24 gated rows``, or, with
    twins of ``all``, ``the 12 tests of the 24 gated rows``."""
    tests = holm_tests(rows)
    if tests == len(rows):
        return f"all {len(rows)} {what}"
    return (
        f"the {tests} tests of the {len(rows)} {what} (a category holding every query is "
        "its all row's test)"
    )


def apply_holm(rows: Sequence[Corrected], alpha: float) -> None:
    """Set ``p_holm`` and ``significant`` on every row, corrected across all of them.

    A row that is its ``all`` row again (:func:`twins_of_all`) is counted once: it takes
    that row's test (interval, p, method) and its correction, so a golden set of one
    category does not pay for each test twice."""
    twins = twins_of_all(rows)
    tested = [row for i, row in enumerate(rows) if i not in twins]
    for row, adjusted in zip(tested, holm([r.p for r in tested]), strict=True):
        row.p_holm = adjusted
        row.significant = adjusted < alpha
    for i, twin in twins.items():
        row = rows[i]
        row.ci, row.p, row.method = twin.ci, twin.p, twin.method
        row.p_holm, row.significant = twin.p_holm, twin.significant


def paired(
    current: Sequence[float],
    reference: Sequence[float],
    stats: StatsSettings,
    *parts: str,
    boot: Sequence[float] | None = None,
) -> PairedTest:
    """One paired test, seeded by ``parts``; ``boot``: bootstrap means of the
    differences already drawn from shared indices."""
    rng = rng_for(stats.seed, "paired", *parts)
    return paired_test(current, reference, stats.resamples, rng, boot=boot)


def clear_of_zero(ci: Sequence[float] | None) -> bool:
    """Whether a difference's interval lies wholly on one side of 0."""
    return ci is not None and (ci[0] > 0 or ci[1] < 0)


@dataclass
class ComparisonRow:
    """One configuration against the reference on one category and metric."""

    configuration: str
    category: str
    metric: str
    n: int
    delta: float
    ci: list[float] | None
    p: float
    wins: int
    ties: int
    losses: int
    method: TestMethod
    p_holm: float = 1.0
    significant: bool = False

    @classmethod
    def of(cls, configuration: str, category: str, metric: str, test: PairedTest) -> ComparisonRow:
        return cls(
            configuration, category, metric, test.n, test.delta, test.ci.as_list(), test.p,
            test.wins, test.ties, test.losses, test.method,
        )  # fmt: skip

    def as_dict(self) -> dict[str, object]:
        return {**self.__dict__, **p_fields(self.p, self.p_holm)}


@dataclass
class Comparisons:
    reference: str
    rows: list[ComparisonRow]

    def as_dict(self) -> dict[str, object]:
        return {"reference": self.reference, "rows": [r.as_dict() for r in self.rows]}


def common_columns(
    current: MetricColumns, reference: MetricColumns
) -> tuple[MetricColumns, MetricColumns]:
    """Both groups cut to the queries both evaluated, in id order (each given in id order)."""
    if current.ids == reference.ids:
        return current, reference
    slots = {q: i for i, q in enumerate(reference.ids)}
    mine = [(i, slots[q]) for i, q in enumerate(current.ids) if q in slots]
    return current.picked([i for i, _ in mine]), reference.picked([j for _, j in mine])


def present_values(
    current: Sequence[float | None], reference: Sequence[float | None]
) -> tuple[list[float], list[float]]:
    """Both values of one metric on the queries where both have one."""
    if None in current or None in reference:  # a metric without a value on some queries
        pairs = zip(current, reference, strict=True)
        kept = [(a, b) for a, b in pairs if a is not None and b is not None]
        return [a for a, _ in kept], [b for _, b in kept]
    return list(current), list(reference)  # type: ignore[arg-type]


def _shared_differences(
    boots: Mapping[tuple[str, str], list[float]] | None,
    configuration: str,
    reference: str,
    metric: str,
) -> list[float] | None:
    if boots is None:
        return None
    mine, theirs = boots[(configuration, metric)], boots[(reference, metric)]
    return [a - b for a, b in zip(mine, theirs, strict=True)]


def _compare_one(
    results: Results,
    configuration: str,
    reference: str,
    metrics: Sequence[str],
    stats: StatsSettings,
    shared: SharedBoot,
) -> list[ComparisonRow]:
    mine = results.view(configuration).group_columns(metrics)
    theirs = results.view(reference).group_columns(metrics)
    rows: list[ComparisonRow] = []
    for category, cur_group in mine.items():
        ref_group = theirs.get(category)
        if ref_group is None:
            continue
        cur_group, ref_group = common_columns(cur_group, ref_group)
        for metric in metrics:
            cur, ref = present_values(cur_group.values[metric], ref_group.values[metric])
            if not cur:
                continue
            boot = _shared_differences(shared.get(category), configuration, reference, metric)
            test = paired(cur, ref, stats, configuration, reference, category, metric, boot=boot)
            rows.append(ComparisonRow.of(configuration, category, metric, test))
    return rows


def compare_configurations(
    results: Results, metrics: Sequence[str], stats: StatsSettings, shared: SharedBoot
) -> Comparisons | None:
    """Each configuration against the reference, per category and ``all``; None if only one."""
    configurations = results.configurations()
    if len(configurations) < 2:
        return None
    reference = stats.reference if stats.reference in configurations else configurations[0]
    rows = [
        row
        for configuration in configurations
        if configuration != reference
        for row in _compare_one(results, configuration, reference, metrics, stats, shared)
    ]
    apply_holm(rows, stats.alpha)
    return Comparisons(reference, rows)
