"""The baseline file: parse, serialise, read and write it (atomically).

Keys are sorted and each query sits on one line, so a baseline change reads well
in a pull request. Each configuration also stores its ``all`` and per-category
means, for a person reading the file; the gate recomputes them from the queries.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..aggregate import summarize
from ..baseline import Baseline, BaselineError, BaselineMissing
from ..model import BASELINE_FIELDS, ConfigurationRecords, QueryRecord, RecordError
from ..retriever_metadata import Metadata, parse_metadata
from .atomic import write_atomic

FORMAT = "pytest-retrieval-baseline"
VERSION = 1
_REQUIRED = ("category", "fingerprint", "metrics")


def _query(qid: str, configuration: str, data: object) -> QueryRecord:
    if not isinstance(data, dict):
        raise BaselineError(f"query '{qid}' is not a mapping")
    for key in _REQUIRED:
        if key not in data:
            raise BaselineError(f"query '{qid}' has no {key!r}")
    try:
        return QueryRecord.from_dict(data, id=qid, configuration=configuration)
    except RecordError as exc:
        raise BaselineError(f"query '{qid}': {exc}") from None


def _load_json(text: str, shown: str) -> dict[str, object]:
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
    return data


def parse_baseline(text: str, shown: str = "baseline") -> Baseline:
    """Parse a baseline's text; :class:`BaselineError` says what is wrong."""
    data = _load_json(text, shown)
    settings = data.get("settings")
    configurations = data.get("configurations")
    if not isinstance(settings, dict) or not isinstance(configurations, dict):
        raise BaselineError(f"{shown} lacks 'settings' or 'configurations'")
    parsed: dict[str, dict[str, QueryRecord]] = {}
    retrievers: dict[str, Metadata] = {}
    for name, block in configurations.items():
        queries = block.get("queries") if isinstance(block, dict) else None
        if not isinstance(queries, dict):
            raise BaselineError(f"{shown}: configuration '{name}' has no 'queries' mapping")
        try:
            parsed[str(name)] = {str(q): _query(str(q), str(name), d) for q, d in queries.items()}
        except BaselineError as exc:
            raise BaselineError(f"{shown}: configuration '{name}': {exc}") from None
        described = parse_metadata(block.get("retriever"), "")[0]  # older baselines: none
        if described:
            retrievers[str(name)] = described
    provenance = data.get("provenance")
    return Baseline(
        settings=settings,
        configurations=parsed,
        provenance=provenance if isinstance(provenance, dict) else {},
        retrievers=retrievers,
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


def _one(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _configuration_lines(
    queries: dict[str, QueryRecord], metrics: list[str], retriever: Metadata | None
) -> list[str]:
    view = ConfigurationRecords(tuple(queries[q] for q in sorted(queries)))
    summary = summarize(view, metrics)
    lines = [f'      "retriever": {_one(retriever)},'] if retriever else []
    lines += [f'      "summary": {{"all": {_one(summary.all.as_dict())}, "categories": {{']
    cats = sorted(summary.categories.items())
    for i, (cat, row) in enumerate(cats):
        lines.append(
            f"        {_one(cat)}: {_one(row.as_dict())}{',' if i < len(cats) - 1 else ''}"
        )
    lines += ["      }},", '      "queries": {']
    for i, record in enumerate(view.records):
        comma = "," if i < len(view.records) - 1 else ""
        lines.append(f"        {_one(record.id)}: {_one(record.to_dict(BASELINE_FIELDS))}{comma}")
    return [*lines, "      }"]


def dumps(baseline: Baseline) -> str:
    """Serialise with stable key order and one line per query."""
    raw_metrics = baseline.settings.get("metrics", [])
    metrics = [str(m) for m in raw_metrics] if isinstance(raw_metrics, list) else []
    lines = [
        "{",
        f'  "format": {_one(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "settings": {_one(baseline.settings)},',
        f'  "provenance": {_one(baseline.provenance)},',
        '  "configurations": {',
    ]
    names = sorted(baseline.configurations)
    for ci, name in enumerate(names):
        lines.append(f"    {_one(name)}: {{")
        described = baseline.retrievers.get(name)
        lines += _configuration_lines(baseline.configurations[name], metrics, described)
        lines.append("    }" + ("," if ci < len(names) - 1 else ""))
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Write atomically: an interrupted update leaves the old file intact."""
    write_atomic(path, dumps(baseline))
