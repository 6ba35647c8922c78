"""A battle replay: the event log's contract check, its self-contained HTML page, its files.

The log is the battle kernel's record of one game (TEAM contract, issue 22): the board (terrain
by square, objectives, deployment zones), the units, the policies and seed, the result and the
events, one object per step (``turn``, ``side``, ``unit``, ``action`` and, where they apply,
``from``/``to``/``path``/``facing``, ``weapon``/``target``/``range``/``los``/``cover``,
``dice``/``hits``/``saves``/``damage``/``casualties``, ``token``, ``text``).

* :func:`validate_log` checks a log against that contract and against itself (a move starts
  where the unit stands and walks square by square, a destroyed unit acts no more, saves never
  exceed hits); the first break is one line naming the event index and the field.
* :func:`unit_states` folds the events into each unit's state after any step (square, facing,
  models or damage track left, tokens, destroyed); the page and :mod:`board_chart` show it.
* :func:`event_text` is an event's sentence in Dust player terms (its ``text`` where given).
* :func:`render_replay_html` is the page: the board, the units and a step control, one HTML
  file with its CSS and script inline (no network, opens from disk).
* :func:`write_replay` writes the page (``.html``) or the log (``.json``) atomically.

Squares are ``row * width + col``; side A's table edge is row 0 (drawn at the bottom), side B's
is row ``height - 1``. A square is named like a chess square: column letter, then row counted
from A's edge (``c4``). Facing ``0..7`` are the eight neighbours clockwise from ``0`` = towards
row + (B's edge, drawn up), as :data:`FACING_STEPS` lists them.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dustsim.errors import DustsimError
from dustsim.play.battle import unit_labels_for
from dustsim.play.board import DIRECTIONS, footprint_squares, square_name

VERSION = 1
ACTIONS = ("initiative", "activate", "move", "march", "attack", "sustained", "reaction",
           "close-combat", "nothing", "pass", "token", "token-removed", "destroyed",
           "objective", "end-turn", "end", "exit", "special")
ATTACKS = frozenset({"attack", "sustained", "reaction", "close-combat"})
#: the rules under which an attack targets its own side (BRAINSSSS!, L1634, and the friend's
#: close-combat retaliation; dustsim.review.replay_rules checks them)
FRIENDLY_FIRE = frozenset({"BRAINSSSS!", "Retaliation against BRAINSSSS!"})
MOVES = frozenset({"move", "march"})
# actions that are a unit's own: they name the unit that does them
UNIT_ACTIONS = frozenset({"activate", "nothing", "token", "token-removed", "destroyed", "exit",
                          "special"}
                         | ATTACKS | MOVES)
SIDES = ("A", "B")
FACES = frozenset("PTS")
LOS = ("clear", "cover")
# the Under Fire ladder: a new token of the ladder replaces the other (L739)
LADDER = ("under-fire", "suppressed")
TOKEN_NAMES = {"under-fire": "Under Fire", "suppressed": "Suppressed", "stunned": "Stunned"}
# facing -> (column step, row step): the board's own table (0 = towards row +, clockwise)
FACING_STEPS = DIRECTIONS
# how each terrain type looks on the page and in the chart: fill colour and a pattern (the
# page draws the pattern by name; the chart uses the matplotlib hatch); by TERRAIN_NAMES name
TERRAIN_STYLE: dict[str, tuple[str, str | None, str]] = {
    "open": ("#e7e1cf", None, ""), "building": ("#8c8177", "building", "//"),
    "building opening": ("#bdb1a3", "building", "/"), "trees": ("#7fae6a", "trees", "oo"),
    "tank traps": ("#cfcabb", "cross", "xx"), "small structure": ("#b49f7c", "block", ".."),
    "trench": ("#9c7a52", "lines", "--"), "barbed wire": ("#d9d3c3", "wire", "xx"),
    "minefield": ("#e3c9b4", "dots", ".."), "quonset hut": ("#7f8f5a", "hut", "\\\\"),
    "strongpoint": ("#777b80", "building", "//"), "bunker": ("#55595e", "building", "//"),
    "ammo crates": ("#b58b4c", "block", "++"), "road": ("#bfb49c", None, ""),
    "rubble": ("#b5aa99", "dots", "oo"), "water": ("#8fbbe0", "lines", "-"),
    "swamp": ("#9bab7e", "lines", "--"), "bridge": ("#b59a72", "lines", "||"),
    "solid": ("#3d3b38", None, ""), "smoke": ("#c9c9c9", "dots", ".."),
}
OTHER_TERRAIN = ("#a58fc4", "block", "..")  # a name the table does not know


def terrain_style(name: str) -> tuple[str, str | None, str]:
    """(fill colour, page pattern, matplotlib hatch) of a terrain type by name."""
    return TERRAIN_STYLE.get(" ".join(name.lower().replace("_", " ").replace("-", " ").split()),
                             OTHER_TERRAIN)
FACING_WORDS = ("towards B's edge", "towards B's edge, right", "right", "towards A's edge, right",
                "towards A's edge", "towards A's edge, left", "left", "towards B's edge, left")
MAX_SIDE = 64  # squares per board side: far beyond the rulebook's 12 x 9
_INT_FIELDS = ("hits", "saves", "damage", "casualties")


# -- checking -----------------------------------------------------------------------------------
def _fail(where: str, field: str, msg: str) -> DustsimError:
    return DustsimError(f"replay log: {where}: field {field!r}: {msg}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_id(x: Any) -> bool:
    """A unit id: a name or a whole number."""
    return isinstance(x, str) or _is_int(x)


def _non_finite(x: Any, path: str = "") -> str | None:
    """The path of the first NaN or infinite number in ``x`` (JSON has none), else None."""
    if isinstance(x, float) and not math.isfinite(x):
        return path or "value"
    if isinstance(x, Mapping):
        items = x.items()
    elif isinstance(x, list):
        items = enumerate(x)
    else:
        return None
    for k, v in items:
        found = _non_finite(v, f"{path}.{k}" if path else str(k))
        if found:
            return found
    return None


def plain_log(x: Any) -> Any:
    """The log with NumPy scalars and arrays turned into plain Python (JSON-ready)."""
    if isinstance(x, Mapping):
        return {str(k) if not isinstance(k, str) else k: plain_log(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain_log(v) for v in x]
    if hasattr(x, "tolist") and callable(x.tolist):  # numpy array or scalar
        return plain_log(x.tolist())
    return x


@dataclass(frozen=True)
class _Board:
    width: int
    height: int

    @property
    def n(self) -> int:
        return self.width * self.height

    def square(self, where: str, field: str, s: Any, *, optional: bool = False) -> int | None:
        if s is None and optional:
            return None
        if not _is_int(s) or not 0 <= s < self.n:
            raise _fail(where, field, f"{s!r} is not a square of the {self.width} x "
                        f"{self.height} board (0..{self.n - 1})")
        return s

    def adjacent(self, a: int, b: int) -> bool:
        return max(abs(a % self.width - b % self.width),
                   abs(a // self.width - b // self.width)) == 1


def _faces(where: str, field: str, dice: Any) -> list[list[str]]:
    """Dice as groups of faces: ``"PTS"``, ``["P", "T"]``, ``["PT", "S"]`` (a string per roll),
    ``[["P"], ["T"]]`` or ``{"hit": ..., "re-roll": ...}``."""
    if isinstance(dice, Mapping):
        return [g for v in dice.values() for g in _faces(where, field, v)]
    if isinstance(dice, str):
        groups = [list(dice)]
    elif isinstance(dice, (list, tuple)):
        if all(isinstance(d, str) and len(d) == 1 for d in dice):
            groups = [list(dice)]
        else:
            groups = []
            for d in dice:
                if isinstance(d, str) or (isinstance(d, (list, tuple))
                                          and all(isinstance(f, str) for f in d)):
                    groups.append(list(d))
                else:
                    raise _fail(where, field, f"{d!r} is not a roll of faces P, T, S")
    else:
        raise _fail(where, field, f"{dice!r} is not a roll of faces (a string or list of "
                    "P, T, S)")
    for g in groups:
        bad = [f for f in g if f not in FACES]
        if bad:
            raise _fail(where, field, f"face {bad[0]!r} is not one of P, T, S")
    return groups


def _check_top(log: Any) -> tuple[_Board, dict[Any, dict]]:
    if not isinstance(log, Mapping):
        raise DustsimError(f"replay log: not a JSON object but {type(log).__name__}")
    bad = _non_finite(log)
    if bad:
        raise DustsimError(f"replay log: {bad}: not a finite number (JSON has no NaN or "
                           "infinity)")
    for key in ("version", "scenario", "board", "units", "policy", "result", "events"):
        if key not in log:
            raise _fail("top level", key, "missing")
    if log["version"] != VERSION:
        raise _fail("top level", "version", f"{log['version']!r} is not {VERSION}")
    sc = log["scenario"]
    if not isinstance(sc, Mapping) or not isinstance(sc.get("name"), str):
        raise _fail("scenario", "name", "missing or not a string")
    if "turns" in sc and not (_is_int(sc["turns"]) and sc["turns"] > 0):
        raise _fail("scenario", "turns", f"{sc['turns']!r} is not a positive whole number")
    b = log["board"]
    if not isinstance(b, Mapping):
        raise _fail("top level", "board", "not an object")
    for key in ("width", "height"):
        v = b.get(key)
        if not (_is_int(v) and 1 <= v <= MAX_SIDE):
            raise _fail("board", key, f"{v!r} is not a whole number 1..{MAX_SIDE}")
    board = _Board(b["width"], b["height"])
    names = b.get("terrain_names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise _fail("board", "terrain_names", "missing or not a list of names")
    terrain = b.get("terrain")
    if not isinstance(terrain, list) or len(terrain) != board.n:
        got = len(terrain) if isinstance(terrain, list) else type(terrain).__name__
        raise _fail("board", "terrain", f"needs {board.n} codes (width x height), got {got}")
    for s, t in enumerate(terrain):
        if not (_is_int(t) and 0 <= t < len(names)):
            raise _fail("board", "terrain", f"square {s}: code {t!r} is not 0..{len(names) - 1}"
                        f" (terrain_names)")
    level = b.get("height_level")
    if level is not None and not (isinstance(level, list) and len(level) == board.n
                                  and all(_is_int(v) and 0 <= v < 100 for v in level)):
        raise _fail("board", "height_level", f"needs {board.n} whole numbers 0..99 (one per "
                    "square), or leave it out")
    objectives = b.get("objectives", [])
    if not isinstance(objectives, list):
        raise _fail("board", "objectives", "not a list of squares")
    for s in objectives:
        board.square("board", "objectives", s)
    deploy = b.get("deploy", [[], []])
    if not (isinstance(deploy, list) and len(deploy) == 2
            and all(isinstance(z, list) for z in deploy)):
        raise _fail("board", "deploy", "not two lists of squares (side A, side B)")
    for z in deploy:
        for s in z:
            board.square("board", "deploy", s)
    units = log["units"]
    if not isinstance(units, list) or not units:
        raise _fail("top level", "units", "missing or empty")
    by_id: dict[Any, dict] = {}
    for i, u in enumerate(units):
        where = f"unit {i}"
        if not isinstance(u, Mapping):
            raise _fail(where, "id", "the unit is not an object")
        uid = u.get("id")
        if not ((isinstance(uid, str) and uid) or _is_int(uid)):
            raise _fail(where, "id", f"{uid!r} is not a name or number")
        if uid in by_id:
            raise _fail(where, "id", f"{uid!r} is used twice")
        where = f"unit {uid!r}"
        if u.get("side") not in SIDES:
            raise _fail(where, "side", f"{u.get('side')!r} is not one of A, B")
        for key in ("name", "kind"):
            if not isinstance(u.get(key), str) or not u[key]:
                raise _fail(where, key, "missing or not a string")
        for key, low in (("models", 0), ("damage_track", 1)):  # a vehicle may count 0 models
            v = u.get(key)
            if v is not None and not (_is_int(v) and v >= low):
                raise _fail(where, key, f"{v!r} is not a whole number >= {low}")
        board.square(where, "square", u.get("square"), optional=True)
        f = u.get("facing")
        if f is not None and not (_is_int(f) and 0 <= f < 8):
            raise _fail(where, "facing", f"{f!r} is not 0..7")
        by_id[uid] = u
    policy = log["policy"]
    if not isinstance(policy, Mapping) or not all(isinstance(policy.get(s), str)
                                                  for s in SIDES):
        raise _fail("top level", "policy", "needs a policy name for A and for B")
    res = log["result"]
    if not isinstance(res, Mapping):
        raise _fail("top level", "result", "not an object")
    if res.get("winner") not in (*SIDES, "draw"):
        raise _fail("result", "winner", f"{res.get('winner')!r} is not one of A, B, draw")
    if not isinstance(res.get("won_by"), str):
        raise _fail("result", "won_by", "missing or not a string")
    vp = res.get("vp")
    if not (isinstance(vp, list) and len(vp) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vp)):
        raise _fail("result", "vp", f"{vp!r} is not [A's, B's] victory points")
    if not isinstance(log["events"], list):
        raise _fail("top level", "events", "not a list")
    return board, by_id


@dataclass(frozen=True)
class UnitState:
    """One unit after a step: where it stands, what is left of it, its tokens."""

    square: int | None
    facing: int | None
    models: int | None  # soldiers left (squads), else None
    track: int | None  # damage track left (single models: vehicles, heroes), else None
    tokens: tuple[str, ...] = ()
    destroyed: bool = False
    aboard: Any = None  # the vehicle it rides in (passengers, L522-530), whose square it has


def _initial(u: Mapping) -> UnitState:
    models = u.get("models")
    squad = models is not None and models > 1
    track = u.get("damage_track")
    return UnitState(u.get("square"), u.get("facing"), models if squad else None,
                     None if squad else track)


def _step(states: dict[Any, UnitState], objectives: dict[int, str | None], ev: Mapping,
          by_id: Mapping) -> dict[Any, UnitState]:
    """The unit states after one (checked) event; returns the units it changed."""
    action, uid = ev["action"], ev.get("unit")
    changed: dict[Any, UnitState] = {}
    if action in MOVES:
        st = states[uid]
        changed[uid] = replace(st, square=ev["to"],
                               facing=ev["facing"] if ev.get("facing") is not None
                               else st.facing)
        for v, sv in states.items():  # its passengers move with it (L522-530)
            if sv.aboard == uid and not sv.destroyed:
                changed[v] = replace(sv, square=ev["to"])
    elif action in ATTACKS:
        tid = ev["target"]
        t = states[tid]
        if ev.get("facing") is not None and uid in states:
            changed[uid] = replace(states[uid], facing=ev["facing"])
        cas, dmg = ev.get("casualties") or 0, ev.get("damage") or 0
        if t.models is not None and cas:
            t = replace(t, models=max(0, t.models - cas))
        elif t.track is not None and dmg:
            t = replace(t, track=max(0, t.track - dmg))
        if _token(ev):
            t = replace(t, tokens=_with_token(t.tokens, _token(ev)))
        changed[tid] = t
    elif action == "token":
        st = states[uid]
        if _token(ev):
            changed[uid] = replace(st, tokens=_with_token(st.tokens, _token(ev)))
    elif action == "token-removed":
        changed[uid] = replace(states[uid], tokens=_removed(states[uid].tokens, _token(ev)))
    elif action == "destroyed":
        changed[uid] = replace(states[uid], destroyed=True, tokens=())
    elif action == "exit":  # off the board through its exit edge
        changed[uid] = replace(states[uid], square=None)
    elif action == "special" and ev.get("special") == "reserve":  # fresh, off the board (L3102)
        changed[uid] = replace(_initial(by_id[uid]), square=None)
    elif action == "special" and ev.get("special") in ("heal", "wave-attack") and \
            ev.get("returned"):
        t = states[ev["target"]]  # Get Up / Medevac return soldiers or a point (L3741, L3593)
        n = int(ev["returned"])
        changed[ev["target"]] = (replace(t, models=t.models + n) if t.models is not None
                                 else replace(t, track=(t.track or 0) + n))
    elif action == "special" and ev.get("special") == "repair" and ev.get("repaired"):
        t = states[ev["target"]]  # Makeshift Repair returns damage points (L3763-3765)
        if t.track is not None:
            changed[ev["target"]] = replace(t, track=t.track + int(ev["repaired"]))
    elif action == "special" and ev.get("special") in ("airborne", "spy") and \
            ev.get("to") is not None:  # dropped anywhere (L3391), a Spy placed (L3657)
        changed[uid] = replace(states[uid], square=ev["to"])
    elif action == "special" and ev.get("special") == "airborne" and ev.get("to") is not None:
        changed[uid] = replace(states[uid], square=ev["to"])  # dropped anywhere (L3391)
    elif action == "special" and ev.get("special") == "embarked":  # aboard (L526)
        changed[uid] = replace(states[uid], aboard=ev.get("target"),
                               square=states[ev["target"]].square)
    elif action == "special" and ev.get("special") == "dismount" and ev.get("square") is not None:
        changed[uid] = replace(states[uid], square=ev["square"], aboard=None)  # off it (L528)
    elif action == "special" and ev.get("special") in ("psychic-scream", "area", "artillery",
                                                      "execute") and \
            ev.get("target") in states:  # an attack of its own on each unit struck
        t = states[ev["target"]]
        cas, dmg = ev.get("casualties") or 0, ev.get("damage") or 0
        if t.models is not None and cas:
            changed[ev["target"]] = replace(t, models=max(0, t.models - cas))
        elif t.track is not None and dmg:
            changed[ev["target"]] = replace(t, track=max(0, t.track - dmg))
    elif action == "special" and ev.get("special") == "placed" and ev.get("to") is not None:
        st = replace(states[uid], square=ev["to"], aboard=None)  # out of a wreck (L530)
        left = ev.get("left")  # what the bail-out roll left it (L530)
        if isinstance(left, int) and st.models is not None:
            st = replace(st, models=left)
        elif isinstance(left, int) and st.track is not None:
            st = replace(st, track=left)
        changed[uid] = replace(st, tokens=_with_token(st.tokens, _token(ev))) if _token(ev) else st
    elif action == "objective":
        sq = _objective_square(ev, list(objectives))
        if sq is None and uid is not None:
            sq = states[uid].square
        if sq in objectives:
            objectives[sq] = ev.get("side")
    elif ev.get("facing") is not None and uid is not None:
        changed[uid] = replace(states[uid], facing=ev["facing"])
    return changed


def _objective_square(ev: Mapping, objectives: list[int]) -> int | None:
    """The objective an ``objective`` event is about: ``to``, else its ``objective`` index."""
    if ev.get("to") is not None:
        return ev["to"]
    k = ev.get("objective")
    return objectives[k] if _is_int(k) and 0 <= k < len(objectives) else None


def _token(ev: Mapping) -> str | None:
    """The event's token; ``"none"`` or empty: no token."""
    tok = ev.get("token")
    return None if tok in (None, "", "none") else tok


