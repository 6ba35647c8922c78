"""A Sniper's chosen casualty on the grid (Dust 1947 L3315-3319; Head Shot as the Sniper's aim):
the attacker names a miniature of the target squad and every unsaved hit of its sniper lines
goes to it, wasted once it is gone (L3317); the Unit Leader is never named (L3317), a joined
hero may be; sniper weapons negate cover and infantry saves (L3319). The policy
(``battle_rules.pick_aim``, "sniper-picks"): a joined hero one hit finishes, else the squad's
officer soldier, else the carrier of its most dangerous line that is not the leader's.

Expected states from the lines with scripted dice: a sniper die hits on P (1/3, L672), T and S
miss; no save die is rolled against a sniper line (L3319). Range 4 on a straight row."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_battle_rules import GUN, Game, sq, weapon
from test_battle_rules import H as BH
from test_battle_rules import W as BW

from dustsim.data.cards import Card
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import (
    H_ST,
    H_UNITS,
    H_WPN,
    H_WS,
    ST_HERO,
    ST_MODELS,
    U_W0,
    U_W1,
    W_CARRIERS,
    W_CC,
)
from dustsim.play.policies import get_policy

SNIPER = replace(weapon({"I1": "1/1"}, name="sniper rifle", range_="8"), keywords=("sniper",))
RIFLE = replace(weapon({"I1": "1/1"}, name="rifle"), count=3)
MG = weapon({"I1": "3/1"}, name="machinegun")
SNIPER_U, TARGET_U = 0, 1


def squad(name, *weapons, models, skills=()):
    return Card(name=name, edition="dust-1947", kind="squad", armour="I1", ap=10, models=models,
                move=2, march_move=4, weapons=weapons, skills=tuple(skills))


def hero(name, track):
    return Card(name=name, edition="dust-1947", kind="hero", armour="I1", ap=10,
                damage_track=track, move=2, march_move=4, weapons=(GUN,), skills=())


def game(sniper_weapon=SNIPER, target=None, *, hero_track=None, faces="", snipers=1,
         more_a=(), more_b=(), squares=None):
    """The sniper squad on c1 r1, the target squad on c5 r1 (range 4)."""
    a = [DuelUnit(squad("Snipers", replace(sniper_weapon, count=snipers), models=snipers)),
         *more_a]
    tgt = target or squad("Command Squad", RIFLE, MG, models=4, skills=("Command Squad",))
    b = [DuelUnit(tgt, hero=hero("Hero", hero_track) if hero_track else None), *more_b]
    setup = replace(B.scenario_setup("101", 0), board=BD.open_board(BW, BH),
                    boards=(BD.open_board(BW, BH),), turns=2)
    spec = B.compile_battle(a, b, setup, get_policy("cautious"), attacker=0)
    return Game(spec, squares or [sq(1, 1), sq(5, 1)], faces=faces + "S" * 40)


def fire(g, u=SNIPER_U, t=TARGET_U):
    """u's Attack action with every ranged line declared at t, t in the open."""
    m = g.m
    ru = m[0, H_UNITS] + u
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[m[0, H_WPN] + w, W_CC] == 0:
            m[m[0, H_WS] + w, BK.WS_TGT] = t
            m[m[0, H_WS] + w, BK.WS_COV] = 0
    BK._attack(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log,
               np.int64(u), BK.OFF, BK.OFF, BK.A_ATTACK)


def attack_rows(g, u=SNIPER_U):
    return [r for r in g.log[: g.m[BK.R_B, BK.B_LOGN]]
            if r[BK.L_ACTION] == BK.A_ATTACK and r[BK.L_UNIT] == u]


def models(g, t=TARGET_U):
    return int(g.m[g.m[0, H_ST] + t, ST_MODELS])


def line(g, t, k):
    """Row of unit t's k-th weapon line."""
    return g.m[0, H_WPN] + g.m[g.m[0, H_UNITS] + t, U_W0] + k


def test_sniper_picks_the_officer_soldier_and_his_command_actions_end():
    # one die, P: a hit; no save against a sniper (L3319); the officer is named (L3317)
    g = game(faces="P")
    assert BR.officer_up(g.m, TARGET_U)
    fire(g)
    row = attack_rows(g)[0]
    assert row[BK.L_HITS] == 1 and row[BK.L_SAVES] == 0 and row[BK.L_CAS] == 1
    assert row[BK.L_D1] - row[BK.L_D0] == 1  # the to-hit die only: no save die
    assert row[BK.L_PN] == BR.AIM_AT_OFFICER | BR.AIM_FELL
    assert models(g) == 3
    assert not BR.officer_up(g.m, TARGET_U)  # L3709


@pytest.mark.parametrize("face", ["T", "S"])
def test_a_sniper_miss_leaves_the_officer_standing(face):
    g = game(faces=face)
    fire(g)
    assert attack_rows(g)[0][BK.L_PN] == BR.AIM_AT_OFFICER  # named, not fallen
    assert models(g) == 4 and BR.officer_up(g.m, TARGET_U)


def test_every_unsaved_hit_goes_to_the_named_miniature_the_rest_are_wasted():
    # two sniper rifles, two P: two hits, both assigned to the officer (L3317): one soldier
    # falls, not two (the owner would have lost two)
    g = game(faces="PP", snipers=2)
    fire(g)
    row = attack_rows(g)[0]
    assert row[BK.L_HITS] == 2 and row[BK.L_CAS] == 1
    assert models(g) == 3 and not BR.officer_up(g.m, TARGET_U)


