"""Write a file atomically: a reader (or an interrupted run) sees the old file or the new one."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

try:  # POSIX; elsewhere nothing is locked (one writer at a time is the user's duty)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


NOT_A_FILE = "is a device or a pipe, not a file: a write would replace it with a file"


def write_target(path: Path) -> Path:
    """The file a write to ``path`` replaces: the file a symbolic link points to (the link
    stays a link), and never one that exists and is not a regular file (``/dev/null``, a
    pipe), which the rename would replace with a file: an OSError naming ``path``."""
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if target.exists() and not target.is_file() and not target.is_dir():
        raise OSError(errno.EINVAL, NOT_A_FILE, str(path))
    return target


def temporary_beside(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path`` (``.NAME.PID.XXXXXXXX.tmp``), open: its file
    descriptor and name. The temporary files of runs that were killed before they could
    rename theirs (their process is gone) are removed first: nothing reads them, and a
    killed recording of a large run leaves hundreds of megabytes."""
    _remove_orphans(path)
    return tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)


def _remove_orphans(path: Path) -> None:
    if os.name != "posix":  # os.kill(pid, 0) asks only POSIX whether a process is there
        return
    pattern = re.compile(rf"\.{re.escape(path.name)}\.(\d+)\.\w+\.tmp")
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is not None and not _running(int(found.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _running(pid: int) -> bool:
    """Whether a process ``pid`` is there (another user's counts: it may be writing)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # not ours to signal, or no such number: leave it
        return True
    return True


# How text is encoded to a file: UTF-8, a lone surrogate escaped as \udcff (encoded as
# is, it would stop the write with a UnicodeEncodeError)
SURROGATES = "backslashreplace"


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, as they come) to a temporary file beside ``path``
    (beside the file it links to, for a symbolic link), fsync it, rename it over, then
    fsync the folder.

    A process killed at any point leaves ``path`` as it was or wholly new; a killed one may
    leave its temporary file (``.NAME.PID.*.tmp``), which nothing reads and the next write
    beside it removes.
    """
    write_all_atomic([(path, text)])


def write_all_atomic(files: Sequence[tuple[Path, str | Iterable[str]]]) -> None:
    """Write several files as :func:`write_atomic` writes one, all or none: each is written
    whole to its temporary file first, and only when every one is written are they renamed
    over (a folder that refuses the second file leaves the first as it was)."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in files:
            staged.append(_staged(path, text))
        for tmp, target in staged:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    for folder in dict.fromkeys(target.parent for _, target in staged):
        sync_folder(folder)


def _staged(path: Path, text: str | Iterable[str]) -> tuple[str, Path]:
    """``text`` written and fsynced to a temporary file beside the file ``path`` writes:
    (the temporary file, that file). An OSError names ``path``, not the temporary file."""
    path = write_target(path)
    if path.is_dir():  # else written whole, then refused at the rename, naming the temporary
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # strerror "File exists" says nothing
        message = "a part of the path is a file, not a folder"
        blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), path)
        raise NotADirectoryError(errno.ENOTDIR, message, str(blocking)) from None
    try:
        fd, tmp = temporary_beside(path)
    except OSError as exc:  # named by the file asked for, not the temporary one
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    try:
        os.chmod(tmp, mode_for(path))  # mkstemp makes 0600; keep the file readable as before
        # a lone surrogate (text decoded with surrogateescape: os.listdir, a byte 0xff)
        # is written \udcff, which inside a JSON string is the same text, escaped
        with os.fdopen(fd, "w", encoding="utf-8", errors=SURROGATES, newline="\n") as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            # a write that failed (a full disk) names no file: name the one asked for
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise
    return tmp, path


@contextlib.contextmanager
def folder_locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the folder of ``path`` for a read, change and write of it: two
    runs updating one file (two CI jobs updating a baseline) take turns, so neither
    overwrites what the other merged in. The folder is made first if it is missing (the
    write would make it anyway; two first updates into a new folder take turns too).
    Best effort: no lock where the folder cannot be made or opened, or the system has no
    ``flock`` for folders."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield
        return
    try:
        if fcntl is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing it releases the lock


def sync_folder(folder: Path) -> None:
    """Make the rename itself durable (a power cut after it keeps the new name); best effort:
    some systems (Windows) cannot open a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def mode_for(path: Path) -> int:
    """The existing file's permissions, or what a plain ``open()`` would give (umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
