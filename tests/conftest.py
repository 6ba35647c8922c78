"""Shared fixtures. ``SHARED`` is ../shared beside the checkout (present in CI)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UNIT_DATA = ROOT / "unit_data"


@pytest.fixture
def shared_data() -> Path:
    """../shared/data, which CI clones beside the checkout: missing is a failure, not a skip
    (a skipped cross-check would pass silently)."""
    if not (SHARED / "data").is_dir():
        pytest.fail(f"{SHARED / 'data'} is missing: clone the shared folder beside the "
                    "checkout (CI does)")
    return SHARED / "data"


needs_shared = pytest.mark.usefixtures("shared_data")

# Hypothesis: derandomised in CI (the same examples every run, so a red build is
# reproducible); random locally, where new examples are the point. HYPOTHESIS_PROFILE
# overrides.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes")
                          else "dev"))


# The `slow` marker (pyproject.toml): subprocess, Dask, browser and notebook tests and the
# longer statistical checks. `python -m pytest -m "not slow"` is the fast developer subset;
# the README's command (CI) runs everything. Whole files are marked here; single tests carry
# @pytest.mark.slow; a test that builds the shared report (a subprocess) is slow too.
SLOW_FILES = frozenset({"test_browser.py", "test_dask.py", "test_imports.py",
                        "test_packaging.py"})
SLOW_TESTS = frozenset({"test_notebook_executes", "test_platoons_command",
                        "test_library_sets_no_backend", "test_meta_on_dask_gives_the_same_numbers",
                        "test_interrupted_report_leaves_nothing",
                        "test_report_of_a_card_that_cannot_hurt_a_reference_column"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if (item.path.name in SLOW_FILES or item.originalname in SLOW_TESTS
                or "small_report" in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session):
    """Start the background runs the selected tests need (after -m / -k deselection: the
    fast subset starts none of them)."""
    wanted = set()
    for item in session.items:
        wanted |= BACKGROUND.keys() & set(getattr(item, "fixturenames", ()))
    for name in sorted(wanted):
        _start(session.config, name)
    if "jit_battle_reference" in _RUNNING:
        # the tests that read the JIT's run go last (stable order otherwise): its compile
        # overlaps the whole suite instead of the suite waiting for it at test_aot
        session.items.sort(
            key=lambda it: "jit_battle_reference" in getattr(it, "fixturenames", ()))


# -- Long subprocesses started in the background ----------------------------------------------
# Two session fixtures are subprocesses of minutes that need nothing from the tests before
# them: the shared small report, and the battle kernel played by the JIT (compiling it is the
# suite's longest single piece of work). When a selected test uses one, it starts as
# collection ends and runs beside the tests (the second core); the fixture waits for it (the
# timeout bounds a hang only).
SMALL_REPORT_UNITS = "Pounder,Heavy Laser Grenadier Squad,Ludwig"
BACKGROUND_TIMEOUT = 3600


def _small_report_argv(out: Path) -> list[str]:
    return [sys.executable, "-m", "dustsim", "report", "--units", SMALL_REPORT_UNITS,
            "--out", str(out / "rep"), "--format", "png,svg", "--confirm", "20",
            "--trials", "4000", "--quiet"]


def _jit_reference_argv(out: Path) -> list[str] | None:
    from dustsim.engines import aot

    if not aot.available():  # every kernel runs by the JIT in this process anyway
        return None
    return [sys.executable, str(ROOT / "tests" / "jit_battle_reference.py"), str(out / "ref")]


#: fixture name -> (argv for an output folder, or None: nothing to start; extra environment)
BACKGROUND = {"small_report": (_small_report_argv, {}),
              "jit_battle_reference": (_jit_reference_argv, {"DUSTSIM_AOT": "0"})}
_RUNNING: dict[str, tuple[subprocess.Popen, Path]] = {}
_FOLDERS: list[Path] = []  # removed when the session ends


def _start(config, name: str) -> None:
    make, env = BACKGROUND[name]
    out = Path(tempfile.mkdtemp(prefix=f"dustsim-{name}-"))
    _FOLDERS.append(out)
    argv = make(out)
    if argv is None:
        shutil.rmtree(out, ignore_errors=True)
        return
    log = (out / "stderr.txt").open("w", encoding="utf-8")
    proc = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **env},
                            stdout=subprocess.DEVNULL, stderr=log)
    _RUNNING[name] = (proc, out)


def _finished(name: str) -> Path | None:
    """The output folder of a background run, once it ended well; None where none started."""
    if name not in _RUNNING:
        return None
    proc, out = _RUNNING[name]
    code = proc.wait(timeout=BACKGROUND_TIMEOUT)
    err = (out / "stderr.txt").read_text(encoding="utf-8", errors="replace")
    assert code == 0, f"{name} (background) exited {code}: {err[-3000:]}"
    return out


def pytest_unconfigure(config):
    for proc, _ in _RUNNING.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for out in _FOLDERS:
        shutil.rmtree(out, ignore_errors=True)
    _RUNNING.clear()
    _FOLDERS.clear()


@pytest.fixture(scope="session")
def jit_battle_reference():
    """The JIT's results for the battle kernel (tests/jit_battle_reference.py), played in a
    process of its own; None where the compiled kernels do not serve this process (the JIT
    then serves every test here)."""
    import json

    import numpy as np

    out = _finished("jit_battle_reference")
    if out is None:
        return None
    ref = json.loads((out / "ref" / "reference.json").read_text(encoding="utf-8"))
    ref["acc"] = np.load(out / "ref" / "acc.npy")
    ref["curves"] = np.load(out / "ref" / "curves.npy")
    return ref


@pytest.fixture(scope="session")
def all_cards():
    from dustsim.data.cards import load_cards

    return load_cards([UNIT_DATA])


@pytest.fixture(scope="session")
def small_report():
    """One small report (three cards, every section) shared by the report, site and browser
    tests: built once per session through the command line, as a user runs it (in the
    background from the end of collection)."""
    out = _finished("small_report")
    if out is None:  # not started at collection (a test that asked for it by name later)
        out = Path(tempfile.mkdtemp(prefix="dustsim-small_report-"))
        _FOLDERS.append(out)
        p = subprocess.run(_small_report_argv(out), capture_output=True, text=True,
                           timeout=BACKGROUND_TIMEOUT, cwd=ROOT)
        assert p.returncode == 0, p.stderr
    return out / "rep"


# -- Chromium for the browser tests (review site, replay page) --------------------------------
CHROMIUM = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser",
                             shutil.which("chromium") or "") if p and Path(p).exists()), None)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]
#: a browser test module's mark: skip without Chromium, except under CI (a failure there)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed")


def require_chromium_in_ci() -> None:
    if CHROMIUM is None and os.environ.get("CI"):
        raise RuntimeError("CI needs Chromium (apt-get install chromium) for the browser tests")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per browser test module (Playwright)."""
    sync = pytest.importorskip("playwright.sync_api")
    with sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def jit_kernels(monkeypatch):
    """The kernels run by Numba's JIT in this test, not the ones compiled at install
    (:mod:`dustsim.engines.aot`): for tests of compilation itself and of the two paths'
    agreement."""
    from dustsim.engines import aot

    monkeypatch.setenv(aot.ENV, "0")
    aot.reset()
    yield
    monkeypatch.undo()
    aot.reset()
