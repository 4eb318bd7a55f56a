"""A small reader for the Cranfield collection in SMART format (test support, not a test).

Files (in one folder): ``cran.all.1400`` (documents), ``cran.qry`` (queries),
``cranqrel`` (judgments) and ``cranqrel.readme``. The collection is never copied
into the repository: :func:`locate` finds it beside the repository
(``../shared/data/cranfield``) or through the ``RETRIEVAL_CRANFIELD`` variable.

SMART records start with ``.I <id>``; each field starts with a marker line
(``.T`` title, ``.A`` authors, ``.B`` bibliography, ``.W`` text). The files have
CRLF line ends, and a few abstracts contain stray marker lines (document 240 holds
``.A`` and ``.B`` lines inside its ``.W`` text; 576 and 578 repeat ``.W``): the
``.W`` field is always the last one, so once it starts, every line up to the next
``.I`` is text and stray markers are dropped.

Judgments: query numbers in ``cranqrel`` are the queries' *positions* in
``cran.qry`` (1..225), not their ``.I`` numbers (which run 001..365 with gaps).
Cleverdon's relevance codes become grades: 1 (complete answer) -> 4,
2 -> 3, 3 -> 2, 4 (minimum interest) -> 1, and -1 (judged, of no interest) -> 0.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

ENV = "RETRIEVAL_CRANFIELD"
FILES = ("cran.all.1400", "cran.qry", "cranqrel")
CLEVERDON_TO_GRADE = {1: 4, 2: 3, 3: 2, 4: 1, 5: 0, -1: 0}
MAX_GRADE = 4

_MARKER = re.compile(r"^\.([A-Z])(?:\s+(\S+))?\s*$")


@dataclass(frozen=True)
class Record:
    """One SMART record: its ``.I`` id and its fields (marker letter -> text)."""

    id: str
    fields: dict[str, str]

    def get(self, field: str) -> str:
        return self.fields.get(field, "")


@dataclass(frozen=True)
class Query:
    number: int  # position in cran.qry, 1-based: the number the qrels use
    smart_id: str  # the .I number written in cran.qry
    text: str


def locate(start: Path | None = None) -> Path | None:
    """The collection folder, or None when it is not there."""
    here = Path(start or __file__).resolve()
    candidates = [here.parents[1].parent / "shared" / "data" / "cranfield"]
    if os.environ.get(ENV):
        candidates.append(Path(os.environ[ENV]))
    for folder in candidates:
        if all((folder / name).is_file() for name in FILES):
            return folder
    return None


def parse_smart(text: str) -> list[Record]:
    """Every record of a SMART file, in file order."""
    records: list[Record] = []
    record_id: str | None = None
    fields: dict[str, list[str]] = {}
    field: str | None = None
    for line in text.splitlines():
        marker = _MARKER.match(line)
        if marker and marker.group(1) == "I" and marker.group(2) is not None:
            if record_id is not None:
                records.append(_record(record_id, fields))
            record_id, fields, field = marker.group(2), {}, None
            continue
        if record_id is None:
            if line.strip():
                raise ValueError(f"text before the first .I record: {line!r}")
            continue
        if marker and marker.group(2) is None:
            if field == "W":
                continue  # a stray marker inside the text (the text is the last field)
            field = marker.group(1)
            fields.setdefault(field, [])
            continue
        if field is not None:
            fields[field].append(line)
    if record_id is not None:
        records.append(_record(record_id, fields))
    return records


def _record(record_id: str, fields: dict[str, list[str]]) -> Record:
    return Record(record_id, {k: " ".join(" ".join(v).split()) for k, v in fields.items()})


def read_documents(folder: Path) -> dict[str, Record]:
    """Documents by id ("1".."1400")."""
    records = parse_smart((folder / "cran.all.1400").read_text(encoding="utf-8"))
    documents = {r.id: r for r in records}
    if len(documents) != len(records):
        raise ValueError("cran.all.1400: duplicate document ids")
    return documents


def read_queries(folder: Path) -> list[Query]:
    """Queries in file order, numbered by position (1..225) as the qrels number them."""
    records = parse_smart((folder / "cran.qry").read_text(encoding="utf-8"))
    return [Query(n, r.id, r.get("W")) for n, r in enumerate(records, start=1)]


def read_qrels(folder: Path) -> dict[int, dict[str, int]]:
    """Query number -> {document id: grade 0..4}."""
    qrels: dict[int, dict[str, int]] = {}
    text = (folder / "cranqrel").read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3:
            raise ValueError(f"cranqrel line {number}: expected 3 columns, got {line!r}")
        query, doc, code = int(parts[0]), str(int(parts[1])), int(parts[2])
        if code not in CLEVERDON_TO_GRADE:
            raise ValueError(f"cranqrel line {number}: unknown relevance code {code}")
        judged = qrels.setdefault(query, {})
        if doc in judged:
            raise ValueError(f"cranqrel line {number}: query {query} judges {doc} twice")
        judged[doc] = CLEVERDON_TO_GRADE[code]
    return qrels
