"""The Artillery Area on the grid (L3218-3224): an artillery line fired at a unit also strikes
every other unit in a 2 x 2 block of squares around its target, friend or foe, each with its
own attack; the player picks the block (L3222: the policy takes the one with most enemies less
friends). Infantry in the open gets no Infantry Save against artillery (L3224), so no save die
is read. Hits on P (L672). Hand-built board (8 x 6), scripted dice, expectations by hand."""

from __future__ import annotations

import pytest
from test_battle_rules import GUN, Game, spec_on, sq, unit
from test_battle_rules import H as BH
from test_battle_rules import W as BW
from test_battle_rules_weapons import MORTAR, _attack

from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.duel_kernel import H_ST, ST_SINGLE


def _track(g, u):
    return int(g.m[g.m[0, H_ST] + u, ST_SINGLE])


@pytest.mark.parametrize("case, squares, tracks, struck", [
    # two enemy heroes side by side (c5 r2, c5 r3), the mortar on c0 r2 (range 5, inside
    # 3-8): P, P on its target (2 of 3 points), then P, P on the other in the area (2 of 3)
    ("enemies", [sq(0, 2), sq(5, 2), sq(5, 3)], [1, 1], 1),
    # a friend beside the target (c5 r3): a block without it holds the target: it is spared
    ("friend spared", [sq(0, 2), sq(5, 3), sq(5, 2)], [3, 1], 0),
    # the target in the corner (c7 r5), the friend beside it (c6 r5): the only block holds
    # both, and the friend takes its own attack (L3224: enemy and ally)
    ("friend struck", [sq(1, 5), sq(6, 5), sq(7, 5)], [1, 1], 1),
])
def test_artillery_strikes_every_unit_in_the_2x2_area(case, squares, tracks, struck):
    if case == "enemies":
        a, b = [unit("Mortar", MORTAR)], [unit("T", GUN, track=3), unit("U", GUN, track=3)]
    else:
        a, b = [unit("Mortar", MORTAR), unit("Friend", GUN, track=3)], [unit("T", GUN, track=3)]
    g = Game(spec_on(BD.open_board(BW, BH), a, b), squares, faces="PPPP" + "S" * 10)
    _attack(g, 0)
    assert [_track(g, 1), _track(g, 2)] == tracks
    ev = g.events()
    assert ev.count("attack") == 1 and ev.count("special") == struck
    if struck:
        assert g.log[ev.index("special"), BK.L_X] == BK.SP_ARTY
