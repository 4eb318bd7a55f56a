"""What the HTML page shows, taken from a :class:`RunReport`: a typed :class:`PageData`. Pure.

Means with their intervals per configuration and category (and per tag, for each
``--retrieval-group-by``), the paired comparisons, the gate's verdict with its breached
rows, every query's row (ranked ids with their grades, why it failed, how its judged
results moved since the baseline, its text), the retrievers' metadata, each
configuration's latency, and with a history log each ``all`` mean's trend over the
logged runs of each label (this run's label first).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..history import LogEntry, comparable_runs
from ..model import QueryRecord
from ..query_changes import judged_moves
from ..retriever_metadata import shown
from ..scoring import why
from ..slices import Slice
from . import html_page as hp
from .run_report import RunReport
from .svg import TrendLine, TrendPoint
from .tables import latency_cells

MAX_ROWS = 5000  # query-table rows; beyond, the rows that need a look are kept
TREND_RUNS = 30  # runs per trend chart (the latest)
TREND_LABELS = 6  # labels with a trend chart (this run's, then the latest others)


def _cell(s: Slice, metric: str) -> hp.MetricCell:
    """The mean, its interval, and its count when it is over fewer queries than the row's
    n (``retrieval_empty = skip``), as the terminal's and the Markdown's ``(n=34)``."""
    interval = s.intervals.get(metric)
    bounds = interval.as_list() if interval is not None else None
    lo, hi = bounds if bounds is not None else (None, None)
    count = s.row.count(metric)
    return hp.MetricCell(s.row.values.get(metric), lo, hi, None if count == s.row.n else count)


def _row_means(configuration: str, name: str, s: Slice, metrics: Sequence[str]) -> hp.CategoryMeans:
    return hp.CategoryMeans(configuration, name, s.row.n, {m: _cell(s, m) for m in metrics})


def _means(report: RunReport) -> list[hp.CategoryMeans]:
    evaluation = report.evaluation
    return [
        _row_means(c, name, s, evaluation.metrics)
        for c in evaluation.summaries
        for name, s in evaluation.rows(c)
    ]


def _groups(report: RunReport) -> list[hp.GroupTable]:
    """The ``--retrieval-group-by`` tables: per title, each configuration's rows."""
    evaluation = report.evaluation
    return [
        hp.GroupTable(
            title,
            [
                _row_means(c, name, s, evaluation.metrics)
                for c, rows in table.items()
                for name, s in rows.items()
            ],
        )
        for title, table in evaluation.groups.items()
    ]


def _comparisons(report: RunReport) -> list[hp.ComparisonRow]:
    comparisons = report.evaluation.comparisons
    out = []
    for r in comparisons.rows if comparisons is not None else []:
        lo, hi = (r.ci[0], r.ci[1]) if r.ci is not None else (None, None)
        counts = (r.wins, r.ties, r.losses)
        row = hp.ComparisonRow(
            r.configuration, r.category, r.metric, r.delta, lo, hi, r.p_holm, r.significant, *counts
        )
        out.append(row)
    return out


def _verdict(report: RunReport) -> hp.Verdict | None:
    gate = report.gate
    if gate is None:
        return None
    breached = [
        hp.BreachedRow(
            r.configuration, r.category, r.metric, r.baseline, r.current, r.delta, r.allowed
        )
        for r in gate.listed(gate.breached)
    ]
    return hp.Verdict(gate.verdict, report.gate_text or "", breached, gate.blocking)


def _moves(report: RunReport, record: QueryRecord) -> list[hp.RankMove]:
    """How the judged results moved since the baseline (same text and judgments only)."""
    baseline = report.baseline
    old = baseline.configurations.get(record.configuration, {}).get(record.id) if baseline else None
    if old is None or old.fingerprint != record.fingerprint or not record.evaluated:
        return []
    return [hp.RankMove(m.id, m.before, m.after, m.grade) for m in judged_moves(old, record)]


def _row(report: RunReport, record: QueryRecord) -> hp.QueryRow:
    ranked = [hp.RankedId(d, record.grades.get(d)) for d in record.retrieved]
    text = report.places.get(record.id, (0, ""))[1]
    return hp.QueryRow(
        record.configuration, record.id, record.category, record.outcome, dict(record.metrics),
        ranked, why(record) or None, _moves(report, record), text,
    )  # fmt: skip


