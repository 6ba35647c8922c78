"""Dig In Girls! (issue 23; L2197-2201; :mod:`dustsim.play.battle_platoon` roles ``dig-in``,
``dig-in-reroll``) on a hand-built board with scripted dice.

Rules read: an Attack hits on P (L672); a squad in the open saves on P (L686), in cover on P or
S (L682); Defensive Tactics gives Damage Resilient in cover (L3497): one die per point of
damage, each P cancels one (L3485); Mercenary units and support weapon teams of the platoon
have Defensive Tactics within range 2 of Tanya; once per game a Mercenary unit within range 2
of her (not hers) forces a successful Attack roll against it to be re-rolled (L2201; the
decision: each successful to-hit die of the attack is re-rolled once, a success only if it
succeeds again). The squad's soldiers have one damage point each; the gun is 3/1."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from test_battle_reserve import spec_with, tank
from test_battle_rules import Game, sq, unit, weapon

from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play.duel_kernel import H_ST, H_WS, OFF, ON, ST_MODELS
from dustsim.play.duel_layout import H_UNITS, U_W0
from dustsim.review.replay_rules import check_log_on_board

TRIPLE = weapon({"V1": "3/1", "I1": "3/1"}, name="mg")
SHOOTER, SQUAD, TANYA = 0, 1, 2
NEAR, FAR = sq(4, 1), sq(7, 5)  # Tanya at range 1 / range 4 or more of the squad on c3 r1


def _spec(roles):
    girls = replace(unit("Mercenary Squad", TRIPLE, kind="squad", skills=("Mercenary",)),
                    models=4)
    tanya = unit("Tanya", TRIPLE, skills=("Defensive Tactics", "Mercenary"))
    grant = BP.Grant("Dig In Girls!", "L2197-2201", "test: platoon 'p' (chart)",
                     tuple((i - 1, r) for i, r in roles))
    return spec_with([replace(tank("A"), weapons=(TRIPLE,))], [girls, tanya],
                     grants_b=(grant,))


def _shoot(spec, tanya_sq, faces, cov, times=1):
    """The shooter's Attack action at the squad, ``times`` times; soldiers left after each and
    the attack rows."""
    g = Game(spec, [sq(1, 1), sq(3, 1), tanya_sq], faces=faces + "T" * 60)
    m = g.m
    w = m[m[0, H_UNITS] + SHOOTER, U_W0]
    pos = 0
    left = []
    for _ in range(times):
        m[m[0, H_WS] + w, BK.WS_TGT] = SQUAD
        m[m[0, H_WS] + w, BK.WS_COV] = cov
        pos = BK._attack(g.rng, g.buf, pos, ON, m, spec.bd, spec.ls, spec.lq, g.log, SHOOTER,
                         OFF, OFF, BK.A_ATTACK)
        left.append(int(m[m[0, H_ST] + SQUAD, ST_MODELS]))
    k = m[BK.R_B, BK.B_LOGN]
    rows = [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] == BK.A_ATTACK]
    return left, rows, g


def _dug(row):
    """The attack row says Dig In Girls!' re-roll was spent on it (L_PN -1: no word)."""
    return int(row[BK.L_PN]) > 0 and bool(int(row[BK.L_PN]) & BP.DIG_LOG)


DT = ((SQUAD, "dig-in"), (TANYA, "holds"))
REROLL = ((SQUAD, "dig-in-reroll"), (TANYA, "holds"))


@pytest.mark.parametrize("tanya_sq, cov, faces, left", [
    # in cover near Tanya: PPP three hits; the cover saves T T T fail; Damage Resilient, one
    # die per point: P S P cancel two: one soldier of four falls
    (NEAR, 1, "PPP" + "TTT" + "PSP", 3),
    # in cover, Tanya four squares away: no Defensive Tactics, three fall
    (FAR, 1, "PPP" + "TTT" + "PSP", 1),
    # in the open near Tanya: Defensive Tactics is for cover only (L3497); the saves T T T
    # (P only, L686) fail: three fall
    (NEAR, 0, "PPP" + "TTT" + "PSP", 1),
])
def test_defensive_tactics_in_cover_within_range_2_of_tanya(tanya_sq, cov, faces, left):
    assert _shoot(_spec(DT), tanya_sq, faces, cov)[0] == [left]


def test_the_compiled_groups_are_left_as_they_were():
    # the switch (Tanya far) and the armed re-roll (near) are undone after each attack
    from dustsim.engines.kernel import G_MEDAL, G_RES_SG, G_RES_SQ
    from dustsim.play.duel_kernel import H_GROUPS, H_TSPEC

    for roles, tanya_sq, cov in ((DT, FAR, 1), (REROLL, NEAR, 0)):
        spec = _spec(roles)
        _, _, g = _shoot(spec, tanya_sq, "PPP" + "TTT", cov)
        r0, r1 = spec.m[0, H_GROUPS], spec.m[0, H_TSPEC]
        for col in (G_RES_SQ, G_RES_SG, G_MEDAL):
            assert (g.m[r0:r1, col] == spec.m[r0:r1, col]).all()


