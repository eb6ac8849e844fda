"""Pricing the budget: does the extra compute pay for itself?

A run trained for B rollouts at c per pull and then deployed for D pulls earns
D * p[greedy arm] - c * B, with p the true pass probability of the arm it deploys (a run whose state
is not finite deploys nothing: p = 0). Expected net value per (cell, c, B) has a t interval over
seeds. Between consecutive checkpoints B1 < B2 the extra rollouts pay for themselves when
c < D * (E p(B2) - E p(B1)) / (B2 - B1), the break-even cost per pull; its interval comes from the
per-seed differences p_i(B2) - p_i(B1) (paired: the same seed at both checkpoints).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import t as student_t


def deployed_probability(runs: pd.DataFrame) -> np.ndarray:
    """p[greedy arm] of every row (the arm's value: its mean for a Gaussian bandit), 0 where the
    greedy arm is -1, a non-finite state."""
    return np.nan_to_num(runs["greedy_value"].to_numpy(dtype=float), nan=0.0)


def _mean_ci(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    n = len(values)
    mean = float(values.mean())
    half = float(student_t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1) / np.sqrt(n))
    return mean, mean - half, mean + half


def net_value_table(runs: pd.DataFrame, deployment_pulls: float) -> pd.DataFrame:
    """Expected net value per (cell, cost, budget) with a 95% t interval."""
    frame = runs.assign(deployed=deployed_probability(runs))
    rows = []
    for (cell, cost, budget), group in frame.groupby(["cell", "cost", "budget"], sort=True):
        mean, low, high = _mean_ci(group["deployed"].to_numpy())
        # What a run pays for is the rollouts it spent: G * floor(B / G) with groups of G.
        spend = cost * group["rollouts"].iat[0]
        rows.append({"cell": cell, "algorithm": group["algorithm"].iat[0],
                     "lr": group["lr"].iat[0], "baseline": group["baseline"].iat[0],
                     "cost": cost, "budget": budget, "rollouts": group["rollouts"].iat[0],
                     "seeds": len(group),
                     "deployed_p": mean,
                     "net_value": deployment_pulls * mean - spend,
                     "ci_low": deployment_pulls * low - spend,
                     "ci_high": deployment_pulls * high - spend})
    return pd.DataFrame(rows)


def best_budgets(runs: pd.DataFrame, net: pd.DataFrame,
                 deployment_pulls: float) -> pd.DataFrame:
    """For each (cell, cost), the checkpoint with the largest expected net value, and whether it
    beats the runner-up checkpoint: a paired t interval (same seeds at both budgets) of the
    difference in net value that lies above 0 means these seeds resolve the optimum."""
    frame = runs.assign(deployed=deployed_probability(runs))
    rows = []
    for (cell, cost), group in net.groupby(["cell", "cost"], sort=True):
        ranked = group.sort_values("net_value", ascending=False)
        best, second = ranked.iloc[0], ranked.iloc[min(1, len(ranked) - 1)]
        seeds = frame[frame["cell"] == cell].pivot(index="seed", columns="budget",
                                                   values="deployed")
        gain = (deployment_pulls * (seeds[best["budget"]] - seeds[second["budget"]])
                - cost * (best["rollouts"] - second["rollouts"]))
        _, low, high = _mean_ci(gain.to_numpy()) if len(gain) > 1 else (0.0, 0.0, 0.0)
        rows.append({"cell": cell, "algorithm": best["algorithm"], "cost": cost,
                     "best_budget": int(best["budget"]), "net_value": best["net_value"],
                     "ci_low": best["ci_low"], "ci_high": best["ci_high"],
                     "runner_up_budget": int(second["budget"]),
                     "gain_over_runner_up_low": low, "gain_over_runner_up_high": high,
                     "resolved": bool(low > 0)})
    return pd.DataFrame(rows)


def break_even_costs(runs: pd.DataFrame, deployment_pulls: float) -> pd.DataFrame:
    """Break-even cost per pull for each step between consecutive checkpoints, per cell."""
    frame = runs.assign(deployed=deployed_probability(runs))
    rows = []
    first_cost = frame["cost"].min()
    for cell, group in frame[frame["cost"] == first_cost].groupby("cell", sort=True):
        wide = group.pivot(index="seed", columns="budget", values="deployed")
        spent = group.groupby("budget")["rollouts"].first()
        budgets = list(wide.columns)
        for b1, b2 in itertools.pairwise(budgets):
            if spent[b2] == spent[b1]:
                continue  # both checkpoints fall after the same update: no step to price
            scale = deployment_pulls / (spent[b2] - spent[b1])
            mean, low, high = _mean_ci((wide[b2] - wide[b1]).to_numpy())
            rows.append({"cell": cell, "algorithm": group["algorithm"].iat[0],
                         "lr": group["lr"].iat[0], "baseline": group["baseline"].iat[0],
                         "from_budget": b1, "to_budget": b2, "seeds": len(wide),
                         "break_even_cost": scale * mean, "ci_low": scale * low,
                         "ci_high": scale * high})
    return pd.DataFrame(rows)
