"""Naval Unit, Interrogate, Execute and Assault Vehicle on the grid (issue 23,
:mod:`dustsim.play.battle_rules`): hand-built cards, scripted dice, expectations derived by
hand from seed 003 (and the BattleScribe rule for Assault Vehicle).

Faces: P (bloc), T (target), S (shield). Hits on P (L672); close-combat hits take no save
(L765); initiative: most P wins, ties by T (L337)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from test_battle_carry import Game as CarryGame
from test_battle_carry import shooter, truck
from test_battle_carry import squad as carry_squad
from test_battle_rules import CLAW, GUN, Game, W, spec_on, sq, unit, weapon

from dustsim.data.cards import Card
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, H_UNITS, H_WS, ST_ACT, ST_MODELS, ST_STUN, U_W0
from dustsim.rules.skills import SKILL_RULES


def squad(name, models, *weapons, skills=()):
    return Card(name=name, edition="dust-1947", kind="squad", armour="I1", ap=10,
                models=models, move=2, march_move=4, weapons=weapons, skills=tuple(skills))


def test_the_rows_are_played_or_decided():
    for name in ("naval unit", "interrogate", "execute", "assault vehicle"):
        assert SKILL_RULES[name].status == "played", name
    sea = SKILL_RULES["sealifter"]
    assert sea.status == "not played" and "Decision" in sea.reason and "L538-548" in sea.lines


# -- Naval Unit ------------------------------------------------------------------------------------
def test_naval_unit_free_attack_after_its_march():
    # a range-2 gun, B 6 squares away: only a March (4) brings it within range 2; then a
    # free Attack (L3609) with its dice: one die, P: one hit
    for skills, attacks in ((("Naval Unit",), True), ((), False)):
        boat = unit("Boat", weapon({"I1": "1/1"}, range_="2"), kind="vehicle", track=3,
                    skills=skills)
        b = unit("B", weapon({"I1": "1/1"}, range_="1"))
        g = Game(spec_on(BD.open_board(W, 6), [boat], [b]), [sq(0, 2), sq(6, 2)],
                 faces="P" + "S" * 30)
        g.activate(0)
        ev = g.events()
        assert "march" in ev
        assert ("attack" in ev) == attacks, skills
        if attacks:
            k = ev.index("attack")
            assert ev.index("march") < k and int(g.log[k, BK.L_X]) == BK.WHY_NAVAL
            assert B.WHY[int(BK.WHY_NAVAL)].startswith("Naval Unit")


# -- Interrogate -----------------------------------------------------------------------------------
def _initiative(g):
    win, pos = BK._initiative_roll(g.rng, g.buf, np.int64(0), BK.ON, g.m)
    return int(win), int(pos)


def test_interrogate_four_initiative_dice_after_a_hero_falls_in_close_combat():
    tina = unit("Tina", CLAW, skills=("Interrogate",))
    foe = unit("Foe", GUN)  # a lone one-point hero: its improvised weapon strikes back
    # close combat: Tina's claw P (a hit, no save: Foe is eliminated); Foe's die S misses;
    # then the initiative: A's four dice S S S P (one P) against B's three S S S
    g = Game(spec_on(BD.open_board(W, 6), [tina], [foe]), [sq(2, 2), sq(3, 2)],
             faces="PS" + "SSSP" + "SSS")
    m = g.m
    m[m[0, H_WS] + m[m[0, H_UNITS] + 0, U_W0], BK.WS_TGT] = 1
    assert not BR.interrogated(m, 0)
    BK._attack(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log,
               np.int64(0), BK.OFF, BK.OFF, BK.A_ATTACK)
    assert g.left(1) == 0 and BR.interrogated(m, 0) and not BR.interrogated(m, 1)
    g.buf = g.buf[2:].copy()
    assert _initiative(g) == (0, 7)  # seven dice: four for A, three for B; A wins on its P
    BK._reset(m)  # a new game: the mark goes (L3563: for the rest of *this* game)
    assert not BR.interrogated(m, 0)


def test_without_interrogate_three_dice_each():
    g = Game(spec_on(BD.open_board(W, 6), [unit("Tina", CLAW)], [unit("Foe", GUN)]),
             [sq(2, 2), sq(3, 2)], faces="SSS" + "PSS")
    assert _initiative(g)[0] == 1  # B's P among the six dice


# -- Execute ---------------------------------------------------------------------------------------
def test_execute_eliminates_a_soldier_of_a_stunned_unit_in_range_one():
    tina = unit("Tina", GUN, skills=("Execute",))
    for stunned, left in ((True, 2), (False, 3)):
        g = Game(spec_on(BD.open_board(W, 6), [tina], [squad("Foe", 3, GUN)]),
                 [sq(2, 2), sq(3, 2)], faces="S" * 40)
        g.m[g.m[0, H_ST] + 1, ST_STUN] = int(stunned)
        g.activate(0)
        ev = g.events()
        assert ("special" in ev) == stunned
        if stunned:
            r = g.log[ev.index("special")]
            assert r[BK.L_X] == BK.SP_EXECUTE and r[BK.L_TARGET] == 1 and r[BK.L_CAS] == 1
            assert B.SPECIALS[int(BK.SP_EXECUTE)] == "execute"
        # its one action left fires (S: no hit), so only the Execute takes a soldier
        assert int(g.m[g.m[0, H_ST] + 1, ST_MODELS]) == left


def test_execute_takes_a_joined_hero_first():
    from dustsim.play.duel_kernel import ST_HERO
    from dustsim.play.policies import get_policy

    board = BD.open_board(W, 6)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    spec = B.compile_battle([DuelUnit(unit("Tina", GUN, skills=("Execute",)))],
                            [DuelUnit(squad("Foe", 3, GUN), hero=unit("Cap", GUN, track=2))],
                            setup, get_policy("advance"), attacker=0)
    g = Game(spec, [sq(2, 2), sq(3, 2)], faces="S" * 40)
    g.m[g.m[0, H_ST] + 1, ST_STUN] = 1
    g.activate(0)
    r = g.log[g.events().index("special")]
    assert (int(r[BK.L_CAS]), int(r[BK.L_DAMAGE])) == (0, 2)  # the hero's two points
    assert int(g.m[g.m[0, H_ST] + 1, ST_HERO]) == 0
    assert int(g.m[g.m[0, H_ST] + 1, ST_MODELS]) == 3


def test_execute_out_of_range_one_does_nothing_and_an_executed_officer_interrogates():
    tina = unit("Tina", GUN, skills=("Execute", "Interrogate"))
    g = Game(spec_on(BD.open_board(W, 6), [tina], [squad("Foe", 3, GUN)]),
             [sq(2, 2), sq(4, 2)], faces="S" * 40)  # range 2
    g.m[g.m[0, H_ST] + 1, ST_STUN] = 1
    g.activate(0)
    assert "special" not in g.events()
    # a one-soldier officer squad, Stunned, adjacent: executed, its unit (and officer) falls
    g = Game(spec_on(BD.open_board(W, 6), [tina], [squad("Cmd", 1, GUN, skills=("Officer",))]),
             [sq(2, 2), sq(3, 2)], faces="S" * 40)
    g.m[g.m[0, H_ST] + 1, ST_STUN] = 1
    g.activate(0)
    ev = g.events()
    assert ev[ev.index("special") + 1] == "destroyed" and g.left(1) == 0
    assert BR.interrogated(g.m, 0)


# -- Assault Vehicle -------------------------------------------------------------------------------
def test_assault_vehicle_passengers_dismount_after_it_activated():
    for skills, may in ((("Assault Vehicle",), True), ((), False)):
        car = replace(truck(), skills=truck().skills + skills)
        g = CarryGame([DuelUnit(car), DuelUnit(carry_squad(), transport=0)],
                      [DuelUnit(shooter())], [sq(2, 2), -1, sq(6, 2)], faces="S" * 40)
        g.m[g.m[0, H_ST] + 0, ST_ACT] = 1  # the truck has activated this turn
        assert bool(BK._wants_off(g.m, g.spec.bd, 1)) == may
        g.activate(1)
        assert ("dismount" in g.events()) == may


def test_replay_checker_takes_an_execute_in_range_one_and_refuses_one_beyond():
    import copy

    import pytest

    from dustsim.errors import DustsimError
    from dustsim.review.replay_rules import check_log_on_board

    spec = spec_on(BD.open_board(W, 6), [squad("A", 5, GUN)], [squad("B", 5, GUN)],
                   policy="advance")
    log = next(lg for lg in (B.event_log(spec, s) for s in range(6))
               if any(e["action"] == "close-combat" for e in lg["events"]))
    k = next(i for i, e in enumerate(log["events"]) if e["action"] == "close-combat")
    e = log["events"][k]
    ex = {"turn": e["turn"], "side": e["side"], "unit": e["unit"], "action": "special",
          "special": "execute", "target": e["target"], "casualties": 1, "text": "execute"}
    good = copy.deepcopy(log)
    good["events"].insert(k, dict(ex))  # the two squads stand side by side there
    check_log_on_board(good)
    far = copy.deepcopy(log)  # at deployment, far apart
    far["events"].insert(1, dict(ex, turn=log["events"][1]["turn"]))
    with pytest.raises(DustsimError, match="within range 1"):
        check_log_on_board(far)
    friend = copy.deepcopy(log)
    friend["events"].insert(k, dict(ex, target=e["unit"]))
    with pytest.raises(DustsimError, match="enemy unit"):
        check_log_on_board(friend)
