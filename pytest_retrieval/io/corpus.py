"""Small id files: a corpus list (document ids, one per line) and a category mapping.

``import --corpus FILE`` writes the corpus list; ``validate --corpus FILE`` reads it
to name judged ids that no document has (a likely typo). A category mapping
(``import --categories FILE``) gives each query id a category: one ``qid category``
per line (tab or spaces; ``#`` starts a comment line). Ids are kept as text,
exactly as written; blank lines are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from .atomic import write_atomic
from .common import FormatError, ProblemLog, category_problem, has_space, read_lines

JSON_DOCUMENT = (
    "a JSON object, not a document id (a BEIR corpus.jsonl?): a corpus list holds one id a "
    "line; `pytest-retrieval import beir FOLDER --corpus ids.txt` writes a BEIR corpus's "
    "ids so, or write the '_id' of each line one a line"
)


def _json_object(text: str) -> bool:
    """A line that is a JSON object: a document of a JSON lines corpus, not an id."""
    if not (text.startswith("{") and text.endswith("}")):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def read_corpus(path: Path, shown: str | None = None) -> frozenset[str]:
    """Every id of a corpus list; :class:`FormatError` for an id holding whitespace, or
    at the first line that is a JSON object (a BEIR ``corpus.jsonl`` given for the list:
    read as ids, every judged id would be 'not in the corpus')."""
    log = ProblemLog(shown or str(path))
    ids: set[str] = set()
    for number, text in read_lines(path, log.shown):
        doc = text.strip()
        if not doc:
            continue
        if _json_object(doc):
            log.add(number, JSON_DOCUMENT)
            break
        if has_space(doc):
            log.add(number, f"{doc!r} holds whitespace; write one document id per line")
            continue
        ids.add(doc)
    if not ids and not log.problems:
        log.add(0, "the corpus list holds no id; write one document id per line")
    log.raise_if_any()
    return frozenset(ids)


def write_corpus(path: Path, ids: Iterable[str]) -> int:
    """Write the ids, sorted, one per line, atomically; how many were written."""
    unique = sorted(set(ids))
    write_atomic(path, "".join(f"{doc}\n" for doc in unique))
    return len(unique)


def read_categories(path: Path, shown: str | None = None) -> dict[str, str]:
    """query id -> category, from ``qid category`` lines; :class:`FormatError` lists problems."""
    log = ProblemLog(shown or str(path))
    mapping: dict[str, str] = {}
    first: dict[str, int] = {}
    for number, text in read_lines(path, log.shown):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = stripped.split(None, 1)
        if len(parts) != 2:
            log.add(number, "expected 'query-id category' (an id, a tab or spaces, a category)")
            continue
        qid, category = parts[0], parts[1].strip()
        if qid in first:
            log.add(number, f"a category given twice (first on line {first[qid]}); keep one", qid)
            continue
        first[qid] = number
        problem = category_problem(category)
        if problem:  # named here, where it is written, not at the query's qrels line
            log.add(number, problem, qid)
            continue
        mapping[qid] = category
    if not mapping and not log.problems:
        log.add(0, "the file maps no query to a category; write 'query-id category' lines")
    log.raise_if_any()
    return mapping


__all__ = ["FormatError", "read_corpus", "write_corpus"]
