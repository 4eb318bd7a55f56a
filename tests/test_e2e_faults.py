"""Faults only a run can show: none may end in a passed gate that should fail, a plugin
traceback, silence about dropped data, or a hang.

The project is the shared e2e project (tests/conftest.py): bm25 and dense, 7 queries.
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import (
    E2E_INI,
    E2E_RETRIEVER_CONFTEST,
    e2e_load_json,
    e2e_run,
    e2e_unwrapped,
    e2e_write_project,
)
from pytest_retrieval.io.report_json import read_report

UPDATE = ("--retrieval-eval", "--retrieval-update-baseline")


def _with_conftest(pytester: pytest.Pytester, extra: str, ini: str = E2E_INI) -> None:
    """The shared project, its retriever wrapped by ``extra`` (which defines ``fault``)."""
    returning = "        return _shape(request.param, table[query.id])"
    conftest = E2E_RETRIEVER_CONFTEST.replace(
        returning, "        fault(request.param, query)\n" + returning
    )
    e2e_write_project(pytester, ini=ini, conftest=conftest + "\n" + extra)


NO_FAULT = "def fault(configuration, query):\n    pass\n"


def test_a_report_over_the_baseline_file_is_refused(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    result = e2e_run(pytester, *UPDATE, "--retrieval-report", "golden/baseline.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "--retrieval-report golden/baseline.json is the baseline file (golden/baseline.json): "
        "the report would overwrite it; write the report to another file"
    ) in e2e_unwrapped(result.stderr.str())
    assert not (pytester.path / "golden" / "baseline.json").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--retrieval-record", "golden/catalog.yaml"],
            "--retrieval-record golden/catalog.yaml: the file exists and is not a recording",
        ),
        (
            ["--retrieval-record", "conftest.py"],
            "--retrieval-record conftest.py: the file exists and is not a recording",
        ),
        (
            ["--retrieval-record", "golden/baseline.json"],
            "--retrieval-record golden/baseline.json is the baseline file (golden/baseline.json)",
        ),
        (
            ["--retrieval-log", "conftest.py"],
            "--retrieval-log conftest.py: the file exists and is not a pytest-retrieval log",
        ),
        (
            ["--retrieval-log", "golden/baseline.json"],
            "--retrieval-log golden/baseline.json is the baseline file (golden/baseline.json): "
            "the log would append to it",
        ),
        (
            ["--retrieval-record", "out.json", "--retrieval-report", "out.json"],
            "--retrieval-report out.json and --retrieval-record out.json are the same file: one "
            "would replace the other; give each its own path",
        ),
        (
            ["--junitxml", "golden/baseline.json"],
            "--junitxml golden/baseline.json is the baseline file (golden/baseline.json): the "
            "JUnit XML would overwrite it; write the JUnit XML to another file",
        ),
        (  # pytest writes its XML over any file: a golden file was lost at the run's end
            ["--junitxml", "golden/catalog.yaml"],
            "--junitxml golden/catalog.yaml: the file exists and is not JUnit XML (a golden "
            "file, a report, a conftest.py?): the JUnit XML would overwrite it; write it to "
            "a new path, or delete the file first",
        ),
        (
            ["--junitxml=conftest.py"],
            "--junitxml conftest.py: the file exists and is not JUnit XML",
        ),
        (
            ["--junitxml=out.json", "--retrieval-report=out.json"],
            "--retrieval-report out.json and --junitxml out.json are the same file: one would "
            "replace the other; give each its own path",
        ),
        (  # written, the next run stopped on it: a log is no golden file
            ["--retrieval-log=golden/history.jsonl"],
            "--retrieval-log golden/history.jsonl is inside the golden folder golden: the "
            "next run would collect it as a golden file and stop there; write it outside "
            "the golden folders",
        ),
        (
            ["--retrieval-record=golden/sub/rec.yaml"],
            "--retrieval-record golden/sub/rec.yaml is inside the golden folder golden",
        ),
        (
            ["--retrieval-update-baseline", "--retrieval-baseline=golden/base.jsonl"],
            "the baseline golden/base.jsonl is inside the golden folder golden: the next run "
            "would collect it as a golden file",
        ),
        (["--retrieval-record", "golden"], "--retrieval-record golden is a folder"),
        (["--retrieval-report", "conftest.py/r.json"], "conftest.py is a file, not a folder"),
        (["--retrieval-report", "golden/r.json"], "--retrieval-report golden/r.json is a folder"),
        (
            ["--retrieval-update-baseline", "--retrieval-baseline", "golden/catalog.yaml"],
            "--retrieval-update-baseline writes the baseline golden/catalog.yaml, which exists "
            "and is not a baseline (a golden file, a report, a conftest.py?): updating would "
            "overwrite it",
        ),
        (
            ["--retrieval-update-baseline", "--retrieval-baseline=conftest.py"],
            "--retrieval-update-baseline writes the baseline conftest.py, which exists and is "
            "not a baseline",
        ),
        (
            ["--retrieval-update-baseline", "--retrieval-baseline=golden"],
            "--retrieval-update-baseline writes the baseline golden, which is a folder",
        ),
        (
            ["--retrieval-update-baseline", "--retrieval-baseline=conftest.py/b.json"],
            "--retrieval-update-baseline writes the baseline conftest.py/b.json: "
            "conftest.py is a file, not a folder: give the baseline a path in a folder",
        ),
    ],
    ids=[
        "record-golden",
        "record-conftest",
        "record-baseline",
        "log-conftest",
        "log-baseline",
        "record-and-report",
        "junit-baseline",
        "junit-golden",
        "junit-conftest",
        "junit-and-report",
        "log-in-golden",
        "record-in-golden",
        "baseline-in-golden",
        "record-folder",
        "report-under-a-file",
        "report-folder",
        "update-over-golden",
        "update-over-conftest",
        "update-over-folder",
        "update-under-a-file",
    ],
)
def test_an_output_that_would_destroy_another_file_is_refused_before_the_run(
    pytester: pytest.Pytester, args: list[str], says: str
) -> None:
    e2e_write_project(pytester)
    assert e2e_run(pytester, *UPDATE).ret == pytest.ExitCode.OK
    (pytester.path / "golden" / "r.json").mkdir()  # a folder named as a report
    before = {p: p.read_bytes() for p in pytester.path.rglob("*") if p.is_file()}
    result = e2e_run(pytester, "--retrieval-eval", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert says in " ".join(e2e_unwrapped(result.stderr.str()).split()), e2e_unwrapped(
        result.stderr.str()
    )
    after = {p: p.read_bytes() for p in pytester.path.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing spoiled


def _unwritable_folder(base: Path) -> Path | None:
    """A folder this process cannot create a file in: a read-only one of its own, or (for
    root, whom permissions do not stop) sysfs's; None when there is none to be had."""
    folder = base / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    for candidate in (folder, Path("/sys/kernel")):
        try:
            with tempfile.TemporaryFile(dir=candidate):
                pass
        except OSError:
            return candidate
    return None


