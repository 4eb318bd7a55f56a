"""What a collected item is to the plugin: its golden queries and its configuration.

Read from the item's stash (set when golden files are collected), so asking any
other test costs one dictionary lookup.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from ..golden import GoldenQuery
from ..sharding import item_name
from .keys import CONFIGURATION_KEY, GOLDEN_SET_KEY, REPLAY_KEY, SETTINGS_KEY

REPLAY_ARG = "retrieval_replayed"  # the parameter naming a recorded configuration
UNPARAMETRIZED = "default"  # the configuration of a retriever fixture with no params


@dataclass(frozen=True)
class Golden:
    """A golden item's queries; ``coarse`` for a category or a shard item."""

    queries: tuple[GoldenQuery, ...]
    coarse: bool = False


GOLDEN_KEY = pytest.StashKey[Golden]()


def golden_of(item: pytest.Item) -> Golden | None:
    """The golden queries behind an item, or None for any other test."""
    return item.stash.get(GOLDEN_KEY, None)


def golden_queries_of(item: pytest.Item) -> tuple[GoldenQuery, ...]:
    found = item.stash.get(GOLDEN_KEY, None)
    return () if found is None else found.queries


def golden_query_of(item: pytest.Item) -> GoldenQuery | None:
    """The golden query of a per-query item, or None (another test, or a coarse item)."""
    found = item.stash.get(GOLDEN_KEY, None)
    return None if found is None or found.coarse else found.queries[0]


def golden_ids(config: pytest.Config) -> dict[str, str]:
    """Every golden query collected by this process (selected or not): id -> file."""
    golden = config.stash.get(GOLDEN_SET_KEY, None)
    return {} if golden is None else {q.id: q.path for q in golden.queries.values()}


def category_keywords(config: pytest.Config) -> list[str]:
    """The categories of the golden queries this process collected, as ``-k`` takes them
    (a category ``long tail`` is the keyword ``long-tail``, collect.py)."""
    golden = config.stash.get(GOLDEN_SET_KEY, None)
    return (
        [] if golden is None else sorted({item_name(q.category) for q in golden.queries.values()})
    )


def nothing_to_find_ids(config: pytest.Config) -> list[str]:
    """The golden queries collected by this process that have no relevant judgment (at
    the relevance threshold): a run that finds nothing for them may leave them out."""
    golden = config.stash.get(GOLDEN_SET_KEY, None)
    if golden is None:
        return []
    threshold = config.stash[SETTINGS_KEY].settings.conventions.relevance_threshold
    return sorted(q.id for q in golden.queries.values() if q.has_nothing_to_find(threshold))


def configuration_arg(config: pytest.Config) -> str:
    """The parameter that names an item's configuration: the retriever fixture, or under
    ``--retrieval-replay`` the recorded configurations' parameter."""
    if config.stash.get(REPLAY_KEY, None) is not None:
        return REPLAY_ARG
    return config.stash[SETTINGS_KEY].settings.fixture


def configuration_of(item: pytest.Item, fixture: str) -> tuple[str, int]:
    """The configuration name (the retriever fixture's parameter id) and its index.

    Only the retriever fixture's id counts: ids of other parametrized fixtures
    do not enter it. Not parametrized: ``default``. pytest keeps one id per
    parametrize() call in ``callspec._idlist`` (checked on pytest 8 and 9); when
    that private list is absent or unaligned the fallbacks below apply. A replayed
    configuration is its parameter's value, the name the recording or run file
    gives: its id is that name as pytest escapes it (``café`` is ``caf\\xe9``).
    """
    callspec = getattr(item, "callspec", None)
    if callspec is None or fixture not in callspec.params:
        return UNPARAMETRIZED, 0
    index = int(callspec.indices.get(fixture, 0))
    if fixture == REPLAY_ARG:
        return str(callspec.params[fixture]), index
    names = list(callspec.params)
    ids = list(getattr(callspec, "_idlist", ()))
    if len(ids) == len(names):
        return str(ids[names.index(fixture)]), index
    if len(names) == 1:
        return callspec.id, index
    return f"{fixture}{index}", index


def item_configuration(item: pytest.Item) -> tuple[str, int]:
    """:func:`configuration_of`, worked out once per item and kept on it."""
    found = item.stash.get(CONFIGURATION_KEY, None)
    if found is None:
        found = configuration_of(item, configuration_arg(item.config))
        item.stash[CONFIGURATION_KEY] = found
    return found
