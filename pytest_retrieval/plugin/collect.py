"""Golden files as pytest collectors: one ``pytest.Function`` per item per configuration.

A golden file becomes a :class:`GoldenFile`, a ``pytest.Module`` whose object is a
synthetic module holding one generated function per item (a query, or with
``retrieval_items`` a category or a shard of one). The function's signature names
the retriever fixture (under ``--retrieval-replay``: the recorded configurations'
parameter), so pytest's own machinery fans a parametrized fixture out into
``query-id[bm25]``, ``query-id[dense]``... and ``-k``, node ids, ``--setup-show``
and xdist work as for any test.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

import pytest

from ..advice import RetrievalGoldenWarning, RetrievalSettingsWarning
from ..gate import unknown_configuration_names
from ..golden import GoldenFileError, Problem
from ..io.common import did_you_mean
from ..io.golden_file import load_golden_file
from ..lint import forbidden_relevant
from ..quoting import SHOWN, quoted
from ..scoring import unchecked_expectations
from ..sharding import (
    deselect_note,
    item_groups,
    item_name,
    keyword_note,
    query_ids_in_keyword,
    unreadable_keyword_note,
)
from .failure import ExpectationFailed
from .item import run_queries, run_query
from .keys import COLLECTED_KEY, GOLDEN_SET_KEY, KEYWORD_NAMES_KEY, REPLAY_KEY, SETTINGS_KEY
from .nodes import (
    GOLDEN_KEY,
    REPLAY_ARG,
    Golden,
    configuration_arg,
    golden_of,
    item_configuration,
)
from .outputs import warn_at_golden_line
from .usage import usage_error

QUERIES_ATTR = "__golden_queries__"  # on a generated function: its Golden


def _function(golden: Golden, name: str, module_name: str, arg: str) -> Callable[..., None]:
    """The test function of one golden item, its report location the first query's line.

    pytest reads its signature: the one fixture ``arg`` (the retriever, or the replayed
    configuration). The plugin calls it (:func:`call_golden`) with the item as well; it
    does not ask for ``request``, which pytest builds afresh for every test that does
    (an inspection of a signature each time, 10-20 us)."""
    queries = golden.queries

    if golden.coarse:

        def golden_item(item: pytest.Function, value: object) -> None:
            __tracebackhide__ = True
            run_queries(queries, item, value)
    else:

        def golden_item(item: pytest.Function, value: object) -> None:
            __tracebackhide__ = True
            run_query(queries[0], item, value)

    golden_item.__code__ = golden_item.__code__.replace(
        co_filename=queries[0].path, co_firstlineno=max(queries[0].line, 1)
    )
    golden_item.__module__ = module_name
    golden_item.__name__ = golden_item.__qualname__ = name
    golden_item.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY)]
    )
    setattr(golden_item, QUERIES_ATTR, golden)
    return _marked(golden_item, golden)


def call_golden(item: pytest.Function) -> bool | None:
    """Run a golden item's function (``pytest_pyfunc_call``); None for any other test."""
    if golden_of(item) is None:
        return None
    item.obj(item, item.funcargs[configuration_arg(item.config)])
    return True


def _marked(function: Callable[..., None], golden: Golden) -> Callable[..., None]:
    """A per-query item's ``skip:`` as a pytest mark (a coarse item keeps it per query;
    ``xfail:``, which may name configurations, is marked on each item: ``_checked``)."""
    query = golden.queries[0]
    if golden.coarse:
        return function
    if query.skip is not None:
        function = pytest.mark.skip(reason=query.skip)(function)
    return function


# names pytest or Python read from a test module: an item of that name is kept under another
_MODULE_NAMES = frozenset(
    {"pytestmark", "pytest_generate_tests", "pytest_plugins", "setup_module", "setUpModule"}
    | {"teardown_module", "tearDownModule"}
)


def _attribute(name: str) -> str:
    """The module attribute of the item ``name`` (a query id or a category): itself,
    but for a name the module would be read by (``pytestmark``, ``__getattr__``), kept
    under a key no item has (no item name holds ``::``)."""
    special = name in _MODULE_NAMES or (name.startswith("__") and name.endswith("__"))
    return f"golden::{name}" if special else name


