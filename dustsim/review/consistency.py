"""The consistency lens: how a card is priced against similar cards of its edition.

**A statistical model of the price list, not a model of play.** It learns the printed cost
from the card's own numbers and skills and says, for each card, what the *rest* of the
price list would charge for it. It is the second lens of the review beside the value model
(:mod:`dustsim.review.value`, which never sees a printed cost except in its one edition-wide
mapping); a verdict is *strong* only where both lenses agree.

Features (:func:`features`; every one read from the card, none from its cost): kind, armour
type and value, models, damage track, health (models or track), move and March Move, size;
per armour column the sum over the standard weapon lines of dice x damage x carriers (a
blast cell counts 3 dice, an automatic kill 3 damage), once for short reach (close combat
and ranges up to 3) and once for long; the longest range, weapon lines, limited-ammo lines;
an indicator per skill (the name before ``:`` and without its number, e.g. "Passengers (6)"
-> ``passengers``, the number kept as its own feature) and per weapon keyword that occurs on
at least :data:`MIN_CARDS` cards of the edition.

Model: gradient-boosted trees (scikit-learn ``HistGradientBoostingRegressor``) on log AP.
**Out of fold**: the priced cards are split into :data:`FOLDS` folds (a permutation of the
sorted names drawn from ``seed``: the split does not depend on card order); each card's
``consistency_ap`` comes from the model trained on the other folds, so its own price is never
seen. The interval ``consistency_low`` / ``consistency_high`` (:data:`LEVEL`) adds to the
card's log prediction the 5 % and 95 % quantiles of the out-of-fold log errors of the cards
*outside* its fold (of its own kind where that kind has at least :data:`MIN_KIND` of them,
else of all): how far the price list usually strays from the lens for such cards, the card's
own error excluded (the cross-validation-plus idea; its width is measured by ``coverage`` in
:meth:`ConsistencyLens.quality`). A card without a printed cost gets the model trained on
every priced card and the quantiles of every error. ``consistency_peers``: the three priced
cards of the training folds nearest in (standardised) feature space, with their AP: what the
card is priced against. Deterministic for a seed (single-threaded trees, fixed ``random_state``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dustsim.data.cards import COLUMNS, Card
from dustsim.errors import DustsimError

FOLDS = 10
MIN_CARDS = 3
LEVEL = 0.90  # interval: the 5 % and 95 % quantiles of the other folds' errors
MIN_KIND = 30
PEERS = 3
SHORT = 3  # squares: ranges up to this (and close combat) count as short reach
KINDS = ("squad", "hero", "vehicle", "support", "aircraft")
_NUM = re.compile(r"\s*\(?\s*(\d+)\s*\)?\s*$")


def _norm(s: str) -> str:
    return " ".join(s.strip().lower().replace("-", " ").split())


def skill_key(skill: str) -> tuple[str, float | None]:
    """The skill's indicator name and its number, if any ("Passengers (6)" -> ("passengers",
    6.0); "Pilot: Hans" -> ("pilot", None))."""
    n = _norm(skill).split(":")[0].strip()
    m = _NUM.search(n)
    if m:
        return n[:m.start()].strip() or n, float(m.group(1))
    return n, None


def _reach(rng: str) -> int:
    if rng == "C":
        return 0
    if rng.endswith("U"):
        return 24
    try:
        return int(rng.split("-")[-1])
    except ValueError:
        return 0


def _card_numbers(card: Card) -> dict[str, float]:
    """The card's own numbers (no cost)."""
    health = (card.models if card.kind == "squad" else card.damage_track) or 0
    d: dict[str, float] = {
        f"kind_{k}": float(card.kind == k) for k in KINDS}
    d.update({f"armour_{t}": float(card.armour_type == t) for t in "IVA"})
    d["armour_value"] = float(card.armour_value or 0)
    d["models"] = float(card.models or 0)
    d["damage_track"] = float(card.damage_track or 0)
    d["health"] = float(health)
    d["move"] = float(card.move if card.move is not None else -1)
    d["march_move"] = float(card.march_move if card.march_move is not None else -1)
    d["size"] = {"small": 0.0, "standard": 1.0, "large": 2.0, "huge": 3.0}.get(card.size, 1.0)
    std = [w for w in card.weapons if not w.optional and w.count != 0]
    d["weapon_lines"] = float(len(std))
    d["ammo_lines"] = float(sum(w.ammo is not None for w in std))
    d["max_range"] = float(max((_reach(w.range) for w in std), default=-1))
    for col in COLUMNS:
        short = long_ = 0.0
        for w in std:
            cell = w.cell(col)
            if not cell.usable:
                continue
            dice = 3 * cell.blast if cell.blast else (cell.dice or 0)
            dmg = 3 if cell.auto_kill else (cell.damage or 0)
            x = dice * dmg * max(w.count, 1)
            if _reach(w.range) <= SHORT:
                short += x
            else:
                long_ += x
        d[f"short_{col}"] = short
        d[f"long_{col}"] = long_
    return d


def features(cards: list[Card]) -> pd.DataFrame:
    """One row per card (index: name), the columns described in the module docstring."""
    skills = Counter(k for c in cards for k in {skill_key(s)[0] for s in c.skills})
    kws = Counter(k for c in cards for k in {k for w in c.weapons for k in w.keywords})
    keep_s = sorted(k for k, n in skills.items() if n >= MIN_CARDS)
    keep_k = sorted(k for k, n in kws.items() if n >= MIN_CARDS)
    rows = []
    for c in cards:
        d = _card_numbers(c)
        own = {}
        for s in c.skills:
            k, num = skill_key(s)
            own[k] = max(own.get(k, 0.0), num if num is not None else 1.0)
        for k in keep_s:
            d[f"skill_{k}"] = own.get(k, 0.0)
        mine = {k for w in c.weapons if not w.optional for k in w.keywords}
        for k in keep_k:
            d[f"keyword_{k}"] = float(k in mine)
        rows.append(d)
    return pd.DataFrame(rows, index=pd.Index([c.name for c in cards], name="unit"))


