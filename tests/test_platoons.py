"""Platoon charts as data, legal builds, faction bonus, captured vehicles, scores."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pandas as pd
import pytest

from dustsim.army import platoons as P
from dustsim.data.cards import Card
from dustsim.errors import DustsimError
from dustsim.review.analytics import scores, unit_column_table, unit_unit_table


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


@pytest.fixture(scope="module")
def charts():
    return P.load_platoons()


def test_all_charts_load_merged_book_first_and_every_one_is_buildable(charts):
    # 30 rulebook charts (digest section 17) merged with the 54 of DUST ENLIST
    assert len(charts) == 54 and len({p.name for p in charts}) == 54
    origins = {p.origin for p in charts}
    assert origins == {"book+enlist", "enlist"}
    assert sum(p.origin == "book+enlist" for p in charts) == 30
    assert all(p.buildable and p.slots[0].role == "command" for p in charts)
    by = {p.name: p for p in charts}
    # the book wins where it kept its unit boxes; lost boxes come from ENLIST
    assert by["NDAK Grenadier Platoon"].file.endswith("dust-1947.toml")
    assert by["NDAK Grenadier Platoon"].advantage_model == "blitzkrieg-tactics"
    assert "DUST ENLIST" in by["USMC Rifle Platoon"].note
    assert by["Cadet Support Platoon"].only_combat_support
    # a hero joined to a unit is one option of the slot
    kg = by["Axis Kampfgruppe Platoon"]
    assert any(o.joined for s in kg.slots for o in s.options)
    # never the source's advantage prose: not modelled, by name only
    adv = P.advantages(charts)
    assert (adv.loc[~adv["modelled"], "model"].str.startswith("advantage not modelled")).all()


def test_names_are_matched_exactly_or_explicitly_never_guessed(charts, d47):
    m = P.matches(charts, d47)
    norm = {re.sub(r"[^0-9a-z]", "", c.name.casefold()): c.name for c in d47}
    for r in m.itertuples():
        key = re.sub(r"[^0-9a-z]", "", r.printed.casefold())
        if r.matched_by in ("name", "joined"):
            assert norm[key] == r.card
        elif r.matched_by == "explicit":
            assert r.why  # every explicit match carries its reason
        else:
            assert key not in norm and pd.isna(r.card)
    assert (m["matched_by"] != "unmatched").all()  # every unit named resolves to a card
    explicit = m[m["matched_by"] == "explicit"].set_index("printed")["card"]
    # resolved by the reviewed table with the ENLIST chart as evidence, not by similarity
    assert explicit["Heavy Grenadier Flak Squad"] == "Heavy Grenadier Anti-Aircraft Squad"
    assert explicit["Mortar Squad"] == "Red Army Heavy Mortar Squad"


def test_book_and_enlist_chart_differences_are_listed(d47):
    d = P.chart_differences(cards=d47)
    assert set(d.columns) == {"platoon", "role", "slot", "book", "enlist"}
    walker = d[d["platoon"] == "Allied Medium Combat Walker Platoon"]
    assert walker["book"].str.contains("Cobra \\(AMP\\)").any()  # the book's option only


def test_builds_of_a_joined_hero_option_field_both_cards(charts, d47):
    kg = next(p for p in charts if p.name == "Axis Kampfgruppe Platoon")
    out = []
    for b in P.builds(kg, d47, 75, max_support=0):
        out.append(b)
        if len(out) > 200:
            break
    joined = [m for b in out for m in b.members if m.joined_to]
    assert joined and all(m.role in P.ROLES for m in joined)


def test_only_combat_units_as_support(charts, d47):
    cadet = next(p for p in charts if p.name == "Cadet Support Platoon")
    pool = {m.card for m in P.support_pool(cadet, d47)}
    combat = {o.name for s in cadet.slots if s.role == "required" for o in s.options}
    assert pool and pool <= combat


def test_a_bad_chart_is_a_one_line_error_naming_file_platoon_and_field(tmp_path):
    base = ('schema = 1\n[[platoon]]\nname = "X"\nbloc = "Axis"\nlines = "L1"\n'
            'advantage = "A"\nadvantage_lines = "L2"\nadvantage_text = "t"\n')
    cases = {
        "role": '[[platoon.slot]]\nrole = "captain"\noptions = [{ name = "Markus" }]\n',
        "slot 2.same_as": '[[platoon.slot]]\nrole = "command"\noptions = [{ name = "M" }]\n'
                          '[[platoon.slot]]\nrole = "required"\nsame_as = 5\n',
        "slot 1.why": '[[platoon.slot]]\nrole = "command"\noptions = [{ name = "M", '
                      'card = "Markus" }]\n',
        "slot": "",
    }
    for fld, extra in cases.items():
        f = tmp_path / "bad.toml"
        f.write_text(base + extra, encoding="utf-8")
        with pytest.raises(DustsimError) as e:
            P.parse_platoon_file(f)
        msg = str(e.value)
        assert "\n" not in msg and "bad.toml" in msg and "'X'" in msg and fld in msg
    f.write_text(base + 'advantage_model = "teleport"\n[[platoon.slot]]\nrole = "command"\n'
                 'options = [{ name = "M" }]\n', encoding="utf-8")
    with pytest.raises(DustsimError, match="advantage_model"):
        P.parse_platoon_file(f)


def _card(name, faction="", kind="squad", ap=10.0, bloc="Allies", armour="I2"):
    return Card(name=name, edition="dust-1947", kind=kind, armour=armour, bloc=bloc,
                faction=faction, ap=ap, models=4, damage_track=3)


def test_faction_bonus_worked_example_L875():
    # 100-AP USMC force: 78 AP USMC + bloc units -> +10 AP of heroes, 110 AP on the table
    cards = [_card("USMC A", "USMC", ap=40), _card("USMC B", "USMC", ap=38),
             _card("P-48", "", kind="vehicle", ap=22, armour="V3"),
             _card("USMC Hero", "USMC", kind="hero", ap=10, armour="I3")]
    by = {c.name: c for c in cards}
    members = [P.Member(c.name, "support") for c in cards]
    pts = P.force_points(members, by, 100)
    assert pts["faction"] == "USMC"
    assert pts["ap_total"] == 110 and pts["free_hero_ap"] == 10 and pts["ap_paid"] == 100
    # 74 % from the faction: no bonus
    by["USMC B"] = replace(by["USMC B"], ap=34)
    by["P-48"] = replace(by["P-48"], ap=26)
    assert P.force_points(members, by, 100)["free_hero_ap"] == 0
    # a unit of another faction voids it
    by = {c.name: c for c in cards}
    by["P-48"] = replace(by["P-48"], faction="Desert Scorpions")
    assert P.force_points(members, by, 100)["faction"] == ""
    # the bonus is capped at 10 % of the budget
    by = {c.name: c for c in cards}
    by["USMC Hero"] = replace(by["USMC Hero"], ap=14)
    assert P.force_points(members, by, 100)["free_hero_ap"] == pytest.approx(10)


def test_captured_vehicles_cost_plus_two_and_only_vehicles(d47):
    by = {c.name: c for c in d47}
    capturable = [c for c in d47 if c.capturable]
    # ENLIST's 22 capturable vehicles and BattleScribe's captured-vehicle catalogue
    assert len(capturable) >= 22 and all(c.kind == "vehicle" for c in capturable)
    for c in capturable:
        assert P.captured_cost(c) == c.ap + 2
    with pytest.raises(DustsimError, match="only vehicles"):
        P.captured_cost(by["Markus"])
    # no captured copies are cards of their own
    assert not any("(Captured)" in c.name for c in d47)


def _subset_scores(cards):
    uc = unit_column_table(cards)
    uu = unit_unit_table(cards)
    return scores(uc, uu, cards)


@pytest.fixture(scope="module")
def grenadiers(d47):
    """The NDAK Grenadier chart's cards plus a few support candidates (small, fast)."""
    names = {"The Desert Fox", "Grenadier Command Squad", "Tina And Hyäne",
             "Grenadier Battle Squad", "Grenadier Tank-Hunter Squad",
             "Heavy Grenadier Engineer Squad", "Heavy Grenadier Assault Squad",
             "Heavy Grenadier Anti-Aircraft Squad", "Heavy Grenadier Anti-Tank Squad",
             "Flammluther", "Pounder", "Mickey"}
    merc = [c for c in d47 if c.bloc == "Mercenaries"][:4]
    cards = [c for c in d47 if c.name in names] + merc
    return cards, _subset_scores(cards)


