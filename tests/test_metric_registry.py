"""Custom metric definitions and the registry, without pytest in between (pure cores):
what a definition may be, names taken twice, parsing, the conventions by
``nothing_to_find``, failures of a custom function, and judgment keys in
:func:`~pytest_retrieval.shapes.rank_results`."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_retrieval import MetricInput, MetricSpec
from pytest_retrieval.golden import GoldenQuery
from pytest_retrieval.metric_registry import (
    CustomMetricError,
    MetricDefinitionError,
    Registered,
    registered,
)
from pytest_retrieval.metrics import (
    REGISTRY,
    Conventions,
    Metric,
    MetricNameError,
    evaluate,
    install_metrics,
    parse_metric,
    parse_metrics,
    restore_metrics,
)
from pytest_retrieval.scoring import score_query
from pytest_retrieval.settings import Settings
from pytest_retrieval.shapes import ResultShapeError, rank_results

Install = Callable[..., None]


def hits_at(q: MetricInput) -> float:
    """A toy metric: the share of the top k (or of all) that is relevant."""
    top = q.top
    return sum(1 for d in top if q.is_relevant(d)) / len(top) if top else 0.0


@pytest.fixture
def install() -> Iterator[Install]:
    """Install custom metrics for one test; the registry is put back after it."""
    replaced = []

    def _install(*specs: MetricSpec, source: str = "conftest.py:3") -> None:
        replaced.append(install_metrics([Registered(s, source) for s in specs]))

    yield _install
    for previous in reversed(replaced):
        restore_metrics(previous)
    assert REGISTRY.custom == ()


# --------------------------------------------------------------------------- definitions


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "rbp 80"}, "metric name 'rbp 80' must start with a letter or _"),
        ({"name": "8rbp"}, "metric name '8rbp' must start with a letter or _"),
        ({"name": "rbp."}, "metric name 'rbp.' must start with a letter or _"),
        ({"name": "rbp@10"}, "metric name 'rbp@10' must start with a letter or _"),
        ({"aliases": ("ok", "not ok")}, "metric name 'not ok' must start"),
        ({"aliases": "rbp"}, "metric 'x': aliases must be a list of names, got 'rbp'"),
        ({"function": 0.5}, "metric 'x': function must be callable (MetricInput -> float)"),
        ({"cut": "maybe"}, "metric 'x': cut must be one of none, optional, required"),
        ({"nothing_to_find": "no"}, "nothing_to_find must be one of no-relevant, no-gain, never"),
    ],
)
def test_a_definition_that_cannot_be_used_says_which_field(
    fields: dict[str, Any], message: str
) -> None:
    given: dict[str, Any] = {"name": "x", "function": hits_at, **fields}
    with pytest.raises(MetricDefinitionError) as info:
        MetricSpec(**given)
    assert message in str(info.value)


def test_aliases_may_be_a_list_and_are_kept_as_a_tuple() -> None:
    spec = MetricSpec("rbp.80", hits_at, aliases=["rbp", "RBP", "rbp.80"])  # type: ignore[arg-type]
    assert spec.aliases == ("rbp", "RBP", "rbp.80")
    assert spec.words == ("rbp.80", "rbp")  # lower-cased, each once


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        ({"rbp": hits_at}, "conftest.py:3: pytest_retrieval_metrics() must return a list of "
         "pytest_retrieval.MetricSpec, got dict"),
        ("rbp", "conftest.py:3: pytest_retrieval_metrics() must return a list of "
         "pytest_retrieval.MetricSpec, got str"),
        ([MetricSpec("a", hits_at), "rbp"], "conftest.py:3: pytest_retrieval_metrics() "
         "returned str 'rbp' at position 2; return pytest_retrieval.MetricSpec objects"),
    ],
)  # fmt: skip
def test_what_the_hook_returns_is_checked_and_named_by_its_source(
    returned: object, message: str
) -> None:
    with pytest.raises(MetricDefinitionError) as info:
        registered("conftest.py:3", returned)
    assert str(info.value) == message


def test_none_or_one_spec_is_accepted_from_the_hook() -> None:
    spec = MetricSpec("a", hits_at)
    assert registered("here", None) == []
    assert registered("here", spec) == [Registered(spec, "here")]
    assert registered("here", (spec,)) == [Registered(spec, "here")]


# --------------------------------------------------------------------------- names taken twice


def test_a_name_a_builtin_has_is_refused_naming_both() -> None:
    with pytest.raises(MetricDefinitionError) as info:
        install_metrics([Registered(MetricSpec("nDCG", hits_at), "conftest.py:7")])
    assert str(info.value) == (
        "metric 'nDCG' (conftest.py:7): its name 'ndcg' is taken by the built-in metric "
        "'ndcg'; give one of them another name"
    )
    assert REGISTRY.custom == ()  # nothing changed


def test_an_alias_a_builtin_has_is_refused_naming_both() -> None:
    spec = MetricSpec("hits", hits_at, aliases=("P",))
    with pytest.raises(MetricDefinitionError) as info:
        install_metrics([Registered(spec, "conftest.py:7")])
    assert str(info.value) == (
        "metric 'hits' (conftest.py:7): its alias 'p' is taken by the built-in metric "
        "'precision' (its alias 'p'); give one of them another name"
    )


def test_two_custom_definitions_of_one_name_are_refused_naming_both_sources() -> None:
    first = Registered(MetricSpec("rbp.80", hits_at, aliases=("rbp",)), "conftest.py:9")
    second = Registered(MetricSpec("RBP", hits_at), "plugin 'extra' (extra.py:4)")
    with pytest.raises(MetricDefinitionError) as info:
        install_metrics([first, second])
    assert str(info.value) == (
        "metric 'RBP' (plugin 'extra' (extra.py:4)): its name 'rbp' is taken by metric "
        "'rbp.80' (conftest.py:9) (its alias 'rbp'); give one of them another name"
    )


# --------------------------------------------------------------------------- parsing


def test_custom_names_parse_like_builtins_and_go_away_when_restored(install: Install) -> None:
    with pytest.raises(MetricNameError):
        parse_metric("rbp.80@10")  # memoised as unknown before the install...
    install(MetricSpec("rbp.80", hits_at, aliases=("rbp",)))
    assert parse_metric("rbp.80@10") == Metric("rbp.80", 10)  # ...and the memo cleared
    assert parse_metric("RBP@5") == Metric("rbp.80", 5)
    assert parse_metric(" Rbp.80 ").name == "rbp.80"
    assert [m.name for m in parse_metrics(["rbp@10", "rbp.80@10", "ndcg@10"])] == [
        "rbp.80@10",
        "ndcg@10",
    ]
    restore_metrics(install_metrics([]))  # an install replaces; a restore puts back
    assert parse_metric("rbp").name == "rbp.80"


@pytest.mark.parametrize(
    ("cut", "name", "problem"),
    [
        ("required", "hits", "metric 'hits' needs a cut: write 'hits@10' (any k >= 1)"),
        ("none", "hits@3", "metric 'hits@3' takes no cut: write 'hits'"),
        ("optional", "hits@0", "metric 'hits@0': the cut must be an integer >= 1, got '0'"),
    ],
)
def test_a_custom_metric_s_cut_rules_are_the_builtins(
    install: Install, cut: Any, name: str, problem: str
) -> None:
    install(MetricSpec("hits", hits_at, cut=cut))
    with pytest.raises(MetricNameError) as info:
        parse_metric(name)
    assert str(info.value) == problem


def test_an_unknown_name_lists_the_custom_metrics(install: Install) -> None:
    install(
        MetricSpec("rbp.80", hits_at),
        MetricSpec("hits", hits_at, cut="required"),
        MetricSpec("coverage", hits_at, cut="none"),
    )
    with pytest.raises(MetricNameError) as info:
        parse_metric("rbq.80@10")
    assert str(info.value) == (
        "unknown metric 'rbq.80@10' (did you mean 'rbp.80@10'?); custom metrics: "
        "rbp.80[@k] (conftest.py:3), hits@k (conftest.py:3), coverage (conftest.py:3)"
    )


def test_without_custom_metrics_an_unknown_name_reads_as_before() -> None:
    with pytest.raises(MetricNameError) as info:
        parse_metric("ndgc@10")
    assert str(info.value) == "unknown metric 'ndgc@10' (did you mean 'ndcg@10'?)"


# --------------------------------------------------------------------------- conventions


def test_the_function_is_handed_the_query_as_metric_input(install: Install) -> None:
    seen: list[MetricInput] = []

    def spy(q: MetricInput) -> float:
        seen.append(q)
        return 0.5

    install(MetricSpec("spy", spy))
    conventions = Conventions(gain="linear", relevance_threshold=2)
    values = evaluate(
        ["a", "b", "c"], {"a": 1, "c": 3, "z": 2}, parse_metrics(["spy@2"]), conventions
    )
    assert values == {"spy@2": 0.5}
    (q,) = seen
    assert (list(q.ranking), list(q.top), q.k) == (["a", "b", "c"], ["a", "b"], 2)
    assert q.relevant == frozenset({"c", "z"})
    assert (q.gain, q.threshold) == ("linear", 2)
    assert (q.grade("a"), q.grade("b"), q.is_relevant("c"), q.is_relevant("a")) == (
        1,
        0,
        True,
        False,
    )
    assert (q.gain_of("c"), MetricInput([], {"c": 3}).gain_of("c")) == (3.0, 7.0)


NOTHING = {"a": 0, "b": 1}  # at threshold 2: nothing relevant, but a grade > 0


@pytest.mark.parametrize(
    ("rule", "ranking", "empty", "expected"),
    [
        ("no-relevant", ["a"], "abstain", 0.0),  # returned something: not an abstention
        ("no-relevant", [], "abstain", 1.0),
        ("no-relevant", ["a"], "one", 1.0),
        ("no-relevant", ["a"], "skip", None),
        ("no-gain", ["b"], "one", 0.5),  # grade 1 is a gain: the function scores it
        ("never", ["a"], "one", 0.5),
        ("never", [], "skip", 0.5),
    ],
)
def test_nothing_to_find_decides_who_scores_the_query(
    install: Install, rule: Any, ranking: list[str], empty: str, expected: float | None
) -> None:
    install(MetricSpec("half", lambda q: 0.5, nothing_to_find=rule))
    conventions = Conventions(relevance_threshold=2, empty=empty)
    assert evaluate(ranking, NOTHING, [Metric("half")], conventions) == {"half": expected}


def test_no_gain_goes_to_the_convention_when_every_grade_is_zero(install: Install) -> None:
    install(MetricSpec("half", lambda q: 0.5, nothing_to_find="no-gain"))
    assert evaluate(["a"], {"a": 0}, [Metric("half")], Conventions(empty="one")) == {"half": 1.0}


# --------------------------------------------------------------------------- failures


def broken(q: MetricInput) -> float:
    return 1 / 0


def test_a_custom_function_that_raises_is_named_with_where_it_raised(install: Install) -> None:
    install(MetricSpec("broken", broken), source="conftest.py:12")
    with pytest.raises(CustomMetricError) as info:
        evaluate(["a"], {"a": 1}, [Metric("broken", 3)])
    line = broken.__code__.co_firstlineno + 1
    assert str(info.value) == (
        "metric 'broken@3' (conftest.py:12) raised ZeroDivisionError: division by zero "
        f"(at tests/test_metric_registry.py:{line}); fix the metric function"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1.5, "float 1.5"), (-0.1, "float -0.1"), (math.nan, "float nan"), ("0.5", "str '0.5'"),
     (None, "NoneType None"), (True, "bool True")],
)  # fmt: skip
def test_a_custom_value_outside_0_1_is_an_error(
    install: Install, value: object, shown: str
) -> None:
    install(MetricSpec("odd", lambda q: value))  # type: ignore[arg-type, return-value]
    with pytest.raises(CustomMetricError) as info:
        evaluate(["a"], {"a": 1}, [Metric("odd")])
    assert str(info.value) == (
        f"metric 'odd' (conftest.py:3) returned {shown}; a metric function must return a "
        "number in 0..1"
    )


def test_a_value_a_rounding_error_outside_0_1_is_clamped(install: Install) -> None:
    install(MetricSpec("almost", lambda q: 1 + 1e-12))
    assert evaluate(["a"], {"a": 1}, [Metric("almost")]) == {"almost": 1.0}


def test_score_query_makes_a_failing_custom_metric_the_item_s_error(install: Install) -> None:
    install(MetricSpec("broken", broken), source="conftest.py:12")
    query = GoldenQuery("q1", "text", relevant={"a": 1}, path="golden/g.yaml", line=4)
    settings = Settings(metrics=parse_metrics(["ndcg@10", "broken"]))
    record, ranking = score_query(query, "bm25", ["a", "b"], settings)
    assert (record.outcome, ranking) == ("error", ["a", "b"])
    assert record.metrics == {"ndcg@10": 0.0, "broken": 0.0}
    assert record.error is not None
    assert record.error.startswith("metric 'broken' (conftest.py:12) raised ZeroDivisionError")


# --------------------------------------------------------------------------- judgment keys


class Chunk:
    def __init__(self, id: str) -> None:
        self.id = id


class NoId:
    def __init__(self, clause: str) -> None:
        self.clause = clause


def clause(result: object) -> str | None:
    """doc#s@v -> doc#s; a NoId by its clause; anything else keeps its id."""
    if isinstance(result, NoId):
        return result.clause
    doc = result[0] if isinstance(result, tuple) else getattr(result, "id", result)
    return doc.rpartition("@")[0] or None if isinstance(doc, str) else None


