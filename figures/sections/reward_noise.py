"""What reward noise costs (``analysis.questions.reward_noise``): a study whose grid puts one bandit
under verifiers of several error rates beside the exact one gets this section (the costs on
best-arm accuracy and on the policy's pass rate, each against the margin prediction and the
variance-folded one, and the joint slopes, ``analysis.questions.reward_noise_slope``), its
figure (the ratio of rollouts to each target against the verifier's total error rate, one panel
per metric and target, with the two predicted ratios) and its paragraph of the paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt
from matplotlib import ticker

from analysis.questions.reward_noise import SLOPE_TABLE, Metric, Prediction
from analysis.roles import Placement
from figures.cite import Row, Tables
from figures.claims import budget_limit, figure_name, more_than
from figures.numbers import Scope, number_word
from figures.sections import Section
from figures.style import REFERENCE, ordered_colours, outside_legend, save
from figures.words import arm_values, baseline_name
from study.rewards import ROLES

SECTION = Section(table="reward_noise_cost", title="What a noisy verifier costs",
                  template="reward_noise.md.j2", order=11, figures=("reward_noise_cost",),
                  paper="reward_noise.typ.j2")

SHOWN = ["false_positive", "false_negative", "ratio", "ci_low", "ci_high", "simultaneous_low",
         "simultaneous_high", "predicted_ratio", "prediction", "variance_predicted_ratio",
         "variance_prediction", "undefined_resamples"]
"""The columns of the section's tables of ratios (the pass-rate one adds the target)."""
SLOPE_SHOWN = ["metric", "fraction", "prediction", "verifiers", "slope", "ci_low", "ci_high",
               "simultaneous_low", "simultaneous_high", "slope_one", "simultaneous_low_mc_low",
               "simultaneous_low_mc_high", "simultaneous_high_mc_low",
               "simultaneous_high_mc_high", "intercept", "undefined_resamples"]
"""The columns of the section's table of slopes."""
METRIC_NAMES = {Metric.ACCURACY: "Accuracy", Metric.PASS_RATE: "PassRate"}
PREDICTION_NAMES = {Prediction.MARGIN: "Margin", Prediction.VARIANCE: "Variance"}
PLACEMENT_NAMES = {Placement.INSIDE: "NotRejected", Placement.BELOW: "Below",
                   Placement.ABOVE: "Above", Placement.UNRESOLVED: "Unresolved"}
"""Each metric, prediction and placement in the names of its numbers."""
SLOPE_VERDICTS = {
    Placement.INSIDE: "not rejected",
    Placement.BELOW: "rejected, the cost growing faster than the prediction",
    Placement.ABOVE: "rejected, the cost growing more slowly than the prediction",
    Placement.UNRESOLVED: "unresolved, within the Monte Carlo error of a limit",
}
"""Where slope one lies against a slope's simultaneous interval, as the verdict on it."""


VERDICT = " and ".join(f"{role} == {role}" for role in ROLES)
"""The rows of a verifier, whose model declares every role of ``study.rewards.ROLES`` (its
error rates; a ``DataFrame.query``, NaN being unequal to itself): the section reads parameters
by these roles, and another model with a gap factor has its rows in the tables alone."""


def _verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``table`` whose model declares a verifier's error rates (``VERDICT``)."""
    return table[table[list(ROLES)].notna().all(axis=1)]


def unfit(tables: Path, study: str) -> str:
    """Why the section does not fit a study whose noisy rewards have no verifier's error rates
    ("" where some do)."""
    if _verdicts(pd.read_parquet(tables / f"{SECTION.table}.parquet")).empty:
        return ("whose reward models with a gap factor declare no verifier's error rates (the "
                f"parameter roles {' and '.join(ROLES)})")
    return ""


def _word(fraction: float) -> str:
    """A pass-rate target's share of the achievable gain in the names of its numbers:
    0.75 -> ``SeventyFive``."""
    return number_word(round(100 * fraction))


def _budget(numbers: Scope, name: str, row: Row) -> None:
    """The exact verifier's budget of ``row`` with its interval under ``name``, ``nameLow`` and
    ``nameHigh``: a lower bound where the target was not reached, an unbounded limit where too
    many resamples never reach it."""
    if row.exact_reached:
        numbers.put(name, row.exact_budget, ",.0f")
    else:
        numbers.put(name, row.exact_budget, shown=more_than)
    numbers.put(f"{name}Low", row.exact_budget_low, shown=budget_limit)
    numbers.put(f"{name}High", row.exact_budget_high, shown=budget_limit)


