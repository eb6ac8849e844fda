"""Answers that cost tokens: a study whose answers have lengths gets the price of its length
penalty (the frontier of pass rate against tokens per answer at the largest budget), the drift
of the answers' length where nothing penalises it, what lifting the penalty late buys against
keeping it and against never using it (``analysis.questions.speciale``), and whether the penalty
buys stability (``analysis.questions.length_stability``, tested in
``analysis.questions.length_stability_tests``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.families import plain
from analysis.questions.length_price import alongside
from analysis.roles import Finding, Schedule
from figures.cite import Tables, read_table
from figures.claims import distinct, families, figure_name
from figures.numbers import Named, Scope, macro_name, number_word
from figures.sections import Section
from figures.style import BAND_ALPHA, OKABE_ITO, outside_legend, save
from figures.words import answers, baseline_name

SECTION = Section(table="length_price",
                  title="Answers that cost tokens: the price of a length penalty",
                  template="length.md.j2", order=14,
                  figures=("length_frontier", "length_drift", "length_speciale"),
                  paper="length.typ.j2")

PRICE = ["environment", "baseline", "penalty", "penalty_until", "budget", "tokens", "rollouts",
         "pass_rate", "pass_rate_low", "pass_rate_high", "expected_length",
         "expected_length_low", "expected_length_high", "accuracy", "accuracy_low",
         "accuracy_high"]
"""The columns of the table of prices."""
SPECIALE = ["environment", "baseline", "penalty", "penalty_until", "against", "metric", "budget",
            "difference", "ci_low", "ci_high", "p_value_holm", "finding", "within_margin"]
"""The columns of the table of the penalty lifted late."""
BUDGETS = ["environment", "baseline", "penalty", "fraction", "target", "tokens", "tokens_low",
           "tokens_high", "tokens_reached", "rollouts", "rollouts_low", "rollouts_high",
           "rollouts_reached", "fewer_tokens", "more_tokens", "more_rollouts"]
"""The columns of the table of budgets to a pass-rate target in tokens and in rollouts."""
STABILITY = ["environment", "baseline", "penalty", "penalty_until", "seeds", "pass_rate_sd",
             "pass_rate_sd_low", "pass_rate_sd_high", "collapsed", "collapsed_low",
             "collapsed_high", "optimum_passes_best"]
"""The columns of the table of stability."""
STABILITY_TESTS = ["environment", "baseline", "penalty", "metric", "optimum_passes_best",
                   "collapsed_a", "collapsed_b", "difference", "ci_low", "ci_high",
                   "p_value_holm", "finding", "lower_possible"]
"""The columns of the table of stability's tests against no penalty."""
VARIANCE = "metric == 'pass_rate_variance'"
COLLAPSE = "metric == 'collapsed'"
"""The queries of the stability tests' two families."""


KEPT = "penalty_until == 1.0"
"""The query of the rows of cells whose penalty is never lifted."""


def _kept(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of cells whose penalty is never lifted (``KEPT``)."""
    return frame.query(KEPT)


def _stratum(tables: Callable[[str], pd.DataFrame | None], headline: int
             ) -> tuple[list[str], Callable[[pd.DataFrame | None], pd.DataFrame | None]]:
    """The columns by which a composed study's length tables differ besides the penalty (the
    verdict's rates and the sampler: ``analysis.questions.length_price.alongside``; none in a
    study of the penalty alone), and a filter to the rows of the headline cell's values of
    them: the section's figures and numbers describe that stratum, the tables hold the others."""
    price = tables(SECTION.table)
    keys = alongside(price)
    if not keys:
        return keys, lambda frame: frame
    rows = price[price["cell"] == headline]
    head = (rows if len(rows) else price).iloc[0]

    def within(frame: pd.DataFrame | None) -> pd.DataFrame | None:
        if frame is None:
            return None
        shared = [k for k in keys if k in frame]
        return frame[(frame[shared] == head[shared]).all(axis=1)] if shared else frame
    return keys, within


