"""``make bench``: the package's kernel against every reference, measured in one process.

Writes ``out/bench/bench.json`` and ``out/bench/bench.md`` and prints the tables. Every timing is
the median of REPEATS runs after a warm-up run, reported as ns per episode and as the ratio to the
package's kernel on one thread measured in the same process, so that the machine's speed (noisy on
a shared 2-core VM) cancels out of the ratios; the one-thread works that the targets compare are
timed in the same rounds, in turn (``interleaved_rounds``), so that its drift does too; the
kernel over its floor is the median of the rounds' ratios, the two timed one right after the other
(``paired_ratio``).
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

from benchmarks import ab
from benchmarks.floor import floor_loop
from benchmarks.numpy_peer import numpy_reinforce
from benchmarks.scalar_numba import scalar_reinforce
from reference import run as reference_run
from study.core.state import LANES
from study.core.streams import kernel_keys, run_keys
from study.model import registry
from study.model.atomic import write_text
from study.model.environment import Environment
from study.model.grid import Simulation
from study.model.offpolicy import OffPolicy
from study.model.paths import OUT_DIR, REPO_ROOT
from study.orchestration.simulate import simulate, simulate_dataset

REPEATS = 5
KERNEL_1 = "package kernel, 1 thread"
GAUSSIAN = "package kernel, Gaussian rewards, 1 thread"
GROUPS_8 = "package kernel, groups of 8 (group_mean), per rollout, 1 thread"
LENGTHS = (1, 2, 4)
"""The answers' lengths of the token-counting rows (the length study's headline bandit)."""
ANSWERS = {"answers of lengths 1, 2, 4 (running_mean), per rollout": ("running_mean", 1),
           "answers of lengths 1, 2, 4, groups of 8 (group_mean), per rollout": ("group_mean", 8)}
"""The token-counting rows (budgets in rollouts: per rollout the work of the rows they are set
against), by their workload's name: baseline and group size."""
TOKENS, TOKENS_8 = (f"package kernel, {name}, 1 thread" for name in ANSWERS)
OFF_POLICY = ("package kernel, off-policy groups of 8 (group_mean), lag 4, tis, per rollout, "
              "1 thread")
"""The off-policy learner's row: a sampler 4 updates stale, truncated importance weights."""
OFF_POLICY_TOKENS = ("package kernel, off-policy groups of 8 (group_mean), lag 4, tis, answers "
                     "of lengths 1, 2, 4, per rollout, 1 thread")
"""The composition of the off-policy row and the token-counting row of groups of 8 (budgets in
rollouts: per rollout the work of both)."""
PROMPTS = 256
"""The many-prompts rows' dataset: the many-prompts study's size."""
PROMPTS_UNIFORM = (f"many-prompts kernel, {PROMPTS} prompts, uniform, groups of 8 (group_mean), "
                   "per rollout, 1 thread")
PROMPTS_OFF_POLICY = PROMPTS_UNIFORM.replace("uniform,", "uniform, off-policy lag 4, tis,")
"""The composition of the many-prompts row and the off-policy row (``study.core.passes``)."""
PROMPTS_TOKENS = PROMPTS_UNIFORM.replace("uniform,", "uniform, answers of lengths 1, 2, 4,")
"""The composition of the many-prompts row and the token-counting row of groups of 8 (budgets
in rollouts: per rollout the work of both)."""
PROMPTS_RECIPE = PROMPTS_UNIFORM.replace("uniform,", "uniform, the protocol's full recipe,")
"""The protocol study's full recipe (``study/configs/protocol.toml``, every part high) at the
many-prompts row's size: a sampler 4 versions stale, mismatched (0.5) and truncated (top_p 0.9)
with TIS, OPSM and the kept mask, a k3_is KL term (0.1), a noisy verifier (0.1 false passes)
under a length penalty (0.04, lifted after 80%) on geometric answers of lengths 1, 2, 4."""
FLOOR = "floor: draws + K exps only, 1 thread"
NUMPY = "numpy vectorized across seeds"
PYTHON = "pure-Python reference (reference/)"
WHOLE_PROCESS = "python -m bandit_study run, whole process, 1 thread"
NUMPY_WHOLE = "numpy vectorized across seeds, whole-process workload"
PROBS = (0.5, 0.55, 0.6)
LR = 0.1
SIM = Simulation("reinforce", Environment.fixed(PROBS), LR, "running_mean")


