"""Same config and root seed give the same table: whatever the threads, the chunking, the budgets
around a checkpoint, or the other cells of the grid."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from llvmlite import binding

from conftest import config_text, make_config, run_cli
from study.core.jit import WIDE_VECTORS
from study.core.streams import run_keys
from study.model.environment import Environment
from study.model.grid import Simulation
from study.orchestration.runner import run_study
from study.orchestration.simulate import simulate

GRID = {"algorithm": ["reinforce", "uniform"], "lr": [0.05, 0.5],
        "baseline": ["none", "running_mean", "per_arm"], "budgets": [7, 100, 333]}


@pytest.mark.slow
def test_runs_file_is_bit_identical_with_one_and_two_threads(write_config, tmp_path: Path) -> None:
    path = write_config(config_text({"seeds": 300}, **GRID))
    files = []
    for threads in ("1", "2"):
        out = tmp_path / f"threads{threads}"
        done = run_cli("run", str(path), "--out", str(out), "--quiet",
                       env={"NUMBA_NUM_THREADS": threads})
        assert done.returncode == 0, done.stderr
        files.append((out / "runs.parquet").read_bytes())
    assert files[0] == files[1]


@pytest.mark.slow
def test_runs_file_is_bit_identical_compiled_for_the_host_and_for_a_generic_cpu(
        write_config, tmp_path: Path) -> None:
    # numba compiles for the host's CPU (AVX-512 or AVX2 vectors) unless NUMBA_CPU_NAME names
    # another; "generic" x86-64 has SSE2 only. The vector width and the instructions chosen must
    # not move a bit: fused multiply-adds only where the code asks for one (correctly rounded,
    # in hardware or libm), no other libm call on the hot path. Bernoulli and Gaussian rewards
    # (Box-Muller), drawn instances, groups, every learner. Two K (the drivers are compiled per
    # K): the Gaussian bandit has as many arms as the first Bernoulli one.
    grid = {"algorithm": ["reinforce", "uniform", "epsilon_greedy", "successive_rejects",
                          "sequential_halving"],
            "probs": [[0.5, 0.55, 0.6], {"draw": "beta", "a": 2.0, "b": 2.0, "arms": 5}],
            "means": [[0.0, 0.3, 0.2]], "lr": [0.3],
            "baseline": ["running_mean", "per_arm", "group_zscore"], "group_size": [1, 4],
            "budgets": [9, 200]}
    path = write_config(config_text({"seeds": 70}, **grid))
    # The host's build is the package's own choice (``study.core.jit``: 512-bit vectors where
    # the host has AVX-512) and may come from the session's numba cache; the generic build is
    # compiled afresh in its own cache. The two processes run at once: compiling is most of
    # their time, and each uses one core.
    cpus = {binding.get_host_cpu_name(): {},
            "generic": {"NUMBA_CPU_NAME": "generic",
                        "NUMBA_CACHE_DIR": str(tmp_path / "cache-generic")}}
    with ThreadPoolExecutor(len(cpus)) as pool:
        done = list(pool.map(lambda cpu: run_cli("run", str(path), "--out", str(tmp_path / cpu),
                                                 "--quiet", env=cpus[cpu]), cpus))
    assert all(d.returncode == 0 for d in done), [d.stderr for d in done]
    files = [(tmp_path / cpu / "runs.parquet").read_bytes() for cpu in cpus]
    assert files[0] == files[1]


_FEATURES = ("import bandit_study.cli; from numba.core.registry import cpu_target; "
             "print(cpu_target.target_context.codegen().magic_tuple()[2])")


@pytest.mark.parametrize("user", [{}, {"NUMBA_CPU_NAME": "generic"},
                                  {"NUMBA_CPU_FEATURES": "+sse2"}])
def test_the_package_allows_512_bit_vectors_unless_the_user_chose_the_cpu(
        user: dict[str, str]) -> None:
    """Where the host has AVX-512 and no CPU or features were named, numba compiles with
    ``WIDE_VECTORS`` (some hosts' tuning would emit no 512-bit vector); a CPU or features the
    user named are left as they are."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU_")}
    done = subprocess.run([sys.executable, "-c", _FEATURES], capture_output=True, text=True,
                          env={**env, **user}, check=True)
    wide = done.stdout.strip().endswith(f",{WIDE_VECTORS}")
    assert wide == (not user and binding.get_host_cpu_features().get("avx512f", False))


