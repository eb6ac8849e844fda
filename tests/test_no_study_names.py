"""The write-up's code knows no study by name: a study takes a section by its tables and a part of
the paper by its config's ``[analysis] paper_role``, so a user's own config gets them without a
line of Python, and renaming a config moves no code."""

from __future__ import annotations

import re
from pathlib import Path

import figures
from figures.numbers import study_prefix
from study.model.paths import CONFIG_DIR

WRITE_UP = Path(figures.__file__).resolve().parent
NAMES = sorted(path.stem for path in CONFIG_DIR.glob("*.toml"))
CONSTANTS = re.compile(r"DefaultLr")
"""Names of the code's constants that a config is named after: ``DefaultLr`` is
``study.model.config.DEFAULT_LR`` (the study ``default_lr`` runs at it), not that study."""


def mentions(text: str) -> list[str]:
    """The configs' names in ``text``: a name as a whole identifier (``budget_sweep``, not
    ``budget_sweep_x``), or its macro prefix (``BudgetSweep``) at the start of a CamelCase word.
    Names that are plain words (``cost``) count only as macro prefixes followed by another
    capitalised word, as a study's named numbers are."""
    found = []
    text = CONSTANTS.sub("", text)
    for name in NAMES:
        whole = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
        prefix = rf"(?<![A-Za-z0-9]){re.escape(study_prefix(name))}[A-Z]"
        if ("_" in name and re.search(whole, text)) or re.search(prefix, text):
            found.append(name)
    return found


def test_no_config_is_named_in_the_write_up_code() -> None:
    files = sorted(path for path in WRITE_UP.rglob("*")
                   if path.suffix in (".py", ".j2", ".typ") and "__pycache__" not in path.parts)
    assert len(files) > 30
    named = {str(path.relative_to(WRITE_UP)): mentions(path.read_text()) for path in files}
    assert {path: names for path, names in named.items() if names} == {}


def test_the_check_sees_a_name() -> None:
    # The check above fails on what it looks for: a name as an identifier or as a macro prefix.
    assert mentions('HEADLINE = "budget_sweep"') == ["budget_sweep"]
    assert mentions("#NarrowMarginsArms") == ["narrow_margins"]
    assert mentions("#CostBreakEven") == ["cost"]
    assert mentions("#DefaultLrBudgetToNinety") == []
    assert mentions("the cost of a pull; budget_sweep_x; Costly") == []
