"""A catalogue of bad input and faults, each with the exact message a user sees.

Golden files (YAML), retriever results, options and ini values and baseline files
go through their pure readers here (fast); the faults only a run can show (a
crashed worker, an interrupted run, a report over the baseline, a timeout) run end
to end in test_e2e_faults.py. The rule behind every case: bad input is refused
with a message naming where and what to do, never silence, never a raised score.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import json
import types
import unittest.mock
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from pytest_retrieval.baseline import Baseline, BaselineError
from pytest_retrieval.golden import GoldenFileError
from pytest_retrieval.io.baseline_file import dumps, parse_baseline
from pytest_retrieval.io.golden_file import load_golden_file
from pytest_retrieval.model import QueryRecord
from pytest_retrieval.settings import Settings, SettingsError, parse_run_settings

SHOWN = "golden/bad.yaml"


class FakeFrame:
    """What a pandas DataFrame looks like to the plugin (iterating it gives its columns)."""

    columns: ClassVar[list[str]] = ["id"]

    def itertuples(self) -> object:
        return iter(())


class ZeroD:
    """What a 0-d numpy array or torch tensor looks like to the plugin: iterable by its
    type, and iterating it raises TypeError."""

    ndim = 0

    def __iter__(self) -> Iterator[object]:
        raise TypeError("iteration over a 0-d array")

    def __repr__(self) -> str:
        return "zero-d"


@dataclasses.dataclass
class Chunk:
    """A RAG framework's chunk: text and metadata, no ``.id``; its repr names its type."""

    page_content: str
    metadata: dict[str, object]


# --------------------------------------------------------------------------- golden files

