"""Reserves in grid battles (issue 23; :mod:`dustsim.play.battle_reserve`): scenario data, the
placement of destroyed units in Reserve, their return from the deployment zone in a later turn,
an Airborne unit's drop from Reserve, Surprise Strike on arrival, victory points; hand-built
boards, scripted dice, expectations from seed 003.

Rules read: Reserve [#] (L3100-3104): each time a unit is eliminated its player may place it in
Reserve until # units have been placed; it comes back fresh (no damage, ammunition
replenished); heroes never go; it comes on by activating in a turn after the one it was
eliminated in, from its deployment area. Scenario 106: the defender has Reserve (2) (L2650);
scenario 111's variant: both sides Reserve [2] (L2890), VP the points of enemy units destroyed
(L2886). Airborne (L3393): placed anywhere, a Nothing action, one die: a second action on P or
T. Surprise Strike (L2122): At the Double in the activation it arrives from Reserve."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_battle_rules import GUN, Game, H, W, sq, unit

from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play import battle_reserve as RS
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, H_WPN, H_WS, ST_ACT, ST_SINGLE, ST_TOK
from dustsim.play.duel_layout import H_UNITS, U_W0
from dustsim.play.policies import get_policy


def spec_with(side_a, side_b, reserve=(2, 1), scenario="101", policy="first", grants_b=(),
              height=H, grants_a=()):
    """A on the attacker's edge (row 0), B the defender (last row); ``reserve``: the attacker's
    and the defender's Reserve [#]."""
    board = BD.open_board(W, height)
    setup = replace(B.scenario_setup(scenario, 0), board=board, boards=(board,), turns=4,
                    reserve=reserve)
    return B.compile_battle([DuelUnit(c) for c in side_a], [DuelUnit(c) for c in side_b],
                            setup, get_policy("advance"), attacker=0,
                            grants=(tuple(grants_a), tuple(grants_b)), reserve_policy=policy)


def tank(name, track=2, skills=()):
    return unit(name, GUN, kind="vehicle", track=track, skills=skills)


def kill(g, u):
    g.m[g.m[0, H_ST] + u, ST_SINGLE] = 0


def specials(g, code):
    k = g.m[BK.R_B, BK.B_LOGN]
    return [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] == BK.A_SPECIAL
            and g.log[i, BK.L_X] == code]


def alive(g, u):
    return int(g.m[g.m[0, H_ST] + u, ST_SINGLE]) > 0


# -- scenario data ---------------------------------------------------------------------------------
def test_scenarios_give_the_printed_reserves():
    assert B.scenario_setup("106", 0).reserve == (0, 2)  # DEF. 50 % RES. (2) (L2650)
    assert B.scenario_setup("111", 0).reserve == (0, 0)
    assert B.scenario_setup("111", 0, "Reserves").reserve == (2, 2)  # the variant (L2890)
    with pytest.raises(DustsimError, match="policies: first, none"):
        spec_with([tank("A")], [tank("B")], policy="all")


def test_who_may_go_into_reserve():
    hero = unit("Hero", GUN)  # the test helper's default kind is a hero
    assert not RS.eligible(hero, None, None)  # heroes never (L3104)
    squad = unit("Squad", GUN, kind="squad")
    assert RS.eligible(squad, None, None)
    assert not RS.eligible(squad, hero, None)  # it carries a hero
    assert not RS.eligible(tank("T"), None, hero)  # a hero pilots it
    strong = unit("Gun Nest", GUN, kind="squad", skills=("Strongpoint",))
    assert not RS.eligible(strong, None, None)  # Strongpoint units never (L3124)


