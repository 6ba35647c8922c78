"""List against list: two whole army lists played to the end in the engagement engine
(:mod:`dustsim.play.duel`, the same turn structure, policies and seeding), and the meta (every list
of a folder against every other).

**Outcome** (1947 L368: victory points are the AP of the enemy units destroyed): a side *wins*
when it destroys the whole enemy army, or when at the turn limit it has destroyed more AP than
it lost; a *draw* is an equal count at the turn limit (both armies destroyed in the same
activation included). ``p_annihilate`` keeps the destroy-everything outcome apart.

**Points left per turn**: the state at the end of turn *k* of a game of *T* turns is, in
distribution, the end of a game limited to *k* turns (the game is the same up to turn *k*),
so the curve's point *k < T* is estimated from its own games limited to *k* turns
(``curve_trials`` of them, an independent stream per *k*) and point *T* from the main games.

Seeding: one ``SeedSequence(seed)``; the games are cut into fixed chunks (each its own child
stream) summed in order, so the same seed gives the same numbers for any thread count
(:func:`dustsim.engines.kernel.run_chunks`) and, in the meta, on Dask (one stream per pairing).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Protocol

import numba as nb
import numpy as np
import pandas as pd

from dustsim import DEFAULT_TRIALS, META_TRIALS
from dustsim.data.captured import captured_extra_ap
from dustsim.engines.results import ResultAPI
from dustsim.errors import DustsimError
from dustsim.play import duel_kernel as K
from dustsim.play.duel import DuelPolicy, DuelSpec, DuelUnit, compile_duel

DEFAULT_DISTANCE = 12  # list against list: squares between the armies at the start
DEFAULT_TURNS = 6  # and the turn limit
CHUNK = 2048  # games per chunk: part of the stream definition (results depend on it)
MAX_TRIALS = 10_000_000


class Army(Protocol):
    """What a list battle reads of an army list (:class:`dustsim.army.lists.ArmyList`, a
    layer above: the lists are passed in)."""

    name: str
    file: str
    units: Sequence


def duel_units(lst: Army) -> list[DuelUnit]:
    """The list's units as engagement units (joined heroes, pilots, captured surcharge)."""
    out = []
    for u in lst.units:
        extra = captured_extra_ap(u.captured, u.card.bloc)
        out.append(DuelUnit(u.card, hero=u.hero, cover=u.cover, pilot=u.pilot,
                            extra_ap=extra))
    return out


def compile_lists(a: Army, b: Army, *, distance: int = DEFAULT_DISTANCE,
                  turns: int = DEFAULT_TURNS, policy: DuelPolicy | None = None,
                  options: dict | None = None) -> DuelSpec:
    """Compile two lists into one engagement (A: list ``a``, B: list ``b``)."""
    try:
        spec = compile_duel(duel_units(a), duel_units(b), ruleset="dust-1947",
                            distance=distance, turns=turns, policy=policy, options=options)
    except DustsimError as exc:  # name the list's file, not the duel's --side-a/-b flag
        sides = {"--side-a": a, "--side-b": b}
        which = sides.get(exc.field or "") or (
            a if exc.unit and any(exc.unit in u.name for u in a.units) else b)
        field = None if exc.field in sides else exc.field
        raise DustsimError(exc.message, file=exc.file or which.file, unit=exc.unit,
                           field=field) from None
    # platoon advantages (L950-958) are not played in battles: named, never dropped silently
    extra = tuple(f"platoon advantage not played in battles: {lst.name}: platoon {p.id!r} "
                  f"({p.chart}; L950-958)" for lst in (a, b) for p in lst.platoons)
    return replace(spec, notes=spec.notes + extra) if extra else spec


