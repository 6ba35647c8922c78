"""A replay's attacks against the board's geometry: range and line of sight as the rules say.

:func:`check_log_on_board` walks a (checked) event log with the units where they stand at each
step and compares every attack with :mod:`dustsim.play.board`'s reference functions:

* ``range`` is the board's range between the attacker's and the target's squares (the diagonal
  rule, L580-582); a close-combat attack is between adjacent squares (L761);
* the sight line is not blocked (L602-655): static terrain, and the vehicles standing at that
  step as dynamic blockers (L612), wrecks included (a destroyed vehicle stays as terrain that
  blocks sight, L486). An aircraft sees and is seen by any unit not in a building (L655);
* ``los`` is ``"cover"`` exactly when the line passes one blocking corner (L608), and a target
  whose square gives its class cover, or behind such a corner, has ``cover`` true (L680;
  close combat ignores cover, L765). Smoke screens the log lays (``special`` events with
  their ``smoke`` squares, standing to the end of the next turn, L3228) block sight through
  them as the vehicles do; the cover they give is not second-guessed.

* a vehicle line whose fire arc the log gives (``units[].weapons[].arc``: front, rear, left,
  right) fires only at a target with a square in that arc from one of the vehicle's squares,
  as the attack's ``facing`` says it faced (L584-598; :func:`dustsim.play.board.in_arc`);

* a move passes only friendly units, a vehicle no friendly vehicle, and ends on a square no
  other standing unit holds (L463-465); aircraft fly over all (L510-516); where the log gives
  the unit's ``move_class``, enters only squares passable for that class (the board's
  ``move_cost``); a move that stays on its square (a rotation in place) is a vehicle's right
  after its reaction rolled two successes (L805), or a Huge vehicle's (L508).

A Walker or a Large/Huge vehicle sees over Quonset huts (L3156-3158); a line that only such a
unit could draw is accepted.

A Large or Huge vehicle (``units[].footprint`` 2 or 4; each of its moves lists its
``squares``) holds all its squares: no other unit ends on or passes an enemy's square of it,
its squares block sight as vehicle squares, and its own squares never block its lines. An
attack with one is checked against the footprints (``dustsim.play.battle.FOOTPRINT``): its
``range`` is the range between some pair of their squares with a sight line, every line
fired reaches such a pair, ``los`` is that of such a pair, and a target said not to be in
cover has fewer than one (Large) or two (Huge) squares in cover from that origin (L727).

Passengers (L522-530; ``special`` events ``embarked``, ``dismount``, ``placed``): a unit aboard
a vehicle is never the target of an attack, neither moves, makes a Sustained Attack nor
fights in close combat until it dismounts, attacks only from its vehicle's square, and
dismounts on the square where its vehicle stands (it moved with the vehicle). A vehicle dug
in with its Dozer Blade (``special`` ``dozer``) is in cover until it moves (L3503-3505).

Weapon ranges (the cards) are checked where the log lists each unit's weapon lines with
their ranges and each attack its lines (``weapons``): every line fired reaches the target.

Rules of issue 23 that constrain the log (:mod:`dustsim.play.battle_rules`):

* an attack fired for an Artillery Observer (``observer``: the observer's id; L3419-3425)
  comes from the artillery unit's square (``from``) at its range, but its line of sight and
  cover are the observer's: the observer is a friendly unit on the board whose ``observe``
  special event of this turn named the artillery unit, the artillery unit activates then
  (after that event, not before it in this turn) and fires only at the target the observer
  sees (``los`` from the observer's square);
* a ``Wire-guided`` attack (its ``rule``; L3343-3345) is a plain Attack of one weapon line;
* a Makeshift Repair (``special`` ``repair``; L3759-3765) targets another friendly vehicle
  within range 1 of the mechanic in its line of sight, rolls five dice and restores no more
  points than its successes nor above the vehicle's damage track;
* a Spy (``special`` ``spy``; L3655-3657) is placed only on a success of its dice, within
  range 1 of an enemy unit;
* an Execute (``special`` ``execute``; L3511-3513) eliminates one soldier (``casualties``
  1, or ``damage``: a hero's whole track, a support weapon's crew point) of an enemy unit
  standing within range 1 of the executioner (the Stunned token it needs is not in the log:
  not checked);
* an officer's Rally, Get Moving and Ammo Drop (``special`` ``rally`` / ``get-moving`` /
  ``ammo-drop``; L3717-3731) name a
  friendly unit within range 2, or any one when the officer has a radio (``units[].rules``
  lists ``Radio``); Get Moving orders a unit that has activated (or reacted) this turn, and a
  successful order is followed by that unit's activation (L3725-3727);
* a Sniper's named miniature (``aim``), a squad's fallen officer soldier and a Spotter's
  choice (``spotter``): :class:`_Snipe` (L3315-3323, L3709); an observed attack a Jammer
  re-rolled (``jammed``) has an enemy Jammer within range 6 of its observer (L3567);
* a platoon advantage acting (``advantage``; :mod:`dustsim.play.battle_platoon`) is one the
  unit's complete platoon earned (``units[].advantages``): an order under one names a target
  of the same advantage, anywhere under Grab Them by the Nose (L1053), and succeeds on P
  (on P or T under Mission Tactics, L1459); Breakthrough's die (``special``
  ``breakthrough``) follows the unit's March Move, and a ``Breakthrough`` attack follows its
  successful die (L1878); Go Get 'Em Girls! rolls one die, Brave on P or T (L2175); an
  attack naming Lightning Strike (``target_advantage``) hits a unit of that platoon in the
  open in game turn 1 (L1169); a reaction naming Pack Hunters or Vigilant counts its
  successes on P and S (L1821, L1947); Wave Attack's dice (``special`` ``wave-attack``) follow
  an attack on the squad (or an area, artillery, Psychic Scream or Execute strike) in turns
  1-3, one per soldier it eliminated, each returning on P
  (L2065); a token naming Inflect Terror (``by_advantage``) follows an
  attack of the unit ``by`` of that platoon (L1657-1659);
* Inject Stimulants (``special`` ``stimulants`` / ``stimulant-roll``; L3745-3757):
  :class:`_Stimulants`; Dig In Girls!' re-roll (an attack's ``dig_in``, L2201):
  :func:`_check_dig_in`; BRAINSSSS!' attacks on friends (L1634): :func:`_check_brains`;
* Reserve [#] (``special`` ``reserve`` / ``reserve-arrival``; L3100-3104,
  :mod:`dustsim.play.battle_reserve`): a unit goes into Reserve only once destroyed, its
  side's ``placed`` counting 1, 2, ... up to its ``reserve``; it acts no more until it comes
  on, off the board, in a later turn than the one it was eliminated in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from dustsim.errors import DustsimError
from dustsim.play.board import (
    AIRCRAFT_CLASS,
    BUNKER,
    IMPASSABLE,
    INFANTRY_CLASS,
    LOS_BLOCKED,
    LOS_CLEAR,
    LOS_COVER,
    MOVE_CLASS_NAMES,
    STRONGPOINT,
    SWAMP,
    TERRAIN_NAMES,
    VEHICLE_CLASS,
    WATER,
    Board,
    distance,
    in_arc,
    line_of_sight,
    make_board,
)
from dustsim.review.replay import ATTACKS, MOVES, plain_log, square_name, validate_log, walk


def _class(kind: str) -> int:
    k = kind.lower()
    if "aircraft" in k:
        return AIRCRAFT_CLASS
    if "vehicle" in k or "walker" in k or "tank" in k:
        return VEHICLE_CLASS
    return INFANTRY_CLASS


def _check_arcs(i: int, ev: Mapping, arcs: Mapping, board: Board, feet: Any) -> None:
    """An attack's lines with a fire arc (``arcs``: (unit, line) -> arc) hold their target
    in it from one of the attacker's squares as the attack's ``facing`` says (L584-598)."""
    u = ev.get("unit")
    lines = [w for w in ev.get("weapons") or () if (u, w) in arcs]
    if not lines:
        return
    where = f"replay log: event {i} ({ev['action']})"
    face = ev.get("facing")
    if not isinstance(face, int) or not 0 <= face < 8:
        raise DustsimError(f"{where}: field 'facing': a vehicle line with a fire arc needs "
                           "the attacker's facing (0-7) (L584-598)")
    src = [q for q in feet.of(u) if q is not None] or [int(ev["from"])]
    t = ev.get("target")
    dst = [q for q in feet.of(t) if q is not None] if t in feet.states else []
    dst = dst or [int(ev["to"])]
    for w in lines:
        if not any(in_arc(board.width, arcs[u, w], face, a, b) for a in src for b in dst):
            raise DustsimError(f"{where}: field 'weapons': line {w} ({arcs[u, w]}-mounted) "
                               f"fires at a target outside its arc, facing {face} (L584-598)")


def board_of_log(log: Mapping) -> Board:
    """A Board from the log's own ``board`` (terrain, heights where given, objectives,
    deployment); bunker facings are not in the log: give the scenario's Board for those."""
    b = log["board"]
    n = b["width"] * b["height"]
    deploy = np.zeros((2, n), bool)
    for side, zone in enumerate(b.get("deploy", [[], []])):
        deploy[side, list(zone)] = True
    return make_board("replay", b["width"], b["height"], b["terrain"], b.get("height_level"),
                      deploy=deploy, objectives=b.get("objectives", []))