GOLDEN_TEXT_CASES: dict[str, tuple[str, str]] = {
    # was "unknown key 'None'" / "unknown key 'True'": no key the file holds
    "null-key": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    ~: 1\n",
        "golden/bad.yaml:5: query 'a': a key that YAML reads as null (None), not a name: write one of id, query, category, tags, filters, relevant, expect, forbid, skip, xfail",
    ),
    "boolean-key": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    yes: 1\n",
        "golden/bad.yaml:5: query 'a': a key that YAML reads as a boolean (True), not a name: write one of id, query, category, tags, filters, relevant, expect, forbid, skip, xfail",
    ),
    # in defaults too: "unknown key 'None' in defaults"
    "null-key-in-defaults": (
        "defaults:\n  ~: x\nqueries:\n  - {id: a, query: q, relevant: {x: 1}}\n",
        "golden/bad.yaml:2: in defaults: a key that YAML reads as null (None), not a name: write one of category, tags, filters, expect, forbid, skip, xfail",
    ),
    "boolean-key-in-defaults": (
        "defaults:\n  yes: x\nqueries:\n  - {id: a, query: q, relevant: {x: 1}}\n",
        "golden/bad.yaml:2: in defaults: a key that YAML reads as a boolean (True), not a name: write one of category, tags, filters, expect, forbid, skip, xfail",
    ),
    "date-key": (  # "a date": a type name after its article as it is said
        "queries:\n  - {id: a, query: q, relevant: {x: 1}, 2024-01-01: 1}\n",
        "golden/bad.yaml:2: query 'a': a key that YAML reads as a date (datetime.date(2024, 1, 1)), not a name: write one of id, query, category, tags, filters, relevant, expect, forbid, skip, xfail",
    ),
    "null-key-at-the-top": (
        "~: 1\nqueries:\n  - {id: a, query: q, relevant: {x: 1}}\n",
        "golden/bad.yaml:1: a key that YAML reads as null (None), not a name: write one of defaults, queries",
    ),
    # was "the file holds no YAML (it is empty, or only comments)"
    "null-document": (
        "~\n",
        "golden/bad.yaml:1: the file holds only '~', which YAML reads as null (no value), not a mapping with a 'queries:' list; a golden file holds 'queries:' with a list of queries (- id: ..., query: ..., relevant: ...): write them",
    ),
    # was "unknown top-level key 'base'; valid keys: defaults, queries": no word of x-
    "anchor-under-unknown-key": (
        "base: &b {category: c}\nqueries:\n  - {id: a, query: q, relevant: {x: 1}, <<: *b}\n",
        "golden/bad.yaml:1: unknown top-level key 'base'; valid keys: defaults, queries, and keys starting with 'x-', which the plugin leaves alone: define YAML anchors there (x-base: &base ...)",
    ),
    "tab-indent": (
        "queries:\n\t- id: a\n\t  query: q\n",
        "golden/bad.yaml:2: YAML syntax error: while scanning for the next token found character that cannot start any token; the line is indented with a tab: YAML indents with spaces only",
    ),
    "zero-width-id": (
        'queries:\n  - id: "q\\u200b"\n    query: q\n    relevant: {x: 1}\n',
        "golden/bad.yaml:2: query 'q\\u200b': id 'q\\u200b' holds an invisible character (U+200B, copied from a web page or a document?): two ids would look the same; remove it",
    ),
    # x, "x " and "x\u200b" were three rows all labelled x; a newline, a phantom Markdown row
    "category-trailing-space": (
        'queries:\n  - id: a\n    query: q\n    category: "x "\n    relevant: {x: 1}\n',
        "golden/bad.yaml:4: query 'a': category 'x ' has white space at its start or end (its row would look like the row of 'x'); write 'x'",
    ),
    "category-zero-width": (
        'queries:\n  - id: a\n    query: q\n    category: "x\\u200b"\n    relevant: {x: 1}\n',
        "golden/bad.yaml:4: query 'a': category 'x\\u200b' holds an invisible character (U+200B, copied from a web page or a document?): two categories would look the same; remove it",
    ),
    "category-newline": (
        'queries:\n  - id: a\n    query: q\n    category: "lexical\\nrow"\n    relevant: {x: 1}\n',
        "golden/bad.yaml:4: query 'a': category 'lexical\\nrow' holds a tab, a newline or another control character; remove it",
    ),
    "default-category-no-break-space": (
        'defaults:\n  category: "\\xa0x"\nqueries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n',
        "golden/bad.yaml:2: in defaults: category '\\xa0x' has white space at its start or end (its row would look like the row of 'x'); write 'x'",
    ),
    "tab-in-id": (
        'queries:\n  - id: "a\\tb"\n    query: q\n    relevant: {x: 1}\n',
        "golden/bad.yaml:2: query 'a\\tb': id must not contain spaces, tabs, newlines, '[', ']' or '::' (it becomes a pytest node id)",
    ),
    "newline-in-id": (
        'queries:\n  - id: "a\\nb"\n    query: q\n    relevant: {x: 1}\n',
        "golden/bad.yaml:2: query 'a\\nb': id must not contain spaces, tabs, newlines, '[', ']' or '::' (it becomes a pytest node id)",
    ),
    "octal-id": (
        "queries:\n  - id: 00123\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query '00123': id 00123 is read by YAML as the number 83; quote it ('00123') to keep it as text",
    ),
    "hex-id": (
        "queries:\n  - id: 0x1F\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query '0x1F': id 0x1F is read by YAML as the number 31; quote it ('0x1F') to keep it as text",
    ),
    "underscore-id": (
        "queries:\n  - id: 1_000\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query '1_000': id 1_000 is read by YAML as the number 1000; quote it ('1_000') to keep it as text",
    ),
    "octal-doc-key": (
        "queries:\n  - id: a\n    query: q\n    relevant:\n      00123: 3\n",
        "golden/bad.yaml:5: query 'a': 'relevant': id 00123 is read by YAML as the number 83; quote it ('00123') to keep it as text",
    ),
    "hex-doc-in-list": (
        "queries:\n  - id: a\n    query: q\n    relevant: [doc, 0x10]\n",
        "golden/bad.yaml:4: query 'a': 'relevant': id 0x10 is read by YAML as the number 16; quote it ('0x10') to keep it as text",
    ),
    "octal-forbid": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    forbid: [0777]\n",
        "golden/bad.yaml:5: query 'a': 'forbid': id 0777 is read by YAML as the number 511; quote it ('0777') to keep it as text",
    ),
    "tab-in-doc-id": (
        'queries:\n  - id: a\n    query: q\n    relevant: {"x\\ty": 1}\n',
        "golden/bad.yaml:4: query 'a': 'relevant': id 'x\\ty' holds a tab, a newline or another control character; remove it",
    ),
    "bad-int-tag": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: !!int q1}\n",
        "golden/bad.yaml:4: YAML value error: 'q1' is not an integer (tagged !!int); write a value that fits, or drop the tag",
    ),
    "bad-float-tag": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: {mrr: !!float high}\n",
        "golden/bad.yaml:5: YAML value error: 'high' is not a number (tagged !!float); write a value that fits, or drop the tag",
    ),
    "bad-timestamp-tag": (
        "queries:\n  - id: a\n    query: !!timestamp someday\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: YAML value error: 'someday' is not a date (tagged !!timestamp); write a value that fits, or drop the tag",
    ),
    "python-tag": (
        "queries:\n  - id: a\n    query: !!python/object/apply:os.system [echo hi]\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: the tag !!python/object/apply:os.system is refused: a golden file holds data, and tags that build Python objects are never run; remove the tag",
    ),
    "alias-bomb": (
        "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nqueries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    filters: {bomb: *g}\n",
        "golden/bad.yaml:1: the file expands to far more values than it holds, through YAML aliases (&anchor ... *anchor): write the values out, or use fewer aliases",
    ),
    "deep-nesting": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    filters: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
        "golden/bad.yaml:5: values are nested more than 64 levels deep; a golden query needs a few levels at most: flatten the value (a filters value, say)",
    ),
    "empty-queries": (
        "queries: []\n",
        "golden/bad.yaml:1: the file has no queries; add some, or delete the file",
    ),
    "empty-bare-list": (
        "[]\n",
        "golden/bad.yaml:1: the file has no queries; add some, or delete the file",
    ),
    "category-ALL": (
        "queries:\n  - id: a\n    query: q\n    category: ALL\n    relevant: {x: 1}\n",
        "golden/bad.yaml:4: query 'a': category 'ALL' is reserved for the overall row of the tables; choose another name",
    ),
    "category-weighted": (
        "queries:\n  - id: a\n    query: q\n    category: All (Weighted)\n    relevant: {x: 1}\n",
        "golden/bad.yaml:4: query 'a': category 'All (Weighted)' is reserved for the overall row of the tables; choose another name",
    ),
    "xfail-alone": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    xfail: broken\n",
        "golden/bad.yaml:5: query 'a': 'xfail' expects this query's 'expect' or 'forbid' to fail, but it has neither, so it can never fail (it would always XPASS): add expect (e.g. {ndcg@10: 0.9}) or forbid, or remove xfail",
    ),
    # the query has no xfail to remove: it said "or remove xfail"
    "xfail-from-defaults": (
        "defaults:\n  xfail: known\n  forbid: [y]\n"
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    forbid: []\n",
        "golden/bad.yaml:5: query 'a': 'xfail' (from defaults) expects this query's 'expect' or 'forbid' to fail, but it has neither, so it can never fail (it would always XPASS): add expect (e.g. {ndcg@10: 0.9}) or forbid, or write 'xfail: false' on the query",
    ),
    "query-empty": (
        "queries:\n  - id: a\n    query: ''\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: query 'a': 'query' must be non-empty text, got text ''",
    ),
    "query-number": (
        "queries:\n  - id: a\n    query: 42\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: query 'a': 'query' must be non-empty text, got an integer 42",
    ),
    "relevant-missing": (
        "queries:\n  - id: a\n    query: q\n",
        "golden/bad.yaml:2: query 'a': 'relevant' is missing (required); write 'relevant: {}' for a no-result query",
    ),
    "relevant-null": (
        "queries:\n  - id: a\n    query: q\n    relevant:\n",
        "golden/bad.yaml:4: query 'a': 'relevant' is empty; write 'relevant: {}' for a no-result query, or map ids to grades (doc-id: 3)",
    ),
    "grade-bool": (  # it said "got true/false True"
        "queries:\n  - id: a\n    query: q\n    relevant: {x: yes}\n",
        "golden/bad.yaml:4: query 'a': grade of 'x' is written 'yes', which YAML reads as the boolean true (yes, no, on, off, true, false); write a number 0..3 (0 = judged not relevant)",
    ),
    "grade-octal": (  # it said "is 8, outside 0..3"; with a larger maximum it counted as 8
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 010, y: 02}\n",
        "golden/bad.yaml:4: query 'a': grade of 'x' is written 010, which YAML reads as the octal number 8; write 10 (or 8, if that is meant)",
    ),
    "grade-negative": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: -1}\n",
        "golden/bad.yaml:4: query 'a': grade of 'x' is -1, below 0: grades are 0..3 (0 = judged not relevant); write 0, or leave an unjudged document out",
    ),
    "grade-float": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1.5}\n",
        "golden/bad.yaml:4: query 'a': grade of 'x' must be an integer 0..3, got a number 1.5; grades are whole numbers: "
        "for a finer scale, multiply every grade and retrieval_max_grade alike (1.5 -> 3 with twice the maximum)",
    ),
    "grade-high": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 4}\n",
        "golden/bad.yaml:4: query 'a': grade of 'x' is 4, outside 0..3 (retrieval_max_grade); use a grade in range or raise retrieval_max_grade",
    ),
    "expect-range": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: {mrr: 1.5}\n",
        "golden/bad.yaml:5: query 'a': 'expect' mrr must be in 0..1, got 1.5",
    ),
    "expect-unknown": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: {mmr: 0.5}\n",
        "golden/bad.yaml:5: query 'a': 'expect': unknown metric 'mmr' (did you mean 'mrr'?)",
    ),
    "expect-bool": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: {mrr: true}\n",
        "golden/bad.yaml:5: query 'a': 'expect' mrr must be a number in 0..1, got a boolean",
    ),
    "expect-exponent": (  # YAML 1.1 reads a number with an exponent but no point as text
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: {mrr: 5e-1}\n",
        "golden/bad.yaml:5: query 'a': 'expect' mrr must be a number in 0..1, got text '5e-1'; write the number 0.5 (YAML reads an exponent without a point as text)",
    ),
    "expect-quoted": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: {ndcg@10: '0.75'}\n",
        "golden/bad.yaml:5: query 'a': 'expect' ndcg@10 must be a number in 0..1, got text '0.75'; write the number 0.75 (unquoted)",
    ),
    "expect-word": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: {mrr: high}\n",
        "golden/bad.yaml:5: query 'a': 'expect' mrr must be a number in 0..1, got text 'high'",
    ),
    "expect-list": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    expect: [mrr]\n",
        "golden/bad.yaml:5: query 'a': 'expect' must map metric names to minimum values (mrr: 1.0), got a list",
    ),
    "tags-mapping": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    tags: {core: 1}\n",
        "golden/bad.yaml:5: query 'a': 'tags' must be a list of text, got a mapping",
    ),
    "tags-number-item": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    tags: [core, 1.5]\n",
        "golden/bad.yaml:5: query 'a': 'tags': tag 1.5 is read by YAML as the number 1.5; quote it ('1.5') to keep it as text",
    ),
    # empty or blank text where text is asked for said "got text"
    "category-empty": (
        "queries:\n  - id: a\n    query: q\n    category: ''\n    relevant: {x: 1}\n",
        "golden/bad.yaml:4: query 'a': 'category' must be non-empty text, got empty text ''",
    ),
    "tag-blank": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    tags: [core, ' ']\n",
        "golden/bad.yaml:5: query 'a': 'tags' must hold only text, got blank text ' '",
    ),
    "forbid-empty-item": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    forbid: ['']\n",
        "golden/bad.yaml:5: query 'a': 'forbid' must hold only text, got empty text ''",
    ),
    "relevant-list-empty-item": (
        "queries:\n  - id: a\n    query: q\n    relevant: [x, '']\n",
        "golden/bad.yaml:4: query 'a': 'relevant' list must hold ids, got empty text ''",
    ),
    "skip-empty": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    skip: ''\n",
        "golden/bad.yaml:5: query 'a': 'skip' must be a reason (text) or true, got empty text ''",
    ),
    # the query counted twice in the group of the tag (--retrieval-group-by tags: n=2)
    "tag-twice": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    tags: [core, rolling,\n      core]\n",
        "golden/bad.yaml:6: query 'a': 'tags' lists 'core' twice: the query would count twice in its group; keep one",
    ),
    "forbid-string": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    forbid: x\n",
        "golden/bad.yaml:5: query 'a': 'forbid' must be a list of text, got text 'x': write it as a list, [\"x\"]",
    ),
    "filters-list": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    filters: [a]\n",
        "golden/bad.yaml:5: query 'a': 'filters' must be a mapping (network: base), got a list",
    ),
    "skip-number": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    skip: 3\n",
        "golden/bad.yaml:5: query 'a': 'skip' must be a reason (text) or true, got an integer",
    ),
    "duplicate-id": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n  - id: a\n    query: q2\n    relevant: {x: 1}\n",
        "golden/bad.yaml:5: query 'a': duplicate id (first used on line 2); ids must be unique across the golden set",
    ),
    "relevant-id-padded": (
        'queries:\n  - id: a\n    query: q\n    relevant:\n      " doc1": 1\n',
        "golden/bad.yaml:5: query 'a': 'relevant': id ' doc1' has white space at its start or end, so no result id matches it; write 'doc1'",
    ),
    "relevant-list-id-zero-width": (
        'queries:\n  - id: a\n    query: q\n    relevant: ["doc1\\u200b"]\n',
        "golden/bad.yaml:4: query 'a': 'relevant': id 'doc1\\u200b' holds an invisible character (U+200B, copied from a web page or a document?): two ids would look the same; remove it",
    ),
    "relevant-id-soft-hyphen": (
        'queries:\n  - id: a\n    query: q\n    relevant: {"re\\xadrank": 1}\n',
        "golden/bad.yaml:4: query 'a': 'relevant': id 're\\xadrank' holds an invisible character (U+00AD, copied from a web page or a document?): two ids would look the same; remove it",
    ),
    "forbid-id-bom": (
        'queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    forbid:\n      - x\n      - "\\ufeffx"\n',
        "golden/bad.yaml:7: query 'a': 'forbid': id '\\ufeffx' holds an invisible character (U+FEFF, copied from a web page or a document?): two ids would look the same; remove it",
    ),
    "duplicate-id-decomposed": (
        "queries:\n  - id: caf\u00e9\n    query: q\n    relevant: {x: 1}\n  - id: cafe\u0301\n    query: q2\n    relevant: {x: 1}\n",
        "golden/bad.yaml:5: query 'cafe\u0301': duplicate id (first used on line 2, written 'caf\\xe9' there and 'cafe\\u0301' here: the same text in two Unicode forms (composed and decomposed characters), which look alike); ids must be unique across the golden set",
    ),
    "relevant-id-decomposed": (
        "queries:\n  - id: a\n    query: q\n    relevant:\n      caf\u00e9: 1\n      cafe\u0301: 2\n",
        "golden/bad.yaml:6: query 'a': 'relevant' names 'cafe\u0301' twice, written 'caf\\xe9' there and 'cafe\\u0301' here: the same text in two Unicode forms (composed and decomposed characters), which look alike: one document judged twice, and a result id matches one form only; keep one",
    ),
    "relevant-list-id-decomposed": (
        "queries:\n  - id: a\n    query: q\n    relevant: [cafe\u0301, caf\u00e9]\n",
        "golden/bad.yaml:4: query 'a': 'relevant' lists 'caf\u00e9' twice, written 'cafe\\u0301' there and 'caf\\xe9' here: the same text in two Unicode forms (composed and decomposed characters), which look alike: one document judged twice, and a result id matches one form only; keep one",
    ),
    "forbid-id-decomposed": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    forbid: [caf\u00e9, cafe\u0301]\n",
        "golden/bad.yaml:5: query 'a': 'forbid' lists 'cafe\u0301' twice, written 'caf\\xe9' there and 'cafe\\u0301' here: the same text in two Unicode forms (composed and decomposed characters), which look alike: a result id matches one form only; keep one",
    ),
    "forbid-id-judged-decomposed": (
        "queries:\n  - id: a\n    query: q\n    relevant: {caf\u00e9: 1}\n    forbid: [cafe\u0301]\n",
        "golden/bad.yaml:5: query 'a': 'forbid' names 'cafe\u0301', which 'relevant' judges, written 'caf\\xe9' there and 'cafe\\u0301' here: the same text in two Unicode forms (composed and decomposed characters), which look alike: a result id matches one form only; write both alike",
    ),
    "tag-decomposed": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    tags: [cafe\u0301, caf\u00e9]\n",
        "golden/bad.yaml:5: query 'a': 'tags' lists 'caf\u00e9' twice, written 'cafe\\u0301' there and 'caf\\xe9' here: the same text in two Unicode forms (composed and decomposed characters), which look alike: the query would count in two groups that look alike; keep one",
    ),
    "unknown-top-key": (
        "queriez:\n  - id: a\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:1: unknown top-level key 'queriez' (did you mean 'queries'?)",
    ),
    "queries-mapping": (
        "queries: {a: 1}\n",
        "golden/bad.yaml:1: 'queries' must be a list of queries, got a mapping; write each "
        "query as a list item: '- id: q1', its keys below it",
    ),
    "id-list": (
        "queries:\n  - id: [a]\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: 'id' must be non-empty text, got a list",
    ),
    "id-bool": (
        "queries:\n  - id: yes\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query 'yes': id yes is read by YAML as the boolean true (yes, no, on, off, true, false); quote it ('yes') to keep it as text",
    ),
    "id-date": (
        "queries:\n  - id: 2024-01-01\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query '2024-01-01': id 2024-01-01 is read by YAML as a date; quote it ('2024-01-01') to keep it as text",
    ),
    "id-float": (
        "queries:\n  - id: 1.10\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query '1.10': id 1.10 is read by YAML as the number 1.1; quote it ('1.10') to keep it as text",
    ),
    "query-text-no": (
        "queries:\n  - id: a\n    query: No\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: query 'a': query text No is read by YAML as the boolean false (yes, no, on, off, true, false); quote it ('No') to keep it as text",
    ),
    "category-off": (
        "queries:\n  - id: a\n    query: q\n    category: off\n    relevant: {x: 1}\n",
        "golden/bad.yaml:4: query 'a': category off is read by YAML as the boolean false (yes, no, on, off, true, false); quote it ('off') to keep it as text",
    ),
    "default-category-off": (
        "defaults:\n  category: off\nqueries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: in defaults: category off is read by YAML as the boolean false (yes, no, on, off, true, false); quote it ('off') to keep it as text",
    ),
    "tags-scalar-no": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    tags: no\n",
        "golden/bad.yaml:5: query 'a': tag no is read by YAML as the boolean false (yes, no, on, off, true, false); quote it ('no') to keep it as text",
    ),
    "doc-key-date": (
        "queries:\n  - id: a\n    query: q\n    relevant:\n      2024-01-01: 3\n",
        "golden/bad.yaml:5: query 'a': 'relevant': id 2024-01-01 is read by YAML as a date; quote it ('2024-01-01') to keep it as text",
    ),
    "doc-null-in-list": (
        "queries:\n  - id: a\n    query: q\n    relevant: [doc, ~]\n",
        "golden/bad.yaml:4: query 'a': 'relevant': id ~ is read by YAML as null (no value); quote it ('~') to keep it as text",
    ),
    "tag-yes": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n    tags: [yes]\n",
        "golden/bad.yaml:5: query 'a': 'tags': tag yes is read by YAML as the boolean true (yes, no, on, off, true, false); quote it ('yes') to keep it as text",
    ),
    "id-missing": (
        "queries:\n  - query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query has no 'id' (required, unique text)",
    ),
    "repeated-key-beside-a-merge": (
        "x-base: &base {category: paraphrase}\nqueries:\n  - id: a\n    <<: *base\n    query: q\n    query: r\n    relevant: {x: 1}\n",
        "golden/bad.yaml:6: query 'a': key 'query' appears twice (first on line 5); keep one: only the last would count",
    ),
    "repeated-key": (
        "queries:\n  - id: a\n    query: q\n    query: q2\n    relevant: {x: 1}\n",
        "golden/bad.yaml:4: query 'a': key 'query' appears twice (first on line 3); keep one: only the last would count",
    ),
    "unhashable-key": (
        "queries:\n  - id: a\n    query: q\n    relevant: {? [x, y] : 1}\n",
        "golden/bad.yaml:4: a key is a list or a mapping; keys must be text",
    ),
    "defaults-unknown": (
        "defaults:\n  relevant: {x: 1}\nqueries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: unknown key 'relevant' in defaults; set it on each query",
    ),
    "defaults-not-mapping": (
        "defaults: [a]\nqueries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:1: 'defaults' must be a mapping, got a list",
    ),
    "query-not-mapping": (
        "queries:\n  - just a string\n",
        "golden/bad.yaml:2: each query must be a mapping with 'id', 'query' and 'relevant', got text",
    ),
    "id-with-brackets": (
        "queries:\n  - id: a[1]\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: query 'a[1]': id must not contain spaces, tabs, newlines, '[', ']' or '::' (it becomes a pytest node id)",
    ),
    "empty-file": (
        "",
        "golden/bad.yaml:1: the file holds no YAML (it is empty, or only comments); write 'queries:' with a list of queries",
    ),
    "empty-id": (
        'queries:\n  - id: ""\n    query: q\n    relevant: {x: 1}\n',
        "golden/bad.yaml:2: 'id' is empty; give the query a unique id",
    ),
    "empty-doc-id": (
        'queries:\n  - id: a\n    query: q\n    relevant: {"": 1}\n',
        "golden/bad.yaml:4: query 'a': 'relevant' has an empty id ''; give each document its id",
    ),
    "queries-empty": (
        "queries:\n",
        "golden/bad.yaml:1: 'queries:' holds nothing; list the queries under it (- id: ...)",
    ),
    "just-text": (
        "hello\n",
        "golden/bad.yaml:1: the file holds text 'hello', not a mapping with a 'queries:' list; write 'queries:' with a list of queries",
    ),
    "bad-default-value": (
        "defaults:\n  category: [a, b]\nqueries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n"
        "  - id: b\n    query: q\n    relevant: {x: 1}\n",
        "golden/bad.yaml:2: in defaults: 'category' must be non-empty text, got a list",
    ),
    "only-comments": (
        "# nothing here\n",
        "golden/bad.yaml:1: the file holds no YAML (it is empty, or only comments); write 'queries:' with a list of queries",
    ),
    "unclosed-bracket": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1\n",
        "golden/bad.yaml:4: YAML syntax error: while parsing a flow mapping did not find expected ',' or '}'; fix the YAML at this line",
    ),
    "bad-indent": (
        "queries:\n  - id: a\n    query: q\n   relevant: {x: 1}\n",
        "golden/bad.yaml:4: YAML syntax error: while parsing a block collection did not find expected '-' indicator (the construct began on line 2); check this line's indentation against the lines above: the keys of one query line up under its 'id:', and each query's '- ' lines up with the others'",
    ),
    "key-indented-too-far": (
        "queries:\n  - id: a\n    query: q\n      relevant: {x: 1}\n",
        "golden/bad.yaml:4: YAML syntax error: mapping values are not allowed in this context; check this line's indentation against the lines above: the keys of one query line up under its 'id:', and each query's '- ' lines up with the others'",
    ),
    "colon-in-unquoted-text": (
        "queries:\n  - id: a\n    query: error: disk full\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: YAML syntax error: mapping values are not allowed in this context; the value holds ': ', which YAML reads as another key: put it in quotes",
    ),
    "relevant-id-twice": (
        "queries:\n  - id: a\n    query: q\n    relevant: [x, x]\n",
        "golden/bad.yaml:4: query 'a': 'relevant' lists 'x' twice; keep one",
    ),
    "relevant-number-and-text": (
        "queries:\n  - id: a\n    query: q\n    relevant: {1: 1, '1': 2}\n",
        "golden/bad.yaml:4: query 'a': 'relevant' names '1' twice (as text and as a number); keep one",
    ),
    # found by fuzz/fuzz_golden.py
    "control-character": (
        'queries:\n  - {id: a, query: q, relevant: {}}\n  - {id: b, query: "q\x01", relevant: {}}\n',
        "golden/bad.yaml:3: character U+0001 (a control character) cannot be in a YAML file; remove it (inside double quotes, write it as \\x01)",
    ),
    "c1-control-character": (
        "queries:\n  - {id: a, query: q\x94, relevant: {}}\n",
        "golden/bad.yaml:2: character U+0094 (a control character) cannot be in a YAML file; remove it (inside double quotes, write it as \\x94)",
    ),
    "noncharacter": (
        "queries:\n  - {id: a, query: q\ufffe, relevant: {}}\n",
        "golden/bad.yaml:2: character U+FFFE (not a character) cannot be in a YAML file; remove it (inside double quotes, write it as \\ufffe)",
    ),
    "integer-too-long": (
        "queries:\n  - id: a\n    query: q\n    relevant: {x: " + "9" * 5000 + "}\n",
        "golden/bad.yaml:4: the number 99999999999999999999... has 5000 digits, more than Python reads (4300); write a shorter number, or quote it to keep it as text",
    ),
    "id-too-long-a-number": (
        "queries:\n  - id: " + "1" * 4301 + "\n    query: q\n    relevant: {}\n",
        "golden/bad.yaml:2: the number 11111111111111111111... has 4301 digits, more than Python reads (4300); write a shorter number, or quote it to keep it as text",
    ),
    "python-name-tag": (
        "defaults: !!python/name:os.system\nqueries:\n  - {id: a, query: q, relevant: {}}\n",
        "golden/bad.yaml:1: the tag !!python/name:os.system is refused: a golden file holds data, and tags that build Python objects are never run; remove the tag",
    ),
    "unknown-tag": (
        "queries:\n  - {id: a, query: q, relevant: {}, filters: {f: !custom x}}\n",
        "golden/bad.yaml:2: the tag !custom is not one this loader knows (plain YAML types only: !!str, !!int, !!float, !!bool, !!null, !!timestamp, !!binary, !!map, !!seq...); remove the tag",
    ),
    "id-with-delete-character": (
        'queries:\n  - {id: "a\\x7f", query: q, relevant: {}}\n',
        "golden/bad.yaml:2: query 'a\\x7f': id 'a\\x7f' holds a tab, a newline or another control character; remove it",
    ),
    "doc-id-with-c1-control": (
        'queries:\n  - {id: a, query: q, relevant: {"d\\x94": 1}}\n',
        "golden/bad.yaml:2: query 'a': 'relevant': id 'd\\x94' holds a tab, a newline or another control character; remove it",
    ),
    "deep-nesting-500": (
        "queries:\n  - id: a\n    query: q\n    relevant: {}\n    filters: {f: "
        + "[" * 500
        + "]" * 500
        + "}\n",
        "golden/bad.yaml:5: values are nested more than 64 levels deep; a golden query needs a few levels at most: flatten the value (a filters value, say)",
    ),
    "deep-block-nesting": (
        "queries:\n  - id: a\n    query: q\n    relevant: {}\n    filters:\n"
        + "".join(f"{'  ' * (i + 3)}k{i}:\n" for i in range(400))
        + f"{'  ' * 403}leaf\n",
        "golden/bad.yaml:67: values are nested more than 64 levels deep; a golden query needs a few levels at most: flatten the value (a filters value, say)",
    ),
    "bool-tag": (
        "queries:\n  - {id: a, query: q, relevant: {}, filters: {f: !!bool maybe}}\n",
        "golden/bad.yaml:2: YAML value error: 'maybe' is not true or false (tagged !!bool); write a value that fits, or drop the tag",
    ),
    "empty-int-tag": (
        "queries:\n  - {id: a, query: q, relevant: {}, filters: {f: !!int ''}}\n",
        "golden/bad.yaml:2: YAML value error: '' is not an integer (tagged !!int); write a value that fits, or drop the tag",
    ),
    "map-tag-on-text": (
        "queries:\n  - id: a\n    query: q\n    relevant: !!map x\n",
        "golden/bad.yaml:4: the tag !!map is for a mapping, not for a single value; remove it",
    ),
    "seq-tag-on-mapping": (
        "queries:\n  - id: a\n    query: q\n    relevant: {}\n    tags: !!seq {a: 1}\n",
        "golden/bad.yaml:5: the tag !!seq is for a list, not for a mapping; remove it",
    ),
    "recursive-alias": (
        "queries:\n  - id: a\n    query: q\n    relevant: {}\n    filters: &self {me: *self}\n",
        "golden/bad.yaml:5: an alias (*name) stands for the mapping or list it is in, a value that would hold itself; write the values out",
    ),
    "key-with-a-newline": (
        'queries:\n  - {id: a, query: q, relevant: {}, "x\\ny": 1}\n',
        "golden/bad.yaml:2: query 'a': unknown key 'x\\ny'; valid keys: id, query, category, tags, filters, relevant, expect, forbid, skip, xfail",
    ),
}
GOLDEN_BYTES_CASES: dict[str, tuple[bytes, str]] = {
    "nul-byte": (
        b"queries:\n  - id: a\n    query: q\x00\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: a NUL byte: the file is binary or corrupt; save it as UTF-8 text",
    ),
    "utf16": (
        b"\xff\xfeq\x00u\x00e\x00r\x00i\x00e\x00s\x00:\x00\n\x00 \x00 \x00-\x00 \x00i\x00d\x00:\x00 \x00a\x00\n\x00",
        "golden/bad.yaml:1: the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8",
    ),
    "latin1": (
        b"queries:\n  - id: a\n    query: caf\xe9\n    relevant: {x: 1}\n",
        "golden/bad.yaml:3: byte 0xe9 is not UTF-8 (is the file Latin-1?); save it as UTF-8",
    ),
}


def _first_problem(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "bad.yaml"
    path.write_bytes(data)
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path, shown=SHOWN)
    return str(info.value.problems[0])


@pytest.mark.parametrize("case", list(GOLDEN_TEXT_CASES))
def test_a_bad_golden_file_is_refused_with_its_line_and_the_fix(tmp_path: Path, case: str) -> None:
    text, message = GOLDEN_TEXT_CASES[case]
    assert _first_problem(tmp_path, text.encode("utf-8")) == message


def test_a_query_whose_id_yaml_misreads_is_named_as_written_in_every_problem(
    tmp_path: Path,
) -> None:
    """The id's own problem named query '1:30'; the next ones, of the same query, named
    query '90', an id the file never holds."""
    path = tmp_path / "bad.yaml"
    path.write_text("queries:\n  - {id: 1:30, query: q, relevant: {x: 9}}\n", encoding="utf-8")
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path, shown=SHOWN)
    assert [p.query_id for p in info.value.problems] == ["1:30", "1:30"]


