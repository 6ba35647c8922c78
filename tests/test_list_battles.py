"""List against list (N units a side) and the meta: seeding, symmetry, Monte Carlo against
the exact engine, the CLI."""

from __future__ import annotations

import json
import math
from concurrent.futures import CancelledError
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

from dustsim.army.lists import ArmyList, ListUnit, load_list, parse_list_toml
from dustsim.cli.shell import main
from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.engines.exact import evaluate
from dustsim.errors import DustsimError
from dustsim.play.duel import DuelPolicy
from dustsim.play.list_battles import compile_lists, meta, meta_matrix, meta_standings, play_lists
from dustsim.rules.attack import Situation, compile_attack, target_from_card

EXAMPLES = ROOT / "examples" / "lists"


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


@pytest.fixture(scope="module")
def big(d47):
    """Fifteen units a side."""
    a = parse_list_toml("name = 'A'\npoints = 200\n[[unit]]\ncard = 'Ranger Combat Squad'\n"
                        "count = 12\n[[unit]]\ncard = 'Pounder'\ncount = 3\n", d47, "a.toml")
    b = parse_list_toml("name = 'B'\npoints = 200\n[[unit]]\ncard = 'Red Army Battle Squad'\n"
                        "count = 12\n[[unit]]\ncard = 'Nadya'\ncount = 3\n", d47, "b.toml")
    return a, b


def test_fifteen_units_a_side_same_numbers_for_any_thread_count(big):
    a, b = big
    spec = compile_lists(a, b, turns=3)
    assert spec.sides.count(0) == 15 and spec.sides.count(1) == 15
    r1 = play_lists(a, b, trials=4500, seed=7, turns=3, threads=1, curve_trials=2100,
                    spec=spec)
    r2 = play_lists(a, b, trials=4500, seed=7, turns=3, threads=2, curve_trials=2100,
                    spec=spec)
    np.testing.assert_array_equal(r1.acc, r2.acc)
    assert r1.curve.equals(r2.curve)
    assert r1.p_a_wins + r1.p_b_wins + r1.p_draw == pytest.approx(1.0)
    # targeting reaches every enemy: with many units a side, units of both sides die
    assert 0 < r1.ap_lost("a")[0] < r1.ap_a and 0 < r1.ap_lost("b")[0] < r1.ap_b
    r3 = play_lists(a, b, trials=4500, seed=8, turns=3, threads=1, curve_trials=10, spec=spec)
    assert not np.array_equal(r1.acc, r3.acc)


def test_mirror_match_is_symmetric(d47):
    lst = load_list(EXAMPLES / "ssu-red-army.toml", d47)
    r = play_lists(lst, lst, trials=6000, seed=3, curve_trials=10)
    # P(A wins) - P(B wins): variance (pa + pb - (pa - pb)^2) / n
    pa, pb = r.p_a_wins, r.p_b_wins
    se = math.sqrt((pa + pb - (pa - pb) ** 2) / r.trials)
    assert abs(pa - pb) < 5 * se
    assert abs(r.margin[0]) < 5 * r.margin[1]


def _weapon(cells, range_="6"):
    return Weapon(name="gun", line=tuple(parse_cell(cells.get(c, "-")) for c in COLUMNS),
                  range=range_)


def test_one_turn_against_the_exact_engine():
    """A (initiative, in range, no reactions) makes one Sustained Attack on B, which cannot
    hurt A: P(A wins) = P(B destroyed) of the exact engine, the margin = that x B's AP, and
    the rest are draws (nothing destroyed on either side)."""
    gun = _weapon({"V2": "3/1"})
    a_card = Card(name="Gunner", edition="dust-1947", kind="vehicle", armour="V2", ap=10,
                  damage_track=3, move=2, march_move=4, weapons=(gun,), bloc="Allies")
    b_card = Card(name="Target", edition="dust-1947", kind="vehicle", armour="V2", ap=8,
                  damage_track=2, move=2, march_move=4, bloc="Axis")
    a = ArmyList("A", 75, (ListUnit(a_card),), bloc="Allies")
    b = ArmyList("B", 75, (ListUnit(b_card),), bloc="Axis")
    policy = DuelPolicy(reactive="never", initiative="a", passing="never")
    r = play_lists(a, b, trials=20_000, seed=5, distance=4, turns=1, policy=policy,
                   curve_trials=10)
    spec = compile_attack([(gun, gun.cell("V2"))], target_from_card(b_card),
                          Situation("sustained"), "dust-1947")
    p = evaluate(spec).p_destroyed
    assert 0.2 < p < 0.9
    assert abs(r.p_a_wins - p) < 5 * math.sqrt(p * (1 - p) / r.trials)
    assert r.p_b_wins == 0 and r.p_draw == pytest.approx(1 - r.p_a_wins)
    assert r.summary()["p_a_annihilates"] == r.p_a_wins
    assert r.margin[0] == pytest.approx(8 * r.p_a_wins)


