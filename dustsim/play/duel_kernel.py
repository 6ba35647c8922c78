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
removal roll (if tokened), then its reactive dice, then its attack.
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
from dustsim.engines.rng import faces
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

MAX_REROLLS = 64  # initiative ties: re-rolled at most this often, then side A (p < 1e-40)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _roll_pt(rng, buf, pos, scripted, k, pmask, tmask):
    """Roll ``k`` dice; count the faces in ``pmask`` and in ``tmask`` from the same dice
    (initiative: most of the first symbol, ties by the second). Random: the face counts are
    one multinomial draw (:func:`dustsim.engines.rng.faces`). Otherwise as ``_count``."""
    if not scripted:
        n0, n1, n2 = faces(rng, k)
        p = n0 * (pmask & 1) + n1 * ((pmask >> 1) & 1) + n2 * ((pmask >> 2) & 1)
        t = n0 * (tmask & 1) + n1 * ((tmask >> 1) & 1) + n2 * ((tmask >> 2) & 1)
        return p, t, pos
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
def _alive(st, u):
    return st[u, ST_MODELS] + st[u, ST_HERO] + st[u, ST_SINGLE] > 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _side_alive(units, st, side):
    n = 0
    for u in range(units.shape[0]):
        if units[u, U_SIDE] == side and _alive(st, u):
            n += 1
    return n


@nb.njit(nogil=True, cache=True, _nrt=False)
def _carriers(units, wpn, st, w):
    """Carriers still firing weapon line ``w``: squads lose plain soldiers first, so a line of
    c carriers fires with min(c, survivors); a joined hero's weapon fires while the hero lives."""
    u = wpn[w, W_UNIT]
    if wpn[w, W_HERO] != 0:
        return 1 if st[u, ST_HERO] > 0 else 0
    if units[u, U_SQUAD] != 0:
        m = st[u, ST_MODELS]
        return wpn[w, W_CARRIERS] if wpn[w, W_CARRIERS] < m else m
    return wpn[w, W_CARRIERS] if st[u, ST_SINGLE] > 0 else 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _hurts(gdice, gblast, w, t):
    return gdice[w, t] > 0 or gblast[w, t] > 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _has_ammo(wpn, ws, w):
    return ws[w, WS_AMMO] != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _can_fire(units, wpn, ws, st, gdice, gblast, w, t, d, cc):
    if (wpn[w, W_CC] != 0) != cc:
        return False
    if not _hurts(gdice, gblast, w, t) or not _has_ammo(wpn, ws, w):
        return False
    if ws[w, WS_LOADED] == 0:
        return False
    if d < wpn[w, W_RMIN] or d > wpn[w, W_RMAX]:
        return False
    return _carriers(units, wpn, st, w) > 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _useful_ranges(units, wpn, ws, st, gdice, gblast, u, t):
    """(longest, shortest) range of u's weapons that can hurt t (ammo left, carriers alive);
    (-1, -1) when none can."""
    longest = -1
    shortest = FAR + 1
    for w in range(units[u, U_W0], units[u, U_W1]):
        if not _hurts(gdice, gblast, w, t) or not _has_ammo(wpn, ws, w):
            continue
        if _carriers(units, wpn, st, w) == 0:
            continue
        r = wpn[w, W_RMAX]
        longest = r if r > longest else longest
        shortest = r if r < shortest else shortest
    if longest < 0:
        return -1, -1
    return longest, shortest


@nb.njit(nogil=True, cache=True, _nrt=False)
def _dist(st, u, t):
    d = st[u, ST_X] - st[t, ST_X]
    return d if d >= 0 else -d


