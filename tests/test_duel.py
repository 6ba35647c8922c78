"""Duels: scripted replays, Monte Carlo against the exact engine, symmetry, reproducibility."""

import numpy as np
import pytest

from dustsim.api import unit_attack
from dustsim.cli.shell import main
from dustsim.data.cards import COLUMNS, Card, Weapon, find_card, parse_cell
from dustsim.errors import DustsimError
from dustsim.play.duel import (
    DuelPolicy,
    DuelUnit,
    compile_duel,
    duel,
    join_hero,
    parse_side,
    replay_duel,
    simulate_duel,
)

QUIET = DuelPolicy(reactive="never", passing="never", initiative="a")


def weapon(cells: dict, *, name="gun", count=1, range_="4", keywords=(), ammo=None):
    line = tuple(parse_cell(cells.get(c, "-")) for c in COLUMNS)
    return Weapon(name=name, line=line, count=count, range=range_, keywords=tuple(keywords),
                  ammo=ammo)


def vehicle(name, *weapons, armour="V1", track=2, move=2, edition="dust-1947"):
    return Card(name=name, edition=edition, kind="vehicle", armour=armour, ap=10,
                damage_track=track, move=move, march_move=2 * move, weapons=weapons)


def squad(name, models, *weapons, armour="I1", move=2):
    return Card(name=name, edition="dust-1947", kind="squad", armour=armour, ap=6,
                models=models, models_source="card", move=move, march_move=2 * move,
                weapons=weapons)


# -- scripted replays -----------------------------------------------------------------------------
def test_replay_move_attack_destroys():
    gun = weapon({"V1": "2/1"}, range_="6")
    a, b = vehicle("A", gun), vehicle("B", gun)
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], distance=8, turns=1,
                        policy=DuelPolicy(reactive="never"))
    # initiative: A rolls PPS, B rolls PSS -> A first; 8 > 6 but one Move (2) brings it in
    # range: Move + Attack, 2 dice PP -> 2 hits, no save in the open, track 2 -> destroyed
    out = replay_duel(spec, "PPS" "PSS" "PP")
    assert (out.winner, out.turn, out.left) == ("a", 1, {"A": 2, "B": 0})


def test_replay_reaction_tokens_and_initiative():
    gun = weapon({"V1": "2/1"}, range_="4")
    a, b = vehicle("A", gun), vehicle("B", gun)
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], distance=6, turns=3)
    faces = (
        "PSS" "SSS"  # turn 1 initiative: A
        "PS"         # A moves to 4; B reacts: 1 success -> Attack
        "SS"         # B's reactive attack misses (no re-roll in a plain Attack)
        "PS"         # A's Attack: 1 hit -> B 1 damage, Under Fire
        "SSS" "PPP"  # turn 2 initiative: B
        "SS"         # B's removal roll fails: still Under Fire (not suppressed)
        "PP"         # B in range: Sustained Attack, 2 hits -> A destroyed
    )
    out = replay_duel(spec, faces)
    assert (out.winner, out.turn, out.left) == ("b", 2, {"A": 0, "B": 1})


def test_replay_firepower_drops_with_models():
    tank = vehicle("Tank", weapon({"I1": "1/1"}), track=1)
    team = squad("Team", 2, weapon({"V1": "1/1"}, count=2))
    spec = compile_duel([DuelUnit(tank)], [DuelUnit(team)], distance=4, turns=2, policy=QUIET)
    faces = (
        "P" "S"       # turn 1, A: Sustained, 1 hit; infantry save fails -> 1 model lost
        "SS" "S" "S"  # B (Under Fire): removal fails; 1 carrier left: 1 die + its re-roll
        "S" "S"       # turn 2, A: Sustained, miss and miss
        "SS" "S" "S"  # B: removal fails; again one die and one re-roll
    )
    out = replay_duel(spec, faces)
    assert (out.winner, out.turn, out.left) == ("none", 2, {"Tank": 1, "Team": 1})
    with pytest.raises(DustsimError, match="only"):
        replay_duel(spec, faces + "S")


def test_replay_suppressed_unit_loses_an_action():
    gun = weapon({"V1": "1/1"}, range_="4")
    a, b = vehicle("A", gun, track=5), vehicle("B", gun, track=5)
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], distance=4, turns=2, policy=QUIET)
    faces = (
        "P"       # turn 1 A: Sustained, hit -> B Under Fire, 1 damage
        "SS" "S" "S"  # B: removal fails; Sustained: miss, re-roll miss
        "P"       # turn 2 A: hit -> B Suppressed
        "SS"      # B: removal fails, still Suppressed -> Nothing, then a plain Attack
        "S"       # one die, no re-roll
    )
    out = replay_duel(spec, faces)
    assert out.left == {"A": 5, "B": 3}


