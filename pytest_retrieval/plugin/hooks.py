"""The pytest hooks: a thin layer that translates between pytest and the pure cores.

Loaded through the ``pytest11`` entry point. Without ``--retrieval-eval`` every
hook returns at once and nothing is collected. With it, golden files become
items (:mod:`pytest_retrieval.plugin.collect`), each item's record travels on its
report (so xdist workers need nothing else), and the controller's
:class:`~pytest_retrieval.plugin.session.RetrievalSession` aggregates, prints and writes.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from ..comparisons import parse_stats_settings
from ..gate import parse_gate_settings
from ..golden import GoldenSet
from ..report.writers import ReportPathError, check_report_path
from ..scoring import errored, skipped
from ..settings import SettingsError, parse_settings
from ..slices import parse_group_by
from .collect import (
    COLLECTED_KEY,
    GOLDEN_SET_KEY,
    RECORD_KEY,
    SELECTED_KEY,
    SETTINGS_KEY,
    GoldenFile,
    golden_ids,
    golden_query_of,
    item_configuration,
)
from .session import RetrievalSession

INI_KEYS: dict[str, tuple[str, str | None, Any]] = {
    # name: (help, type, default)
    "retrieval_golden": (
        "golden files or folders, relative to the rootdir (default: golden)",
        "args",
        ["golden"],
    ),
    "retrieval_fixture": ("name of the retriever fixture (default: retriever)", "string", ""),
    "retrieval_metrics": (
        "metrics to compute and show (default: ndcg@10 mrr recall@20)",
        "args",
        [],
    ),
    "retrieval_gain": ("nDCG gain: exponential (2^g-1, default) or linear (g)", "string", ""),
    "retrieval_relevance_threshold": (
        "grade at which a result counts as relevant for binary metrics (default: 1)",
        "string",
        "",
    ),
    "retrieval_max_grade": ("highest grade allowed in golden files (default: 3)", "string", ""),
    "retrieval_empty": (
        "scoring of queries with no relevant judgment: abstain (default), one, zero, skip",
        "string",
        "",
    ),
    "retrieval_baseline": (
        "baseline file, relative to the rootdir (default: golden/baseline.json)",
        "string",
        "",
    ),
    "retrieval_tolerance": (
        "allowed drop before the gate fails: 0.02 (absolute, default), 2% (relative), "
        "per metric: 0.02 mrr=0.05",
        "args",
        [],
    ),
    "retrieval_gate_configurations": (
        "configurations the gate compares (default: every configuration in the baseline)",
        "args",
        [],
    ),
    "retrieval_gate_metrics": ("metrics the gate compares (default: all)", "args", []),
    "retrieval_gate_scope": (
        "category (default: all and every category) or all (the overall row only)",
        "string",
        "",
    ),
    "retrieval_seed": ("seed of bootstrap and randomization tests (default: 1)", "string", ""),
    "retrieval_bootstrap": ("bootstrap resamples (default: 10000)", "string", ""),
    "retrieval_reference": (
        "configuration the others are compared with (default: the first parameter)",
        "string",
        "",
    ),
    "retrieval_alpha": ("significance level after Holm correction (default: 0.05)", "string", ""),
    "retrieval_gate_mode": (
        "absolute (default) or significant (a drop must also be significant)",
        "string",
        "",
    ),
    "retrieval_min_queries": (
        "categories with fewer queries get a noise warning (default: 30)",
        "string",
        "",
    ),
    "retrieval_weights": (
        "traffic weights per category for an 'all (weighted)' row: exact-name=0.4 ...",
        "args",
        [],
    ),
}

SESSION_PLUGIN = "retrieval-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("retrieval", "retrieval evaluation (pytest-retrieval)")
    group.addoption(
        "--retrieval-eval",
        action="store_true",
        default=False,
        help="collect golden queries as items and evaluate the retriever fixture",
    )
    group.addoption(
        "--retrieval-report",
        action="append",
        default=[],
        metavar="PATH",
        help="write a report: .json, .md or .html by suffix (may repeat)",
    )
    group.addoption(
        "--retrieval-group-by",
        action="append",
        default=[],
        metavar="tag:NAME[,NAME]",
        help="add tables grouped by tags: tag:core,rolling (a row per tag) or tags (may repeat)",
    )
    group.addoption(
        "--retrieval-baseline",
        default=None,
        metavar="PATH",
        help="baseline file (default: ini retrieval_baseline, else golden/baseline.json)",
    )
    group.addoption(
        "--retrieval-update-baseline",
        action="store_true",
        default=False,
        help="write this run's numbers to the baseline instead of gating",
    )
    group.addoption(
        "--retrieval-tolerance",
        default=None,
        metavar="X",
        help="allowed drop: 0.02, 2%%, or '0.02 mrr=0.05' (overrides ini retrieval_tolerance)",
    )
    group.addoption(
        "--retrieval-diff",
        default=5,
        type=int,
        metavar="N",
        help="queries shown per breached gate row (default: 5)",
    )
    for name, (help_text, kind, default) in INI_KEYS.items():
        parser.addini(name, help_text, type=kind, default=default)  # type: ignore[arg-type]


def _enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("retrieval_eval", False))


def _golden_paths(config: pytest.Config) -> list[Path]:
    return [config.rootpath / p for p in config.getini("retrieval_golden")]


def _explicit_files(config: pytest.Config) -> set[Path]:
    base = config.invocation_params.dir
    files = set()
    for arg in config.args:
        path = Path(arg.split("::")[0])
        files.add((base / path).resolve() if not path.is_absolute() else path.resolve())
    return files


def pytest_configure(config: pytest.Config) -> None:
    if not _enabled(config):
        return
    ini = {name: config.getini(name) for name in INI_KEYS}
    try:
        settings = parse_settings(ini)
        for path in config.getoption("retrieval_report"):
            check_report_path(path)
        tolerance = config.getoption("retrieval_tolerance")
        gate = parse_gate_settings(
            tolerance if tolerance is not None else ini["retrieval_tolerance"],
            ini["retrieval_gate_configurations"],
            ini["retrieval_gate_metrics"],
            ini["retrieval_gate_scope"],
            config.getoption("retrieval_diff"),
        )
        stats = parse_stats_settings(ini)
        group_bys = [parse_group_by(spec) for spec in config.getoption("retrieval_group_by")]
    except (SettingsError, ReportPathError) as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[GOLDEN_SET_KEY] = GoldenSet()
    golden = _golden_paths(config)
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        existing = [p for p in golden if p.exists()]
        if not existing:
            shown = ", ".join(config.getini("retrieval_golden"))
            raise pytest.UsageError(
                f"--retrieval-eval: no golden files: retrieval_golden ({shown}) does not exist "
                f"under {config.rootpath}; create it or set retrieval_golden in your ini file"
            )
        config.args = [str(p) for p in existing]
    config.stash[_GOLDEN_ROOTS] = [p.resolve() for p in golden]
    config.stash[_EXPLICIT] = _explicit_files(config)
    if not hasattr(config, "workerinput"):
        baseline = config.getoption("retrieval_baseline") or ini["retrieval_baseline"]
        if config.getoption("retrieval_baseline"):
            baseline_path = config.invocation_params.dir / baseline
        else:
            baseline_path = config.rootpath / (baseline or "golden/baseline.json")
        session = RetrievalSession(config, settings, gate, stats, group_bys, baseline_path)
        config.pluginmanager.register(session, SESSION_PLUGIN)


_GOLDEN_ROOTS = pytest.StashKey[list[Path]]()
_EXPLICIT = pytest.StashKey[set[Path]]()


def _is_golden(config: pytest.Config, path: Path) -> bool:
    resolved = path.resolve()
    if resolved in config.stash[_EXPLICIT]:
        return True
    return any(resolved == root or root in resolved.parents for root in config.stash[_GOLDEN_ROOTS])


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note which configurations have selected items; a worker hands that and the
    collected golden ids to the controller."""
    config = session.config
    if not _enabled(config):
        return
    fixture = config.stash[SETTINGS_KEY].fixture
    selected = sorted(
        {item_configuration(item, fixture)[0] for item in session.items if golden_query_of(item)}
    )
    config.stash[SELECTED_KEY] = selected
    workeroutput = getattr(config, "workeroutput", None)
    if isinstance(workeroutput, dict):
        workeroutput["retrieval_golden"] = golden_ids(config)
        workeroutput["retrieval_selected"] = selected
        collected: set[str] = config.stash.get(COLLECTED_KEY, set())
        workeroutput["retrieval_collected"] = sorted(collected)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if file_path.suffix not in (".yaml", ".yml") or not _enabled(config):
        return None
    if not _is_golden(config, file_path):
        return None
    return GoldenFile.from_parent(parent, path=file_path)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    query = golden_query_of(item)
    if query is None:
        return
    settings = item.config.stash[SETTINGS_KEY]
    configuration, _ = item_configuration(item, settings.fixture)
    item.user_properties.extend([("configuration", configuration), ("category", query.category)])


