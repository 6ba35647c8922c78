"""Unit skills: the ones the engines model, and the documented table of known unmodelled ones.

A card's skill is checked by its base name (lower case; a parameter such as ``Passengers
(12)``, ``Pilot: Sigrid`` or ``Expert - Flamethrower`` dropped). A skill the engines model
(:data:`MODELLED`) changes the numbers; a skill in :data:`KNOWN_UNMODELLED` is a real skill
the engines do not model (``validate --warnings`` lists each card carrying one); anything
else is refused, so a typo ("Damage Resiliant") cannot silently switch a rule off.

To add a skill: put its base name in :data:`KNOWN_UNMODELLED` with where it comes from
(``data``: printed on cards of the bundled unit data; ``1947 §12`` etc.: the rules digest).
"""

from __future__ import annotations

import re

from dustsim.rules.attack import ATTACKER_SKILLS, SKILL_ALIASES, TARGET_SKILLS

#: skills that change the engines' numbers (see dustsim.rules.attack)
MODELLED: frozenset[str] = frozenset(ATTACKER_SKILLS | TARGET_SKILLS)

#: base name -> source. Real skills the engines do not model (movement, transport, command,
#: campaign and special actions, vehicle types). Extend here, with the source.
KNOWN_UNMODELLED: dict[str, str] = {
    "ace air pilot": "1947 §12", "ace gunner": "data", "ace pilot": "1947 §12",
    "advanced reactive fire": "1947 §12", "air assault": "1947 §12",
    "air traffic control": "1947 §12", "airborne": "1947 §12", "aircraft": "1947 §12",
    "airlifter": "data", "airmobile": "data", "artillery observer": "1947 §12",
    "assault": "data", "assault shield": "data",
    "assault vehicle": "data", "at the double": "1947 §12", "black ops": "1947 §12",
    "blutkreuz": "data", "brave": "1947 §12", "camouflage": "1947 §12",
    "carry capacity": "data", "charge": "1947 §12", "combat medic": "data",
    "command squad": "data", "command vehicle": "1947 §12", "commissar": "1947 §12",
    "crazy jimmy": "data", "desert fox": "1947 §12", "devour": "data", "dozer blade": "data",
    "engineer vehicle": "data", "execute": "data", "fast": "data", "first strike": "1947 §12",
    "flying": "data", "follow me": "data", "general": "1947 §12",
    "get moving you": "data (Get Moving You Bunch of Monkeys)", "gorilla": "data",
    "half tracked": "data", "helicopter": "data", "huge vehicle": "data",
    "infantry ace": "1947 §12", "interrogate": "1947 §12", "jammer": "1947 §12",
    "jump": "data", "large vehicle": "data", "lesser mythos creatures": "data",
    "loner": "data", "mechanic": "data", "mechanic crew": "data", "medevac": "1947 §12",
    "mercenary": "data", "mindless": "data", "move and fire": "1947 §12",
    "mythos creature": "data", "naval unit": "1947 §12", "nco command squad": "2013 §8",
    "officer": "data",
    "passengers": "data", "pilot": "data", "possessed": "data", "quick recovery": "data",
    "radar": "data", "raid": "data", "red banner": "1947 §12", "resurrection": "1947 §12",
    "scout": "1947 §12", "sealifter": "data", "sibling": "data", "small vehicle": "data",
    "small vehicles": "1947 §12", "smoke launchers": "data",
    "spy": "1947 §12", "strongpoint": "data", "superhumans": "1947 §12",
    "support weapon": "1947 §12", "tracked": "data", "trail blazer": "data",
    "wheeled": "data",
    # printed in the DUST ENLIST 1.50 data (issue 12): skills and unit-specific rules
    "air pilot": "data (ENLIST)", "ammo dump": "data (ENLIST)",
    "ammo supply": "data (ENLIST)", "amphibious": "data (ENLIST)",
    "blutkreuz traitor": "data (ENLIST)", "burn it!": "data (ENLIST)",
    "clean my optics": "data (ENLIST)", "critical repairs": "data (ENLIST)",
    "cultist command squad": "data (ENLIST)", "dazzling speed": "data (ENLIST)",
    "defensive pilot": "data (ENLIST)", "drive by shooting": "data (ENLIST)",
    "exalted": "data (ENLIST)", "explode": "data (ENLIST)", "fanatical": "data (ENLIST)",
    "high priest": "data (ENLIST)", "huge": "data (ENLIST; vehicle size)",
    "improved camouflage": "data (ENLIST)", "juice it up!": "data (ENLIST)",
    "justine's crew": "data (ENLIST)", "large": "data (ENLIST; vehicle size)",
    "master deceiver": "data (ENLIST)", "master fighter": "data (ENLIST)",
    "mechanic + engineer vehicle": "data (ENLIST)", "poison master": "data (ENLIST)",
    "psychic choir": "data (ENLIST)", "psychic scream": "data (ENLIST)",
    "psychic vortex": "data (ENLIST)", "rocket pack": "data (ENLIST)",
    "rosie's crew": "data (ENLIST)", "small": "data (ENLIST; vehicle size)",
    "small ammo dump": "data (ENLIST)", "smoke grenades": "data (ENLIST)",
    "tactician": "data (ENLIST)", "trailer": "data (ENLIST)", "unique": "data (ENLIST)",
    "vehicle squadron": "data (ENLIST)", "way of the serpent": "data (ENLIST)",
}

_PARAM = re.compile(r"\s*\(|:|\s+[-–—]\s+")


def skill_base(skill: str) -> str:
    """``"Expert - Flamethrower"`` -> ``"expert"``; ``"Passengers (12)"`` -> ``"passengers"``."""
    s = _PARAM.split(skill, maxsplit=1)[0].rstrip(". ")
    s = " ".join(s.strip().lower().replace("-", " ").replace("_", " ").split())
    return SKILL_ALIASES.get(s, s)


def classify(skill: str) -> str:
    """``modelled``, ``unmodelled`` (known, not modelled) or ``unknown``."""
    b = skill_base(skill)
    if b in MODELLED:
        return "modelled"
    if b in KNOWN_UNMODELLED:
        return "unmodelled"
    return "unknown"


def suggest(skill: str) -> str:
    """A hint naming the closest known skills, or ''."""
    import difflib

    close = difflib.get_close_matches(skill_base(skill), sorted(MODELLED | set(KNOWN_UNMODELLED)),
                                      n=3, cutoff=0.7)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