def test_every_build_is_legal(charts, grenadiers):
    cards, _ = grenadiers
    by = {c.name: c for c in cards}
    ndak = next(p for p in charts if p.name == "NDAK Grenadier Platoon")
    out = list(P.builds(ndak, cards, 60, max_support=1))
    assert out
    cmd_opts = {"The Desert Fox", "Grenadier Command Squad", "Tina And Hyäne"}
    keys = set()
    for b in out:
        roles = [m.role for m in b.members]
        assert roles[0] == "command" and b.members[0].card in cmd_opts
        assert roles.count("required") == 3 and roles.count("support") <= 1
        assert b.extra["ap_paid"] <= 60 + 1e-9
        assert sum(m.captured for m in b.members) <= 1
        assert sum(m.mercenary and m.role == "required" for m in b.members) <= 1
        heroes = [m.card for m in b.members if by[m.card].kind == "hero"]
        assert len(heroes) == len(set(heroes))
        for m in b.members:
            if m.captured:  # captured from another bloc only, a capturable vehicle
                assert by[m.card].bloc != "Axis" and by[m.card].capturable
        key = (b.members[0], tuple(sorted(map(repr, b.members[1:]))))
        assert key not in keys  # each build once
        keys.add(key)
    # Allied vehicles only as captured ones (+2 AP)
    assert all(m.captured for b in out for m in b.members if m.card in ("Pounder", "Mickey"))
    assert any(m.captured for b in out for m in b.members)
    # a tighter budget gives a subset
    tight = list(P.builds(ndak, cards, 35, max_support=1))
    assert 0 < len(tight) < len(out)


