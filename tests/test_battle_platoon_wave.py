"""Wave Attack (issue 23; L2063-2065; :mod:`dustsim.play.battle_platoon` role ``wave``) on a
hand-built board with scripted dice.

Rules read: an Attack hits on P (L672); a squad in the open saves on P (Infantry Save, L686),
each unsaved hit of a 1-damage weapon eliminating one soldier of armour 1; under Wave Attack,
during the first three turns, each soldier eliminated from a Red Guards infantry unit rolls a
die and on P (the digest's face, 1/3) returns to play (L2065)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_battle_reserve import spec_with, tank
from test_battle_rules import Game, sq, unit, weapon

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, H_WS, OFF, ON, ST_MODELS
from dustsim.play.duel_layout import H_UNITS, U_W0

TRIPLE = weapon({"V1": "3/1", "I1": "3/1"}, name="mg")
GRANT = BP.Grant("Wave Attack", "L2063-2065", "test: platoon 'p' (chart)", ((0, "wave"),))


def _shot(granted, turn, faces, soldiers=4):
    guards = replace(unit("Red Guards Assault Squad", TRIPLE, kind="squad"), models=soldiers)
    spec = spec_with([replace(tank("A"), weapons=(TRIPLE,))], [guards],
                     grants_b=(GRANT,) if granted else ())
    g = Game(spec, [sq(1, 1), sq(3, 1)], faces=faces + "T" * 40)
    m = g.m
    m[BK.R_G, BK.G_TURN] = turn
    w = m[m[0, H_UNITS] + 0, U_W0]
    m[m[0, H_WS] + w, BK.WS_TGT] = 1
    m[m[0, H_WS] + w, BK.WS_COV] = 0
    BK._attack(g.rng, g.buf, 0, ON, m, spec.bd, spec.ls, spec.lq, g.log, 0, OFF, OFF,
               BK.A_ATTACK)
    k = m[BK.R_B, BK.B_LOGN]
    waves = [int(g.log[i, BK.L_HITS]) for i in range(k) if g.log[i, BK.L_ACTION] ==
             BK.A_SPECIAL and g.log[i, BK.L_X] == BP.SP_WAVE]
    destroyed = any(g.log[i, BK.L_ACTION] == BK.A_DESTROYED for i in range(k))
    return int(m[m[0, H_ST] + 1, ST_MODELS]), waves, destroyed


@pytest.mark.parametrize("granted, turn, faces, left, waves", [
    # three hits (PPP), three failed saves (TTT): three soldiers fall; then a die each
    (True, 1, "PPP" + "TTT" + "PTS", 2, [1]),  # one P: one soldier comes forward again
    (True, 3, "PPP" + "TTT" + "PPT", 3, [2]),
    (True, 4, "PPP" + "TTT" + "PPP", 1, []),  # after turn 3: no dice (L2065)
    (False, 1, "PPP" + "TTT" + "PPP", 1, []),
])
def test_soldiers_falling_in_turns_1_to_3_return_on_p(granted, turn, faces, left, waves):
    assert _shot(granted, turn, faces)[:2] == (left, waves)


def test_a_squad_whose_last_soldier_returns_is_not_destroyed():
    # two soldiers, two fall (three hits, the third has no one left), one returns
    left, waves, destroyed = _shot(True, 2, "PPP" + "TTT" + "PT", soldiers=2)
    assert (left, waves, destroyed) == (1, [1], False)
    assert _shot(False, 2, "PPP" + "TTT", soldiers=2)[::2] == (0, True)


def test_red_guards_squads_get_the_role():
    from dustsim.army.platoons import _grant_roles

    squad = unit("Red Guards Assault Squad", TRIPLE, kind="squad")
    assert _grant_roles("Wave Attack", squad, False) == ("wave",)
    assert _grant_roles("Wave Attack", unit("Red Guards Hero", TRIPLE), False) == ()
    assert BP.ADVANTAGES["Wave Attack"].status == "partly played"


def test_event_log_names_wave_attack_and_the_checker_holds_it():
    import copy

    from dustsim.errors import DustsimError
    from dustsim.play import battle as B
    from dustsim.review.replay_rules import check_log_on_board

    guards = [replace(unit(f"Red Guards Squad {i}", TRIPLE, kind="squad"), models=5)
              for i in range(2)]
    spec = spec_with([replace(tank(f"A{i}"), weapons=(TRIPLE,)) for i in range(2)], guards,
                     grants_b=(BP.Grant("Wave Attack", "L2063-2065", "test: p",
                                        ((0, "wave"), (1, "wave"))),))
    found = None
    for seed in range(6):
        log = B.event_log(spec, seed)
        check_log_on_board(log)  # the squads' soldiers as the events say (returned ones too)
        waves = [e for e in log["events"] if e.get("special") == "wave-attack"]
        assert all(e["turn"] <= 3 and "L2063-2065" in e["text"] for e in waves)
        if any(e["returned"] for e in waves):
            found = log
            break
    assert found is not None
    bad = copy.deepcopy(found)
    e = next(e for e in bad["events"] if e.get("special") == "wave-attack")
    e["hits"] = e["returned"] = len(e["dice"]) + 1  # more soldiers back than dice
    with pytest.raises(DustsimError, match="L2065"):
        check_log_on_board(bad)
