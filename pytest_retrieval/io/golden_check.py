"""Golden files checked field by field: one table (:data:`FIELDS`) every query goes through.

Pure. The parsers (:mod:`.golden_yaml`, :mod:`.golden_jsonl`) hand over plain data
whose mappings and lists may carry line numbers (:class:`Lines`, :class:`Seq`);
:func:`check_file` turns it into queries, or raises
:class:`~pytest_retrieval.golden.GoldenFileError` listing *every* problem, each
naming the file, the line, the query id, what is wrong and how to fix it.
"""

from __future__ import annotations

import datetime
import decimal
import difflib
import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeGuard

from ..golden import (
    DEFAULT_CATEGORY,
    DEFAULT_KEYS,
    FILE_KEYS,
    INVISIBLE,
    QUERY_KEYS,
    GoldenFileError,
    GoldenQuery,
    Problem,
    escape,
    id_key,
    in_syntax,
    written_otherwise,
)
from ..metrics import MetricNameError, parse_metric
from ..model import RESERVED_CATEGORIES
from ..quoting import quoted, with_article

FORBIDDEN_ID_CHARS = ("[", "]", "::")
MAX_DEPTH = 64  # mappings and lists nested deeper are refused (a golden file needs ~6)
TOO_DEEP = (  # with the fix: no golden value (a filter, an expect) needs that many levels
    f"values are nested more than {MAX_DEPTH} levels deep; a golden query needs a few "
    "levels at most: flatten the value (a filters value, say)"
)

# --------------------------------------------------------------------------- values with lines


_NONE_WRITTEN: Mapping[Any, str] = MappingProxyType({})


class Lines(dict[Any, Any]):
    """A mapping that remembers the 1-based line of itself and of each key, and (YAML)
    how each key and value YAML read as a boolean, null, a float or a date was written."""

    line: int = 0
    key_lines: dict[Any, int]
    duplicates: list[tuple[Any, int, int]]
    key_written: Mapping[Any, str] = _NONE_WRITTEN
    written: Mapping[Any, str] = _NONE_WRITTEN


class Seq(list[Any]):
    line: int = 0
    item_lines: list[int]
    item_written: Mapping[int, str] = _NONE_WRITTEN


class Int(int):
    """An integer that remembers how it was written (``00123`` is YAML 1.1's 83)."""

    source: str = ""


def octal_grade(doc: str, grade: int) -> str | None:
    """Why a grade written with a leading zero that YAML 1.1 reads as octal (``010`` as 8)
    is refused, naming it as written; None for any other grade (``02`` is 2 either way)."""
    written = getattr(grade, "source", "")
    digits = written.lstrip("+-").replace("_", "")
    if not (digits.startswith("0") and digits.isdigit()) or int(digits) == abs(grade):
        return None
    return (
        f"grade of '{doc}' is written {written}, which YAML reads as the octal number "
        f"{int(grade)}; write {digits.lstrip('0')} (or {int(grade)}, if that is meant)"
    )


def repeated(key: Any, first: int, again: int = 0) -> str:
    where = "in one object" if first == again else f"(first on line {first})"
    return f"key {key!r} appears twice {where}; keep one: only the last would count"


def too_deep(value: Any) -> bool:
    """Whether mappings and lists in ``value`` nest past MAX_DEPTH (looked at without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def duplicate_keys(value: Any) -> list[tuple[Any, int, int]]:
    """Every repeated key inside a loaded value: (key, first line, repeated line)."""
    found: list[tuple[Any, int, int]] = []
    if isinstance(value, Lines):
        found.extend(value.duplicates)
        for item in value.values():
            found.extend(duplicate_keys(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(duplicate_keys(item))
    return found


# --------------------------------------------------------------------------- small helpers


# What other tools and datasets call a golden query's keys (BEIR's "text", a "qid", a
# "qrels"), which no spelling distance finds: the hint names ours.
_OTHER_NAMES = {
    "query": ("text", "question", "q", "query_text", "prompt", "question_text"),
    "id": ("qid", "query_id", "_id", "uid"),
    "relevant": (
        "qrels", "relevance", "judgments", "judgements", "relevant_docs", "relevant_ids",
        "answers", "ground_truth", "gold", "labels", "positives",
    ),
    "forbid": ("forbidden", "excluded", "exclude", "must_not", "blocklist", "negatives"),
    "category": ("type", "kind", "group", "intent"),
}  # fmt: skip
_SYNONYMS = {other: ours for ours, others in _OTHER_NAMES.items() for other in others}


def _closest_key(word: Any, valid: tuple[str, ...]) -> str | None:
    ours = _SYNONYMS.get(str(word).lower())
    if ours in valid:
        return ours
    close = difflib.get_close_matches(str(word), valid, n=1, cutoff=0.6)
    return close[0] if close else None


def _closest(word: Any, valid: tuple[str, ...]) -> str:
    close = _closest_key(word, valid)
    if close is not None:
        return f" (did you mean '{close}'?)"
    return f"; valid keys: {', '.join(valid)}"


_LIST_OF_GRADES = "; to grade documents, make 'relevant' a mapping: {d1: 2, d2: 1}"


def _grade_fix(grade: Any) -> str:
    """How to write a grade that is not an integer as one."""
    if isinstance(grade, str) and grade.strip().isdigit():
        return f"; write {grade.strip()} without quotes"
    if isinstance(grade, float) and grade.is_integer():
        return f"; write {int(grade)}"
    if isinstance(grade, float):
        return (
            "; grades are whole numbers: for a finer scale, multiply every grade and "
            "retrieval_max_grade alike (1.5 -> 3 with twice the maximum)"
        )
    return ""


def _misspelled(raw: Mapping[Any, Any], key: str) -> bool:
    """Whether an unknown key of ``raw`` is named as a misspelling of ``key`` (``relevent``):
    its message says the fix, where "'relevant' is missing" would mislead (write
    'relevant: {}' for a no-result query)."""
    return any(k not in QUERY_KEYS and _closest_key(k, QUERY_KEYS) == key for k in raw)


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {
        "str": "text",
        "int": "an integer",
        "float": "a number",
        "bool": "a boolean",
        "Int": "an integer",
        "Lines": "a mapping",
        "Seq": "a list",
        "dict": "a mapping",
        "list": "a list",
    }.get(type(value).__name__, type(value).__name__)


def _got(value: Any) -> str:
    """What a refused value is, after "got": empty or blank text shown as written (it is
    text, so "got text" alone would not say what is wrong with it)."""
    if isinstance(value, str) and not value.strip():
        return f"{'blank' if value else 'empty'} text {value!r}"
    return _type_name(value)


def _as_id(value: Any) -> str | None:
    """Ids may be written as text or integers (``id: 42``); anything else is invalid."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int):
        return str(value)
    return None


