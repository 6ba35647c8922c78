"""Cold compile of the grid battle kernel, function by function (issue 26).

``python benchmarks/compile_grid.py`` (run it with an empty cache:
``NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_grid.py``) plays a few games of the
bench's grid battle and prints: the CPU time of compiling and playing them; the CPU time LLVM
spent finalising each kernel library (Numba re-optimises and re-emits every callee linked
into a library, so a deep chain of large functions pays for its lower levels once per level);
the exclusive compile time (wall clock, the callees' own compiles taken out) of each function;
and every kernel function compiled for more than one signature.
"""

from __future__ import annotations

import collections
import time

import numba.core.codegen as cg
import numpy as np
from numba.core import event
from numba.core.dispatcher import Dispatcher


def main() -> None:
    fin: collections.Counter = collections.Counter()
    finalize = cg.CPUCodeLibrary.finalize

    def timed(self):  # measure only: the library is finalised exactly as before
        t = time.thread_time()
        finalize(self)
        fin[self.name.split(".")[-1][:40]] += time.thread_time() - t

    cg.CPUCodeLibrary.finalize = timed
    from dustsim.bench import _grid_spec
    from dustsim.data.cards import load_cards
    from dustsim.engines import kernel as K
    from dustsim.engines import rng as R
    from dustsim.play import battle_kernel as BK
    from dustsim.play import battle_rules as BR
    from dustsim.play import duel_kernel as DK
    from dustsim.play.battle import _chunk

    spec = _grid_spec(load_cards())
    t0 = time.process_time()
    with event.install_recorder("numba:compile") as rec:
        _chunk((np.random.SeedSequence(0).spawn(1)[0], 64, spec))
    cpu = time.process_time() - t0
    stack: list = []
    excl: collections.Counter = collections.Counter()
    for ts, ev in rec.buffer:
        f = ev.data["dispatcher"].py_func
        name = f"{f.__module__.split('.')[-1]}.{f.__name__}"
        if ev.is_start:
            stack.append([name, ts, 0.0])
        else:
            name, start, child = stack.pop()
            excl[name] += ts - start - child
            if stack:
                stack[-1][2] += ts - start
    print(f"compile + 64 games: {cpu:.2f} s CPU; LLVM finalisation {sum(fin.values()):.2f} s "
          f"CPU in {len(fin)} libraries; {len(excl)} functions compiled")
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
    main()
