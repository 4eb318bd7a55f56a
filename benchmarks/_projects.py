"""What the benchmarks share: generated golden sets, throwaway projects, timed processes.

Not a benchmark itself. Every ``bench_*.py`` script (and ``plugin_scale.py``)
builds its project with these functions, so "10,000 generated queries" means the
same queries everywhere:

- query ``i`` has id ``q{i:06d}``, text ``generated query {i}``, the category
  ``CATEGORIES[i % 5]`` and (except ``no-result`` queries) four judged ids, three
  of them inside the top 20 of its ranking and one just below it;
- its ranking is :func:`ranking` (``RANKING_SOURCE``): a pure function of ``i``
  and the depth, distinct ids, no stored data. Conftests embed the same source,
  so a retriever holds nothing in memory and costs a few microseconds; the
  configuration at position ``p`` returns that ranking rotated by ``p``.

Processes are timed as wholes with ``os.wait4`` (wall time, user and system CPU,
peak resident set of the process and the children it reaped, as ``/usr/bin/time
-v`` reports them); variants run alternately (A B A B ...) and are compared on
medians.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the checkout's package, also for in-process parts
    sys.path.insert(0, str(ROOT))
CATEGORIES = ("exact-name", "paraphrase", "filtered", "no-result", "adversarial")
CONFIGURATIONS = ("bm25", "dense", "fused", "rerank", "hybrid")

RANKING_SOURCE = '''
DOCS = 5000
STEPS = (1, 3, 7, 9, 11, 13, 17, 19, 21, 23, 27, 29, 31, 33, 37, 39, 41, 43, 47, 49)


def ranking(i, depth=20, shift=0):
    """Query i's ranking: depth distinct ids (a stride through DOCS), rotated by shift."""
    start = (i * 7919) % DOCS
    step = STEPS[i % len(STEPS)]
    ids = [f"d{(start + j * step) % DOCS}" for j in range(depth)]
    return ids[shift:] + ids[:shift] if shift else ids
