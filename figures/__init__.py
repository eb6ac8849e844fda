"""Plotting code (matplotlib): accuracy-vs-budget curves with CI bands, heatmaps, power curves and
net-value figures, drawn from the analysis tables into ``out/figures/`` as PNG and PDF."""
