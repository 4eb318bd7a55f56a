"""Golden files: load, validate, and report every problem with file, line and query id.

Pure: no pytest here. :func:`load_golden_file` returns the queries of one file
and raises :class:`GoldenFileError` listing *every* problem found in it, each
one naming the file, the line, the query id, what is wrong and how to fix it.
"""

from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .metrics import MetricNameError, parse_metric

try:  # libyaml when present: ~10x faster
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

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
RESERVED_CATEGORIES = ("all", "all (weighted)")  # the tables' overall rows
_FORBIDDEN_ID_CHARS = ("[", "]", "::")


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

    @property
    def query(self) -> str:
        """The query text (same as ``.text``)."""
        return self.text

    @functools.cached_property
    def fingerprint(self) -> str:
        """A short hash of what decides the query's scores: its text and judgments."""
        payload = json.dumps(
            {"query": self.text, "relevant": dict(sorted(self.relevant.items()))},
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


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
        who = f" query '{self.query_id}':" if self.query_id else ""
        return f"{where}:{who} {self.message}"


class GoldenFileError(Exception):
    """Every problem found in one golden file."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


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


def _parse(path: Path, text: str, shown: str) -> Any:
    try:
        return yaml.load(text, Loader=_LineLoader)
    except _UnhashableKey as exc:
        raise GoldenFileError(
            [Problem(shown, exc.line, "a key is a list or a mapping; keys must be text")]
        ) from None
    except yaml.MarkedYAMLError as exc:
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
        raise GoldenFileError(
            [Problem(shown, line, f"YAML syntax error: {what}{began}; fix the YAML at this line")]
        ) from None
    except yaml.YAMLError as exc:
        raise GoldenFileError([Problem(shown, 0, f"YAML error: {exc}")]) from None


# --------------------------------------------------------------------------- validation


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


class _Checker:
    """Validate the queries of one file, collecting every problem."""

    def __init__(self, shown: str, max_grade: int):
        self.shown = shown
        self.max_grade = max_grade
        self.problems: list[Problem] = []

    def add(self, line: int, message: str, query_id: str | None = None) -> None:
        self.problems.append(Problem(self.shown, line, message, query_id))

    def _line(self, mapping: Any, key: str) -> int:
        if isinstance(mapping, _Lines):
            return mapping.key_lines.get(key, mapping.line)
        return 0

    # -- the fields -------------------------------------------------------------------
    def text_list(self, value: Any, line: int, qid: str | None, key: str) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value] if key == "tags" else value
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

    def relevant(self, value: Any, line: int, qid: str | None) -> dict[str, int] | None:
        if value is None:
            self.add(
                line,
                "'relevant' is empty; write 'relevant: {}' for a no-result query, or map "
                "ids to grades (doc-id: 3)",
                qid,
            )
            return None
        if isinstance(value, list):
            grades: dict[str, int] = {}
            for index, item in enumerate(value):
                doc = _as_id(item)
                item_line = value.item_lines[index] if isinstance(value, _Seq) else line
                if doc is None:
                    self.add(
                        item_line,
                        f"'relevant' list must hold ids, got {_type_name(item)}",
                        qid,
                    )
                elif doc in grades:
                    self.add(item_line, f"'relevant' lists '{doc}' twice; keep one", qid)
                else:
                    grades[doc] = 1
            return grades
        if not isinstance(value, dict):
            self.add(
                line,
                f"'relevant' must map ids to grades (doc-id: 3) or list ids, "
                f"got {_type_name(value)}",
                qid,
            )
            return None
        grades = {}
        for key, grade in value.items():
            doc = _as_id(key)
            key_line = value.key_lines.get(key, line) if isinstance(value, _Lines) else line
            if doc is None:
                self.add(key_line, f"'relevant' has an id that is not text: {key!r}", qid)
                continue
            if isinstance(grade, bool) or not isinstance(grade, int):
                self.add(
                    key_line,
                    f"grade of '{doc}' must be an integer 0..{self.max_grade}, "
                    f"got {_type_name(grade)} {grade!r}",
                    qid,
                )
                continue
            if doc in grades:
                self.add(
                    key_line,
                    f"'relevant' names '{doc}' twice (as text and as a number); keep one",
                    qid,
                )
                continue
            if not 0 <= grade <= self.max_grade:
                self.add(
                    key_line,
                    f"grade of '{doc}' is {grade}, outside 0..{self.max_grade} "
                    "(retrieval_max_grade); use a grade in range or raise retrieval_max_grade",
                    qid,
                )
                continue
            grades[doc] = grade
        return grades

    def expect(self, value: Any, line: int, qid: str | None) -> dict[str, float]:
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
            try:
                metric = parse_metric(name)
            except MetricNameError as exc:
                self.add(line, f"'expect': {exc}", qid)
                continue
            if isinstance(minimum, bool) or not isinstance(minimum, (int, float)):
                self.add(
                    line,
                    f"'expect' {metric.name} must be a number in 0..1, got {_type_name(minimum)}",
                    qid,
                )
                continue
            if not 0.0 <= float(minimum) <= 1.0:
                self.add(line, f"'expect' {metric.name} must be in 0..1, got {minimum}", qid)
                continue
            if metric.name in out:
                self.add(line, f"'expect' names {metric.name} twice ('{name}' is an alias)", qid)
                continue
            out[metric.name] = float(minimum)
        return out

    def reason(self, value: Any, line: int, qid: str | None, key: str) -> str | None:
        if value is True:
            return f"{key} set in the golden file"
        if value is False or value is None:
            return None
        if isinstance(value, str) and value.strip():
            return value
        self.add(line, f"'{key}' must be a reason (text) or true, got {_type_name(value)}", qid)
        return None

    # -- one query --------------------------------------------------------------------
    def defaults(self, value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        line = getattr(value, "line", 0)
        if not isinstance(value, dict):
            self.add(line, f"'defaults' must be a mapping, got {_type_name(value)}")
            return {}
        for key in value:
            if key not in DEFAULT_KEYS:
                hint = (
                    "; set it on each query" if key in QUERY_KEYS else _closest(key, DEFAULT_KEYS)
                )
                self.add(self._line(value, key), f"unknown key '{key}' in defaults{hint}")
        return {k: v for k, v in value.items() if k in DEFAULT_KEYS}

    def query(self, raw: Any, line: int, defaults: dict[str, Any]) -> GoldenQuery | None:
        if not isinstance(raw, dict):
            self.add(
                line,
                f"each query must be a mapping with 'id', 'query' and 'relevant', "
                f"got {_type_name(raw)}",
            )
            return None
        line = getattr(raw, "line", line)
        qid = _as_id(raw.get("id"))
        ok = True
        if qid is None:
            self.add(
                line,
                "query has no 'id' (required, unique text)"
                if "id" not in raw
                else f"'id' must be non-empty text, got {_type_name(raw.get('id'))}",
            )
            ok = False
        elif any(c in qid for c in _FORBIDDEN_ID_CHARS) or qid != qid.strip() or " " in qid:
            self.add(
                self._line(raw, "id"),
                "id must not contain spaces, '[', ']' or '::' (it becomes a pytest node id)",
                qid,
            )
            ok = False
        for key, first, again in duplicate_keys(raw):
            self.add(again, _repeated(key, first), qid)
            ok = False
        for key in raw:
            if key not in QUERY_KEYS:
                self.add(
                    self._line(raw, key), f"unknown key '{key}'{_closest(key, QUERY_KEYS)}", qid
                )
                ok = False
        text = raw.get("query")
        if not isinstance(text, str) or not text.strip():
            self.add(
                self._line(raw, "query"),
                "'query' is missing (required: the query text)"
                if "query" not in raw
                else f"'query' must be non-empty text, got {_type_name(text)} {text!r}",
                qid,
            )
            ok = False
        if "relevant" not in raw:
            self.add(
                line,
                "'relevant' is missing (required); write 'relevant: {}' for a no-result query",
                qid,
            )
            ok = False
            relevant: dict[str, int] | None = None
        else:
            relevant = self.relevant(raw["relevant"], self._line(raw, "relevant"), qid)
            ok = ok and relevant is not None

        def get(key: str) -> Any:
            return raw[key] if key in raw else defaults.get(key)

        category = get("category")
        if category is None:
            category = DEFAULT_CATEGORY
        elif not isinstance(category, str) or not category.strip():
            self.add(
                self._line(raw, "category"),
                f"'category' must be non-empty text, got {_type_name(category)}",
                qid,
            )
            ok = False
        elif category in RESERVED_CATEGORIES:
            self.add(
                self._line(raw, "category"),
                f"category '{category}' is reserved for the overall row of the tables; "
                "choose another name",
                qid,
            )
            ok = False
        tags = get("tags")
        tags_t = (
            self.text_list(tags, self._line(raw, "tags"), qid, "tags") if tags is not None else ()
        )
        filters = get("filters")
        if filters is None:
            filters = {}
        elif not isinstance(filters, dict):
            self.add(
                self._line(raw, "filters"),
                f"'filters' must be a mapping (network: base), got {_type_name(filters)}",
                qid,
            )
            ok = False
        expect_raw = get("expect")
        expect = (
            self.expect(expect_raw, self._line(raw, "expect"), qid)
            if expect_raw is not None
            else {}
        )
        forbid_raw = get("forbid")
        forbid = (
            self.text_list(forbid_raw, self._line(raw, "forbid"), qid, "forbid")
            if forbid_raw is not None
            else ()
        )
        skip = self.reason(get("skip"), self._line(raw, "skip"), qid, "skip")
        xfail = self.reason(get("xfail"), self._line(raw, "xfail"), qid, "xfail")
        if not ok or qid is None or relevant is None:
            return None
        return GoldenQuery(
            id=qid,
            text=str(text),
            category=str(category),
            tags=tags_t,
            filters=_plain(filters),
            relevant=relevant,
            expect=expect,
            forbid=forbid,
            skip=skip,
            xfail=xfail,
            path=self.shown,
            line=line,
        )


def _plain(value: Any) -> Any:
    """Strip the line-tracking subclasses so users get ordinary dicts and lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def load_golden_file(
    path: Path, *, max_grade: int = 3, shown: str | None = None
) -> list[GoldenQuery]:
    """Load and validate one golden file.

    ``shown`` is how the file is named in messages (a path relative to the
    rootdir). Raises :class:`GoldenFileError` with every problem in the file;
    ids duplicated *within* the file are reported here, across files by
    :class:`GoldenSet`.
    """
    shown = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldenFileError([Problem(shown, 0, f"cannot read the file: {exc}")]) from None
    data = _parse(path, text, shown)
    checker = _Checker(shown, max_grade)
    defaults: dict[str, Any] = {}
    if data is None:
        raise GoldenFileError(
            [Problem(shown, 1, "the file is empty; write 'queries:' with a list of queries")]
        )
    if isinstance(data, dict):
        outside_queries = [data.get("defaults")] if "defaults" in data else []
        repeats = list(getattr(data, "duplicates", [])) + duplicate_keys(outside_queries)
        for key, first, again in repeats:
            checker.add(again, _repeated(key, first))
        for key in data:
            if key not in FILE_KEYS:
                checker.add(
                    data.key_lines.get(key, 1) if isinstance(data, _Lines) else 1,
                    f"unknown top-level key '{key}'{_closest(key, FILE_KEYS)}",
                )
        defaults = checker.defaults(data.get("defaults"))
        raw_queries = data.get("queries")
        if raw_queries is None:
            checker.add(1, "no 'queries:' list in this file; put the queries under 'queries:'")
            raw_queries = []
    else:
        raw_queries = data
    if not isinstance(raw_queries, list):
        raise GoldenFileError(
            [
                *checker.problems,
                Problem(
                    shown,
                    getattr(raw_queries, "line", 1),
                    f"'queries' must be a list of queries, got {_type_name(raw_queries)}",
                ),
            ]
        )
    lines = raw_queries.item_lines if isinstance(raw_queries, _Seq) else [0] * len(raw_queries)
    queries: list[GoldenQuery] = []
    first_line: dict[str, int] = {}
    for raw, line in zip(raw_queries, lines, strict=False):
        query = checker.query(raw, line, defaults)
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
    if checker.problems:
        raise GoldenFileError(checker.problems)
    return queries


class GoldenSet:
    """The queries of a whole run, across files: ids unique across the golden set."""

    def __init__(self) -> None:
        self.queries: dict[str, GoldenQuery] = {}

    def add_file(self, queries: list[GoldenQuery]) -> None:
        """Register a file's queries; raise :class:`GoldenFileError` for ids used elsewhere."""
        problems = []
        for query in queries:
            other = self.queries.get(query.id)
            if other is not None and (other.path, other.line) != (query.path, query.line):
                problems.append(
                    Problem(
                        query.path,
                        query.line,
                        f"duplicate id: already used in {other.path}:{other.line}; ids must be "
                        "unique across the golden set",
                        query.id,
                    )
                )
        if problems:
            raise GoldenFileError(problems)
        for query in queries:
            self.queries[query.id] = query


def golden_digest(fingerprints: Mapping[str, str]) -> str:
    """A sha256 over every query's id and fingerprint (text and judgments), in id order."""
    digest = hashlib.sha256()
    for qid in sorted(fingerprints):
        digest.update(f"{qid}\0{fingerprints[qid]}\n".encode())
    return digest.hexdigest()
