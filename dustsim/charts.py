"""Charts for balance reviews: one style, readable at a glance; PNG, SVG and PDF.

Every function takes tidy tables from :mod:`dustsim.analytics` (or an AttackResult) and
returns a matplotlib Figure; :func:`save` writes it in the requested formats.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .cards import COLUMNS

BLOC_COLOURS = {
    "Allies": "#1f5fa8", "Axis": "#7a7a7a", "SSU": "#b22222", "Mercenaries": "#8b6d2e",
    "Mythos": "#5b2a86", "IJN": "#c28a1e", "Captured Vehicles": "#3f8f5f",
}
STYLE = {
    "figure.dpi": 110, "savefig.dpi": 150, "font.size": 9, "axes.titlesize": 11,
    "axes.titleweight": "bold", "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.alpha": 0.3, "legend.frameon": False,
}


def _colour(bloc: str) -> str:
    return BLOC_COLOURS.get(bloc, "#444444")


def save(fig, folder: Path, name: str, formats=("png",)) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for fmt in formats:
        p = folder / f"{name}.{fmt}"
        fig.savefig(p, bbox_inches="tight")
        out.append(p)
    plt.close(fig)
    return out


def efficiency_heatmap(unit_column: pd.DataFrame, top: int = 40, title: str = ""):
    """Units x armour columns: AP destroyed per action per AP (Attack, open/cover mean)."""
    with plt.rc_context(STYLE):
        att = unit_column[unit_column["action"] == "attack"]
        m = att.groupby(["unit", "column"])["ap_destroyed_per_ap"].mean().unstack("column")
        m = m.reindex(columns=list(COLUMNS))
        order = m.mean(axis=1).sort_values(ascending=False).index[:top]
        m = m.loc[order]
        fig, ax = plt.subplots(figsize=(9, 0.24 * len(m) + 1.6))
        im = ax.imshow(m.to_numpy(float), aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(COLUMNS)), COLUMNS)
        ax.set_yticks(range(len(m)), [u[:38] for u in m.index])
        ax.grid(False)
        ax.set_xlabel("target armour column (reference target of the edition)")
        ax.set_title(title or f"Efficiency: AP destroyed per action per AP (top {len(m)})")
        cb = fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02)
        cb.set_label("AP destroyed / action / AP")
        for i, j in zip(*np.where(np.isnan(m.to_numpy(float))), strict=True):
            ax.text(j, i, "?", ha="center", va="center", fontsize=7, color="white")
        return fig


def ranking_bars(scores: pd.DataFrame, metric: str = "composite", n: int = 15,
                 title: str = "", err: str | None = None):
    """Best and worst n units by a per-AP metric, coloured by bloc."""
    with plt.rc_context(STYLE):
        s = scores.dropna(subset=[metric]).sort_values(metric, ascending=False)
        s = s[np.isfinite(s[metric])]
        zero = int((s[metric] <= 0).sum())
        s = s[s[metric] > 0]  # units that cannot hurt anything at range are listed apart
        best, worst = s.head(n), s.tail(n)
        fig, axes = plt.subplots(1, 2, figsize=(12, 0.3 * n + 1.8))
        for ax, part, label in ((axes[0], best, "best"), (axes[1], worst, "worst")):
            part = part.iloc[::-1]
            xerr = part[err].to_numpy(float) if err and err in part else None
            ax.barh(range(len(part)), part[metric], xerr=xerr,
                    color=[_colour(b) for b in part["bloc"]], capsize=2)
            ax.set_yticks(range(len(part)),
                          [f"{u[:32]} ({a:g} AP)" for u, a in zip(part["unit"], part["ap"],
                                                                  strict=True)])
            ax.set_title(f"{n} {label}")
            ax.set_xlabel(metric.replace("_", " "))
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in BLOC_COLOURS.values()]
        fig.legend(handles, BLOC_COLOURS.keys(), loc="lower center", ncol=6,
                   bbox_to_anchor=(0.5, -0.02))
        note = f" ({zero} units scoring 0 not shown)" if zero else ""
        fig.suptitle((title or f"Ranking by {metric.replace('_', ' ')}") + note,
                     fontweight="bold")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        return fig


def damage_distributions(results: list[tuple[str, object]], title: str = ""):
    """Damage PMF bars and 'chance of at least k' curves for a few matchups."""
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(12, 4))
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


def reliability_scatter(unit_column: pd.DataFrame, column: str, title: str = ""):
    """Mean AP destroyed per AP against P(destroy) for one column (Sustained, open)."""
    with plt.rc_context(STYLE):
        d = unit_column[(unit_column["column"] == column) &
                        (unit_column["action"] == "sustained") & (~unit_column["cover"])]
        d = d.dropna(subset=["ap_destroyed_per_ap", "p_destroy"])
        d = d[d["mean_damage"] > 0]
        fig, ax = plt.subplots(figsize=(8, 6))
        ax.scatter(d["ap_destroyed_per_ap"], d["p_destroy"], s=14,
                   c=[_colour(b) for b in d["bloc"]], alpha=0.75)
        top = d.nlargest(6, "ap_destroyed_per_ap")
        for _, r in top.iterrows():
            ax.annotate(r["unit"][:26], (r["ap_destroyed_per_ap"], r["p_destroy"]),
                        fontsize=7, xytext=(3, 3), textcoords="offset points")
        ref = d["ref_size"].iloc[0] if len(d) else "?"
        ax.set_xlabel("mean AP destroyed per action per AP")
        ax.set_ylabel("P(destroy the reference target in one Sustained Attack)")
        ax.set_title(title or f"Reliability vs mean against {column} (reference size {ref})")
        return fig


def fair_points_scatter(fair: pd.DataFrame, label: int = 6, title: str = "",
                        xlabel: str = "suggested AP"):
    """Actual AP against suggested (fair) AP with the 90 % band; outliers labelled."""
    with plt.rc_context(STYLE):
        d = fair.dropna(subset=["fair_ap"])
        fig, ax = plt.subplots(figsize=(8, 7))
        ax.scatter(d["fair_ap"], d["ap"], s=14, c=[_colour(b) for b in d["bloc"]], alpha=0.75)
        if len(d):
            lo, hi = d[["fair_ap", "ap"]].min().min() * 0.8, d[["fair_ap", "ap"]].max().max() * 1.2
            xs = np.linspace(lo, hi, 50)
            ax.plot(xs, xs, color="black", lw=1, label="cost = fair cost")
            ax.set_xscale("log")
            ax.set_yscale("log")
        seen: dict[tuple, int] = {}
        for _, r in pd.concat([d.nlargest(label, "residual"),
                               d.nsmallest(label, "residual")]).iterrows():
            key = (round(float(np.log(r["fair_ap"])) * 2) / 2, round(float(np.log(r["ap"])) * 4))
            k = seen.get(key, 0)
            seen[key] = k + 1
            ax.annotate(r["unit"][:26], (r["fair_ap"], r["ap"]), fontsize=7,
                        xytext=(4, 3 - 9 * k), textcoords="offset points")
        from matplotlib.ticker import FuncFormatter

        fmt = FuncFormatter(lambda v, _: f"{v:g}")
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(fmt)
            axis.set_minor_formatter(fmt)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("printed AP")
        ax.set_title(title or "Fair points: above the line = over-costed")
        ax.legend()
        return fig


def platoon_comparison(table: pd.DataFrame, title: str = ""):
    """Best build of each platoon (composite per AP, the modelled advantage's share marked)
    and the spread of the composite over every legal build."""
    with plt.rc_context(STYLE):
        best = (table.sort_values("composite", ascending=False)
                .drop_duplicates("platoon").iloc[::-1])
        fig, axes = plt.subplots(1, 2, figsize=(13, 0.62 * len(best) + 2.0),
                                 gridspec_kw={"width_ratios": [3, 2]})
        y = np.arange(len(best))
        base = best["composite_without_advantage"].to_numpy(float)
        total = best["composite"].to_numpy(float)
        colours = [_colour(b) for b in best["bloc"]]
        axes[0].barh(y, base, color=colours, label="without the advantage")
        axes[0].barh(y, total - base, left=base, color=colours, alpha=0.45, hatch="//",
                     label="modelled platoon advantage")
        labels = []
        for r in best.itertuples():
            units = " + ".join(x for x in (r.command, r.required, r.support) if x)
            units = units if len(units) <= 70 else units[:67] + "..."
            labels.append(f"{r.platoon}\n{units} ({r.ap_paid:g} AP)")
        axes[0].set_yticks(y, labels, fontsize=7)
        axes[0].set_xlabel("composite per AP of the best build (offence/AP x durability/AP)")
        axes[0].set_title("Best legal build of each platoon")
        axes[0].legend(loc="lower right", fontsize=7)
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
               top: int = 12, title: str = ""):
    """Win probability across army mixes (Dust Epic optimiser): every mix by its air share,
    coloured by its mech share, and the best mixes."""
    with plt.rc_context(STYLE):
        d = pd.DataFrame(rows)
        fig, axes = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 2]})
        air = (d["fighter"] * 3 + d["bomber"] * 6) / d["cost"]
        mech = d["mech"] * 5 / d["cost"]
        sc = axes[0].scatter(air, d["p_win"], c=mech, cmap="viridis", s=22, vmin=0, vmax=1)
        cb = fig.colorbar(sc, ax=axes[0], fraction=0.04, pad=0.02)
        cb.set_label("share of PP in mechs")
        best = d.iloc[0]
        axes[0].annotate(best["mix"], (air.iloc[0], best["p_win"]), fontsize=8,
                         xytext=(6, -12), textcoords="offset points")
        axes[0].set_xlabel("share of PP in air figures (fighters, bombers)")
        axes[0].set_ylabel("P(attacker wins)" if side == "attacker" else
                           "P(attacker does not win)")
        axes[0].set_title(f"Every mix of {budget} PP ({len(d)} mixes)")
        t = d.head(top).iloc[::-1]
        axes[1].barh(range(len(t)), t["p_win"], color="#1f5fa8")
        axes[1].set_yticks(range(len(t)), [f"{m} ({c} PP)" for m, c in zip(t["mix"], t["cost"],
                                                                            strict=True)],
                           fontsize=7)
        lo = max(0.0, float(t["p_win"].min()) - 0.05)
        axes[1].set_xlim(lo, 1.0)
        axes[1].set_xlabel("win probability")
        axes[1].set_title(f"Best {len(t)}")
        role = "attacking" if side == "attacker" else "defending against"
        fig.suptitle(title or f"Dust Epic: {budget} PP {role} {opponent}", fontweight="bold")
        fig.tight_layout()
        return fig


def duel_matrix_chart(matrix: pd.DataFrame, title: str = ""):
    """One-on-one duels: P(row unit wins) against each column unit; the small print gives
    P(no result within the turn limit) where it is at least 0.005."""
    with plt.rc_context(STYLE):
        m = matrix[matrix["playable"]]
        order = list(dict.fromkeys(m["unit_a"]))
        p = m.pivot(index="unit_a", columns="unit_b", values="p_a_wins").reindex(
            index=order, columns=order)
        dr = m.pivot(index="unit_a", columns="unit_b", values="p_draw").reindex(
            index=order, columns=order)
        ap = m.drop_duplicates("unit_a").set_index("unit_a")["ap_a"].reindex(order)
        labels = [f"{u[:32]} ({a:g} AP)" if pd.notna(a) else u[:32]
                  for u, a in zip(order, ap, strict=True)]
        n = len(order)
        fig, ax = plt.subplots(figsize=(1.0 + 0.62 * n + 2.5, 0.55 * n + 2.2))
        im = ax.imshow(p.to_numpy(float), cmap="RdBu", vmin=0, vmax=1)
        for i in range(n):
            for j in range(n):
                v = p.iat[i, j]
                if pd.notna(v):
                    d = dr.iat[i, j]
                    txt = f"{v:.2f}" + (f"\ndraw {d:.2f}" if d >= 0.005 else "")
                    ax.text(j, i, txt, ha="center", va="center", fontsize=7.5,
                            color="white" if abs(v - 0.5) > 0.3 else "black")
        ax.set_xticks(range(n), [u[:24] for u in order], rotation=40, ha="right")
        ax.set_yticks(range(n), labels)
        ax.grid(False)
        ax.set_xlabel("opponent (side B)")
        ax.set_ylabel("side A")
        ax.set_title(title or "Duels: P(side A wins)")
        fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02, label="P(side A wins)")
        fig.tight_layout()
        return fig
