"""The baseline read two ways: text in the writer's layout, read a chunk of query lines at
a time, against the whole text read at once. For text as written and for text edited
every way a person, a merge or another tool might, both give the same Baseline (the
same records, key order and floats) or the same error."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_retrieval.baseline import Baseline
from pytest_retrieval.bulk import paused_gc
from pytest_retrieval.io import baseline_file
from pytest_retrieval.io.baseline_file import _load_json, _parse_baseline, _read_written
from pytest_retrieval.model import OUTCOMES, QueryRecord

QUICK = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,  # the same inputs every run: the suite does not flake
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
METRICS = ["ndcg@10", "mrr", "recall@20"]
ODD = 'aq:" \\{}[],\n\u00e9\u2028\x01NaN'  # what ids and names may hold, escaped or not
odd_text = st.text(alphabet=ODD, max_size=6)
plain_text = st.text(alphabet="abc-", min_size=1, max_size=4)
keys = odd_text | st.just("queries")  # a block of queries laid out outside a configuration


def values_of(floats: st.SearchStrategy[float]) -> st.SearchStrategy[object]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), floats, odd_text)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
        max_leaves=6,
    )


json_values = values_of(st.floats())  # NaN and Infinity too, which the writer writes
finite_values = values_of(st.floats(allow_nan=False, allow_infinity=False))


def whole(text: str, shown: str = "b.json") -> Baseline:
    """The whole-text path alone (what parse_baseline does for text in any other layout)."""
    with paused_gc():
        return _parse_baseline(_load_json(text, shown), shown, text, made=False)


def outcome(read: Callable[[str, str], Baseline], text: str) -> str:
    """What a read gives, spelled out: repr shows key order, and floats to the last bit."""
    try:
        return "read " + repr(read(text, "b.json"))
    except Exception as exc:  # any exception: both paths must raise the same one
        return f"{type(exc).__name__}: {exc}"


def same_read(text: str) -> str:
    """The outcome of parse_baseline, asserted to be the whole-text path's."""
    got = outcome(baseline_file.parse_baseline, text)
    assert got == outcome(whole, text)
    return got


@contextmanager
def chunks_of(size: int) -> Iterator[None]:
    """Read with chunks of ``size`` characters (1: every query line a chunk of its own)."""
    kept = baseline_file._CHUNK
    baseline_file._CHUNK = size
    try:
        yield
    finally:
        baseline_file._CHUNK = kept


@st.composite
def records(draw: st.DrawFn, qid: str, configuration: str, skip: bool) -> QueryRecord:
    value = st.floats(0.0, 1.0) | st.none() if skip else st.floats(0.0, 1.0)
    outcome = draw(st.sampled_from(OUTCOMES))
    if outcome == "error":  # an errored query scores 0 on every metric, as the plugin writes
        value = st.just(0.0)
    return QueryRecord(
        id=qid,
        configuration=configuration,
        category=draw(st.sampled_from(["lexical", "para", 'odd \\" : cat', 'q": r'])),
        tags=draw(st.lists(odd_text, max_size=2)),
        path=draw(st.sampled_from(["golden/a.yaml", "golden/b c.yaml"])),
        outcome=outcome,
        metrics={m: draw(value) for m in draw(st.permutations(METRICS))},
        retrieved=draw(st.lists(odd_text, max_size=3)),
        grades=draw(st.dictionaries(odd_text, st.integers(0, 3), max_size=3)),
        fingerprint=draw(odd_text),
    )


@st.composite
def baselines(draw: st.DrawFn, finite: bool = False) -> Baseline:
    """Baselines with odd ids and names; ``finite``: no NaN or Infinity in the provenance
    (which sends the text to the whole-text path)."""
    skip = draw(st.booleans())
    settings_ = {
        "metrics": METRICS,
        "gain": "exponential",
        "relevance_threshold": 1,
        "max_grade": 3,
        "empty": "skip" if skip else "abstain",
    }
    configurations: dict[str, dict[str, QueryRecord]] = {}
    retrievers = {}
    for name in draw(st.lists(odd_text | plain_text, min_size=1, max_size=3, unique=True)):
        ids = draw(st.lists(odd_text | plain_text, min_size=1, max_size=6, unique=True))
        configurations[name] = {q: draw(records(q, name, skip)) for q in ids}
        if draw(st.booleans()):
            retrievers[name] = draw(
                st.dictionaries(plain_text, st.integers() | plain_text, min_size=1, max_size=2)
            )
    provenance = draw(st.dictionaries(keys, finite_values if finite else json_values, max_size=3))
    return Baseline(settings_, configurations, provenance, retrievers)  # type: ignore[arg-type]


def query_lines(text: str) -> list[int]:
    """The indices of the lines that hold one query each."""
    return [
        i for i, line in enumerate(text.split("\n")) if line.startswith('        "') and "{" in line
    ]


