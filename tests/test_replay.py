"""Battle replays: the event-log contract check, the states it folds to, the sentences, the
page and the files. The fixture ``data/replay_small.json`` is a hand-written two-turn game
(four units, moves, attacks with dice, tokens, a destroyed squad); every expected figure
below is read off that file by hand."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dustsim.errors import DustsimError
from dustsim.review.replay import (
    event_text,
    read_replay,
    render_replay_html,
    square_name,
    unit_states,
    validate_log,
    write_replay,
)

FIXTURE = Path(__file__).parent / "data" / "replay_small.json"


@pytest.fixture
def log() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_fixture_is_valid_and_folds_to_the_hand_count(log):
    validate_log(log)
    end = unit_states(log)
    # A1: 5 soldiers, 1 killed by the sustained laser (event 12); moved 2 -> 26
    assert (end["A1"].square, end["A1"].models, end["A1"].tokens) == (26, 4, ("under-fire",))
    # A2: track 6, 1 damage from the laser (event 24); moved 20 -> 32
    assert (end["A2"].square, end["A2"].track, end["A2"].models) == (32, 5, None)
    # B1: 3 soldiers, 1 killed (event 3) then 2 (event 17), destroyed, tokens gone
    assert (end["B1"].models, end["B1"].destroyed, end["B1"].tokens) == (0, True, ())
    # B2: 3 soldiers, 1 + 1 killed; Under Fire (event 9) stepped up to Suppressed (event 21)
    assert (end["B2"].square, end["B2"].models, end["B2"].tokens) == (68, 1, ("suppressed",))
    start = unit_states(log, 0)
    assert (start["A1"].square, start["A1"].models, start["B2"].square) == (2, 5, 104)
    after_rally = unit_states(log, 12)  # event 11 removed B1's Under Fire token
    assert after_rally["B1"].tokens == () and after_rally["B1"].models == 2


def test_sentences(log):
    assert square_name(0, 12) == "a1" and square_name(107, 12) == "l9"
    assert square_name(26, 12) == "c3"
    assert event_text(log, 0) == "Turn 1: side A wins the initiative (rolled PPT)."
    assert event_text(log, 2) == ("Ranger Combat Squad moves 2 squares from c1 to c3, facing "
                                  "towards B's edge.")
    # two squads share a name: numbered in order
    assert event_text(log, 3) == (
        "Ranger Combat Squad attacks Heavy Laser Grenadier Squad 1 with Automatic Rifle at "
        "range 5 (target in cover): 5 dice, 2 hits, 1 saved, 1 damage, 1 soldier killed.")
    assert "Sustained Attack" in event_text(log, 12) and "4 dice, 3 re-rolled" in \
        event_text(log, 12)
    assert event_text(log, 11) == log["events"][11]["text"]  # the log's own sentence wins
    assert event_text(log, 21) == "Heavy Laser Grenadier Squad 2 is Suppressed."
    assert event_text(log, 26) == ("Game over: Side A wins by victory points (victory points "
                                   "10 to 0).")


def _set(log, where, value):
    """Set a value by path (``events.3.target``); ``...`` deletes it."""
    *path, last = where.split(".")
    obj = log
    for p in path:
        obj = obj[int(p)] if isinstance(obj, list) else obj[p]
    key = int(last) if isinstance(obj, list) else last
    if value is ...:
        del obj[key]
    else:
        obj[key] = value


BROKEN = [
    ("version", 2, "top level: field 'version': 2 is not 1"),
    ("events", ..., "top level: field 'events': missing"),
    ("board.terrain", [0] * 100, "board: field 'terrain': needs 108 codes"),
    ("board.terrain.5", 11, "board: field 'terrain': square 5: code 11 is not 0..10"),
    ("board.objectives", [52, 108], "board: field 'objectives': 108 is not a square"),
    ("board.height_level", [1] * 5, "board: field 'height_level': needs 108 whole numbers"),
    ("units.1.side", "C", "unit 'A2': field 'side': 'C' is not one of A, B"),
    ("units.3.id", "A1", "unit 3: field 'id': 'A1' is used twice"),
    ("result.winner", "C", "result: field 'winner'"),
    ("result.vp", [3], "result: field 'vp'"),
    ("events.2.to", 500, "event 2 (move): field 'to': 500 is not a square of the 12 x 9 board"),
    ("events.2.from", 3, "event 2 (move): field 'from': 'A1' stands on square 2, not 3"),
    ("events.2.path", [14, 40], "event 2 (move): field 'path': ends on square 40"),
    ("events.6.path", [92, 68, 68], "event 6 (march): field 'path': steps from square 92 to 68"),
    ("events.6.to", ..., "event 6 (march): field 'to': missing"),
    ("events.8.action", "fly", "event 8: field 'action': 'fly' is not one of"),
    ("events.8.facing", 8, "event 8 (move): field 'facing': 8 is not 0..7"),
    ("events.3.target", "B9", "event 3 (attack): field 'target': 'B9' is not among"),
    ("events.3.target", "A2", "event 3 (attack): field 'target': 'A2' is on the attacker's"),
    ("events.3.target", ..., "event 3 (attack): field 'target': missing"),
    ("events.3.dice", "PXS", "event 3 (attack): field 'dice': face 'X' is not one of P, T, S"),
    ("events.12.dice.roll", ["P", 3], "event 12 (sustained): field 'dice': 3 is not a roll"),
    ("events.3.saves", 3, "event 3 (attack): field 'saves': 3 saves for 2 hits"),
    ("events.3.hits", -1, "event 3 (attack): field 'hits': -1 is not a whole number >= 0"),
    ("events.3.los", "partial", "event 3 (attack): field 'los': 'partial' is not one of"),
    ("events.3.cover", "yes", "event 3 (attack): field 'cover': 'yes' is not true or false"),
    ("events.4.unit", ..., "event 4 (token): field 'unit': missing"),
    ("events.4.turn", "1", "event 4 (token): field 'turn': '1' is not a whole number"),
    ("events.15.side", None, "event 15 (initiative): field 'side': missing"),
    ("events.23.unit", "B1", "event 23 (nothing): field 'unit': 'B1' was destroyed before"),
]


@pytest.mark.parametrize(("where", "value", "message"), BROKEN,
                         ids=[b[0] for b in BROKEN])
def test_broken_logs_are_refused_in_one_line(log, where, value, message):
    _set(log, where, value)
    with pytest.raises(DustsimError) as e:
        validate_log(log)
    text = str(e.value)
    assert text.startswith("replay log: ") and "\n" not in text
    assert message in text, text


def test_refused_without_fields_or_shape():
    with pytest.raises(DustsimError, match="not a JSON object"):
        validate_log([])


def test_destroyed_twice_and_objectives(log):
    broken = copy.deepcopy(log)
    broken["events"].insert(19, dict(broken["events"][18]))
    with pytest.raises(DustsimError, match=r"event 19 \(destroyed\): field 'unit'"):
        validate_log(broken)
    ok = copy.deepcopy(log)
    ok["events"].insert(25, {"turn": 2, "side": "A", "unit": "A2", "action": "objective",
                             "to": 55})
    validate_log(ok)
    assert "Side A controls the objective on h5 (Pounder)." in render_replay_html(ok)
    ok["events"][25]["to"] = 54
    with pytest.raises(DustsimError, match=r"event 25 \(objective\): field 'to': square 54 "
                       "is not an objective"):
        validate_log(ok)


def test_numpy_values_are_accepted(log):
    log["units"][0]["square"] = np.int64(2)
    log["board"]["terrain"] = np.asarray(log["board"]["terrain"], dtype=np.int8)
    log["events"][2]["path"] = np.asarray([14, 26], dtype=np.int32)
    validate_log(log)
    assert unit_states(log)["A1"].square == 26


def test_page_is_self_contained(log):
    page = render_replay_html(log)
    # no fetch of any kind: no external script, style, image or link
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page)
    assert "@import" not in page and "url(http" not in page
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"]
    for i in range(len(log["events"])):  # the event list is readable without the script
        assert event_text(log, i).replace("'", "&#39;") in page
    assert "Scenario 101 Firefight" in page
    assert "Side A wins by victory points" in page


def test_page_escapes_names(log):
    log["units"][0]["name"] = "</script><script>alert(1)</script>"
    page = render_replay_html(log)
    assert "<script>alert(1)" not in page
    assert page.count("</script>") == 2  # the data block and the page script close; no more


def test_write_replay_html_and_json(log, tmp_path):
    html = write_replay(log, tmp_path / "game.html")
    assert html.read_text(encoding="utf-8").startswith("<!doctype html>")
    js = write_replay(log, tmp_path / "game.json")
    text = js.read_text(encoding="utf-8")
    assert json.loads(text) == log
    assert len(text.splitlines()) > len(log["events"])  # one event a line
    assert read_replay(js) == log
    with pytest.raises(DustsimError, match="exists; pass --force"):
        write_replay(log, tmp_path / "game.json")
    write_replay(log, tmp_path / "game.json", force=True)
    with pytest.raises(DustsimError, match=r"must end in \.html .* or \.json"):
        write_replay(log, tmp_path / "game.txt")
    log["events"][3]["target"] = "B9"
    with pytest.raises(DustsimError, match="event 3"):
        write_replay(log, tmp_path / "bad.html")
    assert not (tmp_path / "bad.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "game.json"]


def test_read_replay_names_the_file(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"version": 1}', encoding="utf-8")
    with pytest.raises(DustsimError, match=r"x\.json: replay log: top level: field 'scenario'"):
        read_replay(bad)
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(DustsimError, match=r"x\.json: cannot read the replay log"):
        read_replay(bad)


# -- the log against the board's geometry (dustsim.review.replay_rules) -------------------------
def test_fixture_agrees_with_the_board(log):
    from dustsim.review.replay_rules import board_of_log, check_log_on_board

    check_log_on_board(log)
    check_log_on_board(log, board_of_log(log))


@pytest.mark.parametrize(("change", "message"), [
    # the Rangers shoot from c3 to c8: five squares up the c file
    ({"events.3.range": 4}, "event 3 (attack): field 'range': 4, but the board's range from "
     "c3 to c8 is 5"),
    # trees on c6 stand between them and block (L616)
    ({"board.terrain.62": 2}, "event 3 (attack): field 'los': the line of sight from c3 to c8 "
     "is blocked"),
    # the Pounder (a vehicle) set up on c5 stands in the line (L612)
    ({"units.1.square": 50, "events.8.from": 50, "events.8.path": ...},
     "event 3 (attack): field 'los': the line of sight from c3 to c8 is blocked"),
    # the target stands in a trench: infantry there are in cover (L3142)
    ({"events.3.cover": False}, "event 3 (attack): field 'cover': false, but the target on c8"),
    # a straight line through square centres touches no corner
    ({"events.3.los": "cover"}, "event 3 (attack): field 'los': 'cover', but the line from c3 "
     "to c8 is 'clear'"),
    # close combat needs adjacent squares (L761)
    ({"events.24.action": "close-combat"}, "event 24 (close-combat): field 'range': close "
     "combat from i6 to i3 is not between adjacent squares"),
])
def test_attacks_against_the_board_are_checked(log, change, message):
    from dustsim.review.replay_rules import check_log_on_board

    for where, value in change.items():
        _set(log, where, value)
    with pytest.raises(DustsimError) as e:
        check_log_on_board(log)
    assert message in str(e.value), str(e.value)


def test_rules_check_refuses_another_board(log):
    from dustsim.play.board import open_board
    from dustsim.review.replay_rules import check_log_on_board

    with pytest.raises(DustsimError, match="the log's board is not the board given"):
        check_log_on_board(log, open_board())


# -- real games ------------------------------------------------------------------------------
# Recorded event logs of dustsim.play.battle.event_log for the example lists, written by
# write_replay: input fixtures of the battle's format (recorded, not re-run: the battle
# kernel's compile takes minutes), checked here as any log is.
#   replay_firefight.json: 101 Firefight, allies-rangers vs axis-heavy-grenadiers, board seed
#     3, game seed 1; replay_bridge.json: 110 Bridge Capture, allies-rangers vs
#     ssu-red-army, board seed 2, game seed 5.
REAL = Path(__file__).parent / "data" / "replay_firefight.json"
BRIDGE = Path(__file__).parent / "data" / "replay_bridge.json"


def test_real_game_holds_every_check():
    from dustsim.review.replay_rules import check_log_on_board

    log = read_replay(BRIDGE)
    check_log_on_board(log)  # ranges, sight (wrecks too), cover, weapon reach, moves
    assert "Side A wins by objective" in render_replay_html(log)
    # with the lists' names (the battle's log has them): the result names the winner's list
    named = {**log, "sides": {"A": "Allies: Rangers", "B": "Axis: Grenadiers"}}
    page = render_replay_html(named)
    assert "Allies: Rangers (side A) wins by objective" in page


def test_real_game_findings():
    """What the checks found in the recorded Firefight game (the battle kernel at the time)."""
    from dustsim.review.replay_rules import check_log_on_board

    log = read_replay(REAL)
    assert log["board"]["width"] == 9 and log["board"]["height"] == 12
    # Heinrich enters through a1, where the side's Ludwig stands (L464)
    with pytest.raises(DustsimError, match=r"event 18 \(move\): field 'path': a vehicle "
                       r"passes friendly vehicle 10 on a1 \(L464\)"):
        check_log_on_board(log, wrecks=False)
    assert "Side A wins by annihilation" in render_replay_html(log)


def test_wrecks_block_sight(log):
    """A vehicle destroyed on i5 before the Pounder (i3) fires up the i file at the squad on
    i6: its wreck blocks the line (L486)."""
    from dustsim.review.replay_rules import check_log_on_board

    log["units"].append({"id": "B3", "side": "B", "name": "Ludwig", "kind": "vehicle",
                         "armour": "V4", "models": 1, "damage_track": 6, "square": 56,
                         "facing": 4})
    log["events"].insert(1, {"turn": 1, "side": "B", "unit": "B3", "action": "destroyed"})
    check_log_on_board(log, wrecks=False)
    with pytest.raises(DustsimError, match=r"event 10 \(attack\): field 'los': the line of "
                       r"sight from i3 to i6 is blocked by a wreck \(wrecks on i5"):
        check_log_on_board(log)


def _unit(uid, side, kind, square):
    card = {"infantry": ("Ranger Combat Squad", "I2", 5, None),
            "vehicle": ("Pounder", "V4", 1, 6)}[kind]
    return {"id": uid, "side": side, "name": card[0], "kind": kind, "armour": card[1],
            "models": card[2], "damage_track": card[3], "square": square, "facing": 0}


@pytest.mark.parametrize(("change", "extra", "message"), [
    # squad 2's March Move (event 6) ending on c8, where squad 1 stands
    ({"events.6.to": 86, "events.6.path": ...}, [], "event 6 (march): field 'to': c8 is held "
     "by unit 'B1'"),
    # the Rangers' move (event 2: c1 -> c2 -> c3) through an enemy squad on c2
    ({}, [_unit("B3", "B", "infantry", 14)], "event 2 (move): field 'path': passes c2, held "
     "by enemy unit 'B3'"),
    # ... through a friendly squad: allowed (L463)
    ({}, [_unit("A3", "A", "infantry", 14)], None),
    # the Pounder (event 8: i2 -> h3 -> i3) through a friendly vehicle on h3 (L464)
    ({"events.8.path": [31, 32]}, [_unit("A3", "A", "vehicle", 31)], "event 8 (move): field "
     "'path': a vehicle passes friendly vehicle 'A3' on h3"),
    # the Pounder as a tracked vehicle into tank traps on i3 (movement class 1: tracked)
    ({"units.1.move_class": 1, "board.terrain.32": 3}, [], "event 8 (move): field 'path': i3 "
     "(tank traps) is impassable for movement class tracked"),
])
def test_moves_against_the_board(log, change, extra, message):
    from dustsim.review.replay_rules import check_log_on_board

    for where, value in change.items():
        _set(log, where, value)
    log["units"] += extra
    if message is None:
        check_log_on_board(log)
        return
    with pytest.raises(DustsimError) as e:
        check_log_on_board(log)
    assert message in str(e.value), str(e.value)


def test_real_game_broken_the_ways_a_kernel_could():
    from dustsim.review.replay_rules import check_log_on_board

    log = json.loads(REAL.read_text(encoding="utf-8"))
    swapped = copy.deepcopy(log)  # deployment zones by board zone, not by side
    swapped["board"]["deploy"].reverse()
    with pytest.raises(DustsimError, match=r"event 3 \(march\): field 'path': 0 comes onto "
                       r"the board on square 99, outside side A's deployment zone"):
        validate_log(swapped)
    # the first attack (event 11): Ludwig's line 26 fired at range 8; make it reach 6
    ev = log["events"][11]
    assert (ev["action"], ev["weapons"], ev["range"]) == ("attack", [26], 8)
    unit = next(u for u in log["units"] if u["id"] == ev["unit"])
    line = next(w for w in unit["weapons"] if w["line"] == 26)
    line["range"] = [0, 6]
    with pytest.raises(DustsimError, match=r"event 11 \(attack\): field 'weapons': line 26 "
                       r"\(.*\) reaches 0-6, but the target is at range 8"):
        check_log_on_board(log)


def test_specials_that_strike_or_bail_out_change_the_units_shown():
    """A Psychic Scream or Large Ordnance event is an attack of its own on the unit it names
    (its casualties or damage come off), and a passenger placed out of a wreck has what its
    bail-out roll left it (L530): the page and chart show them (QA: they did not)."""
    log = json.loads(REAL.read_text(encoding="utf-8"))
    squad, tank = 8, 10  # Heavy Grenadier Assault Squad (3 soldiers), Ludwig (track 6)
    log["events"][5:5] = [
        {"turn": 1, "side": "A", "unit": 0, "action": "special", "special": "psychic-scream",
         "square": 72, "target": squad, "hits": 2, "damage": 2, "casualties": 2},
        {"turn": 1, "side": "A", "unit": 0, "action": "special", "special": "area",
         "square": 72, "target": tank, "hits": 2, "damage": 3, "casualties": 0},
    ]
    after = unit_states(log, 7)
    assert after[squad].models == 1 and after[tank].track == 3
    assert unit_states(log, 5)[squad].models == 3


def test_a_huge_vehicle_enters_with_any_of_its_squares_on_its_zone():
    """A Huge vehicle's anchor is the lowest square of its 2 x 2 block (L504-512): entering
    from side A's edge (row 11) its anchor stands on row 10 while its block reaches row 11."""
    log = json.loads(REAL.read_text(encoding="utf-8"))
    ev = log["events"][3]  # unit 0 enters: path 99 (row 11) -> 90 (row 10)
    ev["path"] = [90]
    with pytest.raises(DustsimError, match=r"event 3 \(march\): field 'path': 0 comes onto "
                       r"the board on square 90, outside side A's deployment zone"):
        validate_log(copy.deepcopy(log))
    log["units"][0]["footprint"] = 4  # 90, 91, 99, 100: two squares on row 11
    validate_log(copy.deepcopy(log))
    ev["path"] = [81, 90]  # anchored on row 9: 81, 82, 90, 91, none on row 11
    with pytest.raises(DustsimError, match="comes onto the board on square 81"):
        validate_log(log)


