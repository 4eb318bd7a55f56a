"""Per-query retrieval metrics: one metric, one function.

Every function takes a ranking that is already de-duplicated (see
:func:`pytest_retrieval.results.dedupe`) and the query's judgments, and knows
nothing of pytest. :func:`evaluate` applies the conventions of CONTRACT §3:
gain, relevance threshold and the scoring of queries with nothing to find.

Conventions, written down once:

* rank counts from 1, the discount is ``log2(rank + 1)``;
* nDCG's ideal DCG comes from every judged grade > 0, sorted descending, cut at k;
* a result is *relevant* for the binary metrics when its grade reaches the
  relevance threshold; unjudged results have grade 0;
* a metric with nothing to find for a query (nDCG: no grade > 0; every other
  metric: no grade at or above the threshold) is scored by the ``empty``
  convention: ``abstain`` (1.0 when nothing came back, else 0.0), ``one``,
  ``zero`` (trec_eval) or ``skip`` (``None``: left out of every mean);
* ``judged@k`` is a coverage measure, not a quality measure: it ignores the
  relevance threshold and the empty convention (0.0 when nothing came back,
  as ir_measures' ``Judged@k`` gives for a query missing from the run).

Every metric, built-in or custom, is a :class:`~pytest_retrieval.metric_registry.MetricSpec`
in :data:`REGISTRY`: names, aliases and cuts are parsed from it and :func:`evaluate`
applies the conventions by its ``nothing_to_find``. A run installs its custom
metrics with :func:`install_metrics` (the plugin from the ``pytest_retrieval_metrics``
hook, the command line from ``--metrics-module``) and restores the registry after.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from .conventions import DEFAULT_CONVENTIONS
from .conventions import EMPTY_CONVENTIONS as EMPTY_CONVENTIONS
from .conventions import GAINS as GAINS
from .conventions import Conventions as Conventions
from .metric_registry import CustomMetricError as CustomMetricError
from .metric_registry import (
    Installed,
    MetricFunction,
    MetricRegistry,
    Registered,
    checked_value,
    exception_text,
    raised_at,
)
from .metric_registry import MetricDefinitionError as MetricDefinitionError
from .metric_registry import MetricInput as MetricInput
from .metric_registry import MetricNameError as MetricNameError
from .metric_registry import MetricSpec as MetricSpec
from .metric_registry import gain_of as gain_of
from .metrics_pass import BUILTIN, Builtin, Pass
from .quoting import quoted

Ranking = Sequence[str]
Judgments = Mapping[str, int]

_LOG2 = [0.0] + [math.log2(r + 1) for r in range(1, 1025)]


def _discount(rank: int) -> float:
    """log2(rank + 1), rank counted from 1 (cached for the first 1024 ranks)."""
    return _LOG2[rank] if rank < len(_LOG2) else math.log2(rank + 1)


def _cut(ranking: Ranking, k: int | None) -> Ranking:
    return ranking if k is None else ranking[:k]


def dcg(ranking: Ranking, judgments: Judgments, k: int | None, gain: str) -> float:
    """Discounted cumulative gain of the top k."""
    total = 0.0
    for rank, doc in enumerate(_cut(ranking, k), start=1):
        grade = judgments.get(doc, 0)
        if grade > 0:
            total += gain_of(grade, gain) / _discount(rank)
    return total


def ideal_dcg(judgments: Judgments, k: int | None, gain: str) -> float:
    """DCG of the best possible ranking: every grade > 0, sorted descending, cut at k."""
    grades = sorted((g for g in judgments.values() if g > 0), reverse=True)
    if k is not None:
        grades = grades[:k]
    return sum(gain_of(g, gain) / _discount(rank) for rank, g in enumerate(grades, start=1))


def ndcg(ranking: Ranking, judgments: Judgments, k: int | None, gain: str = "exponential") -> float:
    """DCG@k / IDCG@k. The caller handles IDCG = 0 (nothing to find)."""
    ideal = ideal_dcg(judgments, k, gain)
    return dcg(ranking, judgments, k, gain) / ideal if ideal > 0 else 0.0


def reciprocal_rank(ranking: Ranking, relevant: frozenset[str], k: int | None = None) -> float:
    """1 / rank of the first relevant result within the cut, 0 if there is none."""
    for rank, doc in enumerate(_cut(ranking, k), start=1):
        if doc in relevant:
            return 1.0 / rank
    return 0.0


def _hits(ranking: Ranking, relevant: frozenset[str], k: int | None) -> int:
    return sum(1 for doc in _cut(ranking, k) if doc in relevant)


def recall(ranking: Ranking, relevant: frozenset[str], k: int) -> float:
    """Relevant results in the top k / all relevant."""
    return _hits(ranking, relevant, k) / len(relevant) if relevant else 0.0


def precision(ranking: Ranking, relevant: frozenset[str], k: int) -> float:
    """Relevant results in the top k / k (always k, also when fewer came back)."""
    return _hits(ranking, relevant, k) / k


def hit_rate(ranking: Ranking, relevant: frozenset[str], k: int) -> float:
    """1.0 when any relevant result is in the top k."""
    return 1.0 if _hits(ranking, relevant, k) else 0.0


def average_precision(ranking: Ranking, relevant: frozenset[str], k: int | None = None) -> float:
    """Sum of precision at each relevant rank within the cut / all relevant."""
    if not relevant:
        return 0.0
    hits = 0
    total = 0.0
    for rank, doc in enumerate(_cut(ranking, k), start=1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)


def r_precision(ranking: Ranking, relevant: frozenset[str]) -> float:
    """Relevant results in the top R / R, R the number of relevant results."""
    r = len(relevant)
    return _hits(ranking, relevant, r) / r if r else 0.0


def judged(ranking: Ranking, judgments: Judgments, k: int) -> float:
    """Share of the top min(k, returned) results that carry a judgment (any grade)."""
    top = ranking[:k]
    if not top:
        return 0.0
    return sum(1 for doc in top if doc in judgments) / len(top)


def bpref(ranking: Ranking, judgments: Judgments, threshold: int = 1) -> float:
    """trec_eval's bpref: how often the judged relevant results beat the judged nonrelevant.

    Relevant: grade >= threshold (R of them); nonrelevant: judged with a grade below the
    threshold (N of them); unjudged results are skipped, not taken as nonrelevant. Each
    relevant result retrieved adds ``1 - min(n, R) / min(N, R)``, n the judged nonrelevant
    results ranked above it (1 when n = 0); the sum is divided by R. The caller handles
    R = 0 (nothing to find).
    """
    relevant = sum(1 for grade in judgments.values() if grade >= threshold)
    nonrelevant = len(judgments) - relevant
    if not relevant:
        return 0.0
    denominator = min(nonrelevant, relevant)
    above = 0
    total = 0.0
    for doc in ranking:
        grade = judgments.get(doc)
        if grade is None:
            continue
        if grade < threshold:
            above += 1
        else:
            total += 1.0 - min(above, relevant) / denominator if above else 1.0
    return total / relevant


# --------------------------------------------------------------------------- names


@dataclass(frozen=True, order=True)
class Metric:
    """A parsed metric name: ``base`` a registered metric's name, ``k`` a cut or None."""

    base: str
    k: int | None = None
    written: str = field(default="", compare=False, repr=False)  # as given ("nDCG@10")

    @property
    def name(self) -> str:
        """The canonical name used in reports (``ndcg@10``, ``mrr``)."""
        return self.base if self.k is None else f"{self.base}@{self.k}"

    def __str__(self) -> str:
        return self.name


