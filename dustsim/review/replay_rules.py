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

* a move passes only friendly units, a vehicle no friendly vehicle, and ends on a square no
  other standing unit holds (L463-465); aircraft fly over all (L510-516); where the log gives
  the unit's ``move_class``, enters only squares passable for that class (the board's
  ``move_cost``).

A Walker or a Large/Huge vehicle sees over Quonset huts (L3156-3158); the log does not carry
size, so a line that only such a unit could draw is accepted. Weapon ranges (the cards)
are checked where the log lists each unit's weapon lines with their ranges and each attack
its lines (``weapons``): every line fired reaches the target.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dustsim.errors import DustsimError
from dustsim.play.board import (
    AIRCRAFT_CLASS,
    IMPASSABLE,
    INFANTRY_CLASS,
    LOS_BLOCKED,
    LOS_COVER,
    MOVE_CLASS_NAMES,
    TERRAIN_NAMES,
    VEHICLE_CLASS,
    Board,
    distance,
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
    movers = {u["id"]: u["move_class"] for u in log["units"]
              if _is_class(u.get("move_class"))}
    smoke: dict[int, int] = {}  # square -> last turn of a smoke screen on it
    for i, ev, states in walk(log):
        if ev["action"] == "special" and ev.get("special") == "smoke":
            for q in ev.get("smoke") or ():
                smoke[int(q)] = int(ev["turn"]) + 1  # to the end of the next turn (L3228)
        if ev["action"] in ATTACKS:
            screens = frozenset(q for q, t in smoke.items() if t >= ev["turn"])
            _check_attack(i, ev, board, states, classes, weapons, wrecks, screens)
        elif ev["action"] in MOVES:
            _check_move(i, ev, board, states, movers, classes, sides, through)


def _is_class(c: Any) -> bool:
    return isinstance(c, int) and not isinstance(c, bool) and 0 <= c < len(MOVE_CLASS_NAMES)


def _check_move(i: int, ev: Mapping, board: Board, states: Mapping, movers: Mapping,
                classes: Mapping, sides: Mapping, through: frozenset = frozenset()) -> None:
    """A move passes only friendly units, a vehicle no friendly vehicle, and ends on a square
    no other unit holds (L463-465); where the log gives the
    unit's movement class (``move_class``, :data:`dustsim.play.board.MOVE_CLASS_NAMES`),
    enters only squares passable for it (the board's ``move_cost``)."""
    where = f"replay log: event {i} ({ev['action']})"
    w, to, uid = board.width, ev["to"], ev["unit"]
    if to is None:
        return
    for other, st in states.items():
        if other != uid and st.square == to and not st.destroyed:
            raise DustsimError(f"{where}: field 'to': {square_name(to, w)} is held by unit "
                               f"{other!r}; no unit ends its move on an occupied square "
                               "(L463-465)")
    if classes[uid] != AIRCRAFT_CLASS:  # aircraft fly over everything (L510-516)
        side = sides[uid]
        for s in ev.get("path") or []:
            if s in (to, states[uid].square):
                continue
            for other, st in states.items():
                if st.square != s or st.destroyed or other == uid:
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
    for s in [*(ev.get("path") or []), to]:
        if s != states[uid].square and board.move_cost[s, mc] >= IMPASSABLE:
            raise DustsimError(f"{where}: field 'path': {square_name(s, w)} "
                               f"({TERRAIN_NAMES[board.terrain[s]]}) is impassable for "
                               f"movement class {MOVE_CLASS_NAMES[mc]}")


def _sight(board: Board, a: int, b: int, blockers: frozenset) -> int:
    """The line of sight, for a walker or Large vehicle too (they see over Quonset huts)."""
    los = line_of_sight(board, a, b, blockers)
    return line_of_sight(board, a, b, blockers, tall=True) if los == LOS_BLOCKED else los


def _check_attack(i: int, ev: Mapping, board: Board, states: Mapping, classes: Mapping,
                  weapons: Mapping, wrecks: bool, screens: frozenset = frozenset()) -> None:
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
    if ev.get("range") is not None and ev["range"] != d:
        raise DustsimError(f"{where}: field 'range': {ev['range']}, but the board's range "
                           f"{pair} is {d} (L580-582)")
    for line in ev.get("weapons") or ():
        reach = weapons.get((ev["unit"], line))
        if reach is not None and not reach[0] <= d <= reach[1]:
            raise DustsimError(f"{where}: field 'weapons': line {line} ({reach[2]}) reaches "
                               f"{reach[0]}-{reach[1]}, but the target is at range {d} {pair}")
    ca, cb = classes[ev["unit"]], classes[ev["target"]]
    if AIRCRAFT_CLASS in (ca, cb) and not (board.in_building[a] or board.in_building[b]):
        return  # aircraft see and are seen by everything not in a building (L655)
    live = frozenset(st.square for uid, st in states.items()
                     if classes[uid] == VEHICLE_CLASS and st.square is not None
                     and not st.destroyed)
    wrecked = frozenset(st.square for uid, st in states.items()
                        if classes[uid] == VEHICLE_CLASS and st.square is not None
                        and st.destroyed) if wrecks else frozenset()
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


__all__ = ["board_of_log", "check_log_on_board"]
