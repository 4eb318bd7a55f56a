"""``pytest-retrieval COMMAND ...``: the parser, the dispatch table, the exit codes.

Exit 0 all is well; 1 the command ran and found something (validation problems, a
regression, a worklist that cannot be merged); 2 it could not run (usage, a missing
or unreadable file, a bad setting). ``--help`` on every command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from .._version import __version__
from . import agree, convert, evaluate, pool, validate
from .common import USAGE, CliError, Context, Parser, context, os_error_text

Handler = Callable[[Context, argparse.Namespace], int]

# command (and sub-command) -> what runs it
COMMANDS: dict[str, Handler] = {
    "validate": validate.run,
    "import trec": convert.import_trec,
    "import beir": convert.import_beir,
    "export trec": convert.export_trec,
    "export run": convert.export_run,
    "evaluate": evaluate.run_evaluate,
    "compare": evaluate.run_compare,
    "pool": pool.run_pool,
    "merge": pool.run_merge,
    "agreement": agree.run,
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="pytest-retrieval",
        description="Golden sets for retrieval evaluation, without pytest: validate, import "
        "and export TREC and BEIR, evaluate runs, compare reports, pool, merge and measure "
        "judge agreement. Settings come from the same ini file as the plugin's.",
        epilog="Exit codes: 0 ok, 1 findings (problems, a regression), 2 usage or input error.",
    )
    parser.add_argument("--version", action="version", version=f"pytest-retrieval {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    validate.add_parser(commands)
    convert.add_parsers(commands)
    evaluate.add_parsers(commands)
    pool.add_parsers(commands)
    agree.add_parser(commands)
    return parser


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The arguments; one the command does not know is named with the command's help (the
    top parser's own message sent to ``pytest-retrieval --help``), and pytest's ``-o
    KEY=VALUE`` given to a command without ``-o`` says how to write it here."""
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    name = " ".join(filter(None, (args.command, getattr(args, "format", None))))
    hint = ""
    if any(a.startswith("-o") for a in extra):
        hint = (
            f"; {name or 'pytest-retrieval'} has no -o (pytest's -o KEY=VALUE): an ini "
            "setting is --override-ini KEY=VALUE here"
        )
    where = f"pytest-retrieval {name}".strip()
    raise CliError(
        f"{name + ': ' if name else ''}unrecognized arguments: {' '.join(extra)}{hint} "
        f"(see {where} --help)"
    )


def _handler(args: argparse.Namespace) -> Handler:
    name = args.command
    sub = getattr(args, "format", None)
    if name in ("import", "export"):
        if sub is None:
            raise CliError(
                f"pytest-retrieval {name}: name a format (see pytest-retrieval {name} -h)"
            )
        name = f"{name} {sub}"
    return COMMANDS[name]


BROKEN_PIPE = 141  # what a shell reports for a command a closed pipe stopped (128 + SIGPIPE)


def _let_stdout_go(stream: TextIO | None = None) -> None:
    """Point standard output (or ``stream``) at the null device, so that the interpreter's
    flush at exit does not fail on the closed pipe again (as the Python documentation on
    SIGPIPE does)."""
    try:
        fd = (stream or sys.stdout).fileno()
    except (AttributeError, OSError, ValueError):  # not a real file: nothing left to flush
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def _say(err: TextIO, text: str) -> None:
    """Print an error line; when the error stream is a closed pipe (``2>&1 | head``) it
    goes unsaid, and the exit code still tells what happened."""
    try:
        print(text, file=err)
        err.flush()
    except BrokenPipeError:
        _let_stdout_go(err)


def main(
    argv: Sequence[str] | None = None,
    *,
    cwd: Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run one command; returns the exit code (0, 1 or 2)."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        args = _parse(parser, list(sys.argv[1:] if argv is None else argv))
        if args.command is None:
            parser.print_help(out)
            return USAGE
        handler = _handler(args)
        ctx = context(args, (cwd or Path.cwd()).resolve(), out, err)
        try:
            return handler(ctx, args)
        finally:
            ctx.close()
    except CliError as exc:
        _say(err, f"pytest-retrieval: error: {exc}")
        return USAGE
    except BrokenPipeError:  # the reader stopped reading (| head): stop, and say nothing
        _let_stdout_go()
        return BROKEN_PIPE
    except OSError as exc:  # a path that cannot be read or written: no traceback
        _say(err, f"pytest-retrieval: error: {os_error_text(exc)}")
        return USAGE
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        _say(err, "pytest-retrieval: interrupted")
        return USAGE
