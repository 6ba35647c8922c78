"""Benchmarks: CPU time over interleaved rounds, every figure a ratio against a baseline
measured in the same rounds of the same process (the fastest round; the median is shown too).

* the random-number limit: PCG64 ``random()`` in a tight Numba loop; duels/s and Dust Epic
  Monte Carlo battles/s are divided by it (goals >= 0.004 and >= 0.012 per thread);
* single attacks: the Monte Carlo kernel against a NumPy per-die simulation that draws
  exactly the dice each trial needs (shown; the old goals are retired: single attacks are
  answered by the exact engine);
* two threads against one (wall clock; Epic goal >= 1.5);
* the exact engine against icepool on five queries, with and without chain dice, small and
  large (goal >= 1000x on the three-laser query; every PMF equal to 1e-9);
* Dust Epic's exact Markov chain, cold;
* start-up CPU time of ``dustsim --help`` (<= 0.15 s) and an exact attack (<= 0.3 s);
* the first run of a fresh install: ``list vs`` (and, full run, a 4-card report) with empty
  Numba and card caches, then warm (CPU seconds, goals <= 15 s and <= 45 s, and the ratio);
* peak resident memory while the trial count grows 10x (it stays flat).

Kernels are compiled and warmed before any timing, so compile cost is in no figure but the
first-run rows (which measure it, in child processes with empty caches). Each
goal carries PASS or FAIL (``dustsim bench --json``: ``goal``, ``value``, ``status``).
"""

from __future__ import annotations

import resource
import statistics
import time
from dataclasses import dataclass

import numpy as np

from dustsim.engines.exact import evaluate
from dustsim.engines.kernel import simulate_batch
from dustsim.rules.attack import AttackSpec, Situation, Target, compile_attack, weapon_from_cell


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
def _successes(rng, n: np.ndarray, mask: int) -> np.ndarray:
    """Per trial, successes among ``n[i]`` dice: exactly ``n.sum()`` faces are drawn."""
    total = int(n.sum())
    if total == 0:
        return np.zeros(len(n), np.int64)
    faces = rng.integers(0, 3, size=total, dtype=np.int8)
    ok = ((mask >> faces) & 1).astype(np.int64)
    return np.bincount(np.repeat(np.arange(len(n)), n), weights=ok,
                       minlength=len(n)).astype(np.int64)