@nb.njit(nogil=True, cache=True, _nrt=False)
def _choose_target(units, wpn, ws, st, gdice, gblast, value, u):
    """Best enemy: first one reachable this activation, then highest value, then nearest."""
    best = -1
    best_key0 = -1
    best_val = -1.0
    best_d = FAR * 2
    for t in range(units.shape[0]):
        if units[t, U_SIDE] == units[u, U_SIDE] or not _alive(st, t):
            continue
        longest, _s = _useful_ranges(units, wpn, ws, st, gdice, gblast, u, t)
        if longest < 0:
            continue
        d = _dist(st, u, t)
        reach = 1 if d - units[u, U_MOVE] <= longest else 0
        v = value[u, t]
        better = False
        if reach > best_key0:
            better = True
        elif reach == best_key0:
            if v > best_val or (v == best_val and d < best_d):
                better = True
        if better:
            best, best_key0, best_val, best_d = t, reach, v, d
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def _move(units, st, u, t, squares, desired):
    """Move u up to ``squares`` toward t, stopping at ``desired`` range and one square short of
    the nearest enemy ahead. Returns True if it moved."""
    d = _dist(st, u, t)
    step = d - desired
    if step > squares:
        step = squares
    side = units[u, U_SIDE]
    direction = 1 if side == 0 else -1
    for e in range(units.shape[0]):
        if units[e, U_SIDE] == side or not _alive(st, e):
            continue
        gap = (st[e, ST_X] - st[u, ST_X]) * direction - 1
        if gap < step:
            step = gap
    if step <= 0:
        return False
    st[u, ST_X] += direction * step
    st[u, ST_MOVED] = 1
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _fire(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups, tspec, cfg,
          u, t, variant, moved, cc, suppress, rows, spec, res):
    """Build and resolve one attack of u's weapons of one class (ranged or close combat) on t.

    Returns (pos, fired); the outcome is left in ``res`` (not applied to the state)."""
    d = _dist(st, u, t)
    ng = 0
    if units[t, U_SQUAD] != 0:
        mini = st[t, ST_MODELS] + (1 if st[t, ST_HERO] > 0 else 0)
    elif units[t, U_SUPPORT] != 0:
        mini = st[t, ST_SINGLE]
    else:
        mini = 1
    for w in range(units[u, U_W0], units[u, U_W1]):
        if not _can_fire(units, wpn, ws, st, gdice, gblast, w, t, d, cc):
            continue
        c = _carriers(units, wpn, st, w)
        if gblast[w, t] > 0:
            n = gblast[w, t] * mini * c
        else:
            n = gdice[w, t] * c
        if wpn[w, W_SETUP] != 0 and moved:
            n = (n + 1) // 2
        if wpn[w, W_BURST] != 0 and cfg[C_BURST] != 0 and st[t, ST_MOVED] == 0:
            n *= 2
        # the weapon is spent even if the target dies before its dice (simultaneous fire)
        if ws[w, WS_AMMO] > 0:
            ws[w, WS_AMMO] -= 1
        if wpn[w, W_RELOAD] != 0:
            ws[w, WS_LOADED] = 0
        if n <= 0:
            continue
        for k in range(groups.shape[3]):
            rows[ng, k] = groups[w, t, variant, k]
        rows[ng, G_DICE] = n
        ng += 1
    if ng == 0:
        return pos, False
    for k in range(spec.shape[0]):
        spec[k] = tspec[t, k]
    spec[S_MODELS] = st[t, ST_MODELS]
    spec[S_SINGLE] = st[t, ST_HERO] if units[t, U_SQUAD] != 0 else st[t, ST_SINGLE]
    spec[S_TOKEN] = st[t, ST_TOK]
    if not suppress or units[t, U_IMMUNE] != 0:
        spec[S_SUPP] = 0
    pos = _trial(rng, buf, pos, scripted, spec, rows, 0, ng, res)
    return pos, True


@nb.njit(nogil=True, cache=True, _nrt=False)
def _apply(units, st, t, res, cfg):
    st[t, ST_MODELS] -= res[2]
    if units[t, U_SQUAD] != 0:
        st[t, ST_HERO] -= res[3]
    else:
        st[t, ST_SINGLE] -= res[3]
    if cfg[C_SUPP] != 0 and units[t, U_IMMUNE] == 0:
        st[t, ST_TOK] = res[4]


