"""A single-bandit study's tables (``analysis.questions``, one module each) from its outcomes
and manifest, and what several of them share: the study's headline cell, its reference learner,
the cells a question pairs.

Which tables a study gets follows from what its grid holds: accuracy always; the paired
comparison of the trained cells with each nested reference learner in the grid (``vs_uniform``
for uniform allocation), and with the fixed-budget ones; per-arm against running-mean
when it has both baselines; budget to 0.9 for every cell; power for the headline cell; net value
and break-even costs when it prices more than one cost. Families for the Holm correction are the
rows of one table (one question asked of many cells and budgets).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis import questions
from analysis.accuracy import cell_environments, cells_frame
from analysis.families import declare
from analysis.outcomes import Outcomes
from analysis.paired import compare_cells, judge
from analysis.questions import Inputs
from study.model import registry
from study.model.config import BUDGET_UNITS, AnalysisConfig
from study.orchestration.storage import read_manifest


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


def partner(cells: pd.DataFrame, cell: int, **axes: object) -> int | None:
    """The cell that differs from ``cell`` only in ``axes`` (None if the grid has none)."""
    row = cells[cells["cell"] == cell].iloc[0]
    match = cells
    for key in ("reward_model", "environment", "cost", "lr", "baseline", "group_size",
                "algorithm"):
        value = axes.get(key, row[key])
        match = match[match[key] == value]
    return int(match["cell"].iat[0]) if len(match) else None


def reference_partner(cells: pd.DataFrame, cell: int, name: str) -> int | None:
    """The cell of the reference learner ``name`` on the same bandit at the same cost (a learner
    that does not train has lr 0, baseline ``none`` and group size 1)."""
    return partner(cells, cell, algorithm=name, lr=0.0, baseline="none", group_size=1)




def compared_cells(inputs: Inputs) -> list[int]:
    """The trained cells whose questions a study asks: at its first cost (the cells at other costs
    are the same simulations: asking their questions again would put one hypothesis into a family
    several times), none when the study declares its simulation the same as another's
    (``same_simulation_as``: the other asks them)."""
    if inputs.analysis.same_simulation_as:
        return []
    cells = inputs.cells
    return trained_cells(cells[cells["cost"] == cells["cost"].min()])["cell"].tolist()


def per_arm_cells(inputs: Inputs) -> list[int]:
    """The compared cells with the per-arm baseline, where the study also has running-mean ones
    (the baselines' comparison); else none."""
    cells = inputs.cells
    if not {"per_arm", "running_mean"} <= set(cells["baseline"]):
        return []
    baseline = cells.set_index("cell")["baseline"]
    return [c for c in compared_cells(inputs) if baseline[c] == "per_arm"]


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


def settings_table(study: str, analysis: AnalysisConfig, cells: pd.DataFrame, headline: int,
                   reference: str, budget_unit: str) -> pd.DataFrame:
    """One row: the ``[analysis]`` settings of ``study`` and the headline cell and reference
    learner they resolve to, and what its budgets count (``study.model.config.BUDGET_UNITS``),
    for the write-up to read its comparisons from (``SETTINGS``). The headline lr and baseline
    are the headline cell's where it trains (a config's defaults may name none of its grid's:
    ``headline_cell`` then takes the first cell)."""
    values = {key: list(value) if isinstance(value, tuple) else value
              for key, value in analysis.to_dict().items()}
    cell = cells[cells["cell"] == headline].iloc[0]
    if cell["algorithm"] in registry.trained():
        values |= {"headline_lr": float(cell["lr"]), "headline_baseline": cell["baseline"]}
    return pd.DataFrame([{"study": study, **values, "reference": reference,
                          "headline_cell": headline, "budget_unit": budget_unit}])




def analyze_outcomes(outcomes: Outcomes, manifest: dict, run_dir: Path,
                     analysis: AnalysisConfig) -> dict[str, pd.DataFrame]:
    """All tables of a study from its outcomes and manifest (``analysis.questions.build``),
    analysed as ``analysis`` (its config's ``[analysis]`` table) says; ``run_dir`` is where its
    curves are, if it has any. The numbers a write-up names are cited from these tables by
    ``figures.named``."""
    study = manifest["study"]
    cells = cells_frame(outcomes)
    headline = headline_cell(cells, analysis)
    settings = settings_table(study, analysis, cells, headline, reference_of(cells, analysis),
                              # A config keeps its unit only when it is not the first.
                              manifest["config"].get("budget_unit", BUDGET_UNITS[0]))
    return questions.build(Inputs(study=study, analysis=analysis, settings_frame=settings,
                                  cells=cells, run_dir=run_dir, outcomes=outcomes))