# C0 and C1 control characters and DEL (\t, \n, \x1b, \x94...)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_INVISIBLE = INVISIBLE


def _misread(value: Any, what: str = "id") -> str | None:
    """Why an id (or a tag) as YAML read it is not what was written, or None when it is."""
    if isinstance(value, Int) and value.source != str(int(value)):
        return (
            f"{what} {value.source} is read by YAML as the number {int(value)}; quote it "
            f"('{value.source}') to keep it as text"
        )
    if isinstance(value, str) and _CONTROL.search(value) is not None:
        return f"{what} {value!r} holds a tab, a newline or another control character; remove it"
    return None


def yaml_misread(value: Any, written: str | None, what: str = "id") -> str | None:
    """Why a value meant as text that YAML read as a boolean, null, a float or a date
    (``no``, ``null``, ``1.10``, ``2024-01-01``) is refused, named as written; None for
    any other value, or when how it was written is not known (JSON's true is a boolean)."""
    if not written:
        return None
    if isinstance(value, bool):
        kind = f"the boolean {str(value).lower()} (yes, no, on, off, true, false)"
    elif value is None:
        kind = "null (no value)"
    elif isinstance(value, float):
        kind = f"the number {value!r}"
    elif isinstance(value, datetime.datetime):
        kind = "a date and time"
    elif isinstance(value, datetime.date):
        kind = "a date"
    else:
        return None
    return f"{what} {written} is read by YAML as {kind}; quote it ('{written}') to keep it as text"


def _escaped(text: str) -> str:
    """``repr(text)`` with its invisible characters escaped too (``'x\\u200b'``)."""
    return _INVISIBLE.sub(lambda found: escape(found.group()), repr(text))


def _invisible(qid: str, what: str = "id", plural: str = "ids") -> str | None:
    """Why an id (or a category) that holds an invisible character is refused: two would
    look the same (two node ids; a judged document's id and the retriever's, which never
    match; two rows of a table)."""
    hidden = _INVISIBLE.search(qid)
    if hidden is None:
        return None
    return (
        f"{what} {_escaped(qid)} holds an invisible character (U+{ord(hidden.group()):04X}, "
        f"copied from a web page or a document?): two {plural} would look the same; remove it"
    )


def category_text_problem(category: str) -> str | None:
    """Why a category's text is refused, as an id's is: a control character (a newline
    makes a phantom row in a Markdown table), white space at its start or end or an
    invisible character (``x``, ``x `` and ``x\\u200b`` would be three rows labelled x)."""
    misread = _misread(category, "category")
    if misread is not None:
        return misread
    if category.strip() != category:
        return (
            f"category {category!r} has white space at its start or end (its row would look "
            f"like the row of {category.strip()!r}); write {category.strip()!r}"
        )
    return _invisible(category, "category", "categories")


def _misjudged(value: Any) -> str | None:
    """Why a judged document id (a key of ``relevant``, an entry of ``forbid``) is refused:
    misread, or text no result id written without it would match (white space at its
    start or end, an invisible character); None when it is fine."""
    misread = _misread(value)
    if misread is not None or not isinstance(value, str):
        return misread
    if value.strip() != value:
        return (
            f"id {value!r} has white space at its start or end, so no result id matches it; "
            f"write {value.strip()!r}"
        )
    return _invisible(value)


def written_id_problem(value: Any) -> str | None:
    """Why an id of a file that is merged into golden files (a worklist's query and
    document ids) is refused as a judged id is: YAML read it as another value (``00123``
    as 83, ``yes`` as true), or no result id would match it; None when it is fine."""
    if isinstance(value, bool):
        return (
            f"id {str(value).lower()} is read by YAML as a boolean (yes, no, on, off, true, "
            "false): quote it to keep it as text"
        )
    if value == "":
        return "id is empty: fill it in, or delete the entry"
    return _misjudged(value)


def _forms(doc: str, other: str) -> str:
    """The end of a message on a document judged twice: in two Unicode forms, or alike."""
    if doc == other:
        return "; keep one"
    return (
        f"{written_otherwise(doc, other)}: one document judged twice, and a result id "
        "matches one form only; keep one"
    )


# what a list holding one text in two Unicode forms would do
_TWO_FORMS = {
    "forbid": "a result id matches one form only",
    "tags": "the query would count in two groups that look alike",
}


