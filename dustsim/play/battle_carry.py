"""Transports on the grid (issue 23): passengers ride, dismount and bail out of a destroyed
vehicle, as small Numba helpers the battle kernel (:mod:`dustsim.play.battle_kernel`) calls
from short hooks, and :func:`fill_carry_facts`, which writes each unit's transport facts into
the kernel matrix. The rule's meaning lives with the flag
(:attr:`dustsim.rules.unit_rules.UnitRules.passengers`); lists say who rides where
(``transport = "<card>"``, :func:`dustsim.army.lists.passenger_spaces`).

What the kernel plays (seed 003 lines; the decisions are ours and named):

* **Passengers (#)** (L3619-3621, L522-530): a list's infantry unit with ``transport`` starts
  the game aboard that vehicle (L526: "mounted in a Vehicle at the beginning of the game");
  it is not on the board: it cannot be the target of an attack (L530), does not react, hold
  or contest objectives, and moves with its vehicle.
* It activates on its own (L528). Activating before its vehicle, it may dismount: a Move from
  the vehicle's square to a free square (the Move action of L528), then its second action
  (an Attack when one is worth something, else a Move; the Move + Attack draws a reaction as
  any other, L797-811). Activating after its vehicle it may not dismount.
* Policy (``carry``): an embarked unit dismounts when, standing on its vehicle's square, an
  enemy is within its Move plus the longest range of a line that hurts it, or an objective
  is within its Move (into range, onto the objective); it is then picked before its vehicle
  in its side's order (so that it may dismount, L528); otherwise it stays aboard and is picked
  last (the vehicle carries it on).
* Aboard, a passenger that does not dismount fires its personal weapons from the vehicle's
  square when it has a target (L528): an Attack, never a Sustained Attack, ranged lines only
  (no close-combat weapons; a support weapon unit does not fire), by at most half the
  vehicle's spaces of its soldiers (the per-side limit; their side arc, L528, is not played,
  so all fire at one side's target: decision); else it takes no action.
* Decision (gap, named in the skills table): passengers never mount during the game (the
  policy never takes a unit back in). Decision: a vehicle that leaves the board by its exit
  edge (exit scenarios) takes its passengers with it: they count as exited.
* **Dozer Blade** (L3503-3505): the Dozer special action digs the vehicle in: in cover from
  any angle until it takes a Move or March Move Action. Policy (``dig in``): a vehicle with a
  Dozer Blade that would make a Sustained Attack from where it stands, in the open (its
  square gives a vehicle no cover), with an enemy within that enemy's Move plus the longest
  range of a line that hurts it, takes the Dozer special action and an Attack instead.
  Engineering (L3355-3357): with two actions left, a Dozer vehicle next to (range 1) a bunker
  or strongpoint square where an enemy unit stands takes two Engineering special actions and
  rolls a die: on P the fortification is buried and every unit in it is eliminated (its
  squares: the one aimed at and those of the same kind next to it; decision: the terrain
  stays as it was, the seeds do not say what a buried fortification becomes). Policy: it
  always tries when it can. No board of the fifteen scenarios has trenches or minefields, so
  filling a trench and clearing a minefield gap have nothing to act on.
* **Airlifter** (L3403-3405, L532-536) and **Air Assault** (L3379-3381): a list's Airmobile
  or Air Assault vehicle with ``transport`` starts carried by that Airlifter (one vehicle
  each: a decision, the lines give no number); carried, it is played as a passenger (not
  targetable, dismounts with a Move from the square below the Airlifter, L536); an Air
  Assault vehicle may also dismount after its Airlifter activated (L3381). A destroyed
  Airlifter: one die per point left on the vehicle's damage track, one point per P (Air
  Assault) or per P or S (others); no Damage Resilient (L536 names none: digest OPEN-24,
  decision); a survivor is placed on the Airlifter's square, Suppressed and activated, or is
  destroyed if it cannot stand there (occupied, or impassable for its class).
* **Amphibious** (L3411-3413): an amphibious ground vehicle enters and moves through water
  and swamp as open ground: it reads its own movement tables (its class's, with water and
  swamp costing what open ground costs), appended to the board matrix
  (:func:`table_rows`); on a board with neither they equal its class's. The replay log
  names the rule in ``units[].rules``.
* **Transport destroyed** (L530): one die per passenger (a soldier or a joined hero); each P
  (the digest's reading of the lost symbol, table §3: 1/3) is one passenger taking one point
  of damage, with no cover or infantry saves; Damage Resilient is rolled (one die per point,
  P cancels it, L3485). Decision (the seed is silent on who takes it, digest OPEN-24): the
  owner's choice, taken as a joined hero first when it survives the point, then soldiers of
  the unit with the most soldiers left. Each surviving unit is placed on a free square
  within range 1 of the wreck (best cover first, then the lowest square index), or is
  destroyed if there is none; survivors gain a Suppression token (unless immune) and count as
  activated this turn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np

from dustsim.play.board import BUNKER, STRONGPOINT  # noqa: F401 (the kernel reads them here)

#: the header slot of this module's block (one row per unit), the last of row 0's columns so
#: that no other block's slot meets it (the battle kernel checks the layout)
H_CARRY = 17
# columns of the carry block: the transport it starts in (+1; 0 none), the one it is in now
# (+1), Damage Resilient (bit 1 the soldiers, bit 2 the joined hero), its passenger spaces,
# scratch: a passenger already took its point of damage in this bail-out; Dozer Blade; dug in
# now (the Dozer special action, until it moves); a vehicle carried by an Airlifter; Air Assault
CY_START, CY_IN, CY_DR, CY_SPACES, CY_HIT, CY_DOZER, CY_DUG, CY_LIFT, CY_ASSAULT = range(9)
# the first rows of its movement tables in the board matrix ``bd``: move cost, adjacency (8),
# path costs to the objectives (n), static reach (4 per start square); its class's, or for an
# amphibious vehicle its class's amphibious tables (battle_kernel.bd_rows "amph")
CY_RMC, CY_RADJ, CY_RPC, CY_RST = 9, 10, 11, 12
#: movement classes (dustsim.play.board) with amphibious tables: the ground vehicles'
AMPHIBIOUS_CLASSES = (1, 2, 3, 4)  # TRACKED, WHEELED, HALF_TRACKED, WALKER

#: the transports' special events (battle_kernel.SP_EMBARKED ..), by their L_X code
CARRY_SPECIALS = {20: "embarked", 21: "dismount", 22: "aboard", 23: "bail-out", 24: "placed",
                  25: "dozer", 26: "bury"}

# the battle kernel's configuration row and its square count (read here; the kernel checks)
_R_B, _B_N = 2, 0
# battle configuration: 1 when some unit starts aboard a vehicle (:func:`reset_carry`; no unit
# boards later), else nobody can bail out of a destroyed transport (the kernel's ``_bail``)
B_ABOARD = 14

#: notes for a battle with passengers aboard (the decisions above, in short)
CARRY_NOTES = (
    "passengers (L522-530): start aboard as the list says; dismount with a Move when they "
    "activate before their vehicle and an enemy or objective is within reach (policy 'carry'); "
    "aboard they fire ranged weapons as side-mounted, half the spaces of soldiers (L528), "
    "and never remount",
    "an Airlifter's vehicle (L532-536, L3379-3381): played as a passenger; a destroyed "
    "Airlifter: one die per damage point left, a point per P (Air Assault) or P or S, no "
    "Damage Resilient (decision, OPEN-24), placed below it or destroyed",
    "a destroyed transport (L530): one die per passenger, each P one point of damage with no "
    "save (Damage Resilient rolled), a joined hero first, then the largest squad (decision, "
    "OPEN-24); survivors placed within range 1 or destroyed, Suppressed and activated",
)


def table_rows(n: int, cls: int, amphibious: bool) -> tuple[int, int, int, int]:
    """(move cost, adjacency, path cost, static) first rows in the board matrix of a unit of
    movement class ``cls``; an amphibious ground vehicle reads its class's amphibious tables
    (water and swamp as open ground, L3411-3413)."""
    from dustsim.play.battle_kernel import bd_rows

    if amphibious and cls in AMPHIBIOUS_CLASSES:
        R = bd_rows(n)
        a = R["amph"] + AMPHIBIOUS_CLASSES.index(cls) * R["amph_block"]
        return a, a + 1, a + 9, a + 9 + n
    return 9 * n + 4 + cls, 9 * n + 28 + cls * 8, 2 * n + cls * n, 9 * n + 84 + cls * n * 4


def fill_carry_facts(m: np.ndarray, units: Sequence, n_a: int, n: int = 0,
                     classes: Sequence[int] = ()) -> None:
    """Write each unit's transport facts into ``m``'s carry block (rows from ``m[0,
    H_CARRY]``): the vehicle it starts in (``DuelUnit.transport``, an index in its own side;
    side B's units follow side A's ``n_a``), Damage Resilient, its spaces; the rows of its
    movement tables on a board of ``n`` squares (``classes``: each unit's movement class)."""
    from dustsim.rules.unit_rules import unit_rules

    rc = int(m[0, H_CARRY])
    for u, du in enumerate(units):
        if classes:
            amph = bool(unit_rules(du.card).amphibious) and du.card.kind == "vehicle"
            m[rc + u, CY_RMC: CY_RST + 1] = table_rows(n, int(classes[u]), amph)
    for u, du in enumerate(units):
        t = int(getattr(du, "transport", -1))
        if t >= 0:
            t += 0 if u < n_a else n_a
            lifter = any(s.lower() == "airlifter" for s in units[t].card.skills) \
                if 0 <= t < len(units) else False
            if not 0 <= t < len(units) or (unit_rules(units[t].card).passengers <= 0
                                           and not lifter):
                from dustsim.errors import DustsimError

                raise DustsimError(f"transport {t} of {du.card.name} is not a unit with "
                                   "Passengers (#) of its side", unit=du.card.name,
                                   field="transport")
        m[rc + u, CY_START] = t + 1
        dr = 0
        if any(s.lower().startswith("damage resilient") for s in du.card.skills):
            dr |= 1
        hero = getattr(du, "hero", None)
        if hero is not None and any(s.lower().startswith("damage resilient")
                                    for s in hero.skills):
            dr |= 2
        m[rc + u, CY_DR] = dr
        r = unit_rules(du.card, hero, getattr(du, "pilot", None))
        m[rc + u, CY_SPACES] = r.passengers
        m[rc + u, CY_DOZER] = r.dozer_blade
        m[rc + u, CY_LIFT] = int(t >= 0 and du.card.kind == "vehicle")
        m[rc + u, CY_ASSAULT] = r.air_assault


def carry_rule_names(m: np.ndarray, u: int) -> list[str]:
    """This module's rules unit u plays (for the event log's ``units[].rules``)."""
    rc = int(m[0, H_CARRY]) + u
    n = int(m[_R_B, _B_N])
    cls = None
    for c in AMPHIBIOUS_CLASSES:
        if int(m[rc, CY_RMC]) == table_rows(n, c, True)[0]:
            cls = c
    return (["Amphibious"] if cls is not None else []) + \
        (["Dozer Blade"] if m[rc, CY_DOZER] else [])


def any_passengers(m: np.ndarray) -> bool:
    """Some unit starts the game aboard a transport."""
    rc = int(m[0, H_CARRY])
    return bool((m[rc: rc + int(m[0, 0]), CY_START] > 0).any())


@nb.njit(nogil=True, cache=True, _nrt=False)
def reset_carry(m):
    """Start of a game: every passenger aboard the vehicle its list puts it in."""
    rc = m[0, H_CARRY]
    aboard = 0
    for u in range(m[0, 0]):
        m[rc + u, CY_IN] = m[rc + u, CY_START]
        m[rc + u, CY_DUG] = 0
        aboard |= 1 if m[rc + u, CY_START] != 0 else 0
    m[_R_B, B_ABOARD] = aboard


@nb.njit(nogil=True, cache=True, _nrt=False)
def carrier(m, u):
    """The vehicle u is aboard, -1 if none."""
    return m[m[0, H_CARRY] + u, CY_IN] - 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def leave(m, u):
    """u is no longer aboard (dismounted, bailed out or destroyed)."""
    m[m[0, H_CARRY] + u, CY_IN] = 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def resilient(m, u, hero):
    """u's soldiers (``hero`` False) or its joined hero have Damage Resilient (L3481-3493)."""
    return (m[m[0, H_CARRY] + u, CY_DR] & (2 if hero else 1)) != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def spaces(m, t):
    """Vehicle t's passenger spaces (Passengers (#))."""
    return m[m[0, H_CARRY] + t, CY_SPACES]


@nb.njit(nogil=True, cache=True, _nrt=False)
def r_mc(m, u):
    """u's move-cost row in the board matrix."""
    return m[m[0, H_CARRY] + u, CY_RMC]


@nb.njit(nogil=True, cache=True, _nrt=False)
def r_adj(m, u):
    """u's first adjacency row (8 directions)."""
    return m[m[0, H_CARRY] + u, CY_RADJ]


@nb.njit(nogil=True, cache=True, _nrt=False)
def r_pc(m, u):
    """u's first path-cost row (one per square, a column per objective)."""
    return m[m[0, H_CARRY] + u, CY_RPC]


@nb.njit(nogil=True, cache=True, _nrt=False)
def r_static(m, u):
    """u's first static reach row (4 per start square)."""
    return m[m[0, H_CARRY] + u, CY_RST]


@nb.njit(nogil=True, cache=True, _nrt=False)
def lifted(m, u):
    """u is a vehicle carried by an Airlifter (L532-536)."""
    return m[m[0, H_CARRY] + u, CY_LIFT] != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def assault(m, u):
    """u is an Air Assault vehicle: it may dismount after its Airlifter activated, and a
    destroyed Airlifter hurts it on P only (L3379-3381)."""
    return m[m[0, H_CARRY] + u, CY_ASSAULT] != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def dozer(m, u):
    """u has a Dozer Blade (L3503)."""
    return m[m[0, H_CARRY] + u, CY_DOZER] != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def dug_in(m, u):
    """u took the Dozer special action and has not moved since: in cover from any angle
    (L3505)."""
    return m[m[0, H_CARRY] + u, CY_DUG] != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def dig(m, u, on):
    """The Dozer special action (``on`` 1) or a Move / March Move that ends it (0)."""
    m[m[0, H_CARRY] + u, CY_DUG] = on


from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
