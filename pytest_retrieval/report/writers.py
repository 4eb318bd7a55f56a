"""Which writer makes which report, by file suffix, and writing them all atomically."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from ..bulk import with_paused_gc
from ..io.atomic import write_atomic
from ..settings import REPORT_SUFFIXES
from .html import html_report
from .json_report import json_report
from .markdown import markdown_report
from .run_report import RunReport

Writer = Callable[[RunReport], str | Iterable[str]]
WRITERS: dict[str, Writer] = {".json": json_report, ".md": markdown_report, ".html": html_report}
assert tuple(WRITERS) == REPORT_SUFFIXES, "a writer for every report suffix the settings accept"


def _copy(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        while piece := handle.read(1 << 20):
            yield piece


class ReportsInterrupted(KeyboardInterrupt):
    """Ctrl-C while the reports were written: the ones written, and a line for each of
    the others (the one being written is left as it was, atomically)."""

    def __init__(self, written: list[Path], failed: list[str]):
        super().__init__("interrupted while the reports were written")
        self.written, self.failed = written, failed


@with_paused_gc
def write_reports(paths: Sequence[Path], report: RunReport) -> tuple[list[Path], list[str]]:
    """Write each requested report atomically, by suffix; a failure does not stop the others.

    Each format is rendered once however many paths ask for it (a second path of a
    format is a copy of the first one written); a writer may give its text in pieces,
    which go to the file as they come. Returns the paths written and one message per
    path that could not be written; :class:`ReportsInterrupted` on Ctrl-C, naming the
    paths left unwritten.
    """
    first: dict[str, Path] = {}
    written: list[Path] = []
    failed: list[str] = []
    for number, path in enumerate(paths):
        suffix = path.suffix.lower()
        try:
            done = first.get(suffix)
            write_atomic(path, _copy(done) if done else WRITERS[suffix](report))
        except KeyboardInterrupt:
            failed += [f"retrieval report NOT written: {p}: interrupted" for p in paths[number:]]
            raise ReportsInterrupted(written, failed) from None
        except OSError as exc:
            failed.append(f"retrieval report NOT written: {path}: {exc.strerror or exc}")
        else:
            written.append(path)
            first.setdefault(suffix, path)
    return written, failed
