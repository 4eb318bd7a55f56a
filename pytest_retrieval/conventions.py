"""The conventions that decide what a number means (CONTRACT §3): gain, threshold, empty.

Pure, and light: the settings schema (which every pytest run of a project with the
plugin installed imports, evaluation or not) reads its choices and defaults from
here without importing the metrics. :mod:`pytest_retrieval.metrics` applies them.
"""

from __future__ import annotations

from dataclasses import dataclass

GAINS = ("exponential", "linear")
EMPTY_CONVENTIONS = ("abstain", "one", "zero", "skip")


@dataclass(frozen=True)
class Conventions:
    """The settings that decide what a number means (CONTRACT §3)."""

    gain: str = "exponential"
    relevance_threshold: int = 1
    empty: str = "abstain"

    def __post_init__(self) -> None:
        if self.gain not in GAINS:
            raise ValueError(f"gain must be one of {', '.join(GAINS)}, got '{self.gain}'")
        if self.empty not in EMPTY_CONVENTIONS:
            raise ValueError(
                f"empty must be one of {', '.join(EMPTY_CONVENTIONS)}, got '{self.empty}'"
            )
        if self.relevance_threshold < 1:
            raise ValueError(f"relevance threshold must be >= 1, got {self.relevance_threshold}")


DEFAULT_CONVENTIONS = Conventions()
