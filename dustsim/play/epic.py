"""Dust Epic (the strategy board game) battles: exact Markov chain and Monte Carlo.

Rules: ``../shared/rules/dust-epic.md`` (seed 002). One die: 2 hit faces of 6 (p = 1/3); one
hit destroys one opposing figure; no saves.

* **Land battle** (L653-694): tactical supremacy (TS) decides who rolls first: the defender
  of a capital, else the higher TS sum, a tie to the defender. Sides alternate; a roll has
  one die per combat value of the roller's surviving figures, plus the defender's **bonus
  dice** on every defender roll (+5 at a capital, else +3 at a production centre; digest
  open question 2). The roller picks the casualties, but a bomber only when no fighter is
  left and a mech only when no tank is left (L659-664). **Cease-fire**: three hitless rolls in
  a row, both sides counted: every attacker retreats (L688).
* **Sea battle** (L696-702): submarines only, no TS, both sides roll at once and remove
  casualties at once; cease-fire after three hitless *pairs* of rolls.
* **Amphibious battle** (L704-708): a land battle whose attacker never retreats voluntarily
  and whose attackers are all destroyed by a cease-fire.
* **Retreats** (L684-686): before any of his rolls a player may pull out up to half of his
  figures (rounded up); never the defender before his first roll.

Choices the rules leave to players are named policies:

* casualties (``--casualties``), the roller's choice among the figures he may destroy:
  ``firepower`` (default: the figure with most combat value, then the costliest),
  ``costliest`` (most production points first), ``cheapest`` (fewest first: as if owners
  chose their own losses);
* retreat (``--retreat``): ``never`` (default), or ``outgunned``: before a roll, a side that
  would roll fewer dice than its opponent's next roll pulls out half of its figures (rounded
  up), the costliest first.

Special-ability cards modelled in battles: **Ace of the Sky** (air figures +1 combat value,
L821-825), **Sigrid** (re-roll every blank of one roll, used on the side's first roll,
L833-837), **Nurse** (from the side's first loss on, each destroyed figure rolls a die and on
a blank (2/3) survives and retreats, L773-779). Secret Weapon and Alien Radar end a battle
before any roll (a retreat, not a battle); Raketen Truppen (re-roll all dice of one roll:
the best timing is a policy question), Mech Dropper, Diplomat, Koshka, Mech Builder and
Ballistic Missiles (see :func:`special_attack`) are not battle modifiers here.

The exact solver propagates probability forward over states (figures left per side, who
rolls, the hitless-roll counter, who has rolled); every transition removes figures or
advances the counter, so a heap ordered by (figures left, counter) visits each state once.
Expected survivors count figures still in battle at the end plus those that retreated.
"""

from __future__ import annotations

import heapq
import math
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit

from dustsim import DEFAULT_TRIALS
from dustsim.data.cards import default_data_dir
from dustsim.engines.results import ResultAPI, binomial_se, flat
from dustsim.engines.rng import cdf_table, invert, uniform
from dustsim.engines.rng import state as rng_state
from dustsim.errors import DustsimError

P_HIT = 1 / 3
TYPES = ("tank", "mech", "fighter", "bomber", "submarine")
LAND, AIR = (0, 1), (2, 3)
CASUALTY_POLICIES = ("firepower", "costliest", "cheapest")
RETREAT_POLICIES = ("never", "outgunned")
ABILITIES = ("ace-of-the-sky", "sigrid", "nurse")
KINDS = ("land", "sea", "amphibious")
BONUS_CAPITAL, BONUS_PC = 5, 3


@dataclass(frozen=True)
class Figure:
    name: str
    cost: int
    combat_value: int
    tactical_supremacy: int
    limit: int
    kind: str


@lru_cache(maxsize=1)
def figures() -> dict[str, Figure]:
    """The Epic figures from ``unit_data/epic/figures.toml`` (each number with its line)."""
    path = default_data_dir() / "epic" / "figures.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for f in doc.get("figure", []):
        name = f["name"].lower()
        if name in TYPES:
            out[name] = Figure(name, int(f["cost"]), int(f["combat_value"]),
                               int(f.get("tactical_supremacy", 0)),
                               int(f["figures_per_army"]), f["type"])
    missing = [t for t in TYPES if t not in out]
    if missing:
        raise DustsimError(f"figures missing: {', '.join(missing)}", file=str(path))
    return out


Army = tuple[int, int, int, int, int]


