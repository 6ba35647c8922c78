"""The exact engine's binomial helpers agree with SciPy (which they replace for import speed)."""

import numpy as np
import pytest
from scipy import stats

from dustsim.engines import pmf


@pytest.mark.parametrize("p", [0.0, 1 / 3, 5 / 9, 2 / 3, 0.9, 1.0])
def test_binomial_matches_scipy(p):
    u = np.arange(60)
    ours = pmf.binom.pmf(u[:, None], u[None, :], p)
    assert np.abs(ours - stats.binom.pmf(u[:, None], u[None, :], p)).max() < 1e-13
    assert pmf.binom.pmf(3, 7, p) == pytest.approx(stats.binom.pmf(3, 7, p), abs=1e-15)


@pytest.mark.parametrize("r", [1, 2, 7, 30])
@pytest.mark.parametrize("p", [1 / 3, 0.5, 2 / 3])
def test_negative_binomial_matches_scipy(r, p):
    x = np.arange(200)
    assert np.abs(pmf.nbinom.pmf(x, r, p) - stats.nbinom.pmf(x, r, p)).max() < 1e-13
    for q in (1e-3, 1e-9, 1e-12):
        assert pmf.nbinom.isf(q, r, p) == stats.nbinom.isf(q, r, p)
