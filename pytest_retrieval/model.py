"""The run's data model: one query's record, a run's records, and the closed vocabularies.

Pure. A :class:`QueryRecord` is what one (query, configuration) produced. It exists
once, as this class, with one serializer (:meth:`QueryRecord.to_dict` /
:meth:`QueryRecord.from_dict`) that the xdist transport, the JSON report and the
baseline all use, each with its own choice of fields.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import repeat
from typing import Literal, cast, get_args

from .quoting import quoted

Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

ALL = "all"  # the overall row of every table
WEIGHTED = "all (weighted)"  # the traffic-weighted overall row
RESERVED_CATEGORIES = (ALL, WEIGHTED)
NO_TAG = "(none of them)"  # the group of queries with none of the listed tags


class RecordError(ValueError):
    """A serialized record with a missing field or a value of the wrong type."""


@dataclass(slots=True)
class QueryRecord:
    """What one (query, configuration) item produced."""

    id: str
    configuration: str
    category: str
    tags: list[str] = field(default_factory=list)
    position: int = 0  # the configuration's index among the fixture's params
    path: str = ""  # the golden file, as shown in messages
    outcome: Outcome = "passed"
    metrics: dict[str, float | None] = field(default_factory=dict)
    retrieved: list[str] = field(default_factory=list)
    grades: dict[str, int] = field(default_factory=dict)  # judged ids among ``retrieved``
    duplicates: int = 0
    merged: int = 0  # results whose judgment key came back earlier under another id
    error: str | None = None
    violations: list[str] = field(default_factory=list)  # expect/forbid misses
    skip_reason: str | None = None
    fingerprint: str = ""
    detail: str | None = None  # --retrieval-show: the ranking as a person reads it
    repeat_overlap: float | None = None  # retrieval_repeat: smallest top-k overlap of the runs
    repeat_same: bool = True  # retrieval_repeat: every run ranked alike
    repeat_error: str | None = None  # retrieval_repeat: a repeated call that failed, and how
    latency_ms: float | None = None  # the retriever's time for this query (None: not called)
    latency_shared: bool = False  # latency_ms is a batch call's time divided over its queries
    judged: bool = False  # the golden query judges some document (not in reports)
    # (judged id, retrieved id) pairs that look like one id mistyped, found when no
    # relevant judged id was retrieved (judged_typos.near_misses; not in reports)
    near_misses: tuple[tuple[str, str], ...] = ()

    @property
    def evaluated(self) -> bool:
        """Counted in ``n``: every outcome but skipped."""
        return self.outcome != "skipped"

    def to_dict(self, names: Sequence[str] | None = None) -> dict[str, object]:
        """The record as plain data (what xdist, JSON and the baseline carry).

        ``names`` picks the fields (default: all); containers are copied, and the
        grades are sorted so a file written from them is stable.
        """
        picked = FIELD_NAMES if names is None else tuple(names)
        out: dict[str, object] = dict(zip(picked, _getter(picked)(self), strict=True))
        for name in _LISTS:
            if name in out:
                out[name] = list(getattr(self, name))
        if "metrics" in out:
            out["metrics"] = dict(self.metrics)
        if "grades" in out:
            out["grades"] = dict(sorted(self.grades.items()))
        return out

    def to_row(self) -> list[object]:
        """Every field's value in :data:`FIELD_NAMES` order (what crosses from a worker)."""
        return [getattr(self, name) for name in FIELD_NAMES]

    @classmethod
    def from_row(cls, row: Sequence[object]) -> QueryRecord:
        """Read :meth:`to_row`'s output back, checked; :class:`RecordError` names a bad field."""
        if not isinstance(row, (list, tuple)) or len(row) != len(FIELD_NAMES):
            raise RecordError(f"a record row must hold {len(FIELD_NAMES)} values")
        for name, check, value in zip(FIELD_NAMES, _ROW_CHECKS, row, strict=True):
            check(name, value)  # as from_dict checks them, without a dict per row
        record = cls(*row)
        if type(record.near_misses) is not tuple:  # JSON gave lists
            record.near_misses = _pairs_of(record.near_misses)
        return record

    @classmethod
    def from_dict(cls, data: Mapping[str, object], **given: object) -> QueryRecord:
        """Read :meth:`to_dict`'s output back; ``given`` supplies fields kept outside it
        (a baseline's query id and configuration). :class:`RecordError` names a bad field."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a record must be a mapping, got {type(data).__name__}")
        values = {**data, **given}
        unknown = sorted(str(k) for k in values if k not in _CHECKS)
        if unknown:
            raise RecordError(
                f"unknown field{'' if len(unknown) == 1 else 's'} {', '.join(unknown)}"
            )
        for name, value in values.items():
            _CHECKS[name](name, value)
        if values.get("outcome") == "error":
            _scored_as_an_error(values.get("metrics"))
        if "near_misses" in values:
            values["near_misses"] = _pairs_of(values["near_misses"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


def _scored_as_an_error(metrics: object) -> None:
    """An errored query scores 0 on every metric (an error never raises a score): a
    value above 0 on one was written by hand, and would be compared, or gated, as a
    score; :class:`RecordError` names the first."""
    if not isinstance(metrics, dict):
        return
    raised = next(((m, v) for m, v in metrics.items() if v is not None and v != 0), None)
    if raised is not None:
        raise RecordError(
            f"its outcome is error and {raised[0]} is {raised[1]!r}: an errored query scores "
            "0 on every metric (an error never raises a score)"
        )


FIELD_NAMES = tuple(f.name for f in fields(QueryRecord))
_LISTS = ("tags", "retrieved", "violations")  # to_dict copies them (and metrics, grades)


@functools.lru_cache(maxsize=16)
def _getter(names: tuple[str, ...]) -> Callable[[QueryRecord], tuple[object, ...]]:
    """The values of ``names`` of a record as a tuple, read at C speed (to_dict of
    300,000 records spent half its time in a loop of getattr calls)."""
    if len(names) < 2:  # attrgetter of one name gives the value itself, of none an error
        return lambda record: tuple(getattr(record, name) for name in names)
    return operator.attrgetter(*names)


def rows_text(records: Sequence[QueryRecord]) -> str:
    """Records as one JSON text of :meth:`QueryRecord.to_row` rows: what an xdist worker
    puts on a report. One string crosses to the controller at C speed, where a list of
    rows would be walked object by object (a worker's report of a 1,000-query shard:
    0.19 s, against 0.03 s); floats keep every bit (JSON writes their repr)."""
    return json.dumps([r.to_row() for r in records], separators=(",", ":"))


def rows_of(text: str) -> list[object]:
    """The rows of :func:`rows_text` (each still to be read by :meth:`QueryRecord.from_row`);
    :class:`RecordError` when the text is not a JSON list."""
    try:
        rows = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"the records are not JSON: {exc}") from None
    if not isinstance(rows, list):
        raise RecordError(f"the records are not a list, got {type(rows).__name__}")
    return rows


REPORT_FIELDS = (
    "category",
    "tags",
    "outcome",
    "metrics",
    "retrieved",
    "grades",
    "duplicates",
    "merged",
    "error",
    "violations",
    "skip_reason",
    "repeat_overlap",
    "repeat_error",
    "latency_ms",
    "latency_shared",
)
BASELINE_FIELDS = (
    "category",
    "fingerprint",
    "grades",
    "metrics",
    "outcome",
    "path",
    "retrieved",
    "tags",
)


# --------------------------------------------------------------------------- field checks


def _fail(name: str, expected: str, value: object) -> RecordError:
    return RecordError(f"'{name}' must be {expected}, got {type(value).__name__} {value!r:.60}")


def _text(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise _fail(name, "text", value)


def _optional_text(name: str, value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise _fail(name, "text or null", value)


def _optional_share(name: str, value: object) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1
    ):
        raise _fail(name, "a number in 0..1 or null", value)


def _optional_duration(name: str, value: object) -> None:
    if value is not None and (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise _fail(name, "a duration in milliseconds >= 0 or null", value)


def _flag(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise _fail(name, "true or false", value)


def _count(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(name, "an integer >= 0", value)


def _texts(name: str, value: object) -> None:
    if not isinstance(value, list) or not all(map(isinstance, value, repeat(str))):
        raise _fail(name, "a list of text", value)


def _text_pairs(name: str, value: object) -> None:
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(pair, (list, tuple))
        and len(pair) == 2
        and all(map(isinstance, pair, (str, str)))
        for pair in value
    ):
        raise _fail(name, "a list of [text, text] pairs", value)


def _pairs_of(value: Sequence[Sequence[str]]) -> tuple[tuple[str, str], ...]:
    return tuple((a, b) for a, b in value)


def _outcome(name: str, value: object) -> None:
    if value not in OUTCOMES:
        raise _fail(name, "one of " + ", ".join(OUTCOMES), value)


def _metric_values(name: str, value: object) -> None:
    if not isinstance(value, dict):
        raise _fail(name, "a mapping of metric names to numbers", value)
    if set(map(type, value.values())) == {float} and math.isfinite(sum(value.values())):
        return  # the common case, at C speed: every value a float, none infinite or NaN
    for metric, number in value.items():
        if number is None:
            continue
        if (
            isinstance(number, bool)
            or not isinstance(number, (int, float))
            or (isinstance(number, float) and not math.isfinite(number))  # an int is finite
        ):
            raise _fail(f"{name}.{metric}", "a finite number or null", number)


def outside_0_1(name: str, value: float | None) -> str | None:
    """What is wrong with a metric's value outside 0..1 (every metric the plugin computes is
    in it: one outside was written by hand), the value cut if it is long; else None."""
    if value is None or 0.0 <= value <= 1.0:
        return None
    return f"{name} is {quoted(str(value), quote='')}, outside 0..1"  # a 400-digit number: cut


def _grade_map(name: str, value: object) -> None:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
        for k, v in value.items()
    ):
        raise _fail(name, "a mapping of ids to integer grades", value)


_CHECKS = {
    "id": _text,
    "configuration": _text,
    "category": _text,
    "tags": _texts,
    "position": _count,
    "path": _text,
    "outcome": _outcome,
    "metrics": _metric_values,
    "retrieved": _texts,
    "grades": _grade_map,
    "duplicates": _count,
    "merged": _count,
    "error": _optional_text,
    "violations": _texts,
    "skip_reason": _optional_text,
    "fingerprint": _text,
    "detail": _optional_text,
    "repeat_overlap": _optional_share,
    "repeat_same": _flag,
    "repeat_error": _optional_text,
    "latency_ms": _optional_duration,
    "latency_shared": _flag,
    "judged": _flag,
    "near_misses": _text_pairs,
}
assert set(_CHECKS) == set(FIELD_NAMES), "every record field has a check"
_ROW_CHECKS = tuple(_CHECKS[name] for name in FIELD_NAMES)  # a row holds them in this order


# --------------------------------------------------------------------------- a run's records


def by_category(records: Sequence[QueryRecord]) -> dict[str, list[QueryRecord]]:
    """Records grouped by category (sorted by name), each group in the order given."""
    groups: dict[str, list[QueryRecord]] = {}
    for record in records:
        groups.setdefault(record.category, []).append(record)
    return dict(sorted(groups.items()))


@dataclass(frozen=True)
class MetricColumns:
    """A group of records as columns: id, category, evaluated, and one list per metric.

    What the statistics read. Walking 300,000 records once per metric and group cost
    more than the work on the values (at that size each visit to a record is a cache
    miss); the columns are read from the records in one pass and picked by index after.
    """

    ids: list[str]
    categories: list[str]
    evaluated: list[bool]
    values: dict[str, list[float | None]]

    def picked(self, indices: Sequence[int]) -> MetricColumns:
        """The rows at ``indices``, in that order."""
        return MetricColumns(
            [self.ids[i] for i in indices],
            [self.categories[i] for i in indices],
            [self.evaluated[i] for i in indices],
            {m: [column[i] for i in indices] for m, column in self.values.items()},
        )


def metric_columns(records: Sequence[QueryRecord], metrics: Sequence[str]) -> MetricColumns:
    """The records as columns (a metric a record has no value of: None), in one pass.

    A column with a value on every record holds copies of them, made one after another:
    the statistics walk each column many times, and the records' own values lie
    wherever the run made them (at 100,000 queries x 3 the analysis took 9% longer)."""
    ids, categories, evaluated = [], [], []
    columns: list[list[float | None]] = [[] for _ in metrics]
    appends = [(column.append, metric) for column, metric in zip(columns, metrics, strict=True)]
    for record in records:
        ids.append(record.id)
        categories.append(record.category)
        evaluated.append(record.outcome != "skipped")  # QueryRecord.evaluated
        get = record.metrics.get
        for append, metric in appends:
            append(get(metric))
    for column in columns:
        if set(map(type, column)) == {float}:  # no None, no int: copied as they are
            column[:] = array("d", cast("list[float]", column)).tolist()
    return MetricColumns(ids, categories, evaluated, dict(zip(metrics, columns, strict=True)))


@dataclass(frozen=True)
class ConfigurationRecords:
    """One configuration's records, sorted by query id once, with the views every step reads."""

    records: tuple[QueryRecord, ...]
    _columns: dict[tuple[str, ...], dict[str, MetricColumns]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @functools.cached_property
    def evaluated(self) -> list[QueryRecord]:
        """The records counted in ``n`` (not skipped), in id order."""
        return [r for r in self.records if r.evaluated]

    @functools.cached_property
    def categories(self) -> dict[str, list[QueryRecord]]:
        """Every record (skipped ones too) by category, categories sorted by name."""
        return by_category(self.records)

    @functools.cached_property
    def evaluated_groups(self) -> dict[str, list[QueryRecord]]:
        """``all`` then each category: its evaluated records in id order."""
        groups = {c: [r for r in rs if r.evaluated] for c, rs in self.categories.items()}
        return {ALL: self.evaluated, **groups}

    @functools.cached_property
    def by_id(self) -> dict[str, QueryRecord]:
        return {r.id: r for r in self.records}

    def group_columns(self, metrics: Sequence[str]) -> dict[str, MetricColumns]:
        """:attr:`evaluated_groups` as columns (computed once per list of metrics)."""
        key = tuple(metrics)
        found = self._columns.get(key)
        if found is None:
            every = metric_columns(self.records, key)
            groups: dict[str, list[int]] = {c: [] for c in sorted(set(every.categories))}
            evaluated = [i for i, counted in enumerate(every.evaluated) if counted]
            for i in evaluated:
                groups[every.categories[i]].append(i)
            found = {ALL: every.picked(evaluated)}
            found.update((c, every.picked(indices)) for c, indices in groups.items())
            self._columns[key] = found
        return found


class Results:
    """Every record of a run, grouped by configuration.

    Configurations are ordered as the retriever fixture's params, whatever order
    the reports arrived in (xdist). Each configuration's records are sorted and
    grouped once, when first read after the last :meth:`add`.
    """

    def __init__(self) -> None:
        self.by_configuration: dict[str, dict[str, QueryRecord]] = {}
        self._position: dict[str, int] = {}
        self._views: dict[str, ConfigurationRecords] = {}

    def add(self, record: QueryRecord) -> None:
        self.by_configuration.setdefault(record.configuration, {})[record.id] = record
        self._position.setdefault(record.configuration, record.position)
        self._views.pop(record.configuration, None)

    def __bool__(self) -> bool:
        return bool(self.by_configuration)

    def configurations(self) -> list[str]:
        return sorted(self.by_configuration, key=lambda c: (self._position[c], c))

    def view(self, configuration: str) -> ConfigurationRecords:
        """One configuration's records and their groupings, computed once."""
        found = self._views.get(configuration)
        if found is None:
            records = self.by_configuration.get(configuration, {})
            found = ConfigurationRecords(tuple(records[q] for q in sorted(records)))
            if configuration in self.by_configuration:
                self._views[configuration] = found
        return found

    def records(self, configuration: str) -> list[QueryRecord]:
        """One configuration's records, sorted by query id."""
        return list(self.view(configuration).records)

    def all_records(self) -> list[QueryRecord]:
        """Every record, configuration by configuration, each in id order."""
        return [r for c in self.configurations() for r in self.view(c).records]