def _q(function: Callable[[Ranking, frozenset[str], int], float]) -> MetricFunction:
    """A binary metric with a required cut, as a metric function."""
    return lambda q: function(q.ranking, q.relevant, q.k or 0)


BUILTIN_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "ndcg",
        lambda q: ndcg(q.ranking, q.judgments, q.k, q.gain),
        nothing_to_find="no-gain",
    ),
    MetricSpec("mrr", lambda q: reciprocal_rank(q.ranking, q.relevant, q.k), aliases=("rr",)),
    MetricSpec("recall", _q(recall), cut="required", aliases=("r",)),
    MetricSpec("precision", _q(precision), cut="required", aliases=("p",)),
    MetricSpec("hit_rate", _q(hit_rate), cut="required", aliases=("success",)),
    MetricSpec("map", lambda q: average_precision(q.ranking, q.relevant, q.k), aliases=("ap",)),
    MetricSpec(
        "r_precision", lambda q: r_precision(q.ranking, q.relevant), cut="none", aliases=("rprec",)
    ),
    MetricSpec(
        "judged",
        lambda q: judged(q.ranking, q.judgments, q.k or 0),
        cut="required",
        nothing_to_find="never",  # coverage: no threshold, no empty convention
    ),
    MetricSpec("bpref", lambda q: bpref(q.ranking, q.judgments, q.threshold), cut="none"),
)

# The built-ins and the custom metrics a run installs (install_metrics).
REGISTRY = MetricRegistry(tuple(Registered(spec) for spec in BUILTIN_METRICS))
COMMON = ("ndcg@10", "recall@20", "mrr@10")

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(?:@\s*(\S+))?\s*$")


