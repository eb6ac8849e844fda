"""Words the report's Python and its sections share: phrases without digits, and the formatters
that print a cited value as prose (``figures.cite.formatter``)."""

from __future__ import annotations

from figures.cite import formatter
from study.spec import registry


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
