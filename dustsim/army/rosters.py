"""BattleScribe rosters (``.ros`` XML, ``.rosz`` zipped): read a player's roster into the
selections it holds, resolved to cards through the catalogues' entry ids.

A roster is ``roster/forces/force`` (one force per catalogue) with nested
``selections/selection`` elements (``entryId``, ``name``, ``number``, ``type``, ``costs``).
A selection's ``entryId`` is the catalogue entry's id, or ``linkId::targetId`` for an entry
reached through a link; every part is tried. The id index is built by running the BattleScribe
importer (:mod:`dustsim.data.importers.battlescribe`) over the catalogues, so an id resolves to the
very card the importer wrote (variants such as "Action Jackson (SSB)" through the variant's
own id, captured copies through the Captured Vehicles catalogue).

Conventions (the Dust 1947 catalogues at this revision have no entries for joins, pilots or
platoons): a hero selection nested in a squad's selection is joined to it, one nested in a
vehicle's or aircraft's selection pilots it; selections of the Captured Vehicles catalogue
are captured vehicles; weapons and other upgrades nested in a unit belong to its card.

Parsing uses the standard library's expat parser and refuses any document type declaration
(so no entity is ever declared, expanded or fetched); a ``.rosz`` is read with
:mod:`zipfile` with size limits on the archive member.
"""

from __future__ import annotations

import functools
import json
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dustsim.data.importers.battlescribe import Node, parse_xml_bytes
from dustsim.errors import DustsimError

MAX_ROSTER_BYTES = 8 * 1024 * 1024  # a roster is a few kB; refuse anything absurd
MAX_SELECTIONS = 2_000
UNIT_TYPES = ("model", "unit")


def read_roster_bytes(path: str | Path) -> bytes:
    """The XML of a ``.ros`` file, or of the one ``.ros`` member of a ``.rosz`` archive."""
    path = Path(path)
    try:
        if path.suffix.lower() == ".rosz":
            try:
                zf = zipfile.ZipFile(path)
            except zipfile.BadZipFile:
                raise DustsimError("not a zip archive (a .rosz is a zipped .ros)",
                                   file=str(path)) from None
            with zf:
                members = [i for i in zf.infolist() if not i.is_dir()]
                if len(members) != 1:
                    raise DustsimError(f"a .rosz holds one roster, found {len(members)} files",
                                       file=str(path))
                info = members[0]
                if info.file_size > MAX_ROSTER_BYTES:
                    raise DustsimError(f"roster of {info.file_size:,} bytes refused (at most "
                                       f"{MAX_ROSTER_BYTES:,})", file=str(path))
                data = _read_member(zf, info, str(path))
        else:
            if path.stat().st_size > MAX_ROSTER_BYTES:
                raise DustsimError(f"roster larger than {MAX_ROSTER_BYTES:,} bytes refused",
                                   file=str(path))
            data = path.read_bytes()
    except OSError as exc:
        raise DustsimError(exc.strerror or str(exc), file=str(path)) from None
    if len(data) > MAX_ROSTER_BYTES:
        raise DustsimError("roster too large", file=str(path))
    return data


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, file: str) -> bytes:
    """The bytes of one archive member, opened defensively: encrypted members and methods
    other than stored/deflated are refused before reading; a bad CRC, corrupt deflate data or
    a truncated member is one line."""
    import zlib

    if info.flag_bits & 0x1:
        raise DustsimError("the roster in the archive is encrypted (not a BattleScribe "
                           ".rosz)", file=file)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise DustsimError(f"compression method {info.compress_type} is not stored or "
                           "deflated (not a BattleScribe .rosz)", file=file)
    try:
        with zf.open(info) as fh:
            return fh.read(MAX_ROSTER_BYTES + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
            ValueError) as exc:
        raise DustsimError(f"damaged archive ({' '.join(str(exc).split())[:80]})",
                           file=file) from None


# -- the catalogue id index --------------------------------------------------------------------
def default_catalogue_dir() -> Path | None:
    """``$DUSTSIM_BSDATA``, else ``../shared/data/bsdata-dust1947`` beside the checkout."""
    env = os.environ.get("DUSTSIM_BSDATA")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parents[2]  # the checkout (or site-packages)
    for cand in (here.parent / "shared" / "data" / "bsdata-dust1947",
                 here / "shared" / "data" / "bsdata-dust1947"):
        if cand.is_dir():
            return cand
    return None


