"""The command line: outputs and their columns, and every kind of bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from bandit_study.cli import main
from conftest import config_text, run_cli
from study.model.paths import REPO_ROOT
from study.model.schema import (
    CELL_COLUMNS,
    CELLS_FILE,
    RUNS_COLUMNS,
    RUNS_FILE,
    STORED_RUN_COLUMNS,
)
from study.orchestration.storage import read_runs

BAD_CONFIGS = {
    "malformed TOML": ("[study\nname = 1", "config"),
    "unknown top-level key": (config_text() + "[extra]\nx = 1\n", "extra"),
    "unknown study key": (config_text({"colour": "red"}), "study.colour"),
    "unknown grid key": (config_text(gamma=[0.9]), "grid.gamma"),
    "missing grid key": ("[study]\nname = 't'\nroot_seed = 1\nseeds = 2\n[grid]\nbudgets = [5]\n",
                         "grid.probs"),
    "probability above 1": (config_text(probs=[[0.5, 1.5]]), "grid.probs[0][1]"),
    "negative probability": (config_text(probs=[[0.5, 0.6], [-0.1, 0.2]]), "grid.probs[1][0]"),
    "NaN probability": (config_text(probs=[[0.5, float("nan")]]), "grid.probs[0][1]"),
    "one arm": (config_text(probs=[[0.5]]), "grid.probs[0]"),
    "zero budget": (config_text(budgets=[0, 10]), "grid.budgets[0]"),
    "negative budget": (config_text(budgets=[-5]), "grid.budgets[0]"),
    "repeated budget": (config_text(budgets=[50, 50]), "grid.budgets[1]"),
    "decreasing budgets": (config_text(budgets=[200, 50]), "grid.budgets[1]"),
    "fractional budget": (config_text(budgets=[10.5]), "grid.budgets[0]"),
    "huge budget": (config_text(budgets=[10**12]), "grid.budgets[0]"),
    "negative lr": (config_text(lr=[0.1, -0.1]), "grid.lr[1]"),
    "infinite lr": (config_text(lr=[float("inf")]), "grid.lr[0]"),
    "NaN lr": (config_text(lr=[float("nan")]), "grid.lr[0]"),
    "text lr": (config_text(lr=["fast"]), "grid.lr[0]"),
    "zero seeds": (config_text({"seeds": 0}), "study.seeds"),
    "boolean seeds": (config_text({"seeds": True}), "study.seeds"),
    "negative root seed": (config_text({"root_seed": -1}), "study.root_seed"),
    "unknown baseline": (config_text(baseline=["median"]), "grid.baseline[0]"),
    "unknown algorithm": (config_text(algorithm=["reinforce", "ppo"]), "grid.algorithm[1]"),
    "empty axis": (config_text(lr=[]), "grid.lr"),
    "axis not a list": (config_text(lr=0.1), "grid.lr"),
    "repeated lr": (config_text(lr=[0.1, 0.1]), "grid.lr[1]"),
    "negative cost": (config_text(cost=[-1.0]), "grid.cost[0]"),
    "unknown stream mode": (config_text({"streams": "shared"}), "study.streams"),
    "bad name": (config_text({"name": "../up"}), "study.name"),
    "curves not a boolean": (config_text({"curves": "yes"}), "study.curves"),
    "mean not a number": (config_text(means=[[0.0, "high"]]), "grid.means[0][1]"),
    "mean too large": (config_text(means=[[0.0, 1e6]]), "grid.means[0][1]"),
    "one Gaussian arm": (config_text(means=[[1.0]]), "grid.means[0]"),
    "unknown draw": (config_text(means=[{"draw": "cauchy", "arms": 3}]), "grid.means[0].draw"),
    "draw of the other model": (config_text(probs=[{"draw": "normal", "arms": 3}]),
                                "grid.probs[0].draw"),
    "draw without arms": (config_text(probs=[{"draw": "uniform"}]), "grid.probs[0].arms"),
    "one drawn arm": (config_text(probs=[{"draw": "uniform", "arms": 1}]),
                      "grid.probs[0].arms"),
    "too many arms": (config_text(means=[{"draw": "normal", "arms": 5000}]),
                      "grid.means[0].arms"),
    "beta without b": (config_text(probs=[{"draw": "beta", "a": 2.0, "arms": 4}]),
                       "grid.probs[0].b"),
    "beta parameter zero": (config_text(probs=[{"draw": "beta", "a": 0, "b": 1, "arms": 4}]),
                            "grid.probs[0].a"),
    "uniform outside [0, 1]": (config_text(probs=[{"draw": "uniform", "high": 1.5, "arms": 4}]),
                               "grid.probs[0].low"),
    "negative spread": (config_text(means=[{"draw": "normal", "sd": -1.0, "arms": 4}]),
                        "grid.means[0].sd"),
    "unknown draw key": (config_text(means=[{"draw": "normal", "arms": 4, "scale": 2}]),
                         "grid.means[0].scale"),
    "repeated environment": (config_text(means=[{"draw": "normal", "arms": 4},
                                                {"draw": "normal", "arms": 4}]), "grid.means[1]"),
    "unknown baseline variant": (config_text(baseline=["running_mean_exclusive"]),
                                 "grid.baseline[0]"),
    "unknown reward model": (config_text(reward_model="poisson"), "grid.reward_model"),
    "reward model a list": (config_text(reward_model=[]), "grid.reward_model"),
    "reward model a table": (config_text(reward_model={"name": "gaussian"}),
                             "grid.reward_model"),
    "verifier rate without the verifier": (config_text(false_positive=[0.1]),
                                           "grid.false_positive"),
    "verifier rate above 1": (config_text(reward_model="noisy_verifier",
                                          false_positive=[0.0, 1.5]), "grid.false_positive[1]"),
    "verifier rate not a number": (config_text(reward_model="noisy_verifier",
                                               false_negative=["often"]),
                                   "grid.false_negative[0]"),
    "uninformative verifier": (config_text(reward_model="noisy_verifier", false_positive=[0.6],
                                           false_negative=[0.1, 0.4]), "grid.false_negative"),
    "group size zero": (config_text(group_size=[0, 4]), "grid.group_size[0]"),
    "group size too large": (config_text(group_size=[4, 5000]), "grid.group_size[1]"),
    "fractional group size": (config_text(group_size=[2.5]), "grid.group_size[0]"),
    "text group size": (config_text(group_size=["eight"]), "grid.group_size[0]"),
    "repeated group size": (config_text(group_size=[4, 4]), "grid.group_size[1]"),
    "group size not a list": (config_text(group_size=4), "grid.group_size"),
    "group estimator without a group": (config_text(baseline=["group_mean", "leave_one_out"],
                                                    group_size=[1]), "grid.group_size"),
    "primary budget not a checkpoint": (config_text() + "[analysis]\nprimary_budgets = [10, 20]\n",
                                        "analysis.primary_budgets[1]"),
    "primary budgets not a list": (config_text() + "[analysis]\nprimary_budgets = 10\n",
                                   "analysis.primary_budgets"),
    "equivalence margin zero": (config_text() + "[analysis]\nequivalence_margin = 0\n",
                                "analysis.equivalence_margin"),
    "twin not a study name": (config_text() + "[analysis]\nsame_simulation_as = \"a b\"\n",
                              "analysis.same_simulation_as"),
    "ratio margin at 1": (config_text() + "[analysis]\nratio_margin = 1\n",
                          "analysis.ratio_margin"),
    "equivalence margin text": (config_text() + "[analysis]\nequivalence_margin = \"small\"\n",
                                "analysis.equivalence_margin"),
    "section not a name": (config_text() + "[analysis]\nsections = [\"Seeds 2\"]\n",
                           "analysis.sections"),
    "sections not a list": (config_text() + "[analysis]\nsections = \"seeds\"\n",
                            "analysis.sections"),
    "negative length": (config_text(lengths=[[1, -2, 4]]), "grid.lengths[0][1]"),
    "fractional fixed length": (config_text(lengths=[[1, 2.5, 4]]), "grid.lengths[0][1]"),
    "geometric mean below 1": (config_text(lengths=[[1, 0.5, 4]], length_law="geometric"),
                               "grid.lengths[0][1]"),
    "lengths of the wrong size": (config_text(lengths=[[1, 2]]), "grid.lengths[0]"),
    "lengths for fewer bandits": (config_text(probs=[[0.5, 0.6], [0.2, 0.3]], lengths=[[1, 2]]),
                                  "grid.lengths"),
    "lengths with Gaussian arms": (config_text(probs=None, means=[[0.0, 1.0]],
                                               lengths=[[1, 2]]), "grid.lengths"),
    "unknown length law": (config_text(lengths=[[1, 2, 4]], length_law="lognormal"),
                           "grid.length_law"),
    "length law without lengths": (config_text(length_law="geometric"), "grid.lengths"),
    "penalty without lengths": (config_text(reward_model="length_penalty"), "grid.lengths"),
    "negative penalty": (config_text(reward_model="length_penalty", lengths=[[1, 2, 4]],
                                     penalty=[0.0, -0.1]), "grid.penalty[1]"),
    "penalty lifted past the budget": (config_text(reward_model="length_penalty",
                                                   lengths=[[1, 2, 4]], penalty_until=[1.5]),
                                       "grid.penalty_until[0]"),
    "a verdict with no shaping": (config_text(reward_model="noisy_verifier", lengths=[[1, 2, 4]],
                                              verdict="noisy_verifier"), "grid.verdict"),
    "a shaping as a verdict": (config_text(reward_model="length_penalty", lengths=[[1, 2, 4]],
                                           verdict="overlong"), "grid.verdict"),
    "Gaussian rewards as a verdict": (config_text(reward_model="overlong", lengths=[[1, 2, 4]],
                                                  verdict="gaussian"), "grid.verdict"),
    "a verdict's bad parameter": (config_text(reward_model="length_penalty", lengths=[[1, 2, 4]],
                                              verdict="noisy_verifier", false_positive=[1.5]),
                                  "grid.false_positive[0]"),
    "an uninformative shaped verdict": (config_text(
        reward_model="length_penalty", lengths=[[1, 2, 4]], verdict="noisy_verifier",
        false_positive=[0.5], false_negative=[0.5]), "grid.false_negative"),
    "a verdict's parameter without the verdict": (config_text(
        reward_model="length_penalty", lengths=[[1, 2, 4]], false_positive=[0.1]),
        "grid.false_positive"),
    "cache as long as the cut": (config_text(reward_model="overlong", lengths=[[1, 2, 4]],
                                             max_length=[8], cache_length=[8]),
                                 "grid.penalty_until"),
    "token budgets without lengths": (config_text(budgets=None, token_budgets=[10, 100]),
                                      "grid.lengths"),
    "token budgets not increasing": (config_text(budgets=None, token_budgets=[100, 10],
                                                 lengths=[[1, 2, 4]]), "grid.token_budgets[1]"),
    "both budgets": (config_text(token_budgets=[10, 100], lengths=[[1, 2, 4]]), "grid.budgets"),
    "no budgets": (config_text(budgets=None), "grid.budgets"),
    "lengths with costs": (config_text(cost=[0.0, 0.1], lengths=[[1, 2, 4]]), "grid.cost"),
    "lengths with a fixed-budget learner": (config_text(algorithm=["successive_rejects"],
                                                        lengths=[[1, 2, 4]]),
                                            "grid.algorithm[0]"),
    **{f"off-policy {name}": (config_text(**{"baseline": ["group_mean"], "group_size": [4],
                                             **keys}), field) for name, keys, field in [
        ("negative lag", {"lag": [0, -1]}, "grid.lag[1]"),
        ("negative mismatch", {"mismatch": [-0.1]}, "grid.mismatch[0]"),
        ("mismatch past its largest", {"mismatch": [0.5, 1000.0]}, "grid.mismatch[1]"),
        ("top_p of 0", {"top_p": [0.0]}, "grid.top_p[0]"),
        ("top_p above 1", {"top_p": [1.5]}, "grid.top_p[0]"),
        ("unknown correction", {"correction": ["gspo"]}, "grid.correction[0]"),
        ("two weights", {"correction": ["is+tis"]}, "grid.correction[0]"),
        ("negative beta", {"kl_beta": [-1.0]}, "grid.kl_beta[0]"),
        ("unknown estimator", {"kl_estimator": ["k2"]}, "grid.kl_estimator[0]"),
        ("clip range of 0", {"clip_range": 0.0}, "grid.clip_range"),
        ("negative CISPO upper clip", {"correction": ["cispo"], "cispo_high": -0.1},
         "grid.cispo_high"),
        ("CISPO lower clip as text", {"correction": ["cispo"], "cispo_low": "wide"},
         "grid.cispo_low"),
        ("a single-rollout baseline", {"lag": [1], "baseline": ["running_mean"],
                                       "group_size": [1]}, "grid.baseline[0]"),
        ("another learner", {"lag": [1], "algorithm": ["epsilon_greedy"]}, "grid.algorithm")]},
}


def assert_one_line_error(stderr: str, field: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and field in lines[0], stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_exits_2_with_one_line_and_writes_nothing(
        case: str, write_config, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, field = BAD_CONFIGS[case]
    out = tmp_path / "out"
    assert main(["run", str(write_config(text)), "--out", str(out)]) == 2
    assert_one_line_error(capsys.readouterr().err, field)
    assert not out.exists()


@pytest.mark.parametrize(("args", "field"), [
    (["--seeds", "0"], "--seeds"),
    (["--threads", "0"], "--threads"),
    (["--threads", "999"], "--threads"),
    (["--seeds", "many"], "arguments"),
    (["--shard-seeds", "0"], "--shard-seeds"),
    (["--workers", "0", "--backend", "dask"], "--workers"),
    (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler"),
    (["--backend", "dask", "--scheduler", "localhost"], "--scheduler"),
    (["--backend", "spark"], "arguments"),
])
def test_bad_options_exit_2(args: list[str], field: str, write_config, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["run", str(write_config(config_text())), "--out", str(out), *args]) == 2
    assert_one_line_error(capsys.readouterr().err, field)
    assert not out.exists()


def test_missing_config_file_and_missing_runs(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "o")]) == 2
    assert_one_line_error(capsys.readouterr().err, "config")
    assert main(["summarize", str(tmp_path)]) == 2
    assert_one_line_error(capsys.readouterr().err, "dir")


def test_bad_input_in_a_real_process_has_no_traceback(write_config, tmp_path: Path) -> None:
    done = run_cli("run", str(write_config(config_text(lr=[-1.0]))), "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert_one_line_error(done.stderr, "grid.lr[0]")
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == [tmp_path / "study.toml"]


def test_run_writes_the_tidy_table_and_the_manifest(write_config, tmp_path: Path) -> None:
    path = write_config(config_text({"seeds": 6}, algorithm=["reinforce", "uniform",
                                                             "successive_rejects"],
                                    lr=[0.1, 0.3], cost=[0.0, 0.01], budgets=[5, 20, 80]))
    out = tmp_path / "o"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    # Stored: each cell's description once, the runs keyed by cell; read: the tidy join.
    assert pq.read_schema(out / RUNS_FILE).names == list(STORED_RUN_COLUMNS)
    cells = pd.read_parquet(out / CELLS_FILE)
    assert tuple(cells.columns) == CELL_COLUMNS and cells["cell"].tolist() == list(range(8))
    runs = read_runs(out)
    assert tuple(runs.columns) == RUNS_COLUMNS
    # reinforce: 2 lr x 2 costs; uniform and successive rejects: lr and baseline collapse.
    assert runs["cell"].nunique() == 8
    assert len(runs) == 8 * 6 * 3
    assert runs.groupby("algorithm")["nested"].first().to_dict() == {
        "reinforce": True, "successive_rejects": False, "uniform": True}
    assert runs.groupby(["cell", "seed", "budget"]).size().eq(1).all()
    assert set(runs.loc[runs["algorithm"] != "reinforce", "lr"]) == {0.0}
    assert runs.loc[runs["algorithm"] != "reinforce", ["p_best", "pass_rate"]].isna().all(axis=None)
    # A policy's pass rate, sum pi[k] p[k], lies between the worst and the best arm's value.
    trained = runs.loc[runs["algorithm"] == "reinforce", "pass_rate"]
    assert trained.between(0.5, 0.6).all()
    assert runs["environment"].eq("0.5,0.55,0.6").all() and runs["best_arm"].eq(2).all()
    assert runs["reward_model"].eq("bernoulli").all()
    assert (runs["best_value"] == 0.6).all()
    np.testing.assert_allclose(runs["value_gap"], 0.05, rtol=1e-12)
    assert (runs["correct"] == (runs["greedy_arm"] == 2)).all()
    assert (runs["greedy_value"] == np.array([0.5, 0.55, 0.6])[runs["greedy_arm"]]).all()
    manifest = json.loads((out / "manifest.json").read_text())
    for key in ("config", "config_hash", "root_seed", "versions", "git_commit", "wall_seconds",
                "episodes_per_second"):
        assert key in manifest
    assert manifest["config"]["lr"] == [0.1, 0.3] and manifest["seeds"] == 6
    # Nested simulations run to the largest budget, the fixed-budget one once per checkpoint.
    assert manifest["episodes"] == 6 * (3 * 80 + (5 + 20 + 80))
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_quick_prints_what_the_readme_shows(tmp_path: Path) -> None:
    # The README quotes the seed exercise's output; it must be what a fresh run prints (the four
    # budgets of 40 seeds, the never-training sampler's gap, what 100x the rollouts bought).
    done = run_cli("quick", "--out", str(tmp_path / "quick"))
    assert done.returncode == 0, done.stderr
    readme = (REPO_ROOT / "README.md").read_text()
    shown = readme.split("`python -m bandit_study quick` (or `make quick`) prints:\n\n```\n", 1)[1]
    assert done.stdout == shown.split("```", 1)[0]


@pytest.mark.parametrize("module", ["analysis.__main__", "figures.__main__", "figures.report",
                                    "figures.paper"])
def test_every_argument_of_the_commands_has_a_help_line(module: str, monkeypatch, capsys) -> None:
    # Each argument a command declares says what it is in --help; the analysis names its plan.
    import argparse
    import importlib

    declared = []
    original = argparse.ArgumentParser.add_argument

    def add(self, *names, **options):  # type: ignore[no-untyped-def]
        if names[0] not in ("-h", "--help"):
            declared.append((names[0], options.get("help")))
        return original(self, *names, **options)

    monkeypatch.setattr(argparse.ArgumentParser, "add_argument", add)
    monkeypatch.setattr(sys, "argv", [module, "--help"])
    with pytest.raises(SystemExit):
        importlib.import_module(module).main()
    assert declared and all(said for _, said in declared), declared
    if module == "analysis.__main__":
        assert "python -m analysis plan" in capsys.readouterr().out
