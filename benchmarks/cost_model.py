"""Cost model of the report's sweeps, and the speed-up from 1 to 2 local Dask workers.

``python benchmarks/cost_model.py [--cards N] [--trials T]``

Measured on one core (``DUSTSIM_THREADS=1``), kernels compiled and warmed first:

* exact engine: seconds per unit x column x situation cell, and per unit x unit pair;
* Monte Carlo: seconds per cell per trial (the slope between two trial counts, so the
  per-task overhead is separated out);
* the wall time of one Monte Carlo sweep on a LocalCluster of 1 and of 2 worker processes.

It then projects a full sweep of every edition at 1e8 trials per cell. See docs/scale.md.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("DUSTSIM_THREADS", "1")


def _time(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, default=32)
    ap.add_argument("--trials", type=int, default=50_000)
    args = ap.parse_args()

    from dustsim.data.cards import COLUMNS, load_cards
    from dustsim.engines.exact import clear_caches
    from dustsim.review.analytics import SITUATIONS, scoreable
    from dustsim.review.sweep import dask_client, sweep

    cards = load_cards()
    d47 = [c for c in cards if c.edition == "dust-1947"]
    chosen = [c for c in d47 if scoreable(c)][: args.cards]
    cells = len(chosen) * len(COLUMNS) * len(SITUATIONS)
    pairs = len(chosen) * sum(scoreable(c) for c in d47)

    sweep(d47, chosen[:2], engine="mc", trials=1000)  # compile and warm
    from dustsim.review.analytics import unit_column_table, unit_unit_table

    def exact_uc():
        clear_caches()
        unit_column_table(chosen)

    def exact_uu():
        clear_caches()
        unit_unit_table(d47, chosen)

    t_uc = _time(exact_uc, 2) / cells
    t_uu = _time(exact_uu) / pairs
    lo, hi = args.trials // 5, args.trials
    t_lo = _time(lambda: unit_column_table(chosen, engine="mc", trials=lo))
    t_hi = _time(lambda: unit_column_table(chosen, engine="mc", trials=hi))
    t_trial = (t_hi - t_lo) / (hi - lo) / cells

    walls = {}
    for n in (1, 2):
        with dask_client(n) as client:
            sweep(d47, chosen[:2], engine="mc", trials=1000, client=client)  # warm workers
            walls[n] = _time(lambda c=client: sweep(d47, chosen, engine="mc",
                                                    trials=args.trials, client=c))

    all_cells = sum(scoreable(c) for c in cards) * len(COLUMNS) * len(SITUATIONS)
    core_s = all_cells * 1e8 * t_trial
    print(f"cards {len(chosen)}, cells {cells}, unit x unit pairs {pairs}")
    print(f"exact, per unit x column x situation cell: {t_uc * 1e3:.3f} ms")
    print(f"exact, per unit x unit pair (expected actions): {t_uu * 1e3:.3f} ms")
    print(f"Monte Carlo, per cell per trial: {t_trial * 1e9:.1f} ns "
          f"({1 / t_trial / 1e6:.1f}M cell-trials/s on one core)")
    print(f"MC sweep of {cells} cells x {args.trials:,} trials: 1 worker {walls[1]:.2f} s, "
          f"2 workers {walls[2]:.2f} s, speed-up {walls[1] / walls[2]:.2f}x")
    print(f"full sweep, every edition ({all_cells} cells) at 1e8 trials per cell: "
          f"{core_s / 3600:.0f} core-hours; on 64 one-core workers {core_s / 64 / 3600:.1f} h")


if __name__ == "__main__":
    main()