@nb.njit(nogil=True, cache=True)
def _play(rng, n, units, wpn, gdice, gblast, groups, tspec, cfg, value, ap, acc):
    """``n`` games; acc[0:3] annihilation outcome (A, B, none), acc[3:6] result on victory
    points (A, B, draw), acc[6:8] AP lost by A (sum, sum sq), acc[8:10] by B, acc[10] sum of
    (lost B - lost A)^2 (the margin's spread)."""
    U = units.shape[0]
    buf = np.empty(4096, np.uint8)
    pos = buf.shape[0]
    m = K._pack(units, wpn, gdice, gblast, groups, tspec, cfg)  # the engagement's state
    out = np.zeros(2, np.int64)
    for _ in range(n):
        pos = K._engage(rng, buf, pos, False, m, value, out)
        acc[out[0]] += 1.0
        lost_a = 0.0
        lost_b = 0.0
        for u in range(U):
            if K._left(m, u) == 0:
                if units[u, K.U_SIDE] == 0:
                    lost_a += ap[u]
                else:
                    lost_b += ap[u]
        if out[0] == 0 or (out[0] == 2 and lost_b > lost_a):
            acc[3] += 1.0
        elif out[0] == 1 or (out[0] == 2 and lost_a > lost_b):
            acc[4] += 1.0
        else:
            acc[5] += 1.0
        acc[6] += lost_a
        acc[7] += lost_a * lost_a
        acc[8] += lost_b
        acc[9] += lost_b * lost_b
        acc[10] += (lost_b - lost_a) * (lost_b - lost_a)


def _generator(seed_seq):
    """The engagement kernel's random state for one chunk: the generator the duel kernel
    itself is driven by (its own state where :mod:`dustsim.engines.rng` exists, else NumPy's)."""
    try:
        from dustsim.engines.rng import state
    except ImportError:
        return np.random.Generator(np.random.PCG64(seed_seq))
    return state(seed_seq)


def _chunk(args):
    seed_seq, n, spec = args
    rng = _generator(seed_seq)
    acc = np.zeros(11, float)
    _play(rng, n, spec.units, spec.weapons, spec.gdice, spec.gblast, spec.groups, spec.tspec,
          spec.config, spec.value, np.nan_to_num(spec.ap), acc)
    return (acc,)


def _run(spec: DuelSpec, trials: int, seed: int, threads: int | None,
         progress: bool = False) -> np.ndarray:
    from dustsim.engines.kernel import run_chunks

    return run_chunks(_chunk, spec, trials, seed, chunk=CHUNK, threads=threads,
                      progress=progress, desc="games", unit="game")[0]


def _with_turns(spec: DuelSpec, k: int) -> DuelSpec:
    from dataclasses import replace

    cfg = spec.config.copy()
    cfg[K.C_TURNS] = k
    return replace(spec, config=cfg, turns=k)


def _mean_se(s: float, s2: float, n: int) -> tuple[float, float]:
    m = s / n
    return m, math.sqrt(max(s2 / n - m * m, 0.0) / n)


@dataclass(frozen=True)
class ListBattle(ResultAPI):
    """Outcome of list A against list B over ``trials`` games (see the module docstring).

    ``p_a_wins``: A destroyed all of B, or more AP than it lost, by the turn limit;
    ``p_draw``: equal victory points at the turn limit (both armies destroyed in the same
    activation included), not "nobody destroyed" as in a duel.
    """

    name_a: str
    name_b: str
    ap_a: float
    ap_b: float
    trials: int
    seed: int
    acc: np.ndarray
    curve: pd.DataFrame
    spec: DuelSpec

    def _p(self, i: int) -> tuple[float, float]:
        p = float(self.acc[i] / self.trials)
        return p, math.sqrt(max(p * (1 - p), 0.0) / self.trials)

    @property
    def p_a_wins(self) -> float:
        return self._p(3)[0]

    @property
    def p_b_wins(self) -> float:
        return self._p(4)[0]

    @property
    def p_draw(self) -> float:
        return self._p(5)[0]

    #: the outcome names ``se()`` took before the result API (deprecated)
    _SE_ALIASES: ClassVar[dict[str, str]] = {"a": "p_a_wins", "b": "p_b_wins",
                                             "draw": "p_draw"}

    def _standard_errors(self) -> dict[str, float]:
        d = self.to_dict()
        return {k: d[f"se_{k}"] for k in ("p_a_wins", "p_b_wins", "p_draw", "p_a_annihilates",
                                          "p_b_annihilates", "ap_lost_a", "ap_lost_b",
                                          "margin")}

    def ap_lost(self, side: str) -> tuple[float, float]:
        """(mean, standard error) of the AP side ``side`` loses."""
        i = 6 if side == "a" else 8
        return _mean_se(self.acc[i], self.acc[i + 1], self.trials)

    @property
    def margin(self) -> tuple[float, float]:
        """(mean, standard error) of AP destroyed by A minus AP destroyed by B."""
        m = (self.acc[8] - self.acc[6]) / self.trials
        var = max(self.acc[10] / self.trials - m * m, 0.0)
        return float(m), math.sqrt(var / self.trials)

    def to_dict(self) -> dict:
        """The full record (the CLI's ``--json`` object): the curve and notes included."""
        d = {"list_a": self.name_a, "list_b": self.name_b, "ap_a": self.ap_a,
             "ap_b": self.ap_b, "trials": self.trials, "seed": self.seed,
             "distance": self.spec.distance, "turns": self.spec.turns}
        for key, i in (("p_a_wins", 3), ("p_b_wins", 4), ("p_draw", 5),
                       ("p_a_annihilates", 0), ("p_b_annihilates", 1)):
            d[key], d[f"se_{key}"] = self._p(i)
        for s in ("a", "b"):
            d[f"ap_lost_{s}"], d[f"se_ap_lost_{s}"] = self.ap_lost(s)
        d["margin"], d["se_margin"] = self.margin
        d["curve"] = self.curve.to_dict(orient="records")
        d["notes"] = list(self.spec.notes)
        return d

    def _frame_rows(self) -> list[dict]:
        """The points-left curve: quantity ``ap_left``, ``k`` the turn."""
        return [{"quantity": "ap_left", "side": r["side"].upper(), "unit": r["list"],
                 "k": r["turn"], "value": r["ap_left"], "se": r["se"]}
                for r in self.curve.to_dict(orient="records")]

    def __repr__(self) -> str:
        m, se = self.margin
        return (f"ListBattle({self.name_a!r} vs {self.name_b!r}: A {self.p_a_wins:.3f}, "
                f"B {self.p_b_wins:.3f}, draw {self.p_draw:.3f}; margin {m:+.1f} ± {se:.1f} AP;"
                f" {self.trials:,} games)")


