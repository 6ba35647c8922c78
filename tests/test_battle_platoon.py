"""Platoon advantages in grid battles (issue 23; :mod:`dustsim.play.battle_platoon`): which
lists earn them (complete platoons only, L950-958), the flags they give, and each played
advantage on a hand-built board with scripted dice; expectations from seed 003.

Faces: P (bloc), T (target), S (shield). Get Moving succeeds on P (L3725); under Mission
Tactics on P or T for the leader's Heavy Grenadier units (L1459). Breakthrough: after a March
Move one die, on P a free Attack (L1878). Blitzkrieg Tactics: Get Moving as a third action
(L1431). Grab Them by the Nose: an M3 walker's Get Moving on another, anywhere (L1053)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_battle_rules import FACE, GUN, Game, H, W, sq, unit

from dustsim.army.lists import load_list, parse_list_toml
from dustsim.army.platoons import battle_grants, load_platoons
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_platoon as BP
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, OFF, ON, ST_ACT
from dustsim.play.duel_layout import H_UNITS, U_REACT_MASK
from dustsim.play.policies import get_policy

P_, T_, S_ = 1 << FACE["P"], 1 << FACE["T"], 1 << FACE["S"]


def spec_with(side_a, side_b, grants_a=(), board=None):
    board = board or BD.open_board(W, H)
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    return B.compile_battle([DuelUnit(c) for c in side_a], [DuelUnit(c) for c in side_b],
                            setup, get_policy("advance"), attacker=0,
                            grants=(tuple(grants_a), ()))


def grant(name, *roles):
    return BP.Grant(name, BP.ADVANTAGES[name].lines, "test: platoon 'p' (chart)", tuple(roles))


def special_rows(g, code):
    k = g.m[BK.R_B, BK.B_LOGN]
    return [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] == BK.A_SPECIAL and
            g.log[i, BK.L_X] == code]


# -- the table and the lists -----------------------------------------------------------------------
def test_the_table_names_every_advantage_of_the_charts_with_a_status():
    names = {p.advantage for p in load_platoons() if p.advantage}
    assert names == set(BP.ADVANTAGES)  # the 30 advantages (29 names: Blitzkrieg twice)
    for r in BP.ADVANTAGES.values():
        assert r.status in ("played", "partly played", "not played")
        assert bool(r.why_not) == (r.status != "played")
        assert bool(r.played) == (r.status != "not played")


def _example(name):
    from conftest import ROOT

    return load_list(ROOT / "examples/lists" / name)


def test_example_lists_earn_their_platoon_advantages_on_the_units_the_text_names():
    rangers = _example("allies-rangers.toml")
    (g,) = rangers.advantages
    assert g.advantage == "Rangers Lead the Way"
    named = {rangers.units[i].card.name for i, role in g.roles if role == "scout"}
    assert named == {"Ranger Command Squad", "Ranger Combat Squad", "Ranger Weapon Squad"}
    assert all(rangers.units[i].platoon == "rangers" for i, _ in g.roles)  # not the sniper
    heavies = _example("axis-heavy-grenadiers.toml")
    (g,) = heavies.advantages
    assert g.advantage == "Mission Tactics"
    assert dict(g.roles) == {0: "sure-order", 1: "ordered", 2: "ordered"}  # leader, 2 squads
    assert _example("ijn-ninjas.toml").advantages == ()  # its ENLIST chart names none


def test_an_incomplete_platoon_earns_no_advantage(tmp_path):
    text = """name = "x"\npoints = 75\n[[platoon]]\nid = "h"\nchart = "Axis Heavy Grenadier Platoon"
