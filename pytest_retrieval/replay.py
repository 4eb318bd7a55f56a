"""Replay (``--retrieval-replay``): answers read from a recording or TREC run files.

Pure apart from reading the files (and writing the copy handed to xdist's workers).
The configurations are the recording's (or the run files' tags). A query the
recording does not hold, or holds for another text or other filters, is an error
naming it: its results would not be this query's. A TREC run cannot say "nothing
came back" but by leaving a query out, so there a query it lacks has an empty
ranking (as ``trec_eval -c`` scores it), and the run's queries that are not golden
queries are ignored.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .golden import GoldenQuery, Problem
from .io.common import (
    BOM,
    FormatError,
    alike_ids,
    compressed_as,
    counted,
    did_you_mean_file,
    exists,
    json_object_head,
    queries_of,
    queries_over,
    some_ids,
)
from .io.file_kinds import (
    OWN_KINDS,
    RECORDING_KIND,
    TREC_QRELS,
    head_fields,
    own_file_kind,
    trec_kind_of_fields,
)
from .io.recording import (
    Recorded,
    RecordedResult,
    Recording,
    ResultColumns,
    filters_as_recorded,
    is_recording,
    read_recording,
)
from .io.trec import REORDERED, REORDERED_BRIEF, Ranking, Run, read_run
from .quoting import SHOWN, query_text, quoted
from .retriever_metadata import Metadata
from .runner import RECORDED_PREFIX, Answer
from .shapes import CheckedIds, ReplayedResult, ResultKey


class ReplayError(ValueError):
    """Files that cannot be replayed; the message names them and why."""


@dataclass(frozen=True)
class Replay:
    """Every configuration's recorded answers."""

    entries: Mapping[str, Mapping[str, Recorded]]
    source: str  # the file(s), as shown in messages
    trec: bool = False  # TREC runs: a missing query returned nothing
    complete: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)
    retrievers: Mapping[str, Metadata] = field(default_factory=dict)  # as recorded
    runs: Mapping[str, Mapping[str, Ranking]] = field(default_factory=dict)  # TREC runs
    reordered: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # TREC: see Run
    sources: Mapping[str, str] = field(default_factory=dict)  # TREC: configuration -> its file
    keyed: bool = False  # some recorded results hold the key the result-key hook gave

    @property
    def configurations(self) -> list[str]:
        return list(self.runs if self.trec else self.entries)

    def answer(self, configuration: str, query: GoldenQuery) -> Answer:
        if self.trec:  # a run holds no timings, texts or errors
            ranking = self.runs.get(configuration, {}).get(query.id)
            if ranking is None:
                return Answer([], latency=None, scores=())
            # the reader refused repeated or empty ids: not checked again
            return Answer(CheckedIds(ranking.docs), latency=None, scores=ranking.scores)
        found = self.entries.get(configuration, {}).get(query.id)
        if found is None:
            return Answer(error=f"{_MISSING} {self.source}; record again (--retrieval-record)")
        stale = _stale(found, query)
        if stale:
            return Answer(
                error=f"the recording {self.source} {_STALE} {stale}: its results "
                "are not this query's; record again (--retrieval-record)"
            )
        latency = None if found.latency_ms is None else found.latency_ms / 1000
        if found.error is not None:
            error = f"{RECORDED_PREFIX}{found.error}"  # a batch's share, as recorded
            return Answer(error=error, latency=latency, shared=found.shared)
        return Answer(_replayed(found), latency=latency, shared=found.shared)


def _replayed(found: Recorded) -> list[object]:
    """A recorded answer, as the replay hands it on (and the result-key hook gets it):
    ids when the retriever gave no scores, else (id, score) pairs; a result the hook
    gave a key as a :class:`ReplayedResult`, judged by that key."""
    results = found.results
    if found.keyed:
        return [_keyed(r) for r in results]
    if isinstance(results, ResultColumns):  # as the reader holds them
        return results.as_given()
    if results and all(r[1] is None for r in results):
        return [r[0] for r in results]
    return list(map(tuple, results))  # plain (id, score) pairs, read fast


def _keyed(result: RecordedResult) -> object:
    if len(result) == 3:
        return ReplayedResult(*result)
    return result[0] if result[1] is None else result


def replayed_key(key: ResultKey | None) -> ResultKey:
    """The judgment key of a replayed result: the key recorded with it, when the hook
    gave one as the run was recorded (not asked again: what it read, such as a chunk's
    metadata, is not in the recording); for any other result, what the hook says now."""

    def judged(result: object) -> str | None:
        if isinstance(result, ReplayedResult):
            return result.key
        return None if key is None else key(result)

    judged.__name__ = getattr(key, "__name__", "pytest_retrieval_result_key")
    return judged


