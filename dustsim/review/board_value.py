"""Value from battles on the grid battlefield: what a card adds to an army where the line
cannot play its role (issue 24).

The engagements and the list battles (:mod:`dustsim.review.battle_value`) are fought on a
line: a transport's passengers, an Artillery Observer's observed fire, a Mechanic's repairs,
a command vehicle's actions, a Spy, a Medic, a hero's own rule (Follow Me, Desert Fox, ...)
need squares, and the line leaves them out, so such a card was a lower bound. The grid
battlefield (:mod:`dustsim.play.battle`) plays them. Which main roles it plays is derived from
the skills table, not named here (:func:`board_roles`): a main role of
:func:`dustsim.review.value.main_roles` is played on the board when the rule behind it is
``played`` and the board leaves out less of it than the line
(``skill_rule(s).gap_in("board") != gap_in("line")``; what the board still leaves out is named
per card, e.g. mounting during the game). Piloting and Ace Pilot have the same gap on both
engines (the bail-out roll, the pilot's own skills): the board plays them as the list battles
do, where piloting measured as nothing distinguishable (``battle_value.unplayed_main_roles``),
so pilot heroes stay lower bounds.

1. **Armies**: the list battles' host armies (:func:`dustsim.review.battle_value.contexts`:
   platoon charts of the card's bloc, heroes joined or piloting as the charts print them, an
   opponent of another bloc), the first :data:`HOSTS` of each bloc.
2. **With and without** (:func:`board_values`): the card joins each host army as in the list
   battles (:func:`dustsim.review.battle_value._with_card`: one more unit, a hero joined to a
   squad it may join or piloting a vehicle it may pilot, a Commissar in a squad); a transport
   takes the host's infantry squads aboard, in list order, as many as its Passengers (#)
   spaces hold (1947 L522-526; :func:`embark`), and an Airlifter the host's first Airmobile
   or Air Assault vehicle (L532-536). Army plus card and the army alone each play the
   opponent on scenario :data:`SCENARIO` (101 Firefight: its board, deployment, objectives
   and victory points), :data:`GAMES` games each with the **same seed** (common random
   numbers: the same board, the same attacker draws, the same dice stream).
3. **No printed cost of the card**: the grid kernel reads each unit's AP in its target choice
   and its victory points (L368). The valued card plays with a **stand-in AP**
   (:func:`standin_ap`): the median printed AP of the edition's *other* costed cards of its
   kind and armour class (of its armour class where fewer than 3 share its kind; lower median),
   so that its own price enters neither how it is shot at nor what its loss scores. The
   kernel keeps side totals only, so the card's own loss is **charged at its stand-in AP**
   (the list battles leave it out; here it is the cost of standing where it is shot at).
   The printed costs of the other units are the game's own scoring (L368).
4. **Worth**: the change in the host's attrition margin (:func:`dustsim.review.
   battle_value.worth`: the AP destroyed of the opponent minus the AP the host loses, as
   attrition rates out of each side's pool) that the card makes, its value ``board_value``
   the mean over the hosts and its standard error over the hosts (the army-to-army spread
   counts). Where the card's role had nothing to act on (a transport with no squad to carry,
   an Airlifter with nothing to lift) ``board_role_used`` says so and the value model keeps
   the card a lower bound.

How the value model uses it (:func:`dustsim.review.value._combine`): a card all of whose main
roles the board plays is valued from its board battles alone, its log value standardised on
the reference field's cards (which play the same board battles and have engagement strengths),
and judged; the one fitted map (value -> AP) is the edition's. Measured on Dust 1947 (seed 0,
the report's model): see the measurement paragraph below.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np
import pandas as pd

from dustsim.army.lists import ArmyList, ListUnit
from dustsim.data.cards import Card
from dustsim.errors import DustsimError

SCENARIO = "101"  # Firefight (1947 L2388-): the scenario every board battle plays
HOSTS = 8  # host armies per bloc (the first of the list battles')
GAMES = 48  # games per pairing, with and without the card
BUDGET = 50.0  # AP of each host army and opponent on the board (measured: module docstring)
VERSION = 1  # of how a card joins and is scored on the board; in every row's settings key
MAX_HOSTS = 64
MAX_GAMES = 100_000


def check_settings(hosts: int, games: int, scenario: str, budget: float = BUDGET) -> None:
    """One-line :class:`DustsimError` for settings the board battles cannot take."""
    for name, v, top in (("board_hosts", hosts, MAX_HOSTS), ("board_games", games, MAX_GAMES)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= top:
            raise DustsimError(f"{name} must be an integer from 1 to {top}, got {v!r}",
                               field=name)
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not (
            10 <= budget <= 1000):
        raise DustsimError(f"board_budget must be 10 to 1000 AP, got {budget!r}",
                           field="board_budget")
    from dustsim.play.scenarios import find_scenario

    find_scenario(scenario)  # a one-line error naming the scenarios


def _role_of(skill: str) -> str | None:
    from dustsim.review.value import _ROLE_RE, _norm

    n = _norm(skill)
    for rx, role, main in _ROLE_RE:
        if rx.match(n):
            return role if main else None
    return None


def board_roles(card: Card) -> tuple[str, ...]:
    """The card's main roles (:func:`dustsim.review.value.main_roles`) that the board plays
    and the line does not: the skills table's rule is ``played`` and its board gap is not the
    line's (module docstring)."""
    from dustsim.review.value import main_roles
    from dustsim.rules.skills import skill_rule

    main = set(main_roles(card))
    out: dict[str, bool] = {}
    for s in card.skills:
        role = _role_of(s)
        if role is None or role not in main:
            continue
        r = skill_rule(s)
        ok = (r is not None and r.status == "played"
              and r.gap_in("board") != r.gap_in("line"))
        out[role] = out.get(role, True) and ok
    return tuple(r for r, ok in out.items() if ok)


