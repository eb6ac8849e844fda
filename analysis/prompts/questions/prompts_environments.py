"""Each environment of a population (``study.model.population``) at the study's largest budget: per
cell and environment, its mean pass probability (``pass_probability``), the prompts it holds, its
prompts' arms, its difficulty band, whether its verifier is exact (``exact_verifier``), its
answers' length factor (``length_factor``), and the means over seeds of its share of prompts right
(``accuracy``) and of its prompts' pass rate, each with its 95% interval
(``analysis.prompts.means.interval_columns_of``; none where every seed has the same value)."""

from __future__ import annotations

import pandas as pd

from analysis.groups import SHARE
from analysis.prompts.means import interval_columns_of
from analysis.prompts.outcomes import accuracy_support, cell_columns
from analysis.questions import Inputs
from study.model.schema import ENVIRONMENT_INDEX

TABLE = "prompts_environments"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell and environment of a population."""
    runs = inputs.environment_runs
    if runs is None:
        return pd.DataFrame()
    runs = runs[(runs[ENVIRONMENT_INDEX] >= 0) & (runs["budget"] == runs["budget"].max())]
    described = inputs.cells.set_index("cell")[cell_columns(inputs.cells)[1:]]
    rows = []
    for (cell, index), frame in runs.groupby(["cell", ENVIRONMENT_INDEX], sort=True):
        drawn = inputs.environments[frame["environment"].iat[0]].population
        held = int(frame["band_prompts"].iat[0])
        rows.append({"cell": cell, **described.loc[cell].to_dict(),
                     "budget": int(frame["budget"].iat[0]), ENVIRONMENT_INDEX: int(index),
                     "pass_probability": float(drawn.pass_probability[index]), "prompts_held": held,
                     "arms": int(drawn.arms[index]), "band": int(drawn.band[index]),
                     "exact_verifier": bool(drawn.exact[index]),
                     "length_factor": float(drawn.length_factor[index]),
                     **interval_columns_of("accuracy", (frame["correct_prompts"] / held).to_numpy(),
                                           accuracy_support(held)),
                     **interval_columns_of("pass_rate", (frame["pass_rate_sum"] / held).to_numpy(),
                                           SHARE)})
    return pd.DataFrame(rows)