@dataclass(frozen=True)
class IdIndex:
    """entry id -> card names (one, or several for an entry whose variants are cards)."""

    ids: dict[str, tuple[str, ...]]
    catalogue_bloc: dict[str, str]  # catalogue id -> its name (bloc)

    def lookup(self, entry_id: str) -> tuple[str, ...]:
        for part in reversed(entry_id.split("::")):
            if part in self.ids:
                return self.ids[part]
        return ()


@functools.lru_cache(maxsize=4)
def catalogue_index(folder: str) -> IdIndex:
    """Run the importer over a catalogue folder and keep which entry id gave which card."""
    from dustsim.data.importers import battlescribe as bs

    folder_p = Path(folder)
    if not folder_p.is_dir():
        raise DustsimError("BattleScribe catalogue folder not found (pass --catalogues DIR "
                           f"with {CATALOGUES_FROM}, or set DUSTSIM_BSDATA)", file=folder)
    cats = sorted(folder_p.glob("*.cat"), key=lambda p: p.name)
    gsts = sorted(folder_p.glob("*.gst"))
    if not cats:
        raise DustsimError("no BattleScribe catalogues (.cat) in the folder", file=folder)
    made: list[tuple[str, str]] = []  # (entry id, variant id) per card, in creation order

    class Recorder(bs.Importer):
        def _card(self, name, prof, cost, skills, weapons, entry, vnode, *rest):
            made.append((entry.attrib.get("id", ""), vnode.attrib.get("id", "")))
            return super()._card(name, prof, cost, skills, weapons, entry, vnode, *rest)

    imp = Recorder(gsts[0] if gsts else None, bs.read_revision(folder_p), bs.ImportReport())
    roots = {p: bs.parse_xml(p) for p in cats}
    for r in roots.values():
        imp.index.add(r)
    per_file: dict[str, list] = {}
    owners: dict[str, list[tuple[str, str]]] = {}
    cat_bloc: dict[str, str] = {}
    sources = ([(gsts[0], imp.gst_root)] if imp.gst_root is not None else []) + list(
        roots.items())
    for p, root in sources:
        start = len(made)
        bloc, cards = imp.cards_from_catalogue(p)
        cat_bloc[root.attrib.get("id", "")] = bloc
        if cards:
            key = bs._file_name(p)
            per_file[key] = cards
            owners[key] = made[start:]
    bs._dedupe(per_file)  # the names the importer writes
    ids: dict[str, list[str]] = {}
    for key, cards in per_file.items():
        for card, (eid, vid) in zip(cards, owners[key], strict=True):
            if vid and vid != eid:
                ids.setdefault(vid, []).append(card.name)
            if eid:
                ids.setdefault(eid, []).append(card.name)
    return IdIndex({k: tuple(dict.fromkeys(v)) for k, v in ids.items()}, cat_bloc)


# the id index of the BattleScribe catalogues the Dust 1947 cards were imported from, shipped
# with the package (ids and card names only): a roster reads without the catalogues
BUNDLED_INDEX = Path(__file__).parent / "data" / "bsdata_dust1947_ids.json"
CATALOGUES_FROM = ("the BSData/dust1947 catalogues (https://github.com/BSData/dust1947, "
                   "the .cat and .gst files)")


def index_json(index: IdIndex, revision: str = "") -> str:
    """The id index as the JSON that :data:`BUNDLED_INDEX` holds (sorted, stable)."""
    return json.dumps({"revision": revision, "ids": {k: list(v) for k, v in
                                                     sorted(index.ids.items())},
                       "catalogue_bloc": dict(sorted(index.catalogue_bloc.items()))},
                      indent=0, ensure_ascii=False, sort_keys=False) + "\n"


@functools.lru_cache(maxsize=1)
def bundled_index() -> IdIndex | None:
    """The shipped id index (None when the package has none)."""
    if not BUNDLED_INDEX.is_file():
        return None
    d = json.loads(BUNDLED_INDEX.read_text(encoding="utf-8"))
    return IdIndex({k: tuple(v) for k, v in d["ids"].items()}, dict(d["catalogue_bloc"]))


# -- reading a roster --------------------------------------------------------------------------
@dataclass(frozen=True)
class Selection:
    """A unit selection of a roster, resolved: its card, count and nested hero (if any)."""

    card: str
    count: int
    catalogue: str
    where: str
    nested_heroes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Roster:
    name: str
    points: float | None
    selections: tuple[Selection, ...]
    unresolved: tuple[str, ...]  # "name (entryId …, line N)" of selections without a card
    file: str


