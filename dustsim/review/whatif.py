"""A what-if in words: one changed card's printed and suggested cost with its band, verdict
and rank before and after, and the cards whose rank moves most (``dustsim whatif``).

The figures come from :func:`dustsim.review.value.run_patch` (the before/after frame) and the
two value-model tables (for the bands); nothing here computes a value.
"""

from __future__ import annotations

import pandas as pd

BAND = ("fair_low", "fair_high")


def with_bands(diff: pd.DataFrame, before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """``diff`` (``value.compare``) with each card's band before and after
    (``fair_low_before`` ... ``fair_high_after``) and the number of ranked cards."""
    out = diff.copy()
    for table, suffix in ((before, "before"), (after, "after")):
        cols = [c for c in BAND if c in table]
        if cols:
            m = table.set_index("unit")[cols]
            for c in cols:
                out[f"{c}_{suffix}"] = out["unit"].map(m[c])
        if "rank_value_per_ap" in table:
            out[f"ranked_{suffix}"] = int(table["rank_value_per_ap"].notna().sum())
    return out


def _ap(v) -> str:
    from dustsim.review.site import format_number

    return format_number(None if pd.isna(v) else float(v), 3)


def _cost(r: pd.Series, when: str) -> str:
    fair = r.get(f"fair_ap_{when}")
    if pd.isna(fair):
        return "not computed"
    lo, hi = r.get(f"fair_low_{when}"), r.get(f"fair_high_{when}")
    band = "" if lo is None or pd.isna(lo) else f" (90 % band {_ap(lo)}–{_ap(hi)} AP)"
    return f"{_ap(fair)} AP{band}"


def _rank(r: pd.Series, when: str) -> str:
    rank = r.get(f"rank_value_per_ap_{when}")
    if rank is None or pd.isna(rank):
        return "not ranked"
    n = r.get(f"ranked_{when}")
    return f"{int(rank)}" + ("" if n is None or pd.isna(n) else f" of {int(n)}")


def summary_text(diff: pd.DataFrame, units: list[str], movers: int = 5) -> str:
    """What a designer reads after a what-if: per changed card, the printed cost, the
    suggested cost with its band, the verdict and the rank (value per AP, 1 = best) before
    and after; then the other cards whose rank moves most."""
    lines = []
    for unit in units:
        r = diff[diff["unit"] == unit]
        if r.empty:
            continue
        r = r.iloc[0]
        lines.append(f"{unit}: printed cost {_ap(r['ap_before'])} -> {_ap(r['ap_after'])} AP")
        for label, before, after in (
                ("suggested cost", _cost(r, "before"), _cost(r, "after")),
                ("verdict", r["verdict_before"], r["verdict_after"]),
                ("rank, value per AP", _rank(r, "before"), _rank(r, "after"))):
            same = " (unchanged)" if before == after else ""
            lines.append(f"  {label:<19} {before}  ->  {after}{same}")
    others = diff[~diff["unit"].isin(units)].dropna(subset=["rank_move"])
    others = others[others["rank_move"] != 0]
    if len(others):
        top = others.reindex(others["rank_move"].abs().sort_values(ascending=False).index)
        lines.append(f"ranks that move most ({len(others)} other cards move):")
        for _, r in top.head(movers).iterrows():
            move = int(r["rank_move"])
            lines.append(f"  {r['unit']:<36} {_rank(r, 'before')} -> {_rank(r, 'after')}  "
                         f"({'up' if move > 0 else 'down'} {abs(move)})")
    else:
        lines.append("no other card's rank moves")
    changed = diff[diff["verdict_changed"] & ~diff["unit"].isin(units)]
    for _, r in changed.iterrows():
        lines.append(f"verdict also changes: {r['unit']}: {r['verdict_before']} -> "
                     f"{r['verdict_after']}")
    return "\n".join(lines)
