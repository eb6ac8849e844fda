"""Run a study: shards (simulation x block of seeds, ``study.orchestration.shards``) through the
kernel, reused from the cache where they are already done, assembled into the tidy runs table.

One row per (cell, seed, budget checkpoint), ordered by cell, then seed, then budget. Each run's
stream depends only on its own seed index, so the table is the same whatever the shard size, the
thread count, or which shards came from the cache.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from study.core.kernel import CURVE_SCALE
from study.orchestration.backends import Backend
from study.orchestration.shards import (
    Shard,
    ShardResult,
    cached,
    plan,
    remove_stale_temporaries,
    save,
)
from study.orchestration.simulate import simulate
from study.spec.config import StudyConfig
from study.spec.grid import Cell, Simulation, cells, simulations
from study.spec.schema import CURVES_COLUMNS, RUNS_COLUMNS
from study.spec.streams import run_keys


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


def _constant(rows: int, value: object) -> np.ndarray:
    """A column holding ``value`` on every row (one shared object for strings and tuples)."""
    if isinstance(value, str | tuple):
        column = np.empty(rows, dtype=object)
        column[:] = [value] * rows
        return column
    return np.full(rows, value)


def _cell_rows(cell: Cell, out: ShardResult, seeds: np.ndarray,
               budgets: tuple[int, ...]) -> pd.DataFrame:
    sim = cell.simulation
    rows = out.greedy.size
    greedy_value = out.greedy_value.ravel()
    best_value = out.best_value.ravel()
    described = {"cell": np.int64(cell.index), "algorithm": sim.algorithm,
                 "nested": sim.learner.nested, "baseline": sim.baseline, "lr": sim.lr,
                 "group_size": np.int64(sim.group_size), **sim.environment.columns(),
                 "cost": cell.cost}
    checkpoints = np.asarray(budgets, dtype=np.int64)
    return pd.DataFrame({
        **{name: _constant(rows, value) for name, value in described.items()},
        "seed": np.repeat(seeds.astype(np.int64), len(budgets)),
        "budget": np.tile(checkpoints, len(seeds)),
        "rollouts": np.tile(checkpoints // sim.group_size * sim.group_size if sim.learner.nested
                            else checkpoints, len(seeds)),
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
        "zero_signal_updates": out.zero_signal.ravel(),
        "finite": out.finite.ravel(),
    }, columns=list(RUNS_COLUMNS))


def _curve_rows(cell: Cell, out: ShardResult, seeds: int) -> pd.DataFrame:
    """The cell's per-step curves: step t = 1, 2, ... is the t-th rollout; empty for the learners
    that have none."""
    steps = len(out.curve_optimal)
    return pd.DataFrame({
        "cell": np.full(steps, cell.index, dtype=np.int64),
        "step": np.arange(1, steps + 1, dtype=np.int64),
        "optimal_action": out.curve_optimal / seeds,
        "mean_reward": out.curve_reward / CURVE_SCALE / seeds,
        "seeds": np.full(steps, seeds, dtype=np.int64),
    }, columns=list(CURVES_COLUMNS))
