"""Golden queries: what a golden file holds, what the retriever is handed, the whole set.

Pure. Loading and validating a file is :mod:`pytest_retrieval.io.golden_yaml`; its
errors are :class:`GoldenFileError`, listing *every* :class:`Problem` in a file,
each naming the file, the line, the query id, what is wrong and how to fix it.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .quoting import escaped

QUERY_KEYS = (
    "id",
    "query",
    "category",
    "tags",
    "filters",
    "relevant",
    "expect",
    "forbid",
    "skip",
    "xfail",
)
DEFAULT_KEYS = ("category", "tags", "filters", "expect", "forbid", "skip", "xfail")
FILE_KEYS = ("defaults", "queries")
DEFAULT_CATEGORY = "uncategorized"


@dataclass(frozen=True)
class GoldenQuery:
    """One golden query, as handed to the retriever (``.id``, ``.text``, ...)."""

    id: str
    text: str
    category: str = DEFAULT_CATEGORY
    tags: tuple[str, ...] = ()
    filters: Mapping[str, Any] = field(default_factory=dict)
    relevant: Mapping[str, int] = field(default_factory=dict)
    expect: Mapping[str, float] = field(default_factory=dict)
    forbid: tuple[str, ...] = ()
    skip: str | None = None
    xfail: str | None = None
    path: str = ""
    line: int = 0
    # ``xfail`` given per configuration (``xfail: {titles: ignores filters}``): name -> reason
    xfail_in: Mapping[str, str] = field(default_factory=dict)

    @property
    def query(self) -> str:
        """The query text (same as ``.text``)."""
        return self.text

    def xfail_for(self, configuration: str) -> str | None:
        """Why the query's ``expect``/``forbid`` is expected to fail in ``configuration``
        (``xfail``: in every one, or per configuration); None when it is not."""
        return self.xfail_in.get(configuration, self.xfail)

    @property
    def location(self) -> str:
        """``golden/a.yaml:12`` (where an editor jumps to), or "" when not from a file."""
        if not self.path:
            return ""
        return f"{self.path}:{self.line}" if self.line else self.path

    def named(self, configuration: str) -> str:
        """``query 'id' [configuration] (golden/a.yaml:12)``: the head of its failure."""
        where = f" ({self.location})" if self.path else ""
        return f"query '{self.id}' [{configuration}]{where}"

    def has_nothing_to_find(self, threshold: int) -> bool:
        """No judgment reaches the relevance threshold: a run that finds nothing for it
        may leave it out (trec_eval's convention; ``retrieval_empty`` scores it)."""
        return not any(grade >= threshold for grade in self.relevant.values())

    @functools.cached_property
    def fingerprint(self) -> str:
        """A short hash of what decides the query's scores: its text and judgments."""
        return hashlib.sha256(fingerprint_text(self.text, self.relevant).encode()).hexdigest()[:16]


def fingerprint_text(text: str, relevant: Mapping[str, int]) -> str:
    """What a fingerprint hashes: the text ``json.dumps({"query": text, "relevant":
    relevant}, sort_keys=True, ensure_ascii=False)`` gives (baselines written by earlier
    versions hold hashes of it), put together from its parts at C speed: the encoder's
    walk took twice as long as the hash (tests/test_golden_model.py holds the two equal)."""
    grades = ", ".join(
        [f"{_json_string(doc)}: {int.__repr__(grade)}" for doc, grade in sorted(relevant.items())]
    )
    return f'{{"query": {_json_string(text)}, "relevant": {{{grades}}}}}'


_json_string = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) writes


@dataclass(frozen=True)
class RetrievalQuery:
    """What the retriever is handed: the query without its judgments.

    A fresh object per call, with its own copy of ``filters``, so a retriever that
    edits them cannot change what the next configuration sees.
    """

    id: str
    text: str
    category: str
    tags: tuple[str, ...]
    filters: Mapping[str, Any]

    @property
    def query(self) -> str:
        """The query text (same as ``.text``)."""
        return self.text

    @classmethod
    def of(cls, query: GoldenQuery) -> RetrievalQuery:
        filters = copy.deepcopy(dict(query.filters)) if query.filters else {}
        return cls(query.id, query.text, query.category, query.tags, filters)


@dataclass(frozen=True)
class Problem:
    """One problem in a golden file."""

    path: str
    line: int
    message: str
    query_id: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        who = f" query '{_printable(self.query_id)}':" if self.query_id else ""
        return f"{where}:{who} {_printable(self.message)}"


