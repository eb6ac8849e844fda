"""The figure of what reward noise costs: the ratio of rollouts to 0.9 accuracy under each noisy
verifier to the exact verifier's, against the verifier's total error rate, with the ratio a
margin argument predicts (``analysis.reward_noise``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt
from matplotlib import ticker

from figures.style import REFERENCE, ordered_colours, outside_legend, save


def reward_noise_cost(table: pd.DataFrame, out_dir: Path, name: str) -> list[Path]:
    """Ratio against false_positive + false_negative, one colour and marker per false-positive
    rate (nudged sideways so that rates of one total stay apart), 95% paired bootstrap bars; the
    dashed line is 1 / (1 - fp - fn)^2."""
    figure, ax = plt.subplots(figsize=(5.6, 3.4), layout="constrained")
    total = table["false_positive"] + table["false_negative"]
    rates = sorted(table["false_positive"].unique())
    nudge = 0.012 * total.max()
    for i, (colour, rate) in enumerate(zip(ordered_colours(len(rates)), rates, strict=True)):
        rows = table[table["false_positive"] == rate]
        x = rows["false_positive"] + rows["false_negative"] + nudge * (i - (len(rates) - 1) / 2)
        ax.errorbar(x, rows["ratio"], yerr=[rows["ratio"] - rows["ci_low"],
                                            rows["ci_high"] - rows["ratio"]],
                    color=colour, marker="osD^v<>"[i % 7], markersize=4, linestyle="none",
                    capsize=2, label=f"false positive {rate:g}")
    grid = np.linspace(0.0, total.max(), 100)
    ax.plot(grid, 1.0 / (1.0 - grid) ** 2, **REFERENCE, label="1 / (1 - fp - fn)$^2$")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(ticker.FixedLocator([1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50]))
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel("verifier's total error rate, false positive + false negative")
    ax.set_ylabel("rollouts to 0.9 accuracy,\nratio to the exact verifier")
    outside_legend(figure, ax)
    return save(figure, out_dir, name)
