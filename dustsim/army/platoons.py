"""Dust 1947 platoons (TO&E): the charts as data, legal builds within a budget, and scores.

Rules (1947 digest §16-17, seed 003 L817-985):

* A platoon is one **command unit** and every **required unit** of its chart, plus any
  **support units**. Fielding all of them grants the **platoon advantage** (L950-958).
* Up to one required (combat) unit may be replaced by a **mercenary** unit of the same type
  (infantry / vehicle / aircraft) with an armour value at least as high (L966).
* **Heroes** are unique (L928); a card's ``max_per_army`` is honoured.
* **Faction force** (L864-875): when at least 75 % of the AP spent on units comes from one
  faction (the rest bloc units, mercenaries or a captured vehicle) and no unit belongs to
  another faction, up to 10 % of the budget may be spent *extra* on heroes of that faction
  or bloc. A build is legal when its AP minus those free hero points fits the budget.
* **Captured vehicles** (L885-922): at most one per force, vehicles only, from the
  availability chart of another bloc, at the vehicle's cost **+2 AP**.

A build is scored as a force of its own, with the per-unit figures of
:mod:`dustsim.review.analytics`: offence (AP destroyed per Attack action, weighted over the
columns), durability (expected actions of the edition's attacker mix to destroy each unit in
turn: the sum over units) and the composite ``offence/AP x durability/AP`` on the AP paid
from the budget. A one-unit build therefore scores exactly as the unit does.

Platoon advantages that change dice are modelled where the rule is numeric
(:data:`ADVANTAGE_MODELS`); the rest are listed as not modelled by :func:`advantages`.
Reactivation (Get Moving, L613-616, 1/3): a successful roll gives an already activated unit
a fresh activation (two Attack actions) at the price of the officer's second action; the
modelled gain is the best plan with the advantage minus the best plan without it, per turn,
halved to put it per action.
"""

from __future__ import annotations

import itertools
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from dustsim.army.legality import breaches
from dustsim.data.captured import CAPTURED_EXTRA_AP
from dustsim.data.cards import Card, default_data_dir
from dustsim.data.names import match_key
from dustsim.errors import DustsimError

FACTION_SHARE = 0.75
HERO_BONUS = 0.10
GET_MOVING = 1 / 3  # Officer: Get Moving You Bunch of Monkeys, 2 faces (L3725)
ROLES = ("command", "required")
SUPPORT_CORES = 20  # support units are tried on each platoon's best cores (platoon_table)


@dataclass(frozen=True)
class Option:
    name: str
    card: str | None = None  # explicit card name where the printed name differs
    why: str | None = None
    fortification: str = "none"
    joined: tuple[str, ...] = ()  # fielded with it as one option (a hero joined or piloting)


@dataclass(frozen=True)
class Slot:
    role: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class Platoon:
    name: str
    edition: str
    bloc: str
    lines: str
    advantage: str
    advantage_lines: str
    advantage_text: str
    slots: tuple[Slot, ...] = ()
    slots_lost: bool = False
    advantage_model: str | None = None
    eligible: tuple[str, ...] = ()
    note: str = ""
    file: str = ""
    only_combat_support: bool = False  # support units only from the chart's combat slots
    origin: str = "book"  # "book" (rulebook transcription), "enlist", or "book+enlist"
    enlist_id: str | None = None

    @property
    def buildable(self) -> bool:
        return not self.slots_lost and bool(self.slots)


@dataclass(frozen=True)
class Member:
    card: str
    role: str  # command | required | support
    fortification: str = "none"
    captured: bool = False
    mercenary: bool = False
    replaces: str | None = None  # the required card a mercenary stands in for
    joined_to: str | None = None  # fielded with that member's card as one chart option

    @property
    def label(self) -> str:
        s = self.card + (f" [{self.fortification}]" if self.fortification != "none" else "")
        return s + (" (mercenary)" if self.mercenary else "")


@dataclass(frozen=True)
class Build:
    platoon: str
    members: tuple[Member, ...]
    extra: dict = field(default_factory=dict, compare=False, hash=False)


# ---------------------------------------------------------------------------- loading

def _err(file, platoon, fld, msg) -> DustsimError:
    return DustsimError(msg, file=file, unit=platoon, field=fld)


def _str(d: dict, key: str, file, name, default=None, required=True) -> str:
    v = d.get(key, default)
    if v is None and required:
        raise _err(file, name, key, "missing")
    if v is not None and not isinstance(v, str):
        raise _err(file, name, key, f"must be a string, not {type(v).__name__}")
    return v


