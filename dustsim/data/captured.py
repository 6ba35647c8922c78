"""Captured vehicles (Dust 1947 L885-922): the bloc their cards are printed in, and the one
surcharge (L889: a captured vehicle costs its card's AP +2), used by the Dust 1947 importer,
the platoon builder, the list checker and list battles."""

from __future__ import annotations

#: the bloc (and BattleScribe catalogue) of the captured-vehicle cards, which print the +2
CAPTURED_BLOC = "Captured Vehicles"
#: AP a captured vehicle costs over its card (L889)
CAPTURED_EXTRA_AP = 2


def captured_extra_ap(captured: bool, bloc: str) -> float:
    """The surcharge a unit pays: +2 AP when captured, unless its card is already the
    Captured Vehicles bloc's (whose printed cost includes it)."""
    return float(CAPTURED_EXTRA_AP) if captured and bloc != CAPTURED_BLOC else 0.0
