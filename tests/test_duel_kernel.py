"""The engagement kernel's per-game entry point (duels, list battles and the value model play
through it) against an independent expectation: in a one-turn engagement where only the
Pounder fires (one Sustained Attack, nobody reacts), what the Rangers have left is
distributed as the exact engine's models killed by that attack."""

import numpy as np

from dustsim.api import unit_attack
from dustsim.data.cards import find_card
from dustsim.engines.rng import state
from dustsim.play import duel_kernel as K
from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel


def test_per_game_entry_point_matches_the_exact_engine(all_cards):
    pounder = find_card(all_cards, "Pounder", "dust-1947")
    rangers = find_card(all_cards, "Ranger Combat Squad", "dust-1947")
    quiet = DuelPolicy(reactive="never", passing="never", initiative="a")
    spec = compile_duel([DuelUnit(pounder)], [DuelUnit(rangers)], distance=5, turns=1,
                        policy=quiet)
    n = 40_000
    games = K.games(state(np.random.SeedSequence(4)), n, (
        spec.units, spec.weapons, spec.gdice, spec.gblast, spec.groups, spec.tspec,
        spec.config, spec.value), np.zeros(2))
    left = games[:, K.G_LEFT:].astype(np.int64)
    exact = unit_attack(pounder, rangers, action="sustained").models_killed.probs
    p_exact = np.zeros(rangers.models + 1)
    for k, p in enumerate(exact):
        p_exact[rangers.models - k] += p
    freq = np.bincount(left[:, 1], minlength=rangers.models + 1) / n
    se = np.sqrt(p_exact * (1 - p_exact) / n)
    assert np.all(np.abs(freq - p_exact) <= 5 * se + 1e-12), (freq, p_exact)
    assert len(set(left[:, 1])) > 1  # not a trivial engagement