@st.composite
def edited_query_lines(draw: st.DrawFn, text: str) -> str:
    """The text with one query line's value changed (still one line), by JSON or by hand."""
    lines = text.split("\n")
    at = draw(st.sampled_from(query_lines(text)))
    line = lines[at]
    comma = "," if line.endswith(",") else ""
    end = json.JSONDecoder().raw_decode(line, 8)[1]  # past the id
    value = json.loads(line[end + 2 :].removesuffix(comma))
    field = draw(st.sampled_from([*value, "id", "configuration", "secret"]))
    how = draw(st.sampled_from(["set", "drop", "metric", "twice", "raw"]))
    if how == "set":
        value[field] = draw(json_values)
    elif how == "drop":
        value.pop(field, None)
    elif how == "metric":
        value.setdefault("metrics", {})[draw(st.sampled_from(METRICS))] = draw(
            st.sampled_from([0.5, 1.5, -0.0, None, True, "0.5", 10**400, 1e-320])
        )
    new = json.dumps(value, sort_keys=True, ensure_ascii=False)
    if how == "twice":  # a key of the query given twice on its line
        new = "{" + f'"{field}": {json.dumps(draw(json_values))}, ' + new[1:]
    elif how == "raw":  # a token JSON has not, or one past its limits
        token = draw(st.sampled_from(["NaN", "-Infinity", "1" + "0" * 5000, "[" * 3000]))
        new = new.replace('"outcome": ', f'"outcome": {token}, "x": ', 1)
    lines[at] = line[:end] + ": " + new + comma
    return "\n".join(lines)


LINE_EDITS = (
    "repeat",
    "repeat-last",
    "drop",
    "swap",
    "comma",
    "space",
    "comma-line",
    "no-comma",
    "cr",
    "char",
    "one-line",
)


@st.composite
def edited_lines(draw: st.DrawFn, text: str) -> str:
    """The text with lines repeated, dropped, swapped or touched by hand."""
    lines = text.split("\n")
    anywhere = draw(st.integers(0, 3)) == 0
    at = draw(st.sampled_from(range(len(lines)) if anywhere else query_lines(text)))
    how = draw(st.sampled_from(LINE_EDITS))
    if how == "repeat":  # a merge that kept both sides of a conflict
        lines.insert(draw(st.integers(0, len(lines))), lines[at])
    elif how == "repeat-last":  # a query given again further down, as the last of its block
        lines.insert(at + draw(st.integers(1, 5)), lines[at].removesuffix(","))
    elif how == "drop":
        del lines[at]
    elif how == "swap" and at + 1 < len(lines):
        lines[at], lines[at + 1] = lines[at + 1], lines[at]
    elif how == "comma":
        lines[at] = lines[at][:-1] if lines[at].endswith(",") else lines[at] + ","
    elif how == "space":
        lines[at] = lines[at] + " " if draw(st.booleans()) else " " + lines[at]
    elif how == "cr":
        lines[at] += "\r"
    elif how == "comma-line":  # a comma of its own between two queries
        lines.insert(at, draw(st.sampled_from([",", "  ,", ", "])))
    elif how == "no-comma":  # the comma after a query lost, or turned into white space
        lines[at] = lines[at].removesuffix(",") + draw(st.sampled_from(["", " ", "\t"]))
    elif how == "one-line":  # a configuration's queries written on one line
        return one_line(text, draw(st.integers(0, 5)))
    else:
        spot = draw(st.integers(0, len(lines[at])))
        lines[at] = lines[at][:spot] + draw(st.sampled_from('"{},: \\n\t')) + lines[at][spot:]
    return "\n".join(lines)