def test_without_an_officer_the_sniper_takes_the_special_weapon_carrier():
    # rifle x3 (the leader's line: most carriers) and one machinegun: the sniper names the
    # machinegunner; with him gone the line has no carrier and fires no more
    g = game(target=squad("Squad", RIFLE, MG, models=4), faces="P")
    mg = line(g, TARGET_U, 1)
    assert g.m[mg, W_CARRIERS] == 1
    fire(g)
    row = attack_rows(g)[0]
    assert row[BK.L_PN] == (BR.AIM_LINE + int(mg - g.m[0, H_WPN])) | BR.AIM_FELL
    assert models(g) == 3
    assert g.m[mg, W_CARRIERS] == 0 and g.m[line(g, TARGET_U, 0), W_CARRIERS] == 3
    BK._reset(g.m)  # a new game: the line's carrier is back
    assert g.m[mg, W_CARRIERS] == 1


def test_a_squad_of_one_weapon_gives_no_one_to_name():
    # every soldier carries the rifle (the leader's line): no aim, the owner removes one
    g = game(target=squad("Squad", replace(RIFLE, count=4), models=4), faces="P")
    fire(g)
    row = attack_rows(g)[0]
    assert row[BK.L_PN] == -1 and row[BK.L_CAS] == 1 and models(g) == 3


@pytest.mark.parametrize("track, hero_left, soldiers", [
    (1, 0, 4),  # one sniper hit (1 damage) finishes the hero: named, eliminated
    (2, 2, 3),  # it would not: the officer is named instead (the hero stands untouched)
])
def test_a_joined_hero_one_hit_finishes_is_named(track, hero_left, soldiers):
    g = game(hero_track=track, faces="P")
    fire(g)
    assert int(g.m[g.m[0, H_ST] + TARGET_U, ST_HERO]) == hero_left
    assert models(g) == soldiers
    want = BR.AIM_AT_HERO if track == 1 else BR.AIM_AT_OFFICER
    assert attack_rows(g)[0][BK.L_PN] == want | BR.AIM_FELL


def test_head_shot_names_the_miniature_too():
    # a Head Shot pistol (range 2): one die P hits; the target keeps its infantry save in
    # the open, one die on P (S fails); the officer is named and falls
    pistol = replace(weapon({"I1": "1/1"}, name="pistol", range_="2"), keywords=("head-shot",))
    g = game(pistol, faces="PS", squares=[sq(1, 1), sq(3, 1)])
    fire(g)
    row = attack_rows(g)[0]
    assert row[BK.L_HITS] == 1 and row[BK.L_PN] == BR.AIM_AT_OFFICER | BR.AIM_FELL
    assert not BR.officer_up(g.m, TARGET_U)


def test_the_officer_kept_to_the_last_falls_with_the_last_soldier():
    # the owner's own removals take plain soldiers first: the officer stands while one
    # soldier does (RULES.md §3), and is gone with the last (L3709)
    g = game(target=squad("Command Squad", replace(RIFLE, count=2), models=2,
                          skills=("Command Squad",)), faces="")
    g.m[g.m[0, H_ST] + TARGET_U, ST_MODELS] = 1
    assert BR.officer_up(g.m, TARGET_U)
    g.m[g.m[0, H_ST] + TARGET_U, ST_MODELS] = 0
    assert not BR.officer_up(g.m, TARGET_U)


FRIEND_B = 2


def _rally_game(faces):
    friend = Card(name="Friend", edition="dust-1947", kind="hero", armour="I1", ap=10,
                  damage_track=3, move=2, march_move=4, weapons=(GUN,), skills=())
    cmd = squad("Command Squad", replace(RIFLE, count=2, range="1"), MG, models=3,
                skills=("Command Squad",))
    g = game(target=cmd, faces=faces, more_b=[DuelUnit(friend)],
             squares=[sq(1, 4), sq(5, 1), sq(6, 2)])
    g.m[g.m[0, H_ST] + FRIEND_B, 3] = 2  # ST_TOK: the friend is Suppressed, still to activate
    return g


@pytest.mark.parametrize("sniper_face, rallies", [("P", False), ("T", True)])
def test_a_command_squad_without_its_officer_rallies_no_one(sniper_face, rallies):
    # the sniper's die first: P takes the officer; then the squad activates next to a
    # Suppressed friend: two Rally dice PP would clear it (L3731), but only with its officer
    g = _rally_game(sniper_face + "PP")
    fire(g)
    BK._activate(g.rng, g.buf, np.int64(1), BK.ON, g.m, g.spec.f, g.spec.bd, g.spec.ls,
                 g.spec.lq, g.log, g.plog, np.int64(TARGET_U), g.el, g.val, g.qb)
    rally = [r for r in g.log[: g.m[BK.R_B, BK.B_LOGN]]
             if r[BK.L_ACTION] == BK.A_SPECIAL and r[BK.L_X] == BK.SP_RALLY]
    assert bool(rally) == rallies
    assert int(g.m[g.m[0, H_ST] + FRIEND_B, 3]) == (0 if rallies else 2)


def test_a_medic_returns_the_sniped_officer_first():
    g = game(faces="P")
    fire(g)
    assert not BR.officer_up(g.m, TARGET_U)
    g.m[g.m[0, H_ST] + TARGET_U, ST_MODELS] += 1
    BR.regain(g.m, TARGET_U)  # Get Up returns one soldier (L3741): the owner picks him
    assert BR.officer_up(g.m, TARGET_U)
