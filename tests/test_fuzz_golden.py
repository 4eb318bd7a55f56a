"""The golden loader fuzzed: the only outcomes are checked queries or the plugin's own error.

Structure-aware inputs (:mod:`golden_strategies`): valid sets as the writers write
them, then broken mappings, broken text and bytes, YAML features (tags, anchors,
aliases, merge keys), alias bombs and deep nesting, and random bytes. Every
outcome goes through :func:`golden_strategies.check_load`: a
:class:`~pytest_retrieval.golden.GoldenFileError` whose problems name the file and a
line, or queries with unique ids, grades in range and lines in the file. Any other
exception, a hang or an executed ``!!python`` tag fails. The long run of the same
strategies is ``fuzz/fuzz_golden.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from golden_strategies import (
    EXECUTED,
    SHOWN,
    check_load,
    check_problem,
    check_query,
    comparable,
    golden_files,
    golden_sets,
    max_grades,
    render,
)
from hypothesis import HealthCheck, given, settings

from pytest_retrieval.golden import GoldenFileError, GoldenQuery, Problem
from pytest_retrieval.io.golden_file import load_golden_file

QUICK = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same inputs every run: the suite does not flake
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def load(tmp_path: Path, suffix: str, data: bytes, max_grade: int = 3) -> list[GoldenQuery] | None:
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(data)
    return check_load(path, max_grade, SHOWN + suffix)


@QUICK
@given(drawn=golden_files(), max_grade=max_grades)
def test_any_golden_file_loads_or_is_refused_naming_file_and_line(
    tmp_path: Path, drawn: tuple[str, bytes], max_grade: int
) -> None:
    suffix, data = drawn
    load(tmp_path, suffix, data, max_grade)


@settings(QUICK, max_examples=30)
@given(written=golden_sets)
def test_one_set_loads_the_same_from_yaml_from_jsonl_and_as_plain_yaml_reads_it(
    tmp_path: Path, written: list[GoldenQuery]
) -> None:
    """YAML and JSONL of one set load to equal queries, the set written; and the
    line-keeping loader reads the values PyYAML's own safe loader reads (ids, texts and
    judgments of every loaded YAML file are compared in ``check_load``)."""
    text = render(written, ".yaml")
    from_yaml = load(tmp_path, ".yaml", text.encode("utf-8"))
    from_jsonl = load(tmp_path, ".jsonl", render(written, ".jsonl").encode("utf-8"))
    assert from_yaml is not None and from_jsonl is not None
    assert [comparable(q) for q in from_yaml] == [comparable(q) for q in from_jsonl] == written
    plain = yaml.safe_load(text)["queries"]  # the pure-Python loader, this time
    assert [dict(q.filters) for q in from_yaml] == [raw.get("filters", {}) for raw in plain]


PYTHON_TAGS = [
    "!!python/object/apply:golden_strategies.pwned [1]",
    "!!python/object/new:golden_strategies.pwned [2]",
    "!!python/name:golden_strategies.pwned",
    "!!python/module:golden_strategies",
    "!!python/object:golden_strategies.Hang {}",
]


@pytest.mark.parametrize("tag", PYTHON_TAGS)
def test_python_tags_are_refused_and_never_run(tmp_path: Path, tag: str) -> None:
    path = tmp_path / "tagged.yaml"
    path.write_text(
        f"queries:\n  - id: a\n    query: q\n    relevant: {{}}\n    filters:\n      f: {tag}\n",
        encoding="utf-8",
    )
    with pytest.raises(GoldenFileError) as info:
        load_golden_file(path, shown="golden/tagged.yaml")
    assert not EXECUTED
    assert [str(p) for p in info.value.problems] == [
        f"golden/tagged.yaml:6: the tag {tag.split()[0]} is refused: a golden file holds data, "
        "and tags that build Python objects are never run; remove the tag"
    ]


def test_the_checks_can_fail() -> None:
    """The outcome checks are no no-ops: a grade out of range, a problem naming another
    file, a line past the end of the file."""
    bad = GoldenQuery(id="a", text="q", relevant={"x": 9}, path=SHOWN, line=1)
    with pytest.raises(AssertionError):
        check_query(bad, SHOWN, 3, 1)
    with pytest.raises(AssertionError, match="elsewhere"):
        check_problem(Problem("elsewhere", 1, "m"), SHOWN, 1)
    with pytest.raises(AssertionError, match="fuzz:9"):
        check_problem(Problem(SHOWN, 9, "past the end of a one-line file"), SHOWN, 1)
