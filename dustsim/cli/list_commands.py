"""The ``list`` command: check, show, play against another list, the meta of a folder.

A thin shell over :mod:`dustsim.army.lists`, :mod:`dustsim.army.list_summary` and
:mod:`dustsim.play.list_battles`; heavy modules are imported inside the command functions only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dustsim import DEFAULT_TRIALS, META_TRIALS
from dustsim.cli.shell import EXIT_BAD_INPUT, command, lazy_parser
from dustsim.errors import DustsimError


def _common(p, *, data: bool = True) -> None:
    p.add_argument("--points", type=float, help="points limit (overrides the list's)")
    p.add_argument("--catalogues", metavar="DIR",
                   help="BattleScribe catalogues for .ros/.rosz ids (default: "
                        "$DUSTSIM_BSDATA or ../shared/data/bsdata-dust1947)")
    if data:
        p.add_argument("--data", nargs="*", help="unit files or folders")


POLICY_FIELDS = ("approach", "passing", "reactive", "initiative", "allocation")
def _battle_options(p) -> None:
    from dustsim.play.list_battles import DEFAULT_DISTANCE, DEFAULT_TURNS

    p.add_argument("--distance", type=int, default=DEFAULT_DISTANCE,
                   help=f"squares between the armies at the start ({DEFAULT_DISTANCE})")
    p.add_argument("--turns", type=int, default=DEFAULT_TURNS,
                   help=f"turn limit ({DEFAULT_TURNS})")
    for name in POLICY_FIELDS:
        p.add_argument(f"--{name}", help=f"{name} policy of both sides (as `dustsim duel`; "
                                         f"default: the duel default)")
    p.add_argument("--seed", type=int, default=0)


@command
def _register_list(sub) -> None:
    p = sub.add_parser("list", help="army lists: check, show, play one against another, meta",
                       description="Army lists (Dust 1947) from a hand-written TOML file or a "
                                   "BattleScribe roster (.ros / .rosz).")
    ls = p.add_subparsers(dest="list_command", required=True, metavar="SUBCOMMAND")
    c = ls.add_parser("check", help="legality per the army-building rules; exit 2 if illegal")
    c.add_argument("files", nargs="+")
    _common(c)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_list_check)
    s = ls.add_parser("show", help="AP by kind/armour/faction, offence per column, "
                                   "durability, threat ranges, shares")
    s.add_argument("file")
    _common(s)
    s.add_argument("--no-durability", action="store_true", help="skip durability (faster)")
    s.add_argument("--chart", metavar="PNG", help="write the summary chart here")
    s.add_argument("--force", action="store_true", help="overwrite the chart file")
    s.add_argument("--json", action="store_true", help="tidy per unit x column table (JSON)")
    s.set_defaults(func=cmd_list_show)
    # vs and meta take their policy choices from the duel module: added on first use
    lazy_parser(ls, "vs", _vs_arguments, help="list A against list B: P(win), P(draw), AP "
                                              "exchanged, points left per turn")
    lazy_parser(ls, "meta", _meta_arguments, help="every list of a folder against every "
                                                  "other: matchup matrix and heatmap")


def _vs_arguments(v) -> None:
    v.add_argument("list_a")
    v.add_argument("list_b")
    _common(v)
    _battle_options(v)
    v.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                   help=f"games to play (default {DEFAULT_TRIALS:,})")
    v.add_argument("--curve-trials", type=int,
                   help="games per turn limit for the points-left curve (default trials/4)")
    v.add_argument("--threads", type=int, help="worker threads (default: all cores)")
    v.add_argument("--chart", metavar="PNG", help="write the points-left curve here")
    v.add_argument("--force", action="store_true", help="overwrite the chart file")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_list_vs)


def _meta_arguments(m) -> None:
    m.add_argument("folder")
    _common(m)
    _battle_options(m)
    m.add_argument("--trials", type=int, default=META_TRIALS,
                   help=f"games per pairing (default {META_TRIALS:,})")
    m.add_argument("--workers", type=int, default=0,
                   help="run on a local Dask cluster of this many processes")
    m.add_argument("--scheduler", help="run on the Dask cluster at this address")
    m.add_argument("--chart", metavar="PNG", help="write the heatmap here")
    m.add_argument("--force", action="store_true", help="overwrite the chart file")
    m.add_argument("--json", action="store_true", help="the tidy table as JSON records")
    m.set_defaults(func=cmd_list_meta)


def _check_knobs(args) -> None:
    """Every size knob within dustsim.limits' caps, before any work starts."""
    from dustsim.limits import check_int

    for knob, flag in (("trials", "trials"), ("trials", "curve_trials"), ("threads", "threads"),
                       ("workers", "workers"), ("seed", "seed"), ("distance", "distance"),
                       ("turns", "turns")):
        if hasattr(args, flag):
            check_int(getattr(args, flag), knob, "--" + flag.replace("_", "-"))


