"""The battle kernel: Dust 1947 games on the grid (:mod:`dustsim.play.board`), Numba, flat arrays.

It knows nothing of cards: :mod:`dustsim.play.battle` compiles two lists and a scenario's board
into the arrays below. Attacks resolve through the dice kernel's own ``_trial``
(:mod:`dustsim.engines.kernel`) and the engagement kernel's helpers
(:mod:`dustsim.play.duel_kernel`: carriers, damage application, token removal rolls, the
initiative roll), so a battle's attacks resolve exactly as single attacks and duels do. This
module adds the board: positions, movement square by square, line of sight with dynamic
blockers, cover, per-weapon targets, objectives, exits and the scenario's victory conditions.

**State.** One int64 matrix ``m`` laid out as the duel kernel's (same header slots and row
blocks, so its helpers read it), with four attack variants per (target, weapon line): Attack
or Sustained Attack, target in the open or in cover (the saves differ). Extra blocks: unit
facts the board needs (``X_*``), a per-square scratch block (movement costs, parents,
occupancy). Floats (army points, per-weapon expected damage, policy weights) live in ``f``;
the board's tables in ``bd`` (int64 rows of width n) and the sight lines in ``ls``/``lq``.

**Turn** (1947 L296-358, L795-813): the initiative roll (the duel kernel's); the winner
chooses who activates first (the policy); sides alternate, a side with fewer unactivated
units may pass (L341); the unit to activate is the policy's pick. An activation: the token
removal roll (L741), then two actions chosen by the policy among Sustained Attack, Move +
Attack, Attack + Move, March Move, Reload + Attack, one action when Suppressed (L745);
units off the board enter from their edge with a Move (L2474). Move+Attack, Attack+Move and
March Move draw a reactive attack from the best unactivated enemy within range 4 with line of
sight after the first action (L797-811; 2 reactive dice, 1 with Suppression, L747).

**Movement** (L461-498): square by square on the 8-neighbour grid; entering a square costs
the board's ``move_cost`` for the unit's movement class; a diagonal step costs one more after
the first diagonal of the action (L461); a diagonal step may not cut the corner of an
impassable square or an enemy unit (decision: "moving around corners", pp. 19-20 lost);
units pass friendly units but never enemies, vehicles never pass friendly vehicles, no unit
ends on an occupied square (L463-465); building walls only at openings (``wall_mask``).
Aircraft fly over everything (L510-516).

**Large and Huge vehicles** (L285, L504-512, L604, L727): a unit's footprint (``X_FOOT``)
is its anchor square ``ST_SQ`` and, for a Large vehicle, the square behind it against
``ST_FACE``, for a Huge one the rest of its 2 x 2 block (:func:`_fsq`). Every footprint square
is occupied, blocks sight as a vehicle square and becomes wreck; range, sight and cover run
between footprints (:func:`_aim`); a Large vehicle moves by its front square with the rear in
the square it left (:func:`_rear`), a Huge one moves its block (:func:`_reach_huge`). The
decisions, with their lines: :data:`dustsim.play.battle.FOOTPRINT`. One-square units take
exactly the code paths they took before.

**Line of sight** (L602-655): the board's static table, then the stored sight line is walked
for vehicle squares and wrecks (dynamic blockers, L612, L486: a destroyed vehicle stays as a
wreck that blocks sight): one on a crossed square blocks, on a corner square it adds a
blocking corner (one corner: cover, two: blocked, the board's own rule). Aircraft see and
are seen by everything not in a building (L655). A target is in cover when its square gives
its class cover or the line passes one blocking corner (L608, L680). Wrecks do not bar
movement (the text gives them none).

**Compile cost.** Numba compiles every kernel function as its own library and, in each
caller, links in and re-optimises and re-emits the machine code of all its callees: a deep
chain of large functions pays for its lower levels once per level. The single-caller links of
the turn loop (``_activate``, ``_drop``, ``_smoke``, ``_execute``, ``_march``,
``_after_march``) are therefore inlined by Numba (``inline="always"``) into their one caller,
and so are the small wrappers around an attack (``_free_attack``, ``_free_class_attack``,
``_attack_here``, ``_offence_only``), each of which re-emitted the whole attack chain: the
same code, about a fifth less cold-compile time (``benchmarks/compile_grid.py``).
``_game`` is inlined into the two kernels of the entry points (``_play_battles``,
``_play_logged``), which allocate nothing and so count no references (their scratch arrays
come from the Python wrappers ``_run_battles`` and ``_run_logged``).

Dice order (scripted faces): as the duel kernel (initiative, removal rolls, attacks), the
attacks of one action target by target in the order of the shooter's weapon lines.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from dustsim.engines.aot import entry, exported
from dustsim.engines.kernel import (
    G_DICE,
    G_HIT,
    G_MEDAL,
    G_RES_SG,
    G_RES_SQ,
    G_RR,
    G_SAVE,
    G_SUPP,
    JAMMED,
    REROLLED,
    S_MODELS,
    S_POLICY,
    S_SINGLE,
    S_SUPP,
    S_TOKEN,
    _count,
    _trial,
)
from dustsim.engines.rng import next_u64, uniform
from dustsim.play import battle_carry as BC
from dustsim.play import battle_platoon as BP
from dustsim.play import battle_reserve as RS
from dustsim.play import battle_rules as BR
from dustsim.play.duel_kernel import (
    C_INIT,
    C_INIT_DICE,
    C_ORDERS,
    C_P,
    C_PASS,
    C_REACT_DICE,
    C_SALVO,
    C_SUPP,
    C_T,
    C_TIEBREAK,
    C_VOLLEY,
    F_ASSASSIN,
    F_FIGHTING_SPIRIT,
    F_LUCKY,
    F_NO_ORDERS,
    G_KEEP_HIT,
    G_KEEP_RR,
    H_GROUPS,
    H_RES,
    H_RES2,
    H_ST,
    H_TSPEC,
    H_U,
    H_UNITS,
    H_W,
    H_WPN,
    H_WS,
    H_WT,
    NCOL,
    OFF,
    ON,
    R_CFG,
    ST_ACT,
    ST_HERO,
    ST_LUCKY,
    ST_MODELS,
    ST_MOVED,
    ST_SINGLE,
    ST_SPIRIT,
    ST_STUN,
    ST_TOK,
    T_SUPP,
    U_AIR,
    U_FLAGS,
    U_HERO,
    U_IMMUNE,
    U_MARCH,
    U_MODELS,
    U_MOVE,
    U_REACT_MASK,
    U_REACT_RANGE,
    U_SIDE,
    U_SINGLE,
    U_SQUAD,
    U_SUPP_DICE,
    U_SUPPORT,
    U_THIRD,
    U_W0,
    U_W1,
    W_AMMO,
    W_AREA,
    W_CARRIERS,
    W_CC,
    W_HERO,
    W_RELOAD,
    W_RMAX,
    W_RMIN,
    W_SALVO,
    W_SCREAM,
    W_SETUP,
    W_STEALTH,
    W_UNIT,
    W_VOLLEY,
    WS_AMMO,
    WS_LOADED,
    WT_BLAST,
    WT_DICE,
    _alive,
    _apply,
    _carriers,
    _hurts,
    _initiative,
    _left,
    _release,
    _removal_roll,
    _stun,
)

# -- layout ------------------------------------------------------------------------------------
H_XU, H_SCR = 11, 12  # header slots after the duel kernel's eleven
R_B = 2  # battle configuration row
R_G = 3  # game state row
FIRST_BLOCK = 4
# battle configuration (row R_B)
(B_N, B_WIDTH, B_TURNS, B_POLICY, B_ROLE, B_VC, B_NOBJ, B_LOG, B_LOGN, B_PLOGN, B_NVC,
 B_HEIGHT) = range(12)
# where the last movement search's costs and parents are read (:func:`_reach`): the first of
# the board's four static rows it stood for (no copy into the scratch), -1 the scratch
B_SBASE = 12
# what the weapon lines of this battle hold (bits, set by :func:`_reset`): lines that give
# And Stay Down (:func:`_stay_down`), Mounted Assault lines (:func:`_mounted`), Psychic
# Scream lines (:func:`_scream`); an activation skips the scan of its lines when it has none
B_LINES = 13
LINES_STAY_DOWN, LINES_MOUNTED, LINES_SCREAM = 1, 2, 4
# victory condition bits (B_VC)
# policy hints (B_VC): the scenario scores objectives / exits
VC_OBJECTIVES, VC_EXIT = 2, 4
# victory condition rows (f[F_VC + i], columns of scenarios.VICTORY_COLUMNS)
V_KIND, V_SIDE, V_COUNT, V_FROM, V_END, V_CLEAR, V_CLEAR_BLD, V_FRACTION, V_IMMOB = range(9)
VK_HOLD, VK_EXIT, VK_ANNIHILATION, VK_VP_THRESHOLD, VK_VP, VK_DEFAULT, VK_DRAW = range(7)
F_VC = 2  # first victory row; F_SCORE: the scoring row (scenarios.SCORING_FIELDS)
F_SCORE = 1
MAX_VC = 6
(SC_DESTROYED, SC_IMMOB, SC_CRIPPLED, SC_OBJ_HELD, SC_OBJ_CLEAR, SC_ENEMY_HALF,
 SC_EXITED) = range(7)
# game state (row R_G)
G_TURN, G_ATT, G_END, G_WINNER, G_WONBY, G_EXIT0, G_EXIT1, G_OBJ0, G_OBJ1, G_NOCC = range(10)
WON_OBJECTIVE, WON_ANNIHILATION, WON_EXIT, WON_VP, WON_DRAW, WON_DEFAULT = range(6)
# unit facts (block H_XU): movement class, kind, blocks sight, strength at start, tall
X_CLASS, X_KIND, X_VEH, X_START, X_TALL, X_CAN_EXIT = range(6)  # X_TALL: sees over huts
# squares a vehicle occupies (L285, L504-512): 1; 2 a Large vehicle (its front square ST_SQ and
# the one behind it, ST_FACE pointing from the rear to the front); 4 a Huge vehicle (the 2 x 2
# block whose lowest-index square is ST_SQ). Decisions: :data:`dustsim.play.battle.FOOTPRINT`
X_FOOT = 6
# a Large vehicle's lines drawn from its rear square (bit b: its b-th line is rear-mounted) or
# from either square (bit 32 + b: side-mounted) (L604); others from its front square
X_MOUNT = 7
# fire arcs (L584-598): bit ARCS_BIT of X_MOUNT set when the unit plays them (a one-square or
# Large vehicle with a line not turret-mounted, :data:`dustsim.play.battle.ARCS`); W_ARC a
# line's arc (ARC_*)
ARCS_BIT = np.int64(1 << 31)
W_ARC = 18
ARC_ALL, ARC_FRONT, ARC_REAR, ARC_LEFT, ARC_RIGHT = range(5)
KIND_INF, KIND_VEH, KIND_AIR = 0, 1, 2
FLYING = 6
# unit state beyond the duel kernel's ST_* columns (0..15); ST_GONE reuses the line position
# ST_X, which the board does not use
ST_SQ, ST_FACE = 16, 17
ST_GONE = 4
# Crazy Jimmy's cover save after a March Move, until the unit's next activation (1, else 0;
# battle_rules.RB_MARCH_COVER): reuses the duel kernel's per-unit smoke turn ST_SMOKE (12),
# which the board does not use (its smoke stands on squares)
ST_COVERED = 12
WS_TGT, WS_COV = 4, 5  # declared target of a weapon line in this action, target in cover
# square scratch (block H_SCR, n rows)
SC_C0, SC_C1, SC_P0, SC_P1, SC_OCC, SC_LIST, SC_WRECK = range(7)  # SC_WRECK: a wreck (L486)
# what bars the moving unit on each square during one _reach (bits: entering it, passing its
# corner, leaving it), read from SC_OCC once instead of at every step; the last column
SC_BAR = NCOL - 1
BAR_ENTER, BAR_CORNER, BAR_LEAVE = 1, 2, 4
# the rules' columns (dustsim.play.battle_rules) must not collide with the kernel's
if (BR.H_XU, BR.H_SCR, BR.R_G, BR.G_TURN) != (H_XU, H_SCR, R_G, G_TURN) or min(
        BR.X_RULES, BR.X_SMOKE, BR.ST_CAMO, BR.ST_SMOKED, BR.ST_FIRST, BR.ST_DROP
) <= X_CAN_EXIT or BR.SC_SMOKE <= SC_WRECK or BR.SC_SMOKE >= SC_BAR or BR.WS_TGT != WS_TGT \
        or BR.X_KIND_ != X_KIND:
    raise AssertionError("battle_rules columns out of step with the battle kernel")
if W_ARC in (BR.W_WIRE, BR.W_ARTY, BR.W_SNIPE, BP.W_STAY_DOWN, W_STEALTH) or W_ARC >= NCOL:
    raise AssertionError("fire-arc columns collide with another block's")
if BC.H_CARRY <= H_SCR or BC.H_CARRY >= NCOL or (BC._R_B, BC._B_N) != (R_B, B_N) or \
        BC.B_ABOARD in (B_SBASE, B_LINES):
    # the transports' block and the columns battle_carry reads
    raise AssertionError("battle_carry's header slot out of step with the battle kernel")
INF = 1 << 30
QL = 64  # cost buckets of the movement search (costs above QL - 2 are cut)
# floats f: row 0 policy weights, rows 1.. unit AP, then (weapon line, target) expected damage
F_UNITS = F_VC + MAX_VC
(PW_THREAT, PW_CLOSE, PW_OBJ, PW_COVER, PW_SUST, PW_HOLD_TURNS, PW_EXIT, PW_BEHIND) = range(8)
NF = 10
# board rows (bd, width n): dist, los, path cost per class, then one row each
BD_DIST = 0


def bd_rows(n: int) -> dict:
    """Row offsets of the board matrix for ``n`` squares (the compiler and kernel agree)."""
    r = 2 * n + 7 * n
    names = ("terrain", "cover0", "cover1", "cover2", "mc0", "mc1", "mc2", "mc3", "mc4", "mc5",
             "mc6", "nb0", "nb1", "nb2", "nb3", "nb4", "nb5", "nb6", "nb7", "deploy0",
             "deploy1", "objarea", "exit0", "exit1", "wall", "inbuild", "misc", "objectives")
    end = r + len(names) + 7 * 8 + 7 * n * 4
    # then the amphibious tables (battle_carry, L3411-3413): per ground vehicle class of
    # battle_carry.AMPHIBIOUS_CLASSES a block of its move-cost row, 8 adjacency rows, n path
    # cost rows and 4n static rows, with water and swamp as open ground
    amph = end + n
    block = 1 + 8 + n + 4 * n
    # then the entry tables (:func:`fill_entry`): per movement class and deployment zone the
    # 4 rows of a search from the zone with no unit on the board, and per zone one row of
    # each square's range to its nearest zone square
    entry = amph + len(BC.AMPHIBIOUS_CLASSES) * block
    return {"los": n, "pc": 2 * n, **{k: r + i for i, k in enumerate(names)},
            "adj": r + len(names), "static": r + len(names) + 7 * 8,
            "los_tall": end, "amph": amph, "amph_block": block,
            "entry": entry, "zdist": entry + 7 * 2 * 4, "rows": entry + 7 * 2 * 4 + 2}


_N_AMPH = len(BC.AMPHIBIOUS_CLASSES)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _r_entry(n):
    """First row of the entry tables (``bd_rows(n)["entry"]``; ``"zdist"`` 56 rows on)."""
    return 38 * n + 84 + _N_AMPH * (9 + 5 * n)


# event log (one int64 row per event; decoded by dustsim.play.battle)
(L_TURN, L_SIDE, L_UNIT, L_ACTION, L_FROM, L_TO, L_P0, L_PN, L_WMASK, L_TARGET, L_RANGE,
 L_LOS, L_COVER, L_D0, L_D1, L_HITS, L_SAVES, L_DAMAGE, L_CAS, L_TOKEN, L_X) = range(21)
L_FACE = 21  # an attack's shooter facing then (its fire arcs, L584-598)
NLOG = 22
# action codes and flags as NumPy scalars: Numba compiles a function once per value of a
# plain constant argument (see duel_kernel.ON), so these keep one specialisation per helper
(A_INITIATIVE, A_ACTIVATE, A_MOVE, A_MARCH, A_ATTACK, A_SUSTAINED, A_REACTION, A_CC, A_NOTHING,
 A_PASS, A_TOKEN, A_TOKEN_REMOVED, A_DESTROYED, A_OBJECTIVE, A_END_TURN, A_END,
 A_EXIT, A_SPECIAL) = (np.int64(i) for i in range(18))
# special actions (L_X of an A_SPECIAL event): Camouflage (L3453), Launch Smoke (L3651), an
# Airborne drop (L3391; its die in L_D0/L_D1, the success in L_HITS)
SP_CAMOUFLAGE, SP_SMOKE, SP_AIRBORNE = np.int64(1), np.int64(2), np.int64(3)
# transports (battle_carry, L522-530): starts aboard (turn 0), dismounts, stays aboard, a
# destroyed transport's passengers roll (L_UNIT its first passenger, L_D0/L_D1, damaged
# passengers in L_HITS), a survivor placed (L_TO); L_TARGET the vehicle
SP_EMBARKED, SP_DISMOUNT, SP_ABOARD, SP_BAIL, SP_PLACED = (np.int64(i) for i in range(20, 25))
SP_DOZER = np.int64(25)  # the Dozer special action: dug in (battle_carry, L3503-3505)
# two Engineering special actions burying a bunker or strongpoint (L3357): the die in
# L_D0/L_D1, buried in L_HITS, the square aimed at in L_TO
SP_BURY = np.int64(26)
SP_SCREAM = np.int64(4)  # Psychic Scream's free action (play.battle.SPECIALS)
SP_AREA = np.int64(5)  # a Large Ordnance line's area: another unit struck (play.battle)
SCREAM_RANGE = 3  # its radius (BattleScribe Dust_1947.gst rule 0a01-816f-3ce5-05f5)
# the rule a move or attack was taken under (a move's L_TARGET, an attack's L_X; named in the
# event's text): Scout, At the Double, Move and Fire, Charge
WHY_SCOUT, WHY_AT_THE_DOUBLE, WHY_MOVE_AND_FIRE, WHY_CHARGE = (np.int64(i) for i in range(1, 5))
WHY_RAID = np.int64(5)  # Raid's second Move (play.battle.WHY)
SP_OBSERVE = np.int64(6)  # an Artillery Observer calls in a friendly unit's artillery (L3419)
SP_REPAIR = np.int64(7)  # a Mechanic's Makeshift Repair (L3759-3765)
SP_SPY = np.int64(8)  # a Spy's roll to be placed (L3655-3657)
# an officer's Rally (L3729-3731) and Get Moving You Bunch of Monkeys (L3723-3727)
SP_RALLY, SP_ORDER = np.int64(9), np.int64(10)
SP_HEAL = np.int64(11)  # Get Up, It Ain't That Bad (L3741), Medevac (L3593), Resurrection
SP_ALERT = np.int64(12)  # Air Alert (L3375-3377)
SP_FOLLOW = np.int64(13)  # Follow Me (L3531-3533)
SP_ARTY = np.int64(14)  # an artillery line's Artillery Area: another unit struck (L3218-3224)
WHY_WIRE = np.int64(6)  # a wire-guided weapon fired alone, its misses re-rolled (L3345)
WHY_OBSERVED = np.int64(7)  # artillery fired through an Artillery Observer's sight (L3419)
SP_EXECUTE = np.int64(15)  # the Execute special action (L3511-3513)
SP_AMMO_DROP = np.int64(16)  # an officer's Ammo Drop (L3717-3721)
WHY_NAVAL = np.int64(8)  # a Naval Unit's free Attack after its March Move (L3609)
WHY_HERO_FIRST = np.int64(9)  # a joined hero's own First Strike, resolved first (L3525)
NONE = np.int64(-1)
ZERO = np.int64(0)
ONE = np.int64(1)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _bd(bd, name_row, s):
    return bd[name_row, s]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _rows(n):
    """(terrain row, first cover row, first move-cost row, first neighbour row, first deploy
    row, objective-area row, first exit row, wall row, in-building row, misc row, objectives
    row) of the board matrix (as :func:`bd_rows`)."""
    r = 9 * n
    return r, r + 1, r + 4, r + 11, r + 19, r + 21, r + 22, r + 24, r + 25, r + 26, r + 27


@nb.njit(nogil=True, cache=True, _nrt=False)
def _log(m, log, turn, side, unit, action, frm, to):
    """Append one event row (when logging); returns its index or -1."""
    if m[R_B, B_LOG] == 0:
        return -1
    k = m[R_B, B_LOGN]
    if k >= log.shape[0]:
        return -1
    for c in range(NLOG):
        log[k, c] = -1
    log[k, L_TURN] = turn
    log[k, L_SIDE] = side
    log[k, L_UNIT] = unit
    log[k, L_ACTION] = action
    log[k, L_FROM] = frm
    log[k, L_TO] = to
    m[R_B, B_LOGN] = k + 1
    return k


@nb.njit(nogil=True, cache=True, _nrt=False)
def _log_special(m, log, turn, side, u, frm, to, code, target, d0, d1, hits):
    """A special action's event row (``A_SPECIAL``, when logging): which one (``code``, an
    ``SP_*``), its target unit, the faces it rolled (``d0`` to ``d1`` of the dice buffer) and
    its successes, -1 where it has none. Returns the row (-1: not logging) for the columns
    some actions add (damage, casualties, token)."""
    k = _log(m, log, turn, side, u, A_SPECIAL, frm, to)
    if k >= 0:
        log[k, L_X] = code
        log[k, L_TARGET] = target
        log[k, L_D0] = d0
        log[k, L_D1] = d1
        log[k, L_HITS] = hits
    return k


@nb.njit(nogil=True, cache=True, _nrt=False)
def _side(m, u):
    return m[m[0, H_UNITS] + u, U_SIDE]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _sq(m, u):
    return m[m[0, H_ST] + u, ST_SQ]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _present(m, u):
    """Alive, on the board, not exited."""
    rs = m[0, H_ST] + u
    return m[rs, ST_SQ] >= 0 and m[rs, ST_GONE] == 0 and _alive(m, u)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _kind(m, u):
    return m[m[0, H_XU] + u, X_KIND]


# -- footprints (Large and Huge vehicles) --------------------------------------------------------
@nb.njit(nogil=True, cache=True, _nrt=False)
def _foot(m, u):
    """Squares u occupies: 1, 2 (Large vehicle) or 4 (Huge vehicle) (L285, L504)."""
    f = m[m[0, H_XU] + u, X_FOOT]
    return f if f > 1 else 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _fsq(m, size, s, face, k):
    """Square k of a footprint of ``size`` squares anchored on s: k = 0 is s; a Large
    vehicle's k = 1 the square behind s against ``face``; a Huge vehicle's k = 1..3 the rest
    of the 2 x 2 block of which s is the lowest-index square. -1 off the board."""
    if k == 0 or s < 0:
        return s
    width = m[R_B, B_WIDTH]
    c = s % width
    r = s // width
    if size == 2:
        b = (face + 4) & 7  # backwards (board.DIRECTIONS)
        c += 0 if (b == 0 or b == 4) else (1 if b < 4 else -1)
        r += 1 if (b == 0 or b == 1 or b == 7) else (-1 if (b >= 3 and b <= 5) else 0)
    else:
        c += k & 1
        r += k >> 1
    if c < 0 or c >= width or r < 0 or r >= m[R_B, B_HEIGHT]:
        return -1
    return r * width + c


@nb.njit(nogil=True, cache=True, _nrt=False)
def _usq(m, u, k):
    """Square k (0 .. _foot - 1) of unit u where it stands."""
    return _fsq(m, _foot(m, u), _sq(m, u), m[m[0, H_ST] + u, ST_FACE], k)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _line_org(m, u, w):
    """Where u's line w is drawn from (X_MOUNT, L604): 0 a Large vehicle's front square (and
    every line of other units), 1 its rear square, 2 either."""
    if _foot(m, u) != 2:
        return 0
    mk = m[m[0, H_XU] + u, X_MOUNT]
    b = w - m[m[0, H_UNITS] + u, U_W0]
    if mk == 0 or b >= 31:
        return 0
    if (mk >> b) & 1:
        return 1
    if (mk >> (32 + b)) & 1:
        return 2
    return 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _in_arc(width, arc, face, a, b):
    """Whether square b lies in the fire arc ``arc`` (ARC_*) of a line drawn from square a by
    a vehicle facing ``face`` (0-7, :data:`dustsim.play.board.DIRECTIONS`), L584-598. With
    f the facing vector and v the offset a -> b: front dot(v, f) > 0 and within 45 degrees,
    inclusive (2 dot^2 >= |v|^2 |f|^2, i.e. dot >= |cross|; L588); rear the same behind
    (L590); left / right the sign of cross(f, v), strictly: not the squares straight ahead
    or behind (L592); ARC_ALL everywhere (turret, L594; infantry, L586)."""
    if arc == ARC_ALL:
        return True
    fx = 1 if 1 <= face <= 3 else (-1 if face >= 5 else 0)
    fy = 1 if (face <= 1 or face == 7) else (-1 if 3 <= face <= 5 else 0)
    vx = b % width - a % width
    vy = b // width - a // width
    dot = fx * vx + fy * vy
    cross = fx * vy - fy * vx
    if arc == ARC_FRONT:
        return dot > 0 and dot >= abs(cross)
    if arc == ARC_REAR:
        return dot < 0 and -dot >= abs(cross)
    if arc == ARC_LEFT:
        return cross > 0
    return cross < 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _arc_ok(m, u, w, t):
    """Whether t stands in the fire arc of u's line w as u stands now (L584-598): from the
    square the line is drawn from (:func:`_line_org`: a Large vehicle's front, rear or either
    square), its body axis as facing; t is in the arc when one of its squares is
    (decisions: :data:`dustsim.play.battle.ARCS`)."""
    if (m[m[0, H_XU] + u, X_MOUNT] & ARCS_BIT) == 0:
        return True
    arc = m[m[0, H_WPN] + w, W_ARC]
    if arc == ARC_ALL:
        return True
    width = m[R_B, B_WIDTH]
    face = m[m[0, H_ST] + u, ST_FACE]
    fu = _foot(m, u)
    o = _line_org(m, u, w)
    for i in range(fu):
        if fu == 2 and o != 2 and i != o:
            continue
        a = _usq(m, u, i)
        if a < 0:
            continue
        for k in range(_foot(m, t)):
            b = _usq(m, t, k)
            if b >= 0 and _in_arc(width, arc, face, a, b):
                return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _gap(m, bd, u, t):
    """Range between u and t as they stand: the nearest of their squares (decision, L580)."""
    best = INF
    for i in range(_foot(m, u)):
        a = _usq(m, u, i)
        for k in range(_foot(m, t)):
            b = _usq(m, t, k)
            if a >= 0 and b >= 0 and bd[a, b] < best:
                best = bd[a, b]
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def _aim(m, bd, ls, lq, u, s, t, org):
    """(range, sight, cover) of u standing on s (its anchor) at t where one of them is a Large
    or Huge vehicle (decisions in :data:`dustsim.play.battle.FOOTPRINT`): lines from a Large
    shooter's front square, a Huge shooter's two squares nearest the target (its front
    turned to it, L604, L508); to the target square that is seen and nearest, then clear
    before cover (L580, L602); its own squares block nothing for it (L727). Cover: a
    Large target when one of its squares is in cover from that origin, a Huge one when two
    are (L727); a square not seen counts as in cover. Sight 2 when no square is seen.
    ``org`` for a Large shooter: 0 its front square (front and turret lines), 1 its rear
    square (rear lines), 2 either (side lines: decision, L604 names none)."""
    su = _foot(m, u)
    st = _foot(m, t)
    ts = _sq(m, t)
    tf = m[m[0, H_ST] + t, ST_FACE]
    air = _kind(m, u) == KIND_AIR or _kind(m, t) == KIND_AIR
    o0 = s
    o1 = -1
    if su == 2 and org != 0:
        r = _rear(m, bd, u, s)
        if r >= 0:
            if org == 1:
                o0 = r
            else:
                o1 = r
    if su == 4:  # the two squares of the block nearest the target's anchor
        o0 = -1
        d0 = INF
        d1 = INF
        for i in range(4):
            q = _fsq(m, 4, s, 0, i)
            if q < 0:
                continue
            dq = bd[q, ts]
            if dq < d0:
                o1, d1 = o0, d0
                o0, d0 = q, dq
            elif dq < d1:
                o1, d1 = q, dq
    best_d = INF
    best_l = 2
    best_o = -1
    for j in range(2):
        a = o0 if j == 0 else o1
        if a < 0:
            continue
        for k in range(st):
            b = _fsq(m, st, ts, tf, k)
            if b < 0:
                continue
            lo = _sight(m, bd, ls, lq, a, b, u, t)
            if lo == 2:
                continue
            dd = bd[a, b]
            if dd < best_d or (dd == best_d and lo < best_l):
                best_d, best_l, best_o = dd, lo, a
    if best_o < 0:
        return _gap(m, bd, u, t), 2, 0
    cnt = 0
    for k in range(st):
        b = _fsq(m, st, ts, tf, k)
        if b < 0:
            continue
        lo = _sight(m, bd, ls, lq, best_o, b, u, t)
        if air:
            if lo >= 1:
                cnt += 1
        elif lo == 2 or _in_cover(m, bd, t, b, lo) != 0:
            cnt += 1
    need = 2 if st == 4 else 1
    return best_d, best_l, 1 if cnt >= need else 0


# -- sight ---------------------------------------------------------------------------------------
@nb.njit(nogil=True, cache=True, _nrt=False)
def _sight(m, bd, ls, lq, a, b, ua, ub):
    """Line of sight from square a (unit ua) to square b (unit ub): 0 clear, 1 cover (one
    blocking corner), 2 blocked (static table, then vehicles on the line)."""
    n = m[R_B, B_N]
    r_in = 9 * n + 25
    if _kind(m, ua) == KIND_AIR or _kind(m, ub) == KIND_AIR:
        if bd[r_in, a] != 0 or bd[r_in, b] != 0:
            return bd[n + a, b]
        return 0
    rx = m[0, H_XU]
    if m[rx + ua, X_TALL] != 0 or m[rx + ub, X_TALL] != 0:
        st = bd[37 * n + 84 + a, b]  # a walker or Large/Huge vehicle: over Quonset huts (L3158)
    else:
        st = bd[n + a, b]
    if st == 2:
        return 2
    p = a * n + b
    k = ls[p]
    k1 = ls[p + 1]
    occ_col = SC_OCC
    rsc = m[0, H_SCR]
    while k < k1:
        s = lq[k, 0]
        if lq[k, 1] == 0:
            o = m[rsc + s, occ_col]
            if o > 0 and m[rx + o - 1, X_FOOT] > 1 and (o - 1 == ua or o - 1 == ub):
                o = 0  # a Large/Huge unit's own squares block nothing for it (L727)
            if ((o > 0 and m[rx + o - 1, X_VEH] != 0) or m[rsc + s, SC_WRECK] != 0) \
                    and s != a and s != b:
                return 2
            if s != a and s != b and BR.smoke_on(m, s):
                return 2  # smoke blocks sight through it (L3228, as trees L614-616)
            k += 1
            continue
        s2 = lq[k + 1, 0]
        o1 = m[rsc + s, occ_col]
        o2 = m[rsc + s2, occ_col]
        if o1 > 0 and m[rx + o1 - 1, X_FOOT] > 1 and (o1 - 1 == ua or o1 - 1 == ub):
            o1 = 0  # own squares (L727)
        if o2 > 0 and m[rx + o2 - 1, X_FOOT] > 1 and (o2 - 1 == ua or o2 - 1 == ub):
            o2 = 0
        b1 = ((o1 > 0 and m[rx + o1 - 1, X_VEH] != 0) or m[rsc + s, SC_WRECK] != 0
              or BR.smoke_on(m, s))
        b2 = ((o2 > 0 and m[rx + o2 - 1, X_VEH] != 0) or m[rsc + s2, SC_WRECK] != 0
              or BR.smoke_on(m, s2))
        if b1 or b2:
            # a dynamic blocking corner: with a static blocking square at the same corner
            # (already counted in the static code) or a second one, the line is blocked
            if (b1 and b2) or st == 1:
                return 2
            st = 1
        k += 2
    return st


@nb.njit(nogil=True, cache=True, _nrt=False)
def _occupy(m):
    """Fill the scratch occupancy column: unit index + 1 on each square (ground units and
    aircraft alike; 0 empty)."""
    n = m[R_B, B_N]
    rsc = m[0, H_SCR]
    for s in range(n):
        m[rsc + s, SC_OCC] = 0
    for u in range(m[0, H_U]):
        if _present(m, u):
            s = _sq(m, u)
            if m[rsc + s, SC_OCC] == 0 or _kind(m, u) != KIND_AIR:
                m[rsc + s, SC_OCC] = u + 1
            for k in range(1, _foot(m, u)):  # a Large/Huge vehicle's other squares
                q = _usq(m, u, k)
                if q >= 0:
                    m[rsc + q, SC_OCC] = u + 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _in_cover(m, bd, u, sq, los):
    """Target u on square sq is in cover: its square's terrain for its class, or one corner;
    or a cover save of its own (Crazy Jimmy's, ``ST_COVERED``; a Dozer's dig-in)."""
    if los == 1 or BR.smoke_on(m, sq) or m[m[0, H_ST] + u, ST_COVERED] != 0:
        return 1  # in smoke: cover (L3228, L680)
    if BC.dug_in(m, u):  # the Dozer special action: cover from any angle (L3505)
        return 1
    n = m[R_B, B_N]
    k = _kind(m, u)
    return 1 if bd[9 * n + 1 + k, sq] != 0 else 0


# -- movement ------------------------------------------------------------------------------------
@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _push(qb, st, c):
    """Append state ``st`` to the bucket of cost ``c`` (Dial's buckets in ``qb``: heads at
    0..QL, tails at QL..2 QL, entries (state, next) from 2 QL)."""
    e = 2 * QL + 2 * qb[2 * QL - 1]
    if e + 1 >= qb.shape[0]:
        return
    qb[2 * QL - 1] += 1
    qb[e] = st
    qb[e + 1] = -1
    if qb[c] < 0:
        qb[c] = e
    else:
        qb[qb[QL + c] + 1] = e
    qb[QL + c] = e


@nb.njit(nogil=True, cache=True, _nrt=False)
def _corner_ok(m, bd, r_mc, side, q):
    """A diagonal step may pass the corner of square q (on the board, passable, no enemy)."""
    if q < 0 or bd[r_mc, q] >= 99:
        return False
    oq = m[m[0, H_SCR] + q, SC_OCC]
    return not (oq > 0 and m[m[0, H_UNITS] + oq - 1, U_SIDE] != side)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _clear_around(m, bd, u, start, limit, base):
    """No unit that could bar u's paths (an enemy: never entered nor passed at a corner; for
    a vehicle a friendly vehicle) within ``limit`` + 1 of ``start`` (``bd`` row of ranges:
    the start square's, or a deployment zone's ``zdist`` row), on a square the static
    search at ``bd`` rows ``base`` reaches for ``limit`` or less, nor (an enemy) beside one
    it reaches for ``limit`` - 1 or less in a row or column (a diagonal step passes the
    corners of two such squares; the search expands no square of cost ``limit``: every step
    costs 1 or more): the search never steps into or past it, so it runs as if the board
    were empty.
    Friendly units elsewhere only bar ending on their square (checked by the callers)."""
    ru = m[0, H_UNITS]
    rx = m[0, H_XU]
    side = m[ru + u, U_SIDE]
    if m[rx + u, X_CLASS] == FLYING:
        return True
    veh = m[rx + u, X_KIND] == KIND_VEH
    if _foot(m, u) == 4:
        return False  # a Huge vehicle's 2 x 2 block: no static table (_reach_huge)
    n = m[R_B, B_N]
    r_nb = 9 * n + 11
    for v in range(m[0, H_U]):
        if v == u or not _present(m, v):
            continue
        dv = bd[start, _sq(m, v)]
        for k in range(1, _foot(m, v)):  # a Large/Huge unit's nearest square
            q = _usq(m, v, k)
            if q >= 0 and bd[start, q] < dv:
                dv = bd[start, q]
        if dv > limit + 1:
            continue
        friend = m[ru + v, U_SIDE] == side
        if friend and not (veh and m[rx + v, X_KIND] == KIND_VEH):
            continue
        for k in range(_foot(m, v)):  # does the static search enter it or pass its corner?
            q = _usq(m, v, k)
            if q < 0:
                continue
            # entered: its square reached for limit or less; a corner passed (an enemy's,
            # never a friendly vehicle's) by a diagonal step from an orthogonal neighbour of
            # cost limit - 1 or less (a square of cost limit steps nowhere: steps cost >= 1)
            for d in range(-1, 8, 2):
                x = q if d < 0 else bd[r_nb + d - 1, q]
                lim = limit if d < 0 else limit - 1
                if d >= 0 and friend:
                    break
                if x >= 0 and (bd[base, x] <= lim or bd[base + 1, x] <= lim):
                    return False
    return True


@nb.njit(cache=True)
def _expand(bd, qb, r, r_mc, r_adj, fly, limit):
    """Dial's search over cost buckets from the states already pushed on ``qb``: the rows
    ``r``/``r + 1`` (cost with no / one diagonal used) and ``r + 2``/``r + 3`` (parent state)
    of the board's static tables, no unit on the board (:func:`fill_static_rows`,
    :func:`fill_entry`; :func:`_reach` runs its own with the units)."""
    for level in range(limit + 1):
        e = qb[level]
        while e >= 0:
            st = qb[e]
            e = qb[e + 1]
            s = st >> 1
            dflag = st & 1
            if bd[r + dflag, s] != level:
                continue
            for d in range(8):
                t = bd[r_adj + d, s]
                if t < 0:
                    continue
                step = 1 if fly else bd[r_mc, t]
                nd = dflag
                if d & 1:
                    step += dflag
                    nd = 1
                nc = level + step
                if nc <= limit and nc < bd[r + nd, t]:
                    bd[r + nd, t] = nc
                    bd[r + 2 + nd, t] = s * 2 + dflag
                    _push(qb, t * 2 + nd, nc)


@exported("void(i4[:, ::1], i8, i8, i8)")
@nb.njit(cache=True)
def fill_static(bd, n, cls, limit):
    """The board's static movement tables of class ``cls`` (no units): for each start square
    the rows cost (no / one diagonal used) and parent state, as :func:`_reach` leaves them in
    its scratch; written into ``bd`` at ``bd_rows(n)["static"]``."""
    fill_static_rows(bd, n, cls == FLYING, 9 * n + 4 + cls, 9 * n + 28 + cls * 8,
                     9 * n + 84 + cls * n * 4, limit)


@nb.njit(cache=True)
def fill_static_rows(bd, n, fly, r_mc, r_adj, r_st, limit):
    """:func:`fill_static` for the tables at the rows given (move cost, adjacency, static:
    the amphibious ones of :mod:`dustsim.play.battle_carry` too)."""
    qb = np.zeros(2 * QL + 40 * n, np.int64)
    for s0 in range(n):
        r = r_st + s0 * 4
        for s in range(n):
            bd[r, s] = INF
            bd[r + 1, s] = INF
            bd[r + 2, s] = -1
            bd[r + 3, s] = -1
        if not fly and bd[r_mc, s0] >= 99:
            continue
        for c in range(limit + 1):
            qb[c] = -1
        qb[2 * QL - 1] = 0
        bd[r, s0] = 0
        _push(qb, s0 * 2, 0)
        _expand(bd, qb, r, r_mc, r_adj, fly, limit)


@exported("void(i4[:, ::1], i8, i8, i8)")
@nb.njit(cache=True)
def fill_entry(bd, n, cls, limit):
    """The board's entry tables of class ``cls`` (no units): per deployment zone z the rows
    cost (no / one diagonal used) and parent state of :func:`_reach` entering from z, at
    ``bd_rows(n)["entry"] + (cls * 2 + z) * 4``; and each square's range to zone z's nearest
    square at ``bd_rows(n)["zdist"] + z``."""
    fly = cls == FLYING
    r_mc = 9 * n + 4 + cls
    r_adj = 9 * n + 28 + cls * 8
    qb = np.zeros(2 * QL + 40 * n, np.int64)
    for z in range(2):
        zone = 9 * n + 19 + z
        rz = _r_entry(n) + 7 * 2 * 4 + z
        for q in range(n):
            best = 10_000
            for s in range(n):
                if bd[zone, s] != 0 and bd[s, q] < best:
                    best = bd[s, q]
            bd[rz, q] = best
        r = _r_entry(n) + (cls * 2 + z) * 4
        for s in range(n):
            bd[r, s] = INF
            bd[r + 1, s] = INF
            bd[r + 2, s] = -1
            bd[r + 3, s] = -1
        for c in range(limit + 1):
            qb[c] = -1
        qb[2 * QL - 1] = 0
        for s in range(n):  # as _reach seeds the zone (L2440)
            if bd[zone, s] != 0:
                c = bd[r_mc, s] if not fly else 1
                if c <= limit:
                    bd[r, s] = c
                    bd[r + 2, s] = -2
                    _push(qb, s * 2, c)
        _expand(bd, qb, r, r_mc, r_adj, fly, limit)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _reach(m, bd, u, limit, qb):
    """Movement costs from u's square (or from its entry squares when off the board) to every
    square, up to ``limit``: scratch columns SC_C0/SC_C1 (cost with no / one diagonal used),
    SC_P0/SC_P1 the parent state (square * 2 + diagonal flag; -1 the start, -2 an entry
    square). Dial's algorithm over cost buckets (``qb``: scratch) on the board's static steps
    (``bd`` adjacency rows: passable, no wall, corners of impassable squares not cut), with the
    units as dynamic blockers (never into or past the corner of an enemy, vehicles never
    through friendly vehicles). When no unit can bar a path the board's four static rows are
    the search (their first row in B_SBASE, read through :func:`_sc`; nothing is copied) and
    it returns that row (a caller may read them contiguously); -1 when it searched."""
    n = m[R_B, B_N]
    rsc = m[0, H_SCR]
    rx = m[0, H_XU] + u
    ru = m[0, H_UNITS]
    rxu = m[0, H_XU]
    cls = m[rx, X_CLASS]
    fly = cls == FLYING
    side = m[ru + u, U_SIDE]
    veh = m[rx, X_KIND] == KIND_VEH
    tb = BR.has(m, u, BR.RB_TRAIL_BLAZER)  # moves through enemy units (L3693-3695)
    r_mc = BC.r_mc(m, u)  # its class's tables (battle_carry: an amphibious vehicle's own)
    r_nb = 9 * n + 11
    r_adj = BC.r_adj(m, u)
    if limit > QL - 2:
        limit = QL - 2
    if _foot(m, u) == 4:
        _reach_huge(m, bd, u, limit, qb)
        return NONE
    start = m[m[0, H_ST] + u, ST_SQ]
    base = -1
    r_d = 0
    if start >= 0:
        base = BC.r_static(m, u) + start * 4
        r_d = start
    elif r_mc == 9 * n + 4 + cls:  # entering: the zone's table (an amphibious one has none)
        z = 0 if side == m[R_G, G_ATT] else 1
        base = _r_entry(n) + (cls * 2 + z) * 4
        r_d = _r_entry(n) + 7 * 2 * 4 + z
    if base >= 0 and _clear_around(m, bd, u, r_d, limit, base):
        # no unit can bar or end a path within reach: the board's static table is exact;
        # the readers (_sc) take its rows as the search's costs and parents (no copy)
        m[R_B, B_SBASE] = base
        return base
    m[R_B, B_SBASE] = NONE
    # what bars the mover on each square: bit 1 entering it (an enemy, unless Trail Blazer,
    # L3695; for a vehicle a friendly vehicle, L463), 2 passing its corner (an enemy), 4
    # leaving it (an enemy's square); nothing for aircraft
    for s in range(n):
        m[rsc + s, SC_C0] = INF
        m[rsc + s, SC_C1] = INF
        bar = 0
        o = m[rsc + s, SC_OCC]
        if o > 0 and not fly:
            if m[ru + o - 1, U_SIDE] != side:
                bar = BAR_CORNER if tb else BAR_ENTER | BAR_CORNER | BAR_LEAVE
            if veh and o - 1 != u and m[rxu + o - 1, X_KIND] == KIND_VEH:
                bar |= BAR_ENTER
        m[rsc + s, SC_BAR] = bar
    for c in range(limit + 1):
        qb[c] = -1
    qb[2 * QL - 1] = 0
    if start >= 0:
        m[rsc + start, SC_C0] = 0
        m[rsc + start, SC_P0] = -1
        _push(qb, start * 2, 0)
    else:  # entering: the first square entered costs its move cost (L2440)
        zone = 9 * n + 19 + (0 if side == m[R_G, G_ATT] else 1)
        for s in range(n):
            if bd[zone, s] != 0:
                c = bd[r_mc, s] if not fly else 1
                o = m[rsc + s, SC_OCC]
                ok = o == 0 or (m[ru + o - 1, U_SIDE] == side and not fly and not (
                    veh and m[rxu + o - 1, X_KIND] == KIND_VEH))  # L463-464
                if c <= limit and (ok or fly):
                    m[rsc + s, SC_C0] = c
                    m[rsc + s, SC_P0] = -2
                    _push(qb, s * 2, c)
    top = 2 * QL + 2 * qb[2 * QL - 1]  # the next free entry of the buckets (as _push)
    cap = qb.shape[0] - 1
    # every step costs 1 or more (checked by battle._board_matrix): a state of cost ``limit``
    # reaches nothing further, so the last level is not expanded (the same costs and paths)
    for level in range(limit):
        e = qb[level]
        while e >= 0:
            st = qb[e]
            e = qb[e + 1]
            s = st >> 1
            dflag = st & 1
            if m[rsc + s, SC_C0 + dflag] != level:
                continue  # a stale entry: reached cheaper since
            if dflag and m[rsc + s, SC_C0] < level:
                # dominated: s was reached cheaper with no diagonal used, and every path on
                # from here is cheaper from there (costs and the paths kept do not change)
                continue
            if m[rsc + s, SC_BAR] & BAR_LEAVE:
                continue  # never through an enemy
            for d in range(8):
                t = bd[r_adj + d, s]
                if t < 0 or m[rsc + t, SC_BAR] & BAR_ENTER:
                    continue  # never into an enemy's square, nor a vehicle into a vehicle's
                step = 1 if fly else bd[r_mc, t]
                nd = dflag
                if d & 1:
                    step += dflag  # further diagonals count two (L461)
                    nd = 1
                nc = level + step
                if nc > limit or nc >= m[rsc + t, SC_C0 + nd]:
                    continue  # no cheaper (tested first: the corners are read less often)
                if d & 1 and (  # nor past the corner of an enemy
                        m[rsc + bd[r_nb + ((d + 7) & 7), s], SC_BAR] & BAR_CORNER or
                        m[rsc + bd[r_nb + ((d + 1) & 7), s], SC_BAR] & BAR_CORNER):
                    continue
                m[rsc + t, SC_C0 + nd] = nc
                m[rsc + t, SC_P0 + nd] = s * 2 + dflag
                if top < cap:  # _push, its count kept here
                    qb[top] = t * 2 + nd
                    qb[top + 1] = -1
                    if qb[nc] < 0:
                        qb[nc] = top
                    else:
                        qb[qb[QL + nc] + 1] = top
                    qb[QL + nc] = top
                    top += 2
    return NONE


@nb.njit(nogil=True, cache=True, _nrt=False)
def _relax(m, qb, rsc, s, t, d, dflag, level, step, limit):
    """One step of the movement search (buckets by cost): t entered from s in direction d
    for ``step`` points, a diagonal after the first of the path counting two (L461); state
    ``dflag`` 1 once a diagonal was taken."""
    nd = dflag
    if d & 1:
        step += dflag  # further diagonals count two (L461)
        nd = 1
    nc = level + step
    if nc <= limit and nc < m[rsc + t, SC_C0 + nd]:
        m[rsc + t, SC_C0 + nd] = nc
        m[rsc + t, SC_P0 + nd] = s * 2 + dflag
        _push(qb, t * 2 + nd, nc)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _block_step(m, bd, u, s, d, r_mc, r_adj, tb):
    """Entry cost of a Huge vehicle's 2 x 2 block anchored on s stepping in direction d
    (each of its squares steps as a vehicle of its class: passable, no wall, no impassable
    corner cut; none into an enemy unless Trail Blazer nor a friendly vehicle, none past an
    enemy's corner, L463-465, L510); -1 when barred."""
    n = m[R_B, B_N]
    rsc = m[0, H_SCR]
    ru = m[0, H_UNITS]
    rxu = m[0, H_XU]
    r_nb = 9 * n + 11
    side = m[ru + u, U_SIDE]
    step = 0
    for k in range(4):
        a = _fsq(m, 4, s, 0, k)
        if a < 0:
            return -1
        t = bd[r_adj + d, a]
        if t < 0:
            return -1
        if bd[r_mc, t] > step:
            step = bd[r_mc, t]
        ot = m[rsc + t, SC_OCC]
        if ot > 0 and ot - 1 != u:
            if m[ru + ot - 1, U_SIDE] != side and not tb:
                return -1
            if m[rxu + ot - 1, X_KIND] == KIND_VEH:
                return -1
        if d & 1:
            for e in range(2):
                q = bd[r_nb + ((d + 7 + 2 * e) & 7), a]
                oq = m[rsc + q, SC_OCC] if q >= 0 else 0
                if oq > 0 and oq - 1 != u and m[ru + oq - 1, U_SIDE] != side:
                    return -1
    return step


@nb.njit(nogil=True, cache=True, _nrt=False)
def _reach_huge(m, bd, u, limit, qb):
    """:func:`_reach` for a Huge vehicle: the search runs on the anchor of its 2 x 2 block,
    each step moving the whole block (L504-508: the leading edge moves, the rest takes the
    squares it vacates; decision: a diagonal step moves the block diagonally). Entering from
    its edge, the block's edge pair enters the zone and the block drives on fully: cost 2."""
    n = m[R_B, B_N]
    rsc = m[0, H_SCR]
    m[R_B, B_SBASE] = NONE  # the scratch holds this search
    ru = m[0, H_UNITS]
    rx = m[0, H_XU] + u
    side = m[ru + u, U_SIDE]
    tb = BR.has(m, u, BR.RB_TRAIL_BLAZER)
    r_mc = BC.r_mc(m, u)
    r_adj = BC.r_adj(m, u)
    start = m[m[0, H_ST] + u, ST_SQ]
    for s in range(n):
        m[rsc + s, SC_C0] = INF
        m[rsc + s, SC_C1] = INF
    for c in range(limit + 1):
        qb[c] = -1
    qb[2 * QL - 1] = 0
    if start >= 0:
        m[rsc + start, SC_C0] = 0
        m[rsc + start, SC_P0] = -1
        _push(qb, start * 2, 0)
    elif limit >= 2:
        zone = 9 * n + 19 + (0 if side == m[R_G, G_ATT] else 1)
        for s in range(n):
            inz = 0
            ok = True
            for k in range(4):
                q = _fsq(m, 4, s, 0, k)
                if q < 0 or bd[r_mc, q] >= 99:
                    ok = False
                    break
                o = m[rsc + q, SC_OCC]
                if o > 0 and o - 1 != u and (m[ru + o - 1, U_SIDE] != side
                                             or m[rx - u + o - 1, X_KIND] == KIND_VEH):
                    ok = False
                    break
                if bd[zone, q] != 0:
                    inz += 1
            if ok and inz >= 2:
                m[rsc + s, SC_C0] = 2
                m[rsc + s, SC_P0] = -2
                _push(qb, s * 2, 2)
    for level in range(limit + 1):
        e = qb[level]
        while e >= 0:
            st = qb[e]
            e = qb[e + 1]
            s = st >> 1
            dflag = st & 1
            if m[rsc + s, SC_C0 + dflag] != level:
                continue
            for d in range(8):
                t = bd[r_adj + d, s]
                if t < 0:
                    continue
                step = _block_step(m, bd, u, s, d, r_mc, r_adj, tb)
                if step < 0:
                    continue
                _relax(m, qb, rsc, s, t, d, dflag, level, step, limit)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _sc(m, bd, s, k):
    """Column k (SC_C0, SC_C1, SC_P0 or SC_P1) of the last movement search at square s: the
    board's static rows it stood for (B_SBASE, :func:`_reach`), else the scratch."""
    b = m[R_B, B_SBASE]
    if b >= 0:
        return np.int64(bd[b + k, s])
    return m[m[0, H_SCR] + s, k]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _rear(m, bd, u, s):
    """The rear square of Large vehicle u ending its move with its front on s (scratch
    parents of the last search): the square its front left on the final step (L504); after a
    diagonal final step, the square beside that step's corner in the front's column, else in
    its row (decision: it keeps to the grid, L461, L506-508); its present rear square when s
    is where it stands; -1 on an entry square (the rear would be off the board)."""
    rsc = m[0, H_SCR]
    a = _sc(m, bd, s, SC_C0)
    b = _sc(m, bd, s, SC_C1)
    p = _sc(m, bd, s, SC_P0) if a <= b else _sc(m, bd, s, SC_P1)
    if p == -1 or s == _sq(m, u):
        return _usq(m, u, 1)
    if p < 0:
        return -1
    q = p >> 1
    width = m[R_B, B_WIDTH]
    dc = s % width - q % width
    dr = s // width - q // width
    if dc == 0 or dr == 0:
        return q
    c = s - dr * width
    o = m[rsc + c, SC_OCC]
    if o == 0 or o - 1 == u:
        return c
    return s - dc


@nb.njit(nogil=True, cache=True, _nrt=False)
def _cost(m, bd, s):
    a = _sc(m, bd, s, SC_C0)
    b = _sc(m, bd, s, SC_C1)
    return a if a < b else b


@nb.njit(nogil=True, cache=True, _nrt=False)
def _can_end(m, bd, u, s):
    """u may end a move on s: no other unit on it (L465), nor on the other squares of a Large
    or Huge vehicle's footprint there."""
    rsc = m[0, H_SCR]
    o = m[rsc + s, SC_OCC]
    if not (o == 0 or o - 1 == u):
        return False
    size = _foot(m, u)
    if size == 1:
        return True
    for k in range(1, size):
        q = _rear(m, bd, u, s) if size == 2 else _fsq(m, 4, s, 0, k)
        if q < 0:
            return False
        o = m[rsc + q, SC_OCC]
        if not (o == 0 or o - 1 == u):
            return False
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _path(m, bd, plog, s, upto, stop):
    """Write the path to s (entry or start square first) into ``plog`` from B_PLOGN; returns
    (first index, count, the last square of cost <= upto on the way)."""
    # walk back into the tail of plog, then reverse in place
    cap = plog.shape[0]
    k0 = m[R_B, B_PLOGN]
    a = _sc(m, bd, s, SC_C0)
    b = _sc(m, bd, s, SC_C1)
    st = 0 if a <= b else 1
    cur = s
    k = k0
    mid = s
    best_mid_c = -1
    while True:
        c = _sc(m, bd, cur, SC_C0 + st)
        if c <= upto and c > best_mid_c:
            best_mid_c = c
            mid = cur
        if k < cap:
            plog[k] = cur
        k += 1
        p = _sc(m, bd, cur, SC_P0 + st)
        if p < 0 or cur == stop:
            break
        cur = p // 2
        st = p % 2
        if k - k0 > 400:
            break
    cnt = k - k0
    if k <= cap:
        i = k0
        j = k - 1
        while i < j:
            t = plog[i]
            plog[i] = plog[j]
            plog[j] = t
            i += 1
            j -= 1
        m[R_B, B_PLOGN] = k
    return k0, cnt, mid


@nb.njit(nogil=True, cache=True, _nrt=False)
def _midpoint(m, bd, s, upto):
    """The last square of cost <= upto on the path to s (a March Move's normal Move, L811)."""
    a = _sc(m, bd, s, SC_C0)
    b = _sc(m, bd, s, SC_C1)
    st = 0 if a <= b else 1
    cur = s
    for _ in range(400):
        if _sc(m, bd, cur, SC_C0 + st) <= upto:
            return cur
        p = _sc(m, bd, cur, SC_P0 + st)
        if p < 0:
            return cur
        cur = p // 2
        st = p % 2
    return cur


# -- values --------------------------------------------------------------------------------------
@nb.njit(nogil=True, cache=True, _nrt=False)
def _fires_at(m, w, t, d, cc):
    """Carriers of line w able to fire at t at distance d (ranged or close combat), 0 if not;
    t must stand in the line's fire arc as its unit stands (:func:`_arc_ok`)."""
    c = _fires_free(m, w, t, d, cc)
    rw = m[0, H_WPN] + w
    if c > 0 and m[rw, W_ARC] != ARC_ALL and not _arc_ok(m, m[rw, W_UNIT], w, t):
        return 0
    return c


@nb.njit(nogil=True, cache=True, _nrt=False)
def _fires_free(m, w, t, d, cc):
    """:func:`_fires_at` with the fire arc aside (a square the unit may turn on)."""
    rw = m[0, H_WPN] + w
    if (m[rw, W_CC] != 0) != cc:
        return 0
    if not _hurts(m, w, t):
        return 0
    rws = m[0, H_WS] + w
    if m[rws, WS_AMMO] == 0:
        return 0
    if m[rws, WS_LOADED] == 0:
        return 0
    if d < m[rw, W_RMIN] or d > m[rw, W_RMAX]:
        return 0
    return _carriers(m, w)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _ev(m, f, w, t, cov, carriers):
    """Value of line w firing with ``carriers`` at t: the target's AP times the share of what
    it has left that the line's expected damage takes (capped at 1), so a damaged unit is
    worth finishing. Blast lines scale with the target's models left."""
    U = m[0, H_U]
    fr = F_UNITS + U + w * U + t
    e = f[fr, cov] * carriers
    left = _left(m, t)
    if left <= 0:
        return 0.0
    rw = m[0, H_WT] + w * U + t
    if m[rw, WT_BLAST] > 0:
        start = m[m[0, H_XU] + t, X_START]
        if start > 0:
            e *= left / start
    r = e / left
    if r > 1.0:
        r = 1.0
    return f[F_UNITS + t, 0] * r


@nb.njit(nogil=True, cache=True, _nrt=False)
def _ev2(m, f, w, t, carriers):
    """(:func:`_ev` with t in the open, in cover): the same figures, computed together."""
    U = m[0, H_U]
    fr = F_UNITS + U + w * U + t
    e0 = f[fr, 0] * carriers
    e1 = f[fr, 1] * carriers
    left = _left(m, t)
    if left <= 0:
        return 0.0, 0.0
    rw = m[0, H_WT] + w * U + t
    if m[rw, WT_BLAST] > 0:
        start = m[m[0, H_XU] + t, X_START]
        if start > 0:
            e0 *= left / start
            e1 *= left / start
    r0 = e0 / left
    if r0 > 1.0:
        r0 = 1.0
    r1 = e1 / left
    if r1 > 1.0:
        r1 = 1.0
    ap = f[F_UNITS + t, 0]
    return ap * r0, ap * r1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _line_values(m, f, u, val):
    """val[w, 4 + 2 t + cov]: the value of u's line w on enemy t (target in the open / in
    cover, :func:`_ev`) with its carriers, ammunition and load now, range aside; 0 where it
    cannot fire at t. Read by :func:`_offence` for every square it scores."""
    U = m[0, H_U]
    ru = m[0, H_UNITS] + u
    side = m[ru, U_SIDE]
    rws = m[0, H_WS]
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        c = _carriers(m, w)
        able = c > 0 and m[rws + w, WS_AMMO] != 0 and m[rws + w, WS_LOADED] != 0
        for t in range(U):
            v0 = 0.0
            v1 = 0.0
            if able and m[m[0, H_UNITS] + t, U_SIDE] != side and _hurts(m, w, t):
                v0, v1 = _ev2(m, f, w, t, c)
            val[w, 4 + 2 * t] = v0
            val[w, 5 + 2 * t] = v1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _offence_big(m, bd, ls, lq, u, s, t, val):
    """:func:`_offence`'s step for one target t where u or t is a Large or Huge vehicle: each
    line's range, sight and cover from the square it is drawn from (:func:`_aim`,
    :func:`_line_org`)."""
    ru = m[0, H_UNITS] + u
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    d0, l0, c0 = _aim(m, bd, ls, lq, u, s, t, ZERO)
    d1, l1, c1 = d0, l0, c0
    d2, l2, c2 = d0, l0, c0
    mk = m[m[0, H_XU] + u, X_MOUNT] if _foot(m, u) == 2 else 0
    if mk & 0x7FFFFFFF:
        d1, l1, c1 = _aim(m, bd, ls, lq, u, s, t, ONE)
    if mk >> 32:
        d2, l2, c2 = _aim(m, bd, ls, lq, u, s, t, np.int64(2))
    air_t = _kind(m, t) == KIND_AIR
    arcs = (m[m[0, H_XU] + u, X_MOUNT] & ARCS_BIT) != 0 and s == _sq(m, u)  # as it stands (ARCS)
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        o = _line_org(m, u, w)
        d, lo, cov = (d1, l1, c1) if o == 1 else ((d2, l2, c2) if o == 2 else (d0, l0, c0))
        if lo == 2 or BR.hidden(m, t, d):  # camouflage: not from range 3 or more (L3455)
            continue
        if arcs and m[rwp + w, W_ARC] != ARC_ALL and not _arc_ok(m, u, w, t):
            continue
        if d < m[rwp + w, W_RMIN] or d > m[rwp + w, W_RMAX] or not _hurts(m, w, t):
            continue
        if m[rwp + w, W_CC] != 0 and (air_t or m[R_G, G_NOCC] != 0):
            continue
        v = val[w, 4 + 2 * t + cov]  # _line_values, fresh for this activation
        if v > val[w, 3]:
            val[w, 3] = v
            m[rws + w, 6] = t
            m[rws + w, 7] = cov


@nb.njit(nogil=True, cache=True, _nrt=False)
def _offence(m, f, bd, ls, lq, u, s, commit, val):
    """Value of u attacking from square s, each weapon line at its own best target (003
    L657-663): range, line of sight and cover from s. With ``commit`` the choices are written
    to the weapon state (WS_TGT, WS_COV). Close-combat lines fire at adjacent enemies.
    ``val[w, 3]`` is scratch (the best value of line w so far)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS] + u
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    side = m[ru, U_SIDE]
    w0 = m[ru, U_W0]
    w1 = m[ru, U_W1]
    if w1 <= w0:
        return 0.0
    lo = INF  # the shortest and longest reach of its lines
    hi = -1
    for w in range(w0, w1):
        val[w, 3] = 0.0
        m[rws + w, 6] = -1
        m[rws + w, 7] = 0
        lo = min(lo, m[rwp + w, W_RMIN])
        hi = max(hi, m[rwp + w, W_RMAX])
    air_u = _kind(m, u) == KIND_AIR
    big_u = _foot(m, u) > 1
    # fire arcs where it stands (ARCS); a square it moves to is scored with its facing free
    arcs = (m[m[0, H_XU] + u, X_MOUNT] & ARCS_BIT) != 0 and s == _sq(m, u)
    for t in range(U):
        if m[m[0, H_UNITS] + t, U_SIDE] == side:
            continue
        ts = _sq(m, t)
        if ts < 0:
            continue  # not on the board (_present)
        if big_u or _foot(m, t) > 1:  # a Large or Huge vehicle: by its squares
            if _present(m, t):
                _offence_big(m, bd, ls, lq, u, s, t, val)
            continue
        d = bd[s, ts]
        if d < lo or d > hi:
            continue  # beyond every line's range
        inreach = False  # a line in range whose value on t could beat its best so far
        for w in range(w0, w1):  # (without branches on the data)
            b = val[w, 3]
            inreach = inreach | ((d >= m[rwp + w, W_RMIN]) & (d <= m[rwp + w, W_RMAX]) & (
                (val[w, 4 + 2 * t] > b) | (val[w, 5 + 2 * t] > b)))
        if not inreach:
            continue  # no line would take t: its sight is not needed
        if not _present(m, t) or BR.hidden(m, t, d):
            continue  # camouflaged: not from range 3 or more (L3455)
        los = _sight(m, bd, ls, lq, s, ts, u, t)
        if los == 2:
            continue
        air_t = _kind(m, t) == KIND_AIR
        if air_u or air_t:
            cov = 1 if los == 1 or m[m[0, H_ST] + t, ST_COVERED] != 0 else 0
        else:
            cov = _in_cover(m, bd, t, ts, los)
        for w in range(w0, w1):
            if d < m[rwp + w, W_RMIN] or d > m[rwp + w, W_RMAX]:
                continue
            if m[rwp + w, W_CC] != 0 and (air_t or m[R_G, G_NOCC] != 0):
                continue
            if arcs and m[rwp + w, W_ARC] != ARC_ALL and not _arc_ok(m, u, w, t):
                continue
            v = val[w, 4 + 2 * t + cov]  # _line_values, fresh for this activation
            if v > val[w, 3]:
                val[w, 3] = v
                m[rws + w, 6] = t
                m[rws + w, 7] = cov
    total = 0.0
    for w in range(w0, w1):
        total += val[w, 3]
        if commit:
            m[rws + w, WS_TGT] = m[rws + w, 6]
            m[rws + w, WS_COV] = m[rws + w, 7]
    return BR.wire_choice(m, u, total, val, commit)  # a wire-guided line alone (L3345)


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _offence_cap(m, bd, u, s, el, val):
    """An upper bound of :func:`_offence` of one-square u from s among one-square enemies
    (the list ``el`` of :func:`_threat_setup`, fresh): each line at the best value of an
    enemy in its range whose sight from s the board's static table does not block (as
    :func:`_sight` reads it first: units and smoke only block more; not for aircraft), in
    cover where its square gives its class cover (:func:`_in_cover`; aircraft aside), else
    the better of open and cover. A sum of terms no smaller than :func:`_offence`'s, in the
    same order: never below it in floating point either."""
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    rx = m[0, H_XU]
    n = m[R_B, B_N]
    air_u = _kind(m, u) == KIND_AIR
    tall_u = m[rx + u, X_TALL] != 0
    tot = 0.0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        b = 0.0
        lo = m[rwp + w, W_RMIN]
        hi = m[rwp + w, W_RMAX]
        for i in range(1, el[0, 0] + 1):  # without branches on the data (selects)
            es = el[i, 1]
            d = bd[es, s]
            t = el[i, 0]
            tall = tall_u | (m[rx + t, X_TALL] != 0)
            st = bd[37 * n + 84 + s, es] if tall else bd[n + s, es]
            ground = not (air_u or m[rx + t, X_KIND] == KIND_AIR)
            seen = (not ground) | (st != 2)
            v = val[w, 4 + 2 * t]
            v1 = val[w, 5 + 2 * t]
            v = v1 if (v1 > v) | ((bd[9 * n + 1 + m[rx + t, X_KIND], es] != 0) & ground) else v
            b = v if (d >= lo) & (d <= hi) & (v > b) & seen else b
        tot += b
    return tot


@nb.njit(nogil=True, cache=True, _nrt=False)
def _threat_setup(m, f, u, el, val):
    """The enemies of u on the board, as a compact list for the square scores: el[0, 0] their
    count k; row i = 1..k: [unit, square, reach (its Move + the longest range of a line that
    hurts u, -1 none), acted this turn, the longest range of u's lines that hurt it (-1
    none)]; val[i, 0] / val[i, 1] the value of its lines on u in the open / in cover."""
    U = m[0, H_U]
    side = _side(m, u)
    ru = m[0, H_UNITS] + u
    k = 0
    for e in range(U):
        if _side(m, e) == side or not _present(m, e):
            continue
        k += 1
        el[k, 0] = e
        el[k, 1] = _sq(m, e)
        el[k, 3] = m[m[0, H_ST] + e, ST_ACT]
        val[k, 0] = 0.0
        val[k, 1] = 0.0
        re = m[0, H_UNITS] + e
        longest = -1
        for w in range(m[re, U_W0], m[re, U_W1]):
            if not _hurts(m, w, u):
                continue
            if m[m[0, H_WS] + w, WS_AMMO] == 0:
                continue
            c = _carriers(m, w)
            if c == 0:
                continue
            r = m[m[0, H_WPN] + w, W_RMAX]
            if r > 1000:
                r = 1000
            longest = r if r > longest else longest
            v0, v1 = _ev2(m, f, w, u, c)
            val[k, 0] += v0
            val[k, 1] += v1
        el[k, 2] = longest + m[re, U_MOVE] if longest >= 0 else -1
        mine = -1
        for w in range(m[ru, U_W0], m[ru, U_W1]):
            if _hurts(m, w, e) and m[m[0, H_WS] + w, WS_AMMO] != 0 and _carriers(m, w) > 0:
                r = m[m[0, H_WPN] + w, W_RMAX]
                if r > 1000:
                    r = 1000
                mine = r if r > mine else mine
        el[k, 4] = mine
    el[0, 0] = k


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _score_rest(m, f, bd, u, s, cov, thr, bestgap, lam):
    """:func:`_position`'s score from its threat ``thr`` and ``bestgap`` (one home for the
    single square and the one pass over an activation's squares, :func:`_positions`)."""
    n = m[R_B, B_N]
    sc = -lam * thr
    if cov:
        sc += f[0, PW_COVER]
    # closing: distance to the nearest enemy it can hurt, beyond its longest range
    if bestgap < 10_000 and bestgap > 0:
        sc -= f[0, PW_CLOSE] * bestgap
    # objectives: standing on one, or closing on the nearest not held by the side
    k = m[R_B, B_NOBJ]
    if k > 0 and f[0, PW_OBJ] > 0.0:
        r_obj = 9 * n + 27
        r_area = 9 * n + 21
        r_pc = BC.r_pc(m, u)  # path costs of its class (battle_carry: amphibious)
        if bd[r_area, s] >= 0:
            sc += f[0, PW_OBJ]
        else:
            dmin = 10_000
            for i in range(k):
                o = bd[r_obj, i]
                d = bd[r_pc + s, o]
                if d < dmin:
                    dmin = d
            if dmin < 10_000:
                sc -= 0.1 * f[0, PW_OBJ] * dmin
    # exits: closing on the side's exit edge
    if m[R_B, B_VC] & VC_EXIT and m[m[0, H_XU] + u, X_CAN_EXIT] != 0:
        ex = 9 * n + 22 + (0 if _side(m, u) == m[R_G, G_ATT] else 1)
        best = 10_000
        for q in range(n):
            if bd[ex, q] != 0:
                d = bd[s, q]
                if d < best:
                    best = d
        if best < 10_000:
            sc -= f[0, PW_EXIT] * best
    return sc


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _threat(m, bd, s, el, val, cov):
    """(threat, gap) of a unit on s (its cover there ``cov``): the expected loss to the
    enemies of the list ``el`` (:func:`_threat_setup`) that can reach a firing square next,
    halved for those that acted this turn; the gap to the nearest enemy it can hurt beyond
    its longest range (<= 0: some enemy within it)."""
    thr = 0.0
    bestgap = 10_000
    for i in range(1, el[0, 0] + 1):  # without branches on the data (selects: same sums)
        d = bd[el[i, 1], s]
        r = el[i, 2]
        v = val[i, cov]
        v = 0.5 * v if el[i, 3] != 0 else v
        thr += v if (r >= 0) & (d <= r) else 0.0  # + 0.0: thr is never -0.0
        mine = el[i, 4]
        gap = d - mine
        bestgap = gap if (mine >= 0) & (gap < bestgap) else bestgap
    return thr, bestgap


