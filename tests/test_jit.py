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
