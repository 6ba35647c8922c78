"""Benchmarks: every figure is a ratio against a baseline measured in the same process.

* kernel throughput (attacks/s) on a representative mix, against a vectorised NumPy per-die
  simulation of the same attacks (goal >= 20x);
* attacks/s divided by uniform draws/s of the same generator in a tight Numba loop (the
  random-number limit; goal >= 0.25);
* the exact engine against icepool on the same query (goal >= 1000x, equal to 1e-9);
* peak resident memory while the trial count grows 10x (it stays flat);
* whole engagements: duels/s of the Numba turn loop, Dust Epic battles by the exact Markov
  chain (small and 30-figure armies) and by Monte Carlo.

Kernels are compiled and warmed before any timing, so compile cost is in no figure.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass

import numpy as np

from .attack import AttackSpec, Situation, Target, compile_attack, weapon_from_cell
from .exact import evaluate
from .kernel import simulate_batch


def representative_mix() -> list[tuple[str, AttackSpec]]:
    """Rifles vs squads in cover, sustained AT guns, laser chains into resilient vehicles,
    blast and automatic kill (all Dust 1947)."""

    def mk(cell, column, count=1, keywords=(), action="attack", skills=(), **tgt):
        w, c = weapon_from_cell(cell, count=count, keywords=keywords, column=column)
        return compile_attack([(w, c)], Target(column=column, skills=frozenset(skills), **tgt),
                              Situation(action=action), "dust-1947")

    return [
        ("rifles vs squad in cover", mk("2/1", "I2", count=5, models=5, cover=True)),
        ("sustained AT gun vs V4", mk("3/3", "V4", action="sustained", track=6)),
        ("laser chain vs resilient V3 in cover",
         mk("1/2", "V3", count=3, keywords=["laser"], action="sustained", track=5, cover=True,
            skills=["damage resilient"])),
        ("blast vs squad", mk("*/1", "I2", models=6)),
        ("automatic kill vs V5", mk("2/#", "V5", track=5)),
    ]


# -- the NumPy baseline: a vectorised per-die simulation of the same specs ----------------------
def _bern(rng, shape, mask) -> np.ndarray:
    faces = rng.integers(0, 3, size=shape, dtype=np.int8)
    return ((mask >> faces) & 1).astype(bool)


def numpy_simulate(spec: AttackSpec, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Damage per trial for single-pool targets (no joined hero), by per-die NumPy draws."""
    a = np.full(trials, spec.models, np.int64)
    b = np.full(trials, spec.single, np.int64)
    for g in spec.groups:
        ok = _bern(rng, (trials, g.dice), g.hit)
        h = ok.sum(axis=1)
        if g.reroll:
            misses = g.dice - h
            rr = _bern(rng, (trials, g.dice), g.reroll) & (np.arange(g.dice) < misses[:, None])
            h = h + rr.sum(axis=1)
        if g.chain:
            pending = h.copy()
            while pending.any():
                width = int(pending.max())
                more = _bern(rng, (trials, width), g.chain)
                live = np.arange(width) < pending[:, None]
                # each pending die: a success adds a hit and keeps one pending die
                succ = (more & live).sum(axis=1)
                h = h + succ
                pending = succ
        width = int(h.max()) if len(h) else 0
        if width == 0:
            continue
        live = np.arange(width) < h[:, None]
        saved = _bern(rng, (trials, width), g.save) if g.save else np.zeros((trials, width), bool)
        u = (live & ~saved).sum(axis=1)
        if spec.models:
            removed = u
            if g.resilient_squad:
                keep = _bern(rng, (trials, width), 1) & (np.arange(width) < u[:, None])
                removed = u - keep.sum(axis=1)
            a = np.maximum(a - removed, 0)
        else:
            per_hit = (spec.single_full if g.auto_kill else g.damage)
            pts = u * per_hit
            if g.resilient_single and pts.max() > 0:
                cancel = _bern(rng, (trials, int(pts.max())), 1) & (
                    np.arange(int(pts.max())) < pts[:, None])
                pts = pts - cancel.sum(axis=1)
            b = np.maximum(b - pts, 0)
    return (spec.models - a) + (spec.single - b)


