"""Static per-card measures the army tools and the balance review share: the reference
target of every armour column, the column weights, the static attack of a card, and
durability (the AP-weighted harmonic mean of expected actions to destroy). The definitions
are documented in :mod:`dustsim.review.analytics`, which builds its tables from them;
:mod:`dustsim.army.list_summary` and :mod:`dustsim.army.platoons` use them directly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import numpy as np

from dustsim.data.cards import COLUMNS, Card
from dustsim.engines.exact import expected_actions_to_destroy
from dustsim.rules.attack import Target, target_from_card, usable_weapons
from dustsim.rules.card_attack import card_attack_spec


@dataclass(frozen=True)
class Reference:
    column: str
    kind: str
    size: int
    ap: float
    n_cards: int

    def target(self, cover: bool) -> Target:
        if self.kind == "squad":
            return Target(column=self.column, models=self.size, cover=cover)
        return Target(column=self.column, track=self.size, kind=self.kind, cover=cover)


def _median_int(xs) -> int:
    return math.floor(float(np.median(xs)) + 0.5)


def reference_targets(cards: Iterable[Card]) -> dict[str, Reference]:
    """Median reference target of every column for one edition's cards."""
    cards = [c for c in cards if c.armour and c.kind]
    out = {}
    for col in COLUMNS:
        same = [c for c in cards if c.armour == col]
        aps = [c.ap for c in same if c.ap]
        if col[0] == "I":
            squads = [c.models for c in same if c.kind == "squad" and c.models]
            if not squads:
                squads = [c.models for c in cards if c.kind == "squad" and c.models] or [5]
            size, kind = _median_int(squads), "squad"
        else:
            tracks = [c.damage_track for c in same if c.damage_track]
            if not tracks:
                tracks = [c.damage_track for c in cards if c.armour and c.armour[0] == col[0]
                          and c.damage_track] or [5]
            size = _median_int(tracks)
            kind = "vehicle" if col[0] == "V" else "aircraft"
        if not aps:
            aps = [c.ap for c in cards if c.ap and c.armour[0] == col[0]] or [1.0]
        out[col] = Reference(col, kind, size, float(np.median(aps)), len(same))
    return out


def column_weights(cards: Iterable[Card], by: str = "ap") -> dict[str, float]:
    """Share of the edition's army points in each armour column; ``by="cards"``: of its cards
    (a figure that does not move when a printed cost does)."""
    tot = {c: 0.0 for c in COLUMNS}
    for c in cards:
        if c.armour in tot and (c.ap or by == "cards"):
            tot[c.armour] += c.ap if by == "ap" else 1.0
    s = sum(tot.values())
    if s == 0:
        return {c: 1 / len(COLUMNS) for c in COLUMNS}
    return {c: v / s for c, v in tot.items()}


def scoreable(card: Card) -> bool:
    """A card with a cost and weapons: it takes part in the static tables."""
    return card.ap is not None and card.ap > 0 and bool(card.weapons)


def attack_weapons(card: Card, column: str) -> tuple[list, list[str]]:
    """The standard weapons that can hurt ``column`` and notes on those left out."""
    weapons, skipped = usable_weapons(card, column, close_combat=True)
    notes = list(skipped)
    if card.models_source == "inferred":
        notes.append("squad size inferred")
    return weapons, notes


def static_spec(card: Card, target: Target, action: str = "attack", weapons=None):
    """The static tables' attack: every standard weapon that can hurt the target, close
    combat included (compiled as close combat when a close-combat weapon takes part)."""
    weapons = weapons if weapons is not None else attack_weapons(card, target.column)[0]
    cc = any(w.close_combat for w in weapons)
    return card_attack_spec(card, target, action=action, close_combat=cc,
                            ruleset=edition_ruleset(card.edition))


@cache
def edition_ruleset(edition: str):
    """The edition's default ruleset, built once (the same immutable object every call; the
    compiler would otherwise rebuild it for every attack)."""
    from dustsim.rules.rulesets import DEFAULT_RULESET_FOR_EDITION, get_ruleset

    return get_ruleset(DEFAULT_RULESET_FOR_EDITION[edition])


def harmonic_actions(attacker_ap, expected_actions) -> float:
    """AP-weighted harmonic mean of expected actions to destroy (the durability figure):
    the inverse of the mix's mean destruction rate; inf when no attacker can destroy it."""
    wts = np.asarray(attacker_ap, float)
    rate = 1.0 / np.asarray(expected_actions, float)
    ok = np.isfinite(rate) & np.isfinite(wts)
    if not ok.any() or wts[ok].sum() == 0:
        return math.nan
    mean_rate = np.average(rate[ok], weights=wts[ok])
    return 1.0 / mean_rate if mean_rate > 0 else math.inf


def durability(target: Card, attackers: Iterable[Card], **situation) -> float:
    """Durability of one card (as in :func:`scores`) in a given situation, e.g.
    ``fortification="bunker"``: the AP-weighted harmonic mean over the attacker mix."""
    tgt = target_from_card(target, **situation)
    aps, actions = [], []
    for a in attackers:
        if a.edition != target.edition or not scoreable(a):
            continue
        weapons, notes = attack_weapons(a, tgt.column)
        if not weapons:
            if not any("unknown" in n for n in notes):  # as in unit_unit_table
                aps.append(a.ap)
                actions.append(math.inf)
            continue
        aps.append(a.ap)
        actions.append(expected_actions_to_destroy(static_spec(a, tgt, "attack", weapons)))
    return harmonic_actions(aps, actions)
