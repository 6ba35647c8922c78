"""How well each lens's suggested costs agree with the printed ones (Dust 1947).

``python benchmarks/value_model.py [--trials T] [--hosts H] [--games G] [--seed S]``

Lenses, on the same edition and seed:

* **old model**: one-on-one engagements against a reference field
  (:func:`dustsim.review.value.value_model`);
* **battles**: a card's marginal VP in sampled armies, with and without it
  (:mod:`dustsim.review.battle_value`);
* **consistency lens**: the cross-validated statistical model of the price list
  (:mod:`dustsim.review.consistency`; not a model of play);
* the heuristic baseline (dice x damage x range x health x armour).

For each: Spearman and log R² (squared Pearson correlation of log suggested and log printed
AP) over the cards it judges, the share of the edition's priced cards judged, and the median
fair/printed AP of the cards above 40 AP and of those at 2-3 AP (the issue asks 0.67-1.5:
no saturation). Then the battle lens's ten best and worst per AP with one sentence each.
CPU time per lens (``time.process_time``; the machine is shared, wall time is not a measure).
"""

from __future__ import annotations

import argparse
import time


def _row(name, fair, ap, n_priced, cpu):
    import numpy as np

    from dustsim.review.value import fit_quality

    ok = np.isfinite(fair) & np.isfinite(ap) & (ap > 0) & (fair > 0)
    q = fit_quality(fair[ok], ap[ok])
    r = fair[ok] / ap[ok]
    hi = np.median(r[ap[ok] > 40]) if (ap[ok] > 40).any() else float("nan")
    lo = np.median(r[(ap[ok] >= 2) & (ap[ok] <= 3)]) if ((ap[ok] >= 2) & (ap[ok] <= 3)).any() \
        else float("nan")
    print(f"  {name:17s} n {q['n']:4d} ({q['n'] / n_priced:5.1%} judged)  Spearman "
          f"{q['spearman']:.3f}  log R² {q['log_r2']:.3f}  fair/printed >40 AP {hi:.2f}, "
          f"2-3 AP {lo:.2f}  [{cpu:.1f} s CPU]")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--hosts", type=int, default=None)
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--battles", help="a parquet of battle_values() to reuse")
    args = ap.parse_args()

    import numpy as np
    import pandas as pd

    from dustsim.data.cards import load_cards
    from dustsim.review import battle_value as B
    from dustsim.review.analytics import column_weights
    from dustsim.review.consistency import consistency
    from dustsim.review.value import (
        ValueSettings,
        _kernel,
        fit_mapping,
        heuristic_strength,
        value_model,
    )

    ec = [c for c in load_cards() if c.edition == "dust-1947"]
    by = {c.name: c for c in ec}
    n_priced = sum(1 for c in ec if c.ap)
    print(f"== dust-1947: {len(ec)} cards, {n_priced} priced")
    _kernel()
    c0 = time.process_time()
    vm = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed))
    cpu_old = time.process_time() - c0
    t = vm.table.set_index("unit")
    j = t[t["judged"]]
    _row("old model", j["fair_ap"].to_numpy(float), j["ap"].to_numpy(float), n_priced,
         cpu_old)

    c0 = time.process_time()
    if args.battles:
        bv = pd.read_parquet(args.battles)
    else:
        kw = {k: v for k, v in (("hosts", args.hosts), ("games", args.games)) if v}
        bv = B.battle_values(ec, seed=args.seed, progress=True, **kw)
    bf = B.battle_fair(bv, ec, seed=args.seed)
    cpu_b = time.process_time() - c0
    jb = bf[bf["battle_verdict"].isin(("over-costed", "under-costed", "in band"))]
    _row("battles", jb["battle_fair_ap"].to_numpy(float), jb["ap"].to_numpy(float),
         n_priced, cpu_b)

    c0 = time.process_time()
    lens = consistency(ec, seed=args.seed).table
    cpu_c = time.process_time() - c0
    _row("consistency lens", lens["consistency_ap"].to_numpy(float),
         lens["ap"].to_numpy(float), n_priced, cpu_c)

    w = column_weights(ec)
    hs = np.array([heuristic_strength(by[u], w) for u in j.index])
    ok = np.isfinite(hs) & (hs > 0)
    m = fit_mapping(np.log(hs[ok]), j["ap"].to_numpy()[ok], seed=args.seed)
    _row("heuristic", m.fair(np.log(hs[ok])), j["ap"].to_numpy(float)[ok], n_priced, 0.0)

    jb = jb.assign(per_ap=jb["battle_fair_ap"] / jb["ap"])
    cons = lens.set_index("unit")
    for title, rows in (("best per AP (battles)", jb.nlargest(10, "per_ap")),
                        ("worst per AP (battles)", jb.nsmallest(10, "per_ap"))):
        print(f"  {title}:")
        for r in rows.itertuples():
            c = by[r.unit]
            how = f", joined to {r.battle_joined}" if r.battle_joined else ""
            print(f"    {r.unit} ({c.kind}, {c.armour}, {r.ap:g} AP): fair "
                  f"{r.battle_fair_ap:.1f} AP; adds {r.battle_value:+.1f} ± "
                  f"{r.battle_value_se:.1f} VP per battle to {r.battle_pairings} armies"
                  f"{how}; price list {cons.at[r.unit, 'consistency_ap']:.1f} AP; old model "
                  f"{t.at[r.unit, 'fair_ap']:.1f} AP ({t.at[r.unit, 'verdict']})")


if __name__ == "__main__":
    main()
