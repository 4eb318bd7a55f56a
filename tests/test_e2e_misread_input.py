"""Input a user meets as a silent change: values YAML reads as another type, files the
plugin would pass over, settings that mean something else than written. Each runs end
to end and checks the message the user sees."""

from __future__ import annotations

import json

import pytest

from conftest import e2e_run, e2e_unwrapped, e2e_write_project


def _one_file_project(pytester: pytest.Pytester, returns: str, name: str, text: str) -> None:
    """The standard project with a retriever that always returns ``returns`` (Python
    source) and one golden file, ``name``, holding ``text``."""
    e2e_write_project(pytester)
    pytester.makeconftest(
        f"import pytest\n\n@pytest.fixture\ndef retriever():\n    return lambda query: {returns}\n"
    )
    golden = pytester.path / "golden"
    for old in golden.iterdir():
        old.unlink()
    (golden / name).write_text(text, encoding="utf-8")


MISREAD_YAML = """\
queries:
  - id: yes
    query: a
    relevant: {d1: 1}
  - id: 2024-01-01
    query: b
    relevant: {d1: 1}
  - id: q3
    query: no
    relevant: {d1: 1}
  - id: q4
    query: null
    relevant: {d1: 1}
  - id: q5
    query: c
    relevant: {on: 1, 010: 2, 1.10: 1, 42: 1}
  - id: q6
    query: d
    relevant: [d1]
    forbid: [off, 2024-01-01]
"""


