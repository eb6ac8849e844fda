"""Every analysis table of one study, from its outcomes (``analysis.outcomes``) and manifest.

Which tables a study gets follows from what its grid holds: accuracy always; the paired
comparison of the trained cells with each nested reference learner in the grid (``vs_uniform``
for uniform allocation), and with the fixed-budget ones; per-arm against running-mean
when it has both baselines; budget to 0.9 for every cell; power for the headline cell; net value
and break-even costs when it prices more than one cost. Families for the Holm correction are the
rows of one table (one question asked of many cells and budgets).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from analysis import questions
from analysis.accuracy import accuracy_table, cell_environments, cells_frame, chance_levels
from analysis.bands import sup_t_band
from analysis.budget_to_target import (
    MORE_RESAMPLES,
    BudgetEstimate,
    budget_ratio,
    budget_to_target,
    crossing,
    environment_hardness,
    range_columns,
)
from analysis.cost import best_budgets, break_even_costs, compare_by_net_value, net_value_table
from analysis.curves import curve_points, curves_table
from analysis.families import ALPHA, PRIMARY, declare, family_name, family_sizes
from analysis.groups import group_tables, is_group_study
from analysis.hardness import hardness_tables, is_hardness_study
from analysis.outcomes import Outcomes
from analysis.paired import compare_cells, judge, mcnemar_power
from analysis.pass_rate import policy_table
from analysis.plan import binomial_power, plan_binomial, plan_mcnemar
from analysis.power import (
    EFFECTS_OF_INTEREST,
    TARGET_POWER,
    chance_power,
    chance_power_mc,
    exact_mcnemar_power,
    paired_power_mc,
)
from analysis.roles import Against, Finding, LrRole, RatioFinding, finding, typed
from study.model import registry
from study.model.config import AnalysisConfig
from study.model.schema import CURVES_FILE
from study.orchestration.storage import read_manifest

SETTINGS = "settings"
"""The one-row table of the ``[analysis]`` settings a study was analysed with (and the headline
cell and reference learner they resolve to), which the write-up reads its comparisons from."""
POWER_SEEDS = np.unique(np.geomspace(10, 100_000, 17).round().astype(int))
CLAIM_SEEDS = 40
CLAIM_COLUMN = f"exact_power_{CLAIM_SEEDS}_seeds"
"""The power table's column of the exact power with ``CLAIM_SEEDS`` seeds."""
TARGETS = (0.8, 0.9, 0.95, 0.99)
"""Accuracy targets of the sensitivity table (0.9 is the study's target)."""
CURVE_STEPS = (1, 10, 100, 250, 500, 1000)
"""Steps at which a study's curves are tabulated and cited (those within its budget)."""


def load(run_dir: Path) -> tuple[Outcomes, dict]:
    """The outcomes (``Outcomes.load``) and the manifest a study wrote."""
    return Outcomes.load(run_dir), read_manifest(run_dir)


def pass_rates(outcomes: Outcomes) -> dict[str, tuple[float, float]]:
    """(mean pass rate, best arm's pass rate) of each fixed Bernoulli bandit of the study."""
    return {env.text: (float(np.mean(env.values)), max(env.values))
            for env in cell_environments(outcomes).values()
            if env.values is not None and env.reward == "bernoulli"}


def trained_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells of learners that train (REINFORCE)."""
    return cells[cells["algorithm"].isin(registry.trained())]


def reference_learners(cells: pd.DataFrame, nested: bool | None = None) -> list[str]:
    """The reference learners (those that do not train) in the grid, in the registry's order;
    only the nested ones, or only those that plan from the budget, if ``nested`` says so."""
    present = set(cells["algorithm"])
    return [name for name in registry.references() if name in present
            and (nested is None or registry.learner(name).nested == nested)]


def headline_cell(cells: pd.DataFrame, analysis: AnalysisConfig) -> int:
    """The REINFORCE cell at the config's ``analysis.headline_lr`` and ``headline_baseline`` on
    the first bandit at the first cost (else the first REINFORCE cell; in a study without
    REINFORCE, the first cell): the cell the write-up's headline numbers describe."""
    trained = trained_cells(cells)
    candidates = trained if len(trained) else cells
    first = candidates[(candidates["environment"] == candidates["environment"].iat[0])
                       & (candidates["cost"] == candidates["cost"].min())]
    default = first[(first["lr"] == analysis.headline_lr)
                    & (first["baseline"] == analysis.headline_baseline)]
    return int((default if len(default) else first)["cell"].iat[0])


