"""Group rollouts, GRPO, Dr. GRPO and RLOO at the same rollout budget: one section for every
study whose grid has more than one group size (its analysis makes ``group_best_lr``), each with
the arm chosen per bandit, the paired verdicts against single-rollout REINFORCE, the rollouts to
0.9, GRPO against Dr. GRPO, the robustness of each arm to its lr and the rollouts spent on groups
with no signal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from figures import groups as plots
from figures.cite import Tables, read_table
from figures.claims import figure_name, with_estimates, with_intervals, with_verdicts
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import bandit

SECTION = Section(table="group_best_lr",
                  title="Group rollouts: GRPO, Dr. GRPO and RLOO at the same rollout budget",
                  template="groups.md.j2", order=9, shared=True,
                  introduction="groups_intro.md.j2",
                  figures=("group_accuracy", "group_budget", "group_zero_signal"))

DIFFERENCE = {"difference [95%]": ("difference", "ci_low", "ci_high")}
"""A paired table's difference with its interval, as one column."""
RATIOS = ("ratio_to_single", "ratio_to_uniform")
"""The ratio columns a table of budgets may have."""
ROBUST = ["environment", "baseline", "group_size", "best_lr", "at_edge", "robust_lr_low",
          "robust_lr_high", "robust_decades", "robust_contiguous", "robust_range_at_edge"]
"""The columns of the table of each arm's robustness to its lr."""
ZERO = ["environment", "baseline", "group_size", "lr", "updates", "zero_signal_share", "ci_low",
        "ci_high", "interval", "uniform_policy", "best_arm_policy"]
"""The columns of the table of rollouts spent on groups with no signal."""
ZSCORE = ["environment", "group_size", "lr_grpo", "lr_dr_grpo", "step_scale_uniform_policy",
          "step_scale_best_arm", "budget", "rollouts", "difference [95%]", "p_value_holm",
          "verdict"]
"""The columns of the table of GRPO against Dr. GRPO."""


def introduce(cite: Tables, studies: list[str]) -> dict[str, Any]:
    """The equivalence margin of the paired tests (the first study's)."""
    return {"margin": Named(cite.first(cite.read(studies[0], "group_vs_single")).margin, "g")}


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The study's arms (those whose best lr is at an edge of the grid named), its tables, and
    the counts and constants its paragraphs quote; tables with intervals as text are functions,
    so that their cells are recorded where the template shows them."""
    best = cite.read(study, SECTION.table)
    versus = cite.read(study, "group_vs_single")
    budgets = cite.read(study, "group_budget_to_target")
    zscore = cite.read(study, "group_zscore_vs_mean")
    zero = cite.read(study, "group_zero_signal")
    passing = cite.read(study, "group_vs_single_pass_rate")
    top = cite.read(study, "group_best_arm")
    pass_budgets = cite.read(study, "group_pass_rate_budgets")
    paired = versus is not None and len(versus) > 0
    ratios = {f"{c} [95%]": (c, f"{c}_low", f"{c}_high") for c in RATIOS if c in budgets}
    dr = versus[versus["baseline"] == "group_mean"] if paired else None
    return {
        "arms": cite.count(best), "at_edge": cite.count(best, "at_edge"),
        "edges": [{"baseline": Named(r.baseline), "group_size": Named(r.group_size),
                   "environment": Named(r.environment, shown=bandit),
                   "best_lr": Named(r.best_lr, "g")} for r in cite.rows(best[best["at_edge"]])],
        "item": {name: cite.declared(f"{i}.") for i, name in enumerate(
            ("single", "budget", "zscore", "robust", "zero"), start=1)},
        "single_rule": cite.declared("G = 1"), "group_rule": cite.declared("G > 1"),
        "one": cite.declared("1"),
        "top": with_verdicts(cite, top).drop(columns=["margin", "within_margin", "finding"]),
        "versus": paired and {
            "seeds": Named(cite.first(versus).seeds, ","), "rows": cite.count(versus),
            "counts": with_verdicts(cite, versus).groupby(["environment", "verdict"]).size()
                            .unstack(fill_value=0).reset_index(),
            "dr": lambda: with_intervals(cite, with_verdicts(cite, dr), "+.4f", **DIFFERENCE)[
                ["environment", "group_size", "lr", "budget", "rollouts", "difference [95%]",
                 "p_value_holm", "verdict"]],
            "error": Named(0.5 / (2 * cite.first(versus).seeds) ** 0.5, ".3f")},
        "passing": passing is not None and len(passing) > 0 and {
            "rows": cite.count(passing), "margin": Named(cite.first(passing).margin, "g"),
            "counts": with_verdicts(cite, passing).groupby(["environment", "verdict"]).size()
                             .unstack(fill_value=0).reset_index()},
        "pass_budgets": pass_budgets is not None and len(pass_budgets) > 0 and (
            lambda: with_intervals(cite, with_estimates(cite, pass_budgets, **{
                "rollouts [95%]": ("budget_to_target", "budget_low", "budget_high")}), ".2f",
                **{"ratio_to_single [95%]": ("ratio", "ratio_low", "ratio_high")})[
                ["environment", "baseline", "group_size", "lr", "fraction", "target",
                 "rollouts [95%]", "ratio_to_single [95%]", "against_one"]]),
        "budgets": lambda: with_intervals(cite, with_estimates(cite, budgets, **{
            "rollouts [95%]": ("rollouts_to_target", "ci_low", "ci_high")}), ".2f", **ratios)[
            ["environment", "baseline", "group_size", "lr", "rollouts [95%]", *ratios]],
        "zscore": zscore is not None and len(zscore) > 0 and {
            "rows": cite.count(zscore), "one": cite.declared("1"),
            "epsilon": Named(cite.constant("study.learners.reinforce.ZSCORE_EPSILON"), "g"),
            "table": lambda: with_intervals(cite, with_verdicts(cite, zscore), "+.4f",
                                            **DIFFERENCE)[ZSCORE]},
        "robust": Named(cite.constant("analysis.groups.ROBUST"), "g"), "best": best[ROBUST],
        "zero": zero is not None and {
            "settled": cite.constant("analysis.cost.SETTLED_SEEDS"), "table": zero[ZERO]}}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Accuracy by group size, the budgets to the target and the zero-signal share, each where
    the analysis made its table."""
    drawn = {}
    for stem, table, plot in (("group_accuracy", "group_accuracy", plots.accuracy_by_group),
                              ("group_budget", "group_budget_to_target", plots.budget_by_group),
                              ("group_zero_signal", "group_zero_signal",
                               plots.zero_signal_by_group)):
        frame = read_table(tables, table)
        if frame is not None:
            drawn[figure_name(study, stem)] = plot(frame, out_dir, figure_name(study, stem))
    return drawn
