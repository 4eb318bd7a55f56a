"""Building a large structure without the cyclic garbage collector's repeated passes.

Pure. Reading a baseline, a golden file or a recording of 100,000 queries allocates
millions of containers and frees almost none; each allocation burst triggers a
collection that walks every object alive, so the collector's share grows with the
size of the heap (reading a 10,000-query baseline took 2x as long with it as without,
the first sign of a quadratic cost). These structures hold no reference cycles, so
pausing the collector while they are built loses nothing; it runs again after.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


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
