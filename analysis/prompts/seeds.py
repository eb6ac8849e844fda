"""How many seeds does the paired test with uniform allocation need, for an effect stated before
any run (``seeds_needed``), per comparison of a study (``plan_table``)?"""

from __future__ import annotations

import pandas as pd

from analysis.families import ALPHA
from analysis.plan import plan_paired_t
from analysis.power import TARGET_POWER
from analysis.prompts.outcomes import seed_frames, uniform_pairs

EFFECT = 0.02
"""The difference in mean accuracy the seed planner sizes the paired test for, stated before
any run (not read off the data)."""


def seeds_needed(sd_of_differences: float, effect: float = EFFECT, alpha: float = ALPHA,
                 power: float = TARGET_POWER) -> int:
    """The fewest seeds at which the two-sided paired t-test at ``alpha`` (the test
    ``versus_uniform`` runs once ``SETTLED_SEEDS`` seeds' differences differ from the most common
    one) detects a mean difference of ``effect`` with probability ``power``, for per-seed
    differences of standard deviation ``sd_of_differences`` (from a pilot: an input, not a
    result): the planner's exact n (``analysis.plan.plan_paired_t``, the noncentral t's power).
    The effect is the one stated before the run, never an observed one (Hoenig and Heisey
    2001)."""
    return int(plan_paired_t(effect, sd_of_differences, power, alpha).n_exact)


SEEDS_FOR_EFFECT = "seeds_for_effect"
"""The column of ``plan_table`` with the seeds the stated effect needs."""


def plan_table(runs: pd.DataFrame, versus: pd.DataFrame, effect: float = EFFECT,
               power: float = TARGET_POWER, metric: str = "accuracy") -> pd.DataFrame:
    """The seeds each paired comparison of ``versus`` (``versus_uniform``) needs to detect the
    stated ``effect`` with ``power`` at the level of the first Holm step of its family (alpha /
    family size), by ``seeds_needed``; the standard deviation of the per-seed differences is
    this run's (a nuisance parameter, read from the data; the effect is not). One row per
    (rule, environment, group size, estimator): the largest over its budgets, since the family
    is tested at every budget. ``seeds`` is what the run had."""
    if versus.empty:
        return pd.DataFrame()
    per_seed = seed_frames(runs, metric)
    level = ALPHA / len(versus)
    rows = []
    for rule, reference in uniform_pairs(runs):
        differences = per_seed[rule["cell"]] - per_seed[reference["cell"]]
        spread = float(differences.std(ddof=1).max())
        rows.append({**rule.to_dict(), "metric": metric,
                     "seeds": len(differences),
                     "largest_sd_of_differences": spread, "effect": effect, "level": level,
                     "power": power,
                     SEEDS_FOR_EFFECT: seeds_needed(spread, effect, level, power)
                     if spread > 0 else 2})
    return pd.DataFrame(rows)