class GoldenFile(pytest.Module):
    """A golden file: collects its items (per query, category or shard) per configuration."""

    def _getobj(self) -> types.ModuleType:
        run = self.config.stash[SETTINGS_KEY]
        shown = self.nodeid.split("::")[0] or self.path.name
        try:
            queries = load_golden_file(self.path, max_grade=run.settings.max_grade, shown=shown)
            advice = self.config.stash[GOLDEN_SET_KEY].add_file(queries)
            unchecked = unchecked_expectations(queries, run.settings)
            self._advise(advice + unchecked + forbidden_relevant(queries))
        except GoldenFileError as exc:
            across = self.config.stash[GOLDEN_SET_KEY].problems_across(exc)
            problems = sorted([*exc.problems, *across], key=lambda p: p.line)
            count = len(problems)
            raise self.CollectError(
                f"{shown}: {count} problem{'s' if count != 1 else ''} in this golden file:\n"
                + "\n".join(f"  {p}" for p in problems)
            ) from None
        module = types.ModuleType(f"golden:{shown}")
        module.__file__ = str(self.path)
        arg, coarse = configuration_arg(self.config), run.run.calls.items.mode != "query"
        for name, members in item_groups(queries, run.run.calls.items):
            function = _function(Golden(members, coarse), name, module.__name__, arg)
            vars(module)[_attribute(name)] = function
        return module

    def _advise(self, advice: list[Problem]) -> None:
        """Each piece of advice on this file as a warning at its line (once, not in every
        xdist worker); under ``-W error`` the file's collection error saying the same."""
        if getattr(self.config, "workerinput", {}).get("workerid", "gw0") != "gw0":
            return
        kind = RetrievalGoldenWarning
        for problem in advice:
            text = str(problem).removeprefix(f"{problem.path}:{problem.line}: ")
            try:
                warn_at_golden_line(self.config, kind, text, problem.path, problem.line)
            except RetrievalGoldenWarning:
                raise self.CollectError(f"{problem} (-W error: {kind.__name__})") from None

    def istestfunction(self, obj: object, name: str) -> bool:
        return isinstance(getattr(obj, QUERIES_ATTR, None), Golden)

    def istestclass(self, obj: object, name: str) -> bool:
        return False

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        functions = [
            (name, f) for name, f in vars(self.obj).items() if self.istestfunction(f, name)
        ]
        collected = _items_alike(self, functions)
        if collected is None:  # pytest's own path, one function at a time
            collected = list(super().collect())
        return self._checked(collected)

    def _checked(
        self, collected: list[pytest.Item | pytest.Collector]
    ) -> list[pytest.Item | pytest.Collector]:
        arg = configuration_arg(self.config)
        seen: dict[tuple[str, str], pytest.Function] = {}
        for node in collected:
            golden = getattr(getattr(node, "obj", None), QUERIES_ATTR, None)
            if not isinstance(node, pytest.Function) or not isinstance(golden, Golden):
                continue
            node.stash[GOLDEN_KEY] = golden
            node.extra_keyword_matches.update(_keywords(golden))
            if golden.coarse:
                _note_keyword_names(node)
            key = (node.originalname, item_configuration(node)[0])
            self.config.stash.setdefault(COLLECTED_KEY, set()).add(key[1])
            reason = None if golden.coarse else golden.queries[0].xfail_for(key[1])
            if reason is not None:  # in every configuration or in this one (coarse: per query)
                node.add_marker(pytest.mark.xfail(reason=reason, raises=ExpectationFailed))
            if key in seen:
                raise self.CollectError(_ambiguous(seen[key], node, arg, *key))
            seen[key] = node
        self._advise(self._unknown_xfail_names(seen.values(), {c for _, c in seen}))
        if hasattr(self.config, "workerinput") and arg != REPLAY_ARG:
            missing = missing_fixture(collected, arg)  # type: ignore[arg-type]
            if missing is not None:  # an xdist worker cannot stop the run cleanly
                raise self.CollectError(missing)
        return collected

    def _unknown_xfail_names(
        self, items: Iterable[pytest.Function], known: set[str]
    ) -> list[Problem]:
        """Advice at each query whose ``xfail`` names a configuration no item of its file
        has: a typo leaves the configuration it meant failing, unexplained. Not an error:
        a run of some configurations (params chosen by the environment) is right to lack
        the others; none in a replay, whose configurations are the recording's."""
        if self.config.stash.get(REPLAY_KEY, None) is not None:
            return []
        queries = {q.id: q for item in items for q in item.stash[GOLDEN_KEY].queries}
        return [
            Problem(
                query.path,
                query.line,
                f"xfail names configuration {quoted(name)}, which no item of this run has"
                f"{did_you_mean(name, sorted(known))} (configurations: "
                f"{', '.join(sorted(known))})",
                query.id,
            )
            for query in queries.values()
            for name in query.xfail_in
            if name not in known
        ]


