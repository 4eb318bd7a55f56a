"""Golden YAML files: a safe loader that keeps line numbers, and table-driven validation.

Pure apart from reading the file. :func:`load_golden_file` returns the queries of
one file and raises :class:`~pytest_retrieval.golden.GoldenFileError` listing
*every* problem found in it, each naming the file, the line, the query id, what
is wrong and how to fix it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..golden import (
    DEFAULT_CATEGORY,
    DEFAULT_KEYS,
    FILE_KEYS,
    QUERY_KEYS,
    GoldenFileError,
    GoldenQuery,
    Problem,
)
from ..metrics import MetricNameError, parse_metric
from ..model import RESERVED_CATEGORIES

try:  # libyaml when present: ~10x faster
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

_FORBIDDEN_ID_CHARS = ("[", "]", "::")

# --------------------------------------------------------------------------- YAML with lines


class _Lines(dict[Any, Any]):
    """A mapping that remembers the 1-based line of itself and of each key."""

    line: int = 0
    key_lines: dict[Any, int]
    duplicates: list[tuple[Any, int, int]]


class _Seq(list[Any]):
    line: int = 0
    item_lines: list[int]


class _UnhashableKey(yaml.YAMLError):
    def __init__(self, line: int):
        self.line = line
        super().__init__("a mapping key that is a list or a mapping")


class _LineLoader(_BaseLoader):
    """A safe loader whose mappings and lists carry line numbers.

    A key repeated in one mapping is recorded on that mapping (``duplicates``) so
    the validation can report it with the query it belongs to: YAML itself would
    silently keep the last value.
    """


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> _Lines:
    loader.flatten_mapping(node)
    result = _Lines()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    result.duplicates = []
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            hash(key)
        except TypeError:
            raise _UnhashableKey(line) from None
        if key in result.key_lines:
            result.duplicates.append((key, result.key_lines[key], line))
            continue
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = line
    return result


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> _Seq:
    result = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)


def _repeated(key: Any, first: int) -> str:
    return (
        f"key {key!r} appears twice (first on line {first}); keep one: YAML would silently "
        "drop the other"
    )


def duplicate_keys(value: Any) -> list[tuple[Any, int, int]]:
    """Every repeated key inside a loaded value: (key, first line, repeated line)."""
    found: list[tuple[Any, int, int]] = []
    if isinstance(value, _Lines):
        found.extend(value.duplicates)
        for item in value.values():
            found.extend(duplicate_keys(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(duplicate_keys(item))
    return found


def _syntax_problem(exc: yaml.MarkedYAMLError, text: str, shown: str) -> Problem:
    # problem_mark is where the parser gave up: right for a bad indentation, but
    # for an unclosed bracket or quote (and at the end of the file) the line
    # where the construct began, context_mark, is the one to fix.
    last_line = text.rstrip().count("\n")
    mark = exc.problem_mark
    opened = any(w in (exc.context or "") for w in ("flow", "quoted"))
    if mark is None or mark.line > last_line or opened:
        mark = exc.context_mark or mark
    line = mark.line + 1 if mark is not None else 0
    what = " ".join(x for x in (exc.context, exc.problem) if x)
    began = ""
    if exc.context_mark is not None and exc.context_mark.line + 1 != line:
        began = f" (the construct began on line {exc.context_mark.line + 1})"
    return Problem(shown, line, f"YAML syntax error: {what}{began}; fix the YAML at this line")


def _parse(text: str, shown: str) -> Any:
    try:
        return yaml.load(text, Loader=_LineLoader)
    except _UnhashableKey as exc:
        raise GoldenFileError(
            [Problem(shown, exc.line, "a key is a list or a mapping; keys must be text")]
        ) from None
    except yaml.MarkedYAMLError as exc:
        raise GoldenFileError([_syntax_problem(exc, text, shown)]) from None
    except yaml.YAMLError as exc:
        raise GoldenFileError([Problem(shown, 0, f"YAML error: {exc}")]) from None


# --------------------------------------------------------------------------- small helpers


def _closest(word: Any, valid: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(str(word), valid, n=1, cutoff=0.6)
    if close:
        return f" (did you mean '{close[0]}'?)"
    return f"; valid keys: {', '.join(valid)}"


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {
        "str": "text",
        "int": "an integer",
        "float": "a number",
        "bool": "true/false",
        "_Lines": "a mapping",
        "_Seq": "a list",
        "dict": "a mapping",
        "list": "a list",
    }.get(type(value).__name__, type(value).__name__)


def _as_id(value: Any) -> str | None:
    """Ids may be written as text or integers (``id: 42``); anything else is invalid."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int):
        return str(value)
    return None


