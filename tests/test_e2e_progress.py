"""End to end: a coarse item's long fetch shows its progress on a terminal, and only there.

pytest runs in a subprocess whose output is a pseudo-terminal (``os.openpty``), as a
person's terminal is; what it printed is then replayed as a terminal shows it
(backspaces move the cursor back, later characters overwrite), so the test sees the
status while it was up and the line pytest left once it was erased.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import e2e_write

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")

SLOW_CONFTEST = """
import time
import pytest

@pytest.fixture(scope="session", params=["slow"])
def retriever(request):
    def search(query):
        time.sleep(0.04)
        return ["d" + query.id[1:]]
    return search
"""


def _project(pytester: pytest.Pytester) -> None:
    lines = ["queries:"] + [
        f"  - {{id: q{i}, query: text {i}, category: long, relevant: {{d{i}: 1}}}}"
        for i in range(40)  # 1.6 s of calls: past the 1 s after which progress shows
    ]
    e2e_write(pytester, "golden/long.yaml", "\n".join(lines) + "\n")
    e2e_write(pytester, "conftest.py", SLOW_CONFTEST)
    e2e_write(pytester, "pytest.ini", "[pytest]\nretrieval_items = category\n")


def _run_on_a_terminal(folder: Path, *args: str) -> str:
    main, child = os.openpty()
    env = {**os.environ, "COLUMNS": "100", "PYTEST_ADDOPTS": "-p no:randomly -W ignore"}
    command = [sys.executable, "-m", "pytest", "--retrieval-eval", *args]
    process = subprocess.Popen(command, cwd=folder, stdout=child, stderr=child, env=env)
    os.close(child)
    chunks = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


def _as_shown(line: str) -> str:
    """One line as a terminal leaves it: backspace moves back, text overwrites."""
    cells: list[str] = []
    cursor = 0
    for char in line:
        if char == "\b":
            cursor = max(cursor - 1, 0)
            continue
        if cursor < len(cells):
            cells[cursor] = char
        else:
            cells.append(char)
        cursor += 1
    return "".join(cells).rstrip()


def _item_line(output: str) -> str:
    return next(line for line in output.split("\r\n") if line.startswith("golden/long.yaml"))


def test_a_long_coarse_item_shows_its_progress_then_erases_it(pytester: pytest.Pytester) -> None:
    _project(pytester)
    output = _run_on_a_terminal(pytester.path, "--color=no")
    line = _item_line(output)
    assert " [slow: " in line and " queries, " in line and "/40 queries" in line, line
    shown = _as_shown(line)
    assert shown.startswith("golden/long.yaml .") and shown.endswith("[100%]"), shown
    assert "slow:" not in shown and len(shown) == 99, shown  # pytest's own line, whole


@pytest.mark.parametrize("args", [["-q"], ["-n", "1"]])
def test_no_progress_under_q_or_from_an_xdist_worker(
    pytester: pytest.Pytester, args: list[str]
) -> None:
    _project(pytester)
    output = _run_on_a_terminal(pytester.path, "--color=no", *args)
    assert "1 passed" in output
    assert "queries, " not in output


def test_no_progress_when_the_output_is_not_a_terminal(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest_subprocess("--retrieval-eval", "-p", "no:randomly")
    assert result.ret == 0
    assert "queries, " not in result.stdout.str()
