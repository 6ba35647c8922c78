"""Skills and weapon rules played in battles (issue 23): scripted dice derived by hand from the
rulebook lines (seed 003), and Monte Carlo against exact where the situation is small.

Faces: P (bloc), T (target), S (shield), 1/3 each. Hits on P (L672); a Sustained Attack
re-rolls misses once (L793); vehicles in the open have no save (L727); a hero in the open saves
on P (L686); the removal roll is 2 dice on P (L741)."""

from __future__ import annotations

import pytest

from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.errors import DustsimError
from dustsim.play.duel import DuelPolicy, DuelUnit, compile_duel, replay_duel, simulate_duel

QUIET = DuelPolicy(reactive="never", passing="never", initiative="a")


def weapon(cells: dict, *, name="gun", range_="4", keywords=(), ammo=None):
    line = tuple(parse_cell(cells.get(c, "-")) for c in COLUMNS)
    return Weapon(name=name, line=line, count=1, range=range_, keywords=tuple(keywords),
                  ammo=ammo)


#: a close-combat line that hurts nothing: the faces below were derived for units without
#: the improvised close-combat weapon (1947 L767-787), which a listed close-combat line
#: replaces (rules.unit_rules.improvised_weapons; its own tests: test_battle_cc.py)
BARE = Weapon(name="bare hands", line=tuple(parse_cell("-") for _ in COLUMNS), count=1,
              range="C")


def vehicle(name, *weapons, track=5, move=2, skills=()):
    return Card(name=name, edition="dust-1947", kind="vehicle", armour="V1", ap=10,
                damage_track=track, move=move, march_move=2 * move, weapons=(*weapons, BARE),
                skills=skills)


def hero(name, *weapons, track=2, move=2, skills=()):
    return Card(name=name, edition="dust-1947", kind="hero", armour="I1", ap=5,
                damage_track=track, move=move, march_move=2 * move, weapons=(*weapons, BARE),
                skills=skills)


def duel_spec(a, b, *, distance=4, turns=1, policy=QUIET, pilot=None):
    return compile_duel([DuelUnit(a, pilot=pilot)], [DuelUnit(b)], distance=distance,
                        turns=turns, policy=policy)


GUN = weapon({"V1": "1/1", "I1": "1/1"})


def test_tesla_damage_stuns_first_action_nothing_then_token_gone():
    a = vehicle("A", weapon({"V1": "1/1"}, keywords=("tesla",)))
    b = vehicle("B", GUN)
    spec = duel_spec(a, b, turns=2)
    faces = (
        "P"            # turn 1, A in range: Sustained Attack, hit; no save in the open ->
                       # 1 damage from a Tesla weapon: Under Fire and Stunned (L3329)
        "SS"           # B: removal roll fails (Under Fire stays)
        "S"            # B Stunned: first action Nothing (L3331), then one plain Attack: 1 die
        "S" "S"        # turn 2, A: Sustained, miss, re-roll miss
        "SS" "S" "S"   # B: removal fails; no Stunned token now: Sustained (die + re-roll)
    )
    out = replay_duel(spec, faces)
    assert out.left == {"A": 5, "B": 4}
    # without the Tesla keyword B's first activation is a Sustained Attack: one face more
    plain = duel_spec(vehicle("A", weapon({"V1": "1/1"})), b, turns=1)
    with pytest.raises(DustsimError, match="ran out"):
        replay_duel(plain, "P" "SS" "S")
    assert replay_duel(plain, "P" "SS" "S" "S").left == {"A": 5, "B": 4}


def test_tesla_hit_saved_or_no_damage_does_not_stun():
    # a Tesla hit on a hero saved by its infantry save (P, L686): no damage, no Stunned token
    a = vehicle("A", weapon({"I1": "1/1"}, keywords=("tesla",)))
    b = hero("B", weapon({"V1": "1/1"}), track=2)
    out = replay_duel(duel_spec(a, b), "P" "P" "SS" "S" "S")
    # A: hit, save P -> nothing; B: Under Fire, removal fails, Sustained: die + re-roll
    assert out.left == {"A": 5, "B": 2}


