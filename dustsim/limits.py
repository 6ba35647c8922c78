"""Caps on every size knob, checked at the boundary before any work starts.

One table, :data:`CAPS`: each entry is (lowest, highest, what to do when over). The caps are
far above anything the games print (the largest card cell is 20 dice, the largest squad 5
models, the longest damage track 11) and low enough that the worst request finishes in
minutes in bounded memory. The README section "Limits" lists them.
"""

from __future__ import annotations

import math

from dustsim.errors import DustsimError, printable

SEED_MAX = 2**63 - 1

#: knob -> (lowest, highest, hint when over the cap)
CAPS: dict[str, tuple[int, int, str]] = {
    # unit files and scripted attacks
    "dice": (1, 40, "a card cell rolls at most 40 dice"),
    "damage": (1, 20, "a hit does at most 20 damage"),
    "models": (1, 50, "a squad has at most 50 models"),
    "track": (1, 50, "a damage track has at most 50 boxes"),
    "count": (1, 100, "at most 100 carriers of one weapon"),
    "attack_dice": (1, 1000, "at most 1000 dice in one attack (carriers x dice per cell)"),
    # Monte Carlo and parallelism
    "trials": (1, 1_000_000_000, "use at most 1e9 trials (the standard error is already "
                                 "below 1e-4 at 1e8)"),
    "threads": (1, 256, "give at most 256 threads (default: the cores)"),
    "workers": (0, 64, "give at most 64 local Dask workers (about 150 MB each)"),
    "seed": (0, SEED_MAX, "use a seed from 0 to 2**63-1"),
    # report, platoons, duels
    "confirm": (0, 100_000, "re-check at most 100000 figures"),
    "duel_units": (0, 64, "duel at most 64 cards each against each"),
    "support": (0, 1, "at most 1 support unit per build: 2 means about 2e8 candidate builds "
                      "(hours), 3 about 1e10"),
    "top": (1, 1_000_000, "show at least one row"),
    "distance": (0, 100, "sides at most 100 squares apart"),
    "turns": (1, 100, "at most 100 turns"),
    "board_side": (1, 24, "a board side is at most 24 squares (the rulebook's board is 9 x 12; "
                          "the sight-line tables grow as the side to the fifth power)"),
    # Dust Epic
    "epic_budget": (1, 40, "optimise budgets up to 40 PP (the exact solver runs once per mix; "
                           "larger budgets take many minutes)"),
    "epic_exact_figures": (1, 40, "use --engine mc for armies of more than 40 figures a side"),
}

#: folder scans for unit files (``validate DIR``, ``--data DIR``): depth, folders visited,
#: files found; the bundled data is 2 levels, 16 files
SCAN_DEPTH = 8
SCAN_DIRS = 2_000
SCAN_FILES = 1_000
#: the largest input file read (the largest bundled unit file is about 0.5 MB)
FILE_BYTES = 16 * 2**20

#: platoon chart files (``army.platoons.parse_platoon_file``): bytes and ``[[platoon]]``
#: tables per file (the bundled files are under 40 kB with 54 charts; thousands of charts
#: make the merge and the build search quadratic)
PLATOON_FILE_BYTES = 1 << 20
PLATOON_CHARTS = 1_000

PLATOON_BUDGET_MAX = 1000.0
AP_MAX = 10_000.0


def check_int(value: int | None, knob: str, flag: str) -> int | None:
    """``value`` within ``CAPS[knob]`` (None passes), else a one-line DustsimError."""
    if value is None:
        return None
    lo, hi, hint = CAPS[knob]
    if isinstance(value, bool) or not isinstance(value, int):
        raise DustsimError(f"{flag} must be an integer, got {value!r}")
    if value < lo:
        raise DustsimError(f"{flag} must be >= {lo}, got {value}")
    if value > hi:
        raise DustsimError(f"{flag} {value} is over the cap of {hi:,}: {hint}")
    return value


def check_float(value: float | None, flag: str, *, lo: float, hi: float,
                lo_open: bool = False) -> float | None:
    """A finite number in [lo, hi] (or (lo, hi]); NaN and infinities refused in one line."""
    if value is None:
        return None
    if not math.isfinite(value):
        raise DustsimError(f"{flag} must be a finite number, got {value!r}")
    if value < lo or (lo_open and value == lo):
        raise DustsimError(f"{flag} must be {'>' if lo_open else '>='} {lo:g}, got {value:g}")
    if value > hi:
        raise DustsimError(f"{flag} {value:g} is over the cap of {hi:g}")
    return value