def _line_of(mapping: Any, key: Any) -> int:
    if isinstance(mapping, _Lines):
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
class _Checker:
    """Validate the queries of one file, collecting every problem."""

    shown: str
    max_grade: int

    def __post_init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, line: int, message: str, query_id: str | None = None) -> None:
        self.problems.append(Problem(self.shown, line, message, query_id))

    # -- one field each: (value, line, query id) -> the parsed value, or INVALID ------
    def text(self, value: Any, line: int, qid: str | None) -> object:
        if isinstance(value, str) and value.strip():
            return value
        self.add(line, f"'query' must be non-empty text, got {_type_name(value)} {value!r}", qid)
        return INVALID

    def category(self, value: Any, line: int, qid: str | None) -> object:
        if not isinstance(value, str) or not value.strip():
            self.add(line, f"'category' must be non-empty text, got {_type_name(value)}", qid)
            return INVALID
        if value in RESERVED_CATEGORIES:
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
            self.add(line, f"'{key}' must be a list of text, got {_type_name(value)}", qid)
            return ()
        out: list[str] = []
        for item in value:
            text = _as_id(item)
            if text is None:
                self.add(line, f"'{key}' must hold only text, got {_type_name(item)}", qid)
                continue
            out.append(text)
        return tuple(out)

    def skip(self, value: Any, line: int, qid: str | None) -> object:
        return self.reason(value, line, qid, "skip")

    def xfail(self, value: Any, line: int, qid: str | None) -> object:
        return self.reason(value, line, qid, "xfail")

    def reason(self, value: Any, line: int, qid: str | None, key: str) -> str | None:
        if value is True:
            return f"{key} set in the golden file"
        if value is False or value is None:
            return None
        if isinstance(value, str) and value.strip():
            return value
        self.add(line, f"'{key}' must be a reason (text) or true, got {_type_name(value)}", qid)
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
        for key, grade in value.items():
            self._grade(grades, key, grade, _line_of(value, key) or line, qid)
        return grades

    def _relevant_list(self, value: list[Any], line: int, qid: str | None) -> dict[str, int]:
        grades: dict[str, int] = {}
        for index, item in enumerate(value):
            doc = _as_id(item)
            item_line = value.item_lines[index] if isinstance(value, _Seq) else line
            if doc is None:
                self.add(item_line, f"'relevant' list must hold ids, got {_type_name(item)}", qid)
            elif doc in grades:
                self.add(item_line, f"'relevant' lists '{doc}' twice; keep one", qid)
            else:
                grades[doc] = 1
        return grades

    def _grade(
        self, grades: dict[str, int], key: Any, grade: Any, line: int, qid: str | None
    ) -> None:
        doc = _as_id(key)
        if doc is None:
            self.add(line, f"'relevant' has an id that is not text: {key!r}", qid)
        elif isinstance(grade, bool) or not isinstance(grade, int):
            self.add(
                line,
                f"grade of '{doc}' must be an integer 0..{self.max_grade}, "
                f"got {_type_name(grade)} {grade!r}",
                qid,
            )
        elif doc in grades:
            self.add(
                line, f"'relevant' names '{doc}' twice (as text and as a number); keep one", qid
            )
        elif not 0 <= grade <= self.max_grade:
            self.add(
                line,
                f"grade of '{doc}' is {grade}, outside 0..{self.max_grade} "
                "(retrieval_max_grade); use a grade in range or raise retrieval_max_grade",
                qid,
            )
        else:
            grades[doc] = grade

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
                f"'expect' {metric.name} must be a number in 0..1, got {_type_name(minimum)}",
                qid,
            )
        elif not 0.0 <= float(minimum) <= 1.0:
            self.add(line, f"'expect' {metric.name} must be in 0..1, got {minimum}", qid)
        elif metric.name in out:
            self.add(line, f"'expect' names {metric.name} twice ('{name}' is an alias)", qid)
        else:
            out[metric.name] = float(minimum)


