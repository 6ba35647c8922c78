"""Battles on the grid: two army lists played through a Dust 1947 scenario (board, roles,
objectives, victory conditions, turn limit), many times, in the battle kernel
(:mod:`dustsim.play.battle_kernel`).

``battle(list_a, list_b, scenario="101", trials=..., seed=..., policy=..., attacker=None)``
returns a :class:`BattleResult` (the shared result contract: ``summary()``, ``to_frame()``,
``se(name)``).

**What a game is.** A scenario's board (:func:`dustsim.play.scenarios.build_board`: the call
draws ``boards`` terrains, 4 by default, seeded; chunk *i* of 512 games plays board *i* mod
``boards``, so the figures average over terrain draws) with its deployment: units enter from
their edge with a Move in their first activation, or deploy in their zone before turn 1 (L2440).
Attacker and defender (the scenario's roles; the attacker takes the scenario's first zone,
objectives and exits are scored per role) are drawn per game, unless ``attacker`` fixes them.
The game ends at the scenario's turn limit, or earlier when a side is annihilated or a
sudden-death condition is met. **Scoring** as the rulebook does: the scenario's victory
conditions (objectives held at the end, units exited, annihilation), then victory points, the AP
of enemy units destroyed (L368), as the tie-break; equal VP is a draw. ``won_by`` gives the
share of games each side won by objective, annihilation, exit or victory points.

**What the battle plays** (kernel docstring): movement square by square with terrain costs,
line of sight from the board with vehicles as dynamic blockers, cover from terrain and
corners, each weapon's own target, initiative (the winner picks who activates first),
activations, two actions, reactive attacks, Under Fire and Suppression, close combat with
retaliation, limited ammunition and reload, set-up weapons, objectives and exits, Large and
Huge vehicles on two and four squares (:data:`FOOTPRINT`: the decisions, with their lines).
**Decisions / not played** (listed in every result's ``notes``): fire arcs (a vehicle turns
to its first target: it fires every line at targets it can see), artillery smoke shells,
barbed wire and minefield dice, height, weather, heroes moving
alone, transports; rules on the cards that battles do not play come from the skills table.

Seeding: one ``SeedSequence(seed)``; games are cut into fixed chunks (each its own child
stream, :func:`dustsim.engines.montecarlo.run_chunks`), so the same seed gives the same numbers
for any thread count. The logged game (``replay``) draws its faces from
``SeedSequence([seed, 1947])``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from dustsim import BATTLE_TRIALS
from dustsim.engines.aot import available as aot_available
from dustsim.engines.aot import entry
from dustsim.engines.montecarlo import mean_se, proportion
from dustsim.engines.results import ResultAPI
from dustsim.errors import DustsimError
from dustsim.play import duel as D
from dustsim.play.board import square_name
from dustsim.play.duel_layout import U_AIR
from dustsim.play.policies import DEFAULT_POLICY, Policy, get_policy

if TYPE_CHECKING:
    import pandas as pd

    from dustsim.play.board import Board

CHUNK = 512  # games per chunk: part of the stream definition (results depend on it)
MAX_TRIALS = 10_000_000
DEFAULT_SCENARIO = "101"
DEFAULT_BOARDS = 4  # terrain draws per call (chunk i plays board i mod 4)
SIDES = ("A", "B")
WON_BY = ("objective", "annihilation", "exit", "victory points", "draw", "default")
ACTIONS = ("initiative", "activate", "move", "march", "attack", "sustained", "reaction",
           "close-combat", "nothing", "pass", "token", "token-removed", "destroyed", "objective",
           "end-turn", "end", "exit", "special")
# A_SPECIAL events' L_X (BK.SP_*; the transports' codes from 20: battle_carry)
SPECIALS = ("", "camouflage", "smoke", "airborne", "psychic-scream", "area", "observe", "repair",
            "spy", "rally", "get-moving", "heal", "air-alert", "follow-me", "artillery",
            "execute", "ammo-drop", "stimulants", "stimulant-roll")
#: why a move or attack was taken (battle_kernel.WHY_*): said in the event's text
WHY = ("", "Scout: its first March Move of the game counts as one action (L3639-3641)",
       "At the Double: a free Move after its March Move (L3431-3433)",
       "Move and Fire: a free Move or Attack around its Sustained Attack or March Move "
       "(L3603-3605)",
       "Charge: a free close-combat Attack after its March Move (L3459-3461)",
       "Raid: its actions spent on Move + Attack + Move (BattleScribe Dust_1947.gst rule "
       "b24c-9323-2628-3003)",
       "Wire-guided: its one wire-guided weapon fired alone, misses re-rolled (L3343-3345)",
       "Artillery Observer: its artillery fired at a target the observer sees, the line of "
       "sight and cover from the observer's square (L3419-3425)",
       "Naval Unit: a free Attack right after its March Move (L3607-3609)",
       "First Strike: the joined hero's own close-combat attack, resolved and its casualties "
       "removed first (L3523-3525)")
TOKENS = ("none", "under-fire", "suppressed")
FACES = "PTS"
LOG_CAP = 20_000
#: Fire arcs on the board (L584-598): what is played and the decisions where the seeds leave
#: it open (kernel: ``_in_arc``, ``_arc_ok``, ``_edge_face``, ``_turn``; log checker:
#: :func:`dustsim.review.replay_rules.check_log_on_board`)
ARCS = (
    "fire arcs are played for vehicles (L584-598): each vehicle line has its card's mount "
    "(front, rear, left, right, turret; L393); front/rear hold the squares within 45 degrees "
    "either side of the facing line, the 45-degree diagonals included; left/right the half "
    "board to that side, not the squares straight ahead or behind (L592); a line fires only "
    "at a target with a square in its arc; infantry, heroes and turret lines fire all round "
    "(L586, L594); close-combat lines of a vehicle keep their mount's arc (L584 names no "
    "exception)",
    "aircraft and Huge vehicles fire all round: L393 gives the mount column to vehicles and "
    "the board plays no aircraft facing (they fly over all, L510-516), and a Huge vehicle "
    "rotates freely within its four squares (L508) before or after a move; passengers fire "
    "from aboard all round as before (L528's side arc is not played)",
    "facing: a one-square vehicle ends every Move or March Move facing an edge (L461, even "
    "facings): first towards the nearest enemy, then (policy face-best, after the Moves of "
    "the activation plans, Move and Fire and At the Double) the edge whose arc-restricted "
    "offence from its square is best (ties: the nearest-enemy edge); a March Move's facing "
    "at its midpoint reaction is the nearest-enemy edge; a Large vehicle faces along its "
    "body, the direction of its last step (L504), its lines' arcs from the square each is "
    "drawn from (L604); nothing turns without a Move (L598)",
    "targets: an Attack picks each line's best target in its arc where the unit stands "
    "(Sustained Attack, Attack + Move, Reload + Attack, reactions, free attacks); a square "
    "the unit moves to is scored with its facing free (it chooses its facing there, L461; "
    "a Large vehicle's facing follows its path, so its squares are overrated more), so "
    "Move + Attack plans may overrate a square",
    "reactions (L805): a two-success reaction of a one-square vehicle with a line that is "
    "not a turret's makes a Sustained Attack on the mover in its arcs as it faces, or a Move "
    "rotating in place to an edge (L461; the edge whose plain Attack on the mover is worth "
    "most) and an Attack, whichever the policy values more (the Sustained Attack at the "
    "policy's Sustained factor times its plain value; ties keep it); the rotation is a "
    "'move' event that stays on its square (its path that square alone, cost 0) with its "
    "new facing, and after it a Setup line fires as after any Move; infantry, turret-only "
    "and Huge vehicles keep the Sustained Attack (turning gains nothing), a Large vehicle "
    "too (it turns only "
    "by moving along its body, L504-508); the reacting unit is chosen by its lines' value on "
    "the mover in its arcs, or, where more, its best edge's value times the chance of two "
    "successes on its reactive dice",
)


def _arc_field(m: np.ndarray, w: int) -> dict:
    """``{"arc": "front" | "rear" | "left" | "right"}`` for line w of the compiled battle
    ``m`` where its fire arc is played (:data:`ARCS`), else nothing."""
    from dustsim.play import battle_kernel as BK

    arc = int(m[m[0, BK.H_WPN] + w, BK.W_ARC])
    return {"arc": ARC_NAMES[arc]} if arc != BK.ARC_ALL else {}


#: the kernel's arcs by code (battle_kernel.ARC_*), as the event log names them
ARC_NAMES = ("all", "front", "rear", "left", "right")
#: a card's mount -> the kernel's arc (battle_kernel.ARC_*, by name); others fire all round
_ARC_CODES = {"front": "ARC_FRONT", "front arc": "ARC_FRONT", "rear": "ARC_REAR",
              "left": "ARC_LEFT", "right": "ARC_RIGHT"}
DECISIONS = (
    *ARCS,
    "artillery smoke shells, barbed wire and minefield dice, height and weather are not "
    "played on the board",
    "tempo and smoke rules (play.battle_rules): one free action follows a March Move (a "
    "Charge / Move and Fire Attack when worth something, else At the Double's Move); "
    "aircraft see over smoke screens as over trees (L655)",
    "a diagonal step may not cut the corner of an impassable square or an enemy unit (the "
    "'moving around corners' figure, pp. 19-20, is lost)",
    "a Sniper names a joined hero one hit finishes, else a squad's officer soldier, else a "
    "special weapon's carrier (policy sniper-picks, L3317); a Spotter stands down when that "
    "gives the sniper more than its own weapons (policy spotter-weighs, L3323)",
    "in an exit scenario a unit leaves the board when it ends a Move on its exit edge",
    "close combat ignores cover (both sides roll against the open-ground saves)",
    "the improvised close-combat weapon (L767-787): one 1/1 die per soldier, only for a unit "
    "with no close-combat weapon on its cards (decision OPEN-21: rules.unit_rules)",
)


#: Large and Huge vehicles on the board (L285, L504-512, L604, L727): the decisions where the
#: seeds leave it open; named in the notes of a battle that has one (kernel: ``_fsq``,
#: ``_aim``, ``_rear``, ``_reach_huge``; Python reference :func:`dustsim.play.board.
#: footprint_squares`)
FOOTPRINT = (
    "Large/Huge footprint: a Large vehicle holds its front square and the square behind it, "
    "lying along an edge of the squares (units face an edge, L461); a Huge vehicle a 2 x 2 "
    "block (L285, L504); an aircraft's second square (L285) is not played: aircraft share "
    "squares with any unit and see and are seen by all (L511-516, L655), so it stays on one",
    "Large movement: the path of its front square (its leading edge, L504) searched as any "
    "vehicle's; the rear takes the square the front left on the final step (L504), so it "
    "ends facing along that step and turns only by moving (not in place to fire); after a "
    "diagonal final step the rear takes the square beside the step's corner in the front's "
    "column, else in its row (it keeps to the grid; the figure of L506-508 is lost)",
    "Huge movement: its block steps as one, every square a vehicle step (passable, no "
    "impassable corner cut, no enemy, no friendly vehicle, L463-465, L510); a diagonal step "
    "moves the block diagonally (L506-508); it rotates freely within its squares (L508)",
    "Large/Huge entering from a table edge (L2440): a Large vehicle's front enters on the "
    "edge row and may not end its move there (its rear would be off the board); a Huge "
    "block enters with its edge pair on the edge row for 2 squares of its move; deployed "
    "in a zone, all its squares lie in the zone, facing the enemy's zone",
    "Large/Huge range and sight (L580-582, L602-604): a Large vehicle's front and turret "
    "lines are drawn from its front square, its rear lines from its rear square, side lines "
    "from either (L604 names none); a Huge vehicle's from either of its two squares nearest "
    "the target (its front turned to it, L508, L604); to a Large/Huge target the line runs "
    "to its nearest square that is seen (clear before cover at equal range); its own "
    "squares block nothing for it; close combat reaches it from beside any of its squares",
    "Large/Huge cover (L727): in cover when one (Large) or two (Huge) of its squares are in "
    "cover from the attacker's square, a square it cannot see counting as in cover; its "
    "squares block sight as vehicle squares (L612) and all become wreck when it is destroyed "
    "(L486); it holds or contests an objective and reaches an exit edge with any square; "
    "blast weapons roll per miniature (L670, L674): its squares add no dice; like a walker "
    "it sees, and is seen, over Quonset huts (L3156-3158)",
)


# -- the scenario as the kernel reads it -----------------------------------------------------------
@dataclass(frozen=True)
class ScenarioSetup:
    """What the kernel needs from a scenario (built by :func:`scenario_setup`): its victory
    conditions (:func:`dustsim.play.scenarios.victory_array`), victory-point scoring
    (:func:`dustsim.play.scenarios.scoring_array`) and this call's board."""

    number: str
    name: str
    turns: int
    victory: np.ndarray
    scoring: np.ndarray
    board: Any
    conditions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    boards: tuple = ()  # every board of the call (board is the first)
    reserve: tuple[int, int] = (0, 0)  # Reserve [#] of the attacker, the defender (L3100-3104)

    @property
    def hints(self) -> int:
        """The policy's hints (kernel ``B_VC``): the scenario scores objectives / exits."""
        from dustsim.play import battle_kernel as BK
        from dustsim.play import scenarios as S

        kinds = {int(k) for k in self.victory[:, 0]}
        h = BK.VC_OBJECTIVES if (S.VC_HOLD in kinds or self.scoring[3] > 0) else 0
        return h | (BK.VC_EXIT if (S.VC_EXIT in kinds or self.scoring[6] > 0) else 0)


