"""The Dust 1947 board: range, line of sight, cover, movement, arcs (seed 003 L580-655).

Grids in comments are drawn with row 0 at the bottom, column 0 on the left; squares are
``s = row * width + col``. Expected values are derived by hand from the rulebook lines cited.
"""

from __future__ import annotations

import numpy as np
import pytest

from dustsim.errors import DustsimError
from dustsim.play import board as B


def sq(w: int, col: int, row: int) -> int:
    return row * w + col


def board_with(w: int, h: int, cells: dict[tuple[int, int], int], **kw) -> B.Board:
    terrain = np.zeros(w * h, np.int8)
    for (c, r), t in cells.items():
        terrain[sq(w, c, r)] = t
    return B.make_board("test", w, h, terrain, **kw)


# ---- range: first diagonal 1, further diagonals 2 (L580-582) ---------------------------------

@pytest.mark.parametrize(("dc", "dr", "expected"), [
    (0, 5, 5),    # straight
    (1, 1, 1),    # one diagonal
    (2, 2, 3),    # 1 + 2
    (3, 3, 5),    # 1 + 2 + 2
    (3, 1, 3),    # one diagonal + two straight
    (3, 2, 4),    # 1 + 2 + 1
    (8, 11, 18),  # corner to corner of the 9 x 12 board: 1 + 7*2 + 3
])
def test_distance_diagonal_rule(dc, dr, expected):
    b = B.open_board(9, 12)
    a, t = sq(9, 0, 0), sq(9, dc, dr)
    assert B.distance(b, a, t) == expected
    assert b.dist[a, t] == expected == b.dist[t, a]


def test_table_layout_and_orientation():
    b = B.open_board(12, 9)
    n = 108
    assert (b.width, b.height, b.n) == (12, 9, n)
    assert b.terrain.dtype == np.int8 and b.terrain.shape == (n,)
    assert b.dist.dtype == np.int16 and b.dist.shape == (n, n)
    assert b.los.dtype == np.int8 and b.line_start.shape == (n * n + 1,)
    assert b.line_start.dtype == np.int32 and b.line_squares.dtype == np.int32
    assert b.cover.shape == (n, 3) and b.move_cost.shape == (n, 7)
    assert b.neighbours.shape == (n, 8) and b.deploy.shape == (2, n)
    # side A enters on row 0, side B on the last row
    assert b.deploy[0].nonzero()[0].tolist() == list(range(12))
    assert b.deploy[1].nonzero()[0].tolist() == list(range(96, 108))
    assert len(b.arrays()) == len(B.ARRAY_NAMES)
    with pytest.raises(ValueError):
        b.los[0, 1] = 2  # read-only tables


def test_neighbours_by_facing():
    b = B.open_board(3, 3)
    # centre (1,1) = 4: facing 0 is row+ -> (1,2) = 7; 2 is col+ -> 5; 4 row- -> 1; 6 col- -> 3
    assert b.neighbours[4].tolist() == [7, 8, 5, 2, 1, 0, 3, 6]
    # corner (0,0): only row+, diagonal, col+
    assert b.neighbours[0].tolist() == [3, 4, 1, -1, -1, -1, -1, -1]


# ---- sight lines -------------------------------------------------------------------------------

def test_trace_line_exact():
    # (0,0) -> (4,2): y = x/2 from (0.5,0.5): leaves through x=1 (y=.75) into (1,0), y=1
    # (x=1.5) into (1,1), x=2 (y=1.25) into (2,1), x=3 (y=1.75) into (3,1), y=2 (x=3.5) into
    # (3,2), x=4 into the target.
    w = 9
    got = B.trace_line(w, 12, sq(w, 0, 0), sq(w, 4, 2))
    assert got == [(sq(w, 1, 0), 0), (sq(w, 1, 1), 0), (sq(w, 2, 1), 0), (sq(w, 3, 1), 0),
                   (sq(w, 3, 2), 0)]
    # (0,0) -> (2,2) runs through the corners (1,1) and (2,2) of the grid:
    # corner pair (1,0),(0,1); crosses (1,1); corner pair (2,1),(1,2)
    got = B.trace_line(w, 12, sq(w, 0, 0), sq(w, 2, 2))
    assert got == [(sq(w, 1, 0), 1), (sq(w, 0, 1), 1), (sq(w, 1, 1), 0),
                   (sq(w, 2, 1), 1), (sq(w, 1, 2), 1)]


