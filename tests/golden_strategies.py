"""Golden files for property tests and the long fuzzer: valid, mutated, hostile, random.

Shared by ``tests/test_fuzz_golden.py`` (a quick run in the suite) and
``fuzz/fuzz_golden.py`` (the long run). :func:`golden_files` draws the bytes of a
``.yaml`` or ``.jsonl`` golden file: a valid set written by the golden writers, the
same set with its mappings broken (wrong types per key, keys dropped or unknown,
deep nesting), its text broken (YAML tags, anchors, aliases and merge keys, BOMs,
control characters, bytes that are not UTF-8, huge numbers, repeated lines,
truncation), or plain random bytes. :func:`check_load` loads one and asserts that
the outcome is one the loader promises: queries that keep every invariant, or a
:class:`~pytest_retrieval.golden.GoldenFileError` whose every problem names the
file and a line.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from pytest_retrieval.golden import GoldenFileError, GoldenQuery, Problem, id_key
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.io.golden_writer import golden_jsonl, golden_yaml, query_mapping
from pytest_retrieval.model import RESERVED_CATEGORIES

SHOWN = "golden/fuzz"  # + the suffix: how the file is named in messages
PER_FILE_SECONDS = 10.0  # one load taking longer is a hang

# --------------------------------------------------------------------------- never to run

EXECUTED: list[str] = []  # set by pwned(): a !!python/object tag was constructed


def pwned(*args: object) -> None:
    """What a ``!!python/object/apply:golden_strategies.pwned`` tag would call: a bug if it does."""
    EXECUTED.append(repr(args))


# --------------------------------------------------------------------------- valid golden sets


def no_control(text: str) -> bool:
    """No C0 or C1 control character, nor DEL: what ids may not hold."""
    return not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text)


INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f"
    "\U000e0100-\U000e01ef]"
)


def golden_id(text: str) -> bool:
    """What a query id may be: no control or invisible character, white space, [ ] or ::."""
    return (
        no_control(text)
        and not any(c.isspace() for c in text)
        and not any(c in text for c in ("[", "]", "::"))
        and INVISIBLE.search(text) is None
    )


# Drawn from alphabets that leave out what they may not hold, rather than filtered
# after the draw: filtering arbitrary text threw away most draws, and hypothesis's
# health check then failed the round trips at random (a flaky suite). The filters stay,
# for what an alphabet cannot say ("::"), and rarely discard anything.
_ID_CHARS = st.characters(
    blacklist_categories=("Cc", "Cf", "Cs", "Zs", "Zl", "Zp"), blacklist_characters="[]"
)
ids = st.text(_ID_CHARS, min_size=1, max_size=12).filter(golden_id)
texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).filter(
    str.strip
)
_TAG_CHARS = st.characters(blacklist_categories=("Cc", "Cs"))
tag_texts = st.text(_TAG_CHARS, min_size=1, max_size=30).filter(str.strip)  # no control chars
# ids in relevant and forbid: no control or invisible (format) character, and no white
# space at either end (inside, any)
_DOC_EDGE = st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zs", "Zl", "Zp"))
_DOC_INNER = st.characters(blacklist_categories=("Cc", "Cf", "Cs"))
doc_ids = (
    st.text(_DOC_EDGE, min_size=1, max_size=1)
    | st.tuples(_DOC_EDGE, st.text(_DOC_INNER, max_size=28), _DOC_EDGE).map("".join)
).filter(lambda d: INVISIBLE.search(d) is None)  # variation selectors and fillers are no Cf
# categories: as judged ids (no control or invisible character, no white space at either
# end), and no row name
categories = doc_ids.filter(lambda c: c.strip().lower() not in RESERVED_CATEGORIES)


def one_form(grades: dict[str, int]) -> dict[str, int]:
    """Judgments with each document once: the first of ids alike in Unicode's composed form."""
    kept: dict[str, str] = {}
    for doc in grades:
        kept.setdefault(id_key(doc), doc)
    return {doc: grades[doc] for doc in kept.values()}


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
METRICS = ["ndcg@10", "mrr", "recall@20", "map", "precision@5", "bpref", "judged@10"]
queries = st.builds(
    GoldenQuery,
    id=ids,
    text=texts,
    category=categories,
    tags=st.lists(tag_texts, max_size=3, unique=True).map(tuple),  # a tag twice is refused
    filters=st.dictionaries(st.text(max_size=8), json_values, max_size=3),
    relevant=st.dictionaries(doc_ids, st.integers(0, 3), max_size=5).map(one_form),
    expect=st.dictionaries(st.sampled_from(METRICS), st.floats(0, 1), max_size=3),
    forbid=st.lists(doc_ids, max_size=3).map(tuple),
    skip=st.none() | texts,
    xfail=st.none() | texts,
).map(
    # an xfail needs an expect or a forbid to fail (a golden-file error otherwise)
    lambda q: q if q.xfail is None or q.expect or q.forbid else dataclasses.replace(q, xfail=None)
)
golden_sets = st.lists(queries, min_size=1, max_size=4, unique_by=lambda q: q.id)


