"""End-to-end tests of the baseline and the regression gate (CONTRACT §5).

Each test builds a small project with ``pytester``: three categories (lexical,
paraphrase, adversarial) of four queries each, in two golden files, with graded
judgments (``<id>-main`` 3, ``<id>-alt`` 2, ``<id>-low`` 1, ``<id>-off`` 0), and a
``retriever`` fixture parametrized ``bm25`` / ``fused``.

The retriever's quality is controlled from outside: the conftest reads
``plan.json`` in the project directory, which maps a configuration (or ``*``) and a
query id (or ``@category``) to a *mode*, a ranking pattern (see ``MODES``). The
default is ``perfect`` (every metric 1.0). Because the plan is a file, it reaches
in-process runs and ``-n 2`` subprocesses alike. Expected numbers are computed
here with a plain reference implementation of the metrics (exponential gain), so
every assertion on a gate row is an exact value, not a "something dropped".

How the modes move the metrics (one query; ideal DCG = 7 + 3/log2(3) + 1/2):

============  ================================  ========  =====  =========
mode          ranking (then 25 noise ids)       ndcg@10   mrr    recall@20
============  ================================  ========  =====  =========
perfect       main alt low off                  1.0       1.0    1.0
miss          (noise only)                      0.0       0.0    0.0
swap          alt main low off                  0.843     1.0    1.0
nudge         main low alt off                  0.972     1.0    1.0
lowfirst      low main alt off                  0.736     1.0    1.0
late          noise-00 main alt low off         0.676     0.5    1.0
============  ================================  ========  =====  =========

So ``swap`` is an nDCG-only drop of 0.157 (a category of 4 drops 0.039 > 0.02, the
overall mean of 12 only 0.013 <= 0.02), ``nudge`` a drop of 0.028 (two nudged
queries: 0.014 per category, within the default tolerance; three: 0.021, not),
and ``lowfirst`` -> ``late`` an MRR drop of 0.5 whose nDCG drop (0.061, 0.015 per
category) stays within 0.02.
"""

from __future__ import annotations

import datetime
import inspect
import json
import math
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import pytest_retrieval
from pytest_retrieval.io import atomic

# --------------------------------------------------------------------------- the project

CATEGORIES: dict[str, list[str]] = {
    "lexical": ["lex-1", "lex-2", "lex-3", "lex-4"],
    "paraphrase": ["para-1", "para-2", "para-3", "para-4"],
    "adversarial": ["adv-1", "adv-2", "adv-3", "adv-4"],
}
CATEGORY_OF = {qid: cat for cat, ids in CATEGORIES.items() for qid in ids}
QUERY_IDS = sorted(CATEGORY_OF)
FILES = {
    "golden/core.yaml": CATEGORIES["lexical"] + CATEGORIES["paraphrase"],
    "golden/adversarial.yaml": CATEGORIES["adversarial"],
}
CONFIGS = ["bm25", "fused"]
METRICS = ["ndcg@10", "mrr", "recall@20"]
GRADES = {"main": 3, "alt": 2, "low": 1, "off": 0}
SETTINGS = {
    "metrics": METRICS,
    "gain": "exponential",
    "relevance_threshold": 1,
    "max_grade": 3,
    "empty": "abstain",
}
UPDATE = "pytest --retrieval-eval --retrieval-update-baseline"
BASELINE = "golden/baseline.json"
GATE = "retrieval-gate"
N_ITEMS = len(QUERY_IDS) * len(CONFIGS)

NOISE = [f"noise-{i:02d}" for i in range(1, 26)]
MODES: dict[str, list[str]] = {
    "perfect": ["main", "alt", "low", "off"],
    "miss": [],
    "swap": ["alt", "main", "low", "off"],
    "nudge": ["main", "low", "alt", "off"],
    "lowfirst": ["low", "main", "alt", "off"],
    "late": ["noise-00", "main", "alt", "low", "off"],
}

Plan = Mapping[str, Mapping[str, Any]]


def ranking(qid, mode):  # type: ignore[no-untyped-def]  # copied into the conftest
    tokens = MODES[mode] if isinstance(mode, str) else mode
    return [t if t.startswith("noise") else f"{qid}-{t}" for t in tokens] + NOISE


def mode_for(plan, configuration, qid, category):  # type: ignore[no-untyped-def]  # copied too
    for key in (qid, "@" + category):
        for scope in (configuration, "*"):
            if key in plan.get(scope, {}):
                return plan[scope][key]
    return "perfect"


CONFTEST = "\n".join(
    [
        "import json",
        "import os",
        "import signal",
        "from pathlib import Path",
        "",
        "import pytest",
        "",
        f"NOISE = {NOISE!r}",
        f"MODES = {MODES!r}",
        "",
        "",
        inspect.getsource(ranking),
        "",
        inspect.getsource(mode_for),
        "",
        "# A real crash in the middle of an update: die (SIGKILL, no cleanup can run)",
        "# once the baseline's temporary file is written and about to be fsynced.",
        'if os.environ.get("E2E_GATE_KILL_ON_FSYNC"):',
        "    _fsync = os.fsync",
        "",
        "    def _die(fd):",
        '        if ".baseline.json." in os.readlink(f"/proc/self/fd/{fd}"):',
        "            os.kill(os.getpid(), signal.SIGKILL)",
        "        _fsync(fd)",
        "",
        "    os.fsync = _die",
        "",
        "",
        '@pytest.fixture(params=["bm25", "fused"])',
        "def retriever(request):",
        '    path = Path(__file__).parent / "plan.json"',
        "    plan = json.loads(path.read_text()) if path.exists() else {}",
        "",
        "    def search(query):",
        "        assert query.text",
        "        mode = mode_for(plan, request.param, query.id, query.category)",
        "        return ranking(query.id, mode)",
        "",
        "    return search",
        "",
    ]
)

INI_METRICS = "retrieval_metrics = ndcg@10 mrr recall@20"


def judgments(qid: str) -> dict[str, int]:
    return {f"{qid}-{suffix}": grade for suffix, grade in GRADES.items()}


def golden_text(ids: Sequence[str], overrides: Mapping[str, Mapping[str, Any]]) -> str:
    lines = ["queries:"]
    for qid in ids:
        query = {
            "query": f"{CATEGORY_OF.get(qid, 'lexical')} question number {qid}",
            "category": CATEGORY_OF.get(qid, "lexical"),
            "relevant": judgments(qid),
            **overrides.get(qid, {}),
        }
        lines += [
            f"  - id: {qid}",
            f"    query: {query['query']}",
            f"    category: {query['category']}",
            "    relevant:",
        ]
        lines += [f"      {doc}: {grade}" for doc, grade in query["relevant"].items()]
        if "expect" in query:
            lines.append(f"    expect: {json.dumps(query['expect'])}")
    return "\n".join(lines) + "\n"


