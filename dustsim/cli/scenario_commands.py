"""The ``scenarios`` subcommand: the Dust 1947 scenarios 101-115 and their boards."""

from __future__ import annotations

import json
import sys

from dustsim.cli.shell import command


@command
def _register_scenarios(sub) -> None:
    p = sub.add_parser("scenarios", help="Dust 1947 scenarios: boards, turns, objectives, "
                                         "victory conditions",
                       description="List the rulebook's scenarios 101-115 (seed 003 "
                                   "L2388-3055), or show one with the board its seeded "
                                   "terrain generator draws.")
    p.add_argument("scenario", nargs="?", help="number or name of one scenario to show")
    p.add_argument("--seed", type=int, default=0,
                   help="terrain draw for the board shown (default 0)")
    p.add_argument("--variant", help="a variant of that scenario (e.g. 'Forest Road')")
    p.add_argument("--map", metavar="FILE",
                   help="check and show a board drawn in a TOML map file instead")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_scenarios)


def _detail(sc, seed: int, variant: str | None) -> dict:
    from dustsim.play import board as B
    from dustsim.play.scenarios import build_board

    sc = sc.with_variant(variant)
    board = build_board(sc, seed, variant)
    row = sc.summary()
    row["seed"] = seed
    row["variant"] = variant or ""
    row["terrain"] = [{"half": t.half, "pieces": list(t.pieces), "placed_by": t.placed_by,
                       "coverage": t.coverage, "count": t.count, "lines": t.lines}
                      for t in sc.terrain]
    row["deployment"] = {role: {"mode": d.mode, "area": d.area, "lines": d.lines}
                         for role, d in zip(("attacker", "defender"), sc.deployment,
                                            strict=True)}
    row["victory_lines"] = [v.lines for v in sc.victory]
    row["decisions"] = [{"topic": d.topic, "lines": d.lines, "decision": d.decision}
                        for d in sc.decisions]
    row["board_decisions"] = [{"topic": t, "decision": d} for t, d in B.BOARD_DECISIONS]
    row["board_map"] = B.board_text(board).split("\n")
    if board.height_level.any():
        row["levels"] = B.board_text(board, levels=True).split("\n")
    row["objective_squares"] = [int(s) for s in board.objectives]
    return row


def cmd_scenarios(args) -> int:
    from dustsim.limits import check_int
    from dustsim.play.scenarios import find_scenario, load_scenarios

    check_int(args.seed, "seed", "--seed")
    if args.map:
        return _show_map(args)
    if args.scenario is None:
        from dustsim.cli.shell import refuse_unused

        refuse_unused(args, {"--seed": "give a scenario to draw its board",
                             "--variant": "give a scenario to draw its board"})
        rows = [s.summary() for s in load_scenarios()]
        if args.json:
            json.dump({"scenarios": rows}, sys.stdout, indent=1)
            print()
            return 0
        for r in rows:
            print(f"{r['number']} {r['name']}: board {r['board']} ({r['edges']} edges), "
                  f"{r['turns']} turns, attacker {r['points']['attacker']} % / defender "
                  f"{r['points']['defender']} % ({r['lines']})")
            print(f"  objectives: {'; '.join(r['objectives']) or 'none'}")
            print(f"  victory: {'; '.join(r['victory'])}")
            if r["variants"]:
                print(f"  variants: {'; '.join(r['variants'])}")
        return 0
    row = _detail(find_scenario(args.scenario), args.seed, args.variant)
    if args.json:
        json.dump(row, sys.stdout, indent=1)
        print()
        return 0
    print(f"{row['number']} {row['name']} ({row['lines']}): board {row['board']}, "
          f"{row['turns']} turns; seed {row['seed']}"
          + (f", variant {row['variant']}" if row["variant"] else ""))
    pts = row["points"]
    print(f"  points: attacker {pts['attacker']} % ({pts['attacker_units']} units, reserve "
          f"{pts['attacker_reserve']}), defender {pts['defender']} % ({pts['defender_units']} "
          f"units, reserve {pts['defender_reserve']})")
    for role, d in row["deployment"].items():
        print(f"  {role}: {d['mode']} on {d['area']} ({d['lines']})")
    print(f"  objectives: {'; '.join(row['objectives']) or 'none'}")
    for v, lines in zip(row["victory"], row["victory_lines"], strict=True):
        print(f"  victory: {v} ({lines})")
    for d in row["decisions"]:
        print(f"  decision [{d['topic']}, {d['lines']}]: {d['decision']}")
    print("  board (row 0, the attacker's edge, at the bottom; * objective):")
    for line in row["board_map"]:
        print("    " + line)
    if "levels" in row:
        print("  height levels:")
        for line in row["levels"]:
            print("    " + line)
    return 0


def _show_map(args) -> int:
    from dustsim.cli.shell import refuse_unused
    from dustsim.play import board as B
    from dustsim.play.scenarios import board_from_toml

    refuse_unused(args, {"--seed": "a map file has no drawn terrain",
                         "--variant": "a map file has no variants"})
    if args.scenario is not None:
        from dustsim.errors import DustsimError

        raise DustsimError("give a scenario or --map, not both", field="--map")
    board = board_from_toml(args.map)
    row = {"name": board.name, "board": f"{board.width} x {board.height}",
           "objective_squares": [int(s) for s in board.objectives],
           "board_map": B.board_text(board).split("\n")}
    if args.json:
        json.dump(row, sys.stdout, indent=1)
        print()
        return 0
    print(f"{row['name']}: board {row['board']}, objectives {row['objective_squares']}")
    for line in row["board_map"]:
        print("    " + line)
    return 0
