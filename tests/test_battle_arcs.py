"""Vehicle fire arcs on the board (1947 L584-598): the arc geometry, attacks from where a
vehicle stands, its facing at the end of a Move (L461) and the event log's arc check."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from battle_states import HandPlaced

from dustsim.army.lists import load_list
from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.board import in_arc
from dustsim.play.duel_kernel import H_ST, H_UNITS, H_WS
from dustsim.review.replay_rules import check_log_on_board

W, H = 8, 7
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "lists"


def sq(c, r):
    return r * W + c


# -- the geometry (L588-594), by hand -------------------------------------------------------------
# offsets (dcol, drow) from a vehicle facing row+ (facing 0; col+ is its right, board.DIRECTIONS)
AHEAD, AHEAD_45, AHEAD_WIDE, BESIDE_R, BESIDE_L, BEHIND, BEHIND_45 = (
    (0, 2), (2, 2), (2, 1), (1, 0), (-3, 0), (0, -1), (-1, -1))
EXPECTED = {  # arc -> the offsets in it, by L588 (front, 45 degrees either side, inclusive),
    # L590 (rear, likewise), L592 (a side: its half, not straight ahead or behind), L594
    "front": {AHEAD, AHEAD_45},
    "rear": {BEHIND, BEHIND_45},
    "left": {BESIDE_L, BEHIND_45},
    "right": {AHEAD_45, AHEAD_WIDE, BESIDE_R},
    "turret": {AHEAD, AHEAD_45, AHEAD_WIDE, BESIDE_R, BESIDE_L, BEHIND, BEHIND_45},
}
CODES = {"front": BK.ARC_FRONT, "rear": BK.ARC_REAR, "left": BK.ARC_LEFT,
         "right": BK.ARC_RIGHT, "turret": BK.ARC_ALL}


@pytest.mark.parametrize("arc", sorted(EXPECTED))
def test_arc_geometry_by_hand(arc):
    a = sq(4, 3)
    for off in (AHEAD, AHEAD_45, AHEAD_WIDE, BESIDE_R, BESIDE_L, BEHIND, BEHIND_45):
        b = sq(4 + off[0], 3 + off[1])
        want = off in EXPECTED[arc]
        assert bool(BK._in_arc(W, CODES[arc], 0, a, b)) == want, (arc, off)
        assert in_arc(W, arc, 0, a, b) == want, (arc, off)  # the log checker's reference
        # turned round (facing 4, row-): the mirror offset holds the same answer
        b2 = sq(4 - off[0], 3 - off[1])
        assert bool(BK._in_arc(W, CODES[arc], 4, a, b2)) == want, (arc, off)
        assert in_arc(W, arc, 4, a, b2) == want, (arc, off)


def test_arc_geometry_facing_a_diagonal():
    # facing 1 points at (1, 1): the front arc is the quarter between (1, 0) and (0, 1), both
    # 45 degrees off and included (L588); (1, -1) is 90 degrees off: a side (right), not front
    a = sq(4, 3)
    for off, front, right in (((1, 1), True, False), ((1, 0), True, True),
                              ((0, 1), True, False), ((1, -1), False, True),
                              ((-1, 1), False, False)):
        b = sq(4 + off[0], 3 + off[1])
        assert bool(BK._in_arc(W, BK.ARC_FRONT, 1, a, b)) == front, off
        assert bool(BK._in_arc(W, BK.ARC_RIGHT, 1, a, b)) == right, off
        assert in_arc(W, "front", 1, a, b) == front and in_arc(W, "right", 1, a, b) == right


# -- a vehicle that stands still fires only within its arcs (L584-598) ---------------------------
def weapon(mount, name="gun"):
    cells = {"I1": "3/1", "V2": "3/1"}
    line = tuple(parse_cell(cells.get(c, "-")) for c in COLUMNS)
    return Weapon(name=name, line=line, count=1, range="6", keywords=(), ammo=None,
                  mount=mount)


def card(name, *weapons, kind="vehicle"):
    armour = {"vehicle": "V2", "hero": "I1"}[kind]
    return Card(name=name, edition="dust-1947", kind=kind, armour=armour, ap=5,
                damage_track=5, move=2, march_move=4, weapons=weapons, skills=(),
                size="standard")


class Game(HandPlaced):
    """A compiled battle with units placed by hand (square, facing), turn 1, logging on."""

    def __init__(self, side_a, side_b, places, faces="PPPTTTTTTTTT"):
        super().__init__(BD.make_board("test", W, H, np.zeros(W * H, np.int8)), side_a,
                         side_b, places, faces, log_rows=50)

    def offence(self, u=0):
        """u's best targets from its square, committed: the value and line 0's target."""
        s = self.m[self.m[0, H_ST] + u, BK.ST_SQ]
        BK._line_values(self.m, self.spec.f, u, self.val)
        v = BK._offence(self.m, self.spec.f, self.spec.bd, self.spec.ls, self.spec.lq, u, s,
                        BK.ON, self.val)
        return v, int(self.m[self.m[0, H_WS] + self.w0(u), BK.WS_TGT])

    def w0(self, u):
        return int(self.m[self.m[0, H_UNITS] + u, 9])  # U_W0

    def attack(self, u=0):
        BK._attack(self.rng, self.buf, np.int64(0), BK.ON, self.m, self.spec.bd, self.spec.ls,
                   self.spec.lq, self.log, u, BK.OFF, BK.OFF, BK.A_ATTACK)
        return [r for r in self.log[: self.m[BK.R_B, BK.B_LOGN]]
                if r[BK.L_ACTION] == BK.A_ATTACK and r[BK.L_UNIT] == u]

    def face(self, u=0):
        return int(self.m[self.m[0, H_ST] + u, BK.ST_FACE])


@pytest.mark.parametrize("mount, fires", [("front", False), ("turret", True), ("rear", True),
                                          ("left", False), (None, True)])
def test_a_standing_tank_fires_at_an_enemy_behind_it_only_with_a_turret_or_rear_gun(mount,
                                                                                       fires):
    # the tank on (3,3) faces row+ (facing 0); the enemy stands straight behind it on (3,1),
    # range 2 and in sight: a front- or side-mounted gun cannot reach it (L588, L592), a
    # turret or rear gun can (L590, L594); a line with no mount fires all round
    g = Game([card("Tank", weapon(mount))], [card("Inf", weapon(None), kind="hero")],
             [(sq(3, 3), 0), (sq(3, 1), 4)])
    v, tgt = g.offence()
    assert (tgt == 1) == fires and (v > 0.0) == fires
    # even with the target declared by hand, the kernel fires only within the arc
    g.m[g.m[0, H_WS] + g.w0(0), BK.WS_TGT] = 1
    rows = g.attack()
    assert (len(rows) == 1) == fires
    if fires:
        assert rows[0][BK.L_TARGET] == 1 and rows[0][BK.L_FACE] == 0
    assert g.face() == 0  # an Attack never turns it (L598)


def test_a_front_gun_fires_at_an_enemy_ahead_and_within_45_degrees():
    for enemy, fires in ((sq(3, 5), True), (sq(5, 5), True), (sq(6, 4), False)):
        g = Game([card("Tank", weapon("front"))], [card("Inf", weapon(None), kind="hero")],
                 [(sq(3, 3), 0), (enemy, 4)])
        assert (g.offence()[1] == 1) == fires, enemy


def test_the_end_of_a_move_turns_the_tank_to_the_edge_it_fires_best_from():
    # after a Move (L461) the tank faces the edge whose arcs hold the best targets: its only
    # gun is rear-mounted, the enemy east of it: it turns its back to it (facing 6, towards
    # col-), though the nearest-enemy edge is east (facing 2)
    g = Game([card("Tank", weapon("rear"))], [card("Inf", weapon(None), kind="hero")],
             [(sq(2, 3), 0), (sq(6, 3), 4)])
    assert BK._edge_face(g.m, g.spec.bd, 0, sq(2, 3), -1) == 2
    BK._turn(g.m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, g.log, 0, g.val, BK.OFF)
    assert g.face() == 6
    assert g.offence()[1] == 1


# -- the event log ---------------------------------------------------------------------------
def _example_game(a: str, b: str, seed: int):
    """(spec, event log as JSON gives it) of one game of two example lists on 101."""
    spec = B.prepare(load_list(EXAMPLES / f"{a}.toml"), load_list(EXAMPLES / f"{b}.toml"),
                     scenario="101", seed=seed, boards=1)
    return spec, json.loads(json.dumps(B.event_log(spec, 0)))


@pytest.fixture(scope="module")
def logged():
    return _example_game("allies-rangers", "axis-heavy-grenadiers", 2)


def test_logged_vehicle_attacks_are_in_arc_and_the_checker_rejects_one_outside(logged):
    spec, log = logged
    board = spec.setup.board
    arcs = {(u["id"], w["line"]): w["arc"] for u in log["units"] for w in u["weapons"]
            if "arc" in w}
    assert arcs and set(arcs.values()) <= {"front", "rear", "left", "right"}
    check_log_on_board(log, board)
    vehicles = {u for u, _w in arcs} - {u["id"] for u in log["units"] if "footprint" in u}
    moves = [ev for ev in log["events"] if ev["action"] in ("move", "march")
             and ev["unit"] in vehicles and ev["turn"] > 0 and len(ev.get("path", ())) >= 2]
    assert moves and all(ev["facing"] % 2 == 0 for ev in moves)  # an edge (L461)
    fired = [i for i, ev in enumerate(log["events"]) if ev["action"] in ("attack", "sustained")
             and any((ev["unit"], w) in arcs for w in ev["weapons"])]
    assert fired
    i = fired[0]
    turned = json.loads(json.dumps(log))  # the same attack fired facing the other way
    turned["events"][i]["facing"] = (log["events"][i]["facing"] + 4) % 8
    with pytest.raises(DustsimError, match="outside its arc"):
        check_log_on_board(turned, board)
    del turned["events"][i]["facing"]
    with pytest.raises(DustsimError, match="facing"):
        check_log_on_board(turned, board)


# -- a two-success reaction may rotate in place, then Attack (L805) ------------------------------
def react(g, mover=1):
    """A reaction to ``mover`` (L795-813) with the scripted dice; the log's rows."""
    BK._react(g.rng, g.buf, np.int64(0), BK.ON, g.m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq,
              g.log, mover)
    return [r for r in g.log[: g.m[BK.R_B, BK.B_LOGN]]]


