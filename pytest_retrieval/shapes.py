"""Turn whatever a retriever returned into a ranked list of ids (CONTRACT §2).

A result is an id (str), an ``(id, score)`` pair, a mapping with an ``"id"``
key, or an object with an ``.id`` attribute; rank order is the order returned.
Anything else is a :class:`ResultShapeError` whose message names what came back.

A *key* function (the plugin's ``pytest_retrieval_result_key`` hook) may map each
result to the key judgments use (a chunk ``doc7#s2@v3`` to its clause ``doc7#s2``);
:func:`rank_results` keeps each key once, at its first rank.
"""

from __future__ import annotations

import decimal
import inspect
import itertools
import math
import numbers
import operator
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .metric_registry import exception_text, raised_at
from .quoting import with_article

# a result -> the key judgments use, or None to keep the result's id
ResultKey = Callable[[object], "str | None"]


class ResultShapeError(TypeError):
    """The retriever returned something that is not a ranked sequence of results."""


def _describe(value: Any) -> str:
    """``type repr``, on one line (an array's repr spans several) and cut at 80; a repr
    that names its type already (a dataclass's, a namedtuple's, a LangChain ``Document``'s:
    ``Chunk(page_content=...)``) is shown alone, not as ``Chunk Chunk(...)``."""
    name = type(value).__name__
    try:
        text = re.sub(r"\n\s*", " ", repr(value))  # (a string's repr has no line break)
    except ValueError:  # an integer past Python's limit on digits
        text = "(too long to show)"
    if len(text) > 80:
        text = text[:77] + "..."
    return text if text.startswith(f"{name}(") else f"{name} {text}"


# what a score may be: any real number (numpy's too), and a Decimal (a database's NUMERIC)
SCORES = (numbers.Real, decimal.Decimal)


def _result_id(result: Any, rank: int) -> str:
    if isinstance(result, str):
        doc = result
    elif isinstance(result, Mapping):
        if "id" not in result:
            raise ResultShapeError(
                f"result at rank {rank} is a mapping without an 'id' key: {_describe(result)}"
                f"{_mapping_fix(result)}"
            )
        doc = result["id"]
    elif "id" in getattr(result, "_fields", ()):  # a namedtuple with an id field
        doc = result.id
    elif isinstance(result, numbers.Integral) and not isinstance(result, bool):
        return _integer_id(result, rank)  # a bare integer id, numpy's int64 included
    elif isinstance(result, tuple) and len(result) == 2:
        if result[1] is not None and not isinstance(result[1], SCORES):
            raise ResultShapeError(
                f"result at rank {rank} is a pair whose second item is not a score: "
                f"{_describe(result)}; return ids or (id, score) pairs {_swapped(result)}"
            )
        doc = result[0]
    elif isinstance(result, list) and len(result) == 2 and isinstance(result[1], SCORES):
        doc = result[0]  # an [id, score] pair, as JSON gives it
    elif hasattr(result, "id") and not isinstance(result, (bytes, int, float)):
        doc = result.id
    else:
        raise ResultShapeError(
            f"result at rank {rank} is not an id, an (id, score) pair, a mapping with 'id' "
            f"or an object with .id: {_describe(result)}{_fix_for(result)}"
        )
    _refuse_bad_score(result, rank)
    if isinstance(doc, str):
        if not doc:
            raise _empty_id(rank)
        if doc.strip() != doc:
            raise _padded_id(rank, doc)
        if doc == PADDING:
            raise _padding(rank, doc)
        return doc
    if isinstance(doc, numbers.Integral) and not isinstance(doc, bool):
        return _integer_id(doc, rank)  # 42, or numpy's int64 from a vector index
    raise ResultShapeError(
        f"result at rank {rank} has an id that is not text: {_describe(doc)}{_fix_for(doc)}"
    )


# a mapping's key that names a document's id under another name ({"doc_id": ...})
_ID_LIKE = re.compile(
    r"_?(?:doc|document|node|chunk|passage|corpus|item|record|object|entity|[a-z]+_)?id"
    r"|_?(?:uu|gu)id|docno|pk|key",
    re.IGNORECASE,
)


