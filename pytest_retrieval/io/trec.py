"""TREC files: qrels, topics and runs, read and written the way trec_eval reads them.

Pure: no pytest here. Ids are always text (``00123`` stays ``00123``). Every problem
is reported with the file, the line, the query id, what is wrong and how to fix it,
and a reader reports every problem of a file at once (:class:`FormatError`).

What trec_eval does, and what these readers do:

* qrels ``qid iter docno rel`` and runs ``qid Q0 docno rank score tag`` are split on
  ASCII whitespace; a line whose first character (after blanks) is ``#`` is a
  comment, a ``#`` inside an id is part of the id;
* a qrels grade of -1 means "in the pool but unjudged": the line is dropped and
  counted (:attr:`Qrels.unjudged`), so the document counts as unjudged;
* a run's rank column is ignored: a query's ranking is ordered by score, highest
  first, ties broken by docno in *descending* byte order, exactly as trec_eval
  sorts (it holds scores in single precision: scores alike to about 7 significant
  digits tie); a document twice in one query's ranking, or twice in one query's qrels,
  is an error (trec_eval refuses both).

Stricter than trec_eval (which reads a bad number as 0 and goes on): a grade must
be an integer, a score a finite number, a rank an integer, and a qrels line must
have exactly 4 fields. A run line needs 6; fields after the tag are ignored, as
trec_eval ignores them ("reserved for future expansion", its own test run has
them). Blank lines are allowed in both files.
"""

from __future__ import annotations

import array
import contextlib
import dataclasses
import functools
import itertools
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from ..bulk import paused_gc
from ..golden import DEFAULT_CATEGORY, GoldenQuery, Problem
from ..quoting import quoted
from .atomic import write_atomic
from .common import (
    FormatError,
    ProblemLog,
    block_fields,
    category_problem,
    counted,
    data_fields,
    golden_id_problem,
    has_space,
    read_blocks,
    read_lines,
)
from .joined_ids import Held, joined, split
from .run_columns import Columns, plain_columns

UNJUDGED_GRADE = -1
TopicField = Literal["title", "description", "narrative"]
TopicsFormat = Literal["auto", "trec", "tsv"]
_INTEGER = re.compile(r"[+-]?[0-9]+")
# a score as C's atof reads one whole, as trec_eval reads it: Python's float() also takes
# "1_000" and other scripts' digits, which atof reads as 1 and 0
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DIGITS = 18  # a grade written longer is none (and int() refuses past 4,300 digits)

# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class QueryJudgments:
    """One query's judgments in a qrels file: doc id -> grade, in file order."""

    qid: str
    grades: Mapping[str, int]
    line: int  # the query's first line in the file
    unjudged: int = 0  # its lines with grade -1, dropped


@dataclass(frozen=True)
class Qrels:
    """A qrels file: every query's judgments, in the order queries first appear."""

    path: str
    queries: Mapping[str, QueryJudgments]
    unjudged: int  # lines with grade -1 ("in the pool but unjudged"), dropped

    def judgments(self) -> dict[str, dict[str, int]]:
        """query id -> {doc id -> grade}, the shape the metrics and agreement take."""
        return {qid: dict(q.grades) for qid, q in self.queries.items()}


@dataclass(frozen=True)
class Topic:
    """One topic: its id, its fields (empty text when the file has no such field)."""

    qid: str
    title: str
    description: str = ""
    narrative: str = ""
    path: str = ""
    line: int = 0

    def text(self, field: TopicField = "title") -> str:
        """The text of one field: the query text a golden query gets."""
        if field == "title":
            return self.title
        if field == "description":
            return self.description
        if field == "narrative":
            return self.narrative
        raise ValueError(f"no topic field {field!r}; choose title, description or narrative")


class ScoredDoc(NamedTuple):
    """One retrieved document and its score (a pair: what a retriever returns too)."""

    doc: str
    score: float


class Ranking:
    """One query's ranking in a run, as columns: doc ids best first, and their scores.

    A run holds millions of results: the ids are held as one string (:mod:`.joined_ids`)
    and the scores as doubles in an array, 8 bytes each."""

    __slots__ = ("held", "scores")

    def __init__(self, held: Held, scores: Sequence[float]):
        self.held = held
        self.scores = scores if isinstance(scores, array.array) else array.array("d", scores)

    @classmethod
    def of(cls, docs: Sequence[str], scores: Sequence[float]) -> Ranking:
        return cls(joined(docs), scores)

    @property
    def docs(self) -> list[str]:
        """The ids, best first (a new list)."""
        return split(self.held)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Ranking):
            return NotImplemented
        return self.docs == other.docs and self.scores.tolist() == other.scores.tolist()

    def __repr__(self) -> str:
        return f"Ranking({self.docs!r}, {self.scores.tolist()!r})"


# What a note says of a run's queries listed in another order than their scores give
# (``replay``, ``evaluate``): after "N queries of RUN are".
REORDERED = (
    "listed in another order than the scores give (tied or rising scores): ranked as "
    "trec_eval ranks them, by score descending, then docno descending (the rank column "
    "is not used); write falling scores, distinct in single precision as trec_eval "
    "reads them (7 significant digits), to keep the file's order (negate distances): "
)
REORDERED_BRIEF = (
    "ranked by their scores, not in the file's order (tied or rising scores; without -q "
    "this says why): "
)


