"""Night Witches (issue 23; L2037-2041; :mod:`dustsim.play.battle_platoon` role
``stay-down-while``) on a hand-built board with scripted dice.

Rules read: an Attack hits on P (L672); a unit hit takes an Under Fire token (L739); And Stay
Down: a ranged hit gives a Suppression token at once (L3415-3417); Night Witches: as long as
Red Ace (in the Red Star) is in play, she and the platoon's two required units have And Stay
Down (L2041). A hero target in the open saves on P (L686): the save die T fails, the token
comes from the hit either way (L739)."""

from __future__ import annotations

import pytest
from test_battle_reserve import alive, spec_with, tank
from test_battle_rules import GUN, Game, sq, unit

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, H_WS, OFF, ON, ST_SINGLE, ST_TOK
from dustsim.play.duel_layout import H_UNITS, U_W0

GRANT = BP.Grant("Night Witches", "L2037-2041", "test: platoon 'p' (chart)",
                 ((0, "holds"), (0, "stay-down-while"), (1, "stay-down-while")))


def _token_after_hit(granted, shooter, red_star_alive=True):
    spec = spec_with([tank("Red Star", track=9), tank("Striker", track=9)],
                     [unit("Target", GUN, track=9)], grants_a=(GRANT,) if granted else ())
    g = Game(spec, [sq(1, 1), sq(1, 2), sq(4, 2)], faces="PT" * 40)
    m = g.m
    if not red_star_alive:
        m[m[0, H_ST] + 0, ST_SINGLE] = 0
    BK._stay_down(m)  # what every activation start does (and the game's start)
    w = m[m[0, H_UNITS] + shooter, U_W0]
    m[m[0, H_WS] + w, BK.WS_TGT] = 2
    m[m[0, H_WS] + w, BK.WS_COV] = 0
    BK._attack(g.rng, g.buf, 0, ON, m, spec.bd, spec.ls, spec.lq, g.log, shooter, OFF, OFF,
               BK.A_ATTACK)
    assert alive(g, 2)
    return int(m[m[0, H_ST] + 2, ST_TOK])


@pytest.mark.parametrize("granted, shooter, red_star_alive, token", [
    (True, 0, True, 2),  # Red Ace's Red Star: Suppressed at once
    (True, 1, True, 2),  # a required aircraft too
    (False, 1, True, 1),  # the plain rule: Under Fire (L739)
    (True, 1, False, 1),  # the Red Star gone: no And Stay Down any more
])
def test_hits_suppress_at_once_while_red_ace_is_in_play(granted, shooter, red_star_alive,
                                                       token):
    assert _token_after_hit(granted, shooter, red_star_alive) == token


def test_the_red_star_and_the_required_aircraft_get_the_roles():
    from dustsim.army.platoons import _grant_roles

    star = unit("The Red Star", GUN, kind="aircraft")
    ace = unit("Red Ace", GUN)
    assert _grant_roles("Night Witches", star, True, (star, ace)) == ("holds", "stay-down-while")
    assert _grant_roles("Night Witches", unit("Burner", GUN, kind="aircraft"), False) == \
        ("stay-down-while",)
    assert BP.ADVANTAGES["Night Witches"].status == "played"


def test_event_log_names_night_witches_on_suppressing_hits():
    from dustsim.play import battle as B
    from dustsim.review.replay_rules import check_log_on_board

    spec = spec_with([tank("Red Star", track=4), tank("Striker", track=4)],
                     [tank("Enemy", track=4), tank("Enemy 2", track=4)], grants_a=(GRANT,))
    named = 0
    for seed in range(3):
        log = B.event_log(spec, seed)
        check_log_on_board(log)
        for e in log["events"]:
            if e.get("advantage") == "Night Witches":
                assert e["unit"] in (0, 1) and e["token"] == "suppressed"
                assert "L2037-2041" in e["text"]
                named += 1
    assert named > 0
