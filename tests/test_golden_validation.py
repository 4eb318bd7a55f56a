"""Unit tests of golden-file validation: every problem named with file, line, query id.

The table of broken files is shared with the end-to-end tests (golden_cases.py),
which run a few of them through pytest's collection; here every case goes through
the loader itself.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from golden_cases import GOLDEN_ERRORS

from pytest_retrieval.golden import DEFAULT_CATEGORY, GoldenFileError, GoldenQuery
from pytest_retrieval.io.golden_check import FIELDS
from pytest_retrieval.io.golden_file import load_golden_file

SHOWN = "golden/broken.yaml"


def load(tmp_path: Path, text: str, max_grade: int = 3) -> list[GoldenQuery]:
    path = tmp_path / "broken.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_golden_file(path, max_grade=max_grade, shown=SHOWN)


def problems(tmp_path: Path, text: str, max_grade: int = 3) -> list[str]:
    with pytest.raises(GoldenFileError) as info:
        load(tmp_path, text, max_grade)
    return [str(p) for p in info.value.problems]


def holds(line: str, fragment: str | re.Pattern[str]) -> bool:
    return fragment in line if isinstance(fragment, str) else bool(fragment.search(line))


@pytest.mark.parametrize("case", list(GOLDEN_ERRORS))
def test_a_golden_file_error_names_file_line_query_and_problem(tmp_path: Path, case: str) -> None:
    text, line, qid, fragments = GOLDEN_ERRORS[case]
    found = problems(tmp_path, text)
    where = f"{SHOWN}:{line}:"
    wanted = [where, *([f"'{qid}'"] if qid else []), *fragments]
    assert any(all(holds(p, f) for f in wanted) for p in found), (wanted, found)


def test_an_unknown_key_beside_a_filled_relevant_gets_no_indentation_hint(
    tmp_path: Path,
) -> None:
    """The hint is for a 'relevant' left empty by de-indented judgments, not for any
    stray key: one beside judgments is a plain unknown key."""
    found = problems(
        tmp_path,
        """\
        queries:
          - id: one
            query: fine
            relevant: {a: 3}
            doc-7: 2
        """,
    )
    assert found == [
        f"{SHOWN}:5: query 'one': unknown key 'doc-7'; valid keys: id, query, category, tags, "
        "filters, relevant, expect, forbid, skip, xfail"
    ]


def test_every_problem_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        """\
        queries:
          - id: one
            query: ""
            relevant: {a: 9}
            tagz: [x]
          - id: two
            query: fine
        """,
    )
    assert found == [  # in line order
        f"{SHOWN}:3: query 'one': 'query' must be non-empty text, got text ''",
        f"{SHOWN}:4: query 'one': grade of 'a' is 9, outside 0..3 (retrieval_max_grade); use a "
        "grade in range or raise retrieval_max_grade",
        f"{SHOWN}:5: query 'one': unknown key 'tagz' (did you mean 'tags'?)",
        f"{SHOWN}:6: query 'two': 'relevant' is missing (required); write 'relevant: {{}}' for "
        "a no-result query",
    ]


def test_another_tools_name_for_a_key_is_told_ours(tmp_path: Path) -> None:
    # BEIR's "text", a "qid", "qrels": no spelling distance finds ours; and "'query' is
    # missing" is not said beside "'text' (did you mean 'query'?)"
    found = problems(
        tmp_path,
        """\
        queries:
          - qid: one
            text: how do I reset my password
            qrels: {a: 1}
        """,
    )
    assert found == [
        f"{SHOWN}:2: unknown key 'qid' (did you mean 'id'?)",
        f"{SHOWN}:3: unknown key 'text' (did you mean 'query'?)",
        f"{SHOWN}:4: unknown key 'qrels' (did you mean 'relevant'?)",
    ], found


def test_a_misspelled_queries_key_is_named_once(tmp_path: Path) -> None:
    found = problems(tmp_path, "querys:\n  - id: g1\n    query: x\n    relevant: {}\n")
    assert found == [f"{SHOWN}:1: unknown top-level key 'querys' (did you mean 'queries'?)"]
    found = problems(tmp_path, "queeries: []\nqueries:\n")  # here both are said
    assert len(found) == 2, found


def test_defaults_fill_what_a_query_leaves_out(tmp_path: Path) -> None:
    queries = load(
        tmp_path,
        """\
        defaults:
          category: paraphrase
          tags: core
          skip: true
        queries:
          - id: a
            query: first
            relevant: [x, y]
          - id: b
            query: second
            category: exact
            tags: []
            skip: false
            relevant: {x: 2}
            expect: {RR: 0.5}
            forbid: [z]
            filters: {network: base}
        """,
    )
    a, b = queries
    assert (a.category, a.tags, a.skip, a.relevant) == (
        "paraphrase",
        ("core",),
        "skip set in the golden file",
        {"x": 1, "y": 1},
    )
    assert (b.category, b.tags, b.skip, b.expect, b.forbid) == (
        "exact",
        (),
        None,
        {"mrr": 0.5},
        ("z",),
    )
    assert b.filters == {"network": "base"}
    assert type(b.filters) is dict  # the line-tracking mapping does not leak to users
    assert (a.line, b.line, a.path) == (6, 9, SHOWN)


def test_an_absent_optional_key_takes_its_table_default(tmp_path: Path) -> None:
    (query,) = load(tmp_path, "queries:\n  - {id: a, query: q, relevant: {}}\n")
    assert query.category == DEFAULT_CATEGORY == FIELDS["category"].absent
    assert (query.tags, query.filters, query.expect, query.forbid) == ((), {}, {}, ())
    assert (query.skip, query.xfail) == (None, None)


def test_a_bad_id_still_names_the_query_in_later_problems(tmp_path: Path) -> None:
    found = problems(tmp_path, "queries:\n  - {id: 'has space', query: '', relevant: {}}\n")
    assert found[0].endswith(
        "query 'has space': id must not contain spaces, tabs, newlines, '[', ']' or '::' (it "
        "becomes a pytest node id)"
    )
    assert "query 'has space': 'query' must be non-empty text" in found[1]


def test_a_query_with_problems_in_optional_keys_is_still_checked_for_duplicate_ids(
    tmp_path: Path,
) -> None:
    found = problems(
        tmp_path,
        """\
        queries:
          - {id: a, query: q, relevant: {}, tags: 3}
          - {id: a, query: q, relevant: {}}
        """,
    )
    assert any("duplicate id (first used on line 2)" in p for p in found), found


@pytest.mark.parametrize("odd", ["\u2028", "\u2029", "\x85"], ids=["LS", "PS", "NEL"])
def test_yaml_lines_are_an_editors_lines_after_odd_line_separators(
    tmp_path: Path, odd: str
) -> None:
    """YAML counts U+2028, U+2029 and U+0085 as line breaks; an editor shows one line
    where they are. Every line reported is the editor's (the line of '\\n's)."""
    head = (
        f"# a comment pasted from a web page{odd}# with a separator\n"
        "queries:\n"
        f'  - {{id: first, query: "one{odd}two", relevant: {{a: 1}}}}\n'
    )
    assert [q.line for q in load(tmp_path, head)] == [3]
    said = problems(tmp_path, head + "  - {id: second, query: q, relevant: {a: 9}}\n")
    assert said[0].startswith(f"{SHOWN}:4: query 'second':"), said
    said = problems(tmp_path, head + "  - {id: third, query: q, relevant: {a: 1}\n")
    assert said[0].startswith(f"{SHOWN}:4: YAML syntax error"), said
    said = problems(tmp_path, head + "  - {id: big, query: q, relevant: {a: !!int x}}\n")
    assert said[0].startswith(f"{SHOWN}:4: "), said


