"""The pool's worklist file: YAML a person (or a model) fills in with grades.

Pure apart from files. One query per entry, one document per line, ``grade: null``
until graded::

    format: pytest-retrieval-worklist
    version: 1
    depth: 10
    max_grade: 3
    queries:
      - id: rain-tomorrow
        query: is it going to rain tomorrow
        category: paraphrase
        file: golden/catalog.yaml
        judged: 2
        documents:
          - {id: tide-tables, grade: null, found: {bm25: 3, dense: 1}}

:func:`read_worklist` reports every problem with the file, line and query id.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..golden import GoldenFileError, Problem
from ..pooling import PoolDoc, PoolQuery, Worklist
from .atomic import write_atomic
from .common import BOM, FormatError, is_version, utf8_text
from .golden_check import octal_grade, written_id_problem
from .golden_writer import yaml_flow, yaml_string
from .golden_yaml import parse_yaml

FORMAT = "pytest-retrieval-worklist"
VERSION = 1
_QUERY_KEYS = ("id", "query", "category", "file", "judged", "documents")


def worklist_yaml(worklist: Worklist) -> str:
    """The worklist's text."""
    lines = [
        f"# Unjudged results of the top {worklist.depth}: replace each 'grade: null' with a "
        f"grade 0..{worklist.max_grade}",
        "# (0 = judged not relevant), then fold them into the golden files:",
        "#   pytest-retrieval merge THIS-FILE",
        f"format: {FORMAT}",
        f"version: {VERSION}",
        f"depth: {worklist.depth}",
        f"max_grade: {worklist.max_grade}",
        "queries:" if worklist.queries else "queries: []",
    ]
    for query in worklist.queries:
        lines += [
            f"  - id: {yaml_string(query.id)}",
            f"    query: {yaml_string(query.text)}",
            f"    category: {yaml_string(query.category)}",
            f"    file: {yaml_string(query.path)}",
            f"    judged: {query.judged}",
            "    documents:",
        ]
        for doc in query.documents:
            grade = "null" if doc.grade is None else str(doc.grade)
            found = yaml_flow(doc.found)
            lines.append(
                f"      - {{id: {yaml_string(doc.id, flow=True)}, grade: {grade}, found: {found}}}"
            )
    return "\n".join(lines) + "\n"


def write_worklist(path: Path, worklist: Worklist) -> None:
    write_atomic(path, worklist_yaml(worklist))


def _line(value: object, key: str | None = None) -> int:
    if key is not None:
        return int(getattr(value, "key_lines", {}).get(key, getattr(value, "line", 0)))
    return int(getattr(value, "line", 0))


class _Reader:
    """Reads a loaded worklist, collecting every problem."""

    def __init__(self, shown: str, max_grade: int, graded: bool):
        self.shown = shown
        self.max_grade = max_grade
        self.graded = graded  # every document must have a grade
        self.problems: list[Problem] = []
        self.graded_at: dict[tuple[str, str], PoolDoc] = {}  # (query, document) -> first grade

    def add(self, line: int, message: str, qid: str | None = None) -> None:
        self.problems.append(Problem(self.shown, line, message, qid))

    def grade(self, raw: dict[object, object], qid: str, doc: str) -> int | None:
        grade = raw.get("grade")
        line = _line(raw)
        if grade is None:
            if self.graded:
                self.add(line, f"'{doc}' has no grade yet; grade it 0..{self.max_grade}", qid)
        elif isinstance(grade, bool) or not isinstance(grade, int):
            self.add(
                line, f"grade of '{doc}' must be an integer 0..{self.max_grade}, got {grade!r}", qid
            )
        elif (octal := octal_grade(doc, grade)) is not None:
            self.add(line, octal, qid)
        elif not 0 <= grade <= self.max_grade:
            self.add(
                line,
                f"grade of '{doc}' is {grade}, outside 0..{self.max_grade} (retrieval_max_grade); "
                "use a grade in range or raise retrieval_max_grade",
                qid,
            )
        else:
            return grade
        return None

    def document(self, raw: object, qid: str, line: int) -> PoolDoc | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), (str, int)):
            self.add(getattr(raw, "line", line), "each document needs an 'id' and a 'grade'", qid)
            return None
        misread = written_id_problem(raw["id"])
        if misread is not None:  # merged as written, it would judge another document
            self.add(_line(raw), f"document {misread}", qid)
            return None
        doc = str(raw["id"])
        found = raw.get("found", {})
        sources = (
            {str(k): v for k, v in found.items() if isinstance(v, int)}
            if isinstance(found, dict)
            else {}
        )
        found_doc = PoolDoc(doc, sources, self.grade(raw, qid, doc), _line(raw))
        self.refuse_contradiction(found_doc, qid)
        return found_doc

    def refuse_contradiction(self, doc: PoolDoc, qid: str) -> None:
        """Two different grades for one (query, document): which one is meant is not known."""
        if doc.grade is None:
            return
        first = self.graded_at.setdefault((qid, doc.id), doc)
        if first.grade != doc.grade:
            self.add(
                doc.line,
                f"'{doc.id}' is graded {doc.grade} here and {first.grade} on line {first.line}: "
                "keep one of the two grades (delete the other line), then merge again",
                qid,
            )

    def query(self, raw: object, line: int) -> PoolQuery | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), (str, int)):
            self.add(getattr(raw, "line", line), "each query needs an 'id' and 'documents'")
            return None
        qid = str(raw["id"])
        misread = written_id_problem(raw["id"])
        if misread is not None:
            self.add(_line(raw, "id"), f"query {misread}", qid)
        unknown = [str(k) for k in raw if k not in _QUERY_KEYS]
        if unknown:
            self.add(
                _line(raw),
                f"unknown key{'' if len(unknown) == 1 else 's'} {', '.join(unknown)}; "
                f"keys: {', '.join(_QUERY_KEYS)}",
                qid,
            )
        if not isinstance(raw.get("file"), str) or not raw["file"]:
            self.add(_line(raw), "no 'file': the golden file of this query is needed to merge", qid)
        raw_docs = raw.get("documents")
        if not isinstance(raw_docs, list):
            self.add(_line(raw, "documents"), "'documents' must be a list", qid)
            return None
        docs = [self.document(d, qid, _line(raw)) for d in raw_docs]
        return PoolQuery(
            id=qid,
            text=str(raw.get("query", "")),
            category=str(raw.get("category", "")),
            path=str(raw.get("file", "")),
            judged=judged if isinstance(judged := raw.get("judged", 0), int) else 0,
            documents=[d for d in docs if d is not None],
            line=_line(raw),
        )


