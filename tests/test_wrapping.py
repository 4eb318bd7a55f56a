"""Notes wrapped to the terminal: at spaces only, continuation lines indented."""

from __future__ import annotations

from pytest_retrieval.report.wrapping import NARROWEST, note_lines


def test_a_note_breaks_at_spaces_keeping_paths_and_ids_whole() -> None:
    path = "golden/very/long/path/to/a-file-with-hyphens-in-its-name.yaml"
    text = f"  note: the query 'q-123-abc' of {path} has no judgments; add some"
    lines = note_lines(text, 50)
    assert " ".join(line.strip() for line in lines) == text.strip()
    assert any(path in line for line in lines) and any("'q-123-abc'" in line for line in lines)
    assert lines[0].startswith("  note:") and all(line.startswith("    ") for line in lines[1:])
    assert all(len(line) <= 49 for line in lines if path not in line)  # one column left free


def test_a_narrow_terminal_still_gets_lines_of_a_readable_width() -> None:
    text = " ".join(["word"] * 40)
    assert all(len(line) <= NARROWEST for line in note_lines(text, 10))
    assert max(len(line) for line in note_lines(text, 10)) > 30
    assert note_lines("", 80) == [""]


def test_only_the_lines_longer_than_the_width_are_wrapped() -> None:
    from pytest_retrieval.report.wrapping import fitted

    long = "a note naming golden/catalog.yaml and the query 'rain-tomorrow' twice over here"
    text = f"short line\n{long}\n  indented short"
    lines = fitted(text, 44).splitlines()
    assert lines[0] == "short line" and lines[-1] == "  indented short"
    assert " ".join(line.strip() for line in lines[1:-1]) == long
    assert all(line.startswith("    ") for line in lines[2:-1])
    assert fitted("", 44) == ""