# -- the command line -----------------------------------------------------------------------------
def test_cli_checks_and_writes(tmp_path, capsys):
    from dustsim.cli.shell import main

    page, chart = tmp_path / "g.html", tmp_path / "g.svg"
    assert main(["replay", str(BRIDGE), "--rules", "-o", str(page), "--chart", str(chart),
                 "--step", "50"]) == 0
    out = capsys.readouterr().out
    assert "255 events, contract ok, rules ok;" in out
    assert main(["replay", str(BRIDGE), "--rules", "--no-wrecks", "--quiet"]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert chart.read_bytes().startswith(b"<?xml")
    assert main(["replay", str(REAL), "--rules"]) == 2
    assert "event 18 (move): field 'path': a vehicle passes" in capsys.readouterr().err
    assert main(["replay", str(REAL), "--no-wrecks"]) == 2  # without --rules it does nothing
    capsys.readouterr()
    assert main(["replay", str(REAL), "-o", str(page)]) == 2  # exists, no --force
    assert "exists; pass --force" in capsys.readouterr().err
    assert main(["replay", str(REAL), "-o", str(page), "--force", "--quiet"]) == 0


def test_cli_bad_logs_one_line_exit_2(tmp_path, capsys):
    from dustsim.cli.shell import main

    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    log["events"][6]["path"] = [92, 68, 68]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(log), encoding="utf-8")
    assert main(["replay", str(bad), "-o", str(tmp_path / "bad.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.json: replay log: event 6 (march): field 'path'" in err
    assert not (tmp_path / "bad.html").exists()
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    log["events"][3]["range"] = 4
    bad.write_text(json.dumps(log), encoding="utf-8")
    assert main(["replay", str(bad)]) == 0  # the contract holds
    capsys.readouterr()
    assert main(["replay", str(bad), "--rules"]) == 2  # the board says range 5
    assert "field 'range': 4, but the board's range from c3 to c8 is 5" in capsys.readouterr().err
    assert main(["replay", str(FIXTURE), "--step", "3"]) == 2
    assert "--step" in capsys.readouterr().err
    assert main(["replay", str(FIXTURE), "--chart", str(tmp_path / "x.gif")]) == 2


# -- any mangled log: a DustsimError or a page, never an internal error ---------------------------
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.floats(allow_nan=True),
                    st.text(max_size=4), st.lists(st.integers(-2, 120), max_size=4),
                    st.lists(st.text(alphabet="PTSX", max_size=3), max_size=3),
                    st.dictionaries(st.text(max_size=3), st.integers(0, 5), max_size=2))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mangled_logs_fail_cleanly(data):
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    places = {"event": log["events"], "unit": log["units"], "board": [log["board"]],
              "top": [log], "result": [log["result"]]}  # taken before any change
    for _ in range(data.draw(st.integers(1, 3))):
        objs = places[data.draw(st.sampled_from(sorted(places)))]
        obj = objs[data.draw(st.integers(0, len(objs) - 1))]
        keys = [*sorted(obj), "from", "to", "path", "target", "dice", "token", "objective"]
        key = data.draw(st.sampled_from(keys))
        if data.draw(st.booleans()) and key in obj:
            del obj[key]
        else:
            obj[key] = data.draw(_VALUES)
    try:
        validate_log(log)
    except DustsimError as e:
        assert "\n" not in str(e) and str(e).startswith("replay log: ")
        return
    render_replay_html(log)
    unit_states(log)


def late_game(log: dict) -> dict:
    """The fixture with a close combat, an objective taken and an exit added in turn 2: the
    Pounder drives i3 -> i5 and fights squad 2 (on i6), which falls; side A holds objective 1
    (h5); the Rangers march back to c1 and leave by their edge."""
    more = [
        {"turn": 2, "side": "A", "unit": "A2", "action": "activate"},
        {"turn": 2, "side": "A", "unit": "A2", "action": "move", "from": 32, "path": [44, 56],
         "to": 56, "facing": 0},
        {"turn": 2, "side": "A", "unit": "A2", "action": "close-combat", "weapon":
         "Improvised Close Combat", "target": "B2", "range": 1, "dice": "PT", "hits": 1,
         "saves": 0, "damage": 1, "casualties": 1},
        {"turn": 2, "side": "B", "unit": "B2", "action": "destroyed"},
        {"turn": 2, "side": "A", "unit": None, "action": "objective", "objective": 1},
        {"turn": 2, "side": "A", "unit": "A1", "action": "activate"},
        {"turn": 2, "side": "A", "unit": "A1", "action": "march", "from": 26, "path": [14, 2],
         "to": 2},
        {"turn": 2, "side": "A", "unit": "A1", "action": "exit", "from": 2},
    ]
    log["events"][25:25] = more
    return log


def test_late_game_holds_the_rules(log):
    from dustsim.review.replay_rules import check_log_on_board

    log = late_game(log)
    check_log_on_board(log)
    end = unit_states(log)
    assert end["B2"].destroyed and end["A1"].square is None and end["A2"].square == 56
    assert event_text(log, 29) == "Side A controls the objective on h5."
    assert event_text(log, 32) == "Ranger Combat Squad leaves the board by its exit edge " \
        "from c1."


def test_page_hides_a_passenger_aboard_its_vehicle(log):
    """A unit aboard (L526-530) has its vehicle's square but is not drawn on the board: the
    page's unit state says so (last field), and the page's script skips it."""
    from dustsim.review.replay import page_data
    log = copy.deepcopy(log)
    log["units"].append({**_unit("A3", "A", "infantry", None)})
    log["events"].insert(0, {"turn": 0, "side": "A", "unit": "A3", "action": "special",
                             "special": "embarked", "target": "A2"})
    data = page_data(log)
    k = [u["id"] for u in log["units"]].index("A3")
    after = {c[0]: c[1:] for c in data["changes"][0]}
    assert after[k][0] == 20 and after[k][7] is True  # on the Pounder's square, aboard
    assert all(row[7] is False for row in data["initial"])
    page = render_replay_html(log)
    assert "st[0] === null || st[7]" in page


def test_a_passenger_bailing_out_is_placed_suppressed(log):
    """Survivors of a destroyed transport are placed within range 1 with a Suppression token
    (L530): the folded state carries the token the 'placed' event names."""
    log = copy.deepcopy(log)
    log["units"].append({**_unit("A3", "A", "infantry", None)})
    log["events"][:0] = [
        {"turn": 0, "side": "A", "unit": "A3", "action": "special", "special": "embarked",
         "target": "A2"},
        {"turn": 0, "side": "A", "unit": "A3", "action": "special", "special": "placed",
         "target": "A2", "to": 21, "token": "suppressed"}]
    st = unit_states(log, 2)["A3"]
    assert (st.square, st.aboard, st.tokens) == (21, None, ("suppressed",))
