"""DUST ENLIST importer: the community extract of DUST ENLIST 1.50 (JSON lines) -> cards.

Reads ``units.jsonl``, ``platoons.jsonl`` and ``blocs.jsonl`` of the local copy described
in ``../shared/data/dust-enlist/README.md``. Only names, numbers and rule names are taken.

* ``type``: ``infantry`` -> squad (or ``support`` with its damage track when the unit has
  a ``health`` and the Support Weapon or Strong Point skill), ``hero``, ``vehicle``,
  ``aircraft``; the armour letter follows the type (I, V, A). ``token`` entries (the VK
  Stash) are not units: no armour, move or weapon; they are listed in the report and not
  written (nothing to rank).
* Cells ``dice/damage``: ``B`` -> ``*`` (template), ``BB``/``DB`` -> ``**``, ``AK`` -> ``#``;
  the columns a list does not reach are ``-`` (a dash on the card). Any other form becomes
  ``?`` with a flag.
* ``health`` is the damage track of heroes, vehicles, aircraft and support teams; on a
  squad, or in another form (``"3x2"``), it is kept out with a flag.
* Squad sizes are inferred from the weapons like the BattleScribe import
  (:func:`dustsim.data.importers.battlescribe.infer_models`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dustsim.data.cards import CANNOT, UNKNOWN, Card, Cell, Weapon, normalize_keyword, parse_cell
from dustsim.data.importers.battlescribe import infer_models
from dustsim.data.schema import check_keys, check_type, short
from dustsim.errors import DustsimError

EDITION = "dust-1947"
KIND_OF_TYPE = {"infantry": "squad", "hero": "hero", "vehicle": "vehicle",
                "aircraft": "aircraft"}
LETTER_OF_TYPE = {"infantry": "I", "hero": "I", "vehicle": "V", "aircraft": "A"}
MAX_ARMOUR = {"I": 4, "V": 7, "A": 3}
SIZE_SKILLS = {"small": "small", "large": "large", "huge": "huge"}
SUPPORT_SKILLS = {"support weapon", "strong point"}
TOKEN_REASON = ("a token, not a unit: no armour, move or weapon on the card; nothing to "
                "rank or fight with, so it is not written as a card")
REPOSITORY = "github:heimatt-git/dust-infinite-army-builder"


@dataclass(frozen=True)
class Entry:
    """One JSON line of the extract with its 1-based line number."""

    line: int
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data.get("id", ""))


@dataclass
class EnlistData:
    units: list[Entry]
    platoons: list[Entry]
    blocs: list[Entry]
    revision: str
    folder: Path
    faction_names: dict[str, str] = field(default_factory=dict)

    def cite(self, kind: str, e: Entry) -> str:
        return f"{REPOSITORY}@{self.revision[:7]} {kind}.jsonl L{e.line} ({e.id})"


# -- schema: the keys and types of each JSON line (the 1.50 extract's own) ------------------
_S, _I, _N, _B, _L, _D = str, int, type(None), bool, list, dict
#: key -> (allowed types, integer range or None)
UNIT_SCHEMA: dict[str, tuple[tuple[type, ...], tuple[int, int] | None]] = {
    "id": ((_S,), None), "name": ((_S,), None), "subtitle": ((_S, _N), None),
    "bloc": ((_S,), None), "type": ((_S,), None), "faction": ((_S, _N), None),
    "cost": ((_I, _N), (0, 10_000)), "health": ((_I, _S, _N), (0, 1000)),
    "move": ((_I, _N), (0, 1000)), "march": ((_I, _N), (0, 1000)),
    "armor": ((_I, _N), (0, 1000)), "capturable": ((_B,), None), "skills": ((_L, _N), None),
    "customSkills": ((_L, _N), None), "weapons": ((_L, _N), None),
    "specialFaction": ((_S, _N), None),
}
WEAPON_SCHEMA: dict[str, tuple[tuple[type, ...], tuple[int, int] | None]] = {
    "name": ((_S,), None), "count": ((_I,), (0, 1000)), "range": ((_I, _S, _N), (0, 1000)),
    "specials": ((_L, _N), None), "vsInfantry": ((_L, _N), None),
    "vsVehicle": ((_L, _N), None), "vsAircraft": ((_L, _N), None),
    "ammo": ((_I, _N), (0, 1000)), "mount": ((_S, _N), None),
}
PLATOON_SCHEMA: dict[str, tuple[tuple[type, ...], tuple[int, int] | None]] = {
    "id": ((_S,), None), "bloc": ((_S,), None), "name": ((_S,), None),
    "advantage_chars": ((_I, _N), (0, 10**6)), "onlyCombatUnitsAsSupport": ((_B,), None),
    "command": ((_L, _N), None), "combat": ((_L, _N), None),
}
BLOC_SCHEMA: dict[str, tuple[tuple[type, ...], tuple[int, int] | None]] = {
    "id": ((_S,), None), "name": ((_S,), None), "nameEn": ((_S,), None),
    "color": ((_S,), None), "factions": ((_L, _N), None),
}
_SCHEMAS = {"units": UNIT_SCHEMA, "platoons": PLATOON_SCHEMA, "blocs": BLOC_SCHEMA}


def _check_table(d: dict, schema: dict, where: str, unit: str, prefix: str = "",
                 weapon: str | None = None) -> None:
    check_keys(d, schema, file=where, unit=unit, weapon=weapon, prefix=prefix)
    for key, (types, rng) in schema.items():
        lo, hi = rng if rng else (None, None)
        check_type(d, key, types, file=where, unit=unit, weapon=weapon, prefix=prefix,
                   lo=lo, hi=hi)


def _strings(v: Any, where: str, unit: str, field: str, weapon: str | None = None) -> None:
    if v is not None and not all(isinstance(x, str) for x in v):
        bad = next(x for x in v if not isinstance(x, str))
        raise DustsimError(f"must be a list of strings, holds {short(bad)}", file=where,
                           unit=unit, weapon=weapon, field=field)


def check_entry(kind: str, d: dict, where: str) -> None:
    """One JSON line of ``kind`` (units, platoons, blocs) against its schema: unknown keys
    (with the closest valid one), wrong types and out-of-range integers are one-line errors."""
    unit = d["id"]
    _check_table(d, _SCHEMAS[kind], where, unit)
    if kind == "units":
        _strings(d.get("skills"), where, unit, "skills")
        for s in d.get("customSkills") or []:
            if not isinstance(s, dict):
                raise DustsimError(f"must be a list of tables, holds {short(s)}", file=where,
                                   unit=unit, field="customSkills")
            check_keys(s, ("name",), file=where, unit=unit, prefix="customSkills.")
            check_type(s, "name", (_S,), file=where, unit=unit, prefix="customSkills.")
        for w in d.get("weapons") or []:
            if not isinstance(w, dict):
                raise DustsimError(f"must be a list of tables, holds {short(w)}", file=where,
                                   unit=unit, field="weapons")
            wname = w.get("name") if isinstance(w.get("name"), str) else None
            _check_table(w, WEAPON_SCHEMA, where, unit, "weapons.", wname)
            for key in ("specials", "vsInfantry", "vsVehicle", "vsAircraft"):
                _strings(w.get(key), where, unit, f"weapons.{key}", wname)
    elif kind == "platoons":
        for key in ("command", "combat"):
            for slot in d.get(key) or []:
                if not isinstance(slot, list) or not all(
                        isinstance(o, list) and all(isinstance(u, str) for u in o)
                        for o in slot):
                    raise DustsimError("each slot must be a list of options, each a list of "
                                       "unit ids", file=where, unit=unit, field=key)
    else:
        for f in d.get("factions") or []:
            if not isinstance(f, dict):
                raise DustsimError(f"must be a list of tables, holds {short(f)}", file=where,
                                   unit=unit, field="factions")
            check_keys(f, ("id", "name"), file=where, unit=unit, prefix="factions.")
            for key in ("id", "name"):
                if not isinstance(f.get(key), str):
                    raise DustsimError(f"must be a string, got {short(f.get(key))}",
                                       file=where, unit=unit, field=f"factions.{key}")


#: largest extract file read (the 1.50 extract's units.jsonl is about 0.5 MB)
MAX_FILE_BYTES = 64 * 2**20


def _read_jsonl(path: Path) -> list[Entry]:
    if not path.is_file():
        raise DustsimError("no such file (expected the DUST ENLIST extract)", file=str(path))
    if path.stat().st_size > MAX_FILE_BYTES:
        raise DustsimError(f"larger than the cap of {MAX_FILE_BYTES // 2**20} MiB",
                           file=str(path))
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DustsimError(f"not UTF-8 ({exc.reason} at byte {exc.start})",
                           file=str(path)) from None
    except OSError as exc:
        raise DustsimError(exc.strerror or str(exc), file=str(path)) from None
    kind = path.stem
    out = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{i}"
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DustsimError(f"line {i} is not JSON ({exc.msg})", file=str(path)) from None
        except (ValueError, RecursionError) as exc:  # 5,000-digit integers, deep nesting
            msg = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise DustsimError(f"line {i} is not readable JSON ({' '.join(msg.split())[:80]})",
                               file=str(path)) from None
        if not isinstance(d, dict) or not isinstance(d.get("id"), str):
            raise DustsimError(f"line {i} is not an object with an id", file=str(path))
        if kind in _SCHEMAS:
            check_entry(kind, d, where)
        out.append(Entry(i, d))
    return out


def read_revision(folder: Path) -> str:
    """The commit of ``data/units.json`` that the README says was copied."""
    readme = folder / "README.md"
    if readme.is_file():
        m = re.search(r"data/units\.json`.*?commit \*\*([0-9a-f]{40})\*\*",
                      readme.read_text(encoding="utf-8"), re.S)
        if m:
            return m.group(1)
    return "unknown"


def read_enlist(folder: str | Path) -> EnlistData:
    folder = Path(folder)
    if not folder.is_dir():
        raise DustsimError("not a folder (expected the DUST ENLIST extract)", file=str(folder))
    data = EnlistData(_read_jsonl(folder / "units.jsonl"), _read_jsonl(folder / "platoons.jsonl"),
                      _read_jsonl(folder / "blocs.jsonl"), read_revision(folder), folder)
    for b in data.blocs:
        for f in b.data.get("factions", []) or []:
            data.faction_names[f["id"]] = f["name"]
    return data


# -- cells and weapons ------------------------------------------------------------------------
_DICE = {"B": "*", "BB": "**", "DB": "**"}


def convert_cell(text: Any) -> tuple[Cell, str | None]:
    """An ENLIST cell as a card cell, and a flag when it could not be read (kept ``?``)."""
    t = str(text).strip()
    m = re.fullmatch(r"(\d+|B|BB|DB)/(\d+|AK)", t)
    if not m:
        return UNKNOWN, f"cell {t!r} not understood, kept as '?'"
    left = _DICE.get(m.group(1), m.group(1))
    right = "#" if m.group(2) == "AK" else m.group(2)
    try:
        return parse_cell(f"{left}/{right}"), None
    except ValueError:
        return UNKNOWN, f"cell {t!r} not understood, kept as '?'"


def _line(w: dict, unit: str) -> tuple[tuple[Cell, ...], list[str]]:
    cells: list[Cell] = []
    flags: list[str] = []
    for key, n in (("vsInfantry", 4), ("vsVehicle", 7), ("vsAircraft", 3)):
        vals = w.get(key) or []
        if len(vals) > n:
            raise DustsimError(f"{len(vals)} cells in {key} (at most {n})", unit=unit,
                               weapon=w.get("name"), field=key)
        for v in vals:
            cell, flag = convert_cell(v)
            cells.append(cell)
            if flag:
                flags.append(flag)
        cells.extend([CANNOT] * (n - len(vals)))
    return tuple(cells), flags


def _range(v: Any) -> tuple[str, str | None]:
    t = str(v).strip().upper()
    if re.fullmatch(r"C|U|\d+|\d+-\d+", t):
        return t, None
    return "?", f"range {v!r} not understood"


def enlist_weapon(w: dict, unit: str, source: str) -> Weapon:
    name = " ".join(str(w.get("name", "")).split())
    if not name:
        raise DustsimError("weapon without a name", unit=unit, field="weapons.name")
    line, flags = _line(w, unit)
    rng, rflag = _range(w.get("range", "?"))
    if rflag:
        flags.append(rflag)
    keywords = []
    for sp in w.get("specials", []) or []:
        k = normalize_keyword(str(sp))
        if k:
            keywords.append(k)
        else:
            flags.append(f"rule not modelled: {sp}")
    ammo = w.get("ammo")
    if ammo is not None and (not isinstance(ammo, int) or isinstance(ammo, bool) or ammo < 0):
        flags.append(f"ammo {ammo!r} not understood")
        ammo = None
    count = w.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 1000:
        raise DustsimError(f"count {count!r} is not a whole number", unit=unit, weapon=name,
                           field="count")
    mount = w.get("mount")
    return Weapon(name=name, line=line, count=count, range=rng,
                  mount=str(mount).lower() if mount else None,
                  keywords=tuple(sorted(set(keywords))), ammo=ammo, source=source,
                  flags=tuple(flags))


# -- cards ------------------------------------------------------------------------------------
def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1000 else None


def enlist_card(e: Entry, data: EnlistData) -> Card | None:
    """The card of one unit line; None for a token (see :data:`TOKEN_REASON`)."""
    u = e.data
    name = " ".join(str(u.get("name", "")).split())
    typ = u.get("type")
    if typ == "token":
        return None
    if typ not in KIND_OF_TYPE:
        raise DustsimError(f"type {typ!r} is not one of {', '.join(KIND_OF_TYPE)}, token",
                           file=str(data.folder / "units.jsonl"), unit=name, field="type")
    src = data.cite("units", e)
    flags: list[str] = []
    kind = KIND_OF_TYPE[typ]
    skills = [" ".join(str(s).split()) for s in u.get("skills", []) or []]
    skills += [" ".join(str(s.get("name", "")).split()) for s in u.get("customSkills", []) or []
               if isinstance(s, dict) and s.get("name")]
    skills = list(dict.fromkeys(s for s in skills if s))
    lower = {s.lower() for s in skills}
    health = u.get("health")
    track = None
    if kind == "squad" and _int(health) is not None and lower & SUPPORT_SKILLS:
        kind = "support"
        track = _int(health)
    elif kind != "squad":
        track = _int(health)
        if track == 0:
            track = None
    if health is not None and track is None:
        flags.append(f"ENLIST health {health!r} not used (meaning on this card unknown)")
    if kind in ("hero", "vehicle", "aircraft", "support") and track is None:
        flags.append("damage track unknown")
    letter = LETTER_OF_TYPE[typ]
    arm = _int(u.get("armor"))
    armour = None
    if arm is not None and 1 <= arm <= MAX_ARMOUR[letter]:
        armour = f"{letter}{arm}"
    else:
        flags.append(f"armour {u.get('armor')!r} impossible for a {typ}; kept unknown")
    size = "standard"
    for s in lower:
        size = SIZE_SKILLS.get(s, size)
    weapons = tuple(enlist_weapon(w, name, src) for w in u.get("weapons", []) or [])
    models = None
    models_source = None
    if kind == "squad":
        models = infer_models(weapons)
        if models is not None:
            models_source = "inferred"
        else:
            flags.append("no weapon counts to infer the squad's models from")
    cost = u.get("cost")
    ap = float(cost) if _int(cost) is not None else None
    if ap is None:
        flags.append(f"cost {cost!r} not understood")
    faction = data.faction_names.get(u.get("faction") or "", "")
    return Card(
        name=name, edition=EDITION, kind=kind, armour=armour, bloc=str(u.get("bloc", "")),
        faction=faction, ap=ap, models=models, models_source=models_source,
        damage_track=track, move=_int(u.get("move")), march_move=_int(u.get("march")),
        skills=tuple(skills), size=size, weapons=weapons, source=src,
        revision=data.revision, max_per_army=1 if kind == "hero" else None,
        flags=tuple(flags), sources=(src,), capturable=u.get("capturable") is True,
    )


def enlist_cards(data: EnlistData) -> tuple[list[tuple[Entry, Card]], list[str]]:
    """Every unit line as a card (names made unique by bloc), and the tokens left out."""
    out: list[tuple[Entry, Card]] = []
    tokens = []
    for e in data.units:
        c = enlist_card(e, data)
        if c is None:
            tokens.append(f"{data.cite('units', e)} {e.data.get('name')!r}: {TOKEN_REASON}")
        else:
            out.append((e, c))
    return unique_names(out), tokens


def unique_names(pairs: list[tuple[Entry, Card]]) -> list[tuple[Entry, Card]]:
    """A name printed in two blocs (Yukiko of the Axis and of the IJN): the later one in
    source order gets its bloc in brackets, flagged."""
    from dataclasses import replace

    seen: set[str] = set()
    out = []
    for e, c in pairs:
        if c.name.casefold() in seen:
            new = f"{c.name} ({c.bloc})"
            c = replace(c, name=new, flags=(*c.flags, f"ENLIST name {c.name!r} also in "
                                                     "another bloc; bloc added"))
        seen.add(c.name.casefold())
        out.append((e, c))
    return out
