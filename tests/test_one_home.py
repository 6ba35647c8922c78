"""Rules that used to live in several places, now with one home each: the captured-vehicle
surcharge (1947 L889: +2 AP), the counting rules of army building (L885-889, L928, L3625)
shared by the list checker and the platoon builder, and the one name normaliser."""

from dataclasses import replace

from dustsim.army import legality, lists, platoons
from dustsim.data import names
from dustsim.data.captured import CAPTURED_BLOC, captured_extra_ap
from dustsim.data.cards import find_card


def test_a_captured_vehicle_costs_its_card_plus_two(all_cards):
    pounder = find_card(all_cards, "Pounder", "dust-1947")
    assert pounder.kind == "vehicle"
    # L889: +2 AP, wherever the price is taken
    assert lists.ListUnit(pounder, captured=True).ap == pounder.ap + 2
    assert platoons.captured_cost(pounder) == pounder.ap + 2
    by_name = {pounder.name: pounder}
    assert platoons.member_cost(platoons.Member(pounder.name, "support", captured=True),
                                by_name) == pounder.ap + 2
    # a Captured Vehicles card prints the surcharge already
    printed = replace(pounder, bloc=CAPTURED_BLOC)
    assert lists.ListUnit(printed, captured=True).ap == pounder.ap
    assert captured_extra_ap(False, "Allies") == 0.0


def test_counting_rules_are_one_table_for_lists_and_platoons(all_cards):
    hero = next(c for c in all_cards if c.edition == "dust-1947" and c.kind == "hero")
    tank = find_card(all_cards, "Pounder", "dust-1947")
    by_name = {hero.name: hero, tank.name: tank}
    found = legality.breaches({hero.name: 2, tank.name: 2}, [tank.name, tank.name], by_name)
    assert [(b.unit, b.rule) for b in found] == [(tank.name, "Captured vehicles"),
                                                 (hero.name, "Unique heroes")]
    # the platoon builder keeps exactly the builds with no breach
    two_heroes = [platoons.Member(hero.name, "command"), platoons.Member(hero.name, "support")]
    two_captured = [platoons.Member(tank.name, "support", captured=True)] * 2
    one_each = [platoons.Member(hero.name, "command"),
                platoons.Member(tank.name, "support", captured=True)]
    assert not platoons._legal_counts(two_heroes, by_name)
    assert not platoons._legal_counts(two_captured, by_name)
    assert platoons._legal_counts(one_each, by_name)


def test_one_name_normaliser():
    assert lists._norm is names.match_key and platoons._norm is names.match_key
    assert names.match_key("Tina & Hyäne") == names.match_key("tina and hyane")
    assert names.match_key("Königsluther") == names.match_key("Konigsluther")
