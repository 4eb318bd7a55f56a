"""The ``fused`` configuration: reciprocal rank fusion of bm25 and dense, with abstention.

Fusion: each listing scores ``1 / (RRF_K + dense rank)``, plus ``1 / (RRF_K + lexical
rank)`` when BM25 matched it, ranks counted from 1, RRF_K = 60 (the constant of Cormack
et al.); ties are broken by the lexical rank, then the catalog order. The lexical
ranking takes part only when it is evidence: when its best-covering match holds at least
``MIN_COVERAGE`` of the query (the IDF-weighted share of the query's terms a listing
contains, see ``BM25FRetriever.coverage``). Otherwise the dense ranking stands alone.

Why the condition: plain RRF gives BM25's first listing 1/61 whatever it matched. On a
paraphrase ("how gusty will it be for sailing on Sunday") BM25's only matches are stray
words, and a stray match fused with dense's rank 3 outranked dense's correct rank 1. A
query whose words a listing largely contains (a name, a description's terms) is one
where BM25 knows something, and there its whole ranking votes, keyword-stuffed copies
pushed down by BM25F's defenses: that is what lets fusion beat dense on exact names and
on stuffed near-duplicates. The decision is per query, not per listing, because a
stuffed copy contains every keyword by construction: a per-listing coverage test would
keep the copy's vote and drop the genuine listing's.

Abstention: the fused list is returned only when the best dense cosine among the
listings that pass the filters stands out from the query's mean cosine over the whole
catalog by at least ``MIN_GAP``; otherwise the retriever returns an empty list, which is
how a no-result query ("book me a haircut for Thursday") is answered correctly. The
gate is on dense cosines, not on the fused score, because an RRF score only encodes
ranks. It is on the gap rather than on the best cosine itself because all-MiniLM-L6-v2
gives some queries high cosines with everything (generic wording) and others low
cosines with everything (indirect wording): subtracting the query's own mean cosine
calibrates that away. See MIN_GAP for how well it works and where it stops.

Hard filters (network, asset, max_price) are applied before ranking, in both component
rankings: the search API enforces them whatever the ranker, so a listing that fails one
is never returned.

Two ways in, as for the other configurations: ``retriever(query)`` for one query and
``retriever.retrieve_batch(queries)`` for several (one batched encode, the same results).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .catalog import query_text
from .dense import DenseRetriever
from .lexical import BM25FRetriever

RRF_K = 60

# Both values are tuned on demo/threshold_tuning.yaml (157 queries written for tuning,
# none of them in golden/ or reworded from it) by benchmarks/tune_fused_threshold.py,
# which prints the sweep behind each one.
#
# MIN_COVERAGE: the best mean nDCG@10 over the answerable tuning kinds (paraphrase,
# keyword, adversarial, exact-name, filtered) with abstention off. Below about 0.2 stray
# matches come back into paraphrase rankings (paraphrase 0.64 at 0.05, 0.84 at 0.25,
# dense alone 0.87); far above it BM25 stops voting on queries with a few words it does
# not know ("in Ohio"), and fusion loses what it adds on stuffed near-duplicates. Every
# value from 0.20 to 0.70 is within 0.005 of the best: the choice is not delicate.
MIN_COVERAGE = 0.25

# MIN_GAP: the best mean nDCG@10 over the six tuning kinds, a no-result query scoring 1
# when the retriever abstains. There it refuses 36 of 53 no-result tuning queries (29 of
# 33 everyday requests, 7 of the 20 next to a catalog service) and 4 of 42 paraphrases;
# paraphrase nDCG@10 0.76 against dense's 0.87. With this model no value meets both
# "refuse 80% of no-result queries" and "stay within 0.05 of dense on paraphrase": the
# gaps of the two groups overlap (the gap ranks a paraphrase above a no-result query
# only 80% of the time), so each step up refuses paraphrases along with nonsense. The
# tuning script prints the whole trade-off.
MIN_GAP = 0.175


class FusedRetriever:
    """Coverage-gated RRF(bm25, dense) with a dense-gap abstention rule (see module docs)."""

    name = "fused"

    def __init__(
        self,
        lexical: BM25FRetriever,
        dense: DenseRetriever,
        *,
        k: int = RRF_K,
        min_coverage: float = MIN_COVERAGE,
        min_gap: float = MIN_GAP,
        top_k: int = 20,
    ) -> None:
        self.lexical = lexical
        self.dense = dense
        self.k = k
        self.min_coverage = min_coverage
        self.min_gap = min_gap
        self.top_k = top_k
        self._position = {doc_id: i for i, doc_id in enumerate(dense.ids)}
        # what pytest-retrieval records in the baseline, the reports and the history log
        self.metadata = {
            "fusion": f"reciprocal rank fusion, k={k}",
            "min_coverage": min_coverage,
            "min_gap": min_gap,
            "model": dense.metadata["model"],
            "catalog_sha256": dense.metadata["catalog_sha256"],
        }

    @staticmethod
    def gap(dense_ranked: Sequence[tuple[str, float]], scores: np.ndarray) -> float | None:
        """Best cosine among the filtered candidates minus the query's mean catalog cosine.

        None when no listing passes the filters. The mean is over the whole catalog, not
        the filtered part, so that a narrow filter does not move the query's baseline.
        """
        if not dense_ranked:
            return None
        return float(dense_ranked[0][1]) - float(np.mean(scores))

    def lexical_strength(self, query: Any, lexical_ranked: Sequence[tuple[str, float]]) -> float:
        """The best coverage of the query among the listings BM25 matched (0 if none)."""
        if not lexical_ranked:
            return 0.0
        coverage = self.lexical.coverage(query_text(query))
        return max(float(coverage[self._position[doc_id]]) for doc_id, _ in lexical_ranked)

    def fuse(
        self, query: Any, dense_ranked: Sequence[tuple[str, float]]
    ) -> list[tuple[str, float]]:
        """RRF of the dense ranking given and the query's lexical one, if that one is strong."""
        lexical_ranked = self.lexical.rank(query)
        if self.lexical_strength(query, lexical_ranked) < self.min_coverage:
            lexical_ranked = []
        fused = {doc_id: 1.0 / (self.k + rank) for rank, (doc_id, _) in enumerate(dense_ranked, 1)}
        lexical_rank: dict[str, int] = {}
        for rank, (doc_id, _) in enumerate(lexical_ranked, start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + 1.0 / (self.k + rank)
            lexical_rank[doc_id] = rank
        no_rank = len(self._position) + 1
        order = sorted(
            fused,
            key=lambda d: (-fused[d], lexical_rank.get(d, no_rank), self._position[d]),
        )
        return [(doc_id, fused[doc_id]) for doc_id in order]

    def rank_scores(
        self, query: Any, scores: np.ndarray, limit: int | None = None
    ) -> list[tuple[str, float]]:
        """The fused ranking for a query whose dense cosines are given, or [] to abstain.

        Shared by the single and the batch path, so both decide and rank identically.
        """
        dense_ranked = self.dense.rank_scores(query, scores)
        gap = self.gap(dense_ranked, scores)
        if gap is None or gap < self.min_gap:
            return []
        out = self.fuse(query, dense_ranked)
        return out if limit is None else out[:limit]

    def rank(self, query: Any, limit: int | None = None) -> list[tuple[str, float]]:
        """The fused ranking of one query, or [] when it abstains."""
        return self.rank_scores(query, self.dense.scores(query_text(query)), limit)

    def __call__(self, query: Any) -> list[tuple[str, float]]:
        """One query: up to ``top_k`` ``(listing_id, fused score)`` pairs, or []."""
        return self.rank(query, self.top_k)

    def retrieve_batch(self, queries: Sequence[Any]) -> list[list[tuple[str, float]]]:
        """Several queries at once: the dense side encodes them in one call, then each ranks."""
        return [
            self.rank_scores(q, scores, self.top_k)
            for q, scores in zip(queries, self.dense.batch_scores(queries), strict=True)
        ]

    def explain(self, query: Any) -> dict[str, Any]:
        """Why the fused retriever answered or abstained (for scripts and debugging)."""
        scores = self.dense.scores(query_text(query))
        dense_ranked = self.dense.rank_scores(query, scores, limit=1)
        gap = self.gap(dense_ranked, scores)
        strength = self.lexical_strength(query, self.lexical.rank(query))
        return {
            "query": query_text(query),
            "best_cosine": dense_ranked[0][1] if dense_ranked else None,
            "mean_cosine": float(np.mean(scores)),
            "gap": gap,
            "min_gap": self.min_gap,
            "abstained": gap is None or gap < self.min_gap,
            "lexical_strength": strength,
            "lexical_votes": strength >= self.min_coverage,
        }