@dataclass(frozen=True)
class Run:
    """One run (one configuration, one run tag): query id -> ranking in trec_eval's order."""

    tag: str
    columns: Mapping[str, Ranking]
    # queries listed in another order than their scores give (ties, or rising scores):
    # their ranking is trec_eval's (by score; the rank column is not read), not the file's
    reordered: tuple[str, ...] = ()

    @functools.cached_property
    def rankings(self) -> Mapping[str, tuple[ScoredDoc, ...]]:
        """query id -> (doc, score) pairs, best first."""
        return {
            qid: tuple(map(ScoredDoc, ranking.docs, ranking.scores))
            for qid, ranking in self.columns.items()
        }

    def ids(self) -> dict[str, list[str]]:
        """query id -> ranked doc ids, best first."""
        return {qid: ranking.docs for qid, ranking in self.columns.items()}


@dataclass(frozen=True)
class Imported:
    """Golden queries made from qrels and topics, and what was left out."""

    queries: tuple[GoldenQuery, ...]
    left_out: tuple[str, ...] = ()  # topics without a single judgment: no query made
    unjudged: int = 0  # qrels lines with grade -1, dropped


def single_precision(scores: Sequence[float]) -> array.array[float]:
    """The scores as trec_eval compares them: it holds each in a C float (its
    ``TEXT_RESULTS.sim``), so doubles alike to about 7 significant digits tie
    (0.1234567891 and 0.1234567890; 16777217 and 16777216)."""
    return array.array("f", scores)


def trec_columns(docs: Sequence[str], scores: Sequence[float]) -> tuple[list[str], list[float]]:
    """trec_eval's ranking order, of one query's results as columns: score descending
    (in single precision, :func:`single_precision`), ties by docno descending (strcmp).
    Sorting (score, doc) triples in reverse is that order, compared at C speed; the
    documents are distinct, so no tie reaches the scores as read or the sort's stability."""
    # Python compares str by code point, which is the byte order of UTF-8: strcmp's order.
    ordered = sorted(zip(single_precision(scores), docs, scores, strict=True), reverse=True)
    return [doc for _, doc, _ in ordered], [score for _, _, score in ordered]


def trec_order(docs: Iterable[ScoredDoc]) -> tuple[ScoredDoc, ...]:
    """trec_eval's ranking order (:func:`trec_columns`) of (doc, score) pairs."""
    pairs = list(docs)
    ids, scores = trec_columns([d.doc for d in pairs], [d.score for d in pairs])
    return tuple(map(ScoredDoc, ids, scores))


# --------------------------------------------------------------------------- qrels


# lines not of 4 fields, and grades above the maximum, named one by one; the rest in one line
ABOVE_SHOWN = 3


def _no_iteration(fields: list[str]) -> bool:
    """'qid docno rel' (Cranfield's cranqrel, some exports): no iteration column."""
    return len(fields) == 3 and _INTEGER.fullmatch(fields[2]) is not None


def _fields_hint(fields: list[str]) -> str:
    """What a qrels line of another number of fields than 4 most likely lacks."""
    if _no_iteration(fields):
        return (
            "if it is 'qid docno rel', add the iteration column trec_eval ignores: "
            "'qid 0 docno rel'"
        )
    return "ids cannot hold spaces"


class _Lacking(NamedTuple):
    """Lines of a TREC file without one column trec_eval ignores, summed up past the first
    few: what a line holds, how they fall short, what they look like, the column and the fix."""

    expected: str  # "4 fields 'qid iter docno rel'"
    short: str  # "without 4 fields"
    shape: str  # 'qid docno rel'
    column: str  # "the iteration column"
    awk: str  # the command that adds it
    otherwise: str  # what to say when not every such line looks so
    hint: Callable[[list[str]], str]  # what one such line most likely lacks


_QRELS_LACKING = _Lacking(
    "4 fields 'qid iter docno rel'",
    "without 4 fields",
    "'qid docno rel'",
    "the iteration column",
    "awk '{print $1, 0, $2, $3}' FILE",
    "fields are separated by white space, so ids cannot hold spaces",
    _fields_hint,
)


def _name_lacking(
    log: ProblemLog, lacking: _Lacking, alike: list[bool], number: int, fields: list[str]
) -> None:
    """Note a line of the wrong number of fields (``alike[-1]``: whether it reads as
    ``lacking.shape``); the first few are named, the rest summed up at the file's end
    (:func:`_lacking_summary`)."""
    if len(alike) <= ABOVE_SHOWN:
        log.add(
            number,
            f"expected {lacking.expected}, got {len(fields)}: {' '.join(fields)!r}; "
            f"{lacking.hint(fields)}",
        )