@nb.njit(nogil=True, cache=True, _nrt=False)
def _position(m, f, bd, u, s, el, val, lam):
    """Score of u ending on s (no attack): the threat there (the expected loss to the enemies
    that can reach a firing square next, halved for those that acted this turn, lower in
    cover), cover, closing on enemies it can hurt, objectives, the exit edge (weights of the
    policy row f[0])."""
    n = m[R_B, B_N]
    cov = 1 if bd[9 * n + 1 + _kind(m, u), s] != 0 else 0
    thr, bestgap = _threat(m, bd, s, el, val, cov)
    val[0, 2] = bestgap  # no enemy within u's longest range from s when > 0
    return _score_rest(m, f, bd, u, s, cov, thr, bestgap, lam)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _positions(m, f, bd, u, el, val, lam, cnt):
    """:func:`_position` of u on each of ``cnt`` squares in one pass (no call per square).
    The last six rows of ``val`` (:func:`_scratch`), entry j of the first four: the square
    (ascending), its cost (both set by the caller), the score and the gap (:func:`_threat`);
    the last two, by square from the first of them to the last: the threat and the gap,
    summed enemy by enemy over those squares (each square's terms added in the list's
    order, as :func:`_threat`: the same figures; unsigned square indices, so that the loops
    over contiguous squares compile to vector code)."""
    q = val.shape[0] - 6
    if cnt <= 0:
        return
    n = m[R_B, B_N]
    r_cov = 9 * n + 1 + _kind(m, u)
    lo = np.uint64(val[q, 0])
    hi = np.uint64(val[q, cnt - 1]) + np.uint64(1)
    rt = q + 4
    rg = q + 5
    for s in range(lo, hi):
        val[rt, s] = 0.0
        val[rg, s] = 10_000.0
    for i in range(1, el[0, 0] + 1):
        es = el[i, 1]
        r = el[i, 2]
        mine = el[i, 4]
        v0 = val[i, 0]
        v1 = val[i, 1]
        if el[i, 3] != 0:
            v0 = 0.5 * v0
            v1 = 0.5 * v1
        if r >= 0:  # (an enemy with no reach adds 0.0 everywhere: nothing)
            for s in range(lo, hi):
                v = v1 if bd[r_cov, s] != 0 else v0
                val[rt, s] += v if bd[es, s] <= r else 0.0
        if mine >= 0:
            for s in range(lo, hi):
                g = np.float64(bd[es, s] - mine)
                val[rg, s] = g if g < val[rg, s] else val[rg, s]
    for j in range(cnt):
        s = np.int64(val[q, j])
        cov = 1 if bd[r_cov, s] != 0 else 0
        bestgap = np.int64(val[rg, s])
        val[q + 2, j] = _score_rest(m, f, bd, u, s, cov, val[rt, s], bestgap, lam)
        val[q + 3, j] = bestgap


