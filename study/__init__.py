"""Simulation half of bandit-budget-study, in three layers that import only downwards.

* ``study.core``: the numba building blocks (generator, exponential, normal draws, the kernel's
  drivers, the learner protocol); ``study.learners``: one module per learner, its declaration
  and its numba pieces.
* ``study.spec``: the specification, without numba: TOML config -> validated config, environments,
  the grid of cells, the learner registry, random-stream keys, the data contract.
* ``study.orchestration``: shards through the kernel, their cache, backends, the runs table and
  its files; ``study.cli`` on top (``python -m study``).
"""

__version__ = "0.1.0"
