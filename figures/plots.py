"""The figures the sections draw (``figures.sections``), each from analysis tables (never
from the raw runs)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from analysis.roles import LrRole
from figures import words
from figures.style import BAND_ALPHA, OKABE_ITO, REFERENCE, ordered_colours, outside_legend, save
from study.model import registry
from study.model.config import DEFAULT_LR

BUDGET_LABEL = "budget B (rollouts, log scale)"


def budget_label(unit: str) -> str:
    """The budget axis's label for budgets that count ``unit`` (rollouts or tokens)."""
    return BUDGET_LABEL.replace("rollouts", unit)

ACCURACY_LABEL = "best-arm accuracy (fraction of seeds)"


def _band(ax: plt.Axes, rows: pd.DataFrame, x: str, y: str, colour: object, label: str,
          low: str = "ci_low", high: str = "ci_high") -> None:
    ax.plot(rows[x], rows[y], color=colour, label=label)
    ax.fill_between(rows[x], rows[low], rows[high], color=colour, alpha=BAND_ALPHA, linewidth=0)


def _series(ax: plt.Axes, frame: pd.DataFrame, by: str, y: str,
            label: str) -> dict[float, object]:
    """One banded line against budget per value of ``by`` (ordered colours); returns the colours.
    ``label`` is a format string for the value, e.g. ``"lr {:g}"``."""
    values = sorted(frame[by].unique())
    colours = dict(zip(values, ordered_colours(len(values)), strict=True))
    for value in values:
        rows = frame[frame[by] == value].sort_values("budget")
        _band(ax, rows, "budget", y, colours[value], label.format(value))
    return colours