def test_results_with_one_key_count_once_at_the_first_rank() -> None:
    returned = [("d1#s1@v2", 0.9), "d2", Chunk("d1#s1@v3"), "d2", "d1#s1@v2", "d1#s2@v1"]
    ranked = rank_results(returned, clause)
    assert ranked.ranking == ["d1#s1", "d2", "d1#s2"]
    assert (ranked.duplicates, ranked.merged) == (2, 1)  # d2 and d1#s1@v2 again; @v3 merged


def test_without_a_key_function_ids_are_keys() -> None:
    ranked = rank_results(["a@1", "a@2", "a@1"])
    assert (ranked.ranking, ranked.duplicates, ranked.merged) == (["a@1", "a@2"], 1, 0)


def test_a_result_without_an_id_may_be_read_by_the_key_function_alone() -> None:
    ranked = rank_results([NoId("d1#s1"), "d1#s1@v1", NoId("d1#s1")], clause)
    # results with no id of their own sharing a key are chunks of one document: merged
    assert (ranked.ranking, ranked.duplicates, ranked.merged) == (["d1#s1"], 0, 2)
    with pytest.raises(ResultShapeError, match="result at rank 1 is not an id"):
        rank_results([NoId("d1#s1")], lambda result: None)


def test_a_key_function_that_fails_is_a_result_shape_error_naming_it() -> None:
    def pytest_retrieval_result_key(result: object) -> str | None:
        return {"x": "y"}[str(result)]

    with pytest.raises(ResultShapeError) as info:
        rank_results(["d1"], pytest_retrieval_result_key)
    line = pytest_retrieval_result_key.__code__.co_firstlineno + 1
    assert str(info.value) == (
        "result at rank 1: pytest_retrieval_result_key raised KeyError: 'd1' "
        f"(at tests/test_metric_registry.py:{line}), for str 'd1'"
    )
    with pytest.raises(ResultShapeError) as info:
        rank_results(["d1", "d2"], lambda result: 7 if result == "d2" else None)  # type: ignore[arg-type, return-value]
    assert str(info.value) == (
        "result at rank 2: <lambda> returned int 7 for str 'd2'; return the judgment key as "
        "text, or None to keep the result's id"
    )
