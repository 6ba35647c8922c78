"""An Assassin hero joined to a squad, on the grid (Dust 1947 L3427-3429): the Assassin chooses
which enemy miniatures his own close-combat hits are assigned to; the engines' reading, as for a
lone Assassin: a joined hero of the target squad (the Sniper's aim machinery, the dice kernel's
per-line aim). The squad's own close-combat hits stay the owner's to allocate (L731).

Scripted dice: a close-combat die hits on P (L672), no save (L765). The target's owner
allocates by least loss: a hit the hero would not survive goes to a soldier (RULES.md §3)."""

from __future__ import annotations

from dataclasses import replace

from test_battle_hero_first_strike import KNIFE, SWORD, A, T, _game, _melee, _squad, _st

from dustsim.data.cards import Card
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import ST_HERO, ST_MODELS


def _hero(skills, track, weapon):
    return Card(name="Hero", edition="dust-1947", kind="hero", armour="I1", ap=10,
                damage_track=track, move=2, march_move=4, weapons=(weapon,),
                skills=tuple(skills))


def _duel(assassin):
    a = DuelUnit(_squad("A", 2), hero=_hero(("Assassin",) if assassin else (), 2, SWORD))
    b = DuelUnit(_squad("T", 2), hero=_hero((), 1, replace(KNIFE, name="dagger")))
    # A's knives (two dice, S S), the sword (P: a hit), T's knives and dagger strike back (S)
    return _game(a, b, "SS" + "P" + "SSS")


def test_a_joined_assassin_sends_his_hit_to_the_enemy_hero():
    g = _duel(True)
    rows = _melee(g)
    att = rows[0]
    assert att[BK.L_UNIT] == A and att[BK.L_HITS] == 1
    assert att[BK.L_PN] == BR.AIM_AT_HERO | BR.AIM_FELL | BR.ASSASSIN_LOG
    assert _st(g, T, ST_HERO) == 0 and _st(g, T, ST_MODELS) == 2


def test_without_assassin_the_owner_gives_the_hit_to_a_soldier():
    g = _duel(False)
    rows = _melee(g)
    assert rows[0][BK.L_PN] == -1 and rows[0][BK.L_HITS] == 1
    assert _st(g, T, ST_HERO) == 1 and _st(g, T, ST_MODELS) == 1
