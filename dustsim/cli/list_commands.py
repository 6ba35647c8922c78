"""The ``list`` command: check, show, play against another list, the meta of a folder.

A thin shell over :mod:`dustsim.army.lists`, :mod:`dustsim.army.list_summary` and
:mod:`dustsim.play.list_battles`; heavy modules are imported inside the command functions only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dustsim import BATTLE_TRIALS, DEFAULT_TRIALS, META_TRIALS
from dustsim.cli.shell import EXIT_BAD_INPUT, command, lazy_parser
from dustsim.errors import DustsimError, printable


def _common(p, *, data: bool = True) -> None:
    p.add_argument("--points", type=float, help="points limit (overrides the list's)")
    p.add_argument("--catalogues", metavar="DIR",
                   help="BattleScribe catalogues for .ros/.rosz ids (default: "
                        "$DUSTSIM_BSDATA or ../shared/data/bsdata-dust1947)")
    if data:
        p.add_argument("--data", nargs="*", help="unit files or folders")


POLICY_FIELDS = ("approach", "passing", "reactive", "initiative", "allocation")
LINE = "line"  # --scenario line: the former engine (one line, no board)


def _battle_options(p) -> None:
    from dustsim.play.list_battles import DEFAULT_DISTANCE, DEFAULT_TURNS
    from dustsim.play.policies import DEFAULT_POLICY, POLICIES

    p.add_argument("--scenario", default="101",
                   help="Dust 1947 scenario, number or name (`dustsim scenarios`; default 101 "
                        f"Firefight); '{LINE}': the former line engine (no board)")
    p.add_argument("--variant", default=None,
                   help="a printed variant of the scenario (`dustsim scenarios SCENARIO`), e.g. "
                        "'Reserves' for 111")
    p.add_argument("--reserve-policy", default="first", choices=("first", "none"),
                   help="what goes into a scenario's Reserve [#] (L3100-3104): 'first' every "
                        "eligible unit destroyed while placements are left (default), 'none'")
    p.add_argument("--policy", default=DEFAULT_POLICY,
                   help=f"battle policy of both sides: {', '.join(POLICIES)} (default "
                        f"{DEFAULT_POLICY}; dustsim/play/policies.py)")
    p.add_argument("--attacker", choices=("A", "B"),
                   help="list playing the scenario's attacker (default: drawn per game)")
    p.add_argument("--boards", type=int, default=4,
                   help="terrain draws of the scenario per call (4; games are spread over them)")
    p.add_argument("--distance", type=int, default=None,
                   help=f"--scenario {LINE} only: squares between the armies "
                        f"({DEFAULT_DISTANCE})")
    p.add_argument("--turns", type=int, default=None,
                   help=f"turn limit (default: the scenario's; {DEFAULT_TURNS} on the line)")
    for name in POLICY_FIELDS:
        p.add_argument(f"--{name}", help=f"--scenario {LINE} only: {name} policy of both "
                                         "sides (as `dustsim duel`)")
    p.add_argument("--seed", type=int, default=0)


def _line(args) -> bool:
    """The former line engine asked for (``--scenario line``); line-only options refused on
    the board."""
    if str(args.scenario).lower() == LINE:
        if getattr(args, "variant", None):
            raise DustsimError(f"--variant applies to a scenario's board, not to --scenario "
                               f"{LINE}", field="--variant")
        return True
    for flag in ("distance", *POLICY_FIELDS):
        if getattr(args, flag, None) is not None:
            raise DustsimError(f"--{flag} applies to the line engine only (--scenario {LINE})",
                               field=f"--{flag}")
    return False


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
    v.add_argument("--trials", type=int,
                   help=f"games to play (default {BATTLE_TRIALS:,} on a scenario's board, "
                        f"{DEFAULT_TRIALS:,} on the line)")
    v.add_argument("--curve-trials", type=int,
                   help="games per turn limit for the points-left curve (default trials/4)")
    v.add_argument("--threads", type=int, help="worker threads (default: all cores)")
    v.add_argument("--chart", metavar="PNG", help="write the points-left curve here")
    v.add_argument("--replay", metavar="FILE",
                   help="write one sampled game: FILE.html (the page) or FILE.json (the event "
                        "log)")
    v.add_argument("--force", action="store_true", help="overwrite the chart/replay file")
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


def _load(path: str, cards, args, *, play: bool = False):
    """A list file; ``play``: refused when a selection resolves to no card (vs, meta)."""
    from dustsim.army.lists import load_list, require_resolved

    lst = load_list(path, cards, points=args.points, catalogues=args.catalogues)
    return require_resolved(lst) if play else lst


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
        print(printable(f"{f}: {lst.name}: {c.ap_paid:g}/{lst.points:g} AP paid, "
                        f"{c.army_type}: {state}"))
        for line in c.lines():
            print(printable(f"{f}: {line}"))
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


def variant_name(scenario, variant: str | None) -> str | None:
    """The printed name of the scenario's variant ``variant`` (None without one), for the
    headers and JSON of the commands that play a board."""
    if not variant:
        return None
    from dustsim.play.scenarios import find_scenario

    v = find_scenario(scenario).variant(variant)
    return v.name + (" (not modelled)" if v.status == "not modelled" else "")


def _check_replay_path(args) -> Path | None:
    if not getattr(args, "replay", None):
        return None
    from dustsim.io import check_output_file

    path = Path(args.replay)
    if path.suffix.lower() not in (".html", ".htm", ".json"):
        raise DustsimError("the replay file must end in .html (the page) or .json (the event "
                           "log)", file=str(path), field="--replay")
    check_output_file(path, args.force, "--replay")
    return path


def cmd_list_vs(args) -> int:
    if args.trials is None:
        args.trials = DEFAULT_TRIALS if _line(args) else BATTLE_TRIALS
    if not _line(args):
        return _vs_board(args)
    from dustsim.play.list_battles import DEFAULT_DISTANCE, DEFAULT_TURNS, play_lists

    if getattr(args, "replay", None):
        raise DustsimError("--replay needs a board (a scenario, not --scenario line)",
                           field="--replay")
    chart, cards = _prepare(args)
    a, b = _load(args.list_a, cards, args, play=True), _load(args.list_b, cards, args, play=True)
    args.distance = DEFAULT_DISTANCE if args.distance is None else args.distance
    args.turns = DEFAULT_TURNS if args.turns is None else args.turns
    r = play_lists(a, b, trials=args.trials, seed=args.seed, distance=args.distance,
                   turns=args.turns, policy=_policy(args), threads=args.threads,
                   curve_trials=args.curve_trials,
                   progress=not args.json and sys.stderr.isatty())
    d = r.to_dict()
    if args.json:
        print(json.dumps(d, indent=1))
    else:
        print(f"A: {printable(a.name)} ({d['ap_a']:g} AP)\nB: {printable(b.name)} "
              f"({d['ap_b']:g} AP)\n"
              f"on a line, {args.distance} squares apart, up to {args.turns} turns; "
              f"{r.trials:,} games, seed {r.seed}")
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


def _vs_board(args) -> int:
    """``list vs`` on a scenario's board (dustsim.play.battle)."""
    from dustsim.play.battle import prepare, simulate_battle

    if args.curve_trials is not None:
        raise DustsimError("--curve-trials applies to the line engine only (on the board the "
                           "curve comes from the games themselves)", field="--curve-trials")
    chart, cards = _prepare(args)
    replay = _check_replay_path(args)
    a, b = _load(args.list_a, cards, args, play=True), _load(args.list_b, cards, args, play=True)
    spec = prepare(a, b, scenario=args.scenario, seed=args.seed, policy=args.policy,
                   attacker=args.attacker, turns=args.turns, boards=args.boards,
                   variant=args.variant, reserve_policy=args.reserve_policy)
    r = simulate_battle(spec, args.trials, args.seed, threads=args.threads,
                        progress=not args.json and sys.stderr.isatty())
    import numpy as np  # here, not at the top: `dustsim --help` loads this module

    d = r.to_dict()
    d["ap_a"] = float(np.nansum([spec.ap[u] for u in range(len(spec.names))
                                 if spec.sides[u] == 0]))
    d["ap_b"] = float(np.nansum([spec.ap[u] for u in range(len(spec.names))
                                 if spec.sides[u] == 1]))
    d["variant"] = variant_name(args.scenario, args.variant)
    if args.json:
        print(json.dumps(d, indent=1))
    else:
        variant = f", variant {d['variant']}" if d["variant"] else ""
        print(f"A: {a.name} ({d['ap_a']:g} AP)\nB: {b.name} ({d['ap_b']:g} AP)\n"
              f"scenario {d['scenario']}{variant}, board {d['board']}, {d['turns']} turns, "
              f"policy {d['policy']}; {r.trials:,} games, seed {r.seed}")
        for label, k in (("A wins", "p_a_wins"), ("B wins", "p_b_wins"), ("draw", "p_draw")):
            print(f"  {label:<15} {d[k]:.4f} ± {d['se_' + k]:.4f}")
        for side in ("A", "B"):
            parts = ", ".join(f"{k} {v:.3f}" for k, v in d["won_by"][side].items() if v)
            print(f"  {side} won by      {parts or '-'}")
        print(f"  VP of A         {d['vp_a']:.2f} ± {d['se_vp_a']:.2f}")
        print(f"  VP of B         {d['vp_b']:.2f} ± {d['se_vp_b']:.2f}")
        print(f"  AP lost by A    {d['ap_lost_a']:.2f} ± {d['se_ap_lost_a']:.2f}")
        print(f"  AP lost by B    {d['ap_lost_b']:.2f} ± {d['se_ap_lost_b']:.2f}")
        print(f"  mean turns      {d['mean_turns']:.2f}")
        print("  AP lost at the end of each turn (± se):")
        cv = r.curve().pivot(index="turn", columns="side", values=["ap_lost", "se"])
        for t, row in cv.iterrows():
            print(f"    turn {t}: A {row[('ap_lost', 'a')]:6.2f} ± {row[('se', 'a')]:.2f}   "
                  f"B {row[('ap_lost', 'b')]:6.2f} ± {row[('se', 'b')]:.2f}")
        for n in d["notes"]:
            print(f"note: {n}", file=sys.stderr)
    if chart is not None:
        from dustsim.review.list_charts import points_curve

        cv = r.curve()
        start = {"a": d["ap_a"], "b": d["ap_b"]}
        cv["ap_left"] = [start[s] - v for s, v in zip(cv["side"], cv["ap_lost"], strict=True)]
        cv["list"] = cv["side"].map({"a": a.name, "b": b.name})
        _save_chart(points_curve(cv, title=f"{a.name} vs {b.name}"), chart)
    if replay is not None:
        from dustsim.play.battle import event_log
        from dustsim.review.replay import write_replay

        write_replay(event_log(spec, args.seed), replay, force=args.force)
    return 0


