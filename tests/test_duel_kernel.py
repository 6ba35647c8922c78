"""The engagement kernel's state matrix: the packed entry point and the one that takes the
separate arrays (used by the value model) play the same duels from the same stream."""

import numba as nb
import numpy as np

from dustsim.engines.rng import state
from dustsim.play import duel_kernel as K
from dustsim.play.duel import compile_duel, parse_side


@nb.njit(cache=True)
def _separate(rng, n, units, wpn, gdice, gblast, groups, tspec, cfg, value, log):
    buf = np.zeros(1, np.uint8)
    st = np.zeros((units.shape[0], 7), np.int64)
    ws, rows, spec, res, res2, out = K._scratch(wpn, groups, tspec)
    for i in range(n):
        K._engagement(rng, buf, 0, False, units, wpn, gdice, gblast, groups, tspec, cfg,
                      value, st, ws, rows, spec, res, res2, out)
        log[i, 0] = out[0]
        log[i, 1] = out[1]
        for u in range(units.shape[0]):
            log[i, 2 + u] = st[u, 0] + st[u, 1] + st[u, 2]


@nb.njit(cache=True)
def _packed(rng, n, units, wpn, gdice, gblast, groups, tspec, cfg, value, log):
    buf = np.zeros(1, np.uint8)
    m = K._pack(units, wpn, gdice, gblast, groups, tspec, cfg)
    out = np.zeros(2, np.int64)
    for i in range(n):
        K._engage(rng, buf, 0, False, m, value, out)
        log[i, 0] = out[0]
        log[i, 1] = out[1]
        for u in range(units.shape[0]):
            log[i, 2 + u] = K._left(m, u)


def test_packed_and_separate_entry_points_agree(all_cards):
    spec = compile_duel(parse_side("Ludwig", all_cards, "dust-1947"),
                        parse_side("Ranger Combat Squad", all_cards, "dust-1947"),
                        distance=12, turns=5)
    args = (spec.units, spec.weapons, spec.gdice, spec.gblast, spec.groups, spec.tspec,
            spec.config, spec.value)
    n = 300
    logs = []
    for run in (_separate, _packed):
        log = np.zeros((n, 2 + len(spec.names)), np.int64)
        run(state(np.random.SeedSequence(4)), n, *args, log)
        logs.append(log)
    np.testing.assert_array_equal(logs[0], logs[1])
    assert len(set(logs[0][:, 0])) > 1  # both sides win some: the duels are not trivial