def _lacking_summary(lacking: _Lacking, alike: Sequence[bool]) -> str:
    """The lines past the first few, in one line (``alike``: for each, whether it reads as
    ``lacking.shape``), with the fix for a whole file of those."""
    more = counted(len(alike) - ABOVE_SHOWN, "more line", "more lines")
    text = f"{more} {lacking.short} ({len(alike)} in all)"
    if all(alike):
        return (
            f"{text}, each {lacking.shape}: add {lacking.column} trec_eval ignores to every "
            f"line ({lacking.awk})"
        )
    return f"{text}: {lacking.otherwise}"


@dataclass
class _QrelsBuilder:
    """Collects a qrels file's judgments line by line, recording every problem."""

    log: ProblemLog
    max_grade: int
    grades: dict[str, dict[str, int]] = field(default_factory=dict)
    first_line: dict[str, int] = field(default_factory=dict)
    unjudged: dict[str, int] = field(default_factory=dict)
    seen: dict[tuple[str, str], int] = field(default_factory=dict)
    above: list[int] = field(default_factory=list)  # each grade above max_grade
    off: list[bool] = field(default_factory=list)  # lines not of 4 fields: 'qid docno rel'?

    def add(self, number: int, fields: list[str]) -> None:
        """Take one data line (its fields)."""
        if len(fields) != 4:
            self.off.append(_no_iteration(fields))
            _name_lacking(self.log, _QRELS_LACKING, self.off, number, fields)
            return
        qid, _iteration, doc, rel = fields
        grade = self._grade(number, qid, doc, rel)
        if (qid, doc) in self.seen:
            self.log.add(
                number,
                f"document '{doc}' is judged twice (first on line {self.seen[qid, doc]}); "
                "keep one line (trec_eval refuses duplicates too)",
                qid,
            )
            return
        self.seen[qid, doc] = number
        self.first_line.setdefault(qid, number)
        grades = self.grades.setdefault(qid, {})
        if grade == UNJUDGED_GRADE:
            self.unjudged[qid] = self.unjudged.get(qid, 0) + 1
        elif grade is not None:
            grades[doc] = grade

    def _grade(self, number: int, qid: str, doc: str, rel: str) -> int | None:
        if not _INTEGER.fullmatch(rel):
            self.log.add(
                number,
                f"grade {rel!r} of document '{doc}' is not an integer; write an integer "
                f"0..{self.max_grade}, or -1 for 'in the pool but unjudged'",
                qid,
            )
            return None
        if len(rel) > _DIGITS:  # past any grade (and past what int() reads, when very long)
            self.log.add(
                number,
                f"grade {rel[:_DIGITS]}... of document '{doc}' has {len(rel)} characters, far "
                f"outside 0..{self.max_grade}; write an integer 0..{self.max_grade}, or -1 for "
                "'in the pool but unjudged'",
                qid,
            )
            return None
        grade = int(rel)
        if grade > self.max_grade:
            self.above.append(grade)
            if len(self.above) <= ABOVE_SHOWN:  # the rest are summed up by finish()
                self.log.add(
                    number,
                    f"grade {grade} of document '{doc}' is above {self.max_grade} "
                    "(retrieval_max_grade); raise retrieval_max_grade in the ini file (the "
                    "plugin reads the same key) or map the grades down",
                    qid,
                )
            return None
        if grade < UNJUDGED_GRADE:
            self.log.add(
                number,
                f"grade {grade} of document '{doc}' is below -1; write -1 for 'in the pool "
                "but unjudged' (trec_eval reads every negative grade that way)",
                qid,
            )
            return None
        return grade

    def finish(self) -> None:
        """The file has ended: lines not of 4 fields and grades above the maximum past the
        first few, each kind in one line."""
        if len(self.off) > ABOVE_SHOWN:
            self.log.add(0, _lacking_summary(_QRELS_LACKING, self.off))
        if len(self.above) > ABOVE_SHOWN:
            highest = max(self.above)
            self.log.add(
                0,
                f"{len(self.above) - ABOVE_SHOWN} more grades above {self.max_grade} "
                f"({len(self.above)} in all, the highest {highest}): set retrieval_max_grade "
                f"= {highest} in the ini file (the plugin reads the same key) or map the "
                "grades down",
            )

    def result(self) -> Qrels:
        """The judgments read (meaningful when no problem was recorded)."""
        queries = {
            qid: QueryJudgments(qid, grades, self.first_line[qid], self.unjudged.get(qid, 0))
            for qid, grades in self.grades.items()
        }
        return Qrels(self.log.shown, queries, sum(self.unjudged.values()))


