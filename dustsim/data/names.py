"""Names as people type them: accent- and case-insensitive matching, closest suggestions.

``Guai-lo`` finds ``Guaï-lo`` and ``Konigsluther`` finds ``Königsluther``; a name that matches
nothing gets the closest known names (rapidfuzz), so that an error message can offer them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable


def fold(name: str) -> str:
    """Accents stripped, case folded, spaces collapsed: the key two spellings share."""
    s = unicodedata.normalize("NFKD", str(name))
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    return " ".join(s.casefold().split())


def match_key(name: str) -> str:
    """The key two spellings of one unit or chart name share: case, accents and punctuation
    dropped, "&" read as "and" (``"Pounder & Co."`` and ``"pounder and co"`` match). The one
    normaliser of the list checker and the platoon builder."""
    s = unicodedata.normalize("NFKD", str(name).casefold().replace("&", " and "))
    return re.sub(r"[^0-9a-z]", "", s)


def closest(name: str, candidates: Iterable[str], limit: int = 3,
            cutoff: float = 65.0) -> list[str]:
    """The ``limit`` candidates closest to ``name`` (accent-insensitive), best first."""
    from rapidfuzz import fuzz, process, utils

    names = list(dict.fromkeys(candidates))
    if not names:
        return []
    folded = [fold(n) for n in names]
    hits = process.extract(fold(name), folded, scorer=fuzz.WRatio, limit=limit,
                           score_cutoff=cutoff, processor=utils.default_process)
    return [names[i] for _, _, i in hits]


def did_you_mean(name: str, candidates: Iterable[str], limit: int = 3) -> str:
    """'; did you mean 'A', 'B'?' or '' when nothing is close."""
    near = closest(name, candidates, limit)
    return f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
