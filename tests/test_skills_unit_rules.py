"""UnitRules: the flags compiled from a card's skills, derived by hand from the lines."""

from __future__ import annotations

import numpy as np

from dustsim.data.cards import Card
from dustsim.rules import unit_rules as UR


def _card(kind="squad", armour="I2", skills=(), size="standard"):
    return Card(name="x", edition="dust-1947", kind=kind, armour=armour, skills=skills,
                size=size)


def test_defaults_are_the_core_rules():
    r = UR.unit_rules(_card())
    # two actions (L343), reaction within 4 on one face (L797, L805), 3 initiative dice
    # (L337), 2 removal dice (L741), one square, on foot
    assert (r.actions, r.third_action_faces, r.reactive_range, r.reactive_faces) == (2, 0, 4, 2)
    assert (r.initiative_dice, r.removal_dice, r.squares, UR.MOVEMENT[r.movement]) == \
        (3, 2, 1, "foot")


def test_third_action_skills():
    hero = _card("hero", skills=("Infantry Ace",))
    squad = _card()
    # L3557: the Infantry Ace hero and the unit it joined gain a third action on P or T
    r = UR.unit_rules(squad, hero=hero)
    assert (r.actions, r.third_action_faces) == (3, 4)
    # L3369: Ace Pilot counts for the vehicle it pilots, not for a unit it joins
    pilot = _card("hero", skills=("Ace Pilot", "Pilot"))
    tank = _card("vehicle", "V3")
    assert UR.unit_rules(tank, pilot=pilot).actions == 3
    assert UR.unit_rules(squad, hero=pilot).actions == 2


def test_tempo_reaction_and_concealment():
    r = UR.unit_rules(_card(skills=("Scout", "Charge", "Move and Fire", "At the Double",
                                    "Advanced Reactive Fire", "Brave")))
    assert (r.scout, r.charge, r.move_and_fire, r.at_the_double) == (1, 1, 1, 1)
    assert (r.reactive_range, r.reactive_faces, r.removal_dice) == (6, 4, 3)  # L3373, L3451
    # Camouflage not shared (L3457): a camouflaged squad joined by a plain hero is not
    cam = _card(skills=("Camouflage",))
    assert UR.unit_rules(cam).camouflage == 1
    assert UR.unit_rules(cam, hero=_card("hero")).camouflage == 0
    assert UR.unit_rules(_card(skills=("Improved Camouflage",))).camouflage == 2
    # First Strike not shared (L3525): the hero's own flag
    fs = UR.unit_rules(_card(), hero=_card("hero", skills=("First Strike",)))
    assert (fs.first_strike, fs.hero_first_strike) == (0, 1)
    # Black Ops: four initiative dice (L3443)
    assert UR.unit_rules(_card(), hero=_card("hero", skills=("Black Ops",))).initiative_dice == 4


def test_vehicles_aircraft_and_transport():
    v = UR.unit_rules(_card("vehicle", "V4", skills=("Tracked", "Large", "Smoke Launchers",
                                                      "Passengers (6)")))
    assert (UR.MOVEMENT[v.movement], v.squares, v.smoke_launchers, v.passengers) == \
        ("tracked", 2, 1, 6)
    a = UR.unit_rules(_card("aircraft", "A2"))
    # aircraft: Move first (L516), never react (L813), two squares (L285)
    assert (a.must_move_first, a.reactive_range, a.squares) == (1, 0, 2)
    assert UR.unit_rules(_card("aircraft", "A2", skills=("Helicopter",))).must_move_first == 0


def test_packing_is_one_row_per_unit_in_field_order():
    rs = [UR.unit_rules(_card()), UR.unit_rules(_card(skills=("Scout",)))]
    m = UR.pack_unit_rules(rs)
    assert m.shape == (2, UR.N_FIELDS) and m.dtype == np.int64
    assert m[1, UR.R_SCOUT] == 1 and m[0, UR.R_SCOUT] == 0
    assert m[0, UR.R_ACTIONS] == 2 and m[0, UR.R_REACTIVE_RANGE] == 4
    assert UR.FIELDS[UR.R_CAMOUFLAGE] == "camouflage"
