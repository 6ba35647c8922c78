"""Discrete outcome distributions with a scipy.stats-like surface (pmf, cdf, sf, mean...)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Distribution:
    """A distribution over 0, 1, 2, ... given by ``probs[k] = P(X = k)``.

    ``dropped`` is probability mass the exact engine truncated (below 1e-12); ``trials`` is
    set when the distribution is a Monte Carlo estimate, and then ``mean_se``
    (= ``se("mean")``) is the standard error of the mean. ``exact_mean`` overrides the mean
    when the histogram's last bin collects an overflow (Monte Carlo keeps exact sums).
    """

    probs: np.ndarray
    dropped: float = 0.0
    trials: int | None = None
    exact_mean: float | None = None
    exact_var: float | None = None
    _support: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        p = np.asarray(self.probs, dtype=float)
        object.__setattr__(self, "probs", p)
        object.__setattr__(self, "_support", np.arange(len(p)))

    def _repr_html_(self) -> str:
        from dustsim.engines.display import num, table

        return table("Distribution", [("mean", num(self.mean())), ("sd", num(self.std()))],
                     list(map(float, self.probs)))

    # -- scipy.stats-like ----------------------------------------------------------------
    def pmf(self, k) -> np.ndarray | float:
        k = np.asarray(k)
        out = np.where((k >= 0) & (k < len(self.probs)),
                       self.probs[np.clip(k, 0, len(self.probs) - 1)], 0.0)
        return float(out) if out.ndim == 0 else out

    def cdf(self, k) -> np.ndarray | float:
        c = np.cumsum(self.probs)
        k = np.asarray(k)
        out = np.where(k < 0, 0.0, c[np.clip(k, 0, len(c) - 1)])
        return float(out) if out.ndim == 0 else out

    def sf(self, k) -> np.ndarray | float:
        """P(X > k)."""
        return 1.0 - self.cdf(k) if np.ndim(k) else float(1.0 - self.cdf(k))

    def at_least(self, k: int) -> float:
        """P(X >= k): the 'chance of at least k' curve."""
        return float(self.sf(k - 1))

    def mean(self) -> float:
        if self.exact_mean is not None:
            return self.exact_mean
        return float(self._support @ self.probs)

    def var(self) -> float:
        if self.exact_var is not None:
            return self.exact_var
        m = float(self._support @ self.probs)
        return float(((self._support - m) ** 2) @ self.probs)

    def std(self) -> float:
        return float(np.sqrt(max(self.var(), 0.0)))

    def quantile(self, q: float) -> int:
        """Smallest k with P(X <= k) >= q."""
        if not 0 <= q <= 1:
            raise ValueError("q must be in [0, 1]")
        c = np.cumsum(self.probs)
        return int(min(np.searchsorted(c, q - 1e-12), len(c) - 1))

    ppf = quantile

    @property
    def mean_se(self) -> float | None:
        """Standard error of the mean (Monte Carlo only)."""
        if not self.trials:
            return None
        return self.std() / np.sqrt(self.trials)

    # -- the result API (dustsim.engines.results) ------------------------------------------
    def summary(self) -> dict:
        """Flat headline figures: mean, sd, max, trials (0 when exact)."""
        return {"mean": self.mean(), "sd": self.std(), "max": self.max,
                "trials": self.trials or 0}

    def se(self, name: str) -> float:
        """Standard error of a summary figure: ``mean`` (0.0 when exact)."""
        from dustsim.errors import DustsimError

        if name != "mean":
            raise DustsimError(f"Distribution has no standard error for {name!r}; valid "
                               f"names: mean", field="se")
        return self.mean_se or 0.0

    def to_frame(self):
        """Tidy rows (:data:`dustsim.engines.results.FRAME_COLUMNS`): the mean, then
        P(X = k) per k."""
        from dustsim.engines.results import distribution_rows, frame

        return frame([{"quantity": "mean", "value": self.mean(), "se": self.mean_se},
                      *distribution_rows("pmf", self)])

    @property
    def max(self) -> int:
        nz = np.nonzero(self.probs > 0)[0]
        return int(nz[-1]) if len(nz) else 0

    def to_list(self, eps: float = 0.0) -> list[float]:
        p = self.probs[: self.max + 1]
        return [float(x) if x > eps else 0.0 for x in p]

    def __repr__(self) -> str:
        kind = f"MC, {self.trials} trials" if self.trials else "exact"
        return f"Distribution(mean={self.mean():.6g}, max={self.max}, {kind})"


def point_mass(k: int = 0) -> Distribution:
    p = np.zeros(k + 1)
    p[k] = 1.0
    return Distribution(p)


def mixture(parts: list[tuple[float, Distribution]]) -> Distribution:
    n = max(len(d.probs) for _, d in parts)
    out = np.zeros(n)
    dropped = 0.0
    for w, d in parts:
        out[: len(d.probs)] += w * d.probs
        dropped += w * d.dropped
    return Distribution(out, dropped=dropped)