def render(written: list[GoldenQuery], suffix: str) -> str:
    """A valid set as the golden writers write it."""
    return golden_jsonl(written) if suffix == ".jsonl" else golden_yaml(written)


# --------------------------------------------------------------------------- broken mappings

HUGE = (10**4000, -(10**400), 2**64, 1e308, -1e-320)  # the texts hold longer ones
wrong_values = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(HUGE),
    st.integers(),
    st.floats(),  # nan and inf included
    st.text(max_size=12),
    st.text(st.characters(max_codepoint=0x1F) | st.sampled_from("\x7f\x85\u2028\ufeff")),
    st.lists(st.integers() | st.text(max_size=4), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers() | st.none(), max_size=3),
    st.integers(1, 600).map(lambda n: nested(n)),
)


def nested(depth: int) -> object:
    value: object = "leaf"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


KEYS = ["id", "query", "category", "tags", "filters", "relevant", "expect", "forbid", "skip"]
KEYS += ["xfail", "defaults", "queries", "relevent", "", "x-anchor", "<<"]


@st.composite
def broken_mappings(draw: st.DrawFn) -> tuple[str, str]:
    """A valid set's mappings with keys given wrong values, dropped or added; then dumped."""
    written = draw(golden_sets)
    mappings: list[dict[Any, Any]] = [query_mapping(q) for q in written]
    for _ in range(draw(st.integers(1, 4))):
        target = draw(st.sampled_from(mappings))
        key = draw(st.sampled_from(KEYS) | st.sampled_from(sorted(target, key=str)))
        action = draw(st.sampled_from(["set", "set", "drop", "relevant-grade", "key-type"]))
        if action == "set":
            target[key] = draw(wrong_values)
        elif action == "drop":
            target.pop(key, None)
        elif action == "relevant-grade" and isinstance(target.get("relevant"), dict):
            target["relevant"][draw(doc_ids)] = draw(wrong_values)
        else:
            target[draw(st.integers() | st.booleans() | st.none() | st.floats())] = 1
    data: object = mappings
    if draw(st.booleans()):
        data = {"queries": mappings}
        if draw(st.booleans()):
            data["defaults"] = draw(wrong_values | st.just({"category": "c", "tags": ["t"]}))
    suffix = draw(st.sampled_from([".yaml", ".jsonl"]))
    return suffix, dump(data, suffix, draw(st.booleans()))


def dump(data: Any, suffix: str, flow: bool) -> str:
    if suffix == ".yaml":
        try:
            return yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
        except (yaml.YAMLError, RecursionError, ValueError):
            return repr(data)  # what safe_dump refuses: still a file to load
    rows = data["queries"] if isinstance(data, dict) else data
    lines = (
        [{"defaults": data["defaults"]}] if isinstance(data, dict) and "defaults" in data else []
    )
    out = []
    for row in [*lines, *rows]:
        try:
            out.append(json.dumps(row, ensure_ascii=flow))  # NaN, Infinity as JSON would not
        except (TypeError, ValueError, RecursionError):
            out.append(repr(row))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- broken text