def test_grapple_hit_holds_the_target_until_the_grappler_acts():
    claw = weapon({"V1": "1/1"}, name="claw", range_="C", keywords=("grapple",))
    fist = weapon({"V1": "1/1"}, name="fist", range_="C")
    a, b = vehicle("A", claw), vehicle("B", fist)
    spec = duel_spec(a, b, distance=1, turns=1)
    # A adjacent: Sustained Attack in close combat, its grapple die P hits (Stunned, L3268);
    # B's retaliation is simultaneous (L765): P. B activates grappled: it may not move and
    # cannot fight: Nothing, no dice
    out = replay_duel(spec, "P" "P")
    assert out.left == {"A": 4, "B": 4}
    # turn 2: A acts again, so the grapple lets go first (L3268): B retaliates (S) and then
    # activates normally (Sustained close combat: S, re-roll S; A retaliates S)
    spec2 = duel_spec(a, b, distance=1, turns=2)
    out = replay_duel(spec2, "P" "P" "S" "S" "S" "S" "S" "S")
    assert out.left == {"A": 4, "B": 4}


def test_grappled_unit_cannot_retaliate():
    claw = weapon({"V1": "1/1"}, name="claw", range_="C", keywords=("grapple",))
    fist = weapon({"V1": "1/1"}, name="fist", range_="C")
    a1, a2, b = vehicle("A1", claw), vehicle("A2", fist), vehicle("B", fist)
    spec = compile_duel([DuelUnit(a1), DuelUnit(a2)], [DuelUnit(b)], distance=1, turns=1,
                        policy=QUIET)
    # A1: grapple hit P, B retaliates P (simultaneous). B (grappled): Nothing. A2 attacks B in
    # close combat (S, re-roll S): B is Stunned and cannot retaliate (L3266): no die for it
    out = replay_duel(spec, "P" "P" "S" "S")
    assert out.left == {"A1": 4, "A2": 5, "B": 4}


def test_cheat_death_survivor_is_stunned():
    a = vehicle("A", weapon({"I1": "1/1"}))
    b = hero("B", weapon({"V1": "1/1"}), track=1, skills=("Cheat Death",))
    spec = duel_spec(a, b)
    faces = (
        "P" "S"   # A: hit, the hero's save fails -> eliminated
        "P"       # Cheat Death: P or S (L3465) -> survives with one point, Stunned
        "SS"      # B: removal roll (Under Fire) fails
        "S"       # Stunned: Nothing, then one Attack (one die, no re-roll)
    )
    out = replay_duel(spec, faces)
    assert out.left == {"A": 5, "B": 1}


def test_salvo_doubles_the_dice_then_reload():
    a = vehicle("A", weapon({"V1": "1/1"}, keywords=("salvo",)))
    b = vehicle("B", track=9)  # unarmed
    spec = duel_spec(a, b, turns=2)
    # turn 1: Salvo in a Sustained Attack: 2 dice (L3312), one re-roll of the miss; B (Under
    # Fire) fails its removal roll; turn 2: empty -> Reload + Attack, a Salvo again: 2 dice,
    # no re-roll; B's removal roll again
    out = replay_duel(spec, "PS" "S" "SS" "SS" "SS")
    assert out.left["B"] == 8
    never = duel_spec(a, b, turns=2, policy=DuelPolicy(reactive="never", passing="never",
                                                        initiative="a", salvo="never"))
    # one die (a hit needs no re-roll), B's removal; then one die and its re-roll, removal
    assert replay_duel(never, "P" "SS" "S" "S" "SS").left["B"] == 8


def test_volley_fires_every_box_at_once():
    a = vehicle("A", weapon({"V1": "1/1"}, keywords=("volley",), ammo=3))
    b = vehicle("B", track=9)
    # 3 boxes in one Sustained Attack: 3 dice (L3341), the 2 misses re-rolled; B's removal
    # roll; turn 2: no ammo, A does nothing; B's removal roll
    out = replay_duel(duel_spec(a, b, turns=2), "PSS" "SP" "SS" "SS")
    assert out.left["B"] == 7
    one = DuelPolicy(reactive="never", passing="never", initiative="a", volley="one")
    # one box a turn: a die each turn (hits: no re-roll), B's removal roll after each
    out = replay_duel(duel_spec(a, b, turns=2, policy=one), "P" "SS" "P" "SS")
    assert out.left["B"] == 7


