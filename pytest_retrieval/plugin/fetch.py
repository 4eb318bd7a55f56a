"""Where an item's answers come from: the retriever, or a recording being replayed.

A per-query retriever is called when its item runs. A batch or async retriever is
called ahead: the first item of a configuration that has no answer yet fetches a
chunk (``retrieval_batch_size`` queries; for async at least ``retrieval_concurrency``)
made of itself and the next items this process will run for the same configuration,
and those items then read their answers. An async retriever's next two chunks are
started as soon as one comes in, so its waiting overlaps the scoring of the chunk
before; a coarse item keeps its next ``AHEAD`` chunks in flight. All share one limit
of ``retrieval_concurrency`` calls, so that a slow call holds back no other chunk.
Under xdist a worker batches only its own items: the ones xdist has already handed it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import pytest

from ..golden import GoldenQuery, RetrievalQuery
from ..replay import Replay
from ..retrievers import protocol_of
from ..runner import Answer, Calls, EventLoopThread, Started
from ..settings import CallSettings
from .nodes import golden_queries_of, golden_query_of, item_configuration

SCAN = 20  # items looked at ahead per query wanted in a chunk
AHEAD = 16  # an async retriever's chunks of a coarse item in flight at once
QUERY_AHEAD = 2  # and of per-query items, after the one being scored
PROGRESS_STEP = 8  # a per-query retriever's queries between progress updates
KEPT = 4  # retrievers whose protocol is kept (a few configurations taking turns)


class Fetcher:
    """One per process: each retriever's protocol, the loop, and the answers fetched ahead."""

    def __init__(self, calls: CallSettings, fixture: str, replay: Replay | None = None):
        self.settings = calls
        self.fixture = fixture
        self.replay = replay
        self.loop = EventLoopThread()
        self._calls: dict[int, tuple[object, Calls]] = {}
        self._ahead: dict[tuple[str, str], Answer] = {}
        self._flying: dict[tuple[str, str], _InFlight] = {}  # started, not yet in
        self._positions: dict[int, int] = {}

    def calls(self, retriever: object) -> Calls:
        """How this retriever is called (its protocol read once per object). The last
        :data:`KEPT` retrievers are kept (so their ids stay theirs), not every one: a
        function-scoped fixture makes one per item, each maybe holding an index."""
        found = self._calls.pop(id(retriever), None)
        if found is None:
            protocol = protocol_of(retriever, self.fixture)
            s = self.settings
            found = (retriever, Calls(protocol, s.timeout, s.batch_size, s.concurrency, self.loop))
        self._calls[id(retriever)] = found  # the most recent last
        while len(self._calls) > KEPT:
            del self._calls[next(iter(self._calls))]
        return found[1]

    def answer(
        self, item: pytest.Item, query: GoldenQuery, configuration: str, retriever: object
    ) -> Answer:
        """The answer to one query item."""
        if self.replay is not None:
            return self.replay.answer(configuration, query)
        calls = self.calls(retriever)
        if not calls.protocol.prefetches:
            return calls.one(RetrievalQuery.of(query))
        key = (configuration, query.id)
        if key not in self._ahead:
            flight = self._flying.get(key)
            if flight is None:
                pipelined = _pipelines(calls)
                if pipelined and _per_item(item, self.fixture):  # its retriever ends with it
                    return calls.many([RetrievalQuery.of(query)], [query.id])[0]
                # calls left in flight past this item: none beyond its configuration's run
                size = calls.chunk_size()
                chunk = self._chunk(item, [query], configuration, size, contiguous=pipelined)
                if not pipelined:
                    self._fetch(calls, configuration, chunk)
                    return self._ahead.pop(key)
                flight = self._start(calls, configuration, chunk)
            first = len(flight.taken) == 0
            self._take(flight, key)
            if first:
                self._start_following(item, calls, configuration, flight)
        return self._ahead.pop(key)

    def _take(self, flight: _InFlight, key: tuple[str, str]) -> None:
        """One query's answer from its chunk in flight, as soon as its own call ends."""
        self._ahead[key] = flight.started.answer(flight.positions[key[1]])
        flight.taken.add(key[1])
        del self._flying[key]

    def _start_following(
        self, item: pytest.Item, calls: Calls, configuration: str, current: _InFlight
    ) -> None:
        """The next QUERY_AHEAD chunks of per-query items on their way while ``current``'s
        items are scored (with one, the calls idled while they were)."""
        flying = {id(flight) for flight in self._flying.values() if flight is not current}
        for _ in range(QUERY_AHEAD - len(flying)):
            following = self._chunk(item, [], configuration, calls.chunk_size(), True)
            if not following:
                return
            self._start(calls, configuration, following)

    def answers(
        self,
        queries: Sequence[GoldenQuery],
        configuration: str,
        retriever: object,
        progress: Callable[[int], None] = lambda done: None,
        item: pytest.Item | None = None,
    ) -> list[Answer]:
        """The answers to every query of a coarse item, fetched chunk by chunk
        (``progress`` is told how many are answered after each chunk). An async
        retriever's next chunk, then the first of the next coarse ``item`` of the
        configuration, is on its way while one chunk is taken in."""
        if self.replay is not None:
            replay = self.replay
            return [replay.answer(configuration, q) for q in queries]
        calls = self.calls(retriever)
        size = calls.chunk_size() if calls.protocol.prefetches else PROGRESS_STEP
        chunks = [queries[start : start + size] for start in range(0, len(queries), size)]
        if not _pipelines(calls):
            answers: list[Answer] = []
            for chunk in chunks:
                answers += calls.many([RetrievalQuery.of(q) for q in chunk], [q.id for q in chunk])
                progress(len(answers))
            return answers
        return self._pipelined(calls, configuration, chunks, progress, item)

    def _pipelined(
        self,
        calls: Calls,
        configuration: str,
        chunks: Sequence[Sequence[GoldenQuery]],
        progress: Callable[[int], None],
        item: pytest.Item | None,
    ) -> list[Answer]:
        answers: list[Answer] = []
        for index, chunk in enumerate(chunks):
            # the next AHEAD chunks on their way: a slow call holds back no other
            window = chunks[:AHEAD] if index == 0 else chunks[index + AHEAD - 1 : index + AHEAD]
            for each in window:
                self._start_missing(calls, configuration, each)
            if index + 1 == len(chunks):  # and the next item's first ones
                size = calls.chunk_size()
                following = self._next_item_chunk(item, configuration, size * AHEAD)
                for start in range(0, len(following), size):
                    self._start_missing(calls, configuration, following[start : start + size])
            self._ensure(calls, configuration, chunk)
            answers += [self._ahead.pop((configuration, q.id)) for q in chunk]
            progress(len(answers))
        return answers

    def _ensure(self, calls: Calls, configuration: str, chunk: Sequence[GoldenQuery]) -> None:
        """Every answer of ``chunk`` in hand: flights holding them landed, the rest fetched."""
        flights = {id(f): f for q in chunk if (f := self._flying.get((configuration, q.id)))}
        for flight in flights.values():
            self._land(flight)
        missing = [q for q in chunk if (configuration, q.id) not in self._ahead]
        if missing:
            self._land(self._start(calls, configuration, missing))

    def _start_missing(
        self, calls: Calls, configuration: str, chunk: Sequence[GoldenQuery]
    ) -> None:
        taken = self._ahead.keys() | self._flying.keys()
        wanted = [q for q in chunk if (configuration, q.id) not in taken]
        if wanted:
            self._start(calls, configuration, wanted)

    def _next_item_chunk(
        self, item: pytest.Item | None, configuration: str, size: int
    ) -> list[GoldenQuery]:
        """The first ``size`` queries the next coarse item of ``configuration`` will ask for."""
        if item is None or _per_item(item, self.fixture):  # its retriever ends with it
            return []
        following = next(iter(self._upcoming(item)), None)
        if following is None or not _same_golden(following, configuration):
            return []  # another configuration's fixture may be set up in between
        if golden_query_of(following) is not None:
            return []  # a per-query item: it fetches its own
        return asked(golden_queries_of(following))[:size]

    def again(self, query: GoldenQuery, retriever: object) -> Answer:
        """One more call for one query (``retrieval_repeat``), whatever the protocol."""
        for flight in list(self._flying.values()):  # no more than the limit in flight
            self._land(flight)
        calls = self.calls(retriever)
        if not calls.protocol.prefetches:
            return calls.one(RetrievalQuery.of(query))
        return calls.many([RetrievalQuery.of(query)], [query.id])[0]

    def _fetch(self, calls: Calls, configuration: str, chunk: list[GoldenQuery]) -> None:
        answers = calls.many([RetrievalQuery.of(q) for q in chunk], [q.id for q in chunk])
        for query, answer in zip(chunk, answers, strict=True):
            self._ahead[(configuration, query.id)] = answer

    def _start(self, calls: Calls, configuration: str, chunk: list[GoldenQuery]) -> _InFlight:
        started = calls.start([RetrievalQuery.of(q) for q in chunk], [q.id for q in chunk])
        flight = _InFlight(configuration, chunk, started, {q.id: i for i, q in enumerate(chunk)})
        for query in chunk:
            self._flying[(configuration, query.id)] = flight
        return flight

    def _land(self, flight: _InFlight) -> None:
        """Wait for a started chunk; its answers join the ones fetched ahead (but those
        an item has taken already: a query asked again is asked anew)."""
        answers = flight.started.answers()
        for query, answer in zip(flight.chunk, answers, strict=True):
            key = (flight.configuration, query.id)
            if self._flying.get(key) is flight:
                self._ahead[key] = answer
                del self._flying[key]

    def _chunk(
        self,
        item: pytest.Item,
        first: list[GoldenQuery],
        configuration: str,
        size: int,
        contiguous: bool = False,
    ) -> list[GoldenQuery]:
        """``first`` and the next queries of the configuration this process will run
        after ``item``, none of them fetched or started yet; ``contiguous``: only up to
        the first item of anything else (a chunk left in flight must not outlive its
        configuration's fixture, which the next configuration's may replace)."""
        chunk, ids = list(first), {query.id for query in first}
        for scanned, other in enumerate(self._upcoming(item)):
            if len(chunk) >= size or scanned > SCAN * size:
                break
            if contiguous and not _same_golden(other, configuration):
                break
            queries = golden_queries_of(other)
            if len(queries) != 1 or other is item:
                continue
            candidate = queries[0]
            if candidate.skip is not None or candidate.id in ids:
                continue
            if item_configuration(other)[0] != configuration:
                continue
            key = (configuration, candidate.id)
            if key not in self._ahead and key not in self._flying:
                chunk.append(candidate)
                ids.add(candidate.id)
        return chunk

    def _upcoming(self, item: pytest.Item) -> Iterator[pytest.Item]:
        """The items this process runs from this one on, as far as it knows them."""
        items = item.session.items
        pending = _worker_pending(item.config)
        if pending is not None:
            yield from (items[i] for i in pending if 0 <= i < len(items))
            return
        if not self._positions:
            self._positions = {id(each): index for index, each in enumerate(items)}
        start = self._positions.get(id(item))
        if start is not None:
            yield from items[start + 1 :]

    def close(self) -> None:
        self.loop.close()


