"""Per-game skills in grid battles (issue 23: "played in attack, dropped in battles"): Fighting
Spirit (L3519-3521), Lucky (L3583-3585), Assassin (L3427-3429), played by the battle kernel as the
engagement kernel plays them: Fighting Spirit in the unit's first Attack action, Lucky in its
first plain Attack (the policy does not wait for a bad roll), a lone Assassin's close-combat
hits on the hero joined to the squad it attacks.

Hand-built boards, scripted dice, expectations by hand: hits on P (L672), Fighting Spirit hits on
P and T (L3521); a hero in the open saves on P (L686), so S fails; dice are read per line: to-hit
dice, the re-rolls of the misses, then one save die per hit (dustsim.engines.kernel)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_battle_rules import Game, sq, unit, weapon
from test_battle_rules import H as BH
from test_battle_rules import W as BW
from test_battle_rules_weapons import _attack, _target_track

from dustsim.data.cards import Card
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, ST_ACT, ST_HERO, ST_MODELS
from dustsim.play.policies import get_policy

GUN2 = weapon({"V1": "2/1", "I1": "2/1"}, name="gun2", range_="4")
CLAW2 = weapon({"V1": "2/1", "I1": "2/1"}, name="claw2", range_="C")
SHOT = weapon({"V1": "1/1", "I1": "1/1"}, name="shot", range_="4")


def _game(skill, faces):
    a = unit("A", GUN2, skills=(skill,) if skill else ())
    spec = _spec([DuelUnit(a)], [DuelUnit(unit("B", SHOT, track=3))])
    return Game(spec, [sq(0, 2), sq(3, 2)], faces=faces)


def _spec(side_a, side_b):
    board = BD.open_board(BW, BH)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    return B.compile_battle(side_a, side_b, setup, get_policy("advance"), attacker=0)


def _again(g, u):
    """u's next activation: its second Attack action of the game."""
    g.m[g.m[0, H_ST] + u, ST_ACT] = 0
    return _attack(g, u)


@pytest.mark.parametrize("skill, left_first", [
    # T, T: with Fighting Spirit both hit (P and T, L3521); saves S, S fail: 2 damage of 3
    ("Fighting Spirit", 1),
    # without it a T misses (hits on P only, L672): no hit, nothing to save
    (None, 3),
])
def test_fighting_spirit_hits_on_p_and_t_in_the_first_attack_only(skill, left_first):
    g = _game(skill, "TTSS" + "TT")
    _attack(g, 0)
    assert _target_track(g, 1) == left_first
    # the second Attack: T, T miss whatever the card (the skill is spent, once per game)
    _again(g, 0)
    assert _target_track(g, 1) == left_first


@pytest.mark.parametrize("skill, left_first", [
    # T, S miss; Lucky re-rolls the misses (L3585): P, P hit; saves S, S fail: 3 - 2 = 1
    ("Lucky", 1),
    # without it the misses stand: the next faces are not read for this attack
    (None, 3),
])
def test_lucky_rerolls_the_heros_misses_once_per_game(skill, left_first):
    g = _game(skill, "TSPPSS" if skill else "TS")
    _attack(g, 0)
    assert _target_track(g, 1) == left_first
    # the second Attack: T, S miss and stay missed (Lucky is spent)
    g.buf = np.array([{"P": 0, "T": 1, "S": 2}[c] for c in "TSPPSS"], np.uint8)
    _again(g, 0)
    assert _target_track(g, 1) == left_first


def _squad_with_hero():
    squad = Card(name="Squad", edition="dust-1947", kind="squad", armour="I1", ap=6, models=4,
                 damage_track=None, move=2, march_move=4, weapons=(SHOT,), skills=())
    hero = Card(name="Leader", edition="dust-1947", kind="hero", armour="I1", ap=4,
                damage_track=2, move=2, march_move=4, weapons=(SHOT,), skills=())
    return DuelUnit(squad, hero=hero)


@pytest.mark.parametrize("skill, models, hero", [
    # P, P: 2 hits, no saves in close combat (L765). A lone Assassin names the joined hero
    # (L3429): both on the hero (2 points: eliminated), the soldiers untouched
    ("Assassin", 4, 0),
    # otherwise the owner allocates (least-loss, dustsim.rules.attack: a hit that removes no
    # miniature goes to the hero, one that would eliminate him to a soldier): the first hit
    # on the hero (2 -> 1), the second on a soldier (4 -> 3)
    (None, 3, 1),
])
def test_a_lone_assassin_puts_its_close_combat_hits_on_the_joined_hero(skill, models, hero):
    killer = unit("Killer", CLAW2, skills=(skill,) if skill else ())
    spec = _spec([DuelUnit(killer)], [_squad_with_hero()])
    g = Game(spec, [sq(2, 2), sq(3, 2)], faces="PP" + "S" * 8)
    _attack(g, 0)
    rs = g.m[0, H_ST] + 1
    assert int(g.m[rs, ST_MODELS]) == models and int(g.m[rs, ST_HERO]) == hero


def test_notes_no_longer_name_the_per_game_skills():
    assert not {"lucky", "fighting spirit", "assassin"} & B.NOT_ON_BOARD
    assert BK.ST_SPIRIT != BK.ST_COVERED and BK.ST_LUCKY != BK.ST_COVERED
