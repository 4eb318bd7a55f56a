"""Test support for the command line (not a test): run it in-process, write small projects.

:func:`cli` calls :func:`pytest_retrieval.cli.main.main` with its own output streams,
so a test sees the exit code, standard output and standard error of one command
without a subprocess. :func:`write_project` lays out a project: an ini file and
golden files, as a user would have them.
"""

from __future__ import annotations

import io
import json
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

from pytest_retrieval.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def shared_root() -> Path:
    """The shared folder beside the repository, or $RETRIEVAL_SHARED."""
    if os.environ.get("RETRIEVAL_SHARED"):
        return Path(os.environ["RETRIEVAL_SHARED"])
    return ROOT.parent / "shared"


@dataclass(frozen=True)
class Ran:
    """One command's exit code and output."""

    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    @property
    def notes(self) -> str:
        """Standard error with the lines of each wrapped note joined by single spaces."""
        return " ".join(self.err.split())


def cli(*args: str, cwd: Path) -> Ran:
    """Run ``pytest-retrieval ARGS`` in ``cwd``, in-process."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), cwd=cwd, out=out, err=err)
    return Ran(code, out.getvalue(), err.getvalue())


GOLDEN = """\
# A small catalogue of paid APIs.
defaults:
  category: paraphrase
queries:
  - id: rain-tomorrow   # the classic
    query: is it going to rain tomorrow
    relevant:
      weather-forecast: 3
      weather-stuffed: 1
  - id: convert-euros
    query: convert euros to dollars
    category: lexical
    relevant: {fx-rates: 2, tide-tables: 0}
  - id: lottery
    query: predict the lottery numbers
    category: no-result
    relevant: {}
"""

INI = """\
[pytest]
retrieval_golden = golden
retrieval_metrics = ndcg@10 mrr recall@10
"""


def write_project(
    root: Path, files: dict[str, str] | None = None, ini: str = INI, ini_name: str = "pytest.ini"
) -> Path:
    """An ini file and golden files (relative path -> text) under ``root``."""
    (root / ini_name).write_text(textwrap.dedent(ini), encoding="utf-8")
    for name, text in (files if files is not None else {"golden/catalog.yaml": GOLDEN}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_run(path: Path, rows: dict[str, dict[str, list[str]]]) -> Path:
    """A TREC run file: tag -> query id -> ranked ids (scores n..1)."""
    lines = []
    for tag, queries in rows.items():
        for qid, ranking in queries.items():
            for rank, doc in enumerate(ranking, start=1):
                lines.append(f"{qid} Q0 {doc} {rank} {len(ranking) - rank + 1} {tag}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def load_json(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


RUN_CONFTEST = '''\
"""A retriever that returns recorded TREC runs: one configuration per run tag."""
from pathlib import Path

import pytest

from pytest_retrieval.io.trec import read_run

RUNS = {}
for path in sorted(Path(__file__).parent.glob("runs/*.run")):
    RUNS.update(read_run(path))
MAX_RESULTS = {max_results}


@pytest.fixture(scope="session", params=list(RUNS))
def retriever(request):
    ranked = RUNS[request.param].ids()
    return lambda query: ranked.get(query.id, [])[:MAX_RESULTS]
'''


def write_run_conftest(root: Path, max_results: int | None = None) -> None:
    """A conftest.py whose ``retriever`` replays the runs in ``root/runs/*.run``."""
    text = RUN_CONFTEST.replace("{max_results}", repr(max_results))
    (root / "conftest.py").write_text(text, encoding="utf-8")
