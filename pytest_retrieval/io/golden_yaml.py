"""Golden YAML files: a safe loader that keeps line numbers, bounded in size and depth.

Pure. :func:`parse_yaml` reads a golden file's text with PyYAML's safe loader
(libyaml's when present), every mapping and list carrying its line
(:class:`~.golden_check.Lines`), integers how they were written, repeated keys
recorded rather than dropped (merge keys work as YAML says); characters YAML does not
allow, explicit tags that do not fit their value or their node, ``!!python/*`` and
unknown tags (never run), integers past Python's digit limit, alias bombs and deep
nesting are refused as :class:`~pytest_retrieval.golden.GoldenFileError` naming the line.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from bisect import bisect_left
from typing import Any

import yaml

from ..golden import GoldenFileError, Problem
from .golden_check import MAX_DEPTH, TOO_DEEP, Int, Lines, Seq

try:  # libyaml when present: ~10x faster
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

EXPANSION = 8  # values after alias expansion, per character of the file (then refused)
MIN_BUDGET = 100_000
_MERGE = "tag:yaml.org,2002:merge"
# what YAML reads a plain word as, other than text or an integer: kept as written
# (Lines.written...), so a value meant as text is named as written (no, 1.10, 2024-01-01)
_NOT_TEXT = frozenset(f"tag:yaml.org,2002:{t}" for t in ("bool", "null", "float", "timestamp"))
# Python refuses to read (or print) integers past this many decimal digits (0: no limit)
_DIGIT_LIMIT: int = getattr(sys, "get_int_max_str_digits", lambda: 0)()
_TOO_LARGE = 10**_DIGIT_LIMIT
# what a YAML stream may not hold (PyYAML's reader's list)
_NOT_YAML = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# YAML's line breaks (PyYAML's and libyaml's); an editor breaks lines at the first three
_YAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_ODD_BREAK = re.compile("[\x85\u2028\u2029]")
_BREAK_NAMES = {"\x85": "NEXT LINE", "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}


class EditorLines:
    """A YAML mark's line as a text editor numbers it: YAML also breaks lines at U+0085,
    U+2028 and U+2029 (a comment or a string pasted from a web page), which an editor
    shows within a line, so every line after one would be off."""

    def __init__(self, text: str):
        self.odd: list[int] = []  # the index of each break YAML counts and an editor does not
        if _ODD_BREAK.search(text) is not None:
            breaks = _YAML_BREAK.finditer(text)
            self.odd = [i for i, found in enumerate(breaks) if found.group() in _BREAK_NAMES]

    def __call__(self, mark: yaml.Mark | None) -> int:
        """The line (from 1; 0 without a mark)."""
        if mark is None:
            return 0
        return mark.line + 1 - bisect_left(self.odd, mark.line)


class _Refused(yaml.YAMLError):
    """A value refused while loading, with its line and the whole message a user sees."""

    def __init__(self, message: str, line: int):
        self.line = line
        super().__init__(message)


class _Bomb(_Refused):
    """Aliases that expand past the budget, or nesting past MAX_DEPTH."""


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

    lines: EditorLines


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> Lines:
    """A mapping with its lines. Merged keys (``<<: *base``) come first and the last one
    of a key wins, as YAML says: a key of its own overrides a merged one; a key written
    twice in the mapping itself is recorded as a duplicate."""
    own = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE)
    loader.flatten_mapping(node)  # node.value: the merged pairs, then its own
    merged = len(node.value) - own
    result = Lines()
    result.line = loader.lines(node.start_mark)
    result.key_lines = {}
    result.duplicates = []
    result.key_written = key_written = {}
    result.written = written = {}
    mine: set[Any] = set()
    for index, (key_node, value_node) in enumerate(node.value):
        key = loader.construct_object(key_node, deep=True)
        line = loader.lines(key_node.start_mark)
        if key_node.tag in _NOT_TEXT:
            key_written[key] = key_node.value
        try:
            hash(key)
        except TypeError:
            raise _UnhashableKey(line) from None
        if key in mine:
            result.duplicates.append((key, result.key_lines[key], line))
            continue
        if index >= merged:
            mine.add(key)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = line
        if value_node.tag in _NOT_TEXT:
            written[key] = value_node.value
    return result


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> Seq:
    result = Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line = loader.lines(node.start_mark)
    result.item_lines = [loader.lines(child.start_mark) for child in node.value]
    result.item_written = {i: n.value for i, n in enumerate(node.value) if n.tag in _NOT_TEXT}
    return result


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> Int:
    written = str(node.value)
    decimal = written.replace("_", "").lstrip("+-")
    if _DIGIT_LIMIT and decimal.isdigit() and len(decimal) > _DIGIT_LIMIT:
        raise _Refused(_too_long(written, len(decimal)), loader.lines(node.start_mark))
    value = Int(yaml.SafeLoader.construct_yaml_int(loader, node))
    if _DIGIT_LIMIT and abs(value) >= _TOO_LARGE:  # 0x..., 0o...: no digit limit to read them
        digits = int(value.bit_length() * 0.30103) + 1
        raise _Refused(_too_long(written, digits), loader.lines(node.start_mark))
    value.source = written
    return value


def _too_long(written: str, digits: int) -> str:
    shown = written if len(written) <= 20 else written[:20] + "..."
    return (
        f"the number {shown} has {digits} digits, more than Python reads ({_DIGIT_LIMIT}); "
        "write a shorter number, or quote it to keep it as text"
    )


def _construct_undefined(loader: _LineLoader, node: yaml.Node) -> Any:
    """A tag the safe loader has no constructor for: ``!!python/...`` (never run) or unknown."""
    tag = _short_tag(str(node.tag))
    if tag.startswith("!!python/"):
        message = (
            f"the tag {tag} is refused: a golden file holds data, and tags that build "
            "Python objects are never run; remove the tag"
        )
    else:
        message = (
            f"the tag {tag} is not one this loader knows (plain YAML types only: !!str, "
            "!!int, !!float, !!bool, !!null, !!timestamp, !!binary, !!map, !!seq...); "
            "remove the tag"
        )
    raise _Refused(message, loader.lines(node.start_mark))


def _short_tag(tag: str) -> str:
    short = tag.replace("tag:yaml.org,2002:", "!!")
    return short if len(short) <= 60 else short[:60] + "..."


def _checked(construct: Any, what: str, kind: type[yaml.Node]) -> Any:
    """A constructor on the node it belongs on, whose failures (``!!int q1``, ``!!map x``)
    become errors at the value's line."""

    def build(loader: _LineLoader, node: yaml.Node) -> Any:
        tag = _short_tag(str(node.tag))
        if not isinstance(node, kind):
            message = f"the tag {tag} is for {what}, not for {_NODE_KINDS[type(node)]}; remove it"
            raise _Refused(message, loader.lines(node.start_mark))
        try:
            return construct(loader, node)
        except (ValueError, TypeError, ArithmeticError, AttributeError, LookupError):
            value = str(node.value) if isinstance(node, yaml.ScalarNode) else "this value"
            value = value if len(value) <= 40 else value[:40] + "..."
            raise yaml.constructor.ConstructorError(
                None, None, f"{value!r} is not {what} (tagged {tag})", node.start_mark
            ) from None

    return build


