"""The plugin's own hooks, for a ``conftest.py`` or an installed plugin to implement.

Added to pytest's plugin manager by ``pytest_addhooks`` (:mod:`.hooks`), so every
process (an xdist worker as the controller) knows them. README: Custom metrics,
Stable judgment keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..golden import GoldenQuery
    from ..metric_registry import MetricSpec


@pytest.hookspec
def pytest_retrieval_metrics() -> list[MetricSpec] | None:
    """Metrics to add to the built-ins: a list of :class:`pytest_retrieval.MetricSpec`.

    Called once per process at configuration, before ``retrieval_metrics``,
    ``--retrieval-tolerance`` and any golden file are read, so a custom metric may be
    named wherever a built-in is. Implement it in the rootdir's ``conftest.py`` (or
    one pytest loads before configuration) or in an installed plugin; a name or alias
    that another metric already has is a usage error naming both definitions.
    """


@pytest.hookspec(firstresult=True)
def pytest_retrieval_result_key(result: object, query: GoldenQuery) -> str | None:
    """The key judgments use for one returned result, or None to keep its id.

    ``result`` is one item of what the retriever returned, as it returned it (an id,
    an ``(id, score)`` pair, a mapping, an object); ``query`` the golden query (with
    its judgments). Results that map to one key count once, at the first rank, and
    the report counts the others in ``merged``.
    """
