"""Charts of army lists: a list's offence and shares, points left per turn, the meta heatmap.

Each function returns a matplotlib Figure (and draws on ``ax`` when given); nothing here
changes matplotlib's global state.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _figure(size):
    """A Figure with its own Agg canvas, outside pyplot: Jupyter's inline backend shows it
    once (as the cell's value), never a second time as an open pyplot figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


def _fig_ax(ax, size=(7, 4)):
    if ax is not None:
        return ax.figure, ax
    fig = _figure(size)
    return fig, fig.subplots()


def _short(name: str, k: int) -> str:
    """A label cut to ``k`` characters, the cut shown."""
    return name if len(name) <= k else name[: k - 1].rstrip() + "…"


def summary_chart(summary):
    """Left: the list's offence (AP destroyed per Attack action) against each column;
    right: each unit's share of the list's offence and durability."""
    fig = _figure((12, 4.5))
    a1, a2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    ct = summary.column_table()
    colours = ["#3b6ea8" if c.startswith("I") else "#7a7a7a" if c.startswith("V")
               else "#8a5fb0" for c in ct["column"]]
    a1.bar(ct["column"], ct["offence"].fillna(0.0), color=colours)
    for x, ok in enumerate(ct["can_hurt"]):
        if not ok:
            a1.text(x, 0, "x", ha="center", va="bottom", color="#b22222", fontsize=12)
    a1.set_ylabel("AP destroyed per Attack action (sum of units)")
    a1.set_title(f"{summary.army.name}: offence by armour (x: cannot hurt)")
    u = summary.units
    y = np.arange(len(u))
    a2.barh(y - 0.2, u["offence_share"], height=0.4, label="offence", color="#b5542c")
    a2.barh(y + 0.2, u["durability_share"].fillna(0.0), height=0.4, label="durability",
            color="#3f8f5f")
    a2.set_yticks(y, [_short(n, 32) for n in u["unit"]])
    a2.invert_yaxis()
    a2.xaxis.set_major_formatter(lambda v, _p: f"{v:.0%}")
    # the legend above the bars (inside, it would cover the last unit's bars), titled: a
    # title of the axes as well drew over it
    a2.legend(loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=2, frameon=False,
              title="each unit's share")
    fig.tight_layout()
    return fig


def points_curve(curve: pd.DataFrame, ax=None, title: str = ""):
    """AP left per turn, one line per list, 2-standard-error bands."""
    fig, ax = _fig_ax(ax)
    for (side, name), g in curve.groupby(["side", "list"], sort=False):
        g = g.sort_values("turn")
        line, = ax.plot(g["turn"], g["ap_left"], marker="o", label=f"{side.upper()}: {name}")
        ax.fill_between(g["turn"], g["ap_left"] - 2 * g["se"], g["ap_left"] + 2 * g["se"],
                        color=line.get_color(), alpha=0.2)
    ax.set_xlabel("end of turn")
    ax.set_ylabel("army points left")
    ax.set_ylim(bottom=0)
    ax.legend()
    ax.set_title(title)
    return fig


def meta_heatmap(matrix: pd.DataFrame, ax=None, title: str = "P(row list wins)"):
    """The matchup matrix (rows: the list; columns: its opponent) as a heatmap."""
    fig, ax = _fig_ax(ax, size=(1.2 * len(matrix) + 3, 1.0 * len(matrix) + 2))
    vals = matrix.to_numpy(dtype=float)
    im = ax.imshow(vals, cmap="RdBu", vmin=0, vmax=1)
    labels = [_short(n, 28) for n in matrix.index]
    ax.set_xticks(range(len(matrix.columns)), [_short(n, 28) for n in matrix.columns], rotation=30,
                  ha="right")
    ax.set_yticks(range(len(matrix.index)), labels)
    ax.grid(False)
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            if np.isfinite(vals[i, j]):
                ax.text(j, i, f"{vals[i, j]:.2f}", ha="center", va="center", fontsize=9,
                        color="white" if abs(vals[i, j] - 0.5) > 0.3 else "black")
    fig.colorbar(im, ax=ax, fraction=0.046)
    ax.set_xlabel("opponent")
    ax.set_title(title)
    fig.tight_layout()
    return fig


__all__ = ["meta_heatmap", "points_curve", "summary_chart"]
