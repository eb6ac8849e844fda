"""Paired comparisons of two cells on common random numbers: seed i of one cell against seed i of
the other, at the same budget. For right-or-wrong outcomes, McNemar's exact test on the
discordant pairs and Newcombe's (1998) hybrid score interval (his method 10) for the difference
in accuracy; for a per-seed quantity (a share of prompts right, a pass rate), the mean of the
per-seed differences with ``mean_interval``'s interval and the matching test
(``paired_difference``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.stats import norm, ttest_1samp

from analysis.binomial import proportion_interval, two_sided_pvalue
from analysis.cost import CONFIDENCE, Support, differing_seeds, mean_interval
from analysis.families import ALPHA, declare
from analysis.outcomes import Outcomes
from analysis.roles import Finding, finding, typed


@dataclass(frozen=True)
class PairedTable:
    """Counts of seeds by outcome of (A, B): both right, only A, only B, neither."""

    both: int
    only_a: int
    only_b: int
    neither: int

    @property
    def n(self) -> int:
        """Number of pairs (seeds)."""
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def difference(self) -> float:
        """Accuracy of A minus accuracy of B."""
        return (self.only_a - self.only_b) / self.n

    def mcnemar_pvalue(self) -> float:
        """Two-sided exact McNemar test: under H0 the discordant pairs split 50:50, so only_a is
        Binomial(only_a + only_b, 1/2)."""
        discordant = self.only_a + self.only_b
        return 1.0 if discordant == 0 else two_sided_pvalue(self.only_a, discordant)

    def mcnemar_statistic(self) -> float:
        """The asymptotic McNemar chi-square (b - c)^2 / (b + c), without continuity correction."""
        discordant = self.only_a + self.only_b
        return 0.0 if discordant == 0 else (self.only_a - self.only_b) ** 2 / discordant

    def difference_ci(self, confidence: float = 0.95) -> tuple[float, float]:
        """Newcombe's hybrid score interval for the paired difference: Wilson intervals of the two
        marginal accuracies combined with the correlation of the pairs (phi, corrected as he
        specifies: zero between 0 and n/2, reduced by n/2 above)."""
        n = self.n
        p1, p2 = (self.both + self.only_a) / n, (self.both + self.only_b) / n
        l1, u1 = proportion_interval(self.both + self.only_a, n, confidence)
        l2, u2 = proportion_interval(self.both + self.only_b, n, confidence)
        margins = ((self.both + self.only_a) * (self.only_b + self.neither)
                   * (self.both + self.only_b) * (self.only_a + self.neither))
        cross = self.both * self.neither - self.only_a * self.only_b
        corrected = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
        phi = corrected / math.sqrt(margins) if margins > 0 else 0.0
        delta = p1 - p2
        low = delta - math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)
                                    + (u2 - p2) ** 2, 0.0))
        high = delta + math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2)
                                     + (p2 - l2) ** 2, 0.0))
        return max(low, -1.0), min(high, 1.0)


def paired_table(a: np.ndarray, b: np.ndarray) -> PairedTable:
    """The 2 x 2 table of two boolean outcome vectors, aligned seed by seed."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    return PairedTable(int((a & b).sum()), int((a & ~b).sum()), int((~a & b).sum()),
                       int((~a & ~b).sum()))


def compare_cells(outcomes: Outcomes, cell_a: int, cell_b: int,
                  seeds: np.ndarray | None = None) -> pd.DataFrame:
    """Cell A against cell B at every budget, paired by seed (only the seeds the mask ``seeds``
    selects, if given: a cell chosen as best on other seeds is tested on the ones that did not
    choose it).

    Columns: budget, seeds, accuracy_a, accuracy_b, difference, ci_low, ci_high (Newcombe 95%),
    ci90_low, ci90_high (Newcombe 90%, for two one-sided tests of equivalence), only_a, only_b
    (discordant pairs), p_value (exact McNemar) and ``interval_agrees``: whether the 95% interval
    excludes 0 exactly when p < 0.05. With few discordant seeds the two can disagree (0 against 5:
    the interval excludes 0, p = 0.0625); the exact test decides, and the flag says where.
    """
    a, b = outcomes.outcomes(cell_a, seeds), outcomes.outcomes(cell_b, seeds)
    return pd.DataFrame([{"budget": budget, **compare_outcomes(a[:, c], b[:, c])}
                         for c, budget in enumerate(outcomes.budgets)])


