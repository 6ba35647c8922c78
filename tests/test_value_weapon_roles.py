"""Issue 24: a card whose main weapon carries a rule the line does not play (the Artillery
Area and indirect fire, L3218-3224; a weapon rule the skills table marks "not played") is
judged as a lower bound, the rule named, yet it stays in the reference field's pool and the
battles' host armies (its dice play there). Expectations derived by hand from the cards."""

from __future__ import annotations

import math

import pytest

from dustsim.army.unit_metrics import Reference
from dustsim.data.cards import find_card
from dustsim.review import battle_value as B
from dustsim.review import value as V


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


def _ref(col: str, size: int) -> Reference:
    kind = "squad" if col[0] == "I" else "vehicle"
    return Reference(col, kind, size, 10.0, 1)


def test_main_weapon_is_the_line_with_most_firepower(d47):
    red_rain = find_card(d47, "Red Rain")  # Move 2
    mortar = next(w for w in red_rain.weapons if w.name == "Heavy Mortar")  # **/1 in I1, 4-14
    smg = next(w for w in red_rain.weapons if w.name == "Submachine Gun")  # 3 x 7/1, range 3
    refs, only_i1 = {"I1": _ref("I1", 5)}, {"I1": 1.0}
    # two blast icons x 5 models x 1 damage, reaching every start (14 + 2 >= 12)
    assert V.line_firepower(red_rain, mortar, refs, only_i1) == pytest.approx(10.0)
    # 3 carriers x 7 dice x 1 damage, reaching only 3 squares of 3, 6, 9, 12 (2 + 3 = 5)
    assert V.line_firepower(red_rain, smg, refs, only_i1) == pytest.approx(21 * 0.25)
    assert V.main_weapons(red_rain, refs, only_i1) == (mortar,)
    samurai = find_card(d47, "Steel Samuraï")  # Move 2
    rail = next(w for w in samurai.weapons if w.name == "Rail Gun-100MJ")  # 3/# in V1, U
    stomp = next(w for w in samurai.weapons if w.name == "Stomp")  # 2 x 2/4 in V1, C
    refs, only_v1 = {"V1": _ref("V1", 3)}, {"V1": 1.0}
    # an automatic kill destroys the reference vehicle: 3 dice x its 3 damage points
    assert V.line_firepower(samurai, rail, refs, only_v1) == pytest.approx(9.0)
    # 2 carriers x 2 dice x 4 damage, close combat reaching 3 squares only (2 + 1)
    assert V.line_firepower(samurai, stomp, refs, only_v1) == pytest.approx(16 * 0.25)
    assert V.main_weapons(samurai, refs, only_v1) == (rail,)


def test_unplayed_rules_of_a_main_weapon_are_named_not_host_exclusions(d47):
    wr = V.bound_roles_of(d47)
    assert wr["Red Rain"] == ("Artillery Area and indirect fire of its main weapon "
                              "(Heavy Mortar)",)
    assert wr["Steel Samuraï"] == ("Rail Weapon rule of its main weapon (Rail Gun-100MJ)",)
    assert wr["PT-47C"] == ("Artillery Barrage rule of its main weapon (Katyusha)",)
    assert "Pounder" not in wr  # no such rule on its weapons
    # a hero's named piloting (L3623-3625) bounds its verdict; on the vehicle it is nothing
    assert wr["Sigrid (I)"] == ("piloting of its own vehicle (Pilot: Snow Lynx)",)
    assert "Snow Lynx" not in wr and V.main_roles(find_card(d47, "Sigrid (I)")) == ()
    for name in ("Red Rain", "Steel Samuraï", "PT-47C"):
        card = find_card(d47, name)
        # not a main role: the card stays drawable in the battles' armies and in the pools
        # of the reference field and the host squads (its dice play there)
        assert V.main_roles(card) == () and B._playable(card)
        # but the battles do not play the rule either: their verdict is not judged
        assert B.unplayed_main_roles(card, wr[name]) == wr[name]
    drawn = {u.card.name for cs in B.contexts(d47, seed=0, hosts=4).values() for c in cs
             for u in (*c.host, *c.opponent)}
    assert drawn & set(wr)  # such cards fight in the host armies as before


@pytest.mark.filterwarnings("ignore:Polyfit may be poorly conditioned")  # bootstrap of
@pytest.mark.filterwarnings("ignore:overflow encountered in exp")  # a ten-card edition
def test_their_verdict_is_a_lower_bound_with_the_rule_named(d47):
    names = ("Red Rain", "Steel Samuraï", "Pounder", "Ludwig", "Luther", "Lothar", "Punisher",
             "Grenadier Battle Squad", "Red Army Battle Squad", "Ranger Combat Squad")
    ed = [find_card(d47, n) for n in names]
    t = V.value_model(ed, V.ValueSettings(trials=4, per_class=1, join_heroes=False)).table
    t = t.set_index("unit")
    wr = V.bound_roles_of(ed)
    for name in ("Red Rain", "Steel Samuraï"):
        r = t.loc[name]
        assert bool(r["lower_bound"]) and r["verdict"] in ("lower bound", "under-costed")
        assert wr[name][0] in r["mainly_unmodelled"] and not bool(r["in_fit"])
        assert "lower bound" in r["reason"] and wr[name][0] in r["reason"]
        assert math.isfinite(r["fair_ap"])
    p = t.loc["Pounder"]
    assert not bool(p["lower_bound"]) and p["mainly_unmodelled"] == "" and bool(p["in_fit"])


def test_a_hero_of_a_kind_joins_the_median_squad_of_its_kind(d47):
    # L3541: a Gorilla hero joins only Gorilla units; the I2 median squad is not one
    markus = find_card(d47, "Markus")
    assert not B.may_join_kind(markus, find_card(d47, V.host_squads(d47)["I2"]))
    host = V.kind_host(markus, d47)
    gorillas = sorted((c for c in d47 if c.kind == "squad" and c.armour == "I2" and c.ap
                       and "Gorilla" in c.skills and not V.main_roles(c)),
                      key=lambda c: (c.ap, c.name))
    assert host == gorillas[(len(gorillas) - 1) // 2]
    assert V.kind_host(find_card(d47, "Gregor"), d47) is None  # no I4 Gorilla squad: alone