def parse_worklist(text: str, shown: str, max_grade: int, *, graded: bool = True) -> Worklist:
    """A worklist's text; ``graded``: every document must have a grade in range."""
    try:
        data = parse_yaml(text, shown)
    except GoldenFileError as exc:
        raise FormatError(exc.problems) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FormatError(
            [
                Problem(
                    shown,
                    1,
                    f"not a worklist (no 'format: {FORMAT}'); make one with pytest-retrieval pool",
                )
            ]
        )
    if not is_version(data.get("version"), VERSION):
        where = _line(data, "version") if "version" in data else 1
        raise FormatError(
            [
                Problem(
                    shown,
                    where,
                    f"worklist version {data.get('version')!r}; this version reads {VERSION}: "
                    "make the worklist again with pytest-retrieval pool",
                )
            ]
        )
    reader = _Reader(shown, max_grade, graded)
    queries_raw = data.get("queries")
    if not isinstance(queries_raw, list):
        raise FormatError([Problem(shown, _line(data, "queries"), "'queries' must be a list")])
    lines = getattr(queries_raw, "item_lines", [0] * len(queries_raw))
    queries = [reader.query(q, line) for q, line in zip(queries_raw, lines, strict=False)]
    if reader.problems:
        raise FormatError(reader.problems)
    depth = data.get("depth", 0)
    worklist = Worklist(depth if isinstance(depth, int) else 0, max_grade, path=shown)
    worklist.queries = [q for q in queries if q is not None]
    return worklist


def read_worklist(
    path: Path, max_grade: int, *, shown: str | None = None, graded: bool = True
) -> Worklist:
    shown = shown or str(path)
    try:
        text = utf8_text(path.read_bytes())
    except OSError as exc:
        raise FormatError([Problem(shown, 0, f"cannot read the file: {exc}")]) from None
    if isinstance(text, tuple):
        line, message = text
        raise FormatError([Problem(shown, line, f"{message}; save it as UTF-8")])
    return parse_worklist(text, shown, max_grade, graded=graded)


_FORMAT_LINE = re.compile(
    rb"^format:[ \t]*" + re.escape(FORMAT.encode()) + rb"[ \t]*(#.*)?\r?$", re.M
)


def is_worklist_head(head: bytes) -> bool:
    """Whether a file's first bytes declare it a worklist: a line of its own
    ``format: pytest-retrieval-worklist`` (a comment may follow)."""
    return _FORMAT_LINE.search(head.removeprefix(BOM)) is not None


def looks_like_worklist(path: Path) -> bool:
    """True when the file declares itself a worklist (:func:`is_worklist_head`)."""
    try:
        with open(path, "rb") as handle:
            return is_worklist_head(handle.read(4096))
    except OSError:
        return False
