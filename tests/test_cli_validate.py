"""``pytest-retrieval validate``: the collection's messages, the extra checks, the exit codes."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_project import GOLDEN, ROOT, cli, write_project

from pytest_retrieval import lint as lint_module
from pytest_retrieval.golden import GoldenQuery


def test_the_demo_golden_set_is_valid():
    ran = cli("validate", cwd=ROOT)
    assert ran.code == 0, ran.out + ran.err
    assert ran.lines == ["71 golden queries in 5 files: no problem found"]


BROKEN = """\
queries:
  - id: rain-tomorrow
    query: is it going to rain tomorrow
    relevent: {weather-forecast: 3}
  - id: convert-euros
    query: ""
    relevant: {fx-rates: 7}
"""


def _broken_copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "golden", tmp_path / "golden", ignore=shutil.ignore_patterns("*.json"))
    (tmp_path / "golden" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    text = (tmp_path / "golden" / "paraphrase.yaml").read_text(encoding="utf-8")
    (tmp_path / "golden" / "paraphrase.yaml").write_text(text + "  - {id: x\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nretrieval_golden = golden\n", encoding="utf-8")
    return tmp_path


def test_a_broken_copy_of_the_demo_exits_1_with_the_collections_messages(pytester):
    project = _broken_copy(pytester.path)
    ran = cli("validate", cwd=project)
    assert ran.code == 1
    problems = ran.lines[:-1]
    assert problems == [
        "golden/broken.yaml:4: query 'rain-tomorrow': unknown key 'relevent' (did you mean "
        "'relevant'?)",  # and not "'relevant' is missing; write 'relevant: {}'"
        "golden/broken.yaml:6: query 'convert-euros': 'query' must be non-empty text, got text ''",
        "golden/broken.yaml:7: query 'convert-euros': grade of 'fx-rates' is 7, outside 0..3 "
        "(retrieval_max_grade); use a grade in range or raise retrieval_max_grade",
        problems[3],  # the YAML syntax error, checked below
    ]
    assert re.match(r"golden/paraphrase\.yaml:\d+: YAML syntax error: ", problems[3])
    assert ran.lines[-1].startswith("4 problems in 2 of 6 golden files")
    # the same messages as the plugin's collection errors
    result = pytester.runpytest("--retrieval-eval", "--collect-only", "-p", "no:cacheprovider")
    collected = result.stdout.str()
    for problem in problems:
        assert problem in collected, problem


def _project(tmp_path: Path, text: str) -> Path:
    return write_project(tmp_path, {"golden/g.yaml": textwrap.dedent(text)})


def test_a_jsonl_files_fixes_are_written_in_json(tmp_path):
    """A .jsonl golden file is told '"relevant": {}', not YAML's 'relevant: {}'."""
    lines = [
        '{"id": "all-zero", "query": "which API forecasts rain", "relevant": {"a": 0}}',
        '{"id": "no-judgments", "query": "convert euros"}',
        '{"id": "tagged", "query": "q", "tags": "core, rolling", "relevant": {"a": 1}}',
    ]
    project = write_project(tmp_path, {"golden/g.jsonl": "\n".join(lines) + "\n"})
    ran = cli("validate", "golden/g.jsonl", cwd=project)
    assert ran.code == 1
    assert (
        "golden/g.jsonl:2: query 'no-judgments': 'relevant' is missing (required); write "
        "'\"relevant\": {}' for a no-result query"
    ) in ran.lines
    write_project(tmp_path, {"golden/g.jsonl": "\n".join([lines[0], lines[2]]) + "\n"})
    ran = cli("validate", "golden/g.jsonl", cwd=project)
    assert ran.lines[:-1] == [
        "golden/g.jsonl:1: query 'all-zero': every judgment has grade 0 (1 of them): nothing "
        "is relevant, so the query is scored as a no-result query (retrieval_empty); grade "
        "the answers above 0, or write '\"relevant\": {}' if nothing answers it [all-zero]",
        "golden/g.jsonl:2: query 'tagged': 'tags' is text ('core, rolling') for this query: it "
        'is read as the single tag \'core, rolling\'; write a list: "tags": ["core", '
        '"rolling"] [tags-text]',
    ]


