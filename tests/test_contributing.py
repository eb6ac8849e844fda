"""The code of README.md and CONTRIBUTING.md runs as printed: the README's own study to its
report, the recipe for a table with its section written into a copy of the packages and run to a
report that shows it, the recipe's study config valid. (The README's notebook block is run by
``tests/test_api.py``, its seed exercise's output by ``tests/test_cli.py``.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO
from study.model.config import parse_config

FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.S | re.M)
REWARD_FILES = ("study/rewards/diluted.py", "reference/rewards/diluted.py")
"""Where the recipe for a reward model puts its two blocks, in order (the first two)."""
CORRECTION_FILES = ("study/corrections/mis.py", "reference/corrections/mis.py")
"""Where the recipe for an off-policy correction puts its two blocks (the next two)."""
ALLOCATION_FILES = ("study/allocations/check_solved.py",
                    "reference/allocations/check_solved.py")
"""Where the recipe for an allocation rule puts its two blocks (the next two)."""
RECIPE_FILES = ("analysis/questions/greedy_value.py", "figures/sections/greedy_value.py",
                "figures/templates/greedy_value.md.j2")
"""Where the recipe for a table with its section puts its three blocks, in order (the next
three)."""


def blocks(name: str) -> list[tuple[str, str]]:
    """Every fenced code block of the file ``name``: (language, text), dedented."""
    text = (REPO / name).read_text()
    return [(language, textwrap.dedent(body)) for indent, language, body in FENCE.findall(text)]


def packages_with(tmp_path: Path, packages: tuple[str, ...],
                  files: dict[str, str]) -> dict[str, str]:
    """A copy of ``packages`` under ``tmp_path / "packages"`` with ``files`` (path: text) written
    into it; the environment whose imports find the copy first."""
    root = tmp_path / "packages"
    for package in packages:
        shutil.copytree(REPO / package, root / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for path, text in files.items():
        (root / path).write_text(text)
    return {**os.environ, "PYTHONPATH": str(root)}


def check_and_run(folder: Path, env: dict[str, str], check: str, config: str) -> None:
    """``check`` (a script that prints "agrees") in a process of its own, then the study
    ``config`` through ``python -m bandit_study run`` into ``folder / "runs"``."""
    done = subprocess.run([sys.executable, "-c", check], cwd=folder, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "agrees" in done.stdout, done.stderr[-4000:]
    (folder / "mine.toml").write_text(config)
    done = subprocess.run([sys.executable, "-m", "bandit_study", "run", "mine.toml", "--out",
                           "runs", "--quiet"], cwd=folder, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-4000:]


def run_to_report(work: Path, env: dict[str, str]) -> None:
    """The study ``mine.toml`` in ``work`` through every command, as the README runs one."""
    for args in (("bandit_study", "run", "mine.toml", "--out", "runs/mine", "--quiet"),
                 ("analysis", "runs/mine", "--config", "mine.toml", "--out", "tables/mine"),
                 ("figures", "tables", "--out", "figures"),
                 ("figures.report", "--tables", "tables", "--figures", "figures", "--runs",
                  "runs", "--out", "report.md")):
        done = subprocess.run([sys.executable, "-m", *args], cwd=work, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stderr[-6000:])


def test_every_block_is_one_a_test_runs() -> None:
    # A new block without a test fails here. The README's: the two commands (what CI runs),
    # the seed exercise's output, the own study, the notebook and the citation (no code);
    # CONTRIBUTING's: the reward model recipe's two files, the correction recipe's two, the
    # allocation rule recipe's two, the table recipe's three and the study's config.
    readme = [language for language, _ in blocks("README.md")]
    assert readme == ["sh", "", "sh", "python", "bibtex"]
    assert blocks("README.md")[0][1].splitlines() == [
        "make all    # regenerate every output under out/: runs, tables, figures, report.md, "
        "numbers.tex, paper.pdf", "make test   # run the test suite"]
    assert [language for language, _ in blocks("CONTRIBUTING.md")] == [
        "python", "python", "python", "python", "python", "python", "python", "python",
        "jinja", "toml"]


def test_the_recipe_study_is_a_valid_config() -> None:
    (_, text), = [block for block in blocks("CONTRIBUTING.md") if block[0] == "toml"]
    config = parse_config(text)
    assert config.name == "wider_gap" and config.analysis.sections == ("headline", "references")


def _python_first() -> dict[str, str]:
    """An environment whose ``python`` is this interpreter's venv's, as after ``make venv`` and
    activating it."""
    bin_dir = Path(sys.executable).parent
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.slow
def test_the_readme_own_study_runs_to_its_report(tmp_path: Path) -> None:
    (_, script), = blocks("README.md")[2:3]
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work,
                          env=_python_first(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    report = (work / "report.md").read_text()
    assert "## 1. How accuracy rises with the budget" in report
    assert "](figures/mine_accuracy_vs_budget.png)" in report
    assert "## 2. Above the never-training sampler and above uniform allocation" in report
    # The composed study (off-policy answers that cost tokens) gets the sections of its parts.
    for title in ("Answers that cost tokens: the price of a length penalty (`composed`)",
                  "Off-policy rollouts: what a stale sampler costs (`composed`)"):
        assert title in report
    # Only where the commands were told: the runs (their shards under the per-user cache), the
    # tables, the figures, and the report with its sources and named numbers.
    assert sorted(p.name for p in work.iterdir()) == [
        "composed.toml", "figures", "mine.toml", "number_sources.csv", "numbers.tex",
        "report.md", "report_sources.csv", "runs", "tables"]
    assert sorted(p.name for p in (work / "runs").iterdir()) == ["composed", "mine"]


@pytest.mark.slow
def test_the_table_recipe_adds_a_table_and_its_section(tmp_path: Path) -> None:
    # The recipe's three blocks into a copy of the analysis and the write-up (the simulation
    # is the installed one: the recipe does not touch it), then a study that declares the
    # section, through analysis, figures and report.
    recipe = [text for language, text in blocks("CONTRIBUTING.md") if language != "toml"][6:]
    env = packages_with(tmp_path, ("bandit_study", "analysis", "figures"),
                        dict(zip(RECIPE_FILES, recipe, strict=True)))
    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.toml").write_text(
        '[study]\nname = "mine"\nroot_seed = 2\nseeds = 64\n[grid]\n'
        'algorithm = ["reinforce", "uniform"]\nprobs = [[0.4, 0.5, 0.6]]\nbudgets = [20, 100]\n'
        '[analysis]\nsections = ["headline", "greedy_value"]\n')
    run_to_report(work, env)
    assert (work / "tables" / "mine" / "greedy_value.parquet").is_file()
    report = (work / "report.md").read_text()
    heading = "The value of the greedy arm (`mine`)"
    assert re.search(rf"^## \d+\. {re.escape(heading)}$", report, re.M)
    part = report.split(heading, 1)[1].split("\n## ", 1)[0]
    assert "over 64 seeds, with its 95% interval" in part
    assert re.search(r"\| *greedy_value_low *\|", part)


def test_the_readme_lists_every_study() -> None:
    # The README's table of studies has a row per config of study/configs/, and no other.
    readme = (REPO / "README.md").read_text()
    listed = re.findall(r"^\| `(\w+)` \|", readme, re.M)
    assert sorted(listed) == sorted(p.stem for p in (REPO / "study" / "configs").glob("*.toml"))


def test_a_run_without_cache_writes_only_its_out_folder(tmp_path: Path) -> None:
    # Its shards go to the per-user cache (here the tests' BANDIT_STUDY_SHARD_CACHE), a folder
    # per --out, and a second run into the same folder reuses them.
    from conftest import config_text, run_cli

    (tmp_path / "t.toml").write_text(config_text())
    for _ in range(2):
        done = run_cli("run", str(tmp_path / "t.toml"), "--out", str(tmp_path / "runs" / "t"),
                       "--quiet")
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs", "t.toml"]
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["t"]
    manifest = (tmp_path / "runs" / "t" / "manifest.json").read_text()
    assert '"shards_reused": 1' in manifest


@pytest.mark.slow
def test_the_reward_model_recipe_runs_through_figures_and_report(tmp_path: Path) -> None:
    # The recipe's two blocks into a copy of the packages (the model's reference beside it),
    # then a study of the diluted check at three dilutions, through every command: its rows of
    # the noisy-reward tables are read by role, and the noisy-verifier section, which reads a
    # verifier's error rates, says why it does not fit (where the figures once stopped on
    # KeyError: 'false_positive').
    recipe = [text for language, text in blocks("CONTRIBUTING.md") if language == "python"]
    env = packages_with(tmp_path, ("bandit_study", "study", "reference", "analysis", "figures"),
                        dict(zip(REWARD_FILES, recipe[:2], strict=True)))
    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.toml").write_text(
        '[study]\nname = "mine"\nroot_seed = 4\nseeds = 100\n[grid]\n'
        'probs = [[0.3, 0.5, 0.8]]\nreward_model = "diluted"\ndilution = [1.0, 0.8, 0.6]\n'
        'lr = [1.0]\nbudgets = [20, 100, 500, 2000]\n')
    run_to_report(work, env)
    import pandas as pd

    cost = pd.read_parquet(work / "tables" / "mine" / "reward_noise_cost.parquet")
    assert sorted(cost["gap_factor"].unique()) == [0.6, 0.8]
    assert cost[["false_positive", "false_negative"]].isna().all(axis=None)
    # The margin prediction 1 / f^2 of each row, the variance-folded one only for a verifier.
    assert (cost["predicted_ratio"] == 1.0 / cost["gap_factor"] ** 2).all()
    assert cost["variance_predicted_ratio"].isna().all()
    report = (work / "report.md").read_text()
    assert "declare no verifier's error rates" in report


CORRECTION_CHECK = """
import numpy as np

