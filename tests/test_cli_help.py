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