def write_golden(
    pytester: pytest.Pytester,
    files: Mapping[str, Sequence[str]] = FILES,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> None:
    for rel, ids in files.items():
        path = pytester.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(golden_text(ids, overrides or {}), encoding="utf-8")


def write_ini(pytester: pytest.Pytester, *extra: str) -> None:
    """pytest.ini: the golden folder, the metrics (unless ``extra`` sets them), ``extra``."""
    # few bootstrap resamples: the statistics are not under test here, and 10000 per
    # row make each run ~10x slower
    lines = ["[pytest]", "retrieval_golden = golden", "retrieval_bootstrap = 200"]
    if not any(line.startswith("retrieval_metrics") for line in extra):
        lines.append(INI_METRICS)
    pytester.makefile(".ini", pytest="\n".join([*lines, *extra, ""]))


def set_plan(pytester: pytest.Pytester, plan: Plan) -> None:
    (pytester.path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # a wide terminal: the gate's lines are checked unwrapped here (test_e2e_output.py
    # checks them at 80 columns)
    monkeypatch.setenv("COLUMNS", "200")
    write_ini(pytester)
    pytester.makeconftest(CONFTEST)
    write_golden(pytester)
    return pytester


# --------------------------------------------------------------------------- running


class Run:
    """One pytest run of the project, with its terminal text, JSON report and JUnit XML."""

    def __init__(self, result: pytest.RunResult, root: Path):
        self.result = result
        self.ret = result.ret
        self.text = result.stdout.str()
        self.lines = result.outlines
        report = root / "report.json"
        self.report: dict[str, Any] | None = (
            json.loads(report.read_text(encoding="utf-8")) if report.exists() else None
        )
        junit = root / "junit.xml"
        self.junit = ET.parse(junit).getroot() if junit.exists() else None

    @property
    def gate(self) -> dict[str, Any]:
        assert self.report is not None, self.text
        return self.report["gate"]  # type: ignore[no-any-return]

    def gate_cases(self) -> list[ET.Element]:
        assert self.junit is not None
        return [c for c in self.junit.iter("testcase") if c.get("name") == GATE]

    def gate_case(self) -> ET.Element:
        cases = self.gate_cases()
        assert len(cases) == 1, [c.attrib for c in cases]
        return cases[0]

    def gate_failure(self) -> str | None:
        """The gate testcase's failure message, None when it passed."""
        failure = self.gate_case().find("failure")
        return None if failure is None else failure.get("message", "")

    def item_outcomes(self) -> dict[str, str]:
        """Every golden item's outcome, from the JSON report: 'config/id' -> outcome."""
        assert self.report is not None, self.text
        return {
            f"{c}/{q}": entry["outcome"]
            for c, block in self.report["configurations"].items()
            for q, entry in block["queries"].items()
        }

    def all_items_passed(self) -> None:
        assert self.item_outcomes() == {f"{c}/{q}": "passed" for c in CONFIGS for q in QUERY_IDS}
        assert self.junit is not None
        items = [c for c in self.junit.iter("testcase") if c.get("name") != GATE]
        assert len(items) == N_ITEMS
        for case in items:
            assert [child.tag for child in case if child.tag != "properties"] == [], case.attrib


def run(pytester: pytest.Pytester, *args: str, subprocess_run: bool = False) -> Run:
    for name in ("report.json", "junit.xml"):
        (pytester.path / name).unlink(missing_ok=True)
    argv = (
        "--retrieval-eval",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",  # its import makes every xdist worker seconds slower
        "--junitxml=junit.xml",
        "--retrieval-report=report.json",
        *args,
    )
    if subprocess_run:
        result = pytester.runpytest_subprocess(*argv, timeout=60)
    else:
        # a KeyboardInterrupt inside the run must end that run, not this session
        result = pytester.runpytest_inprocess(*argv, no_reraise_ctrlc=True)
    return Run(result, pytester.path)


def update(pytester: pytest.Pytester, *args: str) -> Run:
    done = run(pytester, "--retrieval-update-baseline", *args)
    assert done.ret == 0, done.text
    return done


def baseline_path(pytester: pytest.Pytester) -> Path:
    return pytester.path / BASELINE


_BASELINES: dict[tuple[str, ...], str] = {}


def baselined(pytester: pytest.Pytester) -> None:
    """A baseline of the project as it stands, as ``update`` writes it.

    Tests whose subject is the gate, not the update, share one update run per
    project state (golden files, ini, conftest, and the files the conftest reads: the
    plan, the retrievers' metadata): the file is the same but for its creation time,
    which no gate reads. (The metadata was left out of this key once: a baseline
    written with a retriever's metadata was handed to later tests without it, which then
    failed on a retriever change, depending on the order xdist ran them in.)
    """
    files = sorted((pytester.path / "golden").glob("*.yaml"))
    parts = [p.read_text(encoding="utf-8") for p in (pytester.path / "pytest.ini", *files)]
    key = (*parts, *(str(p.relative_to(pytester.path)) for p in files))
    for name in ("conftest.py", "plan.json", "metadata.json"):
        read = pytester.path / name
        key += (read.read_text(encoding="utf-8") if read.exists() else "",)
    if key not in _BASELINES:
        update(pytester)
        _BASELINES[key] = baseline_path(pytester).read_text(encoding="utf-8")
        return
    baseline_path(pytester).write_text(_BASELINES[key], encoding="utf-8")


# --------------------------------------------------------------------------- expectations


def ref_metrics(qid: str, mode: Any) -> dict[str, float]:
    """ndcg@10 (exponential gain), mrr, recall@20 of one query, computed plainly."""
    judged = judgments(qid)
    ranked = ranking(qid, mode)
    relevant = {d for d, g in judged.items() if g >= 1}

    def dcg(gains: Sequence[int]) -> float:
        return sum((2**g - 1) / math.log2(r + 1) for r, g in enumerate(gains, start=1))

    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:10])
    first = next((r for r, d in enumerate(ranked, start=1) if d in relevant), None)
    return {
        "ndcg@10": dcg([judged.get(d, 0) for d in ranked[:10]]) / ideal,
        "mrr": 0.0 if first is None else 1.0 / first,
        "recall@20": len([d for d in ranked[:20] if d in relevant]) / len(relevant),
    }


def ref_mean(plan: Plan, configuration: str, category: str, metric: str) -> float:
    ids = QUERY_IDS if category == "all" else CATEGORIES[category]
    values = [ref_metrics(q, mode_for(plan, configuration, q, CATEGORY_OF[q]))[metric] for q in ids]
    return math.fsum(values) / len(values)