def test_one_corner_cover_two_opposing_corners_block():
    # row 1  X .        A at (0,0) shoots diagonally at T (1,1).
    # row 0  A X        X: small structures (impassable, block: L618)
    w = 3
    one = board_with(w, 3, {(1, 0): B.SMALL_STRUCTURE})
    both = board_with(w, 3, {(1, 0): B.SMALL_STRUCTURE, (0, 1): B.SMALL_STRUCTURE})
    a, t = sq(w, 0, 0), sq(w, 1, 1)
    assert B.line_of_sight(one, a, t) == B.LOS_COVER == one.los[a, t]    # L608
    assert B.line_of_sight(both, a, t) == B.LOS_BLOCKED == both.los[a, t]  # L610


def test_two_corners_not_opposing_give_cover():
    # row 2  . . T      A (0,0) -> T (2,2) passes the grid corners (1,1) and (2,2).
    # row 1  . . X      Blocking squares (1,0) and (2,1) lie on the same side of the line:
    # row 0  A X .      not opposing -> clear with cover (L608, LoS example 1, unit D)
    w = 3
    b = board_with(w, 3, {(1, 0): B.SMALL_STRUCTURE, (2, 1): B.SMALL_STRUCTURE})
    assert b.los[sq(w, 0, 0), sq(w, 2, 2)] == B.LOS_COVER
    # the two squares meeting at one corner off the line block it (unit E)
    b2 = board_with(w, 3, {(2, 1): B.SMALL_STRUCTURE, (1, 2): B.SMALL_STRUCTURE})
    assert b2.los[sq(w, 0, 0), sq(w, 2, 2)] == B.LOS_BLOCKED


def test_trees_block_beyond_but_not_inside():
    # row 0  A T x      trees at (1,0): A sees the unit in the trees (in cover by its square,
    #                   L680) but not the unit beyond (L616)
    w = 3
    b = board_with(w, 1, {(1, 0): B.TREES})
    a, tree, beyond = 0, 1, 2
    assert b.los[a, tree] == B.LOS_CLEAR and b.cover[tree, B.INFANTRY_CLASS] == 1
    assert b.los[a, beyond] == B.LOS_BLOCKED
    assert b.cover[beyond].tolist() == [0, 0, 0]


def test_tank_traps_and_trench_do_not_block_but_give_cover():
    w = 4
    b = board_with(w, 1, {(1, 0): B.TANK_TRAPS, (2, 0): B.TRENCH})
    assert b.los[0, 3] == B.LOS_CLEAR                         # L478, L3142
    assert b.cover[1].tolist() == [1, 0, 0]                   # tank traps: cover (L680)
    assert b.cover[2].tolist() == [1, 0, 0]                   # trench: infantry only (L3142)
    assert b.move_cost[1, B.FOOT] == 1
    assert b.move_cost[1, B.TRACKED] == B.IMPASSABLE          # vehicles cannot pass (L478)


def test_dynamic_blockers_vehicle_blocks_infantry_does_not():
    # row 0  A v . T    a vehicle at (1,0) blocks (L612); the same line with no blocker
    #                   (an infantry square is simply not passed) is clear; smoke likewise
    b = B.open_board(4, 1)
    assert B.line_of_sight(b, 0, 3) == B.LOS_CLEAR
    assert B.line_of_sight(b, 0, 3, blockers={1}) == B.LOS_BLOCKED
    # the target's own square never blocks (a unit in smoke can be targeted, L614)
    assert B.line_of_sight(b, 0, 3, blockers={3}) == B.LOS_CLEAR


