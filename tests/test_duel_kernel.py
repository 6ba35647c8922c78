"""The engagement kernel's entry point that takes the separate arrays (the value model plays
its pairings through it) against an independent expectation: in a one-turn engagement where
only the Pounder fires (one Sustained Attack, nobody reacts), what the Rangers have left is
distributed as the exact engine's models killed by that attack."""

import numba as nb
import numpy as np

from dustsim.api import unit_attack
from dustsim.data.cards import find_card
from dustsim.engines.rng import state
from dustsim.play import duel_kernel as K
from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel


@nb.njit(cache=False)  # a test kernel inlines the package kernels: no on-disk cache to go stale
def _separate(rng, n, units, wpn, gdice, gblast, groups, tspec, cfg, value, left):
    buf = np.zeros(1, np.uint8)
    st = np.zeros((units.shape[0], 7), np.int64)
    ws, rows, spec, res, res2, out = K._scratch(wpn, groups, tspec)
    for i in range(n):
        K._engagement(rng, buf, 0, False, units, wpn, gdice, gblast, groups, tspec, cfg,
                      value, st, ws, rows, spec, res, res2, out)
        for u in range(units.shape[0]):
            left[i, u] = st[u, 0] + st[u, 1] + st[u, 2]


def test_separate_arrays_entry_point_matches_the_exact_engine(all_cards):
    pounder = find_card(all_cards, "Pounder", "dust-1947")
    rangers = find_card(all_cards, "Ranger Combat Squad", "dust-1947")
    quiet = DuelPolicy(reactive="never", passing="never", initiative="a")
    spec = compile_duel([DuelUnit(pounder)], [DuelUnit(rangers)], distance=5, turns=1,
                        policy=quiet)
    n = 40_000
    left = np.zeros((n, 2), np.int64)
    _separate(state(np.random.SeedSequence(4)), n, spec.units, spec.weapons, spec.gdice,
              spec.gblast, spec.groups, spec.tspec, spec.config, spec.value, left)
    exact = unit_attack(pounder, rangers, action="sustained").models_killed.probs
    p_exact = np.zeros(rangers.models + 1)
    for k, p in enumerate(exact):
        p_exact[rangers.models - k] += p
    freq = np.bincount(left[:, 1], minlength=rangers.models + 1) / n
    se = np.sqrt(p_exact * (1 - p_exact) / n)
    assert np.all(np.abs(freq - p_exact) <= 5 * se + 1e-12), (freq, p_exact)
    assert len(set(left[:, 1])) > 1  # not a trivial engagement
