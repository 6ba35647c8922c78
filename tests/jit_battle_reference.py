"""The battle kernel played by Numba's JIT in a process of its own (run by tests/conftest.py
in the background while the other tests run; read by tests/test_aot.py and the compile-once
guard of tests/test_battle.py).

``python tests/jit_battle_reference.py OUT``, with ``DUSTSIM_AOT=0``: plays the example
pairing the AOT comparison uses (300 games and the logged game of seed 3), then the
compile-once guard's (20 games and the logged game of seed 1), and writes
``OUT/acc.npy``, ``OUT/curves.npy`` and ``OUT/reference.json`` (the AOT run's event log and
:func:`compile_report`). Compiling the kernel
takes minutes of CPU on one core: here it runs beside the tests instead of before them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "lists"
#: the AOT comparison's pairing, seeds and game counts (tests/test_aot.py)
PAIRING = ("allies-rangers", "axis-heavy-grenadiers")
AOT_RUN = {"prepare_seed": 4, "boards": 2, "games": 300, "seed": 7, "log_seed": 3}
#: the compile-once guard's (tests/test_battle.py)
COMPILE_RUN = {"prepare_seed": 2, "boards": 1, "games": 20, "seed": 1, "log_seed": 1}
#: the turn loop's single-caller links, inlined (never compiled on their own)
INLINED = ("_game", "_activate", "_drop", "_smoke", "_execute", "_march", "_after_march")


def lists() -> dict:
    from dustsim.army.lists import load_list

    return {p.stem: load_list(p) for p in sorted(EXAMPLES.glob("*.toml"))}


def play(ls: dict, run: dict):
    """``(result, event log)`` of one run of the pairing."""
    from dustsim.play.battle import event_log, prepare, simulate_battle

    spec = prepare(ls[PAIRING[0]], ls[PAIRING[1]], seed=run["prepare_seed"],
                   boards=run["boards"])
    return (simulate_battle(spec, run["games"], run["seed"], threads=1),
            event_log(spec, run["log_seed"]))


def compile_report() -> dict:
    """What this process compiled of the board's kernel functions: those compiled for more
    than one signature, the inlined links' signatures, ``_victory``'s count, and whether
    anything was compiled at all (nothing when Numba's disk cache served the kernels)."""
    import numba

    from dustsim.play import battle_kernel as BK
    from dustsim.play import battle_rules as BR

    many = {f"{mod.__name__}.{k}": len(v.signatures) for mod in (BK, BR)
            for k, v in vars(mod).items()
            if isinstance(v, numba.core.dispatcher.Dispatcher)
            and v.py_func.__module__ == mod.__name__ and len(v.signatures) > 1}
    return {"compiled": bool(BK._actions.signatures), "many": many,
            "inlined": {n: [str(s) for s in getattr(BK, n).signatures] for n in INLINED},
            "victory": len(BK._victory.signatures)}


def main(out: Path) -> None:
    import numpy as np

    from dustsim.engines import aot

    assert not aot.available(), "run with DUSTSIM_AOT=0: this is the JIT's reference"
    ls = lists()
    r, logs = play(ls, AOT_RUN)
    play(ls, COMPILE_RUN)
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "acc.npy", r.acc)
    np.save(out / "curves.npy", r.curves)
    ref = {"logs": logs, "compile": compile_report()}
    (out / "reference.json").write_text(json.dumps(ref, default=str), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
