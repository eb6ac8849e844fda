"""Many prompts, one rollout budget: the allocation rules against uniform allocation.

The questions, one function each, by module:

* ``outcomes``: the runs table of such a study read per seed (``seed_outcomes``), and the cells
  paired with uniform allocation by seed (``uniform_pairs``), which the other modules share;
* ``versus_uniform``: does a rule beat uniform allocation at a budget, or match it
  (``versus_uniform``)? With the verdict per rule (``verdict_table``);
* ``budget_to_target``: what budget does each reach a target accuracy at, and is a rule's budget
  half of uniform's (``budget_to_target``)?
* ``means``: the mean accuracy, pass rate and regret per budget (``accuracy_table``); where do
  the rollouts go, by difficulty band (``band_spending``)?
* ``compute_curve``: does ScaleRL's compute curve, fitted on the early budgets, predict the late
  ones (``compute_curve``), and does it once the earliest budgets are left out of the fit
  (``curve_starts``)?
* ``seeds``: how many seeds does the paired test need (``seeds_needed``, ``plan_table``)?
* ``study_tables``: every table of a many-prompts study (``study_tables``).
"""
