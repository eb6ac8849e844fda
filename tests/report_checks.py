"""Independent recomputation for the report's tests (``tests/test_report.py``): the statistics the
report prints, computed again from a study's runs with scipy, statsmodels and numpy, never
through ``analysis``; and the report's Markdown tables read back and set against the table files
they show.

What is independent of what: the runs are read with ``study.orchestration.storage.read_runs``
(the data contract, not the analysis); every interval, test and adjustment here is written from
its published definition (Wilson 1927 and Holm 1979 through statsmodels, the exact McNemar test
through statsmodels' ``mcnemar``, Newcombe 1998 method 10, one-sided Clopper-Pearson limits
through scipy's beta quantiles, the isotonic fit through scipy), so that an error in the
analysis, in the choice of a row, or in a number's formatting shows as a difference from what
the report prints. Bootstrap intervals are left out: they depend on the analysis's own
resamples, and the table files they come from are set against the report's tables
(``rows_of``) by ``test_every_markdown_table_of_the_report_is_its_table_files_rows``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import isotonic_regression
from scipy.stats import beta
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from figures.words import budget_estimate, budget_ratio
from study.orchestration.storage import read_runs

LEVEL = 0.95
"""The level of every interval the report prints beside a number."""
ALPHA = 0.05
"""The level of every test and of the two one-sided tests of equivalence (a 90% interval)."""
TARGET = 0.9
"""The accuracy a budget to target is the budget to (the report says "budget to 0.9")."""


def runs(out: Path, study: str, *columns: str) -> pd.DataFrame:
    """The runs of ``study`` under ``out`` with the cell columns and ``columns``."""
    cells = ["cell", "algorithm", "nested", "baseline", "lr", "group_size", "environment",
             "arms", "arm_values", "draw_parameters", "cost"]
    return read_runs(out / study, [*cells, *columns])


def matrix(frame: pd.DataFrame, column: str = "correct") -> pd.DataFrame:
    """One cell's ``column`` as a (seeds, budgets) frame, seeds and budgets sorted."""
    return frame.pivot(index="seed", columns="budget", values=column)


def by_cell(frame: pd.DataFrame, column: str = "correct") -> dict[int, pd.DataFrame]:
    """``matrix`` of every cell of a runs table, by cell id."""
    return {int(cell): matrix(group, column) for cell, group in frame.groupby("cell")}


def cells_of(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per cell of a runs table, in cell order, indexed by cell id."""
    return frame.drop_duplicates("cell").set_index("cell").sort_index()


def odd(values: pd.DataFrame) -> pd.DataFrame:
    """The rows of a (seeds, budgets) frame whose seed id is odd: the seeds that test a choice
    the even ones made."""
    return values[values.index.to_numpy() % 2 == 1]


def even(values: pd.DataFrame) -> pd.DataFrame:
    """The rows of a (seeds, budgets) frame whose seed id is even."""
    return values[values.index.to_numpy() % 2 == 0]


def wilson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval of a proportion (statsmodels)."""
    low, high = proportion_confint(successes, n, alpha=1 - level, method="wilson")
    return float(low), float(high)


@dataclass(frozen=True)
class Paired:
    """Two right-or-wrong outcome vectors compared seed by seed: the 2 x 2 counts, the two
    accuracies, the difference with Newcombe's 95% and 90% intervals and the exact McNemar
    p-value."""

    seeds: int
    accuracy_a: float
    accuracy_b: float
    difference: float
    ci_low: float
    ci_high: float
    ci90_low: float
    ci90_high: float
    p_value: float

    @property
    def agrees(self) -> bool:
        """Whether the 95% interval excludes 0 exactly when the test rejects at ``ALPHA``."""
        return (self.p_value < ALPHA) == (self.ci_low > 0 or self.ci_high < 0)


def newcombe(both: int, only_a: int, only_b: int, neither: int,
             level: float) -> tuple[float, float]:
    """Newcombe's (1998) method 10 for a paired difference of proportions: the two margins'
    Wilson limits combined through the phi coefficient of the 2 x 2 table, its numerator
    ad - bc lowered by n/2 when above n/2, set to 0 between 0 and n/2."""
    n = both + only_a + only_b + neither
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = wilson(both + only_a, n, level)
    l2, u2 = wilson(both + only_b, n, level)
    numerator = both * neither - only_a * only_b
    if numerator > n / 2:
        numerator -= n / 2
    elif numerator >= 0:
        numerator = 0
    product = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = numerator / math.sqrt(product) if product else 0.0
    d = p1 - p2
    low = d - math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2,
                            0.0))
    high = d + math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2,
                             0.0))
    return max(low, -1.0), min(high, 1.0)