def reference_of(cells: pd.DataFrame, analysis: AnalysisConfig) -> str:
    """The reference learner the study compares REINFORCE with: the config's
    ``analysis.reference``, else the first nested reference learner of the grid ("" for none)."""
    if analysis.reference:
        return analysis.reference
    return next(iter(reference_learners(cells, nested=True)), "")


def _partner(cells: pd.DataFrame, cell: int, **axes: object) -> int | None:
    row = cells[cells["cell"] == cell].iloc[0]
    match = cells
    for key in ("reward_model", "environment", "cost", "lr", "baseline", "group_size",
                "algorithm"):
        value = axes.get(key, row[key])
        match = match[match[key] == value]
    return int(match["cell"].iat[0]) if len(match) else None


def _reference_partner(cells: pd.DataFrame, cell: int, name: str) -> int | None:
    """The cell of the reference learner ``name`` on the same bandit at the same cost (a learner
    that does not train has lr 0, baseline ``none`` and group size 1)."""
    return _partner(cells, cell, algorithm=name, lr=0.0, baseline="none", group_size=1)


def accuracy_with_chance_test(outcomes: Outcomes, study: str, headline: int,
                              primary_budgets: tuple[int, ...] = (),
                              tested_elsewhere: tuple[list[int], str] = ([], ""),
                              ) -> pd.DataFrame:
    """Accuracy per (cell, budget) with Wilson intervals, and the one-sided exact binomial test
    against the never-training sampler's chance level. The headline cell's rows at
    ``primary_budgets`` form the primary family (declared in the config before the run); the
    other rows the table's own family (``analysis.families``), except the cells of
    ``tested_elsewhere`` = (cells, family), whose test against chance is in that family (a
    hypothesis is tested once): their rows carry no p-value here. ``primary`` marks the rows of
    the primary family."""
    table = accuracy_table(outcomes)
    table["chance"] = table["cell"].map(chance_levels(outcomes))
    table["p_vs_chance"] = [binomtest(int(k), int(n), c, alternative="greater").pvalue
                            for k, n, c in zip(table["correct"], table["seeds"], table["chance"],
                                               strict=True)]
    elsewhere = table["cell"].isin(tested_elsewhere[0])
    table.loc[elsewhere, "p_vs_chance"] = np.nan
    primary = (table["cell"] == headline) & table["budget"].isin(primary_budgets)
    for family, members in ((family_name(study, PRIMARY), primary),
                            (family_name(study, "accuracy"), ~primary & ~elsewhere)):
        if members.any():
            table = declare(table, family, members, "p_vs_chance", "p_vs_chance_holm")
    if elsewhere.any():
        table.loc[elsewhere, "family"] = tested_elsewhere[1]
    table["primary"] = primary
    return table


def _tost(correct: int, seeds: int, chance: float, margin: float) -> float:
    """The p-value of the two one-sided exact binomial tests of accuracy in (chance - margin,
    chance + margin): the larger of theirs. A bound past 0 or 1 is one no accuracy can cross, so
    its one-sided hypothesis is rejected by any data (p-value 0)."""
    low, high = chance - margin, chance + margin
    return max(binomtest(correct, seeds, low, alternative="greater").pvalue if low >= 0 else 0.0,
               binomtest(correct, seeds, high, alternative="less").pvalue if high <= 1 else 0.0)


