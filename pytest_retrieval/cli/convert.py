"""``import trec``, ``import beir``, ``export trec``, ``export run``: judged sets in and out."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from ..golden import DEFAULT_CATEGORY, GoldenFileError, GoldenQuery
from ..io.atomic import write_all_atomic
from ..io.beir import read_beir
from ..io.common import FormatError, category_problem, counted, has_space, some_ids
from ..io.corpus import read_categories, read_corpus, write_corpus
from ..io.file_kinds import TREC_RUN, head_fields
from ..io.golden_writer import golden_yaml, write_golden_jsonl, write_golden_yaml
from ..io.trec import (
    Run,
    Topic,
    qrels_text,
    qrels_to_golden,
    read_qrels,
    read_run,
    read_topics,
    run_text,
    write_qrels,
)
from ..model import QueryRecord
from ..pooling import coverage
from ..quoting import quoted
from .common import (
    OK,
    CliError,
    Commands,
    Context,
    add_common,
    golden_or_fail,
    other_file,
    output_file,
    read_report_file,
    trec_file_kind,
)

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def _file_name(configuration: str) -> str:
    """The run file a configuration is exported to: characters a file name may not hold
    replaced by ``_``, and a leading dot too (``..`` or ``.hidden`` would be a hidden file)."""
    safe = _SAFE_NAME.sub("_", configuration)
    return ("_" + safe[1:] if safe.startswith(".") else safe) + ".run"


def _output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=output_file,
        help="the golden file to write: .yaml/.yml (YAML) or .jsonl (one query per line); "
        "default (or -): YAML on standard output",
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="also write the known document ids, one per line (for validate --corpus); "
        "ids already in the file are kept",
    )
    parser.add_argument(
        "--categories",
        metavar="FILE",
        help="query categories: one 'query-id category' per line",
    )
    parser.add_argument(
        "--category",
        default=DEFAULT_CATEGORY,
        type=_category,
        help=f"the category of queries not otherwise given one (default: {DEFAULT_CATEGORY})",
    )
    add_common(parser)


def _category(text: str) -> str:
    """``--category``, refused once as the option it is, not at each query it would reach."""
    problem = category_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def add_parsers(commands: Commands) -> None:
    _import_parsers(commands)
    _export_parsers(commands)


def _import_parsers(commands: Commands) -> None:
    importer = commands.add_parser(
        "import", help="TREC qrels or a BEIR folder to golden YAML or JSONL"
    )
    formats = importer.add_subparsers(dest="format", metavar="FORMAT")
    trec = formats.add_parser(
        "trec",
        help="TREC qrels (and topics) to golden queries",
        description="TREC qrels ('qid iter docno rel') to golden queries, one per judged "
        "topic. A grade of -1 ('in the pool but unjudged') is dropped and counted; a grade "
        "above retrieval_max_grade is an error. Ids are kept as text.",
    )
    trec.add_argument("qrels", metavar="QRELS")
    trec.add_argument(
        "--topics",
        metavar="FILE",
        help="TREC topics (<top>...) or 'qid<TAB>text' lines; without it a query's text is its id",
    )
    trec.add_argument(
        "--topic-field",
        default="title",
        choices=("title", "description", "narrative"),
        metavar="FIELD",  # the choices in the usage line would pass 80 columns
        help="the topic field that becomes the query text: title (the default), "
        "description or narrative",
    )
    trec.add_argument(
        "--run",
        metavar="RUN",
        action="append",
        default=[],
        help="a TREC run (may repeat): its document ids go to --corpus, and how much of "
        "its top results the qrels judge is reported",
    )
    _output_options(trec)
    beir = formats.add_parser(
        "beir",
        help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv) to golden queries",
    )
    beir.add_argument("folder", metavar="FOLDER")
    beir.add_argument("--split", default="test", help="the qrels split (default: test)")
    beir.add_argument(
        "--category-field",
        metavar="NAME",
        help="the queries' metadata field that holds the category",
    )
    _output_options(beir)


def _export_parsers(commands: Commands) -> None:
    exporter = commands.add_parser(
        "export", help="golden files to TREC qrels, a JSON report to TREC runs"
    )
    formats = exporter.add_subparsers(dest="format", metavar="FORMAT")
    qrels = formats.add_parser("trec", help="golden files to a TREC qrels file")
    qrels.add_argument(
        "golden",
        nargs="*",
        metavar="GOLDEN",
        help="golden files or folders (default: retrieval_golden)",
    )
    qrels.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=output_file,
        help="the qrels file (default, or -: standard output)",
    )
    add_common(qrels)
    run = formats.add_parser("run", help="a JSON report to one TREC run file per configuration")
    run.add_argument("report", metavar="REPORT.json")
    run.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        required=True,
        help="the folder for CONFIGURATION.run files",
    )
    run.add_argument(
        "--drop-errors",
        action="store_true",
        help="write the runs without the queries that errored (a run cannot hold an error: "
        "replayed or evaluated, they score as returning nothing)",
    )
    add_common(run)


def _categories(ctx: Context, given: str | None) -> dict[str, str]:
    if given is None:
        return {}
    path = ctx.file(given, "--categories ")
    return read_categories(path, ctx.shown(path))


def _write_golden(ctx: Context, args: argparse.Namespace, queries: Sequence[GoldenQuery]) -> None:
    if not queries:
        raise CliError("nothing to import: no query has a judgment")
    try:
        if args.output is None:
            ctx.out.write(golden_yaml(queries, max_grade=ctx.max_grade))
            return
        path = ctx.path(args.output)
        replaced = path.is_file() and path.stat().st_size > 0
        if path.suffix.lower() == ".jsonl":
            write_golden_jsonl(path, queries, max_grade=ctx.max_grade)
        elif path.suffix.lower() in (".yaml", ".yml"):
            write_golden_yaml(path, queries, max_grade=ctx.max_grade)
        else:
            raise CliError(f"-o {args.output}: write .yaml, .yml or .jsonl")
    except GoldenFileError as exc:
        raise CliError(str(exc)) from None
    wrote = f"wrote {counted(len(queries), 'golden query', 'golden queries')} to {args.output}"
    if replaced:  # -o replaces a golden file, as cp does: said, so an edit lost is seen
        wrote += ", replacing the file that was there (`git diff` shows what changed)"
    ctx.note(wrote)


def _refuse_unlistable(given: str | None, ids: set[str]) -> None:
    """Before anything is written: the ids a corpus list (one id a line, no blanks:
    ``validate --corpus`` reads it so) cannot hold, which ``--corpus`` would write into
    a list nothing reads back."""
    spaced = sorted(d for d in ids if has_space(d)) if given is not None else []
    if spaced:
        shown = ", ".join(map(quoted, spaced[:5])) + (", ..." if len(spaced) > 5 else "")
        raise CliError(
            f"--corpus {given}: {counted(len(spaced), 'document id')} ({shown}) "
            f"{'holds' if len(spaced) == 1 else 'hold'} white space, which a corpus list (one "
            "id a line, no blanks) cannot hold; import without --corpus, or give the "
            "documents ids without white space"
        )


def _corpus(ctx: Context, given: str | None, ids: set[str]) -> None:
    """Write the ids to ``--corpus``; an id list already there keeps its ids (a qrels
    file knows only the judged documents: replacing the list would drop the others)."""
    if given is None:
        return
    path = ctx.path(given)
    try:
        kept = read_corpus(path, given) if path.is_file() and path.stat().st_size else frozenset()
    except FormatError as exc:
        raise CliError(str(exc)) from None
    count = write_corpus(path, ids | kept)
    if kept:
        added = count - len(kept)
        ctx.note(
            f"added {counted(added, 'document id')} to the {len(kept)} in {given} ({count} in all)"
        )
    else:
        ctx.note(f"wrote {counted(count, 'document id')} to {given}")


def _refuse_overwriting(ctx: Context, args: argparse.Namespace, inputs: Sequence[Path]) -> None:
    """``-o`` and ``--corpus`` write files: never over a file this import reads (``--corpus
    qrels.txt`` replaced the qrels with document ids), nor both on one path."""
    if args.corpus == "-":  # standard output holds the golden file (without -o)
        raise CliError(
            "--corpus -: the document ids are written to a file, not to standard output; "
            "give a path (--corpus corpus.txt)"
        )
    given = [("-o", args.output), ("--corpus", args.corpus)]
    outputs = [(f"{option} {name}", ctx.path(name)) for option, name in given if name]
    read = {p.resolve() for p in inputs}
    for what, path in outputs:
        if path.resolve() in read:
            raise CliError(
                f"{what} is a file this import reads: writing it would destroy it; write to "
                "another path"
            )
        kind = other_file(path)  # a golden file -o replaces; the plugin's other files, never
        if kind is not None and (kind != "a golden file" or what.startswith("--corpus")):
            raise CliError(f"{what} is {kind}: writing would destroy it; write to another path")
    if args.output is not None:
        ctx.output("-o", args.output)  # not a folder
    if len(outputs) == 2 and outputs[0][1].resolve() == outputs[1][1].resolve():
        raise CliError(f"{outputs[0][0]} and {outputs[1][0]} are one file: give each its own path")
    if args.corpus:
        ctx.output("--corpus", args.corpus, kind="corpus list")  # not over a conftest.py


def _beir_inputs(folder: Path) -> list[Path]:
    """The files of a BEIR folder an import reads."""
    qrels = folder / "qrels"
    split = sorted(qrels.iterdir()) if qrels.is_dir() else []
    return [folder / "corpus.jsonl", folder / "queries.jsonl", *split]


def _input(ctx: Context, given: str) -> Path:
    path = ctx.path(given)
    if not path.exists():
        raise CliError(f"{given}: no such file or folder")
    return path


def _runs(ctx: Context, given: Sequence[str]) -> list[Run]:
    runs: list[Run] = []
    for name in given:
        path = _input(ctx, name)
        runs += read_run(path, shown=ctx.shown(path)).values()
    return runs


def _topic_lines(path: Path) -> bool:
    """Whether the file starts with a ``qid<TAB>text`` line (one tab): ``q1<TAB>what is 42``
    also reads as a qrels line, yet it is a topic; a qrels or run line has no tab or more."""
    with path.open("rb") as stream:
        first = stream.readline().rstrip(b"\r\n")
    return first.count(b"\t") == 1


def _refuse_no_qrels(path: Path, given: str) -> None:
    """A run or a topics file given where the qrels belong is named, with the fix (read as
    qrels, it gave a problem on every line)."""
    if trec_file_kind(path) == TREC_RUN:
        raise CliError(
            f"{given} is {TREC_RUN}, not qrels; import trec reads judgments ('qid "
            f"iter docno rel' lines): give the qrels file, and the run with --run {given}"
        )
    first = next(iter(head_fields(path) or []), [b""])
    if first[0].startswith(b"<") or (_topic_lines(path) and trec_file_kind(path) is None):
        raise CliError(
            f"{given} is a topics file, not qrels; import trec reads judgments ('qid iter "
            f"docno rel' lines): give the qrels file first, and the topics with --topics {given}"
        )


def import_trec(ctx: Context, args: argparse.Namespace) -> int:
    read = [args.qrels, args.topics, args.categories, *args.run]
    _refuse_overwriting(ctx, args, [ctx.path(p) for p in read if p])
    try:
        path = _input(ctx, args.qrels)
        if path.is_file():  # a pipe is read once: its head would be gone for the qrels
            _refuse_no_qrels(path, args.qrels)
        qrels = read_qrels(path, max_grade=ctx.max_grade, shown=ctx.shown(path))
        if args.topics:
            topics_path = ctx.file(args.topics, "--topics ")  # read twice: no pipe
            if (kind := trec_file_kind(topics_path)) is not None and not _topic_lines(topics_path):
                raise CliError(
                    f"--topics {args.topics} is {kind}, not topics; give the topics file "
                    "(TREC <top> blocks, or 'qid<TAB>text' lines)"
                )
            topics = read_topics(topics_path, shown=ctx.shown(topics_path))
        else:
            topics = {qid: Topic(qid, qid) for qid in qrels.queries}
            ctx.note("no --topics: each query's text is its id")
        imported = qrels_to_golden(
            qrels,
            topics,
            field=args.topic_field,
            categories=_categories(ctx, args.categories),
            default_category=args.category,
        )
        runs = _runs(ctx, args.run)
    except FormatError as exc:
        raise CliError(str(exc)) from None
    if qrels.unjudged:
        lines = counted(qrels.unjudged, "qrels line")
        ctx.notice(
            f"{lines} with grade -1 (in the pool but unjudged) dropped; where -1 means "
            "judged not relevant (Cranfield's), write 0 instead"
        )
    _left_out(ctx, counted(len(imported.left_out), "topic"), "", imported.left_out)
    judgments = {q.id: dict(q.relevant) for q in imported.queries}
    for run in runs:
        note = coverage(run.tag, run.ids(), judgments, ctx.judged_depth).note()
        if note:
            ctx.notice(f"run {note}")
    docs = {d for q in imported.queries for d in q.relevant}
    docs |= {d for run in runs for ranking in run.ids().values() for d in ranking}
    _refuse_unlistable(args.corpus, docs)
    _write_golden(ctx, args, imported.queries)
    _corpus(ctx, args.corpus, docs)
    return OK


def _left_out(ctx: Context, counted_noun: str, where: str, ids: Sequence[str]) -> None:
    """The note for what an import leaves out for want of a judgment, naming the first
    ten: ``1 query without a judgment in split 'test' left out: q4``."""
    if ids:
        ctx.notice(f"{counted_noun} without a judgment{where} left out: {some_ids(ids, 10)}")


def import_beir(ctx: Context, args: argparse.Namespace) -> int:
    folder = _input(ctx, args.folder)
    if folder.is_file():  # corpus.jsonl, queries.jsonl: the folder's files, not the folder
        parent = folder.parent
        there = (parent / "corpus.jsonl").is_file()
        give = os.path.relpath(parent, ctx.cwd) if there else "the folder that holds them"
        raise CliError(
            f"{args.folder} is a file; import beir takes the BEIR folder (corpus.jsonl, "
            f"queries.jsonl, qrels/<split>.tsv): give {give}"
        )
    categories = [ctx.path(args.categories)] if args.categories else []
    _refuse_overwriting(ctx, args, [*_beir_inputs(folder), *categories])
    try:
        dataset = read_beir(
            folder,
            split=args.split,
            max_grade=ctx.max_grade,
            category_field=args.category_field,
            categories=_categories(ctx, args.categories),
            default_category=args.category,
            shown=ctx.shown(folder),
        )
    except FormatError as exc:
        raise CliError(str(exc)) from None
    left_out = dataset.left_out
    split = f" in split '{args.split}'"
    _left_out(ctx, counted(len(left_out), "query", "queries"), split, left_out)
    _refuse_unlistable(args.corpus, set(dataset.corpus_ids))
    _write_golden(ctx, args, dataset.queries)
    _corpus(ctx, args.corpus, set(dataset.corpus_ids))
    return OK


def export_trec(ctx: Context, args: argparse.Namespace) -> int:
    if args.output is not None:
        ctx.output("-o", args.output, kind="qrels file")
    queries = golden_or_fail(ctx, args.golden)
    judgments = {q.id: dict(q.relevant) for q in queries}
    try:
        if args.output is None:
            ctx.out.write(qrels_text(judgments))
            left_out = tuple(q for q, g in judgments.items() if not g)
        else:
            left_out = write_qrels(ctx.path(args.output), judgments)
    except FormatError as exc:
        raise CliError(str(exc)) from None
    if left_out:
        ctx.notice(
            f"{counted(len(left_out), 'no-result query', 'no-result queries')} left out (a "
            "qrels file cannot hold a query "
            f"without judgments; trec_eval will not evaluate them): {some_ids(left_out, 10)}"
        )
    if args.output is not None:
        ctx.notice(
            f"wrote the judgments of {counted(len(judgments) - len(left_out), 'query', 'queries')}"
            f" to {args.output}"
        )
    return OK


def _refuse_errors(
    shown: str, configurations: Mapping[str, Mapping[str, QueryRecord]], drop: bool
) -> None:
    """A run file cannot say that a query errored: left out, it would score as returning
    nothing (1.0 for a query with nothing to find), a raised score once replayed."""
    errored = {
        name: sorted(qid for qid, r in records.items() if r.error is not None)
        for name, records in configurations.items()
    }
    errored = {name: ids for name, ids in errored.items() if ids}
    if errored and not drop:
        named = "; ".join(f"'{name}': {some_ids(ids)}" for name, ids in errored.items())
        raise CliError(
            f"{shown}: queries errored ({named}); a run file cannot hold an error, and a query "
            "left out of it scores as returning nothing once replayed or evaluated (1.0 for "
            "one with nothing to find), not 0: run again without the errors, or pass "
            "--drop-errors to write the runs without them"
        )


class _RunFile(NamedTuple):
    """One configuration's run file, made before any is written."""

    name: str
    target: Path
    text: str
    queries: int  # with a line in it
    empty: int  # empty rankings: no line (a run file cannot hold one)


