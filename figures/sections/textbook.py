"""The textbook check, Sutton and Barto's Figure 2.5: a study whose analysis made the
optimal-action points of its learning curves (``curve_points``) gets them in a table and the
gap the book's baseline makes at the last step."""

from __future__ import annotations

from typing import Any

from figures.cite import Tables
from figures.numbers import Named, Scope
from figures.sections import Section, printed, with_intervals

SECTION = Section(table="curve_points",
                  title="The textbook check: Sutton and Barto, Figure 2.5",
                  template="textbook.md.j2", order=8, shared=True)

OPTIMAL = "optimal action [95% Wilson]"
"""The table's column of the optimal-action fraction with its interval."""
ENVIRONMENT = "config.environments.0"
"""The testbed in the study's manifest."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The testbed, the runs and steps, the table at a tenth, half and all of the steps, and at
    the last step the optimal-action fraction without a baseline and with the book's, at the
    smaller step size (where the baseline matters most)."""
    points = cite.read(study, SECTION.table)
    steps = cite.largest(points, "step")
    last = int(steps)
    end = points[points["step"] == last]
    end = end[end["lr"] == end["lr"].min()]
    with_b = end[end["baseline"] == "running_mean_inclusive"]
    without = end[end["baseline"] == "none"]
    shown = points[points["step"].isin((last // 10, last // 2, last))]
    ends = {"optimal_action": ".3f", "optimal_ci_low": ".3f", "optimal_ci_high": ".3f"}
    return {
        "arms": cite.manifest_value(study, f"{ENVIRONMENT}.arms"),
        "mean": Named(cite.manifest_value(study, f"{ENVIRONMENT}.params.0"), "g"),
        "sd": Named(cite.manifest_value(study, f"{ENVIRONMENT}.params.1"), "g"),
        "runs": Named(cite.first(points).seeds, ","), "steps": Named(steps, ","),
        # A function: the cells are recorded where the template shows the table.
        "table": lambda: with_intervals(cite, shown, ".3f", **{OPTIMAL: (
            "optimal_action", "optimal_ci_low", "optimal_ci_high")})[
                ["lr", "baseline", "step", OPTIMAL, "mean_reward"]],
        "gap": len(with_b) > 0 and len(without) > 0 and {
            "plain": printed(cite.first(without), **ends),
            "book": printed(cite.first(with_b), step=",", lr="g", **ends)}}
