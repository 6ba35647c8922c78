"""Documented-facts importer: ``unit-facts.csv`` -> unit files of the older editions.

The CSV holds one documented fact per row, each with its source (a seed line or a public
file). Cards are built from the facts of the 2009 and 2013 rulebooks and of the FFG era
(2010-2012, edition ``ffg-era``); they stay partial where the sources are partial: a cell no
source gives is ``?``. Dust 1947 rows from the BattleScribe data are imported from the
catalogues themselves (:mod:`.battlescribe`); Dust Warfare rows (another game, another points
scale) and list totals are skipped. Dust Epic figures go to ``epic/figures.toml``.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from dustsim.data.cards import (
    COLUMNS,
    UNKNOWN,
    Card,
    Weapon,
    dumps_unit_file,
    normalize_keyword,
    parse_cell,
)
from dustsim.data.importers.paths import bloc_file
from dustsim.errors import DustsimError

EDITION_OF = {"2009": "tactics-2009", "2013": "tactics-2013", "unknown": "ffg-era"}
FOLDER_OF = {"tactics-2009": "tactics-2009", "tactics-2013": "tactics-2013",
             "ffg-era": "ffg-era"}
SKIP_FIELDS = {"ap_force_total"}
TYPE_KIND = {"infantry": "squad", "infantry (hero)": "hero", "vehicle": "vehicle",
             "aircraft": "aircraft", "support weapon": "support"}
#: Facts the rulebook texts give that the CSV does not hold yet, in the CSV's own row format:
#: the printed 2009 cover values (001:L489-499) of the cards a worked example shows.
SEED_FACTS = (
    {"source_kind": "seed", "source": "001_4abdce3afdce9285.txt L495", "edition": "2009",
     "unit": "Combat Rangers", "bloc": "Allies", "faction": "", "field": "cover_hard",
     "weapon": "", "weapon_count": "", "range": "", "column": "", "value": "miss-save",
     "quote_summary": "worked example: MISS SAVE behind HARD COVER"},
)
COVER_VALUES = {"hit save": "hit-save", "miss save": "miss-save", "no save": "no-save"}
REQUIRED_COLUMNS = ("source_kind", "source", "edition", "unit", "bloc", "field", "weapon",
                    "weapon_count", "range", "column", "value", "quote_summary")


@dataclass
class _WeaponFacts:
    name: str
    cells: dict[str, tuple[str, str]] = field(default_factory=dict)  # col -> (value, source)
    count: int | None = None
    range: str | None = None
    mount: str | None = None
    keywords: set[str] = field(default_factory=set)
    flags: list[str] = field(default_factory=list)
    source: str | None = None


@dataclass
class _CardFacts:
    name: str
    edition: str
    bloc: str
    sources: list[str] = field(default_factory=list)
    kind: str | None = None
    armour: str | None = None
    ap: float | None = None
    models: int | None = None
    models_source: str | None = None
    track: int | None = None
    move: int | None = None
    size: str = "standard"
    skills: list[str] = field(default_factory=list)
    cover: dict[str, str] = field(default_factory=dict)
    cover_source: str | None = None
    weapons: dict[str, _WeaponFacts] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)

    def weapon(self, name: str, source: str) -> _WeaponFacts:
        if name not in self.weapons:
            self.weapons[name] = _WeaponFacts(name, source=source)
        return self.weapons[name]


def _cell_text(value: str) -> str:
    v = value.strip()
    v = re.sub(r"^2blast/", "**/", v)
    v = re.sub(r"^blast/", "*/", v)
    return v


def _skip_row(r: dict) -> str | None:
    text = (r["quote_summary"] + " " + r["source"]).lower()
    if "dust warfare" in text or "dust-warfare" in text:
        return "Dust Warfare (another game)"
    if r["unit"].startswith("("):
        return "no unit named"
    if r["field"] in SKIP_FIELDS:
        return "force total"
    return None


#: every column of the CSV (``faction`` optional); any other column is refused
COLUMNS_ALL = (*REQUIRED_COLUMNS[:5], "faction", *REQUIRED_COLUMNS[5:])
#: every ``field`` the CSV may hold (those of the bundled file); another is refused
FIELDS = frozenset({
    "weapon", "skill", "ap", "armour", "weapon_mount", "move", "type", "march_move",
    "weapon_keyword", "damage_capacity", "max_per_army", "weapon_carried", "weapon_range",
    "captured_vehicle_eligible", "weapon_count", "models", "option", "starter_set", "cost",
    "ap_list_entry", "combat_value", "tactical_supremacy", "figures_per_army",
    "ap_force_total", "designation", "size", "special_attack_dice", "squad_dice_total",
    "models_in_example", "pilot", "damage_capacity_min", "figures_total", "build_limit",
    "defence_bonus_dice", "combat_value_modifier", "free_units", "setup_budget",
    "ap_modifier", "platoon_bonus_weapon", "cover_soft", "cover_hard"})
EDITIONS_ALL = ("1947", "2009", "2013", "unknown", "epic")
#: fields read as whole numbers: (lowest, highest)
INT_FIELDS = {"models": (1, 50), "models_in_example": (1, 50), "damage_capacity": (1, 50),
              "move": (0, 100), "march_move": (0, 100), "max_per_army": (1, 100)}
MAX_FILE_BYTES = 64 * 2**20
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_DIGITS = re.compile(r"[0-9]{1,6}")
_AP = re.compile(r"[0-9]{1,5}(\.[0-9]{1,3})?")


def check_row(r: dict, where: str) -> None:
    """One CSV row against the schema: known edition and field, ASCII whole numbers in
    range where the field is a number, a plain cost; one line naming the row otherwise."""
    unit = r["unit"].strip() or None
    for col, cell in r.items():
        if _CONTROL.search(cell):
            raise DustsimError("holds a control character (NUL, escape, ...)", file=where,
                               unit=None if col == "unit" else unit, field=col)
    if r["edition"] not in EDITIONS_ALL:
        from dustsim.data.names import did_you_mean

        ed = r["edition"][:40]
        raise DustsimError(f"edition {ed!r} is not one of {', '.join(EDITIONS_ALL)}"
                           f"{did_you_mean(ed, EDITIONS_ALL, 1)}", file=where, unit=unit,
                           field="edition")
    f, v = r["field"], r["value"].strip()
    if f not in FIELDS:
        from dustsim.data.schema import unknown_key_message

        raise DustsimError(unknown_key_message(f, sorted(FIELDS)).replace("unknown key",
                                                                           "unknown field", 1),
                           file=where, unit=unit, field="field")
    if r["edition"] in ("1947", "epic") or r["source"].startswith("github:BSData"):
        return  # not read by the older-edition cards (Epic rows go to build_epic as text)
    if f in INT_FIELDS:
        lo, hi = INT_FIELDS[f]
        if not _DIGITS.fullmatch(v) or not lo <= int(v) <= hi:
            raise DustsimError(f"{f} must be a whole number from {lo} to {hi} (ASCII digits), "
                               f"got {v[:40]!r}", file=where, unit=unit, field="value")
    if f == "ap" and (not _AP.fullmatch(v) or float(v) > 10_000):
        raise DustsimError(f"ap must be a cost from 0 to 10000 (ASCII digits), got {v[:40]!r}",
                           file=where, unit=unit, field="value")
    count = r["weapon_count"].strip()
    if f in ("weapon_count", "weapon_carried") and re.fullmatch(r"\d+", count) and (
            not _DIGITS.fullmatch(count) or int(count) > 100):
        raise DustsimError(f"weapon_count must be a whole number from 0 to 100, got "
                           f"{count[:40]!r}", file=where, unit=unit, field="weapon_count")


def read_facts(path: str | Path) -> list[dict]:
    """The rows of the facts CSV, each checked against the schema (:func:`check_row`)."""
    path = Path(path)
    try:
        if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
            raise DustsimError(f"larger than the cap of {MAX_FILE_BYTES // 2**20} MiB",
                               file=str(path))
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            names = list(reader.fieldnames or [])
            missing = [c for c in REQUIRED_COLUMNS if c not in names]
            if missing:
                raise DustsimError(f"missing columns {', '.join(missing)}", file=str(path))
            from dustsim.data.schema import unknown_key_message

            for c in names:
                if c not in COLUMNS_ALL:
                    raise DustsimError(unknown_key_message(c, COLUMNS_ALL).replace(
                        "unknown key", "unknown column", 1), file=str(path), field=c)
            rows = []
            for r in reader:
                where = f"{path} line {reader.line_num}"
                if None in r or any(v is None for v in r.values()):
                    raise DustsimError(f"{len(names)} cells expected", file=where)
                r.setdefault("faction", "")
                check_row(r, where)
                rows.append(r)
            return rows
    except UnicodeDecodeError as exc:
        raise DustsimError(f"not UTF-8 ({exc.reason})", file=str(path)) from None
    except csv.Error as exc:
        raise DustsimError(f"not a CSV file ({exc})", file=str(path)) from None
    except OSError as exc:
        raise DustsimError(exc.strerror or str(exc), file=str(path)) from None


def build_cards(rows: list[dict], file: str = "unit-facts.csv") -> tuple[list[Card], list[str]]:
    """Cards of the older editions from fact rows; second value: rows set aside, with why."""
    facts: dict[tuple[str, str], _CardFacts] = {}
    notes: list[str] = []
    for i, r in enumerate([*rows, *SEED_FACTS], start=2):
        edition = EDITION_OF.get(r["edition"])
        if edition is None or r["source"].startswith("github:BSData"):
            continue
        why = _skip_row(r)
        if why:
            notes.append(f"{file} line {i}: {r['unit']!r} {r['field']} skipped: {why}")
            continue
        key = (edition, r["unit"].strip())
        if i >= len(rows) + 2 and key not in facts:
            continue  # a seed fact of a card the CSV does not hold
        cf = facts.setdefault(key, _CardFacts(key[1], edition, r["bloc"].strip()))
        src = r["source"].strip()
        if r["field"].startswith("cover_"):  # printed cover values carry their own source
            v = r["value"].strip().lower()
            cf.cover[r["field"].removeprefix("cover_")] = COVER_VALUES.get(v, v)
            cf.cover_source = src
            continue
        if src not in cf.sources:
            cf.sources.append(src)
        try:
            _apply(cf, r, src)
        except ValueError as exc:
            raise DustsimError(str(exc), file=f"{file} line {i}", unit=cf.name,
                               field=r["field"]) from None
    cards = [_to_card(cf) for cf in facts.values()]
    cards.sort(key=lambda c: (c.edition, c.bloc, c.name))
    return cards, notes


def _apply(cf: _CardFacts, r: dict, src: str) -> None:
    f, v = r["field"], r["value"].strip()
    wname = r["weapon"].strip()
    if f == "type":
        cf.kind = TYPE_KIND.get(v, cf.kind)
    elif f == "armour":
        cf.armour = v
    elif f == "ap":
        cf.ap = float(v)
    elif f == "ap_list_entry":
        cf.flags.append(f"list entry of {v} AP ({src}): per-unit cost not certain")
    elif f in ("models", "models_in_example"):
        cf.models = int(v)
        cf.models_source = "card" if f == "models" else "example"
    elif f == "damage_capacity":
        cf.track = int(v)
    elif f == "damage_capacity_min":
        cf.flags.append(f"damage capacity at least {v} ({src})")
    elif f == "move":
        cf.move = int(v)
    elif f == "size":
        cf.size = "huge" if "huge" in v or "4 spaces" in v else "large"
    elif f == "skill":
        if v not in cf.skills:
            cf.skills.append(v)
    elif f in ("pilot", "starter_set", "squad_dice_total"):
        cf.flags.append(f"{f.replace('_', ' ')}: {v} ({src})")
    elif f.startswith("weapon"):
        if not wname:
            cf.flags.append(f"{f} {v!r} for an unnamed weapon ({src})")
            return
        w = cf.weapon(wname, src)
        if f == "weapon":
            if r["column"] in COLUMNS:
                parse_cell(_cell_text(v))  # validates
                w.cells[r["column"]] = (_cell_text(v), src)
            else:
                w.flags.append(f"cell {v!r} for a column the source does not name ({src})")
        elif f == "weapon_range":
            w.range = v
        elif f == "weapon_mount":
            w.mount = v
        elif f == "weapon_keyword":
            k = normalize_keyword(v) or normalize_keyword(v.split("(")[0])
            if k:
                w.keywords.add(k)
            else:
                w.flags.append(f"rule not modelled: {v}")
        elif f in ("weapon_count", "weapon_carried"):
            if re.fullmatch(r"\d+", r["weapon_count"].strip()):
                n = int(r["weapon_count"])
                if w.count is not None and w.count != n:
                    w.flags.append(f"sources disagree on the count: {w.count} and {n} ({src})")
                w.count = n
            elif r["weapon_count"].strip():
                w.flags.append(f"count {r['weapon_count']!r} ({src})")
        if r["range"].strip() and w.range is None:
            w.range = r["range"].strip()
    else:
        cf.flags.append(f"{f}: {v} ({src})")


def _to_card(cf: _CardFacts) -> Card:
    kind = cf.kind
    if kind is None and cf.armour:
        kind = {"V": "vehicle", "A": "aircraft"}.get(cf.armour[0])
    weapons = []
    for w in cf.weapons.values():
        line = []
        cell_sources = {}
        for col in COLUMNS:
            if col in w.cells:
                text, s = w.cells[col]
                line.append(parse_cell(text))
                if s != w.source:
                    cell_sources[col] = s
            else:
                line.append(UNKNOWN)
        rng = w.range if w.range and re.fullmatch(r"C|U|\d+|\d+-(\d+|U)", w.range) else "?"
        flags = list(w.flags)
        if w.range and rng == "?":
            flags.append(f"range {w.range!r}")
        weapons.append(Weapon(
            name=w.name, line=tuple(line), count=w.count if w.count is not None else 1,
            range=rng, mount=w.mount, keywords=tuple(sorted(w.keywords)), source=w.source,
            cell_sources=tuple(sorted(cell_sources.items())), flags=tuple(flags)))
    flags = list(cf.flags)
    if len(cf.sources) > 1:
        flags.append("other sources: " + "; ".join(cf.sources[1:]))
    if cf.models is not None and kind is None and cf.armour in (None, "I1", "I2", "I3", "I4"):
        kind = "squad"
    return Card(
        name=cf.name, edition=cf.edition, kind=kind, armour=cf.armour, bloc=cf.bloc,
        ap=cf.ap, models=cf.models, models_source=cf.models_source, damage_track=cf.track,
        move=cf.move, skills=tuple(cf.skills), size=cf.size, weapons=tuple(weapons),
        source=cf.sources[0], flags=tuple(flags), cover=tuple(sorted(cf.cover.items())),
        cover_source=cf.cover_source)


def build_epic(rows: list[dict]) -> str:
    """Dust Epic figures (cost, combat value, tactical supremacy, limits) as TOML."""
    figures: dict[str, dict] = {}
    order = []
    for r in rows:
        if r["edition"] != "epic":
            continue
        name = r["unit"].strip()
        if name not in figures:
            figures[name] = {"name": name, "sources": {}}
            order.append(name)
        fig = figures[name]
        v = r["value"].strip()
        key = r["field"]
        num = int(v) if re.fullmatch(r"\d+", v) else v
        if v in ("—", "-"):
            num = None
        if num is not None:
            fig[key] = num
        fig["sources"][key] = r["source"]
    out = []
    for name in order:
        fig = figures[name]
        fig["sources"] = dict(sorted(fig["sources"].items()))
        out.append(fig)
    doc = {"schema": 1, "edition": "epic",
           "source": "seeds/002_0115c0244cac62a5.txt via data/unit-facts.csv",
           "figure": out}
    return ("# Dust (Epic strategy game) figures and battle numbers, one fact per key, each "
            "with its seed line.\n" + tomli_w.dumps(doc))


def import_facts(path: str | Path) -> tuple[dict[str, str], list[str], list[Card]]:
    """{relative path: TOML text} for the older editions and Dust Epic."""
    rows = read_facts(path)
    cards, notes = build_cards(rows, Path(path).name)
    texts: dict[str, str] = {}
    by_file: dict[str, list[Card]] = defaultdict(list)
    for c in cards:
        fname = bloc_file(c.bloc, file=str(path), unit=c.name, empty="other.toml")
        by_file[f"{FOLDER_OF[c.edition]}/{fname}"].append(c)
    for rel, cs in sorted(by_file.items()):
        header = {"edition": cs[0].edition, "bloc": cs[0].bloc}
        comment = ("Generated by `dustsim import facts` from data/unit-facts.csv. Every number "
                   "has its source;\nunknown cells are '?'. Partial cards stay partial.")
        texts[rel] = dumps_unit_file(cs, header, comment)
    texts["epic/figures.toml"] = build_epic(rows)
    return texts, notes, cards
