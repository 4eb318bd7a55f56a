"""The project's ini settings read without pytest, found the way pytest finds them.

Pure apart from reading files; no pytest import (the command line uses it). From
the current folder upward, the first folder holding one of these files that
configures pytest wins, in pytest's order of precedence:

* ``pytest.toml`` / ``.pytest.toml`` (table ``[pytest]``), always the source;
* ``pytest.ini`` / ``.pytest.ini`` (section ``[pytest]``), always the source, even empty;
* ``pyproject.toml`` (``[tool.pytest.ini_options]``, or pytest 9's ``[tool.pytest]``);
* ``tox.ini`` (section ``[pytest]``);
* ``setup.cfg`` (section ``[tool:pytest]``).

That folder is the rootdir (golden paths are relative to it); with no such file,
the folder of the first ``pyproject.toml`` met, else the current folder. An
explicit file (``--config FILE``) is read by its name, else by its suffix, as
pytest's ``-c`` reads it. TOML needs :mod:`tomllib` (Python 3.11+) or, on 3.10,
``tomli`` when installed.
"""

from __future__ import annotations

import configparser
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from ..settings import SCHEMA, Raw, SettingsError, refuse_empty_ini
from .common import LONG_NUMBER, is_long_number

IniValue = str | list[str]


class IniError(ValueError):
    """A config file that cannot be read; the message names the file and the fix."""


@dataclass(frozen=True)
class IniConfig:
    """The config file found (None: none), its rootdir and its pytest values, as text."""

    path: Path | None
    rootdir: Path
    values: Mapping[str, IniValue] = field(default_factory=dict)

    @property
    def shown(self) -> str:
        return str(self.path) if self.path is not None else "(no config file)"

    def raw_settings(self, overrides: Mapping[str, str] | None = None) -> dict[str, Raw]:
        """Each ini key of the settings schema, as pytest's ``getini`` hands it over.

        ``args`` keys are split like a shell line when written as text; ``overrides``
        (``-o key=value``) replace file values, as pytest's ``-o`` does.
        """
        values: dict[str, IniValue] = {**self.values, **(overrides or {})}
        raw: dict[str, Raw] = {}
        for setting in SCHEMA:
            if setting.ini is None or setting.name not in values:
                continue
            value = values[setting.name]
            if setting.ini == "args" and isinstance(value, str):
                try:
                    raw[setting.name] = shlex.split(value)
                except ValueError as exc:
                    raise IniError(f"{self.shown}: {setting.name}: {exc}") from None
            else:
                raw[setting.name] = value
        try:
            refuse_empty_ini(raw, self.shown if self.path is not None else "-o")
        except SettingsError as exc:
            raise IniError(str(exc)) from None
        return raw


def _toml_module() -> ModuleType:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    try:  # pragma: no cover - Python 3.10 only
        import tomli  # type: ignore[import-not-found,unused-ignore]

        return tomli  # type: ignore[no-any-return,unused-ignore]
    except ImportError:  # pragma: no cover - Python 3.10 without tomli
        raise IniError(
            "reading TOML on Python 3.10 needs tomli: pip install tomli (or use Python 3.11+)"
        ) from None


