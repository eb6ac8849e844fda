"""Speciale's question: does lifting the length penalty late reach a higher pass rate than never
using it, at the same tokens, and what does it cost in answer length? For a study whose answers
cost tokens under a length penalty lifted part way (``penalty_until`` below 1), each such cell
against the cell that keeps the same penalty throughout and against the cell without a penalty
(lambda 0), on the same seeds (common random numbers), at every token budget after the switch
(before it the runs are the penalty-throughout runs): the paired difference of the policy's pass
rate, and of its expected answer length, with 95% and 90% betting intervals and betting tests
(``analysis.bounded.paired_betting``): where a few seeds collapse in one cell only, the per-seed
differences are a spike with far outliers, on which a t interval's coverage falls well below its
level, and a bet on the known range (the bandit's pass probabilities, its lengths) holds its
level at any tails. Each metric's tests of a difference are one Holm family; the pass rate's
tests of equivalence within the config's ``pass_rate_margin`` are another (no equivalence is
claimed for a length)."""

from __future__ import annotations

import pandas as pd

from analysis.bounded import paired_betting
from analysis.families import ALPHA, declare, family_name
from analysis.paired import judge
from analysis.pass_rate import seed_pass_rates
from analysis.questions import Inputs
from analysis.questions.length_price import alongside
from analysis.roles import Schedule, typed
from study.model import registry

TABLE = "speciale"
METRICS = {"pass_rate": "pass rate", "expected_length": "expected answer length"}
"""The metrics compared, each its own family (``family``), with their words."""
TEST = {**{f"{TABLE}_{metric}": f"two-sided paired betting test of mean {words} over seeds "
           "(Waudby-Smith and Ramdas 2024, on the range the bandit fixes)"
           for metric, words in METRICS.items()},
        f"{TABLE}_pass_rate_equivalence": "two one-sided paired betting tests of mean pass rate "
        "within the margin"}
LIFTED = "penalty_until"
PENALTY = "penalty"
"""The reward-model parameters the question reads: the share after which the penalty is lifted,
and its weight (a model without ``penalty`` has no penalty-free partner)."""


def _partners(cells: pd.DataFrame) -> list[tuple[int, int, Schedule, float, float]]:
    """(cell, partner, against, lifted at, penalty) for every cell whose penalty is lifted part
    way: the partner with the same parameters lifted never, and the one with no penalty."""
    found = []
    keys = ["environment_values", "baseline", "group_size", "lr", "algorithm", *alongside(cells)]
    frame = cells.assign(environment_values=[
        (m, v, lengths) for m, v, lengths in zip(cells["reward_model"], cells["arm_values"],
                                                 cells["arm_lengths"], strict=True)])
    for cell in frame.itertuples():
        names = [p.name for p in registry.reward_model(cell.reward_model).parameters]
        if LIFTED not in names:
            continue
        parameters = {name: getattr(cell, name) for name in names}
        if parameters[LIFTED] >= 1.0 or parameters.get(PENALTY, 1.0) == 0.0:
            continue
        same = frame[(frame[keys] == pd.Series(cell._asdict())[keys]).all(axis=1)]
        for other in same.itertuples():
            theirs = {name: getattr(other, name) for name in names}
            kept = theirs[LIFTED] == 1.0 and all(
                theirs[n] == parameters[n] for n in names if n != LIFTED)
            never = PENALTY in names and theirs[PENALTY] == 0.0 and theirs[LIFTED] == 1.0 and all(
                theirs[n] == parameters[n] for n in names if n not in (LIFTED, PENALTY))
            if kept or never:
                found.append((int(cell.cell), int(other.cell),
                              Schedule.THROUGHOUT if kept else Schedule.NEVER,
                              parameters[LIFTED], parameters.get(PENALTY, float("nan"))))
    return found


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per lifted cell, partner, metric and budget after the switch; empty unless the
    study's answers cost tokens under a penalty lifted part way."""
    outcomes = inputs.outcomes
    answers = outcomes.answers
    cells = inputs.cells
    if answers is None or "arm_lengths" not in outcomes.cells:
        return pd.DataFrame()
    first = outcomes.cells[outcomes.cells["cost"] == outcomes.cells["cost"].min()]
    largest = float(outcomes.budgets[-1])
    bandits = {int(c.cell): (c.arm_values, c.arm_lengths) for c in first.itertuples()}
    rows, differences = [], []
    for cell, partner, against, lifted, penalty in _partners(first):
        values, lengths = bandits[cell]
        compared = {"pass_rate": (seed_pass_rates(outcomes, cell),
                                  seed_pass_rates(outcomes, partner),
                                  max(values) - min(values)),
                    "expected_length": (answers.expected_length[outcomes.row(cell)],
                                        answers.expected_length[outcomes.row(partner)],
                                        max(lengths) - min(lengths))}
        described = cells.set_index("cell").loc[cell]
        setting = first.set_index("cell").loc[cell]
        for metric, (ours, theirs, span) in compared.items():
            for c, budget in enumerate(outcomes.budgets):
                if budget <= lifted * largest:
                    continue  # before the switch the two runs are one
                rows.append({"cell_a": cell, "cell_b": partner, "against": against,
                             "metric": metric, "environment": described["environment"],
                             "baseline": described["baseline"],
                             "group_size": described["group_size"], "lr": described["lr"],
                             "penalty": penalty, "penalty_until": lifted,
                             **{key: setting[key] for key in alongside(first)},
                             "budget": int(budget), "range": float(span)})
                differences.append(ours[:, c] - theirs[:, c])
    if not rows:
        return pd.DataFrame()
    found = pd.DataFrame(rows)
    found["against"] = typed(found["against"], Schedule)
    margins = {"pass_rate": inputs.analysis.pass_rate_margin, "expected_length": 0.0}
    parts = []
    for metric, part in found.groupby("metric", sort=False):
        # The range is the bandit's: a pass rate lies between its lowest and highest pass
        # probability, an expected length between its shortest and longest arm's mean.
        tested = pd.DataFrame([paired_betting(differences[i], -row.range, row.range, len(part),
                                              margins[metric], ALPHA)
                               for i, row in zip(part.index, part.itertuples(), strict=True)],
                              index=part.index)
        part = declare(pd.concat([part, tested], axis=1),
                       family_name(inputs.study, f"{TABLE}_{metric}"))
        if margins[metric] > 0:
            part = declare(part, family_name(inputs.study, f"{TABLE}_{metric}_equivalence"),
                           p_column="p_equivalence", adjusted="p_equivalence_holm",
                           family_column="equivalence_family")
        parts.append(judge(part, margins[metric]))
    found = pd.concat(parts).sort_index()
    # A length row is in no equivalence family (declare names the family of its members only).
    found["equivalence_family"] = found["equivalence_family"].fillna("")
    return found
