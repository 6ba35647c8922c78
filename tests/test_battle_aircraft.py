"""Aircraft on the grid (L516): an aircraft's first action is a Move or March Move; a
Helicopter hovers and need not move (L3551-3553). Hand-built board, the carry tests' harness."""

from __future__ import annotations

import pytest
from test_battle_carry import AIR_GUN, Game, shooter, sq

from dustsim.data.cards import Card
from dustsim.play.duel import DuelUnit


def plane(skills=()):
    return Card(name="Plane", edition="dust-1947", kind="aircraft", armour="A1", ap=8,
                damage_track=2, move=3, march_move=6, weapons=(AIR_GUN,), skills=tuple(skills))


@pytest.mark.parametrize("skills, moves", [((), True), (("Helicopter",), False)])
def test_an_aircraft_moves_first_a_helicopter_may_hover(skills, moves):
    # the enemy gunner is in range (4) of the aircraft where it stands and out of its own
    # reach: a plain aircraft still has to move first (Move + Attack or March); a helicopter
    # may stay and fire (a Sustained Attack) or do as it likes, but it need not move
    g = Game([DuelUnit(plane(skills))], [DuelUnit(shooter())], [sq(2, 2), sq(6, 2)],
             faces="S" * 60)
    g.activate(0)
    ev = g.events()
    first = ev[1]  # after "activate"
    if moves:
        assert first in ("move", "march"), ev
    else:  # it hovers: a Sustained Attack from where it stands (L3553)
        assert ev == ["activate", "sustained"], ev


DOZERS = """name = "dozers"
points = 150
[[unit]]
card = "Bergeluther"
count = 3
[[unit]]
card = "Gorilla Pioneer Squad"
[[unit]]
card = "Hexe"
"""
SSU = """name = "ssu"
points = 150
[[unit]]
card = "Steel Guards Anti-Infantry Squad"
[[unit]]
card = "Winter Child"
"""


def test_an_aircraft_in_battle_always_moves_first():
    """Whole games (the lists QA played: a Hexe, no Helicopter, used to hold its position):
    the replay checker holds every activation of an aircraft to L516."""
    from dustsim.army.lists import parse_list_toml
    from dustsim.data.cards import load_cards
    from dustsim.play import battle as B
    from dustsim.review.replay_rules import check_log_on_board

    cards = load_cards()
    a = parse_list_toml(DOZERS, cards, "a.toml")
    b = parse_list_toml(SSU, cards, "b.toml")
    spec = B.prepare(a, b, scenario="105", seed=21, policy="advance", attacker="A")
    seen = 0
    for seed in range(4):
        log = B.event_log(spec, seed=seed)
        hexe = next(u["id"] for u in log["units"] if u["name"] == "Hexe")
        seen += sum(1 for e in log["events"] if e.get("unit") == hexe
                    and e["action"] == "activate")
        check_log_on_board(log, spec.setup.board)
    assert seen >= 4


def test_the_checker_refuses_an_aircraft_that_does_not_move_first():
    from dustsim.errors import DustsimError
    from dustsim.review.replay_rules import _check_flier

    fliers, first = frozenset({3}), set()
    events = [{"unit": 3, "action": "activate"}, {"unit": 3, "action": "nothing"}]
    _check_flier(0, events[0], fliers, first)
    with pytest.raises(DustsimError, match=r"event 1: field 'action': 'nothing' is the first "
                       r"action of aircraft 3, which must Move or March Move first \(L516"):
        _check_flier(1, events[1], fliers, first)
    first.clear()  # a Move first, then anything; a Helicopter (not a flier) as it likes
    for i, a in enumerate(["activate", "move", "attack"]):
        _check_flier(i, {"unit": 3, "action": a}, fliers, first)
    for i, a in enumerate(["activate", "sustained"]):
        _check_flier(i, {"unit": 4, "action": a}, fliers, first)