def _removed(tokens: tuple[str, ...], token: str | None) -> tuple[str, ...]:
    """Tokens after a ``token-removed`` event naming ``token``: that token goes; a lower rung
    of the Under Fire ladder than the one held is what is left (Suppressed -> Under Fire,
    L741); no token named: every Under Fire ladder token goes."""
    held = [t for t in tokens if t in LADDER]
    if token is None:
        return tuple(t for t in tokens if t not in LADDER)
    if token in LADDER and held and LADDER.index(token) < LADDER.index(held[0]):
        return _with_token(tokens, token)
    return tuple(t for t in tokens if t != token)


def _with_token(tokens: tuple[str, ...], token: str) -> tuple[str, ...]:
    if token in LADDER:
        tokens = tuple(t for t in tokens if t not in LADDER)
    return tokens if token in tokens else (*tokens, token)


def _check_event(i: int, ev: Any, board: _Board, by_id: Mapping,
                 states: Mapping[Any, UnitState], board_objectives: tuple[int, ...],
                 zones: tuple[frozenset, frozenset]) -> None:
    if not isinstance(ev, Mapping):
        raise DustsimError(f"replay log: event {i}: not an object")
    action = ev.get("action")
    if action not in ACTIONS:
        raise _fail(f"event {i}", "action", f"{action!r} is not one of {', '.join(ACTIONS)}")
    where = f"event {i} ({action})"
    turn = ev.get("turn")
    if not (_is_int(turn) and turn >= 0):
        raise _fail(where, "turn", f"{turn!r} is not a whole number >= 0")
    side = ev.get("side")
    if side is not None and side not in SIDES:
        raise _fail(where, "side", f"{side!r} is not one of A, B")
    uid = ev.get("unit")
    if uid is not None and (not _is_id(uid) or uid not in by_id):
        raise _fail(where, "unit", f"{uid!r} is not among the log's units "
                    f"({', '.join(map(str, list(by_id)[:12]))})")
    if action in UNIT_ACTIONS and uid is None:
        raise _fail(where, "unit", "missing (this action is a unit's)")
    if action in ("initiative", "pass") and side is None:
        raise _fail(where, "side", "missing (whose initiative or pass)")
    for key in ("text", "weapon", "token"):
        if key in ev and ev[key] is not None and not isinstance(ev[key], str):
            raise _fail(where, key, f"{ev[key]!r} is not a string")
    for key in (*_INT_FIELDS, "range"):
        v = ev.get(key)
        if v is not None and not (_is_int(v) and v >= 0):
            raise _fail(where, key, f"{v!r} is not a whole number >= 0")
    f = ev.get("facing")
    if f is not None and not (_is_int(f) and 0 <= f < 8):
        raise _fail(where, "facing", f"{f!r} is not 0..7")
    if ev.get("los") is not None and ev["los"] not in LOS:
        raise _fail(where, "los", f"{ev['los']!r} is not one of clear, cover")
    if ev.get("cover") is not None and not isinstance(ev["cover"], bool):
        raise _fail(where, "cover", f"{ev['cover']!r} is not true or false")
    for key in ("dice", "save_dice"):
        if ev.get(key) is not None:
            _faces(where, key, ev[key])
    for key in ("from", "to"):
        board.square(where, key, ev.get(key), optional=True)
    st = states.get(uid)
    if st is not None and st.destroyed and action in UNIT_ACTIONS - {"close-combat"} and \
            ev.get("special") != "reserve":  # a destroyed unit goes into Reserve (L3102)
        # a close-combat retaliation is simultaneous with the blow that destroys (L765)
        raise _fail(where, "unit", f"{uid!r} was destroyed before this event")
    if action in MOVES:
        if "to" not in ev:
            raise _fail(where, "to", "missing (where the move ends; null: off the board)")
        to = ev["to"]
        start = ev.get("from", st.square)
        if "from" in ev and st.square is not None and ev["from"] != st.square:
            raise _fail(where, "from", f"{uid!r} stands on square {st.square}, not "
                        f"{ev['from']}")
        path = ev.get("path")
        if path is not None:
            if not isinstance(path, list):
                raise _fail(where, "path", "not a list of squares")
            for s in path:
                board.square(where, "path", s)
            walk = [start, *path] if start is not None else list(path)
            if path and to is not None and path[-1] != to:
                raise _fail(where, "path", f"ends on square {path[-1]}, not on 'to' {to}")
            for a, b in itertools.pairwise(walk):
                if a != b and not board.adjacent(a, b):
                    raise _fail(where, "path", f"steps from square {a} to {b}, which are "
                                "not neighbours")
    if action in MOVES and st.square is None and ev.get("to") is not None and zones:
        first = (ev.get("path") or [ev["to"]])[0]
        zone = zones[SIDES.index(by_id[uid]["side"])]
        size = by_id[uid].get("footprint") or 1
        # a Large or Huge vehicle enters with any of its squares on its zone (L285, L504-512:
        # a Huge one's anchor is its block's lowest square, a Large one's its front square)
        held = {q for f in range(8 if size == 2 else 1)
                for q in footprint_squares(board.width, board.height, size, first, f)}
        if zone and not held & zone:
            raise _fail(where, "path" if ev.get("path") else "to",
                        f"{uid!r} comes onto the board on square {first}, outside side "
                        f"{by_id[uid]['side']}'s deployment zone (board.deploy: [A's, B's])")
    if action in ATTACKS:
        tid = ev.get("target")
        if tid is None:
            raise _fail(where, "target", "missing (each weapon's target)")
        if not _is_id(tid) or tid not in by_id:
            raise _fail(where, "target", f"{tid!r} is not among the log's units")
        if uid is not None and by_id[tid]["side"] == by_id[uid]["side"] and \
                ev.get("rule") not in FRIENDLY_FIRE:
            raise _fail(where, "target", f"{tid!r} is on the attacker's own side")
        for who, key, sq in ((uid, "unit", "from"), (tid, "target", "to")):
            if states[who].square is None:
                raise _fail(where, key, f"{who!r} is not on the board")
            if ev.get(sq) is not None and ev[sq] != states[who].square:
                raise _fail(where, sq, f"square {ev[sq]}, but {who!r} stands on square "
                            f"{states[who].square}")
        hits, saves = ev.get("hits"), ev.get("saves")
        if hits is not None and saves is not None and saves > hits:
            raise _fail(where, "saves", f"{saves} saves for {hits} hits (one save die per hit)")
    if action == "objective":
        k = ev.get("objective")
        if k is not None and not (_is_int(k) and 0 <= k < len(board_objectives)):
            raise _fail(where, "objective", f"{k!r} is not an index into the board's "
                        f"{len(board_objectives)} objectives")
        if ev.get("to") is not None and ev["to"] not in board_objectives:
            raise _fail(where, "to", f"square {ev['to']} is not an objective of the board")
    if action == "exit" and ev.get("from") is not None and ev["from"] != st.square:
        raise _fail(where, "from", f"{uid!r} stands on square {st.square}, not {ev['from']}")
    if action == "destroyed" and st.destroyed:
        raise _fail(where, "unit", f"{uid!r} is destroyed twice")


