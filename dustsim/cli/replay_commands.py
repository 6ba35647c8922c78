"""The ``replay`` subcommand: check a battle's event log, write its replay page or picture."""

from __future__ import annotations

from pathlib import Path

from dustsim.cli.shell import command, refuse_unused
from dustsim.errors import DustsimError

CHART_FORMATS = (".png", ".svg", ".pdf")


@command
def _register_replay(sub) -> None:
    p = sub.add_parser(
        "replay", help="check a battle's event log (JSON); write its replay page",
        description="Check a battle's event log (the JSON that `--replay FILE.json` writes) "
                    "against the log contract and itself; with --rules, every attack's range, "
                    "line of sight and cover against the board's geometry; write it as one "
                    "self-contained page (-o game.html), as JSON again (-o game.json), or the "
                    "board as a picture (--chart board.png|svg|pdf, units after --step).")
    p.add_argument("log", help="the event log (.json)")
    p.add_argument("-o", "--out", help="write the replay page (.html) or the log (.json)")
    p.add_argument("--rules", action="store_true",
                   help="also check each attack on the log's own board (range, sight, cover)")
    p.add_argument("--no-wrecks", action="store_true",
                   help="with --rules: destroyed vehicles do not block sight (a battle that "
                        "does not play wrecks, L486)")
    p.add_argument("--chart", help="write the board picture (.png, .svg or .pdf)")
    p.add_argument("--step", type=int, default=None,
                   help="for --chart: the units after this many events (default: the end)")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    from dustsim.io import atomic_write_bytes, check_output_file
    from dustsim.review.replay import read_replay, write_replay

    if args.chart is None:
        refuse_unused(args, {"--step": "it picks the step of --chart; no --chart given"})
    if not args.rules:
        refuse_unused(args, {"--no-wrecks": "it changes the --rules check; no --rules given"})
    if args.out is None and args.chart is None:
        refuse_unused(args, {"--force": "it replaces an existing output; no -o or --chart"})
    chart = Path(args.chart) if args.chart else None
    if chart is not None:
        if chart.suffix.lower() not in CHART_FORMATS:
            raise DustsimError(f"{str(chart)!r} must end in one of {', '.join(CHART_FORMATS)}",
                               field="--chart")
        check_output_file(chart, args.force, "--chart")
    log = read_replay(args.log)
    if args.step is not None and not 0 <= args.step <= len(log["events"]):
        raise DustsimError(f"--step {args.step} is not 0..{len(log['events'])} (the log's "
                           "events)", field="--step")
    if args.rules:
        from dustsim.review.replay_rules import check_log_on_board

        try:
            check_log_on_board(log, wrecks=not args.no_wrecks)
        except DustsimError as e:
            raise DustsimError(f"{args.log}: {e}") from None
    if args.out:
        write_replay(log, args.out, force=args.force, what="--out")
    if chart is not None:
        import io

        from dustsim.review.board_chart import board_figure

        buf = io.BytesIO()
        board_figure(log, step=args.step).savefig(buf, format=chart.suffix[1:].lower(),
                                                   dpi=150)
        atomic_write_bytes(chart, buf.getvalue(), force=args.force, what="--chart")
    if not args.quiet:
        r = log["result"]
        sc = log["scenario"]
        rules = "rules ok" + (" (wrecks not blocking)" if args.no_wrecks else "")
        what = [f"{len(log['events'])} events", "contract ok"] + ([rules] if args.rules else [])
        print(f"{args.log}: scenario {sc.get('number', '')} {sc.get('name', '')}, "
              f"{r['winner']} by {r['won_by']}; " + ", ".join(what)
              + (f"; wrote {args.out}" if args.out else "")
              + (f"; wrote {args.chart}" if args.chart else ""))
    return 0