def check_log_on_board(log: Any, board: Board | None = None, *, wrecks: bool = True) -> None:
    """Raise :class:`DustsimError` at the first attack whose range, line of sight or cover
    contradicts the board (one line: event index and field); ``board`` defaults to the log's
    own (:func:`board_of_log`). ``wrecks=False`` leaves destroyed vehicles out of the
    blockers (for a battle that does not play L486)."""
    log = plain_log(log)
    validate_log(log)
    board = board if board is not None else board_of_log(log)
    b = log["board"]
    if (board.width, board.height) != (b["width"], b["height"]) or \
            [int(t) for t in board.terrain] != list(b["terrain"]):
        raise DustsimError("replay log: board: field 'terrain': the log's board is not the "
                           f"board given ({board.name})")
    classes = {u["id"]: _class(u["kind"]) for u in log["units"]}
    # where the log lists a unit's weapons ({"line", "name", "range": [min, max]}) and an
    # attack its weapon lines ("weapons"), each line must reach the target
    weapons = {(u["id"], w["line"]): (w["range"][0], w["range"][1], w.get("name", ""))
               for u in log["units"] for w in u.get("weapons") or ()
               if isinstance(w, Mapping) and "line" in w and isinstance(w.get("range"), list)
               and len(w["range"]) == 2}
    sides = {u["id"]: u["side"] for u in log["units"]}
    # Trail Blazer moves through enemy units (L3693-3695; the log's units[].rules)
    through = frozenset(u["id"] for u in log["units"] if "Trail Blazer" in (u.get("rules") or ()))
    # Amphibious vehicles move through water and swamp as open ground (L3411-3413)
    amphibious = frozenset(u["id"] for u in log["units"]
                           if "Amphibious" in (u.get("rules") or ()))
    movers = {u["id"]: u["move_class"] for u in log["units"]
              if _is_class(u.get("move_class"))}
    smoke: dict[int, int] = {}  # square -> last turn of a smoke screen on it
    sizes = {u["id"]: u.get("footprint") or 1 for u in log["units"]}
    held: dict[Any, list[int]] = {}  # a Large/Huge vehicle's squares (its last move's)
    called: dict[Any, tuple[Any, int]] = {}  # artillery unit -> (observer, turn)
    tracks = {u["id"]: u.get("damage_track") for u in log["units"]}
    radios = frozenset(u["id"] for u in log["units"] if "Radio" in (u.get("rules") or ()))
    snipe = _Snipe(log)  # Sniper's aim, the officer soldier, Spotters (L3315-3323, L3709)
    stims = _Stimulants(log)  # Inject Stimulants (L3745-3757)
    dug_in: set = set()  # sides whose Dig In Girls! re-roll is spent (L2201)
    swarm: dict = {}  # BRAINSSSS!: squares at activation, the friend each zombie attacked
    pending: tuple[int, Any] | None = None  # (event, unit) a successful Get Moving reactivates
    escort: list = []  # [event, unit, activated yet] Close Cooperation's escort (L1353)
    activated: dict[Any, int] = {}  # unit -> the turn of its last activation
    aboard: dict[Any, Any] = {}  # passenger -> its vehicle (L522-530)
    dug: set = set()  # vehicles dug in with a Dozer Blade (L3503-3505)
    # aircraft that must Move first (L516): not a Helicopter (L3551-3553; units[].rules)
    fliers = frozenset(u["id"] for u in log["units"] if u.get("kind") == "aircraft"
                       and "rules" in u and "Helicopter" not in (u.get("rules") or ()))
    first: set = set()  # fliers activated that have not yet taken an action
    advs = {u["id"]: frozenset(u.get("advantages") or ()) for u in log["units"]}
    last: dict[Any, Mapping] = {}  # unit -> its last event (Breakthrough's order)
    placed: dict[str, int] = {}  # side -> units placed in Reserve so far (L3102)
    waiting: dict[Any, int] = {}  # unit -> the turn it went into Reserve, until it comes on
    arcs = {(u["id"], w["line"]): w["arc"] for u in log["units"]  # fire arcs (L584-598)
            for w in u.get("weapons") or () if isinstance(w, Mapping) and "line" in w
            and w.get("arc") in ("front", "rear", "left", "right")}
    before: dict[Any, Mapping] = {}  # unit -> its previous event (a turn in place, L805)
    for i, ev, states in walk(log):
        _check_turn_in_place(i, ev, before, classes, sizes)
        _check_advantage(i, ev, advs, last)
        _check_reserve(i, ev, states, placed, waiting)
        # a unit aboard a vehicle stands nowhere on the board but where it fires from (L530)
        hidden = {k: replace(v, square=None) for k, v in states.items()
                  if v.aboard is not None and k != ev.get("unit")}
        if hidden:
            states = {**states, **hidden}
        feet = _Feet(states, held, sizes)
        _check_passengers(i, ev, states, aboard, board, feet)
        _check_dozer(i, ev, dug, board, feet)
        _check_flier(i, ev, fliers, first)
        snipe.check(i, ev)
        stims.check(i, ev, board, feet)
        _check_dig_in(i, ev, board, feet, stims.units, dug_in)
        _check_brains(i, ev, board, feet, stims.units, swarm)
        if ev["action"] == "special" and ev.get("special") == "smoke":
            for q in ev.get("smoke") or ():
                smoke[int(q)] = int(ev["turn"]) + 1  # to the end of the next turn (L3228)
        if ev["action"] == "special" and ev.get("special") == "observe":
            a = ev.get("target")
            if sides.get(a) != ev["side"] or activated.get(a) == ev["turn"]:
                raise DustsimError(f"replay log: event {i} (special): field 'target': an "
                                   "Artillery Observer calls in only a friendly unit that has "
                                   "not activated this turn (L3421)")
            called[a] = (ev["unit"], ev["turn"])
        _check_escort(i, ev, escort, activated, board, feet)
        if pending is not None and ev["action"] == "activate":
            if ev["unit"] != pending[1]:
                raise DustsimError(f"replay log: event {i} (activate): field 'unit': the unit "
                                   f"ordered to get moving (event {pending[0]}) activates "
                                   "next (L3725)")
            pending = None
        if ev["action"] == "special" and ev.get("special") in ("rally", "get-moving",
                                                                 "ammo-drop"):
            t = ev.get("target")
            a = [q for q in feet.of(ev["unit"]) if q is not None]
            b = [q for q in feet.of(t) if q is not None] if t in sides else []
            far = not a or not b or min(distance(board, x, y) for x in a for y in b) > 2
            if ev.get("advantage") == "Grab Them by the Nose":  # cockpit radios (L1053)
                far = False
            if sides.get(t) != ev["side"] or (far and ev["unit"] not in radios):
                raise DustsimError(f"replay log: event {i} (special {ev['special']}): field "
                                   "'target': an officer commands a friendly unit within "
                                   "range 2, or anywhere with a radio (L3713-3731)")
            if ev["special"] == "get-moving":
                if activated.get(t) != ev["turn"]:
                    raise DustsimError(f"replay log: event {i} (special get-moving): field "
                                       "'target': only a unit that has activated this turn is "
                                       "reactivated (L3725)")
                if ev.get("hits"):
                    pending = (i, t)
        if ev["action"] in ("activate", "reaction"):  # a reaction spends its activation
            activated[ev["unit"]] = ev["turn"]
        if ev["action"] == "special" and ev.get("special") == "spy" and \
                ev.get("to") is not None:
            near = [q for v, st in states.items() if sides.get(v) != ev["side"]
                    and st.square is not None and not st.destroyed for q in feet.of(v)]
            if not ev.get("hits") or not any(distance(board, int(ev["to"]), q) <= 1
                                             for q in near):
                raise DustsimError(f"replay log: event {i} (special spy): field 'to': a Spy "
                                   "is placed on a success, within range 1 of an enemy unit "
                                   "(L3657)")
        if ev["action"] == "special" and ev.get("special") == "repair":
            _check_repair(i, ev, board, states, classes, sides, tracks, feet)
        if ev["action"] == "special" and ev.get("special") == "execute":
            t = ev.get("target")
            if t not in states or sides.get(t) == ev["side"] or states[t].destroyed or \
                    min((distance(board, a, b) for a in feet.of(ev["unit"])
                         for b in feet.of(t)), default=99) > 1 or \
                    (ev.get("casualties") or 0) + (ev.get("damage") or 0) < 1:
                raise DustsimError(f"replay log: event {i} (special execute): field 'target': "
                                   "an Execute eliminates one soldier of an enemy unit within "
                                   "range 1 (L3511-3513)")
        if ev["action"] in ("attack", "sustained") and ev.get("rule") == "Wire-guided" and (
                ev["action"] != "attack" or len(ev.get("weapons") or ()) != 1):
            raise DustsimError(f"replay log: event {i} ({ev['action']}): field 'weapons': a "
                               "wire-guided re-roll needs an Attack action with that one "
                               "weapon and no other (L3345)")
        if ev.get("jammed"):  # an observed attack re-rolled by a Jammer (L3567)
            o = ev.get("observer")
            near = [distance(board, a, b) for v, u in snipe.units.items()
                    if "Jammer" in (u.get("rules") or ()) and sides.get(v) != ev["side"]
                    and v in states and not states[v].destroyed
                    for a in feet.of(v) for b in (feet.of(o) if o in states else ())]
            if o is None or not near or min(near) > 6:
                raise DustsimError(f"replay log: event {i} ({ev['action']}): field 'jammed': "
                                   "a Jammer re-rolls an attack an Artillery Observer within "
                                   "its range 6 triggers (L3567)")
        if ev["action"] in ATTACKS and arcs:
            _check_arcs(i, ev, arcs, board, feet)
        if ev["action"] in ATTACKS and ev.get("observer") is not None:
            _check_observed(i, ev, board, states, classes, weapons, wrecks, called, smoke, feet)
            continue
        if ev["action"] in ATTACKS:
            screens = frozenset(q for q, t in smoke.items() if t >= ev["turn"])
            if feet.big(ev["unit"]) or feet.big(ev["target"]):
                _check_big_attack(i, ev, board, states, classes, weapons, wrecks, screens,
                                  feet)
            else:
                _check_attack(i, ev, board, states, classes, weapons, wrecks, screens, feet)
        elif ev["action"] in MOVES:
            _check_move(i, ev, board, states, movers, classes, sides, through, feet,
                        amphibious)
            if sizes[ev["unit"]] > 1 and ev.get("squares"):
                held[ev["unit"]] = [int(q) for q in ev["squares"]]