def rows_by_key(gate: Mapping[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    out = {}
    for row in gate["rows"]:
        key = (row["configuration"], row["category"], row["metric"])
        assert key not in out, key
        out[key] = row
    return out


def breached_keys(gate: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    return {k for k, row in rows_by_key(gate).items() if row["breached"]}


def all_keys(
    configs: Sequence[str] = CONFIGS,
    categories: Sequence[str] = ("all", *CATEGORIES),
    metrics: Sequence[str] = METRICS,
) -> set[tuple[str, str, str]]:
    return {(c, cat, m) for c in configs for cat in categories for m in metrics}


def check_rows(
    gate: Mapping[str, Any],
    base_plan: Plan,
    plan: Plan,
    allowed: Mapping[str, float] | None = None,
) -> None:
    """Every row's baseline, current and delta equal the reference values."""
    for (c, cat, m), row in rows_by_key(gate).items():
        before, after = ref_mean(base_plan, c, cat, m), ref_mean(plan, c, cat, m)
        assert row["baseline"] == pytest.approx(before, abs=1e-12), (c, cat, m)
        assert row["current"] == pytest.approx(after, abs=1e-12), (c, cat, m)
        assert row["delta"] == pytest.approx(after - before, abs=1e-12), (c, cat, m)
        limit = (allowed or {}).get(m, 0.02)
        assert row["allowed"] == pytest.approx(limit, abs=1e-12), (c, cat, m)
        assert row["breached"] is (after - before < -limit), (c, cat, m)
        n = len(QUERY_IDS) if cat == "all" else len(CATEGORIES[cat])
        assert row["n"] == n, (c, cat, m)


def assert_passed(done: Run) -> None:
    assert done.ret == 0, done.text
    assert done.gate["verdict"] == "passed"
    assert "retrieval gate: PASSED (baseline golden/baseline.json, tolerance " in done.text
    assert done.gate_failure() is None
    assert "retrieval gate: FAILED" not in done.text


def assert_failed(done: Run) -> None:
    assert done.ret == 1, done.text
    assert done.gate["verdict"] == "failed"
    assert "retrieval gate: FAILED (baseline golden/baseline.json, tolerance " in done.text
    assert done.gate_failure()


def gate_lines(done: Run) -> list[str]:
    """The gate's lines in the terminal summary (not the FAILURES section's copy)."""
    section = max(i for i, line in enumerate(done.lines) if "retrieval evaluation" in line)
    start = next(
        i for i in range(section, len(done.lines)) if done.lines[i].startswith("retrieval gate:")
    )
    end = next(
        (
            i
            for i in range(start, len(done.lines))
            if done.lines[i].startswith(("retrieval report written", "=="))
        ),
        len(done.lines),
    )
    return done.lines[start:end]


def breach_table(lines: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """The header words and the rows (split on whitespace) of the table of breaches."""
    head = next(i for i, line in enumerate(lines) if line.startswith("configuration "))
    assert set(lines[head + 1]) <= {"-", " "}
    rows = []
    for line in lines[head + 2 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return lines[head].split(), rows


# --------------------------------------------------------------------------- writing


def test_update_writes_a_complete_sorted_one_line_per_query_baseline(project: pytest.Pytester):
    done = update(project)
    assert "retrieval baseline written: golden/baseline.json (bm25: 12, fused: 12 queries)" in (
        done.lines
    )
    assert "retrieval gate:" not in done.text  # an update does not gate
    assert done.report is not None and "gate" not in done.report
    assert done.gate_cases() == []
    done.all_items_passed()

    text = baseline_path(project).read_text(encoding="utf-8")
    orders: list[list[str]] = []
    data = json.loads(
        text, object_pairs_hook=lambda pairs: orders.append([k for k, _ in pairs]) or dict(pairs)
    )
    # stable key order: a fixed order at the top and in each configuration block, every
    # other mapping sorted
    assert list(data) == ["format", "version", "settings", "provenance", "configurations"]
    for keys in orders:
        if keys not in (list(data), ["summary", "queries"]):
            assert keys == sorted(keys), keys
    assert data["format"] == "pytest-retrieval-baseline"
    assert data["version"] == 1
    assert data["settings"] == SETTINGS
    provenance = data["provenance"]
    assert sorted(provenance) == ["created", "git_commit", "plugin"]
    assert provenance["plugin"] == f"pytest-retrieval {pytest_retrieval.__version__}"
    assert provenance["git_commit"] is None  # the pytester directory is not a git checkout
    created = datetime.datetime.fromisoformat(provenance["created"])
    assert created.tzinfo is not None
    assert abs(datetime.datetime.now(datetime.timezone.utc) - created).total_seconds() < 120

    assert list(data["configurations"]) == CONFIGS
    fingerprints: dict[str, str] = {}
    for configuration in CONFIGS:
        block = data["configurations"][configuration]
        assert block["summary"]["all"] == {"n": 12, "ndcg@10": 1.0, "mrr": 1.0, "recall@20": 1.0}
        assert block["summary"]["categories"] == {
            cat: {"n": 4, "ndcg@10": 1.0, "mrr": 1.0, "recall@20": 1.0}
            for cat in sorted(CATEGORIES)
        }
        assert list(block["queries"]) == QUERY_IDS
        for qid, entry in block["queries"].items():
            path = next(p for p, ids in FILES.items() if qid in ids)
            assert entry == {
                "category": CATEGORY_OF[qid],
                "fingerprint": entry["fingerprint"],
                "grades": dict(sorted(judgments(qid).items())),
                "metrics": {"ndcg@10": 1.0, "mrr": 1.0, "recall@20": 1.0},
                "outcome": "passed",
                "path": path,
                "retrieved": ranking(qid, "perfect")[:20],
                "tags": [],
            }
            assert fingerprints.setdefault(qid, entry["fingerprint"]) == entry["fingerprint"]
    assert len(set(fingerprints.values())) == len(QUERY_IDS)  # text and judgments differ

    # one line per query: each entry is exactly one line of the file, parseable on its own
    lines = text.splitlines()
    for configuration in CONFIGS:
        for qid in QUERY_IDS:
            mine = [line for line in lines if line.lstrip().startswith(f'"{qid}": {{')]
            assert len(mine) == len(CONFIGS), (qid, mine)
            entries = [json.loads(line.split(": ", 1)[1].rstrip(",")) for line in mine]
            assert data["configurations"][configuration]["queries"][qid] in entries
    assert sum('"fingerprint"' in line for line in lines) == N_ITEMS
    assert text.endswith("}\n")

    # stable: the same run again writes the same file but for its creation time
    update(project)
    again = baseline_path(project).read_text(encoding="utf-8").splitlines()
    differ = [i for i, (a, b) in enumerate(zip(lines, again, strict=True)) if a != b]
    assert all(lines[i].lstrip().startswith('"provenance"') for i in differ), differ
    assert sorted(p.name for p in (project.path / "golden").iterdir()) == [
        "adversarial.yaml",
        "baseline.json",
        "core.yaml",
    ]


def test_an_update_that_moves_nothing_leaves_the_file_as_it_is(project: pytest.Pytester):
    """A second update over the same numbers rewrote the file with a new time (and commit),
    a diff to review after every update though nothing moved."""
    update(project)
    path = baseline_path(project)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["provenance"]["created"] = "2026-01-01T00:00:00+00:00"
    path.write_text(json.dumps(data), encoding="utf-8")  # an older update, formatted otherwise
    before = path.read_text(encoding="utf-8")
    done = update(project)
    assert (
        "retrieval baseline unchanged: golden/baseline.json (bm25: 12, fused: 12 queries as "
        "recorded): not rewritten, its provenance (time, commit) kept"
    ) in " ".join(" ".join(done.lines).split())
    assert path.read_text(encoding="utf-8") == before
    set_plan(project, {"bm25": {"lex-1": "swap"}})
    done = update(project)
    assert "retrieval baseline written: golden/baseline.json (bm25: 12, fused: 12 queries)" in (
        done.lines
    )
    assert json.loads(path.read_text(encoding="utf-8"))["provenance"]["created"] != (
        "2026-01-01T00:00:00+00:00"
    )


def test_an_update_over_a_degraded_run_shows_what_it_accepts(project: pytest.Pytester):
    baselined(project)
    set_plan(project, DEGRADED)
    done = update(project)
    moved = [line for line in done.lines if "means over every baselined query" in line]
    assert len(moved) == 1, done.text
    assert moved[0].startswith(
        "  means over every baselined query, before -> after: fused mrr 1.000 -> 0.833 (-0.167)"
    ), moved


def test_an_update_after_a_metric_change_shows_the_moves_of_the_metrics_both_have(
    project: pytest.Pytester,
):
    """An update after a metric was added said only that the previous baseline "was
    replaced": the drop it accepted on the metrics both baselines have went unseen."""
    baselined(project)
    set_plan(project, DEGRADED)
    write_ini(project, "retrieval_metrics = ndcg@10 mrr map")
    done = update(project)
    said = [line for line in done.lines if line.startswith("  ")]
    assert (
        "  the previous baseline had other settings and was replaced: metrics added: 'map'; "
        "metrics dropped: 'recall@20'"
    ) in said, done.text
    moved = [line for line in said if "means over every baselined query" in line]
    assert len(moved) == 1 and moved[0].startswith(
        "  means over every baselined query, before -> after: fused mrr 1.000 -> 0.833 (-0.167)"
    ), done.text
    assert "map" not in moved[0] and "recall@20" not in moved[0]
    # another gain too: the means are not comparable, and the update says so
    write_ini(project, "retrieval_metrics = ndcg@10 mrr", "retrieval_gain = linear")
    done = update(project)
    said = [line for line in done.lines if line.startswith("  ")]
    assert (
        "  the previous baseline had other settings and was replaced: gain: baseline "
        "'exponential', this run 'linear'; metrics dropped: 'map'"
    ) in said, done.text
    assert (
        "  means not compared with the previous baseline's: numbers made under another gain "
        "are not comparable"
    ) in said, done.text
    assert not any("means over every baselined query" in line for line in said)


def test_baseline_file_gets_ordinary_permissions(project: pytest.Pytester):
    """The baseline is a file to commit and share: readable as any file the user writes.

    The atomic write goes through a temporary file; its private mode (0600 from
    ``mkstemp``) must not become the baseline's.
    """
    ordinary = project.path / "golden" / "ordinary.txt"
    ordinary.write_text("x", encoding="utf-8")
    expected = ordinary.stat().st_mode & 0o777
    ordinary.unlink()
    update(project)
    assert oct(baseline_path(project).stat().st_mode & 0o777) == oct(expected)


def test_update_records_the_git_commit(project: pytest.Pytester):
    git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "golden set"]):
        subprocess.run([*git, *cmd], cwd=project.path, check=True, env=env)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        cwd=project.path,
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    update(project)
    data = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    assert data["provenance"]["git_commit"] == head
    assert len(head) == 40


# --------------------------------------------------------------------------- gating


def test_no_change_passes(project: pytest.Pytester):
    baselined(project)
    done = run(project)
    assert_passed(done)
    assert (
        "retrieval gate: PASSED (baseline golden/baseline.json, tolerance 0.02, mode absolute)"
        in done.lines
    )
    done.all_items_passed()
    done.result.assert_outcomes(passed=N_ITEMS + 1)  # the items and the gate
    case = done.gate_case()
    assert case.find("failure") is None and case.find("error") is None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    counts = {f"{c}.{k}": "0" for c in CONFIGS for k in ("improved", "degraded")}
    counts |= {f"{c}.unchanged": str(len(QUERY_IDS)) for c in CONFIGS}
    assert props == {"verdict": "passed", "baseline": BASELINE, "mode": "absolute", **counts}
    gate = done.gate
    assert gate["baseline"] == BASELINE
    assert set(rows_by_key(gate)) == all_keys()
    assert len(gate["rows"]) == 2 * 4 * 3
    check_rows(gate, {}, {})
    assert all(row["delta"] == 0.0 and row["worst_queries"] == [] for row in gate["rows"])
    assert (gate["added"], gate["removed"], gate["changed"]) == ([], [], [])


DEGRADED: Plan = {"fused": {"lex-2": "miss", "lex-3": "miss"}}


def expected_worst(qid: str, k: int) -> dict[str, Any]:
    old_top = ranking(qid, "perfect")[:k]
    new_top = ranking(qid, "miss")[:k]
    lost = [d for d in old_top if d not in new_top]
    gained = [d for d in new_top if d not in old_top]
    return {
        "id": qid,
        "baseline": 1.0,
        "current": 0.0,
        "lost": lost,
        "gained": gained,
        "grades": {d: judgments(qid)[d] for d in lost},
        "moved": [],
        "k": k,
        "category": CATEGORY_OF[qid],
        "dropped_on": {metric: [1.0, 0.0] for metric in METRICS},  # a miss: every one
    }


def test_degraded_category_fails_although_every_item_passed(project: pytest.Pytester):
    baselined(project)
    set_plan(project, DEGRADED)
    done = run(project)
    assert_failed(done)
    done.all_items_passed()
    done.result.assert_outcomes(passed=N_ITEMS, failed=1)

    gate = done.gate
    assert set(rows_by_key(gate)) == all_keys()  # every comparison row, not just the breaches
    assert breached_keys(gate) == all_keys(["fused"], ["all", "lexical"])
    check_rows(gate, {}, DEGRADED)
    rows = rows_by_key(gate)
    assert rows["fused", "lexical", "ndcg@10"]["current"] == 0.5
    assert rows["fused", "all", "mrr"]["delta"] == pytest.approx(-2 / 12)
    for key, row in rows.items():
        if not row["breached"]:
            assert row["worst_queries"] == [], key
            continue
        k = 10 if key[2] == "ndcg@10" else 20  # mrr has no cut: the kept depth, 20
        assert row["worst_queries"] == [expected_worst("lex-2", k), expected_worst("lex-3", k)]
    worst = rows["fused", "lexical", "ndcg@10"]["worst_queries"][0]
    assert worst["lost"] == ["lex-2-main", "lex-2-alt", "lex-2-low", "lex-2-off"]
    assert worst["gained"] == ["noise-07", "noise-08", "noise-09", "noise-10"]
    assert gate["added"] == gate["removed"] == gate["changed"] == []

    # the terminal: verdict, the table of breaches, the worst queries
    lines = gate_lines(done)
    assert lines[0] == (
        "retrieval gate: FAILED (baseline golden/baseline.json, tolerance 0.02, mode absolute)"
    )
    header, table = breach_table(lines)
    assert header[:7] == [
        "configuration",
        "category",
        "metric",
        "n",
        "baseline",
        "current",
        "delta",
    ]
    assert header[7] == "allowed" and header[-4:] == ["95%", "interval", "p", "(Holm)"]
    expected_table = [
        ["fused", "all", "ndcg@10", "12", "1.000", "0.833", "-0.167"],
        ["fused", "all", "mrr", "12", "1.000", "0.833", "-0.167"],
        ["fused", "all", "recall@20", "12", "1.000", "0.833", "-0.167"],
        ["fused", "lexical", "ndcg@10", "4", "1.000", "0.500", "-0.500"],
        ["fused", "lexical", "mrr", "4", "1.000", "0.500", "-0.500"],
        ["fused", "lexical", "recall@20", "4", "1.000", "0.500", "-0.500"],
    ]
    assert [row[:7] for row in table] == expected_table
    assert all(row[7] == "0.020" for row in table)
    # the worst queries, once each, with every metric they dropped on
    lex2 = [
        "  fused lex-2 (lexical): ndcg@10 1.000 -> 0.000, mrr 1.000 -> 0.000, "
        "recall@20 1.000 -> 0.000",
        "    top 10: lost lex-2-main (3), lex-2-alt (2), lex-2-low (1), lex-2-off (0); gained "
        "noise-07 (-), noise-08 (-), noise-09 (-), noise-10 (-)",
    ]
    block = next(i for i, line in enumerate(lines) if line.startswith("queries that dropped most"))
    lex3 = [line.replace("lex-2", "lex-3") for line in lex2]
    assert lines[block + 1 : block + 5] == [*lex2, *lex3]
    assert sum(line.startswith("  fused lex-") for line in lines) == 2
    assert not any("more degraded" in line for line in lines)  # both are named
    # the last words say what to do when the drop is meant
    assert " ".join(" ".join(lines).split()).endswith(
        "if these drops are intended, run `pytest --retrieval-eval "
        "--retrieval-update-baseline` and commit the baseline"
    )
    # a degraded query the list leaves out is counted, not silently missing
    one = " ".join(" ".join(gate_lines(run(project, "--retrieval-diff", "1"))).split())
    assert "fused lex-3" not in one
    assert "fused: 1 more degraded query not named here (on rows within the tolerance" in one
    # none named (N = 0): they are still counted (the explanation said nothing of them)
    none = " ".join(" ".join(gate_lines(run(project, "--retrieval-diff", "0"))).split())
    assert "queries that dropped most" not in none
    assert "fused: 2 degraded queries not named here (on rows within the tolerance" in none
    # under -q only the verdict is printed below: the failure says where the rest is
    quiet = " ".join(run(project, "-q").text.split())
    assert "run without -q for the gate's explanation" in quiet

    # the pages: the explanation wrapped at 100 columns, the same words as the terminal's
    again = run(project, "--retrieval-report=report.md")
    page = (project.path / "report.md").read_text(encoding="utf-8")
    explained = page.split("### the gate's explanation", 1)[1].split("```")[1].splitlines()
    assert explained and max(map(len, explained)) <= 100
    assert any(len(line) > 100 for line in gate_lines(again))  # the terminal here is wider
    assert " ".join(explained).split()[-20:] == " ".join(lines).split()[-20:]

    # JUnit: the gate testcase fails; its text is the whole explanation
    case = done.gate_case()
    failure = case.find("failure")
    assert failure is not None and failure.text is not None
    report = failure.text.splitlines()
    assert report[0] == lines[0]
    assert [row[:7] for row in breach_table(report)[1]] == expected_table
    assert lex2[1] in report and lex3[1] in report
    assert " ".join(report).split()[-20:] == " ".join(lines).split()[-20:]  # the same end
    assert (
        "p (Holm) is corrected across all 24 gated rows; 3 breached rows have fewer than 10 "
        "queries, and a row of so few can never be significant after that, even with an "
        "interval clear of 0. In absolute mode the tolerance fails a row, not p"
    ) in failure.text
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props.pop("fused.degraded") == "2"  # lex-2 and lex-3 missed everything
    assert props.pop("fused.unchanged") == str(len(QUERY_IDS) - 2)
    assert props == {
        "verdict": "failed", "baseline": BASELINE, "mode": "absolute", "fused.improved": "0",
        "bm25.improved": "0", "bm25.degraded": "0", "bm25.unchanged": str(len(QUERY_IDS)),
    }  # fmt: skip


def test_junit_gate_message_names_the_breached_category_and_worst_queries(
    project: pytest.Pytester,
):
    """The ``message`` attribute (what CI shows first) names what broke.

    pytest >= 9 keeps only the first ~500 characters of a failure's text in
    ``message``; the explanation must therefore say what broke up front.
    """
    baselined(project)
    set_plan(project, DEGRADED)
    done = run(project)
    assert_failed(done)
    message = done.gate_failure()
    assert message is not None
    assert message.startswith("retrieval gate: FAILED")
    assert "lexical" in message
    assert "lex-2" in message and "lex-3" in message


def test_tb_line_prints_the_gate_s_headline(project: pytest.Pytester):
    """``--tb=line`` prints a failure's crash line: the gate's verdict, not an object's repr."""
    baselined(project)
    set_plan(project, DEGRADED)
    done = run(project, "--tb=line")
    assert_failed(done)
    assert done.gate_failure() in done.lines
    assert not [line for line in done.lines if "namespace(" in line]


def test_retrieval_diff_limits_the_worst_queries(project: pytest.Pytester):
    baselined(project)
    set_plan(project, DEGRADED)
    done = run(project, "--retrieval-diff", "1")
    assert_failed(done)
    breached = [row for row in done.gate["rows"] if row["breached"]]
    assert len(breached) == 6
    for row in breached:
        k = 10 if row["metric"] == "ndcg@10" else 20
        assert row["worst_queries"] == [expected_worst("lex-2", k)]  # ties: by id
    failure = done.gate_case().find("failure")
    assert failure is not None and failure.text is not None
    worst = [line for line in failure.text.splitlines() if line.startswith("  fused lex-")]
    assert worst == [
        "  fused lex-2 (lexical): ndcg@10 1.000 -> 0.000, mrr 1.000 -> 0.000, "
        "recall@20 1.000 -> 0.000"
    ]
    assert "lex-3" not in failure.text and "lex-3" not in "\n".join(gate_lines(done))


def test_drop_within_tolerance_passes_and_just_beyond_fails(project: pytest.Pytester):
    baselined(project)
    within = {"*": {"lex-1": "nudge", "lex-2": "nudge"}}
    set_plan(project, within)
    done = run(project)
    assert_passed(done)
    check_rows(done.gate, {}, within)
    row = rows_by_key(done.gate)["bm25", "lexical", "ndcg@10"]
    assert -0.02 < row["delta"] < -0.01  # a real drop, inside the tolerance
    assert "improved beyond the tolerance" not in done.text

    beyond = {"*": {"lex-1": "nudge", "lex-2": "nudge", "lex-3": "nudge"}}
    set_plan(project, beyond)
    done = run(project)
    assert_failed(done)
    check_rows(done.gate, {}, beyond)
    assert breached_keys(done.gate) == {(c, "lexical", "ndcg@10") for c in CONFIGS}


def test_relative_and_absolute_tolerance(project: pytest.Pytester):
    base_plan = {"*": {"lex-1": "miss"}}  # lexical 0.75, all 11/12
    set_plan(project, base_plan)
    baselined(project)
    plan = {"*": {"lex-1": "miss", "lex-2": "miss"}}  # lexical 0.5 (-0.25), all 10/12
    set_plan(project, plan)

    done = run(project)
    assert_failed(done)
    assert breached_keys(done.gate) == all_keys(CONFIGS, ["all", "lexical"])

    done = run(project, "--retrieval-tolerance", "50%")
    assert_passed(done)
    assert "tolerance 50%, mode absolute)" in done.lines[done.lines.index(gate_lines(done)[0])]
    for (_, cat, m), row in rows_by_key(done.gate).items():
        before = ref_mean(base_plan, "bm25", cat, m)
        assert row["allowed"] == pytest.approx(0.5 * before, abs=1e-12)

    # relative means relative to the baseline value: 30% of 0.75 = 0.225 < 0.25 fails,
    # while an absolute 0.3 passes
    done = run(project, "--retrieval-tolerance", "30%")
    assert_failed(done)
    assert breached_keys(done.gate) == all_keys(CONFIGS, ["lexical"])
    assert rows_by_key(done.gate)["fused", "lexical", "mrr"]["allowed"] == pytest.approx(0.225)
    assert_passed(run(project, "--retrieval-tolerance", "0.3"))

    # the ini key, and the option overriding it
    write_ini(project, "retrieval_tolerance = 50%")
    assert_passed(run(project))
    assert_failed(run(project, "--retrieval-tolerance", "0.02"))


def test_per_metric_tolerance_override(project: pytest.Pytester):
    base_plan = {"*": {"lex-1": "lowfirst"}}
    set_plan(project, base_plan)
    baselined(project)
    plan = {"*": {"lex-1": "late"}}  # mrr 1 -> 0.5; ndcg@10 -0.061 (lexical -0.015)
    set_plan(project, plan)

    done = run(project)
    assert_failed(done)
    check_rows(done.gate, base_plan, plan)
    assert breached_keys(done.gate) == all_keys(CONFIGS, ["all", "lexical"], ["mrr"])
    ndcg = rows_by_key(done.gate)["bm25", "lexical", "ndcg@10"]
    assert -0.02 < ndcg["delta"] < -0.01

    done = run(project, "--retrieval-tolerance", "0.02 mrr=0.9")
    assert_passed(done)
    assert "tolerance 0.02 mrr=0.9, mode absolute)" in "\n".join(done.lines)
    check_rows(done.gate, base_plan, plan, allowed={"mrr": 0.9})

    # a tighter override still fails, on mrr only; the ini spelling works too
    write_ini(project, "retrieval_tolerance = 0.02 mrr=0.1")
    done = run(project)
    assert_failed(done)
    assert breached_keys(done.gate) == all_keys(CONFIGS, ["lexical"], ["mrr"])
    write_ini(project, "retrieval_tolerance = 0.02 mrr=0.9")
    assert_passed(run(project))


def test_scope_all_ignores_a_drop_the_overall_mean_absorbs(project: pytest.Pytester):
    baselined(project)
    plan = {"*": {"para-1": "swap"}}  # paraphrase ndcg -0.039, all -0.013
    set_plan(project, plan)

    done = run(project)
    assert_failed(done)
    check_rows(done.gate, {}, plan)
    assert breached_keys(done.gate) == {(c, "paraphrase", "ndcg@10") for c in CONFIGS}
    overall = rows_by_key(done.gate)["fused", "all", "ndcg@10"]
    assert -0.02 < overall["delta"] < -0.01

    write_ini(project, "retrieval_gate_scope = all")
    done = run(project)
    assert_passed(done)
    assert set(rows_by_key(done.gate)) == all_keys(CONFIGS, ["all"])
    check_rows(done.gate, {}, plan)

    write_ini(project, "retrieval_gate_scope = category")
    assert_failed(run(project))


def test_gate_configurations_limits_the_gate(project: pytest.Pytester):
    baselined(project)
    plan = {"bm25": {"@lexical": "miss"}}
    set_plan(project, plan)

    done = run(project)
    assert_failed(done)
    assert breached_keys(done.gate) == all_keys(["bm25"], ["all", "lexical"])

    write_ini(project, "retrieval_gate_configurations = fused")
    done = run(project)
    assert_passed(done)
    assert set(rows_by_key(done.gate)) == all_keys(["fused"])
    check_rows(done.gate, {}, plan)

    write_ini(project, "retrieval_gate_configurations = bm25")
    done = run(project)
    assert_failed(done)
    assert {row["configuration"] for row in done.gate["rows"]} == {"bm25"}


def test_a_gated_configuration_deselected_by_k_is_not_compared(project: pytest.Pytester):
    """`-k bm25` leaves nothing of the gated `fused`: skipped, not a failure (nothing crashed)."""
    baselined(project)
    write_ini(project, "retrieval_gate_configurations = fused")
    for extra in ((), ("-n", "2")):
        done = run(project, "-k", "bm25", *extra, subprocess_run=bool(extra))
        assert done.ret == 0, done.text
        assert done.gate["verdict"] == "skipped"
        assert done.gate["rows"] == []
        assert "retrieval gate: SKIPPED" in done.lines
        assert "gated configuration 'fused' was deselected in this run" in done.text
        assert done.gate_case().find("skipped") is not None
    # a configuration that was selected still gates alongside one that was deselected
    write_ini(project, "retrieval_gate_configurations = fused bm25")
    set_plan(project, {"bm25": {"@lexical": "miss"}})
    done = run(project, "-k", "bm25")
    assert_failed(done)
    assert {row["configuration"] for row in done.gate["rows"]} == {"bm25"}


def test_a_setting_naming_no_collected_configuration_stops_the_run_before_it_starts(
    project: pytest.Pytester,
):
    """A misspelled gated configuration ran every query, then failed the gate; the
    configurations are known once collected, so it stops there, as other bad settings do
    (a configuration -k deselects is known: see the test above)."""
    baselined(project)
    write_ini(project, "retrieval_gate_configurations = bm25 fusd")
    done = run(project)
    assert done.ret == pytest.ExitCode.USAGE_ERROR, done.text
    assert done.report is None and " passed" not in done.text  # no query ran
    assert " ".join(done.result.stderr.str().split()) == (
        "ERROR: retrieval_gate_configurations names 'fusd', which this run does not have "
        "(did you mean 'fused'?) (configurations: bm25, fused): fix the name"
    )
    write_ini(project, "retrieval_latency_budget = bm52:p95=2s")
    done = run(project)
    assert done.ret == pytest.ExitCode.USAGE_ERROR, done.text
    assert "retrieval_latency_budget names 'bm52', which this run does not have (did you " in (
        " ".join(done.result.stderr.str().split())
    )
    # a replay's configurations are the recording's, known before collection
    write_ini(project)
    assert run(project, "--retrieval-record=run.jsonl").ret == 0
    write_ini(project, "retrieval_gate_configurations = bm52")
    done = run(project, "--retrieval-replay=run.jsonl")
    assert done.ret == pytest.ExitCode.USAGE_ERROR, done.text
    assert "retrieval_gate_configurations names 'bm52'" in done.result.stderr.str()


def test_a_k_that_selects_nothing_exits_5_with_a_baseline_as_without(project: pytest.Pytester):
    """A typo in -k evaluates nothing: pytest's "no tests ran" (5), never a green 0 made
    of the skipped gate alone."""
    for extra in ((), ("-n", "2")):
        fresh = run(project, "-k", "nosuchthing", *extra, subprocess_run=bool(extra))
        assert fresh.ret == pytest.ExitCode.NO_TESTS_COLLECTED, fresh.text
        # and says what -k takes: with no baseline, the gate's hint alone advised an update
        said = " ".join(fresh.text.split())
        assert "retrieval: -k 'nosuchthing' selected none of the golden items" in said
        assert f"-k takes a configuration ({', '.join(sorted(CONFIGS))})" in said
        assert f"a category ({', '.join(sorted(CATEGORIES))})" in said, said  # -n 2: workers'
    baselined(project)
    for extra in ((), ("-n", "2")):
        done = run(project, "-k", "nosuchthing", *extra, subprocess_run=bool(extra))
        assert done.ret == pytest.ExitCode.NO_TESTS_COLLECTED, done.text
        assert "retrieval gate: SKIPPED" in done.lines
        # nor a skipped gate testcase: pytest's own summary, "no tests ran" or "N deselected"
        assert " skipped" not in done.lines[-1], done.lines[-1]
        assert done.gate_cases() == []
    done = run(project, "-k", "bm25")  # the gate still counts where items ran
    assert done.ret == pytest.ExitCode.OK, done.text
    assert "[100%]" in done.text


def test_gate_metrics_limits_the_gate(project: pytest.Pytester):
    baselined(project)
    plan = {"*": {"@adversarial": "swap"}}  # an nDCG-only drop
    set_plan(project, plan)

    done = run(project)
    assert_failed(done)
    check_rows(done.gate, {}, plan)
    assert breached_keys(done.gate) == all_keys(CONFIGS, ["all", "adversarial"], ["ndcg@10"])

    write_ini(project, "retrieval_gate_metrics = recall@20")
    done = run(project)
    assert_passed(done)
    assert set(rows_by_key(done.gate)) == all_keys(metrics=["recall@20"])
    check_rows(done.gate, {}, plan)

    write_ini(project, "retrieval_gate_metrics = recall@20 ndcg@10")
    assert_failed(run(project))


NEW_METRIC_NOTE = (
    f"metric 'map' of this run is not in the baseline: not gated until the baseline is "
    f"updated; run `{UPDATE}` to add it"
)


def test_a_metric_added_gates_the_others_and_says_it_is_not_gated(project: pytest.Pytester):
    """A team adds map to retrieval_metrics: the gate still compares the three metrics the
    baseline has (a drop on them fails), names map as not gated, and an update adds it."""
    baselined(project)
    write_ini(project, "retrieval_metrics = ndcg@10 mrr recall@20 map")
    set_plan(project, DEGRADED)
    done = run(project, "--retrieval-report=report.md")
    assert_failed(done)
    assert {m for _, _, m in rows_by_key(done.gate)} == set(METRICS)
    check_rows(done.gate, {}, DEGRADED)
    assert NEW_METRIC_NOTE in done.gate["messages"]
    assert NEW_METRIC_NOTE in " ".join(" ".join(gate_lines(done)).split())
    markdown = (project.path / "report.md").read_text(encoding="utf-8")
    assert NEW_METRIC_NOTE in " ".join(markdown.split())

    parallel = run(project, "-n", "2", subprocess_run=True)  # the same under xdist
    assert parallel.ret == 1, parallel.text
    assert parallel.gate == done.gate

    set_plan(project, {})  # the drop fixed: passes, still saying map is not gated
    done = run(project)
    assert_passed(done)
    assert done.gate["messages"] == [NEW_METRIC_NOTE]

    update(project)  # the update writes map, for every query
    data = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    assert data["settings"]["metrics"] == [*METRICS, "map"]
    for block in data["configurations"].values():
        assert all("map" in q["metrics"] for q in block["queries"].values())
    done = run(project)
    assert_passed(done)
    assert done.gate["messages"] == []
    assert {m for _, _, m in rows_by_key(done.gate)} == {*METRICS, "map"}


def test_a_partial_update_after_a_metric_is_added_is_refused(project: pytest.Pytester):
    """A baseline made with other settings is replaced whole by an update: one run with
    -k (the gate now still passes after a metric is added, so a team carries on with -k
    updates) wrote only the queries it ran and dropped every other one, with a note."""
    baselined(project)
    path = baseline_path(project)
    before = path.read_text(encoding="utf-8")
    write_ini(project, "retrieval_metrics = ndcg@10 mrr recall@20 map")
    part = run(project, "--retrieval-update-baseline", "-k", "lexical")
    assert part.ret == 1, part.text
    assert path.read_text(encoding="utf-8") == before  # kept as it was
    said = " ".join(part.text.split())
    assert "retrieval baseline NOT written: " in said
    assert "was made with other settings (metrics: " in said
    assert "writing it would drop every other query; run the update on the whole set" in said
    whole = run(project, "--retrieval-update-baseline")
    assert whole.ret == 0, whole.text
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["settings"]["metrics"] == [*METRICS, "map"]


def test_a_metric_removed_or_its_cut_changed_is_named_not_gated(project: pytest.Pytester):
    baselined(project)
    write_ini(project, "retrieval_metrics = ndcg@20 mrr")
    done = run(project, "-n", "2", subprocess_run=True)
    assert_passed(done)
    assert {m for _, _, m in rows_by_key(done.gate)} == {"mrr"}
    assert done.gate["messages"] == [
        f"metric 'ndcg@20' of this run is not in the baseline: not gated until the baseline "
        f"is updated; run `{UPDATE}` to add it",
        "the baseline's metrics 'ndcg@10' and 'recall@20' are not in this run's "
        "retrieval_metrics: not gated (an update drops them; put them back in "
        "retrieval_metrics to gate them)",
    ]
    update(project)  # the previous baseline had other metrics: replaced whole
    data = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    assert data["settings"]["metrics"] == ["ndcg@20", "mrr"]
    assert_passed(run(project))


def test_a_gated_metric_the_baseline_lacks_refuses(project: pytest.Pytester):
    baselined(project)
    write_ini(
        project, "retrieval_metrics = ndcg@10 mrr recall@20 map", "retrieval_gate_metrics = map"
    )
    done = run(project)
    assert done.ret == 1, done.text
    assert done.gate["verdict"] == "refused"
    message = (
        f"retrieval_gate_metrics names 'map', which the baseline {BASELINE} does not hold (its "
        f"metrics: ndcg@10, mrr, recall@20): nothing to compare it with; run `{UPDATE}` to add "
        "it, or take it out of retrieval_gate_metrics until the baseline has it"
    )
    assert done.gate["messages"] == [message]
    assert done.gate_failure() == f"retrieval gate: REFUSED: {message}"


def test_improvement_passes_with_the_hint_to_update(project: pytest.Pytester):
    set_plan(project, DEGRADED)
    baselined(project)
    set_plan(project, {})
    done = run(project)
    assert_passed(done)
    check_rows(done.gate, DEGRADED, {})
    assert breached_keys(done.gate) == set()
    lines = gate_lines(done)
    head = lines.index(f"improved beyond the tolerance (run `{UPDATE}` to record it):")
    improved = [line for line in lines[head + 1 :] if line.startswith("  fused / ")]
    assert improved == [
        "  fused / all / ndcg@10: 0.833 -> 1.000 (+0.167)",
        "  fused / all / mrr: 0.833 -> 1.000 (+0.167)",
        "  fused / all / recall@20: 0.833 -> 1.000 (+0.167)",
        "  fused / lexical / ndcg@10: 0.500 -> 1.000 (+0.500)",
        "  fused / lexical / mrr: 0.500 -> 1.000 (+0.500)",
        "  fused / lexical / recall@20: 0.500 -> 1.000 (+0.500)",
    ]
    assert not any(line.startswith("  bm25 / ") for line in lines)


def test_changed_query_is_named_and_left_out(project: pytest.Pytester):
    baselined(project)
    plan = {"*": {"lex-1": "miss"}}
    set_plan(project, plan)
    assert_failed(run(project))  # the drop on lex-1 alone fails the gate ...

    changed_grades = {**judgments("lex-1"), "lex-1-low": 2}
    write_golden(
        project,
        overrides={
            "lex-1": {"relevant": changed_grades},  # judgments changed
            "para-2": {"query": "a reworded paraphrase question"},  # text changed
        },
    )
    done = run(project)  # ... but not once lex-1's judgments changed
    assert_passed(done)
    assert done.gate["changed"] == ["lex-1", "para-2"]
    assert done.gate["added"] == done.gate["removed"] == []
    rows = rows_by_key(done.gate)
    assert rows["bm25", "lexical", "ndcg@10"]["n"] == 3
    assert rows["bm25", "paraphrase", "mrr"]["n"] == 3
    assert rows["fused", "all", "recall@20"]["n"] == 10
    assert all(row["delta"] == 0.0 for row in done.gate["rows"])
    assert (
        "text or judgments changed since the baseline (left out of the comparison; "
        f"re-run `{UPDATE}` to re-baseline them): lex-1, para-2"
    ) in done.lines


def test_added_query_is_listed(project: pytest.Pytester):
    baselined(project)
    files = {**FILES, "golden/core.yaml": [*FILES["golden/core.yaml"], "lex-5"]}
    write_golden(project, files)
    set_plan(project, {"*": {"lex-5": "miss"}})  # not compared: cannot fail the gate
    done = run(project)
    assert_passed(done)
    assert done.gate["added"] == ["lex-5"]
    assert done.gate["removed"] == done.gate["changed"] == []
    assert rows_by_key(done.gate)["fused", "lexical", "mrr"]["n"] == 4
    assert (
        "not in the baseline (added since, or errored when it was written), not compared: lex-5"
        in done.lines
    )


def test_removed_query_is_listed_then_dropped_on_update(project: pytest.Pytester):
    baselined(project)
    done = run(project, "-k", "not adv-4")  # deselected is not removed
    assert_passed(done)
    assert done.gate["removed"] == []
    assert rows_by_key(done.gate)["bm25", "adversarial", "ndcg@10"]["n"] == 3
    # ... and the explanation says the rows are over the queries run, 'all' included
    said = " ".join(" ".join(done.lines).split())
    for name in CONFIGS:
        assert (
            f"{name}: 1 query of the baseline's not in this run (-k, -m or the paths given): "
            f"each row, 'all' too, compares only the {len(QUERY_IDS) - 1} queries run on both "
            "sides"
        ) in said
    assert "not in this run" not in " ".join(run(project).lines)  # the whole set: no note

    files = {**FILES, "golden/adversarial.yaml": ["adv-1", "adv-2", "adv-3"]}
    write_golden(project, files)
    done = run(project)
    assert_passed(done)
    assert done.gate["removed"] == ["adv-4"]
    assert done.gate["added"] == done.gate["changed"] == []
    assert rows_by_key(done.gate)["bm25", "adversarial", "ndcg@10"]["n"] == 3
    assert "no longer in the golden set: adv-4" in done.lines

    done = update(project)
    assert "  dropped, no longer in any golden file: bm25/adv-4, fused/adv-4" in done.lines
    data = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    for configuration in CONFIGS:
        block = data["configurations"][configuration]
        assert list(block["queries"]) == [q for q in QUERY_IDS if q != "adv-4"]
        assert block["summary"]["all"]["n"] == 11
        assert block["summary"]["categories"]["adversarial"]["n"] == 3
    done = run(project)
    assert_passed(done)
    assert done.gate["removed"] == []


def test_a_configuration_renamed_in_the_params_is_dropped_by_an_update(
    project: pytest.Pytester,
):
    """bm25 renamed bm25-v2: the gate fails on the baseline's bm25, which this run does
    not have, and says that an update drops it; the update does (it kept it forever once,
    so the gate failed after every update), names it, and the next run passes."""
    baselined(project)
    project.makeconftest(
        CONFTEST.replace('params=["bm25", "fused"]', 'params=["bm25-v2", "fused"]')
    )
    done = run(project)
    assert_failed(done)
    said = " ".join(" ".join(done.lines).split())
    assert (
        "the baseline holds configuration 'bm25', which this run does not have "
        "(configurations: bm25-v2, fused): run it too, name the ones to gate in "
        f"retrieval_gate_configurations, or drop it from the baseline (`{UPDATE}` does)"
    ) in said
    done = update(project, "-k", "lex-1")  # a partial update drops it too: it was collected
    said = " ".join(" ".join(done.lines).split())
    assert (
        f"configurations dropped, no longer in the retriever fixture's params: bm25 "
        f"({len(QUERY_IDS)} queries)"
    ) in said
    data = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    assert sorted(data["configurations"]) == ["bm25-v2", "fused"]
    update(project)
    assert_passed(run(project))


def test_an_update_keeps_a_configuration_it_did_not_run_when_the_gate_names_its_own(
    project: pytest.Pytester,
):
    """A CI job per configuration, each gating and updating its own: a job that does not
    collect bm25 keeps bm25's entries."""
    baselined(project)
    write_ini(project, "retrieval_gate_configurations = fused")
    project.makeconftest(CONFTEST.replace('params=["bm25", "fused"]', 'params=["fused"]'))
    done = update(project)
    assert "dropped" not in done.text
    data = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    assert sorted(data["configurations"]) == ["bm25", "fused"]


@pytest.mark.parametrize(
    ("ini_line", "differs"),
    [
        ("retrieval_gain = linear", "gain: baseline 'exponential', this run 'linear'"),
        (  # no metric in common: nothing to compare
            "retrieval_metrics = map",
            "metrics: baseline ['ndcg@10', 'mrr', 'recall@20'], this run ['map'] "
            "(this run adds 'map'; lacks 'ndcg@10', 'mrr', 'recall@20')",
        ),
    ],
    ids=["gain", "no-metric-shared"],
)
def test_other_settings_refuse(project: pytest.Pytester, ini_line: str, differs: str):
    baselined(project)
    write_ini(project, ini_line)
    done = run(project)
    assert done.ret == 1, done.text
    done.all_items_passed()
    gate = done.gate
    assert gate["verdict"] == "refused"
    assert gate["rows"] == []
    assert "retrieval gate: REFUSED" in done.lines
    message = done.gate_failure()
    assert message is not None
    assert message.startswith(
        f"retrieval gate: REFUSED: the baseline {BASELINE} was made with other settings"
    )
    assert differs in message
    assert f"run `{UPDATE}` to rewrite the baseline with the current settings" in message
    assert differs in done.text
    props = {p.get("name"): p.get("value") for p in done.gate_case().iter("property")}
    assert props == {"verdict": "refused", "baseline": BASELINE, "mode": "absolute"}
    # under -q the failure says the whole reason; it is not sent to look for more without -q
    quiet = " ".join(run(project, "-q").text.split())
    assert f"retrieval gate: REFUSED: the baseline {BASELINE} was made with other settings" in quiet
    assert "run without -q for the gate's explanation" not in quiet


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (
            b"{not json",
            "golden/baseline.json is not valid JSON (line 1, column 2: "
            "Expecting property name enclosed in double quotes)",
        ),
        (
            b'{"format": "something-else", "version": 1}',
            "golden/baseline.json is not a pytest-retrieval baseline "
            '(no "format": "pytest-retrieval-baseline")',
        ),
        (b"\xff\xfe{}", "golden/baseline.json:1: the file is UTF-16"),
        (  # a directory where the file should be: rewriting it would fail, so no such hint
            None,
            "golden/baseline.json is a folder, not a baseline file: give retrieval_baseline "
            "(or --retrieval-baseline) the path of a file, or move the folder away",
        ),
    ],
    ids=["not-json", "not-a-baseline", "not-utf8", "directory"],
)
def test_corrupt_baseline_refuses(project: pytest.Pytester, content: bytes | None, says: str):
    path = baseline_path(project)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    done = run(project)
    assert done.ret == 1, done.text
    done.all_items_passed()
    assert done.gate["verdict"] == "refused"
    assert done.gate["baseline"] == BASELINE
    assert "retrieval gate: REFUSED" in done.lines
    assert "retrieval gate: PASSED" not in done.text
    message = done.gate_failure()
    assert message is not None
    assert says in message
    # the update refuses a folder, and a file that does not start as a baseline: the hint
    # to rewrite it would end in a usage error
    hint = f"Fix the file, or delete it and run `{UPDATE}` to write a new one"
    assert (hint in message) == (content is not None)
    assert "to rewrite it" not in message
    assert says in done.text


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("golden/core.yaml", "It is a golden file: point retrieval_baseline (or "),
        ("old.json", "It is a pytest-retrieval JSON report (written by --retrieval-report): "),
    ],
)
def test_a_baseline_path_naming_another_kind_of_file_is_not_to_be_deleted(
    project: pytest.Pytester, name: str, says: str
):
    """The refusal said 'Fix or delete the file, or run `pytest --retrieval-eval
    --retrieval-update-baseline --retrieval-baseline=golden/core.yaml` to rewrite it':
    delete a golden file, or run an update that refuses to write over it."""
    run(project)  # writes report.json
    (project.path / "old.json").write_bytes((project.path / "report.json").read_bytes())
    done = run(project, f"--retrieval-baseline={name}")
    assert done.ret == 1, done.text
    assert done.gate["verdict"] == "refused"
    message = done.gate_failure()
    assert message is not None and says in message, message
    assert "delete" not in message and "--retrieval-update-baseline" not in message
    assert "at the baseline" in message


