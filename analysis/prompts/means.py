"""Means over seeds per cell with their 95% intervals: accuracy, pass rate and regret per
budget (``accuracy_table``), and where the rollouts go, by difficulty band (``band_spending``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.cost import Support
from analysis.groups import SHARE
from analysis.pass_rate import interval_columns
from analysis.prompts.outcomes import accuracy_support, cell_columns, seed_totals


def interval_columns_of(name: str, values: np.ndarray, support: Support) -> dict[str, object]:
    """``name``, ``name_low``, ``name_high``, ``name_interval`` (``t``, ``bound`` or
    ``constant``) and ``name_seeds``: the mean of per-seed ``values`` (NaN ones left out: seeds
    where the quantity is undefined) with its 95% interval (``analysis.pass_rate.
    interval_columns``: none where every seed has the same value), clipped to the support's
    range."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        return {name: math.nan, f"{name}_low": math.nan, f"{name}_high": math.nan,
                f"{name}_interval": "", f"{name}_seeds": 0}
    found = interval_columns(name, values, support)
    return found | {f"{name}_low": max(found[f"{name}_low"], support.values[0]),
                    f"{name}_high": min(found[f"{name}_high"], support.values[-1]),
                    f"{name}_seeds": int(values.size)}


def accuracy_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per cell and budget, over seeds: the mean accuracy, the mean pass rate of the policies
    (the mean over prompts of sum pi[k] v[k]) and the mean regret (the mean over prompts of the
    best value less the pass rate), each with its 95% interval (``<name>``, ``<name>_low``,
    ``<name>_high``, ``<name>_interval``, ``<name>_seeds``), the mean rollouts spent (at most the
    budget: groups run whole) and the mean share of groups without signal; where the study has
    them, the mean served pass rate with its interval, and the mean tokens spent and expected
    answer length."""
    totals = seed_totals(runs, ["rollouts", "groups", "zero_signal_groups"])
    with np.errstate(invalid="ignore", divide="ignore"):
        totals = totals.assign(zero_signal_share=totals["zero_signal_groups"] / totals["groups"])
    rates = [name for name in ("pass_rate", "regret", "served_pass_rate") if name in totals]
    spent = [name for name in ("tokens", "expected_length") if name in totals]
    columns = cell_columns(runs)
    rows = []
    for key, group in totals.groupby([*columns, "budget"], observed=True, sort=True):
        row = dict(zip([*columns, "budget"], key, strict=True))
        row |= interval_columns_of("accuracy", group["accuracy"].to_numpy(),
                                 accuracy_support(int(row["prompts"])))
        for name in rates:
            row |= interval_columns_of(name, group[name].to_numpy(), SHARE)
        row |= {"rollouts": float(group["rollouts"].mean()),
                "zero_signal_share": float(group["zero_signal_share"].mean()),
                **{name: float(group[name].mean()) for name in spent}}
        rows.append(row)
    return pd.DataFrame(rows)


def band_spending(runs: pd.DataFrame) -> pd.DataFrame:
    """Per cell, budget and difficulty band, three means over seeds, each with its 95% interval
    (``mean_interval``: a t interval once ``SETTLED_SEEDS`` seeds differ from the most common
    value, else the bound; the ``*_interval`` column says which) and the seeds it is over:

    * ``rollout_share``: the band's share of the seed's rollouts spent (seeds that spent none yet
      left out);
    * ``zero_signal_share``: the band's groups without signal per group run in it (seeds that ran
      no group in the band left out);
    * ``accuracy``: the band's share of prompts right (the support k / band_prompts).

    Columns: ``CELL_COLUMNS``, ``budget``, ``band``, ``band_prompts``, then ``<name>``,
    ``<name>_low``, ``<name>_high``, ``<name>_interval`` and ``<name>_seeds`` for each of the
    three.
    """
    runs = runs.sort_values(["cell", "budget", "band", "seed"])
    spent = runs.groupby(["cell", "seed", "budget"])["rollouts"].transform("sum").to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = {"rollout_share": runs["rollouts"].to_numpy() / spent,
                  "zero_signal_share": (runs["zero_signal_groups"].to_numpy()
                                        / runs["groups"].to_numpy()),
                  "accuracy": (runs["correct_prompts"].to_numpy()
                               / runs["band_prompts"].to_numpy())}
    columns = cell_columns(runs)
    frame = runs[[*columns, "budget", "band", "band_prompts"]].assign(**shares)
    rows = []
    for key, group in frame.groupby([*columns, "budget", "band"], observed=True,
                                    sort=False):
        size = group["band_prompts"].unique()
        if size.size != 1:
            raise ValueError(f"{key}: a band's size differs between seeds")
        row = dict(zip([*columns, "budget", "band"], key, strict=True))
        row["band_prompts"] = int(size[0])
        for name, support in (("rollout_share", SHARE), ("zero_signal_share", SHARE),
                              ("accuracy", accuracy_support(int(size[0])))):
            row |= interval_columns_of(name, group[name].to_numpy(), support)
        rows.append(row)
    return pd.DataFrame(rows)