SNIPPETS = [
    "!!int q1",
    "!!int 0x",
    "!!float high",
    "!!float .nan",
    "!!timestamp someday",
    "!!timestamp 2024-13-45",
    "!!binary not*base64",
    "!!binary aGVsbG8=",
    "!!bool maybe",
    "!!null x",
    "!!str",
    "!!set {a, b}",
    "!!omap [a: 1, b: 2]",
    "!!pairs [a: 1]",
    "!!python/object/apply:golden_strategies.pwned [1]",
    "!!python/object/new:golden_strategies.pwned [2]",
    "!!python/name:golden_strategies.pwned",
    "!!python/tuple [1, 2]",
    "!custom value",
    "!<tag:example.com,2024:x> 1",
    "&a [1, 2]",
    "*a",
    "*undefined",
    "<<: *a",
    "<<: [*a, *a]",
    "<<: 1",
    "? [a, b]\n: c",
    "? {a: 1}\n: c",
    "{a: 1, a: 2}",
    "[[[[[[[[",
    "{{{{",
    "'unclosed",
    '"unclosed',
    '"\\ud800"',
    '"\\x00"',
    '"\\uDFFF\\uD800"',
    "|\n  block\n  text",
    ">-\n  folded",
    "%YAML 1.1\n---",
    "---\n",
    "...\n",
    "--- !!map\n",
    "\t",
    "\x00",
    "\ufeff",
    "\u2028",
    "\x85",
    "\x1b[31m",
    "1e999",
    "-.inf",
    ".NaN",
    "0b1010",
    "0o777",
    "00123",
    "0x1F",
    "1_000",
    "190:20:30",
    "2024-01-01",
    "2024-01-01T10:00:00Z",
    "yes",
    "~",
    "9" * 5000,
    "-" + "9" * 4400,
    "1." + "5" * 5000,
    "x" * 70_000,
    '{"id": "\\ud800", "query": "q", "relevant": {}}',
    '{"id": 1' + "0" * 4400 + ', "query": "q", "relevant": {}}',
    '{"defaults": {"category": "c"}}',
    '{"defaults": 3}',
    "NaN",
    '"\\ud83d\\ude00"',
    '"\\u0000"',
    "-0",
    "[]",
    "{}",
    "null",
]


def alias_bomb(levels: int, width: int) -> str:
    """Billion laughs: each anchor a list of ``width`` aliases to the one before it."""
    lines = ["x-a0: &a0 [lol]"]
    for level in range(1, levels + 1):
        aliases = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"x-a{level}: &a{level} [{aliases}]")
    lines.append(f"queries:\n  - {{id: a, query: q, relevant: {{}}, filters: {{f: *a{levels}}}}}")
    return "\n".join(lines) + "\n"


def merge_chain(levels: int, merges: int) -> str:
    """Merge keys merging the mapping before, ``merges`` times each (``<<: [*a, *a]``)."""
    lines = ["x-a0: &a0 {category: c, tags: [t]}"]
    for level in range(1, levels + 1):
        aliases = ", ".join([f"*a{level - 1}"] * merges)
        lines.append(f"x-a{level}: &a{level} {{<<: [{aliases}], k{level}: {level}}}")
    lines.append(f"queries:\n  - {{<<: *a{levels}, id: a, query: q, relevant: {{x: 1}}}}")
    return "\n".join(lines) + "\n"


def deep_text(depth: int, style: str) -> str:
    if style == "flow-list":
        inner = "[" * depth + "]" * depth
    elif style == "flow-map":
        inner = "{a: " * depth + "1" + "}" * depth
    else:
        inner = "".join(f"\n{'  ' * (i + 3)}k{i}:" for i in range(depth)) + " 1"
    return f"queries:\n  - id: a\n    query: q\n    relevant: {{}}\n    filters: {inner}\n"