def test_replay_reload_and_limited_ammo():
    rl = weapon({"V1": "1/1"}, keywords=("reload",))
    a = vehicle("A", rl, track=5)
    # unarmed against A: its listed close-combat line (no dice against vehicles) replaces the
    # improvised weapon every other unit fights with (1947 L767-773)
    b = vehicle("B", weapon({"I1": "1/1"}, name="knife", range_="C"), track=5)
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], distance=4, turns=2, policy=QUIET)
    # turn 1 Sustained (die + re-roll); turn 2 Reload + Attack (one die, no re-roll)
    assert replay_duel(spec, "SS" "S").left["B"] == 5
    one_box = weapon({"V1": "1/1"}, ammo=1)
    knife = weapon({"I1": "1/1"}, name="knife", range_="C")  # no improvised weapon either
    spec = compile_duel([DuelUnit(vehicle("A", one_box, knife, track=5))], [DuelUnit(b)],
                        distance=4, turns=3, policy=QUIET)
    assert replay_duel(spec, "SS").turn == 3  # turns 2-3: no ammo, no dice


def test_initiative_tie_break_by_ruleset():
    gun = weapon({"V1": "2/1"})
    policy = DuelPolicy(reactive="never", passing="never")
    # Dust 1947: tied on the first symbol (2 each), B has more of the second -> B first
    spec = compile_duel([DuelUnit(vehicle("A", gun))], [DuelUnit(vehicle("B", gun))],
                        distance=4, turns=1, policy=policy)
    out = replay_duel(spec, "PPS" "PPT" "PP")
    assert (out.winner, out.left) == ("b", {"A": 0, "B": 2})
    # Dust Tactics 2009: no second symbol, the tie is re-rolled; A wins the re-roll
    a, b = (vehicle(n, gun, edition="tactics-2009") for n in "AB")
    spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], ruleset="tactics-2009", distance=4,
                        turns=1, policy=policy)
    out = replay_duel(spec, "PPS" "PPT" "PSS" "SSS" "PP")
    assert (out.winner, out.left) == ("a", {"A": 2, "B": 0})


def test_older_rulesets_play(all_cards):
    gun = weapon({"V4": "2/2"}, range_="8")
    for ruleset, edition in (("tactics-2009", "tactics-2009"), ("tactics-2013", "tactics-2013")):
        a = vehicle("A", gun, armour="V4", track=6, edition=edition)
        b = vehicle("B", gun, armour="V4", track=6, edition=edition)
        r = duel([a], [b], ruleset=ruleset, distance=10, turns=4, trials=4_000, seed=1)
        assert r.p_a_wins + r.p_b_wins + r.p_draw == pytest.approx(1.0)
        assert abs(r.p_a_wins - r.p_b_wins) < 5 * np.hypot(r.se("p_a_wins"), r.se("p_b_wins"))
    # the bundled older cards are partial: a clear error, never a guess
    with pytest.raises(DustsimError, match="unknown"):
        lud = next(c for c in all_cards if c.edition == "tactics-2013" and c.name == "Ludwig")
        duel([lud], [lud], ruleset="tactics-2013", trials=10)


# -- Monte Carlo against the exact engine ---------------------------------------------------------
def test_first_activation_matches_exact_engine(all_cards):
    pounder = find_card(all_cards, "Pounder", "dust-1947")
    rangers = find_card(all_cards, "Ranger Combat Squad", "dust-1947")
    spec = compile_duel([DuelUnit(pounder)], [DuelUnit(rangers)], distance=5, turns=1,
                        policy=QUIET)
    n = 60_000
    r = simulate_duel(spec, n, seed=3)
    exact = unit_attack(pounder, rangers, action="sustained")
    left = r.left("Ranger Combat Squad").probs
    p_exact = exact.models_killed.probs[::-1]  # left = models - killed
    se = np.sqrt(p_exact * (1 - p_exact) / n)
    assert np.all(np.abs(left - p_exact) <= 5 * se + 1e-12), (left, p_exact)


def test_hero_joined_and_resilient_matches_exact(all_cards):
    lg = find_card(all_cards, "Heavy Laser Grenadier Squad", "dust-1947")
    hero = next(c for c in all_cards if c.edition == "dust-1947" and c.kind == "hero"
                and c.armour == "I3" and c.damage_track and c.move
                and not {"Loner", "Superhuman", "Super Human"} & set(c.skills))
    sq = next(c for c in all_cards if c.edition == "dust-1947" and c.kind == "squad"
              and c.armour == "I3" and c.models and c.move)
    from dataclasses import replace

    unit = join_hero(hero, sq, cover=True)
    # the grenadiers cannot fight back in close combat: a close-combat line that hurts
    # nothing replaces their improvised weapon (1947 L767), so the unit's losses are their
    # one Sustained Attack's
    bare = weapon({}, name="bare hands", range_="C")
    spec = compile_duel([DuelUnit(replace(lg, weapons=(*lg.weapons, bare)))], [unit],
                        distance=2, turns=1, policy=QUIET)
    n = 60_000
    r = simulate_duel(spec, n, seed=5)
    from dustsim.data.skill_names import norm_skill
    from dustsim.engines.exact import evaluate
    from dustsim.rules.attack import TARGET_SKILLS, target_from_card
    from dustsim.rules.card_attack import card_attack_spec

    # the joined unit as the rules describe it (not the duel's own compiler): the squad's
    # card in cover, the hero's track and his defensive skills, the allocation the duel ran
    tg = replace(target_from_card(sq, cover=True, policy=spec.policy.allocation),
                 hero_track=hero.damage_track,
                 hero_skills=frozenset(map(norm_skill, hero.skills)) & TARGET_SKILLS)
    ex = evaluate(card_attack_spec(lg, tg, action="sustained"))
    start = sq.models + hero.damage_track
    left = r.left(unit.name).probs
    p_exact = np.zeros(start + 1)
    for k, p in enumerate(ex.damage.probs):
        p_exact[start - k] += p
    se = np.sqrt(p_exact * (1 - p_exact) / n)
    assert np.all(np.abs(left - p_exact) <= 5 * se + 1e-12)


