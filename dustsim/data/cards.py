"""Unit cards: typed immutable models, the cell notation, the TOML file format and validation.

A weapon line has 14 cells, one per armour column (RULES.md §4): ``N/D`` (N dice, D damage
per hit), ``*``/``**`` left of the slash for blast (one or two dice per model in the target),
``#``, ``N`` or ``☠`` right of the slash for automatic kill, ``-`` (cannot damage) and ``?``
(unknown). Unknown stays unknown: a figure that needs a ``?`` cell is not computed.

Files in ``unit_data/`` are TOML, one per bloc or source::

    schema = 1
    edition = "dust-1947"
    source = "github:BSData/dust1947@516c407 Allies.cat"

    [[card]]
    name = "Pounder"
    kind = "vehicle"
    armour = "V4"
    damage_track = 6
    ap = 13
    source = "Allies.cat L1234"

    [[card.weapon]]
    name = "Antitank Gun"
    range = "U"
    mount = "turret"
    line = ["2/1", "2/1", ...]  # I1-I4, V1-V7, A1-A3
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dustsim.data.editions import DEFAULT_RULESET_FOR_EDITION, EDITIONS
from dustsim.errors import DustsimError

COLUMNS: tuple[str, ...] = (
    "I1", "I2", "I3", "I4",
    "V1", "V2", "V3", "V4", "V5", "V6", "V7",
    "A1", "A2", "A3",
)
COLUMN_TITLES = {"I": "Infantry", "V": "Vehicle", "A": "Aircraft"}
TARGET_TYPE = {"I": "infantry", "V": "vehicle", "A": "aircraft"}
KINDS: tuple[str, ...] = ("squad", "hero", "vehicle", "aircraft", "support")
SIZES: tuple[str, ...] = ("small", "standard", "large", "huge")
MODELS_SOURCES: tuple[str, ...] = ("card", "inferred", "example")
AUTO_KILL_MARKS = ("#", "N", "☠")

#: Weapon keywords dustsim knows; values are the aliases found in sources (lower case).
WEAPON_KEYWORDS: dict[str, tuple[str, ...]] = {
    "laser": ("laser",),
    "cutting": ("cutting",),
    "phaser": ("phaser",),
    "grenade": ("grenade", "grenade weapon"),
    "flame": ("flame", "flamethrower", "flame weapon"),
    "flame-burst": ("flame burst",),
    "spray": ("spray",),
    "artillery": ("artillery",),
    "sniper": ("sniper",),
    "tesla": ("tesla",),
    "grapple": ("grapple",),
    "burst": ("burst",),
    "salvo": ("salvo",),
    "volley": ("volley",),
    "reload": ("reload",),
    "limited-ammo": ("limited ammo", "limited-ammo"),
    "set-up": ("set-up", "set up", "setup"),
    "wire-guided": ("wire guided", "wire-guided"),
    "power-scope": ("power scope", "power-scope", "power scopes"),
    "ignores-cover": ("ignores cover",),
    "under-barrel": ("under-barrel", "under barrel"),
    "head-shot": ("head shot",),
    "radiation": ("radiation",),
    "large-ordnance": ("large ordnance",),
    "move-and-fire": ("move and fire",),
    "assault-shield": ("assault shield",),
    "smoke": ("smoke",),
    # a weapon's own rule in DUST ENLIST's "specials" (issue 24: on 55 hero weapons "Expert"
    # names the weapon the skill applies to, L3515-3517; imported as flags before, so unplayed)
    "expert": ("expert",),
    "savage-animal": ("savage animal",),
    "psychic-scream": ("psychic scream",),
    "stealth": ("stealth",),
    "spores": ("spores",),
    "rail-weapon": ("rail weapon",),
    "phosphorus": ("phosphorus",),
    "phosphorus-flame": ("phosphorus flame",),
    "bombing-run": ("bombing run",),
    "squad-support-weapon": ("squad support weapon",),
    "artillery-barrage": ("artillery barrage",),
}
_KEYWORD_ALIASES = {a: k for k, aliases in WEAPON_KEYWORDS.items() for a in (k, *aliases)}

#: the keys of each table of a unit file; any other key is an error with the closest valid
#: one offered (a misspelt ``skils`` would otherwise silently drop the card's skills)
FILE_KEYS: tuple[str, ...] = ("schema", "edition", "bloc", "source", "revision", "card")
CARD_KEYS: tuple[str, ...] = (
    "name", "edition", "kind", "armour", "bloc", "faction", "ap", "models", "models_source",
    "damage_track", "move", "march_move", "skills", "size", "weapon", "source", "sources",
    "revision", "max_per_army", "flags", "conflict", "errata", "capturable", "cover",
    "cover_source")
WEAPON_KEYS: tuple[str, ...] = (
    "name", "line", "count", "range", "mount", "keywords", "ammo", "optional", "cost", "group",
    "source", "cell_sources", "flags")
CONFLICT_KEYS: tuple[str, ...] = ("field", "used", "other", "used_source", "other_source")

# ASCII digits only: int() would read Arabic-Indic or full-width digits too
_RANGE_RE = re.compile(r"^(C|U|[0-9]+|[0-9]+-([0-9]+|U))$")
_CELL_RE = re.compile(r"^(\*{1,2}|[0-9]{1,6})/([0-9]{1,6}|[#N☠?])$")


def normalize_keyword(text: str) -> str | None:
    """Canonical keyword for a source's rule name, or None if dustsim does not know it."""
    return _KEYWORD_ALIASES.get(" ".join(text.strip().lower().split()))


