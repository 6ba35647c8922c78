"""The outcome of one attack action, as both engines report it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dustsim.engines.distributions import Distribution

if TYPE_CHECKING:
    import pandas as pd

TOKEN_NAMES = ("none", "under-fire", "suppressed")


@dataclass(frozen=True)
class AttackResult:
    """Distributions of one attack's outcomes.

    ``damage`` is damage marked, capped at what the target has left (models removed for a
    squad, plus the joined hero's damage); ``models_killed`` counts squad models;
    ``single_damage`` is the damage marked on the hero, vehicle or support weapon.
    ``token`` maps the target's token after the attack to its probability (Dust 1947).
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

    def summary(self) -> dict:
        """Flat dict: the CLI's --json object and one row of the analytics tables."""
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

    def to_frame(self) -> pd.DataFrame:
        """Tidy long table: one row per (quantity, value) with its probability."""
        import pandas as pd

        rows = []
        for q in ("hits", "unsaved", "damage", "models_killed", "single_damage"):
            dist: Distribution = getattr(self, q)
            for k, p in enumerate(dist.to_list()):
                rows.append({"quantity": q, "value": k, "probability": p})
        return pd.DataFrame(rows)
