"""Shared helpers for the tests: a config from keyword arguments, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from study.model.config import StudyConfig, parse_config

REPO = Path(__file__).resolve().parent.parent

settings.register_profile("default", deadline=None, print_blob=True)
settings.load_profile("default")


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


SAME_WORKER = {"tests/test_prompts_analysis.py": "tests/test_prompts.py"}
"""Test files that run on one worker with another (``make test``'s ``--dist loadfile``): both
run the many-prompts kernel, whose first compilation takes tens of seconds; on one worker the
second file finds it compiled, on two each worker would compile it."""


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
