"""The one result API (dustsim.engines.results): summary(), to_frame(), se(name)."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import dustsim
from dustsim import api
from dustsim.engines.results import FRAME_COLUMNS
from dustsim.errors import DustsimError

COLUMNS = ["quantity", "side", "unit", "k", "value", "se"]


def _conforms(r) -> None:
    """Frozen, a flat summary, the tidy frame, se() on every figure it lists."""
    assert dataclasses.is_dataclass(r) and type(r).__dataclass_params__.frozen
    s = r.summary()
    assert all(isinstance(k, str) and isinstance(v, (int, float, str)) for k, v in s.items())
    f = r.to_frame()
    assert list(f.columns) == COLUMNS == list(FRAME_COLUMNS)
    figures = f[f["k"].isna() & (f["side"] == "") & (f["unit"] == "")]
    for q, v in zip(figures["quantity"], figures["value"], strict=True):
        assert q in s and (v == s[q] or (math.isnan(v) and math.isnan(s[q])))
        r.se(q)  # every figure of the frame has a standard error (NaN if not estimated)
    with pytest.raises(DustsimError, match="valid names: "):
        r.se("no_such_figure")


def test_exact_attack_by_hand():
    # 3 dice hitting infantry on a P face only (1/3 each), I2 in the open saves nothing
    # that this test relies on: mean hits 3 x 1/3 = 1, P(0 hits) = (2/3)^3
    r = api.attack("3/1", target="I2", models=5)
    _conforms(r)
    s = r.summary()
    assert s["mean_hits"] == pytest.approx(1.0)
    assert r.se("mean_hits") == 0.0 and r.se("p_destroyed") == 0.0
    f = r.to_frame()
    hits = f[f["quantity"] == "hits"]
    assert hits["k"].tolist() == [0, 1, 2, 3]
    assert hits["value"].tolist() == pytest.approx([8 / 27, 12 / 27, 6 / 27, 1 / 27])
    assert f["se"].isna().all()  # exact: no standard error in the frame
    assert "pmf_damage" in r.to_dict() and "pmf_damage" not in s


def test_monte_carlo_attack_standard_errors():
    n = 20_000
    r = api.attack("3/1", target="I2", models=5, engine="mc", trials=n, seed=3)
    _conforms(r)
    s = r.summary()
    # 3 dice, each hitting with 1/3: Var(hits) = 3 x 1/3 x 2/3 = 2/3 -> SE = sqrt(2/3 / n)
    assert r.se("mean_hits") == pytest.approx(math.sqrt(2 / 3 / n), rel=0.05)
    assert abs(s["mean_hits"] - 1.0) < 5 * r.se("mean_hits")
    p = s["p_token_none"]
    assert r.se("p_token_none") == pytest.approx(math.sqrt(p * (1 - p) / n))
    assert r.hits.se("mean") == r.hits.mean_se
    with pytest.raises(DustsimError, match="valid names: mean"):
        r.hits.se("median")


def test_distribution_frame():
    d = api.attack("2/1", target="I2", models=5).hits
    f = d.to_frame()
    assert list(f.columns) == COLUMNS
    assert f["value"].tolist() == pytest.approx([2 / 3, 4 / 9, 4 / 9, 1 / 9])  # mean, pmf
    assert d.summary()["trials"] == 0 and d.se("mean") == 0.0


def test_epic_battle_result(tmp_path):
    r = api.epic_battle("3 tanks", "2 tanks, 1 mech", engine="exact")
    _conforms(r)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.p_draw = 1.0
    s = r.summary()
    assert s["p_a_wins"] == s["p_attacker_wins"] and s["p_b_wins"] == s["p_defender_wins"]
    assert r.se("p_a_wins") == 0.0
    n = 4000
    m = api.epic_battle("3 tanks", "2 tanks, 1 mech", engine="mc", trials=n, seed=1)
    _conforms(m)
    p = m.p_a_wins
    assert m.se("p_a_wins") == pytest.approx(math.sqrt(p * (1 - p) / n))
    assert abs(p - r.p_a_wins) < 5 * m.se("p_a_wins")
    with pytest.warns(DeprecationWarning):
        assert m.se(p) == m.se("p_a_wins")


def test_duel_and_list_battle_results(all_cards):
    n = 3000
    r = api.duel("Ludwig", "Pounder", cards=all_cards, scenario="line", trials=n, seed=1,
                 turns=2)
    _conforms(r)
    p = r.p_draw
    assert r.se("p_draw") == pytest.approx(math.sqrt(p * (1 - p) / n))
    with pytest.warns(DeprecationWarning):
        assert r.se("none") == r.se("p_draw")
    f = r.to_frame()
    left = f[(f["quantity"] == "left") & (f["unit"] == "Pounder")]
    assert left["side"].unique().tolist() == ["B"]
    assert left["value"].sum() == pytest.approx(1.0)


def test_value_model_result():
    from dustsim.review.value import Mapping, ValueModel, ValueSettings

    table = pd.DataFrame({"unit": ["X", "Y"], "strength": [1.0, 2.0],
                          "strength_se": [0.1, 0.2], "fair_ap": [10.0, 20.0],
                          "judged": [True, False], "verdict": ["in band", "not judged"]})
    boot = ((1.0, 2.0), (1.5, 2.5), (2.0, 1.5))
    m = ValueModel(table, pd.DataFrame(), (), Mapping(1.5, 2.0, 2, 1.0, 1.0, boot),
                   ValueSettings())
    _conforms(m)
    assert m.se("mapping_a") == pytest.approx(np.std([1.0, 1.5, 2.0], ddof=1))
    s = m.summary()
    assert (s["cards"], s["judged"], s["cards_in_band"]) == (2, 1, 1)
    f = m.to_frame()
    st = f[f["quantity"] == "strength"]
    assert st["unit"].tolist() == ["X", "Y"] and st["se"].tolist() == [0.1, 0.2]


def test_curated_api():
    assert set(dustsim._API) | {"DEFAULT_TRIALS"} == set(api.__all__)
    for name in api.__all__:
        assert getattr(dustsim, name) is getattr(api, name)
    with pytest.raises(AttributeError):
        dustsim.no_such_thing  # noqa: B018


def test_default_trials_everywhere():
    import inspect

    from dustsim.play import list_battles
    from dustsim.review import sweep

    sig = lambda f: inspect.signature(f).parameters["trials"].default  # noqa: E731
    assert sig(list_battles.play_lists) == dustsim.DEFAULT_TRIALS
    assert sig(list_battles.meta) == dustsim.META_TRIALS
    assert sig(sweep.sweep) == dustsim.SWEEP_TRIALS
