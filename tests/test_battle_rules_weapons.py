"""Weapon, spotting and command rules in grid battles (issue 23, second round;
:mod:`dustsim.play.battle_rules`): hand-built boards, scripted dice, expectations derived by
hand from seed 003.

Faces: P (bloc), T (target), S (shield). Hits on P (L672); a hero in the open saves on P
(L686); scripted dice are read per line: to-hit dice, the re-rolls of the misses, then one save
die per hit (dustsim.engines.kernel). Range on a straight row is the column difference."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from test_battle_rules import GUN, Game, spec_on, sq, unit, weapon
from test_battle_rules import H as BH
from test_battle_rules import W as BW

from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD
from dustsim.play.duel_kernel import H_ST, ST_SINGLE

WIRE = weapon({"V1": "2/1", "I1": "2/1"}, name="wire", range_="6")
WIRE = type(WIRE)(**{**WIRE.__dict__, "keywords": ("wire-guided",)})


def _target_track(g, u):
    return int(g.m[g.m[0, H_ST] + u, ST_SINGLE])


def _attack(g, u):
    """u declares its lines by the policy (_offence, committed) and takes an Attack action."""
    m = g.m
    BK._occupy(m)
    BK._line_values(m, g.spec.f, np.int64(u), g.val)
    s = int(m[m[0, H_ST] + u, BK.ST_SQ])
    BK._offence(m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, np.int64(u), np.int64(s), BK.ON,
                g.val)
    chosen = int(m[m[0, BK.H_XU] + u, BR.X_WIRE])
    BK._attack(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log,
               np.int64(u), BK.OFF, BK.OFF, BK.A_ATTACK)
    return chosen


# -- wire-guided ---------------------------------------------------------------------------------
@pytest.mark.parametrize("gun_reaches, left", [
    # the gun is out of range (4 < 5): the wire-guided line is fired alone; its two misses
    # (T, S) are re-rolled (L3345 as L793): P, P = 2 hits; the hero saves on P: S, T fail;
    # 2 damage on a track of 3 leaves 1
    (False, 1),
    # the gun reaches too: every line fires together (with the gun's 3 dice that beats the
    # wire line's 2 alone, 5/3 x 2 < 2 + 3), so no re-roll: the wire line's T, S miss; the
    # gun's P, P, S make 2 hits; the saves T, P hold one: 1 damage leaves 2
    (True, 2),
])
def test_wire_guided_fired_alone_rerolls_its_misses(gun_reaches, left):
    gun = weapon({"V1": "3/1", "I1": "3/1"}, name="gun", range_="6" if gun_reaches else "4")
    g = Game(spec_on(BD.open_board(BW, BH), [unit("A", WIRE, gun)],
                     [unit("B", GUN, track=3)]),
             [sq(0, 2), sq(5, 2)], faces="TSPPSTPP")
    chosen = _attack(g, 0)
    assert (chosen >= 0) == (not gun_reaches)
    assert _target_track(g, 1) == left
    k = g.events().index("attack")
    r = g.log[k]
    if gun_reaches:
        assert r[BK.L_X] != BK.WHY_WIRE and bin(int(r[BK.L_WMASK])).count("1") == 2
    else:
        assert r[BK.L_X] == BK.WHY_WIRE and int(r[BK.L_WMASK]) == 1  # the wire line only
        assert r[BK.L_HITS] == 2 and r[BK.L_DAMAGE] == 2
    # the line's own Attack group keeps no re-roll once the attack is over
    m = g.m
    wline = int(m[m[0, 2] + 0, 9])  # U_W0: the wire line is the unit's first
    assert m[BR._group(m, wline, 1, 0, 0), 2] == 0  # G_RR of the Attack variant


def test_wire_guided_rerolls_once_and_the_choice_is_spent():
    """Misses are re-rolled once (L793); the choice holds for one Attack."""
    g = Game(spec_on(BD.open_board(BW, BH), [unit("A", WIRE)], [unit("B", GUN, track=3)]),
             [sq(0, 2), sq(5, 2)], faces="TSTSSS")
    assert _attack(g, 0) >= 0
    # T, S miss; re-rolled T, S miss again: no hit, nothing to save
    assert _target_track(g, 1) == 3
    assert int(g.m[g.m[0, BK.H_XU] + 0, BR.X_WIRE]) == -1


def test_wire_guided_event_text_names_the_rule():
    g = Game(spec_on(BD.open_board(BW, BH), [unit("A", WIRE)], [unit("B", GUN, track=3)]),
             [sq(0, 2), sq(5, 2)], faces="TSPPST")
    _attack(g, 0)
    k = g.events().index("attack")
    assert "Wire-guided" in B.WHY[int(g.log[k, BK.L_X])]


def test_smoke_grenades_lay_one_screen_like_smoke_launchers():
    """Smoke Grenades' own text is in no seed: played as Smoke Launchers (L3651-3653), a
    decision (battle_rules)."""
    squad = unit("A", GUN, skills=("Smoke Grenades",), track=3)
    g = Game(spec_on(BD.open_board(BW, BH), [squad], [unit("B", GUN)], policy="cautious"),
             [sq(1, 1), sq(5, 4)], faces="S" * 40)
    g.activate(0)
    assert g.events().count("special") == 1
    assert g.log[g.events().index("special"), BK.L_X] == BK.SP_SMOKE
    g.m[g.m[0, H_ST] + 0, 5] = 0  # ST_ACT: a new activation
    g.m[BK.R_G, BK.G_TURN] = 3
    g.activate(0)
    assert g.events().count("special") == 1  # once per game


def test_notes_drop_wire_guided_and_smoke_grenades():
    from dustsim.rules.skills import SKILL_RULES, WEAPON_RULES

    assert WEAPON_RULES["wire-guided"].status == "played"
    assert SKILL_RULES["smoke grenades"].status == "played"
    assert "smoke grenades" not in B.NOT_ON_BOARD


# -- artillery observer --------------------------------------------------------------------------
MORTAR = weapon({"V1": "2/1", "I1": "2/1"}, name="mortar", range_="3-8")
MORTAR = type(MORTAR)(**{**MORTAR.__dict__, "keywords": ("artillery",)})
ART, OBS, TGT = 0, 1, 2  # side A: the artillery and the observer; side B: the target


def _observer_game(*, wall_for_observer=False, faces="PPPP"):
    """The artillery on c0 r2 cannot see the target on c7 r2 (a building on c4 r2); the
    observer on c7 r5 sees it down its column (or not: a building on c7 r4), and has only a
    close-combat line."""
    terrain = np.zeros(BW * BH, np.int8)
    terrain[sq(4, 2)] = BD.BUILDING
    if wall_for_observer:
        terrain[sq(7, 4)] = BD.BUILDING
    board = BD.make_board("observer", BW, BH, terrain)
    claw = weapon({"V1": "1/1", "I1": "1/1"}, name="claw", range_="C")
    spec = spec_on(board, [unit("Mortar", MORTAR), unit("Obs", claw,
                                                        skills=("Artillery Observer",))],
                   [unit("T", GUN, track=3)])
    return Game(spec, [sq(0, 2), sq(7, 5), sq(7, 2)], faces=faces)


def _observer_attacks(g):
    m = g.m
    BK._occupy(m)
    BK._line_values(m, g.spec.f, np.int64(OBS), g.val)
    BK._offence(m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, np.int64(OBS),
                np.int64(sq(7, 5)), BK.ON, g.val)
    pos, done = BK._observed(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.f, g.spec.bd,
                             g.spec.ls, g.spec.lq, g.log, np.int64(OBS), g.val, BK.OFF,
                             BK.A_ATTACK)
    if not done:  # its own Attack, as the kernel's plans make it
        BK._attack(g.rng, g.buf, pos, BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log,
                   np.int64(OBS), BK.OFF, BK.OFF, BK.A_ATTACK)


def test_artillery_observer_fires_friendly_artillery_through_its_own_sight():
    g = _observer_game()
    assert g.sight(sq(0, 2), sq(7, 2), ART, TGT) == 2  # the artillery cannot see the target
    _observer_attacks(g)
    # L3421-3423: the unactivated mortar activates and attacks with the observer's sight, at
    # its own range (7, within 3-8); P, P: 2 hits (L672); infantry in the open get no
    # infantry save against artillery (L3224): 2 damage on a track of 3 leaves 1
    assert g.events()[:3] == ["special", "activate", "attack"]  # then its token
    sp, act, att = g.log[:3]
    assert sp[BK.L_UNIT] == OBS and sp[BK.L_X] == BK.SP_OBSERVE and sp[BK.L_TARGET] == ART
    assert act[BK.L_UNIT] == ART and int(g.m[g.m[0, H_ST] + ART, 5]) == 1  # ST_ACT
    assert att[BK.L_UNIT] == ART and att[BK.L_TARGET] == TGT and att[BK.L_RANGE] == 7
    assert att[BK.L_X] == BK.WHY_OBSERVED and att[BK.L_P0] == OBS
    assert att[BK.L_HITS] == 2 and att[BK.L_DAMAGE] == 2
    assert _target_track(g, TGT) == 1


@pytest.mark.parametrize("case", ["artillery already activated", "observer cannot see"])
def test_artillery_observer_needs_unactivated_artillery_and_its_own_sight(case):
    g = _observer_game(wall_for_observer=case == "observer cannot see")
    if case == "artillery already activated":
        g.m[g.m[0, H_ST] + ART, 5] = 1  # ST_ACT
    _observer_attacks(g)
    assert "special" not in g.events() and "attack" not in g.events()
    assert _target_track(g, TGT) == 3


def test_artillery_observer_policy_calls_in_the_artillery_and_the_replay_checks_it():
    from dustsim.review.replay_rules import check_log_on_board

    g = _observer_game(faces="PP" + "S" * 60)
    g.activate(OBS)
    ev = g.events()
    # it calls the mortar in (its own claw reaches nothing): an Attack (then a Move) or a
    # Sustained Attack, the policy's plan; P, P hit either way, no save in the open (L3224)
    assert ev[:3] == ["activate", "special", "activate"] and ev[3] in ("attack", "sustained")
    assert _target_track(g, TGT) == 1
    log = B.event_log(g.spec, seed=1)  # a whole game: the observer calls the mortar in
    check_log_on_board(log)  # the kernel's own games obey the checker
    seen = [i for i, e in enumerate(log["events"]) if e.get("observer") is not None]
    assert seen
    e = log["events"][seen[0]]
    assert e["unit"] == ART and e["observer"] == OBS and "Obs sees" in e["text"]
    # the checker holds the log to the rule: another observer, or the artillery's own sight
    bad = copy.deepcopy(log)
    bad["events"][seen[0]]["observer"] = TGT
    with pytest.raises(DustsimError, match="did not call in"):
        check_log_on_board(bad)
    bad = copy.deepcopy(log)
    bad["events"][seen[0]]["los"] = "cover" if e["los"] == "clear" else "clear"
    with pytest.raises(DustsimError, match="observer's line"):
        check_log_on_board(bad)


# -- makeshift repair ----------------------------------------------------------------------------
MECH, VEH, FOE = 0, 1, 2


def _repair_game(*, left, at=None, faces, self_repair=False):
    mech = unit("Rosie", GUN, skills=("Mechanic",), track=2)
    if self_repair:
        mech = unit("ARV", GUN, kind="vehicle", skills=("Mechanic",), track=4)
    tank = unit("Tank", GUN, kind="vehicle", track=4)
    g = Game(spec_on(BD.open_board(BW, BH), [mech, tank], [unit("E", GUN)], policy="cautious"),
             [sq(1, 2), sq(2, 2) if at is None else at, sq(7, 5)], faces=faces)
    g.m[g.m[0, H_ST] + (MECH if self_repair else VEH), ST_SINGLE] = left
    return g


@pytest.mark.parametrize("left, faces, after, back", [
    (1, "PTPSP", 4, 3),  # 3 of the 5 dice on P: 3 points back (L3763-3765), 1 + 3 = 4
    (3, "PPPPP", 4, 1),  # 5 successes, 1 point lost: never above the track of 4
    (2, "TTSST", 2, 0),  # no P: nothing back, the action is spent all the same
])
def test_makeshift_repair_five_dice_one_point_per_p(left, faces, after, back):
    g = _repair_game(left=left, faces=faces + "S" * 40)
    g.activate(MECH)
    ev = g.events()
    k = ev.index("special")
    r = g.log[k]
    assert r[BK.L_X] == BK.SP_REPAIR and r[BK.L_UNIT] == MECH and r[BK.L_TARGET] == VEH
    assert r[BK.L_D1] - r[BK.L_D0] == 5 and r[BK.L_DAMAGE] == back
    assert _target_track(g, VEH) == after
    # one action left after the repair (L3763: it is one of the activation's actions)
    assert "march" not in ev and "sustained" not in ev and ev.count("move") + \
        ev.count("attack") <= 1


@pytest.mark.parametrize("case", ["out of range 1", "itself", "undamaged"])
def test_makeshift_repair_only_another_damaged_vehicle_in_range_1(case):
    g = _repair_game(left=4 if case == "undamaged" else 1,
                     at=sq(3, 2) if case == "out of range 1" else sq(2, 2),
                     faces="PPPPP" + "S" * 40, self_repair=case == "itself")
    if case == "itself":  # the ARV is damaged, the tank beside it is not (L3589)
        g.m[g.m[0, H_ST] + VEH, ST_SINGLE] = 4
    g.activate(MECH)
    assert "special" not in g.events()


@pytest.mark.parametrize("target", [FOE, MECH])
def test_replay_checker_refuses_a_repair_of_an_enemy_or_of_itself(target):
    from dustsim.review.replay_rules import check_log_on_board

    g = _repair_game(left=1, faces="P")
    log = B.event_log(g.spec, seed=0)
    check_log_on_board(log)
    bad = copy.deepcopy(log)
    first = log["events"][1]
    bad["events"].insert(1, {"turn": first["turn"], "side": "A", "unit": MECH,
                             "action": "special", "special": "repair", "target": target,
                             "dice": "PPPPP", "hits": 5, "repaired": 0, "text": "repair"})
    with pytest.raises(DustsimError, match="another friendly vehicle"):
        check_log_on_board(bad)


def test_replay_checker_refuses_a_wire_guided_attack_with_two_lines():
    from dustsim.review.replay_rules import check_log_on_board

    gun = weapon({"V1": "3/1", "I1": "3/1"}, name="gun", range_="6")
    spec = spec_on(BD.open_board(BW, BH), [unit("A", WIRE, gun)], [unit("B", GUN, track=3)])
    log = B.event_log(spec, seed=0)
    check_log_on_board(log)
    k = next(i for i, e in enumerate(log["events"]) if e["action"] == "attack"
             and len(e.get("weapons") or ()) == 2)
    bad = copy.deepcopy(log)
    bad["events"][k]["rule"] = "Wire-guided"
    with pytest.raises(DustsimError, match="wire-guided"):
        check_log_on_board(bad)


# -- spy -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("faces, placed, attacks, left", [
    ("SS" + "S" * 20, False, [], 3),  # no P on two dice: not placed, Nothing (L3657)
    # one P: placed beside the enemy, one action: an Attack, P hits, the save S fails
    ("PS" + "PS" + "S" * 20, True, ["attack"], 2),
    # two P: two actions: a Sustained Attack, S misses, re-rolled P hits, the save S fails
    ("PP" + "SPS" + "S" * 20, True, ["sustained"], 2),
])
def test_spy_placed_beside_an_enemy_on_a_p_with_one_action_per_p(faces, placed, attacks, left):
    spy = unit("Spy", GUN, skills=("Spy",))
    g = Game(spec_on(BD.open_board(BW, BH), [spy], [unit("E", GUN, track=3)]),
             [-1, sq(5, 3)], faces=faces)
    g.activate(0)
    ev = g.events()
    assert ev[:2] == ["activate", "special"] and g.log[1, BK.L_X] == BK.SP_SPY
    s = int(g.m[g.m[0, H_ST] + 0, BK.ST_SQ])
    assert (s >= 0) == placed
    if placed:
        assert max(abs(s % BW - 5), abs(s // BW - 3)) == 1  # within range 1 (L3657)
    else:
        assert ev[2] == "nothing"
    assert [e for e in ev if e in ("attack", "sustained", "move", "march")] == attacks
    assert _target_track(g, 1) == left


def test_spy_is_not_deployed_and_the_replay_checks_where_it_lands():
    from dustsim.review.replay_rules import check_log_on_board

    spec = spec_on(BD.open_board(BW, BH), [unit("Spy", GUN, skills=("Spy",)), unit("A", GUN)],
                   [unit("E", GUN, track=3)])
    log = next(lg for seed in range(20) for lg in [B.event_log(spec, seed=seed)]
               if any(e.get("special") == "spy" and e.get("to") is not None
                      for e in lg["events"]))
    check_log_on_board(log)
    assert not [e for e in log["events"] if e["turn"] == 0 and e.get("unit") == 0]
    k = next(i for i, e in enumerate(log["events"]) if e.get("special") == "spy"
             and e.get("to") is not None)
    bad = copy.deepcopy(log)
    bad["events"][k]["hits"] = 0
    with pytest.raises(DustsimError, match="Spy"):
        check_log_on_board(bad)


# -- officers: Rally, Get Moving, Red Banner, Desert Fox, Jammer ----------------------------------
OFF_U, FRIEND, ENEMY = 0, 1, 2


def _officer_game(skills, *, friend_at, faces, armour="I1", jammer=False, friend_ap=5):
    """The officer on c1 r1 (its pistol reaches nothing), a friend, an enemy on c5 r4 (range
    6 of the officer by the diagonal rule: within a Jammer's reach, L3567)."""
    from dataclasses import replace

    far = weapon({"V1": "1/1", "I1": "1/1"}, name="pistol", range_="1")
    officer = replace(unit("Officer", far, skills=skills), armour=armour)
    friend = replace(unit("Friend", GUN, track=3), ap=friend_ap)
    foe = unit("Foe", GUN, skills=("Jammer",) if jammer else (), track=3)
    g = Game(spec_on(BD.open_board(BW, BH), [officer, friend], [foe], policy="cautious"),
             [sq(1, 1), friend_at, sq(5, 4)], faces=faces)
    return g


def _special(g, kind):
    return [r for r in g.log[: g.m[BK.R_B, BK.B_LOGN]]
            if r[BK.L_ACTION] == BK.A_SPECIAL and r[BK.L_X] == kind]


@pytest.mark.parametrize("skills, faces, token", [
    (("Officer",), "PP", 0),  # two P: every token goes (L3731)
    (("Officer",), "PS", 1),  # one P: Suppression steps down to Under Fire
    (("Officer",), "SS", 2),  # none: still Suppressed
    (("Officer", "Red Banner"), "PSP", 0),  # three dice (L3629): two P clear it
    (("Officer",), "PSP", 1),  # the same faces, two dice: one P
])
def test_rally_two_dice_on_p_each_red_banner_three(skills, faces, token):
    g = _officer_game(skills, friend_at=sq(2, 2), faces=faces + "S" * 40)
    g.m[g.m[0, H_ST] + FRIEND, 3] = 2  # ST_TOK: Suppressed, still to activate
    g.activate(OFF_U)
    rally = _special(g, BK.SP_RALLY)
    assert len(rally) == 1 and rally[0][BK.L_TARGET] == FRIEND
    assert rally[0][BK.L_D1] - rally[0][BK.L_D0] == (3 if "Red Banner" in skills else 2)
    assert int(g.m[g.m[0, H_ST] + FRIEND, 3]) == token


def test_rally_without_a_radio_only_within_range_2():
    g = _officer_game(("Officer",), friend_at=sq(4, 1), faces="PP" + "S" * 40)
    g.m[g.m[0, H_ST] + FRIEND, 3] = 2
    g.activate(OFF_U)
    assert not _special(g, BK.SP_RALLY)
    assert int(g.m[g.m[0, H_ST] + FRIEND, 3]) == 2


@pytest.mark.parametrize("skills, armour, jammer, faces, ordered", [
    (("Officer",), "I1", False, "P", True),  # one die, P: reactivated (L3725)
    (("Officer",), "I1", False, "T", False),  # T fails
    (("Officer", "Desert Fox"), "I1", False, "P", True),
    # a radio (infantry armour 3, L3713) reaches the friend at range 5; an enemy Jammer within
    # range 6 re-rolls the success (L3567): P then S fails, P then P holds
    (("Officer",), "I3", True, "PS", False),
    (("Officer",), "I3", True, "PP", True),
    (("Officer",), "I3", False, "P", True),
])
def test_get_moving_reactivates_an_activated_friend_at_once(skills, armour, jammer, faces,
                                                             ordered):
    at = sq(2, 2) if armour == "I1" else sq(6, 1)  # range 1, or range 5 (radio)
    g = _officer_game(skills, friend_at=at, faces=faces + "S" * 60, armour=armour,
                      jammer=jammer, friend_ap=10)
    g.m[g.m[0, H_ST] + FRIEND, 5] = 1  # ST_ACT: the friend activated this turn
    g.activate(OFF_U)
    order = _special(g, BK.SP_ORDER)
    assert len(order) == 1 and order[0][BK.L_TARGET] == FRIEND
    assert order[0][BK.L_HITS] == int(ordered)
    acts = [int(r[BK.L_UNIT]) for r in g.log[: g.m[BK.R_B, BK.B_LOGN]]
            if r[BK.L_ACTION] == BK.A_ACTIVATE]
    # ordered: the officer's activation ends, the friend activates again at once
    assert acts == ([OFF_U, FRIEND] if ordered else [OFF_U])
    assert int(g.m[g.m[0, BK.H_XU] + FRIEND, BR.X_REACT]) == (1 if ordered else 0)
    assert order[0][BK.L_TOKEN] == int("Desert Fox" in skills)
    # At the Double lasts for that activation only (L3501)
    assert not int(g.m[g.m[0, BK.H_XU] + FRIEND, BR.X_RULES]) & int(BR.RB_AT_THE_DOUBLE)


def test_officer_events_pass_the_replay_checker():
    """Whole games (six turns, two friends worth more than the officer): orders given, some
    obeyed, each followed by the ordered unit's activation; the checker refuses an order to
    an enemy."""
    from dataclasses import replace

    from dustsim.play.duel import DuelUnit
    from dustsim.play.policies import get_policy
    from dustsim.review.replay_rules import check_log_on_board

    board = BD.open_board(BW, BH)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=6)
    pistol = weapon({"V1": "1/1", "I1": "1/1"}, name="pistol", range_="1")
    side_a = [replace(unit("Officer", pistol, skills=("Officer", "Desert Fox")), armour="I3"),
              replace(unit("Friend", GUN, track=3), ap=10),
              replace(unit("Friend2", GUN, track=3), ap=8)]
    side_b = [unit("Foe", GUN, track=3, skills=("Jammer",)), unit("Foe2", GUN, track=3)]
    spec = B.compile_battle([DuelUnit(c) for c in side_a], [DuelUnit(c) for c in side_b],
                            setup, get_policy("advance"), attacker=0)
    obeyed = None
    for seed in range(20):  # the officers' close combat (L767) makes obeyed orders rarer
        log = B.event_log(spec, seed=seed)
        check_log_on_board(log)
        for i, e in enumerate(log["events"]):
            if e.get("special") == "get-moving" and e["hits"] and obeyed is None:
                obeyed = (log, i)
    assert obeyed is not None
    log, i = obeyed
    nxt = next(e for e in log["events"][i + 1:] if e["action"] == "activate")
    assert nxt["unit"] == log["events"][i]["target"] and "At the Double" in \
        log["events"][i]["text"]
    bad = copy.deepcopy(log)
    bad["events"][i]["target"] = 3  # Foe
    with pytest.raises(DustsimError, match="friendly unit"):
        check_log_on_board(bad)


