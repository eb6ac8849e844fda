"""One shared style for every figure: a colour-blind-safe palette, readable type, and saving as
PNG and PDF together."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed (CI and headless machines)

import matplotlib.pyplot as plt
from matplotlib.colors import Colormap

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#000000"]
"""Okabe and Ito's eight colours, distinguishable with every common colour-vision deficiency."""

ORDERED: Colormap = plt.get_cmap("cividis")
"""For ordered series (lr, cost) and heatmaps: cividis is perceptually uniform and was designed to
read the same with deuteranopia."""

BAND_ALPHA = 0.2
REFERENCE = {"color": "0.35", "linestyle": "--", "linewidth": 1.0}

plt.rcParams.update({
    "figure.dpi": 110, "savefig.dpi": 200, "font.size": 9, "axes.titlesize": 9,
    "axes.labelsize": 9, "legend.fontsize": 7.5, "axes.spines.top": False,
    "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.25, "lines.linewidth": 1.4,
    "axes.prop_cycle": plt.cycler(color=OKABE_ITO),
})


def ordered_colours(n: int) -> list[tuple[float, float, float, float]]:
    """n colours along cividis, avoiding its palest end so lines stay visible on white."""
    return [ORDERED(0.05 + 0.8 * i / max(n - 1, 1)) for i in range(n)]


def outside_legend(figure: plt.Figure, ax: plt.Axes, title: str | None = None,
                   below: bool = False) -> None:
    """The legend of ``ax`` outside the axes, where it cannot hide data: to the right of the
    figure, or below it in rows (``below``), which keeps a wide figure narrow enough to print
    at a page's width without shrinking its text."""
    handles, labels = ax.get_legend_handles_labels()
    if below:
        figure.legend(handles, labels, loc="outside lower center", title=title,
                      ncols=min(len(labels), 4))
    else:
        figure.legend(handles, labels, loc="outside right upper", title=title)


def save(figure: plt.Figure, out_dir: Path, name: str) -> list[Path]:
    """Write ``name.png`` and ``name.pdf`` into ``out_dir`` and close the figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{name}.{suffix}" for suffix in ("png", "pdf")]
    if figure.get_layout_engine() is None:
        figure.tight_layout()
    for path in paths:
        figure.savefig(path)
    plt.close(figure)
    return paths
