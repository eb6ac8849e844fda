"""Where the compiled kernels are kept: the per-user cache, never the package's folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from study.core import jit, kernel, prompts

PACKAGE = Path(jit.__file__).resolve().parents[1]


def test_the_kernels_cache_in_the_chosen_folder_although_numba_was_imported_first() -> None:
    # pytest imports numba before any test module (to read a warning filter of pyproject.toml),
    # so numba read NUMBA_CACHE_DIR before the package could choose it; every driver must still
    # cache in the package's folder, not beside its source (numba's default).
    assert "numba" in sys.modules
    for driver in (kernel.simulate_single, kernel.simulate_groups, kernel.simulate_fixed_budget,
                   prompts.simulate_prompts):
        path = Path(driver._cache._cache_path)
        assert path.is_relative_to(jit.cache_dir()), (driver, path)
        assert not path.is_relative_to(PACKAGE), (driver, path)


def test_the_cache_is_per_user_unless_the_user_names_one(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    code = ("from study.core import kernel; import numba; "
            "print(kernel.simulate_single._cache._cache_path)")

    def cache_path(**extra: str) -> Path:
        done = subprocess.run([sys.executable, "-c", code], env={**env, **extra},
                              capture_output=True, text=True, check=True)
        return Path(done.stdout.strip())

    per_user = cache_path(XDG_CACHE_HOME=str(tmp_path / "user"))
    assert per_user.is_relative_to(tmp_path / "user" / "bandit-budget-study" / "numba")
    chosen = cache_path(XDG_CACHE_HOME=str(tmp_path / "user"),
                        NUMBA_CACHE_DIR=str(tmp_path / "chosen"))
    assert chosen.is_relative_to(tmp_path / "chosen")
