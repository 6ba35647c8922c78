"""The one table of skills and weapon rules (issue 23): complete, honest, one source."""

from __future__ import annotations

import re

import pytest
from conftest import SHARED

from dustsim.data.cards import WEAPON_KEYWORDS, load_cards
from dustsim.rules import skills as S
from dustsim.rules.attack import ATTACKER_SKILLS, TARGET_SKILLS


@pytest.fixture(scope="module")
def cards():
    return load_cards()


def test_every_rule_on_the_bundled_cards_has_one_row(cards):
    for c in cards:
        for s in c.skills:
            assert S.skill_rule(s) is not None, (c.name, s)
        for w in c.weapons:
            for k in w.keywords:
                assert S.keyword_rule(k) is not None, (c.name, w.name, k)
    for k in S.MODELLED | set(S.KNOWN_UNMODELLED):
        assert k in S.SKILL_RULES, k
    assert set(S.WEAPON_RULES) <= set(WEAPON_KEYWORDS)
    for r in [*S.SKILL_RULES.values(), *S.WEAPON_RULES.values()]:
        assert r.status in S.STATUSES and r.kind in S.KINDS and r.reason
        assert not r.gap or r.status == "played", r.name


def test_statuses_follow_the_code():
    from dustsim.data.cards import Card, Weapon
    from dustsim.rules.attack import attacker_skills, weapon_skills

    # an attacker skill the battles' weapon lines never get is "attack only"; one they get
    # is "played" (rules.attack.weapon_skills: per weapon line, every attack)
    for s in ATTACKER_SKILLS:
        # a skill naming its line (Psychic Scream: the line named like it, rules.attack)
        gun = Weapon(name="Psychic Scream" if s == "psychic scream" else "Gun", line=(),
                     range="6")
        card = Card(name="x", edition="dust-1947", kind="hero", armour="I1",
                    skills=(f"{s.title()} - Gun" if s in ("expert", "savage animal")
                            else s.title(),), weapons=(gun,))
        if s in ("fighting spirit", "lucky", "assassin"):  # the engagement kernel's flags
            assert S.SKILL_RULES[s].status == "played", s  # (test_skills_battles.py)
        elif s == "air alert":  # the grid battles' special action (test_battle_rules_weapons)
            assert S.SKILL_RULES[s].status == "played" and S.SKILL_RULES[s].gap, s
        elif s == "sniper":  # 2009: acts only through Situation.aim, never set in battles
            assert S.SKILL_RULES[s].status == "attack only", s
        elif s in weapon_skills(card, gun):
            assert S.SKILL_RULES[s].status == "played", s
        elif s not in attacker_skills(card):
            assert S.SKILL_RULES[s].status == "attack only", s
    for s in TARGET_SKILLS:  # the target skills are compiled into every battle attack
        assert S.SKILL_RULES[s].status == "played", s
    # value reads the table (issue 23: Move and Fire was counted as played there)
    from dustsim.review.value import PLAYED_SKILLS

    assert S.SKILL_RULES["sealifter"].status == "not played"
    assert "sealifter" not in PLAYED_SKILLS and "damage resilient" in PLAYED_SKILLS
    assert ("move and fire" in PLAYED_SKILLS) == (S.SKILL_RULES["move and fire"].status
                                                   == "played")
    assert S.played_skill_names() == PLAYED_SKILLS


def test_lines_point_at_the_rule_in_seed_003():
    seed = next(iter((SHARED / "seeds").glob("003_*.txt")), None) \
        if (SHARED / "seeds").is_dir() else None
    if seed is None:
        pytest.skip("../shared/seeds not beside the checkout")
    text = seed.read_text(encoding="utf-8").splitlines()
    checked = 0
    for r in [*S.SKILL_RULES.values(), *S.WEAPON_RULES.values()]:
        m = re.match(r"L(\d+)", r.lines)
        if not m or not (3214 <= int(m.group(1)) <= 3705):
            continue  # skills and special weapons chapters: the heading is the first line
        head = text[int(m.group(1)) - 1].upper().replace("’", "'")
        words = [w.replace("-", "")[:4] for w in r.name.upper().split() if len(w) > 2]
        assert any(w in head.replace("-", "") for w in words), (r.name, r.lines, head)
        checked += 1
    assert checked > 60


def test_unplayed_rules_name_cards_and_lines(cards):
    from dustsim.data.cards import find_card

    d47 = [c for c in cards if c.edition == "dust-1947"]
    notes = S.unplayed_rules([find_card(d47, "Bazooka Joe"), find_card(d47, "Pounder"),
                              find_card(d47, "Ranger Sniper Squad")])
    names = S.note_rule_names(notes)
    assert "Officer" in names and "Scout" not in names and "Camouflage" in names
    officer = next(n for n in notes if n.startswith("Officer"))
    assert "003:L3615-3617" in officer and "Bazooka Joe" in officer
    camo = next(n for n in notes if n.startswith("Camouflage"))
    assert "except the Camouflage special action" in camo


def test_share_of_ap_not_played_is_counted_from_the_cards(cards):
    from dustsim.data.cards import Card

    a = Card(name="a", edition="dust-1947", kind="squad", armour="I2", ap=10,
             skills=("Sealifter",))
    b = Card(name="b", edition="dust-1947", kind="squad", armour="I2", ap=30,
             skills=("Damage Resilient", "Mercenary"))
    c = Card(name="c", edition="dust-1947", kind="hero", armour="I2", ap=20,
             skills=("Medal of Honor",))
    s = S.unplayed_share([a, b, c], "dust-1947")
    assert s["ap"] == 60 and s["ap_unplayed"] == 30 and s["share_ap"] == 0.5
    assert s["ap_not_played"] == 10


def test_list_vs_notes_name_exactly_the_unplayed_rules_of_the_example_lists(cards):
    """Issue 23: `list vs` dropped Scout, Command Squad, Smoke Launchers, Move and Fire and
    the platoon advantages from its notes; now the notes come from the table."""
    from conftest import ROOT

    from dustsim.army.lists import load_list
    from dustsim.play.list_battles import compile_lists

    a = load_list(ROOT / "examples/lists/allies-rangers.toml", cards)
    b = load_list(ROOT / "examples/lists/axis-heavy-grenadiers.toml", cards)
    spec = compile_lists(a, b)  # the line engine: its own gaps (a board's: test_duel_where)
    expected = {r.name for lst in (a, b) for u in lst.units for c in u.cards
                for r in S.card_rules(c, fielded=True) if r.unplayed or r.gap_in("line")}
    assert S.note_rule_names(spec.notes) == expected
    assert expected  # the example lists carry rules battles leave (partly) unplayed
    platoons = [n for n in spec.notes if n.startswith("platoon advantage not played")]
    assert len(platoons) == len(a.advantages) + len(b.advantages) == 2  # both complete


def test_cli_skills_json_and_bad_edition(capsys):
    import json

    from dustsim.cli.shell import main

    assert main(["skills", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in d["rules"]}
    assert rows["Damage Resilient"]["status"] == "played" and rows["Damage Resilient"]["ap"] > 0
    assert set(d["total"]) >= {"share_ap", "ap_unplayed", "ap"}
    # the total is the cards' own AP: recount it from the rows' cards
    assert 0 < d["total"]["share_ap"] < 1
    assert main(["skills", "--edition", "dust-1974"]) == 2
    assert "--edition" in capsys.readouterr().err
