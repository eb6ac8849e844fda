"""Learning curves: a study whose analysis made the optimal-action points of its per-step curves
(``curve_points``, a config with ``curves = true``) gets them in a table, its bandit described
from its manifest; on Sutton and Barto's Gaussian testbed with the book's baseline and without,
the table is their Figure 2.5 and the section also gives the gap the baseline makes at the last
step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from figures import curve_plots as plots
from figures.cite import Tables, read_table
from figures.claims import figure_name, printed, with_intervals
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import bandit, display

SECTION = Section(table="curve_points",
                  title="Learning curves (the textbook check: Sutton and Barto, Figure 2.5)",
                  template="textbook.md.j2", order=8, shared=True,
                  figures=("learning_curves", "book_layout"))

OPTIMAL = "optimal action [95% Wilson]"
"""The table's column of the optimal-action fraction with its interval."""
ENVIRONMENT = "config.environments.0"
"""The testbed in the study's manifest."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The learners and the bandit, the runs and steps, the table at a tenth, half and all of the
    steps, and, where both baselines of the book ran, at the last step the optimal-action
    fraction without a baseline and with the book's, at the smaller step size (where the
    baseline matters most). The testbed's mean and spread are named where its arm values are
    drawn from a normal law (the book's testbed); any other bandit by its cells' name."""
    points = cite.read(study, SECTION.table)
    steps = cite.largest(points, "step")
    last = int(steps)
    end = points[points["step"] == last]
    end = end[end["lr"] == end["lr"].min()]
    with_b = end[end["baseline"] == "running_mean_inclusive"]
    without = end[end["baseline"] == "none"]
    shown = points[points["step"].isin((last // 10, last // 2, last))]
    ends = {"optimal_action": ".3f", "optimal_ci_low": ".3f", "optimal_ci_high": ".3f"}
    first = cite.first(points)
    testbed = cite.manifest_value(study, f"{ENVIRONMENT}.draw") == "normal"
    return {
        "learners": [display(name) for name in sorted(set(points["algorithm"]))],
        "environment": Named(first.environment, shown=bandit),
        "testbed": testbed and {
            "arms": cite.manifest_value(study, f"{ENVIRONMENT}.arms"),
            "mean": Named(cite.manifest_value(study, f"{ENVIRONMENT}.params.0"), "g"),
            "sd": Named(cite.manifest_value(study, f"{ENVIRONMENT}.params.1"), "g")},
        "runs": Named(first.seeds, ","), "steps": Named(steps, ","),
        # A function: the cells are recorded where the template shows the table.
        "table": lambda: with_intervals(cite, shown, ".3f", **{OPTIMAL: (
            "optimal_action", "optimal_ci_low", "optimal_ci_high")})[
                ["algorithm", "lr", "baseline", "step", OPTIMAL, "mean_reward"]],
        "book": plots.in_book_layout(points),
        "gap": len(with_b) > 0 and len(without) > 0 and {
            "plain": printed(cite.first(without), **ends),
            "book": printed(cite.first(with_b), step=",", lr="g", **ends)}}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The learning curves, and the book's figure where the curves are the book's grid."""
    curves = read_table(tables, "curves")
    drawn = {figure_name(study, "learning_curves"): plots.learning_curves(
        curves, out_dir, figure_name(study, "learning_curves"))}
    if plots.in_book_layout(curves):
        name = figure_name(study, "book_layout")
        drawn[name] = plots.sutton_barto_figure(curves, out_dir, name)
    return drawn
