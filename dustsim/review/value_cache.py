"""A disk cache of the whole value model, by content (issue 24, item 4).

The value model of an edition (:func:`dustsim.review.value.value_model`: engagements against
the reference field, battles, the calibration) is the heaviest part of ``dustsim report``,
and ``report``, ``report --patch`` and ``whatif`` all start from the same one. It is a pure
function of the edition's cards, the model's settings and the code, so it is stored under a
hash of exactly those:

- every card of the edition, whole (``repr``: numbers, skills, costs, sources; stable across
  processes and hash seeds);
- :attr:`ValueSettings.key` and the battle settings;
- the source of the whole ``dustsim`` package (every ``.py`` file: a change anywhere in the
  engines, the rules or the model gives a new key), and the versions of Python, NumPy,
  Numba, pandas, SciPy and scikit-learn.

Any change gives a new key, so a stale entry is never read; a hit is the same object a fresh
run returns (the tests compare the two). The cache lives beside the card cache
(:func:`dustsim.data.card_cache.cache_dir`: ``$DUSTSIM_CACHE_DIR``, else
``$XDG_CACHE_HOME/dustsim``, else ``~/.cache/dustsim``), keeps the newest :data:`KEEP`
entries, and ``DUSTSIM_VALUE_CACHE=0`` turns it off. A cache that cannot be read or written
is ignored (the model is computed). Only a default run is cached: a patch's model (``after``)
and runs given a field, hosts or mapping are computed each time.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path

import pandas as pd

from dustsim.data.card_cache import cache_dir, store
from dustsim.data.cards import Card
from dustsim.review.value import ValueModel, ValueSettings, value_model

PACKAGE = Path(__file__).resolve().parents[1]
KEEP = 3  # value models kept (one per edition, settings and code version)
PREFIX = "value-"


def enabled() -> bool:
    return os.environ.get("DUSTSIM_VALUE_CACHE", "1") not in ("0", "", "no", "false")


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """The package source and the versions of what computes the model."""
    from importlib.metadata import PackageNotFoundError, version

    h = hashlib.blake2b(digest_size=16)
    h.update(sys.version.encode())
    for dist in ("numpy", "numba", "pandas", "scipy", "scikit-learn"):
        try:
            h.update(f"{dist}={version(dist)}\0".encode())
        except PackageNotFoundError:
            h.update(f"{dist}=?\0".encode())
    for f in sorted(PACKAGE.rglob("*.py")):
        h.update(str(f.relative_to(PACKAGE)).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()


def key(edition_cards: list[Card], settings: ValueSettings) -> str:
    """The content key of one value model (module docstring)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(_code_digest().encode())
    h.update(repr(settings).encode())
    h.update(repr(list(edition_cards)).encode("utf-8"))
    return h.hexdigest()


def path_for(edition_cards: list[Card], settings: ValueSettings) -> Path:
    return cache_dir() / f"{PREFIX}{key(edition_cards, settings)}.pickle"


def cached_value_model(edition_cards: list[Card], settings: ValueSettings, *,
                       progress: bool = False, client=None,
                       previous: pd.DataFrame | None = None,
                       previous_battles: pd.DataFrame | None = None
                       ) -> tuple[ValueModel, bool]:
    """``value_model(edition_cards, settings)``, read from the cache when the same cards,
    settings and code computed it before; ``(model, True)`` on a hit. ``client`` (a Dask
    cluster) and ``previous``/``previous_battles`` (rows of an earlier report, reused where
    nothing changed: ``whatif --baseline``) only change how a miss is computed, never the
    result (the tables are bitwise the same however they ran)."""
    def compute() -> ValueModel:
        return value_model(edition_cards, settings, progress=progress, client=client,
                           previous=previous, previous_battles=previous_battles)

    if not enabled():
        return compute(), False
    try:
        path = path_for(edition_cards, settings)
    except OSError:
        return compute(), False
    try:
        vm = pickle.loads(path.read_bytes())
        if isinstance(vm, ValueModel):
            os.utime(path)  # the newest use is kept longest
            return vm, True
    except Exception:  # absent, unreadable or from another version: compute afresh
        pass
    vm = compute()
    store(path, vm, f"{PREFIX}*.pickle", KEEP)
    return vm, False
