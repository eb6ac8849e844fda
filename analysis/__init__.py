"""Statistics on the runs table (pandas, scipy.stats, statsmodels): accuracy with Wilson
intervals, paired tests, power, budget-to-target estimates, cost, curves, the tables of a study
(``python -m analysis``) and the plain-text summary ``python -m bandit_study quick`` prints."""
