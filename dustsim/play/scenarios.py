"""The fifteen Dust 1947 scenarios (101-115, seed 003 L2388-3055) as data, and their boards.

Each scenario is a TOML file in ``dustsim/play/scenario_data/`` (names, numbers and line
citations only; no rulebook prose): play area, which edges the sides face across, turn limit,
attacker/defender points and unit restrictions, reserves, terrain coverage per half with its
pieces and who places them, fixed features (``layout``), deployment, objectives, victory
conditions, victory-point scoring, variants and the ``decisions`` taken where the text is
silent or its symbols and maps were lost.

Terrain: each player places only on their own half (L2439), so the order of placing (by
initiative, alternating) does not change the board; the generator places each half's pieces
uniformly on its free squares, never on the row a side enters on, and draws again (same seed
stream) when a side could not reach the enemy, an objective or its exit.

Orientation: the attacker is side A (row 0 edge) and the defender side B (last row). A
scenario played across the short edges is 9 wide x 12 high, one across the long edges 12 x 9
(:mod:`dustsim.play.board`). Halves: the attacker's half is the rows below the centre line,
the defender's the rows above it; on a 9-row board row 4 is split by the line and belongs to
neither half for placing terrain or deploying.

Victory conditions are a closed vocabulary the battle kernel evaluates at the end of each turn
in file order (the first one met decides), then the ``game_end`` ones after the last turn:

``hold_objectives``
    ``side`` (attacker | defender | either) wins if it holds ``count`` ("all" or a number)
    objectives at the end of a turn ``>= from_turn`` (``at = "any_turn"``) or at the end of
    the game (``at = "game_end"``). A side holds an objective when one of its units stands on
    a square of the objective's area (``Board.objective_area``; L2443) and, where given, no
    enemy unit is within ``clear_range`` of any square of that area (0: not in it) and, if
    ``clear_building``, none is in the building that contains the objective.
``exit_edge``
    ``side`` wins once units worth ``fraction`` or more of its force's army points have left
    the board from its ``Board.exit_mask`` squares (checked at the end of each turn).
``annihilation``
    ``side`` wins once ``fraction`` or more of the enemy force's army points are destroyed
    (1.0: every unit); ``count_immobilized`` adds immobilized vehicles.
``vp_threshold``
    at the end of any turn, a side whose victory points reach ``fraction`` of the enemy
    force's army points wins; if both do, the one with more VP (equal: play on).
``victory_points``
    at the end of the game the side with more victory points wins; equal VP is a draw.
``default_winner``
    at the end of the game ``side`` wins (the scenario's "otherwise the Defender wins").
``draw``
    at the end of the game the result is a draw.

Victory points (``Scenario.scoring``): ``destroyed`` x the army points of enemy units
destroyed, ``immobilized`` and ``crippled`` x those of immobilized / main-weapon-destroyed
enemy vehicles (scenario 111), ``objective_held`` per objective held with no enemy within
``objective_clear_range`` at the end (103), ``unit_in_enemy_half`` per non-aircraft unit
ending in the enemy half (108), ``exited`` x the army points of own units that exited (114).
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from dustsim.data.names import did_you_mean, fold
from dustsim.errors import DustsimError
from dustsim.play import board as B

ROLES = ("attacker", "defender")

VICTORY_KINDS: dict[str, dict[str, Any]] = {
    "hold_objectives": {"side": "either", "count": "all", "from_turn": 1, "at": "any_turn",
                        "clear_range": -1, "clear_building": False},
    "exit_edge": {"side": "attacker", "fraction": 0.5},
    "annihilation": {"side": "defender", "fraction": 1.0, "count_immobilized": False},
    "vp_threshold": {"side": "either", "fraction": 0.5},
    "victory_points": {},
    "default_winner": {"side": "defender"},
    "draw": {},
}
SIDES = ("attacker", "defender", "either")
LAYOUTS = ("open", "centre_building", "fortification", "river_bridge", "cliff", "switchback",
           "mountain_pass", "sewers")
PIECES: dict[str, int] = {
    "trees": B.TREES, "small structure": B.SMALL_STRUCTURE, "tank traps": B.TANK_TRAPS,
    "ammo crates": B.AMMO_CRATES, "building": B.BUILDING, "road": B.ROAD,
}
DEPLOY_AREAS = ("own_edge", "own_half", "road_end", "pass_end", "hills", "entry_areas",
                "tunnels")
OBJECTIVE_KINDS = ("point", "building", "strongpoint", "bridge")
OBJECTIVE_WHERE = ("centre", "own_half", "in_building", "layout")
VARIANT_STATUS = ("board", "battle", "not modelled")


@dataclass(frozen=True)
class TerrainRule:
    """Terrain a player places on one half: ``coverage`` percent of the half (or ``count``
    pieces), chosen from ``pieces`` (L2439: each player places on their own portion)."""

    half: str
    pieces: tuple[str, ...]
    placed_by: str
    coverage: float = 0.0
    count: int = -1
    includes_fixed: bool = False
    lines: str = ""


@dataclass(frozen=True)
class Deployment:
    """How one role's units come onto the board (L2441): ``enter`` from squares off the
    board onto ``area`` with their first Move, or ``deploy`` on it before turn 1."""

    mode: str
    area: str
    exclude: str = ""
    exclude_range: int = 0
    include: str = ""
    exit: str = ""
    lines: str = ""


@dataclass(frozen=True)
class ObjectiveRule:
    """One objective: what it is (``kind``), who places it and where (L2443-2445)."""

    kind: str
    where: str
    placed_by: str
    min_edge_range: int = 0
    lines: str = ""


@dataclass(frozen=True)
class VictoryCondition:
    """One entry of the victory vocabulary (module docstring); ``params`` as (name, value)."""

    kind: str
    params: tuple[tuple[str, Any], ...]
    lines: str = ""

    def get(self, name: str) -> Any:
        """Parameter ``name`` (its vocabulary default when the file leaves it out)."""
        for k, v in self.params:
            if k == name:
                return v
        return VICTORY_KINDS[self.kind][name]

    def describe(self) -> str:
        """One line for listings."""
        args = ", ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.kind}({args})" if args else self.kind


@dataclass(frozen=True)
class Scoring:
    """Victory-point weights (module docstring); all 0 where the scenario scores nothing."""

    destroyed: float = 0.0
    immobilized: float = 0.0
    crippled: float = 0.0
    objective_held: float = 0.0
    objective_clear_range: int = -1
    unit_in_enemy_half: float = 0.0
    exited: float = 0.0
    lines: str = ""


@dataclass(frozen=True)
class Variant:
    """A printed variant: its effect, and whether the board builder (``board``), the battle
    (``battle``: reserves) or nothing (``not modelled``, with the reason) plays it."""

    name: str
    status: str
    lines: str
    note: str = ""
    attacker_reserve: int = -1
    defender_reserve: int = -1
    road_width: int = 0


@dataclass(frozen=True)
class Decision:
    """What the text leaves open and what was chosen, with the lines read."""

    topic: str
    lines: str
    decision: str


@dataclass(frozen=True)
class Points:
    """Force sizes as percentages of the base points (L2433), unit restrictions, reserves."""

    attacker: int
    defender: int
    attacker_units: str = "any"
    defender_units: str = "any"
    attacker_reserve: int = 0
    defender_reserve: int = 0
    lines: str = ""


@dataclass(frozen=True)
class Scenario:
    """One scenario as data (see the module docstring and the TOML files)."""

    number: int
    name: str
    lines: str
    play_area: tuple[int, int]
    edges: str
    turns: int
    layout: str
    points: Points
    terrain: tuple[TerrainRule, ...]
    deployment: tuple[Deployment, Deployment]
    objectives: tuple[ObjectiveRule, ...]
    victory: tuple[VictoryCondition, ...]
    scoring: Scoring
    variants: tuple[Variant, ...] = ()
    decisions: tuple[Decision, ...] = ()
    layout_params: tuple[tuple[str, Any], ...] = ()
    file: str = field(default="", compare=False)

    @property
    def width(self) -> int:
        """Board width: the sides face each other across the rows (module docstring)."""
        short, long_ = sorted(self.play_area)
        return short if self.edges == "short" else long_

    @property
    def height(self) -> int:
        short, long_ = sorted(self.play_area)
        return long_ if self.edges == "short" else short

    @property
    def roles(self) -> dict[str, int]:
        """Board side of each role: the attacker is side A (0, row-0 edge), the defender side
        B (1). Which army list plays which role is the battle's choice."""
        return {"attacker": 0, "defender": 1}

    @property
    def board_size(self) -> str:
        return f"{self.width} x {self.height}"

    def param(self, name: str, default: Any = None) -> Any:
        for k, v in self.layout_params:
            if k == name:
                return v
        return default

    def variant(self, name: str) -> Variant:
        """The variant called ``name`` (one-line error listing them otherwise)."""
        for v in self.variants:
            if fold(v.name) == fold(name):
                return v
        names = [v.name for v in self.variants]
        raise DustsimError(f"scenario {self.number} {self.name} has no variant {name!r} "
                           f"(variants: {', '.join(names) or 'none'})", field="variant")

    def with_variant(self, name: str | None) -> Scenario:
        """This scenario with variant ``name`` applied to its data (reserves); the board
        builder applies board variants itself."""
        if not name:
            return self
        v = self.variant(name)
        pts = self.points
        if v.attacker_reserve >= 0:
            pts = replace(pts, attacker_reserve=v.attacker_reserve)
        if v.defender_reserve >= 0:
            pts = replace(pts, defender_reserve=v.defender_reserve)
        return replace(self, points=pts)

    def summary(self) -> dict[str, Any]:
        """The row ``dustsim scenarios`` prints."""
        return {
            "number": self.number, "name": self.name, "board": self.board_size,
            "edges": self.edges, "turns": self.turns, "lines": self.lines,
            "points": {"attacker": self.points.attacker, "defender": self.points.defender,
                       "attacker_units": self.points.attacker_units,
                       "defender_units": self.points.defender_units,
                       "attacker_reserve": self.points.attacker_reserve,
                       "defender_reserve": self.points.defender_reserve},
            "objectives": [f"{o.kind} ({o.where}, placed by {o.placed_by})"
                           for o in self.objectives],
            "victory": [v.describe() for v in self.victory],
            "variants": [f"{v.name} [{v.status}]" for v in self.variants],
            "decisions": len(self.decisions),
        }