def _same_golden(item: pytest.Item, configuration: str) -> bool:
    """Whether ``item`` is a golden item of ``configuration``."""
    return bool(golden_queries_of(item)) and item_configuration(item)[0] == configuration


def _per_item(item: pytest.Item, fixture: str) -> bool:
    """Whether the item's retriever fixture is function-scoped: built for this item and
    torn down after it, so no call of it may be left in flight for a later item."""
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.get(fixture) if info is not None else None
    if not definitions:
        return False
    return bool(definitions[-1].scope == "function")


def _pipelines(calls: Calls) -> bool:
    """Whether a retriever's chunks are started ahead: per-query async calls, on the
    plugin's loop (a batch call, sync or async, is taken in as it is made)."""
    return calls.protocol.is_async and calls.protocol.style != "batch"


def asked(queries: Sequence[GoldenQuery]) -> list[GoldenQuery]:
    """The queries of a coarse item its retriever is asked (those not marked skip)."""
    return [q for q in queries if q.skip is None]


@dataclass(eq=False)
class _InFlight:
    """A chunk of one configuration's queries whose answers are on their way."""

    configuration: str
    chunk: list[GoldenQuery]
    started: Started
    positions: dict[str, int]  # query id -> its place in the chunk
    taken: set[str] = field(default_factory=set)  # the ids whose items took their answer


FETCHER_KEY = pytest.StashKey[Fetcher]()  # on the config: this process's calls


def _worker_pending(config: pytest.Config) -> list[int] | None:
    """Under xdist, the indices of the items this worker has been handed and not yet run
    (pytest-xdist's worker queue; checked on 3.x). None when this is no worker."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        queue = getattr(plugin, "torun", None)
        if queue is None or not hasattr(queue, "lock"):
            continue
        nxt = getattr(plugin, "nextitem_index", None)
        with queue.lock() as waiting:
            pending = [nxt, *waiting]
        return [i for i in pending if isinstance(i, int)]
    return []  # a worker whose queue cannot be read: no prefetching beyond the item
