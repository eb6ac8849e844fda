"""The joint test of a noisy verifier study's costs against a prediction: the slope of the log
ratio of budgets on the log predicted ratio over the verifiers (``analysis.questions.reward_noise``,
which draws it from the resamples of the costs' table, so that both tables share them)."""

from __future__ import annotations

from analysis.questions.reward_noise import SLOPE_TABLE as TABLE
from analysis.questions.reward_noise import TEST
from analysis.questions.reward_noise import slope_table as table

__all__ = ["TABLE", "TEST", "table"]