def paired(a: np.ndarray, b: np.ndarray) -> Paired:
    """``Paired`` of outcome vectors ``a`` and ``b``, aligned seed by seed."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    counts = [int(x.sum()) for x in (a & b, a & ~b, ~a & b, ~a & ~b)]
    both, only_a, only_b, neither = counts
    n = len(a)
    # statsmodels' exact McNemar test: the binomial test of the discordant pairs at 1/2.
    p = (1.0 if only_a + only_b == 0 else
         float(mcnemar([[both, only_a], [only_b, neither]], exact=True).pvalue))
    return Paired(n, (both + only_a) / n, (both + only_b) / n, (only_a - only_b) / n,
                  *newcombe(*counts, LEVEL), *newcombe(*counts, 1 - 2 * ALPHA), p)


def holm(p_values: Iterable[float]) -> np.ndarray:
    """Holm-adjusted p-values (statsmodels)."""
    p_values = np.asarray(list(p_values), dtype=float)
    return multipletests(p_values, method="holm")[1] if p_values.size else p_values


def inside_margin(ci90: tuple[float, float], margin: float) -> bool:
    """Whether a 90% interval lies inside +-margin (two one-sided tests at ``ALPHA``)."""
    return -margin < ci90[0] and ci90[1] < margin


def verdict(difference: float, inside: bool, p_holm: float, margin: float) -> str:
    """A paired row's verdict as the report words it: a difference where Holm's p is below
    ``ALPHA`` (smaller than the margin when it is shown ``inside`` it), equivalence where only
    that is shown, else unresolved."""
    if p_holm < ALPHA:
        found = "A better" if difference > 0 else "A worse"
        return f"{found}, by less than {margin:g}" if inside else found
    return f"equivalent within +-{margin:g}" if inside else "unresolved"


def crossing(budgets: Iterable[float], means: Iterable[float], target: float = TARGET) -> float:
    """The budget where the isotonic (increasing) fit of ``means`` first reaches ``target``,
    linear in log budget between checkpoints; the first budget if it starts there, inf if it
    never does."""
    budgets = np.asarray(list(budgets), dtype=float)
    fit = isotonic_regression(np.asarray(list(means), dtype=float)).x
    reached = np.flatnonzero(fit >= target)
    if not reached.size:
        return math.inf
    i = int(reached[0])
    if i == 0:
        return float(budgets[0])
    share = (target - fit[i - 1]) / (fit[i] - fit[i - 1])
    return float(math.exp(math.log(budgets[i - 1])
                          + share * math.log(budgets[i] / budgets[i - 1])))


def hardness(values: Iterable[float]) -> float:
    """H = the sum over the arms below the best of 1 / gap^2."""
    values = list(values)
    return sum(1 / (max(values) - v) ** 2 for v in values if v < max(values))


SETTLED = 30
"""Seeds that must differ from the most common value before the report gives a mean a t
interval; below it, the bound (``Bound``). The tests run fewer seeds than this, so every
interval of a mean over seeds they check is the bound."""


def clopper_pearson(k: np.ndarray, n: int, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper-Pearson limits of k of n, each at ``level``: the lower (0 at k = 0)
    and the upper (1 at k = n)."""
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, beta.ppf(1 - level, k, n - k + 1), 0.0)
        high = np.where(k < n, beta.ppf(level, k + 1, n - k), 1.0)
    return low, high


