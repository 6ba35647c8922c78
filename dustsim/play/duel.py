"""Duels and small engagements (Dust Tactics 2009, 2013, Dust 1947): who wins, not only how
much damage one attack does.

**Where a duel is fought** (:func:`duel`, ``dustsim duel``; :func:`duel_scenario`): a Dust 1947
duel is a game on a scenario's board, by default 101 Firefight (:mod:`dustsim.play.battle`:
squares, terrain, line of sight, every rule the board plays); ``scenario="line"``
(``--scenario line``) keeps the line engine of this module, the only mode of the Tactics
rulesets. The settings below that exist only on the line (distance, cover per unit, the
:class:`DuelPolicy` choices; :data:`LINE_ONLY`) are refused with a board, never ignored. The
value model and the report's duel section call the line engine directly
(:func:`compile_duel`, :func:`simulate_duel`). Each engine's notes name the rules it leaves
out (:func:`dustsim.rules.skills.unplayed_rules` with ``engine="line"`` here).

The line engine: two sides of one to ``MAX_UNITS`` units (whole army lists:
:mod:`dustsim.play.list_battles`) play up to N turns: the initiative roll, alternating
activations (a side with fewer unactivated units may pass), two actions per activation chosen
by a named policy, reactive attacks, Under Fire / Suppression tokens with their removal rolls,
persistent damage, firepower that drops as models die, joined heroes, Damage Resilient,
limited ammo and reload. Every attack is compiled by :mod:`dustsim.rules.attack` and resolved by the
dice kernel's own trial code; the turn loop runs in :mod:`dustsim.play.duel_kernel` (Numba).

**The abstraction** (the rules play on a grid; a duel on a line keeps only what changes the
dice):

* Distance is one number. Side A starts at square 0, side B ``distance`` squares away, on a
  line; every unit moves straight at its target and never closer than one square (adjacent)
  to an enemy. Line of sight is always clear; fire arcs are ignored (vehicles turn freely).
* Cover is a fixed state per unit (``Name@cover`` or ``--cover-a/--cover-b``); aircraft count
  as having made a Move (their evade save); aircraft other than helicopters Move before
  they Attack in every activation (1947 L516, L3551-3553).
* Close combat needs adjacency (distance 1): ranged weapons first, then the close-combat
  weapons with the target's retaliation, casualties of both removed together (1947 L763-765).
  Dust 1947: a unit (squad with its joined hero) with no close-combat weapon on its cards
  fights with the improvised weapon, 1/1 in every column, one die per soldier (L767-787; the
  decision: :func:`dustsim.rules.unit_rules.improvised_weapons`), named "Improvised weapon".

**Policies** (named, documented, chosen with :class:`DuelPolicy`):

* ``approach="longest-range"`` (default): a unit picks its target (one it can reach this
  activation first, then the highest value, then the nearest; value = expected AP destroyed by
  one Sustained Attack at full strength, from the exact engine), closes to the longest range
  at which one of its weapons can hurt that target, and then stays there: Sustained Attack
  when in range, Move + Attack when one Move brings it in range, else March Move. A unit whose
  reload weapon is empty takes Reload + Attack instead of the Sustained Attack.
  ``approach="close-in"`` closes to the shortest such range instead (every weapon fires; units
  with close-combat weapons charge).
* ``passing="when-allowed"`` (default): a side passes whenever the rule allows it (fewer
  unactivated units than the opponent, 1947 L341, 2013 L178); ``"never"``.
* ``reactive="when-able"`` (default): the best unactivated enemy in range 4 that can hurt the
  mover reacts to every Move + Attack and March Move (after the first Move); ``"never"``.
* ``initiative="roll"`` (default), ``"a"`` or ``"b"``: the winner always activates first.
* ``allocation``: ``least-loss`` (default), ``squad-first`` or ``hero-first`` (RULES.md §3;
  defined in :data:`dustsim.rules.attack.POLICIES`). Within a squad the owner removes plain soldiers
  first: a weapon line carried by ``c`` soldiers fires with ``min(c, survivors)``.
* ``salvo="when-loaded"`` (default): a loaded Salvo weapon always makes a Salvo attack (twice
  the dice, 1947 L3308-3312), and the unit takes Reload + Attack when it is empty, as for
  Reload weapons; ``"never"``: normal attacks only.
* ``volley="all"`` (default): a Volley weapon fires every box it has left in one attack (dice
  x boxes, L3337-3341); ``"one"``: one box per attack.
* ``initiative_choice="go-first"`` (default): the initiative winner activates first;
  ``"go-second"``: it lets the opponent go first (the winner's choice, L337).
* ``orders="get-moving"`` (default): a unit with an officer (Officer, Command Squad, Command
  Vehicle, General) first Rallies the friendly units still to activate that are Suppressed or
  Stunned (all in range 2, or the one worth most anywhere with a radio; L3729-3731; one
  action), then, with two actions left, tries Get Moving You Bunch of Monkeys (one die, P;
  L3723-3727) on the already activated friendly ground unit, in range 2 or anywhere with a
  radio, whose best attack is worth more than its own (the ``value`` matrix); on a success its
  activation ends and that unit activates again at once (once per turn), on a failure it has
  one action left (a General's officer action is free, L3537); Air Traffic Control likewise
  spends one action on a die (P) that lets the activated friendly aircraft worth more than its
  own attack activate again, right after this activation (L3387-3389); ``"never"``: neither.
* ``charge="when-able"`` (default): a unit with Charge whose close-combat weapons can hurt its
  target, and that a March Move brings into contact, charges: March Move, then the free
  close-combat Attack (L3459-3461); ``"never"``.

Skills played through :func:`dustsim.rules.unit_rules.unit_rules` (Dust 1947): Scout's first
March Move costs one action and is followed by an Attack; Move and Fire takes Move + ranged
Sustained Attack, or March Move + ranged Attack; At the Double adds a free Move after a March
Move; First Strike resolves its close combat first; Camouflage (the unit starts camouflaged;
no attack on it from range 3 or more until it attacks; the policy never takes the Camouflage
special action again); Advanced Reactive Fire reacts within range 6 on P or S; Fighting Spirit
is spent in the unit's first Attack action, Lucky in the hero's first plain Attack (the
policy does not wait for a bad roll); a lone Assassin hero aims its close-combat hits at a
joined hero; Smoke Launchers: at the start of an activation in which an enemy that can hurt
it is within its longest range plus one Move, the vehicle (not already in cover) launches its
one smoke screen: cover until the end of the next turn (1947 L3651-3653, L3228, L680; the
screen's own square only, and it does not stop the vehicle firing out); Airborne: the unit is
off the table until its first activation, then placed at its approach range from its target
(on its own side of it), first action Nothing, a second action (Attack) on P or T (L3391-3393).
With a third action (Infantry Ace, an Ace Pilot: a die at activation, 2/3, L3555-3557,
L3367-3369) a unit takes Move + Sustained Attack where one Move brings it in range, March Move +
Attack where the March does, Reload + Sustained Attack when empty in range. Stunned tokens
(Tesla damage, a Grapple hit, Cheat Death; L3264-3270, L3325-3335, L3463-3467) cost the first
action, stop close-combat retaliation and cut a reaction to one die; a grappled unit does
Nothing until the grappler acts or dies.

Units activate in the order listed. Every skill and weapon rule of the sides' cards that the
battles do not play is named in the result's ``notes``, from the one table
(:func:`dustsim.rules.skills.unplayed_rules`); critical hits, special actions and transports
are not played either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from dustsim import DEFAULT_TRIALS
from dustsim.data.cards import Card, Weapon, find_card
from dustsim.data.skill_names import norm_skill
from dustsim.engines.distributions import Distribution
from dustsim.engines.montecarlo import MonteCarloRun, Outcomes, mean_se, proportion, run
from dustsim.engines.results import ResultAPI, distribution_rows
from dustsim.errors import DustsimError
from dustsim.play import duel_layout as K  # the kernel itself (Numba) loads on first use
from dustsim.rules.attack import (
    DEFAULT_POLICY,
    POLICIES,
    TARGET_SKILLS,
    Situation,
    Target,
    attacker_skills,
    compile_attack,
    fortification_of,
    is_psychic_scream,
    target_from_card,
    token_immune,
    weapon_from_cell,
    weapon_skills,
)
from dustsim.rules.dice import FaceSet, P
from dustsim.rules.rulesets import DEFAULT_RULESET_FOR_EDITION, get_ruleset
from dustsim.rules.skills import unplayed_rules
from dustsim.rules.unit_rules import improvised_weapons, unit_rules

if TYPE_CHECKING:
    import pandas as pd

    from dustsim.play.battle import BattleResult
    from dustsim.play.policies import Policy

T = FaceSet.of("T")  # the initiative tie-break symbol (1947 L337)
S = FaceSet.of("S")  # the shield: Advanced Reactive Fire's second reactive face (L3373)
#: a duel on the line: start distance (squares) and turn limit (a scenario has its own)
DUEL_DISTANCE, DUEL_TURNS = 6, 5
DUEL_RULESETS = ("tactics-2009", "tactics-2013", "dust-1947")
MAX_UNITS = 40  # a side: a 75-AP list is 5-15 units; the kernel loops are O(units^2)
MAX_DISTANCE = 200
MAX_TURNS = 100
CHUNK = 4096  # duels per chunk: part of the stream definition (results depend on it)
REACTION_RANGE = 4  # 1947 L797, 2013 L437
INITIATIVE_DICE = 3  # 1947 L337, 2013 L176, 2009 L229
OUTCOMES = ("a", "b", "none")


@dataclass(frozen=True)
class DuelPolicy:
    """How both sides play (see the module docstring for each choice)."""

    approach: str = "longest-range"
    passing: str = "when-allowed"
    reactive: str = "when-able"
    initiative: str = "roll"
    allocation: str = DEFAULT_POLICY
    salvo: str = "when-loaded"
    volley: str = "all"
    initiative_choice: str = "go-first"
    charge: str = "when-able"
    orders: str = "get-moving"

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {
        "approach": ("longest-range", "close-in"),
        "passing": ("when-allowed", "never"),
        "reactive": ("when-able", "never"),
        "initiative": ("roll", "a", "b"),
        "allocation": POLICIES,
        "salvo": ("when-loaded", "never"),
        "volley": ("all", "one"),
        "initiative_choice": ("go-first", "go-second"),
        "charge": ("when-able", "never"),
        "orders": ("get-moving", "never"),
    }

    def __post_init__(self) -> None:
        for name, choices in self.CHOICES.items():
            v = getattr(self, name)
            if v not in choices:
                raise DustsimError(f"{name} policy {v!r} is not one of {', '.join(choices)}",
                                   field=f"--{name}")


@dataclass(frozen=True)
class DuelUnit:
    """One unit of a side: a card, optionally a hero joined to it, and its cover state.

    ``pilot``: a hero piloting the vehicle (1947 L936-948): it cannot be targeted and does
    not fire (L944), so it adds its AP and the skills that act through the vehicle (Ace
    Pilot's third action, Ace Gunner's Expert; Crazy Jimmy's cover on the board);
    ``extra_ap``: a surcharge on the card (a captured vehicle's +2 AP, L889)."""

    card: Card
    hero: Card | None = None
    cover: bool = False
    pilot: Card | None = None
    extra_ap: float = 0.0
    transport: int = -1
    """Grid battles: index (in its side) of the vehicle it starts in as passengers (1947
    L522-530, :mod:`dustsim.play.battle_carry`); -1 none. Duels ignore it."""

    @property
    def name(self) -> str:
        base = f"{self.hero.name} + {self.card.name}" if self.hero else self.card.name
        if self.pilot is not None:
            base += f" (pilot {self.pilot.name})"
        return base + ("@cover" if self.cover else "")

    @property
    def ap(self) -> float:
        parts = [self.card.ap] + [c.ap for c in (self.hero, self.pilot) if c is not None]
        if any(p is None for p in parts):
            return float("nan")
        return float(sum(parts)) + self.extra_ap


def parse_side(text: str, cards: list[Card], ruleset: str, *, cover: bool = False,
               field_name: str = "--side-a") -> tuple[DuelUnit, ...]:
    """``"Pounder, Ranger Combat Squad@cover, Rhino + Ranger Combat Squad"``: comma-separated
    unit names; ``Hero + Squad`` joins a hero to a squad; ``@cover`` puts a unit in cover."""
    items = [s.strip() for s in str(text).split(",")]
    if not text or not str(text).strip() or any(not s for s in items):
        raise DustsimError(f"side {text!r} names no unit (comma-separated card names)",
                           field=field_name)
    if len(items) > MAX_UNITS:
        raise DustsimError(f"a side has one to {MAX_UNITS} units, got {len(items)}",
                           field=field_name)
    out = []
    for item in items:
        in_cover = cover
        if item.lower().endswith("@cover"):
            item, in_cover = item[: -len("@cover")].strip(), True
        names = [n.strip() for n in item.split("+")]
        if len(names) > 2 or not all(names):
            raise DustsimError(f"{item!r}: write 'Hero + Squad' to join one hero to a squad",
                               field=field_name)
        try:
            found = [find_card(cards, n, ruleset=ruleset) for n in names]
        except DustsimError as exc:
            msg = exc.message.replace("pass --edition", "pass --edition to look in one")
            raise DustsimError(msg, unit=exc.unit, field=field_name) from None
        if len(found) == 1:
            out.append(DuelUnit(found[0], cover=in_cover))
        else:
            hero, squad = found
            if hero.kind != "hero" and squad.kind == "hero":
                hero, squad = squad, hero
            out.append(join_hero(hero, squad, cover=in_cover, field_name=field_name))
    return tuple(out)


def join_hero(hero: Card, squad: Card, *, cover: bool = False,
              field_name: str = "side") -> DuelUnit:
    """A hero joined to a squad of the same armour (1947 L932-934; 2013 §6)."""
    if hero.kind != "hero" or squad.kind != "squad":
        raise DustsimError(f"only a hero joins a squad ({hero.name} is a {hero.kind}, "
                           f"{squad.name} a {squad.kind})", unit=hero.name, field=field_name)
    if hero.armour != squad.armour:
        raise DustsimError(f"a hero joins only a squad of the same armour ({hero.armour} vs "
                           f"{squad.armour})", unit=hero.name, field=field_name)
    if any(norm_skill(s) in ("loner", "superhuman") for s in hero.skills):
        raise DustsimError("Loners and Superhumans never join a unit (1947 L3581, L3671)",
                           unit=hero.name, field=field_name)
    return DuelUnit(squad, hero=hero, cover=cover)


# -- compilation ----------------------------------------------------------------------------------
def weapon_range(w: Weapon) -> tuple[int, int] | None:
    """The squares a weapon line reaches, (min, max) (close combat (1, 1)); None if unknown."""
    r = w.range
    if r == "C":
        return 1, 1
    if r == "U":
        return 0, K.FAR
    if r.isdigit():
        return 0, int(r)
    if "-" in r:
        lo, hi = r.split("-", 1)
        return int(lo), (K.FAR if hi == "U" else int(hi))
    return None  # "?"


def unit_target(unit: DuelUnit, allocation: str) -> Target:
    """The target a duel unit presents (its joined hero's track and skills included)."""
    card = unit.card
    extra = {"aircraft_moved": "move"} if card.kind == "aircraft" else {}
    # a Strongpoint unit holds its strongpoint or bunker: save re-rolls and close-combat
    # saves (1947 L3132-3136; the single-attack rule, dustsim.rules.attack)
    extra["fortification"] = fortification_of(card)
    t = target_from_card(card, cover=unit.cover, policy=allocation, **extra)
    if unit.hero is not None:
        if unit.hero.damage_track is None:
            raise DustsimError("damage track unknown: cannot be a target", unit=unit.hero.name,
                               field="damage_track")
        hs = frozenset(s for s in map(norm_skill, unit.hero.skills) if s in TARGET_SKILLS)
        t = replace(t, hero_track=unit.hero.damage_track, hero_skills=hs)
    return t


_range, _target = weapon_range, unit_target  # the names the compiler below uses


@dataclass(frozen=True)
class DuelSpec:
    """The flat arrays of one engagement, with the names needed to read its results back."""

    ruleset: str
    names: tuple[str, ...]
    sides: tuple[int, ...]
    ap: np.ndarray
    strength: tuple[int, ...]
    units: np.ndarray
    weapons: np.ndarray
    gdice: np.ndarray
    gblast: np.ndarray
    groups: np.ndarray
    tspec: np.ndarray
    config: np.ndarray
    value: np.ndarray
    distance: int
    turns: int
    policy: DuelPolicy
    notes: tuple[str, ...] = field(default=())


def _mindless(du) -> bool:
    """The unit is a Mindless Zombie (its card's skill): a Zombie Swarm may send it at its
    own side (BRAINSSSS!, L1630-1634; grid battles), so its lines get groups against friends."""
    return any(str(x).lower().startswith("mindless") for x in du.card.skills)


def _values(all_units, targets, sides, units, wlist, hurts, rs, compiled=None,
            rs_key=None) -> np.ndarray:
    """value[u, t]: expected AP of t destroyed by one Sustained Attack of u at full strength
    (exact engine), the target-choice policy's measure; 0 where u cannot hurt t. With the
    compiled units, the fraction destroyed is memoised per compiled pair (a pure function of
    the two compiled units and the ruleset)."""
    from dustsim.engines.exact import evaluate as exact_evaluate

    U = len(all_units)
    value = np.zeros((U, U), float)
    for u in range(U):
        for t in range(U):
            idx = [i for i in range(units[u, K.U_W0], units[u, K.U_W1]) if hurts[i, t]]
            if sides[t] == sides[u] or not idx:
                continue

            def frac_of(idx=idx, t=t) -> float:
                pairs = [(wlist[i][1], wlist[i][1].cell(targets[t].column)) for i in idx]
                sk = frozenset().union(*(attacker_skills(wlist[i][2]) for i in idx))
                try:
                    spec = compile_attack(pairs, targets[t], Situation("sustained", skills=sk),
                                          rs)
                    return exact_evaluate(spec).damage.mean() / max(spec.max_damage, 1)
                except DustsimError:
                    return 1e-6
            if compiled is None:
                frac = frac_of()
            else:
                cu, ct = compiled[u], compiled[t]
                frac = _memo(("value", id(cu), id(ct), rs_key), (cu, ct), frac_of)
            ap_t = all_units[t].ap
            value[u, t] = max(frac, 1e-9) * (ap_t if math.isfinite(ap_t) and ap_t > 0 else 1.0)
    return value


# compiled pieces memoised for the process: a pure function of their key, so a duel compiled
# from the memo is the duel compiled afresh (the value model compiles every card against the
# same few dozen opponents: each side's attacks are compiled once, then paired)
_MEMO: dict = {}
_MEMO_MAX = 200_000


def _memo(key, keep, make):
    """``make()`` memoised under ``key``; ``keep`` (held with the entry) is the object, or
    tuple of objects, whose ``id`` is part of the key, so a recycled ``id`` never finds
    another object's entry."""
    hit = _MEMO.get(key)
    if hit is not None and (hit[0] is keep or (
            type(keep) is tuple and all(a is b for a, b in zip(hit[0], keep, strict=True)))):
        return hit[1]
    value = make()
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.clear()
    _MEMO[key] = (keep, value)
    return value


def _interned(x):
    """One object per value (equal targets of two cards are one object, keyed by its id)."""
    return _memo(("interned", x), None, lambda: x)


def _tspec_row(tg: Target, rs, rs_key: tuple) -> np.ndarray:
    """The kernel's target row of ``tg`` (its saves, size and tokens), memoised."""
    from dustsim.engines.kernel import pack

    def make():
        probe = weapon_from_cell("1/1", column=tg.column)
        row = pack([compile_attack([probe], tg, Situation(), rs)]).specs[0]
        row.setflags(write=False)
        return row

    return _memo(("tspec", tg, rs_key), None, make)


def _weapon_vs(w: Weapon, skills: frozenset, tg: Target, rs, rs_key: tuple
               ) -> tuple[tuple[np.ndarray, ...], int, int, bool]:
    """One carrier of weapon ``w`` against ``tg``: the packed group of each variant (Attack,
    Sustained) that compiles, the blast and dice numbers (0 unless both compile), and whether
    the cell is unknown; memoised per (weapon as fired, skills, target, ruleset), so the same
    weapon line on two cards is compiled once."""
    from dustsim.engines.kernel import pack

    # one carrier's dice; the wire-guided re-roll needs the weapon fired alone. Its name and
    # sources change no number (they only label the attack), so they are left out
    # (interned: equal weapons on two cards are one object, keyed by its id below)
    def canonical():
        c = replace(w, count=1, keywords=tuple(k for k in w.keywords if k != "wire-guided"),
                    name="", cost=None, group=None, source=None, cell_sources=(), flags=())
        return _interned(c)

    single = _memo(("single", id(w)), w, canonical)

    def make():
        cell = single.cell(tg.column)
        if not cell.usable:
            return (), 0, 0, bool(not cell.known or (cell.can_damage and cell.damage is None))
        rows = []
        for action in ("attack", "sustained"):
            sit = Situation(action=action, skills=skills, close_combat=single.close_combat)
            try:
                spec = compile_attack([(single, cell)], tg, sit, rs)
            except DustsimError:
                return tuple(rows), 0, 0, False
            row = pack([spec]).groups[0]
            row.setflags(write=False)
            rows.append(row)
        return tuple(rows), (cell.blast or 0), (0 if cell.blast else cell.dice), False

    return _memo(("weapon", id(single), skills, id(tg), rs_key), (single, tg), make)


@dataclass(frozen=True)
class _Unit:
    """One unit compiled on its own (side, position and opponents left out): its row of the
    kernel's unit table (``U_SIDE``, ``U_W0``, ``U_W1`` filled in when paired), its target,
    the target row, its fired weapons ``(weapon, carrier, row without the unit index,
    carrier's attacker skills)`` and its notes."""

    row: np.ndarray
    target: Target
    tspec: np.ndarray
    weapons: tuple[tuple[Weapon, Card, tuple[int, ...], frozenset], ...]
    notes: tuple[str, ...]


def _compile_unit(du: DuelUnit, tg: Target, policy: DuelPolicy, ruleset: str, rs,
                  rs_key: tuple) -> _Unit:
    """The side-free part of :func:`compile_duel` for one unit."""
    notes: list[str] = []
    row = np.zeros(K.N_UNIT_COLS, np.int64)
    card = du.card
    move = card.move
    if du.hero is not None and du.hero.move is not None and move is not None:
        move = min(move, du.hero.move)  # the lower move (1947 L932)
    if move is None:
        raise DustsimError("move unknown: the unit cannot take part in a duel",
                           unit=card.name, field="move")
    march = card.march_move
    if du.hero is not None and du.hero.march_move is not None and march is not None:
        march = min(march, du.hero.march_move)
    if march is None:
        march = 2 * move  # March Move = double Move (2013 L199, 2009 L243-245)
        notes.append(f"{card.name}: march move not on the card, taken as 2 x move")
    skills = {norm_skill(s) for s in card.skills} | (
        {norm_skill(s) for s in du.hero.skills} if du.hero else set())
    row[K.U_SQUAD] = int(card.kind == "squad")
    row[K.U_SUPPORT] = int(card.kind == "support")
    row[K.U_MODELS] = tg.models if card.kind == "squad" else 0
    row[K.U_HERO] = tg.hero_track or 0
    row[K.U_SINGLE] = 0 if card.kind == "squad" else tg.track
    row[K.U_MOVE] = move
    row[K.U_MARCH] = max(march, move)
    # aircraft Move before anything else, helicopters excepted (1947 L516, L3551-3553)
    row[K.U_AIR] = int(card.kind == "aircraft" and "helicopter" not in skills)
    reacts = (policy.reactive == "when-able" and ruleset != "tactics-2009"
              and card.kind != "aircraft")
    row[K.U_REACT_RANGE] = REACTION_RANGE if reacts else 0
    brave = bool(skills & {"brave", "commissar", "unflappable", "semper fi"})
    row[K.U_SUPP_DICE] = rs.suppression_dice + (1 if brave else 0)
    row[K.U_IMMUNE] = int(token_immune(tg))  # the single-attack rule
    ur = unit_rules(card, du.hero, du.pilot)  # third action: one die on P or T (L3557, L3369)
    row[K.U_THIRD] = (P | T).mask if ur.third_action_faces == 4 else 0
    row[K.U_REACT_MASK] = P.mask
    if ruleset == "dust-1947":  # the skills' flags (their rules: dustsim.rules.unit_rules)
        row[K.U_FLAGS] = (
            K.F_SCOUT * ur.scout | K.F_CHARGE * ur.charge | K.F_AT_THE_DOUBLE * ur.at_the_double
            | K.F_MOVE_AND_FIRE * ur.move_and_fire | K.F_FIRST_STRIKE * ur.first_strike
            | K.F_CAMOUFLAGE * (ur.camouflage == 1)
            | K.F_FIGHTING_SPIRIT * ur.fighting_spirit | K.F_LUCKY * ur.lucky
            | K.F_ASSASSIN * (ur.assassin and du.hero is None and card.kind == "hero")
            # smoke gives cover: nothing to gain for a unit placed in cover already
            | K.F_SMOKE * ((ur.smoke_launchers or ur.smoke_grenades) and not du.cover)
            | K.F_AIRBORNE * ur.airborne | K.F_OFFICER * ur.officer | K.F_RADIO * ur.radio
            | K.F_GENERAL * ur.general | K.F_AIR_TRAFFIC * ur.air_traffic_control
            | K.F_AIRCRAFT * (card.kind == "aircraft")
            | K.F_QUICK_RECOVERY * ur.quick_recovery | K.F_NO_ORDERS * ur.no_orders)
        if reacts and ur.reactive_faces == 4:  # Advanced Reactive Fire (L3373)
            row[K.U_REACT_RANGE] = ur.reactive_range
            row[K.U_REACT_MASK] = (P | S).mask
    if du.pilot is not None:
        notes.append(f"{du.name}: the pilot's bail-out (L944-946) and skills other than Ace "
                     "Pilot and Ace Gunner not modelled")
    weapons = []
    carriers = [(card, False)] + ([(du.hero, True)] if du.hero else [])
    for carrier, is_hero in carriers:
        for w in carrier.weapons:
            if w.optional or w.count == 0:
                continue
            rng = _range(w)
            if rng is None:
                notes.append(f"{carrier.name}: {w.name} has no known range; not fired")
                continue
            kw = set(w.keywords)
            ammo = -1
            if "limited-ammo" in kw or w.ammo is not None:
                if w.ammo is None:
                    notes.append(f"{carrier.name}: {w.name} has limited ammo of unknown "
                                 f"boxes; not fired")
                    continue
                ammo = w.ammo
            scream = is_psychic_scream(carrier, w)
            if scream:  # fired only by its free action, once per game (grid battles)
                rng, ammo = (0, -1), 1
            elif "large-ordnance" in kw:  # the artillery area (grid battles)
                scream = K.W_AREA
            weapons.append((w, carrier, (1 if is_hero else w.count, int(is_hero), rng[0],
                                         rng[1], int(w.close_combat), ammo,
                                         int("reload" in kw), int("set-up" in kw),
                                         int("burst" in kw), int("salvo" in kw),
                                         int("volley" in kw and ammo > 0), int(scream)),
                            weapon_skills(carrier, w, None if is_hero else du.pilot)))
    if ruleset == "dust-1947":  # the improvised close-combat weapon (L767-787: a decision)
        for w, carrier, is_hero in improvised_weapons(card, du.hero):
            weapons.append((w, carrier, (w.count, int(is_hero), 1, 1, 1, -1, 0, 0, 0, 0, 0, 0),
                            weapon_skills(carrier, w, None if is_hero else du.pilot)))
    row.setflags(write=False)
    return _Unit(row, tg, _tspec_row(tg, rs, rs_key), tuple(weapons), tuple(notes))


def _pair_block(cu: _Unit, ct: _Unit, rs, rs_key: tuple) -> tuple:
    """Every fired weapon of ``cu`` against ``ct`` (:func:`_weapon_vs`, in weapon order)."""
    return tuple(_weapon_vs(w, skills, ct.target, rs, rs_key)
                 for w, _carrier, _row, skills in cu.weapons)


def _check_int(v, name: str, lo: int, hi: int, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int | np.integer) or not lo <= v <= hi:
        raise DustsimError(f"{what} must be an integer from {lo} to {hi}, got {v!r}",
                           field=name)
    return int(v)


def compile_duel(side_a: tuple[DuelUnit, ...] | list[DuelUnit],
                 side_b: tuple[DuelUnit, ...] | list[DuelUnit], *,
                 ruleset: str = "dust-1947", distance: int = DUEL_DISTANCE,
                 turns: int = DUEL_TURNS,
                 policy: DuelPolicy | None = None, options: dict | None = None,
                 engine: str = "line") -> DuelSpec:
    """Compile two sides into the engagement kernel's arrays. ``engine``: whose rule gaps
    the notes name (``"line"``; the grid battles compile through here with ``"board"``)."""

    policy = policy or DuelPolicy()
    if ruleset not in DUEL_RULESETS:
        raise DustsimError(f"duels are played under {', '.join(DUEL_RULESETS)}; "
                           f"{ruleset!r} is not one (Dust Epic: `dustsim epic battle`)",
                           field="--ruleset")
    rs_key = (ruleset, tuple(sorted((options or {}).items())))
    rs = _memo(("ruleset", rs_key), None, lambda: get_ruleset(ruleset, **(options or {})))
    distance = _check_int(distance, "--distance", 1, MAX_DISTANCE, "the distance (squares)")
    turns = _check_int(turns, "--turns", 1, MAX_TURNS, "the number of turns")
    for label, side in (("--side-a", side_a), ("--side-b", side_b)):
        if not 1 <= len(side) <= MAX_UNITS:
            raise DustsimError(f"a side has one to {MAX_UNITS} units, got {len(side)}",
                               field=label)
        for du in side:
            for c in (du.card, du.hero):
                if c is not None and DEFAULT_RULESET_FOR_EDITION.get(c.edition) != ruleset:
                    raise DustsimError(f"a {c.edition} card cannot play under {ruleset}",
                                       unit=c.name, field=label)
    all_units = [*side_a, *side_b]
    sides = [0] * len(side_a) + [1] * len(side_b)
    U = len(all_units)
    notes: list[str] = []
    targets = []
    for du in all_units:
        try:
            targets.append(_memo(("target", id(du.card), id(du.hero), du.cover,
                                  policy.allocation), (du.card, du.hero),
                                 lambda du=du: _interned(_target(du, policy.allocation))))
        except DustsimError as exc:
            raise DustsimError(exc.message, unit=exc.unit or du.card.name,
                               field=exc.field) from None
    # each unit compiled on its own once (memoised), then the sides are paired
    compiled = [_memo(("unit", id(du.card), id(du.hero), id(du.pilot), du.cover, policy,
                       rs_key), (du.card, du.hero, du.pilot),
                      lambda du=du, tg=tg: _compile_unit(du, tg, policy, ruleset, rs, rs_key))
                for du, tg in zip(all_units, targets, strict=True)]
    units = np.zeros((U, K.N_UNIT_COLS), np.int64)
    wrows: list[list[int]] = []
    wlist: list[tuple[int, Weapon, Card]] = []
    for u, cu in enumerate(compiled):
        units[u] = cu.row
        units[u, K.U_SIDE] = sides[u]
        units[u, K.U_W0] = len(wlist)
        for w, carrier, wrow, _skills in cu.weapons:
            wlist.append((u, w, carrier))
            wrows.append([u, *wrow])
        units[u, K.U_W1] = len(wlist)
        notes.extend(cu.notes)
    W = len(wlist)
    weapons = np.zeros((W, K.N_WEAPON_COLS), np.int64)
    weapons[:, : K.W_SCREAM + 1] = np.asarray(wrows, np.int64).reshape(W, K.W_SCREAM + 1)
    weapons[:, K.W_STEALTH] = [int("stealth" in w.keywords) for _u, w, _c in wlist]
    gdice = np.zeros((max(W, 1), U), np.int64)
    gblast = np.zeros((max(W, 1), U), np.int64)
    groups = np.zeros((max(W, 1), U, 2, K.N_GROUP_COLS), np.int64)
    tspec = np.zeros((U, 13), np.int64)
    for t, cu in enumerate(compiled):
        tspec[t] = cu.tspec
    unusable: set[str] = set()
    for u, cu in enumerate(compiled):
        w0 = int(units[u, K.U_W0])
        for t, ct in enumerate(compiled):
            if sides[t] == sides[u]:
                # Psychic Scream, Large Ordnance and artillery areas hit friends too
                # (rules.attack.is_psychic_scream; L3224: both enemy and ally)
                if t != u:
                    for k, (w, _carrier, wrow, skills) in enumerate(cu.weapons):
                        # and a Mindless Zombie's lines, and its friends' (their close-combat
                        # retaliation): a swarm's BRAINSSSS! (L1634, L763-765; grids)
                        if wrow[K.W_SCREAM - 1] or "artillery" in w.keywords \
                                or _mindless(all_units[u]) \
                                or _mindless(all_units[t]):
                            rows, blast, dice, _unk = _weapon_vs(w, skills, ct.target, rs,
                                                                 rs_key)
                            for variant, row in enumerate(rows):
                                groups[w0 + k, t, variant, :len(row)] = row
                            gblast[w0 + k, t], gdice[w0 + k, t] = blast, dice
                continue
            block = _memo(("pair", id(cu), id(ct), rs_key), (cu, ct),
                          lambda cu=cu, ct=ct: _pair_block(cu, ct, rs, rs_key))
            bunker = cu.target.fortification == "bunker"
            for k, (rows, blast, dice, unknown) in enumerate(block):
                if bunker and (ct.target.target_type == "aircraft"
                               or "artillery" in cu.weapons[k][0].keywords):
                    continue  # no fire at aircraft, no artillery from a bunker (L3132)
                if unknown:
                    w, carrier = cu.weapons[k][:2]
                    unusable.add(f"{carrier.name}: {w.name} vs {ct.target.column} unknown "
                                 "('?')")
                for variant, row in enumerate(rows):
                    groups[w0 + k, t, variant, :len(row)] = row
                if units[t, K.U_FLAGS] & K.F_SMOKE:  # the line against t in a smoke screen
                    from dustsim.engines.kernel import G_SAVE, G_SAVE_RR

                    w, _carrier, _row, skills = cu.weapons[k]
                    tgc = _interned(replace(ct.target, cover=True))
                    crows = _weapon_vs(w, skills, tgc, rs, rs_key)[0]
                    for variant, row in enumerate(crows):
                        groups[w0 + k, t, variant, K.G_COVER_SAVE] = row[G_SAVE]
                        groups[w0 + k, t, variant, K.G_COVER_RR] = row[G_SAVE_RR]
                gblast[w0 + k, t] = blast
                gdice[w0 + k, t] = dice
    notes.extend(sorted(unusable))
    # every rule on these cards that battles do not play: the one table (issue 23)
    notes.extend(unplayed_rules((c for du in all_units for c in (du.card, du.hero, du.pilot)),
                                engine))
    if engine == "line":  # what the line itself leaves out (the grid's notes: play.battle)
        notes.insert(0, line_note(distance, ruleset))
    # one unit a side: the target and reactor choices have a single candidate, so the
    # value matrix that orders them is not needed (zeros behave the same)
    value = (_values(all_units, targets, sides, units, wlist, gdice + gblast, rs, compiled,
                     rs_key) if U > 2 else np.zeros((U, U), float))
    config = np.zeros(K.N_CONFIG, np.int64)
    config[K.C_TURNS] = turns
    config[K.C_DIST] = distance
    config[K.C_INIT] = ("roll", "a", "b").index(policy.initiative)
    config[K.C_PASS] = int(policy.passing == "when-allowed")
    config[K.C_APPROACH] = int(policy.approach == "close-in")
    config[K.C_SUPP] = int(rs.suppression)
    config[K.C_TIEBREAK] = int(ruleset != "tactics-2009")  # 2009: ties re-rolled (L229-231)
    config[K.C_INIT_DICE] = INITIATIVE_DICE
    config[K.C_REACT_DICE] = rs.reactive_dice
    config[K.C_P] = P.mask
    config[K.C_T] = T.mask
    config[K.C_BURST] = int(ruleset == "tactics-2013")
    config[K.C_SALVO] = int(policy.salvo == "when-loaded")
    config[K.C_VOLLEY] = int(policy.volley == "all")
    config[K.C_FIRST] = int(policy.initiative_choice == "go-second")
    config[K.C_CHARGE] = int(policy.charge == "when-able")
    config[K.C_ORDERS] = int(policy.orders == "get-moving")
    strength = tuple(int(units[u, K.U_MODELS] + units[u, K.U_HERO] + units[u, K.U_SINGLE])
                     for u in range(U))
    return DuelSpec(
        ruleset=ruleset, names=tuple(du.name for du in all_units), sides=tuple(sides),
        ap=np.array([du.ap for du in all_units], float), strength=strength, units=units,
        weapons=weapons, gdice=gdice, gblast=gblast, groups=groups, tspec=tspec,
        config=config, value=value, distance=distance, turns=turns, policy=policy,
        notes=tuple(dict.fromkeys(notes)),
    )


def line_note(distance: int, ruleset: str) -> str:
    """The note of every duel on a line: what the abstraction leaves out (module docstring)."""
    board = ("the board plays them: --scenario NAME" if ruleset == "dust-1947" else
             "the board plays Dust 1947 only")
    return (f"played on a line, {distance} squares apart: units move straight at their "
            "targets, line of sight is always clear, cover is fixed per unit, and there are no "
            f"terrain, fire arcs, objectives or deployment ({board}); units activate in the "
            "order listed")


# -- running --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DuelResult(ResultAPI):
    """Outcome of an engagement: who wins, when, what it costs, who survives.

    ``p_a_wins``: side B destroyed within the turn limit, side A not; ``p_draw`` ("no
    result"): both sides still standing after the last turn. ``turns_to_win[s]`` is the
    distribution of the turn in which side ``s`` destroyed the other (given that it did).
    ``ap_lost[s]`` is the mean army points of side ``s``'s destroyed units; ``left[unit]``
    the distribution of what a unit has left (models + hero track + damage track).
    """

    spec: DuelSpec
    trials: int
    seed: int
    counts: np.ndarray
    turn_hist: np.ndarray
    ap_sums: np.ndarray
    strength_hist: np.ndarray
    alive_hist: np.ndarray

    def _p(self, i: int) -> float:
        return proportion(self.counts[i], self.trials)[0]

    @property
    def p_a_wins(self) -> float:
        return self._p(0)

    @property
    def p_b_wins(self) -> float:
        return self._p(1)

    @property
    def p_draw(self) -> float:
        return self._p(2)

    #: the outcome names ``se()`` took before the result API (deprecated)
    _SE_ALIASES: ClassVar[dict[str, str]] = {"a": "p_a_wins", "b": "p_b_wins",
                                             "none": "p_draw"}

    def _standard_errors(self) -> dict[str, float]:
        out = {k: proportion(self.counts[i], self.trials)[1]
               for i, k in enumerate(("p_a_wins", "p_b_wins", "p_draw"))}
        for s in ("a", "b"):
            dist = self.turns_to_win(s)
            out[f"expected_turns_{s}_wins"] = (math.nan if dist is None else
                                               dist.mean_se or 0.0)
            out[f"ap_lost_{s}"] = self.ap_lost(s)[1]
        return out

    def turns_to_win(self, side: str) -> Distribution | None:
        i = OUTCOMES.index(side)
        n = self.counts[i]
        if n == 0:
            return None
        return Distribution(self.turn_hist[i] / n, trials=int(n))

    def ap_lost(self, side: str) -> tuple[float, float]:
        """(mean, standard error) of the army points side ``side`` loses."""
        i = OUTCOMES.index(side)
        return mean_se(self.ap_sums[i, 0], self.ap_sums[i, 1], self.trials)

    def left(self, unit: int | str) -> Distribution:
        u = unit if isinstance(unit, int) else self.spec.names.index(unit)
        h = self.strength_hist[u, : self.spec.strength[u] + 1]
        return Distribution(h / self.trials, trials=self.trials)

    def units_left(self, side: str) -> Distribution:
        i = OUTCOMES.index(side)
        n = sum(1 for s in self.spec.sides if s == i)
        return Distribution(self.alive_hist[i, : n + 1] / self.trials, trials=self.trials)

    def _items(self) -> list[tuple[str, str]]:
        from dustsim.engines.display import num, with_se

        sp = self.spec
        sides = {s: ", ".join(n for n, x in zip(sp.names, sp.sides, strict=True)
                              if OUTCOMES[x] == s) for s in ("a", "b")}
        items = [("A", sides["a"]), ("B", sides["b"]),
                 ("P(A wins)", with_se(self.p_a_wins, self.se("p_a_wins"))),
                 ("P(B wins)", with_se(self.p_b_wins, self.se("p_b_wins"))),
                 ("P(no result)", with_se(self.p_draw, self.se("p_draw")))]
        for s in ("a", "b"):
            m, _ = self.ap_lost(s)
            items.append((f"AP lost by {s.upper()}", num(m)))
        items.append(("duels", f"{self.trials:,}, seed {self.seed}, {sp.ruleset}, "
                               f"{line_words(sp.distance, sp.ruleset)}, up to {sp.turns} turns"))
        return items

    def __repr__(self) -> str:
        from dustsim.engines.display import text

        return text("DuelResult", "", self._items())

    def _repr_html_(self) -> str:
        from dustsim.engines.display import table

        return table("Duel", self._items())

    def to_dict(self) -> dict:
        """The full record (the CLI's ``--json`` object): units and notes included."""
        sp = self.spec
        d = {
            "ruleset": sp.ruleset, "scenario": LINE, "distance": sp.distance, "turns": sp.turns,
            "policy": dict(vars(sp.policy)), "trials": self.trials, "seed": self.seed,
            "p_a_wins": self.p_a_wins, "p_b_wins": self.p_b_wins, "p_draw": self.p_draw,
            "se_p_a_wins": self.se("p_a_wins"), "se_p_b_wins": self.se("p_b_wins"),
            "se_p_draw": self.se("p_draw"),
        }
        for s in ("a", "b"):
            dist = self.turns_to_win(s)
            d[f"expected_turns_{s}_wins"] = None if dist is None else dist.mean()
            m, se = self.ap_lost(s)
            d[f"ap_lost_{s}"] = m if math.isfinite(m) else None
            d[f"se_ap_lost_{s}"] = se if math.isfinite(se) else None
            d[f"pmf_units_left_{s}"] = self.units_left(s).to_list()
        d["units"] = [
            {"side": OUTCOMES[sp.sides[u]], "name": sp.names[u],
             "ap": None if not math.isfinite(sp.ap[u]) else float(sp.ap[u]),
             "start": sp.strength[u], "p_destroyed": float(self.left(u).pmf(0)),
             "mean_left": self.left(u).mean(), "pmf_left": self.left(u).to_list()}
            for u in range(len(sp.names))
        ]
        d["notes"] = list(sp.notes)
        return d

    def _frame_rows(self) -> list[dict]:
        """Per side: units left and the turn of its win; per unit: what it has left
        (models + hero track + damage track)."""
        rows = []
        for s in ("a", "b"):
            rows += distribution_rows("units_left", self.units_left(s), side=s.upper())
            dist = self.turns_to_win(s)
            if dist is not None:
                rows += distribution_rows("turns_to_win", dist, side=s.upper())
        for u, name in enumerate(self.spec.names):
            rows += distribution_rows("left", self.left(u),
                                      side=OUTCOMES[self.spec.sides[u]].upper(), unit=name)
        return rows


def _arrays(spec: DuelSpec) -> tuple:
    """The spec's arrays as the engagement kernel takes them."""
    return (spec.units, spec.weapons, spec.gdice, spec.gblast, spec.groups, spec.tspec,
            spec.config, spec.value)


def game_outcomes(spec: DuelSpec) -> Outcomes:
    """The per-game record of :func:`dustsim.play.duel_kernel.play_games` for ``spec`` and
    what a duel keeps of it (:mod:`dustsim.engines.montecarlo`): the AP lost per side (sum
    and sum of squares), the winner, the winner by turn, the units left per side and what
    each unit has left (counts)."""
    U = len(spec.names)
    cols = K.GAME_COLUMNS + tuple(f"left_{u}" for u in range(U))
    hists = ((("winner",), (3,)), (("winner", "turn"), (3, spec.turns + 1)),
             (("alive_a",), (U + 1,)), (("alive_b",), (U + 1,)),
             *(((f"left_{u}",), (max(spec.strength) + 1,)) for u in range(U)))
    return Outcomes(cols, sums=("lost_a", "lost_b"),
                    products=(("lost_a", "lost_a"), ("lost_b", "lost_b")), counts=hists)


def duel_games(rng, n, spec: DuelSpec) -> np.ndarray:
    """A chunk's per-game records (:func:`game_outcomes`)."""
    return K.games(rng, n, _arrays(spec), np.nan_to_num(spec.ap))


def simulate_duel(spec: DuelSpec, trials: int = DEFAULT_TRIALS, seed: int = 0, *,
                  threads: int | None = None, progress: bool = False) -> DuelResult:
    """Monte Carlo over ``trials`` engagements, in fixed chunks seeded from one SeedSequence
    (:func:`dustsim.engines.montecarlo.run`: the same numbers for any thread count)."""
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise DustsimError("--trials must be >= 1", field="trials")
    t = run(duel_games, spec, MonteCarloRun(trials, seed, CHUNK, "duels", "duel"),
            game_outcomes(spec), threads=threads, progress=progress)
    U = len(spec.names)
    ap_sums = np.array([[t.sum("lost_a"), t.product("lost_a")],
                        [t.sum("lost_b"), t.product("lost_b")]], float)
    for i in (0, 1):
        if any(not math.isfinite(spec.ap[u]) for u in range(U) if spec.sides[u] == i):
            ap_sums[i] = np.nan  # an unknown cost makes the side's loss unknown
    strength_hist = np.stack([t.count(f"left_{u}") for u in range(U)])
    alive_hist = np.stack([t.count("alive_a"), t.count("alive_b")])
    return DuelResult(spec, trials, seed, t.count("winner"), t.count("winner", "turn"),
                      ap_sums, strength_hist, alive_hist)


@dataclass(frozen=True)
class ScriptedDuel:
    winner: str
    turn: int
    left: dict[str, int]
    dice_used: int


def replay_duel(spec: DuelSpec, faces: str | list[int]) -> ScriptedDuel:
    """Play one engagement with given faces (``"PPTSS..."``); every face must be used."""
    from dustsim.rules.dice import parse_faces

    arr = np.asarray(parse_faces(faces) if isinstance(faces, str) else faces, np.uint8)
    U = len(spec.names)
    st = np.zeros((U, 8), np.int64)
    out = np.zeros(4, np.int64)
    from dustsim.engines.rng import scripted_state

    K._run_duel_scripted(scripted_state(), arr, spec.units, spec.weapons, spec.gdice,
                         spec.gblast, spec.groups, spec.tspec, spec.config, spec.value, st, out)
    if out[3]:
        raise DustsimError(f"the scripted dice ran out after {len(arr)} faces", field="dice")
    if out[2] != len(arr):
        raise DustsimError(f"only {out[2]} of the {len(arr)} scripted faces were needed",
                           field="dice")
    left = {spec.names[u]: int(st[u, 0] + st[u, 1] + st[u, 2]) for u in range(U)}
    return ScriptedDuel(OUTCOMES[out[0]], int(out[1]), left, int(out[2]))


#: where a duel is fought: ``LINE`` (the engagement kernel on a line: :func:`compile_duel`,
#: :func:`simulate_duel`) or a Dust 1947 scenario's board (:mod:`dustsim.play.battle`)
LINE = "line"
#: the board of a Dust 1947 duel unless ``scenario`` says otherwise (101 Firefight)
DUEL_SCENARIO = "101"
#: a duel's settings that exist only on the line (the board has its own: cover from the
#: terrain, the sides entering from their edges, the battle policies)
LINE_ONLY = ("distance", "cover", *DuelPolicy.CHOICES)


def duel_scenario(ruleset: str = "dust-1947", scenario: str | int | None = None) -> str:
    """Where a duel under ``ruleset`` is fought: ``"line"`` or the scenario asked for. Default:
    Dust 1947 on :data:`DUEL_SCENARIO`'s board; the Tactics rulesets on the line, their only
    mode (the board plays Dust 1947)."""
    if ruleset not in DUEL_RULESETS:
        raise DustsimError(f"duels are played under {', '.join(DUEL_RULESETS)}; "
                           f"{ruleset!r} is not one (Dust Epic: `dustsim epic battle`)",
                           field="--ruleset")
    if scenario is None:
        return DUEL_SCENARIO if ruleset == "dust-1947" else LINE
    if str(scenario).strip().lower() == LINE:
        return LINE
    if ruleset != "dust-1947":
        raise DustsimError(f"{ruleset} duels are fought on a line only (the board and its "
                           f"scenarios play Dust 1947): leave out --scenario {scenario} or "
                           f"give --scenario {LINE}", field="--scenario")
    return str(scenario)


def default_trials(where: str) -> int:
    """A duel's default number of games: ``DEFAULT_TRIALS`` on the line, ``BATTLE_TRIALS`` on a
    scenario's board (a whole game on the grid, as ``dustsim list vs``)."""
    from dustsim import BATTLE_TRIALS

    return DEFAULT_TRIALS if where == LINE else BATTLE_TRIALS


def line_words(distance: int, ruleset: str) -> str:
    """Where a line duel was fought, for a header: ``on a line, 6 squares apart`` (and, for
    the Tactics rulesets, that the line is their only mode)."""
    where = f"on a line, {distance} squares apart"
    if ruleset != "dust-1947":
        where += " (the only mode of Tactics duels: the board plays Dust 1947)"
    return where


def duel(side_a, side_b, *, ruleset: str = "dust-1947", scenario: str | int | None = None,
         distance: int | None = None, turns: int | None = None, trials: int | None = None,
         seed: int = 0, threads: int | None = None, cards: list[Card] | None = None,
         policy: DuelPolicy | str | Policy | None = None, options: dict | None = None,
         progress: bool = False, attacker: str | None = None, variant: str | None = None,
         **policy_kw) -> DuelResult | BattleResult:
    """Play an engagement: sides as strings (``"Pounder, Ranger Combat Squad"``) or sequences
    of :class:`DuelUnit` / :class:`Card`.

    Where (:func:`duel_scenario`): a Dust 1947 duel is fought on ``scenario``'s board (default
    101 Firefight: :func:`dustsim.play.battle.battle`, every rule the board plays; ``policy``
    a battle policy name, ``attacker``/``variant`` as there; ``trials`` default
    ``BATTLE_TRIALS``) and returns a :class:`~dustsim.play.battle.BattleResult`;
    ``scenario="line"`` (and every Tactics duel) plays the line (``distance``, ``turns``
    default :data:`DUEL_DISTANCE`/:data:`DUEL_TURNS`, units in cover, a :class:`DuelPolicy`
    or its choices as keywords; ``trials`` default ``DEFAULT_TRIALS``) and returns a
    :class:`DuelResult`. A line-only setting on a board is an error naming it."""
    where = duel_scenario(ruleset, scenario)

    def side(s, label):
        if isinstance(s, str):
            from dustsim.data.cards import load_cards

            return parse_side(s, cards if cards is not None else load_cards(), ruleset,
                              field_name=label)
        return tuple(x if isinstance(x, DuelUnit) else DuelUnit(x) for x in s)

    unknown = sorted(set(policy_kw) - set(DuelPolicy.CHOICES))
    if unknown:
        import difflib

        near = difflib.get_close_matches(unknown[0], DuelPolicy.CHOICES, n=1)
        raise DustsimError(f"duel() has no setting {unknown[0]!r}"
                           + (f"; did you mean {near[0]!r}?" if near else "")
                           + f" (the line's policy choices: {', '.join(DuelPolicy.CHOICES)})",
                           field=unknown[0])
    ua, ub = side(side_a, "--side-a"), side(side_b, "--side-b")
    if where == LINE:
        for name, v in (("attacker", attacker), ("variant", variant)):
            if v is not None:
                raise DustsimError(f"{name}= applies to a scenario's board, not to a duel on "
                                   "a line", field=f"--{name}")
        if policy is not None and not isinstance(policy, DuelPolicy):
            raise DustsimError(f"policy {policy!r}: a duel on a line takes a DuelPolicy (or "
                               f"its choices as keywords: {', '.join(DuelPolicy.CHOICES)})",
                               field="--policy")
        if policy_kw:
            policy = replace(policy or DuelPolicy(), **policy_kw)
        spec = compile_duel(ua, ub, ruleset=ruleset,
                            distance=DUEL_DISTANCE if distance is None else distance,
                            turns=DUEL_TURNS if turns is None else turns, policy=policy,
                            options=options)
        return simulate_duel(spec, default_trials(where) if trials is None else trials, seed,
                             threads=threads, progress=progress)
    from dustsim.play.battle import prepare, simulate_battle
    from dustsim.play.policies import DEFAULT_POLICY

    on = {"distance": distance is not None, "cover": any(u.cover for u in (*ua, *ub)),
          **{k: k in policy_kw for k in DuelPolicy.CHOICES}}
    given = [k for k in LINE_ONLY if on[k]] + ["policy"] * isinstance(policy, DuelPolicy)
    if given:
        what = "a DuelPolicy" if given[0] == "policy" else given[0]
        raise DustsimError(f"{what} applies to duels on a line only, not on scenario "
                           f"{where}'s board (cover from the terrain, the sides entering from "
                           f"their edges, a battle policy by name): give scenario='{LINE}' or "
                           f"leave it out", field=f"--{given[0]}")
    spec = prepare(ua, ub, scenario=where, seed=seed, policy=policy or DEFAULT_POLICY,
                   attacker=attacker, turns=turns, options=options, variant=variant)
    names = tuple(", ".join(u.name for u in s) for s in (ua, ub))
    return simulate_battle(replace(spec, list_names=names),
                           default_trials(where) if trials is None else trials, seed,
                           threads=threads, progress=progress)


def duel_matrix(cards: list[Card], *, ruleset: str = "dust-1947", distance: int = 8,
                turns: int = 5, trials: int = 4_000, seed: int = 0,
                policy: DuelPolicy | None = None, progress: bool = False) -> pd.DataFrame:
    """Every card against every card, one on one (tidy: unit_a, unit_b, p_a_wins, ...).

    Each pairing gets its own stream (``SeedSequence(seed)`` spawned per pairing, in order),
    and side A is the row unit; pairings that cannot be played (unknown move, size) are
    listed with ``playable = False`` and no figures.
    """
    import pandas as pd

    pairs = [(a, b) for a in cards for b in cards]
    seeds = np.random.SeedSequence(seed).spawn(len(pairs))
    rows = []
    it = pairs
    if progress:
        from tqdm import tqdm

        it = tqdm(pairs, desc="duels", unit="pairing", leave=False)
    for (a, b), ss in zip(it, seeds, strict=True):
        row = {"unit_a": a.name, "unit_b": b.name, "ap_a": a.ap, "ap_b": b.ap,
               "distance": distance, "turns": turns, "trials": trials}
        try:
            spec = compile_duel([DuelUnit(a)], [DuelUnit(b)], ruleset=ruleset,
                                distance=distance, turns=turns, policy=policy)
        except DustsimError as exc:
            rows.append({**row, "playable": False, "why": str(exc)})
            continue
        r = simulate_duel(spec, trials, int(ss.generate_state(1)[0]), threads=1)
        s = r.to_dict()
        rows.append({**row, "playable": True, "why": "",
                     "p_a_wins": r.p_a_wins, "p_b_wins": r.p_b_wins, "p_draw": r.p_draw,
                     "se_p_a_wins": r.se("p_a_wins"),
                     "expected_turns_a_wins": s["expected_turns_a_wins"],
                     "ap_lost_a": s["ap_lost_a"], "ap_lost_b": s["ap_lost_b"]})
    return pd.DataFrame(rows)
