"""Unit tests of the history log: its entries, comparing runs, and the file (lock, torn lines)."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_gate import baseline_of, gate, perfect, record, results_of  # beside this file

from pytest_retrieval.evaluation import analyse
from pytest_retrieval.history import (
    LogEntry,
    LogEntryError,
    RunStamp,
    build_entry,
    comparable_runs,
    entry_from,
    previous_run,
    since_previous,
)
from pytest_retrieval.io.history_file import (
    append_entry,
    append_line,
    holds_other_data,
    parse_log,
    read_log,
)
from pytest_retrieval.report.history_text import since_lines
from pytest_retrieval.settings import Settings, StatsSettings

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = Settings(metrics=Settings().metrics[:2])
STATS = StatsSettings(resamples=200)


def entry(value: float = 1.0, label: str = "nightly", time: str = "2025-11-30T08:00:00+00:00"):  # type: ignore[no-untyped-def]
    records = [record(q.id, value) for q in perfect()] + perfect("bm25")
    results = results_of(records)
    evaluation = analyse(results, SETTINGS, STATS)
    verdict = gate(baseline_of(perfect()), results)
    stamp = RunStamp(time, "0123456789abcdef", True, "pytest-retrieval 0.1.0")
    retrievers = {"fused": {"index_version": "2024-09", "k": 60}}
    return build_entry(
        evaluation, SETTINGS.as_dict(), (6, "sha"), retrievers, verdict, stamp, label
    )


# --------------------------------------------------------------------------- entries


def test_an_entry_is_one_json_line_that_reads_back_the_same() -> None:
    made = entry(0.5)
    line = made.line()
    assert "\n" not in line
    data = json.loads(line)
    assert data["format"] == "pytest-retrieval-log" and data["version"] == 1
    assert data["label"] == "nightly"
    assert data["git"] == {"commit": "0123456789abcdef", "dirty": True}
    assert data["gate"] == {
        "verdict": "failed",
        "mode": "absolute",
        "counts": {"fused": {"improved": 0, "degraded": 6, "unchanged": 0}},
    }
    fused = data["configurations"]["fused"]
    assert fused["retriever"] == {"index_version": "2024-09", "k": 60}
    assert fused["all"]["n"] == 6 and fused["all"]["ndcg@10"] == 0.5
    assert set(fused["categories"]) == {"lexical", "para"}
    assert fused["all"]["ci"]["ndcg@10"] == [0.5, 0.5]
    assert entry_from(data) == made
    assert made.commit_short == "0123456*"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"format": "something-else"}, "not a pytest-retrieval log entry"),
        ({"version": 7}, "log entry version 7; this plugin reads version 1"),
        ({"version": True}, "log entry version true; this plugin reads version 1"),
        ({"configurations": []}, "configurations must be a mapping"),
        # hand edits: a label that is not text was read as its str(), any time text kept
        ({"label": 5}, "label must be text, got int 5"),
        ({"time": "yesterday"}, r"time 'yesterday' is not an ISO 8601 timestamp"),
        ({"time": 1733230000}, "time must be text, got int"),
    ],
)
def test_an_entry_of_another_shape_is_refused_with_why(change: dict[str, object], says: str):
    data = {**json.loads(entry().line()), **change}
    with pytest.raises(LogEntryError, match=says):
        entry_from(data)


@pytest.mark.parametrize("value", [7, -0.5])
def test_a_mean_outside_0_1_is_refused_not_compared(value: float) -> None:
    """A hand-edited mrr: 7 showed this run as -6.500 since the previous one."""
    data = json.loads(entry().line())
    data["configurations"]["fused"]["all"]["ndcg@10"] = value
    with pytest.raises(LogEntryError, match=rf"configurations.fused.all.ndcg@10 is {value}, "):
        entry_from(data)


def test_previous_run_and_the_change_since() -> None:
    runs = [entry(0.5, "nightly"), entry(0.7, "pr"), entry(0.6, "nightly")]
    assert previous_run(runs, "nightly") is runs[2]
    assert previous_run(runs, "other") is None
    since = since_previous(entry(0.8), runs[2])
    assert since.notes == []
    fused = {c.metric: (c.before, c.after) for c in since.changes if c.configuration == "fused"}
    assert fused == {"ndcg@10": pytest.approx((0.6, 0.8)), "mrr": pytest.approx((0.6, 0.8))}
    lines = since_lines(since, "nightly", 80)
    assert lines[:2] == [
        "since the previous run labelled 'nightly' (2025-11-30 08:00:00 UTC, commit",
        "  0123456*): all, now (change)",
    ]
    assert lines[2].split() == ["configuration", "ndcg@10", "mrr"]
    table = "\n".join(lines)
    assert "0.800 (+0.200)" in table and "1.000 (+0.000)" in table
    assert all(len(line) <= 80 for line in lines)


def test_other_settings_or_another_golden_set_are_said() -> None:
    now = entry(0.8)
    other = dataclasses.replace(entry(0.6), settings={**SETTINGS.as_dict(), "gain": "linear"})
    since = since_previous(now, other)
    assert since.changes == []
    # the previous run's, not the baseline's (which may hold the very settings of this run)
    assert since.notes == ["other settings, not compared: gain: previous run 'linear', this "
                           "run 'exponential'"]  # fmt: skip
    smaller = dataclasses.replace(entry(0.6), golden_queries=4, golden_sha256="other")
    notes = since_previous(now, smaller).notes
    assert notes == [
        "the golden set changed since (4 -> 6 queries): the means are over other queries"
    ]
    edited = dataclasses.replace(entry(0.6), golden_sha256="other")  # a judgment changed
    assert since_previous(now, edited).notes == [
        "the golden set changed since (as many queries, 6, but ids, text or judgments "
        "edited): the means are not over the same golden set"
    ]
    assert comparable_runs([other, smaller, now], "nightly", SETTINGS.as_dict()) == (
        [smaller, now],
        1,
    )


def test_the_first_run_of_a_label_says_so() -> None:
    assert since_lines(None, "", 80) == [
        "retrieval log: the first run without a label; the next one compares with it"
    ]


# --------------------------------------------------------------------------- the file


def test_append_then_read(tmp_path: Path) -> None:
    log = tmp_path / "deep" / "log.jsonl"
    first, second = entry(0.5), entry(0.6, "pr")
    append_entry(log, first)
    append_entry(log, second)
    assert log.read_text(encoding="utf-8").count("\n") == 2
    read = read_log(log)
    assert read.entries == [first, second] and read.problems == []
    assert read_log(tmp_path / "none.jsonl").entries == []


def test_a_log_that_starts_with_a_byte_order_mark_is_read_and_appended_to(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    first, second = entry(0.5), entry(0.6)
    log.write_bytes(b"\xef\xbb\xbf" + first.line().encode() + b"\n")  # an editor saved it
    assert not holds_other_data(log)
    append_entry(log, second)
    read = read_log(log)
    assert read.entries == [first, second] and read.problems == []


def test_a_torn_last_line_is_skipped_with_why_then_cut_off_by_the_next_append(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    append_entry(log, entry(0.5))
    whole = entry(0.6).line()
    with log.open("a", encoding="utf-8") as handle:
        handle.write(whole[: len(whole) // 2])  # what a writer killed mid-line leaves
    read = read_log(log)
    assert len(read.entries) == 1
    assert [(p.line, p.message) for p in read.problems] == [
        (2, "the last line is incomplete (a run killed while writing it?): skipped, and "
            "removed when this run is appended")
    ]  # fmt: skip
    append_entry(log, entry(0.7))
    read = read_log(log)
    values = [e.configurations["fused"].all.means["mrr"].value for e in read.entries]
    assert values == pytest.approx([0.5, 0.7])
    assert read.problems == []


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(entry(0.5).line(), encoding="utf-8")  # written by hand, no newline
    append_entry(log, entry(0.6))
    assert len(read_log(log).entries) == 2


def test_bad_lines_in_the_middle_are_named_and_skipped() -> None:
    good = entry().line().encode()
    data = b"\n".join([good, b"{not json", b'{"format": "x"}', b"", good]) + b"\n"
    read = parse_log(data)
    assert len(read.entries) == 2
    assert [p.line for p in read.problems] == [2, 3]
    assert read.problems[0].message.startswith("line 2 is not valid JSON")
    assert read.problems[1].message == (
        'line 3: not a pytest-retrieval log entry (no "format": "pytest-retrieval-log"): skipped'
    )


def test_an_entry_must_be_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="one line"):
        append_line(tmp_path / "log.jsonl", "a\nb")


def _append_in_child(log: Path, line: str) -> subprocess.Popen[bytes]:
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from pytest_retrieval.io.history_file import append_line
        append_line(Path({str(log)!r}), {line!r})
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", code], env=env)


def test_an_append_waits_for_the_lock_another_writer_holds(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"held": true}\n', encoding="utf-8")
    with log.open("r+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        child = _append_in_child(log, '{"second": true}')
        time.sleep(1.0)
        assert child.poll() is None, "the append did not wait for the lock"
        assert log.read_text(encoding="utf-8") == '{"held": true}\n'
        fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    assert child.wait(timeout=30) == 0
    assert log.read_text(encoding="utf-8") == '{"held": true}\n{"second": true}\n'


def test_a_writer_killed_mid_line_leaves_a_readable_log(tmp_path: Path) -> None:
    """A real kill: the child writes half its line, then SIGKILLs itself."""
    log = tmp_path / "log.jsonl"
    append_entry(log, entry(0.5))
    code = textwrap.dedent(
        f"""
        import os, signal
        from pathlib import Path
        from pytest_retrieval.io import history_file

        real_write = os.write
        def half_then_die(fd, data):
            real_write(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        os.write = half_then_die
        history_file.append_line(Path({str(log)!r}), {entry(0.6).line()!r})
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, check=False, timeout=60)
    assert done.returncode == -9
    assert not log.read_bytes().endswith(b"\n")  # torn
    read = read_log(log)
    assert len(read.entries) == 1 and [p.line for p in read.problems] == [2]
    append_entry(log, entry(0.7))
    assert len(read_log(log).entries) == 2 and read_log(log).problems == []


