"""Calling a retriever: one query or a chunk of them, sync or async, within a deadline.

Pure: no pytest. Every call's outcome is an :class:`Answer` (what came back, or the
error and the exception, and the latency), so a fault in one query never stops the
others. ``retrieval_timeout`` is one deadline shared by every kind of call:

- a synchronous call runs in a daemon thread; past the deadline the run goes on
  without it. Python cannot stop a thread, so the abandoned call keeps running in
  the background until it returns (its result is discarded); one that never
  returns holds its thread until the process exits;
- an ``async`` call is cancelled at the deadline (``asyncio.wait_for``);
- a batch call of n queries has n times the deadline.

Async retrievers run on an event loop the plugin owns (:class:`EventLoopThread`), in
a thread of its own, so a loop the user's code or pytest-asyncio/anyio runs elsewhere
is never touched.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import itertools
import numbers
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .io.common import counted
from .metric_registry import exception_text, raised_text
from .retrievers import Protocol
from .settings import BATCH_SIZE, CONCURRENCY
from .shapes import MAX_RESULTS

T = TypeVar("T")


TIMEOUT_PREFIX = "the retriever did not return within"
BLOCKED_PREFIX = "the retriever held the event loop for"
STUCK_PREFIX = "the event loop did not come back within"
# errors of calls that took their time: their latency is real (and counts in its statistics)
SLOW_ERRORS = (TIMEOUT_PREFIX, BLOCKED_PREFIX, STUCK_PREFIX)
RECORDED_PREFIX = "recorded: "  # a replayed call's error: the recording's, after this


def latency_is_real(error: str | None) -> bool:
    """The call answered, or took its time and ran out of it (live or as recorded): its
    latency counts in the statistics and the budgets; a call that failed at once would
    look fast."""
    return error is None or error.removeprefix(RECORDED_PREFIX).startswith(SLOW_ERRORS)


LOOP_SLACK = 5.0  # seconds the plugin's loop may lag its calls' own deadlines


class LoopBlocked(Exception):
    """The plugin's event loop did not come back: an async call that never yields."""

    def __init__(self, waited: float):
        self.waited = waited
        super().__init__(
            f"{STUCK_PREFIX} {waited:g} s: an async retriever "
            "blocked it (a call inside async def that never yields, such as time.sleep or a "
            "synchronous client) and the query scores 0; the loop was abandoned and a new "
            "one started"
        )


class RetrieverTimeout(Exception):
    """A retriever call that did not return within ``retrieval_timeout``."""

    def __init__(
        self, timeout: float, cancelled: bool = False, batch: int = 0, late: float | None = None
    ):
        self.timeout = timeout
        fate = (
            "was cancelled"
            if cancelled
            else "was abandoned (it runs on in a background thread; its result is discarded)"
        )
        if late is not None:  # it held the interpreter past its deadline, then returned
            fate = f"returned only after {late:.3g} s (its result is discarded)"
        if batch:
            super().__init__(
                f"the retriever did not return within {timeout * batch:g} s (retrieval_timeout "
                f"{timeout:g} s x a batch of {counted(batch, 'query', 'queries')}): the batch "
                f"call {fate} and each "
                "of its queries scores 0"
            )
            return
        super().__init__(
            f"{TIMEOUT_PREFIX} {timeout:g} s (retrieval_timeout): the "
            f"call {fate} and the query scores 0"
        )


@dataclass
class Answer:
    """One query's outcome of a retriever call."""

    returned: object = None
    error: str | None = None  # why there is no ranking (a timeout, a raise, a bad batch)
    exception: BaseException | None = None  # what the user's code raised, for its traceback
    latency: float | None = 0.0  # seconds: the call, or its share of a batch; None: unknown
    shared: bool = False  # the latency is a batch call's time divided over its queries
    origin: str = ""  # for a failed batch: the query whose item shows the traceback
    scores: Sequence[float] | None = None  # when ``returned`` is plain ids: their scores


def _consumed(returned: object) -> object:
    """A generator is consumed inside the call: its code is the retriever's. One that
    does not stop is cut one past the most results a ranking may hold, which the
    result reader then refuses (an endless iterator would fill the memory first). A
    list is copied as it comes back: a retriever that refills and returns one list
    object each call would otherwise change the answers of calls made ahead of their
    items (async and batch calls) to its last one."""
    if isinstance(returned, Iterator):
        return list(itertools.islice(returned, MAX_RESULTS + 1))
    if isinstance(returned, list):
        return list(returned)
    return returned


