"""``evaluate RUN...`` (the plugin's numbers, tables and reports without pytest) and
``compare A.json B.json`` (the paired comparison of two reports, by the gate's rules)."""

from __future__ import annotations

import argparse
import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..baseline import Baseline, BaselineError, BaselineMissing, RunFacts, update_hint
from ..evaluation import analyse
from ..gate import GateResult, run_gate
from ..golden import GoldenQuery, golden_digest
from ..io.baseline_file import read_baseline
from ..io.common import FormatError, alike_ids, did_you_mean, queries_of, some_ids
from ..io.file_kinds import BASELINE_KIND, REPORT_KIND, TREC_QRELS
from ..io.recording import is_recording
from ..io.report_json import ReportFile, looks_like_report
from ..io.trec import REORDERED, read_run
from ..offline import Recorded, Scored, score_runs
from ..pooling import coverage
from ..replay import lacking_notes
from ..report.gate_text import HEADERS, REPORT_WIDTH, explain, row_table
from ..report.marks import NOT_A_REPORT, is_own_report
from ..report.run_report import GoldenInfo, RunReport
from ..report.summary import Verbosity, summary_lines
from ..report.writers import write_reports
from ..scoring import why
from ..settings import REPORTS, GateSettings, SettingsError, parse_tolerance
from .common import (
    FINDINGS,
    OK,
    READ_BY_THE_COMMAND,
    USAGE,
    CliError,
    Commands,
    Context,
    add_common,
    golden_or_fail,
    other_file,
    plugin_file_kind,
    read_report_file,
    trec_file_kind,
)

DESCRIPTION = (
    "Score each RUN (a TREC run file: one configuration per run tag; or a "
    "JSON report of the plugin: one per configuration) against the golden set with the "
    "plugin's metrics, conventions, tables and reports. A golden query a run lacks is "
    "scored as a query for which nothing came back: 0 when it has something to find "
    "(trec_eval's -c), and by retrieval_empty when it has nothing to find (abstain, the "
    "default: 1.0; zero: 0, as -c)."
)


def add_parsers(commands: Commands) -> None:
    evaluate = commands.add_parser(
        "evaluate",
        help="score TREC runs or JSON reports against the golden set, as the plugin does",
        description=DESCRIPTION,
    )
    evaluate.add_argument("runs", nargs="+", metavar="RUN")
    evaluate.add_argument(
        "--golden",
        action="append",
        default=[],
        metavar="PATH",
        help="golden files or folders (default: retrieval_golden; may repeat)",
    )
    evaluate.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="PATH",
        help="write a report: .json, .md or .html (may repeat)",
    )
    evaluate.add_argument(
        "--baseline", metavar="PATH", help="gate against this baseline, by the plugin's rules"
    )
    evaluate.add_argument(
        "--tolerance", metavar="X", help="the gate's tolerance (default: retrieval_tolerance)"
    )
    evaluate.add_argument(
        "--max-results",
        type=int,
        metavar="N",
        help="only the first N results of each ranking (trec_eval's -M)",
    )
    evaluate.add_argument("-v", "--verbose", action="count", default=0, help="more tables")
    evaluate.add_argument("-q", "--quiet", action="count", default=0, help="only the overall rows")
    add_common(evaluate)
    compare = commands.add_parser(
        "compare",
        help="B.json against A.json: the paired table; exit 1 when B regresses (the gate's rules)",
        description="Compare two JSON reports of the plugin query by query, as the gate "
        "compares a run with its baseline: A is the baseline, B the candidate. Exit 1 when a "
        "row of B drops beyond the tolerance (retrieval_tolerance, or --tolerance).",
    )
    compare.add_argument("a", metavar="A.json")
    compare.add_argument("b", metavar="B.json")
    compare.add_argument(
        "--tolerance", metavar="X", help="allowed drop (default: retrieval_tolerance)"
    )
    compare.add_argument(
        "--configuration",
        action="append",
        default=[],
        metavar="NAME",
        help="compare only these configurations (default: retrieval_gate_configurations, "
        "else all of A)",
    )
    add_common(compare)


