"""The model, executably: a slow pure-Python run that consumes the same random stream as the
kernel, through numpy's own ``Philox`` rather than ours. This file is the spec; README.md, "The
model", says the same in words. Kernel and reference must agree exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def unit(word: int) -> float:
    """numpy's ``next_double``: the top 53 bits of a 64-bit word, scaled to [0, 1)."""
    return (int(word) >> 11) * (1.0 / 9007199254740992.0)


def halves(word: int) -> tuple[float, float]:
    """The high and the low 32 bits of a word, each as a uniform in [0, 1): (action, reward)."""
    word = int(word)
    return (word >> 32) * 2.0**-32, (word & 0xFFFFFFFF) * 2.0**-32


def exp(x: float) -> float:
    """fdlibm's exp (as in ``study.fastexp``): Cody-Waite reduction, then the rational
    approximation of exp(r); flushed to 0 below -708.39."""
    if not x >= -708.39:
        return 0.0
    k = float(math.floor(x * 1.44269504088896338700e00 + 0.5))
    hi = x - k * 6.93147180369123816490e-01
    lo = k * 1.90821492927058770002e-10
    r = hi - lo
    t = r * r
    c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03 + t * (
        6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06
                                          + t * 4.13813679705723846039e-08))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    return math.ldexp(y, int(k))


def normals(key: np.ndarray, n: int) -> list[float]:
    """z_0 .. z_n-1 of the run's noise stream (numpy's Philox from counter (0, 0, 1, 0)), by
    Box-Muller on word pairs: u1 = 1 - unit(w_2m), u2 = unit(w_2m+1), R = sqrt(-2 ln u1),
    z_2m = R cos(2 pi u2), z_2m+1 = R sin(2 pi u2)."""
    words = np.random.Philox(key=key, counter=np.array([0, 0, 1, 0], dtype=np.uint64)).random_raw(
        n + n % 2)
    out = []
    for m in range(0, len(words), 2):
        radius = math.sqrt(-2.0 * math.log(1.0 - unit(words[m])))
        angle = 2.0 * math.pi * unit(words[m + 1])
        out += [radius * math.cos(angle), radius * math.sin(angle)]
    return out[:n]


def instance(key: np.ndarray, draw: str, params: tuple[float, ...], arms: int) -> list[float]:
    """A run's drawn arm values: numpy's sampler on Philox from counter (0, 0, 2, 0)."""
    generator = np.random.Generator(np.random.Philox(
        key=key, counter=np.array([0, 0, 2, 0], dtype=np.uint64)))
    sampler = {"uniform": generator.uniform, "beta": generator.beta,
               "normal": generator.normal}[draw]
    return [float(v) for v in sampler(*params, arms)]


def tie_break(scores: list[float], key: np.ndarray, budget: int) -> int:
    """argmax of ``scores``, exact ties broken by word 0 of Philox block (budget, 0, 0, 1)."""
    best = max(scores)
    tied = [k for k, s in enumerate(scores) if s == best]
    if len(tied) == 1:
        return tied[0]
    counter = np.array([budget - 1, 0, 0, 1], dtype=np.uint64)
    word = np.random.Philox(key=key, counter=counter).random_raw()
    return tied[int(unit(word) * len(tied))]


@dataclass
class Checkpoint:
    """The state of a run after ``budget`` episodes."""

    budget: int
    greedy: int
    p_best: float
    reward_sum: float
    pulls: list[int]
    scores: list[float]
    finite: bool


@dataclass
class Step:
    """What the per-step curves count of episode t: was the arm a best arm, and its reward."""

    optimal: bool
    reward: float


