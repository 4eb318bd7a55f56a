"""The package's shape, enforced: pure cores, one pytest layer, short functions, one schema.

- Only ``pytest_retrieval/plugin/`` imports pytest, directly or through another
  module of the package.
- No function of the package is over 60 lines; no ``dict[str, Any]`` row types.
- docs/options.md's "Options and ini keys at a glance" table is the settings schema's.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Collection, Mapping
from pathlib import Path

import pytest

from pytest_retrieval import settings

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_retrieval"
PYTEST_LAYER = "pytest_retrieval.plugin"
TEST_FRAMEWORK = ("pytest", "_pytest", "pluggy", "xdist")
README_START = "<!-- settings table: generated from pytest_retrieval/settings.py -->"
README_END = "<!-- end of settings table -->"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path) -> set[str]:
    """Every module a module imports, absolute (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def reaches(start: str, graph: Mapping[str, Collection[str]]) -> dict[str, list[str]]:
    """Every module reachable from ``start``, with one import path to it."""
    paths = {start: [start]}
    todo = [start]
    while todo:
        current = todo.pop()
        for target in sorted(graph.get(current, ())):
            if target not in paths:
                paths[target] = [*paths[current], target]
                todo.append(target)
    return paths


@functools.cache  # every module's test reads the one graph: parsed once per process
def import_graph() -> dict[str, frozenset[str]]:
    known = modules()
    graph: dict[str, frozenset[str]] = {}
    for name, path in known.items():
        targets = set()
        for imported in imports_of(name, path):
            if imported in known:
                targets.add(imported)
            elif imported.split(".")[0] in TEST_FRAMEWORK:
                targets.add(imported.split(".")[0])
        graph[name] = frozenset(targets)
    return graph


def test_the_import_walker_sees_the_pytest_layer_import_pytest() -> None:
    """The rule below would pass vacuously if the walker missed imports."""
    graph = import_graph()
    assert "pytest" in graph["pytest_retrieval.plugin.hooks"]
    assert "pytest_retrieval.plugin.option_table" in graph["pytest_retrieval.plugin.hooks"]
    assert "pytest_retrieval.model" in graph["pytest_retrieval.io.baseline_file"]


@pytest.mark.parametrize("name", sorted(n for n in modules() if not n.startswith(PYTEST_LAYER)))
def test_no_core_module_reaches_pytest(name: str) -> None:
    paths = reaches(name, import_graph())
    for forbidden in (*TEST_FRAMEWORK, PYTEST_LAYER):
        hits = sorted(p for p in paths if p == forbidden or p.startswith(forbidden + "."))
        assert not hits, f"{name} reaches {hits[0]}: " + " -> ".join(paths[hits[0]])


def test_the_command_line_reaches_neither_pytest_nor_the_plugin() -> None:
    """The command line runs where pytest is not wanted: not even through the plugin layer."""
    graph = import_graph()
    assert "pytest_retrieval.cli.main" in graph, "the walker must see the command line"
    for name in (n for n in graph if n.startswith("pytest_retrieval.cli")):
        paths = reaches(name, graph)
        forbidden = (*TEST_FRAMEWORK, PYTEST_LAYER)
        hits = sorted(p for p in paths for f in forbidden if p == f or p.startswith(f + "."))
        assert not hits, f"{name} reaches {hits[0]}: " + " -> ".join(paths[hits[0]])


def test_no_function_is_over_60_lines() -> None:
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 60:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert long == []


def test_no_untyped_rows() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{i}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "dict[str, Any]" in line
    ]
    assert found == []


def readme_table() -> str:
    text = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    assert README_START in text and README_END in text, "docs/options.md lost its settings table"
    return text.split(README_START, 1)[1].split(README_END, 1)[0].strip() + "\n"


def test_the_readme_table_is_the_settings_schema() -> None:
    assert readme_table() == settings.markdown_table(), (
        "docs/options.md's settings table differs from the schema: run python scripts/readme.py"
    )


def test_the_entry_points_option_table_is_generated_from_the_schema() -> None:
    """plugin/option_table.py is the schema as plain data (what pytest registers); a
    setting changed in settings.py without regenerating it would register the old one."""
    written = (ROOT / settings.OPTION_TABLE).read_text(encoding="utf-8")
    assert written == settings.option_table_source(), (
        f"{settings.OPTION_TABLE} differs from the schema: run python scripts/readme.py"
    )


def test_every_setting_is_in_the_schema_once() -> None:
    names = [s.name for s in settings.SCHEMA]
    options = [s.option for s in settings.SCHEMA if s.option]
    assert len(names) == len(set(names))
    assert len(options) == len(set(options))
    declared = {
        value.name for value in vars(settings).values() if isinstance(value, settings.Setting)
    }
    assert declared == set(names), "a Setting constant missing from SCHEMA"