# -- attacks -------------------------------------------------------------------------------------
@nb.njit(nogil=True, cache=True, _nrt=False)
def _target_spec(m, t, suppress):
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    rt = m[0, H_TSPEC] + t
    m[rt, S_MODELS] = m[rs + t, ST_MODELS]
    m[rt, S_SINGLE] = m[rs + t, ST_HERO] if m[ru + t, U_SQUAD] != 0 else m[rs + t, ST_SINGLE]
    m[rt, S_TOKEN] = m[rs + t, ST_TOK]
    m[rt, S_SUPP] = m[rt, T_SUPP] if suppress and m[ru + t, U_IMMUNE] == 0 else 0
    return rt


@nb.njit(nogil=True, cache=True, _nrt=False)
def _resolve(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sustained, moved, cc, rr,
             kind):
    """Resolve u's lines declared at t (WS_TGT == t) of one class: set their dice, roll
    through the dice kernel; the outcome is left in row rr. Returns (pos, fired)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    rwt = m[0, H_WT]
    wg = (m[0, H_GROUPS + 1] - m[0, H_GROUPS]) // (U * 4)  # rows per (target, cover, variant)
    cov = 0
    for w in range(m[ru + u, U_W0], m[ru + u, U_W1]):
        if m[rws + w, WS_TGT] == t:
            cov = m[rws + w, WS_COV]
    variant = 1 if sustained else 0
    rg = m[0, H_GROUPS] + ((t * 2 + cov) * 2 + variant) * wg
    w0 = m[ru + u, U_W0]
    w1 = m[ru + u, U_W1]
    big = _foot(m, u) > 1 or _foot(m, t) > 1
    big_los = 0
    d_log = -1
    lo = 0
    d = bd[_sq(m, u), _sq(m, t)]
    if m[ru + t, U_SQUAD] != 0:
        mini = m[rs + t, ST_MODELS] + (1 if m[rs + t, ST_HERO] > 0 else 0)
    elif m[ru + t, U_SUPPORT] != 0:
        mini = m[rs + t, ST_SINGLE]
    else:
        mini = 1
    ng = 0
    mask = 0
    for w in range(w0, w1):
        m[rg + w, G_DICE] = 0
        if m[rws + w, WS_TGT] != t:
            continue
        if big:  # each line from its own square to the target's nearest seen square
            d, lo, _c = _aim(m, bd, ls, lq, u, _sq(m, u), t, _line_org(m, u, w))
            if lo == 2 and m[R_G, BR.G_OBSERVER] == 0:  # observed fire: the observer's sight
                continue
        c = _fires_at(m, w, t, d, cc)
        if c == 0:
            continue
        if big and d_log < 0:
            d_log = d
            big_los = lo
        wt = rwt + w * U + t
        if m[wt, WT_BLAST] > 0:
            nd = m[wt, WT_BLAST] * mini * c
        else:
            nd = m[wt, WT_DICE] * c
        if m[rwp + w, W_SETUP] != 0 and moved:
            nd = (nd + 1) // 2
        if m[rwp + w, W_SALVO] != 0 and m[R_CFG, C_SALVO] != 0:
            nd *= 2  # a Salvo attack: twice the dice, the Loaded token removed (L3312)
            m[rws + w, WS_LOADED] = 0
        if m[rwp + w, W_VOLLEY] != 0 and m[R_CFG, C_VOLLEY] != 0 and m[rws + w, WS_AMMO] > 1:
            nd *= m[rws + w, WS_AMMO]  # every box left in one volley (L3341)
            m[rws + w, WS_AMMO] = 0
        if m[rws + w, WS_AMMO] > 0:
            m[rws + w, WS_AMMO] -= 1
        if m[rwp + w, W_RELOAD] != 0:
            m[rws + w, WS_LOADED] = 0
        if nd <= 0:
            continue
        m[rg + w, G_DICE] = nd
        mask |= 1 << (w - w0)
        ng += 1
    if ng == 0:
        return pos, False
    rt = _target_spec(m, t, ON)
    p0 = pos
    # Air Alert on the aircraft t this turn: its enemy's vehicles hit on P and T (L3377);
    # u's per-game skills in use in this Attack action (_attack): Fighting Spirit hits on P
    # and T (L3521), Lucky re-rolls the hero's misses (L3585)
    alert = m[m[0, H_XU] + t, BR.X_ALERT] == m[R_G, G_TURN] and _kind(m, u) == KIND_VEH
    spirit = m[rs + u, ST_SPIRIT] == 2
    lucky = m[rs + u, ST_LUCKY] == 2
    lone = m[ru + u, U_SQUAD] == 0
    if alert or spirit or lucky:
        for w in range(w0, w1):
            m[rg + w, G_KEEP_HIT] = m[rg + w, G_HIT]
            m[rg + w, G_KEEP_RR] = m[rg + w, G_RR]
            if alert or spirit:
                m[rg + w, G_HIT] |= m[R_CFG, C_T]
                if m[rg + w, G_RR] != 0:
                    m[rg + w, G_RR] |= m[R_CFG, C_T]
            if lucky and m[rg + w, G_RR] == 0 and (lone or m[rwp + w, W_HERO] != 0):
                m[rg + w, G_RR] = m[rg + w, G_HIT]
    # Assassin (a lone hero): its close-combat hits go to the joined hero it names (L3429)
    policy = m[rt, S_POLICY]
    if cc and (m[ru + u, U_FLAGS] & F_ASSASSIN) != 0 and m[ru + t, U_SQUAD] != 0 and \
            m[rs + t, ST_HERO] > 0:
        m[rt, S_POLICY] = 3  # aimed-hero (dustsim.rules.attack.ALLOCATIONS)
    # Sniper: its lines' hits go to the miniature the policy names (battle_rules, L3317)
    # and a joined Assassin's close-combat lines to the hero he picks (L3429)
    aim = BR.pick_aim(m, u, t, rg, w0, w1) if not cc else BR.assassin_aim(m, t, rg, w0, w1)
    sn = BR.SN_ASSASSIN if cc else BR.SN_AIM
    if aim != BR.AIM_NONE:
        BR.aim_lines(m, rg, w0, w1, aim, ON, sn)
    dig_dr = _dig_dr(m, bd, t, rg, w0, w1, cov)  # Dig In Girls! (L2201)
    dig_h = _dig_arm(m, bd, t, rg, w0, w1)
    pos = _trial(rng, buf, pos, scripted, m[rt], m, rg + w0, rg + w1, m[rr])
    _dig_back(m, rg, w0, w1, dig_dr)
    dug = _dig_spent(m, dig_h, rg, w0, w1, rr)
    m[rt, S_POLICY] = policy
    if aim != BR.AIM_NONE:
        BR.aim_lines(m, rg, w0, w1, aim, OFF, sn)
        if BR.aimed(m, t, aim, rr):
            aim |= BR.AIM_FELL
        if cc:
            aim |= BR.ASSASSIN_LOG
    if alert or spirit or lucky:
        for w in range(w0, w1):
            m[rg + w, G_HIT] = m[rg + w, G_KEEP_HIT]
            m[rg + w, G_RR] = m[rg + w, G_KEEP_RR]
    k = _log(m, log, m[R_G, G_TURN], _side(m, u), u, kind, _sq(m, u), _sq(m, t))
    if k >= 0:
        log[k, L_WMASK] = mask
        log[k, L_TARGET] = t
        log[k, L_RANGE] = d_log if big else d
        log[k, L_LOS] = big_los if big else _sight(m, bd, ls, lq, _sq(m, u), _sq(m, t), u, t)
        log[k, L_COVER] = cov
        log[k, L_D0] = p0
        log[k, L_D1] = pos
        log[k, L_HITS] = m[rr, 0]
        log[k, L_SAVES] = m[rr, 0] - m[rr, 1]
        log[k, L_DAMAGE] = m[rr, 2] + m[rr, 3]
        log[k, L_CAS] = m[rr, 2]
        log[k, L_TOKEN] = m[rr, 4]
        log[k, L_FACE] = m[rs + u, ST_FACE]
        spot = m[m[0, H_XU] + u, BR.X_SPOT]  # a Spotter squad's choice (battle_rules.spot)
        if spot != 0 and (mask & BR.sniper_mask(m, u)) != 0:
            aim |= BR.SPOT_SPOTS if spot == 1 else BR.SPOT_FIRES
        if dug:  # Dig In Girls!' re-roll spent on this attack (battle_platoon)
            aim |= BP.DIG_LOG
        if aim != 0:  # attack rows keep no path: the aim and the spotter's choice
            log[k, L_PN] = aim
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _dig_holder(m, bd, t):
    """Dig In Girls! (L2201; battle_platoon roles ``dig-in``, ``dig-in-reroll``): the
    platoon's ``holds`` unit (Tanya) on the board within range 2 of t, -1 none."""
    x0 = m[0, H_XU]
    for h in range(m[0, H_U]):
        if h != t and m[x0 + h, BP.X_PA_CODE] == BP.HOLDS and BP.same_platoon(m, t, h) and \
                _present(m, h) and _gap(m, bd, t, h) <= BP.DIG_RANGE:
            return h
    return -1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _dig_dr(m, bd, t, rg, w0, w1, cov):
    """Dig In Girls!' Defensive Tactics (L2201, L3497): t's cover groups carry it (compiled,
    battle_platoon.with_dig_in); with Tanya not within range 2 it is off for this attack. The
    rows' Damage Resilient flags as they were (bits 2i, 2i+1 of line w0 + i), -1 untouched;
    :func:`_dig_back` restores them."""
    if cov == 0 or not BR.has(m, t, BP.RB_PA_DIG_IN) or _dig_holder(m, bd, t) >= 0:
        return -1
    saved = 0
    for w in range(w0, w1):
        i = 2 * (w - w0)
        saved |= (1 if m[rg + w, G_RES_SQ] != 0 else 0) << i
        saved |= (1 if m[rg + w, G_RES_SG] != 0 else 0) << (i + 1)
        m[rg + w, G_RES_SQ] = 0
        m[rg + w, G_RES_SG] = 0
    return saved


@nb.njit(nogil=True, cache=True, _nrt=False)
def _dig_back(m, rg, w0, w1, saved):
    """Undo :func:`_dig_dr`."""
    if saved < 0:
        return
    for w in range(w0, w1):
        i = 2 * (w - w0)
        m[rg + w, G_RES_SQ] = (saved >> i) & 1
        m[rg + w, G_RES_SG] = (saved >> (i + 1)) & 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _dig_arm(m, bd, t, rg, w0, w1):
    """Dig In Girls!' once-per-game re-roll (L2201; policy dig-in-first-hit): t within range 2
    of Tanya, her platoon's re-roll unspent and no line of the attack already re-rolled by a
    Jammer: the attack's lines re-roll their successful to-hit dice (the dice kernel's
    ``JAMMED``). Returns Tanya's index (-1: not armed); :func:`_dig_spent` after the roll."""
    if not BR.has(m, t, BP.RB_PA_DIG_REROLL):
        return -1
    h = _dig_holder(m, bd, t)
    if h < 0 or m[m[0, H_XU] + h, BP.X_DIG] != 0:
        return -1
    for w in range(w0, w1):
        if m[rg + w, G_DICE] > 0 and (m[rg + w, G_MEDAL] & JAMMED) != 0:
            return -1
    for w in range(w0, w1):
        if m[rg + w, G_DICE] > 0:
            m[rg + w, G_MEDAL] |= JAMMED
    return h


@nb.njit(nogil=True, cache=True, _nrt=False)
def _dig_spent(m, h, rg, w0, w1, rr):
    """After an attack :func:`_dig_arm` armed: the lines back; the re-roll is spent (Tanya's
    ``X_DIG``) when the roll had a success to re-roll (declared after the roll, L2201).
    Returns True then."""
    if h < 0:
        return False
    for w in range(w0, w1):
        m[rg + w, G_MEDAL] &= ~JAMMED
    if (m[rr, 5] & REROLLED) == 0:
        return False
    m[m[0, H_XU] + h, BP.X_DIG] = 1
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _face(width, a, b):
    """Facing (0-7, :data:`dustsim.play.board.DIRECTIONS`) from square a towards square b."""
    dx = b % width - a % width
    dy = b // width - a // width
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    if sx == 0 and sy >= 0:
        return 0
    if sx > 0:
        return 2 - sy  # (1,1) 1, (1,0) 2, (1,-1) 3
    if sx == 0:
        return 4
    return 6 + sy  # (-1,-1) 5, (-1,0) 6, (-1,1) 7


@nb.njit(nogil=True, cache=True, _nrt=False)
def _hit(m, log, t, rr, before_left, before_tok, by):
    """Apply the result row rr to t and log what changed (destroyed, token)."""
    _apply(m, t, rr, by)
    turn = m[R_G, G_TURN]
    if before_left > 0 and not _alive(m, t):
        _log(m, log, turn, _side(m, t), t, A_DESTROYED, _sq(m, t), NONE)
        if _kind(m, t) == KIND_VEH and _sq(m, t) >= 0:
            for q in range(_foot(m, t)):  # the wreck stays on all its squares (L486)
                if _usq(m, t, q) >= 0:
                    m[m[0, H_SCR] + _usq(m, t, q), SC_WRECK] = 1
    elif m[m[0, H_ST] + t, ST_TOK] != before_tok:
        k = _log(m, log, turn, _side(m, t), t, A_TOKEN, _sq(m, t), NONE)
        if k >= 0:
            log[k, L_TOKEN] = m[m[0, H_ST] + t, ST_TOK]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, sustained, moved, kind):
    """One Attack (or Sustained Attack) of u with the targets its lines declared (WS_TGT):
    ranged lines target by target, then close-combat lines on adjacent targets with their
    retaliation (both sides' casualties removed together, L763-765)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS] + u
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    rr = m[0, H_RES]
    w0 = m[ru, U_W0]
    w1 = m[ru, U_W1]
    fired_any = False
    for w in range(w0, w1):  # an Attack ends Camouflage (L3455), not one of Stealth lines
        if m[rws + w, WS_TGT] >= 0 and m[rwp + w, W_STEALTH] == 0:  # alone (BSD 328a-77cc)
            BR.unhide(m, u)
            break
    # per-game skills come into use under the policy (the engagement kernel's): Fighting
    # Spirit in the unit's first Attack action, Lucky in its first plain Attack (a Sustained
    # Attack re-rolls misses already; L3521, L3585); spent when this Attack ends
    rsu = m[0, H_ST] + u
    if (m[ru, U_FLAGS] & F_FIGHTING_SPIRIT) != 0 and m[rsu, ST_SPIRIT] == 0:
        m[rsu, ST_SPIRIT] = 2
    if (m[ru, U_FLAGS] & F_LUCKY) != 0 and m[rsu, ST_LUCKY] == 0 and not sustained:
        m[rsu, ST_LUCKY] = 2
    k0 = m[R_B, B_LOGN]
    g_wire = BR.wire_alone(m, u) if kind == A_ATTACK and not sustained else NONE
    if sustained and BR.has(m, u, BR.RB_SPOTTER):  # a Spotter spots or fires (L3321-3323)
        BR.spot(m, u, _able_lines(m, bd, u))
    # a vehicle turns only by a Move (L461, L598): its lines fire within its arcs as it
    # stands (_fires_at, battle.ARCS)
    for t in range(U):
        declared = False
        for w in range(w0, w1):
            if m[rws + w, WS_TGT] == t and m[rwp + w, W_CC] == 0:
                declared = True
        if not declared:
            continue
        bl = _left(m, t)
        bt = m[m[0, H_ST] + t, ST_TOK]
        # the lines that fire at t and strike an area: Large Ordnance (W_AREA) and artillery
        # (the 2 x 2 Artillery Area on a grid, every unit in it, L3218-3224); noted before the
        # roll spends their ammunition
        amask = 0
        for w in range(w0, w1):
            if m[rws + w, WS_TGT] == t and (m[rwp + w, W_SCREAM] == W_AREA
                                            or m[rwp + w, BR.W_ARTY] != 0) and \
                    _fires_at(m, w, t, _gap(m, bd, u, t), OFF) > 0:
                amask |= 1 << (w - w0)
        pos, fired = _resolve(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sustained,
                              moved, OFF, rr, kind)
        if fired:
            fired_any = True
            pos = _wave(rng, buf, pos, scripted, m, log, t, rr)  # Wave Attack (L2065)
            _hit(m, log, t, rr, bl, bt, u)
            for w in range(w0, w1):
                if amask & (1 << (w - w0)):
                    pos = _area(rng, buf, pos, scripted, m, bd, ls, lq, log, u, w, t,
                                sustained)
    for t in range(U):
        declared = False
        for w in range(w0, w1):
            if m[rws + w, WS_TGT] == t and m[rwp + w, W_CC] != 0:
                declared = True
        if not declared or not _alive(m, t) or not _alive(m, u):
            continue
        sus = sustained and not fired_any  # one part of a Sustained Attack is sustained
        vip = BR.vips(m, u, t)  # heroes and officers standing, for Interrogate (L3563)
        bt = m[m[0, H_ST] + t, ST_TOK]
        pos = _close_combat(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sus, moved)
        _terror(m, bd, ls, lq, log, u, t, bt)  # Inflect Terror in close combat (L1659)
        BR.interrogate(m, u, t, vip)
    BR.wire_done(m, u, g_wire)
    BR.spot_done(m, u)
    if g_wire >= 0:
        _why(m, log, u, k0, WHY_WIRE)
    if m[rsu, ST_SPIRIT] == 2:
        m[rsu, ST_SPIRIT] = 1
    if m[rsu, ST_LUCKY] == 2:
        m[rsu, ST_LUCKY] = 1
    return _bail(rng, buf, pos, scripted, m, bd, log)  # a destroyed transport (L530)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _able_lines(m, bd, u):
    """Bit w - U_W0 for each of u's ranged lines that can fire at its declared target now
    (range, ammunition, load, carriers: :func:`_fires_at`)."""
    ru = m[0, H_UNITS] + u
    w0 = m[ru, U_W0]
    out = 0
    for w in range(w0, m[ru, U_W1]):
        t = m[m[0, H_WS] + w, WS_TGT]
        if t >= 0 and w - w0 < 62 and _fires_at(m, w, t, _gap(m, bd, u, t), OFF) > 0:
            out |= 1 << (w - w0)
    return out


@nb.njit(nogil=True, cache=True, _nrt=False)
def _line_dice(m, w, t, c):
    """The dice line w rolls at t with c carriers: a blast line one die per blast icon per
    miniature of t as it stands (L670-674), else its dice (the area and scream attacks)."""
    rs = m[0, H_ST]
    wt = m[0, H_WT] + w * m[0, H_U] + t
    if m[wt, WT_BLAST] > 0:
        if m[m[0, H_UNITS] + t, U_SQUAD] != 0:
            mini = m[rs + t, ST_MODELS] + (1 if m[rs + t, ST_HERO] > 0 else 0)
        elif m[m[0, H_UNITS] + t, U_SUPPORT] != 0:
            mini = m[rs + t, ST_SINGLE]
        else:
            mini = 1
        return m[wt, WT_BLAST] * mini * c
    return m[wt, WT_DICE] * c


@nb.njit(nogil=True, cache=True, _nrt=False)
def _area(rng, buf, pos, scripted, m, bd, ls, lq, log, u, w, t, sustained):
    """An artillery line (the Artillery Area on a grid, L3218-3224) or Large Ordnance
    (BattleScribe ``Dust_1947.gst`` rule 5fce-2ac8-7580-9ecc: like artillery): line w, fired
    at t, strikes four squares, the 2 x 2 block holding t's square (a separate attack on every
    unit in it, friend or foe; the player picks the three other squares, L3222). Policy: of
    the blocks holding t's square, the one with most other enemy units less friendly ones
    (the first in row order on a tie). Each other unit in it takes its own Attack (Sustained
    with the attack) of the line, with its own cover; each is one ``special`` event with its
    dice."""
    U = m[0, H_U]
    n = m[R_B, B_N]
    width = m[R_B, B_WIDTH]
    side = _side(m, u)
    ts = _sq(m, t)
    if ts < 0:
        return pos
    c0 = ts % width
    r0 = ts // width
    best = -1000000
    bc = -1
    br = -1
    for rr_ in range(r0 - 1, r0 + 1):
        for cc in range(c0 - 1, c0 + 1):
            if rr_ < 0 or cc < 0 or cc + 1 >= width or (rr_ + 1) * width + cc + 1 >= n:
                continue
            sc = 0
            for x in range(U):
                if x == t or x == u:  # noqa: SIM109 (Numba)
                    continue
                if not _present(m, x) or not _alive(m, x):
                    continue
                for q in range(_foot(m, x)):
                    s = _usq(m, x, q)
                    if s >= 0 and cc <= s % width <= cc + 1 and rr_ <= s // width <= rr_ + 1:
                        sc += 1 if _side(m, x) != side else -1
                        break
            if sc > best:
                best, bc, br = sc, cc, rr_
    if bc < 0:
        return pos
    rs = m[0, H_ST]
    rres = m[0, H_RES]
    wg = (m[0, H_GROUPS + 1] - m[0, H_GROUPS]) // (U * 4)
    c = _carriers(m, w)
    turn = m[R_G, G_TURN]
    air_u = _kind(m, u) == KIND_AIR
    for x in range(U):
        if x == t or x == u:  # noqa: SIM109 (Numba)
            continue
        if not _present(m, x) or not _alive(m, x) or not _hurts(m, w, x):
            continue
        xs = -1
        for q in range(_foot(m, x)):
            s = _usq(m, x, q)
            if s >= 0 and bc <= s % width <= bc + 1 and br <= s // width <= br + 1:
                xs = s
                break
        if xs < 0:
            continue
        los = _sight(m, bd, ls, lq, _sq(m, u), xs, u, x)
        if air_u or _kind(m, x) == KIND_AIR:
            cov = 1 if los == 1 or m[rs + x, ST_COVERED] != 0 else 0
        else:
            cov = _in_cover(m, bd, x, xs, los)
        nd = _line_dice(m, w, x, c)
        if nd <= 0:
            continue
        variant = 1 if sustained else 0
        rg = m[0, H_GROUPS] + ((x * 2 + cov) * 2 + variant) * wg
        m[rg + w, G_DICE] = nd
        rt = _target_spec(m, x, ON)
        bl = _left(m, x)
        bt = m[rs + x, ST_TOK]
        p0 = pos
        dig_dr = _dig_dr(m, bd, x, rg, w, w + 1, cov)  # Dig In Girls! (L2201)
        pos = _trial(rng, buf, pos, scripted, m[rt], m, rg + w, rg + w + 1, m[rres])
        _dig_back(m, rg, w, w + 1, dig_dr)
        code = SP_AREA if m[m[0, H_WPN] + w, W_SCREAM] == W_AREA else SP_ARTY
        k = _log_special(m, log, turn, side, u, _sq(m, u), xs, code, x, p0, pos, m[rres, 0])
        if k >= 0:
            log[k, L_DAMAGE] = m[rres, 2] + m[rres, 3]
            log[k, L_CAS] = m[rres, 2]
            log[k, L_COVER] = cov
        pos = _wave(rng, buf, pos, scripted, m, log, x, rres)  # Wave Attack (L2065)
        _hit(m, log, x, rres, bl, bt, u)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _observe_value(m, f, bd, ls, lq, o, s, sustained, commit):
    """Artillery Observer (L3419-3425, :mod:`dustsim.play.battle_rules`): the value of the
    best friendly unit that has not activated firing its artillery lines, each at its best
    target in its own range seen from the observer o on square s (cover from there); returns
    (value, artillery unit or -1). ``commit`` declares that unit's lines (WS_TGT, WS_COV)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    side = _side(m, o)
    best = 0.0
    ba = -1
    for rep in range(2):  # score every candidate, then declare the best one's lines
        for a in range(U):
            if rep == 1 and a != ba:
                continue
            if a == o or _side(m, a) != side or not _present(m, a) or m[rs + a, ST_ACT] != 0:
                continue
            if not BR.has(m, a, BR.RB_ARTILLERY) or _stun(m, a) != 0:
                continue
            sa = _sq(m, a)
            tot = 0.0
            for w in range(m[ru + a, U_W0], m[ru + a, U_W1]):
                if rep == 1:
                    m[rws + w, WS_TGT] = -1
                if m[rwp + w, BR.W_ARTY] == 0 or m[rws + w, WS_AMMO] == 0:
                    continue
                if m[rws + w, WS_LOADED] == 0 and (sustained or m[rwp + w, W_RELOAD] == 0):
                    continue  # an empty Reload weapon reloads only around a plain Attack
                c = _carriers(m, w)
                if c == 0:
                    continue
                bv = 0.0
                for t in range(U):
                    if _side(m, t) == side or not _present(m, t) or not _hurts(m, w, t):
                        continue
                    ts = _sq(m, t)
                    d = bd[sa, ts]
                    if d < m[rwp + w, W_RMIN] or d > m[rwp + w, W_RMAX] or BR.hidden(m, t, d):
                        continue
                    if not _arc_ok(m, a, w, t):  # its own field of fire (L3423, L584-598)
                        continue
                    lo = _sight(m, bd, ls, lq, s, ts, o, t)
                    if lo == 2:
                        continue
                    air = _kind(m, t) == KIND_AIR or _kind(m, o) == KIND_AIR
                    cov = (1 if lo == 1 else 0) if air else _in_cover(m, bd, t, ts, lo)
                    v = _ev(m, f, w, t, cov, c)
                    if v > bv:
                        bv = v
                        if rep == 1:
                            m[rws + w, WS_TGT] = t
                            m[rws + w, WS_COV] = cov
                tot += bv
            if rep == 0 and tot > best:
                best, ba = tot, a
        if not commit or ba < 0:
            break
    return best, ba


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _observe(rng, buf, pos, scripted, m, f, bd, ls, lq, log, o, sustained, kind):
    """The observer o's Attack (or Sustained Attack) taken by the best friendly artillery unit
    (:func:`_observe_value`): it activates, rolls to remove its tokens (L741), reloads an
    empty Reload line before a plain Attack or a fired one after it (L3425), fires from its
    square with the observer's sight (L3423), then its activation ends and the observer's goes
    on (L3425). Returns (pos, fired)."""
    _v, a = _observe_value(m, f, bd, ls, lq, o, _sq(m, o), sustained, ON)
    if a < 0:
        return pos, False
    turn = m[R_G, G_TURN]
    rs = m[0, H_ST] + a
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    BR.unhide(m, o)  # the observer's Attack action (L3455)
    k = _log_special(m, log, turn, _side(m, o), o, _sq(m, o), _sq(m, a),
                     SP_OBSERVE, a, NONE, NONE, NONE)
    m[rs, ST_ACT] = 1
    m[m[0, H_XU] + a, BR.ST_FIRST] = 1
    _log(m, log, turn, _side(m, a), a, A_ACTIVATE, _sq(m, a), NONE)
    tok = m[rs, ST_TOK]
    pos = _removal_roll(rng, buf, pos, scripted, m, a)
    if m[rs, ST_TOK] != tok:
        k = _log(m, log, turn, _side(m, a), a, A_TOKEN_REMOVED, _sq(m, a), NONE)
        if k >= 0:
            log[k, L_TOKEN] = m[rs, ST_TOK]
    if sustained and m[R_CFG, C_SUPP] != 0 and m[rs, ST_TOK] == 2:
        sustained = False  # one action while Suppressed (L745)
        kind = A_ATTACK
    ru = m[0, H_UNITS] + a
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[rws + w, WS_TGT] >= 0 and m[rws + w, WS_LOADED] == 0 and not sustained:
            m[rws + w, WS_LOADED] = 1  # Reload, then Attack (L3425)
    k0 = m[R_B, B_LOGN]
    m[R_G, BR.G_OBSERVER] = o + 1
    jam = _jammed(m, bd, o)  # a Jammer within range 6 of the observer (L3567)
    if jam:
        BR.jam_lines(m, a, ON)
    pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, a, sustained, OFF, kind)
    if jam:
        BR.jam_lines(m, a, OFF)
    m[R_G, BR.G_OBSERVER] = 0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[rwp + w, W_RELOAD] != 0 and m[rws + w, WS_AMMO] != 0 and not sustained:
            m[rws + w, WS_LOADED] = 1  # Attack, then Reload (L3425)
    if m[R_B, B_LOG] != 0:
        for k in range(k0, min(m[R_B, B_LOGN], log.shape[0])):
            if log[k, L_UNIT] == a and (log[k, L_ACTION] == A_ATTACK
                                        or log[k, L_ACTION] == A_SUSTAINED):
                log[k, L_X] = WHY_OBSERVED
                if jam:
                    log[k, L_PN] = (log[k, L_PN] if log[k, L_PN] > 0 else 0) | BR.JAM_LOG
                log[k, L_P0] = o  # the observer (attack rows keep no path)
                t = log[k, L_TARGET]
                log[k, L_LOS] = _sight(m, bd, ls, lq, _sq(m, o), log[k, L_TO], o, t)
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _observed(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, sustained, kind):
    """For an Artillery Observer u about to attack with its lines as declared: the friendly
    artillery's attack through its sight instead when that is worth more (:func:`_observe`);
    returns (pos, done); not done: u's own lines are declared again for its Attack. (The
    caller makes u's own Attack, so the attack chain is linked here once, compile time.)"""
    if not BR.has(m, u, BR.RB_OBSERVER) or _sq(m, u) < 0:
        return pos, False
    own = _offence(m, f, bd, ls, lq, u, _sq(m, u), ON, val)
    obs, a = _observe_value(m, f, bd, ls, lq, u, _sq(m, u), sustained, OFF)
    if a >= 0 and obs > own:
        pos, fired = _observe(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, sustained,
                              kind)
        if fired:
            return pos, True
        _offence(m, f, bd, ls, lq, u, _sq(m, u), ON, val)
    return pos, False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _execute_stunned(rng, buf, pos, scripted, m, bd, log, u):
    """The Execute special action (L3511-3513, :mod:`dustsim.play.battle_rules`): u eliminates
    one soldier of an enemy infantry unit with a Stunned token within range 1 (the policy: the
    unit with most soldiers and points at start; in a squad its joined hero first, else a
    plain soldier; a lone hero is eliminated; a support weapon loses one crew, a damage
    point). No dice (but Wave Attack's for a soldier, L2065); (pos, True) when done (nothing
    when no such unit stands in range)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    best = -1
    bv = -1.0
    for t in range(U):
        if _side(m, t) == _side(m, u) or not _present(m, t) or not _alive(m, t):
            continue
        if _kind(m, t) != KIND_INF or _stun(m, t) == 0:
            continue
        if _gap(m, bd, u, t) > BR.EXECUTE_RANGE:
            continue
        v = float(m[ru + t, U_HERO] + m[ru + t, U_MODELS] + m[ru + t, U_SINGLE])
        if v > bv:
            best, bv = t, v
    if best < 0:
        return pos, False
    t = best
    BR.unhide(m, u)  # a special action other than Move or Nothing (L3455)
    _release(m, u)
    vip = BR.vips(m, u, t)
    cas = 0  # soldiers eliminated, and damage points (a hero's track, a support crew)
    dmg = 0
    if m[ru + t, U_SQUAD] != 0:
        if m[rs + t, ST_HERO] > 0:
            dmg = m[rs + t, ST_HERO]
            m[rs + t, ST_HERO] = 0  # its joined hero (L3513: "including a Hero")
        else:
            cas = 1
            m[rs + t, ST_MODELS] -= 1
    elif m[ru + t, U_SUPPORT] != 0:
        dmg = 1
        m[rs + t, ST_SINGLE] -= 1  # one of its crew (one damage point, L3679-3681)
    else:
        dmg = m[rs + t, ST_SINGLE]
        m[rs + t, ST_SINGLE] = 0  # a lone hero
    turn = m[R_G, G_TURN]
    k = _log_special(m, log, turn, _side(m, u), u, _sq(m, u), _sq(m, t),
                     SP_EXECUTE, t, NONE, NONE, NONE)
    if k >= 0:
        log[k, L_CAS] = cas
        log[k, L_DAMAGE] = dmg
    if cas > 0:  # Wave Attack: the executed soldier's die (L2065)
        rr = m[0, H_RES2]
        m[rr, 2] = cas
        pos = _wave(rng, buf, pos, scripted, m, log, t, rr)
        m[rs + t, ST_MODELS] += cas - m[rr, 2]
    if not _alive(m, t):
        _log(m, log, turn, _side(m, t), t, A_DESTROYED, _sq(m, t), NONE)
    BR.interrogate(m, u, t, vip)  # an Executed hero or officer (L3563)
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _repair(rng, buf, pos, scripted, m, bd, ls, lq, log, u):
    """Makeshift Repair (L3759-3765, :mod:`dustsim.play.battle_rules`): u repairs the friendly
    ground vehicle within range 1 and sight (not itself, L3589) that has lost most damage
    points, five dice, each P returns a point (up to its track). Returns (pos, done):
    nothing done when no such vehicle has lost a point."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    best = -1
    bv = 0.0
    for t in range(U):
        if t == u or _side(m, t) != _side(m, u) or not _present(m, t) or not _alive(m, t):
            continue
        if _kind(m, t) != KIND_VEH or m[ru + t, U_SQUAD] != 0:
            continue
        lost = m[ru + t, U_SINGLE] - m[rs + t, ST_SINGLE]
        if lost <= 0 or _gap(m, bd, u, t) > 1:
            continue
        if _sight(m, bd, ls, lq, _sq(m, u), _sq(m, t), u, t) == 2:
            continue
        v = float(lost)
        if v > bv:
            best, bv = t, v
    if best < 0:
        return pos, False
    t = best
    BR.unhide(m, u)  # a special action other than Move or Nothing (L3455)
    _release(m, u)
    p0 = pos
    s, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], np.int64(BR.REPAIR_DICE))
    back = m[ru + t, U_SINGLE] - m[rs + t, ST_SINGLE]
    back = s if s < back else back
    m[rs + t, ST_SINGLE] += back
    k = _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, _sq(m, u), _sq(m, t),
                     SP_REPAIR, t, p0, pos, s)
    if k >= 0:
        log[k, L_DAMAGE] = back
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _die(rng, buf, pos, scripted):
    """One die's face class (0-2: the ruleset's face order), from the scripted faces (a blank
    class past their end) or the generator. Returns (face, pos)."""
    if scripted:
        fc = np.int64(buf[pos]) if pos < buf.shape[0] else np.int64(2)
        return fc, pos + 1
    fc = np.int64(uniform(rng) * 3.0)
    return (2 if fc > 2 else fc), pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _initiative_roll(rng, buf, pos, scripted, m):
    """The initiative (L337): the engagement kernel's roll, unless one side has a Black Ops
    hero in play and the other none (four dice against three, L3441-3443): then both roll,
    most P wins, ties by T, re-rolled while tied. Returns (winner, pos)."""
    k0 = m[R_CFG, C_INIT_DICE]
    ka = k0
    kb = k0
    for u in range(m[0, H_U]):
        if BR.has(m, u, BR.RB_BLACK_OPS) and _alive(m, u) and m[m[0, H_ST] + u, ST_GONE] == 0:
            if _side(m, u) == 0:
                ka = k0 + 1
            else:
                kb = k0 + 1
    if BR.interrogated(m, 0):  # Interrogate struck: four dice for the rest of the game (L3563)
        ka = k0 + 1
    if BR.interrogated(m, 1):
        kb = k0 + 1
    if ka == kb or m[R_CFG, C_INIT] != 0:
        return _initiative(rng, buf, pos, scripted, m)
    pm = m[R_CFG, C_P]
    tm = m[R_CFG, C_T]
    for _ in range(64):
        pa = 0
        ta = 0
        pb = 0
        tb = 0
        for i in range(ka + kb):
            fc, pos = _die(rng, buf, pos, scripted)
            if i < ka:
                pa += (pm >> fc) & 1
                ta += (tm >> fc) & 1
            else:
                pb += (pm >> fc) & 1
                tb += (tm >> fc) & 1
        if pa != pb:
            return (0 if pa > pb else 1), pos
        if m[R_CFG, C_TIEBREAK] != 0 and ta != tb:
            return (0 if ta > tb else 1), pos
        if scripted and pos > buf.shape[0]:
            break
    return 0, pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _blutkreuz(m, bd, u):
    """A Mindless Zombie unit u within range 1 of a friendly Blutkreuz (another unit) when its
    activation starts: Move 3, March 4 (never less than its own) and Charge for this
    activation (L3445-3447); the unit row's values kept in X_BOOST."""
    if not BR.has(m, u, BR.RB_MINDLESS) or _sq(m, u) < 0:
        return
    near = False
    for h in range(m[0, H_U]):
        if h != u and _side(m, h) == _side(m, u) and _present(m, h) and \
                BR.has(m, h, BR.RB_BLUTKREUZ) and _gap(m, bd, u, h) <= 1:
            near = True
    if not near:
        return
    ru = m[0, H_UNITS] + u
    rx = m[0, H_XU] + u
    had = 1 if BR.has(m, u, BR.RB_CHARGE) else 0
    m[rx, BR.X_BOOST] = 1 + m[ru, U_MOVE] + 16 * m[ru, U_MARCH] + 256 * had
    if m[ru, U_MOVE] < BR.BLUTKREUZ_MOVE:
        m[ru, U_MOVE] = BR.BLUTKREUZ_MOVE
    if m[ru, U_MARCH] < BR.BLUTKREUZ_MARCH:
        m[ru, U_MARCH] = BR.BLUTKREUZ_MARCH
    m[rx, BR.X_RULES] |= BR.RB_CHARGE