def _forbidden_otherwise(relevant: Any, forbid: Any) -> list[tuple[str, str]]:
    """Each forbidden id that a judged id writes in another Unicode form, with that id."""
    if not isinstance(relevant, dict) or not forbid:
        return []
    if all(f.isascii() for f in forbid) and all(d.isascii() for d in relevant):
        return []
    judged = {id_key(doc): doc for doc in relevant}
    return [(f, judged[k]) for f in forbid if (k := id_key(f)) in judged and judged[k] != f]


def key_what(key: str) -> str:
    """What one item of a list of text is called in a message: a tag, or an id."""
    return "tag" if key == "tags" else "id"


def _item_written(items: Sequence[Any], index: int) -> str | None:
    return items.item_written.get(index) if isinstance(items, Seq) else None


def _written(mapping: Any, key: Any) -> str | None:
    return mapping.written.get(key) if isinstance(mapping, Lines) else None


def _line_of(mapping: Any, key: Any) -> int:
    if isinstance(mapping, Lines):
        return mapping.key_lines.get(key, mapping.line)
    return 0


def _plain(value: Any) -> Any:
    """Strip the line-tracking subclasses so users get ordinary dicts and lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _Invalid:
    """A field that failed its check (the problem is recorded): the query is not built."""


INVALID = _Invalid()


# --------------------------------------------------------------------------- field checks


@dataclass
class Checker:
    """Validate the queries of one file, collecting every problem."""

    shown: str
    max_grade: int

    def __post_init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, line: int, message: str, query_id: str | None = None) -> None:
        self.problems.append(Problem(self.shown, line, in_syntax(self.shown, message), query_id))

    # -- one field each: (value, line, query id) -> the parsed value, or INVALID ------
    def text(self, value: Any, line: int, qid: str | None) -> object:
        if isinstance(value, str) and value.strip():
            return value
        shown = "" if value is None else f" {value!r}"  # "nothing (null)" says it all
        fix = "; write the query's text after 'query:'" if value is None else ""
        self.add(line, f"'query' must be non-empty text, got {_type_name(value)}{shown}{fix}", qid)
        return INVALID

    def category(self, value: Any, line: int, qid: str | None) -> object:
        if not isinstance(value, str) or not value.strip():
            self.add(line, f"'category' must be non-empty text, got {_got(value)}", qid)
            return INVALID
        odd = category_text_problem(value)
        if odd is not None:
            self.add(line, odd, qid)
            return INVALID
        if value.strip().lower() in RESERVED_CATEGORIES:
            self.add(
                line,
                f"category '{value}' is reserved for the overall row of the tables; "
                "choose another name",
                qid,
            )
            return INVALID
        return value

    def filters(self, value: Any, line: int, qid: str | None) -> object:
        if isinstance(value, dict):
            return _plain(value)
        self.add(line, f"'filters' must be a mapping (network: base), got {_type_name(value)}", qid)
        return INVALID

    def tags(self, value: Any, line: int, qid: str | None) -> object:
        return self.text_list([value] if isinstance(value, str) else value, line, qid, "tags")

    def forbid(self, value: Any, line: int, qid: str | None) -> object:
        return self.text_list(value, line, qid, "forbid")

    def text_list(self, value: Any, line: int, qid: str | None, key: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            fix = ""
            if isinstance(value, str):  # one id, written without its brackets
                listed = json.dumps([value], ensure_ascii=False)  # YAML and JSON alike
                fix = f" {quoted(value)}: write it as a list, {listed}"
            self.add(line, f"'{key}' must be a list of text, got {_type_name(value)}{fix}", qid)
            return ()
        out: list[str] = []
        forms: dict[str, str] = {}  # id_key -> the text as first written
        for index, item in enumerate(value):
            text = _as_id(item)
            item_line = value.item_lines[index] if isinstance(value, Seq) else line
            misread = yaml_misread(item, _item_written(value, index), key_what(key))
            if misread is not None:
                self.add(item_line, f"'{key}': {misread}", qid)
                continue
            if text is None:
                self.add(item_line, f"'{key}' must hold only text, got {_got(item)}", qid)
                continue
            misread = _misread(item, "tag") if key == "tags" else _misjudged(item)
            if misread is not None:
                self.add(item_line, f"'{key}': {misread}", qid)
            other = forms.setdefault(id_key(text), text)
            if other != text:  # the same text in another Unicode form
                forms_said = f"{written_otherwise(text, other)}: {_TWO_FORMS[key]}"
                self.add(item_line, f"'{key}' lists '{text}' twice{forms_said}; keep one", qid)
            elif key == "tags" and text in out:  # a forbidden id twice forbids it alike
                said = "the query would count twice in its group; keep one"
                self.add(item_line, f"'tags' lists '{text}' twice: {said}", qid)
            out.append(text)
        return tuple(out)

    def skip(self, value: Any, line: int, qid: str | None) -> object:
        return self.reason(value, line, qid, "skip")

    def xfail(self, value: Any, line: int, qid: str | None) -> object:
        if isinstance(value, dict):  # per configuration: {titles: ignores filters}
            return self._xfail_in(value, line, qid)
        return self.reason(value, line, qid, "xfail")

    def _xfail_in(self, value: dict[Any, Any], line: int, qid: str | None) -> object:
        """``xfail`` per configuration: each name's reason (or true); None when none is set."""
        out: dict[str, str] = {}
        for name, reason in value.items():
            where = _line_of(value, name) or line
            if not isinstance(name, str) or not name.strip():
                self.add(
                    where,
                    "'xfail' maps configuration names to reasons (titles: ignores filters), "
                    f"got the name {_got(name)}",
                    qid,
                )
                return INVALID
            said = self.reason(reason, where, qid, f"xfail: {name}")
            if said is not None:
                out[name] = said
        return out or None

    def reason(self, value: Any, line: int, qid: str | None, key: str) -> str | None:
        if value is True:
            return f"{key} set in the golden file"
        if value is False or value is None:
            return None
        if isinstance(value, str) and value.strip():
            return value
        self.add(line, f"'{key}' must be a reason (text) or true, got {_got(value)}", qid)
        return None

    def relevant(self, value: Any, line: int, qid: str | None) -> object:
        if value is None:
            self.add(
                line,
                "'relevant' is empty; write 'relevant: {}' for a no-result query, or map "
                "ids to grades (doc-id: 3)",
                qid,
            )
            return INVALID
        if isinstance(value, list):
            return self._relevant_list(value, line, qid)
        if not isinstance(value, dict):
            self.add(
                line,
                f"'relevant' must map ids to grades (doc-id: 3) or list ids, "
                f"got {_type_name(value)}",
                qid,
            )
            return INVALID
        grades: dict[str, int] = {}
        forms: dict[str, str] = {}  # id_key -> the id as first written
        written = value.key_written if isinstance(value, Lines) else _NONE_WRITTEN
        for key, grade in value.items():
            misread = yaml_misread(key, written.get(key))
            if misread is not None:
                self.add(_line_of(value, key) or line, f"'relevant': {misread}", qid)
                continue
            at = _line_of(value, key) or line
            self._grade((grades, forms), key, grade, at, qid, _written(value, key))
        return grades

    def _bool_grade(self, doc: str, grade: bool, written: str | None) -> str:
        """A grade YAML read as a boolean (``yes``, ``no``), named as written; JSON's
        ``true`` is a boolean as written."""
        fix = f"write a number 0..{self.max_grade} (0 = judged not relevant)"
        if written is None:
            return f"grade of '{doc}' is the boolean {str(grade).lower()}, not a number; {fix}"
        return (
            f"grade of '{doc}' is written {written!r}, which YAML reads as the boolean "
            f"{str(grade).lower()} (yes, no, on, off, true, false); {fix}"
        )

    def _relevant_list(self, value: list[Any], line: int, qid: str | None) -> dict[str, int]:
        grades: dict[str, int] = {}
        forms: dict[str, str] = {}
        for index, item in enumerate(value):
            doc = _as_id(item)
            item_line = value.item_lines[index] if isinstance(value, Seq) else line
            misread = yaml_misread(item, _item_written(value, index))
            if misread is not None:
                self.add(item_line, f"'relevant': {misread}", qid)
            elif doc is None:
                fix = _LIST_OF_GRADES if isinstance(item, Mapping) else ""
                self.add(item_line, f"'relevant' list must hold ids, got {_got(item)}{fix}", qid)
            elif _misjudged(item) is not None:
                self.add(item_line, f"'relevant': {_misjudged(item)}", qid)
            elif id_key(doc) in forms:
                other = forms[id_key(doc)]
                self.add(item_line, f"'relevant' lists '{doc}' twice{_forms(doc, other)}", qid)
            else:
                grades[doc] = 1
                forms[id_key(doc)] = doc
        return grades

    def _grade(
        self,
        judged: tuple[dict[str, int], dict[str, str]],
        key: Any,
        grade: Any,
        line: int,
        qid: str | None,
        written: str | None = None,
    ) -> None:
        """One judgment; ``written``: the grade as written, when YAML read it as another
        value (``yes`` as true)."""
        grades, forms = judged
        doc = _as_id(key)
        if doc is None and isinstance(key, str):
            self.add(line, f"'relevant' has an empty id {key!r}; give each document its id", qid)
        elif doc is None:
            self.add(line, f"'relevant' has an id that is not text: {key!r}", qid)
        elif _misjudged(key) is not None:
            self.add(line, f"'relevant': {_misjudged(key)}", qid)
        elif isinstance(grade, bool):
            self.add(line, self._bool_grade(doc, grade, written), qid)
        elif not isinstance(grade, int):
            self.add(
                line,
                f"grade of '{doc}' must be an integer 0..{self.max_grade}, "
                f"got {_type_name(grade)} {grade!r}{_grade_fix(grade)}",
                qid,
            )
        elif (octal := octal_grade(doc, grade)) is not None:
            self.add(line, octal, qid)
        elif doc in grades:
            self.add(
                line, f"'relevant' names '{doc}' twice (as text and as a number); keep one", qid
            )
        elif id_key(doc) in forms:  # the same id in another Unicode form
            other = forms[id_key(doc)]
            self.add(line, f"'relevant' names '{doc}' twice{_forms(doc, other)}", qid)
        elif grade < 0:  # TREC's -1 "unjudged": raising the maximum cannot help
            self.add(
                line,
                f"grade of '{doc}' is {grade}, below 0: grades are 0..{self.max_grade} "
                "(0 = judged not relevant); write 0, or leave an unjudged document out",
                qid,
            )
        elif grade > self.max_grade:
            self.add(
                line,
                f"grade of '{doc}' is {grade}, outside 0..{self.max_grade} "
                "(retrieval_max_grade); use a grade in range or raise retrieval_max_grade",
                qid,
            )
        else:
            grades[doc] = int(grade)
            forms[id_key(doc)] = doc

    def expect(self, value: Any, line: int, qid: str | None) -> object:
        if not isinstance(value, dict):
            self.add(
                line,
                f"'expect' must map metric names to minimum values (mrr: 1.0), "
                f"got {_type_name(value)}",
                qid,
            )
            return {}
        out: dict[str, float] = {}
        for name, minimum in value.items():
            self._minimum(out, name, minimum, line, qid)
        return out

    def _minimum(
        self, out: dict[str, float], name: Any, minimum: Any, line: int, qid: str | None
    ) -> None:
        try:
            metric = parse_metric(name)
        except MetricNameError as exc:
            self.add(line, f"'expect': {exc}", qid)
            return
        if isinstance(minimum, bool) or not isinstance(minimum, (int, float)):
            self.add(
                line,
                f"'expect' {metric.name} must be a number in 0..1, got {_type_name(minimum)}"
                + _as_written(minimum),
                qid,
            )
        elif not 0.0 <= float(minimum) <= 1.0:
            self.add(line, f"'expect' {metric.name} must be in 0..1, got {minimum}", qid)
        elif metric.name in out:
            self.add(line, f"'expect' names {metric.name} twice ('{name}' is an alias)", qid)
        else:
            out[metric.name] = float(minimum)