@dataclass(frozen=True)
class Cell:
    """One weapon-line cell. ``dice`` None means blast (dice from the target's models)."""

    text: str
    known: bool = True
    can_damage: bool = True
    dice: int | None = 0
    blast: int = 0
    damage: int | None = 0
    auto_kill: bool = False

    @property
    def usable(self) -> bool:
        """Known and able to damage: the engines can evaluate it."""
        return self.known and self.can_damage and self.damage is not None

    def __str__(self) -> str:
        return self.text


CANNOT = Cell("-", can_damage=False, dice=0, damage=0)
UNKNOWN = Cell("?", known=False, dice=None, damage=None)


def parse_cell(text: str) -> Cell:
    """Parse the card notation of one cell; raises ValueError on anything else."""
    t = str(text).strip()
    if t in ("-", "–", "—"):
        return CANNOT
    if t == "?":
        return UNKNOWN
    t = t.replace("blast", "*") if re.fullmatch(r"\d?blast/.+", t) else t
    m = re.fullmatch(r"(2)\*/(.+)", t)
    if m:
        t = f"**/{m.group(2)}"
    m = _CELL_RE.match(t)
    if not m:
        raise ValueError(f"cell {text!r} is not N/D, */D, **/D, N/#, '-' or '?'")
    left, right = m.groups()
    blast = len(left) if left.startswith("*") else 0
    dice = None if blast else int(left)
    auto = right in AUTO_KILL_MARKS
    damage: int | None
    if right == "?":
        damage = None
    elif auto:
        damage = 0
    else:
        damage = int(right)
    canonical = f"{left}/{'#' if auto else right}"
    if dice == 0 and not blast:
        raise ValueError(f"cell {text!r} rolls no dice; write '-' for a column it cannot hurt")
    if damage == 0 and not auto:
        raise ValueError(f"cell {text!r} does no damage; write '-' for a column it cannot hurt")
    from dustsim.limits import CAPS

    if dice is not None and dice > CAPS["dice"][1]:
        raise ValueError(f"cell {text!r}: {dice} dice is over the cap of {CAPS['dice'][1]} "
                         "per cell")
    if damage is not None and damage > CAPS["damage"][1]:
        raise ValueError(f"cell {text!r}: {damage} damage per hit is over the cap of "
                         f"{CAPS['damage'][1]}")
    return Cell(canonical, known=True, can_damage=True, dice=dice, blast=blast,
                damage=damage, auto_kill=auto)


@dataclass(frozen=True)
class Weapon:
    name: str
    line: tuple[Cell, ...]
    count: int = 1
    range: str = "?"
    mount: str | None = None
    keywords: tuple[str, ...] = ()
    ammo: int | None = None
    optional: bool = False
    cost: float | None = None
    group: str | None = None
    source: str | None = None
    cell_sources: tuple[tuple[str, str], ...] = ()
    flags: tuple[str, ...] = ()

    def cell(self, column: str) -> Cell:
        return self.line[COLUMNS.index(column)]

    @property
    def close_combat(self) -> bool:
        return self.range == "C"

    @property
    def complete(self) -> bool:
        return all(c.known and (not c.can_damage or c.damage is not None) for c in self.line)


@dataclass(frozen=True)
class Conflict:
    """Two sources disagree on one number: the value used, the other, and where each is from."""

    field: str
    used: str
    other: str
    used_source: str
    other_source: str


