"""Per-step learning curves drawn: a figure for any study that records curves, and Sutton and
Barto's Figure 2.5 in the book's layout for curves of the book's grid (the textbook section's
figures, ``figures.sections.textbook``, which ``python -m figures.curves`` also draws)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from figures.style import BAND_ALPHA, OKABE_ITO, REFERENCE, outside_legend, save
from study.model import registry

STEP_LABEL = "step t (episodes, log scale)"
OPTIMAL_LABEL = "optimal action (fraction of seeds)"
# The book draws the runs with a baseline in blues and those without in browns; these are the
# colour-blind-safe Okabe-Ito colours nearest to that: blue and sky blue, vermillion and orange.
BOOK_COLOURS = {("running_mean_inclusive", 0.1): OKABE_ITO[0],
                ("running_mean_inclusive", 0.4): OKABE_ITO[5],
                ("none", 0.1): OKABE_ITO[3], ("none", 0.4): OKABE_ITO[1]}


def _cell_label(row: pd.Series) -> str:
    baseline = ("no baseline" if row["baseline"] == "none"
                else f"{row['baseline'].replace('_', ' ')} baseline")
    return f"lr {row['lr']:g}, {baseline}"


def learning_curves(curves: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """Two panels against the step (log x): the fraction of seeds on a best arm with its 95%
    Wilson band, and the mean reward; a line per REINFORCE cell, the chance level 1/K marked."""
    figure, (left, right) = plt.subplots(1, 2, figsize=(7.6, 3.3), layout="constrained")
    for colour, (_, rows) in zip(OKABE_ITO, curves.groupby("cell", sort=True), strict=False):
        learner = registry.learner(rows["algorithm"].iat[0])
        label = _cell_label(rows.iloc[0]) if learner.trains else learner.display
        left.plot(rows["step"], rows["optimal_action"], color=colour, label=label,
                  linewidth=0.9)
        left.fill_between(rows["step"], rows["optimal_ci_low"], rows["optimal_ci_high"],
                          color=colour, alpha=BAND_ALPHA, linewidth=0)
        right.plot(rows["step"], rows["mean_reward"], color=colour, linewidth=0.9)
    left.axhline(curves["chance"].iat[0], label="uniform policy (chance)",
                 **REFERENCE)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel(STEP_LABEL)
    left.set_ylabel(OPTIMAL_LABEL)
    right.set_ylabel("mean reward at step t (reward units)")
    outside_legend(figure, left)
    return save(figure, out_dir, name)


def in_book_layout(curves: pd.DataFrame) -> bool:
    """Whether the curves are those of the book's figure: REINFORCE with the book's baseline and
    without, at the book's step sizes (``BOOK_COLOURS``), nothing else."""
    trained = curves[curves["algorithm"].isin(registry.trained())]
    drawn = set(zip(trained["baseline"], trained["lr"], strict=True))
    return (len(trained) == len(curves) and drawn <= set(BOOK_COLOURS)
            and {baseline for baseline, _ in drawn} == {b for b, _ in BOOK_COLOURS})


def sutton_barto_figure(curves: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """Figure 2.5 of Sutton and Barto in the book's layout: % optimal action against steps
    (linear), a line per (step size, baseline) with its 95% Wilson band, each labelled on the
    plot as in the book; the title names the bandit (the book's: ten arms drawn from N(4, 1))."""
    figure, ax = plt.subplots(figsize=(5.2, 3.6), layout="constrained")
    for (baseline, lr), colour in BOOK_COLOURS.items():
        rows = curves[(curves["baseline"] == baseline) & (curves["lr"] == lr)]
        if not len(rows):
            continue
        ax.plot(rows["step"], 100 * rows["optimal_action"], color=colour, linewidth=0.9)
        ax.fill_between(rows["step"], 100 * rows["optimal_ci_low"],
                        100 * rows["optimal_ci_high"], color=colour, alpha=BAND_ALPHA,
                        linewidth=0)
        end = rows.iloc[-1]
        ax.annotate(f"\u03b1 = {lr:g}", (end["step"], 100 * end["optimal_action"]),
                    xytext=(4, 0), textcoords="offset points", va="center", color=colour)
    ax.text(0.35, 0.86, "with baseline", transform=ax.transAxes, color=OKABE_ITO[0])
    ax.text(0.35, 0.30, "without baseline", transform=ax.transAxes, color=OKABE_ITO[3])
    ax.set_xlim(0, curves["step"].max() * 1.12)
    ax.set_ylim(0, 100)
    ax.set_xlabel("Steps")
    ax.set_ylabel("% Optimal action")
    ax.set_title(f"bandit {curves['environment'].iat[0]}; {int(curves['seeds'].iat[0]):,} runs",
                 loc="left")
    return save(figure, out_dir, name)
