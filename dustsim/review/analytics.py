"""Balance tables: every card against every armour column and every card, scores per army point.

Definitions (documented here, used by ``dustsim report`` and the notebooks):

* **Reference target** of a column, per edition: for an infantry column, a squad with the
  median model count of the edition's squads of that armour; for a vehicle or aircraft
  column, a unit with the median damage track of the edition's cards of that armour. Its
  *reference AP* is the median AP of the edition's cards of that armour. Both are stated in
  the tables (``ref_size``, ``ref_ap``).
* **Situations**: Attack or Sustained Attack, target in the open or in cover. A card fires
  every weapon it carries as standard (ranged and close-combat; optional extras are left out)
  that can hurt the column; ``weapons`` names the lines each figure used. Rows with a
  close-combat weapon are compiled as close combat (no suppression tokens in their token
  figures).
* **Reach** of a row: the share of the value model's starting distances
  (:data:`dustsim.review.value.DISTANCES`) from which its longest-reaching weapon can fire after one
  Move (distance <= Move + range; close combat: range 1).
* **AP destroyed per action** against a column: expected damage / reference size x reference
  AP.
* **Offence**: AP destroyed per Attack action times its reach, averaged over open and cover,
  weighted over the 14 columns by the share of the edition's army points that sits in each column
  (:func:`column_weights`; pass ``weights=`` to override). ``offence_per_ap`` divides by cost.
* **Durability**: expected actions of the edition's attacker mix (every scoreable card,
  weighted by its AP) to destroy the card at full strength in the open, damage persisting
  between actions: the AP-weighted harmonic mean over attackers. ``durability_per_ap``
  divides by cost.
* **Composite** (Lanchester square law): a force of C points has C/AP units, and its fighting
  strength grows with firepower x numbers², so per point the value is
  ``offence_per_ap x durability_per_ap``.
* **Static fair points** (:func:`static_fair_points`, the static composite, *not* the fair
  cost): log AP on log(offence x durability) across the edition by reduced major axis (no
  shrinkage toward the mean). The one fair-cost definition is the value model's
  (:mod:`dustsim.review.value`): the report's fair points and verdicts, ``dustsim whatif``.
  :func:`static_whatif` likewise reports the static scores. Both label every row
  (``measure`` = :data:`STATIC_MEASURE`).

Cards with ``?`` cells or inferred model counts are scored where the data suffice; the
``partial`` column and ``notes`` say which figures are partial.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import stats

from dustsim.army.unit_metrics import (  # noqa: F401  (shared with the army tools; re-exported)
    Reference,
    attack_weapons,
    column_weights,
    durability,
    edition_ruleset,
    harmonic_actions,
    reference_targets,
    scoreable,
    static_spec,
)
from dustsim.data.cards import COLUMNS, Card
from dustsim.engines.exact import evaluate, expected_actions_to_destroy
from dustsim.errors import DustsimError
from dustsim.rules.attack import Target, target_from_card

SITUATIONS: tuple[tuple[str, bool], ...] = (
    ("attack", False), ("attack", True), ("sustained", False), ("sustained", True))


def reach(card: Card, weapons) -> float:
    """Share of the starting distances from which the longest-reaching weapon fires after
    one Move."""
    from dustsim.review.value import DISTANCES

    best = 0.0
    for w in weapons:
        r = w.range
        rng = 1 if r == "C" else math.inf if r.endswith("U") else (
            int(r.split("-")[-1]) if r != "?" else 0)
        best = max(best, rng)
    return sum(d <= (card.move or 0) + best for d in DISTANCES) / len(DISTANCES)


def unit_column_table(cards: list[Card], *, progress: bool = False,
                      engine: str = "exact", trials: int = 20_000, seed: int = 0,
                      situations: tuple[tuple[str, bool], ...] = SITUATIONS,
                      references: dict[str, dict[str, Reference]] | None = None
                      ) -> pd.DataFrame:
    """Tidy table: card x column x situation with expected hits, damage, kills, P(destroy).

    ``references`` (per edition) defaults to the reference targets of ``cards``; a sweep split
    into tasks passes the whole edition's so every task uses the same targets."""
    rows, specs = [], []
    open_targets: dict[int, tuple] = {}
    by_edition: dict[str, list[Card]] = {}
    for c in cards:
        by_edition.setdefault(c.edition, []).append(c)
    jobs = []
    for edition, ed_cards in by_edition.items():
        refs = (references or {}).get(edition) or reference_targets(ed_cards)
        for card in ed_cards:
            if not scoreable(card):
                continue
            for col in COLUMNS:
                weapons, notes = attack_weapons(card, col)
                for action, cover in situations:
                    jobs.append((edition, card, col, action, cover, refs[col], weapons, notes))
    it = jobs
    if progress:
        from tqdm import tqdm

        it = tqdm(jobs, desc="unit x column", unit="cell", leave=False)
    for edition, card, col, action, cover, ref, weapons, notes in it:
        row = {"edition": edition, "unit": card.name, "bloc": card.bloc,
               "faction": card.faction, "kind": card.kind, "ap": card.ap, "column": col,
               "action": action, "cover": cover, "ref_kind": ref.kind, "ref_size": ref.size,
               "ref_ap": ref.ap, "weapons": "; ".join(w.name for w in weapons),
               "reach": reach(card, weapons)}
        unknown = [n for n in notes if "unknown" in n]
        if not weapons:
            value = math.nan if unknown else 0.0
            row.update(mean_hits=value, mean_unsaved=value, mean_damage=value,
                       mean_models_killed=value, p_destroy=value)
        else:
            tgt = ref.target(cover)
            spec = static_spec(card, tgt, action, weapons)
            specs.append((len(rows), spec))
            if action == "attack" and not cover:
                open_targets[len(rows)] = (card, tgt)
        row["partial"] = bool(notes)
        row["notes"] = "; ".join(notes)
        rows.append(row)
    if engine == "exact":
        for i, spec in specs:
            r = evaluate(spec)
            if i in open_targets:  # the card pages show these
                _keep_open_attack(*open_targets[i], r)
            rows[i].update(mean_hits=r.hits.mean(), mean_unsaved=r.unsaved.mean(),
                           mean_damage=r.damage.mean(), mean_models_killed=r.models_killed.mean(),
                           p_destroy=r.p_destroyed)
    else:
        from dustsim.engines.kernel import simulate_batch

        res = simulate_batch([s for _, s in specs], trials, seed, progress=progress)
        for (i, _), r in zip(specs, res, strict=True):
            rows[i].update(mean_hits=r.hits.mean(), mean_unsaved=r.unsaved.mean(),
                           mean_damage=r.damage.mean(), mean_models_killed=r.models_killed.mean(),
                           p_destroy=r.p_destroyed, se_damage=r.damage.mean_se,
                           se_p_destroy=r.p_destroyed_se)
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    df["ap_destroyed"] = df["mean_damage"] / df["ref_size"] * df["ref_ap"]
    df["ap_destroyed_reach"] = df["ap_destroyed"] * df["reach"]
    for k in ("mean_damage", "mean_models_killed", "p_destroy", "ap_destroyed"):
        df[f"{k}_per_ap"] = df[k] / df["ap"]
    if "se_damage" in df:
        df["se_ap_destroyed"] = df["se_damage"] / df["ref_size"] * df["ref_ap"] * df["reach"]
    return df


