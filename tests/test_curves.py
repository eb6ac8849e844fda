"""The per-step curves: consistent with the runs table, the same bytes whatever the threads or
the sharding, and cached, resumed and checked like the rest of a shard."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bandit_study.cli import main
from conftest import config_text, run_cli
from study.core.kernel import CURVE_SCALE
from study.model.schema import CURVES_COLUMNS
from study.orchestration.storage import read_runs

CURVES = config_text(
    {"seeds": 300, "curves": True},
    algorithm=["reinforce", "uniform", "successive_rejects"],
    probs=[[0.2, 0.5, 0.6], {"draw": "beta", "a": 2.0, "b": 3.0, "arms": 4}],
    means=[{"draw": "normal", "mean": 4.0, "sd": 1.0, "arms": 10}],
    lr=[0.1, 0.4], baseline=["none", "running_mean_inclusive"], budgets=[7, 100, 250])


def test_curves_agree_with_the_runs_table(write_config, tmp_path: Path) -> None:
    out = tmp_path / "o"
    assert main(["run", str(write_config(CURVES)), "--out", str(out), "--quiet"]) == 0
    runs = read_runs(out)
    curves = pd.read_parquet(out / "curves.parquet")
    assert tuple(curves.columns) == CURVES_COLUMNS
    nested = runs.loc[runs["nested"], "cell"].unique()
    assert sorted(curves["cell"].unique()) == sorted(nested)  # none for successive rejects
    assert set(runs["reward_model"]) == {"bernoulli", "gaussian"}
    for cell, rows in curves.groupby("cell"):
        assert rows["step"].tolist() == list(range(1, 251)) and (rows["seeds"] == 300).all()
        at = runs[(runs["cell"] == cell)].set_index(["budget", "seed"])
        for budget in (7, 100, 250):
            first = rows[rows["step"] <= budget]
            # Pulls of a best arm through B, counted per run, equal the curve's counts summed
            # over steps 1..B (both are integers).
            assert round((first["optimal_action"] * 300).sum()) == at.loc[budget][
                "best_arm_pulls"].sum()
            # The reward sums agree to the fixed-point rounding: at most 2^-25 per reward.
            total = at.loc[budget]["reward_sum"].sum()
            assert abs((first["mean_reward"] * 300).sum() - total) <= (
                budget * 300 * 0.5 / CURVE_SCALE + 1e-9 * abs(total))


@pytest.mark.slow
def test_curves_are_the_same_bytes_whatever_the_threads_and_shards(write_config,
                                                                    tmp_path: Path) -> None:
    path = write_config(CURVES)
    outputs = []
    for threads, shard_seeds in (("1", "300"), ("2", "7"), ("2", "256")):
        out = tmp_path / f"t{threads}-s{shard_seeds}"
        done = run_cli("run", str(path), "--out", str(out), "--quiet", "--shard-seeds",
                       shard_seeds, env={"NUMBA_NUM_THREADS": threads})
        assert done.returncode == 0, done.stderr
        outputs.append([(out / name).read_bytes() for name in ("runs.parquet",
                                                                "curves.parquet")])
    assert outputs[0] == outputs[1] == outputs[2]


def test_cached_curves_are_reused_and_a_corrupt_one_is_recomputed(write_config, tmp_path: Path,
                                                                  capsys) -> None:
    path = write_config(CURVES)
    out, cache = tmp_path / "study", tmp_path / "cache" / "study"
    assert main(["run", str(path), "--out", str(out), "--cache", str(cache), "--quiet"]) == 0
    expected = (out / "curves.parquet").read_bytes()
    saved = sorted(cache.glob("*.curves.parquet"))
    assert saved
    saved[0].write_bytes(saved[1].read_bytes())  # another shard's curves under this name
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--cache", str(cache), "--quiet"]) == 0
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("warning: cached shard")
    assert (out / "curves.parquet").read_bytes() == expected


def test_a_study_without_curves_removes_stale_ones(write_config, tmp_path: Path) -> None:
    out = tmp_path / "o"
    assert main(["run", str(write_config(CURVES)), "--out", str(out), "--quiet"]) == 0
    assert (out / "curves.parquet").is_file()
    plain = CURVES.replace("curves = true", "curves = false")
    assert main(["run", str(write_config(plain, "plain.toml")), "--out", str(out),
                 "--quiet"]) == 0
    assert not (out / "curves.parquet").exists()
    assert np.isfinite(pd.read_parquet(out / "runs.parquet")["best_value"]).all()
