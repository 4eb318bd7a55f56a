"""``pytest-retrieval validate [PATH...]``: every problem in every golden file, then what
users trip on (:mod:`pytest_retrieval.lint`). Exit 1 on any finding: fit for pre-commit."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..golden import GoldenFileError, Problem
from ..io.common import FormatError, counted, loads_json
from ..io.corpus import read_corpus
from ..io.golden_yaml import parse_yaml
from ..lint import CHECKS, Finding, TagsAsText, lint, query_tags, tags_as_text
from .common import FINDINGS, OK, CliError, Commands, Context, add_common, load_golden

HELP = "check golden files: the collection's errors, then likely mistakes (exit 1 on any)"
DESCRIPTION = """\
Check every golden file and report every problem, with the messages of a
pytest collection error (path:line: query 'id': what is wrong and the fix).
Then, on the files that load, what users trip on, each with its check name in
brackets:
  all-zero         every judgment of a query has grade 0 (nothing is relevant)
  forbid-relevant  an id both in 'forbid' and judged relevant (grade > 0)
  same-text        the same query text under two ids
  case-ids         two ids equal but for letter case (Q1 and q1)
  unknown-id       a judged or forbidden id missing from the corpus list
                   (--corpus)
  tags-text        'tags' given as text instead of a list
Each kind prints its first --max lines (default 20), then the count of the
rest. Exit 0 when nothing is found, 1 when anything is, 2 when the command
cannot run.
"""
MAX_SHOWN = 20  # lines of each kind printed by default
REFUSED = "refused"  # the kind of a problem the plugin refuses (a collection error)


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "validate",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="golden files or folders (default: retrieval_golden of the ini file)",
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="the document ids that exist, one per line (import --corpus writes it): judged "
        "ids missing from it are reported",
    )
    parser.add_argument(
        "--ignore",
        metavar="CHECK",
        action="append",
        default=[],
        choices=CHECKS,
        help=f"skip a check (may repeat): {', '.join(CHECKS)}",
    )
    parser.add_argument(
        "--max",
        metavar="N",
        type=_count,
        default=MAX_SHOWN,
        help=f"print at most N lines of each kind, then the count of the rest (default "
        f"{MAX_SHOWN}; 0: every line)",
    )
    add_common(parser)


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a count: write 0 or more (0: all)")
    return int(text)


def _tags(ctx: Context, path: Path) -> list[TagsAsText]:
    shown = ctx.shown(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark, as the loader
    except (OSError, UnicodeDecodeError):
        return []  # the loader reported it
    if path.suffix.lower() != ".jsonl":
        try:
            return tags_as_text(shown, parse_yaml(text, shown))
        except GoldenFileError:  # a syntax error: the loader reported it
            return []
    found: list[TagsAsText] = []
    # split on newlines only, as the loader: JSON strings may hold U+2028, which
    # splitlines cuts
    for number, line in enumerate(text.split("\n"), start=1):
        try:
            hit = query_tags(shown, loads_json(line), number) if line.strip() else None
        except ValueError:
            continue
        if hit is not None:
            found.append(hit)
    return found


def _corpus(ctx: Context, given: str | None) -> frozenset[str] | None:
    if given is None:
        return None
    path = ctx.file(given, "--corpus ")
    try:
        return read_corpus(path, ctx.shown(path))
    except FormatError as exc:
        raise CliError(str(exc)) from None


def run(ctx: Context, args: argparse.Namespace) -> int:
    corpus = _corpus(ctx, args.corpus)
    loaded = load_golden(ctx, args.paths)
    loaded_files = {q.path for q in loaded.queries}
    tags = [t for path in loaded.files if ctx.shown(path) in loaded_files for t in _tags(ctx, path)]
    shown_corpus = ctx.shown(ctx.path(args.corpus)) if args.corpus else "corpus"
    findings = lint(loaded.queries, tags, corpus, shown_corpus, args.ignore)
    order = {ctx.shown(path): i for i, path in enumerate(loaded.files)}
    entries: list[Problem | Finding] = [*loaded.problems, *findings]
    # file by file: the loader's problems in its order (as collection shows them), then
    # that file's findings by line
    entries.sort(key=lambda e: (order.get(_problem(e).path, len(order)), isinstance(e, Finding)))
    _print_capped(ctx, entries, args.max)
    files = len(loaded.files)
    # an ini warning went to standard error: the last line must not hide it
    warned = ctx.setting_warnings
    warnings = f"; {counted(warned, 'warning')} about the ini settings above" if warned else ""
    if entries:
        broken = len({_problem(e).path for e in entries})
        mistakes = counted(len(findings), "likely mistake")
        ctx.say(
            f"{counted(len(entries), 'problem')} in {broken} of {counted(files, 'golden file')} "
            f"({len(loaded.problems)} the plugin refuses, {mistakes}){warnings}"
        )
        return FINDINGS
    found = counted(len(loaded.queries), "golden query", "golden queries")
    where = " in the golden files" if warned else ""
    ctx.say(f"{found} in {counted(files, 'file')}: no problem found{where}{warnings}")
    return OK


def _print_capped(ctx: Context, entries: list[Problem | Finding], limit: int) -> None:
    """Each entry in order, at most ``limit`` of each kind (0: all), then a line per kind
    with the count left out."""
    kinds: dict[str, int] = {}
    for entry in entries:
        kind = entry.check if isinstance(entry, Finding) else REFUSED
        kinds[kind] = kinds.get(kind, 0) + 1
        if not limit or kinds[kind] <= limit:
            ctx.say(str(entry))
    for kind, count in kinds.items():
        if limit and count > limit:
            what = "problems the plugin refuses" if kind == REFUSED else f"[{kind}] findings"
            ctx.say(f"... and {count - limit:,} more {what} (--max 0 prints every one)")


def _problem(entry: Problem | Finding) -> Problem:
    return entry.problem if isinstance(entry, Finding) else entry
