"""Golden files on disk: which files are golden, their text, and the loader for each.

Pure apart from reading the file. :func:`load_golden_file` returns the checked
queries of one ``.yaml``/``.yml`` or ``.jsonl`` file (any case), or raises
:class:`~pytest_retrieval.golden.GoldenFileError` listing every problem in it.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from ..bulk import paused_gc
from ..golden import GoldenFileError, GoldenQuery, Problem
from .golden_check import check_file
from .golden_jsonl import parse_jsonl
from .golden_yaml import parse_yaml

JSONL_SUFFIX = ".jsonl"
GOLDEN_SUFFIXES = (".yaml", ".yml", JSONL_SUFFIX)  # a golden file's, whatever their case
# the folders pytest's collection does not enter by default (its norecursedirs)
SKIPPED_FOLDERS = (
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
)


def is_golden_file(path: Path) -> bool:
    """Whether a file is a golden file by its suffix: ``.yaml``, ``.yml``, ``.jsonl``, in
    any letter case (what the plugin collects)."""
    return path.suffix.lower() in GOLDEN_SUFFIXES


def golden_files_in(folder: Path) -> list[Path]:
    """Every golden file under a folder, sorted: the files the plugin's collection finds
    there (pytest's default norecursedirs left out, hidden folders among them)."""
    found = []
    for path in sorted(folder.rglob("*")):
        inside = path.relative_to(folder).parts[:-1]
        if any(fnmatch.fnmatch(part, skip) for part in inside for skip in SKIPPED_FOLDERS):
            continue
        if is_golden_file(path) and path.is_file():
            found.append(path)
    return found


def load_golden_file(
    path: Path, *, max_grade: int = 3, shown: str | None = None
) -> list[GoldenQuery]:
    """Load and check one golden file.

    ``shown`` is how the file is named in messages (a path relative to the
    rootdir). Raises :class:`GoldenFileError` with every problem in the file.
    """
    shown = shown or str(path)
    text = read_text(path, shown)
    with paused_gc():
        if path.suffix.lower() == JSONL_SUFFIX:
            data, found = parse_jsonl(text, shown)
            return check_file(data, shown, max_grade, found)
        return check_file(parse_yaml(text, shown), shown, max_grade)


def read_text(path: Path, shown: str) -> str:
    """A golden file's text (UTF-8, a byte-order mark allowed); what else it is, named."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GoldenFileError([Problem(shown, 0, f"cannot read the file: {exc}")]) from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        message = "the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8"
        raise GoldenFileError([Problem(shown, 1, message)])
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        message = "a NUL byte: the file is binary or corrupt; save it as UTF-8 text"
        raise GoldenFileError([Problem(shown, line, message)])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        message = (
            f"byte 0x{data[exc.start]:02x} is not UTF-8 (is the file Latin-1?); save it as UTF-8"
        )
        raise GoldenFileError([Problem(shown, line, message)]) from None
