"""Broken golden files and what the loader must say about each (shared by the unit
tests of the loader and the end-to-end tests of collection errors)."""

from __future__ import annotations

import re

# (golden text, reported line, query id or None, fragments of the problem on that line)
GOLDEN_ERRORS = {
    "judgments-not-indented": (
        """\
        queries:
          - id: para-sick
            query: noodles and broth for a cold
            relevant:
            chicken-soup: 3
            tomato-soup: 1
        """,
        6,
        "para-sick",
        ["unknown key 'tomato-soup' (a judgment? indent it under 'relevant:')"],
    ),
    "judged-ids-not-indented": (
        """\
        queries:
          - id: para-sick
            query: noodles and broth for a cold
            relevant:
            chicken-soup:
        """,
        5,
        "para-sick",
        ["unknown key 'chicken-soup' (a judgment? indent it under 'relevant:')"],
    ),
    "expect-not-indented": (
        """\
        queries:
          - id: para-sick
            query: noodles and broth for a cold
            relevant: {chicken-soup: 3}
            expect:
            mrr@3: 1.0
        """,
        6,
        "para-sick",
        ["unknown key 'mrr@3' (a metric's minimum? indent it under 'expect:')"],
    ),
    "query-left-empty": (
        """\
        queries:
          - id: rain-later
            query:
            relevant: {weather-forecast: 3}
        """,
        3,
        "rain-later",
        ["'query' must be non-empty text, got nothing (null); write the query's text"],
    ),
    "grade-in-quotes": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant: {weather-forecast: "2"}
        """,
        4,
        "rain-later",
        ["got text '2'", "write 2 without quotes"],
    ),
    "grade-as-a-float": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant:
              weather-forecast: 2.0
              radar: 0.5
        """,
        5,
        "rain-later",
        ["got a number 2.0", "write 2"],
    ),
    "grades-as-a-list-of-mappings": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant:
              - weather-forecast: 2
        """,
        5,
        "rain-later",
        ["list must hold ids", "make 'relevant' a mapping: {d1: 2, d2: 1}"],
    ),
    "queries-keyed-by-id": (
        """\
        queries:
          rain-later:
            query: will it rain later today
            relevant: {weather-forecast: 3}
        """,
        2,
        None,
        ["must be a list of queries, got a mapping", "'- id: q1'"],
    ),
    "unknown-key-with-suggestion": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevent: {weather-forecast: 3}
        """,
        4,
        "rain-later",
        ["relevent", "relevant"],
    ),
    "unknown-key-in-defaults": (
        """\
        defaults:
          categroy: paraphrase
        queries:
          - id: rain-later
            query: will it rain later today
            relevant: {weather-forecast: 3}
        """,
        2,
        None,
        ["categroy", "category"],
    ),
    "tags-not-a-list": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            tags: {core: yes}
            relevant: {weather-forecast: 3}
        """,
        4,
        "rain-later",
        ["tags", "list"],
    ),
    "relevant-a-string": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant: weather-forecast
        """,
        4,
        "rain-later",
        ["relevant"],
    ),
    "grade-high": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant:
              weather-forecast: high
        """,
        5,
        "rain-later",
        ["weather-forecast", "high"],
    ),
    "grade-true": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant:
              weather-archive: 1
              weather-forecast: true
        """,
        6,
        "rain-later",
        ["weather-forecast", "true"],
    ),
    "grade-out-of-range": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant:
              weather-forecast: 4
        """,
        5,
        "rain-later",
        ["weather-forecast", re.compile(r"\b4\b"), "0..3"],
    ),
    "grade-negative": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant:
              weather-forecast: -1
        """,
        5,
        "rain-later",
        ["weather-forecast", "-1"],
    ),
    "empty-query-text": (
        """\
        queries:
          - id: rain-later
            query: ""
            relevant: {weather-forecast: 3}
        """,
        3,
        "rain-later",
        ["query", "empty"],
    ),
    "blank-query-text": (
        """\
        queries:
          - id: rain-later
            query: "   "
            relevant: {weather-forecast: 3}
        """,
        3,
        "rain-later",
        ["query", "empty"],
    ),
    "missing-relevant": (
        """\
        queries:
          - id: fine-first
            query: a first query
            relevant: {weather-forecast: 3}
          - id: rain-later
            query: will it rain later today
            category: paraphrase
        """,
        5,
        "rain-later",
        ["relevant", "missing"],
    ),
    "duplicate-id-in-one-file": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant: {weather-forecast: 3}
          - id: rain-later
            query: rain this evening
            relevant: {weather-forecast: 2}
        """,
        5,
        "rain-later",
        ["duplicate", re.compile(r"\b2\b")],  # names the first use, on line 2
    ),
    "duplicate-key-in-relevant": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant:
              weather-forecast: 3
              weather-forecast: 1
        """,
        6,
        "rain-later",
        ["weather-forecast", re.compile(r"\b5\b")],  # names the first occurrence, line 5
    ),
    "unknown-metric-in-expect": (
        """\
        queries:
          - id: rain-later
            query: will it rain later today
            relevant: {weather-forecast: 3}
            expect: {ndgc@10: 0.9}
        """,
        5,
        "rain-later",
        ["ndgc@10", "ndcg@10"],
    ),
    "yaml-syntax-unclosed-flow-mapping": (
        """\
        queries:
          - id: fine-first
            query: a first query
            relevant: {weather-forecast: 3}
          - id: rain-later
            query: will it rain later today
            relevant: {weather-forecast: 3
          - id: after
            query: after the error
            relevant: {}
        """,
        7,
        None,
        ["YAML"],
    ),
    "yaml-syntax-bad-indentation-late-in-the-file": (
        """\
        queries:
          - id: first
            query: a first query
            relevant: {weather-forecast: 3}
          - id: second
            query: a second query
            relevant: {weather-forecast: 3}
          - id: rain-later
            query: will it rain later today
           relevant: {weather-forecast: 3}
        """,
        10,  # the mis-indented line, not where the list of queries began (line 2)
        None,
        ["YAML"],
    ),
    "yaml-syntax-unterminated-quote": (
        """\
        queries:
          - id: rain-later
            query: "will it rain later today
            relevant: {weather-forecast: 3}
        """,
        3,
        None,
        ["YAML"],
    ),
}
