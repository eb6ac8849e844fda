"""The fractional factorial a study's cells are the rows of: its size and resolution, each
part's two levels, and what each effect is aliased with (``analysis.prompts.factorial``)."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.factorial import aliases, levels
from analysis.questions import Inputs

TABLE = "factorial_design_{part}"
TEST = ""


def table(inputs: Inputs) -> dict[str, pd.DataFrame]:
    """``factorial_design_summary`` (one row: ``factors``, ``runs``, ``resolution``,
    ``generators``), ``factorial_design_levels`` and ``factorial_design_aliases``; none without
    a design."""
    design = inputs.design
    if design is None:
        return {}
    return {"summary": pd.DataFrame([{"factors": len(design.factors),
                                     "runs": len(design.matrix),
                                     "resolution": design.resolution,
                                     "generators": design.generators}]),
            "levels": levels(design), "aliases": aliases(design)}
