"""Knockout (issue 23; L1191-1195; :mod:`dustsim.play.battle_platoon` roles ``knockout`` /
``knocker``) on a hand-built board with scripted dice.

Rules read: when a unit of the Taskforce Rhino platoon makes a successful close-combat attack
on an enemy unit, the player may select Rhino or a Heavy Ranger Assault Squad within range 6 of
that enemy: it activates immediately after the attacking unit's activation, its first action a
March Move towards the enemy, followed by its Charge (L3459) at that enemy (L1195). Hits on P
(L672); every face P here, so the close-combat attack hits."""

from __future__ import annotations

import pytest
from test_battle_reserve import spec_with
from test_battle_rules import CLAW, Game, sq, unit

from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP

GRANT = BP.Grant("Knockout", "L1191-1195", "test: platoon 'p' (chart)",
                 ((0, "knockout"), (1, "knocker")))


def _fight(granted=True, faces="P", rhino=(0, 4)):
    brawler = unit("Ranger", CLAW, track=9)
    rhino_u = unit("Rhino", CLAW, skills=("Charge",), track=9)
    spec = spec_with([brawler, rhino_u], [unit("Enemy", CLAW, kind="vehicle", track=9)],
                     grants_a=(GRANT,) if granted else (), height=12)
    g = Game(spec, [sq(3, 2), sq(*rhino), sq(4, 2)], faces=faces * 300)
    g.activate(0)
    k = g.m[BK.R_B, BK.B_LOGN]
    return [(B.ACTIONS[int(r[BK.L_ACTION])], int(r[BK.L_UNIT]), int(r[BK.L_X]),
             int(r[BK.L_TARGET]), int(r[BK.L_TOKEN])) for r in g.log[:k]]


def test_a_close_combat_hit_calls_rhino_to_march_and_charge_the_enemy():
    ev = _fight()
    cc = [e for e in ev if e[0] == "close-combat" and e[1] == 0]
    assert cc and cc[0][3] == 2  # the Ranger hit the enemy in close combat
    i = next(j for j, e in enumerate(ev) if e[0] == "special" and e[2] == BP.SP_ESCORT)
    assert ev[i][1] == 0 and ev[i][3:] == (1, 1)  # the Ranger calls Rhino (Knockout's mark)
    assert all(e[1] != 1 for e in ev[:i])  # after the Ranger's activation
    rest = [e for e in ev[i + 1:] if e[1] == 1]
    assert rest[0][0] == "activate"
    assert rest[1][0] == "march"  # its first action (L1195)
    charge = [e for e in rest if e[0] == "close-combat"]
    assert charge and charge[0][3] == 2 and charge[0][2] == int(BK.WHY_CHARGE)


@pytest.mark.parametrize("granted, faces, rhino, called", [
    (False, "P", (0, 4), 0),  # no advantage
    (True, "S", (0, 4), 0),  # the close-combat attack missed: nothing to follow up
    (True, "P", (4, 8), 1),  # range 6 from the enemy: called
    (True, "P", (4, 9), 0),  # range 7: not called
])
def test_who_is_called(granted, faces, rhino, called):
    ev = _fight(granted, faces, rhino)
    assert len([e for e in ev if e[0] == "special" and e[2] == BP.SP_ESCORT]) == called


def test_rhino_and_the_platoon_get_the_roles():
    from dustsim.army.platoons import _grant_roles

    rhino = unit("Rhino", CLAW)
    assert _grant_roles("Knockout", rhino, True, (rhino,)) == ("knocker",)
    assert _grant_roles("Knockout", unit("Heavy Ranger Squad", CLAW), False) == ("knockout",)
    assert BP.ADVANTAGES["Knockout"].status == "played"


def test_event_log_names_knockout_and_the_checker_holds_it():
    import copy

    from dustsim.errors import DustsimError
    from dustsim.review.replay_rules import check_log_on_board

    brawlers = [unit(f"Ranger {i}", CLAW, track=4, move=3) for i in range(2)]
    spec = spec_with([*brawlers, unit("Rhino", CLAW, skills=("Charge",), track=6, move=3)],
                     [unit(f"Enemy {i}", CLAW, kind="vehicle", track=4) for i in range(2)],
                     grants_a=(BP.Grant("Knockout", "L1191-1195", "test: p",
                                        ((0, "knockout"), (1, "knockout"), (2, "knocker"))),))
    found = None
    for seed in range(8):
        log = B.event_log(spec, seed)
        check_log_on_board(log)  # the unit called activates next and marches first
        if any(e.get("special") == "knockout" for e in log["events"]):
            found = log
            break
    assert found is not None
    bad = copy.deepcopy(found)
    evs = bad["events"]
    i = next(j for j, e in enumerate(evs) if e.get("special") == "knockout")
    j = next(j for j in range(i + 1, len(evs)) if evs[j]["action"] == "activate")
    evs[j]["unit"] = evs[i]["unit"]  # another unit activates instead of the one called
    with pytest.raises(DustsimError, match="L1195"):
        check_log_on_board(bad)