# -- placement (L3102-3104) ------------------------------------------------------------------------
def test_destroyed_units_go_into_reserve_fresh_until_the_side_has_placed_its_number():
    # A (attacker, Reserve [2]): a tank and a hero; B (defender, Reserve [1]): two tanks
    spec = spec_with([tank("A1", track=3), unit("Hero", GUN)], [tank("B1"), tank("B2")])
    g = Game(spec, [sq(1, 0), sq(2, 0), sq(1, 5), sq(2, 5)])
    m = g.m
    rs, ws = m[0, H_ST], m[0, H_WS]
    w_b1 = m[m[0, H_UNITS] + 2, U_W0]
    m[rs + 2, ST_TOK] = 2  # Suppressed, its ammunition spent, then destroyed
    m[ws + w_b1, BK.WS_AMMO] = 0
    kill(g, 2)
    BK._reserve_check(m, g.log)
    assert alive(g, 2) and int(m[rs + 2, ST_SINGLE]) == 2  # fresh: its whole track (L3102)
    assert int(m[rs + 2, ST_TOK]) == 0 and int(m[rs + 2, BK.ST_SQ]) == -1
    assert m[ws + w_b1, BK.WS_AMMO] == m[m[0, H_WPN] + w_b1, BK.W_AMMO]  # replenished
    assert int(m[rs + 2, ST_ACT]) == 1  # not this turn: in a later one (L3104)
    (r,) = specials(g, RS.SP_RESERVE)
    assert (r[BK.L_UNIT], r[BK.L_HITS], r[BK.L_TOKEN], r[BK.L_FROM]) == (2, 1, 1, sq(1, 5))
    _a0, a1, _l0, l1 = BK._counts(m)
    assert (a1, l1) == (1, 2)  # B: one to activate this turn (B2), two units left
    kill(g, 3)  # B's one placement is spent: B2 stays destroyed
    kill(g, 1)  # a hero never goes (L3104)
    kill(g, 0)  # A's first placement of two
    BK._reserve_check(m, g.log)
    assert not alive(g, 3) and not alive(g, 1) and alive(g, 0)
    assert [(int(r[BK.L_UNIT]), int(r[BK.L_HITS]), int(r[BK.L_TOKEN]))
            for r in specials(g, RS.SP_RESERVE)] == [(2, 1, 1), (0, 1, 2)]
    kill(g, 2)  # B1 destroyed again: B has placed its one unit
    BK._reserve_check(m, g.log)
    assert not alive(g, 2) and len(specials(g, RS.SP_RESERVE)) == 2


def test_a_vehicle_placed_in_reserve_takes_its_wreck_with_it():
    # decision (battle_kernel._reserve_check): the wreck is the miniature (L486) and the same
    # miniature comes back fresh (L3102), so a tank placed in Reserve leaves no wreck; one
    # left destroyed (B's one placement spent) stays a wreck that blocks sight on a crossed
    # square (L486)
    spec = spec_with([tank("A1"), tank("A2")],
                     [tank("B1"), tank("B2"), tank("B3"), tank("B4")], reserve=(2, 1))
    g = Game(spec, [sq(1, 0), sq(3, 0), sq(1, 2), sq(3, 2), sq(1, 5), sq(3, 5)])
    m = g.m
    wreck = m[0, BK.H_SCR] + np.array([sq(1, 2), sq(3, 2)])
    for u in (2, 3):  # destroyed where they stand, as BK._hit leaves them
        kill(g, u)
    m[wreck, BK.SC_WRECK] = 1
    BK._occupy(m)
    assert g.sight(sq(1, 0), sq(1, 5), 0, 4) == 2 and g.sight(sq(3, 0), sq(3, 5), 1, 5) == 2
    BK._reserve_check(m, g.log)
    assert alive(g, 2) and not alive(g, 3)  # B's one placement: B1 into Reserve
    assert list(m[wreck, BK.SC_WRECK]) == [0, 1]
    assert g.sight(sq(1, 0), sq(1, 5), 0, 4) == 0  # clear: nothing left on b3
    assert g.sight(sq(3, 0), sq(3, 5), 1, 5) == 2  # B2's wreck still on d3


def test_a_squad_back_from_reserve_has_its_officer_and_the_carriers_a_sniper_took():
    # L3102: it comes back with no damage; the officer soldier a Sniper took (L3709) and a
    # line's fallen carrier (L3317) are part of that damage
    from test_battle_sniper import RIFLE, squad

    from dustsim.play import battle_rules as BR

    cmd = squad("Command Squad", RIFLE, models=3, skills=("Command Squad",))
    spec = spec_with([tank("A1", track=3)], [cmd])
    g = Game(spec, [sq(1, 0), sq(1, 5)])
    m = g.m
    assert BR.officer_up(m, 1)
    w = m[m[0, H_UNITS] + 1, U_W0]
    carriers = int(m[m[0, H_WPN] + w, BR.W_CARRIERS])
    assert carriers > 1
    m[m[0, BK.H_XU] + 1, BR.X_SNIPED] = 1  # the officer fell to a Sniper
    m[m[0, H_WPN] + w, BR.W_CARRIERS] = carriers - 1  # and one of the line's carriers
    assert not BR.officer_up(m, 1)
    m[m[0, H_ST] + 1, BK.ST_MODELS] = 0  # then the squad is destroyed
    BK._reserve_check(m, g.log)
    assert alive_squad(g, 1) and BR.officer_up(m, 1)
    assert int(m[m[0, H_WPN] + w, BR.W_CARRIERS]) == carriers


