"""What marks a file as one of the plugin's own reports, and the check for it.

A run writes a report only over an empty path or a report of its own: a README.md,
a package.json or a page of the project's given to ``--retrieval-report`` by mistake
is refused before the run. Each report carries its mark near its start:

* JSON: its first member, ``"format": "pytest-retrieval-report"``;
* Markdown: a first line ``<!-- pytest-retrieval report -->`` (an HTML comment, which
  GitHub does not show: neither in a comment nor in a job summary);
* HTML: ``<meta name="generator" content="pytest-retrieval VERSION">`` in its head.

Pure apart from reading the file's first bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

from .._version import __version__
from ..io.common import BOM
from ..io.file_kinds import REPORT_KIND, kind_of_head

MARKDOWN_MARK = "<!-- pytest-retrieval report -->"
HTML_GENERATOR = f"pytest-retrieval {__version__}"  # the content of the generator meta tag
_HEAD = 4096  # bytes read: every mark sits in the first few hundred
_HTML = re.compile(rb'<meta\s+name="generator"\s+content="pytest-retrieval[ "]')
NOT_A_REPORT = (
    "the file exists and is not a pytest-retrieval report (a README.md, a package.json, a "
    "page of your own?): the report would overwrite it; write the report to a new path, or "
    "delete the file first (a report of an older pytest-retrieval carries no mark the "
    "plugin knows it by: delete it once)"
)


def is_own_report(path: Path) -> bool:
    """Whether the file starts as a JSON, Markdown or HTML report of the plugin does."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD).removeprefix(BOM)
    except OSError:
        return False
    return bool(
        kind_of_head(head) == REPORT_KIND
        or head.lstrip().startswith(MARKDOWN_MARK.encode())
        or (head.lstrip()[:15].lower() == b"<!doctype html>" and _HTML.search(head))
    )


__all__ = ["HTML_GENERATOR", "MARKDOWN_MARK", "NOT_A_REPORT", "is_own_report"]
