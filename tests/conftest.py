"""Shared fixtures for the end-to-end tests (tests/test_e2e_*.py).

A small, realistic project for ``pytester``: a golden set of two files and four
categories, and a ``retriever`` fixture parametrized ``bm25`` / ``dense`` whose
rankings are fixed tables (deterministic, different per configuration, in different
result shapes, with a duplicate and a ranking longer than the largest cut).

Everything here is prefixed ``e2e_`` so it cannot clash with other test files.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import json
import math
import os
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

with contextlib.suppress(ImportError):
    # hypothesis' pytest plugin imports hypothesis in every in-process pytester run's
    # terminal summary (~0.8 s each, with assertion rewriting) unless it is already imported.
    import hypothesis  # noqa: F401

with contextlib.suppress(ImportError):
    # numpy's C extension initialises once per process. A pytester run whose conftest
    # imports numpy first takes it away again when it ends, and a later import of numpy
    # (ranx's, in the cross-checks) fails: "cannot load module more than once per process".
    import numpy  # noqa: F401

# The whole plugin, imported before any in-process pytester run. A run without
# --retrieval-eval (this test session's own) loads only the entry point; pytester takes
# away after each in-process run the modules it imported, so modules an evaluation run
# imported would be imported again by the next run while others stay, and two copies of
# one class (a warning category named by -W, a YAML loader) would meet.
import pytest_retrieval.plugin.evaluation_hooks  # noqa: F401


def _ranx_is_compiled() -> bool:
    """Whether numba holds ranx's metrics compiled on disk (``ranx/metrics/__pycache__``,
    or under ``$NUMBA_CACHE_DIR``), without importing ranx (which imports numba)."""
    spec = importlib.util.find_spec("ranx")
    if spec is None or spec.origin is None:
        return True  # no ranx: its tests skip
    if os.environ.get("NUMBA_CACHE_DIR"):  # numba then caches only there
        places = list(Path(os.environ["NUMBA_CACHE_DIR"]).glob("metrics_*"))
    else:
        places = [Path(spec.origin).parent / "metrics" / "__pycache__"]
    return any(next(place.glob("ndcg.*.nbi"), None) for place in places)


# ranx compiles its functions with numba on first use: in a fresh environment (CI's) about
# 70 s of CPU at LLVM's full optimisation, 40 s without it, and more than the rest of the
# ranx cross-checks together. Until numba has cached them on disk, ranx runs them as the
# Python they are written in (numba's documented NUMBA_DISABLE_JIT): the same source and
# the same arithmetic (ranx asks for no fast-math), so the same numbers to 1e-9, in about
# 20 s for every ranx test. `NUMBA_DISABLE_JIT=0 pytest tests/test_crosscheck.py` compiles
# and caches them once; from then on the compiled functions are what the tests call.
if not _ranx_is_compiled():
    os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

# Every pytest run a test starts (in-process or in a subprocess) skips two costs that
# have nothing to do with the plugin: assertion rewriting of the test project's
# conftest.py (recompiled for every run), and plugins no test project uses.
INNER_RUN_OPTIONS = (
    "--assert=plain -p no:hypothesispytest -p no:anyio -p no:xdist.looponfail -p no:doctest "
    "-p no:pastebin -p no:legacypath"
)


# ranx's compiling (above) would be paid by every xdist worker that calls it, and at the
# same moment, before either has written numba's cache. Under plain ``-n`` the tests
# that call ranx go to one worker as one unit, so one worker compiles while the other goes
# on with the rest of the suite. (xdist's own --dist loadgroup does not group under pytest
# 9: it renames node ids through an attribute pytest no longer reads.)
_CALLS_RANX = re.compile(r"test_crosscheck\.py::|ranx")
# The demo's tests read one run of the demo (a module fixture, ~13 s), made once when they
# go to one worker as one unit.
_READS_THE_DEMO_RUN = re.compile(r"test_demo\.py::")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") != "load":
        return None  # a --dist the command line chose
    from xdist.scheduler import LoadScopeScheduling

    class RanxTogether(LoadScopeScheduling):  # type: ignore[misc]
        """Each test a unit of its own, but the ranx tests one unit, the demo's another."""

        def _split_scope(self, nodeid: str) -> str:
            if _CALLS_RANX.search(nodeid):
                return "ranx"
            return "demo" if _READS_THE_DEMO_RUN.search(nodeid) else nodeid

    return RanxTogether(config, log)