@nb.njit(nogil=True, cache=True, _nrt=False)
def _attack(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups, tspec, cfg,
            u, t, sustained, moved, allow_cc, rows, spec, res, res2):
    """One Attack (or Sustained Attack) of u on t: ranged weapons, then close combat with the
    target's retaliation (both resolved before either's casualties are removed)."""
    variant = 1 if sustained else 0
    pos, fired = _fire(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                       tspec, cfg, u, t, variant, moved, False, True, rows, spec, res)
    if fired:
        _apply(units, st, t, res, cfg)
    if not allow_cc or not _alive(st, t) or _dist(st, u, t) != 1:
        return pos
    cc_variant = 0 if fired else variant  # one part of a Sustained Attack is sustained
    pos, hit_back = _fire(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                          tspec, cfg, u, t, cc_variant, moved, True, False, rows, spec, res)
    retaliated = False
    if hit_back:
        pos, retaliated = _fire(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast,
                                groups, tspec, cfg, t, u, 0, False, True, False, rows, spec,
                                res2)
        _apply(units, st, t, res, cfg)
        if retaliated:
            _apply(units, st, u, res2, cfg)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _removal_roll(rng, buf, pos, scripted, units, st, cfg, u):
    """Under Fire / Suppression removal at activation (1947 L741): 2+ successes clear all,
    one success steps down one level."""
    if cfg[C_SUPP] == 0 or st[u, ST_TOK] == 0:
        return pos
    s, pos = _count(rng, buf, pos, scripted, cfg[C_P], units[u, U_SUPP_DICE])
    if s >= 2:
        st[u, ST_TOK] = 0
    elif s == 1:
        st[u, ST_TOK] -= 1
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _react(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups, tspec, cfg,
           value, mover, rows, spec, res, res2):
    """A reactive attack on ``mover`` by the best unactivated enemy that can hurt it in
    range 4 (``U_REACT_RANGE``, 0 for a unit that never reacts); never in close combat."""
    best = -1
    best_val = -1.0
    for r in range(units.shape[0]):
        if units[r, U_SIDE] == units[mover, U_SIDE] or not _alive(st, r):
            continue
        if st[r, ST_ACT] != 0 or units[r, U_REACT_RANGE] == 0:
            continue
        d = _dist(st, r, mover)
        if d > units[r, U_REACT_RANGE]:
            continue
        ok = False
        for w in range(units[r, U_W0], units[r, U_W1]):
            if _can_fire(units, wpn, ws, st, gdice, gblast, w, mover, d, False):
                ok = True
                break
        if ok and value[r, mover] > best_val:
            best, best_val = r, value[r, mover]
    if best < 0:
        return pos
    r = best
    st[r, ST_ACT] = 1
    pos = _removal_roll(rng, buf, pos, scripted, units, st, cfg, r)
    n = cfg[C_REACT_DICE]
    if cfg[C_SUPP] != 0 and st[r, ST_TOK] == 2:
        n = 1  # still suppressed: one reactive die (1947 L747)
    s, pos = _count(rng, buf, pos, scripted, cfg[C_P], n)
    if s >= 2:
        pos = _attack(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                      tspec, cfg, r, mover, True, False, False, rows, spec, res, res2)
    elif s == 1:
        pos = _attack(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                      tspec, cfg, r, mover, False, False, False, rows, spec, res, res2)
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _activate(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups, tspec, cfg,
              value, u, rows, spec, res, res2):
    """Two actions of unit u under the approach policy (see :mod:`dustsim.play.duel`)."""
    st[u, ST_ACT] = 1
    pos = _removal_roll(rng, buf, pos, scripted, units, st, cfg, u)
    suppressed = cfg[C_SUPP] != 0 and st[u, ST_TOK] == 2
    t = _choose_target(units, wpn, ws, st, gdice, gblast, value, u)
    if t < 0:
        return pos  # nothing it can hurt: Nothing + Nothing
    longest, shortest = _useful_ranges(units, wpn, ws, st, gdice, gblast, u, t)
    desired = longest if cfg[C_APPROACH] == 0 else shortest
    mv = units[u, U_MOVE]
    d = _dist(st, u, t)
    if suppressed:  # first action Nothing (1947 L745); then Attack if possible, else Move
        if d <= longest:
            pos = _attack(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                          tspec, cfg, u, t, False, False, False, rows, spec, res, res2)
        else:
            _move(units, st, u, t, mv, desired)
        return pos
    aircraft = units[u, U_AIR] != 0  # aircraft Move before anything else (1947 L516)
    if d <= desired and not aircraft:
        unloaded = False
        for w in range(units[u, U_W0], units[u, U_W1]):
            if wpn[w, W_RELOAD] != 0 and ws[w, WS_LOADED] == 0 and _hurts(gdice, gblast, w, t):
                unloaded = True
        if unloaded:  # Reload + Attack (1947 L3304-3306)
            for w in range(units[u, U_W0], units[u, U_W1]):
                if wpn[w, W_RELOAD] != 0:
                    ws[w, WS_LOADED] = 1
            return _attack(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                           tspec, cfg, u, t, False, False, True, rows, spec, res, res2)
        return _attack(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                       tspec, cfg, u, t, True, False, True, rows, spec, res, res2)
    # Move + Attack, or a March Move: one Move, then a reaction may come (1947 L797-811)
    _move(units, st, u, t, mv, desired)
    pos = _react(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups, tspec,
                 cfg, value, u, rows, spec, res, res2)
    if not _alive(st, u):
        return pos
    if aircraft or d - mv <= longest:
        if _alive(st, t):
            pos = _attack(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                          tspec, cfg, u, t, False, True, True, rows, spec, res, res2)
    else:
        _move(units, st, u, t, units[u, U_MARCH] - mv, desired)  # the rest of the March
    return pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _unactivated(units, st, side):
    n = 0
    for u in range(units.shape[0]):
        if units[u, U_SIDE] == side and st[u, ST_ACT] == 0 and _alive(st, u):
            n += 1
    return n


