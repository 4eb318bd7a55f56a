"""The cyclic collector paused while large acyclic structures are built, and only then."""

from __future__ import annotations

import gc

import pytest

from pytest_retrieval.bulk import paused_gc, with_paused_gc


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