@nb.njit(nogil=True, cache=True, _nrt=False)
def _blutkreuz_end(m, u):
    """The end of a Blutkreuz-boosted activation: the unit's own Move, March and Charge."""
    rx = m[0, H_XU] + u
    b = m[rx, BR.X_BOOST]
    if b == 0:
        return
    b -= 1
    ru = m[0, H_UNITS] + u
    m[ru, U_MOVE] = b % 16
    m[ru, U_MARCH] = (b // 16) % 16
    if (b // 256) == 0:
        m[rx, BR.X_RULES] &= ~BR.RB_CHARGE
    m[rx, BR.X_BOOST] = 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _follows(m, bd, ls, lq, u, v):
    """v may follow u's Follow Me: another friendly infantry unit of armour 1-2 on the board,
    still to activate this turn (the policy), free to move, within range 2 and sight."""
    rs = m[0, H_ST]
    if v == u or _side(m, v) != _side(m, u) or not _present(m, v) or _kind(m, v) != KIND_INF:
        return False
    if not BR.has(m, v, BR.RB_LIGHT_INF) or m[rs + v, ST_ACT] != 0 or _stun(m, v) >= 2:
        return False
    if m[rs + v, ST_GONE] != 0 or _gap(m, bd, u, v) > 2:
        return False
    return _sight(m, bd, ls, lq, _sq(m, u), _sq(m, v), u, v) != 2


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _follow_me(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb):
    """Follow Me (L3531-3533, :mod:`dustsim.play.battle_rules`): when two units or more may
    follow, each rolls a die and on P makes a Move of 2 to its best square. Returns (pos,
    taken)."""
    U = m[0, H_U]
    n_ok = 0
    for v in range(U):
        if _follows(m, bd, ls, lq, u, v):
            n_ok += 1
    if n_ok < 2:
        return pos, False
    turn = m[R_G, G_TURN]
    m[m[0, H_XU] + u, BR.X_ALERT] = turn  # once per turn
    BR.unhide(m, u)
    _release(m, u)
    k = _log(m, log, turn, _side(m, u), u, A_SPECIAL, _sq(m, u), _sq(m, u))
    p0 = pos
    moved = 0
    for v in range(U):
        if not _follows(m, bd, ls, lq, u, v):
            continue
        s1, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], ONE)
        if s1 > 0:
            ru = m[0, H_UNITS] + v
            mv0 = m[ru, U_MOVE]
            m[ru, U_MOVE] = BR.FOLLOW_MOVE
            _best_move(m, f, bd, ls, lq, log, plog, v, el, val, qb)
            m[ru, U_MOVE] = mv0
            moved += 1
    if k >= 0:
        log[k, L_X] = SP_FOLLOW
        log[k, L_D0] = p0
        log[k, L_D1] = pos
        log[k, L_HITS] = moved
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _jammed(m, bd, u):
    """An enemy Jammer stands within range 6 of u (L3567)."""
    for j in range(m[0, H_U]):
        if _side(m, j) != _side(m, u) and _present(m, j) and BR.has(m, j, BR.RB_JAMMER):
            if _gap(m, bd, u, j) <= BR.JAM_RANGE:
                return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _in_reach(m, bd, ls, lq, u, t):
    """t is within range 2 of officer u and in its line of sight (no radio needed)."""
    if _gap(m, bd, u, t) > BR.ORDER_RANGE:
        return False
    return _sight(m, bd, ls, lq, _sq(m, u), _sq(m, t), u, t) != 2


@nb.njit(nogil=True, cache=True, _nrt=False)
def _command_roll(rng, buf, pos, scripted, m, k, jam, again):
    """k command dice on P; ``jam``: the successes are re-rolled and count only if they
    succeed again (Jammer, L3567); ``again``: the failed dice are re-rolled once (Command
    Vehicle, L3475), jammed as well. Returns (successes, pos)."""
    return _command_roll_on(rng, buf, pos, scripted, m, k, jam, again, m[R_CFG, C_P])