def chance_equivalence(outcomes: Outcomes, cells: list[int], study: str,
                       margin: float) -> pd.DataFrame:
    """Is a cell's accuracy above chance, below it, or within +-``margin`` of it? Per (cell,
    budget): the two-sided exact binomial test against chance (Holm over the table), and two
    one-sided exact binomial tests (TOST) of accuracy > chance - margin and < chance + margin,
    whose larger p-value is the equivalence test's (Holm over the table, a family of its own).
    ``verdict`` says it for people, ``finding`` (``analysis.roles.Finding``: ``higher`` is above
    chance) and ``within_margin`` for code."""
    chance = chance_levels(outcomes)
    frame = accuracy_table(outcomes.only(cells))
    frame["chance"] = frame["cell"].map(chance)
    frame["p_value"] = [binomtest(int(k), int(n), c).pvalue for k, n, c in
                        zip(frame["correct"], frame["seeds"], frame["chance"], strict=True)]
    frame["p_equivalence"] = [_tost(int(k), int(n), c, margin) for k, n, c in
                              zip(frame["correct"], frame["seeds"], frame["chance"], strict=True)]
    frame["margin"] = margin
    # The smallest TOST p-value these seeds allow (accuracy exactly at chance): if it is above
    # the family's first Holm threshold, no cell can be shown equivalent at this margin.
    frame["p_equivalence_at_chance"] = [_tost(round(n * c), int(n), c, margin)
                                        for n, c in zip(frame["seeds"], frame["chance"],
                                                        strict=True)]
    frame = declare(frame, family_name(study, "chance_two_sided"))
    frame = declare(frame, family_name(study, "chance_equivalence"), p_column="p_equivalence",
                    adjusted="p_equivalence_holm", family_column="equivalence_family")
    frame["verdict"] = [_chance_verdict(row, margin) for _, row in frame.iterrows()]
    frame["within_margin"] = frame["p_equivalence_holm"] < 0.05
    shown = frame["p_value_holm"] < 0.05
    frame["finding"] = typed([finding(s and a > c, s and not a > c, w) for s, a, c, w in zip(
        shown, frame["accuracy"], frame["chance"], frame["within_margin"], strict=True)], Finding)
    return frame


def _chance_verdict(row: pd.Series, margin: float) -> str:
    """Above or below chance (two-sided, Holm), and within the margin (TOST, Holm) or not."""
    within = row["p_equivalence_holm"] < 0.05
    if row["p_value_holm"] < 0.05:
        side = "above chance" if row["accuracy"] > row["chance"] else "below chance"
        return f"{side}, by less than {margin:g}" if within else side
    return f"equivalent to chance within +-{margin:g}" if within else "unresolved"


def paired_family(outcomes: Outcomes, pairs: list[tuple[int, int]], cells: pd.DataFrame,
                  family: str, margin: float, seeds: np.ndarray | None = None) -> pd.DataFrame:
    """compare_cells for each (A, B) pair (on the seeds the mask ``seeds`` selects, if given),
    with A's axes, Holm over
    all rows as the one family ``family``, and each row judged against the equivalence
    ``margin`` (``analysis.paired.judge``)."""
    frames = []
    for a, b in pairs:
        row = cells[cells["cell"] == a].iloc[0]
        frame = compare_cells(outcomes, a, b, seeds)
        for key in ("environment", "lr", "baseline", "cost"):
            frame.insert(0, key, row[key])
        frame.insert(0, "cell_b", b)
        frame.insert(0, "cell_a", a)
        frames.append(frame)
    return judge(declare(pd.concat(frames, ignore_index=True), family), margin)


def _estimate_row(estimate: BudgetEstimate, h: float) -> dict[str, object]:
    return {"budget_to_target": estimate.estimate, "ci_low": estimate.ci_low,
            "ci_high": estimate.ci_high, "reached": estimate.reached,
            "at_first_checkpoint": estimate.at_first,
            "largest_budget": estimate.largest_budget, "seeds": estimate.seeds,
            "hardness_H": h,
            "ratio_to_H": estimate.estimate / h if h > 0 and estimate.reached else math.nan,
            "summary": estimate.describe()}


def _point_crossing(outcomes: Outcomes, cell: int, seeds: np.ndarray) -> float:
    return crossing(outcomes.budgets, outcomes.outcomes(cell, seeds).mean(axis=0))


