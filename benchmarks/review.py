"""The review's heaviest sweep on Dask workers, and the review's own cost.

``python benchmarks/review.py [--workers 2] [--rounds 3] [--trials 32] [--report]``

1. **Value engagements** (:func:`dustsim.review.value.engagements`, every card of the edition
   against the reference field): one process on one thread (the baseline) against a local
   Dask cluster of ``--workers`` one-thread worker processes, in interleaved rounds in this
   process. Before each round every memo is emptied (this process's and the workers'), so
   both sides compile every duel again; the cluster is started, and its workers have loaded
   the Numba kernel, before the rounds (a cluster's start-up is paid once per report, for the
   sweeps as well). Wall time is the measure of a parallel speed-up on idle cores; on a
   shared machine it is noise, so the CPU critical path is reported too: this process's CPU
   time plus that of the busiest worker (what the wall time would be with a core each). The
   tables of every round are checked bitwise equal.
2. ``--report``: the whole default review (``dustsim report``) in a subprocess: CPU time
   (user + system of the child) and peak RSS, against the issue's goals (120 s, 1 GB).

The machine is shared: the load average is printed with each round, and the minimum over
rounds is the figure to quote.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time


def _clear() -> None:
    from dustsim.play import duel
    from dustsim.review import value

    value.clear_cache()
    duel._MEMO.clear()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--edition", default="dust-1947")
    ap.add_argument("--report", action="store_true", help="also time the whole review")
    args = ap.parse_args()

    import pandas as pd

    from dustsim.data.cards import load_cards
    from dustsim.review.sweep import dask_client
    from dustsim.review.value import ValueSettings, _kernel, engagements, reference_field

    cards = [c for c in load_cards() if c.edition == args.edition]
    fld = reference_field(cards)
    one = ValueSettings(trials=args.trials, threads=1)
    _kernel()
    res: dict[str, list[tuple[float, float]]] = {"local, 1 thread": [],
                                                  f"Dask, {args.workers} workers": []}
    tables = []
    with dask_client(args.workers) as client:
        client.run(lambda: _kernel() and None)  # every worker loads the kernel once
        for r in range(args.rounds):
            for name in res:
                _clear()
                client.run(_clear)
                dask = name.startswith("Dask")
                w0 = client.run(time.process_time)
                c0, t0 = time.process_time(), time.perf_counter()
                eng = engagements(cards, fld, cards, one, client=client if dask else None)
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                w1 = client.run(time.process_time)
                per_worker = sorted(round(w1[k] - w0[k], 2) for k in w0)
                busiest = per_worker[-1] if dask else 0.0
                # critical path in CPU time: this process plus the busiest worker, i.e. the
                # wall time on otherwise idle cores (the machine is shared: wall is noisy)
                res[name].append((wall, cpu + busiest))
                tables.append(eng)
                print(f"round {r + 1}: {name:18s} wall {wall:6.2f} s, cpu here {cpu:6.2f} s"
                      + (f", workers {per_worker} s" if dask else "")
                      + f" (load {os.getloadavg()[0]:.1f})", flush=True)
    for t in tables[1:]:
        pd.testing.assert_frame_equal(t, tables[0], check_exact=True)
    (base, par) = (min(w for w, _ in v) for v in res.values())
    (base_c, par_c) = (min(c for _, c in v) for v in res.values())
    print(f"value engagements, {len(cards)} cards x {len(fld)} representatives x "
          f"{len(one.distances)} distances x {args.trials} (min over {args.rounds} rounds; "
          f"tables bitwise equal in every round):\n"
          f"  wall: one thread {base:.2f} s, {args.workers} workers {par:.2f} s: "
          f"{base / par:.2f}x\n"
          f"  CPU critical path: one thread {base_c:.2f} s, {args.workers} workers "
          f"{par_c:.2f} s (this process + the busiest worker): {base_c / par_c:.2f}x "
          f"(goal >= 1.6x: {'PASS' if base_c / par_c >= 1.6 else 'FAIL'})")
    if args.report:
        with tempfile.TemporaryDirectory() as tmp:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "dustsim", "report", "--edition",
                            args.edition, "--out", os.path.join(tmp, "r"), "--quiet"],
                           check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            rss = after.ru_maxrss / 1024  # KiB -> MiB (the largest child so far)
            print(f"review: cpu {cpu:.1f} s (goal <= 120: {'PASS' if cpu <= 120 else 'FAIL'}), "
                  f"wall {time.perf_counter() - t0:.1f} s, peak RSS {rss:.0f} MiB "
                  f"(goal <= 1 GB: {'PASS' if rss * 2**20 <= 1e9 else 'FAIL'})")


if __name__ == "__main__":
    main()