def _mapping_fix(result: Mapping[Any, Any]) -> str:
    """How to return a mapping the plugin reads (its 'id' and 'score' keys), naming the
    key that looks like the id ('doc_id', '_id', 'documentId'), when one does."""
    named = next((k for k in result if isinstance(k, str) and _ID_LIKE.fullmatch(k)), None)
    fix = (
        "; a mapping is read by its 'id' key (and 'score', if any): return "
        "{'id': ..., 'score': ...} mappings (or (id, score) pairs)"
    )
    if named is not None:
        fix = (
            f"; its {named!r} looks like the id, but a mapping is read by its 'id' key (and "
            f"'score', if any): return {{'id': r[{named!r}], 'score': ...}} mappings (or "
            "(id, score) pairs)"
        )
    return (
        f"{fix}, or map each result to its judged id with the pytest_retrieval_result_key "
        "hook in conftest.py (docs/metrics.md#stable-judgment-keys)"
    )


_PLAIN = (str, bytes, numbers.Number, list, tuple, dict, set, type(None))


def _fix_for(result: Any) -> str:
    """How to return a result that is none of the shapes read: bytes decoded, a float id
    as an integer, an array (a 2-d array, a vector index's (distances, ids)) as one row
    of ids; for an object of the user's, the result-key hook."""
    if isinstance(result, (bytes, bytearray)):
        return "; ids are text: decode them (doc_id.decode())"
    if isinstance(result, numbers.Real) and not isinstance(result, bool):
        return (
            "; ids are text or integers, not floats (an array of ids as floats?): "
            "return int(doc_id), or ids.astype(int) for an array"
        )
    if getattr(result, "ndim", 0):
        return (
            f"; each result is an array here (shape {getattr(result, 'shape', '?')}): a 2-d "
            "array, or a vector index's (distances, ids), came back for one query; return "
            "its row of ids (ids[0])"
        )
    return _plain_fix(result) or _hook_hint(result)


def _plain_fix(result: Any) -> str:
    """How to return a result that is a plain value of none of the shapes read: a flag,
    nothing, a set, a list of rankings, a tuple of other than (id, score)."""
    if result is None or isinstance(result, bool):
        return "; each result is a document's id (or an (id, score) pair): drop results without one"
    if isinstance(result, (set, frozenset)):
        return "; a set has no order: return the ids as a list, best first"
    if isinstance(result, list) and all(isinstance(i, (str, int)) for i in result[:10]):
        return (
            "; each result is a list of ids here: rankings (one per query?) came back for "
            "one query: return its ranking (results[0]), or answer many queries in one call "
            "with retrieve_batch (docs/retrievers.md)"
        )
    if isinstance(result, (list, tuple)):
        items = f"{len(result)} item{'' if len(result) == 1 else 's'}"
        return (
            f"; a pair is (id, score), this {type(result).__name__} has {items}: return "
            "(id, score) pairs, or {'id': ..., 'score': ...} mappings"
        )
    return ""


HOOK_HINT = (
    "; to judge it by a field (a chunk's metadata['source']), map each result to its "
    "judged id with the pytest_retrieval_result_key hook in conftest.py "
    "(docs/metrics.md#stable-judgment-keys), or return (id, score) pairs"
)


def _hook_hint(value: Any) -> str:
    """For an object of the user's (a framework's Document, a node), how to judge it by
    a field of its own: the result-key hook (:data:`HOOK_HINT`)."""
    return "" if isinstance(value, _PLAIN) else HOOK_HINT


_RESULT_KEYS = {"id", "doc_id", "docid", "_id", "score", "document", "text"}


def _mapping_problem(returned: Mapping[Any, Any]) -> str:
    """A mapping returned: scores by id (a run's dict, as ranx and pytrec_eval take it)
    are told how to rank them; one result's fields, to return a list of them."""
    shown = _describe(returned)
    values = list(itertools.islice(returned.values(), 1000))
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return (
            f"the retriever returned a mapping of scores ({shown}), which has no rank order; "
            "rank it: return sorted(scores.items(), key=lambda item: item[1], reverse=True)"
        )
    if returned and set(map(str, returned)) <= _RESULT_KEYS:
        return (
            f"the retriever returned one result ({shown}), not a ranking; return a list "
            "of results, best first ([result, ...])"
        )
    inside = _list_inside(returned)
    if inside:
        return (
            f"the retriever returned a mapping ({shown}), which has no rank order: a "
            f"service's response body? return the list it holds, body{inside}, or a list "
            "such as [(doc_id, score), ...]"
        )
    return (
        f"the retriever returned a mapping ({shown}), which has no rank order; return a "
        "list such as [(doc_id, score), ...]"
    )


