"""Value from battles: what a card adds to the armies that field it (issue 24, on today's
engine; the board battles can replace :func:`_play_pair` later, nothing else changes).

1. **Armies** (:func:`contexts`). For each bloc, :data:`HOSTS` host armies: a platoon chart of
   the bloc drawn at random (only buildable charts with a playable card in every slot), one
   option drawn per slot (command and required units, heroes joined or piloting as the chart
   prints them: 1947 L817-985), then support units of the chart's pool (its bloc's cards and
   mercenaries, or its combat slots' cards for "only combat units as support") drawn until
   the army reaches :data:`BUDGET` AP (heroes, cards that cannot play and units whose worth is
   mainly an unplayed role are not drawn as support). Each host meets an opponent army of
   another bloc drawn the same way. Everything is drawn from ``SeedSequence([seed, "armies"])``
   over sorted names: the armies do not depend on card order.
2. **Battles with and without** (:func:`battle_values`). A card joins each host army of its
   bloc (a mercenary: of every bloc, the same number of hosts): a squad, vehicle, support
   weapon or aircraft as one more unit; a hero joined to the army's first squad of its armour
   it may join (1947 L932-934; a Zombie, Gorilla or Steel Guard hero only a squad of its kind
   and no other hero such a squad, L3541, L3661, L3703: :func:`may_join_kind`), a hero with
   a pilot skill piloting the army's first vehicle
   it may pilot (L936-948), else alone. Army plus card plays the opponent, and so does the
   army alone, :data:`GAMES` games each, on the list-battle engine
   (:mod:`dustsim.play.list_battles`: :data:`~dustsim.play.list_battles.DEFAULT_DISTANCE` squares,
   :data:`~dustsim.play.list_battles.DEFAULT_TURNS` turns, the default policy) with **common random
   numbers** (the same seed for both games of a pairing).
3. **Worth**: the battle's outcome is its victory points (1947 L368: the AP of the enemy
   units destroyed). The card's worth in one pairing is the change in the host's VP margin
   (VP won minus VP the host's *own other units* lose; the card's own loss is not counted,
   which would charge the card its printed price) that its presence makes; its value ``v``
   is the mean over the pairings, with its standard error.
3b. **Why 100 AP armies** (:data:`BUDGET`; issue 24's saturation). A card's marginal VP is
   capped by what the opponent has to lose and by the turns it has to do it in: in 50 AP
   armies a 68 AP card cannot add more than a 25 AP one (median ``v`` of the cards at 35-100
   AP 20.6 VP, at 25-35 AP 24.9). The armies are the same for every card (the budget is one
   setting of the edition, never scaled to a card's printed cost; equal-points swaps, where
   the card replaces host units of its own printed AP, were not taken: they put the printed
   cost into the value the benchmark compares with it). Measured on Dust 1947 (seed 0,
   ``benchmarks/value_model.py``): 8 hosts x 12 games, Spearman of the battles alone 0.538
   at 50 AP, 0.670 at 100, 0.565 at 150 (the card is a smaller share of the army and the
   games are noisier); 32 x 24: 0.731 / log R² 0.494 at 50 AP, 0.785 / 0.620 at 100 AP, the
   median ``v`` at 35-100 AP 49.8 VP (25-35 AP: 43.1); another sample of armies moves
   Spearman by ~0.02 (48 x 12 at 100 AP: 0.766 / 0.577; 16 x 96: 0.756 / 0.548). Cost:
   136 s of CPU at 100 AP against 63 s at 50 (one thread; ~95 % of it compiling each army
   with the card, not playing), so the report plays battles only for the cards that need
   them (``value.battle_needed``).
3c. **Attrition rates, not VP** (issue 24's saturation; :func:`worth`). The VP an army wins
   are capped by the opponent's AP: a card that lifts its army from destroying 80 % of the
   opponent to 95 % adds few VP though it changes the battle most. So a pairing's worth is
   the change in the attrition rate its army inflicts, ``P x -log(1 - VP / P)`` with ``P``
   the opponent's AP (the share clipped at ``1 - 1/(2 x games)``), minus the change in the
   rate it suffers on its own other units (their AP as ``P``): in AP, equal to the VP margin
   where neither pool is near exhausted (``battle_vp`` keeps the plain VP margin).
   A Commissar (1947 L3477-3479: it must join an infantry unit of its armour) joins the
   army's first squad it may join as one more model with its weapons and skills
   (:func:`joined_card`); it is never drawn as a unit of its own.
4. **Fair AP**: the only fitted map, one power law ``log AP = a + b log v`` for the whole
   edition (reduced major axis over the cards with ``v`` above :data:`V_MIN` and above its
   own standard error, and a cost): it does not saturate (any ``v`` maps to a cost, large
   ``v`` to large costs). A card whose ``v`` is not measurable (below either) gets no fair
   cost from the battles and is named ("no measurable effect in battles").

What the battles do not play is named per card (the unplayed skills of
:func:`dustsim.review.value.not_modelled`, platoon advantages); a card that cannot
play gets ``battle_why`` and no value, never 0. Command roles are played: an officer rallies
and moves the other units of its army (:data:`BATTLE_PLAYED_ROLES`), so officers, command
squads and generals get a battle verdict; the other main roles (Artillery Observer,
transport, Mechanic, Spy, ...) keep a card's battle verdict "not judged". A card with a
command role and a main role no engine plays (The Desert Fox's own rule, Fumiko's Tactician:
:func:`commands` and :func:`unplayed_main_roles`) is valued from its battles in the value
model, as a lower bound naming the rest (:func:`dustsim.review.value._combine`).

The grid battlefield (:mod:`dustsim.play.battle`) is not used yet: it scores only side
totals (the card's own loss cannot be left out of the margin) and it reads the units' AP in
its target choice, so the weighting of :func:`_play_pair` cannot be copied; and it plays
fewer games per second (``benchmarks/value_model.py --grid-speed``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dustsim.army.lists import ArmyList, ListUnit
from dustsim.data.cards import Card
from dustsim.errors import DustsimError

BUDGET = 100.0  # AP of each host army and opponent (module docstring: why 100, measured)
HOSTS = 32
GAMES = 24
VERSION = 5  # of how a card joins a host army (2: pilots pilot, 3: commissars join, 5: Zombie,
#: Gorilla and Steel Guard joins) and of its worth (4: attrition rates); in every row's settings key
V_MIN = 0.05  # VP: a card adding less than this is "no measurable effect"
#: main roles (:func:`dustsim.review.value.main_roles`) the list battles play: an officer's
#: Rally and Get Moving of *other* units (the duel kernel's ``_rally``, 1947 L3729-3731;
#: a General's free officer action). In a one-on-one engagement they have nobody to command,
#: so such a card is valued from the battles alone (``value.py`` step 3b).
BATTLE_PLAYED_ROLES = frozenset({"Officer (command actions)", "command squad actions",
                                 "General"})


def unplayed_main_roles(card: Card, bound_roles: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The card's main roles (:func:`dustsim.review.value.main_roles`) the battles do not
    play either. A pilot hero pilots a vehicle of the host army in the battles
    (:func:`_with_card`), but its role is not counted as played: measured on Dust 1947 (seed
    0, 100 AP, 32 x 24) the eleven heroes that piloted add -5.3 to +2.8 VP (standard errors
    2.2-3.5), all but Red Ace (+7.8 ± 2.9) within two standard errors of nothing (the pilot
    is never targeted and an Ace Pilot rolls for a third action, yet the piloted unit also
    counts for more in the opponent's target choice). ``bound_roles``: the roles that bound
    its verdict without keeping it out of the armies (:func:`dustsim.review.value.
    bound_roles_of`: its main weapon's rules the line does not play, the battles are fought on
    the line too; a hero's named piloting), added."""
    from dustsim.review.value import main_roles

    return tuple(r for r in (*main_roles(card), *bound_roles) if r not in BATTLE_PLAYED_ROLES)


