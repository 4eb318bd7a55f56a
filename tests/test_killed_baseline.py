"""Baseline updates SIGKILLed at random points: the baseline is always whole, old or new.

Two seeded runs of kills (tests/test_e2e_gate.py kills one update at a chosen point,
the fsync of its temporary file; these kill anywhere):

- real updates: ``pytest --retrieval-eval --retrieval-update-baseline`` in a
  subprocess on a small generated project, each killed after a random delay spread
  over an update's measured duration, alternating between two retrievers so every
  update changes the file; then a plain run gates against whatever is left;
- the writer in a loop: a forked process writing two large baselines in turn over an
  old one, killed at random delays spread over a few writes, so many kills land
  mid-write (between its temporary file's creation and the rename).

After every kill ``golden/baseline.json`` is byte for byte the old file, or a new one
that parses with :func:`~pytest_retrieval.io.baseline_file.read_baseline` and holds
exactly the numbers of the update (never torn, never absent); anything else in the
folder is a killed writer's ``.baseline.json.*.tmp``, which no run reads.
"""

from __future__ import annotations

import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import INNER_RUN_OPTIONS
from pytest_retrieval.baseline import Baseline
from pytest_retrieval.io.atomic import write_atomic
from pytest_retrieval.io.baseline_file import dumps, read_baseline, write_baseline
from pytest_retrieval.model import QueryRecord
from pytest_retrieval.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
LEFTOVER = re.compile(r"\.baseline\.json\.[^/]+\.tmp")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

CONFTEST = """\
import os

import pytest

PLAN = os.environ.get("KILL_PLAN", "a")


@pytest.fixture(params=["bm25", "fused"])
def retriever(request):
    def search(query):
        n = int(query.id[1:])
        docs = [f"d{n}-{i}" for i in range(10)]
        if PLAN == "b" and n % 2:  # a worse ranking for half the queries
            docs.reverse()
        return docs

    return search
"""
QUERIES = 40


