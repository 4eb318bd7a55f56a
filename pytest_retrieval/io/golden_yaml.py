"""Golden YAML files: a safe loader that keeps line numbers, bounded in size and depth.

Pure. :func:`parse_yaml` reads a golden file's text with PyYAML's safe loader
(libyaml's when present), every mapping and list carrying its line
(:class:`~.golden_check.Lines`), integers how they were written, repeated keys
recorded rather than dropped; explicit tags that do not fit, alias bombs and deep
nesting are refused as :class:`~pytest_retrieval.golden.GoldenFileError`.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..golden import GoldenFileError, Problem
from .golden_check import Int, Lines, Seq

try:  # libyaml when present: ~10x faster
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

MAX_DEPTH = 64  # mappings and lists nested deeper are refused (a golden file needs ~6)
EXPANSION = 8  # values after alias expansion, per character of the file (then refused)
MIN_BUDGET = 100_000


class _Bomb(yaml.YAMLError):
    """Aliases that expand past the budget, or nesting past MAX_DEPTH."""

    def __init__(self, message: str, line: int):
        self.line = line
        super().__init__(message)


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


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> Lines:
    loader.flatten_mapping(node)
    result = Lines()
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


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> Seq:
    result = Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> Int:
    value = Int(_checked(yaml.SafeLoader.construct_yaml_int, "an integer")(loader, node))
    value.source = str(node.value)
    return value


def _checked(construct: Any, what: str) -> Any:
    """A constructor whose failures (``!!int q1``) become errors at the value's line."""

    def build(loader: _LineLoader, node: yaml.Node) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, TypeError, OverflowError, ArithmeticError, AttributeError):
            tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not {what} (tagged {tag})", node.start_mark
            ) from None

    return build


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)
_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
for _tag, _what in (("float", "a number"), ("timestamp", "a date"), ("binary", "base64")):
    _LineLoader.add_constructor(
        f"tag:yaml.org,2002:{_tag}",
        _checked(getattr(yaml.SafeLoader, f"construct_yaml_{_tag}"), _what),
    )


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
            raise _Bomb(f"values are nested more than {MAX_DEPTH} levels deep", line)
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


def parse_yaml(text: str, shown: str) -> Any:
    """The file's data with lines attached; GoldenFileError for what cannot be read."""
    try:
        data = yaml.load(text, Loader=_LineLoader)
        check_size(data, text)
        return data
    except (_UnhashableKey, _Bomb) as exc:
        message = str(exc) if isinstance(exc, _Bomb) else "a key is a list or a mapping"
        if isinstance(exc, _UnhashableKey):
            message += "; keys must be text"
        raise GoldenFileError([Problem(shown, exc.line, message)]) from None
    except RecursionError:
        message = f"values are nested too deeply (more than {MAX_DEPTH} levels)"
        raise GoldenFileError([Problem(shown, 0, message)]) from None
    except yaml.constructor.ConstructorError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else 0
        message = f"YAML value error: {exc.problem}; write a value that fits, or drop the tag"
        raise GoldenFileError([Problem(shown, line, message)]) from None
    except yaml.MarkedYAMLError as exc:
        raise GoldenFileError([_syntax_problem(exc, text, shown)]) from None
    except yaml.YAMLError as exc:
        raise GoldenFileError([Problem(shown, 0, f"YAML error: {exc}")]) from None


# --------------------------------------------------------------------------- small helpers