def _fold(log: Mapping, *, check: bool) -> tuple[list[dict[Any, UnitState]],
                                                list[dict[int, str | None]]]:
    """Per event, the units it changed and the objective control after it."""
    board, by_id = _check_top(log)
    states = {uid: _initial(u) for uid, u in by_id.items()}
    listed = tuple(log["board"].get("objectives", []))
    objectives: dict[int, str | None] = {s: None for s in listed}
    deploy = log["board"].get("deploy", [[], []])
    zones = (frozenset(deploy[0]), frozenset(deploy[1]))
    changes, control = [], []
    for i, ev in enumerate(log["events"]):
        if check:
            _check_event(i, ev, board, by_id, states, listed, zones)
        ch = _step(states, objectives, ev, by_id)
        states.update(ch)
        changes.append(ch)
        control.append(dict(objectives))
    return changes, control


def validate_log(log: Any) -> None:
    """Raise :class:`DustsimError` (one line: event index and field) where ``log`` breaks the
    event-log contract or contradicts itself; return None when it holds."""
    _fold(plain_log(log), check=True)


def walk(log: Any) -> Iterator[tuple[int, dict, dict[Any, UnitState]]]:
    """Each event of a (checked) log with every unit's state just before it."""
    log = plain_log(log)
    changes, _ = _fold(log, check=True)
    states = {u["id"]: _initial(u) for u in log["units"]}
    for i, ev in enumerate(log["events"]):
        yield i, ev, states
        states = {**states, **changes[i]}