def commands(card: Card) -> bool:
    """Whether one of the card's main roles is a command role the battles play
    (:data:`BATTLE_PLAYED_ROLES`: an officer's Rally and Get Moving, a General)."""
    from dustsim.review.value import main_roles

    return any(r in BATTLE_PLAYED_ROLES for r in main_roles(card))


def must_join(card: Card) -> bool:
    """A non-hero card that must join an infantry unit of its armour at the start of the
    game (a Commissar, 1947 L3477-3479): never a unit of its own in an army."""
    return card.kind != "hero" and any(" ".join(s.strip().lower().split()) == "commissar"
                                       for s in card.skills)


def joined_card(unit: Card, member: Card) -> Card:
    """The unit ``member`` (a :func:`must_join` card) joins, as one card: its models, weapon
    lines (the member's keep their own dice and carriers), skills and cost added to the
    unit's ("becoming part of the Unit", L3477)."""
    skills = unit.skills + tuple(s for s in member.skills if s not in unit.skills)
    return replace(unit, name=f"{unit.name} + {member.name}",
                   models=(unit.models or 0) + (member.models or 1),
                   weapons=unit.weapons + member.weapons, skills=skills,
                   ap=(unit.ap or 0) + (member.ap or 0))


def _may_join(member: Card, unit: Card) -> bool:
    """An infantry squad of the member's armour without a member of its kind yet (one
    Commissar per unit, L3477-3479)."""
    return (unit.kind == "squad" and not must_join(unit) and unit.armour == member.armour
            and may_join_kind(member, unit)
            and not any(" ".join(s.strip().lower().split()) == "commissar"
                        for s in unit.skills))


