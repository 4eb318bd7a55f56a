"""Golden items that were selected but sent no record: a crashed or lost xdist worker.

Left out, such a query would leave ``n`` and the means, and a regression could pass.
It counts as an error scoring 0 instead, named. The controller under xdist never
collected the query, so it reads its golden file again to know the query.
"""

from __future__ import annotations

from pathlib import Path

from ..golden import GoldenFileError, GoldenQuery
from ..io.golden_file import GOLDEN_SUFFIXES, load_golden_file
from ..model import QueryRecord
from ..scoring import errored
from ..settings import Items, Settings
from ..sharding import item_groups

MESSAGE = (
    "no result came back for this item (its xdist worker crashed or was lost): it counts "
    "as an error scoring 0"
)


PER_QUERY = Items()


def is_golden_nodeid(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0].lower().endswith(GOLDEN_SUFFIXES) and "::" in nodeid


def _configuration(params: str, known: list[str]) -> str:
    """The configuration of an item id's ``[params]``: the retriever's parameter id."""
    if params in known:
        return params
    for name in sorted(known, key=len, reverse=True):  # other fixtures' ids joined by "-"
        if params.startswith(name + "-") or params.endswith("-" + name) or f"-{name}-" in params:
            return name
    return params or "default"


def _items_of(
    path: str, root: Path, settings: Settings, items: Items
) -> dict[str, tuple[GoldenQuery, ...]]:
    """A golden file's items as collection made them: item name -> its queries."""
    try:
        loaded = load_golden_file(root / path, max_grade=settings.max_grade, shown=path)
    except GoldenFileError:
        return {}
    return dict(item_groups(loaded, items))


def missing_records(
    nodeids: list[str], root: Path, settings: Settings, known: list[str], items: Items = PER_QUERY
) -> tuple[list[tuple[GoldenQuery, QueryRecord]], list[str]]:
    """Error records for the items that sent nothing, each with its query; and the ids
    it could not read."""
    files: dict[str, dict[str, tuple[GoldenQuery, ...]]] = {}
    records: list[tuple[GoldenQuery, QueryRecord]] = []
    unread: list[str] = []
    for nodeid in nodeids:
        path, _, rest = nodeid.partition("::")
        name, _, params = rest.partition("[")
        if path not in files:
            files[path] = _items_of(path, root, settings, items)
        queries = files[path].get(name)
        if queries is None:
            unread.append(nodeid)
            continue
        configuration = _configuration(params.rstrip("]"), known)
        position = known.index(configuration) if configuration in known else len(known)
        records += [(q, errored(q, configuration, settings, MESSAGE, position)) for q in queries]
    return records, unread