_OPEN_ATTACK: dict = {}  # (id(card), target) -> (card, exact result), this process
_OPEN_ATTACK_MAX = 20_000


def _keep_open_attack(card: Card, target: Target, result) -> None:
    if len(_OPEN_ATTACK) >= _OPEN_ATTACK_MAX:
        _OPEN_ATTACK.clear()
    _OPEN_ATTACK[(id(card), target)] = (card, result)


def open_attack_result(card: Card, target: Target):
    """The exact result of the card's Attack action on ``target`` (as in the unit x column
    table): the one that table computed in this process, else computed now (pure, so
    the same either way)."""
    hit = _OPEN_ATTACK.get((id(card), target))
    if hit is not None and hit[0] is card:
        return hit[1]
    return evaluate(static_spec(card, target, action="attack"))


def unit_unit_table(cards: list[Card], targets: list[Card] | None = None, *,
                    progress: bool = False) -> pd.DataFrame:
    """Every scoreable card against every card it can face (same edition), Attack action,
    target at full strength in the open."""
    rows = []
    targets = targets if targets is not None else cards
    pairs = []
    for t in targets:
        try:
            tgt = target_from_card(t)
        except DustsimError:
            continue
        for a in cards:
            if a.edition != t.edition or not scoreable(a):
                continue
            pairs.append((a, t, tgt))
    it = pairs
    if progress:
        from tqdm import tqdm

        it = tqdm(pairs, desc="unit x unit", unit="pair", leave=False)
    for a, t, tgt in it:
        fig = _pair_figures_cached(a, tgt)
        weapon_names, partial, per_figure, p_destroy, actions = fig
        row = {"edition": a.edition, "attacker": a.name, "attacker_ap": a.ap,
               "target": t.name, "target_ap": t.ap, "target_column": tgt.column,
               "weapons": weapon_names, "partial": partial}
        if per_figure is None:  # no weapon: p_destroy is 0 (none can hurt) or nan (unknown)
            row.update(ap_destroyed=p_destroy, p_destroy=p_destroy, expected_actions=actions)
        else:
            row.update(ap_destroyed=per_figure * (t.ap or math.nan), p_destroy=p_destroy,
                       expected_actions=actions)
        rows.append(row)
    return pd.DataFrame(rows)


