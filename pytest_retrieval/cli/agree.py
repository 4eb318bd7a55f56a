"""``agreement A B [--by category]``: how two judges agree on the pairs both judged."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from ..agreement import ALL, AgreementError, agreement
from ..io.common import FormatError
from ..io.worklist import looks_like_worklist, read_worklist
from ..report.summary import fit
from .common import (
    FINDINGS,
    OK,
    CliError,
    Commands,
    Context,
    add_common,
    load_golden,
)

Judgments = dict[str, dict[str, int]]
_WANTED = (
    "agreement compares the grades of two judges: give two golden files or folders, or "
    "graded worklists"
)


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "agreement",
        help="Cohen's kappa, linear kappa and raw agreement of two judges",
        description="Compare the grades of two judges (golden files or folders, or graded "
        "worklists: a person's and a model's, say) on the (query, document) pairs both "
        "judged: raw agreement, Cohen's kappa, and kappa linearly weighted by the distance "
        "between grades. Ungraded worklist entries count as not judged.",
    )
    parser.add_argument("a", metavar="A")
    parser.add_argument("b", metavar="B")
    parser.add_argument("--by", choices=("category",), help="a row per query category, then all")
    add_common(parser)


@dataclass(frozen=True)
class _Judge:
    """One judge's grades, the categories of its queries and the files read."""

    judgments: Judgments
    categories: dict[str, str]
    files: frozenset[Path]


def _judgments(ctx: Context, given: str) -> _Judge:
    path = ctx.path(given)
    if not path.exists():
        raise CliError(f"{given}: no such file or folder")
    if path.is_file() and looks_like_worklist(path):
        try:
            worklist = read_worklist(path, ctx.max_grade, shown=ctx.shown(path), graded=False)
        except FormatError as exc:
            raise CliError(str(exc)) from None
        categories = {q.id: q.category for q in worklist.queries if q.category}
        return _Judge(worklist.judgments(), categories, frozenset([path.resolve()]))
    # a TREC file: golden_files names it, with the import that makes a golden file of it
    loaded = load_golden(ctx, [given], _WANTED)
    if loaded.problems:
        raise CliError("\n".join(str(p) for p in loaded.problems))
    judgments = {q.id: dict(q.relevant) for q in loaded.queries}
    categories = {q.id: q.category for q in loaded.queries}
    return _Judge(judgments, categories, frozenset(f.resolve() for f in loaded.files))


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def run(ctx: Context, args: argparse.Namespace) -> int:
    if ctx.path(args.a).resolve() == ctx.path(args.b).resolve():  # kappa 1.0 by construction
        raise CliError(
            f"A ({args.a}) and B ({args.b}) are the same judgments: agreement compares two "
            "judges; give the other judge's files"
        )
    first, second = _judgments(ctx, args.a), _judgments(ctx, args.b)
    shared = sorted(first.files & second.files)
    if shared:  # a folder and a file in it: that file's grades agree by construction
        raise CliError(
            f"A ({args.a}) and B ({args.b}) share {ctx.shown(shared[0])}: its judgments "
            "would agree with themselves; give each judge's own files"
        )
    categories = {**second.categories, **first.categories} if args.by else {}
    try:
        rows = agreement(first.judgments, second.judgments, categories, max_grade=ctx.max_grade)
    except AgreementError as exc:
        raise CliError(str(exc)) from None
    if not args.by:
        rows = tuple(r for r in rows if r.category == ALL)
    headers = ["category", "queries", "pairs", "raw", "kappa", "linear kappa", "only A", "only B"]
    cells = [
        [
            r.category,
            r.queries,
            r.pairs,
            _number(r.raw),
            _number(r.kappa),
            _number(r.linear_kappa),
            r.first_only,
            r.second_only,
        ]
        for r in rows
    ]
    ctx.say_wrapped(f"A = {args.a}, B = {args.b}; pairs = (query, document) judged by both")
    for line in fit(headers, cells, ctx.width()):  # split in two tables when too wide
        ctx.say(line)
    overall = rows[-1]
    if overall.pairs == 0:
        ctx.note(
            "no (query, document) pair is judged by both: nothing to compare; give two "
            "judgments of the same queries (the same query and document ids)"
        )
        return FINDINGS
    if overall.kappa is None:
        ctx.note("kappa is undefined (n/a): both judges gave every pair one and the same grade")
    return OK
