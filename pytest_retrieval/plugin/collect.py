"""Golden files as pytest collectors: one ``pytest.Function`` per query per configuration.

A golden file becomes a :class:`GoldenFile`, a ``pytest.Module`` whose object is a
synthetic module holding one generated function per query. The function's
signature names the retriever fixture, so pytest's own machinery fans a
parametrized fixture out into ``query-id[bm25]``, ``query-id[dense]``... and
``-k``, node ids, ``--setup-show`` and xdist work as for any test.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterable

import pytest

from ..golden import GoldenFileError, GoldenQuery
from ..io.golden_file import load_golden_file
from .item import ExpectationFailed, run_query
from .keys import COLLECTED_KEY, CONFIGURATION_KEY, GOLDEN_SET_KEY, SETTINGS_KEY

QUERY_ATTR = "__golden_query__"


def golden_query_of(item: pytest.Item) -> GoldenQuery | None:
    """The golden query behind an item, or None for any other test."""
    if not isinstance(item, pytest.Function):
        return None
    query = getattr(item.obj, QUERY_ATTR, None)
    return query if isinstance(query, GoldenQuery) else None


def golden_ids(config: pytest.Config) -> dict[str, str]:
    """Every golden query collected by this process (selected or not): id -> file."""
    golden = config.stash.get(GOLDEN_SET_KEY, None)
    return {} if golden is None else {q.id: q.path for q in golden.queries.values()}


def configuration_of(item: pytest.Item, fixture: str) -> tuple[str, int]:
    """The configuration name (the retriever fixture's parameter id) and its index.

    Only the retriever fixture's id counts: ids of other parametrized fixtures
    do not enter it. Not parametrized: ``default``. pytest keeps one id per
    parametrize() call in ``callspec._idlist`` (checked on pytest 8 and 9); when
    that private list is absent or unaligned the fallbacks below apply.
    """
    callspec = getattr(item, "callspec", None)
    if callspec is None or fixture not in callspec.params:
        return "default", 0
    index = int(callspec.indices.get(fixture, 0))
    names = list(callspec.params)
    ids = list(getattr(callspec, "_idlist", ()))
    if len(ids) == len(names):
        return str(ids[names.index(fixture)]), index
    if len(names) == 1:
        return callspec.id, index
    return f"{fixture}{index}", index


def item_configuration(item: pytest.Item, fixture: str) -> tuple[str, int]:
    """:func:`configuration_of`, worked out once per item and kept on it."""
    found = item.stash.get(CONFIGURATION_KEY, None)
    if found is None:
        found = item.stash[CONFIGURATION_KEY] = configuration_of(item, fixture)
    return found


def _make_function(query: GoldenQuery, module_name: str, fixture: str) -> Callable[..., None]:
    def golden_query(**kwargs: object) -> None:
        __tracebackhide__ = True
        run_query(query, kwargs["request"], kwargs[fixture])  # type: ignore[arg-type]

    # Point pytest's report location at the query in its golden file.
    golden_query.__code__ = golden_query.__code__.replace(
        co_filename=query.path, co_firstlineno=max(query.line, 1)
    )
    golden_query.__module__ = module_name
    golden_query.__name__ = query.id
    golden_query.__qualname__ = query.id
    golden_query.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY),
            inspect.Parameter(fixture, inspect.Parameter.KEYWORD_ONLY),
        ]
    )
    setattr(golden_query, QUERY_ATTR, query)
    if query.skip is not None:
        golden_query = pytest.mark.skip(reason=query.skip)(golden_query)
    if query.xfail is not None:
        golden_query = pytest.mark.xfail(reason=query.xfail, raises=ExpectationFailed)(golden_query)
    return golden_query


class GoldenFile(pytest.Module):
    """A golden YAML file: collects one item per query per configuration."""

    def _getobj(self) -> types.ModuleType:
        settings = self.config.stash[SETTINGS_KEY].settings
        shown = self.nodeid.split("::")[0] or self.path.name
        try:
            queries = load_golden_file(self.path, max_grade=settings.max_grade, shown=shown)
            self.config.stash[GOLDEN_SET_KEY].add_file(queries)
        except GoldenFileError as exc:
            count = len(exc.problems)
            raise self.CollectError(
                f"{shown}: {count} problem{'s' if count != 1 else ''} in this golden file:\n"
                + "\n".join(f"  {p}" for p in exc.problems)
            ) from None
        module = types.ModuleType(f"golden:{shown}")
        module.__file__ = str(self.path)
        for query in queries:
            setattr(module, query.id, _make_function(query, module.__name__, settings.fixture))
        return module

    def istestfunction(self, obj: object, name: str) -> bool:
        return isinstance(getattr(obj, QUERY_ATTR, None), GoldenQuery)

    def istestclass(self, obj: object, name: str) -> bool:
        return False

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        collected = list(super().collect())
        fixture = self.config.stash[SETTINGS_KEY].settings.fixture
        seen: dict[tuple[str, str], pytest.Function] = {}
        for node in collected:
            query = golden_query_of(node) if isinstance(node, pytest.Function) else None
            if query is None or not isinstance(node, pytest.Function):
                continue
            node.extra_keyword_matches.update({query.category, *query.tags})
            key = (query.id, item_configuration(node, fixture)[0])
            self.config.stash.setdefault(COLLECTED_KEY, set()).add(key[1])
            if key in seen:
                raise self.CollectError(_ambiguous(seen[key], node, fixture, *key))
            seen[key] = node
        if hasattr(self.config, "workerinput"):  # an xdist worker cannot stop the run cleanly
            missing = missing_fixture(collected, fixture)  # type: ignore[arg-type]
            if missing is not None:
                raise self.CollectError(missing)
        return collected


def _ambiguous(
    first: pytest.Function, second: pytest.Function, fixture: str, qid: str, conf: str
) -> str:
    """Two items for one query and configuration: their numbers could not be told apart."""
    others = sorted(name for name in second.callspec.params if name != fixture)
    return (
        f"query '{qid}' would run twice for configuration '{conf}' ({first.name} and "
        f"{second.name}): the parametrized fixture(s) {', '.join(others)} multiply the items, "
        f"but a configuration is named by the '{fixture}' fixture's parameter alone, so their "
        f"numbers would overwrite each other. Make each variant a parameter of '{fixture}' "
        f"(e.g. params=['{conf}-small', '{conf}-large']), or keep the other fixture away from "
        "the retriever."
    )


FIXTURE_EXAMPLE = """\
    # conftest.py
    import pytest

    @pytest.fixture(scope="session", params=["bm25", "dense"])
    def {name}(request):
        engine = build_engine(request.param)          # your code
        return lambda query: engine.search(query.text, k=20)"""


def _conftest_fixtures(config: pytest.Config) -> list[str]:
    """Fixtures the project's conftest.py files define (what the user may have meant)."""
    names = set()
    for plugin in config.pluginmanager.get_plugins():
        if not str(getattr(plugin, "__file__", "") or "").endswith("conftest.py"):
            continue
        for attribute, value in vars(plugin).items():
            marker = getattr(value, "_fixture_function_marker", None) or getattr(
                value, "_pytestfixturefunction", None
            )
            if marker is not None:
                names.add(getattr(marker, "name", None) or attribute)
    return sorted(names)


def missing_fixture(items: Iterable[pytest.Item], fixture: str) -> str | None:
    """The message when the golden items have no retriever fixture to use; else None."""
    golden = next((i for i in items if golden_query_of(i) is not None), None)
    info = getattr(golden, "_fixtureinfo", None)
    if golden is None or info is None or info.name2fixturedefs.get(fixture):
        return None
    others = _conftest_fixtures(golden.config)
    known = f"; fixtures that exist here: {', '.join(others)}" if others else ""
    return (
        f"--retrieval-eval: no fixture named '{fixture}' (retrieval_fixture = {fixture}) is "
        f"defined for {golden.nodeid.split('::')[0]}{known}. Define the retriever fixture in "
        "conftest.py, for example:\n\n"
        + FIXTURE_EXAMPLE.format(name=fixture)
        + "\n\nor set retrieval_fixture in your ini file to the name of your fixture."
    )


def check_fixture(items: Iterable[pytest.Item], fixture: str) -> None:
    """One clear usage error, before anything runs, when no retriever fixture is defined."""
    message = missing_fixture(items, fixture)
    if message is not None:
        raise pytest.UsageError(message)
