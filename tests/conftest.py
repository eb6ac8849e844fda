"""Shared helpers for the tests: a config from keyword arguments, a CLI runner, and the whole
pipeline's outputs (``study_outputs``) for the tests that read them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from study.model.config import StudyConfig, parse_config
from study.model.paths import SHARD_CACHE_VARIABLE

REPO = Path(__file__).resolve().parent.parent

settings.register_profile("default", deadline=None, print_blob=True)
settings.load_profile("default")


@pytest.fixture(autouse=True, scope="session")
def _shards_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Runs given no ``--cache`` keep their shards under the per-user cache
    (``study.model.paths.shard_cache``): in the tests, a temporary folder instead, for this
    process and the commands it starts."""
    os.environ[SHARD_CACHE_VARIABLE] = str(tmp_path_factory.mktemp("shards"))


def toml_value(value: object) -> str:
    """A Python value written as TOML (enough for configs: str, bool, numbers, nested lists and
    inline tables)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def config_text(study: dict[str, object] | None = None, **grid: object) -> str:
    """TOML for a small study; ``study`` and ``grid`` entries override the defaults below (a
    grid entry of None leaves that key out)."""
    study_table = {"name": "t", "root_seed": 1, "seeds": 8, **(study or {})}
    grid_table = {"probs": [[0.5, 0.55, 0.6]], "budgets": [10, 50], **grid}
    lines = ["[study]", *(f"{k} = {toml_value(v)}" for k, v in study_table.items()),
             "[grid]", *(f"{k} = {toml_value(v)}" for k, v in grid_table.items()
                         if v is not None)]
    return "\n".join(lines) + "\n"


def make_config(study: dict[str, object] | None = None, **grid: object) -> StudyConfig:
    """A validated config built with ``config_text``."""
    return parse_config(config_text(study, **grid))


def run_module(module: str, *args: str, cwd: Path = REPO,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m MODULE ARGS`` in a real process run in ``cwd``, as a user would run it."""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=600)


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m bandit_study ARGS`` in a real process, as a user would run it."""
    return run_module("bandit_study", *args, env=env)


@pytest.fixture
def write_config(tmp_path: Path):
    """Write a config's TOML text to a file and return its path."""
    def write(text: str, name: str = "study.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


# The tests' helper modules (conftest, report_checks, textbook, runs_checksum) are imported as
# plain modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))


PIPELINE_SEEDS = 24
"""Seeds of every study in the ``study_outputs`` pipeline."""


@pytest.fixture(scope="session")
def study_outputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every study of ``study/configs/`` run at ``PIPELINE_SEEDS`` seeds, analysed, drawn and
    written up into one folder, once per test process (``SAME_WORKER`` puts every file that
    reads it on one worker)."""
    from study.model.config import load_config
    from study.model.paths import CONFIG_DIR
    from study.orchestration.outputs import run_and_write

    out = tmp_path_factory.mktemp("out")
    for path in sorted(CONFIG_DIR.glob("*.toml")):
        config = load_config(path).with_seeds(PIPELINE_SEEDS)
        run_and_write(config, out / path.stem, quiet=True)
        done = subprocess.run([sys.executable, "-m", "analysis", str(out / path.stem),
                               "--config", str(path), "--out", str(out / "tables" / path.stem)],
                              cwd=REPO, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
    for args in (["-m", "figures", str(out / "tables"), "--out", str(out / "figures")],
                 ["-m", "figures.report", "--tables", str(out / "tables"), "--figures",
                  str(out / "figures"), "--runs", str(out), "--out", str(out / "report.md")]):
        done = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="session")
def study_paper(study_outputs: Path) -> Path:
    """The paper of ``study_outputs``, typeset once (``python -m figures.paper``)."""
    pdf = study_outputs / "paper.pdf"
    done = subprocess.run([sys.executable, "-m", "figures.paper", "--tables",
                           str(study_outputs / "tables"), "--figures",
                           str(study_outputs / "figures"), "--runs", str(study_outputs),
                           "--out", str(pdf)], cwd=REPO, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return pdf


LONGEST_FIRST = ("test_report.py", "test_prompts.py", "test_prompts_analysis.py",
                 "test_reproducibility.py")
"""The test files that take longest, in that order: scheduled first (``--dist loadfile`` hands
files out in collection order), so that the longest one, a whole pipeline of every study, does
not start after most of the rest and end alone."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that reads the whole pipeline's outputs (the ``study_outputs`` fixture: every study
    run, analysed, drawn and written up) is slow, whether or not it says so: ``make test-fast``
    runs no whole pipeline. With the slow tests, the files of ``LONGEST_FIRST`` run first
    (without them the order is the files', whose first ones compile the kernels on one worker
    while the other runs tests that need none)."""
    for item in items:
        if "study_outputs" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    if config.getoption("markexpr") == "not slow":
        return
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


SAME_WORKER = {"tests/test_prompts_analysis.py": "tests/test_prompts.py",
               "tests/test_ledger.py": "tests/test_report.py",
               "tests/test_paper.py": "tests/test_report.py"}
"""Test files that run on one worker with another (``make test``'s ``--dist loadfile``): the
first two run the many-prompts kernel, whose first compilation takes tens of seconds (on one
worker the second file finds it compiled, on two each worker would compile it); the others read
the whole pipeline (``study_outputs``), made once per worker."""


# optional: a run without xdist (-p no:xdist) has no such hook.
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """xdist's scheduling by file, with the files of ``SAME_WORKER`` taken as one."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedKernels(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return SAME_WORKER.get(scope, scope)

    return SharedKernels(config, log)
