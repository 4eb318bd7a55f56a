"""A realistic :class:`PageData` for the HTML page tests: the repository's golden set.

The 71 queries of ``golden/`` (five categories) under three configurations whose
rankings are drawn from a seeded random generator with a per-configuration, per-category
skill (bm25 blind on paraphrase, dense never abstaining, ...), scored with plain
nDCG@10 / MRR / Recall@20, with bootstrap intervals, paired comparisons against bm25,
a failed gate with breached rows, rank moves, failure reasons and a trend. One extra
query has an id and text full of markup, to prove the page escapes it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from pytest_retrieval.report import html_page as hp
from pytest_retrieval.report.svg import TrendLine, TrendPoint

ROOT = Path(__file__).resolve().parents[1]
CONFIGURATIONS = ("bm25", "dense", "fused")
METRICS = ("ndcg@10", "mrr", "recall@20")
NASTY_ID = "<script>alert('x')</script>&\"q\""
# chance that a relevant document is ranked high, per configuration and category
SKILL = {
    "bm25": {"adversarial": 0.9, "exact-name": 0.97, "filtered": 0.8, "paraphrase": 0.05},
    "dense": {"adversarial": 0.8, "exact-name": 0.95, "filtered": 0.92, "paraphrase": 0.85},
    "fused": {"adversarial": 0.93, "exact-name": 0.98, "filtered": 0.88, "paraphrase": 0.55},
}
ABSTAIN = {"bm25": 0.45, "dense": 0.0, "fused": 0.5}  # no-result queries answered with nothing


@dataclass(frozen=True)
class Golden:
    id: str
    text: str
    category: str
    grades: Mapping[str, int]


def load_golden() -> list[Golden]:
    """The repository's golden queries, plus one whose id and text are markup."""
    out = []
    for path in sorted((ROOT / "golden").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        default = data.get("defaults", {}).get("category", "uncategorized")
        for q in data["queries"]:
            relevant = q["relevant"]
            grades = {d: 1 for d in relevant} if isinstance(relevant, list) else dict(relevant)
            out.append(Golden(q["id"], q["query"], q.get("category", default), grades))
    out.append(Golden(NASTY_ID, "<b>bold</b> & \"quoted\" 'text'", "adversarial", {"x-1": 3}))
    return out


def rank(q: Golden, configuration: str, rng: random.Random, pool: Sequence[str]) -> list[str]:
    """A plausible ranking: relevant ids placed high with the configuration's skill."""
    if not any(g > 0 for g in q.grades.values()):
        return [] if rng.random() < ABSTAIN[configuration] else rng.sample(list(pool), 6)
    skill = SKILL[configuration].get(q.category, 0.5)
    found = [d for d in q.grades if rng.random() < skill * (0.7 + 0.1 * q.grades[d])]
    ranked = sorted(found, key=lambda d: -q.grades[d] - 2 * rng.random())
    noise = [d for d in rng.sample(list(pool), 14) if d not in ranked]
    for d in noise[: rng.randint(2, 8)]:
        at = len(ranked) if rng.random() < skill else rng.randint(0, len(ranked))
        ranked.insert(at, d)
    return ranked[:10]


def metrics(ranked: Sequence[str], grades: Mapping[str, int]) -> dict[str, float | None]:
    relevant = {d for d, g in grades.items() if g >= 1}
    if not relevant:
        value = 0.0 if ranked else 1.0
        return dict.fromkeys(METRICS, value)
    dcg = sum((2 ** grades.get(d, 0) - 1) / math.log2(r + 2) for r, d in enumerate(ranked[:10]))
    ideal_grades = sorted((g for g in grades.values() if g > 0), reverse=True)[:10]
    ideal = sum((2**g - 1) / math.log2(r + 2) for r, g in enumerate(ideal_grades))
    first = next((r + 1 for r, d in enumerate(ranked) if d in relevant), None)
    found = len([d for d in ranked[:20] if d in relevant])
    return {
        "ndcg@10": dcg / ideal,
        "mrr": 1 / first if first else 0.0,
        "recall@20": found / len(relevant),
    }


def bootstrap(values: Sequence[float], rng: random.Random, resamples: int = 400) -> hp.MetricCell:
    if not values:
        return hp.MetricCell(None)
    mean = math.fsum(values) / len(values)
    if len(values) == 1:
        return hp.MetricCell(mean)
    means = sorted(
        math.fsum(rng.choice(values) for _ in values) / len(values) for _ in range(resamples)
    )
    return hp.MetricCell(mean, means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1])


