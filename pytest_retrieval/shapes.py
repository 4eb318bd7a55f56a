"""Turn whatever a retriever returned into a ranked list of ids (CONTRACT §2).

A result is an id (str), an ``(id, score)`` pair, a mapping with an ``"id"``
key, or an object with an ``.id`` attribute; rank order is the order returned.
Anything else is a :class:`ResultShapeError` whose message names what came back.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any


class ResultShapeError(TypeError):
    """The retriever returned something that is not a ranked sequence of results."""


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{type(value).__name__} {text}"


def _result_id(result: Any, rank: int) -> str:
    if isinstance(result, str):
        doc = result
    elif isinstance(result, Mapping):
        if "id" not in result:
            raise ResultShapeError(
                f"result at rank {rank} is a mapping without an 'id' key: {_describe(result)}"
            )
        doc = result["id"]
    elif "id" in getattr(result, "_fields", ()):  # a namedtuple with an id field
        doc = result.id
    elif isinstance(result, numbers.Integral) and not isinstance(result, bool):
        return str(int(result))  # a bare integer id, numpy's int64 included
    elif isinstance(result, tuple) and len(result) == 2:
        if result[1] is not None and not isinstance(result[1], numbers.Real):
            raise ResultShapeError(
                f"result at rank {rank} is a pair whose second item is not a score: "
                f"{_describe(result)}; return ids or (id, score) pairs "
                "(list(enumerate(ids)) gives (position, id) pairs)"
            )
        doc = result[0]
    elif isinstance(result, list) and len(result) == 2 and isinstance(result[1], numbers.Real):
        doc = result[0]  # an [id, score] pair, as JSON gives it
    elif hasattr(result, "id") and not isinstance(result, (bytes, int, float)):
        doc = result.id
    else:
        raise ResultShapeError(
            f"result at rank {rank} is not an id, an (id, score) pair, a mapping with 'id' "
            f"or an object with .id: {_describe(result)}"
        )
    if isinstance(doc, str):
        return doc
    if isinstance(doc, numbers.Integral) and not isinstance(doc, bool):
        return str(int(doc))  # 42, or numpy's int64 from a vector index
    raise ResultShapeError(f"result at rank {rank} has an id that is not text: {_describe(doc)}")


def ranked_ids(returned: Any) -> list[str]:
    """The ids of a retriever's results, in the order returned (duplicates kept)."""
    if returned is None:
        raise ResultShapeError("the retriever returned None; return a ranked list of results")
    if isinstance(returned, (str, bytes)):
        raise ResultShapeError(
            f"the retriever returned a bare string ({_describe(returned)}); "
            "return a list of results, e.g. [doc_id, ...]"
        )
    if isinstance(returned, Mapping):
        raise ResultShapeError(
            f"the retriever returned a mapping ({_describe(returned)}), which has no rank "
            "order; return a list such as [(doc_id, score), ...]"
        )
    if hasattr(returned, "columns") and hasattr(returned, "itertuples"):
        raise ResultShapeError(
            f"the retriever returned a {type(returned).__name__} (iterating it gives its column "
            "names, not results); return df['id'].tolist() or list(df.itertuples())"
        )
    if isinstance(returned, (set, frozenset)):
        raise ResultShapeError(
            f"the retriever returned a set ({_describe(returned)}), which has no rank order; "
            "return a list"
        )
    if not isinstance(returned, (Sequence, Iterable)) or isinstance(returned, (int, float)):
        raise ResultShapeError(
            f"the retriever returned {_describe(returned)}, not a ranked sequence of results"
        )
    return [_result_id(result, rank) for rank, result in enumerate(returned, start=1)]


def _score_of(result: Any) -> float | None:
    """A result's score, when it carries one: (id, score), {"score": ...}, ``.score``."""
    if isinstance(result, (tuple, list)) and len(result) == 2:
        score = result[1]
    elif isinstance(result, Mapping):
        score = result.get("score")
    else:
        score = getattr(result, "score", None)
    if isinstance(score, numbers.Real) and not isinstance(score, bool):
        value = float(score)
        return value if math.isfinite(value) else None
    return None


def ranked_results(returned: Any) -> tuple[list[str], list[float | None]]:
    """The ids of a retriever's results and their scores (None where a result has none),
    in the order returned: what a recording keeps."""
    ids = ranked_ids(returned)
    if isinstance(returned, Iterator):  # pragma: no cover - callers pass consumed values
        raise TypeError("consume the generator first")
    return ids, [_score_of(result) for result in returned]


def dedupe(ids: Sequence[str]) -> tuple[list[str], int]:
    """Keep each id at its first rank; return the ranking and how many repeats were dropped."""
    seen: set[str] = set()
    ranking: list[str] = []
    for doc in ids:
        if doc not in seen:
            seen.add(doc)
            ranking.append(doc)
    return ranking, len(ids) - len(ranking)