def board_seeds(seed: int, boards: int) -> list[int]:
    """The terrain seeds of a call's boards: ``seed`` itself, then children of
    ``SeedSequence([seed, k])``."""
    return [seed] + [int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
                     for k in range(1, boards)]


def scenario_setup(scenario: Any = DEFAULT_SCENARIO, seed: int = 0,
                   variant: str | None = None, boards: int = 1) -> ScenarioSetup:
    """The scenario (a name, a number or a :class:`dustsim.play.scenarios.Scenario`) and the
    ``boards`` boards of this call (terrain drawn by the scenario's generator, seeded by
    :func:`board_seeds`)."""
    from dustsim.play import battle_kernel as BK
    from dustsim.play import scenarios as S

    if isinstance(boards, bool) or not isinstance(boards, int) or not 1 <= boards <= 64:
        raise DustsimError(f"boards must be an integer from 1 to 64, got {boards!r}",
                           field="--boards")
    sc = scenario if isinstance(scenario, S.Scenario) else S.find_scenario(scenario)
    sc = sc.with_variant(variant)  # a reserve variant (L2890) changes its points
    all_boards = tuple(S.build_board(sc, bs, variant) if variant else S.build_board(sc, bs)
                       for bs in board_seeds(seed, boards))
    board = all_boards[0]
    victory = S.victory_array(sc)
    if victory.shape[0] > BK.MAX_VC:
        raise DustsimError(f"scenario {sc.number} has {victory.shape[0]} victory conditions; "
                           f"battles take at most {BK.MAX_VC}", field="--scenario")
    notes = []
    if sc.scoring.immobilized or sc.scoring.crippled:
        notes.append(f"scenario {sc.number}: victory points for immobilized or crippled "
                     "vehicles are not scored (critical hits are not played)")
    if sc.points.attacker != sc.points.defender:
        notes.append(f"scenario {sc.number}: the attacker's and defender's points "
                     f"({sc.points.attacker} % / {sc.points.defender} %) are not enforced: the "
                     "lists play as given")
    if any(v.kind == "hold_objectives" and v.get("clear_building") for v in sc.victory):
        notes.append(f"scenario {sc.number}: 'no enemy in the objective's building' is "
                     "played as no enemy on the objective's area")
    return ScenarioSetup(str(sc.number), sc.name, int(sc.turns), victory,
                         S.scoring_array(sc), board,
                         tuple(v.describe() for v in sc.victory), tuple(notes), all_boards,
                         (int(sc.points.attacker_reserve), int(sc.points.defender_reserve)))


# -- compilation -----------------------------------------------------------------------------------
_EV: dict = {}
_BOARD: dict = {}


def _line_ev(w, skills: frozenset, tg, rs) -> float:
    """Expected damage of one carrier of weapon ``w`` on target ``tg`` (exact engine, an
    Attack at full strength); 0 where the line cannot hurt it."""
    from dustsim.engines.exact import evaluate
    from dustsim.rules.attack import Situation, compile_attack

    key = (id(w), skills, tg, id(rs))
    hit = _EV.get(key)
    if hit is not None and hit[0] is w:
        return hit[1]
    single = replace(w, count=1, keywords=tuple(k for k in w.keywords if k != "wire-guided"))
    cell = single.cell(tg.column)
    val = 0.0
    if cell.usable:
        try:
            spec = compile_attack([(single, cell)], tg, Situation(
                action="attack", skills=skills, close_combat=single.close_combat), rs)
            val = float(evaluate(spec).damage.mean())
        except DustsimError:
            val = 0.0
    if len(_EV) > 200_000:
        _EV.clear()
    _EV[key] = (w, val)
    return val


def _kind_class(du) -> tuple[int, int]:
    """(kind code, movement class) of a unit on the board: the movement class is
    :func:`dustsim.rules.unit_rules.unit_rules`'s (the one home of Tracked, Wheeled,
    Half Tracked, Flying, Jump); a ground unit with the Flying skill (jetpacks) moves as the
    board's JUMP class (it ends only where infantry may stand, board.py)."""
    from dustsim.play import battle_kernel as BK
    from dustsim.play import board as B
    from dustsim.rules.unit_rules import unit_rules

    card = du.card
    cls = unit_rules(card, du.hero, du.pilot).movement
    if card.kind == "aircraft":
        return BK.KIND_AIR, B.FLYING
    if cls == B.FLYING:
        cls = B.JUMP
    return (BK.KIND_VEH if card.kind == "vehicle" else BK.KIND_INF), cls


def footprint(du) -> int:
    """Squares a unit occupies on the board: 2 for a Large vehicle, 4 for a Huge one, else 1
    (L285, L504-512; :attr:`dustsim.rules.unit_rules.UnitRules.squares`). Decision: an
    aircraft's second square (L285, L520) is not played: aircraft share squares with
    everything (L511-516) and see and are seen by all (L655), so only range to it would
    change; it stays one square."""
    from dustsim.rules.unit_rules import unit_rules

    if du.card.kind != "vehicle":
        return 1
    return unit_rules(du.card, du.hero, du.pilot).squares


def _board_matrix(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The board as the kernel reads it (``battle_kernel.bd_rows``), cached per board."""
    from dustsim.play import battle_kernel as BK
    from dustsim.play import board as B

    hit = _BOARD.get(id(board))
    if hit is not None and hit[0] is board:
        return hit[1]
    n = board.n
    R = BK.bd_rows(n)
    bd = np.full((R["rows"], n), 0, np.int32)  # int32: half the cache of int64 (issue 22)
    bd[:n] = board.dist
    bd[n:2 * n] = board.los
    bd[R["los_tall"]:R["los_tall"] + n] = board.los_tall  # walkers, Large/Huge (L3156-3158)
    bd[2 * n:9 * n] = 10_000
    objs = [int(o) for o in board.objectives]
    # path cost to each objective per movement class (reverse search from the objective)
    for cls in range(B.N_MOVE_CLASSES):
        mc = board.move_cost[:, cls].astype(int)
        for o in objs:
            cost = _path_costs(board, mc, o)
            bd[2 * n + cls * n: 3 * n + cls * n, o] = cost
    bd[R["terrain"]] = board.terrain
    for k in range(3):
        bd[R["cover0"] + k] = board.cover[:, k]
    for k in range(B.N_MOVE_CLASSES):
        bd[R["mc0"] + k] = board.move_cost[:, k]
    if (bd[R["mc0"]:R["mc0"] + B.N_MOVE_CLASSES] < 1).any():  # _reach expands no last level
        raise DustsimError("internal: a square costs less than 1 to enter")
    for d in range(8):
        bd[R["nb0"] + d] = board.neighbours[:, d]
    bd[R["deploy0"]] = board.deploy[0]
    bd[R["deploy1"]] = board.deploy[1]
    bd[R["objarea"]] = board.objective_area
    bd[R["exit0"]] = board.exit_mask[0]
    bd[R["exit1"]] = board.exit_mask[1]
    bd[R["wall"]] = board.wall_mask
    bd[R["inbuild"]] = board.in_building
    bd[R["misc"], :2] = board.enters
    bd[R["objectives"], : len(objs)] = objs
    # static steps per movement class and direction: the neighbour, or -1 where the step is
    # barred (impassable square, a wall, the corner of an impassable square for a diagonal)
    for cls in range(B.N_MOVE_CLASSES):
        bd[R["adj"] + cls * 8: R["adj"] + cls * 8 + 8] = _adjacency(
            board, board.move_cost[:, cls], cls == B.FLYING)
    for cls in range(B.N_MOVE_CLASSES):  # shortest paths with no unit on the board
        entry(BK.fill_static)(bd, n, cls, BK.QL - 2)
        entry(BK.fill_entry)(bd, n, cls, BK.QL - 2)
    _amphibious_tables(board, bd, objs)
    ls = np.array(board.line_start, np.int32)  # a writable copy: the AOT signature's type
    lq = np.stack([np.asarray(board.line_squares, np.int16),
                   np.asarray(board.line_corner, np.int16)], axis=1)
    if lq.shape[0] == 0:
        lq = np.zeros((1, 2), np.int16)
    out = (bd, ls, np.ascontiguousarray(lq))
    if len(_BOARD) > 64:
        _BOARD.clear()
    _BOARD[id(board)] = (board, out)
    return out


def _amphibious_tables(board: Board, bd: np.ndarray, objs: list[int]) -> None:
    """The amphibious vehicles' movement tables (:mod:`dustsim.play.battle_carry`, L3411-3413:
    water and swamp as open ground) per ground vehicle class, at ``bd_rows(n)["amph"]``: on a
    board with neither, copies of the class's own."""
    from dustsim.play import battle_carry as BC
    from dustsim.play import battle_kernel as BK
    from dustsim.play import board as B

    n = board.n
    wet = np.isin(board.terrain, (B.WATER, B.SWAMP))
    for cls in BC.AMPHIBIOUS_CLASSES:
        mc0, adj0, pc0, st0 = BC.table_rows(n, cls, False)
        mc, adj, pc, st = BC.table_rows(n, cls, True)
        if not wet.any():
            bd[mc] = bd[mc0]
            bd[adj: adj + 8] = bd[adj0: adj0 + 8]
            bd[pc: pc + n] = bd[pc0: pc0 + n]
            bd[st: st + 4 * n] = bd[st0: st0 + 4 * n]
            continue
        cost = board.move_cost[:, cls].astype(np.int64)
        cost[wet] = B._MOVE[B.OPEN][cls]  # as if it were open terrain (L3413)
        bd[mc] = cost
        bd[pc: pc + n] = 10_000
        for o in objs:
            bd[pc: pc + n, o] = _path_costs(board, cost, o)
        bd[adj: adj + 8] = _adjacency(board, cost, False)
        BK.fill_static_rows(bd, n, False, mc, adj, st, BK.QL - 2)


