"""The settings schema: every ini key and command-line option, declared once.

Pure. Each :class:`Setting` names its ini key and/or option, its default (written
here and nowhere else, as a user would write it), its help text and its parser.
Everything else is derived from the table :data:`SCHEMA`: pytest's ``addoption`` /
``addini`` (in the plugin layer), parsing and validation with their messages, the
objects the cores receive (:class:`RunSettings`), the README's table
(:func:`markdown_table`) and the entry point's plain table of what pytest registers
(:func:`option_table_source`).
"""

from __future__ import annotations

import decimal
import difflib
import functools
import itertools
import math
import os
import re
import textwrap
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Generic, Literal, TypeVar, get_args

from .conventions import EMPTY_CONVENTIONS, GAINS, Conventions
from .metrics import Metric, MetricNameError, max_cut, parse_metric, parse_metrics
from .quoting import SHOWN, quoted

REPORT_SUFFIXES = (".json", ".md", ".html")  # the report formats, by file suffix

T = TypeVar("T", covariant=True)
Raw = str | bool | Sequence[str] | None
IniType = Literal["string", "args"]
Action = Literal["store", "store_true", "append"]
Scope = Literal["category", "all"]
GateMode = Literal["absolute", "significant", "report"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
MIN_RESAMPLES = 100
GATE_MODES: tuple[GateMode, ...] = get_args(GateMode)


class SettingsError(ValueError):
    """A setting with a value that cannot be used; the message names the key and the fix."""


def words(raw: Raw) -> list[str]:
    """The words of a raw value (text or a list), split on spaces and commas."""
    if raw is None or isinstance(raw, bool):
        return []
    if isinstance(raw, str):
        return raw.replace(",", " ").split()
    return [w for item in raw for w in str(item).replace(",", " ").split()]


_ASSIGNED_DECIMAL_COMMA = re.compile(r"=[+-]?\d+,\d")


def _decimal_comma(where: str, word: str) -> SettingsError:
    """The refusal of a number written with a decimal comma (``0,02``), with the fix."""
    return SettingsError(
        f"{where}: {quoted(word)} has a decimal comma; write a point: "
        f"{quoted(word.replace(',', '.'), '')}"
    )


def assignments(key: str, raw: Raw) -> list[str]:
    """The ``name=value`` words of a raw value, as :func:`words`; a value written with a
    decimal comma (``p95=1,5s``) is refused rather than split in two. An item of a list
    whose name holds a space is one word: the ini file quoted it (``"exact name=0.4"``),
    as pytest splits such values the way a shell does, for a name that holds spaces. An
    item holding several assignments (a TOML list's ``"p95=1s max=2s"``) is split."""
    given = [] if raw is None or isinstance(raw, bool) else [raw] if isinstance(raw, str) else raw
    for text in map(str, given):
        for word in text.split():
            if _ASSIGNED_DECIMAL_COMMA.search(word):
                raise _decimal_comma(key, word)
    if isinstance(raw, str) or raw is None or isinstance(raw, bool):
        return words(raw)
    found: list[str] = []
    for item in map(str, raw):
        name, sep, value = item.strip().rpartition("=")
        one = "=" not in name  # "a=0.4 b=0.6", "a=0.4, b=0.6": two assignments, not a name
        quoted_name = sep and one and " " in name.strip() and value and " " not in value
        found += [f"{name.strip()}={value}"] if quoted_name else words(item)
    return found


def _text(raw: Raw) -> str:
    if raw is None or isinstance(raw, bool):
        return ""
    if isinstance(raw, str):
        return raw.strip()
    return " ".join(str(item) for item in raw).strip()


def is_unset(raw: Raw) -> bool:
    """No value given: absent, False (a flag not given), empty text or an empty list."""
    if isinstance(raw, bool):
        return not raw
    return raw is None or _text(raw) == ""


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One setting: an ini key, an option, or both (the option then wins)."""

    name: str  # the ini key; for an option-only setting, the option's dest
    help: str
    default: str  # as a user writes it; "" = nothing
    parse: Callable[[str, Raw], T]  # (name shown in messages, raw value) -> value
    ini: IniType | None = "string"  # None: an option only
    option: str | None = None  # e.g. "--retrieval-tolerance"
    metavar: str | None = None
    action: Action = "store"
    default_shown: str | None = None  # what help and README say when ``default`` is ""

    @property
    def shown(self) -> str:
        """How messages name it: the ini key, or the option when there is no ini key."""
        return self.name if self.ini is not None or self.option is None else self.option

    @property
    def default_text(self) -> str:
        return self.default_shown if self.default_shown is not None else self.default

    @property
    def full_help(self) -> str:
        text = self.default_text
        if not text or self.action == "store_true":
            return self.help
        return f"{self.help} (default: {text})"

    @functools.cached_property
    def default_value(self) -> T:
        return self.parse(self.shown, self.default)

    def read(self, raw: Mapping[str, Raw]) -> T:
        """This setting's value from raw values keyed by :attr:`name` (unset: the default)."""
        value = raw.get(self.name)
        if is_unset(value):
            return self.default_value
        return self.parse(self.shown, value)


# --------------------------------------------------------------------------- parsers


def integer(minimum: int, maximum: int | None = None) -> Callable[[str, Raw], int]:
    wanted = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"

    def parse(key: str, raw: Raw) -> int:
        text = _text(raw)
        try:
            value = int(text)
        except ValueError:
            raise SettingsError(f"{key} must be an integer {wanted}, got {quoted(text)}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise SettingsError(f"{key} must be an integer {wanted}, got {quoted(str(value), '')}")
        return value

    return parse


def _resamples(key: str, raw: Raw) -> int:
    value = integer(0)(key, raw)
    if 0 < value < MIN_RESAMPLES:
        raise SettingsError(
            f"{key} must be 0 (normal intervals, no resampling) or at least {MIN_RESAMPLES}, "
            f"got {value}: fewer resamples make percentile intervals meaningless"
        )
    if value > MAX_RESAMPLES:
        raise SettingsError(
            f"{key} must be at most {MAX_RESAMPLES:,}, got {quoted(f'{value:,}', '')}: past that "
            "the intervals do not change in the third decimal and the run's end takes minutes "
            "(10000 is plenty)"
        )
    return value


MAX_RESAMPLES = 1_000_000


def choice(choices: Sequence[str]) -> Callable[[str, Raw], str]:
    def parse(key: str, raw: Raw) -> str:
        value = _text(raw).lower()
        if value not in choices:
            raise SettingsError(
                f"{key} must be one of {', '.join(choices)}, got {quoted(_text(raw))}"
            )
        return value

    return parse


def _scope(key: str, raw: Raw) -> Scope:
    value = choice(SCOPES)(key, raw)
    return "all" if value == "all" else "category"


def _gate_mode(key: str, raw: Raw) -> GateMode:
    value = choice(GATE_MODES)(key, raw)
    return next(mode for mode in GATE_MODES if mode == value)


def _flag(key: str, raw: Raw) -> bool:
    return bool(raw)


def _on_off(key: str, raw: Raw) -> bool:
    value = _text(raw).lower()
    if value in ("true", "1", "yes", "on"):
        return True
    if value in ("false", "0", "no", "off"):
        return False
    raise SettingsError(f"{key} must be true or false, got {quoted(_text(raw))}")


def _optional_text(key: str, raw: Raw) -> str | None:
    return _text(raw) or None


def _path(text: str) -> str:
    """A path as given, its ``~`` and ``$VARS`` expanded as pytest expands ``--junitxml``'s
    (a shell expands neither after ``=``: ``--retrieval-report=~/r.json``)."""
    return os.path.expanduser(os.path.expandvars(text))


def _path_value(key: str, raw: Raw) -> str:
    return _path(_text(raw))


def _optional_path(key: str, raw: Raw) -> str | None:
    return _path(_text(raw)) if _text(raw) else None


def _paths(key: str, raw: Raw) -> tuple[str, ...]:
    return tuple(_path(entry) for entry in _entries(raw))


def _text_value(key: str, raw: Raw) -> str:
    return _text(raw)


def _line_of_text(key: str, raw: Raw) -> str:
    """Text shown in the terminal and logged as one line: a control character (an escape
    sequence, a line break from a template) is refused, not printed raw."""
    text = _text(raw)
    if not text.isprintable():
        raise SettingsError(
            f"{key} {quoted(text)} holds a control character: a label is one line of text; "
            "remove it"
        )
    return text


def _word_tuple(key: str, raw: Raw) -> tuple[str, ...]:
    return tuple(words(raw))


def _distinct_words(key: str, raw: Raw) -> tuple[str, ...]:
    """Names given once each: a configuration given twice would be gated twice (every
    row and breach shown twice, and counted twice by Holm's correction)."""
    given = words(raw)
    for position, name in enumerate(given):
        if name in given[:position]:
            raise SettingsError(f"{key}: {quoted(name, '')} is given twice; keep one")
    return tuple(given)


def _entries(raw: Raw) -> list[str]:
    """The entries of a repeatable option (each given as is) or of a list."""
    if raw is None or isinstance(raw, bool):
        return []
    if isinstance(raw, str):
        return [raw] if raw.strip() else []
    return [str(item) for item in raw]


def _metrics(key: str, raw: Raw) -> tuple[Metric, ...]:
    metrics = _distinct_metrics(key, raw)
    if not metrics:
        raise SettingsError(f"{key} is empty; name at least one metric (ndcg@10)")
    return metrics


def _distinct_metrics(key: str, raw: Raw) -> tuple[Metric, ...]:
    """The metrics named, each once: one named twice, in any spelling (mrr, RR), is
    refused, as any setting's word given twice is."""
    given = words(raw)
    try:
        metrics = parse_metrics(given)
        first: dict[Metric, str] = {}
        for word in given:
            metric = parse_metric(word)
            if metric in first:
                raise SettingsError(
                    f"{key}: {metric.name} is given twice ({quoted(first[metric], '')}, "
                    f"{quoted(word, '')}); keep one"
                )
            first[metric] = word
    except MetricNameError as exc:
        raise SettingsError(f"{key}: {exc}") from None
    return metrics


def _metric_names(key: str, raw: Raw) -> tuple[str, ...]:
    return tuple(m.name for m in _distinct_metrics(key, raw))


def _fixture(key: str, raw: Raw) -> str:
    name = _text(raw)
    if not name.isidentifier():
        raise SettingsError(f"{key} must be a fixture name, got {quoted(name)}")
    return name


def _unit(text: str) -> str:
    """The unit a duration is written with: "ms", "s", or "" for a bare number."""
    return "ms" if text.endswith("ms") else "s" if text.endswith("s") else ""


# units a duration is not taken in, in seconds: a latency the plugin prints in µs, a
# timeout thought of in minutes
_OTHER_UNITS = {"us": 1e-6, "µs": 1e-6, "μs": 1e-6, "min": 60.0, "m": 60.0, "h": 3600.0}
_IN_OTHER_UNIT = re.compile(r"([0-9]*\.?[0-9]+)\s*([a-zµμ]+)", re.IGNORECASE)


def _in_other_unit(text: str) -> tuple[str, str] | None:
    """For a duration written in a unit the settings do not take (``250us``, ``5min``):
    that unit, and the duration in ms or s (``0.25ms``, ``300s``)."""
    found = _IN_OTHER_UNIT.fullmatch(text.strip())
    factor = _OTHER_UNITS.get(found[2].lower()) if found else None
    if found is None or factor is None:
        return None
    seconds = float(found[1]) * factor
    value, unit = (seconds * 1000, "ms") if seconds < 1 else (seconds, "s")
    written = f"{value:.6f}".rstrip("0").rstrip(".")
    return None if float(written) == 0 else (found[2], written + unit)


def _write_instead(text: str) -> str:
    other = _in_other_unit(text)
    return f": {other[0]} is not a unit it takes; write {other[1]}" if other else ""


def _seconds(key: str, raw: Raw) -> float | None:
    """A duration in seconds: a bare number (5, 0.5) or with its unit (500ms, 2s), as a
    latency budget is written."""
    text = _text(raw)
    unit = _unit(text)
    number = text.removesuffix(unit).strip()
    if _DECIMAL_COMMA.match(number):
        raise _decimal_comma(key, text)
    try:
        value = float(number)
    except ValueError:
        raise SettingsError(
            f"{key} must be a duration: seconds (5, 0.5) or with a unit (500ms, 2s), "
            f"got {quoted(text)}{_write_instead(text)}"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise SettingsError(
            f"{key} must be a duration >= 0: seconds (5, 0.5) or with a unit (500ms, 2s), 0 "
            f"for no limit; got {quoted(text)}"
        )
    seconds = value / 1000 if unit == "ms" else value
    if seconds == 0 and not _written_zero(number):  # 1e-400: below a float's smallest
        raise SettingsError(
            f"{key} must be 0 (no limit) or a positive duration: {quoted(text)} is too small "
            "for a float and would read as 0, no limit; write a duration a call can take "
            "(500ms, 2s), or 0 for no limit"
        )
    if seconds > threading.TIMEOUT_MAX:  # a wait past it raises OverflowError in every call
        raise SettingsError(
            f"{key} must be at most {int(threading.TIMEOUT_MAX)} s (the longest wait the "
            f"platform allows), got {quoted(text)}; for no limit, write 0"
        )
    return seconds or None  # 0: no deadline


def _written_zero(number: str) -> bool:
    """Whether a number a float reads as 0 is 0 as written (0, 0.0, 0e5), not a positive
    number too small for a float (1e-400)."""
    try:
        return decimal.Decimal(number) == 0
    except decimal.InvalidOperation:  # pragma: no cover - float() read it
        return True


ItemsMode = Literal["query", "category", "shard"]
LATENCY_STATISTICS = ("p50", "p90", "p95", "p99", "max", "mean")


@dataclass(frozen=True)
class Items:
    """What one golden item evaluates: a query, a category of a file, or a shard of N."""

    mode: ItemsMode = "query"
    size: int = 0  # queries per shard

    def __str__(self) -> str:
        return f"shard:{self.size}" if self.mode == "shard" else self.mode


def _items(key: str, raw: Raw) -> Items:
    text = _text(raw).lower()
    if text in ("query", "category"):
        return Items(text)  # type: ignore[arg-type]
    name, _, size = text.partition(":")
    # int() refuses thousands of digits: a shard past 12 of them holds every query anyway
    if name == "shard" and size.isdigit() and len(size) <= 12 and int(size) >= 1:
        return Items("shard", int(size))
    given = quoted(_text(raw))
    bound = " with N from 1 to 999,999,999,999" if name == "shard" and size.isdigit() else ""
    raise SettingsError(
        f"{key} must be query, category or shard:N{bound} (e.g. shard:1000), got {given}"
    )


@dataclass(frozen=True)
class LatencyLimit:
    """One latency budget: a statistic of a configuration's per-query latencies."""

    statistic: str  # one of LATENCY_STATISTICS
    seconds: float
    configuration: str | None = None  # None: every configuration without its own

    def __str__(self) -> str:
        where = f"{self.configuration}:" if self.configuration else ""
        return f"{where}{self.statistic}={format_seconds(self.seconds)}"


def format_seconds(seconds: float) -> str:
    """A duration as a person writes it: 200ms, 1.5s."""
    return f"{seconds * 1000:g}ms" if seconds < 1 else f"{seconds:g}s"


def _duration(key: str, word: str, text: str) -> float:
    unit = _unit(text)
    try:
        value = float(text[: -len(unit)] if unit else "x")
    except ValueError:
        other = _in_other_unit(text)
        instead = f": {other[0]} is not one; write {word[: -len(text)]}{other[1]}" if other else ""
        raise SettingsError(
            f"{key}: {quoted(word)} needs a duration with its unit (200ms, 2s){instead}"
        ) from None
    if not math.isfinite(value) or value <= 0:
        raise SettingsError(f"{key}: {quoted(word)} must be a positive duration")
    return value / 1000 if unit == "ms" else value


def _latency_budget(key: str, raw: Raw) -> tuple[LatencyLimit, ...]:
    limits: dict[tuple[str | None, str], LatencyLimit] = {}
    given = assignments(key, raw)
    for word, after in itertools.pairwise(given):
        if after in ("ms", "s") and re.fullmatch(r"[0-9.]+", word.rpartition("=")[2]):
            raise SettingsError(
                f"{key}: {quoted(f'{word} {after}')} has a space before its unit, which "
                f"splits it in two; write {quoted(word + after, '')}"
            )
    for word in given:
        target, _, value = word.rpartition("=")  # a configuration's name may hold one
        configuration, colon, statistic = target.rpartition(":")
        if colon and not configuration.strip():
            raise SettingsError(
                f"{key}: {quoted(word)} names no configuration before ':'; write "
                f"dense:{quoted(statistic, '')}=... for one configuration, or "
                f"{quoted(statistic, '')}=... for every one"
            )
        if statistic not in LATENCY_STATISTICS or not value:
            raise SettingsError(
                f"{key}: {quoted(word)} is not statistic=duration (statistics: "
                f"{', '.join(LATENCY_STATISTICS)}; e.g. p95=200ms max=2s dense:p95=300ms)"
            )
        place = (configuration or None, statistic)
        if place in limits:
            raise SettingsError(f"{key}: {quoted(target, '')} is given twice; keep one")
        limits[place] = LatencyLimit(statistic, _duration(key, word, value), place[0])
    return tuple(limits.values())


def _alpha(key: str, raw: Raw) -> float:
    text = _text(raw)
    try:
        alpha = float(text)
    except ValueError:
        raise SettingsError(f"{key} must be a number in (0, 1), got {quoted(text)}") from None
    if not 0 < alpha < 1:
        raise SettingsError(f"{key} must be a number in (0, 1), got {alpha}")
    return alpha


def _weights(key: str, raw: Raw) -> dict[str, float]:
    weights: dict[str, float] = {}
    given = assignments(key, raw)
    for word, after in itertools.zip_longest(given, given[1:], fillvalue=""):
        name, sep, value = word.rpartition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = None
        if not sep or not name or weight is None:
            split = not sep and "=" in after  # "exact name=0.4": a name split at its space
            raise SettingsError(
                f"{key}: {quoted(word)} is not category=weight (e.g. exact-name=0.4)"
                + ('; a category that holds spaces is quoted whole: "exact name=0.4"' * split)
            )
        if not weight >= 0 or not math.isfinite(weight):  # nan fails both
            raise SettingsError(
                f"{key}: {quoted(word)}: the weight of {quoted(name, '')} must be a finite "
                f"number >= 0 (its share of the traffic, e.g. exact-name=0.4), got {value}"
            )
        if name in weights:
            raise SettingsError(f"{key} gives {quoted(name, '')} twice ({quoted(word)}); keep one")
        weights[name] = weight
    if weights and sum(weights.values()) <= 0:
        raise SettingsError(f"{key}: the weights add up to 0")
    return weights


def _report_paths(key: str, raw: Raw) -> tuple[str, ...]:
    paths = _paths(key, raw)
    for path in paths:
        suffix = PurePath(path).suffix
        if suffix.lower() not in REPORT_SUFFIXES:
            folder = (
                "; a report is written to a file, not to standard output: name one "
                "(report.json, report.md or report.html)"
                if path == "-"
                else f"; for a report in a folder, name the file in it ({path.rstrip('/')}"
                "/report.html)"
                if not suffix
                else ""
            )
            raise SettingsError(
                f"{key} {quoted(path, '', width=2 * SHOWN)}: the suffix must be one of "
                f"{', '.join(REPORT_SUFFIXES)}{folder}"
            )
    return tuple(paths)


@dataclass(frozen=True)
class GroupBy:
    """``tag:core,rolling`` (a row per listed tag) or ``tags`` (a row per tag present)."""

    tags: tuple[str, ...] = ()  # empty: every tag

    @property
    def title(self) -> str:
        return "tag " + ("/".join(self.tags) if self.tags else "(every tag)")


def parse_group_by(spec: str, key: str = "--retrieval-group-by") -> GroupBy:
    text = spec.strip()
    if text == "tags":
        return GroupBy()
    if text.startswith("tag:"):
        tags = tuple(t for t in text[4:].replace("/", ",").split(",") if t)
        if tags:
            return GroupBy(tags)
    raise SettingsError(
        f"{key} {quoted(spec, '')}: write tag:NAME[,NAME...] (e.g. tag:core,rolling) or tags"
    )


def _group_bys(key: str, raw: Raw) -> tuple[GroupBy, ...]:
    return tuple(parse_group_by(spec, key) for spec in _entries(raw))


# --------------------------------------------------------------------------- tolerances


@dataclass(frozen=True)
class Tolerance:
    """How far a metric may drop: absolute, or relative to the baseline value (``2%``)."""

    value: float
    relative: bool = False

    def allowed(self, baseline: float) -> float:
        return self.value * abs(baseline) if self.relative else self.value

    def __str__(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"{self.value:g}"


_NUMBER = re.compile(r"^((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(%?)$")  # 0.02, 1e-3, 2%


_DECIMAL_COMMA = re.compile(r"^\d+,\d+%?$")


def _one_tolerance(text: str, where: str) -> Tolerance:
    match = _NUMBER.match(text.strip())
    if not match:
        raise SettingsError(
            f"{where}: {quoted(text)} is not a tolerance; write an absolute drop (0.02) or a "
            "relative one (2%)"
        )
    value = float(match.group(1))
    tolerance = Tolerance(value / 100.0, relative=True) if match.group(2) else Tolerance(value)
    if tolerance.value >= 1:
        what = "100% or more" if tolerance.relative else "1 or more"
        raise SettingsError(
            f"{where}: {quoted(text)} can never fail: metrics lie in 0..1, so a tolerance of "
            f"{what} allows every drop; write a drop the gate should catch (0.02, 2%)"
        )
    return tolerance


def _tolerance_words(raw: Raw, where: str) -> list[str]:
    """The words of a tolerance; a decimal comma (0,02) is refused, not split in two; a
    percent sign written apart (``2 %``, ``mrr=5 %``) belongs to the number before it."""
    found: list[str] = []
    for token in _entries(raw) if not isinstance(raw, str) else [raw]:
        for word in token.split():
            if _DECIMAL_COMMA.match(word.partition("=")[2] or word):
                raise _decimal_comma(where, word)
            parts = [w for w in word.split(",") if w]
            if parts and parts[0] == "%" and found and not found[-1].endswith("%"):
                found[-1] += parts.pop(0)
            found += parts
    return found


@dataclass(frozen=True)
class Tolerances:
    """A default tolerance and per-metric overrides (``0.02 mrr=0.05``)."""

    default: Tolerance
    per_metric: Mapping[str, Tolerance] = field(default_factory=dict)

    def for_metric(self, metric: str) -> Tolerance:
        return self.per_metric.get(metric, self.default)

    def __str__(self) -> str:
        parts = [str(self.default)] + [f"{m}={t}" for m, t in sorted(self.per_metric.items())]
        return " ".join(parts)


def parse_tolerance(raw: Raw, where: str = "retrieval_tolerance") -> Tolerances:
    """Parse ``0.02``, ``2%``, ``0.02 mrr=0.05 ndcg@10=1%``."""
    defaults: list[str] = []
    per_metric: dict[str, Tolerance] = {}
    for word in _tolerance_words(raw, where):
        if "=" not in word:
            defaults.append(word)
            continue
        name, _, value = word.partition("=")
        if not name or not value:
            raise SettingsError(
                f"{where}: {quoted(word)} is not metric=tolerance: "
                f"{'no metric is named' if not name else f'{name} is given no value'}; "
                "write a metric and its allowed drop (mrr=0.05, ndcg@10=1%)"
            )
        try:
            metric = parse_metric(name).name
        except MetricNameError as exc:
            raise SettingsError(f"{where}: {exc}") from None
        if metric in per_metric:
            raise SettingsError(f"{where} gives {metric} twice ({quoted(word)}); keep one")
        per_metric[metric] = _one_tolerance(value, where)
    if len(defaults) > 1:
        raise SettingsError(
            f"{where} gives {len(defaults)} default tolerances "
            f"({quoted(', '.join(defaults), '')}); keep one, and name a metric for the others "
            "(mrr=0.05)"
        )
    default = _one_tolerance(defaults[0] if defaults else TOLERANCE.default, where)
    return Tolerances(default, per_metric)


# --------------------------------------------------------------------------- every setting

# -- what is computed
GOLDEN = Setting(
    "retrieval_golden", "golden files or folders, relative to the rootdir", "golden",
    _word_tuple, ini="args",
)  # fmt: skip
FIXTURE = Setting("retrieval_fixture", "name of the retriever fixture", "retriever", _fixture)
METRICS = Setting(
    "retrieval_metrics", "metrics to compute and show", "ndcg@10 mrr recall@20", _metrics,
    ini="args",
)  # fmt: skip
GAIN = Setting(
    "retrieval_gain", "nDCG gain: exponential (2^g-1) or linear (g, as trec_eval)",
    Conventions.gain, choice(GAINS),
)  # fmt: skip
THRESHOLD = Setting(
    "retrieval_relevance_threshold",
    "grade at which a result counts as relevant for the binary metrics",
    str(Conventions.relevance_threshold), integer(1),
)  # fmt: skip
MAX_GRADE = Setting(
    "retrieval_max_grade", "highest grade allowed in golden files (at most 100)", "3",
    integer(1, 100),
)  # fmt: skip
EMPTY = Setting(
    "retrieval_empty",
    "scoring of queries with no relevant judgment: abstain, one, zero or skip",
    Conventions.empty, choice(EMPTY_CONVENTIONS),
)  # fmt: skip
# -- the baseline and the gate
BASELINE = Setting(
    "retrieval_baseline",
    "baseline file (the ini value relative to the rootdir, the option's to the current folder)",
    "golden/baseline.json", _path_value, option="--retrieval-baseline", metavar="PATH",
)  # fmt: skip
UPDATE_BASELINE = Setting(
    "retrieval_update_baseline", "write this run's numbers to the baseline instead of gating",
    "", _flag, ini=None, option="--retrieval-update-baseline", action="store_true",
)  # fmt: skip
TOLERANCE = Setting(
    "retrieval_tolerance",
    "allowed drop before the gate fails: 0.02 (absolute), 2% (relative), per metric: "
    "0.02 mrr=0.05",
    "0.02", lambda key, raw: parse_tolerance(raw, key), ini="args",
    option="--retrieval-tolerance", metavar="X",
)  # fmt: skip
GATE_CONFIGURATIONS = Setting(
    "retrieval_gate_configurations", "configurations the gate compares", "", _distinct_words,
    ini="args", default_shown="every configuration in the baseline",
)  # fmt: skip
GATE_METRICS = Setting(
    "retrieval_gate_metrics", "metrics the gate compares", "", _metric_names, ini="args",
    default_shown="every metric",
)  # fmt: skip
GATE_SCOPE = Setting(
    "retrieval_gate_scope", "category (all and every category) or all (the overall row only)",
    "category", _scope,
)  # fmt: skip
GATE_MODE = Setting(
    "retrieval_gate_mode",
    "absolute; significant (a drop must also be significant after Holm correction); or "
    "report (compute and print everything, never fail the run)",
    "absolute", _gate_mode,
)  # fmt: skip
DIFF = Setting(
    "retrieval_diff", "queries shown per breached gate row", "5", integer(0), ini=None,
    option="--retrieval-diff", metavar="N",
)  # fmt: skip
# -- statistics
SEED = Setting("retrieval_seed", "seed of bootstrap and randomization tests", "1", integer(0))
BOOTSTRAP = Setting(
    "retrieval_bootstrap", "bootstrap resamples (0: normal intervals)", "10000", _resamples
)
REFERENCE = Setting(
    "retrieval_reference", "configuration the others are compared with", "", _optional_text,
    default_shown="the first configuration",
)  # fmt: skip
ALPHA = Setting("retrieval_alpha", "significance level after Holm correction", "0.05", _alpha)
MIN_QUERIES = Setting(
    "retrieval_min_queries", "categories with fewer queries get a noise warning", "30",
    integer(1),
)  # fmt: skip
WEIGHTS = Setting(
    "retrieval_weights",
    "traffic weights per category for an 'all (weighted)' row: exact-name=0.4 ...", "",
    _weights, ini="args", default_shown="none",
)  # fmt: skip
# -- the run and its output
EVAL = Setting(
    "retrieval_eval", "collect golden queries as items and evaluate the retriever fixture", "",
    _flag, ini=None, option="--retrieval-eval", action="store_true",
)  # fmt: skip
REPORTS = Setting(
    "retrieval_report", "write a report: .json, .md or .html by suffix (may repeat)", "",
    _report_paths, ini=None, option="--retrieval-report", metavar="PATH", action="append",
)  # fmt: skip
GROUP_BY = Setting(
    "retrieval_group_by",
    "add tables grouped by tags: tag:core,rolling (a row per listed tag) or tags (may repeat)",
    "", _group_bys, ini=None, option="--retrieval-group-by", metavar="SPEC", action="append",
)  # fmt: skip
TIMEOUT = Setting(
    "retrieval_timeout",
    "how long a retriever call may take before its query is an error scoring 0: seconds, or "
    "with a unit (500ms, 2s); 0: no limit",
    "0", _seconds, option="--retrieval-timeout", metavar="DURATION",
)  # fmt: skip
REPEAT = Setting(
    "retrieval_repeat",
    "run each query N times and name the queries whose rankings differ (metrics use the "
    "first run)",
    "1", integer(1, 100),
)  # fmt: skip
BATCH_SIZE = Setting(
    "retrieval_batch_size",
    "queries per call of a batch retriever (retrieve_batch), fetched ahead of their items",
    "64", integer(1, 100_000),
)  # fmt: skip
CONCURRENCY = Setting(
    "retrieval_concurrency",
    "calls of an async retriever in flight at once",
    "16", integer(1, 10_000),
)  # fmt: skip
ITEMS = Setting(
    "retrieval_items",
    "what one item evaluates: query, category (one item per category of a file) or shard:N "
    "(N queries of a category each; what xdist distributes)",
    "query", _items, option="--retrieval-items", metavar="MODE",
)  # fmt: skip
RECORD = Setting(
    "retrieval_record",
    "write every configuration's results (ids, scores, latency, errors) to this recording "
    "as the run goes",
    "", _optional_path, ini=None, option="--retrieval-record", metavar="PATH",
)  # fmt: skip
REPLAY = Setting(
    "retrieval_replay",
    "evaluate a recording (or TREC run files) instead of calling the retriever; the "
    "fixture is not built (may repeat for several run files)",
    "", _paths, ini=None, option="--retrieval-replay",
    metavar="PATH", action="append",
)  # fmt: skip
LATENCY_BUDGET = Setting(
    "retrieval_latency_budget",
    "latency limits the gate enforces, per configuration if prefixed: p95=200ms max=2s "
    "dense:p95=300ms (statistics p50 p90 p95 p99 max mean)",
    "", _latency_budget, ini="args", option="--retrieval-latency-budget", metavar="LIMITS",
    default_shown="none",
)  # fmt: skip
SHOW = Setting(
    "retrieval_show",
    "print one query's ranked results with their grades and metrics, per configuration "
    "(an id or a glob such as 'para-*'; may repeat)",
    "", lambda key, raw: tuple(_entries(raw)), ini=None, option="--retrieval-show",
    metavar="ID", action="append",
)  # fmt: skip
# -- history and CI
LOG = Setting(
    "retrieval_log",
    "append one JSON line per run to this history file (the ini value relative to the "
    "rootdir, the option's to the current folder)",
    "", _optional_path, option="--retrieval-log", metavar="PATH", default_shown="none",
)  # fmt: skip
LABEL = Setting(
    "retrieval_label",
    "name of this run in the history log (e.g. nightly); the terminal compares with the "
    "previous run of the same label",
    "", _line_of_text, ini=None, option="--retrieval-label", metavar="TEXT",
)  # fmt: skip
GITHUB = Setting(
    "retrieval_github",
    "under GitHub Actions: append the Markdown summary to $GITHUB_STEP_SUMMARY and print "
    "::error annotations at the golden file's line (false turns both off)",
    "true", _on_off,
)  # fmt: skip

SCHEMA: tuple[Setting[object], ...] = (
    EVAL, REPORTS, BASELINE, UPDATE_BASELINE, TOLERANCE, DIFF, GROUP_BY, SHOW, TIMEOUT,
    ITEMS, RECORD, REPLAY, LATENCY_BUDGET, LOG, LABEL,
    GOLDEN, FIXTURE, METRICS, GAIN, THRESHOLD, MAX_GRADE, EMPTY,
    GATE_CONFIGURATIONS, GATE_METRICS, GATE_SCOPE, GATE_MODE,
    SEED, BOOTSTRAP, REFERENCE, ALPHA, MIN_QUERIES, WEIGHTS, REPEAT, BATCH_SIZE, CONCURRENCY,
    GITHUB,
)  # fmt: skip


# --------------------------------------------------------------------------- what cores receive


@dataclass(frozen=True)
class Settings:
    """What the run computes and how numbers are made comparable."""

    metrics: tuple[Metric, ...] = METRICS.default_value
    conventions: Conventions = field(default_factory=Conventions)
    max_grade: int = MAX_GRADE.default_value
    fixture: str = FIXTURE.default_value

    @functools.cached_property
    def metric_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    @functools.cached_property
    def depth(self) -> int | None:
        """How many ranked ids a report keeps: the largest cut, None when no metric has one."""
        return max_cut(self.metrics)

    def as_dict(self) -> dict[str, object]:
        """The settings block of reports and baselines (README: Reports)."""
        return {
            "metrics": self.metric_names,
            "gain": self.conventions.gain,
            "relevance_threshold": self.conventions.relevance_threshold,
            "max_grade": self.max_grade,
            "empty": self.conventions.empty,
        }


@dataclass(frozen=True)
class StatsSettings:
    """Intervals, paired comparisons and the advice that reads them."""

    seed: int = SEED.default_value
    resamples: int = BOOTSTRAP.default_value
    reference: str | None = REFERENCE.default_value
    alpha: float = ALPHA.default_value
    min_queries: int = MIN_QUERIES.default_value
    weights: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class GateSettings:
    """How the gate compares this run with the baseline."""

    tolerance: Tolerances = TOLERANCE.default_value
    configurations: tuple[str, ...] = ()  # empty: every configuration in the baseline
    metrics: tuple[str, ...] = ()  # empty: every metric
    scope: Scope = GATE_SCOPE.default_value
    mode: GateMode = GATE_MODE.default_value
    diff: int = DIFF.default_value
    latency: tuple[LatencyLimit, ...] = ()  # retrieval_latency_budget

    def latency_limits(self, configuration: str) -> list[LatencyLimit]:
        """The budgets a configuration is held to: its own, else the shared ones."""
        own = {x.statistic: x for x in self.latency if x.configuration == configuration}
        shared = [x for x in self.latency if x.configuration is None and x.statistic not in own]
        return [*own.values(), *shared]


@dataclass(frozen=True)
class CallSettings:
    """How the retriever is called, and what one item evaluates."""

    timeout: float | None = None  # seconds a retriever call may take
    repeat: int = 1  # calls per query, to check that rankings are reproducible
    batch_size: int = BATCH_SIZE.default_value
    concurrency: int = CONCURRENCY.default_value
    items: Items = ITEMS.default_value
    record: str | None = None  # --retrieval-record
    replay: tuple[str, ...] = ()  # --retrieval-replay

    def as_dict(self, latency: Sequence[LatencyLimit] = ()) -> dict[str, object]:
        """How this run called its retrievers (what a report records beside the settings
        that decide the numbers), with the gate's latency budgets."""
        return {
            "items": str(self.items),
            "timeout_s": self.timeout,
            "batch_size": self.batch_size,
            "concurrency": self.concurrency,
            "repeat": self.repeat,
            "latency_budget": [str(limit) for limit in latency],
            "record": self.record,
            "replay": list(self.replay),
        }


@dataclass(frozen=True)
class RunOptions:
    """What the plugin layer does with a run: where golden files are, what it writes."""

    enabled: bool = False
    golden: tuple[str, ...] = GOLDEN.default_value
    baseline: str = BASELINE.default_value
    update_baseline: bool = False
    reports: tuple[str, ...] = ()
    group_bys: tuple[GroupBy, ...] = ()
    show: tuple[str, ...] = ()  # query ids or globs whose rankings are printed
    calls: CallSettings = field(default_factory=lambda: CallSettings())
    log: str | None = None  # the history log (--retrieval-log / retrieval_log)
    label: str = ""  # this run's name in the history log
    github: bool = GITHUB.default_value  # GitHub Actions annotations and step summary


@dataclass(frozen=True)
class RunSettings:
    """Every setting of a run, parsed and checked."""

    settings: Settings
    stats: StatsSettings
    gate: GateSettings
    run: RunOptions


def _core(raw: Mapping[str, Raw]) -> Settings:
    conventions = Conventions(
        gain=GAIN.read(raw), relevance_threshold=THRESHOLD.read(raw), empty=EMPTY.read(raw)
    )
    max_grade = MAX_GRADE.read(raw)
    if conventions.relevance_threshold > max_grade:
        raise SettingsError(
            f"{THRESHOLD.name} ({conventions.relevance_threshold}) is above "
            f"{MAX_GRADE.name} ({max_grade}): nothing could ever be relevant"
        )
    return Settings(METRICS.read(raw), conventions, max_grade, FIXTURE.read(raw))


def _gate(raw: Mapping[str, Raw], computed: Sequence[str]) -> GateSettings:
    gate = GateSettings(
        tolerance=TOLERANCE.read(raw),
        configurations=GATE_CONFIGURATIONS.read(raw),
        metrics=GATE_METRICS.read(raw),
        scope=GATE_SCOPE.read(raw),
        mode=GATE_MODE.read(raw),
        diff=DIFF.read(raw),
        latency=LATENCY_BUDGET.read(raw),
    )
    for setting, names in (
        (GATE_METRICS, gate.metrics),
        (TOLERANCE, tuple(gate.tolerance.per_metric)),
    ):
        unknown = [m for m in names if m not in computed]
        if unknown:
            raise SettingsError(
                f"{setting.shown} names {', '.join(unknown)}, which this run does not compute "
                f"({METRICS.name}: {' '.join(computed)})"
            )
    return gate


def _stats(raw: Mapping[str, Raw]) -> StatsSettings:
    return StatsSettings(
        seed=SEED.read(raw),
        resamples=BOOTSTRAP.read(raw),
        reference=REFERENCE.read(raw),
        alpha=ALPHA.read(raw),
        min_queries=MIN_QUERIES.read(raw),
        weights=WEIGHTS.read(raw),
    )


def _run(raw: Mapping[str, Raw]) -> RunOptions:
    return RunOptions(
        enabled=EVAL.read(raw),
        golden=GOLDEN.read(raw),
        baseline=BASELINE.read(raw),
        update_baseline=UPDATE_BASELINE.read(raw),
        reports=REPORTS.read(raw),
        group_bys=GROUP_BY.read(raw),
        show=SHOW.read(raw),
        calls=CallSettings(
            timeout=TIMEOUT.read(raw),
            repeat=REPEAT.read(raw),
            batch_size=BATCH_SIZE.read(raw),
            concurrency=CONCURRENCY.read(raw),
            items=ITEMS.read(raw),
            record=RECORD.read(raw),
            replay=REPLAY.read(raw),
        ),
        log=LOG.read(raw),
        label=LABEL.read(raw),
        github=GITHUB.read(raw),
    )


def parse_run_settings(raw: Mapping[str, Raw]) -> RunSettings:
    """Every setting from raw values keyed by setting name (missing or empty: the default).

    Raises :class:`SettingsError` naming the key, what is wrong and the fix.
    """
    settings = _core(raw)
    return RunSettings(settings, _stats(raw), _gate(raw, settings.metric_names), _run(raw))


def parse_settings(raw: Mapping[str, Raw]) -> Settings:
    """Only what the run computes (:class:`Settings`) from raw ini values."""
    return _core(raw)


def refuse_empty_ini(ini: Mapping[str, Raw], where: str) -> None:
    """An ini key written with no value (``retrieval_metrics =``), when its default is
    not empty: a :class:`SettingsError` naming it, where read as the default it would go
    unnoticed (a template whose variable came out empty)."""
    for setting in SCHEMA:
        value = ini.get(setting.name)
        if setting.ini is None or value is None or setting.default == "":
            continue
        if value == [] or (isinstance(value, str) and not value.strip()):
            raise SettingsError(
                f"{where}: {setting.name} is empty: give it a value, or leave the key out "
                f"for its default ({setting.default})"
            )


def refuse_empty_options(options: Mapping[str, Raw]) -> None:
    """An option given with no value (``--retrieval-timeout=``), as :func:`refuse_empty_ini`
    refuses an ini key with none: a :class:`SettingsError` naming it, where taken as not
    given it would go unnoticed (a CI template whose variable came out empty). An option
    with no ini key has nothing to fall back on; one whose default is empty
    (``--retrieval-log=``) may still say "none", over the ini file's value."""
    for setting in SCHEMA:
        value = options.get(setting.name)
        if setting.option is None or value is None or isinstance(value, bool):
            continue
        if setting.ini is not None and setting.default == "":
            continue
        given = [value] if isinstance(value, str) else list(value)
        if any(not str(v).strip() for v in given):
            default = f" for its default ({setting.default_text})" if setting.default_text else ""
            raise SettingsError(
                f"{setting.option} is empty: give it a value ({setting.metavar}), or leave the "
                f"option out{default}"
            )


def unknown_ini_keys(keys: Iterable[str]) -> list[tuple[str, str]]:
    """Each ``retrieval_*`` key no setting has (a typo?), and its note naming the closest
    key: left as it is, the setting it meant keeps its default unnoticed."""
    known = [s.name for s in SCHEMA if s.ini is not None]
    found = []
    for key in keys:
        if key.startswith("retrieval_") and key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            found.append((key, f"unknown ini key {quoted(key, '')}{hint}: ignored"))
    return found


# --------------------------------------------------------------------------- generated views

OPTION_TABLE = "pytest_retrieval/plugin/option_table.py"  # written by scripts/readme.py


def option_table_source() -> str:
    """The source of :data:`OPTION_TABLE`: what pytest registers (options and ini keys),
    as plain data, so that the entry point compiles a few lines rather than this module."""
    rows = []
    for setting in SCHEMA:
        pieces = textwrap.wrap(setting.full_help, 76, drop_whitespace=False)
        assert "".join(pieces) == setting.full_help, setting.name
        fields = (setting.name, setting.option, setting.action, setting.metavar, setting.ini)
        rows.append(f"    Declared({', '.join(map(repr, fields))},")
        rows += [f"             {piece!r}" for piece in pieces]
        rows[-1] += "),"
    return "\n".join(
        [
            '"""The options and ini keys pytest registers for the plugin: GENERATED from the',
            "settings schema (pytest_retrieval/settings.py) by ``python scripts/readme.py``;",
            "do not edit (tests/test_architecture.py checks it is up to date).",
            "",
            "Every pytest run of a project with the plugin installed imports the entry point;",
            "this plain data is what it needs, without the schema's parsers (under",
            "PYTHONDONTWRITEBYTECODE pytest compiles a plugin's modules afresh on each run).",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "from typing import NamedTuple",
            "",
            "",
            "class Declared(NamedTuple):",
            '    """One setting as pytest registers it (ini None: an option only)."""',
            "",
            "    name: str",
            "    option: str | None",
            "    action: str",
            "    metavar: str | None",
            "    ini: str | None",
            "    help: str",
            "",
            "",
            "# fmt: off",
            "DECLARED: tuple[Declared, ...] = (",
            *rows,
            ")",
            "# fmt: on",
            "",
        ]
    )


# --------------------------------------------------------------------------- the README table


def markdown_table() -> str:
    """The README's "Options and ini keys at a glance" table, generated from the schema."""
    lines = ["| option | ini key | default | meaning |", "|---|---|---|---|"]
    for s in SCHEMA:
        option = f"`{s.option}{' ' + s.metavar if s.metavar else ''}`" if s.option else ""
        ini = f"`{s.name}`" if s.ini is not None else ""
        default = f"`{s.default}`" if s.default else s.default_text
        lines.append(f"| {option} | {ini} | {default} | {s.help.replace('|', '/')} |")
    return "\n".join(lines) + "\n"