@dataclass(frozen=True)
class Bound:
    """Per-seed values of several means, summarised as the bound reads them: per mean its most
    common value v (the smallest of equally common ones) and the seeds above and below it, out
    of ``seeds``; the values a seed can take lie in ``support`` (lowest, highest), at least
    ``step`` apart (0 for a continuum)."""

    mean: np.ndarray
    v: np.ndarray
    above: np.ndarray
    below: np.ndarray
    seeds: int
    support: tuple[float, float]
    step: float

    @classmethod
    def of(cls, values: np.ndarray, support: tuple[float, float], step: float) -> Bound:
        """``values``: (means, seeds)."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        assert values.shape[1] < SETTLED, "a t interval is not what these checks compute"
        # Values equal in exact arithmetic can differ in their last bits: one value here.
        rounded = np.round(values, 9)
        common = []
        for row in rounded:
            found, counts = np.unique(row, return_counts=True)
            common.append(found[np.argmax(counts)])
        v = np.array(common)
        return cls(values.mean(axis=1), v, (rounded > v[:, None]).sum(axis=1),
                   (rounded < v[:, None]).sum(axis=1), values.shape[1], support, step)

    def interval(self, level: float | np.ndarray = LEVEL) -> tuple[np.ndarray, np.ndarray]:
        """The interval of each mean that the report gives where fewer than ``SETTLED`` seeds
        differ from v (README, Methods: "paired t-test of a mean difference" and
        "Clopper-Pearson bound"): with a and b the shares of seeds above and below v,
        E X lies between v + step a - (v - lowest) b and v + (highest - v) a - step b, each share
        replaced by its one-sided Clopper-Pearson limit at 1 - (1 - level) / 4 so that the four
        hold together."""
        shared = 1 - (1 - np.asarray(level)) / 4
        above_low, above_high = clopper_pearson(self.above, self.seeds, shared)
        below_low, below_high = clopper_pearson(self.below, self.seeds, shared)
        lowest, highest = self.support
        step_above = np.where(self.v < highest, self.step, 0.0)
        step_below = np.where(self.v > lowest, self.step, 0.0)
        return (self.v + step_above * above_low - (self.v - lowest) * below_high,
                self.v + (highest - self.v) * above_high - step_below * below_low)

    def p_values(self) -> np.ndarray:
        """The two-sided p-value of a zero mean that each interval implies: the smallest alpha
        whose 1 - alpha interval excludes 0, found by bisection in log alpha between 1e-15 (the
        smallest the report resolves) and 1."""
        def excludes(log_alpha: np.ndarray) -> np.ndarray:
            low, high = self.interval(1 - np.exp(log_alpha))
            return (low > 0) | (high < 0)

        low = np.full(len(self.v), math.log(1e-15))
        high = np.zeros(len(self.v))
        for _ in range(60):
            middle = (low + high) / 2
            excluded = excludes(middle)
            low, high = np.where(excluded, low, middle), np.where(excluded, middle, high)
        return np.where(~excludes(np.zeros(len(self.v))), 1.0,
                        np.where(excludes(np.full(len(self.v), math.log(1e-15))), 1e-15,
                                 np.exp(high)))


def pvalue_cell(p: float) -> str:
    """A p-value in a report's table: two significant digits, "< 1e-15" below 1e-15."""
    return "< 1e-15" if p < 1e-15 else f"{p:.2g}"


def cell_text(value: object) -> str:
    """A value as a report's table shows it (``DataFrame.to_markdown(floatfmt=".5g")``): floats
    to five significant digits, rounding residues below 1e-12 as 0, missing text as empty."""
    if value is None or (isinstance(value, str) and not value):
        return ""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return format(0.0 if abs(value) < 1e-12 else float(value), ".5g")
    return str(value)


def section(report: str, number: int) -> str:
    """Section ``number`` of the report, from its heading to the next one of its level."""
    start = report.index(f"\n## {number}. ")
    end = report.find("\n## ", start + 1)
    return report[start:end if end >= 0 else len(report)]


def part(text: str, study: str) -> str:
    """The part of a section shared by studies that is ``study``'s: from the paragraph or
    sub-heading that names it to the next that names another (or the section's end)."""
    start = re.search(rf"^(\*\*{re.escape(study)}\*\*|### {re.escape(study)}$)", text,
                      re.MULTILINE)
    assert start is not None, study
    end = re.compile(r"^(\*\*[a-z0-9_]+\*\* \(|### )", re.MULTILINE).search(text, start.end())
    return text[start.start():end.start() if end else len(text)]