def test_missing_baseline_is_a_hint_not_a_failure(project: pytest.Pytester):
    done = run(project)
    assert done.ret == 0, done.text
    done.all_items_passed()
    assert done.gate["verdict"] == "no-baseline"
    assert done.gate["rows"] == []
    lines = gate_lines(done)
    assert lines[0] == "retrieval gate: NO-BASELINE"
    assert (
        f"  no baseline at golden/baseline.json: run `{UPDATE}` to create one (and commit it)"
    ) in lines
    assert done.gate_cases() == []
    done.result.assert_outcomes(passed=N_ITEMS)
    assert not baseline_path(project).exists()  # gating never writes

    # the exit code stays the items' own: a failing item still makes it 1
    write_golden(project, overrides={"lex-1": {"expect": {"mrr": 1.0}}})
    set_plan(project, {"bm25": {"lex-1": "miss"}})
    done = run(project)
    assert done.ret == 1
    assert done.gate["verdict"] == "no-baseline"
    assert done.gate_cases() == []
    assert done.item_outcomes()["bm25/lex-1"] == "failed"


def test_a_mistyped_baseline_path_names_the_file_beside_it(project: pytest.Pytester):
    """A typo in a CI job's --retrieval-baseline gated nothing on every run, and said only
    'no baseline at golden/baselin.json': the hint stays a hint (exit code unchanged)
    and names the file that is there."""
    run(project, "--retrieval-update-baseline")
    done = run(project, "--retrieval-baseline=golden/baselin.json")
    assert done.ret == 0, done.text
    assert done.gate["verdict"] == "no-baseline"
    said = " ".join(gate_lines(done))
    assert "no baseline at golden/baselin.json (did you mean 'golden/baseline.json'?)" in said
    done = run(project, "-q", "--retrieval-baseline=golden/baselin.json")
    assert "did you mean 'golden/baseline.json'?" in done.text
    # a first run, the nightly recording beside where the baseline will be: not a baseline,
    # so not "give that path" (the gate would refuse it), but the plain advice to create one
    run(project, "--retrieval-record=ci/baseline.jsonl")
    done = run(project, "--retrieval-baseline=ci/baseline.json")
    said = " ".join(gate_lines(done))
    assert "did you mean" not in said and "to create one (and commit it)" in said, said


