"""What ``pytest-retrieval validate`` finds beyond the loader's checks: what users trip on.

Pure. The loader (:mod:`pytest_retrieval.io.golden_yaml`) refuses what cannot be
evaluated; these checks name what loads but is most likely a mistake. Each
finding has a check name (``--ignore NAME`` skips it):

* ``all-zero``: every judgment of a query has grade 0: nothing is relevant. Not named
  in a category of no-result queries (none with a grade above 0, while other categories
  have some): results judged 0, as ``pool`` and ``merge`` record them, are what such a
  category holds;
* ``forbid-relevant``: an id both forbidden and judged relevant (grade > 0);
* ``same-text``: the same query text (case and spacing aside) under two ids;
* ``case-ids``: two ids equal but for letter case (``Q1`` and ``q1``);
* ``unknown-id``: a judged or forbidden id that is not in the corpus list (``--corpus``);
* ``tags-text``: ``tags`` written as text: the loader reads ``tags: core, rolling``
  as the single tag ``"core, rolling"``; a list is meant.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from .golden import GoldenQuery, Problem, case_twins, in_syntax, is_jsonl

Check = Literal["all-zero", "forbid-relevant", "same-text", "case-ids", "unknown-id", "tags-text"]
CHECKS: tuple[Check, ...] = get_args(Check)


@dataclass(frozen=True)
class Finding:
    """One finding: which check, and the problem (file, line, query id, message)."""

    check: Check
    problem: Problem

    def __str__(self) -> str:
        return f"{self.problem} [{self.check}]"


@dataclass(frozen=True)
class TagsAsText:
    """``tags:`` given as text in a file: where, and for which query (None: in defaults)."""

    path: str
    line: int
    text: str
    query_id: str | None = None


def _no_result_categories(queries: Sequence[GoldenQuery]) -> set[str]:
    """The categories none of whose queries has an answer judged above 0, when others
    have some (a set with no answer anywhere is more likely graded from 0 by mistake)."""
    answered = {q.category for q in queries if any(grade > 0 for grade in q.relevant.values())}
    return {q.category for q in queries} - answered if answered else set()


def _all_zero(query: GoldenQuery, no_result: set[str]) -> Iterable[Finding]:
    if (
        query.relevant
        and query.category not in no_result
        and all(grade == 0 for grade in query.relevant.values())
    ):
        yield Finding(
            "all-zero",
            Problem(
                query.path,
                query.line,
                in_syntax(
                    query.path,
                    f"every judgment has grade 0 ({len(query.relevant)} of them): nothing is "
                    "relevant, so the query is scored as a no-result query (retrieval_empty); "
                    "grade the answers above 0, or write 'relevant: {}' if nothing answers it",
                ),
                query.id,
            ),
        )


def _forbid_relevant(query: GoldenQuery) -> Iterable[Finding]:
    for doc in query.forbid:
        grade = query.relevant.get(doc, 0)
        if grade > 0:
            yield Finding(
                "forbid-relevant",
                Problem(
                    query.path,
                    query.line,
                    f"'{doc}' is forbidden and judged relevant (grade {grade}): returning it "
                    "fails the query, leaving it out lowers its scores; remove it from "
                    "'forbid', or grade it 0",
                    query.id,
                ),
            )


def forbidden_relevant(queries: Sequence[GoldenQuery]) -> list[Problem]:
    """The ``forbid-relevant`` findings alone: what a pytest run warns of at collection,
    as a newcomer who never ran ``validate`` otherwise sees only the item fail."""
    return [finding.problem for query in queries for finding in _forbid_relevant(query)]


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _same_text(queries: Sequence[GoldenQuery]) -> Iterable[Finding]:
    first: dict[str, GoldenQuery] = {}
    for query in queries:
        key = _normal(query.text)
        other = first.setdefault(key, query)
        if other is not query:
            yield Finding(
                "same-text",
                Problem(
                    query.path,
                    query.line,
                    f"same text as query '{other.id}' ({other.path}:{other.line}): one "
                    "question under two ids counts twice in every mean; merge the two "
                    "queries, or reword one",
                    query.id,
                ),
            )


# Comparisons of an unknown id with a corpus id that the suggestions may spend in all
# (about 2 s): a 40-id corpus gets one for 10,000 unknown ids, a 200,000-id corpus for 2,
# a corpus of more than 400,000 ids none.
SUGGESTION_BUDGET = 400_000


class _Closest:
    """The corpus id closest to an unknown one (difflib), while the budget lasts."""

    def __init__(self, corpus: frozenset[str], shown: str):
        self.corpus, self.shown = corpus, shown
        self.ordered: list[str] | None = None  # sorted once, when first needed
        self.left = SUGGESTION_BUDGET

    def guess(self, doc: str) -> str:
        """``did you mean 'x'?`` when a corpus id is close, else ``a typo?``."""
        if self.left < len(self.corpus):
            return "a typo?"
        self.left -= len(self.corpus)
        if self.ordered is None:
            self.ordered = sorted(self.corpus)
        close = difflib.get_close_matches(doc, self.ordered, n=1, cutoff=0.8)
        return f"did you mean '{close[0]}'?" if close else "a typo?"


def _unknown_ids(query: GoldenQuery, corpus: frozenset[str], closest: _Closest) -> list[Finding]:
    kinds = [("judged", doc) for doc in query.relevant] + [("forbidden", d) for d in query.forbid]
    return [
        Finding(
            "unknown-id",
            Problem(
                query.path,
                query.line,
                f"{kind} id '{doc}' is not in the corpus ({closest.shown}): {closest.guess(doc)} "
                "the retriever can never return it; fix the id, or add the document",
                query.id,
            ),
        )
        for kind, doc in kinds
        if doc not in corpus
    ]


def _tags_text(found: TagsAsText) -> Finding:
    where = "in defaults" if found.query_id is None else "for this query"
    parts = [t.strip() for t in found.text.replace(",", " ").split() if t.strip()]
    listed = ", ".join(parts) or found.text
    fix = (
        f'"tags": {json.dumps(parts or [found.text], ensure_ascii=False)}'
        if is_jsonl(found.path)
        else f"tags: [{listed}]"
    )
    return Finding(
        "tags-text",
        Problem(
            found.path,
            found.line,
            f"'tags' is text ({found.text!r}) {where}: it is read as the single tag "
            f"{found.text!r}; write a list: {fix}",
            found.query_id,
        ),
    )


def lint(
    queries: Sequence[GoldenQuery],
    tags_as_text: Sequence[TagsAsText] = (),
    corpus: frozenset[str] | None = None,
    corpus_shown: str = "corpus",
    ignore: Iterable[str] = (),
) -> list[Finding]:
    """Every finding in a golden set that loaded, by file and line; ``ignore`` skips checks."""
    skipped = set(ignore)
    found: list[Finding] = []
    no_result = _no_result_categories(queries)
    closest = _Closest(corpus or frozenset(), corpus_shown)
    for query in queries:
        found += _all_zero(query, no_result)
        found += _forbid_relevant(query)
        if corpus is not None and "unknown-id" not in skipped:
            found += _unknown_ids(query, corpus, closest)
    found += _same_text(queries)
    found += [Finding("case-ids", problem) for problem in case_twins(queries)]
    found += [_tags_text(t) for t in tags_as_text]
    kept = [f for f in found if f.check not in skipped]
    return sorted(kept, key=lambda f: (f.problem.path, f.problem.line, CHECKS.index(f.check)))


def query_tags(path: str, raw: object, line: int = 0) -> TagsAsText | None:
    """``tags`` given as text in one raw query mapping, or None."""
    if not isinstance(raw, dict) or not isinstance(raw.get("tags"), str):
        return None
    line = getattr(raw, "key_lines", {}).get("tags", line)
    qid = raw.get("id")
    return TagsAsText(path, line, raw["tags"], str(qid) if qid is not None else None)


def tags_as_text(path: str, data: object) -> list[TagsAsText]:
    """Where a loaded golden file (line-tracking mappings) gives ``tags`` as text."""
    found: list[TagsAsText] = []
    queries = data
    if isinstance(data, dict):
        defaults = data.get("defaults")
        if isinstance(defaults, dict) and isinstance(defaults.get("tags"), str):
            line = getattr(defaults, "key_lines", {}).get("tags", 0)
            found.append(TagsAsText(path, line, defaults["tags"]))
        queries = data.get("queries")
    for raw in queries if isinstance(queries, list) else []:
        hit = query_tags(path, raw)
        if hit is not None:
            found.append(hit)
    return found