_TREC_EVAL_NAMES = (  # trec_eval's names of the built-ins, as they are written here
    (re.compile(r"ndcg_cut_(\d+)"), "ndcg@{}"),
    (re.compile(r"recip_rank"), "mrr"),
    (re.compile(r"P_(\d+)"), "precision@{}"),
    (re.compile(r"recall_(\d+)"), "recall@{}"),
    (re.compile(r"map_cut_(\d+)"), "map@{}"),
    (re.compile(r"success_(\d+)"), "hit_rate@{}"),
)


def _trec_eval_name(word: str) -> str | None:
    """``ndcg_cut_10`` -> ``ndcg@10``: a trec_eval name's spelling here, or None."""
    for pattern, spelled in _TREC_EVAL_NAMES:
        match = pattern.fullmatch(word.strip())
        if match:
            return spelled.format(*match.groups())
    return None


def _suggest(word: str) -> str:
    ours = _trec_eval_name(word)
    if ours is not None:
        gain = (
            ", with retrieval_gain = linear for trec_eval's numbers" if ours[:4] == "ndcg" else ""
        )
        return f" (trec_eval's name; here it is '{ours}'{gain})"
    cut = _written_cut(word)
    if cut is not None:  # precison@3: precision@3, the k as written
        names = sorted({entry.spec.name for entry in REGISTRY.all() if entry.spec.cut != "none"})
        name = word.partition("@")[0].strip().lower()
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        if close:
            return f" (did you mean '{close[0]}@{cut}'?)"
    spelled = sorted({e for entry in REGISTRY.all() for e in entry.spec.examples} | set(COMMON))
    close = difflib.get_close_matches(word.lower(), spelled, n=1, cutoff=0.5)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _written_cut(word: str) -> str | None:
    """The k a name is written with (``precison@3``: ``3``), when it is a positive integer."""
    match = _NAME.match(word)
    cut = match.group(2) if match else None
    if cut is None or not cut.isdigit() or int(cut) < 1:
        return None
    return str(int(cut))


def _unknown(name: str) -> MetricNameError:
    """The error for a name no metric has: the closest, and the custom metrics there are
    (or the registry's hint on adding one)."""
    if _trec_eval_name(name) is not None:
        return MetricNameError(f"unknown metric {quoted(name)}{_suggest(name)}")
    custom = ", ".join(f"{e.spec.spelled} ({e.source})" for e in REGISTRY.custom)
    more = (
        f"; custom metrics: {custom}" if custom else (f"; {REGISTRY.hint}" if REGISTRY.hint else "")
    )
    return MetricNameError(f"unknown metric {quoted(name)}{_suggest(name)}{more}")


_CUT_DIGITS = 12  # far past any ranking (MAX_RESULTS)


@functools.lru_cache(maxsize=1024)
def parse_metric(name: str) -> Metric:
    """Parse ``nDCG@10``, ``RR``, ``recall@20``... into a :class:`Metric` (memoised:
    expectations are parsed per item; :func:`install_metrics` clears the memo)."""
    if not isinstance(name, str):
        raise MetricNameError(f"metric name must be text, got {type(name).__name__} {name!r}")
    match = _NAME.match(name)
    if not match:
        raise _unknown(name)
    word, cut = match.group(1), match.group(2)
    entry = REGISTRY.lookup(word)
    if entry is None:
        raise _unknown(name)
    base = entry.spec.name
    if cut is None:
        if entry.spec.cut == "required":
            raise MetricNameError(
                f"metric {quoted(name)} needs a cut: write '{base}@10' (any k >= 1)"
            )
        return Metric(base, written=name.strip())
    if entry.spec.cut == "none":
        raise MetricNameError(f"metric {quoted(name)} takes no cut: write '{base}'")
    if len(cut.lstrip("0")) > _CUT_DIGITS:  # int() refuses thousands of digits
        shown = cut if len(cut) <= 20 else cut[:20] + "..."
        raise MetricNameError(
            f"metric '{base}@{shown}': the cut must be an integer >= 1 a ranking can reach "
            f"(at most {_CUT_DIGITS} digits), got {len(cut)} digits"
        )
    if not cut.isdigit() or int(cut) < 1:
        raise MetricNameError(
            f"metric {quoted(name)}: the cut must be an integer >= 1, got {quoted(cut)}"
        )
    return Metric(base, int(cut), name.strip())


def install_metrics(custom: Sequence[Registered], hint: str = "") -> Installed:
    """Make ``custom`` the metrics a run may name beside the built-ins; returns what to
    hand :func:`restore_metrics` when the run ends. :class:`MetricDefinitionError` when
    two definitions claim one name or alias (nothing changes then)."""
    previous = REGISTRY.install(custom, hint)
    parse_metric.cache_clear()
    return previous


def restore_metrics(previous: Installed) -> None:
    """Put back the custom metrics :func:`install_metrics` replaced."""
    REGISTRY.restore(previous)
    parse_metric.cache_clear()