def _number(node: Node, file: str) -> int:
    """The selection's ``number``: ASCII whole numbers only (``1.0`` as BattleScribe writes
    it passes; ``1.9``, ``inf``, ``nan`` and other digits are refused, never rounded)."""
    import re

    raw = node.attrib.get("number", "1") or "1"
    m = re.fullmatch(r"\s*([0-9]{1,4})(?:\.0*)?\s*", raw)
    if not m:
        raise DustsimError(f"selection number {raw[:40]!r} is not a whole number (1 to 100)",
                           file=file, unit=node.attrib.get("name"), field="number")
    n = int(m.group(1))
    if not 1 <= n <= 100:
        raise DustsimError(f"selection number {raw!r} out of range (1 to 100)", file=file,
                           unit=node.attrib.get("name"), field="number")
    return n


#: the highest points limit a roster may set (as for TOML lists)
MAX_POINTS = 10_000


def _roster_points(root: Node, file: str) -> float | None:
    """The roster's points limit (its ``costLimits``; never the spent ``costs``), None when
    it sets none (no costLimit, or BattleScribe's ``-1``/``0`` for "no limit"). A limit that
    is not a plain number up to :data:`MAX_POINTS` (``inf``, ``1e309``, ``nan``, ``10001``)
    is refused."""
    import math
    import re

    for c in root.kids("costLimits"):
        if not (c.attrib.get("typeId") == "points" or "pt" in c.attrib.get("name", "")):
            continue
        raw = c.attrib.get("value", "")
        if not re.fullmatch(r"\s*-?[0-9]{1,6}(\.[0-9]{1,6})?\s*", raw):
            raise DustsimError(f"points limit {raw[:40]!r} is not a number (0 to "
                               f"{MAX_POINTS})", file=file, field="costLimits")
        v = float(raw)
        if not math.isfinite(v) or v > MAX_POINTS:
            raise DustsimError(f"points limit {raw[:40]!r} is over {MAX_POINTS}", file=file,
                               field="costLimits")
        if v > 0:
            return v
    return None


def read_roster(path: str | Path, catalogues: str | Path | None = None,
                kind_of: Callable[[str], str] | None = None) -> Roster:
    """Read a ``.ros`` / ``.rosz`` and resolve its unit selections to card names.

    ``kind_of`` (BattleScribe card name -> kind) tells heroes apart from upgrades when a
    hero is nested in another unit's selection."""
    file = str(path)
    root = parse_xml_bytes(read_roster_bytes(path), file)
    if root.tag != "roster":
        raise DustsimError(f"root element <{root.tag}> is not a BattleScribe roster",
                           file=file)
    folder = catalogues or default_catalogue_dir()
    index = catalogue_index(str(Path(folder).resolve())) if folder is not None else \
        bundled_index()
    if index is None:
        raise DustsimError("cannot resolve entry ids: no BattleScribe catalogues (pass "
                           f"--catalogues DIR with {CATALOGUES_FROM}, or set DUSTSIM_BSDATA "
                           "to that folder)", file=file)
    kinds = kind_of or (lambda _name: "")
    out: list[Selection] = []
    unresolved: list[str] = []
    count = 0

    def card_of(sel: Node, bloc: str) -> str | None:
        names = index.lookup(sel.attrib.get("entryId", ""))
        if len(names) > 1:  # variants: the chosen one is a child selection
            for child in sel.kids("selections"):
                sub = index.lookup(child.attrib.get("entryId", ""))
                if len(sub) == 1 and sub[0] in names:
                    return sub[0]
            same = [n for n in names if bloc and bloc in n]
            return same[0] if len(same) == 1 else None
        return names[0] if names else None

    forces = root.kids("forces")
    if not forces:
        raise DustsimError("the roster has no forces/force", file=file, field="forces")
    for force in forces:
        bloc = (index.catalogue_bloc.get(force.attrib.get("catalogueId", ""))
                or force.attrib.get("catalogueName", ""))
        for sel in force.kids("selections"):
            count += 1
            if count > MAX_SELECTIONS:
                raise DustsimError(f"more than {MAX_SELECTIONS} selections", file=file)
            name = sel.attrib.get("name", "?")
            card = card_of(sel, bloc)
            if card is None:
                if sel.attrib.get("type") in UNIT_TYPES or not sel.attrib.get("type"):
                    unresolved.append(f"{name} (entryId {sel.attrib.get('entryId', '?')!r}, "
                                      f"line {sel.line})")
                continue
            heroes = []
            for child in sel.kids("selections"):
                sub = card_of(child, bloc)
                if sub is not None and kinds(sub) == "hero" and sub != card:
                    heroes.append(sub)
            out.append(Selection(card, _number(sel, file), bloc, f"line {sel.line}",
                                 tuple(heroes)))
    return Roster(root.attrib.get("name", Path(file).stem), _roster_points(root, file), tuple(out),
                  tuple(unresolved), file)