def unit_states(log: Mapping, step: int | None = None) -> dict[Any, UnitState]:
    """Each unit's state after the first ``step`` events (all of them when None; 0: the set-up)."""
    log = plain_log(log)
    changes, _ = _fold(log, check=True)
    states = {u["id"]: _initial(u) for u in log["units"]}
    for ch in changes[:len(changes) if step is None else step]:
        states.update(ch)
    return states


# -- words --------------------------------------------------------------------------------------
def unit_labels(log: Mapping) -> dict[Any, str]:
    """A readable name per unit, as the battle's own event texts name it
    (:func:`dustsim.play.battle.unit_labels_for`)."""
    units = log["units"]
    labels = unit_labels_for([u["name"] for u in units],
                             [0 if u["side"] == "A" else 1 for u in units])
    return {u["id"]: label for u, label in zip(units, labels, strict=True)}


def unit_codes(log: Mapping) -> dict[Any, str]:
    """Up to three letters per unit for its counter on the board (initials, numbered)."""
    out, used = {}, {}
    for u in log["units"]:
        words = [w for w in u["name"].replace("-", " ").split() if w[:1].isalnum()]
        base = ("".join(w[0] for w in words[:3]) if len(words) > 1
                else (words[0][:3] if words else "?")).upper()
        used[base] = used.get(base, 0) + 1
        out[u["id"]] = base
    count: dict[str, int] = {}
    for u in log["units"]:
        b = out[u["id"]]
        if used[b] > 1:
            count[b] = count.get(b, 0) + 1
            out[u["id"]] = f"{b[:2]}{count[b]}"
    return out


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def side_names(log: Mapping) -> dict[str, str | None]:
    """The lists' names by side where the log has them (``sides``), else None (a bare side
    letter is no name)."""
    sides = log.get("sides") if isinstance(log.get("sides"), Mapping) else {}
    return {s: sides.get(s) if isinstance(sides.get(s), str) and sides.get(s) != s else None
            for s in SIDES}