def parse_metrics(names: Sequence[str]) -> tuple[Metric, ...]:
    """Parse several names, keeping order and dropping repeats."""
    seen: dict[Metric, None] = {}
    for name in names:
        seen.setdefault(parse_metric(name), None)
    return tuple(seen)


def max_cut(metrics: Sequence[Metric]) -> int | None:
    """The largest k among the metrics, or None when no metric has a cut."""
    cuts = [m.k for m in metrics if m.k is not None]
    return max(cuts) if cuts else None


# --------------------------------------------------------------------------- evaluation


def _empty_score(convention: str, returned_anything: bool) -> float | None:
    if convention == "abstain":
        return 0.0 if returned_anything else 1.0
    if convention == "one":
        return 1.0
    if convention == "zero":
        return 0.0
    return None


def _custom(entry: Registered, metric: Metric, given: MetricInput) -> float:
    """A custom metric's value, checked; :class:`CustomMetricError` names the metric."""
    try:
        value = entry.spec.function(given)
    except Exception as exc:
        raise CustomMetricError(
            f"metric '{metric.name}' ({entry.source}) raised {type(exc).__name__}: "
            f"{exception_text(exc)}{raised_at(exc)}; fix the metric function"
        ) from exc
    return checked_value(entry, metric.name, value)


# (metric name, when it has nothing to find, the one-pass function or None, entry, metric)
_Step = tuple[str, str, "Builtin | None", Registered, Metric]
_PLANS: dict[tuple[int, tuple[Metric, ...]], list[_Step]] = {}


_LAST: list[tuple[Sequence[Metric], int, list[_Step]]] = []  # the last list asked for


def _plan(metrics: Sequence[Metric]) -> list[_Step]:
    """How each metric is computed, worked out once per metric list and registry state."""
    if _LAST and _LAST[0][0] is metrics and _LAST[0][1] == REGISTRY.generation:
        return _LAST[0][2]  # the same tuple again (a run's): no hashing of its metrics
    key = (REGISTRY.generation, tuple(metrics))
    found = _PLANS.get(key)
    if found is None:
        found = []
        for metric in metrics:
            entry = REGISTRY.entry(metric.base)
            fast = BUILTIN.get(metric.base) if entry.builtin else None
            found.append((metric.name, entry.spec.nothing_to_find, fast, entry, metric))
        if len(_PLANS) >= 64:  # a long-lived process that tried many lists
            _PLANS.clear()
        _PLANS[key] = found
    if type(metrics) is tuple:  # a list could change under the same identity
        _LAST[:] = [(metrics, REGISTRY.generation, found)]
    return found


def _nothing(found: Pass, judgments: Judgments) -> dict[str, bool]:
    """Which of the metrics' "nothing to find" cases a query's judgments are in."""
    return {
        "no-relevant": not found.relevant,
        "no-gain": found.relevant == 0 and max(judgments.values(), default=0) <= 0,
        "never": False,
    }


def never_scored(
    metrics: Sequence[Metric], judgments: Judgments, conventions: Conventions
) -> list[str]:
    """The metrics that are n/a on every ranking of a query with these judgments (under
    ``empty = skip``, those it has nothing to find for); no metric is called."""
    if conventions.empty != "skip":
        return []
    nothing = _nothing(Pass([], judgments, conventions.relevance_threshold), judgments)
    return [name for name, empty_when, *_ in _plan(metrics) if nothing[empty_when]]


def evaluate(
    ranking: Ranking,
    judgments: Judgments,
    metrics: Sequence[Metric],
    conventions: Conventions = DEFAULT_CONVENTIONS,
) -> dict[str, float | None]:
    """Score one de-duplicated ranking on every metric, conventions applied.

    Returns ``{canonical name: value}``; ``None`` only under ``empty = skip``. A custom
    metric that raises or returns something outside 0..1 is a :class:`CustomMetricError`.
    """
    found = Pass(ranking, judgments, conventions.relevance_threshold)
    nothing = _nothing(found, judgments)
    returned = len(ranking) > 0
    out: dict[str, float | None] = {}
    given: MetricInput | None = None
    for name, empty_when, fast, entry, metric in _plan(metrics):
        if nothing[empty_when]:
            out[name] = _empty_score(conventions.empty, returned)
        elif fast is not None:
            out[name] = fast(found, metric.k, conventions.gain)
        else:
            threshold = conventions.relevance_threshold
            given = given or MetricInput(ranking, judgments, None, conventions.gain, threshold)
            cut = dataclasses.replace(given, k=metric.k)
            builtin = entry.builtin
            out[name] = entry.spec.function(cut) if builtin else _custom(entry, metric, cut)
    return out
