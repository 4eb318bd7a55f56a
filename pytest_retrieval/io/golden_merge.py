"""New judgments written into a golden YAML file's text, everything else left byte for byte.

Pure. Only the ``relevant:`` of the queries that get judgments changes; comments,
order, quoting and layout of the rest of the file stay as they were, so a merge
reads in review as the lines it added. How each way of writing ``relevant`` grows:

* a block mapping (one judgment per line): new lines after its last judgment, at
  its indentation;
* a flow mapping on one line (``{a: 3, b: 0}``, ``{}``): the new ``doc: grade`` pairs
  inside the braces;
* the list shorthand (``[a, b]`` or ``- a`` lines, grade 1 each): rewritten as the
  mapping it means, in the same style, with the new pairs after.

What cannot be edited in place (a flow mapping over several lines, an alias) is a
problem naming the query and how to rewrite it; nothing is guessed.

In a JSONL golden file a query is one line: that line is written again with the new
pairs after the others in its ``relevant`` (the list shorthand becomes the mapping it
means), its keys in their order; every other line stays byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..golden import GoldenFileError, Problem
from .common import FormatError
from .golden_check import Lines, Seq
from .golden_jsonl import parse_jsonl
from .golden_writer import yaml_key, yaml_string
from .golden_yaml import parse_yaml

_KEY = re.compile(r"\brelevant['\"]?\s*:\s*")  # the key, quoted or not, and its colon
_VALUE_BELOW = re.compile(r":\s*(#.*)?$")  # a key line whose value is on the lines below
_ITEM = re.compile(r"^(?P<lead>\s*)-\s+(?P<value>[^#]*?)(?P<tail>\s+#.*)?$")


@dataclass(frozen=True)
class _Edit:
    start: int  # 0-based index of the first line replaced
    end: int  # exclusive
    lines: tuple[str, ...]


def _pair(doc: str, grade: int) -> str:
    """``doc: grade`` inside ``{ }`` (``? doc : grade`` for an id too long for a YAML key)."""
    return yaml_key(yaml_string(doc, flow=True), str(grade))


def _pair_lines(doc: str, grade: int, indent: str) -> tuple[str, ...]:
    """``doc: grade`` as lines of a block mapping at ``indent`` (two for a long id)."""
    return tuple(
        f"{indent}{line}" for line in yaml_key(yaml_string(doc), str(grade), "").split("\n")
    )


def _queries(data: object) -> dict[str, Lines]:
    raw = data.get("queries") if isinstance(data, dict) else data
    out: dict[str, Lines] = {}
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, Lines) and item.get("id") is not None:
            out.setdefault(str(item["id"]), item)
    return out


def _flow_span(text: str, start: int) -> tuple[int, int] | None:
    """The indexes of the bracket at ``start`` that opens a flow collection and of the one
    that closes it on the same line (quoted scalars and nested brackets skipped); None
    when ``start`` holds no bracket, or the collection goes on past the line."""
    if text[start : start + 1] not in ("{", "["):
        return None
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1  # an escaped character
            elif c == quote and text[i + 1 : i + 2] == "'" == quote:
                i += 1  # '' inside single quotes
            elif c == quote:
                quote = ""
        elif c in "'\"" and text[:i].rstrip()[-1:] in ("{", "[", ",", ":"):
            quote = c  # a quoted scalar starts: not an apostrophe inside a plain one
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return start, i
        elif c == "#" and text[i - 1] in " \t":
            return None  # a comment inside the collection: it goes on below
        i += 1
    return None


class _Planner:
    """The edits of one file, and every problem met."""

    def __init__(self, shown: str, lines: list[str]):
        self.shown = shown
        self.lines = lines
        self.problems: list[Problem] = []
        self.edits: list[_Edit] = []

    def add(self, line: int, message: str, qid: str) -> None:
        self.problems.append(Problem(self.shown, line, message, qid))

    def new_pairs(
        self, qid: str, current: Mapping[str, int], extra: Mapping[str, int], line: int
    ) -> dict[str, int]:
        """The judgments to add: conflicting grades are problems, equal ones no-ops."""
        out: dict[str, int] = {}
        for doc, grade in extra.items():
            have = current.get(doc)
            if have is None:
                out[doc] = grade
            elif have != grade:
                self.add(
                    line,
                    f"'{doc}' is already judged {have} here, the worklist says {grade}: settle "
                    "it in one of the two files, then merge again",
                    qid,
                )
        return out

    def grades(self, qid: str, relevant: object, line: int) -> dict[str, int] | None:
        """What ``relevant`` judges (a list: grade 1 each); None, a problem, when neither."""
        if isinstance(relevant, list):
            return {str(d): 1 for d in relevant}
        if isinstance(relevant, dict):
            return {str(d): int(g) for d, g in relevant.items()}
        self.add(line, "'relevant' is neither a mapping nor a list; fix the file first", qid)
        return None

    def json_line(self, qid: str, raw: Lines, extra: Mapping[str, int]) -> None:
        """A JSONL query's line, written again with the new judgments."""
        grades = self.grades(qid, raw.get("relevant"), raw.line)
        new = {} if grades is None else self.new_pairs(qid, grades, extra, raw.line)
        if grades is None or not new:
            return
        text = self.lines[raw.line - 1]
        value = json.loads(text.rstrip("\r"))
        value["relevant"] = {**grades, **new}
        line = json.dumps(value, ensure_ascii=False)
        self.edits.append(_Edit(raw.line - 1, raw.line, (line,)))

    def query(self, qid: str, raw: Lines, extra: Mapping[str, int]) -> None:
        relevant = raw.get("relevant")
        key_line = raw.key_lines.get("relevant", raw.line)
        grades = self.grades(qid, relevant, key_line)
        if grades is None:
            return
        new = self.new_pairs(qid, grades, extra, key_line)
        if not new:
            return
        text = self.lines[key_line - 1].rstrip("\r")
        key = _KEY.search(text)
        rest = text[key.end() :].strip() if key is not None else ""
        span = _flow_span(text, key.end()) if key is not None else None
        if span is not None:
            self._flow(text, span, key_line, grades if isinstance(relevant, Seq) else None, new)
        elif rest.startswith(("{", "[")):
            self.add(
                key_line,
                "'relevant' is written over several lines inside braces or brackets; put it on "
                "one line, or one judgment per line, then merge again",
                qid,
            )
        elif rest and not rest.startswith("#"):
            self.add(
                key_line,
                "'relevant' uses an anchor, an alias or a tag (&name, *name, !tag): editing it "
                "would change other queries too; write its judgments out, then merge again",
                qid,
            )
        elif isinstance(relevant, Seq):
            self._block_list(relevant, new, qid)
        elif isinstance(relevant, Lines):
            self._block_map(relevant, new, qid)
        else:  # pragma: no cover - the loader makes every mapping a Lines
            self.add(key_line, "cannot find where 'relevant' is written", qid)

    def _flow(
        self,
        text: str,
        span: tuple[int, int],
        key_line: int,
        listed: dict[str, int] | None,
        new: dict[str, int],
    ) -> None:
        """The one-line ``{...}`` or ``[...]`` at ``span`` (its brackets) with the new pairs
        in it; what comes before and after it on the line (the query's other keys when the
        query is itself one line of flow) stays as it is."""
        pairs = [_pair(d, g) for d, g in new.items()]
        body = text[span[0] + 1 : span[1]].strip()
        if listed is not None:  # [a, b] -> {a: 1, b: 1, ...}
            body = ", ".join(_pair(d, g) for d, g in listed.items())
        inside = ", ".join([body, *pairs] if body else pairs)
        line = f"{text[: span[0]]}{{{inside}}}{text[span[1] + 1 :]}"
        self.edits.append(_Edit(key_line - 1, key_line, (line,)))

    def _block_map(self, relevant: Lines, new: dict[str, int], qid: str) -> None:
        last = max(relevant.key_lines.values())
        doc = next(str(d) for d, line in relevant.key_lines.items() if line == last)
        if _VALUE_BELOW.search(self.lines[last - 1].rstrip("\r")):  # new lines would split it
            self.add(
                last,
                f"'relevant' writes the grade of '{doc}' on a line of its own; write "
                f"'{doc}: grade' on one line, then merge again",
                qid,
            )
            return
        first = self.lines[min(relevant.key_lines.values()) - 1]
        indent = first[: len(first) - len(first.lstrip())]
        added = tuple(line for d, g in new.items() for line in _pair_lines(d, g, indent))
        self.edits.append(_Edit(last, last, added))

    def _block_list(self, relevant: Seq, new: dict[str, int], qid: str) -> None:
        rewritten: list[_Edit] = []
        indent = ""
        for doc, line in zip(relevant, relevant.item_lines, strict=True):
            item = _ITEM.match(self.lines[line - 1].rstrip("\r\n"))
            if item is None:
                self.add(line, "cannot rewrite this list item; write 'relevant' as a mapping", qid)
                return
            indent = item["lead"] + "  "
            *lead, end = _pair_lines(str(doc), 1, indent)
            rewritten.append(_Edit(line - 1, line, (*lead, f"{end}{item['tail'] or ''}")))
        last = relevant.item_lines[-1]
        added = tuple(line for d, g in new.items() for line in _pair_lines(d, g, indent))
        self.edits += [*rewritten, _Edit(last, last, added)]

    def apply(self, last_break: bool) -> str:
        """The text with every edit; each new line ends as the line it replaces or follows
        (a file saved with CRLF keeps them), and the last line break is there only if it was."""
        lines = list(self.lines)
        for edit in sorted(self.edits, key=lambda e: (e.start, e.end), reverse=True):
            near = lines[edit.start if edit.end > edit.start else max(edit.start - 1, 0)]
            cr = "\r" if near.endswith("\r") else ""
            lines[edit.start : edit.end] = [line + cr for line in edit.lines]
        return "\n".join(lines) + ("\n" if last_break else "")


