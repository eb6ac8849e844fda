"""How many seeds each claim needs: the study whose config declares this section gets its power
table (the seeds each of its tests needs for the effects it states) and, for each study whose
config declares itself the seed exercise, how wide that exercise's few seeds left its
intervals."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from analysis.questions import SETTINGS
from analysis.questions.power import CLAIM_COLUMN
from analysis.roles import Against
from figures import plots
from figures.cite import Cited, Row, Tables, read_table
from figures.claims import distinct, figure_name, headline_rows, printed
from figures.numbers import Named, Scope
from figures.sections import Section, declaring
from figures.words import comparison

EXERCISE = "seed_exercise"
"""The part of this section a study declares to be read as a seed exercise (``quick``'s)."""
SECTION = Section(table="power", title="How many seeds each claim needs",
                  template="seeds.md.j2", order=7, declared=True, shared=True,
                  parts=(EXERCISE,), figures=("power_curves",))

WIDTH = "ci_high - ci_low"
"""An accuracy interval's width, as an expression of its row."""


def needed(row: Row) -> dict[str, Any]:
    """Seeds a paired plan needs, for the template's macro: ``planned`` where the planner found
    a number, else ``impossible`` (an effect above the discordance, NaN) or neither (its search
    ends at 2.5 times the normal approximation's n without one)."""
    seeds = row.seeds_exact.value
    return {"planned": math.isfinite(seeds) and Named(row.seeds_exact, ",.0f"),
            "impossible": math.isnan(seeds) and Named(row.discordance, ".3f")}


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The power table, the exact power of the claimed seeds against chance at the smallest
    planned budget, the seeds the largest paired effect needs, and the seed exercises."""
    power = cite.read(study, SECTION.table)
    against = power["against"] == Against.CHANCE
    chance = power[against & (power["budget"] == power[against]["budget"].min())]
    paired = power[~against & (power["effect_of_interest"]
                               == power["effect_of_interest"].max())]
    settings = cite.first(cite.read(study, SETTINGS))
    sweep = headline_rows(cite.read(study, "accuracy"), cite.read(study, SETTINGS).iloc[0],
                          or_every=True)
    return {
        "effects": [Named(e, "g") for e in distinct(cite, power, "effect_of_interest")],
        "claim": cite.constant("analysis.questions.power.CLAIM_SEEDS"),
        "table": power,
        "against": [f"`{kind.value}`, {comparison((kind.value, settings.reference.value))}"
                    for kind in Against if (power["against"] == kind).any()],
        "level": Named(cite.first(chance).alpha_per_test, ".3g"),
        "chance": [{"power": Named(r[CLAIM_COLUMN], ".2f"),
                    "effect": Named(r.effect_of_interest, "g")} for r in cite.rows(chance)],
        "largest": Named(cite.largest(power, "effect_of_interest"), "g"),
        "paired": [{"seeds": needed(r),
                    "comparison": Named(Cited.gather(r.against, settings.reference),
                                        shown=comparison),
                    "budget": Named(r.budget, ",")} for r in cite.rows(paired)],
        # A study that declares the exercise but has no accuracy table (many prompts) has none.
        "exercises": [exercise(cite, name, sweep) for name in declaring(cite.tables, EXERCISE)
                      if cite.read(name, "accuracy") is not None],
        "section": cite.declared("section 1")}


def exercise(cite: Tables, study: str, sweep: Any) -> dict[str, Any]:
    """A seed exercise's accuracy at its compared budgets and the widths of its intervals, beside
    those of the headline rows ``sweep``."""
    accuracy = cite.read(study, "accuracy")
    rows = accuracy[accuracy["budget"].isin(
        cite.read(study, SETTINGS).iloc[0]["compared_budgets"])]
    return {"study": study, "seeds": cite.first(rows).seeds,
            "parts": [printed(r, accuracy=".3f", ci_low=".3f", ci_high=".3f", budget=",")
                      for r in cite.rows(rows)],
            "narrowest": Named(cite.smallest(rows, WIDTH), ".3f"),
            "widest": Named(cite.largest(rows, WIDTH), ".3f"),
            "sweep_narrowest": Named(cite.smallest(sweep, WIDTH), ".3f"),
            "sweep_widest": Named(cite.largest(sweep, WIDTH), ".3f"),
            "sweep_seeds": Named(cite.first(sweep).seeds, ",")}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Power against seeds at the rates the run observed."""
    curves = read_table(tables, "power_curves")
    if curves is None:
        return {}
    name = figure_name(study, "power_curves")
    reference = str(read_table(tables, SETTINGS)["reference"].iat[0])
    return {name: plots.power_curves(curves, out_dir, name, reference)}