def _gate_settings(
    ctx: Context, tolerance: str | None, computed: Sequence[str], configurations: Sequence[str] = ()
) -> GateSettings:
    """The ini's gate settings, with ``--tolerance`` (checked as the plugin checks its
    --retrieval-tolerance: no metric that is not ``computed``) and the configurations
    named."""
    gate = ctx.run.gate
    if tolerance is not None:
        try:
            gate = dataclasses.replace(gate, tolerance=parse_tolerance(tolerance, "--tolerance"))
        except SettingsError as exc:
            raise CliError(str(exc)) from None
        unknown = [m for m in gate.tolerance.per_metric if m not in computed]
        if unknown:
            raise CliError(
                f"--tolerance names {', '.join(unknown)}, which is not computed here "
                f"(metrics: {' '.join(computed)})"
            )
    if configurations:
        gate = dataclasses.replace(gate, configurations=tuple(configurations))
    return gate


def _has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _refuse_folders_and_repeats(ctx: Context, args: argparse.Namespace) -> None:
    """A folder where a file is wanted, or one file given twice: a usage error, in one line."""
    wanted = [
        (run, "", "give the run files in it (TREC runs or JSON reports)") for run in args.runs
    ]
    wanted += [(r, "--report ", "give a file path ending .json, .md or .html") for r in args.report]
    if args.baseline is not None:
        wanted.append((args.baseline, "--baseline ", "give the baseline file in it"))
    seen: dict[tuple[str, Path], str] = {}
    for given, option, fix in wanted:
        path = ctx.path(given)
        if path.is_dir():
            raise CliError(f"{option}{given} is a folder; {fix}")
        if option == "--report " and _has_content(path) and not is_own_report(path):
            raise CliError(f"--report {given}: {NOT_A_REPORT}")
        key = (option, path.resolve())
        if key in seen:
            what = f"{option}{given}" if option else f"the run {given}"
            also = "" if seen[key] == given else f" (as {seen[key]} and {given})"
            raise CliError(f"{what} is given twice{also}: give each once")
        seen[key] = given
    read = {ctx.path(p).resolve() for p in [*args.runs, args.baseline] if p is not None}
    for given in args.report:
        if ctx.path(given).resolve() in read:
            raise CliError(f"--report {given} is {READ_BY_THE_COMMAND}")


def _note_kept_depth(ctx: Context, report: ReportFile) -> None:
    """A report keeps each query's top max(k) of its metrics: a metric without a cut or
    with a deeper one, computed here on a ranking that reaches that depth (so may have
    been cut), is a lower bound of what the whole ranking gave; said, not left silent."""
    kept = report.settings.depth
    deeper = [m.name for m in ctx.run.settings.metrics if kept and (m.k is None or m.k > kept)]
    reached = sum(
        1
        for records in report.configurations.values()
        for r in records.values()
        if r.evaluated and kept and len(r.retrieved) >= kept
    )
    if not deeper or not reached:
        return
    needs = "needs" if len(deeper) == 1 else "need"
    that = "that query it is" if reached == 1 else "those queries they are"
    whose = "1 query's ranking reaches" if reached == 1 else f"{reached} queries' rankings reach"
    if reached > 1 and len(report.configurations) > 1:  # a ranking per query per configuration
        whose = f"{reached} rankings (one per query in each of its configurations) reach"
        that = "those rankings they are"
    ctx.notice(
        f"note: {report.path} keeps each query's top {kept} (the largest cut of its metrics) "
        f"and {whose} it: "
        f"{', '.join(deeper)} {needs} more, so for {that} a lower bound here (the report's "
        "own numbers are from the whole ranking)"
    )


def _note_changed_golden(ctx: Context, report: ReportFile, queries: Sequence[GoldenQuery]) -> None:
    """A report keeps rankings, not query texts: when the golden queries it ranked have
    changed since (texts or judgments, by its digest), say that each is scored on the
    ranking it had then, so a changed text is not taken for a ranking of it."""
    ranked = {qid for records in report.configurations.values() for qid in records}
    now = {q.id: q.fingerprint for q in queries if q.id in ranked}
    if not report.golden.sha256 or golden_digest(now) == report.golden.sha256:
        return
    ctx.notice(
        f"note: {report.path}: the golden queries it ranked have changed since (texts or "
        "judgments: a report keeps neither), and each is scored here on the ranking it had "
        "then; for a query whose text changed, run pytest --retrieval-eval to rank it anew"
    )


