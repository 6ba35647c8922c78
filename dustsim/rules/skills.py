"""Unit skills: the ones the engines model, and the documented table of known unmodelled ones.

A card's skill is checked by its base name (lower case; a parameter such as ``Passengers
(12)``, ``Pilot: Sigrid`` or ``Expert - Flamethrower`` dropped). A skill the engines model
(:data:`MODELLED`) changes the numbers; a skill in :data:`KNOWN_UNMODELLED` is a real skill
the engines do not model (``validate --warnings`` lists each card carrying one); anything
else is refused, so a typo ("Damage Resiliant") cannot silently switch a rule off.

The names and their sources are the data layer's vocabulary
(:data:`dustsim.data.skill_names.SKILLS`, where a new skill goes); this module says which of
them the engines model.
"""

from __future__ import annotations

from collections.abc import Iterable

from dustsim.data.cards import Card
from dustsim.data.skill_names import SKILLS, skill_base, suggest  # noqa: F401  (re-exported)
from dustsim.rules.attack import ATTACKER_SKILLS, TARGET_SKILLS

#: skills that change the engines' numbers (see dustsim.rules.attack)
MODELLED: frozenset[str] = frozenset(ATTACKER_SKILLS | TARGET_SKILLS)

#: base name -> source. Real skills the engines do not model (movement, transport, command,
#: campaign and special actions, vehicle types): the vocabulary's other rows.
KNOWN_UNMODELLED: dict[str, str] = {k: v for k, v in SKILLS.items() if k not in MODELLED}


def classify(skill: str) -> str:
    """``modelled``, ``unmodelled`` (known, not modelled) or ``unknown``."""
    b = skill_base(skill)
    if b in MODELLED:
        return "modelled"
    if b in KNOWN_UNMODELLED:
        return "unmodelled"
    return "unknown"


def skill_warnings(cards: Iterable[Card]) -> list[str]:
    """One line per card carrying skills the engines do not model (known, documented)."""
    out = []
    for c in cards:
        unmodelled = [s for s in c.skills if classify(s) == "unmodelled"]
        if unmodelled:
            out.append(f"warning: {c.file}: unit {c.name!r}: skills not modelled: "
                       + ", ".join(unmodelled))
    return out
