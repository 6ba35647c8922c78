"""The kernels' random numbers: an inline generator and binomial rolls from one uniform each.

* **Generator**: xoshiro256** (Blackman and Vigna), state in a ``uint64[4]`` array that the
  kernels pass down as plain data (no generator object, so no reference counting in the hot
  loops). Each chunk of trials seeds its own state from one child of a ``SeedSequence``
  (:func:`state`), so results are the same for any number of threads.
* **Rolls**: ``k`` dice with success probability 1/3, 1/2 or 2/3 (one, the half, or two of the
  three face classes) are one draw from Binomial(k, p), found by inverting a precomputed
  cumulative distribution with a single uniform (:func:`binom`). Counts above ``KMAX`` are
  split into pieces of ``KMAX`` dice. Other probabilities (Dust Epic's 5/9) get their own
  table from :func:`cdf_table`.

The functions are compiled without Numba's reference counting (``_nrt=False``): they take
scalars and flat arrays and allocate nothing.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from dustsim.engines.kernel_cache import refresh

refresh()  # before any kernel is compiled or loaded from the cache

KMAX = 64  # dice per table row; larger rolls are split into pieces of KMAX


def cdf_table(p: float, kmax: int = KMAX) -> np.ndarray:
    """``t[k, s] = P(Binomial(k, p) <= s)`` for k, s in 0..kmax (row k is 1.0 from s = k on,
    so an inversion always stops)."""
    t = np.ones((kmax + 1, kmax + 1))
    for k in range(kmax + 1):
        pmf = np.array([math.comb(k, s) * p ** s * (1 - p) ** (k - s) for s in range(k + 1)])
        c = np.cumsum(pmf)
        c[k] = 1.0
        t[k, : k + 1] = np.minimum(c, 1.0)
    return t


CDF_THIRD = cdf_table(1 / 3)  # one success face of three (or its complement for two)
CDF_HALF = cdf_table(1 / 2)  # a face among two left (initiative's second symbol)


def state(seed_seq: np.random.SeedSequence) -> np.ndarray:
    """A fresh generator state drawn from ``seed_seq`` (never all zero)."""
    s = seed_seq.generate_state(4, np.uint64)
    if not s.any():
        s[0] = 1
    return s


def scripted_state() -> np.ndarray:
    """A placeholder state for scripted runs (never drawn from)."""
    return np.ones(4, np.uint64)


@nb.njit(nogil=True, cache=True, _nrt=False)
def next_u64(s):
    """xoshiro256**: the next 64 random bits; advances ``s`` in place."""
    s0 = s[0]
    s1 = s[1]
    s2 = s[2]
    s3 = s[3]
    x = s1 * np.uint64(5)
    x = (x << np.uint64(7)) | (x >> np.uint64(57))
    result = x * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    return result


@nb.njit(nogil=True, cache=True, _nrt=False)
def uniform(s):
    """A double in [0, 1) from the top 53 bits."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(nogil=True, cache=True, _nrt=False)
def invert(s, table, k):
    """Binomial(k, p) for the ``table`` of p (:func:`cdf_table`): one uniform per piece of at
    most ``table.shape[0] - 1`` dice."""
    kmax = table.shape[0] - 1
    total = 0
    while k > 0:
        n = k if k < kmax else kmax
        u = uniform(s)
        j = 0
        while u >= table[n, j]:
            j += 1
        total += j
        k -= n
    return total


@nb.njit(nogil=True, cache=True, _nrt=False)
def binom(s, q, k):
    """Successes among ``k`` dice when ``q`` of the three face classes succeed (q = 0..3)."""
    if k <= 0 or q <= 0:
        return 0
    if q >= 3:
        return k
    if q == 1:
        return invert(s, CDF_THIRD, k)
    return k - invert(s, CDF_THIRD, k)  # two faces: the failures are Binomial(k, 1/3)


@nb.njit(nogil=True, cache=True, _nrt=False)
def faces(s, k):
    """Counts of the face classes (0, 1, 2) among ``k`` dice, one uniform per KMAX dice:
    n0 by inversion, then the uniform's position within n0's step, itself
    uniform, picks n1 among the k - n0 others (multinomial)."""
    n0 = 0
    n1 = 0
    total = k
    while k > 0:
        m = k if k < KMAX else KMAX
        u = uniform(s)
        a = 0
        while u >= CDF_THIRD[m, a]:
            a += 1
        lo = CDF_THIRD[m, a - 1] if a > 0 else 0.0
        v = (u - lo) / (CDF_THIRD[m, a] - lo)
        if v >= 1.0:
            v = 0.9999999999999999
        b = 0
        while v >= CDF_HALF[m - a, b]:
            b += 1
        n0 += a
        n1 += b
        k -= m
    return n0, n1, total - n0 - n1
@nb.njit(nogil=True, cache=True, _nrt=False)
def mask_faces(mask):
    """How many of the face classes 0-2 a success mask holds."""
    return (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1)


@nb.njit(nogil=True, cache=True)
def uniform_loop(s, n):
    """``n`` uniforms from the inline generator, nothing else (benchmarks)."""
    acc = 0.0
    for _ in range(n):
        acc += uniform(s)
    return acc


# one compiled version per argument type, not per integer constant (dustsim.engines.jit)
from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
