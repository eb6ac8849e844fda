"""The simulation of bandit-budget-study, in layers that import only downwards.

* ``study.core``: the numba building blocks (generator, its named streams and the runs' keys,
  exponential, normal draws, the kernel's drivers, the learner protocol); ``study.learners`` and
  ``study.rewards``: one module per learner or reward model, its declaration and its numba pieces.
* ``study.model``: the model of a study, without numba: TOML config -> validated config,
  environments, the grid of cells, the registries, the data contract and its files.
* ``study.orchestration``: shards through the kernel, their cache, backends, the runs table and
  its files, and running a study into its folder (``study.orchestration.outputs``).

The entry points (``bandit_study``) and the analysis sit above it; nothing here imports them.
"""

__version__ = "0.1.0"