def _as_written(value: Any) -> str:
    """For a value that should be a number: text as written, and for a number read as
    text (a quoted one, or 5e-1, which YAML 1.1 reads as text without a point) the
    number to write."""
    if not isinstance(value, str):
        return ""
    shown = f" {value!r}" if len(value) <= 40 else f" {value[:37]!r}..."
    try:
        number = decimal.Decimal(value.strip())
    except decimal.InvalidOperation:
        return shown
    fix = f"{number:f}"
    if not number.is_finite() or len(fix) > 20:
        return shown
    why = "YAML reads an exponent without a point as text" if "e" in value.lower() else "unquoted"
    return f"{shown}; write the number {fix} ({why})"


FieldCheck = Callable[[Checker, Any, int, "str | None"], object]


@dataclass(frozen=True)
class Field:
    """A query key: how it is checked and what it is when absent.

    A required key (``missing`` set) that is absent is a problem; its null value
    goes to the check. An optional key that is absent or null takes ``absent``
    (from ``defaults:`` first, when the key may have a default).
    """

    check: FieldCheck
    absent: object = None
    missing: str = ""


# The table every query goes through, in the order its problems are reported.
FIELDS: dict[str, Field] = {
    "query": Field(Checker.text, missing="'query' is missing (required: the query text)"),
    "relevant": Field(
        Checker.relevant,
        missing="'relevant' is missing (required); write 'relevant: {}' for a no-result query",
    ),
    "category": Field(Checker.category, absent=DEFAULT_CATEGORY),
    "tags": Field(Checker.tags, absent=()),
    "filters": Field(Checker.filters, absent={}),
    "expect": Field(Checker.expect, absent={}),
    "forbid": Field(Checker.forbid, absent=()),
    "skip": Field(Checker.skip),
    "xfail": Field(Checker.xfail),
}
assert set(FIELDS) | {"id"} == set(QUERY_KEYS), "every query key has a check"