def _tied_lr(outcomes: Outcomes, chosen: int, others: list[int], cells: pd.DataFrame,
             seeds: np.ndarray) -> list[float]:
    """The lr of the cells in ``others`` that the choosing seeds cannot tell from ``chosen``:
    the paired bootstrap interval of their budget to 0.9 over the chosen cell's contains 1."""
    ours = outcomes.outcomes(chosen, seeds)
    tied = []
    for cell in others:
        ratio = budget_ratio(outcomes.outcomes(cell, seeds), ours, outcomes.budgets)
        if not ratio.ci_low > 1:
            tied.append(float(cells.loc[cells["cell"] == cell, "lr"].iat[0]))
    return sorted(tied)


def budget_table(outcomes: Outcomes, cells: pd.DataFrame) -> pd.DataFrame:
    """Budget to 0.9 for every cell (first cost only: cost does not change the simulation), and
    at the best lr per (bandit, baseline): the lr is chosen on the even seeds (smallest estimated
    budget) and its budget estimated on the odd seeds, so the choice does not bias the estimate.
    ``tied_lr`` lists the other lr the even seeds cannot tell from the chosen one (the paired
    bootstrap interval of the ratio of budgets contains 1): then the best lr is a tie.
    ``lr_role`` (``analysis.roles.LrRole``: ``grid`` or ``best``) says which a row is."""
    rows = []
    environments = cell_environments(outcomes)
    priced = cells[cells["cost"] == cells["cost"].min()]
    for _, cell in priced.iterrows():
        h = environment_hardness(environments[int(cell["cell"])])
        estimate = budget_to_target(outcomes.outcomes(int(cell["cell"])), outcomes.budgets)
        rows.append({**cell.to_dict(), "selection": "this lr", "lr_role": LrRole.GRID,
                     "tied_lr": "",
                     **_estimate_row(estimate, h)})
    even, odd = outcomes.halves()
    # One best lr per group size as well: a G is an arm of its own, not another lr.
    for _, group in trained_cells(priced).groupby(
            ["reward_model", "environment", "baseline", "group_size"], sort=False):
        if len(group) < 2:
            continue
        chosen = min(group.itertuples(), key=lambda c: _point_crossing(outcomes, c.cell, even))
        cell = cells[cells["cell"] == chosen.cell].iloc[0]
        h = environment_hardness(environments[int(chosen.cell)])
        estimate = budget_to_target(outcomes.outcomes(chosen.cell, odd), outcomes.budgets)
        tied = _tied_lr(outcomes, chosen.cell, [c for c in group["cell"] if c != chosen.cell],
                        cells, even)
        rows.append({**cell.to_dict(), "selection": "best lr: chosen on even seeds, "
                     "estimated on odd seeds", "lr_role": LrRole.BEST,
                     "tied_lr": ", ".join(f"{lr:g}" for lr in tied),
                     **_estimate_row(estimate, h)})
    table = pd.DataFrame(rows)
    table["lr_role"] = typed(table["lr_role"], LrRole)
    return table


def headline_band(outcomes: Outcomes, headline: int) -> pd.DataFrame:
    """The headline cell's accuracy against budget with pointwise 95% Wilson intervals and the
    simultaneous 95% sup-t band over all its checkpoints (``analysis.bands``)."""
    correct = outcomes.outcomes(headline)
    band = sup_t_band(correct)
    return pd.DataFrame({"cell": headline, "budget": outcomes.budgets,
                         "seeds": correct.shape[0], "accuracy": band.accuracy,
                         "ci_low": band.low, "ci_high": band.high, "band_low": band.band_low,
                         "band_high": band.band_high, "band_factor": band.factor})


