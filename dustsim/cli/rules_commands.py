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