def _check_turn_in_place(i: int, ev: Mapping, before: dict, classes: Mapping,
                         sizes: Mapping) -> None:
    """A move that stays on its square (``from`` == ``to``, no step in its ``path``) is a
    vehicle's rotation in place: only right after its reaction rolled two successes (L805),
    or a Huge vehicle's (it rotates freely within its squares, L508)."""
    uid = ev.get("unit")
    prev = before.get(uid)
    if uid is not None:
        before[uid] = ev
    if ev["action"] not in MOVES or ev.get("to") is None or ev.get("from") != ev["to"] or \
            any(s != ev["to"] for s in ev.get("path") or ()):
        return
    if sizes.get(uid) == 4:
        return
    if classes.get(uid) != VEHICLE_CLASS or prev is None or prev["action"] != "reaction" or \
            (prev.get("hits") or 0) < 2:
        raise DustsimError(f"replay log: event {i} ({ev['action']}): field 'to': a move that "
                           "stays on its square rotates a vehicle in place only after its "
                           "reaction rolled two successes (L805)")


def _check_escort(i: int, ev: Mapping, escort: list, activated: Mapping, board: Board,
                  feet: Any) -> None:
    """Close Cooperation (L1349-1353): the escort named (``special`` ``close-cooperation``) is
    a friendly unit that has not activated this turn within range 2 of the walker; the next
    activation is its, and its first action a Move or March Move. Knockout (L1191-1195): the
    unit called (``special`` ``knockout``) has not activated this turn, activates next and
    marches first (a Nothing where it cannot move)."""
    where = f"replay log: event {i} ({ev['action']}"
    if ev["action"] == "special" and ev.get("special") == "close-cooperation":
        t = ev.get("target")
        a = [q for q in feet.of(ev["unit"]) if q is not None]
        b = [q for q in feet.of(t) if q is not None]
        if activated.get(t) == ev["turn"] or not a or not b or \
                min(distance(board, x, y) for x in a for y in b) > 2:
            raise DustsimError(f"{where} close-cooperation): field 'target': the escort has "
                               "not activated this turn and stands within range 2 of the "
                               "walker (L1353)")
        escort[:] = [i, t, False, ("move", "march")]
    elif ev["action"] == "special" and ev.get("special") == "knockout":
        if activated.get(ev.get("target")) == ev["turn"]:
            raise DustsimError(f"{where} knockout): field 'target': Knockout calls a unit that "
                               "has not activated this turn (L1195, L341)")
        escort[:] = [i, ev.get("target"), False, ("march", "nothing")]
    elif escort and ev["action"] == "activate":
        if escort[2] or ev["unit"] != escort[1]:
            if not escort[2]:
                raise DustsimError(f"{where}): field 'unit': the unit named at event "
                                   f"{escort[0]} activates right after (L1195, L1353)")
            escort.clear()
        else:
            escort[2] = True
    elif escort and escort[2] and ev.get("unit") == escort[1] and ev["action"] in (
            "attack", "sustained", "close-combat", "nothing", "move", "march", "special"):
        if ev["action"] not in escort[3]:
            raise DustsimError(f"{where}): field 'action': the first action is a "
                               f"{' or '.join(escort[3])} (Close Cooperation L1353: a Move or "
                               "March Move; Knockout L1195: a March Move)")
        escort.clear()


