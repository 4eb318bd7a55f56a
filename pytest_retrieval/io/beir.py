"""BEIR folders read as golden queries: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``.

Pure: no pytest here. The layout (as the BEIR benchmark ships it):

* ``corpus.jsonl``: one document per line, ``{"_id": ..., "title": ..., "text": ...}``
  (other keys are allowed and not used; only the ids are kept);
* ``queries.jsonl``: one query per line, ``{"_id": ..., "text": ..., "metadata": {...}}``
  (``metadata`` optional; no other key);
* ``qrels/<split>.tsv``: a header line ``query-id<TAB>corpus-id<TAB>score``, then one
  judgment per line, the score an integer grade.

Ids are always text (a JSON number id ``7`` becomes ``"7"``; ``"00123"`` stays).
Every problem names the file and line. Stricter than BEIR's own loader: the header
must be there (BEIR's loader drops the first line whatever it holds), a judged query
must be in ``queries.jsonl`` and a judged document in ``corpus.jsonl`` (a document the
retriever can never return would silently cap recall), and a pair judged twice is
an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..golden import DEFAULT_CATEGORY, GoldenQuery
from .common import (
    FormatError,
    ProblemLog,
    category_problem,
    did_you_mean,
    golden_id_problem,
    loads_json,
    read_lines,
)

QRELS_HEADER = ("query-id", "corpus-id", "score")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DIGITS = 18  # a grade written longer is none (and int() refuses past 4,300 digits)
QUERY_KEYS = ("_id", "text", "metadata")


@dataclass(frozen=True)
class BeirDataset:
    """A BEIR folder as golden queries (one per judged query) and the corpus ids."""

    folder: str
    split: str
    queries: tuple[GoldenQuery, ...]
    corpus_ids: frozenset[str]
    left_out: tuple[str, ...] = ()  # queries of queries.jsonl without a judgment in this split


@dataclass(frozen=True)
class _Query:
    """One line of queries.jsonl."""

    qid: str
    text: str
    metadata: Mapping[str, Any]
    line: int


class _JsonObject(dict[str, object]):
    """A JSON object that remembers the keys it repeated."""

    repeated: list[str]


def _object(pairs: list[tuple[str, Any]]) -> _JsonObject:
    out = _JsonObject()
    out.repeated = []
    for key, value in pairs:
        if key in out:
            out.repeated.append(key)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON; write a finite number")


def _json_objects(path: Path, log: ProblemLog) -> Iterator[tuple[int, _JsonObject]]:
    """(line, object) of every non-blank line; a line that is not a JSON object is a problem."""
    for line, text in read_lines(path, log.shown):
        if not text.strip():
            continue
        try:
            value = loads_json(text, object_pairs_hook=_object, parse_constant=_no_constant)
        except ValueError as exc:
            log.add(line, f"not valid JSON: {exc}; write one JSON object per line")
            continue
        if not isinstance(value, _JsonObject):
            log.add(line, f"expected a JSON object, got {type(value).__name__}")
            continue
        for key in value.repeated:
            log.add(line, f"key {key!r} appears twice in one object; keep one")
        if not value.repeated:
            yield line, value


def _record_id(record: Mapping[str, Any], line: int, log: ProblemLog) -> str | None:
    """The ``_id`` as text (a JSON integer is read as its digits), or None (problem recorded)."""
    value = record.get("_id")
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    got = "no '_id'" if "_id" not in record else f"'_id' {value!r}"
    log.add(line, f"{got}; every line needs an '_id' (non-empty text)")
    return None


def _unwritable_id(value: str) -> str | None:
    """Why a document's ``_id`` cannot be imported: white space at its ends (no golden file holds
    such an id, and the corpus list, one id per line, would strip it), or a control
    character (a newline would make two ids of the corpus list)."""
    if value.strip() != value:
        return (
            f"'_id' {value!r} has white space at its start or end, which no golden file "
            f"and no result id can hold; write {value.strip()!r}"
        )
    if any(char < " " or char == "\x7f" for char in value):
        return (
            f"'_id' {value!r} holds a control character, which no golden file can hold "
            "(a newline would make two ids of the corpus list); remove it"
        )
    return None


# --------------------------------------------------------------------------- the three files


def _corpus_ids(path: Path, log: ProblemLog) -> dict[str, int]:
    """doc id -> its line in corpus.jsonl."""
    ids: dict[str, int] = {}
    for line, record in _json_objects(path, log):
        doc = _record_id(record, line, log)
        if doc is None:
            continue
        problem = _unwritable_id(doc)
        if problem is not None:
            log.add(line, problem)
            continue
        for key in ("title", "text"):
            if key in record and not isinstance(record[key], str):
                log.add(line, f"document '{doc}': '{key}' must be text")
        if doc in ids:
            log.add(line, f"document '{doc}' appears twice (first on line {ids[doc]}); keep one")
            continue
        ids[doc] = line
    return ids


def _query_problem(record: Mapping[str, Any]) -> str | None:
    for key in record:
        if key not in QUERY_KEYS:
            hint = did_you_mean(str(key), QUERY_KEYS) or f"; valid keys: {QUERY_KEYS}"
            return f"unknown key '{key}'{hint}"
    text = record.get("text")
    if not isinstance(text, str) or not text.strip():
        return f"'text' must be non-empty text (the query), got {text!r}"
    if not isinstance(record.get("metadata", {}), dict):
        return "'metadata' must be a JSON object"
    return None


def _queries(path: Path, log: ProblemLog) -> dict[str, _Query]:
    queries: dict[str, _Query] = {}
    for line, record in _json_objects(path, log):
        qid = _record_id(record, line, log)
        if qid is None:
            continue
        problem = _query_problem(record)
        if problem is not None:
            log.add(line, problem, qid)
        elif qid in queries:
            log.add(line, f"query appears twice (first on line {queries[qid].line})", qid)
        else:
            text, metadata = record["text"], record.get("metadata", {})
            assert isinstance(text, str) and isinstance(metadata, dict)  # checked above
            queries[qid] = _Query(qid, text, metadata, line)
    return queries


def _fix(score: str, max_grade: int) -> str:
    """The fix for a score that is not an integer: ``1.0`` is written 1; another number
    (a model's 0.73) is mapped to grades; anything else is told what a grade is."""
    try:
        value = float(score)
    except ValueError:
        return f" (a grade is 0..{max_grade}, 0 for judged not relevant)"
    if value.is_integer() and abs(value) < 10**6:
        return f"; write {int(value)}"
    return f"; map the scores to integer grades 0..{max_grade}"


def _judgment(
    fields: list[str], line: int, log: ProblemLog, max_grade: int
) -> tuple[str, str, int] | None:
    if len(fields) != 3:
        log.add(
            line, f"expected 3 tab-separated fields 'query-id corpus-id score', got {len(fields)}"
        )
        return None
    qid, doc, score = fields
    if not _INTEGER.fullmatch(score):
        message = f"score {score!r} of document '{doc}' is not an integer grade"
        log.add(line, message + _fix(score, max_grade), qid)
        return None
    if len(score) > _DIGITS:  # past any grade (and past what int() reads, when very long)
        log.add(
            line,
            f"score {score[:_DIGITS]}... of document '{doc}' has {len(score)} characters, far "
            f"outside 0..{max_grade} (retrieval_max_grade)",
            qid,
        )
        return None
    grade = int(score)
    if grade < 0:  # no retrieval_max_grade makes it a grade
        log.add(
            line,
            f"score {grade} of document '{doc}' is below 0: a grade is 0..{max_grade}, 0 for "
            "judged not relevant; map the scores to grades, or drop the line",
            qid,
        )
        return None
    if grade > max_grade:
        log.add(
            line,
            f"score {grade} of document '{doc}' is outside 0..{max_grade} (retrieval_max_grade); "
            "raise retrieval_max_grade or map the grades",
            qid,
        )
        return None
    return qid, doc, grade


_Judged = dict[str, dict[str, int]]
_PairLines = dict[tuple[str, str], int]


def _qrels(path: Path, log: ProblemLog, max_grade: int) -> tuple[_Judged, _PairLines]:
    """query id -> {doc id -> grade}, and the line of each (query, doc) pair."""
    judgments: _Judged = {}
    seen: _PairLines = {}
    for line, text in read_lines(path, log.shown):
        if line == 1:
            if tuple(text.split("\t")) != QRELS_HEADER:
                log.add(1, f"the first line must be the header {'<TAB>'.join(QRELS_HEADER)!r}")
            continue
        if not text.strip():
            continue
        judged = _judgment(text.split("\t"), line, log, max_grade)
        if judged is None:
            continue
        qid, doc, grade = judged
        if (qid, doc) in seen:
            log.add(line, f"document '{doc}' is judged twice (first on line {seen[qid, doc]})", qid)
            continue
        seen[qid, doc] = line
        judgments.setdefault(qid, {})[doc] = grade
    return judgments, seen


def _check_references(
    log: ProblemLog, lines: _PairLines, queries: Mapping[str, _Query], corpus: Mapping[str, int]
) -> None:
    """Judged queries must be in queries.jsonl (named once, at their first line), judged
    documents in corpus.jsonl (named at each line)."""
    named: set[str] = set()
    for (qid, doc), line in lines.items():
        if qid not in queries:
            if qid not in named:
                log.add(
                    line, "judged but not in queries.jsonl; add the query or drop its lines", qid
                )
                named.add(qid)
        elif doc not in corpus:
            log.add(
                line,
                f"document '{doc}' is judged but not in corpus.jsonl; add it or drop the line",
                qid,
            )


# --------------------------------------------------------------------------- the folder


def _files(folder: Path, split: str, shown: str) -> tuple[Path, Path, Path]:
    corpus, queries, qrels = folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels"
    log = ProblemLog(shown)
    for path in (corpus, queries):
        if not path.is_file():
            log.add(
                0,
                f"no {path.name} in the folder; a BEIR folder holds corpus.jsonl, "
                "queries.jsonl and qrels/<split>.tsv",
            )
    split_file = qrels / f"{split}.tsv"
    if not split_file.is_file():
        splits = sorted(p.stem for p in qrels.glob("*.tsv")) if qrels.is_dir() else []
        known = f"; the splits there: {', '.join(splits)}" if splits else ""
        log.add(0, f"no qrels/{split}.tsv{known}")
    log.raise_if_any()
    return corpus, queries, split_file


@dataclass(frozen=True)
class _Categories:
    """How a query gets its category: the mapping, else a metadata field, else the default."""

    mapping: Mapping[str, str]
    field: str | None
    default: str

    def of(self, query: _Query, log: ProblemLog) -> str | None:
        """The query's category, or None (the problem recorded)."""
        if query.qid in self.mapping:
            category: Any = self.mapping[query.qid]
        elif self.field is not None:
            if self.field not in query.metadata:
                log.add(
                    query.line, f"metadata has no '{self.field}' (the category field)", query.qid
                )
                return None
            category = query.metadata[self.field]
        else:
            category = self.default
        problem = category_problem(category) if isinstance(category, str) else "must be text"
        if problem:
            log.add(query.line, f"category {category!r}: {problem}", query.qid)
            return None
        return str(category)


def read_beir(
    folder: Path,
    *,
    split: str = "test",
    max_grade: int = 3,
    category_field: str | None = None,
    categories: Mapping[str, str] | None = None,
    default_category: str = DEFAULT_CATEGORY,
    shown: str | None = None,
) -> BeirDataset:
    """Read a BEIR folder: golden queries for the judged queries of ``split``, and the corpus ids.

    A query's category is ``categories[qid]`` when given, else its metadata's
    ``category_field`` when given (missing: an error), else ``default_category``.
    Queries are in ``queries.jsonl`` order; those without a judgment in the split are
    left out and listed in :attr:`BeirDataset.left_out`. Raises :class:`FormatError`
    with every problem of every file.
    """
    shown = shown or str(folder)
    corpus_path, queries_path, qrels_path = _files(Path(folder), split, shown)
    corpus_log = ProblemLog(f"{shown}/corpus.jsonl")
    queries_log = ProblemLog(f"{shown}/queries.jsonl")
    qrels_log = ProblemLog(f"{shown}/qrels/{split}.tsv")
    corpus = _corpus_ids(corpus_path, corpus_log)
    queries = _queries(queries_path, queries_log)
    judgments, lines = _qrels(qrels_path, qrels_log, max_grade)
    _check_references(qrels_log, lines, queries, corpus)
    rules = _Categories(dict(categories or {}), category_field, default_category)
    golden = _golden(queries, judgments, rules, queries_log)
    problems = [*corpus_log.problems, *queries_log.problems, *qrels_log.problems]
    if problems:
        more = corpus_log.more + queries_log.more + qrels_log.more
        raise FormatError(problems, more)
    left_out = tuple(qid for qid in queries if qid not in judgments)
    return BeirDataset(shown, split, tuple(golden), frozenset(corpus), left_out)


def _golden(
    queries: Mapping[str, _Query],
    judgments: Mapping[str, Mapping[str, int]],
    rules: _Categories,
    log: ProblemLog,
) -> list[GoldenQuery]:
    for qid in rules.mapping:  # a query of another split may have one: it is left out
        if qid not in queries:
            log.add(0, "--categories gives a category for a query that is not in "
                    "queries.jsonl; fix its id or remove its line", qid)  # fmt: skip
    golden = []
    for qid, query in queries.items():
        if qid not in judgments:
            continue
        problem = golden_id_problem(qid)
        if problem:
            log.add(query.line, problem, qid)
            continue
        category = rules.of(query, log)
        if category is not None:
            golden.append(
                GoldenQuery(
                    qid,
                    query.text,
                    category,
                    relevant=dict(judgments[qid]),
                    path=log.shown,
                    line=query.line,
                )
            )
    return golden