hostile_yaml = st.one_of(
    st.builds(alias_bomb, st.integers(1, 12), st.integers(1, 12)),
    st.builds(merge_chain, st.integers(1, 30), st.integers(1, 4)),
    st.builds(deep_text, st.integers(1, 2000), st.sampled_from(["flow-list", "flow-map", "block"])),
)


@st.composite
def broken_text(draw: st.DrawFn) -> tuple[str, bytes]:
    """A valid (or broken-mapping) file whose text is then broken, line by line and byte by byte."""
    suffix, text = draw(
        st.tuples(st.sampled_from([".yaml", ".jsonl"]), golden_sets).map(
            lambda pair: (pair[0], render(pair[1], pair[0]))
        )
        | broken_mappings()
        | st.tuples(st.just(".yaml"), hostile_yaml)
    )
    for _ in range(draw(st.integers(1, 5))):
        text = draw(text_mutations(text))
    data = text.encode("utf-8", "surrogatepass")
    for _ in range(draw(st.integers(0, 2))):
        data = draw(byte_mutations(data))
    return suffix, data


@st.composite
def text_mutations(draw: st.DrawFn, text: str) -> str:
    lines = text.split("\n")
    at = draw(st.integers(0, max(len(lines) - 1, 0)))
    snippet = draw(st.sampled_from(SNIPPETS) | st.text(max_size=8))
    action = draw(
        st.sampled_from(["value", "value", "insert", "line", "dup", "drop", "cut", "indent"])
    )
    line = lines[at]
    if action == "value" and ":" in line:  # a key's value replaced: `key: <snippet>`
        lines[at] = line[: line.index(":") + 1] + " " + snippet
    elif action == "insert":
        column = draw(st.integers(0, len(line)))
        lines[at] = line[:column] + snippet + line[column:]
    elif action == "line":
        lines.insert(at, snippet)
    elif action == "dup":
        lines.insert(at, line)  # a repeated key, or a repeated query
    elif action == "drop":
        del lines[at]
    elif action == "indent":
        lines[at] = draw(st.sampled_from(["", " ", "\t", "      "])) + line.lstrip()
    else:
        return text[: draw(st.integers(0, len(text)))]  # a truncated file
    return "\n".join(lines)


@st.composite
def byte_mutations(draw: st.DrawFn, data: bytes) -> bytes:
    at = draw(st.integers(0, len(data)))
    action = draw(st.sampled_from(["bom", "bytes", "flip", "latin1", "crlf"]))
    if action == "bom":
        bom = draw(
            st.sampled_from(
                [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\xef\xbb"]
            )
        )
        return bom + data
    if action == "bytes":
        return data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    if action == "flip" and data:
        at = min(at, len(data) - 1)
        return data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
    if action == "latin1":
        return data.decode("utf-8", "replace").encode("latin-1", "replace")
    return data.replace(b"\n", b"\r\n")


raw_files = st.tuples(
    st.sampled_from([".yaml", ".jsonl", ".YML"]),
    st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "replace")),
)


@st.composite
def golden_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """The bytes of a golden file and its suffix: valid, broken or random."""
    kind = draw(st.sampled_from(["valid", "mapping", "text", "text", "text", "hostile", "raw"]))
    if kind == "valid":
        suffix = draw(st.sampled_from([".yaml", ".jsonl"]))
        return suffix, render(draw(golden_sets), suffix).encode("utf-8")
    if kind == "mapping":
        suffix, text = draw(broken_mappings())
        return suffix, text.encode("utf-8", "surrogatepass")
    if kind == "hostile":
        return ".yaml", draw(hostile_yaml).encode("utf-8")
    if kind == "raw":
        return draw(raw_files)
    return draw(broken_text())


max_grades = st.sampled_from([3, 3, 1, 10, 100])  # retrieval_max_grade is 1..100

# --------------------------------------------------------------------------- the outcome