def run(key: np.ndarray, values: list[float], reward_model: str, algorithm: str, lr: float,
        baseline: str, budgets: list[int]) -> tuple[list[Checkpoint], list[Step]]:
    """One run of ``max(budgets)`` episodes with Philox key ``key`` on arms with ``values``
    (pass probabilities, or Gaussian means); one Checkpoint per budget and one Step per episode."""
    n_arms = len(values)
    top_p = max(values)
    words = np.random.Philox(key=key).random_raw(budgets[-1])
    noise = normals(key, budgets[-1]) if reward_model == "gaussian" else None
    logits = [0.0] * n_arms
    pulls = [0] * n_arms
    arm_rewards = [0.0] * n_arms
    total = 0.0
    record = []
    steps = []
    for t in range(budgets[-1]):
        u_action, u_reward = halves(words[t])
        if algorithm == "reinforce":
            top = max(logits)
            weights = [exp(x - top) for x in logits]
            norm = 0.0
            for w in weights:
                norm += w
            target = u_action * norm
            arm, cumulative = n_arms - 1, 0.0
            for k, w in enumerate(weights):
                cumulative += w
                if target < cumulative:
                    arm = k
                    break
        elif algorithm == "uniform":
            arm = t % n_arms
        else:
            raise ValueError(algorithm)
        if noise is None:
            reward = 1.0 if u_reward < values[arm] else 0.0
        else:
            reward = values[arm] + noise[t]
        steps.append(Step(values[arm] == top_p, reward))
        if algorithm == "reinforce":
            if baseline == "running_mean":
                base = total * (1.0 / t) if t > 0 else 0.0
            elif baseline == "running_mean_inclusive":
                base = (total + reward) * (1.0 / (t + 1))
            elif baseline == "per_arm":
                base = arm_rewards[arm] / pulls[arm] if pulls[arm] > 0 else 0.0
            else:
                base = 0.0
            step = lr * (reward - base)
            inverse = 1.0 / norm
            for k in range(n_arms):
                logits[k] += step * ((1.0 if k == arm else 0.0) - weights[k] * inverse)
        pulls[arm] += 1
        arm_rewards[arm] += reward
        total += reward
        if t + 1 in budgets:
            budget = t + 1
            if algorithm == "reinforce":
                scores = list(logits)
                finite = all(math.isfinite(x) for x in scores)
            else:
                scores = [arm_rewards[k] / pulls[k] if pulls[k] else -math.inf
                          for k in range(n_arms)]
                finite = True
            greedy = tie_break(scores, key, budget) if finite else -1
            p_best = math.nan
            if algorithm == "reinforce" and finite:
                top = max(scores)
                weights = [exp(x - top) for x in scores]
                norm = best_mass = 0.0
                for k, w in enumerate(weights):
                    norm += w
                    if values[k] == top_p:
                        best_mass += w
                p_best = best_mass / norm
            record.append(Checkpoint(budget, greedy, p_best, total, list(pulls), scores, finite))
    return record, steps


def priorities(key: np.ndarray, budget: int, phase: int, arms: int) -> list[float]:
    """Tie-break priority of each arm in a phase: word a mod 4 of block (B, phase, a div 4, 1)."""
    out = []
    for a in range(arms):
        counter = np.array([budget - 1, phase, a // 4, 1], dtype=np.uint64)
        out.append(unit(np.random.Philox(key=key, counter=counter).random_raw(4)[a % 4]))
    return out


def fixed_budget_run(key: np.ndarray, values: list[float], reward_model: str, algorithm: str,
                     budget: int) -> Checkpoint:
    """Successive rejects or sequential halving with budget ``budget`` (study.fixed_budget)."""
    arms = len(values)
    words = np.random.Philox(key=key).random_raw(budget + 1)
    noise = normals(key, budget) if reward_model == "gaussian" else None
    alive = list(range(arms))
    pulls, wins = [0] * arms, [0.0] * arms
    t = 0

    def pull(a: int) -> float:
        nonlocal t
        if noise is None:
            reward = 1.0 if halves(words[t])[1] < values[a] else 0.0
        else:
            reward = values[a] + noise[t]
        t += 1
        pulls[a] += 1
        wins[a] += reward
        return reward

    def drop_worst(means: dict[int, float], priority: list[float]) -> None:
        alive.remove(min(alive, key=lambda a: (means[a], priority[a])))

    if algorithm == "successive_rejects":
        log_bar = 0.5 + sum(1.0 / i for i in range(2, arms + 1))
        previous = 0
        for phase in range(1, arms):
            target = max(math.ceil((budget - arms) / (log_bar * (arms + 1 - phase))), 0)
            for _ in range(target - previous):
                for a in list(alive):
                    pull(a)
            previous = target
            means = {a: wins[a] / pulls[a] if pulls[a] else -math.inf for a in alive}
            drop_worst(means, priorities(key, budget, phase, arms))
    elif algorithm == "sequential_halving":
        rounds = math.ceil(math.log2(arms))
        for phase in range(1, rounds + 1):
            each = budget // (len(alive) * rounds)
            gained = dict.fromkeys(alive, 0.0)
            for _ in range(each):
                for a in list(alive):
                    gained[a] += pull(a)
            means = {a: gained[a] / each if each else -math.inf for a in alive}
            priority = priorities(key, budget, phase, arms)
            keep = (len(alive) + 1) // 2
            while len(alive) > keep:
                drop_worst(means, priority)
    else:
        raise ValueError(algorithm)
    scores = [wins[a] / pulls[a] if pulls[a] else -math.inf for a in range(arms)]
    return Checkpoint(budget, alive[0], math.nan, sum(wins), list(pulls), scores, True)
