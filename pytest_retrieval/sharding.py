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
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .golden import GoldenQuery
from .quoting import quoted
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
    names = _item_names(by_category)
    if items.mode == "category":
        return [(names[c], tuple(qs)) for c, qs in by_category.items()]
    groups: list[tuple[str, tuple[GoldenQuery, ...]]] = []
    for category, members in by_category.items():
        count = -(-len(members) // items.size)
        width = max(2, len(str(count)))
        for number in range(count):
            shard = tuple(members[number * items.size : (number + 1) * items.size])
            groups.append((f"{names[category]}-{number + 1:0{width}d}", shard))
    return groups


def _item_names(categories: Collection[str]) -> dict[str, str]:
    """Each category's item name, unique in its file: a category written as an item
    name (``a-b``) is its own name; one that is not (``a b``, ``a::b``: ``a-b`` too)
    gets the next free ``-2``, ``-3`` (one item would otherwise replace the other,
    its queries never evaluated). A shard's name adds ``-NN`` to it, so shards of two
    categories never share one."""
    names: dict[str, str] = {}
    taken = {c for c in categories if item_name(c) == c}
    for category in sorted(categories, key=lambda c: item_name(c) != c):  # stable
        if category in taken:
            names[category] = category
            continue
        name = base = item_name(category)
        number = 1
        while name in taken:
            number += 1
            name = f"{base}-{number}"
        names[category] = name
        taken.add(name)
    return names


_KEYWORD_WORDS = re.compile(r"[^\s()]+")  # the words of a -k expression (idents, operators)
_OPERATORS = {"and", "or", "not"}
_SHOWN_IDS = 3


@dataclass(frozen=True)
class KeywordHit:
    """A ``-k`` word that matches query ids (as pytest's ``-k`` matches a name: a
    substring, case-insensitively) and no name an item answers to."""

    word: str
    ids: tuple[str, ...]  # the first few query ids it matches, in the golden set's order
    count: int  # how many it matches

    def text(self) -> str:
        if self.count == 1 and self.ids[0] == self.word:
            return f"names the query id '{self.word}'"
        shown = ", ".join(f"'{qid}'" for qid in self.ids)
        more = ", ..." if self.count > len(self.ids) else ""
        if self.count == 1:
            return f"'{self.word}' matches the query id {shown}"
        return f"'{self.word}' matches {self.count} query ids ({shown}{more})"


def query_ids_in_keyword(
    expression: str, query_ids: Collection[str], names: Collection[str]
) -> list[KeywordHit]:
    """The words of a ``-k`` expression that match query ids, as ``-k`` matches (a
    substring, case-insensitively: ``Q0005``, ``q000``), and no name an item answers to
    (``names``: categories, configurations, item names and their files' and folders'):
    coarse items cannot be selected by them."""
    lowered = [name.lower() for name in names]
    found: list[KeywordHit] = []
    for word in dict.fromkeys(_KEYWORD_WORDS.findall(expression)):
        sub = word.lower()
        if sub in _OPERATORS or any(sub in name for name in lowered):
            continue
        matched = [qid for qid in query_ids if sub in qid.lower()]
        if matched:
            found.append(KeywordHit(word, tuple(matched[:_SHOWN_IDS]), len(matched)))
    return found


def unreadable_keyword_note(expression: str) -> str:
    """Why pytest refuses a ``-k`` it cannot read (``-k "long tail"``), and the fix: a
    category's spaces are written ``-`` in its keyword, so ``-k long-tail``."""
    words = _KEYWORD_WORDS.findall(expression)
    spaced = len(words) > 1 and not any(w.lower() in _OPERATORS for w in words)
    example = "-".join(words) if spaced and "(" not in expression else "long-tail"
    return (
        f"-k {quoted(expression)} is not an expression pytest can read: -k takes names "
        "joined by and, or, not and parentheses, with no space inside a name; a category "
        f"with spaces is selected with '-' in their place:\n    -k {example}"
    )


def deselect_note(items: Items, pattern: str, qid: str) -> str:
    """Why ``--deselect`` of a query's node id leaves it in when items are coarse."""
    holds = "a category" if items.mode == "category" else "a shard of a category"
    return (
        f"--deselect {pattern} names the query id '{qid}', but with retrieval_items = {items} "
        f"an item holds {holds} of a file, so it deselects nothing and the query runs; to "
        f"leave one query out: --retrieval-items=query --deselect {pattern}"
    )


def keyword_note(items: Items, found: Sequence[KeywordHit]) -> str:
    """Why ``-k`` with query ids selects no query when items are coarse, and what does."""
    holds = "a category" if items.mode == "category" else "a shard of a category"
    return (
        f"-k {'; '.join(hit.text() for hit in found)}, but with "
        f"retrieval_items = {items} an item holds {holds} of a file, and -k selects items by "
        "category, configuration or item name (paraphrase-01), not by query id; to run one "
        f"query: --retrieval-items=query -k {found[0].word}"
    )
