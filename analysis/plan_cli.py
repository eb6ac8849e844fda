"""``python -m analysis plan TEST ...``: the command line of the seed planner (``analysis.plan``,
whose docstring is its help): its parser, the checks of its arguments (a bad value exits with
status 2 and one line naming the field) and the plans it prints."""

from __future__ import annotations

import argparse
import math
import sys
from fractions import Fraction
from pathlib import Path

from analysis import plan as planning
from analysis.accuracy import CELL_KEYS, cells_frame
from analysis.budget_to_target import TARGET
from analysis.outcomes import Outcomes
from analysis.plan import (
    BETTING_DRAWS,
    RATIO_DRAWS,
    check_pair,
    plan_betting,
    plan_binomial,
    plan_mcnemar,
    plan_paired_t,
    plan_ratio,
    ratio_pilot,
    select_cell,
)
from analysis.power import ALPHA
from study.model.config import ArgumentParser, ConfigError


def parse_selector(text: str) -> dict[str, str]:
    """A cell selector ``key=value,key=value`` over the runs table's cell columns
    (``CELL_KEYS``); a piece without ``=`` continues the previous value, so an environment is
    written as it is stored: ``environment=0.5,0.51,0.52``. Raises ValueError naming the fault."""
    selector: dict[str, str] = {}
    key = None
    for piece in text.split(","):
        name, equals, value = piece.partition("=")
        if not equals:
            if key is None:
                raise ValueError("is not key=value[,key=value...]")
            selector[key] += "," + piece
            continue
        key = name.strip()
        if key not in CELL_KEYS:
            raise ValueError(f"has the key {key!r}, not one of {', '.join(CELL_KEYS)}")
        if key in selector:
            raise ValueError(f"gives {key!r} twice")
        selector[key] = value.strip()
    return selector


def _probability(text: str) -> float:
    """A probability written as a decimal or a fraction ("1/3")."""
    value = float(Fraction(text))
    if not 0 <= value <= 1:
        raise ValueError(text)
    return value


def _error(field: str, text: str, reason: str) -> int:
    """Print the one line naming a bad value's field and the value; the exit status 2."""
    print(f"error: --{field.replace('_', '-')}: {text!r} {reason}", file=sys.stderr)
    return 2


def _number(text: str) -> float:
    """A finite number written as a decimal or a fraction ("5/4")."""
    return float(Fraction(text))


class _NotANumberError(ValueError):
    """A field whose text is not a number."""

    def __init__(self, field: str, text: str) -> None:
        super().__init__(field)
        self.field, self.text = field, text

    def report(self) -> int:
        """Print the line naming the field and its text; the exit status 2."""
        return _error(self.field, self.text, "is not a number")


def _numbers(args: argparse.Namespace, fields: tuple[str, ...]) -> dict[str, float]:
    """The ``fields`` of ``args`` as numbers (a field not given is left out); ``_NotANumberError``
    for the first that is not one."""
    numbers = {}
    for field in fields:
        text = getattr(args, field)
        if text is None:
            continue
        try:
            numbers[field] = _number(text)
        except (ValueError, ZeroDivisionError, OverflowError):
            raise _NotANumberError(field, text) from None
    return numbers


