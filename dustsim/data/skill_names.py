"""The vocabulary of skill names a card may carry: every real skill's base name with its
source, the spelling variants, and the one skill-name normaliser.

This is the data layer's half of the skills: the card validator (:mod:`dustsim.data.cards`)
refuses a name that is in no row here, so a typo ("Damage Resiliant") cannot silently switch
a rule off. Which of these skills the engines model, and how, is the rules' half
(:mod:`dustsim.rules.skills`, :mod:`dustsim.rules.attack`); a test keeps every modelled skill
in this vocabulary.

To add a skill: put its base name here with where it comes from (``data``: printed on cards
of the bundled unit data; ``1947 §12`` etc.: the rules digest; ``modelled``: one of the skills
the engines model, see :data:`dustsim.rules.skills.MODELLED`).
"""

from __future__ import annotations

import re

#: spelling variants -> the base name (card data and DUST ENLIST spellings)
SKILL_ALIASES = {"super human": "superhuman", "berzerk": "berserk",
                 "nothin's easy": "nothin' easy", "nothins easy": "nothin' easy",
                 # DUST ENLIST spellings (issue 12)
                 "power scopes": "power scope", "strong point": "strongpoint"}

#: base name -> source: every real skill
SKILLS: dict[str, str] = {
    # modelled by the engines (dustsim.rules.attack: ATTACKER_SKILLS, TARGET_SKILLS)
    "air alert": "modelled", "and stay down": "modelled", "assassin": "modelled",
    "berserk": "modelled", "cheat death": "modelled", "damage resilient": "modelled",
    "defensive tactics": "modelled", "expert": "modelled", "fighting spirit": "modelled",
    "frenzy": "modelled", "killing spree": "modelled", "lucky": "modelled",
    "medal of honor": "modelled", "nothin' easy": "modelled", "power scope": "modelled",
    "savage animal": "modelled", "sniper": "modelled", "spotter": "modelled",
    "steel guard": "modelled", "superhuman": "modelled", "take aim": "modelled",
    "zombie": "modelled",
    # real skills the engines do not model (movement, transport, command, campaign and
    # special actions, vehicle types)
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


def norm_skill(s: str) -> str:
    """Lower case, ``-``/``_`` as spaces, spaces collapsed, spelling variants resolved."""
    s = " ".join(s.strip().lower().replace("-", " ").replace("_", " ").split())
    return SKILL_ALIASES.get(s, s)


def skill_base(skill: str) -> str:
    """``"Expert - Flamethrower"`` -> ``"expert"``; ``"Passengers (12)"`` -> ``"passengers"``."""
    return norm_skill(_PARAM.split(skill, maxsplit=1)[0].rstrip(". "))


def is_skill(skill: str) -> bool:
    """Whether ``skill`` (with any parameter) is a real skill of the vocabulary."""
    return skill_base(skill) in SKILLS


def suggest(skill: str) -> str:
    """A hint naming the closest known skills, or ''."""
    import difflib

    close = difflib.get_close_matches(skill_base(skill), sorted(SKILLS), n=3, cutoff=0.7)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