def _cpu_info() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    first = text.split("\n\n", 1)[0]
    return {key.strip(): value.strip() for key, _, value in
            (line.partition(":") for line in first.splitlines())}


def cpu_model() -> str:
    """The processor's model name (these machines change from day to day)."""
    return _cpu_info().get("model name", platform.processor() or "unknown CPU")


def vector_extensions() -> list[str]:
    """The SIMD extensions the processor reports (AVX2, AVX-512 ...), which set the kernel's
    vector width."""
    flags = set(_cpu_info().get("flags", "").split())
    return sorted(f for f in flags if f.startswith(("avx", "sse4", "fma")))


def median_seconds(work: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median wall time of ``repeats`` calls after one warm-up call."""
    work()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def interleaved_rounds(works: dict[str, Callable[[], object]],
                       repeats: int = REPEATS) -> dict[str, list[float]]:
    """Wall time of each of ``works`` in each of ``repeats`` rounds that time every work once,
    in turn, after a warm-up call of each; every other round in the reverse order, so that
    neighbours are timed first and second alike. The host's speed drifts over minutes; timed one
    after the other, two works can land on different speeds, and a ratio of theirs with them,
    while in rounds the drift falls on all of them alike."""
    for work in works.values():
        work()
    times: dict[str, list[float]] = {name: [] for name in works}
    order = list(works.items())
    for round_ in range(repeats):
        for name, work in order if round_ % 2 == 0 else reversed(order):
            began = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - began)
    return times


def medians(rounds: dict[str, list[float]]) -> dict[str, float]:
    """Each work's median time over ``interleaved_rounds``."""
    return {name: statistics.median(spent) for name, spent in rounds.items()}


def paired_ratio(rounds: dict[str, list[float]], numerator: str, denominator: str) -> float:
    """The median over rounds of ``numerator``'s time over ``denominator``'s, two works timed
    one right after the other in every round (``interleaved_rounds``): the host's drift between
    rounds, which can move both medians, cancels in each round's ratio."""
    return statistics.median(n / d for n, d in zip(rounds[numerator], rounds[denominator],
                                                   strict=True))


def kernel_ns(seeds: int, budget: int, threads: int, probs: tuple[float, ...] = PROBS,
              repeats: int = REPEATS) -> float:
    """ns per episode of the package's kernel (all cores' time together, i.e. wall time)."""
    numba.set_num_threads(threads)
    keys = run_keys(1, np.arange(seeds))
    sim = Simulation("reinforce", Environment.fixed(probs), LR, "running_mean")
    seconds = median_seconds(lambda: simulate(sim, keys, (budget,)), repeats)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return seconds / (seeds * budget) * 1e9


def references() -> tuple[list[dict[str, object]], float]:
    """One row per implementation: what it ran, ns per episode, ratio to the 1-thread kernel;
    and the kernel over its floor, each round's ratio's median (``paired_ratio``)."""
    probs = np.array(PROBS)
    rows = []

    def row(name: str, workload: str, episodes: int, seconds: float) -> None:
        rows.append({"name": name, "workload": workload,
                     "ns_per_episode": seconds / episodes * 1e9})

    seeds, budget = 2048, 10_000
    keys = run_keys(1, np.arange(seeds))
    workload = f"{seeds} seeds x {budget} episodes"
    # What the environments cost: Gaussian rewards (a Box-Muller normal per episode) and the
    # per-step curves (two integer sums per episode); and group rollouts (G per update, the
    # group mean as baseline), per rollout; each on the same workload.
    gaussian = Simulation("reinforce", Environment.fixed(PROBS, "gaussian"), LR, "running_mean")
    answers = Environment.fixed(PROBS).with_lengths(LENGTHS)
    variants = [("Gaussian rewards", gaussian, False), ("per-step curves", SIM, True),
                *((f"groups of {g} (group_mean), per rollout",
                   Simulation("reinforce", Environment.fixed(PROBS), LR, "group_mean", g), False)
                  for g in (8, 64)),
                *((name, Simulation("reinforce", answers, LR, baseline, group), False)
                  for name, (baseline, group) in ANSWERS.items()),
                *((name.removeprefix("package kernel, ").removesuffix(", 1 thread"),
                   Simulation("reinforce", env, LR, "group_mean", 8,
                              offpolicy=OffPolicy(lag=4, correction="tis")), False)
                  for name, env in ((OFF_POLICY, Environment.fixed(PROBS)),
                                    (OFF_POLICY_TOKENS, answers)))]
    # Many prompts sharing one budget, per rollout, at the group size of the groups-of-8 row:
    # prompts drawn from beta(2, 2), 400 rollouts per prompt (the many-prompts study goes to
    # 1,024; drawing a seed's 768 values with numpy costs as much as thousands of rollouts, so
    # shorter runs would time numpy's samplers more than the kernel), each allocation rule.
    prompt_seeds, prompt_budget = 64, PROMPTS * 400
    dataset = Environment.drawn("beta", len(PROBS), (2.0, 2.0)).with_prompts(PROMPTS)
    prompts = {PROMPTS_UNIFORM.replace("uniform", rule):
               Simulation("reinforce", dataset, LR, "group_mean", 8, rule)
               for rule in registry.allocation_names()}
    prompts[PROMPTS_OFF_POLICY] = Simulation("reinforce", dataset, LR, "group_mean", 8,
                                             "uniform",
                                             offpolicy=OffPolicy(lag=4, correction="tis"))
    prompts[PROMPTS_TOKENS] = Simulation("reinforce", dataset.with_lengths(LENGTHS), LR,
                                         "group_mean", 8, "uniform")
    prompts[PROMPTS_RECIPE] = Simulation(
        "reinforce", dataset.with_lengths(LENGTHS, "geometric")
        .with_reward("length_penalty", (0.04, 1.0, 0.8)).with_verdict("noisy_verifier",
                                                                      (0.1, 0.0)),
        LR, "group_mean", 8, "uniform",
        offpolicy=OffPolicy(lag=4, mismatch=0.5, top_p=0.9, correction="tis+opsm+keep_mask",
                            kl_beta=0.1, kl_estimator="k3_is",
                            parameters=(("tis_cap", 2.0), ("opsm_threshold", 0.1))))
    numpy_seeds, numpy_budget = 10_000, 200
    rng = np.random.default_rng(1)
    # Everything a target compares on one thread is timed in the same rounds.
    prompt_load = (f"{prompt_seeds} seeds x {prompt_budget} rollouts", prompt_seeds * prompt_budget)
    # The floor right after the kernel, so that their ratio is taken within each round.
    works: dict[str, tuple[tuple[str, int], Callable[[], object]]] = {
        KERNEL_1: ((workload, seeds * budget), lambda: simulate(SIM, keys, (budget,))),
        FLOOR: ((workload, seeds * budget),
                lambda: floor_loop(kernel_keys(keys), len(PROBS), budget, LANES)),
        **{f"package kernel, {name}, 1 thread":
           ((workload, seeds * budget),
            lambda sim=sim, curves=curves: simulate(sim, keys, (budget,), curves))
           for name, sim, curves in variants},
        **{name: (prompt_load,
                  lambda sim=sim: simulate_dataset(sim, keys[:prompt_seeds], (prompt_budget,)))
           for name, sim in prompts.items()},
        NUMPY: ((f"{numpy_seeds} seeds x {numpy_budget} episodes", numpy_seeds * numpy_budget),
                lambda: numpy_reinforce(probs, LR, numpy_budget, numpy_seeds, rng)),
    }
    numba.set_num_threads(1)
    rounds = interleaved_rounds({name: work for name, (_, work) in works.items()})
    timed = medians(rounds)
    threads = numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(threads)
    both = median_seconds(lambda: simulate(SIM, keys, (budget,)))
    numba.set_num_threads(1)
    for name, ((load, episodes), _) in works.items():
        row(name, load, episodes, timed[name])
        if name == KERNEL_1:
            row(f"package kernel, {threads} threads", workload, seeds * budget, both)
    scalar_seeds, scalar_budget = 1024, 2_000
    row("scalar numba loop (libm exp, np.random), 1 thread",
        f"{scalar_seeds} seeds x {scalar_budget} episodes", scalar_seeds * scalar_budget,
        median_seconds(lambda: scalar_reinforce(probs, LR, scalar_budget, scalar_seeds, 1)))
    # The whole process against numpy on one workload: ``python -m bandit_study run`` on one thread
    # (start-up with a warm numba cache, simulation, the runs table written; a fresh shard cache)
    # and the numpy peer in this process; timed once each, as each takes seconds.
    whole_seeds, whole_budget = 10_000, 50_000
    workload = f"{whole_seeds} seeds x {whole_budget} episodes"
    row(WHOLE_PROCESS, workload, whole_seeds * whole_budget,
        whole_process_seconds(whole_seeds, whole_budget))
    began = time.perf_counter()
    numpy_reinforce(probs, LR, whole_budget, whole_seeds, rng)
    row(NUMPY_WHOLE, workload, whole_seeds * whole_budget, time.perf_counter() - began)
    py_seeds, py_budget = 2, 2_000
    row(PYTHON, f"{py_seeds} seeds x {py_budget} episodes",
        py_seeds * py_budget, median_seconds(lambda: [
            reference_run(keys[i], list(PROBS), "bernoulli", "reinforce", LR, "running_mean",
                          [py_budget])
            for i in range(py_seeds)]))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    base = rows[0]["ns_per_episode"]
    for r in rows:
        r["ratio_to_kernel"] = r["ns_per_episode"] / base
    return rows, paired_ratio(rounds, KERNEL_1, FLOOR)


def whole_process_seconds(seeds: int, budget: int) -> float:
    """Wall time of ``python -m bandit_study run`` in a fresh process on one thread: the headline
    bandit, lr 0.1, running-mean baseline, ``seeds`` x ``budget``, into a fresh output and shard
    cache, with a warm numba cache: a run of 64 seeds x 10 episodes in a process of its own first
    compiles what the command needs (the CLI's arrays need not be of the types this process's
    kernel calls compiled)."""
    def run(folder: Path, seeds: int, budget: int) -> float:
        config = folder / "whole_process.toml"
        config.write_text(textwrap.dedent(f"""
            [study]
            name = "whole_process"
            root_seed = 1
            seeds = {seeds}
            [grid]
            probs = [[{", ".join(map(str, PROBS))}]]
            lr = [{LR}]
            baseline = ["running_mean"]
            budgets = [{budget}]
        """))
        env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "bandit_study", "run", str(config), "--out",
                        str(folder / "out"), "--quiet"], env=env, cwd=REPO_ROOT, check=True)
        return time.perf_counter() - began

    with tempfile.TemporaryDirectory() as warm, tempfile.TemporaryDirectory() as timed:
        run(Path(warm), 64, 10)
        return run(Path(timed), seeds, budget)


