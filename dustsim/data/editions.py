"""The editions a card may carry, and the ruleset each is played with by default."""

from __future__ import annotations

from types import MappingProxyType

#: Editions a card may carry; ``ffg-era`` cards (2010-2012 FFG) score with ``tactics-2013``.
EDITIONS: tuple[str, ...] = ("tactics-2009", "tactics-2013", "dust-1947", "epic", "ffg-era")
#: edition -> the id of its default ruleset (:data:`dustsim.rules.rulesets.RULESET_IDS`)
DEFAULT_RULESET_FOR_EDITION = MappingProxyType(
    {"tactics-2009": "tactics-2009", "tactics-2013": "tactics-2013", "ffg-era": "tactics-2013",
     "dust-1947": "dust-1947", "epic": "epic"}
)
