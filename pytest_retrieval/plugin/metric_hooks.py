"""Custom metrics from the ``pytest_retrieval_metrics`` hook, installed for one run.

Every process (the controller and each xdist worker) gathers them in its own
``pytest_configure``, before the settings and the golden files are read, and puts
the registry back when the run ends (several runs may share a process: pytester).
"""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from pluggy import HookImpl

from ..metric_registry import (
    MetricDefinitionError,
    Registered,
    exception_text,
    raised_at,
    registered,
)
from ..metrics import install_metrics, restore_metrics
from .usage import usage_error

GUARD_PLUGIN = "retrieval-late-metrics"


def _shown(config: pytest.Config, path: Path) -> str:
    try:
        return path.resolve().relative_to(config.rootpath.resolve()).as_posix()
    except ValueError:
        return str(path)


def source_of(config: pytest.Config, plugin: object, function: object) -> str:
    """Where a hook implementation lives: ``conftest.py:12`` (the function's file and
    line, also when a conftest imported it), or ``plugin 'name' (file:line)``."""
    code = getattr(function, "__code__", None)
    name = getattr(plugin, "__name__", type(plugin).__name__)
    if code is None:
        return f"plugin '{name}'"
    where = f"{_shown(config, Path(code.co_filename))}:{code.co_firstlineno}"
    module_file = (
        getattr(plugin, "__file__", None) if isinstance(plugin, types.ModuleType) else None
    )
    is_conftest = module_file is not None and Path(module_file).name == "conftest.py"
    return where if is_conftest else f"plugin '{name}' ({where})"


def _call(config: pytest.Config, impl: HookImpl) -> list[Registered]:
    source = source_of(config, impl.plugin, impl.function)
    try:
        returned = impl.function()
    except Exception as exc:
        raise usage_error(
            f"{source}: pytest_retrieval_metrics() raised {type(exc).__name__}: "
            f"{exception_text(exc)}"
            f"{raised_at(exc)}"
        ) from None
    try:
        return registered(source, returned)
    except MetricDefinitionError as exc:
        raise usage_error(str(exc)) from None


def install_custom_metrics(config: pytest.Config) -> None:
    """Gather every ``pytest_retrieval_metrics()`` and install them until the run ends.

    Two definitions claiming one name or alias are a usage error naming both.
    """
    impls = [
        i
        for i in config.hook.pytest_retrieval_metrics.get_hookimpls()
        if not (i.hookwrapper or i.wrapper)
    ]
    found = [entry for impl in impls for entry in _call(config, impl)]
    try:
        previous = install_metrics(found)
    except MetricDefinitionError as exc:
        raise usage_error(str(exc)) from None
    config.add_cleanup(lambda: restore_metrics(previous))
    guard = LateMetrics(config, {id(i.plugin) for i in impls})
    config.pluginmanager.register(guard, GUARD_PLUGIN)
    config.add_cleanup(lambda: config.pluginmanager.unregister(guard))


class LateMetrics:
    """Refuses a ``pytest_retrieval_metrics`` that arrives after the metrics were read
    (a ``conftest.py`` below the rootdir, loaded only when its folder is collected)."""

    def __init__(self, config: pytest.Config, seen: set[int]):
        self.config = config
        self.seen = seen

    def pytest_plugin_registered(self, plugin: object) -> None:
        function = getattr(plugin, "pytest_retrieval_metrics", None)
        if function is None or id(plugin) in self.seen:
            return
        source = source_of(self.config, plugin, function)
        raise pytest.Collector.CollectError(
            f"{source}: pytest_retrieval_metrics is defined in a file pytest loaded after "
            "the metrics were read (at configuration, before collection); move it to the "
            f"conftest.py at the rootdir ({self.config.rootpath}) or to an installed plugin"
        )
