"""The runs tables do not change when the code is reorganised or made faster: every column of the
tidy runs table (``read_runs``: ``runs.parquet`` joined with ``cells.parquet``, where each cell is
described once), and of the curves where a study keeps them, holds the values it held at the commit
named in ``tests/data/runs_checksums.json``.

What it covers: in ``make test-fast`` as well, the configs of ``tests/data/identity/``: every
learner (REINFORCE, epsilon-greedy, uniform allocation, sequential halving, successive rejects),
every baseline and group estimator with groups of 1 and 4, fixed and drawn Bernoulli arms, the per-
step curves and 130 seeds (two lane blocks); Gaussian rewards on fixed and drawn means with streams
per cell; the noisy verifier, on 25 drawn arms too; the many-prompts kernel under every allocation
rule, group estimator and normalization; answers that cost tokens under the length penalty
(geometric lengths, budgets in tokens, the penalty lifted half way) and the overlong punishment
(fixed lengths past the cut, budgets in rollouts); the off-policy learner under every correction
(stale, mismatched and truncated samplers, each KL estimator); a population of environments on
both many-prompts drivers. In the slow set, ``quick``,
``sutton_barto_fig2_5`` (and its curves) and ``budget_sweep`` at 512 seeds, as ``make all`` runs
them.

The checksums are recomputed (``python tests/runs_checksum.py COMMIT``) only by a change meant to
change the outputs; a config is added with its checksums from the commit before the change it
guards: ``offpolicy.toml`` from the commit before the corrections became modules (computed there),
``cispo.toml`` when CISPO was added, ``knapsack.toml`` when knapsack allocation was,
``population.toml`` when populations of environments were; before them
``lengths.toml`` and ``overlong.toml`` (every earlier checksum kept); before it the configs of
``tests/data/identity/`` (every earlier checksum kept); before it the columns ``pass_rate`` and
``normalization`` (every other column kept its checksum); before it the move of Box-Muller's log,
sine and cosine to fused multiply-adds, which changed only ``p_best`` and ``reward_sum`` of the
Gaussian study ``sutton_barto_fig2_5`` (138 and 33 of its 40,000 rows, by at most 4.5e-16 and
9.1e-13; every arm drawn and greedy pick, and the curves, stayed the same; the file now holds every
column, ``reward_parameters`` too); before it the exponential's move to fused multiply-adds, which
changed only ``p_best`` (in its last bits; every arm drawn, reward and greedy pick stayed the same);
before that the move to Philox4x32 and the polynomial elementary functions, and before that commit
74c5cbc's own files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs_checksum import REPO, STORED, study_checksums

EXPECTED = json.loads(STORED.read_text())["studies"]


@pytest.mark.parametrize("config", [
    pytest.param(path, marks=() if entry["fast"] else pytest.mark.slow) for path, entry in
    EXPECTED.items()])
def test_runs_table_columns_are_those_of_the_stored_checksums(config: str,
                                                              tmp_path: Path) -> None:
    expected = EXPECTED[config]
    from study.model import population, registry

    found = study_checksums(config, expected["seeds"], tmp_path / "study")
    assert found["rows"] == expected["rows"]
    # Every stored column keeps its checksum; a column added since is a cell's named parameter
    # (its reward model's, correction's or population law's,
    # study.orchestration.storage.cells_table) or, where answers cost tokens, the verdict that
    # decides a reward (study.model.schema).
    assert {name: found["columns"].get(name) for name in expected["columns"]} == (
        expected["columns"])
    named = ({p.name for model in registry.reward_models() for p in model.parameters}
             | {p.name for p in registry.correction_parameters()} | {"verdict"}
             | {f"{population.NAME}_{name}" for name in population.PARAMETERS})
    assert set(found["columns"]) - set(expected["columns"]) <= named
    assert found.get("curves") == expected.get("curves")


def test_the_identity_configs_cover_every_learner_baseline_model_and_rule() -> None:
    # What the docstring says they cover, from the registries, so that a learner, baseline,
    # reward model, group estimator, allocation rule or normalization added later without an
    # identity case fails here.
    from study.core.prompt_rules import ESTIMATORS, NORMALIZATIONS
    from study.core.state import UNROLLED_ARMS
    from study.model import registry
    from study.model.config import load_config
    from study.model.environment import DRAWS
    from study.model.grid import cells

    grids = [cells(load_config(REPO / path)) for path, entry in EXPECTED.items()
             if entry["fast"]]
    simulations = [cell.simulation for grid in grids for cell in grid]
    assert {s.algorithm for s in simulations} == set(registry.names())
    assert {s.baseline for s in simulations} == set(registry.baselines())
    assert ({s.environment.reward for s in simulations}
            == {model.name for model in registry.reward_models()})
    many = [s for s in simulations if s.allocation]
    # The rules added after the identity configs have theirs (knapsack.toml).
    assert {s.allocation for s in many} == set(registry.allocation_names())
    assert {s.baseline for s in many} == set(ESTIMATORS)
    assert {s.normalization for s in many} == set(NORMALIZATIONS)
    assert {s.environment.draw for s in simulations} == {None, *DRAWS}
    assert max(s.environment.arms for s in simulations) > UNROLLED_ARMS
    sampled = [s.offpolicy for s in simulations if s.offpolicy is not None]
    assert ({part for s in sampled for part in s.correction.split("+")}
            == {item.name for item in registry.corrections()})