# -- The report's Markdown tables -----------------------------------------------------------


@dataclass(frozen=True)
class Markdown:
    """A Markdown table of the report: the line it starts on, the study whose part of the report
    it is in ("" where the report has not named one since the last section heading), its header
    and its rows, cells stripped."""

    line: int
    study: str
    header: list[str]
    rows: list[list[str]]


def markdown_tables(report: str, studies: Iterable[str]) -> list[Markdown]:
    """Every Markdown table of ``report``, with the study each is shown for: named in a
    section's heading ("(`study`)"), in a sub-heading ("### study") or at the start of a
    paragraph ("**study**")."""
    names = "|".join(re.escape(s) for s in sorted(studies, key=len, reverse=True))
    naming = re.compile(rf"^(?:##.*\(`({names})`\)$|### ({names})$|\*\*({names})\*\*)")
    found: list[Markdown] = []
    study, rows, start = "", [], -1
    for number, line in enumerate([*report.splitlines(), ""]):
        if line.startswith("|"):
            if not rows:
                start = number
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        if rows:
            found.append(Markdown(start, study, rows[0], rows[2:]))
            rows = []
        if line.startswith("## "):
            study = ""
        named = naming.match(line)
        if named:
            study = next(group for group in named.groups() if group)
    return found


RENAMED = {"reinforce": ("accuracy_a",), "uniform": ("accuracy_b",), "per_arm": ("accuracy_a",),
           "running_mean": ("accuracy_b",), "reinforce_budget": ("best_budget_a",),
           "uniform_budget": ("best_budget_b",), "reinforce_net": ("net_value_a",),
           "uniform_net": ("net_value_b",)}
"""The report's names for the two sides of a paired table (A, the trained cell, and B), by the
column each names (``figures/sections``: references, baselines, best-arm identification, cost)."""
INTERVALS = {
    "optimal action [95% Wilson]": (".3f", [("optimal_action", "optimal_ci_low",
                                             "optimal_ci_high")]),
    "difference [95%]": ("+.4f", [("difference", "ci_low", "ci_high"),
                                  ("difference", "difference_low", "difference_high")]),
    "ratio_to_single [95%]": (".2f", [("ratio_to_single", "ratio_to_single_low",
                                       "ratio_to_single_high"), ("ratio", "ratio_low",
                                                                 "ratio_high")]),
    "ratio_to_uniform [95%]": (".2f", [("ratio_to_uniform", "ratio_to_uniform_low",
                                        "ratio_to_uniform_high")]),
    "ratio [family interval]": (".4f", [("ratio", "ratio_low", "ratio_high")]),
    "difference [95%, six decimals]": ("+.6f", [("difference", "difference_low",
                                                 "difference_high")]),
    "difference [95%, five decimals]": ("+.5f", [("difference", "difference_low",
                                                  "difference_high")])}
"""The report's columns that join a value and its interval as "value [low, high]": the format
each is printed with and the columns (value, low, high) it may come from."""
ESTIMATES = {
    "budget [95%]": [("budget_to_target", "ci_low", "ci_high")],
    "rollouts [95%]": [("rollouts_to_target", "ci_low", "ci_high"),
                       ("budget_to_target", "budget_low", "budget_high")]}
"""The report's columns that print a budget with its interval as ``budget_estimate`` does, and the
columns (value, low, high) they may come from, beside ``ESTIMATE_COLUMNS``."""
ESTIMATE_COLUMNS = ("reached", "at_first_checkpoint", "largest_budget")
RATIO = "ratio [95%]"
RATIO_COLUMNS = ("ratio", "ci_low", "ci_high", "reached_a", "reached_b", "budget_a", "budget_b")
"""The report's column of budget ratios (the off-policy studies' ``budget_ratios`` tables),
printed as ``budget_ratio`` does from these columns: a ratio with its interval, the bound where
one cell does not reach the target, "not estimated" where neither does."""
FINDINGS = {"higher": "higher", "lower": "lower", "equivalent": "within +-{margin:g}",
            "unresolved": "unresolved"}