# keys whose text YAML may read as another value, and what the message calls it
_TEXT_KEYS = {"query": "query text", "category": "category", "tags": "tag"}


def _misread_text(mapping: Any, key: str) -> str | None:
    """Why ``mapping[key]`` (a query's text, category or tags, or a default's) is not the
    text written (``category: off``, ``tags: no``); None when it is, or when it is null
    and the key is optional (null takes the default)."""
    value = mapping.get(key)
    if key not in _TEXT_KEYS or (value is None and key != "query"):
        return None
    return yaml_misread(value, _written(mapping, key), _TEXT_KEYS[key])


def _field_value(
    checker: Checker,
    key: str,
    raw: Mapping[Any, Any],
    defaults: Mapping[str, Any],
    where: tuple[int, str | None],
) -> object:
    own_line, qid = where
    spec = FIELDS[key]
    line = _line_of(raw, key)
    misread = _misread_text(raw, key) if key in raw else None
    if misread is not None:
        checker.add(line, misread, qid)
        return INVALID
    if spec.missing:
        if key not in raw:
            if not _misspelled(raw, key):
                checker.add(own_line if key == "relevant" else line or own_line, spec.missing, qid)
            return INVALID
        return spec.check(checker, raw[key], line, qid)
    value = raw[key] if key in raw else defaults.get(key)
    return spec.absent if value is None else spec.check(checker, value, line, qid)


