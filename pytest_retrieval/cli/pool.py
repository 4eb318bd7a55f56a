"""``pool REPORT.json... --depth N``: the unjudged top N, to grade; ``merge WORKLIST``: the
grades folded back into the golden files, only their ``relevant:`` lines touched."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..golden import GoldenFileError, GoldenQuery, Problem
from ..io.atomic import write_all_atomic
from ..io.common import FormatError, counted, some_ids
from ..io.golden_check import written_id_problem
from ..io.golden_file import JSONL_SUFFIX, is_golden_file, load_golden_file
from ..io.golden_merge import merge_judgments
from ..io.worklist import looks_like_worklist, read_worklist, worklist_yaml, write_worklist
from ..pooling import Rankings, Worklist, build_pool, coverage
from .common import (
    FINDINGS,
    OK,
    CliError,
    Commands,
    Context,
    add_common,
    golden_or_fail,
    output_file,
    read_report_file,
)

Additions = dict[str, dict[str, int]]  # query id -> {doc id -> grade}


def add_parsers(commands: Commands) -> None:
    pool = commands.add_parser(
        "pool",
        help="the unjudged top N of each configuration, per query, as a worklist to grade",
        description="Per golden query, the union of every configuration's top N (from JSON "
        "reports) that has no judgment yet, with where each came from (configuration and "
        "rank); queries with no judgment at all are pooled too. Fill in the grades, then "
        "run pytest-retrieval merge.",
    )
    pool.add_argument("reports", nargs="+", metavar="REPORT.json")
    pool.add_argument(
        "--depth", type=int, required=True, metavar="N", help="pool each configuration's top N"
    )
    pool.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=output_file,
        help="the worklist to write (default, or -: standard output)",
    )
    pool.add_argument(
        "--golden",
        action="append",
        default=[],
        metavar="PATH",
        help="golden files or folders (default: retrieval_golden; may repeat)",
    )
    add_common(pool)
    merge = commands.add_parser(
        "merge",
        help="fold a graded worklist into the golden files (comments, order and layout kept)",
        description="Add each graded document of the worklist to its query's 'relevant' in "
        "its golden file. Only those lines change. Ungraded or out-of-range entries, and "
        "grades that contradict the golden file, are refused (exit 1) and nothing is written.",
    )
    merge.add_argument("worklist", metavar="WORKLIST")
    merge.add_argument(
        "--dry-run", action="store_true", help="print the changes as a diff, write nothing"
    )
    add_common(merge)


# --------------------------------------------------------------------------- pool


def _runs(ctx: Context, given: Sequence[str], depth: int) -> dict[str, Rankings]:
    """Each configuration's rankings, labelled ``configuration`` or, for a configuration
    two reports hold, ``report:configuration`` (the report's name, or its path when two
    reports share a name)."""
    seen: dict[Path, str] = {}
    for name in given:
        resolved = ctx.path(name).resolve()
        other = seen.get(resolved)
        if other is not None:  # this file met before, as written here or otherwise
            raise CliError(
                f"{name} is given twice{'' if other == name else f' (as {other})'}: a report "
                "pooled with itself adds nothing; give each report once"
            )
        seen[resolved] = name
    reports = [read_report_file(ctx, name, "pool") for name in given]
    stems = [Path(report.path).stem for report in reports]
    counts: dict[str, int] = {}
    for report in reports:
        for configuration in report.configurations:
            counts[configuration] = counts.get(configuration, 0) + 1
    runs: dict[str, Rankings] = {}
    for report, stem in zip(reports, stems, strict=True):
        kept = report.settings.depth
        if kept is not None and kept < depth:
            ctx.note(f"{report.path} keeps each query's top {kept} only: those are pooled")
        if stems.count(stem) > 1:  # a/r.json and b/r.json: named by their paths
            stem = str(report.path)
        for configuration, records in report.configurations.items():
            label = configuration if counts[configuration] == 1 else f"{stem}:{configuration}"
            runs[label] = {q: r.retrieved for q, r in records.items() if r.evaluated}
    return runs


def _refuse_inside_golden(ctx: Context, path: Path, args: argparse.Namespace) -> None:
    """A worklist written among the golden files would be collected as one: the next
    ``pytest --retrieval-eval`` stops on it (a worklist is no golden file)."""
    given = args.golden or [str(ctx.rootdir / p) for p in ctx.run.run.golden]
    folders = [ctx.path(p).resolve() for p in given if ctx.path(p).is_dir()]
    target = path.parent.resolve() / path.name
    inside = next((f for f in folders if f in target.parents), None)
    if inside is not None and is_golden_file(target):
        root = ctx.rootdir.resolve()
        beside = (
            f" (-o {target.name} in the project's folder)"
            if not any(f == root or f in root.parents for f in folders)
            else ""  # the project's folder is a golden folder itself
        )
        raise CliError(
            f"-o {args.output} is inside the golden folder {ctx.shown(inside)}: the plugin "
            "would collect the worklist as a golden file and stop there; write it outside "
            f"the golden folders{beside}"
        )


def _unjudgeable(worklist: Worklist) -> list[str]:
    """Takes out of ``worklist`` each document whose id a golden file cannot hold (a control
    or invisible character, white space at an end: no judgment could match it, and merge
    refuses it), and a query left with none; the ids taken out, each once."""
    dropped: dict[str, None] = {}
    for query in worklist.queries:
        refused = [d.id for d in query.documents if written_id_problem(d.id) is not None]
        dropped.update(dict.fromkeys(refused))
        query.documents = [d for d in query.documents if d.id not in dropped]
    worklist.queries = [q for q in worklist.queries if q.documents]
    return list(dropped)


def _refuse_losing_grades(ctx: Context, path: Path) -> None:
    """A worklist someone has begun to grade is not written over: the grades would be lost."""
    if not path.is_file() or not looks_like_worklist(path):
        return
    shown = ctx.shown(path)
    try:
        graded = sum(
            len(g) for g in read_worklist(path, ctx.max_grade, graded=False).judgments().values()
        )
    except FormatError:  # being edited by hand: whatever it holds is someone's work
        graded = -1
    if graded:
        holds = "grades" if graded < 0 else counted(graded, "grade")
        them = "them" if graded != 1 else "it"
        raise CliError(
            f"-o {shown}: the worklist holds {holds} not merged yet: writing would lose "
            f"{them}; merge it first (pytest-retrieval merge {shown}), or write the new pool to "
            "another path"
        )


def run_pool(ctx: Context, args: argparse.Namespace) -> int:
    if args.depth < 1:
        raise CliError("--depth must be a positive integer")
    if args.output is not None:
        written = ctx.output("-o", args.output, args.reports, "worklist")
        _refuse_inside_golden(ctx, written, args)
        _refuse_losing_grades(ctx, written)
    runs = _runs(ctx, args.reports, args.depth)
    queries = golden_or_fail(ctx, args.golden)
    worklist = build_pool(queries, runs, args.depth, ctx.max_grade)
    dropped = _unjudgeable(worklist)
    if dropped:
        their = "its id" if len(dropped) == 1 else "their ids"
        them = "it" if len(dropped) == 1 else "them"
        ctx.notice(
            f"{counted(len(dropped), 'document')} left out: a golden file cannot hold {their} "
            "(a control or invisible character, white space at an end), so no grade of "
            f"{them} could be merged: {some_ids(dropped)}"
        )
    judgments = {q.id: dict(q.relevant) for q in queries if q.relevant}
    for name, rankings in runs.items():
        note = coverage(name, rankings, judgments, args.depth).note()
        if note:
            ctx.notice(f"note: {note}")
    golden_ids = {q.id for q in queries}
    unknown = sorted({q for r in runs.values() for q in r if q not in golden_ids})
    if unknown:
        ctx.notice(
            f"{counted(len(unknown), 'reported query', 'reported queries')} "
            f"{'is' if len(unknown) == 1 else 'are'} not in the golden set, not pooled: "
            + ", ".join(unknown[:5])
        )
    docs = sum(len(q.documents) for q in worklist.queries)
    fresh = sum(1 for q in worklist.queries if q.judged == 0)
    ctx.notice(
        f"pooled {counted(docs, 'unjudged document')} for "
        f"{counted(len(worklist.queries), 'query', 'queries')} ({fresh} with no judgment yet) "
        f"from {counted(len(runs), 'configuration')} at depth {args.depth}"
    )
    if args.output is None:
        ctx.out.write(worklist_yaml(worklist))
    else:
        write_worklist(ctx.path(args.output), worklist)
        ctx.notice(f"wrote {args.output}: grade it, then pytest-retrieval merge {args.output}")
    return OK


# --------------------------------------------------------------------------- merge


def _load_text(path: Path, text: str, shown: str, max_grade: int) -> list[GoldenQuery]:
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        copy.write_text(text, encoding="utf-8")
        return load_golden_file(copy, max_grade=max_grade, shown=shown)


def _verify(old: list[GoldenQuery], new: list[GoldenQuery], additions: Additions) -> str | None:
    """None when ``new`` is ``old`` with the additions and nothing else changed."""
    if [q.id for q in old] != [q.id for q in new]:
        return "the merged file would hold other queries"
    for before, after in zip(old, new, strict=True):
        expected = {**before.relevant, **additions.get(before.id, {})}
        if dict(after.relevant) != expected:
            return f"query '{before.id}' would not get exactly the worklist's judgments"
        if dataclasses.replace(after, relevant={}, line=0) != dataclasses.replace(
            before, relevant={}, line=0
        ):
            return f"query '{before.id}' would change beyond its judgments"
    return None


@dataclasses.dataclass(frozen=True)
class _Merge:
    """One golden file's merge: its text before and after, and the worklist's judgments
    it held already (the same grade: nothing to add)."""

    path: Path
    old: str
    new: str
    already: int


def _merged(ctx: Context, shown: str, additions: Additions) -> _Merge | list[Problem]:
    path = ctx.rootdir / shown if not Path(shown).is_absolute() else Path(shown)
    if not path.is_file():
        return [
            Problem(
                shown,
                0,
                "the worklist names this golden file, but it does not exist",
                next(iter(additions)),
            )
        ]
    text = path.read_bytes().decode("utf-8")  # as it is: CRLF line ends kept (read_text's are not)
    try:
        old = load_golden_file(path, max_grade=ctx.max_grade, shown=shown)
        jsonl = path.suffix.lower() == JSONL_SUFFIX
        new_text = merge_judgments(text, shown, additions, jsonl=jsonl)
    except (FormatError, GoldenFileError) as exc:
        return list(exc.problems)
    try:  # the draft's problems are merge's, not the file's: not named at its lines
        problem = _verify(old, _load_text(path, new_text, shown, ctx.max_grade), additions)
    except GoldenFileError as exc:
        first = exc.problems[0]
        who = f"query '{first.query_id}': " if first.query_id else ""
        problem = f"the merged file would not load ({who}{first.message})"
    if problem is not None:
        return [Problem(shown, 0, f"merge refused: {problem}; please report this with the file")]
    held = {q.id: q.relevant for q in old}
    already = sum(
        1 for q, grades in additions.items() for d, g in grades.items() if held[q].get(d) == g
    )
    return _Merge(path, text, new_text, already)


def _additions(worklist: Worklist) -> dict[str, Additions]:
    by_file: dict[str, Additions] = {}
    for query in worklist.queries:
        grades = {d.id: int(d.grade) for d in query.documents if d.grade is not None}
        if grades:
            by_file.setdefault(query.path, {}).setdefault(query.id, {}).update(grades)
    return by_file


def _plan(ctx: Context, by_file: Mapping[str, Additions]) -> tuple[list[_Merge], list[Problem]]:
    planned: list[_Merge] = []
    problems: list[Problem] = []
    for shown, additions in by_file.items():
        found = _merged(ctx, shown, additions)
        if isinstance(found, list):
            problems += found
        else:
            planned.append(found)
    return planned, problems


def run_merge(ctx: Context, args: argparse.Namespace) -> int:
    path = ctx.file(args.worklist)
    try:
        worklist = read_worklist(path, ctx.max_grade, shown=ctx.shown(path))
    except FormatError as exc:
        for problem in exc.problems:
            ctx.say(str(problem))
        ctx.say(f"{counted(len(exc.problems), 'problem')}: nothing merged")
        return FINDINGS
    by_file = _additions(worklist)
    planned, problems = _plan(ctx, by_file)
    if problems:
        for problem in problems:
            ctx.say(str(problem))
        ctx.say(f"{counted(len(problems), 'problem')}: nothing merged")
        return FINDINGS
    changed = [m for m in planned if m.new != m.old]
    if args.dry_run:
        for merge in changed:
            shown = ctx.shown(merge.path)
            diff = difflib.unified_diff(
                merge.old.splitlines(True), merge.new.splitlines(True), f"a/{shown}", f"b/{shown}"
            )
            ctx.out.writelines(diff)
    else:  # every golden file or none: a folder refusing one leaves the others as they were
        write_all_atomic([(merge.path, merge.new) for merge in changed])
    already = sum(m.already for m in planned)
    judged = sum(len(g) for a in by_file.values() for g in a.values()) - already
    verb = "would merge" if args.dry_run else "merged"
    held = f" ({already} already there)" if already else ""
    ctx.note(
        f"{verb} {counted(judged, 'judgment')} into {counted(len(changed), 'golden file')}{held}"
    )
    return OK
