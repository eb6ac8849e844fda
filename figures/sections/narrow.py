"""Narrow margins, the budget to 0.9 accuracy: the study whose config declares this section gets
each baseline's budget at its best lr and its reference learner's, in units of H, and how the
budget depends on the target."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.questions import SETTINGS
from analysis.roles import LrRole
from figures import plots
from figures.cite import Row, Tables, read_table
from figures.claims import figure_name, with_estimates, without_reinforce
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import bandit, baseline_name, budget_estimate

SECTION = Section(table="budget_to_target", title="Narrow margins: the budget to 0.9 accuracy",
                  template="narrow.md.j2", order=4, declared=True, shared=True,
                  figures=("accuracy_to_target",))

ESTIMATE = {"budget [95%]": ("budget_to_target", "ci_low", "ci_high")}
"""The column that prints a budget with its interval (``figures.sections.with_estimates``)."""
SHOWN = ["algorithm", "baseline", "lr", "lr_role", "tied_lr", "seeds", *ESTIMATE, "ratio_to_H"]
"""The columns of the section's table (and of section 5's table of budgets)."""


def unfit(tables: Path, study: str) -> str:
    """The section gives REINFORCE's budget at its best lr: a study without REINFORCE does not
    fit."""
    return without_reinforce(tables, SECTION.table)


def in_h(row: Row) -> dict[str, Any]:
    """A budget to 0.9 in units of H (``ratio``) and its ``bound``: "> " where the largest
    budget does not reach it, "<= " where the first checkpoint does, else nothing."""
    bound = "> " if not row.reached else "<= " if row.at_first_checkpoint else ""
    return {"ratio": Named(row.budget_to_target / row.hardness_H, ".2f"), "bound": bound}


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """REINFORCE's budget per baseline at its best lr (with the lr tied with it) and the
    reference learner's, each in units of H; the table of budgets and, by target, a wide one."""
    budgets = cite.read(study, SECTION.table)
    best = budgets[budgets["lr_role"] == LrRole.BEST]
    reference = budgets[budgets["algorithm"] == cite.read(study, SETTINGS).iloc[0]["reference"]]
    one = cite.first(budgets)
    targets = cite.read(study, "budget_by_target")
    if targets is not None:
        targets = with_estimates(cite, targets, **ESTIMATE).pivot_table(
            index=["algorithm", "baseline", "lr"], columns="target", values=next(iter(ESTIMATE)),
            aggfunc="first", sort=False)
        targets.columns = [f"to {t:g}" for t in targets.columns]
        targets = targets.reset_index()
    return {
        "bandit": Named(one.environment, shown=bandit), "H": Named(one.hardness_H, ",.0f"),
        "formula": cite.declared("1/gap^2"),
        "best": [{"budget": Named(r.estimate(), shown=budget_estimate),
                  "baseline": baseline_name(r.baseline.value),
                  "lr": Named(r.lr, "g"), "h": in_h(r),
                  "tied": isinstance(r.tied_lr.value, str) and Named(r.tied_lr)}
                 for r in cite.rows(best)],
        "reference": [{"budget": Named(r.estimate(), shown=budget_estimate), "h": in_h(r)}
                      for r in cite.rows(reference)],
        "table": lambda: with_estimates(cite, budgets, **ESTIMATE)[SHOWN], "targets": targets}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Accuracy against budget, each lr's budget to the target marked on the target's line."""
    name = figure_name(study, "accuracy_to_target")
    return {name: plots.accuracy_vs_budget(read_table(tables, "accuracy"), out_dir, name,
                                           read_table(tables, SECTION.table))}
