"""The move planning scores a Spotter squad's Sustained Attack by the choice the fire-time
policy spotter-weighs will make (L3321-3323; :func:`dustsim.play.battle_rules.spot_plan`).

Hand values as in test_battle_sniper_spotter: a sniper die in a Sustained Attack hits with
5/9 on P, 8/9 on P and T, never saved (L3319), so the spotter multiplies a sniper line's
value by 8/5 when it spots; its rifle die does 5/9 x 2/3 = 10/27 > 1/3 to a target in the
open (it fires: nothing changes), 5/9 x 1/3 = 5/27 < 1/3 in cover (it spots: the rifle's value
leaves the score, the sniper's gains 3/5 of its own)."""

from __future__ import annotations

import numpy as np
import pytest
from test_battle_sniper_spotter import T, U, spot_game

from dustsim.play import battle_rules as BR
from dustsim.play.duel_kernel import H_UNITS, H_WS, U_W0


@pytest.mark.parametrize("cov, expected", [
    (0, 0.0),  # in the open the spotter fires: the score counts both lines as it is
    (1, 1.5 * (2.0 * 3 / 5 - 0.5)),  # in cover it spots: sust x (2 x 3/5 - 0.5)
])
def test_the_plan_scores_the_sustained_attack_by_the_spotters_choice(cov, expected):
    g = spot_game("")
    m = g.m
    w0 = int(m[m[0, H_UNITS] + U, U_W0])  # the sniper line, then the spotter's rifle
    val = np.zeros_like(g.val)
    val[w0, 3], val[w0 + 1, 3] = 2.0, 0.5  # the lines' values at their target (the plan's)
    for w in (w0, w0 + 1):
        m[m[0, H_WS] + w, 6] = T
        m[m[0, H_WS] + w, 7] = cov
    assert BR.spot_plan(m, np.int64(U), val, 1.5) == pytest.approx(expected, abs=1e-12)


def test_no_choice_without_a_spotter_line_firing():
    g = spot_game("")
    m = g.m
    w0 = int(m[m[0, H_UNITS] + U, U_W0])
    val = np.zeros_like(g.val)
    val[w0, 3] = 2.0  # only the sniper line has a target: nothing to weigh
    m[m[0, H_WS] + w0, 6] = T
    m[m[0, H_WS] + w0, 7] = 1
    m[m[0, H_WS] + w0 + 1, 6] = -1
    assert BR.spot_plan(m, np.int64(U), val, 1.5) == 0.0
