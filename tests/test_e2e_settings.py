"""Settings as a user meets them: usage errors that name the key and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import E2E_INI, e2e_load_json, e2e_run, e2e_unwrapped, e2e_write_project

ONLY_WITH_EVAL = [
    ("--retrieval-report", "out.json"),
    ("--retrieval-baseline", "other.json"),
    ("--retrieval-update-baseline",),
    ("--retrieval-tolerance", "0.1"),
    ("--retrieval-diff", "3"),
    ("--retrieval-group-by", "tags"),
]


@pytest.mark.parametrize("args", ONLY_WITH_EVAL, ids=[a[0] for a in ONLY_WITH_EVAL])
def test_a_retrieval_option_without_retrieval_eval_is_a_usage_error(
    pytester: pytest.Pytester, e2e_project: Path, args: tuple[str, ...]
) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    result = e2e_run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = e2e_unwrapped(result.stderr.str())
    assert f"{args[0]} does nothing without --retrieval-eval" in error
    assert f"(pytest --retrieval-eval {args[0]} ...)" in error
    assert "passed" not in result.stdout.str()
    assert not (pytester.path / "out.json").exists()


def test_several_options_without_retrieval_eval_are_named_together(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    result = e2e_run(pytester, "--retrieval-report=out.json", "--retrieval-update-baseline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "--retrieval-report, --retrieval-update-baseline do nothing without --retrieval-eval"
        in e2e_unwrapped(result.stderr.str())
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("--retrieval-evl", "--retrieval-evl: no such option; did you mean --retrieval-eval?"),
        (
            "--retrieval-reprot=out.json",
            "--retrieval-reprot: no such option; did you mean --retrieval-report?",
        ),
        (
            "--retrieval-baseline-update",
            "--retrieval-baseline-update: no such option; did you mean "
            "--retrieval-update-baseline?",
        ),
        (  # an ini key with no option: was "pytest --help lists the retrieval options"
            "--retrieval-metrics",
            "--retrieval-metrics: no such option; retrieval_metrics is an ini key: set it in "
            "the ini file ([tool.pytest.ini_options] in pyproject.toml), or for one run: "
            "-o retrieval_metrics=VALUE",
        ),
        (
            "--retrieval-zzzzzzzz",
            "--retrieval-zzzzzzzz: no such option; pytest --help lists the retrieval options",
        ),
    ],
)
def test_a_misspelled_option_is_named_with_the_closest_one(
    pytester: pytest.Pytester, e2e_project: Path, given: str, said: str
) -> None:
    """argparse had said only 'unrecognized arguments: --retrieval-reprot=out.json'."""
    result = e2e_run(pytester, "--retrieval-eval", given)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: {said}" in result.stderr.str()
    assert not (pytester.path / "out.json").exists()


def test_ini_settings_without_retrieval_eval_are_fine(pytester: pytest.Pytester) -> None:
    """Ini keys are project configuration: a plain test run must not trip on them."""
    e2e_write_project(
        pytester,
        ini="[pytest]\nretrieval_golden = golden\nretrieval_tolerance = 0.05\n"
        "retrieval_baseline = golden/b.json\nretrieval_alpha = not-a-number\n",
    )
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    result = e2e_run(pytester)
    assert result.ret == pytest.ExitCode.OK, e2e_unwrapped(result.stderr.str())
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("ini_line", "option", "says"),
    [
        (
            "",
            "--retrieval-tolerance=0.02 ndcg@5=0.5",
            "--retrieval-tolerance names ndcg@5, which this run does not compute "
            "(retrieval_metrics: ndcg@10 mrr)",
        ),
        (
            "retrieval_tolerance = 0.02 recall@20=0.3 mrr=0.1",
            None,
            "retrieval_tolerance names recall@20, which this run does not compute "
            "(retrieval_metrics: ndcg@10 mrr)",
        ),
        (
            "retrieval_gate_metrics = mrr map",
            None,
            "retrieval_gate_metrics names map, which this run does not compute "
            "(retrieval_metrics: ndcg@10 mrr)",
        ),
    ],
    ids=["tolerance-option", "tolerance-ini", "gate-metrics"],
)
def test_a_setting_naming_a_metric_the_run_does_not_compute_is_a_usage_error(
    pytester: pytest.Pytester, ini_line: str, option: str | None, says: str
) -> None:
    ini = f"[pytest]\nretrieval_golden = golden\nretrieval_metrics = ndcg@10 mrr\n{ini_line}\n"
    e2e_write_project(pytester, ini=ini)
    result = e2e_run(pytester, "--retrieval-eval", *([option] if option else []))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in e2e_unwrapped(result.stderr.str())
    assert "retrieval gate" not in result.stdout.str()


def test_the_plugin_turns_off_with_p_no_retrieval(
    pytester: pytest.Pytester, e2e_project: Path
) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    off = e2e_run(pytester, "-p", "no:retrieval")
    assert off.ret == pytest.ExitCode.OK
    off.assert_outcomes(passed=1)
    unknown = e2e_run(pytester, "-p", "no:retrieval", "--retrieval-eval")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    assert "unrecognized arguments: --retrieval-eval" in e2e_unwrapped(unknown.stderr.str())


def test_help_lists_every_option_with_its_default(pytester: pytest.Pytester) -> None:
    result = e2e_run(pytester, "--help")
    text = " ".join(result.stdout.str().split())
    assert "--retrieval-tolerance=X allowed drop before the gate fails" in text
    assert "(default: 0.02)" in text
    assert (
        "retrieval_bootstrap (string): bootstrap resamples (0: normal intervals) "
        "(default: 10000)" in text
    )


@pytest.mark.parametrize(
    ("ini", "args", "says"),
    [
        (
            "[pytest]\nretrieval_golden = golden\nretrieval_metrics =\n",
            (),
            "pytest.ini: retrieval_metrics is empty: give it a value, or leave the key out "
            "for its default (ndcg@10 mrr recall@20)",
        ),
        (
            "[pytest]\nretrieval_golden = golden\n",
            ("-o", "retrieval_tolerance="),
            "-o: retrieval_tolerance is empty: give it a value, or leave the key out for its "
            "default (0.02)",
        ),
        (
            "[pytest]\nretrieval_golden = golden\n",
            ("--retrieval-timeout=",),
            "--retrieval-timeout is empty: give it a value (DURATION), or leave the option "
            "out for its default (0)",
        ),
        (
            "[pytest]\nretrieval_golden = golden\nretrieval_timeout = 5\n",
            ("--retrieval-timeout", " "),
            "--retrieval-timeout is empty: give it a value (DURATION), or leave the option "
            "out for its default (0)",
        ),
        (
            "[pytest]\nretrieval_golden = golden\n",
            ("--retrieval-report=r.json", "--retrieval-report="),
            "--retrieval-report is empty: give it a value (PATH), or leave the option out",
        ),
        (
            "[pytest]\nretrieval_golden = golden\n",
            ("--retrieval-record=",),
            "--retrieval-record is empty: give it a value (PATH), or leave the option out",
        ),
    ],
    ids=["ini", "override", "option", "option-over-ini", "report", "record"],
)
def test_an_ini_key_written_empty_is_refused_where_it_would_read_as_the_default(
    pytester: pytest.Pytester, ini: str, args: tuple[str, ...], says: str
) -> None:
    e2e_write_project(pytester, ini=ini)
    result = e2e_run(pytester, "--retrieval-eval", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in e2e_unwrapped(result.stderr.str())


def test_an_empty_ini_key_whose_default_is_empty_is_fine(pytester: pytest.Pytester) -> None:
    e2e_write_project(
        pytester, ini="[pytest]\nretrieval_golden = golden\nretrieval_log =\nretrieval_weights =\n"
    )
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.OK, e2e_unwrapped(result.stderr.str())


def test_an_empty_option_whose_default_is_empty_turns_the_ini_value_off(
    pytester: pytest.Pytester,
) -> None:
    """``--retrieval-log=`` says "no log" over the ini file's, as the ini key may say."""
    e2e_write_project(pytester, ini=E2E_INI + "retrieval_log = history.jsonl\n")
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-log=")
    assert result.ret == pytest.ExitCode.OK, e2e_unwrapped(result.stderr.str())
    assert not (pytester.path / "history.jsonl").exists()