from reference import run
from study.core.streams import run_keys
from study.model.environment import Environment
from study.model.grid import Simulation
from study.model.offpolicy import OffPolicy
from study.orchestration.simulate import simulate

env = Environment.fixed([0.5, 0.55, 0.6])
sampler = OffPolicy(lag=3, mismatch=1.0, top_p=0.9, correction="mis+opsm",
                    parameters=(("mis_cap", 1.5), ("opsm_threshold", 0.05)))
keys = run_keys(3, np.arange(70))
out = simulate(Simulation("reinforce", env, 3.0, "group_mean", 4, offpolicy=sampler), keys,
               (8, 200), scores=True)
for i in range(70):
    expected = run(keys[i], list(env.values), "bernoulli", "reinforce", 3.0, "group_mean", [8, 200],
                   4, offpolicy=sampler).checkpoints
    for c, point in enumerate(expected):
        assert out.greedy[i, c] == point.greedy and out.reward_sum[i, c] == point.reward_sum
        assert np.allclose(out.scores[i, c], point.scores, rtol=0, atol=1e-12)
print("agrees")
"""


@pytest.mark.slow
def test_the_correction_recipe_adds_a_correction_in_two_files(tmp_path: Path) -> None:
    # The recipe's two blocks into a copy of the packages: the kernel agrees with the reference
    # on it (joined with a mask, on a stale, mismatched and truncated sampler), and a study
    # names it and its parameter in its config and runs.
    recipe = [text for language, text in blocks("CONTRIBUTING.md") if language == "python"]
    env = packages_with(tmp_path, ("bandit_study", "study", "reference"),
                        dict(zip(CORRECTION_FILES, recipe[2:4], strict=True)))
    check_and_run(tmp_path, env, CORRECTION_CHECK,
                  '[study]\nname = "mine"\nroot_seed = 4\nseeds = 20\n[grid]\n'
                  'probs = [[0.3, 0.5, 0.8]]\nbaseline = ["group_mean"]\ngroup_size = [4]\n'
                  'lag = [0, 2]\ncorrection = ["mis", "tis"]\nmis_cap = 1.5\nbudgets = [8, 80]\n')
    import pandas as pd

    assert set(pd.read_parquet(tmp_path / "runs" / "cells.parquet")["correction"]) == {
        "mis", "tis"}


ALLOCATION_CHECK = """
import numpy as np

