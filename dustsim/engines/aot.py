"""Kernels compiled ahead of time, at install: a first run that does not wait for Numba.

Numba compiles a kernel the first time a process calls it and caches the machine code on
disk; on a fresh install the first ``dustsim list vs`` spent ~45 s of its ~50 s compiling the
battle kernel (issue 26). The install now also compiles the entry kernels once, ahead of time
(Numba's ``pycc``, the same Python source and the same compiler), into the extension module
``dustsim._kernels`` (``setup.py``; :mod:`dustsim.aot_build`). At run time
:func:`entry` hands a command the compiled version instead of the Numba dispatcher when

* the extension is there (an install without a C compiler has none: the JIT path runs),
* it was built from exactly these sources (a digest of every ``.py`` file of the package is
  compiled into it: an edited checkout falls back to the JIT, never runs stale code),
* the arguments have the types it was compiled for (checked on every call: machine code
  compiled for other types would read memory wrongly),
* ``DUSTSIM_AOT`` is not ``0`` (to time or test the JIT path).

Either path runs the same source with the same random streams: the same seed gives the same
numbers (tests compare them). A kernel opts in with :func:`exported` next to its definition,
so its signature lives with it.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODULE = "dustsim._kernels"
ENV = "DUSTSIM_AOT"

#: every kernel marked :func:`exported`, by symbol: (dispatcher, signature string)
REGISTRY: dict[str, tuple[Any, str]] = {}
#: calls served by the compiled extension in this process, by symbol (tests and the bench)
USED: Counter = Counter()

_state: dict[str, Any] = {}


def symbol(dispatcher: Any) -> str:
    """The extension's name for a kernel: its module and function, dots as ``__``."""
    f = dispatcher.py_func
    return f"{f.__module__}.{f.__name__}".replace(".", "__")


def exported(signature: str) -> Callable[[Any], Any]:
    """Mark a Numba kernel called from Python for the ahead-of-time build, with the one
    signature its Python callers use (Numba's signature syntax, e.g.
    ``"void(u8[::1], i8, i8[:, ::1])"``). Returns the dispatcher unchanged."""

    def mark(dispatcher: Any) -> Any:
        REGISTRY[symbol(dispatcher)] = (dispatcher, signature)
        return dispatcher

    return mark


def source_digest() -> int:
    """A 63-bit digest of every ``.py`` file of the installed package (relative path and
    bytes, in sorted order): what the extension was built from."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(("unit_data/", "_kernels")):
            continue
        h.update(rel.encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return int.from_bytes(h.digest()[:8], "little") >> 1


def _module() -> Any:
    """The extension when present and built from these sources, else None (once)."""
    if "module" not in _state:
        mod = None
        if os.environ.get(ENV, "1") != "0":
            try:
                mod = importlib.import_module(MODULE)
            except ImportError:
                mod = None
            if mod is not None and mod.source_digest() != source_digest():
                mod = None  # built from other sources (an edited checkout): never stale code
        _state["module"] = mod
    return _state["module"]


def available() -> bool:
    """Whether the compiled kernels serve this process (present, current, not disabled)."""
    return _module() is not None


def _types(signature: str) -> tuple:
    from numba.core import sigutils

    args, _ret = sigutils.normalize_signature(signature)
    return tuple(args)


def entry(dispatcher: Any) -> Callable[..., Any]:
    """What a Python caller should call for ``dispatcher``: its compiled version when
    :func:`available` and the arguments have its types, else the dispatcher itself."""
    mod = _module()
    name = symbol(dispatcher)
    if mod is None or name not in REGISTRY or not hasattr(mod, name):
        return dispatcher
    key = "types:" + name
    if key not in _state:
        _state[key] = _types(REGISTRY[name][1])
    want = _state[key]
    fn = getattr(mod, name)

    def call(*args):
        from numba import typeof

        if len(args) == len(want) and all(typeof(a) == t for a, t in zip(args, want,
                                                                            strict=True)):
            USED[name] += 1
            return fn(*args)
        return dispatcher(*args)

    return call


def reset() -> None:
    """Forget the lookup (tests that set ``DUSTSIM_AOT``)."""
    _state.clear()