BAD_VALUES = [
    (
        ("--retrieval-items=shard:0",),
        "",
        "--retrieval-items must be query, category or shard:N with N from 1 to "
        "999,999,999,999 (e.g. shard:1000), got 'shard:0'",
    ),
    (
        (),
        "retrieval_timeout = -1",
        "pytest.ini:5: retrieval_timeout must be a duration >= 0: seconds (5, 0.5) or with a "
        "unit (500ms, 2s), 0 for no limit; got '-1'",
    ),
    (  # 1e-400 underflows to 0.0, which was no limit
        (),
        "retrieval_timeout = 1e-400",
        "pytest.ini:5: retrieval_timeout must be 0 (no limit) or a positive duration: '1e-400' "
        "is too small for a float and would read as 0, no limit; write a duration a call can "
        "take (500ms, 2s), or 0 for no limit",
    ),
    (
        ("--retrieval-timeout=1e-322ms",),
        "",
        "--retrieval-timeout must be 0 (no limit) or a positive duration: '1e-322ms' is too "
        "small for a float and would read as 0, no limit; write a duration a call can take "
        "(500ms, 2s), or 0 for no limit",
    ),
    (
        (),
        "retrieval_latency_budget = p95=fast",
        "pytest.ini:5: retrieval_latency_budget: 'p95=fast' needs a duration with its unit "
        "(200ms, 2s)",
    ),
    (
        ("--retrieval-latency-budget=p96=2s",),
        "",
        "--retrieval-latency-budget: 'p96=2s' is not statistic=duration (statistics: p50, p90, "
        "p95, p99, max, mean; e.g. p95=200ms max=2s dense:p95=300ms)",
    ),
    (
        ("--retrieval-timeout=fast",),
        "",
        "--retrieval-timeout must be a duration: seconds (5, 0.5) or with a unit (500ms, 2s), "
        "got 'fast'",
    ),
    (
        ("--retrieval-report=notes.txt",),
        "",
        "--retrieval-report notes.txt: the suffix must be one of .json, .md, .html",
    ),
]