#: kinds of unit only a hero of the same kind joins, and whose heroes join only them
#: (Gorilla L3541, Steel Guard L3661, Zombie L3703)
OWN_KIND_JOIN = ("gorilla", "steel guard", "zombie")


def may_join_kind(hero: Card, squad: Card) -> bool:
    """Whether ``hero`` may join ``squad`` as far as Gorilla, Steel Guard and Zombie go: only
    a hero of the kind joins a unit of the kind, and it joins no other (L3541, L3661,
    L3703)."""
    hs = {" ".join(x.strip().lower().split()) for x in hero.skills}
    ss = {" ".join(x.strip().lower().split()) for x in squad.skills}
    return all((k in hs) == (k in ss) for k in OWN_KIND_JOIN)


def _may_pilot(hero: Card, vehicle: Card) -> bool:
    """A hero with the pilot skill for the vehicle's kind, a vehicle without a named pilot
    (the list rules, :data:`dustsim.army.lists.PILOT_SKILLS`; 1947 L938, L3623-3625)."""
    from dustsim.army.lists import PILOT_SKILLS

    kinds = PILOT_SKILLS.get(vehicle.kind or "")
    hs = {x.strip().casefold() for x in hero.skills}
    return bool(kinds) and any(k in hs for k in kinds) and not any(
        x.strip().casefold().startswith("pilot:") for x in vehicle.skills)


@dataclass(frozen=True)
class Context:
    """One host army and the opponent it meets."""

    bloc: str
    host: tuple[ListUnit, ...]
    opponent: tuple[ListUnit, ...]
    seed: int


_PLAYABLE: dict[Card, bool] = {}


def _playable(card: Card) -> bool:
    """A card drawn as support: costed, playable, its worth not mainly in an unplayed role."""
    from dustsim.review.value import main_roles, why_unplayable

    if card not in _PLAYABLE:
        _PLAYABLE[card] = (bool(card.ap) and why_unplayable(card) is None
                           and not main_roles(card) and not must_join(card))
    return _PLAYABLE[card]


