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
the attack(s) as :mod:`dustsim.engines.kernel` documents them; a reaction first rolls the reactor's
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

from dustsim.engines.kernel import (
    G_DICE,
    S_MODELS,
    S_SINGLE,
    S_SUPP,
    S_TOKEN,
    _count,
    _trial,
)
from dustsim.engines.rng import next_u64
from dustsim.play.duel_layout import (  # noqa: F401  (the layout, re-exported for the kernel's users)
    C_APPROACH,
    C_BURST,
    C_DIST,
    C_INIT,
    C_INIT_DICE,
    C_P,
    C_PASS,
    C_REACT_DICE,
    C_SUPP,
    C_T,
    C_TIEBREAK,
    C_TURNS,
    FAR,
    N_CONFIG,
    N_UNIT_COLS,
    N_WEAPON_COLS,
    ST_ACT,
    ST_HERO,
    ST_MODELS,
    ST_MOVED,
    ST_SINGLE,
    ST_TOK,
    ST_X,
    U_AIR,
    U_HERO,
    U_IMMUNE,
    U_MARCH,
    U_MODELS,
    U_MOVE,
    U_REACT_RANGE,
    U_SIDE,
    U_SINGLE,
    U_SQUAD,
    U_SUPP_DICE,
    U_SUPPORT,
    U_W0,
    U_W1,
    W_AMMO,
    W_BURST,
    W_CARRIERS,
    W_CC,
    W_HERO,
    W_RELOAD,
    W_RMAX,
    W_RMIN,
    W_SETUP,
    W_UNIT,
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
NCOL = 14
# row 0: the header (U, W, then the first row of each block); row 1: the configuration.
# The dice groups are ordered (target, variant, weapon line): the lines of one attacker on one
# target are consecutive rows, resolved in place by the dice kernel (a line that does not fire
# gets 0 dice, which draws nothing). A target's spec row keeps its printed Suppression flag in
# the spare column T_SUPP, so an attack writes the state fields into that row and needs no
# copy.
H_U, H_W, H_UNITS, H_WPN, H_WT, H_GROUPS, H_TSPEC, H_ST, H_WS, H_RES, H_RES2 = range(11)
N_BLOCKS = 9  # H_UNITS .. H_RES2
R_CFG = 1
T_SUPP = NCOL - 1  # target spec rows: the spec's own S_SUPP (attacks overwrite S_SUPP)
WT_DICE, WT_BLAST = range(2)  # a (weapon line, target) row: dice per carrier, blast dice


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
        if m[ru + t, U_SIDE] == side or not _alive(m, t):
            continue
        longest, shortest = _useful_ranges(m, u, t)
        if longest < 0:
            continue
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
    d = _dist(m, u, t)
    step = d - desired
    if step > squares:
        step = squares
    side = m[ru + u, U_SIDE]
    direction = 1 if side == 0 else -1
    for e in range(m[0, H_U]):
        if m[ru + e, U_SIDE] == side or not _alive(m, e):
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
        # the weapon is spent even if the target dies before its dice (simultaneous fire)
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
    # a line that does not fire has 0 dice: it draws nothing and changes nothing
    pos = _trial(rng, buf, pos, scripted, m[rt], m, rg + w0, rg + w1, m[rr])
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _apply(m, t, rr):
    rs = m[0, H_ST] + t
    ru = m[0, H_UNITS] + t
    m[rs, ST_MODELS] -= m[rr, 2]
    if m[ru, U_SQUAD] != 0:
        m[rs, ST_HERO] -= m[rr, 3]
    else:
        m[rs, ST_SINGLE] -= m[rr, 3]
    if m[R_CFG, C_SUPP] != 0 and m[ru, U_IMMUNE] == 0:
        m[rs, ST_TOK] = m[rr, 4]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _attack(rng, buf, pos, scripted, m, u, t, sustained, moved, allow_cc):
    """One Attack (or Sustained Attack) of u on t: ranged weapons, then close combat with the
    target's retaliation (both resolved before either's casualties are removed)."""
    rr = m[0, H_RES]
    rr2 = m[0, H_RES2]
    variant = 1 if sustained else 0
    pos, fired = _fire(rng, buf, pos, scripted, m, u, t, variant, moved, OFF, ON, rr)
    if fired:
        _apply(m, t, rr)
    if not allow_cc or not _alive(m, t) or _dist(m, u, t) != 1:
        return pos
    cc_variant = 0 if fired else variant  # one part of a Sustained Attack is sustained
    pos, hit_back = _fire(rng, buf, pos, scripted, m, u, t, cc_variant, moved, ON, OFF, rr)
    retaliated = False
    if hit_back:
        pos, retaliated = _fire(rng, buf, pos, scripted, m, t, u, V_ATTACK, OFF, ON, OFF, rr2)
        _apply(m, t, rr)
        if retaliated:
            _apply(m, u, rr2)
    return pos


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
        if m[ru + r, U_SIDE] == side or not _alive(m, r):
            continue
        if m[rs + r, ST_ACT] != 0 or m[ru + r, U_REACT_RANGE] == 0:
            continue
        d = _dist(m, r, mover)
        if d > m[ru + r, U_REACT_RANGE]:
            continue
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
    s, pos = _count(rng, buf, pos, scripted, m[R_CFG, C_P], n)
    if s >= 2:
        pos = _attack(rng, buf, pos, scripted, m, r, mover, ON, OFF, OFF)
    elif s == 1:
        pos = _attack(rng, buf, pos, scripted, m, r, mover, OFF, OFF, OFF)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _activate(rng, buf, pos, scripted, m, value, u):
    """Two actions of unit u under the approach policy (see :mod:`dustsim.play.duel`)."""
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    m[m[0, H_ST] + u, ST_ACT] = 1
    pos = _removal_roll(rng, buf, pos, scripted, m, u)
    suppressed = m[R_CFG, C_SUPP] != 0 and m[m[0, H_ST] + u, ST_TOK] == 2
    t, longest, shortest = _choose_target(m, value, u)
    if t < 0:
        return pos  # nothing it can hurt: Nothing + Nothing
    desired = longest if m[R_CFG, C_APPROACH] == 0 else shortest
    mv = m[ru, U_MOVE]
    d = _dist(m, u, t)
    if suppressed:  # first action Nothing (1947 L745); then Attack if possible, else Move
        if d <= longest:
            pos = _attack(rng, buf, pos, scripted, m, u, t, OFF, OFF, OFF)
        else:
            _move(m, u, t, mv, desired)
        return pos
    aircraft = m[ru, U_AIR] != 0  # aircraft Move before anything else (1947 L516)
    if d <= desired and not aircraft:
        unloaded = False
        for w in range(m[ru, U_W0], m[ru, U_W1]):
            if m[rwp + w, W_RELOAD] != 0 and m[rws + w, WS_LOADED] == 0 and _hurts(m, w, t):
                unloaded = True
        if unloaded:  # Reload + Attack (1947 L3304-3306)
            for w in range(m[ru, U_W0], m[ru, U_W1]):
                if m[rwp + w, W_RELOAD] != 0:
                    m[rws + w, WS_LOADED] = 1
            return _attack(rng, buf, pos, scripted, m, u, t, OFF, OFF, ON)
        return _attack(rng, buf, pos, scripted, m, u, t, ON, OFF, ON)
    # Move + Attack, or a March Move: one Move, then a reaction may come (1947 L797-811)
    _move(m, u, t, mv, desired)
    pos = _react(rng, buf, pos, scripted, m, value, u)
    if not _alive(m, u):
        return pos
    if aircraft or d - mv <= longest:
        if _alive(m, t):
            pos = _attack(rng, buf, pos, scripted, m, u, t, OFF, ON, ON)
    else:
        _move(m, u, t, m[ru, U_MARCH] - mv, desired)  # the rest of the March
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
    for w in range(m[0, H_W]):
        m[m[0, H_WS] + w, WS_AMMO] = m[m[0, H_WPN] + w, W_AMMO]
        m[m[0, H_WS] + w, WS_LOADED] = 1
    for turn in range(1, m[R_CFG, C_TURNS] + 1):
        for u in range(U):
            m[rs + u, ST_ACT] = 0
            m[rs + u, ST_MOVED] = 0
        side, pos = _initiative(rng, buf, pos, scripted, m)
        while True:
            n0, n1, f0, f1 = _unactivated(m)
            na, no, u = (n0, n1, f0) if side == 0 else (n1, n0, f1)
            if na == 0 and no == 0:
                break
            if na == 0 or (m[R_CFG, C_PASS] != 0 and na < no):
                side = 1 - side  # nothing left, or a pass (fewer unactivated units, L341)
                continue
            pos = _activate(rng, buf, pos, scripted, m, value, u)
            a_left, b_left = _sides_alive(m)
            if a_left == 0 or b_left == 0:
                out[0] = 2 if a_left == b_left else (0 if b_left == 0 else 1)
                out[1] = turn
                return pos
            side = 1 - side
    out[0] = 2
    out[1] = m[R_CFG, C_TURNS]
    return pos


@nb.njit(nogil=True, cache=True)
def _engagement(rng, buf, pos, scripted, units, wpn, gdice, gblast, groups, tspec, cfg, value,
                st, ws, rows, spec, res, res2, out):
    """One duel from separate arrays (the former entry point, kept for callers that hold
    them): packs the state matrix, plays, and copies the final unit state to ``st`` and the
    weapon state to ``ws``. A loop over duels should :func:`_pack` once and call
    :func:`_engage`."""
    m = _pack(units, wpn, gdice, gblast, groups, tspec, cfg)
    pos = _engage(rng, buf, pos, scripted, m, value, out)
    for u in range(units.shape[0]):
        for c in range(st.shape[1]):
            st[u, c] = m[m[0, H_ST] + u, c]
    for w in range(wpn.shape[0]):
        for c in range(ws.shape[1]):
            ws[w, c] = m[m[0, H_WS] + w, c]
    return pos


@nb.njit(nogil=True, cache=True)
def _scratch(wpn, groups, tspec):
    """Work arrays of :func:`_engagement`: weapon state, attack rows, spec, two results,
    the outcome."""
    n = max(wpn.shape[0], 1)
    return (np.zeros((n, 2), np.int64), np.zeros((n, groups.shape[3]), np.int64),
            np.zeros(tspec.shape[1], np.int64), np.zeros(5, np.int64), np.zeros(5, np.int64),
            np.zeros(2, np.int64))


@nb.njit(nogil=True, cache=True)
def _run_duels(rng, n, units, wpn, gdice, gblast, groups, tspec, cfg, value, ap,
               outcome, turns, ap_sums, strength, alive):
    """``n`` duels; accumulate: outcome[3], turns[3, T+1], ap_sums[2 sides, 2 (sum, sum sq)],
    strength[U, S+1] (models + hero + track left), alive[2, U+1] (units left per side)."""
    U = units.shape[0]
    buf = np.zeros(1, np.uint8)  # scripted faces only
    pos = 0
    m = _pack(units, wpn, gdice, gblast, groups, tspec, cfg)
    out = np.zeros(2, np.int64)
    for _ in range(n):
        pos = _engage(rng, buf, pos, False, m, value, out)
        outcome[out[0]] += 1
        turns[out[0], out[1]] += 1
        lost_a = 0.0
        lost_b = 0.0
        na = 0
        nb_ = 0
        for u in range(U):
            s = _left(m, u)
            strength[u, s] += 1
            if s == 0:
                if units[u, U_SIDE] == 0:
                    lost_a += ap[u]
                else:
                    lost_b += ap[u]
            elif units[u, U_SIDE] == 0:
                na += 1
            else:
                nb_ += 1
        ap_sums[0, 0] += lost_a
        ap_sums[0, 1] += lost_a * lost_a
        ap_sums[1, 0] += lost_b
        ap_sums[1, 1] += lost_b * lost_b
        alive[0, na] += 1
        alive[1, nb_] += 1


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


# one compiled version per argument type, not per integer constant (dustsim.engines.jit)
from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
