"""Catalogue rules played in grid battles and duels (issue 23; BattleScribe rule ids in
:mod:`dustsim.rules.skills`): Raid's Move + Attack + Move, Quick Recovery's drop without a
Nothing action, Lesser Mythos Creatures never ordered by an officer, and the attack-level rules
(Mythos Creature's immunity to tokens) reaching the board through the dice kernel.

Small hand-built boards and scripted dice, as in ``test_battle_rules.py`` (its harness)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from test_battle_rules import GUN, Game, W, sq, unit, weapon

from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit, compile_duel
from dustsim.play.duel_kernel import H_ST, ST_TOK
from dustsim.play.policies import get_policy
from dustsim.rules.unit_rules import unit_rules


def spec_on(board, side_a, side_b, policy="advance"):
    from dustsim.play import battle as B

    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    return B.compile_battle([DuelUnit(c) for c in side_a], [DuelUnit(c) for c in side_b],
                            setup, get_policy(policy), attacker=0)


def test_quick_recovery_drop_takes_no_nothing_action():
    objective = sq(4, 3)
    board = BD.make_board("drop", W, 6, objectives=[objective])
    for skills, nothing in ((("Airborne", "Quick Recovery"), False), (("Airborne",), True)):
        para = unit("Para", GUN, skills=skills)
        g = Game(spec_on(board, [para], [unit("B", GUN)]), [-1, sq(4, 5)], faces="S" * 20)
        g.activate(0)
        ev = g.events()
        assert ev[:2] == ["activate", "special"]
        # Airborne: first action Nothing (L3393); with Quick Recovery no Nothing at all, its
        # two actions (here a Sustained Attack on B, worth something from where it lands)
        assert ("nothing" in ev) == nothing, ev
        if not nothing:
            assert ev[2] in ("sustained", "move"), ev
    assert unit_rules(unit("x", skills=("Quick Recovery",), kind="vehicle")).quick_recovery == 0


def test_raid_moves_again_after_its_attack():
    # A: a vehicle with a range-2 gun; B: a lone hero (track 1) on the objective, four squares
    # away, with nothing that hurts A (no reaction). A moves 2 and attacks from range 2: hit P,
    # B's save (P in the open, L686) fails on T: B destroyed. With Raid a second Move follows
    # (onto the objective, where the policy scores best), tagged with the rule; without, none
    objective = sq(4, 2)
    board = BD.make_board("raid", W, 6, objectives=[objective])
    seen = {}
    for skills in (("Raid", "Wheeled"), ("Wheeled",)):
        a = unit("A", weapon({"V1": "1/1", "I1": "1/1"}, range_="2"), kind="vehicle",
                 skills=skills, track=3)
        b = unit("B", weapon({"V1": "-", "I1": "1/1"}, range_="1"), track=1)
        g = Game(spec_on(board, [a], [b]), [sq(0, 2), objective], faces="PT" + "S" * 40)
        g.activate(0)
        ev = g.events()
        seen[skills[0]] = [(ev[i], int(g.log[i, BK.L_TARGET]), int(g.log[i, BK.L_TO]))
                           for i in range(g.m[BK.R_B, BK.B_LOGN])
                           if int(g.log[i, BK.L_UNIT]) == 0 and ev[i] != "activate"]
    assert [e for e, _, _ in seen["Wheeled"]] == ["move", "attack"]
    raid = seen["Raid"]
    assert [e for e, _, _ in raid] == ["move", "attack", "move"], raid
    assert raid[2] == ("move", int(BK.WHY_RAID), objective)


def test_mythos_creature_on_the_board_takes_no_token():
    for skills, token in ((("Mythos Creature",), 0), ((), 1)):
        a = unit("A", GUN)
        b = unit("B", GUN, kind="vehicle", skills=skills, track=5)
        g = Game(spec_on(BD.open_board(W, 6), [a], [b]), [sq(0, 2), sq(3, 2)],
                 faces="P" * 40)
        g.activate(0)
        assert "sustained" in g.events() or "attack" in g.events()
        assert g.m[g.m[0, H_ST] + 1, ST_TOK] == token


def test_lesser_mythos_creatures_are_never_rallied_nor_ordered():
    # duel kernel: an officer may Rally a friendly Suppressed unit that has not activated
    # (L3729-3731); a Lesser Mythos unit never (the predicate both Rally loops use); its
    # U_FLAGS bit also keeps it out of Get Moving's choice (_order)
    from dustsim.play import duel_kernel as K

    for skills, ordered in ((("Lesser Mythos Creatures",), False), ((), True)):
        mi_go = unit("M", GUN, skills=skills)
        officer = unit("O", GUN, skills=("Officer",))
        spec = compile_duel([DuelUnit(mi_go), DuelUnit(officer)], [DuelUnit(unit("F", GUN))],
                            distance=4, turns=1)
        m = K._pack(spec.units, spec.weapons, spec.gdice, spec.gblast, spec.groups,
                    spec.tspec, spec.config)
        rs = m[0, H_ST]
        for u in range(3):
            m[rs + u, K.ST_SINGLE] = 1
            m[rs + u, K.ST_ACT] = 0
            m[rs + u, K.ST_OFF] = 0
        m[rs + 0, ST_TOK] = 2  # Suppressed
        assert bool(K._rallies(m, 1, 0)) == ordered
        assert bool(spec.units[0, K.U_FLAGS] & K.F_NO_ORDERS) != ordered


def _scream_board():
    t = np.full(W * 6, BD.OPEN, np.int8)
    t[sq(1, 2)] = BD.SOLID  # between A and B: no line of sight
    return BD.make_board("scream", W, 6, t)


SCREAM = weapon({"V1": "1/1", "I1": "1/1"}, name="Psychic Scream", range_="3")


def test_psychic_scream_once_per_game_free_no_sight_no_save():
    board = _scream_board()
    a = unit("A", SCREAM, kind="vehicle", skills=("Psychic Scream",), track=5)
    b = unit("B", GUN, track=1)
    g = Game(spec_on(board, [a], [b]), [sq(0, 2), sq(2, 2)], faces="P" "P" + "S" * 20)
    assert g.sight(sq(0, 2), sq(2, 2), 0, 1) == 2  # blocked
    g.activate(0)
    ev = g.events()
    # the free action after its activation starts: one Attack die on P, no save die (a lone
    # hero in the open would save on the next P, L686; the Scream ignores it): B destroyed
    assert ev[:3] == ["activate", "special", "destroyed"], ev
    assert g.log[1, BK.L_X] == BK.SP_SCREAM and g.log[1, BK.L_TARGET] == 1
    assert g.left(1) == 0
    # once per game: the line is spent and never fires in an Attack
    b2 = unit("B2", GUN, track=1)
    g = Game(spec_on(board, [a], [b2]), [sq(0, 2), sq(2, 2)], faces="S" * 40)
    g.activate(0)
    assert "special" in g.events()
    k0 = int(g.m[BK.R_B, BK.B_LOGN])
    g.activate(0)
    later = g.events()[k0:]
    assert "special" not in later and "attack" not in later and "sustained" not in later


def test_psychic_scream_spares_friends_by_policy_and_is_a_plain_line_without_the_skill():
    board = _scream_board()
    a = unit("A", SCREAM, kind="vehicle", skills=("Psychic Scream",), track=5)
    # a friend beside A worth as much as the enemy two squares away: no gain, no scream
    g = Game(spec_on(board, [a, unit("F", GUN, track=1)], [unit("B", GUN, track=1)]),
             [sq(0, 2), sq(0, 3), sq(2, 2)], faces="S" * 40)
    g.activate(0)
    assert "special" not in g.events()
    # without the skill the line is an ordinary weapon: no free action, and it needs sight
    plain = unit("A", SCREAM, kind="vehicle", track=5)
    g = Game(spec_on(board, [plain], [unit("B", GUN, track=1)]), [sq(0, 2), sq(2, 2)],
             faces="P" * 40)
    g.activate(0)
    assert "special" not in g.events()


def test_large_ordnance_strikes_the_2x2_area_of_its_target():
    # A fires its Large Ordnance line (1/1, range 6) at the lone hero B; the hero C beside B
    # shares a 2 x 2 area with it (four squares like artillery, L3218-3224); the friend F
    # below B is left out of the area the policy picks (more enemies less friends). Each roll:
    # hit on P, the hero's save (P in the open, L686) fails on T: both destroyed
    bomb = weapon({"V1": "1/1", "I1": "1/1"}, name="bomb", range_="6")
    for kws, both in ((("large-ordnance",), True), ((), False)):
        # (A's bare hands, a close-combat line that hurts nothing, replace its improvised
        # weapon, L767: it fires from where it stands, as these faces were derived)
        a = unit("A", replace(bomb, keywords=kws, ammo=2), weapon({}, name="bare", range_="C"),
                 kind="vehicle", track=5)
        f = unit("F", GUN, track=1)
        b, c = unit("B", GUN, track=1), unit("C", GUN, track=1)
        g = Game(spec_on(BD.open_board(W, 6), [a, f], [b, c]),
                 [sq(2, 2), sq(4, 3), sq(4, 2), sq(5, 2)], faces="PT" "PT" + "S" * 40)
        g.activate(0)
        ev = g.events()
        assert ev.count("destroyed") == (2 if both else 1), ev
        assert g.left(1) == 1  # the friend is never struck
        # one special event, the area's (B within range 3: no Psychic Scream, the line has none)
        assert ev.count("special") == (1 if both else 0)
        if both:
            assert g.log[ev.index("special"), BK.L_X] == BK.SP_AREA


def test_crazy_jimmy_gives_his_vehicle_cover_after_a_march_until_its_next_activation():
    from dustsim.play import battle as B

    board = BD.open_board(W, 6)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    for skills, covered in ((("Pilot", "Crazy Jimmy"), 1), (("Pilot",), 0)):
        jimmy = unit("Jimmy", skills=skills)
        tank = unit("A", weapon({"V1": "1/1", "I1": "1/1"}, range_="1"), kind="vehicle",
                    track=3, skills=("Wheeled",))
        spec = B.compile_battle([DuelUnit(tank, pilot=jimmy)],
                                [DuelUnit(unit("B", GUN, track=3))], setup,
                                get_policy("advance"), attacker=0)
        assert unit_rules(tank, None, jimmy).march_cover == covered
        g = Game(spec, [sq(0, 2), sq(7, 2)], faces="S" * 40)
        g.activate(0)
        assert "march" in g.events()  # nothing in reach: it marches towards B
        st = g.m[0, H_ST]
        assert g.m[st, BK.ST_COVERED] == covered
        s = int(g.m[st, BK.ST_SQ])
        # in the open, seen clearly (0): cover only from Jimmy's rule (a vehicle saves on P)
        assert BK._in_cover(g.m, g.spec.bd, 0, s, 0) == covered
        g.m[st, BK.ST_ACT] = 0
        k0 = int(g.m[BK.R_B, BK.B_LOGN])
        g.activate(0)  # its next activation ends the cover; a new March gives it again
        again = "march" in g.events()[k0:]
        assert g.m[st, BK.ST_COVERED] == (covered if again else 0)