def parse_platoon_file(path: str | Path) -> list[Platoon]:
    """Parse a platoon TOML file; raise a one-line :class:`DustsimError` on bad input."""
    import stat

    from dustsim.limits import PLATOON_CHARTS, PLATOON_FILE_BYTES

    file = str(path)
    try:
        st = Path(path).stat()
    except OSError as exc:
        raise _err(file, None, "file", f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):  # a folder, FIFO or device (/dev/zero) is never read
        raise _err(file, None, "file", "not a regular file")
    if st.st_size > PLATOON_FILE_BYTES:
        raise _err(file, None, "file", f"larger than the cap of {PLATOON_FILE_BYTES:,} bytes "
                   "for a platoon chart file")
    try:
        doc = tomllib.loads(Path(path).read_bytes().decode("utf-8"))
    except (ValueError, RecursionError, OSError) as exc:  # bad UTF-8/TOML, 5,000-digit ints
        raise _err(file, None, "toml", f"cannot read: {' '.join(str(exc).split())[:120]}"
                   ) from None
    edition = doc.get("edition", "dust-1947")
    out = []
    raw = doc.get("platoon", [])
    if not isinstance(raw, list):
        raise _err(file, None, "platoon", "must be an array of tables")
    if len(raw) > PLATOON_CHARTS:
        raise _err(file, None, "platoon", f"{len(raw):,} charts is over the cap of "
                   f"{PLATOON_CHARTS:,} per file")
    for p in raw:
        name = _str(p, "name", file, None)
        slots: list[Slot] = []
        for i, s in enumerate(p.get("slot", []), start=1):
            role = _str(s, "role", file, name)
            if role not in ROLES:
                raise _err(file, name, f"slot {i}.role", f"must be one of {ROLES}, not {role!r}")
            if "same_as" in s:
                j = s["same_as"]
                if not isinstance(j, int) or not 1 <= j < i:
                    raise _err(file, name, f"slot {i}.same_as",
                               f"must name an earlier slot (1..{i - 1}), not {j!r}")
                slots.append(Slot(role, slots[j - 1].options))
                continue
            opts = s.get("options")
            if not isinstance(opts, list) or not opts:
                raise _err(file, name, f"slot {i}.options", "must be a non-empty array")
            options = []
            for o in opts:
                if not isinstance(o, dict):
                    raise _err(file, name, f"slot {i}.options", "entries must be tables")
                fort = _str(o, "fortification", file, name, "none")
                if fort not in ("none", "bunker", "strongpoint"):
                    raise _err(file, name, f"slot {i}.fortification", f"unknown {fort!r}")
                card = _str(o, "card", file, name, required=False)
                why = _str(o, "why", file, name, required=False)
                if card and not why:
                    raise _err(file, name, f"slot {i}.why",
                               f"an explicit card ({card!r}) needs a reason")
                joined = o.get("joined", [])
                if not isinstance(joined, list) or not all(isinstance(j, str) for j in joined):
                    raise _err(file, name, f"slot {i}.joined", "must be a list of unit names")
                options.append(Option(_str(o, "name", file, name), card, why, fort,
                                      tuple(joined)))
            slots.append(Slot(role, tuple(options)))
        if slots and slots[0].role != "command":
            raise _err(file, name, "slot 1.role", "the first slot must be the command unit")
        lost = bool(p.get("slots_lost", False))
        if not lost and not slots:
            raise _err(file, name, "slot", "no slots (set slots_lost = true if they were lost)")
        out.append(Platoon(
            name=name, edition=edition, bloc=_str(p, "bloc", file, name),
            lines=_str(p, "lines", file, name), advantage=_str(p, "advantage", file, name),
            advantage_lines=_str(p, "advantage_lines", file, name),
            advantage_text=_str(p, "advantage_text", file, name), slots=tuple(slots),
            slots_lost=lost, advantage_model=p.get("advantage_model"),
            eligible=tuple(p.get("eligible", ())), note=p.get("note", ""), file=file,
            only_combat_support=p.get("only_combat_support", False) is True,
            origin=str(doc.get("origin", "book")),
            enlist_id=p.get("enlist") if doc.get("origin", "book") == "book" else p.get("id")))
        if out[-1].advantage_model and out[-1].advantage_model not in ADVANTAGE_MODELS:
            raise _err(file, name, "advantage_model",
                       f"unknown {out[-1].advantage_model!r} (known: "
                       f"{', '.join(sorted(ADVANTAGE_MODELS))})")
    return out


def load_platoons(paths: Iterable[str | Path] | None = None) -> list[Platoon]:
    """Every platoon chart under ``unit_data/platoons`` (or the given files), the rulebook
    charts merged with the DUST ENLIST ones (:func:`merge_charts`)."""
    if paths is None:
        paths = sorted((default_data_dir() / "platoons").glob("*.toml"))
    return merge_charts([p for f in paths for p in parse_platoon_file(f)])


def _chart_key(p: Platoon) -> tuple[str, str]:
    return (p.edition, p.enlist_id or _norm(p.name))


def merge_charts(charts: list[Platoon]) -> list[Platoon]:
    """One chart per platoon. A rulebook chart and an ENLIST chart are the same platoon when
    the book's ``enlist`` id names it, or their names normalise alike. The book wins where
    it has the unit boxes (its slots, advantage and model); where the conversion lost them,
    the ENLIST slots are used. ENLIST-only charts are kept, their advantage not modelled."""
    enlist = {_chart_key(p): p for p in charts if p.origin == "enlist"}
    by_name = {(p.edition, _norm(p.name)): p for p in enlist.values()}
    out = []
    used = set()
    for p in charts:
        if p.origin == "enlist":
            continue
        e = enlist.get((p.edition, p.enlist_id)) if p.enlist_id else \
            by_name.get((p.edition, _norm(p.name)))
        if e is None:
            out.append(p)
            continue
        used.add(e.enlist_id)
        from dataclasses import replace

        if p.buildable:
            out.append(replace(p, origin="book+enlist", enlist_id=e.enlist_id,
                               only_combat_support=p.only_combat_support
                               or e.only_combat_support))
        else:
            note = (p.note + " " if p.note else "") + (
                f"Unit boxes lost in the rulebook conversion: slots from DUST ENLIST "
                f"({e.lines}).")
            out.append(replace(p, slots=e.slots, slots_lost=False, origin="book+enlist",
                               enlist_id=e.enlist_id, note=note,
                               only_combat_support=e.only_combat_support))
    out += [p for p in enlist.values() if p.enlist_id not in used]
    return out


def _slot_cards(slot: Slot) -> frozenset[tuple[str, ...]]:
    return frozenset((o.card or o.name, *o.joined) for o in slot.options)