def targets(rows: list[dict[str, object]], over_floor: float, arms: dict[str, object],
            prompts: dict[str, object]) -> list[dict[str, object]]:
    """The ratios the kernel is held to (``rows`` and ``over_floor``: ``references``; ``arms``:
    ``arms_axis``; ``prompts``: ``prompts_axis``), each with its target and whether this host
    meets it."""
    ns = {r["name"]: r["ns_per_episode"] for r in rows}
    one = ns[KERNEL_1]
    every_thread = rows[1]["ns_per_episode"]
    found = [
        ("numpy peer / kernel (1 thread)", ns[NUMPY] / one, ">=", 2.0),
        ("pure-Python reference / kernel", ns[PYTHON] / one, ">=", 250.0),
        ("kernel / floor (the median of the rounds' ratios)", over_floor, "<=", 1.5),
        (f"1 thread / {numba.config.NUMBA_NUM_THREADS} threads", one / every_thread, ">=", 1.8),
        ("Gaussian / Bernoulli episode", ns[GAUSSIAN] / one, "<=", 1.5),
        ("groups of 8, per rollout / single rollouts", ns[GROUPS_8] / one, "<=", 1.0),
        ("answers that cost tokens / single rollouts, per rollout", ns[TOKENS] / one, "<=", 1.3),
        ("answers that cost tokens / groups of 8, per rollout", ns[TOKENS_8] / ns[GROUPS_8], "<=",
         1.3),
        ("off-policy (lag 4, tis) / on-policy groups of 8, per rollout",
         ns[OFF_POLICY] / ns[GROUPS_8], "<=", 1.5),
        ("off-policy with answers that cost tokens / the slower of the two alone, per rollout",
         ns[OFF_POLICY_TOKENS] / max(ns[OFF_POLICY], ns[TOKENS_8]), "<=", 1.3),
        (f"{PROMPTS} prompts (uniform) / one prompt, groups of 8, per rollout",
         ns[PROMPTS_UNIFORM] / ns[GROUPS_8], "<=", 1.5),
        (f"{PROMPTS} prompts off policy (lag 4, tis) / the slower of the two alone, per rollout",
         ns[PROMPTS_OFF_POLICY] / max(ns[PROMPTS_UNIFORM], ns[OFF_POLICY]), "<=", 1.3),
        (f"{PROMPTS} prompts with answers that cost tokens / the slower of the two alone, per "
         "rollout", ns[PROMPTS_TOKENS] / max(ns[PROMPTS_UNIFORM], ns[TOKENS_8]), "<=", 1.3),
        (f"{PROMPTS} prompts, the protocol's full recipe / one prompt's groups of 8, per rollout",
         ns[PROMPTS_RECIPE] / ns[GROUPS_8], "<=", 1.5),
        *((f"{PROMPTS} prompts, {rule} / uniform, per rollout",
           ns[PROMPTS_UNIFORM.replace("uniform", rule)] / ns[PROMPTS_UNIFORM], "<=", 1.5)
          for rule in ("variance", "oracle_variance", "knapsack")),
        ("numpy peer / whole process (same workload)", ns[NUMPY_WHOLE] / ns[WHOLE_PROCESS], ">=",
         2.0),
        *((f"kernel / floor at K = {r['arms']}, per arm-episode", r["kernel_over_floor"], "<=",
           1.5) for r in arms["rows"] if r["arms"] in (3, 50)),
        (f"fitted exponent of time per episode against K, {ARMS[0]} to {ARMS[-1]}",
         arms["exponent"], "<=", 1.1),
        (f"{PROMPT_COUNTS[-1]:,} prompts / one prompt, groups of 8, per rollout",
         prompts["rows"][-1]["ns_per_rollout"] / ns[GROUPS_8], "<=", 1.5),
        (f"fitted exponent of a study's time against P, {PROMPT_COUNTS[0]} to "
         f"{PROMPT_COUNTS[-1]:,}", prompts["exponent"], "<=", 1.1),
    ]
    return [{"ratio": name, "value": value, "target": f"{sign} {bound:g}",
             "met": value >= bound if sign == ">=" else value <= bound}
            for name, value, sign, bound in found]


