"""Words the report's Python and its sections share: phrases without digits, and the formatters
that print a cited value as prose (``figures.cite.formatter``)."""

from __future__ import annotations

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
def bandit(environment: str) -> str:
    """A bandit's name as prose: "0.5, 0.55, 0.6"."""
    return environment.replace(",", ", ")