@pytest.mark.parametrize("skills, ordered", [
    (("Command Vehicle",), True),  # S fails, its re-roll P succeeds (L3475)
    (("Officer",), False),  # an officer's vehicle without it: S fails, no re-roll
])
def test_command_vehicle_rerolls_a_failed_command_die(skills, ordered):
    from dataclasses import replace

    pistol = weapon({"V1": "1/1", "I1": "1/1"}, name="pistol", range_="1")
    cv = unit("CV", pistol, kind="vehicle", skills=skills, track=3)
    friend = replace(unit("Friend", GUN, track=3), ap=10)
    g = Game(spec_on(BD.open_board(BW, BH), [cv, friend], [unit("Foe", GUN, track=3)],
                     policy="cautious"), [sq(1, 1), sq(2, 2), sq(5, 4)], faces="SP" + "S" * 60)
    g.m[g.m[0, H_ST] + FRIEND, 5] = 1
    g.activate(OFF_U)
    order = _special(g, BK.SP_ORDER)
    assert len(order) == 1 and order[0][BK.L_HITS] == int(ordered)
    assert order[0][BK.L_D1] - order[0][BK.L_D0] == (2 if ordered else 1)


# -- black ops -----------------------------------------------------------------------------------
@pytest.mark.parametrize("skills, winner", [
    # four dice for side A (L3443): S S S P against T T T: one P to none, A wins
    (("Black Ops",), 0),
    # three dice each: S S S against P T T: B has the P (L337)
    ((), 1),
])
def test_black_ops_rolls_four_initiative_dice(skills, winner):
    g = Game(spec_on(BD.open_board(BW, BH), [unit("Joe", GUN, skills=skills)],
                     [unit("E", GUN)]), [sq(1, 1), sq(5, 4)], faces="SSSPTTT")
    win, pos = BK._initiative_roll(g.rng, g.buf, np.int64(0), BK.ON, g.m)
    assert win == winner
    assert pos == (7 if skills else 6)


