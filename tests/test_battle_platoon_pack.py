"""Pack Hunters (issue 23; L1817-1821; :mod:`dustsim.play.battle_platoon` role ``pack``) on a
hand-built board with scripted dice.

Rules read: a unit that has not acted may react to an enemy's triggering combination within
range 4 (L795-813): two reactive dice, successes on P (L805), two successes a Sustained Attack,
one an Attack, none a Nothing (L803-809). Pack Hunters: when a KV-47 of the platoon sees the
enemy within range 4, another KV-47 of the platoon that has not acted may react to it, its
reactive dice succeeding on P and S (L1821; the digest's two faces)."""

from __future__ import annotations

import pytest
from test_battle_reserve import spec_with
from test_battle_rules import Game, sq, unit, weapon

from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, ST_ACT

LONG = weapon({"V1": "1/1", "I1": "1/1"}, name="cannon", range_="8")
GRANT = BP.Grant("Pack Hunters", "L1817-1821", "test: platoon 'p' (chart)",
                 ((0, "pack"), (1, "pack")))


def _walker(name):
    return unit(name, LONG, kind="vehicle", track=9)


def _reaction(granted, faces, mate=(3, 5)):
    # B's first walker stands at range 6 from the mover (beyond 4) in the open row; the second
    # (off that row, not blocking it) at range 2 has acted
    spec = spec_with([unit("Mover", LONG, kind="vehicle", track=9)],
                     [_walker("Nadya"), _walker("Natasha")], grants_b=(GRANT,) if granted else ())
    g = Game(spec, [sq(1, 3), sq(7, 3), sq(*mate)], faces=faces + "S" * 40)
    g.m[g.m[0, H_ST] + 2, ST_ACT] = 1
    BK._react(g.rng, g.buf, 0, BK.ON, g.m, spec.f, spec.bd, spec.ls, spec.lq, g.log, 0)
    k = g.m[BK.R_B, BK.B_LOGN]
    rows = [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] == BK.A_REACTION]
    attacks = [int(g.log[i, BK.L_ACTION]) for i in range(k)
               if g.log[i, BK.L_ACTION] in (BK.A_ATTACK, BK.A_SUSTAINED)]
    return [(int(r[BK.L_UNIT]), int(r[BK.L_HITS])) for r in rows], attacks


@pytest.mark.parametrize("faces, hits, action", [
    ("SS", 2, BK.A_SUSTAINED),  # S counts under Pack Hunters: two successes
    ("PT", 1, BK.A_ATTACK),
    ("TT", 0, None),
])
def test_a_pack_walker_reacts_beyond_range_4_when_its_mate_sees_the_mover(faces, hits, action):
    reactions, attacks = _reaction(True, faces)
    assert reactions == [(1, hits)]
    assert attacks[:1] == ([int(action)] if action is not None else [])


def test_no_reaction_without_the_advantage_or_without_a_mate_seeing_the_mover():
    assert _reaction(False, "SS")[0] == []  # out of its reaction range 4 (L795)
    assert _reaction(True, "SS", mate=(7, 0))[0] == []  # the mate at range 6


def test_kv47_walkers_get_the_role():
    from dustsim.army.platoons import _grant_roles

    assert _grant_roles("Pack Hunters", _walker("Natalya"), False) == ("pack",)
    assert _grant_roles("Pack Hunters", unit("Natalya", LONG), False) == ()  # a walker only
    assert BP.ADVANTAGES["Pack Hunters"].status == "played"
