"""Shared fixtures. ``SHARED`` is ../shared beside the checkout (present in CI)."""

from __future__ import annotations

import os
import shutil
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
                        "test_interrupted_report_leaves_nothing"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if (item.path.name in SLOW_FILES or item.originalname in SLOW_TESTS
                or "small_report" in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def all_cards():
    from dustsim.data.cards import load_cards

    return load_cards([UNIT_DATA])


SMALL_REPORT_UNITS = "Pounder,Heavy Laser Grenadier Squad,Ludwig"


@pytest.fixture(scope="session")
def small_report(tmp_path_factory):
    """One small report (three cards, every section) shared by the report, site and browser
    tests: built once per session through the command line, as a user runs it."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("report") / "rep"
    p = subprocess.run([sys.executable, "-m", "dustsim", "report", "--units", SMALL_REPORT_UNITS,
                        "--out", str(out), "--format", "png,svg", "--confirm", "20",
                        "--trials", "4000", "--quiet"], capture_output=True, text=True,
                       timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return out


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