def chart_differences(paths: Iterable[str | Path] | None = None,
                      cards: list[Card] | None = None) -> pd.DataFrame:
    """Where a rulebook chart with unit boxes and its ENLIST chart differ: slot counts and
    the options of each slot (card names, resolved by name)."""
    if paths is None:
        paths = sorted((default_data_dir() / "platoons").glob("*.toml"))
    charts = [p for f in paths for p in parse_platoon_file(f)]
    enlist = {_chart_key(p): p for p in charts if p.origin == "enlist"}
    by_name = {(p.edition, _norm(p.name)): p for p in enlist.values()}
    idx = _index(cards, "dust-1947") if cards is not None else None
    rows = []

    def names(slot: Slot) -> set[str]:
        out = set()
        for o in slot.options:
            c = resolve(o, idx, strict=False)[0] if idx is not None else None
            out.add(c.name if c is not None else o.card or o.name)
        return out

    for p in charts:
        if p.origin == "enlist" or not p.buildable:
            continue
        e = enlist.get((p.edition, p.enlist_id)) if p.enlist_id else \
            by_name.get((p.edition, _norm(p.name)))
        if e is None:
            continue
        for role in ROLES:
            bs = [s for s in p.slots if s.role == role]
            es = [s for s in e.slots if s.role == role]
            if len(bs) != len(es):
                rows.append({"platoon": p.name, "role": role, "slot": "",
                             "book": f"{len(bs)} slots", "enlist": f"{len(es)} slots"})
            for i, (b, x) in enumerate(zip(bs, es, strict=False), start=1):
                nb, ne = names(b), names(x)
                if nb != ne:
                    rows.append({"platoon": p.name, "role": role, "slot": str(i),
                                 "book": ", ".join(sorted(nb - ne)) or "-",
                                 "enlist": ", ".join(sorted(ne - nb)) or "-"})
    return pd.DataFrame(rows, columns=["platoon", "role", "slot", "book", "enlist"])


# ---------------------------------------------------------------------------- matching

_norm = match_key  # the list checker's normaliser (accents and "&" folded too)


def resolve(option: Option, cards_by_norm: dict[str, Card], strict: bool = True
            ) -> tuple[Card | None, str]:
    """The card an option names, and how it was matched (``name``, ``explicit`` or
    ``unmatched``). An explicit card that does not exist is an error in the data (with
    ``strict``; otherwise, for a selection of cards, it is just not available)."""
    if option.card:
        c = cards_by_norm.get(_norm(option.card))
        if c is None and not strict:
            return None, "unmatched"
        if c is None:
            raise DustsimError(f"explicit card {option.card!r} not found", unit=option.name,
                               field="card")
        return c, "explicit"
    c = cards_by_norm.get(_norm(option.name))
    return (c, "name") if c else (None, "unmatched")


def card_index(cards: Iterable[Card], edition: str) -> dict[str, Card]:
    """The cards of ``edition`` by their match key (:func:`dustsim.data.names.match_key`)."""
    return {_norm(c.name): c for c in cards if c.edition == edition}


_index = card_index  # the name the builders below use


def matches(platoons: list[Platoon], cards: list[Card]) -> pd.DataFrame:
    """Every printed unit name of every chart and the card it resolves to (or none)."""
    rows = []
    for p in platoons:
        idx = _index(cards, p.edition)
        seen = set()
        for i, s in enumerate(p.slots, start=1):
            for o in s.options:
                if (o.name, o.fortification) in seen:
                    continue
                seen.add((o.name, o.fortification))
                try:
                    c, how = resolve(o, idx)
                except DustsimError as exc:
                    raise DustsimError(f"{exc.unit!r}: {exc.message}",
                                       file=p.file, unit=p.name, field=f"slot {i}.card"
                                       ) from None
                rows.append({"platoon": p.name, "slot": i, "role": s.role, "printed": o.name,
                             "card": c.name if c else None, "matched_by": how,
                             "why": o.why or "", "fortification": o.fortification})
                for j in o.joined:
                    jc = idx.get(_norm(j))
                    rows.append({"platoon": p.name, "slot": i, "role": s.role, "printed": j,
                                 "card": jc.name if jc else None,
                                 "matched_by": "joined" if jc else "unmatched",
                                 "why": f"joined to {o.name}", "fortification": "none"})
    return pd.DataFrame(rows, columns=["platoon", "slot", "role", "printed", "card",
                                       "matched_by", "why", "fortification"])


# ---------------------------------------------------------------------------- advantages

def _activation(a: float) -> float:
    return 2.0 * a  # a unit's two Attack actions


def _reactivation_plan(users: list[tuple[str, float]], targets: list[tuple[str, float]],
                       p: float, costs_action: bool = True) -> float:
    """Best expected gain per turn from one Get Moving: p x a fresh activation of a target,
    less the user's lost second Attack when it costs an action."""
    best = 0.0
    for u, au in users:
        for t, at in targets:
            if u == t:
                continue
            best = max(best, p * _activation(at) - (au if costs_action else 0.0))
    return best


def _officer_baseline(leader: tuple[str, float], leader_is_officer: bool,
                      others: list[tuple[str, float]]) -> float:
    return _reactivation_plan([leader], others, GET_MOVING) if leader_is_officer else 0.0


def _mission_tactics(ctx) -> dict:
    base = _officer_baseline(ctx.leader, ctx.leader_officer, ctx.others)
    adv = max(base, _reactivation_plan([ctx.leader], ctx.eligible, 2 / 3))
    return {"static": (adv - base) / 2}


def _blitzkrieg(ctx) -> dict:
    # a third action: no Attack is given up
    return {"static": _reactivation_plan([ctx.leader], ctx.eligible, GET_MOVING,
                                         costs_action=False) / 2}


