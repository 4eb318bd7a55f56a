"""What crosses between xdist's processes: records as JSON text, the replay as read.

A worker puts its records on a report as one JSON text (``model.rows_text``); the
controller reads them back (``rows_of`` then ``QueryRecord.from_row``) to the same
records, every float to the last bit. The controller hands its workers the replay it
read (``replay.write_shared``); a worker that cannot load it reads the files itself
(``read_shared`` is None). A large replay file gets a line on a terminal while it is
read, and none elsewhere.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_retrieval.model import OUTCOMES, QueryRecord, RecordError, rows_of, rows_text
from pytest_retrieval.plugin import replaying
from pytest_retrieval.replay import Replay, load_replay, read_shared, write_shared

ids = st.text(min_size=1, max_size=8)
values = st.one_of(st.none(), st.floats(0, 1), st.sampled_from([0.1 + 0.2, 1 / 3, 5e-324]))
records = st.builds(
    QueryRecord,
    id=ids,
    configuration=ids,
    category=ids,
    tags=st.lists(ids, max_size=2),
    position=st.integers(0, 5),
    outcome=st.sampled_from(OUTCOMES),
    metrics=st.dictionaries(st.sampled_from(["ndcg@10", "mrr", "map"]), values),
    retrieved=st.lists(ids, max_size=5),
    grades=st.dictionaries(ids, st.integers(0, 3), max_size=3),
    error=st.one_of(st.none(), st.text(max_size=20)),
    latency_ms=st.one_of(st.none(), st.floats(0, 1e6)),
    latency_shared=st.booleans(),
    repeat_overlap=st.one_of(st.none(), st.floats(0, 1)),
    repeat_error=st.one_of(st.none(), st.text(max_size=20)),
    near_misses=st.lists(st.tuples(ids, ids), max_size=2).map(tuple),
)


@given(st.lists(records, max_size=4))
def test_records_cross_as_json_text_unchanged(sent: list[QueryRecord]) -> None:
    text = rows_text(sent)
    assert isinstance(text, str)
    received = [QueryRecord.from_row(row) for row in rows_of(text)]  # type: ignore[arg-type]
    assert received == sent
    for a, b in zip(received, sent, strict=True):  # the same bits, not merely close
        for name, value in b.metrics.items():
            got = a.metrics[name]
            assert (got is None) == (value is None)
            assert got is None or value is None or got.hex() == value.hex()


@pytest.mark.parametrize("text", ["not json", '{"a": 1}', "[1,"])
def test_records_that_are_not_a_json_list_are_refused(text: str) -> None:
    with pytest.raises(RecordError, match="the records are not"):
        rows_of(text)


def test_a_shared_replay_loads_to_what_was_read(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\nq2 Q0 d3 1 1.0 dense\n")
    replay = load_replay([run], ["run.trec"])
    write_shared(replay, tmp_path / "replay.pickle")
    assert read_shared(tmp_path / "replay.pickle") == replay


@pytest.mark.parametrize("content", [None, b"", b"garbage", pickle.dumps({"not": "a replay"})])
def test_a_shared_replay_that_cannot_be_had_is_none(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "replay.pickle"
    if content is not None:
        path.write_bytes(content)
    assert read_shared(path) is None


class _Config:
    """What the notice reads of pytest's config: the verbosity, and whether it is a worker."""

    def __init__(self, verbosity: int) -> None:
        self.verbosity = verbosity

    def get_verbosity(self) -> int:
        return self.verbosity


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("verbosity", "tty", "shown"), [(0, True, True), (-1, True, False), (0, False, False)]
)
def test_a_large_replay_file_says_it_is_being_read_only_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verbosity: int, tty: bool, shown: bool
) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.5 bm25\n")
    out = _Terminal() if tty else io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr(replaying, "NOTICE_BYTES", 1)
    config: Any = _Config(verbosity)
    replay = replaying._read(config, [run], ["run.trec"])
    assert isinstance(replay, Replay)
    if shown:
        assert out.getvalue().startswith("retrieval replay: reading run.trec (0 MiB) ... read in ")
        assert out.getvalue().endswith(" s\n")
    else:
        assert out.getvalue() == ""


def test_an_unreadable_replay_ends_its_line_then_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 high bm25\n")
    out = _Terminal()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr(replaying, "NOTICE_BYTES", 1)
    config: Any = _Config(0)
    with pytest.raises(pytest.UsageError, match=r"run\.trec:1"):
        replaying._read(config, [run], ["run.trec"])
    assert out.getvalue().endswith(" not replayable\n")


class _Controller:
    """What handing the replay over reads of pytest's config: its stash and cleanups."""

    def __init__(self) -> None:
        self.stash = pytest.Stash()
        self.cleanups: list[Any] = []

    def add_cleanup(self, function: Any) -> None:
        self.cleanups.append(function)


def test_the_replay_is_written_once_for_every_worker_and_removed_at_the_end(
    tmp_path: Path,
) -> None:
    from pytest_retrieval.plugin.keys import REPLAY_KEY

    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.5 bm25\n")
    config: Any = _Controller()
    config.stash[REPLAY_KEY] = load_replay([run], ["run.trec"])
    first: dict[str, object] = {}
    second: dict[str, object] = {}
    replaying.share_with_worker(config, first)
    replaying.share_with_worker(config, second)
    assert first == second and len(config.cleanups) == 1  # one copy for all the workers
    shared = Path(str(first[replaying.SHARED_INPUT]))
    assert read_shared(shared) == config.stash[REPLAY_KEY]
    config.cleanups[0]()
    assert not shared.parent.exists()


@pytest.mark.parametrize("fails", ["folder", "file"])
def test_no_copy_to_hand_over_means_no_worker_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    """No temporary folder, or no room for the file: tried once, then each worker reads
    the files itself (nothing in its input), and nothing raises in xdist's node setup."""
    from pytest_retrieval.plugin.keys import REPLAY_KEY

    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.5 bm25\n")
    tries: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        tries.append(fails)
        raise OSError(28, "No space left on device")

    if fails == "folder":
        monkeypatch.setattr("tempfile.mkdtemp", refuse)
    else:
        monkeypatch.setattr(replaying, "write_shared", refuse)
    config: Any = _Controller()
    config.stash[REPLAY_KEY] = load_replay([run], ["run.trec"])
    for _ in range(2):
        told: dict[str, object] = {}
        replaying.share_with_worker(config, told)
        assert told == {}
    assert tries == [fails]