def test_infantry_ace_third_action_move_and_sustained():
    a = hero("A", weapon({"V1": "1/1"}), skills=("Infantry Ace",))
    b = vehicle("B", track=1)
    # third-action die P (P or T, L3557): Move 2 to range 4, then a Sustained Attack:
    # S, re-roll P -> B destroyed
    out = replay_duel(duel_spec(a, b, distance=6), "P" "S" "P")
    assert (out.winner, out.left["B"]) == ("a", 0)
    # die S: two actions, Move + Attack, one die
    out = replay_duel(duel_spec(a, b, distance=6), "S" "S")
    assert (out.winner, out.left["B"]) == ("none", 1)


def test_ace_pilot_gives_the_piloted_vehicle_a_third_action():
    tank = vehicle("A", weapon({"V1": "1/1"}))
    ace = hero("Ace", skills=("Ace Pilot", "Pilot"))
    b = vehicle("B", track=1)
    spec = duel_spec(tank, b, distance=6, pilot=ace)
    out = replay_duel(spec, "T" "S" "P")  # T also grants it (L3369)
    assert out.left["B"] == 0


def test_initiative_winner_may_let_the_opponent_go_first():
    gun = weapon({"V1": "2/1"})
    a, b = vehicle("A", gun, track=2), vehicle("B", gun, track=2)
    second = DuelPolicy(reactive="never", passing="never", initiative="a",
                        initiative_choice="go-second")
    # A wins the initiative but lets B activate first (L337): B's PP destroys A
    out = replay_duel(duel_spec(a, b, policy=second), "PP")
    assert (out.winner, out.left) == ("b", {"A": 0, "B": 2})
    out = replay_duel(duel_spec(a, b), "PP")
    assert (out.winner, out.left) == ("a", {"A": 2, "B": 0})


def test_expert_and_take_aim_hit_on_t_with_their_weapon():
    gun = weapon({"V1": "1/1"}, name="Gun")
    pistol = weapon({"V1": "1/1"}, name="Pistol")
    a = hero("A", gun, pistol, skills=("Expert - Gun",))
    b = vehicle("B")
    # Sustained: Gun hits on T (L3517); Pistol's T misses and its re-roll T misses; B (Under
    # Fire, unarmed) fails its removal roll
    assert replay_duel(duel_spec(a, b), "T" "T" "T" "SS").left["B"] == 4
    # Take Aim: the hero's ranged weapons hit on T in a Sustained Attack (L3685)
    aim = hero("A", pistol, skills=("Take Aim",))
    assert replay_duel(duel_spec(aim, b), "T" "SS").left["B"] == 4


# -- Monte Carlo against exact --------------------------------------------------------------------
def _p_a_wins(spec, trials=20_000, seed=5):
    r = simulate_duel(spec, trials, seed, threads=1)
    p = r.p_a_wins
    return p, (p * (1 - p) / trials) ** 0.5  # binomial standard error


def test_salvo_sustained_matches_exact():
    a = vehicle("A", weapon({"V1": "1/1"}, keywords=("salvo",)))
    b = vehicle("B", track=1)
    p, se = _p_a_wins(duel_spec(a, b))
    exact = 1 - (4 / 9) ** 2  # two dice, each 1/3 + 2/3 * 1/3 = 5/9 after the re-roll
    assert abs(p - exact) < 5 * se


def test_infantry_ace_matches_exact():
    a = hero("A", weapon({"V1": "1/1"}), skills=("Infantry Ace",))
    b = vehicle("B", track=1)
    p, se = _p_a_wins(duel_spec(a, b, distance=6))
    exact = 2 / 3 * 5 / 9 + 1 / 3 * 1 / 3  # third action: Move + Sustained, else Move + Attack
    assert abs(p - exact) < 5 * se


# -- tempo, reaction, concealment, close combat, per-game skills ----------------------------------
def squad(name, models, *weapons, skills=()):
    return Card(name=name, edition="dust-1947", kind="squad", armour="I1", ap=6,
                models=models, models_source="card", move=2, march_move=4,
                weapons=(*weapons, BARE), skills=skills)


FIST = weapon({"V1": "1/1"}, name="fist", range_="C")


