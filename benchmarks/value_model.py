"""How well each lens's suggested costs agree with the printed ones (Dust 1947).

``python benchmarks/value_model.py [--trials T] [--hosts H] [--games G] [--seed S]``

Lenses, on the same edition and seed:

* **old model**: one-on-one engagements against a reference field only
  (:func:`dustsim.review.value.value_model` with ``battles=False``);
* **new model**: engagements and battles combined
  (:func:`dustsim.review.value.value_model` with ``battles=True``);
* **battles alone**: a card's marginal VP in sampled armies, with and without it
  (:mod:`dustsim.review.battle_value`, its own mapping);
* **consistency lens**: the cross-validated statistical model of the price list
  (:mod:`dustsim.review.consistency`; not a model of play);
* the heuristic baseline (dice x damage x range x health x armour).

For each: Spearman and log R² (squared Pearson correlation of log suggested and log printed
AP) over the cards it judges, the share of the edition's priced cards judged, and the median
fair/printed AP of the cards above 40 AP and of those at 2-3 AP (the issue asks 0.67-1.5:
no saturation). Then the new model's ten best and worst per AP with their sentence.
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
    args = ap.parse_args()

    import numpy as np

    from dustsim.data.cards import load_cards
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
    old = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed, battles=False))
    cpu_old = time.process_time() - c0
    t0 = old.table.set_index("unit")
    j = t0[t0["judged"]]
    _row("old model", j["fair_ap"].to_numpy(float), j["ap"].to_numpy(float), n_priced,
         cpu_old)

    kw = {k: v for k, v in (("battle_hosts", args.hosts), ("battle_games", args.games)) if v}
    c0 = time.process_time()
    vm = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed, battles=True, **kw),
                     progress=True)  # the engagements are reused from the run above
    cpu_new = time.process_time() - c0
    t = vm.table.set_index("unit")
    jn = t[t["judged"]]
    _row("new model", jn["fair_ap"].to_numpy(float), jn["ap"].to_numpy(float), n_priced,
         cpu_new)
    jb = t[t["battle_verdict"].isin(("over-costed", "under-costed", "in band"))]
    _row("battles alone", jb["battle_fair_ap"].to_numpy(float), jb["ap"].to_numpy(float),
         n_priced, 0.0)
    c0 = time.process_time()
    lens = consistency(ec, seed=args.seed).table
    cpu_c = time.process_time() - c0
    _row("consistency lens", lens["consistency_ap"].to_numpy(float),
         lens["ap"].to_numpy(float), n_priced, cpu_c)
    ev = jn["evidence"].value_counts()
    print("  evidence of the new verdicts: " + ", ".join(f"{k} {v}" for k, v in ev.items()))

    w = column_weights(ec)
    hs = np.array([heuristic_strength(by[u], w) for u in j.index])
    ok = np.isfinite(hs) & (hs > 0)
    m = fit_mapping(np.log(hs[ok]), j["ap"].to_numpy()[ok], seed=args.seed)
    _row("heuristic", m.fair(np.log(hs[ok])), j["ap"].to_numpy(float)[ok], n_priced, 0.0)

    jn = jn.assign(per_ap=jn["fair_ap"] / jn["ap"])
    for title, rows in (("best per AP (new model)", jn.nlargest(10, "per_ap")),
                        ("worst per AP (new model)", jn.nsmallest(10, "per_ap"))):
        print(f"  {title}:")
        for u, r in rows.iterrows():
            print(f"    {u} ({r['kind']}, {r['armour']}, {r['ap']:g} AP): fair "
                  f"{r['fair_ap']:.1f} AP, {r['verdict']}, evidence {r['evidence']}; old model "
                  f"{t0.at[u, 'fair_ap']:.1f}. {r['reason']}")

if __name__ == "__main__":
    main()
