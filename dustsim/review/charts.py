"""Charts for balance reviews: one style, readable at a glance; PNG, SVG and PDF.

Every function takes tidy tables from :mod:`dustsim.review.analytics` (or an AttackResult) and
returns a :class:`matplotlib.figure.Figure` with its own Agg canvas: nothing here touches
pyplot or the global backend, so the figures display inline in Jupyter (``%matplotlib
inline`` registers the PNG formatter) and render off-screen in the report. :func:`save`
writes a figure in the requested formats.
"""

from __future__ import annotations

import weakref
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from dustsim.data.cards import COLUMNS

BLOC_COLOURS = {
    "Allies": "#1f5fa8", "Axis": "#7a7a7a", "SSU": "#b22222", "Mercenaries": "#8b6d2e",
    "Mythos": "#5b2a86", "IJN": "#c28a1e", "Captured Vehicles": "#3f8f5f",
}
OTHER_COLOUR = "#444444"
STYLE = {
    "figure.dpi": 110, "savefig.dpi": 150, "font.size": 9, "axes.titlesize": 11,
    "axes.titleweight": "bold", "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.alpha": 0.3, "legend.frameon": False,
}
# duel outcomes: a cell's colour mixes these in proportion to P(A wins), P(B wins), P(none)
WIN, LOSS, DRAW = np.array([0.13, 0.40, 0.71]), np.array([0.75, 0.16, 0.16]), \
    np.array([0.93, 0.80, 0.30])


def _colour(bloc: str) -> str:
    return BLOC_COLOURS.get(bloc, OTHER_COLOUR)


def _figure(**kw) -> Figure:
    """A figure with its own Agg canvas (no pyplot, no global state)."""
    fig = Figure(**kw)
    FigureCanvasAgg(fig)
    return fig


def _bloc_legend(target, blocs, **kw) -> None:
    """Legend entries for the blocs actually drawn, in the usual order."""
    present = [b for b in BLOC_COLOURS if b in set(blocs)]
    others = sorted({b for b in blocs if b not in BLOC_COLOURS and isinstance(b, str)})
    names = present + others
    if names:
        target.legend([Patch(color=_colour(b)) for b in names], names, **kw)


def _repel(ax, texts, x=None, y=None) -> None:
    """Move labels apart (adjustText) so that none overlaps another or a point (``x``,
    ``y``: the points). Call it last, once the axes' limits and layout are final: a later
    resize moves the points under labels of fixed size."""
    if len(texts) < 2:
        return
    from adjustText import adjust_text

    kw = {} if x is None else {"x": np.asarray(x, float), "y": np.asarray(y, float)}
    anchors = [t.get_position() for t in texts]
    adjust_text(texts, ax=ax, arrowprops={"arrowstyle": "-", "color": "#888", "lw": 0.5},
                expand=(1.1, 1.3), **kw)
    if _text_overlaps(ax.figure, texts):
        # adjustText is a heuristic: where labels still overlap, a column beside the axes
        # (leader lines to the points) cannot
        for t in texts:
            t.remove()
        for p in [p for p in ax.patches if type(p).__name__ == "FancyArrowPatch"]:
            p.remove()
        _label_column(ax, anchors, [t.get_text() for t in texts], texts[0].get_fontsize())


def _text_overlaps(fig, texts) -> bool:
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in texts]
    return any(boxes[i].overlaps(boxes[j]) for i in range(len(boxes))
               for j in range(i + 1, len(boxes)))


def _label_column(ax, anchors, labels, fontsize) -> None:
    """Labels in one column right of the axes, in the order of their points' heights,
    spaced by at least a line, each joined to its point by a thin line."""
    to_axes = ax.transData + ax.transAxes.inverted()
    ys = [to_axes.transform(a)[1] for a in anchors]
    order = sorted(range(len(labels)), key=lambda i: -ys[i])
    height_px = ax.get_window_extent().height
    gap = 1.35 * fontsize * ax.figure.dpi / 72 / max(height_px, 1.0)
    lines = [labels[i].count("\n") + 1 for i in order]
    pos, y = [], 1.0
    for i, n in zip(order, lines, strict=True):
        y = min(y, ys[i])
        pos.append(y)
        y -= gap * n
    shift = min(0.0, pos[-1] - gap * (lines[-1] - 1)) if pos else 0.0
    pos = [p - shift if shift < 0 else p for p in pos]  # pushed below 0: move all up
    for i, p in zip(order, pos, strict=True):
        ax.annotate(labels[i], xy=anchors[i], xycoords="data", xytext=(1.02, p),
                    textcoords="axes fraction", fontsize=fontsize, va="center",
                    annotation_clip=False,
                    arrowprops={"arrowstyle": "-", "color": "#888", "lw": 0.5})


