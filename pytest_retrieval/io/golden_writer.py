"""Golden queries written as canonical YAML or JSONL.

Pure: no pytest here. What is written reads back equal with
:func:`pytest_retrieval.io.golden_file.load_golden_file`; queries that would not (an
empty text, a bad id, a grade out of range...) are refused with the message the
loader would give, before anything is written.

Canonical YAML: one ``queries:`` list, queries in the given order, keys in the order
of the golden format (id, query, category, tags, filters, relevant, expect, forbid,
skip, xfail), empty optional keys left out, ``relevant`` one judgment per line, best
grade first (ties by id). A text is written plain only when it is plainly text to
every YAML reader: it starts with a letter or ``_``, holds only letters, digits,
spaces and ``_ . - / ' ? ! ( ) & + @`` (and ``,`` outside brackets), and is no YAML
keyword (``yes``, ``no``, ``on``, ``off``, ``true``, ``null``, ``y``, ``n``...).
Everything else is double-quoted, so ``00123``, ``0x1F``, ``1_000``, ``1e3``,
``2024-01-01`` or ``no`` stay text.

JSONL: one query object per line, with the same keys as the YAML.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from ..golden import GoldenFileError, GoldenQuery, Problem, id_key
from ..metrics import MetricNameError, parse_metric
from .atomic import write_atomic
from .golden_check import Checker, Lines, check_query

_PLAIN_BLOCK = re.compile(r"[A-Za-z_][A-Za-z0-9_ .,'?!()&+/@-]*")
_PLAIN_FLOW = re.compile(r"[A-Za-z_][A-Za-z0-9_ .'?!()&+/@-]*")  # no ',' inside [ ] or { }
# YAML 1.1 and 1.2 keywords, compared lower-cased
_KEYWORDS = frozenset(("y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"))
_RESOLVER = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"
_LONG_KEY = 1000  # YAML limits an implicit key to 1024 characters: longer ones use '? '
_JSON_LINE_BREAKS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})

# --------------------------------------------------------------------------- YAML scalars


def _plain_ok(text: str, flow: bool) -> bool:
    pattern = _PLAIN_FLOW if flow else _PLAIN_BLOCK
    return (
        pattern.fullmatch(text) is not None
        and not text.endswith(" ")
        and text.lower() not in _KEYWORDS
        and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG  # type: ignore[no-untyped-call]
    )


def yaml_string(text: str, *, flow: bool = False) -> str:
    """``text`` as a YAML scalar that every reader reads back as this exact text."""
    if _plain_ok(text, flow):
        return text
    dumped = yaml.safe_dump(text, default_style='"', allow_unicode=True, width=1 << 30)
    return dumped.rstrip("\n")


class _Unwritable(ValueError):
    """A value that golden YAML cannot hold (a set, an object...)."""


_YAML_SCALARS = (bool, int, float, datetime.date, type(None))  # what a safe loader makes


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, str):
        return yaml_string(value, flow=True)
    if not isinstance(value, _YAML_SCALARS):
        raise _Unwritable(
            f"a filter value of type {type(value).__name__}; use mappings, lists, text, "
            "numbers, true/false or null"
        )
    dumped = yaml.safe_dump(value, allow_unicode=True, width=1 << 30)
    return dumped.split("\n", 1)[0]  # drop the document end marker ('...')


def yaml_key(rendered: str, value: str, indent: str | None = None) -> str:
    """``key: value``; an explicit ``? key`` for a key too long to be implicit.

    ``indent`` is the block indentation (None: inside ``{ }``, where ``? k : v`` fits one line).
    """
    if len(rendered) <= _LONG_KEY:
        return f"{rendered}: {value}"
    if indent is None:
        return f"? {rendered} : {value}"
    return f"? {rendered}\n{indent}: {value}"


def yaml_flow(value: Any) -> str:
    """A value on one line: mappings as ``{k: v}``, lists as ``[a, b]``, scalars as text."""
    if isinstance(value, Mapping):
        items = [yaml_key(_yaml_scalar(k), yaml_flow(v)) for k, v in value.items()]
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_flow(v) for v in value) + "]"
    return _yaml_scalar(value)


# --------------------------------------------------------------------------- one query


def _canonical(name: str) -> str:
    """A metric's canonical name (``MRR`` -> ``mrr``), as the loader stores it; bad names as is."""
    try:
        return parse_metric(name).name
    except MetricNameError:
        return name  # the validation names it


def query_mapping(query: GoldenQuery) -> dict[str, object]:
    """The query as a golden-file mapping: keys in the format's order, empty ones left out."""
    out: dict[str, object] = {"id": query.id, "query": query.text, "category": query.category}
    if query.tags:
        out["tags"] = list(query.tags)
    if query.filters:
        out["filters"] = dict(query.filters)
    out["relevant"] = dict(sorted(query.relevant.items(), key=lambda item: (-item[1], item[0])))
    if query.expect:
        out["expect"] = {_canonical(name): value for name, value in query.expect.items()}
    if query.forbid:
        out["forbid"] = list(query.forbid)
    for key in ("skip", "xfail"):
        reason = getattr(query, key)
        if reason is not None:
            out[key] = reason
    if query.xfail_in:
        out["xfail"] = dict(query.xfail_in)
    return out


