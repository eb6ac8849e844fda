"""The KL term and its estimators (``analysis.questions.kl_estimators``, with the tests of
``analysis.questions.kl_term``): an off-policy study whose runs record the estimators' gradient
errors gets this section (each estimator's bias and RMS against the exact gradient by the
policy's state, and what a KL term estimated each way does to the pass rate, accuracy and
collapse), its figure (bias and RMS per state, a colour per estimator) and its paragraph of the
paper."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.families import plain
from analysis.roles import Finding, PolicyState
from figures.cite import Tables, read_table
from figures.claims import distinct, families, figure_name
from figures.numbers import Scope, macro_name
from figures.paired_findings import DISTINCT, name_budget_verdicts, present, stratum_word
from figures.sections import Section
from figures.sections.staleness import with_ratios
from figures.style import OKABE_ITO, outside_legend, save
from figures.words import baseline_name

SECTION = Section(table="kl_estimators", title="Off-policy rollouts: KL estimators and the KL term",
                  template="kl.md.j2", order=16, figures=("kl_estimators",),
                  paper="kl.typ.j2")

SHOWN = ["environment", "lr", "lag", "state", "estimator", "runs", "bias", "bias_low",
         "bias_high", "rms", "rms_low", "rms_high"]
"""The columns of the section's table of estimator errors."""
TESTS = ["environment", "lr", "lag", "kl_beta", "kl_estimator", "metric", "budget", "mean_a",
         "mean_b", "difference", "ci_low", "ci_high", "p_value_holm", "finding"]
"""The columns of the section's table of the KL term's tests."""
BUDGETS = ["environment", "lr", "lag", "kl_beta", "kl_estimator", "metric", "target",
           "budget_a", "reached_a", "budget_b", "reached_b", "ratio [95%]", "equivalence"]
"""The columns of the section's table of the KL term's budget ratios
(``figures.sections.staleness.with_ratios``)."""
ROUNDING = 1e-12
"""A mean bias norm below this is a double's rounding in the sums of a few probabilities that
are at most 1, not a bias (their ulp is about 2e-16)."""


def _word(name: str) -> str:
    """An estimator or state in the names of its numbers: ``k3_is`` -> ``KThreeIs``."""
    return macro_name(*name.replace("1", "_one").replace("3", "_three").split("_"))