@pytest.mark.parametrize(
    "option", ["--retrieval-report", "--junitxml", "--retrieval-log", "--retrieval-baseline"]
)
def test_an_output_in_a_folder_that_cannot_be_written_is_refused_before_the_run(
    pytester: pytest.Pytester, option: str
) -> None:
    """A read-only folder was found out once every query had run: a report, a log and a
    baseline update 'NOT written', the JUnit XML an INTERNALERROR traceback of pytest's."""
    e2e_write_project(pytester)
    folder = _unwritable_folder(pytester.path)
    if folder is None:
        pytest.skip("no folder this process cannot write")
    name = {"--retrieval-log": "log.jsonl", "--junitxml": "out.xml"}.get(option, "r.json")
    update = ["--retrieval-update-baseline"] if option == "--retrieval-baseline" else []
    try:
        result = e2e_run(pytester, "--retrieval-eval", *update, f"{option}={folder / 'sub' / name}")
    finally:
        (pytester.path / "read-only").chmod(0o755)
    err = " ".join(e2e_unwrapped(result.stderr.str()).split())
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert f"the folder {folder} cannot be written (" in err
    assert "give a path in a folder this run can write" in err
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_log_in_a_hidden_folder_of_a_golden_folder_is_fine(pytester: pytest.Pytester) -> None:
    """The collection leaves hidden folders out: a log there is never read as golden."""
    e2e_write_project(
        pytester, ini=E2E_INI.replace("retrieval_golden = golden", "retrieval_golden = .")
    )
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-log=.retrieval/history.jsonl")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    again = e2e_run(pytester, "--retrieval-eval", "--retrieval-log=.retrieval/history.jsonl")
    assert again.ret == pytest.ExitCode.OK, again.stdout.str()
    refused = e2e_run(pytester, "--retrieval-eval", "--retrieval-log=history.jsonl")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "--retrieval-log history.jsonl is inside the golden folder ." in e2e_unwrapped(
        refused.stderr.str()
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize(
    "args",
    [
        ["--retrieval-record=out.jsonl"],
        ["--retrieval-report=out.json"],
        ["--retrieval-update-baseline", "--retrieval-baseline=out.json"],
        ["--retrieval-baseline=out.json"],  # only read: reading a pipe would hang the run
    ],
    ids=["record", "report", "baseline", "baseline-read"],
)
def test_an_output_on_a_pipe_or_a_device_is_refused_not_replaced_by_a_file(
    pytester: pytest.Pytester, args: list[str]
) -> None:
    # /dev/null given as an output: the atomic rename would replace the device with a
    # file, for every program on the machine (a CI container runs as root)
    e2e_write_project(pytester)
    name = args[-1].split("=")[1]
    os.mkfifo(pytester.path / name)
    result = e2e_run(pytester, "--retrieval-eval", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{name} is a device or a pipe, not a file" in e2e_unwrapped(result.stderr.str())
    assert stat.S_ISFIFO((pytester.path / name).stat().st_mode)


def test_an_update_over_the_replayed_run_or_a_report_is_refused(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    assert e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json").ret == 0
    (pytester.path / "dense.run").write_text("umbrella-needed Q0 weather-forecast 1 2.0 dense\n")
    before = {p: p.read_bytes() for p in pytester.path.rglob("*") if p.is_file()}
    for args, says in (
        (["--retrieval-baseline=r.json"], "writes the baseline r.json, which exists and is not"),
        (
            ["--retrieval-replay=dense.run", "--retrieval-baseline=dense.run"],
            "writes the baseline dense.run, which is the file being replayed",
        ),
    ):
        result = e2e_run(pytester, *UPDATE, *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
        assert says in " ".join(e2e_unwrapped(result.stderr.str()).split())
    assert {p: p.read_bytes() for p in pytester.path.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("README.md", "# My project\n\nHow to install it.\n"),
        ("package.json", '{"name": "my-project", "version": "1.0.0"}\n'),
        ("index.html", "<!DOCTYPE html>\n<html><head><title>Home</title></head></html>\n"),
        ("notes.md", "<!-- a comment -->\n## Retrieval evaluation\n"),
    ],
    ids=["readme", "package-json", "page", "markdown-of-its-own-look"],
)
def test_a_report_over_a_file_that_is_no_report_is_refused_before_the_run(
    pytester: pytest.Pytester, path: str, text: str
) -> None:
    e2e_write_project(pytester)
    (pytester.path / path).write_text(text, encoding="utf-8")
    result = e2e_run(pytester, "--retrieval-eval", f"--retrieval-report={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert (
        f"--retrieval-report {path}: the file exists and is not a pytest-retrieval report (a "
        "README.md, a package.json, a page of your own?): the report would overwrite it; write "
        "the report to a new path, or delete the file first"
    ) in " ".join(e2e_unwrapped(result.stderr.str()).split())
    assert "passed" not in result.stdout.str()  # refused before the run
    assert (pytester.path / path).read_text(encoding="utf-8") == text


def test_a_report_of_its_own_is_written_again_and_an_empty_file_is_filled(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    (pytester.path / "empty.md").write_text("", encoding="utf-8")
    reports = ["r.json", "r.md", "r.html", "empty.md"]
    for _ in range(2):
        done = e2e_run(pytester, "--retrieval-eval", *(f"--retrieval-report={r}" for r in reports))
        assert done.ret == pytest.ExitCode.OK, e2e_unwrapped(done.stderr.str())
    assert (pytester.path / "empty.md").read_text(encoding="utf-8").startswith("<!-- ")


def test_a_recording_or_log_of_its_own_kind_is_written_again(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    for _ in range(2):
        done = e2e_run(
            pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl", "--retrieval-log=h.jsonl"
        )
        assert done.ret == pytest.ExitCode.OK, e2e_unwrapped(done.stderr.str())
    assert len((pytester.path / "h.jsonl").read_text().splitlines()) == 2


def test_a_recording_that_cannot_be_written_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that fills up while the recording is finished: named, and the run fails."""
    from pytest_retrieval.io.recording import RecordingWriter

    def no_room(self: object, *args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    e2e_write_project(pytester)
    monkeypatch.setattr(RecordingWriter, "close", no_room)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    said = " ".join(result.stdout.str().split())
    assert "retrieval recording NOT written: " in said
    assert "rec.jsonl: No space left on device (the run went on without it" in said


def test_a_recording_that_cannot_be_started_names_the_file_asked_for(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only folder: the message names --retrieval-record's path and the reason, not
    the temporary file the recording is written to first."""
    from pytest_retrieval.io.recording import RecordingWriter

    def read_only(self: object, path: Path, *args: object) -> None:
        raise PermissionError(13, "Permission denied", str(path.parent / ".rec.jsonl.x1y2.tmp"))

    e2e_write_project(pytester)
    monkeypatch.setattr(RecordingWriter, "__init__", read_only)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = e2e_unwrapped(result.stderr.str())
    assert "--retrieval-record rec.jsonl: cannot write there: Permission denied" in err
    assert ".tmp" not in err


def test_a_log_append_that_fails_is_named_and_leaves_no_torn_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk: 'NOT written', and the next run reads the log without blaming a killed
    run for a torn last line."""
    from test_history import full_disk_for  # beside this file

    e2e_write_project(pytester)
    assert e2e_run(pytester, "--retrieval-eval", "--retrieval-log=h.jsonl").ret == 0
    with monkeypatch.context() as patch:
        full_disk_for(pytester.path / "h.jsonl", patch)
        full = e2e_run(pytester, "--retrieval-eval", "--retrieval-log=h.jsonl")
    said = " ".join(full.stdout.str().split())
    assert "retrieval log NOT written: h.jsonl: No space left on device" in said, said
    assert len((pytester.path / "h.jsonl").read_bytes().splitlines()) == 1
    again = e2e_run(pytester, "--retrieval-eval", "--retrieval-log=h.jsonl")
    assert again.ret == 0 and "incomplete" not in again.stdout.str()
    assert len((pytester.path / "h.jsonl").read_bytes().splitlines()) == 2


def test_a_disk_that_fills_up_while_recording_fails_the_run_not_the_plugin(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry's write fails mid-run: no INTERNALERROR, no temporary file left behind."""
    from pytest_retrieval.io import recording

    class Full(io.StringIO):
        def write(self, text: str) -> int:
            if '"configuration"' in text:  # the header goes in; the first entry does not
                raise OSError(28, "No space left on device")
            return super().write(text)

    opened = recording.os.fdopen
    monkeypatch.setattr(recording.os, "fdopen", lambda fd, *a, **k: (opened(fd).close(), Full())[1])
    e2e_write_project(pytester)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    assert "INTERNALERROR" not in result.stdout.str() + e2e_unwrapped(result.stderr.str())
    said = " ".join(result.stdout.str().split())
    assert "rec.jsonl: No space left on device (the run went on without it" in said
    assert sorted(p.name for p in pytester.path.iterdir() if "rec" in p.name) == []


def test_a_decimal_comma_tolerance_is_refused_not_read_as_two(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-tolerance", "0,02")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    # named as given: the option, not the ini key
    assert "--retrieval-tolerance: '0,02' has a decimal comma; write a point: 0.02" in (
        e2e_unwrapped(result.stderr.str())
    )


def test_a_regressed_query_marked_skip_is_named_by_the_gate(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    assert e2e_run(pytester, *UPDATE).ret == 0
    catalog = pytester.path / "golden" / "catalog.yaml"
    catalog.write_text(
        catalog.read_text().replace(
            "  - id: convert-euros\n", "  - id: convert-euros\n    skip: flaky today\n"
        )
    )
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    text = " ".join(result.stdout.str().split())
    assert "1 baselined query skipped, not compared" in text
    assert (
        "in the baseline but skipped in this run (skip: or a skip mark), so not compared: "
        "convert-euros"
    ) in text
    assert e2e_load_json(pytester.path / "r.json")["gate"]["skipped"] == ["convert-euros"]


TAMPERED = {
    "emptied": lambda q: q.update(metrics={}),
    "nan": lambda q: q["metrics"].update(mrr=float("nan")),
    "above-one": lambda q: q["metrics"].update(mrr=2.0),
}


@pytest.mark.parametrize("how", list(TAMPERED))
def test_a_tampered_baseline_refuses_the_gate(pytester: pytest.Pytester, how: str) -> None:
    e2e_write_project(pytester)
    assert e2e_run(pytester, *UPDATE).ret == 0
    path = pytester.path / "golden" / "baseline.json"
    data = json.loads(path.read_text())
    TAMPERED[how](data["configurations"]["bm25"]["queries"]["rain-tomorrow"])
    path.write_text(json.dumps(data))
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = " ".join(result.stdout.str().split())
    assert "retrieval gate: REFUSED" in text
    assert "configuration 'bm25': query 'rain-tomorrow'" in text
    assert (
        "Fix or delete the file, or run `pytest --retrieval-eval --retrieval-update-baseline`"
        in (text)
    )


ENUMERATING = """\
import pytest


@pytest.fixture
def retriever():
    return lambda query: list(enumerate(["weather-forecast", "fx-rates"]))
"""


def test_list_enumerate_is_an_error_not_ids_0_and_1(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester, conftest=ENUMERATING)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]["default"]["queries"]
    assert {q["outcome"] for q in queries.values()} == {"error"}
    assert "list(enumerate(ids)) gives (position, id) pairs" in queries["rain-tomorrow"]["error"]


# --------------------------------------------------------------------------- lost items

CRASHING = """\
import os


def fault(configuration, query):
    if configuration == "dense" and query.id == "convert-euros" and os.environ.get("CRASH"):
        os._exit(1)  # the worker dies without a word
"""


def test_a_query_whose_worker_crashed_counts_as_an_error_scoring_zero(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    _with_conftest(pytester, CRASHING)
    assert e2e_run(pytester, *UPDATE).ret == 0
    monkeypatch.setenv("CRASH", "1")
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "-n", "2", "-p", "no:cacheprovider", "--retrieval-report=r.json",
        timeout=120,
    )  # fmt: skip
    text = " ".join(result.stdout.str().split())
    assert "1 golden item sent no result (a crashed worker?); it counts as an error scoring 0" in (
        text
    )
    assert "golden/catalog.yaml::convert-euros[dense]" in text
    report = e2e_load_json(pytester.path / "r.json")
    entry = report["configurations"]["dense"]["queries"]["convert-euros"]
    assert entry["outcome"] == "error" and set(entry["metrics"].values()) == {0.0}
    assert "its xdist worker crashed or was lost" in entry["error"]
    assert report["configurations"]["dense"]["summary"]["all"]["n"] == 7  # not dropped
    assert report["gate"]["verdict"] == "failed"  # its 1.0 -> 0.0 is a regression
    assert result.ret == pytest.ExitCode.TESTS_FAILED


STOPPING = """\
def fault(configuration, query):
    if query.id == "stuffed-weather":
        raise KeyboardInterrupt  # Ctrl-C in the middle of the run
"""


def test_an_interrupted_run_writes_reports_marked_incomplete_and_no_gate(
    pytester: pytest.Pytester,
) -> None:
    _with_conftest(pytester, NO_FAULT)
    assert e2e_run(pytester, *UPDATE).ret == 0
    _with_conftest(pytester, STOPPING)
    result = pytester.runpytest_inprocess(
        "--retrieval-eval", "--retrieval-report=r.json", "--retrieval-report=r.md",
        no_reraise_ctrlc=True,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = e2e_load_json(pytester.path / "r.json")
    assert report["complete"] is False and report["incomplete"] == "interrupted"
    assert "gate" not in report
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    assert "**INCOMPLETE RUN (interrupted)" in markdown
    assert "retrieval gate: PASSED" not in result.stdout.str()


def test_an_interrupted_update_says_in_the_terminal_that_nothing_was_updated(
    pytester: pytest.Pytester,
) -> None:
    # the reports said 'interrupted'; the terminal said nothing of the update asked for,
    # where a SIGTERM or -x says 'not gated, no update'
    _with_conftest(pytester, STOPPING)
    result = pytester.runpytest_inprocess(*UPDATE, no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = " ".join(result.stdout.str().split())
    assert "the run is incomplete (interrupted): not gated, no update" in text
    assert not (pytester.path / "golden" / "baseline.json").exists()


ASYNC_STOPPED_AT_ONCE = """\
import pytest


@pytest.fixture
def retriever():
    async def search(query):
        raise KeyboardInterrupt  # Ctrl-C before the first answer

    return search
"""


def test_an_interrupt_before_any_answer_says_the_report_is_written_and_incomplete(
    pytester: pytest.Pytester,
) -> None:
    """An async retriever stopped by Ctrl-C before it answered anything: the report was
    written ("complete": false) but the terminal said neither that the run was
    incomplete nor that a report was written (the summary was left out when no item
    had run), where an interrupt after some answers says both."""
    e2e_write_project(pytester, conftest=ASYNC_STOPPED_AT_ONCE)
    result = pytester.runpytest_inprocess(
        "--retrieval-eval", "--retrieval-report=r.json", no_reraise_ctrlc=True
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = e2e_load_json(pytester.path / "r.json")
    assert report["complete"] is False and report["incomplete"] == "interrupted"
    text = " ".join(result.stdout.str().split())
    assert "the run is incomplete (interrupted): not gated, no update" in text, text
    assert "retrieval report written: r.json" in text  # as given, from the run's folder
    # without a report to write, nothing ran and pytest's own line says why, as before
    quiet = pytester.runpytest_inprocess("--retrieval-eval", no_reraise_ctrlc=True)
    assert "retrieval evaluation" not in quiet.stdout.str()


EXITING = """\
def fault(configuration, query):
    if query.id == "stuffed-weather":
        pytest.exit("the service is down", returncode=3)  # ends the session at once
"""


@pytest.mark.parametrize("xdist", [[], ["-n", "1"]], ids=["serial", "xdist"])
def test_pytest_exit_with_a_code_marks_the_reports_incomplete_and_updates_nothing(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """pytest.exit(returncode=3) in the retriever ends the session with that code (not
    INTERRUPTED; under xdist, an internal error of xdist's), and the query that called it
    reports nothing: the report said "complete": true over the queries that ran before,
    its means raised by the query left out, as a Ctrl-C at the same place is not."""
    if xdist:
        pytest.importorskip("xdist")
    _with_conftest(pytester, EXITING)
    result = e2e_run(pytester, *UPDATE, "--retrieval-report=r.json", *xdist)
    assert result.ret == 3  # pytest.exit's code; xdist's INTERNAL_ERROR is 3 too
    report = e2e_load_json(pytester.path / "r.json")
    assert report["complete"] is False
    why = "an error (AssertionError)" if xdist else "pytest.exit: the service is down"
    assert report["incomplete"] == f"stopped early: {why}"
    assert not (pytester.path / "golden" / "baseline.json").exists()


@pytest.mark.parametrize("xdist", [[], ["-n", "1"]], ids=["serial", "xdist"])
def test_a_run_stopped_by_x_is_not_gated_and_updates_nothing(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    if xdist:  # xdist's controller is stopped by its own exception, not session.shouldfail
        pytest.importorskip("xdist")
    e2e_write_project(pytester)
    catalog = pytester.path / "golden" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("{mrr: 0.5}", "{mrr: 1.0}"))
    result = e2e_run(pytester, *UPDATE, "-x", "--retrieval-report=r.json", *xdist)
    stopped = pytest.ExitCode.INTERRUPTED if xdist else pytest.ExitCode.TESTS_FAILED  # xdist's
    assert result.ret == stopped
    text = " ".join(result.stdout.str().split())
    assert "the run is incomplete (stopped early: stopping after 1 failures)" in text
    assert not (pytester.path / "golden" / "baseline.json").exists()
    report = e2e_load_json(pytester.path / "r.json")
    assert report["complete"] is False
    assert report["incomplete"] == "stopped early: stopping after 1 failures"


# --------------------------------------------------------------------------- timeout, repeat

HANGING = """\
import time


def fault(configuration, query):
    if configuration == "bm25" and query.id == "umbrella-needed":
        time.sleep(60)  # a call that does not come back in time
"""


def test_a_retriever_call_past_the_timeout_is_an_error_and_the_run_goes_on(
    pytester: pytest.Pytester,
) -> None:
    _with_conftest(pytester, HANGING)
    result = e2e_run(
        pytester, "--retrieval-eval", "--retrieval-timeout", "0.5", "--retrieval-report=r.json"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=13, failed=1)
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]["bm25"]["queries"]
    entry = queries["umbrella-needed"]
    assert entry["outcome"] == "error" and set(entry["metrics"].values()) == {0.0}
    assert entry["error"].startswith(
        "the retriever did not return within 0.5 s (retrieval_timeout): the call was abandoned"
    )
    assert result.duration < 30  # the run did not wait for the call


SHUFFLING = """\
def fault(configuration, query):
    if configuration == "dense" and query.id == "rain-tomorrow":
        ranking = RANKINGS["dense"]["rain-tomorrow"]
        ranking.append(ranking.pop(0))  # a different order on every call
"""


def test_retrieval_repeat_names_rankings_that_do_not_reproduce(pytester: pytest.Pytester) -> None:
    _with_conftest(pytester, SHUFFLING, ini=E2E_INI + "retrieval_repeat = 5\n")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    text = " ".join(result.stdout.str().split())
    assert "RetrievalReproducibilityWarning: dense: 1 of 7 queries ranked differently" in text
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]
    overlap = queries["dense"]["queries"]["rain-tomorrow"]["repeat_overlap"]
    how = (
        "the same top-k results, in another order"  # not "overlap 1.00", read as no change
        if overlap == 1.0
        else f"top-k overlap {overlap:.2f}"
    )
    assert f"(retrieval_repeat): rain-tomorrow ({how});" in text
    assert queries["bm25"]["queries"]["rain-tomorrow"]["repeat_overlap"] == 1.0
    assert queries["dense"]["queries"]["umbrella-needed"]["repeat_overlap"] == 1.0


@pytest.mark.parametrize(
    ("rankings", "overlap"),
    [
        ((["d1"], ["d1", "d2"]), 0.5),  # a result more on the second call
        ((["d1", "d2"], ["d1"]), 0.5),  # a result fewer
        ((["d1", "d2"], ["d2", "d1"]), 1.0),  # the same results, in another order
        ((["d1", "d2", "d3"], ["d1", "d2", "d4"]), 2 / 3),
        (([], []), 1.0),
        (([], ["d1"]), 0.0),
    ],
)
def test_a_repeat_that_returns_more_results_is_not_the_same_results_in_another_order(
    rankings: tuple[list[str], ...], overlap: float
) -> None:
    """The overlap counted only the first call's results found in the other's: a second
    call returning ['d1', 'd2'] after ['d1'] was named 'the same top-k results, in
    another order'."""
    from pytest_retrieval.runner import Repeats

    found = Repeats.of(rankings, 10)
    assert found.overlap == pytest.approx(overlap)
    assert found.same == (rankings[0] == rankings[1])


RAISING_ON_REPEAT = """\
CALLS = {}


def fault(configuration, query):
    key = (configuration, query.id)
    CALLS[key] = CALLS.get(key, 0) + 1
    if key == ("dense", "rain-tomorrow") and CALLS[key] == 2:
        raise ConnectionError("index shard 3 unreachable")
"""


@pytest.mark.parametrize("items", ["query", "category"])
def test_a_repeat_call_that_raises_is_the_querys_error_not_a_ranking_that_differs(
    pytester: pytest.Pytester, items: str
) -> None:
    _with_conftest(pytester, RAISING_ON_REPEAT, ini=E2E_INI + "retrieval_repeat = 3\n")
    args = ("--retrieval-eval", f"--retrieval-items={items}", "--retrieval-report=r.json")
    result = e2e_run(pytester, *args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    lines = (line[1:] if line.startswith("E ") else line for line in result.outlines)
    text = " ".join(" ".join(lines).split())  # wrapped, and under pytest's "E" in a traceback
    assert "ranked differently" not in text
    assert (
        "repeat call 2 of 3 (retrieval_repeat = 3): the retriever raised ConnectionError: index "
        "shard 3 unreachable; the first call answered" in text
    )
    assert 'raise ConnectionError("index shard 3 unreachable")' in text  # the user's traceback
    entry = e2e_load_json(pytester.path / "r.json")["configurations"]["dense"]["queries"][
        "rain-tomorrow"
    ]
    assert entry["outcome"] == "error" and set(entry["metrics"].values()) == {0.0}
    assert entry["repeat_error"] == (
        "call 2 of 3: the retriever raised ConnectionError: index shard 3 unreachable"
    )
    assert (
        read_report(pytester.path / "r.json").configurations["dense"]["rain-tomorrow"].repeat_error
        == entry["repeat_error"]
    )


# --------------------------------------------------------------------------- hostile YAML


def test_an_alias_bomb_is_a_collection_error_not_a_hang(pytester: pytest.Pytester) -> None:
    e2e_write_project(pytester)
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i, name in enumerate("bcdefghi"):
        previous = "abcdefghi"[i]
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    bomb = "\n".join(
        [f"x-{line}" for line in levels]
        + ["queries:", "  - {id: bomb, query: q, relevant: {}, filters: {b: *i}}"]
    )
    (pytester.path / "golden" / "bomb.yaml").write_text(
        bomb.replace("*", "*x-").replace("&", "&x-") + "\n"
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "the file expands to far more values than it holds, through YAML aliases" in (
        result.stdout.str()
    )


ENDLESS = {
    "sync": """
import itertools

import pytest


@pytest.fixture(params=["bm25"])
def retriever(request):
    def search(query):
        return itertools.count() if query.id == "rain-tomorrow" else ["weather-forecast"]

    return search
""",
    "async": """
import asyncio
import itertools

import pytest


@pytest.fixture(params=["bm25"])
def retriever(request):
    async def search(query):
        await asyncio.sleep(0)
        return itertools.count() if query.id == "rain-tomorrow" else ["weather-forecast"]

    return search
""",
    "batch": """
import itertools

import pytest

import pytest_retrieval


@pytest.fixture(params=["bm25"])
def retriever(request):
    @pytest_retrieval.batch
    def search(queries):
        return [itertools.count() if q.id == "rain-tomorrow" else ["weather-forecast"]
                for q in queries]

    return search
""",
}


@pytest.mark.parametrize("kind", list(ENDLESS))
def test_an_endless_iterator_is_one_querys_error_and_the_run_goes_on(
    pytester: pytest.Pytester, kind: str
) -> None:
    """It would fill the memory (the process killed, no report): cut and refused."""
    e2e_write_project(pytester, conftest=ENDLESS[kind])
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = " ".join(result.stdout.str().split())
    assert "the retriever returned more than 1,000,000 results (a list); a ranking" in text
    report = e2e_load_json(pytester.path / "r.json")["configurations"]["bm25"]["queries"]
    assert report["rain-tomorrow"]["outcome"] == "error"
    assert report["rain-tomorrow"]["metrics"]["ndcg@10"] == 0.0
    assert sum(q["outcome"] == "error" for q in report.values()) == 1


# --------------------------------------------------------------------------- SIGTERM

TERMINATED = """\
import os, signal

def fault(configuration, query):
    if query.id == "stuffed-weather":
        os.kill(os.getpid(), signal.SIGTERM)  # a CI runner cancelling the job
"""


def _leftovers(folder: Path, pattern: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if fnmatch.fnmatch(p.name, pattern))


def test_a_terminated_run_leaves_no_temporary_recording(pytester: pytest.Pytester) -> None:
    _with_conftest(pytester, TERMINATED)
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "--retrieval-record=rec.jsonl", "-p", "no:cacheprovider", timeout=120
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    assert _leftovers(pytester.path, "*.tmp") == []
    assert "Traceback" not in result.stdout.str() + e2e_unwrapped(result.stderr.str())
    recording = (pytester.path / "rec.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(recording[-1])["complete"] is False  # what was recorded, marked so


def test_a_terminated_replay_on_workers_leaves_no_temporary_folder(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _with_conftest(pytester, NO_FAULT)
    assert e2e_run(pytester, "--retrieval-eval", "--retrieval-record=rec.jsonl").ret == 0
    pytester.makeconftest(
        "import os, signal\n"
        "def pytest_runtest_call(item):\n"
        "    if 'stuffed-weather' in item.nodeid:\n"
        "        os.kill(os.getppid(), signal.SIGTERM)  # the controller is terminated\n"
    )
    temporary = pytester.mkdir("tmp")
    monkeypatch.setenv("TMPDIR", str(temporary))
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "--retrieval-replay=rec.jsonl", "-n", "2", "-p", "no:cacheprovider",
        timeout=120,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    assert _leftovers(temporary, "pytest-retrieval-replay-*") == []
    assert "Traceback" not in result.stdout.str() + e2e_unwrapped(result.stderr.str())


UNPRINTABLE = """\
class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("a bug in the exception's own __str__")


def fault(configuration, query):
    if query.id == "stuffed-weather" and configuration == "dense":
        raise Unprintable()
"""


def test_an_exception_whose_str_raises_is_the_querys_error(pytester: pytest.Pytester) -> None:
    """Named as the retriever's error and scored 0, not a traceback through the plugin."""
    _with_conftest(pytester, UNPRINTABLE)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "pytest_retrieval/runner.py" not in out and "INTERNALERROR" not in out, out
    entry = e2e_load_json(pytester.path / "r.json")["configurations"]["dense"]["queries"][
        "stuffed-weather"
    ]
    assert entry["outcome"] == "error" and set(entry["metrics"].values()) == {0.0}
    assert entry["error"] == "the retriever raised Unprintable: <its str() raised RuntimeError>"


def test_a_fixture_raising_an_exception_whose_str_raises_is_an_error_not_internal(
    pytester: pytest.Pytester,
) -> None:
    """The retriever fixture's setup failed with such an exception: INTERNALERROR."""
    e2e_write_project(pytester, conftest=(
        "import pytest\n\n"
        "class Unprintable(Exception):\n"
        "    def __str__(self):\n"
        "        raise RuntimeError('a bug in __str__')\n\n"
        "@pytest.fixture(scope='session', params=['bm25'])\n"
        "def retriever(request):\n"
        "    raise Unprintable()\n"
    ))  # fmt: skip
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    out = result.stdout.str()
    assert "INTERNALERROR" not in out + e2e_unwrapped(result.stderr.str()), out
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    entry = e2e_load_json(pytester.path / "r.json")["configurations"]["bm25"]["queries"][
        "convert-euros"
    ]
    assert entry["outcome"] == "error"
    assert entry["error"] == "setup failed: Unprintable: <its str() raised RuntimeError>"


LONG_NAME = "x" * 300  # past the 255 bytes a file name may have


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--retrieval-report", f"{LONG_NAME}.json"], "--retrieval-report xxxx"),
        (["--retrieval-record", f"{LONG_NAME}.jsonl"], "--retrieval-record xxxx"),
        (["--retrieval-log", f"{LONG_NAME}.jsonl"], "--retrieval-log xxxx"),
        (["--retrieval-baseline", f"{LONG_NAME}.json"], "the baseline xxxx"),
        (["--retrieval-replay", f"{LONG_NAME}.jsonl"], "--retrieval-replay: no such file: xxxx"),
        (["-o", f"retrieval_golden={LONG_NAME}"], "retrieval_golden: xxxx"),
    ],
)
def test_a_file_name_longer_than_the_system_allows_is_a_usage_error(
    pytester: pytest.Pytester, args: list[str], says: str
) -> None:
    e2e_write_project(pytester)
    result = e2e_run(pytester, "--retrieval-eval", *args)
    err = e2e_unwrapped(result.stderr.str())
    assert result.ret == pytest.ExitCode.USAGE_ERROR, err
    assert "INTERNALERROR" not in err + result.stdout.str()
    assert says in err and "characters)" in err  # the name shown cut, not 300 x
    assert max(len(line) for line in err.splitlines()) < 300


def test_two_runs_updating_one_baseline_take_turns_and_keep_both(
    pytester: pytest.Pytester,
) -> None:
    from pytest_retrieval.io.atomic import folder_locked

    e2e_write_project(pytester)
    baseline = pytester.path / "golden" / "baseline.json"
    assert e2e_run(pytester, *UPDATE, "-k", "bm25").ret == 0
    other_run = baseline.read_text(encoding="utf-8")  # what the other run will write
    baseline.unlink()
    locked, done = threading.Event(), threading.Event()

    def other_update() -> None:  # holds the lock while this run reaches its update
        with folder_locked(baseline):
            locked.set()
            time.sleep(1.0)
            baseline.write_text(other_run, encoding="utf-8")
        done.set()

    threading.Thread(target=other_update, daemon=True).start()
    locked.wait(5)
    assert e2e_run(pytester, *UPDATE, "-k", "dense").ret == 0
    done.wait(5)
    written = e2e_load_json(baseline)["configurations"]
    assert sorted(written) == ["bm25", "dense"]  # the later update merged the earlier one


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_the_lock_of_a_first_update_into_a_new_folder_is_held(tmp_path: Path) -> None:
    """Two first updates into a folder not made yet take turns too: the lock makes the
    folder (the write would) and holds it, where it used to lock nothing."""
    import fcntl

    from pytest_retrieval.io.atomic import folder_locked

    baseline = tmp_path / "new" / "deeper" / "baseline.json"
    with folder_locked(baseline):
        fd = os.open(baseline.parent, os.O_RDONLY)  # another open file: another run's
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    fd = os.open(baseline.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released at the end
    finally:
        os.close(fd)


def test_a_warning_at_a_megabyte_long_golden_line_shows_the_line_cut(
    pytester: pytest.Pytester,
) -> None:
    """The noise warning sits at a category's first query; pytest prints that line of the
    file whole, and a JSON Lines query may be a passage of a megabyte."""
    import linecache

    e2e_write_project(pytester)
    long_query = {"id": "long", "query": "word " * 200_000, "relevant": {"weather-forecast": 3}}
    (pytester.path / "golden" / "long.jsonl").write_text(
        json.dumps({**long_query, "category": "passages"}) + "\n", encoding="utf-8"
    )
    pytester.makeconftest(
        "import pytest\n@pytest.fixture\ndef retriever():\n"
        "    return lambda q: ['weather-forecast']\n"
    )
    # -v: a warning per category (without it, those of several are one, at the file
    # holding most queries)
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly", "-v")
    out = result.stdout.str()
    assert "RetrievalNoiseWarning: passages: n=1" in " ".join(out.split())
    assert '{"id": "long", "query": "word word' in out  # the line, cut to the width
    assert max(len(line) for line in out.splitlines()) < 200
    assert "golden/long.jsonl" not in linecache.cache  # the cut lines were for the summary


@pytest.mark.parametrize("option", ["--setup-plan", "--setup-only"])
def test_setup_plan_runs_no_query_so_nothing_is_evaluated_or_gated(
    pytester: pytest.Pytester, option: str
) -> None:
    """No item's body runs: not 14 queries 'sent no result (a crashed worker?)' scoring 0."""
    e2e_write_project(pytester)
    assert e2e_run(pytester, *UPDATE).ret == 0
    result = e2e_run(pytester, "--retrieval-eval", option, "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.OK
    out = result.stdout.str()
    assert "sent no result" not in out and "retrieval gate" not in out
    assert not (pytester.path / "r.json").exists()


def test_without_the_terminal_plugin_the_evaluation_runs_and_writes_its_reports(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:terminal", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.OK  # the warnings' wrapping asked for the terminal
    assert e2e_load_json(pytester.path / "r.json")["complete"] is True


def test_without_the_python_plugin_the_evaluation_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:python")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "needs pytest's python plugin: remove -p no:python" in e2e_unwrapped(result.stderr.str())


def test_a_megabyte_query_fails_and_is_shown_with_its_text_cut(pytester: pytest.Pytester) -> None:
    """A passage used as a query: its failure and --retrieval-show print its start and
    length (the failure was 13,000 wrapped lines)."""
    e2e_write_project(pytester)
    query = {"id": "long", "query": "word " * 200_000, "relevant": {"nowhere": 3}}
    (pytester.path / "golden" / "long.jsonl").write_text(
        json.dumps({**query, "expect": {"mrr": 1.0}}) + "\n", encoding="utf-8"
    )
    pytester.makeconftest(
        "import pytest\n@pytest.fixture\ndef retriever():\n    return lambda q: ['a', 'b']\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", "-k", "long", "--retrieval-show=long")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert len(out.splitlines()) < 200
    assert max(len(line) for line in out.splitlines() if "rootdir:" not in line) <= 80
    assert "... (1,000,000 characters)" in " ".join(out.split())


STOP_ITERATION = """
import pytest

@pytest.fixture(scope="session", params=["gen", "coro"])
def retriever(request):
    def gen(query):
        yield "weather-forecast"
        next(iter([]))  # the user's bug: Python turns it into a RuntimeError (PEP 479)

    async def coro(query):
        return [next(iter([]))]

    return {"gen": gen, "coro": coro}[request.param]
"""


@pytest.mark.parametrize("items", ["query", "category"])
def test_a_stopiteration_let_out_of_a_generator_or_coroutine_shows_the_users_line(
    pytester: pytest.Pytester, items: str
) -> None:
    """Python raises the RuntimeError where the plugin consumes the generator or awaits
    the coroutine; the user's StopIteration is its cause: shown, and no plugin frame."""
    e2e_write_project(pytester, conftest=STOP_ITERATION)
    result = e2e_run(pytester, "--retrieval-eval", f"--retrieval-items={items}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "pytest_retrieval/" not in out, out
    assert "next(iter([]))  # the user's bug" in out, out
    for kind in ("generator", "coroutine"):
        assert f"RuntimeError: {kind} raised StopIteration" in out, out


def test_an_update_whose_every_query_was_skipped_says_so(pytester: pytest.Pytester) -> None:
    """A retriever fixture that calls pytest.skip (no index on this machine) skips every
    item: the update wrote no baseline, saying "no query was evaluated without an error",
    as if they had errored."""
    conftest = (
        "import pytest\n\n\n@pytest.fixture(scope='session')\ndef retriever():\n"
        "    pytest.skip('no index here')\n"
    )
    e2e_write_project(pytester, conftest=conftest)
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline")
    assert (
        "retrieval baseline not written: no query was evaluated without an error (7 "
        "skipped); a baseline holds the numbers of queries that ran: run the update where "
        "the retriever answers"
    ) in " ".join(result.stdout.str().split())
    assert not (pytester.path / "golden" / "baseline.json").exists()
