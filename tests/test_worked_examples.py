"""Every worked example the digests list, replayed with scripted dice through the kernel.

Faces: P = bloc/army symbol (base success), T = target, S = shield (RULES.md §1). Dice are
read per weapon line: to-hit, re-rolls, chain dice, saves, then Damage Resilient dice per
unsaved hit (see dustsim.engines.kernel). Examples that need the engagement level (close-combat
retaliation, initiative) are covered where the library models them; the rest are listed in
docs/worked-examples.md.
"""

import pytest

from dustsim.data.cards import Weapon, parse_cell
from dustsim.engines.kernel import replay
from dustsim.errors import DustsimError
from dustsim.rules.attack import Situation, Target, compile_attack, weapon_from_cell
from dustsim.rules.rulesets import get_ruleset

R09, R13, R47 = "tactics-2009", "tactics-2013", "dust-1947"


def atk(cell, column, ruleset=R47, count=1, keywords=(), action="attack", skills=(), **tgt):
    w, c = weapon_from_cell(cell, count=count, keywords=keywords, column=column)
    return compile_attack([(w, c)], Target(column=column, **tgt),
                          Situation(action=action, skills=frozenset(skills)), ruleset)


def multi(cells, column, ruleset=R47, action="attack", **tgt):
    ws = []
    for i, cell in enumerate(cells):
        w, c = weapon_from_cell(cell, column=column, name=f"w{i}")
        ws.append((w, c))
    return compile_attack(ws, Target(column=column, **tgt), Situation(action=action), ruleset)


# -- Dust 1947 (seed 003) ------------------------------------------------------------------------
def test_1947_L674_blast_rolls_one_die_per_soldier():
    s = atk("*/1", "I2", models=5)
    assert s.groups[0].dice == 5
    assert replay(s, "PPTTT" + "TT").models_killed == 2


def test_1947_L690_cover_save_four_hits_three_saved():
    s = atk("4/1", "I2", models=5, cover=True)
    out = replay(s, "PPPP" + "PSPT")
    assert (out.hits, out.unsaved, out.models_killed) == (4, 1, 1)


def test_1947_L703_infantry_save_four_hits_two_saved():
    out = replay(atk("4/1", "I2", models=5), "PPPP" + "PPTS")
    assert (out.unsaved, out.models_killed) == (2, 2)


def test_1947_L713_vehicle_in_smoke_then_in_the_open():
    assert replay(atk("3/1", "V2", track=6, cover=True), "PPP" + "PTS").single_damage == 2
    out = replay(atk("3/1", "V2", track=6), "PPP")  # no save roll at all
    assert (out.unsaved, out.single_damage, out.dice_used) == (3, 3, 3)


def test_1947_L735_automatic_kill_deals_the_full_track():
    s = atk("2/#", "V3", track=4, damage_taken=1)
    assert s.single_full == 4 and s.auto_full
    out = replay(s, "PP")
    assert out.single_damage == 3  # 8 damage generated, 3 boxes left to mark: destroyed


def test_1947_L753_sustained_attack_tokens():
    first = atk("2/1", "I2", models=5, cover=True, action="sustained")
    out = replay(first, "PP" + "PS")  # 2 hits, both saved by cover
    assert (out.models_killed, out.token) == (0, "under-fire")
    second = atk("1/1", "I2", models=5, token="under-fire")
    out = replay(second, "P" + "T")  # 1 hit, infantry save fails
    assert (out.models_killed, out.token) == (1, "suppressed")


def test_1947_L308_L329_token_steps():
    assert replay(atk("3/1", "I2", models=5), "PPT" + "PP").token == "under-fire"
    assert replay(atk("3/1", "I2", models=5, token="under-fire"), "TTT").token == "under-fire"
    assert replay(atk("1/1", "I2", models=5, token="under-fire"), "P" + "P").token == \
        "suppressed"


