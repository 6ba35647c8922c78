"""Whole grid games with snipers (bundled cards): the event log names the miniature a Sniper
picks (L3317) and a Spotter's choice (L3321-3323); the replay checker accepts the games and
refuses logs that break the rules (a named officer in a squad without one, a fall with no
casualty, a spotter that spots while its weapon fires, a squad acting with its fallen
officer, L3709)."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from dustsim.data.cards import load_cards
from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play.duel import DuelUnit
from dustsim.play.policies import get_policy
from dustsim.review.replay_rules import check_log_on_board


@pytest.fixture(scope="module")
def logs():
    cards = {c.name: c for c in load_cards() if c.edition == "dust-1947"}
    a = [DuelUnit(cards[n]) for n in ("Ranger Sniper Squad", "Sturmgrenadier Sniper Squad",
                                      "Red Army Sniper Squad")]
    # armour 3-4 squads: the spotters' rifles roll one die at them, so a target in cover
    # (scenario 101's terrain) is worth spotting for (battle_rules.spot)
    b = [DuelUnit(cards[n]) for n in ("Heavy Grenadier Command Squad",
                                      "Sturmgrenadier Command Squad",
                                      "Steel Guards Command Squad")]
    setup = replace(B.scenario_setup("101", 0), turns=6)
    spec = B.compile_battle(a, b, setup, get_policy("advance"), attacker=0)
    out = []
    for seed in range(20):
        log = B.event_log(spec, seed=seed)
        out.append(log)
        events = [e for lg in out for e in lg["events"]]
        if any(e.get("aim", {}).get("fell") and e["aim"]["miniature"] == "officer"
               for e in events) and any(e.get("spotter") == "spots" for e in events):
            break
    return out


def _find(logs, test):
    return next(((lg, i) for lg in logs for i, e in enumerate(lg["events"]) if test(e)), None)


def test_games_with_snipers_pass_the_checker_and_say_what_the_sniper_picked(logs):
    for lg in logs:
        check_log_on_board(lg)
    found = _find(logs, lambda e: e.get("aim", {}).get("fell")
                  and e["aim"]["miniature"] == "officer")
    assert found is not None
    lg, i = found
    ev = lg["events"][i]
    assert "Sniper picks the officer" in ev["text"] and "L3709" in ev["text"]
    assert ev["casualties"] >= 1
    t = ev["target"]
    assert "Officer soldier" in lg["units"][t]["rules"]
    # the squad takes no officer action after (L3709; no medic on these sides)
    assert not any(e.get("unit") == t and e.get("special") in ("rally", "get-moving",
                                                               "ammo-drop")
                   for e in lg["events"][i:])


def test_the_checker_refuses_a_broken_aim(logs):
    lg, i = _find(logs, lambda e: e.get("aim") is not None)
    bad = copy.deepcopy(lg)
    bad["events"][i]["aim"] = {"miniature": "officer", "fell": True}
    bad["events"][i]["casualties"] = 0
    bad["events"][i]["damage"] = 0
    with pytest.raises(DustsimError, match="L3317"):
        check_log_on_board(bad)
    bad = copy.deepcopy(lg)
    bad["events"][i]["weapons"] = [w["line"] for w in lg["units"][lg["events"][i]["unit"]]
                                   ["weapons"] if not w.get("aims")][:1]
    with pytest.raises(DustsimError, match="L3317"):
        check_log_on_board(bad)


def test_the_checker_refuses_an_officer_action_after_his_fall(logs):
    lg, i = _find(logs, lambda e: e.get("aim", {}).get("fell")
                  and e["aim"]["miniature"] == "officer")
    t = lg["events"][i]["target"]
    later = next(k for k in range(i + 1, len(lg["events"]))
                 if lg["events"][k]["action"] == "activate" and lg["events"][k]["unit"] == t)
    bad = copy.deepcopy(lg)
    ev = bad["events"][later]
    bad["events"].insert(later + 1, {
        "turn": ev["turn"], "side": ev["side"], "unit": t, "action": "special",
        "special": "rally", "target": t, "square": ev.get("square"), "dice": "PP", "hits": 2,
        "text": "a forged Rally."})
    with pytest.raises(DustsimError, match="L3709"):
        check_log_on_board(bad)


def test_a_spotter_that_spots_fires_no_weapon(logs):
    found = _find(logs, lambda e: e.get("spotter") == "spots")
    assert found is not None
    lg, i = found
    ev = lg["events"][i]
    assert ev["action"] == "sustained" and "L3321-3323" in ev["text"]
    lines = lg["units"][ev["unit"]]["weapons"]
    assert not any(w.get("spotter") for w in lines if w["line"] in ev["weapons"])
    bad = copy.deepcopy(lg)
    bad["events"][i]["weapons"] = [w["line"] for w in lines if not w["name"].startswith(
        "Improvised")]
    with pytest.raises(DustsimError, match="L3323"):
        check_log_on_board(bad)