def _p_value(diffs: Sequence[float]) -> float:
    n = len(diffs)
    mean = math.fsum(diffs) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / max(1, n - 1))
    if sd == 0:
        return 1.0 if mean == 0 else 0.0
    return math.erfc(abs(mean) / (sd / math.sqrt(n)) / math.sqrt(2))


def _holm(ps: Sequence[float]) -> list[float]:
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - k) * ps[i]))
        out[i] = running
    return out


def _rows(golden: Sequence[Golden]) -> list[hp.QueryRow]:
    rng = random.Random(13)
    pool = sorted({d for q in golden for d in q.grades} | {f"listing-{i:02d}" for i in range(40)})
    rows = []
    for configuration in CONFIGURATIONS:
        for q in golden:
            ranked = rank(q, configuration, rng, pool)
            values = metrics(ranked, q.grades)
            outcome, reason = _outcome(q, values, configuration, rng)
            if outcome == "skipped":  # a skipped item has no scores (CONTRACT section 4)
                values, ranked = dict.fromkeys(METRICS), []
            ids = [hp.RankedId(d, q.grades.get(d)) for d in ranked]
            moves = _moves(q, ranked, rng) if configuration == "fused" else ()
            rows.append(
                hp.QueryRow(
                    configuration, q.id, q.category, outcome, values, ids, reason, moves, q.text
                )
            )
    return rows


def _outcome(
    q: Golden, values: Mapping[str, float | None], configuration: str, rng: random.Random
) -> tuple[str, str | None]:
    mrr = values["mrr"] or 0.0
    if q.category == "exact-name" and mrr < 1.0:
        return "failed", f"expect mrr >= 1.0, got {mrr:.3f}"
    if configuration == "dense" and q.category == "no-result" and rng.random() < 0.15:
        return "error", "retriever raised TimeoutError: dense index did not answer in 2.0 s"
    if q.category == "filtered" and rng.random() < 0.06:
        return "skipped", "filter 'network: solana' not supported by this configuration"
    return "passed", None


def _moves(q: Golden, ranked: Sequence[str], rng: random.Random) -> list[hp.RankMove]:
    judged = [d for d in ranked if q.grades.get(d, 0) > 0]
    if not judged or rng.random() > 0.3:
        return []
    d = judged[0]
    now = ranked.index(d) + 1
    before = max(1, now + rng.choice([-3, -2, -1, 1, 2]))
    return [hp.RankMove(d, before, now, q.grades[d])]


def _means(rows: Sequence[hp.QueryRow]) -> list[hp.CategoryMeans]:
    rng = random.Random(7)
    out = []
    for configuration in CONFIGURATIONS:
        mine = [r for r in rows if r.configuration == configuration and r.outcome != "skipped"]
        categories = sorted({r.category for r in mine})
        for category in [*categories, "all"]:
            part = [r for r in mine if category in ("all", r.category)]
            cells = {
                m: bootstrap([v for r in part if (v := r.metrics.get(m)) is not None], rng)
                for m in METRICS
            }
            out.append(hp.CategoryMeans(configuration, category, len(part), cells))
    return out


def _differences(rows: Sequence[hp.QueryRow]) -> list[tuple[str, str, str, list[float]]]:
    """(configuration, category, metric, per-query differences from bm25) for each row."""
    by_key = {(r.configuration, r.id): r for r in rows}
    out = []
    for configuration in CONFIGURATIONS[1:]:
        for category in ["all", *sorted({r.category for r in rows})]:
            ids = [
                r.id for r in rows if r.configuration == "bm25" and category in ("all", r.category)
            ]
            for m in METRICS:
                diffs = [
                    (by_key[(configuration, i)].metrics[m] or 0.0)
                    - (by_key[("bm25", i)].metrics[m] or 0.0)
                    for i in ids
                ]
                out.append((configuration, category, m, diffs))
    return out