@pytest.mark.slow
def test_chunking_does_not_change_the_table() -> None:
    config = make_config({"seeds": 50}, **GRID)
    whole = run_study(config, progress=False).runs
    for chunk in (1, 7, 49):
        pd.testing.assert_frame_equal(run_study(config, chunk=chunk, progress=False).runs, whole)


def test_seed_subsets_reproduce_their_rows() -> None:
    # A shard of seed indices gives exactly the rows of those seeds in the whole study.
    config = make_config({"seeds": 40}, **GRID)
    whole = run_study(config, progress=False).runs
    part = run_study(config, seed_indices=np.arange(13, 29), progress=False).runs
    expected = whole[whole["seed"].between(13, 28)].reset_index(drop=True)
    pd.testing.assert_frame_equal(part, expected)


def test_checkpoint_equals_standalone_run_of_that_budget() -> None:
    keys = run_keys(5, np.arange(64))
    for sim in (Simulation("reinforce", Environment.fixed((0.2, 0.5, 0.6, 0.1)), 0.3,
                           "running_mean"),
                Simulation("reinforce", Environment.fixed((0.5, 0.55)), 1.0, "per_arm"),
                Simulation("uniform", Environment.fixed((0.5, 0.55, 0.6)), 0.0, "none"),
                Simulation("reinforce", Environment.drawn("normal", 10, (4.0, 1.0)), 0.4,
                           "running_mean_inclusive")):
        long = simulate(sim, keys, (10, 250, 1000), scores=True)
        alone = simulate(sim, keys, (250,), scores=True)
        for name in ("greedy", "p_best", "pass_rate", "reward_sum", "pulls", "scores", "finite"):
            np.testing.assert_array_equal(getattr(long, name)[:, 1], getattr(alone, name)[:, 0])


def _cell_rows(runs: pd.DataFrame, lr: float) -> pd.DataFrame:
    rows = runs[(runs["algorithm"] == "reinforce") & (runs["lr"] == lr)]
    return rows.drop(columns="cell").reset_index(drop=True)


def test_a_cells_streams_do_not_depend_on_the_rest_of_the_grid() -> None:
    for streams in ("per_seed", "per_cell"):
        small = run_study(make_config({"streams": streams}, lr=[0.5]), progress=False).runs
        wide = run_study(make_config({"streams": streams}, lr=[0.05, 0.5], cost=[0.0, 2.0]),
                         progress=False).runs
        pd.testing.assert_frame_equal(_cell_rows(small, 0.5), _cell_rows(wide, 0.5).iloc[
            lambda rows: (rows["cost"] == 0.0).to_numpy()].reset_index(drop=True))


def test_common_random_numbers_by_default_and_independent_streams_on_request() -> None:
    # With lr = 0 every cell's policy is the same, so the arms pulled depend on the stream alone:
    # identical across baselines on common random numbers, different with per-cell streams.
    grid = {"lr": [0.0], "baseline": ["none", "per_arm"], "budgets": [200]}
    shared = run_study(make_config({"seeds": 30}, **grid), progress=False).runs
    own = run_study(make_config({"seeds": 30, "streams": "per_cell"}, **grid), progress=False).runs
    by_cell = [rows["reward_sum"].to_numpy() for _, rows in shared.groupby("cell")]
    np.testing.assert_array_equal(by_cell[0], by_cell[1])
    by_cell = [rows["reward_sum"].to_numpy() for _, rows in own.groupby("cell")]
    assert not np.array_equal(by_cell[0], by_cell[1])
