"""The plugin's JSON report read back: settings, golden set, every query's record, the gate.

Pure apart from reading the file. :func:`read_report` checks the shape (format
``pytest-retrieval-report``, version 1) and raises :class:`ReportError` naming the
file, the configuration and the query, what is wrong and how to fix it. Queries
become :class:`~pytest_retrieval.model.QueryRecord` through its one serializer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..model import QueryRecord, RecordError, Results, outside_0_1
from ..settings import (
    EMPTY,
    GAIN,
    MAX_GRADE,
    METRICS,
    THRESHOLD,
    Raw,
    Settings,
    SettingsError,
    parse_settings,
)
from .baseline_file import given_twice, keys_read
from .common import NestedTooDeeply, cut_short, is_version, loads_json, utf8_text
from .repeated_keys import first_repeat, keys_hold_once

FORMAT = "pytest-retrieval-report"
VERSION = 1
_SETTINGS_KEYS = {
    "metrics": METRICS.name,
    "gain": GAIN.name,
    "relevance_threshold": THRESHOLD.name,
    "max_grade": MAX_GRADE.name,
    "empty": EMPTY.name,
}


class ReportError(ValueError):
    """A JSON report that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class GoldenSummary:
    """The report's ``golden`` block: files, number of queries, digest."""

    files: tuple[str, ...] = ()
    queries: int = 0
    sha256: str = ""


@dataclass(frozen=True)
class ReportFile:
    """A JSON report: its settings, golden block, and per configuration every query's record."""

    path: str
    settings: Settings
    golden: GoldenSummary
    configurations: dict[str, dict[str, QueryRecord]]
    verdict: str | None = None  # the gate's, when the run gated
    raw_settings: dict[str, object] = field(default_factory=dict)
    incomplete: str | None = None  # why its run did not run every item ("complete": false)

    def results(self) -> Results:
        """Every record as a run's :class:`Results` (configurations in the report's order)."""
        results = Results()
        for records in self.configurations.values():
            for record in records.values():
                results.add(record)
        return results


