"""What every command shares: settings from the ini file, golden paths, messages, exit codes.

Exit codes, as linters use them: 0 all is well; 1 the command ran and found
something (a validation problem, a regression, a worklist that cannot be merged);
2 it could not run (a usage error, a file that is missing or unreadable, a bad
setting). Problems print as collection errors do: ``path:line: query 'id': message``.
"""

from __future__ import annotations

import argparse
import errno
import re
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeAlias

from ..golden import GoldenFileError, GoldenQuery, GoldenSet, Problem
from ..io.common import FormatError
from ..io.file_kinds import (
    BASELINE_KIND,
    LOG_KIND,
    RECORDING_KIND,
    REPORT_KIND,
    TREC_QRELS,
    TREC_RUN,
    WORKLIST_KIND,
    head_fields,
    own_file_kind,
    trec_kind_of_fields,
)
from ..io.golden_file import (
    NORECURSEDIRS,
    golden_files_in,
    golden_path_problems,
    is_golden_file,
    load_golden_file,
)
from ..io.ini import IniConfig, IniError, config_text, find_config, key_line, parse_overrides
from ..io.report_json import ReportError, ReportFile, read_report
from ..io.worklist import looks_like_worklist
from ..metric_registry import Installed, MetricDefinitionError
from ..metrics import install_metrics, restore_metrics
from ..report.wrapping import note_lines
from ..settings import RunSettings, SettingsError, parse_run_settings, unknown_ini_keys
from .metrics_module import HINT, MetricModuleError, load_metric_modules

OK, FINDINGS, USAGE = 0, 1, 2
CLI_EXTRA_HINT = "pip install 'pytest-retrieval[cli]'"


class CliError(Exception):
    """The command cannot run: printed as ``pytest-retrieval: error: ...``, exit 2."""


def os_error_text(exc: OSError) -> str:
    """An OSError as one line a user can act on: the path, what went wrong, the fix."""
    path = f"{exc.filename}: " if exc.filename else ""
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) and not isinstance(exc, IsADirectoryError):
        return f"{path}a part of the path is a file, not a folder: give a path in a folder"
    if isinstance(exc, IsADirectoryError):
        return f"{path}is a folder: give the path of a file"
    return f"{path}{exc.strerror or exc}"


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so ``main`` returns the code in-process."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.partition(" ")[2]  # main prints the program's name itself
        raise CliError(f"{command + ': ' if command else ''}{message} (see {self.prog} --help)")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        """An empty value (``--golden=``, a CI variable left empty) is refused, naming the
        option: read as a path it is the current folder, and elsewhere not given at all."""
        if action.nargs != argparse.PARSER:  # a command's own arguments are its parser's
            for text in arg_strings:
                if not text.strip():
                    name = "/".join(action.option_strings) or action.metavar or action.dest
                    self.error(
                        f"argument {name}: the value is empty; give it a value, or leave it out"
                    )
        return super()._get_values(action, arg_strings)


Commands: TypeAlias = "argparse._SubParsersAction[Parser]"


def output_file(given: str) -> str | None:
    """An ``-o FILE`` of a command that prints to standard output without it: ``-`` is
    standard output too (None), as Unix tools take it, not a file named ``-``."""
    return None if given == "-" else given


