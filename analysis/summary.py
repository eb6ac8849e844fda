"""The plain-text summary ``python -m bandit_study quick`` (and ``summarize``) prints: accuracy per
budget with Wilson intervals, the gap to the never-training sampler, and what the extra budget
bought; for a many-prompts study, mean accuracy over the prompts per budget."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from analysis.accuracy import accuracy_table, chance_levels
from analysis.outcomes import Outcomes
from analysis.paired import compare_outcomes
from analysis.prompts.means import accuracy_table as prompt_accuracy
from analysis.tables import p_text


def summarize(outcomes: Outcomes) -> str:
    """A block of text per cell of the study."""
    table = accuracy_table(outcomes)
    chance = chance_levels(outcomes)
    blocks = [_cell_block(rows, chance[cell], outcomes.outcomes(cell))
              for cell, rows in table.groupby("cell", sort=True)]
    return "\n\n".join(blocks)


def _cell_block(rows: pd.DataFrame, chance: float, correct: np.ndarray) -> str:
    """``rows``: the cell's accuracy table; ``correct``: its (seeds, checkpoints) outcomes."""
    first, last = rows.iloc[0], rows.iloc[-1]
    head = (f"cell {first['cell']}: {first['algorithm']}, baseline {first['baseline']}, "
            f"lr {first['lr']:g}, {first['reward_model']} {first['environment']}, "
            f"cost {first['cost']:g}")
    lines = [head, f"{'budget':>8}  {'accuracy':>8}  {'95% Wilson interval':>19}  {'seeds':>6}"]
    for _, row in rows.iterrows():
        flag = f"  ({row['non_finite']} non-finite)" if row["non_finite"] else ""
        lines.append(f"{row['budget']:>8}  {row['accuracy']:>8.3f}  "
                     f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]".ljust(40)
                     + f"{row['seeds']:>6}{flag}")
    test = binomtest(int(last["correct"]), int(last["seeds"]), chance, alternative="greater")
    lines.append(
        f"never-training sampler (zero logits): {chance:.3f} exactly (1/K); gap at budget "
        f"{last['budget']}: {last['accuracy'] - chance:+.3f} [{last['ci_low'] - chance:+.3f}, "
        f"{last['ci_high'] - chance:+.3f}], exact binomial test {p_text(test.pvalue)}")
    if len(rows) > 1:
        # The checkpoints are one run's, so seed i at the first budget is paired with seed i at
        # the last: a paired interval and test, not two independent ones.
        bought = compare_outcomes(correct[:, -1], correct[:, 0])
        lines.append(
            f"{last['budget'] / first['budget']:g}x the rollouts ({first['budget']} -> "
            f"{last['budget']}) bought {bought['difference']:+.3f} accuracy "
            f"[{bought['ci_low']:+.3f}, {bought['ci_high']:+.3f}] (paired by seed: Newcombe 95% "
            f"interval, exact McNemar {p_text(bought['p_value'])})")
    return "\n".join(lines)


def summarize_prompts(runs: pd.DataFrame) -> str:
    """A block of text per cell of a many-prompts study (its tidy runs table): mean accuracy
    over the prompts per budget, with its 95% interval over seeds, and the rollouts spent."""
    blocks = []
    for cell, rows in prompt_accuracy(runs).groupby("cell", sort=True):
        first = rows.iloc[0]
        lines = [f"cell {cell}: {first['allocation']}, baseline {first['baseline']}, G "
                 f"{first['group_size']}, lr {first['lr']:g}, {first['prompts']} prompts of "
                 f"{first['environment']}",
                 f"{'budget':>8}  {'accuracy':>8}  {'95% interval':>16}  {'rollouts':>9}  "
                 f"{'seeds':>6}"]
        for _, row in rows.iterrows():
            lines.append(f"{row['budget']:>8}  {row['accuracy']:>8.3f}  "
                         + f"[{row['accuracy_low']:.3f}, {row['accuracy_high']:.3f}]".rjust(16)
                         + f"  {row['rollouts']:>9.0f}  {row['accuracy_seeds']:>6}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
