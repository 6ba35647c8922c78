"""A command compiles (or loads from the disk cache, or takes from the kernels compiled at
install) only the kernels it plays (issue 26: the first run's compile is most of its time).
Deterministic: which Numba dispatchers hold a machine-code version or served a call from
``dustsim._kernels`` after the command, in a fresh interpreter; no timing."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT / "examples" / "lists"

PROBE = """
import contextlib, io, json, sys
from dustsim.cli.shell import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(sys.argv[1:])
from dustsim.engines import kernel as K
from dustsim.play import battle_kernel as BK, duel_kernel as DK
entry = {"battle": BK._play_battles, "battle replay": BK._play_logged,
         "duel": DK.play_games, "duel replay": DK._run_duel_scripted,
         "attack Monte Carlo": K._run_chunk}
from dustsim.engines import aot
print(json.dumps([rc, sorted(k for k, d in entry.items()
                             if d.signatures or aot.USED[aot.symbol(d)])]))
"""


def _entry_points_used(*args: str) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=900)
    assert p.returncode == 0, p.stderr
    rc, used = json.loads(p.stdout.strip().splitlines()[-1])
    return rc, used


def test_list_vs_on_a_board_compiles_the_battle_kernel_only():
    # the grid battle plays no line duel, no replay and no stand-alone attack: their kernels
    # (each tens of seconds of a first run's compile) stay untouched; the battle kernel is
    # there (so the probe can see a kernel that was used)
    rc, used = _entry_points_used("list", "vs", str(LISTS / "allies-rangers.toml"),
                                  str(LISTS / "axis-heavy-grenadiers.toml"), "--trials", "20",
                                  "--quiet")
    assert rc == 0
    assert used == ["battle"]