def _yaml_query(mapping: dict[str, object]) -> list[str]:
    lines: list[str] = []
    for key, value in mapping.items():
        lead = "  - " if not lines else "    "
        if key == "relevant" and isinstance(value, Mapping) and value:
            lines.append(f"{lead}relevant:")
            lines.extend(
                f"      {yaml_key(yaml_string(doc), str(grade), '      ')}"
                for doc, grade in value.items()
            )
        elif isinstance(value, str):
            lines.append(f"{lead}{key}: {yaml_string(value)}")
        else:
            lines.append(f"{lead}{key}: {yaml_flow(value)}")
    return lines


# --------------------------------------------------------------------------- validation


def _check(
    queries: Sequence[GoldenQuery], mappings: list[dict[str, object]], shown: str, max_grade: int
) -> None:
    """Refuse, with the loader's own messages, what would not load back. A query read
    from a file (an import's qrels or queries file) has its problems named at its line
    there, which holds what to fix; others at ``shown``, the output."""
    checkers: dict[str, Checker] = {}
    seen: set[str] = set()
    for query, mapping in zip(queries, mappings, strict=True):
        source = query.path or shown
        checker = checkers.setdefault(source, Checker(source, max_grade))
        line = query.line if query.path else 0
        check_query(checker, _at_line(mapping, line), line, {})
        if id_key(query.id) in seen:  # 'café' composed and decomposed: one id
            checker.add(line, "duplicate id; ids must be unique across the golden set", query.id)
        seen.add(id_key(query.id))
    problems = [problem for checker in checkers.values() for problem in checker.problems]
    if problems:
        raise GoldenFileError(problems)


def _at_line(mapping: dict[str, object], line: int) -> Lines:
    """``mapping`` as the loader's mapping read at ``line``, every key on that line."""
    lined = Lines(mapping)
    lined.line, lined.key_lines, lined.duplicates = line, {}, []
    return lined


def _rendered(query_id: str, mapping: dict[str, object], shown: str) -> list[str]:
    try:
        return _yaml_query(mapping)
    except _Unwritable as exc:
        problem = Problem(shown, 0, f"cannot be written as YAML: {exc}", query_id)
        raise GoldenFileError([problem]) from None


def golden_yaml(queries: Sequence[GoldenQuery], *, max_grade: int = 3, shown: str = "") -> str:
    """Canonical golden YAML for ``queries`` (see the module's docstring for the rules)."""
    mappings = [query_mapping(q) for q in queries]
    _check(queries, mappings, shown or "golden YAML", max_grade)
    blocks = ["\n".join(_rendered(q.id, m, shown)) for q, m in zip(queries, mappings, strict=True)]
    if not blocks:
        return "queries: []\n"
    return "queries:\n" + "\n\n".join(blocks) + "\n"


def write_golden_yaml(path: Path, queries: Sequence[GoldenQuery], *, max_grade: int = 3) -> None:
    """Write canonical golden YAML atomically."""
    write_atomic(path, golden_yaml(queries, max_grade=max_grade, shown=str(path)))


# --------------------------------------------------------------------------- JSONL


def _json_line(mapping: dict[str, object], query_id: str, shown: str) -> str:
    if _json_keys_problem(mapping.get("filters", {})):
        problem = Problem(shown, 0, "'filters' keys must be text in JSONL", query_id)
        raise GoldenFileError([problem])
    try:
        text = json.dumps(mapping, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problem = Problem(shown, 0, f"cannot be written as JSON: {exc}", query_id)
        raise GoldenFileError([problem]) from None
    # JSON allows U+2028/U+2029/U+0085 raw; line-splitting readers would cut the line there
    return text.translate(_JSON_LINE_BREAKS)


def _json_keys_problem(value: Any) -> bool:
    """True when a mapping inside ``value`` has a key that is not text (JSON would stringify it)."""
    if isinstance(value, Mapping):
        return any(not isinstance(k, str) or _json_keys_problem(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_json_keys_problem(v) for v in value)
    return False


def golden_jsonl(queries: Sequence[GoldenQuery], *, max_grade: int = 3, shown: str = "") -> str:
    """Golden JSONL for ``queries``: one query object per line, the YAML's keys."""
    mappings = [query_mapping(q) for q in queries]
    shown = shown or "golden JSONL"
    _check(queries, mappings, shown, max_grade)
    return "".join(
        _json_line(m, q.id, shown) + "\n" for q, m in zip(queries, mappings, strict=True)
    )


def write_golden_jsonl(path: Path, queries: Sequence[GoldenQuery], *, max_grade: int = 3) -> None:
    """Write golden JSONL atomically."""
    write_atomic(path, golden_jsonl(queries, max_grade=max_grade, shown=str(path)))


__all__ = [
    "golden_jsonl",
    "golden_yaml",
    "query_mapping",
    "write_golden_jsonl",
    "write_golden_yaml",
    "yaml_flow",
    "yaml_string",
]
