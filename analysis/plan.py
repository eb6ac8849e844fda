"""``python -m analysis plan TEST ...``: the seeds a test of the study needs for an effect stated
before the run, at the exact power of the test the study actually runs.

Exact power is a sawtooth in n (the critical count moves in whole steps), so the first n that
reaches the target is not enough: the planner reports the smallest n from which the power stays at
or above it, checked seed by seed up to twice that n (``n_exact``), beside the first n that reaches
it and the n of the normal approximation (``n_normal``, statsmodels' ``NormalIndPower`` on
Cohen's h for the binomial test, Connor's formula for McNemar's), and the exact power at that n.

* ``binomial``: accuracy against the chance level, the one-sided exact binomial test
  (``scipy.stats.binomtest(..., alternative="greater")``), for a stated accuracy;
* ``mcnemar``: two cells on the same seeds, the two-sided exact McNemar test (the discordant
  seeds' split against 1/2), for stated rates of seeds that only cell A, and only cell B, gets
  right (their difference is the accuracy difference, their sum the discordance).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.stats import binom
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from analysis.paired import mcnemar_power
from analysis.power import ALPHA, exact_mcnemar_power, exact_mcnemar_power_curve, seeds_for_power

MOST = 10**6
"""Largest n the binomial planner searches (McNemar's searches to 2.5 times its normal n)."""


@dataclass(frozen=True)
class Plan:
    """Seeds needed for one test: the smallest n from which the exact power stays at or above the
    target (``n_exact``), the first n that reaches it (``n_first``), the normal approximation's
    n (``n_normal``) and the exact power there (``power_at_n_normal``)."""

    n_exact: float
    n_first: float
    n_normal: float
    power_at_n_normal: float


def binomial_power(n: np.ndarray, accuracy: float, chance: float,
                   alpha: float = ALPHA) -> np.ndarray:
    """Exact power of the one-sided exact binomial test of accuracy > ``chance`` with n seeds:
    it rejects when the count correct k has P(Bin(n, chance) >= k) <= alpha, that is k >= c + 1
    with c = the (1 - alpha) quantile's step (``binom.isf``, then checked)."""
    n = np.asarray(n)
    critical = binom.isf(alpha, n, chance)  # P(X > critical) <= alpha, the smallest such
    critical = np.where(binom.sf(critical - 1, n, chance) <= alpha, critical - 1, critical)
    return binom.sf(critical, n, accuracy)


def _stays(power: np.ndarray, target: float) -> tuple[float, float]:
    """(smallest index from which ``power`` stays >= target, first index reaching it), as n
    (index + 1); inf where it never does within the array."""
    reached = np.flatnonzero(power >= target)
    if reached.size == 0:
        return math.inf, math.inf
    below = np.flatnonzero(power < target)
    last_below = below[-1] if below.size else -1
    if last_below == len(power) - 1:
        return math.inf, float(reached[0] + 1)
    return float(last_below + 2), float(reached[0] + 1)


def plan_binomial(accuracy: float, chance: float, target: float = 0.8,
                  alpha: float = ALPHA) -> Plan:
    """Seeds for the test that a cell's accuracy exceeds ``chance`` when it is ``accuracy``."""
    effect = proportion_effectsize(accuracy, chance)
    normal = NormalIndPower().solve_power(effect, power=target, alpha=alpha, ratio=0,
                                          alternative="larger")
    n_normal = float(math.ceil(normal))
    most = int(min(MOST, max(4 * n_normal, 200)))
    power = binomial_power(np.arange(1, most + 1), accuracy, chance, alpha)
    n_exact, n_first = _stays(power, target)
    if n_exact > most / 2:  # not checked far enough beyond it
        n_exact = math.inf
    return Plan(n_exact, n_first, n_normal,
                float(binomial_power(np.array([int(n_normal)]), accuracy, chance, alpha)[0]))


def plan_mcnemar(only_a: float, only_b: float, target: float = 0.8,
                 alpha: float = ALPHA) -> Plan:
    """Seeds for the paired test of two cells that differ by ``only_a - only_b`` in accuracy
    with discordance ``only_a + only_b``."""
    n_normal = seeds_for_power(
        lambda n: mcnemar_power(only_a, only_b, np.array([n]), alpha)[0], target)
    if not math.isfinite(n_normal):
        return Plan(math.inf, math.inf, math.inf, math.nan)
    most = int(max(2.5 * n_normal, 200))  # n_exact up to 1.25 n_normal, checked to twice it
    power = exact_mcnemar_power_curve(most, only_a, only_b, alpha)
    n_exact, n_first = _stays(power, target)
    if n_exact > most / 2:
        n_exact = math.inf
    return Plan(n_exact, n_first, n_normal,
                exact_mcnemar_power(int(n_normal), only_a, only_b, alpha))


def _probability(text: str) -> float:
    """A probability written as a decimal or a fraction ("1/3")."""
    value = float(Fraction(text))
    if not 0 <= value <= 1:
        raise ValueError(text)
    return value


def main(argv: list[str]) -> int:
    """Print one plan; exit 2 with one line naming the field for a bad value."""
    parser = argparse.ArgumentParser(prog="python -m analysis plan", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--power", default="0.8", help="target power (default 0.8)")
    parser.add_argument("--alpha", default=str(ALPHA), help="level of the test (default 0.05)")
    tests = parser.add_subparsers(dest="test", required=True)
    one = tests.add_parser("binomial", help="accuracy against chance (one-sided exact binomial)")
    one.add_argument("--accuracy", required=True, help="the accuracy to detect")
    one.add_argument("--chance", required=True, help="the chance level, e.g. 1/3")
    two = tests.add_parser("mcnemar", help="two cells on the same seeds (exact McNemar)")
    two.add_argument("--only-a", required=True, help="share of seeds only cell A gets right")
    two.add_argument("--only-b", required=True, help="share of seeds only cell B gets right")
    args = parser.parse_args(argv)
    values = {}
    fields = ["power", "alpha"] + (["accuracy", "chance"] if args.test == "binomial"
                                   else ["only_a", "only_b"])
    for field in fields:
        text = getattr(args, field)
        try:
            values[field] = _probability(text)
        except (ValueError, ZeroDivisionError):
            print(f"error: --{field.replace('_', '-')}: {text!r} is not a probability",
                  file=sys.stderr)
            return 2
    if args.test == "binomial":
        if values["accuracy"] <= values["chance"]:
            print(f"error: --accuracy: {args.accuracy!r} is not above --chance {args.chance}",
                  file=sys.stderr)
            return 2
        plan = plan_binomial(values["accuracy"], values["chance"], values["power"],
                             values["alpha"])
        test = (f"one-sided exact binomial test of accuracy > {values['chance']:.4g} when it is "
                f"{values['accuracy']:.4g}")
    else:
        if values["only_a"] + values["only_b"] > 1 or values["only_a"] == values["only_b"]:
            print(f"error: --only-b: {args.only_b!r} with --only-a {args.only_a} is not a "
                  "difference (equal, or discordance above 1)", file=sys.stderr)
            return 2
        plan = plan_mcnemar(values["only_a"], values["only_b"], values["power"], values["alpha"])
        test = (f"two-sided exact McNemar test, P(only A) = {values['only_a']:.4g}, "
                f"P(only B) = {values['only_b']:.4g}")
    print(f"{test}, alpha {values['alpha']:g}, power {values['power']:g}:")
    print(f"  n_exact  {plan.n_exact:g}  (smallest n from which the exact power stays >= "
          f"{values['power']:g}, checked to twice n)")
    print(f"  n_first  {plan.n_first:g}  (first n whose exact power reaches it)")
    print(f"  n_normal {plan.n_normal:g}  (normal approximation; exact power there "
          f"{plan.power_at_n_normal:.3f})")
    return 0
