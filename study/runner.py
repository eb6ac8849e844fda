"""Run a study: simulations x seed chunks through the kernel, assembled into the tidy runs table.

One row per (cell, seed, budget checkpoint), ordered by cell, then seed, then budget. Seeds are
simulated in chunks (for progress and bounded memory); each run's stream depends only on its own
seed index, so the table is the same whatever the chunk size or thread count.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from study.config import StudyConfig
from study.grid import Cell, Simulation, cells, simulations
from study.kernel import LANES, simulate_cell
from study.model import ALGORITHM_CODES, BASELINE_CODES, NESTED
from study.streams import run_keys

DEFAULT_CHUNK = 2048
"""Seeds per kernel call: enough runs per call to keep both cores busy, few enough that the
progress bar moves and memory stays at chunk x checkpoints x K."""

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

    @staticmethod
    def concat(parts: list[KernelOutput]) -> KernelOutput:
        """Join chunk outputs along the seed axis, in order."""
        return KernelOutput(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                              ("greedy", "p_best", "reward_sum", "pulls", "scores", "finite")))


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


@dataclass(frozen=True)
class StudyRun:
    """A finished study: its runs table and what it cost to simulate."""

    runs: pd.DataFrame
    episodes: int
    kernel_seconds: float

    @property
    def episodes_per_second(self) -> float:
        """Simulated episodes per second of kernel time (all threads together)."""
        return self.episodes / self.kernel_seconds if self.kernel_seconds > 0 else float("nan")


def run_study(
    config: StudyConfig,
    seed_indices: np.ndarray | None = None,
    chunk: int = DEFAULT_CHUNK,
    progress: bool | None = None,
) -> StudyRun:
    """Simulate every cell of ``config`` for ``seed_indices`` (default: 0 .. seeds - 1).

    ``progress`` None shows a bar on stderr only when it is a terminal.
    """
    seeds = np.arange(config.seeds) if seed_indices is None else np.asarray(seed_indices)
    grid = cells(config)
    sims = simulations(grid)
    # A nested simulation runs once to the largest budget; a fixed-budget one once per checkpoint.
    horizon = {sim: config.budgets[-1] if NESTED[sim.algorithm] else sum(config.budgets)
               for sim in sims}
    episodes = len(seeds) * sum(horizon.values())
    show = sys.stderr.isatty() if progress is None else progress
    outputs: dict[Simulation, KernelOutput] = {}
    shared_keys = run_keys(config.root_seed, seeds) if config.streams == "per_seed" else None
    # Load (or compile) the kernel before the clock starts, so episodes per second measures
    # simulation rather than numba's one-off start-up.
    simulate(sims[0], run_keys(config.root_seed, seeds[:1]), (1,))
    kernel_seconds = 0.0
    with tqdm(total=episodes, disable=not show, unit="ep", unit_scale=True,
              desc=config.name, file=sys.stderr) as bar:
        for sim in sims:
            keys = shared_keys if shared_keys is not None else run_keys(
                config.root_seed, seeds, sim.stream_id())
            parts = []
            for start in range(0, len(seeds), chunk):
                began = time.perf_counter()
                parts.append(simulate(sim, keys[start:start + chunk], config.budgets))
                kernel_seconds += time.perf_counter() - began
                bar.update(len(keys[start:start + chunk]) * horizon[sim])
            outputs[sim] = KernelOutput.concat(parts)
    table = pd.concat([_cell_rows(c, outputs[c.simulation], seeds, config.budgets) for c in grid],
                      ignore_index=True)
    return StudyRun(table, episodes, kernel_seconds)


def _cell_rows(cell: Cell, out: KernelOutput, seeds: np.ndarray,
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
        "best_arm_pulls": out.pulls[:, :, best].sum(axis=2).ravel(),
        "finite": out.finite.ravel(),
    }, columns=list(RUNS_COLUMNS))
