"""Every location the package reads or writes, derived from one place.

Generated files live under ``out/`` beside the repository's code folders and never beside the code
itself, so a clean clone plus ``make all`` reproduces everything and ``make clean`` removes it all.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT: Path = Path(__file__).resolve().parent.parent
CONFIG_DIR: Path = Path(__file__).resolve().parent / "configs"
OUT_DIR: Path = REPO_ROOT / "out"
NUMBA_CACHE_DIR: Path = OUT_DIR / "numba-cache"


def use_out_dir_for_numba_cache() -> None:
    """Point numba's on-disk cache at ``out/numba-cache`` unless the user chose a folder.

    numba writes its cache beside the source files by default; this must run before numba is
    imported, because numba reads ``NUMBA_CACHE_DIR`` once at import.
    """
    os.environ.setdefault("NUMBA_CACHE_DIR", str(NUMBA_CACHE_DIR))


def study_out_dir(name: str) -> Path:
    """The folder a study named ``name`` writes its runs table and manifest to."""
    return OUT_DIR / name