# -- symmetry and reproducibility -----------------------------------------------------------------
def test_identical_sides_are_symmetric(all_cards):
    side = "Pounder, Ranger Combat Squad"
    kw = dict(cards=all_cards, scenario="line", distance=10, turns=4, trials=20_000, seed=11)
    ra = duel(side, side, initiative="a", **kw)
    rb = duel(side, side, initiative="b", **kw)
    # mirrored with the same random stream: bitwise the same numbers
    assert ra.p_a_wins == rb.p_b_wins and ra.p_b_wins == rb.p_a_wins
    assert ra.p_draw == rb.p_draw
    np.testing.assert_array_equal(ra.strength_hist[:2], rb.strength_hist[2:])
    rr = duel(side, side, **kw)  # initiative rolled: fair within 5 SE
    se = np.hypot(rr.se("p_a_wins"), rr.se("p_b_wins"))
    assert abs(rr.p_a_wins - rr.p_b_wins) < 5 * se


def test_same_seed_same_numbers_any_thread_count(all_cards):
    kw = dict(cards=all_cards, scenario="line", distance=8, turns=3, trials=10_000, seed=2)
    r1 = duel("Ludwig", "Pounder, Ranger Combat Squad", threads=1, **kw)
    r2 = duel("Ludwig", "Pounder, Ranger Combat Squad", threads=2, **kw)
    assert r1.summary() == r2.summary()
    assert r1.p_a_wins + r1.p_b_wins + r1.p_draw == pytest.approx(1.0)


def test_invariants(all_cards):
    kw = dict(cards=all_cards, scenario="line", distance=8, turns=3, trials=5_000, seed=4)
    r = duel("Ludwig", "Pounder", **kw)
    s = r.to_dict()
    assert s["units"][0]["p_destroyed"] == pytest.approx(r.p_b_wins)
    assert r.turns_to_win("a").mean() <= 3
    # a side that cannot hurt the other never wins
    # (its knife cannot hurt vehicles and replaces the improvised weapon, 1947 L767-773)
    unarmed = vehicle("Unarmed", weapon({"I1": "1/1"}, name="knife", range_="C"), armour="V4",
                      track=6)
    r = duel([unarmed], [find_card(all_cards, "Pounder", "dust-1947")], scenario="line",
             trials=2_000)
    assert r.p_a_wins == 0.0


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, field", [
    (["--side-a", "Ludwig", "--side-b", "Nobody"], "--side-b"),
    (["--side-a", "Ludwig", "--side-b", "Pounder", "--scenario", "line", "--distance", "0"],
     "--distance"),
    (["--side-a", "Ludwig", "--side-b", "Pounder", "--turns", "0"], "--turns"),
    (["--side-a", ",".join(["Ludwig"] * 41), "--side-b", "Pounder"], "--side-a"),  # > 40
    (["--side-a", "Ludwig", "--side-b", "Pounder", "--trials", "0"], "--trials"),
    (["--side-a", "Ludwig + Ranger Combat Squad", "--side-b", "Pounder"], "--side-a"),
    (["--side-a", "Ludwig", "--side-b", ","], "--side-b"),
])
def test_cli_bad_input(args, field, capsys):
    assert main(["duel", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and field in err


def test_cli_json(capsys):
    import json

    assert main(["duel", "--side-a", "Ludwig", "--side-b", "Pounder, Ranger Combat Squad@cover",
                 "--scenario", "line", "--distance", "6", "--turns", "5", "--trials", "4000",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"p_a_wins", "p_b_wins", "p_draw", "expected_turns_a_wins", "ap_lost_a",
            "units"} <= set(d)
    assert d["p_a_wins"] + d["p_b_wins"] + d["p_draw"] == pytest.approx(1.0)
    assert d["units"][2]["name"].endswith("@cover")
    assert (d["scenario"], d["distance"]) == ("line", 6)


def test_parse_side_rules(all_cards):
    with pytest.raises(DustsimError, match="same armour"):
        hero = next(c for c in all_cards if c.edition == "dust-1947" and c.kind == "hero"
                    and c.armour == "I2")
        parse_side(f"{hero.name} + Heavy Laser Grenadier Squad", all_cards, "dust-1947")
    with pytest.raises(DustsimError, match="cannot play under"):
        compile_duel(parse_side("Ludwig", all_cards, "dust-1947"),
                     parse_side("Ludwig", all_cards, "dust-1947"), ruleset="tactics-2013")