def target_sensitivity(outcomes: Outcomes, budgets: pd.DataFrame) -> pd.DataFrame:
    """Budget to each of ``TARGETS`` for the rows a reader compares: REINFORCE at its best lr
    (the lr chosen for 0.9 on the even seeds, estimated on the odd seeds) and every reference
    learner (all seeds), so that the answer's dependence on the target 0.9 is visible."""
    _, odd = outcomes.halves()
    shown = budgets[(budgets["lr_role"] == LrRole.BEST)
                    | ~budgets["algorithm"].isin(registry.trained())]
    rows = []
    for _, row in shown.iterrows():
        seeds = odd if row["lr_role"] == LrRole.BEST else None
        correct = outcomes.outcomes(int(row["cell"]), seeds)
        for target in TARGETS:
            estimate = budget_to_target(correct, outcomes.budgets, target)
            rows.append({"cell": row["cell"], "algorithm": row["algorithm"],
                         "baseline": row["baseline"], "lr": row["lr"],
                         "selection": row["selection"], "lr_role": row["lr_role"],
                         "target": target,
                         "budget_to_target": estimate.estimate, "ci_low": estimate.ci_low,
                         "ci_high": estimate.ci_high, "reached": estimate.reached,
                         "seeds": estimate.seeds, "summary": estimate.describe()})
    table = pd.DataFrame(rows)
    if len(table):
        table["lr_role"] = typed(table["lr_role"], LrRole)
    return table


def best_identification_tables(outcomes: Outcomes, cells: pd.DataFrame, headline: int,
                               budgets: pd.DataFrame, study: str, margin: float,
                               ratio_margin: float) -> dict[str, pd.DataFrame]:
    """REINFORCE against the best-arm-identification algorithms on the same seeds: the headline
    cell against each algorithm that plans from the budget, at every budget, on all seeds (one
    family; its comparison with uniform allocation is in ``vs_uniform``); the best-lr
    running-mean cell, when it is not the headline cell, against every reference learner on the
    odd seeds only, since the even seeds chose it (a family of its own); and the ratio of that
    cell's budget to 0.9 to each reference's, on the odd seeds, with a paired bootstrap
    interval, beside the reference's own budget on those seeds (``reference_budget``, with its
    bootstrap interval); ``as_efficient`` when two one-sided tests put the ratio within
    [1 / ratio_margin, ratio_margin], and ``equivalence`` the verdict with its Monte Carlo
    error: ``unresolved`` where a 90% limit's range (``ci90_*_mc_*``, from ``MORE_RESAMPLES``
    resamples once ``BOOTSTRAP`` leave the verdict within it) contains the margin."""
    if not reference_learners(cells, nested=False):
        return {}
    best_rows = budgets[(budgets["lr_role"] == LrRole.BEST)
                        & (budgets["baseline"] == "running_mean") & (budgets["group_size"] == 1)]
    best = int(best_rows["cell"].iat[0]) if len(best_rows) else headline
    algorithm = cells.set_index("cell")["algorithm"]

    def partners(names: list[str]) -> list[int]:
        return [c for c in (_reference_partner(cells, headline, a) for a in names)
                if c is not None]

    _, odd = outcomes.halves()
    tables = {}
    families = [("vs_best_arm_identification", headline,
                 partners(reference_learners(cells, nested=False)), None)]
    if best != headline:
        # When the even seeds choose the headline cell, its comparisons are the ones already
        # made on all seeds (pre-specified): testing them again would ask one question twice.
        families.append(("best_lr_vs_references", best, partners(reference_learners(cells)),
                         odd))
    for name, cell, references, seeds in families:
        table = paired_family(outcomes, [(cell, b) for b in references], cells,
                              family_name(study, name), margin, seeds)
        table.insert(2, "algorithm_b", table["cell_b"].map(algorithm))
        tables[name] = table
    rows = []
    ours = outcomes.outcomes(best, odd)
    for reference in partners(reference_learners(cells)):
        theirs = outcomes.outcomes(reference, odd)
        ratio = budget_ratio(ours, theirs, outcomes.budgets)
        if ratio.equivalence(ratio_margin) == "unresolved":
            ratio = budget_ratio(ours, theirs, outcomes.budgets, resamples=MORE_RESAMPLES)
        verdict = ratio.equivalence(ratio_margin)
        # The reference's own budget on the seeds of the ratio, so that a sentence quoting the
        # two budgets beside their ratio quotes them from the same seeds.
        own = budget_to_target(theirs, outcomes.budgets)
        rows.append({"reinforce_cell": best,
                     "lr": cells.set_index("cell").loc[best, "lr"],
                     "reference": algorithm[reference],
                     "reference_budget": own.estimate, "reference_ci_low": own.ci_low,
                     "reference_ci_high": own.ci_high, "ratio": ratio.ratio,
                     "ci_low": ratio.ci_low, "ci_high": ratio.ci_high, "seeds": ratio.seeds,
                     "undefined_resamples": ratio.undefined_resamples,
                     "ci90_low": ratio.ci90_low, "ci90_high": ratio.ci90_high,
                     "resamples": ratio.resamples,
                     **range_columns("ci90_low", "ci90_high", ratio.ci90_low_range,
                                     ratio.ci90_high_range),
                     "ratio_margin": ratio_margin, "equivalence": verdict,
                     "as_efficient": verdict == "equivalent"})
    ratios = pd.DataFrame(rows)
    if len(ratios):
        ratios["equivalence"] = typed(ratios["equivalence"], RatioFinding)
    return {**tables, "budget_ratio": ratios}


