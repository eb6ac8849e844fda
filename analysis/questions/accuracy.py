"""Best-arm accuracy per cell and budget with its Wilson interval, and the one-sided exact
binomial test against the never-training sampler's chance level: the headline cell's rows at the
config's primary budgets are the primary family, the rest the table's own."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from analysis.accuracy import accuracy_table, chance_levels
from analysis.families import PRIMARY, declare, family_name
from analysis.outcomes import Outcomes
from analysis.questions import Inputs
from analysis.study_tables import per_arm_cells, trained_cells

TABLE = "accuracy"
TEST = "one-sided exact binomial test of accuracy > chance"


def table(inputs: Inputs) -> pd.DataFrame:
    """``accuracy_with_chance_test`` of the study: a twin study's cells (``same_simulation_as``)
    are tested in its twin, the per-arm cells (when the study compares the baselines) two-sided in
    ``per_arm_vs_chance``."""
    cells, study = inputs.cells, inputs.study
    twin = inputs.analysis.same_simulation_as
    if twin:
        elsewhere = (cells["cell"].tolist(), f"tested in {twin}")
    else:
        # The per-arm cells at every cost: the other costs' are the same simulations.
        every = trained_cells(cells)
        every = every[every["baseline"] == "per_arm"]["cell"].tolist()
        elsewhere = (every if per_arm_cells(inputs) else [],
                     family_name(study, "chance_two_sided"))
    return accuracy_with_chance_test(inputs.outcomes, study, int(inputs.settings["headline_cell"]),
                                     inputs.analysis.primary_budgets, elsewhere)


def accuracy_with_chance_test(outcomes: Outcomes, study: str, headline: int,
                              primary_budgets: tuple[int, ...] = (),
                              tested_elsewhere: tuple[list[int], str] = ([], ""),
                              ) -> pd.DataFrame:
    """Accuracy per (cell, budget) with Wilson intervals, and the one-sided exact binomial test
    against the never-training sampler's chance level. The headline cell's rows at
    ``primary_budgets`` form the primary family (declared in the config before the run); the
    other rows the table's own family (``analysis.families``), except the cells of
    ``tested_elsewhere`` = (cells, family), whose test against chance is in that family (a
    hypothesis is tested once): their rows carry no p-value here. ``primary`` marks the rows of
    the primary family."""
    table = accuracy_table(outcomes)
    table["chance"] = table["cell"].map(chance_levels(outcomes))
    table["p_vs_chance"] = [binomtest(int(k), int(n), c, alternative="greater").pvalue
                            for k, n, c in zip(table["correct"], table["seeds"], table["chance"],
                                               strict=True)]
    elsewhere = table["cell"].isin(tested_elsewhere[0])
    table.loc[elsewhere, "p_vs_chance"] = np.nan
    primary = (table["cell"] == headline) & table["budget"].isin(primary_budgets)
    for family, members in ((family_name(study, PRIMARY), primary),
                            (family_name(study, "accuracy"), ~primary & ~elsewhere)):
        if members.any():
            table = declare(table, family, members, "p_vs_chance", "p_vs_chance_holm")
    if elsewhere.any():
        table.loc[elsewhere, "family"] = tested_elsewhere[1]
    table["primary"] = primary
    return table