def _adjacency(board: Board, mc: np.ndarray, fly: bool) -> np.ndarray:
    """``int64[8, n]``: per direction the neighbour a unit with move costs ``mc`` may step to,
    -1 where barred (impassable, a wall, a diagonal past an impassable corner)."""
    from dustsim.play import board as B

    n = board.n
    nbr = board.neighbours
    out = np.full((8, n), -1, np.int64)
    for d in range(8):
        for s_ in range(n):
            t = int(nbr[s_, d])
            if t < 0:
                continue
            if not fly:
                if mc[t] >= B.IMPASSABLE or (int(board.wall_mask[s_]) >> d) & 1:
                    continue
                if d % 2 == 1:
                    a1, a2 = int(nbr[s_, (d + 7) % 8]), int(nbr[s_, (d + 1) % 8])
                    if min(a1, a2) < 0 or mc[a1] >= B.IMPASSABLE or mc[a2] >= B.IMPASSABLE:
                        continue
            out[d, s_] = t
    return out


def _path_costs(board: Board, mc: np.ndarray, target: int) -> np.ndarray:
    """Movement cost from every square to ``target`` (Dijkstra on the 8-neighbour grid, the
    cost of entering each square; a diagonal counts like an orthogonal step here: a strategic
    estimate, not a move)."""
    import heapq

    n = board.n
    cost = np.full(n, 10_000, np.int64)
    cost[target] = 0
    heap = [(0, target)]
    nb = board.neighbours
    while heap:
        c, s = heapq.heappop(heap)
        if c > cost[s]:
            continue
        enter = int(mc[s])
        if enter >= 99 and s != target:
            continue
        for d in range(8):
            t = int(nb[s, d])
            if t < 0 or mc[t] >= 99:
                continue
            nc = c + max(enter, 1)
            if nc < cost[t]:
                cost[t] = nc
                heapq.heappush(heap, (nc, t))
    return cost


@dataclass(frozen=True)
class BattleSpec:
    """Everything the kernel plays, with the names to read results back."""

    names: tuple[str, ...]
    sides: tuple[int, ...]
    ap: np.ndarray
    kinds: tuple[str, ...]
    classes: tuple[int, ...]
    m: np.ndarray
    f: np.ndarray
    bd: np.ndarray
    ls: np.ndarray
    lq: np.ndarray
    weapon_names: tuple[str, ...]
    weapon_units: tuple[int, ...]
    weapon_ranges: tuple[tuple[int, int], ...]
    setup: ScenarioSetup
    policy: Policy
    units: tuple = field(default=(), repr=False)
    notes: tuple[str, ...] = ()
    list_names: tuple[str, str] = ("A", "B")
    cards: tuple = field(default=(), repr=False)
    tables: tuple = field(default=(), repr=False)  # (bd, ls, lq, objectives) per board
    advantages: tuple = ()  # per unit: ((advantage, role), ...) its lists' platoons grant it


def compile_battle(units_a, units_b, setup: ScenarioSetup, policy: Policy,
                   attacker: int | None = None, options: dict | None = None,
                   list_names: tuple[str, str] = ("A", "B"),
                   grants: tuple[Sequence, Sequence] = ((), ()),
                   reserve_policy: str = "first") -> BattleSpec:
    """Compile two sides (:class:`dustsim.play.duel.DuelUnit` sequences) on a scenario;
    ``grants``: each side's platoon advantages (:class:`dustsim.play.battle_platoon.Grant`,
    unit indices within the side); ``reserve_policy``: what goes into the scenario's Reserve
    (:data:`dustsim.play.battle_reserve.POLICIES`)."""
    from dustsim.play import battle_carry as BC
    from dustsim.play import battle_kernel as BK
    from dustsim.play import battle_platoon as BP
    from dustsim.play import duel_kernel as K
    from dustsim.play.board import WALKER
    from dustsim.rules.rulesets import get_ruleset
    from dustsim.rules.unit_rules import improvised_weapons

    # Mounted Assault's extra close-combat line on its walkers (L1770; battle_platoon)
    units_a = [replace(u, cover=False) for u in BP.with_mounted_lines(units_a, grants[0])]
    units_b = [replace(u, cover=False) for u in BP.with_mounted_lines(units_b, grants[1])]
    spec = D.compile_duel(units_a, units_b, ruleset="dust-1947", distance=12,
                          turns=setup.turns, options=options, engine="board")
    # Dig In Girls!' Defensive Tactics, in cover only (L2201, L3497; battle_platoon)
    spec_c = D.compile_duel([replace(u, cover=True) for u in BP.with_dig_in(units_a, grants[0])],
                            [replace(u, cover=True) for u in BP.with_dig_in(units_b, grants[1])],
                            ruleset="dust-1947", distance=12, turns=setup.turns,
                            options=options, engine="board")
    all_units = [*units_a, *units_b]
    U = len(all_units)
    W = spec.weapons.shape[0]
    Wg = spec.groups.shape[0]
    board = setup.board
    n = board.n
    # blocks: units, weapons, (weapon, target), groups (4 variants), tspec, state, weapon
    # state, two results, unit facts, square scratch; transports (battle_carry)
    sizes = (U, W, Wg * U, Wg * U * 4, U, U, Wg, 1, 1, U, n, U)
    rows = BK.FIRST_BLOCK + sum(sizes)
    m = np.zeros((rows, K.NCOL), np.int64)
    m[0, K.H_U] = U
    m[0, K.H_W] = W
    r = BK.FIRST_BLOCK
    starts = []
    for s in sizes:
        starts.append(r)
        r += s
    (m[0, K.H_UNITS], m[0, K.H_WPN], m[0, K.H_WT], m[0, K.H_GROUPS], m[0, K.H_TSPEC],
     m[0, K.H_ST], m[0, K.H_WS], m[0, K.H_RES], m[0, K.H_RES2], m[0, BK.H_XU],
     m[0, BK.H_SCR]) = starts[:11]
    m[0, BC.H_CARRY] = starts[11]
    m[K.R_CFG, : spec.config.shape[0]] = spec.config
    m[starts[0]:starts[0] + U, : spec.units.shape[1]] = spec.units
    if W:
        m[starts[1]:starts[1] + W, : spec.weapons.shape[1]] = spec.weapons
    for w in range(Wg):
        for t in range(U):
            m[starts[2] + w * U + t, K.WT_DICE] = spec.gdice[w, t]
            m[starts[2] + w * U + t, K.WT_BLAST] = spec.gblast[w, t]
            for cov, sp in ((0, spec), (1, spec_c)):
                for v in range(2):
                    m[starts[3] + ((t * 2 + cov) * 2 + v) * Wg + w, : sp.groups.shape[3]] = \
                        sp.groups[w, t, v]
    for t in range(U):
        m[starts[4] + t, : spec.tspec.shape[1]] = spec.tspec[t]
        m[starts[4] + t, K.T_SUPP] = spec.tspec[t, 9]  # S_SUPP, the printed flag
    kinds, classes = [], []
    for u, du in enumerate(all_units):
        kind, cls = _kind_class(du)
        kinds.append(("infantry", "vehicle", "aircraft")[kind])
        classes.append(cls)
        x = starts[9] + u
        m[x, BK.X_CLASS] = cls
        m[x, BK.X_KIND] = kind
        m[x, BK.X_VEH] = int(kind == BK.KIND_VEH)
        m[x, BK.X_START] = spec.strength[u]
        m[x, BK.X_CAN_EXIT] = 1
        m[x, BK.X_FOOT] = footprint(du)
        # walkers and Large/Huge vehicles see, and are seen, over Quonset huts (L3156-3158)
        m[x, BK.X_TALL] = int(kind == BK.KIND_VEH and (cls == WALKER or footprint(du) > 1))
    # the configuration of the battle
    m[BK.R_B, BK.B_N] = n
    m[BK.R_B, BK.B_WIDTH] = board.width
    m[BK.R_B, BK.B_TURNS] = setup.turns
    m[BK.R_B, BK.B_ROLE] = -1 if attacker is None else attacker
    m[BK.R_B, BK.B_VC] = setup.hints
    m[BK.R_B, BK.B_NOBJ] = len(board.objectives)
    m[BK.R_B, BK.B_NVC] = setup.victory.shape[0]
    m[BK.R_B, BK.B_HEIGHT] = board.height
    m[BK.R_B, BK.B_SBASE] = -1  # no movement search yet (its costs: the scratch)
    # floats: policy row, unit AP, per (line, target) expected damage of one carrier
    f = np.zeros((BK.F_UNITS + U + max(W, 1) * U, BK.NF), float)
    f[0, : len(policy.row())] = policy.row()
    f[BK.F_SCORE, : setup.scoring.shape[0]] = setup.scoring
    f[BK.F_VC: BK.F_VC + setup.victory.shape[0], : setup.victory.shape[1]] = setup.victory
    ap = np.nan_to_num(spec.ap)
    f[BK.F_UNITS: BK.F_UNITS + U, 0] = ap
    rs = get_ruleset("dust-1947", **(options or {}))
    from dustsim.play.duel import _target

    targets_open = [_target(du, D.DEFAULT_POLICY)
                    for du in all_units]
    targets_cov = [_target(replace(du, cover=True), D.DEFAULT_POLICY) for du in all_units]
    wnames, wunits, wranges = [], [], []
    wl = []
    for u, du in enumerate(all_units):
        carriers = [(du.card, False)] + ([(du.hero, True)] if du.hero else [])
        for carrier, _is_hero in carriers:
            for w in carrier.weapons:
                if w.optional or w.count == 0:
                    continue
                rng = D._range(w)
                if rng is None:
                    continue
                kw = set(w.keywords)
                if ("limited-ammo" in kw or w.ammo is not None) and w.ammo is None:
                    continue
                wl.append((u, w, carrier))
        # the improvised close-combat weapon, as the duel compiler adds it (L767-787)
        wl.extend((u, w, carrier) for w, carrier, _h in improvised_weapons(du.card, du.hero))
    if len(wl) != W:  # the duel compiler's own list decides; keep names aligned with it
        raise DustsimError("internal: weapon lines out of step with the duel compiler")
    first: dict[int, int] = {}
    for i, (u, w, _carrier) in enumerate(wl):  # a Large vehicle's rear and side lines (L604)
        b = i - first.setdefault(u, i)
        mount = (w.mount or "").lower()
        if b < 31 and m[starts[9] + u, BK.X_FOOT] == 2:
            if mount == "rear":
                m[starts[9] + u, BK.X_MOUNT] |= 1 << b
            elif mount in ("left", "right", "side"):
                m[starts[9] + u, BK.X_MOUNT] |= 1 << (32 + b)
    for i, (u, w, _carrier) in enumerate(wl):  # fire arcs of vehicles' lines (ARCS, L584-598)
        arc = getattr(BK, _ARC_CODES.get((w.mount or "").lower(), "ARC_ALL"))
        if arc != BK.ARC_ALL and m[starts[9] + u, BK.X_KIND] == BK.KIND_VEH and \
                m[starts[9] + u, BK.X_FOOT] in (1, 2):
            m[starts[1] + i, BK.W_ARC] = arc
            m[starts[9] + u, BK.X_MOUNT] |= BK.ARCS_BIT
    for i, (u, w, carrier) in enumerate(wl):
        wnames.append(f"{w.name}" + (f" ({carrier.name})" if carrier is not all_units[u].card
                                     else ""))
        wunits.append(u)
        wranges.append((int(spec.weapons[i, K.W_RMIN]), int(min(spec.weapons[i, K.W_RMAX],
                                                               10_000))))
        skills = D.attacker_skills(carrier)
        scream = bool(spec.weapons[i, K.W_SCREAM])
        if spec.weapons[i, K.W_SCREAM] == 1:  # its saves compiled away (rules.attack); friends
            skills = skills | {"psychic scream"}  # valued too (the policy)
        swarm = D._mindless(all_units[u])  # BRAINSSSS! weighs harm to friends (L1634)
        for t in range(U):
            if (spec.sides[t] == spec.sides[u] and not scream and not swarm) or t == u or (
                    spec.gdice[i, t] + spec.gblast[i, t]) == 0:
                continue
            row = BK.F_UNITS + U + i * U + t
            f[row, 0] = _line_ev(w, skills, targets_open[t], rs)
            f[row, 1] = _line_ev(w, skills, targets_cov[t], rs)
    from dustsim.play.battle_rules import fill_rule_facts

    fill_rule_facts(m, all_units, wl)  # tempo, concealment, reaction, movement flags (issue 23)
    by_unit: list[list] = [[] for _ in all_units]  # platoon advantages (L950-958)
    num = 0
    for side_grants, off in ((grants[0], 0), (grants[1], len(units_a))):
        for g in side_grants:
            num += 1
            for i, role in g.roles:
                by_unit[off + i].append((num, g.advantage, role))
    BP.fill_advantage_facts(m, by_unit)
    for i, (_u, w, _c) in enumerate(wl):  # Mounted Assault's line: carriers set in play
        if w.name == BP.MOUNTED_NAME:
            m[starts[1] + i, BP.W_STAY_DOWN] = BP.MOUNTED_LINE
            m[starts[1] + i, K.W_CARRIERS] = 0
    from dustsim.play import battle_reserve as RS

    RS.fill_reserve_facts(m, setup.reserve, [RS.eligible(du.card, du.hero, du.pilot)
                                             for du in all_units], reserve_policy)
    # passengers aboard (L522-530), movement tables (amphibious: L3411-3413)
    BC.fill_carry_facts(m, all_units, len(units_a), n, classes)
    bd, ls, lq = _board_matrix(board)
    tables = []
    for b in setup.boards or (board,):
        if b.n != board.n or b.width != board.width:
            raise DustsimError("internal: a call's boards differ in size")
        tables.append((*_board_matrix(b), len(b.objectives)))
    notes = list(spec.notes) + list(DECISIONS) + list(setup.notes)
    notes += BP.notes(tuple(grants[0]) + tuple(grants[1]))
    notes += RS.notes(setup.reserve, reserve_policy)
    if BC.any_passengers(m):
        notes += BC.CARRY_NOTES
    if any(footprint(du) > 1 for du in all_units):
        notes += FOOTPRINT
    if any(not math.isfinite(a) for a in spec.ap):
        notes.append("a unit's AP is unknown: it scores 0 victory points")
    return BattleSpec(
        names=spec.names, sides=spec.sides, ap=np.asarray(spec.ap, float), kinds=tuple(kinds),
        classes=tuple(classes), m=m, f=f, bd=bd, ls=ls, lq=lq, weapon_names=tuple(wnames),
        weapon_units=tuple(wunits), weapon_ranges=tuple(wranges), setup=setup, policy=policy,
        units=tuple(all_units), notes=tuple(dict.fromkeys(notes)), list_names=list_names,
        tables=tuple(tables), advantages=tuple(tuple((a, r) for _n, a, r in x) for x in by_unit))


