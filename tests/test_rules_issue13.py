"""Rules corrected or made expressible (issue 13). Every expected value is derived by hand from
the face sets (P, T, S: each 1/3) in the comment beside it, never read back from an engine;
the new situations are also checked Monte Carlo against exact (5 SE, fixed seeds)."""

import json
from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest

from dustsim.api import attack, card_attack_spec
from dustsim.cli.shell import main
from dustsim.data.cards import find_card, load_cards
from dustsim.engines.exact import apply_hits, evaluate
from dustsim.engines.kernel import simulate_batch
from dustsim.errors import DustsimError
from dustsim.rules.attack import (
    POLICIES,
    Situation,
    Target,
    compile_attack,
    target_from_card,
    weapon_choices,
    weapon_from_cell,
)
from dustsim.rules.rulesets import OPTIONS, RulesetError, get_ruleset

R09, R13, R47 = (get_ruleset(r) for r in ("tactics-2009", "tactics-2013", "dust-1947"))
EPS = 1e-12


def spec(cell, column, ruleset="dust-1947", *, count=1, keywords=(), sit=None, **target):
    w, c = weapon_from_cell(cell, count=count, keywords=keywords, column=column)
    return compile_attack([(w, c)], Target(column=column, **target), sit or Situation(),
                          ruleset)


def ex(*a, **k):
    return evaluate(spec(*a, **k))


# -- defect 1: Superhuman / Nothin's Easy never take tokens (003:L3675, L3611-3613) ------------
def test_token_immune_targets():
    normal = ex("3/1", "I2", kind="hero", track=3)
    # any hit gives Under Fire: 1 - P(no hit in 3 dice) = 1 - (2/3)^3 = 19/27
    assert normal.token["under-fire"] == pytest.approx(19 / 27, abs=EPS)
    superhuman = spec("3/1", "I2", kind="hero", track=3, skills=frozenset({"Superhuman"}))
    joined = spec("3/1", "I2", models=4, hero_track=3, hero_skills=frozenset({"Nothin's Easy"}))
    for s in (superhuman, joined):
        assert not s.suppression and evaluate(s).token is None
    # L3613 names the units the hero joins; alone, he takes tokens as before
    lone = spec("3/1", "I2", kind="hero", track=3, skills=frozenset({"Nothin's Easy"}))
    assert evaluate(lone).token["under-fire"] == pytest.approx(19 / 27, abs=EPS)


# -- defect 2: height advantage keeps the bunker re-roll (003:L3094-3096, L3132) -----------------
def test_height_and_fortification():
    # attacker higher, cover -> infantry save P (1/3); bunker re-roll P|S: 1/3 + 2/3*2/3 = 7/9
    assert R47.save("infantry", cover=True, height="attacker-higher",
                    fortification="bunker").p == F(7, 9)
    # target higher in the open -> cover save P|S (2/3); bunker re-roll: 2/3 + 1/3*2/3 = 8/9
    assert R47.save("infantry", height="target-higher", fortification="bunker").p == F(8, 9)
    # target higher in the open, strongpoint re-roll P: 2/3 + 1/3*1/3 = 7/9
    assert R47.save("infantry", height="target-higher",
                    fortification="strongpoint").p == F(7, 9)
    # target higher in cover: one re-roll at most (L3096), the better one P|S: 8/9
    assert R47.save("infantry", cover=True, height="target-higher",
                    fortification="strongpoint").p == F(8, 9)
    # attacker higher in the open: no save at all, nothing to re-roll
    assert R47.save("infantry", height="attacker-higher", fortification="bunker").p == 0
    # through the engine: 3 dice, hit 1/3, unsaved 2/9 -> 3 * 1/3 * 2/9 = 2/9 models
    r = ex("3/1", "I2", models=5, cover=True, height="attacker-higher", fortification="bunker")
    assert r.models_killed.mean() == pytest.approx(2 / 9, abs=EPS)


