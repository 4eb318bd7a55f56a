"""ranx's Qrels and Run, built so that numba compiles their constructors once a process.

ranx puts document ids in a numpy array of dtype ``<U{longest id}``, and the numba
functions that build its Qrels and Run (which numba cannot cache on disk) are compiled
again for every width met: about 20 s of CPU each, in every fresh process. Renaming the
ids to names of one width (the same id to the same name, in both) changes no number
ranx computes: it matches documents by id and keeps the order they were given in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WIDTH = 9


def ranx_pair(
    qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Mapping[str, float]]
) -> tuple[Any, Any]:
    """``(ranx.Qrels, ranx.Run)`` of ``qrels`` and ``run``, document ids renamed."""
    import ranx

    names: dict[str, str] = {}

    def renamed(docs: Mapping[str, Any]) -> dict[str, Any]:
        return {names.setdefault(d, f"d{len(names):0{WIDTH}d}"): v for d, v in docs.items()}

    qrels_in = {q: renamed(docs) for q, docs in qrels.items()}
    run_in = {q: renamed(docs) for q, docs in run.items()}
    return ranx.Qrels.from_dict(qrels_in), ranx.Run.from_dict(run_in)