@pytest.mark.parametrize("case", list(GOLDEN_BYTES_CASES))
def test_a_golden_file_in_another_encoding_is_named_with_its_line(
    tmp_path: Path, case: str
) -> None:
    data, message = GOLDEN_BYTES_CASES[case]
    assert _first_problem(tmp_path, data) == message


# characters that show as nothing and were accepted in ids: the combining grapheme
# joiner, variation selectors, tag characters, Hangul fillers, Khmer inherent vowels,
# Mongolian variation selectors
HIDDEN = [
    "\u034f", "\ufe00", "\ufe0f", "\U000e0100", "\U000e01ef", "\U000e0001", "\U000e0041",
    "\U000e007f", "\u3164", "\u115f", "\u1160", "\uffa0", "\u17b4", "\u17b5", "\u180b",
    "\u180f",
]  # fmt: skip


@pytest.mark.parametrize("char", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_an_id_holding_a_character_that_shows_as_nothing_is_refused(
    tmp_path: Path, char: str
) -> None:
    escaped = f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
    says = (
        f"holds an invisible character (U+{ord(char):04X}, copied from a web page or a "
        "document?): two ids would look the same; remove it"
    )
    query = f'queries:\n  - id: "q{char}"\n    query: q\n    relevant: {{x: 1}}\n'
    assert _first_problem(tmp_path, query.encode()) == (
        f"golden/bad.yaml:2: query 'q{escaped}': id 'q{escaped}' {says}"
    )
    judged = f'queries:\n  - id: a\n    query: q\n    relevant: {{"d{char}": 1}}\n'
    assert _first_problem(tmp_path, judged.encode()) == (
        f"golden/bad.yaml:4: query 'a': 'relevant': id 'd{escaped}' {says}"
    )


JSONL = "golden/bad.jsonl"
GOLDEN_JSONL_CASES: dict[str, tuple[str, str]] = {
    "defaults-twice": (
        '{"defaults": {"category": "c"}}\n{"defaults": {"category": "d"}}\n',
        "golden/bad.jsonl:2: a defaults line after line 1: a file has one, and it is its "
        "first line (its values apply to the queries below it); move it to the top",
    ),
    "not-json": (
        '{"id": "a", "query": "q", "relevant": {"x": 1}}\n{"id": "b", query: "q"}\n',
        "golden/bad.jsonl:2: query 'b': JSON syntax error: Expecting property name enclosed "
        "in double quotes (column 13); each line of a .jsonl golden file is one JSON object",
    ),
    "pretty-printed": (
        '{\n  "id": "a",\n  "query": "q"\n}\n',
        "golden/bad.jsonl:1: JSON syntax error: each line of a .jsonl golden file is one JSON "
        "object, on one line (is this a pretty-printed .json file? write one query per line)",
    ),
    "a-list-line": (
        '[{"id": "a", "query": "q", "relevant": {}}]\n',
        "golden/bad.jsonl:1: a list where a query object belongs; each line of a .jsonl golden "
        "file is one JSON object",
    ),
    "nan-grade": (
        '{"id": "a", "query": "q", "relevant": {"x": NaN}}\n',
        "golden/bad.jsonl:1: query 'a': NaN is not a number in JSON; write a number",
    ),
    "infinity-expect": (
        '{"id": "a", "query": "q", "relevant": {"x": 1}, "expect": {"mrr": -Infinity}}\n',
        "golden/bad.jsonl:1: query 'a': -Infinity is not a number in JSON; write a number",
    ),
    "trailing-comma": (
        '{"id": "a", "query": "q", "relevant": {"x": 1},}\n',
        "golden/bad.jsonl:1: query 'a': JSON syntax error: a trailing comma (column 47) before "
        "the '}' that closes the object (column 48): JSON allows no comma after the last item; "
        "remove it",
    ),
    "trailing-comma-in-a-list": (
        '\n{"id": 7, "query": "q", "relevant": ["x", "y", ]}\n',
        "golden/bad.jsonl:2: query '7': JSON syntax error: a trailing comma (column 46) before "
        "the ']' that closes the list (column 48): JSON allows no comma after the last item; "
        "remove it",
    ),
    "single-quotes": (
        "{'id': 'a', 'query': 'q', 'relevant': {}}\n",
        "golden/bad.jsonl:1: JSON syntax error: text in single quotes (column 2): JSON writes "
        "keys and text in double quotes",
    ),
    "unclosed": (
        '{"id": "a", "query": "q", "relevant": {"x": 1}\n',
        "golden/bad.jsonl:1: query 'a': JSON syntax error: the line ends inside an object or a "
        "list (Expecting ',' delimiter, column 47): a closing '}' or ']' is missing; each line "
        "of a .jsonl golden file is one JSON object",
    ),
    "misspelled-relevant": (
        '{"id": "a", "query": "q", "relevent": {"x": 1}}\n',
        "golden/bad.jsonl:1: query 'a': unknown key 'relevent' (did you mean 'relevant'?)",
    ),
    "misspelled-query": (
        '{"id": "a", "querry": "q", "relevant": {"x": 1}}\n',
        "golden/bad.jsonl:1: query 'a': unknown key 'querry' (did you mean 'query'?)",
    ),
    "repeated-key": (
        '{"id": "a", "query": "q", "query": "r", "relevant": {"x": 1}}\n',
        "golden/bad.jsonl:1: query 'a': key 'query' appears twice in one object; keep one: "
        "only the last would count",
    ),
    "repeated-judgment": (
        '\n\n{"id": "a", "query": "q", "relevant": {"x": 1, "x": 2}}\n',
        "golden/bad.jsonl:3: query 'a': key 'x' appears twice in one object; keep one: "
        "only the last would count",
    ),
    "a-string-line": (
        '"just text"\n',
        "golden/bad.jsonl:1: each query must be a mapping with 'id', 'query' and 'relevant', "
        "got text",
    ),
    "missing-relevant-line-3": (
        '{"id": "a", "query": "q", "relevant": {}}\n\n{"id": "b", "query": "q"}\n',
        "golden/bad.jsonl:3: query 'b': 'relevant' is missing (required); write "
        "'\"relevant\": {}' for a no-result query",
    ),
    "null-relevant": (
        '{"id": "a", "query": "q", "relevant": null}\n',
        "golden/bad.jsonl:1: query 'a': 'relevant' is empty; write '\"relevant\": {}' for a "
        'no-result query, or map ids to grades ({"doc-id": 3})',
    ),
    "float-grade": (
        '{"id": "a", "query": "q", "relevant": {"x": 1.5}}\n',
        "golden/bad.jsonl:1: query 'a': grade of 'x' must be an integer 0..3, got a number 1.5; grades are whole numbers: "
        "for a finer scale, multiply every grade and retrieval_max_grade alike (1.5 -> 3 with twice the maximum)",
    ),
    "bool-grade": (  # JSON's true is a boolean as written: no word of YAML's yes and no
        '{"id": "a", "query": "q", "relevant": {"x": true}}\n',
        "golden/bad.jsonl:1: query 'a': grade of 'x' is the boolean true, not a number; write a number 0..3 (0 = judged not relevant)",
    ),
    "bool-id": (
        '{"id": false, "query": "q", "relevant": {}}\n',
        "golden/bad.jsonl:1: 'id' must be non-empty text, got a boolean (quote the id)",
    ),
    "null-id": (
        '{"id": null, "query": "q", "relevant": {}}\n',
        "golden/bad.jsonl:1: 'id' must be non-empty text, got nothing (null)",
    ),
    "duplicate-ids": (
        '{"id": "a", "query": "q", "relevant": {}}\n{"id": "a", "query": "r", "relevant": {}}\n',
        "golden/bad.jsonl:2: query 'a': duplicate id (first used on line 1); ids must be "
        "unique across the golden set",
    ),
    "relevant-id-padded": (  # a no-break space, which str.strip takes too
        '{"id": "a", "query": "q", "relevant": {"x": 1, "doc1\\u00a0": 2}}\n',
        "golden/bad.jsonl:1: query 'a': 'relevant': id 'doc1\\xa0' has white space at its start "
        "or end, so no result id matches it; write 'doc1'",
    ),
    "duplicate-ids-decomposed": (  # the second written with escapes: e + U+0301
        '{"id": "caf\u00e9", "query": "q", "relevant": {}}\n'
        '{"id": "cafe\\u0301", "query": "r", "relevant": {}}\n',
        "golden/bad.jsonl:2: query 'cafe\u0301': duplicate id (first used on line 1, written "
        "'caf\\xe9' there and 'cafe\\u0301' here: the same text in two Unicode forms (composed "
        "and decomposed characters), which look alike); ids must be unique across the golden set",
    ),
    "unknown-key": (
        '{"id": "a", "query": "q", "relevent": {}}\n',
        "golden/bad.jsonl:1: query 'a': unknown key 'relevent' (did you mean 'relevant'?)",
    ),
    "defaults-not-first": (
        '{"id": "a", "query": "q", "relevant": {}}\n{"defaults": {"category": "c"}}\n',
        "golden/bad.jsonl:2: a defaults line after the queries: a file has one, and it is its "
        "first line (its values apply to the queries below it); move it to the top",
    ),
    "bad-defaults": (
        '{"defaults": {"categroy": "c"}}\n{"id": "a", "query": "q", "relevant": {}}\n',
        "golden/bad.jsonl:1: unknown key 'categroy' in defaults (did you mean 'category'?)",
    ),
    "only-blank-lines": (
        "\n\n  \n",
        "golden/bad.jsonl:1: the file holds no queries; write one JSON object per line",
    ),
    "deep-nesting": (
        '{"id": "a", "query": "q", "relevant": {}, "filters": {"f": '
        + "[" * 100_000
        + "]" * 100_000
        + "}}\n",
        "golden/bad.jsonl:1: values are nested more than 64 levels deep; a golden query needs a few levels at most: flatten the value (a filters value, say)",
    ),
    # found by fuzz/fuzz_golden.py
    "integer-too-long": (
        '{"id": "a", "query": "q", "relevant": {"x": ' + "9" * 4400 + "}}\n",
        "golden/bad.jsonl:1: a number has more than 4300 digits, more than Python reads; write a shorter number, or quote it to keep it as text",
    ),
    "lone-surrogate-id": (
        '{"id": "a\\ud800", "query": "q", "relevant": {}}\n',
        "golden/bad.jsonl:1: the text 'a\\ud800' holds \\ud800, half of a UTF-16 surrogate pair and not a character; write the character itself, or both escapes of its pair",
    ),
    "lone-surrogate-in-filters": (
        '{"id": "a", "query": "q", "relevant": {}}\n{"id": "b", "query": "q", "relevant": {}, "filters": {"k": ["\\udfff"]}}\n',
        "golden/bad.jsonl:2: the text '\\udfff' holds \\udfff, half of a UTF-16 surrogate pair and not a character; write the character itself, or both escapes of its pair",
    ),
    "nested-500": (
        '{"id": "a", "query": "q", "relevant": {}}\n{"id": "b", "query": "q", "relevant": {}, "filters": {"f": '
        + "[" * 500
        + "]" * 500
        + "}}\n",
        "golden/bad.jsonl:2: values are nested more than 64 levels deep; a golden query needs a few levels at most: flatten the value (a filters value, say)",
    ),
    "id-with-escape-character": (
        '{"id": "a\\u001bb", "query": "q", "relevant": {}}\n',
        "golden/bad.jsonl:1: query 'a\\x1bb': id 'a\\x1bb' holds a tab, a newline or another control character; remove it",
    ),
    "category-with-a-tab": (
        '{"id": "a", "query": "q", "category": "x\\t", "relevant": {}}\n',
        "golden/bad.jsonl:1: query 'a': category 'x\\t' holds a tab, a newline or another control character; remove it",
    ),
    "default-category-zero-width-joiner": (
        '{"defaults": {"category": "\\u200dx"}}\n{"id": "a", "query": "q", "relevant": {}}\n',
        "golden/bad.jsonl:1: in defaults: category '\\u200dx' holds an invisible character (U+200D, copied from a web page or a document?): two categories would look the same; remove it",
    ),
    "key-with-a-newline": (
        '{"id": "a", "query": "q", "relevant": {}, "x\\ny": 1}\n',
        "golden/bad.jsonl:1: query 'a': unknown key 'x\\ny'; valid keys: id, query, category, tags, filters, relevant, expect, forbid, skip, xfail",
    ),
}


@pytest.mark.parametrize("case", list(GOLDEN_JSONL_CASES))
def test_a_bad_jsonl_golden_file_is_refused_with_its_line(tmp_path: Path, case: str) -> None:
    text, message = GOLDEN_JSONL_CASES[case]
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path, shown=JSONL)
    assert str(info.value.problems[0]) == message


def test_a_jsonl_golden_file_loads_as_its_yaml_twin_does(tmp_path: Path) -> None:
    yaml_path, jsonl_path = tmp_path / "g.yaml", tmp_path / "g.JSONL"
    yaml_path.write_text(
        "defaults: {category: paraphrase}\n"
        "queries:\n"
        "  - {id: a, query: q, relevant: {x: 3, y: 0}, expect: {mrr: 0.5}, tags: [t]}\n"
        "  - {id: 7, query: r, relevant: [x], forbid: [z], category: exact, skip: why}\n"
    )
    jsonl_path.write_text(
        '{"defaults": {"category": "paraphrase"}}\n'
        '{"id": "a", "query": "q", "relevant": {"x": 3, "y": 0}, "expect": {"mrr": 0.5},'
        ' "tags": ["t"]}\n'
        '{"id": 7, "query": "r", "relevant": ["x"], "forbid": ["z"], "category": "exact",'
        ' "skip": "why"}\n'
    )
    from_yaml = load_golden_file(yaml_path, shown="g")
    from_jsonl = load_golden_file(jsonl_path, shown="g")
    assert [(q.id, q.line) for q in from_jsonl] == [("a", 2), ("7", 3)]
    assert [q.fingerprint for q in from_jsonl] == [q.fingerprint for q in from_yaml]
    for ours, theirs in zip(from_jsonl, from_yaml, strict=True):
        assert (ours.relevant, ours.category, ours.expect, ours.forbid, ours.skip) == (
            theirs.relevant,
            theirs.category,
            theirs.expect,
            theirs.forbid,
            theirs.skip,
        )


GOOD_YAML = {
    "utf8-bom": "\ufeffqueries:\n  - {id: a, query: q, relevant: {x: 1}}\n",
    "merge-keys": (
        "x-base: &base {category: paraphrase, tags: [core]}\n"
        "queries:\n"
        "  - {<<: *base, id: a, query: q, relevant: {x: 1}}\n"
    ),
    "anchors-for-judgments": (
        "queries:\n"
        "  - {id: a, query: q, relevant: &judged {x: 3, y: 1}}\n"
        "  - {id: b, query: q2, relevant: *judged}\n"
    ),
    "quoted-number-id": "queries:\n  - {id: '00123', query: q, relevant: {'0x1F': 1}}\n",
    "integer-id": "queries:\n  - {id: 42, query: q, relevant: {7: 1}}\n",
    "merge-key-override": (  # a key of its own overrides the merged one: no repeated key
        "x-base: &base {category: paraphrase, tags: [core]}\n"
        "x-other: &other {skip: why}\n"
        "queries:\n  - {<<: [*base, *other], id: a, query: q, relevant: {x: 1}, tags: [mine]}\n"
    ),
    "merge-chain": (  # 40 merges deep is 40 references, not 80 levels of nesting
        "x-m0: &m0 {category: paraphrase}\n"
        + "".join(
            f"x-m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}], tags: [t{i}]}}\n" for i in range(1, 41)
        )
        + "queries:\n  - {<<: *m40, id: a, query: q, relevant: {x: 1}}\n"
    ),
}


@pytest.mark.parametrize("case", list(GOOD_YAML))
def test_valid_yaml_features_load(tmp_path: Path, case: str) -> None:
    """Merge keys, anchors, a byte-order mark and quoted numbers are valid YAML and work."""
    path = tmp_path / "good.yaml"
    path.write_text(GOOD_YAML[case], encoding="utf-8")
    queries = load_golden_file(path, shown=SHOWN)
    assert queries
    if case == "merge-keys":
        assert (queries[0].category, queries[0].tags) == ("paraphrase", ("core",))
    if case == "quoted-number-id":
        assert (queries[0].id, dict(queries[0].relevant)) == ("00123", {"0x1F": 1})
    if case == "integer-id":
        assert (queries[0].id, dict(queries[0].relevant)) == ("42", {"7": 1})
    if case == "merge-key-override":
        assert (queries[0].category, queries[0].tags, queries[0].skip) == (
            "paraphrase",
            ("mine",),
            "why",
        )
    if case == "merge-chain":
        assert (queries[0].category, queries[0].tags) == ("paraphrase", ("t40",))
    if case == "anchors-for-judgments":
        assert queries[1].relevant == {"x": 3, "y": 1}


def _second_file_refused(tmp_path: Path, first: str, second: str) -> str:
    """golden/a.yaml then golden/b.yaml (each one query, its YAML flow mapping given) added
    to one golden set: the first problem of the second, which must be refused."""
    from pytest_retrieval.golden import GoldenSet

    golden = GoldenSet()
    files = []
    for name, query in (("a.yaml", first), ("b.yaml", second)):
        path = tmp_path / name
        path.write_text(f"queries:\n  - {{{query}}}\n", encoding="utf-8")
        files.append(load_golden_file(path, shown=f"golden/{name}"))
    golden.add_file(files[0])
    with pytest.raises(GoldenFileError) as info:
        golden.add_file(files[1])
    return str(info.value.problems[0])