@nb.njit(nogil=True, cache=True, _nrt=False)
def _command_roll_on(rng, buf, pos, scripted, m, k, jam, again, mask):
    """:func:`_command_roll` with the dice succeeding on the faces of ``mask`` (P, or P and T
    under Mission Tactics, :mod:`dustsim.play.battle_platoon`)."""
    s, pos = _count(rng, buf, pos, scripted, mask, k)
    if jam and s > 0:
        s, pos = _count(rng, buf, pos, scripted, mask, s)
    if again and s < k:
        s2, pos = _count(rng, buf, pos, scripted, mask, k - s)
        if jam and s2 > 0:
            s2, pos = _count(rng, buf, pos, scripted, mask, s2)
        s += s2
    return s, pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _ammo_drop(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, radio, cv):
    """An officer's Ammo Drop (L3717-3721): one die on P or T (the digest's 2/3: two symbols
    of the lost text, as Get Up's, L3741) refills every Limited Ammo line of a friendly
    ground unit within range 2 and sight (anywhere by radio, jammed as its orders are). The
    policy: the unit of most AP with a Limited Ammo line run dry (a Psychic Scream's one use
    is no ammunition). Returns (pos, done)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    side = _side(m, u)
    best = -1
    bv = -1.0
    for t in range(U):
        if _side(m, t) != side or not _present(m, t) or not _alive(m, t):
            continue
        if _kind(m, t) == KIND_AIR or m[rs + t, ST_GONE] != 0:
            continue  # a ground unit (L3719)
        if BR.has(m, t, BR.RB_ZOMBIE) or (m[ru + t, U_FLAGS] & F_NO_ORDERS) != 0:
            continue  # no command special action on a Zombie (L3703) nor a Lesser Mythos
        dry = False
        for w in range(m[ru + t, U_W0], m[ru + t, U_W1]):
            if m[rwp + w, W_AMMO] > 0 and m[rwp + w, W_SCREAM] == 0 and \
                    m[rws + w, WS_AMMO] == 0:
                dry = True
        if not dry or f[F_UNITS + t, 0] <= bv:
            continue
        if t != u and not radio and not _in_reach(m, bd, ls, lq, u, t):
            continue
        best, bv = t, f[F_UNITS + t, 0]
    if best < 0:
        return pos, False
    t = best
    jam = t != u and not _in_reach(m, bd, ls, lq, u, t) and _jammed(m, bd, u)
    _release(m, u)
    BR.unhide(m, u)  # a special action other than Move or Nothing (L3455)
    p0 = pos
    got, pos = _command_roll_on(rng, buf, pos, scripted, m, BR.order_dice(m, u), jam, cv,
                                m[R_CFG, C_P] | m[R_CFG, C_T])
    if got > 0:
        for w in range(m[ru + t, U_W0], m[ru + t, U_W1]):
            if m[rwp + w, W_AMMO] > 0 and m[rwp + w, W_SCREAM] == 0:
                m[rws + w, WS_AMMO] = m[rwp + w, W_AMMO]  # a full supply (L3719)
    _log_special(m, log, m[R_G, G_TURN], side, u, _sq(m, u), _sq(m, t),
                 SP_AMMO_DROP, t, p0, pos, got)
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _officer(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, actions):
    """An officer's command actions under the policy (:mod:`dustsim.play.battle_rules`):
    Rally (L3729-3731), then Ammo Drop (:func:`_ammo_drop`, L3717-3721), then Get Moving You
    Bunch of Monkeys (L3723-3727), each one action (a General's first one is free, L3537).
    Returns (pos, actions left, the activation ended)."""
    U = m[0, H_U]
    rs = m[0, H_ST]
    turn = m[R_G, G_TURN]
    side = _side(m, u)
    su = _sq(m, u)
    radio = BR.has(m, u, BR.RB_RADIO)
    free = BR.has(m, u, BR.RB_GENERAL)
    cv = BR.has(m, u, BR.RB_COMMAND_VEHICLE)
    dice = np.int64(3) if BR.has(m, u, BR.RB_RED_BANNER) else np.int64(2)
    best = -1
    bv = -1.0
    near = 0
    for t in range(U):
        if t == u or _side(m, t) != side or not _present(m, t) or m[rs + t, ST_ACT] != 0:
            continue
        if not ((m[R_CFG, C_SUPP] != 0 and m[rs + t, ST_TOK] == 2) or _stun(m, t) != 0):
            continue
        if BR.has(m, t, BR.RB_ZOMBIE) or (m[m[0, H_UNITS] + t, U_FLAGS] & F_NO_ORDERS) != 0:
            continue  # no command special action on a Zombie (L3703) nor a Lesser Mythos
        if _in_reach(m, bd, ls, lq, u, t):
            near += 1
        if f[F_UNITS + t, 0] > bv:
            best, bv = t, f[F_UNITS + t, 0]
    if near > 0 or (radio and best >= 0):
        jam = near == 0 and _jammed(m, bd, u)  # the radio's one unit: jammed within 6
        _release(m, u)
        BR.unhide(m, u)
        for t in range(U):
            if t == u or _side(m, t) != side or not _present(m, t) or m[rs + t, ST_ACT] != 0:
                continue
            if not ((m[R_CFG, C_SUPP] != 0 and m[rs + t, ST_TOK] == 2) or _stun(m, t) != 0):
                continue
            if BR.has(m, t, BR.RB_ZOMBIE) or (m[m[0, H_UNITS] + t, U_FLAGS] & F_NO_ORDERS) != 0:
                continue
            if (near == 0 and t != best) or (near > 0 and not _in_reach(m, bd, ls, lq, u, t)):
                continue
            p0 = pos
            got, pos = _command_roll(rng, buf, pos, scripted, m, dice, jam, cv)
            if got >= 2:
                m[rs + t, ST_TOK] = 0
                m[rs + t, ST_STUN] = 0
            elif got == 1 and m[rs + t, ST_TOK] > 0:
                m[rs + t, ST_TOK] -= 1
            k = _log_special(m, log, turn, side, u, su, _sq(m, t), SP_RALLY, t, p0, pos, got)
            if k >= 0:
                log[k, L_TOKEN] = m[rs + t, ST_TOK]
        if free:
            free = False  # one free officer action per activation (L3537)
        else:
            actions -= 1
    if actions < 2:
        return pos, actions, False
    pos, dropped = _ammo_drop(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, radio, cv)
    if dropped:  # Ammo Drop (L3717-3721): one action, a General's first one free (L3537)
        if free:
            free = False
        else:
            actions -= 1
        if actions < 2:
            return pos, actions, False
    g = -1
    gv = f[F_UNITS + u, 0]
    gw = 0.0  # the best AP x faces (Mission Tactics: 2 faces on its platoon's units, L1459;
    # with one face, P, this is the officer policy of battle_rules: more AP than the officer)
    for t in range(U):
        if t == u or _side(m, t) != side or not _present(m, t) or m[rs + t, ST_ACT] == 0:
            continue
        if m[m[0, H_XU] + t, BR.X_REACT] == turn or _kind(m, t) == KIND_AIR:
            continue
        if BR.has(m, t, BR.RB_ZOMBIE) or (m[m[0, H_UNITS] + t, U_FLAGS] & F_NO_ORDERS) != 0:
            continue  # no command special action on a Zombie (L3703) nor a Lesser Mythos
        if _stun(m, t) >= 2 or m[rs + t, ST_GONE] != 0 or not _strikes(m, bd, t):
            continue
        if not radio and not _in_reach(m, bd, ls, lq, u, t):
            continue
        mk, _c = BP.order_faces(m, u, t, m[R_CFG, C_P], m[R_CFG, C_T])
        wt = f[F_UNITS + t, 0] * ((mk & 1) + ((mk >> 1) & 1) + ((mk >> 2) & 1))
        if wt > gv and wt > gw:  # its AP x its chance in thirds beats the officer's AP
            g, gw = t, wt
    if g < 0:
        return pos, actions, False
    jam = not _in_reach(m, bd, ls, lq, u, g) and _jammed(m, bd, u)
    _release(m, u)
    BR.unhide(m, u)
    p0 = pos
    mk, code = BP.order_faces(m, u, g, m[R_CFG, C_P], m[R_CFG, C_T])
    got, pos = _command_roll_on(rng, buf, pos, scripted, m, BR.order_dice(m, u), jam, cv,
                                mk)
    k = _log(m, log, turn, side, u, A_SPECIAL, su, _sq(m, g))
    if k >= 0:
        log[k, L_X] = SP_ORDER if code == 0 else BP.SP_PA_ORDER
        log[k, L_TARGET] = g
        log[k, L_D0] = p0
        log[k, L_D1] = pos
        log[k, L_HITS] = got
        log[k, L_TOKEN] = (1 if BR.has(m, u, BR.RB_DESERT_FOX) else 0) * (8 if code else 1) \
            + code
    if got > 0:  # its activation ends; g is reactivated at once (L3725-3727)
        m[m[0, H_XU] + g, BR.X_REACT] = turn
        m[R_G, BR.G_NEXT] = g + 1
        m[R_G, BR.G_FOX] = 1 if BR.has(m, u, BR.RB_DESERT_FOX) else 0
        return pos, actions, True
    if not free:
        actions -= 1
    return pos, actions, False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _pa_order(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, free):
    """A platoon advantage's Get Moving (:mod:`dustsim.play.battle_platoon`): Blitzkrieg
    Tactics' third action (``free``; range 2 and sight, or anywhere with a radio, L1431),
    Grab Them by the Nose's order (anywhere, L1053) or Markus' (range 2 and sight, L1566), on
    an ``ordered`` unit of u's platoon that has activated this turn; one die on P (P or T
    under Mission Tactics). The officer policy: the unit worth most AP that can strike, worth
    more than u unless the action is free. Returns (pos, tried, ordered)."""
    U = m[0, H_U]
    rs = m[0, H_ST]
    xu = m[0, H_XU]
    turn = m[R_G, G_TURN]
    side = _side(m, u)
    code = m[xu + u, BP.X_PA_CODE]
    anywhere = code == BP.PA_GRAB or (code == BP.PA_BLITZ and BR.has(m, u, BR.RB_RADIO))
    g = -1
    gv = -1.0 if free else f[F_UNITS + u, 0]
    for t in range(U):
        if t == u or _side(m, t) != side or not _present(m, t) or m[rs + t, ST_ACT] == 0:
            continue
        if not BR.has(m, t, BP.RB_PA_ORDERED) or not BP.same_platoon(m, u, t):
            continue
        if m[xu + t, BR.X_REACT] == turn or _kind(m, t) == KIND_AIR:
            continue
        if BR.has(m, t, BR.RB_ZOMBIE) or (m[m[0, H_UNITS] + t, U_FLAGS] & F_NO_ORDERS) != 0:
            continue
        if _stun(m, t) >= 2 or m[rs + t, ST_GONE] != 0 or not _strikes(m, bd, t):
            continue
        if not anywhere and not _in_reach(m, bd, ls, lq, u, t):
            continue
        if f[F_UNITS + t, 0] > gv:
            g, gv = t, f[F_UNITS + t, 0]
    if g < 0:
        return pos, False, False
    jam = not _in_reach(m, bd, ls, lq, u, g) and _jammed(m, bd, u)
    _release(m, u)
    BR.unhide(m, u)
    mk, _c = BP.order_faces(m, u, g, m[R_CFG, C_P], m[R_CFG, C_T])
    p0 = pos
    got, pos = _command_roll_on(rng, buf, pos, scripted, m, ONE, jam,
                                BR.has(m, u, BR.RB_COMMAND_VEHICLE), mk)
    fox = BR.has(m, u, BR.RB_DESERT_FOX)
    k = _log_special(m, log, turn, side, u, _sq(m, u), _sq(m, g), BP.SP_PA_ORDER, g, p0, pos, got)
    if k >= 0:
        log[k, L_TOKEN] = code + (8 if fox else 0)
    if got > 0:  # g activates again at once; u's activation ends (L3725-3727)
        m[xu + g, BR.X_REACT] = turn
        m[R_G, BR.G_NEXT] = g + 1
        m[R_G, BR.G_FOX] = 1 if fox else 0
        return pos, True, True
    return pos, True, False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _breakthrough(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val):
    """Breakthrough (L1874-1878; :mod:`dustsim.play.battle_platoon`): after u's March Move one
    die, on P a free Attack from where it stands; rolled when that Attack is worth something.
    Returns (pos, attacked)."""
    s = _sq(m, u)
    _occupy(m)
    _line_values(m, f, u, val)
    if s < 0 or _offence(m, f, bd, ls, lq, u, s, OFF, val) <= 0.0:
        return pos, False
    p0 = pos
    got, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], ONE)
    _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, s, s,
                 BP.SP_BREAKTHROUGH, NONE, p0, pos, got)
    if got == 0:
        return pos, False
    k0 = m[R_B, B_LOGN]
    pos = _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, OFF, ON)
    _why(m, log, u, k0, BP.WHY_BREAKTHROUGH)
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _heal(rng, buf, pos, scripted, m, bd, ls, lq, log, u, mode):
    """Get Up, It Ain't That Bad (L3739-3743: one die on P or T, a soldier or a damage point
    back, the medic's own unit included) or Medevac (``medevac``, L3591-3593: one die per
    eliminated soldier of a squad, each P one back; ``mode`` 1) or Resurrection (``mode`` 2,
    L3631-3633: Medevac's roll on a Mindless Zombie unit) on the friendly infantry unit
    within range 1 and sight that lost most (:mod:`dustsim.play.battle_rules`). Returns (pos,
    done)."""
    medevac = mode != 0
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    best = -1
    bl = 0
    for t in range(U):
        if _side(m, t) != _side(m, u) or not _present(m, t) or not _alive(m, t):
            continue
        if _kind(m, t) != KIND_INF or (mode == 0 and (m[ru + t, U_FLAGS] & F_NO_ORDERS) != 0):
            continue  # a Lesser Mythos Creature takes no Medic's action (unit_rules.no_orders)
        if BR.has(m, t, BR.RB_ZOMBIE) != (mode == 2) or (mode == 2 and not BR.has(
                m, t, BR.RB_MINDLESS)):
            continue  # no medic on a Zombie (L3703); Resurrection only on Mindless Zombies
        if medevac and (t == u or m[ru + t, U_SQUAD] == 0):
            continue
        if m[ru + t, U_SQUAD] != 0:
            lost = m[ru + t, U_MODELS] - m[rs + t, ST_MODELS]
        else:
            lost = m[ru + t, U_SINGLE] - m[rs + t, ST_SINGLE]
        if lost <= 0 or bl >= lost:
            continue
        if t != u and (_gap(m, bd, u, t) > 1
                       or _sight(m, bd, ls, lq, _sq(m, u), _sq(m, t), u, t) == 2):
            continue
        best, bl = t, lost
    if best < 0:
        return pos, False
    t = best
    BR.unhide(m, u)  # a special action other than Move or Nothing (L3455)
    _release(m, u)
    p0 = pos
    if medevac:
        got, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], bl)
    else:
        got, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P] | m[R_CFG, C_T], ONE)
    back = got if got < bl else bl
    if m[ru + t, U_SQUAD] != 0:
        m[rs + t, ST_MODELS] += back
        for _ in range(back):
            BR.regain(m, t)  # a Sniper's victim first (the owner's pick)
    else:
        m[rs + t, ST_SINGLE] += back
    k = _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, _sq(m, u), _sq(m, t),
                     SP_HEAL, t, p0, pos, got)
    if k >= 0:
        log[k, L_DAMAGE] = back
        log[k, L_TOKEN] = mode
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _inject(m, f, bd, ls, lq, log, u):
    """Inject Stimulants (L3745-3749; :mod:`dustsim.play.battle_rules`, policy
    stim-strikers): medic unit u gives a Stimulants token to the friendly infantry unit within
    range 1 and sight (not u, L3743 is Get Up's alone; no Zombie, L3703), without a token,
    not grappled, that can strike and is worth more AP than u (the one worth most; one still
    to activate this turn before one that has). No dice. Returns True when taken."""
    best = -1
    bv = -1.0
    rs = m[0, H_ST]
    for t in range(m[0, H_U]):
        if not _stim_ok(m, f, bd, u, t):
            continue
        v = f[F_UNITS + t, 0] + (1e6 if m[rs + t, ST_ACT] == 0 else 0.0)  # pays this turn
        if v > bv and _sight(m, bd, ls, lq, _sq(m, u), _sq(m, t), u, t) != 2:
            best, bv = t, v
    if best < 0:
        return False
    xu = m[0, H_XU]
    BR.unhide(m, u)  # a special action other than Move or Nothing (L3455)
    _release(m, u)
    m[xu + best, BR.X_STIM] = 1
    _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, _sq(m, u), _sq(m, best), BR.SP_STIM,
                 best, NONE, NONE, NONE)
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _stim_ok(m, f, bd, u, t):
    """Medic unit u may give t a Stimulants token under policy stim-strikers (sight aside):
    another friendly infantry unit on the board within range 1, no Zombie (L3703) nor unit
    no Medic acts on, without a token, not grappled, not aboard, that can strike
    (:func:`_strikes`) and is worth more AP than u. Activated this turn or not: the token
    waits for its next activation (L3751), so the medic keeps its place in the order."""
    if t == u or _side(m, t) != _side(m, u) or not _present(m, t) or _kind(m, t) != KIND_INF:
        return False
    if (m[m[0, H_UNITS] + t, U_FLAGS] & F_NO_ORDERS) != 0 or BR.has(m, t, BR.RB_ZOMBIE):
        return False
    if m[m[0, H_XU] + t, BR.X_STIM] != 0 or _stun(m, t) >= 2:
        return False
    if f[F_UNITS + t, 0] <= f[F_UNITS + u, 0] or BC.carrier(m, t) >= 0:
        return False
    return _gap(m, bd, u, t) <= 1 and _strikes(m, bd, t)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _stim_roll(rng, buf, pos, scripted, m, log, u):
    """u activates with a Stimulants token (L3751): the token goes, one die names the effect
    (``battle_rules.stim_effect``). Returns (pos, effect: 0 no token, STIM_*, log row)."""
    x = m[0, H_XU] + u
    if m[x, BR.X_STIM] == 0:
        return pos, 0, -1
    m[x, BR.X_STIM] = 0
    p0 = pos
    fc, pos = _die(rng, buf, pos, scripted)
    eff = BR.stim_effect(m, fc)
    s = _sq(m, u)
    k = _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, s, s, BR.SP_STIM_ROLL, NONE, p0,
                     pos, ZERO)
    if k >= 0:
        log[k, L_TOKEN] = eff
    return pos, eff, k


@nb.njit(nogil=True, cache=True, _nrt=False)
def _stim_mark(m, log, u, k0, action):
    """Name Inject Stimulants (WHY_STIM) on u's attacks of kind ``action`` logged from k0 that
    name no other rule: the attacks its effect upgraded (L3753-3757)."""
    if m[R_B, B_LOG] == 0:
        return
    for k in range(k0, min(m[R_B, B_LOGN], log.shape[0])):
        if log[k, L_UNIT] == u and log[k, L_ACTION] == action and log[k, L_X] <= 0:
            log[k, L_X] = BR.WHY_STIM


@nb.njit(nogil=True, cache=True, _nrt=False)
def _brains(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, qb, actions):
    """BRAINSSSS! (L1630-1634; battle_platoon role ``swarm``): a Mindless Zombie unit of a
    Zombie Swarm that starts its activation within range 3 of a friendly non-Zombie unit makes
    an Attack action against a friendly non-Zombie unit. Policy **brains-least-harm**: of the
    friends it can attack from where it stands, or after a Move (two actions left), with the
    lines of one class (ranged, or close combat beside it), the one it harms least (the lines'
    values, :func:`_ev`), staying put before moving; the Move draws a reaction (Move +
    Attack, L797). Its activation is that Move + Attack, or that Attack alone. When no friend
    can be attacked the activation goes on as usual (the text sets no other duty). Returns
    (pos, forced)."""
    U = m[0, H_U]
    rs = m[0, H_ST]
    rws = m[0, H_WS]
    ru = m[0, H_UNITS] + u
    side = _side(m, u)
    cur = _sq(m, u)
    near = False
    for t in range(U):
        if t != u and _side(m, t) == side and _present(m, t) and \
                not BR.has(m, t, BR.RB_ZOMBIE) and _gap(m, bd, u, t) <= BP.BRAINS_RANGE:
            near = True
    if not near:
        return pos, False
    mv = m[ru, U_MOVE]
    _occupy(m)
    _reach(m, bd, u, mv if actions >= 2 else 0, qb)
    no_cc = m[R_CFG, C_SUPP] != 0 and m[rs + u, ST_TOK] == 2  # Suppressed: no CC (L745)
    n = m[R_B, B_N]
    bt, bsq, bcc, bcost = -1, -1, 0, INF
    bh = 1e300
    for s in range(n):
        if s != cur and (actions < 2 or _cost(m, bd, s) > mv or not _can_end(m, bd, u, s)
                         or not BR.can_stand(m, bd, u, s, n)):
            continue
        c_s = 0 if s == cur else _cost(m, bd, s)
        for t in range(U):
            if t == u or _side(m, t) != side or not _present(m, t) or \
                    BR.has(m, t, BR.RB_ZOMBIE):
                continue
            ts = _sq(m, t)
            d = bd[s, ts]
            los = _sight(m, bd, ls, lq, s, ts, u, t)
            cov = _in_cover(m, bd, t, ts, los) if los != 2 else 0
            for cc in range(2):
                if (cc == 1 and (no_cc or d > 1)) or (cc == 0 and los == 2):
                    continue
                h = 0.0
                fires = False
                for w in range(m[ru, U_W0], m[ru, U_W1]):
                    c = _fires_at(m, w, t, d, cc == 1)
                    if c > 0:
                        fires = True
                        h += _ev(m, f, w, t, cov if cc == 0 else 0, c)
                if fires and (h < bh or (h == bh and c_s < bcost)):
                    bt, bsq, bcc, bcost, bh = t, s, cc, c_s, h
    if bt < 0:
        return pos, False
    _release(m, u)
    if bsq != cur:
        _place(m, bd, log, plog, u, bsq, mv, A_MOVE, NONE, ZERO)
        _try_exit(m, bd, log, u)
        if m[rs + u, ST_GONE] != 0:
            return pos, True
        pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
        if not _alive(m, u) or not _present(m, bt):
            return pos, True
        _occupy(m)
    s = _sq(m, u)
    ts = _sq(m, bt)
    d = bd[s, ts]
    los = _sight(m, bd, ls, lq, s, ts, u, bt)
    cov = _in_cover(m, bd, bt, ts, los) if los != 2 else 0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        ok = _fires_at(m, w, bt, d, bcc == 1) > 0 and (bcc == 1 or los != 2)
        m[rws + w, WS_TGT] = bt if ok else -1
        m[rws + w, WS_COV] = cov if ok and bcc == 0 else 0
    k0 = m[R_B, B_LOGN]
    pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, OFF, bsq != cur, A_ATTACK)
    if m[R_B, B_LOG] != 0:  # the rule on the attack and on the friend's retaliation
        for k in range(k0, min(m[R_B, B_LOGN], log.shape[0])):
            a = log[k, L_ACTION]
            if a != A_ATTACK and a != A_CC:
                continue
            if log[k, L_UNIT] == u and log[k, L_TARGET] == bt:
                log[k, L_X] = BP.WHY_BRAINS
            elif log[k, L_UNIT] == bt and log[k, L_TARGET] == u:
                log[k, L_X] = BR.WHY_BRAINS_BACK
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _air_alert(rng, buf, pos, scripted, m, bd, ls, lq, log, u):
    """Air Alert (L3375-3377, :mod:`dustsim.play.battle_rules`): on the enemy aircraft in u's
    sight, not yet alerted this turn, that a friendly vehicle still to act (u included) can
    hurt (the one with most damage points left); one die on P. Returns (pos, taken)."""
    U = m[0, H_U]
    rs = m[0, H_ST]
    turn = m[R_G, G_TURN]
    side = _side(m, u)
    best = -1
    bv = -1
    for t in range(U):
        if _side(m, t) == side or not _present(m, t) or _kind(m, t) != KIND_AIR:
            continue
        if m[m[0, H_XU] + t, BR.X_ALERT] == turn:
            continue
        if _sight(m, bd, ls, lq, _sq(m, u), _sq(m, t), u, t) == 2:
            continue
        can = False
        for v in range(U):
            if _side(m, v) != side or not _present(m, v) or _kind(m, v) != KIND_VEH:
                continue
            if v != u and m[rs + v, ST_ACT] != 0:
                continue
            for w in range(m[m[0, H_UNITS] + v, U_W0], m[m[0, H_UNITS] + v, U_W1]):
                if _hurts(m, w, t) and m[m[0, H_WS] + w, WS_AMMO] != 0 and _carriers(m, w) > 0:
                    can = True
        if can and m[rs + t, ST_SINGLE] > bv:
            best, bv = t, m[rs + t, ST_SINGLE]
    if best < 0:
        return pos, False
    t = best
    BR.unhide(m, u)
    _release(m, u)
    p0 = pos
    got, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], ONE)
    if got > 0:
        m[m[0, H_XU] + t, BR.X_ALERT] = turn
    _log_special(m, log, turn, side, u, _sq(m, u), _sq(m, t), SP_ALERT, t, p0, pos, got)
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _close_combat(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sus, moved):
    """u's close-combat lines declared at t and t's retaliation, never sustained (L765), a
    Stunned t never fighting back (L3266, L3331, L3465): casualties removed together
    (L763-765), or the side with First Strike (not both) resolves and removes its casualties
    first (L3523-3525)."""
    rr = m[0, H_RES]
    fs_u = BR.any_first(m, u)  # its own First Strike or its joined hero's (both: ignored)
    fs_t = BR.any_first(m, t)
    m[R_G, BR.G_PART] = 0  # the retaliation's lines (_retaliate): all of them
    hero = BR.hero_first(m, u, t)  # a joined hero's own First Strike (L3525)
    if hero != 0:
        pos, done = _hero_first(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sus, moved,
                                hero)
        if done:
            return pos
        fs_u = fs_t = False  # the rest strikes together
    if fs_t and not fs_u:  # the retaliation strikes first, if u has a line that will fire
        if not _cc_ready(m, bd, u, t):
            return pos
        pos = _retaliate(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, ON)
        if not _alive(m, u):
            return pos
        bl = _left(m, t)
        bt = m[m[0, H_ST] + t, ST_TOK]
        pos, fired = _resolve(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sus, moved,
                              ON, rr, A_CC)
        if fired:
            _knock_mark(m, u, t, rr)  # Knockout (L1195)
            pos = _wave(rng, buf, pos, scripted, m, log, t, rr)
            _hit(m, log, t, rr, bl, bt, u)
        return pos
    bl = _left(m, t)
    bt = m[m[0, H_ST] + t, ST_TOK]
    pos, hit_back = _resolve(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sus, moved,
                             ON, rr, A_CC)
    if not hit_back:
        return pos
    _knock_mark(m, u, t, rr)  # Knockout (L1195)
    if fs_u and not fs_t:  # u's casualties come off before t strikes back
        pos = _wave(rng, buf, pos, scripted, m, log, t, rr)
        _hit(m, log, t, rr, bl, bt, u)
        if not _alive(m, t):
            return pos
        return _retaliate(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, ON)
    pos = _retaliate(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, OFF)
    rr2 = m[0, H_RES2]
    pos = _wave(rng, buf, pos, scripted, m, log, t, rr)  # Wave Attack, both sides (L2065)
    if m[rr2, 12] != 0:
        pos = _wave(rng, buf, pos, scripted, m, log, u, rr2)
    _hit(m, log, t, rr, bl, bt, u)  # both sides' casualties together (L763-765)
    if m[rr2, 12] != 0:
        _hit(m, log, u, rr2, m[rr2, 13], m[rr2, 14], t)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _cc_ready(m, bd, u, t):
    """Whether u has a close-combat line declared at t that will fire (so that t's First
    Strike retaliation comes before it, L3523-3525)."""
    d = _gap(m, bd, u, t)
    ru = m[0, H_UNITS] + u
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[m[0, H_WS] + w, WS_TGT] == t and _fires_at(m, w, t, d, ON) > 0:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _hero_first(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sus, moved, hero):
    """A joined hero's own First Strike (L3523-3525, :func:`BR.hero_first`): ``hero`` 1, u's
    hero (attacking) resolves his close-combat lines at t and removes the casualties before
    the rest of the close combat; 2, t's hero does so against u before u's lines strike
    (when one of them will), and the rest of t's retaliation leaves his lines out
    (``BR.G_PART`` 2). Returns (pos, the close combat is over)."""
    rr = m[0, H_RES]
    k0 = m[R_B, B_LOGN]
    if hero == 1:
        BR.hold_lines(m, u, t, ONE)
        bl = _left(m, t)
        bt = m[m[0, H_ST] + t, ST_TOK]
        pos, fired = _resolve(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, sus, moved,
                              ON, rr, A_CC)
        if fired:
            _hit(m, log, t, rr, bl, bt, u)
            _why(m, log, u, k0, WHY_HERO_FIRST)
        rest = BR.hold_lines(m, u, t, np.int64(2))
        if not _alive(m, t):
            return pos, True
        if fired and not rest:  # only the hero struck: t strikes back at once (L765)
            pos = _retaliate(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, ON)
            return pos, True
        return pos, False
    if not _cc_ready(m, bd, u, t):
        return pos, True
    m[R_G, BR.G_PART] = 1  # t's hero's First Strike lines only
    pos = _retaliate(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, ON)
    _why(m, log, t, k0, WHY_HERO_FIRST)
    m[R_G, BR.G_PART] = 2  # the rest of the retaliation without them
    return pos, not _alive(m, u)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _retaliate(rng, buf, pos, scripted, m, bd, ls, lq, log, u, t, apply_now):
    """t's close-combat lines at u (the retaliation, L765), its outcome in the second result
    row; applied now (``apply_now``) or left for the caller: then the row's columns 12..14
    hold (retaliated, u's strength and token before). Its lines: every close-combat line, or
    as ``BR.G_PART`` says, consumed here (1 only its joined hero's First Strike lines, 2 all
    but those: :func:`_hero_first`)."""
    rws = m[0, H_WS]
    rr2 = m[0, H_RES2]
    rt = m[0, H_UNITS] + t
    BR.first_lines(m, t, u, m[R_G, BR.G_PART])
    m[R_G, BR.G_PART] = 0
    for w in range(m[rt, U_W0], m[rt, U_W1]):
        m[rws + w, WS_COV] = 0
    blu = _left(m, u)
    btu = m[m[0, H_ST] + u, ST_TOK]
    retaliated = False
    if _stun(m, t) == 0:  # a Stunned unit cannot fight back (L3266, L3331, L3465)
        pos, retaliated = _resolve(rng, buf, pos, scripted, m, bd, ls, lq, log, t, u,
                                   OFF, OFF, ON, rr2, A_CC)
    for w in range(m[rt, U_W0], m[rt, U_W1]):
        m[rws + w, WS_TGT] = -1
    if apply_now:
        if retaliated:
            _hit(m, log, u, rr2, blu, btu, t)
        m[rr2, 12] = 0
    else:
        m[rr2, 12] = 1 if retaliated else 0
        m[rr2, 13] = blu
        m[rr2, 14] = btu
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, mover):
    """A reactive attack on ``mover`` (L795-813): the unactivated enemy with line of sight
    within its reaction range whose lines are worth most against the mover; it spends its
    activation whatever its dice. Two successes: a Sustained Attack, or a vehicle's rotation
    in place and an Attack (:func:`_react_turn`, L805)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    side = _side(m, mover)
    ms = _sq(m, mover)
    if ms < 0 or not _alive(m, mover):
        return pos
    best = -1
    best_val = 0.0
    for r in range(U):
        if _side(m, r) == side or not _present(m, r):
            continue
        if m[rs + r, ST_ACT] != 0 or m[ru + r, U_REACT_RANGE] == 0:
            continue
        if _stun(m, r) >= 2:
            continue  # grappled: cannot fight (L3268)
        rsq = _sq(m, r)
        big = _foot(m, r) > 1 or _foot(m, mover) > 1
        if big:
            d, los, cov = _aim(m, bd, ls, lq, r, rsq, mover, ZERO)
        else:
            d = bd[rsq, ms]
        if (d > m[ru + r, U_REACT_RANGE] and not _pack_sees(m, bd, ls, lq, r, mover)) or \
                BR.hidden(m, mover, d):  # Pack Hunters: a pack mate sees it (L1821)
            continue
        if not big:
            los = _sight(m, bd, ls, lq, rsq, ms, r, mover)
        if los == 2:
            continue
        if not big:
            cov = _in_cover(m, bd, mover, ms, los)
        v = _react_value(m, f, r, mover, d, cov, OFF)
        if _foot(m, r) == 1 and (m[m[0, H_XU] + r, X_MOUNT] & ARCS_BIT) != 0:
            # two successes may rotate it in place first (L805): that chance of its best edge
            fm = m[ru + r, U_REACT_MASK]
            vt, _e = _react_edge(m, f, r, mover, d, cov)
            v = max(v, vt * _two_up(fm if fm > 0 else m[R_CFG, C_P], m[R_CFG, C_REACT_DICE]))
        if v > best_val:
            best, best_val = r, v
    if best < 0:
        return pos
    r = best
    rsq = _sq(m, r)
    m[rs + r, ST_ACT] = 1
    m[m[0, H_XU] + r, BR.ST_FIRST] = 1
    tok = m[rs + r, ST_TOK]
    pos = _removal_roll(rng, buf, pos, scripted, m, r)
    if m[rs + r, ST_TOK] != tok:
        k = _log(m, log, m[R_G, G_TURN], _side(m, r), r, A_TOKEN_REMOVED, rsq, NONE)
        if k >= 0:
            log[k, L_TOKEN] = m[rs + r, ST_TOK]
    n = m[R_CFG, C_REACT_DICE]
    if m[R_CFG, C_SUPP] != 0 and m[rs + r, ST_TOK] == 2:
        n = 1  # still suppressed: one reactive die (L747)
    if m[rs + r, ST_STUN] == 1:
        n = 1  # Stunned: one reactive die, the token removed either way (L3333, L3467)
        m[rs + r, ST_STUN] = 0
    _release(m, r)
    p0 = pos
    fm = m[ru + r, U_REACT_MASK]  # P, or P and S with Advanced Reactive Fire (L3373)
    s, pos = _count(rng, buf, pos, scripted, fm if fm > 0 else m[R_CFG, C_P], n)
    k = _log(m, log, m[R_G, G_TURN], _side(m, r), r, A_REACTION, rsq, ms)
    if k >= 0:
        log[k, L_TARGET] = mover
        log[k, L_D0] = p0
        log[k, L_D1] = pos
        log[k, L_HITS] = s
    if s == 0:
        return pos
    if _foot(m, r) > 1 or _foot(m, mover) > 1:
        d, los, cov = _aim(m, bd, ls, lq, r, rsq, mover, ZERO)
    else:
        d = bd[rsq, ms]
        los = _sight(m, bd, ls, lq, rsq, ms, r, mover)
        cov = _in_cover(m, bd, mover, ms, los)
    turned = OFF
    if s >= 2 and _react_turn(m, f, log, r, mover, d, cov):
        turned = ON  # a Move rotating in place, then an Attack (L805)
    rws = m[0, H_WS]
    for w in range(m[ru + r, U_W0], m[ru + r, U_W1]):
        dw = d
        if _line_org(m, r, w) != 0:  # a Large vehicle's rear or side line (L604)
            dw, lw, _cw = _aim(m, bd, ls, lq, r, rsq, mover, _line_org(m, r, w))
            if lw == 2:
                dw = INF
        ok = _fires_at(m, w, mover, dw, OFF) > 0
        m[rws + w, WS_TGT] = mover if ok else -1
        m[rws + w, WS_COV] = cov
    m[m[0, H_XU] + r, BR.X_WIRE] = NONE  # a reaction fires every line
    sus = s >= 2 and not turned
    return _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, r, sus, turned,
                   A_SUSTAINED if sus else A_ATTACK)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _react_value(m, f, r, mover, d, cov, moved):
    """What reacting r's lines that can fire at ``mover`` (range d, cover ``cov``) in their
    arcs as r faces now are worth (:func:`_ev`); after a Move a Setup line's dice halve."""
    v = 0.0
    for w in range(m[m[0, H_UNITS] + r, U_W0], m[m[0, H_UNITS] + r, U_W1]):
        c = _fires_at(m, w, mover, d, OFF)
        if c > 0:
            e = _ev(m, f, w, mover, cov, c)
            if moved and m[m[0, H_WPN] + w, W_SETUP] != 0:
                e *= 0.5
            v += e
    return v


@nb.njit(nogil=True, cache=True, _nrt=False)
def _react_edge(m, f, r, mover, d, cov):
    """(value, edge) of reacting r rotated in place to the edge (facing 0, 2, 4 or 6, L461)
    whose plain Attack on ``mover`` is worth most (:func:`_react_value`; the lowest edge on
    ties); (0, -1) where r does not turn: not a one-square vehicle playing fire arcs with a
    line that is not a turret's (a Large vehicle turns only by moving along its body,
    L504-508). r's facing is left as it was."""
    if _foot(m, r) != 1 or (m[m[0, H_XU] + r, X_MOUNT] & ARCS_BIT) == 0:
        return 0.0, -1
    limited = False
    for w in range(m[m[0, H_UNITS] + r, U_W0], m[m[0, H_UNITS] + r, U_W1]):
        limited |= m[m[0, H_WPN] + w, W_ARC] != ARC_ALL
    if not limited:
        return 0.0, -1
    rs = m[0, H_ST] + r
    f0 = m[rs, ST_FACE]
    best = 0.0
    best_face = -1
    for k in range(4):
        m[rs, ST_FACE] = 2 * k
        v = _react_value(m, f, r, mover, d, cov, ON)
        if v > best:
            best, best_face = v, 2 * k
    m[rs, ST_FACE] = f0
    return best, best_face


@nb.njit(nogil=True, cache=True, _nrt=False)
def _two_up(mask, n):
    """The chance of two or more successes on n dice whose successes are the faces in
    ``mask`` (a third each, L121)."""
    p = ((mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1)) / 3.0
    if n < 2:
        return 0.0
    return 1.0 - (1.0 - p) ** n - n * p * (1.0 - p) ** (n - 1)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _react_turn(m, f, log, r, mover, d, cov):
    """A two-success reaction of r (L805): a Sustained Attack in its arcs as it faces, or a
    Move rotating in place to an edge (:func:`_react_edge`) and an Attack, whichever the
    policy values more (the Sustained Attack at ``f[0, PW_SUST]`` times its plain value;
    ties keep it; :data:`dustsim.play.battle.ARCS`). On a turn r faces its new edge and a
    ``move`` event that stays on its square (cost 0) logs it. Returns True if r turned."""
    v, face = _react_edge(m, f, r, mover, d, cov)
    if face < 0 or v <= f[0, PW_SUST] * _react_value(m, f, r, mover, d, cov, OFF):
        return False
    m[m[0, H_ST] + r, ST_FACE] = face
    s = _sq(m, r)
    k = _log(m, log, m[R_G, G_TURN], _side(m, r), r, A_MOVE, s, s)
    if k >= 0:
        log[k, L_X] = 0  # no movement point spent
        log[k, L_RANGE] = face
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _stay_down(m):
    """Night Witches (L2037-2041; battle_platoon role ``stay-down-while``): each marked line
    (``BP.W_STAY_DOWN``) gives Suppression at once (its groups' token mode 2, And Stay Down,
    L3417) while its platoon's ``holds`` unit is in play (alive, not exited), else a token
    step (mode 1)."""
    rw = m[0, H_WPN]
    x0 = m[0, H_XU]
    wg = max(m[0, H_W], 1)
    rg = m[0, H_GROUPS]
    for w in range(m[0, H_W]):
        if m[rw + w, BP.W_STAY_DOWN] != 1:
            continue
        u = m[rw + w, W_UNIT]
        num = abs(m[x0 + u, BP.X_PLATOON])
        held = False
        for h in range(m[0, H_U]):
            if m[x0 + h, BP.X_PA_CODE] == BP.HOLDS and abs(m[x0 + h, BP.X_PLATOON]) == num \
                    and _alive(m, h) and m[m[0, H_ST] + h, ST_GONE] == 0:
                held = True
        mode = 2 if held else 1
        for i in range(m[0, H_U] * 4):
            r = rg + i * wg + w
            m[r, G_SUPP] = (m[r, G_SUPP] & ~3) | mode


@nb.njit(nogil=True, cache=True, _nrt=False)
def _mounted(m):
    """Mounted Assault (L1766-1770; battle_platoon roles ``mounted`` / ``rider``): each
    walker's added line (``BP.MOUNTED_LINE``) has one carrier per soldier of its platoon's
    ``rider`` squads aboard it now (L1770: one extra 1/1 attack each)."""
    rw = m[0, H_WPN]
    x0 = m[0, H_XU]
    for w in range(m[0, H_W]):
        if m[rw + w, BP.W_STAY_DOWN] != BP.MOUNTED_LINE:
            continue
        v = m[rw + w, W_UNIT]
        c = 0
        for r in range(m[0, H_U]):
            if m[x0 + r, BP.X_PA_CODE] == BP.PA_RIDER and BC.carrier(m, r) == v and \
                    BP.same_platoon(m, v, r) and _alive(m, r):
                c += m[m[0, H_ST] + r, ST_MODELS]
        m[rw + w, W_CARRIERS] = c


@nb.njit(nogil=True, cache=True, _nrt=False)
def _knock_mark(m, u, t, rr):
    """Knockout (L1195): u of a Knockout platoon hit enemy t in close combat (rr's hits): t is
    named on u until u's activation ends."""
    c = m[m[0, H_XU] + u, BP.X_PA_CODE]
    if m[rr, 0] > 0 and (c == BP.PA_KNOCK or c == BP.PA_KNOCKER) and \
            (m[m[0, H_XU] + u, RS.X_RES] & RS.KNOCK) == 0:
        RS.set_knock(m, u, t, OFF)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _knocker(m, f, bd, u, t):
    """Knockout's unit answering u's hit on t (L1195), -1 none. Policy: among Rhino and the
    Heavy Ranger Assault Squads of u's platoon on the board within range 6 of t that have not
    activated this turn, have Charge and a close-combat line, no token and are not Stunned,
    the one worth most AP."""
    x0 = m[0, H_XU]
    rs = m[0, H_ST]
    best = -1
    bap = -1.0
    for k in range(m[0, H_U]):
        if k == u or m[x0 + k, BP.X_PA_CODE] != BP.PA_KNOCKER or not BP.same_platoon(m, u, k):
            continue
        if not _present(m, k) or m[rs + k, ST_ACT] != 0 or m[rs + k, ST_TOK] != 0 or \
                m[rs + k, ST_STUN] != 0 or BC.carrier(m, k) >= 0:
            continue
        if not BR.has(m, k, BR.RB_CHARGE) or not BR.has_cc_line(m, k) or _gap(m, bd, k, t) > 6:
            continue
        if f[F_UNITS + k, 0] > bap:
            best, bap = k, f[F_UNITS + k, 0]
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def _knockout(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, k, t, qb):
    """Knockout's activation of k (L1195): a March Move to the reachable square nearest t
    (the cheapest of those), then, beside t, the Charge's close-combat attack at t alone
    (L3459); a Nothing when it cannot move."""
    rs = m[0, H_ST] + k
    ru = m[0, H_UNITS] + k
    n = m[R_B, B_N]
    turn = m[R_G, G_TURN]
    side = _side(m, k)
    m[rs, ST_ACT] = 1
    m[rs, ST_COVERED] = 0
    cur = _sq(m, k)
    _log(m, log, turn, side, k, A_ACTIVATE, cur, NONE)
    _occupy(m)
    _reach(m, bd, k, m[ru, U_MARCH], qb)
    ts = _sq(m, t)
    best = -1
    key = INF
    for s in range(n):
        c = _cost(m, bd, s)
        if c > m[ru, U_MARCH] or s == cur or not _can_end(m, bd, k, s) or \
                not BR.can_stand(m, bd, k, s, n):
            continue
        kk = bd[s, ts] * 1000 + c
        if kk < key and bd[s, ts] < bd[cur, ts]:
            best, key = s, kk
    if best < 0:
        _log(m, log, turn, side, k, A_NOTHING, cur, cur)
        return pos
    pos = _march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, k, best, qb)
    if not _present(m, k) or not _present(m, t) or _gap(m, bd, k, t) > 1:
        return pos
    rws = m[0, H_WS]
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        ok = m[m[0, H_WPN] + w, W_CC] != 0 and _fires_at(m, w, t, 1, ON) > 0
        m[rws + w, WS_TGT] = t if ok else -1
        m[rws + w, WS_COV] = 0
    k0 = m[R_B, B_LOGN]
    pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, k, OFF, ON, A_ATTACK)
    _why(m, log, k, k0, WHY_CHARGE)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _escort(m, f, bd, u):
    """Close Cooperation (L1349-1353): the escort of M7 walker u that activates right after
    it, -1 none. Policy: among the ``escort`` units of its platoon on the board that have not
    activated, within range 2 of u, with no token, not Stunned and no special action that
    would come before a Move (the first-action rule), the one worth most AP."""
    x0 = m[0, H_XU]
    rs = m[0, H_ST]
    best = -1
    bap = -1.0
    first = BR.RB_MECHANIC | BR.RB_AIR_ALERT | BR.RB_MEDIC | BR.RB_MEDEVAC | \
        BR.RB_RESURRECTION | BR.RB_FOLLOW_ME | BR.RB_EXECUTE | BR.RB_OFFICER | \
        BP.RB_PA_ACTION_ORDER
    for e in range(m[0, H_U]):
        if e == u or m[x0 + e, BP.X_PA_CODE] != BP.PA_ESCORT or not BP.same_platoon(m, u, e):
            continue
        if not _present(m, e) or m[rs + e, ST_ACT] != 0 or m[rs + e, ST_TOK] != 0 or \
                m[rs + e, ST_STUN] != 0 or BC.carrier(m, e) >= 0:
            continue
        if (m[x0 + e, BR.X_RULES] & first) != 0 or _gap(m, bd, u, e) > 2:
            continue
        ap = f[F_UNITS + e, 0]
        if ap > bap:
            best, bap = e, ap
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def _wave(rng, buf, pos, scripted, m, log, t, rr):
    """Wave Attack (L2063-2065; battle_platoon role ``wave``): in turns 1-3, before the
    soldiers result row rr takes from t come off, one die each; on P that soldier returns (is
    not removed). A ``wave-attack`` special event (its dice; L_HITS the soldiers returned)."""
    cas = m[rr, 2]
    turn = m[R_G, G_TURN]
    x = m[0, H_XU] + t
    if cas <= 0 or turn > BP.WAVE_TURNS or m[x, BP.X_PLATOON] <= 0 or \
            m[x, BP.X_PA_CODE] != BP.PA_WAVE:
        return pos
    p0 = pos
    back, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], cas)
    m[rr, 2] = cas - back
    _log_special(m, log, turn, _side(m, t), t, _sq(m, t), NONE, BP.SP_WAVE, t, p0, pos, back)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _pack_sees(m, bd, ls, lq, r, mover):
    """Pack Hunters (L1817-1821; battle_platoon role ``pack``): r is a KV-47 of a Wolfpack
    platoon and another of its platoon on the board sees ``mover`` within range 4."""
    x0 = m[0, H_XU]
    if (m[x0 + r, BP.X_PA_CODE] & 7) != BP.PA_PACK or m[x0 + r, BP.X_PA_CODE] >= BP.HOLDS:
        return False
    ms = _sq(m, mover)
    for p in range(m[0, H_U]):
        if p == r or not _present(m, p) or not BP.same_platoon(m, r, p) or \
                (m[x0 + p, BP.X_PA_CODE] & 7) != BP.PA_PACK:
            continue
        if _gap(m, bd, p, mover) <= 4 and _sight(m, bd, ls, lq, _sq(m, p), ms, p, mover) < 2:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _react_march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u):
    """The reaction to u's March Move (:func:`_react`); a gorilla of a Primal Instinct platoon
    marching to Charge (Charge and a close-combat line; battle_platoon.calm_charge) takes no
    Suppression from it (L1564): a Suppression it would give becomes Under Fire (a token event
    marked ``BP.WHY_CALM``)."""
    rs = m[0, H_ST] + u
    before = m[rs, ST_TOK]
    pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
    if before < 2 and m[rs, ST_TOK] == 2 and _alive(m, u) and BP.calm_charge(m, u) and \
            BR.has(m, u, BR.RB_CHARGE) and BR.has_cc_line(m, u):
        m[rs, ST_TOK] = 1
        k = _log(m, log, m[R_G, G_TURN], _side(m, u), u, A_TOKEN, _sq(m, u), NONE)
        if k >= 0:
            log[k, L_TOKEN] = 1
            log[k, L_X] = BP.WHY_CALM
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _edge_face(m, bd, u, s, prev):
    """The edge (facing 0, 2, 4 or 6, L461) a one-square vehicle ends a Move on s facing:
    towards the nearest enemy on the board (the lowest unit index on ties), the edge whose
    axis is nearer its direction (the row axis on ties); with no enemy, along its last step
    from ``prev`` (policy ``face``: :data:`dustsim.play.battle.ARCS`)."""
    width = m[R_B, B_WIDTH]
    side = _side(m, u)
    best = -1
    bdist = INF
    for t in range(m[0, H_U]):
        if _side(m, t) == side or not _present(m, t):
            continue
        d = bd[s, _sq(m, t)]
        if d < bdist:
            best, bdist = t, d
    src, dst = s, s
    if best >= 0:
        dst = _sq(m, best)
    elif prev >= 0:
        src = prev
    else:
        return m[m[0, H_ST] + u, ST_FACE]
    dx = dst % width - src % width
    dy = dst // width - src // width
    if dx == 0 and dy == 0:
        return m[m[0, H_ST] + u, ST_FACE]
    if abs(dy) >= abs(dx):
        return 0 if dy > 0 else 4
    return 2 if dx > 0 else 6


@nb.njit(nogil=True, cache=True, _nrt=False)
def _face_cap(m, bd, u, s, face, val):
    """An upper bound of :func:`_offence` of one-square u on s facing ``face``: each line at
    the best value (open or cover) of an enemy on the board with a square within its range
    and a square in its arc, sight aside (``val`` fresh for u)."""
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    width = m[R_B, B_WIDTH]
    side = m[ru, U_SIDE]
    tot = 0.0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        arc = m[rwp + w, W_ARC]
        b = 0.0
        for t in range(m[0, H_U]):
            if _side(m, t) == side or not _present(m, t):
                continue
            v = max(val[w, 4 + 2 * t], val[w, 5 + 2 * t])
            if v <= b:
                continue
            reach = False  # a square in range, a square in the arc (:func:`_arc_ok`)
            seen = False
            for k in range(_foot(m, t)):
                q = _usq(m, t, k)
                if q >= 0:
                    reach |= m[rwp + w, W_RMIN] <= bd[s, q] <= m[rwp + w, W_RMAX]
                    seen |= _in_arc(width, arc, face, s, q)
            if reach and seen:
                b = v
        tot += b
    if BR.has(m, u, BR.RB_WIRE):
        tot *= 2.0  # a wire-guided line alone counts up to twice (BR.wire_choice)
    return tot


@nb.njit(nogil=True, cache=True, _nrt=False)
def _turn(m, f, bd, ls, lq, log, u, val, fresh):
    """The end of a Move of a one-square vehicle that plays fire arcs (L461, L598): the edge
    whose arc-restricted offence from its square (:func:`_offence`) is best, the one
    :func:`_edge_face` chose on ties (and with no enemy within its lines' reach); the move's
    logged facing follows. ``val`` is refreshed for u (:func:`_line_values`) unless
    ``fresh`` (nothing it reads changed since the activation scored its plan)."""
    if _foot(m, u) != 1 or (m[m[0, H_XU] + u, X_MOUNT] & ARCS_BIT) == 0 or _sq(m, u) < 0 or \
            not _alive(m, u):
        return
    rs = m[0, H_ST] + u
    s = _sq(m, u)
    ru = m[0, H_UNITS] + u
    hi = -1
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        hi = max(hi, m[m[0, H_WPN] + w, W_RMAX])
    near = False
    for t in range(m[0, H_U]):
        if _side(m, t) != m[ru, U_SIDE] and _present(m, t):
            for k in range(_foot(m, t)):
                q = _usq(m, t, k)
                near |= q >= 0 and bd[s, q] <= hi
    if not near:
        return  # every edge scores nothing: the nearest-enemy edge stands
    if not fresh:
        _line_values(m, f, u, val)
    f0 = m[rs, ST_FACE]
    best_face = f0
    best = _offence(m, f, bd, ls, lq, u, s, OFF, val)
    for k in range(4):
        face = 2 * k
        if face == f0 or _face_cap(m, bd, u, s, face, val) <= best:
            continue  # no better whatever the sight: not scored
        m[rs, ST_FACE] = face
        v = _offence(m, f, bd, ls, lq, u, s, OFF, val)
        if v > best:
            best, best_face = v, face
    m[rs, ST_FACE] = best_face
    k = m[R_B, B_LOGN] - 1
    if m[R_B, B_LOG] != 0 and 0 <= k < log.shape[0] and log[k, L_UNIT] == u and (
            log[k, L_ACTION] == A_MOVE or log[k, L_ACTION] == A_MARCH):
        log[k, L_RANGE] = best_face