def test_advanced_reactive_fire_reacts_at_range_6_on_p_or_s():
    a = vehicle("A", weapon({"V1": "1/1"}))
    b = vehicle("B", weapon({"V1": "1/1"}, range_="6"), skills=("Advanced Reactive Fire",))
    react = DuelPolicy(passing="never", initiative="a")
    # A moves 8 -> 6: B reacts at range 6 (L3373); its two dice S S both count -> Sustained
    # reaction: P hits. A then finishes its March Move (to 4) and does not attack; B has
    # activated (it reacted)
    assert replay_duel(duel_spec(a, b, distance=8, policy=react), "SS" "P").left["A"] == 4
    # without the skill: range 4, no reaction at 6; B activates at 4: Sustained, S and S
    plain = vehicle("B", weapon({"V1": "1/1"}, range_="6"))
    assert replay_duel(duel_spec(a, plain, distance=8, policy=react), "SS").left["A"] == 5


def test_charge_march_into_contact_then_free_close_combat():
    a = vehicle("A", FIST, skills=("Charge",))
    b = vehicle("B")
    # March Move 5 -> 1, then the free close-combat Attack (L3461): P -> 1 damage (close
    # combat gives no token, L739)
    assert replay_duel(duel_spec(a, b, distance=5), "P").left["B"] == 4
    # without Charge: the March Move ends the activation, no dice
    assert replay_duel(duel_spec(vehicle("A", FIST), b, distance=5), "").left["B"] == 5
    never = DuelPolicy(reactive="never", passing="never", initiative="a", charge="never")
    assert replay_duel(duel_spec(a, b, distance=5, policy=never), "").left["B"] == 5


def test_scout_first_march_costs_one_action():
    a = vehicle("A", GUN, skills=("Scout",))
    b = vehicle("B")
    # turn 1: March Move 8 -> 4 as one action, then an Attack: P (L3641); B's removal roll;
    # turn 2: an ordinary Sustained Attack S, S; B's removal roll
    out = replay_duel(duel_spec(a, b, distance=8, turns=2), "P" "SS" "S" "S" "SS")
    assert out.left["B"] == 4
    # without Scout turn 1 is a March Move only
    plain = duel_spec(vehicle("A", GUN), b, distance=8, turns=2)
    assert replay_duel(plain, "P" "SS").left["B"] == 4


def test_move_and_fire():
    a = vehicle("A", GUN, skills=("Move and Fire",))
    b = vehicle("B")
    # one Move brings it in range: Move + Sustained Attack (L3605): S, re-roll P; B's removal
    assert replay_duel(duel_spec(a, b, distance=6), "S" "P" "SS").left["B"] == 4
    # a March Move is needed: March + a free ranged Attack: P; B's removal
    assert replay_duel(duel_spec(a, b, distance=8), "P" "SS").left["B"] == 4


def test_at_the_double_free_move_after_the_march():
    a = vehicle("A", GUN, skills=("At the Double",))
    b = vehicle("B")
    # turn 1: March 11 -> 7, free Move -> 5 (L3433); turn 2: Move -> 3, Attack: P; B's removal
    assert replay_duel(duel_spec(a, b, distance=11, turns=2), "P" "SS").left["B"] == 4
    # without it: 11 -> 7, then 7 -> 3 by a March Move: no attack in two turns
    assert replay_duel(duel_spec(vehicle("A", GUN), b, distance=11, turns=2), "").left["B"] == 5


def test_first_strike_resolves_first():
    a, b = vehicle("A", FIST, track=1), vehicle("B", FIST, track=1)
    fs_a = vehicle("A", FIST, track=1, skills=("First Strike",))
    fs_b = vehicle("B", FIST, track=1, skills=("First Strike",))
    # simultaneous (L765): both hit, both destroyed
    assert replay_duel(duel_spec(a, b, distance=1), "PP").left == {"A": 0, "B": 0}
    # A strikes first (L3525): B destroyed before it can fight back
    assert replay_duel(duel_spec(fs_a, b, distance=1), "P").winner == "a"
    # B (retaliating) strikes first: A destroyed before its own dice
    assert replay_duel(duel_spec(a, fs_b, distance=1), "P").winner == "b"
    # both have it: ignored, simultaneous again
    assert replay_duel(duel_spec(fs_a, fs_b, distance=1), "PP").left == {"A": 0, "B": 0}