def _as_value(path: Path, key: str, value: object) -> IniValue:
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, dict):
        raise IniError(f"{path}: {key} is a table; write text or a list of text")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _toml(path: Path) -> dict[str, object]:
    toml = _toml_module()
    try:
        data = toml.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise IniError(f"cannot read {path}: {exc}") from None
    except toml.TOMLDecodeError as exc:
        raise IniError(f"{path}: not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer past Python's digit limit, which tomllib lets through
        if not is_long_number(exc):
            raise
        raise IniError(f"{path}: not valid TOML: {LONG_NUMBER}") from None
    assert isinstance(data, dict)
    return data


def _table(path: Path, table: object) -> dict[str, IniValue]:
    if not isinstance(table, dict):
        raise IniError(f"{path}: the pytest table is not a table")
    return {str(k): _as_value(path, str(k), v) for k, v in table.items()}


def _pytest_toml(path: Path) -> dict[str, IniValue] | None:
    return _table(path, _toml(path).get("pytest", {}))


def _pyproject(path: Path) -> dict[str, IniValue] | None:
    tool = _toml(path).get("tool", {})
    pytest_table = tool.get("pytest") if isinstance(tool, dict) else None
    if not isinstance(pytest_table, dict):
        return None
    native = {k: v for k, v in pytest_table.items() if k != "ini_options"}
    ini = pytest_table.get("ini_options")
    if native and ini is not None:
        raise IniError(
            f"{path}: both [tool.pytest] and [tool.pytest.ini_options]; pytest refuses that, "
            "keep one"
        )
    return _table(path, native if native else ini if ini is not None else {})


def _custom_toml(path: Path) -> dict[str, IniValue] | None:
    found = _pyproject(path)
    return found if found is not None else _table(path, _toml(path).get("pytest", {}))


def _ini_sections(path: Path) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=True, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        with open(path, encoding="utf-8-sig") as handle:
            parser.read_file(handle)
    except (OSError, UnicodeDecodeError) as exc:
        raise IniError(f"cannot read {path}: {exc}") from None
    except configparser.Error as exc:
        raise IniError(f"{path}: not a valid ini file: {exc}") from None
    return parser


def _section(path: Path, name: str) -> dict[str, IniValue] | None:
    parser = _ini_sections(path)
    if not parser.has_section(name):
        return None
    return {key: value.strip() for key, value in parser.items(name)}


def _pytest_ini(path: Path) -> dict[str, IniValue] | None:
    return _section(path, "pytest") or {}


def _tox_ini(path: Path) -> dict[str, IniValue] | None:
    return _section(path, "pytest")


def _setup_cfg(path: Path) -> dict[str, IniValue] | None:
    return _section(path, "tool:pytest")


Loader = Callable[[Path], "dict[str, IniValue] | None"]
LOADERS: dict[str, Loader] = {  # pytest's order of precedence
    "pytest.toml": _pytest_toml,
    ".pytest.toml": _pytest_toml,
    "pytest.ini": _pytest_ini,
    ".pytest.ini": _pytest_ini,
    "pyproject.toml": _pyproject,
    "tox.ini": _tox_ini,
    "setup.cfg": _setup_cfg,
}
BY_SUFFIX: dict[str, Loader] = {".ini": _tox_ini, ".cfg": _setup_cfg, ".toml": _custom_toml}


def read_config_file(path: Path) -> IniConfig:
    """An explicit config file (``--config FILE``): read by its name, else by its suffix."""
    path = path.resolve()
    if path.is_dir():
        raise IniError(
            f"config file {path} is a folder: name the file in it ({', '.join(LOADERS)})"
        )
    if not path.is_file():
        raise IniError(f"config file {path} does not exist")
    loader = LOADERS.get(path.name) or BY_SUFFIX.get(path.suffix)
    if loader is None:
        raise IniError(f"{path}: not a config file pytest reads (.ini, .cfg or .toml)")
    return IniConfig(path, path.parent, loader(path) or {})


def find_config(start: Path, explicit: Path | None = None) -> IniConfig:
    """The config that pytest would use when started in ``start`` with no path arguments."""
    if explicit is not None:
        return read_config_file(explicit)
    start = start.resolve()
    first_pyproject: Path | None = None
    for base in (start, *start.parents):
        for name, loader in LOADERS.items():
            candidate = base / name
            if not candidate.is_file():
                continue
            if name == "pyproject.toml" and first_pyproject is None:
                first_pyproject = candidate
            values = loader(candidate)
            if values is not None:
                return IniConfig(candidate, base, values)
    if first_pyproject is not None:
        return IniConfig(first_pyproject, first_pyproject.parent, {})
    return IniConfig(None, start, {})


# the sections pytest reads its settings from, in any of its config files
PYTEST_SECTIONS = ("pytest", "tool:pytest", "tool.pytest.ini_options", "tool.pytest")
_HEADER = re.compile(r"^\s*\[(.*)\]\s*(?:[#;].*)?$")


def config_text(path: Path | None) -> str:
    """A config file's text, to find a key's line in; "" when there is no file or it
    cannot be read (the settings were read already: a line is only a pointer)."""
    if path is None:
        return ""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ""


def key_line(text: str, key: str) -> int | None:
    """The line (counted from 1) of a config file's text where ``key`` itself is set:
    ``key = ...`` or ``key: ...``, the key in quotes or not (TOML's ``"key" = ...``),
    not a longer key that starts with it; the line inside pytest's section when another
    tool's section sets a key of that name too. None when no line sets it."""
    setting = re.compile(rf"""^\s*(["']?){re.escape(key)}\1\s*[=:]""")
    section, elsewhere = "", None
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header is not None:
            section = re.sub(r"""[\s"']""", "", header.group(1))
        elif setting.match(line):
            if section in PYTEST_SECTIONS:
                return number
            elsewhere = elsewhere or number
    return elsewhere


def parse_overrides(items: Sequence[str]) -> dict[str, str]:
    """``--override-ini key=value`` items as a mapping (the last one of a key wins)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise IniError(
                "--override-ini expects KEY=VALUE (e.g. --override-ini retrieval_gain=linear), "
                f"got {item!r}"
            )
        out[key.strip()] = value
    return out