def full_disk_for(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.write`` to ``log`` writes half of what it is given, then fails as a full disk
    does (errno 28); every other write goes through."""
    from pytest_retrieval.io import history_file

    real_write = os.write

    def half_then_full(fd: int, data: bytes) -> int:
        if log.exists() and os.path.samestat(os.fstat(fd), os.stat(log)):
            real_write(fd, bytes(data)[: len(data) // 2])
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(history_file.os, "write", half_then_full)


def test_an_append_that_fails_leaves_the_log_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk tore the line, and the next run blamed 'a run killed while writing it'."""
    log = tmp_path / "log.jsonl"
    append_entry(log, entry(0.5))
    before = log.read_bytes()
    with monkeypatch.context() as patch:
        full_disk_for(log, patch)
        with pytest.raises(OSError, match="No space left on device"):
            append_entry(log, entry(0.6))
    assert log.read_bytes() == before
    assert read_log(log).problems == []


def test_the_entries_keep_their_order_as_appended(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    made: list[LogEntry] = [
        entry(v / 10, time=f"2025-11-{v:02d}T00:00:00+00:00") for v in (3, 1, 2)
    ]
    for e in made:
        append_entry(log, e)
    assert [e.stamp.time[:10] for e in read_log(log).entries] == [
        "2025-11-03",
        "2025-11-01",
        "2025-11-02",
    ]


def test_a_skipped_line_is_named_cut_to_a_readable_length() -> None:
    huge = json.dumps({"format": "pytest-retrieval-log", "version": "v" * 5000})
    read = parse_log(f"{huge}\n\x00\x01{'z' * 5000}\n".encode())
    assert [p.line for p in read.problems] == [1, 2]
    first, second = read.problems
    assert len(first.message) < 260 and first.message.endswith("...: skipped")
    assert first.excerpt == huge[:97] + "..."
    assert second.excerpt == "\\x00\\x01" + "z" * 89 + "..."