def result_text(result: Mapping, names: Mapping | None = None) -> str:
    """``Side A wins by objective (victory points 12 to 7).``, or with the lists' names
    ``Rangers (side A) wins by ...``."""
    vp = result.get("vp") or [0, 0]
    pts = f"victory points {_num(vp[0])} to {_num(vp[1])}"
    if result.get("winner") == "draw":
        return f"Draw ({pts})."
    w = result.get("winner")
    who = f"{names[w]} (side {w})" if names and names.get(w) else f"Side {w}"
    return f"{who} wins by {result.get('won_by')} ({pts})."


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def event_text(log: Mapping, i: int, labels: Mapping[Any, str] | None = None) -> str:
    """Event ``i`` in Dust player terms: its own ``text`` where given, else composed."""
    ev = log["events"][i]
    if ev.get("text"):
        return ev["text"]
    labels = labels or unit_labels(log)
    w = log["board"]["width"]
    action, side = ev["action"], ev.get("side")
    u = labels.get(ev.get("unit"), "")
    sq = lambda s: square_name(s, w)  # noqa: E731
    if action == "initiative":
        rolled = f" (rolled {''.join(f for g in _faces('', 'dice', ev['dice']) for f in g)})" \
            if ev.get("dice") else ""
        return f"Turn {ev['turn']}: side {side} wins the initiative{rolled}."
    if action == "activate":
        return f"{u} activates."
    if action in MOVES:
        verb = "moves" if action == "move" else "March Moves"
        path = ev.get("path")
        start = ev.get("from", path[0] if path else None)
        steps = len(path) if path else None
        if ev["to"] is None:
            text = f"{u} {verb} off the board" + (f" from {sq(start)}" if start is not None
                                                   else "")
        elif start == ev["to"] and all(s == start for s in path or ()):  # (L805, L508)
            text = f"{u} turns in place on {sq(ev['to'])}"
        else:
            dist = f" {_plural(steps, 'square')}" if steps else ""
            frm = f" from {sq(start)}" if start is not None else ""
            text = f"{u} {verb}{dist}{frm} to {sq(ev['to'])}"
        if ev.get("facing") is not None:
            text += f", facing {FACING_WORDS[ev['facing']]}"
        return text + "."
    if action in ATTACKS:
        t = labels.get(ev["target"], str(ev["target"]))
        weapon = f" with {ev['weapon']}" if ev.get("weapon") else ""
        rng = f" at range {ev['range']}" if ev.get("range") is not None else ""
        cover = " (target in cover)" if ev.get("cover") or ev.get("los") == "cover" else ""
        head = {"attack": f"{u} attacks {t}{weapon}{rng}{cover}",
                "sustained": f"{u} makes a Sustained Attack on {t}{weapon}{rng}{cover}",
                "reaction": f"{u} reacts: a reactive attack on {t}{weapon}{rng}{cover}",
                "close-combat": f"{u} fights {t} in close combat{weapon}"}[action]
        parts = []
        if ev.get("dice") is not None:
            groups = _faces("", "dice", ev["dice"])
            parts.append(_plural(len(groups[0]), "die", "dice") if groups else "no dice")
            if len(groups) > 1:
                parts.append(f"{sum(len(g) for g in groups[1:])} re-rolled")
        if ev.get("hits") is not None:
            parts.append(_plural(ev["hits"], "hit"))
        if ev.get("saves") is not None:
            parts.append(f"{ev['saves']} saved")
        if ev.get("damage") is not None:
            parts.append(f"{ev['damage']} damage")
        if ev.get("casualties"):
            parts.append(_plural(ev["casualties"], "soldier") + " killed")
        return head + (": " + ", ".join(parts) if parts else "") + "."
    if action == "nothing":
        return f"{u} takes a Nothing action."
    if action == "pass":
        return f"Side {side} passes."
    if action == "token":
        tok = _token(ev)
        if tok is None:
            return f"{u} takes no token."
        return f"{u} is {TOKEN_NAMES[tok]}." if tok in TOKEN_NAMES else \
            f"{u} receives a {tok} token."
    if action == "token-removed":
        tok = _token(ev)
        return f"{u} removes its {TOKEN_NAMES.get(tok, tok)} token." if tok else \
            f"{u} removes its Under Fire and Suppression tokens."
    if action == "destroyed":
        return f"{u} is destroyed."
    if action == "exit":
        frm = f" from {sq(ev['from'])}" if ev.get("from") is not None else ""
        return f"{u} leaves the board by its exit edge{frm}."
    if action == "objective":
        obj = _objective_square(ev, list(log["board"].get("objectives", [])))
        at = f" on {sq(obj)}" if obj is not None else ""
        by = f" ({u})" if u else ""
        return f"Side {side} controls the objective{at}{by}."
    if action == "end-turn":
        return f"End of turn {ev['turn']}."
    return "Game over: " + result_text(log["result"], side_names(log))