def power_tables(outcomes: Outcomes, cells: pd.DataFrame, headline: int,
                 tables: dict[str, pd.DataFrame], budgets: tuple[int, ...],
                 reference: str) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """For the headline comparisons (against chance, the ``reference`` learner and the per-arm
    baseline; ``against`` names which, ``analysis.roles.Against``) at ``budgets`` (the primary
    ones): the seeds each test needs for the
    effects of interest stated before the run (``EFFECTS_OF_INTEREST``), at the exact power of
    the exact test the study runs (the smallest n from which it stays at 80%, ``analysis.plan``),
    beside the normal approximation's n, and the exact power of 40 seeds; a paired comparison's
    discordance (the share of seeds on which the cells disagree) is taken from the data. Each test
    is planned at the level it meets in its Holm family's first step, 0.05 / m for a family of m
    hypotheses (a safe level for the step-down). Then power against the number of seeds at the
    observed rates at 0.05, analytic and Monte Carlo (curves: an illustration of this run, not a
    plan). None when no comparison is tested in this study's tables."""
    budgets = [b for b in budgets if b in set(outcomes.budgets)]
    accuracy = tables["accuracy"]
    head = accuracy[accuracy["cell"] == headline].set_index("budget")
    chance = chance_levels(outcomes)[headline]
    comparisons: list[tuple[str, Against, int | None, str]] = [
        ("trained vs never-training sampler", Against.CHANCE, None, "accuracy")]
    if reference:
        comparisons.append((f"trained vs {registry.display(reference)}", Against.REFERENCE,
                            _reference_partner(cells, headline, reference), f"vs_{reference}"))
    comparisons.append(("running-mean vs per-arm baseline", Against.PER_ARM,
                        _partner(cells, headline, baseline="per_arm"),
                        "per_arm_vs_running_mean"))
    summary, curves = [], []
    for name, against, partner, source in comparisons:
        if source not in tables or (source != "accuracy" and partner is None):
            continue
        paired = compare_cells(outcomes, headline, partner) if partner is not None else None
        sizes = family_sizes(tables[source], adjusted=(
            "p_vs_chance_holm" if source == "accuracy" else "p_value_holm"))
        for budget in budgets:
            family = (head.loc[budget, "family"] if source == "accuracy"
                      else str(tables[source]["family"].iat[0]))
            if source == "accuracy" and family not in sizes:
                # The headline's test against chance is not this table's to plan: a twin
                # study runs it, or (a per-arm headline) it is the two-sided test of the per-arm
                # cells' own family, whose power the one-sided planner would misstate.
                continue
            alpha = ALPHA / sizes[family]
            if paired is None:
                p = float(head.loc[budget, "accuracy"])
                discordance = math.nan
                analytic = lambda n, p=p: chance_power(p, chance, [n])[0]  # noqa: E731
                monte_carlo = chance_power_mc(p, chance, POWER_SEEDS)
            else:
                row = paired[paired["budget"] == budget].iloc[0]
                a, b = row["only_a"] / row["seeds"], row["only_b"] / row["seeds"]
                discordance = a + b
                analytic = lambda n, a=a, b=b: mcnemar_power(a, b, np.array([n]))[0]  # noqa: E731
                monte_carlo = paired_power_mc(a, b, POWER_SEEDS)
            for effect in EFFECTS_OF_INTEREST:
                summary.append({"comparison": name, "against": against, "budget": budget,
                                "family": family,
                                "alpha_per_test": alpha, "effect_of_interest": effect,
                                "discordance": discordance,
                                **_planned(effect, chance, discordance, alpha)})
            curve = np.array([analytic(n) for n in POWER_SEEDS])
            curves += [{"comparison": name, "against": against, "budget": budget,
                        "seeds": int(n),
                        "analytic": float(pa), "monte_carlo": float(pm)}
                       for n, pa, pm in zip(POWER_SEEDS, curve, monte_carlo, strict=True)]
    if not summary:
        return None
    summary, curves = pd.DataFrame(summary), pd.DataFrame(curves)
    for table in (summary, curves):
        table["against"] = typed(table["against"], Against)
    return summary, curves


