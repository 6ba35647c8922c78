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
(:func:`dustsim.engines.montecarlo.run`: the one accounting loop) and, in the meta, on Dask
(one stream per pairing, :func:`dustsim.engines.dask_runner.run_tasks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Protocol

import numpy as np
import pandas as pd

from dustsim import DEFAULT_TRIALS, META_TRIALS
from dustsim.data.captured import captured_extra_ap
from dustsim.engines.montecarlo import (
    MonteCarloRun,
    Outcomes,
    Tally,
    mean_se,
    proportion,
    run,
    run_stream,
)
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
    # the platoon advantages the lists earned (complete platoons, L950-958;
    # dustsim.army.platoons.battle_grants) are played on the grid
    # (dustsim.play.battle_platoon), not on the line: named, never dropped silently
    extra = tuple(f"platoon advantage not played in battles on the line (grid battles, "
                  f"--scenario, play it): {g.platoon}: {g.advantage} ({g.lines})"
                  for lst in (a, b) for g in (getattr(lst, "advantages", ()) or ()))
    return replace(spec, notes=spec.notes + extra) if extra else spec


#: what a list battle keeps of each game (:mod:`dustsim.engines.montecarlo`): the
#: engagement's record (:data:`dustsim.play.duel_kernel.GAME_COLUMNS`, then what each unit
#: has left) with ``result``, the result on victory points (0 A, 1 B, 2 draw), and
#: ``margin``, the AP B lost minus the AP A lost
RESULT_COLUMNS = ("result", "margin")


def outcomes(spec: DuelSpec) -> Outcomes:
    """The per-game record of :func:`games` for ``spec`` and what is kept of it: the
    annihilation outcome and the result on victory points (counts), the AP lost per side and
    the margin (sums and sums of squares)."""
    cols = K.GAME_COLUMNS + tuple(f"left_{u}" for u in range(len(spec.names)))
    return Outcomes(cols + RESULT_COLUMNS, sums=("lost_a", "lost_b"),
                    products=(("lost_a", "lost_a"), ("lost_b", "lost_b"),
                              ("margin", "margin")),
                    counts=((("winner",), (3,)), (("result",), (3,))))


def games(rng, n: int, spec: DuelSpec) -> np.ndarray:
    """``n`` games of ``spec`` from the generator state ``rng``: the per-game records of
    :func:`outcomes` (a side wins on annihilation, or at the turn limit on more AP destroyed
    than lost; 1947 L368)."""
    from dustsim.play.duel import duel_games

    g = duel_games(rng, n, spec)
    w, la, lb = g[:, 0], g[:, 2], g[:, 3]
    draw = w == 2
    result = np.where((w == 0) | (draw & (lb > la)), 0,
                      np.where((w == 1) | (draw & (la > lb)), 1, 2))
    return np.column_stack([g, result, lb - la])


def play_stream(spec: DuelSpec, n: int, seed_seq: np.random.SeedSequence) -> Tally:
    """``n`` games of ``spec`` from the one stream ``seed_seq`` in this thread (common random
    numbers: the same seed, the same dice)."""
    return run_stream(games, spec, seed_seq, n, outcomes(spec))


def _run(spec: DuelSpec, trials: int, seed: int, threads: int | None,
         progress: bool = False) -> Tally:
    return run(games, spec, MonteCarloRun(trials, seed, CHUNK, "games", "game"),
               outcomes(spec), threads=threads, progress=progress)


def _with_turns(spec: DuelSpec, k: int) -> DuelSpec:
    from dataclasses import replace

    cfg = spec.config.copy()
    cfg[K.C_TURNS] = k
    return replace(spec, config=cfg, turns=k)


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
    tally: Tally
    curve: pd.DataFrame
    spec: DuelSpec

    @property
    def acc(self) -> np.ndarray:
        """The sums in one array: the annihilation outcome (A, B, none), the result on
        victory points (A, B, draw), AP lost by A (sum, sum of squares), by B, and the sum
        of the squared margin."""
        t = self.tally
        return np.array([*t.count("winner"), *t.count("result"), t.sum("lost_a"),
                         t.product("lost_a"), t.sum("lost_b"), t.product("lost_b"),
                         t.product("margin")], float)

    def _p(self, name: str, k: int) -> tuple[float, float]:
        return proportion(self.tally.count(name)[k], self.trials)

    @property
    def p_a_wins(self) -> float:
        return self._p("result", 0)[0]

    @property
    def p_b_wins(self) -> float:
        return self._p("result", 1)[0]

    @property
    def p_draw(self) -> float:
        return self._p("result", 2)[0]

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
        return mean_se(self.tally.sum(f"lost_{side}"), self.tally.product(f"lost_{side}"),
                       self.trials)

    @property
    def margin(self) -> tuple[float, float]:
        """(mean, standard error) of AP destroyed by A minus AP destroyed by B."""
        t = self.tally
        return mean_se(t.sum("lost_b") - t.sum("lost_a"), t.product("margin"), self.trials)

    def to_dict(self) -> dict:
        """The full record (the CLI's ``--json`` object): the curve and notes included."""
        d = {"list_a": self.name_a, "list_b": self.name_b, "ap_a": self.ap_a,
             "ap_b": self.ap_b, "trials": self.trials, "seed": self.seed,
             "distance": self.spec.distance, "turns": self.spec.turns}
        for key, name, k in (("p_a_wins", "result", 0), ("p_b_wins", "result", 1),
                             ("p_draw", "result", 2), ("p_a_annihilates", "winner", 0),
                             ("p_b_annihilates", "winner", 1)):
            d[key], d[f"se_{key}"] = self._p(name, k)
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
    tally = _run(spec, trials, seed, threads, progress)
    ct = curve_trials or max(trials // 4, 1)
    ap = np.nan_to_num(spec.ap)
    start = [float(ap[[i for i, s in enumerate(spec.sides) if s == side]].sum())
             for side in (0, 1)]
    rows = [{"turn": 0, "side": side, "list": name, "ap_left": start[side], "se": 0.0,
             "trials": trials} for side, name in ((0, a.name), (1, b.name))]
    for k in range(1, spec.turns + 1):
        if k == spec.turns:
            t_k, n = tally, trials
        else:
            sk = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
            t_k, n = _run(_with_turns(spec, k), ct, sk, threads), ct
        for side, name, x in ((0, a.name, "lost_a"), (1, b.name, "lost_b")):
            m, se = mean_se(t_k.sum(x), t_k.product(x), n)
            rows.append({"turn": k, "side": side, "list": name, "ap_left": start[side] - m,
                         "se": se, "trials": n})
    curve = pd.DataFrame(rows)
    curve["side"] = curve["side"].map({0: "a", 1: "b"})
    return ListBattle(a.name, b.name, start[0], start[1], trials, seed, tally, curve, spec)


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
    client (:func:`dustsim.engines.dask_runner.run_tasks`: tasks the scheduler drops are
    resubmitted); pairing *k* draws from the *k*-th child of ``SeedSequence(seed)``, so the
    numbers are the same on Dask. Results in pairing order."""
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
            from dustsim.engines.dask_runner import run_tasks

            results = run_tasks(
                client, task, [(k, lists[i], lists[j], trials, seeds[k], settings)
                               for k, (i, j) in enumerate(pairs)],
                keys=[f"{key}-{k}-{seed}" for k in range(len(pairs))], retries=2,
                on_result=None if bar is None else (lambda _k, _r: bar.update(1)))
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

