"""Dust 1947: merge of the BattleScribe import (2018) and the DUST ENLIST 1.50 extract.

One card per printed card, one file per bloc (IJN included):

* **Matching.** An ENLIST unit and a BattleScribe card are the same card when their names
  are equal after normalisation (case, accents, punctuation, "&" = "and"), or when the
  reviewed table ``data/dust1947_aliases.toml`` pairs them (with a reason). Faction copies
  (``Controller (PLA)``) cite the BattleScribe bloc card. Nothing else is paired:
  :func:`unmatched` lists what is left on either side.
* **Errata.** ``data/dust1947_errata.toml`` corrects BattleScribe values, each with its
  source, before the merge; the card records every erratum applied.
* **Merge rule.** Where both sources give a number (cost, armour, damage track, move,
  march, a weapon's count, range or cell) and disagree, the card keeps a ``conflict``
  record with both values and sources and uses the **ENLIST** value: the newer data
  (2026, maintained against the 2019 errata) over BattleScribe's of March 2018.
  ``prefer="battlescribe"`` uses the other value instead. A value one source lacks is
  taken from the other (noted in the flags). Weapons: ENLIST's weapon lines; BattleScribe's
  optional weapons (extras with a cost) are kept as options.
* **Captured copies.** BattleScribe's ``Captured_Vehicles.cat`` repeats cards of other
  blocs; they are not printed cards: the originals get ``capturable = true`` (as ENLIST's
  ``capturable``), and a copy that differs from its original is flagged on the original.
* **Tokens** (VK Stash) are not written (:data:`dustsim.data.importers.enlist.TOKEN_REASON`).
* **Squad sizes**: inferred from the merged weapons, unless ``data/dust1947_models.toml``
  gives a sourced count.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from dustsim.data.captured import CAPTURED_EXTRA_AP
from dustsim.data.cards import (
    COLUMNS,
    MODELS_SOURCES,
    Card,
    Conflict,
    Weapon,
    parse_cell,
)
from dustsim.data.importers.battlescribe import infer_models, read_battlescribe, validated_unit_file
from dustsim.data.importers.enlist import EnlistData, enlist_cards, read_enlist
from dustsim.data.importers.paths import BLOC_FILES
from dustsim.errors import DustsimError

DATA = Path(__file__).resolve().parent / "data"
ALIASES = DATA / "dust1947_aliases.toml"
ERRATA = DATA / "dust1947_errata.toml"
MODELS = DATA / "dust1947_models.toml"
PREFER = ("enlist", "battlescribe")
CAPTURED_FILE = "captured-vehicles.toml"


def _bloc_file(card: Card) -> str:
    """The output file of ``card``'s bloc; a bloc outside :data:`BLOC_FILES` is refused."""
    if card.bloc not in BLOC_FILES:
        from dustsim.data.names import did_you_mean

        raise DustsimError(f"bloc {card.bloc[:60]!r} is not one of {', '.join(BLOC_FILES)}"
                           f"{did_you_mean(card.bloc[:60], BLOC_FILES)}", file=card.source,
                           unit=card.name, field="bloc")
    return BLOC_FILES[card.bloc]
BS_BLOC = {"Allies": "Allies", "Axis": "Axis", "SSU": "SSU", "Mercenaries": "Mercenaries",
           "Mythos": "Mythos"}
SCALARS = ("ap", "armour", "damage_track", "move", "march_move")


def norm(name: str) -> str:
    """Name key: case, accents (ä = a, ß = ss), punctuation and "&" = "and" ignored."""
    s = unicodedata.normalize("NFKD", name.casefold().replace("ß", "ss").replace("&", " and "))
    s = "".join(c for c in s if not unicodedata.combining(c))
    return re.sub(r"[^0-9a-z]", "", s)


_MOUNT = re.compile(r"\s*\((front|turret|left|right|rear|side|hull)\)\s*$", re.I)


def weapon_key(name: str) -> str:
    """Weapon name key: BattleScribe's mount suffix, plurals, hyphens and spelling variants
    ("Machine-Gun", "Recoiless") ignored."""
    s = _MOUNT.sub("", name).casefold().replace("machine gun", "machinegun")
    s = s.replace("recoiless", "recoilless").replace("thomson", "thompson")
    return "".join(w.rstrip("s") for w in re.findall(r"[0-9a-z]+", norm_words(s)))