def test_the_update_advised_under_an_override_gives_the_override_again(
    project: pytest.Pytester,
):
    """Under `-o retrieval_gain=linear` the refusal advised the plain update command,
    which wrote the ini's gain again: the next run, overridden alike, was refused again."""
    run(project, "--retrieval-update-baseline")
    done = run(project, "-o", "retrieval_gain=linear")
    assert done.gate["verdict"] == "refused"
    message = done.gate_failure()
    advised = f"{UPDATE} -o retrieval_gain=linear"
    assert message is not None and advised in " ".join(message.split()), message
    run(project, *advised.split()[1:])  # the advice, followed
    assert run(project, "-o", "retrieval_gain=linear").gate["verdict"] == "passed"


def test_the_update_advised_after_a_k_run_gives_the_k_again_and_updates_that_part(
    project: pytest.Pytester,
):
    """After `-k bm25` failed the gate the advice was the bare update, which runs and
    records every configuration, drops the reader never saw included. It gives the -k
    again; followed, it records what was compared and keeps the rest."""
    update(project)
    before = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    set_plan(project, {"*": {"@lexical": "miss"}})
    done = run(project, "-k", "bm25")
    assert done.gate["verdict"] == "failed"
    said = " ".join(" ".join(done.lines).split())
    advised = f"{UPDATE} -k bm25"
    assert f"if these drops are intended, run `{advised}` and commit the baseline (it " in said
    assert "as it stands, it runs and records every query" not in said
    run(project, *advised.split()[1:])  # the advice, followed
    after = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    assert after["configurations"]["fused"] == before["configurations"]["fused"]
    assert run(project, "-k", "bm25").gate["verdict"] == "passed"
    quoted = run(project, "-k", "bm25 and not lex-1", "-m", "not slow")
    assert quoted.gate["verdict"] == "passed"  # nothing advised: the same again
    set_plan(project, {"*": {"@paraphrase": "miss"}})
    quoted = run(project, "-k", "bm25 and not lex-1", "-m", "not slow")
    said = " ".join(" ".join(quoted.lines).split())
    assert f"`{UPDATE} -k 'bm25 and not lex-1' -m 'not slow'`" in said