# -- running ---------------------------------------------------------------------------------------
def _chunk(args):
    from dustsim.engines.rng import state
    from dustsim.play import battle_kernel as BK

    seed_seq, n, spec = args
    rng = state(seed_seq)
    T = spec.setup.turns
    acc = np.zeros(24, float)
    curves = np.zeros((T + 1, 4), float)
    m = spec.m.copy()  # each chunk its own state (threads)
    # chunk i plays board i mod K: the same games for any thread count
    bd, ls, lq, nobj = spec.tables[seed_seq.spawn_key[-1] % len(spec.tables)]
    m[BK.R_B, BK.B_NOBJ] = nobj
    BK._run_battles(rng, n, m, spec.f, bd, ls, lq, acc, curves)
    return acc, curves


@dataclass(frozen=True)
class BattleResult(ResultAPI):
    """Outcome of list A against list B on a scenario over ``trials`` games (module
    docstring). ``p_a_wins``/``p_b_wins``: the side won by the scenario's conditions or, at the
    end, on victory points; ``p_draw``: equal victory points at the end (or both sides
    destroyed together)."""

    spec: BattleSpec
    trials: int
    seed: int
    acc: np.ndarray
    curves: np.ndarray

    def _p(self, i: int) -> tuple[float, float]:
        return proportion(self.acc[i], self.trials)

    def _mean(self, i: int) -> tuple[float, float]:
        return mean_se(self.acc[i], self.acc[i + 1], self.trials)

    @property
    def p_a_wins(self) -> float:
        return self._p(0)[0]

    @property
    def p_b_wins(self) -> float:
        return self._p(1)[0]

    @property
    def p_draw(self) -> float:
        return self._p(2)[0]

    def won_by(self) -> dict[str, dict[str, float]]:
        """Share of all games each side won by each condition."""
        return {s: {WON_BY[k]: float(self.acc[3 + i * 6 + k] / self.trials)
                    for k in (0, 1, 2, 3, 5)} for i, s in enumerate(SIDES)}

    def _figures(self) -> dict[str, tuple[float, float]]:
        d: dict[str, tuple[float, float]] = {}
        d["p_a_wins"], d["p_b_wins"], d["p_draw"] = self._p(0), self._p(1), self._p(2)
        for i, s in enumerate(("a", "b")):
            for k in (0, 1, 2, 3, 5):
                d[f"p_{s}_wins_by_{WON_BY[k].replace(' ', '_')}"] = self._p(3 + i * 6 + k)
        d["vp_a"] = self._mean(15)
        d["vp_b"] = self._mean(17)
        T = self.spec.setup.turns
        for i, s in enumerate(("a", "b")):
            d[f"ap_lost_{s}"] = mean_se(self.curves[T, 2 * i], self.curves[T, 2 * i + 1],
                                        self.trials)
        d["margin"] = mean_se(self.curves[T, 2] - self.curves[T, 0], self.acc[23], self.trials)
        d["mean_turns"] = (float(self.acc[19] / self.trials), float("nan"))
        d["p_a_attacker"] = self._p(20)
        na = self.acc[20]
        nb = self.trials - na
        d["p_attacker_wins"] = self._p(21)
        d["p_defender_wins"] = self._p(22)
        d["games_a_attacker"] = (float(na), 0.0)
        d["games_b_attacker"] = (float(nb), 0.0)
        return d

    def _standard_errors(self) -> dict[str, float]:
        """Every figure's standard error (NaN where the kernel keeps no sum of squares:
        ``mean_turns``; 0.0 for counts)."""
        return {"trials": 0.0, **{k: se for k, (_v, se) in self._figures().items()}}

    def curve(self) -> pd.DataFrame:
        """AP lost per side at the end of each turn (mean, standard error)."""
        import pandas as pd

        rows = []
        for k in range(self.curves.shape[0]):
            for i, s in enumerate(("a", "b")):
                m, se = mean_se(self.curves[k, 2 * i], self.curves[k, 2 * i + 1], self.trials)
                rows.append({"turn": k, "side": s, "ap_lost": m, "se": se})
        return pd.DataFrame(rows)

    def _frame_rows(self) -> list[dict]:
        return [{"quantity": "ap_lost_by_turn", "side": r["side"].upper(), "unit": "",
                 "k": int(r["turn"]), "value": r["ap_lost"], "se": r["se"]}
                for _, r in self.curve().iterrows()]

    @property
    def notes(self) -> tuple[str, ...]:
        return self.spec.notes

    def to_dict(self) -> dict:
        """Everything (what ``--json`` prints): the set-up, every figure and its standard
        error, won_by, the curve, the notes."""
        sp = self.spec
        d: dict = {"list_a": sp.list_names[0], "list_b": sp.list_names[1],
                   "scenario": f"{sp.setup.number} {sp.setup.name}",
                   "board": f"{sp.setup.board.width}x{sp.setup.board.height}",
                   "turns": sp.setup.turns, "boards": len(sp.tables),
                   "policy": sp.policy.name, "trials": self.trials, "seed": self.seed}
        figs = self._figures()
        d.update({k: v for k, (v, _se) in figs.items()})
        for k, (_v, se) in figs.items():
            d[f"se_{k}"] = None if math.isnan(se) else se  # None: not kept (mean_turns)
        d["won_by"] = self.won_by()
        d["curve"] = self.curve().to_dict(orient="records")
        d["notes"] = list(self.spec.notes)
        return d

    def __repr__(self) -> str:
        s = self.summary()
        return (f"BattleResult({s['list_a']!r} vs {s['list_b']!r} on {s['scenario']}: "
                f"A {s['p_a_wins']:.3f}, B {s['p_b_wins']:.3f}, draw {s['p_draw']:.3f}; "
                f"{self.trials:,} games, policy {s['policy']})")


def simulate_battle(spec: BattleSpec, trials: int = BATTLE_TRIALS, seed: int = 0, *,
                    threads: int | None = None, progress: bool = False) -> BattleResult:
    """Monte Carlo over ``trials`` games in fixed seeded chunks (the one runner,
    :func:`dustsim.engines.montecarlo.run_chunks`; the battle kernel sums its games)."""
    from dustsim.engines.montecarlo import run_chunks

    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
        raise DustsimError(f"trials must be an integer from 1 to {MAX_TRIALS:,}, got "
                           f"{trials!r}", field="--trials")
    if progress:  # someone watches a bar that would sit at 0 % while the kernel compiles
        from dustsim.engines.jit import compiles_first
        from dustsim.play import battle_kernel as BK

        if not aot_available() and compiles_first(BK._play_battles):
            import logging

            logging.getLogger("dustsim").warning(
                "dustsim: note: compiling the battle kernel (first run only: about a minute "
                "of CPU; cached for the next runs)")
    acc, curves = run_chunks(_chunk, spec, trials, seed, chunk=CHUNK, threads=threads,
                             progress=progress, desc="games", unit="game")
    return BattleResult(spec, trials, seed, acc, curves)


def _side_units(x, label: str):
    """A side's units: an army list (anything with ``units`` of list units and a ``name``:
    joined heroes, pilots, cover and a captured vehicle's surcharge as the list prices it;
    duck-typed, so that the play layer does not import the army layer), a side string as
    ``dustsim duel`` takes, or cards / DuelUnits."""
    if hasattr(x, "units") and hasattr(x, "name") and not isinstance(x, str):
        out = []
        for u in x.units:
            extra = 0.0
            if u.card.ap is not None and math.isfinite(u.card_ap):
                extra = float(u.card_ap) - float(u.card.ap)
            out.append(D.DuelUnit(u.card, hero=u.hero, cover=u.cover, pilot=u.pilot,
                                  extra_ap=extra, transport=getattr(u, "transport", -1)))
        return out, x.name
    if isinstance(x, str):
        from dustsim.data.cards import load_cards

        return list(D.parse_side(x, load_cards(), "dust-1947", field_name=label)), x
    return [u if isinstance(u, D.DuelUnit) else D.DuelUnit(u) for u in x], label