@dataclass(frozen=True)
class Card:
    """One printed card. ``bloc`` and ``faction`` are display names ("Axis",
    "Blutkreuz Korps"); an empty ``faction`` is a bloc card. ``sources`` cites every source
    that has the card; ``conflicts`` keeps both values where they disagree; ``errata`` lists
    the sourced corrections applied over the imports; ``capturable`` marks the vehicles
    another bloc may field as a captured vehicle."""

    name: str
    edition: str
    kind: str | None
    armour: str | None
    bloc: str = ""
    faction: str = ""
    ap: float | None = None
    models: int | None = None
    models_source: str | None = None
    damage_track: int | None = None
    move: int | None = None
    march_move: int | None = None
    skills: tuple[str, ...] = ()
    size: str = "standard"
    weapons: tuple[Weapon, ...] = ()
    source: str = ""
    revision: str | None = None
    max_per_army: int | None = None
    flags: tuple[str, ...] = ()
    file: str | None = None
    sources: tuple[str, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    errata: tuple[str, ...] = ()
    capturable: bool = False
    #: 2009 printed cover values (001:L489-499): (("soft"|"hard", save), ...), save one of
    #: COVER_SAVES; a cover type not listed is unknown ("?")
    cover: tuple[tuple[str, str], ...] = ()
    cover_source: str | None = None

    @property
    def armour_type(self) -> str | None:
        return self.armour[0] if self.armour else None

    @property
    def armour_value(self) -> int | None:
        return int(self.armour[1:]) if self.armour else None

    @property
    def target_type(self) -> str | None:
        return TARGET_TYPE[self.armour[0]] if self.armour else None

    @property
    def is_squad(self) -> bool:
        return self.kind == "squad"

    def has_skill(self, skill: str) -> bool:
        return skill.lower() in {s.lower() for s in self.skills}

    @property
    def complete(self) -> bool:
        """All of armour, AP, models or track, and every cell of every weapon known."""
        size_known = self.damage_track is not None or (
            self.models is not None and self.models_source == "card"
        )
        return (
            self.ap is not None and self.armour is not None and self.kind is not None
            and size_known and all(w.complete for w in self.weapons)
        )

    @property
    def key(self) -> str:
        return f"{self.edition}:{self.name}"


# -- validation ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    file: str
    unit: str | None
    weapon: str | None
    field: str
    message: str

    def error(self) -> DustsimError:
        return DustsimError(self.message, file=self.file, unit=self.unit,
                            weapon=self.weapon, field=self.field)

    def __str__(self) -> str:
        return str(self.error())


def _int_field(raw: dict, name: str, problems: list, where: dict, *, minimum=0, required=False,
               maximum=1000):
    v = raw.get(name)
    if v is None:
        if required:
            problems.append(Problem(**where, field=name, message="is required"))
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not minimum <= v <= maximum:
        problems.append(Problem(**where, field=name,
                                message=f"must be an integer from {minimum} to {maximum}, "
                                        f"got {v!r}"))
        return None
    return v


def _unknown_keys(raw: dict, allowed: tuple[str, ...], problems: list, where: dict,
                  prefix: str = "") -> None:
    from dustsim.data.schema import unknown_keys

    for key, message in unknown_keys(raw, allowed):
        problems.append(Problem(**where, field=prefix + key, message=message))


def _cap(knob: str) -> int:
    from dustsim.limits import CAPS

    return CAPS[knob][1]


def _check_skills(skills: list[str], problems: list, where: dict) -> None:
    """Unknown skills are errors (a typo would switch a rule off); see
    dustsim.data.skill_names."""
    from dustsim.data.skill_names import is_skill, suggest

    for sk in skills:
        if not sk.strip():
            problems.append(Problem(**where, field="skills", message="empty skill name"))
        elif not is_skill(sk):
            problems.append(Problem(
                **where, field="skills",
                message=f"unknown skill {sk!r}{suggest(sk)} (a real skill dustsim does not "
                        "model goes in dustsim.data.skill_names.SKILLS)"))


def _str_list(raw: dict, name: str, problems: list, where: dict) -> list[str]:
    v = raw.get(name, [])
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        problems.append(Problem(**where, field=name, message="must be a list of strings"))
        return []
    return v


def _opt_str(raw: dict, name: str, problems: list, where: dict) -> str | None:
    v = raw.get(name)
    if v is not None and not isinstance(v, str):
        problems.append(Problem(**where, field=name, message=f"must be a string, got {v!r}"))
        return None
    return v


#: the armour letters each kind of unit can have (the Invader is a vehicle with aircraft
#: armour on its card; support teams are infantry or vehicles)
KIND_ARMOUR: dict[str, str] = {"squad": "I", "hero": "I", "vehicle": "VA", "aircraft": "A",
                               "support": "IV"}


def range_problem(rng: str) -> str | None:
    """Why a weapon range the notation allows cannot be fired (``"0"``, ``"8-2"``, over the
    board cap), or None."""
    if rng in ("C", "U", "?"):
        return None
    hi_cap = _cap("distance")
    lo_s, _, hi_s = rng.partition("-")
    lo = int(lo_s)
    if not hi_s:
        if not 1 <= lo <= hi_cap:
            return f"range {rng[:40]!r} must be from 1 to {hi_cap} squares"
        return None
    if lo > hi_cap:
        return f"range {rng[:40]!r}: minimum over {hi_cap} squares"
    if hi_s != "U" and not lo < int(hi_s) <= hi_cap:
        return (f"range {rng[:40]!r}: the maximum must be above the minimum and at most "
                f"{hi_cap} squares")
    return None


def _card_sense(card_kind, armour, raw: dict, problems: list, where: dict) -> None:
    """What the game cannot have: armour of another kind of unit, models on a unit that is
    not a squad, a March Move below the Move."""
    if card_kind in KIND_ARMOUR and armour and armour[0] not in KIND_ARMOUR[card_kind]:
        problems.append(Problem(**where, field="armour",
                                message=f"a {card_kind} cannot have armour {armour} (a "
                                        f"{card_kind} has {'/'.join(KIND_ARMOUR[card_kind])} "
                                        "armour)"))
    if card_kind not in (None, "squad") and raw.get("models") is not None:
        problems.append(Problem(**where, field="models",
                                message=f"a {card_kind} has no models (only a squad does); "
                                        "use damage_track"))
    move, march = raw.get("move"), raw.get("march_move")
    if isinstance(move, int) and isinstance(march, int) and march < move:
        problems.append(Problem(**where, field="march_move",
                                message=f"March Move {march} is below Move {move}"))


def _weapon_from_dict(raw: Any, file: str, unit: str, problems: list[Problem]) -> Weapon | None:
    if not isinstance(raw, dict):
        problems.append(Problem(file, unit, None, "weapon", "must be a table"))
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(Problem(file, unit, None, "weapon.name", "missing or empty"))
        return None
    where = {"file": file, "unit": unit, "weapon": name}
    n_before = len(problems)
    _unknown_keys(raw, WEAPON_KEYS, problems, where, "weapon.")
    line_raw = raw.get("line")
    cells: list[Cell] = []
    if not isinstance(line_raw, list) or len(line_raw) != len(COLUMNS):
        problems.append(Problem(**where, field="line",
                                message=f"must be a list of {len(COLUMNS)} cells "
                                        f"({' '.join(COLUMNS)})"))
    else:
        for col, text in zip(COLUMNS, line_raw, strict=True):
            try:
                cells.append(parse_cell(text))
            except ValueError as exc:
                problems.append(Problem(**where, field=f"line.{col}", message=str(exc)))
    rng = str(raw.get("range", "?"))
    if rng != "?" and not _RANGE_RE.match(rng):
        problems.append(Problem(**where, field="range",
                                message=f"range {rng[:40]!r} is not C, U, N or min-max"))
    elif rng != "?":
        why = range_problem(rng)
        if why:
            problems.append(Problem(**where, field="range", message=why))
    keywords = []
    for k in _str_list(raw, "keywords", problems, where):
        canon = normalize_keyword(str(k))
        if canon is None:
            problems.append(Problem(**where, field="keywords",
                                    message=f"unknown weapon keyword {k!r}"))
        else:
            keywords.append(canon)
    count = _int_field(raw, "count", problems, where, minimum=1, maximum=_cap("count"))
    ammo = _int_field(raw, "ammo", problems, where, minimum=0)
    mount = _opt_str(raw, "mount", problems, where)
    group = _opt_str(raw, "group", problems, where)
    source = _opt_str(raw, "source", problems, where)
    flags = _str_list(raw, "flags", problems, where)
    optional = raw.get("optional", False)
    if not isinstance(optional, bool):
        problems.append(Problem(**where, field="optional", message="must be true or false"))
    cost = raw.get("cost")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)
                             or not -1000 <= cost <= 10000):
        problems.append(Problem(**where, field="cost", message=f"not a number: {cost!r}"))
        cost = None
    cell_sources = raw.get("cell_sources", {}) or {}
    if not isinstance(cell_sources, dict) or any(
        c not in COLUMNS or not isinstance(v, str) for c, v in cell_sources.items()
    ):
        problems.append(Problem(**where, field="cell_sources",
                                message="must map column names to sources"))
        cell_sources = {}
    if len(problems) > n_before:
        return None
    return Weapon(
        name=name,
        line=tuple(cells),
        count=1 if count is None else count,
        range=rng,
        mount=mount,
        keywords=tuple(sorted(set(keywords))),
        ammo=ammo,
        optional=bool(optional),
        cost=None if cost is None else float(cost),
        group=group,
        source=source,
        cell_sources=tuple(sorted(cell_sources.items())),
        flags=tuple(flags),
    )