_PAIRS: dict = {}  # (id(attacker), target profile) -> (attacker, figures), this process
_PAIRS_MAX = 400_000


def _pair_figures_cached(a: Card, tgt) -> tuple:
    """:func:`_pair_figures` memoised for the process by (attacker, target profile): targets
    alike share one compiled attack, also across the sweep's tasks (a pure function, so the
    figures are those of a fresh call). The card is kept with its entry, so an ``id`` is never
    mistaken for another card's."""
    key = (id(a), tgt)
    hit = _PAIRS.get(key)
    if hit is not None and hit[0] is a:
        return hit[1]
    fig = _pair_figures(a, tgt)
    if len(_PAIRS) >= _PAIRS_MAX:
        _PAIRS.clear()
    _PAIRS[key] = (a, fig)
    return fig


def _pair_figures(a: Card, tgt) -> tuple:
    """(weapon names, partial, mean damage per figure or None without weapons, P(destroy),
    expected actions) of card ``a`` attacking ``tgt``."""
    weapons, notes = attack_weapons(a, tgt.column)
    names = "; ".join(w.name for w in weapons)
    if not weapons:
        nan_or_zero = math.nan if any("unknown" in n for n in notes) else 0.0
        return (names, bool(notes), None, nan_or_zero,
                math.inf if nan_or_zero == 0.0 else math.nan)
    spec = static_spec(a, tgt, "attack", weapons)
    return (names, bool(notes), *_spec_figures(replace(spec, notes=())))


@lru_cache(maxsize=1 << 16)
def _spec_figures(spec) -> tuple[float, float, float]:
    """(mean damage per figure, P(destroy), expected actions) of one attack spec, memoised
    for the whole process: attackers and targets with the same profiles share one exact
    evaluation (the unit x unit sweep has about five pairs per distinct spec)."""
    r = evaluate(spec)
    return (r.damage.mean() / (spec.models + spec.single), r.p_destroyed,
            expected_actions_to_destroy(spec))