# -- defects 3 and 4: Fighting Spirit needs a Move (2009, 2013), 2009 reversed = blanks ----------
@pytest.mark.parametrize("ruleset,options,still,moved", [
    ("tactics-2013", {}, 1, 2),  # 3 dice x 1/3 without the Move; x 2/3 (P or T) after it
    ("tactics-2009", {}, 1, 3),  # 2009 literal reading: every face hits after a Move
    ("tactics-2009", {"fighting_spirit": "reversed"}, 1, 2),  # the 4 blanks hit: 4/6
    ("dust-1947", {}, 2, 2),  # 1947 L3521: no Move needed, P or T
])
def test_fighting_spirit(ruleset, options, still, moved):
    rs = get_ruleset(ruleset, **options)
    for mv, expected in ((False, still), (True, moved)):
        sit = Situation(moved=mv, skills=frozenset({"fighting spirit"}))
        r = evaluate(spec("3/1", "V1", rs, sit=sit, track=9))
        assert r.hits.mean() == pytest.approx(expected, abs=EPS), (ruleset, mv)


# -- defect 5: the exact engine when low (or middle) hit counts have no mass ---------------------
def test_every_die_hits():
    # 2009 Fighting Spirit after a Move: every face hits, 3 hits for sure; 2009 squads in the
    # open have no save, so 3 soldiers are lost, damage 3 (it was 1).
    sit = Situation(moved=True, skills=frozenset({"fighting spirit"}))
    r = evaluate(spec("3/1", "I2", "tactics-2009", sit=sit, models=9))
    assert r.hits.pmf(3) == pytest.approx(1.0, abs=EPS)
    assert r.damage.mean() == pytest.approx(3.0, abs=EPS)
    assert r.models_killed.pmf(3) == pytest.approx(1.0, abs=EPS)


def test_apply_hits_through_a_zero_mass_count():
    # a chain 0 -> 1 -> 2 -> 3 (one step per hit); hits 0 or 2, each with 1/2, none with 1:
    # half the mass stays at 0, half reaches 2 (skipping the power at k=1 put it at 1).
    T = np.eye(4, k=1)
    T[3, 3] = 1.0
    v = np.array([1.0, 0, 0, 0])
    out = apply_hits(v, np.array([0.5, 0.0, 0.5]), T)
    np.testing.assert_allclose(out, [0.5, 0, 0.5, 0], atol=EPS)


# -- defect 6: a lone 2009 hero has no cover save (001:L527) -------------------------------------
def test_lone_2009_hero_has_no_cover():
    # 5 dice x 1/3, no save: 5/3 damage (a cover save would have cut it)
    r = ex("5/1", "I2", "tactics-2009", kind="hero", track=9, cover=True)
    assert r.damage.mean() == pytest.approx(5 / 3, abs=EPS)
    # the squad (and a joined hero) keeps it: miss save 2/3 -> unsaved 1/3 * 1/3 per die
    r = ex("5/1", "I2", "tactics-2009", models=9, cover=True)
    assert r.unsaved.mean() == pytest.approx(5 / 9, abs=EPS)


# -- defect 7: close combat in the action: its ranged weapons still give the token (003:L739) ---
def _mixed(skills=()):
    rifle = weapon_from_cell("2/1", column="I2", name="rifle")
    knife = weapon_from_cell("2/1", column="I2", name="knife", range_="C")
    return compile_attack([rifle, knife], Target(column="I2", models=10),
                          Situation(close_combat=True, skills=frozenset(skills)), R47)


def test_close_combat_action_keeps_ranged_tokens():
    # only the rifle's 2 dice count: P(some hit) = 1 - (2/3)^2 = 5/9
    r = evaluate(_mixed())
    assert r.token["under-fire"] == pytest.approx(5 / 9, abs=EPS)
    assert r.token["none"] == pytest.approx(4 / 9, abs=EPS)
    r = evaluate(_mixed(["and stay down"]))  # L3417: Suppression directly
    assert r.token["suppressed"] == pytest.approx(5 / 9, abs=EPS)
    knife = weapon_from_cell("2/1", column="I2", range_="C")
    cc_only = compile_attack([knife], Target(column="I2", models=10),
                             Situation(close_combat=True), R47)
    assert evaluate(cc_only).token["none"] == pytest.approx(1.0, abs=EPS)