def _load(text: str, shown: str) -> dict[str, object]:
    try:
        data = loads_json(text)
    except NestedTooDeeply:
        raise ReportError(f"{shown}: nested too deeply to be a JSON report") from None
    except json.JSONDecodeError as exc:
        if cut_short(exc, text):
            raise ReportError(
                f"{shown}:{exc.lineno}: the JSON ends early (the file is cut short: a copy or "
                "a write that stopped?); write the report again"
            ) from None
        raise ReportError(
            f"{shown}:{exc.lineno}: not valid JSON (column {exc.colno}: {exc.msg})"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReportError(
            f'{shown}: not a pytest-retrieval JSON report (no "format": "{FORMAT}"); write one '
            "with pytest --retrieval-eval --retrieval-report PATH.json"
        )
    version = data.get("version")
    if not is_version(version, VERSION):
        raise ReportError(
            f"{shown}: report version {json.dumps(version)}; this version reads {VERSION}"
        )
    if not keys_hold_once(text, keys_read(data), head='"configurations": {'):
        found = first_repeat(text)  # a merge conflict resolved by keeping both lines
        if found is not None:
            raise ReportError(given_twice(shown, found))
    return data


def _settings(data: dict[str, object], shown: str) -> tuple[Settings, dict[str, object]]:
    block = data.get("settings")
    if not isinstance(block, dict):
        raise ReportError(f"{shown}: 'settings' must be a mapping")
    missing = [key for key in _SETTINGS_KEYS if key not in block]
    if missing:
        raise ReportError(f"{shown}: 'settings' lacks {', '.join(missing)}")
    raw: dict[str, Raw] = {}
    for key, name in _SETTINGS_KEYS.items():
        value = block[key]
        if isinstance(value, list):
            raw[name] = [str(v) for v in value]
        elif isinstance(value, (str, int)) and not isinstance(value, bool):
            raw[name] = str(value)
        else:
            raise ReportError(f"{shown}: settings.{key} must be text, a number or a list")
    try:
        return parse_settings(raw), dict(block)
    except SettingsError as exc:
        raise ReportError(f"{shown}: settings: {exc}") from None


def _golden(data: dict[str, object], shown: str) -> GoldenSummary:
    block = data.get("golden", {})
    if not isinstance(block, dict):
        raise ReportError(f"{shown}: 'golden' must be a mapping")
    files = block.get("files", [])
    queries = block.get("queries", 0)
    digest = block.get("sha256", "")
    if not isinstance(files, list) or not isinstance(queries, int) or not isinstance(digest, str):
        raise ReportError(f"{shown}: 'golden' must hold files (a list), queries, sha256")
    return GoldenSummary(tuple(str(f) for f in files), queries, digest)


def _configuration(
    name: str, block: object, position: int, shown: str, skip: bool
) -> dict[str, QueryRecord]:
    queries = block.get("queries") if isinstance(block, dict) else None
    if not isinstance(queries, dict):
        raise ReportError(f"{shown}: configuration '{name}' has no 'queries' mapping")
    out: dict[str, QueryRecord] = {}
    for qid, entry in queries.items():
        try:
            out[str(qid)] = QueryRecord.from_dict(
                entry, id=str(qid), configuration=name, position=position
            )
            _in_range(out[str(qid)], skip)
        except RecordError as exc:
            raise ReportError(
                f"{shown}: configuration '{name}': query '{qid}': {exc}; the file is not a "
                "report this plugin wrote (or was edited by hand)"
            ) from None
    return out


def _in_range(record: QueryRecord, skip: bool) -> None:
    """Every metric the plugin reports is in 0..1 (custom ones are checked to be): a value
    outside was written by hand, and would be compared as a gain or a drop. Null is an
    unevaluated query's (skipped), or under ``retrieval_empty = skip`` a query's with
    nothing to find; on another it would drop the query from every mean unnoticed."""
    for metric, value in record.metrics.items():
        if value is None and not skip and record.outcome != "skipped":
            raise RecordError(
                f"{metric} is null, which only retrieval_empty = skip allows (this query "
                "was evaluated)"
            )
        if (problem := outside_0_1(metric, value)) is not None:
            raise RecordError(problem)


def _incomplete(data: dict[str, object], shown: str) -> str | None:
    """Why the report's run did not run every item (``"complete": false``), else None."""
    complete = data.get("complete", True)
    if not isinstance(complete, bool):
        raise ReportError(f"{shown}: 'complete' must be true or false, not {complete!r}")
    if complete:
        return None
    reason = data.get("incomplete")
    return str(reason) if isinstance(reason, str) and reason else "stopped early"


def parse_report(text: str, shown: str = "report") -> ReportFile:
    """Parse a JSON report's text; :class:`ReportError` says what is wrong."""
    data = _load(text, shown)
    settings, raw_settings = _settings(data, shown)
    configurations = data.get("configurations")
    if not isinstance(configurations, dict):
        raise ReportError(f"{shown}: 'configurations' must be a mapping")
    parsed = {
        str(name): _configuration(str(name), block, i, shown, settings.conventions.empty == "skip")
        for i, (name, block) in enumerate(configurations.items())
    }
    gate = data.get("gate")
    verdict = gate.get("verdict") if isinstance(gate, dict) else None
    return ReportFile(
        path=shown,
        settings=settings,
        golden=_golden(data, shown),
        configurations=parsed,
        verdict=str(verdict) if verdict is not None else None,
        raw_settings=raw_settings,
        incomplete=_incomplete(data, shown),
    )


def read_report(path: Path, shown: str | None = None) -> ReportFile:
    """Read and parse a JSON report file."""
    shown = shown or str(path)
    try:
        text = utf8_text(path.read_bytes())  # a byte-order mark from an editor is fine
    except FileNotFoundError:
        raise ReportError(f"{shown}: no such file") from None
    except OSError as exc:
        raise ReportError(f"cannot read {shown}: {exc}") from None
    if isinstance(text, tuple):
        raise ReportError(f"{shown}:{text[0]}: {text[1]}, so it is no report of the plugin's")
    return parse_report(text, shown)


def looks_like_report(path: Path) -> bool:
    """True when the file starts like JSON (a report) rather than a TREC run."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(256)
    except OSError:
        return False
    return head.lstrip("\ufeff \t\r\n").startswith("{")


__all__ = ["FORMAT", "VERSION", "ReportError", "ReportFile", "parse_report", "read_report"]
