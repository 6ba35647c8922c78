"""Where a duel is fought (issue 23): Dust 1947 duels on scenario 101's board by default,
``--scenario line`` for the line engine (the Tactics rulesets' only mode); line-only options
refused on a board; each engine's notes name its own gaps."""

import json

import pytest

from dustsim.cli.shell import main
from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.errors import DustsimError
from dustsim.play.duel import compile_duel, duel, duel_scenario, parse_side
from dustsim.rules import skills as S


def test_where_a_duel_is_fought():
    assert duel_scenario("dust-1947") == "101"
    assert duel_scenario("dust-1947", "LINE") == "line"
    assert duel_scenario("dust-1947", 103) == "103"
    assert duel_scenario("tactics-2009") == duel_scenario("tactics-2013") == "line"
    with pytest.raises(DustsimError, match="on a line only") as e:
        duel_scenario("tactics-2013", "101")
    assert e.value.field == "--scenario"


def test_cli_default_is_the_board(capsys):
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--trials", "40"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["A: Ludwig", "B: Pounder"]
    assert out[2].startswith("dust-1947, scenario 101 Firefight, board 9x12, 8 turns, policy ")
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--trials", "40",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["scenario"], d["board"], d["turns"]) == ("101 Firefight", "9x12", 8)
    assert (d["list_a"], d["list_b"], d["trials"]) == ("Ludwig", "Pounder", 40)
    assert d["p_a_wins"] + d["p_b_wins"] + d["p_draw"] == pytest.approx(1.0)
    # the default is scenario 101 itself: the same games, seed for seed
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--trials", "40",
                 "--json", "--scenario", "firefight"]) == 0
    assert json.loads(capsys.readouterr().out) == d


def test_mirror_duel_on_the_board_is_even(all_cards):
    """Pounder against Pounder on 101 Firefight (attacker drawn per game): neither side is
    favoured, within 5 standard errors."""
    r = duel("Pounder", "Pounder", cards=all_cards, trials=3_000, seed=3)
    se = (r.se("p_a_wins") ** 2 + r.se("p_b_wins") ** 2) ** 0.5
    assert abs(r.p_a_wins - r.p_b_wins) < 5 * se
    assert r.p_a_wins > 0.3  # decided games, not a board where nobody meets


def test_cli_line_header(capsys):
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--scenario", "line",
                 "--distance", "7", "--trials", "40"]) == 0
    head = capsys.readouterr().out.splitlines()[2]
    assert head == "dust-1947, on a line, 7 squares apart, up to 5 turns; 40 duels, seed 0"


def test_board_csv(tmp_path):
    out = tmp_path / "duel.csv"
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--trials", "40",
                 "--csv", str(out)]) == 0
    import csv

    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["quantity", "side", "unit", "k", "value", "se"]
    assert {r["quantity"] for r in rows} >= {"p_a_wins", "p_b_wins", "p_draw", "vp_a"}
    curve = [r for r in rows if r["quantity"] == "ap_lost_by_turn"]
    assert len(curve) == 2 * 9  # AP lost per side at the end of turns 0-8


LINE_ONLY = ["--distance 6", "--cover-a", "--cover-b", "--approach close-in",
             "--passing never", "--reactive never", "--initiative a",
             "--allocation hero-first", "--salvo never", "--volley one",
             "--initiative_choice go-second", "--charge never", "--orders never"]


@pytest.mark.parametrize("extra", LINE_ONLY)
@pytest.mark.parametrize("scenario", [[], ["--scenario", "103"]])
def test_line_options_refused_on_a_board(extra, scenario, capsys):
    flag = extra.split()[0]
    argv = ["duel", "--side-a", "Ludwig", "--side-b", "Pounder", *scenario, *extra.split()]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"{flag} applies to duels on a line only" in err and "add --scenario line" in err
    assert ("101 Firefight" if not scenario else "103 Fuel Run") in err


