"""Sweep the fused retriever's abstention threshold on demo/threshold_tuning.yaml.

For every threshold from 0.05 to 0.60 it prints the share of answerable queries the fused
retriever would still answer, the share of unanswerable ones it would refuse, and their
mean (balanced accuracy); then the plateau of best thresholds and its middle, which is the
value demo/hybrid.py's ABSTAIN_BELOW should hold. The tuning queries are disjoint from
golden/, so the golden no-result category is a held-out check of the choice.

    python benchmarks/tune_fused_threshold.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    import yaml

    os.environ["HF_HUB_OFFLINE"] = "1"
    from demo import build_retriever
    from demo.hybrid import ABSTAIN_BELOW

    with open(ROOT / "demo" / "threshold_tuning.yaml", encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    dense = build_retriever("dense")
    answerable = [float(dense.scores(text).max()) for text in data["answerable"]]
    unanswerable = [float(dense.scores(text).max()) for text in data["unanswerable"]]
    print(f"{len(answerable)} answerable, {len(unanswerable)} unanswerable tuning queries")
    print(
        f"best cosine, answerable:   min {min(answerable):.3f}  "
        f"median {sorted(answerable)[len(answerable) // 2]:.3f}"
    )
    print(
        f"best cosine, unanswerable: max {max(unanswerable):.3f}  "
        f"median {sorted(unanswerable)[len(unanswerable) // 2]:.3f}"
    )
    rows = []
    for step in range(5, 61):
        threshold = step / 100
        keep = sum(x >= threshold for x in answerable) / len(answerable)
        refuse = sum(x < threshold for x in unanswerable) / len(unanswerable)
        rows.append((threshold, keep, refuse, (keep + refuse) / 2))
        print(
            f"  {threshold:.2f}  answered {keep:5.1%}  refused {refuse:5.1%}  "
            f"balanced {(keep + refuse) / 2:.3f}"
        )
    best = max(r[3] for r in rows)
    plateau = [r[0] for r in rows if abs(r[3] - best) < 1e-9]
    middle = plateau[len(plateau) // 2]
    print(
        f"best balanced accuracy {best:.3f} for thresholds {plateau[0]:.2f}..{plateau[-1]:.2f};"
        f" middle {middle:.2f}; demo/hybrid.py uses {ABSTAIN_BELOW:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
