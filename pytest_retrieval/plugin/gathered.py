"""What the controller gathers beside the records: retriever metadata, query lines and texts.

Each process (the controller, or every xdist worker) notes its retrievers' metadata the
first time a configuration's retriever reaches an item (:func:`note_retriever`), the
line and text of every golden query it collected (:func:`note_queries`), and advice on
how its retriever fixture is built (:func:`note_rebuilt`). A worker hands them to the
controller in its ``workeroutput``; :class:`Gathered` merges them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from ..quoting import encodable_data
from ..retriever_metadata import Metadata, describe, parse_metadata
from ..retrievers import ProtocolError, RetrieverKind, protocol_of
from .keys import (
    GOLDEN_SET_KEY,
    REBUILT_KEY,
    RETRIEVER_KINDS_KEY,
    RETRIEVER_NOTES_KEY,
    RETRIEVERS_KEY,
)

WORKER_RETRIEVERS = "retrieval_retrievers"
WORKER_NOTES = "retrieval_retriever_notes"
WORKER_KINDS = "retrieval_retriever_kinds"
WORKER_QUERIES = "retrieval_queries"
WORKER_REBUILT = "retrieval_rebuilt"


def _workeroutput(config: pytest.Config) -> dict[str, object] | None:
    output = getattr(config, "workeroutput", None)
    return output if isinstance(output, dict) else None


def note_retriever(config: pytest.Config, configuration: str, retriever: object) -> None:
    """Read a configuration's retriever metadata, once per configuration and process."""
    seen = config.stash.setdefault(RETRIEVERS_KEY, {})
    if configuration in seen:
        return
    metadata, problems = describe(configuration, retriever)
    seen[configuration] = metadata
    notes = config.stash.setdefault(RETRIEVER_NOTES_KEY, [])
    notes.extend(problems)
    kinds = config.stash.setdefault(RETRIEVER_KINDS_KEY, {})
    with contextlib.suppress(ProtocolError):  # the item says what is wrong with it
        kinds[configuration] = protocol_of(retriever, "").kind()
    output = _workeroutput(config)
    if output is not None:
        # as JSON text (a lone surrogate, a file name decoded with surrogateescape, as its
        # escape: execnet refuses it), read back alike by the controller
        output[WORKER_RETRIEVERS] = json.dumps(dict(seen))
        output[WORKER_NOTES] = encodable_data(list(notes))
        output[WORKER_KINDS] = {name: kind.as_dict() for name, kind in kinds.items()}


def query_places(config: pytest.Config) -> dict[str, tuple[int, str]]:
    """Every golden query collected by this process: id -> (line in its file, text)."""
    golden = config.stash.get(GOLDEN_SET_KEY, None)
    return {} if golden is None else {q.id: (q.line, q.text) for q in golden.queries.values()}


def note_queries(config: pytest.Config) -> None:
    """On a worker: hand the controller the lines and texts of the golden queries."""
    output = _workeroutput(config)
    if output is not None:
        output[WORKER_QUERIES] = query_places(config)


def note_rebuilt(config: pytest.Config, text: str) -> None:
    """Advice that the retriever fixture is rebuilt for every item, for the controller to
    issue with the rest at the end (a warning inside an item would, under ``-W error``,
    fail that item's query)."""
    said = config.stash.setdefault(REBUILT_KEY, [])
    said.append(text)
    output = _workeroutput(config)
    if output is not None:
        output[WORKER_REBUILT] = list(said)


@dataclass
class Gathered:
    """Retriever metadata, notes about it, how each retriever is called, and query lines
    and texts, from every process."""

    retrievers: dict[str, Metadata] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    places: dict[str, tuple[int, str]] = field(default_factory=dict)
    kinds: dict[str, RetrieverKind] = field(default_factory=dict)
    rebuilt: list[str] = field(default_factory=list)  # advice on the fixture's scope

    def add_worker(self, output: Mapping[str, object]) -> None:
        found = output.get(WORKER_RETRIEVERS)
        if isinstance(found, str):  # JSON text (what note_retriever sends)
            found = json.loads(found)
        if isinstance(found, Mapping):
            for name, data in found.items():
                metadata, _ = parse_metadata(data, str(name))
                self.retrievers.setdefault(str(name), metadata)
        notes = output.get(WORKER_NOTES)
        if isinstance(notes, list):
            self.notes.extend(str(n) for n in notes if str(n) not in self.notes)
        kinds = output.get(WORKER_KINDS)
        for name, data in kinds.items() if isinstance(kinds, Mapping) else ():
            kind = RetrieverKind.parse(data)
            if kind is not None:
                self.kinds.setdefault(str(name), kind)
        rebuilt = output.get(WORKER_REBUILT)
        if isinstance(rebuilt, list):
            self.rebuilt.extend(str(t) for t in rebuilt if str(t) not in self.rebuilt)
        places = output.get(WORKER_QUERIES)
        if isinstance(places, Mapping):
            for qid, place in places.items():
                if isinstance(place, (list, tuple)) and len(place) == 2:
                    self.places[str(qid)] = (int(place[0]), str(place[1]))

    def with_local(self, config: pytest.Config) -> Gathered:
        """This merged with what the controller's own process noted."""
        notes = [*self.notes]
        local_notes: list[str] = config.stash.get(RETRIEVER_NOTES_KEY, [])
        notes += [n for n in local_notes if n not in notes]
        local: dict[str, Metadata] = config.stash.get(RETRIEVERS_KEY, {})
        kinds: dict[str, RetrieverKind] = config.stash.get(RETRIEVER_KINDS_KEY, {})
        rebuilt = [*self.rebuilt]
        rebuilt += [t for t in config.stash.get(REBUILT_KEY, []) if t not in rebuilt]
        return Gathered(
            {**self.retrievers, **local},
            notes,
            {**self.places, **query_places(config)},
            {**self.kinds, **kinds},
            rebuilt,
        )