def play_lists(a: Army, b: Army, *, trials: int = DEFAULT_TRIALS, seed: int = 0,
               distance: int = DEFAULT_DISTANCE, turns: int = DEFAULT_TURNS,
               policy: DuelPolicy | None = None, threads: int | None = None,
               curve_trials: int | None = None, options: dict | None = None,
               progress: bool = False, spec: DuelSpec | None = None) -> ListBattle:
    """Play list ``a`` against list ``b`` ``trials`` times (see the module docstring)."""
    for name, v, hi in (("trials", trials, MAX_TRIALS), ("curve_trials", curve_trials,
                                                         MAX_TRIALS)):
        if v is None and name == "curve_trials":
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            raise DustsimError(f"must be an integer from 1 to {hi:,}, got {v!r}",
                               field=f"--{name.replace('_', '-')}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise DustsimError(f"the seed must be an integer from 0 to 2**63-1, got {seed!r}",
                           field="--seed")
    spec = spec or compile_lists(a, b, distance=distance, turns=turns, policy=policy,
                                 options=options)
    acc = _run(spec, trials, seed, threads, progress)
    ct = curve_trials or max(trials // 4, 1)
    ap = np.nan_to_num(spec.ap)
    start = [float(ap[[i for i, s in enumerate(spec.sides) if s == side]].sum())
             for side in (0, 1)]
    rows = [{"turn": 0, "side": side, "list": name, "ap_left": start[side], "se": 0.0,
             "trials": trials} for side, name in ((0, a.name), (1, b.name))]
    for k in range(1, spec.turns + 1):
        if k == spec.turns:
            acc_k, n = acc, trials
        else:
            sk = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
            acc_k, n = _run(_with_turns(spec, k), ct, sk, threads), ct
        for side, name, i in ((0, a.name, 6), (1, b.name, 8)):
            m, se = _mean_se(acc_k[i], acc_k[i + 1], n)
            rows.append({"turn": k, "side": side, "list": name, "ap_left": start[side] - m,
                         "se": se, "trials": n})
    curve = pd.DataFrame(rows)
    curve["side"] = curve["side"].map({0: "a", 1: "b"})
    return ListBattle(a.name, b.name, start[0], start[1], trials, seed, acc, curve, spec)


# -- the meta --------------------------------------------------------------------------------------
def _meta_task(i: int, a: Army, b: Army, trials: int, seed: int, settings: dict
               ) -> dict:
    r = play_lists(a, b, trials=trials, seed=seed, threads=1, curve_trials=1, **settings)
    s = r.to_dict()
    s.pop("curve")
    s.pop("notes")
    return {"pair": i, **s}


def play_pairings(lists: Sequence, task, *, trials: int, seed: int, client=None,
                  progress: bool = False, settings: dict | None = None,
                  key: str = "dustsim-meta") -> list[dict]:
    """The meta's one loop (line and board battles): every list against every later one,
    ``task(k, a, b, trials, seed_k, settings) -> dict`` with ``"pair": k``, here or on a Dask
    client; pairing *k* draws from the *k*-th child of ``SeedSequence(seed)``, so the numbers
    are the same on Dask. Results in pairing order."""
    if len(lists) < 2:
        raise DustsimError(f"a meta needs at least two lists, got {len(lists)}",
                           field="folder")
    names = [x.name for x in lists]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise DustsimError(f"two lists are named {dup!r}; give each list its own name",
                           field="name")
    settings = settings or {}
    pairs = [(i, j) for i in range(len(lists)) for j in range(i + 1, len(lists))]
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(
        len(pairs))]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(pairs), desc="meta", unit="pairing", leave=False)
    results: list = [None] * len(pairs)
    try:
        if client is None:
            for k, (i, j) in enumerate(pairs):
                results[k] = task(k, lists[i], lists[j], trials, seeds[k], settings)
                if bar is not None:
                    bar.update(1)
        else:
            from distributed import as_completed

            futures = [client.submit(task, k, lists[i], lists[j], trials, seeds[k],
                                     settings, key=f"{key}-{k}-{seed}", pure=False,
                                     retries=2)
                       for k, (i, j) in enumerate(pairs)]
            try:
                for fut in as_completed(futures):
                    r = fut.result()
                    results[r["pair"]] = r
                    if bar is not None:
                        bar.update(1)
            except BaseException:
                client.cancel(futures)
                raise
    finally:
        if bar is not None:
            bar.close()
    return results


