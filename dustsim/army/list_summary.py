"""What an army list can do: points by kind, armour and faction; offence against every armour
column at every range; durability; what it cannot hurt; threat ranges; each unit's share.

Definitions (the figures of :mod:`dustsim.review.analytics`, per unit of the list):

* **Offence** of a unit against a column, at a distance: expected AP destroyed by one Attack
  action of the weapons that reach that distance, on the column's reference target in the
  open (:func:`dustsim.review.analytics.reference_targets`): expected damage (exact engine, every
  weapon line in range fired together) / reference size x reference AP. Ranged weapons fire
  at distances from their minimum to their maximum range ("U" = unlimited); close-combat
  weapons are a separate mode at distance 1. The unit's figure against a column is its best
  distance's; ``offence`` weights the columns by the share of the edition's AP in each
  (:func:`dustsim.review.analytics.column_weights`). A joined hero fires its own weapons; a pilot
  does not (L944).
* **Reach** against a column: the longest range of a weapon that can hurt it (1 for close
  combat only); **threat range** = Move + reach (one Move then an Attack).
* **Durability**: expected Attack actions of the edition's attacker mix (every scoreable card,
  weighted by AP) to destroy the unit at full strength in the open, joined hero included:
  the AP-weighted harmonic mean (:func:`dustsim.review.analytics.harmonic_actions`).
* A column the list **cannot hurt**: no weapon of any unit can damage it; a column it
  **may not hurt** has only unknown (``?``) cells among its weapons.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import pandas as pd

from dustsim.army.lists import ArmyList, Check, check
from dustsim.data.cards import COLUMNS, Card, Weapon
from dustsim.errors import DustsimError, printable
from dustsim.rules.attack import Situation, compile_attack, usable_weapons
from dustsim.rules.skills import unplayed_rules

FAR = 1_000_000
RANGE_U = "U"


def _range(w: Weapon) -> tuple[int, int] | None:
    from dustsim.play.duel import weapon_range as duel_range

    r = duel_range(w)
    return None if r is None else (max(r[0], 1), r[1])


def _rng_label(lo: int, hi: int) -> str:
    return f"{lo}-{RANGE_U if hi >= FAR else hi}"


@functools.lru_cache(maxsize=20_000)
def _expected_damage(carriers: tuple[tuple[Card, tuple[Weapon, ...]], ...], target, cc: bool
                     ) -> float:
    """Expected damage of one Attack of these weapons (several carriers: each its own
    skills, summed as separate attacks, which is exact for the mean when they do not share
    a target state)."""
    from dustsim.engines.exact import evaluate
    from dustsim.rules.attack import attacker_skills

    total = 0.0
    for carrier, weapons in carriers:
        pairs = [(w, w.cell(target.column)) for w in weapons]
        sit = Situation("attack", skills=attacker_skills(carrier), close_combat=cc)
        spec = compile_attack(pairs, target, sit, "dust-1947")
        total += evaluate(spec).damage.mean()
    return total


def _unit_offence(unit_name: str, shooters: list[Card], refs: dict) -> tuple[list[dict],
                                                                           list[str]]:
    rows, notes = [], []
    for col in COLUMNS:
        ref = refs[col]
        tgt = ref.target(False)
        for cc in (False, True):
            lines: list[tuple[Card, Weapon, tuple[int, int]]] = []
            for c in shooters:
                ws, skipped = usable_weapons(c, col, close_combat=cc)
                notes += [f"{c.name}: {s}" for s in skipped]
                for w in ws:
                    if w.close_combat != cc:
                        continue
                    r = (1, 1) if cc else _range(w)
                    if r is None:
                        notes.append(f"{c.name}: {w.name} range unknown; left out")
                        continue
                    lines.append((c, w, r))
            if not lines:
                continue
            cuts = sorted({r[0] for *_x, r in lines} | {r[1] + 1 for *_x, r in lines
                                                         if r[1] < FAR})
            for i, lo in enumerate(cuts):
                hi = cuts[i + 1] - 1 if i + 1 < len(cuts) else FAR
                firing = [(c, w) for c, w, r in lines if r[0] <= lo and hi <= r[1]]
                if not firing:
                    continue
                by_c: dict[str, list] = {}
                for c, w in firing:
                    by_c.setdefault(c.name, [c, []])[1].append(w)
                key = tuple((c, tuple(ws)) for c, ws in by_c.values())
                try:
                    dmg = _expected_damage(key, tgt, cc)
                except DustsimError as exc:
                    notes.append(f"{unit_name} vs {col}: {exc.message}")
                    continue
                rows.append({"unit": unit_name, "column": col,
                             "mode": "close combat" if cc else "ranged",
                             "range_from": lo, "range_to": hi, "range": _rng_label(lo, hi),
                             "mean_damage": dmg,
                             "ap_destroyed": dmg / ref.size * ref.ap})
    return rows, notes


@functools.lru_cache(maxsize=2_000)
def _durability(card: Card, hero: Card | None, attackers: tuple[Card, ...]) -> float:
    from dustsim.army.unit_metrics import harmonic_actions, scoreable
    from dustsim.engines.exact import expected_actions_to_destroy
    from dustsim.play.duel import DuelUnit, unit_target
    from dustsim.rules.card_attack import card_attack_spec

    tgt = unit_target(DuelUnit(card, hero=hero), "squad-first")
    aps, actions = [], []
    for a in attackers:
        if not scoreable(a):
            continue
        weapons, notes = usable_weapons(a, tgt.column)
        if not weapons:
            if not any("unknown" in n for n in notes):
                aps.append(a.ap)
                actions.append(math.inf)
            continue
        aps.append(a.ap)
        actions.append(expected_actions_to_destroy(card_attack_spec(a, tgt)))
    return harmonic_actions(aps, actions)


@dataclass(frozen=True)
class ListSummary:
    """The analysis of one list (see the module docstring). ``units``: one row per unit;
    ``offence``: tidy unit x column x mode x range band; ``legality``: the :class:`Check`."""

    army: ArmyList
    legality: Check
    units: pd.DataFrame
    offence: pd.DataFrame
    weights: dict
    notes: tuple[str, ...] = field(default=())

    # -- tables -------------------------------------------------------------------------------
    def ap_by(self, key: str) -> pd.DataFrame:
        """AP by ``kind``, ``armour``, ``faction`` or ``bloc`` (tidy: key, ap, share)."""
        if key not in ("kind", "armour", "faction", "bloc"):
            raise DustsimError("group by kind, armour, faction or bloc", field="by")
        rows = []
        for u in self.army.units:
            for c in u.cards:
                ap = u.card_ap if c is u.card else float(c.ap or math.nan)
                val = getattr(c, key) or ("(bloc)" if key == "faction" else "?")
                if key == "armour" and c is not u.card:
                    val = f"{val} (hero)" if c is u.hero else f"{val} (pilot)"
                rows.append({key: val, "ap": ap})
        df = pd.DataFrame(rows).groupby(key, as_index=False)["ap"].sum()
        df["share"] = df["ap"] / df["ap"].sum()
        return df.sort_values("ap", ascending=False, ignore_index=True)

    def column_table(self) -> pd.DataFrame:
        """Per column: the list's offence (sum of the units' best), its reach and threat
        range (the longest of its units), and whether it can hurt the column."""
        t = self.to_frame()
        g = t.groupby("column", sort=False)
        out = pd.DataFrame({"offence": g["offence"].sum(min_count=1),
                            "reach": g["reach"].max(), "threat_range": g["threat_range"].max(),
                            "units_that_hurt": g["can_hurt"].sum()}).reindex(list(COLUMNS))
        out["can_hurt"] = out["units_that_hurt"] > 0
        return out.reset_index()

    @property
    def cannot_hurt(self) -> list[str]:
        ct = self.column_table()
        return [c for c, ok in zip(ct["column"], ct["can_hurt"], strict=True) if not ok]

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per unit and column (unit, column, offence at its best range,
        reach, threat range, can_hurt)."""
        best = (self.offence.groupby(["unit", "column", "mode"], as_index=False)
                .agg(ap_destroyed=("ap_destroyed", "max"), reach=("range_to", "max")))
        rows = []
        for _, u in self.units.iterrows():
            for col in COLUMNS:
                b = best[(best["unit"] == u["unit"]) & (best["column"] == col)]
                off = float(b["ap_destroyed"].max()) if len(b) else 0.0
                reach = int(b["reach"].max()) if len(b) else 0
                move = u["move"] if not pd.isna(u["move"]) else 0
                rows.append({"unit": u["unit"], "column": col, "offence": off,
                             "reach": reach if reach else None,
                             "threat_range": (FAR if reach >= FAR else int(move) + reach)
                             if reach else None,
                             "can_hurt": bool(reach)})
        df = pd.DataFrame(rows)
        return df

    # -- display ------------------------------------------------------------------------------
    def __repr__(self) -> str:
        lg = self.legality
        return (f"ListSummary({self.army.name!r}: {len(self.army.units)} units, "
                f"{lg.ap_total:g}/{self.army.points:g} AP, {lg.army_type}, "
                f"{'legal' if lg.legal else f'{len(lg.violations)} violation(s)'}; "
                f"offence {self.units['offence'].sum():.2f} AP/action; cannot hurt "
                f"{', '.join(self.cannot_hurt) or 'nothing'})")

    def text(self) -> str:
        """The ``dustsim list show`` report."""
        lg = self.legality
        fmt = lambda v: "-" if pd.isna(v) else (  # noqa: E731
            "U" if isinstance(v, int | float) and v >= FAR else f"{v:g}")
        out = [printable(f"{self.army.name} ({self.army.file})"),
               f"{lg.ap_total:g} AP on the table, {lg.ap_paid:g} paid of {self.army.points:g}"
               f" ({lg.army_type}; {lg.free_hero_ap:g} AP free hero bonus)",
               "legal" if lg.legal else f"ILLEGAL: {len(lg.violations)} violation(s)"]
        for p in lg.platoons:
            state = ("advantage active" if p.advantage_active else
                     "cannot be checked" if not p.checkable else "incomplete")
            out.append(f"platoon {p.id}: {p.chart} - {p.advantage or 'advantage'}: {state}")
        for key in ("kind", "armour", "faction"):
            df = self.ap_by(key)
            out.append(f"AP by {key}: " + ", ".join(
                f"{k} {a:g} ({s:.0%})" for k, a, s in zip(df[key], df["ap"], df["share"],
                                                          strict=True)))
        ct = self.column_table()
        out.append("")
        out.append("column  offence (AP/action)  reach  threat")
        for _, r in ct.iterrows():
            out.append(f"{r['column']:<7} {r['offence']:>19.3f}  {fmt(r['reach']):>5}  "
                       f"{fmt(r['threat_range']):>6}")
        out.append(f"cannot hurt: {', '.join(self.cannot_hurt) or 'nothing'}")
        out.append("")
        out.append(f"{'unit':<44} {'AP':>5} {'offence':>8} {'share':>6} {'durab.':>7} "
                   f"{'share':>6}")
        for _, u in self.units.iterrows():
            out.append(f"{u['unit'][:44]:<44} {u['ap']:>5g} {u['offence']:>8.3f} "
                       f"{u['offence_share']:>6.1%} {u['durability']:>7.2f} "
                       f"{u['durability_share']:>6.1%}")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        import jinja2

        tmpl = jinja2.Environment(autoescape=True).from_string(_HTML)
        lg = self.legality
        return tmpl.render(
            s=self, lg=lg, units=self.units[["unit", "kind", "armour", "ap", "offence",
                                              "offence_share", "durability",
                                              "durability_share"]].to_html(
                index=False, float_format=lambda v: f"{v:.3g}"),
            columns=self.column_table().to_html(index=False, float_format=lambda v: f"{v:.3g}"
                                                ), cannot=", ".join(self.cannot_hurt))