def test_update_over_a_k_subset_replaces_only_those_queries(project: pytest.Pytester):
    update(project)
    before = baseline_path(project).read_text(encoding="utf-8")
    set_plan(project, {"*": {"@lexical": "miss"}})

    done = update(project, "-k", "bm25")
    assert "retrieval baseline written: golden/baseline.json (bm25: 12 queries)" in done.lines
    assert "  kept from the previous baseline (not run now, or errored): fused: 12" in done.lines
    after = baseline_path(project).read_text(encoding="utf-8")

    def block(text: str, name: str) -> list[str]:
        lines = text.splitlines()
        start = lines.index(f'    "{name}": {{')
        end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("    }"))
        return lines[start : end + 1]

    assert block(after, "fused") == block(before, "fused")  # byte-identical
    assert block(after, "bm25") != block(before, "bm25")
    data = json.loads(after)
    bm25 = data["configurations"]["bm25"]
    for qid in QUERY_IDS:
        value = 0.0 if CATEGORY_OF[qid] == "lexical" else 1.0
        assert bm25["queries"][qid]["metrics"] == dict.fromkeys(METRICS, value)
    assert bm25["summary"]["categories"]["lexical"] == {"n": 4, **dict.fromkeys(METRICS, 0.0)}
    assert bm25["summary"]["all"]["n"] == 12
    assert data["configurations"]["fused"]["summary"]["all"] == {
        "n": 12,
        **dict.fromkeys(METRICS, 1.0),
    }

    # a narrower subset inside one configuration: the rest of it is kept
    set_plan(project, {"*": {"@lexical": "swap"}})
    done = update(project, "-k", "bm25 and lex-4")
    assert "retrieval baseline written: golden/baseline.json (bm25: 1 query)" in done.lines
    kept = "  kept from the previous baseline (not run now, or errored): bm25: 11, fused: 12"
    assert kept in done.lines
    data = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    queries = data["configurations"]["bm25"]["queries"]
    assert queries["lex-4"]["metrics"] == ref_metrics("lex-4", "swap")
    assert queries["lex-3"]["metrics"] == dict.fromkeys(METRICS, 0.0)
    assert block(baseline_path(project).read_text(encoding="utf-8"), "fused") == block(
        before, "fused"
    )