def _army(platoon, cards: list[Card], by_name: dict[str, Card], rng: np.random.Generator,
          budget: float) -> tuple[ListUnit, ...] | None:
    from dustsim.army.platoons import slot_choices, support_pool

    choices = slot_choices(platoon, cards)
    if choices is None:
        return None
    members = [m for opts in choices for m in opts[int(rng.integers(len(opts)))]]
    units: list[ListUnit] = []
    heroes: list[tuple[Card, str]] = []
    for m in members:
        c = by_name[m.card]
        if m.joined_to:
            heroes.append((c, m.joined_to))
        else:
            units.append(ListUnit(c, captured=m.captured))
    for hero, to in heroes:  # joined or piloting as the chart prints it
        for i, u in enumerate(units):
            if u.card.name == to and u.hero is None and u.pilot is None:
                units[i] = (replace(u, hero=hero) if u.card.kind == "squad"
                            else replace(u, pilot=hero))
                break
    if any(why(u.card) for u in units):
        return None
    ap = sum(u.ap for u in units)
    pool = [m for m in support_pool(platoon, cards)
            if by_name[m.card].kind != "hero" and _playable(by_name[m.card])]
    for _ in range(40):
        if ap >= budget or not pool:
            break
        m = pool[int(rng.integers(len(pool)))]
        u = ListUnit(by_name[m.card], captured=m.captured)
        if ap + u.ap <= budget + 3:
            units.append(u)
            ap += u.ap
    return tuple(units)


def why(card: Card) -> str | None:
    from dustsim.review.value import why_unplayable

    return why_unplayable(card)


def contexts(cards: list[Card], *, seed: int = 0, hosts: int = HOSTS,
             budget: float = BUDGET) -> dict[str, tuple[Context, ...]]:
    """The host armies of each bloc and their opponents (module docstring, step 1)."""
    from dustsim.army.platoons import load_platoons

    cards = sorted(cards, key=lambda c: c.name)
    by_name = {c.name: c for c in cards}
    ed = cards[0].edition if cards else ""
    charts = sorted((p for p in load_platoons() if p.edition == ed and p.buildable),
                    key=lambda p: p.name)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xA2A1E5]))
    armies: dict[str, list[tuple[ListUnit, ...]]] = {}
    blocs = sorted({p.bloc for p in charts})
    for bloc in blocs:
        mine = [p for p in charts if p.bloc == bloc]
        got: list[tuple[ListUnit, ...]] = []
        for _ in range(hosts * 6):
            if len(got) >= 2 * hosts:
                break
            a = _army(mine[int(rng.integers(len(mine)))], cards, by_name, rng, budget)
            if a:
                got.append(a)
        if got:
            armies[bloc] = got
    out: dict[str, tuple[Context, ...]] = {}
    names = sorted(armies)
    for bi, bloc in enumerate(names):
        others = [b for b in names if b != bloc] or [bloc]
        ctx = []
        for k in range(min(hosts, len(armies[bloc]))):
            ob = others[(bi + k) % len(others)]
            opp = armies[ob][(k + 1 + bi) % len(armies[ob])]
            s = int(np.random.SeedSequence([seed, bi, k]).generate_state(1)[0])
            ctx.append(Context(bloc, armies[bloc][k], opp, s))
        out[bloc] = tuple(ctx)
    return out


def _with_card(host: tuple[ListUnit, ...], card: Card) -> tuple[tuple[ListUnit, ...], str]:
    """The host army with the card added, and how it was added."""
    from dustsim.play.duel import join_hero

    if must_join(card):  # a Commissar joins the first squad it may (L3477-3479)
        for i, u in enumerate(host):
            if u.pilot is None and _may_join(card, u.card):
                return (*host[:i], replace(u, card=joined_card(u.card, card)),
                        *host[i + 1:]), u.card.name
    if card.kind == "hero":
        for i, u in enumerate(host):  # a pilot pilots the first vehicle it may (L936-948)
            if u.hero is None and u.pilot is None and _may_pilot(card, u.card):
                return (*host[:i], replace(u, pilot=card), *host[i + 1:]), u.card.name
        for i, u in enumerate(host):
            if (u.hero is None and u.pilot is None and u.card.kind == "squad"
                    and may_join_kind(card, u.card)):
                try:
                    join_hero(card, u.card)
                except DustsimError:
                    continue
                return (*host[:i], replace(u, hero=card), *host[i + 1:]), u.card.name
    return (*host, ListUnit(card)), ""


