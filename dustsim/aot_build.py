"""Build ``dustsim._kernels``: the entry kernels compiled ahead of time (run by ``setup.py``
at install; :mod:`dustsim.engines.aot` says when they are used and why).

``python -m dustsim.aot_build [OUTPUT.so]`` builds it by hand (default: beside the package,
as an editable install does). Numba's ``pycc`` compiles the same Python source the JIT
would, for a generic CPU of the platform (a wheel may be installed on another machine), and
releases the GIL in the module's wrappers as the kernels' ``nogil=True`` does for the JIT
(threaded runs stay parallel).
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import time
from pathlib import Path

#: the modules whose kernels are marked :func:`dustsim.engines.aot.exported`
KERNEL_MODULES = ("dustsim.engines.kernel", "dustsim.play.duel_kernel",
                  "dustsim.play.battle_kernel")


def _gil_free_flags():
    """Numba's compile flags with the GIL released by the CPython wrappers (pycc's own
    flags leave it held: threads would take turns)."""
    from numba.core.compiler import Flags

    class GilFree(Flags):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.release_gil = True

    return GilFree


def _nrt_as_marked(compile_extra, entries):
    """pycc's ``compile_extra`` with reference counting off in the entries whose decorator
    says ``_nrt=False``, as the JIT compiles them (pycc turns it on for every entry: the
    battle kernel's entry then counted references on its sixteen arrays around every call,
    about 3 % of a game)."""
    free = {d.py_func for d, _ in entries if d.targetoptions.get("_nrt") is False}

    def compile_extra_marked(typing_ctx, target_ctx, func, args, return_type, flags,
                             **kw):
        if func in free:
            flags = flags.copy()
            flags.nrt = False
        return compile_extra(typing_ctx, target_ctx, func, args, return_type, flags, **kw)

    return compile_extra_marked


def build(output: str | Path, *, cpu: str = "", verbose: bool = False) -> Path:
    """Compile every exported kernel into the extension file ``output`` for the CPU ``cpu``
    (LLVM's name; "" the platform's generic CPU, "host" this machine's); returns its path."""
    import numba.pycc.compiler as pycc_compiler
    from numba.pycc import CC

    from dustsim.engines import aot

    for name in KERNEL_MODULES:
        importlib.import_module(name)
    output = Path(output).resolve()
    basename = output.name.split(".")[0]
    digest = aot.source_digest()
    cc = CC(basename, source_module=__name__)
    cc.output_dir = str(output.parent)
    cc.output_file = output.name
    cc.verbose = verbose
    cc.target_cpu = cpu

    def source_digest():
        return digest

    cc.export("source_digest", "i8()")(source_digest)
    for sym, (dispatcher, sig) in sorted(aot.REGISTRY.items()):
        cc.export(sym, sig)(dispatcher.py_func)
    flags, compile_extra = pycc_compiler.Flags, pycc_compiler.compile_extra
    pycc_compiler.Flags = _gil_free_flags()
    pycc_compiler.compile_extra = _nrt_as_marked(compile_extra, aot.REGISTRY.values())
    try:
        cc.compile()
    finally:
        pycc_compiler.Flags, pycc_compiler.compile_extra = flags, compile_extra
    return output


def main(argv: list[str]) -> int:
    from numba.pycc.platform import Toolchain

    if argv:
        out = Path(argv[0])
    else:
        out = Path(__file__).resolve().parent / Toolchain().get_ext_filename("_kernels")
    t = time.process_time()
    with tempfile.TemporaryDirectory():
        build(out, verbose=False)
    print(f"dustsim: compiled the kernels ahead of time -> {out} "
          f"({time.process_time() - t:.0f} s CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
