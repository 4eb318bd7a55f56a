"""The plugin's command-line options as pytest holds them, by setting name.

Light: the entry point (:mod:`pytest_retrieval.plugin.hooks`) reads them on every
pytest run, with ``--retrieval-eval`` or without.
"""

from __future__ import annotations

import pytest

from ..settings import SCHEMA, Raw


def option_values(config: pytest.Config) -> dict[str, Raw]:
    """The options given on the command line (or in addopts), by setting name."""
    return {s.name: config.getoption(s.name) for s in SCHEMA if s.option is not None}


def evaluation_on(config: pytest.Config) -> bool:
    """Whether this run evaluates (``--retrieval-eval``)."""
    return bool(config.getoption("retrieval_eval", False))


__all__ = ["evaluation_on", "option_values"]
