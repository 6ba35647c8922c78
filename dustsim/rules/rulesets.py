"""Rulesets: every success probability of each Dust edition, derived from die face sets.

One frozen :class:`Ruleset` per ruleset id of RULES.md (``tactics-2009``, ``tactics-2013``,
``dust-1947``, ``epic``). A ruleset says *which faces* succeed for each roll; the
probabilities follow from :mod:`dustsim.rules.dice`. Open questions of the digests are named
options (:data:`OPTIONS`), each with its default and its source lines; this module is the one
place that documents them.

Sources: ``rules/dust-tactics-2009.md`` §1, §3-§8; ``rules/dust-tactics-2013-cerberus.md``
§1.3, §3, §6, §8; ``rules/dust-1947.md`` §3, §6-§9; ``rules/dust-epic.md`` §1.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType

from dustsim.data.editions import DEFAULT_RULESET_FOR_EDITION, EDITIONS  # noqa: F401
from dustsim.errors import DustsimError
from dustsim.rules.dice import ALL, NONE, PS, PT, TS, FaceSet, P, rerolled

RULESET_IDS: tuple[str, ...] = ("tactics-2009", "tactics-2013", "dust-1947", "epic")


@dataclass(frozen=True)
class Option:
    """A named choice for an open rules question."""

    name: str
    choices: tuple[str, ...]
    default: dict[str, str]  # ruleset id -> default choice
    source: str
    doc: str


#: Every open-question option, its default per ruleset, and where the question comes from.
OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option(
            "resilience",
            ("per-damage-point", "per-hit-marked", "pooled", "per-hit-capped"),
            {"tactics-2009": "per-damage-point", "tactics-2013": "per-hit-marked",
             "dust-1947": "pooled"},
            "2009 L696-700; 000:L483, L487, L496; 003:L3485-3493 (OPEN-13)",
            "Damage Resilient counting. per-damage-point: one die per damage point suffered "
            "(2009). per-hit-marked: squads one die per unsaved hit, heroes/vehicles one die "
            "per point actually marked, overkill not rolled (2013). pooled: all damage of the "
            "attack, full automatic-kill amount included (1947). per-hit-capped: 2013 counting "
            "under 1947 rules.",
        ),
        Option(
            "support_weapon_damage",
            ("weapon", "one-per-hit"),
            {"tactics-2009": "weapon", "tactics-2013": "one-per-hit", "dust-1947": "weapon"},
            "000:L413; 003:L731 (OPEN-14)",
            "Damage a hit deals to a support weapon: the weapon's damage value, or one cross.",
        ),
        Option(
            "fighting_spirit",
            ("all", "reversed"),
            {"tactics-2009": "all"},
            "001:L714-720 (2009 Open Q1)",
            "2009 Fighting Spirit: every die hits (literal reading) or hits on blanks (4/6).",
        ),
        Option(
            "squad_resilience_damage",
            ("all-points", "one-die"),
            {"dust-1947": "all-points"},
            "003:L731, L3485 (OPEN-13)",
            "1947 Damage Resilient for a squad model hit by damage > 1: roll the weapon's "
            "damage value in dice and the model survives only if every point is cancelled "
            "(automatic kill counts 1), or roll one die per hit.",
        ),
        Option(
            "cover_2009",
            ("hit-save", "miss-save", "no-save"),
            {"tactics-2009": "miss-save"},
            "001:L489-499",
            "2009 infantry in cover when the card's cover entry is not given: HIT SAVE (1/3), "
            "MISS SAVE (2/3, the only value the book prints: Combat Rangers hard cover) or "
            "NO SAVE.",
        ),
    )
}


@dataclass(frozen=True)
class SaveRoll:
    """One save die per hit: succeeds on ``faces``; failures re-rolled once on ``reroll``."""

    faces: FaceSet = NONE
    reroll: FaceSet = NONE

    @property
    def p(self) -> Fraction:
        p1 = self.faces.p
        return p1 + (1 - p1) * self.reroll.p

    @property
    def exists(self) -> bool:
        return bool(self.faces.faces)


NO_SAVE = SaveRoll()


@dataclass(frozen=True)
class Ruleset:
    """Face sets and counting rules of one edition. Pure and immutable."""

    id: str
    title: str
    hit: FaceSet = P
    hit_upgraded: FaceSet = PT
    chain: FaceSet = P
    infantry_save: FaceSet = P
    infantry_cover_save: FaceSet = PS
    vehicle_cover_save: FaceSet = P
    evade_move: FaceSet = NONE
    evade_march: FaceSet = NONE
    resilient: FaceSet = P
    reactive: FaceSet = P
    reactive_dice: int = 2
    suppression: bool = False
    suppression_removal: FaceSet = P
    suppression_dice: int = 2
    #: squads lose one model per unsaved hit (``per-hit``) or per damage point (2009)
    squad_removal: str = "per-hit"
    #: weapon keywords against which Damage Resilient may not be rolled
    resilience_exempt: frozenset[str] = frozenset()
    #: grenade weapons leave vehicles their cover save (1947) or not (2013)
    grenade_keeps_vehicle_cover: bool = True
    #: keywords that remove every infantry and cover save
    no_save_keywords: frozenset[str] = frozenset({"flame", "sniper"})
    #: Fighting Spirit only after a Move this activation (2013 000:L483, 2009 001:L718;
    #: not in 1947, 003:L3521)
    fighting_spirit_needs_move: bool = True
    #: the Frenzy skill exists (Operation Cerberus, 004:L396-400)
    frenzy: bool = False
    #: a hero alone takes cover saves (2009: only while joined to a squad, 001:L527)
    lone_hero_cover: bool = True
    options: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    sources: str = ""

    # -- derived probabilities -------------------------------------------------------------
    def p_hit(self, upgraded: bool = False, sustained: bool = False) -> Fraction:
        """P(a die hits), after the sustained re-roll of misses when ``sustained``."""
        p = (self.hit_upgraded if upgraded else self.hit).p
        return rerolled(p) if sustained else p

    @property
    def p_chain(self) -> Fraction:
        """P(a chain die — laser, cutting, Berserk, Killing Spree, Frenzy — adds a hit)."""
        return self.chain.p

    @property
    def p_resilient(self) -> Fraction:
        return self.resilient.p

    def option(self, name: str) -> str:
        return self.options[name]

    def with_options(self, **choices: str) -> Ruleset:
        """A copy with some open-question options changed (validated)."""
        return get_ruleset(self.id, **{**dict(self.options), **choices})

    def reactive_pmf(self, dice: int | None = None, faces: FaceSet | None = None) -> dict:
        """Reactive attack roll: {'sustained': p2+, 'attack': p1, 'nothing': p0}."""
        n = self.reactive_dice if dice is None else dice
        p = (faces or self.reactive).p
        from math import comb

        probs = [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
        if n == 1:
            return {"sustained": Fraction(0), "attack": probs[1], "nothing": probs[0]}
        return {"sustained": sum(probs[2:]), "attack": probs[1], "nothing": probs[0]}

    def suppression_removal_pmf(self, dice: int | None = None) -> dict:
        """Token removal at activation: {'clear': >=2 successes, 'step': 1, 'none': 0}."""
        if not self.suppression:
            raise ValueError(f"{self.id} has no Under Fire / Suppression tokens")
        pmf = self.reactive_pmf(dice or self.suppression_dice, self.suppression_removal)
        return {"clear": pmf["sustained"], "step": pmf["attack"], "none": pmf["nothing"]}

    def token_after_removal(self, token: str, faces: str) -> str:
        """Token after the removal roll at activation (003:L741): two successes clear every
        token, exactly one steps Suppression down to Under Fire (or clears Under Fire)."""
        if not self.suppression:
            raise ValueError(f"{self.id} has no Under Fire / Suppression tokens")
        hits = sum(self.suppression_removal.succeeds(f) for f in faces.upper() if f in "PTS")
        if hits >= 2 or token == "none":
            return "none"
        if hits == 1:
            return "under-fire" if token == "suppressed" else "none"
        return token

    def models_per_hit(self, damage: int) -> int:
        """Squad models one unsaved hit removes (2009: one per damage point)."""
        return damage if self.squad_removal == "per-damage-point" else 1

    # -- saves: the one place that picks a save roll ----------------------------------------
    def save(
        self,
        target: str,
        *,
        cover: bool = False,
        keywords: frozenset[str] = frozenset(),
        close_combat: bool = False,
        skills: frozenset[str] = frozenset(),
        height: str = "level",
        fortification: str = "none",
        aircraft_moved: str = "none",
        small_vehicle: bool = False,
        cover_2009: str | None = None,
    ) -> SaveRoll:
        """The save a target rolls against one weapon (one die per hit).

        ``target`` is ``infantry``, ``vehicle`` or ``aircraft``; ``height`` is ``level``,
        ``attacker-higher`` or ``target-higher``; ``fortification`` is ``none``, ``bunker``
        or ``strongpoint``. Sources: 1947 digest §7 (L678-727, L3092-3138, L3224-3319,
        L3649-3703); 2013 digest §3 step 6 (000:L402-408, L424, L471-473); 2009 digest §4.
        """
        kw = keywords
        if target == "aircraft":
            if close_combat:
                return NO_SAVE
            faces = {"move": self.evade_move, "march": self.evade_march}.get(aircraft_moved, NONE)
            return SaveRoll(faces)
        if close_combat:
            if target == "infantry" and fortification in ("bunker", "strongpoint") and \
                    self.id == "dust-1947":
                return SaveRoll(PS if fortification == "bunker" else P)
            return NO_SAVE
        if target == "vehicle":
            return self._vehicle_save(cover or small_vehicle, kw, height)
        if target != "infantry":
            raise ValueError(f"unknown target type {target!r}")
        return self._infantry_save(cover, kw, skills, height, fortification, cover_2009)

    def _vehicle_save(self, cover: bool, kw: frozenset[str], height: str) -> SaveRoll:
        if kw & {"phaser", "flame", "sniper"} and self.id == "dust-1947":
            return NO_SAVE  # 1947 §7.4: phaser/flame/sniper leave vehicles no save
        if "grenade" in kw and not self.grenade_keeps_vehicle_cover:
            return NO_SAVE  # 2013: grenades deny every cover save
        if "spray" in kw:
            return NO_SAVE
        base = self.vehicle_cover_save if cover else NONE
        if self.id == "dust-1947":
            if height == "attacker-higher":
                return NO_SAVE
            if height == "target-higher":
                return SaveRoll(PS if cover else P)
        return SaveRoll(base)

    def _infantry_save(
        self, cover, kw, skills, height, fortification, cover_2009
    ) -> SaveRoll:
        if self.id == "tactics-2009":
            if not cover or kw & {"flame", "grenade", "ignores-cover"}:
                return NO_SAVE  # 2009: no save in the open; flame/UGL ignore cover
            choice = cover_2009 or self.options["cover_2009"]
            return SaveRoll({"hit-save": P, "miss-save": TS, "no-save": NONE}[choice])
        steel = bool(skills & {"steel guard", "zombie"})
        superhuman = "superhuman" in skills
        if kw & self.no_save_keywords or "spray" in kw:
            return NO_SAVE
        inf_save = PS if (steel or superhuman) else self.infantry_save
        if steel:
            cover = False  # Steel Guard / Zombie never take a cover save (L3661, L3703)
        if "artillery" in kw and not cover and "steel guard" not in skills:
            return NO_SAVE  # artillery: infantry in the open lose the infantry save (L3224)
        if cover and kw & {"grenade", "phaser"}:
            cover = False  # grenade / phaser: infantry save only (L3274, L3296)
        faces = self.infantry_cover_save if cover else inf_save
        reroll = NONE
        # height advantage changes the save level only (1947 L3094-3096)
        if self.id == "dust-1947" and height == "attacker-higher":
            if not cover:
                return NO_SAVE  # an infantry save becomes none: nothing left to re-roll
            faces = inf_save  # a cover save becomes the (unit's) infantry save
        elif self.id == "dust-1947" and height == "target-higher":
            if cover:
                reroll = self.infantry_cover_save  # cover save re-rolling failures
            faces = self.infantry_cover_save  # an infantry save becomes a cover save
        # bunker / strongpoint: failed infantry or cover saves re-rolled (1947 L3132)
        if fortification == "bunker":
            fort = PS
        elif fortification == "strongpoint":
            fort = P
        elif fortification == "none":
            fort = NONE
        else:
            raise ValueError(f"unknown fortification {fortification!r}")
        if fort.p > reroll.p:
            reroll = fort  # never more than one re-roll of a cover save (L3096): the best
        return SaveRoll(faces, reroll)


_BASE: dict[str, Ruleset] = {
    "tactics-2009": Ruleset(
        id="tactics-2009",
        title="Dust Tactics (2009, classic dice)",
        hit_upgraded=TS,  # Spotter reverses the roll: hits on the 4 blanks (L750)
        infantry_save=NONE,
        infantry_cover_save=TS,
        vehicle_cover_save=NONE,
        squad_removal="per-damage-point",
        lone_hero_cover=False,
        resilience_exempt=frozenset({"flame", "artillery", "close-combat"}),
        no_save_keywords=frozenset({"flame"}),
        sources="rules/dust-tactics-2009.md §1, §3-§8",
    ),
    "tactics-2013": Ruleset(
        id="tactics-2013",
        title="Dust Tactics revised (2013) + Operation Cerberus",
        grenade_keeps_vehicle_cover=False,
        no_save_keywords=frozenset({"spray"}),
        frenzy=True,
        sources="rules/dust-tactics-2013-cerberus.md §1.3, §3, §6, §8",
    ),
    "dust-1947": Ruleset(
        id="dust-1947",
        title="Dust 1947",
        evade_move=P,
        evade_march=PS,
        suppression=True,
        fighting_spirit_needs_move=False,
        sources="rules/dust-1947.md §3, §6-§9",
    ),
    "epic": Ruleset(
        id="epic",
        title="Dust (Epic strategy game)",
        hit_upgraded=P,
        infantry_save=NONE,
        infantry_cover_save=NONE,
        vehicle_cover_save=NONE,
        resilient=NONE,
        sources="rules/dust-epic.md §1",
    ),
}


class RulesetError(DustsimError, ValueError):
    """A ruleset id or rules option that does not exist (one line: flag and valid values)."""


def get_ruleset(ruleset_id: str, **options: str) -> Ruleset:
    """The ruleset for an id, with open-question options set (defaults from :data:`OPTIONS`).
    Unknown ids, options or values raise :class:`RulesetError` naming ``--ruleset`` or
    ``--option`` and listing the valid values."""
    if ruleset_id not in _BASE:
        known = ", ".join(RULESET_IDS)
        raise RulesetError(f"unknown ruleset {ruleset_id!r} (known: {known})",
                           field="--ruleset")
    chosen: dict[str, str] = {}
    for name, opt in OPTIONS.items():
        if ruleset_id in opt.default:
            chosen[name] = opt.default[ruleset_id]
    for name, value in options.items():
        name = name.replace("-", "_")
        if name not in OPTIONS or ruleset_id not in OPTIONS[name].default:
            valid = ", ".join(n for n, o in OPTIONS.items() if ruleset_id in o.default)
            raise RulesetError(f"ruleset {ruleset_id} has no option {name!r} (its options: "
                               f"{valid or 'none'})", field="--option")
        if value not in OPTIONS[name].choices:
            raise RulesetError(
                f"option {name}={value!r} is not one of {', '.join(OPTIONS[name].choices)}",
                field="--option")
        chosen[name] = value
    rs = _BASE[ruleset_id]
    return replace(rs, options=MappingProxyType(chosen))


def fighting_spirit_faces(rs: Ruleset, faces: FaceSet | None = None) -> FaceSet:
    """To-hit faces with Fighting Spirit, given the faces without it (default: the base
    roll). 2013/1947: "as well as" adds the upgraded faces (P or T; 000:L483, 003:L3521).
    2009 (001:L714-720): every face hits (``all``) or, ``reversed``, the roll is read like a
    Spotter's: the four blanks hit and the hit symbol does not (TS, 4/6)."""
    faces = rs.hit if faces is None else faces
    if rs.id == "tactics-2009":
        return ALL if rs.options["fighting_spirit"] == "all" else TS
    return faces | rs.hit_upgraded