@pytest.mark.parametrize("argv, field, words", [
    (["--side-b", "Pounder@cover"], "--side-b", "@cover applies to duels on a line only"),
    (["--side-b", "Pounder", "--scenario", "line", "--policy", "advance"], "--policy",
     "applies to a scenario's board"),
    (["--side-b", "Pounder", "--scenario", "line", "--attacker", "A"], "--attacker",
     "applies to a scenario's board"),
    (["--side-b", "Pounder", "--scenario", "line", "--variant", "Reserves"], "--variant",
     "applies to a scenario's board"),
    (["--side-b", "Pounder", "--scenario", "nowhere"], "--scenario", "or 'line'"),
    (["--side-b", "Pounder", "--scenario", "101", "--ruleset", "tactics-2013"], "--scenario",
     "tactics-2013 duels are fought on a line only"),
    (["--side-b", "Pounder", "--policy", "advnce"], "--policy", "advnce"),
])
def test_bad_combinations_are_one_line(argv, field, words, capsys):
    assert main(["duel", "--side-a", "Ludwig", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and field in err and words in err


def test_python_default_follows_the_cli(all_cards):
    from dustsim.play.battle import BattleResult

    r = duel("Ludwig", "Pounder", cards=all_cards, trials=30, seed=1)
    assert isinstance(r, BattleResult) and str(r.spec.setup.number) == "101"
    assert r.spec.list_names == ("Ludwig", "Pounder") and r.trials == 30
    line = duel("Ludwig", "Pounder", cards=all_cards, scenario="line", trials=30, seed=1)
    assert line.to_dict()["scenario"] == "line" and line.spec.distance == 6
    assert "on a line, 6 squares apart" in repr(line)
    for kw, what in ((dict(distance=6), "distance"), (dict(approach="close-in"), "approach"),
                     (dict(initiative="a"), "initiative")):
        with pytest.raises(DustsimError, match=f"{what} applies to duels on a line only"):
            duel("Ludwig", "Pounder", cards=all_cards, trials=30, **kw)
    with pytest.raises(DustsimError, match="cover applies to duels on a line only"):
        duel("Ludwig", "Pounder@cover", cards=all_cards, trials=30)
    with pytest.raises(DustsimError, match="applies to a scenario's board"):
        duel("Ludwig", "Pounder", cards=all_cards, scenario="line", attacker="A")
    from dustsim.play.duel import DuelPolicy

    with pytest.raises(DustsimError, match="a DuelPolicy applies to duels on a line only"):
        duel("Ludwig", "Pounder", cards=all_cards, policy=DuelPolicy())
    for where in (None, "line"):  # a typo is named as such on either engine
        with pytest.raises(DustsimError, match="no setting 'approch'; did you mean 'approach'"):
            duel("Ludwig", "Pounder", cards=all_cards, scenario=where, approch="close-in")


def _gun_vehicle(name, edition):
    line = tuple(parse_cell({"V4": "2/2"}.get(c, "-")) for c in COLUMNS)
    gun = Weapon(name="gun", line=line, count=1, range="8")
    return Card(name=name, edition=edition, kind="vehicle", armour="V4", ap=10, move=2,
                march_move=4, damage_track=6, weapons=(gun,))


def test_tactics_duels_say_the_line_is_their_only_mode():
    a, b = (_gun_vehicle(n, "tactics-2013") for n in "AB")
    r = duel([a], [b], ruleset="tactics-2013", trials=20, turns=1)
    assert r.to_dict()["scenario"] == "line"
    assert "the only mode of Tactics duels: the board plays Dust 1947" in repr(r)
    assert "(the board plays Dust 1947 only)" in r.spec.notes[0]


# -- each engine's notes name its own gaps -------------------------------------------------------
def test_engine_gaps_are_rows_of_the_table():
    rules = [*S.SKILL_RULES.values(), *S.WEAPON_RULES.values()]
    played = {r.name for r in rules if r.status == "played"}
    assert set(S.ENGINE_GAPS) <= played
    for r in rules:
        board = r.gap_in("board")
        # the board never claims a gap of the line, and its own part is a part of the gap
        assert "on a line" not in board, r.name
        assert not board or board in r.gap, r.name
        assert r.gap_in(None) == r.gap
    with pytest.raises(ValueError, match="engine"):
        S.unplayed_rules([], "grid")


def test_skills_table_gives_each_engines_gap(all_cards, capsys):
    d47 = [c for c in all_cards if c.edition == "dust-1947"]
    rows = {r["name"]: r for r in S.skills_table(d47, "dust-1947")}
    sniper = rows["Sniper"]  # the weapon rule (the 2009 skill is another edition's)
    assert sniper["gap_line"] == sniper["gap"] and sniper["gap_board"] == ""
    assert rows["Tracked"]["gap"] == "" and "no terrain" in rows["Tracked"]["gap_line"]
    assert main(["skills", "--edition", "dust-1947"]) == 0
    out = capsys.readouterr().out
    assert "  not played (line): the chosen casualty in duels on a line" in out


def test_sniper_notes_on_the_line_and_on_the_board(all_cards):
    """The Ranger Sniper Squad: Spotter, Camouflage's special action and the Sniper's chosen
    casualty are gaps of the line only (L3321-3323, L3453-3457, L3315-3319); the board plays
    all three, so its notes name none of them."""
    from dustsim.play.battle import prepare

    d47 = [c for c in all_cards if c.edition == "dust-1947"]
    a = parse_side("Heavy Grenadier Assault Squad", d47, "dust-1947")
    b = parse_side("Ranger Sniper Squad", d47, "dust-1947")
    notes = compile_duel(a, b, distance=6, turns=1).notes
    assert notes[0].startswith("played on a line, 6 squares apart: ")
    line = S.note_rule_names(notes)
    assert {"Spotter", "Camouflage", "Sniper"} <= line
    board = prepare(a, b, scenario="101", seed=0, boards=1).notes
    assert not {"Spotter", "Camouflage", "Sniper"} & S.note_rule_names(board)
    assert not [n for n in board if "on a line" in n]


def test_air_traffic_control_is_named_once_on_the_board_and_not_on_the_line(all_cards):
    """Air Traffic Control (L3387-3389): the line's officers order aircraft, the board's do
    not: one note on the board, none on the line."""
    from dustsim.play.battle import prepare

    d47 = [c for c in all_cards if c.edition == "dust-1947"]
    a = parse_side("Seahorse", d47, "dust-1947")
    b = parse_side("Pounder", d47, "dust-1947")
    line = compile_duel(a, b, distance=6, turns=1).notes
    board = prepare(a, b, scenario="101", seed=0, boards=1).notes
    assert [n for n in line if "Air Traffic Control" in n] == []
    assert len([n for n in board if "Air Traffic Control" in n]) == 1


def test_line_notes_name_the_movement_rules_the_line_cannot_play(all_cards):
    """No terrain on a line: a tracked vehicle's terrain movement (L3689-3691) is a gap there,
    not on the board."""
    d47 = [c for c in all_cards if c.edition == "dust-1947"]
    tracked = next(c for c in d47 if S.skill_rule("Tracked") in S.card_rules(c))
    line = S.unplayed_rules([tracked], "line")
    assert any(n.startswith("Tracked") and "no terrain there" in n for n in line)
    assert not any(n.startswith("Tracked") for n in S.unplayed_rules([tracked], "board"))



# -- the headers name the variant and the lists ---------------------------------------------------
def test_board_duel_replay_names_the_sides(tmp_path, capsys):
    from dustsim.review.replay import read_replay, render_replay_html

    out = tmp_path / "game.json"
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder, Ranger Combat Squad",
                 "--scenario", "111", "--variant", "reserves", "--trials", "20", "--replay",
                 str(out)]) == 0
    head = capsys.readouterr().out.splitlines()[2]
    assert head.startswith("dust-1947, scenario 111 Field of Armor, variant Reserves, board")
    log = read_replay(out)
    assert log["sides"] == {"A": "Ludwig", "B": "Pounder, Ranger Combat Squad"}
    page = render_replay_html(log)
    assert '<b class="a">Ludwig</b> (side A)' in page
    assert '<b class="b">Pounder, Ranger Combat Squad</b> (side B)' in page
    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder", "--scenario", "line",
                 "--replay", str(tmp_path / "x.json")]) == 2
    assert "--replay applies to a scenario's board" in capsys.readouterr().err


