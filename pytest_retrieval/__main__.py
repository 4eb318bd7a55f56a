"""``python -m pytest_retrieval``: the command line (:mod:`pytest_retrieval.cli.main`)."""

from __future__ import annotations

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())
