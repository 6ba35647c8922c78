"""The Dust 1947 battlefield: a grid of squares and its per-map lookup tables.

Squares are indexed ``s = row * width + col`` (``col`` 0..width-1, ``row`` 0..height-1). Side A
(index 0) has its table edge on row 0, side B (index 1) on row ``height - 1``. The rulebook's
play area is 9 x 12 squares for every scenario (seed 003 L2437, L2482 and each scenario's "Play
Area"); a scenario whose players face each other across the short edges is built 9 wide and 12
high, one played across the long edges 12 wide and 9 high, so the two sides' edges are always
rows 0 and ``height - 1`` (see :mod:`dustsim.play.scenarios`).

Everything here is static (terrain only) and computed once per map (:func:`make_board` caches
the tables by terrain): range (:data:`Board.dist`, the diagonal rule of L580-582), line of sight
dot to dot with the corner rule (L602-655), cover per unit class (L680, L3142), movement cost
per movement class (L461-486, L506, L516, L3527, L3547, L3689, L3697), fire arcs per facing
(L584-598).
Dynamic blockers (vehicles, smoke) are tested by the kernels on the stored sight lines
(:data:`Board.line_start` ...), exactly as :func:`line_of_sight` does here in pure Python.

Decisions the rulebook leaves open are written where the rule is applied, each citing lines;
``BOARD_DECISIONS`` lists them for the CLI and the docs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dustsim.errors import DustsimError
from dustsim.limits import CAPS, check_int

# --------------------------------------------------------------------------------------------
# Terrain codes (int8). L470-486 (terrain types), L3110-3158 (special terrain).
OPEN = 0  #: open ground: passable, no cover, no effect on sight (L472)
BUILDING = 1  #: building interior square: infantry only; blocks sight through it (L484, L618)
TREES = 2  #: trees: passable, cover inside, block sight to what lies beyond (L474, L616, L680)
TANK_TRAPS = 3  #: no effect on sight, cover inside, vehicles cannot enter (L482, L680)
SMALL_STRUCTURE = 4  #: pillar, fuel tank, silo: impassable, blocks sight (L478, L618)
TRENCH = 5  #: no effect on sight; infantry inside are in cover (L3140-3142)
BARBED_WIRE = 6  #: infantry roll to cross (L3144-3148): see :data:`TERRAIN_DICE`
MINEFIELD = 7  #: attacks units crossing it (L3150-3154): see :data:`TERRAIN_DICE`
QUONSET_HUT = 8  #: short building: blocks sight except for walkers, Large, Huge (L3156-3158)
STRONGPOINT = 9  #: fortification interior (1 x 2 squares, L3128): infantry only, all-round sight
BUNKER = 10  #: fortification interior, faces one way, entered from the rear (L3126, L3130)
BUILDING_OPENING = 11  #: building square with an opening in its outer wall (L484, L618-620)
AMMO_CRATES = 12  #: no effect on sight, cover inside (L481, L680)
ROAD = 13  #: open ground; +1/+2 move on roads for wheeled/tracked/half-tracked (L475)
RUBBLE = 14  #: cover inside; wheeled, tracked, half-tracked cannot enter (L476, L680)
WATER = 15  #: deep water: impassable except amphibious and aircraft (L480, L3411-3413)
SWAMP = 16  #: infantry and walkers only (L479)
BRIDGE = 17  #: open ground over water (scenario 110, L2783)
SOLID = 18  #: a square without a dot (solid rock, sewer wall): impassable, blocks (L604-606)

TERRAIN_NAMES: tuple[str, ...] = (
    "open", "building", "trees", "tank traps", "small structure", "trench", "barbed wire",
    "minefield", "quonset hut", "strongpoint", "bunker", "building opening", "ammo crates",
    "road", "rubble", "water", "swamp", "bridge", "solid",
)
N_TERRAIN = len(TERRAIN_NAMES)

# Movement classes (columns of Board.move_cost). Tracked/Wheeled/Half-tracked are the skills of
# L3689, L3697, L3547 (their terrain table, pages 19-20, was lost in conversion: the surviving
# text L475-480 treats the three alike, so their columns agree everywhere); WALKER is a vehicle
# with none of those skills (L476, L479: walkers cross rubble and swamp); JUMP is infantry with
# the Flying skill (jetpacks, L3527-3529: passes over any terrain as open ground, ends only where
# it could stand: where the FOOT column is passable); FLYING is an aircraft (L516: terrain
# has no effect, it is placed above it).
FOOT, TRACKED, WHEELED, HALF_TRACKED, WALKER, JUMP, FLYING = range(7)
MOVE_CLASS_NAMES: tuple[str, ...] = (
    "foot", "tracked", "wheeled", "half-tracked", "walker", "jump", "flying",
)
N_MOVE_CLASSES = 7
IMPASSABLE = 99

# Unit classes (columns of Board.cover).
INFANTRY_CLASS, VEHICLE_CLASS, AIRCRAFT_CLASS = 0, 1, 2

# Line-of-sight codes of Board.los.
LOS_CLEAR, LOS_COVER, LOS_BLOCKED = 0, 1, 2

# Static opacity of one sight-line entry (Board.line_opaque).
SEE_THROUGH, OPAQUE, OPAQUE_UNLESS_TALL = 0, 1, 2

# Fire-arc bits (Board.arc, arc_of): L584-598. A square may lie in two arcs: side arcs are the
# half planes left and right of the vehicle except the straight front/rear line (L592), so a
# square 30 degrees off the front is in the front arc and in a side arc.
FRONT, REAR, SIDE = 1, 2, 4
TURRET = FRONT | REAR | SIDE  #: a turret fires all round (L594); infantry too (L586)

#: Facing d (0-7) points at (dcol, drow) = DIRECTIONS[d]; 0 is towards row+ (side A's front),
#: counting clockwise as seen with row 0 at the bottom. The rulebook faces a square's edge
#: (L461): even facings 0, 2, 4, 6; odd (diagonal) ones are accepted for completeness.
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1),
)

#: Aircraft see, and are seen by, every unit not in a building (L655); they see over terrain
#: and units. A kernel treats a pair where one unit is an aircraft as: if the other unit's
#: square has ``in_building`` set, use the ground table ``los`` (the sight line through an
#: opening, L655); otherwise clear, with no terrain-given cover (aircraft are placed above
#: terrain, L516) and no dynamic blockers. Units in a bunker never fire at aircraft (L3132).
AIRCRAFT_SEE_ALL = True

#: Dice of special terrain, for the battle kernel (faces as in RULES.md: P = the bloc/primary
#: face, 1/3 of a die). Barbed wire: an infantry unit moving into, through or out of it rolls
#: one die; P = it moves on, else it stops, ends its activation and has no cover save until its
#: next activation (L3146); clearing a gap: one die, P (L3148). Minefield: a unit moving into,
#: through or out of it is attacked by the opposing player with a weapon line Blast/1 against
#: infantry, Blast/2 against vehicles (L3152; the glyph is the blast symbol, digest section 3),
#: so a squad rolls one die per miniature and each hit does that damage; clearing a gap: one
#: die, P, else the unit is attacked as above and takes a Suppression token (L3154).
TERRAIN_DICE: dict[str, dict[str, Any]] = {
    "barbed_wire": {"terrain": BARBED_WIRE, "applies_to": "infantry", "dice": 1,
                    "success": "P", "p_success": 1 / 3, "on_fail": "stop, end activation, "
                    "no cover save until next activation", "lines": "L3144-3148"},
    "minefield": {"terrain": MINEFIELD, "applies_to": "all", "attack": "blast",
                  "damage_infantry": 1, "damage_vehicle": 2, "p_hit": 1 / 3,
                  "lines": "L3150-3154"},
}

BOARD_DECISIONS: tuple[tuple[str, str], ...] = (
    ("orientation", "side A's edge is row 0, side B's row height-1; short-edge scenarios are "
     "9 wide x 12 high, long-edge ones 12 x 9 (L2482, L2486, L2524)"),
    ("range", "first diagonal 1, each further diagonal 2: max(dx,dy)+max(0,min(dx,dy)-1) "
     "(L582)"),
    ("corners", "a sight line through a grid corner touches the two squares that meet there "
     "off the line; one blocking such square gives cover, both block (L608-610); a vehicle "
     "square counts as a blocking square for this (L612)"),
    ("endpoints", "the shooter's and the target's own squares never block; trees and smoke "
     "block only what lies beyond (L614-616)"),
    ("buildings", "a building is a group of BUILDING/BUILDING_OPENING squares; openings are "
     "squares whose outer wall has an opening. A line into or out of a building must cross "
     "its wall at an opening square, with the outside unit or the inside unit within range 1 "
     "of that opening (a unit in the opening square counts) (L618-620); two units in the same "
     "building see each other (L637); any other building square blocks; openings take "
     "infantry only (vehicles never enter buildings, L484)"),
    ("fortifications", "a strongpoint or bunker is its 1 x 2 interior (L3128); its squares "
     "block lines through them except lines from/to that fortification; a bunker sees and is "
     "seen only within 90 degrees of its facing, inclusive (L3130); its occupants are in "
     "cover (OPEN-17: like buildings, L680) and re-roll failed saves in the kernel (L3132)"),
    ("aircraft", "aircraft see and are seen by every unit not in a building, opening or bunker "
     "(L655; a strongpoint lacks the roof, L3114, so it is open to them); see "
     "AIRCRAFT_SEE_ALL"),
    ("quonset", "a Quonset hut square is impassable and blocks ground sight unless the shooter "
     "or the target is a walker or a Large/Huge vehicle (L3156-3158): tables los_tall, "
     "line_opaque code 2"),
    ("height", "an intermediate square higher than both ends blocks (a corner of one gives "
     "cover); the rulebook gives no grid rule for hills (L3092-3098 only define the advantage)"),
    ("movement", "move_cost is the cost to enter a square; the terrain table (pp. 19-20) is "
     "lost: trees, trenches, wire, minefields, roads, ammo crates, bridges cost 1; mud and "
     "sand are not modelled; wall_mask bars steps through building walls except at openings "
     "and into a bunker except from its rear (L3126)"),
    ("cover", "cover[:, infantry]: building, opening, trees, tank traps, ammo crates, rubble, "
     "trench, strongpoint, bunker; cover[:, vehicle]: trees, ammo crates, rubble (the only "
     "cover squares a vehicle can stand in); cover[:, aircraft] is 0: aircraft are above "
     "terrain (L516, L680); smoke is dynamic (OPEN-18: units in smoke are in cover)"),
    ("arcs", "front/rear: target square centre within 45 degrees (inclusive) of the facing "
     "line; side: any square not straight ahead or behind (L588-594); centre of squares"),
    ("dynamic", "vehicles (L612), smoke (L614) and wrecks (L486: a destroyed vehicle stays as "
     "terrain that blocks sight and gives cover) are the kernels' dynamic blockers on the "
     "stored sight lines; the road bonus (+1 Move, +2 March Move on roads only, L475) is the "
     "kernel's, from terrain ROAD"),
    ("not modelled", "mud and sand (halved moves, L473, L477), walls on square edges and "
     "multi-storey buildings (L484), vehicles crushing ammo crates (L481), amphibious "
     "movement (L3411-3413)"),
)

# Per-terrain properties --------------------------------------------------------------------
_INF = IMPASSABLE
# move cost rows: terrain -> (FOOT, TRACKED, WHEELED, HALF_TRACKED, WALKER, JUMP, FLYING)
_MOVE: dict[int, tuple[int, ...]] = {
    OPEN: (1, 1, 1, 1, 1, 1, 1),
    BUILDING: (1, _INF, _INF, _INF, _INF, 1, 1),
    TREES: (1, 1, 1, 1, 1, 1, 1),
    TANK_TRAPS: (1, _INF, _INF, _INF, _INF, 1, 1),
    SMALL_STRUCTURE: (_INF, _INF, _INF, _INF, _INF, 1, 1),
    TRENCH: (1, 1, 1, 1, 1, 1, 1),
    BARBED_WIRE: (1, 1, 1, 1, 1, 1, 1),
    MINEFIELD: (1, 1, 1, 1, 1, 1, 1),
    QUONSET_HUT: (_INF, _INF, _INF, _INF, _INF, 1, 1),
    STRONGPOINT: (1, _INF, _INF, _INF, _INF, 1, 1),
    BUNKER: (1, _INF, _INF, _INF, _INF, 1, 1),
    BUILDING_OPENING: (1, _INF, _INF, _INF, _INF, 1, 1),
    AMMO_CRATES: (1, 1, 1, 1, 1, 1, 1),
    ROAD: (1, 1, 1, 1, 1, 1, 1),
    RUBBLE: (1, _INF, _INF, _INF, 1, 1, 1),
    WATER: (_INF, _INF, _INF, _INF, _INF, 1, 1),
    SWAMP: (1, _INF, _INF, _INF, 1, 1, 1),
    BRIDGE: (1, 1, 1, 1, 1, 1, 1),
    SOLID: (_INF, _INF, _INF, _INF, _INF, _INF, _INF),
}
# cover rows: terrain -> (infantry, vehicle, aircraft)
_COVER: dict[int, tuple[int, int, int]] = {
    BUILDING: (1, 0, 0), BUILDING_OPENING: (1, 0, 0), TREES: (1, 1, 0), TANK_TRAPS: (1, 0, 0),
    AMMO_CRATES: (1, 1, 0), RUBBLE: (1, 1, 0), TRENCH: (1, 0, 0), STRONGPOINT: (1, 0, 0),
    BUNKER: (1, 0, 0),
}
_ALWAYS_OPAQUE = frozenset({TREES, SMALL_STRUCTURE, SOLID})
_BUILDINGS = frozenset({BUILDING, BUILDING_OPENING})
_FORTS = frozenset({STRONGPOINT, BUNKER})


@dataclass(frozen=True, eq=False, repr=False)
class Board:
    """One battlefield and its lookup tables (all arrays read-only; see the module docstring).

    Contract fields (TEAM.md): ``terrain int8[n]``, ``height_level int8[n]``, ``dist
    int16[n,n]``, ``los int8[n,n]`` (0 clear, 1 cover by one corner, 2 blocked; ground units,
    static terrain), ``line_start int32[n*n+1]``/``line_squares int32[m]``/``line_corner
    int8[m]`` (CSR over ordered pairs ``p = a*n + b``: the squares the line crosses, in order
    from a to b, ends excluded; corner-touched squares come as consecutive pairs, the two
    squares meeting off the line at one grid corner, with ``line_corner`` 1), ``cover
    int8[n,3]``, ``move_cost int8[n,7]``, ``neighbours int32[n,8]`` (by facing direction, -1
    off the board), ``deploy bool[2,n]``, ``objectives int32[k]``, ``exit_edge int8[2]``.

    Extras: ``los_tall`` (the ``los`` table when the shooter or target is a walker or a Large
    or Huge vehicle: Quonset huts transparent), ``line_opaque int8[m]`` (per line entry, the
    square's static opacity for that line: 0, 1 opaque, 2 opaque unless tall), ``in_building
    bool[n]`` (building, opening or bunker square: aircraft rule L655; a strongpoint has no
    roof, L3114, so aircraft see into it), ``building_id
    int16[n]`` (-1 or the index of the building the square belongs to), ``wall_mask
    uint8[n]`` (bit d: a ground step from this square in direction d crosses a wall),
    ``fort_facing int8[n]`` (bunker facing, -1 elsewhere), ``arc int8[8,n,n]`` (fire-arc bits
    of target square b from square a for facing d), ``objective_area int16[n]`` (-1 or the
    index into ``objectives`` of the objective that a unit on this square holds),
    ``exit_mask bool[2,n]`` (squares from which side s may exit the board), ``enters
    bool[2]`` (side s starts off the board and enters onto its ``deploy`` squares, L2441),
    ``cliff_mask uint8[n]`` (bit d: the step from this square in direction d goes up or down
    a cliff face: never for vehicles; for infantry only where ``cliff_climb[0]`` is set, by
    two consecutive March Moves, scenario 112 L2846; jump troops and aircraft fly over it).
    """

    name: str
    width: int
    height: int
    terrain: np.ndarray
    height_level: np.ndarray
    dist: np.ndarray
    los: np.ndarray
    line_start: np.ndarray
    line_squares: np.ndarray
    line_corner: np.ndarray
    cover: np.ndarray
    move_cost: np.ndarray
    neighbours: np.ndarray
    deploy: np.ndarray
    objectives: np.ndarray
    exit_edge: np.ndarray
    los_tall: np.ndarray = field(repr=False)
    line_opaque: np.ndarray = field(repr=False)
    in_building: np.ndarray = field(repr=False)
    building_id: np.ndarray = field(repr=False)
    wall_mask: np.ndarray = field(repr=False)
    fort_facing: np.ndarray = field(repr=False)
    arc: np.ndarray = field(repr=False)
    objective_area: np.ndarray = field(repr=False)
    exit_mask: np.ndarray = field(repr=False)
    enters: np.ndarray = field(repr=False)
    cliff_mask: np.ndarray = field(repr=False)
    cliff_climb: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        terrain = int((self.terrain != OPEN).sum())
        return (f"Board({self.name!r}, {self.width} x {self.height}, {terrain} terrain "
                f"squares, {len(self.objectives)} objectives)")

    @property
    def n(self) -> int:
        """Number of squares."""
        return self.width * self.height

    def square(self, col: int, row: int) -> int:
        """Index of the square at (col, row)."""
        if not (0 <= col < self.width and 0 <= row < self.height):
            raise DustsimError(f"square ({col}, {row}) is off the {self.width} x "
                               f"{self.height} board")
        return row * self.width + col

    def colrow(self, s: int) -> tuple[int, int]:
        """(col, row) of square ``s``."""
        return s % self.width, s // self.width

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The board's arrays for a Numba kernel, in the order of :data:`ARRAY_NAMES`."""
        return tuple(getattr(self, name) for name in ARRAY_NAMES)


#: Order of :meth:`Board.arrays` (contract fields first, extras after).
ARRAY_NAMES: tuple[str, ...] = (
    "terrain", "height_level", "dist", "los", "line_start", "line_squares", "line_corner",
    "cover", "move_cost", "neighbours", "deploy", "objectives", "exit_edge",
    "los_tall", "line_opaque", "in_building", "building_id", "wall_mask", "fort_facing", "arc",
    "objective_area", "exit_mask", "enters", "cliff_mask", "cliff_climb",
)

# Edge codes of Board.exit_edge.
EDGE_NONE, EDGE_ROW0, EDGE_ROW_LAST, EDGE_COL0, EDGE_COL_LAST = -1, 0, 1, 2, 3
EDGE_NAMES = ("row 0", "last row", "column 0", "last column")

#: One character per square in map files and :func:`board_text` (``.`` open ground).
MAP_LEGEND: dict[str, int] = {
    ".": OPEN, "B": BUILDING, "O": BUILDING_OPENING, "T": TREES, "X": TANK_TRAPS,
    "S": SMALL_STRUCTURE, "-": TRENCH, "w": BARBED_WIRE, "m": MINEFIELD, "Q": QUONSET_HUT,
    "P": STRONGPOINT, "K": BUNKER, "a": AMMO_CRATES, "=": ROAD, "r": RUBBLE, "~": WATER,
    "s": SWAMP, "#": BRIDGE, "@": SOLID,
}
_CHAR = {v: k for k, v in MAP_LEGEND.items()}

MAX_SIDE = CAPS["board_side"][1]  #: largest board side (dustsim.limits.CAPS)


# --------------------------------------------------------------------------------------------
# Pure geometry (reference implementations; the tables are built from them)

def square_name(s: int | None, width: int) -> str:
    """``c4``: the column letter and the row counted from side A's edge (1 = A's edge), the
    names the event texts, the replay page and the board charts use."""
    if s is None:
        return "off the board"
    col, row = s % width, s // width
    letters = ""
    col += 1
    while col:
        col, r = divmod(col - 1, 26)
        letters = chr(97 + r) + letters
    return f"{letters}{row + 1}"


def distance(board: Board, a: int, b: int) -> int:
    """Range in squares from ``a`` to ``b``: the first diagonal step counts 1, each further
    diagonal step 2 (L580-582; digest section 5)."""
    return _distance(board.width, a, b)


def _distance(width: int, a: int, b: int) -> int:
    dx = abs(a % width - b % width)
    dy = abs(a // width - b // width)
    lo, hi = min(dx, dy), max(dx, dy)
    return hi + max(0, lo - 1)


def trace_line(width: int, height: int, a: int, b: int) -> list[tuple[int, int]]:
    """The squares a dot-to-dot line from ``a`` to ``b`` passes, ends excluded, in order.

    Each entry is ``(square, corner)``: ``corner`` 0 where the line crosses the square's
    interior, 1 where it only passes through one of its corners (L608-610). Where the line
    runs through a grid corner, the two squares meeting there off the line come as two
    consecutive corner entries (one on each side of the line). Exact integer arithmetic: the
    line leaves a square through a vertical edge at t = (i + 1/2)/|dx| and through a
    horizontal one at t = (j + 1/2)/|dy|.
    """
    ca, ra = a % width, a // width
    cb, rb = b % width, b // width
    dx, dy = cb - ca, rb - ra
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    adx, ady = abs(dx), abs(dy)
    c, r, i, j = ca, ra, 0, 0
    out: list[tuple[int, int]] = []
    while (c, r) != (cb, rb):
        # compare t_x = (2i+1)/(2 adx) with t_y = (2j+1)/(2 ady)
        if ady == 0:
            step = "x"
        elif adx == 0:
            step = "y"
        else:
            lx, ly = (2 * i + 1) * ady, (2 * j + 1) * adx
            step = "x" if lx < ly else "y" if ly < lx else "xy"
        if step == "x":
            c += sx
            i += 1
        elif step == "y":
            r += sy
            j += 1
        else:
            out.append(((r) * width + (c + sx), 1))
            out.append(((r + sy) * width + c, 1))
            c += sx
            r += sy
            i += 1
            j += 1
        if (c, r) != (cb, rb):
            out.append((r * width + c, 0))
    return out


def _fort_sees(board_facing: int, width: int, fort: int, other: int) -> bool:
    """Whether a bunker at ``fort`` facing ``board_facing`` sees ``other`` (within 90 degrees
    of its facing, inclusive; L3130)."""
    fx, fy = DIRECTIONS[board_facing]
    ox = other % width - fort % width
    oy = other // width - fort // width
    return fx * ox + fy * oy >= 0


class _Geometry:
    """Static terrain of one map, as plain Python lists, for the reference algorithms."""

    def __init__(self, width: int, height: int, terrain: np.ndarray, height_level: np.ndarray,
                 fort_facing: np.ndarray) -> None:
        self.width, self.height = width, height
        self.terrain = [int(t) for t in terrain]
        self.level = [int(h) for h in height_level]
        self.fort_facing = [int(f) for f in fort_facing]
        self.building = _components(width, height, self.terrain, _BUILDINGS)
        self.fort = _components(width, height, self.terrain, _FORTS)

    def opacity(self, s: int, a: int, b: int) -> int:
        """Opacity of intermediate square ``s`` for the line a-b, buildings aside."""
        t = self.terrain[s]
        if t in _ALWAYS_OPAQUE:
            return OPAQUE
        if t == QUONSET_HUT:
            return OPAQUE_UNLESS_TALL
        if t in _FORTS and self.fort[s] not in (self.fort[a], self.fort[b]):
            return OPAQUE
        if self.level[s] > max(self.level[a], self.level[b]):
            return OPAQUE
        return SEE_THROUGH

    def line(self, a: int, b: int) -> tuple[list[tuple[int, int]], list[int], int, int]:
        """(trace, opacity per entry, los for ordinary ground units, los for tall ones)."""
        w = self.width
        trace = trace_line(w, self.height, a, b)
        ops = []
        ba, bb = self.building[a], self.building[b]
        # buildings: find where the line crosses into b's building and out of a's building
        blocked_building = False
        if bb >= 0 and bb != ba:
            blocked_building |= not self._through_opening(trace, a, b, bb)
        if ba >= 0 and ba != bb:
            blocked_building |= not self._through_opening(trace[::-1], b, a, ba)
        entry_b = _first_crossed(trace, self.building, bb) if bb >= 0 and bb != ba else None
        exit_a = _last_crossed(trace, self.building, ba) if ba >= 0 and ba != bb else None
        for k, (s, _corner) in enumerate(trace):
            o = self.opacity(s, a, b)
            bs = self.building[s]
            if bs >= 0:
                if bs == ba == bb:
                    pass  # both units in this building see each other (L637)
                elif bs == bb and entry_b is not None and k >= entry_b:
                    pass  # inside the target's building, past the opening
                elif bs == ba and exit_a is not None and k <= exit_a:
                    pass  # inside the shooter's building, before the opening
                else:
                    o = OPAQUE
            ops.append(o)
        if blocked_building:
            los = LOS_BLOCKED
            return trace, ops, los, los
        for f, other in ((a, b), (b, a)):
            if self.terrain[f] == BUNKER and self.fort_facing[f] >= 0 and not _fort_sees(
                    self.fort_facing[f], w, f, other):
                return trace, ops, LOS_BLOCKED, LOS_BLOCKED
        return trace, ops, _combine(trace, ops, tall=False), _combine(trace, ops, tall=True)

    def _through_opening(self, trace, outside: int, inside: int, bid: int) -> bool:
        """The line from ``outside`` to ``inside`` (a square of building ``bid``) enters the
        building at an opening square within range 1 of one of the two units (L618-620)."""
        k = _first_crossed(trace, self.building, bid)
        entry = inside if k is None else trace[k][0]
        if self.terrain[entry] != BUILDING_OPENING:
            return False
        # every crossed square after the entry must stay inside the building
        if k is not None:
            for s, corner in trace[k:]:
                if corner == 0 and self.building[s] != bid:
                    return False
        w = self.width
        near = (_chebyshev(w, entry, outside) <= 1) or (_chebyshev(w, entry, inside) <= 1)
        return near


def _first_crossed(trace, building, bid) -> int | None:
    for k, (s, corner) in enumerate(trace):
        if corner == 0 and building[s] == bid:
            return k
    return None


def _last_crossed(trace, building, bid) -> int | None:
    for k in range(len(trace) - 1, -1, -1):
        s, corner = trace[k]
        if corner == 0 and building[s] == bid:
            return k
    return None


def _chebyshev(width: int, a: int, b: int) -> int:
    return max(abs(a % width - b % width), abs(a // width - b // width))


def _combine(trace, ops, tall: bool, dynamic: frozenset[int] = frozenset()) -> int:
    """Fold one line's entries into a los code (the kernels' loop, in Python)."""
    result = LOS_CLEAR
    k = 0
    while k < len(trace):
        s, corner = trace[k]
        if corner == 0:
            o = ops[k]
            if s in dynamic or o == OPAQUE or (o == OPAQUE_UNLESS_TALL and not tall):
                return LOS_BLOCKED
            k += 1
            continue
        s2 = trace[k + 1][0]
        o1, o2 = ops[k], ops[k + 1]
        b1 = s in dynamic or o1 == OPAQUE or (o1 == OPAQUE_UNLESS_TALL and not tall)
        b2 = s2 in dynamic or o2 == OPAQUE or (o2 == OPAQUE_UNLESS_TALL and not tall)
        if b1 and b2:
            return LOS_BLOCKED
        if b1 or b2:
            result = LOS_COVER
        k += 2
    return result


def _components(width: int, height: int, terrain: list[int], kinds: frozenset[int]) -> list[int]:
    """Label 4-connected groups of squares whose terrain is in ``kinds`` (-1 elsewhere)."""
    n = width * height
    label = [-1] * n
    nxt = 0
    for s in range(n):
        if terrain[s] not in kinds or label[s] >= 0:
            continue
        stack = [s]
        label[s] = nxt
        while stack:
            q = stack.pop()
            c, r = q % width, q // width
            for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                cc, rr = c + dc, r + dr
                if 0 <= cc < width and 0 <= rr < height:
                    t = rr * width + cc
                    if terrain[t] in kinds and label[t] < 0:
                        label[t] = nxt
                        stack.append(t)
        nxt += 1
    return label


def line_of_sight(board: Board, a: int, b: int, blockers: Iterable[int] = frozenset(),
                  tall: bool = False) -> int:
    """Line of sight from ``a`` to ``b`` for ground units: 0 clear, 1 clear but the target is
    in cover (the line passes one blocking corner), 2 blocked (L602-655).

    ``blockers``: squares holding vehicles or smoke (L612, L614); infantry squares are
    transparent and are simply not passed. ``tall``: the shooter or the target is a walker
    or a Large/Huge vehicle, which see over Quonset huts (L3156-3158). Pure Python, recomputed
    from the geometry (it does not read the board's tables); for tests and the kernels' spec.
    """
    geo = _Geometry(board.width, board.height, board.terrain, board.height_level,
                    board.fort_facing)
    dyn = frozenset(int(s) for s in blockers) - {a, b}
    trace, ops, los, los_t = geo.line(a, b)
    static = los_t if tall else los
    if static == LOS_BLOCKED:
        return LOS_BLOCKED
    return max(static, _combine(trace, ops, tall, dyn))


def arc_of(board: Board, shooter_sq: int, facing: int, target_sq: int) -> int:
    """Fire-arc bits (FRONT, REAR, SIDE) of ``target_sq`` for a vehicle on ``shooter_sq``
    facing ``facing`` (0-7, :data:`DIRECTIONS`), L584-598.

    FRONT: the target square's centre lies within 45 degrees (inclusive) of the facing line
    (L588); REAR likewise behind (L590); SIDE: any square not straight ahead or behind
    (L592). A turret or infantry weapon fires at any bit (L586, L594). The vehicle's own
    square gives 0.
    """
    return _arc(board.width, shooter_sq, facing, target_sq)


def _arc(width: int, a: int, facing: int, b: int) -> int:
    if a == b:
        return 0
    fx, fy = DIRECTIONS[facing]
    ox = b % width - a % width
    oy = b // width - a // width
    along = fx * ox + fy * oy  # |f| |o| cos
    across = fx * oy - fy * ox  # |f| |o| sin
    bits = 0
    # within 45 degrees of the facing: along >= |across| (both scaled by |f||o|)
    if along > 0 and along >= abs(across):
        bits |= FRONT
    if along < 0 and -along >= abs(across):
        bits |= REAR
    if across != 0:
        bits |= SIDE
    return bits


def in_arc(width: int, arc: str, facing: int, a: int, b: int) -> bool:
    """Whether square b lies in the fire arc ``arc`` ("front", "rear", "left", "right";
    anything else all round) of a line drawn from square a by a vehicle facing ``facing``
    (0-7, :data:`DIRECTIONS`), L584-598: front and rear as :func:`arc_of` (L588, L590), a
    side the half board to that side of the facing line, without the squares straight ahead
    or behind (L592). The reference the battle kernel's ``_in_arc`` is checked against."""
    if arc == "front":
        return bool(_arc(width, a, facing, b) & FRONT)
    if arc == "rear":
        return bool(_arc(width, a, facing, b) & REAR)
    if arc in ("left", "right"):
        fx, fy = DIRECTIONS[facing]
        across = fx * (b // width - a // width) - fy * (b % width - a % width)
        return across > 0 if arc == "left" else across < 0
    return True


# --------------------------------------------------------------------------------------------
# Table construction (cached per map)

_TABLE_CACHE: dict[bytes, dict[str, np.ndarray]] = {}
_CACHE_MAX = 64


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _terrain_tables(width: int, height: int, terrain: np.ndarray, height_level: np.ndarray,
                    fort_facing: np.ndarray) -> dict[str, np.ndarray]:
    """All tables that depend on the terrain only; cached by content (same map: same
    arrays, computed once)."""
    key = hashlib.sha256(b"%d,%d," % (width, height) + terrain.tobytes()
                         + height_level.tobytes() + fort_facing.tobytes()).digest()
    hit = _TABLE_CACHE.get(key)
    if hit is not None:
        return hit
    n = width * height
    geo = _Geometry(width, height, terrain, height_level, fort_facing)
    cols = np.arange(n) % width
    rows = np.arange(n) // width
    dx = np.abs(cols[:, None] - cols[None, :])
    dy = np.abs(rows[:, None] - rows[None, :])
    lo, hi = np.minimum(dx, dy), np.maximum(dx, dy)
    dist = (hi + np.maximum(lo - 1, 0)).astype(np.int16)

    los = np.zeros((n, n), np.int8)
    los_tall = np.zeros((n, n), np.int8)
    lines: list[list[tuple[int, int]] | None] = [None] * (n * n)
    opaque: list[list[int] | None] = [None] * (n * n)
    for a in range(n):
        for b in range(a + 1, n):
            trace, ops, lg, lt = geo.line(a, b)
            los[a, b] = los[b, a] = lg
            los_tall[a, b] = los_tall[b, a] = lt
            lines[a * n + b] = trace
            opaque[a * n + b] = ops
            # reverse: the same squares backwards, each corner pair kept together
            rev_t, rev_o = _reverse(trace, ops)
            lines[b * n + a] = rev_t
            opaque[b * n + a] = rev_o
    counts = np.zeros(n * n + 1, np.int64)
    for p in range(n * n):
        t = lines[p]
        counts[p + 1] = 0 if t is None else len(t)
    line_start = np.cumsum(counts).astype(np.int32)
    m = int(line_start[-1])
    line_squares = np.empty(m, np.int32)
    line_corner = np.empty(m, np.int8)
    line_opaque = np.empty(m, np.int8)
    for p in range(n * n):
        t = lines[p]
        if not t:
            continue
        s0 = line_start[p]
        line_squares[s0:s0 + len(t)] = [s for s, _ in t]
        line_corner[s0:s0 + len(t)] = [c for _, c in t]
        line_opaque[s0:s0 + len(t)] = opaque[p]

    move_cost = np.array([_MOVE[int(t)] for t in terrain], np.int8).reshape(n, N_MOVE_CLASSES)
    cover = np.array([_COVER.get(int(t), (0, 0, 0)) for t in terrain], np.int8).reshape(n, 3)
    neighbours = np.full((n, 8), -1, np.int32)
    for s in range(n):
        c, r = s % width, s // width
        for d, (ddc, ddr) in enumerate(DIRECTIONS):
            cc, rr = c + ddc, r + ddr
            if 0 <= cc < width and 0 <= rr < height:
                neighbours[s, d] = rr * width + cc
    wall_mask = np.zeros(n, np.uint8)
    bid = geo.building
    fid = geo.fort
    for s in range(n):
        for d in range(8):
            t = int(neighbours[s, d])
            if t < 0:
                continue
            if _wall_between(geo, s, t, d, bid, fid):
                wall_mask[s] |= np.uint8(1 << d)
    arc = np.zeros((8, n, n), np.int8)
    for d in range(8):
        fx, fy = DIRECTIONS[d]
        ox = cols[None, :] - cols[:, None]
        oy = rows[None, :] - rows[:, None]
        along = fx * ox + fy * oy
        across = fx * oy - fy * ox
        front = (along > 0) & (along >= np.abs(across))
        rear = (along < 0) & (-along >= np.abs(across))
        side = across != 0
        arc[d] = front * FRONT + rear * REAR + side * SIDE
    in_building = np.array([int(t) in _BUILDINGS or int(t) == BUNKER for t in terrain], bool)
    tables = {
        "dist": dist, "los": los, "los_tall": los_tall, "line_start": line_start,
        "line_squares": line_squares, "line_corner": line_corner, "line_opaque": line_opaque,
        "move_cost": move_cost, "cover": cover, "neighbours": neighbours,
        "wall_mask": wall_mask, "arc": arc, "in_building": in_building,
        "building_id": np.array(bid, np.int16),
    }
    for v in tables.values():
        _readonly(v)
    if len(_TABLE_CACHE) >= _CACHE_MAX:
        _TABLE_CACHE.pop(next(iter(_TABLE_CACHE)))
    _TABLE_CACHE[key] = tables
    return tables


def _reverse(trace, ops):
    rt, ro = [], []
    k = len(trace) - 1
    while k >= 0:
        if trace[k][1] == 1:  # a corner pair ends here: keep its two entries together
            rt.extend((trace[k - 1], trace[k]))
            ro.extend((ops[k - 1], ops[k]))
            k -= 2
        else:
            rt.append(trace[k])
            ro.append(ops[k])
            k -= 1
    return rt, ro


def _wall_between(geo: _Geometry, s: int, t: int, d: int, bid, fid) -> bool:
    """A ground step s -> t (direction d) crosses a building wall or a bunker's side wall."""
    # buildings: in or out only through an opening square (L484, L618)
    if bid[s] != bid[t]:
        for q in (s, t):
            if bid[q] >= 0 and geo.terrain[q] != BUILDING_OPENING:
                return True
    # bunkers: entered only through the doors at the rear (L3126)
    if fid[s] != fid[t]:
        for q, other_dir in ((s, d), (t, (d + 4) % 8)):
            if geo.terrain[q] == BUNKER and geo.fort_facing[q] >= 0:
                fx, fy = DIRECTIONS[geo.fort_facing[q]]
                ox, oy = DIRECTIONS[other_dir]
                if fx * ox + fy * oy >= 0:  # leaving/entering other than towards the rear
                    return True
    return False


def make_board(name: str, width: int, height: int, terrain: Any = None,
               height_level: Any = None, *, fort_facing: Any = None, deploy: Any = None,
               objectives: Iterable[int] = (), objective_area: Any = None,
               exit_edge: tuple[int, int] = (EDGE_NONE, EDGE_NONE), exit_mask: Any = None,
               enters: tuple[bool, bool] = (True, True), cliffs: Iterable[tuple[int, int]] = (),
               cliff_climb: bool = False) -> Board:
    """A :class:`Board` from its terrain and scenario arrays; terrain tables are cached.

    Defaults: open ground at level 0; side A deploys on (enters onto) row 0, side B on the
    last row; no objectives; no exits. ``objective_area`` defaults to each objective's own
    square (a unit holds an objective by standing on it, L2443). ``cliffs``: pairs of
    neighbouring squares with a cliff face between them (both directions are marked).
    """
    for label, v in (("width", width), ("height", height)):
        check_int(v, "board_side", f"board {label}")
    n = width * height
    terrain = _arr(terrain, n, np.int8, 0, "terrain")
    if terrain.min(initial=0) < 0 or terrain.max(initial=0) >= N_TERRAIN:
        raise DustsimError(f"terrain codes run 0..{N_TERRAIN - 1}", field="terrain")
    height_level = _arr(height_level, n, np.int8, 0, "height_level")
    fort_facing = _arr(fort_facing, n, np.int8, -1, "fort_facing")
    if deploy is None:
        deploy = np.zeros((2, n), bool)
        deploy[0, :width] = True
        deploy[1, n - width:] = True
    deploy = np.asarray(deploy, bool).reshape(2, n).copy()
    objectives = np.asarray(list(objectives), np.int32)
    if objectives.size and (objectives.min() < 0 or objectives.max() >= n):
        raise DustsimError(f"objective squares run 0..{n - 1}", field="objectives")
    if objective_area is None:
        objective_area = np.full(n, -1, np.int16)
        for k, s in enumerate(objectives):
            objective_area[s] = k
    objective_area = np.asarray(objective_area, np.int16).reshape(n).copy()
    if exit_mask is None:
        exit_mask = np.zeros((2, n), bool)
        for side, e in enumerate(exit_edge):
            exit_mask[side] = _edge_squares(width, height, int(e))
    exit_mask = np.asarray(exit_mask, bool).reshape(2, n).copy()
    tables = _terrain_tables(width, height, terrain, height_level, fort_facing)
    cliff_mask = np.zeros(n, np.uint8)
    for s, t in cliffs:
        row = tables["neighbours"][s] if 0 <= s < n else ()
        hits = [d for d in range(8) if row[d] == t] if len(row) else []
        if not hits:
            raise DustsimError(f"cliff between {s} and {t}: not neighbouring squares",
                               field="cliffs")
        cliff_mask[s] |= np.uint8(1 << hits[0])
        cliff_mask[t] |= np.uint8(1 << ((hits[0] + 4) % 8))
    own = {
        "terrain": terrain, "height_level": height_level, "fort_facing": fort_facing,
        "deploy": deploy, "objectives": objectives, "objective_area": objective_area,
        "exit_edge": np.asarray(exit_edge, np.int8).reshape(2).copy(),
        "exit_mask": exit_mask, "enters": np.asarray(enters, bool).reshape(2).copy(),
        "cliff_mask": cliff_mask, "cliff_climb": np.array([bool(cliff_climb)]),
    }
    for v in own.values():
        _readonly(v)
    return Board(name=name, width=width, height=height, **own, **tables)


def _arr(value: Any, n: int, dtype, fill: int, label: str) -> np.ndarray:
    if value is None:
        return np.full(n, fill, dtype)
    a = np.asarray(value)
    if a.size != n:
        raise DustsimError(f"expected {n} values, got {a.size}", field=label)
    return a.astype(dtype).reshape(n).copy()


def _edge_squares(width: int, height: int, edge: int) -> np.ndarray:
    n = width * height
    m = np.zeros(n, bool)
    idx = np.arange(n)
    if edge == EDGE_ROW0:
        m[idx // width == 0] = True
    elif edge == EDGE_ROW_LAST:
        m[idx // width == height - 1] = True
    elif edge == EDGE_COL0:
        m[idx % width == 0] = True
    elif edge == EDGE_COL_LAST:
        m[idx % width == width - 1] = True
    elif edge != EDGE_NONE:
        raise DustsimError(f"exit edge codes are -1..3, got {edge}", field="exit_edge")
    return m


def open_board(width: int = 12, height: int = 9, name: str = "open") -> Board:
    """An open board (no terrain), side A entering on row 0 and side B on the last row."""
    return make_board(name, width, height)


def clear_table_cache() -> None:
    """Forget the cached terrain tables (for timing the build)."""
    _TABLE_CACHE.clear()


# --------------------------------------------------------------------------------------------
# Movement reference (the kernels' step rule, in Python)

_VEHICLE_CLASSES = frozenset({TRACKED, WHEELED, HALF_TRACKED, WALKER})


def can_step(board: Board, move_class: int, s: int, d: int) -> bool:
    """Whether a unit of ``move_class`` may step from ``s`` to its neighbour in direction
    ``d`` (terrain only; units are the kernel's business).

    The entered square must be passable (``move_cost`` below :data:`IMPASSABLE`; a JUMP unit
    passes over anything but must end where FOOT could stand, L3529); ground units do not
    cross walls (``wall_mask``) or cliffs (``cliff_mask``; infantry may where
    ``cliff_climb`` says so, by the scenario's special move, L2846); vehicles do not cut the
    corner of an impassable square diagonally (L506).
    """
    t = int(board.neighbours[s, d])
    if t < 0 or board.move_cost[t, move_class] >= IMPASSABLE:
        return False
    if move_class in (FLYING, JUMP):
        return True
    bit = 1 << d
    if board.wall_mask[s] & bit:
        return False
    if board.cliff_mask[s] & bit and (move_class != FOOT or not board.cliff_climb[0]):
        return False
    if move_class in _VEHICLE_CLASSES and d % 2 == 1:
        for side in ((d + 7) % 8, (d + 1) % 8):
            q = int(board.neighbours[s, side])
            if q < 0 or board.move_cost[q, move_class] >= IMPASSABLE:
                return False
    return True


def reachable(board: Board, move_class: int, sources: Iterable[int]) -> np.ndarray:
    """Squares a unit of ``move_class`` can reach from any of ``sources`` (bool[n])."""
    seen = np.zeros(board.n, bool)
    stack = [int(s) for s in sources]
    for s in stack:
        seen[s] = True
    while stack:
        s = stack.pop()
        for d in range(8):
            if can_step(board, move_class, s, d):
                t = int(board.neighbours[s, d])
                if not seen[t]:
                    seen[t] = True
                    stack.append(t)
    return seen


def footprint_squares(width: int, height: int, size: int, anchor: int, facing: int) -> list[int]:
    """The squares a unit of ``size`` squares holds with its anchor on ``anchor`` (L285,
    L504-512; the battle kernel's ``_fsq``): 1 the anchor; 2 a Large vehicle, its front
    square ``anchor`` and the square behind it against ``facing`` (:data:`DIRECTIONS`); 4 a
    Huge vehicle, the 2 x 2 block whose lowest-index square is ``anchor``. Squares off the
    board are left out."""
    c, r = anchor % width, anchor // width
    if size == 2:
        dc, dr = DIRECTIONS[(facing + 4) % 8]
        cells = [(c, r), (c + dc, r + dr)]
    elif size == 4:
        cells = [(c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1)]
    else:
        cells = [(c, r)]
    return [rr * width + cc for cc, rr in cells if 0 <= cc < width and 0 <= rr < height]


def board_text(board: Board, levels: bool = False) -> str:
    """The board as text, last row first (as seen from side A), one :data:`MAP_LEGEND`
    character per square; objectives are ``*``. ``levels``: height digits instead."""
    lines = []
    obj = set(int(x) for x in board.objectives)
    for r in range(board.height - 1, -1, -1):
        row = []
        for c in range(board.width):
            s = r * board.width + c
            if levels:
                row.append(str(int(board.height_level[s])))
            else:
                row.append("*" if s in obj else _CHAR[int(board.terrain[s])])
        lines.append("".join(row))
    return "\n".join(lines)