def test_curve_starts_full_and_ends_with_the_main_games(d47):
    a = load_list(EXAMPLES / "allies-rangers.toml", d47)
    b = load_list(EXAMPLES / "axis-heavy-grenadiers.toml", d47)
    r = play_lists(a, b, trials=2000, seed=1, turns=4, curve_trials=500)
    c = r.curve
    assert list(c[c["turn"] == 0]["ap_left"]) == [a.ap, b.ap]
    last = c[c["turn"] == 4].set_index("side")["ap_left"]
    assert last["a"] == pytest.approx(a.ap - r.ap_lost("a")[0])
    assert last["b"] == pytest.approx(b.ap - r.ap_lost("b")[0])
    assert set(c["trials"]) == {2000, 500}
    for _side, g in c.groupby("side"):  # points never come back (within 5 se)
        v, s = g.sort_values("turn")["ap_left"].to_numpy(), g["se"].to_numpy()
        assert all(v[i + 1] <= v[i] + 5 * (s[i] + s[i + 1]) + 1e-9 for i in range(len(v) - 1))


def test_bad_trials_one_line(d47):
    lst = load_list(EXAMPLES / "ssu-red-army.toml", d47)
    with pytest.raises(DustsimError, match="integer from 1"):
        play_lists(lst, lst, trials=0)


@pytest.fixture(scope="module")
def three(d47):
    return [load_list(EXAMPLES / f, d47) for f in
            ("allies-rangers.toml", "ssu-red-army.toml", "mercenaries.toml")]


@pytest.fixture(scope="module")
def local_meta(three):
    return meta(three, trials=600, seed=4, turns=3)


def test_meta_table_and_matrix(three, local_meta):
    t = local_meta
    assert len(t) == 6
    m = meta_matrix(t)
    assert list(m.index) == [x.name for x in three] and m.isna().to_numpy().diagonal().all()
    # each pairing played once: the mirrored row is the first row's complement
    ab = t[(t["list"] == three[0].name) & (t["opponent"] == three[1].name)].iloc[0]
    ba = t[(t["list"] == three[1].name) & (t["opponent"] == three[0].name)].iloc[0]
    assert ab["p_win"] == ba["p_loss"] and ab["margin"] == -ba["margin"]
    assert meta_standings(t)["opponents"].tolist() == [2, 2, 2]


def test_meta_on_dask_gives_the_same_numbers(three, local_meta, monkeypatch):
    """The same numbers on Dask, also when the scheduler drops part of the run: the pairings
    without a result (only those) are submitted again (the sweep's runner)."""
    pytest.importorskip("distributed")
    import dustsim.engines.dask_runner as dr
    from dustsim.review.sweep import dask_client

    with dask_client(workers=1) as client:
        t = meta(three, trials=600, seed=4, turns=3, client=client)
        assert t.equals(local_meta)
        real, calls = dr._run_once, []

        def dropped_once(client, fn, args, keys, todo, *rest):
            calls.append(list(todo))
            if len(calls) == 1:  # one pairing comes back, then the scheduler drops the run
                real(client, fn, args, keys, todo[:1], *rest)
                raise CancelledError(f"{keys[todo[1]]}: already forgotten")
            real(client, fn, args, keys, todo, *rest)

        monkeypatch.setattr(dr, "_run_once", dropped_once)
        t2 = meta(three, trials=600, seed=4, turns=3, client=client)
    assert calls == [[0, 1, 2], [1, 2]]
    assert t2.equals(local_meta)


def test_cli_vs_and_meta(tmp_path, capsys):
    a, b = str(EXAMPLES / "ssu-red-army.toml"), str(EXAMPLES / "mercenaries.toml")
    assert main(["list", "vs", a, b, "--trials", "800", "--turns", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["trials"] == 800 and len(d["curve"]) == 8
    assert d["p_a_wins"] + d["p_b_wins"] + d["p_draw"] == pytest.approx(1)
    folder = tmp_path / "lists"
    folder.mkdir()
    for f in (a, b):
        (folder / Path(f).name).write_text(Path(f).read_text(encoding="utf-8"))
    chart = tmp_path / "meta.png"
    assert main(["list", "meta", str(folder), "--trials", "300", "--turns", "2",
                 "--chart", str(chart)]) == 0
    out = capsys.readouterr().out
    assert "P(row list wins)" in out and chart.stat().st_size > 0
    (folder / "x.toml").write_text("points = 75\n[[unit]]\ncard = 'Nobody'\n")
    assert main(["list", "meta", str(folder), "--trials", "10"]) == 2


@pytest.mark.parametrize("flags", [["--trials", "0"], ["--seed", "-1"], ["--turns", "0"],
                                   ["--distance", "500"], ["--threads", "999"],
                                   ["--curve-trials", "0"]])
def test_cli_vs_knobs_are_capped(flags, capsys):
    a = str(EXAMPLES / "ssu-red-army.toml")
    assert main(["list", "vs", a, a, *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flags[0] in err