def _headline(frame: pd.DataFrame, settings: pd.Series) -> pd.DataFrame:
    """The rows of ``frame`` at the headline estimator (the whole tables are the study's)."""
    return frame[frame["baseline"] == settings["headline_baseline"]]


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Per estimator and state, the smallest and largest mean bias and RMS over the cells; the
    KL term's findings per estimator and metric; the families and the tables."""
    errors = cite.read(study, SECTION.table)
    settings = cite.read(study, "settings").iloc[0]
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put_constant("LevelNinety", cite.constant("1 - 2 * analysis.families.ALPHA"), ".0%")
    numbers.put_constant("Target", cite.constant("analysis.budget_to_target.TARGET"), "g")
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    numbers.put_constant("OffPolicyCollapsedMass",
                         cite.constant("1 - analysis.offpolicy.COLLAPSED"), "g")
    numbers.put_constant("StuckWrongMass", cite.constant("analysis.stuck.STUCK_WRONG_MASS"),
                         "g")
    estimators = list(dict.fromkeys(errors["estimator"]))
    states = [s for s in PolicyState if (errors["state"] == s).any()]
    ranges: list[str] = []
    for estimator, state in itertools.product(estimators, states):
        rows = errors[(errors["estimator"] == estimator) & (errors["state"] == state)]
        stem = f"{_word(estimator)}{_word(state.value)}"
        for column, word in (("bias", "Bias"), ("rms", "Rms")):
            smallest, largest = cite.smallest(rows, column), cite.largest(rows, column)
            numbers.put(f"{stem}{word}From", smallest, ".2g")
            # One cell's value is named once (a state a single cell reaches).
            if largest.source != smallest.source:
                numbers.put(f"{stem}{word}To", largest, ".2g")
                ranges.append(f"{stem}{word}")
    context: dict[str, Any] = {
        "estimators": [{"name": cite.literal(e), "word": _word(e)} for e in estimators],
        "k1": cite.literal("k1"), "k3": cite.literal("k3"), "k3_is": cite.literal("k3_is"),
        "factor": cite.literal("1 - 1 / (K pi)"),
        "states": [{"name": s.value, "word": _word(s.value)} for s in states],
        "lrs": distinct(cite, errors, "lr"), "lags": distinct(cite, errors, "lag"),
        "headline": baseline_name(settings["headline_baseline"]),
        "deepseek": cite.literal("DeepSeek V3.2"),
        "table": _headline(errors, settings)[SHOWN], "term": None, "ranges": ranges,
        "unbiased": [e for e in estimators
                     if errors.loc[errors["estimator"] == e, "bias"].max() < ROUNDING]}
    term = cite.read(study, "kl_term")
    if term is not None:
        # An estimator's effect differs in direction by learning rate: counted per lr, never
        # pooled over them.
        lrs = [{"value": value, "word": stratum_word(i), "raw": raw} for i, (value, raw) in
               enumerate(zip(distinct(cite, term, "lr"), sorted(term["lr"].unique()),
                             strict=True))]
        for one in lrs:
            numbers.put(f"TermLr{one['word']}", one["value"], "g")
        for metric, word in present(term).items():
            at = f"metric == {metric!r} and {DISTINCT}"
            numbers.put(f"Term{word}Rows", cite.count(term, at), ",")
            for finding, estimator, one in itertools.product(Finding, dict.fromkeys(
                    term["kl_estimator"]), lrs):
                numbers.put(f"Term{word}{finding.value.capitalize()}{_word(estimator)}"
                            f"{one['word']}",
                            cite.count(term, f"{at} and kl_estimator == {estimator!r} and "
                                       f"lr == {plain(one['raw'])} and "
                                       f"finding == {finding.value!r}"), ",")
        numbers.put("TermPerEstimator", cite.count(
            term, f"metric == 'pass_rate' and {DISTINCT} and "
            f"kl_estimator == {term['kl_estimator'].iat[0]!r} and "
            f"lr == {plain(lrs[0]['raw'])}"), ",")
        numbers.put("TermPassRateMargin", cite.first(term.query("metric == 'pass_rate'")).margin,
                    "g")
        estimators = [{"name": e, "word": _word(e)} for e in dict.fromkeys(term["kl_estimator"])]
        budgets = cite.read(study, "kl_term_budgets")
        name_budget_verdicts(cite, numbers, budgets, "TermBudget", estimators,
                             column="kl_estimator")
        context["term"] = {
            "lrs": [{"value": one["value"], "word": one["word"]} for one in lrs],
            "estimators": [{"name": cite.literal(e["name"]), "word": e["word"]}
                           for e in estimators],
            "budgets": with_ratios(cite, _headline(budgets, settings))[BUDGETS],
            "betas": distinct(cite, term, "kl_beta"),
            "compared": distinct(cite, term, "budget"),
            "families": {metric: families(cite, term.query(f"metric == {metric!r}"))
                         for metric in present(term)},
            "equivalence": families(cite, term, "equivalence_family"),
            "table": _headline(term, settings)[TESTS]}
    return context


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Each estimator's mean bias norm and RMS error against the exact gradient (log scale) per
    state, a colour per estimator, a marker per lag, 95% bars, at the headline estimator: a
    row per measure, a column per bandit and lr."""
    errors = read_table(tables, SECTION.table)
    settings = read_table(tables, "settings").iloc[0]
    rows = _headline(errors, settings)
    panels = list(itertools.product(dict.fromkeys(rows["environment"]), sorted(
        rows["lr"].unique())))
    estimators = list(dict.fromkeys(rows["estimator"]))
    lags = sorted(rows["lag"].unique())
    states = [s for s in PolicyState if (rows["state"] == s).any()]
    figure, axes = plt.subplots(2, len(panels), figsize=(3.0 * len(panels), 5.0), squeeze=False,
                                sharex=True, layout="constrained")
    for (r, measure), (c, (environment, lr)) in itertools.product(
            enumerate(("bias", "rms")), enumerate(panels)):
        ax = axes[r][c]
        for (i, estimator), (j, lag) in itertools.product(enumerate(estimators),
                                                          enumerate(lags)):
            chosen = rows[(rows["environment"] == environment) & (rows["lr"] == lr)
                          & (rows["estimator"] == estimator) & (rows["lag"] == lag)]
            x = [states.index(s) + 0.1 * (len(lags) * i + j - 2.5) for s in chosen["state"]]
            low = (chosen[measure] - chosen[f"{measure}_low"]).fillna(0.0)
            high = (chosen[f"{measure}_high"] - chosen[measure]).fillna(0.0)
            ax.errorbar(x, chosen[measure], yerr=np.vstack([low, high]), color=OKABE_ITO[i],
                        marker="os^"[j % 3], markersize=4, capsize=2, linestyle="none",
                        label=f"{estimator}, lag {lag:g}")
        ax.set_yscale("log")
        ax.set_xticks(range(len(states)), [s.value for s in states])
        if r == 0:
            ax.set_title(f"{environment}, lr {lr:g}", fontsize="small")
        else:
            ax.set_xlabel("policy state")
        if c == 0:
            ax.set_ylabel("mean bias norm (log scale)" if measure == "bias"
                          else "RMS error (log scale)")
    outside_legend(figure, axes[0][0], title="estimator, sampler")
    name = figure_name(study, SECTION.figure)
    return {name: save(figure, out_dir, name)}