def fitted_exponent(xs: list[float], seconds: list[float]) -> float:
    """Slope of log(time) against log(x): 1 means the cost grows linearly in x."""
    return float(np.polyfit(np.log(xs), np.log(seconds), 1)[0])


def scaling() -> dict[str, dict[str, object]]:
    """Wall time (all threads) against budget and seeds, each with its fitted exponent (K:
    ``arms_axis``)."""
    axes: dict[str, dict[str, object]] = {}

    def axis(name: str, values: list[int], run: Callable[[int], float]) -> None:
        seconds = [run(v) for v in values]
        axes[name] = {"values": values, "seconds": seconds,
                      "exponent": fitted_exponent(values, seconds)}

    threads = numba.config.NUMBA_NUM_THREADS

    def timed(seeds: int, budget: int, probs: tuple[float, ...]) -> float:
        return kernel_ns(seeds, budget, threads, probs, repeats=3) * seeds * budget * 1e-9

    axis("budget (256 seeds, K = 3)", [1_000, 10_000, 100_000, 1_000_000],
         lambda b: timed(256, b, PROBS))
    axis("seeds (budget 1000, K = 3)", [100, 1_000, 10_000, 100_000],
         lambda s: timed(s, 1_000, PROBS))
    return axes


ARMS_ROUNDS = 9
"""Rounds of the K axis (more than ``REPEATS``: its works are short, 2^26 arm-episodes each)."""
ARMS = (3, 5, 10, 20, 50, 100)
"""The K axis's numbers of arms (those past ``study.core.state.UNROLLED_ARMS`` run the drivers'
general compilation)."""