def _note_keyword_names(item: pytest.Function) -> None:
    """The names ``-k`` matches a coarse item by, as pytest gathers them (the item's and
    its parents', but the session's and the root folder's; its extra keywords), kept
    before ``-k`` deselects it: a ``-k`` word that matches none of them but a query id
    is worth a warning."""
    names = item.config.stash.setdefault(KEYWORD_NAMES_KEY, set())
    for node in item.listchain():
        top = isinstance(node, pytest.Directory) and isinstance(node.parent, pytest.Session)
        if not isinstance(node, pytest.Session) and not top:
            names.add(node.name)
    names.update(item.listextrakeywords())


def _keywords(golden: Golden) -> set[str]:
    """What ``-k`` matches beside the item's name: categories, and a query's tags. A
    category as a coarse item names it too (``long tail`` as ``long-tail``, which ``-k``
    can take), so that one ``-k`` selects it in every item mode."""
    if golden.coarse:
        return {q.category for q in golden.queries}
    category = golden.queries[0].category
    return {category, item_name(category), *golden.queries[0].tags}


def _items_alike(
    parent: GoldenFile, functions: list[tuple[str, Callable[..., None]]]
) -> list[pytest.Item | pytest.Collector] | None:
    """The items of every function, parametrized as pytest parametrizes the first.

    Every generated function has the same signature in the same file, so pytest's
    fixture closure and parametrization (``pytest_generate_tests``) are worked out
    once, for the first, and the others' items are made with the same call specs:
    about a third of the collection time per item. None when pytest's private
    collection API is not what this expects (then each function goes pytest's way).
    """
    if not functions:
        return []
    first_attribute, first = functions[0]
    try:
        template = list(parent._genfunctions(first_attribute, first))
        info = template[0]._fixtureinfo
        specs = [getattr(t, "callspec", None) for t in template]
    except (AttributeError, IndexError, TypeError):
        return None
    # the template is the first function's items, unless that is kept under another
    # attribute than its name (_attribute): then its items are made as the others'
    reused = first.__name__ == first_attribute
    items: list[pytest.Item | pytest.Collector] = list(template) if reused else []
    for function in [f for _, f in functions[1 if reused else 0 :]]:
        name = function.__name__  # the query id or the item's category
        for spec in specs:
            items.append(
                pytest.Function.from_parent(
                    parent,
                    name=f"{name}[{spec.id}]" if spec is not None and spec._idlist else name,
                    callspec=spec,
                    callobj=function,
                    fixtureinfo=info,
                    keywords={spec.id: True} if spec is not None else None,
                    originalname=name,
                )
            )
    return items


