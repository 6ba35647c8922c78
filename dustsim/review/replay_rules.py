"""A replay's attacks against the board's geometry: range and line of sight as the rules say.

:func:`check_log_on_board` walks a (checked) event log with the units where they stand at each
step and compares every attack with :mod:`dustsim.play.board`'s reference functions:

* ``range`` is the board's range between the attacker's and the target's squares (the diagonal
  rule, L580-582); a close-combat attack is between adjacent squares (L761);
* the sight line is not blocked (L602-655): static terrain, and the vehicles standing at that
  step as dynamic blockers (L612; destroyed vehicles are not counted: the log does not say
  whether a wreck stays). An aircraft sees and is seen by any unit not in a building (L655);
* ``los`` is ``"cover"`` exactly when the line passes one blocking corner (L608), and a target
  whose square gives its class cover, or behind such a corner, has ``cover`` true (L680;
  close combat ignores cover, L765). Smoke screens the log lays (``special`` events with
  their ``smoke`` squares, standing to the end of the next turn, L3228) block sight through
  them as the vehicles do; the cover they give is not second-guessed.

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
    INFANTRY_CLASS,
    LOS_BLOCKED,
    LOS_COVER,
    VEHICLE_CLASS,
    Board,
    distance,
    line_of_sight,
    make_board,
)
from dustsim.review.replay import ATTACKS, plain_log, square_name, validate_log, walk


def _class(kind: str) -> int:
    k = kind.lower()
    if "aircraft" in k:
        return AIRCRAFT_CLASS
    if "vehicle" in k or "walker" in k or "tank" in k:
        return VEHICLE_CLASS
    return INFANTRY_CLASS


def board_of_log(log: Mapping) -> Board:
    """A Board from the log's own ``board`` (terrain, objectives, deployment); heights and
    bunker facings are not in the log: give the scenario's Board where they matter."""
    b = log["board"]
    n = b["width"] * b["height"]
    deploy = np.zeros((2, n), bool)
    for side, zone in enumerate(b.get("deploy", [[], []])):
        deploy[side, list(zone)] = True
    return make_board("replay", b["width"], b["height"], b["terrain"], deploy=deploy,
                      objectives=b.get("objectives", []))


def check_log_on_board(log: Any, board: Board | None = None) -> None:
    """Raise :class:`DustsimError` at the first attack whose range, line of sight or cover
    contradicts the board (one line: event index and field); ``board`` defaults to the log's
    own (:func:`board_of_log`)."""
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
    smoke: dict[int, int] = {}  # square -> last turn of a smoke screen on it
    for i, ev, states in walk(log):
        if ev["action"] == "special" and ev.get("special") == "smoke":
            for q in ev.get("smoke") or ():
                smoke[int(q)] = int(ev["turn"]) + 1  # to the end of the next turn (L3228)
        if ev["action"] in ATTACKS:
            screens = frozenset(q for q, t in smoke.items() if t >= ev["turn"])
            _check_attack(i, ev, board, states, classes, weapons, screens)


def _check_attack(i: int, ev: Mapping, board: Board, states: Mapping, classes: Mapping,
                  weapons: Mapping, screens: frozenset = frozenset()) -> None:
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
    blockers = frozenset(st.square for uid, st in states.items()
                         if classes[uid] == VEHICLE_CLASS and not st.destroyed
                         and st.square is not None) | screens  # smoke blocks too (L3228)
    los = line_of_sight(board, a, b, blockers)
    if los == LOS_BLOCKED:
        los = line_of_sight(board, a, b, blockers, tall=True)  # a walker or Large vehicle
        if los == LOS_BLOCKED:
            raise DustsimError(f"{where}: field 'los': the line of sight {pair} is blocked "
                               "on the board (L602-655)")
    want = "cover" if los == LOS_COVER else "clear"
    if ev.get("los") is not None and ev["los"] != want:
        raise DustsimError(f"{where}: field 'los': {ev['los']!r}, but the line {pair} is "
                           f"{want!r} on the board (L608-610)")
    in_cover = los == LOS_COVER or bool(board.cover[b, cb])
    if ev.get("cover") is False and in_cover:
        raise DustsimError(f"{where}: field 'cover': false, but the target on "
                           f"{square_name(b, w)} is in cover (L680)")


__all__ = ["board_of_log", "check_log_on_board"]
