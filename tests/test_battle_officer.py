"""A squad's officer soldier and a General joined to it, on the grid (Dust 1947 L3707-3731,
L3535-3537): command actions stand while an officer does (L3709: the squad's officer soldier,
or a joined hero who is an officer); a General joined to a unit with an officer rolls two
dice for its officer actions (L3537; a success if either die succeeds, the digest's OPEN-20
reading: Get Moving 1 - (2/3)^2 = 5/9 instead of 1/3).

Scripted dice: Get Moving succeeds on P (L3725); the officer's first action is free for a
General (L3537)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_battle_rules import GUN, Game, sq
from test_battle_rules import H as BH
from test_battle_rules import W as BW
from test_battle_rules_weapons import _special
from test_battle_sniper import RIFLE, hero, squad

from dustsim.data.cards import Card
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, ST_HERO, ST_MODELS
from dustsim.play.policies import get_policy

CMD, FRIEND, FOE = 0, 1, 2


def _game(hero_skills, faces):
    """A Command Squad (three soldiers, one the officer) joined by a hero on c1 r1; a friend
    of 40 AP on c2 r2 that has activated this turn; a foe on c5 r4 within its reach."""
    cmd = squad("Command Squad", replace(RIFLE, count=3, range="1"), models=3,
                skills=("Command Squad",))
    leader = replace(hero("Leader", 2), skills=tuple(hero_skills))
    friend = Card(name="Friend", edition="dust-1947", kind="hero", armour="I1", ap=40,
                  damage_track=3, move=2, march_move=4, weapons=(GUN,), skills=())
    foe = Card(name="Foe", edition="dust-1947", kind="hero", armour="I1", ap=5,
               damage_track=3, move=2, march_move=4, weapons=(GUN,), skills=())
    setup = replace(B.scenario_setup("101", 0), board=BD.open_board(BW, BH),
                    boards=(BD.open_board(BW, BH),), turns=2)
    spec = B.compile_battle([DuelUnit(cmd, hero=leader), DuelUnit(friend)], [DuelUnit(foe)],
                            setup, get_policy("cautious"), attacker=0)
    g = Game(spec, [sq(1, 1), sq(2, 2), sq(5, 4)], faces=faces + "S" * 60)
    g.m[g.m[0, H_ST] + FRIEND, 5] = 1  # ST_ACT: the friend activated this turn
    return g


def _order(g):
    g.activate(CMD)
    order = _special(g, BK.SP_ORDER)
    assert len(order) == 1 and order[0][BK.L_TARGET] == FRIEND
    return order[0]


@pytest.mark.parametrize("skills, faces, dice, ordered", [
    (("General",), "SP", 2, True),  # two dice: the second P succeeds (L3537)
    (("General",), "PS", 2, True),
    (("General",), "TS", 2, False),  # neither die a P
    (("Officer",), "SP", 1, False),  # an Officer hero: one die, S fails (L3725)
    ((), "SP", 1, False),  # the squad's own officer: one die
    ((), "P", 1, True),
])
def test_a_general_joined_to_a_unit_with_an_officer_rolls_two_dice(skills, faces, dice,
                                                                    ordered):
    o = _order(_game(skills, faces))
    assert o[BK.L_D1] - o[BK.L_D0] == dice
    assert (o[BK.L_HITS] > 0) == ordered


def test_without_its_officer_soldier_the_general_rolls_one_die_and_still_orders():
    # the squad's officer is gone (a Sniper took him): the General is an officer himself, his
    # orders stand (L3709 ends only what the fallen soldier gave) with one die
    g = _game(("General",), "SP")
    g.m[g.m[0, BK.H_XU] + CMD, BR.X_SNIPED] = 1
    o = _order(g)
    assert o[BK.L_D1] - o[BK.L_D0] == 1 and o[BK.L_HITS] == 0


@pytest.mark.parametrize("hero_skills, officer_left", [
    ((), False),  # the squad's officer was its only one: no command actions (L3709)
    (("Officer",), True),  # an officer hero still leads
])
def test_the_officer_soldiers_fall_ends_only_what_he_gave(hero_skills, officer_left):
    g = _game(hero_skills, "P")
    g.m[g.m[0, BK.H_XU] + CMD, BR.X_SNIPED] = 1
    assert BR.officer_up(g.m, CMD) == officer_left
    g.activate(CMD)
    assert bool(_special(g, BK.SP_ORDER)) == officer_left


def test_an_officer_hero_leads_until_he_falls_then_the_soldier_does():
    g = _game(("Officer",), "")
    assert BR.officer_up(g.m, CMD)
    g.m[g.m[0, H_ST] + CMD, ST_HERO] = 0  # the hero eliminated: the officer soldier stands
    assert BR.officer_up(g.m, CMD)
    g.m[g.m[0, H_ST] + CMD, ST_MODELS] = 0  # and the last soldier with him
    assert not BR.officer_up(g.m, CMD)
