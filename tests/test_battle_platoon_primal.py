"""Primal Instinct's gorillas (issue 23; L1554-1566; :mod:`dustsim.play.battle_platoon`) on a
hand-built board with scripted dice.

Rules read: a March Move draws a reactive attack (L797-811); a unit that receives at least one
hit from an attack takes an Under Fire token, one already Under Fire takes Suppression instead
(L739); gorillas of Markus' platoon cannot receive a Suppression token during a Charge from a
reactive attack that interrupts it (L1564); a Charge is a March Move then a close-combat
attack (L3459). Every face P: the reactive die succeeds (L805), the reaction hits (L672)."""

from __future__ import annotations

import pytest
from test_battle_reserve import spec_with, tank
from test_battle_rules import CLAW, GUN, Game, sq, unit

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, ST_TOK

GRANT = BP.Grant("Primal Instinct", "L1554-1566", "test: platoon 'p' (chart)",
                 ((0, "ape-order"), (1, "ordered")))


def _reacted(granted, charge=True, token=1):
    markus = unit("Markus", GUN)
    gorilla = unit("Gorilla", CLAW, skills=("Charge",) if charge else ())
    spec = spec_with([markus, gorilla], [tank("Enemy", track=9)],
                     grants_a=(GRANT,) if granted else ())
    g = Game(spec, [sq(0, 0), sq(2, 2), sq(5, 2)], faces="P" * 80)
    m = g.m
    m[m[0, H_ST] + 1, ST_TOK] = token  # Under Fire already
    BK._react_march(g.rng, g.buf, 0, BK.ON, m, spec.f, spec.bd, spec.ls, spec.lq, g.log, 1)
    k = m[BK.R_B, BK.B_LOGN]
    calm = [i for i in range(k) if g.log[i, BK.L_ACTION] == BK.A_TOKEN
            and g.log[i, BK.L_X] == BP.WHY_CALM]
    return int(m[m[0, H_ST] + 1, ST_TOK]), len(calm)


@pytest.mark.parametrize("granted, charge, token, expected", [
    (False, True, 1, (2, 0)),  # the plain rule: Under Fire + a hit -> Suppressed (L739)
    (True, True, 1, (1, 1)),  # Primal Instinct: no Suppression while it charges (L1564)
    (True, False, 1, (2, 0)),  # no Charge skill: its March is no Charge
    (True, True, 0, (1, 0)),  # from no token a hit gives Under Fire, which it may take
])
def test_no_suppression_from_the_reaction_to_a_gorillas_charge(granted, charge, token,
                                                               expected):
    assert _reacted(granted, charge, token) == expected


def test_the_table_says_played_with_its_decision():
    r = BP.ADVANTAGES["Primal Instinct"]
    assert r.status == "played" and "L3459" in r.decision
