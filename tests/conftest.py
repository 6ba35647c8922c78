"""Shared fixtures. ``SHARED`` is ../shared beside the checkout (present in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UNIT_DATA = ROOT / "unit_data"

needs_shared = pytest.mark.skipif(not (SHARED / "data").is_dir(),
                                  reason="../shared (source data) not present")


@pytest.fixture(scope="session")
def all_cards():
    from dustsim.cards import load_cards

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