def card_from_dict(raw: Any, file: str, defaults: dict, problems: list[Problem]) -> Card | None:
    """Build one card from its TOML table, appending every problem found."""
    if not isinstance(raw, dict):
        problems.append(Problem(file, None, None, "card", "must be a table"))
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(Problem(file, None, None, "name", "missing or empty"))
        return None
    where = {"file": file, "unit": name, "weapon": None}
    n0 = len(problems)
    _unknown_keys(raw, CARD_KEYS, problems, where)
    if not name.isprintable():  # an escape or carriage return would forge printed lines
        problems.append(Problem(**where, field="name",
                                message="holds a control character (escape, carriage return)"))
    edition = raw.get("edition", defaults.get("edition"))
    if edition not in EDITIONS:
        problems.append(Problem(**where, field="edition",
                                message=f"{edition!r} is not one of {', '.join(EDITIONS)}"))
    kind = raw.get("kind")
    if kind is not None and kind not in KINDS:
        problems.append(Problem(**where, field="kind",
                                message=f"{kind!r} is not one of {', '.join(KINDS)}"))
    armour = raw.get("armour")
    if armour is not None:
        armour = str(armour)
        m = re.fullmatch(r"([IVA])([1-7])", armour)
        if not m or (m.group(1) == "I" and int(m.group(2)) > 4) or (
            m.group(1) == "A" and int(m.group(2)) > 3
        ):
            problems.append(Problem(**where, field="armour",
                                    message=f"{armour!r} is not I1-I4, V1-V7 or A1-A3"))
    if not any(p.field in ("armour", "kind") for p in problems[n0:]):
        _card_sense(kind, armour, raw, problems, where)
    models = _int_field(raw, "models", problems, where, minimum=1, maximum=_cap("models"))
    track = _int_field(raw, "damage_track", problems, where, minimum=1, maximum=_cap("track"))
    models_source = raw.get("models_source")
    if models is not None and models_source not in MODELS_SOURCES:
        problems.append(Problem(**where, field="models_source",
                                message=f"must be one of {', '.join(MODELS_SOURCES)}"))
    if kind == "squad" and "models" in raw and models is None:
        pass  # already reported
    if kind == "squad" and raw.get("models", 1) == 0:
        problems.append(Problem(**where, field="models", message="a squad needs models"))
    ap = raw.get("ap")
    if ap is not None and (isinstance(ap, bool) or not isinstance(ap, int | float)
                           or not 0 <= ap <= 10000):
        problems.append(Problem(**where, field="ap", message=f"not a cost: {ap!r}"))
        ap = None
    size = raw.get("size", "standard")
    if size not in SIZES:
        problems.append(Problem(**where, field="size",
                                message=f"{size!r} is not one of {', '.join(SIZES)}"))
    move = _int_field(raw, "move", problems, where)
    march = _int_field(raw, "march_move", problems, where)
    mpa = _int_field(raw, "max_per_army", problems, where, minimum=1)
    skills = _str_list(raw, "skills", problems, where)
    _check_skills(skills, problems, where)
    flags = _str_list(raw, "flags", problems, where)
    for key in ("bloc", "faction", "source", "revision", "models_source", "cover_source"):
        _opt_str(raw, key, problems, where)
    sources = _str_list(raw, "sources", problems, where)
    errata = _str_list(raw, "errata", problems, where)
    capturable = raw.get("capturable", False)
    if not isinstance(capturable, bool):
        problems.append(Problem(**where, field="capturable", message="must be true or false"))
    conflicts = []
    conflicts_raw = raw.get("conflict", [])
    if not isinstance(conflicts_raw, list):
        problems.append(Problem(**where, field="conflict", message="must be an array of tables"))
        conflicts_raw = []
    for cf in conflicts_raw:
        keys = ("field", "used", "other", "used_source", "other_source")
        if isinstance(cf, dict):
            _unknown_keys(cf, CONFLICT_KEYS, problems, where, "conflict.")
        if not isinstance(cf, dict) or any(not isinstance(cf.get(k), str) for k in keys):
            problems.append(Problem(**where, field="conflict",
                                    message=f"each conflict needs the strings {', '.join(keys)}"))
            continue
        conflicts.append(Conflict(*(cf[k] for k in keys)))
    cover = _cover_field(raw, problems, where)
    weapons_raw = raw.get("weapon", [])
    if not isinstance(weapons_raw, list):
        problems.append(Problem(**where, field="weapon", message="must be an array of tables"))
        weapons_raw = []
    weapons = [_weapon_from_dict(w, file, name, problems) for w in weapons_raw]
    if len(problems) > n0:
        return None
    return Card(
        name=name,
        edition=edition,
        kind=kind,
        armour=armour,
        bloc=str(raw.get("bloc", defaults.get("bloc", ""))),
        faction=str(raw.get("faction", "")),
        ap=None if ap is None else float(ap),
        models=models,
        models_source=models_source if models is not None else None,
        damage_track=track,
        move=move,
        march_move=march,
        skills=tuple(skills),
        size=size,
        weapons=tuple(w for w in weapons if w is not None),
        source=str(raw.get("source", defaults.get("source", ""))),
        revision=raw.get("revision", defaults.get("revision")),
        max_per_army=mpa,
        flags=tuple(flags),
        file=file,
        sources=tuple(sources),
        conflicts=tuple(conflicts),
        errata=tuple(errata),
        capturable=capturable is True,
        cover=cover,
        cover_source=raw.get("cover_source"),
    )