def compare_outcomes(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """The columns of ``compare_cells`` for two outcome vectors aligned seed by seed."""
    table = paired_table(a, b)
    low, high = table.difference_ci(0.95)
    low90, high90 = table.difference_ci(0.90)
    p = table.mcnemar_pvalue()
    return {"seeds": table.n, "accuracy_a": (table.both + table.only_a) / table.n,
            "accuracy_b": (table.both + table.only_b) / table.n,
            "difference": table.difference, "ci_low": low, "ci_high": high,
            "ci90_low": low90, "ci90_high": high90, "only_a": table.only_a,
            "only_b": table.only_b, "p_value": p,
            "interval_agrees": bool((p < ALPHA) == (low > 0 or high < 0))}


SMALLEST_P = 1e-15
"""``paired_difference`` reports p-values below this as this: ``mean_interval``'s levels are
1 - (1 - confidence) / 4 in floating point, which cannot resolve smaller tails."""


def _interval_p_value(differences: np.ndarray, support: Support) -> float:
    """The two-sided p-value of mean 0 that inverts ``mean_interval``'s bound: 1 - the largest
    confidence at which the interval excludes 0 (the intervals are nested in the confidence, so
    rejecting at alpha exactly when the 1 - alpha interval excludes 0 is a test of level alpha).
    Searched in log(1 - confidence), where the interval's limits move continuously."""
    def excluded_by(log_alpha: float) -> float:
        interval = mean_interval(differences, support, 1 - math.exp(log_alpha))
        return max(interval.low, -interval.high)

    if excluded_by(0.0) <= 0:
        return 1.0
    if excluded_by(math.log(SMALLEST_P)) > 0:
        return SMALLEST_P
    return math.exp(brentq(excluded_by, math.log(SMALLEST_P), 0.0, xtol=1e-6))


def paired_difference(differences: np.ndarray, support: Support, alpha: float = ALPHA,
                      confidence: float = CONFIDENCE) -> dict[str, float | int | str]:
    """The mean of per-seed differences with its ``confidence`` interval and its 1 - 2 ``alpha``
    interval (two one-sided tests of equivalence at ``alpha``), both by ``mean_interval``, and a
    two-sided p-value of mean 0 from the same rule: the one-sample t-test
    (``scipy.stats.ttest_1samp``) where the interval is a t interval, the inversion of the bound
    (``_interval_p_value``) where fewer than ``SETTLED_SEEDS`` seeds differ from the most common
    value. Keys as ``analysis.paired.judge`` reads them: ``ci_*``, ``ci90_*``, ``p_value``."""
    differences = np.asarray(differences, dtype=float)
    interval = mean_interval(differences, support, confidence)
    equivalence = mean_interval(differences, support, 1 - 2 * alpha)
    if interval.method == "t":
        p_value = float(ttest_1samp(differences, 0.0).pvalue)
    else:
        p_value = _interval_p_value(differences, support)
    return {"seeds": len(differences), "differing_seeds": differing_seeds(differences),
            "difference": interval.mean, "ci_low": interval.low, "ci_high": interval.high,
            "ci90_low": equivalence.low, "ci90_high": equivalence.high,
            "interval_method": interval.method, "p_value": p_value}


def judge(table: pd.DataFrame, margin: float, alpha: float = ALPHA) -> pd.DataFrame:
    """``table`` (paired rows with Holm p-values) with the equivalence ``margin`` and what each
    row supports: ``within_margin`` (the 90% interval inside +-margin: two one-sided tests at
    ``alpha``, per row, when the row's ``ci90_*`` interval is at 1 - 2 ``alpha``) and ``finding``
    (``analysis.roles.Finding``: ``higher`` where A is shown better, Holm-adjusted p < ``alpha``,
    ``lower`` worse, else ``equivalent`` where within the margin, or ``unresolved``). The printed
    95% interval is not adjusted for the family, so it can exclude 0 in a row whose Holm p is
    above 0.05. Where the table has its equivalence tests' own Holm-adjusted p-values
    (``p_equivalence_holm``, a declared family), ``within_margin`` is theirs below ``alpha``."""
    table = table.assign(margin=margin)
    if "p_equivalence_holm" in table:
        table["within_margin"] = table["p_equivalence_holm"] < alpha
    else:
        table["within_margin"] = (table["ci90_low"] > -margin) & (table["ci90_high"] < margin)
    shown = table["p_value_holm"] < alpha
    table["finding"] = typed([finding(s and d > 0, s and d <= 0, w) for s, d, w in zip(
        shown, table["difference"], table["within_margin"], strict=True)], Finding)
    return table


FULL_NAMES = {"ci_low": "difference_low", "ci_high": "difference_high",
              "ci90_low": "equivalence_low", "ci90_high": "equivalence_high"}
"""``paired_difference``'s intervals by the full names the many-prompts tables give them."""


def judged_family(rows: list[dict], family: str, margin: float,
                  alpha: float = ALPHA) -> pd.DataFrame:
    """Rows of ``paired_difference`` (with what describes each) as one Holm family named
    ``family`` (``analysis.families.declare``), judged at ``margin`` (``judge``), their intervals
    under ``FULL_NAMES``."""
    return judge(declare(pd.DataFrame(rows), family), margin, alpha).rename(columns=FULL_NAMES)


def mcnemar_power(only_a_rate: float, only_b_rate: float, seeds: np.ndarray,
                  alpha: float = 0.05) -> np.ndarray:
    """Power of the two-sided McNemar test by its normal approximation (Connor 1987, with the
    second tail added) for
    discordant-pair probabilities P(only A) and P(only B), at each number of seeds."""
    psi = only_a_rate + only_b_rate
    delta = abs(only_a_rate - only_b_rate)
    if psi <= 0:
        return np.zeros(len(seeds))  # no discordant pairs: McNemar's test can never reject
    if psi - delta**2 <= 0:
        return np.ones(len(seeds))  # every pair discordant, all one way
    seeds = np.asarray(seeds, dtype=float)
    z = norm.ppf(1 - alpha / 2)
    spread = math.sqrt(psi - delta**2)
    # Both tails of the two-sided test: the far one matters only when the effect is near 0,
    # where it brings the power back to alpha instead of alpha / 2.
    return (norm.cdf((delta * np.sqrt(seeds) - z * math.sqrt(psi)) / spread)
            + norm.cdf((-delta * np.sqrt(seeds) - z * math.sqrt(psi)) / spread))
