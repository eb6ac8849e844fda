"""The learner registry and the layers: every learner is declared once, has a reference, and the
specification can be read without loading numba."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import reference
from conftest import REPO
from study.model import registry
from study.model.config import load_config
from study.model.paths import CONFIG_DIR


def test_every_learner_has_a_reference_of_its_kind() -> None:
    for learner in registry.learners():
        module = reference.learner(learner.name)
        assert hasattr(module, "choose" if learner.nested else "run_budget"), learner.name
        assert set(learner.streams) <= {"main", "noise", "instance", "tie_break",
                                         "phase_tie_break"}
        assert learner.trains == (learner.baselines != ("none",))


def test_every_reference_module_is_a_registered_learner() -> None:
    # Beside the learners' modules: the package's own loop, the elementary functions, and the
    # references of the many-prompts kernel and of the off-policy driver (both train
    # REINFORCE's group update).
    files = {path.stem for path in (Path(reference.__file__).parent).glob("*.py")}
    assert files - {"__init__", "elementary", "prompts", "offpolicy"} == set(registry.names())


def test_configs_name_only_registered_learners() -> None:
    for path in sorted(CONFIG_DIR.glob("*.toml")):
        assert set(load_config(path).algorithm) <= set(registry.names())


def test_the_specification_loads_no_numba() -> None:
    # Config validation, the grid and the registry's declarations are read by the CLI's error
    # paths, the analysis and the figures: none of them may pull in numba (import-linter checks
    # the direct imports; this checks what a process actually loads).
    code = ("import sys\n"
            "from study.model import config, grid, registry, schema\n"
            "from study.model.paths import CONFIG_DIR\n"
            "registry.learners(); config.load_config(CONFIG_DIR / 'budget_sweep.toml')\n"
            "assert 'numba' not in sys.modules, 'numba was loaded'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_every_study_declares_only_sections_the_report_has() -> None:
    # The figures, the report and the paper refuse tables that declare any other name
    # (figures.sections.check_declared), so a config here that did would stop make all.
    from figures.sections import declarable

    for path in sorted(CONFIG_DIR.glob("*.toml")):
        assert set(load_config(path).analysis.sections) <= set(declarable()), path.name


def test_the_docs_lists_are_the_registries() -> None:
    # docs/hooks.py writes the lists into the pages when the site is built: every learner and
    # reward model is in the config reference and the model's tables, and a page keeps no list
    # of its own beside a marker.
    import importlib.util

    spec = importlib.util.spec_from_file_location("hooks", REPO / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    config = hooks.expand((REPO / "docs" / "config.md").read_text())
    model = hooks.expand((REPO / "docs" / "model.md").read_text())
    for name in (*registry.names(), *(m.name for m in registry.reward_models()),
                 *(c.name for c in registry.corrections()), *registry.allocation_names()):
        assert f"`{name}`" in config and f"| `{name}` |" in model, name
    for parameter in registry.correction_parameters():
        assert f"| `{parameter.name}` | number |" in config, parameter.name
    assert "<!-- registry:" not in config + model