def project(folder: Path) -> Path:
    (folder / "golden").mkdir(parents=True)
    (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (folder / "pytest.ini").write_text(
        "[pytest]\nretrieval_golden = golden\nretrieval_metrics = ndcg@10 mrr\n", encoding="utf-8"
    )
    lines = ["queries:"] + [
        f"  - {{id: q{n}, query: query {n}, relevant: {{d{n}-0: 3, d{n}-1: 1}}}}"
        for n in range(QUERIES)
    ]
    (folder / "golden" / "core.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "golden" / "baseline.json"


def start(folder: Path, plan: str, *options: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "KILL_PLAN": plan, "PYTEST_ADDOPTS": INNER_RUN_OPTIONS}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    command += ["-p", "no:randomly", "--retrieval-eval", *options]
    return subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def numbers(path: Path) -> dict[str, dict[str, dict[str, float | None]]]:
    """What a baseline holds, parsed and checked by the plugin's reader (provenance aside)."""
    baseline = read_baseline(path)
    return {
        name: {qid: dict(record.metrics) for qid, record in records.items()}
        for name, records in baseline.configurations.items()
    }


def others(folder: Path) -> list[str]:
    """Files beside the golden file and the baseline: only killed writers' temporary files."""
    found = sorted(p.name for p in folder.iterdir() if p.name not in ("core.yaml", "baseline.json"))
    assert all(LEFTOVER.fullmatch(name) for name in found), found
    return found


def test_real_updates_killed_at_random_points_leave_the_old_or_the_new_baseline(
    tmp_path: Path,
) -> None:
    path = project(tmp_path)
    expected = {}
    began = time.perf_counter()
    for plan in ("b", "a"):  # the two complete baselines; the last written is plan a's
        assert start(tmp_path, plan, "--retrieval-update-baseline").wait(60) == 0
        expected[plan] = numbers(path)
    duration = (time.perf_counter() - began) / 2
    assert expected["a"] != expected["b"]
    rng = random.Random(1010)
    seen: dict[str, int] = {"old": 0, "new": 0}
    current = "a"
    for kill in range(6):
        target = "b" if current == "a" else "a"
        before = path.read_bytes()
        child = start(tmp_path, target, "--retrieval-update-baseline")
        time.sleep(rng.uniform(0.0, duration * 1.25))
        child.send_signal(signal.SIGKILL)
        child.wait(60)
        if path.read_bytes() == before:
            seen["old"] += 1
        else:
            assert numbers(path) == expected[target], f"kill {kill}: a baseline of neither update"
            seen["new"] += 1
            current = target
        others(path.parent)
    assert seen["old"], seen  # most of a run comes before the write: kills fell there
    # the next run gates against what is left: retriever b passes against b's baseline and
    # fails against a's (half its queries rank worse)
    assert start(tmp_path, "b").wait(60) == (0 if current == "b" else 1)


def big_baseline(value: float) -> Baseline:
    """A baseline of 3 configurations x 1,000 queries (about 1.4 MB): a write takes a while."""
    settings = Settings()
    records = {
        name: {
            f"q{n}": QueryRecord(
                id=f"q{n}",
                configuration=name,
                category=f"cat{n % 7}",
                path="golden/core.yaml",
                metrics=dict.fromkeys(settings.metric_names, value),
                retrieved=[f"d{n}-{i}" for i in range(20)],
                grades={f"d{n}-0": 3, f"d{n}-1": 1},
                fingerprint=f"{n:016x}",
            )
            for n in range(1000)
        }
        for name in ("bm25", "dense", "fused")
    }
    return Baseline(settings.as_dict(), records)


def write_in_turn(path: Path, texts: list[str]) -> None:
    """The child: write the versions in turn until killed. ``write_baseline`` is
    ``write_atomic(path, dumps(baseline))``; the texts are serialised beforehand so that
    nearly all of the child's time, and so most kills, fall inside the file operations."""
    try:
        while True:
            for text in texts:
                write_atomic(path, text)
    finally:
        os._exit(1)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_the_baseline_writer_killed_mid_write_leaves_a_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "golden" / "baseline.json"
    versions = [big_baseline(0.25), big_baseline(0.75)]
    texts = [dumps(b) for b in versions]
    write_baseline(path, versions[1])  # the old baseline, written by the writer itself
    assert path.read_text(encoding="utf-8") == texts[1]
    began = time.perf_counter()
    write_atomic(path, texts[1])
    one_write = time.perf_counter() - began
    rng = random.Random(2020)
    mid_write = 0
    for kill in range(40):
        before = set(others(path.parent))
        pid = os.fork()
        if pid == 0:
            write_in_turn(path, texts)
        time.sleep(rng.uniform(0.0, 3 * one_write))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert path.read_text(encoding="utf-8") in texts, f"kill {kill}: a torn baseline"
        if set(others(path.parent)) - before:
            mid_write += 1  # killed between creating its temporary file and the rename
    assert numbers(path) in [
        {n: {q: dict(r.metrics) for q, r in rs.items()} for n, rs in b.configurations.items()}
        for b in versions
    ]
    assert mid_write >= 5, mid_write  # the kills did hit the window they are meant for


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_the_file_then_its_folder_are_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The data reaches the disk before the rename, and the rename itself after it."""
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(tmp_path / "golden" / "baseline.json", "{}\n")
    assert len(synced) == 2
    assert LEFTOVER.fullmatch(Path(synced[0]).name), synced
    assert synced[1] == str(tmp_path / "golden")


def test_a_full_disk_names_the_file_asked_for_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails names no file of its own: the error names the path asked for."""
    import io

    from pytest_retrieval.io import atomic

    class Full(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

    opened = atomic.os.fdopen
    monkeypatch.setattr(atomic.os, "fdopen", lambda fd, *a, **k: (opened(fd).close(), Full())[1])
    target = tmp_path / "report.json"
    target.write_text("before")
    with pytest.raises(OSError) as raised:
        atomic.write_atomic(target, "after")
    assert (raised.value.errno, raised.value.filename) == (28, str(target))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    assert target.read_text() == "before"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_or_a_device_is_never_replaced_by_a_file(tmp_path: Path) -> None:
    """The rename would put a file where ``/dev/null`` (or a pipe) was, for every user of
    it (a CI container runs as root): refused, naming the path; it stays what it was."""
    pipe = tmp_path / "out.json"
    os.mkfifo(pipe)
    link = tmp_path / "link.json"
    link.symlink_to(pipe)
    for path in (pipe, link):
        with pytest.raises(OSError) as raised:
            write_atomic(path, "{}\n")
        assert raised.value.filename == str(path)
        assert "is a device or a pipe, not a file" in str(raised.value)
    assert stat.S_ISFIFO(pipe.stat().st_mode) and link.is_symlink()


def test_a_symbolic_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "baseline.json"
    target.write_text("before")
    link = tmp_path / "baseline.json"
    link.symlink_to(Path("shared") / "baseline.json")
    write_atomic(link, "after")
    assert link.is_symlink() and target.read_text() == "after"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["baseline.json", "shared"]


@pytest.mark.skipif(os.name != "posix", reason="whether a process is there is asked on POSIX")
def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    """A recording run killed with kill -9 left .rec.jsonl.XXXX.tmp (17 MB), and later
    runs left it there; one of a process still running (another run writing) stays."""
    from pytest_retrieval.io.atomic import write_atomic

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    killed = tmp_path / f".out.json.{gone.pid}.k1ll3d00.tmp"
    running = tmp_path / ".out.json.1.0th3r000.tmp"  # init: there, and not ours
    other = tmp_path / f".other.json.{gone.pid}.k1ll3d00.tmp"  # another file's
    for path in (killed, running, other):
        path.write_text("partial")
    write_atomic(tmp_path / "out.json", "{}\n")
    assert (tmp_path / "out.json").read_text() == "{}\n"
    assert not killed.exists()
    assert running.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".other.json." + f"{gone.pid}.k1ll3d00.tmp", ".out.json.1.0th3r000.tmp", "out.json"]
    )