def _query_id(checker: Checker, raw: Mapping[Any, Any], line: int) -> tuple[str | None, bool]:
    """The query's id (None if it has none) and whether it is usable as a node id."""
    qid = _as_id(raw.get("id"))
    if qid is None and "id" not in raw and _misspelled(raw, "id"):
        return None, False  # its unknown key says the fix ('qid': did you mean 'id'?)
    written = _written(raw, "id")
    misread = yaml_misread(raw.get("id"), written)
    if misread is not None:  # named as written (yes, 2024-01-01), as YAML's numbers are
        checker.add(_line_of(raw, "id"), misread, written)
        return written, False
    if qid is None:
        checker.add(
            line,
            "query has no 'id' (required, unique text)"
            if "id" not in raw
            else "'id' is empty; give the query a unique id"
            if isinstance(raw.get("id"), str)
            else f"'id' must be non-empty text, got {_type_name(raw.get('id'))}"
            + (
                " (YAML reads yes, no, on, off, true and false as booleans: quote the id)"
                if isinstance(raw.get("id"), bool)
                else ""
            ),
        )
        return None, False
    written = raw.get("id")
    misread = _misread(written)
    if misread is not None and not isinstance(written, str):
        # named as written (00123), not as YAML read it (83)
        shown = written.source if isinstance(written, Int) else qid
        checker.add(_line_of(raw, "id"), misread, shown)
        return shown, False  # and so in the query's other problems
    if any(c in qid for c in FORBIDDEN_ID_CHARS) or any(c.isspace() for c in qid):
        checker.add(
            _line_of(raw, "id"),
            "id must not contain spaces, tabs, newlines, '[', ']' or '::' (it becomes a "
            "pytest node id)",
            qid,
        )
        return qid, False
    misread = misread or _invisible(qid)  # a control character that is not white space
    if misread is not None:
        checker.add(_line_of(raw, "id"), misread, qid)
        return qid, False
    return qid, True


def _key_problems(checker: Checker, raw: Mapping[Any, Any], qid: str | None) -> bool:
    """Repeated and unknown keys of one query; True when there were none."""
    clean = True
    for key, first, again in duplicate_keys(raw):
        checker.add(again, repeated(key, first, again), qid)
        clean = False
    for key in raw:
        if key not in QUERY_KEYS and not isinstance(key, str):
            checker.add(_line_of(raw, key), _key_not_text(key), qid)
            clean = False
        elif key not in QUERY_KEYS:
            hint = _stray(raw, key, checker.shown) or _closest(key, QUERY_KEYS)
            checker.add(_line_of(raw, key), f"unknown key '{key}'{hint}", qid)
            clean = False
    return clean


def _key_not_text(key: object, valid: tuple[str, ...] = QUERY_KEYS) -> str:
    """A query's (or the defaults') key that YAML read as something else than text
    (``~:`` as null, ``yes:`` as true, ``1:`` as a number): "unknown key 'None'" named
    no key the file holds."""
    read = (
        "null"
        if key is None
        else "a boolean"
        if isinstance(key, bool)
        else "a number"
        if isinstance(key, (int, float))
        else with_article(type(key).__name__)
    )
    return f"a key that YAML reads as {read} ({key!r}), not a name: write one of {', '.join(valid)}"


_ID_CHARACTERS = re.compile(r"[\w.#/:-]*[-_.#/:\d][\w.#/:-]*")  # chicken-soup, doc7, a.b


def _stray(raw: Mapping[Any, Any], key: Any, shown: str) -> str | None:
    """`` (a judgment? indent it under 'relevant:')`` for an unknown key of a query whose
    'relevant' (or 'expect') is empty, when the key looks like what that holds: a
    document id or a grade (an integer), or a metric and its minimum. YAML reads an
    empty key's children written at the query's own indentation as the query's keys."""
    value = raw[key]
    under = None
    if "expect" in raw and raw["expect"] is None and _metric_minimum(key, value):
        under, what = "expect", "a metric's minimum"
    elif "relevant" in raw and raw["relevant"] is None and _judgment_like(key, value):
        under, what = "relevant", "a judgment"
    if under is None:
        return None
    if shown.lower().endswith(".jsonl"):
        return f" ({what}? move it into '{under}')"
    return f" ({what}? indent it under '{under}:')"


