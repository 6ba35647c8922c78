"""The one Monte Carlo accounting loop: seeded chunks, per-game outcomes, figures and errors.

Every Monte Carlo driver (attacks, duels, list battles, grid battles, the value model's
engagements, Dust Epic) runs through here:

* :class:`MonteCarloRun` describes a run: ``trials`` split into fixed chunks of ``chunk``
  (part of the stream definition: results depend on it), chunk *i* drawing from the *i*-th
  child of ``SeedSequence(seed)``.
* :func:`run_chunks` runs a task per chunk on threads (bounded look-ahead, progress bar or
  the long-run note) and sums the returned arrays **in chunk order**, so the same seed gives
  bitwise the same sums for any thread count.
* :class:`Outcomes` names the columns of a kernel's per-game outcome record (one row per
  game) and what is kept of them: sums, sums of products (squares and cross products) and
  counts. :meth:`Outcomes.tally` reduces a block of games to a :class:`Tally` (sums in game
  order, so a float sum is the one a loop ``acc += x`` gives); tallies add in chunk order.
  :func:`run` is the chunked runner for a kernel that returns per-game records;
  :func:`run_stream` plays one stream in this thread (common random numbers).
* The figures: :func:`proportion` (a probability and its binomial standard error),
  :func:`mean_var` / :func:`mean_se` (a mean and the variance / standard error of the mean),
  :func:`covariance` (the covariance of two means), all elementwise on scalars or arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from dustsim.errors import DustsimError


# -- the figures -------------------------------------------------------------------------------
def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


def proportion_se(p, n):
    """The binomial standard error ``sqrt(p (1 - p) / n)`` of a share ``p`` of ``n`` games."""
    p = np.asarray(p, float)
    return _scalar(np.sqrt(np.maximum(p * (1 - p), 0.0) / n))


def proportion(count, n):
    """``(p, se)``: the share ``count / n`` and its binomial standard error (0 when ``p`` is 0
    or 1)."""
    p = np.asarray(count, float) / n
    return _scalar(p), proportion_se(p, n)


def variance(s, s2, n):
    """The (population) variance of a quantity from its sum ``s`` and sum of squares ``s2``
    over ``n`` games: ``s2/n - (s/n)^2``, never below 0."""
    m = np.asarray(s, float) / n
    return _scalar(np.maximum(np.asarray(s2, float) / n - m * m, 0.0))


def mean_var(s, s2, n):
    """``(mean, variance of the mean)`` of a quantity from its sum and sum of squares."""
    return _scalar(np.asarray(s, float) / n), _scalar(np.asarray(variance(s, s2, n)) / n)


def mean_se(s, s2, n):
    """``(mean, standard error)`` of a quantity from its sum and sum of squares."""
    m, v = mean_var(s, s2, n)
    return m, _scalar(np.sqrt(v))


def covariance(sxy, sx, sy, n):
    """Covariance of the means of x and y (same games) from the sums of x, y and x*y."""
    mx = np.asarray(sx, float) / n
    my = np.asarray(sy, float) / n
    return _scalar((np.asarray(sxy, float) / n - mx * my) / n)


# -- per-game outcomes -------------------------------------------------------------------------
@dataclass(frozen=True)
class Tally:
    """What is kept of ``n`` games (:meth:`Outcomes.tally`): ``sums`` by column name,
    ``products`` by pair of names (``(x, x)``: the sum of squares), ``counts`` by the tuple
    of names counted jointly (an integer array of the declared shape). Leading axes (blocks
    of games reduced at once) are kept."""

    n: int
    sums: dict[str, np.ndarray] = field(default_factory=dict)
    products: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    counts: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.n + other.n,
                     {k: v + other.sums[k] for k, v in self.sums.items()},
                     {k: v + other.products[k] for k, v in self.products.items()},
                     {k: v + other.counts[k] for k, v in self.counts.items()})

    def sum(self, x: str):
        return self.sums[x]

    def product(self, x: str, y: str | None = None):
        return self.products[(x, y or x)]

    def count(self, *names: str):
        return self.counts[names]

    def proportion(self, name: str, k: int):
        """``(p, se)`` of ``name == k``."""
        return proportion(self.counts[(name,)][..., k], self.n)

    def mean_se(self, x: str):
        """``(mean, standard error)`` of column ``x``."""
        return mean_se(self.sums[x], self.products[(x, x)], self.n)

    def mean_var(self, x: str):
        return mean_var(self.sums[x], self.products[(x, x)], self.n)

    def covariance(self, x: str, y: str):
        """Covariance of the means of ``x`` and ``y``."""
        return covariance(self.products[(x, y)], self.sums[x], self.sums[y], self.n)


@dataclass(frozen=True)
class Outcomes:
    """The per-game record of a kernel and what is kept of it.

    ``columns``: the record's column names (a kernel writes ``games[n, len(columns)]``);
    ``sums``: columns summed; ``products``: pairs whose products are summed (``(x, x)`` for a
    standard error, ``(x, y)`` for a covariance); ``counts``: ``(names, shape)``, the games
    counted by the joint integer value of those columns (each in ``range(shape[i])``)."""

    columns: tuple[str, ...]
    sums: tuple[str, ...] = ()
    products: tuple[tuple[str, str], ...] = ()
    counts: tuple[tuple[tuple[str, ...], tuple[int, ...]], ...] = ()

    def __post_init__(self) -> None:
        known = set(self.columns)
        used = [*self.sums, *(c for p in self.products for c in p),
                *(c for names, _ in self.counts for c in names)]
        bad = [c for c in used if c not in known]
        if bad:
            raise DustsimError(f"internal: outcome columns {bad} not in {self.columns}")

    def tally(self, games: np.ndarray, carry: Tally | None = None) -> Tally:
        """Reduce ``games[..., n, F]`` (leading axes: blocks reduced separately). Sums run in
        game order (``cumsum``), so they equal an ``acc += x`` loop bit for bit; with
        ``carry`` (the tally of the stream's earlier games) they go on from its sums, so a
        stream tallied piece by piece gives the sums of one loop over all its games."""
        games = np.asarray(games, float)
        if games.shape[-1] != len(self.columns):
            raise DustsimError(f"internal: a game record has {games.shape[-1]} columns, "
                               f"expected {len(self.columns)}")
        n = games.shape[-2]
        col = {c: games[..., i] for i, c in enumerate(self.columns)}

        def total(x, start):
            if start is not None:
                x = np.concatenate([np.asarray(start, float)[..., None], x], axis=-1)
            if x.shape[-1] == 0:
                return np.zeros(x.shape[:-1])
            return np.cumsum(x, axis=-1)[..., -1]
        c0 = carry if carry is not None else Tally(0, dict.fromkeys(self.sums),
                                                   dict.fromkeys(self.products))
        sums = {c: total(col[c], c0.sums[c]) for c in self.sums}
        products = {(a, b): total(col[a] * col[b], c0.products[(a, b)])
                    for a, b in self.products}
        counts = {}
        for names, shape in self.counts:
            idx = np.zeros(games.shape[:-1], np.int64)
            for c, k in zip(names, shape, strict=True):
                v = col[c].astype(np.int64)
                if v.size and (v.min() < 0 or v.max() >= k):
                    raise DustsimError(f"internal: outcome {c!r} outside 0..{k - 1}")
                idx = idx * k + v
            size = math.prod(shape)
            blocks = math.prod(games.shape[:-2])
            idx = idx.reshape(blocks, n) + np.arange(blocks, dtype=np.int64)[:, None] * size
            out = np.bincount(idx.ravel(), minlength=blocks * size).astype(np.int64)
            counts[names] = out.reshape(*games.shape[:-2], *shape)
            if carry is not None:
                counts[names] = counts[names] + carry.counts[names]
        return Tally(n + (carry.n if carry is not None else 0), sums, products, counts)


# -- the runner --------------------------------------------------------------------------------
@dataclass(frozen=True)
class MonteCarloRun:
    """A run's stream definition: ``trials`` in chunks of ``chunk``, chunk *i* seeded from the
    *i*-th child of ``SeedSequence(seed)``; ``desc``/``unit`` label its progress."""

    trials: int
    seed: int
    chunk: int
    desc: str = "monte carlo"
    unit: str = "trial"

    def __post_init__(self) -> None:
        from dustsim.limits import check_int

        check_int(self.trials, "trials", "trials")
        check_int(self.seed, "seed", "seed")
        if isinstance(self.chunk, bool) or not isinstance(self.chunk, int) or self.chunk < 1:
            raise DustsimError(f"internal: chunk must be a positive integer, got {self.chunk!r}")

    @property
    def n_chunks(self) -> int:
        return -(-self.trials // self.chunk)

    def seed_seq(self, i: int) -> np.random.SeedSequence:
        """Chunk *i*'s SeedSequence (= the *i*-th child of ``SeedSequence(seed)``)."""
        return np.random.SeedSequence(self.seed, spawn_key=(i,))

    def size(self, i: int) -> int:
        return min(self.chunk, self.trials - i * self.chunk)


def default_threads() -> int:
    """Threads of a run: ``DUSTSIM_THREADS``, else every core."""
    import os

    env = os.environ.get("DUSTSIM_THREADS")
    if env:
        return max(1, int(env))
    return max(1, os.cpu_count() or 1)


#: a run whose remaining time is estimated above this many seconds gets one note
LONG_RUN_S = 60.0


class _LongRunNote:
    """Without a progress bar (no terminal, --quiet, --json), a long Monte Carlo run says once,
    after two seconds of work, how long it will take at the rate so far (issue 27: 1e9 trials
    ran for many minutes with no word). Logged on the ``dustsim`` logger (stderr by default).
    The rate is measured from the end of the first chunk: that chunk includes the kernels'
    first-run compile, which would make the estimate minutes too long."""

    def __init__(self, trials: int, desc: str):
        self.trials, self.desc, self.done = trials, desc, 0
        self.t0: float | None = None
        self.done0 = 0
        self.said = False

    def update(self, n: int) -> None:
        import time

        self.done += n
        if self.said or self.done >= self.trials:
            return
        if self.t0 is None:  # first chunk: compile time included, start measuring here
            self.t0, self.done0 = time.perf_counter(), self.done
            return
        elapsed = time.perf_counter() - self.t0
        if elapsed < 2.0:
            return
        self.said = True
        left = elapsed * (self.trials - self.done) / (self.done - self.done0)
        if left > LONG_RUN_S:
            import logging

            logging.getLogger("dustsim").warning(
                "dustsim: note: %s %s: about %.0f min left at the rate so far (Ctrl-C stops "
                "cleanly)", f"{self.trials:,}", self.desc, left / 60)


def _add(acc, res):
    if acc is None:
        return res
    if isinstance(acc, Tally):
        return acc + res
    return tuple(x + y for x, y in zip(acc, res, strict=True))


def run_chunks(task, payload, trials: int, seed: int, *, chunk: int, threads: int | None,
               progress: bool, desc: str, unit: str) -> tuple:
    """Run ``task((seed_seq, n, payload))`` over the chunks of ``MonteCarloRun(trials, seed,
    chunk)`` on threads and add the results (tuples of arrays, or :class:`Tally`) in chunk
    order: the sums are the same for any thread count."""
    from dustsim.limits import check_int

    mc = MonteCarloRun(trials, seed, chunk, desc, unit)
    check_int(threads, "threads", "threads")
    acc = None
    threads = threads or default_threads()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=trials, unit=unit, unit_scale=True, desc=desc, leave=False)
    estimate = _LongRunNote(trials, desc) if bar is None else None
    n_chunks = mc.n_chunks
    with ThreadPoolExecutor(max_workers=threads) as ex:
        window = 2 * threads  # bounded look-ahead: memory stays flat for any trial count
        pending = []
        for i in range(n_chunks):
            # chunk i's SeedSequence and size are built when it is submitted
            pending.append((mc.size(i), ex.submit(task, (mc.seed_seq(i), mc.size(i), payload))))
            while pending and (len(pending) >= window or i == n_chunks - 1):
                n, fut = pending.pop(0)
                acc = _add(acc, fut.result())
                if bar is not None:
                    bar.update(n)
                elif estimate is not None:
                    estimate.update(n)
    if bar is not None:
        bar.close()
    return acc


def _games_task(args):
    """A chunk of :func:`run`: the kernel's per-game records, reduced."""
    seed_seq, n, (kernel, payload, outcomes) = args
    from dustsim.engines.rng import state

    return outcomes.tally(kernel(state(seed_seq), n, payload))


def run(kernel: Callable, payload, mc: MonteCarloRun, outcomes: Outcomes, *,
        threads: int | None = None, progress: bool = False) -> Tally:
    """The chunked seeded runner: ``kernel(rng_state, n, payload) -> games[n, F]`` (the
    per-game records of :class:`Outcomes` ``outcomes``) per chunk of ``mc``, reduced and added
    in chunk order."""
    return run_chunks(_games_task, (kernel, payload, outcomes), mc.trials, mc.seed,
                      chunk=mc.chunk, threads=threads, progress=progress, desc=mc.desc,
                      unit=mc.unit)


def run_stream(kernel: Callable, payload, seed_seq: np.random.SeedSequence, n: int,
               outcomes: Outcomes) -> Tally:
    """``n`` games from one stream (``seed_seq`` itself, not a child), in this thread: what
    common random numbers need (two runs that share a seed share their dice)."""
    return _games_task((seed_seq, n, (kernel, payload, outcomes)))

