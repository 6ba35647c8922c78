"""Lightning Strike (issue 23; L1165-1169; :mod:`dustsim.play.battle_platoon` role
``lightning``) on a hand-built board with scripted dice.

Rules read: an Attack hits on P (L672); an infantry unit in the open saves on P (Infantry
Save, L686); in game turn 1 a Heavy Ranger unit of a complete Heavy Ranger platoon passes its
infantry saves on two faces, P and S (L1169; the digest's faces, 2/3). So one hit (P) then a
save die of S: saved in turn 1 under the advantage, not otherwise; a save die of T fails
either way; P saves either way."""

from __future__ import annotations

import pytest
from test_battle_reserve import alive, spec_with, tank
from test_battle_rules import GUN, Game, sq, unit

from dustsim.army.platoons import _grant_roles
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_WS, OFF, ON
from dustsim.play.duel_layout import H_UNITS, U_W0

GRANT = BP.Grant("Lightning Strike", "L1165-1169", "test: platoon 'p' (chart)",
                 ((0, "lightning"),))


def _shot(turn, granted, faces):
    ranger = unit("Heavy Ranger", GUN)  # infantry, one model, damage track 1
    spec = spec_with([tank("A")], [ranger], grants_b=(GRANT,) if granted else ())
    g = Game(spec, [sq(1, 1), sq(3, 1)], faces=faces)
    m = g.m
    m[BK.R_G, BK.G_TURN] = turn
    for t in range(1, turn + 1):  # what the game loop does as turns 1 and 2 start
        if t <= 2:
            BK._lightning(m, ON if t == 1 else OFF)
    w = m[m[0, H_UNITS] + 0, U_W0]
    m[m[0, H_WS] + w, BK.WS_TGT] = 1
    m[m[0, H_WS] + w, BK.WS_COV] = 0
    BK._attack(g.rng, g.buf, 0, ON, m, spec.bd, spec.ls, spec.lq, g.log, 0, OFF, OFF,
               BK.A_ATTACK)
    return alive(g, 1)


@pytest.mark.parametrize("turn, granted, save_die, survives", [
    (1, True, "S", True),   # Lightning Strike: P or S in turn 1
    (1, False, "S", False),  # the plain infantry save: P only
    (2, True, "S", False),  # turn 2: the plain save again
    (1, True, "T", False),  # T never saves in the open
    (1, False, "P", True),
    (2, True, "P", True),
])
def test_infantry_save_on_p_and_s_in_turn_1_only(turn, granted, save_die, survives):
    assert _shot(turn, granted, "P" + save_die + "T" * 20) is survives


def test_heavy_ranger_units_get_the_role_and_the_table_says_played():
    ranger = unit("Heavy Ranger Assault Squad", GUN, kind="squad")
    assert _grant_roles("Lightning Strike", ranger, False) == ("lightning",)
    assert _grant_roles("Lightning Strike", unit("Ranger Combat Squad", GUN), False) == ()
    r = BP.ADVANTAGES["Lightning Strike"]
    assert r.status == "played" and "OPEN-23" in r.decision


def test_event_log_names_lightning_strike_on_turn_1_attacks_and_the_checker_holds_it():
    import copy

    from dustsim.errors import DustsimError
    from dustsim.play import battle as B
    from dustsim.review.replay_rules import check_log_on_board

    rangers = [unit("Heavy Ranger", GUN), unit("Heavy Ranger 2", GUN)]
    spec = spec_with([tank("A"), tank("A2")], rangers, grants_b=(
        BP.Grant("Lightning Strike", "L1165-1169", "test: platoon 'p' (chart)",
                 ((0, "lightning"), (1, "lightning"))),))
    named = 0
    for seed in range(4):
        log = B.event_log(spec, seed)
        check_log_on_board(log)
        for e in log["events"]:
            hit_ranger = e["action"] in ("attack", "sustained") and e["target"] in (2, 3)
            if hit_ranger and e["turn"] == 1 and not e["cover"]:
                assert e["target_advantage"] == "Lightning Strike" and "L1165-1169" in e["text"]
                named += 1
            else:
                assert "target_advantage" not in e
    assert named > 0
    bad = copy.deepcopy(log)
    e = next(e for e in bad["events"] if e["action"] in ("attack", "sustained")
             and e["target"] in (2, 3) and e["turn"] > 1)
    e["target_advantage"] = "Lightning Strike"  # claimed after turn 1
    with pytest.raises(DustsimError, match="L1169"):
        check_log_on_board(bad)
