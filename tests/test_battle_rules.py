"""Board-dependent unit rules in grid battles (issue 23; :mod:`dustsim.play.battle_rules`):
small hand-built boards, scripted dice, expectations derived by hand from seed 003.

Faces: P (bloc), T (target), S (shield). Hits on P (L672); a hero in the open saves on P
(L686); reactive dice succeed on P (L805), on P and S with Advanced Reactive Fire (L3373).
Range counts squares with the diagonal rule (L580-598); on a straight row it is the column
difference."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.engines.rng import state
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play import battle_rules as BR
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, H_UNITS, H_WS, ST_MODELS, ST_SINGLE
from dustsim.play.policies import get_policy

FACE = {"P": 0, "T": 1, "S": 2}
W, H = 8, 6


def weapon(cells: dict, *, name="gun", range_="4"):
    line = tuple(parse_cell(cells.get(c, "-")) for c in COLUMNS)
    return Weapon(name=name, line=line, count=1, range=range_, keywords=(), ammo=None)


GUN = weapon({"V1": "1/1", "I1": "1/1"})
CLAW = weapon({"V1": "1/1", "I1": "1/1"}, name="claw", range_="C")


def unit(name, *weapons, kind="hero", skills=(), move=2, track=1):
    armour = "V1" if kind == "vehicle" else "I1"
    return Card(name=name, edition="dust-1947", kind=kind, armour=armour, ap=5,
                damage_track=track, move=move, march_move=2 * move, weapons=weapons,
                skills=tuple(skills))


def spec_on(board, side_a, side_b, policy="advance"):
    setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
    return B.compile_battle([DuelUnit(c) for c in side_a], [DuelUnit(c) for c in side_b],
                            setup, get_policy(policy), attacker=0)


class Game:
    """A compiled battle with its state set by hand: units on squares, turn 1, logging on."""

    def __init__(self, spec, squares, faces=""):
        self.spec = spec
        self.m = spec.m.copy()
        m = self.m
        BK._reset(m)
        m[BK.R_G, BK.G_TURN] = 1
        m[BK.R_G, BK.G_ATT] = 0
        for u, s in enumerate(squares):
            m[m[0, H_ST] + u, BK.ST_SQ] = s
        BK._occupy(m)
        m[BK.R_B, BK.B_LOG] = 1
        m[BK.R_B, BK.B_LOGN] = 0
        m[BK.R_B, BK.B_PLOGN] = 0
        self.buf = np.array([FACE[c] for c in faces] or [0], np.uint8)
        self.rng = state(np.random.SeedSequence(1))
        self.log = np.zeros((400, BK.NLOG), np.int64)
        self.plog = np.zeros(1600, np.int64)
        self.el, self.val, self.qb, _ = BK._scratch(m)  # the kernel's own shapes

    def activate(self, u):
        return BK._activate(self.rng, self.buf, np.int64(0), BK.ON, self.m, self.spec.f,
                            self.spec.bd, self.spec.ls, self.spec.lq, self.log, self.plog,
                            np.int64(u), self.el, self.val, self.qb)

    def events(self):
        k = self.m[BK.R_B, BK.B_LOGN]
        return [B.ACTIONS[int(r[BK.L_ACTION])] for r in self.log[:k]]

    def sight(self, a, b, ua, ub):
        return int(BK._sight(self.m, self.spec.bd, self.spec.ls, self.spec.lq, a, b, ua, ub))

    def left(self, u):
        r = self.m[0, H_ST] + u
        return int(self.m[r, ST_MODELS] + self.m[r, ST_SINGLE])


def sq(c, r):
    return r * W + c


# -- smoke ---------------------------------------------------------------------------------------
def test_smoke_blocks_sight_through_it_gives_cover_inside_and_lifts_after_the_next_turn():
    g = Game(spec_on(BD.open_board(W, H), [unit("A", GUN)], [unit("B", GUN)]),
             [sq(0, 2), sq(6, 2)])
    assert g.sight(sq(0, 2), sq(6, 2), 0, 1) == 0  # open row
    # a screen laid on turn 1 over columns 3-4, rows 2-3 (L3653: a 2x2)
    BR.lay_smoke(g.m, g.spec.bd, W * H, W, sq(3, 2), sq(4, 3), 2)
    assert [bool(BR.smoke_on(g.m, s)) for s in (sq(3, 2), sq(4, 2), sq(3, 3), sq(4, 3))] == \
        [True] * 4
    assert g.sight(sq(0, 2), sq(6, 2), 0, 1) == 2  # the row crosses smoke: blocked (L3228)
    assert g.sight(sq(0, 1), sq(6, 1), 0, 1) == 0  # the row below does not
    # a target standing in the smoke can be seen and is in cover (L3228, L680)
    assert BK._in_cover(g.m, g.spec.bd, 1, sq(3, 2), 0) == 1
    assert BK._in_cover(g.m, g.spec.bd, 1, sq(2, 2), 0) == 0
    g.m[BK.R_G, BK.G_TURN] = 2  # "until the end of the next Turn"
    assert g.sight(sq(0, 2), sq(6, 2), 0, 1) == 2
    g.m[BK.R_G, BK.G_TURN] = 3
    assert g.sight(sq(0, 2), sq(6, 2), 0, 1) == 0


def test_smoke_launchers_screen_towards_the_threat_once_per_game():
    tank = unit("Tank", GUN, kind="vehicle", skills=("Smoke Launchers",), track=3)
    # B's knife (no dice against vehicles) stands in for its improvised weapon (L767), so
    # its threat to the tank is its gun alone
    knife = weapon({"I1": "1/1"}, name="knife", range_="C")
    g = Game(spec_on(BD.open_board(W, H), [tank], [unit("B", GUN, knife)], policy="cautious"),
             [sq(1, 1), sq(5, 4)], faces="S" * 40)
    g.activate(0)
    ev = g.events()
    assert ev.count("special") == 1
    k = ev.index("special")
    r = g.log[k]
    assert r[BK.L_X] == BK.SP_SMOKE and r[BK.L_TARGET] == 1
    s = int(g.m[g.m[0, H_ST] + 0, BK.ST_SQ])
    assert r[BK.L_FROM] == s
    c, rr = s % W, s // W
    # the 2x2 opens towards B (up and to the right of the tank) and holds the tank's square
    assert int(r[BK.L_TO]) == (rr + 1) * W + c + 1
    g.m[g.m[0, H_ST] + 0, 5] = 0  # ST_ACT: a new activation
    g.m[BK.R_G, BK.G_TURN] = 3  # the first screen has lifted
    g.activate(0)
    assert g.events().count("special") == 1  # once per game (L3653)


# -- camouflage ----------------------------------------------------------------------------------
def test_camouflage_hides_from_range_3_until_it_attacks_or_marches():
    sniper = unit("Sniper", GUN, skills=("Camouflage",))
    g = Game(spec_on(BD.open_board(W, H), [unit("A", GUN)], [sniper]), [sq(0, 2), sq(3, 2)])
    val = g.val
    BK._line_values(g.m, g.spec.f, 0, val)  # A's lines on B, as at an activation's start
    # range 3: the camouflaged unit cannot be attacked (L3455); range 2: it can
    assert BK._offence(g.m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, 0, sq(0, 2), BK.OFF,
                       val) == 0.0
    assert BK._offence(g.m, g.spec.f, g.spec.bd, g.spec.ls, g.spec.lq, 0, sq(1, 2), BK.OFF,
                       val) > 0.0
    # a Move keeps camouflage, a March Move ends it (L3455: any action other than Move/Nothing)
    BK._reach(g.m, g.spec.bd, 1, 4, g.qb)
    BK._place(g.m, g.spec.bd, g.log, g.plog, 1, sq(4, 2), 2, BK.A_MOVE, BK.NONE, BK.ZERO)
    assert BR.hidden(g.m, 1, 4)
    BK._occupy(g.m)
    BK._reach(g.m, g.spec.bd, 1, 4, g.qb)
    BK._place(g.m, g.spec.bd, g.log, g.plog, 1, sq(5, 2), 4, BK.A_MARCH, BK.NONE,
               BK.ZERO)
    assert not BR.hidden(g.m, 1, 5)


def test_camouflage_special_action_when_the_unit_has_nothing_better_to_do():
    # it cannot move (Move 0) and B is out of its range: Camouflage instead of Nothing
    sniper = unit("Sniper", GUN, skills=("Camouflage",), move=0)
    g = Game(spec_on(BD.open_board(W, H), [sniper], [unit("B", GUN)], policy="cautious"),
             [sq(3, 0), sq(3, 5)])
    g.m[g.m[0, BK.H_XU] + 0, BR.ST_CAMO] = 0  # it had attacked
    g.activate(0)
    assert "special" in g.events()
    assert BR.hidden(g.m, 0, 3)


# -- reaction ------------------------------------------------------------------------------------
@pytest.mark.parametrize("arf, faces, reacts", [
    (True, "SS", "sustained"),  # range 5 <= 6 (L3373); S counts: 2 successes, Sustained
    (False, "SS", None),        # range 5 > 4 (L797): no reaction at all
])
def test_advanced_reactive_fire_range_6_and_shield_faces(arf, faces, reacts):
    skills = ("Advanced Reactive Fire",) if arf else ()
    long_gun = weapon({"I1": "1/1"}, range_="6")
    g = Game(spec_on(BD.open_board(W, H), [unit("Mover", GUN)],
                     [unit("Guard", long_gun, kind="vehicle", skills=skills, track=3)]),
             [sq(0, 2), sq(5, 2)], faces=faces + "S" * 10)
    BK._react(g.rng, g.buf, np.int64(0), BK.ON, g.m, g.spec.f, g.spec.bd, g.spec.ls,
              g.spec.lq, g.log, 0)
    ev = g.events()
    if reacts is None:
        assert "reaction" not in ev
    else:
        k = ev.index("reaction")
        assert g.log[k, BK.L_HITS] == 2
        assert reacts in ev


# -- first strike --------------------------------------------------------------------------------
@pytest.mark.parametrize("fs_a, fs_b, faces, left_a, left_b, cc_events", [
    # A strikes first: P hits, S fails B's save (L686): B's one damage point goes before it
    # can strike back (L3525)
    (True, False, "PS", 1, 0, 1),
    # no First Strike: B strikes back with the casualties removed together (L763-765); its
    # die S misses
    (False, False, "PSS", 1, 0, 2),
    # B has it, A not: B's retaliation comes first: P hits, S fails A's save: A is gone
    (False, True, "PS", 0, 1, 1),
    # both: ignored (L3525), as without
    (True, True, "PSS", 1, 0, 2),
])
def test_first_strike_resolves_and_removes_casualties_first(fs_a, fs_b, faces, left_a, left_b,
                                                            cc_events):
    a = unit("A", CLAW, skills=("First Strike",) if fs_a else ())
    b = unit("B", CLAW, skills=("First Strike",) if fs_b else ())
    g = Game(spec_on(BD.open_board(W, H), [a], [b]), [sq(2, 2), sq(3, 2)], faces=faces)
    m = g.m
    w_a = m[m[0, H_UNITS] + 0, 9]  # U_W0: A's claw
    m[m[0, H_WS] + w_a, BK.WS_TGT] = 1
    BK._close_combat(g.rng, g.buf, np.int64(0), BK.ON, m, g.spec.bd, g.spec.ls, g.spec.lq,
                     g.log, 0, 1, BK.OFF, BK.OFF)
    assert (g.left(0), g.left(1)) == (left_a, left_b)
    assert g.events().count("close-combat") == cc_events


# -- tempo ---------------------------------------------------------------------------------------
def _moves(ev):
    """Moves and March Moves in order (a March is logged in two parts around the point where
    a reaction may come, L811: one March here)."""
    out = []
    for e in ev:
        if e in ("move", "march") and not (e == "march" and out and out[-1] == "march"):
            out.append(e)
        elif e not in ("move", "march"):
            out.append("-")
    return [e for e in out if e != "-"]


LONG = BD.open_board(6, 16)  # B 15 rows away: out of reach after a March, closing still pays


def test_scout_first_march_counts_one_action_then_moves_again():
    far = unit("Far", GUN)
    for skills, first in ((("Scout",), ["march", "move"]), ((), ["march"])):
        g = Game(spec_on(LONG, [unit("S", GUN, skills=skills)], [far]), [2, 15 * 6 + 2])
        g.activate(0)
        assert _moves(g.events()) == first, skills
        # the second activation is a plain one (L3641: the first action of the game only)
        n0 = len(g.events())
        g.m[g.m[0, H_ST] + 0, 5] = 0
        g.m[BK.R_G, BK.G_TURN] = 2
        g.activate(0)
        assert "move" not in _moves(g.events()[n0:]), skills


def test_at_the_double_free_move_after_every_march():
    far = unit("Far", GUN)
    g = Game(spec_on(LONG, [unit("D", GUN, skills=("At the Double",))], [far]),
             [2, 15 * 6 + 2])
    g.activate(0)
    assert _moves(g.events()) == ["march", "move"]


@pytest.mark.parametrize("skills, after", [
    (("Charge",), "close-combat"),   # free close-combat Attack after the March (L3459-3461)
    ((), None),
])
def test_charge_free_close_combat_after_a_march(skills, after):
    # B is 4 squares away: a Move (2) cannot reach contact, a March (4) can
    a = unit("A", CLAW, skills=skills)
    b = unit("B", GUN)
    g = Game(spec_on(BD.open_board(W, H), [a], [b]), [sq(0, 2), sq(4, 2)], faces="S" * 20)
    g.activate(0)
    ev = g.events()
    if after is None:
        assert "close-combat" not in ev
    else:
        assert "march" in ev and after in ev[ev.index("march"):]


@pytest.mark.parametrize("skills, attacks", [(("Move and Fire",), True), ((), False)])
def test_move_and_fire_free_ranged_attack_after_a_march(skills, attacks):
    # range-2 gun, B 6 squares away: only a March (4) brings it within range 2
    a = unit("A", weapon({"I1": "1/1"}, range_="2"), skills=skills)
    b = unit("B", weapon({"I1": "1/1"}, range_="1"))
    g = Game(spec_on(BD.open_board(W, H), [a], [b]), [sq(0, 2), sq(6, 2)], faces="S" * 20)
    g.activate(0)
    ev = g.events()
    assert ("attack" in ev or "sustained" in ev) == attacks


# -- movement --------------------------------------------------------------------------------------
def _corridor(extra=None):
    """A one-square-wide corridor along row 2 (solid rock elsewhere)."""
    t = np.full(W * H, BD.SOLID, np.int8)
    for c in range(W):
        t[sq(c, 2)] = BD.OPEN
    for s, code in (extra or {}).items():
        t[s] = code
    return BD.make_board("corridor", W, H, t)


def test_trail_blazer_moves_through_enemy_units():
    for skills, passes in ((("Trail Blazer",), True), ((), False)):
        g = Game(spec_on(_corridor(), [unit("A", GUN, skills=skills)], [unit("B", GUN)]),
                 [sq(0, 2), sq(2, 2)])
        BK._reach(g.m, g.spec.bd, 0, 6, g.qb)
        # the square beyond B: 4 steps through B (L3695), unreachable otherwise (L463)
        assert (BK._cost(g.m, g.spec.bd, sq(4, 2)) == 4) == passes
        assert BK._can_end(g.m, g.spec.bd, 0, sq(2, 2)) is False  # never ends on B's square


def test_flying_passes_over_water_but_ends_only_where_it_can_stand():
    board = _corridor({sq(3, 2): BD.WATER})
    for skills, passes in ((("Flying",), True), ((), False)):
        g = Game(spec_on(board, [unit("A", GUN, skills=skills)],
                         [unit("B", GUN)]), [sq(0, 2), sq(7, 2)])
        BK._reach(g.m, g.spec.bd, 0, 6, g.qb)
        assert (BK._cost(g.m, g.spec.bd, sq(5, 2)) == 5) == passes  # over the water (L3529)
        assert not BR.can_stand(g.m, g.spec.bd, 0, sq(3, 2), W * H) or not passes


@pytest.mark.parametrize("skills, cls_passes", [
    (("Tracked",), False), (("Wheeled",), False), (("Half Tracked",), False), ((), True),
])
def test_vehicle_movement_classes_on_the_terrain(skills, cls_passes):
    # rubble: wheeled, tracked and half-tracked vehicles cannot enter, walkers can (L476)
    board = _corridor({sq(3, 2): BD.RUBBLE})
    g = Game(spec_on(board, [unit("V", GUN, kind="vehicle", skills=skills, track=3)],
                     [unit("B", GUN)]), [sq(0, 2), sq(7, 2)])
    BK._reach(g.m, g.spec.bd, 0, 6, g.qb)
    assert (BK._cost(g.m, g.spec.bd, sq(5, 2)) == 5) == cls_passes


def test_notes_no_longer_name_the_rules_battles_play():
    from dustsim.rules.skills import note_rule_names, unplayed_rules

    cards = [unit("X", GUN, kind="vehicle", skills=("Smoke Launchers", "Tracked", "Scout",
                                                     "Trail Blazer", "Camouflage"))]
    names = note_rule_names(unplayed_rules(cards))
    assert not names & {"Smoke Launchers", "Tracked", "Scout", "Trail Blazer"}
    # Camouflage is named only for its gap in duels (grid battles play the special action)
    camo = next(n for n in unplayed_rules(cards) if n.startswith("Camouflage"))
    assert "except the Camouflage special action in duels" in camo


# -- airborne and amphibious -----------------------------------------------------------------
@pytest.mark.parametrize("die, second", [("S", False), ("P", True), ("T", True)])
def test_airborne_drops_clear_of_objectives_nothing_then_a_second_action_on_p_or_t(die, second):
    objective = sq(4, 3)
    board = BD.make_board("drop", W, H, objectives=[objective])
    para = unit("Para", GUN, skills=("Airborne",))
    g = Game(spec_on(board, [para], [unit("B", GUN)]), [-1, sq(4, 5)], faces=die + "S" * 20)
    g.activate(0)
    ev = g.events()
    assert ev[:3] == ["activate", "special", "nothing"]  # first action Nothing (L3393)
    assert g.log[1, BK.L_X] == BK.SP_AIRBORNE
    landed = int(g.log[1, BK.L_FROM])
    assert BD.distance(board, landed, objective) > 2  # not within range 2 of it (L3393)
    if second:  # P or T: a second action (here B is worth attacking from where it lands)
        assert ev[3] in ("attack", "move")
    else:  # S: a second Nothing
        assert ev[3:] == ["nothing"]