def _dots(
    records: Sequence[QueryRecord], metrics: Sequence[str]
) -> dict[str, dict[str, list[tuple[str, float | None]]]]:
    """Per metric and configuration, every evaluated query's value: the dot charts show
    every query, also when the table keeps a part of the rows (a skipped item is not
    counted in ``n``, so it is no dot and no n/a)."""
    dots: dict[str, dict[str, list[tuple[str, float | None]]]] = {m: {} for m in metrics}
    for r in (r for r in records if r.evaluated):
        for metric, lanes in dots.items():
            lanes.setdefault(r.configuration, []).append((r.id, r.metrics.get(metric)))
    return dots


def _records(report: RunReport) -> tuple[list[QueryRecord], str]:
    """Every record, or (past :data:`MAX_ROWS`) those that need a look first: failed and
    errored, then the lowest on the first metric; and a note saying so."""
    records = report.results.all_records()
    if len(records) <= MAX_ROWS:
        return records, ""
    first = report.evaluation.metrics[0]

    def need(r: QueryRecord) -> tuple[int, float]:
        value = r.metrics.get(first)
        looked = 0 if r.outcome in ("failed", "error", "xpassed") else 1
        return looked, 2.0 if value is None else value

    kept = set(map(id, sorted(records, key=need)[:MAX_ROWS]))
    note = (
        f"of {len(records)}: the failed and errored ones, then the lowest on {first} "
        "(the JSON report has every row)"
    )
    return [r for r in records if id(r) in kept], note


def _tick(entry: LogEntry, index: int) -> str:
    return entry.commit_short or f"run {index + 1}"


def _line(configuration: str, metric: str, runs: Sequence[LogEntry]) -> TrendLine:
    points = []
    for i, entry in enumerate(runs):
        found = entry.configurations.get(configuration)
        mean = found.all.means.get(metric) if found is not None else None
        value, lo, hi = (mean.value, mean.lo, mean.hi) if mean is not None else (None, None, None)
        points.append(TrendPoint(_tick(entry, i), entry.stamp.time[:10] or None, value, lo, hi))
    return TrendLine(configuration, points)


def _trend_note(shown_runs: int, total: int, other_settings: int) -> str:
    runs = "1 run" if shown_runs == 1 else f"{shown_runs} runs"
    note = runs if shown_runs == total else f"the last {shown_runs} of {total} runs"
    if other_settings:
        note += f"; {other_settings} with other settings left out"
    return note


def trend_charts(report: RunReport) -> list[hp.TrendChart]:
    """Per label (this run's first) and metric, the ``all`` means over the logged runs."""
    history = list(report.history)
    if not history:
        return []
    labels = [report.label] + [e.label for e in reversed(history) if e.label != report.label]
    settings = report.settings.as_dict()
    charts = []
    for label in list(dict.fromkeys(labels))[:TREND_LABELS]:
        runs, other = comparable_runs(history, label, settings)
        if not runs:
            continue
        shown_runs = runs[-TREND_RUNS:]
        names = list(report.evaluation.summaries)
        names += [c for e in shown_runs for c in e.configurations if c not in names]
        note = _trend_note(len(shown_runs), len(runs), other)
        for metric in report.evaluation.metrics:
            lines = [_line(c, metric, shown_runs) for c in dict.fromkeys(names)]
            charts.append(hp.TrendChart(metric, label, lines, note))
    return charts


def _retrievers(report: RunReport) -> dict[str, dict[str, str]]:
    return {c: {k: shown(v) for k, v in m.items()} for c, m in report.described()}


def _latency(report: RunReport) -> list[hp.LatencyRow]:
    """Each timed configuration's p50 / p95 / max, as the Markdown report's latency table."""
    cells = latency_cells(report.evaluation)
    return [hp.LatencyRow(name, s.n, *cells[name]) for name, s in report.evaluation.latency.items()]


def page_data(report: RunReport) -> hp.PageData:
    """The page's data for this run."""
    records, note = _records(report)
    metrics = report.evaluation.metrics
    dots = _dots(report.results.all_records(), metrics) if note else {}
    comparisons = report.evaluation.comparisons
    settings = report.settings_line()
    if report.label:
        settings += f" Run labelled '{report.label}'."
    return hp.PageData(
        settings=settings,
        metrics=report.evaluation.metrics,
        configurations=list(report.evaluation.summaries),
        means=_means(report),
        queries=[_row(report, r) for r in records],
        verdict=_verdict(report),
        reference=comparisons.reference if comparisons is not None else None,
        comparisons=_comparisons(report),
        trends=trend_charts(report),
        warnings=[str(w) for w in report.evaluation.warnings],
        relevance_threshold=report.settings.conventions.relevance_threshold,
        generated=report.generated.replace("T", " ").replace("+00:00", " UTC"),
        retrievers=_retrievers(report),
        latency=_latency(report),
        groups=_groups(report),
        queries_note=note,
        dots=dots,
        incomplete=report.incomplete_line(),
    )