COVER_KINDS = ("soft", "hard")
COVER_SAVES = ("hit-save", "miss-save", "no-save", "?")


def _cover_field(raw: dict, problems: list, where: dict) -> tuple[tuple[str, str], ...]:
    """The 2009 ``cover = {soft = ..., hard = ...}`` table of a card (001:L489-499)."""
    table = raw.get("cover")
    if table is None:
        return ()
    if not isinstance(table, dict):
        problems.append(Problem(**where, field="cover", message="must be a table"))
        return ()
    out = []
    for k, v in table.items():
        if k not in COVER_KINDS or v not in COVER_SAVES:
            problems.append(Problem(**where, field="cover",
                                    message=f"{k} = {v!r}: cover kinds {', '.join(COVER_KINDS)}"
                                            f", saves {', '.join(COVER_SAVES)}"))
            continue
        out.append((k, v))
    if out and not raw.get("cover_source"):
        problems.append(Problem(**where, field="cover_source",
                                message="printed cover values need their source"))
    return tuple(sorted(out))


def parse_unit_file(path: str | Path, problems: list[Problem]) -> list[Card]:
    """Parse one TOML unit file; problems are appended, valid cards returned."""
    import stat

    from dustsim.limits import FILE_BYTES

    path = Path(path)
    file = str(path)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # /dev/zero, a FIFO: would read forever
            problems.append(Problem(file, None, None, "file", "not a regular file"))
            return []
        if st.st_size > FILE_BYTES:
            problems.append(Problem(file, None, None, "file",
                                    f"{st.st_size:,} bytes, over the cap of {FILE_BYTES:,}"))
            return []
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(file, None, None, "encoding", f"not UTF-8 ({exc.reason})"))
        return []
    except OSError as exc:
        problems.append(Problem(file, None, None, "file", exc.strerror or str(exc)))
        return []
    return parse_unit_text(text, file, problems)


