"""Command line: a thin shell over the library, with one error boundary (:func:`main`).

Exit codes: 0 done; 2 bad input or an impossible request (one line ``dustsim: error: ...``);
130 interrupted by Ctrl-C (SIGINT), 143 by SIGTERM (``timeout``, CI, ``docker stop``), both
with no partial output kept; 1 a bug in dustsim (one line; the traceback with ``--debug``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import DustsimError

EXIT_BAD_INPUT = 2


def _data_paths(paths: Sequence[str] | None) -> list[Path]:
    from .cards import default_data_dir

    return [Path(p) for p in paths] if paths else [default_data_dir()]


# -- validate / cards -------------------------------------------------------------------------
def cmd_validate(args) -> int:
    from .cards import skill_warnings, validate

    cards, problems = validate(_data_paths(args.paths))
    for p in problems:
        print(str(p), file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in unit data", file=sys.stderr)
        return EXIT_BAD_INPUT
    warnings = skill_warnings(cards)
    if args.warnings:
        for w in warnings:
            print(w, file=sys.stderr)
    complete = sum(c.complete for c in cards)
    print(f"ok: {len(cards)} cards valid ({complete} complete, {len(cards) - complete} partial)"
          + (f"; {len(warnings)} carry skills the engines do not model (--warnings lists "
             "them)" if warnings and not args.warnings else ""))
    return 0


def cmd_cards(args) -> int:
    from .cards import load_cards
    from .views import card_json, card_text, cards_table

    cards = load_cards(_data_paths(args.data))
    sel = [c for c in cards
           if (args.edition is None or c.edition == args.edition)
           and (args.bloc is None or c.bloc.lower() == args.bloc.lower())
           and (args.name is None or args.name.lower() in c.name.lower())]
    if args.edition and not any(c.edition == args.edition for c in cards):
        raise DustsimError(f"no cards of edition {args.edition!r}", field="--edition")
    if args.json:
        json.dump([card_json(c) for c in sel], sys.stdout, indent=1, ensure_ascii=False)
        print()
    elif args.name and len(sel) <= 5:
        for c in sel:
            print(card_text(c))
            print()
        if not sel:
            raise DustsimError(f"no card matches {args.name!r}", field="name")
    else:
        print(cards_table(sel))
    return 0


# -- importers -----------------------------------------------------------------------------------
def _write_tree(texts: dict[str, str], out: Path, force: bool) -> None:
    """Write all files or none: into a temporary folder, then moved into place."""
    from .io import atomic_dir

    with atomic_dir(out, force=force, what="--output") as tmp:
        for rel, text in texts.items():
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8", newline="\n")
        # the gate: nothing is written that `dustsim validate` would refuse
        from .cards import validate

        _, problems = validate([tmp])
        if problems:
            where = str(problems[0]).replace(str(tmp), str(out))
            raise DustsimError(f"the import would write invalid data ({len(problems)} "
                               f"problem(s)), nothing written; first: {where}")


def cmd_import_battlescribe(args) -> int:
    from .importers.battlescribe import import_battlescribe
    from .io import check_output_dir

    check_output_dir(Path(args.output), args.force, "--output")

    texts, report = import_battlescribe(args.files)
    for line in report.unparsed:
        print(f"warning: {line}", file=sys.stderr)
    _write_tree(texts, Path(args.output), args.force)
    print(f"wrote {report.cards} cards to {args.output} ({', '.join(report.files)}); "
          f"models inferred for {report.inferred} squads; {len(report.unparsed)} cells "
          f"unparsed; {report.blank_cells} blank cells written '-'")
    return 0


def cmd_import_facts(args) -> int:
    from .importers.facts import import_facts
    from .io import check_output_dir

    check_output_dir(Path(args.output), args.force, "--output")

    texts, notes, cards = import_facts(args.csv)
    if args.verbose:
        for n in notes:
            print(n, file=sys.stderr)
    _write_tree(texts, Path(args.output), args.force)
    print(f"wrote {len(cards)} partial or complete cards and the Epic figures to "
          f"{args.output}; {len(notes)} rows set aside (Dust Warfare, totals)")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (exit 2) instead of the whole usage block."""

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"dustsim: error: {self.prog}: {' '.join(message.split())} "
                                  f"(see {self.prog} --help)\n")


