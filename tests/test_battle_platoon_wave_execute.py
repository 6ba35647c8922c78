"""Wave Attack (L2063-2065) beyond attacks: "each time a Soldier is eliminated from a Red
Guards Infantry Unit" in the first three turns, so a soldier taken by an Execute special
action (L3511-3513) rolls too (:func:`dustsim.play.battle_kernel._execute_stunned`). Scripted
dice: the wave die returns the soldier on P (the digest's face); Execute rolls none."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_battle_reserve import spec_with
from test_battle_rules import GUN, Game, sq, unit

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, ST_MODELS, ST_STUN

GRANT = BP.Grant("Wave Attack", "L2063-2065", "test: platoon 'p' (chart)", ((0, "wave"),))


def _execute(soldiers, turn, faces):
    guards = replace(unit("Red Guards Rifle Squad", GUN, kind="squad"), models=soldiers)
    spec = spec_with([unit("Tina", GUN, skills=("Execute",))], [guards], grants_b=(GRANT,))
    g = Game(spec, [sq(2, 2), sq(3, 2)], faces=faces + "S" * 40)
    g.m[BK.R_G, BK.G_TURN] = turn
    g.m[g.m[0, H_ST] + 1, ST_STUN] = 1  # Stunned: Execute may take a soldier (L3513)
    g.activate(0)
    k = g.m[BK.R_B, BK.B_LOGN]
    rows = [g.log[i] for i in range(k)]
    waves = [int(r[BK.L_HITS]) for r in rows if r[BK.L_ACTION] == BK.A_SPECIAL
             and r[BK.L_X] == BP.SP_WAVE]
    executed = [r for r in rows if r[BK.L_ACTION] == BK.A_SPECIAL and r[BK.L_X] == BK.SP_EXECUTE]
    destroyed = any(r[BK.L_ACTION] == BK.A_DESTROYED for r in rows)
    assert len(executed) == 1 and executed[0][BK.L_CAS] == 1
    return int(g.m[g.m[0, H_ST] + 1, ST_MODELS]), waves, destroyed


@pytest.mark.parametrize("turn, die, left, waves", [
    (1, "P", 3, [1]),  # the executed soldier's die: P, a replacement comes forward
    (2, "T", 2, [0]),  # not P: he stays eliminated
    (4, "S", 2, []),  # after turn 3 no die (L2065); Tina's attack then misses on S
])
def test_an_executed_red_guard_rolls_to_return(turn, die, left, waves):
    got = _execute(3, turn, die)
    assert got[:2] == (left, waves) and not got[2]


def test_the_last_soldier_executed_who_returns_keeps_the_squad():
    assert _execute(1, 1, "P") == (1, [1], False)
    assert _execute(1, 1, "S")[::2] == (0, True)
