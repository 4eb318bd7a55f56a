"""What a metric is: its definition (:class:`MetricSpec`), what it is handed
(:class:`MetricInput`), and the registry of the built-in and custom metrics.

Pure. The built-in metrics are defined in :mod:`pytest_retrieval.metrics` with the
same class a project uses for its own (the plugin's ``pytest_retrieval_metrics``
hook, the command line's ``--metrics-module``): one registry, so a custom metric
is parsed, scored, gated and reported exactly as a built-in is.
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

Cut = Literal["none", "optional", "required"]
NothingToFind = Literal["no-relevant", "no-gain", "never"]
CUTS: tuple[Cut, ...] = get_args(Cut)
NOTHING_TO_FIND: tuple[NothingToFind, ...] = get_args(NothingToFind)
BUILT_IN = "built-in"

# a metric's name or alias: a letter or _, then letters, digits, _ and . (rbp.80)
WORD = re.compile(r"^[A-Za-z_](?:[A-Za-z0-9_.]*[A-Za-z0-9_])?$")


class MetricNameError(ValueError):
    """A metric name that cannot be parsed; the message says how to write it."""


class MetricDefinitionError(ValueError):
    """A metric definition that cannot be used (a bad field, a name already taken);
    the message names where each definition came from."""


class CustomMetricError(ValueError):
    """A custom metric's function raised, or returned something that is not a number
    in 0..1; the message names the metric and where it is defined."""


def gain_of(grade: int, gain: str) -> float:
    """The nDCG gain of a grade: 2^g - 1 (exponential) or g (linear)."""
    if grade <= 0:
        return 0.0
    return float(2**grade - 1) if gain == "exponential" else float(grade)


@dataclass(frozen=True)
class MetricInput:
    """What a metric function is handed for one query.

    ``ranking``: the returned judgment keys, best first, each once (repeats and merged
    results already dropped), uncut; ``judgments``: the query's ``relevant`` (key ->
    grade, 0 = judged not relevant; an unjudged key has no entry); ``k``: the cut of
    the name being scored (``rbp@10`` -> 10), None without one; ``gain`` and
    ``threshold``: ``retrieval_gain`` and ``retrieval_relevance_threshold``.
    """

    ranking: Sequence[str]
    judgments: Mapping[str, int]
    k: int | None = None
    gain: str = "exponential"
    threshold: int = 1

    @functools.cached_property
    def relevant(self) -> frozenset[str]:
        """The judged keys whose grade reaches the relevance threshold."""
        return frozenset(d for d, g in self.judgments.items() if g >= self.threshold)

    @property
    def top(self) -> Sequence[str]:
        """The ranking cut at k (all of it when there is no cut)."""
        return self.ranking if self.k is None else self.ranking[: self.k]

    def grade(self, doc: str) -> int:
        """A key's grade: 0 when it is unjudged."""
        return self.judgments.get(doc, 0)

    def is_relevant(self, doc: str) -> bool:
        """Whether a key's grade reaches the relevance threshold."""
        return doc in self.relevant

    def gain_of(self, doc: str) -> float:
        """A key's nDCG gain under ``retrieval_gain``: 2^g - 1 or g (0 when unjudged)."""
        return gain_of(self.grade(doc), self.gain)


MetricFunction = Callable[[MetricInput], float]