def prepare(list_a, list_b, *, scenario: Any = DEFAULT_SCENARIO, seed: int = 0,
            policy: str | Policy = DEFAULT_POLICY, attacker: str | None = None,
            turns: int | None = None, options: dict | None = None,
            boards: int = DEFAULT_BOARDS, variant: str | None = None,
            reserve_policy: str = "first") -> BattleSpec:
    """Compile a battle: lists (:class:`ArmyList`, a side string as ``dustsim duel`` takes,
    or DuelUnits), the scenario and its board (seeded), the policy, the attacker (``"A"``,
    ``"B"`` or None: drawn per game), ``turns`` (None: the scenario's limit), ``boards``
    (terrain draws of the scenario's generator; chunk *i* of the games plays board *i* mod
    ``boards``), ``variant`` (a printed variant of the scenario: a reserve, a board),
    ``reserve_policy`` (:data:`dustsim.play.battle_reserve.POLICIES`)."""
    if attacker not in (None, "A", "B", "a", "b"):
        raise DustsimError(f"attacker must be A, B or left out, got {attacker!r}",
                           field="--attacker")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise DustsimError(f"the seed must be an integer from 0 to 2**63-1, got {seed!r}",
                           field="--seed")
    pol = get_policy(policy)
    setup = scenario_setup(scenario, seed, variant, boards=boards)
    if turns is not None:
        if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= 100:
            raise DustsimError(f"--turns must be an integer from 1 to 100, got {turns!r}",
                               field="--turns")
        setup = replace(setup, turns=turns)
    ua, na = _side_units(list_a, "A")
    ub, nb_ = _side_units(list_b, "B")
    att = None if attacker is None else (0 if attacker.upper() == "A" else 1)
    grants = (tuple(getattr(list_a, "advantages", ()) or ()),
              tuple(getattr(list_b, "advantages", ()) or ()))
    fort = [any(g.advantage == "Vigilant" for g in gs) for gs in grants]
    if att is None and fort[0] != fort[1]:  # a Fortified Platoon always defends (L1949)
        att = 1 if fort[0] else 0
    try:
        spec = compile_battle(ua, ub, setup, pol, att, options, (na, nb_), grants,
                              reserve_policy)
    except DustsimError as exc:
        file = getattr(list_a, "file", None) or getattr(list_b, "file", None)
        raise DustsimError(exc.message, file=exc.file or file, unit=exc.unit,
                           field=exc.field) from None
    fortified = ()
    if attacker is None and fort[0] != fort[1]:
        fortified = (f"{(na, nb_)[0 if fort[0] else 1]} defends in every game: its Vigilant "
                     "platoon is a Fortified Platoon (L1947-1949)",)
    return replace(spec, notes=tuple(dict.fromkeys(spec.notes + fortified
                                                   + _unplayed(ua + ub))))


#: rules the skills table marks ``played`` (by the line engine's engagement kernel) that the
#: board's kernel does not play yet: a battle on the board names them in its notes
NOT_ON_BOARD = frozenset({
    "air traffic control",
})  # the tempo, concealment and reaction rules are played on the board (play.battle_rules)


def _unplayed(units) -> tuple[str, ...]:
    """Rules on the cards that battles on the board do not play: the skills table's
    (:func:`dustsim.rules.skills.unplayed_rules`), and the rules it marks played that only the
    line engine plays (:data:`NOT_ON_BOARD`)."""
    from dustsim.rules.skills import card_rules, unplayed_rules

    cards = []
    for u in units:
        cards += [c for c in (u.card, u.hero, u.pilot) if c is not None]
    out = [str(x) for x in unplayed_rules(cards, "board")]  # the board's gaps only
    extra: dict[str, list[str]] = {}
    for c in cards:
        for r in card_rules(c, fielded=True):
            name = r.name.lower()
            if r.status != "played":
                continue
            if name in NOT_ON_BOARD and not r.gap_in("board"):  # else the table names it
                names = extra.setdefault(f"{r.name} ({r.kind}) not played on the board "
                                         f"(the line engine plays it); {r.lines}", [])
                if c.name not in names:
                    names.append(c.name)
    out += [f"{k} -- {', '.join(v)}" for k, v in extra.items()]
    return tuple(out)


def battle(list_a, list_b, *, scenario: Any = DEFAULT_SCENARIO, trials: int = BATTLE_TRIALS,
           seed: int = 0, policy: str | Policy = DEFAULT_POLICY, attacker: str | None = None,
           turns: int | None = None, threads: int | None = None, options: dict | None = None,
           progress: bool = False, boards: int = DEFAULT_BOARDS, variant: str | None = None,
           reserve_policy: str = "first") -> BattleResult:
    """Play list A against list B on a scenario ``trials`` times (module docstring)."""
    spec = prepare(list_a, list_b, scenario=scenario, seed=seed, policy=policy,
                   attacker=attacker, turns=turns, options=options, boards=boards,
                   variant=variant, reserve_policy=reserve_policy)
    return simulate_battle(spec, trials, seed, threads=threads, progress=progress)


# -- the event log ---------------------------------------------------------------------------------
def _dice(r, faces) -> str:
    """The faces an event row ``r`` rolled (its ``L_D0:L_D1`` slice of ``faces``), as letters."""
    from dustsim.play import battle_kernel as BK

    return "".join(FACES[int(x)] for x in faces[r[BK.L_D0]: r[BK.L_D1]])


