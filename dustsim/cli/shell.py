"""Command line: a thin shell over the library, with one error boundary (:func:`main`).

Exit codes: 0 done; 2 bad input or an impossible request (one line ``dustsim: error: ...``);
130 interrupted by Ctrl-C (SIGINT), 143 by SIGTERM (``timeout``, CI, ``docker stop``), both
with no partial output kept; 1 a bug in dustsim (one line; the traceback with ``--debug``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from dustsim.errors import DustsimError

EXIT_BAD_INPUT = 2


def _data_paths(paths: Sequence[str] | None) -> list[Path]:
    from dustsim.data.cards import default_data_dir

    return [Path(p) for p in paths] if paths else [default_data_dir()]


# -- validate / cards -------------------------------------------------------------------------
def cmd_validate(args) -> int:
    from dustsim.data.cards import validate
    from dustsim.rules.skills import skill_warnings

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
          + (f"; {len(warnings)} carry rules the battles do not play (--warnings lists "
             "them)" if warnings and not args.warnings else ""))
    from dustsim.data.views import data_summary

    print(data_summary(cards, verbose=getattr(args, "verbose", False)))
    return 0


def cmd_cards(args) -> int:
    from dustsim.data.cards import load_cards
    from dustsim.data.names import did_you_mean, fold
    from dustsim.data.views import card_json, card_text, cards_table

    cards = load_cards(_data_paths(args.data))
    if args.edition and not any(c.edition == args.edition for c in cards):
        eds = sorted({c.edition for c in cards})
        raise DustsimError(f"no cards of edition {args.edition!r}{did_you_mean(args.edition, eds)}"
                           f" (editions: {', '.join(eds)})", field="--edition")
    blocs = sorted({c.bloc for c in cards if args.edition is None or c.edition == args.edition})
    if args.bloc is not None and fold(args.bloc) not in {fold(b) for b in blocs}:
        raise DustsimError(f"no bloc {args.bloc!r}{did_you_mean(args.bloc, blocs)} (blocs: "
                           f"{', '.join(blocs)})", field="--bloc")
    sel = [c for c in cards
           if (args.edition is None or c.edition == args.edition)
           and (args.bloc is None or fold(c.bloc) == fold(args.bloc))
           and (args.name is None or fold(args.name) in fold(c.name))]
    if args.name and not sel:
        pool = [c.name for c in cards if args.edition is None or c.edition == args.edition]
        raise DustsimError(f"no card matches {args.name!r}{did_you_mean(args.name, pool)}",
                           field="name")
    if args.name:
        sel = sorted(sel, key=lambda c: _card_order(c, args.name))
    if args.json:
        json.dump([card_json(c) for c in sel], sys.stdout, indent=1, ensure_ascii=False)
        print()
    elif args.name and len(sel) <= 5:
        shown, partial = sel, []
        if args.edition is None and any(c.complete for c in sel):
            # the complete cards in full; an older edition's partial copy (mostly '?') in
            # one line, with the flag that shows it
            shown = [c for c in sel if c.complete or c.edition == DEFAULT_EDITION]
            partial = [c for c in sel if c not in shown]
        for c in shown:
            print(card_text(c))
            print()
        for c in partial:
            print(f"also: {c.name}  [{c.edition}, {c.bloc}], a partial card (unknown "
                  f"figures): dustsim cards {json.dumps(c.name)} --edition {c.edition}")
    else:
        print(cards_table(sel))
    return 0


DEFAULT_EDITION = "dust-1947"


def _card_order(card, name: str) -> tuple:
    """Search order of ``cards NAME``: the exact name first, then the default edition's and
    complete cards, then the rest by name."""
    from dustsim.data.names import fold

    return (fold(card.name) != fold(name), not card.complete,
            card.edition != DEFAULT_EDITION, fold(card.name), card.edition)


# -- importers -----------------------------------------------------------------------------------
def _write_tree(texts: dict[str, str], out: Path, force: bool) -> None:
    """Write all files or none: into a temporary folder, then moved into place."""
    from dustsim.io import atomic_dir

    with atomic_dir(out, force=force, what="--output") as tmp:
        from dustsim.data.importers.paths import inside

        for rel, text in texts.items():
            dest = inside(tmp, rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8", newline="\n")
        # the gate: nothing is written that `dustsim validate` would refuse
        from dustsim.data.cards import validate

        _, problems = validate([tmp])
        if problems:
            where = str(problems[0]).replace(str(tmp), str(out))
            raise DustsimError(f"the import would write invalid data ({len(problems)} "
                               f"problem(s)), nothing written; first: {where}")


def cmd_import_battlescribe(args) -> int:
    from dustsim.data.importers.battlescribe import import_battlescribe
    from dustsim.io import check_output_dir

    check_output_dir(Path(args.output), args.force, "--output")

    texts, report = import_battlescribe(args.files)
    for line in report.unparsed:
        print(f"warning: {line}", file=sys.stderr)
    _write_tree(texts, Path(args.output), args.force)
    print(f"wrote {report.cards} cards to {args.output} ({', '.join(report.files)}); "
          f"models inferred for {report.inferred} squads; {len(report.unparsed)} cells "
          f"unparsed; {report.blank_cells} blank cells written '-'")
    return 0


def cmd_import_dust1947(args) -> int:
    from dustsim.data.importers.dust1947 import (
        conflict_size,
        enlist_platoons_text,
        merge_dust1947,
        unmatched,
    )

    m = merge_dust1947(args.battlescribe, args.enlist, prefer=args.prefer)
    r = m.report
    if args.unmatched:
        for line in unmatched(m):
            print(line)
        print(f"{len(r.enlist_only)} ENLIST entries and {len(r.battlescribe_only)} "
              "BattleScribe entries unmatched (kept as their own cards, never guessed)")
        return 0
    if args.conflicts:
        for name, c in sorted(r.conflicts, key=lambda t: (-conflict_size(t[1]), t[0])):
            print(f"{name}: {c.field}: {c.used} used ({c.used_source}); "
                  f"{c.other} not ({c.other_source})")
        print(f"{len(r.conflicts)} conflicts; values used from {args.prefer}")
        return 0
    if not args.output:
        raise DustsimError("give -o/--output (or --unmatched / --conflicts)", field="--output")
    platoons = enlist_platoons_text(m) if args.platoons else None
    if args.platoons:
        from dustsim.io import check_writable

        check_writable(Path(args.platoons), args.force)
    _write_tree(m.texts, Path(args.output), args.force)
    if platoons is not None:
        from dustsim.io import atomic_write_text

        atomic_write_text(args.platoons, platoons, force=args.force)
    for line in r.unparsed:
        print(f"note: BattleScribe {line}", file=sys.stderr)
    print(f"wrote {r.cards} cards to {args.output} ({', '.join(r.files)}): {r.matched} "
          f"matched, {r.copies} faction copies, {len(r.enlist_only)} ENLIST only, "
          f"{len(r.battlescribe_only)} BattleScribe only; {len(r.conflicts)} conflicts "
          f"(values from {args.prefer}); {len(r.errata)} errata; {r.inferred} squad sizes "
          f"inferred; {len(r.tokens)} tokens left out"
          + (f"; platoon charts to {args.platoons}" if args.platoons else ""))
    return 0


def cmd_import_enlist(args) -> int:
    from dustsim.data.cards import dumps_unit_file
    from dustsim.data.importers.enlist import enlist_cards, read_enlist

    data = read_enlist(args.folder)
    pairs, tokens = enlist_cards(data)
    per_bloc: dict[str, list] = {}
    for _, c in pairs:
        per_bloc.setdefault(c.bloc, []).append(c)
    from dustsim.data.importers.paths import bloc_file

    texts = {}
    for bloc, cards in per_bloc.items():
        fname = bloc_file(bloc, file=str(Path(args.folder) / "units.jsonl"), unit=cards[0].name)
        if fname in texts:
            raise DustsimError(f"two blocs would both be written as {fname!r}; the extract "
                               "spells one bloc two ways", file=str(Path(args.folder) /
                                                                    "units.jsonl"),
                               unit=cards[0].name, field="bloc")
        header = {"edition": "dust-1947", "bloc": bloc,
                  "source": "DUST ENLIST 1.50 extract (github:heimatt-git/"
                            f"dust-infinite-army-builder@{data.revision[:7]} data/units.json)",
                  "revision": data.revision}
        texts[fname] = dumps_unit_file(
            cards, header, "Generated by `dustsim import enlist` (ENLIST side alone).\n"
            "Names, numbers and rule names only.")
    _write_tree(texts, Path(args.output), args.force)
    print(f"wrote {len(pairs)} cards to {args.output} ({', '.join(sorted(texts))}); "
          f"{len(tokens)} tokens left out (not units)")
    return 0


def cmd_import_facts(args) -> int:
    from dustsim.data.importers.facts import import_facts
    from dustsim.io import check_output_dir

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
    """argparse with a one-line error (exit 2) instead of the whole usage block, and the
    closest command or option offered for a typo."""

    def error(self, message: str):
        message = " ".join(message.split())
        choice = _INVALID_CHOICE.search(message)
        if choice:
            from dustsim.data.names import did_you_mean

            message += did_you_mean(choice["value"], _QUOTED.findall(choice["choices"]), 1)
        where = "" if self.prog == "dustsim" else f"{self.prog}: "
        self.exit(EXIT_BAD_INPUT, f"dustsim: error: {where}{message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):
        """As argparse, but an unknown option names the closest options of the command."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            from dustsim.data.names import closest

            known, parser, last = [], self, self
            while parser is not None:  # the chain of parsers the line went through
                # long options only: a short one (-h) is a poor guess for a long word
                known += [o for a in parser._actions for o in a.option_strings
                          if o.startswith("--") and o != "--help"]
                last, parser = parser, _chosen_subparser(parser, ns)
            hints = {}
            for word in extras:
                near = closest(word, known, 1, cutoff=70.0) if word.startswith("-") else []
                if near:
                    hints[word] = near[0]
            if len(hints) == 1:
                hint = f"; did you mean {next(iter(hints.values()))}?"
            else:
                hint = "".join(f"; {w}: did you mean {o}?" for w, o in hints.items())
            last.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return ns


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<value>[^']*)' \(choose from (?P<choices>.*)\)")
_QUOTED = re.compile(r"'([^']*)'")


def _chosen_subparser(parser: argparse.ArgumentParser, ns) -> argparse.ArgumentParser | None:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a.choices.get(getattr(ns, a.dest, None) or "")
    return None


# -- parser ---------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    from dustsim import __version__

    p = _Parser(
        prog="dustsim",
        description="Monte Carlo and exact combat analytics for the Dust wargames.")
    p.add_argument("--version", action="version", version=f"dustsim {__version__}")
    p.add_argument("--debug", action="store_true",
                   help="print the traceback of an internal error (anywhere on the line)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    v = sub.add_parser("validate", help="check unit files; exit 2 on any problem")
    v.add_argument("paths", nargs="*", help="files or folders (default: bundled unit_data)")
    v.add_argument("-v", "--verbose", action="store_true",
                   help="list every conflict, erratum, inferred size and skill name")
    v.add_argument("--warnings", action="store_true",
                   help="list each card carrying a rule the battles do not play (`dustsim skills`)")
    v.set_defaults(func=cmd_validate)

    c = sub.add_parser("cards", help="list cards or show one as printed")
    c.add_argument("name", nargs="?", help="show cards whose name contains this")
    c.add_argument("--edition")
    c.add_argument("--bloc")
    c.add_argument("--json", action="store_true",
                   help="a JSON array with one object per selected card (every field, the "
                        "weapon lines as printed, source and revision)")
    c.add_argument("--data", nargs="*", help="unit files or folders")
    c.set_defaults(func=cmd_cards)

    imp = sub.add_parser("import", help="convert source data into unit files")
    isub = imp.add_subparsers(dest="source", required=True)
    bs = isub.add_parser("battlescribe", help="BattleScribe .gst/.cat XML")
    bs.add_argument("files", nargs="+")
    bs.add_argument("-o", "--output", required=True, help="output folder")
    bs.add_argument("--force", action="store_true", help="replace an existing folder")
    bs.set_defaults(func=cmd_import_battlescribe)
    d47 = isub.add_parser("dust-1947", help="Dust 1947: BattleScribe and DUST ENLIST merged",
                          description="Merge the BattleScribe catalogues and the DUST ENLIST "
                          "extract into one file per bloc (see README, unit data).")
    d47.add_argument("--battlescribe", required=True, metavar="DIR",
                     help="BSData dust1947 folder (.gst and .cat)")
    d47.add_argument("--enlist", required=True, metavar="DIR",
                     help="DUST ENLIST extract (units.jsonl, platoons.jsonl, blocs.jsonl)")
    d47.add_argument("-o", "--output", help="output folder (e.g. unit_data/dust-1947)")
    d47.add_argument("--platoons", metavar="FILE",
                     help="also write the ENLIST platoon charts to FILE")
    d47.add_argument("--prefer", choices=("enlist", "battlescribe"), default="enlist",
                     help="source whose value is used where they disagree (default: enlist)")
    d47.add_argument("--force", action="store_true", help="replace existing output")
    d47.add_argument("--unmatched", action="store_true",
                     help="list entries of either source that nothing matched; write nothing")
    d47.add_argument("--conflicts", action="store_true",
                     help="list every conflict, largest first; write nothing")
    d47.set_defaults(func=cmd_import_dust1947)
    en = isub.add_parser("enlist", help="DUST ENLIST extract alone (one file per bloc)")
    en.add_argument("folder")
    en.add_argument("-o", "--output", required=True)
    en.add_argument("--force", action="store_true")
    en.set_defaults(func=cmd_import_enlist)
    fa = isub.add_parser("facts", help="documented facts CSV (older editions, Epic)")
    fa.add_argument("csv")
    fa.add_argument("-o", "--output", required=True)
    fa.add_argument("--force", action="store_true")
    fa.add_argument("-v", "--verbose", action="store_true")
    fa.set_defaults(func=cmd_import_facts)

    for register in _EXTRA_COMMANDS:
        register(sub)
    _add_quiet(sub)
    return p


def _add_quiet(sub) -> None:
    """Every command (and sub-command) takes --quiet; a command that has its own keeps it."""
    for parser in dict.fromkeys(sub.choices.values()):
        nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for a in nested:
            _add_quiet(a)
        if not nested and "--quiet" not in parser._option_string_actions:
            parser.add_argument("--quiet", action="store_true",
                                help="no progress bars (they are shown only on a terminal)")


def given(args, option: str) -> bool:
    """Whether the user typed ``option`` (not merely got its default)."""
    return any(a == option or a.startswith(option + "=") for a in getattr(args, "argv_", ()))


def refuse_unused(args, unused: dict[str, str]) -> None:
    """One-line error for an option typed where it would do nothing: ``{option: why}``."""
    for option, why in unused.items():
        if given(args, option):
            raise DustsimError(f"does nothing here: {why}", field=option)


def progress_wanted(args) -> bool:
    """Progress bars only on a terminal, and never with --quiet or --json."""
    return (not getattr(args, "quiet", False) and not getattr(args, "json", False)
            and sys.stderr.isatty())


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
    try:
        return _main(argv)
    except Terminated:  # a second signal while the first was being reported
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def entry() -> None:
    """The ``dustsim`` script and ``python -m dustsim``: :func:`main`, then exit with its code.
    Once the command has answered, a Ctrl-C or SIGTERM that lands while Python shuts down is
    ignored, so the exit code is the documented one (it was -2 or -15 there)."""
    import signal

    code = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(code)


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    _install_sigterm()
    if "dustsim.io" in sys.modules:  # this run's outputs only (tests call main() again)
        sys.modules["dustsim.io"].PUBLISHED.clear()
    try:
        from dustsim.cli import (
            commands,  # noqa: F401  (registers attack, bench, report)
            list_commands,  # noqa: F401  (registers list)
            replay_commands,  # noqa: F401  (registers replay)
            rules_commands,  # noqa: F401  (registers options)
            scenario_commands,  # noqa: F401  (registers scenarios)
        )

        parser = build_parser()
        if not argv:  # bare `dustsim`: the commands, not an error
            print(parser.format_help())
            return 0
        args = parser.parse_args(argv)
        args.argv_ = tuple(argv)
        from dustsim.limits import check_args

        check_args(args)
        return int(args.func(args) or 0)
    except DustsimError as exc:
        _say(f"dustsim: error: {exc}")
        return EXIT_BAD_INPUT
    except Terminated:
        _say(f"dustsim: terminated; {_kept()}")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _say(f"dustsim: interrupted; {_kept()}")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        import os

        with _suppress():  # stdout closed by the reader (| head): quietly done
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # the file system said no: a name too long, no permission, full
        where = f"{exc.filename}: " if exc.filename else ""
        _say(f"dustsim: error: {where}{exc.strerror or exc}")
        return EXIT_BAD_INPUT
    except MemoryError:
        _say("dustsim: error: out of memory; ask for less (fewer trials, units or figures)")
        return EXIT_BAD_INPUT
    except RecursionError:
        _say("dustsim: error: input nested too deeply")
        return EXIT_BAD_INPUT
    except SystemExit:
        raise
    except Exception as exc:
        signal_exc = _signal_behind(exc)
        if signal_exc is not None:  # a cleanup step failed while a signal unwound (matplotlib)
            terminated = isinstance(signal_exc, Terminated)
            _say(f"dustsim: {'terminated' if terminated else 'interrupted'}; {_kept()}")
            return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
        if debug:
            import traceback

            traceback.print_exc()
        msg = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        _say(f"dustsim: internal error (a bug, please report it): {msg}"
             + ("" if debug else "; re-run with --debug for the traceback"))
        return EXIT_BUG


def _kept() -> str:
    """What an interrupted run leaves: nothing partial, and any output it had already put in
    place whole (``dustsim.io.PUBLISHED``)."""
    from dustsim.errors import printable

    io_mod = sys.modules.get("dustsim.io")
    PUBLISHED = io_mod.PUBLISHED if io_mod is not None else []
    if not PUBLISHED:
        return "no partial output was kept"
    done = ", ".join(printable(p) for p in PUBLISHED[-3:])
    more = f" and {len(PUBLISHED) - 3} more" if len(PUBLISHED) > 3 else ""
    return f"no partial output was kept; already complete before the signal: {done}{more}"


def _signal_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM this exception was raised while handling, if any: a library's
    ``finally`` that fails on half-built state (matplotlib's ``apply_aspect`` during a
    SIGTERM) must not turn a signal into an "internal error"."""
    seen: set[int] = set()
    e: BaseException | None = exc.__context__ or exc.__cause__
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt):
            return e
        e = e.__context__ or e.__cause__
    return None


def _suppress():
    import contextlib

    return contextlib.suppress(OSError, ValueError)
