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


def test_a_table_s_labels_and_headers_are_cut_to_fit_names_that_differ_at_the_end_apart() -> None:
    """Two configurations that differ only at the end of a long name stay told apart when
    cut (in the middle); every line fits; the values are never cut."""
    from pytest_retrieval.report.summary import fit

    names = [f"hybrid-reranker-cross-encoder-ms-marco-minilm-{v}" for v in ("v1", "v2")]
    rows = [[name, "all", "ndcg@10", "0.512", "0.498"] for name in names]
    lines = fit(["configuration", "category", "metric", "baseline", "current"], rows, 40, 3, 3)
    assert all(len(line) <= 40 for line in lines), "\n".join(lines)
    labels = [line.split()[0] for line in lines[:4] if line.startswith("hybr")]
    assert len(set(labels)) == 2 and all("…" in label for label in labels), labels
    assert labels[0].endswith("v1") and labels[1].endswith("v2")
    assert "0.512" in "\n".join(lines) and "0.498" in "\n".join(lines)
