"""The plugin's command-line options as pytest holds them, by setting name.

Light: the entry point (:mod:`pytest_retrieval.plugin.hooks`) reads them on every
pytest run, with ``--retrieval-eval`` or without; it knows the options from the
settings schema's generated table, not from the schema itself.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import pytest

from .option_table import DECLARED
from .usage import usage_error

if TYPE_CHECKING:
    from ..settings import Raw

EVAL_OPTION = "--retrieval-eval"


def option_values(config: pytest.Config) -> dict[str, Raw]:
    """The options given on the command line (or in addopts), by setting name."""
    return {s.name: config.getoption(s.name) for s in DECLARED if s.option is not None}


def ini_value(config: pytest.Config, name: str) -> Raw:
    """``getini``, or for a TOML value of another type than pytest's declared one (pytest
    9's ``[tool.pytest]`` checks types: ``retrieval_max_grade = 5``, ``retrieval_github =
    false``, ``retrieval_golden = 5``), the value as the command line reads it from the
    same file (a number or a bool as its text), so the plugin and ``pytest-retrieval``
    take the same file alike; pytest's own TypeError said "expects a string, got int: 5"
    with no fix. Every read of the plugin's ini keys goes through here, with
    ``--retrieval-eval`` or without."""
    with warnings.catch_warnings():  # pytest 9 on a list for a text key: ours refuses it
        removed = getattr(pytest, "PytestRemovedIn10Warning", None)
        if removed is not None:
            warnings.simplefilter("ignore", removed)
        try:
            return config.getini(name)  # type: ignore[no-any-return]
        except (TypeError, pytest.UsageError):  # pytest 9 turns its TypeError into one
            if config.inipath is None:
                raise
    from ..io.ini import IniError, read_config_file  # only for a value pytest refused

    try:
        return read_config_file(config.inipath).raw_settings()[name]
    except IniError as exc:  # what is wrong in the file, maybe with another key (empty)
        raise usage_error(str(exc)) from None
    except KeyError:
        raise usage_error(
            f"{config.inipath.name}: {name}: write its value as TOML text, in quotes "
            f'({name} = "..."), or as a list of text'
        ) from None


def retrieval_overrides(config: pytest.Config) -> list[str]:
    """The ``-o``/``--override-ini`` values given for the plugin's ini keys, as given
    (``retrieval_gain=linear``): a command the plugin advises repeats them."""
    given = config.getoption("override_ini", None) or []
    return [o for o in given if o.split("=", 1)[0].strip().startswith("retrieval_")]


def selection_given(config: pytest.Config) -> list[tuple[str, str]]:
    """The run's ``-k`` and ``-m`` expressions, as (option, expression): a command the
    plugin advises after a run over part of the set repeats them."""
    given = [("-k", config.getoption("keyword", "")), ("-m", config.getoption("markexpr", ""))]
    return [(option, expression) for option, expression in given if expression]


def evaluation_on(config: pytest.Config) -> bool:
    """Whether this run evaluates (``--retrieval-eval``)."""
    return bool(config.getoption("retrieval_eval", False))


def options_given(config: pytest.Config) -> list[str]:
    """The options given but ``--retrieval-eval``: without it, they do nothing."""
    return [
        s.option
        for s in DECLARED
        if s.option is not None
        and s.option != EVAL_OPTION
        and config.getoption(s.name) not in (None, [], False, "")
    ]


__all__ = [
    "evaluation_on",
    "ini_value",
    "option_values",
    "options_given",
    "retrieval_overrides",
    "selection_given",
]
