"""The parts of a run as a whole (``analysis.prompts.factorial``): a study whose cells are a
fractional factorial's rows gets this section (each part's effect and every interaction the
families show, per stratum, and the design's aliasing), its figures (each part's main effect
with its interval per metric; the largest interactions per stratum) and its paragraph of the
paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.families import ALPHA
from analysis.questions import SETTINGS
from figures.cite import Tables, read_table
from figures.claims import (
    difficulty_ranges,
    families,
    figure_name,
    printed,
    tenth_ranges,
    with_intervals,
)
from figures.numbers import Named, Scope, macro_name
from figures.sections import Section
from figures.style import OKABE_ITO, REFERENCE, outside_legend, save
from study.model.config import CHOSEN_AFTER_RUN
from study.model.design import ROLES

SECTION = Section(table="factorial_effects",
                  title="The protocol as a whole: what each part is worth",
                  template="factorial.md.j2", order=19,
                  figures=("factorial_effects", "factorial_strata", "factorial_difficulty"),
                  paper="factorial.typ.j2")
PRIMARY = "served_pass_rate"
"""The metric the section's verdicts lead with (``analysis.prompts.factorial.METRICS``)."""
DIFFERENCE = "+.5f"
"""How an effect and its interval's limits are printed: on tens of thousands of prompts an
interval can be a few hundred-thousandths wide."""
INTERVAL = "difference [95%, five decimals]"
"""The tables' column of an effect with its interval, which names its precision."""
WORDS = {"served_pass_rate": "served pass rate", "accuracy": "best-arm accuracy",
         "stuck": "share of stuck prompts", "expected_length": "expected answer length (tokens)"}
"""Each metric as an axis and the prose name it."""
SHOWN_INTERACTIONS = 4
"""The interactions on the primary metric the section reads per stratum: the largest in size
among those its family shows (every one is in the table ``factorial_strata``)."""
RATIO_TICKS = (0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0)
"""Where the ratio panel's log axis is labelled (those within the ratios' range)."""
SHOWN = ["metric", "budget", "term", INTERVAL, "p_value_holm", "finding",
         "within_margin"]
"""The columns of the section's tables of effects: the finding in neutral words (``higher``: the
high level raises the metric, for the stuck share more stuck prompts) and whether its 90%
interval lies within the metric's margin (false where none was stated)."""


def _at(effects: pd.DataFrame, metric: str, budget: int, order: int) -> pd.DataFrame:
    return effects[(effects["metric"] == metric) & (effects["budget"] == budget)
                   & (effects["order"] == order)]