def test_black_ops_initiative_monte_carlo_against_exact():
    """Four dice against three, most P then most T, ties re-rolled (L337, L3443): exact by
    enumerating the 3^7 faces; the kernel's random roll within 5 standard errors."""
    import itertools

    from dustsim.engines.rng import state

    win = tie = 0
    for faces in itertools.product(range(3), repeat=7):
        a, b = faces[:4], faces[4:]
        ka, kb = (a.count(0), a.count(1)), (b.count(0), b.count(1))
        win += ka > kb
        tie += ka == kb
    exact = win / (3 ** 7 - tie)
    g = Game(spec_on(BD.open_board(BW, BH), [unit("Joe", GUN, skills=("Black Ops",))],
                     [unit("E", GUN)]), [sq(1, 1), sq(5, 4)])
    rng = state(np.random.SeedSequence(23))
    n = 20_000
    wins = sum(1 - int(BK._initiative_roll(rng, g.buf, np.int64(0), BK.OFF, g.m)[0])
               for _ in range(n))
    se = (exact * (1 - exact) / n) ** 0.5
    assert abs(wins / n - exact) < 5 * se
    assert abs(exact - 1303 / 1974) < 1e-12  # the digest's figure


# -- medics and medevac --------------------------------------------------------------------------
def _squad(name, models=4):
    from dataclasses import replace

    return replace(unit(name, GUN), kind="squad", models=models, damage_track=None)


