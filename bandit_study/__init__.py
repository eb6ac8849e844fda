"""bandit-budget-study's entry points, on top of every other package: the notebook API
(``bandit_study.api``) and the command line (``bandit_study.cli``, ``python -m bandit_study`` or
``bandit-study``). The simulation is ``study``, its analysis ``analysis``, the figures, report and
paper ``figures``; each imports only the packages below it.
"""