_HTML = """<div class="dustsim-list"><b>{{ s.army.name }}</b>
{{ lg.ap_total }} AP ({{ lg.ap_paid }} paid of {{ s.army.points }}), {{ lg.army_type }}
{% if lg.legal %}<span style="color:green">legal</span>{% else %}
<span style="color:#b22">{{ lg.violations|length }} violation(s)</span>
<ul>{% for v in lg.violations %}<li>{{ v }}</li>{% endfor %}</ul>{% endif %}
<br>cannot hurt: {{ cannot or "nothing" }}
{{ units|safe }}<details><summary>columns</summary>{{ columns|safe }}</details></div>"""


def summarize(lst: ArmyList, cards: list[Card] | None = None, *,
              durability: bool = True) -> ListSummary:
    """Analyse a list (see the module docstring). ``durability=False`` skips the attacker
    mix (faster; the durability columns are NaN)."""
    from dustsim.army.unit_metrics import column_weights, reference_targets
    from dustsim.data.cards import load_cards

    cards = cards if cards is not None else load_cards()
    ed = [c for c in cards if c.edition == "dust-1947"]
    refs = reference_targets(ed)
    weights = column_weights(ed)
    legality = check(lst, cards)
    attackers = tuple(ed)
    rows, off_rows, notes = [], [], []
    seen: dict[str, int] = {}
    for u in lst.units:
        name = u.name
        seen[name] = seen.get(name, 0) + 1
        label = name if seen[name] == 1 else f"{name} #{seen[name]}"
        shooters = [u.card] + ([u.hero] if u.hero is not None else [])
        o, n = _unit_offence(label, shooters, refs)
        off_rows += o
        notes += n
        move = u.card.move
        if u.hero is not None and u.hero.move is not None and move is not None:
            move = min(move, u.hero.move)
        dur = math.nan
        if durability:
            try:
                dur = _durability(u.card, u.hero, attackers)
            except DustsimError as exc:
                notes.append(f"{label}: durability unknown ({exc.message})")
        rows.append({"unit": label, "card": u.card.name, "kind": u.card.kind,
                     "armour": u.card.armour, "bloc": u.card.bloc,
                     "faction": u.card.faction or "", "platoon": u.platoon, "ap": u.ap,
                     "move": move, "durability": dur})
    offence = pd.DataFrame(off_rows, columns=["unit", "column", "mode", "range_from",
                                              "range_to", "range", "mean_damage",
                                              "ap_destroyed"])
    units = pd.DataFrame(rows)
    best = offence.groupby(["unit", "column"])["ap_destroyed"].max().unstack("column")
    w = pd.Series(weights).reindex(best.columns).fillna(0.0)
    units["offence"] = units["unit"].map((best.fillna(0.0) * w).sum(axis=1)).fillna(0.0)
    tot = units["offence"].sum()
    units["offence_share"] = units["offence"] / tot if tot > 0 else 0.0
    dsum = units["durability"].replace(math.inf, math.nan).sum()
    units["durability_share"] = units["durability"] / dsum if dsum > 0 else math.nan
    notes += unplayed_rules(c for u in lst.units for c in u.cards)
    return ListSummary(lst, legality, units, offence, weights,
                       tuple(dict.fromkeys(notes + list(legality.notes))))
