"""Agreement between two judges: Cohen's kappa (unweighted and linearly weighted), raw agreement.

Pure: no pytest here. Two judgment sets (query id -> {doc id -> grade}) are compared on
the (query, doc) pairs both judged, overall and per query category. Grades are
ordinal, 0..max_grade.

* raw agreement: the share of pairs given the same grade;
* Cohen's kappa: ``(p_o - p_e) / (1 - p_e)``, ``p_e`` the agreement expected by chance
  from each judge's own grade distribution;
* linearly weighted kappa: ``1 - sum(w * observed) / sum(w * expected)`` with the
  disagreement weight ``w = |g1 - g2| / max_grade`` on the grade *values* (grades 0 and
  3 are three steps apart even when nobody used 1 or 2). scikit-learn's
  ``cohen_kappa_score(..., weights="linear")`` equals it when handed
  ``labels=range(max_grade + 1)``; without them it weighs by position among the grades
  that occur.

When no pair is judged by both, every value is ``None``. When both judges gave one and
the same grade to every pair, raw agreement is 1.0 but kappa is undefined (chance
agreement is 1 as well: 0 / 0) and reported as ``None``, as scikit-learn reports
``nan``. When only one judge used a single grade, kappa is 0.0: the agreement is
exactly what chance gives. Everything is computed on integer counts, so the values
are exact to the last bit of the final division.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .golden import DEFAULT_CATEGORY
from .model import RESERVED_CATEGORIES

ALL = "all"
Weighting = Literal["unweighted", "linear"]
Judgments = Mapping[str, Mapping[str, int]]


class AgreementError(ValueError):
    """Judgments that cannot be compared; the message names each query, document and fix."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class AgreementRow:
    """Agreement on one category's pairs (``category`` is ``all`` for every pair)."""

    category: str
    pairs: int  # (query, doc) pairs both judges judged
    queries: int  # queries with at least one such pair
    first_only: int  # pairs only the first judge judged
    second_only: int  # pairs only the second judge judged
    raw: float | None  # share of pairs with the same grade; None without pairs
    kappa: float | None  # Cohen's kappa; None without pairs or when undefined
    linear_kappa: float | None  # linearly weighted kappa; None likewise


def cohen_kappa(
    pairs: Sequence[tuple[int, int]], *, max_grade: int, weighting: Weighting = "unweighted"
) -> float | None:
    """Cohen's kappa of (first grade, second grade) pairs; None when undefined (see module)."""
    n = len(pairs)
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    grades = range(max_grade + 1)
    if weighting == "unweighted":
        observed = sum(1 for a, b in pairs if a == b)
        chance = sum(first[g] * second[g] for g in grades)  # n^2 * p_e
        denominator = n * n - chance
        return (n * observed - chance) / denominator if denominator else None
    disagreement = sum(abs(a - b) for a, b in pairs)  # the weights' 1/max_grade cancels
    expected = sum(abs(i - j) * first[i] * second[j] for i in grades for j in grades)
    return 1.0 - (n * disagreement) / expected if expected else None


def _problems(first: Judgments, second: Judgments, max_grade: int) -> list[str]:
    problems = []
    for judge, judgments in (("first", first), ("second", second)):
        for qid, grades in judgments.items():
            for doc, grade in grades.items():
                if isinstance(grade, bool) or not isinstance(grade, int):
                    problems.append(
                        f"query '{qid}', document '{doc}': the {judge} judge's grade {grade!r} "
                        "is not an integer"
                    )
                elif not 0 <= grade <= max_grade:
                    problems.append(
                        f"query '{qid}', document '{doc}': the {judge} judge's grade {grade} is "
                        f"outside 0..{max_grade} (retrieval_max_grade); raise it or fix the grade"
                    )
    return problems


def _category_problems(categories: Mapping[str, str], default: str) -> list[str]:
    named = [(f"query '{qid}'", category) for qid, category in categories.items()]
    problems = []
    for who, category in [*named, ("the default category", default)]:
        if not isinstance(category, str) or not category.strip():
            problems.append(f"{who}: category {category!r} must be non-empty text")
        elif category in RESERVED_CATEGORIES:
            problems.append(f"{who}: category '{category}' is the overall row; rename it")
    return problems


@dataclass
class _Tally:
    """One category's pairs (first grade, second grade) and counts."""

    pairs: list[tuple[int, int]]
    queries: set[str]
    first_only: int = 0
    second_only: int = 0

    def row(self, category: str, max_grade: int) -> AgreementRow:
        """The category's agreement row."""
        n = len(self.pairs)
        raw = sum(1 for a, b in self.pairs if a == b) / n if n else None
        kappa = cohen_kappa(self.pairs, max_grade=max_grade) if n else None
        linear = cohen_kappa(self.pairs, max_grade=max_grade, weighting="linear") if n else None
        return AgreementRow(
            category, n, len(self.queries), self.first_only, self.second_only, raw, kappa, linear
        )


def _tally(
    first: Judgments, second: Judgments, category: Mapping[str, str], default: str
) -> dict[str, _Tally]:
    tallies: dict[str, _Tally] = defaultdict(lambda: _Tally([], set()))
    for qid in dict.fromkeys([*first, *second]):
        a, b = first.get(qid, {}), second.get(qid, {})
        for name in (category.get(qid, default), ALL):
            tally = tallies[name]
            common = [doc for doc in a if doc in b]
            tally.pairs.extend((a[doc], b[doc]) for doc in common)
            if common:
                tally.queries.add(qid)
            tally.first_only += len(a) - len(common)
            tally.second_only += len(b) - len(common)
    return tallies


def agreement(
    first: Judgments,
    second: Judgments,
    categories: Mapping[str, str] | None = None,
    *,
    max_grade: int = 3,
    default_category: str = DEFAULT_CATEGORY,
) -> tuple[AgreementRow, ...]:
    """Agreement of two judges per category (sorted), then ``all``.

    ``categories`` maps query ids to categories (others get ``default_category``);
    every query either judge judged is counted. Grades must be integers in
    0..max_grade; anything else is an :class:`AgreementError` naming the query,
    the document and the judge.
    """
    category = dict(categories or {})
    problems = _problems(first, second, max_grade) + _category_problems(category, default_category)
    if problems:
        raise AgreementError(problems)
    tallies = _tally(first, second, category, default_category)
    tallies.setdefault(ALL, _Tally([], set()))
    names = [*sorted(name for name in tallies if name != ALL), ALL]
    return tuple(tallies[name].row(name, max_grade) for name in names)