# -- defect 8: Frenzy exists only in tactics-2013 (004:L396-400) ---------------------------------
def test_frenzy_only_2013():
    sit = Situation(skills=frozenset({"frenzy"}))
    # 2013: 3 x 1/3 hits, each starting a chain of mean 1/3 / (1 - 1/3) = 1/2: 1.5 hits
    assert evaluate(spec("3/1", "I2", "tactics-2013", sit=sit, models=9)).hits.mean() == \
        pytest.approx(1.5, abs=1e-9)
    s09 = spec("3/1", "I2", "tactics-2009", sit=sit, models=9)
    assert evaluate(s09).hits.mean() == pytest.approx(1.0, abs=EPS)
    assert any("Frenzy" in n for n in s09.notes)


# -- defect 9: least-loss allocation (RULES.md §3), the default ----------------------------------
def test_least_loss_default_and_named():
    assert POLICIES[0] == "least-loss" and Target(column="I1", models=1).policy == "least-loss"
    # 1947, 2 dice vs I1 squad of 3 + hero (track 2), open: unsaved per die 1/3 * 2/3 = 2/9.
    # least-loss: hit 1 (damage 1 < 2 left) goes to the hero; hit 2 would kill him -> soldier.
    base = dict(models=3, hero_track=2)
    ll = spec("2/1", "I1", **base)
    r = evaluate(ll)
    assert ll.allocation == "least-loss" and r.allocation == "least-loss"
    assert r.models_killed.mean() == pytest.approx((2 / 9) ** 2, abs=EPS)  # both unsaved
    assert r.single_damage.mean() == pytest.approx(1 - (7 / 9) ** 2, abs=EPS)  # any unsaved
    sf = evaluate(spec("2/1", "I1", policy="squad-first", **base))
    assert sf.models_killed.mean() == pytest.approx(4 / 9, abs=EPS)  # 2 x 2/9
    assert sf.single_damage.mean() == pytest.approx(0.0, abs=EPS)
    hf = evaluate(spec("2/1", "I1", policy="hero-first", **base))
    assert hf.single_damage.mean() == pytest.approx(4 / 9, abs=EPS)
    # a hit of damage 2 would eliminate the 2-track hero: it goes to a soldier
    r2 = evaluate(spec("2/2", "I1", **base))
    assert r2.models_killed.mean() == pytest.approx(4 / 9, abs=EPS)
    assert r.summary()["allocation"] == "least-loss"


# -- expressible 5: Sniper / Assassin name the miniature (003:L3317; 001:L738-742) ---------------
def test_sniper_aims():
    w = weapon_from_cell("3/1", column="I2", keywords=["sniper"])
    tg = Target(column="I2", models=4, hero_track=3)
    # 1947 sniper: no save; H ~ Bin(3, 1/3). At one soldier: he dies if H >= 1, rest wasted.
    r = evaluate(compile_attack([w], tg, Situation(aim="soldier"), R47))
    assert r.models_killed.mean() == pytest.approx(1 - (2 / 3) ** 3, abs=EPS)
    assert r.single_damage.mean() == pytest.approx(0.0, abs=EPS)
    # at the hero: every hit to him, track 3 >= 3 dice: mean damage 3 x 1/3 = 1
    r = evaluate(compile_attack([w], tg, Situation(aim="hero"), R47))
    assert r.single_damage.mean() == pytest.approx(1.0, abs=EPS) and r.allocation == "aimed-hero"
    with pytest.raises(DustsimError, match="Sniper"):
        compile_attack([weapon_from_cell("3/1", column="I2")], tg, Situation(aim="hero"), R47)
    # 2009 (001:L738-742): the Sniper picks the miniatures; aimed at the hero, he takes every
    # hit while he lives: 3 dice x 1/3, no save in the open -> 1 damage on him, no soldier
    s09 = compile_attack([weapon_from_cell("3/1", column="I2")], tg,
                         Situation(aim="hero", skills=frozenset({"sniper"})), R09)
    r = evaluate(s09)
    assert s09.allocation == "hero-first" and r.single_damage.mean() == pytest.approx(1.0)
    assert r.models_killed.mean() == pytest.approx(0.0, abs=EPS)
    with pytest.raises(DustsimError, match="joined hero"):
        compile_attack([w], Target(column="I2", models=4), Situation(aim="hero"), R47)


