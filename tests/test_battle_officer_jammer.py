"""A Jammer against an Artillery Observer on the grid (Dust 1947 L3565-3567): the Attack and
Sustained Attack actions an Artillery Observer triggers re-roll their successful dice (our
reading of the range: the observer within range 6 of the enemy Jammer, as for a radio).

Scripted dice (the dice kernel's order: to-hit, then the re-rolls of the successes): the
mortar's two dice hit on P (L672); infantry in the open has no save against artillery (L3224);
each hit is re-rolled and stands only on P again."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_battle_rules import GUN, Game, spec_on, sq, unit, weapon
from test_battle_rules import H as BH
from test_battle_rules import W as BW
from test_battle_rules_weapons import MORTAR, OBS, TGT, _observer_attacks, _target_track

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD


def _jammed_game(jammer_at, faces):
    """As the observer tests': the mortar on c0 r2 cannot see the target on c7 r2, the observer
    on c7 r5 can; an enemy Jammer (armour I2: the mortar cannot hurt it) at ``jammer_at``."""
    terrain = np.zeros(BW * BH, np.int8)
    terrain[sq(4, 2)] = BD.BUILDING
    board = BD.make_board("observer", BW, BH, terrain)
    claw = weapon({"V1": "1/1", "I1": "1/1"}, name="claw", range_="C")
    jammer = replace(unit("Jammer", GUN, skills=("Jammer",), track=3), armour="I2")
    spec = spec_on(board, [unit("Mortar", MORTAR), unit("Obs", claw,
                                                        skills=("Artillery Observer",))],
                   [unit("T", GUN, track=3), jammer])
    return Game(spec, [sq(0, 2), sq(7, 5), sq(7, 2), jammer_at], faces=faces + "S" * 40)


@pytest.mark.parametrize("jammer_at, faces, hits", [
    (sq(2, 5), "PPPS", 1),  # range 5 of the observer: P P hit, re-rolled P S: one stands
    (sq(2, 5), "PPPP", 2),
    (sq(2, 5), "PTSS", 0),  # one hit, its re-roll S
    (sq(0, 0), "PPSS", 2),  # beyond range 6: no re-roll, the next faces are not the mortar's
])
def test_a_jammer_near_the_observer_rerolls_the_artillerys_successes(jammer_at, faces, hits):
    g = _jammed_game(jammer_at, faces)
    _observer_attacks(g)
    att = next(r for r in g.log[: g.m[BK.R_B, BK.B_LOGN]] if r[BK.L_ACTION] == BK.A_ATTACK)
    assert att[BK.L_X] == BK.WHY_OBSERVED and att[BK.L_P0] == OBS
    jammed = jammer_at == sq(2, 5)
    assert att[BK.L_D1] - att[BK.L_D0] == (2 + (faces[:2].count("P")) if jammed else 2)
    assert att[BK.L_HITS] == hits and _target_track(g, TGT) == 3 - hits
    assert (att[BK.L_PN] > 0 and att[BK.L_PN] & BR.JAM_LOG != 0) == jammed


def test_jammed_observed_attacks_in_a_whole_game_pass_the_checker():
    import copy

    from dustsim.errors import DustsimError
    from dustsim.play import battle as B
    from dustsim.review.replay_rules import check_log_on_board

    g = _jammed_game(sq(2, 5), "")
    found = None
    for seed in range(12, 18):  # seed 15: the Jammer comes within range 6 of the observer
        log = B.event_log(g.spec, seed=seed)
        check_log_on_board(log)
        found = found or next(((log, i) for i, e in enumerate(log["events"])
                               if e.get("jammed")), None)
    assert found is not None
    log, i = found
    assert "L3567" in log["events"][i]["text"] and log["events"][i]["observer"] == OBS
    bad = copy.deepcopy(log)
    for u in bad["units"]:
        u["rules"] = [r for r in u.get("rules") or () if r != "Jammer"]
    with pytest.raises(DustsimError, match="L3567"):
        check_log_on_board(bad)
