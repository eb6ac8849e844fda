"""With a per-pull cost: a study whose grid has several costs (its analysis makes
``best_budget``) gets REINFORCE's best budget per cost, the break-even cost of each step between
checkpoints, and REINFORCE against its reference learner by net value at several deployment
sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.questions import SETTINGS
from figures import plots
from figures.cite import Tables, read_table
from figures.claims import distinct, figure_name, printed
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import display, pvalue
from study.model import registry

SECTION = Section(table="best_budget",
                  title="With a per-pull cost: does the extra compute pay for itself?",
                  template="cost.md.j2", order=6, shared=True, figures=("net_value",))

BEST = ["cost", "best_budget", "net_value", "ci_low", "ci_high", "runner_up_budget",
        "gain_over_runner_up", "gain_over_runner_up_low", "gain_over_runner_up_high",
        "interval", "resolved"]
"""The columns of the table of best budgets."""
STEPS = ["from_budget", "to_budget", "break_even_cost", "ci_low", "ci_high", "interval"]
"""The columns of the table of break-even costs."""
VERSUS = {"deployment_pulls": "deployment_pulls", "cost": "cost",
          "best_budget_a": "reinforce_budget", "best_budget_b": "uniform_budget",
          "net_value_a": "reinforce_net", "net_value_b": "uniform_net",
          **{c: c for c in ("difference", "ci_low", "ci_high", "interval", "simultaneous_low",
                            "simultaneous_high", "higher")}}
"""The columns of the paired table of net values, as shown."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """REINFORCE's best budgets and break-even steps with the counts of resolved optima and of
    steps whose interval includes zero, the last step that pays, and the costs at which each
    learner's net value is higher, by deployment size."""
    trained = f"algorithm in {registry.trained()!r}"
    best = cite.read(study, SECTION.table)
    best = best[best["algorithm"].isin(registry.trained())]
    steps = cite.read(study, "break_even")
    steps = steps[steps["algorithm"].isin(registry.trained())]
    versus = cite.read(study, "net_value_vs_reference")
    paying = steps[steps["ci_low"] > 0]
    verdicts = []
    for pulls in distinct(cite, versus, "deployment_pulls"):
        at_d = versus[versus["deployment_pulls"] == pulls.value]
        verdicts.append({"pulls": Named(pulls, ",.0f"), "parts": [
            {"higher": None if verdict == "unresolved" else display(verdict),
             "costs": [Named(r.cost, "g")
                       for r in cite.rows(at_d[at_d["higher"] == verdict])]}
            for verdict in at_d["higher"].drop_duplicates()]})
    return {
        "deployment": Named(cite.first(cite.read(study, SETTINGS)).deployment_pulls, ","),
        "settled": cite.constant("analysis.cost.SETTLED_SEEDS"),
        "lr": Named(cite.first(steps).lr, "g"),
        "resolved": cite.count(best, f"{trained} and resolved"),
        "costs": cite.count(best, trained), "best": best[BEST],
        "straddle": cite.count(steps, f"{trained} and ci_low <= 0 and ci_high >= 0"),
        "steps": cite.count(steps, trained), "step_table": steps[STEPS],
        "paying": len(paying) and printed(cite.last(paying), from_budget=",", to_budget=",",
                                          break_even_cost=".3g", ci_low=".3g", ci_high=".3g",
                                          seeds_better=",", seeds_worse=",", p_value=pvalue,
                                          p_value_holm=pvalue),
        "rows": cite.count(versus), "verdicts": verdicts,
        "versus": versus[list(VERSUS)].rename(columns=VERSUS)}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Expected net value against budget, a line per cost, the best budgets marked."""
    name = figure_name(study, "net_value")
    return {name: plots.net_value(read_table(tables, "net_value"),
                                  read_table(tables, SECTION.table), out_dir, name)}
