"""Scenarios 101-115 (seed 003 L2388-3055) as data, their seeded boards, user maps, the CLI.

Expected numbers are read off the rulebook lines cited (points L2457-3020, setup lines of
each scenario), not off the generator.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dustsim.cli.shell import main
from dustsim.errors import DustsimError
from dustsim.play import board as B
from dustsim.play import scenarios as S

# (attacker %, defender %) from each scenario's header, L2457-3020
POINTS = {101: (100, 100), 102: (100, 100), 103: (100, 100), 104: (100, 100),
          105: (100, 75), 106: (100, 50), 107: (100, 100), 108: (100, 100), 109: (100, 75),
          110: (100, 75), 111: (100, 100), 112: (100, 50), 113: (100, 75), 114: (75, 100),
          115: (100, 75)}
# the victory condition that decides first, from each "Victory Conditions" line
FIRST_VICTORY = {101: "victory_points", 102: "hold_objectives", 103: "hold_objectives",
                 104: "hold_objectives", 105: "hold_objectives", 106: "exit_edge",
                 107: "hold_objectives", 108: "victory_points", 109: "hold_objectives",
                 110: "hold_objectives", 111: "vp_threshold", 112: "hold_objectives",
                 113: "exit_edge", 114: "exit_edge", 115: "annihilation"}


def count(board: B.Board, codes, mask=None) -> int:
    m = np.isin(board.terrain, codes)
    if mask is not None:
        m &= mask
    return int(m.sum())


def rows_mask(board: B.Board, lo: int, hi: int) -> np.ndarray:
    r = np.arange(board.n) // board.width
    return (r >= lo) & (r <= hi)


def test_fifteen_scenarios_with_their_headers():
    scs = S.load_scenarios()
    assert [s.number for s in scs] == list(range(101, 116))
    for s in scs:
        assert s.play_area == (9, 12) and s.turns == 8           # every "Play Area", track
        assert (s.points.attacker, s.points.defender) == POINTS[s.number]
        assert s.victory[0].kind == FIRST_VICTORY[s.number]
        assert sorted((s.width, s.height)) == [9, 12]
        assert s.decisions, s.number                              # each states its choices
    by = {s.number: s for s in scs}
    assert by[106].points.defender_reserve == 2                   # "RES. (2)", L2650
    assert (by[111].points.attacker_units, by[111].points.defender_units) == (
        "vehicles", "vehicles")                                   # L2853-2855
    assert by[115].points.attacker_units == "infantry"            # L3019-3020
    assert (by[102].width, by[102].height) == (12, 9)             # long edges, L2524
    reserved = by[111].with_variant("Reserves").points           # L2890
    assert (reserved.attacker_reserve, reserved.defender_reserve) == (2, 2)
    # 102: hold after turn three with no enemy within Range 2 (L2528)
    hold = by[102].victory[0]
    assert (hold.get("from_turn"), hold.get("clear_range"), hold.get("side")) == (4, 2, "either")
    assert by[103].scoring.objective_held == 25 and by[103].scoring.objective_clear_range == 1
    assert (by[111].scoring.immobilized, by[111].scoring.crippled) == (0.5, 0.25)


def test_find_scenario_by_number_name_prefix_and_typo():
    assert S.find_scenario(101).name == "Firefight"
    assert S.find_scenario("CITY SHOWDOWN").number == 107
    assert S.find_scenario("fuel").number == 103
    assert S.find_scenario("113-switchback-convoy").number == 113
    with pytest.raises(DustsimError, match="did you mean 'Firefight'") as e:
        S.find_scenario("firefigth")
    assert "\n" not in str(e.value)


def test_boards_are_reproducible_by_seed_and_cached():
    a = S.build_board(101, 5)
    assert S.build_board("Firefight", 5) is a
    again = S.build_board(S.find_scenario(101), 5)
    assert (again.terrain == a.terrain).all()
    draws = {S.build_board(101, seed).terrain.tobytes() for seed in range(4)}
    assert len(draws) > 1


@pytest.mark.parametrize("seed", [0, 1])
def test_firefight_terrain_follows_setup(seed):
    # L2484: each half 5 % (3 of 54 squares) trees or small structures, nothing else;
    # L2486: both enter from their edges (kept clear)
    b = S.build_board(101, seed)
    assert (b.width, b.height) == (9, 12)
    pieces = (B.TREES, B.SMALL_STRUCTURE)
    assert count(b, pieces, rows_mask(b, 0, 5)) == 3
    assert count(b, pieces, rows_mask(b, 6, 11)) == 3
    assert count(b, pieces) == int((b.terrain != B.OPEN).sum())
    assert b.enters.tolist() == [True, True]
    assert (b.terrain[b.deploy[0]] == B.OPEN).all() and b.deploy[0].sum() == 9
    assert len(b.objectives) == 0


def test_reload_objective_in_the_centre():
    b = S.build_board(102, 3)
    assert b.objectives.tolist() == [b.square(6, 4)]              # centre of 12 x 9, L2522
    assert count(b, (B.TANK_TRAPS, B.TREES, B.SMALL_STRUCTURE), rows_mask(b, 0, 3)) == 3
    assert count(b, (B.TANK_TRAPS, B.TREES, B.SMALL_STRUCTURE), rows_mask(b, 4, 4)) == 0


def test_fuel_run_one_dump_a_half_two_from_the_edges():
    b = S.build_board(103, 7)
    a, d = (b.colrow(int(s)) for s in b.objectives)
    assert a[1] <= 5 < d[1]                                       # one on each half, L2560
    for c, r in (a, d):
        assert 2 <= c <= 6 and 2 <= r <= 9
    assert count(b, (B.TANK_TRAPS, B.TREES, B.SMALL_STRUCTURE), rows_mask(b, 0, 5)) == 8


def test_outpost_building_is_the_objective():
    b = S.build_board(104, 0)
    building = np.flatnonzero(np.isin(b.terrain, (B.BUILDING, B.BUILDING_OPENING)))
    assert [b.colrow(int(s)) for s in building] == [(3, 5), (4, 5), (5, 5), (3, 6), (4, 6),
                                                    (5, 6)]
    assert count(b, (B.BUILDING_OPENING,)) == 2
    assert sorted(np.flatnonzero(b.objective_area == 0).tolist()) == building.tolist()


def test_beach_assault_strongpoint_and_beach():
    b = S.build_board(105, 2)
    sp = np.flatnonzero(b.terrain == B.STRONGPOINT)
    assert [b.colrow(int(s)) for s in sp] == [(4, 8), (5, 8)]
    assert (b.objective_area[sp] == 0).all()
    beach = rows_mask(b, 0, 5)
    assert count(b, (B.TANK_TRAPS, B.AMMO_CRATES), beach) == 3
    assert int(((b.terrain != B.OPEN) & beach).sum()) == 3       # free of other terrain
    assert count(b, (B.TREES,), rows_mask(b, 6, 11)) == 6         # 8 = 15 % minus the 2
    assert b.enters.tolist() == [True, False]                     # defender deploys, L2640
    assert b.deploy[1].sum() == 54 and not b.deploy[1][:54].any()


def test_hold_the_line_bunker_and_exit():
    b = S.build_board(106, 0)
    k = np.flatnonzero(b.terrain == B.BUNKER)
    assert len(k) == 2 and (b.fort_facing[k] == 4).all()
    assert b.exit_edge.tolist() == [B.EDGE_ROW_LAST, B.EDGE_NONE]
    assert b.exit_mask[0].sum() == 12 and b.exit_mask[0][-12:].all()
    assert not b.deploy[1][rows_mask(b, 0, 4)].any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_city_objectives_in_buildings_away_from_edges(seed):
    b = S.build_board(107, seed)
    assert len(b.objectives) == 2
    for s in b.objectives:
        c, r = b.colrow(int(s))
        assert b.terrain[s] in (B.BUILDING, B.BUILDING_OPENING)
        assert 2 <= c <= 6 and 2 <= r <= 9                        # L2723
        assert b.objective_area[s] >= 0
    for bid in set(b.building_id[b.building_id >= 0].tolist()):
        assert count(b, (B.BUILDING_OPENING,), b.building_id == bid) == 1
    for half in (rows_mask(b, 0, 5), rows_mask(b, 6, 11)):
        assert int(((b.terrain != B.OPEN) & half).sum()) <= 16    # 30 % of 54


def test_forest_firefight_and_its_road_variant():
    b = S.build_board(108, 0)
    assert count(b, (B.TREES,), rows_mask(b, 0, 5)) == 16         # 30 % of 54, L2759
    r = S.build_board(108, 0, "Forest Road")
    cols = np.arange(r.n) % 9
    assert (r.terrain[(cols == 3) | (cols == 4)] == B.ROAD).all()  # Range 2, L2767
    assert count(r, (B.TREES,)) == 32


def test_bridge_capture_river_and_deployment():
    b = S.build_board(110, 0)
    river = rows_mask(b, 5, 6)
    assert count(b, (B.BRIDGE,)) == 4 and count(b, (B.WATER,), river) == 14
    bridge = np.flatnonzero(b.terrain == B.BRIDGE)
    assert all(b.move_cost[s, B.TRACKED] == 1 for s in bridge)
    for s in np.flatnonzero(b.deploy[0]):
        assert min(b.dist[s, t] for t in bridge) > 3               # not within Range 3, L2824
    assert b.deploy[1][bridge].all()                               # defender on the bridge
    assert not b.deploy[0][river].any()


def test_cliff_assault_levels_and_who_climbs():
    b = S.build_board(112, 0)
    assert (b.height_level[rows_mask(b, 0, 5)] == 1).all()
    assert (b.height_level[rows_mask(b, 6, 11)] == 3).all()        # L2924
    start = np.flatnonzero(b.deploy[0])
    top = rows_mask(b, 6, 11)
    assert not B.reachable(b, B.TRACKED, start)[top].any()        # vehicles cannot cross
    assert B.reachable(b, B.FOOT, start)[top].any()               # infantry can (2 marches)
    assert bool(b.cliff_climb[0])


def test_switchback_road_is_the_only_way_up():
    b = S.build_board(113, 0)
    assert b.deploy[0].tolist().count(True) == 1 and b.deploy[0][b.square(4, 0)]
    assert b.deploy[1][b.square(4, 11)]
    assert b.height_level.min() == 1 and b.height_level.max() == 5  # L2964
    # off the road, the terrace edge between rows 1 and 2 is a cliff (column 0)
    assert b.cliff_mask[b.square(0, 1)] & (1 << 0)
    seen = B.reachable(b, B.TRACKED, [b.square(4, 0)])
    assert seen[b.square(4, 11)]
    # no climbing: a unit next to the road cannot go straight up the cliff
    assert not B.can_step(b, B.FOOT, b.square(0, 1), 0)


def test_mountain_pass_hills_and_exits():
    b = S.build_board(114, 0)
    cols = np.arange(b.n) % 9
    assert (b.height_level[(cols >= 3) & (cols <= 5)] == 0).all()
    assert (b.height_level[(cols <= 2) | (cols >= 6)] == 2).all()
    assert sorted(b.colrow(int(s)) for s in np.flatnonzero(b.deploy[0])) == [
        (3, 0), (4, 0), (5, 0)]
    assert sorted(b.colrow(int(s)) for s in np.flatnonzero(b.exit_mask[0])) == [
        (3, 11), (4, 11), (5, 11)]
    dep = np.flatnonzero(b.deploy[1])
    assert set((cols[dep]).tolist()) <= {0, 1, 7, 8}               # Range 1 from the pass


def test_sewers_maze():
    b = S.build_board(115, 4)
    entry = np.flatnonzero(b.deploy[0])
    assert sorted(b.colrow(int(s)) for s in entry) == [(0, 0), (0, 1), (1, 0), (1, 1),
                                                       (7, 10), (7, 11), (8, 10), (8, 11)]
    tunnels = b.move_cost[:, B.FOOT] < B.IMPASSABLE
    seen = B.reachable(b, B.FOOT, entry)
    assert (seen == tunnels).all()                                 # one connected maze
    obstacles = np.flatnonzero(np.isin(b.terrain, (B.TANK_TRAPS, B.AMMO_CRATES)))
    assert len(obstacles) == 2                                     # L3047
    assert all(b.dist[o, e] >= 2 for o in obstacles for e in entry)


@pytest.mark.parametrize("number", range(101, 116))
def test_every_scenario_board_is_playable(number):
    for seed in (0, 1):
        b = S.build_board(number, seed)
        a_src = np.flatnonzero(b.deploy[0])
        reach = B.reachable(b, B.FOOT, a_src)
        assert reach[b.deploy[1]].any()
        for k in range(len(b.objectives)):
            assert reach[b.objective_area == k].any()
        assert (b.los == b.los.T).all()


# ---- validation ---------------------------------------------------------------------------------

def _write(tmp_path, text: str, name: str = "x.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_scenario_file_errors_name_file_and_field(tmp_path):
    src = (S.resources.files("dustsim.play.scenario_data") / "101-firefight.toml").read_text()
    bad = _write(tmp_path, src + "\nweather = 'snow'\n")
    with pytest.raises(DustsimError, match=r"x\.toml: field 'weather': unknown key"):
        S.load_scenario(bad)
    bad2 = _write(tmp_path, src.replace('kind = "victory_points"', 'kind = "points"'))
    with pytest.raises(DustsimError, match=r"victory\[0\]\.kind"):
        S.load_scenario(bad2)
    bad3 = _write(tmp_path, src.replace("turns = 8", "turns = 0"))
    with pytest.raises(DustsimError, match="'turns'"):
        S.load_scenario(bad3)


MAP = """
name = "crossroads"
width = 4
height = 3
rows = ["..T.",
        ".OB.",
        "=..X"]
