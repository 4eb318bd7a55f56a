"""The files a run writes, checked before anything runs: none may overwrite another,
the baseline it gates against, the files it replays, or a file of another kind
(pytest's ``--junitxml`` among the others, which it writes over any file).

A report, a recording and the history log each get a path of their own; a report
replaces only a report of the plugin's, a recording only a recording, the JUnit XML
only an XML file, the log appends only to a log, and a baseline update replaces only a
baseline (a golden file, a README.md or a conftest.py given there by mistake stays as it
was). Each refusal is a usage error that names the option, the file and the fix.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from ..io.atomic import write_target
from ..io.baseline_file import looks_like_baseline
from ..io.golden_file import collected_under
from ..io.history_file import holds_other_data
from ..io.recording import is_recording
from ..quoting import SHOWN, quoted
from ..report.marks import NOT_A_REPORT, is_own_report
from ..settings import RunSettings
from .outputs import log_path
from .usage import usage_error


def _outputs(config: pytest.Config, run: RunSettings) -> list[tuple[str, Path]]:
    """(how the option names it, path) of every file this run writes but the baseline."""
    base = config.invocation_params.dir
    found = [(f"--retrieval-report {_shown(p)}", base / p) for p in run.run.reports]
    if run.run.calls.record is not None:
        record = run.run.calls.record
        found.append((f"--retrieval-record {_shown(record)}", base / record))
    log = log_path(config, run)
    if log is not None and run.run.log is not None:
        found.append((f"--retrieval-log {_shown(run.run.log)}", log))
    junit = getattr(config.option, "xmlpath", None)
    if junit:  # pytest's own file, which it writes over whatever is there
        written = os.path.expanduser(os.path.expandvars(junit))  # as pytest reads the path
        found.append((f"--junitxml {_shown(junit)}", base / written))
    return found


def _shown(path: str) -> str:
    """A path as a message names it: cut when it is hundreds of characters long."""
    return quoted(path, "", width=2 * SHOWN)


def _refuse_unusable(what: str, path: Path, written: bool = True) -> None:
    """A path the system refuses to look at (a name longer than the file system allows,
    a loop of links), or a device or a pipe (``/dev/null``, which the atomic rename would
    replace with a file), is a usage error now, not a traceback when the file is written."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        _refuse(f"{what}: the path cannot be used ({exc.strerror or exc}); give another path")
    try:
        write_target(path)
    except OSError:  # read only (a baseline that is not updated), a pipe would hang the run
        harm = ": a write would replace it with a file" if written else ""
        _refuse(f"{what} is a device or a pipe, not a file{harm}; give the path of a file")