FieldCheck = Callable[[_Checker, Any, int, "str | None"], object]


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
    "query": Field(_Checker.text, missing="'query' is missing (required: the query text)"),
    "relevant": Field(
        _Checker.relevant,
        missing="'relevant' is missing (required); write 'relevant: {}' for a no-result query",
    ),
    "category": Field(_Checker.category, absent=DEFAULT_CATEGORY),
    "tags": Field(_Checker.tags, absent=()),
    "filters": Field(_Checker.filters, absent={}),
    "expect": Field(_Checker.expect, absent={}),
    "forbid": Field(_Checker.forbid, absent=()),
    "skip": Field(_Checker.skip),
    "xfail": Field(_Checker.xfail),
}
assert set(FIELDS) | {"id"} == set(QUERY_KEYS), "every query key has a check"


def _field_value(
    checker: _Checker,
    key: str,
    raw: Mapping[Any, Any],
    defaults: Mapping[str, Any],
    where: tuple[int, str | None],
) -> object:
    own_line, qid = where
    spec = FIELDS[key]
    line = _line_of(raw, key)
    if spec.missing:
        if key not in raw:
            checker.add(own_line if key == "relevant" else line or own_line, spec.missing, qid)
            return INVALID
        return spec.check(checker, raw[key], line, qid)
    value = raw[key] if key in raw else defaults.get(key)
    return spec.absent if value is None else spec.check(checker, value, line, qid)


def _query_id(checker: _Checker, raw: Mapping[Any, Any], line: int) -> tuple[str | None, bool]:
    """The query's id (None if it has none) and whether it is usable as a node id."""
    qid = _as_id(raw.get("id"))
    if qid is None:
        checker.add(
            line,
            "query has no 'id' (required, unique text)"
            if "id" not in raw
            else f"'id' must be non-empty text, got {_type_name(raw.get('id'))}",
        )
        return None, False
    if any(c in qid for c in _FORBIDDEN_ID_CHARS) or qid != qid.strip() or " " in qid:
        checker.add(
            _line_of(raw, "id"),
            "id must not contain spaces, '[', ']' or '::' (it becomes a pytest node id)",
            qid,
        )
        return qid, False
    return qid, True


def _key_problems(checker: _Checker, raw: Mapping[Any, Any], qid: str | None) -> bool:
    """Repeated and unknown keys of one query; True when there were none."""
    clean = True
    for key, first, again in duplicate_keys(raw):
        checker.add(again, _repeated(key, first), qid)
        clean = False
    for key in raw:
        if key not in QUERY_KEYS:
            checker.add(_line_of(raw, key), f"unknown key '{key}'{_closest(key, QUERY_KEYS)}", qid)
            clean = False
    return clean


def check_query(
    checker: _Checker, raw: Any, line: int, defaults: Mapping[str, Any]
) -> GoldenQuery | None:
    """One query mapping checked field by field (:data:`FIELDS`); None if it is unusable."""
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
        checker.add(
            _line_of(raw, "xfail") or line,
            "'xfail' expects this query's 'expect' or 'forbid' to fail, but it has neither, so "
            "it can never fail (it would always XPASS): add expect (e.g. {ndcg@10: 0.9}) or "
            "forbid, or remove xfail",
            qid,
        )
    if not (clean and usable) or qid is None or any(v is INVALID for v in values.values()):
        return None
    return GoldenQuery(
        id=qid,
        text=str(values["query"]),
        path=checker.shown,
        line=line,
        **{k: v for k, v in values.items() if k != "query"},  # type: ignore[arg-type]
    )


