"""The plugin's own files told apart by their start: one reading for every place that asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_retrieval.io.file_kinds import (
    BASELINE_KIND,
    LOG_KIND,
    RECORDING_KIND,
    REPORT_KIND,
    WORKLIST_KIND,
    kind_of_head,
    own_file_kind,
)


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b'{\n  "format": "pytest-retrieval-report",\n  "version": 1', REPORT_KIND),
        (b'{\n  "format": "pytest-retrieval-baseline",\n', BASELINE_KIND),
        (b'{"format": "pytest-retrieval recording", "version": 1}\n{"id"', RECORDING_KIND),
        (b'{"format": "pytest-retrieval-log", "version": 1, "run": {}}\n', LOG_KIND),
        (b"# a worklist\nformat: pytest-retrieval-worklist\nversion: 1\n", WORKLIST_KIND),
        # a byte-order mark, white space, keys reordered by a JSON formatter
        (b'\xef\xbb\xbf  {"version": 1, "format" : "pytest-retrieval-baseline"}', BASELINE_KIND),
        # golden files, and text that only mentions a format
        (b'{"id": "q1", "query": "format: pytest-retrieval-worklist", "relevant": {}}', None),
        (b'{"id": "q1", "query": "\\"format\\": \\"pytest-retrieval-report\\""}', None),
        (b"queries:\n  - id: q1\n    query: the format: pytest-retrieval-worklist\n", None),
        (b'{"format": "pytest-retrieval-reports"}', None),
        (b"", None),
    ],
)
def test_a_file_is_known_by_its_start(head: bytes, kind: str | None) -> None:
    assert kind_of_head(head) == kind


def test_a_file_that_cannot_be_read_is_no_kind(tmp_path: Path) -> None:
    assert own_file_kind(tmp_path / "missing.json") is None
    assert own_file_kind(tmp_path) is None  # a folder
    (tmp_path / "r.json").write_bytes(b'{"format": "pytest-retrieval-report"}')
    assert own_file_kind(tmp_path / "r.json") == REPORT_KIND


@pytest.mark.parametrize(
    ("head", "worklist"),
    [
        (b"format: pytest-retrieval-worklist\r\nversion: 1\r\n", True),  # saved on Windows
        (b"format: pytest-retrieval-worklist   # do not edit\n", True),
        (b"\xef\xbb\xbfformat: pytest-retrieval-worklist\n", True),
        (b"queries:\n  - query: 'format: pytest-retrieval-worklist'\n", False),
        (b"# format: pytest-retrieval-worklist\n", False),
    ],
)
def test_a_worklist_is_known_by_one_rule_wherever_it_is_asked(
    tmp_path: Path, head: bytes, worklist: bool
) -> None:
    """The command line (looks_like_worklist) and every other reader (own_file_kind)."""
    from pytest_retrieval.io.worklist import looks_like_worklist

    path = tmp_path / "w.yaml"
    path.write_bytes(head)
    assert looks_like_worklist(path) is worklist
    assert (own_file_kind(path) == WORKLIST_KIND) is worklist
