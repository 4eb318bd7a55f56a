"""The package stays ruff- and mypy-clean: CI runs these with the rest of the suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_is_clean() -> None:
    if shutil.which("ruff") is None and run("ruff", "--version").returncode != 0:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    lint = run(
        "ruff", "check", "pytest_retrieval", "tests", "benchmarks", "demo", "scripts", "conftest.py"
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    style = run("ruff", "format", "--check", "pytest_retrieval")
    assert style.returncode == 0, style.stdout + style.stderr


def test_mypy_strict_is_clean() -> None:
    pytest.importorskip("mypy")
    checked = run("mypy", "pytest_retrieval")
    assert checked.returncode == 0, checked.stdout + checked.stderr
