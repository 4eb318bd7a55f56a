"""GitHub Actions workflow commands: annotations at the golden file's line. Pure.

``::error file=golden/catalog.yaml,line=14,title=...::message`` lines, which GitHub shows
on the pull request's diff and the run's summary. Breached gate rows come first (at the
line of the query that dropped most), then failing and erroring queries (at their own
line). GitHub shows at most 10 error annotations per step, so the lines stop at
``limit`` (breached rows and queries each get at least half of it when both have more)
and a final ``::notice`` says how many more there are and where to read them.
Under ``retrieval_gate_mode = report`` a breach is a ``::warning``: it does not fail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..gate import GateResult, GateRow
from ..io.common import counted
from ..model import ALL, QueryRecord, Results
from ..scoring import why
from .gate_text import drop_and_allowed

Level = Literal["error", "warning", "notice"]
LIMIT = 10  # GitHub shows 10 error annotations per step
MESSAGE_MAX = 2000


@dataclass(frozen=True)
class Annotation:
    level: Level
    message: str
    title: str = ""
    file: str | None = None
    line: int | None = None

    def command(self) -> str:
        """The workflow command, escaped as GitHub's toolkit escapes it."""
        props = []
        if self.file:
            props.append(f"file={_property(self.file)}")
            if self.line:
                props.append(f"line={self.line}")
        if self.title:
            props.append(f"title={_property(self.title)}")
        head = f"::{self.level}" + (" " + ",".join(props) if props else "")
        message = self.message if len(self.message) <= MESSAGE_MAX else self.message[:1999] + "…"
        return f"{head}::{_data(message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


Place = Callable[[str], tuple[str | None, int | None]]  # query id -> (file, line)


def _row_place(row: GateRow, results: Results, place: Place) -> tuple[str | None, int | None]:
    """Where a breached row points: its worst query, else the category's first query."""
    for q in row.worst_queries:
        found = place(q.id)
        if found[0]:
            return found
    for record in results.records(row.configuration):
        if row.category == record.category or row.category.split(" (= ")[0] == ALL:
            found = place(record.id)
            if found[0]:
                return found
    return None, None


def _row_message(row: GateRow) -> str:
    worst = ", ".join(q.id for q in row.worst_queries[:5])
    text = (
        f"{row.configuration} / {row.category} / {row.metric}: {row.baseline:.3f} -> "
        f"{row.current:.3f} ({drop_and_allowed(row)})"
    )
    return text + (f"; dropped most: {worst}" if worst else "")


def gate_annotations(gate: GateResult, results: Results, place: Place) -> list[Annotation]:
    level: Level = "error" if gate.blocking else "warning"
    title = f"retrieval gate {gate.verdict.upper()}"
    out = [
        Annotation(level, _row_message(row), title, *_row_place(row, results, place))
        for row in sorted(
            gate.listed(gate.breached), key=lambda r: (r.delta + r.allowed, r.configuration)
        )
    ]
    if gate.failed and not gate.breached:
        file = gate.baseline if gate.verdict == "refused" else None
        out += [Annotation(level, m, title, file) for m in gate.messages[:1]]
    if gate.verdict == "no-baseline":  # else a green check on a pull request gated nothing
        out += [Annotation("warning", m, title) for m in gate.messages[:1]]
    return out


def query_annotations(records: Sequence[QueryRecord], place: Place) -> list[Annotation]:
    out = []
    for record in records:
        if record.outcome not in ("failed", "error"):
            continue
        file, line = place(record.id)
        title = f"retrieval: query '{record.id}' [{record.configuration}] {record.outcome}"
        out.append(Annotation("error", why(record) or record.outcome, title, file, line))
    return out


def workflow_commands(
    results: Results,
    gate: GateResult | None,
    places: Mapping[str, tuple[str | None, int | None]],
    limit: int = LIMIT,
) -> list[str]:
    """The workflow command lines: breached rows, then failing queries, at most ``limit``."""

    def place(qid: str) -> tuple[str | None, int | None]:
        return places.get(qid, (None, None))

    rows = gate_annotations(gate, results, place) if gate is not None else []
    queries = query_annotations(results.all_records(), place)
    shown_rows = max(limit - min(len(queries), limit // 2), 0)  # both kinds get their share
    found = rows[:shown_rows] + queries
    lines = [a.command() for a in found[:limit]]
    more = len(rows) + len(queries) - len(lines)
    if more > 0:
        text = (
            f"{counted(more, 'more retrieval finding')} not annotated (GitHub shows {limit} "
            "per step): "
            "see the job summary or the --retrieval-report files"
        )
        lines.append(Annotation("notice", text, "retrieval").command())
    return lines
