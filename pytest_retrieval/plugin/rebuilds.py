"""A retriever fixture of pytest's default scope, built again for every item.

``@pytest.fixture(params=[...])`` without ``scope="session"`` is function-scoped: pytest
builds it for each item, loading a model or an index once per query. A cheap fixture
(a closure over a table) costs nothing that way, so only the time is a sign: once the
fixture's own code, in its builds after the first of each configuration, has taken
:data:`REBUILD_SECONDS` in a process, the process notes advice saying so and giving the
fix, which the controller issues with the rest of the advice at the end, as a warning
at the fixture's definition (once, whichever xdist workers noted it).
"""

from __future__ import annotations

import time
from collections.abc import Generator

import pytest

from .gathered import note_rebuilt
from .nodes import golden_of, item_configuration

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
        __tracebackhide__ = True  # a fixture's own error is shown from its own code
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
            self._note(request.config)
        return value

    def _note(self, config: pytest.Config) -> None:
        note_rebuilt(
            config,
            f"the retriever fixture '{self.fixture}' is function-scoped (pytest's default), "
            "so pytest builds it again for every item: its builds after each configuration's "
            f"first took over {REBUILD_SECONDS:g} s; give it a wider scope, "
            '@pytest.fixture(scope="session", params=[...]), to build it once per configuration',
        )


__all__ = ["REBUILD_SECONDS", "RebuildWatch"]
