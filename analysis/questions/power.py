"""The seeds each headline test needs for the effects of interest stated before the run, at the
exact power of the exact test the study runs, for a study that declares primary budgets; the power
curves against seeds at the observed rates are ``power_curves``, from the same plan."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.accuracy import chance_levels
from analysis.families import ALPHA, family_sizes
from analysis.outcomes import Outcomes
from analysis.paired import compare_cells, mcnemar_power
from analysis.plan import binomial_power, plan_binomial, plan_mcnemar
from analysis.power import (
    EFFECTS_OF_INTEREST,
    TARGET_POWER,
    chance_power,
    chance_power_mc,
    exact_mcnemar_power,
    paired_power_mc,
)
from analysis.questions import Inputs
from analysis.roles import Against, typed
from analysis.study_tables import partner, reference_partner

TABLE = "power"
TEST = ""
AFTER = ("accuracy", "vs_{learner}", "per_arm_vs_running_mean")
POWER_SEEDS = np.unique(np.geomspace(10, 100_000, 17).round().astype(int))
"""The numbers of seeds the power curves are drawn at."""
CLAIM_SEEDS = 40
CLAIM_COLUMN = f"exact_power_{CLAIM_SEEDS}_seeds"
"""The power table's column of the exact power with ``CLAIM_SEEDS`` seeds."""


def both(inputs: Inputs) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """``power`` and ``power_curves`` (``power_tables`` at the config's primary budgets), made
    once per study; None where the study declares no primary budgets: seeds are planned for the
    questions a study declares primary (and the headline's paired ones beside them), and a plan at
    0.01 with a family of hundreds takes seconds a row."""
    def compute() -> tuple[pd.DataFrame, pd.DataFrame] | None:
        if not inputs.analysis.primary_budgets:
            return None
        return power_tables(inputs.outcomes, inputs.cells, int(inputs.settings["headline_cell"]),
                            inputs.tables, inputs.analysis.primary_budgets,
                            str(inputs.settings["reference"]))

    return inputs.shared("power", compute)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per headline comparison, primary budget and effect of interest."""
    found = both(inputs)
    return pd.DataFrame() if found is None else found[0]


def power_tables(outcomes: Outcomes, cells: pd.DataFrame, headline: int,
                 tables: dict[str, pd.DataFrame], budgets: tuple[int, ...],
                 reference: str) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """For the headline comparisons (against chance, the ``reference`` learner and the per-arm
    baseline; ``against`` names which, ``analysis.roles.Against``) at ``budgets`` (the primary
    ones): the seeds each test needs for the
    effects of interest stated before the run (``EFFECTS_OF_INTEREST``), at the exact power of
    the exact test the study runs (the smallest n from which it stays at 80%, ``analysis.plan``),
    beside the normal approximation's n, and the exact power of 40 seeds; a paired comparison's
    discordance (the share of seeds on which the cells disagree) is taken from the data. Each test
    is planned at the level it meets in its Holm family's first step, 0.05 / m for a family of m
    hypotheses (a safe level for the step-down). Then power against the number of seeds at the
    observed rates at 0.05, analytic and Monte Carlo (curves: an illustration of this run, not a
    plan). None when no comparison is tested in this study's tables."""
    budgets = [b for b in budgets if b in set(outcomes.budgets)]
    accuracy = tables["accuracy"]
    head = accuracy[accuracy["cell"] == headline].set_index("budget")
    chance = chance_levels(outcomes)[headline]
    comparisons: list[tuple[Against, int | None, str]] = [(Against.CHANCE, None, "accuracy")]
    if reference:
        comparisons.append((Against.REFERENCE, reference_partner(cells, headline, reference),
                            f"vs_{reference}"))
    comparisons.append((Against.PER_ARM, partner(cells, headline, baseline="per_arm"),
                        "per_arm_vs_running_mean"))
    summary, curves = [], []
    for against, other, source in comparisons:
        if source not in tables or (source != "accuracy" and other is None):
            continue
        paired = compare_cells(outcomes, headline, other) if other is not None else None
        sizes = family_sizes(tables[source], adjusted=(
            "p_vs_chance_holm" if source == "accuracy" else "p_value_holm"))
        for budget in budgets:
            family = (head.loc[budget, "family"] if source == "accuracy"
                      else str(tables[source]["family"].iat[0]))
            if source == "accuracy" and family not in sizes:
                # The headline's test against chance is not this table's to plan: a twin
                # study runs it, or (a per-arm headline) it is the two-sided test of the per-arm
                # cells' own family, whose power the one-sided planner would misstate.
                continue
            alpha = ALPHA / sizes[family]
            if paired is None:
                p = float(head.loc[budget, "accuracy"])
                discordance = math.nan
                analytic = lambda n, p=p: chance_power(p, chance, [n])[0]  # noqa: E731
                monte_carlo = chance_power_mc(p, chance, POWER_SEEDS)
            else:
                row = paired[paired["budget"] == budget].iloc[0]
                a, b = row["only_a"] / row["seeds"], row["only_b"] / row["seeds"]
                discordance = a + b
                analytic = lambda n, a=a, b=b: mcnemar_power(a, b, np.array([n]))[0]  # noqa: E731
                monte_carlo = paired_power_mc(a, b, POWER_SEEDS)
            for effect in EFFECTS_OF_INTEREST:
                summary.append({"against": against, "budget": budget,
                                "family": family,
                                "alpha_per_test": alpha, "effect_of_interest": effect,
                                "discordance": discordance,
                                **_planned(effect, chance, discordance, alpha)})
            curve = np.array([analytic(n) for n in POWER_SEEDS])
            curves += [{"against": against, "budget": budget,
                        "seeds": int(n),
                        "analytic": float(pa), "monte_carlo": float(pm)}
                       for n, pa, pm in zip(POWER_SEEDS, curve, monte_carlo, strict=True)]
    if not summary:
        return None
    summary, curves = pd.DataFrame(summary), pd.DataFrame(curves)
    for table in (summary, curves):
        table["against"] = typed(table["against"], Against)
    return summary, curves


def _planned(effect: float, chance: float, discordance: float,
             alpha: float) -> dict[str, float]:
    """Seeds needed (exact and normal) and the exact power of 40 seeds for a stated effect at
    level ``alpha``: against chance when ``discordance`` is NaN, else paired with that discordance
    (an effect larger than the discordance cannot happen: NaN)."""
    if math.isnan(discordance):
        plan = plan_binomial(chance + effect, chance, TARGET_POWER, alpha)
        at_claim = float(binomial_power(np.array([CLAIM_SEEDS]), chance + effect, chance,
                                        alpha)[0])
        return {"seeds_exact": plan.n_exact, "seeds_normal": plan.n_normal,
                "exact_power_at_seeds_normal": plan.power_at_n_normal,
                CLAIM_COLUMN: at_claim}
    if effect >= discordance:
        return {"seeds_exact": math.nan, "seeds_normal": math.nan,
                "exact_power_at_seeds_normal": math.nan, CLAIM_COLUMN: math.nan}
    only_a, only_b = (discordance + effect) / 2, (discordance - effect) / 2
    plan = plan_mcnemar(only_a, only_b, TARGET_POWER, alpha)
    return {"seeds_exact": plan.n_exact, "seeds_normal": plan.n_normal,
            "exact_power_at_seeds_normal": plan.power_at_n_normal,
            CLAIM_COLUMN: exact_mcnemar_power(CLAIM_SEEDS, only_a, only_b, alpha)}