def test_camouflage_no_attack_from_range_3_until_it_attacks():
    a = vehicle("A", weapon({"V1": "1/1"}, range_="6"))
    b = vehicle("B", GUN, skills=("Camouflage",))
    # A may not attack B from range 3 or more (L3455; B starts camouflaged, L3457): it closes
    # to range 2 without attacking; B then attacks (Sustained: P) and loses its camouflage
    out = replay_duel(duel_spec(a, b, distance=5), "P")
    assert out.left == {"A": 4, "B": 5}


def test_fighting_spirit_once_per_game():
    a = hero("A", weapon({"V1": "1/1"}), skills=("Fighting Spirit",))
    b = vehicle("B")
    # turn 1: T hits (L3521), B's removal; turn 2: spent: T misses, re-roll T misses
    out = replay_duel(duel_spec(a, b, turns=2), "T" "SS" "T" "T" "SS")
    assert out.left["B"] == 4


def test_lucky_rerolls_the_misses_of_the_first_plain_attack():
    a = hero("A", weapon({"V1": "1/1"}), skills=("Lucky",))
    b = vehicle("B")
    # turn 1: Move + Attack: S misses, Lucky re-rolls it (L3585): P; B's removal;
    # turn 2: Sustained Attack S, re-roll S (Lucky spent); B's removal
    out = replay_duel(duel_spec(a, b, distance=6, turns=2), "S" "P" "SS" "S" "S" "SS")
    assert out.left["B"] == 4


def test_assassin_aims_close_combat_hits_at_the_joined_hero():
    knife = weapon({"I1": "1/3"}, name="knife", range_="C")
    a = hero("A", knife, skills=("Assassin",))
    from dustsim.play.duel import join_hero

    b = join_hero(hero("Chief", track=3), squad("Squad", 3))
    spec = compile_duel([DuelUnit(a)], [b], distance=1, turns=1, policy=QUIET)
    # one hit for 3 damage: the Assassin sends it to the hero (L3429): 3 soldiers left;
    # the owner (least-loss) would lose a soldier instead: 2 soldiers + the hero's 3
    assert replay_duel(spec, "P").left == {"A": 2, "Chief + Squad": 3}
    plain = compile_duel([DuelUnit(hero("A", knife))], [b], distance=1, turns=1,
                         policy=QUIET)
    assert replay_duel(plain, "P").left == {"A": 2, "Chief + Squad": 5}


def test_strongpoint_units_hold_their_fortification():
    def gun_team(name):
        return Card(name=name, edition="dust-1947", kind="support", armour="I1", ap=20,
                    damage_track=4, move=0, march_move=0, skills=("Strong Point",),
                    weapons=(BARE,))

    a = vehicle("A", weapon({"I1": "1/1"}))
    # Sustained: P hits; the infantry save S fails and is re-rolled in a strongpoint (L3132):
    # P saves. The gun team (Under Fire) fails its removal roll and has no weapon
    out = replay_duel(duel_spec(a, gun_team("Gun")), "P" "S" "P" "SS")
    assert out.left["Gun"] == 4
    # in a bunker the re-roll saves on P or S
    out = replay_duel(duel_spec(a, gun_team("Gun (Bunker)")), "P" "S" "S" "SS")
    assert out.left["Gun (Bunker)"] == 4
    # in a strongpoint S on the re-roll does not save
    out = replay_duel(duel_spec(a, gun_team("Gun")), "P" "S" "S" "SS")
    assert out.left["Gun"] == 3


def test_smoke_launchers_cover_until_the_end_of_the_next_turn():
    a = vehicle("A", GUN)
    b = vehicle("B", skills=("Smoke Launchers",))
    b_first = DuelPolicy(reactive="never", passing="never", initiative="b")
    faces = (
        "P" "P"          # turn 1: B, threatened, launches its smoke (L3653) and has nothing
                         # to do; A: Sustained, P hits, the smoke's vehicle cover save P (L684)
        "SS" "P" "S"     # turn 2: B's removal roll; A hits, cover save S fails: 1 damage
        "SS" "P"         # turn 3: the smoke is gone (end of the next turn, L3228): no save
    )
    out = replay_duel(duel_spec(a, b, turns=3, policy=b_first), faces)
    assert out.left["B"] == 3
    plain = duel_spec(a, vehicle("B"), turns=1, policy=b_first)
    assert replay_duel(plain, "P").left["B"] == 4  # no launcher: no save in the open