def _each_consumed(returned: object) -> object:
    """A batch's return value with it and each of its result lists consumed (see
    :func:`_consumed`): inside the call, so a result generator that raises or hangs is
    the batch call's error or timeout. A value that is not a list of rankings is left
    for :func:`_split` to name."""
    returned = _consumed(returned)
    dimensions = getattr(returned, "ndim", None)
    if isinstance(dimensions, int) and dimensions >= 1:  # an array: a row of ids per query
        returned = list(returned)  # type: ignore[call-overload]
    if isinstance(returned, (str, bytes, dict)) or not isinstance(returned, Sequence):
        return returned
    return [_consumed(r) for r in returned]


async def _batch_resolved(awaitable: object) -> object:
    """An async batch call's value (see :func:`_resolve`), its result lists consumed."""
    return _each_consumed(await _resolve(awaitable))


# what asyncio and its clients say when an object made on one loop is used on another
OTHER_LOOP = (
    "different loop",
    "another event loop",
    "attached to a different",
    "bound to a different event loop",
    "event loop is closed",
)
LOOP_NOTE = (
    "; note: an async retriever's coroutines run on the plugin's own event loop, in a "
    "thread of its own, not on the loop that made this client (a pytest-asyncio fixture, "
    "asyncio.run in a fixture): create the client (aiohttp session, asyncpg pool, "
    "httpx.AsyncClient) inside the retriever's first call (docs/retrievers.md: Async retrievers "
    "and event loops)"
)


def _on_other_loop(exc: BaseException) -> str:
    """:data:`LOOP_NOTE` for a RuntimeError that says an async call met an object bound to
    another event loop, else ""."""
    text = exception_text(exc).lower()
    return LOOP_NOTE if isinstance(exc, RuntimeError) and any(w in text for w in OTHER_LOOP) else ""


# what objects bound to the thread that made them say when used in another one
OTHER_THREAD = ("same thread", "main thread", "pytest-retrieval call", "different thread")
THREAD_NOTE = (
    "; note: with retrieval_timeout set, a synchronous retriever is called in a new thread "
    "for each call (so that a call can be abandoned at its deadline), not in pytest's main "
    "thread: an object bound to the thread that made it (a sqlite3 connection, "
    "asyncio.get_event_loop(), signal handlers) fails there; make it inside the call, or "
    "set retrieval_timeout = 0 (docs/retrievers.md: Timeouts)"
)


def _in_other_thread(exc: BaseException, timeout: float | None) -> str:
    """:data:`THREAD_NOTE` for an error of a synchronous call that a timeout ran in a
    thread of its own and that says it met an object bound to another thread, else ""."""
    text = exception_text(exc).lower()
    return THREAD_NOTE if timeout is not None and any(w in text for w in OTHER_THREAD) else ""


def call_with_timeout(call: Callable[[], T], timeout: float | None, batch: int = 0) -> T:
    """``call()``, or :class:`RetrieverTimeout` once ``timeout`` seconds have passed
    (``batch`` queries: that many times ``timeout``).

    The call's own exception is raised here with its traceback.
    """
    if timeout is None:
        return call()
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()
    limit = min(timeout * (batch or 1), threading.TIMEOUT_MAX)
    ended: list[float] = []

    def work() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome.append((False, exc))
        finally:
            ended.append(time.perf_counter())
            done.set()

    start = time.perf_counter()
    threading.Thread(target=work, name="pytest-retrieval call", daemon=True).start()
    if not done.wait(limit):
        raise RetrieverTimeout(timeout, batch=batch)
    if ended[0] - start > limit:  # a call holding the GIL (one long C call) kept the
        # waiting thread from seeing its deadline: it is past it all the same
        raise RetrieverTimeout(timeout, batch=batch, late=ended[0] - start)
    ok, value = outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


# --------------------------------------------------------------------------- the event loop