@pytest.mark.parametrize("die, back", [("T", 1), ("P", 1), ("S", 0)])
def test_get_up_one_die_on_p_or_t_returns_a_damage_point(die, back):
    medic = unit("Costa", GUN, skills=("Combat Medic",), track=3)
    friend = unit("Friend", GUN, track=3)
    g = Game(spec_on(BD.open_board(BW, BH), [medic, friend], [unit("E", GUN)],
                     policy="cautious"), [sq(1, 1), sq(2, 2), sq(6, 5)],
             faces=die + "S" * 40)
    g.m[g.m[0, H_ST] + 1, ST_SINGLE] = 1  # the friend lost two points
    g.activate(0)
    heal = _special(g, BK.SP_HEAL)
    assert len(heal) == 1 and heal[0][BK.L_TARGET] == 1 and heal[0][BK.L_DAMAGE] == back
    assert heal[0][BK.L_D1] - heal[0][BK.L_D0] == 1
    assert _target_track(g, 1) == 1 + back  # L3741: one point, on P or T (the digest)


def test_get_up_on_the_medics_own_unit_and_never_on_a_zombie():
    medic = unit("Costa", GUN, skills=("Medic",), track=3)
    zombie = unit("Zed", GUN, skills=("Zombie",), track=3)
    g = Game(spec_on(BD.open_board(BW, BH), [medic, zombie], [unit("E", GUN)],
                     policy="cautious"), [sq(1, 1), sq(2, 2), sq(6, 5)], faces="P" + "S" * 40)
    g.m[g.m[0, H_ST] + 1, ST_SINGLE] = 1  # the zombie lost more (L3703: not a target)
    g.m[g.m[0, H_ST] + 0, ST_SINGLE] = 2  # the medic itself (L3743: may treat itself)
    g.activate(0)
    heal = _special(g, BK.SP_HEAL)
    assert len(heal) == 1 and heal[0][BK.L_TARGET] == 0
    assert _target_track(g, 0) == 3 and _target_track(g, 1) == 1


