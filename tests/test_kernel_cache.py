"""The Numba cache guard drops every kernel module's cache files when any kernel source changes."""

from dustsim.engines.kernel_cache import MODULES, refresh


def test_stale_kernel_cache_is_dropped(tmp_path):
    for m in MODULES:
        (tmp_path / m).parent.mkdir(exist_ok=True)
        (tmp_path / f"{m}.py").write_text(f"# {m}\n")
    cache = tmp_path / "play" / "__pycache__"
    cache.mkdir()
    files = [cache / "duel_kernel._run-10.py311.nbi", cache / "duel_kernel._run-10.py311.1.nbc"]
    other = cache / "cards.cpython-311.pyc"
    for f in [*files, other]:
        f.write_text("x")
    assert refresh(tmp_path)  # no stamp yet: dropped
    assert not any(f.exists() for f in files) and other.exists()
    for f in files:
        f.write_text("x")
    assert not refresh(tmp_path)  # sources unchanged: the cache is kept
    assert all(f.exists() for f in files)
    # a dependency of the duel kernel, edited
    (tmp_path / "engines" / "kernel.py").write_text("# kernel, edited\n")
    assert refresh(tmp_path)
    assert not any(f.exists() for f in files)