from reference.prompts import run
from study.core.streams import run_keys
from study.orchestration.simulate import simulate_values

rng = np.random.default_rng(5)
values = rng.beta(4.0, 1.0, size=(30, 6, 3))
keys = run_keys(2, np.arange(30))
budgets = (24, 100, 400)
out = simulate_values(values, keys, 1.0, "leave_one_out", 4, "check_solved", budgets)
for i in range(30):
    expected = run(keys[i], values[i].tolist(), 1.0, "leave_one_out", 4, "check_solved",
                   list(budgets))
    assert out.rollouts[i].tolist() == expected["rollouts"], i
    assert out.best[i].tolist() == expected["best"], i
# A rule that never runs a group: the run stops after IDLE_PASSES empty passes, its checkpoints
# the untrained state, in the kernel and the reference alike.
never = simulate_values(values, keys, 1.0, "leave_one_out", 4, "never", budgets)
assert (never.rollouts == 0).all() and (never.prompts.sum(axis=2) == 6).all()
expected = run(keys[0], values[0].tolist(), 1.0, "leave_one_out", 4, "never", list(budgets))
assert never.best[0].tolist() == expected["best"]
print("agrees")
"""
NEVER = ("""
from study.allocations import Allocation

ALLOCATION = Allocation(name="never", display="never", key="Never", whole_groups=True)


def register():
    from study.core.allocation_hooks import implement, sizes

    @implement(sizes, "never")
    def _sizes(arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch,
               work, out):
        out[:] = 0
""", """
def sizes(prompts, group, words, r):
    return [0] * len(prompts)
""")


@pytest.mark.slow
def test_the_allocation_recipe_adds_a_rule_in_two_files(tmp_path: Path) -> None:
    # The recipe's two blocks into a copy of the packages: the many-prompts kernel agrees with
    # the reference under the new rule, and a study names it and runs. Beside it a rule that
    # never runs a group, whose runs end all the same (study.core.prompt_rules.IDLE_PASSES).
    recipe = [text for language, text in blocks("CONTRIBUTING.md") if language == "python"]
    never = {f"{folder}/allocations/never.py": text
             for folder, text in zip(("study", "reference"), NEVER, strict=True)}
    env = packages_with(tmp_path, ("bandit_study", "study", "reference"),
                        {**dict(zip(ALLOCATION_FILES, recipe[4:6], strict=True)), **never})
    check_and_run(tmp_path, env, ALLOCATION_CHECK,
                  '[study]\nname = "mine"\nroot_seed = 4\nseeds = 20\n[grid]\nprompts = [8]\n'
                  'allocation = ["uniform", "check_solved"]\nprobs = [{draw = "beta", arms = 3, '
                  'a = 4, b = 1}]\nbaseline = ["group_mean"]\ngroup_size = [4]\n'
                  'budgets = [32, 320]\n')