def _list_inside(returned: Mapping[Any, Any], depth: int = 2) -> str:
    """Where a response body holds its hits: the one list among its values, a level
    down too (Elasticsearch's ``['hits']['hits']``), as ``['hits']``; "" if none is, or
    more than one."""
    found = [
        f"[{key!r}]" if isinstance(value, list) else f"[{key!r}]{inner}"
        for key, value in itertools.islice(returned.items(), 100)
        if isinstance(key, str)
        and (
            isinstance(value, list)
            or (depth > 1 and isinstance(value, Mapping) and (inner := _list_inside(value, 1)))
        )
    ]
    return found[0] if len(found) == 1 else ""


def _swapped(pair: tuple[Any, Any]) -> str:
    """Why a pair's second item may not be a score: (position, id) from enumerate, or
    (score, id) the wrong way round."""
    first, second = pair
    if isinstance(first, numbers.Integral) and not isinstance(first, bool):
        return "(list(enumerate(ids)) gives (position, id) pairs)"
    if isinstance(first, SCORES) and not isinstance(first, bool):
        return "(this looks like (score, id): swap them, [(d, s) for s, d in results])"
    if isinstance(second, str) and _is_number(second):
        return "(the score is text: return float(score))"
    return "(list(enumerate(ids)) gives (position, id) pairs)"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _raw_score(result: Any) -> object:
    """What a result carries as its score, if anything: (id, score), {"score": ...}, ``.score``."""
    if "id" in getattr(result, "_fields", ()):  # a namedtuple: its score field, if it has one
        return getattr(result, "score", None)
    if isinstance(result, (tuple, list)) and len(result) == 2:
        return result[1]
    if isinstance(result, Mapping):
        return result.get("score")
    return getattr(result, "score", None)


def _refuse_bad_score(result: Any, rank: int) -> None:
    """A score that cannot be one: a bool (an (id, is_relevant) pair?), text or anything
    else that is not a number ({"score": "0.9"}), NaN or an infinity (a broken embedding:
    a zero vector's cosine is NaN, and a ranking sorted by it is arbitrary), an integer
    too large for a float (10**400: recording it would overflow). The ranking is the
    order returned; a score is only recorded."""
    if isinstance(result, str):
        return
    score = _raw_score(result)
    if isinstance(score, bool):
        raise ResultShapeError(
            f"result at rank {rank} has the score {score}, a bool: {_describe(result)}; a "
            "score is a number (an (id, is_relevant) pair?): return (id, score) pairs or ids"
        )
    if score is None:
        return
    if not isinstance(score, SCORES):
        raise ResultShapeError(
            f"result at rank {rank} has the score {_describe(score)}, not a number: "
            f"{_describe(result)}; return the score as a number (float(score)), or leave it out"
        )
    try:
        value = float(score)
    except (OverflowError, ValueError):  # an integer such as 10**400
        raise ResultShapeError(
            f"result at rank {rank} has a score too large for a float, not a finite number: "
            f"{_describe(result)}; return finite scores (float(score) must not overflow), or "
            "ids alone"
        ) from None
    if not math.isfinite(value):
        raise ResultShapeError(
            f"result at rank {rank} has the score {value}: {_describe(result)}; "
            "the retriever's scores hold NaN or an infinity (a zero vector's cosine is NaN), "
            "and a ranking sorted by them is arbitrary: return finite scores, or ids alone"
        )


