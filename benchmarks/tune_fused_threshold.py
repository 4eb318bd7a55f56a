"""Tune the fused retriever (demo/hybrid.py) on demo/threshold_tuning.yaml, and say how.

Three parameters, on the tuning queries only (disjoint from golden/, so the golden run is
a held-out check of the choice):

1. ``QUESTION_WEIGHT`` (how much a listing's best example question, demo/questions.yaml,
   adds to its text's cosine) and ``MIN_COVERAGE`` (the share of the query a listing
   must cover for BM25's ranking to vote in the fusion), swept together with abstention
   off; the score is the mean over the answerable kinds (paraphrase, keyword,
   adversarial, exact-name, filtered) of their mean nDCG@10; the best pair wins.
2. ``MIN_SIMILARITY``, the abstention threshold on the best combined similarity among
   the listings that pass the filters, chosen the way the target is put: the highest
   value at which fused's paraphrase nDCG@10 stays within ``PARAPHRASE_BUDGET`` of
   dense's. The budget is half the target's 0.05: the other half is kept for the move
   from these queries to golden/. The trade-off is printed threshold by threshold.
3. Then every abstention signal that was tried, each given its threshold by the same
   rule on the round-1 queries and scored on round 2 (written later, see the tuning
   file), so that a signal fit to queries it was written next to shows it.

nDCG@10 is computed here with the plugin's conventions (exponential gain, log2 discount,
ideal DCG from every judged grade; a query with nothing to find scores 1 when the
retriever abstains), so the script needs neither pytest nor golden/.

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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TUNING_PATH = ROOT / "demo" / "threshold_tuning.yaml"
BACKGROUND_PATH = Path(__file__).resolve().parent / "background_services.yaml"
ANSWERABLE = ("paraphrase", "keyword", "adversarial", "exact-name", "filtered")
KINDS = (*ANSWERABLE, "no-result")
WEIGHT_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
COVERAGE_GRID = tuple(step / 100 for step in range(5, 96, 10))
PARAPHRASE_BUDGET = 0.025

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
    round: int = 1


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
                round=int(entry.get("round", 1)),
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


def evaluate(queries: Sequence[TuningQuery], ranker: Ranker) -> np.ndarray:
    """nDCG@10 of every query, the retriever called through its batch protocol."""
    results = ranker(queries)
    return np.array(
        [ndcg10([d for d, _ in r], q.relevant) for q, r in zip(queries, results, strict=True)]
    )


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


def fused_at(parts: Mapping[str, Any], **settings: float) -> Any:
    from demo.hybrid import FusedRetriever

    settings = {"min_similarity": -math.inf, **settings}
    return FusedRetriever(parts["bm25"], parts["dense"], parts["questions"], **settings)


def tune_ranking(queries: Sequence[TuningQuery], parts: Mapping[str, Any]) -> tuple[float, float]:
    """Step 1: QUESTION_WEIGHT x MIN_COVERAGE, abstention off; print the grid, return the best."""
    answerable = [q for q in queries if q.category in ANSWERABLE]
    print("\nstep 1: QUESTION_WEIGHT x MIN_COVERAGE, abstention off")
    print("  mean nDCG@10 of the answerable kinds (paraphrase nDCG@10 in brackets)")
    print("  weight " + "".join(f"{c:>15.2f}" for c in COVERAGE_GRID))
    best, chosen = -1.0, (0.0, 0.0)
    for weight in WEIGHT_GRID:
        cells = []
        for coverage in COVERAGE_GRID:
            fused = fused_at(parts, question_weight=weight, min_coverage=coverage)
            kinds = per_kind(answerable, evaluate(answerable, fused.retrieve_batch), ANSWERABLE)
            mean = sum(kinds.values()) / len(kinds)
            cells.append(f"{mean:.3f} ({kinds['paraphrase']:.3f})")
            if mean > best + 1e-9:
                best, chosen = mean, (weight, coverage)
        print(f"  {weight:6.2f} " + "".join(f"{c:>15}" for c in cells))
    print(f"  chosen QUESTION_WEIGHT = {chosen[0]:.2f}, MIN_COVERAGE = {chosen[1]:.2f}")
    return chosen


@dataclass
class Signals:
    """Per tuning query: what the fused ranking scores if it answers, and every signal."""

    queries: list[TuningQuery]
    answered: np.ndarray  # nDCG@10 of the fused ranking when it answers
    dense: np.ndarray  # nDCG@10 of the dense configuration
    values: dict[str, np.ndarray]  # abstention signals, higher = answer


def abstains(signal: np.ndarray, threshold: float) -> np.ndarray:
    return np.asarray(signal < threshold)


def outcome(s: Signals, signal: np.ndarray, t: float, where: np.ndarray) -> dict[str, float]:
    """Paraphrase nDCG@10 (fused, dense) and refusals of the queries in ``where`` at t."""
    kind = np.array([q.category for q in s.queries])
    refuse = abstains(signal, t)
    para, none = where & (kind == "paraphrase"), where & (kind == "no-result")
    return {
        "fused": float(np.where(refuse, 0.0, s.answered)[para].mean()),
        "dense": float(s.dense[para].mean()),
        "refused": int(refuse[none].sum()),
        "no_result": int(none.sum()),
        "para_refused": int(refuse[para].sum()),
    }


def safe_threshold(s: Signals, signal: np.ndarray, where: np.ndarray) -> float:
    """The highest threshold that keeps fused's paraphrase nDCG@10 within the budget."""
    candidates = sorted({-math.inf, *signal[where].tolist()})
    ok = [
        t
        for t in candidates
        if (o := outcome(s, signal, t, where))["fused"] >= o["dense"] - PARAPHRASE_BUDGET
    ]
    return max(ok)


