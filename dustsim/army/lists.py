"""Army lists (Dust 1947): a player's list read from a hand-written TOML file or a BattleScribe
roster, and checked against the army-building rules (1947 digest §16-17, seed 003 L817-985).

The TOML list format (documented in the README)::

    name = "Rangers Lead the Way"
    points = 75                  # the agreed points limit
    bloc = "Allies"              # optional: taken from the units when left out

    [[platoon]]
    id = "rangers"               # the name units use below
    chart = "Allied Ranger Platoon"

    [[unit]]
    card = "Ranger Combat Squad"
    count = 2                    # optional, default 1
    platoon = "rangers"          # optional: the platoon it belongs to

    [[unit]]
    card = "Ranger Command Squad"
    hero = "Bazooka Joe"         # a hero joined to the squad (L932)
    platoon = "rangers"

    [[unit]]
    card = "Ludwig"
    captured = true              # one captured vehicle, +2 AP (L885-922)

    [[unit]]
    card = "Grand'Ma"
    pilot = "Koshka"             # a hero piloting the vehicle (L936-948)

    [[unit]]
    card = "Heavy Grenadier Assault Squad"
    transport = "Hanomag"        # starts aboard an earlier Hanomag (Passengers, L522-526)

Every rule broken is one :class:`Violation` naming the unit, the rule and its rulebook lines
(:func:`check`); nothing is refused at reading time except input that cannot be read at all
(unknown card names, bad fields: one :class:`DustsimError` line with file, unit and field).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from dustsim.army.legality import breaches, one_captured_vehicle, unique_heroes, unit_limits
from dustsim.data.captured import CAPTURED_BLOC, captured_extra_ap
from dustsim.data.cards import Card
from dustsim.data.names import match_key
from dustsim.data.schema import check_keys, short
from dustsim.errors import DustsimError

EDITION = "dust-1947"
MERCENARIES = "Mercenaries"
CAPTURED = CAPTURED_BLOC
LIST_SUFFIXES = (".toml", ".ros", ".rosz")
MAX_UNITS = 60
MAX_COUNT = 20
MAX_POINTS = 10_000
UNIT_FIELDS = ("card", "count", "hero", "pilot", "captured", "platoon", "cover", "transport")
TOP_FIELDS = ("name", "points", "bloc", "edition", "unit", "platoon", "description")
PLATOON_FIELDS = ("id", "chart")
MAX_PLATOONS = 20  # a list of at most MAX_UNITS units declares few platoons
MAX_LIST_BYTES = 1 << 20  # a list is a few hundred bytes
#: lists in one meta folder: 24 lists are 276 pairings (a few minutes at the default trials)
MAX_FOLDER_LISTS = 24
# the captured vehicle availability chart (L897-922, by the bloc that built them), as card names
CAPTURE_CHART = {
    "Allies": ("Wildfire", "Mickey", "Mickey (Light)", "Pounder", "Pounder (Light)",
               "Skysweeper"),
    "Axis": ("Heinrich", "Heinrich Tropical (NDAK)", "Heinrich Tropical (Blutkreuz)", "Loth",
             "Luther", "Ludwig", "Flammluther", "Jagdluther"),
    "SSU": ("Nadya", "Natalya", "Natasha", "Natasha (TSh)", "Nikita", "Aleksei (TSh)",
            "Red Fury"),
}
BS_SOURCE = re.compile(r"BSData/dust1947@\w+ \S+\.cat L\d+ \((.+)\)$")
PILOT_SKILLS = {"vehicle": ("pilot", "ace pilot"), "aircraft": ("air pilot", "ace air pilot")}
JOIN_KIN = ("steel guard", "gorilla", "zombie")  # heroes of these kinds join only their kind


@dataclass(frozen=True)
class ListUnit:
    """One unit on the table: a card, a joined hero or a pilot, captured or not, and the
    platoon it belongs to ("" = independent)."""

    card: Card
    hero: Card | None = None
    pilot: Card | None = None
    captured: bool = False
    platoon: str = ""
    cover: bool = False
    where: str = ""
    transport: int = -1
    """Index (in the list's units) of the vehicle it starts the game in as passengers
    (``transport = "<card>"``, 1947 L522-526; :func:`_embark`); -1 none."""

    @property
    def name(self) -> str:
        s = f"{self.hero.name} + {self.card.name}" if self.hero else self.card.name
        if self.pilot:
            s += f" (pilot {self.pilot.name})"
        return s + (" [captured]" if self.captured and CAPTURED not in self.card.bloc
                    and "(Captured)" not in self.card.name else "")

    @property
    def card_ap(self) -> float:
        """The unit card's cost: a captured vehicle's card +2 AP (L889) unless the card is
        already the Captured Vehicles catalogue's (which prints the +2)."""
        if self.card.ap is None:
            return math.nan
        extra = captured_extra_ap(self.captured, self.card.bloc)
        return float(self.card.ap) + extra

    @property
    def ap(self) -> float:
        parts = [self.card_ap] + [float(c.ap) if c.ap is not None else math.nan
                                  for c in (self.hero, self.pilot) if c is not None]
        return float(sum(parts))

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(c for c in (self.card, self.hero, self.pilot) if c is not None)


@dataclass(frozen=True)
class PlatoonRef:
    id: str
    chart: str


@dataclass(frozen=True)
class ArmyList:
    """A player's list: a points limit, units, declared platoons, where it came from."""

    name: str
    points: float
    units: tuple[ListUnit, ...]
    platoons: tuple[PlatoonRef, ...] = ()
    bloc: str = ""
    file: str = ""
    unresolved: tuple[str, ...] = ()
    advantages: tuple = ()
    """The platoon advantages it earned, as battles take them (complete platoons only,
    L950-958; :func:`dustsim.army.platoons.battle_grants`, set by :func:`load_list`)."""

    @property
    def ap(self) -> float:
        return float(sum(u.ap for u in self.units))

    def __repr__(self) -> str:
        return (f"ArmyList({self.name!r}, {self.bloc or '?'}, {len(self.units)} units, "
                f"{self.ap:g}/{self.points:g} AP)")


# -- reading ---------------------------------------------------------------------------------------
_norm = match_key  # names compared without case, punctuation and accents; "&" reads "and"


class _Cards:
    """Card lookup by name within the edition (exact, then ignoring case and punctuation)."""

    def __init__(self, cards: list[Card]):
        self.cards = [c for c in cards if c.edition == EDITION]
        self.by_name = {c.name: c for c in self.cards}
        self.by_norm: dict[str, Card] = {}
        self.by_bs: dict[str, Card] = {}  # the BattleScribe names a card's sources cite
        for c in self.cards:
            self.by_norm.setdefault(_norm(c.name), c)
            for src in getattr(c, "sources", ()) or ():
                m = BS_SOURCE.search(src)
                if m:
                    self.by_bs.setdefault(m.group(1), c)

    def from_battlescribe(self, name: str) -> tuple[Card | None, bool]:
        """The card a BattleScribe entry name stands for, and whether it is the captured
        copy (the Captured Vehicles catalogue's "X (Captured)")."""
        base = name[: -len(" (Captured)")] if name.endswith(" (Captured)") else None
        c = self.by_name.get(name) or self.by_bs.get(name)
        if c is not None:
            return c, base is not None
        if base is not None:
            c = self.by_name.get(base) or self.by_bs.get(base)
            return c, c is not None
        return self.by_norm.get(_norm(name)), False

    def get(self, name: str, file: str, unit: str, fld: str) -> Card:
        c = self.by_name.get(name) or self.by_norm.get(_norm(name))
        if c is None:
            close = [n for n in self.by_name if _norm(name)[:5] and _norm(name)[:5] in _norm(n)]
            hint = f" (did you mean {', '.join(sorted(close)[:4])}?)" if close else \
                " (see `dustsim cards --edition dust-1947`)"
            raise DustsimError(f"no Dust 1947 card named {name!r}{hint}", file=file,
                               unit=unit, field=fld)
        return c


def _field(d: dict, key: str, typ, file: str, unit: str, default=None, what: str = ""):
    v = d.get(key, default)
    if v is default:
        return v
    if typ is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise DustsimError(f"must be a whole number{what}, not {short(v)}", file=file, unit=unit,
                           field=key)
    if typ is not int and not isinstance(v, typ):
        raise DustsimError(f"must be a {typ.__name__}{what}, not {short(v)}", file=file, unit=unit,
                           field=key)
    return v


def parse_list_toml(text: str, cards: list[Card], file: str = "<list>") -> ArmyList:
    """A TOML list (format in the module docstring) -> :class:`ArmyList`."""
    try:
        doc = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer of over 4,300 digits
        raise DustsimError(f"not valid TOML: {' '.join(str(exc).split())[:120]}",
                           file=file) from None
    except RecursionError:
        raise DustsimError("not valid TOML: nested too deeply", file=file) from None
    check_keys(doc, TOP_FIELDS, file=file)
    idx = _Cards(cards)
    name = _field(doc, "name", str, file, None, Path(file).stem)
    points = doc.get("points")
    if not _whole_points(points):
        raise DustsimError(f"the points limit must be a whole number from 1 to {MAX_POINTS}, "
                           f"got {short(points)}", file=file, field="points")
    bloc = _field(doc, "bloc", str, file, None, "")
    edition = _field(doc, "edition", str, file, None, EDITION)
    if edition != EDITION:
        raise DustsimError(f"army lists are Dust 1947 lists (edition = {EDITION!r})",
                           file=file, field="edition")
    raw_p = doc.get("platoon", [])
    if not isinstance(raw_p, list) or not all(isinstance(p, dict) for p in raw_p):
        raise DustsimError("must be an array of tables ([[platoon]])", file=file,
                           field="platoon")
    if len(raw_p) > MAX_PLATOONS:
        raise DustsimError(f"{len(raw_p)} platoons; a list declares at most {MAX_PLATOONS}",
                           file=file, field="platoon")
    platoons = []
    for i, p in enumerate(raw_p, start=1):
        check_keys(p, PLATOON_FIELDS, file=file, unit=f"platoon {i}")
        pid = _field(p, "id", str, file, f"platoon {i}", None)
        chart = _field(p, "chart", str, file, f"platoon {i}", None)
        if not pid or not chart:
            raise DustsimError("a platoon needs an id and a chart (the platoon's name)",
                               file=file, unit=f"platoon {i}", field="id" if not pid else "chart")
        if any(q.id == pid for q in platoons):
            raise DustsimError(f"platoon id {pid!r} used twice", file=file, field="platoon.id")
        platoons.append(PlatoonRef(pid, chart))
    ids = {p.id for p in platoons}
    raw_u = doc.get("unit", [])
    if not isinstance(raw_u, list) or not raw_u or not all(isinstance(u, dict) for u in raw_u):
        raise DustsimError("a list needs at least one [[unit]] table", file=file, field="unit")
    if len(raw_u) > MAX_UNITS:
        raise DustsimError(f"{len(raw_u)} [[unit]] tables; a list has at most {MAX_UNITS} "
                           "units", file=file, field="unit")
    units: list[ListUnit] = []
    for i, u in enumerate(raw_u, start=1):
        label = f"unit {i}" + (f" ({u['card']})" if isinstance(u.get("card"), str) else "")
        check_keys(u, UNIT_FIELDS, file=file, unit=label)
        cname = _field(u, "card", str, file, label, None)
        if not cname:
            raise DustsimError("missing (the card's name)", file=file, unit=label,
                               field="card")
        card = idx.get(cname, file, label, "card")
        count = _field(u, "count", int, file, label, 1, " from 1 to 20")
        if not 1 <= count <= MAX_COUNT:
            raise DustsimError(f"must be from 1 to {MAX_COUNT}, not {count}", file=file,
                               unit=label, field="count")
        hero = pilot = None
        if (h := _field(u, "hero", str, file, label, None)) is not None:
            hero = idx.get(h, file, label, "hero")
        if (pl := _field(u, "pilot", str, file, label, None)) is not None:
            pilot = idx.get(pl, file, label, "pilot")
        if (hero or pilot) and count != 1:
            raise DustsimError("a unit with a hero or pilot has count = 1 (heroes are unique)",
                               file=file, unit=label, field="count")
        captured = _field(u, "captured", bool, file, label, False)
        cover = _field(u, "cover", bool, file, label, False)
        pid = _field(u, "platoon", str, file, label, "")
        if pid and pid not in ids:
            valid = ", ".join(sorted(ids)) or "none declared: add a [[platoon]] table"
            raise DustsimError(f"unknown platoon id {pid!r} (valid: {valid})", file=file,
                               unit=label, field="platoon")
        captured = captured or card.bloc == CAPTURED
        ride = _field(u, "transport", str, file, label, None)
        for _ in range(count):
            units.append(ListUnit(card, hero, pilot, captured, pid, cover, label))
            if ride is not None:
                units[-1] = _embark(units, ride, file, label)
    if len(units) > MAX_UNITS:
        raise DustsimError(f"{len(units)} units; a list has at most {MAX_UNITS}", file=file,
                           field="unit")
    return ArmyList(name, float(points), tuple(units), tuple(platoons),
                    bloc or infer_bloc(units), file)


def passenger_spaces(u: ListUnit) -> int:
    """Spaces a unit takes in a transport: one per soldier of infantry armour 1-2, two of
    armour 3-4 (1947 L524); a joined hero by its own armour."""
    def per(card: Card) -> int:
        return 2 if card.armour in ("I3", "I4") else 1

    return (u.card.models or 1) * per(u.card) + (per(u.hero) if u.hero else 0)


def _embark(units: list[ListUnit], ride: str, file: str, label: str) -> ListUnit:
    """The last unit of ``units``, embarked in the first earlier unit of card ``ride`` that
    has the Passengers (#) skill and room for it (1947 L522-526); one error line naming the
    file, unit and field otherwise."""
    from dustsim.data.skill_names import skill_base
    from dustsim.rules.unit_rules import unit_rules

    me = units[-1]
    cands = [i for i, v in enumerate(units[:-1]) if v.card.name.lower() == ride.lower()]
    if me.card.kind == "vehicle":  # an Airmobile / Air Assault vehicle in an Airlifter
        if not {"airmobile", "air assault"} & {skill_base(s) for s in me.card.skills}:
            raise DustsimError(f"only infantry ride as passengers (L522) and only Airmobile or "
                               f"Air Assault vehicles in an Airlifter (L532-536); "
                               f"{me.card.name} is neither", file=file, unit=label,
                               field="transport")
        for i in cands:
            if "airlifter" not in {skill_base(s) for s in units[i].card.skills}:
                raise DustsimError(f"{units[i].card.name} is no Airlifter (L3403)", file=file,
                                   unit=label, field="transport")
            if not any(v.transport == i for v in units[:-1]):
                return replace(me, transport=i)
        raise DustsimError(f"no earlier {ride} free to carry it (an Airlifter carries one "
                           "vehicle: a decision, L532-536 give no number)" if cands else
                           f"no earlier unit of card {ride!r} in the list to carry it",
                           file=file, unit=label, field="transport")
    if me.card.kind not in ("squad", "hero") or not (me.card.armour or "").startswith("I"):
        raise DustsimError(f"only infantry ride as passengers (L522); {me.card.name} is a "
                           f"{me.card.kind}", file=file, unit=label, field="transport")
    if not cands:
        names = sorted({v.card.name for v in units[:-1]
                        if unit_rules(v.card).passengers > 0}) or ["none: list it first"]
        raise DustsimError(f"no earlier unit of card {ride!r} in the list to carry it "
                           f"(transports listed before it: {', '.join(names)})", file=file,
                           unit=label, field="transport")
    need = passenger_spaces(me)
    left = []
    for i in cands:
        cap = unit_rules(units[i].card).passengers
        if cap <= 0:
            raise DustsimError(f"{units[i].card.name} has no Passengers (#) skill (L3619)",
                               file=file, unit=label, field="transport")
        used = sum(passenger_spaces(v) for v in units[:-1] if v.transport == i)
        if used + need <= cap:
            return replace(me, transport=i)
        left.append(cap - used)
    room = (f"it has {left[0]} of {unit_rules(units[cands[0]].card).passengers} left"
            if len(left) == 1 else f"they have {', '.join(map(str, left))} left")
    raise DustsimError(f"no {ride} has room: it needs {need} passenger spaces (L524) and "
                       f"{room}", file=file, unit=label, field="transport")


def infer_bloc(units) -> str:
    """The bloc of most AP among units that are neither mercenaries nor captured."""
    tally: Counter = Counter()
    for u in units:
        for c in u.cards:
            if c.bloc not in (MERCENARIES, CAPTURED) and not (u.captured and c is u.card):
                tally[c.bloc] += c.ap or 0
    if not tally:
        return MERCENARIES if units else ""
    return tally.most_common(1)[0][0]


def list_from_roster(path: str | Path, cards: list[Card], *, points: float | None = None,
                     catalogues: str | Path | None = None) -> ArmyList:
    """A BattleScribe roster -> :class:`ArmyList` (see :mod:`dustsim.army.rosters`)."""
    from dustsim.army.rosters import read_roster

    idx = _Cards(cards)

    def kind_of(name: str) -> str:
        c = idx.from_battlescribe(name)[0]
        return (c.kind or "") if c is not None else ""

    ros = read_roster(path, catalogues, kind_of)
    units: list[ListUnit] = []
    unresolved = list(ros.unresolved)
    for s in ros.selections:
        card, captured = idx.from_battlescribe(s.card)
        if card is None:
            unresolved.append(f"{s.card} ({s.where}: no such card in the unit data)")
            continue
        captured = captured or card.bloc == CAPTURED or s.catalogue == CAPTURED
        hero = pilot = None
        for h in s.nested_heroes:
            hc = idx.from_battlescribe(h)[0]
            if card.kind == "squad" and hero is None:
                hero = hc
            elif card.kind in ("vehicle", "aircraft") and pilot is None:
                pilot = hc
            else:
                units.append(ListUnit(hc, where=s.where))
        for _ in range(s.count):
            units.append(ListUnit(card, hero, pilot, captured, where=f"{s.card} ({s.where})"))
    if not units:
        first = f" (first: {unresolved[0]})" if unresolved else ""
        raise DustsimError(f"no selection of the roster resolves to a card{first}",
                           file=ros.file, field="selections")
    pts = points or ros.points
    if not pts:
        raise DustsimError("the roster has no points limit (costLimits); pass --points",
                           file=ros.file, field="costLimits")
    return ArmyList(ros.name, float(pts), tuple(units), (), infer_bloc(units), ros.file,
                    tuple(unresolved))


def _whole_points(points: object) -> bool:
    """A points limit is a whole number of AP from 1 to MAX_POINTS (army points are whole on
    every card; 75.0 is 75)."""
    return (not isinstance(points, bool) and isinstance(points, int | float)
            and math.isfinite(points) and points == int(points) and 1 <= points <= MAX_POINTS)


def load_list(path: str | Path, cards: list[Card] | None = None, *,
              points: float | None = None, catalogues: str | Path | None = None) -> ArmyList:
    """Read a list file: ``.toml`` (hand-written), ``.ros`` or ``.rosz`` (BattleScribe)."""
    from dustsim.data.cards import load_cards

    path = Path(path)
    if points is not None and not _whole_points(points):
        raise DustsimError(f"the points limit must be a whole number from 1 to {MAX_POINTS}, "
                           f"got {points!r}", field="--points")
    cards = cards if cards is not None else load_cards()
    suffix = path.suffix.lower()
    if suffix not in LIST_SUFFIXES:
        raise DustsimError(f"not a list file (valid: {', '.join(LIST_SUFFIXES)})",
                           file=str(path))
    if suffix == ".toml":
        try:
            if path.stat().st_size > MAX_LIST_BYTES:
                raise DustsimError(f"larger than the cap of {MAX_LIST_BYTES:,} bytes",
                                   file=str(path))
            text = path.read_bytes().decode("utf-8")
        except OSError as exc:
            raise DustsimError(exc.strerror or str(exc), file=str(path)) from None
        except UnicodeDecodeError:
            raise DustsimError("not UTF-8 text", file=str(path)) from None
        lst = parse_list_toml(text, cards, str(path))
        if points:
            lst = ArmyList(lst.name, float(points), lst.units, lst.platoons, lst.bloc,
                           lst.file, lst.unresolved)
        return _with_advantages(lst, cards)
    return _with_advantages(list_from_roster(path, cards, points=points, catalogues=catalogues),
                            cards)


def _with_advantages(lst: ArmyList, cards: list[Card]) -> ArmyList:
    """``lst`` with the platoon advantages its complete platoons earn (battles play them)."""
    if not lst.platoons:
        return lst
    from dustsim.army.platoons import battle_grants

    return replace(lst, advantages=battle_grants(lst, cards))


def require_resolved(lst: ArmyList) -> ArmyList:
    """``lst`` if every selection resolved to a card, else a one-line error: a battle played
    without the selections it cannot read would play another army (``list check`` calls
    such a roster ILLEGAL; ``list vs`` and ``list meta`` refuse it)."""
    if lst.unresolved:
        raise DustsimError(f"{len(lst.unresolved)} selection(s) resolve to no card (first: "
                           f"{lst.unresolved[0]}); `dustsim list check` lists them",
                           file=lst.file, field="selections")
    return lst


def list_files(folder: str | Path) -> list[Path]:
    """The list files of a folder, sorted by name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DustsimError("not a folder", file=str(folder))
    files = []
    for p in folder.iterdir():
        if p.suffix.lower() in LIST_SUFFIXES:
            files.append(p)
            if len(files) > MAX_FOLDER_LISTS:
                raise DustsimError(f"more than {MAX_FOLDER_LISTS} list files: every pair is "
                                   "played, so the work grows with the square of the lists; "
                                   "split the folder", file=str(folder))
    return sorted(files)


# -- legality --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Violation:
    unit: str
    rule: str
    lines: str
    message: str

    def __str__(self) -> str:
        where = f", 1947 {self.lines}" if self.lines else ""
        return f"{self.unit}: {self.message} [{self.rule}{where}]"


@dataclass(frozen=True)
class PlatoonStatus:
    id: str
    chart: str
    found: bool
    checkable: bool
    complete: bool
    advantage: str
    filled: tuple[tuple[str, str], ...]  # (slot role, unit) filled
    missing: tuple[str, ...]  # slot descriptions left empty
    support: tuple[str, ...]

    @property
    def advantage_active(self) -> bool:
        return self.found and self.checkable and self.complete


@dataclass(frozen=True)
class Check:
    """Legality of a list: violations, the points (paid, free hero bonus), the army type."""

    army: ArmyList
    violations: tuple[Violation, ...]
    ap_total: float
    ap_paid: float
    free_hero_ap: float
    faction: str
    platoons: tuple[PlatoonStatus, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())

    @property
    def legal(self) -> bool:
        return not self.violations

    @property
    def army_type(self) -> str:
        if self.faction == MERCENARIES:
            return "mercenary force"
        return f"faction force ({self.faction})" if self.faction else \
            f"bloc force ({self.army.bloc or '?'})"

    def lines(self) -> list[str]:
        return [str(v) for v in self.violations]


def _skills(c: Card | None) -> set[str]:
    return {s.strip().casefold() for s in c.skills} if c else set()


def _captured_base(unit: ListUnit, by_name: dict[str, Card]) -> Card:
    m = re.fullmatch(r"(.*) \(Captured\)", unit.card.name)
    if m and m.group(1) in by_name:
        return by_name[m.group(1)]
    return unit.card


def _force_points(lst: ArmyList, by_name: dict[str, Card]) -> dict:
    """Points on the table, the faction force (if any) and the free hero points (L864-883),
    computed by :func:`dustsim.army.platoons.force_points` over every card of the list."""
    from dustsim.army.platoons import Member, force_points

    members = []
    table = dict(by_name)
    for u in lst.units:
        if u.captured and u.card.kind != "vehicle":  # illegal (reported); priced as printed
            members.append(Member(u.card.name, "support"))
        elif u.captured and u.card.bloc != CAPTURED:
            # a base card marked captured: price it as the Captured Vehicles card would be
            cap = table.get(f"{u.card.name} (Captured)")
            members.append(Member(cap.name if cap else u.card.name, "support",
                                  captured=True))
        else:
            members.append(Member(u.card.name, "support", captured=u.captured))
        members += [Member(c.name, "support") for c in (u.hero, u.pilot) if c is not None]
    pts = force_points(members, table, lst.points)
    pts["ap_total"] = lst.ap  # our own pricing (+2 for a base card marked captured)
    pts["ap_paid"] = lst.ap - pts["free_hero_ap"]
    return pts


def _platoon_status(ref: PlatoonRef, members: list[ListUnit], lst: ArmyList, charts,
                    cards: list[Card]) -> tuple[PlatoonStatus, list[Violation]]:
    from dustsim.army.platoons import card_index, resolve

    chart = next((p for p in charts if _norm(p.name) in (_norm(ref.chart),
                                                        _norm(ref.chart + " Platoon"))), None)
    label = f"platoon {ref.id!r}"
    if chart is None:
        return (PlatoonStatus(ref.id, ref.chart, False, False, False, "", (), (), ()),
                [Violation(label, "Platoons", "L950-985",
                           f"no platoon chart named {ref.chart!r}")])
    viol = []
    if chart.bloc not in (lst.bloc, MERCENARIES):
        viol.append(Violation(label, "Platoons", "L950-962",
                              f"{chart.name} is {article(chart.bloc)} {chart.bloc} platoon in "
                              f"{article(lst.bloc)} {lst.bloc} army"))
    if not chart.buildable:
        st = PlatoonStatus(ref.id, chart.name, True, False, False, chart.advantage, (), (),
                           tuple(u.name for u in members))
        return st, viol
    idx = card_index(cards, chart.edition)
    slot_cards: list[set[str]] = []
    slot_joined: list[dict[str, list[set[str]]]] = []  # card -> the joins an option asks
    for s in chart.slots:
        names: set[str] = set()
        joins: dict[str, list[set[str]]] = {}
        for o in s.options:
            c, _ = resolve(o, idx, strict=False)
            if c is not None:
                names.add(c.name)
                joins.setdefault(c.name, []).append({_norm(j) for j in
                                                     getattr(o, "joined", ()) or ()})
        slot_cards.append(names)
        slot_joined.append(joins)
    # pieces: each card of each member unit may fill one slot (a joined hero and its squad
    # are one unit in play but two entries of the chart)
    pieces = [(i, c) for i, u in enumerate(members) for c in u.cards]
    n_slots = len(chart.slots)
    best: list = [None, -1, None]  # assignment, filled, merc used

    def joins_ok(slot: int, k: int) -> bool:
        """An option that names heroes joined to (or piloting) its unit asks for them."""
        ui, card = pieces[k]
        unit = members[ui]
        have = {_norm(c.name) for c in (unit.hero, unit.pilot) if c is not None} \
            if card is unit.card else set()
        return any(want <= have for want in slot_joined[slot][card.name])

    def fits(slot: int, k: int, merc_used: bool) -> tuple[bool, bool]:
        card = pieces[k][1]
        if card.name in slot_cards[slot]:
            return joins_ok(slot, k), False
        if (chart.slots[slot].role == "required" and not merc_used
                and card.bloc == MERCENARIES and card.armour):
            # L966: one combat unit replaced by a mercenary of the same type, armour >=
            ok = [by.armour_value for n in slot_cards[slot]
                  if (by := idx.get(_norm(n))) is not None and by.armour
                  and by.armour_type == card.armour_type]
            if ok and card.armour_value >= min(ok):
                return True, True
        return False, False

    def dfs(slot: int, used: frozenset, assign: tuple, merc: bool, filled: int) -> None:
        if filled + (n_slots - slot) <= best[1]:
            return
        if slot == n_slots:
            best[:] = [assign, filled, merc]
            return
        for k in range(len(pieces)):
            if k in used:
                continue
            ok, m = fits(slot, k, merc)
            if ok:
                dfs(slot + 1, used | {k}, (*assign, k), merc or m, filled + 1)
        dfs(slot + 1, used, (*assign, None), merc, filled)

    dfs(0, frozenset(), (), False, 0)
    assign = best[0]
    filled, missing = [], []
    used_units = set()
    for slot, k in enumerate(assign):
        role = chart.slots[slot].role
        if k is None:
            opts = sorted(slot_cards[slot]) or [o.name for o in chart.slots[slot].options]
            missing.append(f"{role} ({' / '.join(opts[:5])}{' / …' if len(opts) > 5 else ''})")
        else:
            filled.append((role, pieces[k][1].name))
            used_units.add(pieces[k][0])
    support = tuple(u.name for i, u in enumerate(members) if i not in used_units)
    if getattr(chart, "only_combat_support", False):
        combat = set().union(*(slot_cards[i] for i, sl in enumerate(chart.slots)
                               if sl.role == "required"))
        for i, u in enumerate(members):
            if i not in used_units and u.card.name not in combat:
                viol.append(Violation(u.name, "Platoons (DUST ENLIST chart)", "",
                                      f"{chart.name} takes its support units only from its "
                                      f"combat units' cards"))
    for m in missing:
        viol.append(Violation(label, "Platoons", "L950-958",
                              f"{chart.name} lacks its {m}: a platoon is fielded only with "
                              f"its command unit and every required unit"))
    st = PlatoonStatus(ref.id, chart.name, True, True, not missing, chart.advantage,
                       tuple(filled), tuple(missing), support)
    return st, viol


def _violation(b) -> Violation:
    return Violation(b.unit, b.rule, b.lines, b.message)


def check(lst: ArmyList, cards: list[Card] | None = None, platoons=None) -> Check:
    """Every army-building rule the list breaks, one :class:`Violation` each."""
    from dustsim.data.cards import load_cards

    cards = cards if cards is not None else load_cards()
    ed = [c for c in cards if c.edition == EDITION]
    by_name = {c.name: c for c in ed}
    v: list[Violation] = []
    notes: list[str] = []
    for s in lst.unresolved:
        v.append(Violation(s, "BattleScribe roster", "",
                           "selection resolves to no card of the catalogues"))
    pts = _force_points(lst, by_name)
    unknown = [u.name for u in lst.units if not math.isfinite(u.ap)]
    for n in unknown:
        notes.append(f"{n}: cost unknown ('?'); the points check leaves it out")
    paid = sum(u.ap for u in lst.units if math.isfinite(u.ap)) - pts["free_hero_ap"]
    if paid > lst.points + 1e-9:
        bonus = (f" after the {pts['free_hero_ap']:g} AP hero bonus"
                 if pts["free_hero_ap"] else "")
        v.append(Violation("list", "Points limit", "L819, L837-845",
                           f"{paid:g} AP paid{bonus}, over the limit of {lst.points:g} AP"))
    # one bloc (L837, L845): mercenaries and a captured vehicle excepted
    for u in lst.units:
        for c in u.cards:
            if c.bloc in (MERCENARIES, CAPTURED) or (u.captured and c is u.card):
                continue
            if lst.bloc and lst.bloc != MERCENARIES and c.bloc != lst.bloc:
                v.append(Violation(u.name, "One bloc", "L837, L845",
                                   f"{c.name} is {article(c.bloc)} {c.bloc} card in "
                                   f"{article(lst.bloc)} {lst.bloc} army"))
            elif lst.bloc == MERCENARIES:
                v.append(Violation(u.name, "Mercenary force", "L879-883",
                                   f"{c.name} ({c.bloc}) in an all-mercenary force"))
    # captured vehicles (L885-922)
    captured = [u for u in lst.units if u.captured]
    tally = Counter(c.name for u in lst.units for c in u.cards)
    names = [u.name for u in captured]
    v += [_violation(b) for b in one_captured_vehicle(tally, names, by_name)]
    for u in captured:
        base = _captured_base(u, by_name)
        if u.card.kind != "vehicle":
            v.append(Violation(u.name, "Captured vehicles", "L889",
                               f"only vehicles can be captured, not a {u.card.kind}"))
            continue
        on_chart = (u.card.bloc == CAPTURED or getattr(u.card, "capturable", False)
                    or f"{u.card.name} (Captured)" in by_name
                    or any(_norm(base.name) == _norm(n) for names in CAPTURE_CHART.values()
                           for n in names))
        if not on_chart:
            v.append(Violation(u.name, "Captured vehicles", "L897-922",
                               "not on the captured vehicle availability chart"))
        if lst.bloc and base.bloc == lst.bloc:
            v.append(Violation(u.name, "Captured vehicles", "L885-897",
                               f"{article(base.bloc)} {base.bloc} vehicle cannot be captured "
                               f"by {article(lst.bloc)} {lst.bloc} army (it is its own)"))
        if u.hero:
            v.append(Violation(u.name, "Joins", "L932", "a hero joins a squad, not a vehicle"))
    # unique heroes (L928) and per-army limits (e.g. Pilot: Name vehicles, L3625)
    v += [_violation(b) for b in breaches(tally, names, by_name, (unique_heroes, unit_limits))]
    # joins and pilots (L932-948)
    for u in lst.units:
        if u.hero is not None:
            h, sq = u.hero, u.card
            hs = _skills(h)
            if h.kind != "hero":
                v.append(Violation(u.name, "Joins", "L932",
                                   f"{h.name} is a {h.kind}; only heroes join squads"))
            elif sq.kind != "squad":
                v.append(Violation(u.name, "Joins", "L932",
                                   f"{h.name} joins a squad, {sq.name} is a {sq.kind}"))
            elif h.armour != sq.armour:
                v.append(Violation(u.name, "Joins", "L932",
                                   f"a hero joins only a squad of the same armour "
                                   f"({h.name} {h.armour}, {sq.name} {sq.armour})"))
            if hs & {"loner", "superhuman", "super human"}:
                v.append(Violation(u.name, "Joins", "L3581, L3671",
                                   f"{h.name} is a Loner or Superhuman and never joins a unit"))
            for kin in JOIN_KIN:
                if kin in hs and kin not in _skills(sq) and kin not in sq.name.casefold():
                    v.append(Violation(u.name, "Joins", "L3541, L3661, L3703",
                                       f"a {kin.title()} hero joins only {kin.title()} units"))
        if u.pilot is not None:
            p, veh = u.pilot, u.card
            ps = _skills(p)
            kinds = PILOT_SKILLS.get(veh.kind or "")
            if p.kind != "hero":
                v.append(Violation(u.name, "Pilots", "L938",
                                   f"{p.name} is a {p.kind}; only heroes pilot"))
            elif kinds is None:
                v.append(Violation(u.name, "Pilots", "L938",
                                   f"{veh.name} is a {veh.kind}; heroes pilot vehicles and "
                                   f"aircraft"))
            elif not any(s == k or (s.startswith("pilot:") and k == "pilot")
                         for s in ps for k in kinds):
                v.append(Violation(u.name, "Pilots", "L938, L3363-3385",
                                   f"{p.name} has no {' / '.join(kinds).title()} skill to "
                                   f"pilot a {veh.kind}"))
        for s in _skills(u.card):
            if s.startswith("pilot:"):
                who = s.split(":", 1)[1].strip()
                if u.pilot is not None and not _norm(u.pilot.name).startswith(_norm(who)):
                    v.append(Violation(u.name, "Pilots", "L3623-3625",
                                       f"{u.card.name} can be piloted only by {who.title()}"))
    # platoons (L950-985)
    statuses = []
    if lst.platoons:
        from dustsim.army.platoons import load_platoons

        charts = platoons if platoons is not None else load_platoons()
        for ref in lst.platoons:
            members = [u for u in lst.units if u.platoon == ref.id]
            st, pv = _platoon_status(ref, members, lst, charts, cards)
            statuses.append(st)
            v += pv
            if st.found and not st.checkable:
                notes.append(f"platoon {ref.id!r} ({st.chart}): its slots were lost in the "
                             "rulebook conversion; cannot check it, advantage not assumed")
    return Check(lst, tuple(v), float(lst.ap), float(paid), float(pts["free_hero_ap"]),
                 pts["faction"], tuple(statuses), tuple(notes))


def article(word: str) -> str:
    """'a' or 'an' before a bloc name: an Allies, an Axis, an SSU, an IJN, a Mythos army."""
    w = str(word).strip()
    if not w:
        return "a"
    if len(w) > 1 and w.isupper():  # read letter by letter: an SSU, an IJN
        return "an" if w[0] in "AEFHILMNORSX" else "a"
    return "an" if w[0].lower() in "aeiou" else "a"
