"""Balance-table invariants, MC against exact tables, and the benchmark smoke run."""

from dataclasses import replace

import numpy as np
import pytest

from dustsim.data.cards import COLUMNS, find_card, parse_cell
from dustsim.review.analytics import (
    column_weights,
    fair_points,
    reference_targets,
    scores,
    unit_column_table,
    unit_unit_table,
)


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


def _with_cell(card, weapon_index, column, text):
    w = card.weapons[weapon_index]
    line = list(w.line)
    line[COLUMNS.index(column)] = parse_cell(text)
    ws = list(card.weapons)
    ws[weapon_index] = replace(w, line=tuple(line))
    return replace(card, weapons=tuple(ws))


def test_reference_targets_and_weights(d47):
    refs = reference_targets(d47)
    assert set(refs) == set(COLUMNS)
    assert refs["I2"].kind == "squad" and refs["I2"].size >= 1
    assert refs["V4"].kind == "vehicle" and refs["V4"].size >= 1
    w = column_weights(d47)
    assert sum(w.values()) == pytest.approx(1.0)


def test_adding_a_die_never_lowers_a_score(d47):
    pounder = find_card(d47, "Pounder")
    base = unit_column_table([pounder])
    for col in ("I2", "V4", "A1"):
        cell = pounder.weapons[1].cell(col)
        if not cell.usable or cell.blast:
            continue
        more = _with_cell(pounder, 1, col, f"{cell.dice + 1}/{cell.text.split('/')[1]}")
        after = unit_column_table([more])
        key = ["column", "action", "cover"]
        a = base.set_index(key)["mean_damage"]
        b = after.set_index(key)["mean_damage"]
        assert (b.loc[col] >= a.loc[col] - 1e-12).all()
        assert (b.loc[col] > a.loc[col]).any()


def test_cannot_hurt_scores_zero_and_per_ap_scales(d47):
    pounder = find_card(d47, "Heavy Laser Grenadier Squad")
    t = unit_column_table([pounder])
    cannot = [c for c in COLUMNS if all(not w.cell(c).can_damage for w in pounder.weapons
                                        if not w.optional)]  # close combat included
    # V7 is 1/1 in DUST ENLIST ('-' in BattleScribe): the merged card uses ENLIST (issue 12)
    assert cannot == ["A1", "A2", "A3"]
    assert (t[t["column"].isin(cannot)]["mean_damage"] == 0).all()
    dear = replace(pounder, ap=pounder.ap * 2)
    t2 = unit_column_table([dear])
    np.testing.assert_allclose(t2["mean_damage_per_ap"], t["mean_damage_per_ap"] / 2)
    np.testing.assert_allclose(t2["mean_damage"], t["mean_damage"])


def test_mc_table_agrees_with_exact(d47):
    cards = [find_card(d47, n) for n in ("Pounder", "Heavy Laser Grenadier Squad", "Ludwig")]
    ex = unit_column_table(cards)
    mc = unit_column_table(cards, engine="mc", trials=20_000, seed=5)
    ok = ex["mean_damage"] > 0
    z = (mc["mean_damage"][ok] - ex["mean_damage"][ok]) / mc["se_damage"][ok]
    assert np.abs(z).max() < 5.5  # ~200 figures: 5 sigma each, plus a little for the maximum
    assert (mc["mean_damage"][~ok].fillna(0) == 0).all()
    # scores from the MC table carry error bars that cover the exact offence
    uu = unit_unit_table(cards)
    sx, sm = scores(ex, uu, cards).set_index("unit"), scores(mc, uu, cards).set_index("unit")
    assert "offence_se" not in sx and (sm["offence_se"] > 0).all()
    z = (sm["offence"] - sx["offence"]) / sm["offence_se"]
    assert z.abs().max() < 5
    np.testing.assert_allclose(sm["composite_se"],
                               sm["offence_se"] / sm["ap"] * sm["durability_per_ap"])


def test_scores_and_fair_points(d47):
    cards = d47[:60]
    uc = unit_column_table(cards)
    uu = unit_unit_table(d47, cards)
    sc = scores(uc, uu, d47)
    assert {"offence_per_ap", "durability_per_ap", "composite", "rank_composite"} <= set(sc)
    finite = sc[np.isfinite(sc["composite"])]
    np.testing.assert_allclose(finite["composite"],
                               finite["offence_per_ap"] * finite["durability_per_ap"])
    for g in ("bloc", "faction", "kind"):  # rank 1 is the group's best composite
        best = sc.loc[sc.groupby(g, dropna=False)["composite"].idxmax()]
        assert (best[f"rank_in_{g}"] == 1).all()
    fp = fair_points(sc)
    assert fp["fair_ap"].notna().sum() >= 5
    inband = fp.dropna(subset=["fair_ap"])
    assert ((inband["fair_low"] <= inband["fair_ap"])
            & (inband["fair_ap"] <= inband["fair_high"])).all()


@pytest.mark.slow
def test_benchmark_ratios_are_the_ratios_of_their_figures():
    """Each ratio the bench reports is the quotient of the two figures it names, measured in
    the same run (a mislabelled or mis-wired ratio fails), and each goal's verdict follows
    its value."""
    from dustsim.bench import BenchResult, representative_mix, run

    assert len(representative_mix()) == 5
    r = {x.name: x.value for x in run(quick=True)}
    uni = r["uniform draws, tight Numba loop (PCG64)"]
    ker = r["kernel throughput (mix, 1 thread)"]
    assert r["kernel / numpy (1 thread each)"] == pytest.approx(
        ker / r["numpy per-die baseline (1 thread)"])
    assert r["attacks/s / uniform draws/s (1 thread)"] == pytest.approx(ker / uni)
    assert r["duels/s / uniform draws/s (1 thread)"] == pytest.approx(
        r["duels/s (Ludwig vs Pounder + Rangers, 1 thread)"] / uni)
    assert r["epic battles/s / uniform draws/s (1 thread)"] == pytest.approx(
        r["epic Monte Carlo battles/s (30 figures a side, 1 thread)"] / uni)
    assert BenchResult("probe", 1.0, "x", ">= 2").status == "FAIL"
    assert BenchResult("probe", 3.0, "x", ">= 2").status == "PASS"