class EventLoopThread:
    """An event loop of the plugin's own, running in a daemon thread, started on first use."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()  # the plugin itself stops the current loop
        self.gave_up = 0.0  # seconds waited for the last loop abandoned

    def run(self, coroutine: Awaitable[T], deadline: float | None = None) -> T:
        """Run ``coroutine`` on the loop and wait for its result (in the calling thread),
        at most ``deadline`` seconds: past it the loop is blocked (:class:`LoopBlocked`)."""
        return self.wait(self.submit(coroutine), deadline)

    @property
    def current(self) -> asyncio.AbstractEventLoop | None:
        """The loop that :meth:`submit` sends to now (None before the first, or after one
        was abandoned)."""
        return self._loop

    def submit(self, coroutine: Awaitable[T]) -> concurrent.futures.Future[T]:
        """Start ``coroutine`` on the loop (started on first use); the caller goes on."""
        if self._loop is None:
            self._loop, self._closing = asyncio.new_event_loop(), threading.Event()
            self._thread = threading.Thread(
                target=_serve,
                args=(self._loop, self._closing),
                name="pytest-retrieval loop",
                daemon=True,
            )
            self._thread.start()
        return asyncio.run_coroutine_threadsafe(_awaited(coroutine), self._loop)

    def wait(
        self,
        future: concurrent.futures.Future[T],
        deadline: float | None = None,
        on: asyncio.AbstractEventLoop | None = None,
    ) -> T:
        """The result of what :meth:`submit` started (on the loop ``on``, when known),
        waited for at most ``deadline`` seconds from now: past it the loop is blocked
        (:class:`LoopBlocked`), and abandoned unless it already was."""
        try:
            return future.result(timeout=deadline)
        except _Escaped as escaped:
            raise escaped.exc from None
        except concurrent.futures.TimeoutError:
            raise self.stuck(deadline or 0.0, on) from None

    def stuck(self, waited: float, on: asyncio.AbstractEventLoop | None) -> LoopBlocked:
        """The loop ``on`` (when known) is stuck, ``waited`` seconds past a call's deadline
        (a call that never yields): left to its daemon thread (unless it already was),
        and a new one is started for what comes next."""
        if on is None or on is self._loop:
            self._loop, self.gave_up = None, waited
        return LoopBlocked(waited)

    def close(self) -> None:
        """Cancel what is left (calls abandoned at a deadline) and stop the loop."""
        loop, self._loop = self._loop, None
        if loop is None:
            return

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(timeout=5)
        except concurrent.futures.TimeoutError:
            return  # a call that ignores its cancellation: the loop is left to its daemon thread
        self._closing.set()
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        loop.close()


def _serve(loop: asyncio.AbstractEventLoop, closing: threading.Event) -> None:
    """Run ``loop`` until the plugin closes it: a retriever that stops it (a call of
    ``asyncio.get_running_loop().stop()``) would leave every call after it waiting for a
    loop that no longer runs, forever without a timeout."""
    while True:
        loop.run_forever()
        if closing.is_set() or loop.is_closed():
            return


class _Escaped(Exception):
    """A SystemExit or KeyboardInterrupt raised on the loop, carried to the waiting thread
    and raised there: left alone it would stop the loop, and the caller wait forever."""

    def __init__(self, exc: BaseException):
        super().__init__(repr(exc))
        self.exc = exc


async def _awaited(awaitable: Awaitable[T]) -> T:
    """``awaitable``'s result; a SystemExit or KeyboardInterrupt becomes :class:`_Escaped`
    (also inside ``wait_for``'s own task, which would hand it to the loop)."""
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as exc:
        raise _Escaped(exc) from exc


def _cancelled_from_outside(exc: BaseException) -> bool:
    """A CancelledError that cancels the task running the call (the run stopping), not
    one the retriever raised itself; Python 3.10 cannot tell them apart: outside, then."""
    if not isinstance(exc, asyncio.CancelledError):
        return False
    cancelling = getattr(asyncio.current_task(), "cancelling", None)
    return cancelling is None or bool(cancelling())


async def _resolve(value: object) -> object:
    """What an async retriever's call gives: awaited, an async generator drained (one
    that does not stop is cut as :func:`_consumed` cuts a generator, and closed)."""
    if inspect.isawaitable(value):
        value = await value
    if hasattr(value, "__aiter__"):
        found: list[object] = []
        async for item in value:
            found.append(item)
            if len(found) > MAX_RESULTS:
                break
        closing = getattr(value, "aclose", None)
        if closing is not None:
            await closing()
        return found
    return _consumed(value)


# --------------------------------------------------------------------------- calls


@dataclass(frozen=True)
class Calls:
    """How calls are made: the protocol, the deadline, the limits and the loop."""

    protocol: Protocol
    timeout: float | None = None
    batch_size: int = BATCH_SIZE.default_value
    concurrency: int = CONCURRENCY.default_value
    loop: EventLoopThread | None = None
    # per event loop, the limit every chunk of this retriever shares: several chunks may
    # be in flight at once, and ``concurrency`` still bounds the calls
    limits: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = field(
        default_factory=dict, compare=False, hash=False
    )

    def chunk_size(self) -> int:
        """Queries fetched ahead at once."""
        if self.protocol.style == "batch":
            return self.batch_size
        return max(self.batch_size, self.concurrency) if self.protocol.is_async else 1

    def one(self, query: object) -> Answer:
        """A per-query call of a synchronous retriever."""
        function = self.protocol.function
        start = time.perf_counter()
        try:
            returned = call_with_timeout(lambda: _consumed(function(query)), self.timeout)
        except RetrieverTimeout as exc:
            return Answer(error=str(exc), latency=time.perf_counter() - start)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            latency = time.perf_counter() - start
            message = raised_text(exc) + _in_other_thread(exc, self.timeout)
            return Answer(error=message, exception=exc, latency=latency)
        if inspect.isawaitable(returned) or hasattr(returned, "__aiter__"):
            return self._async_one(returned, start)  # a sync callable that returned a coroutine
        return Answer(returned, latency=time.perf_counter() - start)

    def _async_one(self, returned: object, start: float) -> Answer:
        try:
            answers = self._loop().run(_gather([lambda: returned], 1, self.timeout), self._wait(1))
        except LoopBlocked as exc:
            return Answer(error=str(exc), latency=time.perf_counter() - start)
        answers[0].latency = time.perf_counter() - start
        return answers[0]

    def _wait(self, rounds: int) -> float | None:
        """How long the calling thread waits for the loop: the calls' own deadlines, one
        round after another, and some slack (no limit without a timeout)."""
        if self.timeout is None:
            return None
        return min(self.timeout * rounds + LOOP_SLACK, threading.TIMEOUT_MAX)  # no OverflowError

    def _loop(self) -> EventLoopThread:
        if self.loop is None:
            raise RuntimeError("an async retriever needs the plugin's event loop")
        return self.loop

    def many(self, queries: Sequence[object], ids: Sequence[str]) -> list[Answer]:
        """The answers to a chunk of queries (``ids`` name them in messages)."""
        if self.protocol.style == "batch":
            return self._batch(queries, ids)
        if self.protocol.is_async:
            return self.start(queries, ids).answers()
        return [self.one(q) for q in queries]

    def start(self, queries: Sequence[object], ids: Sequence[str]) -> Started:
        """Begin the answers to a chunk of an async retriever's queries: they come in on
        the plugin's loop while the caller goes on (:meth:`Started.answers` waits)."""
        function = self.protocol.function
        calls = [functools_partial(function, q) for q in queries]
        rounds = -(-len(calls) // self.concurrency)
        loop = self._loop()
        each: list[concurrent.futures.Future[Answer]] = [concurrent.futures.Future() for _ in calls]
        gathered = _gather(calls, self.concurrency, self.timeout, ids, self.limits, each)
        future = loop.submit(gathered)
        return Started(len(calls), loop, future, self._wait(rounds), loop.current, each)

    def _batch(self, queries: Sequence[object], ids: Sequence[str]) -> list[Answer]:
        function, n = self.protocol.function, len(queries)
        start = time.perf_counter()
        try:
            if self.protocol.is_async:
                called = _batch_resolved(function(list(queries)))
                returned = self._loop().run(_within(called, self.timeout, n), self._wait(n))
            else:
                call = lambda: _each_consumed(function(list(queries)))  # noqa: E731
                returned = call_with_timeout(call, self.timeout, batch=n)
            if inspect.isawaitable(returned):
                called = _batch_resolved(returned)
                returned = self._loop().run(_within(called, self.timeout, n), self._wait(n))
        except (RetrieverTimeout, LoopBlocked) as exc:
            return _failed_batch(n, ids, str(exc), None, start)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            message = raised_text(exc, "the batch call")
            message += (
                _on_other_loop(exc)
                if self.protocol.is_async
                else _in_other_thread(exc, self.timeout)
            )
            return _failed_batch(n, ids, message, exc, start)
        return _split(returned, n, ids, (time.perf_counter() - start) / max(n, 1))


@dataclass
class Started:
    """A chunk of an async retriever's answers on their way (:meth:`Calls.start`)."""

    count: int
    loop: EventLoopThread
    future: concurrent.futures.Future[list[Answer]]
    deadline: float | None  # seconds to wait once the answers are wanted
    on: asyncio.AbstractEventLoop | None = None  # the loop it was sent to
    each: Sequence[concurrent.futures.Future[Answer]] = ()  # each call's, as it ends

    def answers(self) -> list[Answer]:
        """The chunk's answers, waited for; a stuck loop makes each an error (at once
        when it was sent with an earlier chunk to a loop already given up on)."""
        if not self.future.done() and self.on is not self.loop.current:
            stuck = LoopBlocked(self.loop.gave_up)
            return [Answer(error=str(stuck), latency=0.0) for _ in range(self.count)]
        try:
            return self.loop.wait(self.future, self.deadline, self.on)
        except LoopBlocked as exc:
            return [Answer(error=str(exc), latency=exc.waited) for _ in range(self.count)]

    def answer(self, index: int) -> Answer:
        """The answer of the chunk's ``index``-th call, as soon as that call ends: a slow
        call holds back its own query's item alone (which pytest-timeout and
        ``--durations`` then charge, and not the first item of the chunk)."""
        own = self.each[index] if index < len(self.each) else None
        abandoned = self.on is not self.loop.current  # sent to a loop given up on since
        if own is None or (abandoned and not own.done()):
            return self.answers()[index]
        if not own.done():
            # the call's end, or the whole chunk's (a KeyboardInterrupt, the run
            # stopping), or the deadline: past it the loop is stuck, as for the chunk
            either: set[concurrent.futures.Future[Any]] = {own, self.future}
            concurrent.futures.wait(either, self.deadline, concurrent.futures.FIRST_COMPLETED)
        if own.done():
            return own.result()
        if self.future.done():
            return self.answers()[index]  # raises what ended the chunk
        stuck = self.loop.stuck(self.deadline or 0.0, self.on)
        return Answer(error=str(stuck), latency=stuck.waited)


def functools_partial(function: Callable[..., object], query: object) -> Callable[[], object]:
    return lambda: function(query)


def _failed_batch(
    n: int, ids: Sequence[str], message: str, exc: BaseException | None, start: float
) -> list[Answer]:
    share = (time.perf_counter() - start) / max(n, 1)
    first = ids[0] if ids else ""
    return [
        Answer(error=message, exception=exc, latency=share, shared=True, origin=first)
        for _ in range(n)
    ]


def _split(returned: object, n: int, ids: Sequence[str], share: float) -> list[Answer]:
    """One answer per query from a batch's return value, which must be a list of n."""
    if isinstance(returned, (str, bytes, dict)) or not isinstance(returned, Sequence):
        kind = type(returned).__name__
        message = (
            f"the batch call returned {kind}, not a list with one result list per query "
            f"({n} {'query' if n == 1 else 'queries'}, in their order)"
        )
        if isinstance(returned, dict):  # results keyed by query id: put them in order
            message += "; for results by query id, return [results[q.id] for q in queries]"
        return _one_bad_batch(message, n, ids, share)
    flat = _one_ranking(returned)
    if flat is not None:
        message = (
            f"the batch call returned one ranking ({flat}), not a list with one result "
            f"list per query ({counted(n, 'query', 'queries')}, in their order); return "
            "[[doc_id, ...], ...], a list of results for each query"
        )
        return _one_bad_batch(message, n, ids, share)
    if len(returned) != n:
        message = (
            f"the batch call returned {counted(len(returned), 'result list')} for "
            f"{counted(n, 'query', 'queries')}; return "
            "one per query, in the queries' order"
        )
        return _one_bad_batch(message, n, ids, share)
    return [Answer(r, latency=share, shared=True) for r in returned]


def _one_ranking(returned: Sequence[object]) -> str | None:
    """What shows that a batch's return value is one ranking (ids, ``(id, score)`` pairs,
    result mappings) where a list of results per query belongs; None when it is not."""

    def single(item: object) -> bool:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], numbers.Real):
            # (3, 7) is two integer ids, a query's top 2; ("d1", 3) and (3, 0.5) are pairs
            return isinstance(item[0], str) or not isinstance(item[1], numbers.Integral)
        return isinstance(item, (str, bytes, numbers.Number, Mapping))

    if not returned or not all(single(item) for item in returned):
        return None
    shown = repr(returned[0])
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{type(returned[0]).__name__} {shown} first"


