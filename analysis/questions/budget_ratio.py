"""The ratio of the best-lr running-mean cell's budget to 0.9 to each reference learner's, on the
odd seeds (the even ones chose the lr), with a paired bootstrap interval, beside the reference's
own budget on those seeds; ``as_efficient`` when two one-sided tests put the ratio within
[1 / ratio_margin, ratio_margin], and ``equivalence`` the verdict with its Monte Carlo error:
``unresolved`` where a 90% limit's range (``ci90_*_mc_*``, from ``MORE_RESAMPLES`` resamples once
``BOOTSTRAP`` leave the verdict within it) contains the margin."""

from __future__ import annotations

import pandas as pd

from analysis.budget_to_target import MORE_RESAMPLES, budget_ratio, budget_to_target, range_columns
from analysis.questions import Inputs
from analysis.questions.vs_best_arm_identification import asked, best_cell, partners
from analysis.roles import RatioFinding, typed
from analysis.study_tables import reference_learners

TABLE = "budget_ratio"
TEST = ""
AFTER = ("budget_to_target",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per reference learner beside the headline cell, for a study whose grid has a
    learner that plans from the budget."""
    if not asked(inputs):
        return pd.DataFrame()
    outcomes, margin = inputs.outcomes, inputs.analysis.ratio_margin
    algorithm = inputs.cells.set_index("cell")["algorithm"]
    best = best_cell(inputs)
    _, odd = outcomes.halves()
    ours = outcomes.outcomes(best, odd)
    rows = []
    for reference in partners(inputs, reference_learners(inputs.cells)):
        theirs = outcomes.outcomes(reference, odd)
        ratio = budget_ratio(ours, theirs, outcomes.budgets)
        if ratio.equivalence(margin) == "unresolved":
            ratio = budget_ratio(ours, theirs, outcomes.budgets, resamples=MORE_RESAMPLES)
        verdict = ratio.equivalence(margin)
        # The reference's own budget on the seeds of the ratio, so that a sentence quoting the
        # two budgets beside their ratio quotes them from the same seeds.
        own = budget_to_target(theirs, outcomes.budgets)
        rows.append({"reinforce_cell": best,
                     "lr": inputs.cells.set_index("cell").loc[best, "lr"],
                     "reference": algorithm[reference],
                     "reference_budget": own.estimate, "reference_ci_low": own.ci_low,
                     "reference_ci_high": own.ci_high, "ratio": ratio.ratio,
                     "ci_low": ratio.ci_low, "ci_high": ratio.ci_high, "seeds": ratio.seeds,
                     "undefined_resamples": ratio.undefined_resamples,
                     "ci90_low": ratio.ci90_low, "ci90_high": ratio.ci90_high,
                     "resamples": ratio.resamples,
                     **range_columns("ci90_low", "ci90_high", ratio.ci90_low_range,
                                     ratio.ci90_high_range),
                     "ratio_margin": margin, "equivalence": verdict,
                     "as_efficient": verdict == "equivalent"})
    ratios = pd.DataFrame(rows)
    if len(ratios):
        ratios["equivalence"] = typed(ratios["equivalence"], RatioFinding)
    return ratios