# -- expressible 1, 2, 4, 6, 7 through the Python API --------------------------------------------
def test_salvo_and_volley():
    # Salvo: twice the dice (003:L3312): 2 -> 4 dice, 4/3 hits
    assert attack("2/1", "V1", keywords=("salvo",), salvo=True, track=9).hits.mean() == \
        pytest.approx(4 / 3, abs=EPS)
    assert attack("2/1", "V1", keywords=("salvo",), track=9).hits.mean() == \
        pytest.approx(2 / 3, abs=EPS)
    # Volley with 3 boxes (003:L3341): 2 x 3 = 6 dice, 2 hits
    assert attack("2/1", "V1", keywords=("volley",), volley=3, track=9).hits.mean() == \
        pytest.approx(2.0, abs=EPS)


def test_joined_hero_own_skills_and_damage():
    # 1947, 2 dice vs a joined hero with Damage Resilient of his own, hero-first: unsaved per
    # die 2/9 (infantry save 1/3); each point cancelled with 1/3 -> 2 x 2/9 x 2/3 = 8/27
    r = attack("2/1", "I2", models=4, hero_track=4, hero_damage_taken=1,
               hero_skills=frozenset({"damage resilient"}), policy="hero-first")
    assert r.single_damage.mean() == pytest.approx(8 / 27, abs=EPS)
    # the squad does not share it (L3487): squad-first loses 2 x 2/9 soldiers
    r = attack("2/1", "I2", models=4, hero_track=4, hero_skills=frozenset({"damage resilient"}),
               policy="squad-first")
    assert r.models_killed.mean() == pytest.approx(4 / 9, abs=EPS)
    s = spec("2/1", "I2", models=4, hero_track=4, hero_damage_taken=1)
    assert s.single == 3 and s.single_full == 4


def test_suppressed_unit_reacts_with_one_die():
    # 3/1 vs an unsaved vehicle. Two reactive dice: P(2 successes) = 1/9 -> Sustained Attack
    # (hits 3 x 5/9 = 5/3), P(1) = 4/9 -> Attack (hits 1): 4/9 + 5/27 = 17/27.
    assert attack("3/1", "V1", reactive=True, track=9).hits.mean() == \
        pytest.approx(17 / 27, abs=EPS)
    # Suppressed: one die (003:L747, L3333): Attack with 1/3, never Sustained: 1/3 x 1
    assert attack("3/1", "V1", reactive=True, attacker_token="suppressed",
                  track=9).hits.mean() == pytest.approx(1 / 3, abs=EPS)
    with pytest.raises(DustsimError, match="no Under Fire"):
        attack("3/1", "V1", reactive=True, attacker_token="suppressed", track=9,
               ruleset="tactics-2013")


def test_small_vehicle_always_in_cover():
    # 1947 L3649: cover save 1/3 in the open -> 3 x 1/3 x 2/3 = 2/3 damage
    assert attack("3/1", "V1", track=9, small=True).damage.mean() == \
        pytest.approx(2 / 3, abs=EPS)


# -- expressible 3: 2009 printed cover per card (001:L489-499, L495) ------------------------------
def test_2009_printed_cover():
    rangers = find_card(load_cards(), "Combat Rangers", "tactics-2009")
    assert dict(rangers.cover) == {"hard": "miss-save"} and "L495" in rangers.cover_source
    full = replace(rangers, kind="squad", armour="I2", models=5)  # the card is partial
    hard = target_from_card(full, cover_kind="hard")
    assert hard.cover and hard.cover_2009 == "miss-save"
    soft = target_from_card(full, cover_kind="soft")  # not printed anywhere: '?'
    assert soft.cover and soft.cover_2009 is None
    s = compile_attack([weapon_from_cell("3/1", column="I2")], soft, Situation(), R09)
    assert any("cover_2009" in n for n in s.notes)
    # hit save: 3 dice x 1/3 hit x 2/3 unsaved = 2/3 models
    r = attack("3/1", "I2", ruleset="tactics-2009", models=5, cover=True, cover_2009="hit-save")
    assert r.models_killed.mean() == pytest.approx(2 / 3, abs=EPS)


