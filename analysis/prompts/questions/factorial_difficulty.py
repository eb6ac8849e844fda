"""The design's named rows compared per environment difficulty, in a study whose cells are a
factorial's rows and whose prompts come from a population of environments
(``study.model.population``): per metric, compared budget, pair of ``analysis.prompts.factorial``'s
``CONTRASTS`` and difficulty bin (``prompts_difficulty``'s tenths of environment mean pass
probability), the mean per-seed difference of the two rows over the bin's prompts, paired by seed,
with its interval (``analysis.pass_rate.interval_columns``: a t interval, or the bound where few
seeds differ; none where every seed's difference is the same). The intervals of a metric at a
budget are one Bonferroni family: each at 1 - 0.05 / ``intervals`` (the differences there that
vary), so that they hold together at 95% and a bin may be read beside the others. No test: the
pairs' tests are ``factorial_pairs``', over the whole dataset."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.pass_rate import DIFFERENCE, family_intervals
from analysis.prompts.factorial import CONTRASTS
from analysis.prompts.outcomes import difference_support
from analysis.prompts.questions.factorial_effects import budgets
from analysis.prompts.questions.prompts_difficulty import BIN_EDGES, per_seed
from analysis.questions import Inputs
from study.model.schema import DESIGN_ROW

TABLE = "factorial_difficulty"
TEST = ""
SHARES = ("accuracy", "stuck")
"""The metrics that are a count of a bin's prompts over its prompts (their differences lie on a
lattice of 1 / prompts); the served pass rate is a mean of pass rates."""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per metric, compared budget, named pair and difficulty bin; no rows without a
    design whose factors declare roles, or without a population."""
    if inputs.design is None or inputs.environment_runs is None:
        return pd.DataFrame()
    named = inputs.design.named_rows()
    row_cell = dict(inputs.runs[[DESIGN_ROW, "cell"]].drop_duplicates().itertuples(index=False))
    seeds = per_seed(inputs)
    metrics = [m for m in ("served_pass_rate", "accuracy", "stuck") if m in seeds]
    by_key = {key: frame.sort_values("seed")
              for key, frame in seeds.groupby(["cell", "budget", "difficulty_bin"])}
    rows, found = [], []
    for budget in budgets(inputs):
        for a, b in CONTRASTS:
            if a not in named or b not in named or named[a] == named[b]:
                continue
            for where in sorted(seeds["difficulty_bin"].unique()):
                first = by_key.get((row_cell[named[a]], budget, where))
                second = by_key.get((row_cell[named[b]], budget, where))
                if first is None or second is None:
                    continue
                if not np.array_equal(first["seed"], second["seed"]):
                    raise ValueError("the design's rows must hold the same seeds")
                prompts = int(first["bin_prompts"].iat[0])
                for metric in metrics:
                    rows.append({"metric": metric, "budget": int(budget), "a": a, "b": b,
                                 "difficulty_bin": int(where),
                                 "pass_probability_low": BIN_EDGES[where],
                                 "pass_probability_high": BIN_EDGES[where + 1],
                                 "bin_environments": int(first["bin_environments"].iat[0]),
                                 "bin_prompts": prompts, "seeds": len(first),
                                 "mean_a": float(first[metric].mean()),
                                 "mean_b": float(second[metric].mean())})
                    found.append(first[metric].to_numpy() - second[metric].to_numpy())
    # A family per metric and budget (two rows whose runs agree in a bin differ by a constant
    # there, with no interval).
    intervals = family_intervals(
        ["difference"] * len(rows), found, [(row["metric"], row["budget"]) for row in rows],
        [difference_support(row["bin_prompts"]) if row["metric"] in SHARES else DIFFERENCE
         for row in rows])
    for row, (columns, size, level) in zip(rows, intervals, strict=True):
        row |= {**columns, "intervals": size, "confidence": level}
    return pd.DataFrame(rows)
