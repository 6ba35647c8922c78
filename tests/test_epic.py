"""Dust Epic battles: hand-checked small battles, Markov chain vs Monte Carlo, rules counted
exactly, the optimiser and the CLI."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from scipy import stats

from dustsim.cli.shell import main
from dustsim.errors import DustsimError
from dustsim.play import epic

T = 1 / 3
M = 2 / 3  # a die misses


def test_figures_come_from_the_data_file():
    f = epic.figures()
    assert (f["tank"].cost, f["tank"].combat_value, f["tank"].tactical_supremacy) == (2, 1, 0)
    assert (f["bomber"].cost, f["bomber"].combat_value) == (6, 2)


def test_one_tank_against_one_tank_by_hand():
    r = epic.solve(epic.Battle(epic.parse_army("1 tank"), epic.parse_army("1 tank")))
    # TS tie -> the defender rolls first: hit; miss, attacker hit; miss, miss, defender hit;
    # three misses -> cease-fire
    assert r.p_defender_wins == pytest.approx(T + M * M * T)
    assert r.p_attacker_wins == pytest.approx(M * T)
    assert r.p_ceasefire == pytest.approx(M**3)
    assert r.survivors_attacker["tank"] == pytest.approx(M * T + M**3)  # wins, or retreats
    assert r.pp_lost_attacker == pytest.approx(2 * (T + M * M * T))


def test_a_battle_at_a_capital_by_hand():
    # the defender of a capital rolls first with 1 + 5 bonus dice, every roll
    r = epic.battle("1 mech", "1 tank", capital=True)
    d6 = 1 - M**6
    a2 = 1 - M**2  # a mech rolls 2 dice
    assert r.p_defender_wins == pytest.approx(d6 + M**6 * M**2 * d6)
    assert r.p_attacker_wins == pytest.approx(M**6 * a2)
    assert r.p_ceasefire == pytest.approx(M**6 * M**2 * M**6)
    # a production centre: +3, not cumulative with a capital
    pc = epic.battle("1 tank", "1 tank", production_centre=True)
    assert pc.p_defender_wins == pytest.approx(1 - M**4 + M**4 * M * (1 - M**4))


def test_tactical_supremacy_decides_who_rolls_first():
    # 1 mech (TS 1) vs 1 tank (TS 0): the attacker rolls first with 2 dice
    r = epic.battle("1 mech", "1 tank")
    assert r.p_attacker_wins == pytest.approx(1 - M**2 + M**2 * M * (1 - M**2))


def test_casualty_restrictions_are_counted_exactly():
    # tanks before mechs, fighters before bombers, whatever the policy prefers
    for policy in epic.CASUALTY_POLICIES:
        army, removed = epic.remove((2, 1, 1, 1, 0), 3, policy)
        assert removed[1] <= 0 or removed[0] == 2  # a mech only once both tanks are gone
        assert removed[3] <= 0 or removed[2] == 1
        assert sum(removed) == 3 and sum(army) == 2
    assert epic.remove((1, 1, 0, 0, 0), 1, "costliest")[1] == (1, 0, 0, 0, 0)
    assert epic.remove((0, 1, 1, 1, 0), 1, "firepower")[1] == (0, 1, 0, 0, 0)
    assert epic.remove((0, 1, 1, 1, 0), 2, "costliest")[1] == (0, 1, 1, 0, 0)
    assert epic.remove((1, 0, 0, 0, 0), 5)[1] == (1, 0, 0, 0, 0)  # extra hits are wasted
    # the rulebook's example (L668-676): 2 hits on 2 tanks, a mech, a fighter, a bomber
    # cannot take the mech while tanks live; fighter then bomber is legal
    army, removed = epic.remove((2, 1, 1, 1, 0), 2, "costliest")
    assert removed == (0, 0, 1, 1, 0)


def test_ceasefire_counts_three_hitless_rolls():
    # 1 tank vs 1 tank: every path to a cease-fire is three misses in a row
    r = epic.solve(epic.Battle((1, 0, 0, 0, 0), (1, 0, 0, 0, 0)))
    assert r.p_ceasefire == pytest.approx(M**3)
    # sea: three hitless *pairs*
    s = epic.battle("1 submarine", "1 submarine", kind="sea")
    pair_miss = M * M
    assert s.p_ceasefire == pytest.approx(pair_miss**3)
    both = T * T  # simultaneous hits destroy both: a draw
    assert s.p_draw == pytest.approx(both * sum(pair_miss**i for i in range(3)))
    # amphibious: a cease-fire destroys the attackers
    a = epic.battle("1 tank", "1 tank", kind="amphibious")
    assert a.p_ceasefire == pytest.approx(M**3)
    assert a.survivors_attacker["tank"] == pytest.approx(M * T)


@pytest.mark.parametrize("attacker, defender, setting", [
    ("4 tank", "3 tank", {}),
    ("6 tank, 2 mech, 2 fighter, 1 bomber", "5 tank, 1 mech, 2 fighter", {"capital": True}),
    ("5 tank, 2 mech, 1 fighter", "6 tank, 1 fighter", {"kind": "amphibious"}),
    ("5 tank, 2 mech, 1 fighter", "6 tank, 2 fighter", {"retreat": "outgunned",
                                                       "production_centre": True}),
    ("4 tank, 2 fighter, 1 bomber", "5 tank, 2 mech",
     {"abilities_attacker": ("ace-of-the-sky", "sigrid"), "abilities_defender": ("nurse",),
      "casualties": "cheapest"}),
    ("5 submarine", "4 submarine", {"kind": "sea", "abilities_defender": ("nurse",)}),
])
def test_markov_chain_agrees_with_monte_carlo(attacker, defender, setting):
    ex = epic.battle(attacker, defender, engine="exact", **setting)
    mc = epic.battle(attacker, defender, engine="mc", trials=100_000, seed=7, **setting)
    assert ex.extra["total_probability"] == pytest.approx(1, abs=1e-9)
    for k in ("p_attacker_wins", "p_defender_wins", "p_ceasefire", "p_draw"):
        p = getattr(ex, k)
        se = math.sqrt(max(p * (1 - p), 1e-12) / mc.trials)
        assert abs(getattr(mc, k) - p) <= 5 * se + 1e-12, k
    # expected PP lost: per-trial values are bounded by the army's cost
    bound = epic.cost(ex.battle.attacker) / math.sqrt(mc.trials)
    assert abs(mc.pp_lost_attacker - ex.pp_lost_attacker) <= 5 * bound


def test_monte_carlo_is_reproducible():
    a = epic.battle("40 tank", "35 tank", engine="mc", trials=5000, seed=3)
    b = epic.battle("40 tank", "35 tank", engine="mc", trials=5000, seed=3)
    c = epic.battle("40 tank", "35 tank", engine="mc", trials=5000, seed=4)
    assert a.to_dict() == b.to_dict() and a.p_attacker_wins != c.p_attacker_wins
    assert epic.battle("40 tank", "35 tank").engine == "mc"  # auto: beyond 30 figures


def test_special_attacks():
    s = epic.special_attack("bomber", 2, "3 submarine")
    assert s["dice"] == 4
    assert s["p_destroyed"][0] == pytest.approx(M**4)
    assert sum(s["p_destroyed"]) == pytest.approx(1)
    # submarine attack respects the ordering rules: no mech while a tank lives
    sub = epic.special_attack("submarine", 3, "1 tank, 2 mech", casualties="costliest")
    assert sub["expected_losses"]["tank"] == pytest.approx(1 - M**3)
    m = epic.special_attack("missile", 0, "1 tank, 2 mech", casualties="costliest")
    assert m["expected_losses"]["mech"] == pytest.approx(stats.binom(3, T).mean() -
                                                          stats.binom(3, T).pmf(3))


def test_optimiser_finds_the_best_mix():
    rows = epic.optimize(10, "2 tank")
    # the mixes enumerated by hand from the figure costs (tank 2, mech 5, fighter 3,
    # bomber 6): every land mix of 10 PP leaving less than 2 PP (the tank) unspent
    costs = {"tank": 2, "mech": 5, "fighter": 3, "bomber": 6}
    assert {n: epic.figures()[n].cost for n in costs} == costs
    by_hand = set()
    for t in range(6):
        for m in range(3):
            for f in range(4):
                for b in range(2):
                    c = 2 * t + 5 * m + 3 * f + 6 * b
                    if c <= 10 and 10 - c < 2 and t + m + f + b:
                        by_hand.add((t, m, f, b, 0))
    assert {tuple(r[k] for k in epic.TYPES) for r in rows} == by_hand
    # each P(win) from its own battle, and the order checked against those values:
    # P(win) never increases down the list; equal P(win), the cheaper mix first
    direct = {r["mix"]: epic.battle(r["mix"], "2 tank").p_attacker_wins for r in rows}
    assert all(r["p_win"] == pytest.approx(direct[r["mix"]]) for r in rows)
    assert max(direct.values()) == pytest.approx(rows[0]["p_win"])
    for a, b in itertools.pairwise(rows):
        assert direct[a["mix"]] >= direct[b["mix"]] - 1e-12
        if abs(direct[a["mix"]] - direct[b["mix"]]) < 1e-12:
            assert a["cost"] <= b["cost"]
    best = rows[0]
    direct = epic.battle(best["mix"], "2 tank")
    assert best["p_win"] == pytest.approx(direct.p_attacker_wins)
    assert all(10 - r["cost"] < 2 for r in rows)
    d = epic.optimize(10, "2 tank", side="defender")
    assert d[0]["p_win"] == pytest.approx(1 - epic.battle("2 tank", d[0]["mix"]).p_attacker_wins)
    with pytest.raises(DustsimError, match="below the cheapest"):
        epic.optimize(1, "2 tank")


def test_bad_armies_are_one_line_errors():
    for text, word in [("4 tonk", "unknown figure"), ("-1 tank", "negative"),
                       ("tank", "COUNT FIGURE"), ("61 tank", "limit"), ("0 tank", "at least")]:
        with pytest.raises(DustsimError, match=word):
            epic.parse_army(text)
    with pytest.raises(DustsimError, match="submarines"):
        epic.battle("2 submarine", "1 tank")
    with pytest.raises(DustsimError, match="retreat"):
        epic.battle("2 tank", "1 tank", retreat="sometimes")


def test_cli(capsys, tmp_path):
    assert main(["epic", "battle", "4 tank", "vs", "3 tank", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"p_attacker_wins", "p_defender_wins", "p_ceasefire"} <= set(d)
    assert d["p_attacker_wins"] + d["p_defender_wins"] + d["p_ceasefire"] == pytest.approx(1)
    for bad in (["epic", "battle", "4 tonk", "vs", "3 tank"],
                ["epic", "battle", "-4 tank", "vs", "3 tank"],
                ["epic", "optimize", "--budget", "1", "--vs", "3 tank"]):
        assert main(bad) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("dustsim: error:") and "\n" not in err
    chart = tmp_path / "mix.png"
    assert main(["epic", "optimize", "--budget", "12", "--vs", "2 tank", "--chart", str(chart),
                 "--json"]) == 0
    assert chart.exists() and json.loads(capsys.readouterr().out)[0]["p_win"] > 0.5
    assert main(["epic", "optimize", "--budget", "12", "--vs", "2 tank", "--chart",
                 str(chart)]) == 2  # no overwrite without --force
