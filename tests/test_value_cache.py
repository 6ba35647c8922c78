"""The value model's disk cache (dustsim.review.value_cache): a hit is the model a fresh run
computes, any change of cards or settings misses, and the switch turns it off."""

from dataclasses import replace

import pandas as pd
import pytest

from dustsim.review import value_cache as VC
from dustsim.review.value import ValueSettings, clear_cache

NAMES = ("Pounder", "Ludwig", "Heavy Laser Grenadier Squad", "Rhino", "Koshka")


@pytest.fixture
def few(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947" and c.name in NAMES]


def _frames_equal(a, b):
    pd.testing.assert_frame_equal(a.table, b.table, check_exact=True)
    pd.testing.assert_frame_equal(a.engagements, b.engagements, check_exact=True)
    assert a.mapping == b.mapping and a.settings == b.settings and a.cards == b.cards


def test_hit_is_the_fresh_model_and_changes_miss(few, tmp_path, monkeypatch):
    monkeypatch.setenv("DUSTSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DUSTSIM_VALUE_CACHE", raising=False)
    st = ValueSettings(trials=4)
    clear_cache()
    first, hit = VC.cached_value_model(few, st)
    assert not hit and len(list(tmp_path.glob("value-*.pickle"))) == 1
    clear_cache()  # the second read cannot come from the engagement memo either
    again, hit = VC.cached_value_model(few, st)
    assert hit
    _frames_equal(first, again)
    # another printed cost, another seed: other keys, computed (and stored) afresh
    cheaper = [replace(c, ap=c.ap - 1) if c.name == "Pounder" else c for c in few]
    assert VC.key(cheaper, st) != VC.key(few, st)
    assert VC.key(few, replace(st, seed=1)) != VC.key(few, st)
    other, hit = VC.cached_value_model(cheaper, st)
    assert not hit
    row = other.table.set_index("unit").loc["Pounder"]
    assert row["ap"] == next(c for c in few if c.name == "Pounder").ap - 1
    assert len(list(tmp_path.glob("value-*.pickle"))) == 2


def test_switched_off_and_unwritable(few, tmp_path, monkeypatch):
    monkeypatch.setenv("DUSTSIM_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("DUSTSIM_VALUE_CACHE", "0")
    st = ValueSettings(trials=4)
    _, hit = VC.cached_value_model(few, st)
    assert not hit and not (tmp_path / "c").exists()
    # a cache folder that is a file: ignored, the model is computed
    (tmp_path / "f").write_text("x")
    monkeypatch.setenv("DUSTSIM_CACHE_DIR", str(tmp_path / "f"))
    monkeypatch.delenv("DUSTSIM_VALUE_CACHE")
    vm, hit = VC.cached_value_model(few, st)
    assert not hit and set(vm.table["unit"]) == set(NAMES)
    # a corrupt entry is recomputed and replaced
    monkeypatch.setenv("DUSTSIM_CACHE_DIR", str(tmp_path / "c"))
    VC.path_for(few, st).parent.mkdir(parents=True)
    VC.path_for(few, st).write_bytes(b"not a pickle")
    vm2, hit = VC.cached_value_model(few, st)
    assert not hit
    _frames_equal(vm, vm2)
    assert VC.cached_value_model(few, st)[1]
