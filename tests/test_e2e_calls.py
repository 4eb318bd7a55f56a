"""End to end: batch and async retrievers, errors inside batches, timeouts of each kind,
latency and latency budgets (issue 11, items 1-4).

Every protocol must give the numbers the plain per-query retriever gives: each test
compares its JSON report (latencies aside) with the plain run's.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    E2E_INI,
    E2E_QUERY_IDS,
    E2E_RANKINGS,
    e2e_load_json,
    e2e_run,
    e2e_unwrapped,
    e2e_without_latency,
    e2e_write_project,
)

PLAIN = """\
import pytest

RANKINGS = {rankings!r}


def answer(configuration, query):
    return [(doc, 1.0 / (rank + 1)) for rank, doc in enumerate(RANKINGS[configuration][query.id])]
"""

FIXTURE = """

@pytest.fixture(scope="session", params=["bm25", "dense"])
def retriever(request):
    return make(request.param)
"""


def _project(pytester: pytest.Pytester, body: str, ini: str = E2E_INI) -> Path:
    conftest = PLAIN.format(rankings=E2E_RANKINGS) + "\n" + body + FIXTURE
    return e2e_write_project(pytester, ini=ini, conftest=conftest)


def _report(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, Any]:
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json", *args)
    return result, e2e_load_json(pytester.path / "r.json")


@pytest.fixture
def plain_report(pytester: pytest.Pytester) -> Any:
    """The report of the plain per-query retriever: what every protocol must equal."""
    _project(pytester, "def make(configuration):\n    return lambda q: answer(configuration, q)\n")
    result, report = _report(pytester)
    result.assert_outcomes(passed=14)
    return e2e_without_latency(report)["configurations"]


def _scored_as_plain(
    pytester: pytest.Pytester, plain_report: Any, body: str, ini: str = E2E_INI
) -> Any:
    """Run the project with ``body``'s retriever: every item passes and the numbers are
    the plain per-query retriever's; the report, for what else the test checks."""
    _project(pytester, body, ini=ini)
    result, report = _report(pytester)
    result.assert_outcomes(passed=14)
    assert e2e_without_latency(report)["configurations"] == plain_report
    return report


def _calls(pytester: pytest.Pytester) -> list[list[object]]:
    path = pytester.path / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# --------------------------------------------------------------------------- batch

BATCH = """\
import json
from pathlib import Path


class Batched:
    def __init__(self, configuration):
        self.configuration = configuration

    def retrieve_batch(self, queries):
        with open(Path(__file__).parent / "calls.jsonl", "a") as log:
            log.write(json.dumps([self.configuration, [q.id for q in queries]]) + "\\n")
        return [answer(self.configuration, q) for q in queries]

    def __call__(self, query):
        raise AssertionError("a batch retriever is called in batches")


def make(configuration):
    return Batched(configuration)
"""


