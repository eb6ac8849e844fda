"""Run a study: shards (simulation x block of seeds, ``study.orchestration.shards``) through the
kernel, reused from the cache where they are already done, turned into the runs table's rows cell
by cell as each simulation completes.

One row per (cell, seed, budget checkpoint), ordered by cell, then seed, then budget. Each run's
stream depends only on its own seed index, so the table is the same whatever the shard size, the
thread count, the backend, or which shards came from the cache. The runner holds the results of
the simulation being written (and those the backend finished ahead of it, a bounded window) and
the per-step curves, never the whole study's runs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
from tqdm import tqdm

from study.core import prompt_rules
from study.core.kernel import CURVE_SCALE
from study.core.streams import run_keys
from study.model.atomic import remove_stale_temporaries
from study.model.config import StudyConfig
from study.model.grid import Cell, Simulation, cells, simulations
from study.model.schema import (
    ANSWER_RUN_COLUMNS,
    CURVES_COLUMNS,
    ENVIRONMENT_INDEX,
    PROMPT_ANSWER_RUN_COLUMNS,
    PROMPT_FIELD_COLUMNS,
    PROMPT_SAMPLER_RUN_COLUMNS,
    SAMPLER_RUN_COLUMNS,
    run_columns,
)
from study.orchestration.backends import Backend
from study.orchestration.shards import (
    PromptShardResult,
    Result,
    Shard,
    ShardResult,
    cached,
    concat,
    plan,
    present,
    save,
)
from study.orchestration.simulate import run_shard, warm
from study.orchestration.storage import ROW_GROUP_SEEDS, cells_table, cells_to_pandas, tidy

CellSink = Callable[[pa.Table], None]
"""Takes the runs table's rows (``STORED_RUN_COLUMNS``) a block of one cell's seeds at a time
(``ROW_GROUP_SEEDS``), in the table's order."""


@dataclass(frozen=True)
class StudyRun:
    """A finished study: what it cost to simulate, how much came from the cache, its row counts
    and curves; ``runs`` is the tidy runs table when no sink took the rows."""

    episodes: int
    episodes_computed: int
    kernel_seconds: float
    shards: int
    shards_reused: int
    rows: int
    non_finite_rows: int
    backend: str = "local"
    curves: pd.DataFrame | None = None
    runs: pd.DataFrame | None = None

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
    sink: CellSink | None = None,
) -> StudyRun:
    """Simulate every cell of ``config`` for the contiguous ``seed_indices`` (default: 0 ..
    seeds - 1), ``chunk`` seeds per shard (default: about ``SHARD_EPISODES`` per shard).

    Each cell's rows go to ``sink`` as soon as its simulation is complete, a block of seeds at a
    time; without a sink they are gathered into ``StudyRun.runs`` (for small studies and tests).
    With ``cache_dir`` every shard already there is reused and every new one is saved there as
    soon as it is done.
    ``backend`` says where shards are computed (default: this process). ``progress`` None shows
    a bar on stderr only when it is a terminal.
    """
    seeds = np.arange(config.seeds) if seed_indices is None else np.asarray(seed_indices)
    if len(seeds) == 0 or not np.array_equal(seeds, np.arange(seeds[0], seeds[0] + len(seeds))):
        raise ValueError("seed_indices must be a non-empty contiguous range")
    grid = cells(config)
    sims = simulations(grid)
    shards = plan(sims, int(seeds[0]), int(seeds[-1]) + 1, config.budgets, config.root_seed,
                  config.streams, chunk, config.curves, config.budget_unit == "tokens")
    show = sys.stderr.isatty() if progress is None else progress
    # Load (or compile) the kernel before the clock starts, so episodes per second measures
    # simulation rather than numba's one-off start-up.
    warm(sims[0], run_keys(config.root_seed, seeds[:1]))
    if cache_dir is not None and cache_dir.is_dir():
        remove_stale_temporaries(cache_dir)
    backend = backend or Backend()
    # Only whether a cached file is there with the shard's key: its arrays are read (and
    # checked) when its simulation is assembled, so cached shards are not all held at once.
    pending = [shard for shard in shards if not present(cache_dir, shard)]
    recomputed: list[Shard] = []
    members: dict[Simulation, list[Cell]] = {}
    for cell in grid:
        members.setdefault(cell.simulation, []).append(cell)
    if [c.index for sim in sims for c in members[sim]] != list(range(len(grid))):
        raise AssertionError("a simulation's cells are not contiguous in the grid's order")
    populated = any(env.is_population for env in config.environments)
    gathered: list[pa.Table] = []
    take = sink or gathered.append
    rows = non_finite = 0
    curves = []
    with tqdm(total=sum(s.episodes for s in shards), disable=not show, unit="ep",
              unit_scale=True, desc=config.name, file=sys.stderr) as bar:
        for simulation, output in _assembled(shards, pending, backend, cache_dir, bar,
                                             recomputed):
            for cell in members[simulation]:
                for first in range(0, len(seeds), ROW_GROUP_SEEDS):
                    part = slice(first, first + ROW_GROUP_SEEDS)
                    take(_prompt_rows(cell, output, seeds, config.budgets, part, populated)
                         if isinstance(output, PromptShardResult)
                         else _cell_rows(cell, output, seeds, config.budgets, part))
                rows += output.rows
                non_finite += output.non_finite_rows
                if config.curves:
                    curves.append(_curve_rows(cell, output))
            del output  # before the next simulation is assembled
    runs = None if sink else tidy(cells_to_pandas(cells_table(grid)),
                                  pa.concat_tables(gathered).to_pandas())
    computed = pending + recomputed
    return StudyRun(sum(s.episodes for s in shards), sum(s.episodes for s in computed),
                    backend.seconds, len(shards), len(shards) - len(computed), rows, non_finite,
                    backend.described, pd.concat(curves, ignore_index=True) if curves else None,
                    runs)