@pytest.fixture(autouse=True)
def _lean_inner_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # it clears PYTEST_ADDOPTS when it starts
        monkeypatch.setenv("PYTEST_ADDOPTS", INNER_RUN_OPTIONS)
        # when this suite runs under GitHub Actions, the test projects must not annotate
        # the real run or append to its job summary (tests/test_e2e_ci.py sets them itself);
        # and under any CI (CI or BUILD_NUMBER set) pytest stops cutting its short test
        # summary to the terminal's width, which the width tests read
        for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "CI", "BUILD_NUMBER"):
            monkeypatch.delenv(name, raising=False)


# --------------------------------------------------------------------------- the project

E2E_CATALOG_YAML = """\
# The demo marketplace's golden queries (paid API services for agents).
defaults:
  category: paraphrase
  tags: [core]
queries:
  - id: rain-tomorrow
    query: is it going to rain tomorrow
    relevant:
      weather-forecast: 3
      weather-forecast-stuffed: 1
    expect: {mrr: 0.5}
  - id: umbrella-needed
    query: do I need an umbrella this afternoon
    tags: [rolling]
    relevant: {weather-forecast: 2, tide-tables: 0}
  - id: convert-euros
    query: convert euros to dollars
    category: lexical
    filters: {network: base}
    relevant: [fx-rates, fx-rates-solana]
  - id: stuffed-weather
    query: weather weather forecast best cheap
    category: adversarial
    tags: [rolling]
    relevant:
      weather-forecast: 3
      weather-forecast-stuffed: 1
    forbid: [weather-archive]
  - id: teleport-ticket
    query: price of a teleportation ticket to mars
    category: no-result
    relevant: {}
"""

E2E_HOLDOUT_YAML = """\
# A bare list of queries (the short form).
- id: share-price
  query: live share price for a ticker symbol
  category: lexical
  tags: [rolling, dev/holdout]
  relevant: {stock-quotes: 3, crypto-prices: 1}
- id: fake-forecast
  query: weather forecast from a keyword stuffed listing
  category: adversarial
  tags: [dev/holdout]
  relevant: {weather-forecast: 3, weather-forecast-stuffed: 1}
"""

E2E_NOISE = [f"noise-{i:02d}" for i in range(1, 31)]

# configuration -> query id -> ranked ids (the retriever's answer)
E2E_RANKINGS: dict[str, dict[str, list[str]]] = {
    "bm25": {
        "rain-tomorrow": ["weather-archive", "weather-forecast-stuffed", "weather-forecast"],
        "umbrella-needed": ["tide-tables", "weather-archive", "weather-forecast"],
        "convert-euros": ["fx-rates", "crypto-prices", "fx-rates-solana"],
        "stuffed-weather": ["weather-forecast-stuffed", "weather-forecast"],
        "teleport-ticket": ["geocoder"],
        # 25 results: stock-quotes at rank 22, beyond recall@20 and the kept 20 ids
        "share-price": [*E2E_NOISE[:21], "stock-quotes", *E2E_NOISE[21:24]],
        "fake-forecast": ["weather-forecast-stuffed", "noise-01", "weather-forecast"],
    },
    "dense": {
        "rain-tomorrow": ["weather-forecast", "tide-tables", "weather-forecast"],
        "umbrella-needed": ["weather-forecast", "weather-forecast-stuffed"],
        "convert-euros": ["fx-rates-solana", "fx-rates"],
        "stuffed-weather": ["weather-forecast", "tide-tables", "weather-forecast-stuffed"],
        "teleport-ticket": [],
        "share-price": ["crypto-prices", "stock-quotes", "crypto-prices", "crypto-prices"],
        "fake-forecast": ["noise-02", "noise-03", "noise-04", "weather-forecast-stuffed"],
    },
}

