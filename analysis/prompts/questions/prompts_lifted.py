"""Does lifting the length penalty late serve a better policy than keeping it to the end, with many
prompts and whatever else the run has (a sampler and its corrections, a noisy verifier)? In a
many-prompts study whose answers cost tokens under a length penalty lifted part way, each such
cell against the cell that is the same but keeps the penalty throughout, paired by seed (common
random numbers: the two runs are one run until the switch), at every budget past the switch, on
each metric of ``analysis.prompts.factorial.METRICS`` the runs have: paired t-tests, each metric
one Holm family, equivalence within the metric's margin where it has one (served pass rate and
accuracy)."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.paired import judged_family, paired_difference
from analysis.prompts.factorial import METRICS
from analysis.prompts.outcomes import cell_columns, seed_totals
from analysis.prompts.questions.factorial_effects import margin, metrics, support
from analysis.questions import Inputs
from study.model import registry
from study.model.environment import Environment
from study.rewards import LIFTED

TABLE = "prompts_lifted"
TEST = {f"{TABLE}_{metric}": f"two-sided paired t-test of mean {words} over seeds"
        for metric, words in METRICS.items()}


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
    runs = inputs.runs
    found = partners(inputs.cells, dict(inputs.environments))
    if not found:
        return pd.DataFrame()
    totals = seed_totals(runs, [])
    largest = float(totals["budget"].max())
    parts = []
    for metric in (m for m in METRICS if m in metrics(inputs)):
        wide = totals.pivot(index=["budget", "seed"], columns="cell", values=metric)
        if wide.isna().to_numpy().any():
            raise ValueError("cells paired by seed must hold the same seeds and budgets")
        rows = []
        for cell, partner, lifted in found:
            for budget, seeds in wide.groupby(level="budget", sort=True):
                if budget <= lifted * largest:
                    continue  # before the switch the two runs are one
                a, b = seeds[cell].to_numpy(), seeds[partner].to_numpy()
                rows.append({"metric": metric, "budget": int(budget), "cell_a": cell,
                             "cell_b": partner, "lifted_at": lifted,
                             "mean_a": float(a.mean()), "mean_b": float(b.mean()),
                             **paired_difference(a - b, support(inputs, metric))})
        parts.append(judged_family(rows, family_name(inputs.study, f"{TABLE}_{metric}"),
                                   margin(inputs, metric)))
    return pd.concat(parts, ignore_index=True)