# -- the page -----------------------------------------------------------------------------------
def _json_for_script(data: Any) -> str:
    """JSON safe inside ``<script>`` (no ``</script>``, no HTML comment openers)."""
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _state_row(st: UnitState, size: int = 1, width: int = 0, height: int = 0) -> list:
    """The page's unit state: square, facing, models, track, tokens, destroyed, the
    squares a Large (2) or Huge (4) vehicle holds (``board.footprint_squares``; else []),
    and whether it rides aboard a vehicle (not drawn on the board then, L526-530)."""
    held = (footprint_squares(width, height, size, st.square, st.facing or 0)
            if size > 1 and st.square is not None else [])
    return [st.square, st.facing, st.models, st.track, list(st.tokens), st.destroyed, held,
            st.aboard is not None]


def page_data(log: Mapping) -> dict:
    """What the page's script reads: the log, each event's sentence, the unit-state changes
    per step (so the rules of the fold live here, once) and the labels."""
    log = plain_log(log)
    changes, control = _fold(log, check=True)
    labels, short = unit_labels(log), unit_codes(log)
    ids = [u["id"] for u in log["units"]]
    index = {uid: k for k, uid in enumerate(ids)}
    w, h = log["board"]["width"], log["board"]["height"]
    size = {u["id"]: int(u.get("footprint") or 1) for u in log["units"]}
    return {
        "log": log,
        "texts": [event_text(log, i, labels) for i in range(len(log["events"]))],
        "labels": [labels[uid] for uid in ids],
        "short": [short[uid] for uid in ids],
        "initial": [_state_row(_initial(u), size[u["id"]], w, h) for u in log["units"]],
        "changes": [[[index[uid], *_state_row(st, size[uid], w, h)] for uid, st in ch.items()]
                    for ch in changes],
        "control": [[[s, c] for s, c in ctl.items()] for ctl in control],
        "result": result_text(log["result"], side_names(log)),
        "terrain_style": [terrain_style(name)[:2] for name in log["board"]["terrain_names"]],
        "facing_words": list(FACING_WORDS),
        "squares": [square_name(s, log["board"]["width"])
                    for s in range(log["board"]["width"] * log["board"]["height"])],
    }