# --------------------------------------------------------------------------------------------
# Flat forms for the battle kernel

#: Codes of :func:`victory_array` column 0, in :data:`VICTORY_KINDS` order.
VC_HOLD, VC_EXIT, VC_ANNIHILATION, VC_VP_THRESHOLD, VC_VP, VC_DEFAULT, VC_DRAW = range(7)
#: Side codes (column 1): the attacker (board side A), the defender (side B), either.
SIDE_ATTACKER, SIDE_DEFENDER, SIDE_EITHER = 0, 1, 2
#: Columns of :func:`victory_array`.
VICTORY_COLUMNS = ("kind", "side", "count", "from_turn", "game_end", "clear_range",
                   "clear_building", "fraction", "count_immobilized")


def victory_array(scenario: Scenario) -> np.ndarray:
    """The victory conditions as ``float64[k, 9]``, one row per condition in file order,
    columns :data:`VICTORY_COLUMNS`: kind code (``VC_*``), side code (``SIDE_*``), count
    (-1: all objectives), first turn checked, 1 if checked only at the end of the game,
    clear range (-1: none), 1 if the objective's building must hold no enemy, fraction,
    1 if immobilized vehicles count as destroyed. Absent parameters take the vocabulary's
    defaults (module docstring)."""
    kinds = list(VICTORY_KINDS)
    out = np.zeros((len(scenario.victory), len(VICTORY_COLUMNS)), np.float64)
    for i, v in enumerate(scenario.victory):
        p = dict(VICTORY_KINDS[v.kind])
        p.update(v.params)
        side = p.get("side", "either")
        count = p.get("count", "all")
        end = v.kind in ("victory_points", "default_winner", "draw") or p.get("at") == "game_end"
        out[i] = (kinds.index(v.kind), SIDES.index(side), -1 if count == "all" else count,
                  p.get("from_turn", 1), float(end), p.get("clear_range", -1),
                  float(bool(p.get("clear_building", False))), p.get("fraction", 0.0),
                  float(bool(p.get("count_immobilized", False))))
    return out


#: Entries of :func:`scoring_array`.
SCORING_FIELDS = ("destroyed", "immobilized", "crippled", "objective_held",
                  "objective_clear_range", "unit_in_enemy_half", "exited")


def scoring_array(scenario: Scenario) -> np.ndarray:
    """The victory-point weights as ``float64[7]`` in :data:`SCORING_FIELDS` order."""
    return np.array([float(getattr(scenario.scoring, f)) for f in SCORING_FIELDS], np.float64)


# --------------------------------------------------------------------------------------------
# Loading and validation

