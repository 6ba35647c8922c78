"""Spotters on the grid (Dust 1947 L3321-3323): if the spotter does not use a weapon, each
sniper weapon of its unit that makes a Sustained Attack hits on P as well as T. The policy
(``battle_rules.spot``, "spotter-weighs"): the spotter spots when the sniper lines' gain is at
least what its own lines would do, else it fires and the sniper lines hit on P alone.

Hand values (faces 1/3 each; a Sustained Attack re-rolls misses once, L793): a sniper die
hits with 5/9 on P, 8/9 on P and T, and is never saved (L3319): the spotter's gain is
8/9 - 5/9 = 1/3 per sniper die. A spotter's 1/1 rifle die: 5/9 to hit, then the target's
infantry save (1/3 in the open, 2/3 in cover: RULES.md §2): 5/9 x 2/3 = 10/27 > 1/3 in the
open (it fires), 5/9 x 1/3 = 5/27 < 1/3 in cover (it spots)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_battle_rules import sq
from test_battle_sniper import SNIPER, game, squad, weapon

from dustsim.engines.kernel import G_HIT, G_RR
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, H_UNITS, H_WPN, H_WS, ST_MODELS, U_W0, U_W1, W_CC

RIFLE = weapon({"I1": "1/1"}, name="rifle")  # the spotter's, range 4
SPOTTERS = squad("Sniper Squad", SNIPER, RIFLE, models=2, skills=("Spotter",))
PLAIN = squad("Squad", replace(RIFLE, count=5), models=5)  # no one to name: no aim
U, T = 1, 2  # the spotter squad is side A's second unit; the target side B's first


NEAR = sq(5, 1)  # range 4 of the spotter squad on c1 r1


def spot_game(faces, *, at=NEAR):
    g = game(target=PLAIN, faces=faces, more_a=[DuelUnit(SPOTTERS)],
             squares=[sq(0, 5), sq(1, 1), at])
    g.m[g.m[0, H_ST] + 0, ST_MODELS] = 0  # side A's first unit (a lone sniper) out of play
    return g


def fire(g, cov, sustained):
    m = g.m
    ru = m[0, H_UNITS] + U
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[m[0, H_WPN] + w, W_CC] == 0:
            m[m[0, H_WS] + w, BK.WS_TGT] = T
            m[m[0, H_WS] + w, BK.WS_COV] = cov
    BK._attack(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq, g.log,
               np.int64(U), BK.ON if sustained else BK.OFF, BK.OFF,
               BK.A_SUSTAINED if sustained else BK.A_ATTACK)
    k = g.m[BK.R_B, BK.B_LOGN]
    want = BK.A_SUSTAINED if sustained else BK.A_ATTACK
    return [r for r in g.log[:k] if r[BK.L_ACTION] == want and r[BK.L_UNIT] == U]


def sniper_group(g, cov):
    w = g.m[g.m[0, H_UNITS] + U, U_W0]
    return BR._group(g.m, w, T, cov, 1)


def test_the_lines_are_told_apart():
    g = spot_game("")
    w0 = g.m[g.m[0, H_UNITS] + U, U_W0]
    sn, rf = (int(g.m[g.m[0, H_WPN] + w0 + k, BR.W_SNIPE]) for k in (0, 1))
    assert sn & BR.SN_AIM and sn & BR.SN_SPOTTED and not sn & BR.SN_SPOTTER
    assert rf & BR.SN_SPOTTER and not rf & BR.SN_AIM


def test_in_the_open_the_spotter_fires_and_the_sniper_hits_on_p_alone():
    # sniper: T misses, its re-roll T misses (P alone); rifle: P hits, the save die T fails
    g = spot_game("TTPT")
    before = int(g.m[sniper_group(g, 0), G_HIT])
    rows = fire(g, 0, True)
    assert len(rows) == 1 and rows[0][BK.L_PN] == BR.SPOT_FIRES
    assert rows[0][BK.L_WMASK] == 0b11  # both lines fired
    assert rows[0][BK.L_HITS] == 1 and rows[0][BK.L_CAS] == 1
    assert rows[0][BK.L_D1] - rows[0][BK.L_D0] == 4
    g2 = g.m[sniper_group(g, 0)]
    assert int(g2[G_HIT]) == before and int(g2[G_RR]) == before  # P and T back after


def test_in_cover_the_spotter_spots_and_the_sniper_hits_on_t():
    # the sniper's one die T hits (P and T); no save against a sniper (L3319); the rifle
    # stands down: one die rolled in all
    g = spot_game("T")
    rows = fire(g, 1, True)
    assert len(rows) == 1 and rows[0][BK.L_PN] == BR.SPOT_SPOTS
    assert rows[0][BK.L_WMASK] == 0b01  # the sniper rifle only
    assert rows[0][BK.L_HITS] == 1 and rows[0][BK.L_CAS] == 1
    assert rows[0][BK.L_D1] - rows[0][BK.L_D0] == 1


def test_a_plain_attack_gives_the_spotter_no_say():
    # an Attack (not Sustained): the spotter's faces do not apply (L3323); both lines fire,
    # the sniper hits on P alone: T misses; the rifle's P hits, its save die T fails
    g = spot_game("TPT")
    rows = fire(g, 0, False)
    assert len(rows) == 1 and rows[0][BK.L_PN] == -1
    assert rows[0][BK.L_HITS] == 1 and rows[0][BK.L_CAS] == 1


@pytest.mark.parametrize("face, hits", [("T", 1), ("P", 1), ("S", 0)])
def test_out_of_the_spotters_range_the_sniper_alone_hits_on_p_and_t(face, hits):
    # range 6: the rifle (range 4) cannot fire, so the spotter does not fire and helps
    g = spot_game(face + "S", at=sq(7, 1))
    rows = fire(g, 0, True)
    assert len(rows) == 1 and rows[0][BK.L_PN] == -1 and rows[0][BK.L_WMASK] == 0b01
    assert rows[0][BK.L_HITS] == hits
