"""The ``options`` subcommand: every rules option, its choices, defaults and sources."""

from __future__ import annotations

import json
import sys

from dustsim.cli.shell import command


@command
def _register_options(sub) -> None:
    p = sub.add_parser("options", help="rules options: choices, default per ruleset, sources",
                       description="List every open-question option of the rulesets (set "
                                   "them with `dustsim attack --option NAME=VALUE`) and the "
                                   "hit-allocation policies.")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_options)


def options_table() -> list[dict]:
    """One record per option: name, choices, default per ruleset, source lines, doc."""
    from dustsim.rules.rulesets import OPTIONS

    return [{"name": o.name, "choices": list(o.choices), "default": dict(o.default),
             "source": o.source, "doc": o.doc} for o in OPTIONS.values()]


def cmd_options(args) -> int:
    from dustsim.rules.attack import POLICIES

    rows = options_table()
    policies = {"choices": list(POLICIES), "default": POLICIES[0],
                "source": "RULES.md §3; dustsim.rules.attack.POLICIES",
                "flag": "--policy"}
    if args.json:
        json.dump({"options": rows, "allocation": policies}, sys.stdout, indent=1)
        print()
        return 0
    for r in rows:
        print(f"{r['name']}: {' | '.join(r['choices'])}")
        print("  default: " + ", ".join(f"{k} {v}" for k, v in r["default"].items()))
        print(f"  source:  {r['source']}")
        print(f"  {r['doc']}")
    print(f"allocation (--policy): {' | '.join(POLICIES)}; default {POLICIES[0]} "
          f"({policies['source']})")
    return 0


@command
def _register_skills(sub) -> None:
    p = sub.add_parser("skills", help="every skill and weapon rule: status in battles, lines, "
                                      "cards and AP carrying it",
                       description="Every skill and weapon rule printed on the bundled cards "
                                   "of an edition: its status in battles (played, attack only, "
                                   "not played, no effect on play) with the reason, the "
                                   "rulebook lines (seed 003 unless prefixed), the cards and "
                                   "the army points carrying it, and the share of the "
                                   "edition's AP on cards carrying a rule that changes play "
                                   "but that battles do not play (dustsim.rules.skills).")
    p.add_argument("--edition", default="dust-1947", help="edition (default dust-1947)")
    p.add_argument("--status", choices=("played", "attack only", "not played",
                                        "no effect on play"),
                   help="only rules with this status")
    p.add_argument("--data", nargs="*", help="unit files or folders (default: bundled)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_skills)


def cmd_skills(args) -> int:
    from dustsim.cli.shell import _data_paths
    from dustsim.data.cards import load_cards
    from dustsim.data.names import did_you_mean
    from dustsim.errors import DustsimError
    from dustsim.rules.skills import RULEBOOK_RULES, skills_table, unplayed_share

    cards = load_cards(_data_paths(args.data))
    eds = sorted({c.edition for c in cards})
    if args.edition not in eds:
        raise DustsimError(f"no cards of edition {args.edition!r}"
                           f"{did_you_mean(args.edition, eds)} (editions: {', '.join(eds)})",
                           field="--edition")
    rows = skills_table(cards, args.edition)
    if args.status:
        rows = [r for r in rows if r["status"] == args.status]
    total = unplayed_share(cards, args.edition)
    if args.json:
        book = [{"name": r.name, "kind": r.kind, "status": r.status, "reason": r.reason,
                 "lines": r.lines} for r in RULEBOOK_RULES if args.edition == "dust-1947"]
        json.dump({"edition": args.edition, "rules": rows, "total": total,
                   "rulebook": book}, sys.stdout, indent=1)
        print()
        return 0
    for r in rows:
        lines = r["lines"] or "no seed text"
        print(f"{r['name']} ({r['kind']}): {r['status']} -- {r['reason']} [{lines}]")
        if r["gap"] and r["gap_line"] == r["gap_board"] == r["gap"]:
            print(f"  not played: {r['gap']}")
        else:  # the engines differ: each one's own part (rules.skills.ENGINE_GAPS)
            for where, k in (("line", "gap_line"), ("board", "gap_board")):
                if r[k]:
                    print(f"  not played ({where}): {r[k]}")
        unknown = f", {len(r['ap_unknown'])} of unknown cost" if r["ap_unknown"] else ""
        print(f"  {len(r['cards'])} cards, {r['ap']:g} AP{unknown}: "
              + ", ".join(r["cards"][:8]) + (", ..." if len(r["cards"]) > 8 else ""))
    for r in RULEBOOK_RULES if args.edition == "dust-1947" else ():  # on no card
        print(f"{r.name} (rulebook, every unit): {r.status} -- {r.reason} [{r.lines}]")
    print(f"total ({args.edition}): {total['cards_unplayed']} of {total['cards']} cards "
          f"({total['share_cards']:.0%}) carrying {total['ap_unplayed']:g} of {total['ap']:g} "
          f"AP ({total['share_ap']:.1%}) have a rule that changes play and is not played in "
          f"battles (not played or attack only); 'not played' alone: "
          f"{total['ap_not_played']:g} AP ({total['share_ap_not_played']:.1%})")
    return 0