def _words(value: object, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise MetricDefinitionError(f"{what} must be a list of names, got {value!r}")
    return tuple(value)


@dataclass(frozen=True)
class MetricSpec:
    """A metric definition, built-in or custom.

    ``name``: the canonical name reports use (a letter or ``_``, then letters,
    digits, ``_`` and ``.``; matched case-insensitively). ``function``: takes a
    :class:`MetricInput` and returns a number in 0..1, higher is better. ``cut``:
    ``"optional"`` (``name`` and ``name@k``), ``"required"`` (only ``name@k``) or
    ``"none"`` (only ``name``). ``aliases``: other spellings, parsed to ``name``.
    ``nothing_to_find``: when a query has nothing to find for this metric, so that
    ``retrieval_empty`` scores it instead of the function: ``"no-relevant"`` (no
    judgment reaches the relevance threshold: recall, MRR...), ``"no-gain"`` (no grade
    is > 0: nDCG) or ``"never"`` (the function scores every query: judged@k).
    """

    name: str
    function: MetricFunction
    cut: Cut = "optional"
    aliases: tuple[str, ...] = ()
    nothing_to_find: NothingToFind = "no-relevant"

    def __post_init__(self) -> None:
        aliases = _words(self.aliases, f"metric '{self.name}': aliases")
        object.__setattr__(self, "aliases", aliases)
        for word in (self.name, *aliases):
            if not isinstance(word, str) or not WORD.match(word):
                raise MetricDefinitionError(
                    f"metric name {word!r} must start with a letter or _ and hold only "
                    "letters, digits, _ and . (rbp.80, my_metric)"
                )
        if not callable(self.function):
            raise MetricDefinitionError(
                f"metric '{self.name}': function must be callable (MetricInput -> float), "
                f"got {type(self.function).__name__}"
            )
        if self.cut not in CUTS:
            raise MetricDefinitionError(
                f"metric '{self.name}': cut must be one of {', '.join(CUTS)}, got {self.cut!r}"
            )
        if self.nothing_to_find not in NOTHING_TO_FIND:
            raise MetricDefinitionError(
                f"metric '{self.name}': nothing_to_find must be one of "
                f"{', '.join(NOTHING_TO_FIND)}, got {self.nothing_to_find!r}"
            )

    @property
    def words(self) -> tuple[str, ...]:
        """The name and aliases, lower-cased, each once."""
        return tuple(dict.fromkeys(w.lower() for w in (self.name, *self.aliases)))

    @property
    def spelled(self) -> str:
        """How the name is written: ``recall@k``, ``ndcg[@k]``, ``bpref``."""
        return {"none": self.name, "optional": f"{self.name}[@k]"}.get(self.cut, f"{self.name}@k")

    @property
    def examples(self) -> tuple[str, ...]:
        """Spellings a "did you mean" may suggest."""
        return (f"{self.name}@10",) if self.cut == "required" else (self.name,)


@dataclass(frozen=True)
class Registered:
    """A metric definition and where it came from (``built-in``, ``conftest.py:12``)."""

    spec: MetricSpec
    source: str = BUILT_IN

    @property
    def builtin(self) -> bool:
        return self.source == BUILT_IN


def registered(source: str, returned: object) -> list[Registered]:
    """What one ``pytest_retrieval_metrics()`` returned, checked: a list of
    :class:`MetricSpec` (None: none). :class:`MetricDefinitionError` names ``source``."""
    if returned is None:
        return []
    if isinstance(returned, MetricSpec):
        returned = [returned]
    if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Iterable):
        raise MetricDefinitionError(
            f"{source}: pytest_retrieval_metrics() must return a list of "
            f"pytest_retrieval.MetricSpec, got {type(returned).__name__}"
        )
    found = []
    for position, spec in enumerate(returned, start=1):
        if not isinstance(spec, MetricSpec):
            raise MetricDefinitionError(
                f"{source}: pytest_retrieval_metrics() returned {type(spec).__name__} "
                f"{spec!r:.60} at position {position}; return pytest_retrieval.MetricSpec "
                "objects"
            )
        found.append(Registered(spec, source))
    return found


@dataclass(frozen=True)
class Installed:
    """A registry's custom metrics and hint, as :meth:`MetricRegistry.install` replaced them."""

    custom: tuple[Registered, ...] = ()
    hint: str = ""


def _describe(entry: Registered) -> str:
    kind = "the built-in metric" if entry.builtin else "metric"
    where = "" if entry.builtin else f" ({entry.source})"
    return f"{kind} '{entry.spec.name}'{where}"


def _index(entries: Sequence[Registered]) -> dict[str, Registered]:
    """Every lower-cased name and alias -> its definition; a word taken twice is an error."""
    index: dict[str, Registered] = {}
    for entry in entries:
        for word in entry.spec.words:
            other = index.get(word)
            if other is not None and other is not entry:
                what = "name" if word == entry.spec.name.lower() else "alias"
                theirs = "" if word == other.spec.name.lower() else f" (its alias '{word}')"
                raise MetricDefinitionError(
                    f"{_describe(entry)}: its {what} '{word}' is taken by "
                    f"{_describe(other)}{theirs}; give one of them another name"
                )
            index[word] = entry
    return index