#: command-line attribute -> knob of :data:`CAPS`, checked for every command by ``cli.main``
ARG_KNOBS: dict[str, str] = {
    "trials": "trials", "duel_trials": "trials", "curve_trials": "trials", "seed": "seed",
    "threads": "threads", "workers": "workers", "count": "count", "models": "models",
    "track": "track",
    "hero_track": "track", "confirm": "confirm", "duel_units": "duel_units",
    "support": "support", "top": "top", "distance": "distance", "turns": "turns",
}


#: text flags where an empty value is a mistake (it would silently mean "everything")
_NAME_ARGS = ("edition", "bloc", "name", "unit", "vs", "units", "weapon", "target", "ruleset",
              "platoon", "side_a", "side_b", "scheduler", "output", "out", "csv", "chart",
              "patch", "baseline", "catalogues")


def _check_digits(argv) -> None:
    """Numbers on the command line in ASCII digits: ``int()``/``float()`` would read '٣' or
    '３' as 3 (unit files and importers refuse them too)."""
    for tok in argv or ():
        value = tok.partition("=")[2] if tok.startswith("--") else tok
        if value.isascii():
            continue
        try:
            float(value)
        except ValueError:
            continue  # a name, not a number
        raise DustsimError(f"{printable(value)!r} is a number in non-ASCII digits; write it "
                           "with 0-9")


def check_args(args) -> None:
    """Every size knob a command has, against its cap, before the command runs."""
    _check_digits(getattr(args, "argv_", ()))
    for attr, knob in ARG_KNOBS.items():
        value = getattr(args, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            check_int(value, knob, "--" + attr.replace("_", "-"))
    for attr in _NAME_ARGS:
        value = getattr(args, attr, None)
        if isinstance(value, str) and not value.strip():
            raise DustsimError(f"--{attr.replace('_', '-')} is empty; give a value or leave "
                               "the flag out")
    for attr in ("ap", "budget", "platoon_budget", "points"):
        value = getattr(args, attr, None)
        if isinstance(value, float) and not math.isfinite(value):
            raise DustsimError(f"--{attr.replace('_', '-')} must be a finite number, "
                               f"got {value!r}")
    _check_workers(args)
    _check_output_paths(args)


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system reports it)."""
    import os

    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _check_workers(args) -> None:
    """Local Dask workers are processes on this machine: more than its cores only slows the
    run down (and costs about 150 MB each). A ``--scheduler`` cluster sizes itself."""
    workers = getattr(args, "workers", None)
    if (isinstance(workers, int) and not isinstance(workers, bool) and workers > cores()
            and not getattr(args, "scheduler", None)):
        raise DustsimError(f"--workers {workers} is more than the {cores()} cores here; give "
                           f"at most {cores()} (or --scheduler ADDRESS for a cluster)")


#: commands whose output paths are checked here, before their heavy imports and any work
_DIR_OUTPUTS = {"cmd_report": "out", "cmd_import_battlescribe": "output",
                "cmd_import_facts": "output"}
_FILE_OUTPUTS = {"cmd_platoons": "csv", "cmd_epic_optimize": "chart", "cmd_list_show": "chart",
                 "cmd_list_vs": "chart", "cmd_list_meta": "chart"}


def _check_output_paths(args) -> None:
    from pathlib import Path

    from dustsim.io import check_output_dir, check_output_file

    name = getattr(getattr(args, "func", None), "__name__", "")
    force = bool(getattr(args, "force", False))
    if name in _DIR_OUTPUTS and getattr(args, _DIR_OUTPUTS[name], None) is not None:
        attr = _DIR_OUTPUTS[name]
        check_output_dir(Path(getattr(args, attr)), force, "--" + attr)
    if name in _FILE_OUTPUTS and getattr(args, _FILE_OUTPUTS[name], None):
        attr = _FILE_OUTPUTS[name]
        check_output_file(Path(getattr(args, attr)), force, "--" + attr)
