"""The parts of the paper a study can take (``[analysis] paper_role``) and the tables each reads:
the analysis refuses a role whose tables the study does not make, so a study that takes a role
always gets its paper (``figures.named.ROLES`` writes each role's numbers from these tables)."""

from __future__ import annotations

import pandas as pd

from analysis.questions import SETTINGS

REFERENCE_TABLE = "vs_{reference}"
"""The comparison with the study's reference learner (``analysis.reference``), by its name."""

PAPER_ROLES: dict[str, tuple[str, ...]] = {
    "headline": ("accuracy", "accuracy_band", REFERENCE_TABLE, "per_arm_vs_running_mean",
                 "budget_to_target", "power"),
    "narrow": ("budget_to_target", "budget_ratio"),
    "groups": ("group_vs_single", "group_vs_single_pass_rate", "group_budget_to_target"),
}
"""Each role and the tables, with rows, that its numbers are read from."""


def role_gap(role: str, tables: dict[str, pd.DataFrame]) -> str | None:
    """Why a study whose tables are ``tables`` cannot take the paper role ``role`` (None when it
    can): a role that is not one of ``PAPER_ROLES``, or the tables it reads that the study does
    not make or leaves empty."""
    if not role:
        return None
    if role not in PAPER_ROLES:
        return f"is not one of {', '.join(PAPER_ROLES)}"
    reference = tables[SETTINGS]["reference"].iat[0] if SETTINGS in tables else ""
    needed = [name.format(reference=reference) if reference or name != REFERENCE_TABLE
              else "vs_<reference learner>" for name in PAPER_ROLES[role]]
    absent = [name for name in needed if name not in tables or tables[name].empty]
    if absent:
        return (f"reads the tables {', '.join(absent)}, which this study's cells do not make: "
                "give the role to a study that has them, or none")
    return None