def _play_pair(a: tuple[ListUnit, ...], b: tuple[ListUnit, ...], games: int, seed: int,
               adjust: tuple[str, float] | None = None) -> Outcome:
    """Mean and variance of one pairing's VP margin for side A: VP won (the AP of B's units
    destroyed) minus the AP of A's own units destroyed, A's unit ``adjust[0]`` (the card
    under test, or the squad a hero joined) weighted ``adjust[1]`` instead of its AP. The
    engine: :mod:`dustsim.play.list_battles`."""
    from dustsim.engines.montecarlo import variance
    from dustsim.play.list_battles import compile_lists, play_stream

    la = ArmyList("host", 10_000, a)
    lb = ArmyList("opponent", 10_000, b)
    spec = compile_lists(la, lb)
    w = np.nan_to_num(np.asarray(spec.ap, float)).copy()
    if adjust is not None:
        for i, (n, s) in enumerate(zip(spec.names, spec.sides, strict=True)):
            if s == 0 and n.split("@")[0] == adjust[0]:
                w[i] = adjust[1]
                break
    spec = replace(spec, ap=w)
    t = play_stream(spec, games, np.random.SeedSequence(seed))  # one stream, this thread
    s = t.sum("lost_b") - t.sum("lost_a")
    sides = np.asarray(spec.sides)
    pools = (float(w[sides == 1].sum()), float(w[sides == 0].sum()))
    return Outcome(float(s / games), float(variance(s, t.product("margin"), games)),
                   float(t.sum("lost_b") / games), float(t.sum("lost_a") / games), *pools,
                   games)


@dataclass(frozen=True)
class Outcome:
    """One pairing's means: the VP margin (and its variance), the VP won and the host's own
    VP lost, out of the opponent's and the host's pools of AP (the most either can lose)."""

    margin: float
    var: float
    won: float
    lost: float
    pool_won: float
    pool_lost: float
    games: int

    def __getitem__(self, i: int) -> float:  # (margin, variance), as before
        return (self.margin, self.var)[i]


def _rate_vp(vp: float, pool: float, games: int) -> float:
    """VP taken out of a pool of AP as an attrition rate in AP (step 3c):
    ``pool x -log(1 - vp / pool)``, the share clipped at ``1 - 1 / (2 x games)``. The VP one
    army can win is capped by what the other has; the rate behind it is not."""
    from dustsim.review.value import attrition_rate

    if pool <= 0:
        return 0.0
    f = min(max(vp / pool, 0.0), 1.0 - 0.5 / games)
    return float(pool * attrition_rate(f))


def worth(with_: Outcome, without: Outcome) -> float:
    """The card's worth in one pairing (step 3c): the change in the attrition rate its army
    inflicts minus the change in the rate it suffers, each in AP of its pool (the VP margin
    where neither pool is near exhausted)."""
    return ((_rate_vp(with_.won, with_.pool_won, with_.games)
             - _rate_vp(without.won, without.pool_won, without.games))
            - (_rate_vp(with_.lost, with_.pool_lost, with_.games)
               - _rate_vp(without.lost, without.pool_lost, without.games)))


def _unit_name(u: ListUnit) -> str:
    from dustsim.play.list_battles import duel_units

    return duel_units(ArmyList("x", 1, (u,)))[0].name


def _stream(name: str) -> int:
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=4).digest(), "little")