@nb.njit(nogil=True, cache=True, _nrt=False)
def _place(m, bd, log, plog, u, s, upto, action, stop, base):
    """Move u to s along the scratch parents; log the move with its path; exits the board
    when s is on the side's exit edge in an exit scenario. Returns True if it moved."""
    rs = m[0, H_ST] + u
    frm = m[rs, ST_SQ]
    if s == frm:
        return False
    p0, cnt, _mid = _path(m, bd, plog, s, upto, stop)
    k = _log(m, log, m[R_G, G_TURN], _side(m, u), u, action, frm, s)
    if k >= 0:
        log[k, L_P0] = p0
        log[k, L_PN] = cnt
        log[k, L_X] = _cost(m, bd, s) - base  # this segment's cost (a march's second part)
    width = m[R_B, B_WIDTH]
    prev = plog[p0 + cnt - 2] if cnt >= 2 and p0 + cnt - 1 < plog.shape[0] else frm
    size = _foot(m, u)
    rear = _rear(m, bd, u, s) if size == 2 else -1
    rsc = m[0, H_SCR]
    for j in range(1, size):  # leave the other squares of a Large/Huge footprint
        q = _usq(m, u, j)
        if q >= 0 and m[rsc + q, SC_OCC] == u + 1:
            m[rsc + q, SC_OCC] = 0
    if rear >= 0:
        m[rs, ST_FACE] = _face(width, rear, s)  # along its body, rear to front (L504)
    elif size == 1 and (m[m[0, H_XU] + u, X_MOUNT] & ARCS_BIT) != 0:
        m[rs, ST_FACE] = _edge_face(m, bd, u, s, prev)  # any edge (L461; _turn may turn it)
    elif prev >= 0:
        m[rs, ST_FACE] = _face(width, prev, s)
    m[rs, ST_SQ] = s
    m[rs, ST_MOVED] = 1
    BC.dig(m, u, 0)  # a Move or March Move ends the Dozer's cover (L3505)
    if action == A_MARCH:
        BR.unhide(m, u)  # a March Move is not a Move: camouflage ends (L3455)
    if frm >= 0 and m[rsc + frm, SC_OCC] == u + 1:
        m[rsc + frm, SC_OCC] = 0
    m[rsc + s, SC_OCC] = u + 1
    for j in range(1, size):
        q = _usq(m, u, j)
        if q >= 0:
            m[rsc + q, SC_OCC] = u + 1
    if k >= 0:
        log[k, L_RANGE] = m[rs, ST_FACE]  # a move's facing after it (a Large body's axis)
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _try_exit(m, bd, log, u):
    """In an exit scenario, a unit of the exiting side that ends a Move on its exit edge leaves
    the board (decision: reaching the edge square is enough)."""
    if m[R_B, B_VC] & VC_EXIT == 0:
        return
    side = _side(m, u)
    if side != m[R_G, G_ATT] or m[m[0, H_XU] + u, X_CAN_EXIT] == 0:
        return
    n = m[R_B, B_N]
    s = _sq(m, u)
    on = False
    for k in range(_foot(m, u)):  # any of a Large/Huge vehicle's squares (decision)
        q = _usq(m, u, k)
        if q >= 0 and bd[9 * n + 22, q] != 0:
            on = True
    if s >= 0 and on:
        rs = m[0, H_ST] + u
        for k in range(1, _foot(m, u)):
            q = _usq(m, u, k)
            if q >= 0 and m[m[0, H_SCR] + q, SC_OCC] == u + 1:
                m[m[0, H_SCR] + q, SC_OCC] = 0
        m[rs, ST_GONE] = 1
        m[m[0, H_SCR] + s, SC_OCC] = 0
        m[R_G, G_EXIT0 + side] += 1
        _log(m, log, m[R_G, G_TURN], side, u, A_EXIT, s, NONE)
        for v in range(m[0, H_U]):  # its passengers leave with it (battle_carry, decision)
            if BC.carrier(m, v) == u and _alive(m, v):
                m[m[0, H_ST] + v, ST_GONE] = 1
                m[R_G, G_EXIT0 + side] += 1
                _log(m, log, m[R_G, G_TURN], side, v, A_EXIT, s, NONE)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _lambda(m, f, u):
    """The policy's weight on threat for u this turn: falls as the turns run out, rises with
    the damage u has taken (pull back damaged units)."""
    T = m[R_B, B_TURNS]
    turn = m[R_G, G_TURN]
    hold = f[0, PW_HOLD_TURNS]
    left = T - turn + 1
    lam = f[0, PW_THREAT]
    if left < hold:
        lam *= left / hold
    start = m[m[0, H_XU] + u, X_START]
    if start > 0:
        lam *= 1.0 + (start - _left(m, u)) / start
    return lam


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _activate(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb):
    """An activation of u: its actions (:func:`_actions`), then the free Launch Smoke
    special action where the policy takes it (:func:`_smoke`)."""
    rx = m[0, H_XU] + u
    BP.lapse_while(m)  # a platoon's hero gone: its lasting grants lapse (L1532, L1794, L2149)
    if m[R_B, B_LINES] & LINES_STAY_DOWN:
        _stay_down(m)  # Night Witches: And Stay Down while Red Ace is in play (L2041)
    if m[R_B, B_LINES] & LINES_MOUNTED:
        _mounted(m)  # Mounted Assault: the soldiers aboard its walkers (L1770)
    arrives = _reserve_arrival(m, log, u)  # out of Reserve onto the board (L3104)
    if BC.carrier(m, u) >= 0:  # a passenger (battle_carry, L528)
        pos = _ride(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb)
    elif BR.has(m, u, BR.RB_AIRBORNE) and m[rx, BR.ST_DROP] == 0 and _sq(m, u) < 0:
        pos = _drop(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb)
    elif BR.has(m, u, BR.RB_SPY) and _sq(m, u) < 0:
        pos = _spy(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb)
    else:
        _blutkreuz(m, bd, u)  # Move 3, March 4 and Charge near a Blutkreuz (L3447)
        dbl = BR.has(m, u, BP.RB_PA_FIRST_DOUBLE) and (m[rx, BR.ST_FIRST] == 0 or arrives) \
            and not BR.has(m, u, BR.RB_AT_THE_DOUBLE)  # Surprise Strike (L2122)
        if dbl:
            m[rx, BR.X_RULES] |= BR.RB_AT_THE_DOUBLE
        pos = _actions(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb)
        if dbl:
            m[rx, BR.X_RULES] &= ~BR.RB_AT_THE_DOUBLE
        _blutkreuz_end(m, u)
    m[rx, BR.ST_FIRST] = 1
    if m[rx, BR.X_SMOKE] > m[rx, BR.ST_SMOKED] and _present(m, u):
        _smoke(m, f, bd, log, u, el, val)
    if m[R_G, BR.G_NEXT] == 0 and BR.has(m, u, BP.RB_PA_THIRD_ORDER) and _present(m, u) and \
            _stun(m, u) < 2 and m[R_CFG, C_ORDERS] != 0:  # Blitzkrieg Tactics (L1431)
        pos, _t, _o = _pa_order(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, ON)
    kt = RS.knock_target(m, u)
    if kt >= 0:  # Knockout: its close combat hit kt; a knocker activates right after (L1195)
        RS.set_knock(m, u, NONE, OFF)
        if m[R_G, BR.G_NEXT] == 0 and _present(m, kt):
            kn = _knocker(m, f, bd, u, kt)
            if kn >= 0:
                m[R_G, BR.G_NEXT] = kn + 1
                RS.set_knock(m, kn, kt, ON)
                kk = _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, _sq(m, u),
                                  _sq(m, kt), BP.SP_ESCORT, kn, ZERO, ZERO, ZERO)
                if kk >= 0:
                    log[kk, L_TOKEN] = 1
    if m[R_G, BR.G_NEXT] == 0 and m[rx, BP.X_PA_CODE] == BP.PA_COOP and _present(m, u):
        e = _escort(m, f, bd, u)  # Close Cooperation: its escort activates right after (L1353)
        if e >= 0:
            m[R_G, BR.G_NEXT] = e + 1
            m[m[0, H_XU] + e, RS.X_RES] |= RS.MOVE_FIRST
            _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, _sq(m, u), _sq(m, e),
                         BP.SP_ESCORT, e, ZERO, ZERO, ZERO)
    if m[R_G, BR.G_NEXT] > 0:  # Get Moving: the ordered unit activates again now (L3725)
        g = m[R_G, BR.G_NEXT] - 1
        m[R_G, BR.G_NEXT] = 0
        rg = m[0, H_XU] + g
        fox = m[R_G, BR.G_FOX] != 0 and (m[rg, BR.X_RULES] & BR.RB_AT_THE_DOUBLE) == 0
        m[R_G, BR.G_FOX] = 0
        if fox:  # Desert Fox: At the Double for that activation (L3501)
            m[rg, BR.X_RULES] |= BR.RB_AT_THE_DOUBLE
        _blutkreuz(m, bd, g)
        if (m[rg, RS.X_RES] & RS.KNOCK) != 0:  # Knockout: March Move and Charge (L1195)
            pos = _knockout(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, g,
                            RS.knock_target(m, g), qb)
            RS.set_knock(m, g, NONE, OFF)
        else:
            pos = _actions(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, g, el, val,
                           qb)
            RS.set_knock(m, g, NONE, OFF)  # a reactivation calls no Knockout (decision)
        m[rg, RS.X_RES] &= ~RS.MOVE_FIRST  # Close Cooperation's escort: done
        _blutkreuz_end(m, g)
        if fox:
            m[rg, BR.X_RULES] &= ~BR.RB_AT_THE_DOUBLE
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _scream(rng, buf, pos, scripted, m, f, bd, log, u):
    """Psychic Scream (BattleScribe ``Dust_1947.gst`` rule 0a01-816f-3ce5-05f5): once per
    game, a free action at the start of u's activation (after its token roll): its line
    (``W_SCREAM``) attacks every unit, friend or foe, within range 3 of u, line of sight
    ignored, infantry and cover saves compiled away (:mod:`dustsim.rules.attack`), one Attack
    each in unit order. Policy: when the value it takes from enemies (:func:`_ev`, the AP
    share) exceeds what it takes from friends. Each target is one ``special`` event with its
    dice."""
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    w = -1
    for x in range(m[ru, U_W0], m[ru, U_W1]):
        if m[rwp + x, W_SCREAM] == 1 and m[rws + x, WS_AMMO] > 0:
            w = x
    if w < 0 or _sq(m, u) < 0 or not _alive(m, u):
        return pos
    U = m[0, H_U]
    side = _side(m, u)
    c = _carriers(m, w)
    gain = 0.0
    for t in range(U):
        if t == u or not _present(m, t) or not _alive(m, t) or not _hurts(m, w, t):
            continue
        if _gap(m, bd, u, t) > SCREAM_RANGE:
            continue
        v = _ev(m, f, w, t, 0, c)
        gain += v if _side(m, t) != side else -v
    if gain <= 0.0:
        return pos
    m[rws + w, WS_AMMO] = 0
    rr = m[0, H_RES]
    wg = (m[0, H_GROUPS + 1] - m[0, H_GROUPS]) // (U * 4)
    turn = m[R_G, G_TURN]
    rs = m[0, H_ST]
    for t in range(U):
        if t == u or not _present(m, t) or not _alive(m, t) or not _hurts(m, w, t):
            continue
        if _gap(m, bd, u, t) > SCREAM_RANGE:
            continue
        nd = _line_dice(m, w, t, c)
        if nd <= 0:
            continue
        rg = m[0, H_GROUPS] + (t * 2 * 2) * wg  # in the open (saves compiled away), Attack
        m[rg + w, G_DICE] = nd
        rt = _target_spec(m, t, ON)
        bl = _left(m, t)
        bt = m[rs + t, ST_TOK]
        p0 = pos
        pos = _trial(rng, buf, pos, scripted, m[rt], m, rg + w, rg + w + 1, m[rr])
        k = _log_special(m, log, turn, side, u, _sq(m, u), _sq(m, t),
                         SP_SCREAM, t, p0, pos, m[rr, 0])
        if k >= 0:
            log[k, L_DAMAGE] = m[rr, 2] + m[rr, 3]
            log[k, L_CAS] = m[rr, 2]
        pos = _wave(rng, buf, pos, scripted, m, log, t, rr)  # Wave Attack (L2065)
        _hit(m, log, t, rr, bl, bt, u)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _drop(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb):
    """An Airborne unit's first activation (L3391-3393, :mod:`dustsim.play.battle_rules`):
    placed on the free square it scores best (:func:`_position` plus 2/3 of its
    :func:`_offence` there) not within range 2 of an objective; a Nothing action; one die on P
    or T grants a second action (an Attack when worth something, else a Move), else a second
    Nothing. No square: it enters from its edge as other units do."""
    n = m[R_B, B_N]
    rs = m[0, H_ST] + u
    rx = m[0, H_XU] + u
    rsc = m[0, H_SCR]
    turn = m[R_G, G_TURN]
    side = _side(m, u)
    _occupy(m)
    _threat_setup(m, f, u, el, val)
    lam = _lambda(m, f, u)
    r_mc = BC.r_mc(m, u)
    r_obj = 9 * n + 27
    _line_values(m, f, u, val)
    best = -1e300
    bs = -1
    for s in range(n):
        if m[rsc + s, SC_OCC] != 0 or bd[r_mc, s] >= 99 or not BR.can_stand(m, bd, u, s, n):
            continue
        near = False
        for i in range(m[R_B, B_NOBJ]):
            if bd[s, bd[r_obj, i]] <= BR.DROP_CLEAR:
                near = True
        if near:
            continue
        sc = _position(m, f, bd, u, s, el, val, lam)
        sc += (1.0 if BR.has(m, u, BR.RB_QUICK_RECOVERY) else 2.0 / 3.0) * _offence(
            m, f, bd, ls, lq, u, s, OFF, val)
        if sc > best:
            best, bs = sc, s
    if bs < 0:
        return _actions(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb)
    m[rs, ST_ACT] = 1
    _log(m, log, turn, side, u, A_ACTIVATE, NONE, NONE)
    m[rs, ST_SQ] = bs
    m[rsc + bs, SC_OCC] = u + 1
    m[rx, BR.ST_DROP] = turn
    k = _log_special(m, log, turn, side, u, bs, bs, SP_AIRBORNE, NONE, NONE, NONE, NONE)
    if BR.has(m, u, BR.RB_QUICK_RECOVERY):
        # Quick Recovery (BattleScribe Dust_1947.gst 4a1d-986b-27ce-95ef): no Nothing action
        # after the drop; policy: a Sustained Attack when worth something, else a Move
        _occupy(m)
        if _offence(m, f, bd, ls, lq, u, bs, OFF, val) > 0.0:
            return _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, ON, OFF)
        _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
        return pos
    _log(m, log, turn, side, u, A_NOTHING, bs, bs)
    p0 = pos
    s2, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P] | m[R_CFG, C_T], 1)
    if k >= 0:
        log[k, L_D0] = p0
        log[k, L_D1] = pos
        log[k, L_HITS] = s2
    if s2 == 0:
        _log(m, log, turn, side, u, A_NOTHING, bs, bs)
        return pos
    _occupy(m)
    if _offence(m, f, bd, ls, lq, u, bs, OFF, val) > 0.0:
        return _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, OFF, OFF)
    _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _spy(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb):
    """A Spy's activation off the table (L3655-3657, :mod:`dustsim.play.battle_rules`): two
    dice; no P: a Nothing action; else placed on the free square within range 1 of an enemy
    that it scores best (:func:`_position` plus its :func:`_offence` there) and one action per
    P (an Attack, else a Move; with two, a Sustained Attack, else a Move and an Attack)."""
    n = m[R_B, B_N]
    U = m[0, H_U]
    rs = m[0, H_ST] + u
    rx = m[0, H_XU] + u
    rsc = m[0, H_SCR]
    turn = m[R_G, G_TURN]
    side = _side(m, u)
    m[rs, ST_ACT] = 1
    _log(m, log, turn, side, u, A_ACTIVATE, NONE, NONE)
    p0 = pos
    got, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], np.int64(BR.SPY_DICE))
    _occupy(m)
    _threat_setup(m, f, u, el, val)
    lam = _lambda(m, f, u)
    r_mc = 9 * n + 4 + m[rx, X_CLASS]
    _line_values(m, f, u, val)
    best = -1e300
    bs = -1
    if got > 0:
        for s in range(n):
            if m[rsc + s, SC_OCC] != 0 or bd[r_mc, s] >= 99 or not BR.can_stand(m, bd, u, s, n):
                continue
            near = False
            for t in range(U):
                if _side(m, t) != side and _present(m, t):
                    for i in range(_foot(m, t)):
                        q = _usq(m, t, i)
                        if q >= 0 and bd[s, q] <= 1:
                            near = True
            if not near:
                continue
            sc = _position(m, f, bd, u, s, el, val, lam) + _offence(m, f, bd, ls, lq, u, s,
                                                                    OFF, val)
            if sc > best:
                best, bs = sc, s
    _log_special(m, log, turn, side, u, bs, bs, SP_SPY, NONE, p0, pos, got)
    if bs < 0:  # not placed: Nothing (L3657)
        _log(m, log, turn, side, u, A_NOTHING, NONE, NONE)
        return pos
    m[rs, ST_SQ] = bs
    m[rsc + bs, SC_OCC] = u + 1
    m[rx, BR.ST_FIRST] = 1
    _occupy(m)
    _line_values(m, f, u, val)
    if _offence(m, f, bd, ls, lq, u, bs, OFF, val) > 0.0:
        return _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val,
                            got >= 2, OFF)
    _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
    if got >= 2 and _present(m, u) and m[rs, ST_GONE] == 0:
        if _sq(m, u) != bs:
            pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
        if _alive(m, u):
            _occupy(m)
            pos = _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, OFF, ON)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _smoke(m, f, bd, log, u, el, val):
    """Smoke Launchers (L3651-3653): the policy launches the vehicle's smoke screen where it
    ends its activation when an enemy can reach it before its next one (the enemy's Move +
    the longest range of a line that hurts it), the 2x2 opening towards the enemy whose
    lines are worth most against it; the screen lasts to the end of the next turn (L3228)."""
    s = _sq(m, u)
    if s < 0 or BR.smoke_on(m, s):
        return
    _occupy(m)
    _threat_setup(m, f, u, el, val)
    best = -1
    bv = 0.0
    for i in range(1, el[0, 0] + 1):
        if el[i, 2] >= 0 and bd[el[i, 1], s] <= el[i, 2] and val[i, 0] > bv:
            best, bv = i, val[i, 0]
    if best < 0:
        return
    n = m[R_B, B_N]
    width = m[R_B, B_WIDTH]
    corner = BR.smoke_square(width, n // width, s, el[best, 1])
    turn = m[R_G, G_TURN]
    BR.lay_smoke(m, bd, n, width, s, corner, turn + 1)
    m[m[0, H_XU] + u, BR.ST_SMOKED] += 1
    _log_special(m, log, turn, _side(m, u), u, s, corner,
                 SP_SMOKE, el[best, 0], NONE, NONE, NONE)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb):
    """A Move of u to the square the policy scores best (staying put when none is better):
    the free Moves of At the Double and Move and Fire, a Scout's further action."""
    s0 = _sq(m, u)
    if s0 < 0:
        return
    n = m[R_B, B_N]
    _occupy(m)
    _threat_setup(m, f, u, el, val)
    lam = _lambda(m, f, u)
    mv = m[m[0, H_UNITS] + u, U_MOVE]
    _reach(m, bd, u, mv, qb)
    best = _position(m, f, bd, u, s0, el, val, lam)
    bs = s0
    for s in range(n):
        if s == s0 or _cost(m, bd, s) > mv or not _can_end(m, bd, u, s):
            continue
        if not BR.can_stand(m, bd, u, s, n):
            continue
        p = _position(m, f, bd, u, s, el, val, lam)
        if p > best:
            best, bs = p, s
    if bs != s0:
        _place(m, bd, log, plog, u, bs, mv, A_MOVE, NONE, ZERO)
        _try_exit(m, bd, log, u)
        _turn(m, f, bd, ls, lq, log, u, val, OFF)


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _offence_only(m, f, bd, ls, lq, u, s, val, only_cc):
    """:func:`_offence` of u from s counting only its close-combat (``only_cc``) or only its
    ranged lines (the free Attacks of Charge and Move and Fire); line values as last set by
    :func:`_line_values`."""
    _offence(m, f, bd, ls, lq, u, s, OFF, val)
    return BR.class_total(m, u, val, only_cc)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _why(m, log, u, k0, code):
    """Mark u's moves and attacks logged from event k0 on as taken under rule ``code``
    (WHY_*)."""
    if m[R_B, B_LOG] == 0:
        return
    for k in range(k0, min(m[R_B, B_LOGN], log.shape[0])):
        if log[k, L_UNIT] != u:
            continue
        a = log[k, L_ACTION]
        if a == A_MOVE or a == A_MARCH:  # noqa: SIM109 (Numba)
            log[k, L_TARGET] = code
        elif a == A_ATTACK or a == A_SUSTAINED or a == A_CC:  # noqa: SIM109 (Numba)
            log[k, L_X] = code


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _free_class_attack(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, s, val, only_cc,
                       code):
    """The free Attack after a March of u on square s with only its close-combat
    (``only_cc``: Charge, L3459) or only its ranged lines (Move and Fire, L3603), its events
    marked with rule ``code``, when those lines are worth something; (dice position,
    attacked)."""
    _occupy(m)
    _line_values(m, f, u, val)
    if _offence_only(m, f, bd, ls, lq, u, s, val, only_cc) <= 0.0:
        return pos, False
    k0 = m[R_B, B_LOGN]
    pos = _free_attack(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, only_cc, OFF, ON)
    _why(m, log, u, k0, code)
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _after_march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb, scout):
    """What follows u's March Move: the free close-combat Attack of Charge (L3459) and the
    free ranged Attack of Move and Fire (L3603) when worth something, else the free Move of At
    the Double (L3431) (decision: one free kind after a March); then a Scout's further action
    on its first March of the game (L3641): an Attack when worth something, else a Move."""
    attacked = False
    if BR.has(m, u, BP.RB_PA_BREAKTHROUGH):  # a die, on P a free Attack (L1878)
        pos, attacked = _breakthrough(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val)
        if not _alive(m, u):
            return pos
    s = _sq(m, u)
    if BR.has(m, u, BR.RB_CHARGE) and BR.has_cc_line(m, u):
        pos, hit = _free_class_attack(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, s, val,
                                      ON, WHY_CHARGE)
        attacked = attacked or hit
    if BR.has(m, u, BR.RB_MOVE_AND_FIRE) and _alive(m, u):
        pos, hit = _free_class_attack(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, s, val,
                                      OFF, WHY_MOVE_AND_FIRE)
        attacked = attacked or hit
    if BR.has(m, u, BR.RB_NAVAL) and not attacked and _present(m, u):  # Naval Unit (L3609)
        _occupy(m)
        _line_values(m, f, u, val)
        if _offence(m, f, bd, ls, lq, u, s, OFF, val) > 0.0:
            k0 = m[R_B, B_LOGN]
            pos = _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, OFF, ON)
            _why(m, log, u, k0, WHY_NAVAL)
            attacked = True
    if not _alive(m, u):
        return pos
    if not attacked and BR.has(m, u, BR.RB_AT_THE_DOUBLE):
        k0 = m[R_B, B_LOGN]
        _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
        _why(m, log, u, k0, WHY_AT_THE_DOUBLE)
    if scout and _present(m, u):
        _occupy(m)
        _line_values(m, f, u, val)
        k0 = m[R_B, B_LOGN]
        if _offence(m, f, bd, ls, lq, u, _sq(m, u), OFF, val) > 0.0:
            pos = _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, OFF, ON)
        else:
            _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
        _why(m, log, u, k0, WHY_SCOUT)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _actions(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb):
    """Two actions of unit u, chosen by the policy (module docstring), with the free
    actions and options of its rules (:mod:`dustsim.play.battle_rules`)."""
    ru = m[0, H_UNITS] + u
    rs = m[0, H_ST] + u
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    n = m[R_B, B_N]
    turn = m[R_G, G_TURN]
    side = m[ru, U_SIDE]
    m[rs, ST_ACT] = 1
    m[rs, ST_COVERED] = 0  # Crazy Jimmy's cover lasts until this activation
    cur = m[rs, ST_SQ]
    _log(m, log, turn, side, u, A_ACTIVATE, cur, NONE)
    tok = m[rs, ST_TOK]
    dice = m[ru, U_SUPP_DICE]
    if BR.has(m, u, BP.RB_PA_GIRLS) and tok != 0 and m[R_CFG, C_SUPP] != 0 and \
            dice < BP.GIRLS_DICE:  # Go Get 'Em Girls!: Brave on P or T (L2175)
        p0 = pos
        brave, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P] | m[R_CFG, C_T], ONE)
        k = _log_special(m, log, turn, side, u, cur, cur, BP.SP_GIRLS, NONE, p0, pos, brave)
        if brave > 0:
            m[ru, U_SUPP_DICE] = BP.GIRLS_DICE
    pos = _removal_roll(rng, buf, pos, scripted, m, u)
    m[ru, U_SUPP_DICE] = dice
    if m[m[0, H_XU] + u, BP.X_PA_CODE] == BP.PA_MOBILE:  # Mobile Warfare (L1405)
        m[m[0, H_XU] + u, BR.X_RULES] &= ~BR.RB_MOVE_AND_FIRE  # the last activation's
        p0 = pos
        mw, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], ONE)
        k = _log_special(m, log, turn, side, u, cur, cur, BP.SP_MOBILE, NONE, p0, pos, mw)
        if mw > 0:
            m[m[0, H_XU] + u, BR.X_RULES] |= BR.RB_MOVE_AND_FIRE
    if m[rs, ST_TOK] != tok:
        k = _log(m, log, turn, side, u, A_TOKEN_REMOVED, cur, NONE)
        if k >= 0:
            log[k, L_TOKEN] = m[rs, ST_TOK]
    pos, stim, kstim = _stim_roll(rng, buf, pos, scripted, m, log, u)  # Stimulants (L3751)
    if m[R_B, B_LINES] & LINES_SCREAM:  # a free action (BattleScribe)
        pos = _scream(rng, buf, pos, scripted, m, f, bd, log, u)
    pos = _bail(rng, buf, pos, scripted, m, bd, log)  # a transport it destroyed (L530)
    suppressed = m[R_CFG, C_SUPP] != 0 and m[rs, ST_TOK] == 2
    stun = _stun(m, u)
    if stun >= 2:  # grappled: Nothing + Nothing (L3268)
        _log(m, log, turn, side, u, A_NOTHING, cur, cur)
        return pos
    actions = 2
    if m[ru, U_THIRD] != 0:  # Infantry Ace / Ace Pilot: a third action on the die (L3557)
        s3, pos = _count(rng, buf, pos, scripted, m[ru, U_THIRD], 1)
        actions += s3
    if stun == 1:
        m[rs, ST_STUN] = 0  # its first action is Nothing, then the token goes (L3331)
    if suppressed or stun == 1:
        actions -= 1
    if actions >= 2 and BR.has(m, u, BR.RB_MECHANIC) and cur >= 0:  # Makeshift Repair (L3763)
        pos, fixed = _repair(rng, buf, pos, scripted, m, bd, ls, lq, log, u)
        if fixed:
            actions -= 1
    if actions >= 2 and BR.has(m, u, BR.RB_AIR_ALERT) and cur >= 0:  # Air Alert (L3377)
        pos, alerted = _air_alert(rng, buf, pos, scripted, m, bd, ls, lq, log, u)
        if alerted:
            actions -= 1
    for kind_heal in range(3):  # Get Up (L3741), Medevac (L3593), Resurrection (L3633)
        bit = BR.RB_MEDIC if kind_heal == 0 else (
            BR.RB_MEDEVAC if kind_heal == 1 else BR.RB_RESURRECTION)
        if actions >= 2 and BR.has(m, u, bit) and cur >= 0:
            pos, healed = _heal(rng, buf, pos, scripted, m, bd, ls, lq, log, u,
                                np.int64(kind_heal))
            if healed:
                actions -= 1
    if actions >= 2 and BR.has(m, u, BR.RB_MEDIC) and cur >= 0 and \
            _inject(m, f, bd, ls, lq, log, u):  # Inject Stimulants (L3745-3749)
        actions -= 1
    if actions >= 2 and BR.has(m, u, BR.RB_FOLLOW_ME) and cur >= 0 and \
            m[m[0, H_XU] + u, BR.X_ALERT] != turn:  # Follow Me, once per turn (L3533)
        pos, led = _follow_me(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val,
                              qb)
        if led:
            actions -= 1
    if actions >= 2 and BR.has(m, u, BR.RB_EXECUTE) and cur >= 0:  # Execute (L3513)
        pos, executed = _execute_stunned(rng, buf, pos, scripted, m, bd, log, u)
        if executed:
            actions -= 1
    if actions >= 2 and BR.officer_up(m, u) and cur >= 0 and m[R_CFG, C_ORDERS] != 0:
        pos, actions, ended = _officer(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u,
                                       actions)  # Rally, Get Moving (L3711-3731)
        if ended:
            return pos
    if actions >= 2 and cur >= 0 and m[R_CFG, C_ORDERS] != 0 and (
            BR.has(m, u, BP.RB_PA_ACTION_ORDER)):
        pos, tried, ordered = _pa_order(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u,
                                        OFF)  # a platoon advantage's order (L1053, L1566)
        if ordered:
            return pos
        if tried:
            actions -= 1
    if actions >= 1 and cur >= 0 and BR.has(m, u, BP.RB_PA_SWARM):  # BRAINSSSS! (L1634)
        pos, forced = _brains(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, qb,
                              actions)
        if forced:
            m[R_G, G_NOCC] = 0
            return pos
    three = actions == 3
    if three and stim > 0:  # never more than three actions (L3757)
        stim = 0
    if stim > 0 and kstim >= 0:
        log[kstim, L_HITS] = 1
    suppressed = actions == 1  # one action left: Attack or Move
    m[R_G, G_NOCC] = 1 if m[R_CFG, C_SUPP] != 0 and m[rs, ST_TOK] == 2 else 0  # L745
    _occupy(m)
    _threat_setup(m, f, u, el, val)
    _line_values(m, f, u, val)
    lam = _lambda(m, f, u)
    mv = m[ru, U_MOVE]
    march = m[ru, U_MARCH]
    # an aircraft (L516) or Close Cooperation's escort (L1353): a Move or March Move first
    air = m[ru, U_AIR] != 0 or (m[m[0, H_XU] + u, RS.X_RES] & RS.MOVE_FIRST) != 0
    onboard = cur >= 0
    limit = mv if suppressed else march
    sbase = _reach(m, bd, u, limit, qb)
    # reload weapons that are empty: Reload + Attack replaces the Sustained Attack
    unloaded = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        reloads = m[rwp + w, W_RELOAD] != 0 or m[rwp + w, W_SALVO] != 0
        if reloads and m[rws + w, WS_LOADED] == 0 and m[rws + w, WS_AMMO] != 0:
            unloaded = True
    best = -1e300
    plan = 0  # 0 nothing, 1 sustained here, 2 move+attack, 3 attack+move, 4 march, 5 attack
    plan_sq = cur  # (suppressed), 6 move (suppressed), 7 reload + attack
    sust = f[0, PW_SUST]
    off_here = 0.0
    # tempo rules (battle_rules): a Scout's first March counts one action (L3639), the free
    # Attacks after a March (Charge L3459, Move and Fire L3603), Move and Fire's free Move
    scout = BR.has(m, u, BR.RB_SCOUT) and m[m[0, H_XU] + u, BR.ST_FIRST] == 0 and not suppressed
    maf = BR.has(m, u, BR.RB_MOVE_AND_FIRE) and not suppressed
    charge = BR.has(m, u, BR.RB_CHARGE) and not suppressed and BR.has_cc_line(m, u)
    bt = BR.has(m, u, BP.RB_PA_BREAKTHROUGH) and not suppressed  # Breakthrough (L1878)
    # Implacable Advance: Suppressed, a Move instead of Nothing, then an Attack (L2096)
    implacable = suppressed and BR.has(m, u, BP.RB_PA_IMPLACABLE) and stun == 0
    # Inject Stimulants' effect (battle_rules.stim_plan): Move + Sustained Attack, March + Attack
    stim_s = stim == BR.STIM_CHOOSE or stim == BR.STIM_SUSTAINED
    spotter = BR.has(m, u, BR.RB_SPOTTER)  # a Sustained Attack scored as it will fire
    stim_m = (stim == BR.STIM_CHOOSE or stim == BR.STIM_MARCH) and not suppressed
    if onboard:
        here = _position(m, f, bd, u, cur, el, val, lam)
        # an aircraft's first action is a Move or March Move (L516; a Helicopter hovers,
        # L3551-3553, and has no U_AIR): staying where it is is no plan for it
        best = here if not air else -1e300
        if not air:
            if unloaded:
                for w in range(m[ru, U_W0], m[ru, U_W1]):
                    if m[rwp + w, W_RELOAD] != 0 or m[rwp + w, W_SALVO] != 0:
                        m[rws + w, WS_LOADED] = 1
                _line_values(m, f, u, val)
                off_here = _offence(m, f, bd, ls, lq, u, cur, OFF, val)
                for w in range(m[ru, U_W0], m[ru, U_W1]):
                    if m[rwp + w, W_RELOAD] != 0 or m[rwp + w, W_SALVO] != 0:
                        m[rws + w, WS_LOADED] = 0
                _line_values(m, f, u, val)
                if off_here > 0.0 and not suppressed and off_here + here > best:
                    best, plan = off_here + here, 7
                off_here = _offence(m, f, bd, ls, lq, u, cur, OFF, val)
            else:
                off_here = _offence(m, f, bd, ls, lq, u, cur, OFF, val)
            if BR.has(m, u, BR.RB_OBSERVER):  # the artillery it may call in (L3419)
                obs, _a = _observe_value(m, f, bd, ls, lq, u, cur, OFF, OFF)
                off_here = obs if obs > off_here else off_here
            if off_here > 0.0:
                sc = (off_here if suppressed else sust * off_here) + here
                if spotter and not suppressed:  # policy spotter-weighs (battle_rules)
                    sc += BR.spot_plan(m, u, val, sust)
                if sc > best:
                    best, plan = sc, (5 if suppressed else 1)
    # an upper bound of _offence from any square (each line at its best target anywhere):
    # a square where even that cannot beat the best plan so far is not scored (the same plan,
    # fewer sight lines); not with the free Attacks and wire-guided choices, valued apart
    o_cap = -1.0
    if not (scout or maf or charge or BR.has(m, u, BR.RB_WIRE) or stim_s or stim_m):
        o_cap = 0.0
        for w in range(m[ru, U_W0], m[ru, U_W1]):
            b = 0.0
            for j in range(4, 4 + 2 * m[0, H_U]):
                if val[w, j] > b:
                    b = val[w, j]
            o_cap += b
    one = _foot(m, u) == 1
    capped = one  # _offence_cap applies: no Large or Huge vehicle on either side
    for i in range(1, el[0, 0] + 1):
        if _foot(m, el[i, 0]) > 1:
            capped = False
    rsc = m[0, H_SCR]
    jump = m[m[0, H_XU] + u, X_CLASS] == BR.JUMP  # BR.can_stand tests squares for it only
    cnt = 0  # the squares u may end on and their costs, then scored in one pass
    q = val.shape[0] - 6  # (the per-square rows of _positions)
    width = m[R_B, B_WIDTH]
    row0, row1, col0, col1 = 0, n // width - 1, 0, width - 1
    if cur >= 0:  # each step costs 1 or more: nothing beyond ``limit`` rows or columns
        row0 = max(row0, cur // width - limit)
        row1 = min(row1, cur // width + limit)
        col0 = max(col0, cur % width - limit)
        col1 = min(col1, cur % width + limit)
    for row in range(row0, row1 + 1):  # the squares in reach, in order
        for s in range(row * width + col0, row * width + col1 + 1):
            if sbase >= 0:  # the static rows of _reach (contiguous)
                c = bd[sbase, s]
                cd = bd[sbase + 1, s]
                c = c if c < cd else cd
            else:
                c = _cost(m, bd, s)
            if one:  # without branches on the data: each square written, kept by counting it
                oc = m[rsc + s, SC_OCC]  # _can_end of a one-square unit
                keep = (c <= limit) & (s != cur) & ((oc == 0) | (oc - 1 == u))
                if jump:
                    keep = keep & BR.can_stand(m, bd, u, s, n)
                val[q, cnt] = s
                val[q + 1, cnt] = c
                cnt += 1 if keep else 0
                continue
            if c > limit or s == cur or not _can_end(m, bd, u, s):
                continue
            if not BR.can_stand(m, bd, u, s, n):
                continue
            val[q, cnt] = s
            val[q + 1, cnt] = c
            cnt += 1
    _positions(m, f, bd, u, el, val, lam, cnt)
    for i in range(cnt):
        s = np.int64(val[q, i])
        c = np.int64(val[q + 1, i])
        p = val[q + 2, i]
        near = val[q + 3, i] <= 0.0  # some enemy within its longest range from s
        o_s = -1.0  # _offence from s once scored (the state does not change in this loop)
        if c <= mv:
            if suppressed:
                if p > best:
                    best, plan, plan_sq = p, 6, s
                if not implacable:
                    continue
            o = 0.0
            if near and (o_cap < 0.0 or (o_cap + p > best and (
                    not capped or _offence_cap(m, bd, u, s, el, val) + p > best))):
                o = _offence(m, f, bd, ls, lq, u, s, OFF, val)
                o_s = o
            if o > 0.0 and o + p > best:
                best, plan, plan_sq = o + p, 2, s
            if stim_s and not suppressed and o > 0.0:  # Move + Sustained (Stimulants)
                so = sust * o + (BR.spot_plan(m, u, val, sust) if spotter else 0.0)
                if so + p > best:
                    best, plan, plan_sq = so + p, 2, s
            if onboard and not air and off_here > 0.0 and off_here + p > best and \
                    not suppressed:
                best, plan, plan_sq = off_here + p, 3, s
            if maf and near and o > 0.0:  # a free Move, then a ranged Sustained Attack
                o2 = BR.class_total(m, u, val, OFF)  # o's ranged lines
                if o2 > 0.0 and spotter:  # policy spotter-weighs (battle_rules.spot_plan)
                    o2 += BR.spot_plan(m, u, val, sust) / sust
                if o2 > 0.0 and sust * o2 + p > best:
                    best, plan, plan_sq = sust * o2 + p, 10, s
        if not suppressed and p > best:
            best, plan, plan_sq = p, 4, s
        if near and (scout or maf or charge or bt or stim_m):
            o3 = o_s if o_s >= 0.0 else _offence(m, f, bd, ls, lq, u, s, OFF, val)
            if stim_m and o3 > 0.0 and o3 + p > best:  # March + Attack (Stimulants)
                best, plan, plan_sq = o3 + p, 4, s
            if scout and o3 > 0.0 and o3 + p > best:  # March (one action), then an Attack
                best, plan, plan_sq = o3 + p, 9, s
            o4 = 0.0  # the free Attacks after a March: its lines of that class
            if charge:
                o4 += BR.class_total(m, u, val, ON)
            if maf:
                o4 += BR.class_total(m, u, val, OFF)
            if bt:  # its free Attack on one die in three
                o4 += o3 / 3.0
            if o4 > 0.0 and o4 + p > best:
                best, plan, plan_sq = o4 + p, 11, s
    if plan == 1 and BC.dozer(m, u) and not BC.dug_in(m, u) and bd[9 * n + 2, cur] == 0 \
            and _threatened(m, bd, u):
        plan = 13  # the Dozer special action, then an Attack (battle_carry, L3503-3505)
    if onboard and not suppressed and BC.dozer(m, u) and _fort_target(m, bd, u) >= 0:
        plan = 14  # two Engineering special actions: bury the fortification (L3357)
    if plan == 4 and BR.has(m, u, BR.RB_CAMOUFLAGE) and _cost(m, bd, plan_sq) <= mv and not (
            scout or maf or BR.has(m, u, BR.RB_AT_THE_DOUBLE)):
        plan = 12  # a Move keeps (or, with the special action, regains) camouflage
    # execute
    if plan == 0:
        if onboard and BR.has(m, u, BR.RB_CAMOUFLAGE) and m[m[0, H_XU] + u, BR.ST_CAMO] == 0:
            m[m[0, H_XU] + u, BR.ST_CAMO] = 1  # Camouflage special action, not Nothing (L3453)
            k = _log_special(m, log, turn, side, u, cur, cur, SP_CAMOUFLAGE, NONE, NONE, NONE, NONE)
            return pos
        _log(m, log, turn, side, u, A_NOTHING, cur, cur)
        m[R_G, G_NOCC] = 0
        return pos
    _release(m, u)  # not a Nothing action: u's grapple lets go (L3268)
    k0 = m[R_B, B_LOGN]
    used = False
    orig = plan
    if stim > 0:  # the Stimulants effect on the plan (battle_rules.stim_plan, L3753-3757)
        plan, three, used = BR.stim_plan(plan, stim)
    pos = _execute(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb,
                   plan, plan_sq, three)
    if used:
        _stim_mark(m, log, u, k0, A_ATTACK if plan == 4 or plan == 11 else A_SUSTAINED)
        if orig == 1 and not BR.has(m, u, BR.RB_MOVE_AND_FIRE) and _present(m, u):
            # its Sustained Attack was one action: a Move follows (Attack + Move, L797)
            pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
            if _alive(m, u):
                _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
    m[R_G, G_NOCC] = 0
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _execute(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb, plan,
             plan_sq, three):
    """Carry out u's plan (codes of :func:`_activate`); with a third action (``three``) a
    Move + Attack becomes Move + Sustained Attack and a March Move is followed by an Attack."""
    ru = m[0, H_UNITS] + u
    rs = m[0, H_ST] + u
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    mv = m[ru, U_MOVE]
    cur = m[rs, ST_SQ]
    # plans 1, 4, 9-11 are taken with two actions or more (battle_rules: tempo rules)
    maf = BR.has(m, u, BR.RB_MOVE_AND_FIRE)
    scout = BR.has(m, u, BR.RB_SCOUT) and m[m[0, H_XU] + u, BR.ST_FIRST] == 0
    if plan == 14:  # bury an adjacent bunker or strongpoint held by the enemy (L3357)
        return _bury(rng, buf, pos, scripted, m, bd, log, u)
    if plan == 13:  # dig in (the Dozer special action, L3505), then an Attack
        BC.dig(m, u, 1)
        _log_special(m, log, m[R_G, G_TURN], m[ru, U_SIDE], u, cur, cur,
                     SP_DOZER, NONE, NONE, NONE, NONE)
        plan = 5
    if plan == 1 or plan == 5 or plan == 7:
        if plan == 7:
            for w in range(m[ru, U_W0], m[ru, U_W1]):
                if m[rwp + w, W_RELOAD] != 0 or m[rwp + w, W_SALVO] != 0:
                    m[rws + w, WS_LOADED] = 1
            _line_values(m, f, u, val)
        # plans 1 and 5 (and 3 below): ``val`` holds the line values :func:`_actions` scored
        # the plan with; nothing they read (carriers, ammunition, loads, what targets have
        # left) changed since
        _offence(m, f, bd, ls, lq, u, cur, ON, val)
        kind = A_SUSTAINED if plan == 1 else A_ATTACK
        pos, done = _observed(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val,
                              plan == 1, kind)  # an Artillery Observer's call (L3421)
        if not done:
            pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, plan == 1, OFF, kind)
        if plan == 1 and maf and _alive(m, u):  # Move and Fire: a free Move after (L3603)
            pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)  # Attack + Move
            if _alive(m, u):
                k0 = m[R_B, B_LOGN]
                _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
                _why(m, log, u, k0, WHY_MOVE_AND_FIRE)
        return pos
    if plan == 6:
        _place(m, bd, log, plog, u, plan_sq, mv, A_MOVE, NONE, ZERO)
        _try_exit(m, bd, log, u)
        _turn(m, f, bd, ls, lq, log, u, val, ON)
        return pos
    if plan == 2:
        _place(m, bd, log, plog, u, plan_sq, mv, A_MOVE, NONE, ZERO)
        _try_exit(m, bd, log, u)
        if m[rs, ST_GONE] != 0:
            return pos
        _turn(m, f, bd, ls, lq, log, u, val, ON)  # its Move ends facing an edge (L461)
        pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
        if not _alive(m, u):
            return pos
        _occupy(m)
        _line_values(m, f, u, val)
        _offence(m, f, bd, ls, lq, u, plan_sq, ON, val)
        pos, done = _observed(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, three,
                              A_SUSTAINED if three else A_ATTACK)
        if done:
            return pos
        pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, three, ON,
                      A_SUSTAINED if three else A_ATTACK)
        if BR.has(m, u, BR.RB_RAID) and not three and _alive(m, u):
            # Raid (BattleScribe Dust_1947.gst b24c-9323-2628-3003): its two actions spent on
            # the Raid special action, Move + Attack + Move; the second Move where it scores
            # best (play.battle_rules); nothing reactivates a unit on the board
            pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
            if _alive(m, u) and m[rs, ST_GONE] == 0:
                k0 = m[R_B, B_LOGN]
                _occupy(m)
                _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
                _why(m, log, u, k0, WHY_RAID)
        return pos
    if plan == 3:
        _offence(m, f, bd, ls, lq, u, cur, ON, val)
        pos, done = _observed(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, OFF,
                              A_ATTACK)
        if not done:
            pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, OFF, OFF, A_ATTACK)
        if not _alive(m, u):
            return pos
        pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
        if not _alive(m, u):
            return pos
        _occupy(m)  # no unit moved: the path found before still holds
        if _cost(m, bd, plan_sq) <= mv and _can_end(m, bd, u, plan_sq):
            _place(m, bd, log, plog, u, plan_sq, mv, A_MOVE, NONE, ZERO)
            _try_exit(m, bd, log, u)
            _turn(m, f, bd, ls, lq, log, u, val, OFF)
        return pos
    if plan == 12:  # a Move and the Camouflage special action: hidden again (L3455)
        _place(m, bd, log, plog, u, plan_sq, mv, A_MOVE, NONE, ZERO)
        _try_exit(m, bd, log, u)
        _turn(m, f, bd, ls, lq, log, u, val, ON)
        if m[rs, ST_GONE] == 0 and m[m[0, H_XU] + u, BR.ST_CAMO] == 0:
            m[m[0, H_XU] + u, BR.ST_CAMO] = 1
            _log_special(m, log, m[R_G, G_TURN], m[ru, U_SIDE], u, plan_sq, plan_sq,
                         SP_CAMOUFLAGE, NONE, NONE, NONE, NONE)
        return pos
    if plan == 10:  # Move and Fire: a free Move, then a ranged Sustained Attack (L3603)
        k0 = m[R_B, B_LOGN]
        _place(m, bd, log, plog, u, plan_sq, mv, A_MOVE, NONE, ZERO)
        _why(m, log, u, k0, WHY_MOVE_AND_FIRE)
        _try_exit(m, bd, log, u)
        if m[rs, ST_GONE] != 0:
            return pos
        _turn(m, f, bd, ls, lq, log, u, val, ON)
        pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
        if not _alive(m, u):
            return pos
        _occupy(m)
        return _free_attack(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, OFF, ON,
                            ON)
    # plan 4, 9, 11: March Move (L811)
    k0 = m[R_B, B_LOGN]
    pos = _march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, plan_sq, qb)
    if m[rs, ST_GONE] == 0:
        _turn(m, f, bd, ls, lq, log, u, val, OFF)  # facing an edge at the March's end (ARCS)
    if BR.has(m, u, BR.RB_MARCH_COVER):  # Crazy Jimmy: a cover save until its next activation
        m[rs, ST_COVERED] = 1
    if scout:  # its first March of the game counts one action (L3641)
        _why(m, log, u, k0, WHY_SCOUT)
    if three and _alive(m, u) and m[rs, ST_GONE] == 0:
        _occupy(m)
        _line_values(m, f, u, val)
        if _offence(m, f, bd, ls, lq, u, m[rs, ST_SQ], ON, val) > 0.0:
            pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, OFF, ON, A_ATTACK)
    if not _alive(m, u) or m[rs, ST_GONE] != 0:
        return pos
    return _after_march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb,
                        scout)


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, plan_sq, qb):
    """A March Move of u to plan_sq (scratch costs from u's square): the reaction comes after
    a normal Move's distance (L811), then the rest from where it stands."""
    ru = m[0, H_UNITS] + u
    rs = m[0, H_ST] + u
    mv = m[ru, U_MOVE]
    march = m[ru, U_MARCH]
    cur = m[rs, ST_SQ]
    mid = _midpoint(m, bd, plan_sq, mv)
    if mid == cur or mid < 0:
        _place(m, bd, log, plog, u, plan_sq, march, A_MARCH, NONE, ZERO)
        _try_exit(m, bd, log, u)
        return pos
    if not _can_end(m, bd, u, mid) or not BR.can_stand(m, bd, u, mid, m[R_B, B_N]):
        _place(m, bd, log, plog, u, plan_sq, march, A_MARCH, NONE, ZERO)
        _try_exit(m, bd, log, u)
        if m[rs, ST_GONE] == 0:
            pos = _react_march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
        return pos
    # first part (a normal Move), the reaction, then the rest from where it stands
    _place(m, bd, log, plog, u, mid, mv, A_MARCH, NONE, ZERO)
    spent = _cost(m, bd, mid)
    pos = _react_march(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
    if not _alive(m, u):
        return pos
    _occupy(m)  # no unit moved: the rest of the path found before still holds
    if _can_end(m, bd, u, plan_sq):
        _place(m, bd, log, plog, u, plan_sq, march, A_MARCH, mid, spent)
    _try_exit(m, bd, log, u)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _free_attack(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, only_cc, sustained,
                 moved):
    """An Attack (or Sustained Attack) of u from where it stands with only its close-combat
    lines (``only_cc``: Charge) or only its ranged lines (Move and Fire), each line at its
    best target; nothing when no line is worth anything."""
    _line_values(m, f, u, val)
    _offence(m, f, bd, ls, lq, u, _sq(m, u), ON, val)
    if not BR.keep_class(m, u, only_cc):
        return pos
    return _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, sustained, moved,
                   A_SUSTAINED if sustained else A_ATTACK)


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, val, sustained, moved):
    """u attacks from its square, each line at its best target (``val[:, 3]`` scratch)."""
    _line_values(m, f, u, val)
    if _offence(m, f, bd, ls, lq, u, _sq(m, u), ON, val) <= 0.0:
        for w in range(m[m[0, H_UNITS] + u, U_W0], m[m[0, H_UNITS] + u, U_W1]):
            m[m[0, H_WS] + w, WS_TGT] = -1
        return pos
    return _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, sustained, moved,
                   A_SUSTAINED if sustained else A_ATTACK)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _strikes(m, bd, u):
    """Quick urgency: u (on the board, or entering from its edge) has an enemy within the
    longest range of a line that hurts it + its Move (no sight test)."""
    ru = m[0, H_UNITS] + u
    s = _sq(m, u)
    n = m[R_B, B_N]
    U = m[0, H_U]
    side = m[ru, U_SIDE]
    mv = m[ru, U_MOVE]
    width = m[R_B, B_WIDTH]
    far = -1  # the longest range of a line with ammunition and carriers: no enemy beyond it
    for w in range(m[ru, U_W0], m[ru, U_W1]):  # + its Move is tested line by line
        if m[m[0, H_WS] + w, WS_AMMO] != 0 and _carriers(m, w) > 0 and \
                m[m[0, H_WPN] + w, W_RMAX] > far:
            far = m[m[0, H_WPN] + w, W_RMAX]
    if far < 0:
        return False
    for t in range(U):
        if _side(m, t) == side or not _present(m, t):
            continue
        ts = _sq(m, t)
        if s >= 0:
            d = bd[s, ts]
        else:  # off the board: from its entry edge (the nearest row)
            r = ts // width
            d = r + 1 if side == m[R_G, G_ATT] else n // width - r
        if d > far + mv:
            continue
        for w in range(m[ru, U_W0], m[ru, U_W1]):
            if d <= m[m[0, H_WPN] + w, W_RMAX] + mv and _hurts(m, w, t):
                if m[m[0, H_WS] + w, WS_AMMO] != 0 and _carriers(m, w) > 0:
                    return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _pick(m, f, bd, side):
    """The policy's next unit of ``side``: unactivated, alive, not exited; an Artillery
    Observer on the board while a friendly artillery unit has not activated first (it may
    call that artillery in, L3419-3425), then one that can strike (:func:`_strikes`) before
    one that cannot, then the most AP first. -1 if none."""
    U = m[0, H_U]
    rs = m[0, H_ST]
    best = -1
    bk = -1.0
    for u in range(U):
        if _side(m, u) != side or m[rs + u, ST_ACT] != 0 or not _alive(m, u):
            continue
        if m[rs + u, ST_GONE] != 0:
            continue
        obs = BR.has(m, u, BR.RB_OBSERVER) and _sq(m, u) >= 0
        if not obs and BC.carrier(m, u) < 0 and f[F_UNITS + u, 0] + 1e6 <= bk:
            continue  # cannot beat the pick so far, whatever _strikes says
        k = f[F_UNITS + u, 0] + (1e6 if _strikes(m, bd, u) else 0.0)
        if obs:
            for a in range(U):  # an observer goes before the artillery it may call in (L3421)
                if a != u and _side(m, a) == side and m[rs + a, ST_ACT] == 0 and \
                        BR.has(m, a, BR.RB_ARTILLERY) and _alive(m, a):
                    k += 2e6
                    break
        if BC.carrier(m, u) >= 0:  # a passenger: before its vehicle to dismount, else last
            k = 2e6 + f[F_UNITS + u, 0] if _wants_off(m, bd, u) else -0.5
        if k > bk:
            best, bk = u, k
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def _counts(m):
    """(unactivated units of A, of B; units of A left, of B left (alive, not exited))."""
    U = m[0, H_U]
    rs = m[0, H_ST]
    a0 = 0
    a1 = 0
    l0 = 0
    l1 = 0
    for u in range(U):
        if not _alive(m, u) or m[rs + u, ST_GONE] != 0:
            continue
        if _side(m, u) == 0:
            l0 += 1
            if m[rs + u, ST_ACT] == 0:
                a0 += 1
        else:
            l1 += 1
            if m[rs + u, ST_ACT] == 0:
                a1 += 1
    return a0, a1, l0, l1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _lost(m, f, side):
    """AP of side's units destroyed."""
    tot = 0.0
    for u in range(m[0, H_U]):
        if _side(m, u) == side and not _alive(m, u):
            tot += f[F_UNITS + u, 0]
    return tot