def _one_bad_batch(message: str, n: int, ids: Sequence[str], share: float) -> list[Answer]:
    """Every query of a batch whose return value cannot be split: the first says why,
    the others point to it (a chunk of 64 would repeat the message 64 times)."""
    first = ids[0] if ids else ""
    later = f"{message.split(';')[0]} (this query's chunk: the fix is under query '{first}')"
    return [
        Answer(error=message if i == 0 or not first else later, latency=share, shared=True)
        for i in range(n)
    ]


async def _within(awaitable: object, timeout: float | None, batch: int = 0) -> object:
    """Await with a deadline (``batch`` queries: that many times ``timeout``): a
    :class:`RetrieverTimeout` past it, the call cancelled. The deadline does not wait
    for the cancellation to end (``wait_for`` does): a call that catches it and goes on
    awaiting would hold every query of its chunk until the loop is given up."""
    if timeout is None:
        return await _awaited(_resolve(awaitable))
    task = asyncio.ensure_future(_awaited(_resolve(awaitable)))
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout * (batch or 1))
    except asyncio.CancelledError:  # the run stopping: the call with it
        task.cancel()
        raise
    if not done:
        task.cancel()
        task.add_done_callback(_retrieved)  # what it ends with is not this query's any more
        raise RetrieverTimeout(timeout, cancelled=True, batch=batch)
    return task.result()