@nb.njit(nogil=True, cache=True, _nrt=False)
def _initiative(rng, buf, pos, scripted, cfg):
    """Side that activates first this turn: forced, or by the roll (ties: compare the second
    symbol where the ruleset has one, then re-roll)."""
    if cfg[C_INIT] == 1:
        return 0, pos
    if cfg[C_INIT] == 2:
        return 1, pos
    for _ in range(MAX_REROLLS):
        pa, ta, pos = _roll_pt(rng, buf, pos, scripted, cfg[C_INIT_DICE], cfg[C_P], cfg[C_T])
        pb, tb, pos = _roll_pt(rng, buf, pos, scripted, cfg[C_INIT_DICE], cfg[C_P], cfg[C_T])
        if pa != pb:
            return (0 if pa > pb else 1), pos
        if cfg[C_TIEBREAK] != 0 and ta != tb:
            return (0 if ta > tb else 1), pos
        if scripted and pos > buf.shape[0]:
            break
    return 0, pos


@nb.njit(nogil=True, cache=True, _nrt=False)
def _engagement(rng, buf, pos, scripted, units, wpn, gdice, gblast, groups, tspec, cfg, value,
                st, ws, rows, spec, res, res2, out):
    """One duel from the start. out: [winner (0 A, 1 B, 2 none), turn it ended]."""
    U = units.shape[0]
    for u in range(U):
        st[u, ST_MODELS] = units[u, U_MODELS]
        st[u, ST_HERO] = units[u, U_HERO]
        st[u, ST_SINGLE] = units[u, U_SINGLE]
        st[u, ST_TOK] = 0
        st[u, ST_X] = 0 if units[u, U_SIDE] == 0 else cfg[C_DIST]
        st[u, ST_ACT] = 0
        st[u, ST_MOVED] = 0
    for w in range(wpn.shape[0]):
        ws[w, WS_AMMO] = wpn[w, W_AMMO]
        ws[w, WS_LOADED] = 1
    for turn in range(1, cfg[C_TURNS] + 1):
        for u in range(U):
            st[u, ST_ACT] = 0
            st[u, ST_MOVED] = 0
        side, pos = _initiative(rng, buf, pos, scripted, cfg)
        while True:
            na = _unactivated(units, st, side)
            no = _unactivated(units, st, 1 - side)
            if na == 0 and no == 0:
                break
            if na == 0 or (cfg[C_PASS] != 0 and na < no):
                side = 1 - side  # nothing left, or a pass (fewer unactivated units, L341)
                continue
            u = -1
            for k in range(U):
                if units[k, U_SIDE] == side and st[k, ST_ACT] == 0 and _alive(st, k):
                    u = k
                    break
            pos = _activate(rng, buf, pos, scripted, units, wpn, ws, st, gdice, gblast, groups,
                            tspec, cfg, value, u, rows, spec, res, res2)
            a_left = _side_alive(units, st, 0)
            b_left = _side_alive(units, st, 1)
            if a_left == 0 or b_left == 0:
                out[0] = 2 if a_left == b_left else (0 if b_left == 0 else 1)
                out[1] = turn
                return pos
            side = 1 - side
    out[0] = 2
    out[1] = cfg[C_TURNS]
    return pos


@nb.njit(nogil=True, cache=True)
def _scratch(wpn, groups, tspec):
    """Work arrays of one engagement loop: weapon state, attack rows, spec, two results,
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
    st = np.zeros((U, 7), np.int64)
    ws, rows, spec, res, res2, out = _scratch(wpn, groups, tspec)
    for _ in range(n):
        pos = _engagement(rng, buf, pos, False, units, wpn, gdice, gblast, groups, tspec, cfg,
                          value, st, ws, rows, spec, res, res2, out)
        outcome[out[0]] += 1
        turns[out[0], out[1]] += 1
        lost_a = 0.0
        lost_b = 0.0
        na = 0
        nb_ = 0
        for u in range(U):
            s = st[u, ST_MODELS] + st[u, ST_HERO] + st[u, ST_SINGLE]
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
    ws, rows, spec, res, res2, o = _scratch(wpn, groups, tspec)
    pos = _engagement(rng, faces, 0, True, units, wpn, gdice, gblast, groups, tspec, cfg,
                      value, st[:U], ws, rows, spec, res, res2, o)
    out[0] = o[0]
    out[1] = o[1]
    out[2] = min(pos, faces.shape[0])
    out[3] = 1 if pos > faces.shape[0] else 0
