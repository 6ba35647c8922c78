"""Transports in grid battles (issue 23; :mod:`dustsim.play.battle_carry`): small hand-built
boards, scripted dice, expectations derived by hand from seed 003 L522-530.

Faces: P (bloc), T (target), S (shield). A hit on P (L672); a vehicle in the open has no save
(L684); a destroyed transport's passengers roll one die each and each P is one passenger
taking one point (L530, the digest's table: 1/3); Damage Resilient cancels a point on P
(L3485). Range counts squares with the diagonal rule (L580-598)."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest
from test_battle_rules import FACE, GUN, H, W, weapon  # one hand-built harness

from dustsim.army.lists import parse_list_toml, passenger_spaces
from dustsim.data.cards import Card, load_cards
from dustsim.engines.rng import state
from dustsim.errors import DustsimError
from dustsim.play import battle as B
from dustsim.play import battle_carry as BC
from dustsim.play import battle_kernel as BK
from dustsim.play import board as BD
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST, H_WS, ST_ACT, ST_HERO, ST_MODELS, ST_TOK
from dustsim.play.policies import get_policy
from dustsim.review.replay import unit_states
from dustsim.review.replay_rules import check_log_on_board
from dustsim.rules.unit_rules import unit_rules


def truck(spaces=6):
    return Card(name="Truck", edition="dust-1947", kind="vehicle", armour="V1", ap=5,
                damage_track=1, move=3, march_move=6, weapons=(),
                skills=(f"Passengers ({spaces})", "Wheeled"))


def squad(name="Squad", models=4, skills=(), armour="I1"):
    return Card(name=name, edition="dust-1947", kind="squad", armour=armour, ap=6,
                models=models, damage_track=None, move=2, march_move=4, weapons=(GUN,),
                skills=tuple(skills))


def hero(name="Hero", track=2):
    return Card(name=name, edition="dust-1947", kind="hero", armour="I1", ap=4,
                damage_track=track, move=2, march_move=4, weapons=(GUN,), skills=())


def shooter(name="Gunner"):
    return Card(name=name, edition="dust-1947", kind="hero", armour="I1", ap=5, damage_track=1,
                move=2, march_move=4, weapons=(GUN,), skills=())


class Game:
    """Side A: the truck (unit 0) and its passengers aboard; side B: the others. Units on the
    squares given (-1 aboard), turn 1, logging on, the dice scripted."""

    def __init__(self, side_a, side_b, squares, faces="", board=None):
        board = board or BD.open_board(W, H)
        setup = replace(B.scenario_setup("101", 0), board=board, boards=(board,), turns=2)
        self.spec = B.compile_battle(side_a, side_b, setup, get_policy("advance"), attacker=0)
        m = self.m = self.spec.m.copy()
        BK._reset(m)
        m[BK.R_G, BK.G_TURN] = 1
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

    def shoot(self, u, t):
        """u attacks from where it stands, its lines declared by the kernel (at t, the only
        enemy it can see): returns the dice used."""
        m = self.m
        BK._occupy(m)
        BK._line_values(m, self.spec.f, u, self.val)
        BK._offence(m, self.spec.f, self.spec.bd, self.spec.ls, self.spec.lq, np.int64(u),
                    m[m[0, H_ST] + u, BK.ST_SQ], BK.ON, self.val)
        w = int(m[m[0, 2] + u, 9])  # U_W0
        assert m[m[0, H_WS] + w, BK.WS_TGT] == t
        return int(BK._attack(self.rng, self.buf, np.int64(0), BK.ON, m, self.spec.bd,
                              self.spec.ls, self.spec.lq, self.log, np.int64(u), BK.OFF,
                              BK.OFF, BK.A_ATTACK))

    def activate(self, u):
        return int(BK._activate(self.rng, self.buf, np.int64(0), BK.ON, self.m, self.spec.f,
                                self.spec.bd, self.spec.ls, self.spec.lq, self.log, self.plog,
                                np.int64(u), self.el, self.val, self.qb))

    def events(self):
        k = self.m[BK.R_B, BK.B_LOGN]
        out = []
        for r in self.log[:k]:
            a = B.ACTIONS[int(r[BK.L_ACTION])]
            if a == "special" and int(r[BK.L_X]) in BC.CARRY_SPECIALS:
                a = BC.CARRY_SPECIALS[int(r[BK.L_X])]
            out.append(a)
        return out

    def st(self, u, col):
        return int(self.m[self.m[0, H_ST] + u, col])


def sq(c, r):
    return r * W + c


def aboard(card, t=0):
    return DuelUnit(card, transport=t)


# -- a destroyed transport (L530) ----------------------------------------------------------------
def test_passengers_of_a_destroyed_transport_roll_one_die_each_and_bail_out_suppressed():
    # the gunner's 1/1 hits the truck (V1, track 1) on P: destroyed (no save in the open).
    # Four passengers roll P P T S: two soldiers take a point each and die (no save, L530);
    # the two left are placed within range 1 of the wreck on (2,2): the open board gives no
    # cover, so the lowest free square index, (1,1); Suppressed and activated
    g = Game([DuelUnit(truck()), aboard(squad())], [DuelUnit(shooter())],
             [sq(2, 2), -1, sq(6, 2)], faces="P" + "PPTS")
    assert not BK._present(g.m, 1) and BC.carrier(g.m, 1) == 0
    pos = g.shoot(2, 0)
    assert pos == 5
    assert g.events() == ["attack", "destroyed", "bail-out", "placed"]
    k = g.events().index("bail-out")
    assert int(g.log[k, BK.L_HITS]) == 2
    assert g.st(1, ST_MODELS) == 2
    assert g.st(1, BK.ST_SQ) == sq(1, 1)
    assert g.st(1, ST_TOK) == 2 and g.st(1, ST_ACT) == 1
    assert BC.carrier(g.m, 1) == -1 and BK._present(g.m, 1)


def test_a_joined_hero_takes_the_first_point_and_damage_resilient_cancels_on_p():
    # two soldiers with Damage Resilient and a joined hero (track 2): three passengers roll
    # P P S: two points. The hero survives one, so it takes the first (decision, OPEN-24; no
    # Damage Resilient on the hero's own card: no die); the second hits a soldier, whose
    # Damage Resilient die T does not cancel it (L3485): one soldier left, the hero on 1
    g = Game([DuelUnit(truck()), DuelUnit(squad(models=2, skills=("Damage Resilient",)),
                                          hero=hero(), transport=0)],
             [DuelUnit(shooter())], [sq(2, 2), -1, sq(6, 2)], faces="P" + "PPS" + "T")
    assert g.shoot(2, 0) == 5
    assert (g.st(1, ST_MODELS), g.st(1, ST_HERO)) == (1, 1)
    # the same with the Damage Resilient die on P: the soldier's point is cancelled
    g = Game([DuelUnit(truck()), DuelUnit(squad(models=2, skills=("Damage Resilient",)),
                                          hero=hero(), transport=0)],
             [DuelUnit(shooter())], [sq(2, 2), -1, sq(6, 2)], faces="P" + "PPS" + "P")
    g.shoot(2, 0)
    assert (g.st(1, ST_MODELS), g.st(1, ST_HERO)) == (2, 1)


def test_survivors_with_no_free_square_within_range_1_are_destroyed():
    # the wreck in the corner (0,0) with enemies on its three neighbours: no room (L530);
    # dice T T T T: nobody is hurt, yet the squad is destroyed
    g = Game([DuelUnit(truck()), aboard(squad())],
             [DuelUnit(shooter("G1")), DuelUnit(shooter("G2")), DuelUnit(shooter("G3"))],
             [sq(0, 0), -1, sq(1, 0), sq(0, 1), sq(1, 1)], faces="P" + "TTTT")
    g.shoot(2, 0)
    assert g.events() == ["attack", "destroyed", "bail-out", "destroyed"]
    assert not BK._alive(g.m, 1)


# -- riding and dismounting (L528) ---------------------------------------------------------------
def test_a_passenger_cannot_be_targeted_and_dismounts_before_its_vehicle_activates():
    # the truck on (2,2), the gunner on (6,2): range 4 from the truck, within the squad's
    # Move 2 + its gun's range 4, so the policy dismounts it (an enemy within reach)
    g = Game([DuelUnit(truck()), aboard(squad())], [DuelUnit(shooter())],
             [sq(2, 2), -1, sq(6, 2)], faces="S" * 40)
    # not on the board: no line of the gunner can pick it
    BK._occupy(g.m)
    assert not BK._present(g.m, 1)
    assert bool(BK._wants_off(g.m, g.spec.bd, 1))
    assert BK._pick(g.m, g.spec.f, g.spec.bd, 0) == 1  # before its vehicle (L528)
    g.activate(1)
    ev = g.events()
    assert ev[:3] == ["activate", "dismount", "move"]
    k = ev.index("move")
    frm, to = int(g.log[k, BK.L_FROM]), int(g.log[k, BK.L_TO])
    assert frm == sq(2, 2) and to != sq(2, 2)  # off the vehicle's square with a Move
    assert g.spec.bd[frm, to] <= 2
    assert BC.carrier(g.m, 1) == -1 and g.st(1, BK.ST_SQ) == to


def test_a_passenger_may_not_dismount_after_its_vehicle_activated():
    # the gunner at range 5: beyond the squad's gun (range 4), so it cannot fire from aboard
    g = Game([DuelUnit(truck()), aboard(squad())], [DuelUnit(shooter())],
             [sq(2, 2), -1, sq(7, 2)], faces="S" * 40)
    g.m[g.m[0, H_ST] + 0, ST_ACT] = 1  # the truck has activated this turn
    assert not bool(BK._wants_off(g.m, g.spec.bd, 1))
    g.activate(1)
    assert g.events() == ["activate", "aboard"]
    assert BC.carrier(g.m, 1) == 0 and g.st(1, BK.ST_SQ) == -1


def test_a_passenger_aboard_fires_from_the_vehicle_half_its_spaces_of_soldiers():
    # the truck (6 spaces) has activated: the squad cannot dismount (L528) but fires its gun
    # from the truck's square at the gunner, range 4: an Attack by at most 6 / 2 = 3 of its
    # 4 soldiers, so 3 dice (1/1 each), T T T: no hit (L672); it stays aboard
    rifles = replace(squad(), weapons=(replace(GUN, count=4),))  # each soldier carries one
    g = Game([DuelUnit(truck()), aboard(rifles)], [DuelUnit(shooter())],
             [sq(2, 2), -1, sq(6, 2)], faces="TTT" + "P" * 10)
    g.m[g.m[0, H_ST] + 0, ST_ACT] = 1
    assert g.activate(1) == 3
    assert g.events() == ["activate", "attack"]
    k = g.events().index("attack")
    assert int(g.log[k, BK.L_FROM]) == sq(2, 2) and int(g.log[k, BK.L_HITS]) == 0
    assert BC.carrier(g.m, 1) == 0 and g.st(1, BK.ST_SQ) == -1 and g.st(1, ST_MODELS) == 4


def test_a_passenger_far_from_enemies_and_objectives_stays_aboard():
    # the gunner 7 squares away: beyond Move 2 + range 4; the scenario's board here has no
    # objective within 2
    g = Game([DuelUnit(truck()), aboard(squad())], [DuelUnit(shooter())],
             [sq(0, 0), -1, sq(7, 5)], faces="S" * 40)
    assert not bool(BK._wants_off(g.m, g.spec.bd, 1))
    assert BK._pick(g.m, g.spec.f, g.spec.bd, 0) == 0  # the truck first; the squad last


# -- lists ---------------------------------------------------------------------------------------
LIST = """
name = "t"
points = 75
[[unit]]
card = "Hanomag"
[[unit]]
card = "{card}"
transport = "{ride}"
"""


def test_a_list_puts_a_squad_aboard_an_earlier_transport():
    cards = load_cards()
    lst = parse_list_toml(LIST.format(card="Heavy Grenadier Assault Squad", ride="Hanomag"),
                          cards, "x.toml")
    assert lst.units[1].transport == 0 and lst.units[0].transport == -1
    # armour 3 soldiers take two spaces each (L524)
    sq_card = lst.units[1].card
    assert passenger_spaces(lst.units[1]) == 2 * sq_card.models <= 6


@pytest.mark.parametrize("card, ride, words", [
    ("Heavy Grenadier Assault Squad", "Ludwig", "no earlier unit of card 'Ludwig'"),
    ("Ludwig", "Hanomag", "only infantry ride"),
])
def test_bad_transport_fields_are_one_line_naming_file_unit_and_field(card, ride, words):
    with pytest.raises(DustsimError) as e:
        parse_list_toml(LIST.format(card=card, ride=ride), load_cards(), "x.toml")
    msg = str(e.value)
    assert words in msg and "x.toml" in msg and "transport" in msg and "\n" not in msg


def test_a_full_transport_is_refused():
    text = LIST.format(card="Heavy Grenadier Assault Squad", ride="Hanomag") + \
        '[[unit]]\ncard = "Heavy Grenadier Assault Squad"\ntransport = "Hanomag"\n'
    cards = load_cards()
    squad = next(c for c in cards if c.name == "Heavy Grenadier Assault Squad"
                 and c.edition == "dust-1947")
    cap = unit_rules(next(c for c in cards if c.name == "Hanomag"
                          and c.edition == "dust-1947")).passengers
    need = 2 * squad.models  # armour 3: two spaces a soldier (L524)
    with pytest.raises(DustsimError, match=f"it needs {need} passenger spaces \\(L524\\) "
                       f"and it has {cap - need} of {cap} left"):
        parse_list_toml(text, cards, "x.toml")


# -- the event log ---------------------------------------------------------------------------------
@functools.cache
def hanomag_against_pounder():
    """A squad aboard a Hanomag against a lone Pounder on 101 (the Hanomag falls on turn 1)."""
    cards = load_cards()
    a = parse_list_toml(LIST.format(card="Heavy Grenadier Assault Squad", ride="Hanomag"),
                        cards, "a.toml")
    b = parse_list_toml('name = "b"\npoints = 75\n[[unit]]\ncard = "Pounder"\n', cards,
                        "b.toml")
    return B.prepare(a, b, scenario="101", seed=0)


def test_battle_logs_with_passengers_obey_the_replay_rules():
    cards = load_cards()
    a = parse_list_toml(LIST.format(card="Heavy Grenadier Assault Squad", ride="Hanomag")
                        + '[[unit]]\ncard = "Ludwig"\n', cards, "a.toml")
    b = parse_list_toml('name = "b"\npoints = 75\n[[unit]]\ncard = "Ranger Combat Squad"\n'
                        'count = 2\n[[unit]]\ncard = "Pounder"\n', cards, "b.toml")
    spec = B.prepare(a, b, scenario="101", seed=0)
    assert any("passengers (L522-530)" in n for n in spec.notes)
    kinds = set()
    for seed in range(3):
        log = B.event_log(spec, seed=seed)
        check_log_on_board(log, spec.setup.board)
        kinds |= {e.get("special") for e in log["events"] if e["action"] == "special"}
        texts = [e["text"] for e in log["events"]]
        assert "Heavy Grenadier Assault Squad starts the game aboard the Hanomag " \
               "(Passengers, L526)." in texts
    assert "embarked" in kinds


def test_the_replay_checker_refuses_a_unit_aboard_moving_or_being_attacked():
    spec = hanomag_against_pounder()
    log = B.event_log(spec, seed=1)  # the squad stays aboard on turn 1 (a fixed game)
    ev = log["events"]
    check_log_on_board(log, spec.setup.board)
    # the squad's first turn aboard, told as a move: refused (it moves only with its vehicle)
    i = next(k for k, e in enumerate(ev) if e.get("special") == "aboard")
    moved = {k: v for k, v in ev[i].items() if k not in ("special", "target", "square")}
    held = {st.square for st in unit_states(log, i).values()}
    free = next(q for q in log["board"]["deploy"][0] if q not in held)
    moved.update(action="move", to=free, text="moves")
    bad = {**log, "events": [*ev[:i], moved, *ev[i + 1:]]}
    with pytest.raises(DustsimError, match="aboard"):
        check_log_on_board(bad, spec.setup.board)
    # an attack on it while aboard: refused (it is on no square, L530)
    off = next((k for k, e in enumerate(ev) if e.get("unit") == 1
                and e.get("special") in ("dismount", "placed")), len(ev))
    j = next(k for k, e in enumerate(ev[:off]) if e["action"] == "attack")
    hit = {**ev[j], "target": 1}
    bad = {**log, "events": [*ev[:j], hit, *ev[j + 1:]]}
    with pytest.raises(DustsimError, match=r"aboard|not on the board"):
        check_log_on_board(bad, spec.setup.board)


# -- Dozer Blade (L3503-3505) --------------------------------------------------------------------
def dozer_tank():
    return Card(name="Dozer", edition="dust-1947", kind="vehicle", armour="V1", ap=8,
                damage_track=3, move=2, march_move=4,
                weapons=(weapon({"V1": "1/1", "I1": "1/1"}, range_="6"),),
                skills=("Dozer Blade", "Tracked"))


@pytest.mark.parametrize("dug, faces, damage", [
    (False, "P", 1),   # in the open a vehicle has no save (L684): the hit is a point
    (True, "PP", 0),   # dug in: in cover, the vehicle cover save P cancels it (L684, L3505)
    (True, "PT", 1),   # ... T fails it
])
def test_a_dug_in_vehicle_is_in_cover_from_any_angle_until_it_moves(dug, faces, damage):
    g = Game([DuelUnit(dozer_tank())], [DuelUnit(shooter())], [sq(2, 2), sq(6, 2)],
             faces=faces)
    BC.dig(g.m, 0, 1 if dug else 0)
    assert BK._in_cover(g.m, g.spec.bd, 0, sq(2, 2), 0) == (1 if dug else 0)
    g.shoot(1, 0)
    row = g.log[0]
    assert (int(row[BK.L_COVER]), int(row[BK.L_DAMAGE])) == (int(dug), damage)
    if dug:  # a Move ends it (L3505)
        BK._occupy(g.m)
        BK._reach(g.m, g.spec.bd, 0, 2, g.qb)
        BK._place(g.m, g.spec.bd, g.log, g.plog, 0, sq(2, 3), 2, BK.A_MOVE, BK.NONE, BK.ZERO)
        assert not BC.dug_in(g.m, 0)
        assert BK._in_cover(g.m, g.spec.bd, 0, sq(2, 3), 0) == 0


def test_the_dig_in_policy_digs_in_once_under_threat_then_keeps_firing():
    # the gunner 4 squares away threatens the dozer in the open, which would otherwise make
    # a Sustained Attack from where it stands: Dozer special action + Attack (policy)
    g = Game([DuelUnit(dozer_tank())], [DuelUnit(shooter())], [sq(2, 2), sq(6, 2)],
             faces="S" * 40)
    g.activate(0)
    assert g.events() == ["activate", "dozer", "attack"]
    assert BC.dug_in(g.m, 0)
    g.m[g.m[0, H_ST] + 0, ST_ACT] = 0  # its next activation: already dug in
    k0 = len(g.events())
    g.activate(0)
    assert "dozer" not in g.events()[k0:] and BC.dug_in(g.m, 0)


# -- Airlifter and Air Assault (L532-536, L3379-3381) --------------------------------------------
def lifter():
    return Card(name="Lifter", edition="dust-1947", kind="aircraft", armour="A1", ap=7,
                damage_track=1, move=4, march_move=8, weapons=(),
                skills=("Airlifter", "Helicopter"))


def walker(skill):
    return Card(name="Walker", edition="dust-1947", kind="vehicle", armour="V1", ap=8,
                damage_track=3, move=2, march_move=4, weapons=(GUN,), skills=(skill,))


AIR_GUN = weapon({"A1": "1/1", "V1": "1/1", "I1": "1/1"})


@pytest.mark.parametrize("skill, track", [
    ("Air Assault", 2),  # three dice P S T for its 3 points: a point per P only (L3381)
    ("Airmobile", 1),    # ... per P or S (L536)
])
def test_a_destroyed_airlifter_drops_its_vehicle_below_it(skill, track):
    gunner = replace(shooter(), weapons=(AIR_GUN,))
    g = Game([DuelUnit(lifter()), DuelUnit(walker(skill), transport=0)], [DuelUnit(gunner)],
             [sq(2, 2), -1, sq(6, 2)], faces="PT" + "PST")
    # the gunner hits on P; the aircraft's evade save (played as having moved, the duel
    # compiler's reading of L3397-3400) fails on T; then the vehicle's three dice
    assert not BK._present(g.m, 1)
    g.shoot(2, 0)
    assert g.events() == ["attack", "destroyed", "bail-out", "placed"]
    r = g.m[0, H_ST] + 1
    assert int(g.m[r, BK.ST_SINGLE]) == track
    assert g.st(1, BK.ST_SQ) == sq(2, 2)  # directly below the Airlifter (L536)
    assert g.st(1, ST_TOK) == 2 and g.st(1, ST_ACT) == 1


def test_an_air_assault_vehicle_may_dismount_after_its_airlifter_activated():
    for skill, may in (("Air Assault", True), ("Airmobile", False)):
        g = Game([DuelUnit(lifter()), DuelUnit(walker(skill), transport=0)],
                 [DuelUnit(shooter())], [sq(2, 2), -1, sq(6, 2)], faces="S" * 40)
        g.m[g.m[0, H_ST] + 0, ST_ACT] = 1  # the Airlifter has activated (L3381)
        assert bool(BK._wants_off(g.m, g.spec.bd, 1)) == may
        g.activate(1)
        assert ("dismount" in g.events()) == may


def test_a_list_puts_an_air_assault_walker_in_a_carrier_one_each():
    cards = load_cards()
    text = ('name = "t"\npoints = 75\n[[unit]]\ncard = "Carrier"\n[[unit]]\ncard = "Nina"\n'
            'transport = "Carrier"\n')
    lst = parse_list_toml(text, cards, "x.toml")
    assert lst.units[1].transport == 0
    with pytest.raises(DustsimError, match="free to carry"):
        parse_list_toml(text + '[[unit]]\ncard = "Nikita"\ntransport = "Carrier"\n', cards,
                        "x.toml")
    with pytest.raises(DustsimError, match="neither"):
        parse_list_toml(text.replace('"Nina"', '"Ludwig"'), cards, "x.toml")


# -- Engineer Vehicle: the decision's premise ------------------------------------------------------
def test_no_scenario_board_has_barbed_wire_minefields_or_trenches():
    # the skills table rates Engineer Vehicle "no effect on play": its own engineering action
    # cuts barbed wire (L3351-3353); the fifteen scenarios (L2388-3055) place none
    from dustsim.play.scenarios import build_board, load_scenarios

    for sc in load_scenarios():
        for seed in (0, 1):
            terrain = set(int(t) for t in build_board(sc, seed).terrain)
            assert not terrain & {BD.BARBED_WIRE, BD.MINEFIELD, BD.TRENCH}, sc.number


# -- Amphibious (L3411-3413) -----------------------------------------------------------------------
def river_board():
    terrain = np.zeros(W * H, np.int8)
    terrain[[sq(3, r) for r in range(H)]] = BD.WATER  # a river down column 3
    return BD.make_board("river", W, H, terrain)


@pytest.mark.parametrize("amphibious", [True, False])
def test_an_amphibious_vehicle_moves_through_water_as_open_ground(amphibious):
    # from (1,2): (2,2) costs 1, the river square (3,2) 1 more as open ground, the far bank
    # (4,2) 3 in all (L3413); without the skill water is impassable (L480) and the river
    # bars the far bank
    card = replace(walker("Amphibious" if amphibious else "Airmobile"), move=4)
    g = Game([DuelUnit(card)], [DuelUnit(shooter())], [sq(1, 2), sq(7, 5)],
             board=river_board())
    BK._occupy(g.m)
    BK._reach(g.m, g.spec.bd, 0, 4, g.qb)
    costs = [int(BK._cost(g.m, g.spec.bd, s)) for s in (sq(2, 2), sq(3, 2), sq(4, 2))]
    assert costs == ([1, 2, 3] if amphibious else [1, BK.INF, BK.INF])
    assert ("Amphibious" in BC.carry_rule_names(g.m, 0)) == amphibious


def test_amphibious_tables_equal_the_class_tables_on_a_dry_board():
    g = Game([DuelUnit(walker("Amphibious"))], [DuelUnit(shooter())], [sq(1, 2), sq(7, 5)])
    bd, n = g.spec.bd, W * H
    mc, adj, pc, st = BC.table_rows(n, BD.WALKER, True)
    mc0, adj0, pc0, st0 = BC.table_rows(n, BD.WALKER, False)
    assert (bd[mc] == bd[mc0]).all() and (bd[st: st + 4 * n] == bd[st0: st0 + 4 * n]).all()
    assert (bd[adj: adj + 8] == bd[adj0: adj0 + 8]).all()
    assert (bd[pc: pc + n] == bd[pc0: pc0 + n]).all()


def test_battle_logs_on_the_river_scenario_obey_the_replay_rules():
    cards = load_cards()
    a = parse_list_toml('name = "a"\npoints = 75\n[[unit]]\ncard = "PT-47B"\n[[unit]]\n'
                        'card = "Rattler (AMP)"\n', cards, "a.toml")
    b = parse_list_toml('name = "b"\npoints = 75\n[[unit]]\ncard = "Pounder"\n', cards,
                        "b.toml")
    spec = B.prepare(a, b, scenario="110", seed=0)
    for seed in range(2):
        log = B.event_log(spec, seed=seed)
        check_log_on_board(log, spec.setup.board)
        assert all("Amphibious" in u["rules"] for u in log["units"][:2])


def test_battle_logs_with_an_airlifter_and_an_amphibious_transport_obey_the_replay_rules():
    # the SSU's PT-47B (Amphibious, Passengers (6)) carries a rifle squad and the Carrier
    # (Airlifter) carries Nina (Air Assault) on the river scenario: every log obeys the
    # checker, whose walker moves passengers with their vehicles
    cards = load_cards()
    a = parse_list_toml('name = "s"\npoints = 75\n[[unit]]\ncard = "PT-47B"\n[[unit]]\n'
                        'card = "Red Army Rifle Squad"\ntransport = "PT-47B"\n[[unit]]\n'
                        'card = "Carrier"\n[[unit]]\ncard = "Nina"\ntransport = "Carrier"\n',
                        cards, "s.toml")
    b = parse_list_toml('name = "b"\npoints = 75\n[[unit]]\ncard = "Ranger Combat Squad"\n'
                        'count = 2\n[[unit]]\ncard = "Pounder"\n', cards, "b.toml")
    spec = B.prepare(a, b, scenario="110", seed=0)
    for seed in range(3):
        log = B.event_log(spec, seed=seed)
        check_log_on_board(log, spec.setup.board)


def test_passengers_leave_the_board_with_their_vehicle():
    # an exit scenario: side A leaves by the last row; the truck reaches it with the squad
    # aboard: both count as exited (decision: they are carried off)
    board = BD.make_board("exit", W, H, exit_edge=(1, BD.EDGE_NONE))
    g = Game([DuelUnit(truck()), aboard(squad())], [DuelUnit(shooter())],
             [sq(2, H - 2), -1, sq(7, 0)], board=board)
    g.m[BK.R_B, BK.B_VC] |= BK.VC_EXIT
    BK._occupy(g.m)
    BK._reach(g.m, g.spec.bd, 0, 3, g.qb)
    BK._place(g.m, g.spec.bd, g.log, g.plog, 0, sq(2, H - 1), 3, BK.A_MOVE, BK.NONE, BK.ZERO)
    BK._try_exit(g.m, g.spec.bd, g.log, 0)
    assert g.events() == ["move", "exit", "exit"]
    assert g.st(1, BK.ST_GONE) == 1 and int(g.m[BK.R_G, BK.G_EXIT0]) == 2


@pytest.mark.parametrize("die, buried", [("P", True), ("T", False)])
def test_a_dozer_buries_an_adjacent_bunker_held_by_the_enemy_on_p(die, buried):
    # the gunner holds a bunker square next to the dozer: two Engineering special actions,
    # one die; on P the bunker is buried and the gunner eliminated (L3357)
    terrain = np.zeros(W * H, np.int8)
    terrain[sq(4, 2)] = BD.BUNKER
    board = BD.make_board("bunker", W, H, terrain)
    g = Game([DuelUnit(dozer_tank())], [DuelUnit(shooter())], [sq(3, 2), sq(4, 2)],
             faces=die + "S" * 20, board=board)
    assert g.activate(0) == 1
    assert g.events() == ["activate", "bury"] + (["destroyed"] if buried else [])
    assert BK._alive(g.m, 1) != buried


def test_a_buried_bunker_spares_an_aircraft_above_it():
    # the bunker covers two squares; the enemy gunner holds one, a friendly aircraft hovers
    # over the other: on P the gunner is eliminated, the aircraft is not (it flies above the
    # terrain, never in it, L516; only the units in the fortification, L3357)
    terrain = np.zeros(W * H, np.int8)
    terrain[sq(4, 2)] = terrain[sq(4, 3)] = BD.BUNKER
    board = BD.make_board("bunker", W, H, terrain)
    g = Game([DuelUnit(dozer_tank()), DuelUnit(lifter())], [DuelUnit(shooter())],
             [sq(3, 2), sq(4, 3), sq(4, 2)], faces="P" + "S" * 20, board=board)
    assert g.activate(0) == 1
    assert g.events() == ["activate", "bury", "destroyed"]
    assert not BK._alive(g.m, 2) and BK._alive(g.m, 1)


def test_the_replay_checker_holds_a_bail_out_to_range_1_of_the_wreck():
    spec = hanomag_against_pounder()
    log = B.event_log(spec, seed=0)  # the Hanomag is destroyed on turn 1, the squad bails out
    ev = log["events"]
    i = next(k for k, e in enumerate(ev) if e.get("special") == "placed")
    check_log_on_board(log, spec.setup.board)
    # the page shows what the bail-out roll left the squad (L530): its event says
    before, after = unit_states(log, i)[ev[i]["unit"]], unit_states(log, i + 1)[ev[i]["unit"]]
    assert after.models == ev[i]["left"] <= before.models
    wreck = ev[i]["square"]
    far = next(q for q in range(spec.setup.board.n)
               if BD.distance(spec.setup.board, q, wreck) == 3)
    bad = {**log, "events": [*ev[:i], {**ev[i], "to": far}]}  # the log cut there
    check_log_on_board({**log, "events": ev[:i + 1]}, spec.setup.board)
    with pytest.raises(DustsimError, match="range 1"):
        check_log_on_board(bad, spec.setup.board)


def test_the_replay_checker_holds_a_bury_to_a_fortification_within_range_1():
    from dustsim.review.replay import UnitState
    from dustsim.review.replay_rules import _check_dozer, _Feet

    terrain = np.zeros(W * H, np.int8)
    terrain[sq(4, 2)] = BD.BUNKER
    board = BD.make_board("bunker", W, H, terrain)
    feet = _Feet({0: UnitState(sq(3, 2), 0, None, 3)}, {}, {0: 1})
    ev = {"action": "special", "special": "bury", "unit": 0, "to": sq(4, 2)}
    _check_dozer(0, ev, set(), board, feet)  # next to it: fine
    for to in (sq(5, 2), sq(3, 3)):  # a bunker too far, an open square
        with pytest.raises(DustsimError, match="L3357"):
            terrain2 = terrain.copy()
            terrain2[sq(5, 2)] = BD.BUNKER
            _check_dozer(0, {**ev, "to": to}, set(), BD.make_board("b2", W, H, terrain2),
                         feet)