@pytest.mark.parametrize("faces, models", [
    ("PSP", 4),  # three soldiers lost, three dice: two P, two back (L3593): 2 + 2
    ("SSS", 2),  # no P: none back
])
def test_medevac_one_die_per_eliminated_soldier(faces, models):
    amb = unit("Air Ambulance", GUN, kind="vehicle", skills=("Medevac",), track=3)
    g = Game(spec_on(BD.open_board(BW, BH), [amb, _squad("Squad", models=5)],
                     [unit("E", GUN)], policy="cautious"),
             [sq(1, 1), sq(2, 2), sq(6, 5)], faces=faces + "S" * 40)
    from dustsim.play.duel_kernel import ST_MODELS

    g.m[g.m[0, H_ST] + 1, ST_MODELS] = 2
    g.activate(0)
    heal = _special(g, BK.SP_HEAL)
    assert len(heal) == 1 and heal[0][BK.L_D1] - heal[0][BK.L_D0] == 3
    assert int(g.m[g.m[0, H_ST] + 1, ST_MODELS]) == models


def test_example_lists_logs_with_orders_obey_the_checker():
    """The SSU list's officers order units that reacted this turn (a reaction spends the
    activation, so Get Moving may reactivate them): the whole log passes the checker."""
    from pathlib import Path

    from dustsim.army.lists import load_list
    from dustsim.review.replay_rules import check_log_on_board

    ex = Path(__file__).resolve().parents[1] / "examples" / "lists"
    spec = B.prepare(load_list(ex / "ijn-ninjas.toml"), load_list(ex / "ssu-red-army.toml"),
                     scenario="104", seed=1)
    log = B.event_log(spec, seed=1)
    check_log_on_board(log)
    assert any(e.get("special") == "get-moving" for e in log["events"])


