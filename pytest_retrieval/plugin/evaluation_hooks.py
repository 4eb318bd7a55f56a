"""The hooks of an evaluation run: registered by the entry point
(:mod:`pytest_retrieval.plugin.hooks`) only with ``--retrieval-eval``.

A thin layer that translates between pytest and the pure cores: golden files become
items (:mod:`pytest_retrieval.plugin.collect`), each item's record travels on its
report (so xdist workers need nothing else), and the controller's
:class:`~pytest_retrieval.plugin.session.RetrievalSession` aggregates, prints and
writes. A run without ``--retrieval-eval`` never imports this module.
"""

from __future__ import annotations

import gc
import os
import warnings
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from ..advice import RetrievalGoldenWarning, RetrievalSettingsWarning
from ..bulk import Settler, freeze_at_exit
from ..golden import GoldenSet
from ..io.golden_file import (
    NOT_GOLDEN_JSON,
    dangling_links_in,
    golden_path_problems,
    is_golden_file,
    unread_json_note,
)
from ..io.ini import config_text, key_line
from ..model import rows_text
from ..quoting import encodable_data
from ..settings import (
    GOLDEN,
    SCHEMA,
    Raw,
    RunSettings,
    SettingsError,
    parse_run_settings,
    refuse_empty_ini,
    refuse_empty_options,
)
from .collect import (
    GoldenFile,
    call_golden,
    check_configuration_names,
    check_fixture,
    refuse_unreadable_keyword,
    warn_of_query_ids_in_deselect,
    warn_of_query_ids_in_keyword,
)
from .failure import item_failure, rebuild_failure
from .fetch import FETCHER_KEY, Fetcher
from .gathered import note_queries
from .item import recorded_errors, records_without_scoring, shorten_repeated_setup_error
from .keys import (
    COLLECTED_KEY,
    EXPLICIT_KEY,
    GOLDEN_FILES_KEY,
    GOLDEN_ROOTS_KEY,
    GOLDEN_SET_KEY,
    OUTBOX_KEY,
    RECORDED_KEY,
    RECORDS_KEY,
    REPLAY_KEY,
    SECOND_PATHS_KEY,
    SELECTED_KEY,
    SETTINGS_KEY,
)
from .metric_hooks import install_custom_metrics
from .nodes import (
    REPLAY_ARG,
    UNPARAMETRIZED,
    category_keywords,
    golden_ids,
    golden_of,
    item_configuration,
    nothing_to_find_ids,
)
from .options import ini_value, option_values
from .output_paths import refuse_clashing_outputs
from .outputs import shown_path, warn_at_golden_line, warning_text
from .rebuilds import RebuildWatch
from .replaying import load_for_run, share_with_worker
from .result_keys import stash_result_keys
from .session import RetrievalSession, hide_pytest_unknown_key_warnings
from .terminate import end_on_sigterm
from .usage import usage_error

SESSION_PLUGIN = "retrieval-session"
ITEM_HOOKS_PLUGIN = "retrieval-items"
REBUILDS_PLUGIN = "retrieval-rebuilds"


def _raw_values(config: pytest.Config) -> dict[str, Raw]:
    """Each setting's raw value: the option when given, else the ini value (None when the
    key is not in the ini file: the ini keys are declared without a default)."""
    raw = option_values(config)
    refuse_empty_options(raw)
    ini: dict[str, Raw] = {}
    for setting in SCHEMA:
        if raw.get(setting.name) in (None, []) and setting.ini is not None:
            ini[setting.name] = raw[setting.name] = ini_value(config, setting.name)
    given = {o.partition("=")[0] for o in getattr(config.option, "override_ini", None) or []}
    refuse_empty_ini({k: v for k, v in ini.items() if k in given}, "-o")
    refuse_empty_ini(ini, config.inipath.name if config.inipath is not None else "-o")
    return raw


def _from_option(config: pytest.Config, name: str) -> bool:
    return config.getoption(name) not in (None, [], False)


def _explicit_files(config: pytest.Config) -> set[Path]:
    base = config.invocation_params.dir
    files = set()
    for arg in config.args:
        path = Path(arg.split("::")[0])
        files.add((base / path).resolve() if not path.is_absolute() else path.resolve())
    return files


def _parse(config: pytest.Config) -> RunSettings:
    try:
        return parse_run_settings(_raw_values(config))
    except SettingsError as exc:
        raise usage_error(_as_given(config, str(exc))) from None