def _grab_them(ctx) -> dict:
    return {"static": _reactivation_plan(ctx.eligible, ctx.eligible, GET_MOVING) / 2}


def _breakthrough(ctx) -> dict:
    # after a March Move (both actions), 1/3: a free Attack; static fire is unchanged
    return {"static": 0.0, "advancing": sum(a for _, a in ctx.eligible) * GET_MOVING / 2}


ADVANTAGE_MODELS = {
    "mission-tactics": (_mission_tactics, "Get Moving on Heavy Grenadier units at 2/3 "
                        "instead of 1/3 (L1459): reactivation gain per action"),
    "blitzkrieg-tactics": (_blitzkrieg, "the leader's Get Moving (1/3) as a free third "
                           "action (L1696): reactivation gain per action"),
    "grab-them-by-the-nose": (_grab_them, "any M3 may Get Moving (1/3) another M3 (L1053): "
                              "reactivation gain per action"),
    "breakthrough": (_breakthrough, "1/3 free Attack after a March Move (L1878): offence "
                     "while advancing (advancing_gain)"),
}


def advantages(platoons: list[Platoon]) -> pd.DataFrame:
    """Every platoon advantage: modelled (and how) or not modelled in the value model, and
    what grid battles play of it (``battles``: played, partly played, not played, or "" for
    a chart without an advantage; ``battles_why_not``: the part left out and why;
    ``battles_decision``: a part the seeds leave open, decided with the lines read;
    :data:`dustsim.play.battle_platoon.ADVANTAGES`)."""
    from dustsim.play.battle_platoon import status

    rows = []
    for p in platoons:
        m = ADVANTAGE_MODELS.get(p.advantage_model or "")
        b = status(p.advantage) if p.advantage else None
        rows.append({"platoon": p.name, "bloc": p.bloc, "advantage": p.advantage,
                     "lines": p.advantage_lines, "rule": p.advantage_text,
                     "modelled": m is not None, "model": m[1] if m else
                     "advantage not modelled" + ("" if p.advantage else
                                                 " (not named in the DUST ENLIST extract)"),
                     "battles": b.status if b else "",
                     "battles_why_not": b.why_not if b else "",
                     "battles_decision": b.decision if b else "",
                     "origin": p.origin,
                     "buildable": p.buildable,
                     "why_not_buildable": "" if p.buildable else
                     "unit boxes lost in the rulebook conversion"})
    return pd.DataFrame(rows)



# ---------------------------------------------------------------------------- in battles
# Which units of a complete platoon each advantage names, and in which role (the role's
# meaning, and what battles play of each advantage: dustsim.play.battle_platoon). Units are
# told by their card's name (or faction) as the text names them; a joined hero or pilot
# does not change the unit's kind. Decisions: a "Ranger unit" is a card named Ranger (not
# Heavy Ranger; L1139); the M3 walkers are the chart's Mickey, Hot Dog, Pounder, Cobra and
# Barking Dog cards and the Rattler (L1053); open-topped M3 walkers the "(Light)" ones
# (L1325); M1 walkers Wildfire and Bushmaster (L1379); the IS-5/IS-48 tanks the chart's
# Iosef, Karl and Lavrentiy (no IUS-203 card is bundled; L1878); KV-47A/B/C the chart's
# Koshka-platoon walkers Nadya and Natasha (L1850); an ape unit a Gorilla card (L1566); a
# Steel Guard squad a squad card named Steel Guard (L2096); a Mercenary unit a card of the
# Mercenaries bloc or with the Mercenary skill (L2175).
_M3 = ("mickey", "hot dog", "pounder", "cobra", "barking dog", "rattler")
# Mobile Warfare's walkers (L1405): the Axis cards whose DUST ENLIST subtitle is a
# Panzerkampfläufer II, the IV-D or a Schützenpanzerläufer VI (units.jsonl), tropical
# versions included
_MOBILE_WALKERS = ("luther", "ludwig", "lothar", "loth", "loki", "lohengrin", "jagdluther",
                   "sturmluther", "stummel", "prinzluther")


def _has(card: Card, *words: str, without: tuple[str, ...] = ()) -> bool:
    n = card.name.lower()
    return any(w in n for w in words) and not any(w in n for w in without)


def _skill(card: Card, name: str) -> bool:
    return any(str(x).lower().startswith(name) for x in card.skills)


# the hero whose presence a lasting grant needs
_HOLDS = {"Fanatical Loyalty": "sigrid", "Tight Quarters": "christoph",
          "Strike Unseen": "roza", "Inflect Terror": "frank von stein",
          "Dig In Girls!": "tanya"}