def test_values_yaml_reads_as_another_type_are_named_as_written_with_the_quotes(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    (pytester.path / "golden" / "misread.yaml").write_text(MISREAD_YAML, encoding="utf-8")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = e2e_unwrapped(result.stdout.str())
    said = "is read by YAML as"
    for line, qid, what, written, kind in [
        (2, "yes", "id", "yes", "the boolean true"),
        (5, "2024-01-01", "id", "2024-01-01", "a date"),
        (9, "q3", "query text", "no", "the boolean false"),
        (12, "q4", "query text", "null", "null (no value)"),
        (16, "q5", "'relevant': id", "on", "the boolean true"),
        (16, "q5", "'relevant': id", "010", "the number 8"),
        (16, "q5", "'relevant': id", "1.10", "the number 1.1"),
        (20, "q6", "'forbid': id", "off", "the boolean false"),
        (20, "q6", "'forbid': id", "2024-01-01", "a date"),
    ]:
        message = f"golden/misread.yaml:{line}: query '{qid}': {what} {written} {said} {kind}"
        assert message in out, message
        assert f"quote it ('{written}') to keep it as text" in out
    assert "'42'" not in out  # an integer id that prints back as written is fine


def test_a_null_optional_text_key_loads_as_the_key_left_out(pytester: pytest.Pytester) -> None:
    """Null is no misread word where a key may be left out (category: null, tags: ~): it
    loads as before, as the key left out; only a required query text written null is."""
    e2e_write_project(pytester)
    (pytester.path / "golden" / "nulls.yaml").write_text(
        "defaults: {category: paraphrase, tags: ~}\n"
        "queries:\n  - {id: q-null, query: a, relevant: {x: 1}, category: null, tags: null}\n",
        encoding="utf-8",
    )
    result = e2e_run(pytester, "--retrieval-eval", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "golden/nulls.yaml::q-null[bm25]" in result.stdout.str()


def test_an_integer_document_id_written_plainly_is_judged_as_its_text(
    pytester: pytest.Pytester,
) -> None:
    text = "queries:\n  - {id: 7, query: a, relevant: {42: 1}, expect: {mrr: 1.0}}\n"
    _one_file_project(pytester, "[42]", "ints.yaml", text)
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.assert_outcomes(passed=1)


def test_a_json_file_of_queries_in_the_golden_folder_is_named_as_not_read(
    pytester: pytest.Pytester,
) -> None:
    """Only .yaml, .yml and .jsonl are golden files: a .json or .ndjson of queries beside
    them was passed over in silence. Not the plugin's own files (the baseline, a report,
    a recording, written into the golden folder), nor JSON without a query's keys."""
    e2e_write_project(pytester)
    golden = pytester.path / "golden"
    query = '{"id": "extra", "query": "b", "relevant": {"d1": 1}}'
    (golden / "more.json").write_text(f"[{query}]\n", encoding="utf-8")
    (golden / "more.ndjson").write_text(f"{query}\n", encoding="utf-8")
    (golden / "corpus.json").write_text('{"docs": ["d1"]}\n', encoding="utf-8")
    own = ("--retrieval-report=golden/report.json", "--retrieval-record=golden/calls.json")
    first = e2e_run(pytester, "--retrieval-eval", "--retrieval-update-baseline", *own)
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()
    assert (golden / "baseline.json").is_file() and (golden / "report.json").is_file()
    result = e2e_run(pytester, "--retrieval-eval")
    out = " ".join(result.stdout.str().split())  # the warnings summary's lines joined
    assert (
        "golden/more.json:1: RetrievalGoldenWarning: golden/more.json is not read as a golden "
        "file (only .yaml, .yml and .jsonl are), so none of its queries run: write its queries "
        "one per line in golden/more.jsonl (JSON Lines), or as YAML"
    ) in out
    assert (
        "golden/more.ndjson is not read as a golden file (only .yaml, .yml and .jsonl are), so "
        "none of its queries run: rename it golden/more.jsonl if it holds one query object per "
        "line"
    ) in out
    for quiet in ("corpus.json", "baseline.json", "report.json", "calls.json"):
        assert f"golden/{quiet} is not read" not in out
    assert out.count("is not read as a golden file") == 2


FAISS_CONFTEST = """\
import pytest

@pytest.fixture(params=["ids", "text"])
def retriever(request):
    padded = [-1, -1] if request.param == "ids" else ["-1", "-1"]
    return lambda query: ["weather-forecast", *padded]
"""


def test_faiss_padding_of_minus_one_is_an_error_scoring_0_not_a_document(
    pytester: pytest.Pytester,
) -> None:
    """FAISS returns -1 for the hits it did not find: scored as a document id before,
    now the query's error, named, with the fix."""
    e2e_write_project(pytester, conftest=FAISS_CONFTEST)
    result = e2e_run(
        pytester, "--retrieval-eval", "-k", "rain-tomorrow", "--retrieval-report=r.json"
    )
    out = e2e_unwrapped(result.stdout.str())
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    for config in ("ids", "text"):
        assert f"query 'rain-tomorrow' [{config}] (golden/catalog.yaml:" in out
    assert (
        "result at rank 2 has the id -1: FAISS pads its results with -1 when it finds fewer "
        "than k, and -1 is no document; drop them: [i for i in ids if i != -1]"
    ) in out
    assert "drop them: [i for i in ids if i != '-1']" in out
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    for config in ("ids", "text"):
        query = report["configurations"][config]["queries"]["rain-tomorrow"]
        assert query["outcome"] == "error"
        assert set(query["metrics"].values()) == {0.0}


def test_an_expect_never_checked_under_retrieval_empty_skip_is_named(
    pytester: pytest.Pytester,
) -> None:
    """Under retrieval_empty = skip a query with nothing relevant has no metric values, so
    its expect was passed over in silence: the item passed whatever came back."""
    text = (
        "queries:\n"
        "  - {id: found, query: a, relevant: {x: 1}, expect: {mrr: 1.0}}\n"
        "  - {id: nothing, query: b, relevant: {}, expect: {mrr: 1.0}}\n"
        "  - {id: graded-0, query: c, relevant: {x: 0}, expect: {ndcg@5: 0.5}, forbid: [y]}\n"
    )
    _one_file_project(pytester, "['x']", "skip.yaml", text)
    result = e2e_run(pytester, "--retrieval-eval", "-o", "retrieval_empty=skip")
    out = " ".join(result.stdout.str().split())
    for line, qid, metric in [(3, "nothing", "mrr"), (4, "graded-0", "ndcg@5")]:
        assert (
            f"golden/skip.yaml:{line}: RetrievalGoldenWarning: query '{qid}': 'expect' ({metric}) "
            "is never checked: the query judges no document relevant, and retrieval_empty = "
            "skip leaves its metrics out (n/a); remove it ('forbid' is still checked), or judge "
            "a relevant document"
        ) in out
    assert "query 'found'" not in out
    quiet = e2e_run(pytester, "--retrieval-eval")  # abstain: checked (and failed), no advice
    assert "never checked" not in quiet.stdout.str()
    quiet.assert_outcomes(passed=1, failed=2)


@pytest.mark.parametrize(
    ("golden", "says"),
    [
        (
            "golden/more.ndjson",
            "retrieval_golden: golden/more.ndjson is not a golden file (.yaml, .yml or .jsonl); "
            "rename it golden/more.jsonl if it holds one query object per line: fix the path",
        ),
        (
            "golden/more.json",
            "retrieval_golden: golden/more.json is not a golden file (.yaml, .yml or .jsonl); "
            "write its queries one per line in golden/more.jsonl (JSON Lines), or as YAML: fix "
            "the path",
        ),
        (
            "exported",
            "retrieval_golden: exported holds no golden file (.yaml, .yml or .jsonl); its .json "
            "files are not read: write them as .jsonl, or as YAML: fix the path",
        ),
    ],
)
def test_a_json_golden_path_is_refused_saying_how_to_make_it_a_golden_file(
    pytester: pytest.Pytester, golden: str, says: str
) -> None:
    e2e_write_project(pytester)
    query = '{"id": "extra", "query": "b", "relevant": {"d1": 1}}\n'
    (pytester.path / "golden" / "more.ndjson").write_text(query, encoding="utf-8")
    (pytester.path / "golden" / "more.json").write_text(f"[{query}]", encoding="utf-8")
    (pytester.path / "exported").mkdir()
    (pytester.path / "exported" / "queries.json").write_text(f"[{query}]", encoding="utf-8")
    result = e2e_run(pytester, "--retrieval-eval", "-o", f"retrieval_golden={golden}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert says in " ".join(result.stderr.str().split())
