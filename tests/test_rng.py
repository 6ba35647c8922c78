"""The kernels' generator and binomial rolls: distributions against exact PMFs (5 sigma)."""

import math

import numpy as np
import pytest

from dustsim.engines import rng

N = 40_000


def _check(counts: np.ndarray, pmf: np.ndarray) -> None:
    """Every bin expected 20+ times within 5 SE; the rarer bins pooled into one."""
    n = counts.sum()
    big = pmf * n >= 20
    c = np.append(counts[big], counts[~big].sum())
    expected = n * np.append(pmf[big], pmf[~big].sum())
    sd = np.sqrt(np.maximum(expected * (1 - expected / n), 1.0))  # at least one count
    assert (np.abs(c - expected) <= 5 * sd).all(), (c, expected)


def _binom_pmf(k: int, p: float) -> np.ndarray:
    return np.array([math.comb(k, j) * p ** j * (1 - p) ** (k - j) for j in range(k + 1)])


@pytest.mark.parametrize("q,k", [(1, 1), (1, 6), (2, 6), (1, 70), (0, 4), (3, 4)])
def test_binomial_rolls_follow_the_binomial(q, k):
    s = rng.state(np.random.SeedSequence(11))
    counts = np.zeros(k + 1)
    for _ in range(N if 0 < q < 3 else 100):
        counts[rng.binom(s, q, k)] += 1
    _check(counts, _binom_pmf(k, q / 3))


def test_face_counts_follow_the_multinomial():
    s = rng.state(np.random.SeedSequence(5))
    k = 3
    counts = np.zeros((k + 1, k + 1))
    for _ in range(N):
        n0, n1, n2 = rng.faces(s, k)
        assert n0 + n1 + n2 == k
        counts[n0, n1] += 1
    pmf = np.zeros_like(counts)
    for a in range(k + 1):
        for b in range(k + 1 - a):
            pmf[a, b] = math.factorial(k) / (math.factorial(a) * math.factorial(b)
                                             * math.factorial(k - a - b)) / 3 ** k
    _check(counts.ravel(), pmf.ravel())


def test_the_state_is_a_pure_function_of_the_seed():
    a = rng.state(np.random.SeedSequence(3))
    b = rng.state(np.random.SeedSequence(3))
    assert [rng.next_u64(a) for _ in range(5)] == [rng.next_u64(b) for _ in range(5)]
    u = [rng.uniform(a) for _ in range(1000)]
    assert min(u) >= 0.0 and max(u) < 1.0 and abs(np.mean(u) - 0.5) < 5 * math.sqrt(1 / 12000)


def test_cdf_rows_end_at_one():
    t = rng.cdf_table(5 / 9, 20)
    assert (t[:, -1] == 1.0).all() and (np.diff(t, axis=1) >= 0).all()
