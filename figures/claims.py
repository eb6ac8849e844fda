"""What the sections' claims share: the names of their figures, the rows and columns they
print and how (budgets past the checkpoints, interval limits, planned seeds), the Holm families
of their tables and the frames their templates show. The sections (``figures.sections``), the
paired findings and the named numbers (``figures.named``) all read these; they import nothing of
them, so the write-up's modules import one another without a cycle."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.accuracy import SAMPLER_KEYS
from analysis.families import hypothesis_query
from analysis.power import TARGET_POWER
from figures.cite import Cited, Row, Tables, formatter, read_table, unmark
from figures.numbers import Named
from figures.words import budget_estimate, paired_verdict
from study.model import registry

VERDICTS = {"equivalent": "inside", "not shown": "not inside",
            "unresolved": "within Monte Carlo error of"}
"""A budget ratio's equivalence finding as the paper's phrase: where its 90% interval lies
against the margin."""


@formatter
def more_than(budget: float) -> str:
    """A budget not reached by the largest one: "> 100,000"."""
    return f"> {budget:,.0f}"


@formatter
def budget_limit(budget: float) -> str:
    """A limit of a budget's bootstrap interval: "26,010", or "unbounded" where more than a
    tail's share of the resamples never reach the target."""
    return f"{budget:,.0f}" if math.isfinite(budget) else "unbounded"


@formatter
def at_most(budget: float) -> str:
    """A budget reached by the first checkpoint: "<= 1,000"."""
    return f"<= {budget:,.0f}"


@formatter
def planned_seeds(seeds: float) -> str:
    """Seeds a power plan needs: "1,234", or why there is no number (NaN: the effect exceeds
    the discordance; infinite: the planner found none)."""
    if math.isfinite(seeds):
        return f"{seeds:,.0f}"
    return "none (effect above the discordance)" if math.isnan(seeds) else (
        "not found by the planner")


@formatter
def verdict(equivalence: str) -> str:
    """A budget ratio's equivalence finding as a phrase (``VERDICTS``)."""
    return VERDICTS[equivalence]


@formatter
def short_of_target(power: float) -> str:
    """"only " where the exact power at the normal plan's seeds falls short of the target
    power (``analysis.power.TARGET_POWER``), else nothing."""
    return "only " if power < TARGET_POWER else ""


def headline_rows(accuracy: pd.DataFrame, settings: pd.Series, *,
                  or_every: bool = False) -> pd.DataFrame:
    """The rows of an accuracy table (or a paired table, by its cell A) for the headline cell at
    the compared budgets, both as the study's ``settings`` (a row of its ``settings`` table,
    from its config's ``[analysis]``) name them: the numbers the write-up leads with. Where the
    config names no compared budgets, none, or with ``or_every`` (a section that describes the
    headline curve) every checkpoint."""
    cell = accuracy["cell"] if "cell" in accuracy else accuracy["cell_a"]
    budgets = settings["compared_budgets"]
    every = or_every and not len(budgets)
    return accuracy[(cell == settings["headline_cell"])
                    & (True if every else accuracy["budget"].isin(budgets))]


def headline_setting(accuracy: pd.DataFrame, settings: pd.Series,
                     cells: pd.DataFrame) -> pd.DataFrame:
    """The rows of an accuracy table in the headline cell's setting (``settings`` as in
    ``headline_rows``; ``cells``: the study's cells table): its bandit, cost and, off policy,
    sampler, for every learner, lr and baseline, the trained learners' at its group size; what a
    section that describes the headline curve compares it with, so that one lr and baseline is
    one line whatever else the study's grid crosses."""
    described = accuracy.merge(cells[["cell", *(c for c in SAMPLER_KEYS if c in cells)]],
                               on="cell", how="left", suffixes=("", "_cell"))
    head = described[described["cell"] == settings["headline_cell"]].iloc[0]
    keys = [c for c in ("environment", "cost", *SAMPLER_KEYS) if c in described]
    same = (described[keys] == head[keys]).all(axis=1).to_numpy()
    trained = accuracy["algorithm"].isin(registry.trained()).to_numpy()
    return accuracy[same & (~trained | (accuracy["group_size"] == head["group_size"]).to_numpy())]


def figure_name(study: str, stem: str) -> str:
    """The name of the figure ``stem`` of ``study``: its files are ``<name>.png`` and ``.pdf``."""
    return f"{study}_{stem}"


def without_reinforce(tables: Path, table: str) -> str:
    """A section's ``unfit`` where it describes REINFORCE: why a study whose ``table`` (in its
    tables folder ``tables``) has no REINFORCE row does not fit ("" where it has one)."""
    trained = read_table(tables, table)["algorithm"].isin(registry.trained()).any()
    return "" if trained else "which has no REINFORCE cell"


def printed(row: Row, **how: str | Callable[[Any], str]) -> dict[str, Named]:
    """Columns of a cited row as a template prints them, each by its format spec or registered
    formatter (``printed(row, accuracy=".3f", p_value=pvalue)``)."""
    return {column: Named(row[column], spec) if isinstance(spec, str)
            else Named(row[column], shown=spec) for column, spec in how.items()}