def _planned(effect: float, chance: float, discordance: float,
             alpha: float) -> dict[str, float]:
    """Seeds needed (exact and normal) and the exact power of 40 seeds for a stated effect at
    level ``alpha``: against chance when ``discordance`` is NaN, else paired with that discordance
    (an effect larger than the discordance cannot happen: NaN)."""
    if math.isnan(discordance):
        plan = plan_binomial(chance + effect, chance, TARGET_POWER, alpha)
        at_claim = float(binomial_power(np.array([CLAIM_SEEDS]), chance + effect, chance,
                                        alpha)[0])
        return {"seeds_exact": plan.n_exact, "seeds_normal": plan.n_normal,
                "exact_power_at_seeds_normal": plan.power_at_n_normal,
                CLAIM_COLUMN: at_claim}
    if effect >= discordance:
        return {"seeds_exact": math.nan, "seeds_normal": math.nan,
                "exact_power_at_seeds_normal": math.nan, CLAIM_COLUMN: math.nan}
    only_a, only_b = (discordance + effect) / 2, (discordance - effect) / 2
    plan = plan_mcnemar(only_a, only_b, TARGET_POWER, alpha)
    return {"seeds_exact": plan.n_exact, "seeds_normal": plan.n_normal,
            "exact_power_at_seeds_normal": plan.power_at_n_normal,
            CLAIM_COLUMN: exact_mcnemar_power(CLAIM_SEEDS, only_a, only_b, alpha)}


def settings_table(study: str, analysis: AnalysisConfig, headline: int,
                   reference: str) -> pd.DataFrame:
    """One row: the ``[analysis]`` settings of ``study`` and the headline cell and reference
    learner they resolve to, for the write-up to read its comparisons from (``SETTINGS``)."""
    values = {key: list(value) if isinstance(value, tuple) else value
              for key, value in analysis.to_dict().items()}
    return pd.DataFrame([{"study": study, **values, "reference": reference,
                          "headline_cell": headline}])


