"""dustsim.engines.jit: one compiled version per argument type for kernel helpers."""

from __future__ import annotations

import numba as nb

from dustsim.engines.jit import unliteral_ints


def _pair(bools: bool):
    @nb.njit
    def helper(x, k, flag):
        return x + k if flag else x - k

    unliteral_ints(helper, bools=bools)

    @nb.njit
    def caller(x):
        return helper(x, 2, True) + helper(x, 3, False) + helper(x, 4, True)

    return helper, caller


def test_integer_constants_share_one_version_booleans_only_when_asked():
    helper, caller = _pair(bools=False)
    assert caller(10) == 12 + 7 + 14  # by hand: (10 + 2) + (10 - 3) + (10 + 4)
    assert len(helper.signatures) == 2  # Literal[bool](True) and Literal[bool](False)
    helper, caller = _pair(bools=True)
    assert caller(10) == 33
    assert len(helper.signatures) == 1  # (int64, int64, boolean): one compile


def _probe(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_compiles_first_reads_the_disk_cache(tmp_path):
    from dustsim.engines.jit import compiles_first

    src = tmp_path / "jit_probe.py"
    src.write_text("import numba as nb\n\n\n@nb.njit(cache=True)\ndef f(x):\n    return x + 1\n")
    a = _probe(src, "jit_probe_a")
    assert compiles_first(a.f)  # a new source: nothing on disk, nothing in this process
    assert a.f(1) == 2
    assert not compiles_first(a.f)  # compiled in this process (and written to the cache)
    assert not compiles_first(_probe(src, "jit_probe_b").f)  # a fresh dispatcher: on disk
    src.write_text(src.read_text().replace("x + 1", "x + 10"))  # an edit: the entry is stale
    c = _probe(src, "jit_probe_c")
    assert compiles_first(c.f) and c.f(1) == 11
    assert not compiles_first(nb.njit(lambda x: x))  # no disk cache: no note (documented)
