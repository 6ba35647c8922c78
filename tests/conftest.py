"""Shared fixtures. ``SHARED`` is ../shared beside the checkout (present in CI)."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session")
def all_cards():
    from dustsim.cards import load_cards

    return load_cards([UNIT_DATA])
