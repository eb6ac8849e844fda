"""Every named number of the write-up, built one way for the report, the paper and ``numbers.tex``.

``named_numbers(cite)`` puts each number that leaves the tables for words into one
``figures.numbers.Registry`` under one name: the headline numbers of every study, the paper's
numbers and those of the sections that follow from a study's tables (``figures.sections``). The
report prints from that registry, the paper's macros are its names and ``numbers.tex`` lists every
one of them with its source, so one value has one name everywhere.

Names: a study's number begins with the study's prefix (``analysis.tables.study_prefix``:
``MyStudyAccAtOneThousand`` for ``my_study``), then what it is, ``At`` and a budget in words where
it is one of several budgets, and ``Low``/``High`` (interval), ``P`` (Holm-adjusted p-value) or
``Ninety`` (90% interval) last. A constant of the code that no study owns has a plain name
(``Level``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.questions import SETTINGS
from analysis.roles import Against, Finding, LrRole
from figures import sections
from figures.cite import Cited, Tables, read_table
from figures.claims import (
    at_most,
    budget_limit,
    headline_rows,
    more_than,
    planned_seeds,
    short_of_target,
    verdict,
)
from figures.numbers import Registry, Scope, macro_name, number_word, study_prefix
from figures.words import bandit, budget_estimate, fraction, pvalue
from study.model import registry
from study.model.config import ConfigError

PRIMARY = "primary"
POWER_EFFECT = 0.05
"""The gain over chance whose seeds the paper quotes (one of the effects the study states)."""
SEEDS_NEEDED_AT = 1000
"""The budget whose planned seeds every study lists (``...SeedsNeeded...``)."""
EQUIVALENT = f"finding == {Finding.EQUIVALENT.value!r}"
SOLVED = 0.99
"""Accuracy above which a learner has solved the bandit: two such are equivalent trivially."""


def named_numbers(cite: Tables) -> Registry:
    """Every named number of the tables under ``cite.tables``: the constants, each study's
    headline numbers, the paper's and the declared sections'. A part whose study was not
    analysed is left out (the paper refuses a macro it uses and the registry lacks)."""
    numbers = Registry()
    constants(cite, numbers)
    for path in sorted(cite.tables.glob(f"*/{SETTINGS}.parquet")):
        headline(cite, path.parent.name, numbers.scope(study_prefix(path.parent.name)))
    for role, study in roles(cite.tables).items():
        for part in ROLES[role]:
            part(cite, study, numbers.scope(study_prefix(study)))
    for module, study in sections.given(cite.tables):
        module.claims(cite, study, numbers.scope(study_prefix(study)))
    return numbers


def constants(cite: Tables, numbers: Registry) -> None:
    """The constants of the code the write-up quotes, under plain names."""
    numbers.put("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put("LevelNinety", cite.constant("1 - 2 * analysis.families.ALPHA"), ".0%")
    numbers.put("Alpha", cite.constant("analysis.families.ALPHA"), "g")
    numbers.put("Target", cite.constant("analysis.budget_to_target.TARGET"), "g")
    numbers.put("DefaultLr", cite.constant("study.model.config.DEFAULT_LR"), "g")
    numbers.put("Resamples", cite.constant("analysis.budget_to_target.BOOTSTRAP"), ",")
    numbers.put("MoreResamples", cite.constant("analysis.budget_to_target.MORE_RESAMPLES"), ",")
    numbers.put("Solved", cite.constant("figures.named.SOLVED"), "g")
    numbers.put("PowerTarget", cite.constant("analysis.power.TARGET_POWER"), ".0%")


def _settings(cite: Tables, study: str) -> pd.Series:
    return cite.read(study, SETTINGS).iloc[0]


def headline(cite: Tables, study: str, numbers: Scope) -> None:
    """A study's headline numbers (every study's, in ``numbers.tex``): its seeds; the headline
    cell's accuracy and gain over chance at the compared budgets, and per-arm minus running-mean
    at its lr; the budget to 0.9 of each baseline at its best lr; the seeds planned at
    ``SEEDS_NEEDED_AT`` rollouts; the break-even costs of stepping up to a compared budget; the
    optimal-action fraction of each curve at each tabulated step."""
    settings = _settings(cite, study)
    budgets = [int(b) for b in settings["compared_budgets"]]
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    accuracy = cite.read(study, "accuracy")
    if accuracy is None:
        return  # a many-prompts study: its numbers are its section's
    for r in cite.rows(headline_rows(accuracy, settings).sort_values("budget")):
        word = number_word(int(r.budget.value))
        numbers.put(f"AccAt{word}", r.accuracy, ".3f")
        numbers.put(f"AccAt{word}Low", r.ci_low, ".3f")
        numbers.put(f"AccAt{word}High", r.ci_high, ".3f")
        numbers.put(f"GapToChanceAt{word}", r.accuracy - r.chance, ".3f")
    paired = cite.read(study, "per_arm_vs_running_mean")
    if paired is not None:
        lr = accuracy.loc[accuracy["cell"] == settings["headline_cell"], "lr"].iat[0]
        for r in cite.rows(paired[(paired["lr"] == lr) & paired["budget"].isin(budgets)]):
            numbers.put(f"PerArmMinusRunningMeanAt{number_word(int(r.budget.value))}",
                        r.difference, ".3f")
    # Where several rows would take one name the last one names it, as the names were first
    # given (one per baseline, whatever the bandit or learner).
    latest: dict[str, tuple[Cited, str, Callable[[Any], str] | None]] = {}
    best = cite.read(study, "budget_to_target")
    if best is not None:
        best = best[(best["lr_role"] == LrRole.BEST) & (best["group_size"] == 1)]
        for r in cite.rows(best):
            name = macro_name("BudgetToNinety", *r.baseline.value.split("_"))
            if not r.reached:
                latest[name] = (r.largest_budget, "", more_than)
                continue
            latest[name] = ((r.budget_to_target, "", at_most) if r.at_first_checkpoint
                            else (r.budget_to_target, ",.0f", None))
            latest[name + "Low"] = (r.ci_low, ",.0f", None)
            latest[name + "High"] = ((r.ci_high, ",.0f", None) if math.isfinite(r.ci_high.value)
                                     else (r.largest_budget, "", more_than))
    power = cite.read(study, "power")
    if power is not None:
        for r in cite.rows(power[power["budget"] == SEEDS_NEEDED_AT]):
            effect = number_word(round(100 * r.effect_of_interest.value))
            latest[macro_name("SeedsNeededAgainst", *r.against.value.split("_"), "For", effect,
                              "Points")] = (
                r.seeds_exact, "", planned_seeds)
    steps = cite.read(study, "break_even")
    if steps is not None:
        steps = steps[steps["algorithm"].isin(registry.trained())
                      & steps["to_budget"].isin(budgets)]
        for r in cite.rows(steps):
            latest[f"BreakEvenTo{number_word(int(r.to_budget.value))}"] = (
                r.break_even_cost, ".3g", None)
    for name, (value, spec, shown) in latest.items():
        numbers.put(name, value, spec, shown)
    points = cite.read(study, "curve_points")
    for r in cite.rows(points) if points is not None else ():
        whole, _, decimals = f"{r.lr.value:.12f}".rstrip("0").partition(".")
        lr = number_word(int(whole)) + ("Point" + "".join(
            number_word(int(d)) for d in decimals) if decimals else "")
        numbers.put(macro_name("OptimalAt", number_word(int(r.step.value)), "Lr", lr,
                               *r.baseline.value.split("_")), r.optimal_action, ".3f")


def leading(cite: Tables, study: str, numbers: Scope) -> None:
    """The headline study's numbers the paper leads with: its bandit, chance and the compared
    budgets; the signed gain over chance with its Holm p-value; the accuracy band; the
    comparison with the reference learner."""
    accuracy = cite.read(study, "accuracy")
    settings = _settings(cite, study)
    rows = headline_rows(accuracy, settings)
    one = cite.first(rows)
    numbers.put("Arms", one.environment, shown=bandit)
    numbers.put("Chance", one.chance, shown=fraction)
    for r in cite.rows(rows):
        word = number_word(int(r.budget.value))
        numbers.put(f"Budget{word}", r.budget, ",")
        numbers.put(f"SignedGapToChanceAt{word}", r.accuracy - r.chance, "+.3f")
        numbers.put(f"GapToChanceAt{word}P", r.p_vs_chance_holm, shown=pvalue)
    numbers.put("PrimaryFamily", cite.count(rows, PRIMARY), "")
    numbers.put("BandFactor", cite.first(cite.read(study, "accuracy_band")).band_factor, ".2f")
    reference = macro_name(*settings["reference"].split("_"))
    versus = cite.read(study, f"vs_{settings['reference']}")
    numbers.put(f"{reference}Family", cite.count(versus), "")
    numbers.put(f"{reference}Margin", cite.first(versus).margin, "g")
    numbers.put(f"{reference}Equivalent", cite.count(versus, EQUIVALENT), "")
    both_solved = f"{EQUIVALENT} and accuracy_a > {SOLVED} and accuracy_b > {SOLVED}"
    numbers.put(f"{reference}EquivalentSolved", cite.count(versus, both_solved), "")
    for r in cite.rows(headline_rows(versus, settings)):
        name = f"Minus{reference}At{number_word(int(r.budget.value))}"
        numbers.put(name, r.difference, "+.3f")
        numbers.put(f"{name}Low", r.ci_low, "+.3f")
        numbers.put(f"{name}High", r.ci_high, "+.3f")
        numbers.put(f"{name}P", r.p_value_holm, shown=pvalue)


def baselines(cite: Tables, study: str, numbers: Scope) -> None:
    """The per-arm baseline against the running mean at the third compared budget (signed, with
    its interval and Holm p-value), how often it is worse, and each baseline's budget to 0.9 at
    the default lr on all seeds and at its own best lr (chosen on the even seeds, estimated on
    the odd ones), so that no baseline is judged only at the lr another one was tuned for."""
    paired = cite.read(study, "per_arm_vs_running_mean")
    settings = _settings(cite, study)
    # The per-arm baseline's paragraph quotes the third compared budget (1,000 rollouts).
    at = settings["compared_budgets"][2]
    row = cite.first(paired[(paired["lr"] == settings["headline_lr"])
                            & (paired["budget"] == at)])
    numbers.put("PerArmBudget", row.budget, ",")
    numbers.put("PerArm", row.difference, "+.3f")
    numbers.put("PerArmLow", row.ci_low, "+.3f")
    numbers.put("PerArmHigh", row.ci_high, "+.3f")
    numbers.put("PerArmP", row.p_value_holm, shown=pvalue)
    # Worse, and not by less than the margin.
    worse = f"finding == {Finding.LOWER.value!r} and ~within_margin"
    numbers.put("PerArmWorse", cite.count(paired, worse), "")
    numbers.put("PerArmFamily", cite.count(paired), "")
    budgets = cite.read(study, "budget_to_target")
    # At the default lr on all seeds (not the rows of a best lr, measured on the odd seeds).
    default = budgets[(budgets["lr"] == settings["headline_lr"])
                      & budgets["algorithm"].isin(registry.trained())
                      & (budgets["lr_role"] == LrRole.GRID)]
    for r in cite.rows(default):
        numbers.put(macro_name("DefaultLrBudgetToNinety", *r.baseline.value.split("_")),
                    r.estimate(), shown=budget_estimate)
    best = budgets[(budgets["lr_role"] == LrRole.BEST) & (budgets["group_size"] == 1)
                   & budgets["environment"].eq(budgets["environment"].iat[0])]
    for r in cite.rows(best):
        words = r.baseline.value.split("_")
        numbers.put(macro_name("BestLrBudgetToNinety", *words), r.estimate(),
                    shown=budget_estimate)
        numbers.put(macro_name("BestLr", *words), r.lr, "g")


def narrow_margin(cite: Tables, study: str, numbers: Scope) -> None:
    """The narrow-margins bandit: its hardness, the best lr's budget to 0.9 and the reference
    learner's, and each planning learner's budget ratio to REINFORCE with its intervals and
    where the 90% one lies against the margin."""
    budgets = cite.read(study, "budget_to_target")
    one = cite.first(budgets)
    numbers.put("Arms", one.environment, shown=bandit)
    numbers.put("H", one.hardness_H, ",.0f")
    best = cite.first(budgets[(budgets["lr_role"] == LrRole.BEST)
                              & (budgets["baseline"] == "running_mean")])
    numbers.put("BestLr", best.lr, "g")
    numbers.put("Best", best.estimate(), shown=budget_estimate)
    numbers.put("BestInH", best.ratio_to_H, ".1f")
    numbers.put("BestSeeds", best.seeds, ",")
    learner = _settings(cite, study)["reference"]
    name = macro_name(*learner.split("_"))
    ratios = cite.read(study, "budget_ratio")
    # The reference's budget on the odd seeds, those of the best lr's estimate and of the ratio.
    reference = cite.first(ratios[ratios["reference"] == learner])
    numbers.put(f"{name}OnOdd", reference.reference_budget, ",.0f")
    numbers.put(f"{name}OnOddLow", reference.reference_ci_low, shown=budget_limit)
    numbers.put(f"{name}OnOddHigh", reference.reference_ci_high, shown=budget_limit)
    numbers.put(f"{name}OnOddInH", reference.reference_budget / one.hardness_H, ".1f")
    for r in cite.rows(ratios):
        name = macro_name("Ratio", *r.reference.value.split("_"))
        numbers.put(name, r.ratio, ".2f")
        numbers.put(f"{name}Low", r.ci_low, ".2f")
        numbers.put(f"{name}High", r.ci_high, ".2f")
        numbers.put(f"{name}LowNinety", r.ci90_low, ".3f")
        numbers.put(f"{name}HighNinety", r.ci90_high, ".3f")
        numbers.put(f"{name}Verdict", r.equivalence, shown=verdict)
    numbers.put("RatioMargin", cite.first(ratios).ratio_margin, "g")


def grouped(cite: Tables, study: str, numbers: Scope) -> None:
    """Groups of rollouts on the study's first bandit: the single rollout's budget to 0.9 and
    each group size's ratio to it (groups with Dr. GRPO's group mean); and over every arm, bandit
    and checkpoint, how the comparisons with single rollouts came out on best-arm accuracy and
    on the pass rate (each its own Holm family)."""
    for table, metric in (("group_vs_single", "Accuracy"), ("group_vs_single_pass_rate", "Pass")):
        paired = cite.read(study, table)
        numbers.put(f"{metric}Rows", cite.count(paired), ",")
        numbers.put(f"{metric}Margin", cite.first(paired).margin, "g")
        for finding in Finding:
            numbers.put(f"{metric}{finding.value.capitalize()}",
                        cite.count(paired, f"finding == {finding.value!r}"), ",")
        # A difference shown whose equivalence interval also lies inside the margin: different,
        # but by less than the margin (not "within the margin" as equivalence is).
        numbers.put(f"{metric}SmallerThanMargin", cite.count(
            paired, "finding in ('higher', 'lower') and within_margin"), ",")
    budgets = cite.read(study, "group_budget_to_target")
    budgets = budgets[budgets["environment"] == budgets["environment"].iat[0]]
    single = cite.first(budgets[budgets["group_size"] == 1])
    grouped = budgets[budgets["baseline"] == "group_mean"]
    largest = cite.first(grouped[grouped["group_size"] == grouped["group_size"].max()])
    numbers.put("Single", single.estimate("rollouts_to_target"), shown=budget_estimate)
    numbers.put("Size", largest.group_size, "")
    numbers.put("ToTarget", largest.estimate("rollouts_to_target"), shown=budget_estimate)
    numbers.put("Ratio", largest.ratio_to_single, ".2f")
    numbers.put("RatioLow", largest.ratio_to_single_low, ".2f")
    numbers.put("RatioHigh", largest.ratio_to_single_high, ".2f")
    for r in cite.rows(grouped[grouped["group_size"] < grouped["group_size"].max()]):
        word = number_word(int(r.group_size.value))
        numbers.put(f"Size{word}", r.group_size, "")
        numbers.put(f"Ratio{word}", r.ratio_to_single, ".2f")
        numbers.put(f"Ratio{word}Low", r.ratio_to_single_low, ".2f")
        numbers.put(f"Ratio{word}High", r.ratio_to_single_high, ".2f")


def seeds(cite: Tables, study: str, numbers: Scope) -> None:
    """The seeds the exact plan needs for a gain of ``POWER_EFFECT`` over chance at the
    smallest planned budget, and the power of the normal approximation's plan."""
    power = cite.read(study, "power")
    chance = power[power["against"] == Against.CHANCE]
    chance = chance[(chance["budget"] == chance["budget"].min())
                    & (chance["effect_of_interest"] == POWER_EFFECT)]
    if chance.empty:
        raise SystemExit(f"the paper quotes the power for a gain of {POWER_EFFECT:g} over "
                         f"chance, which {study}'s power table does not plan")
    row = cite.first(chance)
    numbers.put("PowerEffect", row.effect_of_interest, "g")
    numbers.put("PowerAlpha", row.alpha_per_test, ".3g")
    numbers.put("PowerSeeds", row.seeds_exact, ",.0f")
    numbers.put("PowerSeedsNormal", row.seeds_normal, ",.0f")
    numbers.put("PowerAtNormal", row.exact_power_at_seeds_normal, ".3f")
    numbers.put("PowerShort", row.exact_power_at_seeds_normal, shown=short_of_target)


