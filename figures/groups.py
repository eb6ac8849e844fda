"""The group study's figures: accuracy against rollouts per group size, rollouts to 0.9 per group
size and estimator, and the share of updates with no signal."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from analysis.roles import LrRole
from figures.style import BAND_ALPHA, OKABE_ITO, REFERENCE, ordered_colours, outside_legend, save

ROLLOUTS_LABEL = "rollouts spent (log scale)"
ESTIMATORS = {"running_mean": "running mean", "none": "no baseline",
              "group_mean": "group mean (Dr. GRPO)", "group_zscore": "group z-score (GRPO)",
              "leave_one_out": "leave-one-out (RLOO)"}
"""Display names of the advantage estimators, in the order the figures draw them."""


def _title(environment: str) -> str:
    return f"probs {environment.replace(',', ', ')}"


def accuracy_by_group(accuracy: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """One column per bandit; top row at each arm's best lr (chosen on even seeds), bottom row at
    the default lr; a line per G for Dr. GRPO's group mean (single-rollout REINFORCE with the
    running-mean baseline for G = 1), odd seeds, 95% Wilson bands."""
    environments = list(dict.fromkeys(accuracy["environment"]))
    # One row per lr role, in the table's order: the best lr, or the one lr of the default rows.
    roles = accuracy.drop_duplicates("lr_role")
    selections = [(role, "best lr (chosen on even seeds)" if role == LrRole.BEST else f"lr {lr:g}")
                  for role, lr in zip(roles["lr_role"], roles["lr"], strict=True)]
    figure, axes = plt.subplots(len(selections), len(environments), sharex=True, sharey=True,
                                figsize=(3.4 * len(environments), 2.7 * len(selections) + 0.9),
                                squeeze=False, layout="constrained")
    groups = sorted(accuracy["group_size"].unique())
    # Single rollouts, the reference, in black and dashed, drawn last so no group hides it; the
    # group sizes along the ordered palette, which then spans G = 2 to the largest only.
    sizes = [g for g in groups if g != 1]
    styles = {g: {"color": c, "linestyle": "-", "marker": "o", "zorder": 2}
              for g, c in zip(sizes, ordered_colours(len(sizes)), strict=True)}
    styles[1] = {"color": "black", "linestyle": "--", "marker": "s", "zorder": 3}
    groups = [*sizes, 1] if 1 in groups else sizes
    for row, (role, selection) in enumerate(selections):
        for column, environment in enumerate(environments):
            ax = axes[row][column]
            rows = accuracy[(accuracy["environment"] == environment)
                            & (accuracy["lr_role"] == role)]
            for group in groups:
                baseline = "running_mean" if group == 1 else "group_mean"
                line = rows[(rows["group_size"] == group) & (rows["baseline"] == baseline)
                            & (rows["rollouts"] > 0)].sort_values("rollouts")
                if line.empty:
                    continue
                label = "G = 1 (running mean)" if group == 1 else f"G = {group}"
                ax.plot(line["rollouts"], line["accuracy"], markersize=3, label=label,
                        **styles[group])
                ax.fill_between(line["rollouts"], line["ci_low"], line["ci_high"],
                                color=styles[group]["color"], alpha=BAND_ALPHA, linewidth=0)
            ax.axhline(1 / 3, label="chance (1/3)", **REFERENCE)
            ax.set_xscale("log")
            ax.set_title(f"{_title(environment)}\n{selection}")
            if row == len(selections) - 1:
                ax.set_xlabel(ROLLOUTS_LABEL)
            if column == 0:
                ax.set_ylabel("best-arm accuracy\n(fraction of odd seeds)")
    outside_legend(figure, axes[0][0], title="group size (Dr. GRPO for G > 1)", below=True)
    return save(figure, out_dir, name)


def budget_by_group(budgets: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """Rollouts to 0.9 accuracy against G, a line per estimator at its best lr, with 95%
    bootstrap intervals over the odd seeds; arms that never reach 0.9 are left out."""
    environments = list(dict.fromkeys(budgets["environment"]))
    figure, axes = plt.subplots(1, len(environments),
                                figsize=(3.7 * len(environments) + 2.4, 3.2),
                                squeeze=False, layout="constrained")
    for ax, environment in zip(axes[0], environments, strict=True):
        rows = budgets[(budgets["environment"] == environment) & budgets["reached"]]
        for offset, (colour, (baseline, label)) in enumerate(zip(OKABE_ITO, ESTIMATORS.items(),
                                                                 strict=False)):
            line = rows[rows["baseline"] == baseline].sort_values("group_size")
            if line.empty:
                continue
            # Estimators side by side at each G, so their intervals do not hide each other.
            x = line["group_size"] * 1.07 ** (offset - 2)
            high = np.where(np.isfinite(line["ci_high"]), line["ci_high"],
                            line["rollouts_to_target"])
            ax.errorbar(x, line["rollouts_to_target"],
                        yerr=[line["rollouts_to_target"] - line["ci_low"],
                              high - line["rollouts_to_target"]],
                        fmt="o-", markersize=3, capsize=2, color=colour, label=label)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(rows["group_size"].unique()))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("group size G (log scale)")
        ax.set_title(_title(environment))
    axes[0][0].set_ylabel("rollouts to 0.9 accuracy\n(log scale)")
    outside_legend(figure, axes[0][0], title="advantage estimator\n(each at its best lr)")
    return save(figure, out_dir, name)


def zero_signal_by_group(zero: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """The share of updates whose advantages were all 0, against G, per group estimator at its
    best lr (the table's 95% intervals over the odd seeds), with its exact value
    for a policy that stays uniform and for one that pulls only the best arm."""
    environments = list(dict.fromkeys(zero["environment"]))
    figure, axes = plt.subplots(1, len(environments),
                                figsize=(3.7 * len(environments) + 2.2, 3.2),
                                sharey=True, squeeze=False, layout="constrained")
    for ax, environment in zip(axes[0], environments, strict=True):
        rows = zero[(zero["environment"] == environment) & (zero["group_size"] > 1)]
        for colour, (baseline, label) in zip(OKABE_ITO, ESTIMATORS.items(), strict=False):
            line = rows[rows["baseline"] == baseline].sort_values("group_size")
            if line.empty or baseline not in ("group_mean", "group_zscore", "leave_one_out",
                                              "none"):
                continue
            ax.errorbar(line["group_size"], line["zero_signal_share"],
                        yerr=[line["zero_signal_share"] - line["ci_low"],
                              line["ci_high"] - line["zero_signal_share"]],
                        fmt="o-", markersize=3, capsize=2, color=colour, label=label)
        theory = rows[rows["baseline"] == "group_mean"].sort_values("group_size")
        ax.plot(theory["group_size"], theory["uniform_policy"], label="exact, uniform policy",
                **REFERENCE)
        ax.plot(theory["group_size"], theory["best_arm_policy"], ":", color="0.35",
                label="exact, best arm only")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(rows["group_size"].unique()))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlabel("group size G (log scale)")
        ax.set_title(_title(environment))
    axes[0][0].set_ylabel("share of updates (and rollouts)\nwith no signal")
    outside_legend(figure, axes[0][0])
    return save(figure, out_dir, name)