@nb.njit(nogil=True, cache=True, _nrt=False)
def _lost_all(m, f, side):
    """AP of side's units destroyed, each destruction counted: a unit back from Reserve
    once more per return (victory points, L2886, L3102; battle_reserve)."""
    tot = _lost(m, f, side)
    for u in range(m[0, H_U]):
        if _side(m, u) == side:
            tot += RS.back(m, u) * f[F_UNITS + u, 0]
    return tot


# -- reserves (dustsim.play.battle_reserve, L3100-3104) --------------------------------------------
@nb.njit(nogil=True, cache=True, _nrt=False)
def _fresh(m, u):
    """u as a fresh unit in Reserve (L3102): full strength, no damage, ammunition replenished
    and loaded, no token, not Stunned, off the board, aboard nothing, activated this turn (it
    comes on in a later turn, L3104)."""
    rs = m[0, H_ST] + u
    ru = m[0, H_UNITS] + u
    rx = m[0, H_XU] + u
    m[rs, ST_MODELS] = m[ru, U_MODELS]
    m[rs, ST_HERO] = m[ru, U_HERO]
    m[rs, ST_SINGLE] = m[ru, U_SINGLE]
    m[rs, ST_TOK] = 0
    m[rs, ST_ACT] = 1
    m[rs, ST_MOVED] = 0
    m[rs, ST_SQ] = -1
    m[rs, ST_FACE] = 0 if _side(m, u) == 0 else 4
    m[rs, ST_GONE] = 0
    m[rs, ST_COVERED] = 0
    m[rs, ST_STUN] = 0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        m[m[0, H_WS] + w, WS_AMMO] = m[m[0, H_WPN] + w, W_AMMO]
        m[m[0, H_WS] + w, WS_LOADED] = 1
        m[m[0, H_WS] + w, WS_TGT] = -1
    m[rx, BR.ST_CAMO] = 0  # camouflaged only from the start of the game (L3457)
    m[rx, BR.ST_DROP] = 0  # an Airborne unit drops again (L3393)
    m[rx, BR.X_WIRE] = NONE
    m[rx, BR.X_BOOST] = 0
    BR.unsnipe(m, u)  # its officer and the carriers a Sniper took back (L3709, L3317)
    BC.leave(m, u)
    BC.dig(m, u, 0)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _reserve_check(m, log):
    """After an activation: each unit destroyed since is examined once; while its side has
    placements of its Reserve [#] left and it may go (battle_reserve.eligible), it is placed in
    Reserve (L3102), fresh (:func:`_fresh`); an event ``reserve`` (L_HITS: the side's
    placements so far, L_TOKEN: its Reserve [#]). Decision: a vehicle placed in Reserve takes
    its wreck with it (the wreck is its miniature, L486, and the same miniature comes back
    fresh, L3102; the seeds do not say more), so its squares no longer block sight."""
    x0 = m[0, H_XU]
    att = m[R_G, G_ATT]
    turn = m[R_G, G_TURN]
    for u in range(m[0, H_U]):
        rx = x0 + u
        if _alive(m, u) or (m[rx, RS.X_RES] & RS.SEEN) != 0:
            continue
        side = _side(m, u)
        k = RS.allowance(m, u, att)
        if k <= 0 or m[R_G, RS.G_RES0 + side] >= k:
            m[rx, RS.X_RES] |= RS.SEEN
            continue
        m[R_G, RS.G_RES0 + side] += 1
        s = _sq(m, u)
        if _kind(m, u) == KIND_VEH:  # its miniature leaves the table: no wreck stays (L3102)
            for q in range(_foot(m, u)):
                if _usq(m, u, q) >= 0:
                    m[m[0, H_SCR] + _usq(m, u, q), SC_WRECK] = 0
        _fresh(m, u)
        m[rx, RS.X_RES] = (m[rx, RS.X_RES] // RS.BACK + 1) * RS.BACK + turn
        kk = _log_special(m, log, turn, side, u, s, NONE, RS.SP_RESERVE, NONE, ZERO, ZERO,
                          m[R_G, RS.G_RES0 + side])
        if kk >= 0:
            log[kk, L_TOKEN] = k


@nb.njit(nogil=True, cache=True, _nrt=False)
def _terror_step(m, log, v, u):
    """One token step on v (none -> Under Fire -> Suppressed, never past it) from u's
    Inflect Terror; logged as a token event marked ``BP.WHY_TERROR`` (L_X), u in L_TARGET."""
    rs = m[0, H_ST] + v
    if m[m[0, H_UNITS] + v, U_IMMUNE] != 0 or m[rs, ST_TOK] >= 2:
        return
    m[rs, ST_TOK] += 1
    k = _log(m, log, m[R_G, G_TURN], _side(m, v), v, A_TOKEN, _sq(m, v), NONE)
    if k >= 0:
        log[k, L_TOKEN] = m[rs, ST_TOK]
        log[k, L_X] = BP.WHY_TERROR
        log[k, L_TARGET] = u


@nb.njit(nogil=True, cache=True, _nrt=False)
def _terror(m, bd, ls, lq, log, u, t, before_tok):
    """Inflect Terror (L1657-1659; battle_platoon role ``terror``): after u's close-combat
    attack on t, while its platoon's hero is in play, t takes a token step (hit or not; close
    combat gives none of itself, L739), and each unit of t's side within range 3 of t that sees
    t's square takes one."""
    if not BR.has(m, u, BP.RB_PA_TERROR) or m[R_CFG, C_SUPP] == 0:
        return
    x0 = m[0, H_XU]
    num = abs(m[x0 + u, BP.X_PLATOON])
    held = False
    for h in range(m[0, H_U]):
        if m[x0 + h, BP.X_PA_CODE] == BP.HOLDS and abs(m[x0 + h, BP.X_PLATOON]) == num and \
                _alive(m, h) and m[m[0, H_ST] + h, ST_GONE] == 0:
            held = True
    if not held:
        return
    if _present(m, t) and m[m[0, H_ST] + t, ST_TOK] == before_tok:
        _terror_step(m, log, t, u)
    ts = _sq(m, t)
    if ts < 0:
        return
    for v in range(m[0, H_U]):
        if v == t or _side(m, v) != _side(m, t) or not _present(m, v):
            continue
        if _gap(m, bd, v, t) <= 3 and _sight(m, bd, ls, lq, _sq(m, v), ts, v, t) < 2:
            _terror_step(m, log, v, u)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _lightning(m, on):
    """Lightning Strike (L1165-1169; battle_platoon role ``lightning``): in game turn 1
    (``on``) the infantry save of a granted unit in the open, P (L686), succeeds on P and S
    (the digest's two faces); off again from turn 2 (and at each game's start). Only its
    open-ground dice groups whose save is exactly the infantry save change (a cover save, or a
    save its attacker's weapon removes, stays)."""
    p = m[R_CFG, C_P]
    ps = p | (7 & ~(m[R_CFG, C_P] | m[R_CFG, C_T]))
    wg = max(m[0, H_W], 1)
    rg = m[0, H_GROUPS]
    for t in range(m[0, H_U]):
        if not BR.has(m, t, BP.RB_PA_LIGHTNING):
            continue
        for v in range(2):
            r0 = rg + ((t * 2 + 0) * 2 + v) * wg
            for w in range(wg):
                if on and m[r0 + w, G_SAVE] == p:
                    m[r0 + w, G_SAVE] = ps
                elif not on and m[r0 + w, G_SAVE] == ps:
                    m[r0 + w, G_SAVE] = p


@nb.njit(nogil=True, cache=True, _nrt=False)
def _reserve_arrival(m, log, u):
    """u waits in Reserve and activates off the board: it comes on now (L3104; an event
    ``reserve-arrival``); True for this activation (Surprise Strike, L2122)."""
    if RS.waiting(m, u) == 0 or _sq(m, u) >= 0:
        return False
    rx = m[0, H_XU] + u
    m[rx, RS.X_RES] -= RS.waiting(m, u)
    _log_special(m, log, m[R_G, G_TURN], _side(m, u), u, NONE, NONE, RS.SP_ARRIVE, NONE,
                 ZERO, ZERO, ZERO)
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _objectives(m, bd, log):
    """Objectives held at the end of a turn: a side holds one when a unit of its own stands in
    its area and no enemy unit does (L2484). Sets G_OBJ0/G_OBJ1."""
    k = m[R_B, B_NOBJ]
    n = m[R_B, B_N]
    r_area = 9 * n + 21
    h0 = 0
    h1 = 0
    for i in range(k):
        a = False
        b = False
        ha = False  # a unit that may hold it (a Mindless Zombie only contests, L3601)
        hb = False
        for u in range(m[0, H_U]):
            if not _present(m, u):
                continue
            on = bd[r_area, _sq(m, u)] == i
            for q in range(1, _foot(m, u)):  # any square of a Large/Huge vehicle (decision)
                if _usq(m, u, q) >= 0 and bd[r_area, _usq(m, u, q)] == i:
                    on = True
            if on and m[m[0, H_XU] + u, BR.ST_DROP] != m[R_G, G_TURN]:
                if _side(m, u) == 0:
                    a = True
                    ha = ha or not BR.has(m, u, BR.RB_MINDLESS)  # contests only (L3601)
                else:
                    b = True
                    hb = hb or not BR.has(m, u, BR.RB_MINDLESS)
        if ha and not b:
            h0 += 1
        elif hb and not a:
            h1 += 1
        if (ha and not b) or (hb and not a):
            kk = _log(m, log, m[R_G, G_TURN], np.int64(0 if a else 1), NONE, A_OBJECTIVE,
                      bd[9 * n + 27, i], NONE)
            if kk >= 0:
                log[kk, L_X] = i
    m[R_G, G_OBJ0] = h0
    m[R_G, G_OBJ1] = h1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _finish(m, f, winner, wonby):
    m[R_G, G_END] = 1
    m[R_G, G_WINNER] = winner
    m[R_G, G_WONBY] = wonby


@nb.njit(nogil=True, cache=True, _nrt=False)
def _held(m, bd, side, clear):
    """Objectives held by list side ``side``: one of its units on the objective's area and no
    enemy unit in it nor, with ``clear`` > 0, within ``clear`` of the objective's square
    (L2443-2445; decision: the range is counted from the objective's square)."""
    k = m[R_B, B_NOBJ]
    n = m[R_B, B_N]
    r_area = 9 * n + 21
    r_obj = 9 * n + 27
    cnt = 0
    for i in range(k):
        own = False
        bad = False
        o = bd[r_obj, i]
        for u in range(m[0, H_U]):
            if not _present(m, u):
                continue
            sq = _sq(m, u)
            a = bd[r_area, sq]
            near = bd[sq, o]
            for q in range(1, _foot(m, u)):  # any square of a Large/Huge vehicle (decision)
                sq2 = _usq(m, u, q)
                if sq2 >= 0:
                    if bd[r_area, sq2] == i:
                        a = i
                    if bd[sq2, o] < near:
                        near = bd[sq2, o]
            if _side(m, u) == side:
                if a == i and not BR.has(m, u, BR.RB_MINDLESS):  # contests only (L3601)
                    own = True
            elif a == i or (clear > 0 and near <= clear):
                bad = True
        if own and not bad:
            cnt += 1
    return cnt


@nb.njit(nogil=True, cache=True, _nrt=False)
def _force(m, f, side):
    """Army points of side's whole force."""
    tot = 0.0
    for u in range(m[0, H_U]):
        if _side(m, u) == side:
            tot += f[F_UNITS + u, 0]
    return tot


@nb.njit(nogil=True, cache=True, _nrt=False)
def _exited(m, f, side):
    """Army points of side's units that left the board."""
    tot = 0.0
    for u in range(m[0, H_U]):
        if _side(m, u) == side and m[m[0, H_ST] + u, ST_GONE] != 0:
            tot += f[F_UNITS + u, 0]
    return tot


@nb.njit(nogil=True, cache=True, _nrt=False)
def _vp(m, f, bd, side):
    """Victory points of list side ``side`` under the scenario's scoring row: destroyed enemy
    AP, objectives held (with the scoring's clear range), units in the enemy half, own AP
    exited (scenarios.Scoring)."""
    vp = f[F_SCORE, SC_DESTROYED] * _lost_all(m, f, 1 - side)
    if f[F_SCORE, SC_OBJ_HELD] != 0.0:
        vp += f[F_SCORE, SC_OBJ_HELD] * _held(m, bd, side, np.int64(f[F_SCORE, SC_OBJ_CLEAR]))
    if f[F_SCORE, SC_ENEMY_HALF] != 0.0:
        h = m[R_B, B_HEIGHT]
        width = m[R_B, B_WIDTH]
        att = side == m[R_G, G_ATT]
        for u in range(m[0, H_U]):
            if _side(m, u) != side or not _present(m, u) or _kind(m, u) == KIND_AIR:
                continue
            r = _sq(m, u) // width
            if (att and 2 * r > h - 1) or (not att and 2 * r < h - 1):
                vp += f[F_SCORE, SC_ENEMY_HALF]
    if f[F_SCORE, SC_EXITED] != 0.0:
        vp += f[F_SCORE, SC_EXITED] * _exited(m, f, side)
    return vp


@nb.njit(nogil=True, cache=True, _nrt=False)
def _met(m, f, bd, i, side):
    """Condition row i is met for list side ``side`` now (HOLD, EXIT, ANNIHILATION)."""
    r = F_VC + i
    kind = np.int64(f[r, V_KIND])
    if kind == VK_HOLD:
        k = m[R_B, B_NOBJ]
        need = k if f[r, V_COUNT] < 0 else np.int64(f[r, V_COUNT])
        return k > 0 and _held(m, bd, side, np.int64(f[r, V_CLEAR])) >= need
    if kind == VK_EXIT:
        fo = _force(m, f, side)
        return fo > 0.0 and _exited(m, f, side) >= f[r, V_FRACTION] * fo
    if kind == VK_ANNIHILATION:
        fo = _force(m, f, 1 - side)
        return fo > 0.0 and _lost(m, f, 1 - side) >= f[r, V_FRACTION] * fo - 1e-9
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _victory(m, f, bd, end):
    """The scenario's victory conditions in file order (scenarios module docstring): at the
    end of a turn those not reserved for the game's end; with ``end`` (after the last turn)
    also the end-of-game ones. The first one met decides; returns True when decided."""
    att = m[R_G, G_ATT]
    turn = m[R_G, G_TURN]
    for i in range(m[R_B, B_NVC]):
        r = F_VC + i
        kind = np.int64(f[r, V_KIND])
        at_end = f[r, V_END] != 0.0
        if at_end and not end:
            continue
        if kind == VK_HOLD and not at_end and turn < f[r, V_FROM]:
            continue
        sc = np.int64(f[r, V_SIDE])
        if kind <= VK_ANNIHILATION:  # HOLD, EXIT, ANNIHILATION
            for pick in range(2):
                side = att if pick == 0 else 1 - att
                if (sc == 0 and side != att) or (sc == 1 and side == att):
                    continue
                if _met(m, f, bd, i, side):
                    won = WON_OBJECTIVE if kind == VK_HOLD else (
                        WON_EXIT if kind == VK_EXIT else WON_ANNIHILATION)
                    _finish(m, f, side, won)
                    return True
        elif kind == VK_VP_THRESHOLD:
            v0 = _vp(m, f, bd, 0)
            v1 = _vp(m, f, bd, 1)
            ok0 = v0 >= f[r, V_FRACTION] * _force(m, f, 1) and (sc == 2 or (sc == 0) == (att == 0))
            ok1 = v1 >= f[r, V_FRACTION] * _force(m, f, 0) and (sc == 2 or (sc == 0) == (att == 1))
            if ok0 or ok1:
                if ok0 and ok1 and v0 == v1:
                    continue
                w = 0 if (ok0 and not ok1) or (ok0 and ok1 and v0 > v1) else 1
                _finish(m, f, w, WON_VP)
                return True
        elif end and kind == VK_VP:
            v0 = _vp(m, f, bd, 0)
            v1 = _vp(m, f, bd, 1)
            if v0 > v1:
                _finish(m, f, 0, WON_VP)
            elif v1 > v0:
                _finish(m, f, 1, WON_VP)
            else:
                _finish(m, f, 2, WON_DRAW)
            return True
        elif end and kind == VK_DEFAULT:
            _finish(m, f, att if sc == 0 else 1 - att, WON_DEFAULT)
            return True
        elif end and kind == VK_DRAW:
            _finish(m, f, 2, WON_DRAW)
            return True
    if end:
        _finish(m, f, 2, WON_DRAW)
        return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _reset(m):
    """The state at the start of a game (full strength, off the board, fresh ammunition)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    for u in range(U):
        m[rs + u, ST_MODELS] = m[ru + u, U_MODELS]
        m[rs + u, ST_HERO] = m[ru + u, U_HERO]
        m[rs + u, ST_SINGLE] = m[ru + u, U_SINGLE]
        m[rs + u, ST_TOK] = 0
        m[rs + u, ST_ACT] = 0
        m[rs + u, ST_MOVED] = 0
        m[rs + u, ST_SQ] = -1
        m[rs + u, ST_FACE] = 0 if _side(m, u) == 0 else 4
        m[rs + u, ST_GONE] = 0
        m[rs + u, ST_COVERED] = 0
        m[rs + u, ST_STUN] = 0
        m[rs + u, ST_SPIRIT] = 0  # Fighting Spirit and Lucky unused (once per game)
        m[rs + u, ST_LUCKY] = 0
    for w in range(m[0, H_W]):
        m[m[0, H_WS] + w, WS_AMMO] = m[m[0, H_WPN] + w, W_AMMO]
        m[m[0, H_WS] + w, WS_LOADED] = 1
        m[m[0, H_WS] + w, WS_TGT] = -1
    for c in range(NCOL):
        m[R_G, c] = 0
    BR.reset_rules(m, m[R_B, B_N])
    BP.reset_while(m)  # platoon advantages' grants lasting while a hero is in play
    RS.reset_reserve(m)  # nobody in Reserve (battle_reserve, L3100-3104)
    _lightning(m, OFF)  # Lightning Strike's turn-1 saves (L1169) are set when turn 1 starts
    _stay_down(m)  # Night Witches (L2041): in force from the start
    _mounted(m)  # Mounted Assault (L1770): the soldiers aboard at the start
    lines = 0
    for w in range(m[0, H_W]):
        k = m[m[0, H_WPN] + w, BP.W_STAY_DOWN]
        lines |= LINES_STAY_DOWN if k == 1 else (LINES_MOUNTED if k == BP.MOUNTED_LINE else 0)
        lines |= LINES_SCREAM if m[m[0, H_WPN] + w, W_SCREAM] == 1 else 0
    m[R_B, B_LINES] = lines
    for s in range(m[R_B, B_N]):
        m[m[0, H_SCR] + s, SC_WRECK] = 0
    BC.reset_carry(m)  # passengers aboard (L526)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _deploy(rng, m, f, bd, log):
    """Sides that deploy on the board (not entering, L2440): units placed alternately, the
    attacker first, each on the free square of its zone nearest the enemy's zone centre row
    that gives its class cover, ties at random."""
    n = m[R_B, B_N]
    width = m[R_B, B_WIDTH]
    att = m[R_G, G_ATT]
    r_enter = 9 * n + 26
    U = m[0, H_U]
    for u in range(U):  # passengers start aboard their vehicles (L526)
        if BC.carrier(m, u) >= 0:
            kk = _log(m, log, 0, _side(m, u), u, A_SPECIAL, NONE, NONE)
            if kk >= 0:
                log[kk, L_X] = SP_EMBARKED
                log[kk, L_TARGET] = BC.carrier(m, u)
    _occupy(m)
    rsc = m[0, H_SCR]
    for order in range(U):
        for side_pick in range(2):
            side = att if side_pick == 0 else 1 - att
            zone_i = 0 if side == att else 1
            if bd[r_enter, zone_i] != 0:
                continue
            # the order-th unit of this side
            cnt = 0
            u = -1
            for v in range(U):
                if _side(m, v) == side:
                    if cnt == order:
                        u = v
                        break
                    cnt += 1
            if u < 0 or BR.has(m, u, BR.RB_AIRBORNE) or BR.has(m, u, BR.RB_SPY):
                continue  # an Airborne unit or a Spy is never placed at the start (L3391, L3657)
            if BC.carrier(m, u) >= 0:  # a passenger starts aboard its vehicle (L526)
                continue
            zone = 9 * n + 19 + zone_i
            other = 9 * n + 19 + (1 - zone_i)
            # enemy zone mean row
            tot = 0
            k = 0
            for s in range(n):
                if bd[other, s] != 0:
                    tot += s // width
                    k += 1
            erow = tot / k if k > 0 else 0.0
            best = -1
            bsc = -1e300
            kind = _kind(m, u)
            size = _foot(m, u)
            face = m[m[0, H_ST] + u, ST_FACE]
            if size > 1:  # a Large/Huge vehicle deploys facing the enemy's zone
                face = 0 if zone_i == 0 else 4
                m[m[0, H_ST] + u, ST_FACE] = face
            r_mc = BC.r_mc(m, u)
            for s in range(n):
                if bd[zone, s] == 0 or m[rsc + s, SC_OCC] != 0:
                    continue
                if bd[r_mc, s] >= 99:
                    continue
                fits = True  # a Large/Huge vehicle: all its squares free, passable, in the zone
                for k in range(1, size):
                    q = _fsq(m, size, s, face, k)
                    if q < 0 or bd[zone, q] == 0 or m[rsc + q, SC_OCC] != 0 or bd[r_mc, q] >= 99:
                        fits = False
                if not fits:
                    continue
                sc = -abs(s // width - erow) + 2.0 * bd[9 * n + 1 + kind, s] + 0.5 * uniform(rng)
                if sc > bsc:
                    best, bsc = s, sc
            if best >= 0:
                m[m[0, H_ST] + u, ST_SQ] = best
                m[rsc + best, SC_OCC] = u + 1
                for k in range(1, size):
                    m[rsc + _fsq(m, size, best, face, k), SC_OCC] = u + 1
                kk = _log(m, log, 0, side, u, A_MOVE, NONE, best)
                if kk >= 0:
                    log[kk, L_RANGE] = face


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _game(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, el, val, qb, curve):
    """One game; the result in the game-state row (G_WINNER, G_WONBY, G_TURN); curve[k]
    receives the AP lost by A and B at the end of turn k (k = 0..T)."""
    _reset(m)
    role = m[R_B, B_ROLE]
    if role < 0:
        att = 0 if next_u64(rng) < np.uint64(1 << 63) else 1
    else:
        att = role
    m[R_G, G_ATT] = att
    T = m[R_B, B_TURNS]
    _deploy(rng, m, f, bd, log)
    curve[0, 0] = 0.0
    curve[0, 1] = 0.0
    rs = m[0, H_ST]
    last = 0
    for turn in range(1, T + 1):
        m[R_G, G_TURN] = turn
        for u in range(m[0, H_U]):
            m[rs + u, ST_ACT] = 0
            m[rs + u, ST_MOVED] = 0
        if turn <= 2:
            _lightning(m, ON if turn == 1 else OFF)  # Lightning Strike: turn 1 (L1169)
        win, pos = _initiative_roll(rng, buf, pos, scripted, m)  # Black Ops: 4 dice (L3443)
        # the winner chooses who activates first (L337): first when one of its units can
        # strike now, else it lets the opponent show its hand
        first = win
        can = False
        for u in range(m[0, H_U]):
            if _side(m, u) == win and _alive(m, u) and m[rs + u, ST_GONE] == 0:
                if _strikes(m, bd, u):
                    can = True
                    break
        if not can:
            first = 1 - win
        k = _log(m, log, turn, win, NONE, A_INITIATIVE, NONE, NONE)
        if k >= 0:
            log[k, L_X] = first
        cur = first
        a0, a1, l0, l1 = _counts(m)  # recounted after each activation (nothing else changes)
        while True:
            na = a0 if cur == 0 else a1
            no = a1 if cur == 0 else a0
            if na == 0 and no == 0:
                break
            if na == 0 or (m[R_CFG, C_PASS] != 0 and na < no):
                if na > 0:
                    _log(m, log, turn, cur, NONE, A_PASS, NONE, NONE)
                cur = 1 - cur
                continue
            u = _pick(m, f, bd, cur)
            pos = _activate(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val,
                            qb)
            _reserve_check(m, log)  # the units it destroyed: into Reserve (L3102)
            a0, a1, l0, l1 = _counts(m)
            if l0 == 0 or l1 == 0:  # a side with nothing left: the game ends (decision)
                gone0 = m[R_G, G_EXIT0] > 0
                gone1 = m[R_G, G_EXIT1] > 0
                if not (gone0 or gone1):
                    if l0 == 0 and l1 == 0:
                        _finish(m, f, 2, WON_DRAW)
                    else:
                        _finish(m, f, 0 if l1 == 0 else 1, WON_ANNIHILATION)
                    break
            cur = 1 - cur
        if m[R_B, B_NOBJ] > 0:
            _objectives(m, bd, log)
        curve[turn, 0] = _lost_all(m, f, 0)
        curve[turn, 1] = _lost_all(m, f, 1)
        last = turn
        _log(m, log, turn, NONE, NONE, A_END_TURN, NONE, NONE)
        if m[R_G, G_END] != 0:
            break
        if _victory(m, f, bd, False):
            break
    for k in range(last + 1, T + 1):
        curve[k, 0] = curve[last, 0]
        curve[k, 1] = curve[last, 1]
    m[R_G, G_TURN] = last
    if m[R_G, G_END] == 0:
        _victory(m, f, bd, True)
    k = _log(m, log, last, m[R_G, G_WINNER], NONE, A_END, NONE, NONE)
    if k >= 0:
        log[k, L_X] = m[R_G, G_WONBY]
    return pos


# -- transports (dustsim.play.battle_carry, L522-530) ---------------------------------------------
@nb.njit(nogil=True, cache=True, _nrt=False)
def _threatened(m, bd, u):
    """An enemy on the board is within its Move plus the longest range of a line that hurts
    u (no sight test): the Dozer policy's trigger."""
    s = _sq(m, u)
    side = _side(m, u)
    for t in range(m[0, H_U]):
        if _side(m, t) == side or not _present(m, t):
            continue
        rt = m[0, H_UNITS] + t
        for w in range(m[rt, U_W0], m[rt, U_W1]):
            if bd[_sq(m, t), s] <= m[m[0, H_WPN] + w, W_RMAX] + m[rt, U_MOVE] and \
                    _hurts(m, w, u) and m[m[0, H_WS] + w, WS_AMMO] != 0:
                return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _wants_off(m, bd, u):
    """The ``carry`` policy: passenger u can dismount now (its vehicle is on the board and
    has not activated, L528) and wants to: from the vehicle's square an enemy is within its
    Move + the longest range of a line that hurts it, or an objective within its Move."""
    t = BC.carrier(m, u)
    if t < 0 or not _present(m, t):
        return False
    if m[m[0, H_ST] + t, ST_ACT] != 0 and not BC.assault(m, u) and \
            not BR.has(m, t, BR.RB_ASSAULT_VEHICLE):  # Air Assault: L3381; Assault Vehicle
        return False
    s = _sq(m, t)
    rs = m[0, H_ST] + u
    m[rs, ST_SQ] = s
    near = _strikes(m, bd, u)
    m[rs, ST_SQ] = -1
    if near:
        return True
    n = m[R_B, B_N]
    for i in range(m[R_B, B_NOBJ]):
        if bd[s, bd[9 * n + 27, i]] <= m[m[0, H_UNITS] + u, U_MOVE]:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _step_off(m, f, bd, log, plog, u, el, val, qb):
    """The dismounting Move (L528): u, on its vehicle's square, moves to the free square
    within its Move the policy scores best; False when there is none."""
    s0 = _sq(m, u)
    n = m[R_B, B_N]
    _occupy(m)
    _threat_setup(m, f, u, el, val)
    lam = _lambda(m, f, u)
    mv = m[m[0, H_UNITS] + u, U_MOVE]
    _reach(m, bd, u, mv, qb)
    best = -1e300
    bs = -1
    for s in range(n):
        if s == s0 or _cost(m, bd, s) > mv or not _can_end(m, bd, u, s):
            continue
        if not BR.can_stand(m, bd, u, s, n):
            continue
        p = _position(m, f, bd, u, s, el, val, lam)
        if p > best:
            best, bs = p, s
    if bs < 0:
        return False
    _place(m, bd, log, plog, u, bs, mv, A_MOVE, NONE, ZERO)
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _fort_target(m, bd, u):
    """A bunker or strongpoint square within range 1 of one of Dozer vehicle u's squares
    where an enemy unit stands (the ``dig in`` policy buries it, L3357); -1 if none."""
    n = m[R_B, B_N]
    side = _side(m, u)
    for v in range(m[0, H_U]):
        if _side(m, v) == side or not _present(m, v):
            continue
        sv = _sq(m, v)
        t = bd[9 * n, sv]
        if t != BC.BUNKER and t != BC.STRONGPOINT:
            continue
        for k in range(_foot(m, u)):
            q = _usq(m, u, k)
            if q >= 0 and bd[q, sv] <= 1:
                return sv
    return -1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _bury(rng, buf, pos, scripted, m, bd, log, u):
    """Two Engineering special actions of Dozer vehicle u at the adjacent bunker or
    strongpoint an enemy holds (:func:`battle_carry.fort_target`, L3357): one die, on P the
    fortification is buried and every unit in it eliminated (its squares: the aimed one and
    those of the same kind next to it, a decision)."""
    n = m[R_B, B_N]
    turn = m[R_G, G_TURN]
    q = _fort_target(m, bd, u)
    p0 = pos
    d, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], 1)
    BR.unhide(m, u)
    _log_special(m, log, turn, _side(m, u), u, _sq(m, u), q, SP_BURY, NONE, p0, pos, d)
    if d == 0:
        return pos
    kind = bd[9 * n, q]
    for v in range(m[0, H_U]):
        # an aircraft flies above the terrain, never in it (L516): not buried with it
        if not _present(m, v) or not _alive(m, v) or _kind(m, v) == KIND_AIR:
            continue
        sv = _sq(m, v)
        if sv == q or (bd[q, sv] <= 1 and bd[9 * n, sv] == kind):
            rs = m[0, H_ST] + v
            m[rs, ST_MODELS] = 0
            m[rs, ST_HERO] = 0
            m[rs, ST_SINGLE] = 0
            _log(m, log, turn, _side(m, v), v, A_DESTROYED, sv, NONE)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _fire_aboard(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, t, val):
    """Passenger u fires from its vehicle t (L528): an Attack (never Sustained) from t's
    square with its ranged lines only (no close-combat weapons; a support weapon unit does not
    fire), by at most half the vehicle's spaces of its soldiers (the per-side limit; fire arcs
    are not played on the grid, so all fire at one side's target). Returns (pos, fired)."""
    rs = m[0, H_ST] + u
    s = _sq(m, t)
    m[rs, ST_SQ] = s
    fired = False
    _line_values(m, f, u, val)
    if _offence(m, f, bd, ls, lq, u, s, ON, val) > 0.0 and BR.keep_class(m, u, OFF):
        cap = BC.spaces(m, t) // 2 - (1 if m[rs, ST_HERO] > 0 else 0)
        models = m[rs, ST_MODELS]
        if models > cap:
            m[rs, ST_MODELS] = cap if cap > 0 else 0
        pos = _attack(rng, buf, pos, scripted, m, bd, ls, lq, log, u, OFF, OFF, A_ATTACK)
        m[rs, ST_MODELS] = models
        fired = True
    m[rs, ST_SQ] = -1
    _occupy(m)
    return pos, fired


