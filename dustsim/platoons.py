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
:mod:`dustsim.analytics`: offence (AP destroyed per Attack action, weighted over the
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
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .cards import Card, default_data_dir
from .errors import DustsimError

FACTION_SHARE = 0.75
HERO_BONUS = 0.10
CAPTURED_EXTRA_AP = 2
GET_MOVING = 1 / 3  # Officer: Get Moving You Bunch of Monkeys, 2 faces (L3725)
ROLES = ("command", "required")


@dataclass(frozen=True)
class Option:
    name: str
    card: str | None = None  # explicit card name where the printed name differs
    why: str | None = None
    fortification: str = "none"


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
    file = str(path)
    try:
        doc = tomllib.loads(Path(path).read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, OSError) as exc:
        raise _err(file, None, "toml", f"cannot read: {exc}") from None
    edition = doc.get("edition", "dust-1947")
    out = []
    raw = doc.get("platoon", [])
    if not isinstance(raw, list):
        raise _err(file, None, "platoon", "must be an array of tables")
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
                options.append(Option(_str(o, "name", file, name), card, why, fort))
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
            eligible=tuple(p.get("eligible", ())), note=p.get("note", ""), file=file))
        if out[-1].advantage_model and out[-1].advantage_model not in ADVANTAGE_MODELS:
            raise _err(file, name, "advantage_model",
                       f"unknown {out[-1].advantage_model!r} (known: "
                       f"{', '.join(sorted(ADVANTAGE_MODELS))})")
    return out


def load_platoons(paths: Iterable[str | Path] | None = None) -> list[Platoon]:
    """Every platoon chart under ``unit_data/platoons`` (or the given files)."""
    if paths is None:
        paths = sorted((default_data_dir() / "platoons").glob("*.toml"))
    return [p for f in paths for p in parse_platoon_file(f)]


# ---------------------------------------------------------------------------- matching