levels = ["0010", "0000", "0000"]
objectives = [[1, 1]]
exit_a = "last row"
"""


def test_board_from_toml(tmp_path):
    b = S.board_from_toml(_write(tmp_path, MAP))
    assert (b.width, b.height, b.name) == (4, 3, "crossroads")
    # rows are drawn last row first: row 0 is "=..X"
    assert b.terrain[b.square(0, 0)] == B.ROAD and b.terrain[b.square(3, 0)] == B.TANK_TRAPS
    assert b.terrain[b.square(1, 1)] == B.BUILDING_OPENING
    assert b.terrain[b.square(2, 2)] == B.TREES and b.height_level[b.square(2, 2)] == 1
    assert b.objectives.tolist() == [b.square(1, 1)]
    assert b.exit_mask[0].tolist() == [False] * 8 + [True] * 4


def test_board_from_toml_unknown_key(tmp_path):
    with pytest.raises(DustsimError, match="field 'colour': unknown key"):
        S.board_from_toml(_write(tmp_path, MAP + '\ncolour = "red"\n'))


@pytest.mark.parametrize(("old", "new", "field"), [
    ("objectives = [[1, 1]]", "objectives = [[4, 1]]", "objectives"),
    ('"=..X"', '"=..Z"', "rows"),
    ('"=..X"', '"=.X"', "rows"),
    ('exit_a = "last row"', 'exit_a = "north"', "exit_a"),
    ('levels = ["0010"', 'levels = ["00x0"', "levels"),
])
def test_board_from_toml_bad_values(tmp_path, old, new, field):
    p = _write(tmp_path, MAP.replace(old, new), "bad-map.toml")
    with pytest.raises(DustsimError) as e:
        S.board_from_toml(p)
    msg = str(e.value)
    assert "bad-map.toml" in msg and f"field '{field}'" in msg and "\n" not in msg


# ---- CLI ----------------------------------------------------------------------------------------

def test_cli_scenarios_json(capsys):
    assert main(["scenarios", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["scenarios"]
    assert [r["number"] for r in rows] == list(range(101, 116))
    first = rows[0]
    assert {"number", "name", "board", "turns", "objectives", "victory"} <= set(first)
    assert first["board"] == "9 x 12" and first["turns"] == 8


def test_cli_scenarios_text_and_one_scenario(capsys):
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    assert "104 Outpost: board 9 x 12" in out and "hold_objectives" in out
    assert main(["scenarios", "outpost", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "OB" in out and "decision [" in out


def test_cli_scenarios_bad_name(capsys):
    assert main(["scenarios", "firefigth"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "did you mean 'Firefight'" in err
    assert main(["scenarios", "105", "--variant", "Weather"]) == 2
    assert "not modelled" in capsys.readouterr().err


def test_victory_and_scoring_arrays_for_the_kernel():
    v = S.victory_array(S.find_scenario(103))
    # hold both dumps after turn three with no enemy within Range 1 (L2566), then VP
    assert v.shape == (2, len(S.VICTORY_COLUMNS))
    assert v[0].tolist() == [S.VC_HOLD, S.SIDE_EITHER, -1, 4, 0, 1, 0, 0, 0]
    assert v[1][0] == S.VC_VP and v[1][4] == 1
    w = S.victory_array(S.find_scenario(113))
    assert w[1].tolist() == [S.VC_ANNIHILATION, S.SIDE_DEFENDER, -1, 1, 0, -1, 0, 0.5, 1]
    assert S.scoring_array(S.find_scenario(111)).tolist()[:3] == [1.0, 0.5, 0.25]


def test_cli_map_file(tmp_path, capsys):
    good = _write(tmp_path, MAP, "map.toml")
    assert main(["scenarios", "--map", str(good)]) == 0
    out = capsys.readouterr().out
    assert "crossroads: board 4 x 3" in out and "=..X" in out
    bad = _write(tmp_path, MAP.replace('"=..X"', '"=..Z"'), "bad.toml")
    assert main(["scenarios", "--map", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "bad.toml" in err and "field 'rows'" in err and "\n" not in err
