"""pytest-retrieval: retrieval quality as a pytest suite.

Golden queries in YAML become pytest items; each runs through the user's
``retriever`` fixture and is scored with nDCG, MRR, recall and more. See the
README for the golden file format, the options and the reports; custom metrics
are :class:`MetricSpec` objects a ``pytest_retrieval_metrics`` hook returns.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__

# Each public name and the module that holds it, imported on first use: pytest loads
# this package for every run of a project that installed it, with --retrieval-eval or
# without, and a run without it should not pay for the metrics, YAML and golden-set
# modules (under PYTHONDONTWRITEBYTECODE pytest re-reads each of a plugin's modules
# on every run).
_EXPORTS = {
    "RetrievalGoldenWarning": "advice",
    "RetrievalLogWarning": "advice",
    "RetrievalNoiseWarning": "advice",
    "RetrievalOverlapWarning": "advice",
    "RetrievalReproducibilityWarning": "advice",
    "RetrievalSaturationWarning": "advice",
    "RetrievalSettingsWarning": "advice",
    "RetrievalWarning": "advice",
    "GoldenQuery": "golden",
    "RetrievalQuery": "golden",
    "load_golden_file": "io.golden_file",
    "MetricInput": "metric_registry",
    "MetricSpec": "metric_registry",
    "Conventions": "metrics",
    "Metric": "metrics",
    "MetricNameError": "metrics",
    "evaluate": "metrics",
    "parse_metric": "metrics",
    "batch": "retrievers",
}

if TYPE_CHECKING:
    from .advice import (
        RetrievalGoldenWarning,
        RetrievalLogWarning,
        RetrievalNoiseWarning,
        RetrievalOverlapWarning,
        RetrievalReproducibilityWarning,
        RetrievalSaturationWarning,
        RetrievalSettingsWarning,
        RetrievalWarning,
    )
    from .golden import GoldenQuery, RetrievalQuery
    from .io.golden_file import load_golden_file
    from .metric_registry import MetricInput, MetricSpec
    from .metrics import Conventions, Metric, MetricNameError, evaluate, parse_metric
    from .retrievers import batch


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_retrieval' has no attribute {name!r}")
    # not kept here: whoever asks gets the module's object as sys.modules holds it now
    # (pytest's own pytester takes modules away between in-process runs)
    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "Conventions",
    "GoldenQuery",
    "Metric",
    "MetricInput",
    "MetricNameError",
    "MetricSpec",
    "RetrievalGoldenWarning",
    "RetrievalLogWarning",
    "RetrievalNoiseWarning",
    "RetrievalOverlapWarning",
    "RetrievalQuery",
    "RetrievalReproducibilityWarning",
    "RetrievalSaturationWarning",
    "RetrievalSettingsWarning",
    "RetrievalWarning",
    "__version__",
    "batch",
    "evaluate",
    "load_golden_file",
    "parse_metric",
]
