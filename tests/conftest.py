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