def _recorded(ctx: Context, given: str, queries: Sequence[GoldenQuery]) -> list[Recorded]:
    path = ctx.file(given)
    shown = ctx.shown(path)
    if is_recording(path):
        raise CliError(
            f"{shown} is a pytest-retrieval recording; this command reads TREC runs and JSON "
            f"reports: score the recording with `pytest --retrieval-eval --retrieval-replay "
            f"{given} --retrieval-report=report.json`, then give it the report"
        )
    what = other_file(path)
    if what is not None:  # else read as a run: a problem on every line
        raise CliError(
            f"{shown} is {what}, not a TREC run or a JSON report; evaluate reads runs ('qid "
            "Q0 docno rank score tag' lines) and the JSON reports of pytest --retrieval-eval "
            "--retrieval-report=PATH.json"
        )
    if trec_file_kind(path) == TREC_QRELS:  # trec_eval's order: QRELS RUN
        raise CliError(
            f"{shown} is {TREC_QRELS}, not a run; evaluate takes the judgments from the golden "
            f"set: import them with `pytest-retrieval import trec {given} -o "
            "golden/qrels.yaml`, then give evaluate the runs alone"
        )
    if looks_like_report(path):
        report = read_report_file(ctx, given, "evaluate")
        _note_kept_depth(ctx, report)
        _note_changed_golden(ctx, report, queries)
        return [
            Recorded(
                name,
                {q: r.retrieved for q, r in records.items() if r.evaluated},
                {q: r.error or "error" for q, r in records.items() if r.outcome == "error"},
                shown,
            )
            for name, records in report.configurations.items()
        ]
    try:
        runs = read_run(path, shown=shown)
    except FormatError as exc:
        raise CliError(str(exc)) from None
    return [
        Recorded(tag, run.ids(), source=shown, reordered=run.reordered) for tag, run in runs.items()
    ]


def _all_runs(ctx: Context, given: Sequence[str], queries: Sequence[GoldenQuery]) -> list[Recorded]:
    """Every configuration of the files given: a TREC run's tag found in two run files is
    named by file stem and tag (``a-dense``, ``b-dense``), as ``--retrieval-replay`` names
    it, so a baseline the plugin wrote from the same runs gates here alike."""
    read = [(name, _recorded(ctx, name, queries)) for name in given]
    trec = [(n, run) for n, runs in read if not looks_like_report(ctx.path(n)) for run in runs]
    tags = Counter(run.name for _, run in trec)
    stemmed = {id(run): f"{Path(n).stem}-{run.name}" for n, run in trec if tags[run.name] > 1}
    runs: dict[str, Recorded] = {}
    for found in (run for _, recorded in read for run in recorded):
        name = stemmed.get(id(found), found.name)
        other = runs.get(name)
        if other is not None:
            raise CliError(
                f"configuration '{name}' is in {other.source} and in {found.source}: one "
                f"configuration per name; {_rename(id(found) in stemmed)}"
            )
        runs[name] = dataclasses.replace(found, name=name)
    return list(runs.values())


def _rename(stemmed: bool) -> str:
    """How to tell two configurations of one name apart."""
    if stemmed:  # a tag in two run files named alike (a/x.run, b/x.run)
        return "rename one of the run files (a tag two runs share is named FILE-TAG)"
    return "rename the tag (a run's) or the configuration (a report's) in one of them"


def _notes(
    ctx: Context, queries: Sequence[GoldenQuery], runs: Sequence[Recorded], scored: Scored
) -> None:
    judgments = {q.id: dict(q.relevant) for q in queries if q.relevant and q.skip is None}
    golden = {q.id for q in queries}
    threshold = ctx.run.settings.conventions.relevance_threshold
    nothing_to_find = {q.id for q in queries if q.has_nothing_to_find(threshold)}
    for run in runs:
        unknown = scored.unknown.get(run.name, [])
        if unknown:
            ctx.notice(
                f"'{run.name}': {queries_of(len(unknown), run.source)} not in the golden set, "
                "ignored: " + some_ids(unknown) + alike_ids(unknown, golden)
            )
        lacking = scored.missing.get(run.name, [])
        empty = ctx.run.settings.conventions.empty
        for lacking_note in lacking_notes(lacking, nothing_to_find, run.source, empty):
            ctx.notice(f"'{run.name}': {lacking_note}")
        reordered = [q for q in run.reordered if q in golden]  # ranked unlike the file
        if reordered:
            ctx.notice(
                f"'{run.name}': {queries_of(len(reordered), run.source)} {REORDERED}"
                + some_ids(reordered)
            )
        note = coverage(run.name, run.rankings, judgments, ctx.judged_depth, run.errors).note()
        if note:
            ctx.notice(f"note: {note}")


def _update_command(ctx: Context, args: argparse.Namespace, path: str) -> str:
    """The plugin's command that writes a baseline at ``path`` ("": the default one),
    replaying the TREC runs given (a JSON report cannot be replayed: then the live
    retrievers')."""
    runs = [] if any(looks_like_report(ctx.path(r)) for r in args.runs) else args.runs
    return update_hint(path, runs)


