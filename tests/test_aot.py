"""The kernels compiled at install (``dustsim._kernels``, issue 26): used only when built from
these sources and called with their types, and giving the numbers the JIT gives."""

import os
import types

import numba.core.sigutils  # noqa: F401  (before _fake patches importlib.import_module)
import numpy as np
import pytest

from dustsim.engines import aot

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI installs from scratch")
def test_a_fresh_install_compiled_the_kernels():
    # .ci/run installs the project as the README says: its build compiles the entry kernels
    # (setup.py); a build that silently fell back to the JIT fails here
    aot.reset()
    assert aot.available(), "dustsim._kernels missing or stale after a fresh install"
    import importlib

    mod = importlib.import_module(aot.MODULE)
    for sym in ("dustsim__play__battle_kernel___play_battles",
                "dustsim__play__battle_kernel___play_logged",
                "dustsim__play__duel_kernel__play_games", "dustsim__play__duel_kernel__play_pairs",
                "dustsim__engines__kernel___run_chunk"):
        assert hasattr(mod, sym), sym


class _Dispatcher:
    """A Numba dispatcher stand-in (the JIT path): records its calls."""

    py_func = types.SimpleNamespace(__module__="m", __name__="k")

    def __init__(self):
        self.calls = []

    def __call__(self, *a):
        self.calls.append(a)


def _fake(monkeypatch, digest):
    """An extension module stand-in built from sources of ``digest``, with one kernel
    (symbol ``m__k``, signature ``void(i8[::1], i8)``) that records its calls."""
    calls = []
    disp = _Dispatcher()
    mod = types.SimpleNamespace(source_digest=lambda: digest, m__k=lambda *a: calls.append(a))
    monkeypatch.setattr(aot.importlib, "import_module", lambda name: mod)
    monkeypatch.setitem(aot.REGISTRY, "m__k", (disp, "void(i8[::1], i8)"))
    monkeypatch.delenv(aot.ENV, raising=False)
    aot.reset()
    return disp, calls


def test_the_compiled_kernel_serves_only_current_sources_and_its_own_types(monkeypatch):
    disp, calls = _fake(monkeypatch, aot.source_digest())
    assert aot.available()
    f = aot.entry(disp)
    f(np.zeros(3, np.int64), 5)
    assert len(calls) == 1 and disp.calls == []
    # machine code compiled for these types would read others wrongly: the JIT gets them
    f(np.zeros(3, np.int32), 5)
    f(np.zeros((3, 2), np.int64)[:, 0], 5)  # not contiguous
    f(np.zeros(3, np.int64))  # an argument short
    assert len(calls) == 1 and len(disp.calls) == 3
    aot.reset()


def test_a_stale_or_disabled_extension_is_never_used(monkeypatch):
    disp, _calls = _fake(monkeypatch, aot.source_digest() ^ 1)  # built from other sources
    assert not aot.available()
    assert aot.entry(disp) is disp
    disp, _calls = _fake(monkeypatch, aot.source_digest())
    monkeypatch.setenv(aot.ENV, "0")
    aot.reset()
    assert not aot.available()
    assert aot.entry(disp) is disp
    aot.reset()


def test_compiled_and_jit_kernels_give_the_same_numbers(jit_battle_reference):
    """The compiled kernels here; the JIT's in a process of its own with ``DUSTSIM_AOT=0``
    (tests/jit_battle_reference.py, started in the background by conftest)."""
    import json

    from jit_battle_reference import AOT_RUN, lists, play

    aot.reset()
    if not aot.available():
        pytest.skip("dustsim._kernels not built here (CI builds it: see the test above)")
    before = sum(aot.USED.values())
    r_aot, log_aot = play(lists(), AOT_RUN)
    assert sum(aot.USED.values()) > before  # the compiled kernels played them
    ref = jit_battle_reference
    np.testing.assert_array_equal(r_aot.acc, ref["acc"])
    np.testing.assert_array_equal(r_aot.curves, ref["curves"])
    assert json.loads(json.dumps(log_aot, default=str)) == ref["logs"]
    assert ref["compile"]["compiled"] or ref["acc"].size  # the JIT played (compiled or cached)


def test_every_command_kernel_is_served_by_the_compiled_module(capsys):
    """Signature drift guard: a kernel whose Python callers changed its argument types would
    silently fall back to the JIT (slow first runs, no error): the battle, replay, duel and
    attack entry kernels must each serve their command from the module."""
    aot.reset()
    if not aot.available():
        pytest.skip("dustsim._kernels not built here (CI builds it)")
    from pathlib import Path

    from dustsim.cli.shell import main

    lists = Path(__file__).resolve().parents[1] / "examples" / "lists"
    before = dict(aot.USED)
    for argv in (["list", "vs", str(lists / "allies-rangers.toml"),
                  str(lists / "ssu-red-army.toml"), "--trials", "50", "--quiet"],
                 ["duel", "--side-a", "Pounder", "--side-b", "Ludwig", "--scenario", "line",
                  "--trials", "50", "--quiet"],
                 ["attack", "--unit", "Pounder", "--vs", "Ludwig", "--engine", "mc",
                  "--trials", "2000"]):
        assert main(argv) == 0
    capsys.readouterr()
    served = {k for k, v in aot.USED.items() if v > before.get(k, 0)}
    assert {"dustsim__play__battle_kernel__fill_static",
            "dustsim__play__battle_kernel__fill_entry",
            "dustsim__play__battle_kernel___play_battles",
            "dustsim__play__duel_kernel___pack", "dustsim__play__duel_kernel__play_games",
            "dustsim__engines__kernel___run_chunk"} <= served


def test_the_build_counts_no_references_where_the_kernel_says_not():
    # pycc compiles every entry with reference counting on; the build turns it off for the
    # entries marked _nrt=False (as the JIT compiles them) and leaves the others alone
    from numba.core.compiler import Flags

    from dustsim.aot_build import _nrt_as_marked

    def free():
        pass

    def counted():
        pass

    seen = {}

    def compile_extra(tctx, ctx, func, args, ret, flags, **kw):
        seen[func] = flags.nrt

    entries = [(types.SimpleNamespace(py_func=free, targetoptions={"_nrt": False}), "void()"),
               (types.SimpleNamespace(py_func=counted, targetoptions={}), "void()")]
    marked = _nrt_as_marked(compile_extra, entries)
    flags = Flags()
    flags.nrt = True
    for fn in (free, counted):
        marked(None, None, fn, (), None, flags)
    assert seen == {free: False, counted: True}
    assert flags.nrt  # the build's own flags are not changed
