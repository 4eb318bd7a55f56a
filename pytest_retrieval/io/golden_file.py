"""Golden files on disk: which files are golden, their text, and the loader for each.

Pure apart from reading the file. :func:`load_golden_file` returns the checked
queries of one ``.yaml``/``.yml`` or ``.jsonl`` file (any case), or raises
:class:`~pytest_retrieval.golden.GoldenFileError` listing every problem in it.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..bulk import paused_gc
from ..golden import GoldenFileError, GoldenQuery, Problem
from ..quoting import SHOWN, quoted
from .common import UTF16_MESSAGE
from .file_kinds import HEAD_BYTES, kind_of_head, own_file_kind
from .golden_check import check_file
from .golden_jsonl import parse_jsonl
from .golden_yaml import parse_yaml

JSONL_SUFFIX = ".jsonl"
GOLDEN_SUFFIXES = (".yaml", ".yml", JSONL_SUFFIX)  # a golden file's, whatever their case
# the folders pytest's collection does not enter by default (its norecursedirs)
NORECURSEDIRS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")


def is_golden_file(path: Path) -> bool:
    """Whether a file is a golden file by its suffix: ``.yaml``, ``.yml``, ``.jsonl``, in
    any letter case (what the plugin collects)."""
    return path.suffix.lower() in GOLDEN_SUFFIXES


# JSON files a user may take for golden files: not read, so their queries would be missing
NOT_GOLDEN_JSON = (".json", ".ndjson")
# a key of a golden query (or another tool's name for one) in a file's start
_QUERY_KEYS_HEAD = (b'"query"', b'"queries"', b'"relevant"', b'"qrels"', b'"question"')


def unread_json_note(path: Path, shown: str) -> str | None:
    """What to say of a ``.json`` or ``.ndjson`` file in a golden folder that looks like
    golden queries (a query's key in its first bytes; not one of the plugin's own files,
    the baseline, a report, a recording): it is not read. None for any other file."""
    suffix = path.suffix.lower()
    if suffix not in NOT_GOLDEN_JSON or own_file_kind(path) is not None:
        return None
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return None
    if not any(key in head for key in _QUERY_KEYS_HEAD):
        return None
    return (
        f"{shown} is not read as a golden file (only .yaml, .yml and .jsonl are), so "
        f"none of its queries run: {_json_fix(shown)}"
    )


def _json_fix(shown: str) -> str:
    """How to make a ``.json`` or ``.ndjson`` file of queries a golden file."""
    stem, suffix = os.path.splitext(shown)
    if suffix.lower() == ".ndjson":
        return f"rename it {stem}{JSONL_SUFFIX} if it holds one query object per line"
    return f"write its queries one per line in {stem}{JSONL_SUFFIX} (JSON Lines), or as YAML"


def golden_files_in(folder: Path, skipped: Sequence[str] = NORECURSEDIRS) -> list[Path]:
    """Every golden file under a folder, as pytest's collection finds them there: in name
    order, through linked folders, each file once (by its real path, under the first
    path that reached it); not in ``__pycache__``, a virtual environment, or a folder
    matching ``skipped`` (the ini file's ``norecursedirs``, else pytest's default)."""
    return list(_walk(folder, skipped, set()))


def collected_under(folder: Path, path: Path, skipped: Sequence[str] = NORECURSEDIRS) -> bool:
    """Whether collecting ``folder`` would reach ``path`` (which need not exist yet): a
    golden file's name, under it, in no folder the collection leaves out (a hidden one)."""
    if not is_golden_file(path) or folder not in path.parents:
        return False
    inner = folder
    for part in path.relative_to(folder).parts[:-1]:
        inner = inner / part
        if _skipped_folder(inner, skipped):
            return False
    return True


def _walk(current: Path, skipped: Sequence[str], seen: set[Path]) -> Iterator[Path]:
    """The golden files under ``current`` as they are found; ``seen`` holds the real paths
    of the folders entered and the files given (a link back to a folder walked: a loop)."""
    real = current.resolve()
    if real in seen:
        return
    seen.add(real)
    try:
        entries = sorted(current.iterdir())
    except OSError:
        return
    for entry in entries:
        if is_dangling_link(entry):
            yield entry  # read as a golden file, it says what it links to
        elif entry.is_dir():
            if not _skipped_folder(entry, skipped):
                yield from _walk(entry, skipped, seen)
        elif is_golden_file(entry) and entry.is_file():
            real = entry.resolve()
            if real not in seen:
                seen.add(real)
                yield entry