def one_line(text: str, which: int) -> str:
    """The text with the queries of one of its configurations on one line."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line == '      "queries": {']
    start = starts[which % len(starts)]
    end = lines.index("      }", start)
    lines[start : end + 1] = ['      "queries": {' + "".join(lines[start + 1 : end]) + "}"]
    return "\n".join(lines)


@st.composite
def variants(draw: st.DrawFn) -> str:
    text = baseline_file.dumps(draw(baselines()))
    how = draw(
        st.sampled_from(["written", "query", "query", "lines", "lines", "layout", "bom", "crlf"])
    )
    if how == "query":
        return draw(edited_query_lines(text))
    if how == "lines":
        return draw(edited_lines(text))
    if how == "layout":
        indent = draw(st.sampled_from([None, 2, 4, 6, 8]))
        return json.dumps(json.loads(text), indent=indent, ensure_ascii=draw(st.booleans()))
    if how == "crlf":
        return text.replace("\n", "\r\n")
    return "\ufeff" + text if how == "bom" else text


chunk_sizes = st.sampled_from([1, 200, 1 << 14])


@settings(QUICK, max_examples=150)
@given(baseline=baselines(finite=True), chunk=chunk_sizes)
def test_text_as_written_is_read_fast_and_as_the_whole_text_reads_it(
    baseline: Baseline, chunk: int
) -> None:
    text = baseline_file.dumps(baseline)
    with chunks_of(chunk):
        assert _read_written(text) is not None
        assert same_read(text).startswith("read ")


@QUICK
@given(text=variants(), chunk=chunk_sizes)
def test_text_edited_or_laid_out_otherwise_reads_as_the_whole_text_reads_it(
    text: str, chunk: int
) -> None:
    with chunks_of(chunk):
        same_read(text)


# --------------------------------------------------------------------------- cases by hand

SMALL = baseline_file.dumps(
    Baseline(
        {"metrics": METRICS, "gain": "exponential", "relevance_threshold": 1, "max_grade": 3}
        | {"empty": "abstain"},
        {
            name: {
                q: QueryRecord(q, name, "lexical", metrics=dict.fromkeys(METRICS, 0.5))
                for q in ("a", "b", "c")
            }
            for name in ("bm25", "dense")
        },
        {"created": "today"},
    )
)


def test_the_small_baseline_is_read_fast() -> None:
    assert _read_written(SMALL) is not None
    assert same_read(SMALL).startswith("read ")


@pytest.mark.parametrize("chunk", [1, 1 << 14])
def test_a_query_given_again_in_another_chunk_is_refused_as_the_whole_text_refuses_it(
    chunk: int,
) -> None:
    lines = SMALL.split("\n")
    first = lines.index('      "queries": {') + 1  # the first query line of 'bm25'
    assert lines[first].startswith('        "a": {')
    lines.insert(first + 2, lines[first])  # 'a' again, before 'c'
    with chunks_of(chunk):
        assert "query 'a' is given on lines" in same_read("\n".join(lines))


def test_a_nan_of_the_file_s_own_outside_the_queries_is_no_placeholder() -> None:
    text = SMALL.replace('{"created": "today"}', '{"created": NaN, "at": [-Infinity]}')
    assert _read_written(text) is None
    assert same_read(text).startswith("read ")


def test_a_queries_block_outside_a_configuration_is_no_configuration_s_queries() -> None:
    """Provenance laid out over lines, one of which opens a block as the writer does."""
    block = SMALL[SMALL.index('\n      "queries": {\n') : SMALL.index("\n      }\n") + 9]
    text = SMALL.replace(
        '"provenance": {"created": "today"}', '"provenance": {"x": {' + block + "    }}"
    )
    assert json.loads(text)["provenance"]["x"]["queries"]
    assert _read_written(text) is None
    assert same_read(text).startswith("read ")


def test_a_configuration_with_its_queries_on_one_line_is_read_whole() -> None:
    text = one_line(SMALL, 1)
    assert json.loads(text) == json.loads(SMALL)
    assert _read_written(text) is None
    assert same_read(text).startswith("read ")


def deepest_read(text: Callable[[int], str]) -> int:
    """The least depth ``text(depth)`` holds that the whole-text path refuses."""
    low, high = 1, 5000
    while low < high:
        middle = (low + high) // 2
        if "nested too deeply" in outcome(whole, text(middle)):
            high = middle
        else:
            low = middle + 1
    return low


@pytest.mark.parametrize("where", ["query", "provenance"])
def test_values_nested_just_too_deeply_are_refused_as_the_whole_text_refuses_them(
    where: str,
) -> None:
    """A query's own 'id' is never checked (the reader sets it), and the rest of the text is
    decoded apart from the queries: neither lets a depth through that the whole text's
    decoder refuses."""

    def text(depth: int) -> str:
        nested = "[" * depth + "]" * depth
        if where == "query":
            return SMALL.replace(
                '{"category": "lexical"', '{"id": ' + nested + ', "category": "lexical"', 1
            )
        return SMALL.replace('{"created": "today"}', nested)

    limit = deepest_read(text)
    assert limit < 5000
    for depth in (limit - 2, limit - 1, limit, limit + 1):
        same_read(text(depth))


def test_a_query_a_check_fails_on_with_another_error_leaves_the_first_error_to_say() -> None:
    """A metric past a float's range (which a record's check does not turn into a
    BaselineError) in a text that also gives a setting twice: the repeat is named first,
    as the whole-text path names it."""
    text = SMALL.replace('"metrics": {"mrr": 0.5', '"metrics": {"mrr": 1' + "0" * 400, 1)
    text = text.replace('"gain"', '"gain": "linear", "gain"', 1)
    assert "'settings.gain' is given twice" in same_read(text)


@pytest.mark.parametrize("chunk", [1, 1 << 14])
@pytest.mark.parametrize("after", ["", " ", "\t", ",\n,", ",\n  ,", ",,"])
def test_a_comma_lost_or_given_twice_between_queries_is_refused_as_the_whole_text_refuses_it(
    after: str, chunk: int
) -> None:
    """Chunks end at a line's comma: a line whose comma became white space, or a comma of
    its own, is no list of queries."""
    lines = SMALL.split("\n")
    first = lines.index('      "queries": {') + 1
    lines[first] = lines[first].removesuffix(",") + after
    with chunks_of(chunk):
        assert "is not valid JSON" in same_read("\n".join(lines))


def test_as_many_keys_given_twice_as_configurations_are_refused() -> None:
    """The key count leaves out each placeholder's key: counted, two repeats in a file of
    two configurations would balance it."""
    text = SMALL.replace('"gain"', '"gain": "linear", "gain"', 1)
    text = text.replace('"outcome": "passed"', '"outcome": "failed", "outcome": "passed"', 1)
    assert "'settings.gain' is given twice" in same_read(text)