def _defaults(checker: _Checker, value: Any) -> dict[str, object]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        checker.add(
            getattr(value, "line", 0), f"'defaults' must be a mapping, got {_type_name(value)}"
        )
        return {}
    for key in value:
        if key not in DEFAULT_KEYS:
            hint = "; set it on each query" if key in QUERY_KEYS else _closest(key, DEFAULT_KEYS)
            checker.add(_line_of(value, key), f"unknown key '{key}' in defaults{hint}")
    return {k: v for k, v in value.items() if k in DEFAULT_KEYS}


# --------------------------------------------------------------------------- one file


def _file_parts(checker: _Checker, data: Any) -> tuple[dict[str, object], Any]:
    """The defaults and the raw query list of a loaded file (a mapping or a bare list)."""
    if not isinstance(data, dict):
        return {}, data
    outside_queries = [data.get("defaults")] if "defaults" in data else []
    for key, first, again in list(getattr(data, "duplicates", [])) + duplicate_keys(
        outside_queries
    ):
        checker.add(again, _repeated(key, first))
    for key in data:
        if key not in FILE_KEYS:
            checker.add(
                _line_of(data, key) or 1,
                f"unknown top-level key '{key}'{_closest(key, FILE_KEYS)}",
            )
    defaults = _defaults(checker, data.get("defaults"))
    raw_queries = data.get("queries")
    if raw_queries is None:
        checker.add(1, "no 'queries:' list in this file; put the queries under 'queries:'")
        raw_queries = []
    return defaults, raw_queries


def _queries(
    checker: _Checker, raw_queries: list[Any], defaults: dict[str, object]
) -> list[GoldenQuery]:
    lines = raw_queries.item_lines if isinstance(raw_queries, _Seq) else [0] * len(raw_queries)
    queries: list[GoldenQuery] = []
    first_line: dict[str, int] = {}
    for raw, line in zip(raw_queries, lines, strict=False):
        query = check_query(checker, raw, line, defaults)
        if query is None:
            continue
        if query.id in first_line:
            checker.add(
                query.line,
                f"duplicate id (first used on line {first_line[query.id]}); ids must be unique "
                "across the golden set",
                query.id,
            )
            continue
        first_line[query.id] = query.line
        queries.append(query)
    return queries


def load_golden_file(
    path: Path, *, max_grade: int = 3, shown: str | None = None
) -> list[GoldenQuery]:
    """Load and validate one golden file.

    ``shown`` is how the file is named in messages (a path relative to the
    rootdir). Raises :class:`GoldenFileError` with every problem in the file;
    ids duplicated *within* the file are reported here, across files by
    :class:`~pytest_retrieval.golden.GoldenSet`.
    """
    shown = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldenFileError([Problem(shown, 0, f"cannot read the file: {exc}")]) from None
    data = _parse(text, shown)
    if data is None:
        raise GoldenFileError(
            [Problem(shown, 1, "the file is empty; write 'queries:' with a list of queries")]
        )
    checker = _Checker(shown, max_grade)
    defaults, raw_queries = _file_parts(checker, data)
    if not isinstance(raw_queries, list):
        line = getattr(raw_queries, "line", 1)
        message = f"'queries' must be a list of queries, got {_type_name(raw_queries)}"
        raise GoldenFileError([*checker.problems, Problem(shown, line, message)])
    queries = _queries(checker, raw_queries, defaults)
    if checker.problems:
        raise GoldenFileError(checker.problems)
    return queries


# Public names for the other golden formats (JSONL, the writers' round-trip check, the
# command line's validate): the same loader, the same checks, the same messages.
Checker = _Checker
LineMapping = _Lines
LineList = _Seq
FORBIDDEN_ID_CHARS = _FORBIDDEN_ID_CHARS
parse_yaml = _parse
