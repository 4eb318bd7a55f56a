"""SIGTERM (a CI runner cancelling a job, ``kill``, a container stopping) ends an
evaluation run as Ctrl-C does, so the run's own clean-up happens: the recording's
temporary file, the replay shared with xdist's workers, reports marked incomplete.

Python's default for SIGTERM ends the process at once, leaving all of that behind. The
handler is installed for the run, only in the controller's main thread (a signal handler
can be set nowhere else, and workers write none of those files), only over the default
(a handler someone else installed stays theirs), and the default is put back when the
run ends. A second SIGTERM while the run stops is ignored.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

import pytest


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C's KeyboardInterrupt would be."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    # once: a SIGTERM sent again (to every process of the group, by each of several
    # workers) must not break off the clean-up the first one started
    signal.signal(signal.SIGTERM, _stopping)
    raise Terminated("SIGTERM received: the run stops as on Ctrl-C")


def _stopping(signum: int, frame: FrameType | None) -> None:
    """SIGTERM again while the run stops: it is stopping already (SIGKILL still ends it)."""


def end_on_sigterm(config: pytest.Config) -> None:
    """Turn SIGTERM into :class:`Terminated` until ``config`` is unconfigured."""
    if hasattr(config, "workerinput") or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return
    signal.signal(signal.SIGTERM, _raise_terminated)

    def restore() -> None:
        if signal.getsignal(signal.SIGTERM) in (_raise_terminated, _stopping):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)

    config.add_cleanup(restore)
