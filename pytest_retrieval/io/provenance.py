"""Where a run's numbers came from: time, plugin version and git commit."""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

from .._version import __version__


def git_commit(root: Path) -> str | None:
    """The commit checked out at ``root``, or None outside a git work tree."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def provenance(root: Path) -> dict[str, object]:
    """The provenance block of a baseline."""
    return {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "plugin": f"pytest-retrieval {__version__}",
        "git_commit": git_commit(root),
    }
