"""Reserves in grid battles (issue 23; 1947 L3100-3104, scenarios 106 and 111): what a side's
Reserve [#] does on the board, the policy choosing what goes into Reserve, the kernel's columns
for it, and the decisions where the seeds leave it open.

**The rule** (L3102-3104). A scenario gives a side Reserve [#] (scenario 106's defender,
Reserve (2), L2650; scenario 111's variant, both sides, L2890). Each time one of its units is
eliminated the player may place it in Reserve, until # units have been placed; the same unit
may go again if destroyed again. A unit placed in Reserve is fresh: no damage, ammunition
replenished. Heroes never go into Reserve; nor do Strongpoint units (L3124). The player may
move a unit onto the play area from Reserve by activating it in any turn after the turn it was
eliminated; it enters from its side's deployment area.

**How the kernel plays it.** After every activation (:func:`dustsim.play.battle_kernel.
_reserve_check`) each unit destroyed since is examined once: when its side still has a
placement left and the unit may go (:func:`eligible`), it is placed (event ``reserve``): fresh
(models, damage track, ammunition and loading, no token, not Stunned, off the board, nothing
aboard), activated for the rest of this turn. From the next turn it is an unactivated unit off
the board: the activation policy picks it as any other and it comes on as units entering from
their zone do (a Move whose first square lies in the side's deployment zone; the event
``reserve-arrival`` opens that activation). An Airborne unit is instead placed anywhere (its
drop: L3393 places a unit held in Reserve as it places one at the start).

**Policy** (:data:`POLICIES`; a battle names the one it ran in its notes). ``first`` (the
default): the player elects every eligible unit eliminated while placements are left (a fresh
unit back in play is worth its points in fighting; a later, costlier loss cannot be foreseen).
``none``: never (the same battle without reserves, for comparisons).

**Decisions** (the seeds are silent; :data:`DECISIONS`, named in every battle's notes that
has a reserve):

* *Held in Reserve* (L1139, L1169, L1848, L2122, L3393): 1947 has no rule for holding a unit
  back at the start; the one Reserve rule (L3100-3104) is the return of eliminated units. A
  unit "held in Reserve" is one placed in Reserve under it.
* *The arrival roll* (Rangers Lead the Way L1139, Lightning Strike L1169: an extra die when
  rolling for a unit to arrive): L3104 has no roll, a unit in Reserve comes on when its player
  activates it (digest OPEN-23). The extra die has no roll to join: it changes nothing.
* *Victory points and losses* (L2886: the enemy units destroyed during the game, L3102): each
  destruction counts, a unit destroyed twice scores twice (as Dust Tactics says outright,
  seed 000 L507); the curves of AP lost count the same way. Annihilation conditions (L2684:
  a share of the enemy force destroyed) read the units destroyed now: a unit back from
  Reserve is not destroyed.
* *A joined hero or hero pilot* (L3104): the unit carries a hero, and heroes never go into
  Reserve: the unit does not either.
* *Per-game skills* (Lucky, Fighting Spirit, smoke launches): L3102 renews damage and
  ammunition only; uses spent stay spent. Camouflage from the start (L3457) is not renewed
  (the unit comes on later, not at the start).
* *The game's end* (battle kernel: a side with nothing left loses): a unit waiting in Reserve
  is something left.
* *A Spy* (L3655-3657) comes back as it comes on at the start: by its placement roll.
* *Surprise Strike* (L2122): At the Double in its first activation or in the activation it
  arrives from Reserve: the arrival activation is flagged for it.
* *A vehicle's wreck* (L486: a destroyed vehicle stays as a wreck): a vehicle placed in
  Reserve takes its wreck with it (the wreck is its miniature, which comes back fresh,
  L3102); a vehicle left destroyed stays a wreck.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np

from dustsim.play.battle_rules import H_XU
from dustsim.play.duel_layout import H_UNITS, U_SIDE

# -- layout (the reserves helper's slots: SP 31-34, WHY 12-13, RB 61-62, X 24-25, G 19-20) ------
#: unit facts: ELIGIBLE if the unit may go into Reserve, plus its side's Reserve [#] as the
#: attacker (bits 0-4) and as the defender (bits 5-9) under the battle's policy
X_RESERVE = 24
#: unit state this game: BACK x times it came back from Reserve + SEEN (its death examined,
#: not placed) + the turn it was placed in Reserve while it waits to come on (0: not waiting)
X_RES = 25
G_RES0 = 19  # game state: units side A has placed in Reserve this game (G_RES0 + 1: side B)
ELIGIBLE = 1 << 10
BACK = 1 << 12
SEEN = 1 << 11
WAIT = (1 << 10) - 1
#: X_RES bit: this activation's first action must be a Move or March Move (Close Cooperation's
#: escort, battle_platoon; L1353)
MOVE_FIRST = 1 << 30
#: X_RES bit: this activation is Knockout's March Move and Charge (battle_platoon; L1195), its
#: enemy in the bits from KNOCK_AT (1 + the unit); a unit's successful close-combat attack
#: leaves its enemy there too (until its activation ends)
KNOCK = 1 << 31
KNOCK_AT = 32
SP_RESERVE = np.int64(31)  # a destroyed unit placed in Reserve (L_HITS: placements so far,
# L_D0: the side's Reserve [#], L_TURN: the turn it was eliminated)
SP_ARRIVE = np.int64(32)  # a unit in Reserve activates to come on (L3104)
#: the special events' names (play.battle event log)
SPECIALS = {int(SP_RESERVE): "reserve", int(SP_ARRIVE): "reserve-arrival"}
LINES = "L3100-3104"

#: what goes into Reserve when the player may choose (module docstring)
POLICIES = {
    "first": "every eligible unit eliminated while placements are left goes into Reserve "
             "(L3102: the player may elect it)",
    "none": "no unit goes into Reserve (the same battle without reserves)",
}
DEFAULT_POLICY = "first"

DECISIONS = (
    "reserves (L3100-3104): a destroyed unit of a side with Reserve [#] goes into Reserve "
    "(policy '{policy}': {what}), comes back fresh (damage, ammunition) by activating in a "
    "later turn and enters from its deployment zone; heroes, units carrying a hero and "
    "Strongpoint units never go (L3104, L3124); an Airborne unit drops (L3393)",
    "reserves: 'held in Reserve' (L1139, L1169, L1848, L2122) is read as placed in Reserve "
    "under L3102-3104, the one reserve rule of 1947; L3104 has no arrival roll (OPEN-23), so "
    "an extra arrival die (Rangers Lead the Way, Lightning Strike) changes nothing",
    "reserves: each destruction scores its victory points and counts in the AP lost (L2886, "
    "L3102; seed 000 L507); annihilation conditions read units destroyed now (L2684); "
    "per-game skill uses are not renewed (L3102 renews damage and ammunition); a vehicle "
    "placed in Reserve leaves no wreck (its miniature comes back, L486, L3102)",
)


def eligible(card, hero, pilot) -> bool:
    """The unit may be placed in Reserve: not a hero, no hero joined or piloting (L3104), not
    a Strongpoint unit (L3124)."""
    from dustsim.rules.attack import fortification_of

    return card.kind != "hero" and hero is None and pilot is None and \
        fortification_of(card) == "none"


def fill_reserve_facts(m: np.ndarray, reserve: tuple[int, int], may: Sequence[bool],
                       policy: str = DEFAULT_POLICY) -> None:
    """Write each unit's reserve facts: ``reserve`` the scenario's (attacker, defender) Reserve
    [#], ``may[u]`` whether unit u may go (:func:`eligible`), ``policy`` of :data:`POLICIES`."""
    from dustsim.errors import DustsimError

    if policy not in POLICIES:
        raise DustsimError(f"unknown reserve policy {policy!r} (policies: "
                           f"{', '.join(POLICIES)})", field="reserve_policy")
    x0 = int(m[0, H_XU])  # battle_kernel.H_XU
    att, dfn = (0, 0) if policy == "none" else (min(int(reserve[0]), 31),
                                                 min(int(reserve[1]), 31))
    for u, ok in enumerate(may):
        m[x0 + u, X_RESERVE] = (ELIGIBLE if ok else 0) | att | (dfn << 5)
        m[x0 + u, X_RES] = 0


def notes(reserve: tuple[int, int], policy: str = DEFAULT_POLICY) -> tuple[str, ...]:
    """A battle's notes on its reserves (none when neither side has one)."""
    if max(reserve) <= 0:
        return ()
    first = DECISIONS[0].format(policy=policy, what=POLICIES[policy])
    return (f"reserves: the attacker has Reserve [{reserve[0]}], the defender Reserve "
            f"[{reserve[1]}] ({LINES})", first, *DECISIONS[1:])


@nb.njit(nogil=True, cache=True, _nrt=False)
def allowance(m, u, att):
    """The Reserve [#] of u's side in this game (``att``: the attacker's side), 0 when u may
    never go."""
    x = m[m[0, H_XU] + u, X_RESERVE]
    if (x & ELIGIBLE) == 0:
        return 0
    side = m[m[0, H_UNITS] + u, U_SIDE]
    return (x & 31) if side == att else ((x >> 5) & 31)


@nb.njit(nogil=True, cache=True, _nrt=False)
def any_reserve(m):
    """Some unit of the battle may go into Reserve."""
    x0 = m[0, H_XU]
    for u in range(m[0, 0]):
        if (m[x0 + u, X_RESERVE] & 1023) != 0 and (m[x0 + u, X_RESERVE] & ELIGIBLE) != 0:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def reset_reserve(m):
    """Start of a game: nobody in Reserve, nobody back."""
    x0 = m[0, H_XU]
    for u in range(m[0, 0]):
        m[x0 + u, X_RES] = 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def waiting(m, u):
    """The turn u was placed in Reserve while it waits to come on (0: not waiting)."""
    return m[m[0, H_XU] + u, X_RES] & WAIT


@nb.njit(nogil=True, cache=True, _nrt=False)
def back(m, u):
    """Times u came back from Reserve this game (each a destruction more, L2886)."""
    return (m[m[0, H_XU] + u, X_RES] & (MOVE_FIRST - 1)) // BACK


@nb.njit(nogil=True, cache=True, _nrt=False)
def knock_target(m, u):
    """The enemy Knockout's bits on u name (-1 none)."""
    return (m[m[0, H_XU] + u, X_RES] >> KNOCK_AT) - 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def set_knock(m, u, t, on):
    """Name enemy t on u (-1: clear), with the KNOCK bit when ``on``."""
    x = m[0, H_XU] + u
    m[x, X_RES] = (m[x, X_RES] & (KNOCK - 1)) | ((t + 1) << KNOCK_AT) | (KNOCK if on else 0)


from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