# the judgments of E2E_CATALOG_YAML / E2E_HOLDOUT_YAML, for computing expected values
E2E_JUDGMENTS: dict[str, dict[str, int]] = {
    "rain-tomorrow": {"weather-forecast": 3, "weather-forecast-stuffed": 1},
    "umbrella-needed": {"weather-forecast": 2, "tide-tables": 0},
    "convert-euros": {"fx-rates": 1, "fx-rates-solana": 1},
    "stuffed-weather": {"weather-forecast": 3, "weather-forecast-stuffed": 1},
    "teleport-ticket": {},
    "share-price": {"stock-quotes": 3, "crypto-prices": 1},
    "fake-forecast": {"weather-forecast": 3, "weather-forecast-stuffed": 1},
}
E2E_CATEGORIES = {
    "rain-tomorrow": "paraphrase",
    "umbrella-needed": "paraphrase",
    "convert-euros": "lexical",
    "stuffed-weather": "adversarial",
    "teleport-ticket": "no-result",
    "share-price": "lexical",
    "fake-forecast": "adversarial",
}
E2E_TAGS = {
    "rain-tomorrow": ["core"],
    "umbrella-needed": ["rolling"],
    "convert-euros": ["core"],
    "stuffed-weather": ["rolling"],
    "teleport-ticket": ["core"],
    "share-price": ["rolling", "dev/holdout"],
    "fake-forecast": ["dev/holdout"],
}
E2E_FILES = {
    "rain-tomorrow": "golden/catalog.yaml",
    "umbrella-needed": "golden/catalog.yaml",
    "convert-euros": "golden/catalog.yaml",
    "stuffed-weather": "golden/catalog.yaml",
    "teleport-ticket": "golden/catalog.yaml",
    "share-price": "golden/holdout.yml",
    "fake-forecast": "golden/holdout.yml",
}
E2E_QUERY_IDS = list(E2E_CATEGORIES)
E2E_CONFIGS = ["bm25", "dense"]
E2E_METRICS = ["ndcg@10", "mrr", "recall@20"]

E2E_RETRIEVER_CONFTEST = f"""\
import pytest

RANKINGS = {E2E_RANKINGS!r}


class Hit:
    def __init__(self, id):
        self.id = id


def _shape(configuration, ids):
    # each configuration answers in another of the result shapes of CONTRACT §2
    if configuration == "bm25":
        return [(doc, 10.0 - rank) for rank, doc in enumerate(ids)]
    return [{{"id": doc, "score": 1.0}} if rank % 2 else Hit(doc) for rank, doc in enumerate(ids)]


@pytest.fixture(params=["bm25", "dense"])
def retriever(request):
    table = RANKINGS[request.param]

    def search(query):
        assert query.text, "the golden query text reaches the retriever"
        return _shape(request.param, table[query.id])

    return search
"""

# Few bootstrap resamples: the statistics have tests of their own (test_stats.py,
# test_e2e_stats.py), and 10,000 per cell make every run of this project ~5x slower.
E2E_INI = """\
[pytest]
retrieval_golden = golden
retrieval_metrics = ndcg@10 mrr recall@20
retrieval_bootstrap = 200
"""


def e2e_write_project(
    pytester: pytest.Pytester,
    *,
    ini: str = E2E_INI,
    conftest: str = E2E_RETRIEVER_CONFTEST,
) -> Path:
    """Write the standard project (ini, conftest with the retriever, two golden files)."""
    pytester.makefile(".ini", pytest=ini)
    pytester.makeconftest(conftest)
    golden = pytester.path / "golden"
    golden.mkdir(exist_ok=True)
    (golden / "catalog.yaml").write_text(E2E_CATALOG_YAML, encoding="utf-8")
    (golden / "holdout.yml").write_text(E2E_HOLDOUT_YAML, encoding="utf-8")
    return pytester.path