def _with_difference(cite: Tables, rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of effects or pairs with their difference and its interval as one column."""
    return with_intervals(cite, rows, DIFFERENCE, **{
        INTERVAL: ("difference", "difference_low", "difference_high")})


def _word(*names: str) -> str:
    """Names of parts or metrics as one CamelCase word of a named number."""
    return macro_name(*(part for name in names for part in name.split("_")))


def _reversals(strata: pd.DataFrame | None, budget: int) -> dict[str, list[str]]:
    """Per part, the parts at whose two levels its effect on the primary metric at ``budget``
    has opposite signs (among the interactions its family shows, ``factorial_strata``)."""
    if strata is None:
        return {}
    rows = strata[(strata["metric"] == PRIMARY) & (strata["budget"] == budget)]
    found: dict[str, list[str]] = {}
    for (factor, other), pair in rows.groupby(["factor", "stratum"], sort=False):
        if pair["effect"].min() < 0 < pair["effect"].max():
            found.setdefault(factor, []).append(other)
    return found


def _named(cite: Tables, rows: pd.DataFrame, numbers: Scope,
           reversals: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Each row's term with its effect and interval as the templates print them, the effect
    also named ``FactorialServed<Term>`` for the paper, and the parts at whose levels its sign
    reverses (``reversals``)."""
    found = []
    for r in cite.rows(rows):
        word = _word(r.term.value)
        numbers.put(f"FactorialServed{word}", r.difference, DIFFERENCE)
        found.append({"term": r.term.value, "word": word,
                      "reverses": reversals.get(r.term.value, []),
                      **printed(r, difference=DIFFERENCE, difference_low=DIFFERENCE,
                                difference_high=DIFFERENCE)})
    return found


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The design (size, resolution, levels, aliasing; a full factorial has none), what the
    study says it chose after its runs (``chosen_after_run``), the main effects at the largest
    compared budget on every metric, grouped by finding on the primary one; the parts whose
    findings on the served pass rate and on accuracy differ; the interactions each family shows
    and the largest on the primary metric per stratum; the families."""
    effects = cite.read(study, SECTION.table)
    summary = cite.first(cite.read(study, "factorial_design_summary"))
    aliases = cite.read(study, "factorial_design_aliases")
    budget = int(effects["budget"].max())
    numbers.put("FactorialRuns", summary.runs, ",")
    numbers.put("FactorialFactors", summary.factors, ",")
    numbers.put("FactorialResolution", summary.resolution, "d")
    numbers.put("FactorialBudget", cite.first(effects[effects["budget"] == budget]).budget, ",")
    numbers.put("FactorialSeeds", cite.first(effects).seeds, ",")
    numbers.put("FactorialServedMargin", cite.first(effects[effects["metric"] == PRIMARY]).margin,
                "g")
    # A full factorial (every combination of the levels) aliases no effect with another.
    full = int(summary.runs.value) == 2 ** int(summary.factors.value)
    main_terms = set(effects.loc[effects["order"] == 1, "term"])
    shortest = {}
    if not full:
        shortest = {order: cite.smallest(aliases[aliases["term"].isin(main_terms)
                                                 == (order == 1)], "alias_order")
                    for order in (1, 2)}
        numbers.put("FactorialAliasedPair", shortest[2], "d")
    after = set(cite.read(study, SETTINGS).iloc[0]["chosen_after_run"])
    cells = cite.read(study, "cells")
    numbers.put("FactorialPrompts", cite.first(cells).prompts, ",")
    # A population's environments, one row per cell each in the table of environments.
    environments = cite.read(study, "prompts_environments")
    if environments is not None:
        numbers.put("FactorialEnvironments", cite.count(
            environments, f"cell == {int(environments['cell'].iat[0])}"), ",")
    levels = cite.read(study, "factorial_design_levels")
    primary = _at(effects, PRIMARY, budget, 1)
    strata = cite.read(study, "factorial_strata")
    reversals = _reversals(strata, budget)
    grouped = {finding: _named(cite, primary[primary["finding"] == finding], numbers,
                               reversals)
               for finding in ("higher", "lower", "equivalent", "unresolved")}
    accuracy = _at(effects, "accuracy", budget, 1).set_index("term")
    theirs = accuracy.reindex(primary["term"])
    # Disagreements beyond the margins: the findings differ and one of them is a difference
    # shown outside its margin (two effects both within +-margin do not disagree).
    beyond = ((primary["finding"].isin(["higher", "lower"]) & ~primary["within_margin"])
              .to_numpy()
              | (theirs["finding"].isin(["higher", "lower"]) & ~theirs["within_margin"])
              .to_numpy())
    differ = primary[(primary["finding"].to_numpy() != theirs["finding"].to_numpy()) & beyond]
    apart = [{"term": term, "served": served, "accuracy": accuracy.loc[term, "finding"]}
             for term, served in zip(differ["term"], differ["finding"], strict=True)]
    shown = effects[(effects["order"] == 2) & (effects["p_value_holm"] < ALPHA)]
    counts = []
    for metric in effects["metric"].unique():
        chosen = f"order == 2 and metric == '{metric}' and budget == {budget}"
        shown_here = cite.count(effects, f"{chosen} and p_value_holm < {ALPHA}")
        every = cite.count(effects, chosen)
        numbers.put(f"FactorialInteractions{_word(metric)}", shown_here, ",")
        numbers.put(f"FactorialInteractionTerms{_word(metric)}", every, ",")
        counts.append({"metric": WORDS[metric], "count": Named(shown_here, ","),
                       "of": Named(every, ",")})
    largest = _largest(shown, budget)
    read = []
    for r in cite.rows(largest):
        parts = strata[(strata["term"] == r.term.value) & (strata["metric"] == PRIMARY)
                       & (strata["budget"] == budget)]
        read.append({"term": r.term.value, **printed(r, difference=DIFFERENCE),
                     "strata": [{"factor": s.factor.value, "stratum": s.stratum.value,
                                 "level": s.stratum_level.value,
                                 **printed(s, effect=DIFFERENCE, effect_low=DIFFERENCE,
                                           effect_high=DIFFERENCE)} for s in cite.rows(parts)]})
    pairs = cite.read(study, "factorial_pairs")
    check = cite.read(study, "factorial_model_check")
    misses = [] if check is None else [
        {"budget": Named(cite.first(chosen).budget, ","),
         "miss": Named(cite.largest(chosen, "abs(miss)"), ".4f")}
        for _, chosen in check[check["metric"] == PRIMARY].groupby("budget", sort=True)]
    tokens = cite.read(study, "factorial_tokens")
    if tokens is not None:
        one = cite.first(tokens)
        numbers.put("FactorialTokensTarget", one.target, "g")
        numbers.put("FactorialTokensConfidence", one.confidence, ".2%")
        numbers.put("FactorialTokensResamples", one.resamples, ",")
        numbers.put("FactorialTokensMargin", one.margin, "g")
    return {"generators": cite.declared(summary.generators.value), "full": full,
            "difficulty": _by_difficulty(cite, cite.read(study, "factorial_difficulty"),
                                         numbers),
            "roles": {role: list(dict.fromkeys(levels.loc[levels["role"] == role, "factor"]))
                      for role in ROLES},
            "environments": environments is not None,
            "after": {name: name in after for name in CHOSEN_AFTER_RUN},
            "aliased": {order: Named(value, "d") for order, value in shortest.items()},
            "grouped": grouped, "apart": apart, "counts": counts, "interactions": read,
            "families": families(cite, effects),
            "levels": levels, "misses": misses,
            "pairs": None if pairs is None else _with_difference(cite, pairs)[
                ["metric", "budget", "a", "b", INTERVAL, "p_value_holm", "finding",
                 "within_margin"]],
            "pair_families": [] if pairs is None else families(cite, pairs),
            "tokens": None if tokens is None else [
                {"term": r.term.value,
                 **printed(r, ratio=".4f", ratio_low=".4f", ratio_high=".4f")}
                for r in cite.rows(tokens[tokens["order"] == 1])],
            "tokens_table": None if tokens is None else with_intervals(
                cite, tokens[tokens["order"] == 1], ".4f",
                **{"ratio [family interval]": ("ratio", "ratio_low", "ratio_high")})[
                    ["term", "tokens_high", "tokens_low", "ratio [family interval]",
                     "placement", "equivalence"]],
            "mains": _with_difference(cite, effects[effects["order"] == 1].sort_values(
                "metric", key=metric_order, kind="stable"))[SHOWN]}


def _by_difficulty(cite: Tables, table: pd.DataFrame | None,
                   numbers: Scope) -> list[dict[str, Any]] | None:
    """Per named pair at the largest compared budget, per metric, the tenths of environment
    difficulty where the pair's difference is shown above or below 0 by the Bonferroni family
    of its metric (``factorial_difficulty``), with each family's size and level named; None
    for a study without a population."""
    if table is None or table.empty:
        return None
    top = table[table["budget"] == table["budget"].max()]
    numbers.put("FactorialBinBudget", cite.first(top).budget, ",")
    metrics = [m for m in WORDS if m in set(top["metric"])]
    for metric in metrics:
        first = cite.first(top[top["metric"] == metric])
        numbers.put(f"FactorialBinIntervals{_word(metric)}", first.intervals, ",.0f")
        numbers.put(f"FactorialBinLevel{_word(metric)}", first.confidence, ".4%")
        # The intervals that are the distribution-free bound (too few seeds differ): they
        # show nothing beyond zero, which the prose must not read as no difference.
        numbers.put(f"FactorialBinBounds{_word(metric)}", cite.count(
            top, f"metric == '{metric}' and budget == {int(first.budget)} "
                 "and difference_interval == 'bound'"), ",")
    return [{"a": a, "b": b, "metrics": [
        {"metric": WORDS[m], "word": _word(m),
         "above": difficulty_ranges(rows[rows["metric"] == m], cite, "difference", True),
         "below": difficulty_ranges(rows[rows["metric"] == m], cite, "difference", False),
         "bound": tenth_ranges(rows[(rows["metric"] == m)
                                    & (rows["difference_interval"] == "bound")], cite)}
        for m in metrics]} for (a, b), rows in top.groupby(["a", "b"], sort=False)]


def metric_order(column: pd.Series) -> pd.Series:
    """Sort key: metrics in ``WORDS``' order."""
    return column.map({m: i for i, m in enumerate(WORDS)})


def _largest(shown: pd.DataFrame, budget: int) -> pd.DataFrame:
    """The ``SHOWN_INTERACTIONS`` largest interactions on the primary metric at ``budget``."""
    rows = shown[(shown["metric"] == PRIMARY) & (shown["budget"] == budget)]
    return rows.loc[rows["difference"].abs().sort_values(ascending=False).index
                    [:SHOWN_INTERACTIONS]]


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """``factorial_effects``: each part's main effect with its 95% t interval over seeds, a panel
    per metric, a colour per compared budget, and (where the study has them) its ratio of
    tokens to the served pass-rate target with its Bonferroni interval; ``factorial_strata``:
    the largest interactions on the primary metric, each part's effect at the other's low and
    high level."""
    effects = read_table(tables, SECTION.table)
    mains = effects[effects["order"] == 1]
    factors = list(dict.fromkeys(mains["term"]))
    metrics = [m for m in WORDS if m in set(mains["metric"])]
    budgets = sorted(mains["budget"].unique())
    tokens = read_table(tables, "factorial_tokens")
    panels = len(metrics) + (tokens is not None)
    figure, axes = plt.subplots(1, panels, figsize=(3.3 * panels, 0.35 * len(factors) + 1.4),
                                sharey=True, squeeze=False, layout="constrained")
    y = np.arange(len(factors))
    for ax, metric in zip(axes[0], metrics, strict=False):
        for i, budget in enumerate(budgets):
            rows = mains[(mains["metric"] == metric) & (mains["budget"] == budget)]
            rows = rows.set_index("term").reindex(factors)
            offset = (i - (len(budgets) - 1) / 2) * 0.25
            ax.errorbar(rows["difference"], y + offset,
                        xerr=np.vstack([rows["difference"] - rows["difference_low"],
                                        rows["difference_high"] - rows["difference"]]),
                        fmt="os"[i % 2], color=OKABE_ITO[i % len(OKABE_ITO)], markersize=3.5,
                        capsize=2, label=f"{budget:,} tokens")
        ax.axvline(0.0, **REFERENCE)
        ax.set_xlabel(f"effect on {WORDS[metric]}\n(high level minus low)")
        ax.set_yticks(y, [f.replace("_", " ") for f in factors])
    if tokens is not None:
        ax = axes[0][-1]
        rows = tokens[tokens["order"] == 1].set_index("term").reindex(factors)
        ax.errorbar(rows["ratio"], y, xerr=np.vstack([rows["ratio"] - rows["ratio_low"],
                                                      rows["ratio_high"] - rows["ratio"]]),
                    fmt="D", color=OKABE_ITO[2], markersize=3.5, capsize=2)
        ax.axvline(1.0, **REFERENCE)
        ax.set_xscale("log")
        low, high = rows["ratio_low"].min(), rows["ratio_high"].max()
        ticks = [t for t in RATIO_TICKS if low / 1.1 <= t <= high * 1.1]
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel(f"tokens to served pass rate {rows['target'].iloc[0]:g}\n"
                      "(high level over low, log scale)")
    axes[0][0].invert_yaxis()  # shared: the first factor on top in every panel
    outside_legend(figure, axes[0][0], "budget")
    found = {figure_name(study, "factorial_effects"): save(figure, out_dir,
                                                           figure_name(study,
                                                                       "factorial_effects"))}
    found |= _draw_difficulty(tables, out_dir, study)
    strata = read_table(tables, "factorial_strata")
    if strata is None:
        return found
    budget = int(effects["budget"].max())
    shown = effects[(effects["order"] == 2) & (effects["p_value_holm"] < ALPHA)]
    largest = _largest(shown, budget)
    if largest.empty:
        return found
    rows = strata[strata["term"].isin(largest["term"]) & (strata["metric"] == PRIMARY)
                  & (strata["budget"] == budget)]
    labels = [f"{r.factor.replace('_', ' ')} by {r.stratum.replace('_', ' ')}"
              for r in rows.drop_duplicates(["term", "factor"]).itertuples()]
    figure, ax = plt.subplots(figsize=(6.4, 0.4 * len(labels) + 1.4), layout="constrained")
    for i, level in enumerate(("low", "high")):
        chosen = rows[rows["stratum_level"] == level]
        at = np.arange(len(chosen)) + (i - 0.5) * 0.25
        ax.errorbar(chosen["effect"], at,
                    xerr=np.vstack([chosen["effect"] - chosen["effect_low"],
                                    chosen["effect_high"] - chosen["effect"]]),
                    fmt="os"[i], color=OKABE_ITO[i + 2], markersize=3.5, capsize=2,
                    label=f"the other part {level}")
    ax.axvline(0.0, **REFERENCE)
    ax.set_yticks(np.arange(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"effect on {WORDS[PRIMARY]} at {budget:,} tokens\n(high level minus low)")
    outside_legend(figure, ax, "stratum")
    found[figure_name(study, "factorial_strata")] = save(figure, out_dir,
                                                         figure_name(study, "factorial_strata"))
    return found


def _draw_difficulty(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """``factorial_difficulty``: each named pair's difference per tenth of environment mean pass
    probability at the largest compared budget, a panel per metric, bars the Bonferroni
    family's simultaneous intervals (none where every seed's difference is the same)."""
    found = read_table(tables, "factorial_difficulty")
    if found is None or found.empty:
        return {}
    budget = int(found["budget"].max())
    found = found[found["budget"] == budget]
    metrics = [m for m in WORDS if m in set(found["metric"])]
    pairs = list(dict.fromkeys(zip(found["a"], found["b"], strict=True)))
    figure, axes = plt.subplots(1, len(metrics), figsize=(3.3 * len(metrics), 3.0),
                                squeeze=False, layout="constrained")
    for ax, metric in zip(axes[0], metrics, strict=True):
        for i, (a, b) in enumerate(pairs):
            rows = found[(found["metric"] == metric) & (found["a"] == a) & (found["b"] == b)]
            # Side by side within a tenth, so that the pairs' bars do not hide one another.
            offset = (i - (len(pairs) - 1) / 2) * 0.018
            colour, marker = OKABE_ITO[i % len(OKABE_ITO)], "os^D"[i % 4]
            # A bound is as wide as most of the metric's range and shows nothing either way:
            # its tenth gets a hollow marker without a bar, so that it does not set the scale.
            bound = rows["difference_interval"] == "bound"
            shown, loose = rows[~bound], rows[bound]
            ax.errorbar(_middle(shown) + offset, shown["difference"],
                        yerr=np.vstack([(shown["difference"] - shown["difference_low"])
                                        .fillna(0.0),
                                        (shown["difference_high"] - shown["difference"])
                                        .fillna(0.0)]),
                        fmt=marker, color=colour, markersize=3.5, capsize=2,
                        label=f"{a.replace('_', ' ')} minus {b.replace('_', ' ')}")
            ax.plot(_middle(loose) + offset, loose["difference"], marker, color=colour,
                    markerfacecolor="none", markersize=3.5, linestyle="none")
        ax.axhline(0.0, **REFERENCE)
        ax.set_xlim(0.0, 1.0)
        ax.set_xlabel("environment mean pass probability\n(tenths, at their midpoints)")
        ax.set_ylabel(f"difference in\n{WORDS[metric]}")
    outside_legend(figure, axes[0][0], f"pair, at {budget:,} tokens", below=True)
    name = figure_name(study, "factorial_difficulty")
    return {name: save(figure, out_dir, name)}


def _middle(rows: pd.DataFrame) -> pd.Series:
    """Each difficulty bin's midpoint."""
    return (rows["pass_probability_low"] + rows["pass_probability_high"]) / 2
