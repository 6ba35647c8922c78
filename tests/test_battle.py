"""Battles on the grid (dustsim.play.battle): event logs that obey the board, reproducible
seeding, the result contract, the CLI. Small trial counts; the kernel compiles once."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from dustsim.army.lists import load_list
from dustsim.cli.shell import main
from dustsim.errors import DustsimError
from dustsim.play import board as B
from dustsim.play.battle import event_log, prepare, simulate_battle
from dustsim.review.replay import validate_log
from dustsim.review.replay_rules import check_log_on_board

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "lists"


@pytest.fixture(scope="module")
def lists():
    return {p.stem: load_list(p) for p in sorted(EXAMPLES.glob("*.toml"))}


def _step_cost(board, a: int, b: int, cls: int, diagonal_used: bool) -> tuple[int, bool]:
    """Cost of one step from a to b, by hand from the rules: the square's entering cost
    (board.move_cost), the first diagonal of an action counts one, further ones two (L461)."""
    ca, ra = board.colrow(a)
    cb, rb = board.colrow(b)
    assert max(abs(ca - cb), abs(ra - rb)) == 1, f"{a}->{b} is not a step to a neighbour"
    enter = 1 if cls == B.FLYING else int(board.move_cost[b, cls])
    assert enter < B.IMPASSABLE, f"square {b} is impassable for movement class {cls}"
    diag = ca != cb and ra != rb
    return enter + (1 if diag and diagonal_used else 0), diagonal_used or diag


def _check_moves(log: dict, board) -> int:
    """Every move walks the board square by square on passable squares, from where the unit
    stands (or from its entry zone), within its Move (a move) or March Move (the march's
    parts together); returns the number of moves checked."""
    units = {u["id"]: u for u in log["units"]}
    where = {u["id"]: None for u in log["units"]}
    deploy = log["board"]["deploy"]  # per side (the contract)
    spent: dict = {}
    checked = 0
    for ev in log["events"]:
        if ev["action"] == "activate":
            spent = {}
        if ev.get("special") == "reserve":  # off the board, fresh (L3102-3104)
            where[ev["unit"]] = None
        if ev["action"] not in ("move", "march") or ev["turn"] == 0:
            if ev["action"] in ("move",) and ev["turn"] == 0:
                where[ev["unit"]] = ev["to"]
            continue
        u = units[ev["unit"]]
        path = ev["path"]
        assert path[-1] == ev["to"]
        if where[u["id"]] is None:  # entering: the first square lies in its side's zone
            assert path[0] in deploy[0 if u["side"] == "A" else 1]
            cost = 1 if u["move_class"] == B.FLYING else int(board.move_cost[path[0],
                                                                              u["move_class"]])
        else:
            assert path[0] == where[u["id"]] == ev["from"]
            cost = 0
        used = spent.get("diag", False) if ev["action"] == "march" else False
        for a, b in itertools.pairwise(path):
            c, used = _step_cost(board, a, b, u["move_class"], used)
            cost += c
        assert cost == ev["cost"] or ev["action"] == "march"
        if ev["action"] == "move":
            assert cost <= u["move"], ev
        else:
            spent["cost"] = spent.get("cost", 0) + cost
            spent["diag"] = used
            assert spent["cost"] <= u["march"], ev
        where[u["id"]] = ev["to"]
        checked += 1
    return checked


@pytest.mark.parametrize("scenario", ["101", "104", "106"])
def test_logged_games_obey_range_sight_and_movement(lists, scenario):
    """Over several logged games: every attack within its weapons' ranges with line of sight
    and the right cover (the replay's board check), every move a legal walk."""
    pairs = [("allies-rangers", "axis-heavy-grenadiers"), ("ssu-red-army", "mercenaries")]
    moves = attacks = 0
    for a, b in pairs:
        spec = prepare(lists[a], lists[b], scenario=scenario, seed=2, boards=1)
        for seed in range(3):
            log = json.loads(json.dumps(event_log(spec, seed)))  # plain JSON, as written
            validate_log(log)
            check_log_on_board(log, spec.setup.board)  # wrecks block sight (L486)
            moves += _check_moves(log, spec.setup.board)
            for ev in log["events"]:
                if ev["action"] in ("attack", "sustained", "close-combat"):
                    attacks += 1
                    ranges = {w["line"]: w["range"] for u in log["units"] if u["id"] == ev["unit"]
                              for w in u["weapons"]}
                    for line in ev["weapons"]:
                        lo, hi = ranges[line]
                        assert lo <= ev["range"] <= hi
                    assert ev["saves"] <= ev["hits"]
                    assert set(ev["dice"]) <= set("PTS")
            assert log["events"][-1]["action"] == "end"
    assert moves > 20 and attacks > 10


def test_same_seed_same_numbers_for_any_thread_count(lists):
    spec = prepare(lists["allies-rangers"], lists["axis-heavy-grenadiers"], seed=5, boards=2)
    r1 = simulate_battle(spec, 600, 9, threads=1)
    r2 = simulate_battle(spec, 600, 9, threads=2)
    assert np.array_equal(r1.acc, r2.acc) and np.array_equal(r1.curves, r2.curves)
    r3 = simulate_battle(spec, 600, 10, threads=1)
    assert not np.array_equal(r1.acc, r3.acc)


def test_the_grid_kernel_compiles_each_function_once(lists, jit_battle_reference, jit_kernels):
    """Cold-compile guard (issue 26): after random and logged games every kernel function of
    the board is compiled for one signature at most (no literal or dtype copies), and the
    single-caller links of the turn loop are inlined, never compiled on their own. Where the
    compiled kernels serve this process, the JIT ran in a process of its own
    (tests/jit_battle_reference.py); else it runs here."""
    from jit_battle_reference import COMPILE_RUN, INLINED, compile_report, play

    report = jit_battle_reference["compile"] if jit_battle_reference is not None else None
    if report is None:
        play(lists, COMPILE_RUN)
        report = compile_report()
    if not report["compiled"]:
        pytest.skip("the kernels came from the Numba cache: nothing compiled in that process")
    # the board's own functions (helpers it imports from the attack and duel kernels are
    # also compiled for those kernels' own dice mode when other tests ran them first)
    assert report["many"] == {}
    for name in INLINED:
        assert report["inlined"][name] == [], name
    assert report["victory"] == 1


def test_mirror_match_is_even(lists):
    """A list against itself, roles drawn per game: P(A) = P(B) within 5 standard errors."""
    lst = lists["ssu-red-army"]
    r = simulate_battle(prepare(lst, lst, seed=1, boards=2), 1200, 3, threads=1)
    diff = r.p_a_wins - r.p_b_wins
    se = np.sqrt((r.p_a_wins + r.p_b_wins - diff ** 2) / r.trials)
    assert abs(diff) <= 5 * se
    assert r.p_a_wins + r.p_b_wins + r.p_draw == pytest.approx(1.0)


def test_no_example_pairing_is_a_foregone_conclusion_on_the_default_scenario(lists):
    """Issue 22: on 101 Firefight (the default) each pairing of the five example lists is won
    by either list now and then: P(win) inside 1 %-99 % by 5 standard errors."""
    names = sorted(lists)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            r = simulate_battle(prepare(lists[a], lists[b], seed=1, boards=2), 400, 5,
                                threads=1)
            for p in (r.p_a_wins, r.p_b_wins):
                se = max(np.sqrt(p * (1 - p) / r.trials), 1 / r.trials)
                assert 0.01 + 5 * se < p < 0.99 - 5 * se, (a, b, p)


def test_result_contract_and_names(lists):
    spec = prepare(lists["ijn-ninjas"], lists["mercenaries"], scenario="102",
                   policy="advance", attacker="A", boards=1)
    r = simulate_battle(spec, 300, 1, threads=1)
    s = r.summary()
    assert s["policy"] == "advance" and s["scenario"].startswith("102")
    assert s["p_a_attacker"] == 1.0  # the attacker fixed
    assert s["p_a_wins"] + s["p_b_wins"] + s["p_draw"] == pytest.approx(1.0)
    shares = sum(v for side in r.won_by().values() for v in side.values())
    assert shares == pytest.approx(s["p_a_wins"] + s["p_b_wins"])
    f = r.to_frame()
    assert list(f.columns) == ["quantity", "side", "unit", "k", "value", "se"]
    assert r.se("p_a_wins") > 0 and r.se("trials") == 0.0
    with pytest.raises(DustsimError, match="valid"):
        r.se("p_nobody")
    assert any("fire arcs" in n for n in r.notes)
    with pytest.raises(DustsimError, match="hold-and-strike"):
        prepare(lists["ijn-ninjas"], lists["mercenaries"], policy="rush")


def test_cli_vs_on_a_scenario_and_its_replay(tmp_path, capsys):
    a, b = str(EXAMPLES / "ssu-red-army.toml"), str(EXAMPLES / "mercenaries.toml")
    out = tmp_path / "game.json"
    assert main(["list", "vs", a, b, "--scenario", "firefight", "--trials", "200", "--json",
                 "--replay", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["scenario"] == "101 Firefight" and d["turns"] == 8 and d["board"] == "9x12"
    assert len(d["curve"]) == 2 * 9
    validate_log(json.loads(out.read_text()))
    assert main(["list", "vs", a, b, "--scenario", "nowhere", "--trials", "10"]) == 2
    assert main(["list", "vs", a, b, "--distance", "6", "--trials", "10"]) == 2
    err = capsys.readouterr().err
    assert "--distance" in err.splitlines()[-1]
    assert main(["duel", "--side-a", "Pounder", "--side-b", "Ludwig", "--scenario", "111",
                 "--trials", "50", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scenario"].startswith("111")
