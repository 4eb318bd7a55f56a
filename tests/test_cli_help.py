"""Every command's ``--help``, the main one and the nested ones, fits an 80-column terminal."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from pytest_retrieval.cli.main import build_parser, main


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def test_every_help_fits_80_columns(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("COLUMNS", "80")
    commands = list(_commands(build_parser()))
    assert ("import", "trec") in commands and ("compare",) in commands  # the walk goes deep
    too_wide = []
    for command in commands:
        assert main([*command, "--help"], cwd=tmp_path) == 0
        text = capsys.readouterr().out
        assert text.startswith("usage: pytest-retrieval")
        too_wide += [f"{' '.join(command)}: {line}" for line in text.splitlines() if len(line) > 80]
    assert too_wide == []


def test_an_unknown_argument_names_the_command_and_pytest_s_o(capsys, tmp_path):
    """argparse's top parser reported it: 'unrecognized arguments: -o KEY=VALUE (see
    pytest-retrieval --help)', neither the command's help nor how to set an ini key."""
    assert main(["compare", "a.json", "b.json", "-o", "retrieval_tolerance=0.1"], cwd=tmp_path) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "pytest-retrieval: error: compare: unrecognized arguments: -o retrieval_tolerance=0.1; "
        "compare has no -o (pytest's -o KEY=VALUE): an ini setting is --override-ini "
        "KEY=VALUE here (see pytest-retrieval compare --help)"
    )
    assert main(["import", "trec", "q.txt", "--frob"], cwd=tmp_path) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "pytest-retrieval: error: import trec: unrecognized arguments: --frob "
        "(see pytest-retrieval import trec --help)"
    )
    assert main(["--frob"], cwd=tmp_path) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "pytest-retrieval: error: unrecognized arguments: --frob (see pytest-retrieval --help)"
    )