def alive_squad(g, u):
    return int(g.m[g.m[0, H_ST] + u, BK.ST_MODELS]) > 0


def test_policy_none_places_nothing():
    g = Game(spec_with([tank("A")], [tank("B")], policy="none"), [sq(1, 0), sq(1, 5)])
    kill(g, 1)
    BK._reserve_check(g.m, g.log)
    assert not alive(g, 1) and specials(g, RS.SP_RESERVE) == []


def test_each_destruction_scores_and_annihilation_reads_units_destroyed_now():
    # scenario 111's scoring: VP = points of enemy units destroyed (L2886); the unit's 5 AP
    spec = spec_with([tank("A")], [tank("B")], scenario="111")
    g = Game(spec, [sq(1, 0), sq(1, 5)])
    m, f = g.m, spec.f
    kill(g, 1)
    BK._reserve_check(m, g.log)  # destroyed once, back in Reserve
    assert BK._vp(m, f, spec.bd, 0) == pytest.approx(5.0)
    assert BK._lost(m, f, 1) == 0.0  # nothing of B is destroyed now
    kill(g, 1)
    BK._reserve_check(m, g.log)  # destroyed again: B's Reserve [1] is spent
    assert BK._vp(m, f, spec.bd, 0) == pytest.approx(10.0)  # two destructions
    assert BK._lost(m, f, 1) == pytest.approx(5.0)


# -- coming on (L3104) -----------------------------------------------------------------------------
def _next_turn(g):
    g.m[BK.R_G, BK.G_TURN] += 1
    for u in range(g.m[0, 0]):
        g.m[g.m[0, H_ST] + u, ST_ACT] = 0


def test_a_unit_in_reserve_comes_on_from_its_deployment_zone_in_a_later_turn():
    spec = spec_with([tank("A")], [tank("B1"), tank("B2")])
    g = Game(spec, [sq(3, 1), sq(1, 5), sq(6, 5)], faces="S" * 60)
    kill(g, 1)
    BK._reserve_check(g.m, g.log)
    _next_turn(g)
    g.activate(1)
    k = g.m[BK.R_B, BK.B_LOGN]
    rows = [g.log[i] for i in range(k)]
    acts = [B.ACTIONS[int(r[BK.L_ACTION])] for r in rows]
    i = next(j for j, r in enumerate(rows) if r[BK.L_ACTION] == BK.A_SPECIAL
             and r[BK.L_X] == RS.SP_ARRIVE)
    assert rows[i][BK.L_UNIT] == 1 and rows[i][BK.L_TURN] == 2
    assert acts[i + 1] == "activate"
    moves = [r for r in rows[i:] if r[BK.L_ACTION] in (BK.A_MOVE, BK.A_MARCH)]
    assert moves and moves[0][BK.L_FROM] == -1  # it comes on from off the board
    first = int(g.plog[moves[0][BK.L_P0]])
    zone = {int(s) for s, z in enumerate(spec.setup.board.deploy[1]) if z}
    assert first in zone  # B's deployment zone, its edge row (L3104)
    assert RS.waiting(g.m, 1) == 0  # it came on: no longer in Reserve


@pytest.mark.parametrize("face, second", [("P", True), ("T", True), ("S", False)])
def test_an_airborne_unit_back_from_reserve_drops_again(face, second):
    para = tank("Para", skills=("Airborne",))  # a walker dropping as KV-47s do (L1850)
    spec = spec_with([tank("A")], [para, tank("B2")])
    g = Game(spec, [sq(3, 1), sq(4, 4), sq(6, 5)], faces=face + "S" * 60)
    g.m[g.m[0, BK.H_XU] + 1, BK.BR.ST_DROP] = 1  # it dropped on turn 1 (L3393)
    kill(g, 1)
    BK._reserve_check(g.m, g.log)
    _next_turn(g)
    g.activate(1)
    (arr,) = specials(g, RS.SP_ARRIVE)
    assert arr[BK.L_TURN] == 2
    (drop,) = specials(g, BK.SP_AIRBORNE)  # placed anywhere, as at the start (L3393)
    assert drop[BK.L_HITS] == (1 if second else 0)  # a second action on P or T
    ev = g.events()
    assert ev.count("nothing") == (1 if second else 2)