def test_a_category_spelled_two_ways_is_refused(tmp_path: Path) -> None:
    said = _second_file_refused(
        tmp_path,
        "id: a, query: q, category: paraphrase, relevant: {}",
        "id: b, query: q, category: Paraphrase, relevant: {}",
    )
    assert said == (
        "golden/b.yaml:2: query 'b': category 'Paraphrase' differs only in case from "
        "'paraphrase' (golden/a.yaml:2): the tables would show two rows; use one spelling"
    )


def test_a_tag_spelled_two_ways_is_refused(tmp_path: Path) -> None:
    """They were two groups under --retrieval-group-by tags, in silence."""
    said = _second_file_refused(
        tmp_path,
        "id: a, query: q, tags: [core], relevant: {}",
        "id: b, query: q, tags: [slow, Core], relevant: {}",
    )
    assert said == (
        "golden/b.yaml:2: query 'b': tag 'Core' differs only in case from 'core' "
        "(golden/a.yaml:2): --retrieval-group-by tags would show two groups; use one spelling"
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [("caf\u00e9", "cafe\u0301"), ("cafe\u0301", "caf\u00e9"), ("K1", "\u212a1")],
    ids=["composed-first", "decomposed-first", "kelvin-sign"],
)
def test_an_id_in_two_unicode_forms_across_files_is_one_id(
    tmp_path: Path, first: str, second: str
) -> None:
    said = _second_file_refused(
        tmp_path,
        f"id: {first}, query: q, relevant: {{}}",
        f"id: {second}, query: q, relevant: {{}}",
    )
    assert said == (
        f"golden/b.yaml:2: query '{second}': duplicate id: already used in golden/a.yaml:2, "
        f"written {first!a} there and {second!a} here: the same text in two Unicode forms "
        "(composed and decomposed characters), which look alike; ids must be unique across "
        "the golden set"
    )


@pytest.mark.parametrize("key", ["tags", "category"])
def test_a_tag_or_category_in_two_unicode_forms_across_files_is_refused(
    tmp_path: Path, key: str
) -> None:
    value = "[{}]" if key == "tags" else "{}"
    composed, decomposed = value.format("caf\u00e9"), value.format("cafe\u0301")
    said = _second_file_refused(
        tmp_path,
        f"id: a, query: q, {key}: {composed}, relevant: {{}}",
        f"id: b, query: q, {key}: {decomposed}, relevant: {{}}",
    )
    what = "tag" if key == "tags" else "category"
    rows = "groups" if key == "tags" else "rows"
    assert said == (
        f"golden/b.yaml:2: query 'b': {what} 'cafe\u0301' is {what} 'caf\u00e9' of "
        "golden/a.yaml:2, written 'caf\\xe9' there and 'cafe\\u0301' here: the same text in "
        "two Unicode forms (composed and decomposed characters), which look alike: the "
        f"tables would show two {rows}; use one spelling"
    )


def test_a_tag_listed_twice_in_two_unicode_forms_by_one_query_is_named_once(
    tmp_path: Path,
) -> None:
    # it was named a second time at the query's line, as the tag "of" that same query
    path = tmp_path / "bad.yaml"
    path.write_text(
        "queries:\n  - id: a\n    query: q\n    relevant: {x: 1}\n"
        "    tags: [caf\u00e9, cafe\u0301]\n",
        encoding="utf-8",
    )
    from pytest_retrieval.golden import GoldenSet

    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path, shown=SHOWN)
    across = GoldenSet().problems_across(info.value)  # as collection adds them
    assert [str(p) for p in [*info.value.problems, *across]] == [
        "golden/bad.yaml:5: query 'a': 'tags' lists 'cafe\u0301' twice, written 'caf\\xe9' "
        "there and 'cafe\\u0301' here: the same text in two Unicode forms (composed and "
        "decomposed characters), which look alike: the query would count in two groups "
        "that look alike; keep one"
    ]


# --------------------------------------------------------------------------- retriever results

RESULT_CASES: dict[str, tuple[object, str]] = {
    "none": (
        None,
        "the retriever returned None; return a ranked list of results ([] when nothing matches)",
    ),
    "number": (5, "the retriever returned int 5, not a ranked sequence of results"),
    "float": (0.5, "the retriever returned float 0.5, not a ranked sequence of results"),
    "text": (
        "doc-1",
        "the retriever returned a bare string (str 'doc-1'); return a list of results, e.g. [doc_id, ...]",
    ),
    "bytes": (
        b"doc-1",
        "the retriever returned binary data (bytes b'doc-1'), not a ranking (iterating it gives byte values); return a list of results, e.g. [doc_id, ...]",
    ),
    "bytearray": (
        bytearray(b"d1"),
        "the retriever returned binary data (bytearray(b'd1')), not a ranking (iterating it gives byte values); return a list of results, e.g. [doc_id, ...]",
    ),
    "memoryview": (
        memoryview(b"d1"),
        "the retriever returned binary data (memoryview <memory at ",
    ),
    "zero-d-array": (
        ZeroD(),
        "the retriever returned ZeroD zero-d, a 0-d array (one value), not a ranked sequence of results; return a list of results (a 1-d array's .tolist())",
    ),
    "mapping": (
        {"doc-1": "relevant"},
        "the retriever returned a mapping (dict {'doc-1': 'relevant'}), which has no rank order; return a list such as [(doc_id, score), ...]",
    ),
    "response-body": (  # a service's JSON, not its hits
        {"hits": [{"id": "doc-1"}], "took": 3},
        "the retriever returned a mapping (dict {'hits': [{'id': 'doc-1'}], 'took': 3}), which has no rank order: a service's response body? return the list it holds, body['hits'], or a list such as [(doc_id, score), ...]",
    ),
    "response-body-nested": (  # Elasticsearch's
        {"took": 3, "hits": {"total": 1, "hits": [{"_id": "doc-1"}]}},
        "the retriever returned a mapping (dict {'took': 3, 'hits': {'total': 1, 'hits': [{'_id': 'doc-1'}]}}), which has no rank order: a service's response body? return the list it holds, body['hits']['hits'], or a list such as [(doc_id, score), ...]",
    ),
    "mapping-of-scores": (  # a run's dict, as ranx and pytrec_eval take one
        {"doc-1": 0.9, "doc-2": 3},
        "the retriever returned a mapping of scores (dict {'doc-1': 0.9, 'doc-2': 3}), which has no rank order; rank it: return sorted(scores.items(), key=lambda item: item[1], reverse=True)",
    ),
    "one-result": (
        {"id": "doc-1", "score": 0.9},
        "the retriever returned one result (dict {'id': 'doc-1', 'score': 0.9}), not a ranking; return a list of results, best first ([result, ...])",
    ),
    "set": (
        {"a"},
        "the retriever returned a set (set {'a'}), which has no rank order; return a list",
    ),
    "mock": (  # iterates as empty: a no-result query scored 1.0 under abstain
        unittest.mock.MagicMock(),
        "the retriever returned a MagicMock from unittest.mock, not a ranking (a mock whose return value was never set? a MagicMock reads as no results, which a no-result query scores 1.0 for); set it: mock.return_value = [doc_id, ...]",
    ),
    "dataframe-vowel": (  # was "returned a EmbeddingFrame"
        type("EmbeddingFrame", (FakeFrame,), {})(),
        "the retriever returned an EmbeddingFrame (iterating it gives its column names, not results); return df['id'].tolist() or list(df.itertuples())",
    ),
    "dataframe": (
        FakeFrame(),
        "the retriever returned a FakeFrame (iterating it gives its column names, not results); return df['id'].tolist() or list(df.itertuples())",
    ),
    "float-item": (
        [1.5],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: float 1.5",
    ),
    "none-item": (
        [None],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: NoneType None; each result is a document's id (or an (id, score) pair): drop results without one",
    ),
    "enumerate": (
        list(enumerate(["a", "b"])),
        "result at rank 1 is a pair whose second item is not a score: tuple (0, 'a'); return ids or (id, score) pairs (list(enumerate(ids)) gives (position, id) pairs)",
    ),
    "score-id-swapped": (
        [(0.9, "a")],
        "result at rank 1 is a pair whose second item is not a score: tuple (0.9, 'a'); return ids or (id, score) pairs (this looks like (score, id): swap them, [(d, s) for s, d in results])",
    ),
    "mapping-no-id": (
        [{"score": 1.0}],
        "result at rank 1 is a mapping without an 'id' key: dict {'score': 1.0}; a mapping is read by its 'id' key (and 'score', if any): return {'id': ..., 'score': ...} mappings (or (id, score) pairs), or map each result to its judged id with the pytest_retrieval_result_key hook in conftest.py (docs/metrics.md#stable-judgment-keys)",
    ),
    "mapping-doc-id": (
        [{"doc_id": "pancakes", "score": 1.0}],
        "result at rank 1 is a mapping without an 'id' key: dict {'doc_id': 'pancakes', 'score': 1.0}; its 'doc_id' looks like the id, but a mapping is read by its 'id' key (and 'score', if any): return {'id': r['doc_id'], 'score': ...} mappings (or (id, score) pairs), or map each result to its judged id with the pytest_retrieval_result_key hook in conftest.py (docs/metrics.md#stable-judgment-keys)",
    ),
    "mapping-document-id": (
        [{"documentId": "pancakes"}],
        "result at rank 1 is a mapping without an 'id' key: dict {'documentId': 'pancakes'}; its 'documentId' looks like the id",
    ),
    "object-no-id": (
        [object()],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: object <",
    ),
    "score-as-text": (
        [("a", "0.9")],
        "result at rank 1 is a pair whose second item is not a score: tuple ('a', '0.9'); return ids or (id, score) pairs (the score is text: return float(score))",
    ),
    "triple": (
        [("a", 0.9, "x")],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: tuple ('a', 0.9, 'x'); a pair is (id, score), this tuple has 3 items: return (id, score) pairs, or {'id': ..., 'score': ...} mappings",
    ),
    "list-of-three": (
        [["a", 0.9, 1]],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: list ['a', 0.9, 1]; a pair is (id, score), this list has 3 items",
    ),
    "bool-item": (
        [True],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: bool True; each result is a document's id (or an (id, score) pair): drop results without one",
    ),
    "id-float": (
        [{"id": 1.5}],
        "result at rank 1 has an id that is not text: float 1.5; ids are text or integers, "
        "not floats (an array of ids as floats?): return int(doc_id), or ids.astype(int) for "
        "an array",
    ),
    "float-item-integral": (
        [1.0],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object "
        "with .id: float 1.0; ids are text or integers, not floats",
    ),
    "bytes-item": (
        [b"a"],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: bytes b'a'; ids are text: decode them (doc_id.decode())",
    ),
    "bytes-id-in-a-pair": (
        [(b"a", 0.5)],
        "result at rank 1 has an id that is not text: bytes b'a'; ids are text: decode them",
    ),
    "nested-list": (
        [["a", "b"]],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an object with .id: list ['a', 'b']; each result is a list of ids here: rankings (one per query?) came back for one query: return its ranking (results[0]), or answer many queries in one call with retrieve_batch (docs/retrievers.md)",
    ),
    "endless": (
        itertools.count(),
        "the retriever returned more than 1,000,000 results (count(",
    ),
    "huge-int": (
        [10**5000],
        "result at rank 1 is an integer id too long to write as text (16610 bits); return ids as text",
    ),
    "empty-id": (
        ["a", ""],
        "result at rank 2 has an empty id ''; ids are non-empty text, as in the golden files (a result whose id field was missing?)",
    ),
    "empty-id-pair": (
        [("", 1.0)],
        "result at rank 1 has an empty id ''; ids are non-empty text, as in the golden files (a result whose id field was missing?)",
    ),
    "empty-id-mapping": (
        [{"id": "x"}, {"id": ""}],
        "result at rank 2 has an empty id ''; ids are non-empty text, as in the golden files (a result whose id field was missing?)",
    ),
    "nan-score": (
        [("a", 0.5), ("b", float("nan"))],
        "result at rank 2 has the score nan: tuple ('b', nan); the retriever's scores hold NaN or an infinity (a zero vector's cosine is NaN), and a ranking sorted by them is arbitrary: return finite scores, or ids alone",
    ),
    "infinite-score-list": (
        [["a", float("-inf")]],
        "result at rank 1 has the score -inf: list ['a', -inf]; the retriever's scores hold NaN",
    ),
    "nan-score-mapping": (
        [{"id": "a", "score": float("nan")}],
        "result at rank 1 has the score nan: dict {'id': 'a', 'score': nan}; the retriever's scores hold NaN",
    ),
    "nan-score-object": (
        [types.SimpleNamespace(id="a", score=float("nan"))],
        "result at rank 1 has the score nan: SimpleNamespace namespace(id='a', score=nan); the retriever's",
    ),
    "text-score-mapping": (
        [{"id": "d0", "score": 1.0}, {"id": "d1", "score": "0.9"}],
        "result at rank 2 has the score str '0.9', not a number: dict {'id': 'd1', 'score': '0.9'}; return the score as a number (float(score)), or leave it out",
    ),
    "text-score-object": (
        [types.SimpleNamespace(id="a", score="high")],
        "result at rank 1 has the score str 'high', not a number: SimpleNamespace namespace(id='a', score='high'); return the score as a number",
    ),
    "faiss-padding": (  # FAISS pads with -1 when it finds fewer than k
        [7, 3, -1, -1],
        "result at rank 3 has the id -1: FAISS pads its results with -1 when it finds fewer than k, and -1 is no document; drop them: [i for i in ids if i != -1]",
    ),
    "faiss-padding-pair": (
        [(7, 0.9), (-1, 3.4e38)],
        "result at rank 2 has the id -1: FAISS pads its results with -1",
    ),
    "faiss-padding-as-text": (  # [str(i) for i in I[0]]
        ["7", "-1"],
        "result at rank 2 has the id '-1': FAISS pads its results with -1 when it finds fewer than k, and -1 is no document; drop them: [i for i in ids if i != '-1']",
    ),
    "faiss-padding-as-text-pair": (
        [("7", 0.5), ("-1", 0.0)],
        "result at rank 2 has the id '-1': FAISS pads its results with -1",
    ),
    "padded-id": (
        ["a", " b"],
        "result at rank 2 has the id str ' b', with white space at its start or end, which no judgment matches (the golden files refuse such ids); return 'b' (strip the ids)",
    ),
    "padded-id-after-inner-spaces": (
        ["doc 1", "doc 2", "doc 3\n"],
        "result at rank 3 has the id str 'doc 3\\n', with white space at its start or end",
    ),
    "padded-id-pair": (
        [("a", 1.0), ("b\u00a0", 0.5)],
        "result at rank 2 has the id str 'b\\xa0', with white space at its start or end",
    ),
    "padded-id-mapping": (
        [{"id": "a"}, {"id": "b "}],
        "result at rank 2 has the id str 'b ', with white space at its start or end",
    ),
    "huge-integer-score": (
        [("d1", 10**400)],
        "result at rank 1 has a score too large for a float, not a finite number: tuple ('d1', "
        "1000",
    ),
    "huge-integer-score-mapping": (
        [{"id": "a", "score": 1}, {"id": "b", "score": 10**5000}],  # past repr's digit limit
        "result at rank 2 has a score too large for a float, not a finite number: dict (too "
        "long to show); return finite scores (float(score) must not overflow), or ids alone",
    ),
    "chunk-object": (  # the repr names the type: not "Chunk Chunk(...)"
        [Chunk("Refunds take five days.", {"source": "refunds"})],
        "result at rank 1 is not an id, an (id, score) pair, a mapping with 'id' or an "
        "object with .id: Chunk(page_content='Refunds take five days.', metadata={'source': "
        "'refunds'}); to judge it by a field (a chunk's metadata['source'])",
    ),
    "bool-score": (
        [("a", True)],
        "result at rank 1 has the score True, a bool: tuple ('a', True); a score is a number (an (id, is_relevant) pair?): return (id, score) pairs or ids",
    ),
}


@pytest.mark.parametrize("case", list(RESULT_CASES))
def test_a_result_that_is_no_ranking_is_refused_saying_what_came_back(case: str) -> None:
    from pytest_retrieval.shapes import ResultShapeError, rank_results

    returned, message = RESULT_CASES[case]
    with pytest.raises(ResultShapeError) as raised:
        rank_results(returned)
    assert str(raised.value).startswith(message), str(raised.value)


def test_an_awaitable_not_awaited_is_refused_saying_to_await_it() -> None:
    """``return [search(q) for q in queries]`` in a batch: a list of coroutines."""
    from pytest_retrieval.shapes import ResultShapeError, rank_results

    async def search() -> list[str]:
        return ["d1"]

    coroutine = search()
    with pytest.raises(ResultShapeError) as raised:
        rank_results(coroutine)
    assert coroutine.cr_frame is None  # closed: no "never awaited" warning later
    assert str(raised.value).startswith("the retriever returned coroutine <coroutine object")
    assert str(raised.value).endswith(
        ", an awaitable not awaited; await it (for a batch's list of them: return await "
        "asyncio.gather(*calls))"
    )