def _assembled(shards: list[Shard], pending: list[Shard], backend: Backend,
               cache_dir: Path | None, bar: tqdm, recomputed: list[Shard]
               ) -> Iterator[tuple[Simulation, Result]]:
    """Each simulation with its shards joined, in the plan's order, as soon as all its shards
    are in: from the cache, or from the backend (each saved to the cache as it arrives).
    Results the backend finishes ahead of their simulation wait in ``ahead`` (the backend keeps
    a bounded window). A cached file found corrupt when it is read is recomputed here, saved,
    and added to ``recomputed``."""
    computed = backend.run(pending)
    waiting = set(pending)
    ahead: dict[Shard, Result] = {}
    by_simulation: dict[Simulation, list[Shard]] = {}
    for shard in shards:
        by_simulation.setdefault(shard.simulation, []).append(shard)

    def keep(shard: Shard, result: Result) -> None:
        if cache_dir is not None:
            cache_dir.mkdir(parents=True, exist_ok=True)
            save(cache_dir / f"{shard.key()}.parquet", shard, result)
        bar.update(shard.episodes)

    try:
        for simulation, own in by_simulation.items():
            parts = []
            for shard in own:
                while shard in waiting and shard not in ahead:
                    done, result = next(computed, (None, None))
                    if done is None:
                        raise RuntimeError(f"the {backend.name} backend ended without shard "
                                           f"{shard.key()}")
                    keep(done, result)
                    ahead[done] = result
                if shard in waiting:
                    parts.append(ahead.pop(shard))
                    continue
                found = cached(cache_dir, shard)
                if found is None:
                    began = time.perf_counter()
                    found = run_shard(shard)
                    backend.seconds += time.perf_counter() - began
                    keep(shard, found)
                    recomputed.append(shard)
                else:
                    bar.update(shard.episodes)
                parts.append(found)
            joined = concat(parts)
            del parts  # one copy of the simulation's results while it is written
            yield simulation, joined
    finally:
        computed.close()


