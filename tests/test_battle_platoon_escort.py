"""Close Cooperation (issue 23; L1349-1353; :mod:`dustsim.play.battle_platoon` roles
``escort-lead`` / ``escort``) on a hand-built board with scripted dice.

Rules read: when an M7 walker of the platoon activates, the player may select a USMC unit of
it that has not activated, within range 2 of the walker; that unit activates immediately after
the walker's activation, its first action a Move or March Move (L1353). Policy: the escort
worth most AP that can obey the rule (no token, not Stunned, no special action first)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_battle_reserve import spec_with
from test_battle_rules import Game, sq, unit, weapon

from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, ST_TOK

LONG = weapon({"V1": "1/1", "I1": "1/1"}, name="rifle", range_="8")
GRANT = BP.Grant("Close Cooperation", "L1349-1353", "test: platoon 'p' (chart)",
                 ((0, "escort-lead"), (1, "escort"), (2, "escort")))


def _walker_activates(granted=True, near=(3, 1), token=0):
    walker = unit("Devastator", LONG, kind="vehicle", track=9)
    cheap = replace(unit("USMC Rifle Squad", LONG), ap=4)
    dear = replace(unit("USMC Fire Squad", LONG), ap=9)
    spec = spec_with([walker, cheap, dear], [unit("Enemy", LONG, kind="vehicle", track=9)],
                     grants_a=(GRANT,) if granted else ())
    # the enemy at range 5 or more (no reaction, L795) but within the escorts' rifles
    g = Game(spec, [sq(2, 1), sq(1, 1), sq(*near), sq(7, 5)], faces="S" * 200)
    g.m[g.m[0, H_ST] + 2, ST_TOK] = token
    g.activate(0)
    k = g.m[BK.R_B, BK.B_LOGN]
    return [(B.ACTIONS[int(r[BK.L_ACTION])], int(r[BK.L_UNIT]), int(r[BK.L_X]),
             int(r[BK.L_TARGET])) for r in g.log[:k]]


def test_the_escort_worth_most_activates_right_after_the_walker_moving_first():
    ev = _walker_activates()
    i = next(j for j, e in enumerate(ev) if e[0] == "special" and e[2] == BP.SP_ESCORT)
    assert ev[i][1] == 0 and ev[i][3] == 2  # the walker names its dearer escort
    assert all(e[1] == 0 for e in ev[:i])  # after the walker's own activation
    rest = ev[i + 1:]
    assert rest[0][:2] == ("activate", 2)
    first = next(e for e in rest[1:] if e[0] in ("move", "march", "attack", "sustained",
                                                   "nothing", "close-combat"))
    assert first[0] in ("move", "march") and first[1] == 2  # its first action (L1353)
    assert not any(e[0] == "activate" and e[1] == 1 for e in ev)  # one escort only


@pytest.mark.parametrize("granted, near, token, escort", [
    (False, (3, 1), 0, None),  # no advantage: no escort
    (True, (5, 1), 0, 1),  # the dearer squad at range 3: the cheaper one, at range 1, goes
    (True, (3, 1), 1, 1),  # the dearer one is Under Fire: it could not obey the rule
])
def test_who_escorts(granted, near, token, escort):
    ev = _walker_activates(granted, near, token)
    named = [e[3] for e in ev if e[0] == "special" and e[2] == BP.SP_ESCORT]
    assert named == ([] if escort is None else [escort])


def test_m7_walkers_and_usmc_units_get_the_roles():
    from dustsim.army.platoons import _grant_roles

    assert _grant_roles("Close Cooperation", unit("Fireball", LONG, kind="vehicle"), True) == \
        ("escort-lead",)
    marine = replace(unit("USMC Demolition Squad", LONG, kind="squad"), faction="USMC")
    assert _grant_roles("Close Cooperation", marine, False) == ("escort",)
    assert BP.ADVANTAGES["Close Cooperation"].status == "played"


def test_event_log_names_the_escort_and_the_checker_holds_it():
    import copy

    from dustsim.errors import DustsimError
    from dustsim.review.replay_rules import check_log_on_board

    walker = unit("Devastator", LONG, kind="vehicle", track=9)
    marines = [replace(unit(f"USMC Squad {i}", LONG), ap=5 + i) for i in range(2)]
    spec = spec_with([walker, *marines], [unit("Enemy", LONG, kind="vehicle", track=9),
                                          unit("Enemy 2", LONG, kind="vehicle", track=9)],
                     grants_a=(GRANT,))
    found = None
    for seed in range(6):
        log = B.event_log(spec, seed)
        check_log_on_board(log)  # the escort activates next, a Move or March Move first
        if any(e.get("special") == "close-cooperation" for e in log["events"]):
            found = log
            break
    assert found is not None
    bad = copy.deepcopy(found)
    evs = bad["events"]
    i = next(j for j, e in enumerate(evs) if e.get("special") == "close-cooperation")
    evs[i]["target"] = next(u["id"] for u in bad["units"] if u["side"] == "A"
                            and u["id"] not in (evs[i]["unit"], evs[i]["target"]))
    with pytest.raises(DustsimError, match="L1353"):
        check_log_on_board(bad)  # another unit named than the one that activates next