def event_log(spec: BattleSpec, seed: int = 0) -> dict:
    """One game with every event (the event log contract of TEAM.md): dice faces drawn from
    ``SeedSequence([seed, 1947])`` and read by the kernel as scripted dice, so each attack's
    faces are known."""
    from dustsim.engines.rng import state
    from dustsim.play import battle_kernel as BK
    from dustsim.play import battle_platoon as BP
    from dustsim.play import battle_rules as BR
    from dustsim.play.battle_carry import carry_rule_names
    from dustsim.play.battle_rules import aim_fields, line_roles, rule_names

    ss = np.random.SeedSequence([seed, 1947])
    g = np.random.Generator(np.random.PCG64(ss))
    faces = g.integers(0, 3, size=400_000).astype(np.uint8)
    rng = state(ss.spawn(1)[0])
    log = np.zeros((LOG_CAP, BK.NLOG), np.int64)
    plog = np.zeros(LOG_CAP * 4, np.int64)
    out = np.zeros(7, np.int64)
    vps = np.zeros(2, float)
    m = spec.m.copy()
    BK._run_logged(rng, faces, m, spec.f, spec.bd, spec.ls, spec.lq, log, plog, out, vps)
    board = spec.setup.board
    n_ev = int(out[0])
    units = []
    for u, name in enumerate(spec.names):
        du = spec.units[u]
        card = du.card
        units.append({
            "id": u, "side": SIDES[spec.sides[u]], "name": name, "kind": spec.kinds[u],
            "armour": card.armour, "models": int(spec.m[spec.m[0, 2] + u, 1]),
            "damage_track": card.damage_track, "ap": float(spec.ap[u]),
            "move_class": int(spec.classes[u]),
            # board-dependent rules it plays (battle_rules, battle_carry)
            "rules": rule_names(spec.m, u) + carry_rule_names(spec.m, u)
            + (["Helicopter"] if spec.kinds[u] == "aircraft"
               and spec.m[spec.m[0, 2] + u, U_AIR] == 0 else []),  # hovers (L3551-3553)
            "move": int(spec.m[spec.m[0, 2] + u, 4]), "march": int(spec.m[spec.m[0, 2] + u, 13]),
            "square": None, "facing": 0 if spec.sides[u] == 0 else 4,
            "weapons": [{"line": i, "name": spec.weapon_names[i],
                         "range": list(spec.weapon_ranges[i]), **line_roles(spec.m, i),
                         **_arc_field(spec.m, i)}
                        for i in range(len(spec.weapon_names)) if spec.weapon_units[i] == u],
        })
        size = int(spec.m[spec.m[0, BK.H_XU] + u, BK.X_FOOT])
        if size > 1:  # a Large/Huge vehicle: its moves carry all its squares (FOOTPRINT)
            units[-1]["footprint"] = size
        if u < len(spec.advantages) and spec.advantages[u]:  # platoon advantages (L950-958)
            units[-1]["advantages"] = list(dict.fromkeys(a for a, _r in spec.advantages[u]))
    w0 = {u: min([i for i in range(len(spec.weapon_units)) if spec.weapon_units[i] == u],
                 default=0) for u in range(len(spec.names))}
    names = unit_labels_for(spec.names, spec.sides)
    events = []
    tokens: dict[int, str] = {}  # unit -> its token as the events say (Implacable Advance)
    aboard: dict[int, int] = {}  # passenger -> its vehicle, as the events say (L526-530)
    for k in range(n_ev):
        r = log[k]
        a = ACTIONS[int(r[BK.L_ACTION])]
        ev: dict = {"turn": int(r[BK.L_TURN]),
                    "side": SIDES[int(r[BK.L_SIDE])] if 0 <= r[BK.L_SIDE] < 2 else None,
                    "unit": int(r[BK.L_UNIT]) if r[BK.L_UNIT] >= 0 else None, "action": a}
        u = ev["unit"]
        uname = names[u] if u is not None else ""
        if a in ("move", "march"):
            frm = int(r[BK.L_FROM])
            ev["from"] = frm if frm >= 0 else None
            ev["to"] = int(r[BK.L_TO])
            if r[BK.L_P0] >= 0:
                ev["path"] = [int(x) for x in plog[r[BK.L_P0]: r[BK.L_P0] + r[BK.L_PN]]]
                ev["cost"] = int(r[BK.L_X])
            if ev["turn"] == 0:
                ev["text"] = f"{uname} deploys on {square_name(ev['to'], board.width)}."
            elif frm == ev["to"]:  # a reaction's Move rotating in place (ARCS, L805)
                ev["path"], ev["cost"] = [frm], 0  # no step
                ev["facing"] = int(r[BK.L_RANGE])
                ev["text"] = (f"{uname} turns in place on {square_name(frm, board.width)} "
                              f"to facing {ev['facing']} (a reaction's Move, L805).")
            else:
                to = square_name(ev["to"], board.width)
                ev["text"] = (f"{uname} {'enters and ' if frm < 0 else ''}"
                              f"{'moves' if a == 'move' else 'marches'} to {to}.")
            if len(ev.get("path", [])) >= 2:
                p = ev["path"]
                from dustsim.play.battle_kernel import _face

                ev["facing"] = int(_face(board.width, p[-2], p[-1]))
                if spec.kinds[u] == "vehicle" and 0 <= r[BK.L_RANGE] < 8:
                    ev["facing"] = int(r[BK.L_RANGE])  # the edge it chose (ARCS, L461)
            size = units[u]["footprint"] if u is not None and "footprint" in units[u] else 1
            if size > 1:  # its facing and squares after the move (kernel: L_RANGE)
                from dustsim.play.board import footprint_squares

                ev["facing"] = int(r[BK.L_RANGE])
                ev["squares"] = footprint_squares(board.width, board.height, size, ev["to"],
                                                  ev["facing"])
            if 0 < r[BK.L_TARGET] < len(WHY):  # the rule it moved under (battle_rules)
                ev["rule"] = WHY[int(r[BK.L_TARGET])].split(":")[0]
                ev["text"] = ev["text"][:-1] + f" ({WHY[int(r[BK.L_TARGET])]})."
                _granted(ev, spec, u)
        elif a in ("attack", "sustained", "close-combat"):
            t = int(r[BK.L_TARGET])
            mask = int(r[BK.L_WMASK])
            lines = [w0[u] + i for i in range(63) if (mask >> i) & 1]
            ev.update({"from": int(r[BK.L_FROM]), "to": int(r[BK.L_TO]), "target": t,
                       "weapon": ", ".join(spec.weapon_names[i] for i in lines),
                       "weapons": lines, "range": int(r[BK.L_RANGE]),
                       "los": "cover" if r[BK.L_LOS] == 1 else "clear",
                       "cover": bool(r[BK.L_COVER]),
                       "dice": _dice(r, faces),
                       "hits": int(r[BK.L_HITS]), "saves": int(r[BK.L_SAVES]),
                       "damage": int(r[BK.L_DAMAGE]), "casualties": int(r[BK.L_CAS]),
                       "token": TOKENS[int(r[BK.L_TOKEN])]})
            if spec.kinds[u] == "vehicle" and 0 <= r[BK.L_FACE] < 8:
                ev["facing"] = int(r[BK.L_FACE])  # its facing as it fires (ARCS, L584-598)
            verb = {"attack": "attacks", "sustained": "makes a Sustained Attack on",
                    "close-combat": "attacks in close combat"}[a]
            ev["text"] = (f"{uname} {verb} {names[t]} at range {ev['range']} with "
                          f"{ev['weapon']}: "
                          f"{ev['hits']} hit{'s' if ev['hits'] != 1 else ''}, {ev['saves']} "
                          f"saved, {ev['damage']} damage.")
            if u in aboard:  # side-mounted fire from its transport (L528)
                ev["text"] = ev["text"].replace(f" at range {ev['range']}",
                                                f" from aboard the {names[aboard[u]]} at "
                                                f"range {ev['range']}", 1)
            if 0 < r[BK.L_X] < len(WHY):  # the rule it attacked under (battle_rules)
                ev["rule"] = WHY[int(r[BK.L_X])].split(":")[0]
                ev["text"] += f" ({WHY[int(r[BK.L_X])]})"
                _granted(ev, spec, u)
            elif int(r[BK.L_X]) in BR.WHY_TEXT:  # Inject Stimulants' upgrade (battle_rules)
                ev["rule"] = BR.WHY_TEXT[int(r[BK.L_X])].split(":")[0]
                ev["text"] += f" ({BR.WHY_TEXT[int(r[BK.L_X])]})"
            elif int(r[BK.L_X]) in BP.WHY:  # a platoon advantage's attack (battle_platoon)
                ev["rule"] = BP.WHY[int(r[BK.L_X])].split(":")[0]
                ev["advantage"] = ev["rule"]
                ev["text"] += f" ({BP.WHY[int(r[BK.L_X])]})"
            if r[BK.L_PN] > 0:  # a Sniper's named miniature, a Spotter's choice
                ev.update(aim_fields(int(r[BK.L_PN]), names[t], spec.weapon_names, ev))
            if r[BK.L_PN] > 0 and int(r[BK.L_PN]) & BP.DIG_LOG:  # battle_platoon
                ev["dig_in"] = True
                ev["text"] += (f" Dig In Girls!: {names[t]} near Tanya has the attack's "
                               "successful dice re-rolled, once per game (L2201).")
            if r[BK.L_X] == BK.WHY_OBSERVED:  # the observer (kept in the row's L_P0)
                ev["observer"] = int(r[BK.L_P0])
                ev["text"] = ev["text"].replace("the observer", names[ev["observer"]], 1)
        elif a == "reaction":
            t = int(r[BK.L_TARGET])
            ev.update({"from": int(r[BK.L_FROM]), "to": int(r[BK.L_TO]), "target": t,
                       "dice": _dice(r, faces),
                       "hits": int(r[BK.L_HITS])})
            ev["text"] = (f"{uname} reacts to {names[t]}: {ev['hits']} reactive "
                          f"success{'es' if ev['hits'] != 1 else ''}.")
        elif a in ("token", "token-removed"):
            ev["token"] = TOKENS[int(r[BK.L_TOKEN])]
            ev["square"] = int(r[BK.L_FROM])
            now = ev["token"].replace("-", " ")
            if a == "token-removed":  # its removal roll (L741): one step down, or none left
                ev["text"] = (f"{uname} loses its token." if ev["token"] == "none" else
                              f"{uname} shakes off its Suppression: now {now}.")
            else:
                ev["text"] = (f"{uname} loses its token." if ev["token"] == "none" else
                              f"{uname} is now {now}.")
            if a == "token" and r[BK.L_X] == BP.WHY_CALM:  # Primal Instinct (L1564)
                ev["advantage"] = "Primal Instinct"
                ev["text"] = (f"{uname} stays Under Fire, not Suppressed: no Suppression "
                              "during its Charge (platoon advantage: Primal Instinct, L1564).")
            if a == "token" and r[BK.L_X] == BP.WHY_TERROR:  # Inflect Terror (L1659)
                by = int(r[BK.L_TARGET])
                ev.update({"by": by, "by_advantage": "Inflect Terror"})
                ev["text"] = ev["text"][:-1] + (
                    f", terrified by {names[by]}'s attack (platoon advantage: Inflect Terror, "
                    "L1657-1659).")
        elif a == "destroyed":
            ev["square"] = int(r[BK.L_FROM])
            ev["text"] = f"{uname} is destroyed."
        elif a == "exit":
            ev["square"] = int(r[BK.L_FROM])
            ev["text"] = f"{uname} leaves the board."
        elif a == "activate":
            frm = int(r[BK.L_FROM])
            ev["square"] = frm if frm >= 0 else None
            ev["text"] = f"{uname} activates."
        elif a == "nothing":
            ev["text"] = f"{uname} holds its position."
        elif a == "special":
            ev.update(_special(r, uname, board.width, names, faces, board.terrain))
            if ev.get("special") in ("airborne", "camouflage"):
                _granted(ev, spec, u)
            if ev.get("special") == "embarked" and ev.get("target") is not None:
                aboard[u] = ev["target"]
            elif ev.get("special") in ("dismount", "placed"):
                aboard.pop(u, None)
        elif a == "initiative":
            ev["first"] = SIDES[int(r[BK.L_X])]
            ev["text"] = (f"Side {ev['side']} wins the initiative; side {ev['first']} "
                          "activates first.")
        elif a == "pass":
            ev["text"] = f"Side {ev['side']} passes."
        elif a == "objective":
            ev["square"] = int(r[BK.L_FROM])
            ev["objective"] = int(r[BK.L_X])
            ev["text"] = f"Side {ev['side']} holds objective {ev['objective']}."
        elif a == "end-turn":
            ev["text"] = f"End of turn {ev['turn']}."
        elif a == "end":
            ev["winner"] = SIDES[int(r[BK.L_SIDE])] if 0 <= r[BK.L_SIDE] < 2 else "draw"
            ev["won_by"] = WON_BY[int(r[BK.L_X])]
            ev["side"] = None
            how = {"objective": "on objectives", "annihilation": "by annihilation",
                   "exit": "by leaving the board through its exit edge",
                   "victory points": "on victory points",
                   "default": "as the scenario rules when no other condition is met by the "
                              "last turn"}.get(ev["won_by"], ev["won_by"])
            ev["text"] = (f"The game ends: side {ev['winner']} wins {how}." if
                          ev["winner"] != "draw" else "The game ends in a draw.")
        _advantage_acts(ev, spec, u, tokens)
        events.append(ev)
    winner = int(out[3])
    zone = (0, 1) if int(out[6]) == 0 else (1, 0)  # side -> board zone
    return {
        "version": 1,
        "scenario": {"number": spec.setup.number, "name": spec.setup.name,
                     "turns": spec.setup.turns},
        "board": {"width": board.width, "height": board.height,
                  "terrain": [int(x) for x in board.terrain],
                  "height_level": [int(x) for x in board.height_level],
                  "terrain_names": list(_terrain_names()),
                  "objectives": [int(x) for x in board.objectives],
                  # per side (the contract): the attacker holds the first zone (kernel)
                  "deploy": [[int(s) for s in np.flatnonzero(board.deploy[zone[i]])]
                             for i in (0, 1)],
                  "enters": [bool(board.enters[zone[i]]) for i in (0, 1)]},
        "units": units,
        "policy": {"A": spec.policy.name, "B": spec.policy.name},
        "sides": dict(zip(SIDES, spec.list_names, strict=True)),  # the lists' names
        "victory_conditions": list(spec.setup.conditions),
        "seed": seed,
        "attacker": SIDES[int(out[6])],
        "result": {"winner": SIDES[winner] if winner < 2 else "draw",
                   "won_by": WON_BY[int(out[4])], "vp": [float(vps[0]), float(vps[1])],
                   "turns": int(out[5])},
        "events": events,
        "notes": list(spec.notes),
    }


def unit_labels_for(names, sides) -> list[str]:
    """The readable name of each unit in event texts and on the replay page: its card name,
    numbered in order where two units of one side share it, with the side where both
    sides field it ("Ludwig (A)" attacks "Ludwig (B)"; "Heavy Laser Grenadier Squad 2")."""
    labels = list(names)
    for name in set(names):
        idx = [u for u, n in enumerate(names) if n == name]
        if len(idx) < 2:
            continue
        both = len({sides[u] for u in idx}) > 1
        for u in idx:
            same = [v for v in idx if sides[v] == sides[u]]
            num = f" {same.index(u) + 1}" if len(same) > 1 else ""
            labels[u] = f"{name}{num}" + (f" ({SIDES[sides[u]]})" if both else "")
    return labels


