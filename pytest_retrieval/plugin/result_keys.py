"""The ``pytest_retrieval_result_key`` hook, as the scoring core takes it: a plain
function from a result to its judgment key, one per query."""

from __future__ import annotations

import pytest

from ..golden import GoldenQuery
from ..shapes import ResultKey
from .keys import RESULT_KEYS_KEY

HOOK = "pytest_retrieval_result_key"


class ResultKeys:
    """The hook of one process; whether anything implements it is looked up once, at
    the first query scored (after collection, when every conftest.py is loaded)."""

    def __init__(self, config: pytest.Config):
        self.hook = config.hook.pytest_retrieval_result_key
        self.active: bool | None = None

    def for_query(self, query: GoldenQuery) -> ResultKey | None:
        """The key function for one query's results, or None when no hook is implemented."""
        if self.active is None:
            self.active = bool(self.hook.get_hookimpls())
        if not self.active:
            return None
        hook = self.hook

        def key(result: object) -> str | None:
            found: str | None = hook(result=result, query=query)
            return found

        key.__name__ = HOOK  # the core's messages name the function
        return key


def stash_result_keys(config: pytest.Config) -> None:
    config.stash[RESULT_KEYS_KEY] = ResultKeys(config).for_query


def result_key(config: pytest.Config, query: GoldenQuery) -> ResultKey | None:
    """The judgment key function for this query's results (None: ids are keys)."""
    for_query = config.stash.get(RESULT_KEYS_KEY, None)
    return None if for_query is None else for_query(query)