def test_replay_page_without_list_names_says_side_a():
    from pathlib import Path

    from dustsim.review.replay import render_replay_html

    log = json.loads((Path(__file__).parent / "data" / "replay_small.json").read_text())
    log.pop("sides", None)
    page = render_replay_html(log)
    assert '<b class="a">Side A</b>, policy' in page
    log["sides"] = {"A": "A", "B": "Axis & friends"}  # a bare letter is no name; escaped
    page = render_replay_html(log)
    assert '<b class="a">Side A</b>, policy' in page
    assert '<b class="b">Axis &amp; friends</b> (side B)' in page


def test_list_vs_header_names_the_variant(capsys):
    from conftest import ROOT

    lists = [str(ROOT / "examples" / "lists" / f) for f in ("allies-rangers.toml",
                                                             "axis-heavy-grenadiers.toml")]
    assert main(["list", "vs", *lists, "--scenario", "111", "--variant", "Reserves",
                 "--trials", "20", "--boards", "1"]) == 0
    assert ", variant Reserves, board 9x12" in capsys.readouterr().out.splitlines()[2]
    assert main(["list", "vs", *lists, "--scenario", "111", "--trials", "20", "--boards", "1",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variant"] is None
    assert main(["list", "vs", *lists, "--scenario", "line", "--trials", "20"]) == 0
    assert capsys.readouterr().out.splitlines()[2].startswith(
        "on a line, 12 squares apart, up to 6 turns; 20 games")


def test_board_notes_of_the_example_lists_name_exactly_the_boards_gaps(all_cards):
    """`list vs` on 101 Firefight: the notes name every rule on the lists' cards that the board
    does not play, and no gap of the line alone (issue 23)."""
    from conftest import ROOT

    from dustsim.army.lists import load_list
    from dustsim.play.battle import prepare

    a = load_list(ROOT / "examples/lists/allies-rangers.toml", all_cards)
    b = load_list(ROOT / "examples/lists/axis-heavy-grenadiers.toml", all_cards)
    spec = prepare(a, b, scenario="101", seed=0, boards=1)
    cards = [c for lst in (a, b) for u in lst.units for c in u.cards]
    expected = {r.name for c in cards for r in S.card_rules(c, fielded=True)
                if r.unplayed or r.gap_in("board")}
    line_only = {r.name for c in cards for r in S.card_rules(c, fielded=True)
                 if not r.unplayed and r.gap_in("line") and not r.gap_in("board")}
    assert S.note_rule_names(spec.notes) == expected
    assert line_only and not line_only & S.note_rule_names(spec.notes)
