"""The attack compiler: (weapon lines x target x situation x ruleset) -> a flat numeric spec.

Both engines (:mod:`dustsim.engines.exact`, :mod:`dustsim.engines.kernel`) evaluate the same
:class:`AttackSpec`; every rule that turns a card and a situation into dice is applied here,
once, with its source lines. The pipeline inside one weapon line follows RULES.md §3:
roll -> re-roll misses (Sustained Attack, wire-guided) -> chain dice for every hit (laser,
cutting, Berserk, Killing Spree, Frenzy; base face only, never re-rolled) -> one save die per
hit -> allocation of unsaved hits one at a time -> damage / automatic kill -> Damage
Resilient -> suppression.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from dustsim.data.cards import COLUMNS, Card, Cell, Weapon, parse_cell
from dustsim.data.skill_names import norm_skill
from dustsim.errors import DustsimError
from dustsim.rules.dice import NONE, FaceSet, P
from dustsim.rules.rulesets import Ruleset, fighting_spirit_faces, get_ruleset

# -- codes shared with the kernels -------------------------------------------------------------
#: The target owner's hit-allocation policies (RULES.md §3), default first.
#:
#: ``least-loss`` (default): remove the models whose loss costs the owner least. Soldiers are
#: removed before weapon specialists (engine states count soldiers only; the duels keep a
#: weapon line's carriers to the last, ``min(carriers, survivors)``) and before a joined hero,
#: *unless a hit would be wasted*: a hit is **wasted** on the joined hero when, allocated to
#: him, it removes no miniature, i.e. its damage (an automatic kill counted at its full
#: amount) is smaller than the damage the hero has left, before any Damage Resilient roll.
#: Such a hit goes to the hero, because a soldier would be lost to it and the hero is not
#: (hits are assigned one at a time, each resolved before the next, and each hit on an
#: infantry unit removes one miniature of the owner's choice: 003:L731, L932; 2013 000:L487,
#: the owner assigning each of three hits in turn; 001:L550 for 2009, where the choice is made
#: per damage point). A hit that would eliminate the hero goes to a soldier while one is left.
#: RULES.md §3 names the policy but not "wasted"; this reading is ours (see the README).
#: ``squad-first``: every hit to a soldier while one is left. ``hero-first``: every hit to the
#: joined hero while he lives.
POLICIES = ("least-loss", "squad-first", "hero-first")
DEFAULT_POLICY = "least-loss"
#: Kernel codes: the owner's policies, then the attacker's aim (Sniper 003:L3317, 001:L738-742;
#: Assassin 003:L3429): every unsaved hit to the named miniature, wasted once it is gone.
ALLOCATIONS = ("squad-first", "hero-first", "least-loss", "aimed-hero", "aimed-soldier")
#: the same codes by name, for the engines (exact and Monte Carlo take the same decision)
SQUAD_FIRST, HERO_FIRST, LEAST_LOSS, AIMED_HERO, AIMED_SOLDIER = range(len(ALLOCATIONS))
AIMS = ("none", "hero", "soldier")
#: Token a weapon line's hit gives (003:L739, L3417): none (close combat), a step
#: (none -> Under Fire -> Suppressed) or Suppressed at once (Flame, And Stay Down).
TOKEN_NONE, TOKEN_STEP, TOKEN_SUPPRESS = 0, 1, 2
#: Stunned token a weapon line gives (battles read it; a single attack reports no token):
#: none, when the target takes damage from it (Tesla, 003:L3329), when it scores a hit
#: (Grapple, L3268: "scores a Hit", read as a hit rolled, before saves: OPEN-15 decided by
#: the text's wording; Tesla's text says damage)
STUN_NONE, STUN_ON_DAMAGE, STUN_ON_HIT = 0, 1, 2
#: Head Shot (BattleScribe ``Dust_1947.gst`` rule b11e-2700-038e-1344): a hit of the line gives
#: the plain Stunned token (Tesla's token, 003:L3329-3333), read like Grapple's "scores a Hit"
#: (a hit rolled, before saves)
STUN_HIT_STUNNED = 3
#: Damage Resilient counting for a squad model: none, one die per hit, every point (model
#: survives only if all are cancelled), or one die per point with one model per point (2009).
SQUAD_DR = {"none": 0, "per-hit": 1, "all-points": 2, "per-point": 3}
DR_NONE, SQ_DR_PER_HIT, SQ_DR_ALL_POINTS, SQ_DR_PER_POINT = SQUAD_DR.values()
#: Damage Resilient for a single model (hero, vehicle, support): none, one die per point of
#: the hit's full damage before capping (2009/1947), one die per point actually marked (2013).
SINGLE_DR = {"none": 0, "full": 1, "marked": 2}
_, SG_DR_FULL, SG_DR_MARKED = SINGLE_DR.values()
TOKENS = ("none", "under-fire", "suppressed")
ACTIONS = ("attack", "sustained", "reactive")

ATTACKER_SKILLS = {
    "expert", "fighting spirit", "take aim", "power scope", "spotter", "savage animal",
    "killing spree", "berserk", "frenzy", "lucky", "medal of honor", "and stay down",
    "air alert", "assassin", "sniper", "radar", "psychic scream",
}
TARGET_SKILLS = {
    "damage resilient", "defensive tactics", "steel guard", "zombie", "superhuman",
    "cheat death", "nothin' easy", "assault shield", "mythos creature",
}

_norm_skill = norm_skill  # the one skill-name normaliser (dustsim.data.skill_names)


def token_immune(target: Target) -> bool:
    """The target never gains Under Fire / Suppression tokens: a Superhuman (003:L3675), a
    unit joined by a hero with Nothin's Easy (003:L3611-3613: "any Unit Joined by this Hero";
    a lone hero with it is not covered by the text), or a Mythos Creature (BattleScribe
    ``Dust_1947.gst`` rule 5ecc-bf37-dcad-4e11: immune to Suppression, read as both token
    steps, Under Fire and Suppressed, as Superhuman's immunity is, 003:L737-757)."""
    return ("superhuman" in target.skills or "nothin' easy" in target.hero_skills
            or "mythos creature" in target.skills
            or ("nothin' easy" in target.skills and target.kind == "squad"))


def column_type(column: str) -> str:
    if column not in COLUMNS:
        raise DustsimError(f"{column!r} is not an armour column (I1-I4, V1-V7, A1-A3)",
                           field="target")
    return {"I": "infantry", "V": "vehicle", "A": "aircraft"}[column[0]]


@dataclass(frozen=True)
class Situation:
    """How the attacker acts. ``skills`` are the attacker's skills in force."""

    action: str = "attack"
    moved: bool = False
    close_combat: bool = False
    salvo: bool = False
    volley: int = 0
    skills: frozenset[str] = frozenset()
    #: Sniper / Assassin: the miniature the attacker names (``hero`` or ``soldier``)
    aim: str = "none"
    #: the attacking unit's own token: a Suppressed unit reacts with one die (003:L747, L3333)
    token: str = "none"

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise DustsimError(f"action {self.action!r} is not one of {', '.join(ACTIONS)}",
                               field="action")
        if self.aim not in AIMS:
            raise DustsimError(f"aim {self.aim!r} is not one of {', '.join(AIMS)}",
                               field="--aim")
        if self.token not in TOKENS:
            raise DustsimError(f"attacker token {self.token!r} is not one of "
                               f"{', '.join(TOKENS)}", field="--attacker-token")
        object.__setattr__(self, "skills", frozenset(_norm_skill(s) for s in self.skills))
        unknown = self.skills - ATTACKER_SKILLS
        if unknown:
            raise DustsimError(f"unknown attacker skill(s) {', '.join(sorted(unknown))}; "
                               f"known: {', '.join(sorted(ATTACKER_SKILLS))}", field="skill")
        if self.volley < 0:
            raise DustsimError("volley boxes must be >= 0", field="volley")


@dataclass(frozen=True)
class Target:
    """The unit attacked: its armour column, size, state and situation."""

    column: str
    models: int | None = None
    track: int | None = None
    damage_taken: int = 0
    kind: str | None = None
    hero_track: int | None = None
    hero_damage_taken: int = 0
    hero_skills: frozenset[str] = frozenset()
    skills: frozenset[str] = frozenset()
    cover: bool = False
    cover_2009: str | None = None
    fortification: str = "none"
    height: str = "level"
    aircraft_moved: str = "none"
    small: bool = False
    moved: bool = False
    policy: str = DEFAULT_POLICY
    token: str = "none"

    def __post_init__(self) -> None:
        ttype = column_type(self.column)
        kind = self.kind or {"infantry": "squad", "vehicle": "vehicle",
                             "aircraft": "aircraft"}[ttype]
        object.__setattr__(self, "kind", kind)
        for name in ("skills", "hero_skills"):
            object.__setattr__(self, name, frozenset(_norm_skill(s) for s in getattr(self, name)))
        unknown = (self.skills | self.hero_skills) - TARGET_SKILLS
        if unknown:
            raise DustsimError(f"unknown target skill(s) {', '.join(sorted(unknown))}; known: "
                               f"{', '.join(sorted(TARGET_SKILLS))}", field="target-skill")
        if kind == "squad":
            if ttype != "infantry":
                raise DustsimError("only infantry columns hold squads", field="target")
            if self.models is None or self.models < 1:
                raise DustsimError("a squad target needs --models >= 1", field="models")
        else:
            if self.track is None or self.track < 1:
                raise DustsimError(f"a {kind} target needs a damage track (--track >= 1)",
                                   field="track")
            if not 0 <= self.damage_taken < self.track:
                raise DustsimError("damage taken must be below the track", field="damage_taken")
        if self.hero_track is not None:
            if kind != "squad":
                raise DustsimError("a hero joins only a squad", field="hero_track")
            if not 0 <= self.hero_damage_taken < self.hero_track:
                raise DustsimError("hero damage taken must be below its track",
                                   field="hero_damage_taken")
        if self.policy not in POLICIES:
            raise DustsimError(f"policy {self.policy!r} is not one of {', '.join(POLICIES)}",
                               field="--policy")
        if self.token not in TOKENS:
            raise DustsimError(f"token {self.token!r} is not one of {', '.join(TOKENS)}",
                               field="token")

    @property
    def target_type(self) -> str:
        return column_type(self.column)

    @property
    def miniatures(self) -> int:
        """Miniatures for blast dice (RULES.md §3; a joined hero counts as one)."""
        if self.kind == "squad":
            return self.models + (1 if self.hero_track is not None else 0)
        if self.kind == "support":
            return self.track - self.damage_taken  # one soldier per remaining point (L3679)
        return 1


@dataclass(frozen=True)
class GroupSpec:
    """One weapon line of the attack, all its carriers together (masks: die face bits)."""

    name: str
    dice: int
    hit: int
    reroll: int = 0
    reroll2: int = 0
    chain: int = 0
    save: int = 0
    save_reroll: int = 0
    damage: int = 1
    auto_kill: bool = False
    squad_models_per_hit: int = 1
    resilient_squad: bool = False
    resilient_single: bool = False
    token: int = TOKEN_STEP
    medal: bool = False
    stun: int = STUN_NONE
    #: the target re-rolls its successful saves (Radiation, BattleScribe ``Dust_1947.gst``
    #: rule 34cd-c25a-7247-8ee9): a hit stays saved only if the save succeeds twice
    saves_rerolled: bool = False


@dataclass(frozen=True)
class AttackSpec:
    """The flat numeric description of one attack action against one target."""

    ruleset: str
    groups: tuple[GroupSpec, ...]
    models: int = 0
    single: int = 0
    single_full: int = 0
    single_is_hero: bool = False
    squad_dr: int = 0
    single_dr: int = 0
    auto_full: bool = True
    policy: int = 0
    token: int = 0
    #: the allocation that ran (:data:`ALLOCATIONS`)
    allocation: str = DEFAULT_POLICY
    suppression: bool = False
    reactive: int = 0
    reactive_dice: int = 0
    cheat_death: int = 0
    notes: tuple[str, ...] = field(default=())

    @property
    def max_damage(self) -> int:
        return self.models + self.single


def _hit_faces(rs: Ruleset, keywords, sit: Situation, sustained: bool,
               target: Target) -> FaceSet:
    """To-hit faces: base, or upgraded by an "as well as" skill (1947 §3, 2013 §1.3)."""
    s = sit.skills
    faces = rs.hit
    upgraded = False
    if "expert" in s or "savage animal" in s:
        upgraded = True  # L3517, L3637: the named weapon; pass the skill for that weapon
    if "expert" in keywords or "savage-animal" in keywords:
        upgraded = True  # the same skills printed on the weapon itself (its own rule)
    if ("take aim" in s or "power-scope" in keywords or "power scope" in s) and sustained:
        upgraded = True  # L3685, L3302: only in a Sustained Attack
    if "spotter" in s and ("sniper" in keywords or rs.id == "tactics-2009"):
        if rs.id == "tactics-2009" or sustained:
            upgraded = True  # 2009 L750 reversed roll; 1947 L3323 sustained only
    if "air alert" in s and target.target_type == "aircraft":
        upgraded = True  # L3377
    if upgraded:
        faces = rs.hit_upgraded
    if "fighting spirit" in s and (sit.moved or not rs.fighting_spirit_needs_move):
        # 2013 000:L483 and 2009 001:L718: only after a Move this activation; 1947 L3521: none
        faces = fighting_spirit_faces(rs, faces)
    return faces


def _dice(cell: Cell, weapon: Weapon, target: Target, sit: Situation) -> int:
    """Dice rolled by one weapon line (all carriers). Sources in the comments."""
    if cell.blast:
        n = cell.blast * target.miniatures  # 003:L670-674; 000:L385
    else:
        n = cell.dice
    n *= weapon.count
    kw = set(weapon.keywords)
    if "set-up" in kw and sit.moved:
        n = math.ceil(n / 2)  # 000:L385: half the dice, rounded up, after moving
    if "burst" in kw and not target.moved:
        n *= 2  # 004:L412-414: target has not moved this round
    if "salvo" in kw and sit.salvo:
        n *= 2  # 003:L3312
    if "volley" in kw and sit.volley:
        n *= sit.volley  # 003:L3341: dice x ammo boxes spent
    return n


def compile_attack(
    weapons: list[tuple[Weapon, Cell]] | list[Weapon],
    target: Target,
    situation: Situation | None = None,
    ruleset: Ruleset | str = "dust-1947",
) -> AttackSpec:
    """Compile weapon lines (with the cell for the target's column) into an AttackSpec."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    sit = situation or Situation()
    if rs.id == "epic":
        raise DustsimError("Dust Epic battles are not unit attacks; use `dustsim epic`",
                           field="ruleset")
    pairs: list[tuple[Weapon, Cell]] = []
    for item in weapons:
        if isinstance(item, tuple):
            pairs.append(item)
        else:
            pairs.append((item, item.cell(target.column)))
    if not pairs:
        raise DustsimError("no weapon can attack this target", field="weapon")
    notes: list[str] = []
    ttype = target.target_type
    sustained = sit.action == "sustained"
    reactive = sit.action == "reactive"
    groups = []
    for idx, (w, cell) in enumerate(pairs):
        if not cell.known or (cell.can_damage and cell.damage is None):
            raise DustsimError(f"cell {cell.text!r} against {target.column} is unknown",
                               weapon=w.name, field=target.column)
        if not cell.can_damage:
            continue
        if cell.blast and target.kind == "squad" and target.models is None:
            raise DustsimError("a blast weapon needs the target's model count",
                               weapon=w.name, field="models")
        kw = frozenset(w.keywords)
        close = w.close_combat
        dice = _dice(cell, w, target, sit)
        if dice <= 0:
            continue
        hit = _hit_faces(rs, kw, sit, sustained, target)
        reroll = hit if (sustained or reactive) else NONE
        if "wire-guided" in kw and len(pairs) == 1 and sit.action == "attack":
            reroll = hit  # 003:L3345: fired alone in an Attack action
        if "lucky" in sit.skills and reroll == NONE:
            reroll = hit  # 003:L3585; not stacked with the sustained re-roll (OPEN-10)
        if "radar" in sit.skills and ttype == "aircraft" and reroll == NONE:
            # Radar (BattleScribe Dust_1947.gst rule 46d2-2b5b-abf1-b90a, Operation Kondor
            # p. 112): failed dice re-rolled once in an Attack or Sustained Attack on an
            # aircraft; "once": no second re-roll on top of the sustained one (as Lucky)
            reroll = hit
        reroll2 = NONE
        if "berserk" in sit.skills and rs.id == "tactics-2009":
            reroll2 = hit  # 2009 L676-682: another re-roll of failures, after sustained
            if reroll == NONE:
                reroll, reroll2 = hit, NONE
        chain = NONE
        if kw & {"laser", "cutting"}:
            chain = rs.chain  # 003:L3280, L3238; 000:L472
        if "killing spree" in sit.skills and not close and rs.id == "dust-1947":
            chain = rs.chain  # L3571
        if "berserk" in sit.skills and close and rs.id == "dust-1947":
            chain = rs.chain  # L3437
        if "frenzy" in sit.skills and ttype == "infantry" and rs.frenzy:
            chain = rs.chain  # 004:L396-400: only against soldiers (tactics-2013 only)
        cover = target.cover
        if target.kind == "hero" and not rs.lone_hero_cover:
            cover = False  # 2009 001:L527: a hero has cover only while joined to a squad
        save = rs.save(
            ttype, cover=cover, keywords=kw, close_combat=close, skills=target.skills,
            height=target.height, fortification=target.fortification,
            aircraft_moved=target.aircraft_moved, small_vehicle=target.small,
            cover_2009=target.cover_2009,
        )
        save_faces, save_rr = save.faces, save.reroll
        if "psychic scream" in sit.skills and ttype != "aircraft" and rs.id == "dust-1947":
            # Psychic Scream (BattleScribe Dust_1947.gst rule 0a01-816f-3ce5-05f5): its line
            # ignores infantry and cover saves (a vehicle's only save is a cover save, L727);
            # an aircraft's evade save is neither and stays
            save_faces, save_rr = NONE, NONE
        if "flame-burst" in kw and rs.id == "dust-1947":
            # Flame Burst (BattleScribe Dust_1947.gst rule 540e-f4c4-e4c9-0153, Operation
            # Kondor p. 112): no save of any kind (evade included); Suppression as Flame
            save_faces, save_rr = NONE, NONE
        if close and rs.id == "dust-1947" and "assault shield" in target.skills:
            # Assault Shield (BattleScribe Dust_1947.gst rule aef5-44e8-7fd4-b9e6, SSU.cat
            # 3055ccf0-...): a close-combat hit assigned to the shield's bearer is cancelled
            # on the bloc face P (RULES.md section 1, digest section 1: 1/3), rolled after
            # any save, so it is the save (none in close combat, L765) or the re-roll of a
            # failed one (a fortification's close-combat save has no re-roll, L3136). The
            # unit's skill covers every miniature of it; a joined hero's own shield in a
            # squad without one is not played (allocation decides who bears a hit)
            if save_faces == NONE:
                save_faces = P
            elif save_rr == NONE:
                save_rr = P
            else:  # no such save exists today; refuse rather than drop the shield
                raise DustsimError("Assault Shield on a save that already re-rolls",
                                   weapon=w.name, field="target-skill")
        damage = cell.damage or 0
        if target.kind == "support" and rs.options.get("support_weapon_damage") == "one-per-hit":
            damage = 1
        dr_exempt = bool(rs.resilience_exempt & (kw | ({"close-combat"} if close else set())))
        dr_skill = {"damage resilient", "steel guard"}
        squad_res = bool(target.skills & dr_skill) or (
            "defensive tactics" in target.skills and target.cover)
        hero_res = bool(target.hero_skills & dr_skill) or (
            "defensive tactics" in (target.skills | target.hero_skills) and target.cover)
        single_res = hero_res if target.hero_track is not None else squad_res
        if target.kind != "squad":
            single_res = squad_res
        groups.append(GroupSpec(
            name=w.name,
            dice=dice,
            hit=hit.mask,
            reroll=reroll.mask,
            reroll2=reroll2.mask,
            chain=chain.mask,
            save=save_faces.mask,
            save_reroll=save_rr.mask,
            damage=damage,
            auto_kill=cell.auto_kill,
            squad_models_per_hit=rs.models_per_hit(max(damage, 1)) if not cell.auto_kill else 1,
            resilient_squad=squad_res and target.kind == "squad" and not dr_exempt,
            resilient_single=single_res and not dr_exempt,
            # Flame (L3244-3248): no infantry or cover save (rulesets), Suppression at once;
            # the Flame Template's shape is lost with the seeds' figures: every engine
            # strikes the target unit only (the decision in rules.skills, named in notes)
            token=(TOKEN_NONE if close else TOKEN_SUPPRESS
                   if (kw & {"flame", "flame-burst"} or "and stay down" in sit.skills)
                   else TOKEN_STEP),
            medal=("medal of honor" in sit.skills and idx == 0),
            stun=(STUN_ON_DAMAGE if "tesla" in kw else STUN_ON_HIT if "grapple" in kw
                  else STUN_HIT_STUNNED if "head-shot" in kw and rs.id == "dust-1947"
                  else STUN_NONE),
            saves_rerolled=("radiation" in kw and rs.id == "dust-1947"
                            and save_faces != NONE),
        ))
    if not groups:
        raise DustsimError(f"no weapon can damage a {target.column} target", field="target")
    if "frenzy" in sit.skills and not rs.frenzy:
        notes.append(f"Frenzy does not exist under {rs.id}; ignored")
    if "fighting spirit" in sit.skills and rs.fighting_spirit_needs_move and not sit.moved:
        notes.append("Fighting Spirit needs a Move this activation; not used")
    if rs.id == "tactics-2009" and target.cover and ttype == "infantry" and \
            target.cover_2009 is None and (target.kind != "hero" or rs.lone_hero_cover):
        notes.append(f"cover save not printed for this target: option cover_2009="
                     f"{rs.options['cover_2009']} used (001:L489-499)")
    allocation = _allocation(rs, pairs, target, sit)
    immune = token_immune(target)
    reactive_dice = rs.reactive_dice
    if sit.token != "none":
        if not rs.suppression:
            raise DustsimError(f"{rs.id} has no Under Fire / Suppression tokens",
                               field="--attacker-token")
        if sit.token == "suppressed":
            reactive_dice = 1  # 003:L747, L3333: a Suppressed unit reacts with one die
    # damage-resilience counting modes (RULES.md §2; rules.OPTIONS['resilience'])
    mode = rs.options.get("resilience", "none")
    squad_dr = {"per-damage-point": "per-point", "per-hit-marked": "per-hit",
                "pooled": "all-points", "per-hit-capped": "per-hit"}.get(mode, "none")
    if rs.id == "dust-1947" and mode == "pooled" and \
            rs.options.get("squad_resilience_damage") == "one-die":
        squad_dr = "per-hit"
    single_dr = "marked" if mode in ("per-hit-marked", "per-hit-capped") else "full"
    if target.kind == "squad":
        models = target.models
        single = (target.hero_track - target.hero_damage_taken) if target.hero_track else 0
        single_full = target.hero_track or 0
        is_hero = target.hero_track is not None
        cheat = "cheat death" in target.hero_skills
    else:
        models = 0
        single = target.track - target.damage_taken
        single_full = target.track
        is_hero = target.kind == "hero"
        cheat = "cheat death" in target.skills and target.kind == "hero"
    return AttackSpec(
        ruleset=rs.id,
        groups=tuple(groups),
        models=models,
        single=single,
        single_full=single_full,
        single_is_hero=is_hero,
        squad_dr=SQUAD_DR[squad_dr],
        single_dr=SINGLE_DR[single_dr],
        auto_full=rs.id == "dust-1947",  # L733: the full undamaged track; 2013: what is left
        policy=ALLOCATIONS.index(allocation),
        token=TOKENS.index(target.token),
        suppression=rs.suppression and not immune,  # Superhuman: never a token (L3675)
        reactive=P.mask if reactive else 0,
        reactive_dice=reactive_dice if reactive else 0,
        cheat_death=P.mask | (1 << 2) if cheat else 0,
        allocation=allocation,
        notes=tuple(notes),
    )


def _allocation(rs: Ruleset, pairs, target: Target, sit: Situation) -> str:
    """The allocation that runs: the owner's policy, or the attacker's aim (Sniper weapons
    003:L3317 and 001:L738-742; Assassin in close combat 003:L3429). 1947: every unsaved hit
    goes to the named miniature and is wasted once it is gone. 2009: the Sniper picks the
    miniatures that suffer the hits, so an aim at the hero sends him every hit while he lives
    and an aim at soldiers sends them every hit while one is left."""
    if sit.aim == "none":
        return target.policy
    if target.kind != "squad":
        raise DustsimError("--aim names a miniature of a squad target", field="--aim")
    if sit.aim == "hero" and target.hero_track is None:
        raise DustsimError("--aim hero needs a joined hero (--hero-track)", field="--aim")
    if rs.id not in ("dust-1947", "tactics-2009"):
        raise DustsimError(f"no Sniper / Assassin aiming rule under {rs.id} (known: "
                           "dust-1947, tactics-2009)", field="--aim")
    for w, _cell in pairs:
        sniper = "sniper" in w.keywords or (rs.id == "tactics-2009" and "sniper" in sit.skills)
        # Head Shot: the attacker chooses the soldiers hit (BattleScribe Dust_1947.gst rule
        # b11e-2700-038e-1344), played as the Sniper's aim
        sniper = sniper or ("head-shot" in w.keywords and rs.id == "dust-1947")
        assassin = "assassin" in sit.skills and w.close_combat and rs.id == "dust-1947"
        if not (sniper or assassin):
            raise DustsimError(f"only a Sniper weapon or an Assassin's close-combat weapon "
                               f"may aim ({w.name} may not)", weapon=w.name, field="--aim")
    if rs.id == "tactics-2009":
        return "hero-first" if sit.aim == "hero" else "squad-first"
    return f"aimed-{sit.aim}"


def weapon_from_cell(text: str, *, count: int = 1, keywords=(), name: str | None = None,
                     column: str = "I1", range_: str = "6") -> tuple[Weapon, Cell]:
    """An ad-hoc weapon line for the scripting interface (``dustsim attack --weapon 3/1``)."""
    from dustsim.data.cards import UNKNOWN, normalize_keyword

    try:
        cell = parse_cell(text)
    except ValueError as exc:
        raise DustsimError(str(exc), field="weapon") from None
    kws = []
    for k in keywords:
        canon = normalize_keyword(k)
        if canon is None:
            raise DustsimError(f"unknown weapon keyword {k!r}", field="keyword")
        kws.append(canon)
    if count < 1:
        raise DustsimError("--count must be >= 1", field="count")
    line = tuple(cell if c == column else UNKNOWN for c in COLUMNS)
    w = Weapon(name=name or text, line=line, count=count, range=range_,
               keywords=tuple(sorted(set(kws))))
    return w, cell


@dataclass(frozen=True)
class WeaponChoice:
    """One weapon line of a card in an attack: fired or left out, and why."""

    name: str
    fired: bool
    reason: str = ""


def weapon_reach(w: Weapon) -> tuple[int, int] | None:
    """(shortest, longest) range of a weapon in squares; ``C`` = 1 (adjacent), ``U`` =
    unlimited; None when the range is unknown (``?``)."""
    r = w.range
    if r == "C":
        return 1, 1
    if r == "U":
        return 0, 10**6
    if r.isdigit():
        return 0, int(r)
    if "-" in r:
        lo, hi = r.split("-", 1)
        if lo.isdigit() and (hi == "U" or hi.isdigit()):
            return int(lo), (10**6 if hi == "U" else int(hi))
    return None


def weapon_choices(card: Card, column: str, *, close_combat: bool = False,
                   include_optional: bool = False,
                   distance: int | None = None) -> list[WeaponChoice]:
    """Every weapon line of a card against an armour column: fired or left out, with the
    reason (not fielded, close-combat weapon outside close combat, out of range at
    ``distance``, cannot damage this target type, unknown cell)."""
    out = []
    for w in card.weapons:
        cell = w.cell(column)
        reason = ""
        if (w.optional or w.count == 0) and not include_optional:
            reason = "optional, not fielded" if w.optional else "no carrier"
        elif w.close_combat and not close_combat:
            reason = "close-combat weapon (give --close-combat)"
        elif distance is not None and (reach := weapon_reach(w)) is None:
            reason = "range unknown ('?')"
        elif distance is not None and not reach[0] <= distance <= reach[1]:
            reason = f"out of range (range {w.range}, distance {distance})"
        elif not cell.known or (cell.can_damage and cell.damage is None):
            reason = f"{column} cell unknown"
        elif not cell.can_damage:
            reason = f"cannot damage {column} ({cell.text})"
        out.append(WeaponChoice(w.name, not reason, reason))
    return out


def usable_weapons(card: Card, column: str, *, close_combat: bool = False,
                   include_optional: bool = False) -> tuple[list[Weapon], list[str]]:
    """Weapons of a card that can hurt a column; second value: those left out because their
    cell is unknown (see :func:`weapon_choices` for every reason)."""
    choices = weapon_choices(card, column, close_combat=close_combat,
                             include_optional=include_optional)
    out = [w for w, c in zip(card.weapons, choices, strict=True) if c.fired]
    skipped = [f"{c.name}: {c.reason}" for c in choices if c.reason.endswith("cell unknown")]
    return out, skipped


def target_from_card(card: Card, **situation) -> Target:
    """A Target describing a card at full strength (cover etc. passed through)."""
    if card.armour is None or card.kind is None:
        raise DustsimError("armour or kind unknown: cannot be a target", unit=card.name,
                           field="armour")
    skills = frozenset(s for s in map(_norm_skill, card.skills) if s in TARGET_SKILLS)
    small = card.size == "small"
    cover_kind = situation.pop("cover_kind", None)
    if cover_kind is not None:
        # 2009 soft / hard cover (001:L489-499, L525): the card's printed save, if known
        situation["cover"] = True
        printed = dict(card.cover).get(cover_kind, "?")
        if printed != "?" and situation.get("cover_2009") is None:
            situation["cover_2009"] = printed
    if card.kind == "squad":
        if card.models is None:
            raise DustsimError("model count unknown: cannot be a target", unit=card.name,
                               field="models")
        return Target(column=card.armour, models=card.models, skills=skills, **situation)
    if card.damage_track is None:
        raise DustsimError("damage track unknown: cannot be a target", unit=card.name,
                           field="damage_track")
    return Target(column=card.armour, track=card.damage_track, kind=card.kind, skills=skills,
                  small=small, **situation)


def attacker_skills(card: Card) -> frozenset[str]:
    """Attacker skills of a card that the engines model (others are listed as not modelled)."""
    return frozenset(s for s in map(_norm_skill, card.skills) if s in ATTACKER_SKILLS
                     and s not in {"fighting spirit", "lucky", "medal of honor", "expert",
                                   "take aim", "air alert", "savage animal", "psychic scream"})



_NAMED = re.compile(r"^\s*(expert|savage animal)\s*(?:[-–—:]\s*(.+))?$", re.IGNORECASE)


def named_weapons(card: Card, skill: str) -> frozenset[str]:
    """Weapon names (lower case) a weapon-specific skill of ``card`` names: ``Expert -
    Flamethrower``, ``Expert: A/B``; a bare ``Expert`` names none (the card does not say which
    weapon, L3517; nothing is guessed)."""
    out: set[str] = set()
    for s in card.skills:
        m = _NAMED.match(s)
        if m and m.group(1).lower() == skill and m.group(2):
            out |= {" ".join(x.lower().split()) for x in m.group(2).split("/") if x.strip()}
    return frozenset(out)


def weapon_skills(card: Card, weapon: Weapon, pilot: Card | None = None) -> frozenset[str]:
    """The attacker skills in force for one weapon line of ``card`` in a battle's attack, every
    time it fires: :func:`attacker_skills`, plus Expert and Savage Animal on the weapon they
    name (hits on P,T: 003:L3515-3517, L3635-3637) and the hero's own Take Aim on its ranged
    weapons (hits on P,T in a Sustained Attack, L3683-3687; not shared with a joined unit,
    L3687: the skill goes with the hero's weapon lines only). Per-game skills (Fighting
    Spirit, Lucky) are spent by the battle engine, not here. ``pilot``: the hero piloting
    the vehicle ``card``; with Ace Gunner every weapon of the vehicle has Expert (BattleScribe
    ``Dust_1947.gst`` rule c7d5-d278-ef0e-0ad8)."""
    s = set(attacker_skills(card))
    if pilot is not None and card.kind in ("vehicle", "aircraft") and any(
            _norm_skill(x) == "ace gunner" for x in pilot.skills):
        s.add("expert")
    if is_psychic_scream(card, weapon):
        s.add("psychic scream")
    name = " ".join(weapon.name.lower().split())
    for skill in ("expert", "savage animal"):
        if name in named_weapons(card, skill):
            s.add(skill)
    if card.kind == "hero" and not weapon.close_combat and any(
            _norm_skill(x) == "take aim" for x in card.skills):
        s.add("take aim")
    return frozenset(s)


def is_psychic_scream(card: Card, weapon: Weapon) -> bool:
    """The weapon line a card's Psychic Scream skill fires: the line named like the skill
    (BattleScribe ``Dust_1947.gst`` rule 0a01-816f-3ce5-05f5: once per game, a free action,
    an attack on every unit, friend or foe, within range 3, ignoring line of sight and
    infantry and cover saves)."""
    return " ".join(weapon.name.lower().split()) == "psychic scream" and any(
        _norm_skill(x) == "psychic scream" for x in card.skills)


def fortification_of(card: Card) -> str:
    """The fortification a card is fielded in: a Strongpoint unit must be deployed in a
    strongpoint or bunker and has a free strongpoint, upgraded to a bunker for 5 AP (003:L3663-
    3665, L3116-3118); the bundled data lists the upgrade as its own card named "(Bunker)", so
    that card sits in a bunker and the other in a strongpoint. Anything else: ``none``."""
    if not any(_norm_skill(s) == "strongpoint" for s in card.skills):
        return "none"
    return "bunker" if "(bunker)" in card.name.lower() else "strongpoint"