def analyze_outcomes(outcomes: Outcomes, manifest: dict, run_dir: Path,
                     analysis: AnalysisConfig) -> dict[str, pd.DataFrame]:
    """All tables of a study from its outcomes and manifest, analysed as ``analysis`` (its
    config's ``[analysis]`` table) says; ``run_dir`` is where its curves are, if it has any. The
    numbers a write-up names are cited from these tables by ``figures.named``."""
    study = manifest["study"]
    margin = analysis.equivalence_margin
    cells = cells_frame(outcomes)
    headline = headline_cell(cells, analysis)
    reference = reference_of(cells, analysis)
    # Cells at other costs are the same simulations as the first cost's: asking their questions
    # again would put one hypothesis into a family several times.
    first_cost = cells[cells["cost"] == cells["cost"].min()]
    reinforce = trained_cells(first_cost)["cell"].tolist()
    per_arm = ([c for c in reinforce
                if cells.loc[cells["cell"] == c, "baseline"].iat[0] == "per_arm"]
               if {"per_arm", "running_mean"} <= set(cells["baseline"]) else [])
    # A study that declares its simulation the same as another's (same root seed and cells) asks
    # no question of accuracy that the other already asks.
    twin = analysis.same_simulation_as
    # The per-arm cells' test against chance is two-sided, in its own table (at every cost: the
    # other costs' per-arm cells are the same simulations).
    every_per_arm = trained_cells(cells)[trained_cells(cells)["baseline"] == "per_arm"]
    elsewhere = ((cells["cell"].tolist(), f"tested in {twin}") if twin
                 else (every_per_arm["cell"].tolist() if per_arm else [],
                       family_name(study, "chance_two_sided")))
    tables: dict[str, pd.DataFrame] = {
        SETTINGS: settings_table(study, analysis, headline, reference),
        "cells": cells, "accuracy": accuracy_with_chance_test(
            outcomes, study, headline, analysis.primary_budgets, elsewhere)}
    if twin:
        reinforce, per_arm = [], []
    for name in reference_learners(cells, nested=True):
        pairs = [(c, partner) for c in reinforce
                 if (partner := _reference_partner(cells, c, name)) is not None]
        if pairs:
            tables[f"vs_{name}"] = paired_family(outcomes, pairs, cells,
                                                 family_name(study, f"vs_{name}"), margin)
    if per_arm:
        pairs = [(c, _partner(cells, c, baseline="running_mean")) for c in per_arm]
        tables["per_arm_vs_running_mean"] = paired_family(
            outcomes, [p for p in pairs if p[1] is not None], cells,
            family_name(study, "per_arm_vs_running_mean"), margin)
        tables["per_arm_vs_chance"] = chance_equivalence(outcomes, per_arm, study, margin)
    tables["accuracy_band"] = headline_band(outcomes, headline)
    policies = policy_table(outcomes)
    if len(policies):
        tables["pass_rate"] = policies
    tables["budget_to_target"] = budget_table(outcomes, cells)
    tables["budget_by_target"] = target_sensitivity(outcomes, tables["budget_to_target"])
    if is_hardness_study(tables["budget_to_target"]):
        _, odd = outcomes.halves()
        matrices = {int(c): (outcomes.outcomes(int(c), odd), outcomes.budgets)
                    for c in tables["budget_to_target"]["cell"].unique()}
        # K from the cell's structured columns, never from the bandit's display text.
        arms = outcomes.cells.set_index("cell")["arms"]
        tables.update(hardness_tables(matrices, tables["budget_to_target"].assign(
            arms=lambda budgets: budgets["cell"].map(arms))))
    tables.update(best_identification_tables(
        outcomes, cells, headline, tables["budget_to_target"], study, margin,
        analysis.ratio_margin))
    if analysis.primary_budgets:
        # Seeds are planned for the questions a study declares primary (and the headline's
        # paired ones beside them); a plan at 0.01 with a family of hundreds takes seconds a row.
        # None when every primary test is run elsewhere (a twin study's, or two-sided).
        power = power_tables(outcomes, cells, headline, tables, analysis.primary_budgets,
                             reference)
        if power is not None:
            tables["power"], tables["power_curves"] = power
    if cells["cost"].nunique() > 1:
        deployment = analysis.deployment_pulls
        tables["net_value"] = net_value_table(outcomes, deployment)
        tables["best_budget"] = best_budgets(outcomes, deployment)
        tables["break_even"] = declare(break_even_costs(outcomes, deployment),
                                       family_name(study, "break_even"))
        pairs = [(c, _reference_partner(cells, c, name))
                 for c in trained_cells(cells)["cell"]
                 for name in reference_learners(cells, nested=True)]
        if any(b is not None for _, b in pairs):
            tables["net_value_vs_reference"] = compare_by_net_value(
                outcomes, [p for p in pairs if p[1] is not None], deployment)
    if is_group_study(cells):
        tables.update(group_tables(outcomes, pass_rates(outcomes), study, margin, reference,
                                   analysis.pass_rate_margin))
    for question in questions.modules():
        found = question.table(outcomes, cells, tables[SETTINGS].iloc[0])
        if len(found):
            tables[question.TABLE] = found
    if (run_dir / CURVES_FILE).is_file():
        tables["curves"] = curves_table(pd.read_parquet(run_dir / CURVES_FILE), cells,
                                        chance_levels(outcomes))
        tables["curve_points"] = curve_points(tables["curves"], CURVE_STEPS)
    return tables
