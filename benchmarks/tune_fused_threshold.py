"""Tune the fused retriever (demo/hybrid.py) on demo/threshold_tuning.yaml, and say how.

Two parameters, chosen one after the other, on the tuning queries only (they are
disjoint from golden/, so the golden run is a held-out check of the choice):

1. ``MIN_COVERAGE``, the share of the query a listing must cover for its BM25 rank to
   vote in the fusion: swept from 0.05 to 0.95 with abstention off; the score is the
   mean over the answerable kinds (paraphrase, keyword, adversarial, exact-name,
   filtered) of their mean nDCG@10. The value whose neighbourhood scores best wins
   (each grid point averaged with its two neighbours, so that a lone lucky point does
   not); on a tie, the middle of the tied values.
2. ``MIN_GAP``, the abstention threshold on (best filtered cosine - mean catalog cosine):
   swept from 0.000 to 0.400 at the chosen coverage; the score is the mean over all six
   kinds, a no-result query scoring 1 when the retriever abstains and 0 when it
   answers. Same smoothing, same rule for ties. Every kind weighs the same whatever its
   size, as the categories of a golden set do in a per-category report.

It then prints the trade-off that the second choice makes (paraphrase nDCG against
no-result refusals, threshold by threshold), and the tuning-set figures of bm25, dense
and the tuned fused per kind. The ranking metric is computed here, with the plugin's
conventions (exponential gain, log2 discount, ideal DCG from every judged grade), so the
script needs neither pytest nor golden/.

    python benchmarks/tune_fused_threshold.py
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TUNING_PATH = ROOT / "demo" / "threshold_tuning.yaml"
ANSWERABLE = ("paraphrase", "keyword", "adversarial", "exact-name", "filtered")
KINDS = (*ANSWERABLE, "no-result")
COVERAGE_GRID = [step / 100 for step in range(5, 96, 5)]
GAP_GRID = [step / 1000 for step in range(0, 401, 5)]

Ranker = Callable[[Sequence[Any]], list[list[tuple[str, float]]]]


@dataclass(frozen=True)
class TuningQuery:
    """One tuning query, with the attributes a demo retriever reads and its judgments."""

    id: str
    text: str
    category: str
    relevant: Mapping[str, int]
    filters: Mapping[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()


def load_tuning(path: Path = TUNING_PATH) -> list[TuningQuery]:
    """The tuning queries; ``category`` holds the kind (paraphrase, keyword, ...)."""
    import yaml

    with open(path, encoding="utf-8") as fh:
        entries = yaml.safe_load(fh)["queries"]
    out = []
    for i, entry in enumerate(entries, start=1):
        if entry["kind"] not in KINDS:
            raise ValueError(f"{path}: query {i}: unknown kind {entry['kind']!r}")
        out.append(
            TuningQuery(
                id=f"t{i:03d}",
                text=str(entry["query"]),
                category=str(entry["kind"]),
                relevant={str(k): int(v) for k, v in (entry.get("relevant") or {}).items()},
                filters=dict(entry.get("filters") or {}),
                tags=tuple(entry.get("tags") or ()),
            )
        )
    return out


def ndcg10(ranked: Sequence[str], relevant: Mapping[str, int]) -> float:
    """nDCG@10 as the plugin computes it; a query with nothing to find scores abstention."""
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:10]
    if not ideal:
        return 1.0 if not ranked else 0.0
    dcg = sum(
        (2 ** relevant.get(d, 0) - 1) / math.log2(r + 1) for r, d in enumerate(ranked[:10], 1)
    )
    return dcg / sum((2**g - 1) / math.log2(r + 1) for r, g in enumerate(ideal, 1))


def per_kind(
    queries: Sequence[TuningQuery], scores: Sequence[float], kinds: Sequence[str] = KINDS
) -> dict[str, float]:
    """Mean score of each kind."""
    out = {}
    for kind in kinds:
        values = [s for q, s in zip(queries, scores, strict=True) if q.category == kind]
        out[kind] = sum(values) / len(values)
    return out


def evaluate(queries: Sequence[TuningQuery], ranker: Ranker) -> list[float]:
    """nDCG@10 of every query, the retriever called through its batch protocol."""
    results = ranker(queries)
    return [ndcg10([d for d, _ in r], q.relevant) for q, r in zip(queries, results, strict=True)]


def smoothed(objective: Sequence[float]) -> list[float]:
    """Each grid point's objective averaged with its two neighbours (one at the edges).

    With a few dozen queries per kind, one query moving one rank changes a kind's mean
    by a few thousandths: a lone grid point that beats its neighbours is that kind of
    luck. A value whose neighbourhood is good is the one to ship.
    """
    out = []
    for i in range(len(objective)):
        window = objective[max(0, i - 1) : i + 2]
        out.append(sum(window) / len(window))
    return out


def best_of(grid: Sequence[float], objective: Sequence[float]) -> float:
    """The grid value with the best smoothed objective; on a tie, the middle of the ties."""
    smooth = smoothed(objective)
    best = max(smooth)
    tied = [x for x, o in zip(grid, smooth, strict=True) if o >= best - 1e-12]
    return tied[len(tied) // 2]


def check_paraphrases(queries: Sequence[TuningQuery], lexical: Any) -> list[str]:
    """Paraphrase queries that share a content word with a listing graded 3."""
    from demo.lexical import tokenize

    by_id = {x.id: x for x in lexical.listings}
    problems = []
    for q in queries:
        if q.category != "paraphrase":
            continue
        words = set(tokenize(q.text))
        for doc_id, grade in q.relevant.items():
            listing = by_id[doc_id]
            shared = words & set(tokenize(f"{listing.name} {listing.description}"))
            if grade == 3 and shared:
                problems.append(f"{q.text!r} shares {sorted(shared)} with {doc_id}")
    return problems


def tune_coverage(queries: Sequence[TuningQuery], bm25: Any, dense: Any) -> float:
    """Step 1: sweep MIN_COVERAGE with abstention off; print the sweep, return the choice."""
    from demo.hybrid import FusedRetriever

    print("\nstep 1: MIN_COVERAGE, abstention off; mean nDCG@10 of the answerable kinds")
    answerable = [q for q in queries if q.category in ANSWERABLE]
    objective = []
    for value in COVERAGE_GRID:
        fused = FusedRetriever(bm25, dense, min_coverage=value, min_gap=-math.inf)
        kinds = per_kind(answerable, evaluate(answerable, fused.retrieve_batch), ANSWERABLE)
        objective.append(sum(kinds.values()) / len(kinds))
        cells = "  ".join(f"{k} {v:.3f}" for k, v in kinds.items())
        print(f"  {value:.2f}  {cells}  mean {objective[-1]:.4f}")
    chosen = best_of(COVERAGE_GRID, objective)
    at = objective[COVERAGE_GRID.index(chosen)]
    print(f"  chosen MIN_COVERAGE = {chosen:.2f} (mean {at:.4f}, best neighbourhood)")
    return chosen


def gaps_and_rankings(
    queries: Sequence[TuningQuery], bm25: Any, dense: Any, coverage: float
) -> tuple[list[float], list[float]]:
    """Per query: its dense gap, and the nDCG@10 of the fused ranking if it answers."""
    from demo.hybrid import FusedRetriever

    fused = FusedRetriever(bm25, dense, min_coverage=coverage, min_gap=-math.inf)
    gaps, answered = [], []
    for q, scores in zip(queries, dense.batch_scores(queries), strict=True):
        ranked = dense.rank_scores(q, scores)
        gap = fused.gap(ranked, scores)
        gaps.append(-math.inf if gap is None else gap)
        answered.append(ndcg10([d for d, _ in fused.fuse(q, ranked)][:20], q.relevant))
    return gaps, answered


def scores_at(
    queries: Sequence[TuningQuery], gaps: Sequence[float], answered: Sequence[float], t: float
) -> list[float]:
    """Per-query nDCG@10 when the fused retriever abstains below gap t."""
    return [
        (0.0 if g >= t else 1.0) if q.category == "no-result" else (a if g >= t else 0.0)
        for q, g, a in zip(queries, gaps, answered, strict=True)
    ]


def tune_gap(queries: Sequence[TuningQuery], bm25: Any, dense: Any, coverage: float) -> float:
    """Step 2: sweep MIN_GAP at the chosen coverage; print the trade-off, return the choice."""
    gaps, answered = gaps_and_rankings(queries, bm25, dense, coverage)
    objective = [
        sum(per_kind(queries, scores_at(queries, gaps, answered, t)).values()) / len(KINDS)
        for t in GAP_GRID
    ]
    chosen = best_of(GAP_GRID, objective)
    para = [g for q, g in zip(queries, gaps, strict=True) if q.category == "paraphrase"]
    none = [g for q, g in zip(queries, gaps, strict=True) if q.category == "no-result"]
    above = sum((p > n) + 0.5 * (p == n) for p in para for n in none) / (len(para) * len(none))
    print(f"\n  the gap ranks a paraphrase above a no-result query {above:.0%} of the time (AUC)")
    shown = [k for k in KINDS if k != "no-result"]
    print(f"step 2: MIN_GAP at that coverage; mean nDCG@10 of the {len(KINDS)} kinds")
    print("  (no-result: refused / all, then everyday + near-service; answerable: nDCG@10)")
    print("  gap  " + "".join(f"{k:>12}" for k in shown) + "   no-result refused       mean")
    for t, value in zip(GAP_GRID, objective, strict=True):
        if round(t * 1000) % 20 and t != chosen:
            continue
        kinds = per_kind(queries, scores_at(queries, gaps, answered, t))
        refused = [
            ("near" in q.tags, g < t)
            for q, g in zip(queries, gaps, strict=True)
            if q.category == "no-result"
        ]
        near = sum(r for n, r in refused if n)
        everyday = sum(r for n, r in refused if not n)
        mark = "  <- chosen" if t == chosen else ""
        print(
            f"  {t:.3f}" + "".join(f"{kinds[k]:>12.3f}" for k in shown)
            + f"   {near + everyday:2d}/{len(refused)} ({everyday:2d} + {near:2d})"
            + f"   {value:.4f}{mark}"
        )  # fmt: skip
    at = objective[GAP_GRID.index(chosen)]
    print(f"  chosen MIN_GAP = {chosen:.3f} (mean {at:.4f}, best neighbourhood)")
    return chosen


def report(queries: Sequence[TuningQuery], rankers: Mapping[str, Ranker]) -> None:
    """The tuning-set figures: nDCG@10 per kind and abstentions, per configuration."""
    print("\ntuning-set figures (nDCG@10; abstained = empty result lists)")
    print(f"  {'configuration':<14}" + "".join(f"{k:>12}" for k in KINDS) + "   abstained")
    for name, ranker in rankers.items():
        results = ranker(queries)
        scores = [
            ndcg10([d for d, _ in r], q.relevant) for q, r in zip(queries, results, strict=True)
        ]
        kinds = per_kind(queries, scores)
        empty = {k: 0 for k in KINDS}
        for q, r in zip(queries, results, strict=True):
            empty[q.category] += not r
        counts = ", ".join(f"{k} {empty[k]}" for k in ("no-result", "paraphrase"))
        print(f"  {name:<14}" + "".join(f"{kinds[k]:>12.3f}" for k in KINDS) + f"   {counts}")


def main() -> int:
    os.environ["HF_HUB_OFFLINE"] = "1"
    from demo import build_retriever, hybrid

    queries = load_tuning()
    counts = {k: sum(q.category == k for q in queries) for k in KINDS}
    near = sum("near" in q.tags for q in queries)
    print(f"{len(queries)} tuning queries from {TUNING_PATH.relative_to(ROOT)}: "
          + ", ".join(f"{v} {k}" for k, v in counts.items())
          + f" ({near} of the no-result ones next to a catalog service)")  # fmt: skip
    bm25, dense = build_retriever("bm25"), build_retriever("dense")
    for problem in check_paraphrases(queries, bm25):
        print(f"  warning: paraphrase {problem}")
    coverage = tune_coverage(queries, bm25, dense)
    gap = tune_gap(queries, bm25, dense, coverage)
    fused = hybrid.FusedRetriever(bm25, dense, min_coverage=coverage, min_gap=gap)
    old = hybrid.FusedRetriever(bm25, dense, min_coverage=0.0, min_gap=-math.inf)
    report(
        queries,
        {"bm25": bm25.retrieve_batch, "dense": dense.retrieve_batch,
         "plain RRF": old.retrieve_batch, "fused (tuned)": fused.retrieve_batch},
    )  # fmt: skip
    shipped = (hybrid.MIN_COVERAGE, hybrid.MIN_GAP)
    agree = "agree" if shipped == (coverage, gap) else "DIFFER: update demo/hybrid.py"
    print(f"\ndemo/hybrid.py ships MIN_COVERAGE = {shipped[0]:.2f}, ", end="")
    print(f"MIN_GAP = {shipped[1]:.3f}: {agree}")
    return 0 if shipped == (coverage, gap) else 1


if __name__ == "__main__":
    raise SystemExit(main())