def _ratio(numbers: Scope, name: str, row: Row) -> None:
    """A row's ratio with its pointwise interval under ``name``, ``nameLow`` and ``nameHigh``."""
    numbers.put(name, row.ratio, ".2f")
    numbers.put(f"{name}Low", row.ci_low, ".2f")
    numbers.put(f"{name}High", row.ci_high, ".2f")


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Name the section's numbers in ``numbers``; return the template's phrases, its lists (the
    pass-rate targets, the slopes) and its tables."""
    noisy = _verdicts(cite.read(study, SECTION.table))
    accuracy = noisy[noisy["metric"] == Metric.ACCURACY]
    passing = noisy[noisy["metric"] == Metric.PASS_RATE]
    first = cite.first(accuracy)
    # The costliest verifier by design, the largest total error rate (of those, the largest
    # accuracy ratio, should several share it).
    total = accuracy["false_positive"] + accuracy["false_negative"]
    largest = accuracy[total == total.max()]
    costliest = cite.first(largest[largest["ratio"] == largest["ratio"].max()])
    numbers.put("Verifiers", cite.count(noisy, f"metric == {Metric.ACCURACY.value!r} and "
                                               f"{VERDICT}"), ",")
    # The study's seeds, as every study names them (``figures.named.headline``).
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    numbers.put("Lr", first.lr, "g")
    numbers.put("Arms", cite.manifest_value(study, "config.environments.0.values"),
                shown=arm_values)
    numbers.put("RateLow", cite.smallest(accuracy, "false_negative"), "g")
    numbers.put("RateHigh", cite.largest(accuracy, "false_positive"), "g")
    numbers.put("Target", first.target, "g")
    _budget(numbers, "ExactBudget", first)
    numbers.put("CostliestFalsePositive", costliest.false_positive, "g")
    numbers.put("CostliestFalseNegative", costliest.false_negative, "g")
    _ratio(numbers, "CostliestRatio", costliest)
    numbers.put("CostliestPredicted", costliest.predicted_ratio, ".2f")
    numbers.put("CostliestVariancePredicted", costliest.variance_predicted_ratio, ".2f")
    numbers.put("MeanP", first.mean_p, "g")
    numbers.put("CostliestMeanQ", costliest.mean_q, "g")
    fractions = []
    for row in cite.rows(passing[passing["cell"] == costliest.cell.value]):
        word = _word(row.fraction.value)
        numbers.put(f"PassRateFractionAt{word}", row.fraction, ".0%")
        numbers.put(f"PassRateTargetAt{word}", row.target, "g")
        _budget(numbers, f"PassRateExactBudgetAt{word}", row)
        _ratio(numbers, f"PassRateCostliestRatioAt{word}", row)
        fractions.append(word)
    if fractions:
        ends = cite.first(passing)
        numbers.put("PassRateStart", ends.start, "g")
        numbers.put("PassRateBest", ends.best, "g")
    for metric, rows in ((Metric.ACCURACY, accuracy), (Metric.PASS_RATE, passing)):
        if rows.empty:
            continue
        name = METRIC_NAMES[metric]
        numbers.put(f"{name}Family", cite.first(rows).family_size, ",")
        for prediction, column in ((Prediction.MARGIN, "prediction"),
                                   (Prediction.VARIANCE, "variance_prediction")):
            for placement, shown in PLACEMENT_NAMES.items():
                numbers.put(f"{name}{PREDICTION_NAMES[prediction]}{shown}", cite.count(
                    noisy, f"metric == {metric.value!r} and {column} == {placement.value!r} "
                    f"and {VERDICT}"), ",")
    numbers.put("FamilyAlpha", cite.constant("analysis.questions.reward_noise.FAMILY_ALPHA"),
                "g")
    numbers.put("AccuracyResamples",
                cite.constant("analysis.questions.reward_noise.FAMILY_RESAMPLES"), ",")
    numbers.put("PassRateResamples",
                cite.constant("analysis.questions.reward_noise.PASS_RATE_RESAMPLES"), ",")
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put_constant("Resamples", cite.constant("analysis.budget_to_target.BOOTSTRAP"), ",")
    slopes = cite.read(study, SLOPE_TABLE)
    joint = _slopes(cite, slopes, numbers) if slopes is not None else []
    effective = cite.read(study, "effective_hardness")
    exact_unit = cite.first(effective[effective["cell"] == first.exact_cell.value])
    costliest_unit = cite.first(effective[effective["cell"] == costliest.cell.value])
    numbers.put("H", exact_unit.hardness_H, ",.0f")
    for name, row in (("Exact", exact_unit), ("Costliest", costliest_unit)):
        numbers.put(f"{name}PerEffectiveH", row.per_effective_H, ".2f")
        numbers.put(f"{name}PerEffectiveHLow", row.per_effective_H_low, ".2f")
        numbers.put(f"{name}PerEffectiveHHigh", row.per_effective_H_high, ".2f")
    return {"baseline": baseline_name(first.baseline.value),
            "exact_reached": bool(first.exact_reached.value),
            "fractions": fractions, "slopes": joint,
            "shrink": cite.literal("1 - fp - fn"),
            "reward": cite.literal("q = fp + p (1 - fp - fn)"),
            "prediction": cite.literal("1 / (1 - fp - fn)^2"),
            "folded": cite.literal("[qbar (1 - qbar) / (pbar (1 - pbar))] / (1 - fp - fn)^2"),
            "variance_q": cite.literal("q (1 - q)"), "variance_p": cite.literal("p (1 - p)"),
            "mean_q": cite.literal("qbar = fp + pbar (1 - fp - fn)"), "one": cite.literal("1"),
            "effective_h": cite.literal("H / (1 - fp - fn)^2"),
            "table": accuracy[SHOWN],
            "passing": passing[["fraction", "target", *SHOWN]],
            "effective": effective[[*ROLES, "gap_factor",
                                    "effective_H", "budget_to_target", "per_effective_H",
                                    "per_effective_H_low", "per_effective_H_high"]],
            "slope_table": slopes[SLOPE_SHOWN] if slopes is not None else None}


def _slopes(cite: Tables, slopes: pd.DataFrame, numbers: Scope) -> list[dict[str, Any]]:
    """Name each slope's numbers (``Slope<metric>[At<share>]<prediction>``, with ``Low``,
    ``High``, ``SimultaneousLow`` and ``SimultaneousHigh``) and return them by target, in the
    table's order, for the templates: whether the target is a pass rate's, its share of the
    gain in words (``share``, as the names of its numbers spell it) and, per prediction
    (``margin``, ``variance``), its slope's name and verdict."""
    numbers.put("SlopeFamily", cite.count(slopes), ",")
    targets: dict[tuple[str, str], dict[str, Any]] = {}
    for row in cite.rows(slopes):
        metric = Metric(row.metric.value)
        share = _word(row.fraction.value) if metric == Metric.PASS_RATE else ""
        prediction = Prediction(row.prediction.value)
        name = (f"Slope{METRIC_NAMES[metric]}{'At' if share else ''}{share}"
                f"{PREDICTION_NAMES[prediction]}")
        numbers.put(name, row.slope, ".2f")
        for column, suffix in (("ci_low", "Low"), ("ci_high", "High"),
                               ("simultaneous_low", "SimultaneousLow"),
                               ("simultaneous_high", "SimultaneousHigh")):
            numbers.put(f"{name}{suffix}", row[column], ".2f")
        target = targets.setdefault((metric, share), {
            "pass_rate": metric == Metric.PASS_RATE, "share": share})
        target[prediction.value] = {"name": name,
                                    "verdict": SLOPE_VERDICTS[Placement(row.slope_one.value)]}
    return list(targets.values())


