"""Judged ids that look mistyped in a golden file.

Pure. A query whose relevant documents were not retrieved, while a result differs from
one of them only by case, spaces and separators, or by one letter ("weather-forcast"
judged, "weather-forecast" retrieved), most likely judges an id with a typo: the query
then scores 0 whatever the retriever does, and nothing else would say why. Digits must
match exactly ("doc-101" and "doc-102" are two documents), and one letter apart counts
only from five characters on.

:func:`near_misses` runs on the item path, only for a query none of whose relevant
judged documents came back (the rare case in a healthy run), in time linear in the
judgments and the results. The advice (``advice.typo_warnings``) reads every
configuration's records at the end: a judged id that any configuration retrieved is
no typo.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

MIN_LENGTH = 5  # one letter apart counts from this length on (squeezed)

_SEPARATORS = re.compile(r"[\s\-_./:#]+")
_NOT_DIGITS = re.compile(r"\D+")


def _squeezed(text: str) -> str:
    return _SEPARATORS.sub("", unicodedata.normalize("NFKC", text).casefold())


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` (different) are one substitution, insertion, deletion or
    swap of two neighbours apart."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    start = 0
    while start < len(a) and a[start] == b[start]:
        start += 1
    if len(a) < len(b):
        return a[start:] == b[start + 1 :]
    if a[start + 1 :] == b[start + 1 :]:
        return True
    swapped = a[start : start + 2] == b[start + 1 : start + 2] + b[start : start + 1]
    return swapped and a[start + 2 :] == b[start + 2 :]


def _by_digits(retrieved: Sequence[str], relevant: Mapping[str, int]) -> dict[str, list[str]]:
    """The unjudged results by their digits (a near id has the same digits): only the
    few sharing a judged id's digits are then compared with it."""
    buckets: dict[str, list[str]] = {}
    for found in dict.fromkeys(retrieved):
        if found not in relevant:
            buckets.setdefault(_NOT_DIGITS.sub("", found), []).append(found)
    return buckets


def _near_result(judged: str, candidates: Sequence[str], squeezed_of: dict[str, str]) -> str | None:
    """The first of ``candidates`` that looks like ``judged`` mistyped (or the other way);
    ``squeezed_of`` keeps each candidate's squeezed form for the next judged id."""
    squeezed = _squeezed(judged)
    for found in candidates:
        other = squeezed_of.get(found)
        if other is None:
            other = squeezed_of[found] = _squeezed(found)
        if other == squeezed or (
            min(len(other), len(squeezed)) >= MIN_LENGTH and _one_edit(other, squeezed)
        ):
            return found
    return None


def near_misses(
    relevant: Mapping[str, int], retrieved: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """(judged id, retrieved id) pairs that look like one id mistyped: each relevant
    judged id (grade above 0) not retrieved, with the first unjudged result near it.
    Call it for a query none of whose relevant judged ids came back."""
    returned = set(retrieved)
    wanted = [d for d, grade in relevant.items() if grade > 0 and d not in returned]
    if not wanted or not returned:
        return ()
    buckets = _by_digits(retrieved, relevant)
    squeezed_of: dict[str, str] = {}
    pairs = (
        (judged, _near_result(judged, buckets.get(_NOT_DIGITS.sub("", judged), ()), squeezed_of))
        for judged in wanted
    )
    return tuple((judged, found) for judged, found in pairs if found is not None)
