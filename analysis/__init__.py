"""Statistics on the runs table: accuracy with Wilson intervals now; paired tests, power curves,
budget-to-0.9 estimates and cost analysis as the study grows (pandas + scipy.stats)."""