_BBOX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # figure -> (dpi, bbox)


def tight_bbox(fig: Figure, dpi: float = STYLE["savefig.dpi"]):
    """The figure's tight bounding box (inches, padded as ``bbox_inches="tight"`` pads it),
    measured once at ``dpi``: every format, and the review PDF, then reuse it instead of
    laying the figure out again (that layout pass is half of a tight save's time). A figure
    changed after its first save must be measured again (``fresh=True`` in :func:`save`)."""
    hit = _BBOX.get(fig)
    if hit is not None and hit[0] == dpi:
        return hit[1]
    old = fig.dpi
    fig.dpi = dpi
    try:
        fig.draw_without_rendering()
        bbox = fig.get_tightbbox(fig.canvas.get_renderer())
    finally:
        fig.dpi = old
    bbox = bbox.padded(matplotlib.rcParams["savefig.pad_inches"])
    _BBOX[fig] = (dpi, bbox)
    return bbox


def save(fig: Figure, folder: Path, name: str, formats=("png",), *,
         fresh: bool = True) -> list[Path]:
    """Write ``fig`` as ``folder/name.FORMAT`` for each format (one tight bounding box for
    all of them, measured afresh unless ``fresh=False``); return the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    if fresh:
        _BBOX.pop(fig, None)
    bbox = tight_bbox(fig) if formats else None
    for fmt in formats:
        p = folder / f"{name}.{fmt}"
        fig.savefig(p, bbox_inches=bbox, dpi=STYLE["savefig.dpi"])
        out.append(p)
    return out


def efficiency_heatmap(unit_column: pd.DataFrame, top: int = 40, title: str = "") -> Figure:
    """Units x armour columns: AP destroyed per action per AP (Attack, open/cover mean).

    The ``top`` cards with the highest mean over the columns are shown, best first; the
    title says so, and each cell carries its value ('?' where a figure is unknown).
    """
    with matplotlib.rc_context(STYLE):
        att = unit_column[unit_column["action"] == "attack"]
        m = att.groupby(["unit", "column"])["ap_destroyed_per_ap"].mean().unstack("column")
        m = m.reindex(columns=list(COLUMNS))
        n_all = len(m)
        order = m.mean(axis=1).sort_values(ascending=False).index[:top]
        m = m.loc[order]
        v = m.to_numpy(float)
        fig = _figure(figsize=(11, 0.3 * len(m) + 2.0))
        ax = fig.subplots()
        im = ax.imshow(v, aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(COLUMNS)), COLUMNS)
        ax.set_yticks(range(len(m)), list(m.index))
        ax.grid(False)
        ax.set_xlabel("target armour column (reference target of the edition)")
        sel = (f"the {len(m)} of {n_all} cards with the highest mean over the columns"
               if len(m) < n_all else f"all {n_all} cards, by mean over the columns")
        ax.set_title((title or "Efficiency: AP destroyed per action per AP") + f"\n{sel}",
                     fontsize=10)
        cb = fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02)
        cb.set_label("AP destroyed / action / AP")
        finite = v[np.isfinite(v)]
        mid = (finite.min() + finite.max()) / 2 if finite.size else 0
        for i in range(v.shape[0]):
            for j in range(v.shape[1]):
                x = v[i, j]
                txt = "?" if np.isnan(x) else f"{x:.2f}"
                ax.text(j, i, txt, ha="center", va="center", fontsize=6.5,
                        color="white" if np.isnan(x) or x < mid else "black")
        return fig


def ranking_bars(scores: pd.DataFrame, metric: str = "composite", n: int = 15,
                 title: str = "", err: str | None = None, label: str | None = None) -> Figure:
    """Best and worst n units by a per-AP metric, coloured by bloc, on one shared scale."""
    with matplotlib.rc_context(STYLE):
        s = scores.dropna(subset=[metric]).sort_values(metric, ascending=False)
        s = s[np.isfinite(s[metric])]
        zero = int((s[metric] <= 0).sum())
        s = s[s[metric] > 0]  # units that cannot hurt anything at range are listed apart
        best, worst = s.head(n), s.tail(n)
        fig = _figure(figsize=(14, 0.32 * n + 2.0))
        axes = fig.subplots(1, 2, sharex=True)
        for ax, part, which in ((axes[0], best, "best"), (axes[1], worst, "worst")):
            part = part.iloc[::-1]
            xerr = part[err].to_numpy(float) if err and err in part else None
            ax.barh(range(len(part)), part[metric], xerr=xerr,
                    color=[_colour(b) for b in part["bloc"]], capsize=2)
            ax.set_yticks(range(len(part)),
                          [f"{u} ({a:g} AP)" for u, a in zip(part["unit"], part["ap"],
                                                             strict=True)])
            ax.set_title(f"{len(part)} {which}")
            ax.set_xlabel(label or metric.replace("_", " "))
            ax.tick_params(axis="x", labelbottom=True)
        _bloc_legend(fig, pd.concat([best, worst])["bloc"], loc="lower center", ncol=6,
                     bbox_to_anchor=(0.5, -0.01))
        note = f" ({zero} units scoring 0 not shown)" if zero else ""
        fig.suptitle((title or f"Ranking by {metric.replace('_', ' ')}") + note
                     + "\nboth panels on one scale", fontweight="bold")
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        return fig


def damage_distributions(results: list[tuple[str, object]], title: str = "") -> Figure:
    """Damage PMF bars and 'chance of at least k' curves for a few matchups."""
    with matplotlib.rc_context(STYLE):
        fig = _figure(figsize=(12, 4.2))
        axes = fig.subplots(1, 2)
        width = 0.8 / max(len(results), 1)
        for i, (label, r) in enumerate(results):
            p = np.asarray(r.damage.to_list())
            k = np.arange(len(p))
            axes[0].bar(k + i * width - 0.4 + width / 2, p, width=width, label=label)
            axes[1].plot(k, [r.damage.at_least(int(x)) for x in k], marker="o", label=label)
        axes[0].set_xlabel("damage marked (models removed for squads)")
        axes[0].set_ylabel("probability")
        axes[0].set_title("Distribution of damage per action")
        axes[1].set_xlabel("k")
        axes[1].set_ylabel("P(damage >= k)")
        axes[1].set_ylim(0, 1.02)
        axes[1].set_title("Chance of at least k")
        axes[1].legend(fontsize=7)
        fig.suptitle(title, fontweight="bold")
        fig.tight_layout()
        return fig


def reliability_scatter(unit_column: pd.DataFrame, column: str, title: str = "",
                        label: int = 8) -> Figure:
    """Mean AP destroyed per AP against P(destroy) for one column (Sustained, open); the
    ``label`` best units are named, with labels pushed apart so that none overlaps."""
    with matplotlib.rc_context(STYLE):
        d = unit_column[(unit_column["column"] == column) &
                        (unit_column["action"] == "sustained") & (~unit_column["cover"])]
        d = d.dropna(subset=["ap_destroyed_per_ap", "p_destroy"])
        d = d[d["mean_damage"] > 0]
        fig = _figure(figsize=(9, 6.5))
        ax = fig.subplots()
        ax.scatter(d["ap_destroyed_per_ap"], d["p_destroy"], s=14,
                   c=[_colour(b) for b in d["bloc"]], alpha=0.75)
        top = d.nlargest(label, "ap_destroyed_per_ap")
        ref = d["ref_size"].iloc[0] if len(d) else "?"
        ax.set_xlabel("mean AP destroyed per action per AP")
        ax.set_ylabel("P(destroy the reference target in one Sustained Attack)")
        ax.set_title(title or f"Reliability vs mean against {column} (reference size {ref}); "
                              f"the {len(top)} best per AP named")
        # below the axes: the right side may take a column of labels (_repel)
        _bloc_legend(ax, d["bloc"], loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=7,
                     fontsize=7)
        fig.tight_layout()
        # labels last: the layout above resizes the axes, and labels pushed apart before
        # it would close up again (issue 26: two squads' names printed over each other)
        at = [top["ap_destroyed_per_ap"].round(9).to_numpy(), top["p_destroy"].round(9)
              .to_numpy()]
        texts = [ax.text(x, y, ", ".join(g["unit"]), fontsize=7)
                 for (x, y), g in top.groupby(at, sort=False)]
        _repel(ax, texts, d["ap_destroyed_per_ap"], d["p_destroy"])
        return fig


_NICE = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 25, 30, 35, 40, 50, 60, 70,
         80, 90, 100, 120, 150, 200)


def _cost_ticks(lo: float, hi: float, most: int = 12) -> list[float]:
    """Round army-point values inside ``(lo, hi)`` for a log axis, at most ``most`` of them
    (every other one dropped until they fit)."""
    ticks = [t for t in _NICE if lo <= t <= hi]
    while len(ticks) > most:
        ticks = ticks[::2]
    return ticks


def fair_points_scatter(fair: pd.DataFrame, label: int = 6, title: str = "",
                        xlabel: str = "suggested AP") -> Figure:
    """Actual AP against suggested (fair) AP; the ``label`` most over- and under-costed
    units named (labels pushed apart so that none overlaps)."""
    with matplotlib.rc_context(STYLE):
        d = fair.dropna(subset=["fair_ap"])
        fig = _figure(figsize=(9, 7.5))
        ax = fig.subplots()
        handles, names = [], []
        if {"fair_low", "fair_high"} <= set(d) and len(d):
            # each card's band: the printed cost outside it is a verdict
            band = ax.hlines(d["ap"], d["fair_low"], d["fair_high"], color="#999", lw=0.8,
                             alpha=0.45, zorder=1)
            handles.append(band)
            names.append("90 % band of the suggested cost")
        ax.scatter(d["fair_ap"], d["ap"], s=14, c=[_colour(b) for b in d["bloc"]], alpha=0.75,
                   zorder=2)
        if "verdict" in d:
            for verdict, marker in (("over-costed", "v"), ("under-costed", "^")):
                w = d[d["verdict"] == verdict]
                if len(w):
                    handles.append(ax.scatter(w["fair_ap"], w["ap"], s=46, marker=marker,
                                              facecolors="none", edgecolors="black", lw=0.8,
                                              zorder=3))
                    names.append(f"{verdict} ({len(w)})")
        if len(d):
            lo, hi = d[["fair_ap", "ap"]].min().min() * 0.8, d[["fair_ap", "ap"]].max().max() * 1.2
            xs = np.linspace(lo, hi, 50)
            (line,) = ax.plot(xs, xs, color="black", lw=1)
            handles.append(line)
            names.append("printed = suggested")
            ax.set_xscale("log")
            ax.set_yscale("log")
        if "fair_high" in d and len(d):  # the bands reach beyond the points
            low = d["fair_low"].where(d["fair_low"] > 0)  # a band reaching 0: not on a log axis
            ax.set_xlim(np.nanmin([low.min(), d["ap"].where(d["ap"] > 0).min()]) * 0.9,
                        max(d["fair_high"].max(), d["ap"].max()) * 1.1)
        from matplotlib.ticker import FuncFormatter

        fmt = FuncFormatter(lambda v, _: f"{v:g}")
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(fmt)
            axis.set_minor_formatter(fmt)
        if len(d):  # a narrow range (8 to 14 AP) has no log tick between 10 and 20: name them
            for lim, setter in ((ax.get_xlim(), ax.set_xticks), (ax.get_ylim(), ax.set_yticks)):
                ticks = _cost_ticks(*lim)
                if lim[1] < 4 * lim[0] and len(ticks) >= 3:  # wide ranges: log ticks suffice
                    setter(ticks)
                    setter([], minor=True)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("printed AP")
        ax.set_title(title or "Fair points: above the line = over-costed")
        present = [b for b in BLOC_COLOURS if b in set(d["bloc"])]
        handles += [Patch(color=_colour(b)) for b in present]
        names += present
        if handles:  # below the axes: over-costed labels sit in the upper left, and the
            # right side may take a column of labels (_repel)
            ax.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, -0.08),
                      ncol=4, fontsize=7)
        picked = pd.concat([d.nlargest(label, "residual"), d.nsmallest(label, "residual")])
        picked = picked[~picked.index.duplicated()]
        # cards on the same point (copies with the same figures) share one label
        at = [picked["fair_ap"].round(6).to_numpy(), picked["ap"].to_numpy()]
        texts = [ax.text(x, y, ", ".join(g["unit"]), fontsize=7)
                 for (x, y), g in picked.groupby(at, sort=False)]
        _repel(ax, texts, d["fair_ap"], d["ap"])
        return fig


def platoon_comparison(table: pd.DataFrame, title: str = "") -> Figure:
    """Best build of each platoon (composite per AP, the modelled advantage's share marked)
    and the spread of the composite over every legal build."""
    with matplotlib.rc_context(STYLE):
        best = (table.sort_values("composite", ascending=False)
                .drop_duplicates("platoon").iloc[::-1])
        fig = _figure(figsize=(15, 0.7 * len(best) + 2.2))
        axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
        y = np.arange(len(best))
        base = best["composite_without_advantage"].to_numpy(float)
        total = best["composite"].to_numpy(float)
        colours = [_colour(b) for b in best["bloc"]]
        axes[0].barh(y, base, color=colours)
        has_adv = bool(np.nansum(total - base) > 0)
        if has_adv:
            axes[0].barh(y, total - base, left=base, color=colours, alpha=0.45, hatch="//")
        labels = []
        for r in best.itertuples():
            units = " + ".join(x for x in (r.command, r.required, r.support)
                               if isinstance(x, str) and x)
            # wrap the build on ' + ' so that full names stay readable
            lines, cur = [], ""
            for part in units.split(" + "):
                if cur and len(cur) + len(part) > 60:
                    lines.append(cur + " +")
                    cur = part
                else:
                    cur = f"{cur} + {part}" if cur else part
            lines.append(f"{cur} ({r.ap_paid:g} AP)")
            labels.append("\n".join([r.platoon, *lines]))
        axes[0].set_yticks(y, labels, fontsize=7)
        axes[0].set_xlabel("composite per AP of the best build (offence/AP x durability/AP)")
        axes[0].set_title("Best legal build of each platoon")
        present = [b for b in BLOC_COLOURS if b in set(best["bloc"])]
        handles = [Patch(facecolor=_colour(b), label=b) for b in present]
        handles.append(Patch(facecolor="#999", label="without the platoon advantage"))
        if has_adv:
            handles.append(Patch(facecolor="#999", alpha=0.45, hatch="//",
                                 label="modelled platoon advantage"))
        axes[0].legend(handles=handles, loc="lower right", fontsize=7)
        data = [table.loc[table["platoon"] == p, "composite"].to_numpy(float)
                for p in best["platoon"]]
        axes[1].boxplot(data, positions=y, orientation="horizontal", widths=0.5,
                        whis=(0, 100))
        axes[1].set_yticks(y, [f"{len(d):,} builds" for d in data], fontsize=7)
        axes[1].set_ylim(axes[0].get_ylim())
        axes[1].set_xlabel("composite per AP over every legal build (box: quartiles; "
                           "whiskers: min-max)", fontsize=8)
        axes[1].set_title("Spread over builds")
        budget = table["budget"].iloc[0] if "budget" in table and len(table) else "?"
        fig.suptitle(title or f"Platoons within {budget:g} AP", fontweight="bold")
        fig.tight_layout()
        return fig


def epic_mixes(rows: list[dict], budget: int, opponent: str, side: str = "attacker",
               top: int = 12, title: str = "") -> Figure:
    """Dust Epic optimiser: every mix by its air share (coloured by its mech share), and the
    best mixes by their chance of NOT winning on a log scale (win probabilities near 1 are
    told apart), each bar labelled with P(win) and the production points it expects to lose.
    """
    with matplotlib.rc_context(STYLE):
        d = pd.DataFrame(rows)
        fig = _figure(figsize=(14, 5.5))
        axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
        air = (d["fighter"] * 3 + d["bomber"] * 6) / d["cost"]
        mech = d["mech"] * 5 / d["cost"]
        sc = axes[0].scatter(air, d["p_win"], c=mech, cmap="viridis", s=22, vmin=0, vmax=1)
        cb = fig.colorbar(sc, ax=axes[0], fraction=0.04, pad=0.02)
        cb.set_label("share of PP in mechs")
        best = d.iloc[0]
        axes[0].annotate(best["mix"], (air.iloc[0], best["p_win"]), fontsize=8,
                         xytext=(6, -12), textcoords="offset points")
        axes[0].set_xlabel("share of PP in air figures (fighters, bombers)")
        ylabel = "P(attacker wins)" if side == "attacker" else "P(attacker does not win)"
        axes[0].set_ylabel(ylabel)
        axes[0].set_title(f"Every mix of {budget} PP ({len(d)} mixes)")
        t = d.head(top).iloc[::-1]
        miss = np.clip(1.0 - t["p_win"].to_numpy(float), 1e-12, None)
        axes[1].barh(range(len(t)), miss, color="#1f5fa8")
        axes[1].set_xscale("log")
        axes[1].set_yticks(range(len(t)), [f"{m} ({c} PP)" for m, c in zip(t["mix"], t["cost"],
                                                                            strict=True)],
                           fontsize=7)
        lost = t["pp_lost"].to_numpy(float) if "pp_lost" in t else np.full(len(t), np.nan)
        for i, (p, m, pl) in enumerate(zip(t["p_win"], miss, lost, strict=True)):
            axes[1].text(m, i, f"  P(win) {p:.4f}, {pl:.1f} PP lost", va="center", fontsize=6.5)
        axes[1].set_xlim(miss.min() / 3, min(1.0, miss.max() * 30))
        from matplotlib.ticker import FuncFormatter, LogLocator

        axes[1].xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axes[1].xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axes[1].xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        axes[1].set_xlabel("chance of not winning, 1 - P(win) (log scale; shorter is better)")
        axes[1].set_title(f"Best {len(t)}")
        role = "attacking" if side == "attacker" else "defending against"
        fig.suptitle(title or f"Dust Epic: {budget} PP {role} {opponent}", fontweight="bold")
        fig.tight_layout()
        return fig


def duel_colours(p_a: np.ndarray, p_b: np.ndarray, p_none: np.ndarray) -> np.ndarray:
    """RGB per cell: blue (A wins), red (B wins) and ochre (no result) mixed in proportion,
    so that a certain draw never shares the colour of a certain loss."""
    w = np.stack([np.nan_to_num(p_a), np.nan_to_num(p_b), np.nan_to_num(p_none)], axis=-1)
    rgb = w @ np.stack([WIN, LOSS, DRAW])
    rgb[np.isnan(p_a)] = 1.0
    return np.clip(rgb, 0, 1)


def duel_matrix_chart(matrix: pd.DataFrame, title: str = "") -> Figure:
    """One-on-one duels: each cell mixes blue (row unit wins), red (column unit wins) and
    ochre (no result within the turn limit) in proportion; the text gives the three."""
    with matplotlib.rc_context(STYLE):
        m = matrix[matrix["playable"]]
        order = list(dict.fromkeys(m["unit_a"]))

        def piv(col):
            return m.pivot(index="unit_a", columns="unit_b", values=col).reindex(
                index=order, columns=order).to_numpy(float)

        pa, pb, pd_ = piv("p_a_wins"), piv("p_b_wins"), piv("p_draw")
        ap = m.drop_duplicates("unit_a").set_index("unit_a")["ap_a"].reindex(order)
        labels = [f"{u} ({a:g} AP)" if pd.notna(a) else u
                  for u, a in zip(order, ap, strict=True)]
        n = len(order)
        fig = _figure(figsize=(1.0 + 0.9 * n + 3.5, 0.7 * n + 2.8))
        ax = fig.subplots()
        ax.imshow(duel_colours(pa, pb, pd_), aspect="auto")
        for i in range(n):
            for j in range(n):
                if np.isnan(pa[i, j]):
                    continue
                txt = f"A {pa[i, j]:.2f}\nB {pb[i, j]:.2f}"
                if pd_[i, j] >= 0.005:
                    txt += f"\nnone {pd_[i, j]:.2f}"
                dark = max(pa[i, j], pb[i, j]) > 0.55
                ax.text(j, i, txt, ha="center", va="center", fontsize=6.5,
                        color="white" if dark else "black")
        ax.set_xticks(range(n), order, rotation=35, ha="right")
        ax.set_yticks(range(n), labels)
        ax.grid(False)
        ax.set_xlabel("opponent (side B)")
        ax.set_ylabel("side A")
        ax.set_title(title or "Duels: P(side A wins)")
        ax.legend([Patch(color=WIN), Patch(color=LOSS), Patch(color=DRAW)],
                  ["A (row) wins", "B (column) wins", "no result within the turn limit"],
                  loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7,
                  title="cell colour mixes", title_fontsize=7)
        fig.tight_layout()
        return fig


def patch_chart(diff: pd.DataFrame, title: str = "", n: int = 25) -> Figure:
    """A balance patch's changed cards (and verdict changes): each card's fair cost and
    90 % band before (grey) and after (blue), its printed cost before (o) and after (x). The
    fair cost is always marked, also when it does not move (a zero-length arrow draws
    nothing, so the markers carry it); an arrow shows where it moved."""
    with matplotlib.rc_context(STYLE):
        keep = diff["changed"] | diff["verdict_changed"] if "verdict_changed" in diff \
            else diff["changed"]
        d = diff[keep].head(n).iloc[::-1].reset_index(drop=True)
        fig = _figure(figsize=(8.5, 0.55 * len(d) + 1.8))
        ax = fig.subplots()
        bands = {"fair_low_before", "fair_high_before", "fair_low_after",
                 "fair_high_after"} <= set(d)
        for i, r in d.iterrows():
            for when, dy, colour in (("before", 0.13, "#999999"), ("after", -0.13,
                                                                    "tab:blue")):
                fair = r.get(f"fair_ap_{when}")
                if pd.isna(fair):
                    continue
                if bands and pd.notna(r[f"fair_low_{when}"]):
                    ax.hlines(i + dy, r[f"fair_low_{when}"], r[f"fair_high_{when}"],
                              color=colour, lw=3, alpha=0.35)
                ax.plot([fair], [i + dy], "|", color=colour, ms=12, mew=2)
            if pd.notna(r["fair_ap_before"]) and pd.notna(r["fair_ap_after"]) \
                    and r["fair_ap_before"] != r["fair_ap_after"]:
                ax.annotate("", xy=(r["fair_ap_after"], i - 0.13),
                            xytext=(r["fair_ap_before"], i + 0.13),
                            arrowprops={"arrowstyle": "->", "color": "tab:blue", "lw": 1})
            ax.plot([r["ap_before"]], [i], "o", color="black", mfc="none", ms=6)
            ax.plot([r["ap_after"]], [i], "x", color="black", ms=7, mew=1.5)
        ax.set_yticks(range(len(d)))
        ax.set_yticklabels([f"{u[:30]}\n{b} -> {a}" if b != a else u[:30]
                            for u, b, a in zip(d["unit"], d["verdict_before"],
                                               d["verdict_after"], strict=True)], fontsize=8)
        ax.set_ylim(-0.7, len(d) - 0.3)
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color="#999999", lw=3, alpha=0.6, marker="|", ms=10,
                          mew=2, label="fair cost and 90 % band, before"),
                   Line2D([], [], color="tab:blue", lw=3, alpha=0.6, marker="|", ms=10,
                          mew=2, label="after"),
                   Line2D([], [], ls="", marker="o", mfc="none", color="black",
                          label="printed cost before"),
                   Line2D([], [], ls="", marker="x", color="black", label="printed after")]
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12 if len(d)
                                                                         > 3 else -0.25),
                  ncol=2, fontsize=7)
        ax.set_xlabel("AP")
        ax.set_title(title or "Balance patch: fair cost before and after")
        fig.tight_layout()
        return fig
