"""The data contract: the names of the files a study writes and of their columns.

Every module that writes or reads an output takes its names from here, so a file or a column is
renamed in one place. Data flows config -> cells -> kernel -> ``runs.parquet`` (and
``curves.parquet``) -> tables -> figures and report; ``manifest.json`` records where a runs table
came from.

A cell's description is stored once: ``cells.parquet`` holds one row per cell (``CELL_COLUMNS``)
and ``runs.parquet`` only the ``cell`` key beside each run's own columns (``STORED_RUN_COLUMNS``),
written cell by cell (one or more Parquet row groups per cell, in cell order), so a study's
memory does not grow with its description and a reader can take one cell at a time. The tidy
table, every description column on every row (``RUNS_COLUMNS``), is the join of the two on
``cell`` (``study.orchestration.storage.read_runs``).
"""

from __future__ import annotations

RUNS_FILE = "runs.parquet"
CELLS_FILE = "cells.parquet"
CURVES_FILE = "curves.parquet"
MANIFEST_FILE = "manifest.json"
INDEX_FILE = "index.json"
"""Written last by every step of ``make`` (tables, figures): the file make depends on, so a step
that stopped half-way is redone."""

CELL_COLUMNS = ("cell", "algorithm", "nested", "baseline", "lr", "group_size", "normalization",
                "reward_model", "environment", "arms", "draw", "arm_values", "draw_parameters",
                "cost")
"""The columns of the runs table that describe a cell (the same on every row of the cell).

``environment`` is the bandit as display text (``0.5,0.55,0.6`` when its values are fixed,
``normal(4,1)x10`` when they are drawn per seed); the structured columns say the same for code:
``arms`` (K), ``draw`` (``fixed``, or the distribution the values are drawn from per seed),
``arm_values`` (the fixed values, empty when drawn) and ``draw_parameters`` (the distribution's
parameters in the order ``study.model.environment.DRAWS`` lists them, empty when fixed).

Beside these, ``cells.parquet`` has a float64 column per parameter of a cell's reward model (and
of the verdict it shapes) and of its off-policy correction, named as the model or correction
declares it (``false_positive``, ``penalty``, ``tis_cap`` ...), for the parameters some cell of
the study has (NaN in a cell whose model or correction has not), before ``cost``
(``study.orchestration.storage.cells_table``); a reader finds a model's parameters by the names
it declares (``study.model.environment.Environment.from_columns``)."""

LIST_COLUMNS = ("arm_values", "draw_parameters", "arm_lengths")
"""Cell columns stored as Parquet lists (read back as tuples, one object per cell)."""

RUN_COLUMNS = ("seed", "budget", "rollouts", "greedy_arm", "best_arm", "correct", "p_best",
               "pass_rate", "reward_sum", "best_arm_pulls", "best_value", "value_gap",
               "greedy_value", "zero_signal_updates", "finite")
"""The columns of the runs table that describe one run at one checkpoint (README, "Commands and
outputs", says what each holds). ``rollouts`` is G * floor(B / G), the rollouts a run with groups
of G actually spent by checkpoint B (B itself when G = 1)."""

STORED_RUN_COLUMNS = ("cell", *RUN_COLUMNS)
"""``runs.parquet``: one row per (cell, seed, budget checkpoint), ordered that way."""

RUNS_COLUMNS = CELL_COLUMNS + RUN_COLUMNS
"""The tidy runs table (``read_runs``): ``runs.parquet`` joined with ``cells.parquet``."""

ANSWER_CELL_COLUMNS = ("arm_lengths", "length_law", "verdict")
"""The cell columns of answers that cost tokens (``grid.lengths``): each arm's (mean) answer
length and how lengths are drawn (``study.model.environment``), and the verdict that decides a
pull's reward (the reward model itself, or the verdict a length-constraint model shapes:
``study.rewards``), whose parameters have named columns as the reward model's."""

SAMPLER_CELL_COLUMNS = ("lag", "mismatch", "top_p", "correction", "kl_beta", "kl_estimator")
"""The cell columns of an off-policy learner (``study.model.offpolicy``): the sampler's lag,
logit noise and top-p, the update's correction and its KL term's coefficient and estimator (the
correction's parameters have named columns)."""

ANSWER_RUN_COLUMNS = ("tokens", "expected_length")
"""The run columns of answers that cost tokens: the tokens a run spent by its checkpoint and the
policy's expected answer length sum pi[k] l[k] (``budget`` then counts the study's unit, tokens
for ``grid.token_budgets``, and ``rollouts`` those a run spent)."""

SAMPLER_RUN_COLUMNS = ("entropy", "k1_bias", "k1_mse", "k3_bias", "k3_mse", "k3_is_bias",
                       "k3_is_mse", "served_pass_rate", "served_p_best")
"""The run columns of an off-policy learner: the policy's entropy, each KL estimator's exact
gradient bias (its norm) and mean squared error for a group drawn from the next update's sampler
at the checkpoint's state, and the served policy's pass rate and mass on the best arms
(``study.model.offpolicy``: the current logits mismatched and truncated as the sampler's
are)."""


DESIGN_ROW = "design_row"
"""The cell column of a study whose cells are a fractional factorial's rows (``[design]``,
``study.model.design``): the row the cell runs, whose levels the study's config states."""

PROMPTS_CELL_COLUMNS = ("allocation", "prompts")
"""The cell columns of many prompts sharing a budget (``study.core.prompts``): the allocation
rule and the prompts P of its dataset (``arms``, ``draw``, ``arm_values`` and
``draw_parameters`` describe each prompt's bandit)."""


