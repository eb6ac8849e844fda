"""The typed columns of the analysis tables: what a row is, as a value code can select on.

Tables hold no sentences: the report words these values (``figures.words``), and code that
picks rows reads them. Each is written as a pandas
categorical whose categories are every value of its enum, in the enum's order, so a Parquet
file keeps the type and a reader compares with the enum (``table["lr_role"] == LrRole.BEST``).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

import pandas as pd


class LrRole(StrEnum):
    """Why a row is at its lr: the grid's own lr (every cell), the best lr (chosen on the even
    seeds, estimated on the odd ones), or the package's default lr."""

    GRID = "grid"
    BEST = "best"
    DEFAULT = "default"


class Finding(StrEnum):
    """What a test of a row found: a difference in either direction (``higher``: A above B, or
    above chance), equivalence within the margin alone, or neither."""

    HIGHER = "higher"
    LOWER = "lower"
    EQUIVALENT = "equivalent"
    UNRESOLVED = "unresolved"


class Against(StrEnum):
    """What a planned comparison of the power table sets the trained cell against."""

    CHANCE = "chance"
    REFERENCE = "reference"
    PER_ARM = "per_arm"


class Schedule(StrEnum):
    """What a cell whose length penalty is lifted part way is set against
    (``analysis.questions.speciale``): the same penalty kept throughout, or no penalty at all."""

    THROUGHOUT = "penalty_throughout"
    NEVER = "no_penalty"


class RatioFinding(StrEnum):
    """The equivalence verdict of a ratio of budgets (``analysis.budget_to_target``)."""

    EQUIVALENT = "equivalent"
    NOT_SHOWN = "not shown"
    UNRESOLVED = "unresolved"


class Placement(StrEnum):
    """Where a value lies against an interval (``BudgetRatio.holds``): inside, below its lower
    limit, above its upper one, or within a limit's Monte Carlo error."""

    INSIDE = "inside"
    BELOW = "below"
    ABOVE = "above"
    UNRESOLVED = "unresolved"


class Censoring(StrEnum):
    """Which of two budgets to a target (a rule's and uniform allocation's) the largest budget
    left unreached, so that their ratio is only bounded (``analysis.prompts.budget_to_target``)."""

    NONE = "both reached"
    RULE = "rule not reached"
    UNIFORM = "uniform not reached"
    BOTH = "neither reached"


class CurveFit(StrEnum):
    """How the compute curve fitted a cell's accuracies (``analysis.prompts.compute_curve``):
    within the noise, worse than the noise allows, not at all, or with fewer budgets than
    parameters to spare."""

    GOOD = "good"
    POOR = "poor"
    FAILED = "failed"
    TOO_FEW_BUDGETS = "too few budgets"


class PolicyState(StrEnum):
    """Where a run's policy stands when a KL estimator's error is read
    (``analysis.questions.kl_estimators``): at the first checkpoint, at the last without having
    collapsed, or collapsed at the last."""

    EARLY = "early"
    LATE = "late"
    COLLAPSED = "collapsed"


def typed(values: Iterable[str | None], kind: type[StrEnum]) -> pd.Categorical:
    """``values`` (members or values of ``kind``, or None or NaN where a row has none) as a
    categorical over all of ``kind``'s values; ValueError for a value that is not one of them."""
    values = [None if pd.isna(value) else kind(value).value for value in values]
    return pd.Categorical(values, categories=[member.value for member in kind])


def finding(higher: bool, lower: bool, within: bool) -> Finding:
    """A test's finding from its three outcomes: a difference shown above or below (``higher``,
    ``lower``: never both), else equivalence within the margin, else neither."""
    if higher:
        return Finding.HIGHER
    if lower:
        return Finding.LOWER
    return Finding.EQUIVALENT if within else Finding.UNRESOLVED