def _ambiguous(
    first: pytest.Function, second: pytest.Function, fixture: str, qid: str, conf: str
) -> str:
    """Two items for one query and configuration: their numbers could not be told apart."""
    others = sorted(name for name in second.callspec.params if name != fixture)
    return (
        f"query '{qid}' would run twice for configuration '{conf}' ({first.name} and "
        f"{second.name}): the parametrized "
        f"{'fixture' if len(others) == 1 else 'fixtures'} {', '.join(others)} "
        f"{'multiplies' if len(others) == 1 else 'multiply'} the items, "
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


def _conftest_fixture_defs(config: pytest.Config) -> Iterator[tuple[str, Path, object]]:
    """Each fixture the project's conftest.py files define: its name, the conftest.py
    and the decorated function."""
    for plugin in config.pluginmanager.get_plugins():
        where = str(getattr(plugin, "__file__", "") or "")
        if not where.endswith("conftest.py"):
            continue
        for attribute, value in vars(plugin).items():
            marker = getattr(value, "_fixture_function_marker", None) or getattr(
                value, "_pytestfixturefunction", None
            )
            if marker is not None:
                yield getattr(marker, "name", None) or attribute, Path(where), value


def _conftest_fixtures(config: pytest.Config) -> dict[str, list[Path]]:
    """Fixtures the project's conftest.py files define (what the user may have meant),
    each with the conftest.py files that define it."""
    found: dict[str, list[Path]] = {}
    for name, where, _ in _conftest_fixture_defs(config):
        found.setdefault(name, []).append(where)
    return dict(sorted(found.items()))


def _decorator_line(value: object) -> int | None:
    """The first line of a fixture function as defined (its decorator's line)."""
    for _ in range(20):  # through the fixture definition and any functools.wraps
        wrapped = getattr(value, "__wrapped__", None)
        if wrapped is None:
            break
        value = wrapped
    code = getattr(value, "__code__", None)
    return None if code is None else int(code.co_firstlineno)


def fixture_place(config: pytest.Config, fixture: str) -> tuple[str, int] | None:
    """Where the one conftest.py fixture named ``fixture`` is defined: its file (as the
    warnings show paths) and its decorator's line; None when not exactly one."""
    places = []
    for name, where, value in _conftest_fixture_defs(config):
        line = _decorator_line(value)
        if name == fixture and line is not None:
            places.append((_shown_path(config, where), line))
    return places[0] if len(places) == 1 else None


def _shown_path(config: pytest.Config, path: Path) -> str:
    try:
        return path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return str(path)


def missing_fixture(items: Iterable[pytest.Item], fixture: str) -> str | None:
    """The message when the golden items have no retriever fixture to use, or one with
    ``params=[]``; else None."""
    golden = next((i for i in items if golden_of(i) is not None), None)
    info = getattr(golden, "_fixtureinfo", None)
    if golden is None or info is None:
        return None
    if info.name2fixturedefs.get(fixture):
        return _empty_params(golden, fixture)
    config, where = golden.config, golden.nodeid.split("::")[0]
    others = _conftest_fixtures(config)
    if fixture in others:  # defined, in a conftest.py the golden file is not under
        places = " and ".join(_shown_path(config, p) for p in others[fixture])
        return (
            f"--retrieval-eval: the fixture {quoted(fixture)} is defined in {places}, which "
            f"{where} cannot use: a conftest.py applies to the files in its own folder and "
            f"below. Move the fixture to a conftest.py in a folder that holds {where} (the "
            "project's root conftest.py), or move the golden files under its folder"
        )
    known = f"; fixtures that exist here: {', '.join(others)}" if others else ""
    return (
        f"--retrieval-eval: no fixture named {quoted(fixture)} (retrieval_fixture = "
        f"{quoted(fixture, '')}) is defined for {where}{known}. Define "
        "the retriever fixture in conftest.py, for example:\n\n"
        + FIXTURE_EXAMPLE.format(name=fixture if len(fixture) <= SHOWN else "retriever")
        + "\n\nor set retrieval_fixture in your ini file to the name of your fixture."
    )


def _empty_params(item: pytest.Item, fixture: str) -> str | None:
    """The message when the retriever fixture has ``params=[]``: pytest then makes one
    item per query with the parameter NOTSET and a skip mark, so nothing is evaluated,
    and the run (or its report and baseline) shows a configuration named NOTSET."""
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get(fixture) if callspec is not None else None
    if type(value).__name__ != "NotSetType":
        return None
    func = item._fixtureinfo.name2fixturedefs[fixture][-1].func  # type: ignore[attr-defined]
    try:
        path = Path(inspect.getsourcefile(func) or "")
        where = f" ({_shown_path(item.config, path)}:{inspect.getsourcelines(func)[1]})"
    except (OSError, TypeError):
        where = ""
    return (
        f"--retrieval-eval: the fixture {quoted(fixture)}{where} has an empty params list "
        "(params=[]), so pytest makes no configuration of it: every golden item would be "
        "skipped and nothing evaluated. Give it at least one parameter "
        "(params=['bm25']), or leave params out for a single configuration, 'default'"
    )


def check_fixture(items: Iterable[pytest.Item], fixture: str) -> None:
    """One clear usage error, before anything runs, when no retriever fixture is defined."""
    message = missing_fixture(items, fixture)
    if message is not None:
        raise usage_error(message)


def check_configuration_names(config: pytest.Config, known: Collection[str]) -> None:
    """A usage error, before anything runs, for a setting naming a configuration that no
    collected item has; nothing to check where no configuration is known (no golden file
    collected here: an xdist controller, a run of other tests)."""
    if not known:
        return
    run = config.stash[SETTINGS_KEY]
    message = unknown_configuration_names(run.gate, known)
    if message is not None:
        raise usage_error(message)


def refuse_unreadable_keyword(config: pytest.Config) -> None:
    """A ``-k`` pytest cannot parse (``-k "long tail"``, a category with a space) is a
    usage error saying how a category is written, before collection: pytest's own error
    names only a column, and under pytest-xdist every worker crashes on it."""
    expression = config.getoption("keyword", "") or ""
    if not expression:
        return
    try:
        from _pytest.mark.expression import Expression

        Expression.compile(expression)
    except ImportError:  # pragma: no cover - pytest moved it: pytest's own error stands
        return
    except Exception:  # SyntaxError, or ParseError before pytest 8.4
        raise usage_error(unreadable_keyword_note(expression)) from None


def warn_of_query_ids_in_keyword(session: pytest.Session) -> None:
    """Coarse items and a ``-k`` naming query ids: a warning saying why no query is
    selected by them, and how to run one (once, not in every xdist worker)."""
    config = session.config
    items = config.stash[SETTINGS_KEY].run.calls.items
    expression = config.getoption("keyword", "") or ""
    worker = getattr(config, "workerinput", {}).get("workerid", "gw0")
    golden = config.stash.get(GOLDEN_SET_KEY, None)
    if items.mode == "query" or not expression or worker != "gw0" or golden is None:
        return
    empty: set[str] = set()
    collected, keyword_names = (
        config.stash.get(k, empty) for k in (COLLECTED_KEY, KEYWORD_NAMES_KEY)
    )
    names = {*golden.categories, *collected, *keyword_names}
    found = query_ids_in_keyword(expression, golden.queries, names)
    if not found:
        return
    first = golden.queries[found[0].ids[0]]
    _warn_at(config, keyword_note(items, found), first.path, first.line)


def warn_of_query_ids_in_deselect(session: pytest.Session) -> None:
    """Coarse items and a ``--deselect`` of a query's node id (``golden/x.yaml::q3``):
    it deselects no item, so the query runs; a warning says so and how to leave it out
    (once, not in every xdist worker)."""
    config = session.config
    items = config.stash[SETTINGS_KEY].run.calls.items
    worker = getattr(config, "workerinput", {}).get("workerid", "gw0")
    golden = config.stash.get(GOLDEN_SET_KEY, None)
    if items.mode == "query" or worker != "gw0" or golden is None:
        return
    names = config.stash.get(KEYWORD_NAMES_KEY, set())
    for pattern in config.getoption("deselect", None) or []:
        qid = str(pattern).rpartition("::")[2].split("[", 1)[0]
        query = golden.queries.get(qid)
        if "::" in str(pattern) and query is not None and qid not in names:
            _warn_at(config, deselect_note(items, str(pattern), qid), query.path, query.line)


def _warn_at(config: pytest.Config, text: str, path: str, line: int) -> None:
    """A settings warning at a golden file's line, to pytest's warnings summary (this
    runs inside the collection's capture); under ``-W error`` a usage error saying it."""
    try:  # to pytest's warnings summary, the line shown cut to the terminal
        warn_at_golden_line(config, RetrievalSettingsWarning, text, path, line)
    except RetrievalSettingsWarning:  # -W error: the run stops here, saying why
        raise usage_error(text) from None