@pytest.mark.parametrize("value", [5, "d1", 0.5])
def test_a_numpy_0d_array_is_refused_as_a_result_not_raised_inside_the_plugin(
    value: object,
) -> None:
    np = pytest.importorskip("numpy")
    from pytest_retrieval.shapes import ResultShapeError, rank_results

    with pytest.raises(ResultShapeError, match=r"^the retriever returned ndarray array\("):
        rank_results(np.array(value))


def test_an_id_judged_in_another_unicode_form_is_refused_naming_both_forms() -> None:
    """'café' composed in the golden file and decomposed from the retriever (or the other
    way round) look alike and never match: the judgment would be missed without a word."""
    from pytest_retrieval.shapes import other_form

    composed, decomposed = "caf\u00e9", "cafe\u0301"
    found = other_form(["d1", decomposed], [composed])
    assert str(found).startswith(
        "result at rank 2 has the id 'cafe\\u0301', which the golden file writes "
        "'caf\\xe9': the same text in two Unicode forms"
    )
    assert other_form([composed], ["x", decomposed]) is not None  # a forbid id alike
    assert other_form([composed, decomposed], [composed, decomposed]) is None  # both judged
    assert other_form(["d1", composed], ["d1"]) is None
    assert other_form(["d1"], [decomposed]) is None

    from pytest_retrieval.golden import GoldenQuery
    from pytest_retrieval.scoring import score_query
    from pytest_retrieval.shapes import ResultShapeError

    query = GoldenQuery("q", "coffee", relevant={composed: 2})
    with pytest.raises(ResultShapeError, match="two Unicode forms"):
        score_query(query, "default", [decomposed], Settings())

    from pytest_retrieval.offline import Recorded, score_runs

    scored = score_runs([query], [Recorded("run", {"q": [decomposed]})], Settings())
    record = scored.results.by_configuration["run"]["q"]
    assert record.outcome == "error" and "two Unicode forms" in str(record.error)


def test_a_whole_corpus_ranked_is_refused_saying_to_return_its_top_k_on_one_line() -> None:
    """np.argsort(scores)[::-1] over a corpus of 2,000,000 documents: the message was
    cut inside the array's repr, across lines ("...,\\n shap...: an endless iterator,
    cut there?"), and guessed an endless iterator for a list or an array."""
    np = pytest.importorskip("numpy")
    from pytest_retrieval.shapes import ResultShapeError, rank_results

    for returned, what in (
        (np.arange(2_000_000)[::-1], "ndarray array([1999999, 1999998, "),
        (["d"] * 1_000_001, "a list"),
    ):
        with pytest.raises(ResultShapeError) as raised:
            rank_results(returned)
        text = str(raised.value)
        assert "\n" not in text and "endless" not in text, text
        assert text.startswith(f"the retriever returned more than 1,000,000 results ({what}")
        assert text.endswith(
            "); a ranking is the top results, best first: return the top k of them "
            "(results[:100], or itertools.islice(results, 100) for an iterator that does not "
            "end)"
        ), text


def test_an_array_per_result_is_refused_saying_to_return_one_row_of_ids() -> None:
    """A 2-d array, or a vector index's (distances, ids) returned whole for one query:
    each result is an array, and the message says to return a row of ids, not to
    write a result-key hook."""
    np = pytest.importorskip("numpy")
    from pytest_retrieval.shapes import ResultShapeError, rank_results

    distances, ids = np.array([[0.9, 0.5]]), np.array([[4, 2]])
    for returned, shape in ((ids, "(2,)"), ((distances, ids), "(1, 2)")):
        with pytest.raises(ResultShapeError) as raised:
            rank_results(returned)
        assert str(raised.value).endswith(
            f"; each result is an array here (shape {shape}): a 2-d array, or a vector "
            "index's (distances, ids), came back for one query; return its row of ids (ids[0])"
        ), str(raised.value)


def test_results_near_the_refused_shapes_are_read() -> None:
    """Inner white space, a score left out or null, a namedtuple whose second field is no
    score: read as before."""
    from pytest_retrieval.shapes import rank_results, ranked_results

    hit = collections.namedtuple("hit", ["id", "text"])
    assert rank_results(["doc 1", "doc\u00a02"]).ranking == ["doc 1", "doc\u00a02"]
    assert rank_results([("doc 1", 0.5), ("d2", 0.25)]).ranking == ["doc 1", "d2"]
    returned = [{"id": "a", "score": None}, {"id": "b"}, hit("c", "some text"), ("d", 1)]
    assert ranked_results(returned) == (["a", "b", "c", "d"], [None, None, None, 1.0])


_LONG_SHOWN = "'" + "x" * 40 + "...' (3,000 characters)"  # 3,000 x as a message shows them

SETTING_CASES: dict[str, tuple[dict[str, str | list[str]], str]] = {
    "decimal-comma": (
        {"retrieval_tolerance": "0,02"},
        "retrieval_tolerance: '0,02' has a decimal comma; write a point: 0.02",
    ),
    "two-defaults": (
        {"retrieval_tolerance": "0.02 0.05"},
        "retrieval_tolerance gives 2 default tolerances (0.02, 0.05); keep one, and name a metric for the others (mrr=0.05)",
    ),
    "metric-twice": (
        {"retrieval_tolerance": "mrr=0.1 RR=0.2"},
        "retrieval_tolerance gives mrr twice ('RR=0.2'); keep one",
    ),
    "never-fails-abs": (
        {"retrieval_tolerance": "1"},
        "retrieval_tolerance: '1' can never fail: metrics lie in 0..1, so a tolerance of 1 or more allows every drop; write a drop the gate should catch (0.02, 2%)",
    ),
    "never-fails-rel": (
        {"retrieval_tolerance": "150%"},
        "retrieval_tolerance: '150%' can never fail: metrics lie in 0..1, so a tolerance of 100% or more allows every drop; write a drop the gate should catch (0.02, 2%)",
    ),
    "tolerance-word": (
        {"retrieval_tolerance": "lenient"},
        "retrieval_tolerance: 'lenient' is not a tolerance; write an absolute drop (0.02) or a relative one (2%)",
    ),
    "tolerance-negative": (
        {"retrieval_tolerance": "-0.1"},
        "retrieval_tolerance: '-0.1' is not a tolerance; write an absolute drop (0.02) or a relative one (2%)",
    ),
    # was "'' is not a tolerance" and "unknown metric ''": neither named the word
    "tolerance-metric-without-value": (
        {"retrieval_tolerance": "0.02 mrr="},
        "retrieval_tolerance: 'mrr=' is not metric=tolerance: mrr is given no value; write a metric and its allowed drop (mrr=0.05, ndcg@10=1%)",
    ),
    "tolerance-value-without-metric": (
        {"retrieval_tolerance": "=0.1"},
        "retrieval_tolerance: '=0.1' is not metric=tolerance: no metric is named; write a metric and its allowed drop (mrr=0.05, ndcg@10=1%)",
    ),
    "tolerance-not-computed": (
        {"retrieval_tolerance": "0.02 map=0.1"},
        "retrieval_tolerance names map, which this run does not compute (retrieval_metrics: ndcg@10 mrr recall@20)",
    ),
    "gate-metric-not-computed": (
        {"retrieval_gate_metrics": "map"},
        "retrieval_gate_metrics names map, which this run does not compute (retrieval_metrics: ndcg@10 mrr recall@20)",
    ),
    "bootstrap-small": (
        {"retrieval_bootstrap": "50"},
        "retrieval_bootstrap must be 0 (normal intervals, no resampling) or at least 100, got 50: fewer resamples make percentile intervals meaningless",
    ),
    "bootstrap-negative": (
        {"retrieval_bootstrap": "-1"},
        "retrieval_bootstrap must be an integer >= 0, got -1",
    ),
    "bootstrap-word": (
        {"retrieval_bootstrap": "many"},
        "retrieval_bootstrap must be an integer >= 0, got 'many'",
    ),
    "alpha-one": ({"retrieval_alpha": "1"}, "retrieval_alpha must be a number in (0, 1), got 1.0"),
    "alpha-nan": (
        {"retrieval_alpha": "nan"},
        "retrieval_alpha must be a number in (0, 1), got nan",
    ),
    "weights-twice": (
        {"retrieval_weights": "exact-name=0.9 paraphrase=0.1 exact-name=0.1"},
        "retrieval_weights gives exact-name twice ('exact-name=0.1'); keep one",
    ),
    "bootstrap-huge": (
        {"retrieval_bootstrap": "100000000"},
        "retrieval_bootstrap must be at most 1,000,000, got 100,000,000: past that the "
        "intervals do not change in the third decimal and the run's end takes minutes "
        "(10000 is plenty)",
    ),
    "weights-nan": (
        {"retrieval_weights": "a=nan"},
        "retrieval_weights: 'a=nan': the weight of a must be a finite number >= 0 (its "
        "share of the traffic, e.g. exact-name=0.4), got nan",
    ),
    "weights-inf": (
        {"retrieval_weights": "a=inf"},
        "retrieval_weights: 'a=inf': the weight of a must be a finite number >= 0 (its "
        "share of the traffic, e.g. exact-name=0.4), got inf",
    ),
    "weights-negative": (
        {"retrieval_weights": "a=-1"},
        "retrieval_weights: 'a=-1': the weight of a must be a finite number >= 0 (its "
        "share of the traffic, e.g. exact-name=0.4), got -1",
    ),
    "weights-a-category-with-spaces-unquoted": (
        {"retrieval_weights": "exact name=0.4 other=0.6"},
        "retrieval_weights: 'exact' is not category=weight (e.g. exact-name=0.4); a category "
        'that holds spaces is quoted whole: "exact name=0.4"',
    ),
    "metrics-twice": (
        {"retrieval_metrics": "ndcg@10 mrr nDCG@10"},
        "retrieval_metrics: ndcg@10 is given twice (ndcg@10, nDCG@10); keep one",
    ),
    "timeout-decimal-comma": (
        {"retrieval_timeout": "0,5"},
        "retrieval_timeout: '0,5' has a decimal comma; write a point: 0.5",
    ),
    "timeout-past-the-longest-wait": (
        {"retrieval_timeout": "99999999999"},
        "retrieval_timeout must be at most 9223372036 s (the longest wait the platform "
        "allows), got '99999999999'; for no limit, write 0",
    ),
    "timeout-1e308": (
        {"retrieval_timeout": "1e308"},
        "retrieval_timeout must be at most 9223372036 s (the longest wait the platform "
        "allows), got '1e308'; for no limit, write 0",
    ),
    "weights-decimal-comma": (
        {"retrieval_weights": "paraphrase=0,5 lexical=0.5"},
        "retrieval_weights: 'paraphrase=0,5' has a decimal comma; write a point: paraphrase=0.5",
    ),
    "latency-decimal-comma": (
        {"retrieval_latency_budget": "p95=1,5s max=2s"},
        "retrieval_latency_budget: 'p95=1,5s' has a decimal comma; write a point: p95=1.5s",
    ),
    "latency-unknown-statistic": (
        {"retrieval_latency_budget": "p42=1s"},
        "retrieval_latency_budget: 'p42=1s' is not statistic=duration (statistics: p50, p90, p95, p99, max, mean; e.g. p95=200ms max=2s dense:p95=300ms)",
    ),
    "latency-no-unit": (
        {"retrieval_latency_budget": "p95=200"},
        "retrieval_latency_budget: 'p95=200' needs a duration with its unit (200ms, 2s)",
    ),
    "gate-metric-twice": (  # merged in silence, where every other word twice is refused
        {"retrieval_gate_metrics": "mrr ndcg@10 RR"},
        "retrieval_gate_metrics: mrr is given twice (mrr, RR); keep one",
    ),
    "gate-configuration-twice": (  # gated twice: each row and breach shown twice
        {"retrieval_gate_configurations": "dense bm25 dense"},
        "retrieval_gate_configurations: dense is given twice; keep one",
    ),
    # the terminal prints fast latencies in µs, and a timeout is thought of in minutes:
    # the message said the unit was missing (or named none) and not how to write it
    "latency-microseconds": (
        {"retrieval_latency_budget": "max=2s dense:p95=250us"},
        "retrieval_latency_budget: 'dense:p95=250us' needs a duration with its unit (200ms, "
        "2s): us is not one; write dense:p95=0.25ms",
    ),
    "timeout-minutes": (
        {"retrieval_timeout": "5min"},
        "retrieval_timeout must be a duration: seconds (5, 0.5) or with a unit (500ms, 2s), "
        "got '5min': min is not a unit it takes; write 300s",
    ),
    "latency-unit-apart": (
        {"retrieval_latency_budget": "max=2s p95=200 ms"},
        "retrieval_latency_budget: 'p95=200 ms' has a space before its unit, which splits "
        "it in two; write p95=200ms",
    ),
    "latency-zero": (
        {"retrieval_latency_budget": "p95=0ms"},
        "retrieval_latency_budget: 'p95=0ms' must be a positive duration",
    ),
    "latency-empty-configuration": (
        {"retrieval_latency_budget": ":p95=1ms"},
        "retrieval_latency_budget: ':p95=1ms' names no configuration before ':'; write "
        "dense:p95=... for one configuration, or p95=... for every one",
    ),
    "latency-twice": (
        {"retrieval_latency_budget": "p95=1s p95=2s"},
        "retrieval_latency_budget: p95 is given twice; keep one",
    ),
    "items-shard-zero": (
        {"retrieval_items": "shard:0"},
        "retrieval_items must be query, category or shard:N with N from 1 to 999,999,999,999 (e.g. "
        "shard:1000), got 'shard:0'",
    ),
    "items-shard-of-thousands-of-digits": (
        {"retrieval_items": "shard:1" + "0" * 5000},
        "retrieval_items must be query, category or shard:N with N from 1 to 999,999,999,999 "
        "(e.g. shard:1000), got 'shard:1000000000000000000000000000000000...' (5,007 "
        "characters)",
    ),
    "timeout-nan": (
        {"retrieval_timeout": "nan"},
        "retrieval_timeout must be a duration >= 0: seconds (5, 0.5) or with a unit (500ms, 2s), "
        "0 for no limit; got 'nan'",
    ),
    "batch-size-zero": (
        {"retrieval_batch_size": "0"},
        "retrieval_batch_size must be an integer in 1..100000, got 0",
    ),
    "weights-colon": (
        {"retrieval_weights": "a:1"},
        "retrieval_weights: 'a:1' is not category=weight (e.g. exact-name=0.4)",
    ),
    "weights-zero": (
        {"retrieval_weights": "a=0 b=0"},
        "retrieval_weights: the weights add up to 0",
    ),
    "max-grade-huge": (
        {"retrieval_max_grade": "1000"},
        "retrieval_max_grade must be an integer in 1..100, got 1000",
    ),
    "max-grade-zero": (
        {"retrieval_max_grade": "0"},
        "retrieval_max_grade must be an integer in 1..100, got 0",
    ),
    "threshold-above-max": (
        {"retrieval_relevance_threshold": "4"},
        "retrieval_relevance_threshold (4) is above retrieval_max_grade (3): nothing could ever be relevant",
    ),
    "metrics-empty": (
        {"retrieval_metrics": ","},
        "retrieval_metrics is empty; name at least one metric (ndcg@10)",
    ),
    "metrics-typo": (
        {"retrieval_metrics": "ndgc@10"},
        "retrieval_metrics: unknown metric 'ndgc@10' (did you mean 'ndcg@10'?)",
    ),
    "metric-no-cut": (
        {"retrieval_metrics": "recall"},
        "retrieval_metrics: metric 'recall' needs a cut: write 'recall@10' (any k >= 1)",
    ),
    "metric-bad-cut": (
        {"retrieval_metrics": "ndcg@0"},
        "retrieval_metrics: metric 'ndcg@0': the cut must be an integer >= 1, got '0'",
    ),
    "empty-never": (
        {"retrieval_empty": "never"},
        "retrieval_empty must be one of abstain, one, zero, skip, got 'never'",
    ),
    "gain-log": (
        {"retrieval_gain": "log"},
        "retrieval_gain must be one of exponential, linear, got 'log'",
    ),
    "scope-global": (
        {"retrieval_gate_scope": "global"},
        "retrieval_gate_scope must be one of category, all, got 'global'",
    ),
    "mode-fuzzy": (
        {"retrieval_gate_mode": "fuzzy"},
        "retrieval_gate_mode must be one of absolute, significant, report, got 'fuzzy'",
    ),
    "timeout-negative": (
        {"retrieval_timeout": "-1"},
        "retrieval_timeout must be a duration >= 0: seconds (5, 0.5) or with a unit (500ms, 2s), "
        "0 for no limit; got '-1'",
    ),
    "timeout-underflow": (  # read as 0.0: no limit
        {"retrieval_timeout": "1e-400"},
        "retrieval_timeout must be 0 (no limit) or a positive duration: '1e-400' is too small "
        "for a float and would read as 0, no limit; write a duration a call can take (500ms, "
        "2s), or 0 for no limit",
    ),
    "timeout-word": (
        {"retrieval_timeout": "soon"},
        "retrieval_timeout must be a duration: seconds (5, 0.5) or with a unit (500ms, 2s), got 'soon'",
    ),
    "repeat-zero": (
        {"retrieval_repeat": "0"},
        "retrieval_repeat must be an integer in 1..100, got 0",
    ),
    "fixture-dash": (
        {"retrieval_fixture": "my-fixture"},
        "retrieval_fixture must be a fixture name, got 'my-fixture'",
    ),
    "diff-negative": ({"retrieval_diff": "-1"}, "--retrieval-diff must be an integer >= 0, got -1"),
    "label-escape": (  # the terminal printed it raw: "since the previous run labelled '...'"
        {"retrieval_label": "night\nly\x1b[31m"},
        "--retrieval-label 'night\\nly\\x1b[31m' holds a control character: a label is one "
        "line of text; remove it",
    ),
    "seed-word": (
        {"retrieval_seed": "lucky"},
        "retrieval_seed must be an integer >= 0, got 'lucky'",
    ),
    "min-queries-zero": (
        {"retrieval_min_queries": "0"},
        "retrieval_min_queries must be an integer >= 1, got 0",
    ),
    "report-suffix": (
        {"retrieval_report": ["out.txt"]},
        "--retrieval-report out.txt: the suffix must be one of .json, .md, .html",
    ),
    "report-folder": (
        {"retrieval_report": ["reports"]},
        "--retrieval-report reports: the suffix must be one of .json, .md, .html; for a report "
        "in a folder, name the file in it (reports/report.html)",
    ),
    "report-stdout": (  # it offered a folder named "-": (-/report.html)
        {"retrieval_report": ["-"]},
        "--retrieval-report -: the suffix must be one of .json, .md, .html; a report is "
        "written to a file, not to standard output: name one (report.json, report.md or "
        "report.html)",
    ),
    "group-by-bad": (
        {"retrieval_group_by": ["tag"]},
        "--retrieval-group-by tag: write tag:NAME[,NAME...] (e.g. tag:core,rolling) or tags",
    ),
    # a value pasted by mistake is shown cut, with its length (it was echoed whole)
    **{
        f"long-{key}": (
            {key: "x" * 3000 if key != "retrieval_fixture" else "x" * 2999 + "-"},
            f"{key}{says} {_LONG_SHOWN}{after}",
        )
        for key, says, after in [
            ("retrieval_gain", " must be one of exponential, linear, got", ""),
            ("retrieval_max_grade", " must be an integer in 1..100, got", ""),
            ("retrieval_github", " must be true or false, got", ""),
            ("retrieval_fixture", " must be a fixture name, got", ""),
            ("retrieval_metrics", ": unknown metric", ""),
            ("retrieval_gate_metrics", ": unknown metric", ""),
            ("retrieval_weights", ":", " is not category=weight (e.g. exact-name=0.4)"),
            (
                "retrieval_tolerance",
                ":",
                " is not a tolerance; write an absolute drop (0.02) or a relative one (2%)",
            ),
            (
                "retrieval_timeout",
                " must be a duration: seconds (5, 0.5) or with a unit (500ms, 2s), got",
                "",
            ),
        ]
    },
    "long-group-by": (
        {"retrieval_group_by": ["x" * 3000]},
        "--retrieval-group-by " + "x" * 40 + "... (3,000 characters): write "
        "tag:NAME[,NAME...] (e.g. tag:core,rolling) or tags",
    ),
    "long-integer": (
        {"retrieval_max_grade": "9" * 3000},
        "retrieval_max_grade must be an integer in 1..100, got 9999999999999999999999999999999"
        "999999999... (3,000 characters)",
    ),
}


