"""Many prompts, one rollout budget (``analysis.prompts``): a many-prompts study gets this
section, its figure (mean accuracy against rollouts per allocation rule, where the rollouts went
by difficulty band, and the compute curve fitted on the early budgets with the held-out ones)
and its paragraph of the paper. The headline cells are those of the config's
``headline_baseline`` and ``headline_group_size``; the tables hold every cell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

import analysis.budget_to_target as crossings
from analysis.pass_rate import FRACTIONS
from analysis.prompts.compute_curve import scaling_curve
from analysis.prompts.outcomes import REFERENCE
from analysis.questions import SETTINGS
from analysis.roles import Censoring, Finding, Placement
from figures.cite import Row, Tables, formatter
from figures.claims import figure_name
from figures.numbers import Scope, number_word
from figures.sections import Section
from figures.style import BAND_ALPHA, OKABE_ITO, save
from figures.words import baseline_name
from study.model import registry
from study.model.schema import SAMPLER_CELL_COLUMNS

SECTION = Section(table="prompts_vs_uniform", title="Many prompts, one rollout budget",
                  template="prompt_allocation.md.j2", order=12, figures=("prompt_allocation",),
                  paper="prompt_allocation.typ.j2")



def rules_of(frame: pd.DataFrame) -> list[str]:
    """The allocation rules of a study's table, uniform allocation first, then in the order of
    its cells (its config's)."""
    found = list(dict.fromkeys(frame["allocation"]))
    return [REFERENCE, *(rule for rule in found if rule != REFERENCE)]


METRIC_NAMES = {"accuracy": "best-arm accuracy", "pass_rate": "pass rate"}
"""Each metric in prose."""
NORMALIZATION_KEYS = {"per_group": "PerGroup", "per_batch": "PerBatch"}
"""Each normalization in the names of its numbers."""
FINDING_WORDS = {Finding.HIGHER: "higher", Finding.LOWER: "lower",
                 Finding.EQUIVALENT: "within +-{margin:g}", Finding.UNRESOLVED: "unresolved"}
"""A verdict of the verdict table in words."""
ESTIMABLE = f"censoring == {Censoring.NONE.value!r}"
"""The ratios placed against a value: those whose budgets were both reached (a censored ratio's
interval is a bound, [0, inf] where neither was, which no placement describes)."""
SHOWN = (Finding.HIGHER, Finding.LOWER)
"""The findings of a difference shown after Holm."""
SAME_RUNS = "as per group (the same runs)"
"""The verdict table's entry for a rule whose two normalizations are one simulation."""
"""Each rule but uniform allocation in the names of its numbers."""
TARGET = crossings.TARGET
"""The target of the ratios the section names (the tables also hold 0.8)."""
PASS_SHARE = FRACTIONS[0]
"""The share of the achievable pass-rate gain whose budgets the section names (the tables hold
every share of ``analysis.pass_rate.FRACTIONS``)."""
RATIOS = ["allocation", "environment", "target", "budget_to_target", "budget_low", "budget_high",
          "ratio_to_uniform", "ratio_low", "ratio_high", "ratio_bound", "interval_against_one",
          "interval_against_half", "censoring"]
PASS_RATIOS = ["allocation", "environment", "fraction", "target", "budget_to_target",
               "budget_low", "budget_high", "ratio_to_uniform", "ratio_low", "ratio_high",
               "interval_against_one", "censoring"]
CURVE = ["allocation", "environment", "asymptote", "asymptote_low", "asymptote_high",
         "steepness", "steepness_low", "steepness_high", "midpoint", "midpoint_low",
         "midpoint_high", "residual_rms", "standard_error", "fit"]
STARTS = ["first_budget", "fitted_budgets", "fits", "poor_fits", "largest_residual", "held_out",
          "prediction_inside", "prediction_below", "prediction_above", "prediction_unresolved",
          "smallest_error", "largest_error"]
THIN_BAND = 0.01
"""An interval of accuracy narrower than this is about a line's width on the figure's axes."""
BANDS = ["allocation", "environment", "band", "rollout_share", "rollout_share_low",
         "rollout_share_high", "zero_signal_share", "accuracy"]
"""The columns of the section's tables."""


@formatter
def law(environment: str) -> str:
    """A difficulty law as prose: ``beta(4,1)x3`` -> ``beta(4, 1)``."""
    return environment.split(")x")[0].replace(",", ", ") + ")"


@formatter
def rule_name(allocation: str) -> str:
    """An allocation rule as prose (its declaration's ``display``)."""
    return registry.allocation(allocation).display


def unfit(tables: Path, study: str) -> str:
    """The section compares the rules within one sampler, per difficulty band of prompts, and
    draws their compute curves: a study whose cells differ in their sampler (the tables hold
    each, a stratum per sampler), whose prompts come from a population of environments, or whose
    analysis fitted no curve (``curve_cut``), does not fit."""
    cells = pd.read_parquet(tables / "cells.parquet")
    sampler = [c for c in SAMPLER_CELL_COLUMNS if c in cells]
    if sampler and len(cells[sampler].drop_duplicates()) > 1:
        return "whose cells differ in their off-policy sampler (its tables hold each sampler's)"
    if (tables / "prompts_difficulty.parquet").is_file():
        return ("whose prompts come from a population of environments (its bands are quarters "
                "of its environments, not of its prompts)")
    if not (tables / "prompts_curve.parquet").is_file():
        return "whose analysis fitted no compute curve (no [analysis] curve_cut)"
    return ""


def _headline(frame: pd.DataFrame, baseline: str, group_size: int) -> pd.DataFrame:
    """The rows of the headline cells: ``[analysis] headline_baseline`` and
    ``headline_group_size``."""
    return frame[(frame["baseline"] == baseline) & (frame["group_size"] == group_size)]


def _on(metric: str, query: str = "") -> str:
    """A query of the rows of one metric (``analysis.prompts.outcomes.METRICS``), and ``query``."""
    return f"metric == {metric!r}" + (f" and {query}" if query else "")


def _verdicts(cite: Tables, verdicts: pd.DataFrame) -> pd.DataFrame:
    """The verdict table as the report shows it: a row per rule and law, a column per metric and
    normalization, each the headline cells' finding at the largest budget."""
    shown = verdicts.assign(
        rule=verdicts["allocation"].map(rule_name), law=verdicts["environment"].map(law),
        column=verdicts["metric"].map(METRIC_NAMES) + ", "
        + verdicts["normalization"].str.replace("_", " "),
        verdict=[FINDING_WORDS[Finding(f)].format(margin=m)
                 + (f", by less than {m:g}" if w and Finding(f) in SHOWN else "")
                 for f, m, w in zip(verdicts["finding"], verdicts["margin"],
                                    verdicts["within_margin"], strict=True)])
    table = shown.pivot(index=["rule", "law"], columns="column", values="verdict")
    # A rule whose groups all have G rollouts is one simulation under both normalizations.
    return table.fillna(SAME_RUNS).reset_index().rename_axis(columns=None)


def _put_ratio(cite: Tables, numbers: Scope, rows: pd.DataFrame, key: str, spec: str) -> bool:
    """Name a rule's ratio to uniform allocation and its interval (``<key>Ratio``,
    ``<key>RatioLow``, ``<key>RatioHigh``) from its row of ``rows``; whether both reached the
    target (else no ratio is named)."""
    row = cite.first(rows)
    reached = bool(np.isfinite(row.ratio_to_uniform.value))
    if reached:
        numbers.put(f"{key}Ratio", row.ratio_to_uniform, spec)
        numbers.put(f"{key}RatioLow", row.ratio_low, spec)
        numbers.put(f"{key}RatioHigh", row.ratio_high, spec)
    return reached


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Name the section's numbers in ``numbers``; return the template's per-law lists, phrases
    and tables."""
    settings = cite.first(cite.read(study, SETTINGS))
    versus = cite.read(study, SECTION.table)
    verdicts = cite.read(study, "prompts_verdicts")
    ratios = cite.read(study, "prompts_budget_to_target")
    bands = cite.read(study, "prompts_bands")
    curve = cite.read(study, "prompts_curve")
    predictions = cite.read(study, "prompts_curve_predictions")
    plan = cite.read(study, "prompts_plan")
    starts = cite.read(study, "prompts_curve_starts")
    first = cite.first(versus)
    numbers.put("PassMargin", settings.pass_rate_margin, "g")
    for metric, name in (("accuracy", "Accuracy"), ("pass_rate", "Pass")):
        numbers.put(f"{name}Family", cite.count(versus, _on(metric)), ",")
        for normalization, key in NORMALIZATION_KEYS.items():
            for finding in Finding:
                numbers.put(f"{name}{key}{finding.value.capitalize()}", cite.count(
                    versus, _on(metric, f"normalization == {normalization!r} and "
                                        f"finding == {finding.value!r}")), ",")
        for placement in Placement:
            numbers.put(f"{name}Ratios{placement.value.capitalize()}", cite.count(ratios, _on(
                metric, f"{ESTIMABLE} and interval_against_one == {placement.value!r}")), ",")
        numbers.put(f"{name}Ratios", cite.count(
            ratios, _on(metric, "interval_against_one == interval_against_one")), ",")
        numbers.put(f"{name}RatiosCensored", cite.count(ratios, _on(
            metric, f"interval_against_one == interval_against_one and not {ESTIMABLE}")), ",")
        margin = settings.equivalence_margin if metric == "accuracy" else settings.pass_rate_margin
        numbers.put(f"{name}InsideMargin", cite.count(versus, _on(
            metric, f"{-float(margin)!r} < difference < {float(margin)!r}")), ",")
        if metric == "pass_rate":  # accuracy's is ``Within``
            numbers.put(f"{name}ShownWithinMargin",
                        cite.count(versus, _on(metric, "within_margin")), ",")
        numbers.put(f"{name}LargestDifference", cite.largest(
            versus[versus["metric"] == metric], "abs(difference)"), ".4f")
    numbers.put("Verdicts", cite.count(verdicts, _on("accuracy")), ",")
    numbers.put("VerdictsDisagree", cite.count(verdicts, _on("accuracy", "not metrics_agree")),
                ",")
    numbers.put("SkipPassHigher", cite.count(versus, _on(
        "pass_rate", "allocation == 'skip_zero_signal' and finding == 'higher'")), ",")
    numbers.put("SkipPassLower", cite.count(versus, _on(
        "pass_rate", "allocation == 'skip_zero_signal' and finding == 'lower'")), ",")
    numbers.put("SkipAccuracyHigher", cite.count(versus, _on(
        "accuracy", "allocation == 'skip_zero_signal' and finding == 'higher'")), ",")
    numbers.put("SkipAccuracyLower", cite.count(versus, _on(
        "accuracy", "allocation == 'skip_zero_signal' and finding == 'lower'")), ",")
    accuracy_rows = versus[versus["metric"] == "accuracy"]
    numbers.put("Prompts", first.prompts, ",")
    # The study's seeds, as every study names them (``figures.named.headline``).
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    numbers.put("Lr", first.lr, "g")
    numbers.put("GroupSize", settings.headline_group_size, ",")
    numbers.put("Margin", settings.equivalence_margin, "g")
    for finding in (Finding.HIGHER, Finding.LOWER):
        numbers.put(finding.value.capitalize(),
                    cite.count(versus, _on("accuracy", f"finding == {finding.value!r}")), ",")
    numbers.put("Within", cite.count(versus, _on("accuracy", "within_margin")), ",")
    numbers.put("Outside", cite.count(versus, _on("accuracy", "not within_margin")), ",")
    numbers.put("OutsideSkip", cite.count(
        versus, _on("accuracy", "not within_margin and allocation == 'skip_zero_signal'")), ",")
    higher = accuracy_rows[accuracy_rows["finding"] == Finding.HIGHER]
    numbers.put("HigherOracle", cite.count(versus, _on(
        "accuracy", f"finding == {Finding.HIGHER.value!r} and allocation == 'oracle_variance'")),
        ",")
    if len(higher):
        numbers.put("HigherLargest", cite.largest(higher, "difference"), "+.4f")
    numbers.put("Effect", cite.constant("analysis.prompts.seeds.EFFECT"), "g")
    numbers.put("SeedsNeeded", cite.largest(plan[plan["metric"] == "accuracy"],
                                            "seeds_for_effect"), ",")
    numbers.put("PassSeedsNeeded", cite.largest(plan[plan["metric"] == "pass_rate"],
                                                "seeds_for_effect"), ",")
    numbers.put_constant("PowerTarget", cite.constant("analysis.power.TARGET_POWER"), ".0%")
    numbers.put_constant("Target", cite.constant("analysis.budget_to_target.TARGET"), "g")
    numbers.put("Half", cite.constant("analysis.prompts.budget_to_target.HALF"), "g")
    numbers.put("FewerRolloutsOracle", cite.count(ratios, _on(
        "accuracy", f"{ESTIMABLE} and interval_against_one == 'below' and "
                    "allocation == 'oracle_variance'")), ",")
    for placement in Placement:
        numbers.put(f"Half{placement.value.capitalize()}", cite.count(ratios, _on(
            "accuracy", f"{ESTIMABLE} and interval_against_half == {placement.value!r}")), ",")
    numbers.put("CurveCut", settings.curve_cut, ",")
    for metric, name in (("accuracy", ""), ("pass_rate", "Pass")):
        fitted = curve[curve["metric"] == metric]
        numbers.put(f"{name}Fits", cite.count(curve, _on(metric)), ",")
        numbers.put(f"{name}PoorFits", cite.count(curve, _on(metric, "fit == 'poor'")), ",")
        numbers.put(f"{name}LargestResidual", cite.largest(fitted, "residual_rms"), ".3g")
        numbers.put(f"{name}LargestError", cite.largest(fitted, "standard_error"), ".2g")
        numbers.put(f"{name}HeldOut", cite.count(predictions, _on(metric)), ",")
        # The prediction against each held-out measurement (``analysis.prompts.
        # compute_curve``): below it, the measured mean lies above the curve.
        for placement in Placement:
            numbers.put(f"{name}Prediction{placement.value.capitalize()}", cite.count(
                predictions, _on(metric, f"prediction == {placement.value!r}")), ",")
    numbers.put("PoorFactor", cite.constant("analysis.prompts.compute_curve.POOR_FIT"), "g")
    curve = curve[curve["metric"] == "accuracy"]
    predictions = predictions[predictions["metric"] == "accuracy"]
    starts = starts[starts["metric"] == "accuracy"]
    # The first later first budget from which every headline fit is good, and its check.
    good = starts[(starts["poor_fits"] == 0) & (starts["failed_fits"] == 0)]
    first_good = good.iloc[0] if len(good) else None
    if len(starts):
        numbers.put("StartResamples", cite.first(starts).resamples, ",")
    if len(good):
        row = cite.first(good)
        numbers.put("GoodStart", row.first_budget, ",")
        numbers.put("GoodStartResidual", row.largest_residual, ".4f")
        for placement in Placement:
            column = f"prediction_{placement.value}"
            numbers.put(f"GoodStart{placement.value.capitalize()}", getattr(row, column), ",")
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    headline = settings.headline_baseline.value, settings.headline_group_size.value
    # The headline cells: the configured estimator and group size, per-group normalization.
    head_ratios = _headline(ratios[ratios["normalization"] == "per_group"], *headline)
    head_versus = _headline(accuracy_rows[accuracy_rows["normalization"] == "per_group"],
                            *headline)
    # Whether the figure's bands show: the caption says so where most are thinner than a line
    # (about THIN_BAND of accuracy on its axes).
    drawn = _headline(cite.read(study, "prompts_accuracy").query(
        "normalization == 'per_group'"), *headline)
    thin = bool((drawn["accuracy_high"] - drawn["accuracy_low"]).median() < THIN_BAND)
    at_target = head_ratios[(head_ratios["metric"] == "accuracy")
                            & (head_ratios["target"] == TARGET)]
    pass_rows_all = head_ratios[head_ratios["metric"] == "pass_rate"]
    at_pass_target = pass_rows_all[pass_rows_all["fraction"] == PASS_SHARE]
    numbers.put_constant("PassShare", cite.constant("analysis.pass_rate.FRACTIONS[0]"), "g")
    largest = versus["budget"].max()
    numbers.put("Largest", cite.largest(versus, "budget"), ",")
    laws = []
    for i, environment in enumerate(dict.fromkeys(versus["environment"])):
        key = f"Law{number_word(i + 1)}"
        rows = at_target[at_target["environment"] == environment]
        pass_rows = at_pass_target[at_pass_target["environment"] == environment]
        uniform = cite.first(rows[rows["allocation"] == REFERENCE])
        numbers.put(f"{key}Name", uniform.environment, shown=law)
        numbers.put(f"{key}Uniform", uniform.budget_to_target, ",.0f")
        numbers.put(f"{key}UniformLow", uniform.budget_low, ",.0f")
        numbers.put(f"{key}UniformHigh", uniform.budget_high, ",.0f")
        passing = cite.first(pass_rows[pass_rows["allocation"] == REFERENCE])
        numbers.put(f"{key}PassTarget", passing.target, ".3f")
        numbers.put(f"{key}PassUniform", passing.budget_to_target, ",.0f")
        if passing.reached.value:
            numbers.put(f"{key}PassUniformLow", passing.budget_low, ",.0f")
            numbers.put(f"{key}PassUniformHigh", passing.budget_high, ",.0f")
        rules = []
        for rule in rules_of(versus)[1:]:
            name = registry.allocation(rule).key
            # Three decimals on the pass rate: its intervals are often narrower than 0.01.
            reached, pass_reached = (
                _put_ratio(cite, numbers, frame[frame["allocation"] == rule], f"{key}{name}{part}",
                           spec)
                for frame, part, spec in ((rows, "", ".2f"), (pass_rows, "Pass", ".3f")))
            late = cite.first(head_versus[(head_versus["environment"] == environment)
                                          & (head_versus["allocation"] == rule)
                                          & (head_versus["budget"] == largest)])
            numbers.put(f"{key}{name}Difference", late.difference, "+.4f")
            numbers.put(f"{key}{name}DifferenceLow", late.difference_low, "+.4f")
            numbers.put(f"{key}{name}DifferenceHigh", late.difference_high, "+.4f")
            rules.append({"key": f"{key}{name}", "name": rule_name(rule), "reached": reached,
                          "pass_reached": pass_reached})
        laws.append({"key": key, "rules": rules,
                     "pass_reached": bool(passing.reached.value)})
    head_bands = _headline(bands[bands["normalization"] == "per_group"], *headline)
    late_bands = head_bands[head_bands["budget"] == largest]
    hardest, easiest = late_bands["band"].min(), late_bands["band"].max()
    numbers.put("Hardest", cite.smallest(late_bands, "band"), ",")
    numbers.put("Easiest", cite.largest(late_bands, "band"), ",")
    for law_entry, environment in zip(laws, dict.fromkeys(versus["environment"]), strict=True):
        for rule in rules_of(versus):
            name = registry.allocation(rule).key
            rows = late_bands[(late_bands["environment"] == environment)
                              & (late_bands["allocation"] == rule)]
            for end, band in (("Hardest", hardest), ("Easiest", easiest)):
                row = cite.first(rows[rows["band"] == band])
                numbers.put(f"{law_entry['key']}{name}{end}Share", row.rollout_share, ".3f")
                numbers.put(f"{law_entry['key']}{name}{end}ZeroSignal", row.zero_signal_share,
                            ".3f")
    accuracy_ratios = ratios[ratios["metric"] == "accuracy"]
    # The cells within the accuracy margin of uniform allocation at every budget compared, and
    # the largest of their accuracy budget ratios: a small accuracy difference where the curve
    # is flat is a large budget ratio.
    within = accuracy_rows.groupby("cell")["within_margin"].all()
    close = accuracy_ratios[accuracy_ratios["cell"].isin(within[within].index)
                            & accuracy_ratios["ratio_to_uniform"].notna()]
    if len(close):
        row = Row(close, close["ratio_to_uniform"].idxmax(), cite.ledger)
        numbers.put("WithinMarginRatio", row.ratio_to_uniform, ".2f")
        numbers.put("WithinMarginRatioLow", row.ratio_low, ".2f")
        numbers.put("WithinMarginRatioHigh", row.ratio_high, ".2f")
        numbers.put("WithinMarginRule", row.allocation, shown=rule_name)
        numbers.put("WithinMarginLaw", row.environment, shown=law)
        numbers.put("WithinMarginGroupSize", row.group_size, ",")
    return {"laws": laws, "higher": bool(len(higher)), "one": cite.declared("1"),
            "zero": cite.declared("0"),
            "verdicts": _verdicts(cite, verdicts), "close": bool(len(close)),
            "fewer": bool((accuracy_ratios["interval_against_one"] == Placement.BELOW).any()),
            "halved": bool((accuracy_ratios["interval_against_half"] == Placement.BELOW).any()),
            "understates": bool((predictions["prediction"] == Placement.BELOW).all()),
            "unresolved": bool((predictions["prediction"] == Placement.UNRESOLVED).any()),
            "has_starts": bool(len(starts)),
            "thin_bands": thin,
            "good_start": first_good is not None,
            "good_start_unresolved": first_good is not None
            and bool(first_good["prediction_unresolved"] > 0),
            "good_start_understates": first_good is not None
            and bool(first_good["prediction_below"] > 0),
            "starts": starts[STARTS],
            "formula": cite.literal("R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B)"),
            "r0": cite.literal("R0"),
            "baseline": baseline_name(settings.headline_baseline.value),
            "rules": ", ".join(rule_name(r) for r in rules_of(versus)[1:]),
            "ratios": at_target[RATIOS], "pass_ratios": pass_rows_all[PASS_RATIOS],
            "curve": curve[CURVE],
            "spenders": [{"key": registry.allocation(rule).key, "name": rule_name(rule)}
                         for rule in rules_of(versus)],
            "bands": late_bands[BANDS]}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The section's figure from the study's tables in ``tables``, for the headline cells, one
    column per difficulty law: top, mean accuracy against rollouts, a colour per rule, with its
    95% interval band; second, each rule's paired difference in pass rate from uniform
    allocation, per-group normalization solid and per-batch dashed, with its 95% interval band;
    third, each band's share of the rollouts at the largest budget (bars
    with 95% intervals, the hardest band, 0, first); bottom, the compute curve fitted up to the cut
    (solid) and extrapolated (dashed), with the measured means (filled: fitted, hollow: held
    out)."""
    name = figure_name(study, SECTION.figures[0])
    settings = pd.read_parquet(tables / f"{SETTINGS}.parquet").iloc[0]

    def head(table: str) -> pd.DataFrame:
        frame = pd.read_parquet(tables / f"{table}.parquet")
        return _headline(frame[frame["normalization"] == "per_group"],
                         settings["headline_baseline"], settings["headline_group_size"])

    accuracy, bands = head("prompts_accuracy"), head("prompts_bands")
    curve = head("prompts_curve").query("metric == 'accuracy'")
    versus = pd.read_parquet(tables / f"{SECTION.table}.parquet")
    passing = _headline(versus[versus["metric"] == "pass_rate"], settings["headline_baseline"],
                        settings["headline_group_size"])
    laws = list(dict.fromkeys(accuracy["environment"]))
    rules = rules_of(versus)
    colours = dict(zip(rules, OKABE_ITO, strict=False))
    figure, axes = plt.subplots(4, len(laws), figsize=(3.4 * len(laws), 11.2),
                                layout="constrained", squeeze=False)
    largest = bands["budget"].max()
    width = 0.8 / len(rules)
    for column, environment in enumerate(laws):
        top, gained, middle, bottom = axes[:, column]
        gained.axhline(0.0, color="0.5", linewidth=0.6)
        for i, rule in enumerate(rules):
            colour = colours[rule]
            rows = accuracy[(accuracy["environment"] == environment)
                            & (accuracy["allocation"] == rule)].sort_values("budget")
            # Each rule its own marker and dash as well as colour: the curves lie close.
            top.plot(rows["budget"], rows["accuracy"], color=colour, linewidth=1.2,
                     marker="osD^v<>"[i % 7], markersize=3,
                     linestyle=("-", "--", "-.", ":")[i % 4], label=rule_name(rule))
            top.fill_between(rows["budget"], rows["accuracy_low"], rows["accuracy_high"],
                             color=colour, alpha=BAND_ALPHA, linewidth=0)
            for normalization, dash in (("per_group", "-"), ("per_batch", "--")):
                paired = passing[(passing["environment"] == environment)
                                 & (passing["allocation"] == rule)
                                 & (passing["normalization"] == normalization)
                                 ].sort_values("budget")
                gained.plot(paired["budget"], paired["difference"], color=colour,
                            linewidth=1.2, linestyle=dash)
                gained.fill_between(paired["budget"], paired["difference_low"],
                                    paired["difference_high"], color=colour, alpha=BAND_ALPHA,
                                    linewidth=0)
            shares = bands[(bands["environment"] == environment) & (bands["allocation"] == rule)
                           & (bands["budget"] == largest)].sort_values("band")
            x = shares["band"] + (i - (len(rules) - 1) / 2) * width
            middle.bar(x, shares["rollout_share"], width=width, color=colour,
                       yerr=[shares["rollout_share"] - shares["rollout_share_low"],
                             shares["rollout_share_high"] - shares["rollout_share"]],
                       error_kw={"linewidth": 0.7, "capsize": 1.5})
            fit = curve[(curve["environment"] == environment) & (curve["allocation"] == rule)]
            if len(fit) and np.isfinite(fit["asymptote"].iat[0]):
                fit = fit.iloc[0]
                grid = np.geomspace(rows["budget"].min(), rows["budget"].max(), 200)
                predicted = scaling_curve(grid, fit["start"], fit["asymptote"],
                                          fit["steepness"], fit["midpoint"])
                inside = grid <= settings["curve_cut"]
                bottom.plot(grid[inside], predicted[inside], color=colour, linewidth=1.2)
                bottom.plot(grid[~inside], predicted[~inside], color=colour, linewidth=1.2,
                            linestyle="--")
            fitted = rows["budget"] <= settings["curve_cut"]
            bottom.plot(rows["budget"][fitted], rows["accuracy"][fitted], "o", color=colour,
                        markersize=3)
            bottom.plot(rows["budget"][~fitted], rows["accuracy"][~fitted], "o", color=colour,
                        markersize=4, markerfacecolor="white")
        top.set_title(law(environment))
        middle.set_xticks(sorted(bands["band"].unique()))
        middle.set_xlabel("difficulty band (0: hardest quarter of prompts)")
        for ax in (top, gained, bottom):
            ax.set_xscale("log")
            ax.set_xlabel("budget C: rollouts, all prompts (log scale)")
        bottom.axvline(settings["curve_cut"], color="0.6", linewidth=0.6, linestyle=":")
    axes[0, 0].set_ylabel("mean accuracy over prompts")
    axes[1, 0].set_ylabel("pass rate minus uniform's\n(solid per group, dashed per batch)")
    axes[2, 0].set_ylabel(f"share of rollouts at {largest:,}")
    axes[3, 0].set_ylabel("mean accuracy; fitted\ncompute curve")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=len(rules))
    return {name: save(figure, out_dir, name)}