@pytest.mark.parametrize(
    ("args", "ini_line", "says"),
    BAD_VALUES,
    ids=[
        "items",
        "timeout",
        "timeout-underflow",
        "timeout-underflow-ms",
        "budget-unit",
        "budget-statistic",
        "timeout-text",
        "report-suffix",
    ],
)
def test_a_bad_value_is_one_usage_error_fitted_to_the_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...],
    ini_line: str, says: str,
) -> None:  # fmt: skip
    """Usage errors were printed on one line however narrow the terminal, where every
    other message of the plugin's is wrapped to it."""
    e2e_write_project(pytester, ini=E2E_INI + ini_line + "\n")
    monkeypatch.setenv("COLUMNS", "60")
    result = e2e_run(pytester, "--retrieval-eval", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert e2e_unwrapped(err).strip() == f"ERROR: {says}"  # one message, no traceback
    lines = err.strip().splitlines()
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines), lines
    assert all(line.startswith("    ") for line in lines[1:]), lines


def test_a_path_option_expands_the_home_folder_and_variables_as_junitxml_does(
    pytester: pytest.Pytester, e2e_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shell does not expand '~' after '=' (--retrieval-report=~/r.json, the form the
    docs ask for outside the project): the plugin wrote a folder named '~' in the
    project, where pytest's own --junitxml=~/j.xml went to the home folder."""
    home = pytester.path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("E2E_OUT", str(home / "out"))
    result = e2e_run(
        pytester,
        "--retrieval-eval",
        "--retrieval-update-baseline",
        "--retrieval-report=~/r.json",
        "--retrieval-log=$E2E_OUT/log.jsonl",
        "--retrieval-baseline=${E2E_OUT}/b.json",
        "--junitxml=~/j.xml",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert not (pytester.path / "~").exists() and not (pytester.path / "$E2E_OUT").exists()
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert written == ["j.xml", "out/b.json", "out/log.jsonl", "r.json"]


def test_ndcg_written_as_ir_measures_writes_it_under_exponential_gain_is_a_warning_at_its_key(
    pytester: pytest.Pytester,
) -> None:
    """'nDCG@10' promised ir_measures' number (linear gain); the default gain is
    exponential, so on graded judgments the number differed without a word. A settings
    warning naming a setting is shown at its line of the ini file."""
    e2e_write_project(pytester, ini=E2E_INI.replace("ndcg@10 mrr", "nDCG@10 mrr"))
    result = e2e_run(pytester, "--retrieval-eval", "-p", "no:randomly")
    out = " ".join(result.stdout.str().split())
    assert (
        "pytest.ini:3: RetrievalSettingsWarning: retrieval_metrics writes nDCG@10 as ir_measures "
        "does, whose nDCG has linear gain (trec_eval's); this run's is exponential"
    ) in out, out
    linear = e2e_run(pytester, "--retrieval-eval", "-o", "retrieval_gain=linear")
    assert "as ir_measures does" not in linear.stdout.str()


def test_native_toml_numbers_and_booleans_in_tool_pytest_are_read_as_the_cli_reads_them(
    pytester: pytest.Pytester,
) -> None:
    """pytest 9's [tool.pytest] checks a TOML value's type against the declared one: a
    number or a bool (retrieval_max_grade = 5, retrieval_github = false) stopped the run
    with pytest's "config option 'retrieval_max_grade' expects a string, got int: 5", and
    a tolerance with "expects a list for type 'args', got float", while the command line
    (pytest-retrieval) read the same file. Both now read them alike."""
    e2e_write_project(pytester)
    (pytester.path / "pytest.ini").unlink()
    pytester.makepyprojecttoml(
        "[tool.pytest]\nretrieval_max_grade = 5\nretrieval_tolerance = 0.05\n"
        "retrieval_github = false\nretrieval_metrics = 'mrr ndcg@5'\n"
    )
    result = e2e_run(pytester, "--retrieval-eval", "--retrieval-report=r.json")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    settings = e2e_load_json(pytester.path / "r.json")["settings"]
    assert settings["max_grade"] == 5 and settings["metrics"] == ["mrr", "ndcg@5"]
    assert "expects a" not in result.stderr.str()


def test_a_toml_table_for_a_setting_is_a_usage_error_with_the_fix(
    pytester: pytest.Pytester,
) -> None:
    e2e_write_project(pytester)
    (pytester.path / "pytest.ini").unlink()
    pytester.makepyprojecttoml("[tool.pytest]\nretrieval_metrics = {a = 1}\n")
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "pyproject.toml: retrieval_metrics is a table; write text or a list of text"
    ) in e2e_unwrapped(result.stderr.str())


def test_a_native_toml_number_is_not_blamed_for_another_keys_mistake(
    pytester: pytest.Pytester,
) -> None:
    """A number pytest refused is read from the file the command line's way, which also
    checks every other key: an empty retrieval_seed was reported as "retrieval_max_grade:
    write its value as TOML text", a key that is fine, with no word of the empty one."""
    e2e_write_project(pytester)
    (pytester.path / "pytest.ini").unlink()
    pytester.makepyprojecttoml('[tool.pytest]\nretrieval_max_grade = 5\nretrieval_seed = ""\n')
    result = e2e_run(pytester, "--retrieval-eval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = e2e_unwrapped(result.stderr.str())
    assert "pyproject.toml: retrieval_seed is empty: give it a value" in err, err
    assert "retrieval_max_grade" not in err


def test_a_native_toml_number_for_retrieval_golden_is_read_as_the_other_keys_are(
    pytester: pytest.Pytester,
) -> None:
    """``retrieval_golden = 5`` under [tool.pytest]: the entry point read the key with
    getini, so pytest's "expects a list for type 'args', got int: 5" (no fix) stopped
    every run, with --retrieval-eval or without, while the other keys went through the
    plugin's reading. Now a plain run runs, an evaluation names the file, the key and
    the fix, and a table gets the plugin's fix even without --retrieval-eval."""
    pytester.makepyprojecttoml("[tool.pytest]\nretrieval_golden = 5\n")
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    plain = pytester.runpytest_subprocess("-p", "no:randomly")
    assert plain.ret == pytest.ExitCode.OK, plain.stderr.str()
    nothing = pytester.runpytest_subprocess("-p", "no:randomly", "-k", "nothing")
    assert "expects a" not in nothing.stderr.str()
    evaluated = e2e_run(pytester, "--retrieval-eval")
    assert evaluated.ret == pytest.ExitCode.USAGE_ERROR
    err = e2e_unwrapped(evaluated.stderr.str())
    assert "expects a" not in err
    assert "retrieval_golden: 5 does not exist" in err
    assert "fix the path in pyproject.toml (retrieval_golden)" in err
    pytester.makepyprojecttoml("[tool.pytest]\nretrieval_golden = {a = 1}\n")
    table = pytester.runpytest_subprocess("-p", "no:randomly")
    assert table.ret == pytest.ExitCode.USAGE_ERROR
    assert "pyproject.toml: retrieval_golden is a table; write text" in e2e_unwrapped(
        table.stderr.str()
    )