def test_every_extra_check_names_file_line_query_and_fix(tmp_path):
    project = _project(
        tmp_path,
        """\
        defaults:
          tags: core, rolling
        queries:
          - id: all-zero
            query: which API forecasts rain
            relevant: {a: 0, b: 0}
          - id: contradiction
            query: convert euros
            relevant: {fx: 2, fx-old: 0}
            forbid: [fx, fx-old]
          - id: copy
            query: "  Which API  forecasts RAIN "
            tags: weather
            relevant: {a: 1}
          - id: All-Zero
            query: which API forecasts snow
            relevant: {a: 1}
        """,
    )
    ran = cli("validate", cwd=project)
    assert ran.code == 1
    assert ran.lines[:-1] == [
        "golden/g.yaml:2: 'tags' is text ('core, rolling') in defaults: it is read as the "
        "single tag 'core, rolling'; write a list: tags: [core, rolling] [tags-text]",
        "golden/g.yaml:4: query 'all-zero': every judgment has grade 0 (2 of them): nothing "
        "is relevant, so the query is scored as a no-result query (retrieval_empty); grade "
        "the answers above 0, or write 'relevant: {}' if nothing answers it [all-zero]",
        "golden/g.yaml:7: query 'contradiction': 'fx' is forbidden and judged relevant "
        "(grade 2): returning it fails the query, leaving it out lowers its scores; remove it "
        "from 'forbid', or grade it 0 [forbid-relevant]",
        "golden/g.yaml:11: query 'copy': same text as query 'all-zero' (golden/g.yaml:4): one "
        "question under two ids counts twice in every mean; merge the two queries, or reword "
        "one [same-text]",
        "golden/g.yaml:13: query 'copy': 'tags' is text ('weather') for this query: it is "
        "read as the single tag 'weather'; write a list: tags: [weather] [tags-text]",
        "golden/g.yaml:15: query 'All-Zero': its id differs only in letter case from "
        "'all-zero' (golden/g.yaml:4): -k selects both, and a case-insensitive file system "
        "or spreadsheet mixes them up; rename one of them [case-ids]",
    ]
    assert ran.lines[-1] == (
        "6 problems in 1 of 1 golden file (0 the plugin refuses, 6 likely mistakes)"
    )
    ignored = cli(
        "validate", "--ignore", "tags-text", "--ignore", "same-text", "--ignore", "all-zero",
        "--ignore", "forbid-relevant", "--ignore", "case-ids", cwd=project,
    )  # fmt: skip
    assert ignored.code == 0, ignored.out


def test_corpus_names_ids_no_document_has(tmp_path):
    project = write_project(tmp_path)
    (tmp_path / "corpus.txt").write_text("weather-forecast\nfx-rates\ntide-tables\n", "utf-8")
    ran = cli("validate", "--corpus", "corpus.txt", cwd=project)
    assert ran.code == 1
    assert ran.lines[0] == (
        "golden/catalog.yaml:5: query 'rain-tomorrow': judged id 'weather-stuffed' is not in "
        "the corpus (corpus.txt): a typo? the retriever can never return it; fix the id, or "
        "add the document [unknown-id]"
    )
    assert len(ran.lines) == 2
    # one finding: "1 likely mistake", as "1 problem" (it said "1 likely mistakes")
    assert ran.lines[1] == (
        "1 problem in 1 of 1 golden file (0 the plugin refuses, 1 likely mistake)"
    )
    assert cli("validate", cwd=project).code == 0  # without --corpus, not checked


def test_an_unknown_id_close_to_a_corpus_id_is_named_with_it(tmp_path):
    project = write_project(tmp_path)
    corpus = "weather-forecast\nweather-stuffed\nfx-rate\ntide-tables\n"
    (tmp_path / "corpus.txt").write_text(corpus, "utf-8")
    ran = cli("validate", "--corpus", "corpus.txt", cwd=project)
    assert ran.code == 1
    assert ran.lines[0] == (
        "golden/catalog.yaml:10: query 'convert-euros': judged id 'fx-rates' is not in the "
        "corpus (corpus.txt): did you mean 'fx-rate'? the retriever can never return it; fix "
        "the id, or add the document [unknown-id]"
    )


def test_paths_on_the_command_line_and_jsonl(tmp_path):
    project = write_project(tmp_path)
    jsonl = '{"id": "j1", "query": "weather", "tags": "core", "relevant": {"a": 0}}\n'
    (tmp_path / "extra.jsonl").write_text(jsonl, encoding="utf-8")
    ran = cli("validate", "extra.jsonl", cwd=project)
    assert ran.code == 1
    assert [line.rsplit(" [", 1)[-1] for line in ran.lines[:-1]] == ["all-zero]", "tags-text]"]
    assert ran.lines[1].startswith("extra.jsonl:1: query 'j1': 'tags' is text")
    both = cli("validate", "golden", cwd=project)
    assert both.code == 0 and "3 golden queries in 1 file:" in both.out