def logistic(features: np.ndarray, labels: np.ndarray, steps: int = 50) -> np.ndarray:
    """Class-balanced L2 logistic regression by Newton steps (numpy only); [b, w...]."""
    x = np.hstack([np.ones((len(features), 1)), features])
    weight = np.where(labels, 0.5 / labels.mean(), 0.5 / (1 - labels.mean()))
    beta = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (weight * (p - labels)) + 1e-3 * beta
        hess = (x * (weight * p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(x.shape[1])
        beta -= np.linalg.solve(hess, grad)
    return beta


def masked_max(values: np.ndarray, mask: np.ndarray) -> float:
    return float(values[mask].max()) if mask.any() else -math.inf


def cosine_signals(parts: Mapping[str, Any], queries: Sequence[TuningQuery], weight: float):
    """Per query: (filter mask, passage cosines, question similarities, combined)."""
    from demo.catalog import filter_mask

    dense, questions = parts["dense"], parts["questions"]
    vectors = dense.embed_queries([q.text for q in queries])
    rows = []
    for q, v in zip(queries, vectors, strict=True):
        mask = np.array(filter_mask(dense.listings, q.filters or None))
        cos, ask = dense.similarities(v), questions.similarities(v)
        rows.append((mask, cos, ask, cos + weight * ask))
    return rows


def background_margin(parts: Mapping[str, Any], queries: Sequence[TuningQuery], top1):
    """Top-1 cosine minus the best cosine to a list of services the catalog does not sell."""
    import yaml

    from demo.dense import encode

    with open(BACKGROUND_PATH, encoding="utf-8") as fh:
        services = [str(s) for s in yaml.safe_load(fh)]
    dense = parts["dense"]
    other = encode(dense.model, services)
    vectors = dense.embed_queries([q.text for q in queries])
    return top1 - np.array([float((other * v).sum(axis=1).max()) for v in vectors])


def signals(
    parts: Mapping[str, Any], queries: Sequence[TuningQuery], weight: float, coverage: float
) -> Signals:
    """Every abstention signal tried, per tuning query (higher = answer)."""
    rows = cosine_signals(parts, queries, weight)
    names = np.array([x.name for x in parts["dense"].listings])
    cos = np.stack([r[1] for r in rows])
    mu, sd = cos.mean(axis=0), cos.std(axis=0)  # per listing, over all tuning queries
    top1 = np.array([masked_max(c, m) for m, c, _, _ in rows])
    gap = top1 - cos.mean(axis=1)
    best = [int(np.argmax(np.where(m, c, -np.inf))) for m, c, _, _ in rows]
    other = [m & (names != names[b]) for (m, _, _, _), b in zip(rows, best, strict=True)]
    fused = fused_at(parts, question_weight=weight, min_coverage=coverage)
    agree = [
        bool(lex)
        and lex[0][0] == parts["dense"].ids[b]
        and fused.lexical_strength(q, lex) >= coverage
        for q, b in zip(queries, best, strict=True)
        for lex in [parts["bm25"].rank(q)]
    ]
    values = {
        "top-1 cosine": top1,
        "gap: top-1 - mean cosine (previous rule)": gap,
        "z-score of top-1 in the catalog": gap / cos.std(axis=1),
        "top-1 - best other service": top1
        - np.array([masked_max(c, o) for (_, c, _, _), o in zip(rows, other, strict=True)]),
        "listing z vs all tuning queries": np.array(
            [masked_max((c - mu) / sd, m) for m, c, _, _ in rows]
        ),
        "margin over background services": background_margin(parts, queries, top1),
        "gap, or BM25 and dense agree": gap + np.array(agree, dtype=float),
        "best example question": np.array([masked_max(a, m) for m, _, a, _ in rows]),
        "combined similarity (shipped)": np.array([masked_max(s, m) for m, _, _, s in rows]),
    }
    answered = evaluate(queries, fused.retrieve_batch)
    return Signals(
        list(queries), answered, evaluate(queries, parts["dense"].retrieve_batch), values
    )


def add_logistic(s: Signals, fit_on: np.ndarray) -> None:
    """A logistic rule on three signals, fit on ``fit_on`` (answerable vs no-result)."""
    names = ("top-1 cosine", "gap: top-1 - mean cosine (previous rule)", "best example question")
    x = np.stack([s.values[n] for n in names], axis=1)
    answerable = np.array([q.category != "no-result" for q in s.queries], dtype=float)
    beta = logistic(x[fit_on], answerable[fit_on])
    s.values["logistic(top-1, gap, best question)"] = beta[0] + x @ beta[1:]


def compare_signals(s: Signals) -> None:
    """Step 3: each signal's threshold chosen on round 1, scored on round 2."""
    rounds = np.array([q.round for q in s.queries])
    first, second = rounds == 1, rounds == 2
    add_logistic(s, first)
    print(
        f"\nstep 3: abstention signals, threshold by the step-2 rule on round 1 "
        f"({int(first.sum())} queries), then round 2 ({int(second.sum())}) at that threshold"
    )
    print(
        f"  {'signal':<40} {'round 1: paraphrase  refused':>30}"
        f" {'round 2: paraphrase  refused':>30}"
    )
    for name, signal in s.values.items():
        t = safe_threshold(s, signal, first)
        cells = []
        for where in (first, second):
            o = outcome(s, signal, t, where)
            cells.append(f"{o['fused']:.3f}/{o['dense']:.3f}  {o['refused']:2d}/{o['no_result']}")
        print(f"  {name:<40} {cells[0]:>30} {cells[1]:>30}")
    print("  (paraphrase: fused/dense nDCG@10; refused: no-result queries answered with [])")


def tune_threshold(s: Signals) -> float:
    """Step 2: MIN_SIMILARITY on the whole tuning set; print the trade-off, return it."""
    signal = s.values["combined similarity (shipped)"]
    everywhere = np.ones(len(s.queries), dtype=bool)
    grid = [step / 200 for step in range(0, 301)]
    safe = [
        t
        for t in grid
        if (o := outcome(s, signal, t, everywhere))["fused"] >= o["dense"] - PARAPHRASE_BUDGET
    ]
    chosen = max(safe)
    rounds = np.array([q.round for q in s.queries])
    near = np.array(["near" in q.tags for q in s.queries])
    none = np.array([q.category == "no-result" for q in s.queries])
    print("\nstep 2: MIN_SIMILARITY, abstain below the best combined similarity")
    print(f"  highest value keeping paraphrase nDCG@10 within {PARAPHRASE_BUDGET} of dense")
    print(
        "  thresh  paraphrase (dense)  para refused  no-result refused: all  r1 everyday/near"
        "  r2 everyday/near"
    )
    for t in grid:
        if round(t * 200) % 8 and t != chosen:
            continue
        o = outcome(s, signal, t, everywhere)
        refused = abstains(signal, t)
        groups = [
            int((refused & none & (rounds == r) & (near == n)).sum())
            for r in (1, 2)
            for n in (False, True)
        ]
        sizes = [
            int((none & (rounds == r) & (near == n)).sum()) for r in (1, 2) for n in (False, True)
        ]
        mark = "  <- chosen" if t == chosen else ""
        print(
            f"  {t:6.3f}  {o['fused']:.3f} ({o['dense']:.3f})  {o['para_refused']:12d}"
            f"  {o['refused']:3d}/{o['no_result']}   "
            + "  ".join(f"{g:2d}/{n}" for g, n in zip(groups, sizes, strict=True))
            + mark
        )
        if t > chosen + 0.2:
            break
    print(f"  chosen MIN_SIMILARITY = {chosen:.3f}")
    return chosen


def report(queries: Sequence[TuningQuery], rankers: Mapping[str, Ranker]) -> None:
    """The tuning-set figures: nDCG@10 per kind and abstentions, per configuration."""
    print("\ntuning-set figures (nDCG@10; abstained = empty result lists)")
    print(f"  {'configuration':<18}" + "".join(f"{k:>12}" for k in KINDS) + "   abstained")
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
        print(f"  {name:<18}" + "".join(f"{kinds[k]:>12.3f}" for k in KINDS) + f"   {counts}")


def main() -> int:
    os.environ["HF_HUB_OFFLINE"] = "1"
    from demo import build_retriever, hybrid

    queries = load_tuning()
    counts = {k: sum(q.category == k for q in queries) for k in KINDS}
    print(
        f"{len(queries)} tuning queries from {TUNING_PATH.relative_to(ROOT)} "
        f"({sum(q.round == 2 for q in queries)} of them round 2): "
        + ", ".join(f"{v} {k}" for k, v in counts.items())
    )
    fused = build_retriever("fused")
    parts = {"bm25": fused.lexical, "dense": fused.dense, "questions": fused.questions}
    for problem in check_paraphrases(queries, parts["bm25"]):
        print(f"  warning: paraphrase {problem}")
    weight, coverage = tune_ranking(queries, parts)
    s = signals(parts, queries, weight, coverage)
    threshold = tune_threshold(s)
    compare_signals(s)
    tuned = fused_at(parts, question_weight=weight, min_coverage=coverage, min_similarity=threshold)
    report(
        queries,
        {
            "bm25": parts["bm25"].retrieve_batch,
            "dense": parts["dense"].retrieve_batch,
            "plain RRF": fused_at(parts, question_weight=0.0, min_coverage=0.0).retrieve_batch,
            "fused, no abstain": fused_at(
                parts, question_weight=weight, min_coverage=coverage
            ).retrieve_batch,
            "fused (tuned)": tuned.retrieve_batch,
        },
    )
    chosen = (weight, coverage, threshold)
    shipped = (hybrid.QUESTION_WEIGHT, hybrid.MIN_COVERAGE, hybrid.MIN_SIMILARITY)
    agree = "agree" if shipped == chosen else "DIFFER: update demo/hybrid.py"
    print(
        f"\ndemo/hybrid.py ships QUESTION_WEIGHT = {shipped[0]:.2f}, MIN_COVERAGE = "
        f"{shipped[1]:.2f}, MIN_SIMILARITY = {shipped[2]:.3f}: {agree}"
    )
    return 0 if shipped == chosen else 1


if __name__ == "__main__":
    raise SystemExit(main())