# a fix a message suggests, as written in YAML and in a JSON Lines golden file
_JSONL_SYNTAX = (
    ("'relevant: {}'", "'\"relevant\": {}'"),
    ("(doc-id: 3)", '({"doc-id": 3})'),
    ("'xfail: false'", "'\"xfail\": false'"),
    # JSON's true and false are booleans as written: YAML's yes and no are no reason
    (" (YAML reads yes, no, on, off, true and false as booleans: quote the id)", " (quote the id)"),
    (" (YAML reads yes, no, on, off, true and false as booleans)", ""),
)


def is_jsonl(path: str) -> bool:
    """A JSON Lines golden file (by its suffix), whose fixes are written in JSON."""
    return path.lower().endswith(".jsonl")


def in_syntax(path: str, message: str) -> str:
    """``message`` with the fixes it suggests in the syntax of the golden file at ``path``:
    ``'"relevant": {}'`` for a .jsonl file, where YAML's ``'relevant: {}'`` would not parse."""
    if not is_jsonl(path):
        return message
    for yaml_text, json_text in _JSONL_SYNTAX:
        message = message.replace(yaml_text, json_text)
    return message


# characters that show as nothing: soft hyphen, combining grapheme joiner, zero-width
# space and joiners, direction marks and embeddings, word joiner, byte-order mark, the
# Hangul fillers, Khmer's inherent vowels, Mongolian's variation selectors and vowel
# separator, the variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF), the tag characters
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f"
    "\U000e0100-\U000e01ef]"
)


def escape(char: str) -> str:
    """A character as a Python escape: ``\\u034f``, ``\\U000e0041``."""
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"


def _printable(text: str) -> str:
    """Text with its control characters (and lone surrogates) escaped, a tab as \\t, and
    the characters that show as nothing: one line in any message, one that encodes as
    UTF-8, and nothing hidden in it."""
    text = escaped(text)
    return text if text.isascii() else INVISIBLE.sub(lambda found: escape(found.group()), text)


class GoldenFileError(Exception):
    """Every problem found in one golden file, each once (two items of one flow list
    can make the same problem on one line), in line order."""

    def __init__(self, problems: list[Problem], readable: Sequence[GoldenQuery] = ()):
        self.problems = sorted(dict.fromkeys(problems), key=lambda p: (p.path, p.line))
        # the file's queries that were read whole despite the problems (their ids are
        # checked across files all the same, so a duplicate shows in the same run)
        self.readable = list(readable)
        super().__init__("\n".join(str(p) for p in problems))


def id_key(qid: str) -> str:
    """A query id as ids are compared for uniqueness: in Unicode's composed form (NFC), so
    'café' written with U+00E9 and with 'e' + U+0301 is one id (ASCII ids: as they are)."""
    return qid if qid.isascii() else unicodedata.normalize("NFC", qid)


def written_otherwise(qid: str, other: str) -> str:
    """For a duplicate id's message: how two ids equal only in NFC are written ('' if alike)."""
    if qid == other:
        return ""
    return (
        f", written {other!a} there and {qid!a} here: the same text in two Unicode "
        "forms (composed and decomposed characters), which look alike"
    )