_MISSING = "not in the recording"  # the two errors of a replayed query, counted below
_STALE = "holds this query with"


def _scored(count: int) -> str:
    return "scored as an error" if count == 1 else "scored as errors"


ErrorOf = tuple[str, str, str]  # (configuration, query id, error)


def recording_notes(replay: Replay, errors: Sequence[ErrorOf], coarse: bool = False) -> list[str]:
    """A line each for the queries a recording lacks and those it holds for another text
    or other filters (from the queries' errors): with a changed golden set these are many
    items, and the summary says what they have in common. Nothing for a TREC run.
    ``coarse``: an item holds a category or shard of queries, so these are counted as
    queries (one in two configurations once), not items."""
    if replay.trec:
        return []
    missing = [(c, q) for c, q, error in errors if _MISSING in error]
    stale = [(c, q) for c, q, error in errors if _STALE in error]
    notes = []
    if stale:
        notes.append(
            f"replay: {_items(stale, coarse)} the recording {replay.source} holds for another "
            "text or other filters (the golden set changed since it was recorded), "
            f"{_scored(len(stale))}; record again (--retrieval-record)"
        )
    if missing:
        select = "--retrieval-items=query and -k" if coarse else "-k"  # -k selects no query id
        notes.append(
            f"replay: {_items(missing, coarse)} the recording {replay.source} does not hold, "
            f"{_scored(len(missing))}; record again (--retrieval-record), or replay with "
            f"{select} to leave {'it' if len(missing) == 1 else 'them'} out"
        )
    return notes


def _items(pairs: Sequence[tuple[str, str]], coarse: bool) -> str:
    if coarse:
        count, queries = queries_over(pairs)
        return f"{queries} {'is one' if count == 1 else 'are ones'}"
    return "1 item is a query" if len(pairs) == 1 else f"{len(pairs)} items are queries"


def write_shared(replay: Replay, path: Path) -> None:
    """The replay as read, for the other processes of this run (xdist's workers): they
    load it in a second or two instead of reading the files again. ``path`` is in a
    folder of this process's own; the file is complete before any worker starts."""
    with path.open("wb") as out:
        pickle.dump(replay, out, protocol=pickle.HIGHEST_PROTOCOL)


def read_shared(path: Path) -> Replay | None:
    """A replay :func:`write_shared` wrote; None when it cannot be had (a worker on
    another machine, a folder already removed): the worker then reads the files."""
    try:
        with path.open("rb") as handle:
            found = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None
    return found if isinstance(found, Replay) else None


def _stale(found: Recorded, query: GoldenQuery) -> str:
    """How the recorded query differs from the golden one ("" when it does not)."""
    if found.text and found.text != query.text:
        return f"another text ({query_text(found.text)})"
    if _as_json(found.filters) != _as_json(filters_as_recorded(query.filters)):
        return f"other filters ({dict(found.filters)!r})"
    return ""


def _as_json(filters: Mapping[str, object]) -> str:
    """Filters as JSON text, keys sorted: compared so, ``true`` is not ``1`` (as Python's
    ``True == 1`` has it), nor ``1`` ``1.0``; a retriever may tell them apart."""
    return json.dumps(dict(filters), sort_keys=True)


def _named_runs(runs: Mapping[tuple[Path, str], tuple[Run, str]]) -> dict[str, tuple[Run, str]]:
    """Each run by its configuration's name: its tag, or file stem and tag for a tag that
    two files hold; two runs that would share a name (files named alike in two folders)
    are refused, as one would replace the other."""
    tags = [tag for _, tag in runs]
    named: dict[str, tuple[Run, str]] = {}
    for (path, tag), found in runs.items():
        name = tag if tags.count(tag) == 1 else f"{path.stem}-{tag}"
        if name in named:
            raise ReplayError(
                f"--retrieval-replay: {named[name][1]} and {found[1]} would both give the "
                f"configuration '{name}' (run tag '{tag}'); rename one of the files"
            )
        named[name] = found
    return named


def _from_trec(paths: Sequence[Path], shown: Sequence[str]) -> Replay:
    runs: dict[tuple[Path, str], tuple[Run, str]] = {}
    problems: list[Problem] = []  # every bad file's, not only the first one's
    more = 0
    for path, name in zip(paths, shown, strict=True):
        try:
            read = read_run(path, shown=name)
        except FormatError as exc:
            problems += exc.problems
            more += exc.more
            continue
        for tag, run in read.items():
            runs[(path, tag)] = (run, name)
    if problems or more:
        raise FormatError(problems, more)
    named = _named_runs(runs)
    return Replay(
        {}, ", ".join(shown), trec=True, runs={c: run.columns for c, (run, _) in named.items()},
        sources={c: name for c, (_, name) in named.items()},
        reordered={c: run.reordered for c, (run, _) in named.items() if run.reordered},
    )  # fmt: skip


