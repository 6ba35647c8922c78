"""Value from battles on the grid battlefield (dustsim.review.board_value): the roles it values
come from the skills table, the card plays at a stand-in AP (never its printed cost), with and
without on common random numbers, bad settings are one-line errors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dustsim.data.cards import find_card
from dustsim.errors import DustsimError
from dustsim.review import battle_value as B
from dustsim.review import board_value as BV
from dustsim.review.value import ValueSettings, main_roles
from dustsim.rules.skills import skill_rule


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


@pytest.fixture(scope="module")
def ctx(d47):
    return B.contexts(d47, seed=0, hosts=1)


def test_board_roles_are_the_ones_the_board_plays_more_of(d47):
    hanomag = find_card(d47, "Hanomag")
    assert BV.board_roles(hanomag) == ("transport (Passengers)",)
    assert BV.board_valued(hanomag)
    assert any("mounting during the game" in x for x in BV.board_left_out(hanomag))
    red_ace = find_card(d47, "Red Ace")  # piloting: the same gap on both engines
    assert "Ace Pilot" in main_roles(red_ace) and not BV.board_valued(red_ace)
    for c in d47:
        for s in c.skills:
            if BV._role_of(s) in BV.board_roles(c):
                r = skill_rule(s)
                assert r.status == "played" and r.gap_in("board") != r.gap_in("line")


def test_standin_is_never_the_printed_cost(d47, ctx):
    card = find_card(d47, "Hanomag")
    pricier = [replace(c, ap=c.ap + 20) if c is card else c for c in d47]
    kw = {"hosts": 1, "games": 8, "only": [card.name], "contexts_": ctx}
    a = BV.board_values(d47, **kw).set_index("unit")
    b = BV.board_values(pricier, **kw).set_index("unit")
    assert a.at[card.name, "board_standin"] == BV.standin_ap(card, d47) != card.ap
    assert np.isfinite(a.at[card.name, "board_value"])
    assert 0.0 <= a.at[card.name, "board_destroyed"] <= 1.0
    assert a.at[card.name, "board_value"] == b.at[card.name, "board_value"]
    assert a.at[card.name, "board_role_used"].startswith("carried units in 1 of 1")


def test_with_and_without_share_the_seed(d47, ctx, monkeypatch):
    seen = []
    real = BV._play
    monkeypatch.setattr(BV, "_play", lambda a, b, g, seed, sc: seen.append((len(a), seed))
                        or real(a, b, g, seed, sc))
    card = find_card(d47, "Air Ambulance")  # no weapon of its own: Medevac, a board role
    assert BV.board_valued(card)
    t = BV.board_values(d47, hosts=1, games=8, only=[card.name], contexts_=ctx)
    # the host alone, then with the card at its two AP (its own loss read off, step 3)
    assert len(seen) == 1 + len(BV.OFFSETS) and len({s for _n, s in seen}) == 1
    assert all(n == seen[0][0] + 1 for n, _s in seen[1:])
    assert np.isfinite(t.iloc[0]["board_value"]) and t.iloc[0]["board_why"] == ""


def test_embark_fills_the_passenger_spaces(d47, ctx):
    c = next(c for cs in ctx.values() for c in cs
             if sum(u.card.kind == "squad" for u in c.host) >= 2)
    truck = find_card(d47, "Transport Truck")
    army, _ = B._with_card(c.host, truck)
    army, n = BV.embark(army, len(army) - 1)
    from dustsim.army.lists import passenger_spaces
    from dustsim.rules.unit_rules import unit_rules

    aboard = [u for u in army if u.transport == len(army) - 1]
    assert n == len(aboard) >= 1
    assert sum(passenger_spaces(u) for u in aboard) <= unit_rules(truck).passengers


@pytest.mark.parametrize("bad", [{"board_hosts": 0}, {"board_games": True},
                                 {"board_scenario": "no such scenario"}])
def test_bad_board_settings_are_one_line_errors(bad):
    with pytest.raises(DustsimError):
        ValueSettings(battles=True, board=True, **bad)
    ValueSettings(battles=True, board=False, **bad)  # no board battles: nothing to check
    with pytest.raises(DustsimError):
        BV.board_values([], own_loss="sometimes")


def test_the_same_for_any_thread_count_and_alike_cards_play_once(d47, ctx, monkeypatch):
    names = ["PT-47A", "PT-47A (PLA)", "Recon Mickey"]  # the first two play alike
    kw = {"hosts": 1, "games": 8, "only": names, "contexts_": ctx}
    one = BV.board_values(d47, threads=1, **kw)
    calls = []
    real = BV._play
    monkeypatch.setattr(BV, "_play", lambda *a: calls.append(1) or real(*a))
    two = BV.board_values(d47, threads=2, **kw)
    np.testing.assert_array_equal(one["board_value"], two["board_value"])
    t = one.set_index("unit")
    cards = [find_card(d47, n) for n in names]
    alike = {(BV._plays_like(c), c.bloc, t.at[c.name, "board_standin"]) for c in cards}
    assert len(alike) < len(names)  # two of them play alike: played once, the same rows
    a, b = t.loc["PT-47A"], t.loc["PT-47A (PLA)"]
    if (a["board_standin"], find_card(d47, "PT-47A").bloc) == (
            b["board_standin"], find_card(d47, "PT-47A (PLA)").bloc):
        assert a["board_value"] == b["board_value"]
    blocs = {c.bloc for c in cards}
    # one base per host, each alike card once (at its two AP)
    assert len(calls) == len(blocs) + len(BV.OFFSETS) * len(alike)


def test_a_measurable_board_value_replaces_a_lower_bound(d47):
    import pandas as pd

    from dustsim.review.value import _combine_board

    reps = [c for c in d47 if c.ap and not main_roles(c)][:6]
    hanomag, truck = find_card(d47, "Hanomag"), find_card(d47, "Transport Truck")
    observer = find_card(d47, "USMC Observer Squad")
    rows = [{"unit": c.name, "in_fit": True, "strength": s, "host": "",
             "valued_by": "engagements", "board_value": v, "board_value_se": 1.0,
             "board_role_used": ""}
            for c, s, v in zip(reps, (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5),
                               (2.0, 4.0, 6.0, 9.0, 14.0, 20.0), strict=True)]
    rows += [{"unit": hanomag.name, "in_fit": False, "strength": -2.0, "host": "",
              "valued_by": "engagements", "board_value": 9.0, "board_value_se": 1.0,
              "board_role_used": "carried units in 8 of 8 armies"},
             {"unit": truck.name, "in_fit": False, "strength": -2.0, "host": "",
              "valued_by": "engagements", "board_value": 9.0, "board_value_se": 1.0,
              "board_role_used": "nothing to carry in its armies"},
             {"unit": observer.name, "in_fit": False, "strength": -2.0, "host": "",
              "valued_by": "engagements", "board_value": 0.5, "board_value_se": 2.0,
              "board_role_used": ""}]
    out, scales = _combine_board(pd.DataFrame(rows), None, d47)
    t = out.set_index("unit")
    assert t.at[hanomag.name, "valued_by"].startswith("board")
    # its log value on the field's scale: their strengths' mean and sd for their log values'
    s = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 1.5])
    lv = np.log([2.0, 4.0, 6.0, 9.0, 14.0, 20.0])
    want = s.mean() + s.std(ddof=1) * (np.log(9.0) - lv.mean()) / lv.std(ddof=1)
    assert t.at[hanomag.name, "strength"] == pytest.approx(want)
    assert t.at[hanomag.name, "host"] == "" and "mounting" in t.at[hanomag.name,
                                                                   "board_left_out"]
    assert t.at[truck.name, "valued_by"] == "engagements"  # its role had nothing to act on
    assert t.at[observer.name, "valued_by"] == "engagements"  # not above its own error
    assert t.at[observer.name, "strength"] == -2.0
    assert scales is not None and scales[0] == pytest.approx(0.25)