def read_qrels(path: Path, *, max_grade: int = 3, shown: str | None = None) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``).

    A grade of -1 is dropped and counted in :attr:`Qrels.unjudged`; a grade above
    ``max_grade`` (the project's ``retrieval_max_grade``), a grade that is not an
    integer, a malformed line or a document judged twice for one query is a
    :class:`FormatError` naming the file and line. ``shown`` names the file in
    messages (default: the path as given).
    """
    log = ProblemLog(shown or str(path))
    builder = _QrelsBuilder(log, max_grade)
    for number, fields in data_fields(path, log.shown):
        builder.add(number, fields)
    builder.finish()
    if not builder.grades and not log.problems:
        log.add(0, "the file holds no judgments; a qrels line is 'qid iter docno rel'")
    log.raise_if_any()
    return builder.result()


# --------------------------------------------------------------------------- runs


class _Piece(NamedTuple):
    """Consecutive lines of one (tag, query): their documents (held joined), scores and
    line numbers, and whether the documents are distinct (a repeat is named later)."""

    docs: Held
    scores: array.array[float]
    lines: Sequence[int]
    distinct: bool


def _no_q0(fields: list[str]) -> bool:
    """'qid docno rank score tag' (a run written without the Q0 column trec_eval ignores)."""
    return (
        len(fields) == 5
        and _INTEGER.fullmatch(fields[2]) is not None
        and bool(_DECIMAL.fullmatch(fields[3]))
    )


def _run_fields_hint(fields: list[str]) -> str:
    """What a run line of fewer than 6 fields most likely lacks."""
    if _no_q0(fields):
        return (
            "if it is 'qid docno rank score tag', add the Q0 column trec_eval ignores: "
            "'qid Q0 docno rank score tag'"
        )
    if len(fields) == 4 and _INTEGER.fullmatch(fields[3]):
        return "it reads as a qrels line ('qid iter docno rel'): was a qrels file given as a run?"
    return "a field is missing"


_RUN_LACKING = _Lacking(
    "6 fields 'qid Q0 docno rank score tag'",
    "with fewer than 6 fields",
    "'qid docno rank score tag'",
    "the Q0 column",
    "awk '{print $1, \"Q0\", $2, $3, $4, $5}' FILE",
    "a run line is 'qid Q0 docno rank score tag'",
    _run_fields_hint,
)


@dataclass
class _RunBuilder:
    """Collects a run file's results per tag and query, recording every problem."""

    log: ProblemLog
    pieces: dict[str, dict[str, list[_Piece]]] = field(default_factory=dict)
    reordered: dict[str, list[str]] = field(default_factory=dict)  # tag -> query ids
    short: list[bool] = field(default_factory=list)  # lines of < 6 fields: 'qid docno ...'?

    def add_block(self, first: int, block: bytes) -> None:
        """Take a block of whole lines starting at line ``first``."""
        columns = plain_columns(block)
        if columns is not None:  # nearly every block: read at C speed
            lines: Sequence[int] = range(first, first + len(columns.qids))
            self._add_columns(columns, lines)
            return
        checked = Columns([], [], [], [])
        numbers: list[int] = []
        for number, fields in block_fields(first, block, self.log.shown):
            line = self._checked(number, fields)
            if line is not None:
                for column, value in zip(checked, line, strict=True):
                    column.append(value)  # type: ignore[attr-defined]
                numbers.append(number)
        self._add_columns(checked, numbers)

    def _add_columns(self, columns: Columns, lines: Sequence[int]) -> None:
        """File lines, grouped into a piece per run of lines of one (tag, query)."""
        qids, docs, scores, tags = columns
        keys: Sequence[object] = qids if len(set(tags)) <= 1 else list(zip(tags, qids, strict=True))
        start = 0
        for _, group in itertools.groupby(keys):
            end = start + len(list(group))
            queries = self.pieces.setdefault(tags[start], {})
            ids, held_scores = docs[start:end], array.array("d", scores[start:end])
            distinct = len(set(ids)) == len(ids)
            piece = _Piece(joined(ids), held_scores, lines[start:end], distinct)
            queries.setdefault(qids[start], []).append(piece)
            start = end

    def _checked(self, number: int, fields: list[str]) -> tuple[str, str, float, str] | None:
        """(qid, doc, score, tag) of a well-formed line; None (and a problem) otherwise."""
        if len(fields) < 6:
            self.short.append(_no_q0(fields))
            _name_lacking(self.log, _RUN_LACKING, self.short, number, fields)
            return None
        qid, _q0, doc, rank, score_text, tag = fields[:6]  # trec_eval ignores what follows
        score = _finite(score_text)
        if score is None:
            self.log.add(
                number,
                f"score {score_text!r} of '{doc}' is not a finite number; the fifth field is "
                "the score, a number such as 12.5 in digits 0-9, as trec_eval reads it (no '_' "
                "between digits; inf and nan are refused)",
                qid,
            )
            return None
        if not _INTEGER.fullmatch(rank):
            self.log.add(
                number,
                f"rank {rank!r} of '{doc}' is not an integer; check the column order "
                "'qid Q0 docno rank score tag'",
                qid,
            )
            return None
        if not tag.isprintable():  # plain lines never hold one: checked here alone
            self.log.add(
                number,
                f"run tag {quoted(tag)} holds a control character (a binary or corrupt file?): "
                "a tag names its configuration in every table and report; fix it",
                qid,
            )
            return None
        return qid, doc, score, tag

    def _ranking(self, tag: str, qid: str, pieces: list[_Piece]) -> Ranking:
        """One query's results in trec_eval's order, each document once (repeats named)."""
        if len(pieces) == 1 and pieces[0].distinct:  # nearly every query: no list built
            held, scores, _, _ = pieces[0]
            if _falling(scores):
                return Ranking(held, scores)  # strictly falling scores: the file's order is it
            docs = split(held)
        else:
            docs = [d for piece in pieces for d in split(piece.docs)]
            scores = array.array("d", [s for piece in pieces for s in piece.scores])
            if len(set(docs)) != len(docs):
                lines = [n for piece in pieces for n in piece.lines]
                docs, scores = self._without_repeats(tag, qid, docs, scores, lines)
            if _falling(scores):
                return Ranking.of(docs, scores)
        ranking = Ranking.of(*trec_columns(docs, scores))
        if ranking.docs != docs:  # tied or rising scores: the file's order is not the ranking
            self.reordered.setdefault(tag, []).append(qid)
        return ranking

    def _without_repeats(
        self,
        tag: str,
        qid: str,
        given: Sequence[str],
        given_scores: Sequence[float],
        lines: Sequence[int],
    ) -> tuple[list[str], array.array[float]]:
        """The first line of each document; a problem for each later one."""
        first: dict[str, int] = {}
        docs: list[str] = []
        scores = array.array("d")
        for doc, score, number in zip(given, given_scores, lines, strict=True):
            if doc in first:
                self.log.add(
                    number,
                    f"document '{doc}' is retrieved twice in run '{tag}' (first on line "
                    f"{first[doc]}); keep one line (trec_eval refuses duplicates too)",
                    qid,
                )
                continue
            first[doc] = number
            docs.append(doc)
            scores.append(score)
        return docs, scores

    def result(self) -> dict[str, Run]:
        """Every run, each query's results in trec_eval's order."""
        columns = {
            tag: {qid: self._ranking(tag, qid, p) for qid, p in queries.items()}
            for tag, queries in self.pieces.items()
        }
        runs = {
            tag: Run(tag, found, tuple(self.reordered.get(tag, ())))
            for tag, found in columns.items()
        }
        self.log.problems.sort(key=lambda problem: problem.line)
        if len(self.short) > ABOVE_SHOWN:
            self.log.add(0, _lacking_summary(_RUN_LACKING, self.short))
        return runs


def _falling(scores: Sequence[float]) -> bool:
    """Whether the scores fall strictly, as trec_eval compares them (single precision)."""
    compared = single_precision(scores)
    return all(map(operator.gt, compared, itertools.islice(compared, 1, None)))


def _finite(text: str) -> float | None:
    if not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def read_run(path: Path, *, shown: str | None = None) -> dict[str, Run]:
    """Read a TREC run file (``qid Q0 docno rank score tag``): run tag -> :class:`Run`.

    One :class:`Run` per tag (one configuration per tag), in the order tags first
    appear. Each query's ranking is in trec_eval's order (score descending, ties by
    docno descending); the rank column is checked to be an integer and otherwise
    ignored, as trec_eval ignores it, and so are fields after the tag.
    """
    log = ProblemLog(shown or str(path))
    builder = _RunBuilder(log)
    with paused_gc():  # millions of results, no cycles among them
        for first, block in read_blocks(path, log.shown):
            builder.add_block(first, block)
        runs = builder.result()
        if not runs and not log.problems:
            log.add(0, "the file holds no results; a run line is 'qid Q0 docno rank score tag'")
        log.raise_if_any()
        return runs


# --------------------------------------------------------------------------- topics


_TAG = re.compile(r"<(/?)([A-Za-z]+)\s*>")
_FIELD_TAGS = {"num": "number", "title": "title", "desc": "description", "narr": "narrative"}
_PREFIXES = {
    "number": "number:",
    "title": "topic:",
    "description": "description:",
    "narrative": "narrative:",
}


@dataclass
class _OpenTopic:
    """A topic being read: where it began, its fields' text so far, the field being read."""

    line: int
    parts: dict[str, list[str]] = field(default_factory=dict)
    current: str | None = None


@dataclass
class _TopicParser:
    """The classic ``<top> <num> <title> <desc> <narr> </top>`` format, closing tags optional.

    Tags other than the four known ones (``<dom>``, ``<con>``, ``<head>``... of the
    early TREC topics) are accepted and their text is not used.
    """

    log: ProblemLog
    topics: dict[str, Topic] = field(default_factory=dict)
    open: _OpenTopic | None = None

    def feed(self, number: int, text: str) -> None:
        """Take one line: the tags on it and the text between them."""
        position = 0
        for match in _TAG.finditer(text):
            self._text(number, text[position : match.start()])
            self._tag(number, match.group(1) == "/", match.group(2).lower())
            position = match.end()
        self._text(number, text[position:])

    def _tag(self, number: int, closing: bool, name: str) -> None:
        if name == "top":
            self._top(number, closing)
        elif self.open is None:
            self.log.add(number, f"<{'/' if closing else ''}{name}> outside <top> ... </top>")
        elif closing:
            self.open.current = None
        else:
            self.open.current = _FIELD_TAGS.get(name, f"<{name}>")

    def _top(self, number: int, closing: bool) -> None:
        if closing and self.open is None:
            self.log.add(number, "</top> without an open <top>; remove it or add <top>")
        elif closing and self.open is not None:
            self._finish(self.open)
            self.open = None
        elif self.open is not None:
            self.log.add(
                number, f"<top> inside the topic begun on line {self.open.line}; add </top> before"
            )
            self.open = _OpenTopic(number)
        else:
            self.open = _OpenTopic(number)

    def _text(self, number: int, text: str) -> None:
        if not text.strip():
            return
        if self.open is None or self.open.current is None:
            where = "outside <top> ... </top>" if self.open is None else "before any field tag"
            self.log.add(number, f"text {where}: {text.strip()[:40]!r}; put it inside a field")
            return
        self.open.parts.setdefault(self.open.current, []).append(text)

    def _finish(self, topic: _OpenTopic) -> None:
        fields = {name: _field_text(name, pieces) for name, pieces in topic.parts.items()}
        number = fields.get("number", "").split()
        if len(number) != 1:
            got = "no <num>" if not number else f"<num> {' '.join(number)!r}"
            self.log.add(topic.line, f"topic has {got}; write '<num> Number: 401' (one id)")
            return
        qid = number[0]
        if qid in self.topics:
            first = self.topics[qid].line
            self.log.add(topic.line, f"topic defined twice (first on line {first}); keep one", qid)
            return
        self.topics[qid] = Topic(
            qid,
            fields.get("title", ""),
            fields.get("description", ""),
            fields.get("narrative", ""),
            self.log.shown,
            topic.line,
        )

    def end(self) -> None:
        """The file has ended: a topic still open is a problem."""
        if self.open is not None:
            self.log.add(self.open.line, "this topic is not closed; add </top>")


def _field_text(name: str, pieces: list[str]) -> str:
    """A field's text on one line, its label (``Number:``, ``Description:``...) removed."""
    text = " ".join(" ".join(pieces).split())
    prefix = _PREFIXES.get(name)
    if prefix and text.lower().startswith(prefix):
        text = text[len(prefix) :].strip()
    return text


_TSV_SHAPE = "expected 'qid<TAB>text' (an id without spaces, a tab, the text)"


def _tsv_topics(path: Path, log: ProblemLog) -> dict[str, Topic]:
    topics: dict[str, Topic] = {}
    off: dict[str, list[int]] = {"shape": [], "columns": []}  # the first few named, then a count
    for number, text in read_lines(path, log.shown):
        if not text.strip():
            continue
        qid, tab, query = text.partition("\t")
        if not tab or not qid.strip() or has_space(qid):
            off["shape"].append(number)
            if len(off["shape"]) <= ABOVE_SHOWN:
                comma = "," in text and "\t" not in text
                hint = "; comma-separated? put a tab between the id and the text" if comma else ""
                log.add(number, _TSV_SHAPE + hint)
            continue
        if "\t" in query.strip():  # a third column would end up inside the query's text
            off["columns"].append(number)
            if len(off["columns"]) <= ABOVE_SHOWN:
                columns = query.strip().count("\t") + 2
                log.add(number, f"{columns} tab-separated columns where {_TSV_COLUMNS}", qid)
            continue
        if qid in topics:
            log.add(number, f"topic defined twice (first on line {topics[qid].line})", qid)
            continue
        # a stray line break (a bare CR an old file's line ends left) becomes one space
        text = " ".join(part.strip() for part in query.splitlines() if part.strip())
        topics[qid] = Topic(qid, text, path=log.shown, line=number)
    summaries = {
        "shape": "not 'qid<TAB>text' (an id without spaces, a tab, the text)",
        "columns": "with more than 2 tab-separated columns: keep the id and the text (cut "
        "-f1,2 FILE, when the text is the second)",
    }
    for kind, lines in off.items():
        if len(lines) > ABOVE_SHOWN:
            more = counted(len(lines) - ABOVE_SHOWN, "more line", "more lines")
            log.add(0, f"{more} ({len(lines)} in all) {summaries[kind]}")
    return topics


_TSV_COLUMNS = (
    "'qid<TAB>text' has 2 (a third would be read into the text): keep the id and the text "
    "(cut -f1,2 FILE, when the text is the second)"
)


def _looks_like_sgml(path: Path, shown: str) -> bool:
    with contextlib.closing(read_lines(path, shown)) as lines:
        for _number, text in lines:
            if text.strip():
                return text.lstrip().startswith("<")
    return False


def read_topics(
    path: Path, *, format: TopicsFormat = "auto", shown: str | None = None
) -> dict[str, Topic]:
    """Read TREC topics: query id -> :class:`Topic`, in file order.

    Two formats: the classic one (``<top> <num> Number: 401 <title> ... <desc>
    Description: ... <narr> Narrative: ... </top>``; the labels after the tags are
    removed, a field's lines are joined with single spaces) and ``qid<TAB>text``
    (the text becomes the title; a line break inside it, as a bare CR, one space).
    ``auto`` picks the classic one when the first non-blank line starts with ``<``.
    Which field becomes the query text is chosen when converting
    (:func:`qrels_to_golden`).
    """
    log = ProblemLog(shown or str(path))
    classic = format == "trec" or (format == "auto" and _looks_like_sgml(path, log.shown))
    if classic:
        parser = _TopicParser(log)
        for number, text in read_lines(path, log.shown):
            parser.feed(number, text)
        parser.end()
        topics = parser.topics
    else:
        topics = _tsv_topics(path, log)
    if not topics and not log.problems:
        log.add(0, "the file holds no topics")
    log.raise_if_any()
    return topics


# --------------------------------------------------------------------------- writing


def _trec_id_problem(value: str, what: str) -> str | None:
    if not isinstance(value, str) or not value:
        return f"{what} must be non-empty text, got {value!r}"
    if has_space(value):
        return f"{what} {value!r} holds whitespace, which a TREC file cannot hold; rename it"
    return None


def _qid_problem(qid: str) -> str | None:
    """A query id starts a line: it must not read back as a comment or a byte-order mark."""
    problem = _trec_id_problem(qid, "the query id")
    if problem is None and qid.startswith("#"):
        problem = f"query id {qid!r} starts with '#': the line reads back as a comment; rename it"
    if problem is None and qid.startswith("\ufeff"):
        problem = f"query id {qid!r} starts with a byte-order mark, which readers drop; rename it"
    return problem


def qrels_text(judgments: Mapping[str, Mapping[str, int]], *, shown: str = "qrels") -> str:
    """The qrels file for ``judgments`` (query id -> {doc id -> grade}), in the given order.

    A query without judgments has no line: a qrels file cannot hold it (see
    :func:`write_qrels`, which returns such queries).
    """
    log = ProblemLog(shown)
    lines: list[str] = []
    for qid, grades in judgments.items():
        problem = _qid_problem(qid)
        for doc, grade in grades.items():
            problem = problem or _trec_id_problem(doc, "the document id")
            if problem is None and (isinstance(grade, bool) or not isinstance(grade, int)):
                problem = f"grade of document '{doc}' must be an integer >= 0, got {grade!r}"
            if problem is None and grade < 0:
                problem = f"grade of document '{doc}' must be >= 0, got {grade}"
            if problem is not None:
                break
            lines.append(f"{qid} 0 {doc} {grade}\n")
        if problem is not None:
            log.add(0, problem, str(qid))
    log.raise_if_any()
    return "".join(lines)


def write_qrels(
    path: Path, judgments: Mapping[str, Mapping[str, int]], *, shown: str | None = None
) -> tuple[str, ...]:
    """Write a qrels file atomically (iteration field ``0``).

    Returns the queries left out because they have no judgment (a no-result golden
    query): a qrels file cannot hold them, and trec_eval will not evaluate them.
    """
    write_atomic(path, qrels_text(judgments, shown=shown or str(path)))
    return tuple(qid for qid, grades in judgments.items() if not grades)


RankedDocs = Sequence[str] | Sequence[ScoredDoc]


def _scored(ranking: RankedDocs, qid: str, log: ProblemLog) -> list[tuple[str, str]] | None:
    """(doc, score text) per rank; scores synthesized (n, n-1, ..., 1) when none are known."""
    if isinstance(ranking, str):
        log.add(0, f"a ranking must be a list of ids, got the text {ranking!r}", qid)
        return None
    if all(isinstance(d, str) for d in ranking):
        n = len(ranking)
        return [(str(doc), str(n - rank)) for rank, doc in enumerate(ranking)]
    if not all(isinstance(d, ScoredDoc) for d in ranking):
        log.add(0, "a ranking holds either ids or ScoredDoc, not both", qid)
        return None
    docs = [d for d in ranking if isinstance(d, ScoredDoc)]
    if any(not math.isfinite(d.score) for d in docs):
        log.add(0, "scores must be finite numbers", qid)
        return None
    if trec_order(docs) != tuple(docs):
        log.add(
            0,
            "the ranking is not in trec_eval's order (score descending, ties by docno "
            "descending), so trec_eval would reorder it; write ids only to get synthesized "
            "scores, or sort it with trec_order()",
            qid,
        )
        return None
    return [(d.doc, repr(float(d.score))) for d in docs]


def _run_problem(qid: str, docs: Sequence[str]) -> str | None:
    problem = _qid_problem(qid)
    for doc in docs:
        problem = problem or _trec_id_problem(doc, "the document id")
    if problem is None and len(set(docs)) != len(docs):
        problem = "a document appears twice in the ranking; trec_eval refuses duplicates"
    return problem


def _run_lines(tag: str, qid: str, ranking: RankedDocs, log: ProblemLog) -> list[str]:
    scored = _scored(ranking, qid, log)
    if scored is None:
        return []
    problem = _run_problem(qid, [doc for doc, _ in scored])
    if problem:
        log.add(0, f"run '{tag}': {problem}", str(qid))
        return []
    return [
        f"{qid} Q0 {doc} {rank} {score} {tag}\n"
        for rank, (doc, score) in enumerate(scored, start=1)
    ]


def run_text(runs: Mapping[str, Mapping[str, RankedDocs]], *, shown: str = "run") -> str:
    """The run file for ``runs`` (run tag = configuration -> query id -> ranking).

    A ranking of ids gets scores n, n-1, ..., 1 (strictly decreasing, so trec_eval
    keeps the order); a ranking of :class:`ScoredDoc` keeps its scores and must
    already be in trec_eval's order. An empty ranking has no line.
    """
    log = ProblemLog(shown)
    for tag in runs:  # named once, not with each of its queries
        problem = _trec_id_problem(tag, "the run tag")
        if problem:
            log.add(0, f"run '{tag}': {problem}")
    lines = [
        line
        for tag, queries in runs.items()
        if not _trec_id_problem(tag, "the run tag")
        for qid, ranking in queries.items()
        for line in _run_lines(tag, qid, ranking, log)
    ]
    log.raise_if_any()
    return "".join(lines)


def write_run(
    path: Path, runs: Mapping[str, Mapping[str, RankedDocs]], *, shown: str | None = None
) -> tuple[tuple[str, str], ...]:
    """Write a run file atomically; see :func:`run_text`.

    Returns the (tag, query id) pairs left out because their ranking is empty: a run
    file cannot hold an empty ranking (trec_eval scores such a query 0 only under -c).
    """
    write_atomic(path, run_text(runs, shown=shown or str(path)))
    return tuple((tag, qid) for tag, queries in runs.items() for qid, r in queries.items() if not r)


# --------------------------------------------------------------------------- to golden


def _topic_text(topic: Topic | None, field: TopicField, qid: str, qrels: Qrels) -> str | Problem:
    if topic is None:
        line = qrels.queries[qid].line
        return Problem(
            qrels.path, line, "judged in the qrels but not in the topics; add the topic", qid
        )
    text = topic.text(field)
    if not text.strip():
        return Problem(
            topic.path,
            topic.line,
            f"the topic has no {field} text; fill it in or pick another field",
            qid,
        )
    return text


_UNKNOWN_CATEGORY = (
    "--categories gives a category for a query that neither the qrels nor the topics "
    "have; fix its id or remove its line"
)


def qrels_to_golden(
    qrels: Qrels,
    topics: Mapping[str, Topic],
    *,
    field: TopicField = "title",
    categories: Mapping[str, str] | None = None,
    default_category: str = DEFAULT_CATEGORY,
) -> Imported:
    """Golden queries from qrels and topics: one per judged topic, in qrels order.

    The query text is the topic's ``field``; the category comes from
    ``categories`` (query id -> category), else ``default_category``. A judged
    query without a topic, a topic without text in ``field``, an id that cannot be
    a golden id, a bad category, or a category given for a query that is neither in
    the qrels nor in the topics (a likely typo) is a :class:`FormatError`. Topics
    without any judgment are left out and listed in :attr:`Imported.left_out`, their
    categories with them (a no-result query, which ``export trec`` leaves out of the
    qrels); so is a topic whose every line is -1.
    """
    categories = dict(categories or {})
    problems: list[Problem] = []
    for qid in categories:
        if qid not in qrels.queries and qid not in topics:
            problems.append(Problem(qrels.path, 0, _UNKNOWN_CATEGORY, qid))
    queries: list[GoldenQuery] = []
    unpadded = {t.lstrip("0"): t for t in topics}
    for qid, judged in qrels.queries.items():
        made = _golden_query(
            qrels, judged, topics.get(qid), field, categories.get(qid, default_category)
        )
        if isinstance(made, Problem):
            near = None if qid in topics else unpadded.get(qid.lstrip("0"))
            problems.append(made if near is None else _padded(made, near))
        elif made is not None:
            queries.append(made)
    if problems:
        raise FormatError(problems)
    made_ids = {q.id for q in queries}
    left_out = tuple(qid for qid in [*topics, *qrels.queries] if qid not in made_ids)
    return Imported(tuple(queries), tuple(dict.fromkeys(left_out)), qrels.unjudged)


def _padded(problem: Problem, topic: str) -> Problem:
    """A judged query without a topic, when a topic has its id with other leading zeros
    (the topics '001', the qrels '1'): ids are text, so they are different queries."""
    message = (
        f"{problem.message}; the topics have '{topic}': ids are compared as text, so "
        f"'{topic}' is another query (if both name one query, write its id alike in both)"
    )
    return dataclasses.replace(problem, message=message)


def _golden_query(
    qrels: Qrels, judged: QueryJudgments, topic: Topic | None, field: TopicField, category: str
) -> GoldenQuery | Problem | None:
    qid = judged.qid
    if not judged.grades:
        return None  # every line was -1: nothing judged, not a no-result query
    problem = golden_id_problem(qid) or category_problem(category)
    if problem:
        return Problem(qrels.path, judged.line, problem, qid)
    text = _topic_text(topic, field, qid, qrels)
    if isinstance(text, Problem):
        return text
    return GoldenQuery(
        id=qid,
        text=text,
        category=category,
        relevant=dict(judged.grades),
        path=qrels.path,
        line=judged.line,
    )
