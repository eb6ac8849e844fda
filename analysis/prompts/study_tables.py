"""Every table of a many-prompts study (``analysis.prompts.questions``, one module each), the
tables ``python -m analysis`` writes for it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from analysis import questions
from analysis.prompts.outcomes import band_rows, cells_frame
from study.model.config import AnalysisConfig
from study.model.design import Design
from study.model.environment import Environment
from study.model.schema import ENVIRONMENT_INDEX


def study_tables(runs: pd.DataFrame, study: str, analysis: AnalysisConfig,
                 environments: Mapping[str, Environment], run_dir: Path,
                 design: Design | None = None) -> dict[str, pd.DataFrame]:
    """Every table of a many-prompts study from its tidy runs table, analysed as its config's
    ``[analysis]`` table says, each metric (``analysis.prompts.outcomes.METRICS``) its own Holm
    family; ``environments``: each environment of the runs by its text; ``run_dir``: the folder
    of its runs; ``design``: the fractional factorial its cells are the rows of, if any."""
    per_environment = runs if ENVIRONMENT_INDEX in runs else None
    runs = band_rows(runs)
    # The headline cells' lr, where the config's default (a single bandit's headline) would
    # name an lr no cell of this study uses.
    rates = runs.loc[(runs["baseline"] == analysis.headline_baseline)
                     & (runs["group_size"] == analysis.headline_group_size), "lr"].unique()
    settings = analysis.to_dict() | ({"headline_lr": float(rates[0])} if len(rates) == 1 else {})
    return questions.build(questions.Inputs(
        study=study, analysis=analysis, settings_frame=pd.DataFrame([{"study": study, **settings}]),
        cells=cells_frame(runs), run_dir=run_dir, runs=runs, environment_runs=per_environment,
        environments=environments,
        design=design),
        package="analysis.prompts.questions")
