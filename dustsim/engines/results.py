"""The one result API every result object answers, and the attack result.

Every result (attack, duel, list battle, Dust Epic battle, value model) is a frozen
dataclass that mixes in :class:`ResultAPI` and so answers

* ``summary() -> dict``: flat dict (str -> float, int or str) of its headline figures;
* ``to_frame() -> pandas.DataFrame``: one tidy long table, columns :data:`FRAME_COLUMNS`
  (``side``/``unit`` "" where they do not apply, ``k`` the outcome value of a distribution
  row else NA, ``se`` NaN for exact figures);
* ``se(name) -> float``: standard error of the summary figure ``name`` (0.0 for an exact
  result); a name without one raises :class:`~dustsim.errors.DustsimError` listing the
  valid names.

``to_dict()`` keeps the full JSON record (nested tables, notes) that the CLI's ``--json``
prints. Outcome words are ``p_a_wins``, ``p_b_wins`` and ``p_draw``; each result's docstring
says what a draw is there.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from dustsim.engines.distributions import Distribution
from dustsim.errors import DustsimError

if TYPE_CHECKING:
    import pandas as pd

TOKEN_NAMES = ("none", "under-fire", "suppressed")

#: the columns of every result's ``to_frame()``
FRAME_COLUMNS = ("quantity", "side", "unit", "k", "value", "se")


def binomial_se(p: float, trials: int | None) -> float:
    """Standard error of a Monte Carlo probability estimate (0.0 when exact: no trials)."""
    if not trials:
        return 0.0
    from dustsim.engines.montecarlo import proportion_se

    return proportion_se(p, trials)


def frame(rows: list[dict]) -> pd.DataFrame:
    """The tidy result table from row dicts (missing ``side``/``unit`` -> "", ``k`` -> NA,
    ``se`` -> NaN)."""
    import pandas as pd

    full = [{"quantity": r["quantity"], "side": r.get("side", ""), "unit": r.get("unit", ""),
             "k": r.get("k"),
             "value": math.nan if r["value"] is None else float(r["value"]),
             "se": math.nan if r.get("se") is None else float(r["se"])} for r in rows]
    out = pd.DataFrame(full, columns=list(FRAME_COLUMNS))
    out["k"] = out["k"].astype("Int64")
    return out


def distribution_rows(quantity: str, dist: Distribution, *, side: str = "",
                      unit: str = "") -> list[dict]:
    """One frame row per outcome value of ``dist``: value P(X = k), se its Monte Carlo
    standard error (NaN when exact)."""
    n = dist.trials
    return [{"quantity": quantity, "side": side, "unit": unit, "k": k, "value": p,
             "se": binomial_se(p, n) if n else None} for k, p in enumerate(dist.to_list())]


def flat(d: dict) -> dict:
    """The scalar entries of a record (None -> NaN; nested values and ``se_*`` dropped)."""
    out = {}
    for k, v in d.items():
        if k.startswith("se_"):
            continue
        if v is None:
            out[k] = math.nan
        elif isinstance(v, (bool, str)):
            out[k] = v
        elif isinstance(v, numbers.Integral):
            out[k] = int(v)
        elif isinstance(v, numbers.Real):
            out[k] = float(v)
    return out


class ResultAPI:
    """Mixin of the result API (module docstring). A result implements ``to_dict()`` and
    ``_standard_errors()`` (summary name -> standard error, exact figures 0.0); it may add
    distribution rows through ``_frame_rows()``. ``_SE_ALIASES`` maps the names an older
    ``se()`` took to summary names (deprecated)."""

    _SE_ALIASES: ClassVar[dict[str, str]] = {}

    def to_dict(self) -> dict:  # pragma: no cover - every result overrides it
        raise NotImplementedError

    def _standard_errors(self) -> dict[str, float]:  # pragma: no cover
        raise NotImplementedError

    def _frame_rows(self) -> list[dict]:
        return []

    def summary(self) -> dict:
        """Flat dict of the headline figures (str -> float, int or str)."""
        return flat(self.to_dict())

    def se(self, name: str) -> float:
        """Standard error of the summary figure ``name`` (0.0 for an exact figure)."""
        table = self._standard_errors()
        if isinstance(name, str) and name in self._SE_ALIASES:
            warnings.warn(f"se({name!r}) is deprecated: use se({self._SE_ALIASES[name]!r})",
                          DeprecationWarning, stacklevel=2)
            name = self._SE_ALIASES[name]
        if name not in table:
            raise DustsimError(f"{type(self).__name__} has no standard error for {name!r}; "
                               f"valid names: {', '.join(table)}", field="se")
        return float(table[name])

    def to_frame(self) -> pd.DataFrame:
        """Tidy long table (:data:`FRAME_COLUMNS`): one row per summary figure with a
        standard error, then the distribution rows."""
        s = self.summary()
        ses = self._standard_errors()
        exact = all(v == 0.0 for v in ses.values())
        rows = [{"quantity": k, "value": s[k], "se": None if exact else ses[k]}
                for k in ses if k in s]
        return frame(rows + self._frame_rows())


@dataclass(frozen=True)
class AttackResult(ResultAPI):
    """Distributions of one attack's outcomes.

    ``damage`` is damage marked, capped at what the target has left (models removed for a
    squad, plus the joined hero's damage); ``models_killed`` counts squad models;
    ``single_damage`` is the damage marked on the hero, vehicle or support weapon.
    ``token`` maps the target's token after the attack to its probability (Dust 1947).
    One attack has no winner: its outcome words are ``p_destroyed`` and the means.
    """

    engine: str
    hits: Distribution
    unsaved: Distribution
    damage: Distribution
    models_killed: Distribution
    single_damage: Distribution
    p_destroyed: float
    token: dict[str, float] | None = None
    dropped_mass: float = 0.0
    trials: int | None = None
    seed: int | None = None
    p_destroyed_se: float | None = None
    notes: tuple[str, ...] = field(default=())
    #: the hit allocation that ran (:data:`dustsim.rules.attack.ALLOCATIONS`)
    allocation: str | None = None

    def _items(self) -> list[tuple[str, str]]:
        from dustsim.engines.display import num, with_se

        se = (lambda d: d.mean_se) if self.engine == "mc" else (lambda d: None)
        items = [("mean damage", with_se(self.damage.mean(), se(self.damage))),
                 ("P(destroyed)", with_se(self.p_destroyed, self.p_destroyed_se)),
                 ("mean hits", with_se(self.hits.mean(), se(self.hits))),
                 ("mean unsaved hits", with_se(self.unsaved.mean(), se(self.unsaved)))]
        if self.engine == "mc":
            items.append(("trials", f"{self.trials:,}, seed {self.seed}"))
        elif self.dropped_mass:
            items.append(("mass dropped", num(self.dropped_mass, 2)))
        return items

    def __repr__(self) -> str:
        from dustsim.engines.display import text

        return text("AttackResult", self.engine, self._items())

    def _repr_html_(self) -> str:
        from dustsim.engines.display import table

        return table(f"Attack ({self.engine} engine)", self._items(), self.damage.to_list(),
                     "damage")

    def to_dict(self) -> dict:
        """The full record: the CLI's --json object (pmf, token and notes included)."""
        d = {
            "engine": self.engine,
            "mean_hits": self.hits.mean(),
            "mean_unsaved_hits": self.unsaved.mean(),
            "mean_damage": self.damage.mean(),
            "mean_models_killed": self.models_killed.mean(),
            "mean_single_damage": self.single_damage.mean(),
            "p_destroyed": self.p_destroyed,
            "pmf_damage": self.damage.to_list(),
        }
        if self.allocation is not None:
            d["allocation"] = self.allocation
        if self.token is not None:
            d["p_token"] = dict(self.token)
        if self.engine == "exact":
            d["dropped_mass"] = self.dropped_mass
        else:
            d.update(
                trials=self.trials, seed=self.seed,
                se_hits=self.hits.mean_se, se_unsaved_hits=self.unsaved.mean_se,
                se_damage=self.damage.mean_se, se_models_killed=self.models_killed.mean_se,
                se_single_damage=self.single_damage.mean_se,
                se_p_destroyed=self.p_destroyed_se,
            )
        if self.notes:
            d["notes"] = list(self.notes)
        return d

    def summary(self) -> dict:
        """Flat headline figures; the token after the attack as ``p_token_<name>``."""
        d = flat(self.to_dict())
        for name, p in (self.token or {}).items():
            d[f"p_token_{name}"] = float(p)
        return d

    def _standard_errors(self) -> dict[str, float]:
        mc = self.engine == "mc"
        out = {f"mean_{q}": (getattr(self, attr).mean_se or 0.0) if mc else 0.0
               for q, attr in (("hits", "hits"), ("unsaved_hits", "unsaved"),
                               ("damage", "damage"), ("models_killed", "models_killed"),
                               ("single_damage", "single_damage"))}
        out["p_destroyed"] = (self.p_destroyed_se or 0.0) if mc else 0.0
        for name, p in (self.token or {}).items():
            out[f"p_token_{name}"] = binomial_se(p, self.trials) if mc else 0.0
        return out

    def _frame_rows(self) -> list[dict]:
        rows = []
        for q in ("hits", "unsaved", "damage", "models_killed", "single_damage"):
            rows += distribution_rows(q, getattr(self, q))
        return rows