def _trained(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of learners that train (REINFORCE)."""
    return frame[frame["algorithm"].isin(registry.trained())]


def _references_and_chance(ax: plt.Axes, accuracy: pd.DataFrame) -> None:
    """The nested reference learners the table has (uniform allocation), in black and then
    reddish purple, colours the ordered palette of the lr lines (blue through grey to yellow)
    does not use, and the chance level."""
    nested = [name for name in registry.references() if registry.learner(name).nested
              and (accuracy["algorithm"] == name).any()]
    for colour, name in zip(("black", OKABE_ITO[4]), nested, strict=False):
        rows = accuracy[accuracy["algorithm"] == name].sort_values("budget")
        _band(ax, rows, "budget", "accuracy", colour, registry.display(name))
    ax.axhline(accuracy["chance"].iat[0], label="never-training sampler (chance)", **REFERENCE)


def accuracy_vs_budget(accuracy: pd.DataFrame, out_dir: Path, name: str,
                       targets: pd.DataFrame | None = None,
                       unit: str = "rollouts") -> list[Path]:
    """One panel per baseline: accuracy against budget (counting ``unit``), a line per lr with
    its 95% Wilson band, uniform allocation and the chance level for reference. With ``targets``
    (a budget-to-target table) each lr's budget to 0.9 is drawn on the 0.9 line with its
    bootstrap interval."""
    reinforce = _trained(accuracy)
    baselines = list(dict.fromkeys(reinforce["baseline"]))
    figure, axes = plt.subplots(1, len(baselines), figsize=(3.5 * len(baselines), 3.3),
                                sharey=True, squeeze=False, layout="constrained")
    for ax, baseline in zip(axes[0], baselines, strict=True):
        colours = _series(ax, reinforce[reinforce["baseline"] == baseline], "lr", "accuracy",
                          "lr {:g}")
        for lr, colour in colours.items():
            if targets is not None:
                _target_marks(ax, targets, baseline, lr, colour)
        _references_and_chance(ax, accuracy)
        if targets is not None:
            ax.axhline(0.9, color=OKABE_ITO[3], linewidth=0.8, label="target 0.9")
        ax.set_xscale("log")
        ax.set_title(f"baseline: {baseline.replace('_', ' ')}")
        ax.set_xlabel(budget_label(unit))
    axes[0][0].set_ylabel(ACCURACY_LABEL)
    outside_legend(figure, axes[0][-1])
    return save(figure, out_dir, name)


def _target_marks(ax: plt.Axes, targets: pd.DataFrame, baseline: str, lr: float,
                  colour: object) -> None:
    """This lr's budget to 0.9 as a point on the target line, with its interval; an upper limit
    beyond the largest budget is drawn as an arrow to the right edge, not as a bar that would end
    at the largest budget as if that were the limit."""
    marks = targets[(targets["lr_role"] == LrRole.GRID) & (targets["baseline"] == baseline)
                    & (targets["lr"] == lr) & targets["reached"]]
    for _, m in marks.iterrows():
        point = m["budget_to_target"]
        bounded = math.isfinite(m["ci_high"])
        high = m["ci_high"] if bounded else point
        ax.errorbar([point], [0.9], color=colour, fmt="o", markersize=3.5, capsize=2,
                    xerr=[[point - m["ci_low"]], [high - point]])
        if not bounded:
            ax.annotate("", xy=(m["largest_budget"] * 1.6, 0.9), xytext=(point, 0.9),
                        arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.0})


def accuracy_band(band: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """The headline cell's accuracy against budget with its pointwise 95% Wilson band and the
    simultaneous 95% sup-t band around it (top), and the two bands' widths (bottom: with many
    seeds the bands are too thin to tell apart on the accuracy scale)."""
    figure, (ax, widths) = plt.subplots(2, 1, figsize=(6.2, 5.4), sharex=True,
                                        height_ratios=(2, 1), layout="constrained")
    colour = OKABE_ITO[0]
    simultaneous = f"simultaneous 95% (sup-t, x{band['band_factor'].iat[0]:.2f})"
    ax.fill_between(band["budget"], band["band_low"], band["band_high"], color=colour,
                    alpha=BAND_ALPHA, linewidth=0, label=simultaneous)
    ax.fill_between(band["budget"], band["ci_low"], band["ci_high"], color=colour,
                    alpha=2.5 * BAND_ALPHA, linewidth=0, label="pointwise 95% (Wilson)")
    ax.plot(band["budget"], band["accuracy"], color=colour, marker="o", markersize=2.5,
            label="accuracy")
    ax.set_ylabel(ACCURACY_LABEL)
    widths.plot(band["budget"], band["band_high"] - band["band_low"], color=colour,
                linestyle="--", label=simultaneous)
    widths.plot(band["budget"], band["ci_high"] - band["ci_low"], color=colour,
                label="pointwise 95% (Wilson)")
    widths.set_ylabel("interval width\n(accuracy)")
    widths.set_xscale("log")
    widths.set_xlabel(BUDGET_LABEL)
    outside_legend(figure, ax, title=f"{int(band['seeds'].iat[0]):,} seeds")
    return save(figure, out_dir, name)


def lr_heatmap(accuracy: pd.DataFrame, out_dir: Path, name: str,
               unit: str = "rollouts") -> list[Path]:
    """Accuracy over lr x budget (counting ``unit``), one panel per baseline."""
    reinforce = _trained(accuracy)
    baselines = list(dict.fromkeys(reinforce["baseline"]))
    figure, axes = plt.subplots(1, len(baselines), figsize=(3.6 * len(baselines), 3.0),
                                squeeze=False, layout="constrained")
    for ax, baseline in zip(axes[0], baselines, strict=True):
        grid = reinforce[reinforce["baseline"] == baseline].pivot(
            index="lr", columns="budget", values="accuracy")
        budgets = grid.columns.to_numpy(dtype=float)
        # Cell edges halfway between checkpoints in log budget, so the x axis is a true log axis.
        middle = np.sqrt(budgets[:-1] * budgets[1:])
        edges = np.concatenate([[budgets[0] ** 2 / middle[0]], middle,
                                [budgets[-1] ** 2 / middle[-1]]])
        image = ax.pcolormesh(edges, np.arange(len(grid.index) + 1), grid.to_numpy(),
                              cmap="cividis", vmin=accuracy["chance"].iat[0], vmax=1.0)
        ax.set_xscale("log")
        ax.set_yticks(np.arange(len(grid.index)) + 0.5, [f"{lr:g}" for lr in grid.index])
        ax.set_xlabel(budget_label(unit))
        ax.set_ylabel("learning rate lr")
        ax.set_title(f"baseline: {baseline.replace('_', ' ')}")
        ax.grid(False)
    figure.colorbar(image, ax=axes[0].tolist(), label=ACCURACY_LABEL, shrink=0.9)
    return save(figure, out_dir, name)


def best_arm_identification(studies: dict[str, tuple[pd.DataFrame, pd.DataFrame]],
                            out_dir: Path, name: str) -> list[Path]:
    """All algorithms on one figure, a panel per bandit: REINFORCE (running-mean baseline) at the
    default and at the best lr against uniform allocation, successive rejects and sequential
    halving, each with its 95% Wilson band; the chance level and the 0.9 target marked."""
    figure, axes = plt.subplots(1, len(studies), figsize=(max(3.8 * len(studies), 5.0), 3.4),
                                sharey=True, squeeze=False, layout="constrained")
    for ax, (title, (accuracy, targets)) in zip(axes[0], studies.items(), strict=True):
        best = targets[(targets["lr_role"] == LrRole.BEST)
                       & (targets["baseline"] == "running_mean")]["lr"]
        best_lr = best.iat[0] if len(best) else DEFAULT_LR
        # The best lr differs between bandits, so the legend names the role and the title the lr.
        lines = [(name, lr, f"{registry.display(name)}, {role}") for name in registry.trained()
                 for lr, role in ((DEFAULT_LR, f"lr {DEFAULT_LR:g}"),
                                  (best_lr, "best lr (in title)"))]
        lines += [(name, 0.0, registry.display(name)) for name in registry.references()]
        for colour, (algorithm, lr, label) in zip(OKABE_ITO, lines, strict=False):
            rows = accuracy[(accuracy["algorithm"] == algorithm) & (accuracy["lr"] == lr)
                            & accuracy["baseline"].isin(["running_mean", "none"])]
            if registry.learner(algorithm).trains:
                rows = rows[rows["baseline"] == "running_mean"]
            if len(rows):
                _band(ax, rows.sort_values("budget"), "budget", "accuracy", colour, label)
        ax.axhline(accuracy["chance"].iat[0], label="never-training sampler (chance)",
                   **REFERENCE)
        ax.axhline(0.9, color="0.6", linewidth=0.8, label="target 0.9")
        ax.set_xscale("log")
        # Budgets within a decade or two get labelled minor ticks that overlap: decades only.
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(BUDGET_LABEL)
        ax.set_title(f"{title}; best lr {best_lr:g}")
    axes[0][0].set_ylabel(ACCURACY_LABEL)
    outside_legend(figure, axes[0][0])
    return save(figure, out_dir, name)


def power_curves(curves: pd.DataFrame, out_dir: Path, name: str, reference: str) -> list[Path]:
    """Power against seeds, one panel per comparison (``against``; ``reference``: the study's
    reference learner), a colour per budget: analytic (line) and Monte Carlo resampling of seeds
    (points); 80% power and 40 seeds marked."""
    comparisons = list(dict.fromkeys(curves["against"]))
    budgets = sorted(curves["budget"].unique())
    colours = dict(zip(budgets, OKABE_ITO, strict=False))
    figure, axes = plt.subplots(1, len(comparisons), figsize=(3.4 * len(comparisons), 3.1),
                                sharey=True, squeeze=False, layout="constrained")
    for ax, comparison in zip(axes[0], comparisons, strict=True):
        for budget in budgets:
            rows = curves[(curves["against"] == comparison) & (curves["budget"] == budget)]
            ax.plot(rows["seeds"], rows["analytic"], color=colours[budget], label=f"B = {budget}")
            ax.plot(rows["seeds"], rows["monte_carlo"], "o", color=colours[budget],
                    markersize=3, markerfacecolor="none")
        ax.axhline(0.8, **REFERENCE)
        ax.axvline(40, color="0.6", linewidth=0.8, linestyle=":")
        ax.set_xscale("log")
        ax.set_xlabel("seeds per cell (log scale)")
        ax.set_title(words.comparison((comparison, reference)))
    axes[0][0].set_ylabel("power at alpha = 0.05")
    outside_legend(figure, axes[0][0], title="line: normal approx.\nrings: Monte Carlo")
    return save(figure, out_dir, name)


def net_value(net: pd.DataFrame, best: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """Expected net value against budget, a line per cost with its 95% band, the optimum marked
    (a hollow star, over the band, not on top of it); the right panel zooms on the budgets from
    the smallest best one on, where the bands are wider than a line."""
    trained, chosen = _trained(net), _trained(best)
    figure, axes = plt.subplots(1, 2, figsize=(8.4, 3.6), layout="constrained")
    for ax in axes:
        colours = _series(ax, trained, "cost", "net_value", "c = {:g}")
        for cost, colour in colours.items():
            top = chosen[chosen["cost"] == cost].iloc[0]
            # The best budget is chosen on the even seeds; the star sits on the curve of all
            # seeds.
            curve = trained[trained["cost"] == cost].set_index("budget")
            ax.plot([top["best_budget"]], [curve.loc[top["best_budget"], "net_value"]], "*",
                    markersize=8, markerfacecolor="none", markeredgecolor=colour,
                    markeredgewidth=1.0, zorder=3)
        ax.set_xscale("log")
        ax.set_xlabel(BUDGET_LABEL)
    axes[0].set_ylabel("expected net value (reward units)")
    start = chosen["best_budget"].min()
    near = trained[trained["budget"] >= start]
    stars = trained.merge(chosen[["cost", "best_budget"]], left_on=["cost", "budget"],
                          right_on=["cost", "best_budget"])
    low, high = stars["ci_low"].min(), near["ci_high"].max()
    axes[1].set_xlim(start / 1.5, near["budget"].max() * 1.5)
    axes[1].set_ylim(low - 0.5 * (high - low), high + 0.1 * (high - low))
    axes[0].set_title("all budgets")
    axes[1].set_title("zoom: from the smallest best budget on")
    outside_legend(figure, axes[1], title="per-pull cost\n(star: best budget)")
    return save(figure, out_dir, name)


def paired_difference(paired: pd.DataFrame, out_dir: Path, name: str,
                      ylabel: str) -> list[Path]:
    """A paired accuracy difference (A - B) against budget, a line per lr with its 95% Newcombe
    band, and zero marked."""
    figure, ax = plt.subplots(figsize=(6.2, 3.4), layout="constrained")
    _series(ax, paired, "lr", "difference", "lr {:g}")
    ax.axhline(0.0, **REFERENCE)
    ax.set_xscale("log")
    ax.set_xlabel(BUDGET_LABEL)
    ax.set_ylabel(ylabel)
    outside_legend(figure, ax)
    return save(figure, out_dir, name)