def fold_of(names: Iterable[str], seed: int, folds: int = FOLDS) -> dict[str, int]:
    """Each card's fold: a seeded permutation of the sorted names dealt round-robin."""
    names = sorted(set(names))
    perm = np.random.default_rng([seed, 0xC0515]).permutation(len(names))
    return {names[j]: int(i % folds) for i, j in enumerate(perm)}


def _model(seed: int):
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(
        max_iter=150, learning_rate=0.08, max_leaf_nodes=15, min_samples_leaf=6,
        l2_regularization=1.0, early_stopping=False, random_state=seed)


@dataclass(frozen=True)
class ConsistencyLens:
    """Per card: ``consistency_ap``, ``consistency_low``, ``consistency_high`` (out of fold),
    ``consistency_fold`` and ``consistency_peers``; ``quality()`` its agreement with the
    printed costs over the priced cards."""

    table: pd.DataFrame
    seed: int
    folds: int

    def quality(self) -> dict:
        from scipy import stats

        t = self.table.dropna(subset=["ap", "consistency_ap"])
        t = t[t["ap"] > 0]
        if len(t) < 3:
            return {"n": len(t), "spearman": math.nan, "log_r2": math.nan,
                    "coverage": math.nan}
        x, y = np.log(t["consistency_ap"]), np.log(t["ap"])
        cover = ((t["ap"] >= t["consistency_low"]) & (t["ap"] <= t["consistency_high"])).mean()
        return {"n": len(t), "spearman": float(stats.spearmanr(x, y)[0]),
                "log_r2": float(np.corrcoef(x, y)[0, 1] ** 2),
                "coverage": float(cover)}


_MEMO: dict[str, ConsistencyLens] = {}


def _key(cards: list[Card], seed: int, folds: int) -> str:
    text = repr((seed, folds, sorted((c.name, c.ap, c.kind, c.armour, c.models, c.damage_track,
                                      c.move, c.march_move, c.size, c.skills, c.weapons)
                                     for c in cards)))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def consistency(cards: list[Card], *, seed: int = 0, folds: int = FOLDS) -> ConsistencyLens:
    """The lens over one edition's cards (module docstring). Memoised in this process by the
    cards' content, the seed and the folds."""
    cards = sorted(cards, key=lambda c: c.name)  # the fits see the same rows in any order
    if len({c.edition for c in cards}) > 1:
        raise DustsimError("the consistency lens prices one edition at a time",
                           field="--edition")
    key = _key(cards, seed, folds)
    if key in _MEMO:
        return _MEMO[key]
    from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: F401  (loads OpenMP
    from threadpoolctl import threadpool_limits  # before the limit, so that it applies)

    X = features(cards)
    ap = pd.Series([c.ap if c.ap and c.ap > 0 else np.nan for c in cards], index=X.index,
                   dtype=float)
    priced = ap.notna().to_numpy()
    out = pd.DataFrame({"unit": X.index, "ap": ap.to_numpy(),
                        "consistency_ap": np.nan, "consistency_low": np.nan,
                        "consistency_high": np.nan, "consistency_fold": -1,
                        "consistency_peers": ""})
    if priced.sum() < 2 * folds:
        raise DustsimError(f"the consistency lens needs at least {2 * folds} priced cards, "
                           f"got {int(priced.sum())}", field="consistency")
    fold = fold_of(X.index[priced], seed, folds)
    f = np.array([fold.get(n, -1) for n in X.index])
    Xv = X.to_numpy(float)
    y = np.log(ap.to_numpy())
    scale = Xv.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (Xv - Xv.mean(axis=0)) / scale
    names = X.index.to_numpy()
    mid = np.full(len(names), np.nan)
    peers = [""] * len(names)
    with threadpool_limits(1):  # deterministic and polite on a shared machine
        for k in [*range(folds), -1]:
            test = f == k
            if not test.any():
                continue
            train = priced & (f != k)
            m = _model(seed)
            m.fit(Xv[train], y[train])
            idx = np.flatnonzero(test)
            mid[idx] = m.predict(Xv[test])
            tr = np.flatnonzero(train)
            d = ((Z[idx][:, None, :] - Z[tr][None, :, :]) ** 2).sum(axis=2)
            near = np.argsort(d, axis=1, kind="stable")[:, :PEERS]
            for i, row in zip(idx, near, strict=True):
                peers[i] = ", ".join(f"{names[tr[j]]} ({ap.iloc[tr[j]]:g})" for j in row)
    err = y - mid  # out-of-fold log errors (NaN for unpriced cards)
    kinds = np.array([c.kind or "" for c in cards])
    q = ((1 - LEVEL) / 2, (1 + LEVEL) / 2)
    lo, hi = np.empty(len(names)), np.empty(len(names))
    for i in range(len(names)):
        other = priced & (f != f[i])
        same = other & (kinds == kinds[i])
        pool = err[same] if same.sum() >= MIN_KIND else err[other]
        lo[i], hi[i] = np.quantile(pool, q)
    out["consistency_ap"] = np.exp(mid)
    out["consistency_low"] = np.exp(mid + np.minimum(lo, 0.0))
    out["consistency_high"] = np.exp(mid + np.maximum(hi, 0.0))
    out["consistency_fold"] = f
    out["consistency_peers"] = peers
    lens = ConsistencyLens(out, seed, folds)
    _MEMO[key] = lens
    return lens
