"""A weapon's own rule as DUST ENLIST prints it (its "specials"): Expert and Savage Animal on
the weapon they apply to are played; rules with no text are named, never silently dropped
(issue 24: 55 hero weapons carried Expert as an unread flag)."""

from __future__ import annotations

import pytest

from dustsim import api
from dustsim.data.cards import load_cards
from dustsim.rules import skills as S


@pytest.fixture(scope="module")
def cards():
    return {c.name: c for c in load_cards() if c.edition == "dust-1947"}


def test_expert_on_the_weapon_hits_on_p_and_t():
    # Flame: no save of any kind (L3244-3248), so damage = hits. 3 dice, hits on P (1/3),
    # with Expert on P or T (2/3, L3515-3517): mean 3 x 1/3 = 1 and 3 x 2/3 = 2
    plain = api.attack("3/1", "I1", keywords=("flame",), models=10)
    expert = api.attack("3/1", "I1", keywords=("flame", "expert"), models=10)
    beast = api.attack("3/1", "I1", keywords=("flame", "savage-animal"), models=10)
    assert plain.summary()["mean_damage"] == pytest.approx(1.0)
    assert expert.summary()["mean_damage"] == pytest.approx(2.0)
    assert beast.summary()["mean_damage"] == pytest.approx(2.0)
    # no hit, so no Suppression token from the flame: all three dice miss, (2/3)^3
    # without Expert, (1/3)^3 with
    assert plain.summary()["p_token_none"] == pytest.approx(8 / 27)
    assert expert.summary()["p_token_none"] == pytest.approx(1 / 27)


def test_the_enlist_specials_are_keywords_of_the_card_weapons(cards):
    knives = next(w for w in cards["Sigrid (I)"].weapons if w.name == "Dual Knives")
    assert "expert" in knives.keywords and not knives.flags
    bite = next(w for w in cards["Ekaterina and Sabertooth"].weapons
                if w.name == "Sabertooth Bite")
    assert "savage-animal" in bite.keywords
    rail = next(w for w in cards["Steel Samuraï"].weapons if w.name == "Rail Gun-100MJ")
    assert rail.keywords == ("rail-weapon",)
    no_flag = [(c.name, w.name, f) for c in cards.values() for w in c.weapons for f in w.flags
               if f.startswith("rule not modelled")]
    assert no_flag == []  # every weapon rule of the data is a row of the table


def test_rules_without_text_are_named_in_notes_and_value(cards):
    from dustsim.review.value import not_modelled

    assert S.keyword_rule("expert").status == "played"
    assert S.keyword_rule("rail-weapon").status == "not played"
    notes = S.unplayed_rules([cards["Steel Samuraï"]])
    assert any(n.startswith("Rail Weapon (weapon rule) not played") and "Steel Samuraï" in n
               for n in notes)
    roles = dict(not_modelled(cards["Steel Samuraï"]))
    # named, not a main role: the line's dice are played (value.not_modelled)
    assert roles.get("rule not played: Rail Weapon (Rail Gun-100MJ)") is False
    # a played weapon rule is not named
    assert not any("Expert" in r for r, _m in not_modelled(cards["Sigrid (I)"]))
