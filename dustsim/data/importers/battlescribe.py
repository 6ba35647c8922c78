"""BattleScribe importer: game-system (.gst) and catalogue (.cat) XML -> dustsim unit files.

Reads the community BattleScribe data of Dust 1947 and writes one TOML unit file per
catalogue. Only names, numbers and rule *names* are taken (never rule descriptions).

* A top-level ``selectionEntry`` of type ``model`` or ``unit`` is a card. When it holds a
  group whose entries each carry a unit profile (e.g. "Action Jackson (SSB)" / "(DS)"), every
  such entry is a card of its own, costing the base plus its variant cost.
* Weapons are child entries linking a weapon profile; their count comes from the entry's
  ``min``/``max`` selection constraints (min = fitted as standard, max > min = optional
  extras). Weapons inside option groups keep the group name; entries with a cost are options.
* Rule links on the unit are skills, on a weapon keywords (resolved through shared rules and
  info links by id; names only).
* Infantry squads get no model count from BattleScribe: it is inferred from the weapon counts
  (:func:`infer_models`) and marked ``models_source = "inferred"``.
* Empty cells become ``-`` and are flagged; a cell that does not parse (``7/1/``) becomes
  ``?`` and is reported with file, unit and weapon.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from dustsim.data.cards import (
    CANNOT,
    COLUMNS,
    KIND_ARMOUR,
    UNKNOWN,
    Card,
    Cell,
    Weapon,
    dumps_unit_file,
    normalize_keyword,
    parse_cell,
    parse_unit_text,
)
from dustsim.errors import DustsimError

EDITION = "dust-1947"
MAX_LINK_DEPTH = 16

PROFILE_KINDS = {
    "Infantry": "squad",
    "Heroes": "hero",
    "Vehicle": "vehicle",
    "Aircraft": "aircraft",
    "Support Weapons/Fortifications": "support",
}
WEAPON_PROFILES = ("Weapons", "Vehicle Weapons")
BS_COLUMNS = ("S1", "S2", "S3", "S4", "V1", "V2", "V3", "V4", "V5", "V6", "V7", "A1", "A2", "A3")
SIZE_SKILLS = {"small vehicle": "small", "large vehicle": "large", "huge vehicle": "huge"}


# -- a minimal XML tree that remembers line numbers --------------------------------------------
@dataclass
class Node:
    tag: str
    attrib: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)

    def kids(self, tag: str) -> list[Node]:
        """Children of the container child ``tag`` (e.g. ``kids('profiles')``)."""
        out: list[Node] = []
        for c in self.children:
            if c.tag == tag:
                out.extend(c.children)
        return out

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    @property
    def name(self) -> str:
        return self.attrib.get("name", "")


MAX_DEPTH = 100  # real catalogues nest about 15 elements deep
_TRACK_MAX = 50  # dustsim.limits.CAPS["track"]


class _TooDeep(Exception):
    pass


def parse_xml(path: Path) -> Node:
    """Parse an XML file into :class:`Node` s; malformed input raises a one-line DustsimError."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DustsimError(exc.strerror or str(exc), file=str(path)) from None
    return parse_xml_bytes(data, str(path))


