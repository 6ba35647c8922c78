"""A compiled grid battle with its units placed by hand (anchor square, facing): turn 1, side
A attacking, logging on, scripted dice; shared by the kernel's rules tests."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dustsim.engines.rng import state
from dustsim.play import battle as B
from dustsim.play import battle_kernel as BK
from dustsim.play.duel import DuelUnit
from dustsim.play.duel_kernel import H_ST
from dustsim.play.policies import get_policy


class HandPlaced:
    """``spec`` and state ``m`` of side A's and B's cards on board ``bd`` at ``places``
    ((square, facing) per unit in order), dice ``faces`` ("P", "T", "S") for the scripted
    rolls, the kernel's scratch arrays (``val``, ``qb``), a log of ``log_rows`` events."""

    def __init__(self, bd, side_a, side_b, places, faces="", log_rows=400):
        setup = replace(B.scenario_setup("101", 0), board=bd, boards=(bd,), turns=2)
        self.spec = B.compile_battle([DuelUnit(c) for c in side_a],
                                     [DuelUnit(c) for c in side_b], setup,
                                     get_policy("advance"), attacker=0)
        self.m = m = self.spec.m.copy()
        BK._reset(m)
        m[BK.R_G, BK.G_TURN] = 1
        m[BK.R_G, BK.G_ATT] = 0
        for u, (s, face) in enumerate(places):
            m[m[0, H_ST] + u, BK.ST_SQ] = s
            m[m[0, H_ST] + u, BK.ST_FACE] = face
        BK._occupy(m)
        m[BK.R_B, BK.B_LOG] = 1
        m[BK.R_B, BK.B_LOGN] = 0
        m[BK.R_B, BK.B_PLOGN] = 0
        self.buf = np.array(["PTS".index(c) for c in faces] or [0], np.uint8)
        self.rng = state(np.random.SeedSequence(1))
        self.log = np.zeros((log_rows, BK.NLOG), np.int64)
        self.plog = np.zeros(1600, np.int64)
        _el, self.val, self.qb, _ = BK._scratch(m)  # the kernel's own shapes
