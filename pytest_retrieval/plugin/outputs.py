"""What the controller writes beside the reports: the history log and GitHub Actions output.

- ``--retrieval-log PATH``: the log is read (each unreadable line a
  :class:`~pytest_retrieval.RetrievalLogWarning` at its line), the previous run of the same
  label found, and this run appended (:mod:`pytest_retrieval.io.history_file`).
- Under GitHub Actions (``GITHUB_ACTIONS=true``, unless ``retrieval_github = false``): the
  Markdown report is appended to ``$GITHUB_STEP_SUMMARY`` and the findings become
  ``::error`` annotations at the golden file's line (printed by the terminal summary).
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import linecache
import os
import textwrap
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _pytest.warnings import catch_warnings_for_item

from .._version import __version__
from ..advice import RetrievalLogWarning, RetrievalWarning
from ..history import LogEntry, RunStamp, SincePrevious, previous_run, since_previous
from ..io.atomic import SURROGATES
from ..io.history_file import append_entry, read_log
from ..io.provenance import git_commit, git_dirty
from ..model import Results
from ..report.github import workflow_commands
from ..report.markdown import markdown_report
from ..report.run_report import RunReport
from ..settings import LOG, RunSettings
from .terminal import full_width


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def stamp(root: Path, time: str) -> RunStamp:
    """The run's time, the git commit and dirty flag at ``root``, the plugin's version."""
    return RunStamp(time, git_commit(root), git_dirty(root), f"pytest-retrieval {__version__}")


def shown_path(config: pytest.Config, path: Path) -> str:
    try:
        return str(path.relative_to(config.rootpath))
    except ValueError:
        return str(path)


def log_path(config: pytest.Config, run: RunSettings) -> Path | None:
    """The log: the option's path from the current folder, the ini key's from the rootdir."""
    if not run.run.log:
        return None
    given = config.getoption(LOG.name, None)
    base = config.invocation_params.dir if given else config.rootpath
    return base / run.run.log


def warning_text(
    config: pytest.Config, kind: type[Warning], text: str, path: str, line: int
) -> str:
    """``text`` wrapped to the terminal as pytest's warnings summary shows it, after
    ``path:line: Kind: `` on its first line (pytest indents the summary by 2 or 4);
    never at a hyphen, and inside a word only when it is longer than a line, so an
    option, a path or a name to copy stays whole: a first word that does not fit beside
    ``path:line: Kind: `` starts the next line."""
    width = max(full_width(config) - 4, 40)
    prefix = " " * len(f"{path}:{line}: {kind.__name__}: ")
    wrap = functools.partial(textwrap.wrap, width=width, break_on_hyphens=False)
    wrapped = wrap(text, initial_indent=prefix, break_long_words=False)
    if wrapped and len(wrapped[0]) > width:
        wrapped = ["", *wrap(text, break_long_words=False)]
    if any(len(shown) > width for shown in wrapped):  # a word longer than a line
        wrapped = wrap(text, initial_indent=prefix)
    return "\n".join(wrapped).removeprefix(prefix)


def warnings_on(config: pytest.Config) -> bool:
    """Whether pytest's warnings plugin runs: under ``-p no:warnings`` the plugin's
    advice is not issued (its summary would show all the same, through the hook)."""
    return config.pluginmanager.has_plugin("warnings")


def warn_at(config: pytest.Config, text: str, path: str, line: int, shown: str = "") -> bool:
    """Issue a log warning through pytest's filters, wrapped to the terminal as the golden
    files' are; False when -W made it an error. ``shown``: what the warnings summary
    prints for the line, cut to the terminal (pytest prints the file's line itself, whole,
    when not told otherwise: a log line may be megabytes)."""
    width = max(full_width(config) - 8, 40)  # pytest indents the line by 4
    if len(shown) > width:
        shown = shown[: width - 3] + "..."
    if not warnings_on(config):
        return True
    wrapped = warning_text(config, RetrievalLogWarning, text, path, line)
    with (
        _line_shown_as(path, line, shown),
        catch_warnings_for_item(config, config.hook, "runtest", None),
    ):
        try:
            warnings.warn_explicit(RetrievalLogWarning(wrapped), RetrievalLogWarning, path, line)
        except RetrievalWarning:
            return False
    return True


def warn_at_golden_line(
    config: pytest.Config, kind: type[Warning], text: str, path: str, line: int
) -> None:
    """Issue ``text`` as a ``kind`` warning at a golden file's line, wrapped to the
    terminal, through pytest's filters (``-W error`` raises it here); the line pytest
    prints under it is cut to the terminal, as a JSON Lines query is one long line."""
    if not warnings_on(config):
        return
    with (
        sources_cut(config, [path]),
        catch_warnings_for_item(config, config.hook, "collect", None),
    ):
        warnings.warn_explicit(kind(warning_text(config, kind, text, path, line)), kind, path, line)


@contextlib.contextmanager
def _line_shown_as(path: str, line: int, shown: str) -> Iterator[None]:
    """Within: ``linecache`` (which a warning's text takes its source line from) gives
    ``shown`` for ``path``'s line ``line``; the cache is as it was after."""
    if not shown or line < 1:
        yield
        return
    before = linecache.cache.get(path)
    lines = [""] * (line - 1) + [shown + "\n"]
    linecache.cache[path] = (len(shown), None, lines, path)  # no mtime: not checked
    try:
        yield
    finally:
        if before is None:
            linecache.cache.pop(path, None)
        else:
            linecache.cache[path] = before


@contextlib.contextmanager
def sources_cut(config: pytest.Config, paths: Iterable[str]) -> Iterator[None]:
    """Within: ``linecache`` gives each file of ``paths`` with its lines longer than the
    terminal cut, so a warning located at a golden file's line shows a line that fits
    (pytest prints the whole line: a JSON Lines query may be a megabyte), each as it is
    now on disk; as it was after."""
    width = max(full_width(config) - 8, 40)
    for path in set(paths):
        linecache.checkcache(path)  # a file read before and changed since: read anew
    before = {path: linecache.cache.get(path) for path in set(paths)}
    for path in before:
        lines = linecache.getlines(path)
        if any(len(line) > width + 1 for line in lines):
            cut = [
                line if len(line) <= width + 1 else line[: width - 3] + "...\n" for line in lines
            ]
            linecache.cache[path] = (sum(map(len, cut)), None, cut, path)  # no mtime: kept
    try:
        yield
    finally:
        for path, entry in before.items():
            if entry is None:
                linecache.cache.pop(path, None)
            else:
                linecache.cache[path] = entry


@dataclass
class History:
    """The log after this run: where it is, its runs (this one last when appended)."""

    path: Path
    shown: str
    label: str
    entries: list[LogEntry] = field(default_factory=list)
    since: SincePrevious | None = None
    appended: bool = False
    notes: list[str] = field(default_factory=list)
    escalated: list[str] = field(default_factory=list)
    failed: bool = False  # the log could not be written


def record_run(config: pytest.Config, path: Path, entry: LogEntry) -> History:
    """Read the log (warning about each line skipped), compare, then append this run."""
    shown = shown_path(config, path)
    history = History(path, shown, entry.label)
    try:
        read = read_log(path)
    except OSError as exc:
        history.notes.append(f"retrieval log could not be read: {shown}: {exc.strerror or exc}")
        read = None
    if read is not None:
        for problem in read.problems:
            text = f"retrieval log {shown}: {problem.message}"
            if not warn_at(config, text, shown, problem.line, problem.excerpt):
                history.escalated.append(text)
        history.entries = list(read.entries)
        previous = previous_run(read.entries, entry.label)
        history.since = since_previous(entry, previous) if previous is not None else None
    try:
        append_entry(path, entry)
    except OSError as exc:
        history.notes.append(f"retrieval log NOT written: {shown}: {exc.strerror or exc}")
        history.failed = True
        return history
    history.entries.append(entry)
    history.appended = True
    return history


# --------------------------------------------------------------------------- GitHub Actions


def on_github(run: RunSettings, environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return run.run.github and env.get("GITHUB_ACTIONS") == "true"


def annotation_places(
    config: pytest.Config, results: Results, lines: Mapping[str, tuple[int, str]]
) -> dict[str, tuple[str | None, int | None]]:
    """query id -> (file relative to the repository, line), as GitHub wants them."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    root = Path(workspace).resolve() if workspace else None
    places: dict[str, tuple[str | None, int | None]] = {}
    for record in results.all_records():
        if record.id in places or not record.path:
            continue
        file = record.path
        if root is not None:
            with contextlib.suppress(ValueError):  # outside the workspace: as pytest shows it
                file = str((config.rootpath / record.path).resolve().relative_to(root))
        line = lines.get(record.id, (0, ""))[0]
        places[record.id] = (file, line or None)
    return places


def github_output(config: pytest.Config, report: RunReport) -> tuple[list[str], list[str]]:
    """Append the step summary; return the annotation lines and any note."""
    notes: list[str] = []
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8", errors=SURROGATES) as handle:
                handle.write(markdown_report(report) + "\n")
        except OSError as exc:
            notes.append(f"GITHUB_STEP_SUMMARY not written: {summary}: {exc.strerror or exc}")
    places = annotation_places(config, report.results, report.places)
    return workflow_commands(report.results, report.gate, places), notes