def numpy_simulate(spec: AttackSpec, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Damage per trial for single-pool targets (no joined hero), by per-die NumPy draws:
    every roll draws exactly the dice each trial needs (no padding to the widest trial)."""
    a = np.full(trials, spec.models, np.int64)
    b = np.full(trials, spec.single, np.int64)
    for g in spec.groups:
        n = np.full(trials, g.dice, np.int64)
        h = _successes(rng, n, g.hit)
        if g.reroll:
            h = h + _successes(rng, n - h, g.reroll)
        if g.chain:
            pending = h.copy()
            while pending.any():  # each chain success adds a hit and one more die
                more = _successes(rng, pending, g.chain)
                h = h + more
                pending = more
        u = h - _successes(rng, h, g.save) if g.save else h
        if spec.models:
            removed = u - _successes(rng, u, 1) if g.resilient_squad else u
            a = np.maximum(a - removed, 0)
        else:
            pts = u * (spec.single_full if g.auto_kill else g.damage)
            if g.resilient_single:
                pts = pts - _successes(rng, pts, 1)
            b = np.maximum(b - pts, 0)
    return (spec.models - a) + (spec.single - b)


@dataclass
class BenchResult:
    """One figure; ``goal`` like ``">= 0.004"`` makes ``status`` PASS or FAIL."""

    name: str
    value: float
    unit: str
    goal: str = ""
    detail: str = ""
    status: str = ""

    def __post_init__(self) -> None:
        if self.goal.startswith((">=", "<=")) and not self.status:
            op, target = self.goal.split()
            ok = self.value >= float(target) if op == ">=" else self.value <= float(target)
            self.status = "PASS" if ok else "FAIL"

    def row(self) -> str:
        return (f"{self.name:<52} {self.value:>14,.4g} {self.unit:<12} {self.goal:<9} "
                f"{self.status}")


def _timeit(fn, min_time: float) -> tuple[float, int]:
    """CPU seconds per call of ``fn``, repeated for at least ``min_time`` CPU seconds."""
    n = 0
    t0 = time.process_time()
    while True:
        fn()
        n += 1
        dt = time.process_time() - t0
        if dt >= min_time:
            return dt / n, n


def _rounds(fns: dict, rounds: int, clock=time.process_time) -> dict[str, list[float]]:
    """Seconds per call of each function, measured in ``rounds`` interleaved rounds (a noisy
    machine slows every candidate of a round alike)."""
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t0 = clock()
            fn()
            out[k].append(clock() - t0)
    return out


def _rate(n: float, times: list[float]) -> tuple[float, float]:
    """(rate at the fastest round, rate at the median round)."""
    return n / min(times), n / statistics.median(times)


#: the units of examples/lists/allies-rangers.toml and axis-heavy-grenadiers.toml (75 AP each)
GRID_SIDES = ("Bazooka Joe + Ranger Command Squad, Ranger Combat Squad, Ranger Combat Squad, "
              "Ranger Weapon Squad, Pounder, Ludwig, Ranger Sniper Squad",
              "Lara + Heavy Grenadier Command Squad, Heavy Grenadier Assault Squad, "
              "Heavy Grenadier Assault Squad, Ludwig, Heinrich")


def _grid_spec(cards):
    """The grid battle of the bench: the two 75-AP example lists' units on 101 Firefight."""
    from dustsim.play.battle import prepare
    from dustsim.play.duel import parse_side

    a, b = (parse_side(x, cards, "dust-1947") for x in GRID_SIDES)
    return prepare(a, b, scenario="101", seed=1)


def run(quick: bool = False, threads: int | None = None) -> list[BenchResult]:
    """Every benchmark: CPU time over interleaved rounds, ratios against baselines measured
    in the same rounds; each goal of issue 17 with PASS or FAIL."""
    from dustsim.data.cards import load_cards
    from dustsim.engines.kernel import _uniform_loop
    from dustsim.engines.rng import state, uniform_loop
    from dustsim.play.battle import simulate_battle
    from dustsim.play.duel import compile_duel, parse_side, simulate_duel
    from dustsim.play.epic import battle

    mix = representative_mix()
    specs = [s for _, s in mix]
    cards = load_cards()
    duel_spec = compile_duel(parse_side("Ludwig", cards, "dust-1947"),
                             parse_side("Pounder, Ranger Combat Squad", cards, "dust-1947"),
                             distance=12, turns=5)
    army = "20 tank, 10 mech"
    grid_spec = _grid_spec(cards)
    # compile and warm everything first: no compile time in any figure
    simulate_batch(specs, 1000, seed=1, threads=1)
    simulate_duel(duel_spec, 1000, seed=1, threads=1)
    battle(army, army, engine="mc", trials=1000, threads=1)
    simulate_battle(grid_spec, 200, seed=1, threads=1)
    gen = np.random.Generator(np.random.PCG64(3))
    xs = state(np.random.SeedSequence(3))
    _uniform_loop(gen, 1000)
    uniform_loop(xs, 1000)

    n_u = 2_000_000 if quick else 20_000_000
    trials = 20_000 if quick else 400_000
    np_trials = 20_000 if quick else 200_000
    n_duel = 5_000 if quick else 100_000
    n_epic = 10_000 if quick else 200_000
    n_grid = 1_000 if quick else 10_000
    rng = np.random.default_rng(1)
    np_means: list = []
    t = _rounds({
        "uniform": lambda: _uniform_loop(gen, n_u),
        "xoshiro": lambda: uniform_loop(xs, n_u),
        "kernel": lambda: simulate_batch(specs, trials, seed=1, threads=1),
        "numpy": lambda: np_means.append([numpy_simulate(s, np_trials, rng).mean()
                                          for s in specs]),
        "duel": lambda: simulate_duel(duel_spec, n_duel, seed=1, threads=1),
        "epic": lambda: battle(army, army, engine="mc", trials=n_epic, threads=1),
        "grid": lambda: simulate_battle(grid_spec, n_grid, seed=1, threads=1),
    }, 2 if quick else 3)
    uni, uni_med = _rate(n_u, t["uniform"])
    xo, _ = _rate(n_u, t["xoshiro"])
    ker, ker_med = _rate(trials * len(specs), t["kernel"])
    npr, npr_med = _rate(np_trials * len(specs), t["numpy"])
    duel, duel_med = _rate(n_duel, t["duel"])
    epic, epic_med = _rate(n_epic, t["epic"])
    grid, grid_med = _rate(n_grid, t["grid"])
    mc = simulate_batch(specs, trials, seed=1, threads=1)
    agree = max(abs(m.damage.mean() - nm) for m, nm in zip(mc, np_means[-1], strict=True))
    t0 = time.perf_counter()
    simulate_batch(specs, trials, seed=1, threads=threads)
    ker_all = trials * len(specs) / (time.perf_counter() - t0)

    def med(x):
        return f"median-round rate {x:,.0f}/s"

    results = [
        BenchResult("uniform draws, tight Numba loop (PCG64)", uni, "draws/s",
                    detail=f"the reference of every ratio below; {med(uni_med)}"),
        BenchResult("inline xoshiro256** uniforms / PCG64 uniforms", xo / uni, "x",
                    detail="the kernels' own generator (dustsim.engines.rng)"),
        BenchResult("kernel throughput (mix, 1 thread)", ker, "attacks/s", detail=med(ker_med)),
        BenchResult("kernel throughput (mix, all threads)", ker_all, "attacks/s",
                    detail="wall clock"),
        BenchResult("numpy per-die baseline (1 thread)", npr, "attacks/s",
                    detail=f"exactly the dice each trial needs; max |mean difference| "
                           f"{agree:.4f} damage; {med(npr_med)}"),
        BenchResult("kernel / numpy (1 thread each)", ker / npr, "x",
                    detail="goal retired: single attacks are answered exactly"),
        BenchResult("attacks/s / uniform draws/s (1 thread)", ker / uni, "ratio",
                    detail="goal retired: single attacks are answered exactly"),
        BenchResult("duels/s (Ludwig vs Pounder + Rangers, 1 thread)", duel, "duels/s",
                    detail=f"12 squares, up to 5 turns; {med(duel_med)}"),
        BenchResult("duels/s / uniform draws/s (1 thread)", duel / uni, "ratio", ">= 0.004",
                    detail=f"median rounds {duel_med / uni_med:.4f}; the engagement's tables "
                           "and state in one int64 matrix, no reference counting, one uniform "
                           "per roll, the initiative one random bit"),
        BenchResult("grid battles/s (two 75-AP lists, 101 Firefight, 1 thread)", grid,
                    "games/s", ">= 5000",
                    detail=f"allies-rangers vs axis-heavy-grenadiers on the 9 x 12 board, 8 "
                           f"turns, policy hold-and-strike; {med(grid_med)}"),
        BenchResult("grid battles/s / uniform draws/s (1 thread)", grid / uni, "ratio",
                    detail=f"median rounds {grid_med / uni_med:.6f}; the goal of issue 22 is "
                           "the games/s row above"),
        BenchResult("epic Monte Carlo battles/s (30 figures a side, 1 thread)", epic,
                    "battles/s", detail=med(epic_med)),
        BenchResult("epic battles/s / uniform draws/s (1 thread)", epic / uni, "ratio",
                    ">= 0.012"),
    ]
    results += _scaling(duel_spec, army, quick)
    results += _epic_exact(quick)
    results += _exact_vs_icepool(quick)
    results += _latency(quick)
    results += _first_run(quick)
    results += _memory(specs, quick, threads)
    return results


def _scaling(duel_spec, army: str, quick: bool) -> list[BenchResult]:
    """Wall-clock speed-up of two threads over one (the only figure that needs the wall
    clock; on a machine shared with other work it understates the scaling)."""
    import os

    from dustsim.play.duel import simulate_duel
    from dustsim.play.epic import battle

    if (os.cpu_count() or 1) < 2:
        return []
    n_duel = 5_000 if quick else 200_000
    n_epic = 10_000 if quick else 400_000
    t = _rounds({
        "duel1": lambda: simulate_duel(duel_spec, n_duel, seed=1, threads=1),
        "duel2": lambda: simulate_duel(duel_spec, n_duel, seed=1, threads=2),
        "epic1": lambda: battle(army, army, engine="mc", trials=n_epic, threads=1),
        "epic2": lambda: battle(army, army, engine="mc", trials=n_epic, threads=2),
    }, 1 if quick else 3, clock=time.perf_counter)
    return [
        BenchResult("duels: 2 threads / 1 thread (wall)", min(t["duel1"]) / min(t["duel2"]),
                    "x", detail="the same numbers for any thread count"),
        BenchResult("epic Monte Carlo: 2 threads / 1 thread (wall)",
                    min(t["epic1"]) / min(t["epic2"]), "x", ">= 1.5"),
    ]


def _epic_exact(quick: bool) -> list[BenchResult]:
    """Dust Epic's exact Markov chain, cold (casualty and PMF caches cleared each call)."""
    from dustsim.play import epic

    def cold(a, d):
        epic.remove.cache_clear()
        epic._retreat_pick.cache_clear()
        epic._hit_pmf.cache_clear()
        return epic.battle(a, d, engine="exact")

    cold("4 tank", "3 tank")  # imports (SciPy's binomial) outside the timing
    t_small = _timeit(lambda: cold("4 tank", "3 tank"), 0.3)[0]
    big = "30 tank" if quick else "20 tank, 5 mech, 5 fighter"
    t_big = _timeit(lambda: cold(big, big), 0.1)[0]
    return [
        BenchResult("epic exact: 4 tank vs 3 tank", t_small * 1e3, "ms"),
        BenchResult(f"epic exact: {big} vs the same", t_big, "s",
                    detail="before the casualty cache: 2.5-3.2 s for 20 tank, 5 mech, "
                           "5 fighter on the development machine"),
    ]


def _icepool_queries():
    """(name, spec, icepool builder, track) with and without chain dice, small and large
    (a large chain query is left out: 12 laser dice took icepool over five minutes)."""
    import icepool

    def spec(cell, count, column, action="attack", keywords=(), skills=(), **tgt):
        w, c = weapon_from_cell(cell, count=count, keywords=list(keywords), column=column)
        return compile_attack([(w, c)], Target(column=column, skills=frozenset(skills), **tgt),
                              Situation(action=action), "dust-1947")

    def laser(n, dmg, track, dr):
        def q():
            first = icepool.Die({0: 4, 1: 5})  # sustained: 5/9 hit
            geom = icepool.Die({0: 2, 1: 1}).explode(depth=30)  # chain dice on the base face
            per_die = first.map(lambda f: (1 + geom) if f else 0)  # each hit starts a chain
            hits = n @ per_die
            unsaved = hits.map(lambda h: h @ icepool.Die({0: 1, 1: 2}))  # cover save 1/3
            if dr:
                kept = unsaved.map(lambda u: (dmg * u) @ icepool.Die({0: 1, 1: 2}))
            else:
                kept = unsaved.map(lambda u: dmg * u)
            return kept.map(lambda x: min(x, track))
        return q

    def plain(n, p_hit, p_unsaved, dmg, cap):
        def q():
            hits = n @ icepool.Die({0: 3 - p_hit, 1: p_hit})
            unsaved = hits.map(lambda h: h @ icepool.Die({0: 3 - p_unsaved, 1: p_unsaved}))
            return unsaved.map(lambda u: min(dmg * u, cap))
        return q

    return [
        ("3 lasers, chain, cover, damage resilient",
         spec("1/2", 3, "V4", "sustained", ["laser"], ["damage resilient"], track=6,
              cover=True), laser(3, 2, 6, True), 6),
        ("1 laser, chain, cover",
         spec("1/2", 1, "V4", "sustained", ["laser"], track=6, cover=True),
         laser(1, 2, 6, False), 6),
        ("2 AT guns, no chain",
         spec("2/3", 1, "V4", track=6), plain(2, 1, 3, 3, 6), 6),
        ("40 rifle dice, no chain, cover",
         spec("2/1", 20, "I2", models=10, cover=True), plain(40, 1, 1, 1, 10), 10),
    ]


def _exact_vs_icepool(quick: bool) -> list[BenchResult]:
    """The exact engine against icepool on the same queries (cold: no memoised PMFs)."""
    from dustsim.engines.exact import clear_caches

    try:
        import icepool  # noqa: F401
    except ImportError:
        return [BenchResult("exact engine vs icepool", 0.0, "", detail="icepool not installed "
                            "(pip install 'icepool<2.2')")]
    out = []
    queries = _icepool_queries()
    if quick:  # the large query takes icepool seconds
        queries = [q for q in queries if not q[0].startswith("40 ")]
    for i, (name, spec, query, track) in enumerate(queries):
        def cold(spec=spec):
            clear_caches()
            return evaluate(spec)

        cold()
        t_exact, _ = _timeit(cold, 0.2 if quick else 1.0)
        ours = evaluate(spec).damage.probs
        t0 = time.process_time()
        die = query()
        t_ice = time.process_time() - t0
        theirs = np.array([float(die.probability(k)) for k in range(track + 1)])
        n = min(len(ours), track + 1)
        diff = float(max(np.abs(theirs[:n] - ours[:n]).max(), abs(theirs[n:].sum()),
                         abs(ours[n:].sum())))
        out += [
            BenchResult(f"exact vs icepool: {name}", t_ice / t_exact, "x",
                        ">= 1000" if i == 0 else "",
                        detail=f"exact {t_exact * 1e3:.2f} ms, icepool {t_ice * 1e3:.1f} ms "
                               "(CPU)"),
            BenchResult(f"  max |pmf difference|: {name}", diff, "", "<= 1e-9"),
        ]
    return out


def _child_cpu(args: list[str], module: bool = True, env_extra: dict | None = None) -> float:
    """CPU seconds (user + system) of one ``python -m dustsim ARGS`` run (``python ARGS``
    with ``module=False``; ``env_extra`` added to its environment)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode cached
    env.update(env_extra or {})
    cmd = [sys.executable, "-m", "dustsim", *args] if module else [sys.executable, *args]
    subprocess.run(cmd, capture_output=True, check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _latency(quick: bool) -> list[BenchResult]:
    """Start-up cost of light commands: the fastest of a few runs, child CPU time, bytecode
    cached (the first run writes it, as an install does). ``import numpy`` alone is the floor
    of any command that computes."""
    n = 1 if quick else 5
    attack = ["attack", "--weapon", "2/1", "--count", "5", "--target", "I2", "--models", "5",
              "--engine", "exact"]
    _child_cpu(attack)  # warm: bytecode written
    t_help = min(_child_cpu(["--help"]) for _ in range(n))
    t_att = min(_child_cpu(attack) for _ in range(n))
    cards = ["attack", "--unit", "Pounder", "--vs", "Ludwig", "--engine", "exact"]
    _child_cpu(cards)  # the card cache written, as a first run does
    t_cards = min(_child_cpu(cards) for _ in range(n))
    t_np = min(_child_cpu(["-c", "import numpy"], module=False) for _ in range(n))
    return [
        BenchResult("latency: dustsim --help", t_help, "s CPU", "<= 0.15"),
        BenchResult("latency: dustsim attack ... --engine exact", t_att, "s CPU", "<= 0.3",
                    detail=f"python -c 'import numpy' alone: {t_np:.3f} s CPU"),
        BenchResult("latency: dustsim attack --unit Pounder --vs Ludwig",
                    t_cards, "s CPU", "<= 0.3",
                    detail="--engine exact (issue 26), cards read from their cache"),
    ]


def _first_run(quick: bool) -> list[BenchResult]:
    """A fresh install's first commands: child CPU time with empty Numba and card caches
    (cold: the kernels compiled at install serve, every other one is compiled), then the same
    command again (warm: read from the caches).
    Goals (issue 26): the first ``list vs`` of two example lists <= 15 s, a 4-card report
    <= 45 s (full run only), the cold/warm ratio shown."""
    import tempfile
    from pathlib import Path

    if quick:  # compiling is the point, and it takes tens of seconds: full runs only
        return [BenchResult("first run (cold caches)", 0.0, "", detail="not in --quick: "
                                                                       "run `dustsim bench`")]
    lists = Path(__file__).resolve().parents[1] / "examples" / "lists"
    a, b = lists / "allies-rangers.toml", lists / "axis-heavy-grenadiers.toml"  # issue 26's
    runs = []
    if a.is_file() and b.is_file():
        runs.append(("list vs (two example lists)", ["list", "vs", str(a), str(b), "--quiet"],
                     "<= 15"))
    runs.append(("report --units (4 cards)", ["report", "--units", "Pounder,Ludwig,Ranger "
                 "Combat Squad,Steel Samuraï", "--quiet", "--force", "--format", "png"],
                 "<= 45"))
    from dustsim.engines import aot

    served = ("entry kernels compiled at install (dustsim._kernels); other kernels by "
              "Numba's JIT" if aot.available() else "dustsim._kernels not built or stale "
              "(an edited checkout, or no C compiler at install): every kernel by Numba's JIT")
    out = []
    for name, args, goal in runs:
        with tempfile.TemporaryDirectory(prefix="dustsim-first-run-") as tmp:
            env = {"NUMBA_CACHE_DIR": str(Path(tmp) / "numba"),
                   "DUSTSIM_CACHE_DIR": str(Path(tmp) / "cards")}
            if args[0] == "report":
                args = [*args, "--out", str(Path(tmp) / "report")]
            cold = _child_cpu(args, env_extra=env)
            warm = _child_cpu(args, env_extra=env)
        out += [BenchResult(f"first run, cold caches: {name}", cold, "s CPU", goal,
                            detail=served),
                BenchResult(f"  the same, warm caches: {name}", warm, "s CPU"),
                BenchResult(f"  cold / warm: {name}", cold / warm, "x")]
    return out


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
                        "MiB", "<= 64", detail=f"peak RSS {after:.0f} MiB; {big / dt:,.0f} "
                                              "attacks/s on the big run")]


def format_results(results: list[BenchResult]) -> str:
    lines = [f"{'benchmark':<52} {'value':>14} {'unit':<12} {'goal':<9} status", "-" * 100]
    for r in results:
        lines.append(r.row())
        if r.detail:
            lines.append(f"    {r.detail}")
    return "\n".join(lines)
