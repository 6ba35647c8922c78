"""Commands import only what they need: ``--help`` and the exact engine never load Numba,
pandas or SciPy (deterministic checks of ``sys.modules`` in a fresh interpreter, no timing)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "pandas", "scipy")

PROBE = """
import contextlib, io, json, sys
from dustsim.cli.shell import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))
"""


def _loaded(*args: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr
    return set(json.loads(p.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [
    ["--help"],
    ["duel", "--help"],
    ["attack", "--weapon", "2/1", "--count", "5", "--target", "I2", "--models", "5",
     "--engine", "exact"],
])
def test_light_commands_skip_heavy_imports(args):
    assert not _loaded(*args) & set(HEAVY), args


def test_the_probe_sees_heavy_imports():
    # the same probe sees Numba where a command does load it (so the check above can fail);
    # an exact Epic battle imports the Monte Carlo module without compiling anything
    assert "numba" in _loaded("epic", "battle", "1 tank", "vs", "1 tank", "--engine", "exact")


def test_help_does_not_load_numpy():
    # `dustsim --help` builds every subcommand's parser: a parser module that imports NumPy at
    # its top costs ~0.1 s CPU of start-up (bench goal <= 0.15 s); the probe sees NumPy where a
    # command loads it (an exact attack does)
    assert "numpy" not in _loaded("--help")
    assert "numpy" in _loaded("attack", "--weapon", "2/1", "--target", "I2", "--engine", "exact")