def test_the_reroll_once_per_game_on_the_first_attack_with_a_success():
    # attack 1: S S S, no success: nothing to re-roll, the re-roll is kept (L2201: declared
    # after the roll); the open saves are not rolled (no hit).
    # attack 2: P P S, two successes re-rolled: P S, one hit; its save T fails: one falls.
    # attack 3: the re-roll spent: P P S, two hits, saves T T: two fall
    faces = "SSS" + "PPS" + "PS" + "T" + "PPS" + "TT"
    left, rows, g = _shoot(_spec(REROLL), NEAR, faces, 0, times=3)
    assert left == [4, 3, 1]
    assert [int(r[BK.L_HITS]) for r in rows] == [0, 1, 2]
    assert [_dug(r) for r in rows] == [False, True, False]
    assert g.m[g.m[0, BK.H_XU] + TANYA, BP.X_DIG] == 1


def test_no_reroll_away_from_tanya():
    # Tanya four squares away: P P S two hits, the saves T T fail: two fall, nothing spent
    left, rows, g = _shoot(_spec(REROLL), FAR, "PPS" + "TT", 0)
    assert left == [2] and not _dug(rows[0])
    assert g.m[g.m[0, BK.H_XU] + TANYA, BP.X_DIG] == 0


def test_the_roles_follow_the_text():
    from dustsim.army.platoons import _grant_roles

    merc = unit("Mercenary Squad", TRIPLE, kind="squad", skills=("Mercenary",))
    tanya = unit("Tanya", TRIPLE, skills=("Defensive Tactics", "Mercenary"))
    team = unit("Heavy Laser Team", TRIPLE, kind="support")
    tough = unit("Silence", TRIPLE, skills=("Mercenary", "Defensive Tactics"))
    other = unit("Rifle Squad", TRIPLE, kind="squad")
    a = "Dig In Girls!"
    assert _grant_roles(a, tanya, True, (tanya,)) == ("holds",)  # not her own re-roll
    assert _grant_roles(a, merc, False, (merc,)) == ("dig-in", "dig-in-reroll")
    assert _grant_roles(a, team, False, (team,)) == ("dig-in",)  # a support weapon team
    assert _grant_roles(a, tough, False, (tough,)) == ("dig-in-reroll",)  # has it always
    assert _grant_roles(a, other, False, (other,)) == ()
    assert BP.ADVANTAGES[a].status == "played"


@pytest.fixture(scope="module")
def dig_log():
    """Whole games: a Mercenary squad and Tanya against two gunners until a re-roll."""
    girls = [replace(unit(f"Mercenary Squad {i}", TRIPLE, kind="squad", skills=("Mercenary",)),
                     models=4) for i in range(2)]
    tanya = unit("Tanya", TRIPLE, skills=("Defensive Tactics", "Mercenary"))
    grant = BP.Grant("Dig In Girls!", "L2197-2201", "test: p",
                     ((0, "dig-in"), (0, "dig-in-reroll"), (1, "dig-in"),
                      (1, "dig-in-reroll"), (2, "holds")))
    spec = spec_with([replace(tank(f"A{i}"), weapons=(TRIPLE,)) for i in range(2)],
                     [*girls, tanya], grants_b=(grant,))
    for seed in range(20):
        log = B.event_log(spec, seed)
        if any(e.get("dig_in") for e in log["events"]):
            return log
    pytest.fail("no re-roll in 20 games")


def test_a_game_with_the_reroll_passes_the_checker(dig_log):
    check_log_on_board(dig_log)
    ev = [e for e in dig_log["events"] if e.get("dig_in")]
    assert len(ev) == 1 and "L2201" in ev[0]["text"]


@pytest.mark.parametrize("breach", ["twice", "not-granted"])
def test_the_checker_refuses_a_second_reroll_or_one_off_the_platoon(dig_log, breach):
    bad = copy.deepcopy(dig_log)
    if breach == "twice":  # a second attack claims the re-roll too
        e = next(e for e in bad["events"] if e["action"] in ATTACKS and not e.get("dig_in"))
        e["dig_in"] = True
    else:  # the target is no unit of the platoon that earned the advantage
        e = next(e for e in bad["events"] if e.get("dig_in"))
        bad["units"][e["target"]]["advantages"] = []
    with pytest.raises(DustsimError, match="L2201"):
        check_log_on_board(bad)


ATTACKS = ("attack", "sustained", "reaction", "close-combat")
