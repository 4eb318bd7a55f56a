"""``--retrieval-replay`` in the pytest process: the files read once per run.

The controller (or the only process) reads the recording or the TREC runs at
``pytest_configure``, so a bad file stops the run with one message before anything
starts. A large file takes a while (a 100,000 x 100 TREC run, ten million lines,
about 17 s): on a terminal, one line says what is being read, and when it is done.

Under xdist every worker needs the same answers. Rather than each worker reading
the files again (one more full read before any item runs), the controller hands
its workers what it read: pickled once into a folder of its own when xdist sets up
the first worker (``pytest_configure_node``), named in the workers' ``workerinput``,
removed at the end of the run. A worker that cannot open it (on another machine)
reads the files itself.
"""

from __future__ import annotations

import gc
import pickle
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path

import pytest

from ..io.common import exists
from ..replay import Replay, ReplayError, load_replay, read_shared, write_shared
from ..settings import RunSettings
from .keys import REPLAY_KEY, RETRIEVERS_KEY
from .usage import usage_error

SHARED_INPUT = "retrieval_replay_shared"  # workerinput: the pickled replay's path
_SHARED_KEY = pytest.StashKey["Path | None"]()  # the pickled replay (None: not written)
NOTICE_BYTES = 32 * 1024 * 1024  # files this large get a line while they are read


def load_for_run(config: pytest.Config, run: RunSettings) -> Replay | None:
    """``--retrieval-replay``: the recorded answers, read once per run."""
    given = run.run.calls.replay
    if not given:
        return None
    workerinput: Mapping[str, object] = getattr(config, "workerinput", {})
    shared = workerinput.get(SHARED_INPUT)
    replay = read_shared(Path(shared)) if isinstance(shared, str) else None
    if replay is None:
        replay = _read(config, [config.invocation_params.dir / p for p in given], list(given))
    config.stash[REPLAY_KEY] = replay
    gc.freeze()  # its answers, read once, live to the end: see pytest_collection_finish
    config.stash[RETRIEVERS_KEY] = dict(replay.retrievers)  # as the recorded run described them
    return replay


def _read(config: pytest.Config, paths: list[Path], shown: list[str]) -> Replay:
    size = sum(p.stat().st_size for p in paths if exists(p, "file"))
    say = _notice(config) if size >= NOTICE_BYTES else None
    if say is not None:
        say(f"retrieval replay: reading {', '.join(shown)} ({size / 2**20:,.0f} MiB) ...")
    start = time.perf_counter()
    try:
        replay = load_replay(paths, shown)
    except ReplayError as exc:
        if say is not None:
            say(" not replayable\n")
        raise usage_error(str(exc)) from None
    if say is not None:
        say(f" read in {time.perf_counter() - start:.1f} s\n")
    return replay


def _notice(config: pytest.Config) -> Callable[[str], None] | None:
    """How to write a line to the terminal before pytest's header, or None: only on a
    terminal, never in a worker, never under ``-q``. (At ``pytest_configure`` pytest's
    output capturing is suspended: ``sys.stdout`` is the terminal.)"""
    if hasattr(config, "workerinput") or config.get_verbosity() < 0:
        return None
    stream = sys.stdout
    if not stream.isatty():
        return None

    def say(text: str) -> None:
        stream.write(text)
        stream.flush()

    return say


def share_with_worker(config: pytest.Config, workerinput: MutableMapping[str, object]) -> None:
    """Name the pickled replay in a worker's input (written at the first worker; if it
    cannot be written, no worker is told, and each reads the files)."""
    replay = config.stash.get(REPLAY_KEY, None)
    if replay is None:
        return
    if _SHARED_KEY not in config.stash:
        config.stash[_SHARED_KEY] = _written(config, replay)
    path = config.stash[_SHARED_KEY]
    if path is not None:
        workerinput[SHARED_INPUT] = str(path)


def _written(config: pytest.Config, replay: Replay) -> Path | None:
    try:
        folder = Path(tempfile.mkdtemp(prefix="pytest-retrieval-replay-"))
    except OSError:  # no temporary folder to be had
        return None
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    path = folder / "replay.pickle"
    try:
        write_shared(replay, path)
    except (OSError, pickle.PicklingError, TypeError, RecursionError):  # no room, or an odd value
        return None
    return path
