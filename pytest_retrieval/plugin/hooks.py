"""The plugin's entry point (``pytest11``: ``retrieval``; ``-p no:retrieval`` turns it off).

Every pytest run of a project that installed the plugin loads this module, so it is
light: the options and ini keys (from the settings schema's generated table,
:mod:`~pytest_retrieval.plugin.option_table`), the plugin's own hook
specifications, the check of options given without ``--retrieval-eval`` (and of a
misspelled ``--retrieval-`` option, named with the closest one), and the
collector's return at the very end of an evaluation; without ``--retrieval-eval``, a
hint at the end of a run that collected nothing where golden files are. It imports
nothing else of the plugin and registers no hook that runs per test. With
``--retrieval-eval`` it hands over to :mod:`pytest_retrieval.plugin.evaluation_hooks`,
which collects golden files as items and runs them.
"""

from __future__ import annotations

import difflib
import gc
import itertools
import shlex
from pathlib import Path

import pytest

from . import hookspecs
from .misread import check_misread_paths
from .option_table import DECLARED
from .options import evaluation_on, ini_value, options_given
from .usage import usage_error

_OPTION_DEFAULTS: dict[str, object] = {"store": None, "append": [], "store_true": False}
EVALUATION_PLUGIN = "retrieval-evaluation"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """The plugin's own hooks: pytest_retrieval_metrics, pytest_retrieval_result_key."""
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option and ini key of the settings schema (as its generated table holds them)."""
    group = parser.getgroup("retrieval", "retrieval evaluation (pytest-retrieval)")
    for setting in DECLARED:
        if setting.option is not None:
            extra = {"metavar": setting.metavar} if setting.metavar else {}
            group.addoption(
                setting.option,
                action=setting.action,
                dest=setting.name,
                default=_OPTION_DEFAULTS[setting.action],
                help=setting.help.replace("%", "%%"),
                **extra,
            )
        if setting.ini is not None:  # no default: a key written empty is told from one left out
            parser.addini(setting.name, setting.help, type=setting.ini, default=None)  # type: ignore[arg-type]


def _unknown_option(arg: str) -> str | None:
    """``--retrieval-reprot=r.json``: the message for an option of ours that does not
    exist, with the closest one; None for any other argument."""
    name = arg.split("=", 1)[0]
    if not name.startswith("--retrieval"):
        return None
    known = [s.option for s in DECLARED if s.option is not None]
    if name in known:
        return None
    tail = len("--retrieval-")  # the shared prefix would make every name look close
    ini = "retrieval_" + name[tail:].replace("-", "_")
    if any(s.name == ini and s.ini is not None and s.option is None for s in DECLARED):
        return (
            f"{name}: no such option; {ini} is an ini key: set it in the ini file "
            f"([tool.pytest.ini_options] in pyproject.toml), or for one run: -o {ini}=VALUE"
        )
    words = sorted(name[tail:].split("-"))
    close = [k[tail:] for k in known if sorted(k[tail:].split("-")) == words]  # word order
    close = close or difflib.get_close_matches(name[tail:], [k[tail:] for k in known], n=1)
    hint = (
        f"did you mean --retrieval-{close[0]}?"
        if close
        else "pytest --help lists the retrieval options"
    )
    return f"{name}: no such option; {hint}"


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(args: list[str]) -> None:
    """A misspelled ``--retrieval-...`` option gets the closest one by name (argparse
    said only 'unrecognized arguments')."""
    for arg in itertools.takewhile(lambda a: a != "--", args):
        message = _unknown_option(arg)
        if message is not None:
            raise pytest.UsageError(message)


def _refuse_options_without_eval(config: pytest.Config) -> None:
    given = options_given(config)
    if given:
        raise usage_error(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} nothing without "
            "--retrieval-eval: add --retrieval-eval to evaluate the golden queries "
            f"(pytest --retrieval-eval {given[0]} ...)"
        )


@pytest.hookimpl(tryfirst=True, specname="pytest_configure")
def pytest_configure_unfreeze_last(config: pytest.Config) -> None:
    """An evaluation sets the objects that live to its end (golden set, items, a replay,
    the records) apart from the cyclic collector (``gc.freeze``); they go back to it at
    the very end. Registered first, so run last of the cleanups: after pytest's own
    cleanup collects garbage to report unraisable exceptions, which otherwise walks
    every one of them (0.8 s after a 100,000-query replay)."""
    if evaluation_on(config):
        config.add_cleanup(gc.unfreeze)


class _NothingCollectedHint:
    """Without ``--retrieval-eval``: a run that collected nothing, in a project whose
    golden folder holds golden files, says how to evaluate them (once, at the end;
    nothing per test). Not when the run named its paths (a path not found, under xdist,
    also ends with nothing collected) or deselected its tests (``-k``, ``-m``)."""

    @staticmethod
    def pytest_terminal_summary(
        terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
    ) -> None:
        if exitstatus != pytest.ExitCode.NO_TESTS_COLLECTED:
            return
        named = config.args_source == pytest.Config.ArgsSource.ARGS
        if named or terminalreporter.stats.get("deselected"):
            return
        given = _golden_paths(config)
        found = [p for p in given if _holds_golden_files(config.rootpath / p)]
        if found:
            from ..report.wrapping import note_lines

            shown = found[0] + ("/" if (config.rootpath / found[0]).is_dir() else "")
            text = (
                f"{shown} holds golden queries, which pytest collects only with "
                "--retrieval-eval: run `pytest --retrieval-eval` to evaluate them"
            )
            for line in note_lines(text, config.get_terminal_writer().fullwidth):
                terminalreporter.write_line(line)


def _golden_paths(config: pytest.Config) -> list[str]:
    """retrieval_golden as the evaluation reads it (a TOML number too), else the default."""
    given = ini_value(config, "retrieval_golden")
    if isinstance(given, bool) or not given:
        return ["golden"]
    return [given] if isinstance(given, str) else list(given)


def _holds_golden_files(path: Path) -> bool:
    from ..io.golden_file import is_golden_file  # only when nothing was collected

    if path.is_file():
        return is_golden_file(path)
    return path.is_dir() and any(
        is_golden_file(p) for p in itertools.islice(path.rglob("*"), 10_000)
    )


def _refuse_golden_paths_without_eval(config: pytest.Config) -> None:
    """``pytest golden/catalog.yaml`` or a node id copied from a FAILED line, without
    ``--retrieval-eval``: pytest would say only 'not found'."""
    here = config.invocation_params.dir
    given = _golden_paths(config)
    folders = [(config.rootpath / g).resolve() for g in given]
    for arg in getattr(config.option, "file_or_dir", None) or []:
        path = (here / arg.split("::", 1)[0]).resolve()
        inside = any(path.is_relative_to(folder) for folder in folders)
        if inside and path.is_file() and _holds_golden_files(path):
            raise usage_error(
                f"{arg} names golden queries, which pytest collects only with "
                f"--retrieval-eval: run `pytest --retrieval-eval {shlex.quote(arg)}`"
            )


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        check_misread_paths(config)
    if not evaluation_on(config):
        _refuse_options_without_eval(config)
        _refuse_golden_paths_without_eval(config)
        if not hasattr(config, "workerinput"):
            config.pluginmanager.register(_NothingCollectedHint(), "retrieval-hint")
        return
    from . import evaluation_hooks  # the rest of the plugin: only for an evaluation run

    config.pluginmanager.register(evaluation_hooks, EVALUATION_PLUGIN)
    evaluation_hooks.start(config)