def load_replay(paths: Sequence[Path], shown: Sequence[str]) -> Replay:
    """One recording, or any number of TREC run files; :class:`ReplayError` says why not."""
    _refuse_what_is_no_run(paths, shown)
    kinds = [is_recording(p) for p in paths]
    try:
        if any(kinds):
            if len(paths) > 1:
                raise ReplayError(
                    "--retrieval-replay: give one recording, or TREC run files only "
                    f"(got {', '.join(shown)})"
                )
            return _from_recording(read_recording(paths[0], shown[0]), shown[0])
        return _from_trec(paths, shown)
    except FormatError as exc:
        raise ReplayError(f"--retrieval-replay: cannot read it:\n{exc}") from None


def _plugin_file_kind(path: Path) -> str | None:
    """What the file is when it is one of the plugin's own files but a recording (given
    where a recording or a run belongs), a golden file (read as a run, every line of it a
    problem), another JSON file; else None."""
    kind = own_file_kind(path)
    if kind is not None:
        return None if kind == RECORDING_KIND else kind
    if path.suffix.lower() in (".yaml", ".yml"):
        return "golden file"
    if path.suffix.lower() == ".jsonl" and _blank(path):  # was read as a TREC run
        return "blank file (a recording's first line is its header: was it emptied?)"
    head = json_object_head(path)
    if head is None:
        return _TEXT_NOT_JSONL if _text_named_jsonl(path) else None
    first = head.split(b"\n", 1)[0]
    try:  # JSON where a TREC run's first line belongs
        data = json.loads(first)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    if "configuration" in data and "id" in data:
        return "recording without its first (header) line"
    if ("query" in data and "relevant" in data) or list(data) == ["defaults"]:
        return "golden file"  # a .jsonl one
    return "JSON file"


_TEXT_NOT_JSONL = "plain text file (its lines are not JSON, nor a run's six fields)"


def _text_named_jsonl(path: Path) -> bool:
    """A ``.jsonl`` file whose first line is neither JSON nor a run line (six fields):
    plain text, that was read as a TREC run with a problem on every line."""
    if path.suffix.lower() != ".jsonl":
        return False
    try:
        with path.open("rb") as handle:
            lines = handle.read(4096).removeprefix(BOM).splitlines()
    except OSError:
        return False
    first = next((line.strip() for line in lines if line.strip()), b"")
    if compressed_as(first) is not None:
        return False  # the run reader says so, with the command that decompresses it
    return not first.startswith((b"{", b"[")) and len(first.split()) != 6


def _blank(path: Path) -> bool:
    """Whether the file holds nothing but white space (read up to its first 4 KiB)."""
    try:
        with path.open("rb") as handle:
            return not handle.read(4096).strip()
    except OSError:
        return False


def _a(kind: str) -> str:
    return f"a pytest-retrieval {kind}" if kind in OWN_KINDS else f"a {kind}"


def _refuse_what_is_no_run(paths: Sequence[Path], shown: Sequence[str]) -> None:
    """Missing files, folders, a file given twice, and the plugin's own reports."""
    pairs = [
        (path, quoted(name, "", width=2 * SHOWN)) for path, name in zip(paths, shown, strict=True)
    ]
    folders = [s for p, s in pairs if exists(p, "dir")]
    if folders:
        raise ReplayError(
            f"--retrieval-replay: {', '.join(folders)} is a folder; give the run files in it "
            "(--retrieval-replay=runs/bm25.run --retrieval-replay=runs/dense.run)"
        )
    pipes = [s for p, s in pairs if exists(p) and not exists(p, "file")]
    if pipes:  # what <(zcat run.gz) gives: read in blocks, more than once, it must be a file
        raise ReplayError(
            f"--retrieval-replay: {', '.join(pipes)} is a pipe or a device, not a file; save "
            "what it gives to a file and replay that"
        )
    missing = [s + did_you_mean_file(p, s) for p, s in pairs if not exists(p, "file")]
    if missing:
        raise ReplayError(f"--retrieval-replay: no such file: {', '.join(missing)}")
    seen: dict[Path, str] = {}
    for path, name in pairs:
        resolved = path.resolve()
        if resolved in seen:
            raise ReplayError(
                f"--retrieval-replay: {name} is given twice (also as {seen[resolved]}); "
                "give each file once"
            )
        seen[resolved] = name
    for path, name in pairs:
        if trec_kind_of_fields(head_fields(path)) == TREC_QRELS:  # read as a run: every line
            raise ReplayError(
                f"--retrieval-replay: {name} is {TREC_QRELS}, not a run; replay the runs "
                "it judges, and import the judgments as golden queries: `pytest-retrieval "
                f"import trec {name} -o golden/qrels.jsonl`"
            )
        kind = _plugin_file_kind(path)
        if kind is not None:
            raise ReplayError(
                f"--retrieval-replay: {name} is {_a(kind)}, not a recording or a TREC run; "
                "record a run with --retrieval-record=PATH and replay that file"
            )