@dataclass
class BenchResult:
    name: str
    value: float
    unit: str
    goal: str = ""
    detail: str = ""

    def row(self) -> str:
        return f"{self.name:<48} {self.value:>14,.3f} {self.unit:<14} {self.goal}"


def _timeit(fn, min_time: float) -> tuple[float, int]:
    n = 0
    t0 = time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / n, n


def run(quick: bool = False, threads: int | None = None) -> list[BenchResult]:
    mix = representative_mix()
    specs = [s for _, s in mix]
    trials = 200_000 if quick else 4_000_000
    simulate_batch(specs, 1000, seed=1, threads=threads)  # compile + warm
    t0 = time.perf_counter()
    mc = simulate_batch(specs, trials, seed=1, threads=threads)
    dt = time.perf_counter() - t0
    attacks = trials * len(specs)
    kernel_rate = attacks / dt
    one = simulate_batch(specs, trials, seed=1, threads=1)
    t0 = time.perf_counter()
    simulate_batch(specs, trials, seed=1, threads=1)
    rate_1 = attacks / (time.perf_counter() - t0)

    # NumPy baseline on the same attacks, single thread
    rng = np.random.default_rng(1)
    np_trials = 50_000 if quick else 400_000
    t0 = time.perf_counter()
    np_means = [numpy_simulate(s, np_trials, rng).mean() for s in specs]
    np_rate = np_trials * len(specs) / (time.perf_counter() - t0)
    agree = max(abs(m.damage.mean() - nm) for m, nm in zip(mc, np_means, strict=True))

    # the random-number limit: uniform draws in a tight Numba loop, same generator
    from .kernel import _uniform_loop, uniform_rate_kernel

    gen = np.random.Generator(np.random.PCG64(3))
    _uniform_loop(gen, 1000)
    n_u = 5_000_000 if quick else 50_000_000
    t0 = time.perf_counter()
    _uniform_loop(gen, n_u)
    uniform_rate = n_u / (time.perf_counter() - t0)
    uniform_rate_kernel(1000)
    t0 = time.perf_counter()
    uniform_rate_kernel(n_u)
    dice_rate = n_u / (time.perf_counter() - t0)

    results = [
        BenchResult("kernel throughput (mix, all threads)", kernel_rate, "attacks/s"),
        BenchResult("kernel throughput (mix, 1 thread)", rate_1, "attacks/s"),
        BenchResult("numpy per-die baseline (1 thread)", np_rate, "attacks/s",
                    detail=f"max |mean difference| {agree:.4f} damage"),
        BenchResult("kernel / numpy (1 thread each)", rate_1 / np_rate, "x", ">= 20"),
        BenchResult("uniform draws, tight Numba loop", uniform_rate, "draws/s"),
        BenchResult("attacks/s / uniform draws/s (1 thread)", rate_1 / uniform_rate, "ratio",
                    ">= 0.25"),
        BenchResult("dice faces from the kernel's buffer", dice_rate, "dice/s"),
    ]
    results += _exact_vs_icepool(quick)
    results += _engagements(quick, threads, uniform_rate)
    results += _memory(specs, quick, threads)
    del one
    return results


def _engagements(quick: bool, threads, uniform_rate: float) -> list[BenchResult]:
    """Duels (whole engagements in the Numba turn loop) and Dust Epic battles (exact Markov
    chain and Monte Carlo); compiled and warmed first."""
    from .cards import load_cards
    from .duel import compile_duel, parse_side, simulate_duel
    from .epic import battle

    cards = load_cards()
    spec = compile_duel(parse_side("Ludwig", cards, "dust-1947"),
                        parse_side("Pounder, Ranger Combat Squad", cards, "dust-1947"),
                        distance=12, turns=5)
    simulate_duel(spec, 1000, seed=1, threads=1)
    n = 20_000 if quick else 400_000
    t0 = time.perf_counter()
    simulate_duel(spec, n, seed=1, threads=1)
    duel_1 = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    simulate_duel(spec, n, seed=1, threads=threads)
    duel_all = n / (time.perf_counter() - t0)
    battle("4 tank", "3 tank", engine="mc", trials=1000)
    t_small = _timeit(lambda: battle("4 tank", "3 tank", engine="exact"), 0.5)[0]
    big = "30 tank" if quick else "20 tank, 5 mech, 5 fighter"
    t0 = time.perf_counter()
    battle(big, big, engine="exact")
    t_big = time.perf_counter() - t0
    m = 20_000 if quick else 200_000
    t0 = time.perf_counter()
    battle("20 tank, 10 mech", "20 tank, 10 mech", engine="mc", trials=m)
    epic_rate = m / (time.perf_counter() - t0)
    return [
        BenchResult("duels/s (Ludwig vs Pounder + Rangers, 1 thread)", duel_1, "duels/s",
                    detail="12 squares, up to 5 turns"),
        BenchResult("duels/s (all threads)", duel_all, "duels/s"),
        BenchResult("duels/s / uniform draws/s (1 thread)", duel_1 / uniform_rate, "ratio"),
        BenchResult("epic exact: 4 tank vs 3 tank", t_small * 1e3, "ms"),
        BenchResult(f"epic exact: {big} vs the same", t_big, "s"),
        BenchResult("epic Monte Carlo: 30 figures a side", epic_rate, "battles/s"),
    ]