@dataclass
class Context:
    """One command's world: the folder it runs in, the ini settings, where it writes."""

    cwd: Path
    ini: IniConfig
    run: RunSettings
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    replaced: Installed = field(default_factory=Installed)  # the metrics before --metrics-module
    setting_warnings: int = 0  # notes printed about unknown ini keys (validate counts them)

    def close(self) -> None:
        """The command is done: the custom metrics it installed are removed."""
        restore_metrics(self.replaced)

    @property
    def rootdir(self) -> Path:
        return self.ini.rootdir

    @property
    def max_grade(self) -> int:
        return self.run.settings.max_grade

    @property
    def judged_depth(self) -> int:
        """The cut of the pooling warning's judged@k (``evaluate``, ``import trec --run``):
        the deepest cut of retrieval_metrics, the ranks the scores look at; 10 without one."""
        return self.run.settings.depth or 10

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def say_wrapped(self, text: str) -> None:
        """A line of the command's output wrapped to the terminal as :meth:`notice` is."""
        self.say("\n".join(note_lines(text, self.width())))

    def note(self, text: str) -> None:
        print(text, file=self.err)

    def notice(self, text: str) -> None:
        """A note of several clauses, wrapped to the terminal's width at spaces (ids and
        paths stay whole), its later lines indented, as the plugin's own notes are."""
        self.note("\n".join(note_lines(text, self.width())))

    def width(self) -> int:
        return shutil.get_terminal_size((80, 24)).columns

    def path(self, given: str) -> Path:
        """A path given on the command line: relative to the current folder."""
        return (self.cwd / given).resolve() if not Path(given).is_absolute() else Path(given)

    def file(self, given: str, option: str = "") -> Path:
        """A file given on the command line (``option``: how it was given, ``--corpus ``);
        :class:`CliError` when there is none, or a folder is there."""
        path = self.path(given)
        if path.is_dir():
            raise CliError(f"{option}{given} is a folder: give the file in it")
        if path.exists() and not path.is_file():  # <(cut -f1 corpus.tsv): read more than once
            raise CliError(
                f"{option}{given} is a pipe or a device, not a file; save what it gives to a "
                "file and give that"
            )
        if not path.is_file():
            raise CliError(f"{option}{given}: no such file")
        return path

    def output(self, option: str, given: str, reads: Sequence[str] = (), kind: str = "") -> Path:
        """The file an output option names, refused when writing it would destroy another:
        a file this command reads, or an existing file of another kind than ``kind`` (a
        golden file or a conftest.py given to ``export trec -o`` or ``pool -o``)."""
        path = self.path(given)
        what = f"{option} {given}"
        if path.is_dir():
            raise CliError(f"{what} is a folder: give the path of a file (in it, or beside it)")
        if path.resolve() in {self.path(p).resolve() for p in reads}:
            raise CliError(f"{what} is {READ_BY_THE_COMMAND}")
        if kind and _has_content(path) and not _OF_KIND[kind](path):
            raise CliError(
                f"{what}: the file exists and is not a {kind} (a golden file, a conftest.py, "
                "a report?): writing would destroy it; write to a new path, or delete the "
                "file first"
            )
        return path

    def shown(self, path: Path) -> str:
        """How messages name a file: relative to the rootdir when inside it, as pytest does
        (a link by its own name, as pytest names it, not its target's)."""
        resolved = path.parent.resolve() / path.name if path.is_symlink() else path.resolve()
        for base in (self.rootdir, self.cwd):
            try:
                return resolved.relative_to(base.resolve()).as_posix()
            except ValueError:
                continue
        return str(path)


def add_common(parser: argparse.ArgumentParser) -> None:
    """The options every command takes."""
    group = parser.add_argument_group("settings")
    group.add_argument(
        "--config",
        metavar="FILE",
        help="the config file to read settings from (default: found as pytest finds it, from "
        "the current folder upward: pytest.toml, pytest.ini, pyproject.toml, tox.ini, setup.cfg)",
    )
    group.add_argument(
        "--override-ini",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override an ini key, as pytest's -o does (may repeat): "
        "--override-ini retrieval_gain=linear",
    )
    group.add_argument(
        "--metrics-module",
        metavar="MODULE",
        action="append",
        default=[],
        help="import MODULE (a dotted name, from the current folder or the rootdir, or a .py "
        "file) and add the metrics its pytest_retrieval_metrics() returns, as the plugin's "
        "hook adds them (may repeat)",
    )


def _custom_metrics(args: argparse.Namespace, cwd: Path, rootdir: Path) -> Installed:
    """Install the metrics of ``--metrics-module``; returns what they replaced."""
    given = list(getattr(args, "metrics_module", None) or [])
    try:
        return install_metrics(load_metric_modules(given, cwd, rootdir), "" if given else HINT)
    except (MetricModuleError, MetricDefinitionError) as exc:
        raise CliError(str(exc)) from None


def context(args: argparse.Namespace, cwd: Path, out: TextIO, err: TextIO) -> Context:
    """The settings of the project the command runs in; :class:`CliError` when unusable.

    Custom metrics (``--metrics-module``) stay installed until :meth:`Context.close`.
    """
    try:
        explicit = Path(args.config) if getattr(args, "config", None) else None
        if explicit is not None and not explicit.is_absolute():
            explicit = cwd / explicit
        ini = find_config(cwd, explicit)
        overrides = parse_overrides(getattr(args, "override_ini", []) or [])
        raw = ini.raw_settings(overrides)
    except IniError as exc:
        raise CliError(str(exc)) from None
    replaced = _custom_metrics(args, cwd, ini.rootdir)
    try:
        run = parse_run_settings(raw)
    except SettingsError as exc:
        restore_metrics(replaced)
        raise CliError(f"{_setting_source(ini, overrides, str(exc))}: {exc}") from None
    ctx = Context(cwd=cwd, ini=ini, run=run, out=out, err=err, replaced=replaced)
    for note in _unknown_key_notes(ini, overrides):
        ctx.note(note)
        ctx.setting_warnings += 1
    return ctx