def _check_reserve(i: int, ev: Mapping, states: Mapping, placed: dict, waiting: dict) -> None:
    """Reserve [#] (L3100-3104; :mod:`dustsim.play.battle_reserve`): a unit goes into Reserve
    only once eliminated, while its side has placed fewer than # units; it does not act in
    the turn it was eliminated and comes on (``reserve-arrival``) in a later turn, off the
    board."""
    u = ev.get("unit")
    where = f"replay log: event {i} ({ev['action']}"
    where += f" {ev['special']})" if ev.get("special") else ")"
    if ev["action"] == "special" and ev.get("special") == "reserve":
        side = ev.get("side")
        k = placed.get(side, 0) + 1
        if u not in states or not states[u].destroyed:
            raise DustsimError(f"{where}: field 'unit': a unit goes into Reserve only when it "
                               "is eliminated (L3102)")
        if ev.get("placed") != k or not isinstance(ev.get("reserve"), int) or \
                k > ev["reserve"]:
            raise DustsimError(f"{where}: field 'placed': side {side} places at most its "
                               f"Reserve [#] units in Reserve, counted one by one (L3102; "
                               f"this is its {k}th)")
        placed[side] = k
        waiting[u] = int(ev["turn"])
    elif ev["action"] == "special" and ev.get("special") == "reserve-arrival":
        if u not in waiting or waiting[u] >= int(ev["turn"]) or states[u].square is not None:
            raise DustsimError(f"{where}: field 'turn': a unit in Reserve comes on, from off "
                               "the board, in a turn after the turn it was eliminated (L3104)")
        del waiting[u]
    elif u in waiting and ev["action"] in ("activate", "reaction", "move", "march",
                                           *ATTACKS):
        raise DustsimError(f"{where}: field 'unit': a unit in Reserve acts only once it comes "
                           "on from Reserve, in a later turn (L3104)")


def _check_advantage(i: int, ev: Mapping, advs: Mapping, last: dict) -> None:
    """A platoon advantage acting (module docstring; L950-958 and the advantage's lines)."""
    u = ev.get("unit")
    adv = ev.get("advantage")
    prev = last.get(u)
    if ev["action"] in ("attack", "sustained", "reaction", "close-combat") or (
            ev["action"] == "special" and ev.get("special") in (
                "area", "artillery", "psychic-scream", "execute")):
        last[("hit", ev.get("target"))] = ev  # the last attack on each unit (Wave Attack)
    if u is not None and ev["action"] not in ("token", "token-removed", "destroyed"):
        last[u] = ev
    if ev.get("by_advantage") is not None and (
            ev["by_advantage"] not in advs.get(ev.get("by"), ()) or ev["action"] != "token"
            or last.get(ev.get("by")) is None
            or last[ev["by"]]["action"] not in ("attack", "sustained", "close-combat")):
        raise DustsimError(f"replay log: event {i} ({ev['action']}): field 'by_advantage': "
                           "Inflect Terror's token follows an attack of a unit of its "
                           "platoon (L1657-1659)")
    tadv = ev.get("target_advantage")  # Lightning Strike's saves (L1165-1169)
    if tadv is not None and (tadv not in advs.get(ev.get("target"), ()) or ev["turn"] != 1
                             or ev.get("cover")):
        raise DustsimError(f"replay log: event {i} ({ev['action']}): field "
                           "'target_advantage': Lightning Strike widens the infantry saves "
                           "in the open of its platoon's units, in game turn 1 (L1169)")
    if adv is None:
        return
    where = f"replay log: event {i} ({ev['action']}"
    where += f" {ev['special']})" if ev.get("special") else ")"
    if adv not in advs.get(u, ()):
        raise DustsimError(f"{where}: field 'advantage': {adv} acts only for a unit of the "
                           "complete platoon that earned it (L950-958)")
    if ev.get("special") == "get-moving":
        if adv not in advs.get(ev.get("target"), ()):
            raise DustsimError(f"{where}: field 'target': {adv} orders a unit of the same "
                               "platoon")
        ok = "PT" if adv == "Mission Tactics" else "P"
        if ev.get("hits") != sum(1 for c in ev.get("dice") or "" if c in ok):
            raise DustsimError(f"{where}: field 'hits': the order's die succeeds on "
                               f"{' or '.join(ok)} (L3725{', L1459' if len(ok) > 1 else ''})")
    elif ev["action"] == "reaction" and adv in ("Pack Hunters", "Vigilant"):
        if ev.get("hits") != sum(1 for c in ev.get("dice") or "" if c in "PS"):
            raise DustsimError(f"{where}: field 'hits': {adv}'s reactive dice succeed on P "
                               "and S (L1821, L1947)")
    elif ev.get("special") == "wave-attack":
        hit = last.get(("hit", u))
        if int(ev["turn"]) > 3 or ev.get("hits") != (ev.get("dice") or "").count("P") or \
                hit is None or hit["turn"] != ev["turn"] or \
                len(ev.get("dice") or "") > (hit.get("casualties") or 0):
            raise DustsimError(f"{where}: field 'dice': Wave Attack rolls one die per soldier "
                               "an attack on the squad just eliminated, in turns 1-3, each "
                               "returning on P (L2065)")
    elif ev.get("special") == "mobile-warfare":
        if len(ev.get("dice") or "") != 1 or ev.get("hits") != (ev.get("dice") or "").count("P"):
            raise DustsimError(f"{where}: field 'hits': Mobile Warfare rolls one die, Move and "
                               "Fire on P (L1405)")
    elif ev.get("special") == "go-get-em-girls":
        if len(ev.get("dice") or "") != 1 or ev.get("hits") != sum(
                1 for c in ev.get("dice") or "" if c in "PT"):
            raise DustsimError(f"{where}: field 'hits': Go Get 'Em Girls! rolls one die, Brave "
                               "on P or T (L2175)")
    elif ev.get("special") == "breakthrough":
        if prev is None or prev["action"] != "march" or len(ev.get("dice") or "") != 1 or \
                ev.get("hits") != (ev.get("dice") or "").count("P"):
            raise DustsimError(f"{where}: field 'dice': Breakthrough rolls one die, on P, "
                               "right after the tank's March Move (L1878)")
    elif ev.get("rule") == "Breakthrough" and not (prev is not None and (
            (prev.get("special") == "breakthrough" and prev.get("hits"))
            or prev.get("rule") == "Breakthrough")):  # its lines' other targets
        raise DustsimError(f"{where}: field 'rule': a Breakthrough attack follows a "
                           "successful Breakthrough die (L1878)")


