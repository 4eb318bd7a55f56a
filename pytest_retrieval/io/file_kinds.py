"""The plugin's own files, told apart by how each starts. Pure.

A JSON report, a baseline, a recording and the history log are JSON whose ``"format"``
names what they are (a report or a baseline first thing in the file, a recording on
its header line, the log on every line); a worklist is YAML with a ``format:`` line of
its own. Given where another kind belongs (a golden file, a run, a report), each is
named for what it is and what wrote it, not read as that other kind with a problem on
every line. One reading for every place that asks: the collection of golden folders,
``--retrieval-replay`` and the command line.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..history import FORMAT as LOG_FORMAT
from .baseline_file import FORMAT as BASELINE_FORMAT
from .common import BOM
from .recording import FORMAT as RECORDING_FORMAT
from .report_json import FORMAT as REPORT_FORMAT
from .worklist import is_worklist_head

HEAD_BYTES = 4096  # how much of a file's start is read to tell what it is
REPORT_KIND = "JSON report (written by --retrieval-report)"
BASELINE_KIND = "baseline (written by --retrieval-update-baseline)"
RECORDING_KIND = "recording (written by --retrieval-record)"
LOG_KIND = "history log (written by --retrieval-log)"
WORKLIST_KIND = "worklist (written by pytest-retrieval pool)"
OWN_KINDS = (REPORT_KIND, BASELINE_KIND, RECORDING_KIND, LOG_KIND, WORKLIST_KIND)

_JSON_KINDS = {
    REPORT_FORMAT: REPORT_KIND,
    BASELINE_FORMAT: BASELINE_KIND,
    RECORDING_FORMAT: RECORDING_KIND,
    LOG_FORMAT: LOG_KIND,
}
# a "format" key with one of the plugin's formats as its value (a golden query holds no
# such key: it would be refused as unknown), wherever a hand edit moved it in the object
_FORMAT_VALUE = re.compile(rb'"format"\s*:\s*"(' + b"|".join(
    re.escape(f.encode()) for f in _JSON_KINDS
) + rb')"')  # fmt: skip


def kind_of_head(head: bytes) -> str | None:
    """The kind of the plugin's file whose first bytes are ``head``, else None."""
    text = head.removeprefix(BOM).lstrip()
    if not text.startswith(b"{"):
        return WORKLIST_KIND if is_worklist_head(text) else None
    found = _FORMAT_VALUE.search(text)
    return None if found is None else _JSON_KINDS[found.group(1).decode()]


TREC_RUN = "a TREC run ('qid Q0 docno rank score tag' lines)"
TREC_QRELS = "a TREC qrels file ('qid iter docno rel' lines)"
_NUMBER = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def head_fields(path: Path) -> list[list[bytes]] | None:
    """The fields of the data lines that start a text file (blank lines and ``#``
    comments left out); None for a file that cannot be read."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return None
    lines = head.removeprefix(BOM).splitlines()
    lines = lines[:-1] if len(head) == HEAD_BYTES else lines  # the last one read may be cut
    return [f for f in map(bytes.split, lines) if f and not f[0].startswith(b"#")]


def trec_kind_of_fields(lines: list[list[bytes]] | None) -> str | None:
    """:data:`TREC_RUN` or :data:`TREC_QRELS` when the data lines that start a file (their
    fields, :func:`head_fields`) read as one (every one of them: a run's integer rank and
    numeric score, a qrels line's four fields and integer grade), else None."""
    if not lines:
        return None
    if all(len(f) >= 6 and f[3].isdigit() and _NUMBER.fullmatch(f[4]) for f in lines):
        return TREC_RUN
    if all(len(f) == 4 and f[3].lstrip(b"-").isdigit() for f in lines):
        return TREC_QRELS
    return None


def own_file_kind(path: Path) -> str | None:
    """What the file at ``path`` is when it is one of the plugin's own files, else None
    (also for one that cannot be read: whoever reads it says why)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return None
    return kind_of_head(head)


__all__ = [
    "BASELINE_KIND",
    "LOG_KIND",
    "OWN_KINDS",
    "RECORDING_KIND",
    "REPORT_KIND",
    "TREC_QRELS",
    "TREC_RUN",
    "WORKLIST_KIND",
    "head_fields",
    "kind_of_head",
    "own_file_kind",
    "trec_kind_of_fields",
]