def _cell_rows(cell: Cell, out: ShardResult, seeds: np.ndarray, budgets: tuple[int, ...],
               part: slice) -> pa.Table:
    """The rows of ``runs.parquet`` of one cell's seeds ``seeds[part]`` (its description is in
    ``cells.parquet``): ``study.model.schema.run_columns`` of the parts the result has (answers
    that cost tokens, an off-policy learner), after ``cell``."""
    sim = cell.simulation
    seeds = seeds[part]
    checkpoints = np.asarray(budgets, dtype=np.int64)
    greedy_value = out.greedy_value[part].ravel()
    best_value = out.best_value[part].ravel()
    counted, off = out.tokens is not None, out.entropy is not None
    columns = {
        "cell": np.full(greedy_value.size, cell.index, dtype=np.int64),
        "seed": np.repeat(seeds.astype(np.int64), len(budgets)),
        "budget": np.tile(checkpoints, len(seeds)),
        "rollouts": out.rollouts[part].ravel() if counted else np.tile(
            checkpoints // sim.group_size * sim.group_size if sim.learner.nested
            else checkpoints, len(seeds)),
        "greedy_arm": out.greedy[part].ravel(),
        "best_arm": out.best_arm[part].ravel(),
        # The recommended arm is a best arm exactly when its value is the largest (NaN, for a
        # non-finite state, equals nothing).
        "correct": greedy_value == best_value,
        "p_best": out.p_best[part].ravel(),
        "pass_rate": out.pass_rate[part].ravel(),
        "reward_sum": out.reward_sum[part].ravel(),
        "best_arm_pulls": out.best_pulls[part].ravel(),
        "best_value": best_value,
        "value_gap": out.value_gap[part].ravel(),
        "greedy_value": greedy_value,
        "zero_signal_updates": out.zero_signal[part].ravel(),
        "finite": out.finite[part].ravel(),
    }
    columns |= {name: getattr(out, name)[part].ravel()
                for name in (*(ANSWER_RUN_COLUMNS if counted else ()),
                             *(SAMPLER_RUN_COLUMNS if off else ()))}
    return pa.table({name: columns[name]
                     for name in ("cell", *run_columns(answers=counted, sampler=off))})


def _prompt_rows(cell: Cell, out: PromptShardResult, seeds: np.ndarray,
                 budgets: tuple[int, ...], part: slice, environments: bool = False) -> pa.Table:
    """The rows of ``runs.parquet`` of one many-prompts cell's seeds ``seeds[part]``: one per
    (seed, checkpoint, group: band, or environment of a population), ``run_columns`` of the
    parts the result has (answers that cost tokens, an off-policy sampler; ``environments``: a
    population's in the study), after ``cell``."""
    seeds = seeds[part]
    counted, off = out.tokens is not None, out.served_pass_rate is not None
    shape = out.prompts[part].shape
    group = np.tile(np.arange(shape[2], dtype=np.int64), shape[0] * shape[1])
    drawn = cell.simulation.environment.population
    columns = {
        "cell": np.full(out.prompts[part].size, cell.index, dtype=np.int64),
        "seed": np.repeat(seeds.astype(np.int64), shape[1] * shape[2]),
        "budget": np.tile(np.repeat(np.asarray(budgets, dtype=np.int64), shape[2]), shape[0]),
        "band": group if drawn is None else drawn.band[group],
        ENVIRONMENT_INDEX: group if drawn is not None else np.full_like(group, -1),
        **{column: getattr(out, field)[part].ravel()
           for field, column in zip(prompt_rules.FIELDS, PROMPT_FIELD_COLUMNS, strict=True)},
    }
    for used, group, names in ((counted, "answers", PROMPT_ANSWER_RUN_COLUMNS),
                               (off, "sampler", PROMPT_SAMPLER_RUN_COLUMNS)):
        columns |= {column: getattr(out, field)[part].ravel()
                    for field, column in zip(out.GROUPS[group] if used else (), names,
                                             strict=False)}
    return pa.table({name: columns[name] for name in
                     ("cell", *run_columns(answers=counted, sampler=off, prompts=True,
                                           environments=environments))})


def _curve_rows(cell: Cell, out: ShardResult) -> pd.DataFrame:
    """The cell's per-step curves: step t = 1, 2, ... is the t-th rollout, over the runs whose
    rollouts reach it (every run but where answers cost tokens); empty for the learners that have
    none."""
    reached = out.curve_seeds > 0
    steps = np.flatnonzero(reached) + 1
    seeds = out.curve_seeds[reached]
    return pd.DataFrame({
        "cell": np.full(len(steps), cell.index, dtype=np.int64),
        "step": steps.astype(np.int64),
        "optimal_action": out.curve_optimal[reached] / seeds,
        "mean_reward": out.curve_reward[reached] / CURVE_SCALE / seeds,
        "seeds": seeds,
    }, columns=list(CURVES_COLUMNS))