_NODE_KINDS = {
    yaml.ScalarNode: "a single value",
    yaml.SequenceNode: "a list",
    yaml.MappingNode: "a mapping",
}
# each standard tag: what it makes, and the kind of node it belongs on
_TAGS: dict[str, tuple[str, type[yaml.Node]]] = {
    "null": ("null", yaml.ScalarNode),
    "bool": ("true or false", yaml.ScalarNode),
    "int": ("an integer", yaml.ScalarNode),
    "float": ("a number", yaml.ScalarNode),
    "binary": ("base64", yaml.ScalarNode),
    "timestamp": ("a date", yaml.ScalarNode),
    "str": ("text", yaml.ScalarNode),
    "omap": ("an ordered mapping (a list of one-key mappings)", yaml.SequenceNode),
    "pairs": ("pairs (a list of one-key mappings)", yaml.SequenceNode),
    "seq": ("a list", yaml.SequenceNode),
    "set": ("a set (a mapping with null values)", yaml.MappingNode),
    "map": ("a mapping", yaml.MappingNode),
}
_OURS = {"map": _construct_mapping, "seq": _construct_sequence, "int": _construct_int}
for _name, (_what, _kind) in _TAGS.items():
    _construct = _OURS.get(_name) or getattr(yaml.SafeLoader, f"construct_yaml_{_name}")
    _LineLoader.add_constructor(f"tag:yaml.org,2002:{_name}", _checked(_construct, _what, _kind))