@pytest.mark.parametrize("faces, turns", [("PPPPPP", True), ("PTPPPP", False)])
def test_a_front_gun_tank_reacting_with_two_successes_turns_to_the_mover_behind_it(faces,
                                                                                   turns):
    # the tank on (3,3) faces row+ (facing 0); the mover stands straight behind it on (3,1),
    # range 2: its front gun cannot fire as it faces (L588). Two successes (P, P): a Move
    # that rotates it in place (L805) to the edge facing row- (facing 4, L461), then an
    # Attack (not a Sustained one) whose dice are the next faces; one success (P, T): a plain
    # Attack as it faces, which its front gun cannot make (no attack row)
    g = Game([card("Tank", weapon("front"))], [card("Inf", weapon(None), kind="hero")],
             [(sq(3, 3), 0), (sq(3, 1), 4)], faces=faces)
    rows = react(g)
    acts = [int(r[BK.L_ACTION]) for r in rows if r[BK.L_UNIT] == 0]
    assert acts[0] == BK.A_REACTION and rows[0][BK.L_HITS] == (2 if turns else 1)
    if turns:
        assert acts[1:] == [BK.A_MOVE, BK.A_ATTACK]
        mv, at = rows[1], rows[2]
        assert mv[BK.L_FROM] == mv[BK.L_TO] == sq(3, 3) and mv[BK.L_RANGE] == 4
        assert at[BK.L_TARGET] == 1 and at[BK.L_FACE] == 4 and g.face() == 4
    else:
        assert acts[1:] == [] and g.face() == 0


