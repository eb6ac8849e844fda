"""Does lifting the length penalty late serve a better policy than keeping it to the end, with many
prompts and whatever else the run has (a sampler and its corrections, a noisy verifier)? In a
many-prompts study whose answers cost tokens under a length penalty lifted part way, each such
cell against the cell that is the same but keeps the penalty throughout, paired by seed (common
random numbers: the two runs are one run until the switch), at every budget past the switch, on
each metric of ``analysis.prompts.factorial.METRICS`` the runs have: paired t-tests (or, where few
seeds differ, the bound of ``analysis.paired.paired_difference``), each metric one Holm family;
where the metric has a margin (served pass rate and accuracy), equivalence within it by two
one-sided paired t-tests (statsmodels' ``ttost_paired``), another Holm family per metric (a row
whose interval is the bound's claims none: p 1)."""

from __future__ import annotations

import math

import pandas as pd
from statsmodels.stats.weightstats import ttost_paired

from analysis.families import declare, family_name
from analysis.paired import FULL_NAMES, judge, paired_difference
from analysis.prompts.factorial import METRICS
from analysis.prompts.outcomes import cell_columns, seed_totals
from analysis.prompts.questions.factorial_effects import MARGINS, margin, metrics, support
from analysis.questions import Inputs
from study.model import registry
from study.model.environment import Environment
from study.rewards import LIFTED

TABLE = "prompts_lifted"
TEST = {**{f"{TABLE}_{metric}": f"two-sided paired t-test of mean {words} over seeds (the bound's "
           "p-value where few seeds differ)" for metric, words in METRICS.items()},
        **{f"{TABLE}_{metric}_equivalence": f"two one-sided paired t-tests of mean "
           f"{METRICS[metric]} within the margin" for metric in MARGINS}}


def _kept(environment: Environment) -> tuple[float, str] | None:
    """(the share of the budget after which ``environment``'s penalty is lifted, the text of the
    same environment keeping it throughout); None where its reward model lifts nothing or
    lifts it never."""
    names = [p.name for p in registry.reward_model(environment.reward).parameters]
    if LIFTED.name not in names:
        return None
    at = names.index(LIFTED.name)
    lifted = environment.reward_parameters[at]
    if lifted >= 1.0:
        return None
    kept = list(environment.reward_parameters)
    kept[at] = 1.0
    return lifted, environment.with_reward(environment.reward, tuple(kept)).text


def partners(cells: pd.DataFrame,
             environments: dict[str, Environment]) -> list[tuple[int, int, float]]:
    """(cell, partner, lifted at) for every cell of ``cells`` (a many-prompts study's, one row
    each) whose penalty is lifted part way and whose partner, the same cell keeping it to the
    end, the study has."""
    others = [c for c in cell_columns(cells) if c not in ("cell", "environment", "design_row")]
    found = []
    for cell in cells.itertuples(index=False):
        kept = _kept(environments[cell.environment])
        if kept is None:
            continue
        lifted, text = kept
        same = cells[(cells["environment"] == text)
                     & (cells[others].astype(str) == pd.Series(
                         {c: str(getattr(cell, c)) for c in others})).all(axis=1)]
        found += [(int(cell.cell), int(partner), lifted) for partner in same["cell"]]
    return found


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per lifted cell, metric and budget past the switch (``metric``, ``budget``,
    ``cell_a`` lifted, ``cell_b`` kept, ``lifted_at``, ``mean_a``, ``mean_b``, then
    ``analysis.prompts.factorial.effects``' columns from ``seeds`` on, A minus B); no rows in a
    study without such a pair."""
    found = partners(inputs.cells, dict(inputs.environments))
    if not found:
        return pd.DataFrame()
    totals = seed_totals(inputs.runs, [])
    largest = float(totals["budget"].max())
    paired = totals[totals["cell"].isin({c for pair in found for c in pair[:2]})]
    parts = []
    for metric in (m for m in METRICS if m in metrics(inputs)):
        limit = margin(inputs, metric)
        wide = paired.pivot(index=["budget", "seed"], columns="cell", values=metric)
        if wide.isna().to_numpy().any():
            raise ValueError("cells paired by seed must hold the same seeds and budgets")
        rows = []
        for cell, partner, lifted in found:
            for budget, seeds in wide.groupby(level="budget", sort=True):
                a, b = seeds[cell].to_numpy(), seeds[partner].to_numpy()
                if budget <= lifted * largest:
                    # Before the switch the two runs are one run: nothing to test.
                    if (a != b).any():
                        raise ValueError(f"cells {cell} and {partner} differ before the switch")
                    continue
                tested = paired_difference(a - b, support(inputs, metric))
                equivalence = (math.nan if math.isnan(limit) else
                               ttost_paired(a, b, -limit, limit)[0]
                               if tested["interval_method"] == "t" else 1.0)
                rows.append({"metric": metric, "budget": int(budget), "cell_a": cell,
                             "cell_b": partner, "lifted_at": lifted,
                             "mean_a": float(a.mean()), "mean_b": float(b.mean()), **tested,
                             "p_equivalence": float(equivalence)})
        part = declare(pd.DataFrame(rows), family_name(inputs.study, f"{TABLE}_{metric}"))
        if not math.isnan(limit):
            part = declare(part, family_name(inputs.study, f"{TABLE}_{metric}_equivalence"),
                           p_column="p_equivalence", adjusted="p_equivalence_holm",
                           family_column="equivalence_family")
        parts.append(judge(part, limit).rename(columns=FULL_NAMES))
    tested = pd.concat(parts, ignore_index=True)
    # A metric without a margin is in no equivalence family.
    if "equivalence_family" in tested:
        tested["equivalence_family"] = tested["equivalence_family"].fillna("")
    return tested