# -- air alert -----------------------------------------------------------------------------------
@pytest.mark.parametrize("die, hits", [
    ("P", 1),  # the alert holds (L3377): the gun's T hits as well as P
    ("S", 0),  # no alert: T misses (L672)
])
def test_air_alert_lets_vehicles_hit_the_aircraft_on_p_and_t(die, hits):
    from dataclasses import replace

    flak = weapon({"V1": "1/1", "I1": "1/1", "A1": "1/1"}, name="flak", range_="6")
    aa = unit("Controller", flak, kind="vehicle", skills=("Air Alert",), track=3)
    plane = replace(unit("Plane", GUN, track=4), kind="aircraft", armour="A1")
    g = Game(spec_on(BD.open_board(BW, BH), [aa], [plane], policy="cautious"),
             [sq(1, 1), sq(4, 1)], faces=die + "T" + "S" * 40)
    g.activate(0)
    alert = _special(g, BK.SP_ALERT)
    assert len(alert) == 1 and alert[0][BK.L_TARGET] == 1 and alert[0][BK.L_HITS] == int(
        die == "P")
    att = [r for r in g.log[: g.m[BK.R_B, BK.B_LOGN]] if r[BK.L_ACTION] == BK.A_ATTACK]
    assert len(att) == 1 and att[0][BK.L_HITS] == hits  # one action left: an Attack
    # the vehicle's Attack group keeps its own masks after the roll
    m = g.m
    w = int(m[m[0, 2] + 0, 9])
    assert m[BR._group(m, w, 1, 0, 0), 1] == int(m[1, 9])  # G_HIT == P (C_P)