PANEL_TITLES = {Metric.ACCURACY: "accuracy to {target:g}",
                Metric.PASS_RATE: "pass rate to {fraction:.0%} of the achievable gain"}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The section's figure from the study's tables in ``tables``: one panel per metric and
    target, the ratio against false_positive + false_negative, one colour and marker per
    false-positive rate (nudged sideways so that rates of one total stay apart), 95% paired
    bootstrap bars; the dashed line is 1 / (1 - fp - fn)^2, the crosses the variance-folded
    prediction of each verifier."""
    name = figure_name(study, SECTION.figures[0])
    table = _verdicts(pd.read_parquet(tables / f"{SECTION.table}.parquet"))
    panels = list(table.groupby(["metric", "fraction"], dropna=False, sort=False))
    columns = min(len(panels), 2)
    rows = -(-len(panels) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(3.4 * columns, 2.8 * rows),
                                layout="constrained", sharey=True, squeeze=False)
    total = table["false_positive"] + table["false_negative"]
    rates = sorted(table["false_positive"].unique())
    nudge = 0.012 * total.max()
    grid = np.linspace(0.0, total.max(), 100)
    for ax, ((metric, fraction), rows_of) in zip(axes.flat, panels, strict=False):
        for i, (colour, rate) in enumerate(zip(ordered_colours(len(rates)), rates,
                                               strict=True)):
            shown = rows_of[rows_of["false_positive"] == rate]
            x = (shown["false_positive"] + shown["false_negative"]
                 + nudge * (i - (len(rates) - 1) / 2))
            ax.errorbar(x, shown["ratio"], yerr=[shown["ratio"] - shown["ci_low"],
                                                 shown["ci_high"] - shown["ratio"]],
                        color=colour, marker="osD^v<>"[i % 7], markersize=4, linestyle="none",
                        capsize=2, label=f"false positive {rate:g}")
            ax.plot(x, shown["variance_predicted_ratio"], color="0.2", marker="x",
                    markersize=4, linestyle="none",
                    label="variance folded in" if i == 0 else None)
        ax.plot(grid, 1.0 / (1.0 - grid) ** 2, **REFERENCE, label="1 / (1 - fp - fn)$^2$")
        ax.set_title(PANEL_TITLES[Metric(metric)].format(target=rows_of["target"].iat[0],
                                                         fraction=fraction))
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(ticker.FixedLocator([1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50]))
        ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    # Each column's lowest panel names the x axis: a figure-wide label would sit where the
    # legend below goes.
    for ax in axes[-1]:
        ax.set_xlabel("verifier's total error rate, fp + fn")
    figure.supylabel("rollouts to the target, ratio to the exact verifier")
    outside_legend(figure, axes.flat[0], below=True)
    return {name: save(figure, out_dir, name)}