def _write_one(ctx: Context, args: argparse.Namespace, path: str) -> str:
    """:func:`_update_command`, quoted for a message."""
    return f"`{_update_command(ctx, args, path)}`"


def _baseline(ctx: Context, args: argparse.Namespace) -> Baseline | None:
    """The baseline of ``--baseline``, read before anything is scored; a file that is no
    baseline (not JSON, unreadable, a report, a golden file) is a usage error in one line."""
    if args.baseline is None:
        return None
    path = ctx.path(args.baseline)
    given = f"--baseline {args.baseline}"
    kind = plugin_file_kind(path)
    if kind == REPORT_KIND:
        raise CliError(
            f"{given} is a pytest-retrieval {REPORT_KIND}, not a baseline; compare two "
            f"reports with `pytest-retrieval compare {args.baseline} NEW.json`, or gate "
            f"against a baseline written by {_write_one(ctx, args, '')}"
        )
    if kind is None and (trec := trec_file_kind(path)) is not None:
        raise CliError(
            f"{given} is {trec}, not a baseline; give the baseline file (JSON), or write one "
            f"with {_write_one(ctx, args, '')}"
        )
    if kind != BASELINE_KIND and (what := other_file(path)) is not None:
        raise CliError(f"{given} is {what}, not a baseline; give the baseline file")
    try:
        return read_baseline(path, ctx.shown(path))
    except BaselineMissing:
        raise CliError(
            f"{given}: no such file; write one with {_write_one(ctx, args, args.baseline)}"
        ) from None
    except BaselineError as exc:
        raise CliError(
            f"{exc}; fix the file, or delete it and write a new one with "
            f"{_write_one(ctx, args, args.baseline)}"
        ) from None


def _gate(
    ctx: Context,
    args: argparse.Namespace,
    baseline: Baseline,
    queries: Sequence[GoldenQuery],
    runs: Sequence[Recorded],
    scored: Scored,
) -> GateResult:
    shown = ctx.shown(ctx.path(args.baseline))
    names = frozenset(run.name for run in runs)
    existing = frozenset(p for p in baseline.files() if (ctx.rootdir / p).exists())
    facts = RunFacts({q.id: q.path for q in queries}, existing, names, names)
    return run_gate(
        baseline,
        shown,
        scored.results,
        ctx.run.settings,
        _gate_settings(ctx, args.tolerance, _metric_names(ctx)),
        ctx.run.stats,
        facts,
        update=_update_command(ctx, args, args.baseline),
    )


def _metric_names(ctx: Context) -> list[str]:
    return [metric.name for metric in ctx.run.settings.metrics]


def _verbosity(args: argparse.Namespace) -> Verbosity:
    level = args.verbose - args.quiet
    return "quiet" if level < 0 else "verbose" if level > 0 else "normal"


def run_evaluate(ctx: Context, args: argparse.Namespace) -> int:
    try:
        report_paths = REPORTS.parse("--report", args.report) if args.report else ()
    except SettingsError as exc:
        raise CliError(str(exc)) from None
    if args.max_results is not None and args.max_results < 1:
        raise CliError("--max-results must be a positive integer")
    if args.tolerance is not None and args.baseline is None:  # else ignored in silence
        raise CliError("--tolerance is the gate's: give --baseline PATH to gate against")
    _gate_settings(ctx, args.tolerance, _metric_names(ctx))  # refused before any file is read
    _refuse_folders_and_repeats(ctx, args)
    baseline = _baseline(ctx, args)
    queries = golden_or_fail(ctx, args.golden)
    runs = _all_runs(ctx, args.runs, queries)
    settings = ctx.run.settings
    scored = score_runs(queries, runs, settings, args.max_results)
    _notes(ctx, queries, runs, scored)
    evaluation = analyse(scored.results, settings, ctx.run.stats, ctx.run.run.group_bys)
    for line in summary_lines(evaluation, ctx.width(), _verbosity(args)):
        ctx.say(line)
    for advice in evaluation.warnings:
        ctx.notice(f"warning: {advice}")
    failed = [r for r in scored.results.all_records() if r.outcome in ("failed", "error")]
    where = {query.id: query.location for query in queries}
    for record in failed:  # at the query's line, as collection errors and validate name it
        ctx.say(
            f"{where.get(record.id) or record.path}: query '{record.id}' "
            f"[{record.configuration}]: {record.outcome}: {why(record)}"
        )
    gate = None if baseline is None else _gate(ctx, args, baseline, queries, runs, scored)
    tolerance = _gate_settings(ctx, args.tolerance, _metric_names(ctx)).tolerance
    if gate is not None:
        ctx.say("")
        ctx.say(explain(gate, tolerance, ctx.width()))
    if report_paths:
        gate_text = explain(gate, tolerance, REPORT_WIDTH, narrow=False) if gate else None
        report = RunReport(
            settings, scored.results, evaluation, GoldenInfo.of(scored.results), gate, gate_text
        )
        written, problems = write_reports([ctx.path(p) for p in report_paths], report)
        for path in written:
            ctx.note(f"retrieval report written: {ctx.shown(path)}")
        for message in problems:
            ctx.note(message)
        if problems:  # an output the command could not write: it could not run, as -o
            return USAGE
    return FINDINGS if failed or (gate is not None and gate.failed) else OK


