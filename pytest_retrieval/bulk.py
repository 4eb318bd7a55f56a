"""Building a large structure without the cyclic garbage collector's repeated passes.

Pure. Reading a baseline, a golden file or a recording of 100,000 queries, or
analysing, gating and writing the records of such a run, allocates millions of
containers and frees almost none; each allocation burst triggers a collection that
walks every object alive, so the collector's share grows with the size of the heap
(reading a 10,000-query baseline took 2x as long with it as without; at 100,000
queries every end-of-session step grew faster than the number of queries). These
structures hold no reference cycles, so pausing the collector while they are built
loses nothing; it runs again after.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic collector for the block (nothing if it is already paused)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def with_paused_gc(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run with the cyclic collector paused (see :func:`paused_gc`)."""

    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused_gc():
            return function(*args, **kwargs)

    return paused


class Settler:
    """Sets what finished work left alive apart from the cyclic collector.

    The records of evaluated queries (and a retriever's data, read once) live to the
    end of a session; each full collection walks every object alive outside the
    frozen generation, so without this the collector's share grows with the number
    of queries done (a third of a 100,000-query replay's item time). Every ``every``
    units of work, :meth:`done` runs a full collection, which now walks only what
    was made since the last time (so cyclic garbage is still freed), then freezes
    what survived. ``gc.unfreeze`` at the session's end returns it to the collector.
    """

    def __init__(self, every: int = 1000):
        self.every = every
        self.pending = 0

    def done(self, units: int) -> None:
        """``units`` more work finished (queries evaluated)."""
        self.pending += units
        if self.pending < self.every or not gc.isenabled():
            return
        self.pending = 0
        gc.collect()
        gc.freeze()


_EXIT_FREEZE_REGISTERED: list[bool] = []


def freeze_at_exit() -> None:
    """At the interpreter's exit, set everything still alive apart from the collector.

    When the process ends, Python runs full collections while it tears its modules
    down; each walks every container still alive (a run's records, its golden set,
    a replayed run, pytest's own items), which took 4.6 s at the end of a run of
    30,000 items here (2.2 s for 30,000 trivial tests) and 6 s after a 100,000-query
    replay. Frozen, they are freed as their last reference goes, without the walks.
    Registered once per process; a pytest run inside another (pytester) leaves it to
    the process's real exit, and its own objects go back to the collector as before.
    """
    if not _EXIT_FREEZE_REGISTERED:
        atexit.register(gc.freeze)
        _EXIT_FREEZE_REGISTERED.append(True)
