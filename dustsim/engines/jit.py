"""Compile mechanics of the Numba kernels: one machine-code version per argument *type*.

When a kernel calls a helper with a constant integer (``_dist(m, -1, j)``, ``binom(s, n, 1)``),
Numba types that argument as ``Literal[int](-1)`` and compiles a separate version of the
helper (and of every helper it calls with that argument) for each literal value: the duel
kernel's helpers were compiled two to four times each, most of a first run's compile time.
:func:`one_version_per_type` makes the helpers of a module compile for the plain integer
type instead; the constant is then an ordinary argument (same results, one compile).

Likewise a narrow signed integer (``int8``/``int16``/``int32``, read from the battle kernel's
compact board tables) is passed as ``int64``: the same value, one compile of the helper.

Boolean literals are left alone by default on purpose: the kernels pass their dice mode as a
literal ``False``/``True`` so that each mode compiles one path without the other's branches.
A helper whose flag only picks a few lines (the battle kernel's ``_victory(..., end)``) is
named in ``bools`` to compile once for ``boolean`` too (one compile instead of two).

:func:`compiles_first` tells a command, before it calls a kernel, that the call will compile
it (nothing in this process, nothing valid in Numba's on-disk cache), so that it can say so
instead of sitting at 0 % for the better part of a minute on a fresh install (issue 26).
"""

from __future__ import annotations

from numba import types
from numba.core.dispatcher import Dispatcher


def _plain(t):
    if isinstance(t, types.IntegerLiteral):
        return types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64  # a value read from a narrow table (int32 board, int16 lines)
    return t


def _plain_or_bool(t):
    return types.unliteral(t) if isinstance(t, types.BooleanLiteral) else _plain(t)


def unliteral_ints(dispatcher: Dispatcher, bools: bool = False) -> Dispatcher:
    """Have ``dispatcher``, when called from compiled code, compile for ``int64`` where the
    caller passes an integer constant (``Literal[int]``) or a narrower signed integer; with
    ``bools`` also for ``boolean`` where it passes ``True``/``False``."""
    if getattr(dispatcher, "_dustsim_unliteral", False):
        return dispatcher
    typed_call = dispatcher.get_call_template
    plain = _plain_or_bool if bools else _plain

    def get_call_template(args, kws):
        return typed_call(tuple(plain(a) for a in args),
                          {k: plain(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    dispatcher._dustsim_unliteral = True
    return dispatcher


def one_version_per_type(namespace: dict, bools: tuple[str, ...] = ()) -> None:
    """Apply :func:`unliteral_ints` to every Numba dispatcher defined in a module
    (``one_version_per_type(globals())`` at the end of a kernel module); the dispatchers
    named in ``bools`` also take boolean constants as plain booleans."""
    module = namespace.get("__name__")
    for name, obj in list(namespace.items()):
        if isinstance(obj, Dispatcher) and getattr(obj.py_func, "__module__", None) == module:
            unliteral_ints(obj, bools=name in bools)


def compiles_first(dispatcher: Dispatcher) -> bool:
    """``True`` when calling ``dispatcher`` will compile it: not compiled or loaded in this
    process, and Numba's on-disk cache has no entry for its current source. Reads the cache
    index only (Numba's own ``_load_index``, which returns nothing for a stale source);
    anything unexpected counts as cached (a missing note, never a wrong one)."""
    if dispatcher.signatures:
        return False
    try:
        return not dispatcher._cache._cache_file._load_index()
    except Exception:  # a Numba without these internals, an unreadable cache: say nothing
        return False
