"""Pass rate beside best-arm accuracy: a study whose config declares this section gets its
headline cell's best-arm accuracy and pass-rate regret side by side at the compared budgets
(``analysis.questions.pass_rate_regret``), each with its interval, and whether training lowered
the regret below the never-training policy's."""

from __future__ import annotations

from typing import Any

from analysis.families import ALPHA
from analysis.questions import SETTINGS
from figures.cite import Tables
from figures.claims import families, printed
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import baseline_name, pvalue

SECTION = Section(table="pass_rate_regret", title="Pass rate beside best-arm accuracy",
                  template="pass_rate_regret.md.j2", order=13, declared=True)

SHOWN = ["budget", "seeds", "accuracy", "accuracy_low", "accuracy_high", "pass_rate",
         "pass_rate_low", "pass_rate_high", "regret", "regret_low", "regret_high",
         "regret_interval", "untrained_regret", "p_value", "p_value_holm"]
"""The columns of the section's table."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Each compared budget's accuracy and regret with their intervals, the never-training
    policy's regret and the Holm-adjusted p-value of the regret's test, with its verdict."""
    found = cite.read(study, SECTION.table)
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    cells = cite.read(study, "cells")
    headline = cells[cells["cell"] == cite.read(study, SETTINGS)["headline_cell"].iat[0]]
    alpha = cite.constant("analysis.families.ALPHA")
    rows = []
    for r in cite.rows(found):
        row: dict[str, Any] = printed(r, budget=",", seeds=",", accuracy=".3f",
                                      accuracy_low=".3f", accuracy_high=".3f", regret=".4f",
                                      untrained_regret=".4f")
        # An interval where the seeds' regrets differ (none around a constant); a test where
        # the interval is a t interval (the table's rule).
        varies = r.regret_interval.value != "constant"
        tested = r.regret_interval.value == "t"
        row.update(printed(r, regret_low=".4f", regret_high=".4f") if varies else {},
                   varies=varies, tested=tested,
                   lowered=tested and r.p_value_holm.value < ALPHA,
                   p=Named(r.p_value_holm, shown=pvalue) if tested else None)
        rows.append(row)
    return {"rows": rows, "lr": Named(cite.first(headline).lr, "g"),
            "baseline": baseline_name(headline["baseline"].iat[0]),
            "alpha": Named(alpha, "g"), "families": families(cite, found),
            "table": found[SHOWN]}