def _grant_roles(advantage: str, card: Card, leader: bool,
                 cards: tuple[Card, ...] = ()) -> tuple[str, ...]:
    """The roles (dustsim.play.battle_platoon.ROLES) ``advantage`` gives a unit of its
    complete platoon whose card is ``card`` (``leader``: the platoon's command unit;
    ``cards``: the unit's cards, a joined hero or pilot included)."""
    a = advantage
    hero = _HOLDS.get(a)
    holds = ("holds",) if hero and any(c.name.lower().startswith(hero) for c in cards) else ()
    if a == "Fanatical Loyalty":
        return holds + (("no-tokens-while",) if _has(card, "laser grenadier") else ())
    if a == "Strike Unseen":
        ok = "spetsnaz" in (card.faction or "").lower() and card.kind in ("squad", "hero",
                                                                           "support")
        return holds + (("camouflage-while",) if ok else ())
    if a == "Rangers Lead the Way":
        return ("scout",) if _has(card, "ranger", without=("heavy ranger",)) else ()
    if a == "Mounted Assault":  # SPzL VI walkers; NDAK Grenadier / Heavy Grenadier squads
        if card.kind == "vehicle" and _has(card, "stummel", "sturmthuter"):
            return ("mounted",)
        ndak = "afrika" in (card.faction or "").lower() and _has(card, "grenadier")
        return ("rider",) if card.kind == "squad" and (ndak or _has(card, "heavy grenadier")) \
            else ()
    if a == "Night Witches":  # Red Ace in the Red Star and the required aircraft (L2041)
        cards_ = cards or (card,)
        if any(_has(c, "red ace", "the red star") for c in cards_):
            return ("holds", "stay-down-while")
        ok = card.kind == "aircraft" and _has(card, "striker", "blaster", "burner", "burster")
        return ("stay-down-while",) if ok else ()
    if a == "Knockout":  # every unit triggers; Rhino and the HR Assault Squads answer (L1195)
        cards_ = cards or (card,)
        return ("knocker",) if any(_has(c, "rhino", "heavy ranger assault") for c in cards_) \
            else ("knockout",)
    if a == "Close Cooperation":  # M7 walkers (the chart's Punisher, Fireball, Devastator)
        if card.kind == "vehicle" and _has(card, "punisher", "fireball", "devastator"):
            return ("escort-lead",)
        usmc = "usmc" in (card.faction or "").lower() or _has(card, "usmc")
        return ("escort",) if usmc and card.kind != "vehicle" else ()
    if a == "Wave Attack":  # Red Guards infantry squads: their soldiers (L2065)
        return ("wave",) if _has(card, "red guards") and card.kind == "squad" else ()
    if a == "Pack Hunters":  # the KV-47 series walkers (L1821; the chart's slots are lost)
        ok = card.kind == "vehicle" and _has(card, "nadya", "natasha", "natalya", "koshka",
                                             "aleksei", "kv-47", "kv47")
        return ("pack",) if ok else ()
    if a == "Inflect Terror":  # Zombie units (the Zombie skill), Frank included (L1659)
        return holds + (("terror",) if _skill(card, "zombie") else ())
    if a == "Lightning Strike":  # Heavy Ranger units (L1169): their infantry saves
        return ("lightning",) if _has(card, "heavy ranger") else ()
    if a == "Grab Them by the Nose":
        return ("walker-order", "ordered") if card.kind == "vehicle" and _has(card, *_M3) else ()
    if a == "Air Drop":
        return ("airborne",) if _has(card, "heavy commando") else ()
    if a == "Semper Fi":
        usmc = "usmc" in (card.faction or "").lower() or _has(card, "usmc")
        return ("brave",) if usmc or _has(card, "mickey (light)", "barking dog (light)") else ()
    if a == "Unflappable":
        usmc = "usmc" in (card.faction or "").lower() or _has(card, "usmc")
        if not (usmc or _has(card, "wildfire", "bushmaster")):
            return ()
        return ("brave", "no-tokens") if _skill(card, "brave") else ("brave",)
    if a == "Mission Tactics":
        return ("sure-order",) if leader else (
            ("ordered",) if _has(card, "heavy grenadier") else ())
    if a == "Blitzkrieg Tactics":
        if leader:
            return ("third-order",)
        ok = _has(card, "sturmgrenadier", without=("heavy grenadier",)) or (
            _has(card, "heavy grenadier") or (_has(card, "grenadier") and "afrika" in
                                              (card.faction or "").lower()))
        return ("ordered",) if ok else ()
    if a == "Primal Instinct":
        if leader and _has(card, "markus"):
            return ("ape-order",)
        return ("ordered",) if _has(card, "gorilla") else ()
    if a == "BRAINSSSS!":  # Mindless Zombie units: Charge, and the swarm's hunger (L1634)
        return ("charge", "swarm") if _skill(card, "mindless") else ()
    if a == "Tight Quarters":
        ndak = "afrika" in (card.faction or "").lower()
        return holds + (("scout", "trail-blazer-while") if ndak else ())
    if a == "Airborne Assault":
        return ("airborne",) if _has(card, "nadya", "natasha", "koshka") and \
            card.kind == "vehicle" else ()
    if a == "Breakthrough":
        return ("breakthrough",) if _has(card, "iosef", "karl", "lavrentiy") else ()
    if a == "Vigilant":
        return ("vigilant",)
    if a == "Mobile Warfare":
        ok = (card.kind == "vehicle" and _has(card, *_MOBILE_WALKERS, without=("königs",))) or \
            _has(card, "sturmgrenadier recon")
        return ("mobile",) if ok and not _skill(card, "move and fire") else ()
    if a == "Implacable Advance":
        return ("implacable",) if _has(card, "steel guard") and card.kind == "squad" else ()
    if a == "Dig In Girls!":  # Mercenary units and support weapon teams near Tanya (L2201)
        if holds:  # Tanya's unit: her own card has Defensive Tactics; not the re-roll
            return holds
        merc = "mercenar" in (card.bloc or "").lower() or _skill(card, "mercenary")
        own = any(_skill(c, "defensive tactics") for c in (cards or (card,)))  # kept always
        return (("dig-in",) if (merc or card.kind == "support") and not own else ()) + (
            ("dig-in-reroll",) if merc else ())
    if a == "Go Get 'Em Girls!":
        merc = "mercenar" in (card.bloc or "").lower() or _skill(card, "mercenary")
        return ("go-girls",) if merc else ()
    if a == "Surprise Strike":
        ok = "spetsnaz" in (card.faction or "").lower() or _has(card, "spetsnaz", "(tsh)")
        return ("first-double",) if ok else ()
    return ()


