"""A retriever fixture of pytest's default scope, built again for every item.

``@pytest.fixture(params=[...])`` without ``scope="session"`` is function-scoped: pytest
builds it for each item, loading a model or an index once per query. A cheap
fixture (a closure over a table) costs nothing that way, so only the time is a sign:
once the fixture's own code, in its builds after the first of each configuration, has
taken
:data:`REBUILD_SECONDS` in this process, a warning at the fixture's definition says so
and gives the fix (once per process; under xdist the workers' alike warnings are one
line of pytest's summary).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Generator

import pytest

from ..advice import RetrievalSettingsWarning
from .collect import fixture_place
from .nodes import golden_of, item_configuration
from .outputs import sources_cut, warning_text

REBUILD_SECONDS = 1.0  # the builds after each configuration's first, in all, before a warning


class RebuildWatch:
    """Times the builds of a function-scoped retriever fixture (its own code alone)."""

    def __init__(self, fixture: str) -> None:
        self.fixture = fixture
        self.built: set[str] = set()  # configurations built once already
        self.again = 0.0  # seconds of the builds after those
        self.said = False

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: pytest.FixtureDef[object], request: pytest.FixtureRequest
    ) -> Generator[None, object, object]:
        if self.said or fixturedef.argname != self.fixture or fixturedef.scope != "function":
            return (yield)
        start = time.perf_counter()
        value = yield
        configuration = item_configuration(request.node)[0] if golden_of(request.node) else ""
        if configuration in self.built:
            self.again += time.perf_counter() - start
        self.built.add(configuration)
        if self.again >= REBUILD_SECONDS:
            self.said = True
            self._warn(request.config)
        return value

    def _warn(self, config: pytest.Config) -> None:
        text = (
            f"the retriever fixture '{self.fixture}' is function-scoped (pytest's default), "
            "so pytest builds it again for every item: its builds after each configuration's "
            f"first have taken over {REBUILD_SECONDS:g} s already; give it a wider scope, "
            '@pytest.fixture(scope="session", params=[...]), to build it once per configuration'
        )
        path, line = fixture_place(config, self.fixture) or ("conftest.py", 1)
        kind = RetrievalSettingsWarning
        with sources_cut(config, [path]):
            said = warning_text(config, kind, text, path, line)
            warnings.warn_explicit(kind(said), kind, path, line)


__all__ = ["REBUILD_SECONDS", "RebuildWatch"]