def _check_flier(i: int, ev: Mapping, fliers: frozenset, first: set) -> None:
    """An aircraft that is no Helicopter takes a Move or March Move as the first action of
    its activation (L516, L3551-3553); updates ``first``."""
    uid = ev.get("unit")
    if uid not in fliers:
        return
    if ev["action"] == "activate":
        first.add(uid)
    elif uid in first and ev["action"] in _ACTIONS_TAKEN:
        first.discard(uid)
        if ev["action"] not in MOVES:
            raise DustsimError(f"replay log: event {i}: field 'action': {ev['action']!r} is "
                               f"the first action of aircraft {uid!r}, which must Move or "
                               "March Move first (L516; only a Helicopter hovers, L3553)")


#: the events that are an action of the unit in its activation
_ACTIONS_TAKEN = frozenset({"move", "march", "attack", "sustained", "close-combat", "nothing",
                            "special"})


def _check_dozer(i: int, ev: Mapping, dug: set, board: Board, feet: _Feet) -> None:
    """A vehicle dug in (``special`` ``dozer``) is in cover from any angle until it moves
    (L3505): an attack on it says ``cover`` true; updates ``dug``. A ``bury`` aims at a
    bunker or strongpoint within range 1 of the vehicle (L3357)."""
    if ev["action"] == "special" and ev.get("special") == "bury":
        q = ev.get("to")
        if q is None or int(board.terrain[q]) not in (BUNKER, STRONGPOINT) or min(
                (distance(board, s, q) for s in feet.of(ev["unit"])), default=99) > 1:
            raise DustsimError(f"replay log: event {i}: field 'to': a Dozer buries only a "
                               "bunker or strongpoint within range 1 (L3357)")
    if ev["action"] == "special" and ev.get("special") == "dozer":
        dug.add(ev.get("unit"))
    elif ev["action"] in MOVES:
        dug.discard(ev.get("unit"))
    elif ev["action"] in ATTACKS and ev["action"] != "close-combat" and \
            ev.get("target") in dug and ev.get("cover") is False:
        raise DustsimError(f"replay log: event {i}: field 'cover': false, but unit "
                           f"{ev['target']} is dug in with its Dozer Blade (L3505)")


def _check_passengers(i: int, ev: Mapping, states: Mapping, aboard: dict, board: Board,
                      feet: _Feet) -> None:
    """Passengers (L528-530): no attack on a unit aboard, no move, Sustained Attack or close
    combat by one, its fire from its vehicle's square, a dismount on that square; a survivor
    of a destroyed vehicle placed within range 1 of it (L530; below an Airlifter, L536);
    updates ``aboard``."""
    uid = ev.get("unit")
    if ev["action"] == "special" and ev.get("special") == "embarked":
        aboard[uid] = ev.get("target")
        return
    if ev["action"] == "special" and ev.get("special") == "dismount":
        v = aboard.pop(uid, None)
        if v is None or states[v].square != ev.get("square"):
            raise DustsimError(f"replay log: event {i}: field 'square': a dismount off the "
                               "square its vehicle stands on, or by a unit not aboard (L528)")
        return
    if ev["action"] == "special" and ev.get("special") == "placed":
        v = aboard.pop(uid, None)
        to = ev.get("to")
        if v is None or not states[v].destroyed or to is None or min(
                (distance(board, s, to) for s in feet.of(v)), default=99) > 1:
            raise DustsimError(f"replay log: event {i}: field 'to': a unit leaves a vehicle "
                               "only when it is destroyed, onto a square within range 1 of "
                               "it (L530, L536)")
        return
    if uid in aboard and (ev["action"] in MOVES or ev["action"] in ("sustained",
                                                                     "close-combat")):
        raise DustsimError(f"replay log: event {i}: field 'unit': unit {uid} moves, makes a "
                           "Sustained Attack or fights in close combat while aboard a vehicle "
                           "(L528)")
    if uid in aboard and ev["action"] in ATTACKS and \
            ev.get("from") != states[aboard[uid]].square:
        raise DustsimError(f"replay log: event {i}: field 'from': unit {uid} fires from "
                           "aboard, but not from its vehicle's square (L528)")
    if ev["action"] in ATTACKS and ev.get("target") in aboard:
        raise DustsimError(f"replay log: event {i}: field 'target': unit {ev['target']} is "
                           "aboard a vehicle and cannot be attacked (L530)")
    if ev["action"] == "destroyed" and uid in aboard:
        aboard.pop(uid)


class _Feet:
    """The squares each unit holds at one step: a Large/Huge vehicle's from its last move's
    ``squares``, any other unit's its ``square``."""

    def __init__(self, states: Mapping, held: Mapping, sizes: Mapping) -> None:
        self.states, self.held, self.sizes = states, held, sizes

    def big(self, uid: Any) -> bool:
        return self.sizes.get(uid, 1) > 1 and uid in self.held

    def of(self, uid: Any) -> list[int]:
        st = self.states[uid]
        if st.square is None:
            return []
        return list(self.held[uid]) if self.big(uid) else [st.square]


class _Snipe:
    """Sniper's aim, the officer soldier and the Spotter in a log (:mod:`dustsim.play.
    battle_rules`): an attack's ``aim`` comes from a line that ``aims`` (a Sniper or Head
    Shot weapon, L3317) at a squad, names its officer only where it has an officer soldier
    (``units[].rules``), a carrier only of one of the target's own lines, and falls only with a
    casualty; a squad whose officer soldier fell takes no officer action after (Rally, Get
    Moving, Ammo Drop; L3709) unless a medic returned a soldier to it since (the owner returns
    him first); a ``spotter`` that ``spots`` belongs to a Sustained Attack of a Spotter unit
    firing none of its spotter's lines (L3321-3323)."""

    def __init__(self, log: Mapping) -> None:
        self.units = {u["id"]: u for u in log["units"]}
        self.lines = {(u["id"], w["line"]): w for u in log["units"]
                      for w in u.get("weapons") or () if isinstance(w, Mapping) and "line" in w}
        self.down: set = set()  # squads whose officer soldier a Sniper took

    def _fail(self, i: int, ev: Mapping, field: str, why: str) -> None:
        raise DustsimError(f"replay log: event {i} ({ev['action']}): field '{field}': {why}")

    def check(self, i: int, ev: Mapping) -> None:
        aim = ev.get("aim")
        if aim is not None:
            fired = [self.lines.get((ev["unit"], w), {}) for w in ev.get("weapons") or ()]
            tgt = self.units.get(ev.get("target"), {})
            if not any(w.get("aims") for w in fired) or tgt.get("kind") != "infantry" or (
                    aim.get("by") == "assassin") != (ev["action"] == "close-combat"):
                self._fail(i, ev, "aim", "only a Sniper or Head Shot weapon (or an Assassin's "
                                         "close-combat weapon) names a miniature of an "
                                         "infantry unit (L3317, L3429)")
            what = aim.get("miniature")
            if what == "officer" and "Officer soldier" not in (tgt.get("rules") or ()):
                self._fail(i, ev, "aim", "a Sniper names an officer only in a squad with one "
                                         "(L3317, L3709)")
            if what == "carrier" and (ev["target"], aim.get("line")) not in self.lines:
                self._fail(i, ev, "aim", "a Sniper names the carrier of one of the target's own "
                                         "weapons (L3317)")
            if aim.get("fell") and (ev.get("casualties") or 0) + (ev.get("damage") or 0) < 1:
                self._fail(i, ev, "aim", "the named miniature falls only to an unsaved hit "
                                         "(L3317)")
            if aim.get("fell") and what == "officer":
                self.down.add(ev["target"])
        if ev["action"] == "special" and ev.get("special") == "heal" and ev.get("returned"):
            self.down.discard(ev.get("target"))
        if ev["action"] == "special" and ev.get("special") == "reserve":
            self.down.discard(ev.get("unit"))  # back fresh, its officer too (L3102)
        if ev["action"] == "special" and ev.get("unit") in self.down and ev.get("special") in (
                "rally", "get-moving", "ammo-drop") and not ev.get("advantage"):
            self._fail(i, ev, "special", "a squad whose officer fell takes no officer action "
                                         "(L3709)")
        spot = ev.get("spotter")
        if spot is not None:
            fired = [self.lines.get((ev["unit"], w), {}) for w in ev.get("weapons") or ()]
            if ev["action"] != "sustained" or "Spotter" not in (
                    self.units.get(ev["unit"], {}).get("rules") or ()):
                self._fail(i, ev, "spotter", "a Spotter's choice belongs to a Sustained Attack "
                                             "of a unit with spotters (L3323)")
            if spot == "spots" and any(w.get("spotter") for w in fired):
                self._fail(i, ev, "spotter", "a spotter that spots fires no weapon (L3323)")