def battle_grants(lst, cards: list[Card] | None = None, charts=None) -> tuple:
    """The platoon advantages a list earns, as battles take them: one
    :class:`dustsim.play.battle_platoon.Grant` per complete platoon (its command unit and
    every required unit fielded, L950-958; :func:`dustsim.army.lists.check`) whose chart names
    an advantage, with the roles its text gives the units in or supporting it."""
    from dustsim.army.lists import check
    from dustsim.play.battle_platoon import Grant

    c = check(lst, cards, platoons=charts)
    by_chart = {p.name: p for p in (charts if charts is not None else load_platoons())}
    out = []
    for st in c.platoons:
        if not st.advantage_active or not st.advantage:
            continue
        chart = by_chart.get(st.chart)
        lines = chart.advantage_lines if chart else ""
        command = next((name for role, name in st.filled if role == "command"), None)
        roles = []
        leader_done = False
        for i, u in enumerate(lst.units):
            if u.platoon != st.id:
                continue
            leader = not leader_done and command in (u.name, u.card.name)
            leader_done = leader_done or leader
            for role in _grant_roles(st.advantage, u.card, leader, u.cards):
                roles.append((i, role))
        if st.advantage in _HOLDS and not any(r == "holds" for _i, r in roles):
            roles = [(i, r) for i, r in roles if not r.endswith("-while")]  # no such hero
        out.append(Grant(st.advantage, lines, f"{lst.name}: platoon {st.id!r} ({st.chart})",
                         tuple(roles)))
    return tuple(out)

# ---------------------------------------------------------------------------- building

def captured_cost(base: Card) -> float:
    """Cost of a captured vehicle: the vehicle's card cost +2 AP (L885-922)."""
    if base.kind != "vehicle":
        raise DustsimError("only vehicles can be captured", unit=base.name, field="kind")
    return float(base.ap) + CAPTURED_EXTRA_AP


def member_cost(m: Member, by_name: dict[str, Card]) -> float:
    """A member's AP: a captured vehicle +2 (a list may mark another unit captured: that is
    a legality violation, reported by the list checker, priced the same)."""
    c = by_name[m.card]
    return float(c.ap) + (CAPTURED_EXTRA_AP if m.captured else 0)


def force_points(members: Iterable[Member], by_name: dict[str, Card], budget: float) -> dict:
    """AP on the table, the faction (if the faction-force rule holds), the free hero points
    it allows and the AP paid from the budget."""
    members = list(members)
    cards = [by_name[m.card] for m in members]
    costs = [member_cost(m, by_name) for m in members]
    total = sum(costs)
    counted = [(card, c) for m, card, c in zip(members, cards, costs, strict=True)
               if not m.captured and card.bloc != "Mercenaries"]
    factions = {card.faction for card, _ in counted if card.faction}
    blocs = {card.bloc for card, _ in counted}
    if not counted and members:
        faction = "Mercenaries"  # all-mercenary force: bonus on mercenary heroes (L879-883)
    elif len(factions) == 1:
        faction = next(iter(factions))
    else:
        faction = None
    heroes = [(card, c) for card, c in zip(cards, costs, strict=True) if card.kind == "hero"]

    def hero_ap(of_faction: bool) -> float:  # heroes of that faction, or of the bloc
        out = 0.0
        for card, c in heroes:
            if faction == "Mercenaries":
                out += c if card.bloc == "Mercenaries" and of_faction else 0.0
            elif (of_faction and card.faction == faction) or (
                    not of_faction and not card.faction and card.bloc in blocs):
                out += c
        return out

    free = 0.0
    if faction:
        # the bonus heroes are extra: the 75 % share is of the basic force (L871-875),
        # counting bloc heroes as the free ones first
        free = min(hero_ap(True) + hero_ap(False), HERO_BONUS * budget)
        if faction != "Mercenaries":
            free_f = free - min(free, hero_ap(False))
            f_ap = sum(c for card, c in counted if card.faction == faction)
            basic = total - free
            if basic <= 0 or (f_ap - free_f) / basic < FACTION_SHARE - 1e-12:
                faction, free = None, 0.0
    return {"ap_total": total, "faction": faction or "", "free_hero_ap": free,
            "ap_paid": total - free}


def _legal_counts(members: list[Member], by_name: dict[str, Card]) -> bool:
    """No breach of the counting rules the list checker applies (:mod:`dustsim.army.legality`)."""
    tally = Counter(m.card for m in members)
    return not breaches(tally, [m.card for m in members if m.captured], by_name)


def support_pool(platoon: Platoon, cards: list[Card]) -> list[Member]:
    """Units that may support a platoon: its bloc's cards, mercenaries, and the capturable
    vehicles of another bloc (captured: +2 AP, at most one per force). A chart with "only
    combat units as support" takes its support from its combat slots' cards."""
    ed = [c for c in cards if c.edition == platoon.edition and c.ap]
    if platoon.only_combat_support:
        idx = _index(ed, platoon.edition)
        names = {c.name for s in platoon.slots if s.role == "required" for o in s.options
                 for c in [resolve(o, idx, strict=False)[0]] if c is not None}
        return [Member(n, "support") for n in sorted(names)]
    out = []
    for c in ed:
        if c.bloc == platoon.bloc or c.bloc == "Mercenaries":
            out.append(Member(c.name, "support", mercenary=c.bloc == "Mercenaries"
                              and platoon.bloc != "Mercenaries"))
        elif c.capturable and c.kind == "vehicle":
            out.append(Member(c.name, "support", captured=True))
    return out