# -- expressible 8: which weapons fired ------------------------------------------------------------
def test_weapon_choices_say_why():
    cards = load_cards()

    def by_name(choices):  # weapon names as the bundled data spells them today
        return {"Dual MG" if c.name.startswith("Dual") else c.name.split()[0]: c
                for c in choices}

    ras = find_card(cards, "Ranger Attack Squad", "dust-1947")  # Shotgun range 2, Flame 1
    got = by_name(weapon_choices(ras, "I2", distance=2))
    assert (got["Shotgun"].fired, got["Shotgun"].reason) == (True, "")
    assert not got["Flamethrower"].fired and "out of range" in got["Flamethrower"].reason
    hras = find_card(cards, "Heavy Ranger Attack Squad", "dust-1947")  # MG '-' vs V3
    got = by_name(weapon_choices(hras, "V3"))
    assert "cannot damage" in got["Dual MG"].reason
    assert "close-combat" in got["Rocket"].reason
    got = by_name(weapon_choices(hras, "V3", close_combat=True, distance=1))
    assert not got["Dual MG"].fired and got["Rocket"].fired
    tg = target_from_card(find_card(cards, "Ranger Combat Squad", "dust-1947"))
    s, choices = card_attack_spec(ras, tg, distance=2, with_choices=True)
    assert [g.name for g in s.groups] == ["Shotgun"] and len(choices) == 2


# -- defect 10 and the CLI ------------------------------------------------------------------
def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("argv,flag,valid", [
    (["--ruleset", "warfare"], "--ruleset", "tactics-2009, tactics-2013, dust-1947"),
    (["--ruleset", "tactics-2009", "--option", "fighting_spirit=sideways"], "--option",
     "all, reversed"),
    (["--option", "fighting_spirit=all"], "--option", "resilience"),
    (["--policy", "random"], "--policy", "least-loss, squad-first, hero-first"),
    (["--edition", "warfare"], "--edition", "tactics-2009"),
    (["--edition", "tactics-2013", "--ruleset", "dust-1947"], "--edition", "tactics-2013"),
    (["--aim", "leader"], "--aim", "hero, soldier"),
])
def test_bad_flag_values_one_line(capsys, argv, flag, valid):
    rc, out, err = _run(capsys, "attack", "--weapon", "3/1", "--target", "I2", "--models", "5",
                        *argv)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and flag in err and valid in err, err
    assert "Traceback" not in err


def test_ruleset_error_is_a_value_error_and_dustsim_error():
    with pytest.raises(ValueError):
        get_ruleset("warfare")
    with pytest.raises(RulesetError) as exc:
        get_ruleset("dust-1947", resilience="sometimes")
    assert exc.value.field == "--option"


def test_cli_edition_selects_ruleset_and_new_flags(capsys):
    rc, out, _ = _run(capsys, "attack", "--weapon", "2/1", "--target", "V1", "--track", "9",
                      "--edition", "ffg-era", "--json")
    assert rc == 0 and json.loads(out)["ruleset"] == "tactics-2013"
    # --volley 3 on a volley weapon: 6 dice x 1/3 = 2 hits; allocation reported
    rc, out, _ = _run(capsys, "attack", "--weapon", "2/1", "--keyword", "volley", "--volley",
                      "3", "--target", "V1", "--track", "9", "--json")
    d = json.loads(out)
    assert rc == 0 and d["mean_hits"] == pytest.approx(2.0) and d["allocation"] == "least-loss"
    # --small: 2/3 damage (see test_small_vehicle_always_in_cover)
    rc, out, _ = _run(capsys, "attack", "--weapon", "3/1", "--target", "V1", "--track", "9",
                      "--small", "--json")
    assert json.loads(out)["mean_damage"] == pytest.approx(2 / 3)
    rc, out, _ = _run(capsys, "attack", "--unit", "Ranger Attack Squad", "--vs",
                      "Ranger Combat Squad", "--distance", "2")
    assert rc == 0 and "weapons fired   Shotgun" in out and "left out        Flamethrower" in out
    assert "allocation      least-loss" in out