def arms_axis(seeds: int = 1024, arm_episodes: int = 2**26) -> dict[str, object]:
    """The kernel and its floor at each of ``ARMS`` (the headline learner, arm values evenly
    spaced in [0.4, 0.6]), one thread, timed one after the other in each of ``ARMS_ROUNDS``
    rounds: median ns per arm-episode of each, their ratio (``paired_ratio``), and the kernel's
    fitted exponent of time per episode against K. Every K runs about
    ``arm_episodes`` arm-episodes (a budget of ``arm_episodes`` / (``seeds`` K)), so that a small
    K's fixed costs per call weigh no more than a large K's."""
    numba.set_num_threads(1)
    keys = run_keys(1, np.arange(seeds))
    budgets = {arms: arm_episodes // (seeds * arms) for arms in ARMS}
    works: dict[str, Callable[[], object]] = {}
    for arms, budget in budgets.items():
        sim = Simulation("reinforce", Environment.fixed(tuple(np.linspace(0.4, 0.6, arms))), LR,
                         "running_mean")
        works[f"kernel {arms}"] = lambda sim=sim, budget=budget: simulate(sim, keys, (budget,))
        works[f"floor {arms}"] = lambda arms=arms, budget=budget: floor_loop(
            kernel_keys(keys), arms, budget, LANES)
    rounds = interleaved_rounds(works, ARMS_ROUNDS)
    seconds = medians(rounds)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    per_arm = {name: spent / (seeds * budgets[int(name.split()[1])] * int(name.split()[1])) * 1e9
               for name, spent in seconds.items()}
    rows = [{"arms": arms, "budget": budgets[arms],
             "kernel_ns_per_arm_episode": per_arm[f"kernel {arms}"],
             "floor_ns_per_arm_episode": per_arm[f"floor {arms}"],
             "kernel_over_floor": paired_ratio(rounds, f"kernel {arms}", f"floor {arms}")}
            for arms in ARMS]
    per_episode = [per_arm[f"kernel {arms}"] * arms for arms in ARMS]
    return {"seeds": seeds, "arm_episodes": arm_episodes, "rows": rows,
            "exponent": fitted_exponent(list(ARMS), per_episode)}


PROMPT_COUNTS = (256, 1024, 4096, 16384, 85_000)
"""The P axis's dataset sizes, up to DeepSeek-V3.2's 85,000 RL prompts (from one difficulty law
here, beta(2, 2), not its 1,827 environments)."""
PROMPT_ROUNDS = 3
PER_PROMPT = 64
"""Rollouts per prompt on the P axis: 8 groups of 8, the few groups per prompt a budget at
V3.2's scale buys (the study's seeds' datasets drawn per call weigh as they do in a study)."""


def prompts_axis(seeds: int = 4) -> dict[str, object]:
    """The many-prompts kernel (uniform allocation, groups of 8, group mean) at each of
    ``PROMPT_COUNTS`` prompts, ``PER_PROMPT`` rollouts each, ``seeds`` seeds, one thread, in
    ``PROMPT_ROUNDS`` interleaved rounds: median ns per rollout and the fitted exponent of a
    study's time against P."""
    numba.set_num_threads(1)
    keys = run_keys(1, np.arange(seeds))
    works: dict[str, Callable[[], object]] = {}
    for count in PROMPT_COUNTS:
        sim = Simulation("reinforce", Environment.drawn("beta", len(PROBS), (2.0, 2.0))
                         .with_prompts(count), LR, "group_mean", 8, "uniform")
        works[str(count)] = lambda sim=sim, count=count: simulate_dataset(
            sim, keys, (count * PER_PROMPT,))
    seconds = medians(interleaved_rounds(works, PROMPT_ROUNDS))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    rows = [{"prompts": count, "seconds": seconds[str(count)],
             "ns_per_rollout": seconds[str(count)] / (seeds * count * PER_PROMPT) * 1e9}
            for count in PROMPT_COUNTS]
    return {"seeds": seeds, "rows": rows,
            "exponent": fitted_exponent(list(PROMPT_COUNTS), [r["seconds"] for r in rows])}


LARGEST_STUDY = textwrap.dedent(f"""
    [study]
    name = "largest"
    root_seed = 1
    seeds = 4
    [grid]
    prompts = [{PROMPT_COUNTS[-1]}]
    allocation = ["uniform"]
    probs = [{{draw = "beta", arms = 3, a = 2, b = 2}}]
    lr = [{LR}]
    baseline = ["group_mean"]
    group_size = [8]
    budgets = [{PROMPT_COUNTS[-1] * PER_PROMPT // 4}, {PROMPT_COUNTS[-1] * PER_PROMPT}]
""")
"""The P axis's largest dataset as a study, for its peak memory."""


def largest_study_rss() -> float:
    """Peak RSS in MiB (``/usr/bin/time -v``'s maximum resident set size) of ``python -m
    bandit_study run`` on ``LARGEST_STUDY`` in a fresh process on every thread; NaN where the
    host has no GNU time."""
    if not Path("/usr/bin/time").exists():
        return math.nan
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "largest.toml"
        config.write_text(LARGEST_STUDY)
        done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "bandit_study", "run",
                               str(config), "--out", str(Path(folder) / "out"), "--cache",
                               str(Path(folder) / "cache"), "--quiet"],
                              capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    line = next(x for x in done.stderr.splitlines() if "Maximum resident set size" in x)
    return float(line.rsplit(":", 1)[1]) / 1024


