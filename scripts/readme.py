"""Rewrite the README's generated blocks from their source of truth.

    python scripts/readme.py           # rewrite README.md in place
    python scripts/readme.py --check   # exit 1 if README.md is out of date

Blocks: the "Options and ini keys at a glance" table, from the settings schema
(pytest_retrieval/settings.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_retrieval import settings  # noqa: E402

README = ROOT / "README.md"
BLOCKS: dict[str, tuple[str, Callable[[], str]]] = {
    "settings": (
        "<!-- settings table: generated from pytest_retrieval/settings.py -->",
        settings.markdown_table,
    ),
}
END = {"settings": "<!-- end of settings table -->"}


def rewrite(text: str) -> str:
    for name, (start, make) in BLOCKS.items():
        end = END[name]
        if start not in text or end not in text:
            raise SystemExit(f"README.md has no {name} block ({start} ... {end})")
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = f"{before}{start}\n{make()}{end}{after}"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if out of date")
    args = parser.parse_args()
    old = README.read_text(encoding="utf-8")
    new = rewrite(old)
    if args.check:
        if new != old:
            print("README.md is out of date: run python scripts/readme.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    print("README.md rewritten" if new != old else "README.md already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
