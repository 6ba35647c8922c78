"""Inflect Terror (issue 23; L1657-1659; :mod:`dustsim.play.battle_platoon` role ``terror``)
on a hand-built board with scripted dice.

Rules read: a close-combat attack never gives a token of itself (L739); under Inflect Terror,
while Frank von Stein is in play, a Zombie unit's close-combat attack gives its target an Under
Fire token whether or not it hits, Under Fire becomes Suppression, never more than one
Suppression; every unit of the target's side within range 3 with line of sight to the target
takes the same step (L1659; the digest reads it for close combat, section 9). Tokens: 0 none,
1 Under Fire, 2 Suppressed."""

from __future__ import annotations

import pytest
from test_battle_reserve import spec_with, tank
from test_battle_rules import CLAW, GUN, Game, sq, unit

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, H_WS, OFF, ON, ST_SINGLE, ST_TOK
from dustsim.play.duel_layout import H_UNITS, U_W0

GRANT = BP.Grant("Inflect Terror", "L1657-1659", "test: platoon 'p' (chart)",
                 ((0, "terror"), (1, "holds"), (1, "terror")))


def _game(granted=True):
    zombie = unit("Zombie", CLAW, skills=("Zombie",))
    frank = unit("Frank", GUN, skills=("Zombie",))
    spec = spec_with([zombie, frank], [tank(n, track=9) for n in ("Target", "Near", "Far")],
                     grants_a=(GRANT,) if granted else ())
    # the target beside the zombie; Near at range 2 from it in the open; Far at range 4
    return Game(spec, [sq(2, 2), sq(0, 0), sq(3, 2), sq(5, 2), sq(7, 5)], faces="S" * 80)


def _claw(g):
    m = g.m
    w = m[m[0, H_UNITS] + 0, U_W0]
    m[m[0, H_WS] + w, BK.WS_TGT] = 2
    m[m[0, H_WS] + w, BK.WS_COV] = 0
    BK._attack(g.rng, g.buf, 0, ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log, 0, OFF, OFF,
               BK.A_ATTACK)


def _tokens(g):
    return [int(g.m[g.m[0, H_ST] + u, ST_TOK]) for u in (2, 3, 4)]


def test_close_combat_steps_the_target_and_its_friends_in_range_3_and_sight():
    g = _game()
    _claw(g)  # every die a miss (S): no hit, no damage
    assert _tokens(g) == [1, 1, 0]  # Under Fire on the target and Near; Far is at range 4
    _claw(g)
    assert _tokens(g) == [2, 2, 0]  # Under Fire becomes Suppression
    _claw(g)
    assert _tokens(g) == [2, 2, 0]  # never more than one Suppression
    k = g.m[BK.R_B, BK.B_LOGN]
    marked = [(int(g.log[i, BK.L_UNIT]), int(g.log[i, BK.L_TARGET])) for i in range(k)
              if g.log[i, BK.L_ACTION] == BK.A_TOKEN and g.log[i, BK.L_X] == BP.WHY_TERROR]
    assert marked == [(2, 0), (3, 0), (2, 0), (3, 0)]


@pytest.mark.parametrize("granted, frank_alive", [(False, True), (True, False)])
def test_no_terror_without_the_advantage_or_once_frank_is_gone(granted, frank_alive):
    g = _game(granted)
    if not frank_alive:
        g.m[g.m[0, H_ST] + 1, ST_SINGLE] = 0  # Frank von Stein destroyed
    _claw(g)
    assert _tokens(g) == [0, 0, 0]  # close combat gives no token of itself (L739)


def test_zombie_units_and_frank_get_the_roles():
    from dustsim.army.platoons import _grant_roles

    frank = unit("Frank Von Stein", GUN, skills=("Zombie",))
    squad = unit("Zombie Grenadier Squad", CLAW, kind="squad", skills=("Zombie",))
    assert _grant_roles("Inflect Terror", frank, True, (frank,)) == ("holds", "terror")
    assert _grant_roles("Inflect Terror", squad, False, (squad,)) == ("terror",)
    assert _grant_roles("Inflect Terror", unit("Grenadier", GUN), False) == ()
    assert BP.ADVANTAGES["Inflect Terror"].status == "played"


def test_event_log_names_inflect_terror_and_the_checker_holds_it():
    import copy

    from dustsim.errors import DustsimError
    from dustsim.play import battle as B
    from dustsim.review.replay_rules import check_log_on_board

    zombies = [unit(f"Zombie {i}", CLAW, skills=("Zombie",), move=3) for i in range(3)]
    spec = spec_with([*zombies, unit("Frank", GUN, skills=("Zombie",))],
                     [tank(n, track=3) for n in ("B1", "B2", "B3")],
                     grants_a=(BP.Grant("Inflect Terror", "L1657-1659", "test: p",
                                        ((0, "terror"), (1, "terror"), (2, "terror"),
                                         (3, "holds"), (3, "terror"))),))
    found = None
    for seed in range(6):
        log = B.event_log(spec, seed)
        check_log_on_board(log)
        tok = [e for e in log["events"] if e.get("by_advantage") == "Inflect Terror"]
        for e in tok:
            assert "L1657-1659" in e["text"] and e["by"] in (0, 1, 2, 3)
        if tok:
            found = log
            break
    assert found is not None
    bad = copy.deepcopy(found)
    e = next(e for e in bad["events"] if e.get("by_advantage"))
    e["by"] = 4  # a unit of the other side, without the advantage
    with pytest.raises(DustsimError, match="L1657-1659"):
        check_log_on_board(bad)