def test_1947_L323_close_combat_never_suppresses():
    w = Weapon("Knife", tuple(parse_cell("1/1") for _ in range(14)), range="C")
    s = compile_attack([w], Target(column="I2", kind="hero", track=3),
                       Situation(close_combat=True))
    assert replay(s, "P").token == "none"


def test_1947_L757_removal_roll():
    assert get_ruleset(R47).token_after_removal("suppressed", "PT") == "under-fire"


def test_1947_L3489_damage_resilient_pooled():
    s = compile_attack([weapon_from_cell("3/2", column="V4")],
                       Target(column="V4", track=6, cover=True,
                              skills=frozenset({"damage resilient"})), Situation(), R47)
    # 3 hits; cover saves one; 2 x 2 = 4 resilience dice, 3 successes -> 1 damage
    out = replay(s, "PPP" + "PTT" + "PP" + "PT")
    assert (out.unsaved, out.single_damage) == (2, 1)


def test_1947_L3491_resilient_against_automatic_kill():
    s = compile_attack([weapon_from_cell("1/#", column="V4")],
                       Target(column="V4", track=4, damage_taken=1,
                              skills=frozenset({"damage resilient"})), Situation(), R47)
    out = replay(s, "P" + "PPTS")  # 4 dice for the full track, 2 cancel: survives with 1
    assert out.single_damage == 2 and out.dice_used == 5


def test_1947_L3493_resilient_cancels_everything():
    s = compile_attack([weapon_from_cell("2/2", column="V4")],
                       Target(column="V4", track=5, cover=True,
                              skills=frozenset({"damage resilient"})), Situation(), R47)
    out = replay(s, "PP" + "PT" + "PP")
    assert (out.unsaved, out.single_damage) == (1, 0)


# -- Dust Tactics 2013 (seed 000) and Operation Cerberus (seed 004) ------------------------------
def test_2013_R1_R2_dice_counts():
    s = multi(["4/1", "1/1", "1/1", "1/1", "1/1"], "I2", R13, models=5)
    assert sum(g.dice for g in s.groups) == 8
    w, c = weapon_from_cell("1/2", count=3, column="V4", keywords=["limited ammo"])
    s = compile_attack([(w, c)], Target(column="V4", track=5), Situation(), R13)
    assert s.groups[0].dice == 3 and s.groups[0].damage == 2


def test_2013_R3_sustained_ludwig():
    s = atk("7/1", "V4", R13, action="sustained", track=5)
    out = replay(s, "PPTTSSS" + "PTTSS")
    assert (out.hits, out.single_damage) == (3, 3)


def test_2013_R4_R5_blast_dice():
    assert atk("*/1", "I2", R13, models=3).groups[0].dice == 3
    assert atk("*/#", "V4", R13, track=6).groups[0].dice == 1


def test_2013_R6_R7_R8_saves():
    assert replay(atk("2/1", "V4", R13, track=6, cover=True), "PP" + "PT").unsaved == 1
    out = replay(atk("3/1", "I2", R13, kind="hero", track=3, cover=True), "PPP" + "PST")
    assert (out.unsaved, out.single_damage) == (1, 1)
    assert replay(atk("3/1", "I2", R13, models=5), "PPP" + "PTS").unsaved == 2


def test_2013_R9_two_weapons_remove_three_of_five():
    s = multi(["1/1", "2/1"], "I2", R13, models=5)
    out = replay(s, "P" + "T" + "PP" + "TS")
    assert (out.models_killed, 5 - out.models_killed) == (3, 2)


def test_2013_R10_damage_per_hit():
    assert replay(atk("1/3", "V4", R13, track=6), "P").single_damage == 3
    assert replay(atk("2/1", "I2", R13, kind="hero", track=3), "PT" + "T").single_damage == 1


def test_2013_R13_reactive_single_attack():
    s = atk("1/3", "V3", R13, action="reactive", track=4)
    out = replay(s, "PT" + "P")  # one success of two: one Attack, no re-roll
    assert out.single_damage == 3
    assert replay(s, "TS").hits == 0  # no success: Nothing