def _run_file(folder: Path, name: str, records: Mapping[str, QueryRecord]) -> _RunFile:
    rankings = {
        qid: r.retrieved for qid, r in sorted(records.items()) if r.evaluated and r.error is None
    }
    target = folder / _file_name(name)
    try:
        text = run_text({name: rankings}, shown=str(target))
    except FormatError as exc:
        raise CliError(str(exc)) from None
    empty = sum(1 for ranking in rankings.values() if not ranking)
    return _RunFile(name, target, text, len(rankings) - empty, empty)


def export_run(ctx: Context, args: argparse.Namespace) -> int:
    if args.output == "-":  # no file named "-", and no folder of that name
        raise CliError(
            "-o -: export run writes a run file per configuration into a folder, which "
            "standard output cannot hold; give a folder (-o runs)"
        )
    path = _input(ctx, args.report)
    report = read_report_file(ctx, args.report, "export run")
    folder = ctx.path(args.output)
    depth = report.settings.depth
    files: dict[str, str] = {}
    for name in report.configurations:
        other = files.setdefault(_file_name(name), name)
        if other != name:
            raise CliError(
                f"configurations '{other}' and '{name}' would both be written to "
                f"{_file_name(name)}; rename one"
            )
    _refuse_errors(ctx.shown(path), report.configurations, args.drop_errors)
    planned = [_run_file(folder, name, records) for name, records in report.configurations.items()]
    try:  # all or none: a folder refusing the second file leaves the first as it was
        write_all_atomic([(p.target, p.text) for p in planned])
    except OSError as exc:
        where = exc.filename or folder
        raise CliError(f"cannot write {where}: {exc.strerror or exc}; no run was written") from None
    for p in planned:
        empty = counted(p.empty, "empty ranking")
        empty = (
            f"; {empty} {'has' if p.empty == 1 else 'have'} no line (a run cannot hold one: "
            "replayed or evaluated, such a query returns nothing, as here)"
            if p.empty
            else ""
        )
        ctx.notice(
            f"wrote run '{p.name}' ({counted(p.queries, 'query', 'queries')}) to "
            f"{ctx.shown(p.target)}{empty}"
        )
    if depth is not None:
        ctx.notice(
            f"the report keeps each query's top {depth} (the largest cut of "
            "retrieval_metrics): so do the runs"
        )
    return OK