def test_mercenary_replacement_rule(charts, d47):
    by = {c.name: c for c in d47}
    ndak = next(p for p in charts if p.name == "NDAK Grenadier Platoon")
    seen = 0
    for b in P.builds(ndak, d47, 45, max_support=0):
        mercs = [m for m in b.members if m.mercenary]
        assert len(mercs) <= 1
        for m in mercs:
            assert m.role == "required" and m.replaces
            mc, rc = by[m.card], by[m.replaces]
            assert mc.bloc == "Mercenaries" and mc.armour_type == rc.armour_type
            assert mc.armour_value >= rc.armour_value
            seen += 1
    assert seen


def test_one_unit_build_scores_as_the_unit(grenadiers):
    cards, sc = grenadiers
    by = {c.name: c for c in cards}
    metrics = P.unit_metrics(sc, cards)
    pl = P.Platoon("t", "dust-1947", "Axis", "", "", "", "",
                   slots=(P.Slot("command", (P.Option("Flammluther"),)),))
    b = P.Build("t", (P.Member("Flammluther", "command"),),
                {"ap_paid": by["Flammluther"].ap})
    s = P.score_build(b, pl, metrics, by)
    row = sc[sc["unit"] == "Flammluther"].iloc[0]
    assert s["composite"] == pytest.approx(row["composite"])
    assert s["offence_per_ap"] == pytest.approx(row["offence_per_ap"])


