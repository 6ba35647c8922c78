"""Stealth (BattleScribe ``Dust_1947.gst`` rule 328a-77cc-4b29-e85c: attacking with this weapon
does not remove Camouflage), on the Ninja squads' and a few heroes' lines: an Attack that
fires only Stealth lines keeps the unit's Camouflage (L3455: any other Attack ends it). The
engagement kernel on a line (scripted dice) and the grid kernel (a hand-set state)."""

from __future__ import annotations

import numpy as np
from test_battle_rules import Game, H, W, spec_on, sq, unit
from test_skills_battles import QUIET, duel_spec, vehicle, weapon

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD
from dustsim.play.duel import replay_duel
from dustsim.play.duel_layout import H_UNITS, H_WPN, U_W0, U_W1, W_CC, W_STEALTH

GUN = weapon({"V1": "1/1", "I1": "1/1"}, range_="6")
QUIET_GUN = weapon({"V1": "1/1", "I1": "1/1"}, name="quiet gun", range_="6",
                   keywords=("stealth",))


def test_the_line_keeps_camouflage_after_an_attack_of_stealth_lines_alone():
    # A cannot move (Move 0) and cannot attack B at range 3 while B is camouflaged (L3455,
    # from the start, L3457); B fires each turn (a Sustained Attack: one die, its miss
    # re-rolled: "SS"). Plain gun: B's attack in turn 1 ends its camouflage, so in turn 2 A
    # attacks too (a Sustained Attack, "SS"): 6 faces. Stealth gun: B stays camouflaged and
    # A never attacks: 4 faces (replay_duel refuses faces left over or missing).
    a = vehicle("A", GUN, move=0)
    for gun, faces in ((GUN, "SS" "SS" "SS"), (QUIET_GUN, "SS" "SS")):
        b = vehicle("B", gun, skills=("Camouflage",))
        out = replay_duel(duel_spec(a, b, distance=3, turns=2, policy=QUIET), faces)
        assert out.left == {"A": 5, "B": 5} and out.dice_used == len(faces)


def _fire_all(g, u, t, lines):
    m = g.m
    ru = m[0, H_UNITS] + u
    for k, w in enumerate(range(m[ru, U_W0], m[ru, U_W1])):
        if m[m[0, H_WPN] + w, W_CC] == 0:
            m[m[0, BK.H_WS] + w, BK.WS_TGT] = t if k in lines else -1
    BK._attack(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log,
               np.int64(u), BK.OFF, BK.OFF, BK.A_ATTACK)


def test_the_grid_keeps_camouflage_after_an_attack_of_stealth_lines_alone():
    # A camouflaged unit with a Stealth line (k 0) and a plain one (k 1) attacks B at range 2;
    # its dice all miss (S). Only the Stealth line declared: still camouflaged (hidden at
    # range 3); the plain line too: camouflage ends (L3455)
    for lines, faces, hidden in (((0,), "S", True), ((0, 1), "SS", False)):
        ninja = unit("Ninja", QUIET_GUN, GUN, skills=("Camouflage",))
        g = Game(spec_on(BD.open_board(W, H), [ninja], [unit("B", GUN)]),
                 [sq(0, 2), sq(2, 2)], faces=faces)
        ru = g.m[0, H_UNITS]
        w0 = g.m[ru, U_W0]
        assert [int(g.m[g.m[0, H_WPN] + w0 + k, W_STEALTH]) for k in (0, 1)] == [1, 0]
        assert BR.hidden(g.m, 0, 3)  # camouflaged from the start (L3457)
        _fire_all(g, 0, 1, lines)
        assert bool(BR.hidden(g.m, 0, 3)) == hidden
        assert g.events().count("attack") == 1
