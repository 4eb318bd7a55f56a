"""A path option pytest misread: ``--retrieval-report /elsewhere/out.json`` (space form).

pytest chooses the rootdir and the ini file before any plugin loads, from the
arguments that look like paths; our options are unknown to it then, so the value
of ``--retrieval-report PATH`` counts as a test path once that file exists. A file
outside the project then moves the rootdir up and loses the project's ini file
(and any ``--retrieval-eval`` in its ``addopts``). The ``=`` form is one argument
and is never misread. A plugin cannot change that choice, so the run stops and
says what happened and which form to use.
"""

from __future__ import annotations

import inspect
import os
import shlex
from collections.abc import Sequence
from pathlib import Path

import pytest
from _pytest.config.findpaths import determine_setup

from .option_table import DECLARED
from .usage import usage_error

PATH_OPTIONS = tuple(s.option for s in DECLARED if s.option and s.metavar == "PATH")


def _space_form(args: Sequence[str]) -> list[tuple[str, str]]:
    """(option, value) for each path option given as two arguments."""
    return [(arg, args[i + 1]) for i, arg in enumerate(args[:-1]) if arg in PATH_OPTIONS]


def _setup_without(config: pytest.Config) -> tuple[Path, Path | None]:
    """The rootdir and ini file pytest would have chosen from the real test paths."""
    accepted = inspect.signature(determine_setup).parameters
    given = {
        "inifile": config.option.inifilename,
        "override_ini": config.option.override_ini,
        "args": list(config.option.file_or_dir or []),
        "rootdir_cmd_arg": config.option.rootdir or None,
        "invocation_dir": config.invocation_params.dir,
    }
    found = determine_setup(**{k: v for k, v in given.items() if k in accepted})
    return found[0], found[1]


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a name longer than the file system allows: no test path either
        return False


def check_misread_paths(config: pytest.Config) -> None:
    """Stop with a usage error when a space-form path option moved the rootdir."""
    args = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *config.invocation_params.args]
    base = config.invocation_params.dir
    suspects = [(o, v) for o, v in _space_form(args) if _exists(base / v)]
    if not suspects:
        return
    rootpath, inipath = _setup_without(config)
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return
    option, value = suspects[0]
    raise usage_error(
        f"{option} {value}: pytest took the existing file {value} for a test path when it "
        "chose the rootdir and the ini file (it does that before plugins load), so this run "
        f"has rootdir {config.rootpath} and ini file {config.inipath or 'none'} instead of "
        f"{rootpath} and {inipath or 'none'}; write the option with '=': {option}={value}"
    )
