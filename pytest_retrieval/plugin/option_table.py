"""The options and ini keys pytest registers for the plugin: GENERATED from the
settings schema (pytest_retrieval/settings.py) by ``python scripts/readme.py``;
do not edit (tests/test_architecture.py checks it is up to date).

Every pytest run of a project with the plugin installed imports the entry point;
this plain data is what it needs, without the schema's parsers (under
PYTHONDONTWRITEBYTECODE pytest compiles a plugin's modules afresh on each run).
"""

from __future__ import annotations

from typing import NamedTuple


class Declared(NamedTuple):
    """One setting as pytest registers it (ini None: an option only)."""

    name: str
    option: str | None
    action: str
    metavar: str | None
    ini: str | None
    help: str


# fmt: off
DECLARED: tuple[Declared, ...] = (
    Declared('retrieval_eval', '--retrieval-eval', 'store_true', None, None,
             'collect golden queries as items and evaluate the retriever fixture'),
    Declared('retrieval_report', '--retrieval-report', 'append', 'PATH', None,
             'write a report: .json, .md or .html by suffix (may repeat)'),
    Declared('retrieval_baseline', '--retrieval-baseline', 'store', 'PATH', 'string',
             "baseline file (the ini value relative to the rootdir, the option's to the "
             'current folder) (default: golden/baseline.json)'),
    Declared('retrieval_update_baseline', '--retrieval-update-baseline', 'store_true', None, None,
             "write this run's numbers to the baseline instead of gating"),
    Declared('retrieval_tolerance', '--retrieval-tolerance', 'store', 'X', 'args',
             'allowed drop before the gate fails: 0.02 (absolute), 2% (relative), per '
             'metric: 0.02 mrr=0.05 (default: 0.02)'),
    Declared('retrieval_diff', '--retrieval-diff', 'store', 'N', None,
             'queries shown per breached gate row (default: 5)'),
    Declared('retrieval_group_by', '--retrieval-group-by', 'append', 'SPEC', None,
             'add tables grouped by tags: tag:core,rolling (a row per listed tag) or tags '
             '(may repeat)'),
    Declared('retrieval_show', '--retrieval-show', 'append', 'ID', None,
             "print one query's ranked results with their grades and metrics, per "
             "configuration (an id or a glob such as 'para-*'; may repeat)"),
    Declared('retrieval_timeout', '--retrieval-timeout', 'store', 'DURATION', 'string',
             'how long a retriever call may take before its query is an error scoring 0: '
             'seconds, or with a unit (500ms, 2s); 0: no limit (default: 0)'),
    Declared('retrieval_items', '--retrieval-items', 'store', 'MODE', 'string',
             'what one item evaluates: query, category (one item per category of a file) '
             'or shard:N (N queries of a category each; what xdist distributes) (default: '
             'query)'),
    Declared('retrieval_record', '--retrieval-record', 'store', 'PATH', None,
             "write every configuration's results (ids, scores, latency, errors) to this "
             'recording as the run goes'),
    Declared('retrieval_replay', '--retrieval-replay', 'append', 'PATH', None,
             'evaluate a recording (or TREC run files) instead of calling the retriever; '
             'the fixture is not built (may repeat for several run files)'),
    Declared('retrieval_latency_budget', '--retrieval-latency-budget', 'store', 'LIMITS', 'args',
             'latency limits the gate enforces, per configuration if prefixed: p95=200ms '
             'max=2s dense:p95=300ms (statistics p50 p90 p95 p99 max mean) (default: none)'),
    Declared('retrieval_log', '--retrieval-log', 'store', 'PATH', 'string',
             'append one JSON line per run to this history file (the ini value relative to'
             " the rootdir, the option's to the current folder) (default: none)"),
    Declared('retrieval_label', '--retrieval-label', 'store', 'TEXT', None,
             'name of this run in the history log (e.g. nightly); the terminal compares '
             'with the previous run of the same label'),
    Declared('retrieval_golden', None, 'store', None, 'args',
             'golden files or folders, relative to the rootdir (default: golden)'),
    Declared('retrieval_fixture', None, 'store', None, 'string',
             'name of the retriever fixture (default: retriever)'),
    Declared('retrieval_metrics', None, 'store', None, 'args',
             'metrics to compute and show (default: ndcg@10 mrr recall@20)'),
    Declared('retrieval_gain', None, 'store', None, 'string',
             'nDCG gain: exponential (2^g-1) or linear (g, as trec_eval) (default: '
             'exponential)'),
    Declared('retrieval_relevance_threshold', None, 'store', None, 'string',
             'grade at which a result counts as relevant for the binary metrics (default: '
             '1)'),
    Declared('retrieval_max_grade', None, 'store', None, 'string',
             'highest grade allowed in golden files (at most 100) (default: 3)'),
    Declared('retrieval_empty', None, 'store', None, 'string',
             'scoring of queries with no relevant judgment: abstain, one, zero or skip '
             '(default: abstain)'),
    Declared('retrieval_gate_configurations', None, 'store', None, 'args',
             'configurations the gate compares (default: every configuration in the '
             'baseline)'),
    Declared('retrieval_gate_metrics', None, 'store', None, 'args',
             'metrics the gate compares (default: every metric)'),
    Declared('retrieval_gate_scope', None, 'store', None, 'string',
             'category (all and every category) or all (the overall row only) (default: '
             'category)'),
    Declared('retrieval_gate_mode', None, 'store', None, 'string',
             'absolute; significant (a drop must also be significant after Holm '
             'correction); or report (compute and print everything, never fail the run) '
             '(default: absolute)'),
    Declared('retrieval_seed', None, 'store', None, 'string',
             'seed of bootstrap and randomization tests (default: 1)'),
    Declared('retrieval_bootstrap', None, 'store', None, 'string',
             'bootstrap resamples (0: normal intervals) (default: 10000)'),
    Declared('retrieval_reference', None, 'store', None, 'string',
             'configuration the others are compared with (default: the first '
             'configuration)'),
    Declared('retrieval_alpha', None, 'store', None, 'string',
             'significance level after Holm correction (default: 0.05)'),
    Declared('retrieval_min_queries', None, 'store', None, 'string',
             'categories with fewer queries get a noise warning (default: 30)'),
    Declared('retrieval_weights', None, 'store', None, 'args',
             "traffic weights per category for an 'all (weighted)' row: exact-name=0.4 ..."
             ' (default: none)'),
    Declared('retrieval_repeat', None, 'store', None, 'string',
             'run each query N times and name the queries whose rankings differ (metrics '
             'use the first run) (default: 1)'),
    Declared('retrieval_batch_size', None, 'store', None, 'string',
             'queries per call of a batch retriever (retrieve_batch), fetched ahead of '
             'their items (default: 64)'),
    Declared('retrieval_concurrency', None, 'store', None, 'string',
             'calls of an async retriever in flight at once (default: 16)'),
    Declared('retrieval_github', None, 'store', None, 'string',
             'under GitHub Actions: append the Markdown summary to $GITHUB_STEP_SUMMARY '
             "and print ::error annotations at the golden file's line (false turns both "
             'off) (default: true)'),
)
# fmt: on