def test_dynamic_corner_with_static_corner_blocks():
    # row 1  v .      vehicle (0,1) and structure (1,0): opposing corners of A->T -> blocked;
    # row 0  A X      vehicle alone -> cover
    w = 2
    b = board_with(w, 2, {(1, 0): B.SMALL_STRUCTURE})
    o = B.open_board(2, 2)
    a, t, v = sq(w, 0, 0), sq(w, 1, 1), sq(w, 0, 1)
    assert B.line_of_sight(b, a, t, blockers={v}) == B.LOS_BLOCKED
    assert B.line_of_sight(o, a, t, blockers={v}) == B.LOS_COVER


def _kernel_los(b: B.Board, a: int, t: int, dyn: np.ndarray, tall: bool) -> int:
    """The loop a Numba kernel runs on the CSR tables (as documented on Board)."""
    p = a * b.n + t
    base = b.los_tall[a, t] if tall else b.los[a, t]
    if base == B.LOS_BLOCKED:
        return 2
    res = int(base)
    k, end = b.line_start[p], b.line_start[p + 1]
    while k < end:
        s = b.line_squares[k]
        if b.line_corner[k] == 0:
            if dyn[s]:
                return 2
            k += 1
            continue
        s2 = b.line_squares[k + 1]
        o1, o2 = b.line_opaque[k], b.line_opaque[k + 1]
        b1 = dyn[s] or o1 == 1 or (o1 == 2 and not tall)
        b2 = dyn[s2] or o2 == 1 or (o2 == 2 and not tall)
        if b1 and b2:
            return 2
        if b1 or b2:
            res = max(res, 1)
        k += 2
    return res


def test_tables_agree_with_reference_under_random_blockers():
    rng = np.random.default_rng(7)
    w, h = 6, 5
    codes = [B.OPEN] * 8 + [B.TREES, B.SMALL_STRUCTURE, B.QUONSET_HUT, B.TANK_TRAPS]
    terrain = rng.choice(codes, size=w * h).astype(np.int8)
    b = B.make_board("random", w, h, terrain)
    assert (b.los == b.los.T).all() and (b.los_tall == b.los_tall.T).all()
    for _ in range(3):
        dyn = rng.random(w * h) < 0.15
        blockers = set(np.flatnonzero(dyn).tolist())
        for a in range(w * h):
            for t in range(w * h):
                if a == t:
                    continue
                d = dyn.copy()
                d[[a, t]] = False
                for tall in (False, True):
                    ref = B.line_of_sight(b, a, t, blockers, tall=tall)
                    assert _kernel_los(b, a, t, d, tall) == ref, (a, t, tall)


# ---- buildings (L618-620, L637) -----------------------------------------------------------------

def _house() -> B.Board:
    # row 5  . B B B .     a 3 x 3 building, one opening O at (2,3) in its bottom wall
    # row 4  . B B B .
    # row 3  . B O B .
    # row 2  . . . . .
    # row 1  . . . . .
    # row 0  . . . . .
    cells = {(c, r): B.BUILDING for c in (1, 2, 3) for r in (3, 4, 5)}
    cells[(2, 3)] = B.BUILDING_OPENING
    return board_with(5, 6, cells)