def cell_columns(*, answers: bool = False, sampler: bool = False,
                 prompts: bool = False) -> tuple[str, ...]:
    """The cell columns of a study made of these parts: those of every study, then each part's
    (``ANSWER_CELL_COLUMNS``, ``SAMPLER_CELL_COLUMNS``, ``PROMPTS_CELL_COLUMNS``), ``cost``
    last."""
    return (*CELL_COLUMNS[:-1], *(ANSWER_CELL_COLUMNS if answers else ()),
            *(SAMPLER_CELL_COLUMNS if sampler else ()),
            *(PROMPTS_CELL_COLUMNS if prompts else ()), CELL_COLUMNS[-1])


def run_columns(*, answers: bool = False, sampler: bool = False,
                prompts: bool = False, environments: bool = False) -> tuple[str, ...]:
    """The run columns of a study made of these parts: those of every study, then each part's
    (``ANSWER_RUN_COLUMNS``, ``SAMPLER_RUN_COLUMNS``); with many prompts, one row per band
    (``PROMPT_RUN_COLUMNS``), or per environment of a population (``environments``: with
    ``ENVIRONMENT_INDEX`` after the band), and the parts' sums (``PROMPT_ANSWER_RUN_COLUMNS``,
    ``PROMPT_SAMPLER_RUN_COLUMNS``)."""
    if prompts:
        kept = PROMPT_RUN_COLUMNS[:3] + ((ENVIRONMENT_INDEX,) if environments else ())
        return (*kept, *PROMPT_RUN_COLUMNS[3:], *(PROMPT_ANSWER_RUN_COLUMNS if answers else ()),
                *(PROMPT_SAMPLER_RUN_COLUMNS if sampler else ()))
    return (*RUN_COLUMNS, *(ANSWER_RUN_COLUMNS if answers else ()),
            *(SAMPLER_RUN_COLUMNS if sampler else ()))


TOKEN_CELL_COLUMNS = cell_columns(answers=True)
"""The cells of a study whose answers cost tokens."""
TOKEN_RUN_COLUMNS = run_columns(answers=True)
"""The runs-table columns of a study whose answers cost tokens."""
STORED_TOKEN_RUN_COLUMNS = ("cell", *TOKEN_RUN_COLUMNS)
"""``runs.parquet`` of a study whose answers cost tokens."""
OFFPOLICY_CELL_COLUMNS = cell_columns(sampler=True)
"""The cells of an off-policy study."""
OFFPOLICY_RUN_COLUMNS = run_columns(sampler=True)
"""The runs-table columns of an off-policy study."""
STORED_OFFPOLICY_RUN_COLUMNS = ("cell", *OFFPOLICY_RUN_COLUMNS)
"""``runs.parquet`` of an off-policy study."""

PROMPT_CELL_COLUMNS = cell_columns(prompts=True)
"""The cells of a many-prompts study of Bernoulli prompts trained on policy."""

PROMPT_FIELD_COLUMNS = ("band_prompts", "correct_prompts", "greedy_value_sum", "pass_rate_sum",
                        "best_value_sum", "rollouts", "groups", "zero_signal_groups",
                        "non_finite_prompts")
"""The runs-table columns of the many-prompts kernel's fields (``study.core.prompt_rules.FIELDS``,
in that order): a band's prompts; those whose greedy arm is a best arm; the sums over them of the
greedy arm's value, of the policy's pass rate and of the best arm's value; the rollouts, groups and
groups without signal spent on them so far; those whose logits are not finite."""

PROMPT_RUN_COLUMNS = ("seed", "budget", "band", *PROMPT_FIELD_COLUMNS)
"""The runs-table columns of a many-prompts study: one row per (cell, seed, budget checkpoint,
difficulty band), so a band's share is its row and the dataset's is the sum over the bands.
``rollouts`` can be below the budget: a group runs whole or not at all."""

ENVIRONMENT_INDEX = "environment_index"
"""The run column of a many-prompts study with a population of environments
(``study.model.population``): its rows are per environment, e (from 0) of the cell's population,
whose difficulty band is the row's ``band`` (-1 in the rows of a cell of another bandit, whose
rows are per band)."""

PROMPT_ANSWER_RUN_COLUMNS = ("tokens", "expected_length_sum")
"""The run columns of many prompts whose answers cost tokens (``study.core.passes``): the tokens
spent on a band's prompts and the sum over them of the policy's expected answer length."""

PROMPT_SAMPLER_RUN_COLUMNS = ("served_pass_rate_sum", "stuck_prompts")
"""The run columns of many prompts trained off policy: the sum over a band's prompts of the
served policy's pass rate (``study.model.offpolicy``), and the band's prompts that are stuck
(``study.core.prompt_rules.STUCK_WRONG_MASS``: served a wrong answer at least as often as a right
one while the learner's mass on the best arms has not risen since the previous checkpoint; a
prompt whose logits are not finite is stuck)."""

STORED_PROMPT_RUN_COLUMNS = ("cell", *PROMPT_RUN_COLUMNS)
"""``runs.parquet`` of a many-prompts study: ordered by (cell, seed, budget, band)."""

CURVES_COLUMNS = ("cell", "step", "optimal_action", "mean_reward", "seeds")
"""``curves.parquet``: one row per (cell, step) for the nested learners' cells."""

MANIFEST_KEYS = ("study", "config", "config_hash", "root_seed", "seeds", "rows", "curve_rows",
                 "non_finite_rows", "versions", "git_commit", "threads", "backend", "shards",
                 "shards_reused", "episodes", "episodes_computed", "kernel_seconds",
                 "wall_seconds", "episodes_per_second")
"""``manifest.json``: the provenance of a runs table (``study.orchestration.manifest``)."""
