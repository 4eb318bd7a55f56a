"""Run settings, parsed from ini values and options, validated with helpful messages.

Pure: the hook layer reads the raw values from pytest and hands them here.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .metrics import (
    EMPTY_CONVENTIONS,
    GAINS,
    Conventions,
    Metric,
    MetricNameError,
    max_cut,
    parse_metrics,
)

DEFAULT_METRICS = ("ndcg@10", "mrr", "recall@20")


class SettingsError(ValueError):
    """A setting with a value that cannot be used; the message names the key and the fix."""


@dataclass(frozen=True)
class Settings:
    """What the run computes and how numbers are made comparable."""

    metrics: tuple[Metric, ...] = field(default_factory=lambda: parse_metrics(DEFAULT_METRICS))
    conventions: Conventions = field(default_factory=Conventions)
    max_grade: int = 3
    fixture: str = "retriever"

    @functools.cached_property
    def metric_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    @functools.cached_property
    def depth(self) -> int | None:
        """How many ranked ids a report keeps: the largest cut, None when no metric has one."""
        return max_cut(self.metrics)

    def as_dict(self) -> dict[str, Any]:
        """The settings block of reports and baselines (CONTRACT §4)."""
        return {
            "metrics": self.metric_names,
            "gain": self.conventions.gain,
            "relevance_threshold": self.conventions.relevance_threshold,
            "max_grade": self.max_grade,
            "empty": self.conventions.empty,
        }


def parse_int(key: str, raw: Any, minimum: int) -> int:
    """An integer setting >= minimum; the error names the key."""
    text = str(raw).strip()
    try:
        value = int(text)
    except ValueError:
        raise SettingsError(f"{key} must be an integer >= {minimum}, got '{text}'") from None
    if value < minimum:
        raise SettingsError(f"{key} must be an integer >= {minimum}, got {value}")
    return value


def _choice(key: str, raw: Any, choices: Sequence[str]) -> str:
    value = str(raw).strip().lower()
    if value not in choices:
        raise SettingsError(f"{key} must be one of {', '.join(choices)}, got '{raw}'")
    return value


def words(raw: Any) -> list[str]:
    """The words of an ini value (text or a list), split on spaces and commas."""
    if raw is None:
        return []
    if isinstance(raw, str):
        return raw.replace(",", " ").split()
    return [w for item in raw for w in str(item).replace(",", " ").split()]


def parse_settings(ini: Mapping[str, Any]) -> Settings:
    """Build :class:`Settings` from raw ini values (missing or empty keys take defaults)."""

    def get(key: str, default: Any) -> Any:
        value = ini.get(key)
        if value is None or value == "" or value == []:
            return default
        return value

    names = words(get("retrieval_metrics", list(DEFAULT_METRICS)))
    try:
        metrics = parse_metrics(names)
    except MetricNameError as exc:
        raise SettingsError(f"retrieval_metrics: {exc}") from None
    if not metrics:
        raise SettingsError("retrieval_metrics is empty; name at least one metric (ndcg@10)")
    conventions = Conventions(
        gain=_choice("retrieval_gain", get("retrieval_gain", "exponential"), GAINS),
        relevance_threshold=parse_int(
            "retrieval_relevance_threshold", get("retrieval_relevance_threshold", 1), 1
        ),
        empty=_choice("retrieval_empty", get("retrieval_empty", "abstain"), EMPTY_CONVENTIONS),
    )
    max_grade = parse_int("retrieval_max_grade", get("retrieval_max_grade", 3), 1)
    if conventions.relevance_threshold > max_grade:
        raise SettingsError(
            f"retrieval_relevance_threshold ({conventions.relevance_threshold}) is above "
            f"retrieval_max_grade ({max_grade}): nothing could ever be relevant"
        )
    fixture = str(get("retrieval_fixture", "retriever")).strip()
    if not fixture.isidentifier():
        raise SettingsError(f"retrieval_fixture must be a fixture name, got '{fixture}'")
    return Settings(metrics=metrics, conventions=conventions, max_grade=max_grade, fixture=fixture)