def _retrieved(task: asyncio.Future[object]) -> None:
    """Take an abandoned call's outcome, so asyncio logs no 'exception never retrieved'."""
    if not task.cancelled():
        task.exception()


async def _gather(
    calls: Sequence[Callable[[], object]],
    concurrency: int,
    timeout: float | None,
    ids: Sequence[str] = (),
    limits: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None,
    each: Sequence[concurrent.futures.Future[Answer]] = (),
) -> list[Answer]:
    """Every call, at most ``concurrency`` in flight (with ``limits``, across every
    gather sharing them on this loop), each within ``timeout``; a call that held the
    event loop past ``timeout`` is named, also in the others' timeouts. Each answer is
    final when its call ends, and goes into its future of ``each`` (when given) then:
    the query's item takes it without waiting for the rest of the chunk."""
    limit = asyncio.Semaphore(concurrency)
    if limits is not None:
        limit = limits.setdefault(asyncio.get_running_loop(), limit)
    timers: list[_Timed | None] = [None] * len(calls)

    async def one(index: int, call: Callable[[], object]) -> Answer:
        async with limit:
            answer = await _called(call, timeout, timers, index)
        if timeout is not None:
            _name_blockers(answer, index, timers, timeout, ids)
        if index < len(each):
            each[index].set_result(answer)
        return answer

    return list(await asyncio.gather(*(one(i, call) for i, call in enumerate(calls))))


