"""The one Monte Carlo accounting loop (dustsim.engines.montecarlo) with fake kernels whose
per-game outcomes are known: figures, standard errors and covariances against hand-computed
ones, and the same seed giving the same tally for any thread count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dustsim.engines import montecarlo as mc
from dustsim.errors import DustsimError

OUT = mc.Outcomes(("x", "y", "w"), sums=("x", "y"),
                  products=(("x", "x"), ("y", "y"), ("x", "y")),
                  counts=((("w",), (3,)), (("w", "x"), (3, 4))))

# four games, written out: x in 0..3, y real, w the winner code
GAMES = np.array([[1, 0.5, 0], [3, 2.0, 1], [0, 0.25, 0], [2, 1.0, 2]], float)


def test_tally_and_figures_equal_hand_computed_ones():
    t = OUT.tally(GAMES)
    assert t.n == 4
    assert t.sum("x") == 6 and t.sum("y") == 3.75
    assert t.product("x") == 1 + 9 + 0 + 4
    assert t.product("y") == 0.25 + 4 + 0.0625 + 1
    assert t.product("x", "y") == 0.5 + 6 + 0 + 2
    assert t.count("w").tolist() == [2, 1, 1]
    joint = np.zeros((3, 4), int)
    joint[0, 1] = joint[1, 3] = joint[0, 0] = joint[2, 2] = 1
    assert t.count("w", "x").tolist() == joint.tolist()
    # P(w = 0) = 2/4, its SE sqrt(.5 * .5 / 4) = .25
    assert t.proportion("w", 0) == (0.5, 0.25)
    # mean of x 1.5; population variance (1 + 9 + 0 + 4)/4 - 2.25 = 1.25; SE sqrt(1.25/4)
    m, se = t.mean_se("x")
    assert m == 1.5 and se == pytest.approx(math.sqrt(1.25 / 4))
    # covariance of the means: (mean of xy - mean x * mean y) / n = (8.5/4 - 1.5 * .9375) / 4
    assert t.covariance("x", "y") == pytest.approx((8.5 / 4 - 1.5 * 0.9375) / 4)
    # and the scalar functions agree on arrays, elementwise
    p, s = mc.proportion(np.array([0, 2, 4]), 4)
    assert p.tolist() == [0, 0.5, 1] and s.tolist() == [0, 0.25, 0]


def test_block_axes_and_carry_give_the_sums_of_one_loop():
    rng = np.random.default_rng(1)
    g = np.column_stack([rng.integers(0, 4, 300), rng.random(300), rng.integers(0, 3, 300)])
    whole = OUT.tally(g)
    loop = 0.0
    for v in g[:, 1]:  # what a kernel's ``acc += y`` gives
        loop += v
    assert whole.sum("y") == loop  # bitwise: sums run in game order
    t = None
    for lo in range(0, 300, 7):  # pieces carried on: the same bits
        t = OUT.tally(g[lo:lo + 7], t)
    assert t.n == 300 and t.sum("y") == whole.sum("y")
    assert t.product("x", "y") == whole.product("x", "y")
    assert t.count("w", "x").tolist() == whole.count("w", "x").tolist()
    empty = OUT.tally(np.zeros((2, 0, 3)))  # no games: zero sums and counts
    assert empty.n == 0 and empty.sum("y").tolist() == [0, 0]
    assert empty.count("w", "x").shape == (2, 3, 4) and not empty.count("w").any()
    blocks = OUT.tally(np.stack([g[:150], g[150:]]))  # two blocks reduced at once
    assert blocks.sum("y")[1] == OUT.tally(g[150:]).sum("y")
    assert blocks.count("w")[0].tolist() == OUT.tally(g[:150]).count("w").tolist()


def test_bad_records_are_internal_errors():
    with pytest.raises(DustsimError, match="outside"):
        OUT.tally(np.array([[5, 0.0, 0]]))
    with pytest.raises(DustsimError, match="columns"):
        OUT.tally(np.zeros((2, 2)))
    with pytest.raises(DustsimError, match="not in"):
        mc.Outcomes(("a",), sums=("b",))


def _fake(rng, n, payload):
    """A fake kernel: the chunk's games from its generator state (x, y, w)."""
    from dustsim.engines.rng import uniform

    out = np.zeros((n, 3))
    for i in range(n):
        u = uniform(rng)
        out[i] = (int(u * 4), u * payload, int(u * 3))
    return out


def test_same_seed_same_tally_for_any_thread_count():
    run = mc.MonteCarloRun(1000, 7, 64)
    t1 = mc.run(_fake, 2.5, run, OUT, threads=1)
    t3 = mc.run(_fake, 2.5, run, OUT, threads=3)
    assert t1.n == 1000 and t3.n == 1000
    for a, b in ((t1.sums, t3.sums), (t1.products, t3.products), (t1.counts, t3.counts)):
        assert all(np.array_equal(a[k], b[k]) for k in a)
    # chunk i draws from the i-th child of SeedSequence(seed); chunks add in order
    by_hand = None
    for i in range(run.n_chunks):
        from dustsim.engines.rng import state

        ss = np.random.SeedSequence(7, spawn_key=(i,))
        t = OUT.tally(_fake(state(ss), run.size(i), 2.5))
        by_hand = t if by_hand is None else by_hand + t
    assert t1.sum("y") == by_hand.sum("y") and t1.product("x", "y") == by_hand.product("x", "y")
    assert mc.run(_fake, 2.5, mc.MonteCarloRun(1000, 8, 64), OUT).sum("y") != t1.sum("y")
    # one stream in this thread: SeedSequence(seed) itself
    from dustsim.engines.rng import state

    s = mc.run_stream(_fake, 2.5, np.random.SeedSequence(7), 50, OUT)
    assert s.sum("y") == OUT.tally(_fake(state(np.random.SeedSequence(7)), 50, 2.5)).sum("y")


def test_a_run_is_checked():
    with pytest.raises(DustsimError):
        mc.MonteCarloRun(0, 1, 64)
    with pytest.raises(DustsimError):
        mc.MonteCarloRun(10, -1, 64)
    assert mc.MonteCarloRun(10, 1, 4).n_chunks == 3 and mc.MonteCarloRun(10, 1, 4).size(2) == 2
