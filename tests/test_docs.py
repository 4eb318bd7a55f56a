"""The README and docs/: every relative link reaches a file, and an anchor a heading."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings (outside code blocks)."""
    found: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]  # not http: etc.


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_reaches_its_file_and_heading(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        found = (page.parent / path).resolve() if path else page
        if not found.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(found):
            broken.append(f"{target}: no such heading in {found.name}")
    assert broken == [], broken


def test_every_page_of_docs_is_listed_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    unlisted = [p.name for p in PAGES[1:] if f"(docs/{p.name})" not in readme]
    assert unlisted == []


def _readme_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_tool", ROOT / "scripts" / "readme.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_default_the_pages_restate_is_the_schema_s() -> None:
    """A default said in prose (`retrieval_seed`, default 1) is checked against
    pytest_retrieval/settings.py by ``scripts/readme.py --check``, as the table is."""
    tool = _readme_tool()
    stale = [line for page in PAGES for line in tool.stale_defaults(page.read_text(), page.name)]
    assert stale == []
    said = sum(len(tool._STATED.findall(re.sub(r"\s+", " ", p.read_text()))) for p in PAGES)
    assert said >= 10  # the check reads the pages' sentences, not nothing


def test_a_default_restated_wrongly_is_named() -> None:
    text = (
        "The seed (`retrieval_seed`, default 7), `--retrieval-diff N` per row, default 5;\n"
        "`retrieval_gate_scope = all`, the default; `retrieval_gate_metrics`, default all)"
    )
    assert _readme_tool().stale_defaults(text, "x.md") == [
        "x.md: retrieval_seed's default is '1', the page says '7'",
        "x.md: retrieval_gate_scope's default is 'category', the page says 'all'",
        "x.md: retrieval_gate_metrics's default is 'every metric', the page says 'all'",
    ]