def parse_army(text: str, field_name: str = "army") -> Army:
    """``"4 tank, 1 mech"`` (plurals and ``4x tank`` accepted) -> counts per figure type."""
    counts = dict.fromkeys(TYPES, 0)
    if not text.strip():
        raise DustsimError("empty army", field=field_name)
    for part in text.split(","):
        m = re.fullmatch(r"\s*(-?\d+)\s*x?\s*([A-Za-z]+?)s?\s*", part)
        if not m:
            raise DustsimError(f"{part.strip()!r} is not 'COUNT FIGURE' (e.g. '4 tank')",
                               field=field_name)
        n, name = int(m.group(1)), m.group(2).lower()
        if name not in counts:
            raise DustsimError(f"unknown figure {m.group(2)!r} (known: {', '.join(TYPES)})",
                               field=field_name)
        if n < 0:
            raise DustsimError(f"negative count {n} for {name}", field=field_name)
        counts[name] += n
    for name, n in counts.items():
        if n > figures()[name].limit:
            raise DustsimError(f"{n} {name}s exceed the per-army limit of "
                               f"{figures()[name].limit}", field=field_name)
    army = tuple(counts[t] for t in TYPES)
    if sum(army) == 0:
        raise DustsimError("an army needs at least one figure", field=field_name)
    return army  # type: ignore[return-value]


def army_text(army) -> str:
    return ", ".join(f"{n} {t}" for n, t in zip(army, TYPES, strict=True) if n) or "nothing"


def cost(army) -> int:
    return sum(n * figures()[t].cost for n, t in zip(army, TYPES, strict=True))


@dataclass(frozen=True)
class Battle:
    """A battle's setting (validated); ``abilities_*`` are card abilities in play."""
    attacker: Army
    defender: Army
    kind: str = "land"
    capital: bool = False
    production_centre: bool = False
    casualties: str = "firepower"
    retreat: str = "never"
    abilities_attacker: tuple[str, ...] = ()
    abilities_defender: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise DustsimError(f"unknown battle kind {self.kind!r}", field="kind")
        if self.casualties not in CASUALTY_POLICIES:
            raise DustsimError(f"unknown casualty policy {self.casualties!r} (known: "
                               f"{', '.join(CASUALTY_POLICIES)})", field="--casualties")
        if self.retreat not in RETREAT_POLICIES:
            raise DustsimError(f"unknown retreat policy {self.retreat!r} (known: "
                               f"{', '.join(RETREAT_POLICIES)})", field="--retreat")
        for side, ab in (("attacker", self.abilities_attacker),
                         ("defender", self.abilities_defender)):
            bad = [a for a in ab if a not in ABILITIES]
            if bad:
                raise DustsimError(f"unknown ability {bad[0]!r} (known: {', '.join(ABILITIES)})",
                                   field=f"{side} abilities")
        for side, army in (("attacker", self.attacker), ("defender", self.defender)):
            if self.kind == "sea" and any(army[:4]):
                raise DustsimError("only submarines fight sea battles", field=side)
            if self.kind != "sea" and army[4]:
                raise DustsimError("submarines never fight on land (use --sea)", field=side)
        if self.kind == "sea" and (self.capital or self.production_centre):
            raise DustsimError("capitals and production centres are land areas",
                               field="--capital")

    @property
    def bonus(self) -> int:
        if self.kind == "sea":
            return 0
        return BONUS_CAPITAL if self.capital else BONUS_PC if self.production_centre else 0

    def combat_values(self, side: int) -> np.ndarray:
        ab = self.abilities_attacker if side == 0 else self.abilities_defender
        cv = np.array([figures()[t].combat_value for t in TYPES], dtype=np.int64)
        if "ace-of-the-sky" in ab:
            cv[2] += 1
            cv[3] += 1
        return cv

    def defender_first(self) -> bool:
        if self.capital:
            return True
        ts = [sum(n * figures()[t].tactical_supremacy for n, t in zip(a, TYPES, strict=True))
              for a in (self.attacker, self.defender)]
        return ts[1] >= ts[0]


