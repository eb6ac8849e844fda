"""Simulation half of bandit-budget-study: configs, seeds, the numba kernel and the runs table.

Data flows one way: a TOML config (``study.config``) expands into a grid of cells
(``study.grid``); each cell's seeds get their own Philox streams (``study.streams``); the kernel
(``study.kernel``) simulates them; ``study.runner`` assembles the tidy runs table and
``study.storage`` writes it atomically.
"""

from study.paths import use_out_dir_for_numba_cache

use_out_dir_for_numba_cache()

__version__ = "0.1.0"