def _check_dig_in(i: int, ev: Mapping, board: Board, feet: Any, units: Mapping,
                  spent: set) -> None:
    """Dig In Girls! (L2201; :mod:`dustsim.play.battle_platoon`): an attack whose ``dig_in``
    re-roll is spent targets a unit of the advantage other than Tanya, standing within range 2
    of a Tanya of its side that holds the advantage; once per game per side."""
    if not ev.get("dig_in"):
        return
    t = ev.get("target")
    tu = units.get(t, {})
    side = tu.get("side")
    near = [v for v, u in units.items() if v != t and u.get("side") == side
            and "tanya" in str(u.get("name", "")).lower()
            and "Dig In Girls!" in (u.get("advantages") or ())]
    a = [q for q in feet.of(t) if q is not None] if t in units else []
    close = any(distance(board, x, y) <= 2 for v in near for x in a
                for y in feet.of(v) if y is not None)
    if "Dig In Girls!" not in (tu.get("advantages") or ()) or \
            "tanya" in str(tu.get("name", "")).lower() or not close or side in spent:
        raise DustsimError(f"replay log: event {i} ({ev['action']}): field 'dig_in': once per "
                           "game a Mercenary unit within range 2 of Tanya (not Tanya) has an "
                           "attack's successful dice re-rolled (L2201)")
    spent.add(side)


def _check_brains(i: int, ev: Mapping, board: Board, feet: Any, units: Mapping,
                  start: dict) -> None:
    """BRAINSSSS! (L1630-1634): an attack on the attacker's own side names the rule only for a
    unit of the advantage that started its activation within range 3 of a friend (``start``:
    unit -> its squares at its last ``activate``); the friend's retaliation (rule
    "Retaliation against BRAINSSSS!") is a close-combat attack on a unit that so attacked it."""
    u = ev.get("unit")
    if ev["action"] == "activate":
        start[u] = [q for q in feet.of(u) if q is not None]
        return
    if ev["action"] not in ATTACKS:
        return
    t = ev.get("target")
    rule = ev.get("rule")
    friendly = units.get(t, {}).get("side") == units.get(u, {}).get("side")
    where = f"replay log: event {i} ({ev['action']}): field 'rule'"
    if rule == "BRAINSSSS!":
        if not friendly or "BRAINSSSS!" not in (units.get(u, {}).get("advantages") or ()) \
                or not any(distance(board, a, b) <= 3 for a in start.get(u, ())
                           for v, w in units.items() if v != u and w.get("side") ==
                           units[u].get("side") for b in feet.of(v) if b is not None):
            raise DustsimError(f"{where}: BRAINSSSS! sends a Mindless Zombie unit of the swarm "
                               "that starts its activation within range 3 of a friend at a "
                               "friendly unit (L1634)")
        start[("brains", u)] = t
    elif rule == "Retaliation against BRAINSSSS!":
        if ev["action"] != "close-combat" or start.get(("brains", t)) != u:
            raise DustsimError(f"{where}: only a friend a BRAINSSSS! attack struck retaliates "
                               "on its own side (L1634, L763-765)")


#: the Stimulants die's face -> its effect (battle_rules' decision on L3753-3755's lost glyphs)
STIM_FACES = {"P": "choose", "T": "sustained", "S": "march"}


class _Stimulants:
    """Inject Stimulants (L3745-3757; :mod:`dustsim.play.battle_rules`): a ``stimulants``
    special is a Medic's on another friendly infantry unit within range 1, which then holds a
    Stimulants token; a ``stimulant-roll`` is that unit's, at the start of its activation,
    only while it holds a token (which goes), one die whose face names the ``effect`` (P
    choose, T Attack as Sustained, S Move as March: the decision); an attack naming the rule
    Inject Stimulants follows such a roll in the same activation that allowed a third action
    (``third``), a Sustained Attack on ``choose`` or ``sustained``, an Attack on ``choose`` or
    ``march``."""

    def __init__(self, log: Mapping) -> None:
        self.units = {u["id"]: u for u in log["units"]}
        self.tokens: set = set()  # units holding a Stimulants token
        self.effect: dict = {}  # unit -> (effect, third) of its activation now

    def _fail(self, i: int, ev: Mapping, field: str, why: str) -> None:
        where = f"{ev['action']} {ev['special']}" if ev.get("special") else ev["action"]
        raise DustsimError(f"replay log: event {i} ({where}): field '{field}': {why}")

    def check(self, i: int, ev: Mapping, board: Board, feet: Any) -> None:
        u = ev.get("unit")
        if ev["action"] == "activate":
            self.effect.pop(u, None)
        if ev["action"] == "destroyed" or (ev["action"] == "special"
                                           and ev.get("special") == "reserve"):
            self.tokens.discard(u)  # gone, or back fresh (L3102)
        special = ev.get("special") if ev["action"] == "special" else None
        if special == "stimulants":
            t = ev.get("target")
            me, it = self.units.get(u, {}), self.units.get(t, {})
            a = [q for q in feet.of(u) if q is not None]
            b = [q for q in feet.of(t) if q is not None] if t in self.units else []
            if "Medic" not in (me.get("rules") or ()) or t == u or it.get("side") != \
                    me.get("side") or it.get("kind") != "infantry" or not a or not b or \
                    min(distance(board, x, y) for x in a for y in b) > 1:
                self._fail(i, ev, "target", "a Medic injects another friendly infantry unit "
                                            "within range 1 (L3749)")
            self.tokens.add(t)
        elif special == "stimulant-roll":
            dice = ev.get("dice") or ""
            if u not in self.tokens:
                self._fail(i, ev, "unit", "only a unit holding a Stimulants token rolls for it "
                                          "(L3751)")
            self.tokens.discard(u)
            if len(dice) != 1 or STIM_FACES.get(dice) != ev.get("effect"):
                self._fail(i, ev, "effect", "one die: P the player chooses, T an Attack counts "
                                            "as a Sustained Attack, S a Move as a March Move "
                                            "(L3753-3755, the faces our decision)")
            self.effect[u] = (ev.get("effect"), bool(ev.get("third")))
        if ev["action"] in ("attack", "sustained") and ev.get("rule") == "Inject Stimulants":
            eff, third = self.effect.get(u, (None, False))
            ok = ("choose", "sustained") if ev["action"] == "sustained" else ("choose", "march")
            if not third or eff not in ok:
                self._fail(i, ev, "rule", "a Stimulants effect upgrades an Attack to a "
                                          "Sustained Attack (or lets an Attack follow a March "
                                          "Move) only after its die allowed it in this "
                                          "activation (L3753-3757)")