def _as_given(config: pytest.Config, message: str) -> str:
    """A setting's error named as the user gave it: the option, when it came from the
    command line (the messages name the ini key); else, when the ini file gave it, that
    file and line first (as a golden file's problems are named)."""
    given = option_values(config)
    for setting in SCHEMA:
        if not message.startswith((f"{setting.name}:", f"{setting.name} ")):
            continue
        if setting.option is not None and given.get(setting.name) not in (None, [], False):
            return setting.option + message[len(setting.name) :]
        return _in_ini_file(config, setting.name, message)
    return message


def _in_ini_file(config: pytest.Config, key: str, message: str) -> str:
    """``pytest.ini:4: MESSAGE`` when the ini file (not ``-o``) gave the key."""
    overrides = getattr(config.option, "override_ini", None) or []
    if config.inipath is None or any(str(o).split("=", 1)[0].strip() == key for o in overrides):
        return message
    line = key_line(config_text(config.inipath), key)
    return message if line is None else f"{shown_path(config, config.inipath)}:{line}: {message}"


def _golden_source(config: pytest.Config) -> str:
    """Where retrieval_golden was given, for the fix: -o, the ini file, or nowhere."""
    overrides = getattr(config.option, "override_ini", None) or []
    if any(str(o).split("=", 1)[0].strip() == GOLDEN.name for o in overrides):
        return f"given with -o {GOLDEN.name}=..."
    if config.inipath is not None and ini_value(config, GOLDEN.name) != GOLDEN.default.split():
        return f"in {config.inipath.name} ({GOLDEN.name})"  # not the default: set there
    return f"(default: {GOLDEN.default}), or set {GOLDEN.name} in your ini file"


def _redirect_collection(config: pytest.Config, run: RunSettings) -> None:
    """With no paths given, collect the golden paths instead of testpaths.

    pytest reads ``config.args`` after ``pytest_configure`` (checked on pytest 8
    and 9; tests/test_e2e_collection.py pins the effect).
    """
    golden = [config.rootpath / p for p in run.run.golden]
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        skipped = config.getini("norecursedirs")
        problems = golden_path_problems(config.rootpath, run.run.golden, skipped)
        if problems:
            raise usage_error(
                "--retrieval-eval: retrieval_golden: "
                + "; ".join(problems)
                + f": fix the path {_golden_source(config)}"
            )
        config.args = [str(p) for p in golden]
    # both the paths as written and their real ones: a file reached through a link from
    # inside a golden folder is golden wherever the link points
    roots = {p.resolve() for p in golden} | {Path(os.path.abspath(p)) for p in golden}
    config.stash[GOLDEN_ROOTS_KEY] = sorted(roots)
    config.stash[EXPLICIT_KEY] = _explicit_files(config)


def start(config: pytest.Config) -> None:
    """What ``pytest_configure`` does for an evaluation run: the settings, the golden
    set, the replay, the paths to collect and (in the controller) the session."""
    if not config.pluginmanager.has_plugin("python"):
        raise usage_error(
            "--retrieval-eval: golden queries are collected as test functions, which needs "
            "pytest's python plugin: remove -p no:python"
        )
    config.pluginmanager.register(GoldenItemHooks(), ITEM_HOOKS_PLUGIN)
    end_on_sigterm(config)
    freeze_at_exit()
    install_custom_metrics(config)  # before any metric name is read
    stash_result_keys(config)
    hide_pytest_unknown_key_warnings(config)  # the session warns of them, naming the key meant
    run = _parse(config)
    config.stash[SETTINGS_KEY] = run
    config.stash[GOLDEN_SET_KEY] = GoldenSet()
    replay = load_for_run(config, run)
    if replay is not None and not hasattr(config, "workerinput"):
        check_configuration_names(config, replay.configurations)  # known before collection
    config.stash[FETCHER_KEY] = Fetcher(run.run.calls, run.settings.fixture, replay)
    if replay is None:  # a replay builds no retriever
        config.pluginmanager.register(RebuildWatch(run.settings.fixture), REBUILDS_PLUGIN)
    _redirect_collection(config, run)
    if not hasattr(config, "workerinput"):
        refuse_unreadable_keyword(config)
        if _from_option(config, "retrieval_baseline"):
            baseline_path = config.invocation_params.dir / run.run.baseline
        else:
            baseline_path = config.rootpath / run.run.baseline
        refuse_clashing_outputs(config, run, baseline_path)
        session = RetrievalSession(config, run, baseline_path)
        session.notes.extend(replay.notes if replay is not None else ())
        config.pluginmanager.register(session, SESSION_PLUGIN)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Under ``--retrieval-replay`` the configurations are the recording's. The one
    configuration of a retriever fixture with no params is not a parameter: its items
    keep the live run's node ids (``q1``, not ``q1[default]``), so ``--deselect``, the
    last-failed cache and CI's test history carry over between the two."""
    if REPLAY_ARG not in metafunc.fixturenames:
        return
    replay = metafunc.config.stash.get(REPLAY_KEY, None)
    names = replay.configurations if replay is not None else []
    if names != [UNPARAMETRIZED]:  # else the fixture below names it
        metafunc.parametrize(REPLAY_ARG, names, ids=names)


