"""pytest-retrieval: retrieval quality as a pytest suite.

Golden queries in YAML become pytest items; each runs through the user's
``retriever`` fixture and is scored with nDCG, MRR, recall and more. See the
README for the golden file format, the options and the reports; custom metrics
are :class:`MetricSpec` objects a ``pytest_retrieval_metrics`` hook returns.
"""

from ._version import __version__
from .advice import (
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

__all__ = [
    "Conventions",
    "GoldenQuery",
    "Metric",
    "MetricInput",
    "MetricNameError",
    "MetricSpec",
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