async def _called(
    call: Callable[[], object], timeout: float | None, timers: list[_Timed | None], index: int
) -> Answer:
    """One call's answer within ``timeout``; its :class:`_Timed` goes to ``timers``."""
    start = time.perf_counter()
    timed: _Timed | None = None
    try:
        value = call()
        if inspect.isawaitable(value):
            value = timed = timers[index] = _Timed(value)
        returned = await _within(value, timeout)
    except RetrieverTimeout as exc:
        return Answer(error=str(exc), latency=time.perf_counter() - start)
    except BaseException as raised:  # SystemExit, pytest.skip(): this query's error
        error = raised.exc if isinstance(raised, _Escaped) else raised
        if isinstance(error, KeyboardInterrupt) or _cancelled_from_outside(error):
            raise
        message = raised_text(error) + _on_other_loop(error)
        return Answer(error=message, exception=error, latency=_elapsed(timed, start))
    return Answer(returned, latency=_elapsed(timed, start))


def _elapsed(timed: _Timed | None, start: float) -> float:
    return time.perf_counter() - start if timed is None else timed.latency(start)


def _name_blockers(
    answer: Answer, index: int, timers: Sequence[_Timed | None], timeout: float, ids: Sequence[str]
) -> None:
    """A call that held the loop past the deadline is an error saying so; the timeouts of
    the others in flight name the one that held it longest (so far: a call that stalled
    this one has ended the step that stalled it)."""
    own = timers[index]
    blocked = own is not None and own.busy > timeout
    timed_out = answer.error is not None and answer.error.startswith(TIMEOUT_PREFIX)
    late = answer.error is None and (answer.latency or 0.0) > timeout
    if not (blocked or timed_out or late):
        return  # nearly every answer: the chunk's other calls are not looked at
    held = [timer.busy if timer is not None else 0.0 for timer in timers]
    worst = max(range(len(held)), key=held.__getitem__)
    if held[worst] <= timeout:
        return
    who = f"query '{ids[worst]}'" if worst < len(ids) else "another query"
    held_by = f"{who} held the event loop for {held[worst]:.2f} s"
    stalls = "a blocking call inside async def stalls every query in flight"
    if blocked:
        answer.returned, answer.exception = None, None
        answer.error = _blocked_message(held[index], timeout)
    elif timed_out:
        answer.error = f"{answer.error} ({held_by} meanwhile: {stalls})"
    else:
        # held up past its deadline, it came back before the cancellation could run:
        # as late as a timeout, so it is one
        answer.returned, answer.exception = None, None
        answer.error = (
            f"{TIMEOUT_PREFIX} {timeout:g} s (retrieval_timeout): it took "
            f"{answer.latency:.2f} s, stalled while {held_by} ({stalls}); the query scores 0"
        )


