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


def test_the_guarded_modules_are_the_kernels_and_their_imports():
    # the duel kernels compile play/duel_layout's constants: it was missing from a hand list
    assert {"engines/rng", "engines/kernel", "play/duel_kernel", "play/duel_layout",
            "play/epic"} <= set(MODULES)
    # the value model's pair batches live in play/duel_kernel now (compiled at install too)
    assert "review/value" not in MODULES
    # the line list battles compile nothing of their own (duel_kernel.play_games plays them)
    assert "play/list_battles" not in MODULES


def test_kernel_modules_are_derived_from_imports(tmp_path):
    from dustsim.engines.kernel_cache import kernel_modules

    pkg = tmp_path / "dustsim"
    (pkg / "play").mkdir(parents=True)
    (pkg / "play" / "layout.py").write_text("FAR = 99\n")
    (pkg / "play" / "helper.py").write_text("X = 1\n")
    (pkg / "play" / "k.py").write_text(
        "import numba as nb\nfrom dustsim.play import layout as L\n")
    (pkg / "play" / "lazy.py").write_text(
        "def build():\n    import numba\n"
        "    from dustsim.play.helper import (\n        X,\n    )\n")
    (pkg / "play" / "plain.py").write_text("from dustsim.play import layout\n# numba\n")
    assert kernel_modules(pkg) == ("play/helper", "play/k", "play/layout", "play/lazy")