def _check_keys(table: dict, allowed: set[str], where: str, file: str) -> None:
    for key in table:
        if key not in allowed:
            raise DustsimError(f"unknown key {key!r} in {where} (valid: "
                               f"{', '.join(sorted(allowed))})", file=file, field=key)


def _choice(value: Any, valid: tuple[str, ...], file: str, fld: str) -> str:
    if value not in valid:
        raise DustsimError(f"{value!r} is not one of {', '.join(valid)}", file=file, field=fld)
    return value


def _int(value: Any, file: str, fld: str, lo: int = 0, hi: int = 10_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise DustsimError(f"must be an integer from {lo} to {hi}, got {value!r}", file=file,
                           field=fld)
    return value


def _num(value: Any, file: str, fld: str, lo: float = 0.0, hi: float = 1e6) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise DustsimError(f"must be a number from {lo:g} to {hi:g}, got {value!r}",
                           file=file, field=fld)
    return float(value)


def _str(value: Any, file: str, fld: str) -> str:
    if not isinstance(value, str):
        raise DustsimError(f"must be a string, got {value!r}", file=file, field=fld)
    return value


def scenario_from_dict(data: dict, file: str = "<scenario>") -> Scenario:
    """Validate one parsed scenario file (unknown keys and bad values: one-line errors)."""
    top = {"number", "name", "lines", "play_area", "edges", "turns", "layout", "layout_params",
           "points", "terrain", "deployment", "objectives", "victory", "scoring", "variants",
           "decisions"}
    _check_keys(data, top, "the scenario", file)
    for key in ("number", "name", "lines", "play_area", "edges", "turns", "layout", "points",
                "deployment", "victory"):
        if key not in data:
            raise DustsimError("missing", file=file, field=key)
    pa = data["play_area"]
    if not (isinstance(pa, list) and len(pa) == 2):
        raise DustsimError("must be [squares, squares]", file=file, field="play_area")
    play_area = (_int(pa[0], file, "play_area", 1, B.MAX_SIDE),
                 _int(pa[1], file, "play_area", 1, B.MAX_SIDE))
    pts = data["points"]
    _check_keys(pts, {f.name for f in Points.__dataclass_fields__.values()}, "[points]", file)
    points = Points(
        attacker=_int(pts.get("attacker"), file, "points.attacker", 1, 1000),
        defender=_int(pts.get("defender"), file, "points.defender", 1, 1000),
        attacker_units=_choice(pts.get("attacker_units", "any"), ("any", "vehicles",
                               "infantry"), file, "points.attacker_units"),
        defender_units=_choice(pts.get("defender_units", "any"), ("any", "vehicles",
                               "infantry"), file, "points.defender_units"),
        attacker_reserve=_int(pts.get("attacker_reserve", 0), file, "points.attacker_reserve",
                              0, 20),
        defender_reserve=_int(pts.get("defender_reserve", 0), file, "points.defender_reserve",
                              0, 20),
        lines=_str(pts.get("lines", ""), file, "points.lines"))
    terrain = []
    for i, t in enumerate(data.get("terrain", [])):
        where = f"terrain[{i}]"
        _check_keys(t, {f.name for f in TerrainRule.__dataclass_fields__.values()}, where, file)
        pieces = tuple(t.get("pieces", ()))
        for p in pieces:
            if p not in PIECES:
                raise DustsimError(f"unknown piece {p!r} (valid: {', '.join(PIECES)})",
                                   file=file, field=f"{where}.pieces")
        terrain.append(TerrainRule(
            half=_choice(t.get("half"), ROLES, file, f"{where}.half"),
            pieces=pieces,
            placed_by=_choice(t.get("placed_by"), ROLES, file, f"{where}.placed_by"),
            coverage=_num(t.get("coverage", 0.0), file, f"{where}.coverage", 0, 100),
            count=_int(t.get("count", -1), file, f"{where}.count", -1, 100),
            includes_fixed=bool(t.get("includes_fixed", False)),
            lines=_str(t.get("lines", ""), file, f"{where}.lines")))
    dep = data["deployment"]
    _check_keys(dep, set(ROLES), "[deployment]", file)
    deployment = []
    for role in ROLES:
        d = dep.get(role)
        if d is None:
            raise DustsimError("missing", file=file, field=f"deployment.{role}")
        _check_keys(d, {f.name for f in Deployment.__dataclass_fields__.values()},
                    f"deployment.{role}", file)
        deployment.append(Deployment(
            mode=_choice(d.get("mode"), ("enter", "deploy"), file, f"deployment.{role}.mode"),
            area=_choice(d.get("area"), DEPLOY_AREAS, file, f"deployment.{role}.area"),
            exclude=_choice(d.get("exclude", ""), ("", "bridge"), file,
                            f"deployment.{role}.exclude"),
            exclude_range=_int(d.get("exclude_range", 0), file,
                               f"deployment.{role}.exclude_range", 0, 30),
            include=_choice(d.get("include", ""), ("", "bridge"), file,
                            f"deployment.{role}.include"),
            exit=_choice(d.get("exit", ""), ("", "enemy_edge", "pass_end"), file,
                         f"deployment.{role}.exit"),
            lines=_str(d.get("lines", ""), file, f"deployment.{role}.lines")))
    objectives = []
    for i, o in enumerate(data.get("objectives", [])):
        where = f"objectives[{i}]"
        _check_keys(o, {f.name for f in ObjectiveRule.__dataclass_fields__.values()}, where,
                    file)
        objectives.append(ObjectiveRule(
            kind=_choice(o.get("kind"), OBJECTIVE_KINDS, file, f"{where}.kind"),
            where=_choice(o.get("where"), OBJECTIVE_WHERE, file, f"{where}.where"),
            placed_by=_choice(o.get("placed_by"), (*ROLES, "scenario"), file,
                              f"{where}.placed_by"),
            min_edge_range=_int(o.get("min_edge_range", 0), file, f"{where}.min_edge_range",
                                0, 10),
            lines=_str(o.get("lines", ""), file, f"{where}.lines")))
    victory = []
    for i, v in enumerate(data["victory"]):
        where = f"victory[{i}]"
        kind = _choice(v.get("kind"), tuple(VICTORY_KINDS), file, f"{where}.kind")
        allowed = set(VICTORY_KINDS[kind]) | {"kind", "lines"}
        _check_keys(v, allowed, where, file)
        params = []
        for k in VICTORY_KINDS[kind]:
            if k not in v:
                continue
            val = v[k]
            if k == "side":
                _choice(val, SIDES, file, f"{where}.side")
            elif k == "at":
                _choice(val, ("any_turn", "game_end"), file, f"{where}.at")
            elif k == "count" and val != "all":
                _int(val, file, f"{where}.count", 1, 20)
            elif k in ("from_turn",):
                _int(val, file, f"{where}.{k}", 1, 100)
            elif k == "clear_range":
                _int(val, file, f"{where}.{k}", -1, 30)
            elif k == "fraction":
                _num(val, file, f"{where}.fraction", 0.0, 1.0)
            params.append((k, val))
        victory.append(VictoryCondition(kind, tuple(params),
                                        _str(v.get("lines", ""), file, f"{where}.lines")))
    sc = data.get("scoring", {})
    _check_keys(sc, {f.name for f in Scoring.__dataclass_fields__.values()}, "[scoring]", file)
    scoring = Scoring(**{k: (v if k == "lines" else
                             _int(v, file, f"scoring.{k}", -1, 30)
                             if k == "objective_clear_range" else
                             _num(v, file, f"scoring.{k}", 0, 1000)) for k, v in sc.items()})
    variants = []
    for i, v in enumerate(data.get("variants", [])):
        where = f"variants[{i}]"
        _check_keys(v, {f.name for f in Variant.__dataclass_fields__.values()}, where, file)
        variants.append(Variant(
            name=_str(v.get("name"), file, f"{where}.name"),
            status=_choice(v.get("status"), VARIANT_STATUS, file, f"{where}.status"),
            lines=_str(v.get("lines", ""), file, f"{where}.lines"),
            note=_str(v.get("note", ""), file, f"{where}.note"),
            attacker_reserve=_int(v.get("attacker_reserve", -1), file,
                                  f"{where}.attacker_reserve", -1, 20),
            defender_reserve=_int(v.get("defender_reserve", -1), file,
                                  f"{where}.defender_reserve", -1, 20),
            road_width=_int(v.get("road_width", 0), file, f"{where}.road_width", 0, 5)))
    decisions = []
    for i, d in enumerate(data.get("decisions", [])):
        where = f"decisions[{i}]"
        _check_keys(d, {"topic", "lines", "decision"}, where, file)
        decisions.append(Decision(_str(d.get("topic"), file, f"{where}.topic"),
                                  _str(d.get("lines"), file, f"{where}.lines"),
                                  _str(d.get("decision"), file, f"{where}.decision")))
    lp = data.get("layout_params", {})
    if not isinstance(lp, dict):
        raise DustsimError("must be a table", file=file, field="layout_params")
    return Scenario(
        number=_int(data["number"], file, "number", 1, 9999),
        name=_str(data["name"], file, "name"),
        lines=_str(data["lines"], file, "lines"),
        play_area=play_area,
        edges=_choice(data["edges"], ("short", "long"), file, "edges"),
        turns=_int(data["turns"], file, "turns", 1, 100),
        layout=_choice(data["layout"], LAYOUTS, file, "layout"),
        points=points, terrain=tuple(terrain), deployment=(deployment[0], deployment[1]),
        objectives=tuple(objectives), victory=tuple(victory), scoring=scoring,
        variants=tuple(variants), decisions=tuple(decisions),
        layout_params=tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                   for k, v in lp.items())),
        file=file)