# --------------------------------------------------------------------------- xdist


def test_xdist_gives_the_same_verdict_and_rows(project: pytest.Pytester):
    pytest.importorskip("xdist")
    baselined(project)
    serial_baseline = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    set_plan(project, DEGRADED)
    serial = run(project)
    assert_failed(serial)

    parallel = run(project, "-n", "2", subprocess_run=True)
    assert parallel.ret == 1, parallel.text
    assert "2 workers [24 items]" in parallel.text
    assert parallel.gate == serial.gate  # verdict, every row and value, lists
    assert parallel.gate_failure() == serial.gate_failure()
    parallel.all_items_passed()
    assert (
        "retrieval gate: FAILED (baseline golden/baseline.json, tolerance 0.02, mode absolute)"
        in (parallel.lines)
    )

    # an update under -n 2 writes what a serial update writes (but for provenance)
    set_plan(project, {})
    baseline_path(project).unlink()
    done = run(project, "-n", "2", "--retrieval-update-baseline", subprocess_run=True)
    assert done.ret == 0, done.text
    parallel_baseline = json.loads(baseline_path(project).read_text(encoding="utf-8"))
    parallel_baseline.pop("provenance")
    serial_baseline.pop("provenance")
    assert parallel_baseline == serial_baseline
    assert sorted(p.name for p in (project.path / "golden").iterdir()) == [
        "adversarial.yaml",
        "baseline.json",
        "core.yaml",
    ]