def _exact_vs_icepool(quick: bool) -> list[BenchResult]:
    """Three laser dice, sustained, into a V4 vehicle in cover with Damage Resilient."""
    track, dmg = 6, 2
    w, c = weapon_from_cell(f"1/{dmg}", count=3, keywords=["laser"], column="V4")
    spec = compile_attack([(w, c)], Target(column="V4", track=track, cover=True,
                                           skills=frozenset({"damage resilient"})),
                          Situation(action="sustained"), "dust-1947")
    from .exact import clear_caches

    def cold():
        clear_caches()  # time a cold query: no memoised PMFs or matrices
        return evaluate(spec)

    cold()
    t_exact, _ = _timeit(cold, 0.5 if quick else 2.0)
    ours = evaluate(spec).damage.probs
    try:
        import icepool
    except ImportError:
        return [BenchResult("exact engine (icepool not installed)", t_exact * 1e3, "ms/query",
                            detail="pip install 'icepool<2.2' to compare")]

    def icepool_query():
        first = icepool.Die({0: 4, 1: 5})  # sustained: 5/9 hit
        geom = icepool.Die({0: 2, 1: 1}).explode(depth=30)  # chain dice on the base face
        per_die = first.map(lambda f: (1 + geom) if f else 0)  # each hit starts a chain
        hits = 3 @ per_die
        unsaved = hits.map(lambda h: h @ icepool.Die({0: 1, 1: 2}))  # cover save 1/3
        kept = unsaved.map(lambda u: (dmg * u) @ icepool.Die({0: 1, 1: 2}))  # DR 1/3 a point
        return kept.map(lambda x: min(x, track))

    t0 = time.perf_counter()
    die = icepool_query()
    t_ice = time.perf_counter() - t0
    theirs = np.array([float(die.probability(k)) for k in range(track + 1)])
    diff = float(np.abs(theirs - ours[: track + 1]).max())
    return [
        BenchResult("exact engine query", t_exact * 1e3, "ms/query"),
        BenchResult("icepool same query", t_ice * 1e3, "ms/query",
                    detail=f"max |pmf difference| {diff:.2e}"),
        BenchResult("exact / icepool speed-up", t_ice / t_exact, "x", ">= 1000"),
        BenchResult("exact vs icepool max |pmf difference|", diff, "", "<= 1e-9"),
    ]


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _memory(specs, quick: bool, threads) -> list[BenchResult]:
    small, big = (1_000_000, 10_000_000) if quick else (10_000_000, 1_000_000_000)
    simulate_batch(specs[:1], small, seed=2, threads=threads)
    before = _maxrss_mb()
    t0 = time.perf_counter()
    simulate_batch(specs[:1], big, seed=2, threads=threads)
    dt = time.perf_counter() - t0
    after = _maxrss_mb()
    return [BenchResult(f"peak RSS growth, {small:.0e} -> {big:.0e} trials", after - before,
                        "MiB", "flat", detail=f"peak RSS {after:.0f} MiB; {big / dt:,.0f} "
                                              "attacks/s on the big run")]


def format_results(results: list[BenchResult]) -> str:
    lines = [f"{'benchmark':<48} {'value':>14} {'unit':<14} goal", "-" * 90]
    for r in results:
        lines.append(r.row())
        if r.detail:
            lines.append(f"    {r.detail}")
    return "\n".join(lines)