_LineLoader.add_constructor(None, _construct_undefined)


def check_size(data: Any, text: str) -> None:
    """Refuse alias bombs and deep nesting before anything walks the loaded value.

    YAML aliases share one object, so a 2 KB file can stand for billions of values;
    every later walk (validation, copies) would expand them. The walk here stops at
    a budget proportional to the file's size, and at MAX_DEPTH levels.
    """
    budget = max(MIN_BUDGET, EXPANSION * len(text))
    stack: list[tuple[Any, int, int]] = [(data, 1, getattr(data, "line", 1))]
    while stack:
        value, depth, line = stack.pop()
        budget -= 1
        if budget < 0:
            raise _Bomb(
                "the file expands to far more values than it holds, through YAML aliases "
                "(&anchor ... *anchor): write the values out, or use fewer aliases",
                line,
            )
        if depth > MAX_DEPTH:
            raise _Bomb(TOO_DEEP, line)
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        here = getattr(value, "line", line)
        stack.extend((child, depth + 1, getattr(child, "line", here)) for child in children)


def _syntax_problem(exc: yaml.MarkedYAMLError, text: str, shown: str) -> Problem:
    # problem_mark is where the parser gave up: right for a bad indentation, but
    # for an unclosed bracket or quote (and at the end of the file) the line
    # where the construct began, context_mark, is the one to fix.
    lines = EditorLines(text)
    last_line = text.rstrip().count("\n") + 1
    mark = exc.problem_mark
    opened = any(w in (exc.context or "") for w in ("flow", "quoted"))
    if mark is None or lines(mark) > last_line or opened:
        mark = exc.context_mark or mark
    line = lines(mark)
    what = " ".join(x for x in (exc.context, exc.problem) if x)
    began = ""
    if exc.context_mark is not None and lines(exc.context_mark) != line:
        began = f" (the construct began on line {lines(exc.context_mark)})"
    fix = _layout_fix(what, text, line) or "fix the YAML at this line"
    if _tab_indented(text, line):
        fix = "the line is indented with a tab: YAML indents with spaces only"
    odd = _odd_break_before(text, line)
    if odd is not None:
        fix = (
            f"line {odd[0]} holds U+{ord(odd[1]):04X} ({_BREAK_NAMES[odd[1]]}), which YAML "
            "reads as a line break (a comment ends there, the rest is read as YAML); remove it"
        )
    return Problem(shown, line, f"YAML syntax error: {what}{began}; {fix}")


_INDENTATION_SIGNS = (
    "mapping values are not allowed",
    "expected <block end>",
    "expected '-'",
    "block mapping did not find expected key",
)


def _layout_fix(what: str, text: str, line: int) -> str | None:
    """The likely fix of the errors a misplaced key or an unquoted ``: `` gives, which
    YAML words in its own terms (block ends, mapping values, indicators)."""
    if not any(sign in what for sign in _INDENTATION_SIGNS):
        return None
    lines = text.splitlines()
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    _key, colon, value = here.partition(": ")
    if colon and ": " in value and not value.lstrip().startswith(("'", '"', "{", "[")):
        return "the value holds ': ', which YAML reads as another key: put it in quotes"
    return (
        "check this line's indentation against the lines above: the keys of one query "
        "line up under its 'id:', and each query's '- ' lines up with the others'"
    )