_PROBE = textwrap.dedent("""
    import resource, sys, time
    began = time.perf_counter()
    import numpy as np
    from study.model.config import parse_config
    from study.orchestration.runner import run_study
    seeds, budgets = int(sys.argv[1]), sys.argv[2]
    config = parse_config(f'''
    [study]
    name = "probe"
    root_seed = 1
    seeds = {seeds}
    [grid]
    probs = [[0.5, 0.55, 0.6]]
    budgets = [{budgets}]
    ''')
    run_study(config, progress=False)
    print(time.perf_counter() - began, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
""")


def probe(seeds: int, budgets: list[int], cache: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of a fresh process that imports the package and runs a study."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", _PROBE, str(seeds), ", ".join(map(str, budgets))],
                          capture_output=True, text=True, env=env, cwd=REPO_ROOT, check=True)
    seconds, kib = done.stdout.split()
    return float(seconds), float(kib) / 1024


def start_up_and_memory() -> dict[str, object]:
    """Cold (compiling) and warm (cache loading) start-up, and peak memory of 10,000-seed runs."""
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        cold, _ = probe(32, [10], cache)
        warm, _ = probe(32, [10], cache)
        memory = []
        for budgets in ([10, 100, 1_000], [10, 1_000, 100_000],
                        [10 * (i + 1) for i in range(30)] + [1_000]):
            _, mib = probe(10_000, budgets, cache)
            memory.append({"seeds": 10_000, "largest budget": budgets[-1],
                           "checkpoints": len(budgets), "peak_rss_mib": mib})
    return {"cold_start_seconds": cold, "warm_start_seconds": warm, "memory": memory}