def _special(r: np.ndarray, uname: str, width: int, names, faces: np.ndarray,
             terrain: np.ndarray) -> dict:
    """The fields of a special action event (battle_rules): ``special`` (its name), the
    square and, for smoke, the four squares of the screen."""
    from dustsim.play import battle_kernel as BK
    from dustsim.play.board import BUILDING, BUILDING_OPENING, BUNKER

    SMOKE_PROOF = (BUILDING, BUILDING_OPENING, BUNKER)
    if int(r[BK.L_X]) in PLATOON_SPECIALS:  # platoon advantages (battle_platoon)
        return _platoon_special(r, uname, names, faces)
    if int(r[BK.L_X]) in RESERVE_SPECIALS:  # reserves (battle_reserve)
        return _reserve_special(r, uname, width)
    if int(r[BK.L_X]) >= len(SPECIALS):  # transports (battle_carry)
        return _carry_special(r, uname, width, names, faces)
    kind = SPECIALS[int(r[BK.L_X])]
    s = int(r[BK.L_FROM])
    ev: dict = {"special": kind, "square": s}
    if kind == "camouflage":
        ev["text"] = (f"{uname} takes the Camouflage special action: it cannot be attacked "
                      "from range 3 or more until it acts (L3453-3457).")
    elif kind == "airborne":
        ev["to"] = s
        ev["dice"] = _dice(r, faces)
        ev["text"] = (f"{uname} drops onto {square_name(s, width)} (Airborne, L3391-3393): "
                      "a Nothing action, then "
                      + ("a second action on its die." if r[BK.L_HITS] > 0 else
                         "no second action (its die failed)."))
    elif kind == "observe":
        a = int(r[BK.L_TARGET])
        ev["target"] = a
        ev["text"] = (f"{uname} calls in the artillery of {names[a]}, which activates and "
                      "fires at what the observer sees (Artillery Observer, L3419-3425).")
    elif kind == "execute":
        t = int(r[BK.L_TARGET])
        ev.update({"target": t, "to": int(r[BK.L_TO]), "casualties": int(r[BK.L_CAS]),
                   "damage": int(r[BK.L_DAMAGE])})
        ev["text"] = (f"{uname} executes a soldier of {names[t]}, which holds a Stunned token "
                      "within range 1 (Execute, L3511-3513).")
    elif kind == "repair":
        t = int(r[BK.L_TARGET])
        ev.update({"target": t, "to": int(r[BK.L_TO]),
                   "dice": _dice(r, faces),
                   "hits": int(r[BK.L_HITS]), "repaired": int(r[BK.L_DAMAGE])})
        ev["text"] = (f"{uname} makes a Makeshift Repair on {names[t]}: {ev['hits']} of 5 dice "
                      f"succeed, {ev['repaired']} damage point"
                      f"{'s' if ev['repaired'] != 1 else ''} restored (Mechanic, L3759-3765).")
    elif kind == "spy":
        ev["dice"] = _dice(r, faces)
        ev["hits"] = int(r[BK.L_HITS])
        if s >= 0:
            ev["to"] = s
            ev["text"] = (f"{uname} rolls {ev['dice']} and is placed on "
                          f"{square_name(s, width)}, beside the enemy, with {ev['hits']} "
                          f"action{'s' if ev['hits'] != 1 else ''} (Spy, L3655-3657).")
        else:
            ev["square"] = None
            ev["text"] = (f"{uname} rolls {ev['dice']}: no success, it stays off the table "
                          "(Spy, L3655-3657).")
    elif kind == "air-alert":
        t = int(r[BK.L_TARGET])
        ev.update({"target": t, "to": int(r[BK.L_TO]),
                   "dice": _dice(r, faces),
                   "hits": int(r[BK.L_HITS])})
        ev["text"] = (f"{uname} calls an Air Alert on {names[t]} ({ev['dice']}): "
                      + ("its side's vehicles hit it on P and T this turn"
                         if ev["hits"] else "no effect") + " (Air Alert, L3375-3377).")
    elif kind == "follow-me":
        ev["dice"] = _dice(r, faces)
        ev["hits"] = int(r[BK.L_HITS])
        ev["text"] = (f"{uname} calls Follow Me ({ev['dice']}): {ev['hits']} unit"
                      f"{'s' if ev['hits'] != 1 else ''} move up to 2 (Follow Me, L3531-3533).")
    elif kind == "heal":
        t = int(r[BK.L_TARGET])
        ev.update({"target": t, "to": int(r[BK.L_TO]),
                   "dice": _dice(r, faces),
                   "hits": int(r[BK.L_HITS]), "returned": int(r[BK.L_DAMAGE]),
                   "rule": ("Medic", "Medevac", "Resurrection")[int(r[BK.L_TOKEN])]})
        what = (f"{ev['returned']} soldier{'s' if ev['returned'] != 1 else ''} back"
                if ev["rule"] != "Medic" else
                ("one soldier or damage point back" if ev["returned"] else "nothing back"))
        ev["text"] = (f"{uname} tends {names[t]} ({ev['dice']}): {what} ("
                      + {"Medevac": "Medevac, L3591-3593", "Resurrection":
                         "Resurrection, L3631-3633"}.get(ev["rule"],
                                                         "Get Up, It Ain't That Bad, L3739-3743")
                      + ").")
    elif kind == "stimulants":
        t = int(r[BK.L_TARGET])
        ev.update({"target": t, "to": int(r[BK.L_TO]), "rule": "Inject Stimulants"})
        ev["text"] = (f"{uname} injects {names[t]} with stimulants: it holds a Stimulants "
                      "token until it activates (Inject Stimulants, L3745-3749).")
    elif kind == "stimulant-roll":
        from dustsim.play.battle_rules import STIM_NAMES

        eff = STIM_NAMES[int(r[BK.L_TOKEN])]
        ev.update({"dice": _dice(r, faces), "effect": eff, "third": bool(r[BK.L_HITS]),
                   "rule": "Inject Stimulants"})
        what = {"choose": "the player chooses either effect",
                "sustained": "an Attack action counts as a Sustained Attack",
                "march": "a Move action counts as a March Move"}[eff]
        ev["text"] = (f"{uname} removes its Stimulants token and rolls {ev['dice']}: {what}"
                      + (", three actions this activation" if ev["third"] else
                         ", but it takes no more actions (never more than three)")
                      + " (Inject Stimulants, L3751-3757; faces: our decision).")
    elif kind == "ammo-drop":
        t = int(r[BK.L_TARGET])
        ev.update({"target": t, "to": int(r[BK.L_TO]),
                   "dice": _dice(r, faces),
                   "hits": int(r[BK.L_HITS])})
        ev["text"] = (f"{uname} calls an ammo drop for {names[t]} ({ev['dice']}): "
                      + ("its Limited Ammo weapons are full again" if ev["hits"] > 0 else
                         "the drop fails") + " (Ammo Drop, L3717-3721).")
    elif kind in ("rally", "get-moving"):
        t = int(r[BK.L_TARGET])
        ev.update({"target": t, "to": int(r[BK.L_TO]),
                   "dice": _dice(r, faces),
                   "hits": int(r[BK.L_HITS])})
        if kind == "rally":
            ev["token"] = TOKENS[int(r[BK.L_TOKEN])]
            ev["text"] = (f"{uname} rallies {names[t]} ({ev['dice']}): "
                          + (f"{names[t]} is now {ev['token'].replace('-', ' ')}"
                             if ev["token"] != "none" else f"{names[t]} loses its tokens")
                          + " (Rally, L3729-3731).")
        else:
            fox = " with At the Double (Desert Fox, L3501)" if r[BK.L_TOKEN] == 1 else ""
            ev["text"] = (f"{uname} orders {names[t]} to get moving ({ev['dice']}): "
                          + (f"{names[t]} activates again{fox}; {uname}'s activation ends"
                             if ev["hits"] > 0 else "the order fails")
                          + " (Get Moving You Bunch of Monkeys, L3723-3727).")
    elif kind == "psychic-scream":
        t = int(r[BK.L_TARGET])
        ev["target"] = t
        ev["dice"] = _dice(r, faces)
        ev["hits"] = int(r[BK.L_HITS])
        ev["damage"] = int(r[BK.L_DAMAGE])
        ev["casualties"] = int(r[BK.L_CAS])
        ev["text"] = (f"{uname}'s Psychic Scream strikes {names[t]} (once per game, every unit "
                      "within range 3, no line of sight, infantry or cover save: BattleScribe "
                      f"Dust_1947.gst rule 0a01-816f-3ce5-05f5): {ev['hits']} "
                      f"hit{'s' if ev['hits'] != 1 else ''}, {ev['damage']} damage.")
    elif kind in ("area", "artillery"):
        t = int(r[BK.L_TARGET])
        ev.update(target=t, cover=bool(r[BK.L_COVER]), hits=int(r[BK.L_HITS]),
                  damage=int(r[BK.L_DAMAGE]), casualties=int(r[BK.L_CAS]),
                  dice=_dice(r, faces))
        what = (f"{uname}'s Large Ordnance strikes {names[t]} in the same 2 x 2 area as its "
                "target (like artillery, L3218-3224; BattleScribe Dust_1947.gst rule "
                "5fce-2ac8-7580-9ecc)" if kind == "area" else
                f"{uname}'s artillery strikes {names[t]} in the Artillery Area, the 2 x 2 "
                "squares around its target (every unit in it, friend or foe: L3218-3224)")
        ev["text"] = (f"{what}: {ev['hits']} hit{'s' if ev['hits'] != 1 else ''}, "
                      f"{ev['damage']} damage.")
    elif kind == "smoke":
        c = int(r[BK.L_TO])
        cols = sorted({s % width, c % width})
        rows = sorted({s // width, c // width})
        ev["smoke"] = [q for q in (rr * width + cc for rr in rows for cc in cols)
                       if int(terrain[q]) not in SMOKE_PROOF]  # never into buildings (L3229)
        t = int(r[BK.L_TARGET])
        ev["target"] = t
        where = ", ".join(square_name(q, width) for q in ev["smoke"])
        ev["text"] = (f"{uname} launches smoke on squares {where} to screen itself from "
                      f"{names[t]} before the enemy moves (Smoke Launchers, L3651).")
    return ev


#: the platoon advantages' special codes (battle_platoon.SPECIALS)
PLATOON_SPECIALS = (27, 28, 29, 30, 33, 34)
#: the reserves' special codes (battle_reserve.SPECIALS)
RESERVE_SPECIALS = (31, 32)


def _reserve_special(r: np.ndarray, uname: str, width: int) -> dict:
    """A unit placed in Reserve (``reserve``: ``placed`` of the side's ``reserve`` [#]) or
    coming on from it (``reserve-arrival``) (battle_reserve, L3100-3104)."""
    from dustsim.play import battle_kernel as BK
    from dustsim.play import battle_reserve as RS

    kind = RS.SPECIALS[int(r[BK.L_X])]
    s = int(r[BK.L_FROM])
    ev: dict = {"special": kind, "square": s if s >= 0 else None, "rule": "Reserve"}
    if kind == "reserve":
        ev.update({"placed": int(r[BK.L_HITS]), "reserve": int(r[BK.L_TOKEN])})
        ev["text"] = (f"{uname} goes into Reserve ({ev['placed']} of Reserve "
                      f"[{ev['reserve']}]): it will come back fresh, no damage and its "
                      "ammunition replenished, in a later turn (Reserve, L3102-3104).")
    else:
        ev["text"] = (f"{uname} comes on from Reserve, from its deployment area "
                      "(Reserve, L3104).")
    return ev
#: a granted skill's role -> the rule name its events carry (battle_platoon.ROLES)
_GRANTED = {"scout": "Scout", "charge": "Charge", "first-double": "At the Double",
            "airborne": "airborne", "camouflage-while": "camouflage", "mobile": "Move and Fire"}


def _granted(ev: dict, spec: BattleSpec, u: int | None) -> None:
    """Name the platoon advantage that gave unit u the rule an event acted under."""
    if u is None or u >= len(spec.advantages):
        return
    rule = ev.get("rule") or ev.get("special")
    for adv, role in spec.advantages[u]:
        if _GRANTED.get(role) == rule:
            ev["advantage"] = adv
            ev["text"] = ev["text"].rstrip(".") + f" (platoon advantage: {adv})."
            return


def _advantage_acts(ev: dict, spec: BattleSpec, u: int | None, tokens: dict) -> None:
    """Name the platoon advantage behind a reaction (Vigilant's faces, L1947), a token
    removal roll (Brave's three dice: Semper Fi L1325, Unflappable L1379) or a Suppressed
    unit's Move (Implacable Advance, L2096; ``tokens``: each unit's token so far)."""
    if ev["action"] == "destroyed":  # Night Witches lasts while its hero is in play (L2041)
        tokens[("gone", u)] = True
    elif ev.get("special") == "reserve":
        tokens.pop(("gone", u), None)
    if ev["action"] in ("attack", "sustained") and ev.get("token") == "suppressed" and \
            u is not None and u < len(spec.advantages) and \
            ("Night Witches", "stay-down-while") in spec.advantages[u]:
        holder = [h for h, a in enumerate(spec.advantages) if ("Night Witches", "holds") in a
                  and spec.sides[h] == spec.sides[u]]
        if holder and not tokens.get(("gone", holder[0])):
            ev["advantage"] = "Night Witches"
            ev["text"] = ev["text"].rstrip(".") + (" (And Stay Down: its hits give Suppression, "
                                                  "L3415-3417; platoon advantage: Night "
                                                  "Witches, L2037-2041).")
    if ev["action"] in ("token", "token-removed") and u is not None:
        tokens[u] = ev.get("token", "none")
    elif "target" in ev and (ev["action"] in ("attack", "sustained", "close-combat")
                             or ev.get("special") == "rally"):
        tokens[ev["target"]] = ev.get("token", "none")
    t = ev.get("target")
    if ev["action"] in ("attack", "sustained") and ev["turn"] == 1 and not ev.get("cover") \
            and t is not None and t < len(spec.advantages):  # Lightning Strike (L1169)
        for adv, role in spec.advantages[t]:
            if role == "lightning":
                ev["target_advantage"] = adv
                ev["text"] = ev["text"].rstrip(".") + (
                    " (its infantry saves succeed on P and S in turn 1; platoon advantage: "
                    f"{adv}, L1165-1169).")
    if u is None or u >= len(spec.advantages) or "advantage" in ev:
        return
    for adv, role in spec.advantages[u]:
        if (ev["action"] == "reaction" and role == "vigilant") or (
                ev["action"] == "token-removed" and role == "brave") or (
                ev["action"] == "reaction" and role == "pack") or (
                ev["action"] == "move" and role == "implacable" and
                tokens.get(u) == "suppressed"):
            what = {"vigilant": "reactive dice on P and S", "brave": "Brave: three removal "
                    "dice", "implacable": "a Move instead of Nothing while Suppressed",
                    "pack": "reactive dice on P and S; a walker of its pack sees the mover "
                    "within range 4 (L1821)"}[role]
            ev["advantage"] = adv
            ev["text"] = ev["text"].rstrip(".") + f" ({what}; platoon advantage: {adv})."
            return


def _platoon_special(r: np.ndarray, uname: str, names, faces: np.ndarray) -> dict:
    """The fields of a platoon advantage's special event (battle_platoon): an order
    (``get-moving`` naming its ``advantage``) or Breakthrough's die."""
    from dustsim.play import battle_kernel as BK
    from dustsim.play import battle_platoon as BP

    kind = BP.SPECIALS[int(r[BK.L_X])]
    dice = _dice(r, faces)
    ev: dict = {"special": kind, "square": int(r[BK.L_FROM]), "dice": dice,
                "hits": int(r[BK.L_HITS])}
    if kind == "get-moving":
        t = int(r[BK.L_TARGET])
        adv = BP.PA_NAMES[int(r[BK.L_TOKEN]) % 8]
        rule = BP.ADVANTAGES[adv]
        fox = " with At the Double (Desert Fox, L3501)" if r[BK.L_TOKEN] >= 8 else ""
        ev.update({"target": t, "to": int(r[BK.L_TO]), "advantage": adv})
        ev["text"] = (f"{uname} orders {names[t]} to get moving ({dice}): "
                      + (f"{names[t]} activates again{fox}; {uname}'s activation ends"
                         if ev["hits"] > 0 else "the order fails")
                      + f" (Get Moving You Bunch of Monkeys, L3723-3727; platoon advantage: "
                      f"{adv}, {rule.lines}).")
    elif kind == "mobile-warfare":
        ev["advantage"] = "Mobile Warfare"
        ev["text"] = (f"{uname} rolls {dice}: " + ("Move and Fire for this activation" if
                                                    ev["hits"] else "no Move and Fire this time")
                      + " (platoon advantage: Mobile Warfare, L1401-1405).")
    elif kind == "close-cooperation" and r[BK.L_TOKEN] == 1:  # Knockout's call (L1195)
        t = int(r[BK.L_TARGET])
        ev.update({"special": "knockout", "advantage": "Knockout", "target": t,
                   "enemy_square": int(r[BK.L_TO]), "dice": None, "hits": None})
        ev["text"] = (f"{uname}'s close-combat hit calls {names[t]}: it activates right after, "
                      "a March Move towards the enemy, then a Charge at it (platoon advantage: "
                      "Knockout, L1191-1195).")
    elif kind == "close-cooperation":
        t = int(r[BK.L_TARGET])
        ev.update({"advantage": "Close Cooperation", "target": t, "dice": None,
                   "hits": None})
        ev["text"] = (f"{names[t]} escorts {uname}: it activates right after it, a Move or "
                      "March Move first (platoon advantage: Close Cooperation, L1349-1353).")
    elif kind == "wave-attack":
        ev.update({"advantage": "Wave Attack", "target": int(r[BK.L_TARGET]),
                   "returned": ev["hits"]})
        n = len(dice)
        ev["text"] = (f"{uname} rolls {dice} for its {n} soldier{'s' if n != 1 else ''} "
                      f"falling: {ev['hits']} come{'s' if ev['hits'] == 1 else ''} forward "
                      "again (platoon advantage: Wave Attack, L2063-2065).")
    elif kind == "go-get-em-girls":
        ev["advantage"] = "Go Get 'Em Girls!"
        ev["text"] = (f"{uname} rolls {dice}: " + ("Brave for this activation, three dice to "
                                                    "remove its token" if ev["hits"] else
                                                    "no Brave this time")
                      + " (platoon advantage: Go Get 'Em Girls!, L2171-2175).")
    else:
        ev["advantage"] = "Breakthrough"
        ev["text"] = (f"{uname} rolls {dice} after its March Move: "
                      + ("a free Attack" if ev["hits"] > 0 else "no free Attack")
                      + " (platoon advantage: Breakthrough, L1874-1878).")
    return ev


def _carry_special(r: np.ndarray, uname: str, width: int, names, faces: np.ndarray) -> dict:
    """The fields of a transport's event (:mod:`dustsim.play.battle_carry`, L522-530):
    ``special``, ``target`` (the vehicle), ``square`` (the vehicle's square), ``to`` (where a
    survivor is placed), ``dice`` and ``hits`` (a destroyed transport's passenger roll)."""
    from dustsim.play import battle_kernel as BK
    from dustsim.play.battle_carry import CARRY_SPECIALS

    kind = CARRY_SPECIALS[int(r[BK.L_X])]
    s = int(r[BK.L_FROM])
    t = int(r[BK.L_TARGET])
    ev: dict = {"special": kind, "square": s if s >= 0 else None}
    where = square_name(s, width) if s >= 0 else "off the board"
    if t >= 0:
        ev["target"] = t
    if kind == "bury":
        ev["to"] = int(r[BK.L_TO])
        ev["dice"] = _dice(r, faces)
        ev["hits"] = int(r[BK.L_HITS])
        ev["text"] = (f"{uname} takes two Engineering special actions to bury the fortification "
                      f"at {square_name(ev['to'], width)} with its Dozer Blade: {ev['dice']}, "
                      + ("buried with everyone in it (L3357)." if ev["hits"] else
                         "it holds (L3357)."))
    elif kind == "dozer":
        ev["text"] = (f"{uname} digs in with its Dozer Blade at {where}: in cover from any "
                      "angle until it moves (L3503-3505).")
    elif kind == "embarked":
        ev["text"] = f"{uname} starts the game aboard the {names[t]} (Passengers, L526)."
    elif kind == "dismount":
        ev["text"] = f"{uname} dismounts from the {names[t]} at {where} (L528)."
    elif kind == "aboard":
        ev["text"] = f"{uname} stays aboard the {names[t]} ({where})."
    elif kind == "bail-out":
        ev["dice"] = _dice(r, faces)
        ev["hits"] = int(r[BK.L_HITS])
        ev["text"] = (f"The {names[t]} is destroyed with {uname} aboard: {ev['dice']}, "
                      f"{ev['hits']} point{'s' if ev['hits'] != 1 else ''} of damage to those "
                      "aboard, no saves (L530, L536).")
    else:  # placed
        ev["to"] = int(r[BK.L_TO])
        ev["token"] = TOKENS[int(r[BK.L_TOKEN])]
        ev["left"] = int(r[BK.L_HITS])  # soldiers or damage points after the bail-out roll
        ev["text"] = (f"{uname} bails out of the wreck of the {names[t]} onto "
                      f"{square_name(ev['to'], width)}"
                      + (", Suppressed" if ev["token"] == "suppressed" else "")
                      + ", and counts as activated (L530).")
    return ev


def _left_py(m: np.ndarray, u: int) -> int:
    from dustsim.play import duel_kernel as K

    r = m[0, K.H_ST] + u
    return int(m[r, K.ST_MODELS] + m[r, K.ST_HERO] + m[r, K.ST_SINGLE])


def _terrain_names() -> tuple[str, ...]:
    from dustsim.play.board import TERRAIN_NAMES

    return TERRAIN_NAMES


# -- the meta --------------------------------------------------------------------------------------
def _meta_task(i: int, a, b, trials: int, seed: int, settings: dict) -> dict:
    r = battle(a, b, trials=trials, seed=seed, threads=1, **settings)
    d = r.summary()
    for k in ("p_a_wins", "p_b_wins", "p_draw", "margin", "ap_lost_a", "ap_lost_b"):
        d[f"se_{k}"] = r.se(k)
    return {"pair": i, **d}


def battle_meta(lists: list, *, trials: int = 1_000, seed: int = 0, client=None,
                progress: bool = False, **settings) -> pd.DataFrame:
    """Every list against every other on one scenario (each pairing once, the earlier list as
    side A, roles drawn per game), here or on a Dask client; pairing *i* draws from the
    *i*-th child of ``SeedSequence(seed)`` (the same numbers on Dask). Tidy, both orders of
    every pairing, the columns of :func:`dustsim.play.list_battles.meta` plus the scenario
    and each list's wins by condition."""
    import pandas as pd

    from dustsim.play.list_battles import play_pairings

    results = play_pairings(lists, _meta_task, trials=trials, seed=seed, client=client,
                            progress=progress, settings=settings, key="dustsim-battle-meta")
    rows = []
    for r in results:
        base = {"scenario": r["scenario"], "policy": r["policy"], "trials": r["trials"],
                "seed": r["seed"]}
        for me, op, s, o in (("a", "b", "list_a", "list_b"), ("b", "a", "list_b", "list_a")):
            sign = 1 if me == "a" else -1
            row = {"list": r[s], "opponent": r[o], "p_win": r[f"p_{me}_wins"],
                   "p_draw": r["p_draw"], "p_loss": r[f"p_{op}_wins"],
                   "se_p_win": r[f"se_p_{me}_wins"], "margin": sign * r["margin"],
                   "se_margin": r["se_margin"], "ap_lost": r[f"ap_lost_{me}"],
                   "ap_destroyed": r[f"ap_lost_{op}"], "side": me, **base}
            for k in (0, 1, 2, 3, 5):
                key = WON_BY[k].replace(" ", "_")
                row[f"won_by_{key}"] = r[f"p_{me}_wins_by_{key}"]
            rows.append(row)
    return pd.DataFrame(rows)