@dataclass(frozen=True)
class BattleResult(ResultAPI):
    """Outcome probabilities and expectations of one battle (exact or Monte Carlo).

    Side A is the attacker, B the defender: ``p_a_wins`` = ``p_attacker_wins`` (the defender's
    figures all destroyed, the attacker's not), ``p_b_wins`` = ``p_defender_wins``;
    ``p_ceasefire`` is the battle ended by a cease-fire (three hitless rolls, L688) or a
    retreat; ``p_draw`` is both sides destroyed at once (sea battles, which roll together;
    0 on land). Monte Carlo standard errors
    cover the probabilities; the expected losses, survivors and rolls carry none (NaN).
    """
    battle: Battle
    engine: str
    p_attacker_wins: float
    p_defender_wins: float
    p_ceasefire: float
    p_draw: float
    survivors_attacker: dict
    survivors_defender: dict
    pp_lost_attacker: float
    pp_lost_defender: float
    expected_rolls: float
    trials: int | None = None
    states: int | None = None
    extra: dict = field(default_factory=dict)

    @property
    def efficiency(self) -> float:
        """Production points destroyed per production point lost, for the attacker."""
        return self.pp_lost_defender / self.pp_lost_attacker if self.pp_lost_attacker else \
            math.inf

    @property
    def p_a_wins(self) -> float:
        return self.p_attacker_wins

    @property
    def p_b_wins(self) -> float:
        return self.p_defender_wins

    def se(self, name: str) -> float:
        """Standard error of the summary figure ``name`` (0.0 when exact). Passing a
        probability (the older form) is deprecated."""
        if isinstance(name, float):
            import warnings

            warnings.warn("BattleResult.se(p) is deprecated: use se(name)",
                          DeprecationWarning, stacklevel=2)
            return binomial_se(name, self.trials)
        return ResultAPI.se(self, name)

    def summary(self) -> dict:
        """Flat headline figures, with the outcome words ``p_a_wins``/``p_b_wins``."""
        return {"p_a_wins": self.p_a_wins, "p_b_wins": self.p_b_wins,
                **flat(self.to_dict())}

    def _standard_errors(self) -> dict[str, float]:
        out = {k: binomial_se(getattr(self, k), self.trials)
               for k in ("p_a_wins", "p_b_wins", "p_attacker_wins", "p_defender_wins",
                         "p_ceasefire", "p_draw")}
        for k in ("pp_lost_attacker", "pp_lost_defender", "expected_rolls"):
            out[k] = math.nan if self.trials else 0.0
        return out

    def _frame_rows(self) -> list[dict]:
        """Expected survivors per figure type (``unit`` the type)."""
        se = math.nan if self.trials else None
        return [{"quantity": "expected_survivors", "side": side, "unit": t, "value": v,
                 "se": se}
                for side, surv in (("A", self.survivors_attacker),
                                   ("B", self.survivors_defender))
                for t, v in surv.items()]

    def _items(self) -> list[tuple[str, str]]:
        from dustsim.engines.display import num, with_se

        se = (lambda k: self.se(k)) if self.trials else (lambda k: None)
        return [("attacker", army_text(self.battle.attacker)),
                ("defender", army_text(self.battle.defender)),
                ("P(attacker wins)", with_se(self.p_attacker_wins, se("p_attacker_wins"))),
                ("P(defender wins)", with_se(self.p_defender_wins, se("p_defender_wins"))),
                ("P(cease-fire)", with_se(self.p_ceasefire, se("p_ceasefire"))),
                ("PP lost", f"attacker {num(self.pp_lost_attacker)}, defender "
                            f"{num(self.pp_lost_defender)}"),
                ("engine", self.engine + (f", {self.trials:,} trials" if self.trials else ""))]

    def __repr__(self) -> str:
        from dustsim.engines.display import text

        return text("BattleResult", self.battle.kind, self._items())

    def _repr_html_(self) -> str:
        from dustsim.engines.display import table

        return table(f"Dust Epic battle ({self.battle.kind})", self._items())

    def to_dict(self) -> dict:
        d = {
            "attacker": army_text(self.battle.attacker),
            "defender": army_text(self.battle.defender), "kind": self.battle.kind,
            "capital": self.battle.capital, "production_centre": self.battle.production_centre,
            "casualties": self.battle.casualties, "retreat": self.battle.retreat,
            "engine": self.engine, "p_attacker_wins": self.p_attacker_wins,
            "p_defender_wins": self.p_defender_wins, "p_ceasefire": self.p_ceasefire,
            "p_draw": self.p_draw,
            "expected_survivors_attacker": self.survivors_attacker,
            "expected_survivors_defender": self.survivors_defender,
            "pp_lost_attacker": self.pp_lost_attacker,
            "pp_lost_defender": self.pp_lost_defender,
            "pp_efficiency_attacker": self.efficiency, "expected_rolls": self.expected_rolls,
        }
        if self.trials:
            d["trials"] = self.trials
        if self.states:
            d["states"] = self.states
        return d


# ---------------------------------------------------------------------------- casualties

def _priority(policy: str) -> np.ndarray:
    """Preference rank per figure type for the roller's pick (lower = picked first)."""
    f = figures()
    key = {
        "firepower": lambda t: (-f[t].combat_value, -f[t].cost),
        "costliest": lambda t: (-f[t].cost, -f[t].combat_value),
        "cheapest": lambda t: (f[t].cost, f[t].combat_value),
    }[policy]
    order = sorted(range(len(TYPES)), key=lambda i: key(TYPES[i]))
    rank = np.empty(len(TYPES), dtype=np.int64)
    for r, i in enumerate(order):
        rank[i] = r
    return rank


@njit(cache=True)
def _pick(counts, rank):
    """Index of the figure the roller destroys: allowed types (bomber only without fighters,
    mech only without tanks), best rank first; -1 when none is left."""
    best, best_r = -1, 1 << 30
    for i in range(5):
        if counts[i] == 0:
            continue
        if i == 3 and counts[2] > 0:
            continue
        if i == 1 and counts[0] > 0:
            continue
        if rank[i] < best_r:
            best, best_r = i, rank[i]
    return best


@lru_cache(maxsize=1 << 16)
def remove(army, hits: int, policy: str = "firepower") -> tuple[tuple, tuple]:
    """Army after ``hits`` casualties chosen by ``policy`` under the ordering rules, and the
    figures removed per type (cached: the exact solver asks for the same removals often)."""
    counts = [int(x) for x in army]
    rank = [int(r) for r in _priority(policy)]
    removed = [0] * 5
    for _ in range(hits):
        best, best_r = -1, 1 << 30  # as _pick: bomber only without fighters, mech without tanks
        for i in range(5):
            if counts[i] == 0 or (i == 3 and counts[2] > 0) or (i == 1 and counts[0] > 0):
                continue
            if rank[i] < best_r:
                best, best_r = i, rank[i]
        if best < 0:
            break
        counts[best] -= 1
        removed[best] += 1
    return tuple(counts), tuple(removed)