def test_2013_R14_reactive_sustained():
    s = atk("1/1", "I2", R13, action="reactive", count=3, models=5)
    out = replay(s, "PP" + "PTT" + "PT" + "TT")  # two successes: misses re-rolled
    assert (out.hits, out.models_killed) == (2, 2)


def test_2013_R15_sustained_laser():
    s = atk("1/3", "V4", R13, count=3, keywords=["laser"], action="sustained", track=9)
    out = replay(s, "PTS" + "PT" + "PTT")
    assert out.hits == 3


def test_2013_R16_automatic_kill_and_resilience_on_marked_points():
    lara = compile_attack([weapon_from_cell("1/#", column="I3")],
                          Target(column="I3", kind="hero", track=4, damage_taken=2,
                                 skills=frozenset({"damage resilient"})), Situation(), R13)
    out = replay(lara, "P" + "T" + "PT")  # save fails; 2 crosses marked; 2 dice, 1 restored
    assert out.single_damage == 1
    hlg = compile_attack([weapon_from_cell("2/#", column="I3")],
                         Target(column="I3", models=3, skills=frozenset({"damage resilient"})),
                         Situation(), R13)
    out = replay(hlg, "PP" + "PT" + "P")  # one saved, one not; resilience die cancels it
    assert (out.unsaved, out.models_killed) == (1, 0)


def test_2013_R17_resilience_after_marking_with_overkill():
    s = compile_attack([weapon_from_cell("1/3", count=3, column="V4")],
                       Target(column="V4", track=5, skills=frozenset({"damage resilient"})),
                       Situation(), R13)
    out = replay(s, "PPT" + "TTS" + "PT")
    assert out.single_damage == 4  # Grand'ma is left with 1


def test_cerberus_C2_frenzy():
    s = atk("3/1", "I2", R13, action="sustained", skills=["frenzy"], models=5)
    out = replay(s, "PPT" + "T" + "PTT" + "TTT")
    assert out.hits == 3


# -- Dust Tactics 2009 (seed 001) ----------------------------------------------------------------
def test_2009_W1_sustained():
    assert replay(atk("5/1", "I2", R09, action="sustained", models=9), "PPTST" + "PTS").hits == 3


def test_2009_W2_pounder_three_weapons():
    s = multi(["4/1", "3/1", "3/1"], "I2", R09, models=5)
    out = replay(s, "PPTT" + "PTS" + "TTS")
    assert out.models_killed == 3  # no infantry save in the open in 2009


def test_2009_W3_W6_dice():
    assert atk("3/1", "I2", R09, count=4, models=5).groups[0].dice == 12
    assert atk("3/1", "I2", R09, count=2, models=5).groups[0].dice == 6
    assert atk("*/1", "I2", R09, models=5, keywords=["flame"]).groups[0].dice == 5


def test_2009_W4_miss_save():
    s = atk("4/1", "I2", R09, models=5, cover=True, cover_2009="miss-save")
    out = replay(s, "PPPP" + "TSTP")
    assert out.models_killed == 1


def test_2009_W5_sustained_berserk_laser():
    s = atk("8/1", "I2", R09, keywords=["laser"], action="sustained", skills=["berserk"],
            models=5)
    out = replay(s, "P" + "T" * 7 + "P" + "T" * 6 + "PP" + "TTTT" + "TTTT")
    assert (out.hits, out.models_killed) == (4, 4)


def test_2009_W7_napalm_automatic_kill():
    out = replay(atk("*/#", "V5", R09, track=6), "P")
    assert out.single_damage == 6


def test_2009_W9_laser_on_a_lone_ranger():
    out = replay(atk("1/1", "I2", R09, keywords=["laser"], models=1), "P" + "PT")
    assert (out.hits, out.models_killed) == (2, 1)