def test_airborne_drop_nothing_then_a_second_action_on_p_or_t():
    a = hero("A", GUN, skills=("Airborne",))
    b = vehicle("B")
    # A is placed at range 4 of B (L3393), first action Nothing; T: a second action, the
    # Attack: P hits; B's removal roll
    assert replay_duel(duel_spec(a, b, distance=12), "T" "P" "SS").left["B"] == 4
    # S: a second Nothing
    assert replay_duel(duel_spec(a, b, distance=12), "S").left["B"] == 5
    # before its drop it is not on the table: B (first, armed) has nothing to attack
    armed = vehicle("B", GUN)
    b_first = DuelPolicy(reactive="never", passing="never", initiative="b")
    out = replay_duel(duel_spec(a, armed, distance=12, policy=b_first), "S")
    assert out.left == {"A": 2, "B": 5}


def test_officer_get_moving_reactivates_the_better_unit():
    cap = Card(name="Cap", edition="dust-1947", kind="hero", armour="I3", ap=5,
               damage_track=2, move=2, march_move=4, skills=("Officer",), weapons=(BARE,))
    g = vehicle("G", GUN)
    b = vehicle("B", track=5)
    spec = compile_duel([DuelUnit(g), DuelUnit(cap)], [DuelUnit(b)], distance=4, turns=1,
                        policy=QUIET)
    # G: Sustained, P hits (B Under Fire); B: removal roll fails; Cap (an officer of armour 3,
    # so with a radio, L3715) orders Get Moving on G, worth more than its own (no) attack:
    # P succeeds (L3725), Cap's activation ends and G activates again: P hits (Suppressed)
    assert replay_duel(spec, "P" "SS" "P" "P").left["B"] == 3
    # S: no reactivation; Cap has one action left and nothing to attack
    assert replay_duel(spec, "P" "SS" "S").left["B"] == 4
    never = DuelPolicy(reactive="never", passing="never", initiative="a", orders="never")
    spec = compile_duel([DuelUnit(g), DuelUnit(cap)], [DuelUnit(b)], distance=4, turns=1,
                        policy=never)
    assert replay_duel(spec, "P" "SS").left["B"] == 4


def test_general_officer_action_is_free():
    def boss(skill):
        return Card(name="Cap", edition="dust-1947", kind="hero", armour="I1", ap=5,
                    damage_track=2, move=2, march_move=4, skills=(skill,),
                    weapons=(GUN, BARE))

    g = vehicle("G", weapon({"V1": "3/1"}))
    b = vehicle("B", track=5)

    def spec(skill):
        return compile_duel([DuelUnit(g), DuelUnit(boss(skill))], [DuelUnit(b)], distance=4,
                            turns=1, policy=QUIET)

    # G: Sustained, 3 misses and 3 re-rolled misses (no hit, no token); B has nothing to do;
    # Cap orders Get Moving on G (worth more): S fails. A General's order was free (L3537):
    # two actions left, a Sustained Attack (S, re-roll S); an Officer has one: an Attack (S)
    assert replay_duel(spec("General"), "SSS" "SSS" "S" "S" "S").left["B"] == 5
    assert replay_duel(spec("Officer"), "SSS" "SSS" "S" "S").left["B"] == 5


def test_air_traffic_control_lets_an_aircraft_activate_again():
    def plane(name, *weapons, skills=()):
        return Card(name=name, edition="dust-1947", kind="aircraft", armour="A1", ap=10,
                    damage_track=3, move=4, march_move=8, weapons=weapons, skills=skills)

    jet = plane("Jet", GUN)
    ctl = plane("Ctl", skills=("Air Traffic Control",))
    b = vehicle("B", track=5)
    spec = compile_duel([DuelUnit(jet), DuelUnit(ctl)], [DuelUnit(b)], distance=4, turns=1,
                        policy=QUIET)
    # Jet (must Move first; already at range 4): Attack, P; B's removal roll; Ctl: Air Traffic
    # Control on Jet, P (L3389): Jet activates again: Attack, P
    assert replay_duel(spec, "P" "SS" "P" "P").left["B"] == 3
    assert replay_duel(spec, "P" "SS" "S").left["B"] == 4