def test_building_seen_only_through_openings_near_a_unit():
    b, w = _house(), 5
    far, near = sq(w, 2, 0), sq(w, 2, 2)
    by_opening, deep = sq(w, 2, 4), sq(w, 2, 5)
    # the far unit sees a unit adjacent to the opening through it (L620)
    assert b.los[far, by_opening] == B.LOS_CLEAR
    # neither unit adjacent to the opening: blocked (L620, example unit J)
    assert b.los[far, deep] == B.LOS_BLOCKED
    # the outside unit adjacent to the opening sees deep inside
    assert b.los[near, deep] == B.LOS_CLEAR
    # (4,0) -> (3,4) passes (4,1), (4,2), (3,2) and then the wall square (3,3): blocked
    assert b.los[sq(w, 4, 0), sq(w, 3, 4)] == B.LOS_BLOCKED
    # (0,0) -> (3,4) passes (0,1), (1,1), (1,2), (2,2), then enters at the opening (2,3),
    # crosses (3,3) inside and reaches (3,4), which is adjacent to the opening: clear
    assert b.los[sq(w, 0, 0), sq(w, 3, 4)] == B.LOS_CLEAR
    # two units in the same building see each other (example units G and F, L637)
    assert b.los[sq(w, 1, 4), sq(w, 3, 5)] == B.LOS_CLEAR
    # the building blocks lines passing through it
    assert b.los[sq(w, 0, 4), sq(w, 4, 4)] == B.LOS_BLOCKED
    assert b.in_building[by_opening] and not b.in_building[far]
    assert b.cover[deep, B.INFANTRY_CLASS] == 1
    assert b.move_cost[deep, B.TRACKED] == B.IMPASSABLE


def test_walls_bar_steps_except_at_openings():
    b, w = _house(), 5
    # from (1,2) up into wall square (1,3): direction 0 (row+) is barred
    assert b.wall_mask[sq(w, 1, 2)] & (1 << 0)
    # from (2,2) up into the opening (2,3): allowed
    assert not b.wall_mask[sq(w, 2, 2)] & (1 << 0)
    # inside the building: free
    assert not b.wall_mask[sq(w, 2, 4)] & (1 << 4)


def test_quonset_hut_blocks_only_short_units():
    # row 0  A Q T : blocks infantry and ordinary vehicles, not walkers/Large/Huge (L3158)
    b = board_with(3, 1, {(1, 0): B.QUONSET_HUT})
    assert b.los[0, 2] == B.LOS_BLOCKED
    assert b.los_tall[0, 2] == B.LOS_CLEAR
    assert B.line_of_sight(b, 0, 2, tall=True) == B.LOS_CLEAR


def test_bunker_sees_only_its_front_half():
    # row 2  . . .      a bunker square at (1,1) facing 0 (row+): sees (1,2) and (0,1) (90
    # row 1  . K .      degrees, inclusive, L3134) but not (1,0) behind it
    # row 0  . . .
    w = 3
    facing = np.full(9, -1)
    facing[sq(w, 1, 1)] = 0
    b = board_with(w, 3, {(1, 1): B.BUNKER}, fort_facing=facing)
    k = sq(w, 1, 1)
    assert b.los[k, sq(w, 1, 2)] == B.LOS_CLEAR
    assert b.los[k, sq(w, 0, 1)] == B.LOS_CLEAR
    assert b.los[k, sq(w, 1, 0)] == B.LOS_BLOCKED
    # entered only through the rear door (L3126): from (1,0) yes, from (1,2) no
    assert not b.wall_mask[sq(w, 1, 0)] & (1 << 0)
    assert b.wall_mask[sq(w, 1, 2)] & (1 << 4)
    assert b.move_cost[k, B.WHEELED] == B.IMPASSABLE  # infantry only (L3128)


def test_height_ridge_blocks():
    # row 0  A H T : a level-2 square between two level-0 units blocks; from level 2 it is clear
    lv = np.array([0, 2, 0])
    b = B.make_board("hill", 3, 1, None, lv)
    assert b.los[0, 2] == B.LOS_BLOCKED
    lv2 = np.array([2, 2, 0])
    assert B.make_board("hill2", 3, 1, None, lv2).los[0, 2] == B.LOS_CLEAR


# ---- fire arcs (L584-598) -------------------------------------------------------------------

