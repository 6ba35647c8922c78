"""Value from battles (dustsim.review.battle_value): legal host armies, with-and-without the card
on common random numbers, reproducible, unplayable cards named (never valued 0)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dustsim.data.cards import find_card
from dustsim.review import battle_value as B


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


def test_host_armies_come_from_the_bloc_charts(d47):
    ctx = B.contexts(d47, seed=1, hosts=2)
    assert {"Allies", "Axis", "SSU"} <= set(ctx)
    for bloc, cs in ctx.items():
        assert len(cs) == 2
        for c in cs:
            blocs = {u.card.bloc for u in c.host}
            assert blocs <= {bloc, "Mercenaries", "Captured Vehicles"} or any(
                u.captured for u in c.host)
            assert sum(u.ap for u in c.host) <= B.BUDGET + 40
            assert {u.card.bloc for u in c.opponent} != {bloc}
    again = B.contexts(list(reversed(d47)), seed=1, hosts=2)
    assert [[u.name for u in c.host] for c in again["Axis"]] == \
        [[u.name for u in c.host] for c in ctx["Axis"]]


def test_a_stronger_copy_adds_more_and_runs_reproduce(d47):
    card = find_card(d47, "Pounder")
    w = card.weapons[0]
    strong = replace(card, name="Pounder (test: three times the dice)", weapons=(replace(
        w, line=tuple(replace(c, dice=3 * c.dice, text=f"{3 * c.dice}/{c.damage}")
                      if c.usable and c.dice else c for c in w.line)), *card.weapons[1:]))
    cards = [*d47, strong]
    kw = {"seed": 0, "hosts": 3, "games": 48, "only": [card.name, strong.name]}
    t = B.battle_values(cards, **kw).set_index("unit")
    assert t.at[strong.name, "battle_value"] > t.at[card.name, "battle_value"]
    assert (t["battle_pairings"] == 3).all()
    t2 = B.battle_values(cards, **kw).set_index("unit")
    np.testing.assert_array_equal(t["battle_value"], t2["battle_value"])


def test_unplayable_cards_are_named_not_zero(d47):
    bad = next(c for c in d47 if B.why(c) is not None)
    t = B.battle_values(d47, hosts=1, games=4, only=[bad.name]).set_index("unit")
    assert np.isnan(t.at[bad.name, "battle_value"])
    assert t.at[bad.name, "battle_why"] == B.why(bad)


def test_a_hero_is_valued_joined(d47):
    hero = find_card(d47, "Maggie")
    t = B.battle_values(d47, hosts=8, games=4, only=[hero.name]).set_index("unit")
    joined = t.at[hero.name, "battle_joined"].split(" (")[0]
    assert joined and find_card(d47, joined).kind == "squad"


def test_only_changed_cards_replay(d47, monkeypatch):
    names = ["Pounder", "Maggie"]
    kw = {"hosts": 2, "games": 4, "only": names}
    first = B.battle_values(d47, **kw)
    calls = []
    real = B._play_pair
    monkeypatch.setattr(B, "_play_pair", lambda *a, **k: calls.append(1) or real(*a, **k))
    pounder = find_card(d47, "Pounder")
    cheaper = [replace(c, ap=c.ap - 2) if c is pounder else c for c in d47]
    ctx = B.contexts(d47, hosts=2)
    again = B.battle_values(cheaper, contexts_=ctx, previous=first, **kw)
    assert calls == []  # a cost change replays nothing
    np.testing.assert_array_equal(again["battle_value"], first["battle_value"])
    w = pounder.weapons[0]
    stronger = [replace(c, weapons=(replace(w, count=w.count + 1), *c.weapons[1:]))
                if c is pounder else c for c in d47]
    B.battle_values(stronger, contexts_=ctx, previous=first, **kw)
    assert 0 < len(calls) <= 2 * 2  # Pounder's pairings (and the bases) only


def test_armies_are_built_to_the_budget(d47):
    """Host armies and opponents are filled to the edition-wide budget (the same for every
    card: 100 AP by default, so that a 50-70 AP card still has 100 AP to destroy)."""
    assert B.BUDGET == 100
    for budget in (50.0, 100.0):
        ctx = B.contexts(d47, seed=1, hosts=4, budget=budget)
        for side in ("host", "opponent"):
            aps = [sum(u.ap for u in getattr(c, side)) for cs in ctx.values() for c in cs]
            assert budget - 10 <= np.median(aps) <= budget + 3, (budget, side, aps)


def test_a_pilot_pilots_a_vehicle_of_the_army(d47):
    """A hero with the Ace Pilot skill pilots the army's first vehicle it may pilot (1947
    L936-948) and joins a squad only where the army has none; its role is still not counted
    as played."""
    hero = find_card(d47, "Koshka")
    assert not B._may_pilot(hero, find_card(d47, "Ranger Combat Squad"))
    assert B.unplayed_main_roles(hero) == ("Ace Pilot",)
    piloted = 0
    for c in B.contexts(d47, seed=0, hosts=8)[hero.bloc]:
        army, to = B._with_card(c.host, hero)
        can = [u for u in c.host if u.hero is None and u.pilot is None
               and B._may_pilot(hero, u.card)]
        if can:
            assert to == can[0].card.name
            assert next(u for u in army if u.pilot is hero).card is can[0].card
            piloted += 1
        else:
            assert all(u.pilot is not hero for u in army)
    assert piloted > 0
