"""Where a run's numbers came from: time, plugin version and git commit."""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

from .._version import __version__


def _git(root: Path, *args: str) -> str | None:
    """``git args`` at ``root``: its output, or None when git fails or is absent."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_commit(root: Path) -> str | None:
    """The commit checked out at ``root``, or None outside a git work tree."""
    commit = (_git(root, "rev-parse", "HEAD") or "").strip()
    return commit or None


def git_dirty(root: Path) -> bool | None:
    """Whether tracked files differ from that commit (untracked files do not count);
    None outside a git work tree."""
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return None if status is None else bool(status.strip())


def provenance(root: Path) -> dict[str, object]:
    """The provenance block of a baseline."""
    return {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "plugin": f"pytest-retrieval {__version__}",
        "git_commit": git_commit(root),
    }