def test_a_folder_gives_the_files_the_plugin_collects(pytester):
    """.jsonl and any letter case, hidden folders left out: the plugin's set, not a subset."""
    jsonl = '{"id": "j1", "query": "weather", "relevent": {"a": 1}}\n'
    files = {
        "golden/catalog.yaml": GOLDEN,
        "golden/more/extra.jsonl": jsonl,
        "golden/LOUD.YAML": "queries:\n  - {id: loud, query: q, relevant: {a: 1}}\n",
        "golden/.ipynb_checkpoints/old.yaml": "queries: [oops\n",
    }
    project = write_project(pytester.path, files)
    ran = cli("validate", cwd=project)
    assert ran.code == 1
    assert ran.lines[0].startswith("golden/more/extra.jsonl:1: query 'j1': unknown key 'relevent'")
    assert ran.lines[-1].startswith("1 problem in 1 of 3 golden files"), ran.lines
    # the plugin collects the same three files, and stops on the same problem
    result = pytester.runpytest("--retrieval-eval", "--collect-only", "-p", "no:cacheprovider")
    assert "golden/more/extra.jsonl:1: query 'j1': unknown key 'relevent'" in result.stdout.str()
    assert ".ipynb_checkpoints" not in result.stdout.str()
    (project / "golden/more/extra.jsonl").write_text(jsonl.replace("relevent", "relevant"))
    exported = cli("export", "trec", cwd=project)
    assert exported.code == 0
    assert {line.split()[0] for line in exported.out.splitlines()} >= {"j1", "loud"}


def test_a_folder_without_golden_files_is_a_usage_error(tmp_path):
    project = write_project(tmp_path, {"golden/notes.txt": "nothing here"})
    ran = cli("validate", cwd=project)
    assert ran.code == 2
    assert "retrieval_golden: golden holds no golden file (.yaml, .yml or .jsonl)" in ran.err
    named = cli("validate", "golden", cwd=project)
    assert named.code == 2
    assert "golden: no golden file (.yaml, .yml, .jsonl) in this folder or below it" in named.err


def test_ids_across_files_are_checked(tmp_path):
    copy = GOLDEN.replace("convert-euros", "convert-eur").replace("lottery", "lotto")
    project = write_project(tmp_path, {"golden/a.yaml": GOLDEN, "golden/b.yaml": copy})
    ran = cli("validate", "--ignore", "same-text", cwd=project)
    assert ran.code == 1
    assert ran.lines[0].startswith(
        "golden/b.yaml:5: query 'rain-tomorrow': duplicate id: already used in golden/a.yaml:5"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("validate", "nowhere.yaml"), "no such file or folder: nowhere.yaml"),
        (("validate", "--corpus", "nope.txt"), "--corpus nope.txt: no such file"),
        (("validate", "--ignore", "typo"), "invalid choice: 'typo'"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, message):
    ran = cli(*args, cwd=write_project(tmp_path))
    assert ran.code == 2
    assert ran.err.startswith("pytest-retrieval: error: ") and message in ran.err, ran.err