@dataclass
class MetricRegistry:
    """The built-in metrics and the custom ones a run installed."""

    builtins: tuple[Registered, ...]
    custom: tuple[Registered, ...] = ()
    hint: str = ""  # said when a name is unknown and nothing close exists
    _index: dict[str, Registered] = field(default_factory=dict, init=False, repr=False)
    generation: int = field(default=0, init=False)  # counts installs: what a cache keys on

    def __post_init__(self) -> None:
        self._index = _index(self.builtins + self.custom)

    def lookup(self, word: str) -> Registered | None:
        """The definition a name or alias (any case) stands for, or None."""
        return self._index.get(word.lower())

    def entry(self, base: str) -> Registered:
        """The definition of a canonical name; :class:`MetricNameError` when unknown."""
        found = self.lookup(base)
        if found is None:
            raise MetricNameError(f"unknown metric '{base}'")
        return found

    def all(self) -> tuple[Registered, ...]:
        return self.builtins + self.custom

    def install(self, custom: Sequence[Registered], hint: str = "") -> Installed:
        """Make ``custom`` the custom metrics (replacing any); returns what was there.

        :class:`MetricDefinitionError`, and nothing changes, when two definitions
        claim one name or alias.
        """
        index = _index(self.builtins + tuple(custom))
        previous = Installed(self.custom, self.hint)
        self.custom, self.hint, self._index = tuple(custom), hint, index
        self.generation += 1
        return previous

    def restore(self, previous: Installed) -> None:
        """Put back what :meth:`install` replaced."""
        self.install(previous.custom, previous.hint)


def exception_text(exc: BaseException) -> str:
    """``str(exc)``, or what stands for it when that raises (a bug of the exception's own,
    in a retriever, a result object or a metric: still named as that code's error, not a
    traceback of the plugin)."""
    try:
        return str(exc)
    except Exception as broken:
        return f"<its str() raised {type(broken).__name__}>"


# A retriever that treats what it is handed as the query's text raises naming the class
# ("'RetrievalQuery' object has no attribute 'lower'", "expected string or bytes-like
# object, got 'RetrievalQuery'"): the commonest first mistake, whose fix the error hides.
QUERY_OBJECT_HINT = (
    "; the retriever is handed a query object, not its text: use query.text (and "
    "query.id, .category, .tags, .filters; a batch gets a list of them)"
)


def raised_text(exc: BaseException, who: str = "the retriever") -> str:
    """``the retriever raised ValueError: text`` (no colon when the text is empty), with
    :data:`QUERY_OBJECT_HINT` when the error is about the query object itself."""
    text = exception_text(exc)
    hint = QUERY_OBJECT_HINT if "RetrievalQuery'" in text else ""
    return f"{who} raised {type(exc).__name__}" + (f": {text}" if text else "") + hint


_PACKAGE = Path(__file__).resolve().parent


def raised_at(exc: BaseException) -> str:
    """`` (at path:line)``: where an exception was raised (the path relative to the
    current folder when inside it), or "" when its traceback is gone. The last frame
    outside this package and generated code: a ``MetricSpec`` refusing its name raises in
    the plugin, called from the line to fix."""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:  # the file compiled,
        return _at(Path(exc.filename), exc.lineno)  # not the import machinery's frame
    tb = exc.__traceback__
    if tb is None:
        return ""
    found = tb
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename  # "<string>": a dataclass's own __init__
        if not name.startswith("<") and _PACKAGE not in Path(name).resolve().parents:
            found = tb
        tb = tb.tb_next
    return _at(Path(found.tb_frame.f_code.co_filename), found.tb_lineno)


def _at(path: Path, line: int) -> str:
    """`` (at path:line)``, the path relative to the current folder when inside it."""
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(Path.cwd().resolve())
    return f" (at {path.as_posix()}:{line})"


def checked_value(entry: Registered, name: str, value: object) -> float:
    """A custom metric's value as a float in 0..1; :class:`CustomMetricError` otherwise."""
    fine = isinstance(value, numbers.Real) and not isinstance(value, bool)
    number = float(value) if fine else math.nan  # type: ignore[arg-type]
    if not math.isfinite(number) or not -1e-9 <= number <= 1 + 1e-9:
        raise CustomMetricError(
            f"metric '{name}' ({entry.source}) returned {type(value).__name__} {value!r:.40}; "
            "a metric function must return a number in 0..1"
        )
    return min(max(number, 0.0), 1.0)
