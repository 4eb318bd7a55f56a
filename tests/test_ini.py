"""Reading the ini settings without pytest: the same file, rootdir and values pytest finds."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from _pytest.config.findpaths import determine_setup

from pytest_retrieval.io.ini import IniError, find_config, parse_overrides, read_config_file
from pytest_retrieval.settings import parse_run_settings

PYPROJECT_INI = """\
[tool.pytest.ini_options]
retrieval_metrics = ["ndcg@5", "mrr"]
retrieval_max_grade = 4
"""
PYPROJECT_NATIVE = """\
[tool.pytest]
retrieval_metrics = ["ndcg@5", "mrr"]
retrieval_max_grade = "4"
"""
PYTEST_INI = "[pytest]\nretrieval_metrics = ndcg@5 mrr\nretrieval_max_grade = 4\n"
TOX_INI = (
    "[tox]\nenvlist = py\n[pytest]\nretrieval_metrics = ndcg@5\n  mrr\nretrieval_max_grade = 4\n"
)
SETUP_CFG = (
    "[metadata]\nname = x\n[tool:pytest]\nretrieval_metrics = ndcg@5 mrr\nretrieval_max_grade=4\n"
)
PYTEST_TOML = '[pytest]\nretrieval_metrics = ["ndcg@5", "mrr"]\nretrieval_max_grade = "4"\n'

LAYOUTS = {
    "pyproject ini_options": {"pyproject.toml": PYPROJECT_INI},
    "pyproject native": {"pyproject.toml": PYPROJECT_NATIVE},
    "pytest.ini": {"pytest.ini": PYTEST_INI},
    "tox.ini": {"tox.ini": TOX_INI},
    "setup.cfg": {"setup.cfg": SETUP_CFG},
    "pytest.toml": {"pytest.toml": PYTEST_TOML},
    "pytest.ini beats pyproject": {"pytest.ini": PYTEST_INI, "pyproject.toml": PYPROJECT_INI},
    "empty pytest.ini wins": {"pytest.ini": "", "tox.ini": TOX_INI},
    "tox.ini without [pytest] is skipped": {"tox.ini": "[tox]\n", "setup.cfg": SETUP_CFG},
    "in a parent folder": {"../pytest.ini": PYTEST_INI},
    "pyproject without a pytest table": {"pyproject.toml": "[project]\nname = 'x'\n"},
    "nothing": {},
}


def _lay_out(tmp_path: Path, files: dict[str, str]) -> Path:
    start = tmp_path / "project" / "sub"
    start.mkdir(parents=True)
    for name, text in files.items():
        (tmp_path / "project" / name).write_text(text, encoding="utf-8")
    return start


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_same_file_rootdir_and_values_as_pytest(tmp_path, layout, monkeypatch):
    start = _lay_out(tmp_path, LAYOUTS[layout])
    monkeypatch.chdir(start)
    rootdir, inipath, values, _ = determine_setup(
        inifile=None, override_ini=None, args=[], rootdir_cmd_arg=None, invocation_dir=start
    )
    ours = find_config(start)
    assert ours.path == inipath
    if inipath is not None:
        assert ours.rootdir == rootdir
    theirs = {k: v.value for k, v in values.items()}
    assert dict(ours.values) == theirs


WITH_SETTINGS = [
    k
    for k, files in LAYOUTS.items()
    if "retrieval_max_grade" in "".join(files.values()) and k != "empty pytest.ini wins"
]


@pytest.mark.parametrize("layout", WITH_SETTINGS)
def test_settings_read_from_every_format(tmp_path, layout):
    start = _lay_out(tmp_path, LAYOUTS[layout])
    run = parse_run_settings(find_config(start).raw_settings())
    assert [m.name for m in run.settings.metrics] == ["ndcg@5", "mrr"]
    assert run.settings.max_grade == 4


def test_args_keys_split_like_a_shell_line_and_overrides_win(tmp_path):
    (tmp_path / "pytest.ini").write_text(
        '[pytest]\nretrieval_golden = "my golden" other\nretrieval_gain = linear\n', "utf-8"
    )
    ini = find_config(tmp_path)
    raw = ini.raw_settings(parse_overrides(["retrieval_gain=exponential", "retrieval_seed=7"]))
    assert raw["retrieval_golden"] == ["my golden", "other"]
    run = parse_run_settings(raw)
    assert run.settings.conventions.gain == "exponential" and run.stats.seed == 7


def test_an_explicit_file_is_read_by_name_then_suffix(tmp_path):
    custom = tmp_path / "ci.toml"
    custom.write_text('[pytest]\nretrieval_gain = "linear"\n', encoding="utf-8")
    assert read_config_file(custom).values == {"retrieval_gain": "linear"}
    odd = tmp_path / "ci.ini"
    odd.write_text("[pytest]\nretrieval_gain = linear\n", encoding="utf-8")
    found = find_config(tmp_path / "elsewhere", odd)
    assert found.path == odd and found.rootdir == tmp_path
    with pytest.raises(IniError, match="does not exist"):
        read_config_file(tmp_path / "missing.ini")
    # a folder (--config . for the project's): it said the folder did not exist
    with pytest.raises(IniError, match=r"is a folder: name the file in it \(pytest.toml, "):
        read_config_file(tmp_path)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("pyproject.toml", "[tool.pytest\n", "not valid TOML"),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\nretrieval_max_grade = 1" + "0" * 5000 + "\n",
            "not valid TOML: a number has more than 4300 digits",
        ),
        ("pytest.ini", "[pytest]\nretrieval_gain = a\nretrieval_gain = b\n", "not a valid ini"),
        (
            "pyproject.toml",
            textwrap.dedent(PYPROJECT_INI) + "[tool.pytest]\nminversion = '8'\n",
            "both [tool.pytest] and [tool.pytest.ini_options]",
        ),
    ],
)
def test_broken_config_files_are_named(tmp_path, name, text, message):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(IniError, match=message.replace("[", r"\[").replace("]", r"\]")):
        find_config(tmp_path)


def test_a_bad_override_is_refused():
    with pytest.raises(IniError, match="--override-ini expects KEY=VALUE"):
        parse_overrides(["retrieval_gain"])


@pytest.mark.parametrize(
    "text",
    ["[pytest]\nretrieval_metrics =\n", "[tool.pytest.ini_options]\nretrieval_metrics = []\n"],
    ids=["pytest.ini", "pyproject.toml"],
)
def test_a_key_written_empty_is_refused_as_pytest_refuses_it(tmp_path, text):
    name = "pyproject.toml" if "tool." in text else "pytest.ini"
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(IniError) as raised:
        find_config(tmp_path, None).raw_settings()
    assert str(raised.value) == (
        f"{tmp_path / name}: retrieval_metrics is empty: give it a value, or leave the key "
        "out for its default (ndcg@10 mrr recall@20)"
    )


def test_numbers_in_scientific_notation_are_read_where_a_float_is_wanted():
    run = parse_run_settings(
        {
            "retrieval_tolerance": "1e-3 mrr=5E-2 ndcg@10=2e0%",
            "retrieval_alpha": "5e-2",
            "retrieval_timeout": "1.5e1",
            "retrieval_weights": "a=1e-1 b=2E0",
            "retrieval_latency_budget": "p95=2e2ms",
        }
    )
    tolerance = run.gate.tolerance
    assert (tolerance.default.value, str(tolerance)) == (0.001, "0.001 mrr=0.05 ndcg@10=2%")
    assert (run.stats.alpha, run.stats.weights) == (0.05, {"a": 0.1, "b": 2.0})
    assert run.run.calls.timeout == 15.0
    assert run.gate.latency[0].seconds == 0.2


@pytest.mark.parametrize(
    ("given", "seconds"),
    [("5", 5.0), ("0.5", 0.5), ("2s", 2.0), ("500ms", 0.5), ("1.5e2ms", 0.15), ("0", None)],
)
def test_a_timeout_is_seconds_or_a_duration_with_its_unit_as_a_budget_is(given, seconds):
    assert parse_run_settings({"retrieval_timeout": given}).run.calls.timeout == seconds


def test_a_latency_budget_names_a_configuration_whose_name_holds_an_equals_sign():
    """'bm25-k=10:p95=200ms' was split at its first '=': 'bm25-k' and '10:p95=200ms',
    refused as not statistic=duration, so such a configuration could have no budget."""
    run = parse_run_settings({"retrieval_latency_budget": "bm25-k=10:p95=200ms max=2s"})
    assert [str(limit) for limit in run.gate.latency] == ["bm25-k=10:p95=200ms", "max=2s"]
    assert run.gate.latency[0].configuration == "bm25-k=10"
