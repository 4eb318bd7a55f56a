"""The plugin's command-line options as pytest holds them, by setting name.

Light: the entry point (:mod:`pytest_retrieval.plugin.hooks`) reads them on every
pytest run, with ``--retrieval-eval`` or without; it knows the options from the
settings schema's generated table, not from the schema itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .option_table import DECLARED

if TYPE_CHECKING:
    from ..settings import Raw

EVAL_OPTION = "--retrieval-eval"


def option_values(config: pytest.Config) -> dict[str, Raw]:
    """The options given on the command line (or in addopts), by setting name."""
    return {s.name: config.getoption(s.name) for s in DECLARED if s.option is not None}


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


__all__ = ["evaluation_on", "option_values", "options_given"]