def test_text_after_an_odd_line_separator_in_a_comment_is_named(tmp_path: Path) -> None:
    """YAML ends a comment at U+2028: what follows is read as YAML. The error says why, at
    the editor's line."""
    text = "queries:\n  # see the wiki\u2028for: details\n  - {id: a, query: q, relevant: {a: 1}}\n"
    said = problems(tmp_path, text)
    assert said[0].startswith(f"{SHOWN}:3: YAML syntax error"), said  # where YAML gave up
    assert "line 2 holds U+2028 (LINE SEPARATOR), which YAML reads as a line break" in said[0]


def test_a_query_listed_again_through_an_alias_is_named_as_an_alias(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        """\
        queries:
          - &first
            id: a
            query: q
            relevant: {d1: 1}
          - *first
          - {id: b, query: r, relevant: {}}
        """,
    )
    assert len(found) == 1, found
    assert found[0].startswith(f"{SHOWN}:2: query 'a': this query is listed again"), found
    assert "YAML alias" in found[0] and "duplicate id" not in found[0]


def test_a_merge_key_copy_with_its_own_id_is_two_queries(tmp_path: Path) -> None:
    queries = load(
        tmp_path,
        """\
        queries:
          - &first {id: a, query: q, relevant: {d1: 1}}
          - {<<: *first, id: b}
          - {id: c, query: "1", relevant: {}}
          - {id: d, query: "1", relevant: {}}
        """,
    )
    assert [q.id for q in queries] == ["a", "b", "c", "d"]


def test_xfail_per_configuration_is_read_checked_and_written_back(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        defaults:
          xfail: {titles: ignores filters}
        queries:
          - {id: a, query: q, relevant: {x: 1}, forbid: [y]}
          - {id: b, query: q, relevant: {x: 1}, forbid: [y], xfail: {dense: true, bm25: false}}
          - {id: c, query: q, relevant: {x: 1}, forbid: [y], xfail: every one}
        """
    )
    a, b, c = load(tmp_path, text)
    assert (a.xfail, a.xfail_in) == (None, {"titles": "ignores filters"})
    assert (b.xfail, b.xfail_in) == (None, {"dense": "xfail: dense set in the golden file"})
    assert (c.xfail, c.xfail_in) == ("every one", {})
    assert [a.xfail_for(n) for n in ("titles", "dense")] == ["ignores filters", None]
    assert [c.xfail_for(n) for n in ("titles", "dense")] == ["every one", "every one"]
    from pytest_retrieval.io.golden_writer import golden_jsonl, golden_yaml

    again = load(tmp_path, golden_yaml([a, b, c]))  # what import and convert write
    assert [(q.xfail, q.xfail_in) for q in again] == [(q.xfail, q.xfail_in) for q in (a, b, c)]
    path = tmp_path / "again.jsonl"
    path.write_text(golden_jsonl([a, b, c]))
    assert [q.xfail_in for q in load_golden_file(path)] == [q.xfail_in for q in (a, b, c)]


@pytest.mark.parametrize(
    ("xfail", "said"),
    [
        ("{1: slow}", "'xfail' maps configuration names to reasons (titles: ignores filters), "
         "got the name an integer"),
        ("{titles: 3}", "'xfail: titles' must be a reason (text) or true, got an integer"),
        ("{titles: true}", "'xfail' expects this query's 'expect' or 'forbid' to fail"),
    ],
)  # fmt: skip
def test_a_bad_xfail_per_configuration_is_named(tmp_path: Path, xfail: str, said: str) -> None:
    forbid = "" if "true" in xfail else ", forbid: [y]"
    found = problems(
        tmp_path, f"queries:\n  - {{id: a, query: q, relevant: {{x: 1}}{forbid}, xfail: {xfail}}}\n"
    )
    assert len(found) == 1 and said in found[0], found