def parse_unit_text(text: str, file: str, problems: list[Problem]) -> list[Card]:
    """Parse the TOML text of one unit file named ``file``; problems are appended."""
    try:
        doc = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer of over 4,300 digits
        problems.append(Problem(file, None, None, "toml",
                                f"malformed TOML: {' '.join(str(exc).split())[:120]}"))
        return []
    except RecursionError:
        problems.append(Problem(file, None, None, "toml", "malformed TOML: nested too deeply"))
        return []
    if doc.get("schema", 1) != 1:
        from dustsim.data.schema import short

        problems.append(Problem(file, None, None, "schema",
                                f"unsupported {short(doc.get('schema'))}"))
        return []
    defaults = {}
    for k in ("edition", "bloc", "source", "revision"):
        if k not in doc:
            continue
        if isinstance(doc[k], str):
            defaults[k] = doc[k]
        else:  # a file-wide default of the wrong type would silently drop out of every card
            problems.append(Problem(file, None, None, k, f"must be a string, not {doc[k]!r}"))
    if ("figure" in doc or "platoon" in doc) and "card" not in doc:
        # Epic figures and platoon charts: read by dustsim.play.epic / dustsim.army.platoons
        return []
    _unknown_keys(doc, FILE_KEYS, problems, {"file": file, "unit": None, "weapon": None})
    cards_raw = doc.get("card", [])
    if not isinstance(cards_raw, list):
        problems.append(Problem(file, None, None, "card", "must be an array of tables"))
        return []
    cards = [card_from_dict(c, file, defaults, problems) for c in cards_raw]
    return [c for c in cards if c is not None]