@nb.njit(nogil=True, cache=True, _nrt=False)
def _ride(rng, buf, pos, scripted, m, f, bd, ls, lq, log, plog, u, el, val, qb):
    """A passenger's activation (L528): it dismounts when the policy wants it and its
    vehicle has not activated (:func:`_wants_off`): the token removal roll (L741), a Move off
    the vehicle (:func:`_step_off`), then an Attack when one is worth something (drawing the
    reaction of a Move + Attack, L797-811), else a Move; one action when Suppressed (L745).
    Otherwise it stays aboard and fires its personal weapons from the vehicle when it can
    (:func:`_fire_aboard`), else it takes no action."""
    rs = m[0, H_ST] + u
    turn = m[R_G, G_TURN]
    side = _side(m, u)
    t = BC.carrier(m, u)
    m[rs, ST_ACT] = 1
    _log(m, log, turn, side, u, A_ACTIVATE, NONE, NONE)
    s = _sq(m, t)
    if _wants_off(m, bd, u):
        tok = m[rs, ST_TOK]
        pos = _removal_roll(rng, buf, pos, scripted, m, u)
        if m[rs, ST_TOK] != tok:
            k = _log(m, log, turn, side, u, A_TOKEN_REMOVED, NONE, NONE)
            if k >= 0:
                log[k, L_TOKEN] = m[rs, ST_TOK]
        suppressed = m[R_CFG, C_SUPP] != 0 and m[rs, ST_TOK] == 2
        m[rs, ST_SQ] = s
        k = _log_special(m, log, turn, side, u, s, s, SP_DISMOUNT, t, NONE, NONE, NONE)
        BC.leave(m, u)
        if _step_off(m, f, bd, log, plog, u, el, val, qb):
            if suppressed:
                return pos
            _occupy(m)
            _line_values(m, f, u, val)
            if _offence(m, f, bd, ls, lq, u, _sq(m, u), OFF, val) > 0.0:
                pos = _react(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u)
                if _present(m, u):
                    pos = _attack_here(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u,
                                       val, OFF, ON)
            else:
                _best_move(m, f, bd, ls, lq, log, plog, u, el, val, qb)
            return pos
        m[rs, ST_SQ] = -1  # no free square to step to: it stays aboard
        m[m[0, BC.H_CARRY] + u, BC.CY_IN] = t + 1
    elif s >= 0 and _present(m, t) and m[m[0, H_UNITS] + u, U_SUPPORT] == 0:
        pos, fired = _fire_aboard(rng, buf, pos, scripted, m, f, bd, ls, lq, log, u, t, val)
        if fired:
            return pos
    k = _log_special(m, log, turn, side, u, s, s, SP_ABOARD, t, NONE, NONE, NONE)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _unlift(rng, buf, pos, scripted, m, bd, log, t, v):
    """Vehicle v carried by Airlifter t, destroyed (L536, L3381): one die per point left on
    its track, one point per P (Air Assault) or per P or S; a survivor is placed on t's
    square (Suppressed, activated) or is destroyed if it cannot stand there."""
    rs = m[0, H_ST] + v
    turn = m[R_G, G_TURN]
    mask = m[R_CFG, C_P] if BC.assault(m, v) else 7 ^ m[R_CFG, C_T]
    p0 = pos
    d, pos = _count(rng, buf, pos, scripted, mask, m[rs, ST_SINGLE])
    s = _sq(m, t)
    k = _log_special(m, log, turn, _side(m, t), v, s, NONE, SP_BAIL, t, p0, pos, d)
    m[rs, ST_SINGLE] -= d if d < m[rs, ST_SINGLE] else m[rs, ST_SINGLE]
    BC.leave(m, v)
    _occupy(m)
    free = m[m[0, H_SCR] + s, SC_OCC] == 0 and bd[BC.r_mc(m, v), s] < 99
    if not _alive(m, v) or not free:
        m[rs, ST_MODELS] = 0
        m[rs, ST_HERO] = 0
        m[rs, ST_SINGLE] = 0
        _log(m, log, turn, _side(m, v), v, A_DESTROYED, s, NONE)
        return pos
    m[rs, ST_SQ] = s
    m[rs, ST_ACT] = 1
    if m[m[0, H_UNITS] + v, U_IMMUNE] == 0:
        m[rs, ST_TOK] = 2
    k = _log_special(m, log, turn, _side(m, v), v, s, s, SP_PLACED, t, NONE, NONE, NONE)
    if k >= 0:
        log[k, L_TOKEN] = m[rs, ST_TOK]
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _bail(rng, buf, pos, scripted, m, bd, log):
    """Passengers of a transport destroyed (L530, :mod:`dustsim.play.battle_carry`): one die
    per passenger, each P a passenger taking one point (no saves; Damage Resilient rolled, one
    die, P cancels, L3485): a joined hero first where it survives the point, then soldiers of
    the unit with the most left, then the rest; each surviving unit placed on a free square
    within range 1 of the wreck (best cover, lowest index) or destroyed, Suppressed and
    activated."""
    U = m[0, H_U]
    rs0 = m[0, H_ST]
    ru0 = m[0, H_UNITS]
    rc = m[0, BC.H_CARRY]
    n = m[R_B, B_N]
    turn = m[R_G, G_TURN]
    if m[R_B, BC.B_ABOARD] == 0:
        return pos  # no unit started aboard a vehicle (battle_carry.reset_carry)
    lost = False  # a passenger whose vehicle is destroyed?
    for v in range(U):
        if BC.carrier(m, v) >= 0 and not _alive(m, BC.carrier(m, v)):
            lost = True
    if not lost:
        return pos
    for t in range(U):
        if _alive(m, t):
            continue
        npass = 0
        first = -1
        for v in range(U):
            if BC.carrier(m, v) == t:
                first = v if first < 0 else first
                m[rc + v, BC.CY_HIT] = 0
                if m[ru0 + v, U_SQUAD] != 0:
                    npass += m[rs0 + v, ST_MODELS] + (1 if m[rs0 + v, ST_HERO] > 0 else 0)
                else:
                    npass += 1
        if npass == 0:
            continue
        if BC.lifted(m, first):  # an Airlifter's vehicle (L536)
            pos = _unlift(rng, buf, pos, scripted, m, bd, log, t, first)
            continue
        p0 = pos
        d, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], npass)
        s = _sq(m, t)
        k = _log_special(m, log, turn, _side(m, t), first, s, NONE, SP_BAIL, t, p0, pos, d)
        for step in range(3):  # heroes that survive a point, soldiers, the rest
            while d > 0:
                best = -1
                most = 0
                for v in range(U):
                    if BC.carrier(m, v) != t:
                        continue
                    r = rs0 + v
                    sq = m[ru0 + v, U_SQUAD] != 0
                    if step == 0 and sq and m[r, ST_HERO] > 1 and m[rc + v, BC.CY_HIT] == 0:
                        best = v
                    elif step == 1 and sq and m[r, ST_MODELS] > most:
                        best, most = v, m[r, ST_MODELS]
                    elif step == 2 and m[rc + v, BC.CY_HIT] == 0 and (
                            (sq and m[r, ST_HERO] > 0) or (not sq and m[r, ST_SINGLE] > 0)):
                        best = v
                if best < 0:
                    break
                d -= 1
                hero = step != 1 and m[ru0 + best, U_SQUAD] != 0
                if step != 1:
                    m[rc + best, BC.CY_HIT] = 1
                cancel = 0
                if BC.resilient(m, best, hero):
                    cancel, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], 1)
                if cancel == 0:
                    if step == 1:
                        m[rs0 + best, ST_MODELS] -= 1
                    elif hero:
                        m[rs0 + best, ST_HERO] -= 1
                    else:
                        m[rs0 + best, ST_SINGLE] -= 1
        _occupy(m)
        rsc = m[0, H_SCR]
        for v in range(U):
            if BC.carrier(m, v) != t:
                continue
            BC.leave(m, v)
            r = rs0 + v
            bq = -1
            bc = -1
            if _alive(m, v):
                r_mc = BC.r_mc(m, v)
                for q in range(n):
                    if m[rsc + q, SC_OCC] != 0 or bd[r_mc, q] >= 99:
                        continue
                    near = False
                    for j in range(_foot(m, t)):
                        w = _usq(m, t, j)
                        if w == q:  # not on the wreck itself
                            near = False
                            break
                        if w >= 0 and bd[w, q] <= 1:
                            near = True
                    if near and bd[9 * n + 1, q] > bc:
                        bq, bc = q, bd[9 * n + 1, q]
            if bq < 0:  # no room within range 1: destroyed (L530)
                m[r, ST_MODELS] = 0
                m[r, ST_HERO] = 0
                m[r, ST_SINGLE] = 0
                _log(m, log, turn, _side(m, v), v, A_DESTROYED, s, NONE)
                continue
            m[r, ST_SQ] = bq
            m[rsc + bq, SC_OCC] = v + 1
            m[r, ST_ACT] = 1
            if m[ru0 + v, U_IMMUNE] == 0:
                m[r, ST_TOK] = 2
            k = _log_special(m, log, turn, _side(m, v), v, s, bq, SP_PLACED, t, NONE, NONE, NONE)
            if k >= 0:
                log[k, L_TOKEN] = m[r, ST_TOK]
                # what it has left after the bail-out roll: soldiers, or damage points
                log[k, L_HITS] = m[r, ST_MODELS] if m[ru0 + v, U_SQUAD] != 0 else m[r, ST_SINGLE]
    return pos


# -- entry points ----------------------------------------------------------------------------------
def _scratch(m: np.ndarray) -> tuple:
    """The scratch arrays of one run (enemy list, line values and 6 rows of squares for
    :func:`_positions`, movement buckets, the AP-lost curve of a game), allocated here so that
    the kernels below count no references."""
    U = int(m[0, H_U])
    n = int(m[R_B, B_N])
    return (np.zeros((U + 1, 5), np.int64),  # + 4 rows of n: per-square rows (_positions)
            np.zeros((max(U + 1, int(m[0, H_W])) + 6, max(4 + 2 * U, n)), np.float64),
            np.zeros(2 * QL + 40 * int(m[R_B, B_N]), np.int64),
            np.zeros((int(m[R_B, B_TURNS]) + 1, 2), np.float64))


def _run_battles(rng, n, m, f, bd, ls, lq, acc, curves) -> None:
    """``n`` games; acc: [0:3] winner A/B/draw, [3:15] wins by (side, won_by) at
    3 + side * 6 + won_by, [15:17] VP of A (sum, sum sq), [17:19] VP of B, [19] turns played,
    [20] games with A attacking, [21] attacker wins, [22] defender wins, [23] sum of squared
    margins (AP B lost - AP A lost); curves[k]: AP lost
    by A (sum, sum sq), by B (sum, sum sq) at the end of turn k."""
    el, val, qb, curve = _scratch(m)
    entry(_play_battles)(rng, n, m, f, bd, ls, lq, acc, curves, np.zeros(1, np.uint8),
                         np.zeros((1, NLOG), np.int64), np.zeros(1, np.int64), el, val, qb, curve)


def _run_logged(rng, faces, m, f, bd, ls, lq, log, plog, out, vps) -> None:
    """One game with its event log (dice from ``faces``, read as scripted dice so every roll's
    faces are known); out: [events, path entries, faces used, winner, won_by, turns, attacker]."""
    el, val, qb, curve = _scratch(m)
    entry(_play_logged)(rng, faces, m, f, bd, ls, lq, log, plog, out, vps, el, val, qb, curve)


# the kernels of the two entry points: one library each, the turn loop (_game) inlined
@exported("void(u8[::1], i8, i8[:, ::1], f8[:, ::1], i4[:, ::1], i4[::1], i2[:, ::1], "
          "f8[::1], f8[:, ::1], u1[::1], i8[:, ::1], i8[::1], i8[:, ::1], f8[:, ::1], "
          "i8[::1], f8[:, ::1])")
@nb.njit(nogil=True, cache=True, _nrt=False)
def _play_battles(rng, n, m, f, bd, ls, lq, acc, curves, buf, log, plog, el, val, qb, curve):
    T = m[R_B, B_TURNS]
    m[R_B, B_LOG] = 0
    m[R_B, B_SBASE] = NONE  # no movement search yet: the scratch
    for _ in range(n):
        _game(rng, buf, ZERO, OFF, m, f, bd, ls, lq, log, plog, el, val, qb, curve)
        w = m[R_G, G_WINNER]
        acc[w] += 1.0
        if w < 2:
            acc[3 + w * 6 + m[R_G, G_WONBY]] += 1.0
        vp0 = _vp(m, f, bd, 0)
        vp1 = _vp(m, f, bd, 1)
        acc[15] += vp0
        acc[16] += vp0 * vp0
        acc[17] += vp1
        acc[18] += vp1 * vp1
        acc[19] += m[R_G, G_TURN]
        mg = curve[T, 1] - curve[T, 0]
        acc[23] += mg * mg
        att = m[R_G, G_ATT]
        if att == 0:
            acc[20] += 1.0
        if w == att:
            acc[21] += 1.0
        elif w == 1 - att:
            acc[22] += 1.0
        for k in range(T + 1):
            a = curve[k, 0]
            b = curve[k, 1]
            curves[k, 0] += a
            curves[k, 1] += a * a
            curves[k, 2] += b
            curves[k, 3] += b * b


@exported("void(u8[::1], u1[::1], i8[:, ::1], f8[:, ::1], i4[:, ::1], i4[::1], i2[:, ::1], "
          "i8[:, ::1], i8[::1], i8[::1], f8[::1], i8[:, ::1], f8[:, ::1], i8[::1], f8[:, "
          "::1])")
@nb.njit(nogil=True, cache=True, _nrt=False)
def _play_logged(rng, faces, m, f, bd, ls, lq, log, plog, out, vps, el, val, qb, curve):
    m[R_B, B_LOG] = 1
    m[R_B, B_LOGN] = 0
    m[R_B, B_PLOGN] = 0
    m[R_B, B_SBASE] = NONE  # no movement search yet: the scratch
    pos = _game(rng, faces, ZERO, ON, m, f, bd, ls, lq, log, plog, el, val, qb, curve)
    out[0] = m[R_B, B_LOGN]
    out[1] = m[R_B, B_PLOGN]
    out[2] = pos
    out[3] = m[R_G, G_WINNER]
    out[4] = m[R_G, G_WONBY]
    out[5] = m[R_G, G_TURN]
    out[6] = m[R_G, G_ATT]
    vps[0] = _vp(m, f, bd, 0)
    vps[1] = _vp(m, f, bd, 1)
    m[R_B, B_LOG] = 0


from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals(), bools=("_victory",))
