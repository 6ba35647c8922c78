"""How well each lens's suggested costs agree with the printed ones (Dust 1947).

``python benchmarks/value_model.py [--trials T] [--hosts H] [--games G] [--seed S]
[--board] [--report-only]``: ``--board`` adds the battles on the grid battlefield for the
roles the line cannot play (value step 3c, off by default: measured in
:mod:`dustsim.review.board_value`); ``--report-only`` skips the all-cards battles (the old
model, then the report's model with its lower bounds, by kind and the cards the board values).

Lenses, on the same edition and seed:

* **old model**: one-on-one engagements against a reference field only
  (:func:`dustsim.review.value.value_model` with ``battles=False``);
* **new model**: engagements and battles combined
  (:func:`dustsim.review.value.value_model` with ``battles=True``);
* **report model**: the same with battles only for the cards that need them and the field
  (``battle_cards="needed"``, what ``dustsim report`` runs; its rows are reused here, so its
  CPU time is the combination only);
* **battles alone**: a card's marginal VP in sampled armies, with and without it
  (:mod:`dustsim.review.battle_value`, its own mapping);
* **consistency lens**: the cross-validated statistical model of the price list
  (:mod:`dustsim.review.consistency`; not a model of play);
* the heuristic baseline (dice x damage x range x health x armour).

For each: Spearman and log R² (squared Pearson correlation of log suggested and log printed
AP) over the cards it judges, the share of the edition's priced cards judged, and the median
fair/printed AP of the cards above 40 AP and of those at 2-3 AP (the issue asks 0.67-1.5:
no saturation); the report model's figures by kind of card (aircraft, hero, squad, support,
vehicle). Then the report model's ten best and worst per AP with their sentence.
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
    print(f"  {name:20s} n {q['n']:4d} ({q['n'] / n_priced:5.1%} judged)  Spearman "
          f"{q['spearman']:.3f}  log R² {q['log_r2']:.3f}  fair/printed >40 AP {hi:.2f}, "
          f"2-3 AP {lo:.2f}  [{cpu:.1f} s CPU]")


def _report_rows(rm, n_priced: int, cpu: float):
    """The report model's rows: all judged cards, the lower bounds apart, by kind, and the
    cards valued from the board (value step 3c)."""
    import numpy as np

    tr = rm.table.set_index("unit")
    jr = tr[tr["judged"]]
    _row("report model", jr["fair_ap"].to_numpy(float), jr["ap"].to_numpy(float), n_priced,
         cpu)
    lb = jr["lower_bound"].astype(bool) if "lower_bound" in jr else np.zeros(len(jr), bool)
    jf = jr[~lb]
    _row("  not lower bounds", jf["fair_ap"].to_numpy(float), jf["ap"].to_numpy(float),
         n_priced, 0.0)
    print(f"  lower bounds: {int(lb.sum())}")
    for kind, g in jr.groupby("kind"):  # the report model by kind of card
        _row(f"  {kind}", g["fair_ap"].to_numpy(float), g["ap"].to_numpy(float), n_priced,
             0.0)
    if "valued_by" in jr:
        b = jr[jr["valued_by"].astype(str).str.startswith("board")]
        if len(b):
            _row("  from the board", b["fair_ap"].to_numpy(float), b["ap"].to_numpy(float),
                 n_priced, 0.0)
    return tr, jr


def grid_speed(ec, seed: int, budget: float, pairs: int = 6, games: int = 1024) -> None:
    """CPU per game of the line list-battle engine (what the battles play) and of the grid
    battlefield (:mod:`dustsim.play.battle`, scenarios 101, 102 and 105 in turn) on the same
    host armies and opponents, and the CPU the edition's battle values would take on each
    (cards x hosts x games x 2, at the default hosts and games)."""
    from dustsim.army.lists import ArmyList
    from dustsim.play.battle import prepare, simulate_battle
    from dustsim.play.list_battles import compile_lists, play_stream
    from dustsim.review import battle_value as B

    ctx = B.contexts(ec, seed=seed, hosts=2, budget=budget)
    cs = [c for b in sorted(ctx) for c in ctx[b]][:pairs]
    lists = [(ArmyList("host", 10_000, c.host), ArmyList("opp", 10_000, c.opponent), c.seed)
             for c in cs]
    import numpy as np

    warm = lists[0]  # compile both kernels before timing
    play_stream(compile_lists(warm[0], warm[1]), 8, np.random.SeedSequence(0))
    simulate_battle(prepare(warm[0], warm[1], scenario="101", seed=0), 8, seed=0, threads=1)
    c0 = time.process_time()
    for a, b, sd in lists:
        play_stream(compile_lists(a, b), games, np.random.SeedSequence(sd))
    line = (time.process_time() - c0) / (games * len(lists))
    c0 = time.process_time()
    for i, (a, b, sd) in enumerate(lists):
        sc = ("101", "102", "105")[i % 3]
        simulate_battle(prepare(a, b, scenario=sc, seed=sd % 2**31), games, seed=sd % 2**31,
                        threads=1)
    grid = (time.process_time() - c0) / (games * len(lists))
    n = len(ec) * B.HOSTS * B.GAMES * 2
    print(f"  battle engines at {budget:g} AP ({len(lists)} armies x {games} games, one "
          f"thread, compile included per army): line {1 / line:,.0f} games/s, grid "
          f"{1 / grid:,.0f} games/s; the edition's battle values ({n:,} games): line "
          f"~{n * line:.0f} s, grid ~{n * grid:.0f} s of CPU")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--hosts", type=int, default=None)
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--budget", type=float, default=None,
                    help="AP of each host army and opponent in the battles (default 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--board", action="store_true",
                    help="with the board battles (value step 3c, off by default: measured)")
    ap.add_argument("--report-only", action="store_true",
                    help="the old model and the report's model only (no all-cards battles)")
    ap.add_argument("--grid-speed", action="store_true",
                    help="only time the line and grid battle engines on the same armies")
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
    if args.grid_speed:
        from dustsim.review.battle_value import BUDGET

        grid_speed(ec, args.seed, args.budget or BUDGET)
        return
    _kernel()
    c0 = time.process_time()
    old = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed, battles=False))
    cpu_old = time.process_time() - c0
    t0 = old.table.set_index("unit")
    j = t0[t0["judged"]]
    _row("old model", j["fair_ap"].to_numpy(float), j["ap"].to_numpy(float), n_priced,
         cpu_old)

    kw = {k: v for k, v in (("battle_hosts", args.hosts), ("battle_games", args.games),
                            ("battle_budget", args.budget)) if v}
    kw["board"] = args.board
    if args.report_only:
        c0 = time.process_time()
        rm = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed, battles=True,
                                           battle_cards="needed", **kw), progress=True)
        _report_rows(rm, n_priced, time.process_time() - c0)
        return
    c0 = time.process_time()
    vm = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed, battles=True, **kw),
                     progress=True)  # the engagements are reused from the run above
    cpu_new = time.process_time() - c0
    t = vm.table.set_index("unit")
    jn = t[t["judged"]]
    _row("new model", jn["fair_ap"].to_numpy(float), jn["ap"].to_numpy(float), n_priced,
         cpu_new)
    if "lower_bound" in jn:
        jf = jn[~jn["lower_bound"].astype(bool)]
        _row("  (not lower bounds)", jf["fair_ap"].to_numpy(float), jf["ap"].to_numpy(float),
             n_priced, 0.0)
    c0 = time.process_time()  # the report's model: battles only where needed (rows reused)
    rm = value_model(ec, ValueSettings(trials=args.trials, seed=args.seed, battles=True,
                                       battle_cards="needed", **kw),
                     previous_battles=vm.battles, battle_contexts=vm.battle_contexts,
                     previous_board=vm.board)
    cpu_r = time.process_time() - c0
    _tr, jr = _report_rows(rm, n_priced, cpu_r)
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

    jr = jr.assign(per_ap=jr["fair_ap"] / jr["ap"])
    sure = jr[jr["verdict"] != "lower bound"]  # a lower bound cannot rank a card among the worst
    for title, rows in (("best per AP (report model)", sure.nlargest(10, "per_ap")),
                        ("worst per AP (report model)", sure.nsmallest(10, "per_ap"))):
        print(f"  {title}:")
        for u, r in rows.iterrows():
            print(f"    {u} ({r['kind']}, {r['armour']}, {r['ap']:g} AP): fair "
                  f"{r['fair_ap']:.1f} AP, {r['verdict']}, evidence {r['evidence']}; old model "
                  f"{t0.at[u, 'fair_ap']:.1f}. {r['reason']}")

if __name__ == "__main__":
    main()