@pytest.mark.parametrize("case", list(SETTING_CASES))
def test_a_bad_setting_is_refused_naming_the_key_and_the_fix(case: str) -> None:
    raw, message = SETTING_CASES[case]
    with pytest.raises(SettingsError) as info:
        parse_run_settings(raw)
    assert str(info.value) == message


# --------------------------------------------------------------------------- baseline files

SETTINGS = Settings()


def _record(qid: str, value: float) -> QueryRecord:
    return QueryRecord(
        id=qid,
        configuration="fused",
        category="lexical",
        path="golden/a.yaml",
        metrics=dict.fromkeys(SETTINGS.metric_names, value),
        retrieved=[f"{qid}-d"],
        grades={f"{qid}-d": 3},
        fingerprint=f"fp-{qid}",
    )


BASELINE = dumps(
    Baseline(SETTINGS.as_dict(), {"fused": {"a": _record("a", 1.0), "b": _record("b", 0.5)}})
)
Mutation = Callable[[dict[str, object]], object]
VERSION_KEY = '"version"'


def _query(data: dict[str, object]) -> dict[str, object]:
    return data["configurations"]["fused"]["queries"]["a"]  # type: ignore[index, no-any-return]


def _summary(data: dict[str, object]) -> dict[str, object]:
    return data["configurations"]["fused"]["summary"]  # type: ignore[index, no-any-return]


WHERE = "golden/baseline.json: configuration 'fused': "
SUMMARY_AT = "golden/baseline.json:{}: configuration 'fused': "  # the summary's line
SUMMARY_FIX = (
    "; the summary is written from the queries' lines, for reading: edit neither. `git "
    "checkout -- golden/baseline.json` restores the committed file, or `pytest "
    "--retrieval-eval --retrieval-update-baseline` rewrites it from a run"
)
BASELINE_CASES: dict[str, tuple[Mutation, str]] = {
    "metrics-emptied": (
        lambda d: _query(d).update(metrics={}),
        WHERE + "query 'a': its metrics are none, the settings' are "
        "['mrr', 'ndcg@10', 'recall@20']",
    ),
    "metrics-all-null": (
        lambda d: _query(d).update(metrics=dict.fromkeys(SETTINGS.metric_names)),
        WHERE + "query 'a': ndcg@10 is null, which only retrieval_empty = skip allows",
    ),
    "metrics-renamed": (
        lambda d: _query(d).update(metrics={"ndcg@5": 1.0, "mrr": 1.0, "recall@20": 1.0}),
        WHERE + "query 'a': its metrics are ['mrr', 'ndcg@5', 'recall@20'], the settings' are "
        "['mrr', 'ndcg@10', 'recall@20']",
    ),
    "metric-negative": (
        lambda d: _query(d)["metrics"].update(mrr=-0.5),  # type: ignore[attr-defined]
        WHERE + "query 'a': mrr is -0.5, outside 0..1",
    ),
    "metric-above-one": (
        lambda d: _query(d)["metrics"].update(mrr=1.5),  # type: ignore[attr-defined]
        WHERE + "query 'a': mrr is 1.5, outside 0..1",
    ),
    "metric-bool": (
        lambda d: _query(d)["metrics"].update(mrr=True),  # type: ignore[attr-defined]
        WHERE + "query 'a': 'metrics.mrr' must be a finite number or null, got bool True",
    ),
    "metric-text": (
        lambda d: _query(d)["metrics"].update(mrr="0.5"),  # type: ignore[attr-defined]
        WHERE + "query 'a': 'metrics.mrr' must be a finite number or null, got str '0.5'",
    ),
    "summary-disagrees": (
        lambda d: _summary(d)["all"].update(mrr=0.9),  # type: ignore[attr-defined]
        SUMMARY_AT.format(1) + "its stored summary says all mrr = 0.9, its queries give 0.75: "
        "the file was edited by hand" + SUMMARY_FIX,
    ),
    "summary-n-wrong": (
        lambda d: _summary(d)["all"].update(n=10),  # type: ignore[attr-defined]
        SUMMARY_AT.format(1) + "its stored summary says all n = 10, its queries give 2: the "
        "file was edited by hand" + SUMMARY_FIX,
    ),
    "summary-row-missing": (
        lambda d: _summary(d)["categories"].clear(),  # type: ignore[attr-defined]
        SUMMARY_AT.format(1) + "its stored summary has no row 'lexical'" + SUMMARY_FIX,
    ),
    "summary-row-extra": (  # a category renamed, a merge conflict kept the old row
        lambda d: _summary(d)["categories"].update(  # type: ignore[attr-defined]
            {"lexicon": {"n": 2, "ndcg@10": 0.5, "mrr": 0.5, "recall@20": 0.5}}
        ),
        SUMMARY_AT.format(1) + "its stored summary has a row 'lexicon' that none of its "
        "queries has: the file was edited by hand" + SUMMARY_FIX,
    ),
    "settings-gain": (
        lambda d: d["settings"].update(gain="log"),  # type: ignore[attr-defined]
        "golden/baseline.json: 'settings.gain' must be one of exponential, linear",
    ),
    "settings-no-metrics": (
        lambda d: d["settings"].pop("metrics"),  # type: ignore[attr-defined]
        "golden/baseline.json: 'settings.metrics' must be a non-empty list of metric names",
    ),
    "settings-bad-metric": (
        lambda d: d["settings"].update(metrics=["ndcg@10", "mmr", "recall@20"]),  # type: ignore[attr-defined]
        "golden/baseline.json: 'settings.metrics': unknown metric 'mmr' (did you mean 'mrr'?)",
    ),
    "settings-threshold-text": (
        lambda d: d["settings"].update(relevance_threshold="1"),  # type: ignore[attr-defined]
        "golden/baseline.json: 'settings.relevance_threshold' must be an integer >= 1",
    ),
    "query-not-mapping": (
        lambda d: d["configurations"]["fused"]["queries"].update(a=[1]),  # type: ignore[index]
        WHERE + "query 'a' is not a mapping",
    ),
    "outcome-bogus": (
        lambda d: _query(d).update(outcome="great"),
        WHERE + "query 'a': 'outcome' must be one of passed, failed, error, skipped, xfailed, "
        "xpassed, got str 'great'",
    ),
    "grades-text": (
        lambda d: _query(d).update(grades={"a-d": "3"}),
        WHERE + "query 'a': 'grades' must be a mapping of ids to integer grades, got dict "
        "{'a-d': '3'}",
    ),
    "retrieved-numbers": (
        lambda d: _query(d).update(retrieved=[1, 2]),
        WHERE + "query 'a': 'retrieved' must be a list of text, got list [1, 2]",
    ),
    "unknown-field": (
        lambda d: _query(d).update(secret=1),
        WHERE + "query 'a': unknown field secret",
    ),
    "queries-list": (
        lambda d: d["configurations"]["fused"].update(queries=[]),  # type: ignore[index]
        "golden/baseline.json: configuration 'fused' has no 'queries' mapping",
    ),
    # true == 1 in Python: it was read as version 1
    "version-true": (
        lambda d: d.update(version=True),
        "golden/baseline.json has baseline version true; this plugin reads version 1",
    ),
    # an errored query scores 0: a hand-edited score on one was gated as a score
    "error-scored": (
        lambda d: _query(d).update(outcome="error"),
        WHERE + "query 'a': its outcome is error and mrr is 1.0: an errored query scores 0 on "
        "every metric (an error never raises a score)",
    ),
}


def test_a_baseline_saved_with_a_bom_is_read(tmp_path: Path) -> None:
    """An editor that writes a UTF-8 byte-order mark made the gate refuse the baseline as
    'not valid JSON' (golden files, recordings and reports are read with one)."""
    from pytest_retrieval.io.baseline_file import read_baseline

    path = tmp_path / "baseline.json"
    path.write_text("\ufeff" + BASELINE, encoding="utf-8")
    assert read_baseline(path) == parse_baseline(BASELINE)


def _read_as(kind: str, path: Path) -> object:
    from pytest_retrieval.io.baseline_file import read_baseline
    from pytest_retrieval.io.report_json import read_report
    from pytest_retrieval.io.worklist import read_worklist

    if kind == "baseline":
        return read_baseline(path, "b.json")
    if kind == "report":
        return read_report(path, "b.json")
    return read_worklist(path, 3, shown="b.json")


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("baseline", "b.json:2: byte 0xe9 is not UTF-8: the file is binary, or not saved as "
         "UTF-8, so it is no baseline"),
        ("report", "b.json:2: byte 0xe9 is not UTF-8: the file is binary, or not saved as "
         "UTF-8, so it is no report of the plugin's"),
        ("worklist", "b.json:2: byte 0xe9 is not UTF-8: the file is binary, or not saved as "
         "UTF-8; save it as UTF-8"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_utf8_is_named_at_its_line_not_with_pythons_codec_words(
    tmp_path: Path, kind: str, says: str
) -> None:
    """A baseline, report or worklist holding a byte that is not UTF-8 (a binary file, a
    Latin-1 edit) was refused with Python's own words: "cannot read b.json: 'utf-8'
    codec can't decode byte 0xe9 in position 5: invalid continuation byte"."""
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.report_json import ReportError

    path = tmp_path / "b.json"
    path.write_bytes(b"{\n  caf\xe9\n}\n")
    with pytest.raises((BaselineError, ReportError, FormatError)) as info:
        _read_as(kind, path)
    assert str(info.value) == says
    assert "codec" not in str(info.value)


@pytest.mark.parametrize("case", list(BASELINE_CASES))
def test_a_tampered_baseline_is_refused_with_what_is_wrong(case: str) -> None:
    mutate, message = BASELINE_CASES[case]
    data = json.loads(BASELINE)
    mutate(data)
    with pytest.raises(BaselineError) as info:
        parse_baseline(json.dumps(data), "golden/baseline.json")
    assert str(info.value) == message


RAW_BASELINES: dict[str, tuple[str, str]] = {
    # a summary edited by hand, in the file as written (one summary row or query a line):
    # the refusal named no line
    "summary-all-edited": (
        BASELINE.replace('{"all": {"mrr": 0.75', '{"all": {"mrr": 0.8', 1),
        SUMMARY_AT.format(8) + "its stored summary says all mrr = 0.8, its queries give 0.75: "
        "the file was edited by hand" + SUMMARY_FIX,
    ),
    "summary-category-edited": (
        BASELINE.replace('"lexical": {"mrr": 0.75, "n": 2', '"lexical": {"mrr": 0.75, "n": 3', 1),
        SUMMARY_AT.format(9) + "its stored summary says lexical n = 3, its queries give 2: the "
        "file was edited by hand" + SUMMARY_FIX,
    ),
    "summary-category-renamed": (
        BASELINE.replace('"lexical": {"mrr"', '"lexicon": {"mrr"', 1),
        SUMMARY_AT.format(9) + "its stored summary has a row 'lexicon' that none of its "
        "queries has: the file was edited by hand" + SUMMARY_FIX,
    ),
    "summary-nan": (
        BASELINE.replace('"n": 2', '"n": NaN', 1),
        SUMMARY_AT.format(8) + "its stored summary says all n = nan, which is no number (NaN "
        "and Infinity are not JSON): the file was edited by hand or damaged" + SUMMARY_FIX,
    ),
    "nan-token": (
        BASELINE.replace('"mrr": 0.5', '"mrr": NaN', 1),
        WHERE + "query 'b': 'metrics.mrr' must be a finite number or null, got float nan",
    ),
    "minus-infinity-token": (
        BASELINE.replace('"mrr": 0.5', '"mrr": -Infinity', 1),
        WHERE + "query 'b': 'metrics.mrr' must be a finite number or null, got float -inf",
    ),
    "deeply-nested": (
        '{"format": "pytest-retrieval-baseline", "version": 1, "x": '
        + "[" * 100_000
        + "]" * 100_000
        + "}",
        "golden/baseline.json is nested too deeply to be a baseline",
    ),
    "not-json": (
        "{nope",
        "golden/baseline.json is not valid JSON (line 1, column 2: Expecting property name "
        "enclosed in double quotes)",
    ),
    "empty": (  # 0 bytes, or a byte-order mark and a newline: named as empty, not as JSON
        "\ufeff\n",
        "golden/baseline.json is empty (nothing in it but white space: a write that never "
        "ran, a file made to be filled?)",
    ),
    "other-format": (
        '{"format": "ranx-run"}',
        'golden/baseline.json is not a pytest-retrieval baseline (no "format": '
        '"pytest-retrieval-baseline")',
    ),
    "version-2": (
        BASELINE.replace('"version": 1', '"version": 2'),
        "golden/baseline.json has baseline version 2; this plugin reads version 1",
    ),
    "truncated": (  # a copy or a write that stopped: said so, with how to get it back
        BASELINE[: len(BASELINE) // 2],
        f"golden/baseline.json ends early at line {BASELINE[: len(BASELINE) // 2].count(chr(10)) + 1}: "
        "the file is cut short (a copy or a write that stopped?); `git checkout` restores "
        "the committed one",  # the caller adds how to rewrite it: once, not twice
    ),
    "merge-conflict": (  # git's markers: named as such, not as an unexpected character
        BASELINE.replace(
            '  "version": 1,',
            '<<<<<<< HEAD\n  "version": 1,\n=======\n  "version": 1,\n>>>>>>> feature',
            1,
        ),
        f"golden/baseline.json holds a merge conflict's markers ('<<<<<<<' or '>>>>>>>' at "
        f"line {BASELINE[: BASELINE.index(VERSION_KEY)].count(chr(10)) + 1}): a baseline's "
        "numbers are not merged by hand; keep one side (`git checkout --theirs -- "
        "golden/baseline.json`, or --ours) or rewrite it from this run",
    ),
    "truncated-inside-a-string": (  # JSON's error points at the string's start, not the end
        BASELINE[: BASELINE.index('"fused"') + 3],
        f"golden/baseline.json ends early at line {BASELINE[: BASELINE.index('fused')].count(chr(10)) + 1}: "
        "the file is cut short",
    ),
}


@pytest.mark.parametrize("case", list(RAW_BASELINES))
def test_a_broken_baseline_file_is_refused(case: str) -> None:
    text, message = RAW_BASELINES[case]
    with pytest.raises(BaselineError) as info:
        parse_baseline(text, "golden/baseline.json")
    assert str(info.value).startswith(message)


def test_the_untampered_baseline_reads_back() -> None:
    parsed = parse_baseline(BASELINE, "golden/baseline.json")
    assert sorted(parsed.configurations["fused"]) == ["a", "b"]


# --------------------------------------------------------------------------- keys given twice

TWO = BASELINE.replace('"fused"', '"one"')
_BLOCK = TWO[TWO.index('    "one": {') : TWO.index("\n  }\n}")]
# configuration 'two' renamed to a second 'one', as a merge conflict resolved by hand can leave it
ONE_TWICE = TWO.replace(_BLOCK, _BLOCK + ",\n" + _BLOCK.replace("1.0", "0.0"))
TWICE_SAYS = ": a JSON reader keeps the last and drops the other without a word; "
TWICE: dict[str, tuple[str, str]] = {
    "configuration": (
        ONE_TWICE,
        "b.json:16: configuration 'one' is given on lines 7 and 16" + TWICE_SAYS + "a merge "
        "left two configurations under one name? rename one back, or keep one",
    ),
    "query": (
        BASELINE.replace('"b": {', '"a": {'),
        "b.json:13: configuration 'fused': query 'a' is given on lines 12 and 13"
        + TWICE_SAYS
        + "keep one",
    ),
    "query-colons-in-ids": (  # more colons than keys: the ': ' pieces count them
        BASELINE.replace('"b": {', '"a": {').replace('"a-d"', '"doc:a"'),
        "b.json:13: configuration 'fused': query 'a' is given on lines 12 and 13"
        + TWICE_SAYS
        + "keep one",
    ),
    "field": (
        BASELINE.replace('"outcome": "passed"', '"outcome": "failed", "outcome": "passed"', 1),
        "b.json:12: configuration 'fused': query 'a': 'outcome' is given twice on line 12"
        + TWICE_SAYS
        + "keep one",
    ),
    "metric": (
        BASELINE.replace('"mrr": 0.5', '"mrr": 0.9, "mrr": 0.5', 1),
        "b.json:13: configuration 'fused': query 'b': 'metrics.mrr' is given twice on line 13"
        + TWICE_SAYS
        + "keep one",
    ),
    "setting": (
        BASELINE.replace('"gain"', '"gain": "linear", "gain"', 1),
        "b.json:4: 'settings.gain' is given twice on line 4" + TWICE_SAYS + "keep one",
    ),
    "compact": (  # no ': ' to count: the exact pass finds it
        json.dumps(json.loads(BASELINE), separators=(",", ":")).replace('"b":{', '"a":{'),
        "b.json:1: configuration 'fused': query 'a' is given twice on line 1"
        + TWICE_SAYS
        + "keep one",
    ),
}


@pytest.mark.parametrize("case", list(TWICE))
def test_a_baseline_giving_a_key_twice_is_refused_naming_it_and_its_lines(case: str) -> None:
    """json.loads keeps the last of a repeated key: the gate compared 'one' with the numbers
    of the configuration renamed to it and never mentioned the other."""
    text, says = TWICE[case]
    with pytest.raises(BaselineError) as info:
        parse_baseline(text, "b.json")
    assert str(info.value) == says


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(json.loads(BASELINE), separators=(",", ":")),
        json.dumps(json.loads(BASELINE), indent=4),
        BASELINE.replace('"provenance": {}', '"provenance": {"note": "a \\": b", "at": "10:00"}'),
        BASELINE.replace('"a-d"', '"doc:a"'),
    ],
    ids=["compact", "indented", "quote-colon-in-a-string", "colons-in-ids"],
)
def test_a_baseline_laid_out_otherwise_without_a_repeated_key_reads(text: str) -> None:
    parsed = parse_baseline(text, "b.json")
    assert sorted(parsed.configurations["fused"]) == ["a", "b"]