@pytest.mark.parametrize(("dc", "dr", "bits"), [
    (0, 1, B.FRONT),             # straight ahead
    (1, 1, B.FRONT | B.SIDE),    # 45 degrees: front (inclusive) and side
    (1, 2, B.FRONT | B.SIDE),    # 27 degrees
    (2, 1, B.SIDE),              # 63 degrees
    (1, 0, B.SIDE),              # 90 degrees
    (-1, -1, B.REAR | B.SIDE),   # 135 degrees
    (0, -2, B.REAR),             # straight behind
])
def test_arcs_facing_row_plus(dc, dr, bits):
    b = B.open_board(5, 5)
    a = sq(5, 2, 2)
    t = sq(5, 2 + dc, 2 + dr)
    assert B.arc_of(b, a, 0, t) == bits == b.arc[0, a, t]
    # facing the other way (4) swaps front and rear
    swapped = (bits & B.SIDE) | (B.FRONT if bits & B.REAR else 0) | (
        B.REAR if bits & B.FRONT else 0)
    assert B.arc_of(b, a, 4, t) == swapped


# ---- cache, errors ------------------------------------------------------------------------------

def test_same_terrain_same_tables_computed_once():
    a = B.open_board(9, 12)
    b = B.make_board("other name", 9, 12, objectives=[50])
    assert a.los is b.los and a.line_squares is b.line_squares and a.dist is b.dist
    c = board_with(9, 12, {(4, 4): B.TREES})
    assert c.los is not a.los


def test_bad_boards_are_one_line_errors():
    with pytest.raises(DustsimError, match="width"):
        B.open_board(0, 5)
    with pytest.raises(DustsimError, match="terrain"):
        B.make_board("x", 2, 2, [0, 0, 0, 99])
    with pytest.raises(DustsimError, match="objective"):
        B.make_board("x", 2, 2, objectives=[7])


def test_arc_table_matches_arc_of_everywhere():
    b = B.open_board(4, 5)
    for d in range(8):
        for a in range(b.n):
            for t in range(b.n):
                assert b.arc[d, a, t] == B.arc_of(b, a, d, t)


# ---- movement (L461-506, L516, L3527-3529) ------------------------------------------------------

def test_steps_by_movement_class():
    # row 1  . S .      S: small structure (impassable, L478); X: tank traps (L482)
    # row 0  . X .
    w = 3
    b = board_with(w, 2, {(1, 1): B.SMALL_STRUCTURE, (1, 0): B.TANK_TRAPS})
    a = sq(w, 0, 0)
    east, northeast = 2, 1
    assert B.can_step(b, B.FOOT, a, east)            # infantry cross tank traps
    assert not B.can_step(b, B.TRACKED, a, east)     # vehicles do not
    assert not B.can_step(b, B.FOOT, a, northeast)   # into the structure: no
    assert B.can_step(b, B.JUMP, a, northeast)       # jump troops pass over it (L3529)
    assert B.can_step(b, B.FLYING, a, northeast)     # aircraft fly over (L516)
    # a vehicle may not cut the corner of an impassable square diagonally (L506):
    # row 1  v S .      the step (0,1) -> (1,0) (direction 3, south-east) passes the corner
    # row 0  . . .      of the structure at (1,1)
    o = board_with(w, 2, {(1, 1): B.SMALL_STRUCTURE})
    assert not B.can_step(o, B.WHEELED, sq(w, 0, 1), 3)
    assert B.can_step(o, B.FOOT, sq(w, 0, 1), 3)          # infantry may (vehicles only, L506)
    assert B.can_step(B.open_board(3, 2), B.WHEELED, sq(w, 0, 1), 3)


def test_terrain_dice_table():
    # barbed wire: one die, moves on with the primary face, 1/3 (L3146); minefield: a Blast
    # attack doing 1 damage to infantry and 2 to vehicles (L3152)
    wire, mines = B.TERRAIN_DICE["barbed_wire"], B.TERRAIN_DICE["minefield"]
    assert wire["terrain"] == B.BARBED_WIRE and wire["dice"] == 1
    assert wire["p_success"] == pytest.approx(1 / 3)
    assert (mines["damage_infantry"], mines["damage_vehicle"]) == (1, 2)
    assert mines["attack"] == "blast"