def _cards(args):
    from dustsim.cli.shell import _data_paths
    from dustsim.data.cards import load_cards

    return load_cards(_data_paths(getattr(args, "data", None)))


def _load(path: str, cards, args):
    from dustsim.army.lists import load_list

    return load_list(path, cards, points=args.points, catalogues=args.catalogues)


def _check_chart_path(args) -> Path | None:
    if not getattr(args, "chart", None):
        return None
    from dustsim.io import check_writable

    path = Path(args.chart)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise DustsimError("chart file must end in .png, .svg or .pdf", file=str(path),
                           field="--chart")
    check_writable(path, args.force)
    return path


def _save_chart(fig, path: Path) -> None:
    """Write a figure through a temporary sibling (no half-written file; dustsim.io)."""
    import io as _io

    import matplotlib.pyplot as plt

    from dustsim.io import atomic_write_bytes

    buf = _io.BytesIO()
    try:
        fig.savefig(buf, format=path.suffix.lstrip(".").lower(), bbox_inches="tight")
    finally:
        plt.close(fig)
    atomic_write_bytes(path, buf.getvalue(), force=True, what="--chart")  # checked before


def _policy(args):
    from dustsim.play.duel import DuelPolicy

    return DuelPolicy(**{k: getattr(args, k) for k in POLICY_FIELDS
                         if getattr(args, k) is not None})


def _prepare(args):
    """What show, vs and meta do first: the knobs and the chart path checked before any
    work, then the cards loaded."""
    _check_knobs(args)
    chart = _check_chart_path(args)
    return chart, _cards(args)


def cmd_list_check(args) -> int:
    from dustsim.army.lists import check

    cards = _cards(args)
    bad = 0
    out = []
    for f in args.files:
        lst = _load(f, cards, args)
        c = check(lst, cards)
        bad += not c.legal
        if args.json:
            out.append({"file": f, "name": lst.name, "legal": c.legal,
                        "ap_total": c.ap_total, "ap_paid": c.ap_paid, "points": lst.points,
                        "army_type": c.army_type, "free_hero_ap": c.free_hero_ap,
                        "violations": c.lines(), "notes": list(c.notes),
                        "platoons": [{"id": p.id, "chart": p.chart,
                                      "advantage": p.advantage,
                                      "advantage_active": p.advantage_active,
                                      "missing": list(p.missing)} for p in c.platoons]})
            continue
        state = "legal" if c.legal else f"ILLEGAL ({len(c.violations)} violation(s))"
        print(f"{f}: {lst.name}: {c.ap_paid:g}/{lst.points:g} AP paid, {c.army_type}: {state}")
        for line in c.lines():
            print(f"{f}: {line}")
        for p in c.platoons:
            if p.found:
                act = "active" if p.advantage_active else "not active"
                adv = p.advantage or "(not named in the chart)"
                print(f"{f}: platoon {p.id!r} ({p.chart}): advantage {adv} {act}")
        for n in c.notes:
            print(f"{f}: note: {n}", file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=1))
    return EXIT_BAD_INPUT if bad else 0


