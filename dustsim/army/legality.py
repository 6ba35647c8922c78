"""The army-building rules that count units (Dust 1947), as one table of rule functions
shared by the list checker (:func:`dustsim.army.lists.check`, which reports each breach) and
the platoon builder (:mod:`dustsim.army.platoons`, which keeps only builds with none).

Each rule takes the tally of card names in the force (heroes and pilots included), the names
of the units marked captured (in list order) and the cards by name, and yields a
:class:`Breach` per unit that breaks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from dustsim.data.cards import Card


@dataclass(frozen=True)
class Breach:
    unit: str
    rule: str
    lines: str
    message: str


def one_captured_vehicle(tally: Mapping[str, int], captured: Sequence[str],
                         by_name: Mapping[str, Card]) -> Iterator[Breach]:
    """A force may field at most one captured vehicle (L885-889)."""
    for name in captured[1:]:
        yield Breach(name, "Captured vehicles", "L885-889",
                     f"a second captured vehicle ({len(captured)} in the list); a force may "
                     f"field at most one")


def unique_heroes(tally: Mapping[str, int], captured: Sequence[str],
                  by_name: Mapping[str, Card]) -> Iterator[Breach]:
    """A hero is unique (L928)."""
    for name, k in sorted(tally.items()):
        c = by_name.get(name)
        if c is not None and c.kind == "hero" and k > 1:
            yield Breach(name, "Unique heroes", "L928", f"{k} times in the list; a hero is unique")


def unit_limits(tally: Mapping[str, int], captured: Sequence[str],
                by_name: Mapping[str, Card]) -> Iterator[Breach]:
    """A card's per-army limit (e.g. ``Pilot: Name`` vehicles, L3625)."""
    for name, k in sorted(tally.items()):
        c = by_name.get(name)
        if c is not None and c.kind != "hero" and c.max_per_army is not None \
                and k > c.max_per_army:
            yield Breach(name, "Unit limit", "L3625",
                         f"{k} in the list; at most {c.max_per_army} per army")


Rule = Callable[[Mapping[str, int], Sequence[str], Mapping[str, Card]], Iterator[Breach]]
#: every counting rule, in the order the list checker reports them
COUNT_RULES: tuple[Rule, ...] = (one_captured_vehicle, unique_heroes, unit_limits)


def breaches(tally: Mapping[str, int], captured: Sequence[str], by_name: Mapping[str, Card],
             rules: Sequence[Rule] = COUNT_RULES) -> list[Breach]:
    """Every breach of ``rules`` (default: all of :data:`COUNT_RULES`)."""
    return [b for rule in rules for b in rule(tally, captured, by_name)]
