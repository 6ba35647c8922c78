"""Binomial and negative binomial probabilities in NumPy, for the exact engine's hot path.

``scipy.stats`` takes longer to import than a whole exact query takes to answer, so the few
functions the exact engine needs are here, with the same call signatures and conventions as
``scipy.stats.binom`` / ``scipy.stats.nbinom`` (``nbinom``: failures before the r-th
success). Probabilities are computed in log space from log-factorials (``math.lgamma``,
correct to an ulp); agreement with SciPy is tested to 1e-13.
"""

from __future__ import annotations

import math

import numpy as np

_LF = np.zeros(1)  # log(i!) for i < len(_LF), grown on demand


def _log_factorial(n: np.ndarray) -> np.ndarray:
    global _LF
    top = int(n.max(initial=0))
    if top >= len(_LF):
        size = max(top + 1, 2 * len(_LF), 256)
        _LF = np.array([math.lgamma(i + 1.0) for i in range(size)])
    return _LF[n]


def _binom_pmf(k, n, p):
    k, n = np.broadcast_arrays(np.asarray(k, np.int64), np.asarray(n, np.int64))
    p = float(p)
    ok = (k >= 0) & (k <= n)
    kk = np.where(ok, k, 0)
    nn = np.where(ok, n, 0)
    if p <= 0.0:
        out = (kk == 0).astype(float)
    elif p >= 1.0:
        out = (kk == nn).astype(float)
    else:
        logp = (_log_factorial(nn) - _log_factorial(kk) - _log_factorial(nn - kk)
                + kk * math.log(p) + (nn - kk) * math.log1p(-p))
        out = np.exp(logp)
    out = np.where(ok, out, 0.0)
    return out if out.ndim else float(out)


def _nbinom_pmf(x, r, p):
    x = np.asarray(x, np.int64)
    r = int(r)
    p = float(p)
    ok = x >= 0
    xx = np.where(ok, x, 0)
    if p >= 1.0:
        out = (xx == 0).astype(float)
    else:
        logp = (_log_factorial(xx + r - 1) - _log_factorial(xx) - _log_factorial(np.asarray(r - 1))
                + r * math.log(p) + xx * math.log1p(-p))
        out = np.exp(logp)
    out = np.where(ok, out, 0.0)
    return out if out.ndim else float(out)


def _nbinom_isf(q, r, p):
    """Smallest x with P(X > x) <= q (as SciPy's ``isf`` for a discrete distribution)."""
    n = 64
    while True:
        pmf = _nbinom_pmf(np.arange(n), r, p)
        if pmf[-1] < q * 1e-3 and pmf[-1] <= pmf.max() * 1e-3:
            break
        n *= 2
    tail = np.cumsum(pmf[::-1])[::-1]  # tail[x] = P(X >= x), summed from the small end
    above = np.append(tail[1:], 0.0)  # P(X > x)
    return float(np.argmax(above <= q))


class _Binom:
    pmf = staticmethod(_binom_pmf)


class _NBinom:
    pmf = staticmethod(_nbinom_pmf)
    isf = staticmethod(_nbinom_isf)


binom = _Binom()
nbinom = _NBinom()
