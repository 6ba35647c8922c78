"""The engagement kernel: whole duels (turns, activations, reactions) in Numba, flat arrays only.

It knows nothing of cards: :mod:`dustsim.play.duel` compiles the sides into the arrays below. Every
attack goes through the dice kernel's own ``_trial`` (:mod:`dustsim.engines.kernel`), so a duel's
attacks resolve exactly as single attacks do; this module adds the state that persists between
them (models, damage, tokens, positions, ammunition) and the turn structure.

Geometry is one line: side A starts at square 0, side B at the given distance; a unit moves
straight at its target and never closer than one square to an enemy (RULES.md has no
geometry; the abstraction is documented in :mod:`dustsim.play.duel`).

Dice order (what scripted dice must give), per turn: initiative (side A's dice, then side B's,
re-rolled while tied), then per activation: the token removal roll (if the unit has a token),
the third-action die (a unit with Infantry Ace or an Ace Pilot, 003:L3557, L3369), the
attack(s) as :mod:`dustsim.engines.kernel` documents them; a reaction first rolls the reactor's
removal roll (if tokened), then its reactive dice, then its attack. With random dice the
initiative is one random bit (the roll is symmetric: a fair coin, :func:`_initiative`) and every
other roll one uniform (:mod:`dustsim.engines.rng`).

Speed: every table and all mutable state of an engagement live in one int64 matrix (``_pack``),
so the helpers pass one array descriptor instead of fifteen; the helpers run without Numba's
reference counting, the small loops are inlined, and an attack's dice groups are resolved in
place (no per-attack copies).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from dustsim.engines.aot import entry, exported
from dustsim.engines.kernel import (
    G_DICE,
    G_HIT,
    G_RR,
    G_SAVE,
    S_MODELS,
    S_POLICY,
    S_SINGLE,
    S_SUPP,
    S_TOKEN,
    _count,
    _trial,
)
from dustsim.engines.kernel import G_SAVE_RR as G_SAVE_REROLL
from dustsim.engines.rng import next_u64
from dustsim.play.duel_layout import (  # noqa: F401  (the layout, re-exported for the kernel's users)
    C_APPROACH,
    C_BURST,
    C_CHARGE,
    C_DIST,
    C_FIRST,
    C_INIT,
    C_INIT_DICE,
    C_NOW,
    C_ORDERS,
    C_P,
    C_PASS,
    C_REACT_DICE,
    C_SALVO,
    C_SUPP,
    C_T,
    C_TIEBREAK,
    C_TURNS,
    C_VOLLEY,
    F_AIR_TRAFFIC,
    F_AIRBORNE,
    F_AIRCRAFT,
    F_ASSASSIN,
    F_AT_THE_DOUBLE,
    F_CAMOUFLAGE,
    F_CHARGE,
    F_FIGHTING_SPIRIT,
    F_FIRST_STRIKE,
    F_GENERAL,
    F_LUCKY,
    F_MOVE_AND_FIRE,
    F_NO_ORDERS,
    F_OFFICER,
    F_QUICK_RECOVERY,
    F_RADIO,
    F_SCOUT,
    F_SMOKE,
    FAR,
    G_COVER_RR,
    G_COVER_SAVE,
    N_CONFIG,
    N_UNIT_COLS,
    N_WEAPON_COLS,
    ST_ACT,
    ST_CAMO,
    ST_FIRST,
    ST_HERO,
    ST_LUCKY,
    ST_MODELS,
    ST_MOVED,
    ST_OFF,
    ST_REACTIVATED,
    ST_SINGLE,
    ST_SMOKE,
    ST_SMOKES,
    ST_SPIRIT,
    ST_STUN,
    ST_TOK,
    ST_X,
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
    W_BURST,
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
)

# Flags of _attack and _fire as NumPy scalars: Numba compiles a function once per value of a
# constant argument, so plain True/False/0 at the call sites would compile each of them once per
# combination (about ten copies of the attack code per dice mode, tens of seconds cold).
ON = np.bool_(True)
OFF = np.bool_(False)
V_ATTACK = np.int64(0)  # dice group variant: 0 Attack, 1 Sustained Attack
MAX_REROLLS = 64  # initiative ties: re-rolled at most this often, then side A (p < 1e-30)
HALF = np.uint64(1 << 63)  # a random initiative: side A first when the next 64 bits are below

# -- the engagement state: one int64 matrix --------------------------------------------------
# The tables of an engagement (units, weapon lines, dice per weapon line and target, the dice
# groups, the target specs, the configuration) and its mutable state (units, weapon lines, the
# rows, spec and results of the attack being resolved) are row blocks of one C-contiguous
# int64 matrix ``m`` of ``NCOL`` columns (the widest rows: units, dice groups). A helper takes
# that one array instead of fifteen: a call passes every array as its whole descriptor (9 to
# 13 words each), and that argument traffic, not the dice, was most of a duel's time.
NCOL = 26  # 18 + the platoon slots (X cols 20-21) and issue 23 slots (X 22-25, G 18-20)
# row 0: the header (U, W, then the first row of each block); row 1: the configuration.
# The dice groups are ordered (target, variant, weapon line): the lines of one attacker on one
# target are consecutive rows, resolved in place by the dice kernel (a line that does not fire
# gets 0 dice, which draws nothing). A target's spec row keeps its printed Suppression flag in
# the spare column T_SUPP, so an attack writes the state fields into that row and needs no
# copy.
H_U, H_W, H_UNITS, H_WPN, H_WT, H_GROUPS, H_TSPEC, H_ST, H_WS, H_RES, H_RES2 = range(11)
H_NEXT = 11  # header: 1 + the unit a successful Get Moving reactivates next, 0 none
N_BLOCKS = 9  # H_UNITS .. H_RES2
R_CFG = 1
T_SUPP = NCOL - 1  # target spec rows: the spec's own S_SUPP (attacks overwrite S_SUPP)
G_KEEP_HIT, G_KEEP_RR = NCOL - 2, NCOL - 1  # dice group rows: masks saved while a per-game
# skill (Fighting Spirit, Lucky) upgrades them for one attack
WT_DICE, WT_BLAST = range(2)  # a (weapon line, target) row: dice per carrier, blast dice


@exported("i8[:, ::1](i8[:, ::1], i8[:, ::1], i8[:, ::1], i8[:, ::1], i8[:, :, :, ::1], "
          "i8[:, ::1], i8[::1])")
@nb.njit(nogil=True, cache=True)
def _pack(units, wpn, gdice, gblast, groups, tspec, cfg):
    """The state matrix of one engagement (see ``NCOL``), built once per batch of duels.
    Blocks, in order: units (U rows), weapon lines (W), (weapon line, target) dice (W' x U,
    W' = max(W, 1)), dice groups (W' x U x 2 variants), target specs (U), unit state (U),
    weapon state (W'), two attack results."""
    U = units.shape[0]
    W = wpn.shape[0]
    Wg = groups.shape[0]
    n = max(W, 1)
    sizes = (U, W, Wg * U, Wg * U * 2, U, U, n, 1, 1)
    rows = 2
    for i in range(N_BLOCKS):
        rows += sizes[i]
    m = np.zeros((rows, NCOL), np.int64)
    m[0, H_U] = U
    m[0, H_W] = W
    r = 2
    for i in range(N_BLOCKS):
        m[0, H_UNITS + i] = r
        r += sizes[i]
    for c in range(cfg.shape[0]):
        m[R_CFG, c] = cfg[c]
    for u in range(U):
        for c in range(units.shape[1]):
            m[m[0, H_UNITS] + u, c] = units[u, c]
        for c in range(tspec.shape[1]):
            m[m[0, H_TSPEC] + u, c] = tspec[u, c]
        m[m[0, H_TSPEC] + u, T_SUPP] = tspec[u, S_SUPP]
    for w in range(W):
        for c in range(wpn.shape[1]):
            m[m[0, H_WPN] + w, c] = wpn[w, c]
    for w in range(Wg):
        for t in range(U):
            m[m[0, H_WT] + w * U + t, WT_DICE] = gdice[w, t]
            m[m[0, H_WT] + w * U + t, WT_BLAST] = gblast[w, t]
            for v in range(2):
                for k in range(groups.shape[3]):
                    m[m[0, H_GROUPS] + (t * 2 + v) * Wg + w, k] = groups[w, t, v, k]
    return m


@nb.njit(nogil=True, cache=True, _nrt=False)
def _roll_pt(buf, pos, k, pmask, tmask):
    """Scripted initiative dice: ``k`` faces from ``buf`` at ``pos``; the counts of faces in
    ``pmask`` and in ``tmask`` (most of the first symbol, ties by the second), as ``_count``
    reads them."""
    p = 0
    t = 0
    n = buf.shape[0]
    for _ in range(k):
        if pos < n:
            f = np.int64(buf[pos])
            p += (pmask >> f) & 1
            t += (tmask >> f) & 1
        pos += 1
    return p, t, pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _left(m, u):
    """What unit u has left: models + hero track + damage track."""
    r = m[0, H_ST] + u
    return m[r, ST_MODELS] + m[r, ST_HERO] + m[r, ST_SINGLE]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _alive(m, u):
    return _left(m, u) > 0


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _sides_alive(m):
    """Units alive on side A and on side B."""
    ru = m[0, H_UNITS]
    n0 = 0
    n1 = 0
    for u in range(m[0, H_U]):
        if _alive(m, u):
            if m[ru + u, U_SIDE] == 0:
                n0 += 1
            else:
                n1 += 1
    return n0, n1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _carriers(m, w):
    """Carriers still firing weapon line ``w``: squads lose plain soldiers first, so a line of
    c carriers fires with min(c, survivors); a joined hero's weapon fires while the hero lives."""
    rw = m[0, H_WPN] + w
    u = m[rw, W_UNIT]
    rs = m[0, H_ST] + u
    if m[rw, W_HERO] != 0:
        return 1 if m[rs, ST_HERO] > 0 else 0
    c = m[rw, W_CARRIERS]
    if m[m[0, H_UNITS] + u, U_SQUAD] != 0:
        s = m[rs, ST_MODELS]
        return c if c < s else s
    return c if m[rs, ST_SINGLE] > 0 else 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _hurts(m, w, t):
    r = m[0, H_WT] + w * m[0, H_U] + t
    return m[r, WT_DICE] > 0 or m[r, WT_BLAST] > 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _has_ammo(m, w):
    return m[m[0, H_WS] + w, WS_AMMO] != 0


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _firing(m, w, t, d, cc):
    """Carriers of weapon line ``w`` that fire on ``t`` at distance ``d`` in this class
    (ranged or close combat): 0 when the line cannot fire (no dice against t, no ammo,
    unloaded, out of range, no carrier left)."""
    rw = m[0, H_WPN] + w
    if (m[rw, W_CC] != 0) != cc:
        return 0
    if not _hurts(m, w, t) or not _has_ammo(m, w):
        return 0
    if m[m[0, H_WS] + w, WS_LOADED] == 0:
        return 0
    if d < m[rw, W_RMIN] or d > m[rw, W_RMAX]:
        return 0
    return _carriers(m, w)


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _useful_ranges(m, u, t):
    """(longest, shortest) range of u's weapons that can hurt t (ammo left, carriers alive);
    (-1, -1) when none can."""
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    longest = -1
    shortest = FAR + 1
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if not _hurts(m, w, t) or not _has_ammo(m, w):
            continue
        if _carriers(m, w) == 0:
            continue
        r = m[rwp + w, W_RMAX]
        longest = r if r > longest else longest
        shortest = r if r < shortest else shortest
    if longest < 0:
        return -1, -1
    return longest, shortest


@nb.njit(nogil=True, cache=True, _nrt=False)
def _dist(m, u, t):
    rs = m[0, H_ST]
    d = m[rs + u, ST_X] - m[rs + t, ST_X]
    return d if d >= 0 else -d


@nb.njit(nogil=True, cache=True, _nrt=False)
def _choose_target(m, value, u):
    """Best enemy: first one reachable this activation, then highest value, then nearest;
    (target, longest, shortest) with the ranges of :func:`_useful_ranges`, (-1, -1, -1) when
    u can hurt none."""
    ru = m[0, H_UNITS]
    side = m[ru + u, U_SIDE]
    move = m[ru + u, U_MOVE]
    best = -1
    best_key0 = -1
    best_val = -1.0
    best_d = FAR * 2
    best_long = -1
    best_short = -1
    for t in range(m[0, H_U]):
        if m[ru + t, U_SIDE] == side or not _alive(m, t) or m[m[0, H_ST] + t, ST_OFF] != 0:
            continue
        longest, shortest = _useful_ranges(m, u, t)
        if longest < 0:
            continue
        if m[m[0, H_ST] + t, ST_CAMO] != 0:  # camouflaged: attacked only within range 2
            longest = longest if longest < 2 else 2  # (L3455)
            shortest = shortest if shortest < 2 else 2
        d = _dist(m, u, t)
        reach = 1 if d - move <= longest else 0
        v = value[u, t]
        better = False
        if reach > best_key0:
            better = True
        elif reach == best_key0:
            if v > best_val or (v == best_val and d < best_d):
                better = True
        if better:
            best, best_key0, best_val, best_d = t, reach, v, d
            best_long, best_short = longest, shortest
    return best, best_long, best_short


@nb.njit(nogil=True, cache=True, _nrt=False)
def _move(m, u, t, squares, desired):
    """Move u up to ``squares`` toward t, stopping at ``desired`` range and one square short of
    the nearest enemy ahead. Returns True if it moved."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    _release(m, u)  # a Move is not a Nothing action: u's grapple lets go (L3268)
    d = _dist(m, u, t)
    step = d - desired
    if step > squares:
        step = squares
    side = m[ru + u, U_SIDE]
    direction = 1 if side == 0 else -1
    for e in range(m[0, H_U]):
        if m[ru + e, U_SIDE] == side or not _alive(m, e) or m[rs + e, ST_OFF] != 0:
            continue
        gap = (m[rs + e, ST_X] - m[rs + u, ST_X]) * direction - 1
        if gap < step:
            step = gap
    if step <= 0:
        return False
    m[rs + u, ST_X] += direction * step
    m[rs + u, ST_MOVED] = 1
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _swap_cover(m, r0, r1):
    """Exchange the open and in-cover save masks of dice group rows r0 .. r1 - 1."""
    for r in range(r0, r1):
        a = m[r, G_SAVE]
        m[r, G_SAVE] = m[r, G_COVER_SAVE]
        m[r, G_COVER_SAVE] = a
        a = m[r, G_SAVE_REROLL]
        m[r, G_SAVE_REROLL] = m[r, G_COVER_RR]
        m[r, G_COVER_RR] = a


@nb.njit(nogil=True, cache=True, _nrt=False)
def _threatened(m, u):
    """Some living enemy can hurt u and is within its longest useful range plus one Move of
    it: the smoke policy's trigger."""
    ru = m[0, H_UNITS]
    side = m[ru + u, U_SIDE]
    hit = False
    for e in range(m[0, H_U]):
        if m[ru + e, U_SIDE] == side or not _alive(m, e) or m[m[0, H_ST] + e, ST_OFF] != 0:
            continue
        longest, _shortest = _useful_ranges(m, e, u)
        if longest >= 0 and _dist(m, e, u) <= longest + m[ru + e, U_MOVE]:
            hit = True
            break
    return hit


@nb.njit(nogil=True, cache=True, _nrt=False)
def _fire(rng, buf, pos, scripted, m, u, t, variant, moved, cc, suppress, rr):
    """Build and resolve one attack of u's weapons of one class (ranged or close combat) on t.

    Returns (pos, fired); the outcome is left in row ``rr`` of ``m`` (not applied to the
    state)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    rwt = m[0, H_WT]
    wg = (m[0, H_GROUPS] - rwt) // U  # rows per (target, variant) in the groups block
    rg = m[0, H_GROUPS] + (t * 2 + variant) * wg  # u's lines on t: rows rg + W0 .. rg + W1
    w0 = m[ru + u, U_W0]
    w1 = m[ru + u, U_W1]
    d = _dist(m, u, t)
    if m[rs + t, ST_CAMO] != 0 and d >= 3:
        return pos, False  # camouflaged: cannot be attacked at range 3 or more (L3455)
    ng = 0
    if m[ru + t, U_SQUAD] != 0:
        mini = m[rs + t, ST_MODELS] + (1 if m[rs + t, ST_HERO] > 0 else 0)
    elif m[ru + t, U_SUPPORT] != 0:
        mini = m[rs + t, ST_SINGLE]
    else:
        mini = 1
    for w in range(w0, w1):
        m[rg + w, G_DICE] = 0
        c = _firing(m, w, t, d, cc)
        if c == 0:
            continue
        wt = rwt + w * U + t
        if m[wt, WT_BLAST] > 0:
            n = m[wt, WT_BLAST] * mini * c
        else:
            n = m[wt, WT_DICE] * c
        if m[rwp + w, W_SETUP] != 0 and moved:
            n = (n + 1) // 2
        if m[rwp + w, W_BURST] != 0 and m[R_CFG, C_BURST] != 0 and m[rs + t, ST_MOVED] == 0:
            n *= 2
        if m[rwp + w, W_SALVO] != 0 and m[R_CFG, C_SALVO] != 0:
            n *= 2  # a Salvo attack: twice the dice, the Loaded token removed (003:L3312)
            m[rws + w, WS_LOADED] = 0
        # the weapon is spent even if the target dies before its dice (simultaneous fire)
        if m[rwp + w, W_VOLLEY] != 0 and m[R_CFG, C_VOLLEY] != 0 and m[rws + w, WS_AMMO] > 1:
            n *= m[rws + w, WS_AMMO]  # every box left in one volley: dice x boxes (L3341)
            m[rws + w, WS_AMMO] = 0
        if m[rws + w, WS_AMMO] > 0:
            m[rws + w, WS_AMMO] -= 1
        if m[rwp + w, W_RELOAD] != 0:
            m[rws + w, WS_LOADED] = 0
        if n <= 0:
            continue
        m[rg + w, G_DICE] = n
        ng += 1
    if ng == 0:
        return pos, False
    rt = m[0, H_TSPEC] + t  # the target's spec row, with its current state
    m[rt, S_MODELS] = m[rs + t, ST_MODELS]
    m[rt, S_SINGLE] = m[rs + t, ST_HERO] if m[ru + t, U_SQUAD] != 0 else m[rs + t, ST_SINGLE]
    m[rt, S_TOKEN] = m[rs + t, ST_TOK]
    m[rt, S_SUPP] = m[rt, T_SUPP] if suppress and m[ru + t, U_IMMUNE] == 0 else 0
    # per-game skills in use in this Attack action upgrade the lines for this roll only:
    # Fighting Spirit hits on P,T (L3521); Lucky re-rolls the hero's misses (L3585)
    spirit = m[rs + u, ST_SPIRIT] == 2
    lucky = m[rs + u, ST_LUCKY] == 2
    lone = m[ru + u, U_SQUAD] == 0
    if spirit or lucky:
        for w in range(w0, w1):
            rgw = rg + w
            m[rgw, G_KEEP_HIT] = m[rgw, G_HIT]
            m[rgw, G_KEEP_RR] = m[rgw, G_RR]
            if spirit:
                m[rgw, G_HIT] |= m[R_CFG, C_T]
                if m[rgw, G_RR] != 0:
                    m[rgw, G_RR] |= m[R_CFG, C_T]
            if lucky and m[rgw, G_RR] == 0 and (lone or m[rwp + w, W_HERO] != 0):
                m[rgw, G_RR] = m[rgw, G_HIT]
    # Assassin (a lone hero): its close-combat hits go to the joined hero it names (L3429)
    policy = m[rt, S_POLICY]
    if cc and m[ru + u, U_FLAGS] & F_ASSASSIN and m[ru + t, U_SQUAD] != 0 and \
            m[rs + t, ST_HERO] > 0:
        m[rt, S_POLICY] = 3  # aimed-hero (dustsim.rules.attack.ALLOCATIONS)
    # a smoke screen on the target: its lines use their saves against a target in cover
    # (L680, L3228; swapped back after the roll)
    smoke = m[rs + t, ST_SMOKE] >= m[R_CFG, C_NOW]
    if smoke:
        _swap_cover(m, rg + w0, rg + w1)
    # a line that does not fire has 0 dice: it draws nothing and changes nothing
    pos = _trial(rng, buf, pos, scripted, m[rt], m, rg + w0, rg + w1, m[rr])
    if smoke:
        _swap_cover(m, rg + w0, rg + w1)
    m[rt, S_POLICY] = policy
    if spirit or lucky:
        for w in range(w0, w1):
            m[rg + w, G_HIT] = m[rg + w, G_KEEP_HIT]
            m[rg + w, G_RR] = m[rg + w, G_KEEP_RR]
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _scream(rng, buf, pos, scripted, m, u):
    """Psychic Scream on the line (BattleScribe ``Dust_1947.gst`` rule 0a01-816f-3ce5-05f5):
    once per game, a free action at the start of u's activation (after its token roll): its
    line (``W_SCREAM`` 1) attacks every unit, friend or foe, within range 3 on the line (no
    sight there; infantry and cover saves compiled away, :mod:`dustsim.rules.attack`), one
    Attack each, applied at once. Policy: when more enemy units than friendly ones stand within
    range 3 (the grid kernel weighs their value instead)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    rwt = m[0, H_WT]
    w = -1
    for x in range(m[ru + u, U_W0], m[ru + u, U_W1]):
        if m[rwp + x, W_SCREAM] == 1 and m[rws + x, WS_AMMO] > 0:
            w = x
    if w < 0 or m[rs + u, ST_OFF] != 0 or not _alive(m, u):
        return pos
    n = 0
    for t in range(U):
        if t == u or not _alive(m, t) or m[rs + t, ST_OFF] != 0 or not _hurts(m, w, t):
            continue
        if _dist(m, u, t) <= 3:
            n += 1 if m[ru + t, U_SIDE] != m[ru + u, U_SIDE] else -1
    if n <= 0:
        return pos
    m[rws + w, WS_AMMO] = 0
    wg = (m[0, H_GROUPS] - rwt) // U
    rr = m[0, H_RES]
    c = _carriers(m, w)
    for t in range(U):
        if t == u or not _alive(m, t) or m[rs + t, ST_OFF] != 0 or not _hurts(m, w, t):
            continue
        if _dist(m, u, t) > 3:
            continue
        if m[ru + t, U_SQUAD] != 0:
            mini = m[rs + t, ST_MODELS] + (1 if m[rs + t, ST_HERO] > 0 else 0)
        elif m[ru + t, U_SUPPORT] != 0:
            mini = m[rs + t, ST_SINGLE]
        else:
            mini = 1
        wt = rwt + w * U + t
        nd = (m[wt, WT_BLAST] * mini if m[wt, WT_BLAST] > 0 else m[wt, WT_DICE]) * c
        if nd <= 0:
            continue
        rg = m[0, H_GROUPS] + (t * 2) * wg  # the Attack variant
        m[rg + w, G_DICE] = nd
        rt = m[0, H_TSPEC] + t
        m[rt, S_MODELS] = m[rs + t, ST_MODELS]
        m[rt, S_SINGLE] = m[rs + t, ST_HERO] if m[ru + t, U_SQUAD] != 0 else m[rs + t, ST_SINGLE]
        m[rt, S_TOKEN] = m[rs + t, ST_TOK]
        m[rt, S_SUPP] = m[rt, T_SUPP] if m[ru + t, U_IMMUNE] == 0 else 0
        pos = _trial(rng, buf, pos, scripted, m[rt], m, rg + w, rg + w + 1, m[rr])
        _apply(m, t, rr, u)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _apply(m, t, rr, u):
    """Apply the attack result in row ``rr`` (by unit ``u``) to unit ``t``: losses, the
    Under Fire / Suppression token, and a Stunned token (res[5] of the dice kernel: Tesla
    damage 003:L3329, a Grapple hit L3268 held while ``u`` does Nothing, Cheat Death L3465)."""
    rs = m[0, H_ST] + t
    ru = m[0, H_UNITS] + t
    m[rs, ST_MODELS] -= m[rr, 2]
    if m[ru, U_SQUAD] != 0:
        m[rs, ST_HERO] -= m[rr, 3]
    else:
        m[rs, ST_SINGLE] -= m[rr, 3]
    if m[R_CFG, C_SUPP] != 0 and m[ru, U_IMMUNE] == 0:
        m[rs, ST_TOK] = m[rr, 4]
    flags = m[rr, 5]
    if flags & 2:
        m[rs, ST_STUN] = 2 + u  # grappled: held until u is destroyed or acts (L3268)
    elif flags & 5 and m[rs, ST_STUN] == 0:
        m[rs, ST_STUN] = 1  # Stunned until its next activation's Nothing (L3331, L3465)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _stun(m, u):
    """Unit u's Stunned state (see ``ST_STUN``); a grapple whose grappler is destroyed is
    released first (003:L3268)."""
    r = m[0, H_ST] + u
    s = m[r, ST_STUN]
    if s >= 2 and not _alive(m, s - 2):
        m[r, ST_STUN] = 0
        s = 0
    return s


@nb.njit(nogil=True, cache=True, _nrt=False)
def _release(m, g):
    """Unit g takes an action other than Nothing: its Grapple lets go (003:L3268)."""
    rs = m[0, H_ST]
    for v in range(m[0, H_U]):
        if m[rs + v, ST_STUN] == 2 + g:
            m[rs + v, ST_STUN] = 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _can_fire(m, u, t, cc):
    """Whether any of u's lines of this class can fire on t at the current distance."""
    ru = m[0, H_UNITS] + u
    d = _dist(m, u, t)
    ok = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if _firing(m, w, t, d, cc) > 0:
            ok = True
            break
    return ok


@nb.njit(nogil=True, cache=True, _nrt=False)
def _begin_action(m, u, sustained):
    """u takes an Attack-type action: its grapple lets go (L3268), its Camouflage ends (L3455),
    and its unused per-game skills come into use under the policy: Fighting Spirit in its first
    Attack action, Lucky in its first plain Attack (a Sustained Attack re-rolls misses
    already; L3521, L3585)."""
    rs = m[0, H_ST] + u
    fl = m[m[0, H_UNITS] + u, U_FLAGS]
    _release(m, u)
    m[rs, ST_CAMO] = 0
    if fl & F_FIGHTING_SPIRIT and m[rs, ST_SPIRIT] == 0:
        m[rs, ST_SPIRIT] = 2
    if fl & F_LUCKY and m[rs, ST_LUCKY] == 0 and not sustained:
        m[rs, ST_LUCKY] = 2


@nb.njit(nogil=True, cache=True, _nrt=False)
def _end_action(m, u):
    rs = m[0, H_ST] + u
    if m[rs, ST_SPIRIT] == 2:
        m[rs, ST_SPIRIT] = 1
    if m[rs, ST_LUCKY] == 2:
        m[rs, ST_LUCKY] = 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _close_combat(rng, buf, pos, scripted, m, u, t, variant, moved):
    """u's close-combat weapons on adjacent t with t's retaliation: simultaneous (L765), or
    First Strike's side resolved and its casualties removed first (L3525; both: ignored); a
    Stunned unit cannot fight back (L3266, L3331, L3465)."""
    rr = m[0, H_RES]
    rr2 = m[0, H_RES2]
    ru = m[0, H_UNITS]
    fa = (m[ru + u, U_FLAGS] & F_FIRST_STRIKE) != 0
    fb = (m[ru + t, U_FLAGS] & F_FIRST_STRIKE) != 0
    if fa and not fb:
        pos, hit = _fire(rng, buf, pos, scripted, m, u, t, variant, moved, ON, OFF, rr)
        if hit:
            _apply(m, t, rr, u)
            if _alive(m, t) and _stun(m, t) == 0:
                pos, ret = _fire(rng, buf, pos, scripted, m, t, u, V_ATTACK, OFF, ON, OFF, rr2)
                if ret:
                    _apply(m, u, rr2, t)
        return pos
    stunned = _stun(m, t) != 0
    if fb and not fa:
        if not _can_fire(m, u, t, ON):
            return pos
        if not stunned:
            pos, ret = _fire(rng, buf, pos, scripted, m, t, u, V_ATTACK, OFF, ON, OFF, rr2)
            if ret:
                _apply(m, u, rr2, t)
        if _alive(m, u):
            pos, hit = _fire(rng, buf, pos, scripted, m, u, t, variant, moved, ON, OFF, rr)
            if hit:
                _apply(m, t, rr, u)
        return pos
    pos, hit_back = _fire(rng, buf, pos, scripted, m, u, t, variant, moved, ON, OFF, rr)
    retaliated = False
    if hit_back:
        if not stunned:
            pos, retaliated = _fire(rng, buf, pos, scripted, m, t, u, V_ATTACK, OFF, ON, OFF,
                                    rr2)
        _apply(m, t, rr, u)
        if retaliated:
            _apply(m, u, rr2, t)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _attack(rng, buf, pos, scripted, m, u, t, sustained, moved, allow_cc):
    """One Attack (or Sustained Attack) of u on t: ranged weapons, then close combat with the
    target's retaliation (:func:`_close_combat`)."""
    rr = m[0, H_RES]
    variant = 1 if sustained else 0
    camo = m[m[0, H_ST] + u, ST_CAMO]
    _begin_action(m, u, sustained)
    # Stealth lines alone keep the Camouflage (BattleScribe rule 328a-77cc-4b29-e85c); what
    # fires is read before the fire spends ammunition
    quiet = camo != 0 and not _loud(m, u, t, OFF)
    pos, fired = _fire(rng, buf, pos, scripted, m, u, t, variant, moved, OFF, ON, rr)
    if fired:
        _apply(m, t, rr, u)
    if allow_cc and _alive(m, t) and _dist(m, u, t) == 1:
        quiet = quiet and not _loud(m, u, t, ON)
        cc_variant = 0 if fired else variant  # one part of a Sustained Attack is sustained
        pos = _close_combat(rng, buf, pos, scripted, m, u, t, cc_variant, moved)
    if quiet:
        m[m[0, H_ST] + u, ST_CAMO] = camo
    _end_action(m, u)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _loud(m, u, t, cc):
    """Whether a line of u that is not Stealth fires on t now in this class (ranged or close
    combat): such an Attack ends u's Camouflage (L3455)."""
    ru = m[0, H_UNITS] + u
    d = _dist(m, u, t)
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[m[0, H_WPN] + w, W_STEALTH] == 0 and _firing(m, w, t, d, cc) > 0:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def _removal_roll(rng, buf, pos, scripted, m, u):
    """Under Fire / Suppression removal at activation (1947 L741): 2+ successes clear all,
    one success steps down one level."""
    rs = m[0, H_ST] + u
    if m[R_CFG, C_SUPP] == 0 or m[rs, ST_TOK] == 0:
        return pos
    s, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], m[m[0, H_UNITS] + u, U_SUPP_DICE])
    if s >= 2:
        m[rs, ST_TOK] = 0
    elif s == 1:
        m[rs, ST_TOK] -= 1
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _react(rng, buf, pos, scripted, m, value, mover):
    """A reactive attack on ``mover`` by the best unactivated enemy that can hurt it in
    range 4 (``U_REACT_RANGE``, 0 for a unit that never reacts); never in close combat."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    side = m[ru + mover, U_SIDE]
    best = -1
    best_val = -1.0
    for r in range(m[0, H_U]):
        if m[ru + r, U_SIDE] == side or not _alive(m, r) or m[rs + r, ST_OFF] != 0:
            continue
        if m[rs + r, ST_ACT] != 0 or m[ru + r, U_REACT_RANGE] == 0:
            continue
        if _stun(m, r) >= 2:
            continue  # grappled: cannot fight (L3268)
        d = _dist(m, r, mover)
        if d > m[ru + r, U_REACT_RANGE]:
            continue
        if m[rs + mover, ST_CAMO] != 0 and d >= 3:
            continue  # a camouflaged mover cannot be attacked at range 3 or more (L3455)
        ok = False
        for w in range(m[ru + r, U_W0], m[ru + r, U_W1]):
            if _firing(m, w, mover, d, False) > 0:
                ok = True
                break
        if ok and value[r, mover] > best_val:
            best, best_val = r, value[r, mover]
    if best < 0:
        return pos
    r = best
    m[rs + r, ST_ACT] = 1
    pos = _removal_roll(rng, buf, pos, scripted, m, r)
    n = m[R_CFG, C_REACT_DICE]
    if m[R_CFG, C_SUPP] != 0 and m[rs + r, ST_TOK] == 2:
        n = 1  # still suppressed: one reactive die (1947 L747)
    if m[rs + r, ST_STUN] == 1:
        n = 1  # Stunned: one reactive die, the token removed either way (L3333, L3467)
        m[rs + r, ST_STUN] = 0
    # reactive dice: P, or P and S with Advanced Reactive Fire (U_REACT_MASK, L3373)
    s, pos = _count(rng, buf, pos, scripted, m[ru + r, U_REACT_MASK], n)
    if s >= 2:
        pos = _attack(rng, buf, pos, scripted, m, r, mover, ON, OFF, OFF)
    elif s == 1:
        pos = _attack(rng, buf, pos, scripted, m, r, mover, OFF, OFF, OFF)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _best_value(m, value, u):
    """The highest ``value[u, e]`` over living enemies on the table (0 when none)."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    best = 0.0
    for e in range(m[0, H_U]):
        if m[ru + e, U_SIDE] == m[ru + u, U_SIDE] or not _alive(m, e) or m[rs + e, ST_OFF]:
            continue
        if value[u, e] > best:
            best = value[u, e]
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def _order(m, value, u, air):
    """The friendly unit an officer's Get Moving (``air`` False: a ground unit in range 2, or
    anywhere with a radio, L3725-3727) or Air Traffic Control (``air`` True: an aircraft,
    L3389) would activate again under the policy: already activated this turn, not yet
    reactivated, worth more than the ordering unit's own attack (``value``); -1 when none."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    best = -1
    best_v = _best_value(m, value, u)
    for f in range(m[0, H_U]):
        if f == u or m[ru + f, U_SIDE] != m[ru + u, U_SIDE] or not _alive(m, f):
            continue
        if m[rs + f, ST_ACT] == 0 or m[rs + f, ST_REACTIVATED] != 0:
            continue
        if ((m[ru + f, U_FLAGS] & F_AIRCRAFT) != 0) != air:
            continue
        if m[rs + f, ST_OFF] != 0 or _stun(m, f) >= 2:
            continue
        if not air and (m[ru + f, U_FLAGS] & F_NO_ORDERS) != 0:
            continue  # Lesser Mythos Creatures: never an officer's target (unit_rules)
        if not air and (m[ru + u, U_FLAGS] & F_RADIO) == 0 and _dist(m, u, f) > 2:
            continue
        v = _best_value(m, value, f)
        if v > best_v:
            best, best_v = f, v
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def _rallies(m, u, f):
    """Officer u may Rally f: another living unit of its side, not yet activated nor off the
    board, Suppressed (where Suppression is played) or Stunned."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    if f == u or m[ru + f, U_SIDE] != m[ru + u, U_SIDE] or not _alive(m, f):
        return False
    if m[rs + f, ST_ACT] != 0 or m[rs + f, ST_OFF] != 0:
        return False
    if (m[ru + f, U_FLAGS] & F_NO_ORDERS) != 0:  # Lesser Mythos Creatures (unit_rules)
        return False
    return (m[R_CFG, C_SUPP] != 0 and m[rs + f, ST_TOK] == 2) or _stun(m, f) != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _rally(rng, buf, pos, scripted, m, value, u):
    """An officer's Rally under the policy (L3729-3731): the friendly units still to activate
    this turn that are Suppressed or Stunned: all of them in range 2, or, with a radio, the one
    worth most anywhere; two dice on P each: two successes remove every token (Stunned
    included: our reading of "remove Under Fire, Suppression, or Stunned tokens", OPEN-3), one
    steps Suppression down to Under Fire. Returns (pos, whether it rallied)."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    radio = (m[ru + u, U_FLAGS] & F_RADIO) != 0
    best = -1
    best_v = -1.0
    n = 0
    for f in range(m[0, H_U]):
        if not _rallies(m, u, f):
            continue
        if radio:
            v = _best_value(m, value, f)
            if v > best_v:
                best, best_v = f, v
        elif _dist(m, u, f) <= 2:
            n += 1
    if best < 0 and n == 0:
        return pos, False
    _release(m, u)
    for f in range(m[0, H_U]):
        if radio and f != best:
            continue
        if not _rallies(m, u, f):
            continue
        if not radio and _dist(m, u, f) > 2:
            continue
        s2, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], 2)
        if s2 >= 2:
            m[rs + f, ST_TOK] = 0
            m[rs + f, ST_STUN] = 0
        elif s2 == 1 and m[rs + f, ST_TOK] > 0:
            m[rs + f, ST_TOK] -= 1
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _activate(rng, buf, pos, scripted, m, value, u):
    """Two actions (three after a successful third-action die) of unit u under the approach
    policy (see :mod:`dustsim.play.duel`). A grappled unit does Nothing (it may not move and
    cannot fight, 003:L3268); a Stunned or Suppressed unit's first action is Nothing, both
    together cost one action (L745, L3331-3333); with three actions the unit takes one Move-
    type and one Attack-type action (L352-358): Move + Sustained Attack, March Move + Attack,
    or Reload + Sustained Attack.

    Skills (U_FLAGS): Charge closes to close combat with a March Move and attacks with its
    close-combat weapons for free (L3461); Scout's first March Move of the game costs one
    action, leaving an Attack (L3641); Move and Fire adds a free Move to a ranged Sustained
    Attack or a free ranged Attack to a March Move (L3605); At the Double adds a free Move
    after a March Move (L3433)."""
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    rsu = m[0, H_ST] + u
    m[rsu, ST_ACT] = 1
    first = m[rsu, ST_FIRST] != 0  # its first activation of the game
    m[rsu, ST_FIRST] = 0
    fl = m[ru, U_FLAGS]
    if m[rsu, ST_SMOKES] > 0 and m[rsu, ST_SMOKE] < m[R_CFG, C_NOW] and _threatened(m, u):
        # Smoke Launchers: a free Launch Smoke special action on itself, once per game; the
        # screen gives cover until the end of the next turn (L3653, L3228)
        m[rsu, ST_SMOKES] -= 1
        m[rsu, ST_SMOKE] = m[R_CFG, C_NOW] + 1
    pos = _removal_roll(rng, buf, pos, scripted, m, u)
    pos = _scream(rng, buf, pos, scripted, m, u)  # a free action (its rule: _scream)
    suppressed = m[R_CFG, C_SUPP] != 0 and m[rsu, ST_TOK] == 2
    stun = _stun(m, u)
    if stun >= 2:
        return pos  # grappled: Nothing + Nothing
    actions = 2
    if m[ru, U_THIRD] != 0:  # Infantry Ace / Ace Pilot: a third action on P or T (L3557)
        s3, pos = _count(rng, buf, pos, scripted, m[ru, U_THIRD], 1)
        actions += s3
    if stun == 1:
        m[rsu, ST_STUN] = 0  # its first action is Nothing, then the token goes (L3331)
    if suppressed or stun == 1:
        actions -= 1
    cc = OFF if suppressed else ON  # a Suppressed unit cannot initiate close combat (L745)
    if fl & F_OFFICER and m[R_CFG, C_ORDERS] != 0 and actions >= 2 and m[rsu, ST_OFF] == 0:
        pos, rallied = _rally(rng, buf, pos, scripted, m, value, u)
        if rallied and fl & F_GENERAL == 0:  # a General's officer action is free (L3537)
            actions -= 1
    if fl & F_OFFICER and m[R_CFG, C_ORDERS] != 0 and actions >= 2 and m[rsu, ST_OFF] == 0:
        f = _order(m, value, u, False)
        if f >= 0:  # Get Moving You Bunch of Monkeys: one die, P (L3725)
            _release(m, u)
            s1, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], 1)
            if s1 > 0:  # its activation ends; f is reactivated at once (L3725-3727)
                m[m[0, H_ST] + f, ST_REACTIVATED] = 1
                m[0, H_NEXT] = f + 1
                return pos
            if fl & F_GENERAL == 0:  # a General's officer action is free (L3537)
                actions -= 1
    if fl & F_AIR_TRAFFIC and m[R_CFG, C_ORDERS] != 0 and actions >= 2 and \
            m[rsu, ST_OFF] == 0:
        f = _order(m, value, u, True)
        if f >= 0:  # Air Traffic Control: one die, P: the aircraft activates again (L3389),
            _release(m, u)  # right after this unit's activation
            actions -= 1
            s1, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], 1)
            if s1 > 0:
                m[m[0, H_ST] + f, ST_REACTIVATED] = 1
                m[0, H_NEXT] = f + 1
    t, longest, shortest = _choose_target(m, value, u)
    if m[rsu, ST_OFF] != 0:
        # Airborne: placed anywhere on its first turn (L3393; the policy: at its approach
        # range from its target, on its own side of it), first action Nothing, then a
        # second action on P or T, else a second Nothing
        m[rsu, ST_OFF] = 0
        if t < 0:
            return pos
        desired = longest if m[R_CFG, C_APPROACH] == 0 else shortest
        side = m[ru, U_SIDE]
        m[rsu, ST_X] = m[m[0, H_ST] + t, ST_X] - (desired if side == 0 else -desired)
        if fl & F_QUICK_RECOVERY == 0:
            s2, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P] | m[R_CFG, C_T], 1)
            if s2 > 0 and actions > 1 and _alive(m, t):
                pos = _attack(rng, buf, pos, scripted, m, u, t, OFF, OFF, cc)
            return pos
        # Quick Recovery: no Nothing action after the drop; its actions as any activation
    if t < 0:
        return pos  # nothing it can hurt: Nothing
    desired = longest if m[R_CFG, C_APPROACH] == 0 else shortest
    mv = m[ru, U_MOVE]
    d = _dist(m, u, t)
    if actions == 1:  # after the Nothing: Attack if possible, else Move
        if d <= longest:
            pos = _attack(rng, buf, pos, scripted, m, u, t, OFF, OFF, cc)
        else:
            _move(m, u, t, mv, desired)
        return pos
    three = actions == 3
    aircraft = m[ru, U_AIR] != 0  # aircraft Move before anything else (1947 L516)
    march = m[ru, U_MARCH]
    if fl & F_CHARGE and m[R_CFG, C_CHARGE] != 0 and not suppressed and not aircraft and \
            d > 1 and d - march <= 1:
        # Charge: a March Move into contact, then a free close-combat Attack (L3461), when
        # its close-combat weapons can hurt the target
        hurts_cc = False
        for w in range(m[ru, U_W0], m[ru, U_W1]):
            if m[rwp + w, W_CC] != 0 and _hurts(m, w, t) and _carriers(m, w) > 0:
                hurts_cc = True
        if hurts_cc:
            _move(m, u, t, mv, 1)
            pos = _react(rng, buf, pos, scripted, m, value, u)
            if not _alive(m, u):
                return pos
            _move(m, u, t, march - mv, 1)
            if _alive(m, t) and _dist(m, u, t) == 1:
                _begin_action(m, u, False)
                pos = _close_combat(rng, buf, pos, scripted, m, u, t, V_ATTACK, ON)
                _end_action(m, u)
            return pos
    maf = (fl & F_MOVE_AND_FIRE) != 0
    if d <= desired and not aircraft:
        unloaded = False
        for w in range(m[ru, U_W0], m[ru, U_W1]):
            if (m[rwp + w, W_RELOAD] != 0 or m[rwp + w, W_SALVO] != 0) and \
                    m[rws + w, WS_LOADED] == 0 and _hurts(m, w, t):
                unloaded = True
        if unloaded:  # Reload + Attack (1947 L3304-3306, Salvo L3312)
            for w in range(m[ru, U_W0], m[ru, U_W1]):
                if m[rwp + w, W_RELOAD] != 0 or m[rwp + w, W_SALVO] != 0:
                    m[rws + w, WS_LOADED] = 1
            return _attack(rng, buf, pos, scripted, m, u, t, ON if three else OFF, OFF, cc)
        return _attack(rng, buf, pos, scripted, m, u, t, ON, OFF, cc)
    # Move + Attack, or a March Move: one Move, then a reaction may come (1947 L797-811)
    _move(m, u, t, mv, desired)
    pos = _react(rng, buf, pos, scripted, m, value, u)
    if not _alive(m, u):
        return pos
    if aircraft or d - mv <= longest:
        if _alive(m, t):
            if three:  # Move + Sustained Attack
                pos = _attack(rng, buf, pos, scripted, m, u, t, ON, ON, cc)
            elif maf:  # a free Move with a ranged Sustained Attack (L3605)
                pos = _attack(rng, buf, pos, scripted, m, u, t, ON, ON, OFF)
            else:
                pos = _attack(rng, buf, pos, scripted, m, u, t, OFF, ON, cc)
    else:
        _move(m, u, t, march - mv, desired)  # the rest of the March
        if fl & F_AT_THE_DOUBLE:
            _move(m, u, t, mv, desired)  # a free Move after the March Move (L3433)
        scout = first and (fl & F_SCOUT) != 0  # the March cost one action (L3641)
        if (three or scout or maf) and _alive(m, t) and _dist(m, u, t) <= longest:
            pos = _attack(rng, buf, pos, scripted, m, u, t, OFF, ON,
                          cc if (three or scout) else OFF)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False, inline="always")
def _unactivated(m):
    """(unactivated units alive on side A, on side B, the first of each or -1)."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    n0 = 0
    n1 = 0
    f0 = -1
    f1 = -1
    for u in range(m[0, H_U]):
        if m[rs + u, ST_ACT] == 0 and _alive(m, u):
            if m[ru + u, U_SIDE] == 0:
                f0 = u if n0 == 0 else f0
                n0 += 1
            else:
                f1 = u if n1 == 0 else f1
                n1 += 1
    return n0, n1, f0, f1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _initiative(rng, buf, pos, scripted, m):
    """Side that activates first this turn: forced, or by the roll (ties: compare the second
    symbol where the ruleset has one, then re-roll).

    Random: both sides roll the same dice under the same comparison, so the roll is a fair
    coin (side A also takes the turn after ``MAX_REROLLS`` ties, p < 1e-30, below a double's
    resolution): one random bit. Scripted: the dice themselves, re-rolled on ties."""
    if m[R_CFG, C_INIT] == 1:
        return 0, pos
    if m[R_CFG, C_INIT] == 2:
        return 1, pos
    if not scripted:
        return (0 if next_u64(rng) < HALF else 1), pos
    k = m[R_CFG, C_INIT_DICE]
    pm = m[R_CFG, C_P]
    tm = m[R_CFG, C_T]
    for _ in range(MAX_REROLLS):
        pa, ta, pos = _roll_pt(buf, pos, k, pm, tm)
        pb, tb, pos = _roll_pt(buf, pos, k, pm, tm)
        if pa != pb:
            return (0 if pa > pb else 1), pos
        if m[R_CFG, C_TIEBREAK] != 0 and ta != tb:
            return (0 if ta > tb else 1), pos
        if pos > buf.shape[0]:
            break
    return 0, pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _engage(rng, buf, pos, scripted, m, value, out):
    """One duel from the start on the state matrix ``m`` (:func:`_pack`).
    out: [winner (0 A, 1 B, 2 none), turn it ended]."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    for u in range(U):
        m[rs + u, ST_MODELS] = m[ru + u, U_MODELS]
        m[rs + u, ST_HERO] = m[ru + u, U_HERO]
        m[rs + u, ST_SINGLE] = m[ru + u, U_SINGLE]
        m[rs + u, ST_TOK] = 0
        m[rs + u, ST_X] = 0 if m[ru + u, U_SIDE] == 0 else m[R_CFG, C_DIST]
        m[rs + u, ST_ACT] = 0
        m[rs + u, ST_MOVED] = 0
        m[rs + u, ST_STUN] = 0
        m[rs + u, ST_CAMO] = 1 if m[ru + u, U_FLAGS] & F_CAMOUFLAGE else 0  # L3457
        m[rs + u, ST_FIRST] = 1
        m[rs + u, ST_SPIRIT] = 0
        m[rs + u, ST_LUCKY] = 0
        m[rs + u, ST_SMOKE] = 0
        m[rs + u, ST_SMOKES] = 1 if m[ru + u, U_FLAGS] & F_SMOKE else 0
        m[rs + u, ST_OFF] = 1 if m[ru + u, U_FLAGS] & F_AIRBORNE else 0  # L3393
    for w in range(m[0, H_W]):
        m[m[0, H_WS] + w, WS_AMMO] = m[m[0, H_WPN] + w, W_AMMO]
        m[m[0, H_WS] + w, WS_LOADED] = 1
    m[0, H_NEXT] = 0
    for turn in range(1, m[R_CFG, C_TURNS] + 1):
        m[R_CFG, C_NOW] = turn
        for u in range(U):
            m[rs + u, ST_ACT] = 0
            m[rs + u, ST_MOVED] = 0
            m[rs + u, ST_REACTIVATED] = 0
        side, pos = _initiative(rng, buf, pos, scripted, m)
        if m[R_CFG, C_FIRST] != 0:
            side = 1 - side  # the winner chooses who activates first (L337): the opponent
        while True:
            n0, n1, f0, f1 = _unactivated(m)
            na, no, u = (n0, n1, f0) if side == 0 else (n1, n0, f1)
            if na == 0 and no == 0:
                break
            if na == 0 or (m[R_CFG, C_PASS] != 0 and na < no):
                side = 1 - side  # nothing left, or a pass (fewer unactivated units, L341)
                continue
            pos = _activate(rng, buf, pos, scripted, m, value, u)
            while m[0, H_NEXT] > 0:  # Get Moving: two units activate consecutively (L3727)
                f = m[0, H_NEXT] - 1
                m[0, H_NEXT] = 0
                if _alive(m, f):
                    pos = _activate(rng, buf, pos, scripted, m, value, f)
            a_left, b_left = _sides_alive(m)
            if a_left == 0 or b_left == 0:
                out[0] = 2 if a_left == b_left else (0 if b_left == 0 else 1)
                out[1] = turn
                return pos
            side = 1 - side
    out[0] = 2
    out[1] = m[R_CFG, C_TURNS]
    return pos


#: the engagement's packed state matrix, built once per batch of games (its public name)
pack = _pack

#: the per-game record of :func:`play_games` (then one column per unit: what it has left);
#: :mod:`dustsim.engines.montecarlo` reduces it
GAME_COLUMNS = ("winner", "turn", "lost_a", "lost_b", "alive_a", "alive_b")
G_LEFT = len(GAME_COLUMNS)


@exported("void(u8[::1], i8, i8[:, ::1], f8[:, ::1], f8[::1], f8[:, ::1])")
@nb.njit(nogil=True, cache=True)
def play_games(rng, n, m, value, ap, games):
    """``n`` engagements from the packed state ``m`` (:func:`_pack`), one row of ``games`` per
    game (:data:`GAME_COLUMNS`): winner (0 A, 1 B, 2 none), the turn it ended, the AP of
    side A's / B's destroyed units (``ap`` per unit, summed in unit order), A's / B's units
    left, then what each unit has left (models + hero track + damage track)."""
    U = m[0, H_U]
    ru = m[0, H_UNITS]
    buf = np.zeros(1, np.uint8)  # scripted faces only
    pos = 0
    out = np.zeros(2, np.int64)
    for i in range(n):
        pos = _engage(rng, buf, pos, False, m, value, out)
        lost_a = 0.0
        lost_b = 0.0
        na = 0
        nb_ = 0
        for u in range(U):
            s = _left(m, u)
            games[i, G_LEFT + u] = s
            if s == 0:
                if m[ru + u, U_SIDE] == 0:
                    lost_a += ap[u]
                else:
                    lost_b += ap[u]
            elif m[ru + u, U_SIDE] == 0:
                na += 1
            else:
                nb_ += 1
        games[i, 0] = out[0]
        games[i, 1] = out[1]
        games[i, 2] = lost_a
        games[i, 3] = lost_b
        games[i, 4] = na
        games[i, 5] = nb_


def games(rng, n, spec_arrays, ap) -> np.ndarray:
    """:func:`play_games` on a spec's arrays (``units, weapons, gdice, gblast, groups, tspec,
    config, value``): the per-game records, ``float64[n, G_LEFT + U]``."""
    units, wpn, gdice, gblast, groups, tspec, cfg, value = spec_arrays
    m = entry(_pack)(units, wpn, gdice, gblast, groups, tspec, cfg)
    out = np.zeros((n, G_LEFT + units.shape[0]), np.float64)
    entry(play_games)(rng, n, m, value, ap, out)
    return out


@nb.njit(nogil=True, cache=True)
def _run_duel_scripted(rng, faces, units, wpn, gdice, gblast, groups, tspec, cfg, value, st,
                       out):
    """One duel with scripted faces; out: [winner, turn, faces used, overrun]; ``st`` keeps
    the final state."""
    U = units.shape[0]
    m = _pack(units, wpn, gdice, gblast, groups, tspec, cfg)
    o = np.zeros(2, np.int64)
    pos = _engage(rng, faces, 0, True, m, value, o)
    for u in range(U):
        for c in range(st.shape[1]):
            st[u, c] = m[m[0, H_ST] + u, c]
    out[0] = o[0]
    out[1] = o[1]
    out[2] = min(pos, faces.shape[0])
    out[3] = 1 if pos > faces.shape[0] else 0


@exported("i8[:, ::1](i8, i8, i8[:, :, ::1], i8[:, :, ::1], i8[::1], i8[:, :, ::1], "
          "i8[:, :, ::1], i8[:, :, :, :, ::1], i8[:, :, ::1], i8[:, ::1])")
@nb.njit(nogil=True, cache=True)
def pack_pair(p, dist, units, wpn, nw, gdice, gblast, groups, tspec, cfg):
    """The packed engagement state of pairing ``p`` of a stack of one-on-one engagements
    (side A unit 0, side B unit 1) at starting distance ``dist`` (the value model's batches:
    :mod:`dustsim.review.value`)."""
    w = nw[p]
    wp = max(w, 1)
    c = cfg[p].copy()
    c[C_DIST] = dist
    return _pack(units[p], wpn[p, :w], gdice[p, :wp], gblast[p, :wp], groups[p, :wp],
                 tspec[p], c)


@exported("void(u8[::1], i8, i8[::1], i8[:, :, ::1], i8[:, :, ::1], i8[::1], i8[:, :, ::1], "
          "i8[:, :, ::1], i8[:, :, :, :, ::1], i8[:, :, ::1], i8[:, ::1], f8[:, :, ::1], "
          "f8[::1], f8[:, :, :, ::1])")
@nb.njit(nogil=True, cache=True)
def play_pairs(rng, n, dists, units, wpn, nw, gdice, gblast, groups, tspec, cfg, value, ap,
               games):
    """Every pairing p at every distance, ``n`` times, from one stream in that order;
    games[p, d]: the per-game records of :func:`play_games`."""
    for p in range(units.shape[0]):
        for di in range(dists.shape[0]):
            m = pack_pair(p, dists[di], units, wpn, nw, gdice, gblast, groups, tspec, cfg)
            play_games(rng, n, m, value[p], ap, games[p, di])


# one compiled version per argument type, not per integer constant (dustsim.engines.jit); the
# flags of _order (air) and _begin_action (sustained) pick a line or two: one version each
from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals(), bools=("_order", "_begin_action"))
