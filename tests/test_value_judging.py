"""Issue 24 (judged share and saturation): attrition rates instead of capped fractions, a
Commissar valued joined to a unit (1947 L3477-3479), and cards whose main role is not played
judged on what they play with a lower-bound verdict. Expectations derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dustsim.data.cards import find_card
from dustsim.review import battle_value as B
from dustsim.review import value as V


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


def test_attrition_rate_is_the_exponential_rate_behind_a_fraction():
    # 1 - exp(-r) lost in one unit of time: r = 1 gives 1 - 1/e, r = log 2 gives 1/2
    np.testing.assert_allclose(V.attrition_rate([0.0, 0.5, 1 - math.exp(-1)]),
                               [0.0, math.log(2), 1.0])
    assert V.attrition_rate(0.001) == pytest.approx(0.001, rel=1e-3)  # small: the fraction


def test_battle_worth_is_the_change_in_attrition_rates():
    # pool 100 AP: 25 -> 50 VP won is 100 x (log 2 - log(4/3)) = 100 x log(3/2) in rate;
    # the host's own losses 40 -> 20 of 80 AP: 80 x (log 2 - log(4/3)) saved
    base = B.Outcome(margin=-15.0, var=0.0, won=25.0, lost=40.0, pool_won=100.0,
                     pool_lost=80.0, games=24)
    with_ = B.Outcome(margin=30.0, var=0.0, won=50.0, lost=20.0, pool_won=100.0,
                      pool_lost=80.0, games=24)
    assert B.worth(with_, base) == pytest.approx(100 * math.log(1.5) + 80 * math.log(1.5))
    assert B.worth(base, base) == 0.0
    # a pool emptied in every game is clipped at 1 - 1/(2 x games): finite, not infinite
    wiped = B.Outcome(30.0, 0.0, 100.0, 0.0, 100.0, 80.0, 24)
    assert B.worth(wiped, base) == pytest.approx(100 * (math.log(48) - math.log(4 / 3))
                                                 + 80 * math.log(2))


def test_a_commissar_joins_a_squad_of_its_armour(d47):
    com = find_card(d47, "NKVD Political Commisar Machine Gunner")
    assert B.must_join(com) and not B.must_join(find_card(d47, "Maggie"))
    squad = next(c for c in d47 if c.kind == "squad" and c.armour == com.armour
                 and not B.must_join(c) and c.ap)
    j = B.joined_card(squad, com)
    assert j.models == squad.models + 1
    assert j.weapons == squad.weapons + com.weapons
    assert j.ap == squad.ap + com.ap
    assert "Commissar" in j.skills
    host = (B.ListUnit(find_card(d47, "Pounder")), B.ListUnit(squad))
    army, to = B._with_card(host, com)
    assert to == squad.name and len(army) == 2 and army[1].card == j
    # never drawn as a unit of its own in a host army
    assert not B._playable(com)


def _tiny(lower_bound: bool, ap: float) -> pd.DataFrame:
    return pd.DataFrame({"unit": ["x"], "ap": [ap], "strength": [0.0], "strength_se": [0.0],
                         "host": [""], "partial": [False],
                         "mainly_unmodelled": ["transport (Passengers)"],
                         "lower_bound": [lower_bound]})


def test_a_lower_bound_is_never_over_costed():
    # fair = exp(log 10) = 10 AP, band 10 -/+ 0.5 AP (no error): printed 20 is above it
    m = V.Mapping(a=math.log(10), b=1.0, n=10, spearman=1.0, r2=1.0)
    t = V._apply(_tiny(True, 20.0), m)
    assert t.at[0, "fair_ap"] == pytest.approx(10.0)
    assert t.at[0, "verdict"] == "lower bound"
    assert V._apply(_tiny(True, 5.0), m).at[0, "verdict"] == "under-costed"  # 5 < 9.5
    assert V._apply(_tiny(False, 20.0), m).at[0, "verdict"] == "not judged"


def test_zombie_gorilla_and_steel_guard_heroes_join_only_their_kind(d47):
    """L3703: only a Zombie hero joins a Zombie unit, and it joins no other (likewise
    Gorilla L3541, Steel Guard L3661)."""
    zombies = find_card(d47, "Zombie Grenadier Squad")
    plain = next(c for c in d47 if c.kind == "squad" and c.armour == zombies.armour
                 and not set(map(str.lower, c.skills)) & set(B.OWN_KIND_JOIN) and c.ap)
    officer, zombie_hero = find_card(d47, "Florentine"), find_card(d47, "Frank Von Stein")
    assert "zombie" in map(str.lower, zombies.skills)
    assert not B.may_join_kind(officer, zombies) and B.may_join_kind(officer, plain)
    assert B.may_join_kind(zombie_hero, zombies) and not B.may_join_kind(zombie_hero, plain)
    host = (B.ListUnit(zombies), B.ListUnit(plain))
    army, to = B._with_card(host, officer)
    assert to == plain.name and army[1].hero == officer and army[0].hero is None


def test_the_report_says_a_lower_bound_in_words():
    from dustsim.review.report import finding, verdict_sentence

    s = verdict_sentence({"verdict": "lower bound", "ap": 8, "fair_ap": 5.0,
                          "mainly_unmodelled": "transport (Passengers)"})
    assert s.startswith("lower bound: judged on what it plays, worth at least 5")
    assert "transport (Passengers) is not played" in s
    fp = pd.DataFrame({"unit": ["A", "B"], "ap": [10.0, 8.0], "fair_ap": [10.0, 5.0],
                       "fair_low": [8.0, 4.0], "fair_high": [12.0, 6.0],
                       "verdict": ["in band", "lower bound"]})
    assert "1 more are judged on what they play" in finding(fp)["text"]


def test_a_commissar_plays_its_engagements_joined(d47):
    """In the one-on-one engagements too a Commissar is part of a squad of its bloc and
    armour (L3477-3479): the squad with one more model and the Commissar's weapon lines."""
    com = find_card(d47, "NKVD Political Commisar Machine Gunner")
    host = V.join_host(com, d47)
    assert host is not None and host.bloc == com.bloc and host.armour == com.armour
    assert B._may_join(com, host)
    side = V._side(com, host)
    assert side.card.models == host.models + 1
    assert side.card.weapons[-len(com.weapons):] == com.weapons