def load_scenario(path: str | Path) -> Scenario:
    """One scenario TOML file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DustsimError(f"cannot read: {exc.strerror}", file=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise DustsimError(f"not valid TOML: {exc}", file=str(path)) from None
    return scenario_from_dict(data, path.name)


@functools.cache
def load_scenarios() -> tuple[Scenario, ...]:
    """The bundled scenarios, by number."""
    root = resources.files("dustsim.play.scenario_data")
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            out.append(scenario_from_dict(data, entry.name))
    return tuple(sorted(out, key=lambda s: s.number))


def find_scenario(name_or_number: str | int) -> Scenario:
    """A bundled scenario by number (``101``), name (``firefight``, accents and case
    ignored) or the unique name it begins (``fuel``); anything else is a one-line error
    with the closest names."""
    scenarios = load_scenarios()
    key = str(name_or_number).strip()
    folded = fold(key.replace("-", " ").replace("_", " "))
    for s in scenarios:
        if key == str(s.number) or folded in (fold(s.name), fold(f"{s.number} {s.name}")):
            return s
    prefix = [s for s in scenarios if folded and fold(s.name).startswith(folded)]
    if len(prefix) == 1:
        return prefix[0]
    names = [s.name for s in scenarios]
    raise DustsimError(f"no scenario {key!r}{did_you_mean(key, names)} (scenarios: "
                       f"{', '.join(f'{s.number} {s.name}' for s in scenarios)})",
                       field="scenario")


# --------------------------------------------------------------------------------------------
# The seeded board generator

class _Grid:
    """Mutable terrain under construction."""

    def __init__(self, width: int, height: int) -> None:
        self.w, self.h = width, height
        n = width * height
        self.terrain = np.zeros(n, np.int8)
        self.level = np.zeros(n, np.int8)
        self.facing = np.full(n, -1, np.int8)
        self.keep_clear = np.zeros(n, bool)
        self.cliffs: list[tuple[int, int]] = []
        self.cliff_climb = False
        self.bridge: list[int] = []
        self.fort: list[int] = []
        self.buildings: list[list[int]] = []
        self.entry: list[np.ndarray] = [np.zeros(n, bool), np.zeros(n, bool)]
        self.deploy_override: list[np.ndarray | None] = [None, None]
        self.exit_override: np.ndarray | None = None
        self.fixed_in_half = [0, 0]

    def sq(self, c: int, r: int) -> int:
        return r * self.w + c

    def half(self, role: int) -> np.ndarray:
        """Squares of the attacker's (0) or defender's (1) half (module docstring)."""
        rows = np.arange(self.w * self.h) // self.w
        if role == 0:
            return rows < self.h // 2
        return rows >= (self.h + 1) // 2

    def free(self) -> np.ndarray:
        return (self.terrain == B.OPEN) & ~self.keep_clear


def _edge_range(w: int, h: int, s: int) -> int:
    """Range from square ``s`` to the nearest board edge: the squares between them (a
    square on the edge is at range 0). Decision, see 103.toml."""
    c, r = s % w, s // w
    return min(c, r, w - 1 - c, h - 1 - r)


def _layout(g: _Grid, sc: Scenario, rng: np.random.Generator, variant: Variant | None) -> None:
    w, h = g.w, g.h
    kind = sc.layout
    if kind == "centre_building":
        bw, bh = sc.param("building_size", (3, 2))
        c0, r0 = (w - bw) // 2, (h - bh) // 2
        squares = [g.sq(c, r) for r in range(r0, r0 + bh) for c in range(c0, c0 + bw)]
        for s in squares:
            g.terrain[s] = B.BUILDING
        # one opening facing each player's edge, in the middle of the wall (104.toml)
        g.terrain[g.sq(c0 + bw // 2, r0)] = B.BUILDING_OPENING
        g.terrain[g.sq(c0 + bw // 2, r0 + bh - 1)] = B.BUILDING_OPENING
        g.buildings.append(squares)
        _ring_clear(g, squares)
    elif kind == "fortification":
        piece = sc.param("piece", "strongpoint")
        half = g.half(1)
        rows = sorted({s // w for s in np.flatnonzero(half)})
        r = rows[(len(rows) - 1) // 2]
        c = (w - 2) // 2 + (w % 2)  # the 1 x 2 interior, side by side (L3128)
        squares = [g.sq(c, r), g.sq(c + 1, r)]
        code = B.BUNKER if piece == "bunker" else B.STRONGPOINT
        for s in squares:
            g.terrain[s] = code
            if code == B.BUNKER:
                g.facing[s] = 4  # facing the attacker's edge (row 0)
        g.fort = squares
        g.fixed_in_half[1] += len(squares)
        _ring_clear(g, squares)
    elif kind == "river_bridge":
        r1 = h // 2 - 1
        bw = sc.param("bridge_width", 2)
        c0 = (w - bw) // 2 + (w % 2 and bw % 2 == 0)
        for r in (r1, r1 + 1):
            for c in range(w):
                s = g.sq(c, r)
                if c0 <= c < c0 + bw:
                    g.terrain[s] = B.BRIDGE
                    g.bridge.append(s)
                else:
                    g.terrain[s] = B.WATER
                g.keep_clear[s] = True
        _ring_clear(g, g.bridge)
    elif kind == "cliff":
        lo, hi = sc.param("levels", (1, 3))
        g.level[g.half(0) | ~g.half(1)] = lo
        g.level[g.half(1)] = hi
        top = (h + 1) // 2
        for c in range(w):
            for dc in (-1, 0, 1):
                if 0 <= c + dc < w:
                    g.cliffs.append((g.sq(c, top - 1), g.sq(c + dc, top)))
        g.cliff_climb = True
    elif kind == "switchback":
        _switchback(g)
    elif kind == "mountain_pass":
        pw = sc.param("pass_width", 3)
        c0 = (w - pw) // 2
        for s in range(w * h):
            c = s % w
            if c0 <= c < c0 + pw:
                g.level[s] = 0
                if c == c0 + pw // 2:
                    g.terrain[s] = B.ROAD
                    g.keep_clear[s] = True
            else:
                g.level[s] = sc.param("hill_level", 2)
        pass_mask = np.array([c0 <= s % w < c0 + pw for s in range(w * h)])
        rows = np.arange(w * h) // w
        g.deploy_override[0] = pass_mask & (rows == 0)
        g.exit_override = pass_mask & (rows == h - 1)
        cols = np.arange(w * h) % w
        hills = (cols < c0 - 1) | (cols >= c0 + pw + 1)  # at least range 1 from the pass
        g.deploy_override[1] = hills
    elif kind == "sewers":
        _sewers(g, rng)
    if variant is not None and variant.road_width:
        rw = variant.road_width
        c0 = (w - rw) // 2
        for s in range(w * h):
            if c0 <= s % w < c0 + rw:
                g.terrain[s] = B.ROAD
                g.keep_clear[s] = True


def _ring_clear(g: _Grid, squares: list[int]) -> None:
    """Keep the squares around a fixed feature open (its doors and approaches)."""
    for s in squares:
        g.keep_clear[s] = True
        c, r = s % g.w, s // g.w
        for dc in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if 0 <= c + dc < g.w and 0 <= r + dr < g.h:
                    g.keep_clear[g.sq(c + dc, r + dr)] = True


def _switchback(g: _Grid) -> None:
    """Scenario 113's road (its map is lost, L2870): a Range-1 road from the centre of row 0
    to the centre of the last row, running across the width on rows 1, 4, 7 and 10 and
    climbing at the ends; terraces at levels 1-5 separated by cliffs crossed only by the
    road (113.toml decisions)."""
    w, h = g.w, g.h
    mid = w // 2
    path: list[tuple[int, int]] = [(mid, 0), (mid, 1)]
    runs = [1, 4, 7, 10]
    right = True
    c = mid
    for k, r in enumerate(runs):
        end = w - 2 if right else 1
        if k == len(runs) - 1:
            end = mid  # the last run ends below the exit at the centre of the last row
        step = 1 if end > c else -1
        for cc in range(c + step, end + step, step):
            path.append((cc, r))
        c = end
        nxt = runs[k + 1] if k + 1 < len(runs) else None
        if nxt is None:
            break
        for rr in range(r + 1, nxt + 1):
            path.append((c, rr))
        right = not right
    path.append((mid, h - 1))
    road = []
    for cc, rr in dict.fromkeys(path):
        s = g.sq(cc, rr)
        g.terrain[s] = B.ROAD
        g.keep_clear[s] = True
        road.append(s)
    bands = [(0, 1), (2, 4), (5, 7), (8, 10), (11, 11)]  # levels 1..5
    for lvl, (r0, r1) in enumerate(bands, start=1):
        for r in range(r0, r1 + 1):
            for cc in range(w):
                g.level[g.sq(cc, r)] = lvl
    road_set = set(road)
    n = w * h
    for s in range(n):
        c0, r0 = s % w, s // w
        for dc, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
            cc, rr = c0 + dc, r0 + dr
            if 0 <= cc < w and 0 <= rr < h:
                t = g.sq(cc, rr)
                if g.level[s] != g.level[t] and not (s in road_set and t in road_set):
                    g.cliffs.append((s, t))
    g.deploy_override[0] = np.zeros(n, bool)
    g.deploy_override[0][g.sq(mid, 0)] = True
    g.deploy_override[1] = np.zeros(n, bool)
    g.deploy_override[1][g.sq(mid, h - 1)] = True


def _sewers(g: _Grid, rng: np.random.Generator) -> None:
    """Scenario 115 (L3040): two Range 2 x Range 2 entry areas, the rest a maze of Range-1
    tunnels with loops and dead ends; a randomised depth-first maze on the even squares plus
    ``extra`` walls knocked through for loops (115.toml decisions)."""
    w, h = g.w, g.h
    n = w * h
    g.terrain[:] = B.SOLID
    cells = [(c, r) for r in range(0, h, 2) for c in range(0, w, 2)]
    for c, r in cells:
        g.terrain[g.sq(c, r)] = B.OPEN
    start = cells[int(rng.integers(len(cells)))]
    seen = {start}
    stack = [start]
    walls: list[tuple[int, int]] = []
    while stack:
        c, r = stack[-1]
        options = [(c + dc, r + dr) for dc, dr in ((2, 0), (-2, 0), (0, 2), (0, -2))
                   if 0 <= c + dc < w and 0 <= r + dr < h and (c + dc, r + dr) not in seen]
        if not options:
            stack.pop()
            continue
        nc, nr = options[int(rng.integers(len(options)))]
        g.terrain[g.sq((c + nc) // 2, (r + nr) // 2)] = B.OPEN
        seen.add((nc, nr))
        stack.append((nc, nr))
    for c, r in cells:
        for dc, dr in ((2, 0), (0, 2)):
            if c + dc < w and r + dr < h:
                s = g.sq(c + dc // 2, r + dr // 2)
                if g.terrain[s] == B.SOLID:
                    walls.append((c + dc // 2, r + dr // 2))
    for k in rng.permutation(len(walls))[:4]:  # four loops
        g.terrain[g.sq(*walls[k])] = B.OPEN
    entry = np.zeros(n, bool)
    for c0, r0 in ((0, 0), (w - 2, h - 2)):
        for c in (c0, c0 + 1):
            for r in (r0, r0 + 1):
                s = g.sq(c, r)
                g.terrain[s] = B.OPEN
                entry[s] = True
    g.keep_clear |= entry
    g.deploy_override[0] = entry
    g.deploy_override[1] = (g.terrain == B.OPEN) & ~entry


def _place_terrain(g: _Grid, sc: Scenario, rng: np.random.Generator) -> None:
    """Each player's pieces on their half (L2439), uniformly on free squares; not on the
    row a side enters on (so that it can enter)."""
    rows = np.arange(g.w * g.h) // g.w
    for rule in sc.terrain:
        role = ROLES.index(rule.half)
        half = g.half(role)
        if sc.layout == "sewers":
            half = np.ones(g.w * g.h, bool)
        if rule.count >= 0:
            quota = rule.count
        else:
            # a half is half the board (54 squares, also on 9 rows) less its water
            land = g.w * g.h / 2 - int((half & (g.terrain == B.WATER)).sum())
            quota = round(rule.coverage / 100.0 * land)
            if rule.includes_fixed:
                quota -= g.fixed_in_half[role]
        allowed = half.copy()
        for r, dep in enumerate(sc.deployment):
            if dep.mode == "enter" and dep.area == "own_edge":
                allowed &= rows != (0 if r == 0 else g.h - 1)
        if sc.layout == "sewers":
            allowed &= _far_from(g, g.deploy_override[0], 2)
        pieces = list(rule.pieces)
        if "road" in pieces:
            quota -= _place_road(g, role, rng, allowed)
            pieces.remove("road")
        if "building" in pieces:
            pieces.remove("building")
            quota = _place_buildings(g, rng, allowed, quota, keep_small=bool(pieces))
        if not pieces:
            continue
        for _ in range(max(quota, 0)):
            free = np.flatnonzero(g.free() & allowed)
            if free.size == 0:
                break
            s = int(free[rng.integers(free.size)])
            g.terrain[s] = PIECES[pieces[int(rng.integers(len(pieces)))]]


def _far_from(g: _Grid, mask: np.ndarray, rng_min: int) -> np.ndarray:
    src = np.flatnonzero(mask)
    out = np.ones(g.w * g.h, bool)
    for s in range(g.w * g.h):
        if any(B._distance(g.w, s, int(t)) < rng_min for t in src):
            out[s] = False
    return out


def _place_road(g: _Grid, role: int, rng: np.random.Generator, allowed: np.ndarray) -> int:
    """A straight Range-1 road from the player's edge to the centre line (107.toml)."""
    c = int(rng.integers(1, g.w - 1))
    rows = range(0, g.h // 2) if role == 0 else range((g.h + 1) // 2, g.h)
    placed = 0
    for r in rows:
        s = g.sq(c, r)
        if g.terrain[s] == B.OPEN:
            g.terrain[s] = B.ROAD
            g.keep_clear[s] = True
            placed += 1
    return placed


def _place_buildings(g: _Grid, rng: np.random.Generator, allowed: np.ndarray, quota: int,
                     keep_small: bool) -> int:
    """Rectangular buildings (3 x 2, 2 x 3 or 2 x 2 squares, one opening each) until less
    than 4 squares of the quota are left, or 2-3 when other pieces share the quota
    (107.toml, 109.toml decisions). Returns the quota left."""
    left = quota
    tries = 0
    while left >= 4 and tries < 200:
        tries += 1
        sizes = [(3, 2), (2, 3), (2, 2)] if left >= 6 else [(2, 2)]
        bw, bh = sizes[int(rng.integers(len(sizes)))]
        c0 = int(rng.integers(0, g.w - bw + 1))
        r0 = int(rng.integers(0, g.h - bh + 1))
        squares = [g.sq(c, r) for r in range(r0, r0 + bh) for c in range(c0, c0 + bw)]
        if not all(allowed[s] and g.terrain[s] == B.OPEN and not g.keep_clear[s]
                   for s in squares):
            continue
        # no other building touching (a one-square gap keeps buildings apart)
        ring = _ring(g, squares)
        if any(g.terrain[s] in (B.BUILDING, B.BUILDING_OPENING) for s in ring):
            continue
        for s in squares:
            g.terrain[s] = B.BUILDING
        # the opening: a wall square facing open ground, chosen at random
        walls = [s for s in squares if any(t in ring and g.terrain[t] == B.OPEN
                                           for t in _orth(g, s))]
        opening = walls[int(rng.integers(len(walls)))]
        g.terrain[opening] = B.BUILDING_OPENING
        for t in _orth(g, opening):
            if t in ring:
                g.keep_clear[t] = True
        g.buildings.append(squares)
        left -= len(squares)
        if keep_small and left < 6:
            break
    return left


def _orth(g: _Grid, s: int) -> list[int]:
    c, r = s % g.w, s // g.w
    return [g.sq(c + dc, r + dr) for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= c + dc < g.w and 0 <= r + dr < g.h]


def _ring(g: _Grid, squares: list[int]) -> set[int]:
    inside = set(squares)
    out: set[int] = set()
    for s in squares:
        c, r = s % g.w, s // g.w
        for dc in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if 0 <= c + dc < g.w and 0 <= r + dr < g.h:
                    t = g.sq(c + dc, r + dr)
                    if t not in inside:
                        out.add(t)
    return out


def _place_objectives(g: _Grid, sc: Scenario, rng: np.random.Generator
                      ) -> tuple[list[int], np.ndarray]:
    n = g.w * g.h
    area = np.full(n, -1, np.int16)
    squares: list[int] = []
    bid = B._components(g.w, g.h, [int(t) for t in g.terrain],
                        frozenset({B.BUILDING, B.BUILDING_OPENING}))
    for k, o in enumerate(sc.objectives):
        edge_ok = np.array([_edge_range(g.w, g.h, s) >= o.min_edge_range for s in range(n)])
        if o.kind == "bridge":
            cells = g.bridge
            sq = cells[0]
        elif o.kind == "strongpoint":
            cells = g.fort
            sq = cells[0]
        elif o.kind == "building" and o.where == "layout":
            cells = g.buildings[0]
            sq = cells[len(cells) // 2]
        elif o.where == "centre":
            sq = g.sq(g.w // 2, g.h // 2)
            cells = [sq]
        else:
            role = ROLES.index(o.placed_by) if o.placed_by in ROLES else 0
            mask = g.half(role) & edge_ok
            if o.where == "in_building":
                mask &= np.isin(g.terrain, (B.BUILDING, B.BUILDING_OPENING))
            else:
                mask &= g.terrain == B.OPEN
            mask[squares] = False
            pool = np.flatnonzero(mask)
            if pool.size == 0:
                raise _Retry
            sq = int(pool[rng.integers(pool.size)])
            cells = [sq]
            if o.kind == "building":
                cells = [s for s in range(n) if bid[s] == bid[sq]]
        squares.append(int(sq))
        for s in cells:
            area[s] = k
        g.keep_clear[sq] = True
    return squares, area


class _Retry(Exception):
    """The draw made an unplayable board; draw again."""


def _deploy_masks(g: _Grid, sc: Scenario) -> tuple[np.ndarray, list[bool], np.ndarray,
                                                   tuple[int, int]]:
    n = g.w * g.h
    rows = np.arange(n) // g.w
    deploy = np.zeros((2, n), bool)
    enters = [True, True]
    exit_mask = np.zeros((2, n), bool)
    exit_edge = [B.EDGE_NONE, B.EDGE_NONE]
    for role, d in enumerate(sc.deployment):
        enters[role] = d.mode == "enter"
        if g.deploy_override[role] is not None and d.area in ("road_end", "pass_end", "hills",
                                                              "entry_areas", "tunnels"):
            m = g.deploy_override[role].copy()
        elif d.area == "own_edge":
            m = rows == (0 if role == 0 else g.h - 1)
        elif d.area == "own_half":
            m = g.half(role).copy()
        else:
            raise DustsimError(f"deployment area {d.area!r} needs the matching layout",
                               file=sc.file, field=f"deployment.{ROLES[role]}.area")
        if d.exclude == "bridge" and g.bridge:
            m &= _far_from(g, np.isin(np.arange(n), g.bridge), d.exclude_range + 1)
        if d.include == "bridge":
            m[g.bridge] = True
        deploy[role] = m & (g.terrain != B.WATER) & (g.terrain != B.SOLID) & (
            g.terrain != B.SMALL_STRUCTURE)
        if d.exit == "enemy_edge":
            exit_mask[role] = rows == (g.h - 1 if role == 0 else 0)
            exit_edge[role] = B.EDGE_ROW_LAST if role == 0 else B.EDGE_ROW0
        elif d.exit == "pass_end":
            exit_mask[role] = g.exit_override
            exit_edge[role] = B.EDGE_ROW_LAST if role == 0 else B.EDGE_ROW0
    return deploy, enters, exit_mask, (exit_edge[0], exit_edge[1])


def _playable(board: B.Board, sc: Scenario) -> bool:
    """Every side can reach the enemy's area and every objective on foot, and, where
    vehicles may be fielded and no cliff stands between, with tracks too."""
    classes = [B.FOOT]
    if (sc.layout not in ("cliff", "sewers") and "infantry" not in
            (sc.points.attacker_units, sc.points.defender_units)):
        classes.append(B.TRACKED)
    targets = [np.flatnonzero(board.objective_area == k) for k in range(len(board.objectives))]
    for cls in classes:
        for role in (0, 1):
            src = [s for s in np.flatnonzero(board.deploy[role])
                   if board.move_cost[s, cls] < B.IMPASSABLE]
            if not src:
                return False
            seen = B.reachable(board, cls, src)
            other = board.deploy[1 - role]
            if not (seen & other).any():
                return False
            if cls == B.FOOT and any(not seen[t].any() for t in targets):
                return False
            if board.exit_mask[role].any() and not (seen & board.exit_mask[role]).any():
                return False
    return True


@functools.lru_cache(maxsize=512)
def _build(sc: Scenario, seed: int, variant: str | None) -> B.Board:
    var = sc.variant(variant) if variant else None
    if var is not None and var.status == "not modelled":
        raise DustsimError(f"variant {var.name!r} of scenario {sc.number} is not modelled: "
                           f"{var.note}", field="variant")
    rng = np.random.default_rng([int(seed), sc.number])
    for _attempt in range(200):
        g = _Grid(sc.width, sc.height)
        _layout(g, sc, rng, var)
        try:
            # an objective the scenario puts in the centre is never covered by terrain
            if any(o.where == "centre" for o in sc.objectives):
                g.keep_clear[g.sq(g.w // 2, g.h // 2)] = True
            _place_terrain(g, sc, rng)
            objectives, area = _place_objectives(g, sc, rng)
        except _Retry:
            continue
        deploy, enters, exit_mask, exit_edge = _deploy_masks(g, sc)
        name = f"{sc.number} {sc.name}" + (f" ({var.name})" if var else "")
        board = B.make_board(name, g.w, g.h, g.terrain, g.level, fort_facing=g.facing,
                             deploy=deploy, objectives=objectives, objective_area=area,
                             exit_edge=exit_edge, exit_mask=exit_mask,
                             enters=(enters[0], enters[1]), cliffs=g.cliffs,
                             cliff_climb=g.cliff_climb)
        if _playable(board, sc):
            return board
    raise DustsimError(f"scenario {sc.number}: no playable board in 200 draws from seed "
                       f"{seed}")


def build_board(scenario: Scenario | str | int, seed: int = 0,
                variant: str | None = None) -> B.Board:
    """The board of ``scenario`` for ``seed``: fixed features, then each player's terrain
    on their half, objectives and deployment areas, following the scenario's setup text
    (see its TOML decisions). Same scenario, seed and variant: the same Board (cached)."""
    sc = scenario if isinstance(scenario, Scenario) else find_scenario(scenario)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise DustsimError(f"seed must be a non-negative integer, got {seed!r}", field="seed")
    return _build(sc, int(seed), variant)


# --------------------------------------------------------------------------------------------
# User maps

MAP_LEGEND = B.MAP_LEGEND
_MAP_KEYS = {"name", "width", "height", "rows", "levels", "objectives", "deploy_a", "deploy_b",
             "enter_a", "enter_b", "exit_a", "exit_b", "bunker_facing", "cliffs",
             "cliff_climb"}


def board_from_toml(path: str | Path) -> B.Board:
    """A board drawn in a TOML file.

    ``width``, ``height``; ``rows``: ``height`` strings of ``width`` characters (see
    :data:`MAP_LEGEND`), the first string the last row (side B's edge) and the last string
    row 0 (side A's edge), as the board looks from side A; optional ``levels`` likewise with
    digits 0-9; ``objectives``: [[col, row], ...]; ``deploy_a``/``deploy_b``: squares (default:
    the side's edge row); ``enter_a``/``enter_b``: whether the side enters from off the board
    (default true); ``exit_a``/``exit_b``: "row 0", "last row", "column 0", "last column";
    ``bunker_facing``: [[col, row, facing 0-7], ...]; ``cliffs``: [[c1, r1, c2, r2], ...];
    ``cliff_climb``: bool. Unknown keys or squares off the board: one-line error naming the
    file and the field.
    """
    path = Path(path)
    file = str(path)
    from dustsim.data.schema import read_input_text

    text = read_input_text(path, what="map")  # a regular file within the cap (not /dev/zero)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DustsimError(f"not valid TOML: {exc}", file=file) from None
    _check_keys(data, _MAP_KEYS, "the map", file)
    for key in ("width", "height", "rows"):
        if key not in data:
            raise DustsimError("missing", file=file, field=key)
    w = _int(data["width"], file, "width", 1, B.MAX_SIDE)
    h = _int(data["height"], file, "height", 1, B.MAX_SIDE)
    n = w * h

    def grid(key: str, decode) -> np.ndarray:
        rows = data[key]
        if not isinstance(rows, list) or len(rows) != h:
            raise DustsimError(f"must be a list of {h} strings", file=file, field=key)
        out = np.zeros(n, np.int8)
        for i, line in enumerate(rows):
            r = h - 1 - i
            if not isinstance(line, str) or len(line) != w:
                raise DustsimError(f"row {r} must be a string of {w} characters",
                                   file=file, field=key)
            for c, ch in enumerate(line):
                out[r * w + c] = decode(ch, key, c, r)
        return out

    def terrain_char(ch, key, c, r):
        if ch not in MAP_LEGEND:
            legend = " ".join(f"{k}={B.TERRAIN_NAMES[v]}" for k, v in MAP_LEGEND.items())
            raise DustsimError(f"unknown character {ch!r} at column {c}, row {r} (legend: "
                               f"{legend})", file=file, field=key)
        return MAP_LEGEND[ch]

    def level_char(ch, key, c, r):
        if not ch.isdigit() or not ch.isascii():
            raise DustsimError(f"levels are digits 0-9, got {ch!r} at column {c}, row {r}",
                               file=file, field=key)
        return int(ch)

    def square(v, fld: str) -> int:
        if (not isinstance(v, list) or len(v) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
            raise DustsimError(f"a square is [col, row], got {v!r}", file=file, field=fld)
        c, r = v
        if not (0 <= c < w and 0 <= r < h):
            raise DustsimError(f"square [{c}, {r}] is off the {w} x {h} board", file=file,
                               field=fld)
        return r * w + c

    def squares(key: str) -> list[int]:
        v = data.get(key, [])
        if not isinstance(v, list):
            raise DustsimError("must be a list of [col, row]", file=file, field=key)
        return [square(x, key) for x in v]

    terrain = grid("rows", terrain_char)
    levels = grid("levels", level_char) if "levels" in data else None
    deploy = np.zeros((2, n), bool)
    for side, key in enumerate(("deploy_a", "deploy_b")):
        if key in data:
            deploy[side, squares(key)] = True
        else:
            deploy[side] = (np.arange(n) // w) == (0 if side == 0 else h - 1)
    edges = {name: code for code, name in enumerate(B.EDGE_NAMES)}
    exit_edge = []
    for key in ("exit_a", "exit_b"):
        v = data.get(key)
        if v is None:
            exit_edge.append(B.EDGE_NONE)
        elif v in edges:
            exit_edge.append(edges[v])
        else:
            raise DustsimError(f"{v!r} is not one of {', '.join(edges)}", file=file, field=key)
    facing = np.full(n, -1, np.int8)
    for v in data.get("bunker_facing", []):
        if not isinstance(v, list) or len(v) != 3:
            raise DustsimError(f"[col, row, facing] expected, got {v!r}", file=file,
                               field="bunker_facing")
        s = square(v[:2], "bunker_facing")
        _int(v[2], file, "bunker_facing", 0, 7)
        facing[s] = v[2]
    cliffs = []
    for v in data.get("cliffs", []):
        if not isinstance(v, list) or len(v) != 4:
            raise DustsimError(f"[c1, r1, c2, r2] expected, got {v!r}", file=file,
                               field="cliffs")
        a, b = square(v[:2], "cliffs"), square(v[2:], "cliffs")
        if B._chebyshev(w, a, b) != 1:
            raise DustsimError(f"cliff {v!r} is not between neighbouring squares", file=file,
                               field="cliffs")
        cliffs.append((a, b))
    enters = []
    for key in ("enter_a", "enter_b"):
        v = data.get(key, True)
        if not isinstance(v, bool):
            raise DustsimError(f"must be true or false, got {v!r}", file=file, field=key)
        enters.append(v)
    climb = data.get("cliff_climb", False)
    if not isinstance(climb, bool):
        raise DustsimError(f"must be true or false, got {climb!r}", file=file,
                           field="cliff_climb")
    name = data.get("name", path.stem)
    if not isinstance(name, str):
        raise DustsimError("must be a string", file=file, field="name")
    return B.make_board(name, w, h, terrain, levels, fort_facing=facing, deploy=deploy,
                        objectives=squares("objectives"), exit_edge=tuple(exit_edge),
                        enters=(enters[0], enters[1]), cliffs=cliffs, cliff_climb=climb)