_LEADING_KEY = re.compile(r"retrieval_\w+")


def _setting_source(ini: IniConfig, overrides: Mapping[str, str], message: str) -> str:
    """Where the setting a :class:`SettingsError` names (its message starts with the key:
    ``retrieval_gain must be ...``, ``retrieval_metrics: ...``) was given: the
    ``--override-ini`` that set it, else the ini file at the key's line."""
    found = _LEADING_KEY.match(message)
    key = found.group(0) if found else ""
    if key in overrides:
        return f"--override-ini {key}={overrides[key]}"
    line = key_line(config_text(ini.path), key) if key else None
    return f"{ini.shown}{f':{line}' if line else ''}"


def _unknown_key_notes(ini: IniConfig, overrides: Iterable[str]) -> list[str]:
    """A note for each ``retrieval_*`` key no setting has, at its line of the ini file."""
    text = config_text(ini.path)
    notes = []
    for key, note in unknown_ini_keys(ini.values):
        line = key_line(text, key)
        notes.append(f"{ini.shown}{f':{line}' if line else ''}: {note}")
    return notes + [f"--override-ini: {note}" for _, note in unknown_ini_keys(overrides)]


# --------------------------------------------------------------------------- golden sets


GOLDEN_WANTED = "give golden files (.yaml, .yml, .jsonl) or folders of them"
_WRITE_A_REPORT = (
    "a run writes its report with `pytest --retrieval-eval --retrieval-report=report.json`"
)
_A_REPORT_INSTEAD = {  # one of the plugin's other files where a JSON report belongs: the fix
    RECORDING_KIND: "to evaluate a recording, run `pytest --retrieval-eval --retrieval-replay "
    "{given} --retrieval-report=report.json` and give report.json",
    BASELINE_KIND: "a report is gated against a baseline by `pytest-retrieval evaluate "
    f"REPORT.json --baseline {{given}}`; {_WRITE_A_REPORT}",
    LOG_KIND: _WRITE_A_REPORT,
    WORKLIST_KIND: _WRITE_A_REPORT,
}


_TREC_INSTEAD = {  # a TREC file where a JSON report belongs: the fix
    TREC_RUN: "score the run into one with `pytest-retrieval evaluate {given} --report "
    "report.json` and give report.json",
    TREC_QRELS: "the judgments belong in the golden set (`pytest-retrieval import trec "
    "{given} -o golden/qrels.yaml`); a run writes its report with `pytest --retrieval-eval "
    "--retrieval-report=report.json`",
}


def read_report_file(ctx: Context, given: str, command: str) -> ReportFile:
    """The JSON report at ``given`` of a run that ran every item, for ``command``: one
    cut short (``"complete": false``) holds only what ran, and would be used as the whole
    set in silence."""
    report = _read_report_file(ctx, given, command)
    if report.incomplete is not None:
        raise CliError(
            f"{report.path} is the report of an incomplete run ({report.incomplete}): it "
            f"holds only the queries that ran; give {command} the report of a run that went "
            "to the end"
        )
    return report


def _read_report_file(ctx: Context, given: str, command: str) -> ReportFile:
    """The JSON report at ``given``, for ``command``; a :class:`CliError` says what is
    wrong, and for a golden file or another of the plugin's files (a recording, a
    baseline, a log, a worklist: none is valid JSON as a whole, or none a report) what it
    is and what to give instead."""
    path = ctx.path(given)
    shown = ctx.shown(path)
    kind = plugin_file_kind(path)
    if kind in _A_REPORT_INSTEAD:
        fix = _A_REPORT_INSTEAD[kind].format(given=given)
        raise CliError(
            f"{shown} is a pytest-retrieval {kind}, not a JSON report; {command} takes JSON "
            f"reports written by --retrieval-report: {fix}"
        )
    if kind is None and path.is_file() and is_golden_file(path):
        raise CliError(
            f"{shown} is a golden file, not a JSON report; {command} takes JSON reports "
            f"written by --retrieval-report: {_WRITE_A_REPORT} (or pytest-retrieval evaluate "
            "--report)"
        )
    trec = trec_file_kind(path) if kind is None else None
    if trec is not None:
        raise CliError(
            f"{shown} is {trec}, not a JSON report; {command} takes JSON reports: "
            f"{_TREC_INSTEAD[trec].format(given=given)}"
        )
    try:
        return read_report(path, shown)
    except ReportError as exc:
        raise CliError(str(exc)) from None


