"""Words the report's Python and its sections share: phrases without digits, and the formatters
that print a cited value as prose (``figures.cite.formatter``)."""

from __future__ import annotations

import math
from fractions import Fraction

from analysis.tables import p_text
from figures.cite import formatter
from study.model import registry


def baseline_name(baseline: str) -> str:
    """``none`` -> ``no baseline``, ``running_mean`` -> ``the running-mean baseline``."""
    return "no baseline" if baseline == "none" else f"the {baseline.replace('_', '-')} baseline"


@formatter
def display(name: str) -> str:
    """A learner's display name ("successive rejects"), or the text itself if it is none."""
    return registry.display(name) if name in registry.names() else name


@formatter
def arm_values(values: list[float]) -> str:
    """A bandit's fixed arm values (a list, as a manifest holds them) as prose: "0.5, 0.55,
    0.6"."""
    return ", ".join(f"{value:g}" for value in values)


@formatter
def pvalue(p: float) -> str:
    """A p-value as text after "p": "= 0.013", or "< 1e-15" below ``analysis.tables.P_FLOOR``."""
    return p_text(p).removeprefix("p ")


@formatter
def fraction(x: float) -> str:
    """A chance level as the fraction it is (1/3), else to four decimals."""
    near = Fraction(x).limit_denominator(1000)
    return f"{near.numerator}/{near.denominator}" if abs(float(near) - x) < 1e-12 else f"{x:.4f}"


@formatter
def budget_estimate(values: tuple[float, float, float, bool, bool, float]) -> str:
    """A budget to a target with its interval (estimate, low, high, reached, reached at the first
    checkpoint, the largest budget: ``figures.cite.Row.estimate``) as prose: "27,300 [25,900,
    28,800]", a
    bound where the target was not reached or reached at once, "> largest" for an unbounded
    upper limit."""
    estimate, low, high, reached, at_first, largest = values
    if not reached:
        return f"not reached by {largest:,.0f} (budget > {largest:,.0f})"
    if at_first:
        return f"reached by the first checkpoint (budget <= {estimate:,.0f})"
    shown = f"> {largest:,.0f}" if math.isinf(high) else f"{high:,.0f}"
    return f"{estimate:,.0f} [{low:,.0f}, {shown}]"


@formatter
def budget_ratio(values: tuple[float, float, float, bool, bool, float, float]) -> str:
    """A ratio of two budgets to a target with its interval (ratio, low, high, whether each
    cell reaches the target, and the two budgets, a budget not reached being the largest) as
    a table prints it: "0.97 [0.90, 1.04]" ("unbounded" for an infinite limit); where one cell
    does not reach the target, only the bound the budgets give ("< 0.30" where the partner does
    not, "> 6.16" where the first cell does not); "not estimated" where neither does."""
    ratio, low, high, reached, partner_reached, budget, partner_budget = values
    if not (reached or partner_reached):
        return "not estimated"
    if not (reached and partner_reached):
        return f"{'<' if reached else '>'} {budget / partner_budget:.2f}"
    shown = "unbounded" if math.isinf(high) else f"{high:.2f}"
    return f"{ratio:.2f} [{low:.2f}, {shown}]"


@formatter
def paired_verdict(values: tuple[str, bool, float]) -> str:
    """What a paired row supports (its ``finding``, ``within_margin`` and ``margin``,
    ``analysis.paired.judge``) in words: "A better", "A worse" (", by less than" the margin where
    its 90% interval lies inside it), "equivalent within +-margin" or "unresolved"."""
    finding, within, margin = values
    if finding in ("higher", "lower"):
        found = "A better" if finding == "higher" else "A worse"
        return f"{found}, by less than {margin:g}" if within else found
    return f"equivalent within +-{margin:g}" if finding == "equivalent" else "unresolved"


@formatter
def comparison(values: tuple[str, str]) -> str:
    """A planned comparison of the power table (its ``against``, ``analysis.roles.Against``, and
    the study's reference learner) in words: "trained vs uniform allocation"."""
    against, reference = values
    return {"chance": "trained vs never-training sampler",
            "reference": f"trained vs {display(reference)}",
            "per_arm": "running-mean vs per-arm baseline"}[str(against)]


@formatter
def bandit(environment: str) -> str:
    """A bandit's name as prose: "0.5, 0.55, 0.6"."""
    return environment.replace(",", ", ")


@formatter
def answers(environment: str) -> str:
    """A bandit of answers that cost tokens as prose, without its reward model: "0.5, 0.55, 0.6
    with geometric lengths 1, 2, 4"."""
    values, *rest = environment.split(" ")
    lengths = next(word for word in rest if word.startswith("lengths("))
    law = "geometric " if "geometric" in rest else ""
    return f"{bandit(values)} with {law}lengths {bandit(lengths[len('lengths('):-1])}"
