"""The build's one step beyond ``pyproject.toml``: the entry kernels compiled ahead of time
into ``dustsim._kernels`` (:mod:`dustsim.aot_build`; :mod:`dustsim.engines.aot` says when a
run uses them). Optional: without a C compiler the install goes on and runs compile on first
use (Numba's JIT), as before. An editable install compiles for this machine's CPU, a wheel
for the platform's generic CPU (it may be installed on another machine; ~7 % slower on the
grid); ``DUSTSIM_AOT_CPU`` (an LLVM CPU name, "" generic, "host") overrides either."""

import os
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class BuildKernels(build_ext):
    """Builds ``dustsim._kernels`` with Numba's ``pycc`` instead of a C source list."""

    def build_extension(self, ext):
        out = Path(self.get_ext_fullpath(ext.name))
        out.parent.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="dustsim-build-"))
        sys.path.insert(0, str(ROOT))
        try:
            from dustsim.aot_build import build

            print("dustsim: compiling the kernels ahead of time (about a minute)", flush=True)
            # an editable install's module never leaves this machine: its own CPU (the JIT's
            # speed); a wheel's, any machine of the platform (generic: ~7 % slower on the grid)
            here = getattr(self, "editable_mode", False) or self.inplace
            build(out, cpu=os.environ.get("DUSTSIM_AOT_CPU", "host" if here else ""))
        except Exception as e:  # optional: the JIT compiles them on first use instead
            print(f"dustsim: warning: the kernels were not compiled ahead of time ({e}); "
                  "the first run of each command compiles them", file=sys.stderr)
        finally:
            sys.path.remove(str(ROOT))


setup(ext_modules=[Extension("dustsim._kernels", sources=[], optional=True)],
      cmdclass={"build_ext": BuildKernels})
