"""Calling a retriever: with a deadline (``retrieval_timeout``), and repeated to check that
its rankings are reproducible (``retrieval_repeat``).

Pure: no pytest. A synchronous call with a deadline runs in a daemon thread; past the
deadline the run goes on without it. Python cannot stop a thread, so the abandoned
call keeps running in the background until it returns (its result is discarded);
one that never returns holds its thread until the process exits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


class RetrieverTimeout(Exception):
    """A retriever call that did not return within ``retrieval_timeout``."""

    def __init__(self, timeout: float, what: str = "call"):
        self.timeout = timeout
        super().__init__(
            f"the retriever did not return within {timeout:g} s (retrieval_timeout): the "
            f"{what} was abandoned (it runs on in a background thread; its result is "
            "discarded) and the query scores 0"
        )


def call_with_timeout(call: Callable[[], T], timeout: float | None) -> T:
    """``call()``, or :class:`RetrieverTimeout` once ``timeout`` seconds have passed.

    The call's own exception is raised here with its traceback.
    """
    if timeout is None:
        return call()
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=work, name="pytest-retrieval call", daemon=True).start()
    if not done.wait(timeout):
        raise RetrieverTimeout(timeout)
    ok, value = outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


@dataclass(frozen=True)
class Repeats:
    """How the rankings of one query's repeated calls compare with the first."""

    overlap: float  # the smallest share of the first run's top k found in another run's
    same: bool  # every run returned the same ids in the same order

    @classmethod
    def of(cls, rankings: Sequence[Sequence[str]], k: int | None) -> Repeats:
        first = list(rankings[0][:k])
        overlap = 1.0
        for other in rankings[1:]:
            top = set(other[:k])
            overlap = min(overlap, sum(1 for d in first if d in top) / len(first) if first else 1.0)
        same = all(list(other[:k]) == first for other in rankings[1:])
        return cls(0.0 if not first and not same else overlap, same)
