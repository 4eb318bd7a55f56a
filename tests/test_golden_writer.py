"""Golden YAML and JSONL writers, and the JSONL reader: known answers, quoting, round trips."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml
from golden_strategies import golden_sets  # valid sets, shared with the fuzz tests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_retrieval.golden import GoldenFileError, GoldenQuery, fingerprint_text
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.io.golden_writer import (
    golden_jsonl,
    golden_yaml,
    write_golden_jsonl,
    write_golden_yaml,
    yaml_flow,
    yaml_string,
)

SETTINGS = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

RAIN = GoldenQuery(
    id="rain-tomorrow",
    text="is it going to rain tomorrow?",
    category="paraphrase",
    tags=("core", "dev/holdout"),
    filters={"network": "base", "max_price": 0.5, "assets": ["USDC", "no"]},
    relevant={"weather-forecast-stuffed": 1, "00123": 3, "weather-forecast": 3, "tide": 0},
    expect={"mrr": 1.0, "ndcg@10": 0.75},
    forbid=("weather-archive",),
    skip=None,
    xfail="flaky, see issue 12",
)
LOTTERY = GoldenQuery(id="007", text="lottery numbers: next week", relevant={})

CANONICAL = """\
queries:
  - id: rain-tomorrow
    query: is it going to rain tomorrow?
    category: paraphrase
    tags: [core, dev/holdout]
    filters: {network: base, max_price: 0.5, assets: [USDC, "no"]}
    relevant:
      "00123": 3
      weather-forecast: 3
      weather-forecast-stuffed: 1
      tide: 0
    expect: {mrr: 1.0, ndcg@10: 0.75}
    forbid: [weather-archive]
    xfail: flaky, see issue 12

  - id: "007"
    query: "lottery numbers: next week"
    category: uncategorized
    relevant: {}