def meta(lists: list[Army], *, trials: int = META_TRIALS, seed: int = 0, client=None,
         progress: bool = False, **settings) -> pd.DataFrame:
    """Every list against every other (each pairing once, the earlier list as side A), here
    or on a Dask client. Pairing *i* draws from the *i*-th child of ``SeedSequence(seed)``.

    Tidy: one row per ordered (list, opponent) with P(win), P(draw), P(loss) and the AP
    margin, both orders of every pairing (the second mirrored from the first)."""
    results = play_pairings(lists, _meta_task, trials=trials, seed=seed, client=client,
                            progress=progress, settings=settings, key="dustsim-meta")
    rows = []
    for r in results:
        base = {"trials": r["trials"], "seed": r["seed"]}
        rows.append({"list": r["list_a"], "opponent": r["list_b"], "p_win": r["p_a_wins"],
                     "p_draw": r["p_draw"], "p_loss": r["p_b_wins"],
                     "se_p_win": r["se_p_a_wins"], "margin": r["margin"],
                     "se_margin": r["se_margin"], "ap_lost": r["ap_lost_a"],
                     "ap_destroyed": r["ap_lost_b"], "side": "a", **base})
        rows.append({"list": r["list_b"], "opponent": r["list_a"], "p_win": r["p_b_wins"],
                     "p_draw": r["p_draw"], "p_loss": r["p_a_wins"],
                     "se_p_win": r["se_p_b_wins"], "margin": -r["margin"],
                     "se_margin": r["se_margin"], "ap_lost": r["ap_lost_b"],
                     "ap_destroyed": r["ap_lost_a"], "side": "b", **base})
    return pd.DataFrame(rows)


def meta_matrix(table: pd.DataFrame, value: str = "p_win") -> pd.DataFrame:
    """The matchup matrix: rows the list, columns the opponent (NaN on the diagonal)."""
    names = list(dict.fromkeys([*table["list"], *table["opponent"]]))
    return table.pivot(index="list", columns="opponent", values=value).reindex(
        index=names, columns=names)


def meta_standings(table: pd.DataFrame) -> pd.DataFrame:
    """Each list's mean P(win) and mean AP margin over its opponents, best first."""
    g = table.groupby("list")
    out = pd.DataFrame({"mean_p_win": g["p_win"].mean(), "mean_p_draw": g["p_draw"].mean(),
                        "mean_margin": g["margin"].mean(),
                        "opponents": g["opponent"].count()})
    return out.sort_values("mean_p_win", ascending=False).reset_index()


# one compiled version per argument type, not per integer constant (dustsim.engines.jit)
from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