def board_left_out(card: Card) -> tuple[str, ...]:
    """What the board still leaves out of the card's board-played roles (the skills table's
    board gaps, e.g. mounting during the game), one ``rule: gap`` each."""
    from dustsim.rules.skills import skill_rule

    roles = set(board_roles(card))
    out = []
    for s in card.skills:
        r = skill_rule(s)
        if _role_of(s) in roles and r is not None and r.gap_in("board"):
            out.append(f"{r.name}: {r.gap_in('board')}")
    return tuple(dict.fromkeys(out))


def board_valued(card: Card) -> bool:
    """Whether the board plays every main role of the card that the list battles do not, and
    at least one (a card whose main roles are all ``battle_value.BATTLE_PLAYED_ROLES``, the
    command roles, is valued by the list battles); a card with no weapon of its own
    included (its worth is in those roles)."""
    from dustsim.review.battle_value import BATTLE_PLAYED_ROLES
    from dustsim.review.value import NO_WEAPON, main_roles

    main = [r for r in main_roles(card) if r != NO_WEAPON]
    if not main:
        return False
    own = set(board_roles(card)) - BATTLE_PLAYED_ROLES  # the list battles play the rest
    return bool(own) and all(r in own or r in BATTLE_PLAYED_ROLES for r in main)


def standin_ap(card: Card, cards: Iterable[Card]) -> float:
    """The AP the card plays with on the board (module docstring, step 3): the lower median
    printed AP of the other costed cards of its kind and armour class, else of its armour
    class, else of the edition; never its own."""
    others = [c for c in cards if c.name != card.name and c.ap]
    for pool in ([c for c in others if c.kind == card.kind and c.armour == card.armour],
                 [c for c in others if c.armour == card.armour], others):
        if len(pool) >= 3 or (pool and pool is others):
            ap = sorted(float(c.ap) for c in pool)
            return ap[(len(ap) - 1) // 2]
    return 0.0


def embark(army: tuple[ListUnit, ...], k: int) -> tuple[tuple[ListUnit, ...], int]:
    """Unit ``k`` of ``army`` (a transport or Airlifter) loaded as the list would: the army's
    infantry squads not aboard anything, in list order, while its Passengers (#) spaces hold
    them (L522-526, :func:`dustsim.army.lists.passenger_spaces`); an Airlifter the first
    Airmobile or Air Assault vehicle (one, L532-536). Returns the army and how many units
    went aboard."""
    from dustsim.army.lists import passenger_spaces
    from dustsim.data.skill_names import skill_base
    from dustsim.rules.unit_rules import unit_rules

    t = army[k]
    units = list(army)
    n = 0
    cap = unit_rules(t.card).passengers
    if cap > 0:
        used = 0
        for i, u in enumerate(units):
            if (i == k or u.transport >= 0 or u.card.kind != "squad"
                    or not (u.card.armour or "").startswith("I")):
                continue
            need = passenger_spaces(u)
            if used + need <= cap:
                units[i] = replace(u, transport=k)
                used += need
                n += 1
    elif "airlifter" in {skill_base(s) for s in t.card.skills}:
        for i, u in enumerate(units):
            if i != k and u.card.kind == "vehicle" and u.transport < 0 and (
                    {"airmobile", "air assault"} & {skill_base(s) for s in u.card.skills}):
                units[i] = replace(u, transport=k)
                n = 1
                break
    return tuple(units), n


def _carries(card: Card) -> bool:
    from dustsim.data.skill_names import skill_base
    from dustsim.rules.unit_rules import unit_rules

    return unit_rules(card).passengers > 0 or "airlifter" in {skill_base(s)
                                                              for s in card.skills}


def _play(a: tuple[ListUnit, ...], b: tuple[ListUnit, ...], games: int, seed: int,
          scenario: str):
    """One pairing on the board: the host's outcome (:class:`battle_value.Outcome`)."""
    from dustsim.play.battle import prepare, simulate_battle
    from dustsim.review.battle_value import Outcome

    spec = prepare(ArmyList("host", 10_000, a), ArmyList("opponent", 10_000, b),
                   scenario=scenario, seed=seed, boards=1)
    r = simulate_battle(spec, games, seed, threads=1)
    s = r.summary()
    ap = np.nan_to_num(np.asarray(spec.ap, float))
    sides = np.asarray(spec.sides)
    return Outcome(float(s["margin"]), float(r.se("margin") ** 2 * games),
                   float(s["ap_lost_b"]), float(s["ap_lost_a"]),
                   float(ap[sides == 1].sum()), float(ap[sides == 0].sum()), games)


def _plays_like(card: Card) -> str:
    """What the board sees of a card but its name and cost (variants printed under other
    names play alike)."""
    keep = ("edition", "kind", "armour", "models", "damage_track", "move", "march_move",
            "skills", "size")
    weapons = tuple(replace(w, source=None, cell_sources=()) for w in card.weapons)
    return repr((*(getattr(card, k) for k in keep), weapons))


def settings_key(seed: int, hosts: int, games: int, scenario: str) -> str:
    """What a card's board rows depend on besides the card, its stand-in and the armies
    (their budget is in the armies' key)."""
    return f"s{seed}h{hosts}g{games}sc{scenario}v{VERSION}"


def _seed(c) -> int:
    return int(c.seed) % (2**31)


def _one(card: Card, played: Card, mine: tuple, games: int, scenario: str,
         base: dict) -> tuple[list[float], list[int], str]:
    """One card's pairings: the VP margin each host gains with it (step 4), how many units
    it carried in each, or why it cannot play."""
    from dustsim.review import battle_value as B

    d, carried = [], []
    for c in mine:
        try:
            army, to = B._with_card(c.host, played)
            if _carries(card) and not to:
                army, n = embark(army, len(army) - 1)
                carried.append(n)
            got = _play(army, c.opponent, games, _seed(c), scenario)
        except DustsimError as exc:
            return [], [], f"cannot play on the board: {exc.message}"
        d.append(got.margin - base[c.seed].margin)
    return d, carried, ""


def board_values(cards: list[Card], *, seed: int = 0, hosts: int = HOSTS,
                 games: int = GAMES, scenario: str = SCENARIO, budget: float = BUDGET,
                 only: Iterable[str] | None = None,
                 contexts_: dict | None = None, previous: pd.DataFrame | None = None,
                 standins: dict[str, float] | None = None, threads: int | None = 1,
                 progress: bool = False) -> pd.DataFrame:
    """Per card: ``board_value`` (AP of VP margin added per battle on the board), its
    standard error, the pairings played, ``board_standin`` (the AP it played with),
    ``board_role_used`` and ``board_why`` where it cannot play (module docstring).
    ``contexts_``: the armies (default: :func:`battle_value.contexts` at ``budget``);
    ``standins``: each card's stand-in AP where the caller has one (the value model's own
    fair AP from the engagements and list battles), else :func:`standin_ap`; rows of
    ``previous`` with the same card, stand-in, armies and settings are reused, and cards
    that play alike (the same card but for its name and cost, of the same bloc and stand-in)
    are played once. ``threads``: cards played at once (each pairing has its own seed, so
    the table is the same for any count)."""
    from concurrent.futures import ThreadPoolExecutor

    from dustsim.engines.montecarlo import default_threads
    from dustsim.review import battle_value as B
    from dustsim.review.value import fingerprint

    check_settings(hosts, games, scenario, budget)
    ctx = contexts_ if contexts_ is not None else B.contexts(cards, seed=seed, hosts=hosts,
                                                            budget=budget)
    ctx = {b: cs[:hosts] for b, cs in ctx.items()}
    ckey, skey = B.contexts_key(ctx), settings_key(seed, hosts, games, scenario)
    reuse: dict[str, dict] = {}
    if previous is not None and len(previous) and "board_fp" in previous:
        ok = (previous["board_contexts"] == ckey) & (previous["board_settings"] == skey)
        reuse = {r["unit"]: r for r in previous[ok].to_dict("records")}
    wanted = set(only) if only is not None else None
    rows: list[dict] = []
    jobs: dict[tuple, tuple] = {}  # what plays alike -> (card, stand-in card, hosts)
    keys: list[tuple | None] = []
    for card in (c for c in cards if wanted is None or c.name in wanted):
        stand = (standins or {}).get(card.name, np.nan)
        if not (isinstance(stand, float | int) and np.isfinite(stand) and stand > 0):
            stand = standin_ap(card, cards)
        stand = max(round(2 * float(stand)) / 2, 0.5)  # to the half AP (as printed costs)
        fp = fingerprint(card)
        row = {"unit": card.name, "board_value": np.nan, "board_value_se": np.nan,
               "board_pairings": 0, "board_standin": stand, "board_role_used": "",
               "board_why": "", "board_fp": fp, "board_contexts": ckey,
               "board_settings": skey}
        old = reuse.get(card.name)
        mine = ctx.get(card.bloc)
        if mine is None and ctx:  # mercenaries: every bloc's first hosts
            mine = tuple(c for b in sorted(ctx) for c in ctx[b][:max(1, hosts // len(ctx))])
        w = B.why(card)
        key = None
        if old is not None and old["board_fp"] == fp and old["board_standin"] == stand:
            row = dict(old)
        elif w is not None or not mine:
            row["board_why"] = w or "no army of its bloc"
        else:
            key = (_plays_like(card), card.bloc, stand)
            # its printed cost enters nothing (step 3)
            jobs.setdefault(key, (card, replace(card, ap=stand), mine))
        rows.append(row)
        keys.append(key)
    needed = {c.seed: c for _k, (_c, _p, mine) in jobs.items() for c in mine}
    threads = max(1, min(threads or default_threads(), max(len(jobs), 1)))
    bar = None
    if progress and jobs:
        from tqdm import tqdm

        bar = tqdm(total=len(jobs), desc="board values", unit="card", leave=False)
    with ThreadPoolExecutor(max_workers=threads) as ex:
        order = sorted(needed)
        outs = list(ex.map(lambda sd: _play(needed[sd].host, needed[sd].opponent, games,
                                            _seed(needed[sd]), scenario), order))
        base = dict(zip(order, outs, strict=True))
        results = {}
        for k, res in zip(jobs, ex.map(lambda j: _one(*j, games, scenario, base),
                                       jobs.values()), strict=True):
            results[k] = res
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    for row, key in zip(rows, keys, strict=True):
        if key is None:
            continue
        d, carried, why = results[key]
        row["board_why"] = why
        if d:
            d = np.asarray(d, float)
            row["board_value"] = float(d.mean())
            row["board_value_se"] = (float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1
                                     else np.nan)
            row["board_pairings"] = len(d)
            if carried:
                k = sum(1 for n in carried if n)
                row["board_role_used"] = (f"carried units in {k} of {len(carried)} armies"
                                          if k else "nothing to carry in its armies")
    return pd.DataFrame(rows)