def test_a_batch_retriever_is_called_in_chunks_and_scores_as_per_query(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    report = _scored_as_plain(
        pytester, plain_report, BATCH, ini=E2E_INI + "retrieval_batch_size = 3\n"
    )
    calls = _calls(pytester)
    for configuration in ("bm25", "dense"):
        chunks = [ids for name, ids in calls if name == configuration]
        assert [len(c) for c in chunks] == [3, 3, 1]  # 7 queries, chunks of 3
        assert sorted(q for c in chunks for q in c) == sorted(E2E_RANKINGS[configuration])
    latency = report["configurations"]["bm25"]["latency"]
    assert latency["batch_share"] == 7  # every latency is a share of a batch call
    assert all(q["latency_shared"] for q in report["configurations"]["bm25"]["queries"].values())


REPEATED_BATCH = """\
import json
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def retriever():
    class Batched:
        def retrieve_batch(self, queries):
            with open(Path(__file__).parent / "calls.jsonl", "a") as log:
                log.write(json.dumps(["default", [q.id for q in queries]]) + "\\n")
            return [["d"] for q in queries]

    return Batched()
"""


def test_repeats_of_a_coarse_item_are_fetched_in_chunks_as_the_first_answers(
    pytester: pytest.Pytester,
) -> None:
    """retrieval_repeat called a batch retriever again with one query per call: 20,000
    queries with a service's 5 ms a call took 100 s a repeat. A coarse item now fetches
    its repeats as it fetched its first answers."""
    pytester.makefile(
        ".ini",
        pytest="[pytest]\nretrieval_batch_size = 4\nretrieval_repeat = 2\n"
        "retrieval_items = category\n",
    )
    pytester.makeconftest(REPEATED_BATCH)
    (pytester.path / "golden").mkdir()
    queries = [{"id": f"q{i:02d}", "query": f"text {i}", "relevant": {"d": 1}} for i in range(12)]
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    (pytester.path / "golden" / "bulk.jsonl").write_text(lines)
    result, report = _report(pytester)
    assert result.ret == 0, result.stdout.str()
    calls = [ids for _, ids in _calls(pytester)]
    assert sorted(q for c in calls for q in c) == sorted([q["id"] for q in queries] * 2)
    assert [len(c) for c in calls] == [4] * 6, calls  # in chunks, not one call per repeat
    records = report["configurations"]["default"]["queries"].values()
    assert all(r["repeat_overlap"] == 1.0 for r in records)  # the repeats were compared


DECORATED = """\
import pytest_retrieval


def make(configuration):
    @pytest_retrieval.batch
    def search(queries):
        return [answer(configuration, q) for q in queries]

    return search
"""


def test_a_callable_marked_batch_takes_lists_of_queries(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    _scored_as_plain(pytester, plain_report, DECORATED)


def test_batch_and_per_query_skip_the_queries_marked_skip(pytester: pytest.Pytester) -> None:
    project = _project(pytester, BATCH)
    catalog = project / "golden" / "catalog.yaml"
    text = catalog.read_text().replace("    relevant: {}\n", "    relevant: {}\n    skip: later\n")
    catalog.write_text(text)
    result, _ = _report(pytester)
    result.assert_outcomes(passed=12, skipped=2)
    assert "teleport-ticket" not in {q for _, ids in _calls(pytester) for q in ids}


RAISING_BATCH = """\
class Batched:
    def __init__(self, configuration):
        self.configuration = configuration

    def retrieve_batch(self, queries):
        if self.configuration == "dense":
            raise ConnectionError("the embedding service is down")
        return [answer(self.configuration, q) for q in queries]


def make(configuration):
    return Batched(configuration)
"""


def test_a_batch_call_that_raises_makes_each_query_of_its_chunk_an_error(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, RAISING_BATCH, ini=E2E_INI + "retrieval_batch_size = 4\n")
    result, report = _report(pytester)
    result.assert_outcomes(passed=7, failed=7)
    dense = report["configurations"]["dense"]["queries"]
    assert {q["outcome"] for q in dense.values()} == {"error"}
    assert {q["error"] for q in dense.values()} == {
        "the batch call raised ConnectionError: the embedding service is down"
    }
    assert all(set(q["metrics"].values()) == {0.0} for q in dense.values())
    text = result.stdout.str()
    # the traceback once per chunk, in the user's code; the others point at it
    assert text.count('raise ConnectionError("the embedding service is down")') == 2
    assert "(its traceback is under query 'rain-tomorrow' [dense])" in e2e_unwrapped(text)


WRONG_COUNT = """\
class Batched:
    def __init__(self, configuration):
        self.configuration = configuration

    def retrieve_batch(self, queries):
        answers = [answer(self.configuration, q) for q in queries]
        if self.configuration == "dense":
            return answers[:-1]  # one short
        if len(queries) == 1:
            return {{q.id: a for q, a in zip(queries, answers)}}  # a mapping, not a list
        return answers


def make(configuration):
    return Batched(configuration)
"""


ONE_RANKING = """\
class Batched:
    def __init__(self, configuration):
        self.configuration = configuration

    def retrieve_batch(self, queries):
        if self.configuration == "dense":
            return [("weather-forecast", 0.9)] * len(queries)  # (id, score) pairs
        return ["weather-forecast", "tide-tables"]  # one ranking for the whole batch


def make(configuration):
    return Batched(configuration)
"""


def test_a_batch_that_returns_one_ranking_is_an_error_that_says_so(
    pytester: pytest.Pytester,
) -> None:
    """A flat list of ids (or of pairs) from retrieve_batch was read as one "ranking" per
    query, each a bare string: the error said "the retriever returned a bare string ...
    return a list of results, e.g. [doc_id, ...]", which is what the batch had returned."""
    _project(pytester, ONE_RANKING, ini=E2E_INI + "retrieval_batch_size = 2\n")
    _, report = _report(pytester)
    said = {
        configuration: {q["error"] for q in entry["queries"].values()}
        for configuration, entry in report["configurations"].items()
    }
    fix = "; return [[doc_id, ...], ...], a list of results for each query"
    assert (
        "the batch call returned one ranking (str 'weather-forecast' first), not a list with "
        "one result list per query (2 queries, in their order)" + fix
    ) in said["bm25"]
    assert (
        "the batch call returned one ranking (tuple ('weather-forecast', 0.9) first), not a "
        "list with one result list per query (2 queries, in their order)" + fix
    ) in said["dense"]
    assert not any("bare string" in str(e) for errors in said.values() for e in errors)


def test_a_batch_of_top_two_integer_ids_per_query_is_not_one_ranking() -> None:
    """[(3, 7), (1, 2)], each query's two integer ids as a tuple, was refused as "one
    ranking" of (id, score) pairs; ("d1", 3) and (3, 0.5) are pairs still."""
    from pytest_retrieval.runner import _split

    answers = _split([(3, 7), (1, 2)], 2, ["a", "b"], 0.1)
    assert [(a.error, a.returned) for a in answers] == [(None, (3, 7)), (None, (1, 2))]
    for pairs in ([("d1", 3), ("d2", 1)], [(3, 0.5), (4, 0.2)]):
        assert all("one ranking" in str(a.error) for a in _split(pairs, 2, ["a", "b"], 0.1))


def test_a_batch_that_returns_the_wrong_number_of_results_is_an_error_that_says_so(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, WRONG_COUNT.replace("{{", "{").replace("}}", "}"),
             ini=E2E_INI + "retrieval_batch_size = 3\n")  # fmt: skip
    result, report = _report(pytester)
    dense = report["configurations"]["dense"]["queries"]
    said = [q["error"] for q in dense.values()]
    whole = "the batch call returned 2 result lists for 3 queries; return one per query, in the "
    whole += "queries' order"
    assert said.count(whole) == 2  # once per chunk of 3 (7 queries: 3, 3, 1)
    assert "the batch call returned 0 result lists for 1 query; return one per query, in the " \
        "queries' order" in said  # fmt: skip
    pointers = [e for e in said if "(this query's chunk: the fix is under query '" in e]
    assert len(pointers) == 4  # the other queries of each chunk point to its first
    assert all(
        e.startswith("the batch call returned 2 result lists for 3 queries (") for e in pointers
    )
    bm25 = report["configurations"]["bm25"]["queries"]
    errors = [q["error"] for q in bm25.values() if q["error"]]
    assert errors == [
        "the batch call returned dict, not a list with one result list per query (1 query, "
        "in their order); for results by query id, return [results[q.id] for q in queries]"
    ]
    assert result.ret == pytest.ExitCode.TESTS_FAILED


NOT_AN_INSTANCE = """\
class Batched:
    def retrieve_batch(self, queries):
        return [answer("bm25", q) for q in queries]


class Remote:
    @property
    def retrieve_batch(self):  # a client that connects when its method is read
        raise ConnectionError("the index is down")


def make(configuration):
    return Batched if configuration == "bm25" else Remote()  # Batched: () forgotten
"""


def test_a_class_for_an_instance_or_a_batch_method_that_raises_is_named_not_a_traceback(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, NOT_AN_INSTANCE)
    result, report = _report(pytester)
    result.assert_outcomes(failed=14)
    bm25, dense = (report["configurations"][c]["queries"] for c in ("bm25", "dense"))
    assert {q["error"] for q in bm25.values()} == {
        "the 'retriever' fixture returned the class Batched, not an instance of it: return "
        "Batched(...)"
    }
    assert {q["error"] for q in dense.values()} == {
        "reading the 'retriever' fixture's value's retrieve_batch raised ConnectionError: the "
        "index is down"
    }
    text = result.stdout.str()
    assert "pytest_retrieval" not in text and "def protocol_of" not in text  # no plugin frame


LAZY_RESULTS = """\
import time

SLOW = "umbrella-needed"


def ranked(configuration, query):
    yield from answer(configuration, query)
    if query.id != SLOW:
        return
    if configuration == "bm25":
        raise ConnectionError("the result stream broke")
    time.sleep(30)  # a result stream that stalls


class Lazy:
    def __init__(self, configuration):
        self.configuration = configuration

    def retrieve_batch(self, queries):  # a generator of generators, read after the call
        return (ranked(self.configuration, q) for q in queries)


class LazyAsync(Lazy):
    async def retrieve_batch(self, queries):
        return [ranked(self.configuration, q) for q in queries]


def make(configuration):
    return Lazy(configuration) if configuration == "bm25" else LazyAsync(configuration)
"""


def test_a_batchs_result_generators_are_read_within_its_call_and_deadline(
    pytester: pytest.Pytester,
) -> None:
    ini = E2E_INI + "retrieval_batch_size = 2\nretrieval_timeout = 0.4\n"
    _project(pytester, LAZY_RESULTS, ini=ini)
    result, report = _report(pytester)
    bm25, dense = (report["configurations"][c]["queries"] for c in ("bm25", "dense"))
    # a result generator that raises is the batch call's error, with the user's traceback
    broken = {q for q, r in bm25.items() if r["outcome"] == "error"}
    assert len(broken) == 2 and "umbrella-needed" in broken  # its whole chunk of 2
    assert bm25["umbrella-needed"]["error"] == (
        "the batch call raised ConnectionError: the result stream broke"
    )
    text = result.stdout.str()
    assert 'raise ConnectionError("the result stream broke")' in text
    assert "runner.py" not in text  # no frame of the plugin's
    # one that stalls is held to the batch's deadline, not waited for (an async batch's
    # stalls the plugin's event loop, which is abandoned as any loop a call blocks)
    stalled = {q for q, r in dense.items() if r["outcome"] == "error"}
    assert len(stalled) == 2 and "umbrella-needed" in stalled
    assert dense["umbrella-needed"]["error"].startswith(
        "the event loop did not come back within 5.8 s: an async retriever blocked it"
    )
    result.assert_outcomes(passed=10, failed=4)


# --------------------------------------------------------------------------- async

ASYNC = """\
import asyncio

IN_FLIGHT = [0, 0]  # now, most


def make(configuration):
    async def search(query):
        IN_FLIGHT[0] += 1
        IN_FLIGHT[1] = max(IN_FLIGHT[1], IN_FLIGHT[0])
        await asyncio.sleep(0.02)
        IN_FLIGHT[0] -= 1
        asyncio.get_running_loop()  # the plugin's own loop runs it
        return answer(configuration, query)

    return search


def pytest_sessionfinish(session):
    from pathlib import Path
    (Path(__file__).parent / "in_flight.txt").write_text(str(IN_FLIGHT[1]))
"""


def test_an_async_retriever_runs_concurrently_and_scores_as_per_query(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    report = _scored_as_plain(
        pytester, plain_report, ASYNC, ini=E2E_INI + "retrieval_concurrency = 3\n"
    )
    assert (pytester.path / "in_flight.txt").read_text() == "3"
    for block in report["configurations"].values():
        assert block["latency"]["p50_ms"] >= 19  # each call awaited 20 ms
        assert block["latency"]["batch_share"] == 0


ONE_SLOW_ASYNC = """\
import asyncio
import json
from pathlib import Path

SLOW = "umbrella-needed"  # the second query: the first item of its chunk is another's


def make(configuration):
    async def search(query):
        if configuration == "bm25" and query.id == SLOW:
            await asyncio.sleep(1.5)
        return answer(configuration, query)

    return search


def pytest_runtest_logreport(report):
    if report.when == "call":
        with open(Path(__file__).parent / "durations.jsonl", "a") as out:
            out.write(json.dumps([report.nodeid, report.duration]) + "\\n")
"""


def test_each_item_of_an_async_chunk_waits_for_its_own_call_alone(
    pytester: pytest.Pytester,
) -> None:
    # without retrieval_timeout (a run timed by pytest-timeout), one slow call held back
    # the first item of its chunk, which --durations and pytest-timeout then blamed
    _project(pytester, ONE_SLOW_ASYNC)
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    result.assert_outcomes(passed=14)
    lines = (pytester.path / "durations.jsonl").read_text().splitlines()
    durations = {nodeid: seconds for nodeid, seconds in map(json.loads, lines)}
    slow = [nodeid for nodeid in durations if "umbrella-needed" in nodeid and "bm25" in nodeid]
    assert len(slow) == 1 and durations[slow[0]] >= 1.4
    others = {nodeid: s for nodeid, s in durations.items() if nodeid != slow[0]}
    assert len(others) == 13 and max(others.values()) < 0.7, others


CLOSED_AT_TEARDOWN = """\
import asyncio
import os

import pytest

RANKINGS = {rankings!r}


class Engine:
    def __init__(self, name):
        self.name, self.closed = name, False

    async def __call__(self, query):
        await asyncio.sleep(0.05)
        if self.closed:
            raise RuntimeError(f"engine {{self.name}} closed before query {{query.id}}")
        return RANKINGS[self.name][query.id]


@pytest.fixture({scope}params=["bm25", "dense"])
def retriever(request):
    engine = Engine(request.param)
    yield engine
    engine.closed = True


def pytest_collection_modifyitems(items):
    if os.environ.get("INTERLEAVE"):  # bm25, dense, bm25, ...: as a random order may
        a = [i for i in items if "[bm25]" in i.nodeid]
        b = [i for i in items if "[dense]" in i.nodeid]
        items[:] = [x for pair in zip(a, b) for x in pair]
"""


@pytest.mark.parametrize(
    ("scope", "interleave"), [("", ""), ('scope="session", ', "1")], ids=["function", "mixed"]
)
def test_no_async_call_is_left_in_flight_past_its_retriever_fixture(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, scope: str, interleave: str
) -> None:
    """Items take their answers as their own calls end; a call sent ahead for a later
    item must not outlive the fixture that made its retriever (a function-scoped one
    ends with its item; a session-scoped parametrized one when the next item wants
    another configuration)."""
    monkeypatch.setenv("INTERLEAVE", interleave)
    conftest = CLOSED_AT_TEARDOWN.format(rankings=E2E_RANKINGS, scope=scope)
    e2e_write_project(pytester, conftest=conftest)
    # two calls at a time: the rest of a chunk is still to be made when its first item ends
    args = ("--retrieval-eval", "-p", "no:randomly", "-o", "retrieval_concurrency=2")
    result = e2e_run(pytester, *args)
    result.assert_outcomes(passed=14)
    assert "closed before query" not in result.stdout.str()


SYNC_RETURNING_COROUTINES = """\
import asyncio


def make(configuration):
    async def fetch(query):
        await asyncio.sleep(0)
        return answer(configuration, query)

    def search(query):  # a plain def handing back the client's coroutine
        return fetch(query)

    return search
"""


def test_a_plain_def_returning_a_coroutine_is_awaited_one_at_a_time(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    """docs/retrievers.md: each coroutine it returns is awaited; it is a per-query kind."""
    report = _scored_as_plain(pytester, plain_report, SYNC_RETURNING_COROUTINES)
    for block in report["configurations"].values():
        assert block["retriever_kind"]["kind"] == "per-query"
        assert block["retriever_kind"]["async"] is False


FLIGHTS_COUNTED = """\
import asyncio

from pytest_retrieval.plugin.fetch import FETCHER_KEY

FLIGHTS = []


def make(configuration):
    async def search(query):
        await asyncio.sleep(0.05)
        return answer(configuration, query)

    return search


def pytest_runtest_teardown(item):
    flying = item.config.stash[FETCHER_KEY]._flying.values()
    FLIGHTS.append(len({id(flight) for flight in flying}))


def pytest_sessionfinish(session):
    from pathlib import Path
    (Path(__file__).parent / "flights.txt").write_text(str(max(FLIGHTS)))
"""


def test_per_query_items_keep_two_chunks_of_an_async_retriever_in_flight(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    # one chunk ahead left the calls idle while its items were scored
    ini = E2E_INI + "retrieval_concurrency = 1\nretrieval_batch_size = 1\n"
    _scored_as_plain(pytester, plain_report, FLIGHTS_COUNTED, ini=ini)
    assert (pytester.path / "flights.txt").read_text() == "2"


REUSED_LIST = """\
import asyncio


def make(configuration):
    buffer = []  # one list, refilled and returned by every call

    async def search(query):
        await asyncio.sleep(0.01)
        buffer[:] = answer(configuration, query)
        return buffer

    return search
"""


def test_an_async_retriever_returning_one_refilled_list_scores_as_per_query(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    # its calls are made ahead of their items: each answer is copied as it comes back,
    # or every query of a chunk would be scored on the last call's results
    _scored_as_plain(pytester, plain_report, REUSED_LIST)


PIPELINED = """\
import asyncio
import time

EVENTS = []
IN_FLIGHT = [0, 0]  # now, most


def make(configuration):
    async def search(query):
        EVENTS.append("start " + query.id)
        IN_FLIGHT[0] += 1
        IN_FLIGHT[1] = max(IN_FLIGHT[1], IN_FLIGHT[0])
        await asyncio.sleep(0.05)
        IN_FLIGHT[0] -= 1
        return answer(configuration, query)

    return search


def pytest_runtest_teardown(item):
    if not any(e.startswith("done ") for e in EVENTS):
        time.sleep(0.3)  # the first item takes its time: the loop thread gets to run


def pytest_runtest_logfinish(nodeid):
    EVENTS.append("done " + nodeid)


def pytest_sessionfinish(session):
    from pathlib import Path
    folder = Path(__file__).parent
    (folder / "events.txt").write_text("\\n".join(EVENTS))
    (folder / "in_flight.txt").write_text(str(IN_FLIGHT[1]))
"""


@pytest.mark.parametrize("items", ["query", "category"])
def test_an_async_retrievers_next_chunk_is_on_its_way_while_items_are_scored(
    pytester: pytest.Pytester, plain_report: Any, items: str
) -> None:
    """Chunks of 2: the second chunk's calls start as soon as the first comes in, before
    the first item is done (its waiting overlaps the scoring; for coarse items, the next
    item's first chunk), and never more than the concurrency limit is in flight."""
    ini = (
        E2E_INI
        + f"retrieval_concurrency = 2\nretrieval_batch_size = 2\nretrieval_items = {items}\n"
    )
    _project(pytester, PIPELINED, ini=ini)
    result, report = _report(pytester, "-p", "no:randomly")
    assert result.ret == 0, result.stdout.str()
    assert e2e_without_latency(report)["configurations"] == plain_report
    events = (pytester.path / "events.txt").read_text().splitlines()
    starts = [i for i, e in enumerate(events) if e.startswith("start ")]
    dones = [i for i, e in enumerate(events) if e.startswith("done ")]
    assert len(starts) == 14
    # the second chunk was sent within the first item (its calls ran while that item was
    # still being finished); sent only when its own items ran, it would start after two
    assert starts[2] < dones[0], events
    assert (pytester.path / "in_flight.txt").read_text() == "2"


STRAGGLER = """\
import asyncio

import pytest

STATE = {"most": 0, "now": 0}


@pytest.fixture(scope="session")
def retriever():
    async def search(query):
        loop_state = STATE.setdefault("event", asyncio.Event())  # made on the plugin's loop
        STATE["now"] += 1
        STATE["most"] = max(STATE["most"], STATE["now"])
        try:
            if query.id == "q01":  # slow: answers once q06, three chunks on, has started
                try:
                    await asyncio.wait_for(loop_state.wait(), 3)
                    return ["overlapped"]
                except asyncio.TimeoutError:
                    return ["alone"]
            if query.id == "q06":
                loop_state.set()
            await asyncio.sleep(0.01)
            return ["overlapped"]
        finally:
            STATE["now"] -= 1

    return search


def pytest_sessionfinish(session):
    from pathlib import Path
    (Path(__file__).parent / "most.txt").write_text(str(STATE["most"]))
"""


def test_one_slow_call_does_not_hold_back_the_rest_of_a_coarse_item(
    pytester: pytest.Pytester,
) -> None:
    """A remote service's slow query held its whole chunk, and no other chunk was sent
    until it came in: 0.2% of queries timing out tripled a 20,000-query run. The other
    chunks of the item now go on around it, the concurrency limit still holding."""
    queries = [
        {"id": f"q{i:02d}", "query": f"text {i}", "relevant": {"overlapped": 1}}
        for i in range(1, 13)
    ]
    pytester.makefile(
        ".ini",
        pytest="[pytest]\nretrieval_concurrency = 2\nretrieval_batch_size = 2\n"
        "retrieval_items = category\n",
    )
    pytester.makeconftest(STRAGGLER)
    (pytester.path / "golden").mkdir()
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    (pytester.path / "golden" / "bulk.jsonl").write_text(lines)
    result, report = _report(pytester, "-p", "no:randomly")
    assert result.ret == 0, result.stdout.str()
    retrieved = report["configurations"]["default"]["queries"]["q01"]["retrieved"]
    assert retrieved == ["overlapped"]  # the next chunks ran while it was waiting
    assert (pytester.path / "most.txt").read_text() == "2"


CLOSING = """\
import asyncio

import pytest

OPEN = set()


def make(configuration):
    async def search(query):
        await asyncio.sleep(0.01)
        assert configuration in OPEN, "called after its fixture was torn down"
        return answer(configuration, query)

    return search


@pytest.fixture(scope="session", params=["bm25", "dense"])
def retriever(request):
    OPEN.add(request.param)
    yield make(request.param)
    OPEN.discard(request.param)


def pytest_collection_modifyitems(items):
    # the configurations taken in turn: the fixture is torn down and set up at every item
    items.sort(key=lambda item: (item.name.split("[")[0], item.nodeid, "dense" in item.name))
"""


@pytest.mark.parametrize("items", ["query", "shard:2"])
def test_no_chunk_in_flight_outlives_its_configurations_fixture(
    pytester: pytest.Pytester, plain_report: Any, items: str
) -> None:
    """Items that take the configurations in turn switch the session fixture back and
    forth: a chunk started ahead never reaches past an item of another configuration,
    so no call lands on a torn-down retriever."""
    conftest = PLAIN.format(rankings=E2E_RANKINGS) + "\n" + CLOSING
    ini = (
        E2E_INI
        + f"retrieval_concurrency = 2\nretrieval_batch_size = 2\nretrieval_items = {items}\n"
    )
    e2e_write_project(pytester, ini=ini, conftest=conftest)
    result, report = _report(pytester, "-p", "no:randomly", "-v")
    order = ["dense" in line for line in result.stdout.lines if " PASSED" in line]
    switches = sum(a != b for a, b in itertools.pairwise(order))
    assert switches >= len(order) // 2, result.stdout.str()  # taken in turn
    assert "called after its fixture" not in result.stdout.str()
    assert result.ret == 0, result.stdout.str()
    assert e2e_without_latency(report)["configurations"] == plain_report


ASYNC_BATCH = """\
import asyncio


class Batched:
    def __init__(self, configuration):
        self.configuration = configuration

    async def retrieve_batch(self, queries):
        await asyncio.sleep(0.01)
        return [answer(self.configuration, q) for q in queries]


def make(configuration):
    return Batched(configuration)
"""


def test_an_async_batch_retriever_and_the_anyio_plugin_get_along(
    pytester: pytest.Pytester, plain_report: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "--assert=plain -p no:hypothesispytest")  # anyio on
    _scored_as_plain(pytester, plain_report, ASYNC_BATCH)


LOOP_IN_FIXTURE = """\
import asyncio


def make(configuration):
    asyncio.run(asyncio.sleep(0))  # the user's code runs (and closes) a loop of its own

    async def search(query):
        await asyncio.sleep(0)
        return answer(configuration, query)

    return search
"""


def test_an_async_retriever_whose_fixture_used_asyncio_itself(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    _scored_as_plain(pytester, plain_report, LOOP_IN_FIXTURE)


# --------------------------------------------------------------------------- other loops

LOOP_CLIENT = """\
import asyncio


class Client:  # as an aiohttp session is: bound to the loop it was made on
    def __init__(self):
        self.loop = asyncio.get_running_loop()

    async def search(self, configuration, query):
        done = self.loop.create_future()
        self.loop.call_soon_threadsafe(done.set_result, None)
        await done
        return answer(configuration, query)


async def new_client():
    return Client()


class Lazy:
    client = None

    async def get(self):
        if self.client is None:  # made in the first call: on the plugin's loop
            self.client = Client()
        return self.client


def make(configuration):
    if MADE == "new loop":  # e.g. a pytest-asyncio fixture's loop
        client = asyncio.new_event_loop().run_until_complete(new_client())
    elif MADE == "asyncio.run":
        client = asyncio.run(new_client())
    lazy = Lazy()

    async def search(query):
        made = client if MADE != "lazily" else await lazy.get()
        return await made.search(configuration, query)

    class Batched:
        async def retrieve_batch(self, queries):
            return [await search(q) for q in queries]

    return Batched() if BATCH else search
"""


@pytest.mark.parametrize("batch", [False, True], ids=["per-query", "batch"])
@pytest.mark.parametrize(
    ("made", "says"),
    [("new loop", "attached to a different loop"), ("asyncio.run", "Event loop is closed")],
)
def test_a_client_made_on_another_loop_is_named_in_each_querys_error(
    pytester: pytest.Pytester, made: str, says: str, batch: bool
) -> None:
    _project(pytester, f"MADE = {made!r}\nBATCH = {batch}\n" + LOOP_CLIENT)
    result, report = _report(pytester, "-p", "no:randomly")
    result.assert_outcomes(failed=14)
    for name in ("bm25", "dense"):
        for record in report["configurations"][name]["queries"].values():
            error = record["error"]
            assert error.startswith("the batch call raised" if batch else "the retriever raised")
            assert says in error and error.count("; note: ") == 1
            assert error.endswith(
                "; note: an async retriever's coroutines run on the plugin's own event loop, in "
                "a thread of its own, not on the loop that made this client (a pytest-asyncio "
                "fixture, asyncio.run in a fixture): create the client (aiohttp session, "
                "asyncpg pool, httpx.AsyncClient) inside the retriever's first call "
                "(docs/retrievers.md: Async retrievers and event loops)"
            )
    text = result.stdout.str()
    assert "plugin's own event loop" in e2e_unwrapped(text)
    # the traceback is the retriever's, from its call to where it awaited: no frame of the
    # plugin's (its awaitable that the loop threw the error into came last)
    assert "(yield waiting)" not in text and not re.search(r"runner\.py:\d+: ", text)
    assert ("await done\n" if made == "new loop" else "call_soon_threadsafe(") in text


@pytest.mark.parametrize("batch", [False, True], ids=["per-query", "batch"])
def test_a_client_made_in_the_first_call_works(
    pytester: pytest.Pytester, plain_report: Any, batch: bool
) -> None:
    """The README's pattern: the client made lazily, inside the retriever's coroutine."""
    _scored_as_plain(pytester, plain_report, f"MADE = 'lazily'\nBATCH = {batch}\n" + LOOP_CLIENT)


def test_a_sync_retriever_raising_about_another_loop_gets_no_note(
    pytester: pytest.Pytester,
) -> None:
    """The note is about the plugin's loop: a synchronous call does not run on it."""
    body = (
        "def make(configuration):\n    def search(query):\n"
        "        raise RuntimeError('got Future attached to a different loop')\n"
        "    return search\n"
    )
    _project(pytester, body)
    _, report = _report(pytester)
    error = report["configurations"]["bm25"]["queries"]["rain-tomorrow"]["error"]
    assert error == "the retriever raised RuntimeError: got Future attached to a different loop"


# --------------------------------------------------------------------------- timeouts

SLOW = """\
import asyncio
import time

SLOW = "umbrella-needed"


class SyncBatch:
    def retrieve_batch(self, queries):
        if any(q.id == SLOW for q in queries):
            time.sleep(3)
        return [answer("bm25", q) for q in queries]


def make(configuration):
    if configuration == "bm25":
        return SyncBatch()

    async def search(query):
        if query.id == SLOW:
            await asyncio.sleep(30)
        return answer("dense", query)

    return search
"""


def test_an_async_retriever_that_stops_the_event_loop_does_not_stall_the_calls_after_it() -> None:
    """``asyncio.get_running_loop().stop()`` in a retriever ended the plugin's loop thread:
    every later call waited for a loop that no longer ran, forever without a timeout (and
    with one, each was named as blocking the loop, which none did)."""
    import asyncio

    from pytest_retrieval.runner import EventLoopThread, LoopBlocked

    async def stopping(value: int) -> int:
        asyncio.get_running_loop().stop()
        await asyncio.sleep(0)  # resumed only if the loop runs on
        return value

    loop = EventLoopThread()
    try:
        assert loop.run(stopping(1), deadline=5) == 1
        assert loop.run(asyncio.sleep(0, result=2), deadline=5) == 2
    except LoopBlocked as stuck:
        pytest.fail(f"the loop stopped serving: {stuck}")
    finally:
        loop.close()


def test_a_sync_call_that_holds_the_interpreter_past_its_deadline_is_a_timeout() -> None:
    """A synchronous call that keeps the GIL past retrieval_timeout (one long C call: a
    tokenizer, an index search that does not release it) kept the waiting thread from
    seeing the deadline: its late answer was scored as if in time (66 ms under 10 ms)."""
    from pytest_retrieval.runner import RetrieverTimeout, call_with_timeout

    def hog() -> list[str]:
        end = time.perf_counter() + 0.3
        while time.perf_counter() < end:  # the thread never yields the GIL (see below)
            pass
        return ["weather-forecast"]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(60)  # as a C call holds it: the waiting thread waits till the end
    try:
        with pytest.raises(RetrieverTimeout) as raised:
            call_with_timeout(hog, 0.05)
    finally:
        sys.setswitchinterval(interval)
    assert str(raised.value).startswith(
        "the retriever did not return within 0.05 s (retrieval_timeout): the call returned "
        "only after 0.3"
    )
    assert call_with_timeout(lambda: ["in-time"], 5.0) == ["in-time"]


def test_timeouts_of_batch_and_async_calls_are_errors_and_the_run_goes_on(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, SLOW, ini=E2E_INI + "retrieval_batch_size = 2\nretrieval_timeout = 0.4\n")
    result, report = _report(pytester)
    bm25, dense = (report["configurations"][c]["queries"] for c in ("bm25", "dense"))
    slow_batch = {q for q, r in bm25.items() if r["outcome"] == "error"}
    assert len(slow_batch) == 2 and "umbrella-needed" in slow_batch  # its whole chunk of 2
    assert bm25["umbrella-needed"]["error"] == (
        "the retriever did not return within 0.8 s (retrieval_timeout 0.4 s x a batch of 2 "
        "queries): the batch call was abandoned (it runs on in a background thread; its result "
        "is discarded) and each of its queries scores 0"
    )
    assert [q for q, r in dense.items() if r["outcome"] == "error"] == ["umbrella-needed"]
    assert dense["umbrella-needed"]["error"] == (
        "the retriever did not return within 0.4 s (retrieval_timeout): the call was cancelled "
        "and the query scores 0"
    )
    assert dense["umbrella-needed"]["latency_ms"] >= 400
    result.assert_outcomes(passed=11, failed=3)


THREAD_BOUND = """\
import sqlite3


def make(configuration):
    db = sqlite3.connect(":memory:")  # made in pytest's thread: usable there only

    def search(query):
        db.execute("select 1")
        return answer(configuration, query)

    return search
"""


def test_a_thread_bound_object_failing_under_a_timeout_is_explained(
    pytester: pytest.Pytester,
) -> None:
    """A timeout runs each synchronous call in a new thread: a sqlite3 connection made in
    the fixture then fails, which without the note looks like a bug of the user's."""
    _project(pytester, THREAD_BOUND, ini=E2E_INI + "retrieval_timeout = 5\n")
    result, report = _report(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    for query in report["configurations"]["dense"]["queries"].values():
        error = query["error"]
        assert error.startswith("the retriever raised ProgrammingError: SQLite objects created")
        assert "note: with retrieval_timeout set, a synchronous retriever is called in a " in error
    assert e2e_run(pytester, "--retrieval-eval", "-o", "retrieval_timeout=0").ret == 0


STUBBORN = """\
import asyncio


def make(configuration):
    async def search(query):
        if configuration == "dense" and query.id == "umbrella-needed":
            while True:  # catches its cancellation and goes on awaiting, every time
                try:
                    await asyncio.sleep(30)
                except asyncio.CancelledError:
                    pass
        return answer(configuration, query)

    return search
"""


def test_an_async_call_ignoring_its_cancellation_times_out_alone(
    pytester: pytest.Pytester,
) -> None:
    """The deadline does not wait for the cancellation to end: the call that ignores it
    is the one timeout, not every query in flight with it (named as blocking the loop),
    and the run ends without a traceback when the loop closes."""
    _project(pytester, STUBBORN, ini=E2E_INI + "retrieval_timeout = 0.5\n")
    result, report = _report(pytester)
    dense = report["configurations"]["dense"]["queries"]
    assert [q for q, r in dense.items() if r["outcome"] == "error"] == ["umbrella-needed"]
    assert dense["umbrella-needed"]["error"] == (
        "the retriever did not return within 0.5 s (retrieval_timeout): the call was cancelled "
        "and the query scores 0"
    )
    result.assert_outcomes(passed=13, failed=1)


BLOCKING = """\
import asyncio
import time


def make(configuration):
    async def search(query):
        if configuration == "dense" and query.id == "umbrella-needed":
            time.sleep({seconds})  # blocks the event loop: the mistake this test is about
        await asyncio.sleep(0.01)
        return answer(configuration, query)

    return search
"""


def test_an_async_call_that_blocks_the_event_loop_is_named_past_the_timeout(
    pytester: pytest.Pytester,
) -> None:
    """The call that held the loop is the error that says so; the timeouts of the other
    queries in flight with it name it (they were stalled, not slow)."""
    _project(pytester, BLOCKING.format(seconds=1.0), ini=E2E_INI + "retrieval_timeout = 0.5\n")
    result, report = _report(pytester)
    dense = report["configurations"]["dense"]["queries"]
    assert dense["umbrella-needed"]["outcome"] == "error"
    assert dense["umbrella-needed"]["error"].startswith(
        "the retriever held the event loop for 1.0"
    ) and dense["umbrella-needed"]["error"].endswith(
        "past retrieval_timeout 0.5 s: a blocking call inside async def (time.sleep, a "
        "synchronous client) stalls every query in flight; await asyncio.sleep or an async "
        "client instead, or make the retriever a plain def"
    )
    stalled = [r["error"] for q, r in dense.items() if q != "umbrella-needed" and r["error"]]
    assert stalled and all(
        "query 'umbrella-needed' held the event loop for 1.0" in e for e in stalled
    )
    late = [r for r in dense.values() if (r.get("latency_ms") or 0) > 500]
    assert late and all(r["outcome"] == "error" for r in late)  # none past it passes
    bm25 = report["configurations"]["bm25"]["queries"]
    assert all(r["outcome"] != "error" for r in bm25.values())  # another loop run: unharmed
    assert result.ret == 1


CACHED_THEN_BLOCKING = """\
import time

CACHED = {"rain-tomorrow", "umbrella-needed", "convert-euros", "stuffed-weather"}


def make(configuration):
    async def search(query):
        if configuration == "dense" and query.id == "teleport-ticket":
            time.sleep(0.6)  # blocks the event loop
        return answer(configuration, query)  # no await: answered at once (a cache hit)

    return search
"""


def test_async_calls_that_answered_before_another_blocked_the_loop_are_not_its_timeouts(
    pytester: pytest.Pytester,
) -> None:
    """A call's time ends when it returns, not when the plugin next looks (after the
    block): the four that answered first pass; the one that blocked is named."""
    _project(pytester, CACHED_THEN_BLOCKING, ini=E2E_INI + "retrieval_timeout = 0.3\n")
    _, report = _report(pytester)
    dense = report["configurations"]["dense"]["queries"]
    for qid in ("rain-tomorrow", "umbrella-needed", "convert-euros", "stuffed-weather"):
        assert dense[qid]["error"] is None, dense[qid]
        assert dense[qid]["latency_ms"] < 300, dense[qid]
    assert dense["teleport-ticket"]["error"].startswith("the retriever held the event loop")


BLOCKING_GENERATOR = """\
import asyncio
import time


def make(configuration):
    def ranked(query):  # a plain generator, read on the event loop
        if configuration == "dense" and query.id == "umbrella-needed":
            time.sleep(1.0)  # blocks the event loop as the call's own code would
        yield from answer(configuration, query)

    async def search(query):
        await asyncio.sleep(0.01)
        return ranked(query)

    return search
"""


def test_an_async_call_whose_generator_blocks_the_event_loop_is_named_past_the_timeout(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, BLOCKING_GENERATOR, ini=E2E_INI + "retrieval_timeout = 0.5\n")
    result, report = _report(pytester)
    dense = report["configurations"]["dense"]["queries"]
    assert dense["umbrella-needed"]["outcome"] == "error"
    assert dense["umbrella-needed"]["error"].startswith("the retriever held the event loop for 1.0")
    late = [r for r in dense.values() if (r.get("latency_ms") or 0) > 500]
    assert late and all(r["outcome"] == "error" for r in late)  # none past it passes
    assert result.ret == 1


def test_an_async_call_that_never_gives_the_loop_back_does_not_hang_the_run(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, BLOCKING.format(seconds=60), ini=E2E_INI + "retrieval_timeout = 0.2\n")
    result, report = _report(pytester)
    dense = report["configurations"]["dense"]["queries"]
    assert dense["umbrella-needed"]["error"] == (
        "the event loop did not come back within 5.2 s: an async retriever blocked it (a call "
        "inside async def that never yields, such as time.sleep or a synchronous client) and "
        "the query scores 0; the loop was abandoned and a new one started"
    )
    bm25 = report["configurations"]["bm25"]["queries"]
    assert all(r["outcome"] != "error" for r in bm25.values())  # its calls never blocked
    assert report["complete"] is True and result.ret == 1


NEVER_BACK = """\
import asyncio
import time

import pytest


@pytest.fixture(scope="session")
def retriever():
    async def search(query):
        if query.id == "q03":
            time.sleep(60)  # never gives the loop back in time
        await asyncio.sleep(0.01)
        return ["d"]

    return search
"""


def test_chunks_in_flight_on_a_loop_that_never_comes_back_are_waited_for_once(
    pytester: pytest.Pytester,
) -> None:
    """A coarse item keeps several chunks in flight on the loop: when one call never
    gives it back, the run waits for it once, not once per chunk sent with it, and
    the item's chunks after those run on the new loop."""
    queries = [
        {"id": f"q{i:02d}", "query": f"text {i}", "relevant": {"d": 1}} for i in range(1, 41)
    ]
    pytester.makefile(
        ".ini",
        pytest="[pytest]\nretrieval_concurrency = 2\nretrieval_batch_size = 2\n"
        "retrieval_items = category\nretrieval_timeout = 0.2\n",
    )
    pytester.makeconftest(NEVER_BACK)
    (pytester.path / "golden").mkdir()
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    (pytester.path / "golden" / "bulk.jsonl").write_text(lines)
    start = time.perf_counter()
    result, report = _report(pytester, "-p", "no:randomly")
    assert time.perf_counter() - start < 12, result.stdout.str()  # one wait of 5.2 s
    outcomes = {q: r["outcome"] for q, r in report["configurations"]["default"]["queries"].items()}
    assert outcomes["q03"] == "error" and outcomes["q40"] == "passed", outcomes
    assert result.ret == 1


RAISING_ASYNC = """\
import asyncio
import pytest


def make(configuration):
    async def search(query):
        await asyncio.sleep(0)
        if configuration == "dense" and query.id == "umbrella-needed":
            {raises}
        return answer(configuration, query)

    class Batch:
        async def retrieve_batch(self, queries):
            if configuration == "dense":
                {raises}
            return [answer(configuration, q) for q in queries]

    return Batch() if {batch} else search
"""


@pytest.mark.parametrize(
    ("raises", "named", "ini"),
    [
        ("raise SystemExit(3)", "SystemExit: 3", ""),
        ("raise SystemExit(3)", "SystemExit: 3", "retrieval_timeout = 5\n"),  # wait_for's task
        ("raise asyncio.CancelledError()", "CancelledError", ""),
        ('pytest.skip("rate-limited")', "called pytest.skip('rate-limited'): a retriever", ""),
        ('pytest.fail("broken")', "Failed: broken", ""),
    ],
    ids=["exit", "exit-with-timeout", "cancelled", "skip", "fail"],
)
@pytest.mark.parametrize("batch", [False, True], ids=["per-query", "batch"])
def test_an_async_retriever_raising_what_is_not_an_exception_errors_its_own_queries(
    pytester: pytest.Pytester, raises: str, named: str, ini: str, batch: bool
) -> None:
    """SystemExit, a CancelledError of its own, pytest.skip() and pytest.fail() are
    BaseExceptions: they stopped the plugin's event loop (the run then hung), or erred
    or skipped every query of the chunk; each must be the raising call's error alone."""
    if raises.startswith("raise asyncio.CancelledError") and sys.version_info < (3, 11):
        pytest.skip("Python 3.10 cannot tell a retriever's CancelledError from a cancellation")
    _project(pytester, RAISING_ASYNC.format(raises=raises, batch=batch), ini=E2E_INI + ini)
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "--retrieval-report=r.json", "-p", "no:randomly", timeout=120
    )
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]
    errored = {q for q, r in queries["dense"]["queries"].items() if r["outcome"] == "error"}
    assert errored == (set(E2E_QUERY_IDS) if batch else {"umbrella-needed"})
    assert all(r["outcome"] != "error" for r in queries["bm25"]["queries"].values())
    error = queries["dense"]["queries"]["umbrella-needed"]["error"]
    assert named in error and error.startswith("the batch call " if batch else "the retriever ")
    assert queries["dense"]["queries"]["umbrella-needed"]["metrics"]["mrr"] == 0.0
    assert result.ret == pytest.ExitCode.TESTS_FAILED


SKIPPING_SYNC = """\
import pytest


def make(configuration):
    def search(query):
        if configuration == "dense" and query.id == "umbrella-needed":
            {calls}
        return answer(configuration, query)

    class Batch:
        def retrieve_batch(self, queries):
            if configuration == "dense" and any(q.id == "umbrella-needed" for q in queries):
                {calls}
            return [answer(configuration, q) for q in queries]

    return Batch() if {batch} else search
"""


@pytest.mark.parametrize(
    ("calls", "said"),
    [
        (
            'pytest.skip("flaky index")',
            "called pytest.skip('flaky index'): a retriever cannot skip its query; mark the "
            "query `skip:` in the golden file, or return its results",
        ),
        (
            'pytest.xfail("known gap")',
            "called pytest.xfail('known gap'): a retriever cannot mark its query expected to "
            "fail; mark the query `xfail:` in the golden file, or return its results",
        ),
    ],
    ids=["skip", "xfail"],
)
@pytest.mark.parametrize("items", ["query", "category"])
@pytest.mark.parametrize("batch", [False, True], ids=["per-query", "batch"])
def test_a_retriever_that_calls_skip_or_xfail_errors_its_query_and_fails_the_run(
    pytester: pytest.Pytester, calls: str, said: str, items: str, batch: bool
) -> None:
    """pytest reported the item skipped (or xfailed) and exited 0, while the query was
    recorded as an error scoring 0: the item fails as a retriever error, saying why."""
    _project(pytester, SKIPPING_SYNC.format(calls=calls, batch=batch))
    result, report = _report(pytester, "-p", "no:randomly", f"--retrieval-items={items}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    outcomes = result.parseoutcomes()
    assert "skipped" not in outcomes and "xfailed" not in outcomes
    record = report["configurations"]["dense"]["queries"]["umbrella-needed"]
    assert record["outcome"] == "error" and record["metrics"]["mrr"] == 0.0
    assert record["error"] == ("the batch call " if batch else "the retriever ") + said
    assert said in " ".join(result.stdout.str().split())
    assert all(
        r["outcome"] != "error" for r in report["configurations"]["bm25"]["queries"].values()
    )


# --------------------------------------------------------------------------- which kind

PLAIN_CALL = "def make(configuration):\n    return lambda q: answer(configuration, q)\n"


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (PLAIN_CALL, ("per-query", "callable", False, "per-query retriever (callable), sync")),
        (ASYNC, ("per-query", "callable", True, "per-query retriever (callable), async")),
        (BATCH, ("batch", "retrieve_batch", False, "batch retriever (retrieve_batch), sync")),
        (ASYNC_BATCH, ("batch", "retrieve_batch", True, "batch retriever (retrieve_batch), async")),
        (
            DECORATED,
            (
                "batch",
                "@pytest_retrieval.batch",
                False,
                "batch retriever (@pytest_retrieval.batch), sync",
            ),
        ),
    ],
    ids=["call", "async", "batch", "async-batch", "decorated"],
)
def test_which_kind_of_retriever_is_said_under_minus_v_and_in_the_json(
    pytester: pytest.Pytester, body: str, kind: tuple[str, str, bool, str]
) -> None:
    """README: the plugin tells which kind each configuration's retriever is, once."""
    _project(pytester, body)
    result, report = _report(pytester, "-v")
    said = {"kind": kind[0], "via": kind[1], "async": kind[2], "text": kind[3]}
    for name in ("bm25", "dense"):
        assert report["configurations"][name]["retriever_kind"] == said
    result.stdout.fnmatch_lines(
        ["retrievers, as the plugin calls them:", f"  bm25: {kind[3]}", f"  dense: {kind[3]}"]
    )
    default, _ = _report(pytester)
    assert "as the plugin calls them" not in default.stdout.str()


def test_the_kind_comes_from_xdist_workers_and_is_null_in_a_replay(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    _project(pytester, ASYNC_BATCH)
    result, report = _report(
        pytester, "-n", "2", "-p", "no:randomly", "--retrieval-record=rec.jsonl"
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    kind = report["configurations"]["dense"]["retriever_kind"]
    assert kind is not None and kind["text"] == "batch retriever (retrieve_batch), async"
    _, replayed = _report(pytester, "--retrieval-replay=rec.jsonl")
    assert replayed["configurations"]["dense"]["retriever_kind"] is None  # not called


# --------------------------------------------------------------------------- latency budgets

LAGGING = """\
import time


def make(configuration):
    def search(query):
        if configuration == "dense" and query.id == "share-price":
            time.sleep(0.25)
        return answer(configuration, query)

    return search
"""


def test_a_latency_budget_fails_the_gate_naming_the_slowest_queries(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, LAGGING, ini=E2E_INI + "retrieval_latency_budget = max=150ms\n")
    result, report = _report(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # no baseline: the budget still holds
    result.assert_outcomes(passed=14, failed=1)
    text = " ".join(result.stdout.str().split())
    assert "retrieval gate: FAILED: dense: latency max" in text
    assert (
        "is over its budget 150ms (retrieval_latency_budget); slowest over it: share-price" in text
    )
    breach = report["gate"]["latency_budget"]
    assert [(b["configuration"], b["statistic"], b["budget_ms"]) for b in breach] == [
        ("dense", "max", 150.0)
    ]
    # only the queries over the budget: the other 6 took well under 150ms
    assert [q["id"] for q in breach[0]["slowest"]] == ["share-price"]
    assert breach[0]["value_ms"] >= 250
    # no baseline: the verdict says so, not "baseline ..., tolerance ..." (also under -q)
    assert report["gate"]["budgets_only"] is True
    quiet = " ".join(e2e_run(pytester, "--retrieval-eval", "-q").stdout.str().split())
    assert "no baseline at golden/baseline.json: only the latency budgets were held" in quiet
    # under -q the verdict still says why: the budget, as breached rows are counted
    section = quiet.split("retrieval evaluation", 1)[1]
    assert re.search(
        r"retrieval gate: FAILED .* dense: latency max \S+ is over its budget 150ms "
        r"\(retrieval_latency_budget\) =",
        section,
    ), section
    assert "tolerance 0.02" not in quiet
    # the Markdown report (a PR comment) says why above its collapsed part
    e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.md")
    page = (pytester.path / "r.md").read_text(encoding="utf-8")
    above = " ".join(page.split("<details>", 1)[0].split())
    assert "dense: latency max" in above and "is over its budget 150ms" in above
    # the explanation names the missing baseline once, then what to do
    assert text.count("no baseline at golden/baseline.json") == 1
    assert (
        "to gate the metrics too, run `pytest --retrieval-eval --retrieval-update-baseline` to "
        "create a baseline (and commit it)"
    ) in text


def test_a_budget_for_a_configuration_the_run_does_not_have_stops_the_run(
    pytester: pytest.Pytester,
) -> None:
    """A typo (``dnese``) would leave the budget unchecked: refused once collected, before
    a query runs (under xdist, the gate fails naming it); one deselected by -k is fine."""
    _project(pytester, LAGGING, ini=E2E_INI + "retrieval_latency_budget = dnese:p95=1s\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert " ".join(result.stderr.str().split()) == (
        "ERROR: retrieval_latency_budget names 'dnese', which this run does not have (did you "
        "mean 'dense'?) (configurations: bm25, dense): fix the name"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    e2e_write_project(
        pytester, ini=E2E_INI + "retrieval_latency_budget = dense:p95=1s\n",
        conftest=PLAIN.format(rankings=E2E_RANKINGS) + "\n" + LAGGING + FIXTURE,
    )  # fmt: skip
    deselected, _ = _report(pytester, "-k", "bm25")
    assert "retrieval_latency_budget names" not in deselected.stdout.str()
    assert deselected.ret == pytest.ExitCode.OK


def test_latency_counts_calls_that_answered_or_ran_out_of_time_not_instant_failures() -> None:
    from pytest_retrieval.latency import LatencySummary
    from pytest_retrieval.model import QueryRecord

    def record(qid: str, ms: float, error: str | None = None) -> QueryRecord:
        outcome = "error" if error else "passed"
        return QueryRecord(
            id=qid, configuration="c", category="x", outcome=outcome, latency_ms=ms, error=error
        )

    summary = LatencySummary.of(
        [
            record("a", 10.0),
            record("b", 20.0),
            record("c", 0.001, "the batch call raised RuntimeError: down"),  # not counted
            record("d", 500.0, "the retriever did not return within 0.5 s (retrieval_timeout)"),
            # replayed: the recording's error, under the prefix replay gives it
            record("e", 700.0, "recorded: the retriever did not return within 0.5 s (...)"),
            record("f", 0.002, "recorded: the retriever raised KeyError: 'x'"),  # not counted
        ]
    )
    assert summary is not None and summary.n == 4 and summary.max == 700.0
    assert summary.mean == pytest.approx(1230 / 4)


@pytest.mark.parametrize(
    ("values", "shown"),
    [
        ([0.0545, 0.0989, 0.108], ["54.5µs", "98.9µs", "108µs"]),  # not 54.5µs/.../0.108ms
        ([0.01, 0.02, 0.05], ["10.0µs", "20.0µs", "50.0µs"]),
        ([5.0, 50.0, 2500.0], ["5.00ms", "50.0ms", "2500ms"]),  # not 0.005s/0.05s/2.50s
        ([12.34, 56.0, 99.9], ["12.3ms", "56.0ms", "99.9ms"]),
        ([0.05, 0.07, 2500.0], ["0.0500ms", "0.0700ms", "2500ms"]),  # not 0.00005s (or 5e-05s)
        ([3.31, 7.28, 1000.0], ["3.31ms", "7.28ms", "1000ms"]),  # a timeout: not 0.00331s
        ([300.4, 0.128, 0.0933], ["300ms", "0.128ms", "0.0933ms"]),  # not ... 93.3µs
        ([1200.0, 2500.0, 61000.0], ["1.20s", "2.50s", "61.00s"]),  # all long: seconds
        ([450.0, 980.0, 2100.0], ["0.450s", "0.980s", "2.10s"]),
        ([0.215, 0.22, 0.247], ["215µs", "220µs", "247µs"]),  # all under 1 ms: µs
    ],
)
def test_latencies_side_by_side_share_one_unit(values: list[float], shown: list[str]) -> None:
    from pytest_retrieval.latency import milliseconds_row

    assert milliseconds_row(values) == shown


def test_a_budget_breach_lists_the_slowest_queries_in_one_unit() -> None:
    from pytest_retrieval.latency import LatencyBreach
    from pytest_retrieval.settings import LatencyLimit

    slowest = (("p-photo", 300.4), ("p-too-many-requests", 0.128), ("a-delete-card", 0.0933))
    breach = LatencyBreach("dense", LatencyLimit("max", 0.00005), 300.4, slowest)
    assert breach.message().endswith(
        "slowest over it: p-photo 300ms, p-too-many-requests 0.128ms, a-delete-card 0.0933ms"
    )
    assert "latency max 300ms is over" in breach.message()


def test_a_budget_breach_writes_the_budget_in_the_unit_of_the_latency_over_it() -> None:
    """A retriever answering in microseconds over p95=0.01ms: the message said 'latency
    p95 156µs is over its budget 0.01ms', two units for the two numbers it compares."""
    from pytest_retrieval.latency import LatencyBreach
    from pytest_retrieval.settings import LatencyLimit

    fast = LatencyBreach("bm25", LatencyLimit("p95", 0.00001), 0.156, (("kw-pip", 0.191),))
    assert "latency p95 156µs is over its budget 10.0µs (retrieval_latency_budget)" in (
        fast.message()
    )
    slow = LatencyBreach("dense", LatencyLimit("p95", 0.35), 412.0, (("q0042", 1200.0),))
    assert slow.message().startswith("dense: latency p95 412ms is over its budget 350ms ")


def test_a_budget_breach_of_batch_shares_says_they_are_shares() -> None:
    """A batch retriever's latencies are its calls' times divided over their queries: the
    breach named five queries as slow, when each only shared its batch's time."""
    from pytest_retrieval.latency import check_budgets
    from pytest_retrieval.model import QueryRecord, Results
    from pytest_retrieval.settings import LatencyLimit

    def results(shared: bool) -> Results:
        found = Results()
        for index, ms in enumerate([7.2, 7.2, 0.5]):
            found.add(
                QueryRecord(
                    id=f"q{index}", configuration="dense", category="x", outcome="passed",
                    latency_ms=ms, latency_shared=shared,
                )
            )  # fmt: skip
        return found

    budget = {"dense": [LatencyLimit("max", 0.001)]}
    (breach,), _ = check_budgets(results(True), budget)
    assert breach.message().endswith(
        "slowest over it: q0 7.20ms, q1 7.20ms (batch shares: a batch call's time divided "
        "over its queries; a smaller retrieval_batch_size times queries more finely)"
    )
    (alone,), _ = check_budgets(results(False), budget)
    assert alone.message().endswith("slowest over it: q0 7.20ms, q1 7.20ms")


def test_the_latency_table_gives_every_configuration_the_same_unit() -> None:
    from pytest_retrieval.latency import LatencySummary
    from pytest_retrieval.report.tables import latency_table

    fast = LatencySummary(71, 0.0714, 0.07, 0.0714, 0.0714, 0.0714, 0.07, shared=71)
    slow = LatencySummary(71, 2.08, 3.0, 3.65, 3.65, 3.65, 2.5, shared=0)
    evaluation = types.SimpleNamespace(latency={"bm25": fast, "dense": slow})
    table = latency_table(evaluation, "terminal")  # type: ignore[arg-type]
    assert table.rows == [
        ["bm25", "71", "0.0714ms", "0.0714ms", "0.0714ms", "71 of 71"],  # not 71.4µs
        ["dense", "71", "2.08ms", "3.65ms", "3.65ms", ""],
    ]


def test_the_latency_line_gives_every_configuration_the_same_unit() -> None:
    from pytest_retrieval.latency import LatencySummary
    from pytest_retrieval.report.summary import latency_lines

    fast = LatencySummary(3, 0.0652, 0.07, 0.0715, 0.0719, 0.0719, 0.07, shared=0)
    slow = LatencySummary(3, 0.0635, 0.1, 0.101, 0.102, 0.102, 0.09, shared=0)
    evaluation = types.SimpleNamespace(latency={"plain": fast, "stemmed": slow})
    (line,) = latency_lines(evaluation, 200)  # type: ignore[arg-type]
    assert line == (
        "latency p50/p95/max per query: plain 65.2µs/71.5µs/71.9µs; stemmed 63.5µs/101µs/102µs"
    )


def test_the_latency_line_wraps_between_configurations_not_inside_one() -> None:
    """At 80 columns the line broke between a configuration's name and its numbers
    (`...; rerank` / `  64.0ms/80.0ms/501ms`)."""
    from pytest_retrieval.latency import LatencySummary
    from pytest_retrieval.report.summary import latency_lines

    lexical = LatencySummary(24, 34.5, 45.0, 51.9, 400.0, 501.0, 60.0, shared=0)
    rerank = LatencySummary(27, 64.0, 75.0, 80.0, 450.0, 501.0, 90.0, shared=0)
    evaluation = types.SimpleNamespace(latency={"lexical": lexical, "rerank": rerank})
    assert latency_lines(evaluation, 80) == [  # type: ignore[arg-type]
        "latency p50/p95/max per query: lexical 34.5ms/51.9ms/501ms;",
        "  rerank 64.0ms/80.0ms/501ms",
    ]
    long = {"x" * 90: lexical}  # a part wider than the line is still wrapped at its spaces
    lines = latency_lines(types.SimpleNamespace(latency=long), 80)  # type: ignore[arg-type]
    assert all(len(line) <= 80 for line in lines) and lines[-1].endswith("/501ms")


def test_a_long_configuration_name_is_cut_not_broken_in_two_by_the_summary_lines() -> None:
    """At 60 columns the latency line broke a long name inside a word
    (`...-that-go` / `es-on-and-on 0.0493ms/...`) and the heading of the significant
    differences ran past the width: names are now cut with "…" as the tables cut them,
    and every line fits."""
    from pytest_retrieval.latency import LatencySummary
    from pytest_retrieval.report.summary import latency_lines, significant_lines

    name = "dense-embedding-model-with-a-very-long-name-that-goes-on-and-on"
    timing = LatencySummary(24, 34.5, 45.0, 51.9, 400.0, 501.0, 60.0, shared=0)
    evaluation = types.SimpleNamespace(latency={"bm25 | k1=1.2": timing, name: timing})
    lines = latency_lines(evaluation, 60)  # type: ignore[arg-type]
    assert all(len(line) <= 60 for line in lines), lines
    assert not any(line.strip().startswith("es-on") for line in lines), lines
    assert "  dense-embedding-model-with-a-very-lo… 34.5ms/51.9ms/501ms" in lines
    row = types.SimpleNamespace(
        configuration=name, category="all", metric="ndcg@10", delta=-0.2, significant=True
    )
    reference = "bm25 | k1=1.2 <b> (tuned on 2024 data)"
    comparisons = types.SimpleNamespace(reference=reference, rows=[row])
    shown = significant_lines(types.SimpleNamespace(comparisons=comparisons), 60)  # type: ignore[arg-type]
    assert all(len(line) <= 60 for line in shown), shown
    assert shown[-1].endswith("ndcg@10: all -0.200")


def test_a_budget_per_configuration_replaces_the_shared_one(pytester: pytest.Pytester) -> None:
    budget = "retrieval_latency_budget = max=150ms dense:max=2s dense:p50=100ms\n"
    _project(pytester, LAGGING, ini=E2E_INI + budget)
    result, report = _report(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert report["gate"]["latency_budget"] == []
    assert report["gate"]["verdict"] == "no-baseline"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (
            "p95=200",
            "retrieval_latency_budget: 'p95=200' needs a duration with its unit (200ms, 2s)",
        ),
        ("p42=2s", "retrieval_latency_budget: 'p42=2s' is not statistic=duration (statistics: p50"),
        ("max=1s max=2s", "retrieval_latency_budget: max is given twice; keep one"),
        ("max=-1s", "retrieval_latency_budget: 'max=-1s' must be a positive duration"),
    ],
)
def test_a_bad_latency_budget_is_a_usage_error(
    pytester: pytest.Pytester, value: str, says: str
) -> None:
    _project(pytester, LAGGING, ini=E2E_INI + f"retrieval_latency_budget = {value}\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in e2e_unwrapped(result.stderr.str())


def test_the_latency_line_and_the_verbose_table(pytester: pytest.Pytester) -> None:
    _project(pytester, BATCH)
    text = e2e_run(pytester, "--retrieval-eval").stdout.str()
    assert "latency p50/p95/max per query: bm25 " in text and "(batch share)" in text
    verbose = e2e_run(pytester, "--retrieval-eval", "-v").stdout.str()
    assert "latency per query (the retriever's time, never compared with the baseline)" in verbose
    assert "batch share" in verbose and "7 of 7" in verbose


# --------------------------------------------------------------------------- xdist


def test_batches_under_xdist_score_as_the_serial_run(
    pytester: pytest.Pytester, plain_report: Any
) -> None:
    pytest.importorskip("xdist")
    _project(pytester, BATCH, ini=E2E_INI + "retrieval_batch_size = 2\n")
    result = pytester.runpytest_subprocess(
        "--retrieval-eval", "-n", "2", "-p", "no:randomly", "--retrieval-report=x.json",
        timeout=120,
    )  # fmt: skip
    result.assert_outcomes(passed=14)
    report = e2e_without_latency(e2e_load_json(pytester.path / "x.json"))
    assert report["configurations"] == plain_report
    calls = _calls(pytester)
    assert sum(len(ids) for _, ids in calls) == 14  # every query asked once, by its worker
    assert max(len(ids) for _, ids in calls) <= 2


def test_the_longest_timeout_times_a_batch_waits_without_overflowing() -> None:
    """retrieval_timeout at threading.TIMEOUT_MAX: a batch of 64 waits 64 times as long,
    which no wait accepts; it waits the longest it can, never raising OverflowError."""
    import threading

    from pytest_retrieval.retrievers import protocol_of
    from pytest_retrieval.runner import Calls, EventLoopThread, call_with_timeout

    assert call_with_timeout(lambda: "done", threading.TIMEOUT_MAX, batch=64) == "done"

    async def search(query: object) -> list[str]:
        return ["d1"]

    loop = EventLoopThread()
    calls = Calls(protocol_of(search, "retriever"), threading.TIMEOUT_MAX, loop=loop)
    try:
        assert [a.returned for a in calls.many(["q1", "q2"], ["q1", "q2"])] == [["d1"], ["d1"]]
    finally:
        loop.close()


def test_an_exception_without_text_is_named_without_a_dangling_colon() -> None:
    from pytest_retrieval.metric_registry import raised_text

    assert raised_text(ValueError()) == "the retriever raised ValueError"
    assert raised_text(KeyError("x"), "the batch call") == "the batch call raised KeyError: 'x'"


@pytest.mark.parametrize("batch", [False, True], ids=["per-query", "batch"])
def test_a_retriever_that_takes_the_query_for_its_text_is_told_to_use_query_text(
    pytester: pytest.Pytester, batch: bool
) -> None:
    """`lambda q: engine.search(q)`: the engine calls q.lower() and the item failed with
    "'RetrievalQuery' object has no attribute 'lower'", without the fix."""
    e2e_write_project(pytester)
    body = (
        "    return pytest_retrieval.batch(lambda qs: [[q.lower()] for q in qs])\n"
        if batch
        else "    return lambda q: [q.lower()]\n"
    )
    pytester.makeconftest(
        "import pytest, pytest_retrieval\n@pytest.fixture\ndef retriever():\n" + body
    )
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly", "--retrieval-report=r.json")
    out = " ".join(w for w in result.stdout.str().split() if w != "E")  # wrapped notes
    assert "is handed a query object, not its text: use query.text" in out, out
    queries = e2e_load_json(pytester.path / "r.json")["configurations"]["default"]["queries"]
    assert queries["rain-tomorrow"]["error"].endswith(
        "object has no attribute 'lower'; the retriever is handed a query object, not its "
        "text: use query.text (and query.id, .category, .tags, .filters; a batch gets a "
        "list of them)"
    )


def test_batch_marks_a_bound_method_or_a_builtin_without_changing_it() -> None:
    """``pytest_retrieval.batch(engine.search_many)`` in a fixture raised AttributeError
    ('method' object has no attribute '__pytest_retrieval_batch__'): a bound method (or
    a builtin) takes no attribute. Such a callable is marked through a wrapper, which
    keeps it async when it is."""
    import pytest_retrieval
    from pytest_retrieval.retrievers import protocol_of

    class Engine:
        def search_many(self, queries: list[object]) -> list[list[str]]:
            return [["d1"] for _ in queries]

        async def search_many_async(self, queries: list[object]) -> list[list[str]]:
            return [["d1"] for _ in queries]

    engine = Engine()
    marked = pytest_retrieval.batch(engine.search_many)
    assert marked(["q1", "q2"]) == [["d1"], ["d1"]]
    assert protocol_of(marked, "retriever").kind().text() == (
        "batch retriever (@pytest_retrieval.batch), sync"
    )
    marked_async = pytest_retrieval.batch(engine.search_many_async)
    assert protocol_of(marked_async, "retriever").kind().text() == (
        "batch retriever (@pytest_retrieval.batch), async"
    )
    assert protocol_of(pytest_retrieval.batch(len), "retriever").style == "batch"
    assert not hasattr(engine.search_many, "__pytest_retrieval_batch__")  # not changed


def test_an_endless_async_generator_is_cut_as_an_endless_generator_is() -> None:
    """A sync generator is read one past the most results a ranking may hold, which the
    result reader then refuses; an async generator was drained to its end: one that never
    ends hung the run (without a timeout), or (with one) filled the memory in the
    abandoned loop's thread until the run ended."""
    import threading

    from pytest_retrieval.retrievers import protocol_of
    from pytest_retrieval.runner import Calls, EventLoopThread
    from pytest_retrieval.shapes import MAX_RESULTS

    closed = threading.Event()

    async def endless(query: object) -> Any:
        try:
            while True:
                yield "d1"
        finally:
            closed.set()

    loop = EventLoopThread()
    calls = Calls(protocol_of(endless, "retriever"), None, loop=loop)
    try:
        (answer,) = calls.many(["q1"], ["q1"])
    finally:
        loop.close()
    assert isinstance(answer.returned, list) and len(answer.returned) == MAX_RESULTS + 1
    assert closed.is_set()  # the generator was closed, not left suspended


def test_retrievers_of_a_function_scoped_fixture_are_not_kept_alive() -> None:
    """How each retriever is called was kept with the retriever itself, for the whole
    run: a function-scoped fixture's retrievers (a new one per item, each holding its
    index) were never freed, 60 items of a 20 MB engine holding 1.2 GB."""
    import gc
    import weakref

    from pytest_retrieval.plugin.fetch import Fetcher
    from pytest_retrieval.settings import CallSettings

    class Engine:
        def __call__(self, query: object) -> list[str]:
            return ["d1"]

    fetcher = Fetcher(CallSettings(), "retriever")
    engines = [Engine() for _ in range(50)]
    alive = [weakref.ref(engine) for engine in engines]
    for engine in engines:
        assert fetcher.calls(engine) is fetcher.calls(engine)  # read once while in use
    del engines, engine
    gc.collect()
    assert sum(ref() is not None for ref in alive) <= 4
    fetcher.close()


def test_a_batch_returning_an_array_of_rankings_gives_one_per_query() -> None:
    """A per-query retriever may return a 1-d array; a batch retriever returning the 2-d
    array a vector index gives (one row of ids per query, FAISS's ``I``) was refused as
    'ndarray, not a list with one result list per query'."""
    np = pytest.importorskip("numpy")
    from pytest_retrieval.retrievers import batch, protocol_of
    from pytest_retrieval.runner import Calls
    from pytest_retrieval.shapes import ranked_ids

    @batch
    def search_many(queries: list[object]) -> Any:
        return np.array([[7, 3], [5, 1]], dtype=np.int64)

    answers = Calls(protocol_of(search_many, "retriever")).many(["q1", "q2"], ["q1", "q2"])
    assert [a.error for a in answers] == [None, None]
    assert [ranked_ids(a.returned) for a in answers] == [["7", "3"], ["5", "1"]]

    @batch
    def one_row(queries: list[object]) -> Any:
        return np.array([[7, 3]], dtype=np.int64)

    (short, _) = Calls(protocol_of(one_row, "retriever")).many(["q1", "q2"], ["q1", "q2"])
    assert short.error is not None and short.error.startswith(
        "the batch call returned 1 result list for 2 queries"  # not "1 result lists"
    )
