"""A joined hero's own First Strike on the grid (Dust 1947 L3523-3525): the hero resolves his
close-combat attacks and removes the casualties before the enemy strikes; the skill is not
shared with the unit he joins, so the squad's own close-combat lines strike together with the
enemy's (L763-765); a unit with First Strike against another ignores it.

Scripted dice: a close-combat die hits on P (L672) and has no save (L765); one hit removes one
soldier (L731). Dice order: the hero's line first, then the attacker's other lines, then the
retaliation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from test_battle_rules import Game, sq, weapon
from test_battle_rules import H as BH
from test_battle_rules import W as BW

from dustsim.data.cards import Card
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
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
    W_CC,
)
from dustsim.play.policies import get_policy

KNIFE = weapon({"I1": "1/1"}, name="knife", range_="C")
SWORD = weapon({"I1": "1/1"}, name="sword", range_="C")
A, T = 0, 1


def _squad(name, models, skills=()):
    return Card(name=name, edition="dust-1947", kind="squad", armour="I1", ap=10, models=models,
                move=2, march_move=4, weapons=(replace(KNIFE, count=models),),
                skills=tuple(skills))


def _hero(skills):
    return Card(name="Hero", edition="dust-1947", kind="hero", armour="I1", ap=10,
                damage_track=2, move=2, march_move=4, weapons=(SWORD,), skills=tuple(skills))


def _game(a, b, faces):
    setup = replace(B.scenario_setup("101", 0), board=BD.open_board(BW, BH),
                    boards=(BD.open_board(BW, BH),), turns=2)
    spec = B.compile_battle([a], [b], setup, get_policy("cautious"), attacker=0)
    return Game(spec, [sq(2, 2), sq(3, 2)], faces=faces + "S" * 40)


def _melee(g):
    """A's close-combat Attack on T with every close-combat line."""
    m = g.m
    ru = m[0, H_UNITS] + A
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[m[0, H_WPN] + w, W_CC] != 0:
            m[m[0, H_WS] + w, BK.WS_TGT] = T
            m[m[0, H_WS] + w, BK.WS_COV] = 0
    BK._attack(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log,
               np.int64(A), BK.OFF, BK.OFF, BK.A_ATTACK)
    k = g.m[BK.R_B, BK.B_LOGN]
    return [r for r in g.log[:k] if r[BK.L_ACTION] == BK.A_CC]


def _st(g, u, col):
    return int(g.m[g.m[0, H_ST] + u, col])


def test_the_attacking_heros_first_strike_removes_a_soldier_before_the_retaliation():
    # the hero's sword: P, T's first soldier falls; then A's three knives (S S S) and T's one
    # soldier left (P) together: one die only, its hit on A (the owner's least loss: the hero,
    # 2 points, takes the 1 damage)
    g = _game(DuelUnit(_squad("A", 3), hero=_hero(("First Strike",))), DuelUnit(_squad("T", 2)),
              "P" + "SSS" + "P")
    rows = _melee(g)
    assert [int(r[BK.L_UNIT]) for r in rows] == [A, A, T]
    first, rest, back = rows
    assert first[BK.L_X] == BK.WHY_HERO_FIRST and first[BK.L_CAS] == 1
    assert rest[BK.L_D1] - rest[BK.L_D0] == 3 and rest[BK.L_HITS] == 0
    assert back[BK.L_D1] - back[BK.L_D0] == 1 and back[BK.L_HITS] == 1
    assert _st(g, T, ST_MODELS) == 1 and _st(g, A, ST_MODELS) == 3 and _st(g, A, ST_HERO) == 1


def test_without_the_skill_every_line_strikes_together():
    # the same faces, no First Strike: A's knives and the sword in one attack (S S S, then the
    # sword's P... read in line order: knives first), T's two soldiers strike back with both
    g = _game(DuelUnit(_squad("A", 3), hero=_hero(())), DuelUnit(_squad("T", 2)),
              "SSS" + "P" + "PP")
    rows = _melee(g)
    assert [int(r[BK.L_UNIT]) for r in rows] == [A, T]
    assert rows[0][BK.L_CAS] == 1 and rows[0][BK.L_X] == -1
    assert rows[1][BK.L_D1] - rows[1][BK.L_D0] == 2 and rows[1][BK.L_HITS] == 2


def test_the_defending_heros_first_strike_goes_before_the_attack():
    # T's hero strikes first (P): one of A's three soldiers falls; A's knives then roll two
    # dice (two soldiers left), together with T's own knives
    g = _game(DuelUnit(_squad("A", 3)), DuelUnit(_squad("T", 2), hero=_hero(("First Strike",))),
              "P" + "SS" + "SS")
    rows = _melee(g)
    assert [int(r[BK.L_UNIT]) for r in rows] == [T, A, T]
    assert rows[0][BK.L_X] == BK.WHY_HERO_FIRST and rows[0][BK.L_CAS] == 1
    assert rows[1][BK.L_D1] - rows[1][BK.L_D0] == 2
    assert rows[2][BK.L_D1] - rows[2][BK.L_D0] == 2  # T's two knives, not the sword again
    assert _st(g, A, ST_MODELS) == 2


def test_first_strike_on_both_sides_is_ignored():
    # A's hero and T's squad both have First Strike: both ignore it (L3525): one attack of A's
    # lines, T's retaliation together
    g = _game(DuelUnit(_squad("A", 3), hero=_hero(("First Strike",))),
              DuelUnit(_squad("T", 2, skills=("First Strike",))), "SSSS" + "SS")
    rows = _melee(g)
    assert [int(r[BK.L_UNIT]) for r in rows] == [A, T]
    assert rows[0][BK.L_D1] - rows[0][BK.L_D0] == 4
