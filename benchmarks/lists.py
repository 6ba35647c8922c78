"""Army-list speed: ``python benchmarks/lists.py [--quick] [--no-dask]``.

* two 75-AP example lists played 10,000 times on one thread (the main games and the
  points-left curve): CPU seconds, and games/s as a ratio against a one-on-one duel
  (Pounder vs Ludwig) measured in the same process, interleaved rounds, medians;
* the meta of the bundled example lists (every pairing, 4,000 games each): CPU seconds run
  here on one thread, and the wall time on a two-process Dask LocalCluster with its ratio.

Kernels are compiled and warmed before any timing.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "lists"


def _cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main(quick: bool = False, dask: bool = True) -> None:
    from dustsim.army.lists import list_files, load_list
    from dustsim.data.cards import find_card, load_cards
    from dustsim.play.duel import DuelUnit, compile_duel, simulate_duel
    from dustsim.play.list_battles import compile_lists, meta, play_lists

    cards = load_cards()
    a = load_list(EXAMPLES / "allies-rangers.toml", cards)
    b = load_list(EXAMPLES / "ssu-red-army.toml", cards)
    spec = compile_lists(a, b)
    one = compile_duel([DuelUnit(find_card(cards, "Pounder"))],
                       [DuelUnit(find_card(cards, "Ludwig"))], distance=12, turns=6)
    n = 2_000 if quick else 10_000
    play_lists(a, b, trials=200, threads=1, spec=spec)  # compile and warm
    simulate_duel(one, 200, threads=1)
    rounds = 2 if quick else 5
    t_list, t_list_main, t_duel = [], [], []
    for r in range(rounds):  # interleaved
        t_list.append(_cpu(lambda r=r: play_lists(a, b, trials=n, seed=r, threads=1,
                                                  spec=spec)))
        t_list_main.append(_cpu(lambda r=r: play_lists(a, b, trials=n, seed=r, threads=1,
                                                       curve_trials=1, spec=spec)))
        t_duel.append(_cpu(lambda r=r: simulate_duel(one, n, r, threads=1)))
    tl, tm, td = (statistics.median(x) for x in (t_list, t_list_main, t_duel))
    print(f"{a.name} ({len(a.units)} units) vs {b.name} ({len(b.units)} units), {n:,} games,"
          f" one thread, median of {rounds} interleaved rounds:")
    print(f"  with the points-left curve ({n // 4:,} games per turn limit): {tl:.2f} s CPU")
    print(f"  main games only: {tm:.2f} s CPU = {n / tm:,.0f} games/s")
    print(f"  one-on-one duel (Pounder vs Ludwig): {n / td:,.0f} games/s; a list game costs "
          f"{td and tm / td:.1f}x a one-on-one duel")
    lists = [load_list(p, cards) for p in list_files(EXAMPLES)]
    trials = 1_000 if quick else 4_000
    meta(lists[:2], trials=50)  # warm
    t_meta_cpu = _cpu(lambda: meta(lists, trials=trials, seed=1))
    pairs = len(lists) * (len(lists) - 1) // 2
    print(f"meta of {len(lists)} bundled lists ({pairs} pairings x {trials:,} games): "
          f"{t_meta_cpu:.1f} s CPU on one thread here")
    if dask:
        from dustsim.review.sweep import dask_client

        with dask_client(workers=2) as client:
            meta(lists[:2], trials=50, client=client)  # workers import and load kernels
            t0 = time.perf_counter()
            meta(lists, trials=trials, seed=1, client=client)
            wall = time.perf_counter() - t0
        print(f"  on a 2-process Dask LocalCluster: {wall:.1f} s wall "
              f"({t_meta_cpu / wall:.2f}x the one-thread CPU time)")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv, dask="--no-dask" not in sys.argv)