def test_the_key_count_never_vouches_for_a_text_with_a_key_twice() -> None:
    """As many ': ' pieces as keys read (one inside a string), yet a key twice: the keys
    spaced otherwise are seen, and the text goes to the exact pass."""
    from pytest_retrieval.io.repeated_keys import first_repeat, keys_hold_once

    text = '{"x": "q\\": ", "a" :1, "a" :2}'
    assert json.loads(text) == {"x": 'q": ', "a": 2}
    assert text.count('": ') == 2
    assert not keys_hold_once(text, 2)
    found = first_repeat(text)
    assert found is not None and (found.path, found.key, found.line) == ((), "a", 1)
    assert keys_hold_once(BASELINE, 50, head='"configurations": {')


# --------------------------------------------------------------------------- JSON lines nested too deeply

DEEP = "[" * 100_000 + "]" * 100_000


def test_json_lines_nested_too_deeply_are_named_not_raised(tmp_path: Path) -> None:
    """Recordings, history logs and BEIR files: a line past the JSON parser's recursion
    limit is a problem at its line, as any line that is not JSON (not a RecursionError)."""
    from pytest_retrieval.io.beir import _json_objects
    from pytest_retrieval.io.common import FormatError, ProblemLog
    from pytest_retrieval.io.history_file import parse_log
    from pytest_retrieval.io.recording import read_recording

    recording = tmp_path / "run.jsonl"
    header = '{"format": "pytest-retrieval recording", "version": 1, "settings": {}}'
    recording.write_text(f"{header}\n{DEEP}\n", encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        read_recording(recording, "run.jsonl")
    assert str(raised.value) == (
        "run.jsonl:2: not JSON (values nested too deeply: column 1); the recording is damaged: "
        "record again"
    )
    recording.write_text(f'{header}\n{{"configuration": "bm25", "id": "q\n', encoding="utf-8")
    with pytest.raises(FormatError) as raised:  # a line torn in the middle of a string
        read_recording(recording, "run.jsonl")
    assert str(raised.value).startswith(
        "run.jsonl:2: the line ends early: the recording is cut short"
    )
    log = parse_log(f"{DEEP}\n".encode())
    assert [p.message for p in log.problems] == [
        "line 1 is not valid JSON (values nested too deeply: line 1 column 1 (char 0)): skipped"
    ]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(f'{{"_id": "d1"}}\n{DEEP}\n', encoding="utf-8")
    problems = ProblemLog("corpus.jsonl")
    assert [line for line, _ in _json_objects(corpus, problems)] == [1]
    assert [str(p) for p in problems.problems] == [
        "corpus.jsonl:2: not valid JSON: values nested too deeply: line 1 column 1 (char 0); "
        "write one JSON object per line"
    ]


# --------------------------------------------------------------------------- integers past Python's digit limit

LONG = "1" + "0" * 5000  # Python's int() refuses more than 4,300 digits
SAYS_LONG = (
    "a number has more than 4300 digits, more than Python reads; write a shorter number, or "
    "quote it to keep it as text"
)


def test_json_integers_past_the_digit_limit_are_named_not_raised(tmp_path: Path) -> None:
    """Baselines, JSON reports, recordings, history logs and BEIR files: an integer of
    5,001 digits is a problem at its line (json.loads raised a bare ValueError, an
    INTERNALERROR or a traceback); digits inside a string before it are no number."""
    from pytest_retrieval.io.beir import _json_objects
    from pytest_retrieval.io.common import FormatError, ProblemLog
    from pytest_retrieval.io.history_file import parse_log
    from pytest_retrieval.io.recording import read_recording
    from pytest_retrieval.io.report_json import ReportError, parse_report

    text = BASELINE.replace('"n": 2', f'"n": {LONG}', 1)
    line = BASELINE[: BASELINE.index('"n": 2')].count("\n") + 1
    with pytest.raises(BaselineError) as info:
        parse_baseline(text, "golden/baseline.json")
    assert str(info.value).startswith(f"golden/baseline.json is not valid JSON (line {line}, ")
    assert str(info.value).endswith(f": {SAYS_LONG})")
    with pytest.raises(ReportError) as raised:
        parse_report(f'{{"format": "x{LONG}",\n "n": {LONG}}}', "r.json")
    assert str(raised.value) == f"r.json:2: not valid JSON (column 7: {SAYS_LONG})"
    recording = tmp_path / "run.jsonl"
    recording.write_text(f'{RECORDING_HEADER}\n{{"id": {LONG}}}\n', encoding="utf-8")
    with pytest.raises(FormatError) as problem:
        read_recording(recording, "run.jsonl")
    assert str(problem.value) == (
        f"run.jsonl:2: not JSON ({SAYS_LONG}: column 8); the recording is damaged: record again"
    )
    recording.write_text(RECORDING_HEADER.replace("1", LONG) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as problem:
        read_recording(recording, "run.jsonl")
    assert str(problem.value).startswith(f"run.jsonl:1: not JSON ({SAYS_LONG}: column ")
    log = parse_log(f'{{"n": {LONG}}}\n'.encode())
    assert [p.message for p in log.problems] == [
        f"line 1 is not valid JSON ({SAYS_LONG}: line 1 column 7 (char 6)): skipped"
    ]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(f'{{"_id": "d1"}}\n{{"_id": {LONG}}}\n', encoding="utf-8")
    problems = ProblemLog("corpus.jsonl")
    assert [line for line, _ in _json_objects(corpus, problems)] == [1]
    assert [str(p) for p in problems.problems] == [
        f"corpus.jsonl:2: not valid JSON: {SAYS_LONG}: line 1 column 9 (char 8); write one "
        "JSON object per line"
    ]


RECORDING_HEADER = '{"format": "pytest-retrieval recording", "version": 1, "settings": {}}'
FOOTER = '{"complete": true, "entries": 1}'
ENTRY = '{"configuration": "bm25", "id": "q1", "text": "t", "results": [["d1", 1.0]]}'


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (
            [ENTRY, ENTRY.replace('"q1"', '"q9"'), '{"complete": true, "entries": 1}'],
            "run.jsonl:4: the last line counts 1 entries and the file holds 2: lines were added "
            "or taken out after it was written; record again",
        ),
        (
            [ENTRY.replace('[["d1", 1.0]]', '"d1 d2"'), '{"complete": true, "entries": 1}'],
            "run.jsonl:2: not a recording entry ('results' must be a list of [id, score] pairs); "
            "the recording is damaged: record again",
        ),
        (
            [
                ENTRY.replace('"text"', '"latency_ms": -5, "text"'),
                '{"complete": true, "entries": 1}',
            ],
            "run.jsonl:2: not a recording entry ('latency_ms' must be a finite number of "
            "milliseconds >= 0, got -5); the recording is damaged: record again",
        ),
        (
            ['["bm25", "q1"]', '{"complete": true, "entries": 1}'],
            "run.jsonl:2: not a recording entry (a JSON list): record again",
        ),
        (
            [ENTRY.replace('"id": "q1", ', ""), '{"complete": true, "entries": 1}'],
            "run.jsonl:2: not a recording entry (no 'id'); the recording is damaged: record again",
        ),
        # hand-edited results were read as "1" and 0.5, where a live retriever's are refused
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["d0", 2], [1, null]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 2's id 1 is not text; ids are recorded "
            "as non-empty text); the recording is damaged: record again",
        ),
        # an empty id was said to be "not text"
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["", 1.0]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 1's id '' is empty; ids are recorded "
            "as non-empty text); the recording is damaged: record again",
        ),
        # [id, score, key]: a result the result-key hook gave a key (id null: it had none)
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["d0", 2, "doc"], [null, null]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 2's id None is not text; ids are "
            "recorded as non-empty text); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('[["d1", 1.0]]', '[[null, 1.0, ""]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 1's key '' is empty; keys are "
            "recorded as non-empty text); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('[["d1", 1.0]]', '[[null, 1.0, "doc", 5]]'), FOOTER],
            "run.jsonl:2: not a recording entry ('results' must be a list of [id, score] "
            "pairs); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["d1", "0.5"]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 1's score '0.5' is not a finite number "
            "or null); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["d1", true]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 1's score True is not a finite number "
            "or null); the recording is damaged: record again",
        ),
        # an integer past a double's range raised OverflowError out of the reader (an
        # INTERNALERROR in a replay)
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["d0", 1], ["d1", 1' + "0" * 400 + "]]"), FOOTER],
            "run.jsonl:2: not a recording entry (result 2's score 10000000000000000000...(401 "
            "characters) is not a finite number or null); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["d1", 1' + "0" * 400 + ', "k"]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 1's score 10000000000000000000...(401 "
            "characters) is not a finite number or null); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('"text"', '"latency_ms": 1' + "0" * 400 + ', "text"'), FOOTER],
            "run.jsonl:2: not a recording entry ('latency_ms' must be a finite number of "
            "milliseconds >= 0, got 1" + "0" * 400 + "); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('[["d1", 1.0]]', '[["d1", null], ["d2", NaN]]'), FOOTER],
            "run.jsonl:2: not a recording entry (result 2's score nan is not a finite number "
            "or null); the recording is damaged: record again",
        ),
        # replay printed 'recorded: ' with nothing after it
        (
            [ENTRY.replace('"text"', '"error": "", "text"'), FOOTER],
            "run.jsonl:2: not a recording entry ('error' must be the error's text or null, got "
            "''); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('"text"', '"error": false, "text"'), FOOTER],
            "run.jsonl:2: not a recording entry ('error' must be the error's text or null, got "
            "False); the recording is damaged: record again",
        ),
        # a text left out was never checked for staleness, null was compared as 'None'
        (
            [ENTRY.replace('"text": "t"', '"text": null'), FOOTER],
            "run.jsonl:2: not a recording entry ('text' must be non-empty text, got null); the "
            "recording is damaged: record again",
        ),
        (
            [ENTRY.replace(', "text": "t"', ""), FOOTER],
            "run.jsonl:2: not a recording entry (no 'text'); the recording is damaged: record "
            "again",
        ),
        # replayed as a configuration 'None' (and '', '5'), each of its golden queries an error
        (
            [ENTRY.replace('"configuration": "bm25"', '"configuration": null'), FOOTER],
            "run.jsonl:2: not a recording entry ('configuration' must be non-empty text, got "
            "null); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace('"id": "q1"', '"id": ""'), FOOTER],
            "run.jsonl:2: not a recording entry ('id' must be non-empty text, got \"\"); the "
            "recording is damaged: record again",
        ),
        # no results, or null, were replayed as an empty ranking: a no-result query scored 1
        (
            [ENTRY.replace('"results": [["d1", 1.0]]', '"results": null'), FOOTER],
            "run.jsonl:2: not a recording entry ('results' must be a list of [id, score] "
            "pairs); the recording is damaged: record again",
        ),
        (
            [ENTRY.replace(', "results": [["d1", 1.0]]', ""), FOOTER],
            "run.jsonl:2: not a recording entry (no 'results'); the recording is damaged: "
            "record again",
        ),
        # read as 5.0 and 1.0 ms
        (
            [ENTRY.replace('"text"', '"latency_ms": "5", "text"'), FOOTER],
            "run.jsonl:2: not a recording entry ('latency_ms' must be a finite number of "
            'milliseconds >= 0, got "5"); the recording is damaged: record again',
        ),
        (
            [ENTRY.replace('"text"', '"latency_ms": true, "text"'), FOOTER],
            "run.jsonl:2: not a recording entry ('latency_ms' must be a finite number of "
            "milliseconds >= 0, got true); the recording is damaged: record again",
        ),
        # a count that is not a whole number was not compared with the lines (one added
        # here), and "false" was read as true
        (
            [ENTRY, ENTRY.replace('"q1"', '"q9"'), '{"complete": true, "entries": 1.0}'],
            "run.jsonl:4: the last line's 'entries' must be the whole number of entries the "
            "recording holds, got 1.0: the recording was edited; record again",
        ),
        (
            [ENTRY, '{"complete": "false", "entries": 1}'],
            "run.jsonl:3: the last line's 'complete' must be true or false, got \"false\": the "
            "recording was edited; record again",
        ),
        (  # cut inside a string: JSON's error points at the string's start
            [ENTRY, ENTRY.replace('"q1"', '"q9"')[: ENTRY.index('"d1"') + 2]],
            "run.jsonl:3: the line ends early: the recording is cut short (a copy, or a write "
            "that stopped: a killed run, a full disk?); record again",
        ),
        (  # the same line cut short above the last is a mistake inside
            [ENTRY.replace('"q1"', '"q9"')[: ENTRY.index('"d1"') + 2], ENTRY],
            "run.jsonl:2: not JSON (Unterminated string starting at: column 65); the "
            "recording is damaged: record again",
        ),
    ],
    ids=[
        "a-line-added",
        "results-text",
        "negative-latency",
        "a-list",
        "no-id",
        "an-integer-id",
        "an-empty-result-id",
        "a-null-id-without-key",
        "an-empty-key",
        "four-values",
        "a-text-score",
        "a-true-score",
        "an-integer-score-past-a-double",
        "a-keyed-integer-score-past-a-double",
        "a-latency-past-a-double",
        "a-nan-score",
        "an-empty-error",
        "an-error-not-text",
        "a-null-text",
        "no-text",
        "a-null-configuration",
        "an-empty-id",
        "results-null",
        "results-missing",
        "latency-text",
        "latency-true",
        "count-a-float",
        "complete-text",
        "the-last-line-cut-short",
        "a-line-cut-short-above-the-last",
    ],
)
def test_a_damaged_or_edited_recording_is_refused_naming_its_line(
    tmp_path: Path, lines: list[str], says: str
) -> None:
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.recording import read_recording

    recording = tmp_path / "run.jsonl"
    recording.write_text("\n".join([RECORDING_HEADER, *lines]) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        read_recording(recording, "run.jsonl")
    assert str(raised.value) == says


WRONG_TYPED_RECORDINGS = {
    # "false" (text) was read as true: a latency shown as a batch call's share
    "shared-text": (
        [RECORDING_HEADER, ENTRY.replace('"text"', '"shared": "false", "text"'), FOOTER],
        "run.jsonl:2: not a recording entry ('shared' must be true or false, got \"false\"); "
        "the recording is damaged: record again",
    ),
    # a list was read as no filters: a replay compares them to see a recording is stale
    "filters-a-list": (
        [RECORDING_HEADER, ENTRY.replace('"text"', '"filters": ["network"], "text"'), FOOTER],
        "run.jsonl:2: not a recording entry ('filters' must be an object (the query's "
        'filters), got ["network"]); the recording is damaged: record again',
    ),
    # true == 1 in Python: a header with "version": true was read as version 1
    "version-true": (
        [RECORDING_HEADER.replace('"version": 1', '"version": true'), ENTRY, FOOTER],
        "run.jsonl:1: recording version true; this plugin reads 1",
    ),
    "settings-text": (
        [RECORDING_HEADER.replace('"settings": {}', '"settings": "ndcg@10"'), ENTRY, FOOTER],
        "run.jsonl:1: the header's 'settings' must be an object (the run's settings), got "
        '"ndcg@10": the recording was edited; record again',
    ),
    "golden-a-number": (
        [RECORDING_HEADER, ENTRY, FOOTER.replace("}", ', "golden": 5}')],
        "run.jsonl:3: the last line's 'golden' must be text (the golden set's digest), got 5: "
        "the recording was edited; record again",
    ),
    "retrievers-a-list": (
        [RECORDING_HEADER, ENTRY, FOOTER.replace("}", ', "retrievers": ["bm25"]}')],
        "run.jsonl:3: the last line's 'retrievers' must be an object (configuration -> what "
        'its retriever said), got ["bm25"]: the recording was edited; record again',
    ),
}


@pytest.mark.parametrize("case", list(WRONG_TYPED_RECORDINGS))
def test_a_recording_field_of_the_wrong_type_is_refused_naming_it_and_the_type(
    tmp_path: Path, case: str
) -> None:
    """Each was read as something else, in silence (the header's and the footer's
    fields, an entry's shared and filters)."""
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.recording import read_recording

    lines, says = WRONG_TYPED_RECORDINGS[case]
    recording = tmp_path / "run.jsonl"
    recording.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        read_recording(recording, "run.jsonl")
    assert str(raised.value) == says


def test_a_recording_line_giving_a_key_twice_is_refused_naming_it(tmp_path: Path) -> None:
    """JSON keeps the last of a repeated key: a hand-edited line replayed the second
    'results' without a word."""
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.recording import read_recording

    twice = ENTRY.replace('"results"', '"results": [["d9", 2.0]], "results"')
    recording = tmp_path / "run.jsonl"
    footer = '{"complete": true, "entries": 1}'
    recording.write_text("\n".join([RECORDING_HEADER, twice, footer]) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        read_recording(recording, "run.jsonl")
    assert str(raised.value) == (
        "run.jsonl:2: 'results' is given twice on this line (a JSON reader keeps the last and "
        "drops the other without a word): the recording was edited; record again"
    )


def test_a_recording_entry_with_a_key_the_writer_never_writes_is_refused(tmp_path: Path) -> None:
    """A hand-edited entry's misspelled key ('latency' for 'latency_ms') was ignored: the
    replay went on without what the line said."""
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.recording import read_recording

    edited = ENTRY.replace('"results"', '"latency": 12.5, "results"')
    recording = tmp_path / "run.jsonl"
    recording.write_text("\n".join([RECORDING_HEADER, edited, FOOTER]) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        read_recording(recording, "run.jsonl")
    assert str(raised.value) == (
        "run.jsonl:2: query 'q1': unknown key \"latency\" in a recording entry (did you mean "
        "'latency_ms'?) (a key the writer does not write: the recording was edited, and what "
        "it says would be ignored); record again"
    )


def test_recorded_scores_may_be_integers_or_null_and_are_read_as_numbers(tmp_path: Path) -> None:
    from pytest_retrieval.io.recording import read_recording

    entry = ENTRY.replace('[["d1", 1.0]]', '[["d1", 2], ["d2", null], ["d3", 0.5]]')
    recording = tmp_path / "run.jsonl"
    recording.write_text("\n".join([RECORDING_HEADER, entry, FOOTER]) + "\n", encoding="utf-8")
    results = read_recording(recording).entries["bm25"]["q1"].results
    assert results == (("d1", 2.0), ("d2", None), ("d3", 0.5))
    assert type(results[0][1]) is float


def test_recorded_results_are_read_back_in_compact_columns_that_act_as_pairs(
    tmp_path: Path,
) -> None:
    """A 100-result entry was read as 100 tuples, each with its own float: 1.2 GB to
    replay 30,000 queries x 2. Read back, a query's ids are one string and its scores
    an array, and they still iterate, index, compare and pickle as the pairs."""
    import array
    import pickle

    from pytest_retrieval.io.recording import ResultColumns, read_recording

    pairs = [[f"d{i}", 100.0 - i] for i in range(100)]
    entry = ENTRY.replace('[["d1", 1.0]]', json.dumps(pairs))
    recording = tmp_path / "run.jsonl"
    recording.write_text("\n".join([RECORDING_HEADER, entry, FOOTER]) + "\n", encoding="utf-8")
    results = read_recording(recording).entries["bm25"]["q1"].results
    assert isinstance(results, ResultColumns)
    assert isinstance(results.scores, array.array)
    assert results == tuple(map(tuple, pairs))
    assert len(results) == 100
    assert results[3] == ("d3", 97.0)
    assert results[-2:] == (("d98", 2.0), ("d99", 1.0))
    assert pickle.loads(pickle.dumps(results)) == results
    assert results.as_given() == [tuple(p) for p in pairs]


def test_result_columns_keep_an_id_holding_their_separator_and_ids_without_scores() -> None:
    from pytest_retrieval.io.recording import ResultColumns

    odd = ResultColumns(("a\0b", "c"), (1.0, 0.5))
    assert list(odd) == [("a\0b", 1.0), ("c", 0.5)]
    assert odd.as_given() == [("a\0b", 1.0), ("c", 0.5)]
    unscored = ResultColumns(("x", "y"), (None, None))
    assert unscored.as_given() == ["x", "y"]
    assert ResultColumns((), ()).as_given() == []


def test_a_recording_line_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    """Read whole before, its error named a byte of the file; streamed, it names the line."""
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.recording import read_recording

    recording = tmp_path / "run.jsonl"
    bad = ENTRY.replace('"t"', '"caf\xe9"').encode("latin-1")
    recording.write_bytes(b"\n".join([RECORDING_HEADER.encode(), bad, FOOTER.encode()]) + b"\n")
    with pytest.raises(FormatError) as raised:
        read_recording(recording, "run.jsonl")
    assert (
        str(raised.value) == "run.jsonl:2: not UTF-8 (byte 51 of the line); save the file as UTF-8"
    )


def test_a_recording_holding_a_query_twice_keeps_the_last_attempt(tmp_path: Path) -> None:
    """A rerun plugin (pytest-rerunfailures) records a query again: the writer marks it as
    the next attempt, the footer counts both, and the reader keeps the last."""
    from pytest_retrieval.io.recording import RecordingWriter, read_recording

    again = ENTRY.replace('"d1"', '"d2"')
    recording = tmp_path / "run.jsonl"
    writer = RecordingWriter(recording, {})
    for line in (ENTRY, again, ENTRY.replace('"q1"', '"q2"'), again.replace('"d2"', '"d3"')):
        writer.add(line)
    writer.close(True, "", {})
    lines = recording.read_text(encoding="utf-8").splitlines()
    assert lines[2] == '{"attempt": 2, ' + again[1:]
    assert lines[4].startswith('{"attempt": 3, "configuration": "bm25", "id": "q1", ')
    read = read_recording(recording, "run.jsonl")
    assert read.entries["bm25"]["q1"].results == (("d3", 1.0),)
    assert read.entries["bm25"]["q2"].results == (("d1", 1.0),)


def test_a_recording_gets_the_permissions_any_other_file_written_there_gets(
    tmp_path: Path,
) -> None:
    """Reports and the baseline keep a file's permissions, or take the umask's for a new
    file; a recording was always made 0644: readable by everyone under a umask of 077,
    and a file made private (0600) was made readable again."""
    import os

    from pytest_retrieval.io.recording import RecordingWriter

    def recorded(path: Path) -> int:
        writer = RecordingWriter(path, {})
        writer.add(ENTRY)
        writer.close(True, "", {})
        return path.stat().st_mode & 0o777

    before = os.umask(0o077)
    try:
        assert recorded(tmp_path / "new.jsonl") == 0o600
    finally:
        os.umask(before)
    private = tmp_path / "private.jsonl"
    private.write_text("")
    private.chmod(0o640)
    assert recorded(private) == 0o640


@pytest.mark.parametrize(
    "second",
    [ENTRY, '{"attempt": 1, ' + ENTRY[1:]],
    ids=["a-copy", "attempt-1-again"],
)
def test_a_recording_line_copied_over_another_is_refused_naming_both_lines(
    tmp_path: Path, second: str
) -> None:
    """One entry copied over another keeps the footer's count, so the count cannot tell."""
    from pytest_retrieval.io.common import FormatError
    from pytest_retrieval.io.recording import read_recording

    recording = tmp_path / "run.jsonl"
    other = ENTRY.replace('"q1"', '"q2"')
    footer = '{"complete": true, "entries": 3}'
    lines = [RECORDING_HEADER, ENTRY, other, second, footer]
    recording.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        read_recording(recording, "run.jsonl")
    assert str(raised.value) == (
        "run.jsonl:4: query 'q1': configuration 'bm25' is recorded twice, here and on line 2, "
        "and this line is not a later attempt: a line was copied over another; record again"
    )


def test_a_recording_saved_with_a_bom_is_read_as_a_recording(tmp_path: Path) -> None:
    """An editor that writes a UTF-8 BOM made the replay read a recording as a TREC run,
    with one error per line."""
    from pytest_retrieval.io.recording import is_recording, read_recording
    from pytest_retrieval.replay import load_replay

    recording = tmp_path / "run.jsonl"
    footer = '{"complete": true, "entries": 1}'
    text = "\ufeff" + "\n".join([RECORDING_HEADER, ENTRY, footer]) + "\n"
    recording.write_text(text, encoding="utf-8")
    assert is_recording(recording)
    assert read_recording(recording).entries["bm25"]["q1"].results == (("d1", 1.0),)
    replay = load_replay([recording], ["run.jsonl"])
    assert not replay.trec


def test_a_bad_default_is_named_once_at_its_line_not_at_every_query(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    queries = "".join(f"  - id: q{i}\n    query: q\n    relevant: {{x: 1}}\n" for i in range(16))
    path.write_text("defaults:\n  tags: 7\nqueries:\n" + queries, encoding="utf-8")
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path, shown="g.yaml")
    assert [p.line for p in info.value.problems] == [2]
    assert str(info.value.problems[0]).startswith("g.yaml:2: in defaults: 'tags' ")


def test_a_metric_cut_of_thousands_of_digits_is_named_not_a_traceback(tmp_path: Path) -> None:
    """int() refuses more than 4,300 digits: retrieval_metrics = ndcg@1000...0 was an
    INTERNALERROR, and a JSONL golden file's expect a traceback."""
    from pytest_retrieval.metrics import MetricNameError, parse_metric

    cut = "1" + "0" * 5000
    with pytest.raises(MetricNameError, match=r"the cut must be an integer >= 1 a ranking can "):
        parse_metric(f"ndcg@{cut}")
    path = tmp_path / "g.jsonl"
    path.write_text(
        json.dumps({"id": "a", "query": "q", "relevant": {"x": 1}, "expect": {f"ndcg@{cut}": 1}})
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(GoldenFileError, match=r"g\.jsonl:1: query 'a': 'expect'"):
        load_golden_file(path, shown="g.jsonl")


def test_a_long_reference_or_golden_path_is_shown_cut(tmp_path: Path) -> None:
    from pytest_retrieval.advice import settings_warnings
    from pytest_retrieval.io.golden_file import golden_path_problems

    (advice,) = settings_warnings(["bm25"], [], "x" * 3000, {})
    assert str(advice) == (
        f"retrieval_reference names {_LONG_SHOWN}, which is not among the configurations run "
        "(bm25): compared with 'bm25' instead"
    )
    (problem,) = golden_path_problems(tmp_path, ["y" * 3000])
    assert problem == f"{'y' * 100}... (3,000 characters) cannot be used (File name too long)"
    (problem,) = golden_path_problems(tmp_path, ["y/" * 1500])
    assert problem == f"{'y/' * 50}... (3,000 characters) does not exist under {tmp_path}"


def test_a_weighted_category_holding_spaces_is_one_name_when_quoted() -> None:
    """pytest splits an ini value of this kind as a shell does: ``"exact & name=0.4"``
    reached the plugin as one item and was split again at its spaces, so a category
    that holds spaces could not be weighted at all."""
    raw = ["exact & name=0.4", "other=0.6,third=0"]  # as pytest hands the quoted line over
    run = parse_run_settings({"retrieval_weights": raw})
    assert run.stats.weights == {"exact & name": 0.4, "other": 0.6, "third": 0.0}


def test_a_list_item_holding_several_assignments_is_split_as_before() -> None:
    """A TOML list item with two assignments (``["p95=200ms max=2s"]``) was read as one
    name holding a space: the weight of a category 'exact=0.4 other', a budget refused."""
    for raw in (["exact=0.4 other=0.6"], ["exact=0.4, other=0.6"]):
        run = parse_run_settings({"retrieval_weights": raw})
        assert run.stats.weights == {"exact": 0.4, "other": 0.6}
    for raw in (["p95=200ms max=2s"], ["p95=200ms, max=2s"]):
        budget = parse_run_settings({"retrieval_latency_budget": raw}).gate.latency
        assert [(b.statistic, b.seconds) for b in budget] == [("p95", 0.2), ("max", 2.0)]


def test_a_misspelled_weighted_category_is_named_with_the_closest() -> None:
    from pytest_retrieval.advice import settings_warnings

    (advice,) = settings_warnings(["bm25"], ["filtered", "paraphrase"], None, {"filterd": 0.2})
    assert str(advice) == (
        "retrieval_weights names filterd (did you mean 'filtered'?), which no evaluated query "
        "has (categories: filtered, paraphrase); check the spelling"
    )
    (far,) = settings_warnings(["bm25"], ["filtered"], None, {"xyz": 1.0})
    assert "names xyz, which" in str(far)


def test_a_grouped_tag_no_query_has_is_named_with_the_closest() -> None:
    """--retrieval-group-by tag:rolilng showed every query under '(none of them)', in
    silence, as if no query were rolling."""
    from pytest_retrieval.advice import group_by_warnings
    from pytest_retrieval.settings import parse_group_by

    groups = [parse_group_by("tag:core,rolilng"), parse_group_by("tags")]
    (advice,) = group_by_warnings(groups, ["core", "rolling"])
    assert str(advice) == (
        "--retrieval-group-by tag:core,rolilng names rolilng (did you mean 'rolling'?), "
        "which no evaluated query has (tags: core, rolling); check the spelling"
    )
    assert group_by_warnings([parse_group_by("tag:core")], ["core"]) == []


def test_grouping_by_tags_when_no_query_has_a_tag_says_its_tables_are_empty() -> None:
    """--retrieval-group-by tags printed a table per configuration with a header and no
    row, in silence, when no evaluated query has a tag."""
    from pytest_retrieval.advice import group_by_warnings
    from pytest_retrieval.settings import parse_group_by

    (advice,) = group_by_warnings([parse_group_by("tags")], [])
    assert str(advice) == (
        "--retrieval-group-by tags: no evaluated query has a tag, so its tables have no "
        "row; give the golden queries tags (tags: [core]), or leave the option out"
    )
    assert group_by_warnings([parse_group_by("tags")], ["core"]) == []


def test_a_golden_path_written_as_a_pattern_says_patterns_are_not_expanded(
    tmp_path: Path,
) -> None:
    """retrieval_golden = golden/*.yaml said only that it does not exist, though every
    file it means does."""
    from pytest_retrieval.io.golden_file import golden_path_problems

    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "a.yaml").write_text("queries: []\n", encoding="utf-8")
    (problem,) = golden_path_problems(tmp_path, ["golden/*.yaml"])
    assert problem == (
        f"golden/*.yaml does not exist under {tmp_path}: a pattern is not expanded; name "
        "the folder (every .yaml, .yml and .jsonl under it is collected) or each file"
    )


def test_a_decimal_score_is_a_score() -> None:
    """A database's NUMERIC column comes back as Decimal (psycopg, sqlite3 adapters):
    ('d1', Decimal('0.5')) was refused as 'a pair whose second item is not a score',
    though a Fraction, numpy's float32 and an int were taken."""
    from decimal import Decimal

    from pytest_retrieval.shapes import ResultShapeError, ranked_ids, ranked_results

    returned = [("d1", Decimal("0.5")), {"id": "d2", "score": Decimal("0.25")}, ["d3", Decimal(0)]]
    assert ranked_results(returned) == (["d1", "d2", "d3"], [0.5, 0.25, 0.0])
    for bad in (Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("1e400")):
        with pytest.raises(ResultShapeError, match="result at rank 1 has"):
            ranked_ids([("d1", bad)])