def _comparisons(rows: Sequence[hp.QueryRow]) -> list[hp.ComparisonRow]:
    rng = random.Random(11)
    raw = _differences(rows)
    holm = _holm([_p_value(diffs) for *_, diffs in raw])
    out = []
    for (configuration, category, m, diffs), p in zip(raw, holm, strict=True):
        cell = bootstrap(diffs, rng)
        counts = (sum(d > 0 for d in diffs), sum(d == 0 for d in diffs), sum(d < 0 for d in diffs))
        out.append(
            hp.ComparisonRow(
                configuration, category, m, cell.value, cell.lo, cell.hi, p, p < 0.05, *counts
            )
        )
    return out


def _trend() -> list[hp.TrendChart]:
    """Nine nightly runs (one without a value) of each configuration's ndcg@10."""
    values = [0.742, 0.751, 0.748, 0.77, 0.781, None, 0.779, 0.802, 0.796]
    lines = []
    for i, configuration in enumerate(CONFIGURATIONS):
        shift = (-0.17, -0.02, 0.0)[i]
        points = [
            TrendPoint(
                f"c0ffee{120 + k}"[:7],
                f"2025-11-{3 + 3 * k:02d}",
                None if v is None else v + shift,
                None if v is None else v + shift - 0.085,
                None if v is None else min(1.0, v + shift + 0.08),
            )
            for k, v in enumerate(values)
        ]
        lines.append(TrendLine(configuration, points))
    return [hp.TrendChart("ndcg@10", "nightly", lines, "9 runs")]


VERDICT_TEXT = """\
retrieval gate: FAILED (baseline golden/baseline.json, tolerance 0.02)
  fused / paraphrase / ndcg@10 0.652 -> 0.587 (-0.065, allowed 0.020),
    worst: para-cheap-flights, para-weather-umbrella
  fused / paraphrase / recall@20 0.861 -> 0.822 (-0.039, allowed 0.020)"""


@cache
def sample_page_data() -> hp.PageData:
    """The page data of a realistic run: 3 configurations x 5 categories x 72 queries.

    Built once per process (the bootstraps take a moment); it is frozen, and tests
    derive variants with ``dataclasses.replace``.
    """
    golden = load_golden()
    rows = _rows(golden)
    breached = [
        hp.BreachedRow("fused", "paraphrase", "ndcg@10", 0.652, 0.587, -0.065, 0.02),
        hp.BreachedRow("fused", "paraphrase", "recall@20", 0.861, 0.822, -0.039, 0.02),
    ]
    return hp.PageData(
        settings=(
            f"{len(golden)} golden queries from 5 files; gain exponential, relevance "
            "threshold 1, no-result queries scored by 'abstain'. Cells: mean [95% interval]."
        ),
        metrics=METRICS,
        configurations=CONFIGURATIONS,
        means=tuple(_means(rows)),
        queries=tuple(rows),
        verdict=hp.Verdict("failed", VERDICT_TEXT, breached),
        reference="bm25",
        comparisons=tuple(_comparisons(rows)),
        trends=tuple(_trend()),
        warnings=(
            "with 12-18 queries a category cannot resolve differences under about \u00b10.1",
            "exact-name is saturated on mrr for every configuration (means above 0.98)",
        ),
        generated="2025-12-01 08:40 UTC",
        latency=(
            hp.LatencyRow("bm25", 72, "0.41ms", "1.20ms", "3.05ms"),
            hp.LatencyRow("dense", 72, "4.12ms", "6.80ms", "9.31ms", "72 of 72"),
            hp.LatencyRow("fused", 72, "4.90ms", "8.02ms", "1004ms", "72 of 72"),
        ),
    )
