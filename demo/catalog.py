"""The demo catalog: loading, fingerprinting and the hard filters every ranker shares."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CATALOG_PATH = Path(__file__).resolve().parent / "catalog.yaml"

NETWORKS = frozenset({"base", "solana", "ethereum", "polygon"})
ASSETS = frozenset({"USDC", "USDT", "ETH", "SOL"})
FILTER_KEYS = ("network", "asset", "max_price")


@dataclass(frozen=True)
class Listing:
    """One paid API service as the marketplace lists it."""

    id: str
    name: str
    description: str
    tags: tuple[str, ...]
    network: str
    asset: str
    price: float

    def text(self) -> str:
        """The listing as one passage (what the dense model reads)."""
        return f"{self.name}. {self.description} Tags: {', '.join(self.tags)}."


def load_catalog(path: str | Path | None = None) -> list[Listing]:
    """Read and validate the catalog YAML (a mapping with `listings:`)."""
    import yaml

    path = Path(path) if path is not None else CATALOG_PATH
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    raw = data["listings"] if isinstance(data, Mapping) else data
    listings: list[Listing] = []
    seen: set[str] = set()
    for entry in raw:
        listing = Listing(
            id=str(entry["id"]),
            name=str(entry["name"]),
            description=" ".join(str(entry["description"]).split()),
            tags=tuple(str(t) for t in entry["tags"]),
            network=str(entry["network"]),
            asset=str(entry["asset"]),
            price=float(entry["price"]),
        )
        if listing.id in seen:
            raise ValueError(f"{path}: duplicate listing id {listing.id!r}")
        if listing.network not in NETWORKS:
            raise ValueError(f"{path}: {listing.id}: unknown network {listing.network!r}")
        if listing.asset not in ASSETS:
            raise ValueError(f"{path}: {listing.id}: unknown asset {listing.asset!r}")
        if listing.price < 0:
            raise ValueError(f"{path}: {listing.id}: negative price")
        seen.add(listing.id)
        listings.append(listing)
    return listings


def catalog_fingerprint(listings: Sequence[Listing]) -> str:
    """A stable hash of the catalog content (ids, text, settlement terms)."""
    payload = [
        [x.id, x.name, x.description, list(x.tags), x.network, x.asset, x.price] for x in listings
    ]
    blob = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _as_set(value: Any, *, upper: bool) -> set[str]:
    values: Iterable[Any] = [value] if isinstance(value, str) else value
    return {str(v).upper() if upper else str(v).lower() for v in values}


def filter_mask(listings: Sequence[Listing], filters: Mapping[str, Any] | None) -> list[bool]:
    """Which listings pass the query's hard filters.

    Filters are hard constraints, exactly as a search API enforces them: a listing that
    fails one is never returned, whatever any ranker thinks of its text. Supported keys:

    - ``network``: a network name or a list of them (case-insensitive);
    - ``asset``: an asset symbol or a list of them (case-insensitive);
    - ``max_price``: the highest acceptable USD price per call (inclusive).

    An unknown key raises ``ValueError`` instead of being ignored: a filter the API does
    not understand must not silently widen the result set.
    """
    if not filters:
        return [True] * len(listings)
    unknown = sorted(set(filters) - set(FILTER_KEYS))
    if unknown:
        raise ValueError(f"unsupported filter key(s) {unknown}; supported: {list(FILTER_KEYS)}")
    networks = _as_set(filters["network"], upper=False) if "network" in filters else None
    assets = _as_set(filters["asset"], upper=True) if "asset" in filters else None
    max_price = float(filters["max_price"]) if "max_price" in filters else None
    mask = []
    for x in listings:
        ok = (
            (networks is None or x.network.lower() in networks)
            and (assets is None or x.asset.upper() in assets)
            and (max_price is None or x.price <= max_price + 1e-12)
        )
        mask.append(ok)
    return mask


def query_filters(query: Any) -> Mapping[str, Any] | None:
    """The filters of a golden query object (None when it has none)."""
    filters = getattr(query, "filters", None)
    return filters or None


def query_text(query: Any) -> str:
    """The text of a golden query object (or a plain string, for scripts)."""
    return query if isinstance(query, str) else str(query.text)