def test_no_golden_folder_is_a_usage_error_naming_the_setting(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\nretrieval_golden = evals\n", encoding="utf-8")
    ran = cli("validate", cwd=tmp_path)
    assert ran.code == 2
    assert "retrieval_golden: evals does not exist under" in ran.err


def test_no_golden_folder_and_no_config_file_says_where_it_looked(tmp_path):
    """Run from a subfolder of a project without an ini file: no '(no config file)' to
    fix, but where the default was looked for and what to do."""
    (tmp_path / "golden").mkdir()
    (tmp_path / "runs").mkdir()
    ran = cli("export", "trec", cwd=tmp_path / "runs")
    assert ran.code == 2
    assert "fix retrieval_golden in (no config file)" not in ran.err
    assert "name the golden files, or run from the project's folder (no config file" in ran.err


def test_a_bad_setting_is_a_usage_error_naming_the_file_and_key(tmp_path):
    ran = cli("validate", cwd=write_project(tmp_path, ini="[pytest]\nretrieval_max_grade = x\n"))
    assert ran.code == 2
    assert "pytest.ini:2: retrieval_max_grade must be an integer in 1..100, got 'x'" in ran.err


def test_the_entry_point_runs_as_a_module(tmp_path):
    project = _project(tmp_path, "queries:\n  - {id: a, query: q, relevant: {x: 0}}\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_retrieval", "validate"],
        cwd=project, capture_output=True, text=True, check=False,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("golden/g.yaml:2: query 'a': every judgment has grade 0")
    helped = subprocess.run(
        [sys.executable, "-m", "pytest_retrieval", "validate", "--help"],
        cwd=project, capture_output=True, text=True, check=False,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert helped.returncode == 0 and "forbid-relevant" in helped.stdout


def _many_bad_grades(tmp_path: Path, n: int) -> Path:
    rows = "".join(f"  - {{id: q{i}, query: t, relevant: {{d: 9}}}}\n" for i in range(n))
    return _project(tmp_path, "queries:\n" + rows)


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path):
    """`validate | head` had ended with 'pytest-retrieval: error: Broken pipe'."""
    project = _many_bad_grades(tmp_path, 3000)  # far more than a pipe holds
    running = subprocess.Popen(
        [sys.executable, "-m", "pytest_retrieval", "validate", "--max", "100000"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert running.stdout is not None and running.stderr is not None
    assert running.stdout.readline().startswith(b"golden/g.yaml:2: query 'q0'")
    running.stdout.close()  # as head does once it has its lines
    said = running.stderr.read().decode()
    assert running.wait(timeout=60) == 141, said  # as a shell reports a stopped command
    assert said == ""


def test_a_command_that_needs_a_sound_golden_set_names_its_first_problems(tmp_path):
    """export trec on a set with 500 problems had printed all 500 lines."""
    ran = cli("export", "trec", cwd=_many_bad_grades(tmp_path, 500))
    assert ran.code == 2
    lines = ran.err.splitlines()
    assert lines[0].endswith("the golden set has problems (pytest-retrieval validate lists them):")
    assert len(lines) == 22 and lines[-1] == "... and 480 more"


def test_an_unknown_retrieval_key_is_named_with_its_line_and_the_closest(tmp_path):
    """The warning had no line, and the last line said 'no problem found' below it."""
    ini = "[pytest]\nminversion = 8\nretrieval_metric = mrr\n"
    project = write_project(tmp_path, ini=ini)
    ran = cli("validate", cwd=project)
    assert ran.code == 0  # a warning only
    assert ran.err == (
        f"{project / 'pytest.ini'}:3: unknown ini key retrieval_metric (did you mean "
        "retrieval_metrics?): ignored\n"
    )
    assert ran.lines == [
        "3 golden queries in 1 file: no problem found in the golden files; 1 warning about "
        "the ini settings above"
    ]


def test_a_folder_is_walked_as_the_plugin_collects_it(tmp_path):
    """__pycache__, virtual environments and norecursedirs left out; linked folders
    followed; a file reached twice read once, under its first path."""
    one = "queries:\n  - {id: %s, query: q %s, relevant: {a: 1}}\n"
    files = {
        "golden/a.yaml": one % ("a", "a"),
        "golden/__pycache__/p.yaml": one % ("p", "p"),
        "golden/env/pyvenv.cfg": "",
        "golden/env/v.yaml": one % ("v", "v"),
        "golden/archive/old.yaml": one % ("a", "old"),  # a duplicate id, if it were read
        "outside/o.yaml": one % ("o", "o"),
    }
    ini = "[pytest]\nretrieval_golden = golden\nnorecursedirs = archive\n"
    project = write_project(tmp_path, files, ini=ini)
    (project / "golden" / "linked").symlink_to(project / "outside", target_is_directory=True)
    (project / "golden" / "again.yaml").symlink_to(project / "golden" / "a.yaml")
    ran = cli("validate", cwd=project)
    assert ran.code == 0, ran.out + ran.err
    assert ran.lines == ["2 golden queries in 2 files: no problem found"], ran.lines
    exported = cli("export", "trec", cwd=project)
    assert sorted({line.split()[0] for line in exported.out.splitlines()}) == ["a", "o"]


def test_tags_as_text_in_jsonl_are_found_after_a_bom_and_odd_separators(tmp_path):
    """The JSONL lines are the loader's: a byte-order mark before the first, U+2028 inside
    a JSON string (which ``splitlines`` would cut) do not hide a line or shift the next."""
    lines = [
        '\ufeff{"id": "a", "query": "q", "relevant": {"x": 1}, "tags": "x, y"}',
        '{"id": "b", "query": "one\u2028two", "relevant": {"x": 1}}',
        '{"id": "c", "query": "r", "relevant": {"x": 1}, "tags": "z w"}',
    ]
    project = write_project(tmp_path, {"golden/set.jsonl": "\n".join(lines) + "\n"})
    ran = cli("validate", cwd=project)
    text = ran.out + ran.err
    assert "golden/set.jsonl:1: query 'a': 'tags' is text ('x, y')" in text, text
    assert "golden/set.jsonl:3: query 'c': 'tags' is text ('z w')" in text, text


def test_a_folder_given_for_a_file_is_named_as_a_folder(tmp_path):
    """--corpus, a worklist, --categories or a run given as a folder: 'no such file'."""
    project = write_project(tmp_path)
    (project / "ids").mkdir()
    for args, says in (
        (["validate", "--corpus", "ids"], "--corpus ids is a folder: give the file in it"),
        (["merge", "ids"], "ids is a folder: give the file in it"),
    ):
        ran = cli(*args, cwd=project)
        assert ran.code == 2 and says in ran.err, (args, ran.err)


def test_all_zero_is_named_only_in_a_category_whose_other_queries_have_answers(tmp_path):
    """Judged-0 results of a no-result query (what pool and merge record) are no mistake;
    the same grades where the category's other queries have answers are."""
    project = _project(
        tmp_path,
        """\
        - id: rain
          query: which API forecasts rain
          category: paraphrase
          relevant: {weather: 2}
        - id: snow
          query: which API forecasts snow
          category: paraphrase
          relevant: {weather: 0, ski: 0}
        - id: lottery
          query: predict the lottery numbers
          category: no-result
          relevant: {lotto-stats: 0, casino: 0}
        - id: teleport
          query: price of a teleport to mars
          category: no-result
          relevant: {}
        """,
    )
    ran = cli("validate", cwd=project)
    assert ran.code == 1
    assert [line for line in ran.lines if "[all-zero]" in line] == [
        "golden/g.yaml:5: query 'snow': every judgment has grade 0 (2 of them): nothing "
        "is relevant, so the query is scored as a no-result query (retrieval_empty); grade "
        "the answers above 0, or write 'relevant: {}' if nothing answers it [all-zero]"
    ]


def test_an_unknown_retrieval_key_given_with_override_ini_is_named_too(tmp_path):
    """The plugin warns of '-o retrieval_tolerence=0.1'; the command line said nothing and
    gated on the default tolerance."""
    project = write_project(tmp_path, ini="[pytest]\nretrieval_gain = linear\n")
    ran = cli("validate", "--override-ini", "retrieval_tolerence=0.1", cwd=project)
    assert ran.code == 0
    assert ran.err == (
        "--override-ini: unknown ini key retrieval_tolerence (did you mean "
        "retrieval_tolerance?): ignored\n"
    )


def test_a_bad_value_is_named_where_it_was_given_override_ini_or_the_ini_files_line(tmp_path):
    """'--override-ini retrieval_max_grade=0' was blamed on pytest.ini, which does not set
    it; a bad value in the ini file had no line; a malformed override told of '-o', which
    the command line refuses (-o is the output)."""
    ini = "[pytest]\nretrieval_golden = golden\nretrieval_gain = quadratic\n"
    project = write_project(tmp_path, ini=ini)
    ran = cli("validate", cwd=project)
    assert (ran.code, ran.err) == (
        2,
        f"pytest-retrieval: error: {project / 'pytest.ini'}:3: retrieval_gain must be one of "
        "exponential, linear, got 'quadratic'\n",
    )
    (project / "pytest.ini").write_text("[pytest]\nretrieval_golden = golden\n", encoding="utf-8")
    ran = cli("validate", "--override-ini", "retrieval_max_grade=0", cwd=project)
    assert ran.code == 2
    assert ran.err.startswith(
        "pytest-retrieval: error: --override-ini retrieval_max_grade=0: retrieval_max_grade "
    ), ran.err
    ran = cli("validate", "--override-ini", "retrieval_gain", cwd=project)
    assert ran.code == 2
    assert "--override-ini expects KEY=VALUE (e.g. --override-ini retrieval_gain=linear)" in (
        ran.err
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_given_as_an_input_file_is_named_as_a_pipe(tmp_path):
    """'--corpus <(cut -f1 corpus.tsv)' said '--corpus /dev/fd/63: no such file'."""
    project = write_project(tmp_path)
    os.mkfifo(project / "ids.pipe")
    ran = cli("validate", "--corpus", "ids.pipe", cwd=project)
    assert ran.code == 2
    assert ran.err == (
        "pytest-retrieval: error: --corpus ids.pipe is a pipe or a device, not a file; save "
        "what it gives to a file and give that\n"
    )
    # topics are read twice (their format, then their text): 'the file holds no topics'
    (project / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    topics = cli("import", "trec", "qrels.txt", "--topics", "ids.pipe", cwd=project)
    assert topics.code == 2
    assert topics.err == (
        "pytest-retrieval: error: --topics ids.pipe is a pipe or a device, not a file; save "
        "what it gives to a file and give that\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_qrels_from_a_pipe_are_read_whole(tmp_path):
    """'import trec <(zcat qrels.gz)' said 'the file holds no judgments': the check of
    what kind of file it is read the head of the pipe, which the qrels then lacked."""
    import threading

    project = write_project(tmp_path)
    pipe = project / "qrels.pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=pipe.write_text, args=("q1 0 d1 1\nq2 0 d2 2\n",))
    writer.start()
    done = threading.Event()

    def unblock() -> None:  # each later open of the pipe (the bug) waits for a writer
        while not done.wait(2):
            pipe.write_text("")  # one comes, empty, rather than none for ever

    unblocker = threading.Thread(target=unblock, daemon=True)
    unblocker.start()
    ran = cli("import", "trec", "qrels.pipe", "-o", "golden/imported.yaml", cwd=project)
    done.set()
    os.close(os.open(pipe, os.O_RDONLY | os.O_NONBLOCK))  # frees an unblocker waiting to open
    writer.join(timeout=10)
    unblocker.join(timeout=10)
    assert ran.code == 0, ran.err
    assert "wrote 2 golden queries" in ran.err


def test_each_kind_prints_its_first_max_lines_then_the_count_of_the_rest(tmp_path):
    lines = [f'{{"id": "q{i}", "query": "same text", "relevant": {{"d": 1}}}}' for i in range(30)]
    bad = (
        '{"id": "bad1", "query": "", "relevant": {}}\n{"id": "bad2", "query": "", "relevant": {}}\n'
    )
    project = write_project(
        tmp_path, {"golden/a.jsonl": "\n".join(lines) + "\n", "golden/b.jsonl": bad}
    )
    capped = cli("validate", cwd=project)
    assert capped.code == 1
    shown = [line for line in capped.lines if line.endswith("[same-text]")]
    assert len(shown) == 20
    assert "... and 9 more [same-text] findings (--max 0 prints every one)" in capped.lines
    assert not any("problems the plugin refuses (--max" in line for line in capped.lines)
    assert capped.lines[-1].startswith("31 problems in 2 of 2 golden files (2 the plugin refuses")
    few = cli("validate", "--max", "1", cwd=project)
    assert "... and 1 more problems the plugin refuses (--max 0 prints every one)" in few.lines
    assert len([line for line in few.lines if line.endswith("[same-text]")]) == 1
    every = cli("validate", "--max", "0", cwd=project)
    assert len([line for line in every.lines if line.endswith("[same-text]")]) == 29
    assert not any(line.startswith("... and") for line in every.lines)
    wrong = cli("validate", "--max", "-1", cwd=project)
    assert wrong.code == 2 and "'-1' is not a count: write 0 or more (0: all)" in wrong.err


def test_each_problem_is_printed_once_in_line_order(tmp_path):
    """A list of mappings gave one line per item (the same line twice), and the field
    order put 'expect' (line 6) before 'forbid' (line 5)."""
    golden = """\
queries:
  - id: m1
    query: moons of saturn
    relevant: [astro-saturn: 3, astro-moon: 1]
    forbid: astro-sun
    expect: {recall: 1}
  - id: m2
    query: the moon
    relevant: {astro-moon: -1}
"""
    project = write_project(tmp_path, {"golden/a.yaml": golden})
    ran = cli("validate", cwd=project)
    assert ran.code == 1
    assert [line.split(": ", 1)[0] for line in ran.lines[:-1]] == [
        "golden/a.yaml:4",
        "golden/a.yaml:5",
        "golden/a.yaml:6",
        "golden/a.yaml:9",
    ]
    assert ran.lines[3] == (  # raising retrieval_max_grade cannot help a negative grade
        "golden/a.yaml:9: query 'm2': grade of 'astro-moon' is -1, below 0: grades are 0..3 "
        "(0 = judged not relevant); write 0, or leave an unjudged document out"
    )
    assert ran.lines[-1].startswith("4 problems in 1 of 1 golden file")


def test_the_closest_corpus_id_is_sought_within_a_budget(monkeypatch):
    """A huge corpus gets no suggestion rather than seconds per unknown id."""
    query = GoldenQuery("q", "t", relevant={"astro-saturnn": 2}, path="g.yaml", line=2)
    corpus = frozenset({"astro-saturn", "astro-moon"})
    message = str(lint_module.lint([query], corpus=corpus)[0])
    assert "did you mean 'astro-saturn'?" in message
    monkeypatch.setattr(lint_module, "SUGGESTION_BUDGET", 1)
    assert ": a typo? " in str(lint_module.lint([query], corpus=corpus)[0])


class _ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_an_error_said_into_a_closed_pipe_still_exits_2(tmp_path):
    """`... 2>&1 | head -3`: printing the error raised BrokenPipeError inside the except
    clause that caught the error, and the exit code was 1 or 2 from run to run."""
    from pytest_retrieval.cli.main import main

    code = main(["import", "trec", "missing.qrels", "-o", "x.yaml"], cwd=tmp_path,
                out=io.StringIO(), err=_ClosedPipe())  # fmt: skip
    assert code == 2


def test_a_jsonl_corpus_given_for_the_corpus_list_is_named_not_read_as_ids(tmp_path):
    """A BEIR corpus.jsonl written without spaces ('{"_id":"d1",...}') was read as a list
    of ids: every judged id was 'not in the corpus: a typo?', exit 1; one with spaces got
    a 'holds whitespace' line per document."""
    project = _project(tmp_path, "queries:\n  - {id: q1, query: rain, relevant: {d1: 1}}\n")
    (project / "corpus.jsonl").write_text(
        '{"_id":"d1","text":"rain"}\n{"_id": "d2", "text": "sun"}\n', encoding="utf-8"
    )
    ran = cli("validate", "--corpus", "corpus.jsonl", cwd=project)
    assert (ran.code, ran.out) == (2, "")
    assert ran.err == (
        "pytest-retrieval: error: corpus.jsonl:1: a JSON object, not a document id (a BEIR "
        "corpus.jsonl?): a corpus list holds one id a line; `pytest-retrieval import beir "
        "FOLDER --corpus ids.txt` writes a BEIR corpus's ids so, or write the '_id' of each "
        "line one a line\n"
    )


@pytest.mark.parametrize(
    ("name", "text", "fix"),
    [
        (
            "judged.qrels",
            "q1 0 d1 3\nq1 0 d2 1\n",
            "TREC qrels file ('qid iter docno rel' lines), not a golden file; give golden "
            "files (.yaml, .yml, .jsonl) or folders of them: import it first: "
            "`pytest-retrieval import trec judged.qrels -o judged.yaml`",
        ),
        (
            "bm25.txt",
            "q1 Q0 d1 1 2.5 bm25\n",
            "TREC run ('qid Q0 docno rank score tag' lines), not a golden file; give golden "
            "files (.yaml, .yml, .jsonl) or folders of them: a run holds no grades: import "
            "the qrels file that judges it (`pytest-retrieval import trec QRELS --run "
            "bm25.txt -o golden/qrels.yaml`), and score the run with `pytest-retrieval "
            "evaluate bm25.txt`",
        ),
    ],
)
def test_a_trec_file_given_to_validate_is_named_with_the_import(tmp_path, name, text, fix):
    """A qrels file or a run given to validate was read as YAML: exit 1 with "the file
    holds text 'q1 0 d1 3 q1 0 d2 1', not a mapping with a 'queries:' list", no word of
    TREC or of the import that makes a golden file of it (agreement already said it)."""
    project = write_project(tmp_path)
    (project / name).write_text(text, encoding="utf-8")
    ran = cli("validate", name, cwd=project)
    assert ran.code == 2, ran
    assert ran.err == f"pytest-retrieval: error: {name} is a {fix}\n"
