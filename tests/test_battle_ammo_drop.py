"""An officer's Ammo Drop on the grid (Dust 1947 L3717-3721): one die succeeding on P or T
(2/3: the digest's two symbols of the lost text, as Get Up's, L3741); a friendly ground unit
within range 2 and sight (anywhere by radio, L3721) whose Limited Ammo ran dry gets its full
supply back. Expected states from the lines, with scripted dice."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from test_battle_rules import GUN, Game, spec_on, sq, unit, weapon
from test_battle_rules import H as BH
from test_battle_rules import W as BW
from test_battle_rules_weapons import FRIEND, OFF_U, _special

from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.duel_kernel import H_UNITS, H_WS, U_W0

PISTOL = weapon({"V1": "1/1", "I1": "1/1"}, name="pistol", range_="1")
ROCKET = replace(weapon({"V1": "1/1", "I1": "1/1"}, name="rocket"), ammo=2,
                 keywords=("limited-ammo",))


def _game(faces, friend_at, *, armour="I1", left=0):
    """The officer on c1 r1, a friend with a 2-box Limited Ammo rocket (``left`` boxes left),
    a foe on c5 r4."""
    officer = replace(unit("Officer", PISTOL, skills=("Officer",)), armour=armour)
    friend = replace(unit("Friend", ROCKET, track=3), ap=10)
    g = Game(spec_on(BD.open_board(BW, BH), [officer, friend], [unit("Foe", GUN, track=3)],
                     policy="cautious"), [sq(1, 1), friend_at, sq(5, 4)], faces=faces)
    g.m[_rocket(g), 0] = left  # WS_AMMO
    return g


def _rocket(g):
    return g.m[0, H_WS] + g.m[g.m[0, H_UNITS] + FRIEND, U_W0]


@pytest.mark.parametrize("face, full", [("P", True), ("T", True), ("S", False)])
def test_ammo_drop_refills_a_dry_unit_on_p_or_t(face, full):
    g = _game(face + "S" * 60, sq(2, 2))
    g.activate(OFF_U)
    drop = _special(g, BK.SP_AMMO_DROP)
    assert len(drop) == 1 and drop[0][BK.L_TARGET] == FRIEND
    assert drop[0][BK.L_D1] - drop[0][BK.L_D0] == 1 and drop[0][BK.L_HITS] == int(full)
    assert int(g.m[_rocket(g), 0]) == (2 if full else 0)  # a full supply, 2 boxes (L3719)


@pytest.mark.parametrize("at, armour, left", [
    (sq(4, 1), "I1", 0),  # range 3, no radio: out of reach (L3719)
    (sq(2, 2), "I1", 1),  # one box left: not dry, no drop (the policy)
])
def test_no_ammo_drop_out_of_reach_or_while_ammunition_lasts(at, armour, left):
    g = _game("P" + "S" * 60, at, armour=armour, left=left)
    g.activate(OFF_U)
    assert not _special(g, BK.SP_AMMO_DROP)
    assert int(g.m[_rocket(g), 0]) == left


def test_a_radio_calls_an_ammo_drop_anywhere():
    # infantry armour 3: the officer has a radio (L3713); the friend stands at range 5 (L3721)
    g = _game("T" + "S" * 60, sq(6, 1), armour="I3")
    g.activate(OFF_U)
    drop = _special(g, BK.SP_AMMO_DROP)
    assert len(drop) == 1 and drop[0][BK.L_HITS] == 1
    assert int(g.m[_rocket(g), 0]) == 2


def test_ammo_drop_events_read_and_pass_the_replay_checker():
    """Whole games: the friend spends its one box and the officer calls a drop; the event says
    so, the checker accepts it and refuses a drop for an enemy."""
    from dustsim.play.policies import get_policy
    from dustsim.review.replay_rules import check_log_on_board

    board = BD.open_board(BW, BH)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=6)
    one_box = replace(ROCKET, ammo=1)
    side_a = [replace(unit("Officer", PISTOL, skills=("Officer",)), armour="I3"),
              replace(unit("Friend", one_box, track=3), ap=10)]
    side_b = [unit("Foe", GUN, track=4), unit("Foe2", GUN, track=4)]
    from dustsim.play.duel import DuelUnit

    spec = B.compile_battle([DuelUnit(c) for c in side_a], [DuelUnit(c) for c in side_b],
                            setup, get_policy("advance"), attacker=0)
    found = None
    for seed in range(20):
        log = B.event_log(spec, seed=seed)
        check_log_on_board(log)
        found = found or next(((log, i) for i, e in enumerate(log["events"])
                               if e.get("special") == "ammo-drop"), None)
    assert found is not None
    log, i = found
    ev = log["events"][i]
    assert ev["target"] == 1 and "Ammo Drop, L3717-3721" in ev["text"]
    bad = copy.deepcopy(log)
    bad["events"][i]["target"] = 2  # Foe
    with pytest.raises(DustsimError, match="friendly unit"):
        check_log_on_board(bad)