def settings_key(seed: int, hosts: int, games: int, budget: float) -> str:
    """What a card's battle rows depend on besides the card and the armies."""
    return f"s{seed}h{hosts}g{games}b{budget:g}v{VERSION}"


def contexts_key(ctx: dict[str, tuple[Context, ...]]) -> str:
    """A content hash of the armies (names and seeds)."""
    text = repr(sorted((b, [([u.name for u in c.host], [u.name for u in c.opponent], c.seed)
                            for c in cs]) for b, cs in ctx.items()))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def battle_values(cards: list[Card], *, seed: int = 0, hosts: int = HOSTS,
                  games: int = GAMES, budget: float = BUDGET, progress: bool = False,
                  only: Iterable[str] | None = None,
                  contexts_: dict[str, tuple[Context, ...]] | None = None,
                  previous: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per card: ``battle_value`` (VP added per battle), its standard error, the pairings
    played, where a hero joined, and ``battle_why`` where it cannot play (module docstring).

    ``contexts_``: the armies to use (a patch passes the unpatched edition's); rows of
    ``previous`` with the same card fingerprint, armies and settings are reused (a patch or
    whatif replays only the cards it changed; an AP change replays nothing)."""
    from dustsim.review.value import fingerprint

    ctx = contexts_ if contexts_ is not None else contexts(cards, seed=seed, hosts=hosts,
                                                          budget=budget)
    ckey, skey = contexts_key(ctx), settings_key(seed, hosts, games, budget)
    reuse: dict[str, dict] = {}
    if previous is not None and len(previous) and "battle_fp" in previous:
        ok = (previous["battle_contexts"] == ckey) & (previous["battle_settings"] == skey)
        reuse = {r["unit"]: r for r in previous[ok].to_dict("records")}
    base: dict[int, Outcome] = {}
    rows = []
    wanted = set(only) if only is not None else None
    todo = [c for c in cards if wanted is None or c.name in wanted]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="battle values", unit="card", leave=False)
    for card in todo:
        fp = fingerprint(card)
        old = reuse.get(card.name)
        if old is not None and old["battle_fp"] == fp:
            rows.append(old)
            if bar is not None:
                bar.update(1)
            continue
        w = why(card)
        mine = ctx.get(card.bloc) if card.bloc in ctx else None
        if mine is None and ctx:  # mercenaries (and blocs without a chart): every bloc's
            mine = tuple(c for b in sorted(ctx) for c in ctx[b][:max(1, hosts // len(ctx))])
        row = {"unit": card.name, "battle_value": np.nan, "battle_value_se": np.nan,
               "battle_vp": np.nan,
               "battle_pairings": 0, "battle_joined": "", "battle_why": "",
               "battle_fp": fp, "battle_contexts": ckey, "battle_settings": skey}
        if w is not None or not mine:
            row["battle_why"] = w or "no army of its bloc"
            rows.append(row)
            if bar is not None:
                bar.update(1)
            continue
        d, joined, vp = [], [], []
        for c in mine:
            try:
                if c.seed not in base:
                    base[c.seed] = _play_pair(c.host, c.opponent, games, c.seed)
                army, to = _with_card(c.host, card)
                if to and must_join(card):  # the unit it joined loses only its own AP
                    i = next(i for i, u in enumerate(army) if u is not c.host[i])
                    adjust = (_unit_name(army[i]), c.host[i].ap)
                    joined.append(to)
                elif to:  # the joined unit loses only the squad's own AP
                    u = next(u for u in army if card in (u.hero, u.pilot))
                    adjust = (_unit_name(u), u.card_ap)
                    joined.append(to)
                else:
                    adjust = (_unit_name(army[-1]), 0.0)
                got = _play_pair(army, c.opponent, games, c.seed, adjust)
            except DustsimError as exc:
                d = []
                row["battle_why"] = f"cannot play: {exc.message}"
                break
            d.append(worth(got, base[c.seed]))
            vp.append(got.margin - base[c.seed].margin)
        if bar is not None:
            bar.update(1)
        if d:
            d = np.asarray(d, float)
            row["battle_value"] = float(d.mean())
            row["battle_value_se"] = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 \
                else np.nan
            row["battle_pairings"] = len(d)
            row["battle_vp"] = float(np.mean(vp))  # the plain VP margin it adds
            if joined:
                top = max(set(joined), key=lambda n: (joined.count(n), n))
                row["battle_joined"] = (f"{top}" + (f" ({len(joined)} of {len(d)} armies)"
                                                    if len(joined) < len(d) else ""))
        rows.append(row)
    if bar is not None:
        bar.close()
    return pd.DataFrame(rows)


def battle_fair(values: pd.DataFrame, cards: list[Card], *, seed: int = 0,
                mapping=None, bound_roles: dict[str, tuple[str, ...]] | None = None
                ) -> pd.DataFrame:
    """Fair AP from the battle values (module docstring, step 4): ``battle_fair_ap``, its
    band ``battle_fair_low`` / ``battle_fair_high`` (the mapping's 90 % prediction band with
    the Monte Carlo error of ``v``) and ``battle_verdict``; cards below :data:`V_MIN` get
    ``battle_why`` = "no measurable effect in battles" and no cost. ``mapping``: apply this
    one instead of fitting (a patch keeps the unpatched edition's); the one used is in
    ``attrs["mapping"]``. ``bound_roles``: the roles of each card the battles do not play
    that do not keep it out of the armies (default: :func:`dustsim.review.value.
    bound_roles_of` the cards): such a card's battle verdict is "not judged" and it stays out
    of the fit, like a main role."""
    from dustsim.review.value import bound_roles_of, fit_mapping

    t = values.copy()
    by = {c.name: c for c in cards}
    wr = bound_roles if bound_roles is not None else bound_roles_of(cards)
    t["ap"] = t["unit"].map(lambda n: by[n].ap if n in by else np.nan).astype(float)
    t["battle_main_unplayed"] = t["unit"].map(
        lambda n: "; ".join(unplayed_main_roles(by[n], wr.get(n, ()))) if n in by else "")
    v = t["battle_value"].to_numpy(float)
    se_v = np.nan_to_num(t["battle_value_se"].to_numpy(float))
    pos = np.isfinite(v) & (v > V_MIN) & (v > se_v)  # measurable: above its own error
    fit = pos & (t["ap"].fillna(0) > 0).to_numpy() & (t["battle_main_unplayed"] == "").to_numpy()
    for k in ("battle_fair_ap", "battle_fair_low", "battle_fair_high"):
        t[k] = np.nan
    t["battle_verdict"] = ""
    if mapping is None and fit.sum() < 5:
        return t
    s = np.log(np.where(pos, v, np.nan))
    m = mapping if mapping is not None else fit_mapping(s[fit], t.loc[fit, "ap"], seed=seed)
    se = (t["battle_value_se"].to_numpy(float) / np.where(pos, v, np.nan))
    t.loc[pos, "battle_fair_ap"] = m.fair(s[pos])
    lo, hi = m.band(s[pos], se[pos])
    t.loc[pos, "battle_fair_low"] = np.maximum(lo, 0.0)
    t.loc[pos, "battle_fair_high"] = hi
    ap = t["ap"]
    verdict = np.where(ap > t["battle_fair_high"], "over-costed",
                       np.where(ap < t["battle_fair_low"], "under-costed", "in band"))
    verdict = np.where(t["battle_fair_ap"].isna(), "", verdict)
    verdict = np.where((t["battle_main_unplayed"] != "") & (verdict != ""), "not judged",
                       verdict)
    t["battle_verdict"] = verdict
    low = np.isfinite(v) & ~pos
    t.loc[low, "battle_why"] = "no measurable effect in battles (value not above its error)"
    t.attrs["mapping"] = m
    return t