def is_dangling_link(entry: Path) -> bool:
    """A symbolic link whose target is missing that would hold golden queries if it
    resolved: named as a golden file, or with no suffix (a folder). Left out in silence,
    its queries would be missing from the run. Not Emacs' lock files (``.#name``), which
    are links to nothing by design."""
    if entry.name.startswith(".#") or not entry.is_symlink():
        return False
    try:
        entry.stat()
    except (FileNotFoundError, NotADirectoryError):  # not a loop too deep to follow (ELOOP)
        return is_golden_file(entry) or not entry.suffix
    except OSError:
        return False
    return False


def dangling_links_in(folder: Path) -> list[Path]:
    """The dangling links (:func:`is_dangling_link`) directly in a folder, by name."""
    try:
        return sorted(entry for entry in folder.iterdir() if is_dangling_link(entry))
    except OSError:
        return []


def _dangling_problem(path: Path, shown: str) -> Problem:
    try:
        target = os.readlink(path)
    except OSError:
        target = "a missing target"
    message = f"is a symbolic link to {target}, which does not exist"
    return Problem(shown, 0, f"{message}: restore its target, or remove the link")


def golden_path_problems(
    root: Path, given: Sequence[str], skipped: Sequence[str] = NORECURSEDIRS
) -> list[str]:
    """What is wrong with each of ``retrieval_golden``'s paths (relative to ``root``): one
    that does not exist, a file that is no golden file, a folder holding none (found out
    at its first golden file, not by a walk of all of it). A second path misspelled would
    otherwise leave its queries out unnoticed."""
    problems = []
    for shown in given:
        path, named = root / shown, quoted(shown, "", width=2 * SHOWN)
        try:
            path.stat()
        except (FileNotFoundError, NotADirectoryError):
            pattern = any(c in shown for c in "*?[")
            problems.append(
                f"{named} does not exist under {root}"
                + (
                    ": a pattern is not expanded; name the folder (every .yaml, .yml and "
                    ".jsonl under it is collected) or each file"
                    if pattern
                    else ""
                )
            )
            continue
        except OSError as exc:  # a name too long, a loop of links
            problems.append(f"{named} cannot be used ({exc.strerror or exc})")
            continue
        if path.is_file() and not is_golden_file(path):
            kind = f"{shown} is not a golden file (.yaml, .yml or .jsonl)"
            problems.append(kind + _json(path, shown))
        elif path.is_dir() and next(_walk(path, skipped, set()), None) is None:
            problems.append(
                f"{shown} holds no golden file (.yaml, .yml or .jsonl){_json(path, shown)}"
            )
    return problems


def _json(path: Path, shown: str) -> str:
    """For a ``.json`` or ``.ndjson`` golden path, or a folder holding such files, what
    to do with them (they are not read); "" otherwise."""
    if path.is_dir():
        found = next((p for p in path.rglob("*") if p.suffix.lower() in NOT_GOLDEN_JSON), None)
        if found is None:
            return ""
        return f"; its {found.suffix} files are not read: write them as .jsonl, or as YAML"
    if path.suffix.lower() not in NOT_GOLDEN_JSON:
        return ""
    return f"; {_json_fix(shown)}"


def _skipped_folder(folder: Path, skipped: Sequence[str]) -> bool:
    """Whether pytest's collection leaves a folder out (``pytest_ignore_collect``)."""
    if folder.name == "__pycache__":
        return True
    if (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta" / "history").is_file():
        return True  # a virtual environment
    return any(
        fnmatch.fnmatch(str(folder) if "/" in pattern else folder.name, pattern)
        for pattern in skipped
    )


def load_golden_file(
    path: Path, *, max_grade: int = 3, shown: str | None = None
) -> list[GoldenQuery]:
    """Load and check one golden file.

    ``shown`` is how the file is named in messages (a path relative to the
    rootdir). Raises :class:`GoldenFileError` with every problem in the file.
    """
    shown = shown or str(path)
    text = read_text(path, shown)
    kind = kind_of_head(text[:HEAD_BYTES].encode("utf-8", "replace"))
    if kind is not None:  # one of its own outputs written (or copied) into a golden folder
        message = (
            f"this is a pytest-retrieval {kind}, not a golden file: move it out of the "
            "golden folders (retrieval_golden), or write it elsewhere"
        )
        raise GoldenFileError([Problem(shown, 1, message)])
    with paused_gc():
        if path.suffix.lower() == JSONL_SUFFIX:
            data, found = parse_jsonl(text, shown)
            return check_file(data, shown, max_grade, found)
        return check_file(parse_yaml(text, shown), shown, max_grade)


def read_text(path: Path, shown: str) -> str:
    """A golden file's text (UTF-8, a byte-order mark allowed); what else it is, named."""
    if is_dangling_link(path):
        raise GoldenFileError([_dangling_problem(path, shown)])
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GoldenFileError([Problem(shown, 0, f"cannot read the file: {exc}")]) from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise GoldenFileError([Problem(shown, 1, UTF16_MESSAGE)])
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
