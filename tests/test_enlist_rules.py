"""Rules printed in the DUST ENLIST data whose text only the BattleScribe catalogues give
(issue 23; ``../shared/data/bsdata-dust1947``, cited by catalogue file and rule id in
:mod:`dustsim.rules.skills`): played in the attack compiler, so ``dustsim attack``, the exact
engine, the dice kernel, duels and grid battles play them from one place.

Expected values derived by hand from the faces: P (bloc), T (target), S (shield), 1/3 each.
Hits on P (003:L672); an Attack action does not re-roll (L793: only the Sustained Attack);
infantry in cover save on P or S (2/3, L684), in the open on P (1/3, L686); vehicles in the
open have no save (L727); close-combat hits ignore cover and infantry saves (L765); a bunker
gives a close-combat save on P or S (L3136); the removal roll is 2 dice on P (L741).
Monte Carlo against exact: fixed seeds, 5 standard errors."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import pytest

from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.engines.exact import evaluate
from dustsim.engines.kernel import replay, simulate
from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel, replay_duel
from dustsim.rules import skills as S
from dustsim.rules.attack import Situation, Target, compile_attack, weapon_from_cell, weapon_skills

QUIET = DuelPolicy(reactive="never", passing="never", initiative="a")


def line(text, *, keywords=(), close=False):
    w, _cell = weapon_from_cell(text, keywords=keywords, column="I1",
                               range_="C" if close else "6")
    return w


def col(text, column, *, keywords=()):
    return weapon_from_cell(text, keywords=keywords, column=column)


def squad(n=5, **kw):
    return Target(column="I1", models=n, **kw)


def mc_close(spec, mean, trials=40_000, seed=7):
    r = simulate(spec, trials, seed)
    assert abs(r.damage.mean() - mean) <= 5 * r.damage.mean_se, (r.damage.mean(), mean)


# -- Flame Burst (Dust_1947.gst 540e-f4c4-e4c9-0153) ---------------------------------------------
def test_flame_burst_no_save_in_cover_and_suppression():
    w, cell = col("3/1", "I1", keywords=("flame-burst",))
    spec = compile_attack([(w, cell)], squad(cover=True))
    plain = compile_attack([col("3/1", "I1")], squad(cover=True))
    # 3 dice at 1/3, no save: 1 model; the plain line keeps the 2/3 cover save: 1/3
    assert evaluate(spec).damage.mean() == pytest.approx(1.0)
    assert evaluate(plain).damage.mean() == pytest.approx(1 / 3)
    # any hit gives Suppression at once (as Flame): P(no hit) = (2/3)^3 = 8/27
    tok = evaluate(spec).token
    assert tok["suppressed"] == pytest.approx(19 / 27) and tok["none"] == pytest.approx(8 / 27)
    # scripted: two hits, no save dice rolled, two soldiers gone
    out = replay(spec, "PPS")
    assert (out.hits, out.unsaved, out.models_killed, out.token) == (2, 2, 2, "suppressed")


def test_flame_burst_leaves_a_vehicle_in_cover_no_save_and_keeps_damage_resilient():
    w, cell = col("1/2", "V1", keywords=("flame-burst",))
    tank = Target(column="V1", track=4, cover=True, skills=frozenset({"damage resilient"}))
    spec = compile_attack([(w, cell)], tank)
    # hit P, no cover save die, 2 Damage Resilient dice (a rule, not a save): P cancels one
    out = replay(spec, "P" "PS")
    assert (out.unsaved, out.single_damage) == (1, 1)
    # mean: 1/3 x 2 points x 2/3 kept = 4/9
    assert evaluate(spec).damage.mean() == pytest.approx(4 / 9)


# -- Radiation (Dust_1947.gst 34cd-c25a-7247-8ee9) -----------------------------------------------
def test_radiation_successful_saves_are_rolled_again():
    spec = compile_attack([col("3/1", "I1", keywords=("radiation",))], squad(cover=True))
    # a hit stays saved only when the cover save (2/3) succeeds twice: unsaved 1 - 4/9 = 5/9
    assert evaluate(spec).damage.mean() == pytest.approx(3 * F(1, 3) * F(5, 9))
    # scripted: 3 hits; saves P S T (2 saved, T fails); the 2 successes re-rolled: P T
    out = replay(spec, "PPP" "PST" "PT")
    assert (out.hits, out.unsaved, out.models_killed) == (3, 2, 2)
    mc_close(spec, 5 / 9)


def test_radiation_with_a_bunker_re_roll_of_failed_saves():
    tg = squad(cover=True, fortification="bunker")
    spec = compile_attack([col("1/1", "I1", keywords=("radiation",))], tg)
    # first save 2/3 then re-rolled (kept 2/3); a failed one (1/3) re-rolled by the bunker
    # on P or S (2/3, L3132): saved 4/9 + 2/9 = 2/3, unsaved 1/3 per hit, 1/9 per die
    assert evaluate(spec).damage.mean() == pytest.approx(1 / 9)
    # order: hit die, save die, the successes' re-roll, then the failures' re-roll
    assert replay(spec, "P" "P" "S").unsaved == 0  # saved twice (P or S)
    assert replay(spec, "P" "P" "T").unsaved == 1  # lost on the re-roll: never re-rolled again
    assert replay(spec, "P" "T" "S").unsaved == 0  # failed, the bunker's re-roll saves (P, S)
    assert replay(spec, "P" "T" "T").unsaved == 1


def test_radiation_without_a_save_changes_nothing():
    plain = compile_attack([col("2/1", "V1")], Target(column="V1", track=3))
    rad = compile_attack([col("2/1", "V1", keywords=("radiation",))],
                         Target(column="V1", track=3))
    assert not rad.groups[0].saves_rerolled
    assert evaluate(rad).damage.mean() == pytest.approx(evaluate(plain).damage.mean())


# -- Radar (Dust_1947.gst 46d2-2b5b-abf1-b90a) ---------------------------------------------------
@pytest.mark.parametrize("column, action, p_hit", [
    ("A1", "attack", F(5, 9)),      # misses re-rolled once: 1/3 + 2/3 x 1/3
    ("A1", "sustained", F(5, 9)),   # already re-rolled: "once", no second re-roll
    ("V1", "attack", F(1, 3)),      # not against a ground target
])
def test_radar_re_rolls_failed_dice_against_aircraft(column, action, p_hit):
    tg = Target(column=column, track=9)
    sit = Situation(action=action, skills=frozenset({"radar"}))
    spec = compile_attack([col("3/1", column)], tg, sit)
    assert evaluate(spec).damage.mean() == pytest.approx(float(3 * p_hit))
    if column == "A1" and action == "attack":
        assert replay(spec, "PSS" "TP").unsaved == 2  # 1 hit, 2 misses re-rolled: 1 more


def test_radar_reaches_battles_through_the_card():
    gun = Weapon(name="gun", line=tuple(parse_cell("3/1") for _ in COLUMNS), range="6")
    hexe = Card(name="x", edition="dust-1947", kind="aircraft", armour="A2", damage_track=6,
                skills=("Radar",), weapons=(gun,))
    assert "radar" in weapon_skills(hexe, gun)
    assert S.SKILL_RULES["radar"].status == "played"


# -- Assault Shield (Dust_1947.gst aef5-44e8-7fd4-b9e6) ------------------------------------------
def test_assault_shield_cancels_close_combat_hits_on_p():
    club = line("3/1", close=True)
    shield = squad(skills=frozenset({"assault shield", "steel guard"}))
    spec = compile_attack([club], shield, Situation(close_combat=True))
    # close combat: no save (L765); each hit cancelled on P (2/3 left), then Steel Guard's
    # Damage Resilient die (P cancels, L3661, L3485): 3 x 1/3 x 2/3 x 2/3 = 4/9
    assert evaluate(spec).damage.mean() == pytest.approx(4 / 9)
    # scripted: two hits, the shield dice P (cancelled) and S, its resilience die S: one lost
    out = replay(spec, "PPS" "PS" "S")
    assert (out.hits, out.unsaved, out.models_killed) == (2, 1, 1)
    mc_close(spec, 4 / 9)
    # ranged hits are not close-combat hits: the Steel Guard save (2/3) and resilience only
    gun = compile_attack([col("3/1", "I1")], shield)
    assert evaluate(gun).damage.mean() == pytest.approx(3 * 1 / 3 * 1 / 3 * 2 / 3)


def test_assault_shield_after_a_bunker_close_combat_save():
    tg = squad(skills=frozenset({"assault shield"}), fortification="bunker")
    spec = compile_attack([line("1/1", close=True)], tg, Situation(close_combat=True))
    # bunker save P or S (2/3), then the shield on P for a failed one: 1/3 x 1/3 x 2/3 = 2/27
    assert evaluate(spec).damage.mean() == pytest.approx(2 / 27)


# -- Mythos Creature (Dust_1947.gst 5ecc-bf37-dcad-4e11) -----------------------------------------
def vehicle(name, *weapons, track=5, skills=()):
    return Card(name=name, edition="dust-1947", kind="vehicle", armour="V1", ap=10,
                damage_track=track, move=2, march_move=4, weapons=weapons, skills=skills)


def hero(name, *weapons, track=2, skills=()):
    return Card(name=name, edition="dust-1947", kind="hero", armour="I1", ap=5,
                damage_track=track, move=2, march_move=4, weapons=weapons, skills=skills)


def gun(cells, *, keywords=(), range_="4", name="gun"):
    return Weapon(name=name, line=tuple(parse_cell(cells.get(c, "-")) for c in COLUMNS),
                  count=1, range=range_, keywords=tuple(keywords))


GUN = gun({"V1": "1/1", "I1": "1/1"})


def test_mythos_creature_takes_no_token():
    spec = compile_attack([col("2/1", "V1")],
                          Target(column="V1", track=5, skills=frozenset({"mythos creature"})))
    assert not spec.suppression and evaluate(spec).token is None
    # a duel: A's Sustained Attack hits (P); B activates with no token: no removal roll,
    # straight to its Sustained Attack (S, re-roll S). With a token it would roll "SS" first.
    a = vehicle("A", GUN)
    b = vehicle("B", GUN, skills=("Mythos Creature",))
    out = replay_duel(compile_duel([DuelUnit(a)], [DuelUnit(b)], distance=4, turns=1,
                                   policy=QUIET), "P" "S" "S")
    assert out.left == {"A": 5, "B": 4}
    plain = compile_duel([DuelUnit(a)], [DuelUnit(replace(b, skills=()))], distance=4,
                         turns=1, policy=QUIET)
    assert replay_duel(plain, "P" "SS" "S" "S").left == {"A": 5, "B": 4}


# -- Head Shot (Dust_1947.gst b11e-2700-038e-1344) -----------------------------------------------
def test_head_shot_hit_stuns_even_when_saved():
    a = vehicle("A", gun({"I1": "1/1"}, keywords=("head-shot",)))
    b = hero("B", gun({"V1": "1/1"}))
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], distance=4, turns=1, policy=QUIET)
    # A: hit P, the hero's save P holds: no damage, but a Stunned token (a hit, as Grapple's
    # wording); B: Under Fire removal fails (SS), Stunned: first action Nothing, then one plain
    # Attack (one die, S). A Tesla line would not stun here (no damage): B would Sustain (S S)
    out = replay_duel(spec, "P" "P" "SS" "S")
    assert out.left == {"A": 5, "B": 2}


def test_head_shot_may_aim():
    w, cell = col("2/1", "I1", keywords=("head-shot",))
    tg = squad(3, hero_track=2)
    spec = compile_attack([(w, cell)], tg, Situation(aim="hero"))
    # both hits go to the named hero: hits P P, saves S S (in the open, P saves): 2 damage
    out = replay(spec, "PP" "SS")
    assert (out.models_killed, out.single_damage) == (0, 2)


# -- Ace Gunner (Dust_1947.gst c7d5-d278-ef0e-0ad8) ----------------------------------------------
def test_ace_gunner_gives_the_piloted_vehicle_expert():
    a = vehicle("A", GUN)
    b = vehicle("B", GUN)
    pilot = hero("Gunner", skills=("Pilot", "Ace Gunner"))
    assert "expert" in weapon_skills(a, GUN, pilot) and "expert" not in weapon_skills(a, GUN)
    spec = compile_duel([DuelUnit(a, pilot=pilot)], [DuelUnit(b)], distance=4, turns=1,
                        policy=QUIET)
    # A's Sustained Attack: T hits with Expert (P or T, L3517); B: removal SS, Sustained S S
    assert replay_duel(spec, "T" "SS" "S" "S").left["B"] == 4
    plain = compile_duel([DuelUnit(a, pilot=replace(pilot, skills=("Pilot",)))],
                         [DuelUnit(b)], distance=4, turns=1, policy=QUIET)
    # without it: T misses, re-roll T misses; B has no token: Sustained S S
    assert replay_duel(plain, "T" "T" "S" "S").left["B"] == 5


# -- Psychic Scream's line (Dust_1947.gst 0a01-816f-3ce5-05f5) ----------------------------------
@pytest.mark.parametrize("target, mean", [
    (Target(column="I1", models=5, cover=True), 3 * 1 / 3),  # no cover nor infantry save
    (Target(column="V1", track=5, cover=True), 3 * 1 / 3),  # no cover save (L727)
    (Target(column="A1", track=5, aircraft_moved="move"), 3 * 1 / 3 * 2 / 3),  # evade P stays
])
def test_psychic_scream_line_ignores_infantry_and_cover_saves(target, mean):
    sit = Situation(skills=frozenset({"psychic scream"}))
    spec = compile_attack([col("3/1", target.column)], target, sit)
    assert evaluate(spec).damage.mean() == pytest.approx(mean)


# -- Psychic Scream on the line (Dust_1947.gst 0a01-816f-3ce5-05f5) -----------------------------
def test_psychic_scream_in_a_duel_strikes_every_enemy_within_range_3_once():
    scream = gun({"I1": "1/1"}, name="Psychic Scream", range_="3")
    a = vehicle("A", scream, skills=("Psychic Scream",))
    b1, b2 = hero("B1", GUN, track=1), hero("B2", GUN, track=1)
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b1), DuelUnit(b2)], distance=3, turns=1,
                        policy=QUIET)
    # A activates first: the free Scream, one die each on B1 and B2 (P: a hit), no save die
    # (a hero in the open saves on P, L686; the Scream ignores it): both destroyed, A wins
    out = replay_duel(spec, "P" "P")
    assert out.left == {"A": 5, "B1": 0, "B2": 0} and out.winner == "a"


# -- the table -------------------------------------------------------------------------------------
def test_catalogue_rules_cite_the_catalogue_and_unplayed_ones_say_why():
    for name in ("flame-burst", "radiation", "head-shot", "assault-shield"):
        r = S.WEAPON_RULES[name]
        assert r.status == "played" and r.lines.startswith("BSD:"), name
    for name in ("radar", "assault shield", "mythos creature", "ace gunner", "raid",
                 "quick recovery", "lesser mythos creatures", "psychic scream",
                 "crazy jimmy", "assault vehicle"):
        r = S.SKILL_RULES[name]
        assert r.status == "played" and r.lines.startswith("BSD:"), name
    for name in ("devour", "possessed"):
        r = S.SKILL_RULES[name]
        assert r.status == "not played" and r.lines.startswith("BSD:"), name
    assert S.WEAPON_RULES["large-ordnance"].status == "played"
    for name in ("fanatical", "tactician", "explode", "trailer"):
        assert "no rule text in the seeds or the BattleScribe" in S.SKILL_RULES[name].reason
