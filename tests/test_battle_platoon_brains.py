"""BRAINSSSS! (issue 23; L1630-1634; :mod:`dustsim.play.battle_platoon` role ``swarm``): a
Mindless Zombie unit of a Zombie Swarm that starts its activation within range 3 of a friendly
non-Zombie unit makes an Attack action against a friendly non-Zombie unit (policy
brains-least-harm: the friend it harms least).

Scripted dice: a close-combat claw hits on P (L672); a hero in the open saves on P (L686;
close combat ignores cover, L765); the friend's retaliation (L763-765) rolls after the
attack's dice. On an 8 x 6 open board a straight row's range is the column difference."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from test_battle_reserve import spec_with
from test_battle_rules import CLAW, GUN, Game, sq, unit

from dustsim.data.cards import Card
from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, ST_SINGLE
from dustsim.review.replay_rules import check_log_on_board

ZED, FRIEND, OTHER, FOE = 0, 1, 2, 3


def _friend(name, ap, skills=()):
    return Card(name=name, edition="dust-1947", kind="hero", armour="I1", ap=ap,
                damage_track=3, move=2, march_move=4, weapons=(GUN,), skills=skills)


def _game(friend_sq, faces, friend=None, other=None, other_sq=None):
    zed = unit("Mindless Zed", CLAW, skills=("Mindless Zombie", "Zombie"), track=2)
    grant = BP.Grant("BRAINSSSS!", "L1630-1634", "test: platoon 'p' (chart)",
                     ((ZED, "charge"), (ZED, "swarm")))
    spec = spec_with([zed, friend or _friend("Friend", 5), other or _friend("Other", 40)],
                     [unit("Foe", CLAW)], grants_a=(grant,))  # a claw: it never reacts
    return Game(spec, [sq(2, 2), friend_sq, other_sq if other_sq is not None else sq(7, 0),
                       sq(7, 5)], faces=faces + "S" * 40)


def _rows(g, action):
    k = g.m[BK.R_B, BK.B_LOGN]
    return [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] == action]


def _track(g, u):
    return int(g.m[g.m[0, H_ST] + u, ST_SINGLE])


def test_a_zombie_near_a_friend_moves_and_attacks_it():
    # the friend on c4 r2 is at range 2 (within 3): the zombie Moves beside it and claws it:
    # P hits, the friend's save S fails: 3 - 1 = 2; its retaliation then rolls S (misses)
    g = _game(sq(4, 2), "PS")
    g.activate(ZED)
    cc = [r for r in _rows(g, BK.A_CC) if r[BK.L_UNIT] == ZED]
    assert len(_rows(g, BK.A_MOVE)) == 1 and len(cc) == 1
    assert cc[0][BK.L_TARGET] == FRIEND and cc[0][BK.L_X] == BP.WHY_BRAINS
    assert _track(g, FRIEND) == 2 and _track(g, ZED) == 2


@pytest.mark.parametrize("case", ["range-4", "zombie-friend"])
def test_no_forced_attack_beyond_range_3_or_on_a_zombie(case):
    friend = _friend("Zed Two", 5, ("Zombie",)) if case == "zombie-friend" else None
    g = _game(sq(6, 2) if case == "range-4" else sq(3, 2), "PS", friend=friend)
    g.activate(ZED)
    assert not any(r[BK.L_X] == BP.WHY_BRAINS for r in _rows(g, BK.A_CC))
    assert _track(g, FRIEND) == 3


def test_the_policy_picks_the_friend_it_harms_least():
    # both friends adjacent: Other is worth 40 AP, Friend 5 (the same track and save): the
    # claw's value on Friend is the smaller, so Friend is attacked
    g = _game(sq(3, 2), "PS", other_sq=sq(1, 2))
    g.activate(ZED)
    cc = [r for r in _rows(g, BK.A_CC) if r[BK.L_UNIT] == ZED]
    assert len(cc) == 1 and cc[0][BK.L_TARGET] == FRIEND
    assert not _rows(g, BK.A_MOVE)  # already beside it: no Move
    assert _track(g, OTHER) == 3


def test_the_roles_follow_the_text():
    from dustsim.army.platoons import _grant_roles

    zed = unit("Mindless Zed", CLAW, skills=("Mindless Zombie",))
    assert _grant_roles("BRAINSSSS!", zed, False) == ("charge", "swarm")
    assert _grant_roles("BRAINSSSS!", unit("Frank", CLAW, skills=("Zombie",)), False) == ()
    assert BP.ADVANTAGES["BRAINSSSS!"].status == "played"


@pytest.fixture(scope="module")
def brains_log():
    zed = replace(unit("Mindless Zed", CLAW, skills=("Mindless Zombie", "Zombie"), track=2),
                  ap=3)
    grant = BP.Grant("BRAINSSSS!", "L1630-1634", "test: p", ((0, "charge"), (0, "swarm")))
    spec = spec_with([zed, _friend("Friend", 5)], [unit("Foe", GUN), unit("Foe 2", GUN)],
                     grants_a=(grant,))
    for seed in range(20):
        log = B.event_log(spec, seed)
        if any(e.get("rule") == "BRAINSSSS!" for e in log["events"]):
            return log
    pytest.fail("no BRAINSSSS! attack in 20 games")


def test_a_game_with_the_swarm_passes_the_checker(brains_log):
    check_log_on_board(brains_log)
    ev = next(e for e in brains_log["events"] if e.get("rule") == "BRAINSSSS!")
    assert ev["target"] == 1 and "L1630-1634" in ev["text"]


@pytest.mark.parametrize("breach", ["no-rule", "retaliation"])
def test_the_checker_refuses_friendly_fire_without_the_rule(brains_log, breach):
    bad = copy.deepcopy(brains_log)
    ev = next(e for e in bad["events"] if e.get("rule") == "BRAINSSSS!")
    if breach == "no-rule":
        del ev["rule"]
        ev.pop("advantage", None)
        match = "own side"
    else:  # the zombie's attack passed off as a retaliation: nobody attacked it
        ev["rule"] = "Retaliation against BRAINSSSS!"
        ev.pop("advantage", None)
        match = "L1634"
    with pytest.raises(DustsimError, match=match):
        check_log_on_board(bad)