# --------------------------------------------------------------------------- atomicity


@pytest.mark.parametrize("error", [OSError, KeyboardInterrupt], ids=["oserror", "interrupt"])
def test_interrupted_update_keeps_the_old_baseline(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, error: type[BaseException]
):
    """The rename, the moment the new baseline would become visible, fails.

    In-process, ``os.replace`` as :mod:`pytest_retrieval.io.atomic` calls it raises for
    the baseline (and only for it): the temporary file was written and fsynced, so
    this is the latest possible point of failure, and the exception path (a full
    disk, Ctrl-C) is where the plugin has to clean up after itself.
    """
    update(project)
    before = baseline_path(project).read_bytes()
    set_plan(project, DEGRADED)
    real_replace = os.replace
    attempts: list[str] = []

    def failing_replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if Path(dst).name == "baseline.json":
            attempts.append(str(src))
            raise error("simulated crash while replacing the baseline")
        real_replace(src, dst, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(atomic.os, "replace", failing_replace)
        done = run(project, "--retrieval-update-baseline")
    assert done.ret == (
        pytest.ExitCode.INTERRUPTED
        if error is KeyboardInterrupt
        else pytest.ExitCode.TESTS_FAILED  # a clean message, not an INTERNALERROR
    ), done.text
    if error is OSError:
        assert (
            "retrieval baseline NOT written: golden/baseline.json: "
            "simulated crash while replacing the baseline" in done.lines
        ), done.text
        assert "INTERNALERROR" not in done.text
    assert len(attempts) == 1 and ".baseline.json." in attempts[0]  # the write got that far
    assert baseline_path(project).read_bytes() == before
    assert sorted(p.name for p in (project.path / "golden").iterdir()) == [
        "adversarial.yaml",
        "baseline.json",
        "core.yaml",
    ]
    # the old baseline still gates
    done = run(project)
    assert_failed(done)
    assert breached_keys(done.gate) == all_keys(["fused"], ["all", "lexical"])


def test_killed_update_keeps_the_old_baseline(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    """A real crash: the subprocess SIGKILLs itself after writing the temporary file.

    No cleanup can run after SIGKILL, so a stray ``.baseline.json.*.tmp`` may stay in
    the folder; what must hold is that the baseline is the old one, byte for byte,
    and that the next run gates against it undisturbed.
    """
    if not Path("/proc/self/fd").is_dir() or sys.platform == "win32":
        pytest.skip("needs /proc/self/fd")
    update(project)
    before = baseline_path(project).read_bytes()
    set_plan(project, DEGRADED)
    monkeypatch.setenv("E2E_GATE_KILL_ON_FSYNC", "1")
    done = run(project, "--retrieval-update-baseline", subprocess_run=True)
    monkeypatch.delenv("E2E_GATE_KILL_ON_FSYNC")
    assert done.ret == -signal.SIGKILL, done.text
    assert baseline_path(project).read_bytes() == before
    done = run(project)
    assert_failed(done)
    check_rows(done.gate, {}, DEGRADED)


def test_the_gate_failure_entry_fits_the_terminal_and_names_q_only_under_q(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    baselined(project)
    set_plan(project, {"*": {"@lexical": "miss", "@para": "miss"}})
    monkeypatch.setenv("COLUMNS", "80")
    for quiet in (False, True):
        done = run(project, *(["-q"] if quiet else []))
        assert done.ret == 1, done.text
        start = next(i for i, x in enumerate(done.lines) if "_ retrieval-gate _" in x)
        entry = done.lines[start + 1 : start + 1 + 12]
        entry = entry[: next(i for i, x in enumerate(entry) if x.startswith("(")) + 3]
        assert entry[0].startswith("retrieval gate: FAILED"), entry
        assert max(len(x) for x in entry) <= 80, entry
        said = " ".join(" ".join(entry).split())
        assert ("under -q" in said) is quiet, said
        assert "'retrieval evaluation' section below" in said


def test_an_unreadable_baseline_is_replaced_only_by_an_update_of_the_whole_set(
    project: pytest.Pytester,
):
    """A partial update (-k) over a baseline that cannot be read wrote only the queries
    run: every other one was lost, with a note and exit 0."""
    path = baseline_path(project)
    path.parent.mkdir(exist_ok=True)
    path.write_text('{"format": "pytest-retrieval-baseline", "version": 1, "configu', "utf-8")
    damaged = path.read_text(encoding="utf-8")
    one_file = sorted(p.name for p in (project.path / "golden").glob("*.yaml"))[0]
    for subset in (["-k", "lexical"], [f"golden/{one_file}"]):  # a selection; one file named
        part = run(project, "--retrieval-update-baseline", *subset)
        assert part.ret == 1, part.text
        assert path.read_text(encoding="utf-8") == damaged  # kept as it was
        said = " ".join(part.text.split())
        assert "retrieval baseline NOT written: " in said
        assert "writing it would drop every other query" in said
    for whole_set in ([], ["golden"]):  # the golden folder named is the whole set too
        path.write_text(damaged, encoding="utf-8")
        whole = run(project, "--retrieval-update-baseline", *whole_set)
        assert whole.ret == 0, whole.text
        said = " ".join(whole.text.split())
        assert "the previous baseline could not be read and is replaced" in said
        assert json.loads(path.read_text("utf-8"))["format"] == "pytest-retrieval-baseline"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ([], "-k, -m or the paths given"),
        (["--lf"], "--lf/--last-failed, -k, -m or the paths given"),
        (
            ["--last-failed", "--sw"],
            "--lf/--last-failed, --sw/--stepwise, -k, -m or the paths given",
        ),
    ],
)
def test_the_gates_note_on_a_partial_run_names_the_cacheprovider_selection(
    pytester: pytest.Pytester, args: list[str], named: str
) -> None:
    """After --lf the note on queries not run named only -k, -m or the paths given."""
    from pytest_retrieval.plugin.session import selection_text

    assert selection_text(pytester.parseconfig(*args)) == named


def test_a_single_category_is_listed_once_in_the_verdict(project: pytest.Pytester):
    """Every TREC or BEIR import has one category, 'uncategorized': its rows are the
    'all' rows again, and the verdict listed each breach twice. It lists the 'all' row,
    naming the category; the JSON keeps every row."""
    one = {q: {"category": "uncategorized"} for q in QUERY_IDS}
    write_golden(project, overrides=one)
    baselined(project)
    set_plan(project, DEGRADED)
    done = run(project)
    assert_failed(done)
    keys = {(c, cat) for c, cat, _ in breached_keys(done.gate)}
    assert keys == {("fused", "all"), ("fused", "uncategorized")}  # the JSON: every row
    message = done.gate_failure()
    assert message is not None
    assert message.count("fused / all (= uncategorized) / ") == 3, message
    assert "fused / uncategorized /" not in message
    _, table = breach_table(gate_lines(done))
    assert [row[:4] for row in table] == [["fused", "all", "(=", "uncategorized)"]] * 3
    assert "  3 rows breached: run without -q to see them" in run(project, "-q").lines


def test_under_q_the_rows_of_a_configuration_whose_every_query_errored_are_not_sent_elsewhere(
    project: pytest.Pytester,
):
    """Without -q those rows are counted, not listed: '-q' said 'N rows breached: run
    without -q to see them', and the run without it showed none of them."""
    baselined(project)
    set_plan(project, {"fused": {q: 0 for q in QUERY_IDS}})  # not a list: every query errors
    full = " ".join(gate_lines(run(project)))
    assert "breached rows of fused not listed: every query errored" in full, full
    quiet = run(project, "-q")
    said = " ".join(quiet.text.split())
    assert "run without -q to see them" not in said, said
    rows = len([r for r in quiet.gate["rows"] if r["breached"]])
    assert f"{rows} breached rows of fused not listed: every query errored" in said, said
    set_plan(project, {"fused": {q: 0 for q in QUERY_IDS}, "bm25": {"lex-2": "miss"}})
    said = " ".join(run(project, "-q").text.split())
    assert "breached: run without -q to see them" in said and "of fused not listed" in said