def _plan_ratio_command(args: argparse.Namespace, power: float, alpha: float) -> int:
    """Validate the ``ratio`` arguments, read the pilot, print the plan (or exit 2)."""
    if alpha != ALPHA:
        return _error("alpha", args.alpha, f"is not {ALPHA:g}, the level of the study's budget "
                      "ratio test (its 95% and 90% bootstrap intervals)")
    try:
        numbers = _numbers(args, ("ratio", "equivalence", "draws"))
    except _NotANumberError as error:
        return error.report()
    ratio, margin, draws = numbers["ratio"], numbers.get("equivalence"), numbers["draws"]
    if ratio <= 0:
        return _error("ratio", args.ratio, "is not a ratio > 0")
    if margin is not None and margin <= 1:
        return _error("equivalence", args.equivalence, "is not a ratio margin > 1")
    if margin is None and ratio == 1:
        return _error("ratio", args.ratio, "is no difference to detect (to show that the ratio "
                      "is near 1, plan with --equivalence MARGIN)")
    if margin is not None and not 1 / margin < ratio < margin:
        return _error("ratio", args.ratio, f"is not inside the equivalence margin "
                      f"[1/{margin:g}, {margin:g}]")
    if draws != int(draws) or draws < 1:
        return _error("draws", args.draws, "is not a whole number >= 1")
    try:
        outcomes = Outcomes.load(Path(args.runs))
    except (ValueError, OSError) as error:
        return _error("runs", args.runs, str(error))
    cells = cells_frame(outcomes)
    pilot = {}
    for field in ("a", "b"):
        text = getattr(args, field)
        try:
            cell = select_cell(cells, parse_selector(text))
            pilot[field] = (cell, *ratio_pilot(outcomes, cell))
        except ValueError as error:
            return _error(field, text, str(error))
    (a, correct_a, budgets_a), (b, correct_b, budgets_b) = pilot["a"], pilot["b"]
    try:
        check_pair(a, b, correct_a, correct_b, "--a")
    except ValueError as error:
        return _error("b", args.b, str(error))
    try:
        plan = plan_ratio(correct_a, correct_b, budgets_a, budgets_b, ratio, margin, power,
                          int(draws))
    except ValueError as error:
        return _error("runs", args.runs, f"is too small a pilot: {error}")
    if margin is None:
        test = "differs from 1 (the 95% interval excludes 1)"
    else:
        test = (f"lies within [1/{margin:g}, {margin:g}] (the 90% interval inside: two "
                "one-sided tests)")
    exact = (f"power there {plan.power[plan.seeds.index(int(plan.n_exact))]:.3f}, s.e. "
             f"{plan.standard_error(int(plan.n_exact)):.3f}" if math.isfinite(plan.n_exact)
             else f"it does not by n = {plan.seeds[-1]}")
    normal = ("not estimated, beyond the grid" if math.isnan(plan.power_at_n_normal) else
              f"{plan.power_at_n_normal:.3f}, s.e. {plan.standard_error(int(plan.n_normal)):.3f}")
    print(f"paired percentile-bootstrap test that A's budget to {TARGET:g} over B's {test}, "
          f"when it is {ratio:g}; alpha {alpha:g}, power {power:g}:")
    print(f"  pilot    {args.runs}, A cell {a}, B cell {b}, {plan.pilot_seeds} seeds: ratio "
          f"{plan.observed:.4g}, so A's checkpoints are scaled by {ratio / plan.observed:.4g}")
    print(f"  n_exact  {plan.n_exact:g}  (smallest n on the grid from which the Monte Carlo "
          f"power stays >= {power:g}; {exact})")
    print(f"  n_normal {plan.n_normal:g}  (normal approximation from the pilot's s.e. of the "
          f"log ratio, {plan.log_se:.3g}; Monte Carlo power there {normal})")
    print("  power    " + ", ".join(
        f"{p:.3f} at {n} ({d} draws)" for n, p, d in zip(plan.seeds, plan.power, plan.draws,
                                                          strict=True) if d)
          + "  (Monte Carlo, draws of n pilot seeds; smaller n are not needed)")
    print("  n counts the seeds the test runs on: the study tests a best lr's ratio on the odd "
          "seeds only (the even ones choose it), so its config needs twice n seeds there")
    if ratio > plan.observed:
        print(f"  A's checkpoints were stretched past the pilot's largest budget (by "
              f"{ratio / plan.observed:.4g}): resamples that would not reach {TARGET:g} within "
              "the study's grid may reach it here, so the power is optimistic")
    return 0


def _plan_betting_command(args: argparse.Namespace, power: float, alpha: float) -> int:
    """Validate the ``betting`` arguments, print the plan (or exit 2)."""
    try:
        numbers = _numbers(args, ("difference", "sd", "low", "high", "draws"))
    except _NotANumberError as error:
        return error.report()
    difference, sd, low, high, draws = (numbers[f] for f in (
        "difference", "sd", "low", "high", "draws"))
    if not 0 < sd < math.inf:
        return _error("sd", args.sd, "is not a positive number")
    if not low < high:
        return _error("high", args.high, f"is not above --low {args.low}")
    if not low < difference < high or difference == 0:
        return _error("difference", args.difference,
                      f"is not a nonzero difference inside [{args.low}, {args.high}]")
    if draws != int(draws) or draws < 1:
        return _error("draws", args.draws, "is not a whole number >= 1")
    plan = plan_betting(difference, sd, low, high, power, alpha, int(draws))
    print(f"two-sided betting test of a mean difference {difference:.4g} on [{low:.4g}, "
          f"{high:.4g}], differences' sd {sd:.4g}, alpha {alpha:g}, power {power:g}:")
    print(f"  n_exact  {plan.n_exact:g}  (smallest n of the grid from which the Monte Carlo "
          f"power, {int(draws)} draws per n, stays >= {power:g})")
    print(f"  n_first  {plan.n_first:g}  (first n of the grid whose power reaches it)")
    print(f"  n_t      {plan.n_normal:g}  (the paired t-test's n; the betting test's power there "
          f"{plan.power_at_n_normal:.3f})")
    return 0