def slot_choices(platoon: Platoon, cards: list[Card]) -> list[list[tuple[Member, ...]]] | None:
    """Per slot of the chart, the options that can be fielded from ``cards`` (each the card
    and the heroes joined to it as printed); None when a slot has none."""
    idx = _index(cards, platoon.edition)
    choices = []
    for s in platoon.slots:
        opts = []
        for o in s.options:
            c, _ = resolve(o, idx, strict=False)
            joined = [idx.get(_norm(j)) for j in o.joined]
            if c is not None and c.ap and all(j is not None for j in joined):
                opts.append((Member(c.name, s.role, o.fortification),
                             *(Member(j.name, s.role, joined_to=c.name) for j in joined)))
        if not opts:
            return None  # a slot with no matched card: the platoon cannot be built
        choices.append(opts)
    return choices


def _picks(choices: list[list[tuple[Member, ...]]]) -> Iterator[tuple[Member, ...]]:
    """Every choice of one option per slot; runs of slots with the same options are taken
    as multisets (the order of identical slots does not make another build)."""
    groups: list[tuple[list, int]] = []
    for opts in choices:
        if groups and groups[-1][0] == opts:
            groups[-1] = (opts, groups[-1][1] + 1)
        else:
            groups.append((opts, 1))
    for picked in itertools.product(*(itertools.combinations_with_replacement(o, k)
                                      for o, k in groups)):
        yield tuple(m for group in picked for option in group for m in option)


def core_builds(platoon: Platoon, cards: list[Card], budget: float, *,
                mercenary: bool = True) -> Iterator[list[Member]]:
    """Command + required units (and each mercenary replacement) that may fit the budget,
    before support units."""
    if not platoon.buildable:
        return
    by_name = {c.name: c for c in cards if c.edition == platoon.edition}
    choices = slot_choices(platoon, cards)
    if choices is None:
        return
    mercs = [c for c in cards if c.edition == platoon.edition and c.bloc == "Mercenaries"
             and c.ap and c.armour] if mercenary and platoon.bloc != "Mercenaries" else []
    for core in _picks(choices):
        yield list(core)
        for i, m in enumerate(core):
            if m.role != "required" or m.joined_to:
                continue
            rc = by_name[m.card]
            for mc in mercs:
                if rc.armour and mc.armour and mc.armour_type == rc.armour_type and \
                        mc.armour_value >= rc.armour_value:
                    yield [*core[:i], Member(mc.name, "required", mercenary=True,
                                             replaces=m.card), *core[i + 1:]]


def _member_key(m: Member) -> tuple:
    """A member as it is fielded: which required card a mercenary stands in for does not
    make another build."""
    return (m.card, m.role, m.fortification, m.captured, m.mercenary, m.joined_to or "")


def extend(platoon: Platoon, bases: Iterable[list[Member]], cards: list[Card], budget: float,
           max_support: int, seen: set | None = None) -> Iterator[Build]:
    """Legal builds of the given cores with 0 to ``max_support`` support units; a set of
    members too dear even with the largest hero bonus is skipped before the faction test."""
    by_name = {c.name: c for c in cards if c.edition == platoon.edition}
    pool = support_pool(platoon, cards) if max_support else []
    pool_cost = [member_cost(m, by_name) for m in pool]
    pool_key = [_member_key(m) for m in pool]
    seen = set() if seen is None else seen
    ceiling = budget * (1 + HERO_BONUS) + 1e-9
    for base in bases:
        base_ap = sum(member_cost(m, by_name) for m in base)
        if base_ap > ceiling:
            continue
        base_key = (_member_key(base[0]), tuple(sorted(map(_member_key, base[1:]))))
        for k in range(max_support + 1):
            for idx in itertools.combinations_with_replacement(range(len(pool)), k):
                if base_ap + sum(pool_cost[i] for i in idx) > ceiling:
                    continue
                key = (*base_key, tuple(sorted(pool_key[i] for i in idx)))
                if key in seen:
                    continue
                members = [*base, *(pool[i] for i in idx)]
                if not _legal_counts(members, by_name):
                    continue
                seen.add(key)
                pts = force_points(members, by_name, budget)
                if pts["ap_paid"] <= budget + 1e-9:
                    yield Build(platoon.name, tuple(members), pts)


def builds(platoon: Platoon, cards: list[Card], budget: float, *, max_support: int = 1,
           mercenary: bool = True) -> Iterator[Build]:
    """Every legal build (command + required units, optionally one mercenary replacement and
    up to ``max_support`` support units) whose paid AP fits the budget; each build once."""
    yield from extend(platoon, core_builds(platoon, cards, budget, mercenary=mercenary),
                      cards, budget, max_support)


# ---------------------------------------------------------------------------- scoring

@dataclass(frozen=True)
class _Ctx:
    leader: tuple[str, float]
    leader_officer: bool
    others: list
    eligible: list


def unit_metrics(score_table: pd.DataFrame, cards: list[Card],
                 fortified: Iterable[tuple[str, str]] = ()) -> dict:
    """``{(card, fortification): (offence, durability)}`` from a scores table; durability of
    fortified units (bunker / strongpoint saves) is computed here."""
    from dustsim.army.unit_metrics import durability

    out = {}
    for r in score_table.itertuples():
        out[(r.unit, "none")] = (float(r.offence), float(r.durability))
    by_name = {c.name: c for c in cards}
    for name, fort in set(fortified):
        if (name, "none") in out and (name, fort) not in out:
            card = by_name[name]
            out[(name, fort)] = (out[(name, "none")][0],
                                 durability(card, cards, fortification=fort))
    return out


