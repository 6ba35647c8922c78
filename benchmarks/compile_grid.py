"""Cold compile of the grid battle kernel (or of any command), function by function (issue 26).

``python benchmarks/compile_grid.py`` (run it with an empty cache:
``NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_grid.py``) plays a few games of the
bench's grid battle; ``python benchmarks/compile_grid.py -- list vs A.toml B.toml --quiet``
runs that ``dustsim`` command in this process instead (its kernels may compile in worker
threads: every thread's compiles are recorded). It prints: the CPU time of the whole run; the
CPU time LLVM spent finalising each kernel library (Numba re-optimises and re-emits every
callee linked into a library, so a deep chain of large functions pays for its lower levels
once per level); the kernels compiled at top level (called from Python: what the command
asked for); the exclusive compile time (wall clock, the callees' own compiles taken out) of
each function; and every kernel function compiled for more than one signature.

Measured 2026-11-25 (2 shared cores, loaded): the first ``list vs`` of two example lists
compiles one kernel (``_play_battles``, 96 signatures of 92 functions), ~42 s of its ~46 s;
LLVM finalisation ~13 s of it (``NUMBA_OPT=1`` saves ~2 s), Numba's own type inference, IR
inlining (``inline="always"``: the callee's IR is deep-copied per call site) and lowering the
rest. Not compiling the ``inline="always"`` helpers inline costs more (56 s): each becomes a
library of its own that LLVM finalises again.
"""

from __future__ import annotations

import collections
import sys
import time

import numba.core.codegen as cg
import numpy as np
from numba.core import event
from numba.core.dispatcher import Dispatcher


def _run(argv: list[str]) -> None:
    if argv:
        from dustsim.cli.shell import main

        rc = main(argv)
        if rc:
            raise SystemExit(f"dustsim {' '.join(argv)}: exit {rc}")
        return
    from dustsim.bench import _grid_spec
    from dustsim.data.cards import load_cards
    from dustsim.play.battle import _chunk

    spec = _grid_spec(load_cards())
    _chunk((np.random.SeedSequence(0).spawn(1)[0], 64, spec))


def main(argv: list[str]) -> None:
    fin: collections.Counter = collections.Counter()
    finalize = cg.CPUCodeLibrary.finalize

    def timed(self):  # measure only: the library is finalised exactly as before
        t = time.thread_time()
        finalize(self)
        fin[self.name.split(".")[-1][:40]] += time.thread_time() - t

    cg.CPUCodeLibrary.finalize = timed
    from dustsim.engines import kernel as K
    from dustsim.engines import rng as R
    from dustsim.play import battle_kernel as BK
    from dustsim.play import battle_rules as BR
    from dustsim.play import duel_kernel as DK

    t0 = time.process_time()
    with event.install_recorder("numba:compile") as rec:
        _run(argv)
    cpu = time.process_time() - t0
    stack: list = []  # compiles hold Numba's global compiler lock: events nest, any thread
    excl: collections.Counter = collections.Counter()
    top: collections.Counter = collections.Counter()
    sigs = 0
    for ts, ev in rec.buffer:
        f = ev.data["dispatcher"].py_func
        name = f"{f.__module__.split('.')[-1]}.{f.__name__}"
        if ev.is_start:
            stack.append([name, ts, 0.0])
        else:
            name, start, child = stack.pop()
            excl[name] += ts - start - child
            sigs += 1
            if stack:
                stack[-1][2] += ts - start
            else:
                top[name] += ts - start
    what = " ".join(argv) if argv else "compile + 64 grid games"
    print(f"{what}: {cpu:.2f} s CPU; LLVM finalisation {sum(fin.values()):.2f} s CPU in "
          f"{len(fin)} libraries; {sigs} signatures of {len(excl)} functions compiled")
    print("compiled at top level (called from Python; s wall, callees included):")
    for k, v in top.most_common():
        print(f"  {v:6.2f}  {k}")
    print("LLVM finalisation by library (s CPU):")
    for k, v in fin.most_common(12):
        print(f"  {v:6.2f}  {k}")
    print("exclusive compile time by function (s wall):")
    for k, v in excl.most_common(15):
        print(f"  {v:6.2f}  {k}")
    for mod in (BK, BR, DK, K, R):
        for k, v in vars(mod).items():
            if isinstance(v, Dispatcher) and len(v.signatures) > 1:
                print(f"several signatures: {mod.__name__}.{k}: {len(v.signatures)}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[1:] if args[:1] == ["--"] else args)
