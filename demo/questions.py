"""Example questions per listing (demo/questions.yaml), embedded once, for the fused ranker.

A bi-encoder such as all-MiniLM-L6-v2 is trained mostly on pairs of similar sentences
and on question/answer pairs: it puts two ways of asking the same thing close together
more reliably than it puts a question next to a product description. So besides the
listing's own text the fused retriever compares a query with the questions a listing
answers, written in a user's words (document expansion with example queries). A
listing's question similarity is its best question's cosine, clipped at 0; a question
counts for the listing it is written for and for that listing's same-name twins on other
networks, never for a keyword-stuffed copy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .catalog import Listing

QUESTIONS_PATH = Path(__file__).resolve().parent / "questions.yaml"
CACHE_LABEL = "questions"


def load_questions(path: str | Path | None = None) -> dict[str, list[str]]:
    """The example questions, by listing id."""
    import yaml

    with open(Path(path) if path is not None else QUESTIONS_PATH, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return {str(k): [str(q) for q in v] for k, v in data.items()}


def membership(listings: Sequence[Listing], questions: Mapping[str, Sequence[str]]) -> np.ndarray:
    """A (listings x questions) boolean matrix: which questions speak for which listing."""
    by_id = {x.id: x for x in listings}
    unknown = sorted(set(questions) - set(by_id))
    if unknown:
        raise ValueError(f"example questions for unknown listings: {unknown}")
    owners = [by_id[listing_id].name for listing_id, texts in questions.items() for _ in texts]
    return np.array([[x.name == owner for owner in owners] for x in listings], dtype=bool)


class QuestionIndex:
    """The example questions' embeddings and, per query vector, each listing's best match."""

    def __init__(
        self,
        listings: Sequence[Listing],
        model: Any,
        *,
        questions: Mapping[str, Sequence[str]] | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        from .dense import catalog_embeddings

        questions = load_questions() if questions is None else questions
        self.texts = [text for texts in questions.values() for text in texts]
        self.member = membership(listings, questions)
        self.matrix = catalog_embeddings(model, self.texts, cache_dir, CACHE_LABEL)

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        """Per listing (catalog order): the best cosine of its questions to the query, >= 0."""
        # elementwise, not `@`, for the same reason as DenseRetriever.similarities
        cosines = np.maximum((self.matrix * vector).sum(axis=1), 0.0)
        return np.where(self.member, cosines[None, :], 0.0).max(axis=1)
