"""``--metrics-module MODULE``: custom metrics for the command line.

The command line loads no pytest plugin and no ``conftest.py``; it imports each
module named (a dotted name, found from the current folder and the rootdir, or a
path to a ``.py`` file) and calls its ``pytest_retrieval_metrics()``, the function a
``conftest.py`` defines for the plugin's hook (a conftest may import it from that
module, so both read one definition).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Sequence
from pathlib import Path

from ..metric_registry import MetricDefinitionError, Registered, raised_at, registered

FUNCTION = "pytest_retrieval_metrics"
HINT = "a custom metric? name the module that defines it with --metrics-module MODULE"


class MetricModuleError(Exception):
    """A module that cannot give its metrics (the command's error, exit 2)."""


def _from_file(given: str, path: Path) -> types.ModuleType:
    if not path.is_file():
        raise MetricModuleError(f"--metrics-module {given}: no such file")
    name = f"_pytest_retrieval_metrics_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise MetricModuleError(f"--metrics-module {given}: cannot import a module from this file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _by_name(given: str, folders: Sequence[Path]) -> types.ModuleType:
    added = [str(f) for f in folders if str(f) not in sys.path]
    sys.path[:0] = added
    try:
        return importlib.import_module(given)
    except ModuleNotFoundError as exc:
        if exc.name is None or not given.startswith(exc.name):
            raise
        shown = ", ".join(str(f) for f in folders)
        raise MetricModuleError(
            f"--metrics-module {given}: no module named '{exc.name}' (looked in {shown} and "
            "the installed packages); give a dotted module name or the path to a .py file"
        ) from None
    finally:
        for folder in added:
            sys.path.remove(folder)


def _import(given: str, cwd: Path, rootdir: Path) -> types.ModuleType:
    try:
        if given.endswith(".py") or "/" in given or "\\" in given:
            path = Path(given) if Path(given).is_absolute() else cwd / given
            return _from_file(given, path.resolve())
        return _by_name(given, list(dict.fromkeys([cwd, rootdir])))
    except MetricModuleError:
        raise
    except Exception as exc:  # the module's own code failed
        raise MetricModuleError(
            f"--metrics-module {given}: importing it raised {type(exc).__name__}: {exc}"
            f"{raised_at(exc)}"
        ) from None


def _source(module: types.ModuleType, function: object, cwd: Path) -> str:
    code = getattr(function, "__code__", None)
    path = Path(code.co_filename if code is not None else module.__file__ or module.__name__)
    try:
        shown = path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        shown = str(path)
    return f"{shown}:{code.co_firstlineno}" if code is not None else shown


def load_metric_modules(given: Sequence[str], cwd: Path, rootdir: Path) -> list[Registered]:
    """Every metric the modules' ``pytest_retrieval_metrics()`` return, with its source."""
    found: list[Registered] = []
    for name in given:
        module = _import(name, cwd, rootdir)
        function = getattr(module, FUNCTION, None)
        if not callable(function):
            raise MetricModuleError(
                f"--metrics-module {name}: {module.__file__ or name} defines no {FUNCTION}(); "
                "define it to return a list of pytest_retrieval.MetricSpec"
            )
        source = _source(module, function, cwd)
        try:
            found += registered(source, function())
        except MetricDefinitionError as exc:
            raise MetricModuleError(str(exc)) from None
        except Exception as exc:
            raise MetricModuleError(
                f"{source}: {FUNCTION}() raised {type(exc).__name__}: {exc}{raised_at(exc)}"
            ) from None
    return found
