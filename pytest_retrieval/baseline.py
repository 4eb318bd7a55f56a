"""The baseline file: build, merge, serialise and read it. Pure apart from the atomic write.

A baseline holds, per configuration, the ``all`` and per-category aggregates and
every query's metric values, top-ranked ids (with their grades) and a fingerprint
of its text and judgments; the settings that make numbers comparable; and
provenance. Keys are sorted and each query sits on one line, so a baseline change
reads well in a pull request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .aggregate import Results, summarize
from .io.atomic import write_atomic
from .scoring import QueryRecord
from .settings import Settings

FORMAT = "pytest-retrieval-baseline"
VERSION = 1


class BaselineError(Exception):
    """A baseline that is missing, unreadable, corrupt or of another format."""


class BaselineMissing(BaselineError):
    """No baseline file at the path."""


@dataclass
class BaselineQuery:
    """One query of one configuration, as the baseline remembers it."""

    id: str
    category: str
    path: str
    fingerprint: str
    metrics: dict[str, float | None]
    retrieved: list[str]
    grades: dict[str, int]
    outcome: str = "passed"
    tags: list[str] = field(default_factory=list)

    @classmethod
    def from_record(cls, record: QueryRecord) -> BaselineQuery:
        return cls(
            id=record.id,
            category=record.category,
            path=record.path,
            fingerprint=record.fingerprint,
            metrics=dict(record.metrics),
            retrieved=list(record.retrieved),
            grades=dict(record.grades),
            outcome=record.outcome,
            tags=list(record.tags),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "fingerprint": self.fingerprint,
            "grades": dict(sorted(self.grades.items())),
            "metrics": self.metrics,
            "outcome": self.outcome,
            "path": self.path,
            "retrieved": self.retrieved,
            "tags": self.tags,
        }

    def as_record(self, configuration: str) -> QueryRecord:
        return QueryRecord(
            id=self.id,
            configuration=configuration,
            category=self.category,
            tags=list(self.tags),
            path=self.path,
            outcome=self.outcome,
            metrics=dict(self.metrics),
            retrieved=list(self.retrieved),
            grades=dict(self.grades),
            fingerprint=self.fingerprint,
        )


@dataclass
class Baseline:
    """A parsed baseline file."""

    settings: dict[str, Any]
    configurations: dict[str, dict[str, BaselineQuery]]
    provenance: dict[str, Any] = field(default_factory=dict)

    def summary(self, configuration: str, metrics: list[str]) -> dict[str, Any]:
        records = [q.as_record(configuration) for q in self.configurations[configuration].values()]
        summary = summarize(records, metrics)
        return {
            "all": summary.all.as_dict(),
            "categories": {c: row.as_dict() for c, row in sorted(summary.categories.items())},
        }


# --------------------------------------------------------------------------- reading


def _query_from(qid: str, data: Any) -> BaselineQuery:
    if not isinstance(data, dict):
        raise BaselineError(f"query '{qid}' is not a mapping")
    try:
        metrics = data["metrics"]
        if not isinstance(metrics, dict) or not all(
            v is None or isinstance(v, (int, float)) for v in metrics.values()
        ):
            raise BaselineError(f"query '{qid}': 'metrics' must map names to numbers")
        return BaselineQuery(
            id=qid,
            category=str(data["category"]),
            path=str(data.get("path", "")),
            fingerprint=str(data["fingerprint"]),
            metrics={str(k): (None if v is None else float(v)) for k, v in metrics.items()},
            retrieved=[str(x) for x in data.get("retrieved", [])],
            grades={str(k): int(v) for k, v in data.get("grades", {}).items()},
            outcome=str(data.get("outcome", "passed")),
            tags=[str(t) for t in data.get("tags", [])],
        )
    except KeyError as exc:
        raise BaselineError(f"query '{qid}' has no {exc.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise BaselineError(f"query '{qid}': {exc}") from None


def parse_baseline(text: str, shown: str = "baseline") -> Baseline:
    """Parse a baseline's text; :class:`BaselineError` says what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{shown} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BaselineError(f'{shown} is not a pytest-retrieval baseline (no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise BaselineError(
            f"{shown} has baseline version {data.get('version')!r}; this plugin reads version "
            f"{VERSION}"
        )
    settings = data.get("settings")
    configurations = data.get("configurations")
    if not isinstance(settings, dict) or not isinstance(configurations, dict):
        raise BaselineError(f"{shown} lacks 'settings' or 'configurations'")
    parsed: dict[str, dict[str, BaselineQuery]] = {}
    for name, block in configurations.items():
        queries = block.get("queries") if isinstance(block, dict) else None
        if not isinstance(queries, dict):
            raise BaselineError(f"{shown}: configuration '{name}' has no 'queries' mapping")
        try:
            parsed[str(name)] = {str(q): _query_from(str(q), d) for q, d in queries.items()}
        except BaselineError as exc:
            raise BaselineError(f"{shown}: configuration '{name}': {exc}") from None
    provenance = data.get("provenance")
    return Baseline(
        settings=settings,
        configurations=parsed,
        provenance=provenance if isinstance(provenance, dict) else {},
    )


def read_baseline(path: Path, shown: str | None = None) -> Baseline:
    """Read and parse a baseline file; :class:`BaselineMissing` when there is none."""
    shown = shown or str(path)
    if not path.exists():
        raise BaselineMissing(f"no baseline at {shown}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"cannot read {shown}: {exc}") from None
    return parse_baseline(text, shown)


# --------------------------------------------------------------------------- settings


def settings_differences(stored: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """Each setting that differs, as ``name: baseline X, this run Y``.

    The order of the metrics does not matter: values are stored by metric name.
    """

    def same(key: str) -> bool:
        a, b = stored.get(key), current.get(key)
        if key == "metrics" and isinstance(a, list) and isinstance(b, list):
            return sorted(map(str, a)) == sorted(map(str, b))
        return a == b

    return [
        f"{key}: baseline {stored.get(key)!r}, this run {current.get(key)!r}"
        for key in sorted(set(stored) | set(current))
        if not same(key)
    ]


def is_gone(
    query: BaselineQuery, golden_ids: Mapping[str, str], collected: set[str], existing: set[str]
) -> bool:
    """A baseline query no longer in the golden set: its file was collected without it,
    or its file is gone. A query of a file this run did not collect is not gone."""
    return query.id not in golden_ids and (
        query.path in collected or bool(query.path and query.path not in existing)
    )


# --------------------------------------------------------------------------- updating


@dataclass
class UpdateOutcome:
    """What an update did, for the terminal."""

    baseline: Baseline
    updated: dict[str, int]  # configuration -> queries written from this run
    kept: dict[str, int]  # configuration -> queries kept from the previous baseline
    dropped: list[str]  # "configuration/query" no longer in any golden file
    reset: list[str]  # settings that differed: the previous baseline was discarded
    errored: list[str]  # "configuration/query" that errored: not written, previous entry kept


def merge_update(
    previous: Baseline | None,
    results: Results,
    settings: Settings,
    golden_ids: Mapping[str, str],
    collected_files: Iterable[str],
    existing_files: Iterable[str],
    provenance: Mapping[str, Any],
) -> UpdateOutcome:
    """The new baseline: this run's queries replace theirs, the rest is kept or dropped.

    ``golden_ids`` maps every query id collected in this run (selected or not) to
    its file. A previous query is dropped when its file was collected and no
    longer holds it, or when its file no longer exists; otherwise it is kept
    (a ``-k`` update or a run over some files replaces only what it ran).
    Skipped and errored items are not written; such a query keeps its previous entry.
    """
    current = settings.as_dict()
    reset: list[str] = []
    configurations: dict[str, dict[str, BaselineQuery]] = {}
    collected = set(collected_files)
    existing = set(existing_files)
    dropped: list[str] = []
    kept: dict[str, int] = {}
    if previous is not None:
        reset = settings_differences(previous.settings, current)
        if not reset:
            for name, queries in previous.configurations.items():
                for qid, query in queries.items():
                    if is_gone(query, golden_ids, collected, existing):
                        dropped.append(f"{name}/{qid}")
                        continue
                    configurations.setdefault(name, {})[qid] = query
                    kept[name] = kept.get(name, 0) + 1
    updated: dict[str, int] = {}
    errored: list[str] = []
    for name in results.configurations():
        block = configurations.setdefault(name, {})
        for record in results.records(name):
            if not record.evaluated:
                continue
            if record.outcome == "error":
                # A flaky retriever must not bake zeros into the baseline: keep what was there.
                errored.append(f"{name}/{record.id}")
                continue
            if record.id in block:
                kept[name] -= 1
            block[record.id] = BaselineQuery.from_record(record)
            updated[name] = updated.get(name, 0) + 1
    baseline = Baseline(
        settings=current,
        configurations={n: dict(sorted(q.items())) for n, q in configurations.items() if q},
        provenance=dict(provenance),
    )
    return UpdateOutcome(
        baseline=baseline,
        updated=updated,
        kept={k: v for k, v in kept.items() if v},
        dropped=sorted(dropped),
        reset=reset,
        errored=errored,
    )


def dumps(baseline: Baseline) -> str:
    """Serialise with stable key order and one line per query."""
    metrics = [str(m) for m in baseline.settings.get("metrics", [])]

    def one(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    lines = [
        "{",
        f'  "format": {one(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "settings": {one(baseline.settings)},',
        f'  "provenance": {one(baseline.provenance)},',
        '  "configurations": {',
    ]
    names = sorted(baseline.configurations)
    for ci, name in enumerate(names):
        queries = baseline.configurations[name]
        summary = baseline.summary(name, metrics)
        lines.append(f"    {one(name)}: {{")
        lines.append(f'      "summary": {{"all": {one(summary["all"])}, "categories": {{')
        cats = list(summary["categories"].items())
        for i, (cat, row) in enumerate(cats):
            comma = "," if i < len(cats) - 1 else ""
            lines.append(f"        {one(cat)}: {one(row)}{comma}")
        lines.append("      }},")
        lines.append('      "queries": {')
        qids = sorted(queries)
        for i, qid in enumerate(qids):
            comma = "," if i < len(qids) - 1 else ""
            lines.append(f"        {one(qid)}: {one(queries[qid].as_dict())}{comma}")
        lines.append("      }")
        lines.append("    }" + ("," if ci < len(names) - 1 else ""))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Write atomically: an interrupted update leaves the old file intact."""
    write_atomic(path, dumps(baseline))
