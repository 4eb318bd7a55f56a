"""Independent reference implementations the tests compare the package with."""

from __future__ import annotations

from collections.abc import Sequence


def holm_reference(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment by its textbook definition (ties in any order)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        out[i] = max(min(1.0, (m - j) * p[order[j]]) for j in range(rank + 1))
    return out