def _blocked_message(busy: float, timeout: float) -> str:
    return (
        f"{BLOCKED_PREFIX} {busy:.2f} s, past retrieval_timeout "
        f"{timeout:g} s: a blocking call inside async def (time.sleep, a synchronous "
        "client) stalls every query in flight; await asyncio.sleep or an async client "
        "instead, or make the retriever a plain def"
    )


class _Timed:
    """An awaitable that drives another and adds up the time spent inside its steps:
    the time it held the event loop, which an ``await`` that really waits does not."""

    def __init__(self, awaitable: Awaitable[object]):
        self.awaitable = awaitable
        self.busy = 0.0
        # when the call returned or raised: its latency ends there, and not when the
        # plugin's waiting coroutine next runs (after another call held the loop, maybe)
        self.ended: float | None = None

    def __await__(self) -> Generator[object, object, object]:
        steps = self.awaitable.__await__()
        sent: object = None
        thrown: BaseException | None = None
        while True:
            start = time.perf_counter()
            try:
                waiting = steps.throw(thrown) if thrown is not None else steps.send(sent)
            except StopIteration as done:
                # a generator it returns is read here: its code is the retriever's, and a
                # blocking one holds the loop as the call's own steps do
                value = _consumed(done.value)
                self._end(start)
                return value
            except BaseException:
                self._end(start)
                raise
            self.busy += time.perf_counter() - start
            try:
                sent, thrown = (yield waiting), None
            except GeneratorExit:
                steps.close()
                raise
            except BaseException as exc:  # cancellation and the like go to the inner steps
                # thrown in by the loop (a cancellation, a future of another loop): its one
                # frame is this yield, so it leaves with the frames it passes through, the
                # retriever's, and not a frame of the plugin last
                sent, thrown = None, exc.with_traceback(None)

    def _end(self, start: float) -> None:
        self.ended = time.perf_counter()
        self.busy += self.ended - start

    def latency(self, start: float) -> float:
        """Seconds from ``start`` to the call's end (to now, if it has not ended)."""
        return (time.perf_counter() if self.ended is None else self.ended) - start


# --------------------------------------------------------------------------- repeats


@dataclass(frozen=True)
class Repeats:
    """How the rankings of one query's repeated calls compare with the first."""

    # the smallest share of results two runs' top k have in common, of the longer one
    # (a run returning one more result than the first does not overlap it wholly)
    overlap: float
    same: bool  # every run returned the same ids in the same order

    @classmethod
    def of(cls, rankings: Sequence[Sequence[str]], k: int | None) -> Repeats:
        first = list(rankings[0][:k])
        overlap = 1.0
        for other in rankings[1:]:
            top, mine = set(other[:k]), set(first)
            longer = max(len(top), len(mine))
            overlap = min(overlap, len(mine & top) / longer if longer else 1.0)
        same = all(list(other[:k]) == first for other in rankings[1:])
        return cls(overlap, same)
