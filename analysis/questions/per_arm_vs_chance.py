"""The per-arm cells' accuracy against chance, two-sided, and their equivalence to it within the
margin (two one-sided exact binomial tests), for a study that compares the baselines."""

from __future__ import annotations

import pandas as pd
from scipy.stats import binomtest

from analysis.accuracy import accuracy_table, chance_levels
from analysis.families import declare, family_name
from analysis.outcomes import Outcomes
from analysis.questions import Inputs
from analysis.roles import Finding, finding, typed
from analysis.study_tables import per_arm_cells

TABLE = "per_arm_vs_chance"
TEST = {"chance_two_sided": "two-sided exact binomial test of accuracy = chance",
        "chance_equivalence": "two one-sided exact binomial tests of accuracy within chance +- "
                              "margin"}


def table(inputs: Inputs) -> pd.DataFrame:
    """``chance_equivalence`` of the per-arm cells at the config's equivalence margin."""
    cells = per_arm_cells(inputs)
    if not cells:
        return pd.DataFrame()
    return chance_equivalence(inputs.outcomes, cells, inputs.study,
                              inputs.analysis.equivalence_margin)


def _tost(correct: int, seeds: int, chance: float, margin: float) -> float:
    """The p-value of the two one-sided exact binomial tests of accuracy in (chance - margin,
    chance + margin): the larger of theirs. A bound past 0 or 1 is one no accuracy can cross, so
    its one-sided hypothesis is rejected by any data (p-value 0)."""
    low, high = chance - margin, chance + margin
    return max(binomtest(correct, seeds, low, alternative="greater").pvalue if low >= 0 else 0.0,
               binomtest(correct, seeds, high, alternative="less").pvalue if high <= 1 else 0.0)


def chance_equivalence(outcomes: Outcomes, cells: list[int], study: str,
                       margin: float) -> pd.DataFrame:
    """Is a cell's accuracy above chance, below it, or within +-``margin`` of it? Per (cell,
    budget): the two-sided exact binomial test against chance (Holm over the table), and two
    one-sided exact binomial tests (TOST) of accuracy > chance - margin and < chance + margin,
    whose larger p-value is the equivalence test's (Holm over the table, a family of its own).
    ``finding`` (``analysis.roles.Finding``: ``higher`` is above chance) and ``within_margin``
    say what a row shows."""
    chance = chance_levels(outcomes)
    frame = accuracy_table(outcomes.only(cells))
    frame["chance"] = frame["cell"].map(chance)
    frame["p_value"] = [binomtest(int(k), int(n), c).pvalue for k, n, c in
                        zip(frame["correct"], frame["seeds"], frame["chance"], strict=True)]
    frame["p_equivalence"] = [_tost(int(k), int(n), c, margin) for k, n, c in
                              zip(frame["correct"], frame["seeds"], frame["chance"], strict=True)]
    frame["margin"] = margin
    # The smallest TOST p-value these seeds allow (accuracy exactly at chance): if it is above
    # the family's first Holm threshold, no cell can be shown equivalent at this margin.
    frame["p_equivalence_at_chance"] = [_tost(round(n * c), int(n), c, margin)
                                        for n, c in zip(frame["seeds"], frame["chance"],
                                                        strict=True)]
    frame = declare(frame, family_name(study, "chance_two_sided"))
    frame = declare(frame, family_name(study, "chance_equivalence"), p_column="p_equivalence",
                    adjusted="p_equivalence_holm", family_column="equivalence_family")
    frame["within_margin"] = frame["p_equivalence_holm"] < 0.05
    shown = frame["p_value_holm"] < 0.05
    frame["finding"] = typed([finding(s and a > c, s and not a > c, w) for s, a, c, w in zip(
        shown, frame["accuracy"], frame["chance"], frame["within_margin"], strict=True)], Finding)
    return frame