# -- mindless zombies, Blutkreuz, Resurrection ---------------------------------------------------
def _zombies(models=5):
    from dataclasses import replace

    return replace(_squad("Zombie Squad", models=models), skills=("Mindless", "Zombie"),
                   move=1, march_move=2)


def test_blutkreuz_moves_zombies_3_and_4_with_charge_for_one_activation():
    totenmeister = unit("Totenmeister", GUN, skills=("Blutkreuz", "Resurrection", "Zombie"))
    g = Game(spec_on(BD.open_board(BW, BH), [totenmeister, _zombies()], [unit("E", GUN)],
                     policy="cautious"), [sq(1, 1), sq(2, 2), sq(7, 5)], faces="S" * 60)
    m = g.m
    ru = m[0, 2] + 1  # the zombies' unit row: U_MOVE (4), U_MARCH (13)
    BK._blutkreuz(m, g.spec.bd, np.int64(1))
    assert (int(m[ru, 4]), int(m[ru, 13])) == (3, 4)  # L3447
    assert BR.has(m, np.int64(1), BR.RB_CHARGE)
    BK._blutkreuz_end(m, np.int64(1))
    assert (int(m[ru, 4]), int(m[ru, 13])) == (1, 2) and not BR.has(m, np.int64(1),
                                                                      BR.RB_CHARGE)
    m[m[0, H_ST] + 0, BK.ST_SQ] = sq(5, 5)  # the Blutkreuz out of range 1: no boost
    BK._occupy(m)
    BK._blutkreuz(m, g.spec.bd, np.int64(1))
    assert (int(m[ru, 4]), int(m[ru, 13])) == (1, 2)


