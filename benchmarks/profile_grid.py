"""Where the grid battle kernel spends its time: Linux ``perf`` samples named by kernel function.

``perf record -F 999 -o grid.data python benchmarks/profile_grid.py 12000`` then
``perf report -i grid.data --no-children --sort sym``. The script compiles (or loads) the
bench's grid battle kernel, writes ``/tmp/perf-PID.map`` (the address and size of each
machine-code function of the kernel, the file ``perf`` reads to name JIT code), plays the
games on one thread and prints games/s (CPU time). Functions LLVM inlined show under their
caller. A benchmark tool: it writes a file in /tmp, which the library never does.

Measured 2026-11-25 (12,000 games, share of the kernel's samples): ``_reach`` (the movement
search) 22 %, ``_actions`` (the policy's plan, inlined helpers) 13 %, ``_offence`` 13 %,
``_position`` 11 %, ``_sight`` 10 %, ``_threat_setup``, ``_occupy``, ``_line_values``,
``_strikes`` ~3 % each. After the entry tables, the exact static-table test, the dominated
search states and the pruned sight lines (same day, 6,000 games, 2,200 -> 2,650 games/s in
interleaved rounds): ``_reach`` 18 %, ``_actions`` 16 %, ``_position`` 13 %, ``_offence``
11 %, ``_sight`` 8 %, ``_threat_setup`` 5 %, ``_strikes``, ``_occupy``, ``_line_values``
~4 % each. Per game (counted in pure Python, 20 games): 55 activations, 56 searches (31
from the static table, 10 from an entry table, 15 searched), 1,670 squares scored, 292
``_offence`` and 597 ``_sight`` calls.

Second round (2026-11-25, 8,000 games, after the board tables went int32, the squares of an
activation were scored in one pass and ``_offence_cap`` spared ``_offence`` calls):
``_actions`` 22 % (the candidate loops and the inlined plan), ``_reach`` 12 % (its
searches: about 10 a game still need one), ``_positions`` 11 %, ``_offence`` 8 %,
``_line_values``, ``_sight``, ``_threat_setup`` ~6 % each, ``_strikes``, ``_occupy`` ~4 %.

Third round (2026-11-25, 6,000 games, after the static movement rows were read in place and
the threat, offence-bound and candidate loops lost their data-dependent branches):
``_actions`` 21 %, ``_offence`` 10 %, ``_reach`` 9 %, ``_positions`` 9 %, ``_threat_setup``,
``_line_values`` 6 % each, ``_sight``, ``_strikes`` 5 %, ``_occupy`` 4 %, ``_clear_around``
3 %. Tried and dropped: ``_pick`` trying units by AP to stop at the first that strikes
(slower: most picks find none that strikes, and the ordered scans cost more than they save);
a whole-board vectorised threat row (no faster than the ~36 candidate squares scalar);
``_occupy`` clearing only occupied squares and ``_threat_setup`` keeping u's armed lines as
bits (no gain measurable in interleaved rounds).

Fifth look (2026-11-25, 3,000 games, cycle counts: a scratch copy of the kernel reading
LLVM's ``readcyclecounter`` around each part of an activation; not kept in the kernel). Per
game about 750,000 cycles, 66 activations: the candidate loop of ``_actions`` 19 % (of its 57
``_offence`` calls a game, 18 improve the plan: ordering the squares by their bound could
spare at most ~3 %), executing the plan 16 % (moves, attacks, reactions), ``_reach`` 12 %,
``_positions`` 8 %, ``_pick`` 6 %, ``_threat_setup`` 6 %, the offence bound and the squares'
enumeration 6 %, the plan from where it stands 6 %, ``_line_values`` 4 %, ``_occupy`` 3 %,
the rules before the plan 3 %; about 170 ``_offence`` calls a game in all. Tried and
dropped (no gain in interleaved rounds, results byte-identical): ``_offence_cap`` reading
each enemy once for all lines, ``error_model="numpy"`` on the battle kernels, inlining
``_positions``, ``_pick``, ``_clear_around``, ``_threat_setup`` and ``_strikes`` into their
callers; ``fastmath`` changes the games and is no faster. Kept: the ahead-of-time build
compiles the entries marked ``_nrt=False`` without reference counting (pycc had it on:
2,988 -> ~3,320 games/s on the installed module, now level with the JIT).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np


def _perf_map(dispatchers) -> int:
    """Write ``/tmp/perf-PID.map`` for the compiled versions of ``dispatchers``; the number of
    functions named."""
    rows = []
    for disp in dispatchers:
        for cres in disp.overloads.values():
            lib = cres.library
            module = lib._shared_module if lib._shared_module is not None else lib._final_module
            engine = lib._codegen._engine
            addrs = sorted((a, fn.name) for fn in module.functions if not fn.is_declaration
                           for a in [engine.get_function_address(fn.name)] if a)
            for i, (a, name) in enumerate(addrs):
                size = addrs[i + 1][0] - a if i + 1 < len(addrs) else 1 << 20
                rows.append(f"{a:x} {size:x} {name}\n")
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        fh.writelines(rows)
    return len(rows)


def main(games: int) -> None:
    from dustsim.bench import _grid_spec
    from dustsim.data.cards import load_cards
    from dustsim.play import battle_kernel as BK
    from dustsim.play.battle import _chunk

    spec = _grid_spec(load_cards())
    _chunk((np.random.SeedSequence(0).spawn(1)[0], 16, spec))  # compile or load
    named = _perf_map([BK._play_battles])
    t = time.process_time()
    _chunk((np.random.SeedSequence(1).spawn(1)[0], games, spec))
    dt = time.process_time() - t
    print(f"{games} grid games in {dt:.2f} s CPU: {games / dt:,.0f} games/s "
          f"({named} kernel functions named in /tmp/perf-{os.getpid()}.map)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