@lru_cache(maxsize=1 << 12)
def _retreat_pick(army) -> tuple[tuple, tuple]:
    """Half of the figures, rounded up, the costliest first (retreat policy 'outgunned')."""
    n = -(-sum(army) // 2)
    f = figures()
    order = sorted(range(5), key=lambda i: -f[TYPES[i]].cost)
    left, out = list(army), [0] * 5
    for i in order:
        k = min(n, left[i])
        left[i] -= k
        out[i] += k
        n -= k
    return tuple(left), tuple(out)


# ---------------------------------------------------------------------------- exact

@lru_cache(maxsize=1024)
def _hit_pmf(n: int, p: float) -> tuple[float, ...]:
    from scipy import stats

    return tuple(float(x) for x in stats.binom.pmf(np.arange(n + 1), n, p))


def solve(battle: Battle, max_states: int = 2_000_000) -> BattleResult:
    """Exact outcome of a land, amphibious or sea battle (forward Markov chain)."""
    if battle.kind == "sea":
        return _solve_sea(battle, max_states)
    f = figures()
    cvs = (battle.combat_values(0), battle.combat_values(1))
    ab = (battle.abilities_attacker, battle.abilities_defender)
    bonus = battle.bonus
    amph = battle.kind == "amphibious"
    costs = np.array([f[t].cost for t in TYPES], float)
    cv = [[int(v) for v in c] for c in cvs]
    # state: (attacker, defender, roller, hitless, attacker_rolled, defender_rolled)
    start = (battle.attacker, battle.defender, 1 if battle.defender_first() else 0, 0,
             False, False)
    mass = {start: 1.0}
    heap = [(-(sum(battle.attacker) + sum(battle.defender)), 0, 0, start)]
    tick = 1
    acc = {"aw": 0.0, "dw": 0.0, "cf": 0.0, "rolls": 0.0}
    surv = [[0.0] * 5, [0.0] * 5]  # plain floats: the same IEEE sums as arrays, faster
    visited = 0

    def add(side, counts, q):
        row = surv[side]
        for i in range(5):
            row[i] += counts[i] * q

    def push(state, p):
        nonlocal tick
        if state in mass:
            mass[state] += p
        else:
            mass[state] = p
            heapq.heappush(heap, (-(sum(state[0]) + sum(state[1])), state[3], tick, state))
            tick += 1

    def dice(side, army):
        c = cv[side]
        return sum(c[i] * army[i] for i in range(5)) + (bonus if side == 1 else 0)

    while heap:
        _, _, _, st = heapq.heappop(heap)
        p = mass.pop(st)
        visited += 1
        if visited > max_states:
            raise DustsimError(f"more than {max_states:,} states: use the Monte Carlo engine",
                               field="engine")
        armies = [st[0], st[1]]
        x, hitless, rolled = st[2], st[3], [st[4], st[5]]
        y = 1 - x
        # voluntary retreat before the roll
        if battle.retreat == "outgunned" and not (x == 0 and amph) and not (
                x == 1 and not rolled[1]) and dice(x, armies[x]) < dice(y, armies[y]):
            left, out = _retreat_pick(armies[x])
            add(x, out, p)
            armies[x] = left
            if sum(left) == 0:
                acc["dw" if x == 0 else "aw"] += p
                add(y, armies[y], p)
                continue
        n = dice(x, armies[x])
        p_hit = 5 / 9 if ("sigrid" in ab[x] and not rolled[x]) else P_HIT
        pmf = _hit_pmf(n, p_hit)
        acc["rolls"] += p
        new_rolled = list(rolled)
        new_rolled[x] = True
        for k, pk in enumerate(pmf):
            if pk < 1e-300:
                continue
            q = p * pk
            if k == 0:
                if hitless + 1 >= 3:  # cease-fire: every attacker retreats (or dies)
                    acc["cf"] += q
                    add(1, armies[1], q)
                    if not amph:
                        add(0, armies[0], q)
                    continue
                push((armies[0], armies[1], y, hitless + 1, *new_rolled), q)
                continue
            left, removed = remove(armies[y], k, battle.casualties)
            if "nurse" in ab[y]:  # every loss rolls, the first one included
                row = surv[y]
                for i in range(5):
                    row[i] += removed[i] * (2 / 3) * q
            if sum(left) == 0:
                acc["aw" if x == 0 else "dw"] += q
                add(x, armies[x], q)
                continue
            new = [armies[0], armies[1]]
            new[y] = left
            push((new[0], new[1], y, 0, *new_rolled), q)
    return _result(battle, "exact", acc, [np.array(v) for v in surv], costs, states=visited)


def _result(battle, engine, acc, surv, costs, trials=None, states=None) -> BattleResult:
    init = [np.array(battle.attacker, float), np.array(battle.defender, float)]
    lost = [float(((init[i] - surv[i]) * costs).sum()) for i in (0, 1)]
    total = acc["aw"] + acc["dw"] + acc["cf"] + acc.get("draw", 0.0)
    return BattleResult(
        battle=battle, engine=engine, p_attacker_wins=float(acc["aw"]),
        p_defender_wins=float(acc["dw"]), p_ceasefire=float(acc["cf"]),
        p_draw=float(acc.get("draw", 0.0)),
        survivors_attacker={t: float(v) for t, v in zip(TYPES, surv[0], strict=True) if
                            battle.attacker[TYPES.index(t)]},
        survivors_defender={t: float(v) for t, v in zip(TYPES, surv[1], strict=True) if
                            battle.defender[TYPES.index(t)]},
        pp_lost_attacker=lost[0], pp_lost_defender=lost[1], expected_rolls=float(acc["rolls"]),
        trials=trials, states=states, extra={"total_probability": float(total)})


def _solve_sea(battle: Battle, max_states: int) -> BattleResult:
    f = figures()
    costs = np.array([f[t].cost for t in TYPES], float)
    cvs = (battle.combat_values(0), battle.combat_values(1))
    ab = (battle.abilities_attacker, battle.abilities_defender)
    start = (battle.attacker, battle.defender, 0)
    mass = {start: 1.0}
    heap = [(-(sum(battle.attacker) + sum(battle.defender)), 0, 0, start)]
    tick = 1
    acc = {"aw": 0.0, "dw": 0.0, "cf": 0.0, "draw": 0.0, "rolls": 0.0}
    surv = [np.zeros(5), np.zeros(5)]
    visited = 0
    while heap:
        _, _, _, st = heapq.heappop(heap)
        p = mass.pop(st)
        visited += 1
        if visited > max_states:
            raise DustsimError(f"more than {max_states:,} states: use the Monte Carlo engine",
                               field="engine")
        a, d, hitless = st
        first = hitless == 0 and a == battle.attacker and d == battle.defender
        pa = _hit_pmf(int(np.dot(cvs[0], a)), 5 / 9 if "sigrid" in ab[0] and first else P_HIT)
        pd = _hit_pmf(int(np.dot(cvs[1], d)), 5 / 9 if "sigrid" in ab[1] and first else P_HIT)
        acc["rolls"] += 2 * p
        for ka, qa in enumerate(pa):
            for kd, qd in enumerate(pd):
                q = p * qa * qd
                if q < 1e-300:
                    continue
                if ka == 0 and kd == 0:
                    if hitless + 1 >= 3:
                        acc["cf"] += q
                        surv[0] += np.array(a) * q
                        surv[1] += np.array(d) * q
                        continue
                    key = (a, d, hitless + 1)
                    if key not in mass:
                        mass[key] = 0.0
                        heapq.heappush(heap, (-(sum(a) + sum(d)), hitless + 1, tick, key))
                        tick += 1
                    mass[key] += q
                    continue
                d2, rem_d = remove(d, ka, battle.casualties)
                a2, rem_a = remove(a, kd, battle.casualties)
                if "nurse" in ab[0]:
                    surv[0] += np.array(rem_a) * (2 / 3) * q
                if "nurse" in ab[1]:
                    surv[1] += np.array(rem_d) * (2 / 3) * q
                if sum(a2) == 0 or sum(d2) == 0:
                    key = "draw" if sum(a2) == sum(d2) == 0 else "aw" if sum(d2) == 0 else "dw"
                    acc[key] += q
                    surv[0] += np.array(a2) * q
                    surv[1] += np.array(d2) * q
                    continue
                key = (a2, d2, 0)
                if key not in mass:
                    mass[key] = 0.0
                    heapq.heappush(heap, (-(sum(a2) + sum(d2)), 0, tick, key))
                    tick += 1
                mass[key] += q
    return _result(battle, "exact", acc, surv, costs, states=visited)


# ---------------------------------------------------------------------------- Monte Carlo

CHUNK = 1 << 13  # battles per chunk: part of the stream definition (results depend on it)


@njit(nogil=True, cache=True, _nrt=False)
def _pick_row(armies, y, rank):
    """``_pick`` on row ``y`` of ``armies`` (no view, no reference counting)."""
    best, best_r = -1, 1 << 30
    for i in range(5):
        if armies[y, i] == 0:
            continue
        if i == 3 and armies[y, 2] > 0:
            continue
        if i == 1 and armies[y, 0] > 0:
            continue
        if rank[i] < best_r:
            best, best_r = i, rank[i]
    return best


@njit(nogil=True, cache=True, _nrt=False)
def _lose(rs, armies, retreated, y, hits, rank, nurse):
    """Remove ``hits`` figures from side ``y`` (the roller's pick); with the Nurse each loss
    survives and retreats on a blank (2/3). Returns the figures left."""
    for _h in range(hits):
        i = _pick_row(armies, y, rank)
        if i < 0:
            break
        armies[y, i] -= 1
        if nurse and uniform(rs) < 2.0 / 3.0:
            retreated[y, i] += 1
    left = 0
    for i in range(5):
        left += armies[y, i]
    return left


@njit(nogil=True, cache=True, _nrt=False)
def _mc_land(rs, cdf, cdf_sig, att, dfd, cvs, bonus, d_first, amph, retreat, rank, sig_a,
             sig_d, nurse_a, nurse_d, costs, trials, armies, retreated, out, surv):
    """``trials`` land (or amphibious) battles; accumulates out = [attacker wins, defender
    wins, cease-fire, rolls] and surv[side, type] (figures left or retreated). Work arrays
    ``armies`` and ``retreated`` are (2, 5); nothing is allocated here. Each roll is one
    binomial draw by inversion (``cdf``: p = 1/3, ``cdf_sig``: Sigrid's 5/9)."""
    for _ in range(trials):
        for i in range(5):
            armies[0, i] = att[i]
            armies[1, i] = dfd[i]
            retreated[0, i] = 0
            retreated[1, i] = 0
        x = 1 if d_first else 0
        hitless = 0
        rolled0 = False
        rolled1 = False
        while True:
            y = 1 - x
            nx = 0
            ny = 0
            for i in range(5):
                nx += cvs[x, i] * armies[x, i]
                ny += cvs[y, i] * armies[y, i]
            if x == 1:
                nx += bonus
            else:
                ny += bonus
            if retreat == 1 and not (x == 0 and amph) and not (x == 1 and not rolled1) \
                    and nx < ny:
                total = 0
                for i in range(5):
                    total += armies[x, i]
                k = (total + 1) // 2
                # costliest first
                while k > 0:
                    best = -1
                    for i in range(5):
                        if armies[x, i] > 0 and (best < 0 or costs[i] > costs[best]):
                            best = i
                    armies[x, best] -= 1
                    retreated[x, best] += 1
                    k -= 1
                left = 0
                nx = 0
                for i in range(5):
                    left += armies[x, i]
                    nx += cvs[x, i] * armies[x, i]
                if x == 1:
                    nx += bonus
                if left == 0:
                    out[1 if x == 0 else 0] += 1
                    for i in range(5):
                        surv[y, i] += armies[y, i]
                    break
            rolled_x = rolled0 if x == 0 else rolled1
            sig = sig_a if x == 0 else sig_d
            if sig and not rolled_x:
                hits = invert(rs, cdf_sig, nx)
            else:
                hits = invert(rs, cdf, nx)
            out[3] += 1
            if x == 0:
                rolled0 = True
            else:
                rolled1 = True
            if hits == 0:
                hitless += 1
                if hitless >= 3:
                    out[2] += 1
                    for i in range(5):
                        surv[1, i] += armies[1, i]
                        if not amph:
                            surv[0, i] += armies[0, i]
                    break
                x = y
                continue
            hitless = 0
            left = _lose(rs, armies, retreated, y, hits, rank, nurse_a if y == 0 else nurse_d)
            if left == 0:
                out[0 if x == 0 else 1] += 1
                for i in range(5):
                    surv[x, i] += armies[x, i]
                break
            x = y
        for sd in range(2):
            for i in range(5):
                surv[sd, i] += retreated[sd, i]


@njit(nogil=True, cache=True, _nrt=False)
def _mc_sea(rs, cdf, cdf_sig, att, dfd, rank, sig_a, sig_d, nurse_a, nurse_d, trials, armies,
            retreated, out, surv):
    """``trials`` sea battles (both sides roll at once); out = [attacker wins, defender wins,
    cease-fire, draw, rolls]; as ``_mc_land`` otherwise."""
    for _ in range(trials):
        for i in range(5):
            armies[0, i] = att[i]
            armies[1, i] = dfd[i]
            retreated[0, i] = 0
            retreated[1, i] = 0
        hitless = 0
        first = True
        while True:
            na = 0
            nd = 0
            for i in range(5):
                na += armies[0, i]
                nd += armies[1, i]
            ka = invert(rs, cdf_sig if (sig_a and first) else cdf, na)
            kd = invert(rs, cdf_sig if (sig_d and first) else cdf, nd)
            first = False
            out[4] += 2
            if ka == 0 and kd == 0:
                hitless += 1
                if hitless >= 3:
                    out[2] += 1
                    for i in range(5):
                        surv[0, i] += armies[0, i]
                        surv[1, i] += armies[1, i]
                    break
                continue
            hitless = 0
            left_d = _lose(rs, armies, retreated, 1, ka, rank, nurse_d)
            left_a = _lose(rs, armies, retreated, 0, kd, rank, nurse_a)
            if left_a == 0 or left_d == 0:
                if left_a == 0 and left_d == 0:
                    out[3] += 1
                elif left_d == 0:
                    out[0] += 1
                else:
                    out[1] += 1
                for i in range(5):
                    surv[0, i] += armies[0, i]
                    surv[1, i] += armies[1, i]
                break
        for sd in range(2):
            for i in range(5):
                surv[sd, i] += retreated[sd, i]


@lru_cache(maxsize=1)
def _cdf_sigrid() -> np.ndarray:
    return cdf_table(5 / 9, 128)


@lru_cache(maxsize=1)
def _cdf_hit() -> np.ndarray:
    return cdf_table(P_HIT, 128)


def _mc_chunk(args):
    """One chunk of battles from its own generator state (the same for any thread count)."""
    seed_seq, n, (battle, rank, costs) = args
    rs = rng_state(seed_seq)
    ab = (battle.abilities_attacker, battle.abilities_defender)
    att = np.array(battle.attacker, np.int64)
    dfd = np.array(battle.defender, np.int64)
    armies = np.zeros((2, 5), np.int64)
    retreated = np.zeros((2, 5), np.int64)
    surv = np.zeros((2, 5), np.int64)
    if battle.kind == "sea":
        out = np.zeros(5, np.int64)
        _mc_sea(rs, _cdf_hit(), _cdf_sigrid(), att, dfd, rank, "sigrid" in ab[0],
                "sigrid" in ab[1], "nurse" in ab[0], "nurse" in ab[1], n, armies, retreated,
                out, surv)
    else:
        out = np.zeros(4, np.int64)
        cvs = np.stack([battle.combat_values(0), battle.combat_values(1)])
        _mc_land(rs, _cdf_hit(), _cdf_sigrid(), att, dfd, cvs, battle.bonus,
                 battle.defender_first(), battle.kind == "amphibious",
                 RETREAT_POLICIES.index(battle.retreat), rank, "sigrid" in ab[0],
                 "sigrid" in ab[1], "nurse" in ab[0], "nurse" in ab[1], costs, n, armies,
                 retreated, out, surv)
    return out, surv


def simulate(battle: Battle, trials: int = DEFAULT_TRIALS, seed: int = 0, *,
             threads: int | None = None) -> BattleResult:
    """Monte Carlo outcome of a battle (Numba, parallel over fixed chunks of battles, each
    from its own child of ``SeedSequence(seed)``: same seed, same numbers for any thread
    count; Ctrl-C stops within a chunk or two)."""
    from dustsim.engines.montecarlo import run_chunks
    from dustsim.limits import check_int

    check_int(trials, "trials", "--trials")
    check_int(seed, "seed", "--seed")
    f = figures()
    costs = np.array([f[t].cost for t in TYPES], float)
    rank = _priority(battle.casualties)
    out, surv = run_chunks(_mc_chunk, (battle, rank, costs), trials, seed, chunk=CHUNK,
                           threads=threads, progress=False, desc="battles", unit="battle")
    if battle.kind == "sea":
        acc = {"aw": out[0] / trials, "dw": out[1] / trials, "cf": out[2] / trials,
               "draw": out[3] / trials, "rolls": out[4] / trials}
    else:
        acc = {"aw": out[0] / trials, "dw": out[1] / trials, "cf": out[2] / trials,
               "rolls": out[3] / trials}
    return _result(battle, "mc", acc, [surv[0] / trials, surv[1] / trials], costs,
                   trials=trials)


EXACT_LIMIT = 30  # figures per side the exact solver is used for by default
PP_NOISE = 1e-9  # production points lost below this are floating-point noise, not a loss


def battle(attacker: str | Army, defender: str | Army, *, engine: str = "auto",
           trials: int = DEFAULT_TRIALS, seed: int = 0, threads: int | None = None,
           **setting) -> BattleResult:
    """Evaluate a battle. ``engine='auto'``: exact up to 30 figures a side, else MC."""
    a = parse_army(attacker, "attacker") if isinstance(attacker, str) else tuple(attacker)
    d = parse_army(defender, "defender") if isinstance(defender, str) else tuple(defender)
    b = Battle(a, d, **setting)
    if engine == "auto":
        engine = "exact" if max(sum(a), sum(d)) <= EXACT_LIMIT else "mc"
    if engine == "exact":
        from dustsim.limits import CAPS

        cap = CAPS["epic_exact_figures"][1]
        if max(sum(a), sum(d)) > cap:
            raise DustsimError(f"{max(sum(a), sum(d))} figures a side is over the exact "
                               f"solver's cap of {cap}: use --engine mc (or auto)",
                               field="--engine")
        return solve(b)
    if engine == "mc":
        return simulate(b, trials, seed, threads=threads)
    raise DustsimError(f"unknown engine {engine!r} (exact, mc, auto)", field="--engine")


# ---------------------------------------------------------------------------- special attacks

def special_attack(kind: str, attackers: int, target: str | Army,
                   casualties: str = "firepower") -> dict:
    """A special attack (one roll, no counter-roll, L727-757): ``bomber`` (2 dice per bomber,
    hits destroy submarines), ``submarine`` (1 die per submarine, hits destroy land/air
    figures under the ordering rules), ``missile`` (3 dice, free choice: ``casualties``
    without ordering). Returns P(k destroyed) and the expected losses per type."""
    tgt = parse_army(target, "target") if isinstance(target, str) else tuple(target)
    if attackers < 1 and kind != "missile":
        raise DustsimError("a special attack needs at least one attacker", field="attackers")
    if kind == "bomber":
        n, pool = 2 * attackers, (0, 0, 0, 0, tgt[4])
    elif kind == "submarine":
        n, pool = attackers, (*tgt[:4], 0)
    elif kind == "missile":
        n, pool = 3, tgt
    else:
        raise DustsimError(f"unknown special attack {kind!r} (bomber, submarine, missile)",
                           field="kind")
    pmf = _hit_pmf(n, P_HIT)
    size = sum(pool)
    dist = np.zeros(size + 1)
    exp = np.zeros(5)
    rank = _priority(casualties)
    for k, pk in enumerate(pmf):
        kk = min(k, size)
        dist[kk] += pk
        if kind == "missile":  # free choice: no ordering restrictions
            counts, left = list(pool), kk
            for i in np.argsort(rank):
                t = min(left, counts[i])
                exp[i] += t * pk
                left -= t
        else:
            _, removed = remove(pool, kk, casualties)
            exp += np.array(removed) * pk
    return {"p_destroyed": dist.tolist(), "expected_losses": dict(zip(TYPES, exp.tolist(),
                                                                       strict=True)),
            "dice": n}


# ---------------------------------------------------------------------------- optimiser

def mixes(budget: int, kind: str = "land") -> list[Army]:
    """Every army (tanks, mechs, fighters, bombers; submarines at sea) within ``budget`` PP
    and the per-army limits, at least one figure."""
    f = figures()
    if budget < min(f[t].cost for t in (("submarine",) if kind == "sea" else TYPES[:4])):
        raise DustsimError(f"budget {budget} is below the cheapest figure", field="--budget")
    out = []
    if kind == "sea":
        for s in range(1, min(budget // f["submarine"].cost, f["submarine"].limit) + 1):
            out.append((0, 0, 0, 0, s))
        return out
    c = [f[t].cost for t in TYPES[:4]]
    lim = [f[t].limit for t in TYPES[:4]]
    for b in range(min(budget // c[3], lim[3]) + 1):
        for fi in range(min((budget - b * c[3]) // c[2], lim[2]) + 1):
            for m in range(min((budget - b * c[3] - fi * c[2]) // c[1], lim[1]) + 1):
                rest = budget - b * c[3] - fi * c[2] - m * c[1]
                for t in range(min(rest // c[0], lim[0]) + 1):
                    if t + m + fi + b:
                        out.append((t, m, fi, b, 0))
    return out


def optimize(budget: int, opponent: str | Army, *, side: str = "attacker",
             objective: str = "win", spend_all: bool = True, progress: bool = False,
             **setting) -> list[dict]:
    """Every mix within ``budget`` against a fixed ``opponent`` (as attacker or defender),
    best first. ``objective``: ``win`` (P(attacker wins) for an attacker, P(attacker does
    not win) for a defender) or ``efficiency`` (PP destroyed per PP lost). ``spend_all``
    keeps only mixes that leave less than the cheapest figure unspent."""
    if side not in ("attacker", "defender"):
        raise DustsimError(f"side must be attacker or defender, not {side!r}", field="side")
    if objective not in ("win", "efficiency"):
        raise DustsimError(f"unknown objective {objective!r} (win, efficiency)",
                           field="--objective")
    opp = parse_army(opponent, "--vs") if isinstance(opponent, str) else tuple(opponent)
    kind = setting.get("kind", "land")
    cands = mixes(budget, kind)
    cheapest = min(figures()[t].cost for t in (("submarine",) if kind == "sea"
                                               else TYPES[:4]))
    if spend_all:
        cands = [m for m in cands if budget - cost(m) < cheapest]
    it = cands
    if progress:
        from tqdm import tqdm

        it = tqdm(cands, desc="mixes", unit="mix", leave=False)
    rows = []
    for m in it:
        a, d = (m, opp) if side == "attacker" else (opp, m)
        r = solve(Battle(a, d, **setting))
        mine_lost = r.pp_lost_attacker if side == "attacker" else r.pp_lost_defender
        theirs_lost = r.pp_lost_defender if side == "attacker" else r.pp_lost_attacker
        win = r.p_attacker_wins if side == "attacker" else 1 - r.p_attacker_wins
        rows.append({"mix": army_text(m), **dict(zip(TYPES, m, strict=True)), "cost": cost(m),
                     "p_win": win, "p_attacker_wins": r.p_attacker_wins,
                     "p_ceasefire": r.p_ceasefire, "pp_lost": mine_lost,
                     "pp_destroyed": theirs_lost,
                     "efficiency": (theirs_lost / mine_lost if mine_lost > PP_NOISE
                                    else math.inf)})
    key = "p_win" if objective == "win" else "efficiency"
    rows.sort(key=lambda r: (-r[key], -r["p_win"], r["cost"]))
    return rows


def figures_path() -> Path:
    return default_data_dir() / "epic" / "figures.toml"


# one compiled version per argument type, not per integer constant (dustsim.engines.jit)
from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
