"""Mounted Assault (issue 23; L1766-1770; :mod:`dustsim.play.battle_platoon` roles ``mounted``
/ ``rider``) with the bundled cards and scripted dice.

Rules read: every vehicle fights in close combat with an improvised weapon, one 1/1 die (L767,
the project's decision OPEN-21: one die per model); under Mounted Assault an SPzL VI walker
(a Stummel) making a close-combat attack gains one extra 1/1 attack per soldier of the
platoon's NDAK Grenadier squads it carries (L1770). A Grenadier Battle Squad has five
soldiers, so aboard the Stummel attacks in close combat with 1 + 5 = 6 dice."""

from __future__ import annotations

import pytest
from test_battle_rules import Game, sq

from dustsim.data.cards import find_card, load_cards
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_WPN, H_WS, OFF, ON, W_CARRIERS
from dustsim.play.duel_layout import H_UNITS, U_W0, U_W1
from dustsim.play.policies import get_policy

GRANT = BP.Grant("Mounted Assault", "L1766-1770", "test: platoon 'p' (chart)",
                 ((0, "mounted"), (1, "rider")))


def _spec(granted):
    from dataclasses import replace

    from dustsim.play import board as BD

    cards = load_cards()
    stummel = find_card(cards, "Stummel", ruleset="dust-1947")
    squad = find_card(cards, "Grenadier Battle Squad", ruleset="dust-1947")
    enemy = find_card(cards, "Grenadier Battle Squad", ruleset="dust-1947")
    board = BD.open_board(8, 6)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    return B.compile_battle([DuelUnit(stummel), DuelUnit(squad, transport=0)],
                            [DuelUnit(enemy)], setup, get_policy("advance"), attacker=0,
                            grants=((GRANT,) if granted else (), ()))


def _cc_dice(granted):
    spec = _spec(granted)
    g = Game(spec, [sq(3, 2), sq(3, 2), sq(3, 3)], faces="S" * 200)
    m = g.m
    BK._mounted(m)  # what every activation start does
    ru = m[0, H_UNITS]
    lines = range(m[ru, U_W0], m[ru, U_W1])
    names = [spec.weapon_names[w] for w in lines]
    for w in lines:  # every close-combat line of the Stummel at the enemy beside it
        cc = spec.weapon_ranges[w] == (1, 1)
        m[m[0, H_WS] + w, BK.WS_TGT] = 2 if cc else -1
        m[m[0, H_WS] + w, BK.WS_COV] = 0
    carriers = {spec.weapon_names[w]: int(m[m[0, H_WPN] + w, W_CARRIERS]) for w in lines}
    pos = BK._close_combat(g.rng, g.buf, 0, ON, m, spec.bd, spec.ls, spec.lq, g.log, 0, 2,
                           OFF, OFF)
    k = m[BK.R_B, BK.B_LOGN]
    ev = [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] == BK.A_CC and
          g.log[i, BK.L_UNIT] == 0]
    return names, carriers, int(ev[0][BK.L_D1] - ev[0][BK.L_D0]), pos


@pytest.mark.parametrize("granted, dice", [(True, 6), (False, 1)])
def test_a_stummel_carrying_a_grenadier_squad_fights_with_a_die_per_soldier(granted, dice):
    names, carriers, rolled, _pos = _cc_dice(granted)
    assert (BP.MOUNTED_NAME in names) is granted
    if granted:
        assert carriers[BP.MOUNTED_NAME] == 5  # five soldiers aboard (L1770)
    assert rolled == dice  # the improvised die (L767) + one per soldier aboard


def test_the_walker_and_the_grenadiers_get_the_roles():
    from dustsim.army.platoons import _grant_roles

    cards = load_cards()
    stummel = find_card(cards, "Stummel", ruleset="dust-1947")
    squad = find_card(cards, "Grenadier Battle Squad", ruleset="dust-1947")
    assert _grant_roles("Mounted Assault", stummel, False) == ("mounted",)
    assert _grant_roles("Mounted Assault", squad, False) == ("rider",)
    assert BP.ADVANTAGES["Mounted Assault"].status == "played"