def scores(unit_column: pd.DataFrame, unit_unit: pd.DataFrame, cards: list[Card],
           weights: dict[str, float] | None = None) -> pd.DataFrame:
    """Offence, durability and composite per AP, with ranks by edition."""
    out = []
    if "edition" not in unit_column:  # no card of the edition can be swept (2013: no AP)
        return pd.DataFrame()
    for edition, uc in unit_column.groupby("edition"):
        ed_cards = [c for c in cards if c.edition == edition]
        w = weights or column_weights(ed_cards)
        att = uc[uc["action"] == "attack"]
        per_col = att.groupby(["unit", "column"])["ap_destroyed_reach"].mean().unstack("column")
        partial = uc.groupby("unit")["partial"].any()
        wv = pd.Series(w).reindex(per_col.columns).fillna(0.0)
        offence = (per_col.fillna(0.0) * wv).sum(axis=1)
        sus = uc[uc["action"] == "sustained"]
        per_col_s = sus.groupby(["unit", "column"])["ap_destroyed_reach"].mean().unstack(
            "column")
        offence_s = (per_col_s.fillna(0.0) * wv.reindex(per_col_s.columns).fillna(0.0)).sum(
            axis=1)
        offence_se = None
        if "se_ap_destroyed" in att:
            # mean of the open and cover figures: se = sqrt(se1^2 + se2^2) / 2 per column
            var = att.assign(v=att["se_ap_destroyed"] ** 2).groupby(["unit", "column"])["v"]
            se_col = (var.sum() ** 0.5 / var.count()).unstack("column")
            offence_se = ((se_col.fillna(0.0) * wv.reindex(se_col.columns).fillna(0.0)) ** 2
                          ).sum(axis=1) ** 0.5
        uu = unit_unit[unit_unit["edition"] == edition]
        dur = {target: harmonic_actions(g["attacker_ap"], g["expected_actions"])
               for target, g in uu.groupby("target")}
        info = {c.name: c for c in ed_cards}
        for unit, off in offence.items():
            c = info[unit]
            d = dur.get(unit, math.nan)
            row = {
                "edition": edition, "unit": unit, "bloc": c.bloc, "faction": c.faction,
                "kind": c.kind, "ap": c.ap, "offence": off, "offence_per_ap": off / c.ap,
                "offence_sustained": offence_s.get(unit, math.nan),
                "durability": d, "durability_per_ap": d / c.ap,
                "composite": (off / c.ap) * (d / c.ap),
                "partial": bool(partial.get(unit, False)) or c.models_source == "inferred",
            }
            if offence_se is not None:
                se = float(offence_se.get(unit, math.nan))
                row.update(offence_se=se, offence_per_ap_se=se / c.ap,
                           composite_se=se / c.ap * d / c.ap)
            out.append(row)
    df = pd.DataFrame(out)
    if df.empty:
        return df
    for col in ("offence_per_ap", "durability_per_ap", "composite"):
        df[f"rank_{col}"] = df.groupby("edition")[col].rank(ascending=False, method="min")
    for group in ("bloc", "faction", "kind"):  # composite rank within each group
        df[f"rank_in_{group}"] = df.groupby(["edition", group], dropna=False)[
            "composite"].rank(ascending=False, method="min")
    return df.sort_values(["edition", "composite"], ascending=[True, False])


STATIC_MEASURE = "static composite (not the value model's fair cost)"


def static_fair_points(score_table: pd.DataFrame, band: float = 0.90) -> pd.DataFrame:
    """Static fair points (the static composite, not the fair cost of
    :mod:`dustsim.review.value`): log AP on log(offence x durability) per edition by reduced
    major axis; suggested cost, residual and a 90 % band (the OLS prediction band's width)."""
    parts = []
    for _edition, g in score_table.groupby("edition"):
        g = g.copy()
        strength = g["offence"] * g["durability"]
        ok = np.isfinite(strength) & (strength > 0) & (g["ap"] > 0)
        g["fair_ap"] = np.nan
        g["residual"] = np.nan
        g["fair_low"] = np.nan
        g["fair_high"] = np.nan
        if ok.sum() >= 5:
            x = np.log(strength[ok].to_numpy(float))
            y = np.log(g.loc[ok, "ap"].to_numpy(float))
            fit = stats.linregress(x, y)
            from dustsim.review.value import reduced_major_axis

            intercept, slope = reduced_major_axis(x, y)  # no shrinkage to the mean
            n = len(x)
            yhat = intercept + slope * x
            s = np.sqrt(((y - yhat) ** 2).sum() / (n - 2))
            sxx = ((x - x.mean()) ** 2).sum()
            t = stats.t.ppf(0.5 + band / 2, n - 2)
            half = t * s * np.sqrt(1 + 1 / n + (x - x.mean()) ** 2 / sxx)
            g.loc[ok, "fair_ap"] = np.exp(yhat)
            g.loc[ok, "residual"] = y - yhat
            g.loc[ok, "fair_low"] = np.exp(yhat - half)
            g.loc[ok, "fair_high"] = np.exp(yhat + half)
            g["fit_slope"] = slope
            g["fit_intercept"] = intercept
            g["fit_r2"] = fit.rvalue**2
        parts.append(g)
    df = pd.concat(parts) if parts else score_table.copy()
    df["verdict"] = np.where(df["ap"] > df["fair_high"], "over-costed",
                             np.where(df["ap"] < df["fair_low"], "under-costed", "in band"))
    df["measure"] = STATIC_MEASURE
    return df.sort_values("residual", ascending=False)