def _scan(folder: Path) -> list[Path]:
    """The ``*.toml`` files under ``folder``, bounded: at most ``SCAN_DEPTH`` levels,
    ``SCAN_DIRS`` folders and ``SCAN_FILES`` files (``validate /`` is refused in one line,
    not a walk of the whole file system); hidden folders and links to folders are skipped."""
    import os

    from dustsim.limits import SCAN_DEPTH, SCAN_DIRS, SCAN_FILES

    found: list[Path] = []
    stack = [(folder, 0)]
    dirs = 0
    hint = "point it at the folder of the unit files (such as unit_data/)"
    while stack:
        d, depth = stack.pop()
        dirs += 1
        if dirs > SCAN_DIRS:
            raise DustsimError(f"more than {SCAN_DIRS} folders under it; {hint}",
                               file=str(folder))
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            continue  # an unreadable folder holds no unit file we can read
        for e in entries:
            if e.name.startswith("."):
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth + 1 > SCAN_DEPTH:
                        raise DustsimError(f"folders nested deeper than {SCAN_DEPTH} levels; "
                                           f"{hint}", file=str(folder))
                    stack.append((Path(e.path), depth + 1))
                elif e.name.endswith(".toml"):
                    found.append(Path(e.path))
                    if len(found) > SCAN_FILES:
                        raise DustsimError(f"more than {SCAN_FILES} .toml files under it; "
                                           f"{hint}", file=str(folder))
            except OSError:
                continue
    return sorted(found)


def iter_unit_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in paths:
        p = Path(p)
        try:
            is_dir = p.is_dir()
        except OSError:  # a name too long: parse_unit_file reports it
            is_dir = False
        if is_dir:
            yield from _scan(p)
        else:
            yield p


def check_duplicates(cards: list[Card], problems: list[Problem]) -> None:
    seen: dict[tuple[str, str], Card] = {}
    for c in cards:
        k = (c.edition, c.name)
        if k in seen:
            problems.append(Problem(c.file or "?", c.name, None, "name",
                                    f"duplicate unit name in edition {c.edition} "
                                    f"(also in {seen[k].file})"))
        else:
            seen[k] = c


def validate(paths: Iterable[str | Path]) -> tuple[list[Card], list[Problem]]:
    """Load every unit file under ``paths``; return the valid cards and all problems."""
    problems: list[Problem] = []
    cards: list[Card] = []
    files = list(iter_unit_files(paths))
    for p in paths if not files else []:
        problems.append(Problem(str(p), None, None, "file", "no unit files found"))
    for f in files:
        cards.extend(parse_unit_file(f, problems))
    check_duplicates(cards, problems)
    return cards, problems


def load_cards(paths: Iterable[str | Path] | None = None) -> list[Card]:
    """Load and validate cards; raise :class:`DustsimError` on the first problem. A load
    without problems is cached on disk by content (:mod:`dustsim.data.card_cache`)."""
    from dustsim.data.card_cache import cached

    paths = [default_data_dir()] if paths is None else list(paths)

    def load() -> list[Card]:
        cards, problems = validate(paths)
        if problems:
            raise problems[0].error()
        return cards

    files = list(iter_unit_files(paths))
    return cached(files, load) if files else load()


def default_data_dir() -> Path:
    """``unit_data/`` of the checkout, or the copy installed with the package."""
    here = Path(__file__).resolve().parents[1]  # the package folder
    for cand in (here.parent / "unit_data", here / "unit_data"):
        if cand.is_dir():
            return cand
    raise DustsimError("no unit_data directory found; pass paths explicitly")