def merge_judgments(
    text: str, shown: str, additions: Mapping[str, Mapping[str, int]], *, jsonl: bool = False
) -> str:
    """``text`` with ``additions`` (query id -> {doc -> grade}) in each query's ``relevant``;
    ``jsonl``: the text of a JSONL golden file, else YAML.

    Raises :class:`FormatError` with every problem: a query not in the file, a grade
    that contradicts the file's, a ``relevant`` that cannot be edited in place. A
    byte-order mark stays (JSON would not read it: the text is read without it).
    """
    if text.startswith("\ufeff"):
        return "\ufeff" + merge_judgments(text[1:], shown, additions, jsonl=jsonl)
    try:
        data, found = parse_jsonl(text, shown) if jsonl else (parse_yaml(text, shown), [])
    except GoldenFileError as exc:
        raise FormatError(exc.problems) from None
    if found:
        raise FormatError(found)
    queries = _queries(data)
    planner = _Planner(shown, text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"))
    for qid, extra in additions.items():
        raw = queries.get(qid)
        if raw is None:
            planner.add(0, "the worklist names this query, but this file does not have it", qid)
        elif jsonl:
            planner.json_line(qid, raw, extra)
        else:
            planner.query(qid, raw, extra)
    if planner.problems:
        raise FormatError(planner.problems)
    return planner.apply(text.endswith("\n")) if planner.edits else text