@pytest.mark.parametrize("mount, enemy", [("turret", sq(3, 1)), ("front", sq(3, 5))])
def test_a_reaction_that_can_fire_as_it_stands_keeps_the_sustained_attack(mount, enemy):
    # a turret fires all round (L594) and a front gun at an enemy ahead (L588): turning gains
    # nothing, so two successes make the Sustained Attack (L805) where the tank stands
    g = Game([card("Tank", weapon(mount))], [card("Inf", weapon(None), kind="hero")],
             [(sq(3, 3), 0), (enemy, 4)], faces="PPPPPP")
    acts = [int(r[BK.L_ACTION]) for r in react(g) if r[BK.L_UNIT] == 0]
    assert acts == [BK.A_REACTION, BK.A_SUSTAINED] and g.face() == 0


@pytest.fixture(scope="module")
def turned():
    # a game (the example pairing, seed 0) in which Ludwig's two-success reaction turns it
    return _example_game("axis-heavy-grenadiers", "ssu-red-army", 0)


def test_a_logged_rotation_in_place_follows_a_two_success_reaction_and_passes_the_checker(
        turned, tmp_path):
    from dustsim.review.replay import write_replay

    spec, log = turned
    evs = log["events"]
    rot = [i for i, ev in enumerate(evs) if ev["action"] == "move" and ev["turn"] > 0
           and ev["from"] == ev["to"]]
    assert rot
    for i in rot:
        ev, prev, nxt = evs[i], evs[i - 1], evs[i + 1]
        assert ev["path"] == [ev["to"]] and ev["cost"] == 0
        assert ev["facing"] % 2 == 0  # an edge (L461)
        assert prev["action"] == "reaction" and prev["unit"] == ev["unit"] and prev["hits"] >= 2
        assert nxt["action"] == "attack" and nxt["unit"] == ev["unit"]
        assert nxt["facing"] == ev["facing"] and nxt["target"] == prev["target"]
    check_log_on_board(log, spec.setup.board)
    page = write_replay(log, tmp_path / "r.html")
    assert "turns in place" in page.read_text()
    i = rot[0]
    one = json.loads(json.dumps(log))  # the same rotation after a one-success reaction
    one["events"][i - 1]["hits"] = 1
    with pytest.raises(DustsimError, match="two successes"):
        check_log_on_board(one, spec.setup.board)