def test_2009_W11_panzerfaust_sustained():
    s = atk("1/2", "V4", R09, count=3, action="sustained", track=6)
    out = replay(s, "PTT" + "TT")
    assert (out.hits, out.single_damage) == (1, 2)


def test_scripted_dice_must_match_exactly():
    s = atk("3/1", "I2", models=5)
    with pytest.raises(DustsimError, match="ran out"):
        replay(s, "PP")
    with pytest.raises(DustsimError, match="needed"):
        replay(s, "TTTT")


# -- engagement level (dustsim.play.duel) ----------------------------------------------------------
def test_1947_L775_ranged_then_simultaneous_close_combat():
    """1947 L775-787: A's ranged fire kills 2 of B's 5; A's 5 soldiers and B's 3 survivors
    roll close combat together; A wipes B, B's 2 hits still count; A ends with 3."""
    from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
    from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel, replay_duel

    def w(name, rng):
        return Weapon(name=name, line=tuple(parse_cell("1/1") for _ in COLUMNS), count=5,
                      range=rng)

    def squad(name):
        return Card(name=name, edition="dust-1947", kind="squad", armour="I2", ap=6, models=5,
                    models_source="card", move=2, march_move=4,
                    weapons=(w("Rifle", "4"), w("Knife", "C")))

    spec = compile_duel([DuelUnit(squad("A"))], [DuelUnit(squad("B"))], distance=1, turns=1,
                        policy=DuelPolicy(initiative="a", reactive="never", passing="never"))
    faces = (
        "PPSSS" "SSS"  # A's ranged part (the Sustained one): 2 hits, misses re-rolled
        "SS"           # B's infantry saves fail: 2 soldiers removed before close combat
        "PPPSS"        # A's close combat, 5 soldiers: 3 hits, no saves against them
        "PPS"          # B retaliates with its 3 survivors: 2 hits, removed together
    )
    out = replay_duel(spec, faces)
    assert (out.winner, out.left) == ("a", {"A": 3, "B": 0})


def test_2013_R12_close_combat_both_lose_two():
    """2013 000:L425-434: Recon Grenadiers (5) shoot The Gunners (5, in cover, adjacent):
    3 hits, the cover save cancels 2 -> Gunners 4; close combat: Grenadiers 5 dice -> 2 hits,
    Gunners 4 dice -> 2 hits; both lose 2 at once. Then the Gunners' own activation (close
    combat only, so that part is the Sustained one) and the Grenadiers' retaliation miss."""
    from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
    from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel, replay_duel

    def w(name, rng):
        return Weapon(name=name, line=tuple(parse_cell("1/1") for _ in COLUMNS), count=5,
                      range=rng)

    def squad(name, *weapons):
        return Card(name=name, edition="tactics-2013", kind="squad", armour="I2", ap=6,
                    models=5, models_source="card", move=2, march_move=4, weapons=weapons)

    grenadiers = squad("Recon Grenadiers", w("Rifle", "4"), w("Knife", "C"))
    gunners = squad("The Gunners", w("Knife", "C"))
    spec = compile_duel([DuelUnit(grenadiers)], [DuelUnit(gunners, cover=True)],
                        ruleset="tactics-2013", distance=1, turns=1,
                        policy=DuelPolicy(initiative="a", reactive="never", passing="never"))
    faces = (
        "PPPSS" "SS"  # ranged part, sustained: 3 hits
        "PST"         # cover saves (P or S): 2 cancelled -> Gunners 4
        "PPSSS"       # Grenadiers' close combat: 2 hits (no saves)
        "PPSS"        # the Gunners' 4 survivors retaliate: 2 hits, removed together
        "SS" "SS"     # the Gunners' activation: 2 left, Sustained close combat, all miss
        "SSS"         # the Grenadiers' 3 survivors retaliate: miss
    )
    out = replay_duel(spec, faces)
    assert (out.winner, out.left) == ("none", {"Recon Grenadiers": 3, "The Gunners@cover": 2})