def adjusted_column(columns: pd.Index, family_column: str = "family") -> str:
    """The Holm-adjusted p-value column that belongs to ``family_column`` in a table with these
    columns (equivalence tests, tests against chance, or paired tests)."""
    if family_column == "equivalence_family":
        return "p_equivalence_holm"
    return "p_vs_chance_holm" if "p_vs_chance_holm" in columns else "p_value_holm"


def family_query(table: pd.DataFrame, name: str, column: str = "family") -> str:
    """The rows of a whole table that are the distinct hypotheses of family ``name``
    (``analysis.families.hypothesis_query`` with the table's adjusted p-value column)."""
    return hypothesis_query(table, name, column, adjusted_column(table.columns, column))


def families(cite: Tables, table: pd.DataFrame, column: str = "family") -> list[dict[str, Any]]:
    """The Holm families of a table's p-values, each its ``name`` and ``size`` (hypotheses in
    the whole table), for the template macro ``families`` of ``phrases.md.j2``."""
    whole = cite.whole(table)
    # Rows in no family (a repeated simulation's) have an empty name.
    sizes = {name: cite.count(whole, family_query(whole, name, column))
             for name in table[column].drop_duplicates() if name}
    # A family whose rows here carry no adjusted p-value is tested in another table.
    return [{"name": cite.declared(name), "size": Named(size, ",")}
            for name, size in sizes.items() if size.value]


def agreement(cite: Tables, table: pd.DataFrame) -> dict[str, Any]:
    """The rows of a paired table whose Newcombe interval and exact test disagree about a
    difference of zero, and all its rows, for the template macro ``agreement``."""
    return {"disagree": cite.count(table, "~interval_agrees"), "rows": cite.count(table)}


def distinct(cite: Tables, frame: pd.DataFrame, column: str) -> list[Cited]:
    """The distinct values of a column, sorted, each cited from its first row."""
    firsts = frame.drop_duplicates(column).sort_values(column)
    return [r[column] for r in cite.rows(firsts)]


def with_estimates(cite: Tables, frame: pd.DataFrame,
                   **columns: tuple[str, str, str]) -> pd.DataFrame:
    """``frame`` with a text column for each keyword: the budget to a target of the three columns
    it names (value, low, high) as ``figures.words.budget_estimate`` prints it, recorded as it
    goes into its cell (so a section calls this where its template shows the table)."""
    return frame.assign(**{name: [unmark(r.estimate(*names).shown(budget_estimate))
                                  for r in cite.rows(frame)] for name, names in columns.items()})


def with_verdicts(cite: Tables, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (paired rows, ``analysis.paired.judge``) with a text column ``verdict``: each
    row's finding as ``figures.words.paired_verdict`` words it (empty where a row has none),
    recorded as it goes into its cell."""
    def text(r: Row) -> str:
        if pd.isna(r.finding.value):
            return ""
        return unmark(Cited.gather(r.finding, r.within_margin, r.margin).shown(paired_verdict))

    return frame.assign(verdict=[text(r) for r in cite.rows(frame)])


def with_intervals(cite: Tables, frame: pd.DataFrame, spec: str,
                   **columns: tuple[str, str, str]) -> pd.DataFrame:
    """``frame`` with a text column for each keyword: "value [low, high]" of the three columns
    it names, printed with ``spec`` (empty where the value is missing). Each number is recorded
    as it goes into its cell, so a section calls this where its template shows the table."""
    def text(r: Row, value: str, low: str, high: str) -> str:
        if pd.isna(r[value].value):
            return ""
        return unmark(f"{r[value]:{spec}} [{r[low]:{spec}}, {r[high]:{spec}}]")

    return frame.assign(**{name: [text(r, *names) for r in cite.rows(frame)]
                           for name, names in columns.items()})


def difficulty_ranges(rows: pd.DataFrame, cite: Tables, column: str, above: bool
                      ) -> list[dict[str, Any]]:
    """The difficulty bins of ``rows`` (one comparison, metric and budget; columns
    ``pass_probability_low`` and ``_high``) whose interval of ``column`` lies wholly above 0
    (``above``) or wholly below it, adjacent bins joined, as cited ranges (``close``: the bracket
    that ends a range, "]" for the last bin, which holds 1)."""
    low, high = rows[f"{column}_low"], rows[f"{column}_high"]
    return tenth_ranges(rows[(low > 0) if above else (high < 0)], cite)


def tenth_ranges(chosen: pd.DataFrame, cite: Tables) -> list[dict[str, Any]]:
    """The difficulty bins ``chosen`` (columns ``pass_probability_low`` and ``_high``),
    adjacent bins joined, as ``difficulty_ranges`` cites them."""
    chosen = chosen.sort_values("pass_probability_low")
    # A run of adjacent bins starts where a bin's lower edge is not the previous one's upper.
    starts = chosen["pass_probability_low"].ne(chosen["pass_probability_high"].shift())
    ranges = []
    for _, run in chosen.groupby(starts.cumsum()):
        last = cite.last(run)
        ranges.append({"low": Named(cite.first(run).pass_probability_low, ".1f"),
                       "high": Named(last.pass_probability_high, ".1f"),
                       "close": "]" if last.pass_probability_high.value >= 1.0 else ")"})
    return ranges
