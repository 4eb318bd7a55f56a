"""Advice that helps read the numbers: noisy slices, saturated metrics, suspicious recall.

Pure: takes summaries, intervals and comparisons, returns :class:`Advice`. The plugin
issues each one as a warning of its class, so ``-W ignore::pytest_retrieval.RetrievalWarning``
or ``filterwarnings`` silence it, ``-W error::...`` turns it into a failure, and it shows
in pytest's warnings summary.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .aggregate import ConfigurationSummary
from .comparisons import Comparisons
from .io.common import counted, did_you_mean, some_ids
from .metrics import Metric, parse_metric
from .model import ALL, QueryRecord, by_category
from .quoting import quoted
from .settings import GroupBy
from .stats import Interval

OVERLAP_RECALL = 0.95
OVERLAP_MIN_QUERIES = 10  # on fewer, a recall of 1.0 says nothing about leaks
OVERLAP_MAX_CUT = 100  # deeper, a good ranking's recall is that high anyway (recall@1000)


class RetrievalWarning(UserWarning):
    """Advice from pytest-retrieval about how far its numbers can be trusted."""


class RetrievalNoiseWarning(RetrievalWarning):
    """A slice with few queries: differences under its interval are noise."""


class RetrievalSaturationWarning(RetrievalWarning):
    """A slice where every query scores 1.0: it can never show an improvement."""


class RetrievalOverlapWarning(RetrievalWarning):
    """A recall so high that the golden set may leak into the index."""


class RetrievalSettingsWarning(RetrievalWarning):
    """A setting that names nothing in the run, or configurations named by position."""


class RetrievalReproducibilityWarning(RetrievalWarning):
    """Queries whose rankings differ when run again (``retrieval_repeat``)."""


class RetrievalGoldenWarning(RetrievalWarning):
    """Golden files that load but are likely a mistake (ids equal but for letter case), or
    results whose ids no judgment names."""


class RetrievalLogWarning(RetrievalWarning):
    """A line of the history log that could not be read (a torn line from a killed run)."""


@dataclass(frozen=True)
class Advice:
    """One piece of advice: its warning class, its text, and the category it is about."""

    kind: type[RetrievalWarning]
    text: str
    category: str | None = None
    at_fixture: bool = False  # about the retriever fixture: shown where it is defined
    query: tuple[str, str] | None = None  # about one query: shown at it (its file, its id)
    setting: str | None = None  # about an ini key: shown at its line when the ini file has it
    # one category's part of a warning over several (:func:`merged_advice`): what that
    # warning begins with, the category, and what it says of it
    merged: tuple[str, str, str] | None = None

    def __str__(self) -> str:
        return self.text


MERGED_FROM = 3  # this many categories' advice of one kind or more: one warning


def merged_advice(advice: Sequence[Advice], at_least: int = MERGED_FROM) -> list[Advice]:
    """The advice as a terminal shows it by default: the per-category advice of one kind
    (small categories, saturated ones) in one warning naming each category, when
    ``at_least`` categories have it; a first run over a few queries per category got two
    warnings per category, forty lines. Advice without a merged form stays whole (a small
    category whose difference is significant all the same says why)."""
    groups: dict[tuple[type[RetrievalWarning], str], list[Advice]] = {}
    for piece in advice:
        if piece.merged is not None:
            groups.setdefault((piece.kind, piece.merged[0]), []).append(piece)
    out: list[Advice] = []
    for piece in advice:
        group = groups.get((piece.kind, piece.merged[0])) if piece.merged else None
        if group is None or len(group) < at_least:
            out.append(piece)
        elif piece is group[0]:
            out.append(Advice(piece.kind, _merged_text([g.merged for g in group if g.merged])))
    return out


def _merged_text(parts: Sequence[tuple[str, str, str]]) -> str:
    """One warning over the categories' parts: what each says beside it, or once when
    it says the same of every one."""
    head = f"{len(parts)} {parts[0][0]}"
    details = {detail for _, _, detail in parts}
    if len(details) == 1:
        return f"{head}: {', '.join(c for _, c, _ in parts)} (each: {details.pop()})"
    return f"{head}: {', '.join(f'{c} ({detail})' for _, c, detail in parts)}"


def _paired_half_widths(comparisons: Comparisons | None) -> dict[str, float]:
    """Per category, the widest paired interval of a difference with the reference."""
    widest: dict[str, float] = {}
    for row in comparisons.rows if comparisons is not None else ():
        if row.ci is not None:
            half = (row.ci[1] - row.ci[0]) / 2
            widest[row.category] = max(widest.get(row.category, 0.0), half)
    return widest


def _moved_categories(comparisons: Comparisons | None) -> set[str]:
    """The categories where some configuration's value differs from the reference's on
    some query (a paired interval of no width then means the same difference on each)."""
    rows = comparisons.rows if comparisons is not None else ()
    return {row.category for row in rows if row.wins or row.losses}


def _no_width(compared: bool, moved: bool) -> str:
    """Why a small category's interval has no width: one mean over equal values, or
    paired differences that are all 0, or all one same amount (every query of it lost by
    one configuration that errored, say: those do not score alike)."""
    if not compared:
        return "its queries score alike, so its mean has no interval"
    if not moved:
        return "the configurations score its queries alike, so their differences have no interval"
    return (
        "the configurations differ by the same amount on each of its queries, so their "
        "differences have no interval"
    )


def _small_categories(
    summaries: Mapping[str, ConfigurationSummary],
    intervals: Mapping[str, Mapping[str, Mapping[str, Interval]]],
    min_queries: int,
) -> dict[str, tuple[int, float]]:
    """category -> (n, widest half-width of one mean) for categories under min_queries."""
    widest: dict[str, tuple[int, float]] = {}
    for configuration, summary in summaries.items():
        for category, row in summary.categories.items():
            if row.n >= min_queries or row.n == 0:  # n = 0: every item skipped, no numbers
                continue
            cells = intervals.get(configuration, {}).get(category, {}).values()
            half = max((iv.half_width for iv in cells), default=0.0)
            n, before = widest.get(category, (row.n, 0.0))
            widest[category] = (max(n, row.n), max(before, half))
    return widest


def _significant_under(comparisons: Comparisons | None, category: str, limit: float) -> str:
    """The paired comparisons of the category marked significant (``*``) though under the
    noise limit the warning gives: so the warning and the table do not read as a
    contradiction (a small difference found on every query is significant all the same)."""
    rows = [
        r
        for r in (comparisons.rows if comparisons is not None else ())
        if r.category == category and r.significant and abs(r.delta) < limit
    ]
    if not rows:
        return ""
    first = rows[0]
    more = f" and {len(rows) - 1} more" if len(rows) > 1 else ""
    return (
        f", unless marked *: {first.configuration} {first.metric} {first.delta:+.3f}{more} "
        f"{'is' if len(rows) == 1 else 'are'} significant all the same (consistent across "
        "its queries)"
    )


def noise_warnings(
    summaries: Mapping[str, ConfigurationSummary],
    intervals: Mapping[str, Mapping[str, Mapping[str, Interval]]],
    min_queries: int,
    comparisons: Comparisons | None = None,
    errored: Sequence[str] = (),
) -> list[Advice]:
    """Categories with fewer than ``min_queries`` queries, and the difference that is noise.

    None for the ``errored`` categories (every query an error in every configuration:
    its zeros say nothing of noise, and the errors are named already).

    With a comparison, the width that matters is that of the paired difference between
    configurations on the same queries; with one configuration, that of one mean. Never
    less than 1/n: two configurations that score nearly alike on a few queries have a
    narrow paired interval, yet one query can move a mean by up to 1/n.
    """
    paired = _paired_half_widths(comparisons)
    moved = _moved_categories(comparisons)
    out = []
    for category, (n, half) in sorted(_small_categories(summaries, intervals, min_queries).items()):
        if category in errored:
            continue
        half = paired.get(category, half)
        if n < 2:
            text = f"{category}: n={n}: a single query gives no interval and no evidence"
            brief: str | None = "n=1: no interval"
        elif half > 0:  # never under 1/n: one query can move a mean by that much
            what = "differences between configurations" if category in paired else "differences"
            limit = max(half, 1 / n)
            text = f"{category}: n={n}: {what} under ±{limit:.2f} are noise here"
            significant = _significant_under(comparisons, category, limit)
            text += significant
            brief = None if significant else f"n={n}: ±{limit:.2f}"
        else:  # every query scores alike (or differs alike): the interval has no width
            what = _no_width(category in paired, category in moved)
            text = f"{category}: n={n}: {what}, yet one query moves a mean by up to {1 / n:.2f}"
            brief = f"n={n}: scored alike, one query moves a mean {1 / n:.2f}"
        full = f"{text} (fewer than retrieval_min_queries = {min_queries} queries; add queries)"
        merged = None if brief is None else (_noise_head(min_queries), category, brief)
        out.append(Advice(RetrievalNoiseWarning, full, category, merged=merged))
    return out


def _noise_head(min_queries: int) -> str:
    return (
        f"categories have fewer than retrieval_min_queries = {min_queries} queries: a "
        "difference under the amount beside each is noise (add queries; -v gives each its "
        "own warning)"
    )


def gain_warnings(metrics: Sequence[Metric], gain: str, max_grade: int) -> list[Advice]:
    """nDCG written as ir_measures writes it (``nDCG@10``) under exponential gain:
    ir_measures' nDCG (trec_eval's) has linear gain, so on grades above 1 the numbers
    differ, under the name that promised them."""
    spelled = [m for m in metrics if m.base == "ndcg" and m.written.startswith("nDCG")]
    if gain != "exponential" or max_grade < 2 or not spelled:
        return []
    text = (
        f"retrieval_metrics writes {', '.join(m.written for m in spelled)} as ir_measures "
        "does, whose nDCG has linear gain (trec_eval's); this run's is exponential "
        "(2^grade - 1, retrieval_gain's default), so on grades above 1 its nDCG is not "
        "ir_measures': set retrieval_gain = linear for ir_measures' numbers, or write "
        f"{', '.join(m.name for m in spelled)} to keep exponential gain"
    )
    return [Advice(RetrievalSettingsWarning, text, setting="retrieval_metrics")]


def errored_categories(records: Mapping[str, Sequence[QueryRecord]]) -> list[str]:
    """The categories every evaluated query of which errored, in every configuration."""
    every = {r.category for recs in records.values() for r in recs if r.evaluated}
    answered = {
        r.category
        for recs in records.values()
        for r in recs
        if r.outcome not in ("error", "skipped")
    }
    return sorted(every - answered)


def settings_warnings(
    configurations: Sequence[str],
    categories: Sequence[str],
    reference: str | None,
    weights: Mapping[str, float],
) -> list[Advice]:
    """Settings that name a configuration or category this run does not have."""
    out = []
    if reference is not None and configurations and reference not in configurations:
        out.append(
            Advice(
                RetrievalSettingsWarning,
                f"retrieval_reference names {quoted(reference)}, which is not among the "
                f"configurations run ({', '.join(configurations)}): compared with "
                f"'{configurations[0]}' instead",
                setting="retrieval_reference",
            )
        )
    unknown = sorted(c for c in weights if c not in categories)
    if unknown:
        listed = f"categories: {', '.join(categories)}"
        out.append(_names_unknown("retrieval_weights", unknown, categories, listed))
    return out


def _names_unknown(
    setting: str, unknown: Sequence[str], known: Sequence[str], listed: str
) -> Advice:
    """A setting naming what no evaluated query has (a typo): each with its closest
    known name, then what the run has (``listed``)."""
    named = ", ".join(name + did_you_mean(name, known) for name in unknown)
    return Advice(
        RetrievalSettingsWarning,
        f"{setting} names {named}, which no evaluated query has ({listed}); check the spelling",
        setting=setting if setting.startswith("retrieval_") else None,  # an ini key
    )


_NO_TAGS = (
    "--retrieval-group-by tags: no evaluated query has a tag, so its tables have no row; "
    "give the golden queries tags (tags: [core]), or leave the option out"
)


def group_by_warnings(groups: Sequence[GroupBy], tags: Sequence[str]) -> list[Advice]:
    """A ``--retrieval-group-by tag:...`` naming a tag no query has (a typo): its table
    would show every query under '(none of them)', as if none had the tag meant; and
    ``tags`` when no query has a tag (a table with no row)."""
    out = []
    if not tags and any(not group.tags for group in groups):  # a row per tag: none
        out.append(Advice(RetrievalSettingsWarning, _NO_TAGS))
    for group in groups:
        unknown = [t for t in group.tags if t not in tags]
        if unknown:
            setting = f"--retrieval-group-by tag:{','.join(group.tags)}"
            listed = f"tags: {', '.join(tags) or 'none'}"
            out.append(_names_unknown(setting, unknown, tags, listed))
    return out


def saturation_warnings(
    records: Mapping[str, Sequence[QueryRecord]], metrics: Sequence[str]
) -> list[Advice]:
    """A category where every query scores 1.0 on a metric can never show an improvement.

    One piece of advice per saturated category (placed at its golden file, where harder
    queries go), naming each configuration saturated there and on which metrics.
    ``judged@k`` is left out: a coverage measure, whose 1.0 (every result judged) is
    the aim, not a ceiling that hides an improvement.
    """
    quality = [m for m in metrics if parse_metric(m).base != "judged"]
    found: dict[str, list[tuple[str, list[str]]]] = {}
    for configuration, recs in records.items():
        for category, group in by_category([r for r in recs if r.evaluated]).items():
            saturated = [m for m in quality if all(r.metrics.get(m) == 1.0 for r in group)]
            if saturated:
                found.setdefault(category, []).append((configuration, saturated))
    return [
        Advice(
            RetrievalSaturationWarning,
            f"{category}: every query scores 1.0 with "
            + ", ".join(f"{name} ({', '.join(on)})" for name, on in named)
            + ": saturated, these can catch a drop but never show an improvement; add "
            "harder queries",
            category,
            merged=(_SATURATED_HEAD, category, _alike_joined(named)),
        )
        for category, named in sorted(found.items())
    ]


_SATURATED_HEAD = (
    "categories score 1.0 on every query (saturated: they can catch a drop but never show "
    "an improvement; add harder queries; -v gives each its own warning)"
)


def _alike_joined(named: Sequence[tuple[str, list[str]]]) -> str:
    """The saturated configurations and metrics of one category: ``bm25, dense on mrr,
    ndcg@10`` when each is saturated on the same metrics, else each with its own."""
    if len({tuple(on) for _, on in named}) == 1:
        return f"{', '.join(name for name, _ in named)} on {', '.join(named[0][1])}"
    return "; ".join(f"{name} on {', '.join(on)}" for name, on in named)


def overlap_warnings(summaries: Mapping[str, ConfigurationSummary]) -> list[Advice]:
    """A mean recall above 0.95 over at least ten queries often means the golden set leaks
    into the index. Only at a cut of at most 100: a leaked document ranks first, and a
    deep cut is reached by honest systems (recall@1000 of BM25 on Cranfield's 1,400
    documents is 0.96, of dense retrievers on MS MARCO about 0.98)."""
    out = []
    for configuration, summary in summaries.items():
        if summary.all.n < OVERLAP_MIN_QUERIES:  # one query selected by -k, say
            continue
        for metric, value in summary.all.values.items():
            parsed = parse_metric(metric)
            if parsed.base != "recall" or (parsed.k or 0) > OVERLAP_MAX_CUT or value is None:
                continue
            if value > OVERLAP_RECALL:
                out.append(
                    Advice(
                        RetrievalOverlapWarning,
                        f"{configuration}: {metric} = {value:.3f} ({ALL}) is suspiciously high: "
                        "check that golden queries do not overlap the index (text copied from "
                        "documents, queries generated from them)",
                    )
                )
    return out


def positional_names(configurations: Sequence[str], fixture: str) -> list[Advice]:
    """Configurations named ``retriever0``, ``retriever1``: pytest's ids for params that are
    not text. Reordering the params then silently swaps their baselines."""
    positional = [
        c for c in configurations if c.startswith(fixture) and c[len(fixture) :].isdigit()
    ]
    if not positional:
        return []
    return [
        Advice(
            RetrievalSettingsWarning,
            f"configurations {', '.join(positional)} are named by their position among the "
            f"'{fixture}' fixture's params: reordering the params would swap their baselines. "
            f"Give each a name: @pytest.fixture(params=[...], ids=['bm25', 'dense'])",
            at_fixture=True,
        )
    ]


def unmatched_ids_warnings(records: Mapping[str, Sequence[QueryRecord]]) -> list[Advice]:
    """A configuration none of whose results is an id the golden files judge, over every
    query that judges some: its ids and the golden files' do not match (a prefix,
    another id field, a number written otherwise), and every metric is 0, silently."""
    out = []
    for configuration, recs in records.items():
        answered = [r for r in recs if r.judged and r.retrieved]
        if not answered or any(r.grades for r in answered):
            continue
        if _ids_shared(configuration, answered, records):
            continue
        ids = list(dict.fromkeys(d for r in answered[:20] for d in r.retrieved[:2]))[:3]
        text = (
            f"{configuration}: none of the results of its {len(answered)} answered "
            f"{'query' if len(answered) == 1 else 'queries'} with judgments is an id the "
            f"golden files judge (it returned {', '.join(quoted(d) for d in ids)}, ...), so "
            "every metric is 0: check that the retriever returns the ids the golden files "
            "use (no prefix, the same id field; or map them with the "
            "pytest_retrieval_result_key hook); if it does, it found nothing judged for any "
            "of these queries"
        )
        out.append(Advice(RetrievalGoldenWarning, text, answered[0].category))
    return out


def _ids_shared(
    configuration: str,
    answered: Sequence[QueryRecord],
    records: Mapping[str, Sequence[QueryRecord]],
) -> bool:
    """Whether another configuration, one whose results include judged ids, returned one
    of this configuration's results: then both write ids as the golden files do, and this
    one just found nothing judged for these queries (BM25 on paraphrases under ``-k``)."""
    mine = {d for r in answered for d in r.retrieved}
    return any(
        d in mine
        for other, recs in records.items()
        if other != configuration
        for r in recs
        if r.grades
        for d in r.retrieved
    )


TYPO_QUERIES_SHOWN = 5  # queries warned of one by one; the rest in one more warning


def _typos(records: Mapping[str, Sequence[QueryRecord]]) -> dict[str, dict[str, str]]:
    """query id -> {judged id: the result near it}, for the judged ids that look
    mistyped: near a result, and retrieved by no configuration (then it is no typo)."""
    retrieved: dict[str, set[str]] = {}
    near: dict[str, dict[str, str]] = {}
    for recs in records.values():
        for record in recs:
            if record.grades:
                found = retrieved.setdefault(record.id, set())
                found.update(d for d, grade in record.grades.items() if grade > 0)
            for judged, result in record.near_misses:
                near.setdefault(record.id, {}).setdefault(judged, result)
    typos = {
        qid: {j: r for j, r in pairs.items() if j not in retrieved.get(qid, ())}
        for qid, pairs in near.items()
    }
    return {qid: pairs for qid, pairs in sorted(typos.items()) if pairs}


def typo_warnings(records: Mapping[str, Sequence[QueryRecord]]) -> list[Advice]:
    """Queries that judge an id which looks mistyped (``judged_typos``): it scores 0
    whatever the retriever does, and nothing else would say why."""
    typos = _typos(records)
    paths = {r.id: r.path for recs in records.values() for r in recs if r.id in typos}
    out = []
    for qid, pairs in list(typos.items())[:TYPO_QUERIES_SHOWN]:
        judged = ", ".join(
            f"{quoted(j)}, which no configuration retrieved, while {quoted(r)} came back"
            for j, r in pairs.items()
        )
        text = (
            f"query {quoted(qid)} judges {judged}: a typo in the golden file? Correct the id "
            "(pytest-retrieval validate --corpus FILE checks every judged id against a list "
            "of your corpus's ids)"
        )
        out.append(Advice(RetrievalGoldenWarning, text, query=(paths[qid], qid)))
    more = list(typos)[TYPO_QUERIES_SHOWN:]
    if more:
        text = (
            f"{counted(len(more), 'more query', 'more queries')} "
            f"{'judges' if len(more) == 1 else 'judge'} ids that look mistyped "
            f"(near a result, retrieved by no configuration): {some_ids(more, 10)}; "
            "pytest-retrieval validate --corpus FILE checks every judged id"
        )
        out.append(Advice(RetrievalGoldenWarning, text))
    return out


_KEYWORD_WORD = re.compile(r"[\w:+\-.\[\]\\/]+")  # what -k reads as one word (pytest's)


_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")


def _escaped_id(name: str) -> str | None:
    """Advice for a configuration named by pytest's escaped form of a non-ASCII param id
    (``params=["café"]`` is ``caf\\xe9`` in item ids, so in every table and file)."""
    if not _ESCAPE.search(name):
        return None
    meant = _ESCAPE.sub(lambda m: chr(int(m.group(1)[1:], 16)), name)
    fixed = re.sub(
        r"[^\w:+\-.]+", "-", unicodedata.normalize("NFKD", meant).encode("ascii", "ignore").decode()
    ).strip("-")
    return (
        f"configuration {quoted(name)} is the param id {quoted(meant)} as pytest writes "
        "it (it escapes every character outside ASCII), so the tables, reports, baseline "
        f"and -k all name it {name}: give the fixture's param an ASCII id, "
        f"ids=[{(fixed or 'name')!r}, ...]"
    )


def unselectable_names(configurations: Sequence[str]) -> list[Advice]:
    """Configurations whose names -k cannot give as one word (a space, a comma): they are
    selected only by their parts, and other tools take the name apart too."""
    out = []
    for name in configurations:
        escaped = _escaped_id(name)
        if escaped is not None:
            out.append(Advice(RetrievalSettingsWarning, escaped))
        if _KEYWORD_WORD.fullmatch(name):
            continue
        if not name:
            text = (
                "configuration '' has an empty name (the retriever fixture's param id is an "
                "empty string): no -k selects it, and its rows are labelled with nothing; "
                "give the fixture's param a name, ids=['bm25', ...]"
            )
            out.append(Advice(RetrievalSettingsWarning, text))
            continue
        odd = sorted({c for c in name if not _KEYWORD_WORD.fullmatch(c)})
        parts = [p for p in re.split(r"[^\w:+\-.\[\]\\/]+", name) if p]
        select = f'-k "{" and ".join(parts)}"' if parts else "no -k"
        shown = ", ".join("a space" if c == " " else repr(c) for c in odd)
        fixed = re.sub(r"[^\w:+\-.\[\]\\/]+", "-", name).strip("-") or "name"
        out.append(
            Advice(
                RetrievalSettingsWarning,
                f"configuration {quoted(name)} holds {shown}, which -k cannot take in one word "
                f"({select} selects it, and whatever else holds those parts): give the "
                f"fixture's param an id without it, ids=[{fixed!r}, ...]",
            )
        )
    return out


def _how_differs(record: QueryRecord) -> str:
    """How a query's repeated rankings differ: in order only (the same results in the
    top k, the overlap of sets then 1.00), or in what came back."""
    overlap = record.repeat_overlap or 0.0
    if overlap >= 1.0:
        return "the same top-k results, in another order"
    return f"top-k overlap {overlap:.2f}"


def reproducibility_warnings(records: Mapping[str, Sequence[QueryRecord]]) -> list[Advice]:
    """Queries that ranked differently when run again: their numbers are not reproducible."""
    out = []
    for configuration, recs in records.items():
        differ = [r for r in recs if not r.repeat_same]
        if not differ:
            continue
        named = ", ".join(f"{r.id} ({_how_differs(r)})" for r in differ[:10])
        more = f" and {len(differ) - 10} more" if len(differ) > 10 else ""
        text = (
            f"{configuration}: {len(differ)} of {len(recs)} queries ranked differently when "
            f"run again (retrieval_repeat): {named}{more}; their metrics use the first run. "
            "Make the retriever deterministic (a seed, a fixed index) before trusting them"
        )
        out.append(Advice(RetrievalReproducibilityWarning, text, differ[0].category))
    return out