def cmd_list_meta(args) -> int:
    from dustsim.army.lists import list_files
    from dustsim.play.list_battles import meta, meta_matrix, meta_standings
    from dustsim.review.sweep import dask_client

    line = _line(args)
    chart, cards = _prepare(args)
    files = list_files(args.folder)
    lists = [_load(str(f), cards, args, play=True) for f in files]
    with dask_client(args.workers, args.scheduler) as client:
        if line:
            from dustsim.play.list_battles import DEFAULT_DISTANCE, DEFAULT_TURNS

            table = meta(lists, trials=args.trials, seed=args.seed, client=client,
                         distance=args.distance or DEFAULT_DISTANCE,
                         turns=args.turns or DEFAULT_TURNS, policy=_policy(args),
                         progress=not args.json and sys.stderr.isatty())
        else:
            from dustsim.play.battle import battle_meta

            table = battle_meta(lists, trials=args.trials, seed=args.seed, client=client,
                                scenario=args.scenario, policy=args.policy,
                                attacker=args.attacker, turns=args.turns,
                                boards=args.boards, variant=args.variant,
                                reserve_policy=args.reserve_policy,
                                progress=not args.json and sys.stderr.isatty())
    if args.json:
        print(table.to_json(orient="records", indent=1))
    else:
        import pandas as pd

        with pd.option_context("display.width", 200, "display.max_columns", 20):
            variant = variant_name(args.scenario, None if line else args.variant)
            where = "the line" if line else f"scenario {table['scenario'].iloc[0]}" + (
                f", variant {variant}" if variant else "")
            print(f"{len(lists)} lists on {where}, {args.trials:,} games per pairing, seed "
                  f"{args.seed}")
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