def score_build(build: Build, platoon: Platoon, metrics: dict,
                by_name: dict[str, Card]) -> dict | None:
    """Offence, durability, composite and modelled advantage of one build (None when a
    member has no figures, e.g. a card without weapons)."""
    offs, durs = [], []
    for m in build.members:
        f = metrics.get((m.card, m.fortification))
        if f is None:
            return None
        offs.append(f[0])
        durs.append(f[1])
    off, dur = sum(offs), sum(durs)
    gain = {"static": 0.0, "advancing": 0.0}
    fn = ADVANTAGE_MODELS.get(platoon.advantage_model or "", (None,))[0]
    if fn is not None:
        pairs = [(f"{i}:{m.card}", o) for i, (m, o) in enumerate(zip(build.members, offs,
                                                                     strict=True))]
        leader = pairs[0]
        eligible = [p for p, m in zip(pairs, build.members, strict=True)
                    if m.card in platoon.eligible and not m.mercenary]
        ctx = _Ctx(leader, by_name[build.members[0].card].has_skill("Officer"), pairs[1:],
                   eligible)
        gain.update(fn(ctx))
    paid = build.extra["ap_paid"]
    with_adv = off + gain["static"]
    return {
        "offence": off, "advantage_gain": gain["static"], "advancing_gain": gain["advancing"],
        "offence_with_advantage": with_adv, "durability": dur,
        "offence_per_ap": with_adv / paid, "durability_per_ap": dur / paid,
        "composite": (with_adv / paid) * (dur / paid),
        "composite_without_advantage": (off / paid) * (dur / paid),
    }


def platoon_table(platoons: list[Platoon], cards: list[Card], score_table: pd.DataFrame, *,
                  budget: float = 75, max_support: int = 1, progress: bool = False,
                  support_cores: int | None = SUPPORT_CORES) -> pd.DataFrame:
    """Legal builds of every buildable platoon within ``budget``, scored and ranked per AP
    (tidy: one row per build).

    Every core (command + required units, mercenary replacements included) is scored; the
    support units (up to ``max_support``) are tried on the ``support_cores`` best cores of
    each platoon (``None``: on every core, exhaustive). With 54 charts the exhaustive
    search runs to tens of millions of builds, so the tables are "best found" that way."""
    columns: dict[str, list] = {}

    def add(row: dict) -> None:
        for k, v in row.items():
            columns.setdefault(k, []).append(v)
    todo = [p for p in platoons if p.buildable]
    it = todo
    note = None
    if progress:
        from tqdm import tqdm

        it = tqdm(todo, desc="platoons", unit="platoon", leave=False)
    else:  # no bar (no terminal, --json): one "about N min left" note if the search is long
        from dustsim.engines import kernel

        note = kernel.LongRunNote(len(todo), "platoon charts to search")
    by_ed = {}
    for p in it:
        if note is not None and p is not todo[0]:
            note.update(1)  # the charts done so far (the first one's time starts the clock)
        ed_cards = [c for c in cards if c.edition == p.edition]
        by_name = {c.name: c for c in ed_cards}
        if p.edition not in by_ed:
            idx = _index(ed_cards, p.edition)
            forts = [(c.name, o.fortification) for q in platoons if q.edition == p.edition
                     for s in q.slots for o in s.options if o.fortification != "none"
                     for c in [resolve(o, idx, strict=False)[0]] if c is not None]
            by_ed[p.edition] = unit_metrics(score_table[score_table["edition"] == p.edition],
                                            ed_cards, forts)
        metrics = by_ed[p.edition]
        partial = {c.name: c.models_source == "inferred" or not c.complete for c in ed_cards}
        # only cards with figures can be scored (cards without weapons or AP are not)
        scored = [c for c in ed_cards if (c.name, "none") in metrics]
        seen: set = set()
        found = []
        for b in extend(p, core_builds(p, scored, budget), scored, budget, 0, seen):
            s = score_build(b, p, metrics, by_name)
            if s is not None:
                found.append((b, s))
        if max_support:
            best = sorted(found, key=lambda bs: -bs[1]["composite"])
            best = best if support_cores is None else best[:support_cores]
            for b in extend(p, [list(b.members) for b, _ in best], scored, budget,
                            max_support, seen):
                s = score_build(b, p, metrics, by_name)
                if s is not None:
                    found.append((b, s))
        for b, s in found:
            cmd = b.members[0]
            add({
                "edition": p.edition, "platoon": p.name, "bloc": p.bloc,
                "command": cmd.label,
                "required": " + ".join(m.label for m in b.members if m.role == "required"),
                "support": " + ".join(m.label + (" (captured)" if m.captured else "")
                                      for m in b.members if m.role == "support"),
                "units": len(b.members), "budget": budget, **b.extra,
                "captured": any(m.captured for m in b.members),
                "mercenary": any(m.mercenary and m.role == "required" for m in b.members),
                "advantage": p.advantage,
                "advantage_modelled": p.advantage_model is not None,
                "partial": any(partial[m.card] for m in b.members),
                **s,
            })
        del found
    # columns of the rows (every row has the same keys): less memory than the rows as
    # dicts, and the same frame
    if len({len(v) for v in columns.values()}) > 1:
        raise AssertionError("platoon rows with different fields")
    df = pd.DataFrame(columns)
    if not df.empty:
        # a build with a member whose figures are not finite (unknown cells) is not ranked
        df = df[df["composite"].map(lambda v: v == v and abs(v) != float("inf"))]
    if df.empty:
        return df
    df["rank"] = df["composite"].rank(ascending=False, method="min").astype(int)
    df["rank_in_platoon"] = df.groupby("platoon")["composite"].rank(
        ascending=False, method="min").astype(int)
    return df.sort_values("composite", ascending=False).reset_index(drop=True)


def best_builds(table: pd.DataFrame, per_platoon: int = 1) -> pd.DataFrame:
    """The best ``per_platoon`` builds of each platoon, best platoon first."""
    if table.empty:
        return table
    return (table[table["rank_in_platoon"] <= per_platoon]
            .sort_values("composite", ascending=False).reset_index(drop=True))