def _judgment_like(key: Any, value: Any) -> bool:
    """A document id and its grade: an integer grade, or an id-like name (``doc-7``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return True
    named = isinstance(key, (str, int)) and not isinstance(key, bool)
    looks = named and _ID_CHARACTERS.fullmatch(str(key)) is not None
    scalar = value is None or isinstance(value, (str, int, float))
    return looks and scalar and _closest_key(key, QUERY_KEYS) is None


def _metric_minimum(key: Any, value: Any) -> bool:
    """A metric name and a number (``mrr: 1.0``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        parse_metric(key)
    except MetricNameError:
        return False
    return True


# --------------------------------------------------------------------------- the plain shape

_PLAIN_KEYS = frozenset({"id", "query", "relevant", "category"})
_PLAIN_ID = re.compile(r"[!-~]+")  # printable ASCII, no spaces (nor '[', ']', '::': below)


def _plain_text(value: Any) -> TypeGuard[str]:
    return type(value) is str and bool(value.strip())


def _plain_grades(value: Any, max_grade: int) -> dict[str, int] | None:
    """``relevant`` when it is a mapping of plain ids to in-range integer grades, else None."""
    if not isinstance(value, dict) or getattr(value, "duplicates", None):
        return None
    for doc, grade in value.items():
        if type(doc) is not str or doc.strip() != doc or not doc:
            return None
        if not isinstance(grade, int) or isinstance(grade, bool) or not 0 <= grade <= max_grade:
            return None
    joined = "".join(value)
    if _CONTROL.search(joined) is not None:
        return None
    if not joined.isascii() and (
        _INVISIBLE.search(joined) is not None or len(set(map(id_key, value))) != len(value)
    ):
        return None  # an invisible character, or one id in two Unicode forms
    return {doc: int(grade) for doc, grade in value.items()}


@functools.lru_cache(maxsize=1024)  # a golden set has few categories, each on many queries
def _plain_category(category: str) -> bool:
    """A category no check objects to: no row name, white space at an end, control or
    invisible character."""
    if category.strip().lower() in RESERVED_CATEGORIES or category.strip() != category:
        return False
    if _CONTROL.search(category) is not None:
        return False
    return category.isascii() or _INVISIBLE.search(category) is None


def plain_query(
    raw: Any, line: int, defaults: Mapping[str, Any], shown: str, max_grade: int
) -> GoldenQuery | None:
    """The query when it has the common shape no check can object to, else None.

    The shape: a mapping of ``id`` (printable ASCII text), ``query`` (text),
    ``relevant`` (text ids to grades in range) and an optional ``category``, with no
    repeated key, and no default but ``category``. Anything else (or anything odd
    inside) goes through the full check, :func:`check_query`, which names the problem;
    on this shape both give the same query (a property test holds them equal).
    """
    if (
        not isinstance(raw, dict)
        or getattr(raw, "duplicates", None)
        or not raw.keys() <= _PLAIN_KEYS
    ):
        return None
    if defaults and not defaults.keys() <= {"category"}:
        return None
    qid, text = raw.get("id"), raw.get("query")
    if type(qid) is not str or _PLAIN_ID.fullmatch(qid) is None or not _plain_text(text):
        return None
    if "[" in qid or "]" in qid or "::" in qid:
        return None
    category = raw["category"] if "category" in raw else defaults.get("category", DEFAULT_CATEGORY)
    if not _plain_text(category) or not _plain_category(category):
        return None
    grades = _plain_grades(raw.get("relevant"), max_grade)
    if grades is None:
        return None
    line = getattr(raw, "line", line)
    return GoldenQuery(id=qid, text=text, category=category, relevant=grades, path=shown, line=line)


def check_query(
    checker: Checker, raw: Any, line: int, defaults: Mapping[str, Any]
) -> GoldenQuery | None:
    """One query mapping checked field by field (:data:`FIELDS`); None if it is unusable."""
    plain = plain_query(raw, line, defaults, checker.shown, checker.max_grade)
    if plain is not None:
        return plain
    return full_check(checker, raw, line, defaults)


def _never_fails(from_defaults: bool) -> str:
    """An ``xfail`` on a query with neither ``expect`` nor ``forbid``: the fix, which for
    one that ``defaults:`` gives is not to remove it (the query has none to remove)."""
    undo = "write 'xfail: false' on the query" if from_defaults else "remove xfail"
    return (
        f"'xfail'{' (from defaults)' if from_defaults else ''} expects this query's 'expect' "
        "or 'forbid' to fail, but it has neither, so it can never fail (it would always "
        f"XPASS): add expect (e.g. {{ndcg@10: 0.9}}) or forbid, or {undo}"
    )


def full_check(
    checker: Checker, raw: Any, line: int, defaults: Mapping[str, Any]
) -> GoldenQuery | None:
    """:func:`check_query` without the plain shape's shortcut: every field through its check."""
    if not isinstance(raw, dict):
        checker.add(
            line,
            f"each query must be a mapping with 'id', 'query' and 'relevant', "
            f"got {_type_name(raw)}",
        )
        return None
    line = getattr(raw, "line", line)
    qid, usable = _query_id(checker, raw, line)
    clean = _key_problems(checker, raw, qid)
    values = {key: _field_value(checker, key, raw, defaults, (line, qid)) for key in FIELDS}
    if values["xfail"] is not None and not values["expect"] and not values["forbid"]:
        checker.add(_line_of(raw, "xfail") or line, _never_fails("xfail" not in raw), qid)
    for forbidden, judged in _forbidden_otherwise(values["relevant"], values["forbid"]):
        checker.add(
            _line_of(raw, "forbid") or line,
            f"'forbid' names '{forbidden}', which 'relevant' judges"
            f"{written_otherwise(forbidden, judged)}: a result id matches one form only; "
            "write both alike",
            qid,
        )
    if not (clean and usable) or qid is None or any(v is INVALID for v in values.values()):
        return None
    if isinstance(values["xfail"], dict):  # per configuration
        values["xfail_in"], values["xfail"] = values["xfail"], None
    return GoldenQuery(
        id=qid,
        text=str(values["query"]),
        path=checker.shown,
        line=line,
        **{k: v for k, v in values.items() if k != "query"},  # type: ignore[arg-type]
    )


def _defaults(checker: Checker, value: Any) -> dict[str, object]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        checker.add(
            getattr(value, "line", 0), f"'defaults' must be a mapping, got {_type_name(value)}"
        )
        return {}
    for key in value:
        if not isinstance(key, str):  # ~: or yes: (YAML's null, boolean): no key written
            checker.add(_line_of(value, key), f"in defaults: {_key_not_text(key, DEFAULT_KEYS)}")
        elif key not in DEFAULT_KEYS:
            hint = "; set it on each query" if key in QUERY_KEYS else _closest(key, DEFAULT_KEYS)
            checker.add(_line_of(value, key), f"unknown key '{key}' in defaults{hint}")
    return {k: v for k, v in value.items() if k in DEFAULT_KEYS and _default_ok(checker, value, k)}


def _default_ok(checker: Checker, defaults: Mapping[Any, Any], key: str) -> bool:
    """A default checked once, at its own line, as a query's value would be; a bad one is
    named there (not at every query that would take it) and left out."""
    value = defaults[key]
    if value is None:
        return True
    probe = Checker(checker.shown, checker.max_grade)
    line = _line_of(defaults, key)
    misread = _misread_text(defaults, key)
    if misread is not None:
        probe.add(line, misread)
    elif FIELDS[key].check(probe, value, line, None) is not INVALID and not probe.problems:
        return True
    for problem in probe.problems:
        checker.add(problem.line or line, f"in defaults: {problem.message}")
    return False


# --------------------------------------------------------------------------- one file


def _unknown_file_key(key: Any) -> str:
    """An unknown top-level key, with the closest valid one, else where the keys that only
    hold YAML anchors go (``base: &base {...}`` to reuse with ``<<: *base``)."""
    if not isinstance(key, str):  # ~: or yes: at the top: "unknown top-level key 'None'"
        return _key_not_text(key, FILE_KEYS)
    hint = _closest(key, FILE_KEYS)
    if not _closest_key(key, FILE_KEYS):
        hint += (
            ", and keys starting with 'x-', which the plugin leaves alone: define YAML "
            f"anchors there (x-{key}: &{key} ...)"
        )
    return f"unknown top-level key '{key}'{hint}"


def _file_parts(checker: Checker, data: Any) -> tuple[dict[str, object], Any]:
    """The defaults and the raw query list of a loaded file (a mapping or a bare list)."""
    if not isinstance(data, dict):
        return {}, data
    outside_queries = [data.get("defaults")] if "defaults" in data else []
    for key, first, again in list(getattr(data, "duplicates", [])) + duplicate_keys(
        outside_queries
    ):
        checker.add(again, repeated(key, first, again))
    for key in data:
        if key not in FILE_KEYS and not str(key).startswith("x-"):  # x-...: for anchors
            checker.add(_line_of(data, key) or 1, _unknown_file_key(key))
    defaults = _defaults(checker, data.get("defaults"))
    raw_queries = data.get("queries")
    if raw_queries is None and "queries" in data:
        line = _line_of(data, "queries") or 1
        checker.add(line, "'queries:' holds nothing; list the queries under it (- id: ...)")
        raw_queries = []
    elif raw_queries is None:
        misspelled = any(
            _closest_key(k, FILE_KEYS) == "queries" for k in data if k not in FILE_KEYS
        )
        if not misspelled:  # else its unknown key says the fix ('querys': did you mean...)
            checker.add(1, "no 'queries:' list in this file; put the queries under 'queries:'")
        raw_queries = []
    return defaults, raw_queries


def _queries(
    checker: Checker, raw_queries: list[Any], defaults: dict[str, object]
) -> list[GoldenQuery]:
    lines = raw_queries.item_lines if isinstance(raw_queries, Seq) else [0] * len(raw_queries)
    queries: list[GoldenQuery] = []
    first: dict[str, GoldenQuery] = {}  # id_key -> the query first using it
    listed: set[int] = set()  # the mappings already read: a YAML alias lists one again
    for raw, line in zip(raw_queries, lines, strict=False):
        if isinstance(raw, Lines):  # a mapping (a scalar's object can be shared by any two)
            if id(raw) in listed:
                _aliased(checker, raw)
                continue
            listed.add(id(raw))
        query = check_query(checker, raw, line, defaults)
        if query is None:
            continue
        other = first.setdefault(id_key(query.id), query)
        if other is not query:
            checker.add(
                query.line,
                f"duplicate id (first used on line {other.line}"
                f"{written_otherwise(query.id, other.id)}); ids must be unique across the "
                "golden set",
                query.id,
            )
            continue
        queries.append(query)
    return queries


def _aliased(checker: Checker, raw: Lines) -> None:
    """A query the list names a second time through a YAML alias (``- *name``): the same
    mapping, id and all, with no line of its own (YAML keeps none for an alias)."""
    qid = raw.get("id")
    checker.add(
        raw.line,
        "this query is listed again further down through a YAML alias (*name): an alias "
        "repeats the whole query, id included; remove the alias, or write the second query "
        "out with an id of its own (a merge key, <<, copies the fields)",
        qid if isinstance(qid, str) else None,
    )


def check_file(
    data: Any, shown: str, max_grade: int, found: Sequence[Problem] = ()
) -> list[GoldenQuery]:
    """The queries of one parsed file (a mapping with ``queries:``, or a bare list).

    ``found``: problems the parser already met (lines it could not read). Raises
    :class:`GoldenFileError` with every problem in the file; ids duplicated *within*
    the file are reported here, across files by :class:`~pytest_retrieval.golden.GoldenSet`.
    """
    if data is None:
        empty = Problem(
            shown, 1, "the file holds no YAML (it is empty, or only comments); write 'queries:' "
            "with a list of queries",
        )  # fmt: skip
        raise GoldenFileError(list(found) or [empty])
    checker = Checker(shown, max_grade)
    checker.problems.extend(found)
    defaults, raw_queries = _file_parts(checker, data)
    if not isinstance(raw_queries, list):
        line = getattr(raw_queries, "line", 1)
        message = f"'queries' must be a list of queries, got {_type_name(raw_queries)}"
        if isinstance(raw_queries, Mapping):
            message += "; write each query as a list item: '- id: q1', its keys below it"
        if raw_queries is data:  # the whole file is one value
            message = (
                f"the file holds {_type_name(data)} {str(data)[:40]!r}, not a mapping with a "
                "'queries:' list; write 'queries:' with a list of queries"
            )
        raise GoldenFileError([*checker.problems, Problem(shown, line, message)])
    if not raw_queries and not checker.problems:
        line = getattr(raw_queries, "line", 1)
        message = "the file has no queries; add some, or delete the file"
        raise GoldenFileError([Problem(shown, line, message)])
    queries = _queries(checker, raw_queries, defaults)
    if checker.problems:  # with the parser's, in line order (GoldenFileError sorts them)
        raise GoldenFileError(checker.problems, queries)
    return queries