'''
_namespace: dict[str, object] = {}
exec(RANKING_SOURCE, _namespace)
ranking: Callable[..., list[str]] = _namespace["ranking"]  # type: ignore[assignment]

# Every measured pytest runs without the development environment's other plugins:
# pytest-randomly (reorders items), the cache, and hypothesis's plugin, which imports
# hypothesis at the end of every session (0.6 s of CPU here) whether or not a test
# used it: a cost of this environment, not of the plugin or of pytest.
BASE_ARGS = ("-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")


# --------------------------------------------------------------------------- golden sets


def golden_queries(n: int, seed: int = 1) -> Iterator[dict[str, object]]:
    """The n generated golden queries, as golden-file objects (see the module docstring)."""
    rng = random.Random(seed)
    for i in range(n):
        category = CATEGORIES[i % len(CATEGORIES)]
        relevant: dict[str, int] = {}
        if category != "no-result":
            top = ranking(i, 24)
            for position in (*rng.sample(range(20), 3), 20 + rng.randrange(4)):
                relevant[top[position]] = rng.randint(0, 3)
        yield {
            "id": f"q{i:06d}",
            "query": f"generated query {i}",
            "category": category,
            "relevant": relevant,
        }


def write_golden(path: Path, n: int, seed: int = 1) -> Path:
    """Write n generated queries as ``.jsonl`` (one object per line) or YAML, by suffix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        if path.suffix == ".jsonl":
            for query in golden_queries(n, seed):
                out.write(json.dumps(query) + "\n")
            return path
        out.write("queries:\n")
        for q in golden_queries(n, seed):
            relevant: dict[str, int] = q["relevant"]  # type: ignore[assignment]
            judged = ", ".join(f"{d}: {g}" for d, g in relevant.items())
            out.write(
                f"  - {{id: {q['id']}, query: {q['query']}, category: {q['category']}, "
                f"relevant: {{{judged}}}}}\n"
            )
    return path


def write_trec_run(path: Path, n: int, depth: int, tag: str) -> Path:
    """The generated rankings as a TREC run (``qid Q0 docno rank score tag``), scores
    falling with rank so every reader orders them alike."""
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            qid = f"q{i:06d}"
            out.writelines(
                f"{qid} Q0 {doc} {rank} {depth - rank + 1} {tag}\n"
                for rank, doc in enumerate(ranking(i, depth), start=1)
            )
    return path


# --------------------------------------------------------------------------- projects


def conftest_text(params: Sequence[str], body: str, head: str = "") -> str:
    """A conftest whose session fixture ``retriever`` has ``params`` and returns what
    ``body`` (the fixture's body, using ``shift``: the param's position) returns."""
    return (
        "import pytest\n"
        + textwrap.dedent(head)
        + RANKING_SOURCE
        + f"\nPARAMS = {list(params)!r}\n\n\n"
        + '@pytest.fixture(scope="session", params=PARAMS)\n'
        + "def retriever(request):\n"
        + "    shift = PARAMS.index(request.param)\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
        + "\n"
    )


PRECOMPUTED = """
def search(query):
    return ranking(int(query.id[1:]), DEPTH, shift)
return search
"""


def precomputed_conftest(params: Sequence[str], depth: int = 20) -> str:
    """A per-query retriever that costs nothing: the generated ranking of each query."""
    return conftest_text(params, PRECOMPUTED, head=f"DEPTH = {depth}\n")


def write_ini(root: Path, ini: Mapping[str, str] | None = None) -> None:
    lines = ["[pytest]", *(f"{key} = {value}" for key, value in (ini or {}).items())]
    (root / "pytest.ini").write_text("\n".join(lines) + "\n")


def write_project(
    root: Path,
    n: int,
    conftest: str,
    ini: Mapping[str, str] | None = None,
    golden: str = "golden/generated.yaml",
) -> Path:
    """A throwaway project: ``n`` generated queries in ``golden``, a conftest, a pytest.ini."""
    root.mkdir(parents=True, exist_ok=True)
    path = write_golden(root / golden, n)
    (root / "conftest.py").write_text(conftest)
    write_ini(root, ini)
    return path


TRIVIAL = """
import pytest


@pytest.fixture(scope="session", params={params!r})
def configuration(request):
    return request.param


@pytest.mark.parametrize("value", range({n}))
def test_trivial(configuration, value):
    pass
"""


def write_trivial(root: Path, n: int, configurations: int) -> None:
    """pytest's own reference: one test over n values x a session fixture's params."""
    root.mkdir(parents=True, exist_ok=True)
    params = [f"c{i}" for i in range(configurations)]
    (root / "test_trivial.py").write_text(TRIVIAL.format(params=params, n=n))
    write_ini(root)


# --------------------------------------------------------------------------- processes


@dataclass(frozen=True)
class Measured:
    """One whole process: wall seconds, CPU seconds, peak RSS (KiB), exit code, output."""

    wall: float
    user: float
    sys: float
    maxrss_kb: int
    returncode: int
    output: str

    @property
    def cpu(self) -> float:
        return self.user + self.sys

    @property
    def last_line(self) -> str:
        lines = self.output.strip().splitlines()
        return lines[-1] if lines else "(no output)"


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment with the repository first on PYTHONPATH and no CI integration."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra or {})
    return env


def run_process(
    cmd: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None, check: bool = True
) -> Measured:
    """Run one process to its end and measure it (``os.wait4``: its own rusage)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(cmd), cwd=cwd, env=child_env(env), stdout=out, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    done = Measured(wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss, proc.returncode, text)
    if check and done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{text[-3000:]}")
    return done


def pytest_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", *BASE_ARGS, *args]


def compile_package() -> None:
    """The checkout's bytecode written, as ``pip install`` writes an installed package's.

    A machine with ``PYTHONDONTWRITEBYTECODE`` set (this one) would otherwise compile
    the plugin's ~95 modules from source in every measured process: 0.25 s of each
    run's start that no installed copy pays. Run before any process is timed.
    """
    import compileall

    compileall.compile_dir(str(ROOT / "pytest_retrieval"), quiet=1)


def alternate(variants: Mapping[str, Callable[[], Measured]], pairs: int) -> dict[str, list]:
    """Run the variants in turn (A B A B ...), ``pairs`` rounds; each one's measurements
    (the package's bytecode compiled first: :func:`compile_package`)."""
    compile_package()
    found: dict[str, list] = {name: [] for name in variants}
    for round_ in range(pairs):
        for name, run in variants.items():
            found[name].append(run())
            print(f"  [{round_ + 1}/{pairs}] {name}: {describe(found[name][-1])}", flush=True)
    return found


def describe(m: object) -> str:
    if isinstance(m, Measured):
        return (
            f"wall {m.wall:.2f} s, cpu {m.cpu:.2f} s, peak {m.maxrss_kb / 1024:.0f} MiB"
            f" | {m.last_line[:90]}"
        )
    return f"{m:.4f} s" if isinstance(m, float) else str(m)


def median(values: Sequence[object], attribute: str | None = None) -> float:
    numbers = [getattr(v, attribute) if attribute else v for v in values]
    return float(statistics.median(numbers))  # type: ignore[type-var]


def timed(function: Callable[[], object]) -> float:
    """Seconds one in-process call takes."""
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def stripped(path: Path) -> dict:
    """A JSON report's configurations without their latency fields (machine-dependent)
    and the kind of retriever called (a replay calls none)."""
    configurations = json.loads(path.read_text())["configurations"]
    for block in configurations.values():
        block.pop("latency", None)
        block.pop("retriever_kind", None)
        for query in block["queries"].values():
            query.pop("latency_ms", None)
            query.pop("latency_shared", None)
    return configurations


# --------------------------------------------------------------------------- output


def verdict(ratio: float, target: float, higher_is_better: bool) -> str:
    met = ratio >= target if higher_is_better else ratio <= target
    return "met" if met else "MISSED"


def row(label: str, ours: str, reference: str, ratio: float, target: str, met: str) -> str:
    return f"{label:<34} {ours:>14} {reference:>14} {ratio:>8.2f}x  {target:<14} {met}"


def header(title: str) -> None:
    print(f"\n{title}")
    print(f"{'':<34} {'ours':>14} {'reference':>14} {'ratio':>9}  {'target':<14} result")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def parser(doc: str | None) -> argparse.ArgumentParser:
    """The options every benchmark takes: --quick, --pairs, --profile."""
    lines = (doc or "").strip().splitlines()
    out = argparse.ArgumentParser(
        description=lines[0] if lines else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(lines[1:]),
    )
    out.add_argument("--quick", action="store_true", help="small sizes: a check that it runs")
    out.add_argument("--pairs", type=int, default=3, help="A B rounds per comparison (3)")
    out.add_argument(
        "--profile", metavar="DIR", help="also run our side once under cProfile, into DIR"
    )
    return out


def profile_pytest(args: Sequence[str], cwd: Path, out: Path, top: int = 25) -> None:
    """Run ``pytest args`` once under cProfile into ``out``; print the top functions."""
    cmd = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "pytest", *BASE_ARGS, *args]
    done = run_process(cmd, cwd)
    print(f"\nprofile of pytest {' '.join(args)} ({describe(done)}): {out}")
    print_profile(out, top)


def print_profile(path: Path, top: int = 25) -> None:
    import pstats

    for order in ("cumulative", "tottime"):
        print(f"-- top {top} by {order}")
        stats = pstats.Stats(str(path), stream=sys.stdout)
        stats.strip_dirs().sort_stats(order).print_stats(top)
