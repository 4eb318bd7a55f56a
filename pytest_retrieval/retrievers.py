"""What a retriever fixture may return, and how each kind is called.

Pure: no pytest. The fixture's value is one of:

- a callable ``retriever(query) -> results``, called once per query;
- an object with a ``retrieve_batch(queries) -> list of results`` method (one ranked
  result list per query, in the queries' order), or a callable marked with
  :func:`batch`: called with chunks of ``retrieval_batch_size`` queries;
- either of them ``async def``: run on the plugin's own event loop with up to
  ``retrieval_concurrency`` calls in flight.

:func:`protocol_of` tells which, once per configuration; :class:`RetrieverKind` says it
(``-v``, the JSON report).
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .metric_registry import raised_text

Style = Literal["call", "batch"]
BATCH_ATTRIBUTE = "__pytest_retrieval_batch__"
BATCH_METHOD = "retrieve_batch"

F = Callable[..., object]


def batch(function: F) -> F:
    """Mark a callable as taking a list of queries and returning a list of results. One
    that takes no attribute (a bound method: ``batch(engine.search_many)``, a builtin)
    is marked through a ``functools.partial`` of it, async when it is."""
    try:
        setattr(function, BATCH_ATTRIBUTE, True)
    except AttributeError:
        marked = functools.partial(function)
        setattr(marked, BATCH_ATTRIBUTE, True)
        return marked
    return function


class ProtocolError(TypeError):
    """The fixture's value is neither a retriever callable nor a batch retriever."""


def _is_async(function: object) -> bool:
    while isinstance(function, functools.partial):
        function = function.func
    if inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function):
        return True
    if inspect.isfunction(function) or inspect.ismethod(function):
        return False
    return inspect.iscoroutinefunction(type(function).__call__)


@dataclass(frozen=True)
class RetrieverKind:
    """How a configuration's retriever is called, as ``-v`` and the JSON report say it."""

    batch: bool
    is_async: bool
    via: str  # what is called: "retrieve_batch", "@pytest_retrieval.batch" or "callable"

    def text(self) -> str:
        """``batch retriever (retrieve_batch), async``."""
        kind = "batch" if self.batch else "per-query"
        return f"{kind} retriever ({self.via}), {'async' if self.is_async else 'sync'}"

    def as_dict(self) -> dict[str, object]:
        """The JSON report's ``retriever_kind``."""
        kind = "batch" if self.batch else "per-query"
        return {"kind": kind, "via": self.via, "async": self.is_async, "text": self.text()}

    @classmethod
    def parse(cls, data: object) -> RetrieverKind | None:
        """Read back from :meth:`as_dict` (an xdist worker's output); None if it is not one."""
        if not isinstance(data, dict):
            return None
        kind, via, is_async = data.get("kind"), data.get("via"), data.get("async")
        if kind not in ("batch", "per-query") or not isinstance(via, str):
            return None
        return cls(kind == "batch", is_async is True, via)


@dataclass(frozen=True)
class Protocol:
    """How a configuration's retriever is called."""

    style: Style
    is_async: bool
    function: F  # what is called: with one query ("call") or a list of them ("batch")
    via: str = "callable"  # how the fixture's value says which (RetrieverKind.via)

    @property
    def prefetches(self) -> bool:
        """Queries are fetched ahead of their items (batch or async), not one by one."""
        return self.style == "batch" or self.is_async

    def kind(self) -> RetrieverKind:
        return RetrieverKind(self.style == "batch", self.is_async, self.via)


def declared_attribute(value: object, name: str) -> object:
    """``getattr(value, name, None)``, except on a ``unittest.mock`` object made without
    a spec: it answers every name with a new mock, so there only an attribute the test
    set (``mock.metadata = {...}``, ``mock.retrieve_batch.return_value = ...``) counts.
    Otherwise a ``Mock(return_value=[...])`` standing in for a retriever would be taken
    for a batch retriever, and its made-up ``metadata`` refused."""
    mock = sys.modules.get("unittest.mock")  # not imported: the value is no mock
    made_up = (
        mock is not None
        and isinstance(value, mock.NonCallableMock)
        and getattr(value, "_mock_methods", None) is None  # no spec: nothing is declared
        and name not in vars(value)
        and name not in getattr(value, "_mock_children", {})
    )
    return None if made_up else getattr(value, name, None)


def _batch_method(retriever: object, fixture: str) -> object:
    """The value's ``retrieve_batch`` (None without one); reading it may run the user's
    code (a property, ``__getattr__``): what that raises is named, not a traceback of
    the plugin's."""
    try:
        method = declared_attribute(retriever, BATCH_METHOD)
    except Exception as exc:
        who = f"reading the '{fixture}' fixture's value's {BATCH_METHOD}"
        raise ProtocolError(raised_text(exc, who)) from None
    if inspect.isclass(retriever) and (method is None or inspect.isfunction(method)):
        # calling it would make an instance, or call a method without one
        raise ProtocolError(
            f"the '{fixture}' fixture returned the class {retriever.__name__}, not an "
            f"instance of it: return {retriever.__name__}(...)"
        )
    return method


def _takes_one(function: object, what: str, argument: str, fixture: str) -> None:
    """Refuse a callable that cannot be called with one argument (``lambda: [...]``,
    ``def search(query, k)``) before any call: the call's TypeError would point into
    the plugin. A callable whose signature cannot be read is taken as it is."""
    try:
        signature = inspect.signature(function)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return
    try:
        signature.bind(None)
    except TypeError:
        name = getattr(function, "__name__", type(function).__name__)
        signature = signature.replace(return_annotation=inspect.Signature.empty)
        raise ProtocolError(
            f"the '{fixture}' fixture's {what}{name}{signature} cannot be called with "
            f"{argument} alone, as the plugin calls it: give it one parameter, and defaults "
            "to any others, or bind them: functools.partial(search, k=10)"
        ) from None


def protocol_of(retriever: object, fixture: str) -> Protocol:
    """The protocol of the fixture's value; :class:`ProtocolError` names what is wrong."""
    method = _batch_method(retriever, fixture)
    if method is not None:
        if not callable(method):
            raise ProtocolError(
                f"the '{fixture}' fixture's value has a {BATCH_METHOD} that is not callable "
                f"({type(method).__name__}); make it a method taking a list of queries"
            )
        _takes_one(method, "", "the list of queries", fixture)
        return Protocol("batch", _is_async(method), method, BATCH_METHOD)
    if not callable(retriever):
        forgot = " (does the fixture end without `return search`?)" if retriever is None else ""
        raise ProtocolError(
            f"the '{fixture}' fixture must return a callable that takes the golden query (or "
            f"an object with {BATCH_METHOD}(queries)); it returned "
            f"{type(retriever).__name__}{forgot}"
        )
    marked = bool(getattr(retriever, BATCH_ATTRIBUTE, False))
    via = "@pytest_retrieval.batch" if marked else "callable"
    _takes_one(retriever, "callable ", "the list of queries" if marked else "the query", fixture)
    return Protocol("batch" if marked else "call", _is_async(retriever), retriever, via)