def _is_class(c: Any) -> bool:
    return isinstance(c, int) and not isinstance(c, bool) and 0 <= c < len(MOVE_CLASS_NAMES)


def _check_move(i: int, ev: Mapping, board: Board, states: Mapping, movers: Mapping,
                classes: Mapping, sides: Mapping, through: frozenset = frozenset(),
                feet: _Feet | None = None, amphibious: frozenset = frozenset()) -> None:
    """A move passes only friendly units, a vehicle no friendly vehicle, and ends on a square
    no other unit holds (L463-465); where the log gives the
    unit's movement class (``move_class``, :data:`dustsim.play.board.MOVE_CLASS_NAMES`),
    enters only squares passable for it (the board's ``move_cost``)."""
    where = f"replay log: event {i} ({ev['action']})"
    w, to, uid = board.width, ev["to"], ev["unit"]
    if to is None:
        return

    def holds(other: Any, st: Any, s: int) -> bool:
        return st.square == s if feet is None else s in feet.of(other)

    own = set(feet.of(uid)) if feet is not None else {states[uid].square}
    for other, st in states.items():
        for s in [int(q) for q in ev.get("squares") or ()] or [to]:
            if other != uid and holds(other, st, s) and not st.destroyed:
                raise DustsimError(f"{where}: field 'to': {square_name(s, w)} is held by unit "
                                   f"{other!r}; no unit ends its move on an occupied square "
                                   "(L463-465)")
    if classes[uid] != AIRCRAFT_CLASS:  # aircraft fly over everything (L510-516)
        side = sides[uid]
        for s in ev.get("path") or []:
            if s == to or s in own:
                continue
            for other, st in states.items():
                if not holds(other, st, s) or st.destroyed or other == uid:
                    continue
                if sides[other] != side and uid not in through:
                    raise DustsimError(f"{where}: field 'path': passes {square_name(s, w)}, "
                                       f"held by enemy unit {other!r} (only friendly units "
                                       "may be passed, L463)")
                if classes[uid] == VEHICLE_CLASS and classes[other] == VEHICLE_CLASS:
                    raise DustsimError(f"{where}: field 'path': a vehicle passes friendly "
                                       f"vehicle {other!r} on {square_name(s, w)} (L464)")
    mc = movers.get(uid)
    if mc is None:
        return
    wet = (WATER, SWAMP) if uid in amphibious else ()  # as open ground (L3411-3413)
    for s in [*(ev.get("path") or []), to, *(ev.get("squares") or ())]:
        if s not in own and board.move_cost[s, mc] >= IMPASSABLE and \
                int(board.terrain[s]) not in wet:
            raise DustsimError(f"{where}: field 'path': {square_name(s, w)} "
                               f"({TERRAIN_NAMES[board.terrain[s]]}) is impassable for "
                               f"movement class {MOVE_CLASS_NAMES[mc]}")


def _sight(board: Board, a: int, b: int, blockers: frozenset) -> int:
    """The line of sight, for a walker or Large vehicle too (they see over Quonset huts)."""
    los = line_of_sight(board, a, b, blockers)
    return line_of_sight(board, a, b, blockers, tall=True) if los == LOS_BLOCKED else los


def _check_range(where: str, ev: Mapping, d: int, weapons: Mapping, pair: str) -> None:
    """An attack's logged range is the board's (``d``, L580-582) and each line it fired
    reaches it (the weapon's minimum and maximum range)."""
    if ev.get("range") is not None and ev["range"] != d:
        raise DustsimError(f"{where}: field 'range': {ev['range']}, but the board's range "
                           f"{pair} is {d} (L580-582)")
    for line in ev.get("weapons") or ():
        reach = weapons.get((ev["unit"], line))
        if reach is not None and not reach[0] <= d <= reach[1]:
            raise DustsimError(f"{where}: field 'weapons': line {line} ({reach[2]}) reaches "
                               f"{reach[0]}-{reach[1]}, but the target is at range {d} {pair}")


def _check_attack(i: int, ev: Mapping, board: Board, states: Mapping, classes: Mapping,
                  weapons: Mapping, wrecks: bool, screens: frozenset = frozenset(),
                  feet: _Feet | None = None) -> None:
    where = f"replay log: event {i} ({ev['action']})"
    w = board.width
    a, b = states[ev["unit"]].square, states[ev["target"]].square
    pair = f"from {square_name(a, w)} to {square_name(b, w)}"
    d = distance(board, a, b)
    if ev["action"] == "close-combat":
        if d != 1:
            raise DustsimError(f"{where}: field 'range': close combat {pair} is not between "
                               f"adjacent squares (range {d}, L761)")
        return
    _check_range(where, ev, d, weapons, pair)
    ca, cb = classes[ev["unit"]], classes[ev["target"]]
    if AIRCRAFT_CLASS in (ca, cb) and not (board.in_building[a] or board.in_building[b]):
        return  # aircraft see and are seen by everything not in a building (L655)
    live, wrecked = _vehicle_squares(states, classes, wrecks, feet)
    live = live | screens  # smoke screens block sight through them (L3228)
    los = _sight(board, a, b, live | wrecked)
    if los == LOS_BLOCKED:
        if wrecked and _sight(board, a, b, live) != LOS_BLOCKED:
            on = ", ".join(square_name(s, w) for s in sorted(wrecked))
            raise DustsimError(f"{where}: field 'los': the line of sight {pair} is blocked by "
                               f"a wreck (wrecks on {on}; a destroyed vehicle blocks sight, "
                               "L486)")
        raise DustsimError(f"{where}: field 'los': the line of sight {pair} is blocked "
                           "on the board (L602-655)")
    want = "cover" if los == LOS_COVER else "clear"
    if ev.get("los") is not None and ev["los"] != want:
        why = "L608-610"
        if wrecked and _sight(board, a, b, live) != los:
            why = (f"with the wrecks on {', '.join(square_name(s, w) for s in sorted(wrecked))}"
                   "; a destroyed vehicle blocks sight, L486")
        raise DustsimError(f"{where}: field 'los': {ev['los']!r}, but the line {pair} is "
                           f"{want!r} on the board ({why})")
    in_cover = los == LOS_COVER or bool(board.cover[b, cb])
    if ev.get("cover") is False and in_cover:
        raise DustsimError(f"{where}: field 'cover': false, but the target on "
                           f"{square_name(b, w)} is in cover (L680)")