class GoldenSet:
    """The queries of a whole run, across files: ids unique across the golden set."""

    def __init__(self) -> None:
        self.queries: dict[str, GoldenQuery] = {}
        self.categories: dict[str, GoldenQuery] = {}  # lower-cased -> first query using it
        self.recomposed: dict[str, GoldenQuery] = {}  # id_key -> query, for ids not in NFC
        # ("tag" or "category", id_key) -> the text as first written and its query
        self.forms: dict[tuple[str, str], tuple[str, GoldenQuery]] = {}
        self.folded: dict[str, GoldenQuery] = {}  # casefolded id_key -> first query using it

    def _same_id(self, query: GoldenQuery) -> GoldenQuery | None:
        """The query registered under the same id, or the same id in another Unicode form."""
        other = self.queries.get(query.id)
        key = id_key(query.id)
        if other is None and (key != query.id or self.recomposed):
            other = self.recomposed.get(key) or self.queries.get(key)
        return other

    def _problem(self, query: GoldenQuery, categories: dict[str, GoldenQuery]) -> Problem | None:
        other = self._same_id(query)
        if other is not None and (other.path, other.line) != (query.path, query.line):
            return Problem(
                query.path,
                query.line,
                f"duplicate id: already used in {other.path}:{other.line}"
                f"{written_otherwise(query.id, other.id)}; ids must be unique across the "
                "golden set",
                query.id,
            )
        first = categories.setdefault(query.category.lower(), query)
        if first.category != query.category:
            return Problem(
                query.path,
                query.line,
                f"category '{query.category}' differs only in case from '{first.category}' "
                f"({first.path}:{first.line}): the tables would show two rows; use one spelling",
                query.id,
            )
        return None

    def _forms_problem(
        self, query: GoldenQuery, forms: dict[tuple[str, str], tuple[str, GoldenQuery]]
    ) -> Problem | None:
        """A tag or a category written as another query wrote it, in another Unicode form."""
        named = [("category", query.category)] + [("tag", tag) for tag in query.tags]
        for what, text in named:
            other, first = forms.setdefault((what, id_key(text)), (text, query))
            if other != text and first is not query:  # its own tags: named as it is read
                rows = "rows" if what == "category" else "groups"
                return Problem(
                    query.path,
                    query.line,
                    f"{what} '{text}' is {what} '{other}' of {first.path}:{first.line}"
                    f"{written_otherwise(text, other)}: the tables would show two {rows}; "
                    "use one spelling",
                    query.id,
                )
        return None

    @staticmethod
    def _tag_case_problem(
        query: GoldenQuery, forms: dict[tuple[str, str], tuple[str, GoldenQuery]]
    ) -> Problem | None:
        """A tag another query wrote in other letter case (``core``, ``Core``): two groups
        under ``--retrieval-group-by tags``, as a category so written would be two rows."""
        for tag in query.tags:
            other, first = forms.setdefault(("tag case", id_key(tag).lower()), (tag, query))
            if id_key(other) != id_key(tag) and first is not query:
                return Problem(
                    query.path,
                    query.line,
                    f"tag '{tag}' differs only in case from '{other}' ({first.path}:"
                    f"{first.line}): --retrieval-group-by tags would show two groups; use one "
                    "spelling",
                    query.id,
                )
        return None

    def add_file(self, queries: list[GoldenQuery]) -> list[Problem]:
        """Register a file's queries; raise :class:`GoldenFileError` for ids used elsewhere
        and categories (or tags) spelled two ways. Returns advice: this file's ids that
        differ only in letter case from an id seen before (:func:`case_twins`)."""
        categories, forms = dict(self.categories), dict(self.forms)
        problems = [
            p
            for q in queries
            if (
                p := self._problem(q, categories)
                or self._forms_problem(q, forms)
                or self._tag_case_problem(q, forms)
            )
            is not None
        ]
        if problems:
            raise GoldenFileError(problems)
        self.categories, self.forms = categories, forms
        for query in queries:
            self.queries[query.id] = query
            if (key := id_key(query.id)) != query.id:
                self.recomposed[key] = query
        return case_twins(queries, self.folded)

    def problems_across(self, failed: GoldenFileError) -> list[Problem]:
        """The problems across files (an id another file uses) of the queries a file with
        problems of its own could read whole: said with those, not once they are fixed."""
        try:
            self.add_file(failed.readable)
        except GoldenFileError as exc:
            return exc.problems
        return []


def case_twins(
    queries: Iterable[GoldenQuery], folded: dict[str, GoldenQuery] | None = None
) -> list[Problem]:
    """Ids equal but for letter case (``Q1`` and ``q1``): not an error (ids are
    case-sensitive), but ``-k`` selects both and a case-insensitive file system or
    spreadsheet merges them. ``folded`` (casefolded id -> first query) is updated."""
    folded = {} if folded is None else folded
    found: list[Problem] = []
    for query in queries:
        other = folded.setdefault(id_key(query.id).casefold(), query)
        if other.id != query.id:
            found.append(
                Problem(
                    query.path,
                    query.line,
                    f"its id differs only in letter case from '{other.id}' "
                    f"({other.path}:{other.line}): -k selects both, and a case-insensitive "
                    "file system or spreadsheet mixes them up; rename one of them",
                    query.id,
                )
            )
    return found


def golden_digest(fingerprints: Mapping[str, str]) -> str:
    """A sha256 over every query's id and fingerprint (text and judgments), in id order."""
    digest = hashlib.sha256()
    for qid in sorted(fingerprints):
        digest.update(f"{qid}\0{fingerprints[qid]}\n".encode())
    return digest.hexdigest()
