"""How well the value model's suggested costs agree with the printed ones, against a baseline.

``python benchmarks/value_model.py [--trials T] [--edition E]``

For each edition with costs (and engagement rules): Spearman and log R² (squared Pearson
correlation of log suggested and log printed AP; also 1 - SSE/SST about the identity) over the
cards with a modelled value, for

* the value model (:mod:`dustsim.review.value`), and
* the heuristic baseline computed in the same run: dice x damage x a range factor x health x an
  armour factor, no probabilities (:func:`dustsim.review.value.heuristic_strength`), mapped to AP by
  the same kind of mapping (reduced major axis of log AP on log strength, whole edition),

on the same cards; then how many cards were excluded and why, and the model's CPU and wall
time. Designers priced the cards in play-testing: agreement is the goal, the disagreements
are the findings.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--edition", action="append", help="edition(s); default: all with costs")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import numpy as np

    from dustsim.data.cards import load_cards
    from dustsim.review.analytics import column_weights
    from dustsim.review.value import (
        ValueSettings,
        _kernel,
        fit_mapping,
        fit_quality,
        heuristic_strength,
        value_model,
    )

    cards = load_cards()
    editions = args.edition or sorted({c.edition for c in cards if c.ap})
    _kernel()  # compile (or load) the batch kernel outside the timing
    for ed in editions:
        ec = [c for c in cards if c.edition == ed]
        if not any(c.ap for c in ec):
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        vm = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        t = vm.table
        print(f"== {ed}: {len(ec)} cards")
        if vm.mapping is None:
            print(f"   no value model ({t['why'].iloc[0] if 'why' in t and len(t) else '-'})")
            continue
        fit = t[t["judged"]]
        q = fit_quality(fit["fair_ap"], fit["ap"])
        w = column_weights(ec)
        by = {c.name: c for c in ec}
        hs = np.array([heuristic_strength(by[u], w) for u in fit["unit"]])
        ok = np.isfinite(hs) & (hs > 0)
        m = fit_mapping(np.log(hs[ok]), fit["ap"].to_numpy()[ok], seed=args.seed)
        hq = fit_quality(m.fair(np.log(hs[ok])), fit["ap"].to_numpy()[ok])
        print(f"   value model : n {q['n']:4d}  Spearman {q['spearman']:.3f}  "
              f"log R² {q['log_r2']:.3f}  (1-SSE/SST {q['log_r2_identity']:.3f})")
        print(f"   heuristic   : n {hq['n']:4d}  Spearman {hq['spearman']:.3f}  "
              f"log R² {hq['log_r2']:.3f}  (1-SSE/SST {hq['log_r2_identity']:.3f})"
              + ("" if ok.all() else f"  [{(~ok).sum()} cards score 0 or undefined]"))
        costed = int(t["judged"].sum())
        print(f"   costed: {costed} of {len(t)} ({costed / len(t):.0%}; "
              f"{int(t['in_fit'].sum())} in the fit, {int((t['judged'] & ~t['in_fit']).sum())}"
              f" heroes judged joined to a squad); "
              f"mapping log AP = {vm.mapping.a:.3f} + {vm.mapping.b:.3f} x strength")
        why = Counter()
        for r in t[~t["judged"]].itertuples():
            if isinstance(r.why, str) and r.why:
                why[f"cannot play: {r.why}"] += 1
            elif not (r.ap and r.ap > 0):
                why["no cost"] += 1
            elif r.mainly_unmodelled:
                for role in r.mainly_unmodelled.split("; "):
                    why[f"value mainly in: {role}"] += 1
            elif r.partial:
                why["partial data (a weapon with unknown cells or range)"] += 1
        for k, v in why.most_common():
            print(f"     excluded {v:3d}  {k}")
        print(f"   time: {wall:.1f} s wall, {cpu:.1f} s CPU ({args.trials} engagements per "
              f"pairing and distance, {len(vm.field)} representatives)")


if __name__ == "__main__":
    main()
