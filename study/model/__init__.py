"""The study's specification, without numba: configs, environments, the grid of cells, the
learner registry, random-stream keys, the data contract (``schema``), paths and atomic writes."""