@pytest.fixture
def e2e_project(pytester: pytest.Pytester) -> Path:
    """The standard project: 7 golden queries x configurations bm25, dense."""
    return e2e_write_project(pytester)


E2E_QUIET = ("-W", "ignore::pytest.PytestAssertRewriteWarning")


def e2e_unwrapped(text: str) -> str:
    """Output with the plugin's wrapped failure lines joined again: a long line of an
    item's failure is wrapped to the terminal, each continuation indented 4 more than its
    line (under an exception's note pytest starts it with ``E``). Also joins other
    indented lines to the line above: for looking a whole message up, not for layout."""
    return re.sub(r"\n(?:E)?[ ]{4,}(?=\S)", " ", text)


def e2e_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run pytest in-process in the pytester directory.

    The warning filter hides "Module already imported so cannot be rewritten;
    pytest_retrieval", an artefact of running the plugin in the process that already
    imported it (it never shows in a real run).
    """
    return pytester.runpytest(*E2E_QUIET, *args)


def e2e_readme_code(marker: str) -> str:
    """The Python block after ``<!-- marker -->`` in the README or a page of docs/ (an
    example the tests run)."""
    root = Path(__file__).resolve().parents[1]
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    assert f"<!-- {marker} -->" in text, f"the README and docs/ lost the block '{marker}'"
    block = text.split(f"<!-- {marker} -->", 1)[1]
    return block.split("```python\n", 1)[1].split("```", 1)[0]


def e2e_write(pytester: pytest.Pytester, relpath: str, text: str) -> Path:
    """Write a file (dedented) under the pytester directory, creating folders."""
    path = pytester.path / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- reading results


def e2e_collected_ids(result: pytest.RunResult) -> list[str]:
    """Node ids printed by ``--collect-only -q``."""
    return [line for line in result.outlines if "::" in line and not line.startswith(" ")]


_E2E_INTERVAL = re.compile(r"±\s*[\d.]+|\[[^\]]*\]")


def e2e_tables(text: str) -> list[dict[str, Any]]:
    """The summary tables in terminal or Markdown output.

    A table is a header whose second column is ``n``; its title is the last
    non-table line before it. Cells are reduced to the mean (an interval such as
    ``±0.06`` or ``[0.5, 0.7]`` after it is dropped). Returns
    ``[{"title": ..., "header": [...], "rows": [[label, n, mean, ...], ...]}]``.
    """
    tables: list[dict[str, Any]] = []
    title = ""
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("|"):
            cells = [_E2E_INTERVAL.sub("", c).strip() for c in line.strip("|").split("|")]
        else:
            cells = _E2E_INTERVAL.sub("", line).split()
        if not line:
            if current is not None and current["rows"]:
                current = None
            continue
        if set(line) <= set("-|: "):
            continue
        if len(cells) >= 2 and cells[1] == "n":
            current = {"title": title, "header": cells, "rows": []}
            tables.append(current)
            continue
        if current is not None and len(cells) == len(current["header"]) and cells[1].isdigit():
            current["rows"].append(cells)
            continue
        title = line
        current = None
    return tables


def e2e_fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def e2e_load_json(path: Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def e2e_without_latency(report: Any) -> Any:
    """A copy of a JSON report without its latencies, the one part that differs from run to
    run, and without how the retriever was called (batch or not, async or not, none when
    it was not called), which differs between runs that must give the same numbers."""
    report = copy.deepcopy(report)
    for block in report.get("configurations", {}).values():
        block.pop("latency", None)
        block.pop("retriever_kind", None)
        for record in block.get("queries", {}).values():
            record.pop("latency_ms", None)
            record.pop("latency_shared", None)
    return report


def e2e_junit_properties(path: Path) -> dict[str, dict[str, str]]:
    """testcase ``classname::name`` -> {property name: value} from a JUnit XML file."""
    root = ET.parse(path).getroot()
    out: dict[str, dict[str, str]] = {}
    for case in root.iter("testcase"):
        key = f"{case.get('classname')}::{case.get('name')}"
        props = {p.get("name", ""): p.get("value", "") for p in case.iter("property")}
        out[key] = props
    return out


def e2e_junit_cases(path: Path) -> dict[str, str]:
    """testcase ``classname::name`` -> outcome (passed, failure, error, skipped)."""
    root = ET.parse(path).getroot()
    out: dict[str, str] = {}
    for case in root.iter("testcase"):
        key = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = tag
        out[key] = outcome
    return out


# --------------------------------------------------------------------------- reference metrics
# An independent, deliberately plain implementation of CONTRACT §3 (exponential gain,
# threshold 1, abstain), used to compute what the plugin's numbers must be.


def e2e_dedupe(ids: Sequence[str]) -> list[str]:
    out: list[str] = []
    for doc in ids:
        if doc not in out:
            out.append(doc)
    return out


def e2e_metric(
    name: str, ranked: Sequence[str], judgments: Mapping[str, int], empty: str = "abstain"
) -> float | None:
    ranking = e2e_dedupe(ranked)
    relevant = {d for d, g in judgments.items() if g >= 1}
    if not relevant:
        return {
            "abstain": 0.0 if ranking else 1.0,
            "one": 1.0,
            "zero": 0.0,
            "skip": None,
        }[empty]
    base, _, cut = name.partition("@")
    k = int(cut) if cut else None
    top = ranking if k is None else ranking[:k]
    if base == "ndcg":
        dcg = sum(
            (2 ** judgments.get(d, 0) - 1) / math.log2(r + 1) for r, d in enumerate(top, start=1)
        )
        grades = sorted((g for g in judgments.values() if g > 0), reverse=True)
        grades = grades if k is None else grades[:k]
        ideal = sum((2**g - 1) / math.log2(r + 1) for r, g in enumerate(grades, start=1))
        return dcg / ideal
    if base == "mrr":
        for r, d in enumerate(top, start=1):
            if d in relevant:
                return 1.0 / r
        return 0.0
    if base == "recall":
        return len([d for d in top if d in relevant]) / len(relevant)
    if base == "map":
        hits, total = 0, 0.0
        for r, d in enumerate(top, start=1):
            if d in relevant:
                hits += 1
                total += hits / r
        return total / len(relevant)
    raise AssertionError(f"no reference for {name}")


def e2e_expected_metrics(
    configuration: str,
    qid: str,
    metrics: Sequence[str] = tuple(E2E_METRICS),
    empty: str = "abstain",
) -> dict[str, float | None]:
    ranked = E2E_RANKINGS[configuration][qid]
    return {m: e2e_metric(m, ranked, E2E_JUDGMENTS[qid], empty) for m in metrics}


def e2e_mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return math.fsum(kept) / len(kept) if kept else None


def e2e_expected_summary(
    configuration: str,
    metrics: Sequence[str] = tuple(E2E_METRICS),
    empty: str = "abstain",
) -> dict[str, Any]:
    """{"all": {"n": .., metric: mean}, "categories": {name: {...}}} from the reference."""
    per_query = {q: e2e_expected_metrics(configuration, q, metrics, empty) for q in E2E_QUERY_IDS}

    def row(qids: list[str]) -> dict[str, Any]:
        return {"n": len(qids), **{m: e2e_mean([per_query[q][m] for q in qids]) for m in metrics}}

    categories = sorted(set(E2E_CATEGORIES.values()))
    return {
        "all": row(E2E_QUERY_IDS),
        "categories": {
            c: row([q for q in E2E_QUERY_IDS if E2E_CATEGORIES[q] == c]) for c in categories
        },
    }


def e2e_approx(value: Any, tolerance: float = 1e-12) -> Any:
    """A structure equal to ``value`` with every float compared to within ``tolerance``."""
    if isinstance(value, dict):
        return {k: e2e_approx(v, tolerance) for k, v in value.items()}
    if isinstance(value, list):
        return [e2e_approx(v, tolerance) for v in value]
    if isinstance(value, float):
        return pytest.approx(value, abs=tolerance)
    return value
