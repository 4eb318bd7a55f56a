"""The controller's session: gathers records, gates or updates the baseline, writes reports.

Registered only on the controller (never on an xdist worker), so it needs no
guards and it is the only writer of files. What it prints is
:mod:`pytest_retrieval.plugin.terminal`; the gate's testcase is
:mod:`pytest_retrieval.plugin.gate_case`.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
import warnings
from collections import Counter
from collections.abc import Generator, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from _pytest.warnings import catch_warnings_for_item

from ..advice import RetrievalSettingsWarning, RetrievalWarning, merged_advice
from ..baseline import (
    Baseline,
    BaselineError,
    BaselineMissing,
    RunFacts,
    UpdateOutcome,
    merge_update,
    settings_differences,
    update_hint,
)
from ..evaluation import Evaluation, analyse
from ..gate import GateResult, hold_latency_budgets, no_baseline_message, run_gate
from ..history import build_entry
from ..io.atomic import folder_locked
from ..io.baseline_file import (
    looks_like_baseline,
    read_baseline,
    unchanged_by,
    write_baseline,
)
from ..io.common import counted, did_you_mean_file, exists, some_ids
from ..io.file_kinds import BASELINE_KIND, own_file_kind
from ..io.golden_file import is_golden_file
from ..io.ini import IniError, config_text, key_line, read_config_file
from ..io.provenance import provenance
from ..io.recording import RecordingWriter, error_line, is_recording
from ..model import Outcome, QueryRecord, RecordError, Results, rows_of
from ..quoting import quoted
from ..replay import recording_notes, trec_coverage
from ..report.gate_text import REPORT_WIDTH, explain, headline
from ..report.run_report import GoldenInfo, RunReport
from ..report.writers import ReportsInterrupted, write_reports
from ..settings import RunSettings, Tolerances, unknown_ini_keys
from .collect import fixture_place
from .gate_case import log_verdict
from .gathered import Gathered
from .keys import (
    COLLECTED_KEY,
    GOLDEN_ROOTS_KEY,
    OUTBOX_KEY,
    REPLAY_KEY,
    SELECTED_KEY,
)
from .missing import MESSAGE as MISSING
from .missing import is_golden_nodeid, missing_records
from .nodes import UNPARAMETRIZED, category_keywords, golden_ids, nothing_to_find_ids
from .options import retrieval_overrides, selection_given
from .outputs import (
    History,
    github_output,
    log_path,
    on_github,
    record_run,
    shown_path,
    sources_cut,
    stamp,
    utc_now,
    warning_text,
    warnings_on,
)
from .terminal import write_summary
from .usage import usage_error

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter


def _stopped(session: pytest.Session, collection_errors: int) -> str | None:
    """Why the run did not run every selected item, or None."""
    if collection_errors and not session.config.option.continue_on_collection_errors:
        return counted(collection_errors, "collection error")
    reason = session.shouldfail or session.shouldstop
    return f"stopped early: {reason}" if reason else None


def _nothing_runs(config: pytest.Config) -> bool:
    """``--collect-only``, ``--setup-only`` or ``--setup-plan``: no item's body runs, so
    there is nothing to evaluate, gate or write (not queries missing from a crash)."""
    return bool(config.option.collectonly or getattr(config.option, "setuponly", False))


def _recording(config: pytest.Config, run: RunSettings) -> RecordingWriter | None:
    path = run.run.calls.record
    if path is None:
        return None
    target = config.invocation_params.dir / path  # checked: plugin/output_paths.py
    try:
        return RecordingWriter(target, run.settings.as_dict())
    except OSError as exc:
        reason = exc.strerror or str(exc)  # not exc itself: it names the temporary file
        raise usage_error(f"--retrieval-record {path}: cannot write there: {reason}") from None


Advice = tuple[type[RetrievalWarning], str, str, int]  # warning, text, file, line


_KEY_FIX = (
    "; the setting it meant keeps its default: fix the key's name (--strict-config makes "
    "unknown keys an error)"
)


def unknown_key_advice(config: pytest.Config) -> list[Advice]:
    """A settings warning at each ``retrieval_*`` key of the ini file (or of ``-o``) that
    no setting has, with the closest key: pytest's own warning does not say which was
    meant, and the setting meant keeps its default unnoticed (a tolerance, a timeout)."""
    return [advice for _, advice in _unknown_keys(config)]


def _unknown_keys(config: pytest.Config) -> list[tuple[str, Advice]]:
    """Each unknown ``retrieval_*`` key of ``-o`` and the ini file, with its advice."""
    given = [o.partition("=")[0].strip() for o in config.option.override_ini or ()]
    found: list[tuple[str, Advice]] = [
        (key, (RetrievalSettingsWarning, f"-o {note}{_KEY_FIX}", "-o", 1))
        for key, note in unknown_ini_keys(given)
    ]
    path = config.inipath
    if path is None:
        return found
    shown = shown_path(config, path)
    try:
        keys = read_config_file(path).values  # config.inicfg is deprecated in pytest 9
    except (OSError, UnicodeDecodeError, IniError):
        return found  # pytest read it: nothing to add
    content = config_text(path)
    for key, note in unknown_ini_keys(keys):
        advice = (RetrievalSettingsWarning, note + _KEY_FIX, shown, key_line(content, key) or 1)
        found.append((key, advice))
    return found


def hide_pytest_unknown_key_warnings(config: pytest.Config) -> None:
    """pytest's own ``PytestConfigWarning: Unknown config option: retrieval_tolerence``
    (at a line of pytest's source) is filtered out for the keys the plugin warns of at
    their own line, naming the key meant: one typo, one warning. ``--strict-config``
    still makes each an error. A filter's fields are split at colons: the pattern
    writes its own as ``\\x3a``."""
    for key, _ in _unknown_keys(config):
        pattern = f"Unknown config option: {re.escape(key)}$".replace(":", r"\x3a")
        config.addinivalue_line("filterwarnings", f"ignore:{pattern}:pytest.PytestConfigWarning")


def setting_place(config: pytest.Config, key: str) -> tuple[str, int] | None:
    """The ini file and the line where ``key`` is set, when it is set there (not by -o)."""
    given = {o.partition("=")[0].strip() for o in config.option.override_ini or ()}
    path = config.inipath
    if path is None or key in given:
        return None
    line = key_line(config_text(path), key)
    return (shown_path(config, path), line) if line else None


def unmatched_show(patterns: Sequence[str], ids: set[str]) -> list[str]:
    """A note for each ``--retrieval-show`` pattern no evaluated query matched (a typo
    otherwise shows nothing at all), with the closest ids, or the glob for the ids it
    is the start of."""
    notes = []
    for pattern in patterns:
        if any(fnmatch.fnmatchcase(qid, pattern) for qid in ids):
            continue
        close = difflib.get_close_matches(pattern, sorted(ids), n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        starting = sum(qid.startswith(pattern) for qid in ids)
        if starting and not close:  # the start of ids, meant as a prefix: the glob for it
            hint = f"; {counted(starting, 'id')} start with it: --retrieval-show '{pattern}*'"
        notes.append(
            f"--retrieval-show {quoted(pattern, '')}: no query of this run has that id{hint}"
        )
    return notes


def _unread_baseline_hint(path: Path, update: str) -> str:
    """What to do with a baseline that cannot be read. The update rewrites only an empty
    file or one that starts as a baseline (a damaged one); a golden file or another file
    of the plugin's is no baseline to delete: the setting names the wrong file."""
    if path.stat().st_size == 0 or looks_like_baseline(path):
        return f"Fix or delete the file, or run `{update}` to rewrite it"
    kind = own_file_kind(path)
    if kind is not None or is_golden_file(path):
        what = f"a pytest-retrieval {kind}" if kind is not None else "a golden file"
        return f"It is {what}: point retrieval_baseline (or --retrieval-baseline) at the baseline"
    return f"Fix the file, or delete it and run `{update}` to write a new one"


# outcomes a coarse item's pass does not show
_INSIDE: tuple[Outcome, ...] = ("skipped", "xfailed", "xpassed")


def inside_coarse_items(records: Iterable[QueryRecord], items: str) -> list[str]:
    """With category or shard items, a note counting the queries inside them that were
    skipped, xfailed or xpassed: pytest's summary counts the items, which pass."""
    if items == "query":
        return []
    counts = Counter(r.outcome for r in records if r.outcome in _INSIDE)
    shown = [f"{counts[outcome]} {outcome}" for outcome in _INSIDE if counts[outcome]]
    if not shown:
        return []
    total = sum(counts.values())
    return [
        f"inside the {items} items, {total} {'query' if total == 1 else 'queries'}: "
        f"{', '.join(shown)} (the JSON report has each query's outcome; retrieval_items = "
        "query makes them items of their own)"
    ]


class RetrievalSession:
    """Aggregates every golden item's record; one per controller process."""

    def __init__(self, config: pytest.Config, run: RunSettings, baseline_path: Path):
        self.config = config
        self.run = run
        self.baseline_path = baseline_path
        self.results = Results()
        self._evaluation: Evaluation | None = None
        self.worker_golden: dict[str, str] = {}
        self.worker_nothing: set[str] = set()  # golden queries with no relevant judgment
        self.worker_selected: set[str] = set()
        self.worker_collected: set[str] = set()
        self.worker_categories: set[str] = set()  # as -k takes them
        self.gate: GateResult | None = None
        self._gate_text: str | None = None
        self.update: UpdateOutcome | None = None
        self.notes: list[str] = []
        self.escalated: list[str] = []  # advice that -W or filterwarnings made an error
        self.advice_shown = 0  # advice that reached the warnings summary (not filtered out)
        self.expected: set[str] = set()  # golden items selected (on every worker)
        self.received: set[str] = set()  # golden items whose record arrived
        self.errored_items: set[str] = set()  # golden items holding a query that errored
        self.collection_errors = 0
        self.incomplete: str | None = None  # why the run did not run every item
        self.failed_write = False  # a baseline or report could not be written
        self.written: list[Path] = []
        self.gathered = Gathered()  # retriever metadata, query lines and texts
        self.baseline: Baseline | None = None  # what the gate compared with
        self.history: History | None = None  # --retrieval-log
        self.annotations: list[str] = []  # GitHub Actions workflow commands
        self.finished = ""  # when the items were done (UTC, ISO 8601)
        self.recording = _recording(config, run)  # --retrieval-record

    # -- gathering --------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "retrieval", None)
        if data is None:
            return
        self.received.add(report.nodeid)
        if isinstance(data, int):  # made in this process: the records wait in the outbox
            for record in self.config.stash.get(OUTBOX_KEY, {}).pop(report.nodeid, []):
                self._add(report.nodeid, record)
        else:
            self._read_rows(report.nodeid, data)
        recorded = getattr(report, "retrieval_recorded", None)
        if recorded and self.recording is not None:
            for line in recorded:
                self.recording.add(line)

    def _read_rows(self, nodeid: str, data: object) -> None:
        """A worker's records: :func:`~pytest_retrieval.model.rows_text`, each row checked."""
        rows = data if isinstance(data, list) else [data]
        if isinstance(data, str):
            try:
                rows = rows_of(data)
            except RecordError as exc:
                self.notes.append(f"{nodeid}: records that could not be read: {exc}")
                return
        for row in rows:
            try:
                self._add(nodeid, QueryRecord.from_row(row))  # type: ignore[arg-type]
            except RecordError as exc:
                self.notes.append(f"{nodeid}: a record that could not be read: {exc}")

    def _add(self, nodeid: str, record: QueryRecord) -> None:
        self.results.add(record)
        if record.outcome == "error":
            self.errored_items.add(nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors += 1

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.expected.update(i.nodeid for i in session.items if is_golden_nodeid(i.nodeid))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self.expected.update(i for i in ids if is_golden_nodeid(i))

    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage) -> None:
        if issubclass(warning_message.category, RetrievalWarning):
            self.advice_shown += 1

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        output = getattr(node, "workeroutput", None) or {}
        self.worker_golden.update(output.get("retrieval_golden") or {})
        self.worker_nothing.update(output.get("retrieval_nothing_to_find") or [])
        self.worker_selected.update(output.get("retrieval_selected") or [])
        self.worker_collected.update(output.get("retrieval_collected") or [])
        self.worker_categories.update(output.get("retrieval_categories") or [])
        self.gathered.add_worker(output)

    def facts(self, baseline: Baseline | None) -> RunFacts:
        """What this run saw: golden ids and files, collected and selected configurations."""
        existing = {p for p in (baseline.files() if baseline else ()) if self._exists(p)}
        collected, selected = self._configurations_seen()
        replayed = self.run.run.calls.replay
        return RunFacts(
            golden_ids={**self.worker_golden, **golden_ids(self.config)},
            existing_files=frozenset(existing),
            selected=frozenset(selected),
            collected=frozenset(collected),
            retrievers=self.gathered.retrievers,
            replayed=replayed,
            replayed_trec=bool(replayed) and not any(map(is_recording, self._replayed_paths)),
            selection=selection_text(self.config),
        )

    def _configurations_seen(self) -> tuple[set[str], set[str]]:
        """The configurations collected and those with selected golden items, over every
        process (under xdist the workers collect)."""
        own_collected: set[str] = self.config.stash.get(COLLECTED_KEY, set())
        own_selected: list[str] = self.config.stash.get(SELECTED_KEY, [])
        return self.worker_collected | own_collected, self.worker_selected | set(own_selected)

    def _none_selected(self) -> bool:
        """Golden items were collected and the selection (-k, -m, the paths) left none."""
        collected, selected = self._configurations_seen()
        return not self.results and bool(collected) and not selected

    def _none_selected_note(self) -> str:
        """What -k can take, when it selected no golden item (else only the gate said
        anything, and with no baseline yet it advised an update)."""
        collected, _ = self._configurations_seen()
        names = sorted(collected - {UNPARAMETRIZED})  # not in the ids of a fixture without params
        categories = sorted(self.worker_categories.union(category_keywords(self.config)))
        keyword = self.config.getoption("keyword", "") or ""
        given = f"-k {keyword!r}" if keyword else selection_text(self.config)
        takes = [f"a configuration ({some_ids(names)})"] if names else []
        takes += [f"a category ({some_ids(categories)})"] if categories else []
        return (
            f"retrieval: {given} selected none of the golden items, so no query was "
            f"evaluated; -k takes {', '.join([*takes, 'a tag or a query id'])}"
        )

    @property
    def _replayed_paths(self) -> list[Path]:
        """--retrieval-replay's files (relative to the folder pytest was started in)."""
        return [self.config.invocation_params.dir / f for f in self.run.run.calls.replay]

    def _exists(self, path: str) -> bool:
        return exists(self.config.rootpath / path)

    @property
    def baseline_shown(self) -> str:
        try:
            return str(self.baseline_path.relative_to(self.config.rootpath))
        except ValueError:
            return str(self.baseline_path)

    @property
    def tolerance(self) -> Tolerances:
        return self.run.gate.tolerance

    @property
    def coarse_items(self) -> bool:
        return self.run.run.calls.items.mode != "query"

    def gate_text(self) -> str:
        """The gate's explanation for JUnit (unwrapped), built once."""
        if self._gate_text is None:
            assert self.gate is not None
            self._gate_text = explain(self.gate, self.tolerance)
        return self._gate_text

    @property
    def evaluation(self) -> Evaluation:
        """Every derived number, computed once, after the last report arrived."""
        if self._evaluation is None:
            run = self.run
            self._evaluation = analyse(self.results, run.settings, run.stats, run.run.group_bys)
        return self._evaluation

    # -- gate and baseline ------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        try:
            outcome = yield
        except (session.Failed, session.Interrupted, KeyboardInterrupt) as stop:
            # -x / --maxfail / a stop request ends the loop by raising; under xdist the
            # controller's session is not told why, xdist's own Interrupted (a
            # KeyboardInterrupt) says it. Ctrl-C itself: pytest_sessionfinish says it.
            if type(stop) is KeyboardInterrupt:
                raise
            self._gather_local()
            self._mark_incomplete(session, str(stop))
            raise
        except BaseException as stop:
            # pytest.exit(returncode=...) in a retriever or a hook, or another plugin's
            # internal error (xdist's, when a worker called pytest.exit): the session ends
            # with another code than INTERRUPTED, and the items not run reported nothing
            self._gather_local()
            why = f"an error ({type(stop).__name__})"
            if isinstance(stop, pytest.exit.Exception):
                why = f"pytest.exit: {stop.msg}"
            self._mark_incomplete(session, why)
            raise
        if _nothing_runs(self.config):
            return outcome
        self._gather_local()
        if self._mark_incomplete(session):
            return outcome
        self._add_missing()
        self.notes += inside_coarse_items(self.results.all_records(), str(self.run.run.calls.items))
        if self.run.run.show:  # every record's id, only when there is a pattern to match
            ids = {r.id for r in self.results.all_records()}
            self.notes += unmatched_show(self.run.run.show, ids)
        self._advise()
        if self._none_selected():
            self.notes.append(self._none_selected_note())
        if self.run.run.update_baseline:
            self._update_baseline()
        else:
            self._run_gate(session)
        self._record_history()
        return outcome

    def _close_recording(self) -> None:
        if self.recording is None:
            return
        if not self.recording.entries and self.recording.failed is None:  # -k chose nothing
            self.recording.abandon()  # the recording there (if any) is left as it was
            self.notes.append(
                f"retrieval recording not written: no query was evaluated "
                f"({self.recording.path} is left as it was)"
            )
            return
        try:
            digest = GoldenInfo.of(self.results).sha256
            complete = self.incomplete is None
            self.recording.close(complete, digest, self.gathered.retrievers)
            partial = "" if self.incomplete is None else ", incomplete"
            self.notes.append(
                f"retrieval recording written: {self.recording.path} "
                f"({counted(self.recording.entries, 'entry', 'entries')}: a query's answer "
                f"from one configuration each{partial})"
            )
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self.notes.append(
                f"retrieval recording NOT written: {self.recording.path}: {reason} (the run "
                "went on without it; nothing was left there)"
            )
            self.failed_write = True

    def _gather_local(self) -> None:
        """The end of the items: when, and what this process gathered beside the records."""
        self.finished = utc_now()
        self.gathered = self.gathered.with_local(self.config)
        self.notes.extend(self.gathered.notes)
        replay = self.config.stash.get(REPLAY_KEY, None)
        if replay is not None and replay.trec:
            evaluated = {
                c: [r.id for r in self.results.view(c).records if r.outcome != "skipped"]
                for c in self.results.configurations()
            }
            golden = {**self.worker_golden, **golden_ids(self.config)}
            nothing = self.worker_nothing | set(nothing_to_find_ids(self.config))
            empty = self.run.settings.conventions.empty
            brief = self.config.get_verbosity() < 0
            self.notes.extend(trec_coverage(replay, evaluated, golden, nothing, empty, brief))
        elif replay is not None:
            errors = [
                (r.configuration, r.id, r.error)
                for r in self.results.all_records()
                if r.error is not None
            ]
            self.notes.extend(recording_notes(replay, errors, self.coarse_items))

    def _mark_incomplete(self, session: pytest.Session, stop: str | None = None) -> bool:
        """Record why the run is incomplete, if it is; True when it is. ``stop``: why the
        loop was stopped, when it was."""
        self.incomplete = _stopped(session, self.collection_errors)
        if self.incomplete is None and stop is not None:
            self.incomplete = f"stopped early: {stop or 'interrupted'}"
        if self.incomplete is None:
            return False
        self._say_incomplete()
        return True

    def _say_incomplete(self) -> None:
        # nothing ran: pytest's own line says why, unless a report will say it
        # ("complete": false) and the terminal would not
        if self.received or self.run.run.reports:
            self.notes.append(f"the run is incomplete ({self.incomplete}): not gated, no update")

    def _add_missing(self) -> None:
        """Items selected that sent nothing count as errors scoring 0, named."""
        missing = sorted(self.expected - self.received)
        if not missing:
            return
        known = self.results.configurations()
        root, settings = self.config.rootpath, self.run.settings
        items = self.run.run.calls.items
        records, unread = missing_records(missing, root, settings, known, items)
        for query, record in records:
            self.results.add(record)
            if self.recording is not None:  # as the error it scored, for a replay alike
                self.recording.add(error_line(query, record.configuration, MISSING))
        self.errored_items.update(missing)
        self.notes.append(
            f"{counted(len(missing), 'golden item')} sent no result (a crashed worker?); "
            f"{'it counts as an error' if len(missing) == 1 else 'they count as errors'} "
            "scoring 0: " + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        )
        if unread:
            self.notes.append("and could not be read back: " + ", ".join(unread[:10]))

    def _resets_under_part(self, previous: Baseline | None) -> bool:
        """Whether the update is refused: a baseline made with other settings (a metric
        added) is replaced whole, and a run of part of the set (-k, --lf, some files)
        would replace it with only the queries it ran, dropping every other one."""
        if previous is None:
            return False
        differ = settings_differences(previous.settings, self.run.settings.as_dict())
        if not differ or not self._partial():
            return False
        self.notes.append(
            f"retrieval baseline NOT written: {self.baseline_shown} was made with other "
            f"settings ({'; '.join(differ)}), so an update replaces it whole, and this run "
            "evaluated part of the golden set (-k, --lf, some files, a stopped run): writing "
            "it would drop every other query; run the update on the whole set"
        )
        self.failed_write = True
        return True

    def _previous_baseline(self) -> Baseline | None:
        """The baseline the update merges into; None when there is none, or when it cannot
        be read and this run evaluated the whole golden set (it is then replaced). One that
        cannot be read under a partial run is kept: BaselineError."""
        try:
            return read_baseline(self.baseline_path, self.baseline_shown)
        except BaselineMissing:
            return None
        except BaselineError as exc:
            if self._partial():
                raise
            self.notes.append(f"the previous baseline could not be read and is replaced: {exc}")
            return None

    def _partial(self) -> bool:
        """This run left out golden queries: files or node ids named on the command line
        that are not the golden folders, or some collected (query, configuration) not
        run (-k, --lf, a stop)."""
        config = self.config
        if config.args_source == pytest.Config.ArgsSource.ARGS:
            listed: list[Path] = config.stash.get(GOLDEN_ROOTS_KEY, [])
            roots = set(listed)
            base = config.invocation_params.dir
            if any("::" in arg or (base / arg).resolve() not in roots for arg in config.args):
                return True
        facts = self.facts(None)
        wanted, run = set(facts.golden_ids), set(self.results.configurations())
        return any(
            name not in run or not wanted <= {r.id for r in self.results.view(name).records}
            for name in facts.collected or ()
        )

    def _update_baseline(self) -> None:
        if not self.results:
            self.notes.append("retrieval baseline not written: no query was evaluated")
            return
        with folder_locked(self.baseline_path):  # another run's update waits, then merges
            self._merge_and_write_baseline()

    def _merge_and_write_baseline(self) -> None:
        try:
            previous = self._previous_baseline()
        except BaselineError as exc:
            self.notes.append(
                f"retrieval baseline NOT written: {exc}; this run evaluated part of the golden "
                "set (-k, --lf, a stopped run), and writing it would drop every other query: "
                "fix the file, or run the update on the whole set to rewrite it"
            )
            self.failed_write = True
            return
        if self._resets_under_part(previous):
            return
        update = merge_update(
            previous,
            self.results,
            self.run.settings,
            self.facts(previous),
            provenance(self.config.rootpath),
            keep_absent=bool(self.run.gate.configurations),
        )
        if not update.updated:
            self.notes.append(_nothing_to_write(self.results.all_records()))
            return
        if unchanged_by(previous, update.baseline):
            update.unchanged = True
            self.update = update
            return
        try:
            write_baseline(self.baseline_path, update.baseline)
        except OSError as exc:
            self.notes.append(
                f"retrieval baseline NOT written: {self.baseline_shown}: {exc.strerror or exc}"
            )
            self.failed_write = True
            return
        self.update = update

    def _gate_result(self) -> GateResult:
        shown, run = self.baseline_shown, self.run
        # a replayed run: replayed again; -o overrides of the plugin's keys: given again
        update = update_hint(shown, run.run.calls.replay, retrieval_overrides(self.config))
        if self.baseline_path.is_dir():  # unreadable, and no update would rewrite it
            message = (
                f"{shown} is a folder, not a baseline file: give retrieval_baseline (or "
                "--retrieval-baseline) the path of a file, or move the folder away"
            )
            return GateResult("refused", shown, messages=[message], update=update)
        try:
            baseline = read_baseline(self.baseline_path, shown)
        except BaselineMissing:
            near = did_you_mean_file(self.baseline_path, shown, keep=_is_baseline)
            message = no_baseline_message(shown, update, near)
            return GateResult("no-baseline", shown, messages=[message], update=update)
        except BaselineError as exc:
            message = f"{exc}. {_unread_baseline_hint(self.baseline_path, update)}"
            return GateResult("refused", shown, messages=[message], update=update)
        self.baseline = baseline
        facts, draws, results = self.facts(baseline), self.evaluation.draws, self.results
        return run_gate(
            baseline, shown, results, run.settings, run.gate, run.stats, facts, draws, update
        )

    def _run_gate(self, session: pytest.Session) -> None:
        self.gate = self._gate_result()
        selection = selection_given(self.config)
        if self.gate.partial and selection:  # the update of what this run compared
            replay, overrides = self.run.run.calls.replay, retrieval_overrides(self.config)
            shown = self.baseline_shown
            self.gate.update_part = update_hint(shown, replay, overrides, selection)
        if self.gate.verdict != "refused":
            collected = self.facts(self.baseline).collected
            self.notes += hold_latency_budgets(self.gate, self.results, self.run.gate, collected)
        self.gate.mode = self.run.gate.mode  # also for a refusal: report mode never fails
        if self.gate.verdict != "no-baseline":
            log_verdict(session, self.gate, headline(self.gate), self.gate_text())

    def _part_run(self) -> str | None:
        """How this run selected part of what it collected (-k, --lf: some golden queries
        or configurations), said as the log's note; None for a whole run."""
        facts = self.facts(None)
        ran = {record.id for record in self.results.all_records()}
        parts = []
        if len(ran) < len(facts.golden_ids):
            parts.append(f"{len(ran)} of {len(facts.golden_ids)} golden queries")
        selected, collected = facts.selected or frozenset(), facts.collected or frozenset()
        if len(selected) < len(collected):
            parts.append(f"{len(selected)} of {len(collected)} configurations")
        return f"it ran {' and '.join(parts)} ({facts.selection})" if parts else None

    def _record_history(self) -> None:
        """``--retrieval-log``: compare with the previous run of the label, append this one;
        a run of part of the set is not appended under no label of its own (its means are
        not the whole run's, and the next whole run would read a changed golden set)."""
        path = log_path(self.config, self.run)
        if path is None or not self.results:
            return
        part = self._part_run()
        if part is not None and not self.run.run.label:
            self.notes.append(
                f"retrieval log {shown_path(self.config, path)}: not appended: {part}; the "
                "log compares whole runs: run them all, or log this selection under a "
                "--retrieval-label of its own"
            )
            return
        golden = GoldenInfo.of(self.results)
        entry = build_entry(
            self.evaluation, self.run.settings.as_dict(), (golden.queries, golden.sha256),
            self.gathered.retrievers, self.gate, stamp(self.config.rootpath, self.finished),
            self.run.run.label,
        )  # fmt: skip
        self.history = history = record_run(self.config, path, entry)
        self.notes += history.notes
        self.escalated += history.escalated
        self.failed_write = self.failed_write or history.failed

    def _advise(self) -> None:
        """Issue the evaluation's advice (and the ini file's unknown keys) as warnings,
        through pytest's filters.

        They reach the warnings summary; ``-W error::pytest_retrieval.RetrievalWarning``
        (or ``filterwarnings``) turns them into a failure of the run.
        """
        found = unknown_key_advice(self.config)
        if self.results:
            warned = self.evaluation.warnings
            if self.config.get_verbosity() < 1:  # -v: a warning per category
                warned = merged_advice(warned)
            where = self._advice_locations() if warned else {}  # a walk over every record
            fixture = fixture_place(self.config, self.run.settings.fixture)
            for advice in warned:
                path, line = where.get(advice.category or "", where.get("", ("retrieval", 1)))
                if advice.at_fixture and fixture is not None:
                    path, line = fixture
                if advice.query is not None:
                    path, qid = advice.query
                    line = self.gathered.places.get(qid, (1, None))[0]
                if advice.setting is not None:
                    path, line = setting_place(self.config, advice.setting) or (path, line)
                found.append((advice.kind, advice.text, path, line))
            place = fixture or ("conftest.py", 1)
            found += [(RetrievalSettingsWarning, t, *place) for t in self.gathered.rebuilt]
        if not warnings_on(self.config):  # -p no:warnings: counted as not shown, as under
            self.advice_shown += len(found)  # --disable-warnings
            return
        with (
            sources_cut(self.config, [path for _, _, path, _ in found]),
            catch_warnings_for_item(self.config, self.config.hook, "runtest", None),
        ):
            for kind, said, path, line in found:
                text = warning_text(self.config, kind, said, path, line)
                try:
                    warnings.warn_explicit(kind(text), kind, path, line)
                except RetrievalWarning:
                    self.escalated.append(said)

    def _advice_locations(self) -> dict[str, tuple[str, int]]:
        """category -> (the golden file holding most of its queries, the line of its first
        one there); "" -> the same over every query. The lines are those every process
        gathered (under xdist the controller collects no golden file: its workers' lines
        are the ones there are)."""
        lines = {qid: line for qid, (line, _) in self.gathered.places.items()}
        counts: dict[str, Counter[str]] = {}
        first: dict[tuple[str, str], int] = {}
        for record in self.results.all_records():
            if record.path:
                line = lines.get(record.id, 1)
                for key in (record.category, ""):
                    counts.setdefault(key, Counter())[record.path] += 1
                    spot = (key, record.path)
                    first[spot] = min(first.get(spot, line), line)
        found = {}
        for key, held in counts.items():
            path = held.most_common(1)[0][0]
            found[key] = (path, first[key, path])
        return found

    # -- output -----------------------------------------------------------------------
    def pytest_terminal_summary(self, terminalreporter: TerminalReporter) -> None:
        if not _nothing_runs(self.config):
            write_summary(terminalreporter, self)

    def run_report(self) -> RunReport:
        # wrapped for the pages: a Markdown or HTML code box holds it without scrolling
        gate_text = (
            explain(self.gate, self.tolerance, REPORT_WIDTH, narrow=False) if self.gate else None
        )
        golden = GoldenInfo.of(self.results)
        run = self.run
        return RunReport(
            run.settings, self.results, self.evaluation, golden, self.gate, gate_text,
            incomplete=self.incomplete, tolerance=self.tolerance,
            retrievers=self.gathered.retrievers, kinds=self.gathered.kinds, baseline=self.baseline,
            places=self.gathered.places, label=run.run.label,
            history=self.history.entries if self.history else (), generated=self.finished,
            calls=run.run.calls, latency_budget=run.gate.latency,
        )  # fmt: skip

    def _fail_if_not_written(self, session: pytest.Session) -> None:
        """A file the run was asked to write and could not (or advice -W made an error)
        fails a run that would otherwise pass."""
        failed = self.failed_write or self.escalated
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self._fail_if_not_written(session)
        if _nothing_runs(self.config) or session.exitstatus == pytest.ExitCode.USAGE_ERROR:
            if self.recording is not None:
                self.recording.abandon()
            return  # the run stopped before anything ran: nothing to report
        if self.incomplete is None and session.exitstatus == pytest.ExitCode.INTERRUPTED:
            self.incomplete = "interrupted"  # Ctrl-C: the loop's wrapper left it to here
            self._say_incomplete()
        self._close_recording()
        self._fail_if_not_written(session)
        if on_github(self.run) and (self.results or self.gate is not None):
            self.annotations, notes = github_output(self.config, self.run_report())
            self.notes.extend(notes)
        paths = self.run.run.reports
        if not paths:
            return
        base = self.config.invocation_params.dir
        try:
            self.written, failed = write_reports([base / p for p in paths], self.run_report())
        except ReportsInterrupted as stop:  # Ctrl-C while writing: say what was not written
            self.written, failed = stop.written, stop.failed
            session.exitstatus = pytest.ExitCode.INTERRUPTED
        if failed:
            self.notes.extend(failed)
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED


# pytest's cacheprovider options that run part of the collected items, as they are named
_CACHE_SELECTION = (("lf", "--lf/--last-failed"), ("stepwise", "--sw/--stepwise"))


def _is_baseline(path: Path) -> bool:
    """Whether a file a missing baseline's name resembles is a baseline (else "did you
    mean" it would lead to a refusal)."""
    return own_file_kind(path) == BASELINE_KIND


def selection_text(config: pytest.Config) -> str:
    """What may have left golden queries out of this run, as the gate's notes name it:
    ``--lf/--last-failed`` (or ``--sw``) when given, then ``-k, -m or the paths given``."""
    given = [name for option, name in _CACHE_SELECTION if config.getoption(option, False)]
    return ", ".join([*given, "-k, -m or the paths given"])


def _nothing_to_write(records: Iterable[QueryRecord]) -> str:
    """Why an update wrote no baseline, by what became of the queries: every one skipped
    (a fixture that called pytest.skip) was said to be "not evaluated without an error"."""
    outcomes = Counter(r.outcome for r in records)
    said = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items()))
    why = f" ({said})" if said else ""
    return (
        f"retrieval baseline not written: no query was evaluated without an error{why}; a "
        "baseline holds the numbers of queries that ran: run the update where the retriever "
        "answers"
    )