ROLES: dict[str, tuple[Callable[[Tables, str, Scope], None], ...]] = {
    "headline": (leading, baselines, seeds), "narrow": (narrow_margin,),
    "groups": (grouped,)}
"""The parts of the paper a study takes by its config's ``[analysis] paper_role``: the numbers
each names under the study's prefix, which the paper's macros give again under the role's
(``role_prefix``)."""


def role_prefix(role: str) -> str:
    """A role as the prefix of the paper's macros: ``headline`` -> ``Headline``."""
    return study_prefix(role)


def roles(tables: Path) -> dict[str, str]:
    """The study that takes each role of ``ROLES`` among the tables under ``tables`` (its
    config's ``[analysis] paper_role``); ConfigError naming ``--tables`` for a role that is none
    of them or that two studies take."""
    taken: dict[str, str] = {}
    for path in sorted(tables.glob(f"*/{SETTINGS}.parquet")):
        study = path.parent.name
        role = read_table(tables, f"{study}/{SETTINGS}").get("paper_role", pd.Series([""])).iat[0]
        if not role:
            continue
        if role not in ROLES:
            raise ConfigError("--tables", str(tables / study), f"takes the paper role {role!r} "
                              f"(its config's [analysis] paper_role), not one of "
                              f"{', '.join(ROLES)}")
        if role in taken:
            raise ConfigError("--tables", str(tables), f"has two studies of the paper role "
                              f"{role!r}: {taken[role]} and {study}")
        taken[role] = study
    return taken
