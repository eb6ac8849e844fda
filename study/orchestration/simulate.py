"""One simulation over a set of seeds through the kernel's drivers, and one shard from scratch.

The learner's declaration (``study.model.registry``) says which driver runs it: a nested learner
runs once per seed to the largest budget, one that plans from the budget once per checkpoint.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache

import numba
import numpy as np
from numba._dispatcher import compute_fingerprint

from study.core import prompt_rules
from study.core.kernel import (
    GEOMETRIC,
    simulate_fixed_budget,
    simulate_groups,
    simulate_single,
    simulate_tokens,
)
from study.core.offpolicy import RECORDED, simulate_offpolicy
from study.core.passes import simulate_passes
from study.core.prompts import difficulty_bands, simulate_prompts
from study.core.state import LANES, UNROLLED_ARMS, VECTOR
from study.core.streams import kernel_keys, run_keys
from study.model import registry
from study.model.environment import Environment, best_arms, length_scales
from study.model.grid import Simulation
from study.model.offpolicy import ESTIMATORS, OffPolicy
from study.orchestration.shards import (
    PromptShardResult,
    Result,
    Shard,
    ShardResult,
)
from study.rewards import DEFAULT_VERDICT


@dataclass(frozen=True)
class KernelOutput:
    """The kernel's arrays for one simulation over a set of seeds; shapes (seeds, checkpoints)
    and (seeds, checkpoints, K) (``scores`` is empty unless asked for); the seeds' arm values and
    best arms, (seeds, K); and the curves' per-step sums over the seeds, (steps,) (empty unless
    asked for)."""

    greedy: np.ndarray
    p_best: np.ndarray
    pass_rate: np.ndarray
    reward_sum: np.ndarray
    pulls: np.ndarray
    scores: np.ndarray
    finite: np.ndarray
    zero_signal: np.ndarray
    values: np.ndarray
    best: np.ndarray
    curve_optimal: np.ndarray
    curve_reward: np.ndarray
    curve_seeds: np.ndarray
    """The runs each step of the curves has: every run, but where answers cost tokens the runs
    whose rollouts reach it (a run's rollouts are those of the updates before it passes its
    largest budget)."""
    rollouts: np.ndarray | None = None
    tokens: np.ndarray | None = None
    expected_length: np.ndarray | None = None
    """What a run whose answers have lengths spent by each checkpoint, (seeds, checkpoints):
    rollouts, tokens and the policy's expected answer length (``study.core.kernel``'s token
    meter, in ``simulate_tokens`` and ``simulate_offpolicy``); None where answers have none."""
    entropy: np.ndarray | None = None
    kl_bias: np.ndarray | None = None
    kl_mse: np.ndarray | None = None
    served: np.ndarray | None = None
    """What an off-policy run records at each checkpoint (``study.core.offpolicy``): the
    policy's entropy, (seeds, checkpoints), each recorded KL estimator's gradient bias norm
    and mean squared error, (seeds, checkpoints, 3), and the served policy's pass rate and mass
    on the best arms, (seeds, checkpoints, 2); None for the other drivers."""

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
        common = (self.greedy, self.p_best, self.pass_rate, self.reward_sum, best_pulls,
                  self.finite, self.zero_signal,
                  np.repeat(np.argmax(self.best, axis=1)[:, None], checkpoints, axis=1),
                  np.repeat(top[:, None], checkpoints, axis=1),
                  np.repeat(gap[:, None], checkpoints, axis=1), greedy_value)
        answers = ({"rollouts": self.rollouts, "tokens": self.tokens,
                    "expected_length": self.expected_length} if self.tokens is not None else {})
        sampler = {}
        if self.entropy is not None:
            sampler = {"entropy": self.entropy,
                       **{f"{name}_{kind}": values[:, :, e]
                          for kind, values in (("bias", self.kl_bias), ("mse", self.kl_mse))
                          for e, name in enumerate(ESTIMATORS[1:])},
                       "served_pass_rate": self.served[:, :, 0],
                       "served_p_best": self.served[:, :, 1]}
        return ShardResult(*common, self.curve_optimal, self.curve_reward, self.curve_seeds,
                           **answers, **sampler)


def simulate(simulation: Simulation, keys: np.ndarray, budgets: tuple[int, ...],
             curves: bool = False, scores: bool = False, tokens: bool = False) -> KernelOutput:
    """Run the kernel for one simulation, one run per row of ``keys``; with ``curves`` also sum
    the per-step curves over the runs (for the nested learners; the others plan from each budget
    and have no single run to follow step by step); with ``scores`` also return every run's
    scores of the arms at each checkpoint (for the tests: the runs table does not keep them).
    A simulation whose answers have lengths runs ``simulate_tokens`` (the off-policy learner's
    ``simulate_offpolicy``, which meters its updates as it does), its ``budgets`` counting
    tokens with ``tokens``, else rollouts (its curves' steps those of the runs whose rollouts
    reach them: ``KernelOutput.curve_seeds``)."""
    registry.register_kernels()
    env = simulation.environment
    learner = simulation.learner
    runs, checkpoints, arms = keys.shape[0], len(budgets), env.arms
    values = env.arm_values(keys)
    best = best_arms(values)
    group = simulation.group_size
    # A nested run makes floor(B / G) updates of G rollouts; the curves follow every rollout.
    # Counting tokens, it makes at most B rollouts (each answer costs a token at least).
    counted = env.lengths is not None
    steps = ((budgets[-1] if counted and tokens else budgets[-1] // group * group)
             if curves and learner.nested else 0)
    # The blocks of LANES runs are spread over the threads, thread g taking blocks g, g +
    # threads, ...; each sums its curves into its own row (integer sums, the same totals however
    # the blocks are spread).
    threads = min(-(-runs // LANES), numba.get_num_threads())
    offpolicy = simulation.offpolicy
    out = KernelOutput(
        greedy=np.empty((runs, checkpoints), dtype=np.int64),
        p_best=np.empty((runs, checkpoints)),
        pass_rate=np.empty((runs, checkpoints)),
        reward_sum=np.empty((runs, checkpoints)),
        pulls=np.empty((runs, checkpoints, arms), dtype=np.int64),
        scores=np.empty((runs, checkpoints, arms) if scores else (0, 0, 0)),
        finite=np.empty((runs, checkpoints), dtype=np.bool_),
        zero_signal=np.empty((runs, checkpoints), dtype=np.int64),
        values=values,
        best=best,
        curve_optimal=np.zeros((threads, steps), dtype=np.int64),
        curve_reward=np.zeros((threads, steps), dtype=np.int64),
        curve_seeds=np.zeros((threads, steps), dtype=np.int64),
        rollouts=np.empty((runs, checkpoints), dtype=np.int64) if counted else None,
        tokens=np.empty((runs, checkpoints)) if counted else None,
        expected_length=np.empty((runs, checkpoints)) if counted else None,
        entropy=np.empty((runs, checkpoints)) if offpolicy else None,
        kl_bias=np.empty((runs, checkpoints, RECORDED)) if offpolicy else None,
        kl_mse=np.empty((runs, checkpoints, RECORDED)) if offpolicy else None,
        served=np.empty((runs, checkpoints, 2)) if offpolicy else None,
    )
    philox_keys = kernel_keys(keys)
    checkpoints_array = np.asarray(budgets, dtype=np.int64)
    parameters = np.asarray(env.reward_parameters, dtype=np.float64)
    outputs = (out.greedy, out.p_best, out.pass_rate, out.reward_sum, out.pulls, out.scores,
               out.finite, out.zero_signal)
    if learner.nested:
        literal_arms = _literal_arms(arms)
        settings = (parameters, float(simulation.lr), learner.baseline_code(simulation.baseline))
        models: tuple[str, ...] = (env.reward,)
        # A pull's reward is the verdict's, shaped by the reward model where answers cost
        # tokens (study.core.reward_hooks; a verdict is its own shaping, which shapes nothing).
        verdict = np.asarray(env.judged_with, dtype=np.float64)
        lengths = np.asarray(env.lengths or (), dtype=np.float64)
        # Budgets count tokens only where answers have lengths (else every update would cost
        # none, and a run would never reach its checkpoints).
        meter = (lengths, GEOMETRIC if env.length_law == "geometric" else 0, env.length_scales(),
                 parameters, int(tokens and counted))
        if offpolicy is not None:
            driver = simulate_offpolicy
            models = (env.judged_by, env.reward)
            settings = (verdict, float(simulation.lr), simulation.baseline == "leave_one_out",
                        simulation.baseline == "group_zscore", group, *offpolicy.codes(), meter,
                        checkpoints_array)
        elif counted:
            driver = simulate_tokens
            models = (env.judged_by, env.reward)
            settings = (*meter[:3], verdict, parameters, *settings[1:], group, int(tokens),
                        checkpoints_array)
        elif group == 1:
            driver, settings = simulate_single, (*settings, checkpoints_array)
        else:
            driver, settings = simulate_groups, (*settings, group, checkpoints_array)

        empty = np.empty((0, 0))

        def blocks(first: int) -> None:
            # Thread ``first`` takes blocks first, first + threads, ..., and its own curve rows.
            for lo in range(first * LANES, runs, threads * LANES):
                rows = slice(lo, lo + LANES)
                # A last, partial block runs in whole vectors, not LANES: every lane's arithmetic
                # is its own, so the results are the same bits, and a study of few seeds (a
                # test's) does not pay for LANES.
                lanes = min(LANES, -(-(min(runs, lo + LANES) - lo) // VECTOR) * VECTOR)
                spent = ((out.rollouts[rows], out.tokens[rows], out.expected_length[rows])
                         if counted else (empty, empty, empty))
                curve = (out.curve_optimal[first], out.curve_reward[first])
                # The metered drivers count each step's runs themselves.
                metered = (*curve, out.curve_seeds[first])
                tail = (spent, metered) if counted and offpolicy is None else curve
                if offpolicy is not None:
                    tail = ((out.entropy[rows], out.kl_bias[rows], out.kl_mse[rows],
                             out.served[rows]), spent, metered)
                arguments = (learner.name, literal_arms, *models, philox_keys[rows], lanes,
                             values[rows], best[rows], *settings,
                             tuple(o[rows] if len(o) else o for o in outputs), *tail)
                _compiled(driver, 2 + len(models), arguments)(*arguments)

        _on_threads(blocks, threads)
    else:
        arguments = (learner.name, env.reward, philox_keys, values, parameters, checkpoints_array,
                     *outputs)
        _compiled(simulate_fixed_budget, 2, arguments)(*arguments)
    seeds = out.curve_seeds.sum(axis=0)
    if not (counted or offpolicy is not None):
        seeds = np.full(steps, runs, dtype=np.int64)
    return replace(out, curve_optimal=out.curve_optimal.sum(axis=0),
                   curve_reward=out.curve_reward.sum(axis=0), curve_seeds=seeds)


def simulate_dataset(simulation: Simulation, keys: np.ndarray, budgets: tuple[int, ...],
                     tokens: bool = False) -> PromptShardResult:
    """Run the many-prompts kernel (``study.core.prompts``) for one simulation, one run per row
    of ``keys``: each field of ``study.core.prompt_rules.FIELDS`` per (run, checkpoint, band).
    The kernel spreads the runs over numba's threads, one run per task (each run's arithmetic
    is its own, so the results do not depend on the threads). A simulation whose groups come
    from an off-policy sampler or whose answers have lengths or another verdict runs the nested
    driver (``study.core.passes``), its budgets counting tokens where
    ``tokens``: the many-prompts kernel's prompts are Bernoulli bandits trained on policy."""
    env = simulation.environment
    values = env.prompt_values(keys)
    groups = readout_groups(env, values)
    present = env.prompt_arms()
    if simulation.offpolicy is None and env.lengths is None and env.reward == DEFAULT_VERDICT:
        return simulate_values(values, keys, simulation.lr, simulation.baseline,
                               simulation.group_size, simulation.allocation, budgets,
                               simulation.normalization, groups, present)
    return simulate_passes_values(values, keys, env, simulation.lr, simulation.baseline,
                                  simulation.group_size, budgets, simulation.offpolicy, tokens,
                                  simulation.allocation, simulation.normalization, groups,
                                  present)