def _from_recording(recording: Recording, shown: str) -> Replay:
    notes: tuple[str, ...] = ()
    if not recording.complete:
        notes = (
            f"the recording {shown} is incomplete (its run was interrupted or stopped early): "
            "queries it lacks are errors",
        )
    if not recording.entries:
        raise ReplayError(
            f"--retrieval-replay: the recording {shown} holds no results (a run writes a "
            "recording only once it has evaluated a query: this one was cut short or "
            "edited); record again (--retrieval-record)"
        )
    keyed = any(e.keyed for entries in recording.entries.values() for e in entries.values())
    return Replay(
        recording.entries, shown, complete=recording.complete, notes=notes,
        retrievers=recording.retrievers, keyed=keyed,
    )  # fmt: skip


_EMPTY_SCORES = {  # what retrieval_empty makes of a query with nothing to find and no ranking
    "abstain": "which retrieval_empty = abstain scores 1.0",
    "one": "which retrieval_empty = one scores 1.0",
    "zero": "which retrieval_empty = zero scores 0.0",
    "skip": "which retrieval_empty = skip leaves out of the means",
}


def lacking_notes(
    lacking: Sequence[str], nothing_to_find: Collection[str], source: str, empty: str = "abstain"
) -> list[str]:
    """What a run without a ranking for some golden queries says of them (both scored as
    returning nothing): those that have something to find (a query id the run spells
    otherwise?), then apart those with nothing to find, which a run that found nothing
    leaves out, with the score ``empty`` (retrieval_empty) gives them. ``replay`` and
    ``evaluate`` say it alike."""
    quiet = [q for q in lacking if q in nothing_to_find]
    found = [q for q in lacking if q not in nothing_to_find]
    notes = []
    if found:  # a query that returned nothing has no line: right, or the ids differ
        one = len(found) == 1
        notes.append(
            f"{counted(len(found), 'golden query', 'golden queries')} "
            f"{'has' if one else 'have'} no ranking in {source}, scored as returning nothing "
            "(a TREC run has no line for a query that returned nothing; if "
            f"{'it' if one else 'these'} did return results, check the run's query ids): "
            + some_ids(found)
        )
    if quiet:
        rewarded = empty in ("abstain", "one")
        trec_eval = (
            "; trec_eval leaves such a query out of its means, or scores it 0 with -c, as "
            "retrieval_empty = zero does"
            if rewarded
            else ""
        )
        notes.append(
            f"{len(quiet)} of the queries with nothing to find {'is' if len(quiet) == 1 else 'are'}"
            f" not in {source}: scored as returning nothing, {_EMPTY_SCORES.get(empty, '')} (a "
            f"run that found nothing leaves them out{trec_eval}): " + some_ids(quiet)
        )
    return notes


def trec_coverage(
    replay: Replay,
    evaluated: Mapping[str, Sequence[str]],
    golden: Collection[str],
    nothing_to_find: Collection[str] = (),
    empty: str = "abstain",
    brief: bool = False,
) -> list[str]:
    """What a TREC run replayed does not match: per configuration, the evaluated golden
    queries it holds no ranking for (scored as returning nothing; those with nothing to
    find apart, as a run that found nothing leaves them out) and its queries that are
    not golden (ignored); a line each, naming a few. Nothing for a recording. ``brief``
    (``-q``): the queries ranked otherwise than listed in a line, without the why."""
    if not replay.trec:
        return []
    notes: list[str] = []
    for configuration, run in replay.runs.items():
        if not evaluated.get(configuration):
            continue  # deselected (-k): nothing of it was replayed
        source = replay.sources.get(configuration, replay.source)
        lacking = [q for q in evaluated[configuration] if q not in run]
        wanted = set(evaluated[configuration])
        unknown = sorted(q for q in run if q not in golden)
        prefix = f"replay '{configuration}': "
        notes += [prefix + n for n in lacking_notes(lacking, nothing_to_find, source, empty)]
        reordered = [q for q in replay.reordered.get(configuration, ()) if q in wanted]
        if reordered:
            notes.append(
                f"replay '{configuration}': {queries_of(len(reordered), source)} "
                + (REORDERED_BRIEF if brief else REORDERED)
                + some_ids(reordered)
            )
        if unknown:
            notes.append(
                f"replay '{configuration}': {queries_of(len(unknown), source)} not among the "
                "golden queries collected, ignored: "
                + some_ids(unknown)
                + alike_ids(unknown, golden)
            )
    return notes