def _bandit(environment: str) -> str:
    """A cell's bandit without its reward model: the arm values and lengths."""
    values, *rest = environment.split(" ")
    return " ".join([values, *(word for word in rest if "(" not in word or "lengths" in word)])


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Named per bandit (``One``, ``Two``, ... in the tables' order), at the headline estimator:
    the drift of the length without a penalty (``DriftFrom``, ``DriftTo``: the expected length
    at the first and largest budgets, with ``Low`` and ``High``; ``DriftPassRate`` at the
    largest); the Speciale comparisons' counts by partner, metric and finding; the penalised
    rows more collapsed than no penalty's; and the tables."""
    settings = cite.read(study, "settings").iloc[0]
    stratum, within = _stratum(lambda name: cite.read(study, name), settings["headline_cell"])
    price = within(cite.read(study, SECTION.table))
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put_constant("CollapsedMass",
                         cite.constant("1 - analysis.questions.length_stability.COLLAPSED"), "g")
    largest = price["budget"].max()
    numbers.put("Largest", cite.largest(price, "budget"), ",")
    headline = cite.read(study, "settings").iloc[0]["headline_baseline"]
    free = _kept(price[(price["penalty"] == 0.0) & (price["baseline"] == headline)])
    words = []
    for i, (_, rows) in enumerate(free.groupby("environment", sort=False), start=1):
        word = number_word(i)
        words.append(word)
        first, last = cite.first(rows), cite.last(rows)
        numbers.put(f"Arms{word}", first.environment, shown=answers)
        numbers.put(f"DriftFromBudget{word}", first.budget, ",")
        for name, row, column, spec in (
                (f"DriftFrom{word}", first, "expected_length", ".2f"),
                (f"DriftTo{word}", last, "expected_length", ".2f"),
                (f"DriftPassRate{word}", last, "pass_rate", ".4f")):
            for suffix, limit in (("", ""), ("Low", "_low"), ("High", "_high")):
                numbers.put(name + suffix, row[column + limit], spec)
    speciale = within(cite.read(study, "speciale"))
    lifted = None
    if speciale is not None:
        for against in Schedule:
            for metric in ("pass_rate", "expected_length"):
                where = f"against == {against.value!r} and metric == {metric!r}"
                stem = macro_name("Lifted", *metric.split("_"), "Against", *against.split("_"))
                numbers.put(stem, cite.count(speciale, where), "")
                for finding in Finding:
                    numbers.put(stem + finding.value.capitalize(), cite.count(
                        speciale, f"{where} and finding == {finding.value!r}"), "")
                for finding in (Finding.HIGHER, Finding.LOWER):
                    numbers.put(stem + finding.value.capitalize() + "WithinMargin", cite.count(
                        speciale, f"{where} and finding == {finding.value!r} and within_margin"),
                                "")
        numbers.put("GroupSize", cite.first(speciale).group_size, "")
        numbers.put("LiftedMargin",
                    cite.first(speciale[speciale["metric"] == "pass_rate"]).margin, "g")
        lifted = {"families": families(cite, speciale),
                  "equivalence": families(cite, speciale, "equivalence_family"),
                  "table": speciale[SPECIALE]}
    stability = within(cite.read(study, "length_stability"))
    kept = _kept(stability)
    tests = within(cite.read(study, "length_stability_tests"))
    numbers.put("StabilitySeeds", cite.first(stability).seeds, ",")
    numbers.put_constant("StuckWrongMass", cite.constant("analysis.stuck.STUCK_WRONG_MASS"), "g")
    numbers.put("PenalisedRows", cite.count(tests, VARIANCE), "")
    numbers.put("StabilityPairs", cite.first(tests.query(VARIANCE)).pairs, ",")
    numbers.put("UnpenalisedMostCollapsed", cite.largest(tests, "collapsed_b"), "")
    for name, where in (("LowerSpread", f"{VARIANCE} and finding == 'lower'"),
                        ("HigherSpread", f"{VARIANCE} and finding == 'higher'"),
                        ("MoreCollapsed", f"{COLLAPSE} and finding == 'higher'"),
                        ("FewerCollapsed", f"{COLLAPSE} and finding == 'lower'"),
                        ("MoreCollapsedOptimumPasses", f"{COLLAPSE} and finding == 'higher' "
                         "and optimum_passes_best == True"),
                        ("MoreCollapsedOntoOptimum", f"{COLLAPSE} and finding == 'higher' "
                         "and optimum_passes_best == False"),
                        ("MoreStuck", "metric == 'stuck' and finding == 'higher'"),
                        ("FewerStuck", "metric == 'stuck' and finding == 'lower'"),
                        ("MoreStuckOptimumPasses", "metric == 'stuck' and finding == 'higher' "
                         "and optimum_passes_best == True"),
                        ("MoreStuckOntoOptimum", "metric == 'stuck' and finding == 'higher' "
                         "and optimum_passes_best == False")):
        numbers.put(name, cite.count(tests, where), "")
    budgets = within(cite.read(study, "length_budgets"))
    shares = budgets["fraction"].max()
    numbers.put("BudgetFraction", cite.largest(budgets, "fraction"), ".0%")
    at = f"fraction == {plain(shares)} and penalty > 0.0 and {KEPT}"
    numbers.put("BudgetPenalised", cite.count(budgets, at), "")
    numbers.put("BudgetPenalisedReached", cite.count(budgets, f"{at} and tokens_reached"), "")
    numbers.put("FewerTokens", cite.count(budgets, f"{at} and fewer_tokens"), "")
    numbers.put("MoreTokens", cite.count(budgets, f"{at} and more_tokens"), "")
    numbers.put("FewerTokensMoreRollouts",
                cite.count(budgets, f"{at} and fewer_tokens and more_rollouts"), "")
    # Whether these seeds could show any penalised cell lower at all (``lower_possible``), and
    # if not, the most the runs leave room for: the unpenalised cells' upper limits.
    unpenalised = f"penalty == 0.0 and {KEPT}"
    numbers.put("UnpenalisedCollapsedHigh",
                cite.largest(stability.query(unpenalised), "collapsed_high"), ".3f")
    numbers.put("UnpenalisedSdHigh",
                cite.largest(stability.query(unpenalised), "pass_rate_sd_high"), ".3f")
    lower_impossible = {metric: not bool(tests.query(where)["lower_possible"].any())
                        for metric, where in (("variance", VARIANCE), ("collapse", COLLAPSE))}
    return {"words": words, "lifted": lifted, "lower_impossible": lower_impossible,
            "stratum": [f"`{key}`" for key in stratum],
            "rloo": cite.literal("G/(G - 1)"),
            "betting": cite.literal("Waudby-Smith and Ramdas, 2024"),
            # The paper's other figures (the report's template names them by stem).
            "drift_figure": figure_name(study, SECTION.figures[1]),
            "speciale_figure": figure_name(study, SECTION.figures[2]),
            "budgets": _kept(budgets[budgets["fraction"] == shares])[BUDGETS],
            "lambdas": [Named(v, "g") for v in distinct(cite, price, "penalty")],
            "price": lambda: _kept(price[price["budget"] == largest])[PRICE],
            "stability": kept[STABILITY], "stability_tests": tests[STABILITY_TESTS],
            "stability_families": families(cite, tests), "headline": baseline_name(headline)}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The frontier (pass rate against expected answer length at the largest budget, a point per
    lambda with both 95% intervals, a colour per estimator, the penalty never lifted) and the
    drift (expected answer length against tokens spent, without a penalty, with its 95% band),
    one panel per bandit."""
    settings = read_table(tables, "settings")
    _, within = _stratum(lambda name: read_table(tables, name),
                         settings["headline_cell"].iat[0])
    price = within(read_table(tables, SECTION.table))
    kept = _kept(price).assign(bandit=lambda f: f["environment"].map(_bandit))
    bandits = list(dict.fromkeys(kept["bandit"]))
    estimators = list(dict.fromkeys(kept["baseline"]))
    colours = dict(zip(estimators, OKABE_ITO, strict=False))
    found = {}
    name = figure_name(study, SECTION.figures[0])
    figure, axes = plt.subplots(1, len(bandits), figsize=(3.6 * len(bandits), 3.4),
                                squeeze=False, layout="constrained")
    largest = kept[kept["budget"] == kept["budget"].max()]
    for ax, one in zip(axes[0], bandits, strict=True):
        for first, estimator in enumerate(estimators):
            rows = largest[(largest["bandit"] == one)
                           & (largest["baseline"] == estimator)].sort_values("penalty")
            ax.errorbar(rows["expected_length"], rows["pass_rate"],
                        xerr=_bars(rows, "expected_length"), yerr=_bars(rows, "pass_rate"),
                        color=colours[estimator], marker="o", markersize=4, capsize=2,
                        linewidth=0.8, label=baseline_name(estimator))
            # One label per lambda: the estimators' points lie on top of each other.
            for row in rows.itertuples() if first == 0 else ():
                ax.annotate(f"{row.penalty:g}", (row.expected_length, row.pass_rate),
                            textcoords="offset points", xytext=(5, -10), fontsize=7)
        ax.set_title(answers(rows["environment"].iat[0]), fontsize="small")
        ax.set_xlabel("expected answer length (tokens)")
    axes[0][0].set_ylabel("pass rate at the largest budget")
    outside_legend(figure, axes[0][0], title="estimator (labels: lambda)")
    found[name] = save(figure, out_dir, name)
    name = figure_name(study, SECTION.figures[1])
    figure, axes = plt.subplots(1, len(bandits), figsize=(3.6 * len(bandits), 3.2),
                                squeeze=False, layout="constrained")
    free = kept[kept["penalty"] == 0.0]
    for ax, one in zip(axes[0], bandits, strict=True):
        for estimator in estimators:
            rows = free[(free["bandit"] == one) & (free["baseline"] == estimator)]
            ax.plot(rows["tokens"], rows["expected_length"], color=colours[estimator],
                    marker="o", markersize=3, label=baseline_name(estimator))
            ax.fill_between(rows["tokens"], rows["expected_length_low"],
                            rows["expected_length_high"], color=colours[estimator],
                            alpha=BAND_ALPHA, linewidth=0)
        ax.set_xscale("log")
        ax.set_title(answers(rows["environment"].iat[0]), fontsize="small")
        ax.set_xlabel("tokens spent (log scale)")
    axes[0][0].set_ylabel("expected answer length (tokens)")
    outside_legend(figure, axes[0][0], title="no penalty")
    found[name] = save(figure, out_dir, name)
    speciale = within(read_table(tables, "speciale"))
    if speciale is not None and len(speciale):
        name = figure_name(study, SECTION.figures[2])
        found[name] = _speciale(speciale, settings, out_dir, name)
    return found


def _speciale(speciale: pd.DataFrame, settings: pd.DataFrame, out_dir: Path,
              name: str) -> list[Path]:
    """The lifted cells minus their partners at the largest budget, at the headline estimator:
    a row per metric, a column per bandit, lambda along x, a colour per partner, a marker per
    share at which the penalty is lifted, 95% bars."""
    rows = speciale[(speciale["baseline"] == settings["headline_baseline"].iat[0])
                    & (speciale["budget"] == speciale["budget"].max())].assign(
        bandit=lambda f: f["environment"].map(_bandit))
    bandits = list(dict.fromkeys(rows["bandit"]))
    metrics = list(dict.fromkeys(rows["metric"]))
    penalties = sorted(rows["penalty"].unique())
    shares = sorted(rows["penalty_until"].unique())
    partners = list(dict.fromkeys(rows["against"]))
    figure, axes = plt.subplots(len(metrics), len(bandits), figsize=(4.0 * len(bandits),
                                                                      2.7 * len(metrics)),
                                squeeze=False, sharex=True, layout="constrained")
    for (r, metric), (c, one) in itertools.product(enumerate(metrics), enumerate(bandits)):
        ax = axes[r][c]
        ax.axhline(0.0, color="0.35", linewidth=0.8, linestyle="--")
        for (i, partner), (j, share) in itertools.product(enumerate(partners),
                                                          enumerate(shares)):
            chosen = rows[(rows["bandit"] == one) & (rows["metric"] == metric)
                          & (rows["against"] == partner) & (rows["penalty_until"] == share)]
            x = [penalties.index(v) + 0.12 * (2 * i + j - 1.5) for v in chosen["penalty"]]
            ax.errorbar(x, chosen["difference"],
                        yerr=np.vstack([chosen["difference"] - chosen["ci_low"],
                                        chosen["ci_high"] - chosen["difference"]]),
                        color=OKABE_ITO[i], marker="os"[j], markersize=4, capsize=2,
                        linestyle="none",
                        label=f"minus {str(partner).replace('_', ' ')}, lifted at {share:g}")
        ax.set_xticks(range(len(penalties)), [f"{v:g}" for v in penalties])
        if r == 0:
            ax.set_title(answers(rows[rows["bandit"] == one]["environment"].iat[0]).replace(
                " with ", "\nwith "), fontsize="small")
        if r == len(metrics) - 1:
            ax.set_xlabel("lambda")
        if c == 0:
            ax.set_ylabel(("pass rate" if metric == "pass_rate" else "expected length (tokens)")
                          + " difference")
    outside_legend(figure, axes[0][0], title="penalty lifted late")
    return save(figure, out_dir, name)


def _bars(rows: pd.DataFrame, column: str) -> np.ndarray:
    """Error bar lengths below and above ``column`` from its interval (0 where it has none)."""
    low = (rows[column] - rows[f"{column}_low"]).fillna(0.0)
    high = (rows[f"{column}_high"] - rows[column]).fillna(0.0)
    return np.vstack([low.to_numpy(), high.to_numpy()])