fair_points = static_fair_points  # the older name; the measure is labelled in every row


def modify_card(card: Card, *, ap: float | None = None,
                cells: dict[tuple[str, str], str] | None = None,
                add_die: str | None = None, remove_die: str | None = None) -> Card:
    """A copy of a card with a new cost, changed cells, or one die more/less on a weapon."""
    from dataclasses import replace as _replace

    from dustsim.data.cards import parse_cell

    weapons = list(card.weapons)
    names = [w.name for w in weapons]

    def index(name: str) -> int:
        if name not in names:
            raise DustsimError(f"no weapon {name!r} (has: {', '.join(names)})", unit=card.name,
                               field="weapon")
        return names.index(name)

    for (wname, col), text in (cells or {}).items():
        if col not in COLUMNS:
            raise DustsimError(f"{col!r} is not an armour column", unit=card.name, field="cell")
        i = index(wname)
        line = list(weapons[i].line)
        try:
            line[COLUMNS.index(col)] = parse_cell(text)
        except ValueError as exc:
            raise DustsimError(str(exc), unit=card.name, weapon=wname, field=col) from None
        weapons[i] = _replace(weapons[i], line=tuple(line))
    for wname, step in ((add_die, 1), (remove_die, -1)):
        if wname is None:
            continue
        i = index(wname)
        line = []
        for cell in weapons[i].line:
            if cell.usable and not cell.blast and cell.dice + step >= 1:
                right = cell.text.split("/")[1]
                line.append(parse_cell(f"{cell.dice + step}/{right}"))
            elif cell.usable and not cell.blast and cell.dice + step < 1:
                line.append(parse_cell("-"))
            else:
                line.append(cell)
        weapons[i] = _replace(weapons[i], line=tuple(line))
    new_ap = card.ap if ap is None else float(ap)
    if new_ap is not None and new_ap <= 0:
        raise DustsimError("a cost must be positive", unit=card.name, field="ap")
    return _replace(card, weapons=tuple(weapons), ap=new_ap)


def static_whatif(pool: list[Card], edition_cards: list[Card], unit: str, *,
                  progress: bool = False, **changes) -> pd.DataFrame:
    """Static scores and ranks of ``unit`` within ``pool`` before and after a change (tidy;
    the static composite, labelled in ``measure``: the fair cost's what-if is the value
    model's, ``dustsim whatif`` / :func:`dustsim.review.value.run_patch`)."""
    from dustsim.data.cards import find_card

    card = find_card(pool, unit)
    changed = modify_card(card, **changes)

    def run(cards_pool, ed):
        uc = unit_column_table(cards_pool, progress=progress)
        uu = unit_unit_table(ed, cards_pool, progress=progress)
        return scores(uc, uu, ed)

    before = run(pool, edition_cards)
    swap = [changed if c.name == card.name else c for c in pool]
    swap_ed = [changed if c.name == card.name else c for c in edition_cards]
    after = run(swap, swap_ed)
    rows = []
    b = before.set_index("unit").loc[card.name]
    a = after.set_index("unit").loc[card.name]
    for metric in ("ap", "offence", "offence_per_ap", "durability", "durability_per_ap",
                   "composite"):
        row = {"unit": card.name, "metric": metric, "before": b[metric], "after": a[metric],
               "change": a[metric] - b[metric]}
        rk = f"rank_{metric}"
        if rk in before:
            row.update(rank_before=b[rk], rank_after=a[rk])
        rows.append(row)
    return pd.DataFrame(rows).assign(measure=STATIC_MEASURE)


whatif = static_whatif  # the older name; the measure is labelled in every row