def test_surprise_strike_gives_at_the_double_on_arrival_from_reserve():
    runner = replace(tank("Spetsnaz"), move=1)
    grant = BP.Grant("Surprise Strike", "L2118-2122", "test: platoon 'p' (chart)",
                     ((0, "first-double"),))

    def whys(with_grant):
        spec = spec_with([tank("A")], [runner], grants_b=(grant,) if with_grant else (),
                         height=12)  # far from the enemy: it marches, then moves on
        g = Game(spec, [sq(3, 0), sq(1, 11)], faces="S" * 80)
        g.m[g.m[0, BK.H_XU] + 1, BK.BR.ST_FIRST] = 1  # its first activation is past
        kill(g, 1)
        BK._reserve_check(g.m, g.log)
        _next_turn(g)
        g.activate(1)
        k = g.m[BK.R_B, BK.B_LOGN]
        return [int(g.log[i, BK.L_TARGET]) for i in range(k)
                if g.log[i, BK.L_ACTION] == BK.A_MOVE and g.log[i, BK.L_UNIT] == 1]

    assert int(BK.WHY_AT_THE_DOUBLE) in whys(True)  # a free Move after its March (L3433)
    assert int(BK.WHY_AT_THE_DOUBLE) not in whys(False)


# -- whole games -----------------------------------------------------------------------------------
def _examples():
    from conftest import ROOT

    from dustsim.army.lists import load_list

    return (load_list(ROOT / "examples/lists/allies-rangers.toml"),
            load_list(ROOT / "examples/lists/axis-heavy-grenadiers.toml"))


def test_event_logs_of_a_reserve_scenario_obey_the_reserve_rule():
    import copy

    from dustsim.review.replay_rules import check_log_on_board

    a, b = _examples()
    spec = B.prepare(a, b, scenario="111", variant="Reserves", seed=3, boards=1)
    assert any("Reserve [2]" in n for n in spec.notes) and \
        any("policy 'first'" in n for n in spec.notes)
    seen = 0
    for seed in range(3):
        log = B.event_log(spec, seed)
        check_log_on_board(log)  # placements counted, arrivals in a later turn (L3102-3104)
        evs = log["events"]
        placed = [e for e in evs if e.get("special") == "reserve"]
        seen += len(placed)
        for e in placed:
            assert e["placed"] <= 2 and "L3102-3104" in e["text"]
            back = [x for x in evs if x.get("special") == "reserve-arrival"
                    and x["unit"] == e["unit"] and x["turn"] > e["turn"]]
            late = [x for x in evs if x["action"] == "activate" and x["unit"] == e["unit"]
                    and x["turn"] == e["turn"] and evs.index(x) > evs.index(e)]
            assert not late  # not in the turn it was eliminated
            assert back or e["turn"] == log["result"]["turns"] or \
                log["result"]["turns"] < spec.setup.turns
    assert seen > 0
    bad = copy.deepcopy(log)
    i = next(j for j, e in enumerate(bad["events"]) if e.get("special") == "reserve-arrival")
    u = bad["events"][i]["unit"]
    j = max(k for k, e in enumerate(bad["events"][:i]) if e.get("special") == "reserve"
            and e["unit"] == u)
    bad["events"][i]["turn"] = bad["events"][j]["turn"]  # back in the same turn
    with pytest.raises(DustsimError, match="L3104"):
        check_log_on_board(bad)


def test_reserves_same_seed_same_numbers_for_any_thread_count_policy_none_plays_none():
    a, b = _examples()
    spec = B.prepare(a, b, scenario="111", variant="Reserves", seed=5, boards=1)
    r1 = B.simulate_battle(spec, 1024, 9, threads=1)
    r2 = B.simulate_battle(spec, 1024, 9, threads=2)
    assert r1.summary() == r2.summary()
    none = B.prepare(a, b, scenario="111", variant="Reserves", seed=5, boards=1,
                     reserve_policy="none")
    plain = B.prepare(a, b, scenario="111", seed=5, boards=1)
    r0 = B.simulate_battle(none, 1024, 9, threads=1)
    assert r0.summary() == B.simulate_battle(plain, 1024, 9, threads=1).summary()
    assert r0.summary() != r1.summary()  # units came back from Reserve in some games
