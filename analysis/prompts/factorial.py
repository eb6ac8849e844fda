"""What each part of a run is worth, from a study whose cells are a two-level fractional
factorial's rows (``study.model.design``).

Every row of the design runs on the same seeds (common random numbers), so each seed gives one
value of every effect: for a factor, the mean of a metric over the rows at its high level less
the mean over the rows at its low level (each half of the rows); for two factors' interaction,
the same with the product of their columns, half the difference between the first factor's
effect at the second's high and low levels. The seeds' values are independent, so an effect is
their mean, with a t interval and the one-sample t-test of 0 (``analysis.paired.
paired_difference``: the paired t-test of the two halves' means). The design's aliases say
which other effects each estimate also holds (none of fewer than three factors at resolution
V). Each metric's tests, every main effect and two-factor interaction at every compared budget,
are one Holm family; an equivalence with 0 within the metric's margin (two one-sided tests, the
90% interval) is claimed only on a metric that has a margin.

An interaction that its family shows is read per stratum (``strata``): each of its two factors'
effects at each level of the other, over the rows at that level (a quarter of the design each
side), with its t interval (no test: the interaction is the test)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from analysis.budget_to_target import budget_ratio, crossing
from analysis.cost import CONFIDENCE, Support, mean_interval
from analysis.families import ALPHA
from analysis.paired import judged_family, paired_difference
from analysis.prompts.outcomes import seed_totals
from analysis.roles import Placement, RatioFinding, typed
from study.model.design import Design
from study.model.schema import DESIGN_ROW

METRICS = {"served_pass_rate": "served pass rate", "accuracy": "best-arm accuracy",
           "stuck": "share of stuck prompts", "expected_length": "expected answer length"}
"""The outcomes an effect is estimated on, each its own Holm family, the first primary: the pass
rate of the policy that serves answers (mismatched and truncated as the sampler is), the share
of prompts whose greedy arm is a best arm, the share of prompts stuck on a wrong answer
(``study.core.prompt_rules.STUCK_WRONG_MASS``) and the tokens of an answer the policy expects to
give (``analysis.prompts.outcomes.seed_totals``)."""
LEVELS = {-1: "low", 1: "high"}
"""A factor's coded levels by name."""


def terms(design: Design) -> list[tuple[str, str, str, np.ndarray]]:
    """(term, first factor, second factor or "", column of -1 and +1 over the rows): every main
    effect, then every two-factor interaction, in the factors' order."""
    x, names = design.matrix.astype(float), design.names
    found = [(name, name, "", x[:, i]) for i, name in enumerate(names)]
    found += [(f"{names[i]}:{names[j]}", names[i], names[j], x[:, i] * x[:, j])
              for i in range(len(names)) for j in range(i + 1, len(names))]
    return found


def by_row(runs: pd.DataFrame, design: Design, metric: str) -> dict[int, np.ndarray]:
    """Per budget, ``metric`` of every seed in every row of the design: (seeds, rows), seeds
    sorted, rows in the design's order; ValueError unless each row is one cell with every seed
    at every budget."""
    totals = seed_totals(runs, [])
    cells = totals.groupby(DESIGN_ROW)["cell"].nunique()
    if len(cells) != len(design.matrix) or (cells != 1).any():
        raise ValueError(f"the runs' cells are not the design's {len(design.matrix)} rows, one "
                         "cell each")
    found = {}
    for budget, frame in totals.groupby("budget", sort=True):
        wide = frame.pivot(index="seed", columns=DESIGN_ROW, values=metric).sort_index(axis=1)
        if wide.isna().to_numpy().any():
            raise ValueError(f"budget {budget}: not every seed is recorded in every row")
        found[int(budget)] = wide.sort_index().to_numpy()
    return found


def _half_difference(values: np.ndarray, column: np.ndarray) -> np.ndarray:
    """Per seed, the mean over the rows where ``column`` is +1 less the mean where it is -1."""
    return values[:, column > 0].mean(axis=1) - values[:, column < 0].mean(axis=1)