def _outcome(report: pytest.TestReport, errored_run: bool) -> str:
    if hasattr(report, "wasxfail"):
        if report.skipped:
            return "xfailed"
        if report.passed:
            return "xpassed"
    if report.skipped:
        return "skipped"
    if report.failed:
        return "error" if errored_run else "failed"
    return "passed"


def _short(call: pytest.CallInfo[None]) -> str:
    if call.excinfo is None:
        return ""
    text = f"{call.excinfo.typename}: {call.excinfo.value}".strip()
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 300 else first[:297] + "..."


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    query = golden_query_of(item)
    if query is None:
        return report
    if call.when == "teardown" or (call.when == "setup" and report.passed):
        return report
    settings = item.config.stash[SETTINGS_KEY]
    record = item.stash.get(RECORD_KEY, None) if call.when == "call" else None
    if record is None:  # skipped, or stopped in setup or before scoring
        configuration, position = item_configuration(item, settings.fixture)
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else _short(call)
            record = skipped(query, configuration, settings, str(reason), position)
        else:
            prefix = "setup failed: " if call.when == "setup" else ""
            record = errored(query, configuration, settings, prefix + _short(call), position)
            item.user_properties.extend((name, 0.0) for name in record.metrics)
    record.outcome = _outcome(report, record.error is not None)
    report.retrieval = record.to_plain()  # type: ignore[attr-defined]
    return report