def markdown(result: dict[str, object]) -> str:
    """The benchmark as Markdown tables."""
    lines = [f"# Benchmark ({result['machine']})", "",
             f"Vector extensions: {', '.join(result['vector_extensions']) or 'none found'}.", "",
             f"Medians of {REPEATS} runs after a warm-up, one process; ratio = ns per episode / "
             "the package kernel's on 1 thread (> 1: slower than the kernel). The target kernel "
             "/ floor is the median of the rounds' ratios (kernel and floor timed one after the "
             "other in each), not the ratio of the two medians below.", "",
             "| implementation | workload | ns per episode | ratio to kernel |",
             "|---|---|---:|---:|"]
    for r in result["references"]:
        lines.append(f"| {r['name']} | {r['workload']} | {r['ns_per_episode']:.2f} | "
                     f"{r['ratio_to_kernel']:.3g} |")
    lines += ["", "| ratio | this host | target | met |", "|---|---:|---|---|"]
    for t in result["targets"]:
        lines.append(f"| {t['ratio']} | {t['value']:.3g} | {t['target']} | "
                     f"{'yes' if t['met'] else 'no'} |")
    lines += ["", f"Thread scaling: {result['thread_scaling']:.2f}x with "
              f"{numba.config.NUMBA_NUM_THREADS} threads.", "",
              "| scaling axis | values | seconds | fitted exponent |", "|---|---|---|---:|"]
    for name, axis in result["scaling"].items():
        lines.append(f"| {name} | {', '.join(map(str, axis['values']))} | "
                     f"{', '.join(f'{s:.3g}' for s in axis['seconds'])} | {axis['exponent']:.2f} |")
    arms = result["arms"]
    lines += ["", f"K axis ({arms['seeds']} seeds, a budget of {arms['arm_episodes']} arm-episodes "
              f"over seeds times K, one thread, {ARMS_ROUNDS} interleaved rounds, each K's "
              "kernel and floor one after the other; ns: the medians of the rounds, kernel / "
              "floor: the median of the rounds' ratios): fitted exponent "
              f"of time per episode against K from {ARMS[0]} to {ARMS[-1]}: "
              f"{arms['exponent']:.2f}.", "",
              "| K | budget | kernel, ns per arm-episode | floor, ns per arm-episode | "
              "kernel / floor |", "|---:|---:|---:|---:|---:|"]
    for r in arms["rows"]:
        lines.append(f"| {r['arms']} | {r['budget']} | {r['kernel_ns_per_arm_episode']:.2f} | "
                     f"{r['floor_ns_per_arm_episode']:.2f} | {r['kernel_over_floor']:.2f} |")
    prompts = result["prompts"]
    lines += ["", f"P axis ({prompts['seeds']} seeds, {PER_PROMPT} rollouts per prompt in groups "
              f"of 8, uniform allocation, prompts from beta(2, 2), one thread, {PROMPT_ROUNDS} "
              "interleaved rounds; the medians): fitted exponent of a study's time against P "
              f"from {PROMPT_COUNTS[0]} to {PROMPT_COUNTS[-1]:,}: {prompts['exponent']:.2f}. Peak "
              f"RSS of a study of {PROMPT_COUNTS[-1]:,} prompts (4 seeds, two checkpoints, "
              f"python -m bandit_study run on every thread under /usr/bin/time -v): "
              f"{prompts['largest_peak_rss_mib']:.0f} MiB.", "",
              "| prompts | seconds | ns per rollout |", "|---:|---:|---:|"]
    for r in prompts["rows"]:
        lines.append(f"| {r['prompts']:,} | {r['seconds']:.3g} | {r['ns_per_rollout']:.2f} |")
    start = result["start_up"]
    lines += ["", f"Start-up of a fresh process importing the package and running a tiny study: "
              f"{start['cold_start_seconds']:.1f} s with an empty numba cache (compiling), "
              f"{start['warm_start_seconds']:.1f} s with a warm one.", "",
              "| seeds | largest budget | checkpoints | peak RSS (MiB) |", "|---:|---:|---:|---:|"]
    for m in start["memory"]:
        lines.append(f"| {m['seeds']} | {m['largest budget']} | {m['checkpoints']} | "
                     f"{m['peak_rss_mib']:.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Run everything, write out/bench/, print the tables."""
    began = time.perf_counter()
    rows, over_floor = references()
    arms = arms_axis()
    prompts = {**prompts_axis(), "largest_peak_rss_mib": largest_study_rss()}
    result: dict[str, object] = {
        "machine": f"{cpu_model()}, {platform.machine()}, {os.cpu_count()} cores, "
                   f"numba {numba.__version__}",
        "vector_extensions": vector_extensions(),
        "references": rows,
        "targets": targets(rows, over_floor, arms, prompts),
        "thread_scaling": rows[0]["ns_per_episode"] / rows[1]["ns_per_episode"],
        "scaling": scaling(),
        "arms": arms,
        "prompts": prompts,
        "start_up": start_up_and_memory(),
        "vector_width": {"rounds": ab.ROUNDS, "medians": ab.compare_widths()},
    }
    base = os.environ.get("BENCH_BASE")
    if base:
        result["before_and_after"] = {"base": base, "rounds": ab.ROUNDS,
                                      "medians": ab.compare_commits(base)}
    result["bench_seconds"] = time.perf_counter() - began
    out = OUT_DIR / "bench"
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "bench.json", json.dumps(result, indent=2) + "\n")
    text = markdown(result) + "\n" + ab.markdown(
        "The vector width LLVM is tuned for, both ways", result["vector_width"]["medians"],
        ab.ROUNDS)
    if base:
        text += "\n" + ab.markdown(f"Each change since {base}: {base}, then every commit after it",
                                    result["before_and_after"]["medians"], ab.ROUNDS)
    write_text(out / "bench.md", text)
    print(text + f"\n({result['bench_seconds']:.0f} s; written to {out})")


if __name__ == "__main__":
    main()