Groups = tuple[np.ndarray, int]
"""Each prompt's readout group per run, (runs, P) int64, and how many groups there are: a
many-prompts kernel's outputs are per (run, checkpoint, group)."""


def readout_groups(environment: Environment, values: np.ndarray) -> Groups:
    """The groups a dataset's readouts are summed over: a population's environments
    (``study.model.population``, the same for every run), else the difficulty bands of the
    prompts' values ``values`` (runs, P, K) (``study.core.prompts.difficulty_bands``)."""
    drawn = environment.population
    if drawn is None:
        return difficulty_bands(values), prompt_rules.BANDS
    return (np.ascontiguousarray(np.broadcast_to(drawn.environment_of, values.shape[:2])),
            len(drawn.holdings))


def simulate_values(values: np.ndarray, keys: np.ndarray, lr: float, estimator: str,
                    group: int, rule: str, budgets: tuple[int, ...],
                    normalization: str = "per_group", groups: Groups | None = None,
                    present: np.ndarray | None = None) -> PromptShardResult:
    """The many-prompts kernel on the prompts' arm values ``values`` (runs, P, K), one run per
    row of ``keys``, with the group estimator ``estimator``, the allocation rule ``rule`` and
    the update's ``normalization`` by name, its readouts summed per group of ``groups`` (default:
    difficulty bands), each prompt i of its first ``present[i]`` arms (default: K) (P,)
    (``simulate_dataset`` for a simulation's own values; the tests give theirs)."""
    registry.register_kernels()
    group_of, count = groups or (difficulty_bands(values), prompt_rules.BANDS)
    present = _prompt_arms(values, present)
    out = tuple(np.zeros((len(keys), len(budgets), count),
                         dtype=np.float64 if name in prompt_rules.FLOAT_FIELDS else np.int64)
                for name in prompt_rules.FIELDS)
    arguments = (_literal_arms(values.shape[2]), kernel_keys(keys), values, present,
                 best_arms(values, present), group_of, float(lr),
                 prompt_rules.ESTIMATORS.index(estimator),
                 prompt_rules.NORMALIZATIONS.index(normalization), group,
                 registry.allocation_names().index(rule),
                 np.asarray(budgets, dtype=np.int64), out)
    _compiled(simulate_prompts, 1, arguments)(*arguments)
    return PromptShardResult(*out)