def test_advantage_models_follow_the_get_moving_arithmetic(grenadiers, charts):
    cards, sc = grenadiers
    by = {c.name: c for c in cards}
    metrics = P.unit_metrics(sc, cards)
    ndak = next(p for p in charts if p.name == "NDAK Grenadier Platoon")
    members = (P.Member("Grenadier Command Squad", "command"),
               P.Member("Grenadier Tank-Hunter Squad", "required"),
               P.Member("Grenadier Battle Squad", "required"),
               P.Member("Heavy Grenadier Assault Squad", "required"))
    b = P.Build(ndak.name, members, {"ap_paid": sum(by[m.card].ap for m in members)})
    s = P.score_build(b, ndak, metrics, by)
    offs = [metrics[(m.card, "none")][0] for m in members[1:]]
    # Blitzkrieg: a free third action, Get Moving at 1/3 on the best eligible unit: per turn
    # (1/3) x 2 actions x its offence; per action half of that
    assert s["advantage_gain"] == pytest.approx(max(offs) / 3)
    assert s["composite"] >= s["composite_without_advantage"]
    # Mission Tactics: 2/3 instead of 1/3, at the cost of the leader's second Attack
    hg = next(p for p in charts if p.name == "Axis Heavy Grenadier Platoon")
    hg_members = (P.Member("Heavy Grenadier Engineer Squad", "command"),
                  P.Member("Heavy Grenadier Assault Squad", "required"))
    hb = P.Build(hg.name, hg_members, {"ap_paid": 21.0})
    s2 = P.score_build(hb, hg, metrics, by)
    a_lead, a_t = (metrics[(m.card, "none")][0] for m in hg_members)
    officer = by["Heavy Grenadier Engineer Squad"].has_skill("Officer")
    base = max(0.0, 2 / 3 * a_t - a_lead) if officer else 0.0
    adv = max(base, 4 / 3 * a_t - a_lead)
    assert s2["advantage_gain"] == pytest.approx((adv - base) / 2)


def test_platoon_table_ranks_builds_per_ap(charts, grenadiers):
    cards, sc = grenadiers
    t = P.platoon_table(charts, cards, sc, budget=50, max_support=1)
    assert not t.empty and set(t["platoon"]) <= {p.name for p in charts if p.buildable}
    assert (t["composite"].diff().dropna() <= 1e-12).all()
    assert (t["ap_paid"] <= 50 + 1e-9).all()
    assert (t["offence_per_ap"] * t["ap_paid"]).sub(
        t["offence_with_advantage"]).abs().max() < 1e-9
    best = P.best_builds(t)
    assert best["platoon"].is_unique
    assert all(math.isfinite(x) for x in best["composite"])


def test_fortified_slot_improves_durability(d47):
    tesla = [c for c in d47 if c.name == "Motherland Tesla Gun"]
    attackers = [c for c in d47 if c.bloc == "Allies" and c.kind == "squad"][:12] + tesla
    from dustsim.review.analytics import durability

    open_ = durability(tesla[0], attackers)
    bunker = durability(tesla[0], attackers, fortification="bunker")
    strong = durability(tesla[0], attackers, fortification="strongpoint")
    assert bunker > strong > open_  # re-rolled saves: 4 faces (bunker) vs 2 (strongpoint)


def test_platoon_search_without_a_bar_feeds_the_long_run_note(charts, grenadiers,
                                                               monkeypatch):
    """No progress bar (stderr not a terminal): the search reports each chart done to the
    Monte Carlo driver's one-time "about N min left" note, sized by the buildable charts."""
    from dustsim.engines import kernel

    made = []

    class Recorder:
        def __init__(self, total, desc):
            self.total, self.desc, self.done = total, desc, 0
            made.append(self)

        def update(self, n):
            self.done += n

    monkeypatch.setattr(kernel, "LongRunNote", Recorder)
    cards, sc = grenadiers
    P.platoon_table(charts, cards, sc, budget=50, max_support=0)
    buildable = sum(p.buildable for p in charts)
    assert [(r.total, r.done) for r in made] == [(buildable, buildable - 1)]
    assert "platoon" in made[0].desc
    P.platoon_table(charts, cards, sc, budget=50, max_support=0, progress=True)
    assert len(made) == 1  # a bar instead of the note
