"""REINFORCE against best-arm identification: one section for the studies whose configs declare
it (their grids hold the fixed-budget best-arm-identification learners), each with its budgets to
0.9, REINFORCE's budget ratio to every reference learner with its verdict against the margin, and
the paired comparisons at the compared budgets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.questions import SETTINGS
from analysis.roles import LrRole
from figures import plots
from figures.cite import Row, Tables, read_table
from figures.claims import (
    agreement,
    distinct,
    families,
    figure_name,
    printed,
    with_estimates,
    with_verdicts,
)
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.sections.narrow import ESTIMATE, SHOWN
from figures.words import bandit, display
from study.model import registry

SECTION = Section(table="budget_ratio", title="REINFORCE against best-arm identification",
                  template="best_arm_identification.md.j2", order=5, declared=True,
                  shared=True, introduction="best_arm_identification_intro.md.j2",
                  figures=("best_arm_identification",))

RATIOS = ["reference", "ratio", "ci_low", "ci_high", "ci90_low", "ci90_high", "resamples",
          "ci90_low_mc_low", "ci90_low_mc_high", "ci90_high_mc_low", "ci90_high_mc_high",
          "equivalence"]
"""The columns of the table of budget ratios."""
PAIRED = ["lr", "algorithm_b", "budget", "seeds", "accuracy_a", "accuracy_b", "difference",
          "ci_low", "ci_high", "p_value", "p_value_holm", "verdict"]
"""The columns of the paired tables."""


def introduce(cite: Tables, studies: list[str]) -> dict[str, Any]:
    """The best-arm-identification learners, each with its summary (which names its paper)."""
    # A learner's summary names its paper (authors and year): text, not a result.
    return {"planners": [cite.declared(f"{item.display} ({item.summary})")
                         for item in registry.learners() if not item.nested]}


def verdict(row: Row) -> dict[str, Any]:
    """What a budget ratio (REINFORCE over another learner) shows, for the template's macro:
    ``side`` "fewer" or "more" rollouts (95% interval below or above 1, else ""), whether the
    ratio is within the margin (TOST) and whether that is unresolved."""
    side = "fewer" if row.ci_high < 1 else "more" if row.ci_low > 1 else ""
    return {"side": side, "as_efficient": bool(row.as_efficient),
            "unresolved": row.equivalence == "unresolved"}


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The study's budgets (references, and REINFORCE at its best lr without a baseline and with
    the running mean), the budget ratios and their verdicts, and the paired tables of the
    default lr and of the best lr (when the even seeds chose another) at the compared budgets."""
    budgets = cite.read(study, "budget_to_target")
    ratios = cite.read(study, SECTION.table)
    versus = cite.read(study, "vs_best_arm_identification")
    held_out = cite.read(study, "best_lr_vs_references")
    compared = cite.read(study, SETTINGS).iloc[0]["compared_budgets"]
    rows = budgets[~budgets["algorithm"].isin(registry.trained())
                   | (budgets["lr_role"] == LrRole.BEST)]
    first = cite.first(ratios)
    paired = []
    for table, who in ((versus, "default"), (held_out, "best")):
        head = table[table["budget"].isin(compared)] if table is not None else []
        if len(head):
            paired.append({"who": who, "families": families(cite, table),
                           "agreement": agreement(cite, table),
                           "table": with_verdicts(cite, head)[PAIRED].rename(
                               columns={"accuracy_a": "reinforce"})})
    return {
        "H": Named(cite.first(budgets).hardness_H, ",.0f"),
        "budgets": lambda: with_estimates(
            cite, rows[rows["baseline"].isin(["none", "running_mean"])], **ESTIMATE)[SHOWN],
        "lr": Named(first.lr, "g"),
        "ratios": [printed(r, ratio=".2f", ci_low=".2f", ci_high=".2f", reference=display)
                   | {"verdict": verdict(r)} for r in cite.rows(ratios)],
        "margin": Named(first.ratio_margin, "g"), "inverse": Named(1 / first.ratio_margin, ".2f"),
        "confidence": Named(cite.constant("analysis.budget_to_target.MONTE_CARLO_CONFIDENCE"),
                            "g"),
        "ratio_table": ratios[RATIOS],
        "chose_default": held_out is None,
        "listed": [Named(b, ",") for b in distinct(cite, versus[versus["budget"].isin(compared)],
                                                   "budget")],
        "paired": paired}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Every algorithm's accuracy against budget on the study's bandit."""
    accuracy = read_table(tables, "accuracy")
    name = figure_name(study, "best_arm_identification")
    title = f"arms {bandit(accuracy['environment'].iat[0])}"
    return {name: plots.best_arm_identification(
        {title: (accuracy, read_table(tables, "budget_to_target"))}, out_dir, name)}
