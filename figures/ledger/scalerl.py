"""ScaleRL's extrapolation of a sigmoid compute curve fitted on the early budgets."""

from figures.ledger import CONTRADICTED, SUPPORTED, UNRESOLVED, Claim

CURVE = "allocation == 'uniform' and metric == 'pass_rate'"
"""Uniform allocation's compute curve on the pass rate, in every difficulty law."""

CLAIM = Claim(
    source="khatri", cited="Khatri et al. 2025 (ScaleRL)", order=4,
    short="a sigmoid compute curve fitted early predicts the later pass rate",
    published="fit up to 50,000 GPU hours, checked at 100,000",
    stated="ScaleRL: a sigmoid of pass rate against compute, fitted on a run up to 50,000 "
           "GPU-hours, predicts its pass rate at 100,000 GPU-hours",
    metric="pass rate (mean over prompts), measured minus predicted at the first held-out "
           "budget (seed-bootstrap interval, each resample refitted)",
    analogue="the compute curve fitted to uniform allocation's pass rate up to the budget cut "
             "stated before the run and checked at the first budget held out, twice the cut, "
             "on mostly easy prompts",
    table="prompts_curve_predictions", rows=f"{CURVE} and environment == 'beta(4,1)x3'",
    pick="smallest:budget",
    cells=("allocation", "baseline", "group_size", "environment", "metric", "budget",
           "predicted", "measured"),
    estimate=("error", "error_low", "error_high"),
    judged="prediction",
    verdicts={"inside": (SUPPORTED, "the interval of measured minus predicted contains zero: "
                                    "the prediction is not rejected"),
              "below": (CONTRADICTED, "the curve predicts below the measured pass rate"),
              "above": (CONTRADICTED, "the curve predicts above the measured pass rate"),
              "unresolved": (UNRESOLVED, "zero lies within a limit's Monte Carlo error")},
    siblings=CURVE)
