"""Run a study: shards (simulation x block of seeds, ``study.shards``) through the kernel, reused
from the cache where they are already done, assembled into the tidy runs table.

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

from study.backends import Backend
from study.config import StudyConfig
from study.grid import Cell, Simulation, cells, simulations
from study.kernel import LANES, simulate_cell
from study.model import ALGORITHM_CODES, BASELINE_CODES, NESTED
from study.shards import Shard, ShardResult, cached, plan, remove_stale_temporaries, save
from study.streams import run_keys

RUNS_COLUMNS = (
    "cell", "algorithm", "nested", "baseline", "lr", "probs", "cost", "seed", "budget",
    "greedy_arm", "best_arm", "correct", "p_best", "reward_sum", "best_arm_pulls", "finite",
)


@dataclass(frozen=True)
class KernelOutput:
    """The kernel's arrays for one simulation over a set of seeds; shapes (seeds, checkpoints)
    and (seeds, checkpoints, K)."""

    greedy: np.ndarray
    p_best: np.ndarray
    reward_sum: np.ndarray
    pulls: np.ndarray
    scores: np.ndarray
    finite: np.ndarray

    def reduce(self, simulation: Simulation) -> ShardResult:
        """What the runs table keeps: the per-arm arrays summed over the best arms."""
        best = np.asarray(simulation.best_arms)
        return ShardResult(self.greedy, self.p_best, self.reward_sum,
                           self.pulls[:, :, best].sum(axis=2), self.finite)


def simulate(simulation: Simulation, keys: np.ndarray, budgets: tuple[int, ...]) -> KernelOutput:
    """Run the kernel for one simulation, one run per row of ``keys``."""
    runs, checkpoints, arms = keys.shape[0], len(budgets), len(simulation.probs)
    out = KernelOutput(
        greedy=np.empty((runs, checkpoints), dtype=np.int64),
        p_best=np.empty((runs, checkpoints)),
        reward_sum=np.empty((runs, checkpoints), dtype=np.int64),
        pulls=np.empty((runs, checkpoints, arms), dtype=np.int64),
        scores=np.empty((runs, checkpoints, arms)),
        finite=np.empty((runs, checkpoints), dtype=np.bool_),
    )
    simulate_cell(
        np.ascontiguousarray(keys, dtype=np.uint64),
        LANES,
        np.asarray(simulation.probs, dtype=np.float64),
        np.asarray(simulation.best_arms, dtype=np.bool_),
        ALGORITHM_CODES[simulation.algorithm],
        float(simulation.lr),
        BASELINE_CODES[simulation.baseline],
        np.asarray(budgets, dtype=np.int64),
        out.greedy, out.p_best, out.reward_sum, out.pulls, out.scores, out.finite,
    )
    return out


def run_shard(shard: Shard) -> ShardResult:
    """Simulate one shard from scratch (pure: the result depends on the shard alone)."""
    seeds = np.arange(shard.start, shard.stop)
    stream_id = None if shard.streams == "per_seed" else shard.simulation.stream_id()
    keys = run_keys(shard.root_seed, seeds, stream_id)
    return simulate(shard.simulation, keys, shard.budgets).reduce(shard.simulation)


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
                  config.streams, chunk)
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
    return StudyRun(table, sum(s.episodes for s in shards), sum(s.episodes for s in pending),
                    backend.seconds, len(shards), len(shards) - len(pending), backend.described)


def _cell_rows(cell: Cell, out: ShardResult, seeds: np.ndarray,
               budgets: tuple[int, ...]) -> pd.DataFrame:
    sim = cell.simulation
    rows = out.greedy.size
    best = np.asarray(sim.best_arms)
    best_arm = int(np.argmax(best))
    greedy = out.greedy.ravel()
    return pd.DataFrame({
        "cell": np.full(rows, cell.index, dtype=np.int64),
        "algorithm": np.full(rows, sim.algorithm, dtype=object),
        "nested": np.full(rows, NESTED[sim.algorithm]),
        "baseline": np.full(rows, sim.baseline, dtype=object),
        "lr": np.full(rows, sim.lr),
        "probs": np.full(rows, sim.probs_text, dtype=object),
        "cost": np.full(rows, cell.cost),
        "seed": np.repeat(seeds.astype(np.int64), len(budgets)),
        "budget": np.tile(np.asarray(budgets, dtype=np.int64), len(seeds)),
        "greedy_arm": greedy,
        "best_arm": np.full(rows, best_arm, dtype=np.int64),
        "correct": (greedy >= 0) & best[np.maximum(greedy, 0)],
        "p_best": out.p_best.ravel(),
        "reward_sum": out.reward_sum.ravel(),
        "best_arm_pulls": out.best_pulls.ravel(),
        "finite": out.finite.ravel(),
    }, columns=list(RUNS_COLUMNS))