def _check_repair(i: int, ev: Mapping, board: Board, states: Mapping, classes: Mapping,
                  sides: Mapping, tracks: Mapping, feet: _Feet) -> None:
    """A Makeshift Repair (L3759-3765): another friendly vehicle in range 1 and sight, five
    dice, no more points back than successes, never above its track."""
    where = f"replay log: event {i} (special repair)"
    u, t = ev["unit"], ev.get("target")
    if t == u or sides.get(t) != sides.get(u) or classes.get(t) != VEHICLE_CLASS:
        raise DustsimError(f"{where}: field 'target': a mechanic repairs another friendly "
                           "vehicle (L3589, L3763)")
    a = [q for q in feet.of(u) if q is not None]
    b = [q for q in feet.of(t) if q is not None]
    if not a or not b or min(distance(board, x, y) for x in a for y in b) > 1:
        raise DustsimError(f"{where}: field 'target': the vehicle is not within range 1 of "
                           "the mechanic (L3763)")
    dice = ev.get("dice")
    if dice is not None and len(dice) != 5:
        raise DustsimError(f"{where}: field 'dice': {len(dice)} dice, a repair rolls five "
                           "(L3763)")
    back, hits = int(ev.get("repaired") or 0), int(ev.get("hits") or 0)
    st = states[t]
    if back > hits or (st.track is not None and tracks.get(t) is not None
                       and st.track + back > tracks[t]):
        raise DustsimError(f"{where}: field 'repaired': {back} points back on {hits} "
                           "successes, or above the damage track (L3765)")


def _check_observed(i: int, ev: Mapping, board: Board, states: Mapping, classes: Mapping,
                    weapons: Mapping, wrecks: bool, called: Mapping, smoke: Mapping,
                    feet: _Feet) -> None:
    """An artillery attack fired for an Artillery Observer (L3419-3425): called in by that
    observer this turn; range from the artillery's square (``from``) to the target's square
    (``to``); the observer's line of sight to ``to`` not blocked and as logged."""
    where = f"replay log: event {i} ({ev['action']})"
    o = ev["observer"]
    if called.get(ev["unit"]) != (o, ev["turn"]):
        raise DustsimError(f"{where}: field 'observer': unit {o} did not call in unit "
                           f"{ev['unit']}'s artillery this turn (L3421)")
    w = board.width
    a, b = int(ev["from"]), int(ev["to"])
    d = distance(board, a, b)
    _check_range(where, ev, d, weapons, f"from {square_name(a, w)} to {square_name(b, w)}")
    s = states[o].square
    if s is None:
        raise DustsimError(f"{where}: field 'observer': the observer is not on the board")
    if AIRCRAFT_CLASS in (classes[o], classes[ev["target"]]) and not (
            board.in_building[s] or board.in_building[b]):
        return  # aircraft see and are seen by everything not in a building (L655)
    live, wrecked = _vehicle_squares(states, classes, wrecks, feet, skip=(o, ev["target"]))
    screens = frozenset(q for q, t in smoke.items() if t >= ev["turn"])
    los = _sight(board, s, b, live | wrecked | screens)
    if los == LOS_BLOCKED:
        raise DustsimError(f"{where}: field 'los': the observer on {square_name(s, w)} does "
                           f"not see {square_name(b, w)} (L3423, L602-655)")
    want = "cover" if los == LOS_COVER else "clear"
    if ev.get("los") is not None and ev["los"] != want:
        raise DustsimError(f"{where}: field 'los': {ev['los']!r}, but the observer's line from "
                           f"{square_name(s, w)} to {square_name(b, w)} is {want!r} (L3423)")


def _vehicle_squares(states: Mapping, classes: Mapping, wrecks: bool, feet: _Feet | None,
                     skip: tuple = ()) -> tuple[frozenset, frozenset]:
    """Squares of standing vehicles (L612) and of wrecks (L486), every square of a Large/Huge
    one; the units in ``skip`` left out (a big vehicle's own squares block nothing for it)."""
    live: set[int] = set()
    wrecked: set[int] = set()
    for uid, st in states.items():
        if classes[uid] != VEHICLE_CLASS or st.square is None or uid in skip:
            continue
        squares = feet.of(uid) if feet is not None else [st.square]
        if not st.destroyed:
            live.update(squares)
        elif wrecks:
            wrecked.update(squares)
    return frozenset(live), frozenset(wrecked)


def _check_big_attack(i: int, ev: Mapping, board: Board, states: Mapping, classes: Mapping,
                      weapons: Mapping, wrecks: bool, screens: frozenset, feet: _Feet) -> None:
    """An attack by or at a Large/Huge vehicle, against the footprints (module docstring)."""
    where = f"replay log: event {i} ({ev['action']})"
    w = board.width
    me, tgt = ev["unit"], ev["target"]
    mine, theirs = feet.of(me), feet.of(tgt)
    pair = (f"from {', '.join(square_name(s, w) for s in mine)} to "
            f"{', '.join(square_name(s, w) for s in theirs)}")
    nearest = min(distance(board, a, b) for a in mine for b in theirs)
    if ev["action"] == "close-combat":
        if nearest != 1:
            raise DustsimError(f"{where}: field 'range': close combat {pair} is not between "
                               f"adjacent squares (range {nearest}, L761)")
        return
    ca, cb = classes[me], classes[tgt]
    air = AIRCRAFT_CLASS in (ca, cb)
    live, wrecked = _vehicle_squares(states, classes, wrecks, feet, skip=(me, tgt))
    blockers = live | wrecked | screens
    seen = []  # (range, los, origin, square) of each pair with a sight line
    for a in mine:
        for b in theirs:
            los = LOS_CLEAR if air and not (board.in_building[a] or board.in_building[b]) \
                else _sight(board, a, b, blockers)
            if los != LOS_BLOCKED:
                seen.append((distance(board, a, b), los, a, b))
    if not seen:
        raise DustsimError(f"{where}: field 'los': no line of sight {pair} on the board "
                           "(L602-655, L604)")
    ranges = {d for d, *_ in seen}
    if ev.get("range") is not None and ev["range"] not in ranges:
        raise DustsimError(f"{where}: field 'range': {ev['range']}, but the ranges between "
                           f"seen squares {pair} are {sorted(ranges)} (L580-582, L604)")
    for line in ev.get("weapons") or ():
        reach = weapons.get((me, line))
        if reach is not None and not any(reach[0] <= d <= reach[1] for d in ranges):
            raise DustsimError(f"{where}: field 'weapons': line {line} ({reach[2]}) reaches "
                               f"{reach[0]}-{reach[1]}, but no seen square {pair} is in reach")
    at = [x for x in seen if ev.get("range") is None or x[0] == ev["range"]]
    if ev.get("los") is not None and not air:
        wants = {"cover" if los == LOS_COVER else "clear" for _, los, *_ in at}
        if ev["los"] not in wants:
            raise DustsimError(f"{where}: field 'los': {ev['los']!r}, but the lines {pair} at "
                               f"range {ev.get('range')} are {sorted(wants)} (L608-610)")
    if ev.get("cover") is False and not air:
        need = 2 if len(theirs) >= 4 else 1
        for origin in {a for _, _, a, _ in at}:
            covered = 0
            for b in theirs:
                los = _sight(board, origin, b, blockers)
                if los != LOS_CLEAR or bool(board.cover[b, cb]) or b in screens:
                    covered += 1
            if covered < need:
                return
        raise DustsimError(f"{where}: field 'cover': false, but {need} or more of the "
                           f"target's squares {pair} are in cover (L727)")


__all__ = ["board_of_log", "check_log_on_board"]