def _refuse_unwritable(what: str, folder: Path) -> None:
    """A folder the run cannot create files in (read only, another user's, a read-only
    file system) is a usage error now, not a file left unwritten (or pytest's traceback,
    for the JUnit XML) once every query has run. Tried with a nameless temporary file,
    which leaves nothing behind."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        _refuse(
            f"{what}: the folder {folder} cannot be written ({exc.strerror or exc}): give a "
            "path in a folder this run can write"
        )


def _refuse(text: str) -> None:
    raise usage_error(text)


def refuse_clashing_outputs(config: pytest.Config, run: RunSettings, baseline: Path) -> None:
    """Usage errors for outputs that would destroy another file; see the module."""
    outputs = _outputs(config, run)
    replayed = {(config.invocation_params.dir / p).resolve() for p in run.run.calls.replay}
    seen: dict[Path, str] = {}
    _refuse_unusable(f"the baseline {_shown(run.run.baseline)}", baseline, run.run.update_baseline)
    for what, path in outputs:
        _refuse_unusable(what, path)
        resolved = path.resolve()
        if path.is_dir():
            _refuse(f"{what} is a folder: give the path of a file to write")
        blocking = next((p for p in path.parents if p.exists()), None)
        if blocking is not None and not blocking.is_dir():
            _refuse(f"{what}: {blocking} is a file, not a folder: give a path in a folder")
        if blocking is not None:
            _refuse_unwritable(what, blocking)
        if resolved == baseline.resolve():
            kind = what.split()[0].removeprefix("--retrieval-").replace("--junitxml", "JUnit XML")
            harm = "append to" if kind == "log" else "overwrite"
            _refuse(
                f"{what} is the baseline file ({run.run.baseline}): the {kind} would {harm} "
                f"it; write the {kind} to another file"
            )
        if resolved in replayed:
            _refuse(f"{what} is the file being replayed: write it to another file")
        if resolved in seen:
            _refuse(
                f"{seen[resolved]} and {what} are the same file: one would replace the other; "
                "give each its own path"
            )
        seen[resolved] = what
    _refuse_other_kinds(outputs)
    for what, path in outputs:
        _refuse_inside_golden(config, run, what, path)
    if run.run.update_baseline:
        _refuse_replacing_with_a_baseline(run, baseline, replayed)
        _refuse_inside_golden(config, run, f"the baseline {_shown(run.run.baseline)}", baseline)


def _refuse_inside_golden(config: pytest.Config, run: RunSettings, what: str, path: Path) -> None:
    """An output a golden folder would collect (a ``.jsonl`` log or recording there): the
    run writes it, and the next one stops on it, as on any file that is no golden file."""
    skipped = config.getini("norecursedirs")
    written = {Path(os.path.abspath(path)), path.resolve()}
    for given in run.run.golden:
        folder = config.rootpath / given
        if folder.is_dir() and any(
            collected_under(root, target, skipped)
            for root in {Path(os.path.abspath(folder)), folder.resolve()}
            for target in written
        ):
            _refuse(
                f"{what} is inside the golden folder {given}: the next run would collect it "
                "as a golden file and stop there; write it outside the golden folders"
            )


def _refuse_replacing_with_a_baseline(
    run: RunSettings, baseline: Path, replayed: set[Path]
) -> None:
    """``--retrieval-update-baseline`` writes the baseline: never over a folder, a file
    being replayed, or an existing file that is no baseline (a golden file, a report)."""
    what = f"--retrieval-update-baseline writes the baseline {_shown(run.run.baseline)}"
    if baseline.is_dir():
        _refuse(f"{what}, which is a folder: give the baseline the path of a file")
    blocking = next((p for p in baseline.parents if p.exists()), None)
    if blocking is not None and not blocking.is_dir():
        shown = _relative(blocking, baseline, run.run.baseline)
        _refuse(f"{what}: {shown} is a file, not a folder: give the baseline a path in a folder")
    if blocking is not None:  # found out once every query had run: 'NOT written'
        _refuse_unwritable(what, blocking)
    if baseline.resolve() in replayed:
        _refuse(f"{what}, which is the file being replayed: give the baseline its own path")
    if _has_content(baseline) and not looks_like_baseline(baseline):
        _refuse(
            f"{what}, which exists and is not a baseline (a golden file, a report, a "
            "conftest.py?): updating would overwrite it; give the baseline its own path "
            "(retrieval_baseline or --retrieval-baseline), or delete the file first"
        )


def _relative(blocking: Path, path: Path, written: str) -> str:
    """``blocking`` (a parent of ``path``) as the option wrote ``path``."""
    up = len(path.relative_to(blocking).parts)
    parts = Path(written).parts
    return str(Path(*parts[:-up])) if 0 < up < len(parts) else str(blocking)


def _refuse_other_kinds(outputs: list[tuple[str, Path]]) -> None:
    for what, path in outputs:
        if what.startswith("--retrieval-report") and _has_content(path) and not is_own_report(path):
            _refuse(f"{what}: {NOT_A_REPORT}")
        if what.startswith("--retrieval-record") and _has_content(path) and not is_recording(path):
            _refuse(
                f"{what}: the file exists and is not a recording (a golden file, a conftest.py?): "
                "recording would overwrite it; record to a new path, or delete the file first"
            )
        if what.startswith("--junitxml") and _has_content(path) and not _is_junit_xml(path):
            _refuse(
                f"{what}: the file exists and is not JUnit XML (a golden file, a report, a "
                "conftest.py?): the JUnit XML would overwrite it; write it to a new path, or "
                "delete the file first"
            )
        if what.startswith("--retrieval-log") and holds_other_data(path):
            _refuse(
                f"{what}: the file exists and is not a pytest-retrieval log (its first line is "
                "no log entry): appending would spoil it; log to a new path"
            )


def _is_junit_xml(path: Path) -> bool:
    """Whether the file starts as XML does (pytest's JUnit XML: ``<?xml ...?><testsuites``)."""
    try:
        with path.open("rb") as file:
            start = file.read(64)
    except OSError:
        return True  # not readable: pytest's own write will say what is wrong
    return start.removeprefix(b"\xef\xbb\xbf").lstrip().startswith((b"<?xml", b"<testsuite"))


def _has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


__all__ = ["refuse_clashing_outputs"]
