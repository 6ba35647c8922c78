"""The battle kernel's movement search (``battle_kernel._reach``, issue 22) against a plain
Dijkstra written here from the movement rules (L461-465, L2440): every shortcut it takes (the
board's static table when no unit can bar a path, the entry tables of a unit coming on from
its edge, the search states it prunes) must give the cost a unit pays to reach each square.

Rules as the kernel's docstring states them: steps to the 8 neighbours the board allows (its
adjacency rows: passable, no wall, no impassable corner cut); entering a square costs its
move cost; a diagonal step after the first of the move costs one more (L461); never into an
enemy's square nor past an enemy's corner on a diagonal, a vehicle never into another
vehicle's square (L463-464); a unit entering the board pays the first square's cost (L2440).
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from dustsim.bench import _grid_spec
from dustsim.data.cards import load_cards
from dustsim.play import battle_kernel as BK
from dustsim.play.duel_kernel import H_ST, H_U, H_UNITS, U_SIDE


@pytest.fixture(scope="module")
def spec():
    return _grid_spec(load_cards())


def expected_costs(m, bd, u, limit):
    """Cheapest cost to each square (None above ``limit``), by Dijkstra over (square,
    diagonal used) states."""
    n = int(m[BK.R_B, BK.B_N])
    rx = int(m[0, BK.H_XU])
    cls = int(m[rx + u, BK.X_CLASS])
    fly = cls == BK.FLYING
    veh = int(m[rx + u, BK.X_KIND]) == BK.KIND_VEH
    side = int(m[m[0, H_UNITS] + u, U_SIDE])
    mc = bd[9 * n + 4 + cls]
    adj = bd[9 * n + 28 + cls * 8: 9 * n + 36 + cls * 8]
    nb = bd[9 * n + 11: 9 * n + 19]
    enemy = np.zeros(n, bool)
    vehicle = np.zeros(n, bool)
    for v in range(int(m[0, H_U])):
        s = int(m[m[0, H_ST] + v, BK.ST_SQ])
        if v == u or s < 0:
            continue
        enemy[s] = int(m[m[0, H_UNITS] + v, U_SIDE]) != side
        vehicle[s] = int(m[rx + v, BK.X_KIND]) == BK.KIND_VEH
    if fly:
        enemy[:] = False
        vehicle[:] = False
    start = int(m[m[0, H_ST] + u, BK.ST_SQ])
    best = {}
    heap = []
    if start >= 0:
        heap.append((0, start, 0))
    else:
        zone = bd[9 * n + 19 + (0 if side == m[BK.R_G, BK.G_ATT] else 1)]
        for s in range(n):
            if zone[s] and not enemy[s] and not (veh and vehicle[s]):
                heap.append((1 if fly else int(mc[s]), s, 0))
        heapq.heapify(heap)
    while heap:
        c, s, diag = heapq.heappop(heap)
        if c > limit or (s, diag) in best:
            continue
        best[(s, diag)] = c
        if enemy[s]:
            continue
        for d in range(8):
            t = int(adj[d, s])
            if t < 0 or enemy[t] or (veh and vehicle[t]):
                continue
            step = 1 if fly else int(mc[t])
            nd = diag
            if d % 2:
                if enemy[int(nb[(d + 7) % 8, s])] or enemy[int(nb[(d + 1) % 8, s])]:
                    continue
                step += diag
                nd = 1
            heapq.heappush(heap, (c + step, t, nd))
    out = [None] * n
    for (s, _), c in best.items():
        if out[s] is None or c < out[s]:
            out[s] = c
    return out


def kernel_costs(m, bd, u, limit, qb):
    BK._reach(m, bd, np.int64(u), np.int64(limit), qb)
    c = [BK._cost(m, bd, np.int64(s)) for s in range(int(m[BK.R_B, BK.B_N]))]
    return [int(x) if x <= limit else None for x in c]


def test_search_static_and_entry_tables_give_the_cheapest_moves(spec):
    rng = np.random.default_rng(22)
    n = int(spec.m[BK.R_B, BK.B_N])
    checked = 0
    for board in range(len(spec.tables)):
        bd, _, _, nobj = spec.tables[board]
        for _ in range(6):
            m = spec.m.copy()
            m[BK.R_B, BK.B_NOBJ] = nobj
            BK._reset(m)
            m[BK.R_G, BK.G_TURN] = 1
            m[BK.R_G, BK.G_ATT] = int(rng.integers(2))
            U = int(m[0, H_U])
            # some units on the board (passable squares), some still off it
            squares = rng.choice(np.flatnonzero(bd[9 * n + 4] < 99), U, replace=False)
            off = rng.random(U) < 0.3
            for u in range(U):
                m[m[0, H_ST] + u, BK.ST_SQ] = -1 if off[u] else squares[u]
            BK._occupy(m)
            _, _, qb, _ = BK._scratch(m)
            for u in range(U):
                for limit in (2, 4, 5):
                    assert kernel_costs(m, bd, u, limit, qb) == expected_costs(m, bd, u, limit)
                    checked += 1
    assert checked == len(spec.tables) * 6 * 12 * 3