"""


def bare(query: GoldenQuery) -> GoldenQuery:
    """The query without where it was read from (path, line)."""
    return dataclasses.replace(query, path="", line=0)


def test_canonical_yaml_known_answer(tmp_path):
    assert golden_yaml([RAIN, LOTTERY]) == CANONICAL
    path = tmp_path / "golden" / "imported.yaml"
    write_golden_yaml(path, [RAIN, LOTTERY])
    back = load_golden_file(path)
    assert [bare(q) for q in back] == [RAIN, LOTTERY]
    assert [q.line for q in back] == [2, 16]  # the loader points at each query


def test_canonical_yaml_is_stable_whatever_the_judgment_order():
    shuffled = dataclasses.replace(RAIN, relevant=dict(reversed(list(RAIN.relevant.items()))))
    assert golden_yaml([shuffled]) == golden_yaml([RAIN])
    assert golden_yaml([]) == "queries: []\n"


def test_jsonl_known_answer(tmp_path):
    lines = golden_jsonl([LOTTERY, RAIN]).splitlines()
    assert json.loads(lines[0]) == {
        "id": "007",
        "query": "lottery numbers: next week",
        "category": "uncategorized",
        "relevant": {},
    }
    assert list(json.loads(lines[1])) == [
        "id", "query", "category", "tags", "filters", "relevant", "expect", "forbid", "xfail"
    ]  # fmt: skip
    path = tmp_path / "g.jsonl"
    write_golden_jsonl(path, [LOTTERY, RAIN])
    assert [bare(q) for q in load_golden_file(path)] == [LOTTERY, RAIN]
    assert [q.line for q in load_golden_file(path)] == [1, 2]


# --------------------------------------------------------------------------- quoting

MUST_QUOTE = [
    *("00123", "123", "-1", "+1", "1.5", ".5", "1e3", "1E-3", "0x1F", "0o17", "017", "1_000"),
    *("1:20", "2024-01-01", "2001-12-14t21:59:43.10-05:00", ".inf", "-.inf", ".NaN"),
    *("true", "True", "FALSE", "yes", "No", "ON", "off", "y", "n", "Y", "null", "Null", "~"),
    *("", " lead", "trail ", "<<", "=", "-", "- a", "a: b", "a #b", "#x", "@x", "`x", "!x"),
    *("&x", "*x", "|", ">", "%x", "[x", "{x", "'x", '"x', "?x", "a\nb", "tab\t", "é"),
    *("\x85", "\u2028", "\ufeff", "\x00", "\x7f"),
]
PLAIN = ["rain-tomorrow", "weather_forecast", "dev/holdout", "is it going to rain?", "A.B"]


@pytest.mark.parametrize("text", MUST_QUOTE)
def test_text_that_yaml_would_read_otherwise_is_quoted(text):
    rendered = yaml_string(text)
    assert rendered.startswith('"'), rendered
    for loader in (yaml.SafeLoader, yaml.CSafeLoader):
        assert yaml.load(f"k: {rendered}\n", Loader=loader) == {"k": text}
        assert yaml.load(f"{rendered}: 1\n", Loader=loader) == {text: 1}
        assert yaml.load(f"k: [{yaml_flow([text, text])}]\n", Loader=loader) == {"k": [[text] * 2]}


@pytest.mark.parametrize("text", PLAIN)
def test_plain_text_stays_plain(text):
    assert yaml_string(text) == text


def test_a_comma_is_plain_in_a_block_and_quoted_inside_brackets():
    assert yaml_string("a, b") == "a, b"
    assert yaml_flow(["a, b"]) == '["a, b"]'
    assert yaml.safe_load(f"k: {yaml_flow(['a, b', 'c'])}") == {"k": ["a, b", "c"]}


def test_a_very_long_id_is_an_explicit_key(tmp_path):
    query = GoldenQuery(
        id="long", text="t", relevant={"d" * 1500: 2, "e": 1}, filters={"x" * 1100: 1}
    )
    path = tmp_path / "long.yaml"
    write_golden_yaml(path, [query])
    assert "? " + "d" * 1500 in path.read_text(encoding="utf-8")
    assert [bare(q) for q in load_golden_file(path)] == [query]


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (GoldenQuery("a b", "t"), "query 'a b': id must not contain spaces"),
        (GoldenQuery("q", "  "), "query 'q': 'query' must be non-empty text"),
        (GoldenQuery("q", "t", category="all"), "query 'q': category 'all' is reserved"),
        (GoldenQuery("q", "t", relevant={"d": 4}), "grade of 'd' is 4, outside 0..3"),
        (GoldenQuery("q", "t", relevant={"d": -1}), "grade of 'd' is -1, below 0: grades are 0..3"),
        (GoldenQuery("q", "t", expect={"mrr": 2.0}), "'expect' mrr must be in 0..1"),
        (GoldenQuery("q", "t", expect={"ndgc@10": 0.5}), "unknown metric 'ndgc@10'"),
        (GoldenQuery("q", "t", tags=("",)), "'tags' must hold only text"),
        (GoldenQuery("q", "t", skip=""), "'skip' must be a reason (text) or true"),
    ],
)
def test_writers_refuse_what_would_not_load(query, expected):
    for write in (golden_yaml, golden_jsonl):
        with pytest.raises(GoldenFileError) as info:
            write([query], shown="out")
        assert expected in str(info.value), str(info.value)
        assert str(info.value).startswith("out:")


def test_writers_refuse_duplicate_ids_and_unwritable_filters():
    with pytest.raises(GoldenFileError, match="query 'q': duplicate id"):
        golden_yaml([GoldenQuery("q", "a"), GoldenQuery("q", "b")])
    with pytest.raises(GoldenFileError, match="duplicate id"):  # é composed, then decomposed
        golden_jsonl([GoldenQuery("caf\u00e9", "a"), GoldenQuery("cafe\u0301", "b")])
    with pytest.raises(GoldenFileError, match="query 'q': cannot be written as YAML: a filter"):
        golden_yaml([GoldenQuery("q", "a", filters={"x": {1, 2}})])
    with pytest.raises(GoldenFileError, match="value of type object"):
        golden_yaml([GoldenQuery("q", "a", filters={"x": [object()]})])
    with pytest.raises(GoldenFileError, match="query 'q': 'filters' keys must be text in JSONL"):
        golden_jsonl([GoldenQuery("q", "a", filters={1: "one"})])
    with pytest.raises(GoldenFileError, match="query 'q': cannot be written as JSON"):
        golden_jsonl([GoldenQuery("q", "a", filters={"x": float("nan")})])
    assert golden_yaml([GoldenQuery("q", "t", relevant={"d": 4})], max_grade=4)


def test_expect_names_are_written_canonical():
    query = GoldenQuery("q", "t", expect={"MRR": 0.5, "nDCG@10": 0.25})
    assert "expect: {mrr: 0.5, ndcg@10: 0.25}" in golden_yaml([query])


# --------------------------------------------------------------------------- JSONL reader


def jsonl_error(tmp_path: Path, text: str, max_grade: int = 3) -> list[str]:
    path = tmp_path / "g.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path, max_grade=max_grade, shown="g.jsonl")
    return [str(p) for p in info.value.problems]


def test_jsonl_reader_names_line_query_and_fix(tmp_path):
    text = "\n".join(
        [
            '{"id": "a", "query": "x", "relevant": {"d": 1}}',
            "",
            '{"id": "b", "query": "x", "relevent": {"d": 1}}',
            '{"id": "c", "query": "x", "relevant": {"d": 7}}',
            '{"id": "a", "query": "again", "relevant": {}}',
            '{"id": "e", "query": "x", "relevant": {}, "id": "f"}',
            '{"id": "g", "query": "x", "relevant": {"d": NaN}}',
            '{"id": "h", "query": "x", "relevant": {"d": 1}',
            '["not", "an", "object"]',
            '{"id": 12, "query": "integer ids are text", "relevant": ["d"]}',
        ]
    )
    assert jsonl_error(tmp_path, text) == [
        "g.jsonl:3: query 'b': unknown key 'relevent' (did you mean 'relevant'?)",
        "g.jsonl:4: query 'c': grade of 'd' is 7, outside 0..3 (retrieval_max_grade); use a "
        "grade in range or raise retrieval_max_grade",
        "g.jsonl:5: query 'a': duplicate id (first used on line 1); ids must be unique across "
        "the golden set",
        "g.jsonl:6: query 'f': key 'id' appears twice in one object; keep one: only the last "
        "would count",
        "g.jsonl:7: query 'g': NaN is not a number in JSON; write a number",
        "g.jsonl:8: query 'h': JSON syntax error: the line ends inside an object or a list "
        "(Expecting ',' delimiter, column 47): a closing '}' or ']' is missing; each line of a "
        ".jsonl golden file is one JSON object",
        "g.jsonl:9: a list where a query object belongs; each line of a .jsonl golden file is "
        "one JSON object",
    ]


def test_jsonl_reader_ids_stay_text_and_empty_files_are_errors(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": 12, "query": "q", "relevant": ["007"]}\n', encoding="utf-8")
    assert load_golden_file(path) == [
        GoldenQuery("12", "q", relevant={"007": 1}, path=str(path), line=1)
    ]
    assert jsonl_error(tmp_path, "\n\n") == [
        "g.jsonl:1: the file holds no queries; write one JSON object per line"
    ]
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"id": "caf\xe9", "query": "q", "relevant": {}}\n')
    with pytest.raises(GoldenFileError, match=r"latin.jsonl:1: byte 0xe9 is not UTF-8"):
        load_golden_file(latin)


def test_jsonl_lines_never_hold_a_unicode_line_break():
    query = GoldenQuery("q", "a\u2028b\x85c\u2029", relevant={"d\u2028e": 1})
    text = golden_jsonl([query])
    assert text.count("\n") == 1 and len(text.splitlines()) == 1
    assert json.loads(text)["query"] == query.text


# --------------------------------------------------------------------------- round trips


@SETTINGS
@given(written=golden_sets)
def test_yaml_round_trip(tmp_path, written):
    path = tmp_path / "golden.yaml"
    write_golden_yaml(path, written)
    assert [bare(q) for q in load_golden_file(path, max_grade=3)] == written


@SETTINGS
@given(written=golden_sets)
def test_jsonl_round_trip(tmp_path, written):
    path = tmp_path / "golden.jsonl"
    write_golden_jsonl(path, written)
    assert [bare(q) for q in load_golden_file(path)] == written
    assert len(path.read_text(encoding="utf-8").splitlines()) == len(written)


# --------------------------------------------------------------------------- fingerprints


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(max_size=30),
    relevant=st.dictionaries(st.text(max_size=10), st.integers(-1, 3), max_size=6),
)
def test_the_fingerprint_text_is_what_json_dumps_writes(text, relevant):
    """Baselines hold hashes of json.dumps' text: the fingerprint builds the same text."""
    expected = json.dumps({"query": text, "relevant": relevant}, sort_keys=True, ensure_ascii=False)
    assert fingerprint_text(text, relevant) == expected


def test_a_fingerprint_is_the_one_earlier_versions_wrote():
    assert RAIN.fingerprint == "5f40d3d58f619ea5"
