"""Simultaneous confidence bands for an accuracy curve over budgets.

A pointwise 95% interval at each of 25 checkpoints covers each accuracy with probability 0.95,
but the whole curve far less often; a claim about the curve's shape ("it rises from ... to ...")
needs a band that covers every checkpoint at once. The sup-t band (Montiel Olea and
Plagborg-Moller 2019) widens each pointwise interval by one common factor c, the 95% quantile over
seed-bootstrap resamples of the largest standardized deviation over the checkpoints; a resample
draws whole seeds, so a seed's checkpoints move together and their correlation is kept.
Deviations are standardized by the Wilson interval's distance on their side of the estimate (the
Wilson interval never has zero width, so a checkpoint where every seed agrees stays in the band).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analysis.binomial import proportion_interval
from analysis.budget_to_target import BOOTSTRAP, bootstrap_weights


@dataclass(frozen=True)
class Band:
    """Pointwise Wilson intervals and the simultaneous band, per checkpoint, and the band's
    common factor ``factor`` (1 would be the pointwise intervals)."""

    accuracy: np.ndarray
    low: np.ndarray
    high: np.ndarray
    band_low: np.ndarray
    band_high: np.ndarray
    factor: float


def sup_t_band(correct: np.ndarray, confidence: float = 0.95, resamples: int = BOOTSTRAP,
               seed: int = 0) -> Band:
    """The band of a (seeds, checkpoints) boolean outcome matrix."""
    counts = np.asarray(correct, dtype=bool).sum(axis=0)
    correct = np.asarray(correct, dtype=float)
    seeds = correct.shape[0]
    accuracy = correct.mean(axis=0)
    intervals = [proportion_interval(k, seeds, confidence) for k in counts]
    low = np.array([i[0] for i in intervals])
    high = np.array([i[1] for i in intervals])
    curves = bootstrap_weights(seeds, resamples, seed) @ correct / seeds
    deviation = curves - accuracy
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(deviation > 0, deviation / (high - accuracy),
                          -deviation / (accuracy - low))
    # 0 / 0 where every seed agrees and the Wilson limit on that side is the estimate itself.
    scaled = np.nan_to_num(scaled, nan=0.0)
    factor = float(np.quantile(scaled.max(axis=1), confidence, method="inverted_cdf"))
    factor = max(factor, 1.0)  # never narrower than the pointwise intervals
    return Band(accuracy, low, high, np.clip(accuracy - factor * (accuracy - low), 0, 1),
                np.clip(accuracy + factor * (high - accuracy), 0, 1), factor)