def _as_float(score: numbers.Real | decimal.Decimal) -> float | None:
    """The score as a float, or None for NaN, an infinity or one too large for a float
    (an integer such as 10**400, whose ``float()`` raises)."""
    try:
        value = float(score)
    except (OverflowError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _integer_id(value: numbers.Integral, rank: int) -> str:
    try:
        text = str(int(value))
    except ValueError:  # beyond the interpreter's limit on digits written as text
        raise ResultShapeError(
            f"result at rank {rank} is an integer id too long to write as text "
            f"({int(value).bit_length()} bits); return ids as text"
        ) from None
    if text == PADDING:
        raise _padding(rank, -1)
    return text


PADDING = "-1"  # what FAISS returns for a hit it did not find (fewer than k)


def _padding(rank: int, written: object) -> ResultShapeError:
    """A -1 among the results: FAISS's padding, never a document."""
    return ResultShapeError(
        f"result at rank {rank} has the id {written!r}: FAISS pads its results with -1 when "
        f"it finds fewer than k, and -1 is no document; drop them: [i for i in ids if i != "
        f"{written!r}]"
    )


def _empty_id(rank: int) -> ResultShapeError:
    return ResultShapeError(
        f"result at rank {rank} has an empty id ''; ids are non-empty text, as in the golden "
        "files (a result whose id field was missing?)"
    )


def _padded_id(rank: int, doc: str) -> ResultShapeError:
    return ResultShapeError(
        f"result at rank {rank} has the id {_describe(doc)}, with white space at its start or "
        f"end, which no judgment matches (the golden files refuse such ids); return "
        f"{doc.strip()!r} (strip the ids)"
    )


def other_form(
    ranking: Sequence[str], relevant: Collection[str], forbid: Collection[str] = ()
) -> ResultShapeError | None:
    """A result id that a judged (or forbidden) id equals only in Unicode's composed form
    (NFC): 'café' written with U+00E9 and with 'e' + U+0301 look alike but never match,
    so the judgment would be missed without a word. None when there is none (ASCII
    judged ids, the common case, are passed over at C speed: the few judged ids are
    looked at first, the ranking only when one of them is not ASCII)."""
    if ("".join(relevant).isascii() and "".join(forbid).isascii()) or "".join(ranking).isascii():
        return None
    known = {*relevant, *forbid}
    forms = {unicodedata.normalize("NFC", j): j for j in known if not j.isascii()}
    if not forms:
        return None
    for rank, doc in enumerate(ranking, start=1):
        if doc.isascii() or doc in known:
            continue
        written = forms.get(unicodedata.normalize("NFC", doc))
        if written is not None:
            return ResultShapeError(
                f"result at rank {rank} has the id {doc!a}, which the golden file writes "
                f"{written!a}: the same text in two Unicode forms (composed and decomposed "
                "characters), which look alike but do not match; return ids in one form "
                "(unicodedata.normalize('NFC', id)), or write the golden file's id as the "
                "retriever does"
            )
    return None


def _padded_at(ids: list[str], joined: str) -> int | None:
    """The rank of the first id with white space at its start or end, if any. ``joined``:
    the ids joined; when it holds no white space at all (the common case: one scan at C
    speed) no id is looked at."""
    if joined.split(None, 1) == [joined]:
        return None
    stripped = list(map(str.strip, ids))
    if stripped == ids:
        return None  # white space inside ids only
    return next(rank for rank, (a, b) in enumerate(zip(ids, stripped, strict=True), 1) if a != b)


def _results(returned: Any) -> list[Any]:
    """The results of what a retriever returned, in order; :class:`ResultShapeError`
    when it is not a ranked sequence."""
    if type(returned) is list:
        if len(returned) > MAX_RESULTS:
            raise _too_many(returned)
        return returned
    if returned is None:
        raise ResultShapeError(
            "the retriever returned None; return a ranked list of results ([] when nothing matches)"
        )
    if type(returned).__module__ == "unittest.mock":  # iterates as empty: scores as nothing
        raise ResultShapeError(
            f"the retriever returned {with_article(type(returned).__name__)} from "
            "unittest.mock, not a ranking (a mock whose return value was never set? a "
            "MagicMock reads as no results, which a no-result query scores 1.0 for); set "
            "it: mock.return_value = [doc_id, ...]"
        )
    if isinstance(returned, str):
        raise ResultShapeError(
            f"the retriever returned a bare string ({_describe(returned)}); "
            "return a list of results, e.g. [doc_id, ...]"
        )
    if isinstance(returned, (bytes, bytearray, memoryview)):
        raise ResultShapeError(
            f"the retriever returned binary data ({_describe(returned)}), not a ranking "
            "(iterating it gives byte values); return a list of results, e.g. [doc_id, ...]"
        )
    if isinstance(returned, Mapping):
        raise ResultShapeError(_mapping_problem(returned))
    if hasattr(returned, "columns") and hasattr(returned, "itertuples"):
        raise ResultShapeError(
            f"the retriever returned {with_article(type(returned).__name__)} (iterating it gives "
            "its column names, not results); return df['id'].tolist() or list(df.itertuples())"
        )
    if isinstance(returned, (set, frozenset)):
        raise ResultShapeError(
            f"the retriever returned a set ({_describe(returned)}), which has no rank order; "
            "return a list"
        )
    if inspect.isawaitable(returned):  # a batch's [search(q) for q in queries], not awaited
        if inspect.iscoroutine(returned):
            returned.close()  # never to run: no "never awaited" warning at a random place
        raise ResultShapeError(
            f"the retriever returned {_describe(returned)}, an awaitable not awaited; await "
            "it (for a batch's list of them: return await asyncio.gather(*calls))"
        )
    if not isinstance(returned, (Sequence, Iterable)) or isinstance(returned, (int, float)):
        raise ResultShapeError(
            f"the retriever returned {_describe(returned)}, not a ranked sequence of results"
        )
    if getattr(returned, "ndim", None) == 0:  # numpy's or torch's 0-d array: not iterable
        raise ResultShapeError(
            f"the retriever returned {_describe(returned)}, a 0-d array (one value), not a "
            "ranked sequence of results; return a list of results (a 1-d array's .tolist())"
        )
    found = list(itertools.islice(returned, MAX_RESULTS + 1))  # an endless iterator ends here
    if len(found) > MAX_RESULTS:
        raise _too_many(returned)
    return found


MAX_RESULTS = 1_000_000  # more from one query is a retriever that does not stop


def _too_many(returned: Any) -> ResultShapeError:
    what = "a list" if isinstance(returned, list) else _describe(returned)
    return ResultShapeError(
        f"the retriever returned more than {MAX_RESULTS:,} results ({what}); a ranking is "
        "the top results, best first: return the top k of them (results[:100], or "
        "itertools.islice(results, 100) for an iterator that does not end)"
    )


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


def _plain_ids(results: list[Any]) -> list[str] | None:
    """The ids when every result is a str or every one a (str, float) pair, the common
    answers (read with whole-list operations, no step per result in Python); None
    otherwise, for :func:`_result_id` to read each result."""
    try:
        joined = "".join(results)  # at C speed: every result is text (as _result_id keeps it)
        ids = list(results)
    except TypeError:
        pairs = _pair_ids(results)
        if pairs is None:
            return None
        ids, joined = pairs
    if "" in ids:
        raise _empty_id(ids.index("") + 1)
    padded = _padded_at(ids, joined)
    if padded is not None:
        raise _padded_id(padded, ids[padded - 1])
    if PADDING in joined and PADDING in ids:  # the first test at C speed, on one string
        raise _padding(ids.index(PADDING) + 1, PADDING)
    return ids


def _pair_ids(results: list[Any]) -> tuple[list[str], str] | None:
    """The ids, and the ids joined, when every result is an (id, score) pair of text and
    a finite float; None otherwise."""
    if set(map(type, results)) != {tuple} or set(map(len, results)) != {2}:
        return None
    ids = list(map(_FIRST, results))
    try:
        joined = "".join(ids)  # at C speed: every id is text
    except TypeError:
        return None
    if set(map(type, map(_SECOND, results))) != {float}:
        return None
    total = sum(map(_SECOND, results))
    if total - total != 0.0:
        return None  # a NaN or infinite score (or a sum that overflows): read each result
    return ids, joined


def ranked_ids(returned: Any) -> list[str]:
    """The ids of a retriever's results, in the order returned (duplicates kept)."""
    results = _results(returned)
    plain = _plain_ids(results)
    if plain is not None:
        return plain
    return [_result_id(result, rank) for rank, result in enumerate(results, start=1)]


def _score_of(result: Any) -> float | None:
    """A result's score, when it carries one: (id, score), {"score": ...}, ``.score``."""
    score = _raw_score(result)
    if isinstance(score, SCORES) and not isinstance(score, bool):
        return _as_float(score)
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
    if len(set(ids)) == len(ids):  # the common case, checked at C speed
        return list(ids), 0
    ranking = list(dict.fromkeys(ids))
    return ranking, len(ids) - len(ranking)


@dataclass(frozen=True)
class Ranked:
    """A retriever's answer as the metrics see it.

    ``ranking``: the judgment keys, each at its first rank; ``duplicates``: results
    dropped because their id came back earlier; ``merged``: results dropped because
    their key came back earlier under another id; ``own``: with a result-key function,
    each result's own id -> the rank of the key it was judged by (a ``forbid`` may name
    a chunk's own id).
    """

    ranking: list[str]
    duplicates: int = 0
    merged: int = 0
    own: Mapping[str, int] = field(default_factory=dict, compare=False)


def _key_of(key: ResultKey, result: Any, rank: int) -> str | None:
    name = getattr(key, "__name__", "the result key function")
    try:
        found = key(result)
    except Exception as exc:
        raise ResultShapeError(
            f"result at rank {rank}: {name} raised {type(exc).__name__}: {exception_text(exc)}"
            f"{raised_at(exc)}, for {_describe(result)}"
        ) from exc
    if found is not None and not isinstance(found, str):
        raise ResultShapeError(
            f"result at rank {rank}: {name} returned {_describe(found)} for "
            f"{_describe(result)}; return the judgment key as text, or None to keep the "
            "result's id"
        )
    return found


# One result as a recording keeps it when the result-key hook gave it a key: its own id
# (None for a result only the hook could read), its score, the key it was judged by.
KeyedResult = tuple["str | None", "float | None", "str | None"]


@dataclass(frozen=True)
class ReplayedResult:
    """A recorded result the hook had given a key: replayed, it is judged by that key,
    the hook not called again (what it read, a chunk's ``metadata``, is not recorded)."""

    id: str | None
    score: float | None
    key: str


class CheckedIds(list[str]):
    """Result ids a reader has already checked as a ranking: distinct, non-empty text
    without blanks at either end (a TREC run's documents for one query). Read as they
    are, without the checks a retriever's answer goes through."""


def rank_results(
    returned: Any, key: ResultKey | None = None, kept: list[KeyedResult] | None = None
) -> Ranked:
    """What came back, as judgment keys: each key once, at its first rank.

    Without ``key`` a result's key is its id. With it, a result the function maps to
    None keeps its id, and a result that has no id of its own may still be mapped; a
    result with no id of its own whose key came back earlier counts as merged (another
    chunk of the document), as results with other ids do. ``kept``: with ``key``, gets
    each result as a recording keeps it (:data:`KeyedResult`).
    """
    if key is None and type(returned) is CheckedIds:
        return Ranked(list(returned))  # a plain list, as every other answer gives
    if key is None:
        ranking, duplicates = dedupe(ranked_ids(returned))
        return Ranked(ranking, duplicates)
    own: dict[str, int] = {}  # each own id -> the rank of the key it was judged by
    keys: dict[str, int] = {}  # each key -> its rank
    duplicates = merged = 0
    for position, result in enumerate(_results(returned), start=1):
        found = _key_of(key, result, position)
        doc = _own_id(result, position, found is not None)
        judged_as = found if found is not None else doc
        if judged_as is None:  # pragma: no cover - _own_id gives an id unless keyed
            raise ResultShapeError(f"result at rank {position} has no id")
        if judged_as in keys:
            duplicates += doc is not None and doc in own
            merged += doc is None or doc not in own
        rank = keys.setdefault(judged_as, len(keys) + 1)
        if doc is not None:
            own.setdefault(doc, rank)
        if kept is not None:
            kept.append((doc, _score_of(result), found))
    return Ranked(list(keys), duplicates, merged, own)


def _own_id(result: Any, rank: int, keyed: bool) -> str | None:
    """The result's id; None for one that has none when the key function gave it a key
    (its score is still checked)."""
    _refuse_bad_score(result, rank)  # also for a result only the key function reads
    if isinstance(result, ReplayedResult):
        return result.id
    try:
        return _result_id(result, rank)
    except ResultShapeError:
        if not keyed:
            raise
        return None  # a result the key function alone can read
