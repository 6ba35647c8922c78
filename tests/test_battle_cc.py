"""The improvised close-combat weapon (Dust 1947 L767-787; issue 23, decision OPEN-21 in
:func:`dustsim.rules.unit_rules.improvised_weapons`): every infantry and vehicle unit with no
close-combat weapon on its cards fights with one rated 1/1 in every column, one die per
soldier. Hand-built cards, scripted dice, expectations derived by hand from seed 003.

Faces: P (bloc), T (target), S (shield). A die hits on P (1/3, L672); close-combat hits take
no cover or infantry save (L765); a Sustained Attack re-rolls its misses once (L793: 5/9)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from test_battle_rules import CLAW, GUN, Game, W, spec_on, sq, unit

from dustsim.data.cards import COLUMNS, Card
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel, simulate_duel
from dustsim.play.duel_kernel import H_ST, H_UNITS, H_WS, ST_MODELS, U_W0, U_W1
from dustsim.review.replay_rules import check_log_on_board
from dustsim.rules.unit_rules import IMPROVISED, improvised_weapons


def squad(name, models, *weapons, armour="I1"):
    return Card(name=name, edition="dust-1947", kind="squad", armour=armour, ap=10,
                models=models, move=2, march_move=4, weapons=weapons)


# -- the weapon line -------------------------------------------------------------------------------
def test_improvised_weapon_lines_one_die_per_soldier_only_without_a_listed_cc_weapon():
    (w, carrier, hero), = improvised_weapons(squad("Sq", 5, GUN))
    assert (w.name, w.range, w.count, carrier.name, hero) == (IMPROVISED, "C", 5, "Sq", False)
    assert [c.text for c in w.line] == ["1/1"] * len(COLUMNS)  # all 14 columns (L772)
    assert improvised_weapons(squad("Sq", 5, GUN, CLAW)) == ()  # a listed C weapon replaces it
    tank = unit("Tank", GUN, kind="vehicle", track=3)
    assert [x[0].count for x in improvised_weapons(tank)] == [1]  # one model
    plane = Card(name="Plane", edition="dust-1947", kind="aircraft", armour="A1", ap=5,
                 damage_track=2, move=6, weapons=(GUN,))
    assert improvised_weapons(plane) == ()  # infantry and vehicle units only (L767)
    # a joined hero is one more soldier; its listed C weapon equips the whole unit
    lines = improvised_weapons(squad("Sq", 4, GUN), unit("Hero", GUN))
    assert [(x[0].count, x[1].name, x[2]) for x in lines] == [(4, "Sq", False), (1, "Hero", True)]
    assert improvised_weapons(squad("Sq", 4, GUN), unit("Hero", CLAW)) == ()


def test_compiled_armies_carry_the_line():
    a, b = squad("A", 3, GUN), squad("B", 5, GUN)
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], ruleset="dust-1947", distance=1)
    for u, models in ((0, 3), (1, 5)):
        rows = spec.weapons[spec.units[u, U_W0]: spec.units[u, U_W1]]
        assert rows.shape[0] == 2 and list(rows[1, 1:6]) == [models, 0, 1, 1, 1]  # C, carriers
    grid = spec_on(BD.open_board(W, 6), [a], [squad("B", 5, GUN, CLAW)])
    assert grid.weapon_names == ("gun", IMPROVISED, "gun", "claw")


# -- scripted dice on the grid -------------------------------------------------------------------
def _melee(a, b, faces, b_models=None):
    g = Game(spec_on(BD.open_board(W, 6), [a], [b]), [sq(2, 2), sq(3, 2)], faces=faces)
    m = g.m
    if b_models is not None:
        m[m[0, H_ST] + 1, ST_MODELS] = b_models
    # A declares its close-combat line at B (the last of its lines: the improvised one)
    m[m[0, H_WS] + m[m[0, H_UNITS] + 0, U_W1] - 1, BK.WS_TGT] = 1
    BK._close_combat(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq,
                     g.log, 0, 1, BK.OFF, BK.OFF)
    k = int(m[BK.R_B, BK.B_LOGN])
    cc = [r for r in g.log[:k] if B.ACTIONS[int(r[BK.L_ACTION])] == "close-combat"]
    return g, cc


def test_worked_example_five_soldiers_against_three_survivors():
    # L775-787: A's ranged fire left B three soldiers; A rolls for its five soldiers, B for its
    # three, together: A's three P wipe B out, B's two P take two of A: A ends with three
    faces = "PPPST" + "PPS"
    g, cc = _melee(squad("A", 5, GUN), squad("B", 5, GUN), faces, b_models=3)
    assert (g.left(0), g.left(1)) == (3, 0)
    assert [int(r[BK.L_HITS]) for r in cc] == [3, 2]
    assert [int(r[BK.L_D1] - r[BK.L_D0]) for r in cc] == [5, 3]  # one die per soldier
    assert [int(r[BK.L_SAVES]) for r in cc] == [0, 0]  # no cover or infantry save (L765)


@pytest.mark.parametrize("faces, left_a, left_b", [
    ("PTS" + "SSSSS", 3, 4),  # one P of three: one soldier of B; B's five miss
    ("TTS" + "PPTSS", 1, 5),  # A misses; B's two P take two of A's three
    ("PPP" + "PPPPP", 0, 2),  # simultaneous (L765): both strike in full
])
def test_three_soldiers_against_five_one_die_each(faces, left_a, left_b):
    g, cc = _melee(squad("A", 3, GUN), squad("B", 5, GUN), faces)
    assert (g.left(0), g.left(1)) == (left_a, left_b)
    assert len(cc) == 2


def test_a_listed_close_combat_weapon_replaces_it():
    # B's claw (1/1, one carrier) is its only close-combat line: one die back, not five
    g, cc = _melee(squad("A", 3, GUN), squad("B", 5, GUN, CLAW), "SSS" + "P")
    assert [int(r[BK.L_D1] - r[BK.L_D0]) for r in cc] == [3, 1]
    assert (g.left(0), g.left(1)) == (2, 5)


def test_a_vehicle_fights_back_with_one_die_of_damage_one():
    tank = unit("Tank", GUN, kind="vehicle", track=3)
    g, cc = _melee(squad("A", 3, GUN, armour="I1"), tank, "PPS" + "P")
    # two P: two damage points off the tank's three (1/1, no save in close combat, L765);
    # the tank's one die (one model) takes a soldier
    assert (g.left(0), g.left(1)) == (2, 1)
    assert [int(r[BK.L_D1] - r[BK.L_D0]) for r in cc] == [3, 1]


def test_event_log_names_the_weapon_and_the_replay_checker_accepts_it():
    # two squads with guns only, on an open board: they close and fight hand to hand
    spec = spec_on(BD.open_board(W, 6), [squad("A", 5, GUN)], [squad("B", 5, GUN)],
                   policy="advance")
    found = 0
    for seed in range(6):
        log = B.event_log(spec, seed)
        check_log_on_board(log)
        for ev in log["events"]:
            if ev["action"] == "close-combat":
                assert ev["weapon"] == IMPROVISED and ev["range"] == 1
                assert len(ev["dice"]) <= 5
                found += 1
    assert found > 0


# -- Monte Carlo against exact -------------------------------------------------------------------
def test_duel_of_two_unarmed_heroes_matches_the_exact_odds():
    """Two one-point heroes, adjacent, one turn, A first (policy initiative=a). A's Sustained
    close-combat Attack hits with 1 - (2/3)^2 = 5/9; B retaliates (not sustained, L765) with
    1/3; casualties together. If both stand, B attacks likewise. A wins with 10/27 + (8/27)
    (4/27) = 302/729; B with 4/27 + (8/27)(10/27) = 188/729 (both gone or both standing: no
    winner)."""
    h = [Card(name=n, edition="dust-1947", kind="hero", armour="I1", ap=5, damage_track=1,
              move=2, march_move=4) for n in ("HA", "HB")]
    spec = compile_duel([DuelUnit(h[0])], [DuelUnit(h[1])], ruleset="dust-1947", distance=1,
                        turns=1, policy=DuelPolicy(initiative="a"))
    r = simulate_duel(spec, trials=40_000, seed=5, threads=1)
    for got, se, want in ((r.p_a_wins, r.se("p_a_wins"), Fraction(302, 729)),
                          (r.p_b_wins, r.se("p_b_wins"), Fraction(188, 729))):
        assert abs(got - float(want)) < 5 * se, (got, float(want), se)


def test_skills_lists_the_improvised_weapon_and_the_flame_decision(capsys):
    import json

    from dustsim.cli.shell import main

    assert main(["skills", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    book = {r["name"]: r for r in d["rulebook"]}
    imp = book["Improvised Close Combat Weapon"]
    assert imp["status"] == "played" and imp["lines"] == "L767-787" and "OPEN-21" in imp["reason"]
    flame = next(r for r in d["rules"] if r["name"] == "Flame")
    assert "Decision" in flame["reason"] and "L3246-3248" in flame["gap"]