def main(argv: list[str]) -> int:
    """Print one plan; exit 2 with one line naming the field for a bad value."""
    # The study's parser: a usage error (an unknown test, a missing option) is one line too.
    parser = ArgumentParser(prog="python -m analysis plan", description=planning.__doc__,
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
    paired = tests.add_parser("paired-t", help="two cells' means on the same seeds (paired "
                              "t-test), e.g. of the pass rate")
    bet = tests.add_parser("betting", help="two cells' means on the same seeds by betting on a "
                           "known range (the length study's test), e.g. of the pass rate")
    for means in (paired, bet):
        means.add_argument("--difference", required=True, help="the mean difference to detect")
        means.add_argument("--sd", required=True, help="the standard deviation of the per-seed "
                           "differences (a pilot's)")
    bet.add_argument("--low", required=True, help="the least a per-seed difference can be")
    bet.add_argument("--high", required=True, help="the most a per-seed difference can be")
    bet.add_argument("--draws", default=str(BETTING_DRAWS),
                     help=f"Monte Carlo draws per n (default {BETTING_DRAWS})")
    three = tests.add_parser("ratio", help="two cells' budgets to 0.9 on the same seeds "
                             "(paired bootstrap), planned from a pilot study")
    three.add_argument("--runs", required=True, help="the pilot study's directory (runs.parquet)")
    three.add_argument("--a", required=True,
                       help="cell A, e.g. algorithm=reinforce,baseline=running_mean,lr=0.01")
    three.add_argument("--b", required=True, help="cell B, e.g. algorithm=uniform")
    three.add_argument("--ratio", required=True,
                       help="A's budget to 0.9 over B's, stated before the run")
    three.add_argument("--equivalence", metavar="MARGIN",
                       help="plan the test that the ratio lies within [1/MARGIN, MARGIN]")
    three.add_argument("--draws", default=str(RATIO_DRAWS),
                       help=f"Monte Carlo draws per n (default {RATIO_DRAWS})")
    try:
        args = parser.parse_args(argv)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    values = {}
    fields = ["power", "alpha", *{"binomial": ["accuracy", "chance"],
                                  "mcnemar": ["only_a", "only_b"]}.get(args.test, [])]
    for field in fields:
        text = getattr(args, field)
        try:
            values[field] = _probability(text)
        except (ValueError, ZeroDivisionError):
            return _error(field, text, "is not a probability")
    for field in ("power", "alpha"):
        if not 0 < values[field] < 1:
            return _error(field, getattr(args, field), "is not strictly between 0 and 1")
    if args.test == "ratio":
        return _plan_ratio_command(args, values["power"], values["alpha"])
    if args.test == "betting":
        return _plan_betting_command(args, values["power"], values["alpha"])
    if args.test == "paired-t":
        try:
            values |= _numbers(args, ("difference", "sd"))
        except _NotANumberError as error:
            return error.report()
        for field in ("difference", "sd"):
            if not 0 < values[field] < math.inf:
                return _error(field, getattr(args, field), "is not a positive number")
        plan = plan_paired_t(values["difference"], values["sd"], values["power"],
                             values["alpha"])
        test = (f"two-sided paired t-test of a mean difference {values['difference']:.4g}, "
                f"differences' sd {values['sd']:.4g}")
    elif args.test == "binomial":
        if values["accuracy"] <= values["chance"]:
            return _error("accuracy", args.accuracy, f"is not above --chance {args.chance}")
        if values["accuracy"] == 1:
            # Every seed right: Cohen's h is finite but the normal approximation's n is not.
            return _error("accuracy", args.accuracy, "is not below 1 (the normal approximation "
                          "has no n to give at an accuracy of 1)")
        plan = plan_binomial(values["accuracy"], values["chance"], values["power"],
                             values["alpha"])
        test = (f"one-sided exact binomial test of accuracy > {values['chance']:.4g} when it is "
                f"{values['accuracy']:.4g}")
    else:
        if values["only_a"] + values["only_b"] > 1 or values["only_a"] == values["only_b"]:
            return _error("only_b", args.only_b, f"with --only-a {args.only_a} is not a "
                          "difference (equal, or discordance above 1)")
        plan = plan_mcnemar(values["only_a"], values["only_b"], values["power"], values["alpha"])
        test = (f"two-sided exact McNemar test, P(only A) = {values['only_a']:.4g}, "
                f"P(only B) = {values['only_b']:.4g}")
    print(f"{test}, alpha {values['alpha']:g}, power {values['power']:g}:")
    checked = ("the noncentral t's power, increasing in n" if args.test == "paired-t"
               else "checked to twice n")
    print(f"  n_exact  {plan.n_exact:g}  (smallest n from which the exact power stays >= "
          f"{values['power']:g}, {checked})")
    print(f"  n_first  {plan.n_first:g}  (first n whose exact power reaches it)")
    print(f"  n_normal {plan.n_normal:g}  (normal approximation; exact power there "
          f"{plan.power_at_n_normal:.3f})")
    return 0