[[unit]]\ncard = "Heavy Grenadier Command Squad"\nplatoon = "h"
[[unit]]\ncard = "Heavy Grenadier Assault Squad"\nplatoon = "h"\n"""
    from dustsim.data.cards import load_cards

    cards = load_cards()
    lst = parse_list_toml(text, cards, "x.toml")
    assert battle_grants(lst, cards) == ()  # one required unit missing (L950-958)
    full = parse_list_toml(text + '[[unit]]\ncard = "Heavy Grenadier Assault Squad"\n'
                           'platoon = "h"\n', cards, "x.toml")
    assert [g.advantage for g in battle_grants(full, cards)] == ["Mission Tactics"]


def test_notes_name_the_advantages_earned_and_not_played_with_why():
    notes = BP.notes([grant("Rangers Lead the Way", (0, "scout")), grant("Mission Tactics"),
                      grant("BRAINSSSS!"), grant("Dig In Girls!"), grant("Wave Attack"),
                      grant("Seek, Strike, Destroy")])
    assert len(notes) == 2  # Rangers, BRAINSSSS!, Dig In Girls! are played
    assert notes[0].startswith("platoon advantage partly played in battles")
    assert "Wave Attack (L2063-2065)" in notes[0] and "transport" in notes[0]
    assert notes[1].startswith("platoon advantage not played in battles") and \
        "Seek, Strike, Destroy" in notes[1]


# -- the flags -------------------------------------------------------------------------------------
def test_roles_write_their_flags_only_on_the_units_granted():
    a, b, c = unit("A", GUN), unit("B", GUN), unit("C", GUN)
    spec = spec_with([a, b, c], [unit("E", GUN)],
                     [grant("Rangers Lead the Way", (0, "scout")),
                      grant("Vigilant", (1, "vigilant"))])
    m = spec.m
    assert BK.BR.has(m, 0, BK.BR.RB_SCOUT) and not BK.BR.has(m, 1, BK.BR.RB_SCOUT)
    ru = m[0, H_UNITS]
    assert m[ru + 1, U_REACT_MASK] == P_ | S_  # Vigilant: reactive dice on P and S (L1947)
    assert m[ru + 0, U_REACT_MASK] == P_ and m[ru + 2, U_REACT_MASK] == P_
    assert spec.advantages[0] == (("Rangers Lead the Way", "scout"),)
    assert spec.advantages[3] == ()
    assert not BK.BR.has(m, 3, BK.BR.RB_SCOUT)  # the enemy: nothing


# -- Mission Tactics (L1455-1459) ------------------------------------------------------------------
def _orders_game(faces, grants, officer_skills=("Officer",), far=False):
    leader = unit("Leader", GUN, skills=officer_skills)
    squad = replace(unit("Squad", GUN), ap=10)  # worth more than the leader: the policy orders it
    other = replace(unit("Other", GUN), ap=12)
    spec = spec_with([leader, squad, other], [unit("E", GUN)], grants)
    target_sq = sq(7, 5) if far else sq(1, 1)
    enemy_sq = sq(5, 4) if far else sq(3, 1)  # within the squad's range and Move: it can strike
    g = Game(spec, [sq(0, 0), target_sq, sq(7, 0), enemy_sq], faces=faces)
    rs = g.m[0, H_ST]
    g.m[rs + 1, ST_ACT] = 1  # the squad has activated this turn (L3725)
    return g


def _order_events(g):
    k = g.m[BK.R_B, BK.B_LOGN]
    return [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] == BK.A_SPECIAL and
            g.log[i, BK.L_X] in (BK.SP_ORDER, BP.SP_PA_ORDER)]


@pytest.mark.parametrize("face, mission, ordered", [("P", True, True), ("T", True, True),
                                                    ("S", True, False), ("P", False, True),
                                                    ("T", False, False)])
def test_mission_tactics_order_succeeds_on_P_or_T(face, mission, ordered):
    grants = [grant("Mission Tactics", (0, "sure-order"), (1, "ordered"))] if mission else []
    g = _orders_game(face + "S" * 60, grants)
    g.m[g.m[0, H_ST] + 2, ST_ACT] = 0  # "Other" (12 AP) has not activated: not orderable
    g.activate(0)
    (ev,) = _order_events(g)[:1]
    assert ev[BK.L_TARGET] == 1 and ev[BK.L_D1] - ev[BK.L_D0] == 1  # one die
    assert ev[BK.L_HITS] == int(ordered)
    assert ev[BK.L_X] == (BP.SP_PA_ORDER if mission else BK.SP_ORDER)
    if mission:
        assert ev[BK.L_TOKEN] % 8 == BP.PA_MISSION
    assert (g.m[g.m[0, BK.H_XU] + 1, BK.BR.X_REACT] == 1) == ordered  # reactivated this turn


def test_mission_tactics_counts_only_for_its_platoons_ordered_units():
    # the squad is not a Heavy Grenadier unit of the platoon: T fails (L3725's one face)
    g = _orders_game("T" + "S" * 60, [grant("Mission Tactics", (0, "sure-order"))])
    g.m[g.m[0, H_ST] + 2, ST_ACT] = 0
    g.activate(0)
    ev = _order_events(g)[0]
    assert ev[BK.L_X] == BK.SP_ORDER and ev[BK.L_HITS] == 0


# -- Blitzkrieg Tactics (L1427-1431, L1692-1696) ---------------------------------------------------
def _pa_order(g, u, free):
    return BK._pa_order(g.rng, g.buf, np.int64(0), BK.ON, g.m, g.spec.f, g.spec.bd, g.spec.ls,
                        g.spec.lq, g.log, np.int64(u), free)


@pytest.mark.parametrize("face, ordered", [("P", True), ("T", False), ("S", False)])
def test_blitzkrieg_third_action_orders_its_grenadiers_on_P(face, ordered):
    grants = [grant("Blitzkrieg Tactics", (0, "third-order"), (1, "ordered"))]
    g = _orders_game(face, grants, officer_skills=())  # a platoon leader, no Officer skill
    pos, tried, done = _pa_order(g, 0, ON)
    assert tried and done == ordered and pos == 1
    assert g.m[BK.R_G, BK.BR.G_NEXT] == (2 if ordered else 0)  # 1 + the squad: next to act
    (ev,) = special_rows(g, BP.SP_PA_ORDER)
    assert ev[BK.L_TOKEN] % 8 == BP.PA_BLITZ and ev[BK.L_TARGET] == 1


def test_blitzkrieg_never_orders_a_unit_outside_its_platoon_or_not_yet_activated():
    g = _orders_game("P", [grant("Blitzkrieg Tactics", (0, "third-order"))], officer_skills=())
    assert _pa_order(g, 0, ON)[1:] == (False, False)  # the squad is not "ordered"
    g = _orders_game("P", [grant("Blitzkrieg Tactics", (0, "third-order"), (1, "ordered"))],
                     officer_skills=())
    g.m[g.m[0, H_ST] + 1, ST_ACT] = 0
    assert _pa_order(g, 0, ON)[1:] == (False, False)  # only an activated unit (L3725)


def test_blitzkrieg_is_a_third_action_after_the_leaders_two():
    grants = [grant("Blitzkrieg Tactics", (0, "third-order"), (1, "ordered"))]
    g = _orders_game("S" * 40 + "P" + "S" * 40, grants, officer_skills=())
    g.activate(0)
    k = g.m[BK.R_B, BK.B_LOGN]
    acts = [int(g.log[i, BK.L_ACTION]) for i in range(k) if g.log[i, BK.L_UNIT] == 0]
    assert BK.A_SPECIAL in acts
    order_at = acts.index(BK.A_SPECIAL)
    assert order_at >= 1  # after the leader's own actions (decision: it ends the activation)


# -- Grab Them by the Nose (L1049-1053) ------------------------------------------------------------
def test_grab_them_by_the_nose_orders_a_walker_anywhere_for_one_action():
    grants = [grant("Grab Them by the Nose", (0, "walker-order"), (0, "ordered"),
                    (1, "walker-order"), (1, "ordered"))]
    g = _orders_game("P", grants, officer_skills=(), far=True)
    assert not BK._in_reach(g.m, g.spec.bd, g.spec.ls, g.spec.lq, 0, 1)  # beyond range 2
    _pos, tried, done = _pa_order(g, 0, OFF)
    assert tried and done and g.m[BK.R_G, BK.BR.G_NEXT] == 2
    # Markus' order needs range 2 and sight (L1566): the same far squad is not his to order
    g = _orders_game("P", [grant("Primal Instinct", (0, "ape-order"), (1, "ordered"))],
                     officer_skills=(), far=True)
    assert _pa_order(g, 0, OFF)[1:] == (False, False)


# -- Breakthrough (L1874-1878) ---------------------------------------------------------------------
@pytest.mark.parametrize("face, attacks", [("P", True), ("T", False), ("S", False)])
def test_breakthrough_free_attack_on_P_after_a_march(face, attacks):
    tank = unit("Tank", GUN, kind="vehicle", track=3)
    spec = spec_with([tank], [unit("E", GUN)], [grant("Breakthrough", (0, "breakthrough"))])
    g = Game(spec, [sq(1, 1), sq(4, 1)], faces=face + "P" * 4 + "S" * 10)
    _pos, attacked = BK._breakthrough(g.rng, g.buf, np.int64(0), BK.ON, g.m, spec.f, spec.bd,
                                     spec.ls, spec.lq, g.log, np.int64(0), g.val)
    assert attacked == attacks
    (ev,) = special_rows(g, BP.SP_BREAKTHROUGH)
    assert ev[BK.L_D1] - ev[BK.L_D0] == 1 and ev[BK.L_HITS] == int(attacks)
    k = g.m[BK.R_B, BK.B_LOGN]
    hits = [g.log[i] for i in range(k) if g.log[i, BK.L_ACTION] in (BK.A_ATTACK, BK.A_SUSTAINED)]
    assert len(hits) == int(attacks)
    if attacks:
        assert hits[0][BK.L_X] == BP.WHY_BREAKTHROUGH and hits[0][BK.L_TARGET] == 1
        # GUN: one die at I1, its P a hit, then the hero's save die (L672, L686)
        assert hits[0][BK.L_HITS] == 1 and hits[0][BK.L_D1] - hits[0][BK.L_D0] == 2


def test_no_breakthrough_die_when_nothing_is_in_reach():
    tank = unit("Tank", GUN, kind="vehicle", track=3)
    spec = spec_with([tank], [unit("E", GUN)], [grant("Breakthrough", (0, "breakthrough"))])
    g = Game(spec, [sq(0, 0), sq(7, 5)], faces="P" * 5)
    pos, attacked = BK._breakthrough(g.rng, g.buf, np.int64(0), BK.ON, g.m, spec.f, spec.bd,
                                     spec.ls, spec.lq, g.log, np.int64(0), g.val)
    assert not attacked and pos == 0 and special_rows(g, BP.SP_BREAKTHROUGH) == []


def test_mission_tactics_policy_orders_a_squad_worth_half_the_officer():
    # 2 faces of 3 (L1459) against one (L3725): a squad worth more than half the officer's AP
    # is worth ordering under Mission Tactics (6 x 2 > 10 x 1), not without (6 < 10)
    leader = replace(unit("Leader", GUN, skills=("Officer",)), ap=10)
    squad = replace(unit("Squad", GUN), ap=6)
    for mission, orders in ((True, True), (False, False)):
        grants = [grant("Mission Tactics", (0, "sure-order"), (1, "ordered"))] if mission else []
        spec = spec_with([leader, squad], [unit("E", GUN)], grants)
        g = Game(spec, [sq(0, 0), sq(1, 1), sq(3, 1)], faces="P" + "S" * 60)
        g.m[g.m[0, H_ST] + 1, ST_ACT] = 1
        g.activate(0)
        assert bool(_order_events(g)) == orders


# -- Go Get 'Em Girls! (L2171-2175) and Implacable Advance (L2092-2096) ---------------------------
@pytest.mark.parametrize("face, brave", [("P", True), ("T", True), ("S", False)])
def test_go_get_em_girls_brave_on_P_or_T_for_the_removal_roll(face, brave):
    # Suppressed; the removal dice read P S P: Brave's three dice hold two successes, every
    # token goes; two dice hold one, a step down to Under Fire (L741)
    spec = spec_with([unit("Merc", GUN)], [unit("E", GUN)], [grant("Go Get 'Em Girls!",
                                                                   (0, "go-girls"))])
    g = Game(spec, [sq(0, 0), sq(7, 5)], faces=face + "PSP" + "S" * 40)
    g.m[g.m[0, H_ST] + 0, BK.ST_TOK] = 2
    g.activate(0)
    (ev,) = special_rows(g, BP.SP_GIRLS)
    assert ev[BK.L_HITS] == int(brave) and ev[BK.L_D1] - ev[BK.L_D0] == 1
    k = g.m[BK.R_B, BK.B_LOGN]
    (tok,) = [g.log[i, BK.L_TOKEN] for i in range(k) if g.log[i, BK.L_ACTION] ==
              BK.A_TOKEN_REMOVED]
    assert tok == (0 if brave else 1)
    assert g.m[g.m[0, H_UNITS] + 0, BK.U_SUPP_DICE] == 2  # Brave for that activation only


def test_go_get_em_girls_no_roll_without_a_token():
    spec = spec_with([unit("Merc", GUN)], [unit("E", GUN)], [grant("Go Get 'Em Girls!",
                                                                   (0, "go-girls"))])
    g = Game(spec, [sq(0, 0), sq(7, 5)], faces="P" * 40)
    g.activate(0)
    assert special_rows(g, BP.SP_GIRLS) == []


@pytest.mark.parametrize("implacable", [True, False])
def test_implacable_advance_suppressed_moves_then_attacks(implacable):
    grants = [grant("Implacable Advance", (0, "implacable"))] if implacable else []
    spec = spec_with([unit("Steel", GUN)], [unit("E", GUN)], grants)
    # suppressed, its removal roll fails (S S); from column 0 the enemy at column 6 is out of
    # the gun's range 4, a Move of 2 brings it in
    g = Game(spec, [sq(0, 2), sq(6, 2)], faces="SS" + "P" + "S" * 40)
    g.m[g.m[0, H_ST] + 0, BK.ST_TOK] = 2
    g.activate(0)
    k = g.m[BK.R_B, BK.B_LOGN]
    acts = [int(g.log[i, BK.L_ACTION]) for i in range(k) if g.log[i, BK.L_UNIT] == 0]
    assert BK.A_MOVE in acts and BK.A_MARCH not in acts and BK.A_SUSTAINED not in acts
    assert (BK.A_ATTACK in acts) == implacable  # Move instead of Nothing, then Attack (L2096)
    if implacable:
        assert acts.index(BK.A_MOVE) < acts.index(BK.A_ATTACK)


# -- grants lasting while a hero is in play (Strike Unseen L2149, Fanatical Loyalty L1532,
# Tight Quarters L1794) -------------------------------------------------------------------------
def test_grants_last_while_the_platoons_hero_is_in_play_and_return_next_game():
    from dustsim.play.duel_kernel import ST_MODELS, ST_SINGLE

    camo = unit("Camo", GUN, skills=("Camouflage",))  # its card's own Camouflage stays
    spec = spec_with([unit("Roza", GUN), unit("Squad", GUN), camo, unit("Other", GUN)],
                     [unit("E", GUN)],
                     [grant("Strike Unseen", (0, "holds"), (1, "camouflage-while"),
                            (2, "camouflage-while")),
                      grant("Fanatical Loyalty", (3, "no-tokens-while"))])
    m = spec.m.copy()
    BK._reset(m)
    x, ru, rs = m[0, BK.H_XU], m[0, H_UNITS], m[0, H_ST]
    assert BK.BR.has(m, 1, BK.BR.RB_CAMOUFLAGE) and m[x + 1, BK.BR.ST_CAMO] == 1
    BP.lapse_while(m)
    assert BK.BR.has(m, 1, BK.BR.RB_CAMOUFLAGE)  # Roza in play: it lasts
    assert m[ru + 3, BK.U_IMMUNE] == 0  # no Sigrid in that platoon: it lapses at once
    m[rs + 0, ST_MODELS] = 0
    m[rs + 0, ST_SINGLE] = 0  # Roza destroyed
    BP.lapse_while(m)
    assert not BK.BR.has(m, 1, BK.BR.RB_CAMOUFLAGE) and m[x + 1, BK.BR.ST_CAMO] == 0
    assert BK.BR.has(m, 2, BK.BR.RB_CAMOUFLAGE)  # printed on its card
    BK._reset(m)  # the next game: Roza back, the grant with her
    assert BK.BR.has(m, 1, BK.BR.RB_CAMOUFLAGE) and m[x + 1, BK.BR.ST_CAMO] == 1


def test_fanatical_loyalty_no_tokens_while_sigrid_is_in_play():
    from dustsim.play.duel_kernel import ST_MODELS, ST_SINGLE

    spec = spec_with([unit("Sigrid", GUN), unit("Laser", GUN)], [unit("E", GUN)],
                     [grant("Fanatical Loyalty", (0, "holds"), (1, "no-tokens-while"))])
    m = spec.m.copy()
    BK._reset(m)
    ru, rs = m[0, H_UNITS], m[0, H_ST]
    assert m[ru + 1, BK.U_IMMUNE] == 1
    m[rs + 0, ST_MODELS] = 0
    m[rs + 0, ST_SINGLE] = 0
    BP.lapse_while(m)
    assert m[ru + 1, BK.U_IMMUNE] == 0


def _grants_of(text):
    from dustsim.data.cards import load_cards

    cards = load_cards()
    return battle_grants(parse_list_toml('name = "x"\npoints = 75\n' + text, cards, "x.toml"),
                         cards)


def test_a_lasting_grant_needs_its_hero_in_the_platoon():
    (g,) = _grants_of('[[platoon]]\nid = "r"\nchart = "Spetsnaz Battlegroup Roza Platoon"\n'
                      '[[unit]]\ncard = "Roza"\nplatoon = "r"\n'
                      '[[unit]]\ncard = "Spetsnaz Assault Squad"\nplatoon = "r"\n'
                      '[[unit]]\ncard = "Natasha (TSH)"\nplatoon = "r"\n')
    assert g.advantage == "Strike Unseen"
    assert (0, "holds") in g.roles and (1, "camouflage-while") in g.roles
    assert not any(i == 2 for i, _ in g.roles)  # the walker is no Spetsnaz infantry (L2149)
    (g,) = _grants_of('[[platoon]]\nid = "b"\nchart = "Blutkreuz Korps Platoon"\n'
                      '[[unit]]\ncard = "Laser Grenadier Command Squad"\nplatoon = "b"\n'
                      + '[[unit]]\ncard = "Laser Grenadier Squad"\nplatoon = "b"\n' * 3)
    assert g.advantage == "Fanatical Loyalty" and g.roles == ()  # no Sigrid: nothing lasts


# -- the event log and the replay checker ----------------------------------------------------------
def test_event_logs_name_the_advantages_and_the_replay_checker_holds_them_to_their_lines():
    from dustsim.errors import DustsimError
    from dustsim.review.replay_rules import check_log_on_board

    a, b = _example("axis-heavy-grenadiers.toml"), _example("allies-rangers.toml")
    found = None
    for seed in range(12):
        log = B.event_log(B.prepare(a, b, scenario="101", seed=seed), seed)
        check_log_on_board(log)  # every advantage event obeys its lines
        orders = [i for i, e in enumerate(log["events"]) if e.get("advantage") ==
                  "Mission Tactics"]
        if orders and any(e.get("rule") == "Scout" and e.get("advantage") for e in
                          log["events"]):
            found = (log, orders[0])
            break
    assert found is not None
    log, i = found
    assert log["units"][0]["advantages"] == ["Mission Tactics"]
    ev = log["events"][i]
    assert ev["special"] == "get-moving" and "platoon advantage: Mission Tactics" in ev["text"]
    bad = {**log, "events": list(log["events"])}
    bad["events"][i] = {**ev, "hits": 1 - ev["hits"]}  # a T that failed, a P that succeeded
    with pytest.raises(DustsimError, match="P or T"):
        check_log_on_board(bad)
    bad["events"][i] = ev
    bad["units"] = [{k: v for k, v in u.items() if k != "advantages"} if u["id"] == ev["unit"]
                    else u for u in log["units"]]  # its unit earned no advantage
    with pytest.raises(DustsimError, match="complete platoon"):
        check_log_on_board(bad)


@pytest.mark.parametrize("face, gains", [("P", True), ("T", False), ("S", False)])
def test_mobile_warfare_move_and_fire_on_P_for_that_activation(face, gains):
    walker = unit("Ludwig", GUN, kind="vehicle", track=3)
    spec = spec_with([walker], [unit("E", GUN)], [grant("Mobile Warfare", (0, "mobile"))])
    g = Game(spec, [sq(0, 0), sq(7, 5)], faces=face + "S" * 40)
    g.activate(0)
    (ev,) = special_rows(g, BP.SP_MOBILE)
    assert ev[BK.L_D0] == 0 and ev[BK.L_D1] == 1 and ev[BK.L_HITS] == int(gains)
    assert g.events()[0] == "activate"  # the roll comes at the start of its activation
    assert BK.BR.has(g.m, 0, BK.BR.RB_MOVE_AND_FIRE) == gains
    g.buf[:] = FACE["S"]  # its next activation: a failed roll takes it away again
    g.m[g.m[0, H_ST] + 0, ST_ACT] = 0
    g.activate(0)
    assert not BK.BR.has(g.m, 0, BK.BR.RB_MOVE_AND_FIRE)
