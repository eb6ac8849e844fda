"""Statistical properties the model fixes exactly, checked against theory.

Tolerances: a simulated accuracy over n independent seeds has standard error sqrt(p (1 - p) / n);
we allow 4.5 of them, so a correct kernel fails one such check with probability below 1e-5
(normal tail 6.8e-6). Seeds are fixed, so each test is deterministic; the bound says how unlikely
a false alarm would have been for an arbitrary root seed. Goodness of fit uses scipy's chi-square
test at the same 1e-5 level.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom, chisquare

from study.core.streams import run_keys
from study.model.environment import Environment
from study.model.grid import Simulation
from study.orchestration.simulate import simulate

Z = 4.5
ALPHA = 1e-5


def assert_binomial(successes: int, n: int, p: float) -> None:
    """``successes`` out of ``n`` is within Z standard errors of the binomial mean n p."""
    tolerance = Z * math.sqrt(p * (1 - p) / n)
    assert abs(successes / n - p) <= tolerance, (successes / n, p, tolerance)


@pytest.mark.parametrize("probs", [(0.5, 0.55, 0.6), (0.9, 0.1), (0.2, 0.4, 0.6, 0.8, 0.3)])
def test_lr_zero_is_right_at_chance_and_pulls_uniformly(probs: tuple[float, ...]) -> None:
    seeds, budgets = 20_000, (1, 10, 100)
    out = simulate(Simulation("reinforce", Environment.fixed(probs), 0.0, "running_mean"),
                   run_keys(3, np.arange(seeds)), budgets, scores=True)
    arms = len(probs)
    best = int(np.argmax(probs))
    for c in range(len(budgets)):
        greedy = out.greedy[:, c]
        assert_binomial(int((greedy == best).sum()), seeds, 1 / arms)
        assert chisquare(np.bincount(greedy, minlength=arms)).pvalue > ALPHA
        # Every episode picks an arm uniformly: pooled pulls are multinomial(seeds * B, 1/K).
        pulls = out.pulls[:, c].sum(axis=0)
        assert pulls.sum() == seeds * budgets[c]
        assert chisquare(pulls).pvalue > ALPHA
    assert np.all(out.scores == 0.0)


def exact_uniform_accuracy(probs: tuple[float, ...], budget: int) -> float:
    """P(uniform allocation recommends a best arm), by summing over every outcome of the arms'
    binomial reward counts; arm k gets budget // K pulls plus one if k < budget % K (round robin),
    ties in the empirical means are split evenly, unpulled arms are never recommended."""
    arms = len(probs)
    pulls = [budget // arms + (1 if k < budget % arms else 0) for k in range(arms)]
    pulled = [k for k in range(arms) if pulls[k] > 0]
    pmfs = [binom.pmf(np.arange(pulls[k] + 1), pulls[k], probs[k]) for k in pulled]
    top = max(probs)
    total = 0.0
    for outcome in itertools.product(*(range(pulls[k] + 1) for k in pulled)):
        weight = math.prod(pmf[s] for pmf, s in zip(pmfs, outcome, strict=True))
        means = [s / pulls[k] for s, k in zip(outcome, pulled, strict=True)]
        leaders = [k for k, m in zip(pulled, means, strict=True) if m == max(means)]
        total += weight * sum(probs[k] == top for k in leaders) / len(leaders)
    return total


@pytest.mark.parametrize("probs", [(0.3, 0.5, 0.6), (0.45, 0.55)])
def test_uniform_allocation_matches_exact_binomial_probability(probs: tuple[float, ...]) -> None:
    seeds, budgets = 20_000, (2, 5, 20, 61)
    out = simulate(Simulation("uniform", Environment.fixed(probs), 0.0, "none"),
                   run_keys(11, np.arange(seeds)), budgets)
    best = int(np.argmax(probs))
    for c, budget in enumerate(budgets):
        exact = exact_uniform_accuracy(probs, budget)
        correct = int((out.greedy[:, c] == best).sum())
        if exact in (0.0, 1.0):
            assert correct == exact * seeds
        else:
            assert_binomial(correct, seeds, exact)


def test_exact_uniform_accuracy_small_case_by_hand() -> None:
    # Two arms, one pull each: right when the better arm passes and the other fails, and half
    # the time when both pass or both fail.
    p, q = 0.3, 0.7
    by_hand = q * (1 - p) + 0.5 * (p * q + (1 - p) * (1 - q))
    assert exact_uniform_accuracy((p, q), 2) == pytest.approx(by_hand, abs=1e-15)


def _outcomes(alive: list[int], probs: tuple[float, ...], pulls: int):
    """Every joint outcome of ``pulls`` fresh pulls of each alive arm, as (wins per arm,
    probability)."""
    pmfs = [binom.pmf(np.arange(pulls + 1), pulls, probs[a]) for a in alive]
    for wins in itertools.product(range(pulls + 1), repeat=len(alive)):
        yield dict(zip(alive, wins, strict=True)), math.prod(
            pmf[w] for pmf, w in zip(pmfs, wins, strict=True))


def _kept_subsets(means: dict[int, float], keep: int):
    """The subsets of ``keep`` arms with the highest means, each with its probability when ties at
    the boundary are broken uniformly at random."""
    ranked = sorted(means.values(), reverse=True)
    cut = ranked[keep - 1]
    above = [a for a, m in means.items() if m > cut]
    tied = [a for a, m in means.items() if m == cut]
    chosen = list(itertools.combinations(tied, keep - len(above)))
    for subset in chosen:
        yield sorted(above + list(subset)), 1 / len(chosen)


def exact_successive_rejects(probs: tuple[float, ...], budget: int) -> float:
    """P(successive rejects recommends a best arm), summing over every outcome of every phase
    (binomial rewards per arm and phase, uniform tie-breaking among the worst arms)."""
    arms = len(probs)
    log_bar = 0.5 + sum(1 / i for i in range(2, arms + 1))
    targets = [0] + [max(math.ceil((budget - arms) / (log_bar * (arms + 1 - k))), 0)
                     for k in range(1, arms)]

    def phase(k: int, alive: list[int], wins: dict[int, int], weight: float) -> float:
        if k == arms:
            return weight * (probs[alive[0]] == max(probs))
        extra = targets[k] - targets[k - 1]
        total = 0.0
        for gained, p in _outcomes(alive, probs, extra):
            now = {a: wins[a] + gained[a] for a in alive}
            means = {a: now[a] / targets[k] if targets[k] else -math.inf for a in alive}
            low = min(means.values())
            worst = [a for a in alive if means[a] == low]
            for a in worst:
                total += phase(k + 1, [b for b in alive if b != a], now,
                               weight * p / len(worst))
        return total

    return phase(1, list(range(arms)), dict.fromkeys(range(arms), 0), 1.0)


def exact_sequential_halving(probs: tuple[float, ...], budget: int) -> float:
    """P(sequential halving recommends a best arm), summing over every outcome of every round
    (fresh binomial rewards per round, uniform tie-breaking at the cut)."""
    rounds = math.ceil(math.log2(len(probs)))

    def step(r: int, alive: list[int], weight: float) -> float:
        if r == rounds:
            return weight * (probs[alive[0]] == max(probs))
        each = budget // (len(alive) * rounds)
        total = 0.0
        for gained, p in _outcomes(alive, probs, each):
            means = {a: gained[a] / each if each else -math.inf for a in alive}
            for kept, q in _kept_subsets(means, (len(alive) + 1) // 2):
                total += step(r + 1, kept, weight * p * q)
        return total

    return step(0, list(range(len(probs))), 1.0)


@pytest.mark.slow
@pytest.mark.parametrize(("algorithm", "exact", "probs", "budgets"), [
    ("successive_rejects", exact_successive_rejects, (0.3, 0.5, 0.6), (3, 10, 24, 40)),
    ("successive_rejects", exact_successive_rejects, (0.2, 0.6, 0.4, 0.5), (12, 30)),
    ("sequential_halving", exact_sequential_halving, (0.3, 0.5, 0.6), (6, 12, 24, 48)),
    ("sequential_halving", exact_sequential_halving, (0.2, 0.6, 0.4, 0.5), (8, 16, 32)),
])
def test_fixed_budget_algorithms_match_exact_binomial_probability(
        algorithm: str, exact, probs: tuple[float, ...], budgets: tuple[int, ...]) -> None:
    seeds = 20_000
    out = simulate(Simulation(algorithm, Environment.fixed(probs), 0.0, "none"),
                   run_keys(13, np.arange(seeds)), budgets)
    best = int(np.argmax(probs))
    for c, budget in enumerate(budgets):
        assert out.pulls[:, c].sum(axis=1).max() <= budget
        assert_binomial(int((out.greedy[:, c] == best).sum()), seeds, exact(probs, budget))


def test_exact_sequential_halving_two_arms_by_hand() -> None:
    # Sequential halving with K = 2: one round of B // 2 pulls each; with one pull each the better
    # arm wins outright when it passes and the other fails, and half the time on a tie.
    p, q = 0.3, 0.7
    by_hand = q * (1 - p) + 0.5 * (p * q + (1 - p) * (1 - q))
    assert exact_sequential_halving((p, q), 2) == pytest.approx(by_hand, abs=1e-15)
    # Successive rejects with K = 2 has one phase of ceil((B - 2) / 2) pulls per arm: at B = 4
    # it is uniform allocation with one pull each, i.e. uniform at budget 2.
    assert exact_successive_rejects((p, q), 4) == pytest.approx(
        exact_uniform_accuracy((p, q), 2), abs=1e-15)
