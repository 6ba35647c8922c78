"""Large and Huge vehicles on the grid (issue 23): their footprint in the battle kernel, on small
hand-built boards, with expectations derived by hand from seed 003 and the written decisions
(:data:`dustsim.play.battle.FOOTPRINT`).

Geometry: squares ``row * W + col``; facing 0 points to row+ (``board.DIRECTIONS``). A Large
vehicle occupies its front square and the one behind it (L285, L504); a Huge one a 2 x 2 block
(L285, L508). Range: first diagonal 1, further diagonals 2 (L580-582); on a straight column it is
the row difference. Cover (L727): a Large vehicle is in cover if one of its squares is, a Huge
one if two are; their own squares do not cover (nor block) each other. Faces: P, T, S; hits on
P (L672); a vehicle's cover save succeeds on P (L684), none in the open.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from battle_states import HandPlaced

from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, H_UNITS, H_WS
from dustsim.play.policies import get_policy

FACE = {"P": 0, "T": 1, "S": 2}
W, H = 8, 7


def weapon(cells: dict, *, name="gun", range_="6", mount=None):
    line = tuple(parse_cell(cells.get(c, "-")) for c in COLUMNS)
    return Weapon(name=name, line=line, count=1, range=range_, keywords=(), ammo=None,
                  mount=mount)


GUN = weapon({"V1": "3/1", "V2": "3/1", "I1": "1/1"})
SHORT = weapon({"V2": "1/1", "I1": "1/1"}, name="short", range_="2")


def card(name, *weapons, kind="hero", skills=(), move=2, track=5, size="standard"):
    armour = {"vehicle": "V2", "hero": "I1"}[kind]
    return Card(name=name, edition="dust-1947", kind=kind, armour=armour, ap=5,
                damage_track=track, move=move, march_move=2 * move, weapons=weapons,
                skills=tuple(skills), size=size)


def large(name="Tank", *weapons, move=2):
    return card(name, *(weapons or (GUN,)), kind="vehicle", skills=("Large",), move=move)


def huge(name="Fortress", *weapons, move=2):
    return card(name, *(weapons or (GUN,)), kind="vehicle", skills=("Huge",), move=move)


def sq(c, r):
    return r * W + c


def board(**terrain):
    """An open W x H board with terrain codes on named squares: ``board(trees=[...])``."""
    t = np.zeros(W * H, np.int8)
    for name, squares in terrain.items():
        for s in squares:
            t[s] = getattr(BD, name.upper())
    return BD.make_board("test", W, H, t)


class Game(HandPlaced):
    """A compiled battle with units placed by hand (anchor square, facing), turn 1, logging on."""

    def __init__(self, bd_, side_a, side_b, places, faces=""):
        super().__init__(bd_, side_a, side_b, places, faces)

    def aim(self, u, t, org=0):
        """(range, sight, cover) of u where it stands at t (lines from ``org``)."""
        s = int(self.m[self.m[0, H_ST] + u, BK.ST_SQ])
        d, los, cov = BK._aim(self.m, self.spec.bd, self.spec.ls, self.spec.lq, u, s, t,
                              np.int64(org))
        return int(d), int(los), int(cov)

    def occupied(self):
        rsc = self.m[0, BK.H_SCR]
        return {s: int(self.m[rsc + s, BK.SC_OCC]) - 1 for s in range(W * H)
                if self.m[rsc + s, BK.SC_OCC] > 0}

    def reach(self, u, limit):
        BK._reach(self.m, self.spec.bd, u, limit, self.qb)

    def where(self, u):
        r = self.m[0, H_ST] + u
        return int(self.m[r, BK.ST_SQ]), int(self.m[r, BK.ST_FACE])


# -- the footprint ---------------------------------------------------------------------------------
def test_large_and_huge_vehicles_occupy_two_and_four_squares():
    g = Game(board(), [large(), huge()], [card("Inf", GUN)],
             [(sq(2, 3), 0), (sq(5, 1), 0), (sq(2, 6), 4)])
    # the Large tank faces row+: its front (2,3) and the square behind it (2,2) (L285, L504);
    # the Huge one the 2 x 2 block (5,1), (6,1), (5,2), (6,2) (L285); infantry one square
    assert g.occupied() == {sq(2, 3): 0, sq(2, 2): 0, sq(5, 1): 1, sq(6, 1): 1, sq(5, 2): 1,
                            sq(6, 2): 1, sq(2, 6): 2}
    assert B.footprint(DuelUnit(large())) == 2 and B.footprint(DuelUnit(huge())) == 4
    assert B.footprint(DuelUnit(card("Inf", GUN))) == 1


def test_range_to_a_large_vehicle_counts_to_its_nearest_square():
    # the tank faces away (facing 4: front (3,2), rear (3,3)); the infantry on (3,5) is 2
    # from the rear square, 3 from the front: range 2, so its range-2 weapon reaches it
    g = Game(board(), [card("Inf", SHORT)], [large()], [(sq(3, 5), 0), (sq(3, 2), 4)])
    assert g.aim(0, 1) == (2, 0, 0)
    BK._line_values(g.m, g.spec.f, 0, g.val)
    assert BK._offence(g.m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, 0, sq(3, 5), BK.OFF,
                       g.val) > 0.0


def test_close_combat_reaches_a_large_vehicle_from_beside_either_square():
    # infantry on (4,1) is diagonally adjacent to the tank's rear (3,2) only: range 1 (L761)
    g = Game(board(), [card("Inf", GUN)], [large()], [(sq(4, 1), 0), (sq(3, 3), 0)])
    assert g.aim(0, 1)[0] == 1


def test_a_large_vehicles_front_guns_see_from_its_front_its_rear_guns_from_its_rear():
    # the tank: front (3,2), rear (3,1), facing row+; a solid square on (2,2) cuts the line
    # from its front to the infantry on (0,1) (the line crosses (2,2)'s interior), while the
    # line from its rear square runs along row 1 (squares (2,1), (1,1)): clear, range 3 (L604)
    g = Game(board(solid=[sq(2, 2)]), [large()], [card("Inf", GUN)],
             [(sq(3, 2), 0), (sq(0, 1), 0)])
    assert g.aim(0, 1, org=0)[1] == 2
    assert g.aim(0, 1, org=1) == (3, 0, 0)
    # side lines are drawn from either square (decision): the clear one
    assert g.aim(0, 1, org=2) == (3, 0, 0)
    # which lines fire: only a rear-mounted gun has the infantry as its target; with fire
    # arcs played (L584-598) the infantry stands in the rear gun's arc: the tank on (3,4)
    # and (3,3), the infantry on (1,1), 45 degrees behind its rear square, the solid square
    # (2,3) cutting the line from its front square only
    for mount, fires in (("front", False), ("turret", False), ("rear", True)):
        tank = large("Tank", weapon({"I1": "1/1"}, mount=mount))
        g = Game(board(solid=[sq(2, 3)]), [tank], [card("Inf", GUN)],
                 [(sq(3, 4), 0), (sq(1, 1), 0)])
        BK._line_values(g.m, g.spec.f, 0, g.val)
        BK._offence(g.m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, 0, sq(3, 4), BK.ON, g.val)
        w0 = g.m[g.m[0, H_UNITS] + 0, 9]  # U_W0
        assert (g.m[g.m[0, H_WS] + w0, BK.WS_TGT] == 1) == fires


# -- cover (L727) ----------------------------------------------------------------------------------
def test_a_large_vehicle_with_one_square_in_trees_is_in_cover():
    # the shooter on (3,6) looks down column 3 at the tank: front (3,2) in the open, rear (3,1)
    # in trees; nothing crosses the line to the front (squares (3,5), (3,4), (3,3)): range 4
    shooter = [card("Inf", GUN)]
    for trees, cover in (([sq(3, 1)], 1), ([], 0), ([sq(0, 0)], 0)):
        g = Game(board(trees=trees), shooter, [large()], [(sq(3, 6), 0), (sq(3, 2), 0)])
        assert g.aim(0, 1) == (4, 0, cover)


def test_a_huge_vehicle_needs_two_squares_in_cover():
    # the block (3,2), (4,2), (3,3), (4,3); the shooter on (3,6) sees (3,3) at range 3. Its own
    # squares neither block nor cover each other (L727), so in the open it is not in cover
    shooter = [card("Inf", GUN)]
    for trees, cover in (([], 0), ([sq(4, 2)], 0), ([sq(4, 2), sq(3, 2)], 1)):
        g = Game(board(trees=trees), shooter, [huge()], [(sq(3, 6), 0), (sq(3, 2), 0)])
        assert g.aim(0, 1) == (3, 0, cover)


def test_the_cover_save_follows_the_footprint_with_scripted_dice():
    # a 3/1 gun at the Large tank (V2): hits P P P; in cover (rear square in trees) the cover
    # save rolls P T T: one hit saved, 2 damage; in the open no save: 3 damage (L684, L727)
    for trees, faces, damage in (([sq(3, 1)], "PPPPTT", 2), ([], "PPP", 3)):
        g = Game(board(trees=trees), [card("Inf", GUN)], [large()],
                 [(sq(3, 6), 0), (sq(3, 2), 0)], faces=faces)
        BK._line_values(g.m, g.spec.f, 0, g.val)
        BK._offence(g.m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, 0, sq(3, 6), BK.ON, g.val)
        BK._attack(g.rng, g.buf, np.int64(0), BK.ON, g.m, g.spec.bd, g.spec.ls, g.spec.lq,
                   g.log, 0, BK.OFF, BK.OFF, BK.A_ATTACK)
        row = g.log[0]
        assert B.ACTIONS[int(row[BK.L_ACTION])] == "attack"
        assert (int(row[BK.L_RANGE]), int(row[BK.L_COVER]), int(row[BK.L_DAMAGE])) == \
            (4, 1 if trees else 0, damage)


def test_a_large_vehicle_blocks_sight_with_both_squares():
    # a friendly Large tank across row 3 (front (4,3), rear (3,3), facing 2) stands between
    # the shooter on (3,5) and the target on (3,0): its rear square blocks the column (L612)
    g = Game(board(), [card("Inf", GUN), large()], [card("Target", GUN)],
             [(sq(3, 5), 0), (sq(4, 3), 2), (sq(3, 0), 0)])
    assert g.aim(0, 2)[1] == 2
    g2 = Game(board(), [card("Inf", GUN), card("Small", GUN, kind="vehicle")],
              [card("Target", GUN)], [(sq(3, 5), 0), (sq(4, 3), 2), (sq(3, 0), 0)])
    assert g2.aim(0, 2)[1] == 0  # a one-square vehicle on (4,3) leaves column 3 clear


def test_large_vehicles_and_walkers_see_over_quonset_huts():
    # a Quonset hut on (3,3) between the shooter on (3,5) and the target on (3,1): it blocks
    # sight for infantry and ordinary vehicles, not for walkers or Large/Huge vehicles, shooting
    # or shot at (L3156-3158; board decision "quonset")
    hut = board(quonset_hut=[sq(3, 3)])
    tracked = card("Tracked", GUN, kind="vehicle", skills=("Tracked",))
    walker = card("Walker", GUN, kind="vehicle")
    for shooter, target, seen in (
            (card("Inf", GUN), card("Target", GUN), False),
            (tracked, card("Target", GUN), False),
            (walker, card("Target", GUN), True),
            (large("Tank", GUN), card("Target", GUN), True),
            (card("Inf", GUN), large("Tank2", GUN), True)):
        g = Game(hut, [shooter], [target], [(sq(3, 5), 4), (sq(3, 1), 4)])
        assert (g.aim(0, 1)[1] != 2) == seen, (shooter.name, target.name)


# -- movement (L504-512) ---------------------------------------------------------------------------
def test_a_large_vehicle_turns_by_moving_its_rear_into_the_vacated_square():
    g = Game(board(), [large()], [card("Far", GUN)], [(sq(3, 2), 0), (sq(7, 6), 0)])
    g.reach(0, 2)
    # one step east: the front on (4,2), the rear on the square it left, (3,2): facing 2
    assert BK._can_end(g.m, g.spec.bd, 0, sq(4, 2))
    assert BK._place(g.m, g.spec.bd, g.log, g.plog, 0, sq(4, 2), 2, BK.A_MOVE, BK.NONE,
                     BK.ZERO)
    assert g.where(0) == (sq(4, 2), 2)
    assert {s for s, u in g.occupied().items() if u == 0} == {sq(4, 2), sq(3, 2)}


def test_a_large_vehicle_after_a_diagonal_step_keeps_to_the_grid():
    g = Game(board(), [large()], [card("Far", GUN)], [(sq(3, 2), 0), (sq(7, 6), 0)])
    g.reach(0, 2)
    # diagonally to (4,3): the rear takes (4,2), beside the step's corner in the front's
    # column (decision), facing 0
    BK._place(g.m, g.spec.bd, g.log, g.plog, 0, sq(4, 3), 2, BK.A_MOVE, BK.NONE, BK.ZERO)
    assert g.where(0) == (sq(4, 3), 0)
    assert {s for s, u in g.occupied().items() if u == 0} == {sq(4, 3), sq(4, 2)}


def test_a_large_vehicle_cannot_end_where_its_rear_would_stand_on_a_unit():
    # a friendly infantry on (3,3): the front may pass it (L463) to (3,4), but the rear would
    # end on it, so (3,4) reached straight up the column is not an end square (L465)
    g = Game(board(), [large(move=3), card("Friend", GUN)], [card("Far", GUN)],
             [(sq(3, 2), 0), (sq(3, 3), 0), (sq(7, 6), 0)])
    g.reach(0, 2)
    assert BK._cost(g.m, g.spec.bd, sq(3, 4)) == 2
    assert not BK._can_end(g.m, g.spec.bd, 0, sq(3, 4))


def test_a_gap_one_square_wide_passes_a_large_vehicle_lengthwise_but_not_a_huge_one():
    # tank traps (vehicles cannot enter, L482) across row 3 except a gap on (3,3)
    traps = [sq(c, 3) for c in range(W) if c != 3]
    bd_ = board(tank_traps=traps)
    g = Game(bd_, [large(move=4)], [card("Far", GUN)], [(sq(3, 2), 0), (sq(7, 6), 0)])
    g.reach(0, 4)
    # the front drives up column 3 through the gap: (3,5) costs 3, its rear on (3,4)
    assert BK._cost(g.m, g.spec.bd, sq(3, 5)) == 3 and BK._can_end(g.m, g.spec.bd, 0, sq(3, 5))
    # the Huge block (3,1)-(4,2) cannot: no anchor beyond row 3 is reachable
    g = Game(bd_, [huge(move=6)], [card("Far", GUN)], [(sq(3, 1), 0), (sq(7, 6), 0)])
    g.reach(0, 6)
    assert all(BK._cost(g.m, g.spec.bd, s) >= BK.INF for s in range(W * H) if s // W >= 2)
    # on open ground it moves as a block: two squares up costs 2
    g = Game(board(), [huge(move=6)], [card("Far", GUN)], [(sq(3, 1), 0), (sq(7, 6), 0)])
    g.reach(0, 6)
    assert BK._cost(g.m, g.spec.bd, sq(3, 3)) == 2 and BK._can_end(g.m, g.spec.bd, 0, sq(3, 3))


def test_a_huge_block_does_not_move_onto_a_unit_or_off_the_board():
    g = Game(board(), [huge(), card("Friend", GUN, kind="vehicle")], [card("Far", GUN)],
             [(sq(3, 1), 0), (sq(5, 2), 0), (sq(0, 6), 0)])
    g.reach(0, 4)
    # one step east would put the block's (5,2) on the friendly vehicle (L463): barred
    assert BK._cost(g.m, g.spec.bd, sq(4, 1)) >= BK.INF
    # the block's last column is W-1: an anchor on column W-1 never fits
    assert all(BK._cost(g.m, g.spec.bd, sq(W - 1, r)) >= BK.INF for r in range(H))


def test_entering_from_the_edge():
    # side A enters on row 0 (L2440). A Large vehicle's front enters there but cannot end on
    # the edge square (its rear would be off the board); one square further it can, its rear
    # on the edge square. A Huge block comes on with its edge pair on row 0 at cost 2.
    g = Game(board(), [large(), huge()], [card("Far", GUN)],
             [(-1, 0), (-1, 0), (sq(7, 6), 0)])
    g.reach(0, 2)
    assert BK._cost(g.m, g.spec.bd, sq(3, 0)) == 1 and not BK._can_end(g.m, g.spec.bd, 0, sq(3, 0))
    assert BK._cost(g.m, g.spec.bd, sq(3, 1)) == 2 and BK._can_end(g.m, g.spec.bd, 0, sq(3, 1))
    BK._place(g.m, g.spec.bd, g.log, g.plog, 0, sq(3, 1), 2, BK.A_MOVE, BK.NONE, BK.ZERO)
    assert g.where(0) == (sq(3, 1), 0)
    g.reach(1, 2)
    assert BK._cost(g.m, g.spec.bd, sq(5, 0)) == 2 and BK._can_end(g.m, g.spec.bd, 1, sq(5, 0))
    assert BK._cost(g.m, g.spec.bd, sq(5, 1)) >= BK.INF  # no further within a Move of 2


@pytest.mark.parametrize("scenario", ["101", "107"])
def test_whole_games_keep_footprints_apart(scenario):
    """Whole logged games with Large and Huge vehicles: no square is ever held by two units
    (L465), every footprint lies on the board (event log: ``squares``)."""
    a = [DuelUnit(large("T1")), DuelUnit(huge("H1")), DuelUnit(card("I1", GUN))]
    b = [DuelUnit(large("T2")), DuelUnit(large("T3")), DuelUnit(card("I2", GUN))]
    setup = B.scenario_setup(scenario, 3)
    spec = B.compile_battle(a, b, setup, get_policy("advance"), attacker=0)
    log = B.event_log(spec, seed=5)
    sizes = {u["id"]: u.get("footprint", 1) for u in log["units"]}
    assert sorted(sizes.values()) == [1, 1, 2, 2, 2, 4]
    held: dict[int, list[int]] = {}
    n = log["board"]["width"] * log["board"]["height"]
    moved = 0
    for ev in log["events"]:
        if ev["action"] in ("move", "march") and ev.get("to") is not None:
            squares = ev.get("squares", [ev["to"]])
            assert len(squares) == sizes[ev["unit"]] and all(0 <= s < n for s in squares)
            held[ev["unit"]] = squares
            moved += sizes[ev["unit"]] > 1
            taken = [s for u, sq_ in held.items() for s in sq_]
            assert len(taken) == len(set(taken)), ev
        elif ev["action"] in ("destroyed", "exit"):
            held.pop(ev["unit"], None)
    assert moved > 0
    # the replay checker follows the footprints: the log obeys the rules on the board ...
    from dustsim.errors import DustsimError
    from dustsim.review.replay_rules import check_log_on_board

    check_log_on_board(log, setup.board)
    # ... and a Large vehicle's move onto another unit's square is caught
    big = next(ev for ev in log["events"] if ev["action"] in ("move", "march")
               and len(ev.get("squares", [])) == 2 and ev["turn"] > 0)
    other = next(ev for ev in log["events"] if ev["action"] in ("move", "march")
                 and ev["unit"] != big["unit"] and ev.get("to") is not None)
    bad = {**log, "events": [other, {**big, "squares": [big["to"], other["to"]]}]}
    with pytest.raises(DustsimError, match="held by unit"):
        check_log_on_board(bad, setup.board)


def test_skills_table_and_notes():
    from dustsim.rules.skills import SKILL_RULES, note_rule_names, unplayed_rules

    for name in ("large", "large vehicle", "huge", "huge vehicle"):
        assert SKILL_RULES[name].status == "played"
    notes = unplayed_rules([large(), huge()])
    assert note_rule_names(notes) == {"Large", "Huge"}  # named for their gap only
    assert all(" played in battles except duels on a line" in n for n in notes)
    # a battle with a Large vehicle names the footprint decisions; one without does not
    setup = replace(B.scenario_setup("101", 0), board=board(), boards=(board(),), turns=1)
    with_large = B.compile_battle([DuelUnit(large())], [DuelUnit(card("Inf", GUN))], setup,
                                  get_policy("advance"), attacker=0)
    without = B.compile_battle([DuelUnit(card("Inf2", GUN))], [DuelUnit(card("Inf", GUN))],
                               setup, get_policy("advance"), attacker=0)
    assert set(B.FOOTPRINT) <= set(with_large.notes)
    assert not set(B.FOOTPRINT) & set(without.notes)
