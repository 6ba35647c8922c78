"""The consistency lens (dustsim.review.consistency): out of fold, deterministic, labelled."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dustsim.errors import DustsimError
from dustsim.review import consistency as C


@pytest.fixture(scope="module")
def sample(all_cards):
    """A fixed slice of the Dust 1947 cards (every third by name: 179 cards, all kinds)."""
    ed = sorted((c for c in all_cards if c.edition == "dust-1947"), key=lambda c: c.name)
    return ed[::3]


def _lens(cards, seed=0):
    C._MEMO.clear()
    return C.consistency(cards, seed=seed)


def test_own_price_never_in_its_training_fold(sample):
    base = _lens(sample).table.set_index("unit")
    victim = next(c for c in sample if c.ap and c.ap > 5)
    cards = [replace(c, ap=c.ap * 7) if c.name == victim.name else c for c in sample]
    after = _lens(cards).table.set_index("unit")
    # the card's own prediction ignores its own price ...
    assert after.at[victim.name, "consistency_ap"] == base.at[victim.name, "consistency_ap"]
    assert after.at[victim.name, "ap"] == victim.ap * 7
    # ... while the cards of the other folds, whose models trained on it, do move
    others = after["consistency_fold"] != after.at[victim.name, "consistency_fold"]
    moved = ~np.isclose(after.loc[others, "consistency_ap"], base.loc[others, "consistency_ap"])
    assert moved.any()
    same = (after["consistency_fold"] == after.at[victim.name, "consistency_fold"])
    np.testing.assert_array_equal(after.loc[same, "consistency_ap"],
                                  base.loc[same, "consistency_ap"])


def test_deterministic_by_seed_and_order(sample):
    a = _lens(sample, seed=3).table.set_index("unit").sort_index()
    b = _lens(list(reversed(sample)), seed=3).table.set_index("unit").sort_index()
    np.testing.assert_array_equal(a["consistency_ap"], b["consistency_ap"])
    np.testing.assert_array_equal(a["consistency_low"], b["consistency_low"])
    c = _lens(sample, seed=4).table.set_index("unit").sort_index()
    assert (a["consistency_fold"] != c["consistency_fold"]).any()


def test_interval_contains_prediction_and_folds_balanced(sample):
    lens = _lens(sample)
    t = lens.table
    priced = t[t["ap"].notna()]
    assert (t["consistency_low"] <= t["consistency_ap"]).all()
    assert (t["consistency_ap"] <= t["consistency_high"]).all()
    sizes = priced["consistency_fold"].value_counts()
    assert len(sizes) == C.FOLDS and sizes.max() - sizes.min() <= 1
    q = lens.quality()
    assert q["n"] == len(priced)
    assert 0 < q["coverage"] <= 1


def test_features_read_the_card_not_its_cost(sample):
    card = next(c for c in sample if c.ap)
    a = C.features([card, replace(card, name="x", ap=card.ap * 3)])
    np.testing.assert_array_equal(a.iloc[0].to_numpy(), a.iloc[1].to_numpy())
    assert C.skill_key("Passengers (6)") == ("passengers", 6.0)
    assert C.skill_key("Pilot: Hans")[0] == "pilot"


def test_one_edition_only(all_cards):
    mixed = [next(c for c in all_cards if c.edition == e) for e in ("dust-1947", "ffg-era")]
    with pytest.raises(DustsimError, match="one edition"):
        C.consistency(mixed * 20)