"""A finding of the many-prompts verdict table in the report's words."""
SAME_RUNS = "as per group (the same runs)"
"""The verdict table's entry where a rule's two normalizations are one simulation."""


def verdict_texts(frame: pd.DataFrame) -> list[str] | None:
    """Each paired row's verdict as the report words it: from its difference, 90% interval,
    Holm p-value and margin (``verdict``) where the file has them, else from its ``finding``
    (empty where it has none); None for a file that has neither."""
    if "p_equivalence_holm" in frame and {"difference", "p_value_holm", "margin"} <= set(
            frame.columns):
        # Equivalence by its own Holm family: inside the margin where its adjusted p is below
        # ALPHA.
        return [verdict(d, q < ALPHA, p, m)
                for d, p, q, m in frame[["difference", "p_value_holm", "p_equivalence_holm",
                                         "margin"]].itertuples(index=False)]
    if {"difference", "ci90_low", "ci90_high", "p_value_holm", "margin"} <= set(frame.columns):
        return [verdict(d, inside_margin((low, high), m), p, m) for d, low, high, p, m in frame[
            ["difference", "ci90_low", "ci90_high", "p_value_holm", "margin"]].itertuples(
                index=False)]
    if not {"finding", "within_margin", "margin"} <= set(frame.columns):
        return None
    words = {"higher": "A better", "lower": "A worse"}
    texts = []
    for finding, within, margin in frame[["finding", "within_margin", "margin"]].itertuples(
            index=False):
        if pd.isna(finding):
            texts.append("")
        elif str(finding) in words:
            texts.append(words[str(finding)] + (f", by less than {margin:g}" if within else ""))
        else:
            texts.append(f"equivalent within +-{margin:g}" if str(finding) == "equivalent"
                         else "unresolved")
    return texts


def estimate_texts(frame: pd.DataFrame, names: tuple[str, str, str]) -> list[str]:
    """Each row's budget (the columns ``names``: value, low, high) as ``budget_estimate`` prints
    it."""
    return [budget_estimate(tuple(values)) for values in
            frame[[*names, *ESTIMATE_COLUMNS]].itertuples(index=False)]


def _is_p_value(column: str) -> bool:
    return re.fullmatch(r"p(_[a-z]+)*", column) is not None


def shown(values: pd.Series, as_float: bool = False) -> list[str]:
    """A column of a table file as the report's tables show it: a p-value column as
    ``pvalue_cell`` (empty where missing), missing text empty (categories "nan"), anything else
    as ``cell_text``; integers ``as_float`` where the table shown has numbers only (the writer
    then reads its rows as one array of floats)."""
    dtype = values.dtype
    if as_float and pd.api.types.is_integer_dtype(dtype):
        return [cell_text(float(v)) for v in values.tolist()]
    p_values = _is_p_value(str(values.name)) and pd.api.types.is_float_dtype(dtype)
    missing = "nan" if isinstance(dtype, pd.CategoricalDtype) else ""
    cells = []
    for value in values.tolist():
        absent = value is None or (isinstance(value, float) and math.isnan(value))
        if p_values:
            cells.append("" if absent else pvalue_cell(value))
        elif absent and not pd.api.types.is_numeric_dtype(dtype):
            cells.append(missing)
        else:
            cells.append(cell_text(value))
    return cells