def parse_xml_bytes(data: bytes, file: str) -> Node:
    """Parse XML with expat into :class:`Node` s (catalogues, rosters). Document type
    declarations and entities (entity expansion, external entities) are refused, and so is
    nesting deeper than ``MAX_DEPTH``; every problem is a one-line DustsimError."""
    parser = xml.parsers.expat.ParserCreate()
    stack: list[Node] = []
    root: list[Node] = []

    def refuse(*_args):
        raise DustsimError("document type declarations and entities are refused", file=file)

    def start(tag, attrs):
        if len(stack) >= MAX_DEPTH:
            raise _TooDeep
        node = Node(tag.split(":")[-1], dict(attrs), parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    try:
        parser.Parse(data, True)
    except _TooDeep:
        raise DustsimError(f"XML nested more than {MAX_DEPTH} elements deep", file=file) from None
    except (LookupError, ValueError) as exc:  # unknown encoding declared
        raise DustsimError(f"unreadable XML: {' '.join(str(exc).split())[:120]}",
                           file=file) from None
    except xml.parsers.expat.ExpatError as exc:
        raise DustsimError(f"malformed XML ({xml.parsers.expat.ErrorString(exc.code)}, "
                           f"line {exc.lineno})", file=file) from None
    if not root:
        raise DustsimError("empty XML document", file=file)
    return root[0]


# -- the index of ids across the game system and catalogues -----------------------------------
@dataclass
class Index:
    rules: dict[str, str] = field(default_factory=dict)  # id -> rule name
    profiles: dict[str, Node] = field(default_factory=dict)
    entries: dict[str, Node] = field(default_factory=dict)
    profile_types: dict[str, str] = field(default_factory=dict)
    weapon_profiles: dict[str, list[Node]] = field(default_factory=dict)  # by normalised name

    def add(self, root: Node) -> None:
        for n in root.iter():
            nid = n.attrib.get("id")
            if not nid:
                continue
            if n.tag == "rule":
                self.rules.setdefault(nid, n.name)
            elif n.tag == "profile":
                self.profiles.setdefault(nid, n)
                self.weapon_profiles.setdefault(_norm_name(n.name), [])
                if n not in self.weapon_profiles[_norm_name(n.name)]:
                    self.weapon_profiles[_norm_name(n.name)].append(n)
            elif n.tag in ("selectionEntry", "selectionEntryGroup"):
                self.entries.setdefault(nid, n)
            elif n.tag == "profileType":
                self.profile_types[nid] = n.name


@dataclass
class ImportReport:
    """What the importer noticed: unparsed cells, inferred models, blank cells."""

    unparsed: list[str] = field(default_factory=list)
    no_profile: list[str] = field(default_factory=list)
    blank_cells: int = 0
    inferred: int = 0
    cards: int = 0
    files: list[str] = field(default_factory=list)


MAX_COST = 10_000  # the unit-file validator's limit for army points


def _cost(node: Node) -> float:
    total = 0.0
    for c in node.kids("costs"):
        raw = c.attrib.get("value")
        # ASCII digits only: float() would read '٣' as 3, and an empty cost is no cost
        if raw is None or not re.fullmatch(r"-?[0-9]{1,6}(\.[0-9]{1,6})?", raw.strip()):
            raise DustsimError(f"cost {str(raw)[:40]!r} is not a number (ASCII digits)",
                               file=None, unit=node.name, field="cost")
        v = float(raw)
        if not 0 <= v <= MAX_COST:  # also refuses nan and inf
            raise DustsimError(f"absurd cost {c.attrib.get('value')!r} (0 to {MAX_COST})",
                               unit=node.name, field="cost")
        total += v
    if total > MAX_COST:
        raise DustsimError(f"absurd total cost {total:g} (0 to {MAX_COST})", unit=node.name,
                           field="cost")
    return total


def _constraint(node: Node, kind: str, scope: str = "parent") -> int | None:
    for c in node.kids("constraints"):
        if (c.attrib.get("type") == kind and c.attrib.get("field") == "selections"
                and c.attrib.get("scope") == scope):
            try:
                v = float(c.attrib.get("value", ""))
            except ValueError:
                return None
            if not (0 <= v <= 1000):
                raise DustsimError(f"absurd selection constraint {v}", unit=node.name,
                                   field="constraint")
            return int(v)
    return None


def _norm_name(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def _appended(node: Node, name: str) -> str:
    """``name`` with the node's unconditional ``append`` modifiers on its name."""
    for m in node.kids("modifiers"):
        if (m.attrib.get("type") == "append" and m.attrib.get("field") == "name"
                and not m.kids("conditions") and not m.kids("conditionGroups")):
            name = f"{name} {m.attrib.get('value', '').strip()}".strip()
    return name


def _chars(profile: Node) -> dict[str, str]:
    return {c.attrib.get("name", ""): (c.attrib.get("value") if c.attrib.get("value") is not None
                                       else "") for c in profile.kids("characteristics")}


class Importer:
    def __init__(self, gst: Path | None, revision: str | None, report: ImportReport):
        self.index = Index()
        self.revision = revision
        self.report = report
        self.gst_root = parse_xml(gst) if gst else None
        if self.gst_root is not None:
            self.index.add(self.gst_root)

    # -- links --------------------------------------------------------------------------------
    def _linked(self, node: Node, kind: str) -> list[Node]:
        """Profiles (kind='profile') reachable from ``node``: its own and via infoLinks."""
        out = [p for p in node.kids("profiles")]
        for link in node.kids("infoLinks"):
            if link.attrib.get("type") == kind and kind == "profile":
                target = self.index.profiles.get(link.attrib.get("targetId", ""))
                if target is not None:
                    out.append(target)
        return out

    def _rule_names(self, node: Node) -> list[str]:
        """Rule names of a node: its own rules and rule links, with a link's unconditional
        ``append`` modifier on the name kept ("Expert" + "- Flamethrower")."""
        names = [_appended(r, r.name) for r in node.kids("rules") if r.name]
        for link in node.kids("infoLinks"):
            if link.attrib.get("type") == "rule":
                name = self.index.rules.get(link.attrib.get("targetId", "")) or link.name
                if name:
                    names.append(_appended(link, name))
        return names

    def _users(self, entry: Node) -> list[Node]:
        """Top-level entries whose groups link to ``entry`` (who may take an attachment)."""
        eid = entry.attrib.get("id")
        return [owner for owner in self._owners if any(
            link.attrib.get("targetId") == eid for link in owner.iter() if link.tag == "entryLink")]

    def _ptype(self, profile: Node) -> str:
        return self.index.profile_types.get(profile.attrib.get("profileTypeId", ""), "")

    def _children(self, node: Node, depth: int = 0) -> list[Node]:
        """Child selection entries, following entryLinks (cycles and depth guarded)."""
        if depth > MAX_LINK_DEPTH:
            raise DustsimError("entry links nest too deep (cyclic links?)", unit=node.name,
                               field="entryLink")
        out = list(node.kids("selectionEntries"))
        for link in node.kids("entryLinks"):
            target = self.index.entries.get(link.attrib.get("targetId", ""))
            if target is None:
                continue
            merged = Node(target.tag, {**target.attrib, "name": target.name or link.name},
                          target.line, target.children + link.children)
            out.append(merged)
        return out

    # -- cards ----------------------------------------------------------------------------------
    def unit_profile(self, node: Node) -> Node | None:
        for p in self._linked(node, "profile"):
            if self._ptype(p) in PROFILE_KINDS:
                return p
        return None

    def cards_from_catalogue(self, path: Path) -> tuple[str, list[Card]]:
        root = parse_xml(path)
        if root.tag not in ("catalogue", "gameSystem"):
            raise DustsimError(f"root element <{root.tag}> is not a BattleScribe catalogue",
                               file=str(path))
        self.index.add(root)
        self._owners = [e for e in self._children(root)
                        if e.attrib.get("type") in ("model", "unit")]
        bloc = root.attrib.get("name", path.stem)
        rev = root.attrib.get("revision")
        cards: list[Card] = []
        entries = list(self._children(root))
        # shared entries with a unit profile are attachments (e.g. NKVD commissars)
        entries += [e for e in root.kids("sharedSelectionEntries")
                    if self.unit_profile(e) is not None]
        for entry in entries:
            try:
                cards.extend(self.cards_from_entry(entry, path, bloc, rev))
            except DustsimError as exc:
                exc.file = exc.file or f"{path} line {entry.line}"
                exc.unit = exc.unit or entry.name
                raise
        return bloc, cards

    def cards_from_entry(self, entry: Node, path: Path, bloc: str, rev: str | None) -> list[Card]:
        base_cost = _cost(entry)
        skills = self._rule_names(entry)
        variants: list[tuple[str, Node, float, list[str], Node]] = []
        profile = self.unit_profile(entry)
        option_groups: list[Node] = []
        for group in entry.kids("selectionEntryGroups"):
            members = self._children(group)
            vprofiles = [(m, self.unit_profile(m)) for m in members]
            if members and all(p is not None for _, p in vprofiles) and profile is None:
                for m, p in vprofiles:
                    vname = m.name if entry.name in m.name else f"{entry.name} ({m.name})"
                    variants.append((vname, p, _cost(m), self._rule_names(m), m))
            else:
                option_groups.append(group)
        if profile is not None:
            variants.insert(0, (entry.name, profile, 0.0, [], entry))
        if not variants:
            return []
        weapons = self._weapons(entry, option_groups, path)
        out = []
        for name, prof, vcost, vskills, vnode in variants:
            extra = self._weapons(vnode, [], path) if vnode is not entry else []
            out.append(self._card(name, prof, base_cost + vcost, skills + vskills,
                                  weapons + extra, entry, vnode, path, bloc, rev))
        return out

    def _card(self, name, prof, cost, skills, weapons, entry, vnode, path, bloc, rev) -> Card:
        if cost > MAX_COST:
            raise DustsimError(f"absurd total cost {cost:g} (0 to {MAX_COST})", unit=name,
                               field="cost")
        ch = _chars(prof)
        ptype = self._ptype(prof)
        kind = PROFILE_KINDS[ptype]
        armour_raw = ch.get("Armour", "").strip()
        m = re.fullmatch(r"([SVA])([1-7])", armour_raw)
        if not m or int(m.group(2)) > {"S": 4, "V": 7, "A": 3}[m.group(1)]:
            raise DustsimError(f"armour {armour_raw!r} is not S1-S4, V1-V7 or A1-A3",
                               unit=name, field="Armour")
        armour: str | None = ("I" if m.group(1) == "S" else m.group(1)) + m.group(2)
        flags = []
        if kind in KIND_ARMOUR and armour[0] not in KIND_ARMOUR[kind]:
            flags.append(f"armour {armour_raw} impossible on a {ptype} profile; kept unknown")
            armour = None

        def num(key):
            v = ch.get(key, "").strip()
            if re.fullmatch(r"[0-9]{1,3}", v):  # ASCII digits only
                return int(v)
            if v and v not in ("-", "–", "—"):  # a value the card has but dustsim cannot read
                flags.append(f"{key} {v[:40]!r} not understood; kept unknown")
            return None

        track = num("Damage Track") if kind != "squad" else None
        if track is not None and not 1 <= track <= _TRACK_MAX:
            raise DustsimError(f"damage track {track} is not 1 to {_TRACK_MAX}", unit=name,
                               field="Damage Track")
        skills = list(dict.fromkeys(s for s in skills if s))
        size = "standard"
        for s in skills:
            size = SIZE_SKILLS.get(s.lower(), size)
        models = None
        models_source = None
        if kind == "squad":
            models = infer_models(weapons)
            if models is not None:
                models_source = "inferred"
                self.report.inferred += 1
            else:
                flags.append("no weapon counts to infer the squad's models from")
        elif kind == "support":
            models = None
        if kind in ("hero", "vehicle", "aircraft", "support") and track is None:
            flags.append("damage track missing in BattleScribe")
        faction = ch.get("Faction", "") or ""
        mpa = _constraint(entry, "max", "roster")
        if entry.attrib.get("type") == "upgrade":
            users = sorted({n.name for n in self._users(entry)})
            flags.append("attachment" + (f" for: {', '.join(users)}" if users else ""))
        move, march = num("Move"), num("March Move")
        if move is not None and march is not None and march < move:
            flags.append(f"March Move {march} below Move {move} in BattleScribe; both kept "
                         "unknown")
            move = march = None
        return Card(
            name=name,
            edition=EDITION,
            kind=kind,
            armour=armour,
            bloc=bloc,
            faction=faction.strip(),
            ap=cost,
            models=models,
            models_source=models_source,
            damage_track=track,
            move=move,
            march_move=march,
            skills=tuple(skills),
            size=size,
            weapons=tuple(weapons),
            source=f"{path.name} L{vnode.line}",
            revision=self.revision,
            max_per_army=mpa,
            flags=tuple(flags),
        )

    def _weapons(self, entry: Node, groups: Iterable[Node], path: Path) -> list[Weapon]:
        out: list[Weapon] = []
        for child in self._children(entry):
            out.extend(self._weapon_entry(child, entry.name, path, None, False))
        for g in groups:
            gmin = _constraint(g, "min") or 0
            for child in self._children(g):
                out.extend(self._weapon_entry(child, entry.name, path, g.name, gmin == 0))
        return out

    def _weapon_entry(self, node, unit, path, group, optional) -> list[Weapon]:
        profiles = [p for p in self._linked(node, "profile") if self._ptype(p) in WEAPON_PROFILES]
        by_name = False
        if not profiles and not self._children(node) and not self.unit_profile(node):
            # a weapon selection without its own profile (Wilfried's Deadly Punch): the
            # catalogue's weapon profile of the same name, flagged; else reported
            same = [p for p in self.index.weapon_profiles.get(_norm_name(node.name), [])
                    if self._ptype(p) in WEAPON_PROFILES]
            if len(same) == 1:
                profiles, by_name = same, True
            elif node.name and not self._rule_names(node):
                self.report.no_profile.append(
                    f"{path.name} L{node.line}: unit {unit!r}: selection {node.name!r} has "
                    "no profile and no rule; not imported")
        if not profiles:
            return []
        lo = _constraint(node, "min")
        hi = _constraint(node, "max")
        count = lo if lo is not None else (0 if optional or group else 1)
        if group and lo is None:
            count = 0
        cost = _cost(node)
        keywords = []
        unknown_rules = []
        for r in self._rule_names(node):
            k = normalize_keyword(r)
            if k:
                keywords.append(k)
            else:
                unknown_rules.append(r)
        out = []
        for prof in profiles:
            if not prof.name.strip():
                raise DustsimError(f"weapon profile without a name (line {prof.line})",
                                   unit=unit, field="profile.name")
            ch = _chars(prof)
            cells = []
            flags = []
            for bs, col in zip(BS_COLUMNS, COLUMNS, strict=True):
                raw = (ch.get(bs) or "").strip()
                cells.append(self._cell(raw, path, unit, prof.name, col, flags))
            rng = (ch.get("Range") or "?").strip().upper().replace(" ", "") or "?"
            if not re.fullmatch(r"C|U|\d+|\d+-(\d+|U)", rng):
                flags.append(f"range {ch.get('Range')!r} not understood")
                rng = "?"
            mount = (ch.get("Mount") or "").strip().lower() or None
            pk = [k for k in (normalize_keyword(r) for r in self._rule_names(prof)) if k]
            w_optional = optional or (hi is not None and (lo or 0) == 0) or cost > 0
            out.append(Weapon(
                name=" ".join(prof.name.split()),
                line=tuple(cells),
                count=count if count is not None else 1,
                range=rng,
                mount=mount,
                keywords=tuple(sorted(set(keywords + pk))),
                optional=bool(w_optional and count == 0),
                cost=cost if cost else None,
                group=group,
                source=f"{path.name} L{prof.line}",
                flags=tuple(flags + [f"rule not modelled: {r}" for r in unknown_rules]
                            + ([f"selection L{node.line} has no profile in BattleScribe; "
                                f"profile {prof.name!r} taken by name"] if by_name else [])),
            ))
            if hi is not None and lo is not None and hi > lo:
                out[-1] = replace(out[-1], flags=(*out[-1].flags, f"up to {hi} may be taken"))
        return out

    def _cell(self, raw: str, path, unit, weapon, col, flags) -> Cell:
        if raw == "":
            self.report.blank_cells += 1
            if "blank cells in BattleScribe written '-'" not in flags:
                flags.append("blank cells in BattleScribe written '-'")
            return CANNOT
        try:
            return parse_cell(raw.replace("☠", "#"))
        except ValueError:
            self.report.unparsed.append(
                f"{path.name}: unit {unit!r}: weapon {weapon!r}: column {col}: cell {raw!r} "
                "not understood, kept as '?'")
            flags.append(f"{col} cell {raw!r} unparsed")
            return UNKNOWN


#: Weapons a soldier carries beside his own: under-barrel launchers on rifles, thrown grenades
#: and Molotovs, knives and fists, and the Panzerfaust or RPG a rifleman carries (2013 seed
#: L360). A Bazooka or (automatic) grenade launcher is its carrier's own weapon, and so is a
#: lone officer's pistol: those count. In Dust 1947 the *Grenade* rule means "no cover save"
#: (seed 003 L3272-3274), not "a second weapon", so the rule is not used here.
SECONDARY_NAMES = re.compile(
    r"under-?barrel|molotov|\bgrenades?\b(?!\s*launcher)|\bhand grenade|knife|knives|"
    r"rocket punch|panzerfaust|\brpg\b|panzer ?gloves|bayonet", re.I)


def infer_models(weapons: Iterable[Weapon]) -> int | None:
    """Squad size from the standard weapon counts (neither source gives it).

    Every soldier carries one main weapon, so the model count is the sum of the counts of
    the standard ranged weapons that are not carried beside another
    (:data:`SECONDARY_NAMES`); a per-soldier secondary or close-combat weapon sets a lower
    bound. The result is marked ``models_source = "inferred"``.
    """
    ws = [w for w in weapons if not w.optional and w.count > 0]
    if not ws:
        return None
    main = sum(w.count for w in ws if not w.close_combat and not SECONDARY_NAMES.search(w.name)
               and "under-barrel" not in w.keywords)
    most = max(w.count for w in ws)
    n = max(main, most)
    return n or None


def read_revision(folder: Path) -> str | None:
    commit = folder / "COMMIT"
    if commit.is_file():
        text = commit.read_text(encoding="utf-8", errors="replace").split()
        if text and re.fullmatch(r"[0-9a-f]{7,40}", text[0]):
            return text[0]
    return None


def _dedupe(all_cards: dict[str, list[Card]]) -> None:
    """Make names unique in the edition: captured copies and clashes get a suffix."""
    seen: dict[str, str] = {}
    for fname, cards in all_cards.items():
        for i, c in enumerate(cards):
            name = c.name
            if "captured" in fname.lower():
                name = f"{name} (Captured)"
            if name in seen:
                name = f"{name} ({c.bloc})"
            n = 2
            base = name
            while name in seen:
                name = f"{base} #{n}"
                n += 1
            seen[name] = fname
            if name != c.name:
                cards[i] = replace(c, name=name, flags=(*c.flags, f"BattleScribe name {c.name!r}"))


@dataclass
class BattleScribeData:
    """Cards per output file, with the bloc and catalogue of each file."""

    cards: dict[str, list[Card]]
    blocs: dict[str, str]
    origin: dict[str, str]
    revision: str | None
    report: ImportReport


def read_battlescribe(paths: Iterable[str | Path]) -> BattleScribeData:
    """Read the game system and catalogues into cards (names made unique). Nothing is
    written here."""
    expanded: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            expanded += sorted(p.glob("*.gst")) + sorted(p.glob("*.cat"))
        else:
            expanded.append(p)
    paths = expanded
    if not paths:
        raise DustsimError("no BattleScribe files given")
    for p in paths:
        if p.suffix not in (".gst", ".cat"):
            raise DustsimError("not a BattleScribe .gst or .cat file", file=str(p))
        if not p.is_file():
            raise DustsimError("no such file", file=str(p))
    gsts = [p for p in paths if p.suffix == ".gst"]
    if len(gsts) > 1:
        raise DustsimError("give at most one game system (.gst)", file=str(gsts[1]))
    gst = gsts[0] if gsts else None
    if gst is None:
        sib = sorted(paths[0].parent.glob("*.gst"))
        gst = sib[0] if sib else None
    report = ImportReport()
    revision = read_revision(paths[0].parent)
    imp = Importer(gst, revision, report)
    cats = sorted([p for p in paths if p.suffix == ".cat"], key=lambda p: p.name)
    # index every catalogue first so cross-file links resolve
    roots = {}
    for p in cats:
        roots[p] = parse_xml(p)
        imp.index.add(roots[p])
    per_file: dict[str, list[Card]] = {}
    blocs: dict[str, str] = {}
    origin: dict[str, str] = {}
    units_source: list[tuple[Path, Node]] = []
    if imp.gst_root is not None and gst is not None:
        units_source.append((gst, imp.gst_root))
    units_source += [(p, roots[p]) for p in cats]
    for p, _ in units_source:
        bloc, cards = imp.cards_from_catalogue(p)
        if cards:
            key = _file_name(p)
            if key in origin:
                raise DustsimError(f"{origin[key]!r} and {p.name!r} would both be written as "
                                   f"{key!r}; rename one", file=str(p))
            per_file[key] = cards
            blocs[key] = bloc
            origin[key] = p.name
    _dedupe(per_file)
    return BattleScribeData(per_file, blocs, origin, revision, report)


def import_battlescribe(paths: Iterable[str | Path]) -> tuple[dict[str, str], ImportReport]:
    """Convert catalogues to TOML texts: {file name: text}. Nothing is written here."""
    data = read_battlescribe(paths)
    report, revision = data.report, data.revision
    texts = {}
    src_rev = (revision or "unknown")[:7]
    for key, cards in data.cards.items():
        report.cards += len(cards)
        header = {"edition": EDITION, "bloc": data.blocs[key],
                  "source": f"github:BSData/dust1947@{src_rev} {data.origin[key]}",
                  "revision": revision or "unknown"}
        comment = ("Generated by `dustsim import battlescribe` from the BSData Dust 1947 "
                   "catalogues.\nNames, numbers and rule names only. Re-run the importer "
                   "rather than editing by hand.")
        texts[key] = validated_unit_file(cards, header, comment, key, data.origin[key])
    report.files = sorted(texts)
    return texts, report


def validated_unit_file(cards, header: dict, comment: str, name: str, origin: str) -> str:
    """The unit file's text, or a one-line error naming ``origin``: an importer never writes
    what `dustsim validate` refuses."""
    text = dumps_unit_file(cards, header, comment)
    problems: list = []
    parse_unit_text(text, name, problems)
    if problems:
        p = problems[0]
        raise DustsimError(f"would write invalid data: {p.message}", file=origin,
                           unit=p.unit, weapon=p.weapon, field=p.field)
    return text


def _file_name(p: Path) -> str:
    """``Allies.cat`` -> ``allies.toml``; a name with no letter or digit is refused (it
    would become the hidden file ``.toml``)."""
    stem = re.sub(r"[^a-z0-9]+", "-", p.stem.lower()).strip("-")
    if not stem:
        raise DustsimError("the file name has no letter or digit to name the unit file; "
                           "rename it", file=str(p))
    return stem + ".toml"
