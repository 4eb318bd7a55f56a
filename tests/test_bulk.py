"""The cyclic collector paused while large acyclic structures are built, and only then."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from conftest import e2e_run
from pytest_retrieval.bulk import Settler, paused_gc, with_paused_gc


def test_paused_inside_enabled_after_even_on_an_exception() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():  # nested: still paused, and not re-enabled by the inner block
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), paused_gc():
        raise KeyError("x")
    assert gc.isenabled()


def test_a_collector_paused_by_someone_else_stays_paused() -> None:
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_decorator_keeps_name_result_and_exceptions() -> None:
    @with_paused_gc
    def build(n: int) -> list[int]:
        """Doc."""
        assert not gc.isenabled()
        if n < 0:
            raise ValueError("negative")
        return list(range(n))

    assert build(3) == [0, 1, 2] and build.__name__ == "build" and build.__doc__ == "Doc."
    with pytest.raises(ValueError, match="negative"):
        build(-1)
    assert gc.isenabled()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_settler_frees_cyclic_garbage_then_freezes_what_lives() -> None:
    """Every ``every`` units: what died in cycles is freed, what lives is frozen (not
    walked by later collections), and nothing happens in between."""
    settler = Settler(every=10)
    gc.unfreeze()
    gc.disable()  # no automatic collection while the objects are made
    try:
        alive = [_Cycle() for _ in range(100)]
        dead = weakref.ref(_Cycle())  # a cycle nothing refers to: only a collection frees it
        frozen = gc.get_freeze_count()
        gc.enable()
        settler.done(9)
        assert gc.get_freeze_count() == frozen and dead() is not None  # not yet
        settler.done(1)
        assert dead() is None
        assert gc.get_freeze_count() >= frozen + len(alive)
    finally:
        gc.enable()
        gc.unfreeze()


FREEZE_AT_EXIT = """
import atexit, gc
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))  # runs last
from pytest_retrieval.bulk import freeze_at_exit
before = atexit._ncallbacks()
freeze_at_exit()
freeze_at_exit()
print("registered:", atexit._ncallbacks() - before)
print("frozen now:", gc.get_freeze_count() > 0)
"""


def test_everything_alive_is_frozen_at_the_interpreters_exit_and_only_then() -> None:
    """Registered once per process, it freezes at exit, not before (a pytest run inside
    another keeps its objects collectable)."""
    done = subprocess.run(
        [sys.executable, "-c", FREEZE_AT_EXIT], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == [
        "registered: 1",
        "frozen now: False",
        "frozen at exit: True",
    ]


def test_an_evaluation_unfreezes_only_after_pytests_own_last_collection(
    pytester: pytest.Pytester, e2e_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest's cleanup collects garbage once more to report unraisable exceptions; the
    objects an evaluation froze are still frozen then (that collection would walk every
    one of them), and back with the collector once the run is over."""
    from _pytest import unraisableexception

    seen: list[int] = []
    harder = unraisableexception.gc_collect_harder

    def counting(iterations: int) -> None:
        seen.append(gc.get_freeze_count())
        harder(iterations)

    monkeypatch.setattr(unraisableexception, "gc_collect_harder", counting)
    gc.unfreeze()
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert seen and all(seen), seen  # pytest 9.2: its unconfigure hook, then its cleanup
    assert gc.get_freeze_count() == 0