@pytest.fixture(name=REPLAY_ARG)
def replayed_unparametrized() -> str:
    """The replayed configuration of an item not parametrized (:func:`pytest_generate_tests`)."""
    return UNPARAMETRIZED


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist sets up a worker: hand it the replay this process read."""
    share_with_worker(node.config, node.workerinput)


def pytest_unconfigure(config: pytest.Config) -> None:
    fetcher = config.stash.get(FETCHER_KEY, None)
    if fetcher is not None:
        fetcher.close()


def _is_golden(config: pytest.Config, path: Path, resolved: Path) -> bool:
    """Named on the command line, or under a golden path, as written or as it resolves."""
    if resolved in config.stash[EXPLICIT_KEY]:
        return True
    roots = config.stash[GOLDEN_ROOTS_KEY]
    return any(
        found == root or root in found.parents
        for found in (resolved, Path(os.path.abspath(path)))
        for root in roots
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note which configurations have selected items; a worker hands that and the
    collected golden ids to the controller."""
    config = session.config
    # The golden set, the items and a replay's answers live to the end of the session:
    # set apart from the cyclic collector, which would walk all of them at every full
    # collection (a third of a 20,000-query replay's time); back to normal at the very end
    # (hooks.pytest_configure_unfreeze_last).
    gc.freeze()
    collected: set[str] = config.stash.get(COLLECTED_KEY, set())
    if config.stash.get(REPLAY_KEY, None) is None:
        check_fixture(session.items, config.stash[SETTINGS_KEY].settings.fixture)
        if not hasattr(config, "workerinput"):  # a replay's are checked when it is read
            check_configuration_names(config, collected)
    warn_of_query_ids_in_keyword(session)
    warn_of_query_ids_in_deselect(session)
    selected = sorted(
        {item_configuration(item)[0] for item in session.items if golden_of(item) is not None}
    )
    config.stash[SELECTED_KEY] = selected
    workeroutput = getattr(config, "workeroutput", None)
    if isinstance(workeroutput, dict):
        workeroutput["retrieval_golden"] = golden_ids(config)
        workeroutput["retrieval_nothing_to_find"] = nothing_to_find_ids(config)
        workeroutput["retrieval_selected"] = selected
        workeroutput["retrieval_collected"] = sorted(collected)
        workeroutput["retrieval_categories"] = category_keywords(config)
        note_queries(config)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if not is_golden_file(file_path):
        if file_path.suffix.lower() in NOT_GOLDEN_JSON:
            _advise_of_unread_json(config, file_path)
        return None
    resolved = file_path.resolve()
    if not _is_golden(config, file_path, resolved):
        return None
    first = config.stash.setdefault(GOLDEN_FILES_KEY, {}).setdefault(resolved, file_path)
    if first != file_path:  # the same file again, through a symbolic link
        _warn_once_of_a_second_path(config, file_path, first)
        return None
    return GoldenFile.from_parent(parent, path=file_path)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A golden folder's dangling links (a file moved, a linked folder not checked out),
    which pytest's walk leaves out in silence, collected as golden files: reading one
    fails, naming its missing target (as the command line's walk does)."""
    report = yield
    if isinstance(collector, pytest.Directory) and report.passed:
        config = collector.config
        report.result.extend(
            GoldenFile.from_parent(collector, path=link)
            for link in dangling_links_in(collector.path)
            if _is_golden(config, link, Path(os.path.abspath(link)))
        )
    return report


def _advise_of_unread_json(config: pytest.Config, path: Path) -> None:
    """A ``.json`` or ``.ndjson`` file of golden queries in a golden folder, which would be
    passed over in silence: a golden warning naming it and the fix (once, not in every
    xdist worker); under ``-W error`` a collection error saying the same."""
    if getattr(config, "workerinput", {}).get("workerid", "gw0") != "gw0":
        return
    if not _is_golden(config, path, path.resolve()):
        return
    shown = shown_path(config, path)
    text = unread_json_note(path, shown)
    if text is None:
        return
    try:
        warn_at_golden_line(config, RetrievalGoldenWarning, text, shown, 1)
    except RetrievalGoldenWarning:
        raise pytest.Collector.CollectError(f"{text} (-W error)") from None


def _warn_once_of_a_second_path(config: pytest.Config, again: Path, first: Path) -> None:
    """A golden file reached again through a symbolic link (a folder linked into the
    golden folder, a loop): collected once, under its first path, and said once."""
    said = config.stash.setdefault(SECOND_PATHS_KEY, set())
    if first in said:
        return
    said.add(first)
    shown = [shown_path(config, p) for p in (again, first)]
    text = (
        f"{shown[0]} is {shown[1]} again, reached through a symbolic link: collected once, "
        f"as {shown[1]} (a link into the golden folder, or a loop)"
    )
    kind = RetrievalSettingsWarning
    try:
        warnings.warn_explicit(
            kind(warning_text(config, kind, text, shown[0], 1)), kind, shown[0], 1
        )
    except RetrievalSettingsWarning:  # -W error: the folder's collection error, saying why
        raise pytest.Collector.CollectError(f"{text} (-W error: {kind.__name__})") from None


class GoldenItemHooks:
    """The per-item hooks, registered only with ``--retrieval-eval``: without it the
    plugin adds nothing to any test's setup or reports."""

    def __init__(self) -> None:
        self.settler = Settler()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        golden = golden_of(item)
        if golden is not None:
            self.settler.done(len(golden.queries))

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        return call_golden(pyfuncitem)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        golden = golden_of(item)
        if golden is None:
            return
        configuration, _ = item_configuration(item)
        categories = sorted({q.category for q in golden.queries})
        item.user_properties.extend(
            [("configuration", configuration), ("category", " ".join(categories))]
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(
        self, report: pytest.CollectReport | pytest.TestReport
    ) -> Generator[None, dict[str, object] | None, dict[str, object] | None]:
        """An xdist worker's failure of a golden item whose text holds a lone surrogate (a
        retriever's exception naming a file decoded with surrogateescape:
        ``'/data/\\udcff.idx'``) with it escaped: execnet refuses to send such text, and
        the worker would crash (an INTERNALERROR, the query counted as a crashed
        worker's)."""
        data = yield
        if data is None or not report.failed or not hasattr(report, "retrieval"):
            return data
        return encodable_data(data)

    @pytest.hookimpl(wrapper=True)
    def pytest_report_from_serializable(
        self, data: dict[str, object]
    ) -> Generator[None, object, object]:
        """On the controller: a worker's failed golden item, wrapped to this terminal."""
        report = yield
        if isinstance(report, pytest.TestReport):
            rebuild_failure(report)
        return report

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        golden = golden_of(item)
        if golden is None:
            return report
        item_failure(item, call, report)
        if call.when == "teardown" or (call.when == "setup" and report.passed):
            return report
        records = item.stash.get(RECORDS_KEY, None) if call.when == "call" else None
        if records is not None and report.skipped and isinstance(report.longrepr, tuple):
            # a coarse item whose queries all skipped: at its golden file's line, as a skip
            # mark is (the plugin's own code raised it)
            path, line, _ = item.reportinfo()
            report.longrepr = (str(path), (line or 0) + 1, report.longrepr[2])
        recorded = item.stash.get(RECORDED_KEY, None) if call.when == "call" else None
        if records is None:  # skipped, or stopped in setup or before scoring
            run = item.config.stash[SETTINGS_KEY]
            records = records_without_scoring(item, golden.queries, report, call, run.settings)
            shorten_repeated_setup_error(item, call, report)
            if run.run.calls.record:
                recorded = recorded_errors(golden.queries, records)
        if hasattr(item.config, "workerinput"):  # what crosses to the controller is plain data
            report.retrieval = rows_text(records)  # type: ignore[attr-defined]
        else:  # the report stays plain data (for report-log plugins); the records wait here
            item.config.stash.setdefault(OUTBOX_KEY, {})[report.nodeid] = records
            report.retrieval = len(records)  # type: ignore[attr-defined]
        if recorded:
            report.retrieval_recorded = recorded  # type: ignore[attr-defined]
        return report