def test_options_command(capsys):
    rc, out, _ = _run(capsys, "options", "--json")
    d = json.loads(out)
    assert rc == 0 and [o["name"] for o in d["options"]] == list(OPTIONS)
    for o in d["options"]:
        assert o["default"] == OPTIONS[o["name"]].default and o["source"]
    assert d["allocation"]["default"] == "least-loss"
    rc, out, _ = _run(capsys, "options")
    assert rc == 0 and "fighting_spirit: all | reversed" in out and "001:L714-720" in out


# -- Monte Carlo against exact on the new situations -----------------------------------------
def _mc_specs():
    sniper = weapon_from_cell("3/1", column="I2", keywords=["sniper"])
    tg = Target(column="I2", models=4, hero_track=3)
    return {
        "least-loss hero": spec("4/1", "I1", models=3, hero_track=3),
        "least-loss 2009 /2": spec("4/2", "I2", "tactics-2009", models=4, hero_track=3),
        "least-loss resilient hero": spec("5/1", "I2", models=3, hero_track=3,
                                          hero_skills=frozenset({"damage resilient"}),
                                          hero_damage_taken=1),
        "aimed soldier": compile_attack([sniper], tg, Situation(aim="soldier"), R47),
        "aimed hero": compile_attack([sniper], tg, Situation(aim="hero"), R47),
        "close combat + ranged": _mixed(),
        "suppressed reactor": spec("4/1", "I2", models=5, sit=Situation(
            action="reactive", token="suppressed")),
        "bunker, attacker higher": spec("6/1", "I2", models=5, cover=True, fortification="bunker",
                                        height="attacker-higher"),
        "2009 every die hits": spec("3/1", "I2", "tactics-2009", models=9, sit=Situation(
            moved=True, skills=frozenset({"fighting spirit"}))),
    }


def test_mc_matches_exact_on_new_situations():
    specs = _mc_specs()
    n = 20_000
    mc = simulate_batch(list(specs.values()), n, seed=13)
    for (name, s), m in zip(specs.items(), mc, strict=True):
        e = evaluate(s)
        assert m.allocation == e.allocation == s.allocation
        for q in ("hits", "unsaved", "damage", "models_killed", "single_damage"):
            de, dm = getattr(e, q), getattr(m, q)
            se = de.std() / np.sqrt(n)
            assert abs(de.mean() - dm.mean()) <= 5 * se + 1e-9, (name, q, de.mean(), dm.mean())
        if e.token is not None:
            for k, p in e.token.items():
                assert abs(p - m.token[k]) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9, (name, k)


# -- duels compile through the same rules ------------------------------------------------------
def test_duels_use_the_corrected_rules(all_cards):
    from dustsim.play import duel_kernel as K
    from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel, join_hero

    frank = find_card(all_cards, "Frank", "dust-1947")  # Nothin's Easy (003:L3611-3613)
    squad = next(c for c in all_cards if c.edition == "dust-1947" and c.kind == "squad"
                 and c.armour == frank.armour and c.models and c.move)
    pounder = find_card(all_cards, "Pounder", "dust-1947")
    sp = compile_duel([DuelUnit(pounder)], [join_hero(frank, squad), DuelUnit(frank)])
    assert sp.units[1, K.U_IMMUNE] == 1 and sp.units[2, K.U_IMMUNE] == 0
    assert sp.policy.allocation == "least-loss" == DuelPolicy().allocation
    from dustsim.engines.kernel import S_POLICY
    from dustsim.rules.attack import ALLOCATIONS

    assert ALLOCATIONS[sp.tspec[1, S_POLICY]] == "least-loss"  # the joined squad's allocation