READ_BY_THE_COMMAND = (
    "a file this command reads: writing it would destroy it; write to another path"
)


def _has_content(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def _head_fields(path: Path) -> list[list[bytes]] | None:
    """The fields of the data lines that start a text file (blank lines and ``#``
    comments left out); None for a golden file, Python or a file that cannot be read."""
    if is_golden_file(path) or path.suffix.lower() == ".py":
        return None
    return head_fields(path)


def _qrels_like(path: Path) -> bool:
    """A file a qrels file may replace: one whose first data line reads as qrels (``qid
    iter docno grade``), or one of blank lines and comments; not a golden file, a report
    (JSON, Markdown, HTML), a run, a README or Python."""
    lines = _head_fields(path)
    if lines is None:
        return False
    return not lines or (len(lines[0]) == 4 and lines[0][3].lstrip(b"-").isdigit())


def trec_file_kind(path: Path) -> str | None:
    """:data:`TREC_RUN` or :data:`TREC_QRELS` when the data lines that start the file
    read as one (every one of them: a run's integer rank and numeric score, a qrels
    line's four fields and integer grade), else None: a run or qrels file given where
    another kind belongs is named for what it is, not as a line that cannot be read."""
    return trec_kind_of_fields(_head_fields(path))


def _trec_golden_fix(trec: str, given: str) -> str:
    """The fix for a TREC file given where golden files belong: the import that makes
    one of its judgments (a run's judgments are in the qrels file that judges it)."""
    if trec == TREC_QRELS:
        return f"import it first: `pytest-retrieval import trec {given} -o {Path(given).stem}.yaml`"
    return (
        "a run holds no grades: import the qrels file that judges it (`pytest-retrieval "
        f"import trec QRELS --run {given} -o golden/qrels.yaml`), and score the run with "
        f"`pytest-retrieval evaluate {given}`"
    )


def _corpus_like(path: Path) -> bool:
    """A file a corpus list may replace: one document id a line (``import --corpus``)."""
    lines = _head_fields(path)
    return lines is not None and all(len(fields) == 1 for fields in lines)


_OF_KIND = {"worklist": looks_like_worklist, "qrels file": _qrels_like, "corpus list": _corpus_like}


def plugin_file_kind(path: Path) -> str | None:
    """What the file is when it is one of the plugin's own files (a report, a baseline, a
    recording, a log, a worklist), given where another kind belongs; else None."""
    return own_file_kind(path) if path.is_file() else None


def other_file(path: Path) -> str | None:
    """What the file is (``a golden file``, ``a pytest-retrieval baseline``) when it is a
    golden file or one of the plugin's files other than a JSON report (a baseline, a
    recording, a worklist), given where a report or a run belongs; else None."""
    if not path.is_file():
        return None
    kind = plugin_file_kind(path)
    if kind == REPORT_KIND:
        return None
    if kind is not None:
        return f"a pytest-retrieval {kind}"
    return "a golden file" if is_golden_file(path) else None


def golden_files(ctx: Context, given: Sequence[str], wants: str = GOLDEN_WANTED) -> list[Path]:
    """Golden files of the paths given (files or folders), else of ``retrieval_golden``.

    Folders give every golden file under them (``.yaml``, ``.yml``, ``.jsonl``, any
    letter case), sorted, as the plugin collects them; a folder that holds none is a
    :class:`CliError`. A file named on the command line is read whatever its suffix
    (``.jsonl`` as JSON lines), unless it is one
    of the plugin's own files: a :class:`CliError` says what it is and (``wants``) what
    the command wants.
    """
    if given:
        roots = [ctx.path(p) for p in given]
        missing = [p for p, root in zip(given, roots, strict=True) if not root.exists()]
        if missing:
            raise CliError(f"no such file or folder: {', '.join(missing)}")
    else:
        roots = [ctx.rootdir / p for p in ctx.run.run.golden]
        problems = golden_path_problems(ctx.rootdir, ctx.run.run.golden, _norecursedirs(ctx))
        if problems:
            where = (
                f"fix retrieval_golden in {ctx.ini.shown}"
                if ctx.ini.path is not None
                else "run from the project's folder (no config file was found from here "
                "upward, so the default 'golden' is looked for here)"
            )
            raise CliError(
                f"retrieval_golden: {'; '.join(problems)}: name the golden files, or {where}"
            )
    files: list[Path] = []
    for root in roots:
        if root.is_dir():
            inside = golden_files_in(root, _norecursedirs(ctx))
            if not inside:
                raise CliError(
                    f"{ctx.shown(root)}: no golden file (.yaml, .yml, .jsonl) in this folder "
                    "or below it; name the golden files or their folder"
                )
            files += inside
        elif root.exists():
            kind = plugin_file_kind(root)
            if kind is not None:
                what = f"{ctx.shown(root)} is a pytest-retrieval {kind}, not a golden file"
                raise CliError(f"{what}; {wants}")
            trec = trec_file_kind(root)  # else read as YAML: "the file holds text 'q1 0 ...'"
            if trec is not None:
                what = f"{ctx.shown(root)} is {trec}, not a golden file"
                typed = dict(zip(roots, given, strict=False)).get(root, ctx.shown(root))
                raise CliError(f"{what}; {wants}: {_trec_golden_fix(trec, typed)}")
            files.append(root)
    unique: dict[Path, Path] = {}  # each file once (a link to it counts as it), first path
    for path in files:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def _norecursedirs(ctx: Context) -> tuple[str, ...]:
    """The folders the plugin's collection leaves out: the ini file's ``norecursedirs``,
    else pytest's default."""
    given = ctx.ini.values.get("norecursedirs")
    if given is None:
        return NORECURSEDIRS
    return tuple(given if isinstance(given, list) else str(given).split())


def load_one(ctx: Context, path: Path) -> list[GoldenQuery]:
    """One golden file's queries (YAML, or JSONL by suffix); :class:`GoldenFileError`."""
    shown = ctx.shown(path)
    return load_golden_file(path, max_grade=ctx.max_grade, shown=shown)


@dataclass
class Loaded:
    """A golden set read from files: the queries in file order, and every problem."""

    files: list[Path]
    queries: list[GoldenQuery]
    problems: list[Problem]
    texts: dict[str, str] = field(default_factory=dict)  # shown path -> file text

    def by_id(self) -> dict[str, GoldenQuery]:
        return {q.id: q for q in self.queries}


def load_golden(ctx: Context, given: Sequence[str], wants: str = GOLDEN_WANTED) -> Loaded:
    """Every golden file of ``given`` checked, ids unique across files; nothing stops early."""
    files = golden_files(ctx, given, wants)
    golden = GoldenSet()
    loaded = Loaded(files, [], [])
    for path in files:
        try:
            queries = load_one(ctx, path)
            golden.add_file(queries)
        except GoldenFileError as exc:
            loaded.problems.extend([*exc.problems, *golden.problems_across(exc)])
            continue
        loaded.queries.extend(queries)
    return loaded


PROBLEMS_SHOWN = 20  # a command that cannot use a broken golden set names the first ones


def golden_or_fail(ctx: Context, given: Sequence[str]) -> list[GoldenQuery]:
    """The golden set, or :class:`CliError` listing every problem (a broken set cannot be used)."""
    loaded = load_golden(ctx, given)
    problems = loaded.problems
    if problems:
        shown = [str(p) for p in problems[:PROBLEMS_SHOWN]]
        if len(problems) > PROBLEMS_SHOWN:
            shown.append(f"... and {len(problems) - PROBLEMS_SHOWN} more")
        raise CliError(
            "the golden set has problems (pytest-retrieval validate lists them):\n"
            + "\n".join(shown)
        )
    if not loaded.queries:
        raise CliError("the golden files hold no queries")
    return loaded.queries


def format_error(exc: FormatError) -> CliError:
    return CliError(str(exc))


def print_problems(ctx: Context, problems: Iterable[Problem | str]) -> int:
    """Print each problem on stdout; the count."""
    count = 0
    for problem in problems:
        ctx.say(str(problem))
        count += 1
    return count