@pytest.mark.parametrize("faces, models", [("PSP", 4), ("SSS", 2)])
def test_resurrection_one_die_per_eliminated_zombie(faces, models):
    from dustsim.play.duel_kernel import ST_MODELS

    totenmeister = unit("Totenmeister", GUN, skills=("Blutkreuz", "Resurrection", "Zombie"))
    g = Game(spec_on(BD.open_board(BW, BH), [totenmeister, _zombies()], [unit("E", GUN)],
                     policy="cautious"), [sq(1, 1), sq(2, 2), sq(7, 5)],
             faces=faces + "S" * 40)
    g.m[g.m[0, H_ST] + 1, ST_MODELS] = 2  # three zombies lost: three dice, each P one back
    g.activate(0)
    heal = _special(g, BK.SP_HEAL)
    assert len(heal) == 1 and heal[0][BK.L_TOKEN] == 2 and heal[0][BK.L_D1] - heal[0][
        BK.L_D0] == 3
    assert int(g.m[g.m[0, H_ST] + 1, ST_MODELS]) == models


@pytest.mark.parametrize("mindless, held", [(True, 0), (False, 1)])
def test_mindless_zombies_contest_but_never_hold_an_objective(mindless, held):
    from dataclasses import replace

    z = _zombies() if mindless else replace(_zombies(), skills=("Zombie",))
    board = BD.make_board("obj", BW, BH, objectives=(sq(4, 3),))
    g = Game(spec_on(board, [z], [unit("E", GUN)]), [sq(4, 3), sq(0, 5)])
    g.m[BK.R_B, BK.B_NOBJ] = 1
    BK._objectives(g.m, g.spec.bd, g.log)
    assert int(g.m[BK.R_G, BK.G_OBJ0]) == held
    assert BK._held(g.m, g.spec.bd, 0, 0) == held
    # the enemy in its area too (set by hand): the zombies contest it, the enemy holds
    # nothing (L3601: Mindless Zombies may contest)
    g.m[g.m[0, H_ST] + 1, BK.ST_SQ] = sq(4, 3)
    BK._objectives(g.m, g.spec.bd, g.log)
    assert int(g.m[BK.R_G, BK.G_OBJ1]) == 0 and int(g.m[BK.R_G, BK.G_OBJ0]) == 0
    assert BK._held(g.m, g.spec.bd, 1, 0) == 0


# -- follow me -----------------------------------------------------------------------------------
def test_follow_me_each_follower_moves_2_on_a_p():
    from dustsim.review.replay_rules import check_log_on_board

    lead = unit("Vasiliy", GUN, skills=("Follow Me",))
    g = Game(spec_on(BD.open_board(BW, BH), [lead, unit("F1", GUN), unit("F2", GUN)],
                     [unit("E", GUN)]), [sq(1, 1), sq(2, 1), sq(1, 2), sq(7, 5)],
             faces="PS" + "S" * 40)
    g.activate(0)
    fm = _special(g, BK.SP_FOLLOW)
    assert len(fm) == 1 and fm[0][BK.L_D1] - fm[0][BK.L_D0] == 2 and fm[0][BK.L_HITS] == 1
    s1 = int(g.m[g.m[0, H_ST] + 1, BK.ST_SQ])
    s2 = int(g.m[g.m[0, H_ST] + 2, BK.ST_SQ])
    # F1 rolled P: a Move of 2 (L3533) towards the enemy; F2 rolled S: it stays
    assert s1 != sq(2, 1) and BD.distance(g.spec.setup.board, sq(2, 1), s1) <= 2
    assert s2 == sq(1, 2)
    assert int(g.m[g.m[0, H_ST] + 1, 5]) == 0  # its activation is not spent
    # whole games with the rule obey the checker
    for seed in range(3):
        check_log_on_board(B.event_log(g.spec, seed=seed))


def test_follow_me_not_for_a_single_follower_nor_for_armour_3():
    from dataclasses import replace

    lead = unit("Vasiliy", GUN, skills=("Follow Me",))
    heavy = replace(unit("Heavy", GUN), armour="I3")
    g = Game(spec_on(BD.open_board(BW, BH), [lead, unit("F1", GUN), heavy],
                     [unit("E", GUN)]), [sq(1, 1), sq(2, 1), sq(1, 2), sq(7, 5)],
             faces="PP" + "S" * 40)
    g.activate(0)
    assert not _special(g, BK.SP_FOLLOW)  # one unit of armour 1-2 only: not taken
