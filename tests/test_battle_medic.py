"""Inject Stimulants on the grid (Dust 1947 L3745-3757; :mod:`dustsim.play.battle_rules`):
a Medic's special action gives a friendly infantry unit within range 1 and sight a Stimulants
token; when that unit activates it removes the token and rolls one die: one face, the player
chooses either effect; one, an Attack action counts as a Sustained Attack; one, a Move action
counts as a March Move; either way three actions, never more (L3757).

The faces of L3753-3755 were lost (the decision in battle_rules: P chooses, T Attack ->
Sustained, S Move -> March). Scripted dice, expectations by hand: hits on P (L672); a
Sustained Attack re-rolls each miss once (L793); a hero in the open saves on P (L686). On an
8 x 6 open board a straight row's range is the column difference; GUN is 1/1 at range 4."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from test_battle_rules import CLAW, GUN, Game, sq, unit
from test_battle_rules import H as BH
from test_battle_rules import W as BW
from test_battle_rules_weapons import _special

from dustsim.data.cards import Card
from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import (
    C_P,
    C_T,
    H_ST,
    H_UNITS,
    R_CFG,
    ST_ACT,
    ST_SINGLE,
    ST_TOK,
    U_THIRD,
)
from dustsim.play.policies import get_policy
from dustsim.review.replay_rules import check_log_on_board

MEDIC, FRIEND, FOE = 0, 1, 2


def _hero(name, ap, weapons=(GUN,), skills=()):
    return Card(name=name, edition="dust-1947", kind="hero", armour="I1", ap=ap,
                damage_track=3, move=2, march_move=4, weapons=weapons, skills=skills)


def _game(squares, faces, friend_ap=40, foe_weapons=(CLAW,)):
    """Costa (Combat Medic, 5 AP), a friendly hero worth ``friend_ap``, and a foe (3 damage
    points; a claw only by default, so it never reacts at range) on ``squares``."""
    medic = unit("Costa", GUN, skills=("Combat Medic",), track=3)
    board = BD.open_board(BW, BH)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    spec = B.compile_battle([DuelUnit(medic), DuelUnit(_hero("Friend", friend_ap))],
                            [DuelUnit(_hero("Foe", 5, foe_weapons))], setup,
                            get_policy("cautious"), attacker=0)
    return Game(spec, squares, faces=faces + "S" * 40)


def _token(g, u):
    return int(g.m[g.m[0, BK.H_XU] + u, BR.X_STIM])


def _track(g, u):
    return int(g.m[g.m[0, H_ST] + u, ST_SINGLE])


# -- the medic's action (L3749) -------------------------------------------------------------------
def test_the_medic_injects_an_adjacent_friend_worth_more_that_can_strike():
    # the friend on c0 r2 is adjacent to Costa (c0 r1) and the foe on c6 r2 is within its gun's
    # range 4 + Move 2: Costa spends one action on the token and no dice (L3749)
    g = _game([sq(0, 1), sq(0, 2), sq(6, 2)], "")
    g.activate(MEDIC)
    inj = _special(g, BR.SP_STIM)
    assert len(inj) == 1 and inj[0][BK.L_TARGET] == FRIEND
    assert inj[0][BK.L_D0] < 0  # no dice
    assert _token(g, FRIEND) == 1 and _token(g, MEDIC) == 0


@pytest.mark.parametrize("case", ["range-2", "cheaper", "far-foe"])
def test_the_policy_injects_only_where_the_token_pays(case):
    squares = [sq(0, 1), sq(0, 3) if case == "range-2" else sq(0, 2), sq(6, 2)]
    if case == "far-foe":
        squares[FOE] = sq(7, 5)  # range 7 > the friend's 4 + 2: it cannot strike
    g = _game(squares, "", friend_ap=5 if case == "cheaper" else 40)
    g.activate(MEDIC)
    assert not _special(g, BR.SP_STIM) and _token(g, FRIEND) == 0


def test_a_friend_that_has_activated_keeps_the_token_for_its_next_activation():
    # the token waits for the unit's next activation (L3751): injecting a friend that has
    # activated this turn pays next turn (the medic keeps its place in the order)
    g = _game([sq(0, 1), sq(0, 2), sq(6, 2)], "")
    g.m[g.m[0, H_ST] + FRIEND, ST_ACT] = 1
    g.activate(MEDIC)
    assert len(_special(g, BR.SP_STIM)) == 1 and _token(g, FRIEND) == 1


# -- the token's die (L3751-3757) -----------------------------------------------------------------
@pytest.mark.parametrize("face, effect", [("P", BR.STIM_CHOOSE), ("T", BR.STIM_SUSTAINED),
                                          ("S", BR.STIM_MARCH)])
def test_the_token_goes_at_activation_and_one_die_names_the_effect(face, effect):
    g = _game([sq(0, 1), sq(0, 2), sq(6, 2)], face)
    g.m[g.m[0, BK.H_XU] + FRIEND, BR.X_STIM] = 1
    g.activate(FRIEND)
    roll = _special(g, BR.SP_STIM_ROLL)
    assert len(roll) == 1 and roll[0][BK.L_D1] - roll[0][BK.L_D0] == 1
    assert roll[0][BK.L_TOKEN] == effect and roll[0][BK.L_HITS] == 1
    assert _token(g, FRIEND) == 0
    g.m[g.m[0, H_ST] + FRIEND, ST_ACT] = 0  # a later activation: no token, no die
    g.activate(FRIEND)
    assert len(_special(g, BR.SP_STIM_ROLL)) == 1


@pytest.mark.parametrize("face, upgraded", [("T", True), ("P", True), ("S", False)])
def test_attack_counts_as_sustained_after_a_move(face, upgraded):
    # the foe on c6 r2 is at range 6 from the friend (c0 r2): out of reach of a gun of range
    # 4 until it Moves 2. Dice after the token's: S (the attack die misses), P, S.
    # Attack -> Sustained (T, or P by the player's choice): Move + Sustained Attack, three
    # actions; the miss is re-rolled (L793): P hits, the foe's save S fails: 3 - 1 = 2.
    # S (Move -> March) gains nothing on a Move + Attack: the plan it scores best is a March
    # Move + Attack, whose attack die S misses (the foe keeps 3)
    g = _game([sq(0, 1), sq(0, 2), sq(6, 2)], face + "SPS")
    g.m[g.m[0, BK.H_XU] + FRIEND, BR.X_STIM] = 1
    g.activate(FRIEND)
    ev = g.events()
    if upgraded:
        assert ev[:4] == ["activate", "special", "move", "sustained"]
        k = ev.index("sustained")
        assert g.log[k, BK.L_X] == BR.WHY_STIM and g.log[k, BK.L_HITS] == 1
        assert _track(g, FOE) == 2
    else:
        assert "sustained" not in ev and _track(g, FOE) == 3


@pytest.mark.parametrize("face, attacks", [("S", True), ("P", True), ("T", False)])
def test_move_counts_as_march_then_an_attack(face, attacks):
    # the foe on c7 r2 is at range 7: a Move (2) leaves range 5, a March Move (4) range 3.
    # Move -> March (S, or P by choice): March Move + Attack, three actions: dice P (hit),
    # S (the save fails): 3 - 1 = 2. T (Attack -> Sustained) cannot follow a March (2 + 2 > 3
    # actions, L3757): the March alone, no attack
    g = _game([sq(0, 1), sq(0, 2), sq(7, 2)], face + "PS")
    g.m[g.m[0, BK.H_XU] + FRIEND, BR.X_STIM] = 1
    g.activate(FRIEND)
    ev = g.events()
    assert "march" in ev and "move" not in ev
    if attacks:
        k = ev.index("attack")
        assert ev.index("march") < k and g.log[k, BK.L_X] == BR.WHY_STIM
        assert _track(g, FOE) == 2
    else:
        assert "attack" not in ev and _track(g, FOE) == 3


def test_a_sustained_attack_where_it_stands_counts_one_action():
    # the foe on c4 r2 is within the gun's range 4 where the friend stands (c0 r2). T: an
    # Attack counts as a Sustained Attack (L3755): the Sustained Attack is one action, a Move
    # may follow (to the square the policy scores best; none when it stands best). The
    # attack: S misses, its re-roll P hits (L793), the save S fails: 3 - 1 = 2
    g = _game([sq(0, 1), sq(0, 2), sq(4, 2)], "T" + "SPS")
    g.m[g.m[0, BK.H_XU] + FRIEND, BR.X_STIM] = 1
    g.activate(FRIEND)
    ev = [e for e, r in zip(g.events(), g.log, strict=False) if r[BK.L_UNIT] == FRIEND]
    assert ev.count("sustained") == 1 and ev.count("move") <= 1 and "march" not in ev
    k = g.events().index("sustained")
    assert g.log[k, BK.L_X] == BR.WHY_STIM and _track(g, FOE) == 2


@pytest.mark.parametrize("plan, effect, expected", [
    # Move + Attack: the Attack as a Sustained Attack (T, or P's choice), three actions
    (2, BR.STIM_SUSTAINED, (2, True, True)), (2, BR.STIM_CHOOSE, (2, True, True)),
    (2, BR.STIM_MARCH, (2, False, False)),  # its Move as a March gains it nothing
    # a March Move: it was the treated Move, an Attack follows (S, or P's choice)
    (4, BR.STIM_MARCH, (4, True, True)), (4, BR.STIM_CHOOSE, (4, True, True)),
    (4, BR.STIM_SUSTAINED, (4, False, False)),  # March (2) + Sustained (2) > 3 (L3757)
    # a Sustained Attack where it stands: one action with T, a Move after (the kernel's)
    (1, BR.STIM_SUSTAINED, (1, False, True)), (1, BR.STIM_MARCH, (1, False, False)),
    # one action left (Suppressed: Nothing first, L745): its Attack as a Sustained Attack
    (5, BR.STIM_SUSTAINED, (1, False, True)), (5, BR.STIM_MARCH, (5, False, False)),
    (3, BR.STIM_CHOOSE, (3, False, False)),  # Attack + Move: a gap of the plans
])
def test_what_each_effect_does_to_a_plan(plan, effect, expected):
    assert tuple(BR.stim_plan(plan, effect)) == expected


def test_never_more_than_three_actions():
    # an Infantry Ace's third action on its die (P or T, L3557): with it the token's effect
    # adds nothing (L3757): the roll says so and the Move + Attack stays an Attack.
    # Dice: the token's T, the Ace's P (a third action: Move + Sustained as an Ace's own),
    # then S, P, S as above
    g = _game([sq(0, 1), sq(0, 2), sq(6, 2)], "TPSPS")
    m = g.m
    m[m[0, H_UNITS] + FRIEND, U_THIRD] = m[R_CFG, C_P] | m[R_CFG, C_T]
    m[m[0, BK.H_XU] + FRIEND, BR.X_STIM] = 1
    g.activate(FRIEND)
    roll = _special(g, BR.SP_STIM_ROLL)
    assert len(roll) == 1 and roll[0][BK.L_HITS] == 0
    n = g.m[BK.R_B, BK.B_LOGN]
    assert not any(r[BK.L_X] == BR.WHY_STIM for r in g.log[:n]
                   if r[BK.L_ACTION] != BK.A_SPECIAL)  # the Ace's third action, not the token's


def test_a_suppressed_unit_attacks_as_a_sustained_attack():
    # Suppressed: its first action is Nothing (L745), one action left; with T its Attack
    # counts as a Sustained Attack: three actions. The foe on c4 r2 is within range 4.
    # Dice: the removal roll (2 dice, L741) S S keeps the Suppression; the token's T; the
    # attack S (miss), re-rolled P (hit); the save S fails: 3 - 1 = 2
    g = _game([sq(0, 1), sq(0, 2), sq(4, 2)], "SST" + "SPS")
    m = g.m
    m[m[0, H_ST] + FRIEND, ST_TOK] = 2  # Suppressed
    m[m[0, BK.H_XU] + FRIEND, BR.X_STIM] = 1
    g.activate(FRIEND)
    ev = g.events()
    assert "move" not in ev and "march" not in ev
    k = ev.index("sustained")
    assert g.log[k, BK.L_X] == BR.WHY_STIM and _track(g, FOE) == 2


# -- the event log and the replay checker ---------------------------------------------------------
@pytest.fixture(scope="module")
def log():
    """A whole game where Costa injects: her friend worth more stands beside her."""
    medic = unit("Costa", GUN, skills=("Combat Medic",), track=3)
    board = BD.open_board(BW, BH)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=3)
    spec = B.compile_battle([DuelUnit(medic), DuelUnit(_hero("Friend", 40)),
                             DuelUnit(_hero("Friend 2", 30))],
                            [DuelUnit(_hero("Foe", 5)), DuelUnit(_hero("Foe 2", 5))], setup,
                            get_policy("advance"), attacker=0)
    for seed in range(30):
        lg = B.event_log(spec, seed=seed)
        kinds = [e.get("special") for e in lg["events"]]
        if "stimulants" in kinds and "stimulant-roll" in kinds:
            return lg
    pytest.fail("no game of 30 injected stimulants")


def _first(lg, special):
    return next(i for i, e in enumerate(lg["events"]) if e.get("special") == special)


def test_a_game_with_stimulants_passes_the_checker_and_names_the_rule(log):
    check_log_on_board(log)
    i = _first(log, "stimulants")
    ev = log["events"][i]
    assert ev["unit"] == MEDIC and ev["target"] in (1, 2) and "L3745-3749" in ev["text"]
    r = log["events"][_first(log, "stimulant-roll")]
    assert r["unit"] == ev["target"] and len(r["dice"]) == 1
    assert r["effect"] == {"P": "choose", "T": "sustained", "S": "march"}[r["dice"]]


@pytest.mark.parametrize("breach", ["face", "no-token", "far", "rule"])
def test_the_checker_refuses_a_log_that_breaks_the_rule(log, breach):
    bad = copy.deepcopy(log)
    ev = bad["events"]
    i, j = _first(bad, "stimulants"), _first(bad, "stimulant-roll")
    if breach == "face":  # the die's face names another effect
        ev[j]["effect"] = {"choose": "march", "sustained": "choose", "march": "sustained"}[
            ev[j]["effect"]]
    elif breach == "no-token":  # a roll without a token: the injection never happened
        ev[i]["special"] = "camouflage"
    elif breach == "far":  # the medic injects a unit out of range 1
        ev[i]["target"] = 3  # a foe: an enemy
    else:  # an attack claims the rule with no roll in its activation
        k = next(k for k, e in enumerate(ev) if e["action"] in ("attack", "sustained")
                 and e["side"] == "B")  # a foe's: never a token
        ev[k]["rule"] = "Inject Stimulants"
    with pytest.raises(DustsimError, match=r"L37[45]"):
        check_log_on_board(bad)