PASS_FIELDS = ("served_pass_rate", "tokens", "expected_length", "stuck")
"""The order of ``study.core.passes``' ``extra`` arrays (``PromptShardResult``'s groups)."""


def simulate_passes_values(values: np.ndarray, keys: np.ndarray, environment: Environment,
                           lr: float, estimator: str, group: int, budgets: tuple[int, ...],
                           offpolicy: OffPolicy | None = None, tokens: bool = False,
                           rule: str = "uniform", normalization: str = "per_group",
                           groups: Groups | None = None, present: np.ndarray | None = None
                           ) -> PromptShardResult:
    """The nested many-prompts driver (``study.core.passes``) on the prompts' arm values
    ``values`` (runs, P, K) under the allocation rule ``rule`` and the step's
    ``normalization``, one run per row of ``keys``: the prompts' rewards and answers
    ``environment``'s (its verdict, shaping and lengths), their sampler and correction
    ``offpolicy``'s (the learner's own where None), the budgets counting tokens
    where ``tokens`` and the answers have lengths. Each field of ``prompt_rules.FIELDS`` per
    (run, checkpoint, group of ``groups``, default: difficulty bands), and the column groups of
    ``PromptShardResult`` that apply, each prompt of its first ``present[i]`` arms (as
    ``simulate_values``). The runs are spread over threads, a share of the seeds each."""
    registry.register_kernels()
    group_of, count = groups or (difficulty_bands(values), prompt_rules.BANDS)
    present = _prompt_arms(values, present)
    shape = (len(keys), len(budgets), count)
    out = tuple(np.zeros(shape, dtype=np.float64 if name in prompt_rules.FLOAT_FIELDS
                         else np.int64) for name in prompt_rules.FIELDS)
    counted = environment.lengths is not None
    empty = np.zeros((0, 0, 0))
    extra = (np.zeros(shape) if offpolicy is not None else empty,
             np.zeros(shape) if counted else empty, np.zeros(shape) if counted else empty,
             np.zeros(shape, dtype=np.int64) if offpolicy is not None
             else np.zeros((0, 0, 0), dtype=np.int64))
    sampler = (offpolicy or OffPolicy()).codes()
    allocation = registry.allocation(rule)
    parameters = np.asarray(environment.reward_parameters, dtype=np.float64)
    # Each prompt's verdict and lengths: a population's its environment's, else the bandit's
    # for every one of the dataset's prompts (a test's values may have any number).
    dataset = (environment if environment.is_population
               else environment.with_prompts(values.shape[1]))
    if dataset.prompts != values.shape[1]:
        raise ValueError(f"the population holds {dataset.prompts} prompts, and the values "
                         f"{values.shape[1]}")
    lengths = (dataset.prompt_lengths() if counted
               else np.zeros((0, values.shape[1])))
    meter = (lengths, GEOMETRIC if environment.length_law == "geometric" else 0,
             length_scales(lengths), parameters, int(tokens and counted))
    arguments = ("reinforce", _literal_arms(values.shape[2]), environment.judged_by,
                 environment.reward, kernel_keys(keys), values, present,
                 best_arms(values, present), group_of, dataset.prompt_verdicts(),
                 float(lr), estimator == "leave_one_out", estimator == "group_zscore", group,
                 (registry.allocation_names().index(rule), allocation.fixed,
                  allocation.reads_policy, normalization == "per_batch"), *sampler, meter,
                 np.asarray(budgets, dtype=np.int64), out, extra)
    threads = max(1, min(len(keys), numba.get_num_threads()))
    entry = _compiled(simulate_passes, 4, arguments)
    share = -(-len(keys) // threads)

    def runs(first: int) -> None:
        # Thread ``first`` runs seeds [first share, (first + 1) share): a run's arithmetic is
        # its own, so the results do not depend on the threads.
        rows = slice(first * share, (first + 1) * share)
        entry(*arguments[:4], arguments[4][rows], arguments[5][rows], arguments[6],
              *(a[rows] for a in arguments[7:9]), *arguments[9:-2], tuple(o[rows] for o in out),
              tuple(e[rows] if e.size else e for e in extra))

    _on_threads(runs, threads)
    return PromptShardResult(*out, **{name: array if array.size else None
                                      for name, array in zip(PASS_FIELDS, extra, strict=True)})


def warm(simulation: Simulation, keys: np.ndarray) -> None:
    """Load (or compile) the kernel that ``simulation`` runs, on a one-rollout run of each of
    ``keys``."""
    if simulation.allocation:
        simulate_dataset(simulation, keys, (1,))
    else:
        simulate(simulation, keys, (1,))


def _prompt_arms(values: np.ndarray, present: np.ndarray | None) -> np.ndarray:
    """Each prompt's arms (P,) int64 for the kernels: ``present``, or K each; ValueError unless
    there is one count per prompt, each in 1 .. K."""
    prompts, arms = values.shape[1], values.shape[2]
    if present is None:
        return np.full(prompts, arms, dtype=np.int64)
    present = np.ascontiguousarray(present, dtype=np.int64)
    if present.shape != (prompts,) or present.min() < 1 or present.max() > arms:
        raise ValueError(f"each of the {prompts} prompts needs 1 to {arms} arms")
    return present


def _literal_arms(arms: int) -> int:
    """K as the kernels take it to be compiled for it: K itself up to ``UNROLLED_ARMS``, 0 past
    it (one compilation for every larger K)."""
    return arms if arms <= UNROLLED_ARMS else 0


_ENTRIES: dict[tuple[object, ...], Callable[..., None]] = {}
"""``_compiled``'s machine code by driver, literals and the other arguments' fingerprints."""


def _compiled(driver: numba.core.registry.CPUDispatcher, literals: int,
              arguments: tuple[object, ...]) -> Callable[..., None]:
    """The machine code of ``driver`` for ``arguments``, the first ``literals`` of them as
    literals (the drivers ask for their learner's name, K and reward model with
    ``numba.literally``), compiled if it is not yet. Called through its dispatcher, such a
    driver is typed again at every call, for milliseconds, before the dispatcher retries with
    the literals. Typing the arguments (``numba.typeof``) to look the compiled version up by its
    signature took half a millisecond, at every block of every call: at 1,024 seeds x 2,000
    episodes, K = 3, a sixth of the call. So the lookup is keyed on the literals and the other
    arguments' type fingerprints (dtype, dimensions, layout, whether writeable: what numba's own
    dispatcher keys its type cache on), in microseconds, and numba types them only once per
    key."""
    fingerprints = tuple(compute_fingerprint(value) for value in arguments[literals:])
    key = (driver, arguments[:literals], fingerprints)
    entry = _ENTRIES.get(key)
    if entry is None:
        signature = (tuple(numba.types.literal(value) for value in arguments[:literals])
                     + tuple(numba.typeof(value) for value in arguments[literals:]))
        entry = _ENTRIES[key] = driver.compile(signature)
    return entry


def _on_threads(work: Callable[[int], None], threads: int) -> None:
    """work(0), ..., work(threads - 1), each on a thread of its own (the kernel's drivers release
    Python's lock). Threads from Python rather than a numba ``prange``: a parallel driver is a
    second compilation per learner and K, as long as the driver's own."""
    if threads == 1:
        work(0)
        return
    with ThreadPoolExecutor(threads) as pool:
        for done in [pool.submit(work, first) for first in range(threads)]:
            done.result()


@lru_cache(maxsize=8)
def _keys(root_seed: int, start: int, stop: int, stream_id: int | None) -> np.ndarray:
    """The shard's run keys; with ``per_seed`` streams every simulation of a seed block has the
    same keys, and deriving them (a SeedSequence per seed) would otherwise cost as much as
    simulating a short budget. (Nothing writes to them; numba would compile a second kernel
    for a read-only array.)"""
    return run_keys(root_seed, np.arange(start, stop), stream_id)


COLLECT_SEEDS = 262_144
"""Seeds simulated between two runs of Python's cyclic garbage collector. numba dispatches the
kernel on the learner's name as a literal (``nb.literally``), and each call leaves frames that
hold its arrays in reference cycles; the collector frees them only at intervals counted in
objects, not bytes, so without this a study's memory would grow with its seeds. With the kernels
compiled a collection takes about a tenth of a second: at this interval a few percent of the
simulation's time, a quarter of what every 65,536 seeds cost, and the arrays left waiting are
those of at most 32 shards of 8,192 seeds."""
_uncollected = [0]


def run_shard(shard: Shard) -> Result:
    """Simulate one shard from scratch (pure: the result depends on the shard alone)."""
    stream_id = None if shard.streams == "per_seed" else shard.simulation.stream_id()
    keys = _keys(shard.root_seed, shard.start, shard.stop, stream_id)
    result = (simulate_dataset(shard.simulation, keys, shard.budgets, shard.tokens)
              if shard.simulation.allocation else
              simulate(shard.simulation, keys, shard.budgets, shard.curves,
                       tokens=shard.tokens).reduce())
    _uncollected[0] += shard.stop - shard.start
    if _uncollected[0] >= COLLECT_SEEDS:
        _uncollected[0] = 0
        gc.collect()
    return result