def cmd_list_show(args) -> int:
    from dustsim.army.list_summary import summarize

    chart, cards = _prepare(args)
    s = summarize(_load(args.file, cards, args), cards, durability=not args.no_durability)
    if args.json:
        print(s.to_frame().to_json(orient="records", indent=1))
    else:
        print(s.text())
        for v in s.legality.lines():
            print(f"violation: {v}")
    if chart is not None:
        from dustsim.review.list_charts import summary_chart

        _save_chart(summary_chart(s), chart)
    return 0


def cmd_list_vs(args) -> int:
    from dustsim.play.list_battles import play_lists

    chart, cards = _prepare(args)
    a, b = _load(args.list_a, cards, args), _load(args.list_b, cards, args)
    r = play_lists(a, b, trials=args.trials, seed=args.seed, distance=args.distance,
                   turns=args.turns, policy=_policy(args), threads=args.threads,
                   curve_trials=args.curve_trials,
                   progress=not args.json and sys.stderr.isatty())
    d = r.to_dict()
    if args.json:
        print(json.dumps(d, indent=1))
    else:
        print(f"A: {a.name} ({d['ap_a']:g} AP)\nB: {b.name} ({d['ap_b']:g} AP)\n"
              f"{args.distance} squares apart, up to {args.turns} turns; {r.trials:,} games, "
              f"seed {r.seed}")
        for label, k in (("A wins", "p_a_wins"), ("B wins", "p_b_wins"), ("draw", "p_draw"),
                         ("A destroys all", "p_a_annihilates"),
                         ("B destroys all", "p_b_annihilates")):
            print(f"  {label:<15} {d[k]:.4f} ± {d['se_' + k]:.4f}")
        print(f"  AP lost by A    {d['ap_lost_a']:.2f} ± {d['se_ap_lost_a']:.2f}")
        print(f"  AP lost by B    {d['ap_lost_b']:.2f} ± {d['se_ap_lost_b']:.2f}")
        print(f"  margin (B lost - A lost) {d['margin']:+.2f} ± {d['se_margin']:.2f} AP")
        print("  points left at the end of each turn (± se):")
        cv = r.curve.pivot(index="turn", columns="side", values=["ap_left", "se"])
        for t, row in cv.iterrows():
            print(f"    turn {t}: A {row[('ap_left', 'a')]:6.2f} ± {row[('se', 'a')]:.2f}   "
                  f"B {row[('ap_left', 'b')]:6.2f} ± {row[('se', 'b')]:.2f}")
        for n in d["notes"]:
            print(f"note: {n}", file=sys.stderr)
    if chart is not None:
        from dustsim.review.list_charts import points_curve

        _save_chart(points_curve(r.curve, title=f"{r.name_a} vs {r.name_b}"), chart)
    return 0


def cmd_list_meta(args) -> int:
    from dustsim.army.lists import list_files
    from dustsim.play.list_battles import meta, meta_matrix, meta_standings
    from dustsim.review.sweep import dask_client

    chart, cards = _prepare(args)
    files = list_files(args.folder)
    lists = [_load(str(f), cards, args) for f in files]
    with dask_client(args.workers, args.scheduler) as client:
        table = meta(lists, trials=args.trials, seed=args.seed, client=client,
                     distance=args.distance, turns=args.turns, policy=_policy(args),
                     progress=not args.json and sys.stderr.isatty())
    if args.json:
        print(table.to_json(orient="records", indent=1))
    else:
        import pandas as pd

        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(f"{len(lists)} lists, {args.trials:,} games per pairing, seed {args.seed}")
            print("P(row list wins) against the column list:")
            print(meta_matrix(table).to_string(float_format=lambda v: f"{v:.3f}"))
            print("\nAP margin (destroyed - lost) of the row list:")
            print(meta_matrix(table, "margin").to_string(float_format=lambda v: f"{v:+.1f}"))
            print("\nstandings:")
            print(meta_standings(table).to_string(index=False,
                                                  float_format=lambda v: f"{v:.3f}"))
    if chart is not None:
        from dustsim.review.list_charts import meta_heatmap

        _save_chart(meta_heatmap(meta_matrix(table)), chart)
    return 0