def find_card(cards: Iterable[Card], name: str, edition: str | None = None,
              ruleset: str | None = None) -> Card:
    """Card by exact (case-insensitive) name, within an edition (or a ruleset's editions).

    A name found in several editions resolves to Dust 1947 (the bundled default) when it is
    one of them; otherwise pass the edition.
    """
    pool = [c for c in cards if (edition is None or c.edition == edition) and (
        ruleset is None or DEFAULT_RULESET_FOR_EDITION.get(c.edition) == ruleset)]
    from dustsim.data.names import did_you_mean, fold

    exact = [c for c in pool if c.name.lower() == name.lower()]
    if not exact:  # accents and case: 'Guai-lo' finds Guaï-lo
        exact = [c for c in pool if fold(c.name) == fold(name)]
    if len(exact) > 1 and edition is None:
        exact = [c for c in exact if c.edition == "dust-1947"] or exact
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        eds = ", ".join(sorted(c.edition for c in exact))
        raise DustsimError(f"unit {name!r} exists in several editions ({eds}); pass --edition")
    raise DustsimError(f"no unit named {name!r}{did_you_mean(name, (c.name for c in pool))}",
                       unit=name)


# -- writing ---------------------------------------------------------------------------------
def weapon_to_dict(w: Weapon) -> dict:
    d: dict[str, Any] = {"name": w.name}
    if w.count != 1:
        d["count"] = w.count
    d["range"] = w.range
    if w.mount:
        d["mount"] = w.mount
    if w.keywords:
        d["keywords"] = list(w.keywords)
    if w.ammo is not None:
        d["ammo"] = w.ammo
    if w.optional:
        d["optional"] = True
    if w.cost is not None:
        d["cost"] = int(w.cost) if float(w.cost).is_integer() else w.cost
    if w.group:
        d["group"] = w.group
    d["line"] = [c.text for c in w.line]
    if w.cell_sources:
        d["cell_sources"] = dict(w.cell_sources)
    if w.flags:
        d["flags"] = list(w.flags)
    if w.source:
        d["source"] = w.source
    return d


def card_to_dict(c: Card, *, file_defaults: dict | None = None) -> dict:
    fd = file_defaults or {}
    d: dict[str, Any] = {"name": c.name}
    if fd.get("edition") != c.edition:
        d["edition"] = c.edition
    if fd.get("bloc") != c.bloc:
        d["bloc"] = c.bloc
    if c.faction:
        d["faction"] = c.faction
    if c.kind is not None:
        d["kind"] = c.kind
    if c.armour is not None:
        d["armour"] = c.armour
    for k in ("models", "models_source", "damage_track", "move", "march_move"):
        v = getattr(c, k)
        if v is not None:
            d[k] = v
    if c.ap is not None:
        d["ap"] = int(c.ap) if float(c.ap).is_integer() else c.ap
    if c.size != "standard":
        d["size"] = c.size
    if c.skills:
        d["skills"] = list(c.skills)
    if c.max_per_army is not None:
        d["max_per_army"] = c.max_per_army
    if c.capturable:
        d["capturable"] = True
    if c.flags:
        d["flags"] = list(c.flags)
    if c.cover:
        d["cover"] = dict(c.cover)
        d["cover_source"] = c.cover_source
    d["source"] = c.source
    if c.sources:
        d["sources"] = list(c.sources)
    if c.errata:
        d["errata"] = list(c.errata)
    if c.revision and fd.get("revision") != c.revision:
        d["revision"] = c.revision
    if c.conflicts:
        d["conflict"] = [{"field": x.field, "used": x.used, "other": x.other,
                          "used_source": x.used_source, "other_source": x.other_source}
                         for x in c.conflicts]
    if c.weapons:
        d["weapon"] = [weapon_to_dict(w) for w in c.weapons]
    return d


_ARRAY_RE = re.compile(r'\[\n((?:    "(?:[^"\\\n]|\\.)*",\n)+)\]')


def _inline_arrays(text: str) -> str:
    """tomli_w puts every array item on its own line; keep string arrays on one line."""

    def join(m: re.Match) -> str:
        items = [ln.strip().rstrip(",") for ln in m.group(1).splitlines()]
        return "[" + ", ".join(items) + "]"

    return _ARRAY_RE.sub(join, text)


def dumps_unit_file(cards: list[Card], header: dict, comment: str = "") -> str:
    """Serialise cards to the TOML format (stable order: readable diffs, byte-identical)."""
    import tomli_w

    doc = {"schema": 1, **header,
           "card": [card_to_dict(c, file_defaults=header) for c in cards]}
    body = _inline_arrays(tomli_w.dumps(doc, multiline_strings=False))
    head = "".join(f"# {line}\n" for line in comment.splitlines()) if comment else ""
    return head + body
