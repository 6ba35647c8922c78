"""A card's whole attack action compiled against a target: the one place the static tables,
list summaries, the CLI and the Python API turn a card into an attack."""

from __future__ import annotations

from dustsim.data.cards import Card
from dustsim.data.editions import DEFAULT_RULESET_FOR_EDITION
from dustsim.errors import DustsimError
from dustsim.rules.attack import (
    Situation,
    Target,
    attacker_skills,
    compile_attack,
    weapon_choices,
)
from dustsim.rules.rulesets import Ruleset


def card_attack_spec(attacker: Card, target: Target, *, action: str = "attack",
                     moved: bool = False, close_combat: bool = False,
                     ruleset: str | Ruleset | None = None, extra_skills: tuple[str, ...] = (),
                     distance: int | None = None, with_choices: bool = False,
                     **situation):
    """Compile a card's whole attack action (every weapon that can hurt the target, and is in
    range at ``distance`` when given). ``situation``: more :class:`Situation` fields (salvo,
    volley, aim, token). With ``with_choices``, also return the weapon lines fired and left
    out, with why (:func:`~dustsim.rules.attack.weapon_choices`)."""
    rs = ruleset or DEFAULT_RULESET_FOR_EDITION[attacker.edition]
    choices = weapon_choices(attacker, target.column, close_combat=close_combat,
                             distance=distance)
    weapons = [w for w, c in zip(attacker.weapons, choices, strict=True) if c.fired]
    if not weapons:
        why = "; ".join(f"{c.name}: {c.reason}" for c in choices)
        raise DustsimError(f"no weapon can damage a {target.column} target"
                           + (f" ({why})" if why else ""),
                           unit=attacker.name, field=target.column)
    sit = Situation(action=action, moved=moved, close_combat=close_combat,
                    skills=attacker_skills(attacker) | frozenset(extra_skills), **situation)
    spec = compile_attack(weapons, target, sit, rs)
    return (spec, choices) if with_choices else spec