def _odd_break_before(text: str, line: int) -> tuple[int, str] | None:
    """The last U+0085, U+2028 or U+2029 on an editor's line up to ``line``, and that line."""
    if line <= 0 or _ODD_BREAK.search(text) is None:
        return None
    rows = text.split("\n", line)[:line]
    for number in range(len(rows), 0, -1):
        found = _ODD_BREAK.search(rows[number - 1])
        if found is not None:
            return number, found.group()
    return None


def _tab_indented(text: str, line: int) -> bool:
    rows = text.split("\n")
    if not 0 < line <= len(rows):
        return False
    row = rows[line - 1]
    return "\t" in row[: len(row) - len(row.lstrip())]


def _character_problem(text: str, shown: str) -> Problem:
    """The first character a YAML stream may not hold, at its line."""
    found = _NOT_YAML.search(text)
    if found is None:  # pragma: no cover - the reader refused something the pattern allows
        return Problem(shown, 0, "a character YAML does not allow; save the file as UTF-8 text")
    char = found.group()
    line = text.count("\n", 0, found.start()) + 1
    kind = "a control character" if unicodedata.category(char) == "Cc" else "not a character"
    escape = repr(char)[1:-1]  # \x01, \x94, \ufffe
    return Problem(
        shown,
        line,
        f"character U+{ord(char):04X} ({kind}) cannot be in a YAML file; remove it "
        f"(inside double quotes, write it as {escape})",
    )


_NULL = "tag:yaml.org,2002:null"


def _null_document(written: str) -> str:
    return (
        f"the file holds only {written!r}, which YAML reads as null (no value), not a mapping "
        "with a 'queries:' list; a golden file holds 'queries:' with a list of queries "
        "(- id: ..., query: ..., relevant: ...): write them"
    )


def _load(text: str, lines: EditorLines) -> Any:
    """``yaml.load``, with the nesting of the nodes checked before anything is built (the
    builders recurse: a few hundred levels would end in a RecursionError, lineless)."""
    loader = _LineLoader(text)
    loader.lines = lines
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if node.tag == _NULL and node.value:  # "~" or "null" alone ("---" alone: empty)
            raise _Refused(_null_document(node.value), lines(node.start_mark))
        _check_depth(node, lines)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_depth(root: yaml.Node, lines: EditorLines) -> None:
    """Refuse nodes nested past MAX_DEPTH, at the line of the first one too deep; each node
    is looked at once (aliases share nodes: their expansion is check_size's)."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise _Bomb(TOO_DEEP, lines(node.start_mark))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.tag == _MERGE:  # what a merge key merges is this mapping, one level
                    merged = value.value if isinstance(value, yaml.SequenceNode) else [value]
                    stack.extend((item, depth) for item in merged)
                else:
                    stack.extend(((key, depth + 1), (value, depth + 1)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)


def parse_yaml(text: str, shown: str) -> Any:
    """The file's data with lines attached; GoldenFileError for what cannot be read."""
    lines = EditorLines(text)
    try:
        data = _load(text, lines)
        check_size(data, text)
        return data
    except _Refused as exc:
        raise GoldenFileError([Problem(shown, exc.line, str(exc))]) from None
    except _UnhashableKey as exc:
        message = "a key is a list or a mapping; keys must be text"
        raise GoldenFileError([Problem(shown, exc.line, message)]) from None
    except yaml.reader.ReaderError:
        raise GoldenFileError([_character_problem(text, shown)]) from None
    except RecursionError:
        raise GoldenFileError([Problem(shown, 0, TOO_DEEP)]) from None
    except yaml.constructor.ConstructorError as exc:
        line = lines(exc.problem_mark)
        message = f"YAML value error: {exc.problem}; write a value that fits, or drop the tag"
        if "recursive" in str(exc.problem):
            message = (
                "an alias (*name) stands for the mapping or list it is in, a value that would "
                "hold itself; write the values out"
            )
        raise GoldenFileError([Problem(shown, line, message)]) from None
    except yaml.MarkedYAMLError as exc:
        raise GoldenFileError([_syntax_problem(exc, text, shown)]) from None
    except yaml.YAMLError as exc:
        raise GoldenFileError([Problem(shown, 0, f"YAML error: {exc}")]) from None


# --------------------------------------------------------------------------- small helpers