class TableFile:
    """A table file's Parquet frame, with each column's cells as the report's tables show them
    (``shown``), made once however many of the report's tables are set against the file."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self._cells: dict[tuple[str, bool], list[str]] = {}

    def cells(self, column: str, as_float: bool = False) -> list[str]:
        """``shown`` of ``column``."""
        if (column, as_float) not in self._cells:
            self._cells[(column, as_float)] = shown(self.frame[column], as_float)
        return self._cells[(column, as_float)]

    def source(self, header: str) -> str | None:
        """The column that the report's column ``header`` shows as it is (its own, or the one
        it renames), if the file has one."""
        if header in self.frame:
            return header
        return next((c for c in RENAMED.get(header, ()) if c in self.frame), None)

    def column(self, header: str, as_float: bool) -> list[str] | None:
        """Every row's cell of the report's column ``header`` (the file's column, the column it
        renames, or a value with its interval), or None where the file has no such column."""
        column = self.source(header)
        if column is not None:
            return self.cells(column, as_float)
        if header == "verdict":
            return verdict_texts(self.frame)
        for names in ESTIMATES.get(header, []):
            if all(name in self.frame for name in (*names, *ESTIMATE_COLUMNS)):
                return estimate_texts(self.frame, names)
        if header == RATIO and set(RATIO_COLUMNS) <= set(self.frame.columns):
            return [budget_ratio(tuple(values))
                    for values in self.frame[list(RATIO_COLUMNS)].itertuples(index=False)]
        spec, choices = INTERVALS.get(header, ("", []))
        for names in choices:
            if all(name in self.frame for name in names):
                values = self.frame[list(names)].to_numpy(dtype=float)
                return ["" if math.isnan(v) else f"{v:{spec}} [{low:{spec}}, {high:{spec}}]"
                        for v, low, high in values]
        return None


def _in_order(rows: list[list[str]], candidates: list[list[str]]) -> bool:
    """Whether every one of ``rows`` is one of ``candidates``, each after the one before (every
    row a distinct row of the file, in the file's order)."""
    start = 0
    for row in rows:
        at = next((i for i in range(start, len(candidates)) if candidates[i] == row), None)
        if at is None:
            return False
        start = at + 1
    return True


def rows_of(table: Markdown, file: TableFile) -> bool:
    """Whether ``table`` shows rows of the table file, cell for cell and in the file's order: a
    selection of the file's rows and columns, its paired columns renamed, a value and its
    interval joined; or the file's budgets (``ESTIMATES``) by target, one column "to <target>" per
    target of its rows (the narrow margins' wide table of budgets by target)."""
    frame = file.frame
    wide = [h for h in table.header if re.fullmatch(r"to [0-9.]+", h)]
    if wide:
        keys = [h for h in table.header if h not in wide]
        names = ESTIMATES["budget [95%]"][0]
        if not {"target", *names, *ESTIMATE_COLUMNS, *keys} <= set(frame.columns) or sorted(
                wide) != sorted({f"to {t:g}" for t in frame["target"]}):
            return False
        summaries = {(*key, f"to {target:g}"): summary for *key, target, summary in zip(
            *(file.cells(k) for k in keys), frame["target"], estimate_texts(frame, names),
            strict=True)}
        cells = [[*key, *(summaries.get((*key, to), "") for to in wide)]
                 for key in dict.fromkeys(key[:-1] for key in summaries)]
        return _in_order(table.rows, cells)
    sources = [file.source(header) for header in table.header]
    if any(c is None and h not in INTERVALS and h not in ESTIMATES and h not in ("verdict", RATIO)
           for c, h in zip(sources, table.header, strict=True)):
        return False
    # The writer reads a table of numbers only (no text, no booleans, no p-values, which it
    # shows as text) as one array of floats.
    as_float = all(c is not None and pd.api.types.is_numeric_dtype(frame[c])
                   and not pd.api.types.is_bool_dtype(frame[c])
                   and not (_is_p_value(c) and pd.api.types.is_float_dtype(frame[c]))
                   for c in sources)
    columns = [file.column(header, as_float) for header in table.header]
    if any(c is None for c in columns):
        return False
    return _in_order(table.rows, [list(cells) for cells in zip(*columns, strict=True)])


def counts_of(table: Markdown, frame: pd.DataFrame) -> bool:
    """Whether ``table`` is the count of the file's rows by environment and verdict, a column
    per verdict that occurs (the group study's tables of verdicts per bandit)."""
    texts = verdict_texts(frame)
    if texts is None or "environment" not in frame or table.header[0] != "environment":
        return False
    counts = frame.assign(verdict=texts).groupby(["environment", "verdict"]).size().unstack(
        fill_value=0)
    return (table.header[1:] == [str(c) for c in counts.columns]
            and table.rows == [[str(env), *map(str, counts.loc[env])] for env in counts.index])


def verdicts_of(table: Markdown, frame: pd.DataFrame, rules: dict[str, str],
                laws: dict[str, str]) -> bool:
    """Whether ``table`` is the many-prompts verdict table of the file ``frame``: a row per rule
    and law (``rules`` and ``laws``: their words in the report), a column per metric and
    normalization, each cell the finding in words (``FINDINGS``; "by less than" the margin
    where a difference shown lies within it), or ``SAME_RUNS`` where the file has no such
    row."""
    metrics = {"accuracy": "best-arm accuracy", "pass_rate": "pass rate"}
    if not {"allocation", "metric", "finding"} <= set(frame.columns):
        return False
    words = {}
    for row in frame.itertuples():
        text = FINDINGS[str(row.finding)].format(margin=row.margin)
        if row.within_margin and str(row.finding) in ("higher", "lower"):
            text += f", by less than {row.margin:g}"
        column = f"{metrics[row.metric]}, {row.normalization.replace('_', ' ')}"
        words[(rules[row.allocation], laws[row.environment], column)] = text
    columns = sorted({column for _, _, column in words})
    expected = [[rule, law, *(words.get((rule, law, c), SAME_RUNS) for c in columns)]
                for rule, law in sorted({(rule, law) for rule, law, _ in words})]
    return table.header == ["rule", "law", *columns] and table.rows == expected


def family_rows(tables: Path, test: Callable[[str, str], str]) -> list[list[str]]:
    """The rows the Methods section's table of families should have, read from every table
    file under ``tables``: each family of a table's ``family`` column (its Holm p-values in
    ``p_vs_chance_holm`` or ``p_value_holm``) or ``equivalence_family`` column
    (``p_equivalence_holm``), with the hypotheses it holds there (rows with an adjusted p-value,
    at the table's first cost: a row at another cost is the same simulation, as is a row in no
    family, an empty name), the test
    (``test`` of the table's name and the family's last name) and the seeds of its rows; and each
    Bonferroni family with its size and resamples. Cells as ``cell_text`` writes them."""
    rows = []
    for path in sorted(tables.glob("*/*.parquet")):
        frame = pd.read_parquet(path)
        if frame.columns.empty:
            continue
        if "cost" in frame:
            frame = frame[frame["cost"] == frame["cost"].min()]
        for column, adjusted in (("family", "p_vs_chance_holm" if "p_vs_chance_holm" in frame
                                  else "p_value_holm"),
                                 ("equivalence_family", "p_equivalence_holm")):
            if column not in frame or adjusted not in frame:
                continue
            for name, members in frame[frame[adjusted].notna()].groupby(column, sort=False,
                                                                          observed=True):
                if not name:
                    continue  # a repeated simulation's rows: its twin's p-value, no family
                seeds = members["seeds"]
                rows.append([str(name), str(len(members)),
                             test(path.stem, str(name).split("/")[-1]),
                             f"{seeds.min():,}" if seeds.min() == seeds.max()
                             else f"{seeds.min():,} to {seeds.max():,}"])
        if "bonferroni_family" in frame:
            for name, members in frame.groupby("bonferroni_family", sort=False):
                rows.append([f"{path.parent.name}/{name}", str(members["family_size"].iat[0]),
                             "simultaneous percentile seed-bootstrap intervals (Bonferroni), "
                             f"{members['resamples'].iat[0]:,} resamples",
                             f"{members['seeds'].min():,}" if "seeds" in members else ""])
    return rows


def provenance_rows(out: Path) -> list[list[str]]:
    """The rows the Provenance section's table should have, one per study's manifest under
    ``out``: numbers written to three significant digits are read by the table writer as numbers
    and printed as ``cell_text`` prints them."""
    rows = []
    for path in sorted(out.glob("*/manifest.json")):
        m = json.loads(path.read_text())
        rows.append([m["study"], m["config_hash"][:16], str(m["root_seed"]), str(m["seeds"]),
                     cell_text(float(f"{m['episodes']:.3g}")), cell_text(m["wall_seconds"]),
                     cell_text(float(f"{m['episodes_per_second']:.3g}")),
                     m["git_commit"][:12]])
    return rows


def table_after(text: str, start: str) -> Markdown:
    """The first Markdown table of ``text`` after the first place that says ``start``."""
    return markdown_tables(text[text.index(start):], [])[0]