def _norm(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


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


def _index(cards: Iterable[Card], edition: str) -> dict[str, Card]:
    return {_norm(c.name): c for c in cards if c.edition == edition}


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
    """Every platoon advantage: modelled (and how) or not modelled."""
    rows = []
    for p in platoons:
        m = ADVANTAGE_MODELS.get(p.advantage_model or "")
        rows.append({"platoon": p.name, "bloc": p.bloc, "advantage": p.advantage,
                     "lines": p.advantage_lines, "rule": p.advantage_text,
                     "modelled": m is not None, "model": m[1] if m else
                     "not modelled (no numeric effect on the per-action figures)",
                     "buildable": p.buildable,
                     "why_not_buildable": "" if p.buildable else
                     "unit boxes lost in the rulebook conversion"})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- building

def captured_cost(base: Card) -> float:
    """Cost of a captured vehicle: the vehicle's card cost +2 AP (L885-922)."""
    if base.kind != "vehicle":
        raise DustsimError("only vehicles can be captured", unit=base.name, field="kind")
    return float(base.ap) + CAPTURED_EXTRA_AP


def captured_base_name(card: Card) -> str | None:
    m = re.fullmatch(r"(.*) \(Captured\)", card.name)
    return m.group(1) if m and card.bloc == "Captured Vehicles" else None


def member_cost(m: Member, by_name: dict[str, Card]) -> float:
    c = by_name[m.card]
    if m.captured:
        base = by_name.get(captured_base_name(c) or "")
        return captured_cost(base) if base is not None else float(c.ap)
    return float(c.ap)


def force_points(members: Iterable[Member], by_name: dict[str, Card], budget: float) -> dict:
    """AP on the table, the faction (if the faction-force rule holds), the free hero points
    it allows and the AP paid from the budget."""
    members = list(members)
    costs = [member_cost(m, by_name) for m in members]
    total = sum(costs)
    counted = [(m, c) for m, c in zip(members, costs, strict=True)
               if not m.captured and by_name[m.card].bloc != "Mercenaries"]
    factions = {by_name[m.card].faction for m, _ in counted if by_name[m.card].faction}
    blocs = {by_name[m.card].bloc for m, _ in counted}
    if not counted and members:
        faction = "Mercenaries"  # all-mercenary force: bonus on mercenary heroes (L879-883)
    elif len(factions) == 1:
        faction = next(iter(factions))
    else:
        faction = None

    def hero_ap(of_faction: bool) -> float:  # heroes of that faction, or of the bloc
        out = 0.0
        for m, c in zip(members, costs, strict=True):
            card = by_name[m.card]
            if card.kind != "hero":
                continue
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
            f_ap = sum(c for m, c in counted if by_name[m.card].faction == faction)
            basic = total - free
            if basic <= 0 or (f_ap - free_f) / basic < FACTION_SHARE - 1e-12:
                faction, free = None, 0.0
    return {"ap_total": total, "faction": faction or "", "free_hero_ap": free,
            "ap_paid": total - free}


def _legal_counts(members: list[Member], by_name: dict[str, Card]) -> bool:
    n = Counter(m.card for m in members)
    for name, k in n.items():
        c = by_name[name]
        limit = 1 if c.kind == "hero" else c.max_per_army
        if limit is not None and k > limit:
            return False
    return sum(m.captured for m in members) <= 1


def support_pool(platoon: Platoon, cards: list[Card]) -> list[Member]:
    """Units that may support a platoon: its bloc's cards, mercenaries, and captured
    vehicles built by another bloc (at most one per force)."""
    ed = [c for c in cards if c.edition == platoon.edition and c.ap]
    by_name = {c.name: c for c in ed}
    out = []
    for c in ed:
        if c.bloc == platoon.bloc or c.bloc == "Mercenaries":
            out.append(Member(c.name, "support", mercenary=c.bloc == "Mercenaries"
                              and platoon.bloc != "Mercenaries"))
        else:
            base = by_name.get(captured_base_name(c) or "")
            if base is not None and base.bloc != platoon.bloc:
                out.append(Member(c.name, "support", captured=True))
    return out


def builds(platoon: Platoon, cards: list[Card], budget: float, *, max_support: int = 1,
           mercenary: bool = True) -> Iterator[Build]:
    """Every legal build (command + required units, optionally one mercenary replacement and
    up to ``max_support`` support units) whose paid AP fits the budget; each build once."""
    if not platoon.buildable:
        return
    idx = _index(cards, platoon.edition)
    by_name = {c.name: c for c in cards if c.edition == platoon.edition}
    choices = []
    for s in platoon.slots:
        opts = []
        for o in s.options:
            c, _ = resolve(o, idx, strict=False)
            if c is not None and c.ap:
                opts.append(Member(c.name, s.role, o.fortification))
        if not opts:
            return  # a slot with no matched card: the platoon cannot be built
        choices.append(opts)
    mercs = [c for c in cards if c.edition == platoon.edition and c.bloc == "Mercenaries"
             and c.ap and c.armour] if mercenary and platoon.bloc != "Mercenaries" else []
    pool = support_pool(platoon, cards)
    seen = set()
    for core in itertools.product(*choices):
        cores = [list(core)]
        for i, m in enumerate(core):
            if m.role != "required":
                continue
            rc = by_name[m.card]
            for mc in mercs:
                if rc.armour and mc.armour and mc.armour_type == rc.armour_type and \
                        mc.armour_value >= rc.armour_value:
                    cores.append([*core[:i], Member(mc.name, "required", mercenary=True,
                                                    replaces=m.card),
                                  *core[i + 1:]])
        for base in cores:
            for k in range(max_support + 1):
                for sup in itertools.combinations_with_replacement(pool, k):
                    members = [*base, *sup]
                    key = (base[0], tuple(sorted(map(repr, base[1:]))),
                           tuple(sorted(map(repr, sup))))
                    if key in seen or not _legal_counts(members, by_name):
                        continue
                    seen.add(key)
                    pts = force_points(members, by_name, budget)
                    if pts["ap_paid"] <= budget + 1e-9:
                        yield Build(platoon.name, tuple(members), pts)


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
    from .analytics import durability

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
                  budget: float = 75, max_support: int = 1, progress: bool = False
                  ) -> pd.DataFrame:
    """Every legal build of every buildable platoon within ``budget``, scored and ranked
    per AP (tidy: one row per build)."""
    rows = []
    todo = [p for p in platoons if p.buildable]
    it = todo
    if progress:
        from tqdm import tqdm

        it = tqdm(todo, desc="platoons", unit="platoon", leave=False)
    by_ed = {}
    for p in it:
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
        # only cards with figures can be scored (cards without weapons or AP are not)
        scored = [c for c in ed_cards if (c.name, "none") in metrics]
        for b in builds(p, scored, budget, max_support=max_support):
            s = score_build(b, p, metrics, by_name)
            if s is None:
                continue
            cmd = b.members[0]
            rows.append({
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
                "partial": any(by_name[m.card].models_source == "inferred" or
                               not by_name[m.card].complete for m in b.members),
                **s,
            })
    df = pd.DataFrame(rows)
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