class Hang(Exception):
    """One load ran past PER_FILE_SECONDS."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the main thread after ``seconds`` (no limit in other threads)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise Hang(f"loading took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def strings_in(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


def check_problem(problem: Problem, shown: str, lines: int) -> None:
    assert isinstance(problem, Problem), problem
    said = str(problem)
    assert problem.path == shown and said.startswith(shown), said
    assert isinstance(problem.line, int) and 0 <= problem.line <= lines + 1, said
    assert problem.message.strip(), said
    assert encodable(said), f"a message that cannot be printed as UTF-8: {said!r}"
    assert "\n" not in said and "\r" not in said, f"a message over several lines: {said!r}"


def check_query(query: GoldenQuery, shown: str, max_grade: int, lines: int) -> None:
    assert isinstance(query, GoldenQuery)
    assert query.path == shown
    assert 1 <= query.line <= lines, (query.id, query.line)
    assert golden_id(query.id), query.id
    assert query.text.strip() and query.category.strip()
    assert all(
        isinstance(grade, int) and not isinstance(grade, bool) and 0 <= grade <= max_grade
        for grade in query.relevant.values()
    ), query.relevant
    assert all(0.0 <= value <= 1.0 for value in query.expect.values()), query.expect
    if query.xfail is not None:
        assert query.expect or query.forbid
    fields = [query.id, query.text, query.category, *query.tags, *query.forbid]
    fields += [*query.relevant, *query.expect, query.skip or "", query.xfail or ""]
    assert all(isinstance(f, str) and encodable(f) for f in fields), query
    assert all(encodable(s) for s in strings_in(dict(query.filters))), query.filters
    assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in query.expect.values())


def line_count(data: bytes) -> int:
    """The file's lines, as many as the most a reader could count (YAML breaks lines at CR,
    NEL, U+2028 and U+2029 too)."""
    text = data.decode("utf-8", "replace")
    return max(data.count(b"\n"), len(re.findall("\r\n|[\r\n\x85\u2028\u2029]", text))) + 1


def check_load(path: Path, max_grade: int, shown: str) -> list[GoldenQuery] | None:
    """Load one file; assert the outcome keeps the loader's promises. The queries, or None."""
    lines = line_count(path.read_bytes())
    del EXECUTED[:]
    try:
        with time_limit(PER_FILE_SECONDS):
            loaded = load_golden_file(path, max_grade=max_grade, shown=shown)
    except GoldenFileError as exc:
        assert exc.problems, "a GoldenFileError with no problem in it"
        for problem in exc.problems:
            check_problem(problem, shown, lines)
        loaded = None
    finally:
        assert not EXECUTED, f"a !!python tag was executed: {EXECUTED}"
    if loaded is None:
        return None
    assert isinstance(loaded, list) and loaded, "loaded, but no queries"
    for query in loaded:
        check_query(query, shown, max_grade, lines)
    assert len({q.id for q in loaded}) == len(loaded), "duplicate ids loaded"
    if path.suffix.lower() != ".jsonl":
        check_as_plain_yaml_reads(loaded, path.read_bytes())
    return loaded


def check_as_plain_yaml_reads(loaded: list[GoldenQuery], data: bytes) -> None:
    """What loaded is what libyaml's plain safe loader reads: ids, texts, judgments."""
    plain = yaml.load(data.decode("utf-8-sig"), Loader=yaml.CSafeLoader)
    raw = plain["queries"] if isinstance(plain, dict) else plain
    assert len(raw) == len(loaded)
    for query, row in zip(loaded, raw, strict=True):
        relevant = row["relevant"]
        if isinstance(relevant, list):
            relevant = dict.fromkeys(relevant, 1)
        assert (query.id, query.text) == (str(row["id"]), row["query"])
        assert dict(query.relevant) == {str(k): v for k, v in relevant.items()}


def comparable(query: GoldenQuery) -> GoldenQuery:
    """The query without where it was read (YAML and JSONL put it on other lines)."""
    return dataclasses.replace(query, path="", line=0)