# -- parser ---------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = _Parser(
        prog="dustsim",
        description="Monte Carlo and exact combat analytics for the Dust wargames.")
    p.add_argument("--version", action="version", version=f"dustsim {__version__}")
    p.add_argument("--debug", action="store_true",
                   help="print the traceback of an internal error (anywhere on the line)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    v = sub.add_parser("validate", help="check unit files; exit 2 on any problem")
    v.add_argument("paths", nargs="*", help="files or folders (default: bundled unit_data)")
    v.add_argument("--warnings", action="store_true",
                   help="list each card carrying a known skill the engines do not model")
    v.set_defaults(func=cmd_validate)

    c = sub.add_parser("cards", help="list cards or show one as printed")
    c.add_argument("name", nargs="?", help="show cards whose name contains this")
    c.add_argument("--edition")
    c.add_argument("--bloc")
    c.add_argument("--json", action="store_true", help="one JSON object per card")
    c.add_argument("--data", nargs="*", help="unit files or folders")
    c.set_defaults(func=cmd_cards)

    imp = sub.add_parser("import", help="convert source data into unit files")
    isub = imp.add_subparsers(dest="source", required=True)
    bs = isub.add_parser("battlescribe", help="BattleScribe .gst/.cat XML")
    bs.add_argument("files", nargs="+")
    bs.add_argument("-o", "--output", required=True, help="output folder")
    bs.add_argument("--force", action="store_true", help="replace an existing folder")
    bs.set_defaults(func=cmd_import_battlescribe)
    fa = isub.add_parser("facts", help="documented facts CSV (older editions, Epic)")
    fa.add_argument("csv")
    fa.add_argument("-o", "--output", required=True)
    fa.add_argument("--force", action="store_true")
    fa.add_argument("-v", "--verbose", action="store_true")
    fa.set_defaults(func=cmd_import_facts)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return p


_EXTRA_COMMANDS: list = []


class _LazyParser:
    """Mixin: a subcommand parser whose arguments are added on first use (see
    :func:`lazy_parser`); combined with the subparsers' own parser class."""

    def __init__(self, *args, populate=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._populate = populate

    def _ensure(self) -> None:
        populate, self._populate = self._populate, None
        if populate is not None:
            populate(self)

    def parse_known_args(self, args=None, namespace=None):
        self._ensure()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._ensure()
        return super().format_help()


def lazy_parser(sub, name: str, populate, **kwargs) -> argparse.ArgumentParser:
    """Register subcommand ``name`` whose arguments ``populate(parser)`` adds only when that
    subcommand is parsed: its imports (choices from heavy modules) stay out of ``--help`` and
    of every other command."""
    saved = sub._parser_class
    sub._parser_class = type("LazyParser", (_LazyParser, saved), {})
    try:
        return sub.add_parser(name, populate=populate, **kwargs)
    finally:
        sub._parser_class = saved


def command(register):
    """Decorator for modules that add subcommands."""
    _EXTRA_COMMANDS.append(register)
    return register


EXIT_BUG = 1
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every ``finally`` and temporary folder is cleaned."""


def _on_sigterm(signum, frame):
    raise Terminated


def _install_sigterm() -> None:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


def _say(text: str) -> None:
    with _suppress():
        print(text, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; never raises (except SystemExit from argparse: exit 2)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    _install_sigterm()
    try:
        from . import (
            commands,  # noqa: F401  (registers attack, bench, report)
            list_commands,  # noqa: F401  (registers list)
            rules_commands,  # noqa: F401  (registers options)
        )

        parser = build_parser()
        args = parser.parse_args(argv)
        from .limits import check_args

        check_args(args)
        return int(args.func(args) or 0)
    except DustsimError as exc:
        _say(f"dustsim: error: {exc}")
        return EXIT_BAD_INPUT
    except Terminated:
        _say("dustsim: terminated; no partial output was kept")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _say("dustsim: interrupted; no partial output was kept")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        import os

        with _suppress():  # stdout closed by the reader (| head): quietly done
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MemoryError:
        _say("dustsim: error: out of memory; ask for less (fewer trials, units or figures)")
        return EXIT_BAD_INPUT
    except RecursionError:
        _say("dustsim: error: input nested too deeply")
        return EXIT_BAD_INPUT
    except SystemExit:
        raise
    except Exception as exc:
        if debug:
            import traceback

            traceback.print_exc()
        msg = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        _say(f"dustsim: internal error (a bug, please report it): {msg}"
             + ("" if debug else "; re-run with --debug for the traceback"))
        return EXIT_BUG


def _suppress():
    import contextlib

    return contextlib.suppress(OSError, ValueError)