def _refuse_unknown_configurations(
    a: ReportFile, b: ReportFile, named: Sequence[str], source: str
) -> None:
    """A configuration named (by ``source``) that A or B does not hold, or (none named)
    one of A's that B does not hold: a usage error naming the reports and the closest."""
    for name in named or a.configurations:
        for report in (a, b) if named else (b,):
            if name in report.configurations:
                continue
            held = ", ".join(report.configurations) or "none"
            head = f"{source} {name}: " if named else f"{a.path} holds configuration '{name}': "
            raise CliError(
                f"{head}{report.path} has no configuration of that name"
                f"{did_you_mean(name, list(report.configurations))}; its configurations: {held}"
                + ("" if named else "; name the ones to compare with --configuration")
            )


def _unpaired(a: ReportFile, b: ReportFile, configurations: Sequence[str]) -> list[str]:
    """The queries one report holds and the other lacks, which compare cannot pair: a
    line for each way (and set of ids), with the count and the first few ids."""
    lines = []
    for first, second in ((a, b), (b, a)):
        groups: dict[tuple[str, ...], list[str]] = {}
        for name in configurations:
            only = set(first.configurations[name]) - set(second.configurations[name])
            if only:
                groups.setdefault(tuple(sorted(only)), []).append(f"'{name}'")
        for ids, names in groups.items():
            lines.append(
                f"{queries_of(len(ids), first.path)} not in {second.path} "
                f"(configuration{'s' if len(names) > 1 else ''} {', '.join(names)}), "
                f"not compared: {some_ids(list(ids))}"
            )
    return lines


def run_compare(ctx: Context, args: argparse.Namespace) -> int:
    a, b = read_report_file(ctx, args.a, "compare"), read_report_file(ctx, args.b, "compare")
    baseline = Baseline(settings=a.raw_settings, configurations=a.configurations)
    names = frozenset(b.configurations)
    computed = [m.name for m in b.settings.metrics]
    gate = _gate_settings(ctx, args.tolerance, computed, args.configuration)
    source = "--configuration" if args.configuration else "retrieval_gate_configurations"
    _refuse_unknown_configurations(a, b, gate.configurations, source)
    if not gate.configurations:
        gate = dataclasses.replace(gate, configurations=tuple(a.configurations))
    facts = RunFacts(selected=names, collected=names, report=b.path)
    # A is a report: no command rewrites it, so the gate's hints give none
    result = run_gate(
        baseline, a.path, b.results(), b.settings, gate, ctx.run.stats, facts, update=""
    )
    result.added = []  # B's queries A lacks are named below, with A's that B lacks
    if a.golden.sha256 and b.golden.sha256 and a.golden.sha256 != b.golden.sha256:
        ctx.notice(
            f"note: the golden sets differ ({a.path}: {a.golden.queries} queries, {b.path}: "
            f"{b.golden.queries}); queries are paired by id, and a query whose judgments "
            "changed is compared all the same"
        )
    width = ctx.width()
    for line in _unpaired(a, b, gate.configurations):
        ctx.say_wrapped(line)
    if result.rows:
        ctx.say_wrapped(
            f"{b.path} against {a.path} ({HEADERS[4]} = A, {HEADERS[5]} = B), paired by query id:"
        )
        for line in row_table(result.rows, width):
            ctx.say(line)
        ctx.say("")
    text = explain(result, gate.tolerance, width, rows_shown=bool(result.rows))
    ctx.say(text.replace("retrieval gate:", "compare:", 1))
    return FINDINGS if result.failed else OK