def norm_words(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if not unicodedata.combining(c)).replace("-", "")


# -- reviewed tables -------------------------------------------------------------------------
@dataclass(frozen=True)
class Alias:
    enlist: str
    battlescribe: str
    why: str
    copy: bool = False


@dataclass(frozen=True)
class Erratum:
    unit: str
    side: str
    field: str
    was: str
    value: str
    source: str

    def text(self) -> str:
        return f"{self.field} {self.was} -> {self.value} ({self.side}): {self.source}"


def _load(path: Path, key: str) -> list[dict]:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DustsimError(f"cannot read: {exc}", file=str(path)) from None
    rows = doc.get(key, [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise DustsimError(f"[[{key}]] must be an array of tables", file=str(path), field=key)
    return rows


def _need(row: dict, keys: tuple[str, ...], path: Path, what: str) -> None:
    for k in keys:
        if not isinstance(row.get(k), str) or not row[k].strip():
            raise DustsimError(f"{what} needs a non-empty string {k!r}", file=str(path),
                               unit=str(row.get("unit") or row.get("enlist") or "?"), field=k)


def load_aliases(path: Path = ALIASES) -> list[Alias]:
    out = []
    for r in _load(path, "alias"):
        _need(r, ("enlist", "battlescribe", "why"), path, "an alias")
        out.append(Alias(r["enlist"], r["battlescribe"], r["why"], bool(r.get("copy", False))))
    return out


def load_weapon_aliases(path: Path = ALIASES) -> dict[tuple[str, str], str]:
    """``{(ENLIST id or "*", weapon key of the ENLIST name): weapon key of BattleScribe's}``."""
    out = {}
    for r in _load(path, "weapon"):
        _need(r, ("unit", "enlist", "battlescribe", "why"), path, "a weapon alias")
        out[(r["unit"], weapon_key(r["enlist"]))] = weapon_key(r["battlescribe"])
    return out


def load_errata(path: Path = ERRATA) -> list[Erratum]:
    out = []
    for r in _load(path, "erratum"):
        _need(r, ("unit", "side", "field", "was", "value", "source"), path, "an erratum")
        if r["side"] != "battlescribe":
            raise DustsimError(f"side {r['side']!r} is not 'battlescribe'", file=str(path),
                               unit=r["unit"], field="side")
        out.append(Erratum(r["unit"], r["side"], r["field"], r["was"], r["value"], r["source"]))
    return out


def load_model_overrides(path: Path = MODELS) -> dict[str, tuple[int, str, str]]:
    out = {}
    for r in _load(path, "squad"):
        _need(r, ("unit", "models_source", "source"), path, "a squad size")
        n = r.get("models")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 100:
            raise DustsimError(f"models {n!r} is not a count from 1 to 100", file=str(path),
                               unit=r["unit"], field="models")
        if r["models_source"] not in MODELS_SOURCES:
            raise DustsimError(f"models_source {r['models_source']!r} is not one of "
                               f"{', '.join(MODELS_SOURCES)}", file=str(path), unit=r["unit"],
                               field="models_source")
        out[r["unit"]] = (n, r["models_source"], r["source"])
    return out


# -- errata over the BattleScribe cards --------------------------------------------------------
def _show(v) -> str:
    if v is None:
        return "?"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def apply_erratum(card: Card, e: Erratum, path: Path = ERRATA) -> Card:
    def stale(found) -> DustsimError:
        return DustsimError(f"erratum expects {e.was!r} but the import has {_show(found)!r}",
                            file=str(path), unit=e.unit, field=e.field)

    if e.field.startswith("weapon."):
        wname, _, attr = e.field[len("weapon."):].rpartition(".")
        idx = [i for i, w in enumerate(card.weapons) if w.name == wname]
        if len(idx) != 1:
            raise DustsimError(f"no single weapon {wname!r} on the card", file=str(path),
                               unit=e.unit, field=e.field)
        w = card.weapons[idx[0]]
        if attr == "range":
            if w.range != e.was:
                raise stale(w.range)
            nw = replace(w, range=e.value)
        elif attr in COLUMNS:
            k = COLUMNS.index(attr)
            if w.line[k].text != e.was:
                raise stale(w.line[k].text)
            line = list(w.line)
            line[k] = parse_cell(e.value)
            nw = replace(w, line=tuple(line))
        else:
            raise DustsimError(f"weapon field {attr!r} is not range or a column", file=str(path),
                               unit=e.unit, field=e.field)
        gone = "range " if attr == "range" else f"{attr} cell "
        nw = replace(nw, flags=tuple(f for f in nw.flags if not f.startswith(gone)))
        weapons = list(card.weapons)
        weapons[idx[0]] = nw
        card = replace(card, weapons=tuple(weapons))
    elif e.field in SCALARS:
        found = getattr(card, e.field)
        if _show(found) != e.was:
            raise stale(found)
        value: object = e.value
        if e.field == "ap":
            value = float(e.value)
        elif e.field != "armour":
            value = int(e.value)
        card = replace(card, **{e.field: value})
    else:
        raise DustsimError(f"field {e.field!r} is not one of {', '.join(SCALARS)} or "
                           "weapon.NAME.range / weapon.NAME.COLUMN", file=str(path),
                           unit=e.unit, field="field")
    return replace(card, errata=(*card.errata, e.text()))


# -- merging ------------------------------------------------------------------------------------
@dataclass
class MergeReport:
    cards: int = 0
    files: list[str] = field(default_factory=list)
    matched: int = 0
    copies: int = 0
    enlist_only: list[str] = field(default_factory=list)
    battlescribe_only: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    conflicts: list[tuple[str, Conflict]] = field(default_factory=list)
    errata: list[str] = field(default_factory=list)
    inferred: int = 0
    unparsed: list[str] = field(default_factory=list)
    skills: Counter = field(default_factory=Counter)
    per_bloc_kind: Counter = field(default_factory=Counter)


def _pick(fld: str, ev, bv, esrc: str, bsrc: str, prefer: str, conflicts: list,
          flags: list):
    """The value used for one number, recording a conflict or a one-sided value."""
    if ev is None and bv is None:
        return None
    if ev is None:
        flags.append(f"{fld} from BattleScribe only")
        return bv
    if bv is None:
        return ev
    if _show(ev) == _show(bv):
        return ev
    if prefer == "enlist":
        conflicts.append(Conflict(fld, _show(ev), _show(bv), esrc, bsrc))
        return ev
    conflicts.append(Conflict(fld, _show(bv), _show(ev), bsrc, esrc))
    return bv


def collapse_repeats(ws: tuple[Weapon, ...]) -> tuple[tuple[Weapon, ...], list[str]]:
    """Identical weapon lines repeated rather than counted (ENLIST's Command Truck has two
    identical Front Machinegun lines) become one line with the summed count."""
    out: list[Weapon] = []
    notes = []
    for w in ws:
        same = next((i for i, o in enumerate(out) if replace(o, count=w.count) == w), None)
        if same is None:
            out.append(w)
        else:
            out[same] = replace(out[same], count=out[same].count + w.count)
            notes.append(f"identical {w.name} lines counted as one line")
    return tuple(out), list(dict.fromkeys(notes))


def _difference(a: Weapon, b: Weapon) -> int:
    return (sum(x.text != y.text for x, y in zip(a.line, b.line, strict=True))
            + 3 * (a.range != b.range) + (bool(a.mount and b.mount) and a.mount != b.mount))


def merge_weapons(ew: tuple[Weapon, ...], bw: tuple[Weapon, ...], esrc: str, bsrc: str,
                  prefer: str, conflicts: list, flags: list,
                  wkey=weapon_key) -> tuple[Weapon, ...]:
    """ENLIST's weapon lines with BattleScribe's matched by name (the closest line where a
    name repeats): conflicts per count, range and cell; keywords of both; BattleScribe's
    options kept; a line BattleScribe repeats is noted, not a conflict."""
    standard = [w for w in bw if not w.optional and w.count > 0 and w.group is None]
    options = [w for w in bw if w not in standard]
    used = [False] * len(standard)
    out: list[Weapon] = []
    for w in ew:
        cands = [j for j, b in enumerate(standard)
                 if not used[j] and weapon_key(b.name) == wkey(w.name)]
        j = min(cands, key=lambda j: (_difference(w, standard[j]), j)) if cands else None
        if j is None:
            conflicts.append(Conflict(f"weapon {w.name}", "present", "absent", esrc, bsrc)
                             if prefer == "enlist" else
                             Conflict(f"weapon {w.name}", "absent", "present", bsrc, esrc))
            if prefer == "enlist":
                out.append(w)
            continue
        used[j] = True
        b = standard[j]
        wc: list[Conflict] = []
        wflags: list[str] = []
        count = _pick(f"weapon {w.name}: count", w.count, b.count, esrc, bsrc, prefer, wc,
                      wflags)
        rng = _pick(f"weapon {w.name}: range", None if w.range == "?" else w.range,
                    None if b.range == "?" else b.range, esrc, bsrc, prefer, wc, wflags) or "?"
        line = []
        for col, ec, bc in zip(COLUMNS, w.line, b.line, strict=True):
            et = None if ec.text == "?" else ec.text
            bt = None if bc.text == "?" else bc.text
            t = _pick(f"weapon {w.name}: {col}", et, bt, esrc, bsrc, prefer, wc, wflags)
            line.append(ec if t == et and et is not None else bc if t is not None else ec)
        conflicts.extend(wc)
        if weapon_key(b.name) != weapon_key(w.name):
            wflags.append(f"BattleScribe name {b.name!r}")
        out.append(replace(w, count=count, range=rng, line=tuple(line), mount=w.mount or b.mount,
                           keywords=tuple(sorted(set(w.keywords) | set(b.keywords))),
                           flags=tuple(dict.fromkeys(
                               [*w.flags, *wflags, *(f for f in b.flags
                                                     if f.startswith(("rule not modelled",
                                                                      "selection L")))])),
                           source=f"{w.source}; {b.source}" if b.source else w.source))
    for j, b in enumerate(standard):
        if used[j]:
            continue
        twin = [k for k, o in enumerate(standard) if k != j and used[k]
                and weapon_key(o.name) == weapon_key(b.name) and _difference(o, b) == 0]
        if twin:
            flags.append(f"BattleScribe repeats the line {b.name!r}")
        elif prefer == "enlist":
            conflicts.append(Conflict(f"weapon {b.name}", "absent", "present", esrc, bsrc))
        else:
            conflicts.append(Conflict(f"weapon {b.name}", "present", "absent", bsrc, esrc))
            out.append(b)
    for b in options:
        out.append(replace(b, flags=(*b.flags, "option from BattleScribe only")))
    return tuple(out)


def merge_card(ec: Card, bc: Card, bs_rev: str, prefer: str, copy: bool,
               weapon_alias: dict | None = None, enlist_id: str = "") -> Card:
    esrc = ec.source
    bsrc = f"github:BSData/dust1947@{bs_rev[:7]} {bc.source} ({bc.name})"
    conflicts: list[Conflict] = []
    flags = [f for f in ec.flags if "damage track unknown" not in f]
    vals = {}
    for fld in SCALARS:
        vals[fld] = _pick(fld, getattr(ec, fld), getattr(bc, fld), esrc, bsrc, prefer,
                          conflicts, flags)
    kind = ec.kind
    if bc.kind != ec.kind:
        flags.append(f"kind: BattleScribe {bc.kind}, ENLIST {ec.kind}; BattleScribe's used")
        kind = bc.kind
    if kind in ("hero", "vehicle", "aircraft", "support") and vals["damage_track"] is None:
        flags.append("damage track unknown")
    ews, notes = collapse_repeats(ec.weapons)
    flags += notes
    wa = weapon_alias or {}

    def wkey(name: str) -> str:
        k = weapon_key(name)
        return wa.get((enlist_id, k), wa.get(("*", k), k))

    weapons = merge_weapons(ews, bc.weapons, esrc, bsrc, prefer, conflicts, flags, wkey)
    have = {norm(s) for s in ec.skills}
    skills = (*ec.skills, *(s for s in bc.skills if norm(s) not in have
                            and norm(s.split(":")[0]) not in have))
    size = ec.size if ec.size != "standard" else bc.size
    flags += [f for f in bc.flags if f.startswith("attachment")]
    if copy:
        flags.append(f"faction copy: BattleScribe has the bloc card {bc.name!r} only")
    models, models_source = None, None
    if kind == "squad":
        models = infer_models(weapons)
        models_source = "inferred" if models is not None else None
        if models is None:
            flags.append("no weapon counts to infer the squad's models from")
    return replace(
        ec, kind=kind, size=size, skills=tuple(skills), weapons=weapons, models=models,
        models_source=models_source, flags=tuple(dict.fromkeys(flags)),
        max_per_army=bc.max_per_army if bc.max_per_army is not None else ec.max_per_army,
        sources=(esrc, bsrc), conflicts=tuple(conflicts),
        errata=(*ec.errata, *(() if copy else bc.errata)), **vals)


def _captured_differences(copy: Card, orig: Card) -> list[str]:
    out = []
    for fld in SCALARS:
        a, b = getattr(copy, fld), getattr(orig, fld)
        if fld == "ap" and a is not None and b is not None:
            b = b + CAPTURED_EXTRA_AP  # the captured cost is the card's +2 AP (L885-922)
        if _show(a) != _show(b):
            out.append(f"{fld} {_show(a)} vs {_show(b)}")
    ow = {weapon_key(w.name): w for w in orig.weapons}
    for w in copy.weapons:
        o = ow.get(weapon_key(w.name))
        if o is None:
            out.append(f"weapon {w.name} not on the original")
            continue
        cells = [f"{c} {x.text} vs {y.text}" for c, x, y in zip(COLUMNS, w.line, o.line,
                                                              strict=True) if x.text != y.text]
        if cells or w.range != o.range or w.count != o.count:
            out.append(f"{w.name}: " + ", ".join(
                cells + ([f"range {w.range} vs {o.range}"] if w.range != o.range else [])
                + ([f"count {w.count} vs {o.count}"] if w.count != o.count else [])))
    return out


@dataclass
class Merged:
    texts: dict[str, str]
    cards: list[Card]
    report: MergeReport
    enlist: EnlistData
    id_to_name: dict[str, str]


def merge_dust1947(bs_dir: str | Path, enlist_dir: str | Path, *, prefer: str = "enlist",
                   aliases: Path = ALIASES, errata: Path = ERRATA,
                   models: Path = MODELS) -> Merged:
    """Both imports merged into one TOML text per bloc. Nothing is written here."""
    if prefer not in PREFER:
        raise DustsimError(f"--prefer {prefer!r} is not one of {', '.join(PREFER)}",
                           field="--prefer")
    bsd = read_battlescribe([bs_dir])
    bs_rev = bsd.revision or "unknown"
    en = read_enlist(enlist_dir)
    pairs, tokens = enlist_cards(en)
    report = MergeReport(tokens=tokens, unparsed=list(bsd.report.unparsed))
    # BattleScribe cards by name (captured copies apart), errata applied
    bs_by_name: dict[str, tuple[str, Card]] = {}
    captured: list[Card] = []
    for fname, cards in bsd.cards.items():
        for c in cards:
            if fname == CAPTURED_FILE:
                captured.append(c)
            else:
                bs_by_name[c.name] = (fname, c)
    for e in load_errata(errata):
        if e.unit not in bs_by_name:
            raise DustsimError("no BattleScribe card of this name", file=str(errata),
                               unit=e.unit, field="unit")
        fname, c = bs_by_name[e.unit]
        bs_by_name[e.unit] = (fname, apply_erratum(c, e, errata))
        report.errata.append(f"{e.unit}: {e.text()}")
    bs_norm: dict[str, str] = {}
    for n in bs_by_name:
        if norm(n) in bs_norm:
            raise DustsimError(f"two BattleScribe cards normalise alike: {n!r}, "
                               f"{bs_norm[norm(n)]!r}", field="name")
        bs_norm[norm(n)] = n
    alias_rows = load_aliases(aliases)
    weapon_alias = load_weapon_aliases(aliases)
    by_id = {e.id: (e, c) for e, c in pairs}
    alias_of: dict[str, Alias] = {}
    for a in alias_rows:
        if a.enlist not in by_id:
            raise DustsimError("no ENLIST unit with this id", file=str(aliases), unit=a.enlist,
                               field="enlist")
        if a.battlescribe not in bs_by_name:
            raise DustsimError("no BattleScribe card of this name", file=str(aliases),
                               unit=a.battlescribe, field="battlescribe")
        if a.enlist in alias_of:
            raise DustsimError("id listed twice", file=str(aliases), unit=a.enlist,
                               field="enlist")
        alias_of[a.enlist] = a
    overrides = load_model_overrides(models)
    matched_bs: set[str] = set()
    out: dict[str, list[Card]] = {f: [] for f in BLOC_FILES.values()}
    id_to_name: dict[str, str] = {}
    for e, ec in pairs:
        a = alias_of.get(e.id)
        bname = a.battlescribe if a else bs_norm.get(norm(str(e.data.get("name", ""))))
        if not a and bname is not None and bs_by_name[bname][1].bloc != ec.bloc:
            bname = None  # same name in another bloc (Yukiko of the IJN): not this card
        if bname is not None:
            fname, bc = bs_by_name[bname]
            card = merge_card(ec, bc, bs_rev, prefer, bool(a and a.copy), weapon_alias, e.id)
            if not (a and a.copy):
                if bname in matched_bs and not a:
                    raise DustsimError(f"BattleScribe card {bname!r} matched twice",
                                       unit=ec.name)
                matched_bs.add(bname)
                report.matched += 1
            else:
                report.copies += 1
        else:
            card = replace(ec, flags=(*ec.flags, "only in DUST ENLIST"))
            report.enlist_only.append(f"{e.id} {ec.name!r} ({ec.bloc})")
        if e.data.get("specialFaction"):
            card = replace(card, flags=(*card.flags,
                                        f"ENLIST specialFaction {e.data['specialFaction']!r}"))
        id_to_name[e.id] = card.name
        out[_bloc_file(card)].append(card)
    taken = {c.name.casefold() for cs in out.values() for c in cs}
    for bname, (_fname, bc) in bs_by_name.items():
        if bname in matched_bs or any(a.battlescribe == bname for a in alias_rows):
            continue
        bloc = BS_BLOC.get(bc.bloc, bc.bloc)
        name = bname if bname.casefold() not in taken else f"{bname} (BattleScribe)"
        card = replace(bc, name=name, bloc=bloc,
                       sources=(f"github:BSData/dust1947@{bs_rev[:7]} {bc.source} ({bname})",),
                       source=f"github:BSData/dust1947@{bs_rev[:7]} {bc.source}",
                       flags=(*bc.flags, "only in BattleScribe"))
        report.battlescribe_only.append(f"{bname!r} ({bc.bloc}, {bc.source})")
        out[_bloc_file(card)].append(card)
    # captured copies -> capturable originals
    by_name = {c.name: (f, i) for f, cs in out.items() for i, c in enumerate(cs)}
    bs_to_final = {}
    for cs in out.values():
        for c in cs:
            for s in c.sources:
                m = re.search(r"\((.*)\)$", s)
                if s.startswith("github:BSData") and m and "faction copy" not in " ".join(
                        c.flags):
                    bs_to_final[m.group(1)] = c.name
    for cc in captured:
        base = cc.name.removesuffix(" (Captured)")
        final = bs_to_final.get(base)
        if final is None:
            report.battlescribe_only.append(f"captured copy {cc.name!r} without an original")
            continue
        f, i = by_name[final]
        orig_bs = bs_by_name[base][1]
        diff = _captured_differences(cc, orig_bs)
        c = out[f][i]
        flags = list(c.flags)
        if not c.capturable:
            flags.append("capturable from BattleScribe's Captured_Vehicles.cat only")
        if diff:
            flags.append(f"BattleScribe's captured copy ({cc.source}) differs: "
                         + "; ".join(diff))
        out[f][i] = replace(c, capturable=True, flags=tuple(flags),
                            sources=(*c.sources, f"github:BSData/dust1947@{bs_rev[:7]} "
                                     f"Captured_Vehicles.cat {cc.source.split(' ')[-1]} "
                                     f"({cc.name})"))
    # sourced squad sizes
    for unit, (n, msrc, src) in overrides.items():
        if unit not in by_name:
            raise DustsimError("no card of this name", file=str(models), unit=unit,
                               field="unit")
        f, i = by_name[unit]
        c = out[f][i]
        if c.kind != "squad":
            raise DustsimError(f"a {c.kind}, not a squad", file=str(models), unit=unit,
                               field="unit")
        out[f][i] = replace(c, models=n, models_source=msrc,
                            flags=(*c.flags, f"models {n} from {src}"))
    texts = {}
    all_cards = []
    src = (f"DUST ENLIST 1.50 extract (github:heimatt-git/dust-infinite-army-builder@"
           f"{en.revision[:7]} data/units.json) merged with github:BSData/dust1947@"
           f"{bs_rev[:7]}")
    for bloc, fname in BLOC_FILES.items():
        cards = out[fname]
        for c in cards:
            report.conflicts += [(c.name, x) for x in c.conflicts]
            report.inferred += c.models_source == "inferred"
            report.skills.update(c.skills)
            report.per_bloc_kind[(bloc, c.kind)] += 1
        all_cards += cards
        header = {"edition": "dust-1947", "bloc": bloc, "source": src,
                  "revision": en.revision}
        comment = ("Generated by `dustsim import dust-1947` from the DUST ENLIST 1.50 extract "
                   "and the BSData\nDust 1947 catalogues (merge rule: dustsim/data/importers/"
                   f"dust1947.py; conflicts use {prefer}).\nNames, numbers and rule names "
                   "only. Re-run the importer rather than editing by hand.")
        texts[fname] = validated_unit_file(cards, header, comment, fname, fname)
    report.cards = len(all_cards)
    report.files = sorted(texts)
    return Merged(texts, all_cards, report, en, id_to_name)


def conflict_size(c: Conflict) -> float:
    """How large a disagreement is: the numeric difference (cells: dice x damage)."""
    def val(s: str) -> float | None:
        if s in ("-", "absent"):
            return 0.0
        if re.fullmatch(r"\d+(\.\d+)?", s):
            return float(s)
        m = re.fullmatch(r"(\d+)/(\d+)", s)
        if m:
            return float(m.group(1)) * float(m.group(2))
        m = re.fullmatch(r"[IVA](\d)", s)
        return float(m.group(1)) if m else None

    a, b = val(c.used), val(c.other)
    if a is None or b is None:
        return 0.5
    return abs(a - b)


def unmatched(m: Merged) -> list[str]:
    """Entries of either source that no other entry matched (never guessed)."""
    return ([f"ENLIST only: {x}" for x in m.report.enlist_only]
            + [f"BattleScribe only: {x}" for x in m.report.battlescribe_only])



# -- platoon charts ---------------------------------------------------------------------------
NOT_MODELLED = "advantage not modelled (the source's advantage text is not copied)"


def enlist_platoons_text(m: Merged) -> str:
    """The 54 ENLIST charts as a platoon file: command and combat slots, each option one
    card or several fielded together (a hero joined to a unit or piloting it, a pair of
    heroes); unit ids resolved to the merged card names. Only names and structure;
    advantages are not named in the extract."""
    import tomli_w

    en = m.enlist
    rows = []
    for e in en.platoons:
        p = e.data
        slots = []
        for role, key in (("command", "command"), ("required", "combat")):
            for i, slot in enumerate(p.get(key, []) or [], start=1):
                opts = []
                for option in slot:
                    if not option or not isinstance(option, list):
                        raise DustsimError(f"empty option in {key} slot {i}",
                                           file=str(en.folder / "platoons.jsonl"),
                                           unit=e.id, field=key)
                    names = []
                    for uid in option:
                        if uid not in m.id_to_name:
                            raise DustsimError(f"unit id {uid!r} is not a card (tokens "
                                               "cannot be platoon units)",
                                               file=str(en.folder / "platoons.jsonl"),
                                               unit=e.id, field=key)
                        names.append(m.id_to_name[uid])
                    o = {"name": names[0]}
                    if len(names) > 1:
                        o["joined"] = names[1:]
                    opts.append(o)
                slots.append({"role": role, "options": opts})
        row = {"name": " ".join(str(p.get("name", "")).split()), "id": e.id,
               "bloc": str(p.get("bloc", "")), "lines": f"platoons.jsonl L{e.line}",
               "advantage": "", "advantage_lines": "", "advantage_text": NOT_MODELLED}
        if p.get("onlyCombatUnitsAsSupport"):
            row["only_combat_support"] = True
        row["slot"] = slots
        rows.append(row)
    doc = {"schema": 1, "edition": "dust-1947", "origin": "enlist",
           "source": f"DUST ENLIST 1.50 extract (github:heimatt-git/dust-infinite-army-builder"
                     f"@{en.revision[:7]} data/blocs.json, copied as platoons.jsonl)",
           "platoon": rows}
    head = ("# Generated by `dustsim import dust-1947` from the DUST ENLIST 1.50 extract: the "
            "54 platoon charts.\n# Unit ids resolved to the merged card names; `joined` = "
            "units fielded together with the first as one option.\n"
            "# Merged with the rulebook charts (dust-1947.toml) by dustsim.army.platoons: the book "
            "wins where both exist.\n")
    return head + tomli_w.dumps(doc)
