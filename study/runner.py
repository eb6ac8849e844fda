"""Run a study: shards (simulation x block of seeds, ``study.shards``) through the kernel, reused
from the cache where they are already done, assembled into the tidy runs table.

One row per (cell, seed, budget checkpoint), ordered by cell, then seed, then budget. Each run's
stream depends only on its own seed index, so the table is the same whatever the shard size, the
thread count, or which shards came from the cache.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from tqdm import tqdm

from study.backends import Backend
from study.config import StudyConfig
from study.environment import best_arms
from study.grid import Cell, Simulation, cells, simulations
from study.kernel import CURVE_SCALE, LANES, simulate_cell
from study.model import ALGORITHM_CODES, BASELINE_CODES, NESTED, REWARD_CODES
from study.shards import Shard, ShardResult, cached, plan, remove_stale_temporaries, save
from study.streams import run_keys

RUNS_COLUMNS = (
    "cell", "algorithm", "nested", "baseline", "lr", "reward_model", "environment", "cost", "seed",
    "budget", "greedy_arm", "best_arm", "correct", "p_best", "reward_sum", "best_arm_pulls",
    "best_value", "value_gap", "greedy_value", "finite",
)
CURVES_COLUMNS = ("cell", "step", "optimal_action", "mean_reward", "seeds")


@dataclass(frozen=True)
class KernelOutput:
    """The kernel's arrays for one simulation over a set of seeds; shapes (seeds, checkpoints)
    and (seeds, checkpoints, K); the seeds' arm values and best arms, (seeds, K); and the curves'
    per-step sums over the seeds, (steps,) (empty unless asked for)."""

    greedy: np.ndarray
    p_best: np.ndarray
    reward_sum: np.ndarray
    pulls: np.ndarray
    scores: np.ndarray
    finite: np.ndarray
    values: np.ndarray
    best: np.ndarray
    curve_optimal: np.ndarray
    curve_reward: np.ndarray

    def reduce(self) -> ShardResult:
        """What the runs table keeps: the per-arm arrays reduced to the best arms' pulls and the
        values of the best and of the recommended arm."""
        checkpoints = self.greedy.shape[1]
        best_pulls = (self.pulls * self.best[:, None, :]).sum(axis=2)
        ordered = np.sort(self.values, axis=1)
        top = ordered[:, -1]
        gap = top - ordered[:, -2]
        rows = np.arange(len(self.values))[:, None]
        greedy_value = np.where(self.greedy >= 0,
                                self.values[rows, np.maximum(self.greedy, 0)], np.nan)
        return ShardResult(
            self.greedy, self.p_best, self.reward_sum, best_pulls, self.finite,
            np.repeat(np.argmax(self.best, axis=1)[:, None], checkpoints, axis=1),
            np.repeat(top[:, None], checkpoints, axis=1),
            np.repeat(gap[:, None], checkpoints, axis=1),
            greedy_value, self.curve_optimal, self.curve_reward)


def simulate(simulation: Simulation, keys: np.ndarray, budgets: tuple[int, ...],
             curves: bool = False) -> KernelOutput:
    """Run the kernel for one simulation, one run per row of ``keys``; with ``curves`` also sum
    the per-step curves over the runs (for the algorithms whose runs are nested; the others plan
    from each budget and have no single run to follow step by step)."""
    env = simulation.environment
    runs, checkpoints, arms = keys.shape[0], len(budgets), env.arms
    values = env.arm_values(keys)
    best = best_arms(values)
    steps = budgets[-1] if curves and NESTED[simulation.algorithm] else 0
    blocks = -(-runs // LANES)
    # One group of blocks per thread when recording curves (each group sums into its own row);
    # otherwise a group per block, so every block is a parallel task and nothing is allocated.
    groups = min(blocks, numba.get_num_threads()) if steps else blocks
    out = KernelOutput(
        greedy=np.empty((runs, checkpoints), dtype=np.int64),
        p_best=np.empty((runs, checkpoints)),
        reward_sum=np.empty((runs, checkpoints)),
        pulls=np.empty((runs, checkpoints, arms), dtype=np.int64),
        scores=np.empty((runs, checkpoints, arms)),
        finite=np.empty((runs, checkpoints), dtype=np.bool_),
        values=values,
        best=best,
        curve_optimal=np.zeros((groups, steps), dtype=np.int64),
        curve_reward=np.zeros((groups, steps), dtype=np.int64),
    )
    simulate_cell(
        np.ascontiguousarray(keys, dtype=np.uint64),
        LANES,
        values,
        best,
        REWARD_CODES[env.reward],
        ALGORITHM_CODES[simulation.algorithm],
        float(simulation.lr),
        BASELINE_CODES[simulation.baseline],
        np.asarray(budgets, dtype=np.int64),
        out.greedy, out.p_best, out.reward_sum, out.pulls, out.scores, out.finite,
        out.curve_optimal, out.curve_reward,
    )
    return replace(out, curve_optimal=out.curve_optimal.sum(axis=0),
                   curve_reward=out.curve_reward.sum(axis=0))


def run_shard(shard: Shard) -> ShardResult:
    """Simulate one shard from scratch (pure: the result depends on the shard alone)."""
    seeds = np.arange(shard.start, shard.stop)
    stream_id = None if shard.streams == "per_seed" else shard.simulation.stream_id()
    keys = run_keys(shard.root_seed, seeds, stream_id)
    return simulate(shard.simulation, keys, shard.budgets, shard.curves).reduce()


@dataclass(frozen=True)
class StudyRun:
    """A finished study: its runs table, what it cost to simulate, and how much came from the
    cache."""

    runs: pd.DataFrame
    episodes: int
    episodes_computed: int
    kernel_seconds: float
    shards: int
    shards_reused: int
    backend: str = "local"
    curves: pd.DataFrame | None = None

    @property
    def episodes_per_second(self) -> float:
        """Simulated episodes per second of kernel time (all threads together), counting only
        the shards computed in this run."""
        if self.kernel_seconds <= 0:
            return float("nan")
        return self.episodes_computed / self.kernel_seconds


def run_study(
    config: StudyConfig,
    seed_indices: np.ndarray | None = None,
    chunk: int | None = None,
    progress: bool | None = None,
    cache_dir: Path | None = None,
    backend: Backend | None = None,
) -> StudyRun:
    """Simulate every cell of ``config`` for the contiguous ``seed_indices`` (default: 0 ..
    seeds - 1), ``chunk`` seeds per shard (default: about ``SHARD_EPISODES`` per shard).

    With ``cache_dir`` every shard already there is reused and every new one is saved there as
    soon as it is done. ``backend`` says where shards are computed (default: this process).
    ``progress`` None shows a bar on stderr only when it is a terminal.
    """
    seeds = np.arange(config.seeds) if seed_indices is None else np.asarray(seed_indices)
    if len(seeds) == 0 or not np.array_equal(seeds, np.arange(seeds[0], seeds[0] + len(seeds))):
        raise ValueError("seed_indices must be a non-empty contiguous range")
    grid = cells(config)
    sims = simulations(grid)
    shards = plan(sims, int(seeds[0]), int(seeds[-1]) + 1, config.budgets, config.root_seed,
                  config.streams, chunk, config.curves)
    show = sys.stderr.isatty() if progress is None else progress
    # Load (or compile) the kernel before the clock starts, so episodes per second measures
    # simulation rather than numba's one-off start-up.
    simulate(sims[0], run_keys(config.root_seed, seeds[:1]), (1,))
    if cache_dir is not None and cache_dir.is_dir():
        remove_stale_temporaries(cache_dir)
    backend = backend or Backend()
    results: dict[Shard, ShardResult] = {}
    with tqdm(total=sum(s.episodes for s in shards), disable=not show, unit="ep",
              unit_scale=True, desc=config.name, file=sys.stderr) as bar:
        for shard in shards:
            found = cached(cache_dir, shard)
            if found is not None:
                results[shard] = found
                bar.update(shard.episodes)
        pending = [shard for shard in shards if shard not in results]
        for shard, result in backend.run(pending):
            results[shard] = result
            if cache_dir is not None:
                cache_dir.mkdir(parents=True, exist_ok=True)
                save(cache_dir / f"{shard.key()}.parquet", shard, result)
            bar.update(shard.episodes)
    parts: dict[Simulation, list[ShardResult]] = {sim: [] for sim in sims}
    for shard in shards:
        parts[shard.simulation].append(results[shard])
    outputs = {sim: ShardResult.concat(results) for sim, results in parts.items()}
    table = pd.concat([_cell_rows(c, outputs[c.simulation], seeds, config.budgets) for c in grid],
                      ignore_index=True)
    curves = None
    if config.curves:
        curves = pd.concat([_curve_rows(c, outputs[c.simulation], len(seeds)) for c in grid],
                           ignore_index=True)
    return StudyRun(table, sum(s.episodes for s in shards), sum(s.episodes for s in pending),
                    backend.seconds, len(shards), len(shards) - len(pending), backend.described,
                    curves)


def _cell_rows(cell: Cell, out: ShardResult, seeds: np.ndarray,
               budgets: tuple[int, ...]) -> pd.DataFrame:
    sim = cell.simulation
    rows = out.greedy.size
    greedy_value = out.greedy_value.ravel()
    best_value = out.best_value.ravel()
    return pd.DataFrame({
        "cell": np.full(rows, cell.index, dtype=np.int64),
        "algorithm": np.full(rows, sim.algorithm, dtype=object),
        "nested": np.full(rows, NESTED[sim.algorithm]),
        "baseline": np.full(rows, sim.baseline, dtype=object),
        "lr": np.full(rows, sim.lr),
        "reward_model": np.full(rows, sim.environment.reward, dtype=object),
        "environment": np.full(rows, sim.environment.text, dtype=object),
        "cost": np.full(rows, cell.cost),
        "seed": np.repeat(seeds.astype(np.int64), len(budgets)),
        "budget": np.tile(np.asarray(budgets, dtype=np.int64), len(seeds)),
        "greedy_arm": out.greedy.ravel(),
        "best_arm": out.best_arm.ravel(),
        # The recommended arm is a best arm exactly when its value is the largest (NaN, for a
        # non-finite state, equals nothing).
        "correct": greedy_value == best_value,
        "p_best": out.p_best.ravel(),
        "reward_sum": out.reward_sum.ravel(),
        "best_arm_pulls": out.best_pulls.ravel(),
        "best_value": best_value,
        "value_gap": out.value_gap.ravel(),
        "greedy_value": greedy_value,
        "finite": out.finite.ravel(),
    }, columns=list(RUNS_COLUMNS))


def _curve_rows(cell: Cell, out: ShardResult, seeds: int) -> pd.DataFrame:
    """The cell's per-step curves: step t = 1, 2, ... is the t-th episode; empty for the
    algorithms that have none."""
    steps = len(out.curve_optimal)
    return pd.DataFrame({
        "cell": np.full(steps, cell.index, dtype=np.int64),
        "step": np.arange(1, steps + 1, dtype=np.int64),
        "optimal_action": out.curve_optimal / seeds,
        "mean_reward": out.curve_reward / CURVE_SCALE / seeds,
        "seeds": np.full(steps, seeds, dtype=np.int64),
    }, columns=list(CURVES_COLUMNS))