@functools.cache
def _template() -> Any:
    import jinja2  # the page is the only user

    env = jinja2.Environment(loader=jinja2.PackageLoader("dustsim.review", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True)
    return env.get_template("replay.html.j2")


def render_replay_html(log: dict) -> str:
    """One self-contained HTML page of the game (CSS and script inline, no network)."""
    data = page_data(log)
    log = data["log"]
    turns: list[dict] = []
    for i, ev in enumerate(log["events"]):
        if not turns or turns[-1]["turn"] != ev["turn"]:
            turns.append({"turn": ev["turn"], "events": []})
        turns[-1]["events"].append({"step": i + 1, "side": ev.get("side") or "",
                                    "action": ev["action"], "text": data["texts"][i]})
    sc = log["scenario"]
    title = " ".join(str(x) for x in (sc.get("number"), sc.get("name")) if x is not None)
    return _template().render(
        title=title, scenario=sc, log=log, turns=turns, result=data["result"],
        sides=side_names(log), data=_json_for_script(data),
        notes=[n for n in log.get("notes", []) if isinstance(n, str)])


# -- files --------------------------------------------------------------------------------------
def _json_text(log: Mapping) -> str:
    """The log as JSON: a top-level key a line, and one unit or event a line (diff- and
    grep-friendly)."""
    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)

    parts = []
    for key, value in log.items():
        if key in ("units", "events") and isinstance(value, list) and value:
            body = ",\n  ".join(one(v) for v in value)
            parts.append(f" {one(key)}: [\n  {body}\n ]")
        else:
            parts.append(f" {one(key)}: {one(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_replay(log: dict, path: str | Path, *, force: bool = False,
                 what: str = "--replay") -> Path:
    """Write ``log`` as the page (``.html``/``.htm``) or the event log (``.json``), checked
    first, atomically; an existing file is replaced only with ``force``."""
    from dustsim.io import atomic_write_text, check_output_file

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".json"):
        raise DustsimError(f"{what} {str(path)!r}: the name must end in .html (the page) or "
                           ".json (the event log)")
    check_output_file(path, force, what)
    log = plain_log(log)
    validate_log(log)
    text = render_replay_html(log) if suffix != ".json" else _json_text(log)
    atomic_write_text(path, text, force=force, what=what)
    return path


def read_replay(path: str | Path) -> dict:
    """A ``.json`` event log read back and checked (errors name the file)."""
    from dustsim.data.schema import read_input_text

    path = Path(path)
    text = read_input_text(path, what="replay log")  # a regular file within the cap
    try:
        log = json.loads(text)
    except (RecursionError, json.JSONDecodeError) as e:
        raise DustsimError(f"{path}: cannot read the replay log: {e}") from None
    try:
        validate_log(log)
    except DustsimError as e:
        raise DustsimError(f"{path}: {e}") from None
    return log


__all__ = ["ACTIONS", "FACING_STEPS", "TERRAIN_STYLE", "UnitState", "event_text", "page_data",
           "plain_log", "read_replay", "render_replay_html", "result_text", "square_name",
           "terrain_style", "unit_codes", "unit_labels", "unit_states", "validate_log", "walk",
           "write_replay"]
