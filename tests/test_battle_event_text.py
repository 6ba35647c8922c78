"""Event sentences of the grid battle's special actions read as English (one hit, two hits)."""
from __future__ import annotations

import numpy as np
import pytest

from dustsim.play import battle_kernel as BK
from dustsim.play.battle import _special
from dustsim.play.board import OPEN


@pytest.mark.parametrize(("kind", "hits", "words"), [
    (BK.SP_SCREAM, 1, "1 hit, 2 damage."), (BK.SP_SCREAM, 2, "2 hits, 2 damage."),
    (BK.SP_AREA, 1, "1 hit, 2 damage."), (BK.SP_AREA, 0, "0 hits, 2 damage."),
])
def test_scream_and_area_count_hits_in_english(kind, hits, words):
    r = np.zeros(BK.L_X + 1, dtype=np.int64)
    r[BK.L_X], r[BK.L_TARGET], r[BK.L_HITS], r[BK.L_DAMAGE] = kind, 1, hits, 2
    r[BK.L_D0], r[BK.L_D1] = 0, 1
    ev = _special(r, "Avatar", 9, ["A", "Rangers"], np.zeros(1, dtype=np.int64),
                  np.full(108, OPEN, dtype=np.int8))
    assert ev["text"].endswith(words) and "strikes Rangers" in ev["text"]
