"""Named battle policies: how units choose where to go, what to fire at and when.

A policy is a row of weights read by the battle kernel's scoring functions
(:mod:`dustsim.play.battle_kernel`: ``_offence``, ``_position``, ``_threat``, ``_lambda``);
the kernel scores every square a unit can reach this activation under each combination of
actions (Sustained Attack here, Move + Attack, Attack + Move, March Move, Reload + Attack;
one action when Suppressed) and takes the best. Adding a policy = adding a :class:`Policy`
to :data:`POLICIES` (same interface, different weights); the battle result names the policy
that ran. What every policy shares (the kernel's rules of choice):

* **each weapon its own target** (003 L657-663): from the square it fires from, every weapon
  line takes the enemy where its expected damage (exact engine, one carrier, target in the
  open or in cover as the line of sight gives it) takes the largest share of what that enemy
  has left, times the enemy's AP: range, line of sight and cover decide, and a damaged unit
  is worth finishing;
* **threat** of a square: the value the enemies within their Move + longest useful range of
  it would take from the unit there (halved for enemies that already acted this turn), lower
  in cover;
* the initiative winner activates first when one of its units can strike, else lets the
  opponent move first; the side with fewer unactivated units passes when allowed (L341);
  units that can strike activate before units that cannot.

Weights (``Policy``): ``threat`` (AP of expected loss weighed against AP of expected damage;
scaled down over the last ``hold_turns`` turns so that armies commit before the end, and up
for a damaged unit, which pulls it back), ``close`` (per square of gap beyond its longest
range to the nearest enemy it can hurt), ``objective`` (standing on an objective; a tenth of
it per square of path cost to the nearest), ``cover`` (a square that gives cover),
``sustained`` (worth of a Sustained Attack relative to an Attack when comparing plans),
``exit`` (per square to the exit edge, exit scenarios).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dustsim.errors import DustsimError


@dataclass(frozen=True)
class Policy:
    """One named policy: the weights of the kernel's scoring (module docstring)."""

    name: str
    doc: str
    threat: float
    close: float
    objective: float
    cover: float
    sustained: float
    hold_turns: float
    exit: float

    def row(self) -> np.ndarray:
        """The kernel's policy row (order of ``battle_kernel.PW_*``)."""
        return np.array([self.threat, self.close, self.objective, self.cover, self.sustained,
                         self.hold_turns, self.exit, 0.0], float)


POLICIES: dict[str, Policy] = {
    p.name: p for p in (
        Policy("hold-and-strike",
               "holds out of enemy reach until it can strike, takes cover, closes on what it "
               "can hurt, contests objectives, pulls damaged units back; commits over the "
               "last three turns",
               threat=0.8, close=0.3, objective=6.0, cover=0.3, sustained=1.25,
               hold_turns=3.0, exit=1.0),
        Policy("advance",
               "closes in and fires every activation, little regard for enemy reach (the "
               "line engine's approach, on the board)",
               threat=0.1, close=0.8, objective=6.0, cover=0.1, sustained=1.25,
               hold_turns=1.0, exit=1.5),
        Policy("cautious",
               "the default's weights with twice its regard for threat and cover, committing "
               "only over the last two turns",
               threat=1.6, close=0.15, objective=4.0, cover=0.6, sustained=1.25,
               hold_turns=2.0, exit=0.8),
    )
}
DEFAULT_POLICY = "hold-and-strike"


def get_policy(name: str) -> Policy:
    """The policy named ``name`` (:data:`POLICIES`)."""
    if isinstance(name, Policy):
        return name
    try:
        return POLICIES[str(name)]
    except KeyError:
        raise DustsimError(f"policy {name!r} is not one of {', '.join(POLICIES)}",
                           field="--policy") from None
