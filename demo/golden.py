"""A minimal golden-file reader for the demo's scripts (benchmarks/demo_timing.py).

The plugin has its own, validating loader; this one only applies ``defaults`` and builds
query objects with the attributes a retriever reads, so scripts can run the demo without
pytest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class GoldenQuery:
    id: str
    text: str
    category: str = "uncategorized"
    tags: tuple[str, ...] = ()
    filters: Mapping[str, Any] = field(default_factory=dict)
    relevant: Mapping[str, int] = field(default_factory=dict)
    expect: Mapping[str, float] = field(default_factory=dict)
    forbid: tuple[str, ...] = ()
    xfail: str | None = None


def load_golden(paths: Iterable[str | Path]) -> list[GoldenQuery]:
    import yaml

    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.y*ml")) if p.is_dir() else [p])
    queries: list[GoldenQuery] = []
    for path in files:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
        defaults: Mapping[str, Any] = {}
        if isinstance(data, Mapping):
            defaults = data.get("defaults") or {}
            entries = data.get("queries") or []
        else:
            entries = data or []
        for raw in entries:
            entry = {**defaults, **raw}
            relevant = entry.get("relevant") or {}
            if isinstance(relevant, list):
                relevant = dict.fromkeys(relevant, 1)
            queries.append(
                GoldenQuery(
                    id=str(entry["id"]),
                    text=str(entry["query"]),
                    category=str(entry.get("category", "uncategorized")),
                    tags=tuple(entry.get("tags") or ()),
                    filters=dict(entry.get("filters") or {}),
                    relevant={str(k): int(v) for k, v in relevant.items()},
                    expect=dict(entry.get("expect") or {}),
                    forbid=tuple(entry.get("forbid") or ()),
                    xfail=entry.get("xfail"),
                )
            )
    return queries
