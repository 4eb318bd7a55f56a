"""What each golden item evaluates: one query, a category of a file, or a shard.

Pure. :func:`item_groups` splits one file's queries into the items of
``retrieval_items``: ``query`` (an item per query, named by its id), ``category``
(an item per category, in the order the categories first appear) or ``shard:N``
(each category cut into runs of N queries in file order, named
``category-01``, ``category-02``...). The split depends only on the file, so every
xdist worker makes the same items and a crashed worker's items can be rebuilt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .golden import GoldenQuery
from .settings import Items

_UNSAFE = re.compile(r"\s+|::|\[|\]")


def item_name(category: str) -> str:
    """A category as an item name: what cannot stand in a node id becomes '-'."""
    return _UNSAFE.sub("-", category.strip()) or "-"


def item_groups(
    queries: Sequence[GoldenQuery], items: Items
) -> list[tuple[str, tuple[GoldenQuery, ...]]]:
    """(item name, its queries) for one file's queries."""
    if items.mode == "query":
        return [(q.id, (q,)) for q in queries]
    by_category: dict[str, list[GoldenQuery]] = {}
    for query in queries:
        by_category.setdefault(query.category, []).append(query)
    if items.mode == "category":
        return [(item_name(c), tuple(qs)) for c, qs in by_category.items()]
    groups: list[tuple[str, tuple[GoldenQuery, ...]]] = []
    for category, members in by_category.items():
        count = -(-len(members) // items.size)
        width = max(2, len(str(count)))
        for number in range(count):
            shard = tuple(members[number * items.size : (number + 1) * items.size])
            groups.append((f"{item_name(category)}-{number + 1:0{width}d}", shard))
    return groups