def effects(values: Mapping[int, np.ndarray], design: Design, metric: str, budgets: list[int],
            support: Support, margin: float, family: str, alpha: float = ALPHA,
            confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Every main effect and two-factor interaction of ``design`` on ``metric`` at each of
    ``budgets``, from ``values`` (``by_row``), one Holm family (``family``).

    Columns: ``metric``, ``budget``, ``term`` (a factor, or two joined by ``:``), ``first``,
    ``second`` ("" for a main effect), ``order`` (1 or 2), ``seeds``, ``high_mean`` and
    ``low_mean`` (the halves' means over seeds), ``difference`` (the effect) with its
    ``confidence`` interval (``difference_low``, ``difference_high``) and its 1 - 2 alpha
    interval (``equivalence_low``, ``equivalence_high``), ``differing_seeds``,
    ``interval_method``, ``p_value``, ``p_value_holm``, ``family``, ``margin`` (NaN: no
    equivalence claimed), ``within_margin`` and ``finding`` (``analysis.paired.judge``: ``higher``
    where the high level, or for an interaction the levels' agreement, is shown to raise the
    metric)."""
    rows = []
    for budget in budgets:
        seeds = values[budget]
        for term, first, second, column in terms(design):
            rows.append({"metric": metric, "budget": budget, "term": term, "first": first,
                         "second": second, "order": 2 if second else 1,
                         "high_mean": float(seeds[:, column > 0].mean()),
                         "low_mean": float(seeds[:, column < 0].mean()),
                         **paired_difference(_half_difference(seeds, column), support, alpha,
                                             confidence)})
    return judged_family(rows, family, margin, alpha)


def strata(values: Mapping[int, np.ndarray], design: Design, shown: pd.DataFrame,
           support: Support, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """For each interaction of ``shown`` (rows of ``effects``), each of its two factors' effect
    at each level of the other: ``metric``, ``budget``, ``term``, ``factor``, ``stratum`` (the
    other factor), ``stratum_level`` (``LEVELS``), ``seeds``, ``effect`` with its ``confidence``
    interval (``effect_low``, ``effect_high``) and ``interval_method``."""
    x = dict(zip(design.names, design.matrix.T.astype(float), strict=True))
    rows = []
    for row in shown.itertuples():
        seeds = values[int(row.budget)]
        for factor, other in ((row.first, row.second), (row.second, row.first)):
            for level, name in LEVELS.items():
                kept = x[other] == level
                interval = mean_interval(_half_difference(seeds[:, kept], x[factor][kept]),
                                         support, confidence)
                rows.append({"metric": row.metric, "budget": int(row.budget), "term": row.term,
                             "factor": factor, "stratum": other, "stratum_level": name,
                             "seeds": len(seeds), "effect": interval.mean,
                             "effect_low": interval.low, "effect_high": interval.high,
                             "interval_method": interval.method})
    return pd.DataFrame(rows)


CONTRASTS = (("full_recipe", "hazards_alone"), ("hazards_alone", "plain"),
             ("remedies_alone", "plain"), ("full_recipe", "plain"))
"""The named rows compared pairwise (``study.model.design.Design.named_rows``): the remedies
under every hazard, the hazards' cost without remedies, the remedies without hazards, the whole
protocol against the plain learner."""


def pairs(values: Mapping[int, np.ndarray], design: Design, metric: str, budgets: list[int],
          support: Support, margin: float, family: str, alpha: float = ALPHA,
          confidence: float = CONFIDENCE) -> pd.DataFrame:
    """The ``CONTRASTS`` whose two rows the design holds, on ``metric`` at each of ``budgets``,
    paired by seed, one Holm family (``family``): ``metric``, ``budget``, ``a`` and ``b`` (the
    rows' names), ``row_a``, ``row_b``, ``mean_a``, ``mean_b``, then as ``effects`` from
    ``seeds`` on (A minus B); no rows where the factors declare no roles."""
    named = design.named_rows()
    rows = []
    for budget in budgets:
        seeds = values[budget]
        for a, b in CONTRASTS:
            if a not in named or b not in named or named[a] == named[b]:
                continue
            first, second = seeds[:, named[a]], seeds[:, named[b]]
            rows.append({"metric": metric, "budget": budget, "a": a, "b": b,
                         "row_a": named[a], "row_b": named[b], "mean_a": float(first.mean()),
                         "mean_b": float(second.mean()),
                         **paired_difference(first - second, support, alpha, confidence)})
    if not rows:
        return pd.DataFrame()
    return judged_family(rows, family, margin, alpha)


def model_check(values: Mapping[int, np.ndarray], design: Design, metric: str,
                budgets: list[int], support: Support,
                confidence: float = CONFIDENCE) -> pd.DataFrame:
    """How far the model of main effects and two-part interactions misses each row the factors'
    roles name (``Design.named_rows``): per seed, the row's value less the model's prediction
    (the seed's mean over every row plus half of each term's effect times the row's level of
    its column, the least-squares fit of an orthogonal design); the miss is the sum of the
    interactions of three parts or more at that row, which the design's aliasing otherwise
    hides. Columns: ``metric``, ``budget``, ``row`` (its name), ``design_row``, ``seeds``,
    ``observed``, ``predicted`` (means over seeds), ``miss`` with its ``confidence`` t interval
    (``miss_low``, ``miss_high``) and ``interval_method``; no rows where the model fits every row
    of the design exactly."""
    named = design.named_rows()
    found = terms(design)
    rows = []
    # A model whose columns span every row (a full factorial of two parts) fits each exactly:
    # nothing is left to miss, and no row is made. (A design of resolution IV with as many
    # terms has aliased pairs, so its columns span fewer.)
    model = np.column_stack([np.ones(len(design.matrix)), *(column for *_, column in found)])
    saturated = np.linalg.matrix_rank(model) == len(design.matrix)
    for budget in budgets if not saturated else []:
        seeds = values[budget]
        effect = np.stack([_half_difference(seeds, column) for *_, column in found], axis=1)
        levels = np.stack([column for *_, column in found], axis=0)  # (terms, rows)
        predicted = seeds.mean(axis=1)[:, np.newaxis] + effect @ levels / 2
        for name, row in named.items():
            interval = mean_interval(seeds[:, row] - predicted[:, row], support, confidence)
            rows.append({"metric": metric, "budget": budget, "row": name, "design_row": row,
                         "seeds": len(seeds), "observed": float(seeds[:, row].mean()),
                         "predicted": float(predicted[:, row].mean()),
                         "miss": interval.mean, "miss_low": interval.low,
                         "miss_high": interval.high, "interval_method": interval.method})
    return pd.DataFrame(rows)


TOKENS_RESAMPLES = 20_000
"""Seed-bootstrap resamples of each part's ratio of tokens to the target: its interval is one of
a Bonferroni family (``tokens_to_target``), so its limits are far quantiles, and their Monte
Carlo ranges must be narrow enough to place 1 and the margin."""


def tokens_to_target(values: Mapping[int, np.ndarray], design: Design, target: float,
                     margin: float, family: str, resamples: int = TOKENS_RESAMPLES,
                     seed: int = 0, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Each main effect and two-factor interaction on the tokens at which the mean served pass
    rate reaches ``target``: per term, the budget to the target of the high half's mean curve
    (every seed's mean over the rows at the high level, at each budget) over the low half's
    (``analysis.budget_to_target.budget_ratio``: an isotonic fit inverted in log budget, a
    paired percentile bootstrap over seeds). The intervals are one Bonferroni family
    (``family``): each at 1 - (1 - ``confidence``) / terms, so that together they hold at
    ``confidence``; its ``placement`` of 1 (``analysis.roles.Placement``: ``below``, 1 lies
    below the interval, the high level needs more tokens; ``above``, fewer; ``unresolved`` where
    1 lies within a limit's Monte Carlo range) and whether it is shown within
    [1 / ``margin``, ``margin``] (90% limits, two one-sided tests: ``equivalence``).

    Columns: ``term``, ``first``, ``second``, ``order``, ``target``, ``seeds``, ``tokens_high``
    and ``tokens_low`` (each half's budget to the target; inf past the largest budget),
    ``ratio``, ``ratio_low``, ``ratio_high``, ``confidence`` (the interval's), ``resamples``,
    ``undefined_resamples``, ``placement``, ``margin``, ``equivalence``, ``family``."""
    budgets = np.array(sorted(values), dtype=float)
    stacked = np.stack([values[int(b)] for b in budgets], axis=2)  # (seeds, rows, budgets)
    found = terms(design)
    tail = (1 - confidence) / 2 / len(found)
    rows = []
    for term, first, second, column in found:
        high = stacked[:, column > 0].mean(axis=1)
        low = stacked[:, column < 0].mean(axis=1)
        ratio = budget_ratio(high, low, budgets, target, resamples, seed, tail=tail)
        rows.append({"term": term, "first": first, "second": second,
                     "order": 2 if second else 1, "target": target, "seeds": ratio.seeds,
                     "tokens_high": crossing(budgets, high.mean(axis=0), target),
                     "tokens_low": crossing(budgets, low.mean(axis=0), target),
                     "ratio": ratio.ratio, "ratio_low": ratio.ci_low,
                     "ratio_high": ratio.ci_high, "confidence": 1 - 2 * tail,
                     "resamples": resamples, "undefined_resamples": ratio.undefined_resamples,
                     "placement": ratio.holds(1.0), "margin": margin,
                     "equivalence": ratio.equivalence(margin), "family": family})
    table = pd.DataFrame(rows)
    return table.assign(placement=typed(table["placement"], Placement),
                        equivalence=typed(table["equivalence"], RatioFinding))


def levels(design: Design) -> pd.DataFrame:
    """Each factor's levels: ``factor``, its ``role`` ("" for none), ``level`` (``LEVELS``),
    ``key`` and ``value`` (as the config writes it; a level that sets nothing has one row with
    key and value "")."""
    rows = []
    for factor in design.factors:
        for name, level in (("low", factor.low), ("high", factor.high)):
            named = {"factor": factor.name, "role": factor.role, "level": name}
            rows += ([{**named, "key": key, "value": str(value)} for key, value in level]
                     or [{**named, "key": "", "value": ""}])
    return pd.DataFrame(rows)


def aliases(design: Design) -> pd.DataFrame:
    """Each main effect's and two-factor interaction's aliases: ``term``, ``alias`` (factors
    joined by ``:``) and ``alias_order`` (its factors), one row per alias."""
    rows = [{"term": term, "alias": alias, "alias_order": alias.count(":") + 1}
            for term, said in design.aliases().items() if said
            for alias in said.split(" = ")]
    return pd.DataFrame(rows, columns=["term", "alias", "alias_order"])
